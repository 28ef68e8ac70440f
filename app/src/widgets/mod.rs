//! Interactive widgets, each a thin Leptos component over `ridgeline-core`.
//!
//! Each widget is declared once, in the widget table of
//! `ridgeline_content::widgets`; `build.rs` writes it out for `register!`,
//! which derives from it [`NAMES`], [`widget_view`] (from a chapter's
//! `{{widget NAME}}` directive to its component) and each parameter type's
//! name and keys ([`params::Declared`]). A widget's module, its arm of
//! [`widget_view`] and its declaration are compiled only when a chapter of
//! this build uses the widget (`cfg(widget_module = "MODULE")` and
//! `cfg(widget = "NAME")`, set by `build.rs`), so a per-part bundle compiles
//! only its own widgets. A static figure (the table's `Static` kind, listed
//! in [`STATIC`]) is compiled by native builds only: the page writer draws it
//! and no bundle mounts it. A widget never imports from another widget's module:
//! what two widgets share lives in a module of its own, compiled in every build.

// Shared by several widgets: compiled in every build.
pub mod compare;
pub mod controls;
pub mod derate;
// The static figures' drawing helpers: native builds only, where they are drawn.
#[cfg(not(target_arch = "wasm32"))]
pub mod figure;
pub mod gpu_choice;
pub mod params;
pub mod player;
pub mod pointer;
pub mod predict;
pub mod sharded_matmul;

// One module a widget (or two): compiled when a chapter of this build uses
// one of its widgets (`widget_module`, set by `build.rs` from the widget table).
#[cfg(widget_module = "batch_roofline")]
pub mod batch_roofline;
#[cfg(widget_module = "batch_scaling")]
pub mod batch_scaling;
#[cfg(widget_module = "book_links")]
pub mod book_links;
#[cfg(widget_module = "book_profile")]
pub mod book_profile;
#[cfg(widget_module = "cache_steps")]
pub mod cache_steps;
#[cfg(widget_module = "chip_map")]
pub mod chip_map;
#[cfg(widget_module = "collective")]
pub mod collective;
#[cfg(widget_module = "collective_matmul")]
pub mod collective_matmul;
#[cfg(widget_module = "collective_pieces")]
pub mod collective_pieces;
#[cfg(widget_module = "collective_size")]
pub mod collective_size;
#[cfg(widget_module = "cube_mesh")]
pub mod cube_mesh;
#[cfg(widget_module = "esti_pareto")]
pub mod esti_pareto;
#[cfg(widget_module = "exercise")]
pub mod exercise;
#[cfg(widget_module = "flash_attention")]
pub mod flash_attention;
#[cfg(widget_module = "flops_counter")]
pub mod flops_counter;
#[cfg(widget_module = "gpu")]
pub mod gpu;
#[cfg(widget_module = "gpu_anatomy")]
pub mod gpu_anatomy;
#[cfg(widget_module = "gpu_collectives")]
pub mod gpu_collectives;
#[cfg(widget_module = "gpu_parallelism")]
pub mod gpu_parallelism;
#[cfg(widget_module = "inference_roofline")]
pub mod inference_roofline;
#[cfg(widget_module = "jax_code")]
pub mod jax_code;
#[cfg(widget_module = "kv_cache")]
pub mod kv_cache;
#[cfg(widget_module = "kv_sharding")]
pub mod kv_sharding;
#[cfg(widget_module = "layer_diagram")]
pub mod layer_diagram;
#[cfg(widget_module = "link_roofline")]
pub mod link_roofline;
#[cfg(widget_module = "megatron_table")]
pub mod megatron_table;
#[cfg(widget_module = "min_topology")]
pub mod min_topology;
#[cfg(widget_module = "mlp_roofline")]
pub mod mlp_roofline;
#[cfg(widget_module = "moe")]
pub mod moe;
#[cfg(widget_module = "nvlink_node")]
pub mod nvlink_node;
#[cfg(widget_module = "nvswitch_chip")]
pub mod nvswitch_chip;
#[cfg(widget_module = "overlap")]
pub mod overlap;
#[cfg(widget_module = "overlap_profiles")]
pub mod overlap_profiles;
#[cfg(widget_module = "overlap_timeline")]
pub mod overlap_timeline;
#[cfg(widget_module = "own_chip")]
pub mod own_chip;
#[cfg(widget_module = "own_model")]
pub mod own_model;
#[cfg(widget_module = "paged_kv")]
pub mod paged_kv;
#[cfg(widget_module = "parallelism_layout")]
pub mod parallelism_layout;
#[cfg(widget_module = "pipeline")]
pub mod pipeline;
#[cfg(widget_module = "prefix_trie")]
pub mod prefix_trie;
#[cfg(widget_module = "profile")]
pub mod profile;
#[cfg(widget_module = "ragged_moe")]
pub mod ragged_moe;
#[cfg(widget_module = "remat")]
pub mod remat;
#[cfg(widget_module = "roofline")]
pub mod roofline;
#[cfg(widget_module = "rooflines")]
pub mod rooflines;
#[cfg(widget_module = "serving")]
pub mod serving;
#[cfg(widget_module = "serving_engine")]
pub mod serving_engine;
#[cfg(widget_module = "sharding")]
pub mod sharding;
#[cfg(widget_module = "shared_kv")]
pub mod shared_kv;
#[cfg(widget_module = "slowest_stage")]
pub mod slowest_stage;
#[cfg(widget_module = "spec_measured")]
pub mod spec_measured;
#[cfg(widget_module = "spec_round")]
pub mod spec_round;
#[cfg(widget_module = "spec_table")]
pub mod spec_table;
#[cfg(widget_module = "speculative")]
pub mod speculative;
#[cfg(widget_module = "streaming")]
pub mod streaming;
#[cfg(widget_module = "strong_scaling")]
pub mod strong_scaling;
#[cfg(widget_module = "su_cabling")]
pub mod su_cabling;
#[cfg(widget_module = "systolic")]
pub mod systolic;
#[cfg(widget_module = "torus")]
pub mod torus;
#[cfg(widget_module = "trace_viewer")]
pub mod trace_viewer;
#[cfg(widget_module = "training_planner")]
pub mod training_planner;
#[cfg(widget_module = "training_roofline")]
pub mod training_roofline;
#[cfg(widget_module = "transformer")]
pub mod transformer;
#[cfg(widget_module = "weight_stationary")]
pub mod weight_stationary;
#[cfg(widget_module = "ws_layouts")]
pub mod ws_layouts;
#[cfg(widget_module = "xla_op")]
pub mod xla_op;
#[cfg(widget_module = "zero")]
pub mod zero;

use leptos::prelude::*;

/// Registers every widget of the widget table (`ridgeline_content::widgets`),
/// which `build.rs` writes out as one invocation of this macro.
macro_rules! register {
    ($($name:literal => $module:ident :: $component:ident ($($params:ident)?) in $module_name:literal, $bundle:ident, $keys:tt, $doc:literal;)*) => {
        /// Every widget the app can mount.
        pub const NAMES: &[&str] = &[$($name),*];

        /// Whether widget `name` is a figure a reader may cite ("Cite this
        /// figure"): every widget but the problems (the exercise checker's).
        pub fn is_figure(name: &str) -> bool {
            match name {
                $($name => stringify!($bundle) != "Exercises",)*
                _ => false,
            }
        }

        /// The parameter keys widget `name` declares (its directive's
        /// arguments and its URL state), empty for an unknown name.
        pub fn keys_of(name: &str) -> &'static [&'static str] {
            match name {
                $($name => &$keys,)*
                _ => &[],
            }
        }

        $($(
            #[cfg(widget_module = $module_name)]
            impl params::Declared for $module::$params {
                const NAME: &'static str = $name;
                const KEYS: &'static [&'static str] = &$keys;
            }
        )?)*

        /// Widget `name`'s parameters at their defaults, as
        /// [`params::AnyParams`] (`None` for a widget without parameters, or
        /// one this build does not carry). Native builds only: for the tests
        /// that drive every widget's parameters alike.
        #[cfg(not(target_arch = "wasm32"))]
        pub fn params_of(name: &str) -> Option<Box<dyn params::AnyParams>> {
            match name {
                $($(
                    #[cfg(widget_module = $module_name)]
                    $name => Some(Box::new(<$module::$params>::default())),
                )?)*
                _ => None,
            }
        }

        /// Every disagreement between a widget's parameters and the keys the
        /// table lists for it (see [`params::key_mismatches`]).
        #[cfg(test)]
        fn key_mismatches() -> Vec<String> {
            let mut known: Vec<&str> = Vec::new();
            $($(
                #[cfg(widget_module = $module_name)]
                known.extend(<$module::$params as params::Declared>::KEYS);
            )?)*
            known.sort_unstable();
            known.dedup();
            let mut out = Vec::new();
            $($(
                #[cfg(widget_module = $module_name)]
                out.extend(params::key_mismatches::<$module::$params>(&known));
            )?)*
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
