//! Interactive widgets, each a thin Leptos component over `ridgeline-core`.
//!
//! Each widget is declared once, in the widget table of
//! `ridgeline_content::widgets`; `build.rs` writes it out for `register!`,
//! which derives from it [`NAMES`], [`widget_view`] (from a chapter's
//! `{{widget NAME}}` directive to its component) and each parameter type's
//! name and keys ([`params::Declared`]). Each arm of [`widget_view`] is
//! compiled only when a chapter of this build uses the widget
//! (`cfg(widget = "NAME")`, set by `build.rs`), so a per-part bundle carries
//! only its own widgets.

pub mod book_links;
pub mod chip_map;
pub mod collective;
pub mod collective_matmul;
pub mod collective_size;
pub mod compare;
pub mod controls;
pub mod exercise;
pub mod flash_attention;
pub mod flops_counter;
pub mod gpu;
pub mod gpu_anatomy;
pub mod gpu_collectives;
pub mod gpu_parallelism;
pub mod inference_roofline;
pub mod jax_code;
pub mod kv_cache;
pub mod kv_sharding;
pub mod layer_diagram;
pub mod link_roofline;
pub mod min_topology;
pub mod moe;
pub mod nvlink_node;
pub mod overlap;
pub mod overlap_timeline;
// The reader's own chip and model: only in the library bundle (Cargo feature
// `library`), which carries the JSON and config.json readers they need.
#[cfg(feature = "library")]
pub mod own_chip;
#[cfg(feature = "library")]
pub mod own_model;
pub mod parallelism_layout;
pub mod params;
pub mod pipeline;
pub mod player;
pub mod pointer;
pub mod predict;
pub mod profile;
pub mod remat;
pub mod roofline;
pub mod rooflines;
pub mod serving;
pub mod serving_engine;
pub mod sharding;
pub mod slowest_stage;
pub mod spec_table;
pub mod speculative;
pub mod streaming;
pub mod strong_scaling;
pub mod systolic;
pub mod torus;
pub mod training_planner;
pub mod training_roofline;
pub mod transformer;
pub mod weight_stationary;
pub mod xla_op;
pub mod zero;

use leptos::prelude::*;

/// Emits the items that follow only in builds that carry `$bundle`'s widget
/// modules (the library's need the Cargo feature `library`).
macro_rules! in_bundle {
    (Library, $($item:tt)*) => { #[cfg(feature = "library")] $($item)* };
    ($bundle:ident, $($item:tt)*) => { $($item)* };
}

/// Registers every widget of the widget table (`ridgeline_content::widgets`),
/// which `build.rs` writes out as one invocation of this macro.
macro_rules! register {
    ($($name:literal => $module:ident :: $component:ident ($($params:ident)?), $bundle:ident, $keys:tt, $doc:literal;)*) => {
        /// Every widget the app can mount.
        pub const NAMES: &[&str] = &[$($name),*];

        $($(in_bundle! {
            $bundle,
            impl params::Declared for $module::$params {
                const NAME: &'static str = $name;
                const KEYS: &'static [&'static str] = &$keys;
            }
        })?)*

        /// Every disagreement between a widget's parameters and the keys the
        /// table lists for it (see [`params::key_mismatches`]).
        #[cfg(test)]
        fn key_mismatches() -> Vec<String> {
            let mut known: Vec<&str> = Vec::new();
            $($(in_bundle! {
                $bundle,
                {
                    known.extend(<$module::$params as params::Declared>::KEYS);
                }
            })?)*
            known.sort_unstable();
            known.dedup();
            let mut out = Vec::new();
            $($(in_bundle! {
                $bundle,
                {
                    out.extend(params::key_mismatches::<$module::$params>(&known));
                }
            })?)*
            out
        }

        /// The component for a widget directive, with the chapter's arguments, or
        /// `None` if this build does not carry that widget (another bundle's widget, or
        /// no widget of that name).
        // A build without parts (`--no-default-features`) compiles every arm out but
        // the last, which returns: the `Some` around the match is then unreachable.
        #[allow(unreachable_code)]
        pub fn widget_view(name: &str, args: &[(&str, &str)]) -> Option<AnyView> {
            let args: Vec<(String, String)> = args
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            Some(match name {
                $(
                    #[cfg(widget = $name)]
                    $name => view! { <$module::$component args=args /> }.into_any(),
                )*
                _ => {
                    // Every arm may be compiled out (a bundle without widgets).
                    drop(args);
                    return None;
                }
            })
        }
    };
}

include!(concat!(env!("OUT_DIR"), "/widget_table.rs"));

#[cfg(test)]
mod tests {
    /// A chapter's directive may only name keys the table lists (the build
    /// checks that); here every widget's parameters accept exactly those.
    #[test]
    fn every_widget_accepts_the_keys_the_table_lists_and_no_others() {
        let mismatches = super::key_mismatches();
        assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
    }
}
