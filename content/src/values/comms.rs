//! Communication values (Parts 3 and 10): when an ICI transfer is
//! latency-bound, how collectives compare, and how much a collective matmul
//! hides behind its compute.

use super::args::{chip_arg, count_of, num_arg, show_arg, unknown_show, whole_arg};
use super::entry::ValueDirective;
use crate::directive::Directive;
use ridgeline_core::comms::collective_matmul::{
    collective_matmul, gather_curve, CollectiveMatmulParams, MatmulCase,
};
use ridgeline_core::comms::collectives::{cost, Collective, Network, RingAxis};
use ridgeline_core::comms::overlap_timeline::{overlap_timeline, OverlapParams, BOOK_TIMES};
use ridgeline_core::format::{sci, seconds, si};
use ridgeline_core::hardware::{chip, ALLGATHER_PROFILED_LARGE, ALLGATHER_PROFILED_SMALL};
use ridgeline_core::sharding::jax_code::collective_matmul_code;
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
        doc: "the AllGather cost model on a full ring of n: its latency knee (show=knee), its \
              bytes per second for large arrays (model-achieved) and the share of the one-way \
              peak the book's inference then reads (model-fraction); or the book's measurement \
              on a v5e ring of 16 (measured-at, measured-per-device, measured-fraction, \
              measured-achieved, measured-ring)",
        example: "gather-knee chip=v5e n=16 show=knee",
        shows: "720 kB",
        eval: gather_knee,
    },
    ValueDirective {
        name: "collective-time",
        args: &["op", "chip", "n", "v", "wrap", "show"],
        doc: "the cost model's time of one collective of v bytes (the book's V) along one axis \
              of n chips, with wraparound unless wrap=0: show=time (default), bound, or v (the \
              bytes, as written)",
        example: "collective-time op=allreduce chip=v5e n=16 v=134217728 wrap=1 show=time",
        shows: "2.98 ms",
        eval: collective_time,
    },
    ValueDirective {
        name: "gather-profiled",
        args: &["show"],
        doc: "the times the book profiled for Part 3's Pop Quiz 2, AllGather_Y on a v5e mesh \
              {X: 8, Y: 4}: show=large (E = 2048, F = 8192) or small (E = F = 256)",
        example: "gather-profiled show=large",
        shows: "680 µs",
        eval: gather_profiled,
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
              book-blocking, book-overlapped, book-matmul (the book's profiles), or \
              book-blocking-over, book-overlapped-over (how much slower than book-matmul each \
              measured version is)",
        example: "overlap-time show=book-blocking",
        shows: "311 µs",
        eval: overlap_time,
    },
    ValueDirective {
        name: "collective-matmul-code",
        args: &["y", "line"],
        doc: "Part 10's overlapped collective matmul as the `shard_map` program core generates \
              for the book's sizes on a Y ring of y chips (default 4), per-chip times in its \
              comments; the whole program, for a fenced code block, or only its line `line=` \
              (from 1)",
        example: "collective-matmul-code y=4 line=1",
        shows: "import jax",
        eval: collective_matmul_code_value,
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
    let n = count_of(num_arg(d, "n", Some(16.0))?, "n")?;
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
    let n = whole_arg::<u32>(d, "n", 16.0, 1024.0)?;
    let curve = gather_curve(&net, RingAxis::ring(n), Bytes(1e3), Bytes(1e9), 2)?;
    let percent = |f: f64| format!("{:.0}%", f * 100.0);
    match show_arg(d, "knee") {
        "knee" => Ok(si(curve.knee.0, "B", 2)),
        "model-achieved" => Ok(sci(curve.achieved_limit.0, 2)),
        "model-fraction" => Ok(percent(curve.fraction_limit)),
        "measured-at" => Ok(si(curve.measured_at.0, "B", 2)),
        "measured-per-device" => Ok(si(curve.measured_per_device().0, "B", 3)),
        "measured-fraction" => Ok(percent(curve.measured_fraction)),
        "measured-achieved" => Ok(sci(curve.measured_achieved.0, 2)),
        "measured-ring" => Ok(curve.measured_ring.to_string()),
        o => Err(unknown_show(
            d,
            o,
            "knee, model-achieved, model-fraction, measured-at, measured-per-device, \
             measured-fraction, measured-achieved, measured-ring",
        )),
    }
}

/// One collective's time, bound or size on one axis of a chip's ICI.
fn collective_time(d: &Directive) -> Result<String, String> {
    let t = d.arg("op").ok_or("`collective-time` needs op=")?;
    let op = Collective::parse(t).ok_or_else(|| format!("unknown collective `{t}`"))?;
    let net = Network::ici(chip_arg(d)?).map_err(|e| e.to_string())?;
    let n = whole_arg::<u32>(d, "n", 16.0, 1024.0)?;
    let v = num_arg(d, "v", None)?;
    let wrap = match d.arg("wrap").unwrap_or("1") {
        "1" => true,
        "0" => false,
        o => return Err(format!("wrap=`{o}` is not 0 or 1")),
    };
    let c = cost(op, Bytes(v), &[RingAxis { size: n, wrap }], &net).map_err(|e| e.to_string())?;
    match show_arg(d, "time") {
        "time" => Ok(seconds(c.time.0)),
        "bound" => Ok(c.bound.text().into()),
        "v" => Ok(si(v, "B", 3)),
        o => Err(unknown_show(d, o, "time, bound, v")),
    }
}

/// The book's profiled times of Pop Quiz 2's AllGather.
fn gather_profiled(d: &Directive) -> Result<String, String> {
    let t = match show_arg(d, "large") {
        "large" => ALLGATHER_PROFILED_LARGE.value,
        "small" => ALLGATHER_PROFILED_SMALL.value,
        o => return Err(unknown_show(d, o, "large, small")),
    };
    Ok(seconds(t.0))
}

fn collective_matmul_value(d: &Directive) -> Result<String, String> {
    let c = chip_arg(d)?;
    let n = whole_arg::<u32>(d, "n", 8.0, 1024.0)?;
    let dim = |k| whole_arg::<u64>(d, k, 8192.0, 1e7);
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

/// Core's collective-matmul program (`sharding::jax_code::collective_matmul_code`)
/// for the book's example with a `Y` ring of `y=` chips: all of it, or its line
/// `line=`.
fn collective_matmul_code_value(d: &Directive) -> Result<String, String> {
    let p = OverlapParams {
        y: whole_arg::<u64>(d, "y", OverlapParams::default().y as f64, 64.0)?,
        ..OverlapParams::default()
    };
    let code = collective_matmul_code(&p)?;
    match d.arg("line") {
        None => Ok(code.trim_end().to_string()),
        Some(_) => {
            let n = whole_arg::<usize>(d, "line", 1.0, 1e4)?;
            code.lines()
                .nth(n - 1)
                .map(str::to_string)
                .ok_or_else(|| format!("the program has {} lines", code.lines().count()))
        }
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
        // How much slower than the matmul that needs no communication the
        // book measured each version, in whole percent.
        over @ ("book-blocking-over" | "book-overlapped-over") => {
            let i = usize::from(over == "book-overlapped-over");
            let over = BOOK_TIMES[i].micros / BOOK_TIMES[2].micros - 1.0;
            return Ok(format!("{:.0}%", over * 100.0));
        }
        o => {
            return Err(unknown_show(
                d,
                o,
                "overlapped, blocking, matmul, book-blocking, book-overlapped, book-matmul, \
                 book-blocking-over, book-overlapped-over",
            ))
        }
    };
    Ok(si(t.0, "s", 3))
}
