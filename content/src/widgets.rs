//! The widgets a chapter may place with `{{widget NAME key=value ...}}`.
//!
//! The `widget_specs!` table below is the one place a widget is
//! declared: its directive name, its module and component in `ridgeline-app`
//! (with the type of its parameters, if it has any), the bundle that carries
//! it (or `Static`, a figure drawn at build time that no bundle carries), the keys a chapter or the page URL may set, and what it shows.
//! Everything else is derived from it: [`WIDGETS`] here (which the build
//! checks every chapter's directives against), and in the app (whose build
//! script writes the table back from [`WIDGETS`]) the
//! registration (`widgets::NAMES`, `widgets::widget_view`), each parameter
//! type's name and keys, the bundles' `cfg(widget = "NAME")` lists and the
//! lazy bundles' islands. The app's tests check that each widget accepts
//! exactly the keys listed here.

/// The bundle that carries a widget's live code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bundle {
    /// The bundle of the widget's part, loaded with the page.
    Page,
    /// The exercise checker, loaded when the reader reaches the problems.
    Exercises,
    /// The islands started late, when the reader reaches them, never with a
    /// page's first load: the reader's library (config.json and chip
    /// imports), the reader's own trace file, and the GPU page's pipeline
    /// planner (`gpu-parallelism`, the heaviest widget of the heaviest page,
    /// far down it).
    Library,
    /// No bundle: a static figure, drawn once by the app's component when the
    /// site's native build writes the page, and never mounted (no island, no
    /// code shipped to the browser; its root still carries
    /// `data-widget="NAME"`). Its keys are the chapter's arguments only: with
    /// no live copy, no URL state reaches it.
    Static,
}

impl Bundle {
    /// The bundles a page starts only when the reader nears one of their islands.
    pub const LAZY: [Bundle; 2] = [Bundle::Exercises, Bundle::Library];

    /// The name of the page's `<meta>` that points at a lazy bundle's
    /// script, or `None` for the page's own bundle and a static figure.
    pub fn meta(self) -> Option<&'static str> {
        match self {
            Bundle::Page | Bundle::Static => None,
            Bundle::Exercises => Some("ridgeline-exercises"),
            Bundle::Library => Some("ridgeline-library"),
        }
    }

    /// The root element's attribute that says how a lazy bundle's loading
    /// went (`loading`, `live` or `failed`), or `None` for the page's own
    /// bundle (which says it in `data-islands`) and for a static figure.
    pub fn status(self) -> Option<&'static str> {
        match self {
            Bundle::Page | Bundle::Static => None,
            Bundle::Exercises => Some("data-exercises"),
            Bundle::Library => Some("data-library"),
        }
    }

    /// The widgets this bundle carries, in the table's order.
    pub fn widgets(self) -> impl Iterator<Item = &'static WidgetSpec> {
        WIDGETS.iter().filter(move |w| w.bundle == self)
    }
}

/// One widget a chapter may place.
#[derive(Debug, Clone, Copy)]
pub struct WidgetSpec {
    /// The directive name, also the widget root's `data-widget` attribute.
    pub name: &'static str,
    /// The widget's module in `ridgeline-app`'s `widgets`.
    pub module: &'static str,
    /// The widget's component in that module.
    pub component: &'static str,
    /// The type of the widget's parameters in that module (its
    /// `WidgetParams`), if it keeps URL state.
    pub params: Option<&'static str>,
    /// The bundle that carries the widget.
    pub bundle: Bundle,
    /// Arguments a chapter may pass (each becomes the widget's initial state),
    /// which are also the keys of its URL state (`?NAME.KEY=value`).
    pub args: &'static [&'static str],
    /// What the widget shows.
    pub doc: &'static str,
}

/// Builds [`WIDGETS`] from the table's entries (see below).
macro_rules! widget_specs {
    (@params) => { None };
    (@params $params:ident) => { Some(stringify!($params)) };
    ($($name:literal => $module:ident :: $component:ident ($($params:ident)?), $bundle:ident, $keys:tt, $doc:literal;)*) => {
        /// Every widget directive.
        pub const WIDGETS: &[WidgetSpec] = &[$(
            WidgetSpec {
                name: $name,
                module: stringify!($module),
                component: stringify!($component),
                params: widget_specs!(@params $($params)?),
                bundle: Bundle::$bundle,
                args: &$keys,
                doc: $doc,
            },
        )*];
    };
}

// Every widget, declared once, one entry per widget in this form (which
// `ridgeline-app`'s build script writes back from `WIDGETS` for the app's
// own registration):
//
// ```text
// "name" => module::Component(ParamsType), Bundle, ["key", ...], "what it shows";
// ```
//
// `module::Component` is the widget's module and component in
// `ridgeline-app`'s `widgets`, and `ParamsType` (empty for a widget that
// keeps no URL state) its `WidgetParams` type in that module.
widget_specs! {
    "jax-code" => jax_code::JaxCodeWidget(JaxCodeParams), Page, ["spec", "mesh", "dims", "chip", "mode", "vs"],
        "a sharded matmul as JAX code in the automatic, explicit and manual modes";
    "book-links" => book_links::BookLinks(), Page, [],
        "every part with links to the book's chapter and to our page";
    "exercise" => exercise::ExerciseWidget(), Exercises, ["id"],
        "one of the book's problems, self-graded";
    "exercises" => exercise::ExerciseList(), Exercises, ["chapter"],
        "every problem of one part of the book, self-graded";
    "roofline" => roofline::Roofline(RooflineParams), Page, ["chip", "dtype", "weight", "op", "b", "d", "f", "vs", "act", "flops_derate", "hbm_derate", "controls"],
        "log-log roofline of one chip (and optionally a second, `vs`) with an operation whose batch the reader drags, and an achievable roof (`flops_derate`, `hbm_derate`: shares of the quoted peaks) every number below the chart uses; `controls=batch` keeps only the chart, the batch slider and the verdict (the home page's figure)";
    "batch-roofline" => batch_roofline::BatchRoofline(BatchRooflineParams), Page, ["chip", "act", "weight", "d", "f", "d2", "f2", "b", "bmax"],
        "attainable FLOPs/s against the batch on linear axes for two matmul shapes on one chip, each meeting with the peak marked with its batch, and both verdicts at the chosen batch";
    "serving-engine" => serving_engine::ServingEngine(EngineParams), Library, ["layout", "batching", "rate", "requests", "output", "cache", "seed"],
        "a seeded serving simulation: each replica's prefills and decode steps over time, time to first token, gaps between tokens and throughput";
    "batch-scaling" => batch_scaling::BatchScaling(BatchScalingParams), Page, ["chip", "b"],
        "Appendix A's layer of two 8192 × 32768 matmuls on four chips: time per layer and tokens per second against the batch, flat then linear past the critical batch";
    "cache-steps" => cache_steps::CacheSteps(CacheStepsParams), Page, ["prompt", "tokens"],
        "generation pass by pass without and with a KV cache: the token positions each forward pass runs, and core's totals (quadratic against linear)";
    "speculative" => speculative::SpeculativeWidget(SpecParams), Page, ["draft", "accept", "cost"],
        "speculative sampling: tokens per target step and speedup against the draft length, with a seeded check";
    "weight-stationary" => weight_stationary::WeightStationaryWidget(WeightStationaryWidgetParams), Page, ["model", "chip", "b", "n", "vs"],
        "1D against 2D weight-stationary sharding: communication per layer against chips, with the crossover";
    "overlap-timeline" => overlap_timeline::OverlapTimeline(TimelineParams), Page, ["chip", "x", "y", "b", "d", "f", "dtype", "vs"],
        "the collective matmul as two timelines, a blocking AllGather against a ppermute loop, with the book's measured times";
    "xla-op" => xla_op::XlaOp(XlaOpParams), Page, ["op", "chip", "compute", "vs"],
        "one HLO op line taken apart: layout, tiles and padding, operands, bytes, FLOPs and roofline time";
    "kv-sharding" => kv_sharding::KvSharding(KvParams), Page, ["chip", "batch", "seq", "y", "z", "step", "vs"],
        "the KV cache sharded over heads and batch: the twelve steps of attention with both AllToAlls, per-chip shapes and times";
    "overlap" => overlap::Overlap(OverlapParams), Page, ["chip", "b", "d", "f", "vs"],
        "compute vs communication time of a matmul split over two chips, with and without overlap";
    "spec-table" => spec_table::SpecTable(), Static, ["family"],
        "every chip in the registry as a table, each number citing its source";
    "ws-layouts" => ws_layouts::WsLayouts(), Static, ["chip", "b", "n"],
        "a static figure: the 1D (Megatron) and 2D weight-stationary layouts of an MLP layer step by step, which mesh axes split each array, the collectives between the matmuls, and core's best split and time per layer for each";
    "spec-round" => spec_round::SpecRound(), Static, [],
        "a static figure: two rounds of greedy speculative sampling token by token, the drafted tokens against the large model's top choices, the agreeing prefix kept, the first miss replaced and the bonus token, checked by core";
    "paged-kv" => paged_kv::PagedKv(), Static, [],
        "a static figure: three requests' KV caches padded to the context and stored in pages from one pool, with block tables and the slots and bytes each layout holds, from core";
    "prefix-trie" => prefix_trie::PrefixTrieFigure(), Static, [],
        "a static figure: four prompts of system, history and turn segments inserted into core's prefix-cache trie, the trie drawn, and the tokens each found cached";
    "esti-pareto" => esti_pareto::EstiPareto(), Static, [],
        "a static figure: ESTI's latency–cost frontiers for PaLM 8B, 62B and 540B in bf16 and int8 on TPU v4, read off the paper's figure, with the memory-capped point and core's arithmetic on them (cost = chips × step ÷ batch, the flat ends past the critical batch, int8's better frontier and equal floor)";
    "spec-measured" => spec_measured::SpecMeasured(), Static, [],
        "a static figure: Chinchilla 70B with a 4B drafter on XSum and HumanEval, time for 128 tokens, acceptance and loop time against K as read off Chen et al.'s figure, beside core's speculative model fitted with one acceptance probability per task";
    "shared-kv" => shared_kv::SharedKv(), Static, [],
        "a static figure: twelve layers each with a full KV cache against Character.ai's layout (one global layer in six, local layers in a window, neighbours sharing a cache, the global layers sharing one), with core's cache rows and bytes for each";
    "ragged-moe" => ragged_moe::RaggedMoe(), Static, [],
        "a static figure: an expert-parallel MoE layer's ragged plan on four devices, tokens sorted by expert, the counts exchanged and the offsets they give, what each device receives and its ragged_dot groups, from core";
    "overlap-profiles" => overlap_profiles::OverlapProfiles(), Static, [],
        "a static figure: the book's two profiles of the collective-matmul example as a trace viewer lays them out, a blocking AllGather then the matmul against chunk matmuls with permutes in flight, at the book's measured times";
    "cube-mesh" => cube_mesh::CubeMeshFigure(), Static, [],
        "a static figure: the P100 and V100 DGX-1 nodes, eight GPUs wired directly in a hybrid cube-mesh, every link drawn, with core's per-pair and per-GPU bandwidths against an H100 node";
    "su-cabling" => su_cabling::SuCabling(), Static, [],
        "a static figure: one H100 Scalable Unit's cabling, each GPU's NIC to the leaf of its rank (the rails) and every leaf to every spine, with core's counts of ports, cables and switches";
    "nvswitch-chip" => nvswitch_chip::NvswitchChip(), Static, [],
        "a static figure: one NVLink 4 switch, its ports of two lanes around a crossbar, with core's port, lane and bandwidth figures";
    "megatron-table" => megatron_table::MegatronTable(), Static, [],
        "a static figure: the Megatron-LM table of high-MFU configurations as printed, with core's tokens per GPU, data-parallel threshold and verdict for each row";
    "profiler-tools" => book_profile::ProfilerTools(), Static, [],
        "a static figure: the profiler's tool menu in its order, and what the trace viewer, graph viewer, memory profile and memory viewer show (Part 9's xprof-overview.png)";
    "book-trace" => book_profile::BookTraceFigure(), Static, ["trace"],
        "a static figure: one of Part 9's trace-viewer screenshots redrawn from core's profiling::book (trace=viewer, layer, attention or q1): TPU:0's XLA Ops row with the HLO op names, the scope rows below it, the book's annotations and bracketed layer, and the clicked op's details pane";
    "book-graph" => book_profile::BookGraphFigure(), Static, ["graph"],
        "a static figure: one of Part 9's graph-viewer screenshots redrawn from core's profiling::book (graph=fusion.143 or fusion.1): a fusion's parameters, ops and one matmul inside one box, and the ReduceScatter XLA compiles an AllReduce and a dynamic slice into";
    "torus" => torus::Torus(TorusParams), Page, ["chip", "shape", "at", "vs"],
        "a TPU slice: chips, hosts, wraparound links and hop distances";
    "link-roofline" => link_roofline::LinkRoofline(LinkParams), Page, ["chip", "b", "d", "f", "vs"],
        "a matmul's weights over HBM, ICI, PCIe or DCN against its compute time";
    "sharding" => sharding::Sharding(ShardingParams), Page, ["spec", "mesh", "dims", "chip", "vs"],
        "a sharded matmul in the book's notation: device blocks, case, plan and cost";
    "collective" => collective::CollectivePlayer(CollectiveParams), Page, ["op", "n", "wrap", "chip", "vs"],
        "a collective played step by step from the emulator's trace";
    "collective-pieces" => collective_pieces::CollectivePieces(PiecesParams), Page, ["n", "reduce"],
        "the four collectives side by side on a ring of a few devices: which labelled piece, or which reduction of whose pieces, each device holds before and after";
    "collective-size" => collective_size::CollectiveSize(SizeParams), Page, ["chip", "n", "wrap", "v", "vs"],
        "collective time against array size: latency- and bandwidth-bound regimes";
    "transformer" => transformer::Transformer(TransformerParams), Page, ["model", "d", "f", "l", "n", "k", "h", "v", "seq", "dtype", "vs"],
        "a Transformer's parameters by component, MLP/attention FLOP split against context, KV cache; a second model (`vs`) side by side";
    "training-roofline" => training_roofline::TrainingRoofline(TrainingRooflineParams), Page, ["model", "chip", "mesh", "scheme", "b", "vs", "batch"],
        "per-layer compute vs communication time against batch for DP, FSDP, TP, FSDP+TP; memory per chip";
    "mlp-roofline" => mlp_roofline::MlpRoofline(MlpRooflineParams), Page, ["chip", "d", "f", "mesh", "tp", "view", "b"],
        "the book's MLP roofline: every FSDP × tensor split of a mesh, time per layer against batch or compute/comms ratio against tokens per chip";
    "training-planner" => training_planner::TrainingPlanner(PlannerParams), Page, ["model", "chip", "slice", "pods", "scheme", "tp", "batch", "tokens", "mfu", "vs"],
        "a LLaMA 3 training run: step time, MFU ceiling, memory per chip, days and chip-hours; a second model (`vs`) planned alongside";
    "inference-roofline" => inference_roofline::InferenceRoofline(InferenceParams), Page, ["model", "chip", "weight", "compute", "phase", "b", "seq", "vs", "dtype"],
        "prefill or decode on one roofline: a layer's weight matmuls and its attention as two points; a second chip (`vs`) on the same axes";
    "kv-cache" => kv_cache::KvCacheCalc(KvParams), Page, ["model", "variant", "dtype", "seq", "batch", "vs", "attention"],
        "KV-cache bytes per token, per sequence and per batch, against multi-head attention";
    "serving" => serving::Serving(ServingParams), Page, ["model", "chip", "chips", "tp", "dtype", "seq", "batch", "weight", "vs"],
        "latency–throughput Pareto curve and latency breakdown of a model served on a slice";
    "min-topology" => min_topology::MinTopology(TopologyParams), Page, ["model", "chip", "seq", "vs"],
        "the smallest slice holding a model's weights in bf16, int8 and int4, and the KV caches that fit";
    "own-model" => own_model::OwnModel(OwnModelParams), Library, ["model", "config"],
        "import a Hugging Face config.json: each field mapped to the book's symbols, the fields ignored, and total/active parameters, FLOPs and KV bytes per token from core";
    "own-chip" => own_chip::OwnChip(OwnChipParams), Library, ["chip", "bf16", "int8", "hbm", "hbm_bw", "link", "net"],
        "define your own chip from a registry one (peaks, HBM, link bandwidths with units), see its ridge points and save it for every chip picker";
    "trace-viewer" => trace_viewer::TraceViewer(), Library, [],
        "a reader's own profile (JAX's perfetto_trace.json.gz or PyTorch's Chrome trace), read in the browser: device lanes with the XLA ops first, steps, and an op table by self time; a real JAX trace until the reader opens one";
    "gpu" => gpu::Gpu(GpuParams), Page, ["gpu", "gpus", "op", "bytes", "chip", "vs", "n", "v", "link_derate"],
        "GPU cluster layout, collective cost inside and across NVLink domains at a share of the quoted link bandwidth (`link_derate`), GPU and TPU rooflines";
    "gpu-collectives" => gpu_collectives::GpuCollectives(GpuCollectivesParams), Page, ["gpu", "op", "gpus", "bytes", "sharp", "k", "scope", "vs", "link_derate"],
        "GPU collectives against array size inside and across nodes, SHARP on or off, beside the book's NCCL and TPU measurements, with the model at a share of the quoted link bandwidth (`link_derate`) drawn dashed and timing every number";
    "nvlink-node" => nvlink_node::NvlinkNodeView(NvlinkNodeParams), Page, ["gpu", "vs"],
        "an NVLink node's GPUs, NVSwitches and links, with per-GPU, node, bisection and scale-out bandwidths";
    "gpu-anatomy" => gpu_anatomy::GpuAnatomy(AnatomyChoice), Page, ["gpu", "tpu", "part", "taken", "mod", "then", "else"],
        "a GPU generation's SMs, subpartitions, SMEM, L2 and HBM, each part's count, capacity and rate beside its TPU counterpart, the peak rebuilt from the parts, and a warp stepping through a divergent branch";
    "gpu-parallelism" => gpu_parallelism::GpuParallelism(ParallelismChoice), Library, ["gpu", "model", "batch", "stages", "microbatches", "dp", "link", "tp", "vs", "flops_derate", "link_derate"],
        "a GPipe schedule on a registry GPU and model: the bubble, activation transfers between stages and each stage's exposed gradient AllReduce, timed at the shares of quoted FLOPs/s and link bandwidth the reader assumes (`flops_derate`, `link_derate`), with the MFU";
    "profile" => profile::ProfileViewer(ProfileParams), Page, ["model", "chip", "slice", "scheme", "tp", "batch", "overlap", "layers", "mesh", "b"],
        "a synthetic trace of one training step: TensorCore and ICI lanes, overlap, budget, top ops, find the bottleneck";
    "parallelism-layout" => parallelism_layout::ParallelismLayout(ParallelismParams), Page, ["scheme", "model", "chip", "chips", "tp", "b", "vs"],
        "how DP, FSDP, tensor parallelism and their mix cut an MLP block's arrays, and each collective of both passes with bytes and time";
    "layer-diagram" => layer_diagram::LayerDiagram(LayerDiagramParams), Page, ["model", "batch", "seq", "dtype", "causal", "op", "vs"],
        "one Transformer layer operation by operation: shapes, parameters, FLOPs and bytes of each block";
    "flops-counter" => flops_counter::FlopsCounter(FlopsParams), Page, ["expr", "sizes"],
        "the FLOPs of a contraction the reader writes, forward and both gradients, with a caret under bad input";
    "pipeline" => pipeline::Pipeline(PipelineChoice), Page, ["schedule", "stages", "microbatches", "chunks"],
        "a pipeline schedule (GPipe, 1F1B, interleaved, bidirectional, zero-bubble, DualPipe) as a timeline with its bubble and activations in flight";
    "moe" => moe::Moe(MoeChoice), Page, ["model", "chip", "e", "k", "ff", "tokens", "weight", "ep", "vs"],
        "a Mixture-of-Experts layer: parameters stored and used, the compute-bound batch, weights per chip and the routing AllToAlls";
    "flash-attention" => flash_attention::FlashAttention(FlashChoice), Page, ["queries", "keys", "h", "block", "seed"],
        "the online softmax stepped block by block with real numbers, ending equal to ordinary attention";
    "remat" => remat::Remat(RematChoice), Page, ["model", "chip", "batch", "seq", "chips", "policy", "vs"],
        "gradient checkpointing policies as activation memory per chip against the extra FLOPs they recompute";
    "zero" => zero::Zero(ZeroChoice), Page, ["model", "chip", "chips", "optimizer", "stage", "vs"],
        "ZeRO stages 0-3: parameters, gradients and optimizer state per chip, and the bytes each stage moves per step";
    "systolic" => systolic::Systolic(SystolicWidgetParams), Page, ["k", "n", "m", "blocks", "pipelined"],
        "the MXU's weight-stationary systolic array stepped cycle by cycle, with its cycles and utilisation";
    "chip-map" => chip_map::ChipMapWidget(ChipMapParams), Page, ["chip", "part", "bytes", "vs"],
        "a TPU chip's parts with their counts, capacities, rates and bandwidths, and the time to move an array over each path";
    "streaming" => streaming::Streaming(StreamingParams), Page, ["chip", "op", "elements", "b", "d", "f", "chunk", "hbm", "compute", "resident", "vs"],
        "an elementwise product or a matmul streamed chunk by chunk through HBM, VMEM, registers and the VPU or MXU, with the stage that sets the pace";
    "strong-scaling" => strong_scaling::StrongScaling(ScalingParams), Page, ["chip", "params", "tokens", "chips", "vs"],
        "a fixed data-parallel training step over 1 to 65,536 chips (a full copy per chip, ICI inside the largest ICI domain, DCN beyond, the AllReduce hidden behind the backward pass): compute, gradient AllReduce, step time and the efficiency at the chosen count";
    "collective-matmul" => collective_matmul::CollectiveMatmulWidget(CollectiveMatmulWidgetParams), Page, ["chip", "case", "n", "i", "j", "k", "bidi", "vs"],
        "a collective matmul as a ring of ppermutes overlapped with blocks of the matmul (case=allgather: A[I_X, J] gathered; case=reducescatter: A[I, J_X]·B[J_X, K] with partial sums of C reduce-scattered), stepped: who holds, multiplies and sends what, with each step's times and the total against the blocking collective";
    "slowest-stage" => slowest_stage::SlowestStageWidget(SlowestStageParams), Page, ["chip", "slice", "side", "dtype", "batch", "pieces", "vs"],
        "the book's challenge problem: a matrix loaded over PCIe, gathered over ICI onto one chip, read from HBM and multiplied, with each stage's time, the slowest stage and the overlapped total";
    "rooflines" => rooflines::Rooflines(RooflinesParams), Page, ["chip", "faster", "i", "bm", "bk", "bn", "vs"],
        "two algorithms (one a tiled matmul with tiles bm, bk, bn) on two memory bandwidths under one peak, with the verdict of each pairing";
}

/// Looks a widget up by name.
pub fn widget(name: &str) -> Option<&'static WidgetSpec> {
    WIDGETS.iter().find(|w| w.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique() {
        for (i, a) in WIDGETS.iter().enumerate() {
            assert!(WIDGETS[i + 1..].iter().all(|b| b.name != a.name));
        }
        assert!(widget("roofline").is_some());
        assert!(widget("nope").is_none());
    }

    #[test]
    fn keys_are_unique_and_lazy_bundles_are_named() {
        let roofline = widget("roofline").map(|w| (w.module, w.component, w.params));
        assert_eq!(
            roofline,
            Some(("roofline", "Roofline", Some("RooflineParams")))
        );
        assert_eq!(widget("book-links").and_then(|w| w.params), None);
        for w in WIDGETS {
            for (i, k) in w.args.iter().enumerate() {
                assert!(!w.args[i + 1..].contains(k), "{}: {k} twice", w.name);
            }
        }
        let lazy = |b: Bundle| -> Vec<&str> { b.widgets().map(|w| w.name).collect() };
        assert_eq!(lazy(Bundle::Exercises), ["exercise", "exercises"]);
        assert_eq!(
            lazy(Bundle::Library),
            [
                "serving-engine",
                "own-model",
                "own-chip",
                "trace-viewer",
                "gpu-parallelism"
            ]
        );
        assert_eq!(
            lazy(Bundle::Static),
            [
                "spec-table",
                "ws-layouts",
                "spec-round",
                "paged-kv",
                "prefix-trie",
                "esti-pareto",
                "spec-measured",
                "shared-kv",
                "ragged-moe",
                "overlap-profiles",
                "cube-mesh",
                "su-cabling",
                "nvswitch-chip",
                "megatron-table",
                "profiler-tools",
                "book-trace",
                "book-graph"
            ]
        );
        assert!(Bundle::Static.meta().is_none() && Bundle::Static.status().is_none());
    }
}
