//! How to cite a page: BibTeX for the companion's page (its permalink and the
//! build's version) and for the book, in a `<details>` that works without
//! JavaScript. The start script makes the permalink absolute
//! (`[data-permalink]`): the static page knows its path, not its host.

use leptos::prelude::*;

/// The version of this build: the crate's, as the site has no other.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The book's own BibTeX entry, as its README gives it.
pub const BOOK_BIBTEX: &str = "@article{scaling-book,
  title = {How to Scale Your Model},
  author = {Austin, Jacob and Douglas, Sholto and Frostig, Roy and Levskaya, Anselm and Chen, Charlie and Vikram, Sharad and Lebron, Federico and Choy, Peter and Ramasesh, Vinay and Webson, Albert and Pope, Reiner},
  publisher = {Google DeepMind},
  howpublished = {Online},
  note = {Retrieved from https://jax-ml.github.io/scaling-book/},
  year = {2025}
}";

/// The book's authors, surname first, in its order.
pub const BOOK_AUTHORS: [&str; 11] = [
    "Austin, Jacob",
    "Douglas, Sholto",
    "Frostig, Roy",
    "Levskaya, Anselm",
    "Chen, Charlie",
    "Vikram, Sharad",
    "Lebron, Federico",
    "Choy, Peter",
    "Ramasesh, Vinay",
    "Webson, Albert",
    "Pope, Reiner",
];

/// `text` with BibTeX's special characters escaped, for a field in braces.
pub fn bibtex_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' | '%' | '#' | '_' | '$' => {
                out.push('\\');
                out.push(c);
            }
            '{' | '}' | '\\' => {}
            c => out.push(c),
        }
    }
    out
}

/// The BibTeX key of the page at `path` (`ridgeline-tpus`; `ridgeline` for home).
pub fn key(path: &str) -> String {
    if path.is_empty() {
        "ridgeline".to_string()
    } else {
        format!("ridgeline-{path}")
    }
}

/// The companion's entry for a page, split where the permalink goes: the text
/// before the url, and the text after it.
pub fn companion_bibtex(path: &str, title: &str) -> (String, String) {
    let head = format!(
        "@misc{{{key},\n  title = {{{title}}},\n  howpublished = {{Online}},\n  note = {{ridgeline version {VERSION}, an interactive companion to How to Scale Your Model}},\n  url = {{",
        key = key(path),
        title = bibtex_escape(title),
    );
    (head, "}\n}".to_string())
}

/// The permalink of the page at `path` as the static page writes it, relative
/// to the site's base (`./` for home), which the start script makes absolute.
pub fn permalink(path: &'static str) -> &'static str {
    if path.is_empty() {
        super::HOME_HREF
    } else {
        path
    }
}

/// The "Cite" control: the page's and the book's BibTeX.
#[component]
pub fn Cite(
    /// The page's path below the site's base (empty for home).
    path: &'static str,
    /// The page's title.
    title: String,
) -> impl IntoView {
    let (head, tail) = companion_bibtex(path, &title);
    let link = permalink(path);
    view! {
        <details class="cite" data-cite="">
            <summary>"Cite"</summary>
            <p>"This page (ridgeline " {VERSION} "):"</p>
            <pre data-bibtex="page">{head}<span data-permalink="">{link}</span>{tail}</pre>
            <p>"The book:"</p>
            <pre data-bibtex="book">{BOOK_BIBTEX}</pre>
        </details>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_entry_names_the_page_the_version_and_leaves_room_for_the_link() {
        let (head, tail) = companion_bibtex("tpus", "Part 2. How to Think About TPUs — ridgeline");
        let entry = format!("{head}https://example.org/tpus{tail}");
        assert!(entry.starts_with("@misc{ridgeline-tpus,\n"), "{entry}");
        assert!(entry.contains("  title = {Part 2. How to Think About TPUs — ridgeline},\n"));
        assert!(entry.contains(&format!("ridgeline version {VERSION},")));
        assert!(
            entry.ends_with("  url = {https://example.org/tpus}\n}"),
            "{entry}"
        );
        assert_eq!(entry.matches('{').count(), entry.matches('}').count());
        assert_eq!(key(""), "ridgeline");
        assert_eq!(bibtex_escape("Q&A 50% {x}"), "Q\\&A 50\\% x");
    }

    #[test]
    fn the_book_entry_has_the_books_fields() {
        for field in [
            "title = {How to Scale Your Model}",
            "publisher = {Google DeepMind}",
            "year = {2025}",
            "note = {Retrieved from https://jax-ml.github.io/scaling-book/}",
        ] {
            assert!(BOOK_BIBTEX.contains(field), "{field}");
        }
        for author in [
            "Austin", "Douglas", "Frostig", "Levskaya", "Chen", "Vikram", "Lebron", "Choy",
            "Ramasesh", "Webson", "Pope",
        ] {
            assert!(BOOK_BIBTEX.contains(&format!("{author}, ")), "{author}");
        }
        assert_eq!(BOOK_BIBTEX.matches(" and ").count(), 10);
        let listed = format!("author = {{{}}}", BOOK_AUTHORS.join(" and "));
        assert!(BOOK_BIBTEX.contains(&listed), "{listed}");
    }
}
