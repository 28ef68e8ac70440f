//! Interactive widgets, each a thin Leptos component over `ridgeline-core`.
//!
//! [`widget_view`] is the one table from a chapter's `{{widget NAME}}` directive
//! to a component; [`NAMES`] lists the same names, and tests check it against
//! the directive table the chapters are built with. Each arm is compiled only
//! when a chapter of this build uses the widget (`cfg(widget = "NAME")`, set by
//! `build.rs`), so a per-part bundle carries only its own widgets.

pub mod book_links;
pub mod chip_map;
pub mod collective;
pub mod collective_matmul;
pub mod collective_size;
pub mod common;
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
pub mod pipeline;
pub mod player;
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
    "own-model",
    "own-chip",
    "gpu",
    "gpu-collectives",
    "nvlink-node",
    "gpu-anatomy",
    "gpu-parallelism",
    "transformer",
    "training-roofline",
    "training-planner",
    "profile",
    "serving-engine",
    "speculative",
    "overlap-timeline",
    "xla-op",
    "kv-sharding",
    "parallelism-layout",
    "layer-diagram",
    "flops-counter",
    "pipeline",
    "moe",
    "flash-attention",
    "remat",
    "zero",
    "systolic",
    "chip-map",
    "streaming",
    "strong-scaling",
    "collective-matmul",
    "slowest-stage",
    "rooflines",
    "weight-stationary",
];

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
        #[cfg(widget = "jax-code")]
        "jax-code" => view! { <jax_code::JaxCodeWidget args=args /> }.into_any(),
        #[cfg(widget = "book-links")]
        "book-links" => view! { <book_links::BookLinks args=args /> }.into_any(),
        #[cfg(widget = "exercise")]
        "exercise" => view! { <exercise::ExerciseWidget args=args /> }.into_any(),
        #[cfg(widget = "exercises")]
        "exercises" => view! { <exercise::ExerciseList args=args /> }.into_any(),
        #[cfg(widget = "roofline")]
        "roofline" => view! { <roofline::Roofline args=args /> }.into_any(),
        #[cfg(widget = "overlap")]
        "overlap" => view! { <overlap::Overlap args=args /> }.into_any(),
        #[cfg(widget = "sharding")]
        "sharding" => view! { <sharding::Sharding args=args /> }.into_any(),
        #[cfg(widget = "collective")]
        "collective" => view! { <collective::CollectivePlayer args=args /> }.into_any(),
        #[cfg(widget = "collective-size")]
        "collective-size" => view! { <collective_size::CollectiveSize args=args /> }.into_any(),
        #[cfg(widget = "spec-table")]
        "spec-table" => view! { <spec_table::SpecTable args=args /> }.into_any(),
        #[cfg(widget = "torus")]
        "torus" => view! { <torus::Torus args=args /> }.into_any(),
        #[cfg(widget = "link-roofline")]
        "link-roofline" => view! { <link_roofline::LinkRoofline args=args /> }.into_any(),
        #[cfg(widget = "transformer")]
        "transformer" => view! { <transformer::Transformer args=args /> }.into_any(),
        #[cfg(widget = "training-roofline")]
        "training-roofline" => {
            view! { <training_roofline::TrainingRoofline args=args /> }.into_any()
        }
        #[cfg(widget = "training-planner")]
        "training-planner" => view! { <training_planner::TrainingPlanner args=args /> }.into_any(),
        #[cfg(widget = "inference-roofline")]
        "inference-roofline" => {
            view! { <inference_roofline::InferenceRoofline args=args /> }.into_any()
        }
        #[cfg(widget = "kv-cache")]
        "kv-cache" => view! { <kv_cache::KvCacheCalc args=args /> }.into_any(),
        #[cfg(widget = "serving")]
        "serving" => view! { <serving::Serving args=args /> }.into_any(),
        #[cfg(widget = "min-topology")]
        "min-topology" => view! { <min_topology::MinTopology args=args /> }.into_any(),
        #[cfg(widget = "own-model")]
        "own-model" => view! { <own_model::OwnModel args=args /> }.into_any(),
        #[cfg(widget = "own-chip")]
        "own-chip" => view! { <own_chip::OwnChip args=args /> }.into_any(),
        #[cfg(widget = "gpu")]
        "gpu" => view! { <gpu::Gpu args=args /> }.into_any(),
        #[cfg(widget = "gpu-collectives")]
        "gpu-collectives" => view! { <gpu_collectives::GpuCollectives args=args /> }.into_any(),
        #[cfg(widget = "nvlink-node")]
        "nvlink-node" => view! { <nvlink_node::NvlinkNodeView args=args /> }.into_any(),
        #[cfg(widget = "gpu-anatomy")]
        "gpu-anatomy" => view! { <gpu_anatomy::GpuAnatomy args=args /> }.into_any(),
        #[cfg(widget = "gpu-parallelism")]
        "gpu-parallelism" => view! { <gpu_parallelism::GpuParallelism args=args /> }.into_any(),
        #[cfg(widget = "profile")]
        "profile" => view! { <profile::ProfileViewer args=args /> }.into_any(),
        #[cfg(widget = "serving-engine")]
        "serving-engine" => view! { <serving_engine::ServingEngine args=args /> }.into_any(),
        #[cfg(widget = "weight-stationary")]
        "weight-stationary" => {
            view! { <weight_stationary::WeightStationaryWidget args=args /> }.into_any()
        }
        #[cfg(widget = "speculative")]
        "speculative" => view! { <speculative::SpeculativeWidget args=args /> }.into_any(),
        #[cfg(widget = "overlap-timeline")]
        "overlap-timeline" => view! { <overlap_timeline::OverlapTimeline args=args /> }.into_any(),
        #[cfg(widget = "xla-op")]
        "xla-op" => view! { <xla_op::XlaOp args=args /> }.into_any(),
        #[cfg(widget = "kv-sharding")]
        "kv-sharding" => view! { <kv_sharding::KvSharding args=args /> }.into_any(),
        #[cfg(widget = "parallelism-layout")]
        "parallelism-layout" => {
            view! { <parallelism_layout::ParallelismLayout args=args /> }.into_any()
        }
        #[cfg(widget = "layer-diagram")]
        "layer-diagram" => view! { <layer_diagram::LayerDiagram args=args /> }.into_any(),
        #[cfg(widget = "flops-counter")]
        "flops-counter" => view! { <flops_counter::FlopsCounter args=args /> }.into_any(),
        #[cfg(widget = "pipeline")]
        "pipeline" => view! { <pipeline::Pipeline args=args /> }.into_any(),
        #[cfg(widget = "moe")]
        "moe" => view! { <moe::Moe args=args /> }.into_any(),
        #[cfg(widget = "remat")]
        "remat" => view! { <remat::Remat args=args /> }.into_any(),
        #[cfg(widget = "zero")]
        "zero" => view! { <zero::Zero args=args /> }.into_any(),
        #[cfg(widget = "flash-attention")]
        "flash-attention" => view! { <flash_attention::FlashAttention args=args /> }.into_any(),
        #[cfg(widget = "systolic")]
        "systolic" => view! { <systolic::Systolic args=args /> }.into_any(),
        #[cfg(widget = "chip-map")]
        "chip-map" => view! { <chip_map::ChipMapWidget args=args /> }.into_any(),
        #[cfg(widget = "streaming")]
        "streaming" => view! { <streaming::Streaming args=args /> }.into_any(),
        #[cfg(widget = "strong-scaling")]
        "strong-scaling" => view! { <strong_scaling::StrongScaling args=args /> }.into_any(),
        #[cfg(widget = "collective-matmul")]
        "collective-matmul" => {
            view! { <collective_matmul::CollectiveMatmulWidget args=args /> }.into_any()
        }
        #[cfg(widget = "slowest-stage")]
        "slowest-stage" => view! { <slowest_stage::SlowestStageWidget args=args /> }.into_any(),
        #[cfg(widget = "rooflines")]
        "rooflines" => view! { <rooflines::Rooflines args=args /> }.into_any(),
        _ => {
            // Every arm may be compiled out (a bundle without widgets).
            drop(args);
            return None;
        }
    })
}
