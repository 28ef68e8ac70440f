//! A small History-API router: paths relative to the site's `<base href>`,
//! links intercepted so that moving between pages of this bundle never reloads
//! the wasm. A part that ships in another bundle (see `PartPage::here`) is
//! reached by an ordinary navigation: the site's loader script then starts that
//! bundle.

use crate::content::{part, PartPage};
use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// A page of the companion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// The list of parts.
    Home,
    /// One part, written or not.
    Part(&'static PartPage),
    /// The reader's progress on the exercises.
    Progress,
    /// Every constant with its source.
    Numbers,
    /// Anything else.
    NotFound,
}

/// Resolves a path relative to the site's base (`""`, `"rooflines"`, `"rooflines/"`).
pub fn resolve(relative: &str) -> Route {
    let path = relative.trim_matches('/');
    if path.is_empty() || path == "index.html" {
        return Route::Home;
    }
    if path == "progress" {
        return Route::Progress;
    }
    if path == "numbers" {
        return Route::Numbers;
    }
    match part(path) {
        Some(p) => Route::Part(p),
        None => Route::NotFound,
    }
}

/// Whether `relative` is a page that ships in another bundle: a part that is
/// not `here`, or (outside the default bundle) the progress and numbers pages.
pub fn elsewhere(relative: &str) -> bool {
    match resolve(relative) {
        Route::Part(p) => !p.here,
        Route::Progress | Route::Numbers => !cfg!(site_pages),
        Route::Home | Route::NotFound => false,
    }
}

/// The site's base path (from `<base href>`), always ending in `/`.
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

/// The current location's path relative to the base.
pub fn current_relative() -> String {
    let path = window().location().pathname().unwrap_or_default();
    let base = base_path();
    path.strip_prefix(&base)
        .or_else(|| path.strip_prefix(base.trim_end_matches('/')))
        .unwrap_or(&path)
        .to_string()
}

/// The router's state, provided as context.
#[derive(Debug, Clone, Copy)]
pub struct Router {
    /// The current path relative to the base.
    pub path: RwSignal<String>,
}

impl Router {
    /// Starts the router: reads the location and follows back/forward.
    pub fn start() -> Router {
        let path = RwSignal::new(current_relative());
        let handle =
            window_event_listener(leptos::ev::popstate, move |_| path.set(current_relative()));
        // The router lives as long as the page.
        std::mem::forget(handle);
        Router { path }
    }

    /// Navigates to `relative` (a path under the base), adding a history entry.
    pub fn go(&self, relative: &str) {
        let url = format!("{}{}", base_path(), relative.trim_start_matches('/'));
        if elsewhere(relative) {
            let _ = window().location().assign(&url);
            return;
        }
        if let Ok(h) = window().history() {
            let _ = h.push_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
        }
        self.path.set(relative.trim_start_matches('/').to_string());
        window().scroll_to_with_x_and_y(0.0, 0.0);
    }

    /// Handles a click anywhere in the app: same-origin links under the base
    /// navigate in place; everything else behaves normally.
    pub fn intercept(&self, ev: &web_sys::MouseEvent) {
        if ev.default_prevented()
            || ev.button() != 0
            || ev.ctrl_key()
            || ev.meta_key()
            || ev.shift_key()
            || ev.alt_key()
        {
            return;
        }
        let Some(anchor) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .and_then(|e| e.closest("a[href]").ok().flatten())
            .and_then(|a| a.dyn_into::<web_sys::HtmlAnchorElement>().ok())
        else {
            return;
        };
        if !anchor.target().is_empty() || anchor.has_attribute("download") {
            return;
        }
        let origin = window().location().origin().unwrap_or_default();
        if anchor.origin() != origin {
            return;
        }
        let base = base_path();
        let path = anchor.pathname();
        let Some(relative) = path
            .strip_prefix(&base)
            .or_else(|| (path == base.trim_end_matches('/')).then_some(""))
        else {
            return;
        };
        if elsewhere(relative) {
            return; // Another bundle's page: a normal navigation loads it.
        }
        let here = window().location().pathname().unwrap_or_default();
        if path == here && !anchor.hash().is_empty() {
            return; // An anchor on this page: let the browser scroll.
        }
        ev.prevent_default();
        let search = anchor.search();
        let hash = anchor.hash();
        let url = format!("{path}{search}{hash}");
        if let Ok(h) = window().history() {
            let _ = h.push_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
        }
        self.path.set(relative.to_string());
        if hash.is_empty() {
            window().scroll_to_with_x_and_y(0.0, 0.0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_pages() {
        assert_eq!(resolve(""), Route::Home);
        assert_eq!(resolve("/"), Route::Home);
        assert!(matches!(resolve("rooflines"), Route::Part(p) if p.number == 1));
        assert!(matches!(resolve("rooflines/"), Route::Part(_)));
        assert_eq!(resolve("nope"), Route::NotFound);
        assert_eq!(resolve("progress"), Route::Progress);
        assert_eq!(resolve("../../etc/passwd"), Route::NotFound);
    }
}
