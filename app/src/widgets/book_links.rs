//! Every part with a link to the book's own chapter (`data-widget="book-links"`).

use crate::content::PARTS;
use leptos::prelude::*;

/// The list.
#[component]
pub fn BookLinks(
    /// Unused; widgets all take the chapter's arguments.
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let _ = args;
    let items = PARTS
        .iter()
        .map(|p| {
            view! {
                <li>
                    {format!("Part {}. ", p.number)}
                    <a href=p.book_url rel="noopener">{p.title}</a>
                    {p.written.then(|| view! { " · " <a href=p.slug>"our companion"</a> })}
                </li>
            }
        })
        .collect_view();
    view! { <nav class="widget book-links" data-widget="book-links" aria-label="the book's chapters"><ol start="0">{items}</ol></nav> }
}
