//! Values about one chip from core's registry (Parts 1–2 and the hardware
//! tables): its name, peaks, bandwidths and memory, its hourly price, the TPU's
//! MXU, torus and pod, the steps down its memory hierarchy and the systolic array's cycles.

use super::args::{
    bandwidth_arg, chip_arg, fmt_value, num_arg, peak_arg, required_link_arg, show_arg,
    unknown_show, whole_arg,
};
use super::entry::ValueDirective;
use crate::directive::Directive;
use ridgeline_core::dtype::Dtype;
use ridgeline_core::format::{grouped, sci, seconds, si};
use ridgeline_core::hardware::chip_map::{chip_map, Part};
use ridgeline_core::hardware::systolic::{run, SystolicParams};
use ridgeline_core::hardware::tpu::{
    core_mxu_rate, cores_per_chip, mxu_rate, vmem_bandwidth, vpu_rate, vreg_bytes, Slice,
};
use ridgeline_core::hardware::{price_per_hour, Link, Topology};
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
        name: "price",
        args: &["chip"],
        doc: "the on-demand price of one chip for an hour as the book quotes it (Part 8: Google \
              Cloud list prices of February 2025), in US dollars",
        example: "price chip=h100",
        shows: "10.80 USD",
        eval: price,
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
        doc: "a TPU's largest ICI domain: what=chips (default), hosts, cores (TensorCores), \
              flops (bf16 peak of the whole pod), shape (16×20×28) or host (the chips one host drives, as a shape: 2×2×1)",
        example: "pod-chips chip=v5p what=chips",
        shows: "8,960",
        eval: pod_chips,
    },
    ValueDirective {
        name: "host-memory",
        args: &["chip", "show"],
        doc: "one TPU host: show=chips (it drives), hbm (of those chips together) or dram (the \
              host's own, where the book gives it)",
        example: "host-memory chip=v5e show=dram",
        shows: "450 GB",
        eval: host_memory,
    },
    ValueDirective {
        name: "tensorcore",
        args: &["chip", "show", "fmt"],
        doc: "inside one TPU TensorCore, from core's TensorCore table: show=mxus (per core), \
              mxu-rate (one MXU's bf16 FLOPs/s), core-peak (the chip's bf16 peak per core), \
              cores (per chip), clock, vregs, vreg-bytes, vpu-alus (per lane and sublane), \
              vpu-total (ALUs of the whole VPU), vpu-rate, vpu-ridge (VPU FLOPs/s over HBM \
              bandwidth), vmem-ridge (bf16 peak over VMEM bandwidth), mxu-over-vpu, mxu-cells, \
              vmem (capacity); fmt=sci, si or int for rates",
        example: "tensorcore chip=v5p show=vpu-rate fmt=sci",
        shows: "7.17e12",
        eval: tensorcore,
    },
    ValueDirective {
        name: "link-time",
        args: &["chip", "link", "bytes", "links", "dir"],
        doc: "time to move bytes over `links` of a chip's links in parallel (1 by default; \
              dir=one-way for ICI's one-way figure)",
        example: "link-time chip=v5e link=pcie bytes=1.6e10 links=1 dir=bidi",
        shows: "1 s",
        eval: link_time,
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
        args: &["k", "n", "m", "blocks", "pipelined", "show"],
        doc: "cycles a k×n weight-stationary systolic array takes for blocks of m rows \
              (pipelined=yes or no), emulated: show=total (the default, weight loading \
              included), stream (from the first activation entering) or load (cycles \
              with weights still shifting in)",
        example: "systolic-cycles k=8 n=8 m=8 blocks=4 pipelined=no show=stream",
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

/// A chip's hourly price from core's price table (a `$` would open math on the page).
fn price(d: &Directive) -> Result<String, String> {
    let c = chip_arg(d)?;
    price_per_hour(c.id)
        .map(|p| format!("{:.2} USD", p.value))
        .ok_or_else(|| format!("the book quotes no price for {}", c.name))
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
    let shape = |axes: &[u32]| {
        axes.iter()
            .map(|&n| grouped(f64::from(n)))
            .collect::<Vec<_>>()
            .join("×")
    };
    match d.arg("what").unwrap_or("chips") {
        "chips" => Ok(grouped(pod.chips() as f64)),
        "hosts" => Ok(grouped(pod.hosts() as f64)),
        "cores" => Ok(grouped(pod.cores() as f64)),
        "flops" => pod
            .peak(Dtype::Bf16)
            .map(|p| sci(p.0, 3))
            .ok_or_else(|| format!("{} has no bf16 peak", c.name)),
        "shape" => Ok(shape(&c.topology.largest_mesh())),
        "host" => match c.topology {
            Topology::Torus { dims, host, .. } => {
                // A 2D torus's host is a 4×2 block; a 3D one's keeps its third axis.
                Ok(shape(&host[..usize::from(dims)]))
            }
            _ => Err(format!("{} has no hosts of chips", c.name)),
        },
        o => Err(format!(
            "unknown what=`{o}` (chips, hosts, cores, flops, shape, host)"
        )),
    }
}

/// One host of TPUs: the block of chips it drives, their HBM, and its DRAM.
fn host_memory(d: &Directive) -> Result<String, String> {
    let c = chip_arg(d)?;
    let Topology::Torus { dims, host, .. } = c.topology else {
        return Err(format!("{} has no hosts of chips", c.name));
    };
    let block = Slice::new(c, &host[..usize::from(dims)]).map_err(|e| e.to_string())?;
    match show_arg(d, "dram") {
        "chips" => Ok(grouped(block.chips() as f64)),
        "hbm" => Ok(si(block.hbm().0, "B", 3)),
        "dram" => ridgeline_core::hardware::host_dram(c.id)
            .map(|m| si(m.value.0, "B", 3))
            .ok_or_else(|| format!("the book gives no host DRAM for {}", c.name)),
        o => Err(unknown_show(d, o, "chips, hbm, dram")),
    }
}

/// One number about a TPU TensorCore, computed by core from its TensorCore table.
fn tensorcore(d: &Directive) -> Result<String, String> {
    let c = chip_arg(d)?;
    let core = ridgeline_core::hardware::tensor_core(c.id)
        .ok_or_else(|| format!("{} has no TensorCore in the registry", c.name))?;
    let missing = |what: &str| format!("the registry has no {what} for {}", c.name);
    let cores = cores_per_chip(c).ok_or_else(|| missing("core count"))?;
    let [sub, lanes] = ridgeline_core::hardware::VPU_SHAPE.value;
    let alus = core.vpu_alus.map(|a| a.value);
    let show = show_arg(d, "mxus");
    match show {
        "mxus" => core
            .mxus_per_core
            .map(|m| grouped(f64::from(m.value)))
            .ok_or_else(|| missing("MXU count")),
        "cores" => Ok(grouped(f64::from(cores))),
        "mxu-cells" => Ok(grouped(f64::from(core.mxu_side.value).powi(2))),
        "vregs" => core
            .vregs
            .map(|v| grouped(f64::from(v.value)))
            .ok_or_else(|| missing("VREG count")),
        "vreg-bytes" => vreg_bytes(core)
            .map(|b| binary(b.0))
            .ok_or_else(|| missing("VREG count")),
        "vpu-alus" => alus
            .map(|a| grouped(f64::from(a)))
            .ok_or_else(|| missing("VPU ALU count")),
        "vpu-total" => alus
            .map(|a| grouped(f64::from(sub * lanes * a)))
            .ok_or_else(|| missing("VPU ALU count")),
        "clock" => core
            .clock_hz
            .map(|h| si(h.value, "Hz", 3))
            .ok_or_else(|| missing("clock")),
        "vmem" => Ok(binary(ridgeline_core::hardware::VMEM_CAPACITY.value.0)),
        "mxu-rate" => fmt_value(
            d,
            mxu_rate(core).ok_or_else(|| missing("clock"))?.0,
            "FLOPs/s",
        ),
        "core-peak" => fmt_value(d, peak_arg(d, c)?.0 / f64::from(cores), "FLOPs/s"),
        "vpu-rate" => fmt_value(
            d,
            vpu_rate(core).ok_or_else(|| missing("VPU data"))?.0,
            "FLOPs/s",
        ),
        // The ridge of an MXU matmul whose operands come from VMEM, and of VPU
        // work streamed from HBM: each compute rate over the bandwidth feeding it.
        "vmem-ridge" => Ok(sci(peak_arg(d, c)?.0 / vmem_bandwidth(c).0, 3)),
        "vpu-ridge" => Ok(sci(
            vpu_rate(core).ok_or_else(|| missing("VPU data"))?.0 / c.hbm_bw().0,
            2,
        )),
        "mxu-over-vpu" => {
            let mxu = core_mxu_rate(core).ok_or_else(|| missing("MXU rate"))?;
            let vpu = vpu_rate(core).ok_or_else(|| missing("VPU data"))?;
            Ok(sci(mxu.0 / vpu.0, 2))
        }
        o => Err(unknown_show(
            d,
            o,
            "mxus, mxu-rate, core-peak, cores, clock, vregs, vreg-bytes, vpu-alus, vpu-total, \
             vpu-rate, vpu-ridge, vmem-ridge, mxu-over-vpu, mxu-cells, vmem",
        )),
    }
}

/// A byte count in the largest binary unit it fills (`256 KiB`, `128 MiB`), as
/// the book gives on-chip memories.
fn binary(bytes: f64) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut x = bytes;
    let mut i = 0;
    while x >= 1024.0 && i + 1 < units.len() {
        x /= 1024.0;
        i += 1;
    }
    format!("{} {}", sci(x, 3), units[i])
}

/// Bytes over `links=` parallel links of one kind, at the link's bandwidth.
fn link_time(d: &Directive) -> Result<String, String> {
    let c = chip_arg(d)?;
    let w = bandwidth_arg(c, d)?;
    let bytes = num_arg(d, "bytes", None)?;
    let links = whole_arg::<u64>(d, "links", 1.0, 1e6)?;
    if links == 0 {
        return Err("links= must be at least 1".into());
    }
    Ok(seconds(bytes / (w * links as f64)))
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
        k: whole_arg::<u32>(d, "k", 8.0, 32.0)?,
        n: whole_arg::<u32>(d, "n", 8.0, 32.0)?,
        m: whole_arg::<u32>(d, "m", 8.0, 512.0)?,
        blocks: whole_arg::<u32>(d, "blocks", 1.0, 512.0)?,
        pipelined: match d.arg("pipelined").unwrap_or("yes") {
            "yes" => true,
            "no" => false,
            o => return Err(format!("pipelined=`{o}` is not yes or no")),
        },
        seed: 1,
    };
    let r = run(&p)?;
    let cycles = match d.arg("show").unwrap_or("total") {
        "total" => u64::from(r.cycles),
        // Counted in the emulated frames, checked against the formula in core's tests.
        "stream" => u64::from(r.cycles) - p.first_entry(),
        "load" => r.frames.iter().filter(|f| f.weights_loading()).count() as u64,
        o => return Err(format!("show=`{o}` is not total, stream or load")),
    };
    Ok(grouped(cycles as f64))
}
