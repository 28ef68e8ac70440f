//! A part's page: the chapter body with its widgets (each an island, but a
//! static figure, which is drawn in place and never mounted), or an honest
//! placeholder.

use crate::content::{neighbours, PartPage, Segment};
use crate::islands::encode_args;
use crate::pages::cite::{figure_id, CiteFigure};
use crate::widgets::{is_figure, widget_view, STATIC};
use leptos::prelude::*;

/// One part of the book.
#[component]
pub fn Part(
    /// The part to show.
    page: &'static PartPage,
) -> impl IntoView {
    let (prev, next) = neighbours(page);
    let body = if page.written {
        page.segments
            .iter()
            .map(|s| match s {
                Segment::Html(h) => view! { <div class="prose" inner_html=*h></div> }.into_any(),
                // A static figure is drawn here, once, and never mounted: no island.
                Segment::Widget(name, args) if STATIC.contains(name) => view! {
                    <div class="static-figure" id=figure_id(name)>
                        {widget_view(name, args).unwrap_or_else(|| {
                            let message = format!("Figure “{name}” is not in this build.");
                            view! { <p class="notice" role="status">{message}</p> }.into_any()
                        })}
                    </div>
                    <CiteFigure path=page.slug title=page.page_title() widget=name />
                }
                .into_any(),
                Segment::Widget(name, args) => view! {
                    <div class="island" id=figure_id(name) data-island=*name data-args=encode_args(args)>
                        {widget_view(name, args).unwrap_or_else(|| {
                            let message = format!("Unknown widget “{name}”.");
                            view! { <p class="notice" role="status">{message}</p> }.into_any()
                        })}
                    </div>
                    {is_figure(name).then(|| view! {
                        <CiteFigure path=page.slug title=page.page_title() widget=name />
                    })}
                }
                .into_any(),
            })
            .collect_view()
            .into_any()
    } else {
        view! {
            <div class="prose pending" data-pending="">
                <p>
                    "Our companion to this part is not written yet. The book's own chapter is "
                    <a href=page.book_url rel="noopener">"here"</a>
                    "."
                </p>
            </div>
        }
        .into_any()
    };
    let toc = (!page.sections.is_empty()).then(|| {
        let items = page
            .sections
            .iter()
            .map(|(id, text)| view! { <li><a href=format!("{}#{id}", page.slug)>{*text}</a></li> })
            .collect_view();
        view! {
            <nav class="toc" aria-label="sections">
                <p class="toc-title">"On this page"</p>
                <ol>{items}</ol>
            </nav>
        }
    });
    let pager = move |p: Option<&'static PartPage>, rel: &'static str, label: &'static str| {
        p.map(|p| {
            view! {
                <a class=rel rel=rel href=p.slug>
                    <span class="pager-label">{label}</span>
                    {format!("Part {}. {}", p.number, p.title)}
                </a>
            }
        })
    };
    view! {
        <article class="page chapter" data-page=page.slug>
            <header class="part-header">
                <p class="part-kicker">
                    {format!("Part {}", page.number)}
                    " · "
                    <a href=page.book_url rel="noopener">"read the book's chapter ↗"</a>
                </p>
                {(!page.written).then(|| view! { <h1>{page.title}</h1> })}
            </header>
            {toc}
            <div class="chapter-body">{body}</div>
            <nav class="pager" aria-label="previous and next part">
                {pager(prev, "prev", "previous")}
                {pager(next, "next", "next")}
            </nav>
        </article>
    }
}
