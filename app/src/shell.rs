//! The parts of the page around every chapter: full-text search over the
//! chapters, the theme toggle, and keyboard shortcuts.
//!
//! The search index (every chapter's text, built with the site) is a file beside
//! the bundles, named in `<meta name="ridgeline-search">`; it is fetched on the
//! reader's first search and precached by the service worker for offline use.

use leptos::prelude::*;
use std::sync::Arc;
use wasm_bindgen::JsCast;

/// One written part as the search index holds it (`ridgeline_content::search`):
/// the index carries each part's number, title and sections with its text, so
/// no bundle carries the book's contents table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexedPart {
    /// Our route.
    pub slug: String,
    /// The book's part number.
    pub number: u8,
    /// The part's title.
    pub title: String,
    /// Level-2 headings: (anchor id, text).
    pub sections: Vec<(String, String)>,
    /// The chapter's plain text.
    pub text: String,
}

/// The searchable text of every written part.
pub type Index = Vec<IndexedPart>;

/// Reads the index file (see `ridgeline_content::search`): records separated
/// by U+001E, each route, part number, title, sections and text separated by
/// U+001F; sections separated by U+001D, anchor and heading by U+001C.
/// Malformed records are skipped; nothing here can fail.
pub fn parse_index(raw: &str) -> Index {
    raw.split('\u{1e}')
        .filter_map(|r| {
            let mut f = r.splitn(5, '\u{1f}');
            let (slug, number, title, sections, text) =
                (f.next()?, f.next()?, f.next()?, f.next()?, f.next()?);
            (!slug.is_empty()).then_some(())?;
            Some(IndexedPart {
                slug: slug.to_string(),
                number: number.parse().ok()?,
                title: title.to_string(),
                sections: sections
                    .split('\u{1d}')
                    .filter_map(|s| s.split_once('\u{1c}'))
                    .map(|(id, h)| (id.to_string(), h.to_string()))
                    .collect(),
                text: text.to_string(),
            })
        })
        .collect()
}

/// One search result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    /// The part's route.
    pub slug: String,
    /// The part's number and title, as the result names it.
    pub title: String,
    /// The section anchor, when a heading matched.
    pub anchor: Option<String>,
    /// Text around the first match.
    pub snippet: String,
    /// Higher is better.
    pub score: u32,
    /// The part's number, which orders equal scores.
    number: u8,
}

/// Longest query searched; longer input is cut.
pub const MAX_QUERY: usize = 80;

/// Finds `query` (every word, ignoring ASCII case: the chapters' words are
/// English) in the written parts. Lowercasing only ASCII needs no Unicode
/// case tables, and keeps byte offsets the same in the lowered text.
pub fn search(query: &str, index: &Index) -> Vec<Hit> {
    let q: String = query
        .chars()
        .take(MAX_QUERY)
        .collect::<String>()
        .to_ascii_lowercase();
    let words: Vec<&str> = q.split_whitespace().collect();
    if words.is_empty() || q.trim().chars().count() < 2 {
        return Vec::new();
    }
    let mut hits: Vec<Hit> = index
        .iter()
        .filter_map(|p| {
            let title = p.title.to_ascii_lowercase();
            let text = p.text.to_ascii_lowercase();
            if !words.iter().all(|w| title.contains(w) || text.contains(w)) {
                return None;
            }
            let mut score = words
                .iter()
                .map(|w| u32::try_from(text.matches(w).count()).unwrap_or(u32::MAX))
                .fold(0u32, u32::saturating_add);
            if words.iter().any(|w| title.contains(w)) {
                score += 100;
            }
            let anchor = p
                .sections
                .iter()
                .find(|(_, s)| {
                    let s = s.to_ascii_lowercase();
                    words.iter().any(|w| s.contains(w))
                })
                .map(|(id, _)| id.clone());
            if anchor.is_some() {
                score += 20;
            }
            Some(Hit {
                slug: p.slug.clone(),
                title: format!("Part {}. {}", p.number, p.title),
                anchor,
                snippet: snippet(&p.text, words[0]),
                score,
                number: p.number,
            })
        })
        .collect();
    hits.sort_by(|a, b| b.score.cmp(&a.score).then(a.number.cmp(&b.number)));
    hits
}

/// About 120 characters of `text` around the first match of `word` (ASCII
/// lowercase), which starts the snippet's window 50 characters earlier.
fn snippet(text: &str, word: &str) -> String {
    // ASCII lowercasing keeps every byte offset: a match in the lowered text
    // is at the same place in `text`.
    let at_byte = text.to_ascii_lowercase().find(word).unwrap_or(0);
    let at = text[..at_byte].chars().count();
    let chars: Vec<char> = text.chars().collect();
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
                        Some(a) => format!("{}#{a}", h.slug),
                        None => h.slug,
                    };
                    view! {
                        <li>
                            <a href=href on:click=move |_| query.set(String::new())>
                                <span class="hit-title">{h.title}</span>
                                <span class="hit-snippet">{h.snippet}</span>
                            </a>
                        </li>
                    }
                })
                .collect_view();
            view! { <ol class="search-results" data-search-results="">{items}</ol> }.into_any()
        })
    };
    // "/" focuses the search box; Escape clears it. Only live: the static
    // page is rendered natively, where there is no window.
    #[cfg(target_arch = "wasm32")]
    {
        let handle = window_event_listener(leptos::ev::keydown, move |ev| {
            if ev.key() == "/" && !typing_in_a_field() {
                ev.prevent_default();
                if let Some(i) = input_ref.get_untracked() {
                    let _ = i.focus();
                }
            }
        });
        on_cleanup(move || handle.remove());
    }
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

/// Whether the page is showing the dark theme now: the reader's stored choice
/// (which `theme-*.js` already put on the root element), else the system's.
fn showing_dark() -> bool {
    if cfg!(not(target_arch = "wasm32")) {
        return false;
    }
    if let Some(stored) = stored_theme() {
        return stored;
    }
    window()
        .match_media("(prefers-color-scheme: dark)")
        .ok()
        .flatten()
        .map(|m| m.matches())
        .unwrap_or(false)
}

/// A button that flips the theme and remembers the choice. The stylesheet
/// follows the system's preference until the reader chooses.
#[component]
pub fn ThemeToggle() -> impl IntoView {
    let dark = RwSignal::new(showing_dark());
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
                let name = if next { "dark" } else { "light" };
                if let Some(root) = document().document_element() {
                    let _ = root.set_attribute("data-theme", name);
                }
                if let Ok(Some(s)) = window().local_storage() {
                    let _ = s.set_item(THEME_KEY, name);
                }
            }
        >
            {move || if dark.get() { "☀ light" } else { "☾ dark" }}
        </button>
    }
}

/// Where the "make available offline" download stands.
#[derive(Debug, Clone, PartialEq)]
enum OfflineState {
    /// Not asked for.
    Idle,
    /// Downloading.
    Busy,
    /// Every bundle is cached.
    Done,
    /// Failed, with the reason.
    Failed(String),
}

/// Caches every bundle of the site, for reading offline, when the reader asks.
/// The service worker already keeps every chapter's text and what the reader
/// has visited; this adds the widgets of the pages not yet visited.
#[component]
pub fn OfflineControl(
    /// Compressed size of everything the download adds, shown before it starts.
    bytes: f64,
) -> impl IntoView {
    let state = RwSignal::new(OfflineState::Idle);
    let label = format!(
        "Make every widget available offline ({})",
        ridgeline_core::format::si(bytes, "B", 2)
    );
    let run = move |_| {
        state.set(OfflineState::Busy);
        wasm_bindgen_futures::spawn_local(async move {
            state.set(match cache_everything().await {
                Ok(()) => OfflineState::Done,
                Err(e) => OfflineState::Failed(e),
            });
        });
    };
    view! {
        <div class="offline">
            <button
                type="button"
                class="offline-button"
                disabled=move || state.with(|s| matches!(s, OfflineState::Busy | OfflineState::Done))
                on:click=run
            >
                {label}
            </button>
            <span class="offline-status" role="status" data-offline-status="">
                {move || match state.get() {
                    OfflineState::Idle => String::new(),
                    OfflineState::Busy => "Downloading…".into(),
                    OfflineState::Done => "Done: the whole companion now works offline.".into(),
                    OfflineState::Failed(e) => e,
                }}
            </span>
        </div>
    }
}

/// Asks the service worker to cache every file of the site
/// (`{"type": "cache-all"}`) and waits for its answer.
async fn cache_everything() -> Result<(), String> {
    let unavailable = "Offline reading needs the service worker, which this browser has not started (private mode?).".to_string();
    let container = window().navigator().service_worker();
    let registration =
        wasm_bindgen_futures::JsFuture::from(container.ready().map_err(|_| unavailable.clone())?)
            .await
            .map_err(|_| unavailable.clone())?;
    let registration: web_sys::ServiceWorkerRegistration =
        registration.dyn_into().map_err(|_| unavailable.clone())?;
    let worker = registration.active().ok_or(unavailable.clone())?;
    let channel = web_sys::MessageChannel::new().map_err(|_| unavailable.clone())?;
    let reply = js_sys::Promise::new(&mut |resolve, _reject| {
        let on_message =
            wasm_bindgen::closure::Closure::once_into_js(move |ev: web_sys::MessageEvent| {
                let _ = resolve.call1(&wasm_bindgen::JsValue::NULL, &ev.data());
            });
        channel
            .port1()
            .set_onmessage(Some(on_message.unchecked_ref()));
    });
    let message = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&message, &"type".into(), &"cache-all".into());
    let transfer = js_sys::Array::of1(&channel.port2());
    worker
        .post_message_with_transferable(&message, &transfer)
        .map_err(|_| unavailable.clone())?;
    let answer = wasm_bindgen_futures::JsFuture::from(reply)
        .await
        .map_err(|_| unavailable.clone())?;
    match answer.as_string().as_deref() {
        Some("ok") => Ok(()),
        Some(other) => Err(format!("The download stopped: {other}")),
        None => Err("The download stopped.".into()),
    }
}

/// The href of the page's `<link rel="REL">`, if it has one.
fn link_href(rel: &str) -> Option<String> {
    document()
        .query_selector(&format!("link[rel={rel}]"))
        .ok()
        .flatten()
        .and_then(|l| l.get_attribute("href"))
}

/// Keyboard shortcuts between parts: `n` or → for the next written part,
/// `p` or ← for the previous one (when no field has focus). The targets are
/// the page's own `<link rel="next">` and `<link rel="prev">`.
pub fn install_part_keys() {
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
        if let Some(href) = link_href(if forward { "next" } else { "prev" }) {
            ev.prevent_default();
            // Relative to the page's <base>, as every link of the site is.
            let url = document()
                .base_uri()
                .ok()
                .flatten()
                .and_then(|b| web_sys::Url::new_with_base(&href, &b).ok())
                .map(|u| u.href())
                .unwrap_or(href);
            let _ = window().location().set_href(&url);
        }
    });
    std::mem::forget(handle);
}

/// The site's base path (`/` or the sub-path it is hosted under), from `<base href>`.
pub fn base_path() -> String {
    let base = document()
        .base_uri()
        .ok()
        .flatten()
        .and_then(|b| web_sys::Url::new(&b).ok())
        .map(|u| u.pathname())
        .unwrap_or_else(|| "/".into());
    if base.ends_with('/') {
        base
    } else {
        format!("{base}/")
    }
}

/// Registers the service worker that keeps the site working offline.
pub fn register_service_worker() {
    let nav = window().navigator();
    if js_sys::Reflect::has(&nav, &"serviceWorker".into()).unwrap_or(false) {
        let url = format!("{}sw.js", base_path());
        let _ = nav.service_worker().register(&url);
    }
}

// Native only: the search index is the one the page writer ships.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use crate::content::PARTS;

    /// The index the site ships (`ridgeline_content::search::encode`).
    fn index() -> Index {
        parse_index(crate::content::search_index().expect("the chapters render"))
    }

    #[test]
    fn reads_the_built_index_and_skips_junk() {
        let i = index();
        let written: Vec<_> = PARTS.iter().filter(|p| p.written).collect();
        assert_eq!(i.len(), written.len());
        for (e, p) in i.iter().zip(written) {
            assert!(e.text.starts_with(p.title));
            assert_eq!(
                (e.slug.as_str(), e.number, e.title.as_str()),
                (p.slug, p.number, p.title)
            );
            let sections: Vec<(&str, &str)> = e
                .sections
                .iter()
                .map(|(a, h)| (a.as_str(), h.as_str()))
                .collect();
            assert_eq!(sections, p.sections);
        }
        assert!(parse_index("").is_empty());
        assert!(parse_index("nope\u{1f}text\u{1e}\u{1f}\u{1e}rooflines").is_empty());
        assert!(parse_index("r\u{1f}x\u{1f}t\u{1f}\u{1f}text").is_empty());
        let one = parse_index(
            "rooflines\u{1f}1\u{1f}All About Rooflines\u{1f}a\u{1c}A\u{1d}b\u{1c}B\u{1f}ridge",
        );
        assert_eq!(one.len(), 1);
        assert_eq!(
            one[0].sections,
            vec![("a".into(), "A".into()), ("b".into(), "B".into())]
        );
    }

    #[test]
    fn finds_parts_by_words() {
        let index = index();
        let search = |q: &str| search(q, &index);
        let hits = search("ridge point");
        assert_eq!(hits.first().map(|h| h.slug.as_str()), Some("rooflines"));
        assert_eq!(
            hits.first().map(|h| h.title.as_str()),
            Some("Part 1. All About Rooflines")
        );
        // Case does not matter.
        assert_eq!(search("RIDGE Point").first(), hits.first());
        let hits = search("wraparound");
        assert!(hits.iter().any(|h| h.slug == "tpus"));
        assert!(search("AllGather").iter().any(|h| h.slug == "sharding"));
        // A word in a heading links to that section.
        let tree = search("fat tree");
        let gpus = tree
            .iter()
            .find(|h| h.slug == "gpus")
            .expect("the GPU part");
        assert!(gpus.anchor.is_some(), "{gpus:?}");
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
        // The window is counted in characters, after multi-byte ones too.
        let s = snippet(&format!("{} The Ridge point", "é".repeat(80)), "ridge");
        assert!(s.starts_with('…') && s.contains("The Ridge point"), "{s}");
    }
}
