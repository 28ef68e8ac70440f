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
//! `bundle` (default [`DEFAULT_BUNDLE`]) names the WebAssembly bundle the part's
//! page ships in: the site is built once per bundle, so that a page's first load
//! carries only its own widgets and exercises (see `scripts/build.sh`).
//!
//! ```
//! use ridgeline_content::summary::parse_summary;
//!
//! let parts = parse_summary("# Summary\n\n1. [Rooflines](01-rooflines.md) {slug=rooflines book=roofline}\n").unwrap();
//! assert_eq!(parts[0].number, 1);
//! assert_eq!(parts[0].file.as_deref(), Some("01-rooflines.md"));
//! ```

use crate::directive::Directive;

/// The bundle of parts that name none, and of every page that is not a part
/// (home, progress, numbers, not found).
pub const DEFAULT_BUNDLE: &str = "main";

/// The bundle of the exercise checker, which every page with problems loads
/// when the reader reaches them; no part may name it.
pub const EXERCISES_BUNDLE: &str = "exercises";

/// The bundle of the reader's library (the own-model and own-chip forms),
/// which pages holding those forms load when the reader reaches them; no part
/// may name it.
pub const LIBRARY_BUNDLE: &str = "library";

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
    /// The WebAssembly bundle this part's page ships in.
    pub bundle: String,
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
        d.check_args(&["slug", "book", "bundle"])
            .map_err(|e| at(&e))?;
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
            bundle: bundle_name(d.arg("bundle").unwrap_or(DEFAULT_BUNDLE)).map_err(|e| at(&e))?,
        });
    }
    if parts.is_empty() {
        return Err("SUMMARY.md lists no parts".into());
    }
    Ok(parts)
}

/// A bundle name becomes a folder and a Cargo feature list's key: lowercase
/// letters, digits and `-` only.
fn bundle_name(name: &str) -> Result<String, String> {
    if name == EXERCISES_BUNDLE || name == LIBRARY_BUNDLE {
        return Err(format!(
            "bundle `{name}` is a lazily loaded bundle's own: name another"
        ));
    }
    let ok = !name.is_empty()
        && name.len() <= 32
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if ok {
        Ok(name.to_string())
    } else {
        Err(format!(
            "bundle `{name}` must be 1–32 lowercase letters, digits or `-`"
        ))
    }
}

/// The bundles in order of first appearance, each with its parts.
pub fn bundles(parts: &[Part]) -> Vec<(String, Vec<&Part>)> {
    let mut out: Vec<(String, Vec<&Part>)> = vec![(DEFAULT_BUNDLE.to_string(), Vec::new())];
    for p in parts {
        match out.iter_mut().find(|(name, _)| *name == p.bundle) {
            Some((_, list)) => list.push(p),
            None => out.push((p.bundle.clone(), vec![p])),
        }
    }
    out
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
        assert_eq!(
            parts.unwrap_err().to_string(),
            "SUMMARY.md line 2: argument `book=` has no value"
        );
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
        assert_eq!(
            parse_summary("").unwrap_err().to_string(),
            "SUMMARY.md lists no parts"
        );
        assert_eq!(
            parse_summary("- [A](a.md)").unwrap_err().to_string(),
            "SUMMARY.md line 1: expected `N. [Title](file.md) {slug=… book=…}`",
        );
        assert_eq!(
            parse_summary("1. [A](a.md) {slug=a}\n1. [B](b.md) {slug=b}")
                .unwrap_err()
                .to_string(),
            "SUMMARY.md line 2: part 1 or slug `b` appears twice",
        );
        assert_eq!(
            parse_summary("1. [A](a.md) {slug=a color=red}")
                .unwrap_err()
                .to_string(),
            "SUMMARY.md line 1: `part` takes no argument `color` (it takes: slug, book, bundle)",
        );
        assert_eq!(
            parse_summary("1. [A](a.md) {slug=a bundle=Big}")
                .unwrap_err()
                .to_string(),
            "SUMMARY.md line 1: bundle `Big` must be 1–32 lowercase letters, digits or `-`",
        );
        assert_eq!(
            parse_summary("1. [A](a.md) {slug=a bundle=../x}")
                .unwrap_err()
                .to_string(),
            "SUMMARY.md line 1: bundle `../x` must be 1–32 lowercase letters, digits or `-`",
        );
        assert_eq!(
            parse_summary("1. [A](a.md) {slug=a bundle=exercises}")
                .unwrap_err()
                .to_string(),
            "SUMMARY.md line 1: bundle `exercises` is a lazily loaded bundle's own: name another",
        );
    }

    #[test]
    fn groups_parts_into_bundles() {
        let parts = parse_summary(
            "0. [I](i.md) {slug=i}\n1. [A](a.md) {slug=a bundle=x}\n2. [B](b.md) {slug=b bundle=x}\n",
        )
        .unwrap();
        let b = bundles(&parts);
        assert_eq!(b.len(), 2);
        assert_eq!(b[0].0, "main");
        assert_eq!(b[0].1.len(), 1);
        assert_eq!(b[1].0, "x");
        assert_eq!(b[1].1.iter().map(|p| p.number).collect::<Vec<_>>(), [1, 2]);
    }
}
