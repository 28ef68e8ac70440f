//! The widgets a chapter may place with `{{widget NAME key=value ...}}`.
//!
//! This table is the one list of widget directives. The build rejects a chapter
//! that names a widget or argument not listed here, and the app's browser tests
//! mount every entry, so a widget cannot be listed without existing.

/// One widget a chapter may place.
#[derive(Debug, Clone, Copy)]
pub struct WidgetSpec {
    /// The directive name, also the widget root's `data-widget` attribute.
    pub name: &'static str,
    /// Arguments a chapter may pass (each becomes the widget's initial state).
    pub args: &'static [&'static str],
    /// What the widget shows.
    pub doc: &'static str,
}

/// Every widget directive.
pub const WIDGETS: &[WidgetSpec] = &[
    WidgetSpec {
        name: "jax-code",
        args: &["spec", "mesh", "dims", "chip", "mode"],
        doc: "a sharded matmul as JAX code in the automatic, explicit and manual modes",
    },
    WidgetSpec {
        name: "book-links",
        args: &[],
        doc: "every part with links to the book's chapter and to our page",
    },
    WidgetSpec {
        name: "exercise",
        args: &["id"],
        doc: "one of the book's problems, self-graded",
    },
    WidgetSpec {
        name: "exercises",
        args: &["chapter"],
        doc: "every problem of one part of the book, self-graded",
    },
    WidgetSpec {
        name: "roofline",
        args: &["chip", "dtype", "weight", "op", "b", "d", "f", "vs"],
        doc: "log-log roofline of one chip (and optionally a second, `vs`) with an operation whose batch the reader drags",
    },
    WidgetSpec {
        name: "serving-engine",
        args: &["layout", "batching", "rate", "requests", "output", "cache", "seed"],
        doc: "a seeded serving simulation: each replica's prefills and decode steps over time, time to first token, gaps between tokens and throughput",
    },
    WidgetSpec {
        name: "speculative",
        args: &["draft", "accept", "cost"],
        doc: "speculative sampling: tokens per target step and speedup against the draft length, with a seeded check",
    },
    WidgetSpec {
        name: "weight-stationary",
        args: &["model", "chip", "b", "n"],
        doc: "1D against 2D weight-stationary sharding: communication per layer against chips, with the crossover",
    },
    WidgetSpec {
        name: "overlap-timeline",
        args: &["chip", "x", "y", "b", "d", "f", "dtype"],
        doc: "the collective matmul as two timelines, a blocking AllGather against a ppermute loop, with the book's measured times",
    },
    WidgetSpec {
        name: "xla-op",
        args: &["op", "chip", "compute"],
        doc: "one HLO op line taken apart: layout, tiles and padding, operands, bytes, FLOPs and roofline time",
    },
    WidgetSpec {
        name: "kv-sharding",
        args: &["chip", "batch", "seq", "y", "z", "step"],
        doc: "the KV cache sharded over heads and batch: the twelve steps of attention with both AllToAlls, per-chip shapes and times",
    },
    WidgetSpec {
        name: "overlap",
        args: &["chip", "b", "d", "f"],
        doc: "compute vs communication time of a matmul split over two chips, with and without overlap",
    },
    WidgetSpec {
        name: "spec-table",
        args: &["family"],
        doc: "every chip in the registry as a table, each number citing its source",
    },
    WidgetSpec {
        name: "torus",
        args: &["chip", "shape"],
        doc: "a TPU slice: chips, hosts, wraparound links and hop distances",
    },
    WidgetSpec {
        name: "link-roofline",
        args: &["chip", "b", "d", "f"],
        doc: "a matmul's weights over HBM, ICI, PCIe or DCN against its compute time",
    },
    WidgetSpec {
        name: "sharding",
        args: &["spec", "mesh", "dims", "chip"],
        doc: "a sharded matmul in the book's notation: device blocks, case, plan and cost",
    },
    WidgetSpec {
        name: "collective",
        args: &["op", "n", "wrap", "chip"],
        doc: "a collective played step by step from the emulator's trace",
    },
    WidgetSpec {
        name: "collective-size",
        args: &["chip", "n", "wrap", "v"],
        doc: "collective time against array size: latency- and bandwidth-bound regimes",
    },
    WidgetSpec {
        name: "transformer",
        args: &["model", "d", "f", "l", "n", "k", "h", "v", "seq", "dtype", "vs"],
        doc: "a Transformer's parameters by component, MLP/attention FLOP split against context, KV cache; a second model (`vs`) side by side",
    },
    WidgetSpec {
        name: "training-roofline",
        args: &["model", "chip", "mesh", "scheme", "b"],
        doc: "per-layer compute vs communication time against batch for DP, FSDP, TP, FSDP+TP; memory per chip",
    },
    WidgetSpec {
        name: "training-planner",
        args: &["model", "chip", "slice", "pods", "scheme", "tp", "batch", "tokens", "mfu", "vs"],
        doc: "a LLaMA 3 training run: step time, MFU ceiling, memory per chip, days and chip-hours; a second model (`vs`) planned alongside",
    },
    WidgetSpec {
        name: "inference-roofline",
        args: &["model", "chip", "weight", "compute", "phase", "b", "seq", "vs"],
        doc: "prefill or decode on one roofline: a layer's weight matmuls and its attention as two points; a second chip (`vs`) on the same axes",
    },
    WidgetSpec {
        name: "kv-cache",
        args: &["model", "variant", "dtype", "seq", "batch"],
        doc: "KV-cache bytes per token, per sequence and per batch, against multi-head attention",
    },
    WidgetSpec {
        name: "serving",
        args: &["model", "chip", "chips", "tp", "dtype", "seq", "batch"],
        doc: "latency–throughput Pareto curve and latency breakdown of a model served on a slice",
    },
    WidgetSpec {
        name: "min-topology",
        args: &["model", "chip", "seq"],
        doc: "the smallest slice holding a model's weights in bf16, int8 and int4, and the KV caches that fit",
    },
    WidgetSpec {
        name: "own-model",
        args: &["model", "config"],
        doc: "import a Hugging Face config.json: each field mapped to the book's symbols, the fields ignored, and total/active parameters, FLOPs and KV bytes per token from core",
    },
    WidgetSpec {
        name: "own-chip",
        args: &["chip", "bf16", "int8", "hbm", "hbm_bw", "link", "net"],
        doc: "define your own chip from a registry one (peaks, HBM, link bandwidths with units), see its ridge points and save it for every chip picker",
    },
    WidgetSpec {
        name: "gpu",
        args: &["gpu", "gpus", "op", "bytes"],
        doc: "GPU cluster layout, collective cost inside and across NVLink domains, GPU and TPU rooflines",
    },
    WidgetSpec {
        name: "gpu-collectives",
        args: &["gpu", "op", "gpus", "bytes", "sharp", "k"],
        doc: "GPU collectives against array size inside and across nodes, SHARP on or off, beside the book's NCCL and TPU measurements",
    },
    WidgetSpec {
        name: "nvlink-node",
        args: &["gpu"],
        doc: "an NVLink node's GPUs, NVSwitches and links, with per-GPU, node, bisection and scale-out bandwidths",
    },
    WidgetSpec {
        name: "gpu-anatomy",
        args: &["gpu", "tpu", "part", "taken", "mod", "then", "else"],
        doc: "a GPU generation's SMs, subpartitions, SMEM, L2 and HBM, each part's count, capacity and rate beside its TPU counterpart, the peak rebuilt from the parts, and a warp stepping through a divergent branch",
    },
    WidgetSpec {
        name: "gpu-parallelism",
        args: &["gpu", "model", "batch", "stages", "microbatches", "dp", "link"],
        doc: "a GPipe schedule on a registry GPU and model: the bubble, activation transfers between stages and each stage's exposed gradient AllReduce, timed",
    },
    WidgetSpec {
        name: "profile",
        args: &["model", "chip", "slice", "scheme", "tp", "batch", "overlap", "layers"],
        doc: "a synthetic trace of one training step: TensorCore and ICI lanes, overlap, budget, top ops, find the bottleneck",
    },
    WidgetSpec {
        name: "parallelism-layout",
        args: &["scheme", "model", "chip", "chips", "tp", "b"],
        doc: "how DP, FSDP, tensor parallelism and their mix cut an MLP block's arrays, and each collective of both passes with bytes and time",
    },
    WidgetSpec {
        name: "layer-diagram",
        args: &["model", "batch", "seq", "dtype", "causal", "op"],
        doc: "one Transformer layer operation by operation: shapes, parameters, FLOPs and bytes of each block",
    },
    WidgetSpec {
        name: "flops-counter",
        args: &["expr", "sizes"],
        doc: "the FLOPs of a contraction the reader writes, forward and both gradients, with a caret under bad input",
    },
    WidgetSpec {
        name: "pipeline",
        args: &["schedule", "stages", "microbatches", "chunks"],
        doc: "a pipeline schedule (GPipe, 1F1B, interleaved, bidirectional) as a timeline with its bubble and activations in flight",
    },
    WidgetSpec {
        name: "moe",
        args: &["model", "chip", "e", "k", "ff", "tokens", "weight", "ep"],
        doc: "a Mixture-of-Experts layer: parameters stored and used, the compute-bound batch, weights per chip and the routing AllToAlls",
    },
    WidgetSpec {
        name: "flash-attention",
        args: &["queries", "keys", "h", "block", "seed"],
        doc: "the online softmax stepped block by block with real numbers, ending equal to ordinary attention",
    },
    WidgetSpec {
        name: "remat",
        args: &["model", "chip", "batch", "seq", "chips", "policy"],
        doc: "gradient checkpointing policies as activation memory per chip against the extra FLOPs they recompute",
    },
    WidgetSpec {
        name: "zero",
        args: &["model", "chip", "chips", "optimizer", "stage"],
        doc: "ZeRO stages 0-3: parameters, gradients and optimizer state per chip, and the bytes each stage moves per step",
    },
    WidgetSpec {
        name: "systolic",
        args: &["k", "n", "m", "blocks", "pipelined"],
        doc: "the MXU's weight-stationary systolic array stepped cycle by cycle, with its cycles and utilisation",
    },
    WidgetSpec {
        name: "chip-map",
        args: &["chip", "part", "bytes"],
        doc: "a TPU chip's parts with their counts, capacities, rates and bandwidths, and the time to move an array over each path",
    },
    WidgetSpec {
        name: "streaming",
        args: &["chip", "op", "elements", "b", "d", "f", "chunk", "hbm", "compute", "resident"],
        doc: "an elementwise product or a matmul streamed chunk by chunk through HBM, VMEM, registers and the VPU or MXU, with the stage that sets the pace",
    },
    WidgetSpec {
        name: "strong-scaling",
        args: &["chip", "params", "tokens", "chips"],
        doc: "a fixed training step over 1 to 65,536 chips: compute, gradient AllReduce, step time and the efficiency at the chosen count",
    },
    WidgetSpec {
        name: "collective-matmul",
        args: &["chip", "case", "n", "i", "j", "k", "bidi"],
        doc: "a collective matmul as a ring of ppermutes overlapped with blocks of the matmul (case=allgather: A[I_X, J] gathered; case=reducescatter: A[I, J_X]·B[J_X, K] with partial sums of C reduce-scattered), stepped: who holds, multiplies and sends what, with each step's times and the total against the blocking collective",
    },
    WidgetSpec {
        name: "slowest-stage",
        args: &["chip", "slice", "side", "dtype", "batch", "pieces"],
        doc: "the book's challenge problem: a matrix loaded over PCIe, gathered over ICI onto one chip, read from HBM and multiplied, with each stage's time, the slowest stage and the overlapped total",
    },
    WidgetSpec {
        name: "rooflines",
        args: &["chip", "faster", "i", "bm", "bk", "bn"],
        doc: "two algorithms (one a tiled matmul with tiles bm, bk, bn) on two memory bandwidths under one peak, with the verdict of each pairing",
    },
];

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
}
