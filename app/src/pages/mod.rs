//! Whole pages, rendered to static HTML at build time by `ridgeline-site`:
//! the frame around every page, the home page, a part's page, the progress and
//! numbers pages and the page for unknown paths, and how to cite a page. Their live parts are islands
//! (see [`crate::islands`]).

pub mod cite;
pub mod home;
pub mod keys;
pub mod numbers;
pub mod part;
pub mod progress;

use crate::islands::names;
use leptos::prelude::*;

/// Where the site's own link targets point, relative to the page's `<base>`.
pub const HOME_HREF: &str = "./";

/// The frame of every page: skip link, header (with the search and theme
/// islands), the page in `<main>`, footer (with the Cite control).
#[component]
pub fn Frame(
    /// The page's route, for the skip link (`rooflines#main`); empty for home.
    route: &'static str,
    /// Compressed size of the "make available offline" download.
    offline_bytes: f64,
    /// The page's title, for its citation.
    #[prop(into)]
    title: String,
    /// The page.
    children: Children,
) -> impl IntoView {
    view! {
        <div class="shell">
            <a class="skip" href=format!("{route}#main")>"Skip to content"</a>
            <header class="site-header">
                <a class="brand" href=HOME_HREF>"ridgeline"</a>
                <span class="tagline">"a companion to How to Scale Your Model"</span>
                <a class="progress-link" href="progress">"progress"</a>
                <div class="island" data-island=names::SEARCH><crate::shell::Search /></div>
                <div class="island" data-island=names::THEME><crate::shell::ThemeToggle /></div>
            </header>
            <main id="main" tabindex="-1">{children()}</main>
            <footer class="site-footer">
                <p>
                    "Built on "
                    <a href="https://jax-ml.github.io/scaling-book/" rel="noopener"><cite>"How to Scale Your Model"</cite></a>
                    " by Jacob Austin, Sholto Douglas, Roy Frostig, Anselm Levskaya and co-authors (Google DeepMind, 2025), used under the MIT licence. Formulas and numbers are the book's; the words and any mistakes are ours. "
                    <a href="numbers">"About the numbers"</a>
                    " · "
                    <a href="introduction">"How to use this companion"</a>
                    " · "
                    <a href="measured">"Predicted beside measured"</a>
                </p>
                <cite::Cite path=route title=title />
                <p class="keys-hint">"Press " <kbd>"?"</kbd> " for the keyboard shortcuts."</p>
                <div class="island" data-island=names::OFFLINE data-bytes=offline_bytes.to_string()>
                    <crate::shell::OfflineControl bytes=offline_bytes />
                </div>
                <p class="islands-status" data-islands-status="" role="status">
                    "The widgets could not start (the page's code did not load); the text and the figures above are complete. Reload to try again."
                </p>
            </footer>
            <keys::KeysSheet />
        </div>
    }
}

/// The page for a path that matches nothing.
#[component]
pub fn NotFound() -> impl IntoView {
    view! {
        <section class="page not-found" data-page="not-found">
            <h1>"Page not found"</h1>
            <p>"There is no page at this address. "<a href=HOME_HREF>"Go to the list of parts"</a>"."</p>
        </section>
    }
}
