//! Pages: the home page, a part's page and the page for unknown paths.

pub mod home;
pub mod numbers;
pub mod part;
pub mod progress;

use leptos::prelude::*;

/// The page for a path that matches nothing.
#[component]
pub fn NotFound() -> impl IntoView {
    view! {
        <section class="page not-found" data-page="not-found">
            <h1>"Page not found"</h1>
            <p>"There is no page at this address. "<a href="./">"Go to the list of parts"</a>"."</p>
        </section>
    }
}

/// Shown only if the loader started this bundle for a page another bundle
/// carries (a stale cache): the router normally navigates there instead.
#[component]
pub fn Elsewhere() -> impl IntoView {
    let here = crate::router::current_relative();
    view! {
        <section class="page" data-page="elsewhere">
            <p class="notice" role="status">
                "This page ships in another bundle of the site. "
                <a href=here>"Load it"</a>
                "."
            </p>
        </section>
    }
}
