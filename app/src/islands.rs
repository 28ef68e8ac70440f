//! Makes a static page live.
//!
//! Every page of the site is a static HTML document written at build time by
//! `ridgeline-site`, which renders the same components natively (Leptos `ssr`).
//! Each part that must respond to the reader is an *island*: an element with
//! `data-island="NAME"` holding the component's static rendering (a widget's
//! `data-args` carry the chapter's arguments, URL-encoded). When this bundle
//! starts, [`start`] replaces every island's static copy with the live
//! component, mounted in the same element. The markup is the same (charts
//! included: both are inline SVG), so the text around an island does not move.
//!
//! Up to three bundles may serve one page: the page's own (its part's widgets,
//! search, the theme toggle, progress; `cfg(page_islands)`), the exercises
//! bundle (the answer checker) and the library bundle (the own-model and
//! own-chip forms), which the page's loader starts only when the reader nears
//! their islands. Each mounts only the islands it carries and leaves the
//! others static; the page's bundle marks the root `data-islands="live"`, the
//! exercises bundle `data-exercises="live"`, the library bundle
//! `data-library="live"`.
//!
//! Islands are mounted, not hydrated: a widget's live state starts from the
//! page URL (`?roofline.b=600`), which the build never sees, so the live
//! markup may rightly differ from the static one, and hydration requires them
//! to be equal.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

#[cfg(page_islands)]
use crate::shell;
use crate::widgets;

/// The island names of the site's own controls (widgets use their directive name).
pub mod names {
    /// The search box in the header.
    pub const SEARCH: &str = "site-search";
    /// The theme toggle in the header.
    pub const THEME: &str = "site-theme";
    /// The "make available offline" control.
    pub const OFFLINE: &str = "site-offline";
    /// The progress page's body.
    pub const PROGRESS: &str = "site-progress";
}

/// `key=value` pairs from an island's URL-encoded `data-args`
/// (`chip=v5e&b=64`). Malformed escapes keep their raw text.
pub fn decode_args(raw: &str) -> Vec<(String, String)> {
    raw.split('&')
        .filter(|s| !s.is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (percent_decode(k), percent_decode(v))
        })
        .collect()
}

/// The `data-args` text for `args`: the inverse of [`decode_args`].
pub fn encode_args<K: AsRef<str>, V: AsRef<str>>(args: &[(K, V)]) -> String {
    args.iter()
        .map(|(k, v)| {
            format!(
                "{}={}",
                percent_encode(k.as_ref()),
                percent_encode(v.as_ref())
            )
        })
        .collect::<Vec<_>>()
        .join("&")
}

/// `s` percent-encoded: every byte but the URL's unreserved characters
/// (letters, digits, `-_.~`) as `%XX`.
fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// The inverse of [`percent_encode`], reading `+` as a space as forms do.
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |j: usize| bytes.get(j).and_then(|c| (*c as char).to_digit(16));
        match (bytes[i], hex(i + 1), hex(i + 2)) {
            (b'%', Some(h), Some(l)) => {
                // Two hexadecimal digits: at most 255.
                out.push(u8::try_from(h * 16 + l).unwrap_or(u8::MAX));
                i += 3;
            }
            (b'+', _, _) => {
                out.push(b' ');
                i += 1;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Mounts `view` in `host` in place of its static copy, and marks it live.
/// Whatever the reader already typed into the static copy's text fields (an
/// answer typed while the checker was loading) is carried over to the live
/// fields of the same `id`.
fn mount<V: IntoView + 'static>(host: web_sys::HtmlElement, view: impl FnOnce() -> V + 'static) {
    let typed = typed_fields(&host);
    host.set_inner_html("");
    let handle = leptos::mount::mount_to(host.clone(), view);
    // Islands live as long as the page.
    handle.forget();
    let _ = host.set_attribute("data-live", "");
    for (id, value) in typed {
        let field = host
            .query_selector(&format!("input[id=\"{id}\"]"))
            .ok()
            .flatten()
            .and_then(|e| e.dyn_into::<web_sys::HtmlInputElement>().ok());
        if let Some(field) = field {
            field.set_value(&value);
            // The component's `on:input` handler takes the text from here.
            if let Ok(event) = web_sys::Event::new("input") {
                let _ = field.dispatch_event(&event);
            }
        }
    }
}

/// The nodes of a `querySelectorAll` result that are `T` (none if it failed).
fn nodes<T: JsCast>(
    list: Result<web_sys::NodeList, wasm_bindgen::JsValue>,
) -> impl Iterator<Item = T> {
    let list = list.ok();
    let count = list.as_ref().map_or(0, |l| l.length());
    (0..count).filter_map(move |i| list.as_ref()?.item(i)?.dyn_into::<T>().ok())
}

/// The non-empty text fields of `host` that have an `id`, with their values.
fn typed_fields(host: &web_sys::HtmlElement) -> Vec<(String, String)> {
    nodes::<web_sys::HtmlInputElement>(host.query_selector_all("input[type=text][id]"))
        .map(|field| (field.id(), field.value()))
        // An id with a quote could not be selected again; none of ours has one.
        .filter(|(id, value)| !value.is_empty() && !id.contains('"'))
        .collect()
}

/// Replaces every island this bundle carries with its live component, one
/// island per task in page order, so that the first are live (and the page
/// answers the reader) while the later ones are still being mounted: one
/// long task for all of them kept the roofline widget of `/rooflines` dead
/// until the exercises' and the footer's islands were done. The page's own
/// bundle installs the page-wide keyboard shortcuts first, and once the last
/// island is mounted registers the service worker and marks the page live.
/// In a worker (no window) it mounts nothing: the library bundle serves the
/// trace viewer's reader there instead.
pub fn start() {
    // Without a window this instance runs in a worker: the library bundle's
    // trace reader (`widgets::trace_viewer::worker`), with nothing to mount.
    #[cfg(target_arch = "wasm32")]
    if web_sys::window().is_none() {
        #[cfg(widget_module = "trace_viewer")]
        widgets::trace_viewer::serve_worker();
        return;
    }
    // A widget's view is built before it is mounted (`mount_island`), and one
    // whose view starts an effect or a task needs the executor then: Leptos
    // starts it only inside `mount_to`. A page bundle's first island (the
    // search box) used to do that by chance; a lazy bundle's first island is
    // a widget.
    #[cfg(target_arch = "wasm32")]
    let _ = any_spawner::Executor::init_wasm_bindgen();
    // The page's keys work from the start, not only once every island is live.
    #[cfg(page_islands)]
    shell::install_part_keys();
    mount_from(0);
}

/// Mounts, in document order from the `taken`-th, the next island this
/// bundle carries, then yields and goes on in a later task; after the last,
/// [`finish`].
///
/// The bundle starts from an `async` script, so the parser may still be
/// writing the page: an island is taken only once the parser is past it
/// (mounting a half-parsed island would let the parser append the rest of
/// its static copy to the live one), and when none is ready the rest waits
/// for `DOMContentLoaded`. Islands finish in document order, so those taken
/// are always the first `taken` of the page's list.
fn mount_from(taken: usize) {
    let parsing = still_parsing();
    let hosts: Vec<web_sys::HtmlElement> =
        nodes(document().query_selector_all("[data-island]")).collect();
    let mut next = taken;
    while let Some(host) = hosts.get(next) {
        if parsing && !parsed(host) {
            break;
        }
        next += 1;
        if mount_island(host.clone()) {
            next_task(move || mount_from(next));
            return;
        }
    }
    if parsing {
        when_parsed(move || mount_from(next));
    } else {
        finish();
    }
}

/// Whether the parser is still writing the document.
fn still_parsing() -> bool {
    document().ready_state() == "loading"
}

/// Whether the parser is past `host`'s end tag: some node follows it, or
/// follows one of its ancestors.
fn parsed(host: &web_sys::HtmlElement) -> bool {
    let mut node: Option<web_sys::Node> = Some(host.clone().into());
    while let Some(n) = node {
        if n.next_sibling().is_some() {
            return true;
        }
        node = n.parent_node();
    }
    false
}

/// Runs `then` once the document is parsed (`DOMContentLoaded`).
fn when_parsed(then: impl FnOnce() + 'static) {
    let listener = wasm_bindgen::closure::Closure::once_into_js(move |_: web_sys::Event| then());
    let options = web_sys::AddEventListenerOptions::new();
    options.set_once(true);
    // Adding a listener to the document cannot fail; if it did, the rest of
    // the page would stay static, as with a bundle that failed to load.
    let _ = document().add_event_listener_with_callback_and_add_event_listener_options(
        "DOMContentLoaded",
        listener.unchecked_ref(),
        &options,
    );
}

/// Runs `then` in a task of its own, queued behind whatever the browser has
/// waiting (input, a frame). A message posted to ourselves, not a zero
/// timeout: browsers stretch nested zero timeouts to 4 ms each.
fn next_task(then: impl FnOnce() + 'static) {
    use wasm_bindgen::closure::Closure;
    let Ok(channel) = web_sys::MessageChannel::new() else {
        return then();
    };
    let on_message = Closure::once_into_js(move |_: web_sys::MessageEvent| then());
    channel
        .port1()
        .set_onmessage(Some(on_message.unchecked_ref()));
    // A failed post leaves the rest static, as a bundle that failed would; it
    // cannot fail for a port we have just made.
    let _ = channel.port2().post_message(&wasm_bindgen::JsValue::NULL);
}

/// Mounts `host`'s live component if this bundle carries it; says whether it did.
fn mount_island(host: web_sys::HtmlElement) -> bool {
    let name = host.get_attribute("data-island").unwrap_or_default();
    match name.as_str() {
        #[cfg(page_islands)]
        names::SEARCH => mount(host, shell::Search),
        #[cfg(page_islands)]
        names::THEME => mount(host, shell::ThemeToggle),
        #[cfg(page_islands)]
        names::OFFLINE => {
            let bytes = host
                .get_attribute("data-bytes")
                .and_then(|b| b.parse::<f64>().ok())
                .unwrap_or(0.0);
            mount(
                host,
                move || view! { <shell::OfflineControl bytes=bytes /> },
            )
        }
        #[cfg(site_pages)]
        names::PROGRESS => mount(host, crate::pages::progress::ProgressPage),
        widget => {
            let args = decode_args(&host.get_attribute("data-args").unwrap_or_default());
            let pairs: Vec<(&str, &str)> =
                args.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
            // Another bundle's island stays as it is.
            match widgets::widget_view(widget, &pairs) {
                Some(live) => mount(host, move || live),
                None => return false,
            }
        }
    }
    true
}

/// Marks the page live once every island this bundle carries is.
fn finish() {
    let root = document().document_element();
    #[cfg(page_islands)]
    {
        shell::register_service_worker();
        if let Some(root) = &root {
            let _ = root.set_attribute("data-islands", "live");
        }
    }
    // The exercise checker and the reader's library say so in attributes of
    // their own (`data-exercises`, `data-library`).
    if let Some(root) = &root {
        for status in widgets::LIVE_STATUS {
            let _ = root.set_attribute(status, "live");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn args_round_trip_through_the_attribute() {
        let args = vec![
            ("chip".to_string(), "v5e".to_string()),
            ("spec".to_string(), "A[I_X, J]·B[J, K_Y] -> C".to_string()),
            ("empty".to_string(), String::new()),
            ("odd=&%".to_string(), "100%".to_string()),
        ];
        let text = encode_args(&args);
        assert!(!text.contains(' ') && !text.contains('"'), "{text}");
        assert_eq!(decode_args(&text), args);
    }

    #[test]
    fn malformed_attributes_are_read_without_panicking() {
        assert_eq!(decode_args(""), Vec::<(String, String)>::new());
        assert_eq!(
            decode_args("a=%zz&b"),
            vec![("a".into(), "%zz".into()), ("b".into(), String::new())]
        );
        assert_eq!(
            decode_args("x=%E2%82"),
            vec![("x".into(), "\u{fffd}".into())]
        );
    }
}
