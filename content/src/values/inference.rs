//! Inference values (Parts 7–8 and their in-depth sections): weights and KV
//! caches in bytes, the smallest slice that holds a model, decode step times,
//! the book's LLaMA 2-13B tables, serving metrics and cost, speculative
//! sampling, weight-stationary and KV sharding, the KV handover of
//! disaggregated serving and the serving simulation.

use super::args::{
    chip_arg, count_of, dtype_arg, message, model_arg, num_arg, show_arg, unknown_show,
};
use super::entry::ValueDirective;
use crate::directive::Directive;
use ridgeline_core::dtype::Dtype;
use ridgeline_core::format::{grouped, round_sig, sci, si};
use ridgeline_core::hardware::{chip, Chip};
use ridgeline_core::inference::book;
use ridgeline_core::inference::kv_sharding::{kv_sharding, KvShardingParams};
use ridgeline_core::inference::serving::{self, SpeculativeParams};
use ridgeline_core::inference::serving_engine::{simulate, PrefillPlacement, SimParams, SimReport};
use ridgeline_core::inference::{
    critical_batch, decode_step, largest_batch, max_batch as max_batch_of, min_slice_chips,
    tokens_evicted_per_step, weight_stationary_crossover, Precision, ServingModel, ServingSlice,
};
use std::sync::OnceLock;

/// The inference value directives.
pub const VALUES: &[ValueDirective] = &[
    ValueDirective {
        name: "param-bytes",
        args: &["model", "dtype"],
        doc: "bytes of a preset's weights in a format",
        example: "param-bytes model=llama3-70b dtype=int8",
        shows: "70.6 GB",
        eval: param_bytes,
    },
    ValueDirective {
        name: "kv-sequence",
        args: &["model", "dtype", "seq"],
        doc: "KV-cache bytes of one sequence of a preset (Parts 7-8)",
        example: "kv-sequence model=llama3-70b dtype=int8 seq=8192",
        shows: "1.34 GB",
        eval: kv_sequence,
    },
    ValueDirective {
        name: "min-slice",
        args: &["model", "chip", "dtype"],
        doc: "the smallest power-of-two slice whose HBM holds a preset's weights",
        example: "min-slice model=llama3-70b chip=v5e dtype=int4",
        shows: "4",
        eval: min_slice,
    },
    ValueDirective {
        name: "step-time",
        args: &["model", "chip", "chips", "dtype", "batch", "seq"],
        doc: "decode step time of a preset on a slice, weights and KV in dtype, FLOPs in bf16",
        example: "step-time model=llama3-70b chip=v5e chips=16 dtype=int8 batch=8 seq=2048",
        shows: "5.58 ms",
        eval: step_time,
    },
    ValueDirective {
        name: "max-batch",
        args: &["model", "chip", "chips", "dtype", "seq"],
        doc: "the most sequences whose KV caches fit beside the weights on a slice",
        example: "max-batch model=llama3-70b chip=v5e chips=16 dtype=bf16 seq=2048",
        shows: "171",
        eval: max_batch,
    },
    ValueDirective {
        name: "serving-slice",
        args: &["chip", "chips", "dtype", "show"],
        doc: "what a slice of `chips` chips brings together: show=hbm (capacity), bw (HBM \
              bandwidth) or peak (FLOPs/s in dtype, bf16 by default)",
        example: "serving-slice chip=v5e chips=8 dtype=int8 show=peak",
        shows: "3.15 PFLOPs/s",
        eval: serving_slice,
    },
    ValueDirective {
        name: "theory-table",
        args: &["model", "chip", "chips", "batch", "seq", "kv", "show"],
        doc: "Part 7's memory-bound LLaMA 2-13B table at one batch (kv= replaces the KV \
              heads): show=step, tps, kv, total, fits (yes or no: weights and caches within \
              the slice's HBM) or max-batch (the most such sequences the slice holds)",
        example: "theory-table model=llama2-13b chip=v5e chips=8 batch=240 seq=8192 kv=8 \
                  show=step",
        shows: "53.1 ms",
        eval: theory_table,
    },
    ValueDirective {
        name: "serve-metric",
        args: &[
            "model", "chip", "chips", "dtype", "batch", "prompt", "output", "show",
        ],
        doc: "serving metrics of a preset: show=ttft, itl, tps (per chip) or usd (per million \
              tokens at the book's price)",
        example: "serve-metric model=llama2-13b chip=v5e chips=8 dtype=bf16 batch=16 \
                  prompt=2048 output=256 show=usd",
        shows: "1.39 USD",
        eval: serve_metric,
    },
    ValueDirective {
        name: "spec-sampling",
        args: &["draft", "accept", "cost", "show"],
        doc: "speculative sampling: show=tokens (per target step), speedup, or best (draft \
              length)",
        example: "spec-sampling draft=4 accept=0.8 cost=0.05 show=speedup",
        shows: "2.8",
        eval: spec_sampling,
    },
    ValueDirective {
        name: "esti",
        args: &["show"],
        doc: "ESTI's PaLM latency–cost figure (Part 7), from core's readings: show=capped (the \
              memory-capped point's cost over the frontier's), int8-gain (the most int8 weights save \
              at one latency), flat (the most a bf16 curve saves over its last doubling of latency) \
              or bcrit (TPU v4's critical batch in bf16)",
        example: "esti show=capped",
        shows: "2.4",
        eval: esti,
    },
    ValueDirective {
        name: "spec-paper",
        args: &["show", "task"],
        doc: "Chen et al.'s speculative-sampling measurements (Part 7), task=xsum or humaneval: \
              show=speedup (plain time over the best), best (the measured best draft length) or \
              accept (the fitted probability a drafted token is kept)",
        example: "spec-paper show=speedup task=xsum",
        shows: "1.92",
        eval: spec_paper,
    },
    ValueDirective {
        name: "ws-crossover",
        args: &["ratio"],
        doc: "chips above which 2D weight-stationary sharding beats 1D, for F = ratio·D",
        example: "ws-crossover ratio=4",
        shows: "72",
        eval: ws_crossover,
    },
    ValueDirective {
        name: "kv-shard",
        args: &["show"],
        doc: "KV sharding over heads and batch (LLaMA 3-70B shape, 8x4 v5e, batch 32): \
              show=ratio, per-chip, alltoall",
        example: "kv-shard show=ratio",
        shows: "4",
        eval: kv_shard,
    },
    ValueDirective {
        name: "handover",
        args: &["batch", "prefill", "decode", "show"],
        doc: "KV tokens freed (show=evicted, B(P+G)/G) or refilled (show=inserted, BP/G) per \
              decode step",
        example: "handover batch=32 prefill=8192 decode=4096 show=evicted",
        shows: "96",
        eval: handover,
    },
    ValueDirective {
        name: "serve-sim",
        args: &["layout", "show"],
        doc: "the serving simulation's default run: show=ttft-p50, ttft-p95, itl-p50, \
              itl-p95, hit-rate, requests",
        example: "serve-sim layout=interleaved show=itl-p95",
        shows: "19 ms",
        eval: serve_sim,
    },
];

/// The preset `model=` names, as core's serving model.
fn serving_model(d: &Directive) -> Result<ServingModel, String> {
    ServingModel::new(model_arg(d)?).map_err(message)
}

/// The chip named by `chip=`, or the book's serving chip, the TPU v5e.
fn chip_or_v5e(d: &Directive) -> Result<&'static Chip, String> {
    match d.arg("chip") {
        Some(_) => chip_arg(d),
        None => chip("v5e").ok_or_else(|| "no v5e in the registry".into()),
    }
}

fn param_bytes(d: &Directive) -> Result<String, String> {
    let m = serving_model(d)?;
    Ok(si(
        m.param_bytes(dtype_arg(d, "dtype", Dtype::Bf16)?).0,
        "B",
        3,
    ))
}

fn kv_sequence(d: &Directive) -> Result<String, String> {
    let m = serving_model(d)?;
    let b = m
        .kv_per_sequence(
            num_arg(d, "seq", None)?,
            dtype_arg(d, "dtype", Dtype::Bf16)?,
        )
        .map_err(message)?;
    Ok(si(b.0, "B", 3))
}

fn min_slice(d: &Directive) -> Result<String, String> {
    let m = serving_model(d)?;
    let n = min_slice_chips(
        m.param_bytes(dtype_arg(d, "dtype", Dtype::Bf16)?),
        chip_arg(d)?,
    )
    .map_err(message)?;
    Ok(grouped(n as f64))
}

/// The slice of `chips=` chips of the chip `chip=` names.
fn slice_arg(d: &Directive) -> Result<ServingSlice, String> {
    ServingSlice::new(chip_arg(d)?, count_of(num_arg(d, "chips", None)?, "chips")?).map_err(message)
}

/// Weights and KV cache stored in `dtype=` (bf16 by default).
fn stored_arg(d: &Directive) -> Result<Precision, String> {
    Ok(Precision::stored(dtype_arg(d, "dtype", Dtype::Bf16)?))
}

fn step_time(d: &Directive) -> Result<String, String> {
    let (m, s, p) = (serving_model(d)?, slice_arg(d)?, stored_arg(d)?);
    let w = m
        .workload(p, num_arg(d, "batch", None)?, num_arg(d, "seq", None)?)
        .map_err(message)?;
    Ok(si(
        decode_step(&w, &s, p.compute).map_err(message)?.total.0,
        "s",
        3,
    ))
}

fn max_batch(d: &Directive) -> Result<String, String> {
    let b = max_batch_of(
        &serving_model(d)?,
        stored_arg(d)?,
        &slice_arg(d)?,
        num_arg(d, "seq", None)?,
    )
    .map_err(message)?;
    Ok(grouped(b as f64))
}

fn serving_slice(d: &Directive) -> Result<String, String> {
    let s = slice_arg(d)?;
    match show_arg(d, "hbm") {
        "hbm" => Ok(si(s.hbm_capacity().0, "B", 3)),
        "bw" => Ok(si(s.hbm_bandwidth().0, "B/s", 3)),
        "peak" => {
            let p = s
                .peak(dtype_arg(d, "dtype", Dtype::Bf16)?)
                .map_err(message)?;
            Ok(si(p.0, "FLOPs/s", 3))
        }
        o => Err(unknown_show(d, o, "hbm, bw, peak")),
    }
}

fn theory_table(d: &Directive) -> Result<String, String> {
    let model = ServingModel::preset(d.arg("model").unwrap_or("llama2-13b")).map_err(message)?;
    let slice = ServingSlice::new(
        chip_or_v5e(d)?,
        count_of(num_arg(d, "chips", Some(8.0))?, "chips")?,
    )
    .map_err(message)?;
    let kv = match d.arg("kv") {
        Some(_) => Some(count_of(num_arg(d, "kv", None)?, "kv")?),
        None => None,
    };
    let b = num_arg(d, "batch", Some(1.0))?;
    let rows = serving::theory_table(
        &model,
        Precision::BF16,
        &slice,
        num_arg(d, "seq", Some(8192.0))?,
        kv,
        &[b],
    )
    .map_err(message)?;
    let r = rows.first().ok_or("the theory table has no row")?;
    match show_arg(d, "step") {
        "step" => Ok(si(r.step.0, "s", 3)),
        "tps" => Ok(grouped(r.tokens_per_sec)),
        "kv" => Ok(si(r.kv.0, "B", 3)),
        "total" => Ok(si(r.total.0, "B", 3)),
        "fits" => Ok(if r.fits { "yes" } else { "no" }.into()),
        "max-batch" => {
            let weights = r.total - r.kv;
            let per_sequence = r.kv / r.batch;
            let b = largest_batch(slice.hbm_capacity(), weights, per_sequence, slice.tp)
                .map_err(message)?;
            Ok(grouped(b as f64))
        }
        o => Err(unknown_show(d, o, "step, tps, kv, total, fits, max-batch")),
    }
}

fn serve_metric(d: &Directive) -> Result<String, String> {
    let model = ServingModel::preset(d.arg("model").unwrap_or("llama3-70b")).map_err(message)?;
    let slice = ServingSlice::new(
        chip_or_v5e(d)?,
        count_of(num_arg(d, "chips", Some(16.0))?, "chips")?,
    )
    .map_err(message)?;
    let m = serving::serving_metrics(
        &model,
        Precision::stored(dtype_arg(d, "dtype", Dtype::Bf16)?),
        &slice,
        num_arg(d, "batch", Some(32.0))?,
        num_arg(d, "prompt", Some(2048.0))?,
        num_arg(d, "output", Some(256.0))?,
        0.5,
    )
    .map_err(message)?;
    match show_arg(d, "itl") {
        "ttft" => Ok(si(m.ttft.0, "s", 3)),
        "itl" => Ok(si(m.itl.0, "s", 3)),
        "tps" => Ok(grouped(m.tokens_per_sec_per_chip)),
        "usd" => m
            .usd_per_million
            .map(|u| format!("{u:.2} USD"))
            .ok_or_else(|| "the book quotes no price for this chip".into()),
        o => Err(unknown_show(d, o, "ttft, itl, tps, usd")),
    }
}

fn spec_sampling(d: &Directive) -> Result<String, String> {
    let p = SpeculativeParams {
        draft: count_of(num_arg(d, "draft", Some(4.0))?, "draft")?,
        accept: num_arg(d, "accept", Some(0.8))?,
        draft_cost: num_arg(d, "cost", Some(0.05))?,
    };
    match show_arg(d, "speedup") {
        "tokens" => Ok(sci(serving::speculative(&p)?.tokens_per_step, 3)),
        "speedup" => Ok(sci(serving::speculative(&p)?.speedup, 3)),
        "best" => Ok(serving::best_draft(p.accept, p.draft_cost)?.0.to_string()),
        o => Err(unknown_show(d, o, "tokens, speedup, best")),
    }
}

fn esti(d: &Directive) -> Result<String, String> {
    let l = book::esti_lessons().ok_or("the ESTI readings give no lessons")?;
    let most = |v: Vec<f64>| v.into_iter().fold(0.0, f64::max);
    match show_arg(d, "capped") {
        "capped" => Ok(round_sig(l.capped_over_frontier, 2).to_string()),
        "int8-gain" => {
            Ok(round_sig(most(l.int8_gain.iter().map(|g| g.1).collect()), 2).to_string())
        }
        "flat" => Ok(format!(
            "{}%",
            round_sig(most(l.flat.iter().map(|f| f.1).collect()) * 100.0, 1)
        )),
        "bcrit" => {
            let v4 = chip(book::ESTI_CHIP).ok_or("no TPU v4 in the registry")?;
            Ok(grouped(round_sig(
                critical_batch(v4, Dtype::Bf16, Dtype::Bf16).map_err(message)?,
                3,
            )))
        }
        o => Err(unknown_show(d, o, "capped, int8-gain, flat, bcrit")),
    }
}

fn spec_paper(d: &Directive) -> Result<String, String> {
    let task = match d.arg("task").unwrap_or("xsum") {
        "xsum" => book::Task::XSum,
        "humaneval" => book::Task::HumanEval,
        o => return Err(format!("spec-paper task=`{o}` is not xsum or humaneval")),
    };
    match show_arg(d, "speedup") {
        "speedup" => Ok(round_sig(book::measured_speedup(task), 3).to_string()),
        "best" => Ok(book::measured_best(task).0.to_string()),
        "accept" => {
            Ok(round_sig(book::SpecFit::new().map_err(message)?.accept(task), 3).to_string())
        }
        o => Err(unknown_show(d, o, "speedup, best, accept")),
    }
}

fn ws_crossover(d: &Directive) -> Result<String, String> {
    let ratio = num_arg(d, "ratio", Some(4.0))?;
    Ok(grouped(
        weight_stationary_crossover(1.0, ratio).map_err(message)?,
    ))
}

fn kv_shard(d: &Directive) -> Result<String, String> {
    let r = kv_sharding(&KvShardingParams::default())?;
    match show_arg(d, "ratio") {
        "ratio" => Ok(grouped(r.kv_per_chip_heads_only.0 / r.kv_per_chip.0)),
        "per-chip" => Ok(si(r.kv_per_chip.0, "B", 3)),
        "alltoall" => Ok(si(r.all_to_all.0, "s", 2)),
        o => Err(unknown_show(d, o, "ratio, per-chip, alltoall")),
    }
}

fn handover(d: &Directive) -> Result<String, String> {
    let b = num_arg(d, "batch", Some(32.0))?;
    let p = num_arg(d, "prefill", Some(8192.0))?;
    let g = num_arg(d, "decode", Some(4096.0))?;
    let e = tokens_evicted_per_step(b, p, g).map_err(message)?;
    match show_arg(d, "evicted") {
        "evicted" => Ok(grouped(e)),
        "inserted" => Ok(grouped(b * p / g)),
        o => Err(unknown_show(d, o, "evicted, inserted")),
    }
}

fn serve_sim(d: &Directive) -> Result<String, String> {
    let t = d.arg("layout").unwrap_or("disaggregated");
    let layout = PrefillPlacement::parse(t).ok_or_else(|| format!("unknown layout `{t}`"))?;
    // The default run is the same for every page that shows it: simulate each
    // layout once per process.
    static RUNS: [OnceLock<Result<SimReport, String>>; 2] = [OnceLock::new(), OnceLock::new()];
    let slot = &RUNS[usize::from(layout == PrefillPlacement::Disaggregated)];
    let r = slot
        .get_or_init(|| {
            simulate(&SimParams {
                layout,
                ..SimParams::default()
            })
        })
        .clone()?;
    match show_arg(d, "itl-p95") {
        "ttft-p50" => Ok(si(r.ttft.p50.0, "s", 2)),
        "ttft-p95" => Ok(si(r.ttft.p95.0, "s", 2)),
        "itl-p50" => Ok(si(r.itl.p50.0, "s", 2)),
        "itl-p95" => Ok(si(r.itl.p95.0, "s", 2)),
        "hit-rate" => Ok(format!("{:.0} %", r.prefix_hit_rate * 100.0)),
        "requests" => Ok(grouped(r.completed as f64)),
        o => Err(unknown_show(
            d,
            o,
            "ttft-p50, ttft-p95, itl-p50, itl-p95, hit-rate, requests",
        )),
    }
}
