//! Training values (Parts 5–6 and their in-depth sections): the batch sizes
//! above which each kind of parallelism is compute-bound, the FSDP × tensor
//! split, pipeline bubbles, Part 6's run assumptions, its FLOPs, days and
//! memory ledger.

use super::args::{
    billions, chip_arg, count_of, message, model_arg, num_arg, show_arg, unknown_show,
};
use super::entry::ValueDirective;
use crate::directive::Directive;
use ridgeline_core::dtype::Dtype;
use ridgeline_core::format::{grouped, sci, si};
use ridgeline_core::hardware::tpu::Slice;
use ridgeline_core::hardware::{Chip, Link};
use ridgeline_core::model::accounting::{self as tf, Optimizer, Remat};
use ridgeline_core::model::config::try_model;
use ridgeline_core::training::pipeline::{self, PipelineParams, Schedule};
use ridgeline_core::training::{self as tr, Cluster, Job, RunAssumptions, Scheme};
use ridgeline_core::units::Intensity;

/// The training value directives.
pub const VALUES: &[ValueDirective] = &[
    ValueDirective {
        name: "ici-critical-batch",
        args: &["chip", "axes"],
        doc: "tokens per chip above which DP/FSDP over ICI is compute-bound (α / axes)",
        example: "ici-critical-batch chip=v5p axes=3",
        shows: "850",
        eval: ici_critical_batch,
    },
    ValueDirective {
        name: "dcn-critical",
        args: &["chip"],
        doc: "tokens per pod above which data parallelism across pods is compute-bound, C/W_dcn",
        example: "dcn-critical chip=v5e",
        shows: "63,040",
        eval: dcn_critical,
    },
    ValueDirective {
        name: "tp-max-degree",
        args: &["chip", "model", "axes"],
        doc: "the widest compute-bound tensor parallelism, axes·F/α",
        example: "tp-max-degree chip=v5p model=llama3-70b axes=1",
        shows: "11.2",
        eval: tp_max_degree,
    },
    ValueDirective {
        name: "fsdp-tp-critical",
        args: &["chip", "model"],
        doc: "tokens per chip above which FSDP (2 axes) × TP (1 axis) is compute-bound, α²/(2F)",
        example: "fsdp-tp-critical chip=v5p model=llama3-70b",
        shows: "113",
        eval: fsdp_tp_critical,
    },
    ValueDirective {
        name: "x-opt",
        args: &["model", "chip", "batch"],
        doc: "the FSDP degree minimising FSDP+TP communication on a full pod, sqrt(2BN/F)",
        example: "x-opt model=llama3-70b chip=v5p batch=4194304",
        shows: "1,619",
        eval: x_opt,
    },
    ValueDirective {
        name: "fsdp-tp-split",
        args: &["chip", "model", "mesh", "batch", "show"],
        doc: "the FSDP × tensor split the training roofline uses: show=critical (its tokens \
              per chip), fsdp or tp",
        example: "fsdp-tp-split chip=v5p model=llama3-70b mesh=16x16x16 batch=1048576 show=tp",
        shows: "8",
        eval: fsdp_tp_split,
    },
    ValueDirective {
        name: "seq-shards",
        args: &["chip", "tp"],
        doc: "sequence-sharding degree of FSDP over a full pod beside tp-way tensor \
              parallelism (a whole divisor)",
        example: "seq-shards chip=v5p tp=4",
        shows: "4",
        eval: seq_shards,
    },
    ValueDirective {
        name: "min-batch",
        args: &["chip", "chips", "scheme", "axes", "f"],
        doc: "the smallest global batch that keeps `chips` chips compute-bound: scheme=dp \
              (DP or FSDP over `axes` axes, α/axes per chip) or mixed (FSDP × TP, α²/(2F))",
        example: "min-batch chip=v5p chips=4096 scheme=mixed axes=3 f=32768",
        shows: "4.06e5",
        eval: min_batch,
    },
    ValueDirective {
        name: "max-chips",
        args: &["chip", "batch", "axes", "model", "scheme"],
        doc: "how many chips a batch spreads over before it turns communication-bound: \
              scheme=fsdp (α/axes per chip) or mixed (α²/(2F) with the model's F)",
        example: "max-chips chip=v5p batch=2e6 axes=3 model=llama3-70b scheme=mixed",
        shows: "17,638",
        eval: max_chips_value,
    },
    ValueDirective {
        name: "mixed-critical",
        args: &["chip", "f"],
        doc: "tokens per chip above which FSDP (2 axes) × TP (1 axis) is compute-bound for a \
              given F, α²/(2F)",
        example: "mixed-critical chip=v5p f=32768",
        shows: "99",
        eval: mixed_critical,
    },
    ValueDirective {
        name: "mixed-gain",
        args: &["chip", "f"],
        doc: "how many times fewer tokens per chip FSDP × TP needs than FSDP over three axes, \
              (α/3) / (α²/(2F))",
        example: "mixed-gain chip=v5p f=32768",
        shows: "8.6",
        eval: mixed_gain,
    },
    ValueDirective {
        name: "x-opt-for",
        args: &["batch", "f", "chips"],
        doc: "the FSDP degree minimising FSDP+TP communication for a batch, F and chip count, \
              sqrt(2BN/F)",
        example: "x-opt-for batch=48000 f=32768 chips=64",
        shows: "13.7",
        eval: x_opt_for,
    },
    ValueDirective {
        name: "tp-limit",
        args: &["chip", "f", "axes"],
        doc: "the widest compute-bound tensor parallelism for a given F, axes·F/α",
        example: "tp-limit chip=v5p f=49152 axes=1",
        shows: "19.3",
        eval: tp_limit,
    },
    ValueDirective {
        name: "tp-min-ff",
        args: &["chip", "degree", "axes"],
        doc: "the smallest F for which degree-way tensor parallelism is compute-bound, Y·α/axes",
        example: "tp-min-ff chip=v5p degree=8 axes=1",
        shows: "20,400",
        eval: tp_min_ff,
    },
    ValueDirective {
        name: "split-critical",
        args: &["chip", "f", "chips", "tp", "mx", "my"],
        doc: "global batch above which one fixed split (chips/tp FSDP over mx axes × tp TP over \
              my axes) is compute-bound, chips·α/(mx·tp); an error if the split never is",
        example: "split-critical chip=v5p f=32768 chips=4096 tp=8 mx=3 my=1",
        shows: "4.35e5",
        eval: split_critical,
    },
    ValueDirective {
        name: "dcn-egress",
        args: &["chip", "show"],
        doc: "data-centre network bandwidth of a full pod's hosts: show=chip (per chip), host \
              (chips per host × per chip) or pod (every chip of the pod)",
        example: "dcn-egress chip=v5p show=host",
        shows: "25 GB/s",
        eval: dcn_egress,
    },
    ValueDirective {
        name: "train-days-on",
        args: &["model", "chip", "tokens", "mfu", "chips"],
        doc: "days to train on a number of chips (not whole pods) at an MFU (a fraction)",
        example: "train-days-on model=llama3-70b chip=v5p tokens=15e12 mfu=0.5 chips=18823",
        shows: "17",
        eval: train_days_on,
    },
    ValueDirective {
        name: "pipeline-bubble",
        args: &["stages", "microbatches", "schedule", "chunks"],
        doc: "the bubble of a pipeline schedule (gpipe, 1f1b, interleaved, bidirectional, \
              zero-bubble, dualpipe), simulated",
        example: "pipeline-bubble stages=4 microbatches=8 schedule=interleaved chunks=2",
        shows: "15.8%",
        eval: pipeline_bubble,
    },
    ValueDirective {
        name: "max-dp-params",
        args: &["chip"],
        doc: "the largest model whose Adam state fits in one chip's HBM, in billions",
        example: "max-dp-params chip=v5e",
        shows: "1.6B",
        eval: max_dp_params,
    },
    ValueDirective {
        name: "train-flops",
        args: &["model", "tokens"],
        doc: "training FLOPs, 6 · params · tokens",
        example: "train-flops model=llama3-70b tokens=15e12",
        shows: "6.35e24",
        eval: train_flops,
    },
    ValueDirective {
        name: "train-days",
        args: &["model", "chip", "tokens", "mfu", "pods"],
        doc: "days to train on full pods at an MFU (a fraction)",
        example: "train-days model=llama3-70b chip=v5p tokens=15e12 mfu=0.4 pods=1",
        shows: "45",
        eval: train_days,
    },
    ValueDirective {
        name: "tokens-per-chip",
        args: &["chip", "batch", "pods"],
        doc: "global batch over the chips of full pods",
        example: "tokens-per-chip chip=v5p batch=4194304 pods=1",
        shows: "468",
        eval: tokens_per_chip,
    },
    ValueDirective {
        name: "run-default",
        args: &["what"],
        doc: "Part 6's run assumption from core: what=tokens, mfu, sequences, seq, batch, pods \
              or model",
        example: "run-default what=batch",
        shows: "4,194,304",
        eval: run_default,
    },
    ValueDirective {
        name: "train-memory",
        args: &["model", "chip", "batch", "checkpoints", "show"],
        doc: "Part 6's memory ledger (bf16 params, Adam, checkpoints per layer): show=params, \
              optimizer, checkpoints, total, min-chips, per-chip",
        example: "train-memory model=llama3-70b chip=v5e batch=1048576 checkpoints=4 \
                  show=min-chips",
        shows: "388",
        eval: train_memory,
    },
];

/// The chip's bf16 peak over its ICI bandwidth, α in the book's Part 5.
fn alpha(c: &Chip) -> Result<Intensity, String> {
    tr::ici_intensity(c, Dtype::Bf16).map_err(message)
}

/// `pods` full pods of chip `c`.
fn full_pods(c: &'static Chip, pods: f64) -> Result<Cluster, String> {
    Cluster::full_pod(c, count_of(pods, "pods")?).map_err(message)
}

fn ici_critical_batch(d: &Directive) -> Result<String, String> {
    let c = chip_arg(d)?;
    let axes = num_arg(d, "axes", Some(1.0))?;
    Ok(grouped(tr::dp_critical_tokens_per_chip(alpha(c)?, axes)))
}

fn dcn_critical(d: &Directive) -> Result<String, String> {
    let c = chip_arg(d)?;
    Ok(grouped(
        tr::dcn_intensity(c, Dtype::Bf16).map_err(message)?.0,
    ))
}

fn tp_max_degree(d: &Directive) -> Result<String, String> {
    let c = chip_arg(d)?;
    let cfg = model_arg(d)?;
    let axes = num_arg(d, "axes", Some(1.0))?;
    Ok(sci(tr::tp_max_degree(cfg.d_ff as f64, alpha(c)?, axes), 3))
}

fn fsdp_tp_critical(d: &Directive) -> Result<String, String> {
    let c = chip_arg(d)?;
    let cfg = model_arg(d)?;
    Ok(grouped(tr::fsdp_tp_critical_tokens_per_chip(
        alpha(c)?,
        cfg.d_ff as f64,
        2.0,
        1.0,
    )))
}

fn x_opt(d: &Directive) -> Result<String, String> {
    let cfg = model_arg(d)?;
    let cl = full_pods(chip_arg(d)?, 1.0)?;
    let b = num_arg(d, "batch", None)?;
    Ok(grouped(tr::optimal_fsdp(
        b,
        cfg.d_ff as f64,
        cl.chips(),
        2.0,
        1.0,
    )))
}

/// The mesh `mesh=16x16x16` names, one size per axis.
fn mesh_arg(d: &Directive) -> Result<Vec<u32>, String> {
    let text = d
        .arg("mesh")
        .ok_or_else(|| format!("`{}` needs mesh=", d.name))?;
    text.split('x')
        .map(|a| {
            a.parse::<u32>()
                .ok()
                .filter(|&n| n >= 1)
                .ok_or_else(|| format!("mesh=`{text}` is not like 16x16x16"))
        })
        .collect()
}

/// The split the training roofline's table uses for this mesh and batch.
fn fsdp_tp_split(d: &Directive) -> Result<String, String> {
    let c = chip_arg(d)?;
    let cfg = model_arg(d)?;
    let cluster = Cluster::new(c, &mesh_arg(d)?, 1).map_err(message)?;
    let job = Job::new(cfg, num_arg(d, "batch", None)?, 4096.0).map_err(message)?;
    let plan = tr::book_plans(&job, &cluster)
        .into_iter()
        .find(|p| p.scheme() == Scheme::FsdpTensor)
        .ok_or("this mesh has no FSDP × tensor split")?;
    Ok(match show_arg(d, "critical") {
        "critical" => {
            let e = tr::evaluate(&job, &cluster, &plan).map_err(message)?;
            grouped(
                e.critical_tokens_per_chip
                    .ok_or("this split is never compute-bound")?,
            )
        }
        "fsdp" => grouped(plan.fsdp as f64),
        "tp" => grouped(plan.tensor as f64),
        o => return Err(unknown_show(d, o, "critical, fsdp, tp")),
    })
}

/// FSDP over the chips a `tp`-way tensor split leaves, on one full pod.
fn seq_shards(d: &Directive) -> Result<String, String> {
    let pod = full_pods(chip_arg(d)?, 1.0)?;
    let tp = num_arg(d, "tp", Some(1.0))?;
    let shards = pod.chips() / tp;
    if shards.fract() != 0.0 {
        return Err(format!("tp=`{tp}` does not divide the pod's chips"));
    }
    Ok(grouped(
        tr::sequence_degree(count_of(shards, "shards")?, RunAssumptions::BOOK.sequences) as f64,
    ))
}

fn pipeline_bubble(d: &Directive) -> Result<String, String> {
    let s = count_of(num_arg(d, "stages", None)?, "stages")?;
    let m = count_of(num_arg(d, "microbatches", None)?, "microbatches")?;
    let schedule = Schedule::parse(d.arg("schedule").unwrap_or("gpipe"))?;
    let mut p = PipelineParams::new(s, m, schedule);
    if let Some(v) = d.arg("chunks") {
        p.chunks = v
            .parse()
            .map_err(|_| format!("chunks=`{v}` is not a whole number"))?;
    }
    let t = pipeline::simulate(&p)?;
    Ok(format!("{}%", sci(100.0 * t.bubble, 3)))
}

fn max_dp_params(d: &Directive) -> Result<String, String> {
    let c = chip_arg(d)?;
    Ok(billions(Optimizer::ADAM.max_params(c.hbm_capacity.value)))
}

fn train_flops(d: &Directive) -> Result<String, String> {
    let cfg = model_arg(d)?;
    let tokens = num_arg(d, "tokens", None)?;
    Ok(sci(
        tf::training_flops_rule(tf::params(&cfg).total(), tokens).0,
        3,
    ))
}

fn train_days(d: &Directive) -> Result<String, String> {
    let cl = full_pods(chip_arg(d)?, num_arg(d, "pods", Some(1.0))?)?;
    days_on(d, cl.chips())
}

/// Days to train the `model=` on `tokens=` over `chips` chips of `chip=` at `mfu=`.
fn days_on(d: &Directive, chips: f64) -> Result<String, String> {
    let cfg = model_arg(d)?;
    let c = chip_arg(d)?;
    let peak = c
        .peak(Dtype::Bf16)
        .ok_or_else(|| format!("{} has no bf16 peak", c.name))?;
    let run = tr::estimate_run(
        tf::params(&cfg).total(),
        num_arg(d, "tokens", None)?,
        chips,
        peak,
        num_arg(d, "mfu", None)?,
    )
    .map_err(message)?;
    Ok(sci(run.days(), 2))
}

fn tokens_per_chip(d: &Directive) -> Result<String, String> {
    let c = chip_arg(d)?;
    let cl = full_pods(c, num_arg(d, "pods", Some(1.0))?)?;
    Ok(grouped(num_arg(d, "batch", None)? / cl.chips()))
}

fn run_default(d: &Directive) -> Result<String, String> {
    let a = RunAssumptions::BOOK;
    Ok(match d.arg("what").ok_or("`run-default` needs what=")? {
        "tokens" => format!("{}T", sci(a.tokens / 1e12, 3)),
        "mfu" => format!("{}%", sci(100.0 * a.mfu, 3)),
        "sequences" => grouped(a.sequences),
        "seq" => grouped(a.seq_len),
        "batch" => grouped(a.batch_tokens()),
        "pods" => grouped(a.pods as f64),
        "model" => try_model(a.model).map_err(message)?.name.to_string(),
        o => {
            return Err(format!(
                "`run-default`: unknown what=`{o}` (tokens, mfu, sequences, seq, batch, pods, \
                 model)"
            ))
        }
    })
}

/// Part 6's memory ledger: bf16 parameters, Adam's fp32 moments and
/// `checkpoints` saved `[B·T, D]` arrays per layer.
fn train_memory(d: &Directive) -> Result<String, String> {
    let cfg = model_arg(d)?;
    let batch = num_arg(d, "batch", Some(RunAssumptions::BOOK.batch_tokens()))?;
    let checkpoints = num_arg(d, "checkpoints", Some(4.0))?;
    if checkpoints.fract() != 0.0 || checkpoints > 1000.0 {
        return Err(format!(
            "checkpoints=`{checkpoints}` is not a whole number up to 1000"
        ));
    }
    let m = tf::training_memory(
        &cfg,
        batch,
        Remat::PerLayer(count_of(checkpoints, "checkpoints")?),
        Optimizer::ADAM,
        Dtype::Bf16,
    )
    .map_err(message)?;
    let total = m.total();
    Ok(match show_arg(d, "total") {
        "params" => si(m.params.0, "B", 3),
        "optimizer" => si(m.optimizer.0, "B", 3),
        "checkpoints" => si(m.activations.0, "B", 3),
        "total" => si(total.0, "B", 3),
        "min-chips" => {
            let c = chip_arg(d)?;
            grouped(tr::min_chips_for_memory(total, c.hbm_capacity.value).map_err(message)?)
        }
        "per-chip" => {
            let pod = full_pods(chip_arg(d)?, 1.0)?;
            si(total.0 / pod.chips(), "B", 3)
        }
        o => {
            return Err(unknown_show(
                d,
                o,
                "params, optimizer, checkpoints, total, min-chips, per-chip",
            ))
        }
    })
}

/// `scheme=` of [`min_batch`] and [`max_chips_value`]: DP/FSDP or the mixed scheme.
fn per_chip_threshold(d: &Directive, a: Intensity, f: Option<f64>) -> Result<f64, String> {
    match d.arg("scheme").unwrap_or("dp") {
        "dp" | "fsdp" => Ok(tr::dp_critical_tokens_per_chip(
            a,
            num_arg(d, "axes", Some(1.0))?,
        )),
        "mixed" => {
            let f = f.ok_or_else(|| format!("`{}` scheme=mixed needs F", d.name))?;
            Ok(tr::fsdp_tp_critical_tokens_per_chip(a, f, 2.0, 1.0))
        }
        o => Err(format!(
            "`{}`: unknown scheme=`{o}` (dp, fsdp, mixed)",
            d.name
        )),
    }
}

fn min_batch(d: &Directive) -> Result<String, String> {
    let a = alpha(chip_arg(d)?)?;
    let f = d.arg("f").map(|_| num_arg(d, "f", None)).transpose()?;
    let chips = num_arg(d, "chips", None)?;
    Ok(sci(per_chip_threshold(d, a, f)? * chips, 3))
}

fn max_chips_value(d: &Directive) -> Result<String, String> {
    let a = alpha(chip_arg(d)?)?;
    let f = model_arg(d)?.d_ff as f64;
    let t = per_chip_threshold(d, a, Some(f))?;
    Ok(grouped(tr::max_chips(num_arg(d, "batch", None)?, t)))
}

fn mixed_critical(d: &Directive) -> Result<String, String> {
    let a = alpha(chip_arg(d)?)?;
    Ok(grouped(tr::fsdp_tp_critical_tokens_per_chip(
        a,
        num_arg(d, "f", None)?,
        2.0,
        1.0,
    )))
}

fn mixed_gain(d: &Directive) -> Result<String, String> {
    let a = alpha(chip_arg(d)?)?;
    let fsdp = tr::dp_critical_tokens_per_chip(a, 3.0);
    let mixed = tr::fsdp_tp_critical_tokens_per_chip(a, num_arg(d, "f", None)?, 2.0, 1.0);
    Ok(sci(fsdp / mixed, 2))
}

/// Three significant figures below a hundred (`13.7`), whole and grouped above.
fn x_opt_for(d: &Directive) -> Result<String, String> {
    let x = tr::optimal_fsdp(
        num_arg(d, "batch", None)?,
        num_arg(d, "f", None)?,
        num_arg(d, "chips", None)?,
        2.0,
        1.0,
    );
    Ok(if x < 100.0 { sci(x, 3) } else { grouped(x) })
}

fn tp_limit(d: &Directive) -> Result<String, String> {
    let a = alpha(chip_arg(d)?)?;
    let axes = num_arg(d, "axes", Some(1.0))?;
    Ok(sci(tr::tp_max_degree(num_arg(d, "f", None)?, a, axes), 3))
}

fn tp_min_ff(d: &Directive) -> Result<String, String> {
    let a = alpha(chip_arg(d)?)?;
    let axes = num_arg(d, "axes", Some(1.0))?;
    Ok(grouped(tr::tp_min_d_ff(
        num_arg(d, "degree", None)?,
        a,
        axes,
    )))
}

fn split_critical(d: &Directive) -> Result<String, String> {
    let a = alpha(chip_arg(d)?)?;
    let chips = num_arg(d, "chips", None)?;
    let tp = num_arg(d, "tp", None)?;
    let per_chip = tr::fsdp_tp_split_critical_tokens_per_chip(
        a,
        tp,
        num_arg(d, "f", None)?,
        num_arg(d, "mx", None)?,
        num_arg(d, "my", None)?,
    )
    .ok_or_else(|| format!("{d}: {tp}-way tensor parallelism is never compute-bound"))?;
    Ok(sci(per_chip * chips, 3))
}

fn dcn_egress(d: &Directive) -> Result<String, String> {
    let c = chip_arg(d)?;
    let pod = Slice::full_pod(c).map_err(|e| e.to_string())?;
    let per_chip = c
        .bandwidth(Link::Dcn)
        .ok_or_else(|| format!("{} has no DCN link", c.name))?;
    let chips = match show_arg(d, "chip") {
        "chip" => 1.0,
        "host" => pod.chips_per_host() as f64,
        "pod" => pod.chips() as f64,
        o => return Err(unknown_show(d, o, "chip, host, pod")),
    };
    Ok(si(per_chip.0 * chips, "B/s", 3))
}

fn train_days_on(d: &Directive) -> Result<String, String> {
    days_on(d, num_arg(d, "chips", None)?)
}
