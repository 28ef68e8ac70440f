//! The site's search index: the plain text of every written chapter with its
//! route, part number, title and section headings. It ships as a file beside
//! the site (written by `ridgeline-site` at build time, fetched by the app on
//! the reader's first search) rather than inside every WebAssembly bundle, and
//! it is all the search needs: no bundle carries the book's contents table.
//!
//! The format is deliberately trivial: records separated by U+001E, each five
//! fields separated by U+001F (route, part number, title, sections, text); the
//! sections are separated by U+001D, each an anchor and a heading separated by
//! U+001C. None of these characters survives in a field. Decoding never
//! fails; malformed records are skipped.
//!
//! ```
//! use ridgeline_content::search::{decode, encode, file_name, Entry};
//!
//! let part = Entry {
//!     route: "rooflines".into(),
//!     number: 1,
//!     title: "All About Rooflines".into(),
//!     sections: vec![("the-ridge".into(), "The ridge".into())],
//!     text: "All About Rooflines\nA ridge point…".into(),
//! };
//! let index = encode(std::slice::from_ref(&part));
//! assert_eq!(decode(&index), vec![part]);
//! assert!(file_name(&index).starts_with("search-"));
//! ```

const RECORD: char = '\u{1e}';
const FIELD: char = '\u{1f}';
const SECTION: char = '\u{1d}';
const ANCHOR: char = '\u{1c}';

/// One written part as the index holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Our route.
    pub route: String,
    /// The book's part number.
    pub number: u8,
    /// The part's title.
    pub title: String,
    /// Level-2 headings: (anchor id, text).
    pub sections: Vec<(String, String)>,
    /// The chapter's plain text.
    pub text: String,
}

/// Encodes the entries.
pub fn encode(entries: &[Entry]) -> String {
    let clean = |s: &str| s.replace([RECORD, FIELD, SECTION, ANCHOR], " ");
    entries
        .iter()
        .map(|e| {
            let sections = e
                .sections
                .iter()
                .map(|(id, heading)| format!("{}{ANCHOR}{}", clean(id), clean(heading)))
                .collect::<Vec<_>>()
                .join(&SECTION.to_string());
            format!(
                "{}{FIELD}{}{FIELD}{}{FIELD}{sections}{FIELD}{}",
                clean(&e.route),
                e.number,
                clean(&e.title),
                clean(&e.text)
            )
        })
        .collect::<Vec<_>>()
        .join(&RECORD.to_string())
}

/// Decodes an index; records without a route, a part number and all five
/// fields are skipped.
pub fn decode(index: &str) -> Vec<Entry> {
    index
        .split(RECORD)
        .filter_map(|r| {
            let mut f = r.splitn(5, FIELD);
            let (route, number, title, sections, text) =
                (f.next()?, f.next()?, f.next()?, f.next()?, f.next()?);
            (!route.is_empty()).then_some(())?;
            Some(Entry {
                route: route.to_string(),
                number: number.parse().ok()?,
                title: title.to_string(),
                sections: sections
                    .split(SECTION)
                    .filter_map(|s| s.split_once(ANCHOR))
                    .map(|(id, h)| (id.to_string(), h.to_string()))
                    .collect(),
                text: text.to_string(),
            })
        })
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
        let entry = |route: &str, text: &str| Entry {
            route: route.into(),
            number: 3,
            title: "T\u{1c}itle".into(),
            sections: vec![("a\u{1d}b".into(), "c".into()), ("d".into(), "e".into())],
            text: text.into(),
        };
        let index = encode(&[entry("a", "x\u{1e}y"), entry("b", "z\u{1f}w")]);
        let back = decode(&index);
        assert_eq!(back.len(), 2);
        assert_eq!(
            (back[0].text.as_str(), back[1].text.as_str()),
            ("x y", "z w")
        );
        assert_eq!(back[0].title, "T itle");
        assert_eq!(
            back[1].sections,
            vec![("a b".into(), "c".into()), ("d".into(), "e".into())]
        );
        assert_eq!(decode(""), vec![]);
        assert_eq!(
            decode("garbage\u{1e}\u{1f}1\u{1f}t\u{1f}\u{1f}no route"),
            vec![]
        );
        assert_eq!(decode("r\u{1f}not a number\u{1f}t\u{1f}\u{1f}text"), vec![]);
        assert_eq!(decode("r\u{1f}1\u{1f}t\u{1f}text, too few fields"), vec![]);
        assert_ne!(file_name("a"), file_name("b"));
    }
}
