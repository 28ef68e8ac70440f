//! Interactive widgets, each a thin Leptos component over `ridgeline-core`.
//!
//! [`widget_view`] is the one table from a chapter's `{{widget NAME}}` directive
//! to a component; [`NAMES`] lists the same names, and tests check it against
//! the directive table the chapters are built with.

pub mod common;
pub mod overlap;
pub mod roofline;

use leptos::prelude::*;

/// Every widget the app can mount.
pub const NAMES: &[&str] = &["roofline", "overlap"];

/// The component for a widget directive, with the chapter's arguments.
pub fn widget_view(name: &str, args: &[(&str, &str)]) -> AnyView {
    let args: Vec<(String, String)> = args
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    match name {
        "roofline" => view! { <roofline::Roofline args=args /> }.into_any(),
        "overlap" => view! { <overlap::Overlap args=args /> }.into_any(),
        other => {
            let message = format!("Unknown widget “{other}”.");
            view! { <p class="notice" role="status">{message}</p> }.into_any()
        }
    }
}
