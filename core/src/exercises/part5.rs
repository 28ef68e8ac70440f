//! Part 5 (parallelising training): the exercises of `ch5-*`, computed as in
//! `golden_ch5.rs`.

use super::def::{choice, n, param, value, Answer, Def, Kind, Param, Scale, Solution};
use super::kit::{chip_param, def, describe, model_param, s};
use crate::check::whole;
use crate::dtype::Dtype;
use crate::format::{sci, seconds, si};
use crate::hardware::{chip, Chip};
use crate::model::accounting::{
    params, state_memory, training_flops_rule, training_memory, Optimizer, Remat,
};
use crate::model::config::model;
use crate::training::{
    dcn_intensity, dp_critical_tokens_per_chip, evaluate, fsdp_tp_critical_tokens_per_chip,
    ici_intensity, max_chips, optimal_fsdp, tp_max_degree, training_time, Cluster, Job,
    Parallelism, DAY,
};
use crate::units::{Bytes, Intensity};

/// TPUs, the v5p first (Part 5 works on v5p).
pub(super) const V5P_FIRST: &[&str] = &["v5p", "v5e", "v6e", "v4p"];
const LLAMA2_FIRST: &[&str] = &["llama2-13b", "llama3-8b", "llama3-70b", "llama3-405b"];

fn name(p: &[Param]) -> &'static str {
    chip_param(p, "chip").map_or("TPU", |c| c.name)
}

/// The chosen chip and its bf16 ICI intensity `α = C / W_ici`.
pub(super) fn alpha(p: &[Param]) -> Result<(&'static Chip, Intensity), String> {
    let c = chip_param(p, "chip")?;
    Ok((c, ici_intensity(c, Dtype::Bf16).map_err(s)?))
}

/// The derivation line of `α` for the chosen chip.
pub(super) fn alpha_step(c: &Chip, a: Intensity) -> String {
    format!(
        "α = C / W_ici = {} / {} = {}",
        sci(c.peak(Dtype::Bf16).map_or(f64::NAN, |x| x.0), 3),
        sci(c.interconnect().map_or(f64::NAN, |l| l.bandwidth.0), 3),
        sci(a.0, 4)
    )
}

fn v5p() -> Result<&'static Chip, String> {
    chip("v5p").ok_or_else(|| "no v5p in the registry".to_string())
}

fn llama2_13b() -> Result<crate::model::config::ModelConfig, String> {
    Ok(model("llama2-13b").ok_or("no llama2-13b preset")?.config)
}

/// `α² / (2F)`: the mixed FSDP + tensor threshold with FSDP on two axes, TP on one.
pub(super) fn mixed(p: &[Param]) -> Result<Solution, String> {
    let (c, a) = alpha(p)?;
    let f = value(p, "F");
    let t = fsdp_tp_critical_tokens_per_chip(a, f, 2.0, 1.0);
    Ok(Solution::numeric(t, "tokens")
        .step(alpha_step(c, a))
        .step(format!(
            "compute-bound when tokens per chip > α² / (M_X·M_Y·F) = {}² / (2 × {})",
            sci(a.0, 4),
            n(f)
        ))
        .step(format!("= {}", sci(t, 4)))
        .two("M_X·M_Y = 2 here (FSDP on two axes, TP on one): did you leave it out?"))
}

/// The prompt of the mixed threshold.
pub(super) fn mixed_prompt(p: &[Param]) -> String {
    format!(
        "On a {} mesh, FSDP runs over two axes and tensor parallelism over the third. For an MLP with F = {}, how many tokens per chip keep this mixed scheme compute-bound?",
        name(p),
        n(value(p, "F"))
    )
}

/// `X_opt = sqrt(2BN/F)`.
pub(super) fn x_opt(p: &[Param]) -> Result<Solution, String> {
    let (b, f, chips) = (value(p, "B"), value(p, "F"), value(p, "N"));
    let x = optimal_fsdp(b, f, chips, 2.0, 1.0);
    let even = optimal_fsdp(b, f, chips, 1.0, 1.0);
    Ok(Solution::numeric(x, "ways")
        .step("X_opt = sqrt((B / F) · (M_X / M_Y) · N), with M_X / M_Y = 2")
        .step(format!(
            "= sqrt({} / {} × 2 × {}) = {}",
            sci(b, 3),
            n(f),
            n(chips),
            sci(x, 4)
        ))
        .step(format!(
            "a power of two near it for FSDP, the rest of the {} chips for tensor parallelism",
            n(chips)
        ))
        .perturb(
            even,
            "You took M_X / M_Y = 1; FSDP spans two mesh axes and tensor parallelism one, so the ratio is 2.",
        ))
}

/// The prompt of `X_opt`.
pub(super) fn x_opt_prompt(p: &[Param]) -> String {
    format!(
        "A batch of {} tokens is trained on {} chips with FSDP (over two mesh axes) times tensor parallelism (over one); the MLP has F = {}. What FSDP degree minimises communication?",
        sci(value(p, "B"), 3),
        n(value(p, "N")),
        n(value(p, "F"))
    )
}

/// Parameter counts of a chosen preset: (which part, label).
fn count_solution(
    p: &[Param],
    part: fn(&crate::model::accounting::ParamCounts) -> f64,
    what: &str,
) -> Result<Solution, String> {
    let m = model_param(p, "model")?;
    let c = params(&m.config);
    let v = part(&c);
    Ok(Solution::numeric(v, "params")
        .step(format!(
            "MLP {}; attention {}; vocabulary {}; norms {}",
            sci(c.mlp, 4),
            sci(c.attention, 4),
            sci(c.vocab(), 4),
            sci(c.norms, 3)
        ))
        .step(format!("{what} = {}", sci(v, 4))))
}

/// Parameter-count exercises on a preset (Parts 5 and 6).
pub(super) fn count_def(
    id: &'static str,
    params: &'static [Param],
    prompt: fn(&[Param]) -> String,
    solve: fn(&[Param]) -> Result<Solution, String>,
    hints: &'static [&'static str],
) -> Def {
    def(id, Kind::Question, params, prompt, solve, hints)
}

/// The prompt of a parameter-count question.
pub(super) fn count_prompt(p: &[Param], what: &str) -> String {
    let m = model_param(p, "model").map_or_else(|_| "the model".to_string(), describe);
    format!("{m}: {what}")
}

pub(super) fn mlp_count(p: &[Param]) -> Result<Solution, String> {
    count_solution(p, |c| c.mlp, "MLP parameters (3·D·F·L when gated)")
        .map(|s| s.two("a gated MLP has three D×F matrices per layer: did you count two, or six?"))
}

pub(super) fn attention_count(p: &[Param]) -> Result<Solution, String> {
    count_solution(
        p,
        |c| c.attention,
        "attention parameters L·(2·D·N·H + 2·D·K·H)",
    )
}

pub(super) fn vocab_count(p: &[Param]) -> Result<Solution, String> {
    count_solution(p, |c| c.vocab(), "embedding + unembedding = 2·V·D")
        .map(|s| s.two("the embedding and the output layer are separate matrices: did you count one, or each twice?"))
}

pub(super) fn total_count(p: &[Param]) -> Result<Solution, String> {
    count_solution(p, |c| c.total(), "total")
}

const P_CHIP: &[Param] = &[choice("chip", "TPU", V5P_FIRST)];
const P_EX4: &[Param] = &[
    choice("chip", "TPU", V5P_FIRST),
    param("batch", "batch (tokens)", 4e7, 1e6, 1e8, Scale::Log),
];
const P_EX5: &[Param] = &[
    choice("chip", "TPU", V5P_FIRST),
    param("N", "parameters", 70e9, 1e9, 1e12, Scale::Log),
    param("tokens", "training tokens", 15e12, 1e11, 1e14, Scale::Log),
    param("batch", "batch (tokens)", 16e6, 1e6, 1e8, Scale::Log),
    param("mfu", "MFU", 0.5, 0.2, 0.7, Scale::Linear),
];
const P_EX6: &[Param] = &[
    choice("chip", "TPU", V5P_FIRST),
    param("F", "F", 30000.0, 8000.0, 65536.0, Scale::Linear),
];
const P_EX7: &[Param] = &[
    choice("chip", "TPU", V5P_FIRST),
    param("F", "F", 50000.0, 8000.0, 65536.0, Scale::Linear),
];
const P_EX9: &[Param] = &[
    param("B", "batch (tokens)", 48000.0, 8000.0, 1e6, Scale::Log),
    param("F", "F", 32768.0, 8192.0, 65536.0, Scale::Pow2),
    param("N", "chips", 64.0, 16.0, 1024.0, Scale::Pow2),
];
const P_EX10: &[Param] = &[
    choice("chip", "TPU", V5P_FIRST),
    param("F", "F", 32768.0, 8192.0, 65536.0, Scale::Pow2),
];
const P_EX11: &[Param] = &[
    param("F", "F", 32768.0, 8192.0, 65536.0, Scale::Pow2),
    param("side", "cube side", 16.0, 4.0, 16.0, Scale::Pow2),
];
const P_EX13: &[Param] = &[
    choice("chip", "TPU", V5P_FIRST),
    param("B", "batch (tokens)", 2e6, 2e5, 2e7, Scale::Log),
];
const P_EX13B: &[Param] = &[
    choice("chip", "TPU", V5P_FIRST),
    param("B", "batch (tokens)", 2e6, 2e5, 2e7, Scale::Log),
    param("F", "F", 30000.0, 8000.0, 65536.0, Scale::Linear),
];
const P_EX13C: &[Param] = &[
    param("B", "batch (tokens)", 2e6, 2e5, 2e7, Scale::Log),
    param("pods", "pods", 2.0, 1.0, 8.0, Scale::Int),
];
const P_MODEL: &[Param] = &[choice("model", "model", LLAMA2_FIRST)];
const P_Q2A: &[Param] = &[param("N", "parameters", 13e9, 1e9, 1e12, Scale::Log)];
const P_Q2B: &[Param] = &[param("B", "batch (tokens)", 16e6, 1e5, 1e8, Scale::Log)];
const P_Q3B: &[Param] = &[param("B", "batch (tokens)", 3e6, 1e5, 3e7, Scale::Log)];
const P_Q3T: &[Param] = &[
    choice("chip", "TPU", V5P_FIRST),
    param("F", "F", 13824.0, 4096.0, 65536.0, Scale::Linear),
];
const P_Q3X: &[Param] = &[
    param("B", "batch (tokens)", 3e6, 1e5, 3e7, Scale::Log),
    param("F", "F", 13824.0, 4096.0, 65536.0, Scale::Linear),
    param("N", "chips", 4096.0, 256.0, 8192.0, Scale::Pow2),
];
const P_Q3S: &[Param] = &[
    param("tokens", "batch (tokens)", 3e6, 1e5, 3e7, Scale::Log),
    param("P", "parameters", 13e9, 1e9, 1e12, Scale::Log),
    param("chips", "chips", 4096.0, 256.0, 8192.0, Scale::Pow2),
    param("mfu", "MFU", 0.4, 0.2, 0.7, Scale::Linear),
];

fn dp_threshold(p: &[Param], axes: f64) -> Result<(f64, Solution), String> {
    let (c, a) = alpha(p)?;
    let t = dp_critical_tokens_per_chip(a, axes);
    let sol = Solution::new(Answer::numeric(t, "tokens"))
        .step(alpha_step(c, a))
        .step(format!(
            "data parallelism over {axes} axis/axes: tokens per chip > α / {axes} = {}",
            sci(t, 4)
        ));
    Ok((t, sol))
}

fn chips_for(batch: f64, per_chip: f64, sol: Solution) -> Solution {
    let c = max_chips(batch, per_chip);
    Solution {
        answer: Answer::numeric(c, "chips"),
        ..sol
    }
    .step(format!(
        "chips ≤ batch / threshold = {} / {} = {}",
        sci(batch, 3),
        sci(per_chip, 4),
        sci(c, 4)
    ))
}

/// Part 5's exercises.
pub(super) fn defs() -> Vec<Def> {
    vec![
        Def {
            id: "ch5-ex1",
            chapter: 5,
            kind: Kind::WorkedExample,
            params: P_CHIP,
            prompt: |p| {
                format!(
                    "Training with Adam keeps bf16 parameters and two fp32 moments. With pure data parallelism every chip holds all of it. What is the largest model that fits in the HBM of one {}?",
                    name(p)
                )
            },
            solve: |p| {
                let c = chip_param(p, "chip")?;
                let hbm = c.hbm_capacity.value;
                let max = Optimizer::ADAM.max_params(hbm);
                Ok(Solution::numeric(max, "params")
                    .step(format!("bytes per parameter = 2 + 4 + 4 = {}", Optimizer::ADAM.bytes_per_param()))
                    .step(format!("{} / {} = {} parameters", si(hbm.0, "B", 3), Optimizer::ADAM.bytes_per_param(), sci(max, 3)))
                    .perturb(Optimizer::ADAM_MIXED.max_params(hbm), "You added bf16 gradients and an fp32 master copy (16 bytes per parameter); the question's Adam keeps 10.")
                    .two("did you count the moments in bf16, or forget one of the two?"))
            },
            hints: &["Divide the HBM by the bytes each parameter needs."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch5-ex2",
            chapter: 5,
            kind: Kind::WorkedExample,
            params: P_CHIP,
            prompt: |p| {
                format!(
                    "Pure data parallelism over one ICI axis of {} chips: every step AllReduces the gradients over that axis's bidirectional link. How many tokens per chip keep the step compute-bound?",
                    name(p)
                )
            },
            solve: |p| {
                let (_, sol) = dp_threshold(p, 1.0)?;
                Ok(sol.two("did you use the one-way link bandwidth?"))
            },
            hints: &["Compute per chip scales with the tokens; the gradient AllReduce does not. Compare with C / W_ici."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch5-ex3",
            chapter: 5,
            kind: Kind::WorkedExample,
            params: P_CHIP,
            prompt: |p| {
                format!(
                    "Data parallelism over every ICI axis of a full {} pod multiplies the usable bandwidth by the number of axes. What total batch, in tokens, keeps the whole pod compute-bound?",
                    name(p)
                )
            },
            solve: |p| {
                let c = chip_param(p, "chip")?;
                let pod = Cluster::full_pod(c, 1).map_err(s)?;
                let (t, sol) = dp_threshold(p, pod.axes as f64)?;
                let total = t * pod.chips();
                Ok(Solution { answer: Answer::numeric(total, "tokens"), ..sol }
                    .step(format!("× {} chips = {} tokens", n(pod.chips()), sci(total, 3)))
                    .count("chips", pod.chips()))
            },
            hints: &["Divide the one-axis threshold by the number of axes, then multiply by the chips of the pod."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch5-ex4",
            chapter: 5,
            kind: Kind::WorkedExample,
            params: P_EX4,
            prompt: |p| {
                format!(
                    "A batch of {} tokens is trained with data parallelism over three ICI axes of {} chips. How many chips can it spread over before the step becomes bound by ICI?",
                    sci(value(p, "batch"), 2),
                    name(p)
                )
            },
            solve: |p| {
                let (t, sol) = dp_threshold(p, 3.0)?;
                Ok(chips_for(value(p, "batch"), t, sol))
            },
            hints: &["Each chip needs at least α / 3 tokens."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch5-ex5a",
            chapter: 5,
            kind: Kind::WorkedExample,
            params: P_EX5,
            prompt: |p| {
                format!(
                    "How many FLOPs does training a {}-parameter dense model on {} tokens take?",
                    sci(value(p, "N"), 3),
                    sci(value(p, "tokens"), 3)
                )
            },
            solve: |p| {
                let f = training_flops_rule(value(p, "N"), value(p, "tokens"));
                Ok(Solution::numeric(f.0, "FLOPs")
                    .step("6 FLOPs per parameter per token (2 forward, 4 backward)")
                    .step(format!("6 × {} × {} = {}", sci(value(p, "N"), 3), sci(value(p, "tokens"), 3), sci(f.0, 3)))
                    .two("the rule is 6·N·D: did you use 3 or 12?"))
            },
            hints: &["Training costs about 6 × parameters × tokens."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch5-ex5b",
            chapter: 5,
            kind: Kind::WorkedExample,
            params: P_EX5,
            prompt: |p| {
                format!(
                    "FSDP over three ICI axes of {} chips, with a batch of {} tokens: how many chips can it use while staying compute-bound?",
                    name(p),
                    sci(value(p, "batch"), 2)
                )
            },
            solve: |p| {
                let (t, sol) = dp_threshold(p, 3.0)?;
                Ok(chips_for(value(p, "batch"), t, sol))
            },
            hints: &["FSDP has the same per-chip threshold as data parallelism."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch5-ex5c",
            chapter: 5,
            kind: Kind::WorkedExample,
            params: P_EX5,
            prompt: |p| {
                format!(
                    "Training a {}-parameter model on {} tokens with FSDP on as many {} chips as a {}-token batch allows (three axes), at {:.0}% MFU: how long does it take?",
                    sci(value(p, "N"), 3),
                    sci(value(p, "tokens"), 3),
                    name(p),
                    sci(value(p, "batch"), 2),
                    value(p, "mfu") * 100.0
                )
            },
            solve: |p| {
                let (c, a) = alpha(p)?;
                let chips = max_chips(value(p, "batch"), dp_critical_tokens_per_chip(a, 3.0)).floor();
                let f = training_flops_rule(value(p, "N"), value(p, "tokens"));
                let peak = c.peak(Dtype::Bf16).ok_or("no bf16 peak")?;
                let t = training_time(f, chips, peak, value(p, "mfu")).map_err(s)?;
                Ok(Solution::numeric(t.0, "days")
                    .step(format!("FLOPs = 6·N·D = {}; chips = {}", sci(f.0, 3), n(chips)))
                    .step(format!("T = FLOPs / (chips × {} × MFU) = {} s = {:.1} days", sci(peak.0, 3), sci(t.0, 3), t.0 / DAY))
                    .count("chips", chips))
            },
            hints: &["Time = FLOPs / (chips × peak × MFU)."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch5-ex6",
            chapter: 5,
            kind: Kind::WorkedExample,
            params: P_EX6,
            prompt: |p| {
                format!(
                    "Tensor parallelism over one ICI axis of {} chips, for an MLP with F = {}: up to what degree does it stay compute-bound?",
                    name(p),
                    n(value(p, "F"))
                )
            },
            solve: tp_limit,
            hints: &["Tensor parallelism is compute-bound while Y < F / α."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch5-ex7",
            chapter: 5,
            kind: Kind::WorkedExample,
            params: P_EX7,
            prompt: |p| {
                format!(
                    "A model with MLP width F = {} uses tensor parallelism over one ICI axis of {} chips. Beyond what degree does it become communication-bound?",
                    n(value(p, "F")),
                    name(p)
                )
            },
            solve: |p| tp_limit(p),
            hints: &["The same rule: Y < F / α."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch5-ex8",
            chapter: 5,
            kind: Kind::WorkedExample,
            params: P_CHIP,
            prompt: |p| {
                format!(
                    "What is the int8 ICI intensity of a {}: its int8 peak over its bidirectional ICI bandwidth?",
                    name(p)
                )
            },
            solve: |p| {
                let c = chip_param(p, "chip")?;
                let a = ici_intensity(c, Dtype::Int8).map_err(s)?;
                let bf = ici_intensity(c, Dtype::Bf16).map_err(s)?;
                Ok(Solution::numeric(a.0, "FLOPs/byte")
                    .step(format!("C_int8 / W_ici = {} / {}", sci(c.peak(Dtype::Int8).map_or(f64::NAN, |x| x.0), 3), sci(c.interconnect().map_or(f64::NAN, |l| l.bandwidth.0), 3)))
                    .step(format!("= {}; the bytes moved halve too, so the tensor-parallel limit does not change", sci(a.0, 4)))
                    .perturb(bf.0, "That is the bf16 intensity; the int8 peak is higher."))
            },
            hints: &["Same ratio as the bf16 α, with the int8 FLOPs/s."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch5-ex9",
            chapter: 5,
            kind: Kind::WorkedExample,
            params: P_EX9,
            prompt: x_opt_prompt,
            solve: |p| x_opt(p),
            hints: &["Balance the FSDP and tensor communication: X_opt = sqrt((B / F)·(M_X / M_Y)·N)."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch5-ex10",
            chapter: 5,
            kind: Kind::WorkedExample,
            params: P_EX10,
            prompt: mixed_prompt,
            solve: mixed,
            hints: &["With X_opt the condition becomes tokens per chip > α² / (M_X·M_Y·F)."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch5-ex11",
            chapter: 5,
            kind: Kind::WorkedExample,
            params: P_EX11,
            prompt: |p| {
                let side = value(p, "side");
                format!(
                    "A TPU v5p {side}×{side}×{side} slice trains a model with F = {}. Below what total batch is every strategy (data, FSDP, tensor, and mixed FSDP + tensor) communication-bound?",
                    n(value(p, "F"))
                )
            },
            solve: |p| {
                let v = v5p()?;
                let side = value(p, "side");
                if !(1.0..=16.0).contains(&side) {
                    return Err("the side must be 1 to 16".into());
                }
                let slice = Cluster::new(v, &[whole(side).unwrap_or(0); 3], 1).map_err(s)?;
                let a = ici_intensity(v, Dtype::Bf16).map_err(s)?;
                let f = value(p, "F");
                let per_chip = fsdp_tp_critical_tokens_per_chip(a, f, 2.0, 1.0);
                let total = per_chip * slice.chips();
                Ok(Solution::numeric(total, "tokens")
                    .step(alpha_step(v, a))
                    .step(format!("the best scheme, mixed FSDP + TP, needs α² / (2F) = {} tokens per chip", sci(per_chip, 4)))
                    .step(format!("× {} chips = {} tokens", n(slice.chips()), sci(total, 3)))
                    .count("chips", slice.chips()))
            },
            hints: &["The mixed scheme has the lowest threshold; multiply it by the chips."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch5-ex12",
            chapter: 5,
            kind: Kind::WorkedExample,
            params: P_CHIP,
            prompt: |p| {
                format!(
                    "Pods of {} chips are joined by the data-centre network (DCN) and run pure data parallelism across pods. What is the DCN intensity C / W_dcn, i.e. the tokens each pod must process per step?",
                    name(p)
                )
            },
            solve: |p| {
                let c = chip_param(p, "chip")?;
                let i = dcn_intensity(c, Dtype::Bf16).map_err(s)?;
                Ok(Solution::numeric(i.0, "tokens")
                    .step(format!(
                        "C / W_dcn = {} / {} (DCN bandwidth per chip)",
                        sci(c.peak(Dtype::Bf16).map_or(f64::NAN, |x| x.0), 3),
                        sci(c.bandwidth(crate::hardware::Link::Dcn).map_or(f64::NAN, |x| x.0), 3)
                    ))
                    .step(format!("= {}", sci(i.0, 4))))
            },
            hints: &["Like the ICI intensity, with the per-chip DCN bandwidth."],
            correction: Some("The book divides 4.46e14 FLOPs/s by 6.25e9 B/s and gets 71,360, but its own spec table gives the v5p 4.59e14 FLOPs/s, so the consistent value, graded here, is 73,440."),
            book_gave_answer: true,
        },
        Def {
            id: "ch5-ex13a",
            chapter: 5,
            kind: Kind::WorkedExample,
            params: P_EX13,
            prompt: |p| {
                format!(
                    "A dense 70B model trains with a batch of {} tokens using pure FSDP over three ICI axes of {} chips. At most how many chips can it use while staying compute-bound?",
                    sci(value(p, "B"), 2),
                    name(p)
                )
            },
            solve: |p| {
                let (t, sol) = dp_threshold(p, 3.0)?;
                Ok(chips_for(value(p, "B"), t, sol))
            },
            hints: &["Batch divided by α / 3."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch5-ex13b",
            chapter: 5,
            kind: Kind::WorkedExample,
            params: P_EX13B,
            prompt: |p| {
                format!(
                    "The same {}-token batch with mixed FSDP (two axes) and tensor parallelism (one axis) on {} chips, for F = {}: at most how many chips stay compute-bound?",
                    sci(value(p, "B"), 2),
                    name(p),
                    n(value(p, "F"))
                )
            },
            solve: |p| {
                let (c, a) = alpha(p)?;
                let t = fsdp_tp_critical_tokens_per_chip(a, value(p, "F"), 2.0, 1.0);
                let sol = Solution::new(Answer::numeric(t, "tokens"))
                    .step(alpha_step(c, a))
                    .step(format!("threshold α² / (2F) = {} tokens per chip", sci(t, 4)));
                Ok(chips_for(value(p, "B"), t, sol))
            },
            hints: &["First the mixed threshold α² / (2F), then batch / threshold."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch5-ex13c",
            chapter: 5,
            kind: Kind::WorkedExample,
            params: P_EX13C,
            prompt: |p| {
                format!(
                    "The {}-token batch is spread over {} full TPU v5p pods. How many tokens does each chip process?",
                    sci(value(p, "B"), 2),
                    n(value(p, "pods"))
                )
            },
            solve: |p| {
                let pods = value(p, "pods");
                if !(1.0..=64.0).contains(&pods) {
                    return Err("1 to 64 pods".into());
                }
                let cl = Cluster::full_pod(v5p()?, whole(pods).unwrap_or(0)).map_err(s)?;
                let t = value(p, "B") / cl.chips();
                Ok(Solution::numeric(t, "tokens")
                    .step(format!("{} pods × {} chips = {} chips", n(pods), n(cl.chips_per_slice as f64), n(cl.chips())))
                    .step(format!("{} / {} = {} tokens per chip", sci(value(p, "B"), 3), n(cl.chips()), sci(t, 4)))
                    .count("pods", pods))
            },
            hints: &["Batch divided by every chip of every pod."],
            correction: None,
            book_gave_answer: true,
        },
        count_def("ch5-q1a", P_MODEL, |p| count_prompt(p, "how many parameters are in the MLPs?"), mlp_count, &["Three D×F matrices per layer for a gated MLP."]),
        count_def("ch5-q1b", P_MODEL, |p| count_prompt(p, "how many parameters are in the attention projections?"), attention_count, &["Q and O are D×N·H; K and V are D×K·H; per layer."]),
        count_def("ch5-q1c", P_MODEL, |p| count_prompt(p, "how many parameters are in the embedding and output layers?"), vocab_count, &["Two V×D matrices."]),
        count_def("ch5-q1d", P_MODEL, |p| count_prompt(p, "how many parameters does it have in total?"), total_count, &["Add the MLP, attention and vocabulary parameters."]),
        Def {
            id: "ch5-q2a",
            chapter: 5,
            kind: Kind::Question,
            params: P_Q2A,
            prompt: |p| {
                format!(
                    "A {}-parameter model trains with Adam: bf16 parameters and two fp32 moments. How much memory do the parameters and optimizer state take?",
                    sci(value(p, "N"), 3)
                )
            },
            solve: |p| {
                let nn = value(p, "N");
                let m = state_memory(nn, Optimizer::ADAM, Bytes(0.0));
                let mixed = state_memory(nn, Optimizer::ADAM_MIXED, Bytes(0.0));
                Ok(Solution::numeric(m.state().0, "GB")
                    .step(format!("parameters 2 × {} = {}; moments 8 × {} = {}", sci(nn, 3), si(m.params.0, "B", 3), sci(nn, 3), si(m.optimizer.0, "B", 3)))
                    .step(format!("total = {}", si(m.state().0, "B", 3)))
                    .perturb(mixed.state().0, "You added gradients and a master copy (16 bytes per parameter); here it is 10."))
            },
            hints: &["2 bytes for the parameter and 4 + 4 for the two moments."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch5-q2b",
            chapter: 5,
            kind: Kind::Question,
            params: P_Q2B,
            prompt: |p| {
                format!(
                    "LLaMA-2 13B (L = 40, D = 5,120, F = 13,824, gated MLP) saves, per layer, the outputs of its three MLP matmuls (two [tokens, F] and one [tokens, D]) in bf16. How much memory do they take for a batch of {} tokens?",
                    sci(value(p, "B"), 3)
                )
            },
            solve: |p| {
                let cfg = llama2_13b()?;
                let b = Remat::MlpOutputs.activation_bytes(&cfg, value(p, "B"), Dtype::Bf16);
                Ok(Solution::numeric(b.0, "TB")
                    .step("bytes = 2 × L × tokens × (D + 2F)")
                    .step(format!("= 2 × 40 × {} × (5,120 + 27,648) = {}", sci(value(p, "B"), 3), si(b.0, "B", 3)))
                    .two("did you count bf16 as one byte?"))
            },
            hints: &["Per token and layer, D + 2F values of two bytes."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch5-q3a",
            chapter: 5,
            kind: Kind::Question,
            params: &[],
            prompt: |_| {
                "LLaMA-2 13B trains on a TPU v5p 16×16×16 slice with Adam and a batch of 3M tokens (sequences of 32,768). Can it use pure data parallelism?\n(a) yes\n(b) no: every chip would have to hold all the parameters and optimizer state, which exceed its HBM\n(c) no: it fits, but the gradient AllReduce makes it communication-bound".into()
            },
            solve: |_| {
                let e = q3_evaluate(&Parallelism::data_parallel(4096, 3))?;
                let correct = if !e.fits {
                    "b"
                } else if e.verdict == crate::roofline::Verdict::CommunicationBound {
                    "c"
                } else {
                    "a"
                };
                let options = vec![
                    ("a", "yes".to_string()),
                    ("b", "no: the replicated state does not fit".to_string()),
                    ("c", "no: communication-bound".to_string()),
                ];
                Ok(Solution::new(Answer::Choice { options, correct })
                    .step(format!("replicated parameters + Adam state per chip: {}", si(e.memory.state().0, "B", 3)))
                    .step(format!("HBM per chip: {}", si(e.hbm.0, "B", 3))))
            },
            hints: &["Pure data parallelism replicates the parameters and the optimizer state on every chip."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch5-q3b",
            chapter: 5,
            kind: Kind::Question,
            params: P_Q3B,
            prompt: |p| {
                format!(
                    "LLaMA-2 13B with Adam trains on a batch of {} tokens, saving the three MLP matmul outputs per layer in bf16. How much memory do the checkpoints, parameters and optimizer state take in total?",
                    sci(value(p, "B"), 3)
                )
            },
            solve: |p| {
                let cfg = llama2_13b()?;
                let m = training_memory(&cfg, value(p, "B"), Remat::MlpOutputs, Optimizer::ADAM, Dtype::Bf16).map_err(s)?;
                Ok(Solution::numeric(m.total().0, "TB")
                    .step(format!("checkpoints 2·L·tokens·(D + 2F) = {}", si(m.activations.0, "B", 3)))
                    .step(format!("parameters and Adam state = {}", si(m.state().0, "B", 3)))
                    .step(format!("total = {}; over 4096 chips, {} each", si(m.total().0, "B", 3), si(m.total().0 / 4096.0, "B", 3))))
            },
            hints: &["Add the activation checkpoints to the 10 bytes per parameter."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch5-q3b-comms",
            chapter: 5,
            kind: Kind::Question,
            params: &[],
            prompt: |_| {
                "LLaMA-2 13B trains on a TPU v5p 16×16×16 slice with Adam and a batch of 3M tokens (sequences of 32,768). With pure FSDP over all three axes the state and checkpoints fit in HBM. Is the step compute-bound?\n(a) yes: FSDP moves no more than data parallelism, which a batch this size hides\n(b) no: FSDP over three axes needs about α/3 tokens per chip, more than the batch gives each chip\n(c) no: FSDP's weight gathers grow with the batch, so it is never compute-bound".into()
            },
            solve: |_| {
                let e = q3_evaluate(&Parallelism::fsdp(4096, 3))?;
                let need = e.critical_tokens_per_chip.ok_or("FSDP has no threshold here")?;
                let correct = match e.verdict {
                    crate::roofline::Verdict::CommunicationBound => "b",
                    _ => "a",
                };
                let options = vec![
                    ("a", "yes".to_string()),
                    ("b", "no: the batch per chip is below α/3".to_string()),
                    ("c", "no: never compute-bound".to_string()),
                ];
                Ok(Solution::new(Answer::Choice { options, correct })
                    .step(format!("tokens per chip: 3e6 / 4,096 = {}", sci(e.tokens_per_chip, 3)))
                    .step(format!("FSDP over three axes needs α/3 = {} tokens per chip", sci(need, 3)))
                    .step(format!("so the smallest compute-bound batch is {} tokens, more than 3e6", sci(need * e.chips, 3))))
            },
            hints: &["FSDP's threshold is the same as data parallelism's: α / M_X tokens per chip."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch5-q3c-threshold",
            chapter: 5,
            kind: Kind::Question,
            params: P_Q3T,
            prompt: mixed_prompt,
            solve: mixed,
            hints: &["The mixed threshold is α² / (M_X·M_Y·F)."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch5-q3c-xopt",
            chapter: 5,
            kind: Kind::Question,
            params: P_Q3X,
            prompt: x_opt_prompt,
            solve: x_opt,
            hints: &["X_opt = sqrt((B / F)·(M_X / M_Y)·N)."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch5-q3c-step",
            chapter: 5,
            kind: Kind::Question,
            params: P_Q3S,
            prompt: |p| {
                format!(
                    "A {}-parameter model trains on {} TPU v5p chips with a batch of {} tokens at {:.0}% MFU. How long does one step take?",
                    sci(value(p, "P"), 3),
                    n(value(p, "chips")),
                    sci(value(p, "tokens"), 3),
                    value(p, "mfu") * 100.0
                )
            },
            solve: |p| {
                let v = v5p()?;
                let f = training_flops_rule(value(p, "P"), value(p, "tokens"));
                let peak = v.peak(Dtype::Bf16).ok_or("no bf16 peak")?;
                let t = training_time(f, value(p, "chips"), peak, value(p, "mfu")).map_err(s)?;
                Ok(Solution::numeric(t.0, "ms")
                    .step(format!("FLOPs per step = 6 × {} × {} = {}", sci(value(p, "P"), 3), sci(value(p, "tokens"), 3), sci(f.0, 3)))
                    .step(format!("T = FLOPs / (chips × {} × MFU) = {}", sci(peak.0, 3), seconds(t.0)))
                    .count("chips", value(p, "chips")))
            },
            hints: &["Step FLOPs 6·B·P divided by the cluster's useful FLOPs/s."],
            correction: None,
            book_gave_answer: true,
        },
    ]
}

/// Question 3's run (LLaMA-2 13B, 3M tokens in sequences of 32,768, Adam, the
/// three MLP outputs saved) on a v5p 16×16×16 slice, divided as `par`.
fn q3_evaluate(par: &Parallelism) -> Result<crate::training::Evaluation, String> {
    let job = Job {
        remat: Remat::MlpOutputs,
        ..Job::new(llama2_13b()?, 3e6, 32768.0).map_err(s)?
    };
    let slice = Cluster::new(v5p()?, &[16, 16, 16], 1).map_err(s)?;
    evaluate(&job, &slice, par).map_err(s)
}

fn tp_limit(p: &[Param]) -> Result<Solution, String> {
    let (c, a) = alpha(p)?;
    let f = value(p, "F");
    let y = tp_max_degree(f, a, 1.0);
    Ok(Solution::numeric(y, "ways")
        .step(alpha_step(c, a))
        .step(format!(
            "compute-bound while Y < F / α = {} / {}",
            n(f),
            sci(a.0, 4)
        ))
        .step(format!("Y < {}", sci(y, 3))))
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
