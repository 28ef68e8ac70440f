//! The book's own profiles (Part 9), kept as data: what its screenshots of the
//! profiler show, so that our figures redraw them and our prose quotes them
//! from one place.
//!
//! Part 9 teaches from five screenshots of TensorBoard's trace viewer, two of
//! its graph viewer and one of its tool menu. Three of the trace screenshots
//! (one layer of the book's fake Transformer, its attention block, and
//! `fusion.16` selected) come from one run, `jit_forward(2788024667853225267)`,
//! on a free Colab TPU v2 with eight cores; that run is [`TRANSFORMER_RUN`],
//! and [`LAYER`] and [`ATTENTION`] are two windows on it. [`VIEWER`] is the
//! section "Trace Viewer"'s run of the same model, and [`Q1`] the trace of the
//! first worked problem.
//!
//! Every number here is the book's. The selected op's start, wall duration,
//! HLO line, `model_flops` and `bytes_accessed` are printed in its details
//! pane and are copied exactly. The other ops' starts and ends are read off
//! the screenshot's time axis and are good to about a millisecond (a
//! microsecond for Q1); an op whose name the screenshot cuts short
//! (`fusi…`) has an empty [`Span::name`]. The graphs list the nodes and edges
//! the graph viewer draws, abridged to the ones the book's point needs.

use crate::units::Seconds;

/// What kind of box a span is, which decides its colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpanKind {
    /// An HLO op that computes: a fusion, a convolution, a reduce.
    Compute,
    /// An HLO collective: an AllGather, an AllReduce.
    Collective,
    /// A box of a row the profiler rebuilds from `jax.named_scope`,
    /// `jax.named_call` or the einsum it came from.
    Scope,
}

/// One box of a trace row.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Span {
    /// Its name as the screenshot prints it (empty when cut short).
    pub name: &'static str,
    /// Start, milliseconds on the screenshot's time axis.
    pub start_ms: f64,
    /// End, milliseconds on the screenshot's time axis.
    pub end_ms: f64,
    /// What it is.
    pub kind: SpanKind,
    /// What the book's annotation calls it ("Q", "up-projection", "softmax"), if anything.
    pub note: &'static str,
}

impl Span {
    /// Its length in milliseconds.
    pub fn ms(&self) -> f64 {
        self.end_ms - self.start_ms
    }
}

/// One row of a trace, as the trace viewer labels it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Row {
    /// The row's label (`XLA Ops`, `layer`, …).
    pub label: &'static str,
    /// Its boxes, in time order.
    pub spans: &'static [Span],
}

/// What the details pane shows for the op the book clicked.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Selected {
    /// The op's name, a span of the trace's first row.
    pub op: &'static str,
    /// `Start`, nanoseconds.
    pub start_ns: u64,
    /// `Wall Duration`, nanoseconds.
    pub wall_ns: u64,
    /// The HLO line of `Start Stack Trace`.
    pub hlo: &'static str,
    /// `hlo_category`.
    pub category: &'static str,
    /// `model_flops`, when the screenshot shows it.
    pub model_flops: Option<u64>,
    /// `bytes_accessed`, when the screenshot shows it.
    pub bytes_accessed: Option<u64>,
    /// Where in the Python the op came from (the `source` argument or the Source code row).
    pub source: &'static str,
    /// The book's annotations of the operands, by operand index (`0` → "In").
    pub operand_roles: &'static [(usize, &'static str)],
    /// The book's annotation of the output shape, if any.
    pub output_role: &'static str,
}

impl Selected {
    /// Its wall duration.
    pub fn wall(&self) -> Seconds {
        Seconds(self.wall_ns as f64 * 1e-9)
    }

    /// `model_flops / bytes_accessed`, when both are shown.
    pub fn intensity(&self) -> Option<f64> {
        Some(self.model_flops? as f64 / self.bytes_accessed? as f64)
    }
}

/// One of the book's trace screenshots, redrawn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BookTrace {
    /// The name a chapter picks it by (`trace=layer`).
    pub id: &'static str,
    /// The book's figure (its image file) and what it shows.
    pub figure: &'static str,
    /// The device group drawn (the book opens `TPU:0`).
    pub device: &'static str,
    /// The XLA module running.
    pub module: &'static str,
    /// The time window drawn, milliseconds.
    pub window_ms: (f64, f64),
    /// The rows, XLA Ops first, then the rows rebuilt from scopes.
    pub rows: &'static [Row],
    /// The scope span whose length the figure brackets (`layer_1`), if any.
    pub bracket: Option<&'static str>,
    /// The op the book clicked.
    pub selected: Selected,
}

impl BookTrace {
    /// The spans of the first row (XLA Ops) inside the window.
    pub fn ops(&self) -> impl Iterator<Item = &'static Span> + '_ {
        let (a, b) = self.window_ms;
        self.rows
            .first()
            .into_iter()
            .flat_map(|r| r.spans.iter())
            .filter(move |s| s.end_ms > a && s.start_ms < b)
    }

    /// The selected op's span in the XLA Ops row.
    pub fn selected_span(&self) -> Option<&'static Span> {
        self.rows
            .first()?
            .spans
            .iter()
            .find(|s| s.name == self.selected.op)
    }

    /// The bracketed scope span and its length in milliseconds.
    pub fn bracketed(&self) -> Option<(&'static Span, f64)> {
        let name = self.bracket?;
        self.rows
            .iter()
            .flat_map(|r| r.spans.iter())
            .find(|s| s.name == name)
            .map(|s| (s, s.ms()))
    }
}

const fn op(name: &'static str, start_ms: f64, end_ms: f64, note: &'static str) -> Span {
    Span {
        name,
        start_ms,
        end_ms,
        kind: SpanKind::Compute,
        note,
    }
}

const fn gather(name: &'static str, start_ms: f64, end_ms: f64, note: &'static str) -> Span {
    Span {
        name,
        start_ms,
        end_ms,
        kind: SpanKind::Collective,
        note,
    }
}

const fn scope(name: &'static str, start_ms: f64, end_ms: f64) -> Span {
    Span {
        name,
        start_ms,
        end_ms,
        kind: SpanKind::Scope,
        note: "",
    }
}

/// The XLA Ops row of the book's fake Transformer run
/// (`transformer-xprof.png`, `attn-xprof.png`, `transformer-ffw.png`): the
/// last op of the previous layer, the attention projections Q, K, V and O
/// (`fusion.169`, `.172`, `.166`, `.98`) with FSDP AllGathers and the thin
/// slivers of attention between them, then the feed-forward block's
/// up-projection `fusion.16`, an FSDP AllGather and the down-projection
/// `fusion.31`.
const RUN_OPS: [Span; 20] = [
    op("fusion.164", 139.0, 185.6, ""),
    gather("", 186.5, 187.5, "FSDP AllGather"),
    op("fusion.169", 187.583907, 201.466943, "Q"),
    op("fusion.172", 202.1, 216.7, "K"),
    op("", 216.7, 217.9, "QK product"),
    op("", 217.9, 218.9, "softmax"),
    gather("", 218.9, 219.6, "FSDP AllGather"),
    op("fusion.166", 219.6, 232.0, "V"),
    op("", 232.0, 233.2, "KV product"),
    gather("", 233.3, 234.1, "FSDP AllGather"),
    op("fusion.98", 234.3, 246.5, "O"),
    op("", 246.6, 249.0, ""),
    op("", 249.1, 250.5, ""),
    op("", 250.6, 251.4, ""),
    gather("all-gather.10", 252.0, 258.4, "FSDP AllGather"),
    op("fusion.16", 258.529673, 355.52422, "up-projection"),
    gather("", 355.6, 362.8, "FSDP AllGather"),
    op("fusion.31", 362.9, 459.9, "down-projection"),
    op("", 460.2, 466.0, ""),
    op("", 466.6, 472.0, ""),
];

/// The scope rows of the same run: the layer, then the block inside it.
const RUN_LAYERS: [Span; 2] = [
    scope("layer_0", 185.9, 459.9),
    scope("layer_1", 459.9, 475.0),
];
const RUN_BLOCKS: [Span; 7] = [
    scope("qkv_matmul", 186.5, 216.8),
    scope("attn", 216.8, 218.7),
    scope("qkv_matmul", 218.7, 232.0),
    scope("attn", 232.0, 233.5),
    scope("attn_proj", 233.5, 248.6),
    scope("ffw", 251.1, 459.9),
    scope("qkv_matmul", 460.2, 475.0),
];

/// The rows of the book's fake Transformer run.
pub const TRANSFORMER_RUN: [Row; 3] = [
    Row {
        label: "XLA Ops",
        spans: &RUN_OPS,
    },
    Row {
        label: "layer",
        spans: &RUN_LAYERS,
    },
    Row {
        label: "block",
        spans: &RUN_BLOCKS,
    },
];

const RUN_MODULE: &str = "jit_forward(2788024667853225267)";

/// `fusion.16`, the up-projection, as its details pane prints it
/// (`transformer-xprof.png`, `transformer-ffw.png`).
pub const FUSION_16: Selected = Selected {
    op: "fusion.16",
    start_ns: 258_529_673,
    wall_ns: 96_994_547,
    hlo: "%fusion.16 = bf16[8,1024,16384]{2,1,0:T(8,128)(2,1)} fusion(bf16[8,1024,8192]{2,1,0:T(8,128)(2,1)} %all-gather.11, bf16[8192,16384]{1,0:T(8,128)(2,1)} %all-gather.10), kind=kOutput, calls=%fused_computation.7",
    category: "convolution fusion",
    model_flops: None,
    bytes_accessed: None,
    source: "<ipython-input-92-5d5021944932>:65",
    operand_roles: &[(0, "In"), (1, "W1")],
    output_role: "this core's slice: a quarter of the batch, half of F",
};

/// One layer of the book's fake Transformer, `fusion.16` selected
/// (`transformer-xprof.png`; the details are those of `transformer-ffw.png`).
pub const LAYER: BookTrace = BookTrace {
    id: "layer",
    figure: "transformer-xprof.png and transformer-ffw.png, section \"Looking at a real(ish) example profile\"",
    device: "TPU:0",
    module: RUN_MODULE,
    window_ms: (170.0, 470.0),
    rows: &TRANSFORMER_RUN,
    bracket: Some("layer_0"),
    selected: FUSION_16,
};

/// The attention block of the same run, the Q projection `fusion.169`
/// selected (`attn-xprof.png`).
pub const ATTENTION: BookTrace = BookTrace {
    id: "attention",
    figure: "attn-xprof.png, section \"Looking at a real(ish) example profile\"",
    device: "TPU:0",
    module: RUN_MODULE,
    window_ms: (183.0, 262.0),
    rows: &TRANSFORMER_RUN,
    bracket: None,
    selected: Selected {
        op: "fusion.169",
        start_ns: 187_583_907,
        wall_ns: 13_883_036,
        hlo: "%fusion.169 = bf16[8,8,1024,256]{3,2,1,0:T(8,128)(2,1)} fusion(bf16[8,1024,8192]{2,1,0:T(8,128)(2,1)} %all-gather.3, bf16[8192,8,256,1]{2,1,0,3:T(8,128)(2,1)} %bitcast.2), kind=kOutput, calls=%fused_computation.150",
        category: "convolution fusion",
        model_flops: None,
        bytes_accessed: None,
        source: "<ipython-input-92-5d5021944932>:15",
        operand_roles: &[(0, "In"), (1, "W_Q: (D, heads on this core, K, 1)")],
        output_role: "",
    },
};

/// The XLA Ops row of the section "Trace Viewer"'s run (`trace-viewer.png`):
/// the attention ops of layer 1, then `all-gather.15`, `fusion.143`,
/// `all-gather.16` and `fusion.180`.
const VIEWER_OPS: [Span; 10] = [
    op("fusion.185", 144.3, 154.3, ""),
    op("", 154.9, 158.1, ""),
    op("", 158.6, 162.6, ""),
    op("", 163.2, 167.3, ""),
    op("", 167.8, 171.6, ""),
    gather("all-gather.15", 171.9, 177.8, ""),
    op("fusion.143", 178.031947, 202.567377, ""),
    gather("all-gather.16", 202.6, 208.6, ""),
    op("fusion.180", 208.6, 233.2, ""),
    op("", 233.5, 237.0, ""),
];
const VIEWER_LAYERS: [Span; 3] = [
    scope("layer_0", 144.3, 154.3),
    scope("layer_1", 154.3, 233.357),
    scope("layer_2", 233.357, 240.0),
];
const VIEWER_BLOCKS: [Span; 5] = [
    scope("ffw", 144.3, 154.3),
    scope("qkv_matmul", 154.9, 162.6),
    scope("qkv_matmul", 163.2, 167.3),
    scope("attn_proj", 167.8, 171.6),
    scope("ffw", 171.7, 233.2),
];
const VIEWER_ROWS: [Row; 3] = [
    Row {
        label: "XLA Ops",
        spans: &VIEWER_OPS,
    },
    Row {
        label: "layer",
        spans: &VIEWER_LAYERS,
    },
    Row {
        label: "block",
        spans: &VIEWER_BLOCKS,
    },
];

/// The section "Trace Viewer"'s screenshot (`trace-viewer.png`): a layer of
/// 79.057 ms between the repeated blocks, `fusion.143` selected.
pub const VIEWER: BookTrace = BookTrace {
    id: "viewer",
    figure: "trace-viewer.png, section \"Trace Viewer\"",
    device: "TPU:0",
    module: "jit_forward(9697585473876885109)",
    window_ms: (144.0, 240.0),
    rows: &VIEWER_ROWS,
    bracket: Some("layer_1"),
    selected: Selected {
        op: "fusion.143",
        start_ns: 178_031_947,
        wall_ns: 24_535_430,
        hlo: "%fusion.143 = f32[1024,32768]{1,0:T(8,128)} fusion(bf16[8192,32768]{1,0:T(8,128)(2,1)} %all-gather.15, f32[1,1024,8192]{2,1,0:T(8,128)} %get-tuple-element.11, f32[1024]{0:T(1024)} %fusion.280, f32[8192]{0:T(1024)} %all-gather.14), kind=kOutput, calls=%fused_computation.119",
        category: "convolution fusion",
        model_flops: Some(549_772_591_104),
        bytes_accessed: None,
        source: "<ipython-input-9-f750f879b88a>:76",
        operand_roles: &[],
        output_role: "",
    },
};

const Q1_OPS: [Span; 4] = [
    op("", 24.8978, 24.9022, ""),
    op("fusion.1", 24.902229, 25.111456, ""),
    op("fusion", 25.1115, 25.3179, ""),
    gather("all-reduce", 25.3179, 25.3353, "AllReduce"),
];
const Q1_MODULE: [Span; 1] = [scope("jit(matmul)", 24.9022, 25.3353)];
const Q1_EINSUMS: [Span; 2] = [
    scope("fw,bw->bf", 24.9022, 25.1115),
    scope("wf,bf->bw", 25.1115, 25.3353),
];
const Q1_ROWS: [Row; 3] = [
    Row {
        label: "XLA Ops",
        spans: &Q1_OPS,
    },
    Row {
        label: "scope",
        spans: &Q1_MODULE,
    },
    Row {
        label: "einsum",
        spans: &Q1_EINSUMS,
    },
];

/// The trace of the first worked problem (`all-reduce-profile.png`): on
/// every TPU, `fusion.1`, a second fusion and an AllReduce; `fusion.1`
/// selected. Its `bytes_accessed` is half cut off in the screenshot; the
/// value here is the one whose visible half it shows, and equals the bytes
/// of the weight, the vector and the output.
pub const Q1: BookTrace = BookTrace {
    id: "q1",
    figure: "all-reduce-profile.png, Question 1 of \"Worked Problems\"",
    device: "TPU:0",
    module: "jit_matmul(16933958880276721599)",
    window_ms: (24.88, 25.345),
    rows: &Q1_ROWS,
    bracket: None,
    selected: Selected {
        op: "fusion.1",
        start_ns: 24_902_229,
        wall_ns: 209_227,
        hlo: "%fusion.1 = bf16[4096]{0:T(1024)(128)(2,1)} fusion(bf16[4096,8192]{1,0:T(8,128)(2,1)} %param.1, bf16[8192]{0:T(1024)(128)(2,1)} %reduce.6), kind=kLoop, calls=%fused_computation.1",
        category: "loop fusion",
        model_flops: Some(67_104_768),
        bytes_accessed: Some(67_133_440),
        source: "<ipython-input-18-5d645123a5db>:20",
        operand_roles: &[(0, "the weight"), (1, "the vector")],
        output_role: "",
    },
};

/// Every trace, by id.
pub const TRACES: [BookTrace; 4] = [VIEWER, LAYER, ATTENTION, Q1];

/// The trace named `id`.
pub fn trace(id: &str) -> Option<&'static BookTrace> {
    TRACES.iter().find(|t| t.id == id)
}

/// One entry of the profiler's tool menu (`xprof-overview.png`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tool {
    /// Its name in the menu.
    pub name: &'static str,
    /// What it shows, for the tools the book points out; empty for the rest.
    pub shows: &'static str,
}

/// The ten tools of the menu, in the menu's order; the four the book
/// annotates say what they show.
pub const TOOLS: [Tool; 10] = [
    Tool {
        name: "overview_page",
        shows: "",
    },
    Tool {
        name: "graph_viewer",
        shows: "the HLO ops as a graph: what feeds what, and how it is sharded",
    },
    Tool {
        name: "input_pipeline_analyzer",
        shows: "",
    },
    Tool {
        name: "memory_profile",
        shows: "the program's total memory in use over time",
    },
    Tool {
        name: "memory_viewer",
        shows: "which buffers hold the most memory",
    },
    Tool {
        name: "op_profile",
        shows: "",
    },
    Tool {
        name: "pod_viewer",
        shows: "",
    },
    Tool {
        name: "tensorflow_stats",
        shows: "",
    },
    Tool {
        name: "tf_data_bottleneck_analysis",
        shows: "",
    },
    Tool {
        name: "trace_viewer",
        shows: "every TPU op in the order it ran, on a timeline",
    },
];

/// What a graph node is, which decides how it is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeKind {
    /// An input of the fusion (`Parameter 0`).
    Parameter,
    /// An op outside the fusion that feeds it or reads it.
    Outside,
    /// A pointwise or reshaping op inside the fusion.
    Pointwise,
    /// The fusion's one matmul (`convolution.55`).
    Matmul,
    /// A collective inside the fusion.
    Collective,
}

/// One box of a graph-viewer drawing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Node {
    /// Its HLO name (`convolution.55`, `Parameter 0`).
    pub name: &'static str,
    /// Its output type (`f32[1024,32768]`).
    pub shape: &'static str,
    /// What it is.
    pub kind: NodeKind,
    /// Its column and row in the drawing's grid.
    pub at: (u8, u8),
}

/// A graph-viewer picture of one fusion, abridged.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BookGraph {
    /// The name a chapter picks it by (`graph=fusion.143`).
    pub id: &'static str,
    /// The book's figure.
    pub figure: &'static str,
    /// The fusion's name and `kind=` as the viewer titles it.
    pub fusion: &'static str,
    /// Its kind (`kOutput`, `kCustom`).
    pub kind: &'static str,
    /// The nodes; those of kind [`NodeKind::Outside`] are drawn outside the fusion's box.
    pub nodes: &'static [Node],
    /// Edges, from node index to node index.
    pub edges: &'static [(usize, usize)],
    /// What XLA runs instead, if it compiles the pattern into one collective.
    pub compiled_to: Option<&'static str>,
}

const fn node(name: &'static str, shape: &'static str, kind: NodeKind, at: (u8, u8)) -> Node {
    Node {
        name,
        shape,
        kind,
        at,
    }
}

/// `fusion.143` in the graph viewer (`graph-viewer.png`): four parameters
/// (the gathered weight, the activations, a per-token and a per-feature
/// scale), the elementwise ops that scale the activations, and one matmul,
/// `convolution.55`, all inside one fusion; its result feeds `fusion.180`.
pub const FUSION_143: BookGraph = BookGraph {
    id: "fusion.143",
    figure: "graph-viewer.png, section \"Graph Viewer\"",
    fusion: "fusion.143",
    kind: "kOutput",
    nodes: &[
        node(
            "all-gather.15",
            "bf16[8192,32768]",
            NodeKind::Outside,
            (0, 0),
        ),
        node("all-gather.14", "f32[8192]", NodeKind::Outside, (3, 0)),
        node(
            "Parameter 0",
            "bf16[8192,32768]",
            NodeKind::Parameter,
            (0, 1),
        ),
        node(
            "Parameter 1",
            "f32[1,1024,8192]",
            NodeKind::Parameter,
            (1, 1),
        ),
        node("Parameter 2", "f32[1024]", NodeKind::Parameter, (2, 1)),
        node("Parameter 3", "f32[8192]", NodeKind::Parameter, (3, 1)),
        node(
            "broadcast.477",
            "f32[1,1024,8192]",
            NodeKind::Pointwise,
            (2, 3),
        ),
        node(
            "broadcast.550",
            "f32[1,1024,8192]",
            NodeKind::Pointwise,
            (3, 2),
        ),
        node(
            "multiply.575",
            "f32[1,1024,8192]",
            NodeKind::Pointwise,
            (1, 3),
        ),
        node(
            "multiply.570",
            "f32[1,1024,8192]",
            NodeKind::Pointwise,
            (1, 4),
        ),
        node(
            "bitcast.366",
            "bf16[8192,32768]",
            NodeKind::Pointwise,
            (0, 2),
        ),
        node("bitcast.244", "f32[1024,8192]", NodeKind::Pointwise, (1, 5)),
        node(
            "convolution.55",
            "f32[1024,32768]",
            NodeKind::Matmul,
            (0, 6),
        ),
        node("fusion.180", "the next fusion", NodeKind::Outside, (0, 7)),
    ],
    edges: &[
        (0, 2),
        (1, 5),
        (5, 7),
        (3, 8),
        (7, 8),
        (4, 6),
        (8, 9),
        (6, 9),
        (9, 11),
        (2, 10),
        (10, 12),
        (11, 12),
        (12, 13),
    ],
    compiled_to: None,
};

/// `fusion.1` in the graph viewer (`reduce-scatter-xprof.png`): an
/// AllReduce of the whole `[8,1024,8192]` array, then a dynamic slice whose
/// offset is this core's partition id times 4096, which XLA compiles into a
/// ReduceScatter (its `calls=%all-reduce-scatter.1`).
pub const FUSION_1: BookGraph = BookGraph {
    id: "fusion.1",
    figure: "reduce-scatter-xprof.png, section \"Looking at a real(ish) example profile\"",
    fusion: "fusion.1",
    kind: "kCustom",
    nodes: &[
        node(
            "convolution.32",
            "bf16[8,1024,8192]",
            NodeKind::Outside,
            (0, 0),
        ),
        node(
            "Parameter 0",
            "bf16[8,1024,8192]",
            NodeKind::Parameter,
            (0, 1),
        ),
        node("partition-id.2", "u32[]", NodeKind::Pointwise, (1, 1)),
        node(
            "all-reduce.17",
            "bf16[8,1024,8192]",
            NodeKind::Collective,
            (0, 2),
        ),
        node("dynamic-slice.146", "u32[1]", NodeKind::Pointwise, (1, 2)),
        node("multiply.81", "u32[] (× 4096)", NodeKind::Pointwise, (1, 3)),
        node(
            "dynamic-slice.147",
            "bf16[8,1024,4096]",
            NodeKind::Pointwise,
            (0, 4),
        ),
    ],
    edges: &[(0, 1), (1, 3), (2, 4), (4, 5), (3, 6), (5, 6)],
    compiled_to: Some("reduce-scatter: bf16[8,1024,8192] → bf16[8,1024,4096]"),
};

/// Every graph, by id.
pub const GRAPHS: [BookGraph; 2] = [FUSION_143, FUSION_1];

/// The graph named `id`.
pub fn graph(id: &str) -> Option<&'static BookGraph> {
    GRAPHS.iter().find(|g| g.id == id)
}

/// A time the book reports from a profile without a screenshot of it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Measured {
    /// The name a chapter quotes it by.
    pub id: &'static str,
    /// The time.
    pub time: Seconds,
    /// What was measured, and where the book says so.
    pub what: &'static str,
}

/// The times Part 9 reports in its text.
pub const MEASURED: [Measured; 5] = [
    Measured {
        id: "reduce-scatter",
        time: Seconds(1.13e-3),
        what: "fusion.1, the ReduceScatter after the down-projection (\"Looking at a real(ish) example profile\")",
    },
    Measured {
        id: "naive-layer",
        time: Seconds(184e-3),
        what: "one layer with GSPMD's default sharding (Question 2)",
    },
    Measured {
        id: "fixed-layer",
        time: Seconds(67e-3),
        what: "one layer after the sharding fix (Question 2)",
    },
    Measured {
        id: "newer-naive-layer",
        time: Seconds(90e-3),
        what: "one naive layer with a newer XLA (Question 2's note)",
    },
    Measured {
        id: "newer-fixed-layer",
        time: Seconds(80e-3),
        what: "one fixed layer with a newer XLA (Question 2's note)",
    },
];

/// A time the book reports: one of [`MEASURED`], the wall duration of a
/// trace's selected op (`fusion.16`, `fusion.169`, `fusion.143`,
/// `fusion.1`), or the length of the layer a trace brackets (`viewer`,
/// `layer`).
pub fn measured(id: &str) -> Option<Seconds> {
    let op = || {
        TRACES
            .iter()
            .find(|t| t.selected.op == id)
            .map(|t| t.selected.wall())
    };
    let bracket = || {
        trace(id)
            .and_then(BookTrace::bracketed)
            .map(|(_, ms)| Seconds(ms * 1e-3))
    };
    MEASURED
        .iter()
        .find(|m| m.id == id)
        .map(|m| m.time)
        .or_else(op)
        .or_else(bracket)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hardware::TPU_V2_CORE_PEAK;
    use crate::profiling::predicted_matmul_time;
    use crate::profiling::xla_op::parse_op;

    #[test]
    fn every_selected_op_is_drawn_where_its_details_put_it() {
        for t in TRACES {
            let s = t.selected_span().expect(t.id);
            // The details pane's start and duration, in milliseconds.
            let start = t.selected.start_ns as f64 * 1e-6;
            let end = start + t.selected.wall_ns as f64 * 1e-6;
            assert!((s.start_ms - start).abs() < 1e-6, "{}", t.id);
            assert!((s.end_ms - end).abs() < 1e-6, "{}", t.id);
            assert!(t.ops().any(|o| o.name == t.selected.op), "{}", t.id);
            // The HLO line parses and names the selected op.
            let hlo = parse_op(t.selected.hlo).expect(t.id);
            assert_eq!(hlo.name, t.selected.op);
            for (i, _) in t.selected.operand_roles {
                assert!(*i < hlo.operands.len(), "{}", t.id);
            }
        }
    }

    #[test]
    fn rows_are_in_time_order_and_xla_ops_come_first() {
        for t in TRACES {
            assert_eq!(t.rows[0].label, "XLA Ops");
            assert!(t.rows[1..]
                .iter()
                .all(|r| r.spans.iter().all(|s| s.kind == SpanKind::Scope)));
            for r in t.rows {
                for w in r.spans.windows(2) {
                    assert!(w[0].end_ms <= w[1].start_ms + 1e-9, "{} {}", t.id, r.label);
                }
                assert!(r.spans.iter().all(|s| s.end_ms > s.start_ms));
            }
        }
    }

    #[test]
    fn the_layers_are_the_books_lengths() {
        // trace-viewer.png brackets one layer at 79.057 ms.
        let (_, ms) = VIEWER.bracketed().unwrap();
        assert!((ms - 79.057).abs() < 1e-9);
        // fusion.16 runs 96,994,547 ns, "about 97 ms".
        assert!((FUSION_16.wall().0 - 0.097).abs() < 0.0005);
        // The attention block (Q to O) is a small part of the layer: the
        // up- and down-projections take most of it.
        let (layer, len) = LAYER.bracketed().unwrap();
        let ffw: f64 = LAYER
            .ops()
            .filter(|o| o.note.ends_with("projection"))
            .map(Span::ms)
            .sum();
        assert!(ffw / len > 0.65 && ffw / len < 0.75, "{}", ffw / len);
        assert_eq!(layer.name, "layer_0");
    }

    #[test]
    fn model_flops_match_the_shapes() {
        // fusion.1 of Q1: a [4096, 8192] weight times a vector of 8192, each
        // output a sum of 8192 products (8192 multiplies, 8191 adds).
        assert_eq!(Q1.selected.model_flops, Some(4096 * (2 * 8192 - 1)));
        // bytes_accessed: the bf16 weight, the vector and the output, once each.
        assert_eq!(
            Q1.selected.bytes_accessed,
            Some(2 * (4096 * 8192 + 8192 + 4096))
        );
        let i = Q1.selected.intensity().unwrap();
        assert!((i - 1.0).abs() < 0.001, "{i}");
        // fusion.143: a [1024, 8192] by [8192, 32768] matmul at 2·b·d·f, plus
        // the two elementwise multiplies of the [1, 1024, 8192] activations
        // the graph viewer shows inside it.
        let mm = 2 * 1024 * 8192 * 32768_u64;
        assert_eq!(VIEWER.selected.model_flops, Some(mm + 2 * 1024 * 8192));
        // One v2 core at its peak would take about 23.9 ms; it took 24.5 ms.
        let t = predicted_matmul_time(1024.0, 8192.0, 32768.0, 1, TPU_V2_CORE_PEAK.value).unwrap();
        assert!((t.0 - 0.0239).abs() < 0.0001, "{}", t.0);
        assert!(VIEWER.selected.wall().0 / t.0 < 1.03);
    }

    #[test]
    fn the_graphs_agree_with_the_hlo_lines() {
        // fusion.143's parameters are its HLO line's operands, in order.
        let hlo = parse_op(VIEWER.selected.hlo).unwrap();
        let params: Vec<&Node> = FUSION_143
            .nodes
            .iter()
            .filter(|n| n.kind == NodeKind::Parameter)
            .collect();
        assert_eq!(params.len(), hlo.operands.len());
        for (p, o) in params.iter().zip(&hlo.operands) {
            assert_eq!(
                Some(p.shape.to_string()),
                o.shape.as_ref().map(|s| s.short())
            );
        }
        // One matmul, and its output is the fusion's output.
        let mm: Vec<&Node> = FUSION_143
            .nodes
            .iter()
            .filter(|n| n.kind == NodeKind::Matmul)
            .collect();
        assert_eq!(mm.len(), 1);
        assert_eq!(mm[0].name, "convolution.55");
        assert_eq!(mm[0].shape, hlo.output.short());
        // fusion.1: an AllReduce keeps the full shape, the slice halves the
        // last axis, as the line `%fusion.1 = bf16[8,1024,4096] … calls=%all-reduce-scatter.1` says.
        let line = "%fusion.1 = bf16[8,1024,4096]{2,1,0:T(8,128)(2,1)} fusion(bf16[8,1024,8192]{2,1,0:T(8,128)(2,1)} %fusion.31), kind=kCustom, calls=%all-reduce-scatter.1";
        let rs = parse_op(line).unwrap();
        let by = |n: &str| FUSION_1.nodes.iter().find(|x| x.name == n).unwrap();
        assert_eq!(
            by("all-reduce.17").shape,
            rs.operands[0].shape.as_ref().unwrap().short()
        );
        assert_eq!(by("dynamic-slice.147").shape, rs.output.short());
        assert!(FUSION_1.compiled_to.unwrap().starts_with("reduce-scatter"));
        for g in GRAPHS {
            for (a, b) in g.edges {
                assert!(*a < g.nodes.len() && *b < g.nodes.len(), "{}", g.id);
            }
        }
    }

    #[test]
    fn measured_times_are_found_by_name() {
        assert_eq!(measured("fusion.1"), Some(Seconds(209_227e-9)));
        assert_eq!(measured("naive-layer"), Some(Seconds(0.184)));
        assert_eq!(measured("fixed-layer"), Some(Seconds(0.067)));
        assert!((measured("fusion.169").unwrap().0 - 0.013883036).abs() < 1e-12);
        assert!((measured("viewer").unwrap().0 - 0.079057).abs() < 1e-12);
        assert!((measured("layer").unwrap().0 - 0.274).abs() < 1e-9);
        assert_eq!(measured("attention"), None);
        assert_eq!(measured("nope"), None);
        assert_eq!(trace("q1").map(|t| t.selected.op), Some("fusion.1"));
        assert!(graph("fusion.143").is_some() && graph("x").is_none());
        assert_eq!(TOOLS.iter().filter(|t| !t.shows.is_empty()).count(), 4);
    }
}
