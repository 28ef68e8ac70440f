//! # ridgeline-app
//!
//! The companion's front end: a Leptos client-side app compiled to WebAssembly.
//! Chapters arrive pre-rendered from `build.rs`; widgets are thin components
//! over `ridgeline-core`, drawing with plotters on canvases.
//!
//! Layout: [`router`] maps paths to [`pages`]; [`widgets`] holds one module per
//! widget directive; [`charts`] draws without knowing about signals;
//! [`input`] validates everything a reader types.

/// Benchmark entry points, in the bundle that carries the emulator.
#[cfg(widget = "sharding")]
pub mod bench;
pub mod charts;
pub mod content;
pub mod input;
pub mod pages;
pub mod progress;
pub mod router;
pub mod shell;
pub mod widgets;

use leptos::prelude::*;
use router::{resolve, Route, Router};
use widgets::common::Theme;

/// The whole app: header, the current page, footer.
#[component]
pub fn App() -> impl IntoView {
    let router = Router::start();
    provide_context(router);
    let prefers_dark = window()
        .match_media("(prefers-color-scheme: dark)")
        .ok()
        .flatten()
        .map(|m| m.matches())
        .unwrap_or(false);
    let dark = RwSignal::new(shell::stored_theme().unwrap_or(prefers_dark));
    shell::install_part_keys(router);
    shell::register_service_worker();
    provide_context(Theme(dark));
    Effect::new(move |_| {
        if let Some(root) = document().document_element() {
            let _ = root.set_attribute("data-theme", if dark.get() { "dark" } else { "light" });
        }
    });

    let route = Memo::new(move |_| resolve(&router.path.get()));
    Effect::new(move |_| {
        let title = match route.get() {
            Route::Home => "ridgeline — a companion to How to Scale Your Model".to_string(),
            Route::Part(p) => format!("Part {}. {} — ridgeline", p.number, p.title),
            Route::Progress => "Your progress — ridgeline".to_string(),
            Route::Numbers => "About the numbers — ridgeline".to_string(),
            Route::NotFound => "Not found — ridgeline".to_string(),
        };
        document().set_title(&title);
    });

    view! {
        <div class="shell" on:click=move |ev| router.intercept(&ev)>
            <a class="skip" href="#main">"Skip to content"</a>
            <header class="site-header">
                <a class="brand" href="./">"ridgeline"</a>
                <span class="tagline">"a companion to How to Scale Your Model"</span>
                <a class="progress-link" href="progress">"progress"</a>
                <shell::Search />
                <shell::ThemeToggle dark=dark />
            </header>
            <main id="main" tabindex="-1">
                {move || match route.get() {
                    Route::Home => view! { <pages::home::Home /> }.into_any(),
                    Route::Part(p) if !p.here => view! { <pages::Elsewhere /> }.into_any(),
                    Route::Part(p) => view! { <pages::part::Part page=p /> }.into_any(),
                    #[cfg(site_pages)]
                    Route::Progress => view! { <pages::progress::ProgressPage /> }.into_any(),
                    #[cfg(site_pages)]
                    Route::Numbers => view! { <pages::numbers::NumbersPage /> }.into_any(),
                    #[cfg(not(site_pages))]
                    Route::Progress | Route::Numbers => view! { <pages::Elsewhere /> }.into_any(),
                    Route::NotFound => view! { <pages::NotFound /> }.into_any(),
                }}
            </main>
            <footer class="site-footer">
                <p>
                    "Built on "
                    <a href="https://jax-ml.github.io/scaling-book/" rel="noopener"><cite>"How to Scale Your Model"</cite></a>
                    " by Jacob Austin, Sholto Douglas, Roy Frostig, Anselm Levskaya and co-authors (Google DeepMind, 2025), used under the MIT licence. Formulas and numbers are the book's; the words and any mistakes are ours. "
                    <a href="numbers">"About the numbers"</a>
                    " · "
                    <a href="introduction">"How to use this companion"</a>
                </p>
            </footer>
        </div>
    }
}
