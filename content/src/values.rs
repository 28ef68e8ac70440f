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
use ridgeline_core::ops::{Op, OpKind};
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
];

fn chip_arg(d: &Directive) -> Result<&'static Chip, String> {
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

fn num_arg(d: &Directive, key: &str, default: Option<f64>) -> Result<f64, String> {
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
pub fn evaluate(d: &Directive) -> Result<String, String> {
    let spec = VALUES
        .iter()
        .find(|s| s.name == d.name)
        .ok_or_else(|| format!("unknown value directive `{}`", d.name))?;
    d.check_args(spec.args)?;
    if !d.positional.is_empty() {
        return Err(format!("`{}` takes only key=value arguments", d.name));
    }
    match d.name.as_str() {
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
            let net = ridgeline_core::collectives::Network::ici(c).map_err(|e| e.to_string())?;
            Ok(si(net.latency_threshold().0, "B", 2))
        }
        "pod-chips" => {
            let c = chip_arg(d)?;
            let pod = ridgeline_core::tpu::Slice::full_pod(c).map_err(|e| e.to_string())?;
            match d.arg("what").unwrap_or("chips") {
                "chips" => Ok(grouped(pod.chips() as f64)),
                "hosts" => Ok(grouped(pod.hosts() as f64)),
                o => Err(format!("unknown what=`{o}` (chips, hosts)")),
            }
        }
        "collective-ratio" => {
            use ridgeline_core::collectives::{cost, Collective, Network, RingAxis};
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
        other => Err(format!(
            "value directive `{other}` is listed but not implemented"
        )),
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
            "0.27"
        );
    }

    #[test]
    fn every_listed_value_is_implemented() {
        for spec in VALUES {
            let mut d = Directive::parse(spec.name).unwrap();
            for a in spec.args {
                let v = match (spec.name, *a) {
                    ("collective-ratio", "op") => "allreduce",
                    ("collective-ratio", "over") => "allgather",
                    (_, a) => match a {
                        "chip" => "v5e",
                        "dtype" | "act" | "weight" => "bf16",
                        "link" => "hbm",
                        "fmt" => "sci",
                        "dir" => "bidi",
                        "op" => "matmul",
                        "over" => "ici",
                        "what" => "chips",
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
