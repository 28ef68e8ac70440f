//! How to cite a page: BibTeX for the companion's page (its permalink and the
//! build's version) and for the book, in a `<details>` that works without
//! JavaScript; and how to cite one figure (a widget), with a link to it. The
//! start script makes each permalink absolute (`[data-permalink]`): the static
//! page knows its path, not its host; a figure's link gains the widget's
//! current settings (`?NAME.key=value`) from the page's address.

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
    entry(&key(path), title)
}

/// The companion's entry for the figure `widget` of the page at `path` titled
/// `title`, split where the permalink goes (see [`companion_bibtex`]).
pub fn figure_bibtex(path: &str, title: &str, widget: &str) -> (String, String) {
    entry(
        &format!("{}-{widget}", key(path)),
        &format!("Figure “{widget}”, in {title}"),
    )
}

/// A `@misc` entry of the companion with `key` and `title`, split where the url goes.
fn entry(key: &str, title: &str) -> (String, String) {
    let head = format!(
        "@misc{{{key},\n  title = {{{title}}},\n  howpublished = {{Online}},\n  note = {{ridgeline version {VERSION}, an interactive companion to How to Scale Your Model}},\n  url = {{",
        title = bibtex_escape(title),
    );
    (head, "}\n}".to_string())
}

/// The id of the figure `widget` on its page (the target of its link).
pub fn figure_id(widget: &str) -> String {
    format!("figure-{widget}")
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

/// "Cite this figure": a link to the figure `widget` of the page at `path`
/// and its BibTeX. Without JavaScript the link opens the figure as the
/// chapter sets it; the start script adds the widget's current settings
/// (`[data-cite-figure]`) whenever the reader opens the control or changes
/// the widget.
#[component]
pub fn CiteFigure(
    /// The page's path below the site's base.
    path: &'static str,
    /// The page's title.
    title: String,
    /// The widget's directive name.
    widget: &'static str,
) -> impl IntoView {
    let (head, tail) = figure_bibtex(path, &title, widget);
    let link = format!("{}#{}", permalink(path), figure_id(widget));
    view! {
        <details class="cite cite-figure" data-cite-figure=widget>
            <summary>"Cite this figure"</summary>
            <p>
                "Link to this figure with its settings: "
                <a data-figure-link="" href=link.clone()>
                    <span data-permalink="">{link.clone()}</span>
                </a>
            </p>
            <pre data-bibtex="figure">{head}<span data-permalink="">{link}</span>{tail}</pre>
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
    fn a_figure_entry_names_the_widget_the_page_and_the_version() {
        let (head, tail) = figure_bibtex(
            "rooflines",
            "Part 1. Rooflines — ridgeline",
            "roofline_ridge",
        );
        let entry = format!("{head}https://example.org/rooflines#figure-roofline_ridge{tail}");
        assert!(
            entry.starts_with("@misc{ridgeline-rooflines-roofline_ridge,\n"),
            "{entry}"
        );
        assert!(
            entry.contains(
                "  title = {Figure “roofline\\_ridge”, in Part 1. Rooflines — ridgeline},\n"
            ),
            "{entry}"
        );
        assert!(entry.contains(&format!("ridgeline version {VERSION},")));
        assert_eq!(entry.matches('{').count(), entry.matches('}').count());
        assert_eq!(figure_id("training-roofline"), "figure-training-roofline");
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
