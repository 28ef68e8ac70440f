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
