//! Text made safe to write into HTML.
//!
//! One escaper serves both places text lands in a page: between tags and inside
//! a quoted attribute (either quote). The chapter renderer uses it for a widget
//! slot's `data-` attributes and the site writer for each page's `<title>`.
//!
//! ```
//! use ridgeline_content::html::escape;
//!
//! assert_eq!(escape(r#"<a href="x">Tom & Jerry's</a>"#),
//!            "&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;");
//! ```

/// `s` with `&`, `<`, `>`, `"` and `'` replaced by character references, so
/// that it reads as the same text in an element or in a quoted attribute.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn the_five_special_characters_become_references() {
        assert_eq!(escape("&"), "&amp;");
        assert_eq!(escape("<"), "&lt;");
        assert_eq!(escape(">"), "&gt;");
        assert_eq!(escape("\""), "&quot;");
        assert_eq!(escape("'"), "&#39;");
        // An ampersand is escaped once, not again inside the references it makes.
        assert_eq!(escape("&lt;"), "&amp;lt;");
    }

    #[test]
    fn other_text_is_kept() {
        assert_eq!(escape(""), "");
        assert_eq!(escape("chip=v5e b=64"), "chip=v5e b=64");
        assert_eq!(
            escape("Part 3. Sharding — ridgeline"),
            "Part 3. Sharding — ridgeline"
        );
    }
}
