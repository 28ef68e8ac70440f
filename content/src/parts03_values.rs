//! The value directives behind the in-depth sections of Parts 0–3: strong
//! scaling, tiled-matmul intensity, the chip's bandwidth steps, the systolic
//! array's cycles, the collective matmul and the AllGather knee. Each evaluates
//! through `ridgeline-core`; the table of names and arguments is
//! [`crate::values::VALUES`].

use crate::directive::Directive;
use crate::values::{chip_arg, num_arg};
use ridgeline_core::comms::collective_matmul::{
    collective_matmul, gather_curve, CollectiveMatmulParams, MatmulCase,
};
use ridgeline_core::comms::collectives::Network;
use ridgeline_core::dtype::Dtype;
use ridgeline_core::format::{grouped, sci, seconds, si};
use ridgeline_core::hardware::chip_map::{chip_map, Part};
use ridgeline_core::hardware::systolic::{run, SystolicParams};
use ridgeline_core::hardware::{chip, Link};
use ridgeline_core::roofline::ops::tiled_intensity;
use ridgeline_core::roofline::strong_scaling::{strong_scaling, StrongScalingParams};
use ridgeline_core::units::Bytes;

/// The names this module evaluates.
pub const NAMES: &[&str] = &[
    "strong-scaling",
    "tile-intensity",
    "link-step",
    "ridge-via",
    "systolic-cycles",
    "collective-matmul",
    "gather-knee",
];

/// A valid value for every argument of [`NAMES`], for the test that evaluates each
/// listed directive with all its arguments given.
pub fn example_arg(name: &str, arg: &str) -> Option<&'static str> {
    if !NAMES.contains(&name) {
        return None;
    }
    Some(match (name, arg) {
        ("strong-scaling", "params") => "8e9",
        ("strong-scaling", "tokens") => "1048576",
        ("strong-scaling", "chips") => "4096",
        ("strong-scaling", "show") => "efficiency",
        ("tile-intensity", "show") => "approx",
        ("link-step", "link") => "ici",
        ("link-step", "over") => "pcie",
        ("ridge-via", "link") => "pcie",
        ("ridge-via", "via") => "v5e",
        ("systolic-cycles", "pipelined") => "yes",
        ("collective-matmul", "show") => "saved",
        ("collective-matmul", "case") => "reducescatter",
        ("gather-knee", "show") => "knee",
        (_, "chip") => "v5e",
        ("systolic-cycles", _) => "8",
        (_, "n") => "8",
        _ => "128",
    })
}

fn whole(d: &Directive, key: &str, default: f64, max: f64) -> Result<u64, String> {
    let x = num_arg(d, key, Some(default))?;
    if x.fract() != 0.0 || x > max {
        return Err(format!("{key}=`{x}` is not a whole number up to {max}"));
    }
    Ok(x as u64)
}

fn unknown(d: &Directive, what: &str, allowed: &str) -> String {
    format!("`{}`: unknown show=`{what}` ({allowed})", d.name)
}

fn link(d: &Directive, key: &str) -> Result<Link, String> {
    let t = d
        .arg(key)
        .ok_or_else(|| format!("`{}` needs {key}=", d.name))?;
    Link::parse(t).ok_or_else(|| format!("unknown link `{t}`"))
}

/// Evaluates one of [`NAMES`].
pub fn evaluate(d: &Directive) -> Result<String, String> {
    match d.name.as_str() {
        "strong-scaling" => {
            let c = chip_arg(d)?;
            let p = StrongScalingParams::new(
                c,
                num_arg(d, "params", None)?,
                num_arg(d, "tokens", None)?,
            );
            let n = whole(d, "chips", 1.0, 1_048_576.0)? as u32;
            let row = strong_scaling(&p, &[n])?[0];
            match d.arg("show").unwrap_or("efficiency") {
                "efficiency" => Ok(format!("{:.0}%", row.efficiency * 100.0)),
                "step" => Ok(seconds(row.step.0)),
                "compute" => Ok(seconds(row.compute.0)),
                "comms" => Ok(seconds(row.comms.0)),
                o => Err(unknown(d, o, "efficiency, step, compute, comms")),
            }
        }
        "tile-intensity" => {
            let side = |k| whole(d, k, 128.0, 1e6);
            let t = tiled_intensity(side("bm")?, side("bk")?, side("bn")?, Dtype::Bf16)?;
            match d.arg("show").unwrap_or("approx") {
                "approx" => Ok(sci(t.approx.0, 3)),
                "exact" => Ok(sci(t.exact.0, 3)),
                o => Err(unknown(d, o, "approx, exact")),
            }
        }
        "link-step" => {
            // How many times faster one path of the chip is than another.
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
            Ok(sci(bw(link(d, "link")?)? / bw(link(d, "over")?)?, 2))
        }
        "ridge-via" => {
            // A chip's bf16 peak over a link bandwidth taken from another chip, as
            // a problem that fixes the bandwidth does.
            let c = chip_arg(d)?;
            let via = d.arg("via").ok_or("`ridge-via` needs via=")?;
            let other = chip(via).ok_or_else(|| format!("unknown chip `{via}`"))?;
            let l = link(d, "link")?;
            let w = other
                .bandwidth(l)
                .ok_or_else(|| format!("{} has no {} link", other.name, l.name()))?;
            let p = c
                .peak(Dtype::Bf16)
                .ok_or_else(|| format!("{} has no bf16 peak", c.name))?;
            Ok(grouped(p.0 / w.0))
        }
        "systolic-cycles" => {
            let p = SystolicParams {
                k: whole(d, "k", 8.0, 32.0)? as u32,
                n: whole(d, "n", 8.0, 32.0)? as u32,
                m: whole(d, "m", 8.0, 512.0)? as u32,
                blocks: whole(d, "blocks", 1.0, 512.0)? as u32,
                pipelined: match d.arg("pipelined").unwrap_or("yes") {
                    "yes" => true,
                    "no" => false,
                    o => return Err(format!("pipelined=`{o}` is not yes or no")),
                },
                seed: 1,
            };
            Ok(grouped(run(&p)?.cycles as f64))
        }
        "collective-matmul" => {
            let c = chip_arg(d)?;
            let n = whole(d, "n", 8.0, 1024.0)? as u32;
            let dim = |k| whole(d, k, 8192.0, 1e7);
            let mut p = CollectiveMatmulParams::new(c, n, dim("i")?, dim("j")?, dim("k")?);
            let case = d.arg("case").unwrap_or("allgather");
            p.case = MatmulCase::parse(case)
                .ok_or_else(|| format!("case=`{case}` is not allgather or reducescatter"))?;
            let r = collective_matmul(&p)?;
            match d.arg("show").unwrap_or("saved") {
                "blocking" => Ok(seconds(r.blocking.0)),
                "overlapped" => Ok(seconds(r.overlapped.0)),
                "saved" => Ok(seconds(r.saved.0)),
                "compute" => Ok(seconds(r.compute.0)),
                "gather" => Ok(seconds(r.gather.0)),
                o => Err(unknown(
                    d,
                    o,
                    "blocking, overlapped, saved, compute, gather",
                )),
            }
        }
        "gather-knee" => {
            let c = chip_arg(d)?;
            let net = Network::ici(c).map_err(|e| e.to_string())?;
            let n = whole(d, "n", 16.0, 1024.0)? as u32;
            let curve = gather_curve(&net, n, Bytes(1e3), Bytes(1e9), 2)?;
            match d.arg("show").unwrap_or("knee") {
                "knee" => Ok(si(curve.knee.0, "B", 2)),
                "measured-at" => Ok(si(curve.measured_at.0, "B", 2)),
                "measured-fraction" => Ok(format!("{:.0}%", curve.measured_fraction * 100.0)),
                o => Err(unknown(d, o, "knee, measured-at, measured-fraction")),
            }
        }
        other => Err(format!("`{other}` is not a Parts 0–3 value")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(text: &str) -> Result<String, String> {
        evaluate(&Directive::parse(text).unwrap())
    }

    #[test]
    fn values_come_from_core() {
        // The v5p's own steps down the hierarchy: about 16, 11 and 2.6 times.
        assert_eq!(eval("link-step chip=v5p link=hbm over=ici").unwrap(), "16");
        assert_eq!(eval("link-step chip=v5p link=ici over=pcie").unwrap(), "11");
        assert_eq!(
            eval("link-step chip=v5p link=pcie over=dcn").unwrap(),
            "2.6"
        );
        // Exercise ch2-q3 fixes PCIe at the generic per-TPU figure.
        assert_eq!(
            eval("ridge-via chip=v6e link=pcie via=v5e").unwrap(),
            "57,500"
        );
        assert_eq!(
            eval("systolic-cycles k=8 n=8 m=8 blocks=4 pipelined=no").unwrap(),
            "88"
        );
        assert_eq!(eval("systolic-cycles k=8 n=8 m=8 blocks=4").unwrap(), "46");
        assert_eq!(eval("gather-knee chip=v5e n=16").unwrap(), "720 kB");
        // Case 3: the ReduceScatter of the unreduced C[8192, 8192] in bf16 is
        // V / W_ici = 134 MB / 9e10 B/s.
        assert_eq!(
            eval("collective-matmul chip=v5e case=reducescatter k=8192 show=gather").unwrap(),
            "1.49 ms"
        );
        assert!(eval("collective-matmul chip=v5e case=case3").is_err());
        assert!(eval("strong-scaling chip=v5e params=8e9 tokens=1e6 chips=0").is_err());
        assert!(eval("link-step chip=v5p link=nvlink over=ici").is_err());
        assert!(eval("tile-intensity bm=0").is_err());
    }
}
