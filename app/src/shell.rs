//! The parts of the page around every chapter: full-text search over the
//! chapters (indexed at build time, so it works offline), the theme toggle, and
//! keyboard shortcuts.

use crate::content::{PartPage, PARTS};
use crate::router::Router;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

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
pub fn search(query: &str) -> Vec<Hit> {
    let q: String = query
        .chars()
        .take(MAX_QUERY)
        .collect::<String>()
        .to_lowercase();
    let words: Vec<&str> = q.split_whitespace().collect();
    if words.is_empty() || q.trim().chars().count() < 2 {
        return Vec::new();
    }
    let mut hits: Vec<Hit> = PARTS
        .iter()
        .filter(|p| p.written)
        .filter_map(|p| {
            let title = p.title.to_lowercase();
            let text = p.text.to_lowercase();
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
                snippet: snippet(p.text, words[0]),
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

/// The search box and its results.
#[component]
pub fn Search() -> impl IntoView {
    let query = RwSignal::new(String::new());
    let hits = Memo::new(move |_| query.with(|q| search(q)));
    let input_ref = NodeRef::<leptos::html::Input>::new();
    let results = move || {
        let q = query.get();
        if q.trim().chars().count() < 2 {
            return None;
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
                on:input=move |ev| query.set(event_target_value(&ev))
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

    #[test]
    fn finds_parts_by_words() {
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
