//! The home page: every part of the book, from `chapters/SUMMARY.md`.

use crate::content::PARTS;
use leptos::prelude::*;

/// Lists all parts; unwritten ones say so and link to the book.
#[component]
pub fn Home() -> impl IntoView {
    let items = PARTS
        .iter()
        .map(|p| {
            let status = if p.written { "live" } else { "not yet written" };
            view! {
                <li class=if p.written { "part written" } else { "part todo" } data-part=p.number>
                    <span class="part-number">{format!("Part {}", p.number)}</span>
                    <a class="part-title" href=p.slug>{p.title}</a>
                    <span class="part-status">{status}</span>
                    <a class="book-link" href=p.book_url rel="noopener">"the book's chapter ↗"</a>
                </li>
            }
        })
        .collect_view();
    view! {
        <section class="page home" data-page="home">
            <h1>"ridgeline"</h1>
            <p class="lede">
                "An interactive companion to "
                <a href="https://jax-ml.github.io/scaling-book/" rel="noopener"><cite>"How to Scale Your Model"</cite></a>
                " (Austin, Douglas, Frostig, Levskaya et al., Google DeepMind, 2025). Every number is computed live in your browser from one registry of the book's hardware; drag the sliders and watch the arithmetic move."
            </p>
            <ol class="parts">{items}</ol>
            <h2 id="keys-home">"Keyboard shortcuts"</h2>
            <crate::pages::keys::Shortcuts />
        </section>
    }
}
