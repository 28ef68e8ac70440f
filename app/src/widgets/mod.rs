//! Interactive widgets, each a thin Leptos component over `ridgeline-core`.
//!
//! [`widget_view`] is the one table from a chapter's `{{widget NAME}}` directive
//! to a component; [`NAMES`] lists the same names, and tests check it against
//! the directive table the chapters are built with.

pub mod book_links;
pub mod collective;
pub mod collective_size;
pub mod common;
pub mod exercise;
pub mod gpu;
pub mod inference_roofline;
pub mod jax_code;
pub mod kv_cache;
pub mod link_roofline;
pub mod min_topology;
pub mod overlap;
pub mod predict;
pub mod profile;
pub mod roofline;
pub mod serving;
pub mod sharding;
pub mod spec_table;
pub mod torus;
pub mod training_planner;
pub mod training_roofline;
pub mod transformer;

use leptos::prelude::*;

/// Every widget the app can mount.
pub const NAMES: &[&str] = &[
    "jax-code",
    "book-links",
    "exercise",
    "exercises",
    "roofline",
    "overlap",
    "spec-table",
    "torus",
    "link-roofline",
    "sharding",
    "collective",
    "collective-size",
    "inference-roofline",
    "kv-cache",
    "serving",
    "min-topology",
    "gpu",
    "transformer",
    "training-roofline",
    "training-planner",
    "profile",
];

/// The component for a widget directive, with the chapter's arguments.
pub fn widget_view(name: &str, args: &[(&str, &str)]) -> AnyView {
    let args: Vec<(String, String)> = args
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    match name {
        "jax-code" => view! { <jax_code::JaxCodeWidget args=args /> }.into_any(),
        "book-links" => view! { <book_links::BookLinks args=args /> }.into_any(),
        "exercise" => view! { <exercise::ExerciseWidget args=args /> }.into_any(),
        "exercises" => view! { <exercise::ExerciseList args=args /> }.into_any(),
        "roofline" => view! { <roofline::Roofline args=args /> }.into_any(),
        "overlap" => view! { <overlap::Overlap args=args /> }.into_any(),
        "sharding" => view! { <sharding::Sharding args=args /> }.into_any(),
        "collective" => view! { <collective::CollectivePlayer args=args /> }.into_any(),
        "collective-size" => view! { <collective_size::CollectiveSize args=args /> }.into_any(),
        "spec-table" => view! { <spec_table::SpecTable args=args /> }.into_any(),
        "torus" => view! { <torus::Torus args=args /> }.into_any(),
        "link-roofline" => view! { <link_roofline::LinkRoofline args=args /> }.into_any(),
        "transformer" => view! { <transformer::Transformer args=args /> }.into_any(),
        "training-roofline" => {
            view! { <training_roofline::TrainingRoofline args=args /> }.into_any()
        }
        "training-planner" => view! { <training_planner::TrainingPlanner args=args /> }.into_any(),
        "inference-roofline" => {
            view! { <inference_roofline::InferenceRoofline args=args /> }.into_any()
        }
        "kv-cache" => view! { <kv_cache::KvCacheCalc args=args /> }.into_any(),
        "serving" => view! { <serving::Serving args=args /> }.into_any(),
        "min-topology" => view! { <min_topology::MinTopology args=args /> }.into_any(),
        "gpu" => view! { <gpu::Gpu args=args /> }.into_any(),
        "profile" => view! { <profile::ProfileViewer args=args /> }.into_any(),
        other => {
            let message = format!("Unknown widget “{other}”.");
            view! { <p class="notice" role="status">{message}</p> }.into_any()
        }
    }
}
