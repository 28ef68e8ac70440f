//! Roofline values (Parts 1 and 3): ridge points, the critical batch, the
//! intensity of an op and of a tiled matmul, the time to run FLOPs at peak, the
//! two-chip split of a contraction and strong scaling.

use super::args::{
    bandwidth_arg, chip_arg, dtype_arg, num_arg, peak_arg, required_link_arg, show_arg,
    unknown_show, whole_arg,
};
use super::entry::ValueDirective;
use crate::directive::Directive;
use ridgeline_core::dtype::Dtype;
use ridgeline_core::format::{grouped, sci, seconds, si, tokens};
use ridgeline_core::hardware::{chip, Link};
use ridgeline_core::roofline::ops::{tiled_intensity, tokens_per_device, Op, OpKind};
use ridgeline_core::roofline::strong_scaling::{strong_scaling, StrongScalingParams};
use ridgeline_core::roofline::SplitContraction;
use ridgeline_core::units::{BytesPerSec, Flops};

/// The roofline value directives.
pub const VALUES: &[ValueDirective] = &[
    ValueDirective {
        name: "ridge",
        args: &["chip", "dtype", "link", "dir", "fmt"],
        doc: "ridge point C/W of a chip for a format and link, FLOPs per byte",
        example: "ridge chip=v5p dtype=bf16 link=ici dir=bidi fmt=int",
        shows: "2,550",
        eval: ridge,
    },
    ValueDirective {
        name: "ridge-via",
        args: &["chip", "link", "via"],
        doc: "a chip's bf16 peak over a link bandwidth taken from another chip (a problem's \
              fixed figure)",
        example: "ridge-via chip=v6e link=pcie via=v5e",
        shows: "57,500",
        eval: ridge_via,
    },
    ValueDirective {
        name: "critical-batch",
        args: &["chip", "act", "weight", "d", "f"],
        doc: "token batch above which a matmul is compute-bound (B ≪ D, F unless d, f given)",
        example: "critical-batch chip=v5e act=bf16 weight=int8 d=8192 f=28672",
        shows: "125",
        eval: critical_batch,
    },
    ValueDirective {
        name: "prefill-attention-length",
        args: &["chip"],
        doc: "prompt length T above which prefill attention (intensity ST/(S+T) = T/2 with \
              S = T, bf16) is compute-bound: twice the chip's bf16 HBM ridge",
        example: "prefill-attention-length chip=v5e",
        shows: "480",
        eval: prefill_attention_length,
    },
    ValueDirective {
        name: "attainable",
        args: &["chip", "op", "b", "d", "f", "act", "weight"],
        doc: "FLOPs/s an op reaches on a chip reading HBM: its FLOPs over the larger of its \
              compute and HBM times (exact bytes)",
        example: "attainable chip=v5e op=matmul b=64 d=1024 f=1024 act=bf16 weight=int8",
        shows: "8.4e13",
        eval: attainable_value,
    },
    ValueDirective {
        name: "peak-share",
        args: &["chip", "show"],
        doc: "the share of its advertised peak a chip reaches in normal use (show=share, the \
              default) or the bf16 FLOPs/s that leaves (show=rate)",
        example: "peak-share chip=h100 show=share",
        shows: "80–85%",
        eval: peak_share,
    },
    ValueDirective {
        name: "vpu",
        args: &["chip", "show"],
        doc: "one TensorCore's vector unit: show=rate (FLOPs/s, the default) or ridge (over \
              the chip's HBM bandwidth)",
        example: "vpu chip=v5p show=ridge",
        shows: "2.6",
        eval: vpu,
    },
    ValueDirective {
        name: "token-batch",
        args: &["seqs", "len", "devices", "show"],
        doc: "a batch of sequences counted in tokens: show=total (default) or per-device",
        example: "token-batch seqs=512 len=4096 devices=2048 show=per-device",
        shows: "1,024",
        eval: token_batch,
    },
    ValueDirective {
        name: "time",
        args: &["flops", "chip", "dtype"],
        doc: "time to run a number of FLOPs at a chip's peak",
        example: "time flops=1e12 chip=h100 dtype=bf16",
        shows: "1.01 ms",
        eval: time,
    },
    ValueDirective {
        name: "intensity",
        args: &["op", "b", "d", "f", "act", "weight"],
        doc: "arithmetic intensity of an op",
        example: "intensity op=matmul b=1024 d=8192 f=8192 act=bf16 weight=bf16",
        shows: "819",
        eval: intensity,
    },
    ValueDirective {
        name: "asymptote",
        args: &["op", "dtype", "d", "f"],
        doc: "the intensity an op tends to as its batch grows",
        example: "asymptote op=dot dtype=bf16 d=1024 f=1024",
        shows: "0.5",
        eval: asymptote,
    },
    ValueDirective {
        name: "split-critical-d",
        args: &["chip", "dir"],
        doc: "contracting dimension above which the two-chip split is compute-bound",
        example: "split-critical-d chip=v5e dir=one-way",
        shows: "8,756",
        eval: split_critical_d,
    },
    ValueDirective {
        name: "tile-intensity",
        args: &["bm", "bk", "bn", "show"],
        doc: "FLOPs per byte of a bf16 matmul tile: show=approx (bm·bn/(bm+bn), default) or \
              exact",
        example: "tile-intensity bm=128 bk=128 bn=128 show=approx",
        shows: "64",
        eval: tile_intensity,
    },
    ValueDirective {
        name: "strong-scaling",
        args: &["chip", "params", "tokens", "chips", "show"],
        doc: "a fixed data-parallel step over more chips, gradients all-reduced over ICI inside \
              a slice and over DCN across slices, hidden behind the backward pass: \
              show=efficiency (default), step, compute, backward, comms, ici, dcn, slices, \
              domain (chips of the largest ICI domain)",
        example: "strong-scaling chip=v5e params=1e9 tokens=1048576 chips=4096 show=efficiency",
        shows: "31%",
        eval: strong_scaling_value,
    },
];

fn ridge(d: &Directive) -> Result<String, String> {
    let c = chip_arg(d)?;
    let p = peak_arg(d, c)?;
    let r = p.0 / bandwidth_arg(c, d)?;
    match d.arg("fmt") {
        Some("int") => Ok(grouped(r)),
        _ => Ok(sci(r, 3)),
    }
}

/// A chip's bf16 peak over a link bandwidth taken from another chip, as a
/// problem that fixes the bandwidth does.
fn ridge_via(d: &Directive) -> Result<String, String> {
    let c = chip_arg(d)?;
    let via = d.arg("via").ok_or("`ridge-via` needs via=")?;
    let other = chip(via).ok_or_else(|| format!("unknown chip `{via}`"))?;
    let l = required_link_arg(d, "link")?;
    let w = other
        .bandwidth(l)
        .ok_or_else(|| format!("{} has no {} link", other.name, l.name()))?;
    let p = c
        .peak(Dtype::Bf16)
        .ok_or_else(|| format!("{} has no bf16 peak", c.name))?;
    Ok(grouped(p.0 / w.0))
}

fn critical_batch(d: &Directive) -> Result<String, String> {
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

/// Prefill attention's intensity is T/2 (S = T in ST/(S+T)), so it passes
/// the bf16 ridge at twice the ridge's tokens.
fn prefill_attention_length(d: &Directive) -> Result<String, String> {
    let c = chip_arg(d)?;
    let ridge = c
        .ridge(Dtype::Bf16, Link::Hbm)
        .ok_or_else(|| format!("{} has no bf16 peak", c.name))?;
    Ok(sci(2.0 * ridge.0, 3))
}

fn attainable_value(d: &Directive) -> Result<String, String> {
    let c = chip_arg(d)?;
    let op = op_arg(d)?;
    let rate = op
        .attainable(c)
        .ok_or_else(|| format!("{} has no peak for {}", c.name, op.compute_dtype()))?;
    Ok(sci(rate.0, 3))
}

fn peak_share(d: &Directive) -> Result<String, String> {
    let c = chip_arg(d)?;
    let (lo, hi) = c.achievable_share().value;
    let range = |f: &dyn Fn(f64) -> String| {
        if lo == hi {
            f(lo)
        } else {
            format!("{}–{}", f(lo), f(hi))
        }
    };
    match show_arg(d, "share") {
        "share" => Ok(format!("{}%", range(&|x| grouped(x * 100.0)))),
        "rate" => {
            let p = c
                .peak(Dtype::Bf16)
                .ok_or_else(|| format!("{} has no bf16 peak", c.name))?;
            Ok(range(&|x| sci(x * p.0, 2)))
        }
        o => Err(unknown_show(d, o, "share, rate")),
    }
}

fn vpu(d: &Directive) -> Result<String, String> {
    let c = chip_arg(d)?;
    let rate = ridgeline_core::hardware::tensor_core(c.id)
        .and_then(ridgeline_core::hardware::tpu::vpu_rate)
        .ok_or_else(|| format!("the registry has no VPU rate for {}", c.name))?;
    match show_arg(d, "rate") {
        "rate" => Ok(sci(rate.0, 2)),
        "ridge" => Ok(sci(rate.0 / c.hbm_bw().0, 2)),
        o => Err(unknown_show(d, o, "rate, ridge")),
    }
}

fn token_batch(d: &Directive) -> Result<String, String> {
    let seqs = num_arg(d, "seqs", None)?;
    let len = num_arg(d, "len", None)?;
    let devices = num_arg(d, "devices", Some(1.0))?;
    match show_arg(d, "total") {
        "total" => Ok(tokens(seqs * len)),
        "per-device" => Ok(tokens(tokens_per_device(seqs, len, devices))),
        o => Err(unknown_show(d, o, "total, per-device")),
    }
}

fn time(d: &Directive) -> Result<String, String> {
    let c = chip_arg(d)?;
    let p = peak_arg(d, c)?;
    Ok(si((Flops(num_arg(d, "flops", None)?) / p).0, "s", 3))
}

/// The op `op=` names (a matmul by default) with its sizes and formats.
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

fn intensity(d: &Directive) -> Result<String, String> {
    Ok(sci(op_arg(d)?.intensity().0, 3))
}

fn asymptote(d: &Directive) -> Result<String, String> {
    Ok(sci(op_arg(d)?.asymptotic_intensity().0, 3))
}

/// The contraction above which splitting a matmul over two chips joined by ICI
/// stays compute-bound.
fn split_critical_d(d: &Directive) -> Result<String, String> {
    let c = chip_arg(d)?;
    let mut ici = d.clone();
    ici.args.retain(|(k, _)| k != "link");
    ici.args.push(("link".into(), "ici".into()));
    let w = bandwidth_arg(c, &ici)?;
    let p = c.peak(Dtype::Bf16).ok_or("no bf16 peak")?;
    Ok(grouped(SplitContraction::critical_d(p, BytesPerSec(w))))
}

fn tile_intensity(d: &Directive) -> Result<String, String> {
    let side = |k| whole_arg::<u64>(d, k, 128.0, 1e6);
    let t = tiled_intensity(side("bm")?, side("bk")?, side("bn")?, Dtype::Bf16)?;
    match show_arg(d, "approx") {
        "approx" => Ok(sci(t.approx.0, 3)),
        "exact" => Ok(sci(t.exact.0, 3)),
        o => Err(unknown_show(d, o, "approx, exact")),
    }
}

fn strong_scaling_value(d: &Directive) -> Result<String, String> {
    let c = chip_arg(d)?;
    let p = StrongScalingParams::new(c, num_arg(d, "params", None)?, num_arg(d, "tokens", None)?);
    let n = whole_arg::<u32>(d, "chips", 1.0, 1_048_576.0)?;
    let row = strong_scaling(&p, &[n])?[0];
    match show_arg(d, "efficiency") {
        "efficiency" => Ok(format!("{:.0}%", row.efficiency * 100.0)),
        "step" => Ok(seconds(row.step.0)),
        "compute" => Ok(seconds(row.compute.0)),
        "backward" => Ok(seconds(row.backward.0)),
        "comms" => Ok(seconds(row.comms.0)),
        "ici" => Ok(seconds(row.ici.0)),
        "dcn" => Ok(seconds(row.dcn.0)),
        "slices" => Ok(grouped(f64::from(row.slices))),
        "domain" => Ok(grouped(f64::from(p.layout(n)?.domain))),
        o => Err(unknown_show(
            d,
            o,
            "efficiency, step, compute, backward, comms, ici, dcn, slices, domain",
        )),
    }
}
