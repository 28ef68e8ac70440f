//! The parts of the page around every chapter: full-text search over the
//! chapters, the theme toggle, and keyboard shortcuts.
//!
//! The search index (every chapter's text, built with the site) is a file beside
//! the bundles, named in `<meta name="ridgeline-search">`; it is fetched on the
//! reader's first search and precached by the service worker for offline use.

use crate::content::{part, PartPage, PARTS};
use crate::router::Router;
use leptos::prelude::*;
use std::sync::Arc;
use wasm_bindgen::JsCast;

/// The searchable text of every written part.
pub type Index = Vec<(&'static PartPage, String)>;

/// Reads the index file (see `ridgeline_content::search`): records separated
/// by U+001E, route and text by U+001F. Unknown routes and malformed records
/// are skipped; nothing here can fail.
pub fn parse_index(raw: &str) -> Index {
    raw.split('\u{1e}')
        .filter_map(|r| r.split_once('\u{1f}'))
        .filter_map(|(slug, text)| part(slug).map(|p| (p, text.to_string())))
        .collect()
}

/// One search result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    /// The part it is in.
    pub part: &'static PartPage,
    /// The section anchor, when a heading matched.
    pub anchor: Option<&'static str>,
    /// Text around the first match.
    pub snippet: String,
    /// Higher is better.
    pub score: u32,
}

/// Longest query searched; longer input is cut.
pub const MAX_QUERY: usize = 80;

/// Finds `query` (every word, case-insensitively) in the written parts.
pub fn search(query: &str, index: &Index) -> Vec<Hit> {
    let q: String = query
        .chars()
        .take(MAX_QUERY)
        .collect::<String>()
        .to_lowercase();
    let words: Vec<&str> = q.split_whitespace().collect();
    if words.is_empty() || q.trim().chars().count() < 2 {
        return Vec::new();
    }
    let mut hits: Vec<Hit> = index
        .iter()
        .filter(|(p, _)| p.written)
        .filter_map(|&(p, ref body)| {
            let title = p.title.to_lowercase();
            let text = body.to_lowercase();
            if !words.iter().all(|w| title.contains(w) || text.contains(w)) {
                return None;
            }
            let mut score = words
                .iter()
                .map(|w| text.matches(w).count() as u32)
                .sum::<u32>();
            if words.iter().any(|w| title.contains(w)) {
                score += 100;
            }
            let anchor = p
                .sections
                .iter()
                .find(|(_, s)| words.iter().any(|w| s.to_lowercase().contains(w)))
                .map(|(id, _)| *id);
            if anchor.is_some() {
                score += 20;
            }
            Some(Hit {
                part: p,
                anchor,
                snippet: snippet(body, words[0]),
                score,
            })
        })
        .collect();
    hits.sort_by(|a, b| {
        b.score
            .cmp(&a.score)
            .then(a.part.number.cmp(&b.part.number))
    });
    hits
}

/// About 120 characters of `text` around the first case-insensitive match of `word`.
fn snippet(text: &str, word: &str) -> String {
    let lower = text.to_lowercase();
    // Byte offsets of `lower` and `text` can differ for some characters; work in chars.
    let chars: Vec<char> = text.chars().collect();
    let lower_chars: Vec<char> = lower.chars().collect();
    let needle: Vec<char> = word.chars().collect();
    let at = if chars.len() == lower_chars.len() {
        lower_chars
            .windows(needle.len().max(1))
            .position(|w| w == needle.as_slice())
            .unwrap_or(0)
    } else {
        0
    };
    let start = at.saturating_sub(50);
    let end = (at + 70).min(chars.len());
    let mut s: String = chars[start..end].iter().collect();
    s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if start > 0 {
        s = format!("…{s}");
    }
    if end < chars.len() {
        s.push('…');
    }
    s
}

fn typing_in_a_field() -> bool {
    document()
        .active_element()
        .map(|e| {
            matches!(e.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT")
                || e.has_attribute("contenteditable")
        })
        .unwrap_or(false)
}

/// Where the search index stands.
#[derive(Debug, Clone, PartialEq)]
enum IndexState {
    /// Not asked for yet.
    Idle,
    /// Being fetched.
    Loading,
    /// Fetched and parsed.
    Ready(Arc<Index>),
    /// Unavailable, with the reason to show.
    Failed(String),
}

/// Fetches the index named by the page's `<meta name="ridgeline-search">`.
async fn fetch_index() -> Result<Index, String> {
    let url = document()
        .query_selector("meta[name=ridgeline-search]")
        .ok()
        .flatten()
        .and_then(|m| m.get_attribute("content"))
        .ok_or("This build of the site has no search index.")?;
    let unavailable = "The search index could not be loaded (offline before the first visit finished?). Try again once online.";
    let response = wasm_bindgen_futures::JsFuture::from(window().fetch_with_str(&url))
        .await
        .map_err(|_| unavailable)?
        .dyn_into::<web_sys::Response>()
        .map_err(|_| unavailable)?;
    if !response.ok() {
        return Err(unavailable.into());
    }
    let text = wasm_bindgen_futures::JsFuture::from(response.text().map_err(|_| unavailable)?)
        .await
        .map_err(|_| unavailable)?
        .as_string()
        .ok_or(unavailable)?;
    Ok(parse_index(&text))
}

/// The search box and its results.
#[component]
pub fn Search() -> impl IntoView {
    let query = RwSignal::new(String::new());
    let index = RwSignal::new(IndexState::Idle);
    let load = move || {
        if matches!(
            index.get_untracked(),
            IndexState::Idle | IndexState::Failed(_)
        ) {
            index.set(IndexState::Loading);
            wasm_bindgen_futures::spawn_local(async move {
                index.set(match fetch_index().await {
                    Ok(i) => IndexState::Ready(Arc::new(i)),
                    Err(e) => IndexState::Failed(e),
                });
            });
        }
    };
    let hits = Memo::new(move |_| match index.get() {
        IndexState::Ready(i) => query.with(|q| search(q, &i)),
        _ => Vec::new(),
    });
    let input_ref = NodeRef::<leptos::html::Input>::new();
    let results = move || {
        let q = query.get();
        if q.trim().chars().count() < 2 {
            return None;
        }
        match index.get() {
            IndexState::Ready(_) => {}
            IndexState::Failed(e) => {
                return Some(view! { <p class="search-empty" role="status">{e}</p> }.into_any())
            }
            IndexState::Idle | IndexState::Loading => {
                return Some(
                    view! { <p class="search-empty" role="status">"Searching…"</p> }.into_any(),
                )
            }
        }
        let list = hits.get();
        Some(if list.is_empty() {
            view! { <p class="search-empty" role="status">"No part mentions that yet."</p> }
                .into_any()
        } else {
            let items = list
                .into_iter()
                .take(8)
                .map(|h| {
                    let href = match h.anchor {
                        Some(a) => format!("{}#{a}", h.part.slug),
                        None => h.part.slug.to_string(),
                    };
                    view! {
                        <li>
                            <a href=href on:click=move |_| query.set(String::new())>
                                <span class="hit-title">{format!("Part {}. {}", h.part.number, h.part.title)}</span>
                                <span class="hit-snippet">{h.snippet}</span>
                            </a>
                        </li>
                    }
                })
                .collect_view();
            view! { <ol class="search-results" data-search-results="">{items}</ol> }.into_any()
        })
    };
    // "/" focuses the search box; Escape clears it.
    let handle = window_event_listener(leptos::ev::keydown, move |ev| {
        if ev.key() == "/" && !typing_in_a_field() {
            ev.prevent_default();
            if let Some(i) = input_ref.get_untracked() {
                let _ = i.focus();
            }
        }
    });
    on_cleanup(move || handle.remove());
    view! {
        <div class="search" role="search">
            <label class="visually-hidden" for="site-search">"Search the companion"</label>
            <input
                id="site-search"
                type="search"
                node_ref=input_ref
                placeholder="Search  ( / )"
                autocomplete="off"
                maxlength=MAX_QUERY
                prop:value=move || query.get()
                on:focus=move |_| load()
                on:input=move |ev| {
                    load();
                    query.set(event_target_value(&ev));
                }
                on:keydown=move |ev| {
                    if ev.key() == "Escape" {
                        query.set(String::new());
                    }
                }
            />
            {results}
        </div>
    }
}

const THEME_KEY: &str = "ridgeline.theme.v1";

/// The theme stored by the toggle, if the reader chose one.
pub fn stored_theme() -> Option<bool> {
    let storage = window().local_storage().ok().flatten()?;
    match storage.get_item(THEME_KEY).ok().flatten()?.as_str() {
        "dark" => Some(true),
        "light" => Some(false),
        _ => None,
    }
}

/// A button that flips the theme and remembers the choice.
#[component]
pub fn ThemeToggle(
    /// The theme signal.
    dark: RwSignal<bool>,
) -> impl IntoView {
    view! {
        <button
            type="button"
            class="theme-toggle"
            aria-pressed=move || dark.get().to_string()
            aria-label="dark theme"
            title="Toggle the dark theme"
            on:click=move |_| {
                let next = !dark.get_untracked();
                dark.set(next);
                if let Ok(Some(s)) = window().local_storage() {
                    let _ = s.set_item(THEME_KEY, if next { "dark" } else { "light" });
                }
            }
        >
            {move || if dark.get() { "☀ light" } else { "☾ dark" }}
        </button>
    }
}

/// Keyboard shortcuts between parts: `n` or → for the next written part,
/// `p` or ← for the previous one (when no field has focus).
pub fn install_part_keys(router: Router) {
    let handle = window_event_listener(leptos::ev::keydown, move |ev| {
        if ev.ctrl_key() || ev.meta_key() || ev.alt_key() || typing_in_a_field() {
            return;
        }
        let forward = matches!(ev.key().as_str(), "n" | "ArrowRight");
        let back = matches!(ev.key().as_str(), "p" | "ArrowLeft");
        if !(forward || back) {
            return;
        }
        // Only when focus is on the page itself, not on a control.
        if let Some(active) = document().active_element() {
            if active.dyn_ref::<web_sys::HtmlButtonElement>().is_some()
                || active.closest("[data-widget]").ok().flatten().is_some()
            {
                return;
            }
        }
        let path = router.path.get_untracked();
        let here = crate::router::resolve(&path);
        let target = match here {
            crate::router::Route::Part(p) => {
                let (prev, next) = crate::content::neighbours(p);
                if forward {
                    next
                } else {
                    prev
                }
            }
            crate::router::Route::Home if forward => PARTS.iter().find(|p| p.written),
            _ => None,
        };
        if let Some(t) = target {
            ev.prevent_default();
            router.go(t.slug);
        }
    });
    std::mem::forget(handle);
}

/// Registers the service worker that keeps the site working offline.
pub fn register_service_worker() {
    let nav = window().navigator();
    if js_sys::Reflect::has(&nav, &"serviceWorker".into()).unwrap_or(false) {
        let url = format!("{}sw.js", crate::router::base_path());
        let _ = nav.service_worker().register(&url);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The index `build.rs` wrote with `ridgeline_content::search::encode`,
    /// the same text the site ships.
    fn index() -> Index {
        parse_index(include_str!(concat!(env!("OUT_DIR"), "/search-index.txt")))
    }

    #[test]
    fn reads_the_built_index_and_skips_junk() {
        let i = index();
        assert_eq!(i.len(), PARTS.iter().filter(|p| p.written).count());
        assert!(i.iter().all(|(p, text)| text.starts_with(p.title)));
        assert!(parse_index("").is_empty());
        assert!(parse_index("nope\u{1f}text\u{1e}\u{1f}\u{1e}rooflines").is_empty());
        assert_eq!(parse_index("rooflines\u{1f}ridge").len(), 1);
    }

    #[test]
    fn finds_parts_by_words() {
        let index = index();
        let search = |q: &str| search(q, &index);
        let hits = search("ridge point");
        assert_eq!(hits.first().map(|h| h.part.slug), Some("rooflines"));
        let hits = search("wraparound");
        assert!(hits.iter().any(|h| h.part.slug == "tpus"));
        assert!(search("AllGather")
            .iter()
            .any(|h| h.part.slug == "sharding"));
        assert!(search("x").is_empty());
        assert!(search("zzqqxx nothing").is_empty());
        let long = "é".repeat(10_000);
        assert!(search(&long).is_empty());
    }

    #[test]
    fn snippets_surround_the_match() {
        let s = snippet(
            "aaaa bbbb the ridge point is here and more text follows",
            "ridge",
        );
        assert!(s.contains("ridge point"));
        assert_eq!(snippet("Ünïcode ridge", "ridge"), "Ünïcode ridge");
    }
}
