//! Part 6 (training LLaMA 3 on TPUs): the exercises of `ch6-*`, computed as in
//! `golden_ch6.rs`.

use super::def::{choice, n, param, value, Answer, Def, Kind, Param, Scale, Solution};
use super::kit::{chip_param, def, describe, model_param, s};
use super::part5::{
    attention_count, count_def, count_prompt, mixed, mixed_prompt, mlp_count, total_count,
    vocab_count, x_opt, x_opt_prompt, V5P_FIRST,
};
use crate::check::whole;
use crate::dtype::Dtype;
use crate::format::{sci, seconds, si};
use crate::hardware::{chip, Chip};
use crate::model::accounting::{params, state_memory, training_flops_rule, Optimizer, Remat};
use crate::model::config::{model, ModelConfig};
use crate::training::{
    dcn_intensity, dp_critical_tokens_per_chip, estimate_run, evaluate,
    fsdp_tp_critical_tokens_per_chip, ici_intensity, min_chips_for_memory, optimal_fsdp,
    scale_time, training_time, Cluster, Job, Parallelism, TrainingError, DAY, YEAR,
};
use crate::units::{Bytes, Seconds};

const LLAMA70_FIRST: &[&str] = &["llama3-70b", "llama3-8b", "llama3-405b", "llama2-13b"];
const LLAMA405_FIRST: &[&str] = &["llama3-405b", "llama3-70b", "llama3-8b", "llama2-13b"];
const TB: f64 = 1e12;

fn name(p: &[Param]) -> &'static str {
    chip_param(p, "chip").map_or("TPU", |c| c.name)
}

fn v5p() -> Result<&'static Chip, String> {
    chip("v5p").ok_or_else(|| "no v5p in the registry".to_string())
}

fn llama() -> Result<ModelConfig, String> {
    Ok(model("llama3-70b").ok_or("no llama3-70b preset")?.config)
}

fn pod(c: &'static Chip) -> Result<Cluster, String> {
    Cluster::full_pod(c, 1).map_err(s)
}

fn ckpt(p: &[Param]) -> Result<Remat, String> {
    let c = value(p, "ckpt");
    if !(1.0..=64.0).contains(&c) {
        return Err("1 to 64 checkpoints per layer".into());
    }
    Ok(Remat::PerLayer(whole(c).unwrap_or(1)))
}

/// Checkpoints and Adam state of LLaMA 3-70B: (activations, total).
fn memory(p: &[Param], batch: f64) -> Result<(Bytes, Bytes), String> {
    let acts = ckpt(p)?.activation_bytes(&llama()?, batch, Dtype::Bf16);
    let m = state_memory(70e9, Optimizer::ADAM, acts);
    Ok((acts, m.total()))
}

fn mem_prompt(p: &[Param], what: &str) -> String {
    format!(
        "LLaMA 3-70B (L = 80, D = 8,192; about 70e9 parameters) trains on a batch of {} tokens with bf16 parameters, fp32 Adam moments and {} bf16 checkpoints of size [tokens, D] per layer. {what}",
        sci(value(p, "B"), 3),
        n(value(p, "ckpt"))
    )
}

const P_MODEL: &[Param] = &[choice("model", "model", LLAMA70_FIRST)];
const P_Q2: &[Param] = &[param("N", "parameters", 70e9, 1e9, 1e12, Scale::Log)];
const P_Q3: &[Param] = &[
    choice("chip", "TPU", V5P_FIRST),
    param("N", "parameters", 70e9, 1e9, 1e12, Scale::Log),
    param("tokens", "training tokens", 15e12, 1e11, 1e14, Scale::Log),
];
const P_Q4: &[Param] = &[
    choice("chip", "TPU", V5P_FIRST),
    param("N", "parameters", 70e9, 1e9, 1e12, Scale::Log),
    param("tokens", "training tokens", 15e12, 1e11, 1e14, Scale::Log),
    param("mfu", "MFU", 0.4, 0.2, 0.7, Scale::Linear),
];
const P_Q5: &[Param] = &[
    param("B", "batch (tokens)", 4e6, 1e5, 3e7, Scale::Log),
    param("ckpt", "checkpoints per layer", 4.0, 1.0, 24.0, Scale::Int),
];
const P_Q5C: &[Param] = &[
    choice("chip", "TPU", V5P_FIRST),
    param(
        "total",
        "total memory (TB)",
        21.6,
        1.0,
        100.0,
        Scale::Linear,
    ),
];
const P_Q5D: &[Param] = &[
    param(
        "days",
        "days on a full pod",
        44.0,
        5.0,
        100.0,
        Scale::Linear,
    ),
    param("chips", "chips", 225.0, 16.0, 4096.0, Scale::Int),
];
const P_Q6A: &[Param] = &[param(
    "total",
    "total memory (TB)",
    21.6,
    1.0,
    100.0,
    Scale::Linear,
)];
const P_Q6B: &[Param] = &[
    param("B", "batch (tokens)", 4e6, 1e5, 3e7, Scale::Log),
    param("ckpt", "checkpoints per layer", 12.0, 1.0, 24.0, Scale::Int),
];
const P_Q7: &[Param] = &[param(
    "seqs",
    "sequences",
    1024.0,
    256.0,
    16384.0,
    Scale::Pow2,
)];
/// A batch of about four million tokens (Q8 and the worked problems).
const BATCH_4M: Param = param(
    "B",
    "batch (tokens)",
    4194304.0,
    1048576.0,
    16777216.0,
    Scale::Pow2,
);
const P_Q8: &[Param] = &[BATCH_4M];
const P_Q9A: &[Param] = &[
    choice("chip", "TPU", V5P_FIRST),
    param("F", "F", 28672.0, 4096.0, 65536.0, Scale::Linear),
];
const P_Q9B: &[Param] = &[
    param("B", "batch (tokens)", 4.19e6, 1e5, 3e7, Scale::Log),
    param("F", "F", 28672.0, 4096.0, 65536.0, Scale::Linear),
    param("N", "chips", 8960.0, 256.0, 16384.0, Scale::Pow2),
];
// The worked problems' inputs: a model, its pods, and a batch or an MFU.
const WP_MFU: Param = param("mfu", "MFU", 0.4, 0.2, 0.7, Scale::Linear);
const WP_70: Param = choice("model", "model", LLAMA70_FIRST);
const WP_405: Param = choice("model", "model", LLAMA405_FIRST);
const WP_4_PODS: Param = param("pods", "TPU v5p pods", 4.0, 1.0, 16.0, Scale::Int);
const WP_8_PODS: Param = param("pods", "TPU v5p pods", 8.0, 1.0, 16.0, Scale::Int);
const P_WP1: &[Param] = &[WP_70, WP_4_PODS, BATCH_4M];
const P_WP2B: &[Param] = &[WP_405, WP_8_PODS, BATCH_4M];
const P_WP1_DAYS: &[Param] = &[WP_70, WP_4_PODS, WP_MFU];
const P_WP2C: &[Param] = &[WP_405, WP_8_PODS, WP_MFU];
const P_WP2: &[Param] = &[
    choice("model", "model", LLAMA405_FIRST),
    param("tokens", "training tokens", 15e12, 1e11, 1e14, Scale::Log),
];

/// The worked problems' scenario: `pods` full v5p pods sharing a batch of `B`
/// tokens, for the chosen model.
fn pods_prompt(p: &[Param], ask: &str) -> String {
    let m = model_param(p, "model").map_or("the model", |m| m.name);
    format!(
        "{m} trains on {} full TPU v5p pods sharing a batch of {} tokens (sequences of 4,096). {ask}",
        n(value(p, "pods")),
        n(value(p, "B"))
    )
}

/// Which plan keeps the pods compute-bound: FSDP alone needs α/3 tokens per
/// chip, FSDP × tensor parallelism within a pod α²/(2F), and data parallelism
/// across pods C/W_dcn tokens per pod (Parts 5 and 6).
fn pods_plan(p: &[Param]) -> Result<Solution, String> {
    let m = model_param(p, "model")?;
    let c = v5p()?;
    let pods = value(p, "pods");
    let cl = Cluster::full_pod(c, whole(pods).unwrap_or(0)).map_err(s)?;
    let b = value(p, "B");
    let per_chip = b / cl.chips();
    let per_pod = b / pods;
    let a = ici_intensity(c, Dtype::Bf16).map_err(s)?;
    let f = m.config.d_ff as f64;
    let fsdp = dp_critical_tokens_per_chip(a, 3.0);
    let mixed = fsdp_tp_critical_tokens_per_chip(a, f, 2.0, 1.0);
    let dcn = dcn_intensity(c, Dtype::Bf16).map_err(s)?.0;
    let across = pods <= 1.0 || per_pod > dcn;
    let correct = if per_chip > fsdp && across {
        "a"
    } else if per_chip > mixed && across {
        "b"
    } else {
        "c"
    };
    let options = vec![
        ("a", "FSDP alone over every chip, compute-bound".to_string()),
        (
            "b",
            "FSDP × tensor parallelism within each pod (data parallelism across pods), compute-bound"
                .to_string(),
        ),
        ("c", "communication-bound whatever the split".to_string()),
    ];
    let x = optimal_fsdp(per_pod, f, cl.chips_per_slice as f64, 2.0, 1.0);
    Ok(Solution::new(Answer::Choice { options, correct })
        .step(format!(
            "{} tokens / {} chips = {} tokens per chip",
            n(b),
            n(cl.chips()),
            sci(per_chip, 3)
        ))
        .step(format!(
            "FSDP alone needs α/3 = {}; FSDP × TP needs α²/(2F) = {}² / (2 × {}) = {}",
            sci(fsdp, 3),
            sci(a.0, 4),
            n(f),
            sci(mixed, 3)
        ))
        .step(format!(
            "across pods: {} tokens per pod against C/W_dcn = {} over the DCN",
            sci(per_pod, 3),
            sci(dcn, 3)
        ))
        .step(format!(
            "within a pod X_opt = sqrt(2·B_pod·N/F) = {}, so about {}-way tensor parallelism",
            sci(x, 3),
            sci(cl.chips_per_slice as f64 / x, 2)
        )))
}

/// Days for 15T tokens on `pods` full v5p pods at an MFU.
fn pods_days(p: &[Param]) -> Result<Solution, String> {
    let m = model_param(p, "model")?;
    let c = v5p()?;
    let cl = Cluster::full_pod(c, whole::<u32>(value(p, "pods")).unwrap_or(0)).map_err(s)?;
    let peak = c.peak(Dtype::Bf16).ok_or("no bf16 peak")?;
    let total = params(&m.config).total();
    let run = estimate_run(total, 15e12, cl.chips(), peak, value(p, "mfu")).map_err(s)?;
    Ok(Solution::numeric(run.time.0, "days")
        .step(format!(
            "6 × {} parameters × 15e12 tokens = {} FLOPs",
            sci(total, 3),
            sci(run.flops.0, 3)
        ))
        .step(format!(
            "/ ({} chips × {} FLOPs/s × {:.0}%) = {} s = {:.1} days",
            n(cl.chips()),
            sci(peak.0, 3),
            value(p, "mfu") * 100.0,
            sci(run.time.0, 3),
            run.days()
        ))
        .count("chips", cl.chips()))
}

/// The worked problems' question of which plan keeps the pods compute-bound.
fn plan_prompt(p: &[Param]) -> String {
    pods_prompt(
        p,
        "Which plan keeps training compute-bound?\n(a) FSDP alone over every chip\n(b) FSDP × tensor parallelism within each pod, data parallelism across pods\n(c) none: it is communication-bound whatever the split",
    )
}

const DAYS_HINT: &[&str] = &["Time = 6 · params · tokens / (chips × peak × MFU)."];

fn days_prompt(p: &[Param]) -> String {
    let m = model_param(p, "model").map_or("the model", |m| m.name);
    format!(
        "Assuming the plan stays compute-bound at {:.0}% MFU, how many days does training {m} on 15T tokens take on {} full TPU v5p pods?",
        value(p, "mfu") * 100.0,
        n(value(p, "pods"))
    )
}

fn question(
    id: &'static str,
    params: &'static [Param],
    prompt: fn(&[Param]) -> String,
    solve: fn(&[Param]) -> Result<Solution, String>,
    hints: &'static [&'static str],
) -> Def {
    def(id, Kind::Question, params, prompt, solve, hints)
}

/// Part 6's exercises.
pub(super) fn defs() -> Vec<Def> {
    vec![
        count_def("ch6-q1a", P_MODEL, |p| count_prompt(p, "how many parameters are in the MLPs?"), mlp_count, &["Three D×F matrices per layer for a gated MLP."]),
        count_def("ch6-q1b", P_MODEL, |p| count_prompt(p, "how many parameters are in the embedding and output layers?"), vocab_count, &["Two V×D matrices."]),
        count_def("ch6-q1c", P_MODEL, |p| count_prompt(p, "how many parameters are in the attention projections (with grouped KV heads)?"), attention_count, &["Q and O are D×N·H; K and V only D×K·H; per layer."]),
        count_def("ch6-q1d", P_MODEL, |p| count_prompt(p, "how many parameters does it have in total?"), total_count, &["Add the MLP, attention and vocabulary parameters."]),
        question(
            "ch6-q2",
            P_Q2,
            |p| format!("How many FLOPs does training a {}-parameter dense model take per token?", sci(value(p, "N"), 3)),
            |p| {
                let f = training_flops_rule(value(p, "N"), 1.0);
                let mut sol = Solution::numeric(f.0, "FLOPs")
                    .step(format!("6 FLOPs per parameter per token: 6 × {} = {}", sci(value(p, "N"), 3), sci(f.0, 3)));
                if let Some(peak) = v5p()?.peak(Dtype::Bf16) {
                    sol = sol.step(format!("on one TPU v5p at peak that is {} per token", seconds((f / peak).0)));
                }
                Ok(sol.two("the rule is 6 per parameter: 2 forward, 4 backward. Did you use 12 or 3?"))
            },
            &["Training costs about 6 FLOPs per parameter per token."],
        ),
        question(
            "ch6-q3a",
            P_Q3,
            |p| format!("How many FLOPs does training a {}-parameter dense model on {} tokens take in total?", sci(value(p, "N"), 3), sci(value(p, "tokens"), 3)),
            |p| {
                let f = training_flops_rule(value(p, "N"), value(p, "tokens"));
                Ok(Solution::numeric(f.0, "FLOPs")
                    .step(format!("6 × {} × {} = {}", sci(value(p, "N"), 3), sci(value(p, "tokens"), 3), sci(f.0, 3)))
                    .two("the rule is 6·N·D: did you use 12 or 3?"))
            },
            &["FLOPs per token times tokens."],
        ),
        question(
            "ch6-q3b",
            P_Q3,
            |p| format!("Training a {}-parameter model on {} tokens on a single {} running at its bf16 peak: how long does it take?", sci(value(p, "N"), 3), sci(value(p, "tokens"), 3), name(p)),
            |p| {
                let c = chip_param(p, "chip")?;
                let f = training_flops_rule(value(p, "N"), value(p, "tokens"));
                let peak = c.peak(Dtype::Bf16).ok_or("no bf16 peak")?;
                let t = training_time(f, 1.0, peak, 1.0).map_err(s)?;
                Ok(Solution::numeric(t.0, "years")
                    .step(format!("T = {} FLOPs / {} FLOPs/s = {} s", sci(f.0, 3), sci(peak.0, 3), sci(t.0, 3)))
                    .step(format!("≈ {:.0} years", t.0 / YEAR)))
            },
            &["FLOPs divided by one chip's FLOPs/s, converted to years."],
        ),
        question(
            "ch6-q4",
            P_Q4,
            |p| format!("The same run ({} parameters, {} tokens) on a full {} pod at {:.0}% MFU: how many days?", sci(value(p, "N"), 3), sci(value(p, "tokens"), 3), name(p), value(p, "mfu") * 100.0),
            |p| {
                let c = chip_param(p, "chip")?;
                let cl = pod(c)?;
                let peak = c.peak(Dtype::Bf16).ok_or("no bf16 peak")?;
                let run = estimate_run(value(p, "N"), value(p, "tokens"), cl.chips(), peak, value(p, "mfu")).map_err(s)?;
                Ok(Solution::numeric(run.time.0, "days")
                    .step(format!("FLOPs = {}; pod = {} chips", sci(run.flops.0, 3), n(cl.chips())))
                    .step(format!("T = FLOPs / (chips × {} × MFU) = {} s = {:.1} days", sci(peak.0, 3), sci(run.time.0, 3), run.days()))
                    .count("chips", cl.chips()))
            },
            &["Time = FLOPs / (chips × peak × MFU)."],
        ),
        question(
            "ch6-q5a",
            P_Q5,
            |p| mem_prompt(p, "How much memory do the checkpoints take?"),
            |p| {
                let (acts, _) = memory(p, value(p, "B"))?;
                Ok(Solution::numeric(acts.0, "TB")
                    .step(format!("2 bytes × {} checkpoints × D × tokens × L", n(value(p, "ckpt"))))
                    .step(format!("= 2 × {} × 8,192 × {} × 80 = {}", n(value(p, "ckpt")), sci(value(p, "B"), 3), si(acts.0, "B", 3)))
                    .two("did you count bf16 as one byte?"))
            },
            &["Checkpoints per layer × D × tokens × layers × 2 bytes."],
        ),
        question(
            "ch6-q5b",
            P_Q5,
            |p| mem_prompt(p, "How much memory do parameters, optimizer state and checkpoints take together?"),
            |p| {
                let (acts, total) = memory(p, value(p, "B"))?;
                Ok(Solution::numeric(total.0, "TB")
                    .step("parameters 2 × 70e9 = 140 GB; Adam moments 8 × 70e9 = 560 GB")
                    .step(format!("checkpoints {}; total {}", si(acts.0, "B", 3), si(total.0, "B", 3))))
            },
            &["Add the 10 bytes per parameter to the checkpoints."],
        ),
        question(
            "ch6-q5c",
            P_Q5C,
            |p| format!("A training run needs {} TB of memory in total. What is the smallest number of {} chips whose HBM can hold it?", value(p, "total"), name(p)),
            |p| {
                let c = chip_param(p, "chip")?;
                let hbm = c.hbm_capacity.value;
                let chips = min_chips_for_memory(Bytes(value(p, "total") * TB), hbm).map_err(s)?;
                Ok(Solution::numeric(chips, "chips")
                    .step(format!("{} TB / {} per chip", value(p, "total"), si(hbm.0, "B", 3)))
                    .step(format!("rounded up: {} chips", n(chips))))
            },
            &["Divide by the HBM of one chip and round up."],
        ),
        question(
            "ch6-q5d",
            P_Q5D,
            |p| format!("A run takes {} days on a full TPU v5p pod. At the same efficiency, how long would it take on only {} chips?", value(p, "days"), n(value(p, "chips"))),
            |p| {
                let cl = pod(v5p()?)?;
                let t = scale_time(Seconds(value(p, "days") * DAY), cl.chips(), value(p, "chips"));
                Ok(Solution::numeric(t.0, "days")
                    .step(format!("time scales inversely with the chips: {} days × {} / {}", value(p, "days"), n(cl.chips()), n(value(p, "chips"))))
                    .step(format!("= {:.0} days, about {:.1} years", t.0 / DAY, t.0 / YEAR)))
            },
            &["Same FLOPs, fewer chips: multiply by the ratio of chip counts."],
        ),
        question(
            "ch6-q6a",
            P_Q6A,
            |p| format!("Spread evenly over a full TPU v5p pod, how much of a {} TB training footprint does each chip hold?", value(p, "total")),
            |p| {
                let cl = pod(v5p()?)?;
                let per = value(p, "total") * TB / cl.chips();
                Ok(Solution::numeric(per, "GB")
                    .step(format!("{} TB / {} chips = {}", value(p, "total"), n(cl.chips()), si(per, "B", 3)))
                    .step("far below the 96 GB of HBM per chip")
                    .count("chips", cl.chips()))
            },
            &["Total divided by the chips of the pod."],
        ),
        Def {
            id: "ch6-q6b",
            chapter: 6,
            kind: Kind::Question,
            params: P_Q6B,
            prompt: |p| mem_prompt(p, "Spread evenly over a full TPU v5p pod, how much memory does each chip hold?"),
            solve: |p| {
                let cl = pod(v5p()?)?;
                let (acts, total) = memory(p, value(p, "B"))?;
                let per = total.0 / cl.chips();
                Ok(Solution::numeric(per, "GB")
                    .step(format!("0.7 TB of state + {} of checkpoints = {}", si(acts.0, "B", 3), si(total.0, "B", 3)))
                    .step(format!("/ {} chips = {} per chip, far below the HBM", n(cl.chips()), si(per, "B", 3)))
                    .count("chips", cl.chips()))
            },
            hints: &["Recompute the checkpoints with the new count, add the state, divide by the chips."],
            correction: Some("The book says about 8 GB per chip; (0.7e12 + 2 × 8192 × 4e6 × 12 × 80) / 8960 is 7.1 GB, which is what is graded (either way far below the 96 GB of HBM)."),
            book_gave_answer: true,
        },
        question(
            "ch6-q7",
            P_Q7,
            |p| format!(
                "A batch of {} sequences of 4,096 tokens trains LLaMA 3-70B on a full TPU v5p pod (8,960 chips). Without splitting sequences across chips, can we use FSDP alone over the whole pod?\n(a) yes\n(b) no: batch sharding can use at most one chip per sequence\n(c) no: the model does not fit in memory",
                n(value(p, "seqs"))
            ),
            |p| {
                let seqs = value(p, "seqs");
                let job = Job { sequence_sharding: false, ..Job::new(llama()?, seqs * 4096.0, 4096.0).map_err(s)? };
                let cl = pod(v5p()?)?;
                let chips = cl.chips_per_slice;
                let (correct, why) = match evaluate(&job, &cl, &Parallelism::fsdp(chips, 3)) {
                    Err(TrainingError::SequenceShardingRequired { .. }) => ("b", format!("{} sequences < {} chips: some chips would get no whole sequence", n(seqs), n(chips as f64))),
                    Ok(e) if !e.fits => ("c", format!("per chip {} > HBM {}", si(e.memory.total().0, "B", 3), si(e.hbm.0, "B", 3))),
                    Ok(e) => ("a", format!("{} sequences cover {} chips; {} per chip fits", n(seqs), n(chips as f64), si(e.memory.total().0, "B", 3))),
                    Err(other) => return Err(other.to_string()),
                };
                let options = vec![
                    ("a", "yes".to_string()),
                    ("b", "no: at most one chip per sequence".to_string()),
                    ("c", "no: it does not fit".to_string()),
                ];
                Ok(Solution::new(Answer::Choice { options, correct })
                    .step("FSDP shards the batch; without sequence sharding each chip needs at least one whole sequence")
                    .step(why))
            },
            &["Count the sequences and the chips."],
        ),
        question(
            "ch6-q8",
            P_Q8,
            |p| format!(
                "FSDP over all three axes of a full TPU v5p pod, sharding both batch and sequence, trains LLaMA 3-70B on {} tokens per step. How many tokens does each chip process (and is that enough to be compute-bound)?",
                n(value(p, "B"))
            ),
            |p| {
                let job = Job::new(llama()?, value(p, "B"), 4096.0).map_err(s)?;
                let cl = pod(v5p()?)?;
                let e = evaluate(&job, &cl, &Parallelism::fsdp(cl.chips_per_slice, 3)).map_err(s)?;
                let need = e.critical_tokens_per_chip.map_or("never compute-bound".to_string(), |c| format!("needs {} per chip", sci(c, 4)));
                Ok(Solution::numeric(e.tokens_per_chip, "tokens")
                    .step(format!("{} tokens / {} chips = {}", n(value(p, "B")), n(e.chips), sci(e.tokens_per_chip, 4)))
                    .step(format!("FSDP over three axes {need}: {}", e.verdict.text()))
                    .count("chips", e.chips))
            },
            &["Tokens divided by chips; compare with α / 3."],
        ),
        question("ch6-q9a", P_Q9A, mixed_prompt, mixed, &["The mixed threshold is α² / (M_X·M_Y·F)."]),
        question("ch6-q9b", P_Q9B, x_opt_prompt, x_opt, &["X_opt = sqrt((B / F)·(M_X / M_Y)·N)."]),
        ours(question(
            "ch6-wp1a",
            P_WP1,
            plan_prompt,
            pods_plan,
            &["Tokens per chip against α/3 (FSDP alone) and α²/(2F) (FSDP × TP); tokens per pod against C/W_dcn."],
        )),
        ours(question("ch6-wp1b", P_WP1_DAYS, days_prompt, pods_days, DAYS_HINT)),
        Def {
            id: "ch6-wp2a",
            chapter: 6,
            kind: Kind::Question,
            params: P_WP2,
            prompt: |p| {
                let m = model_param(p, "model").map_or_else(|_| "the model".to_string(), describe);
                format!(
                    "{m}: count its parameters, then the training FLOPs per token. How many FLOPs does training it on {} tokens take?",
                    sci(value(p, "tokens"), 3)
                )
            },
            solve: |p| {
                let m = model_param(p, "model")?;
                let c = params(&m.config);
                let per_token = training_flops_rule(c.total(), 1.0);
                let total = training_flops_rule(c.total(), value(p, "tokens"));
                Ok(Solution::numeric(total.0, "FLOPs")
                    .step(format!("parameters: MLP {} + attention {} + vocabulary {} = {}", sci(c.mlp, 4), sci(c.attention, 4), sci(c.vocab(), 4), sci(c.total(), 4)))
                    .step(format!("per token: 6 × {} = {} FLOPs", sci(c.total(), 4), sci(per_token.0, 4)))
                    .step(format!("× {} tokens = {} FLOPs", sci(value(p, "tokens"), 3), sci(total.0, 4)))
                    .two("the rule is 6 FLOPs per parameter per token: did you use 12 or 3?"))
            },
            hints: &["3·D·F·L + L·(2·D·N·H + 2·D·K·H) + 2·V·D parameters; 6 FLOPs each per token."],
            correction: None,
            book_gave_answer: false,
        },
        ours(question(
            "ch6-wp2b",
            P_WP2B,
            plan_prompt,
            pods_plan,
            &["F is larger, so α²/(2F) is smaller than for 70B; compare it with the tokens per chip."],
        )),
        ours(question("ch6-wp2c", P_WP2C, days_prompt, pods_days, DAYS_HINT)),
    ]
}

/// A worked problem the book leaves unanswered: graded against core's answer.
fn ours(d: Def) -> Def {
    Def {
        book_gave_answer: false,
        ..d
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn all_solve() {
        for d in super::defs() {
            assert!(
                (d.solve)(d.params).is_ok(),
                "{}: {:?}",
                d.id,
                (d.solve)(d.params).err()
            );
        }
    }
}
