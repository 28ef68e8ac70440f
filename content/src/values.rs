//! Value directives: every number a chapter's prose shows, computed by `core`.
//!
//! The table [`VALUES`] lists each directive with its arguments and what it
//! computes; [`evaluate`] runs one. A chapter never types a hardware or model
//! number itself: it writes `{{ridge chip=v5e}}` and the build inserts `240`.
//!
//! ```
//! use ridgeline_content::directive::Directive;
//! use ridgeline_content::values::evaluate;
//!
//! let d = Directive::parse("ridge chip=v5e dtype=bf16").unwrap();
//! assert_eq!(evaluate(&d).unwrap(), "240");
//! let d = Directive::parse("time flops=1e12 chip=h100").unwrap();
//! assert_eq!(evaluate(&d).unwrap(), "1.01 ms");
//! ```

use crate::directive::Directive;
use ridgeline_core::dtype::Dtype;
use ridgeline_core::format::{grouped, sci, si};
use ridgeline_core::hardware::{chip, Chip, Link};
use ridgeline_core::roofline::ops::{Op, OpKind};
use ridgeline_core::roofline::SplitContraction;
use ridgeline_core::units::{Flops, Intensity};

/// One value directive a chapter may use.
#[derive(Debug, Clone, Copy)]
pub struct ValueSpec {
    /// Directive name.
    pub name: &'static str,
    /// Arguments it accepts.
    pub args: &'static [&'static str],
    /// What it computes (for the chapter-writing guide and error messages).
    pub doc: &'static str,
}

/// Every value directive.
pub const VALUES: &[ValueSpec] = &[
    ValueSpec {
        name: "input",
        args: &["value", "unit", "name"],
        doc: "a scenario input the chapter chooses for an example (not a result): value=1024 unit=sequences, printed through core::format; name= says what it is",
    },
    ValueSpec {
        name: "mxu",
        args: &["chip", "show"],
        doc: "a TPU's MXU systolic array: show=array (128×128, the default) or side",
    },
    ValueSpec {
        name: "wrap",
        args: &["chip", "show"],
        doc: "the smallest slice whose axes wrap around: show=length (of an axis) or cube (the whole shape)",
    },
    ValueSpec {
        name: "chip-name",
        args: &["chip"],
        doc: "display name of a chip",
    },
    ValueSpec {
        name: "peak",
        args: &["chip", "dtype", "fmt"],
        doc: "dense peak FLOPs/s of a chip in a format",
    },
    ValueSpec {
        name: "bw",
        args: &["chip", "link", "fmt", "dir"],
        doc: "bandwidth of one of a chip's links (dir=one-way for ICI's one-way figure)",
    },
    ValueSpec {
        name: "hbm",
        args: &["chip", "fmt"],
        doc: "HBM capacity of a chip",
    },
    ValueSpec {
        name: "ridge",
        args: &["chip", "dtype", "link", "dir", "fmt"],
        doc: "ridge point C/W of a chip for a format and link, FLOPs per byte",
    },
    ValueSpec {
        name: "critical-batch",
        args: &["chip", "act", "weight", "d", "f"],
        doc: "token batch above which a matmul is compute-bound (B ≪ D, F unless d, f given)",
    },
    ValueSpec {
        name: "time",
        args: &["flops", "chip", "dtype"],
        doc: "time to run a number of FLOPs at a chip's peak",
    },
    ValueSpec {
        name: "intensity",
        args: &["op", "b", "d", "f", "act", "weight"],
        doc: "arithmetic intensity of an op",
    },
    ValueSpec {
        name: "asymptote",
        args: &["op", "dtype", "d", "f"],
        doc: "the intensity an op tends to as its batch grows",
    },
    ValueSpec {
        name: "split-critical-d",
        args: &["chip", "dir"],
        doc: "contracting dimension above which the two-chip split is compute-bound",
    },
    ValueSpec {
        name: "ratio",
        args: &["chip", "dtype", "over"],
        doc: "how many times faster HBM is than another link, or peak in one format over another",
    },
    ValueSpec { name: "hop-latency", args: &[], doc: "the per-hop ICI latency the book assumes" },
    ValueSpec { name: "latency-knee", args: &["chip"], doc: "bytes per hop below which an ICI transfer is latency-bound" },
    ValueSpec { name: "pod-chips", args: &["chip", "what"], doc: "chips (or hosts, what=hosts) in a TPU's largest ICI domain" },
    ValueSpec { name: "collective-ratio", args: &["op", "over", "n"], doc: "how many times longer one collective takes than another on a bidirectional ring of n devices (large arrays)" },
    ValueSpec { name: "vmem-ratio", args: &[], doc: "how many times HBM bandwidth VMEM delivers" },
    // Parts 4-6 (Transformer math, training parallelism, LLaMA 3 training).
    ValueSpec { name: "model-params", args: &["model", "part", "fmt"], doc: "a preset's parameters (part=total, mlp, attention, vocab, norms, layers), in billions unless fmt=sci" },
    ValueSpec { name: "model-dim", args: &["model", "dim"], doc: "one dimension of a preset (dim=d, f, l, n, k, h, v)" },
    ValueSpec { name: "attention-crossover", args: &["model", "rule"], doc: "context length where dot-product attention FLOPs equal the rest of a layer (rule=8d: the book's 8·D)" },
    ValueSpec { name: "kv-per-token", args: &["model", "dtype"], doc: "KV-cache bytes per token of a preset" },
    ValueSpec { name: "ici-critical-batch", args: &["chip", "axes"], doc: "tokens per chip above which DP/FSDP over ICI is compute-bound (α / axes)" },
    ValueSpec { name: "tp-max-degree", args: &["chip", "model", "axes"], doc: "the widest compute-bound tensor parallelism, axes·F/α" },
    ValueSpec { name: "fsdp-tp-critical", args: &["chip", "model"], doc: "tokens per chip above which FSDP (2 axes) × TP (1 axis) is compute-bound, α²/(2F)" },
    ValueSpec { name: "dcn-critical", args: &["chip"], doc: "tokens per pod above which data parallelism across pods is compute-bound, C/W_dcn" },
    ValueSpec { name: "max-dp-params", args: &["chip"], doc: "the largest model whose Adam state fits in one chip's HBM, in billions" },
    ValueSpec { name: "train-flops", args: &["model", "tokens"], doc: "training FLOPs, 6 · params · tokens" },
    ValueSpec { name: "train-days", args: &["model", "chip", "tokens", "mfu", "pods"], doc: "days to train on full pods at an MFU (a fraction)" },
    ValueSpec { name: "tokens-per-chip", args: &["chip", "batch", "pods"], doc: "global batch over the chips of full pods" },
    ValueSpec { name: "x-opt", args: &["model", "chip", "batch"], doc: "the FSDP degree minimising FSDP+TP communication on a full pod, sqrt(2BN/F)" },    ValueSpec { name: "kv-sequence", args: &["model", "dtype", "seq"], doc: "KV-cache bytes of one sequence of a preset (Parts 7-8)" },
    ValueSpec { name: "param-bytes", args: &["model", "dtype"], doc: "bytes of a preset's weights in a format" },
    ValueSpec { name: "min-slice", args: &["model", "chip", "dtype"], doc: "the smallest power-of-two slice whose HBM holds a preset's weights" },
    ValueSpec { name: "step-time", args: &["model", "chip", "chips", "dtype", "batch", "seq"], doc: "decode step time of a preset on a slice, weights and KV in dtype, FLOPs in bf16" },
    ValueSpec { name: "max-batch", args: &["model", "chip", "chips", "dtype", "seq"], doc: "the most sequences whose KV caches fit beside the weights on a slice" },
    ValueSpec { name: "gpu-dp-tokens", args: &["chip", "scope"], doc: "per-GPU tokens data parallelism needs inside a node (scope=node) or across nodes (scope=network)" },
    ValueSpec { name: "gpus-per-node", args: &["chip"], doc: "GPUs in one NVLink domain" },
    ValueSpec { name: "gpu-fact", args: &["fact", "chip"], doc: "a Part 12 number by name (see `ridgeline_core::gpu::facts::FACTS`); chip= where the fact needs one" },
    ValueSpec { name: "layer-params", args: &["model", "show"], doc: "parameters of one layer of a preset: show=attention (default), mlp, q, kv or embedding" },
    ValueSpec { name: "moe-value", args: &["model", "chip", "dtype", "show"], doc: "an MoE preset on a chip: show=critical (batch where experts turn compute-bound), total, active, experts, k, sparsity" },
    ValueSpec { name: "remat-cost", args: &["model", "policy", "batch", "seq", "show"], doc: "a checkpointing policy (none, selected, per-layer, full): show=flops (per param per token) or memory" },
    ValueSpec { name: "pipeline-bubble", args: &["stages", "microbatches", "schedule", "chunks"], doc: "the bubble of a pipeline schedule (gpipe, 1f1b, interleaved, bidirectional), simulated" },
    ValueSpec { name: "fsdp-tp-split", args: &["chip", "model", "mesh", "batch", "show"], doc: "the FSDP × tensor split the training roofline uses: show=critical (its tokens per chip), fsdp or tp" },
    ValueSpec { name: "run-default", args: &["what"], doc: "Part 6's run assumption from core: what=tokens, mfu, sequences, seq, batch, pods or model" },
    ValueSpec { name: "train-memory", args: &["model", "chip", "batch", "checkpoints", "show"], doc: "Part 6's memory ledger (bf16 params, Adam, checkpoints per layer): show=params, optimizer, checkpoints, total, min-chips, per-chip" },
    ValueSpec { name: "seq-shards", args: &["chip", "tp"], doc: "sequence-sharding degree of FSDP over a full pod beside tp-way tensor parallelism (a whole divisor)" },
    // Parts 7-10 in depth (`parts710_values`).
    ValueSpec { name: "theory-table", args: &["model", "chip", "chips", "batch", "seq", "kv", "show"], doc: "Part 7's memory-bound LLaMA 2-13B table at one batch (kv= replaces the KV heads): show=step, tps, kv, total" },
    ValueSpec { name: "serve-metric", args: &["model", "chip", "chips", "dtype", "batch", "prompt", "output", "show"], doc: "serving metrics of a preset: show=ttft, itl, tps (per chip) or usd (per million tokens at the book's price)" },
    ValueSpec { name: "spec-sampling", args: &["draft", "accept", "cost", "show"], doc: "speculative sampling: show=tokens (per target step), speedup, or best (draft length)" },
    ValueSpec { name: "ws-crossover", args: &["ratio"], doc: "chips above which 2D weight-stationary sharding beats 1D, for F = ratio·D" },
    ValueSpec { name: "kv-shard", args: &["show"], doc: "KV sharding over heads and batch (LLaMA 3-70B shape, 8x4 v5e, batch 32): show=ratio, per-chip, alltoall" },
    ValueSpec { name: "handover", args: &["batch", "prefill", "decode", "show"], doc: "KV tokens freed (show=evicted, B(P+G)/G) or refilled (show=inserted, BP/G) per decode step" },
    ValueSpec { name: "serve-sim", args: &["layout", "show"], doc: "the serving simulation's default run: show=ttft-p50, ttft-p95, itl-p50, itl-p95, hit-rate, requests" },
    ValueSpec { name: "overlap-time", args: &["show"], doc: "Part 10's collective matmul: show=overlapped, blocking, matmul (core), or book-blocking, book-overlapped, book-matmul" },
    // Parts 0-3 in depth (`parts03_values`).
    ValueSpec { name: "strong-scaling", args: &["chip", "params", "tokens", "chips", "show"], doc: "a fixed step over more chips, gradients all-reduced on one ring: show=efficiency (default), step, compute, comms" },
    ValueSpec { name: "tile-intensity", args: &["bm", "bk", "bn", "show"], doc: "FLOPs per byte of a bf16 matmul tile: show=approx (bm·bn/(bm+bn), default) or exact" },
    ValueSpec { name: "link-step", args: &["chip", "link", "over"], doc: "how many times faster one TPU path (hbm, ici per link, pcie, dcn) is than another" },
    ValueSpec { name: "ridge-via", args: &["chip", "link", "via"], doc: "a chip's bf16 peak over a link bandwidth taken from another chip (a problem's fixed figure)" },
    ValueSpec { name: "systolic-cycles", args: &["k", "n", "m", "blocks", "pipelined"], doc: "cycles a k×n weight-stationary systolic array takes for blocks of m rows (pipelined=yes or no), emulated" },
    ValueSpec { name: "collective-matmul", args: &["chip", "n", "i", "j", "k", "case", "show"], doc: "a collective matmul on a ring of n (case=allgather, the default, or reducescatter for Part 3's case 3): show=saved (default), blocking, overlapped, compute, gather (the blocking collective)" },
    ValueSpec { name: "gather-knee", args: &["chip", "n", "show"], doc: "the AllGather cost model's latency knee on a ring of n (show=knee), or the book's measurement (measured-at, measured-fraction)" },
    ValueSpec { name: "layer-share", args: &["model", "seq", "show"], doc: "share of one layer's forward FLOPs by kind at a context length: show=other (norms, softmax, adds), matmul or attention" },
    ValueSpec { name: "tiling", args: &["dtype", "dims", "tile", "show"], doc: "an HLO array padded to whole tiles (Part 9): show=blowup (default), padded, bytes or padded-bytes; dims=3,5 tile=2,2" },
];

pub(crate) fn chip_arg(d: &Directive) -> Result<&'static Chip, String> {
    let id = d
        .arg("chip")
        .ok_or_else(|| format!("`{}` needs chip=", d.name))?;
    chip(id).ok_or_else(|| format!("unknown chip `{id}`"))
}

fn dtype_arg(d: &Directive, key: &str, default: Dtype) -> Result<Dtype, String> {
    match d.arg(key) {
        None => Ok(default),
        Some(t) => Dtype::parse(t).ok_or_else(|| format!("unknown dtype `{t}`")),
    }
}

fn link_arg(d: &Directive) -> Result<Link, String> {
    match d.arg("link") {
        None => Ok(Link::Hbm),
        Some(t) => Link::parse(t).ok_or_else(|| format!("unknown link `{t}`")),
    }
}

pub(crate) fn num_arg(d: &Directive, key: &str, default: Option<f64>) -> Result<f64, String> {
    match d.arg(key) {
        None => default.ok_or_else(|| format!("`{}` needs {key}=", d.name)),
        Some(t) => t
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite() && *x > 0.0)
            .ok_or_else(|| format!("{key}=`{t}` is not a positive number")),
    }
}

fn fmt_value(d: &Directive, x: f64, unit: &str) -> Result<String, String> {
    match d.arg("fmt").unwrap_or("sci") {
        "sci" => Ok(sci(x, 3)),
        "si" => Ok(si(x, unit, 3)),
        "int" => Ok(grouped(x)),
        other => Err(format!("unknown fmt `{other}` (sci, si, int)")),
    }
}

fn bandwidth(c: &Chip, d: &Directive) -> Result<f64, String> {
    let link = link_arg(d)?;
    let spec = c
        .link(link)
        .ok_or_else(|| format!("{} has no {} link", c.name, link.name()))?;
    match d.arg("dir") {
        None | Some("bidi") => Ok(spec.bandwidth.0),
        Some("one-way") => spec
            .one_way
            .map(|w| w.0)
            .ok_or_else(|| format!("{} {} has no separate one-way figure", c.name, link.name())),
        Some(o) => Err(format!("unknown dir `{o}` (bidi, one-way)")),
    }
}

fn op_arg(d: &Directive) -> Result<Op, String> {
    let kind = d.arg("op").unwrap_or("matmul");
    let kind = OpKind::parse(kind).ok_or_else(|| format!("unknown op `{kind}`"))?;
    let act = dtype_arg(d, "act", dtype_arg(d, "dtype", Dtype::Bf16)?)?;
    let weight = dtype_arg(d, "weight", act)?;
    Ok(kind.build(
        num_arg(d, "b", Some(1.0))?,
        num_arg(d, "d", Some(8192.0))?,
        num_arg(d, "f", Some(8192.0))?,
        act,
        weight,
    ))
}

/// Evaluates a value directive to the text the reader sees.
///
/// Arguments that drive a formula out of range (a dimension of `1e-308` whose
/// intensity is `0/0`) are rejected with a message rather than shown as `NaN`.
pub fn evaluate(d: &Directive) -> Result<String, String> {
    let text = compute(d)?;
    // Every formatter writes a non-finite number with one of these.
    if ["NaN", "inf", "∞", "—"]
        .iter()
        .any(|bad| text.contains(bad))
    {
        return Err(format!("{d} has no finite value ({text})"));
    }
    Ok(text)
}

/// A scenario input (see [`crate::lint`]): whole numbers grouped (`1,024`), others
/// in the book's notation (`0.5`, `1.5e13`); `%` and `x` follow the number directly,
/// and `_` in a unit is a space (`unit=trillion_tokens`).
fn input_value(d: &Directive) -> Result<String, String> {
    let text = d.arg("value").ok_or("`input` needs value=")?;
    let x: f64 = text
        .parse()
        .ok()
        .filter(|x: &f64| x.is_finite())
        .ok_or_else(|| format!("input value=`{text}` is not a number"))?;
    let number = if x.fract() == 0.0 && x.abs() < 1e7 {
        grouped(x)
    } else {
        sci(x, 3)
    };
    Ok(match d.arg("unit") {
        None => number,
        Some(u @ ("%" | "x" | "×")) => format!("{number}{u}"),
        Some(u) => format!("{number} {}", u.replace('_', " ")),
    })
}

/// The side of a TPU's MXU from core's TensorCore table, as an array or a length.
fn mxu_value(d: &Directive) -> Result<String, String> {
    let c = chip_arg(d)?;
    let core = ridgeline_core::hardware::tensor_core(c.id)
        .ok_or_else(|| format!("{} has no TensorCore in the registry", c.name))?;
    let side = grouped(core.mxu_side.value as f64);
    match d.arg("show").unwrap_or("array") {
        "array" => Ok(format!("{side}×{side}")),
        "side" => Ok(side),
        o => Err(format!("`mxu`: unknown show=`{o}` (array, side)")),
    }
}

/// The smallest cube-shaped slice core's torus model gives wraparound links, found
/// by asking `core::hardware::tpu::Slice` about each size in turn.
fn wrap_value(d: &Directive) -> Result<String, String> {
    use ridgeline_core::hardware::tpu::Slice;
    let c = chip_arg(d)?;
    let dims = match c.topology {
        ridgeline_core::hardware::Topology::Torus { dims, .. } => dims as usize,
        _ => return Err(format!("{} is not a TPU torus", c.name)),
    };
    let n = (1u32..=64)
        .find(|&n| Slice::new(c, &vec![n; dims]).is_ok_and(|s| s.wrap()[..dims].iter().all(|&w| w)))
        .ok_or_else(|| format!("no small slice of {} wraps around", c.name))?;
    let side = grouped(n as f64);
    match d.arg("show").unwrap_or("length") {
        "length" => Ok(side),
        "cube" => Ok(vec![side; dims].join("×")),
        o => Err(format!("`wrap`: unknown show=`{o}` (length, cube)")),
    }
}

/// The text of a value directive, before the check for non-finite numbers.
fn compute(d: &Directive) -> Result<String, String> {
    let spec = VALUES
        .iter()
        .find(|s| s.name == d.name)
        .ok_or_else(|| format!("unknown value directive `{}`", d.name))?;
    d.check_args(spec.args)?;
    if !d.positional.is_empty() {
        return Err(format!("`{}` takes only key=value arguments", d.name));
    }
    match d.name.as_str() {
        "input" => input_value(d),
        "mxu" => mxu_value(d),
        "wrap" => wrap_value(d),
        "chip-name" => Ok(chip_arg(d)?.name.to_string()),
        "peak" => {
            let c = chip_arg(d)?;
            let dt = dtype_arg(d, "dtype", Dtype::Bf16)?;
            let p = c
                .peak(dt)
                .ok_or_else(|| format!("{} has no {dt} peak", c.name))?;
            fmt_value(d, p.0, "FLOPs/s")
        }
        "bw" => {
            let c = chip_arg(d)?;
            fmt_value(d, bandwidth(c, d)?, "B/s")
        }
        "hbm" => fmt_value(d, chip_arg(d)?.hbm_capacity.value.0, "B"),
        "ridge" => {
            let c = chip_arg(d)?;
            let dt = dtype_arg(d, "dtype", Dtype::Bf16)?;
            let p = c
                .peak(dt)
                .ok_or_else(|| format!("{} has no {dt} peak", c.name))?;
            let r = p.0 / bandwidth(c, d)?;
            match d.arg("fmt") {
                Some("int") => Ok(grouped(r)),
                _ => Ok(sci(r, 3)),
            }
        }
        "hop-latency" => Ok(si(
            ridgeline_core::hardware::ICI_HOP_LATENCY.value.0,
            "s",
            2,
        )),
        "vmem-ratio" => Ok(sci(ridgeline_core::hardware::VMEM_OVER_HBM.value, 2)),
        "latency-knee" => {
            let c = chip_arg(d)?;
            let net =
                ridgeline_core::comms::collectives::Network::ici(c).map_err(|e| e.to_string())?;
            Ok(si(net.latency_threshold().0, "B", 2))
        }
        "pod-chips" => {
            let c = chip_arg(d)?;
            let pod =
                ridgeline_core::hardware::tpu::Slice::full_pod(c).map_err(|e| e.to_string())?;
            match d.arg("what").unwrap_or("chips") {
                "chips" => Ok(grouped(pod.chips() as f64)),
                "hosts" => Ok(grouped(pod.hosts() as f64)),
                o => Err(format!("unknown what=`{o}` (chips, hosts)")),
            }
        }
        "collective-ratio" => {
            use ridgeline_core::comms::collectives::{cost, Collective, Network, RingAxis};
            let parse = |key: &str| {
                let t = d
                    .arg(key)
                    .ok_or_else(|| format!("`collective-ratio` needs {key}="))?;
                Collective::parse(t).ok_or_else(|| format!("unknown collective `{t}`"))
            };
            let (a, b) = (parse("op")?, parse("over")?);
            let n = num_arg(d, "n", Some(16.0))? as u32;
            let net = Network::ici(chip("v5e").ok_or("no v5e in the registry")?)
                .map_err(|e| e.to_string())?;
            let t = |c| {
                cost(
                    c,
                    ridgeline_core::units::Bytes(1e12),
                    &[RingAxis::ring(n)],
                    &net,
                )
                .map(|k| k.time.0)
                .map_err(|e| e.to_string())
            };
            Ok(sci(t(a)? / t(b)?, 2))
        }
        "critical-batch" => {
            let c = chip_arg(d)?;
            let act = dtype_arg(d, "act", Dtype::Bf16)?;
            let weight = dtype_arg(d, "weight", act)?;
            let big = 1e12;
            let op = Op::Matmul {
                b: 1.0,
                d: num_arg(d, "d", Some(big))?,
                f: num_arg(d, "f", Some(big))?,
                act,
                weight,
            };
            let dt = op.compute_dtype();
            let ridge = c
                .ridge(dt, Link::Hbm)
                .ok_or_else(|| format!("{} has no {dt} peak", c.name))?;
            let b = op
                .critical_batch(ridge)
                .ok_or_else(|| "this matmul never becomes compute-bound".to_string())?;
            Ok(sci(b, 3))
        }
        "time" => {
            let c = chip_arg(d)?;
            let dt = dtype_arg(d, "dtype", Dtype::Bf16)?;
            let p = c
                .peak(dt)
                .ok_or_else(|| format!("{} has no {dt} peak", c.name))?;
            Ok(si((Flops(num_arg(d, "flops", None)?) / p).0, "s", 3))
        }
        "intensity" => Ok(sci(op_arg(d)?.intensity().0, 3)),
        "asymptote" => Ok(sci(op_arg(d)?.asymptotic_intensity().0, 3)),
        "split-critical-d" => {
            let c = chip_arg(d)?;
            let mut ici = d.clone();
            ici.args.retain(|(k, _)| k != "link");
            ici.args.push(("link".into(), "ici".into()));
            let w = bandwidth(c, &ici)?;
            let p = c.peak(Dtype::Bf16).ok_or("no bf16 peak")?;
            Ok(grouped(SplitContraction::critical_d(
                p,
                ridgeline_core::units::BytesPerSec(w),
            )))
        }
        "ratio" => {
            let c = chip_arg(d)?;
            let over = d.arg("over").ok_or("`ratio` needs over=")?;
            if let Some(l) = Link::parse(over) {
                let w = c
                    .bandwidth(l)
                    .ok_or_else(|| format!("{} has no {over} link", c.name))?;
                Ok(sci(c.hbm_bw() / w, 2))
            } else if let Some(dt) = Dtype::parse(over) {
                let a = dtype_arg(d, "dtype", Dtype::Bf16)?;
                let num = c
                    .peak(a)
                    .ok_or_else(|| format!("{} has no {a} peak", c.name))?;
                let den = c
                    .peak(dt)
                    .ok_or_else(|| format!("{} has no {dt} peak", c.name))?;
                Ok(sci(Intensity(num / den).0, 2))
            } else {
                Err(format!("over=`{over}` is neither a link nor a dtype"))
            }
        }
        "model-params"
        | "model-dim"
        | "attention-crossover"
        | "kv-per-token"
        | "ici-critical-batch"
        | "tp-max-degree"
        | "fsdp-tp-critical"
        | "dcn-critical"
        | "max-dp-params"
        | "train-flops"
        | "train-days"
        | "tokens-per-chip"
        | "x-opt" => training_value(d),
        "kv-sequence" | "param-bytes" | "min-slice" | "step-time" | "max-batch"
        | "gpu-dp-tokens" | "gpus-per-node" => inference_value(d),
        "tiling" => tiling_value(d),
        name if crate::depth_values::NAMES.contains(&name) => crate::depth_values::evaluate(d),
        name if crate::parts03_values::NAMES.contains(&name) => crate::parts03_values::evaluate(d),
        name if crate::parts710_values::NAMES.contains(&name) => {
            crate::parts710_values::evaluate(d)
        }
        "gpu-fact" => ridgeline_core::gpu::facts::fact(
            d.arg("fact").ok_or("`gpu-fact` needs fact=")?,
            d.arg("chip"),
        ),
        other => Err(format!(
            "value directive `{other}` is listed but not implemented"
        )),
    }
}

/// The value directives of Parts 7, 8 and 12: serving memory and step times, GPU thresholds.
fn inference_value(d: &Directive) -> Result<String, String> {
    use ridgeline_core::inference::{
        decode_step, max_batch, min_slice_chips, Precision, ServingModel, ServingSlice,
    };
    let e = |e: ridgeline_core::inference::InferenceError| e.to_string();
    let serving =
        || -> Result<ServingModel, String> { ServingModel::new(model_arg(d)?).map_err(e) };
    let slice = || -> Result<ServingSlice, String> {
        ServingSlice::new(chip_arg(d)?, num_arg(d, "chips", None)? as u64).map_err(e)
    };
    let stored = || -> Result<Precision, String> {
        Ok(Precision::stored(dtype_arg(d, "dtype", Dtype::Bf16)?))
    };
    match d.name.as_str() {
        "kv-sequence" => {
            let m = serving()?;
            let b = m
                .kv_per_sequence(
                    num_arg(d, "seq", None)?,
                    dtype_arg(d, "dtype", Dtype::Bf16)?,
                )
                .map_err(e)?;
            Ok(si(b.0, "B", 3))
        }
        "param-bytes" => Ok(si(
            serving()?
                .param_bytes(dtype_arg(d, "dtype", Dtype::Bf16)?)
                .0,
            "B",
            3,
        )),
        "min-slice" => {
            let m = serving()?;
            let n = min_slice_chips(
                m.param_bytes(dtype_arg(d, "dtype", Dtype::Bf16)?),
                chip_arg(d)?,
            )
            .map_err(e)?;
            Ok(grouped(n as f64))
        }
        "step-time" => {
            let (m, s, p) = (serving()?, slice()?, stored()?);
            let w = m
                .workload(p, num_arg(d, "batch", None)?, num_arg(d, "seq", None)?)
                .map_err(e)?;
            Ok(si(
                decode_step(&w, &s, p.compute).map_err(e)?.total.0,
                "s",
                3,
            ))
        }
        "max-batch" => {
            let b = max_batch(&serving()?, stored()?, &slice()?, num_arg(d, "seq", None)?)
                .map_err(e)?;
            Ok(grouped(b as f64))
        }
        "gpu-dp-tokens" => {
            use ridgeline_core::gpu::{GpuSystem, Scope};
            let id = d.arg("chip").ok_or("`gpu-dp-tokens` needs chip=")?;
            let sys = GpuSystem::from_id(id, Dtype::Bf16).map_err(|e| e.to_string())?;
            let scope = match d.arg("scope").unwrap_or("node") {
                "node" => Scope::Node,
                "network" => Scope::Network,
                o => return Err(format!("unknown scope `{o}` (node, network)")),
            };
            Ok(grouped(sys.dp_threshold(scope).map_err(|e| e.to_string())?))
        }
        "gpus-per-node" => {
            let id = d.arg("chip").ok_or("`gpus-per-node` needs chip=")?;
            let sys = ridgeline_core::gpu::GpuSystem::from_id(id, Dtype::Bf16)
                .map_err(|e| e.to_string())?;
            Ok(grouped(f64::from(sys.gpus_per_node)))
        }
        other => Err(format!("`{other}` is not an inference value")),
    }
}

/// The `tiling` directive (Part 9): padding of an array laid out in whole tiles.
fn tiling_value(d: &Directive) -> Result<String, String> {
    use ridgeline_core::profiling::TiledArray;
    let list = |key: &str| -> Result<Vec<u64>, String> {
        let t = d.arg(key).ok_or_else(|| format!("`tiling` needs {key}="))?;
        t.split(',')
            .map(|x| {
                x.trim()
                    .parse::<u64>()
                    .map_err(|_| format!("{key}=`{t}` is not a list of whole numbers"))
            })
            .collect()
    };
    let a = TiledArray::new(
        dtype_arg(d, "dtype", Dtype::F32)?,
        &list("dims")?,
        &list("tile")?,
    )
    .map_err(|e| e.to_string())?;
    let dims = |v: &[u64]| {
        v.iter()
            .map(|x| grouped(*x as f64))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match d.arg("show").unwrap_or("blowup") {
        "blowup" => Ok(sci(a.blowup(), 3)),
        "padded" => Ok(format!("[{}]", dims(&a.padded_shape()))),
        "bytes" => Ok(si(a.logical_bytes().0, "B", 3)),
        "padded-bytes" => Ok(si(a.padded_bytes().0, "B", 3)),
        o => Err(format!(
            "unknown show=`{o}` (blowup, padded, bytes, padded-bytes)"
        )),
    }
}

pub(crate) fn model_arg(
    d: &Directive,
) -> Result<ridgeline_core::model::config::ModelConfig, String> {
    let id = d.arg("model").unwrap_or("llama3-70b");
    ridgeline_core::model::config::try_model(id)
        .map(|m| m.config)
        .map_err(|e| e.to_string())
}

fn billions(x: f64) -> String {
    format!("{}B", sci(x / 1e9, 3))
}

/// The value directives of Parts 4-6: model sizes, training thresholds and run lengths.
fn training_value(d: &Directive) -> Result<String, String> {
    use ridgeline_core::model::accounting as tf;
    use ridgeline_core::training::{self as tr, Cluster};
    let err = |e: tr::TrainingError| e.to_string();
    let alpha = |c: &Chip| tr::ici_intensity(c, Dtype::Bf16).map_err(err);
    let pod = |c: &'static Chip, pods: f64| Cluster::full_pod(c, pods as u32).map_err(err);
    match d.name.as_str() {
        "model-params" => {
            let cfg = model_arg(d)?;
            let p = tf::params(&cfg);
            let x = match d.arg("part").unwrap_or("total") {
                "total" => p.total(),
                "mlp" => p.mlp,
                "attention" => p.attention,
                "vocab" => p.vocab(),
                "norms" => p.norms,
                "layers" => p.mlp + p.attention + p.router,
                o => {
                    return Err(format!(
                        "unknown part `{o}` (total, mlp, attention, vocab, norms, layers)"
                    ))
                }
            };
            match d.arg("fmt") {
                None | Some("b") => Ok(billions(x)),
                Some("sci") => Ok(sci(x, 3)),
                Some("int") => Ok(grouped(x)),
                Some(o) => Err(format!("unknown fmt `{o}` (b, sci, int)")),
            }
        }
        "model-dim" => {
            let c = model_arg(d)?;
            let v = match d.arg("dim").unwrap_or("d") {
                "d" => c.d_model,
                "f" => c.d_ff,
                "l" => c.layers,
                "n" => c.heads,
                "k" => c.kv_heads,
                "h" => c.head_dim,
                "v" => c.vocab,
                o => return Err(format!("unknown dim `{o}` (d, f, l, n, k, h, v)")),
            };
            Ok(grouped(v as f64))
        }
        "attention-crossover" => {
            let cfg = model_arg(d)?;
            match d.arg("rule") {
                Some("8d") => Ok(grouped(8.0 * cfg.d_model as f64)),
                None | Some("exact") => Ok(grouped(tf::attention_crossover(&cfg))),
                Some(o) => Err(format!("unknown rule `{o}` (8d, exact)")),
            }
        }
        "kv-per-token" => {
            let cfg = model_arg(d)?;
            let dt = dtype_arg(d, "dtype", Dtype::Bf16)?;
            Ok(si(tf::kv_bytes_per_token(&cfg, dt).0, "B", 3))
        }
        "ici-critical-batch" => {
            let c = chip_arg(d)?;
            let axes = num_arg(d, "axes", Some(1.0))?;
            Ok(grouped(tr::dp_critical_tokens_per_chip(alpha(c)?, axes)))
        }
        "tp-max-degree" => {
            let c = chip_arg(d)?;
            let cfg = model_arg(d)?;
            let axes = num_arg(d, "axes", Some(1.0))?;
            Ok(sci(tr::tp_max_degree(cfg.d_ff as f64, alpha(c)?, axes), 3))
        }
        "fsdp-tp-critical" => {
            let c = chip_arg(d)?;
            let cfg = model_arg(d)?;
            Ok(grouped(tr::fsdp_tp_critical_tokens_per_chip(
                alpha(c)?,
                cfg.d_ff as f64,
                2.0,
                1.0,
            )))
        }
        "dcn-critical" => {
            let c = chip_arg(d)?;
            Ok(grouped(tr::dcn_intensity(c, Dtype::Bf16).map_err(err)?.0))
        }
        "max-dp-params" => {
            let c = chip_arg(d)?;
            Ok(billions(
                tf::Optimizer::ADAM.max_params(c.hbm_capacity.value),
            ))
        }
        "train-flops" => {
            let cfg = model_arg(d)?;
            let tokens = num_arg(d, "tokens", None)?;
            Ok(sci(
                tf::training_flops_rule(tf::params(&cfg).total(), tokens).0,
                3,
            ))
        }
        "train-days" => {
            let cfg = model_arg(d)?;
            let c = chip_arg(d)?;
            let cl = pod(c, num_arg(d, "pods", Some(1.0))?)?;
            let peak = c
                .peak(Dtype::Bf16)
                .ok_or_else(|| format!("{} has no bf16 peak", c.name))?;
            let run = tr::estimate_run(
                tf::params(&cfg).total(),
                num_arg(d, "tokens", None)?,
                cl.chips(),
                peak,
                num_arg(d, "mfu", None)?,
            )
            .map_err(err)?;
            Ok(sci(run.days(), 2))
        }
        "tokens-per-chip" => {
            let c = chip_arg(d)?;
            let cl = pod(c, num_arg(d, "pods", Some(1.0))?)?;
            Ok(grouped(num_arg(d, "batch", None)? / cl.chips()))
        }
        "x-opt" => {
            let cfg = model_arg(d)?;
            let c = chip_arg(d)?;
            let cl = pod(c, 1.0)?;
            let b = num_arg(d, "batch", None)?;
            Ok(grouped(tr::optimal_fsdp(
                b,
                cfg.d_ff as f64,
                cl.chips(),
                2.0,
                1.0,
            )))
        }
        other => Err(format!("`{other}` is not a training value")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(s: &str) -> Result<String, String> {
        evaluate(&Directive::parse(s).unwrap())
    }

    #[test]
    fn book_numbers() {
        assert_eq!(eval("peak chip=v5e").unwrap(), "1.97e14");
        assert_eq!(eval("peak chip=v5e fmt=si").unwrap(), "197 TFLOPs/s");
        assert_eq!(eval("bw chip=v5e link=hbm").unwrap(), "8.2e11");
        assert_eq!(eval("critical-batch chip=v5e").unwrap(), "240");
        assert_eq!(eval("critical-batch chip=v5e weight=int8").unwrap(), "120");
        assert_eq!(eval("critical-batch chip=v5e act=int8").unwrap(), "240");
        assert_eq!(
            eval("split-critical-d chip=v5e dir=one-way").unwrap(),
            "8,756"
        );
        assert_eq!(eval("asymptote op=dot").unwrap(), "0.5");
        assert_eq!(eval("ridge chip=h100").unwrap(), "296");
        assert_eq!(eval("hbm chip=v5e fmt=si").unwrap(), "16 GB");
        assert_eq!(eval("chip-name chip=tpu7x").unwrap(), "TPU7x");
        assert_eq!(eval("ridge chip=v5p link=ici").unwrap(), "2550");
        assert_eq!(eval("ridge chip=v6e link=pcie fmt=int").unwrap(), "28,750");
        assert_eq!(eval("latency-knee chip=v5e").unwrap(), "45 kB");
        assert_eq!(eval("pod-chips chip=v5p").unwrap(), "8,960");
        assert_eq!(
            eval("collective-ratio op=allreduce over=allgather").unwrap(),
            "2"
        );
        assert_eq!(
            eval("collective-ratio op=alltoall over=allgather").unwrap(),
            "0.25"
        );
        // Parts 4-6.
        assert_eq!(eval("model-params model=llama3-70b").unwrap(), "70.6B");
        assert_eq!(
            eval("model-params model=llama3-70b part=mlp").unwrap(),
            "56.4B"
        );
        assert_eq!(
            eval("model-params model=llama3-70b part=vocab").unwrap(),
            "2.1B"
        );
        assert_eq!(eval("model-dim model=llama3-70b dim=f").unwrap(), "28,672");
        assert_eq!(
            eval("attention-crossover model=llama3-70b rule=8d").unwrap(),
            "65,536"
        );
        assert_eq!(eval("kv-per-token model=llama3-70b").unwrap(), "328 kB");
        assert_eq!(eval("ici-critical-batch chip=v5p").unwrap(), "2,550");
        assert_eq!(eval("ici-critical-batch chip=v5p axes=3").unwrap(), "850");
        assert_eq!(
            eval("tp-max-degree chip=v5p model=llama3-70b").unwrap(),
            "11.2"
        );
        assert_eq!(
            eval("fsdp-tp-critical chip=v5p model=llama3-70b").unwrap(),
            "113"
        );
        assert_eq!(
            eval("train-flops model=llama3-70b tokens=15e12").unwrap(),
            "6.35e24"
        );
        assert_eq!(
            eval("train-days model=llama3-70b chip=v5p tokens=15e12 mfu=0.4").unwrap(),
            "45"
        );
        assert_eq!(
            eval("tokens-per-chip chip=v5p batch=4194304").unwrap(),
            "468"
        );
        assert_eq!(
            eval("x-opt model=llama3-70b chip=v5p batch=4194304").unwrap(),
            "1,619"
        );
        assert!(eval("train-days model=gpt-9 chip=v5p tokens=1 mfu=0.4").is_err());
    }

    #[test]
    fn book_numbers_parts_7_8_12() {
        assert_eq!(
            eval("kv-sequence model=llama3-70b dtype=int8 seq=8192").unwrap(),
            "1.34 GB"
        );
        assert_eq!(
            eval("param-bytes model=llama3-70b dtype=int8").unwrap(),
            "70.6 GB"
        );
        assert_eq!(
            eval("min-slice model=llama3-70b chip=v5e dtype=bf16").unwrap(),
            "16"
        );
        assert_eq!(
            eval("min-slice model=llama3-70b chip=v5e dtype=int4").unwrap(),
            "4"
        );
        assert_eq!(
            eval("step-time model=llama3-70b chip=v5e chips=16 dtype=int8 batch=8 seq=2048")
                .unwrap(),
            "5.58 ms"
        );
        assert!(eval("max-batch model=llama3-70b chip=v5e chips=4 dtype=bf16 seq=2048").is_err());
        assert_eq!(eval("gpu-dp-tokens chip=h100 scope=node").unwrap(), "2,200");
        assert_eq!(
            eval("gpu-dp-tokens chip=h100 scope=network").unwrap(),
            "2,475"
        );
        assert_eq!(eval("gpus-per-node chip=gb200").unwrap(), "72");
        assert!(eval("gpus-per-node chip=v5e").is_err());
        // Part 9.
        assert_eq!(eval("tiling dtype=f32 dims=3,5 tile=2,2").unwrap(), "1.6");
        assert_eq!(
            eval("tiling dtype=f32 dims=3,5 tile=2,2 show=padded").unwrap(),
            "[4, 6]"
        );
        assert_eq!(
            eval("tiling dtype=f32 dims=3,5 tile=2,2 show=bytes").unwrap(),
            "60 B"
        );
        assert_eq!(
            eval("tiling dtype=f32 dims=3,5 tile=2,2 show=padded-bytes").unwrap(),
            "96 B"
        );
        assert!(eval("tiling dims=3,x tile=2").is_err());
        assert!(eval("tiling dims=3 tile=2,2").is_err());
    }

    #[test]
    fn every_listed_value_is_implemented() {
        for spec in VALUES {
            let mut d = Directive::parse(spec.name).unwrap();
            for a in spec.args {
                if let Some(v) = crate::depth_values::example_arg(spec.name, a)
                    .or_else(|| crate::parts03_values::example_arg(spec.name, a))
                    .or_else(|| crate::parts710_values::example_arg(spec.name, a))
                {
                    d.args.push((a.to_string(), v.to_string()));
                    continue;
                }
                let v = match (spec.name, *a) {
                    ("collective-ratio", "op") => "allreduce",
                    ("collective-ratio", "over") => "allgather",
                    ("gpu-dp-tokens" | "gpus-per-node", "chip") => "h100",
                    ("gpu-dp-tokens", "scope") => "network",
                    ("gpu-fact", "fact") => "cuda-cores",
                    ("gpu-fact", "chip") => "h100",
                    ("tiling", "show") => "blowup",
                    ("tiling", "dims") => "3,5",
                    ("tiling", "tile") => "2,2",
                    ("step-time" | "max-batch", "chips") => "16",
                    ("step-time" | "max-batch", "batch") => "64",
                    ("kv-sequence" | "step-time" | "max-batch", "seq") => "2048",
                    ("mxu", "show") => "side",
                    ("wrap", "show") => "cube",
                    (_, a) => match a {
                        "chip" => "v5e",
                        "dtype" | "act" | "weight" => "bf16",
                        "link" => "hbm",
                        "fmt" => "sci",
                        "dir" => "bidi",
                        "op" => "matmul",
                        "over" => "ici",
                        "what" => "chips",
                        "model" => "llama3-70b",
                        "part" => "total",
                        "dim" => "d",
                        "rule" => "8d",
                        "mfu" => "0.4",
                        "axes" | "pods" => "1",
                        "batch" => "4194304",
                        _ => "1024",
                    },
                };
                d.args.push((a.to_string(), v.to_string()));
            }
            let r = evaluate(&d);
            assert!(r.is_ok(), "{}: {:?}", spec.name, r);
        }
    }

    #[test]
    fn scenario_inputs_and_tpu_shapes() {
        assert_eq!(
            eval("input value=1024 unit=sequences").unwrap(),
            "1,024 sequences"
        );
        assert_eq!(eval("input value=40 unit=%").unwrap(), "40%");
        assert_eq!(
            eval("input value=15e12 unit=trillion_tokens").unwrap(),
            "1.5e13 trillion tokens"
        );
        assert!(eval("input value=abc").unwrap_err().contains("abc"));
        assert!(eval("input value=inf").is_err());
        // The book's Part 2: 128×128 MXUs, 256×256 on v6e; v5e axes wrap at 16,
        // v5p slices in whole 4×4×4 cubes.
        assert_eq!(eval("mxu chip=v5e").unwrap(), "128×128");
        assert_eq!(eval("mxu chip=v6e show=side").unwrap(), "256");
        assert_eq!(eval("wrap chip=v5e").unwrap(), "16");
        assert_eq!(eval("wrap chip=v5p show=cube").unwrap(), "4×4×4");
        assert!(eval("mxu chip=h100").is_err());
        assert!(eval("wrap chip=h100").is_err());
    }

    #[test]
    fn clear_errors() {
        assert!(eval("ridge chip=v9").unwrap_err().contains("unknown chip"));
        assert!(eval("ridge").unwrap_err().contains("chip="));
        assert!(eval("peak chip=v5e dtype=fp4")
            .unwrap_err()
            .contains("no fp4"));
        assert!(eval("nonsense").unwrap_err().contains("unknown value"));
        assert!(eval("ridge chip=v5e colour=red")
            .unwrap_err()
            .contains("colour"));
        assert!(eval("time chip=v5e flops=-1")
            .unwrap_err()
            .contains("positive"));
    }
}
