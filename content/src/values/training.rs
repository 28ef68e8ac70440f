//! Training values (Parts 5–6 and their in-depth sections): the batch sizes
//! above which each kind of parallelism is compute-bound, the FSDP × tensor
//! split, pipeline bubbles, Part 6's run assumptions, its FLOPs, days and
//! memory ledger.

use super::args::{billions, chip_arg, message, model_arg, num_arg, show_arg, unknown_show};
use super::entry::ValueDirective;
use crate::directive::Directive;
use ridgeline_core::dtype::Dtype;
use ridgeline_core::format::{grouped, sci, si};
use ridgeline_core::hardware::Chip;
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
        name: "pipeline-bubble",
        args: &["stages", "microbatches", "schedule", "chunks"],
        doc: "the bubble of a pipeline schedule (gpipe, 1f1b, interleaved, bidirectional), \
              simulated",
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
    Cluster::full_pod(c, pods as u32).map_err(message)
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
        tr::sequence_degree(shards as u64, RunAssumptions::BOOK.sequences) as f64,
    ))
}

fn pipeline_bubble(d: &Directive) -> Result<String, String> {
    let s = num_arg(d, "stages", None)? as u32;
    let m = num_arg(d, "microbatches", None)? as u32;
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
    let cfg = model_arg(d)?;
    let c = chip_arg(d)?;
    let cl = full_pods(c, num_arg(d, "pods", Some(1.0))?)?;
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
        Remat::PerLayer(checkpoints as u32),
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
