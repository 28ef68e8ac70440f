//! Part 7 (Transformer inference): the exercises of `ch7-*`, computed as in
//! `golden_ch7.rs`. Also holds the small helpers Parts 8 and 12 share.

use super::def::{n, param, value, Answer, Def, Kind, Param, Scale, Solution};
use super::expr::Var;
use super::kit::{chip_param, def, int, name, num, reference, reg, s, unanswered};
use crate::dtype::Dtype;
use crate::format::{sci, seconds, si};
use crate::hardware::Chip;
use crate::inference::{
    activation_bytes, critical_batch, decode_step, decode_tp_limit, hbm_ici_ratio,
    is_latency_bound, kv_cache, latency_bound_bytes, max_batch, max_throughput, memory_use,
    min_step_time, prefill_attention_intensity, prefill_tp_limit, weight_stationary_2d,
    weight_stationary_crossover, DecodeWorkload, Precision, ServingModel, ServingSlice,
};
use crate::model::config::{book_model, model, ModelConfig, Moe};
use crate::units::{Bytes, BytesPerSec};

fn v5e() -> Result<&'static Chip, String> {
    reg("v5e")
}

fn slice(chips: u64) -> Result<ServingSlice, String> {
    ServingSlice::new(v5e()?, chips).map_err(s)
}

/// LLaMA-2 13B as Part 7 uses it: a long context and the round 13e9 parameters.
fn llama2_13b(kv_heads: u64) -> Result<ServingModel, String> {
    let mut cfg = model("llama2-13b")
        .ok_or("no llama2-13b preset")?
        .config
        .with_max_seq(131072)
        .map_err(s)?;
    cfg.kv_heads = kv_heads;
    ServingModel::new(cfg)
        .and_then(|m| m.with_params(13e9))
        .map_err(s)
}

/// The invented model of Part 7's questions (`part7-problem` in the model
/// registry: tied embeddings, 128k context) with D, F, L and K as given.
fn q1_model(d: u64, f: u64, l: u64, kv: u64) -> Result<ModelConfig, String> {
    let base = book_model("part7-problem")
        .ok_or("no part7-problem model")?
        .config;
    let cfg = ModelConfig {
        d_model: d,
        d_ff: f,
        layers: l,
        kv_heads: kv,
        ..base
    };
    cfg.validate().map_err(s)?;
    Ok(cfg)
}

fn q1_of(p: &[Param]) -> Result<ModelConfig, String> {
    let d = value(p, "D");
    let f = value(p, "F");
    let l = value(p, "L");
    let k = value(p, "K");
    let or = |v: f64, book: u64| crate::check::whole(v).unwrap_or(book);
    q1_model(or(d, 4096), or(f, 16384), or(l, 64), or(k, 8))
}

/// The problem model as a mixture of experts (`part7-moe` in the model
/// registry) with E experts, k active.
fn moe_of(p: &[Param]) -> Result<ServingModel, String> {
    let base = book_model("part7-moe").ok_or("no part7-moe model")?.config;
    let moe = Moe {
        experts: int(p, "E"),
        active: int(p, "k"),
        ..base.moe.ok_or("part7-moe has no experts")?
    };
    ServingModel::new(base.with_moe(moe).map_err(s)?).map_err(s)
}

const TPUS: &[&str] = &["v5e", "v5p", "v6e", "v4p"];
const GPUS: &[&str] = &["h100", "a100", "h200", "b200"];
const P_TPU: &[Param] = &[super::def::choice("chip", "TPU", TPUS)];
const P_GPU: &[Param] = &[super::def::choice("chip", "GPU", GPUS)];
const P_PQ1A: &[Param] = &[
    param("P", "parameters", 30e9, 1e9, 1e11, Scale::Log),
    param("B", "batch", 4.0, 1.0, 16.0, Scale::Int),
    param("N", "chips", 16.0, 8.0, 64.0, Scale::Pow2),
];
const P_PQ1B: &[Param] = &[
    param("P", "parameters", 30e9, 1e9, 1e11, Scale::Log),
    param("B", "batch", 256.0, 128.0, 1024.0, Scale::Pow2),
    param("N", "chips", 16.0, 8.0, 64.0, Scale::Pow2),
];
const P_EX3A: &[Param] = &[param("P", "parameters", 13e9, 1e9, 2e11, Scale::Log)];
const P_EX3B: &[Param] = &[param("T", "tokens", 8192.0, 512.0, 65536.0, Scale::Pow2)];
const P_EX5: &[Param] = &[
    param("F", "F", 16384.0, 4096.0, 65536.0, Scale::Pow2),
    param("B", "batch", 32.0, 4.0, 256.0, Scale::Pow2),
    param("beta", "W_hbm / W_ici", 8.0, 4.0, 16.0, Scale::Int),
];
const P_Q1: &[Param] = &[
    param("D", "D", 4096.0, 2048.0, 8192.0, Scale::Pow2),
    param("F", "F", 16384.0, 8192.0, 32768.0, Scale::Pow2),
    param("L", "layers", 64.0, 16.0, 96.0, Scale::Int),
];
const P_Q1B: &[Param] = &[
    param("L", "layers", 64.0, 16.0, 96.0, Scale::Int),
    param("K", "KV heads", 8.0, 1.0, 32.0, Scale::Pow2),
];
const P_Q2A: &[Param] = &[
    param("N", "chips", 16.0, 8.0, 64.0, Scale::Pow2),
    param("K", "KV heads", 8.0, 1.0, 8.0, Scale::Pow2),
];
const P_Q2B: &[Param] = &[
    param("N", "chips", 16.0, 8.0, 64.0, Scale::Pow2),
    param("K", "KV heads", 1.0, 1.0, 8.0, Scale::Pow2),
];
const P_Q3: &[Param] = &[param("N", "chips", 16.0, 4.0, 256.0, Scale::Pow2)];
const P_MOE: &[Param] = &[
    param("E", "experts", 16.0, 4.0, 64.0, Scale::Pow2),
    param("k", "active experts", 2.0, 1.0, 4.0, Scale::Int),
];
const P_Q6: &[Param] = &[
    param("E", "experts", 16.0, 8.0, 32.0, Scale::Pow2),
    param("k", "active experts", 2.0, 1.0, 4.0, Scale::Int),
    param("N", "chips", 128.0, 64.0, 256.0, Scale::Pow2),
];
const P_Q7B: &[Param] = &[param("r", "F / D", 4.0, 2.0, 8.0, Scale::Int)];
const P_APPA: &[Param] = &[
    param("P", "parameters", 6e8, 1e8, 5e9, Scale::Log),
    param("N", "chips", 4.0, 1.0, 16.0, Scale::Pow2),
];
const P_APPC1: &[Param] = &[param("N", "shards", 8.0, 2.0, 64.0, Scale::Pow2)];
const P_APPC2: &[Param] = &[param("B", "batch", 16.0, 1.0, 256.0, Scale::Pow2)];

fn crit(p: &[Param], w: Dtype, c: Dtype) -> Result<Solution, String> {
    let chip = chip_param(p, "chip")?;
    let b = critical_batch(chip, w, c).map_err(s)?;
    Ok(num(
        b,
        "tokens",
        format!(
            "B_crit = C({c}) / W_hbm × (bytes per {w} weight) / 2 = {} / {} × {} / 2",
            sci(chip.peak(c).map_or(f64::NAN, |x| x.0), 3),
            sci(chip.hbm_bw().0, 3),
            w.bytes()
        ),
    )
    .step(format!("= {} tokens", sci(b, 4)))
    .two("each weight byte feeds 2·B/bytes FLOPs: did you drop the 2 or the bytes per weight?"))
}

fn crit_prompt(p: &[Param], w: &str, c: &str) -> String {
    format!(
        "Decoding on a {}: with {w} weights and {c} matmuls, from what token batch size are the weight matmuls compute-bound rather than limited by loading the weights from HBM?",
        name(p)
    )
}

fn pq1(p: &[Param]) -> Result<(DecodeWorkload, ServingSlice), String> {
    let pb = value(p, "P");
    let w = DecodeWorkload::new(value(p, "B"), pb, Bytes(pb), Bytes(100e3 * 8192.0)).map_err(s)?;
    Ok((w, slice(int(p, "N"))?))
}

fn pq1_prompt(p: &[Param]) -> String {
    format!(
        "A dense model of {} parameters stored in int8 (bf16 matmuls) serves 8192-token contexts with 100 kB of KV cache per token on {} TPU v5e. What is the lower bound on one generation step at batch {}, in ms?",
        sci(value(p, "P"), 3),
        n(value(p, "N")),
        n(value(p, "B"))
    )
}

fn table(p: &[Param], tput: bool) -> Result<Solution, String> {
    let heads = if value(p, "att") == 0.0 { 40 } else { 8 };
    let m = llama2_13b(heads)?;
    let w = m
        .workload(Precision::BF16, value(p, "B"), 8192.0)
        .map_err(s)?;
    let sl = slice(8)?;
    let t = min_step_time(&w, &sl);
    let line = format!(
        "T = (P + B·KV) / W = ({} + {} × {}) / {} B/s = {}",
        si(w.param_bytes.0, "B", 3),
        n(w.batch),
        si(w.kv_per_seq.0, "B", 3),
        sci(sl.hbm_bandwidth().0, 3),
        seconds(t.0)
    );
    let sol = if tput {
        let r = max_throughput(&w, &sl);
        num(r, "tokens/s", line).step(format!("throughput = B / T = {} tokens/s", sci(r, 4)))
    } else {
        num(t.0, "ms", line)
    };
    Ok(sol.count("chips", 8.0))
}

fn table_prompt(p: &[Param], tput: bool) -> String {
    let att = if value(p, "att") == 0.0 {
        "multi-head attention (40 KV heads)"
    } else {
        "grouped-query attention with 8 KV heads"
    };
    format!(
        "LLaMA-2 13B (26 GB of bf16 weights) with {att} generates on 8 TPU v5e, every context 8192 tokens long. Assuming each step only streams weights and KV caches from HBM, what is the {} at batch {}?",
        if tput { "throughput in tokens/s" } else { "step time" },
        n(value(p, "B"))
    )
}

macro_rules! tbl {
    ($v:ident, $step:literal, $tput:literal, $b:literal, $att:literal) => {{
        const P: &[Param] = &[
            param("B", "batch", $b, 1.0, 240.0, Scale::Int),
            param("att", "attention", $att, 0.0, 1.0, Scale::Choice(&["MHA", "GQA"])),
        ];
        const H: &[&str] = &["Everything is memory-bound here: add the weight bytes and every sequence's KV cache, then divide by the slice's HBM bandwidth."];
        $v.push(def($step, Kind::WorkedExample, P, |p| table_prompt(p, false), |p| table(p, false), H));
        $v.push(def($tput, Kind::WorkedExample, P, |p| table_prompt(p, true), |p| table(p, true), H));
    }};
}

/// Part 7's exercises.
pub(super) fn defs() -> Vec<Def> {
    let mut v = vec![
        def("ch7-ex1a", Kind::WorkedExample, P_TPU, |p| crit_prompt(p, "bf16", "bf16"),
            |p| crit(p, Dtype::Bf16, Dtype::Bf16),
            &["Compare the FLOPs a batch of B tokens does per weight byte with the chip's FLOPs per HBM byte."]),
        def("ch7-ex1b", Kind::WorkedExample, P_TPU, |p| crit_prompt(p, "int8", "bf16"),
            |p| crit(p, Dtype::Int8, Dtype::Bf16),
            &["Halving the bytes per weight halves the batch needed, if the FLOP rate stays the same."]),
        def("ch7-ex1c", Kind::WorkedExample, P_TPU, |p| crit_prompt(p, "int8", "int8"),
            |p| crit(p, Dtype::Int8, Dtype::Int8),
            &["int8 matmuls run at twice the bf16 rate on this chip, which cancels the smaller weights."]),
        def("ch7-ex1d", Kind::WorkedExample, P_GPU, |p| crit_prompt(p, "bf16", "bf16"),
            |p| crit(p, Dtype::Bf16, Dtype::Bf16),
            &["For bf16 weights the critical batch is the chip's HBM ridge point C / W."]),
        def("ch7-ex2", Kind::WorkedExample, P_TPU,
            |p| format!("Multi-head attention over S keys for T queries has intensity about ST/(S+T). During prefill (S = T), from what sequence length is attention compute-bound on a {} in bf16?", name(p)),
            |p| {
                let c = chip_param(p, "chip")?;
                let ridge = critical_batch(c, Dtype::Bf16, Dtype::Bf16).map_err(s)?;
                let t = 2.0 * ridge;
                let check = prefill_attention_intensity(t, 1.0).0;
                Ok(num(t, "tokens", format!("with S = T the intensity is T/2; set T/2 = ridge = {}", sci(ridge, 4)))
                    .step(format!("T = {} tokens (intensity there: {})", sci(t, 4), sci(check, 4)))
                    .two("the intensity is T/2, not T: did you set T itself equal to the ridge?"))
            },
            &["Set S = T in ST/(S+T) and compare with the chip's FLOPs per byte."]),
        def("ch7-pq1a", Kind::PopQuiz, P_PQ1A, pq1_prompt,
            |p| {
                let (w, sl) = pq1(p)?;
                let t = min_step_time(&w, &sl);
                Ok(num(t.0, "ms", format!("small batch: memory-bound; T = (P + B·KV) / W = {} / {} B/s", si(w.memory().0, "B", 3), sci(sl.hbm_bandwidth().0, 3)))
                    .step(format!("= {}", seconds(t.0))).count("chips", sl.chips as f64))
            },
            &["At a small batch every step is dominated by reading the weights and KV caches from HBM."]),
        def("ch7-pq1b", Kind::PopQuiz, P_PQ1B, pq1_prompt,
            |p| {
                let (w, sl) = pq1(p)?;
                let st = decode_step(&w, &sl, Dtype::Bf16).map_err(s)?;
                Ok(num(st.total.0, "ms", format!("KV load {} + max(FLOPs {}, weight load {})", seconds(st.kv_load.0), seconds(st.flops.0), seconds(st.param_load.0)))
                    .step(format!("= {}", seconds(st.total.0))).count("chips", sl.chips as f64))
            },
            &["Above the critical batch the MLP is compute-bound, but attention still reads every KV cache."]),
        def("ch7-ex3a", Kind::WorkedExample, P_EX3A,
            |p| format!("How many GB do the bf16 weights of a {}-parameter model take?", sci(value(p, "P"), 3)),
            |p| {
                let m = llama2_13b(40)?.with_params(value(p, "P")).map_err(s)?;
                let b = m.param_bytes(Dtype::Bf16);
                Ok(num(b.0, "GB", format!("2 bytes × {} = {}", sci(m.params, 3), si(b.0, "B", 3))))
            },
            &["bf16 is two bytes per parameter."]),
        def("ch7-ex3b", Kind::WorkedExample, P_EX3B,
            |p| format!("LLaMA-2 13B has D = 5120. How large is one bf16 activation [T, D] during a prefill of {} tokens, in MB?", n(value(p, "T"))),
            |p| {
                let m = llama2_13b(40)?;
                let b = activation_bytes(&m.config, value(p, "T"), Dtype::Bf16).map_err(s)?;
                Ok(num(b.0, "MB", format!("T × D × 2 bytes = {} × 5120 × 2 = {}", n(value(p, "T")), si(b.0, "B", 3))))
            },
            &["Multiply the tokens by the model width and the bytes per value."]),
        def("ch7-ex4", Kind::WorkedExample, P_EX3B,
            |p| format!("LLaMA-2 13B has 40 layers and 40 KV heads of size 128. How many GB does the bf16 KV cache of one {}-token sequence take?", n(value(p, "T"))),
            |p| {
                let m = llama2_13b(40)?;
                let kv = kv_cache(&m.config, value(p, "T"), 1.0, Dtype::Bf16).map_err(s)?;
                Ok(num(kv.per_sequence.0, "GB", format!("2 (K and V) × T × L × K × H × 2 bytes = {} per token", si(kv.per_token.0, "B", 3)))
                    .step(format!("× {} tokens = {}", n(value(p, "T")), si(kv.per_sequence.0, "B", 3)))
                    .two("did you forget that both keys and values are cached, or count bf16 as one byte?"))
            },
            &["Keys and values, for every layer, KV head and head dimension, for every token."]),
    ];
    tbl!(v, "ch7-tbl-mha-b1-step", "ch7-tbl-mha-b1-tput", 1.0, 0.0);
    tbl!(v, "ch7-tbl-mha-b8-step", "ch7-tbl-mha-b8-tput", 8.0, 0.0);
    tbl!(v, "ch7-tbl-mha-b16-step", "ch7-tbl-mha-b16-tput", 16.0, 0.0);
    tbl!(v, "ch7-tbl-mha-b32-step", "ch7-tbl-mha-b32-tput", 32.0, 0.0);
    tbl!(v, "ch7-tbl-mha-b64-step", "ch7-tbl-mha-b64-tput", 64.0, 0.0);
    tbl!(
        v,
        "ch7-tbl-mha-b240-step",
        "ch7-tbl-mha-b240-tput",
        240.0,
        0.0
    );
    tbl!(v, "ch7-tbl-gqa-b1-step", "ch7-tbl-gqa-b1-tput", 1.0, 1.0);
    tbl!(v, "ch7-tbl-gqa-b8-step", "ch7-tbl-gqa-b8-tput", 8.0, 1.0);
    tbl!(v, "ch7-tbl-gqa-b16-step", "ch7-tbl-gqa-b16-tput", 16.0, 1.0);
    tbl!(v, "ch7-tbl-gqa-b32-step", "ch7-tbl-gqa-b32-tput", 32.0, 1.0);
    tbl!(v, "ch7-tbl-gqa-b64-step", "ch7-tbl-gqa-b64-tput", 64.0, 1.0);
    tbl!(
        v,
        "ch7-tbl-gqa-b240-step",
        "ch7-tbl-gqa-b240-tput",
        240.0,
        1.0
    );
    v.extend(rest());
    v
}

fn rest() -> Vec<Def> {
    vec![
        def("ch7-ex5", Kind::WorkedExample, P_EX5,
            |p| format!("While generating, model sharding stays HBM-bound as long as Y < F/(B·β) with β = W_hbm/W_ici. With F = {}, batch {} and β = {}, how many ways can the model be sharded?", n(value(p, "F")), n(value(p, "B")), n(value(p, "beta"))),
            |p| {
                let y = decode_tp_limit(value(p, "F"), value(p, "B"), value(p, "beta")).map_err(s)?;
                Ok(num(y, "ways", format!("Y = F / (B·β) = {} / ({} × {}) = {}", n(value(p, "F")), n(value(p, "B")), n(value(p, "beta")), sci(y, 4))))
            },
            &["Compare the ICI time of the activations with the HBM time of each shard's weights."]),
        def("ch7-ex6", Kind::WorkedExample, P_TPU,
            |p| format!("What is the ratio of HBM bandwidth to (bidirectional) ICI bandwidth on a {}?", name(p)),
            |p| {
                let c = chip_param(p, "chip")?;
                let r = hbm_ici_ratio(c).map_err(s)?;
                Ok(num(r, "", format!("W_hbm / W_ici = {} / ICI = {}", sci(c.hbm_bw().0, 3), sci(r, 3))))
            },
            &["Divide the two bandwidths from the chip's spec sheet."]),
        def("ch7-ex7", Kind::WorkedExample, P_TPU,
            |p| format!("During prefill, sharding the model over one ICI axis of {} chips stays compute-bound up to about F/α ways. What is α, in FLOPs per byte?", name(p)),
            |p| {
                let c = chip_param(p, "chip")?;
                let f = 28672.0;
                let a = f / prefill_tp_limit(c, Dtype::Bf16, f, 1.0).map_err(s)?;
                Ok(num(a, "FLOPs/byte", format!("α = C / W_ici = {}", sci(a, 4))))
            },
            &["It is the ICI ridge point: peak FLOPs/s over ICI bytes/s."]),
        def("ch7-q1a", Kind::Question, P_Q1,
            |p| format!("A dense Transformer has D = {}, F = {}, L = {}, 32 query heads and 8 KV heads of size 256, a vocabulary of 32,128 and tied embeddings (gated MLP). How many parameters does it have?", n(value(p, "D")), n(value(p, "F")), n(value(p, "L"))),
            |p| {
                let m = ServingModel::new(q1_of(p)?).map_err(s)?;
                Ok(num(m.params, "params", "per layer: 3·D·F (MLP) + 2·D·N·H (Q, O) + 2·D·K·H (K, V); plus D·V for the shared embedding".into())
                    .step(format!("total = {}", sci(m.params, 4))))
            },
            &["Count the MLP and attention matrices of one layer, times L, plus one embedding matrix."]),
        def("ch7-q1b", Kind::Question, P_Q1B,
            |p| format!("Same model with L = {} and {} KV heads of size 256: how many kB of int8 KV cache does each token need?", n(value(p, "L")), n(value(p, "K"))),
            |p| {
                let m = ServingModel::new(q1_of(p)?).map_err(s)?;
                let b = m.kv_per_token(Dtype::Int8);
                Ok(num(b.0, "kB", format!("2 · L · K · H bytes = {}", si(b.0, "B", 3)))
                    .two("did you count both keys and values (the 2)?"))
            },
            &["Keys and values for each layer and KV head, one byte each."]),
        def("ch7-q2a", Kind::Question, P_Q2A, q2_prompt, q2_solve,
            &["Subtract the weights from the total HBM and divide what is left by one sequence's KV cache."]),
        def("ch7-q2b", Kind::Question, P_Q2B, q2_prompt, q2_solve,
            &["Fewer KV heads shrink every sequence's cache by the same factor."]),
        def("ch7-q3", Kind::Question, P_Q3,
            |p| format!("How long does one pass over all the int8 weights of that model (18.4e9 parameters) take on {} TPU v5e, in ms?", n(value(p, "N"))),
            |p| {
                let m = ServingModel::new(book_model("part7-problem").ok_or("no part7-problem model")?.config).map_err(s)?;
                let pr = Precision::new(Dtype::Int8, Dtype::Int8, Dtype::Bf16);
                let w = m.workload(pr, 1.0, 1.0).map_err(s)?;
                let sl = slice(int(p, "N"))?;
                let t = decode_step(&w, &sl, Dtype::Bf16).map_err(s)?.param_load;
                Ok(num(t.0, "ms", format!("{} / ({} × {} B/s) = {}", si(w.param_bytes.0, "B", 3), sl.chips, sci(v5e()?.hbm_bw().0, 3), seconds(t.0))).count("chips", sl.chips as f64))
            },
            &["Bytes divided by the total HBM bandwidth of the slice."]),
        def("ch7-q5a", Kind::Question, P_MOE,
            |p| format!("Turn that model into a mixture of experts: {} experts per layer, {} active per token, each expert MLP as large as the original. How many parameters in total?", n(value(p, "E")), n(value(p, "k"))),
            |p| {
                let m = moe_of(p)?;
                Ok(num(m.params, "params", format!("E × 3·D·F per layer for the experts plus the attention and embedding: {}", sci(m.params, 4))))
            },
            &["Every expert's weights are stored, whether used or not."]),
        def("ch7-q5b", Kind::Question, P_MOE,
            |p| format!("For that mixture of experts ({} experts, {} active), how many parameters does each token actually use?", n(value(p, "E")), n(value(p, "k"))),
            |p| {
                let m = moe_of(p)?;
                Ok(num(m.active_params, "params", format!("k experts' MLPs plus attention and embedding: {}", sci(m.active_params, 4))))
            },
            &["Only the k routed experts take part in a token's forward pass."]),
        def("ch7-q5c", Kind::Question, P_MOE,
            |p| format!("With int8 weights and int8 matmuls on TPU v5e, how many tokens must a batch hold for that MoE ({} experts, {} active) to be compute-bound?", n(value(p, "E")), n(value(p, "k"))),
            |p| {
                let m = moe_of(p)?;
                let pr = Precision::new(Dtype::Int8, Dtype::Int8, Dtype::Int8);
                let b = m.critical_batch(v5e()?, pr).map_err(s)?;
                Ok(num(b, "tokens", format!("dense critical batch × E/k = {} × {}", sci(b * value(p, "k") / value(p, "E"), 4), value(p, "E") / value(p, "k")))
                    .step(format!("= {} tokens", sci(b, 4))))
            },
            &["Each expert sees only k/E of the tokens, so the batch must be E/k times larger."]),
        def("ch7-q5d", Kind::Question, P_MOE,
            |p| format!("How many kB of int8 KV cache per token does the MoE version ({} experts) need?", n(value(p, "E"))),
            |p| {
                let m = moe_of(p)?;
                let b = m.kv_per_token(Dtype::Int8);
                Ok(num(b.0, "kB", format!("attention is unchanged: 2·L·K·H = {}", si(b.0, "B", 3))))
            },
            &["Experts replace the MLP only; the attention layers are the same."]),
        def("ch7-q5e", Kind::Question, P_MOE,
            |p| format!("How many forward-pass FLOPs does that MoE ({} experts, {} active) spend per token? (The total for T tokens is this times T.)", n(value(p, "E")), n(value(p, "k"))),
            |p| {
                let m = moe_of(p)?;
                let f = m.forward_flops(1.0).map_err(s)?;
                Ok(num(f.0, "FLOPs", format!("2 × activated parameters = 2 × {} = {}", sci(m.active_params, 4), sci(f.0, 4)))
                    .two("a multiply-add is two FLOPs per parameter."))
            },
            &["Two FLOPs per activated parameter per token."]),
        unanswered(def("ch7-q6a", Kind::Question, P_Q6,
            |p| format!("Shard the int8 MoE ({} experts, {} active) over {} TPU v5e with its experts spread across chips. How long does one step's weight loading take, in ms, at a tiny batch?", n(value(p, "E")), n(value(p, "k")), n(value(p, "N"))),
            |p| {
                let m = moe_of(p)?;
                let pr = Precision::stored(Dtype::Int8);
                let sl = slice(int(p, "N"))?;
                let w = m.workload(pr, 1.0, 1.0).map_err(s)?;
                let t = decode_step(&w, &sl, pr.compute).map_err(s)?.param_load;
                let free = memory_use(&w, &sl).free_for_kv().0 / sl.chips as f64;
                Ok(num(t.0, "ms", format!("{} / ({} × {} B/s) = {}", si(w.param_bytes.0, "B", 3), sl.chips, sci(v5e()?.hbm_bw().0, 3), seconds(t.0)))
                    .step(format!("HBM left for KV caches: {} per chip", si(free, "B", 3)))
                    .count("chips", sl.chips as f64))
            },
            &["All the experts' bytes spread over every chip's HBM bandwidth."])),
        def("ch7-q7a", Kind::Question, &[],
            |_| "An MLP with F = 4D is sharded 2D weight-stationary over N chips: D over X = sqrt(N/8) chips and F over YZ = sqrt(8N). What is the communication time of one layer, as a formula in B, D, N and W (ICI bandwidth), with bf16 activations?".into(),
            |_| {
                let vars = vec![
                    Var::stepped("B", 1.0, 1024.0, 1.0),
                    Var::stepped("D", 512.0, 16384.0, 128.0),
                    Var::stepped("N", 8.0, 4096.0, 8.0),
                    Var::new("W", 1e10, 1e12),
                ];
                let r = reference(|x| {
                    let at = |i: usize| x.get(i).copied().unwrap_or(f64::NAN);
                    weight_stationary_2d(at(0), at(1), 4.0 * at(1), at(2), Dtype::Bf16, BytesPerSec(at(3)))
                        .map_or(f64::NAN, |w| w.t_comms.0)
                });
                Ok(Solution::new(Answer::Symbolic { expr: "sqrt(128)*B*D/(sqrt(N)*W)".into(), vars, reference: r })
                    .step("T = 2BD/(X·W) + 2·2BF/(YZ·W); with F = 4D, X = sqrt(N/8), YZ = sqrt(8N)")
                    .step("= sqrt(128)·B·D / (sqrt(N)·W)"))
            },
            &["Add the AllGather of the activations over X and the ReduceScatter over YZ, then substitute the split."]),
        def("ch7-q7b", Kind::Question, P_Q7B,
            |p| format!("1D weight-stationary sharding communicates 4BD/(3W) per layer. With F = {}·D, above how many chips does the 2D scheme communicate less?", value(p, "r")),
            |p| {
                let r = value(p, "r");
                let nn = weight_stationary_crossover(8192.0, r * 8192.0).map_err(s)?;
                Ok(num(nn, "chips", format!("N > 32·(F/D)·(3/4)² = 32 × {r} × 0.5625 = {}", sci(nn, 4))))
            },
            &["Set the 2D formula equal to 4BD/(3W) and solve for N."]),
        def("ch7-appA", Kind::WorkedExample, P_APPA,
            |p| format!("One layer holds {} bf16 parameters sharded over {} TPU v5e. What is the least time to load its weights from HBM, in µs?", sci(value(p, "P"), 3), n(value(p, "N"))),
            |p| {
                let pc = value(p, "P");
                let w = DecodeWorkload::new(1.0, pc, Dtype::Bf16.size_of(pc), Bytes(1.0)).map_err(s)?;
                let sl = slice(int(p, "N"))?;
                let t = decode_step(&w, &sl, Dtype::Bf16).map_err(s)?.param_load;
                Ok(num(t.0, "µs", format!("2 × {} bytes / ({} × {} B/s) = {}", sci(pc, 3), sl.chips, sci(v5e()?.hbm_bw().0, 3), seconds(t.0))).count("chips", sl.chips as f64))
            },
            &["bf16 bytes over the combined HBM bandwidth of the chips."]),
        def("ch7-appC1", Kind::WorkedExample, P_APPC1,
            |p| format!("A collective over {} TPU v5e costs about 1 µs per hop. Below what buffer size (in kB) is it latency-bound?", n(value(p, "N"))),
            |p| {
                let b = latency_bound_bytes(v5e()?, int(p, "N")).map_err(s)?;
                Ok(num(b.0, "kB", format!("shards × one-way ICI bandwidth × 1 µs = {}", si(b.0, "B", 3)))
                    .two("each hop sends one way: did you use the bidirectional bandwidth?"))
            },
            &["Each shard's piece must take at least the hop latency to send."]),
        def("ch7-appC2", Kind::WorkedExample, P_APPC2,
            |p| format!("How many kB do the int8 activations of a batch of {} tokens take at D = 8192?", n(value(p, "B"))),
            |p| {
                let cfg = model("llama3-70b").ok_or("no llama3-70b preset")?.config;
                let b = activation_bytes(&cfg, value(p, "B"), Dtype::Int8).map_err(s)?;
                let lat = is_latency_bound(v5e()?, b, 8).map_err(s)?;
                Ok(num(b.0, "kB", format!("B × D × 1 byte = {}", si(b.0, "B", 3)))
                    .step(format!("over 8 v5e shards that is {}latency-bound", if lat { "" } else { "not " })))
            },
            &["One byte per value, B × D values."]),
    ]
}

fn q2_prompt(p: &[Param]) -> String {
    format!(
        "Serve the Part 7 model (18.4e9 parameters) with {} KV heads in int8 (weights, cache and matmuls) on {} TPU v5e with 16 GB each, at 128,000-token sequences. What is the largest batch?",
        n(value(p, "K")),
        n(value(p, "N"))
    )
}

fn q2_solve(p: &[Param]) -> Result<Solution, String> {
    let m = ServingModel::new(q1_of(p)?).map_err(s)?;
    let pr = Precision::new(Dtype::Int8, Dtype::Int8, Dtype::Int8);
    let sl = slice(int(p, "N"))?;
    let b = max_batch(&m, pr, &sl, 128_000.0).map_err(s)?;
    let kv = m.kv_per_sequence(128_000.0, Dtype::Int8).map_err(s)?;
    Ok(num(
        b as f64,
        "sequences",
        format!(
            "({} − {}) / {} per sequence",
            si(sl.hbm_capacity().0, "B", 3),
            si(m.param_bytes(Dtype::Int8).0, "B", 3),
            si(kv.0, "B", 3)
        ),
    )
    .step(format!("= {b} whole sequences")))
}
