//! The value directives behind the in-depth sections of Parts 7–10: the
//! book's LLaMA 2-13B tables, serving metrics and cost, speculative sampling,
//! 2D weight-stationary sharding, KV-cache sharding, the KV handover of
//! disaggregated serving, the serving simulation and Part 10's collective
//! matmul. Each evaluates through `ridgeline-core`; the table of names and
//! arguments is [`crate::values::VALUES`].

use crate::directive::Directive;
use crate::values::{chip_arg, num_arg};
use ridgeline_core::comms::overlap::{overlap_timeline, OverlapParams};
use ridgeline_core::dtype::Dtype;
use ridgeline_core::format::{grouped, sci, si};
use ridgeline_core::inference::engine::{simulate, Layout, SimParams, SimReport};
use ridgeline_core::inference::kv_sharding::{kv_sharding, KvShardingParams};
use ridgeline_core::inference::serving::{self, SpeculativeParams};
use ridgeline_core::inference::{Precision, ServingModel, ServingSlice};
use std::sync::OnceLock;

/// The names this module evaluates.
pub const NAMES: &[&str] = &[
    "theory-table",
    "serve-metric",
    "spec-sampling",
    "ws-crossover",
    "kv-shard",
    "handover",
    "serve-sim",
    "overlap-time",
];

/// A valid value for every argument of [`NAMES`], for the test that evaluates each
/// listed directive with all its arguments given.
pub fn example_arg(name: &str, arg: &str) -> Option<&'static str> {
    if !NAMES.contains(&name) {
        return None;
    }
    Some(match (name, arg) {
        (_, "model") => "llama2-13b",
        (_, "chip") => "v5e",
        (_, "chips") => "8",
        (_, "batch") => "16",
        (_, "seq") => "8192",
        ("theory-table", "kv") => "8",
        ("theory-table", "show") => "step",
        ("serve-metric", "dtype") => "bf16",
        ("serve-metric", "prompt") => "2048",
        ("serve-metric", "output") => "256",
        ("serve-metric", "show") => "usd",
        ("spec-sampling", "draft") => "4",
        ("spec-sampling", "accept") => "0.8",
        ("spec-sampling", "cost") => "0.05",
        ("spec-sampling", "show") => "speedup",
        ("ws-crossover", "ratio") => "4",
        ("kv-shard", "show") => "ratio",
        ("handover", "prefill") => "8192",
        ("handover", "decode") => "4096",
        ("handover", "show") => "evicted",
        ("serve-sim", "layout") => "interleaved",
        ("serve-sim", "show") => "itl-p95",
        ("overlap-time", "show") => "overlapped",
        _ => "1",
    })
}

/// The chip named by `chip=`, or the book's serving chip, the TPU v5e.
fn chip_or_v5e(d: &Directive) -> Result<&'static ridgeline_core::hardware::Chip, String> {
    match d.arg("chip") {
        Some(_) => chip_arg(d),
        None => {
            ridgeline_core::hardware::chip("v5e").ok_or_else(|| "no v5e in the registry".into())
        }
    }
}

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

fn show<'a>(d: &'a Directive, default: &'a str) -> &'a str {
    d.arg("show").unwrap_or(default)
}

fn unknown(d: &Directive, options: &str) -> String {
    format!(
        "`{}`: unknown show=`{}` ({options})",
        d.name,
        d.arg("show").unwrap_or("")
    )
}

/// Evaluates one of [`NAMES`].
pub fn evaluate(d: &Directive) -> Result<String, String> {
    match d.name.as_str() {
        "theory-table" => {
            let model =
                ServingModel::preset(d.arg("model").unwrap_or("llama2-13b")).map_err(err)?;
            let slice = ServingSlice::new(chip_or_v5e(d)?, num_arg(d, "chips", Some(8.0))? as u64)
                .map_err(err)?;
            let kv = match d.arg("kv") {
                Some(_) => Some(num_arg(d, "kv", None)? as u64),
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
            .map_err(err)?;
            let r = rows[0];
            match show(d, "step") {
                "step" => Ok(si(r.step.0, "s", 3)),
                "tps" => Ok(grouped(r.tokens_per_sec)),
                "kv" => Ok(si(r.kv.0, "B", 3)),
                "total" => Ok(si(r.total.0, "B", 3)),
                _ => Err(unknown(d, "step, tps, kv, total")),
            }
        }
        "serve-metric" => {
            let model =
                ServingModel::preset(d.arg("model").unwrap_or("llama3-70b")).map_err(err)?;
            let slice = ServingSlice::new(chip_or_v5e(d)?, num_arg(d, "chips", Some(16.0))? as u64)
                .map_err(err)?;
            let dt = match d.arg("dtype") {
                Some(t) => Dtype::parse(t).ok_or_else(|| format!("unknown dtype `{t}`"))?,
                None => Dtype::Bf16,
            };
            let m = serving::serving_metrics(
                &model,
                Precision::stored(dt),
                &slice,
                num_arg(d, "batch", Some(32.0))?,
                num_arg(d, "prompt", Some(2048.0))?,
                num_arg(d, "output", Some(256.0))?,
                0.5,
            )
            .map_err(err)?;
            match show(d, "itl") {
                "ttft" => Ok(si(m.ttft.0, "s", 3)),
                "itl" => Ok(si(m.itl.0, "s", 3)),
                "tps" => Ok(grouped(m.tokens_per_sec_per_chip)),
                "usd" => m
                    .usd_per_million
                    .map(|u| format!("{u:.2} USD"))
                    .ok_or_else(|| "the book quotes no price for this chip".into()),
                _ => Err(unknown(d, "ttft, itl, tps, usd")),
            }
        }
        "spec-sampling" => {
            let p = SpeculativeParams {
                draft: num_arg(d, "draft", Some(4.0))? as u32,
                accept: num_arg(d, "accept", Some(0.8))?,
                draft_cost: num_arg(d, "cost", Some(0.05))?,
            };
            match show(d, "speedup") {
                "tokens" => Ok(sci(serving::speculative(&p)?.tokens_per_step, 3)),
                "speedup" => Ok(sci(serving::speculative(&p)?.speedup, 3)),
                "best" => Ok(serving::best_draft(p.accept, p.draft_cost)?.0.to_string()),
                _ => Err(unknown(d, "tokens, speedup, best")),
            }
        }
        "ws-crossover" => {
            let ratio = num_arg(d, "ratio", Some(4.0))?;
            let n =
                ridgeline_core::inference::weight_stationary_crossover(1.0, ratio).map_err(err)?;
            Ok(grouped(n))
        }
        "kv-shard" => {
            let r = kv_sharding(&KvShardingParams::default())?;
            match show(d, "ratio") {
                "ratio" => Ok(grouped(r.kv_per_chip_heads_only.0 / r.kv_per_chip.0)),
                "per-chip" => Ok(si(r.kv_per_chip.0, "B", 3)),
                "alltoall" => Ok(si(r.all_to_all.0, "s", 2)),
                _ => Err(unknown(d, "ratio, per-chip, alltoall")),
            }
        }
        "handover" => {
            let b = num_arg(d, "batch", Some(32.0))?;
            let p = num_arg(d, "prefill", Some(8192.0))?;
            let g = num_arg(d, "decode", Some(4096.0))?;
            let e = ridgeline_core::inference::tokens_evicted_per_step(b, p, g).map_err(err)?;
            match show(d, "evicted") {
                "evicted" => Ok(grouped(e)),
                "inserted" => Ok(grouped(b * p / g)),
                _ => Err(unknown(d, "evicted, inserted")),
            }
        }
        "serve-sim" => {
            let t = d.arg("layout").unwrap_or("disaggregated");
            let layout = Layout::parse(t).ok_or_else(|| format!("unknown layout `{t}`"))?;
            // The default run is the same for every page that shows it: simulate
            // each layout once per process.
            static RUNS: [OnceLock<Result<SimReport, String>>; 2] =
                [OnceLock::new(), OnceLock::new()];
            let slot = &RUNS[usize::from(layout == Layout::Disaggregated)];
            let r = slot
                .get_or_init(|| {
                    simulate(&SimParams {
                        layout,
                        ..SimParams::default()
                    })
                })
                .clone()?;
            match show(d, "itl-p95") {
                "ttft-p50" => Ok(si(r.ttft.p50.0, "s", 2)),
                "ttft-p95" => Ok(si(r.ttft.p95.0, "s", 2)),
                "itl-p50" => Ok(si(r.itl.p50.0, "s", 2)),
                "itl-p95" => Ok(si(r.itl.p95.0, "s", 2)),
                "hit-rate" => Ok(format!("{:.0} %", r.prefix_hit_rate * 100.0)),
                "requests" => Ok(grouped(r.completed as f64)),
                _ => Err(unknown(
                    d,
                    "ttft-p50, ttft-p95, itl-p50, itl-p95, hit-rate, requests",
                )),
            }
        }
        "overlap-time" => {
            let r = overlap_timeline(&OverlapParams::default())?;
            let t =
                match show(d, "overlapped") {
                    "overlapped" => r.overlapped.total,
                    "blocking" => r.blocking.total,
                    "matmul" => r.matmul_only,
                    "book-blocking" => {
                        return Ok(format!(
                            "{} µs",
                            ridgeline_core::comms::overlap::BOOK_TIMES[0].micros
                        ))
                    }
                    "book-overlapped" => {
                        return Ok(format!(
                            "{} µs",
                            ridgeline_core::comms::overlap::BOOK_TIMES[1].micros
                        ))
                    }
                    "book-matmul" => {
                        return Ok(format!(
                            "{} µs",
                            ridgeline_core::comms::overlap::BOOK_TIMES[2].micros
                        ))
                    }
                    _ => return Err(unknown(
                        d,
                        "overlapped, blocking, matmul, book-blocking, book-overlapped, book-matmul",
                    )),
                };
            Ok(si(t.0, "s", 3))
        }
        other => Err(format!("`{other}` is not a Parts 7-10 value")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(s: &str) -> String {
        crate::values::evaluate(&Directive::parse(s).unwrap()).unwrap()
    }

    #[test]
    fn the_books_numbers_come_out() {
        assert_eq!(eval("theory-table batch=1 show=step"), "4.99 ms"); // the book: 4.98 ms
        assert_eq!(eval("theory-table batch=240 kv=8 show=step"), "53.1 ms"); // the book: 52.99 ms
        assert_eq!(eval("ws-crossover ratio=4"), "72");
        assert_eq!(
            eval("handover batch=32 prefill=8192 decode=4096 show=evicted"),
            "96"
        );
        assert_eq!(eval("kv-shard show=ratio"), "4");
        assert_eq!(eval("overlap-time show=book-blocking"), "311 µs");
        assert!(
            eval("serve-metric model=llama3-70b chip=v5e chips=16 dtype=int8 show=usd")
                .ends_with(" USD")
        );
        for s in [
            "serve-sim layout=interleaved show=itl-p95",
            "serve-sim show=itl-p95",
            "serve-sim show=hit-rate",
            "spec-sampling show=speedup",
            "spec-sampling show=best",
            "overlap-time show=overlapped",
            "overlap-time show=blocking",
            "kv-shard show=alltoall",
        ] {
            eprintln!("{s} = {}", eval(s));
        }
        let bad = crate::values::evaluate(&Directive::parse("serve-sim show=nope").unwrap());
        assert!(bad.unwrap_err().contains("unknown show"));
    }
}
