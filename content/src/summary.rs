//! `chapters/SUMMARY.md`: the one source of the companion's chapter order.
//!
//! Each entry is one line:
//!
//! ```text
//! 1. [All About Rooflines](01-rooflines.md) {slug=rooflines book=roofline}
//! 2. [How to Think About TPUs]() {slug=tpus book=tpus}
//! ```
//!
//! The number is the book's part; an empty link target means our chapter is not
//! written yet; `slug` is our route and `book` the book's own page name.
//!
//! ```
//! use ridgeline_content::summary::parse_summary;
//!
//! let parts = parse_summary("# Summary\n\n1. [Rooflines](01-rooflines.md) {slug=rooflines book=roofline}\n").unwrap();
//! assert_eq!(parts[0].number, 1);
//! assert_eq!(parts[0].file.as_deref(), Some("01-rooflines.md"));
//! ```

use crate::directive::Directive;

/// The book's site, to which every part links.
pub const BOOK_URL: &str = "https://jax-ml.github.io/scaling-book";

/// One part of the book as the companion lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    /// The book's part number (0–12).
    pub number: u8,
    /// Title.
    pub title: String,
    /// Our Markdown file, or `None` when the chapter is not written yet.
    pub file: Option<String>,
    /// Our route (`/rooflines`).
    pub slug: String,
    /// The book's page name (`roofline`).
    pub book: String,
}

impl Part {
    /// The book's own page for this part.
    pub fn book_url(&self) -> String {
        if self.book.is_empty() {
            format!("{BOOK_URL}/")
        } else {
            format!("{BOOK_URL}/{}/", self.book)
        }
    }
}

/// Parses SUMMARY.md; every non-blank line after the title must be an entry.
pub fn parse_summary(text: &str) -> Result<Vec<Part>, String> {
    let mut parts: Vec<Part> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = |m: &str| format!("SUMMARY.md line {}: {m}", i + 1);
        let (num, rest) = line
            .split_once(". [")
            .ok_or_else(|| at("expected `N. [Title](file.md) {slug=… book=…}`"))?;
        let number: u8 = num
            .parse()
            .map_err(|_| at(&format!("`{num}` is not a part number")))?;
        let (title, rest) = rest.split_once("](").ok_or_else(|| at("missing `](`"))?;
        let (file, rest) = rest.split_once(')').ok_or_else(|| at("missing `)`"))?;
        let args = rest
            .trim()
            .strip_prefix('{')
            .and_then(|r| r.strip_suffix('}'))
            .ok_or_else(|| at("missing `{slug=… book=…}`"))?;
        let d = Directive::parse(&format!("part {args}")).map_err(|e| at(&e.message))?;
        d.check_args(&["slug", "book"]).map_err(|e| at(&e))?;
        let slug = d
            .arg("slug")
            .ok_or_else(|| at("missing slug="))?
            .to_string();
        if parts.iter().any(|p| p.slug == slug || p.number == number) {
            return Err(at(&format!("part {number} or slug `{slug}` appears twice")));
        }
        parts.push(Part {
            number,
            title: title.trim().to_string(),
            file: (!file.trim().is_empty()).then(|| file.trim().to_string()),
            slug,
            book: d.arg("book").unwrap_or("").to_string(),
        });
    }
    if parts.is_empty() {
        return Err("SUMMARY.md lists no parts".into());
    }
    Ok(parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_written_and_unwritten() {
        let parts = parse_summary(
            "# Summary\n0. [Intro]() {slug=intro book=}\n2. [TPUs]() {slug=tpus book=tpus}\n",
        );
        // `book=` with no value is a directive error: the intro must say book=index or omit it.
        assert!(parts.is_err());
        let parts = parse_summary("0. [Intro]() {slug=intro}\n2. [TPUs]() {slug=tpus book=tpus}\n")
            .unwrap();
        assert_eq!(parts.len(), 2);
        assert_eq!(parts[0].file, None);
        assert_eq!(
            parts[0].book_url(),
            "https://jax-ml.github.io/scaling-book/"
        );
        assert_eq!(
            parts[1].book_url(),
            "https://jax-ml.github.io/scaling-book/tpus/"
        );
    }

    #[test]
    fn rejects_malformed_and_duplicates() {
        assert!(parse_summary("").is_err());
        assert!(parse_summary("- [A](a.md)").is_err());
        assert!(parse_summary("1. [A](a.md) {slug=a}\n1. [B](b.md) {slug=b}").is_err());
        assert!(parse_summary("1. [A](a.md) {slug=a color=red}").is_err());
    }
}
