//! The site's search index: the plain text of every written chapter, keyed by
//! route. It ships as a file beside the site (written by `ridgeline-site` at
//! build time, fetched by the app on the reader's first search) rather
//! than inside every WebAssembly bundle.
//!
//! The format is deliberately trivial: records separated by U+001E, each a
//! route and a text separated by U+001F (neither character survives in the
//! text). Decoding never fails; malformed records are skipped.
//!
//! ```
//! use ridgeline_content::search::{decode, encode, file_name};
//!
//! let index = encode(&[("rooflines", "All About Rooflines\nA ridge point…")]);
//! assert_eq!(decode(&index), vec![("rooflines".to_string(), "All About Rooflines\nA ridge point…".to_string())]);
//! assert!(file_name(&index).starts_with("search-"));
//! ```

const RECORD: char = '\u{1e}';
const FIELD: char = '\u{1f}';

/// Encodes `(route, text)` pairs.
pub fn encode(entries: &[(&str, &str)]) -> String {
    let clean = |s: &str| s.replace([RECORD, FIELD], " ");
    entries
        .iter()
        .map(|(slug, text)| format!("{}{FIELD}{}", clean(slug), clean(text)))
        .collect::<Vec<_>>()
        .join(&RECORD.to_string())
}

/// Decodes an index; records without both fields are skipped.
pub fn decode(index: &str) -> Vec<(String, String)> {
    index
        .split(RECORD)
        .filter_map(|r| r.split_once(FIELD))
        .filter(|(slug, _)| !slug.is_empty())
        .map(|(slug, text)| (slug.to_string(), text.to_string()))
        .collect()
}

/// The index's file name, named by its content (FNV-1a 64) so that caches
/// never serve a stale index under a new build.
pub fn file_name(index: &str) -> String {
    let h = ridgeline_core::rng::fnv1a(index.as_bytes());
    format!("search-{h:016x}.txt")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_strips_separators() {
        let index = encode(&[("a", "x\u{1e}y"), ("b", "z\u{1f}w")]);
        assert_eq!(
            decode(&index),
            vec![("a".into(), "x y".into()), ("b".into(), "z w".into())]
        );
        assert_eq!(decode(""), vec![]);
        assert_eq!(decode("garbage\u{1e}\u{1f}no slug"), vec![]);
        assert_ne!(file_name("a"), file_name("b"));
    }
}
