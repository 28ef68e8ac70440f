//! Interactive widgets, each a thin Leptos component over `ridgeline-core`.
//!
//! [`widget_view`] is the one table from a chapter's `{{widget NAME}}` directive
//! to a component; [`NAMES`] lists the same names, and tests check it against
//! the directive table the chapters are built with.

pub mod collective;
pub mod collective_size;
pub mod common;
pub mod link_roofline;
pub mod overlap;
pub mod roofline;
pub mod sharding;
pub mod spec_table;
pub mod torus;

use leptos::prelude::*;

/// Every widget the app can mount.
pub const NAMES: &[&str] = &[
    "roofline",
    "overlap",
    "spec-table",
    "torus",
    "link-roofline",
    "sharding",
    "collective",
    "collective-size",
];

/// The component for a widget directive, with the chapter's arguments.
pub fn widget_view(name: &str, args: &[(&str, &str)]) -> AnyView {
    let args: Vec<(String, String)> = args
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    match name {
        "roofline" => view! { <roofline::Roofline args=args /> }.into_any(),
        "overlap" => view! { <overlap::Overlap args=args /> }.into_any(),
        "sharding" => view! { <sharding::Sharding args=args /> }.into_any(),
        "collective" => view! { <collective::CollectivePlayer args=args /> }.into_any(),
        "collective-size" => view! { <collective_size::CollectiveSize args=args /> }.into_any(),
        "spec-table" => view! { <spec_table::SpecTable args=args /> }.into_any(),
        "torus" => view! { <torus::Torus args=args /> }.into_any(),
        "link-roofline" => view! { <link_roofline::LinkRoofline args=args /> }.into_any(),
        other => {
            let message = format!("Unknown widget “{other}”.");
            view! { <p class="notice" role="status">{message}</p> }.into_any()
        }
    }
}
