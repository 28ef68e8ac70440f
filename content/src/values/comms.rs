//! Communication values (Parts 3 and 10): when an ICI transfer is
//! latency-bound, how collectives compare, and how much a collective matmul
//! hides behind its compute.

use super::args::{chip_arg, num_arg, show_arg, unknown_show, whole_arg};
use super::entry::ValueDirective;
use crate::directive::Directive;
use ridgeline_core::comms::collective_matmul::{
    collective_matmul, gather_curve, CollectiveMatmulParams, MatmulCase,
};
use ridgeline_core::comms::collectives::{cost, Collective, Network, RingAxis};
use ridgeline_core::comms::overlap_timeline::{overlap_timeline, OverlapParams, BOOK_TIMES};
use ridgeline_core::format::{sci, seconds, si};
use ridgeline_core::hardware::chip;
use ridgeline_core::units::Bytes;

/// The communication value directives.
pub const VALUES: &[ValueDirective] = &[
    ValueDirective {
        name: "latency-knee",
        args: &["chip"],
        doc: "bytes per hop below which an ICI transfer is latency-bound",
        example: "latency-knee chip=v5e",
        shows: "45 kB",
        eval: latency_knee,
    },
    ValueDirective {
        name: "collective-ratio",
        args: &["op", "over", "n"],
        doc: "how many times longer one collective takes than another on a bidirectional ring \
              of n devices (large arrays)",
        example: "collective-ratio op=alltoall over=allgather n=16",
        shows: "0.25",
        eval: collective_ratio,
    },
    ValueDirective {
        name: "gather-knee",
        args: &["chip", "n", "show"],
        doc: "the AllGather cost model's latency knee on a ring of n (show=knee), or the book's \
              measurement (measured-at, measured-fraction)",
        example: "gather-knee chip=v5e n=16 show=knee",
        shows: "720 kB",
        eval: gather_knee,
    },
    ValueDirective {
        name: "collective-matmul",
        args: &["chip", "n", "i", "j", "k", "case", "show"],
        doc: "a collective matmul on a ring of n (case=allgather, the default, or \
              reducescatter for Part 3's case 3): show=saved (default), blocking, overlapped, \
              compute, gather (the blocking collective)",
        example: "collective-matmul chip=v5e n=8 i=8192 j=8192 k=8192 case=reducescatter \
                  show=gather",
        shows: "1.49 ms",
        eval: collective_matmul_value,
    },
    ValueDirective {
        name: "overlap-time",
        args: &["show"],
        doc: "Part 10's collective matmul: show=overlapped, blocking, matmul (core), or \
              book-blocking, book-overlapped, book-matmul",
        example: "overlap-time show=book-blocking",
        shows: "311 µs",
        eval: overlap_time,
    },
];

fn latency_knee(d: &Directive) -> Result<String, String> {
    let net = Network::ici(chip_arg(d)?).map_err(|e| e.to_string())?;
    Ok(si(net.latency_threshold().0, "B", 2))
}

/// The time of collective `op=` over that of `over=` for a terabyte on a ring of
/// `n` v5e chips.
fn collective_ratio(d: &Directive) -> Result<String, String> {
    let parse = |key: &str| {
        let t = d
            .arg(key)
            .ok_or_else(|| format!("`collective-ratio` needs {key}="))?;
        Collective::parse(t).ok_or_else(|| format!("unknown collective `{t}`"))
    };
    let (a, b) = (parse("op")?, parse("over")?);
    let n = num_arg(d, "n", Some(16.0))? as u32;
    let net =
        Network::ici(chip("v5e").ok_or("no v5e in the registry")?).map_err(|e| e.to_string())?;
    let t = |c| {
        cost(c, Bytes(1e12), &[RingAxis::ring(n)], &net)
            .map(|k| k.time.0)
            .map_err(|e| e.to_string())
    };
    Ok(sci(t(a)? / t(b)?, 2))
}

fn gather_knee(d: &Directive) -> Result<String, String> {
    let c = chip_arg(d)?;
    let net = Network::ici(c).map_err(|e| e.to_string())?;
    let n = whole_arg(d, "n", 16.0, 1024.0)? as u32;
    let curve = gather_curve(&net, n, Bytes(1e3), Bytes(1e9), 2)?;
    match show_arg(d, "knee") {
        "knee" => Ok(si(curve.knee.0, "B", 2)),
        "measured-at" => Ok(si(curve.measured_at.0, "B", 2)),
        "measured-fraction" => Ok(format!("{:.0}%", curve.measured_fraction * 100.0)),
        o => Err(unknown_show(d, o, "knee, measured-at, measured-fraction")),
    }
}

fn collective_matmul_value(d: &Directive) -> Result<String, String> {
    let c = chip_arg(d)?;
    let n = whole_arg(d, "n", 8.0, 1024.0)? as u32;
    let dim = |k| whole_arg(d, k, 8192.0, 1e7);
    let mut p = CollectiveMatmulParams::new(c, n, dim("i")?, dim("j")?, dim("k")?);
    let case = d.arg("case").unwrap_or("allgather");
    p.case = MatmulCase::parse(case)
        .ok_or_else(|| format!("case=`{case}` is not allgather or reducescatter"))?;
    let r = collective_matmul(&p)?;
    match show_arg(d, "saved") {
        "blocking" => Ok(seconds(r.blocking.0)),
        "overlapped" => Ok(seconds(r.overlapped.0)),
        "saved" => Ok(seconds(r.saved.0)),
        "compute" => Ok(seconds(r.compute.0)),
        "gather" => Ok(seconds(r.gather.0)),
        o => Err(unknown_show(
            d,
            o,
            "blocking, overlapped, saved, compute, gather",
        )),
    }
}

/// Core's overlap timeline, or the times the book measured for it.
fn overlap_time(d: &Directive) -> Result<String, String> {
    let book = |i: usize| format!("{} µs", BOOK_TIMES[i].micros);
    let r = overlap_timeline(&OverlapParams::default())?;
    let t = match show_arg(d, "overlapped") {
        "overlapped" => r.overlapped.total,
        "blocking" => r.blocking.total,
        "matmul" => r.matmul_only,
        "book-blocking" => return Ok(book(0)),
        "book-overlapped" => return Ok(book(1)),
        "book-matmul" => return Ok(book(2)),
        o => {
            return Err(unknown_show(
                d,
                o,
                "overlapped, blocking, matmul, book-blocking, book-overlapped, book-matmul",
            ))
        }
    };
    Ok(si(t.0, "s", 3))
}
