//! Values about one chip from core's registry (Parts 1–2 and the hardware
//! tables): its name, peaks, bandwidths and memory, the TPU's MXU, torus and
//! pod, the steps down its memory hierarchy and the systolic array's cycles.

use super::args::{
    bandwidth_arg, chip_arg, fmt_value, peak_arg, required_link_arg, show_arg, unknown_show,
    whole_arg,
};
use super::entry::ValueDirective;
use crate::directive::Directive;
use ridgeline_core::dtype::Dtype;
use ridgeline_core::format::{grouped, sci, si};
use ridgeline_core::hardware::chip_map::{chip_map, Part};
use ridgeline_core::hardware::systolic::{run, SystolicParams};
use ridgeline_core::hardware::tpu::Slice;
use ridgeline_core::hardware::{Link, Topology};
use ridgeline_core::units::Intensity;

/// The hardware value directives.
pub const VALUES: &[ValueDirective] = &[
    ValueDirective {
        name: "chip-name",
        args: &["chip"],
        doc: "display name of a chip",
        example: "chip-name chip=tpu7x",
        shows: "TPU7x",
        eval: chip_name,
    },
    ValueDirective {
        name: "peak",
        args: &["chip", "dtype", "fmt"],
        doc: "dense peak FLOPs/s of a chip in a format",
        example: "peak chip=v5e dtype=bf16 fmt=si",
        shows: "197 TFLOPs/s",
        eval: peak,
    },
    ValueDirective {
        name: "bw",
        args: &["chip", "link", "fmt", "dir"],
        doc: "bandwidth of one of a chip's links (dir=one-way for ICI's one-way figure)",
        example: "bw chip=v5e link=hbm fmt=sci dir=bidi",
        shows: "8.2e11",
        eval: bw,
    },
    ValueDirective {
        name: "hbm",
        args: &["chip", "fmt"],
        doc: "HBM capacity of a chip",
        example: "hbm chip=v5e fmt=si",
        shows: "16 GB",
        eval: hbm,
    },
    ValueDirective {
        name: "mxu",
        args: &["chip", "show"],
        doc: "a TPU's MXU systolic array: show=array (128×128, the default) or side",
        example: "mxu chip=v6e show=side",
        shows: "256",
        eval: mxu,
    },
    ValueDirective {
        name: "wrap",
        args: &["chip", "show"],
        doc: "the smallest slice whose axes wrap around: show=length (of an axis) or cube (the \
              whole shape)",
        example: "wrap chip=v5p show=cube",
        shows: "4×4×4",
        eval: wrap,
    },
    ValueDirective {
        name: "hop-latency",
        args: &[],
        doc: "the per-hop ICI latency the book assumes",
        example: "hop-latency",
        shows: "1 µs",
        eval: hop_latency,
    },
    ValueDirective {
        name: "vmem-ratio",
        args: &[],
        doc: "how many times HBM bandwidth VMEM delivers",
        example: "vmem-ratio",
        shows: "22",
        eval: vmem_ratio,
    },
    ValueDirective {
        name: "pod-chips",
        args: &["chip", "what"],
        doc: "chips (or hosts, what=hosts) in a TPU's largest ICI domain",
        example: "pod-chips chip=v5p what=chips",
        shows: "8,960",
        eval: pod_chips,
    },
    ValueDirective {
        name: "ratio",
        args: &["chip", "dtype", "over"],
        doc: "how many times faster HBM is than another link, or peak in one format over another",
        example: "ratio chip=v5e dtype=bf16 over=ici",
        shows: "9.1",
        eval: ratio,
    },
    ValueDirective {
        name: "link-step",
        args: &["chip", "link", "over"],
        doc: "how many times faster one TPU path (hbm, ici per link, pcie, dcn) is than another",
        example: "link-step chip=v5p link=hbm over=ici",
        shows: "16",
        eval: link_step,
    },
    ValueDirective {
        name: "systolic-cycles",
        args: &["k", "n", "m", "blocks", "pipelined"],
        doc: "cycles a k×n weight-stationary systolic array takes for blocks of m rows \
              (pipelined=yes or no), emulated",
        example: "systolic-cycles k=8 n=8 m=8 blocks=4 pipelined=no",
        shows: "88",
        eval: systolic_cycles,
    },
];

fn chip_name(d: &Directive) -> Result<String, String> {
    Ok(chip_arg(d)?.name.to_string())
}

fn peak(d: &Directive) -> Result<String, String> {
    let c = chip_arg(d)?;
    let p = peak_arg(d, c)?;
    fmt_value(d, p.0, "FLOPs/s")
}

fn bw(d: &Directive) -> Result<String, String> {
    let c = chip_arg(d)?;
    fmt_value(d, bandwidth_arg(c, d)?, "B/s")
}

fn hbm(d: &Directive) -> Result<String, String> {
    fmt_value(d, chip_arg(d)?.hbm_capacity.value.0, "B")
}

/// The side of a TPU's MXU from core's TensorCore table, as an array or a length.
fn mxu(d: &Directive) -> Result<String, String> {
    let c = chip_arg(d)?;
    let core = ridgeline_core::hardware::tensor_core(c.id)
        .ok_or_else(|| format!("{} has no TensorCore in the registry", c.name))?;
    let side = grouped(core.mxu_side.value as f64);
    match show_arg(d, "array") {
        "array" => Ok(format!("{side}×{side}")),
        "side" => Ok(side),
        o => Err(unknown_show(d, o, "array, side")),
    }
}

/// The smallest cube-shaped slice core's torus model gives wraparound links, found
/// by asking `core::hardware::tpu::Slice` about each size in turn.
fn wrap(d: &Directive) -> Result<String, String> {
    let c = chip_arg(d)?;
    let dims = match c.topology {
        Topology::Torus { dims, .. } => dims as usize,
        _ => return Err(format!("{} is not a TPU torus", c.name)),
    };
    let n = (1u32..=64)
        .find(|&n| Slice::new(c, &vec![n; dims]).is_ok_and(|s| s.wrap()[..dims].iter().all(|&w| w)))
        .ok_or_else(|| format!("no small slice of {} wraps around", c.name))?;
    let side = grouped(n as f64);
    match show_arg(d, "length") {
        "length" => Ok(side),
        "cube" => Ok(vec![side; dims].join("×")),
        o => Err(unknown_show(d, o, "length, cube")),
    }
}

fn hop_latency(_: &Directive) -> Result<String, String> {
    Ok(si(
        ridgeline_core::hardware::ICI_HOP_LATENCY.value.0,
        "s",
        2,
    ))
}

fn vmem_ratio(_: &Directive) -> Result<String, String> {
    Ok(sci(ridgeline_core::hardware::VMEM_OVER_HBM.value, 2))
}

fn pod_chips(d: &Directive) -> Result<String, String> {
    let c = chip_arg(d)?;
    let pod = Slice::full_pod(c).map_err(|e| e.to_string())?;
    match d.arg("what").unwrap_or("chips") {
        "chips" => Ok(grouped(pod.chips() as f64)),
        "hosts" => Ok(grouped(pod.hosts() as f64)),
        o => Err(format!("unknown what=`{o}` (chips, hosts)")),
    }
}

/// HBM bandwidth over another link's, or the peak in `dtype=` over the peak in
/// the format `over=` names.
fn ratio(d: &Directive) -> Result<String, String> {
    let c = chip_arg(d)?;
    let over = d.arg("over").ok_or("`ratio` needs over=")?;
    if let Some(l) = Link::parse(over) {
        let w = c
            .bandwidth(l)
            .ok_or_else(|| format!("{} has no {over} link", c.name))?;
        Ok(sci(c.hbm_bw() / w, 2))
    } else if let Some(dt) = Dtype::parse(over) {
        let num = peak_arg(d, c)?;
        let den = c
            .peak(dt)
            .ok_or_else(|| format!("{} has no {dt} peak", c.name))?;
        Ok(sci(Intensity(num / den).0, 2))
    } else {
        Err(format!("over=`{over}` is neither a link nor a dtype"))
    }
}

/// How many times faster one path of the chip is than another.
fn link_step(d: &Directive) -> Result<String, String> {
    let c = chip_arg(d)?;
    let map = chip_map(c)?;
    let bw = |l: Link| {
        let part = match l {
            Link::Hbm => Part::Hbm,
            Link::Ici => Part::Ici,
            Link::Pcie => Part::Pcie,
            Link::Dcn => Part::Dcn,
            _ => return Err(format!("a TPU has no {} link", l.name())),
        };
        // ICI per link, as the rest of the page quotes it.
        if l == Link::Ici {
            return c
                .bandwidth(Link::Ici)
                .map(|w| w.0)
                .ok_or_else(|| format!("{} has no ICI figure", c.name));
        }
        map.path(part)
            .map(|p| p.bandwidth.0)
            .ok_or_else(|| format!("{} has no {} figure", c.name, l.name()))
    };
    Ok(sci(
        bw(required_link_arg(d, "link")?)? / bw(required_link_arg(d, "over")?)?,
        2,
    ))
}

fn systolic_cycles(d: &Directive) -> Result<String, String> {
    let p = SystolicParams {
        k: whole_arg(d, "k", 8.0, 32.0)? as u32,
        n: whole_arg(d, "n", 8.0, 32.0)? as u32,
        m: whole_arg(d, "m", 8.0, 512.0)? as u32,
        blocks: whole_arg(d, "blocks", 1.0, 512.0)? as u32,
        pipelined: match d.arg("pipelined").unwrap_or("yes") {
            "yes" => true,
            "no" => false,
            o => return Err(format!("pipelined=`{o}` is not yes or no")),
        },
        seed: 1,
    };
    Ok(grouped(run(&p)?.cycles as f64))
}
