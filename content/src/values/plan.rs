//! Part 6's plans, worked from core: the FSDP × tensor split the book rounds
//! its optimum to on each pod, and a run's wall-clock time on any number of
//! chips (one chip, the fewest that hold the memory ledger, or full pods).

use super::args::{chip_arg, message, model_arg, num_arg, show_arg, unknown_show, whole_arg};
use super::entry::ValueDirective;
use crate::directive::Directive;
use ridgeline_core::check::whole;
use ridgeline_core::dtype::Dtype;
use ridgeline_core::format::{grouped, sci};
use ridgeline_core::model::accounting::{self as tf, Optimizer, Remat};
use ridgeline_core::training::{self as tr, Cluster, RunAssumptions, DAY, YEAR};

/// The plan value directives.
pub const VALUES: &[ValueDirective] = &[
    ValueDirective {
        name: "pod-plan",
        args: &["model", "chip", "batch", "pods", "show"],
        doc: "the book's FSDP × tensor split on each of `pods` full pods sharing a batch: \
              show=tokens-per-pod, x-opt (sqrt(2BN/F) per pod), tp (the pod's chips over \
              x-opt), fsdp (x-opt to the nearest power of two), tp-round (the largest power of \
              two that fits beside it), used, idle (chips per pod), dp (sequences of 4,096 \
              tokens, at most fsdp), seq (fsdp / dp), planner-fsdp (the pod over tp-round), \
              chips (all pods)",
        example: "pod-plan model=llama3-70b chip=v5p batch=4194304 pods=1 show=fsdp",
        shows: "2,048",
        eval: pod_plan,
    },
    ValueDirective {
        name: "train-time",
        args: &["model", "chip", "tokens", "mfu", "chips", "batch", "unit"],
        doc: "6 · params · tokens on `chips` chips (a number, or min: the fewest whose HBM \
              holds the memory ledger at `batch` with 4 checkpoints a layer) at an MFU: \
              unit=s, days or years",
        example: "train-time model=llama3-70b chip=v5p tokens=15e12 mfu=0.4 chips=min \
                  batch=4e6 unit=days",
        shows: "1,771",
        eval: train_time,
    },
];

/// The largest power of two at most `x` (at least one).
fn pow2_floor(x: f64) -> f64 {
    pow2(x.max(1.0).log2().floor())
}

/// Two to the whole power `e` (an exponent of a number at least one, so never
/// negative; one too large for any float is infinite).
fn pow2(e: f64) -> f64 {
    whole::<i32>(e).map_or(f64::INFINITY, |e| 2f64.powi(e))
}

fn pod_plan(d: &Directive) -> Result<String, String> {
    let cfg = model_arg(d)?;
    let c = chip_arg(d)?;
    let pods = whole_arg::<u32>(d, "pods", 1.0, 1e3)?;
    let cluster = Cluster::full_pod(c, pods).map_err(message)?;
    let pod = cluster.chips() / f64::from(pods);
    let batch = num_arg(d, "batch", Some(RunAssumptions::BOOK.batch_tokens()))?;
    let per_pod = batch / f64::from(pods);
    let f = cfg.d_ff as f64;
    let x = tr::optimal_fsdp(per_pod, f, pod, 2.0, 1.0);
    let fsdp = pow2(x.max(1.0).log2().round()).min(pod);
    let tp = pow2_floor(pod / fsdp);
    let sequences = (per_pod / RunAssumptions::BOOK.seq_len).max(1.0);
    let dp = fsdp.min(sequences);
    Ok(match show_arg(d, "fsdp") {
        "tokens-per-pod" => grouped(per_pod),
        "x-opt" => grouped(x),
        "tp" => sci(pod / x, 2),
        "fsdp" => grouped(fsdp),
        "tp-round" => grouped(tp),
        "used" => grouped(fsdp * tp),
        "idle" => grouped(pod - fsdp * tp),
        "dp" => grouped(dp),
        "seq" => grouped(fsdp / dp),
        "planner-fsdp" => grouped(pod / tp),
        "chips" => grouped(cluster.chips()),
        o => {
            return Err(unknown_show(
                d,
                o,
                "tokens-per-pod, x-opt, tp, fsdp, tp-round, used, idle, dp, seq, planner-fsdp, \
                 chips",
            ))
        }
    })
}

fn train_time(d: &Directive) -> Result<String, String> {
    let cfg = model_arg(d)?;
    let c = chip_arg(d)?;
    let params = tf::params(&cfg).total();
    let chips = match d.arg("chips") {
        Some("min") => {
            let batch = num_arg(d, "batch", Some(RunAssumptions::BOOK.batch_tokens()))?;
            let m = tf::training_memory(
                &cfg,
                batch,
                Remat::PerLayer(4),
                Optimizer::ADAM,
                Dtype::Bf16,
            )
            .map_err(message)?;
            tr::min_chips_for_memory(m.total(), c.hbm_capacity.value).map_err(message)?
        }
        _ => whole_arg::<u64>(d, "chips", 1.0, 1e7)? as f64,
    };
    let peak = c
        .peak(Dtype::Bf16)
        .ok_or_else(|| format!("{} has no bf16 peak", c.name))?;
    let run = tr::estimate_run(
        params,
        num_arg(d, "tokens", None)?,
        chips,
        peak,
        num_arg(d, "mfu", Some(1.0))?,
    )
    .map_err(message)?;
    let s = run.time.0;
    Ok(match d.arg("unit").unwrap_or("days") {
        "s" => ridgeline_core::format::seconds(s),
        "days" => grouped((s / DAY).round()),
        "years" => grouped((s / YEAR).round()),
        o => return Err(format!("unknown unit `{o}` (s, days, years)")),
    })
}
