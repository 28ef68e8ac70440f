//! The value directives behind the in-depth sections of Parts 4–6: per-layer
//! parameter counts, Mixture-of-Experts and checkpointing costs, pipeline bubbles,
//! the FSDP × tensor split a mesh uses, and Part 6's run assumptions and memory
//! argument. Each evaluates through `ridgeline-core`; the table of names and
//! arguments is [`crate::values::VALUES`].

use crate::directive::Directive;
use crate::values::{chip_arg, model_arg, num_arg};
use ridgeline_core::dtype::Dtype;
use ridgeline_core::format::{grouped, sci, si};
use ridgeline_core::model::accounting::{self as tf, Optimizer, Remat};
use ridgeline_core::model::config::try_model;
use ridgeline_core::model::moe::{self, MoeParams};
use ridgeline_core::model::remat::{self, Policy, RematParams};
use ridgeline_core::training::pipeline::{self, PipelineParams, Schedule};
use ridgeline_core::training::{self as tr, Cluster, Job, RunAssumptions, Scheme};

/// The names this module evaluates.
pub const NAMES: &[&str] = &[
    "layer-params",
    "moe-value",
    "remat-cost",
    "pipeline-bubble",
    "fsdp-tp-split",
    "run-default",
    "train-memory",
    "seq-shards",
    "layer-share",
];

/// A valid value for every argument of [`NAMES`], for the test that evaluates each
/// listed directive with all its arguments given.
pub fn example_arg(name: &str, arg: &str) -> Option<&'static str> {
    if !NAMES.contains(&name) {
        return None;
    }
    Some(match (name, arg) {
        ("layer-params", "show") => "mlp",
        ("moe-value", "model") => "mixtral-8x7b",
        ("moe-value", "show") => "active",
        ("remat-cost", "policy") => "per-layer",
        ("remat-cost", "show") => "memory",
        ("pipeline-bubble", "schedule") => "interleaved",
        ("pipeline-bubble", "chunks") => "2",
        ("pipeline-bubble", "stages") => "4",
        ("pipeline-bubble", "microbatches") => "8",
        ("fsdp-tp-split", "chip") => "v5p",
        ("fsdp-tp-split", "mesh") => "16x16x16",
        ("fsdp-tp-split", "show") => "tp",
        ("run-default", "what") => "tokens",
        ("train-memory", "show") => "min-chips",
        ("train-memory", "checkpoints") => "4",
        ("seq-shards", "chip") => "v5p",
        ("seq-shards", "tp") => "4",
        ("layer-share", "show") => "other",
        (_, "model") => "llama3-70b",
        (_, "chip") => "v5e",
        (_, "dtype") => "bf16",
        (_, "batch") => "1048576",
        (_, "seq") => "4096",
        _ => return None,
    })
}

fn show<'a>(d: &'a Directive, default: &'a str) -> &'a str {
    d.arg("show").unwrap_or(default)
}

fn unknown(d: &Directive, what: &str, allowed: &str) -> String {
    format!("`{}`: unknown show=`{what}` ({allowed})", d.name)
}

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

/// Part 6's memory ledger: bf16 parameters, Adam's fp32 moments and `checkpoints`
/// saved `[B·T, D]` arrays per layer.
fn run_memory(d: &Directive) -> Result<tf::TrainingMemory, String> {
    let cfg = model_arg(d)?;
    let a = RunAssumptions::BOOK;
    let batch = num_arg(d, "batch", Some(a.batch_tokens()))?;
    let checkpoints = num_arg(d, "checkpoints", Some(4.0))?;
    if checkpoints.fract() != 0.0 || checkpoints > 1000.0 {
        return Err(format!(
            "checkpoints=`{checkpoints}` is not a whole number up to 1000"
        ));
    }
    tf::training_memory(
        &cfg,
        batch,
        Remat::PerLayer(checkpoints as u32),
        Optimizer::ADAM,
        Dtype::Bf16,
    )
    .map_err(|e| e.to_string())
}

/// Evaluates one of [`NAMES`].
pub fn evaluate(d: &Directive) -> Result<String, String> {
    match d.name.as_str() {
        "layer-params" => {
            let cfg = model_arg(d)?;
            Ok(grouped(match show(d, "attention") {
                "attention" => tf::attention_layer_params(&cfg),
                "mlp" => tf::dense_mlp_layer_params(&cfg),
                "q" => (cfg.d_model * cfg.heads * cfg.head_dim) as f64,
                "kv" => (cfg.d_model * cfg.kv_heads * cfg.head_dim) as f64,
                "embedding" => (cfg.vocab * cfg.d_model) as f64,
                o => return Err(unknown(d, o, "attention, mlp, q, kv, embedding")),
            }))
        }
        "moe-value" => {
            let id = d.arg("model").unwrap_or("deepseek-v3");
            let c = chip_arg(d)?;
            let mut p = MoeParams::preset(id, c)?;
            p.weight = match d.arg("dtype") {
                None => Dtype::Bf16,
                Some(t) => Dtype::parse(t).ok_or_else(|| format!("unknown dtype `{t}`"))?,
            };
            let a = moe::analyse(&p)?;
            let e = p.model.moe.ok_or("not a Mixture-of-Experts model")?;
            Ok(match show(d, "critical") {
                "critical" => grouped(a.critical_batch),
                "total" => format!("{}B", sci(a.total_params / 1e9, 3)),
                "active" => format!("{}B", sci(a.active_params / 1e9, 3)),
                "experts" => grouped(e.experts as f64),
                "k" => grouped(e.active as f64),
                "sparsity" => sci(e.sparsity(), 3),
                o => {
                    return Err(unknown(
                        d,
                        o,
                        "critical, total, active, experts, k, sparsity",
                    ))
                }
            })
        }
        "remat-cost" => {
            let cfg = model_arg(d)?;
            let p = RematParams::new(
                cfg,
                num_arg(d, "batch", Some(1.0))?,
                num_arg(d, "seq", Some(4096.0))?,
                1.0,
            );
            let policy = Policy::parse(d.arg("policy").unwrap_or("none"))?;
            let rows = remat::compare(&p)?;
            let row = rows
                .iter()
                .find(|r| r.policy == policy)
                .ok_or("policy missing from the comparison")?;
            Ok(match show(d, "flops") {
                "flops" => sci(row.flops_per_param_token, 2),
                "memory" => si(row.activation_bytes.0, "B", 3),
                o => return Err(unknown(d, o, "flops, memory")),
            })
        }
        "pipeline-bubble" => {
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
        "fsdp-tp-split" => {
            // The split the training roofline's table uses for this mesh and batch.
            let c = chip_arg(d)?;
            let cfg = model_arg(d)?;
            let cluster = Cluster::new(c, &mesh_arg(d)?, 1).map_err(|e| e.to_string())?;
            let job =
                Job::new(cfg, num_arg(d, "batch", None)?, 4096.0).map_err(|e| e.to_string())?;
            let plan = tr::book_plans(&job, &cluster)
                .into_iter()
                .find(|p| p.scheme() == Scheme::FsdpTensor)
                .ok_or("this mesh has no FSDP × tensor split")?;
            Ok(match show(d, "critical") {
                "critical" => {
                    let e = tr::evaluate(&job, &cluster, &plan).map_err(|e| e.to_string())?;
                    grouped(
                        e.critical_tokens_per_chip
                            .ok_or("this split is never compute-bound")?,
                    )
                }
                "fsdp" => grouped(plan.fsdp as f64),
                "tp" => grouped(plan.tensor as f64),
                o => return Err(unknown(d, o, "critical, fsdp, tp")),
            })
        }
        "run-default" => {
            let a = RunAssumptions::BOOK;
            Ok(match d.arg("what").ok_or("`run-default` needs what=")? {
                "tokens" => format!("{}T", sci(a.tokens / 1e12, 3)),
                "mfu" => format!("{}%", sci(100.0 * a.mfu, 3)),
                "sequences" => grouped(a.sequences),
                "seq" => grouped(a.seq_len),
                "batch" => grouped(a.batch_tokens()),
                "pods" => grouped(a.pods as f64),
                "model" => try_model(a.model).map_err(|e| e.to_string())?.name.to_string(),
                o => {
                    return Err(format!(
                        "`run-default`: unknown what=`{o}` (tokens, mfu, sequences, seq, batch, pods, model)"
                    ))
                }
            })
        }
        "train-memory" => {
            let m = run_memory(d)?;
            let total = m.total();
            Ok(match show(d, "total") {
                "params" => si(m.params.0, "B", 3),
                "optimizer" => si(m.optimizer.0, "B", 3),
                "checkpoints" => si(m.activations.0, "B", 3),
                "total" => si(total.0, "B", 3),
                "min-chips" => {
                    let c = chip_arg(d)?;
                    grouped(
                        tr::min_chips_for_memory(total, c.hbm_capacity.value)
                            .map_err(|e| e.to_string())?,
                    )
                }
                "per-chip" => {
                    let c = chip_arg(d)?;
                    let pod = Cluster::full_pod(c, 1).map_err(|e| e.to_string())?;
                    si(total.0 / pod.chips(), "B", 3)
                }
                o => {
                    return Err(unknown(
                        d,
                        o,
                        "params, optimizer, checkpoints, total, min-chips, per-chip",
                    ))
                }
            })
        }
        "seq-shards" => {
            // FSDP over the chips a `tp`-way tensor split leaves, on one full pod.
            let c = chip_arg(d)?;
            let pod = Cluster::full_pod(c, 1).map_err(|e| e.to_string())?;
            let tp = num_arg(d, "tp", Some(1.0))?;
            let a = RunAssumptions::BOOK;
            let shards = pod.chips() / tp;
            if shards.fract() != 0.0 {
                return Err(format!("tp=`{tp}` does not divide the pod's chips"));
            }
            Ok(grouped(
                tr::sequence_degree(shards as u64, a.sequences) as f64
            ))
        }
        "layer-share" => {
            // Forward FLOPs of one layer for one sequence, by kind of operation.
            let l = ridgeline_core::model::layer::layer_ops(
                &ridgeline_core::model::layer::LayerParams {
                    model: model_arg(d)?,
                    batch: 1.0,
                    seq: num_arg(d, "seq", Some(4096.0))?,
                    dtype: Dtype::Bf16,
                    causal: false,
                },
            )?;
            let share = match show(d, "other") {
                "matmul" => l.matmul_share(),
                "attention" => l.attention_share(),
                "other" => 1.0 - l.matmul_share(),
                o => return Err(unknown(d, o, "matmul, attention, other")),
            };
            Ok(format!("{}%", sci(100.0 * share, 2)))
        }
        other => Err(format!("`{other}` is not a Parts 4-6 value")),
    }
}

#[cfg(test)]
mod tests {
    use crate::values::evaluate;

    fn eval(text: &str) -> String {
        let d = crate::directive::find_directives(&format!("{{{{{text}}}}}"))
            .unwrap()
            .remove(0)
            .1;
        evaluate(&d).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    #[test]
    fn the_fixed_split_and_the_best_split_agree_with_the_book() {
        assert_eq!(
            eval("fsdp-tp-split chip=v5p model=llama3-70b mesh=16x16x16 batch=1048576 show=tp"),
            "8"
        );
        assert_eq!(
            eval("fsdp-tp-split chip=v5p model=llama3-70b mesh=16x16x16 batch=1048576"),
            "159"
        );
        assert_eq!(eval("fsdp-tp-critical chip=v5p model=llama3-70b"), "113");
    }

    #[test]
    fn part6_numbers() {
        assert_eq!(eval("run-default what=batch"), "4,194,304");
        assert_eq!(eval("run-default what=mfu"), "40%");
        assert_eq!(
            eval("layer-params model=llama3-70b show=mlp"),
            "704,643,072"
        );
        assert_eq!(eval("seq-shards chip=v5p tp=4"), "4");
        let chips: f64 = eval("train-memory model=llama3-70b chip=v5p show=min-chips")
            .replace(',', "")
            .parse()
            .unwrap();
        assert!((200.0..260.0).contains(&chips), "{chips}"); // the book: about 225
    }

    #[test]
    fn part4_and_5_numbers() {
        assert_eq!(eval("layer-share model=llama3-70b show=other"), "0.083%");
        assert_eq!(eval("pipeline-bubble stages=4 microbatches=8"), "27.3%");
        assert_eq!(
            eval("pipeline-bubble stages=4 microbatches=8 schedule=interleaved chunks=2"),
            "15.8%"
        );
        assert_eq!(eval("remat-cost model=llama3-70b policy=none"), "6.1");
        // The ridge of a v5e (about 240) times E/k = 4.
        assert_eq!(eval("moe-value chip=v5e model=mixtral-8x7b"), "961");
    }
}
