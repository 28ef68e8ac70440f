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
        args: &["chip", "dtype", "weight", "op", "b", "d", "f"],
        doc: "log-log roofline of one chip with an operation whose batch the reader drags",
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
        args: &["model", "d", "f", "l", "n", "k", "h", "v", "seq", "dtype"],
        doc: "a Transformer's parameters by component, MLP/attention FLOP split against context, KV cache",
    },
    WidgetSpec {
        name: "training-roofline",
        args: &["model", "chip", "mesh", "scheme", "b"],
        doc: "per-layer compute vs communication time against batch for DP, FSDP, TP, FSDP+TP; memory per chip",
    },
    WidgetSpec {
        name: "training-planner",
        args: &["model", "chip", "slice", "pods", "scheme", "tp", "batch", "tokens", "mfu"],
        doc: "a LLaMA 3 training run: step time, MFU ceiling, memory per chip, days and chip-hours",
    },
    WidgetSpec {
        name: "inference-roofline",
        args: &["model", "chip", "weight", "compute", "phase", "b", "seq"],
        doc: "prefill or decode on one roofline: a layer's weight matmuls and its attention as two points",
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
        name: "gpu",
        args: &["gpu", "gpus", "op", "bytes"],
        doc: "GPU cluster layout, collective cost inside and across NVLink domains, GPU and TPU rooflines",
    },
    WidgetSpec {
        name: "profile",
        args: &["model", "chip", "slice", "scheme", "tp", "batch", "overlap", "layers"],
        doc: "a synthetic trace of one training step: TensorCore and ICI lanes, overlap, budget, top ops, find the bottleneck",
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
