//! Part 8 (serving LLaMA 3-70B on TPUs): the exercises of `ch8-*`, computed as
//! in `golden_ch8.rs`.

use super::def::{choice, n, param, value, Def, Kind, Param, Scale, Solution};
use super::kit::{chip_param, def, describe, dtype, fix, int, name, num, pick, reg, s, unanswered};
use crate::dtype::Dtype;
use crate::format::{sci, seconds, si};
use crate::hardware::tpu::Slice;
use crate::hardware::{Chip, Link};
use crate::inference::{
    chips_for_bytes, critical_batch, decode_activation_bytes, decode_step, decode_time,
    decode_tp_limit, finished_per_step, flops_per_dollar, largest_batch_within, max_batch,
    min_chips, min_slice_chips, min_slice_within, min_topology_table, prefill_decode_ratio,
    prefill_time, prefill_tp_limit, qps_per_chip, tokens_evicted_per_step, tp_matmul,
    DecodeWorkload, MinTopologyRow, Precision, ServingModel, ServingSlice, StepTime,
};
use crate::model::config::model;
use crate::units::{Bytes, Seconds};

fn v5e() -> Result<&'static Chip, String> {
    reg("v5e")
}

fn slice(chips: u64) -> Result<ServingSlice, String> {
    ServingSlice::new(v5e()?, chips).map_err(s)
}

/// LLaMA 3-70B with the book's round 70e9 parameters.
fn llama() -> Result<ServingModel, String> {
    ServingModel::preset("llama3-70b")
        .and_then(|m| m.with_params(70e9))
        .map_err(s)
}

/// LLaMA 3-70B (exact count) with a 32k context.
fn llama_32k() -> Result<ServingModel, String> {
    let m = ServingModel::preset("llama3-70b").map_err(s)?;
    ServingModel::new(m.config.with_max_seq(32768).map_err(s)?).map_err(s)
}

fn step(p: Precision, batch: f64, chips: u64) -> Result<StepTime, String> {
    let w = llama()?.workload(p, batch, 8192.0).map_err(s)?;
    decode_step(&w, &slice(chips)?, p.compute).map_err(s)
}

const PRICED_H100: &[&str] = &["h100", "v5p", "v5e"];
const PRICED_V5P: &[&str] = &["v5p", "v5e", "h100"];
const PRICED_V5E: &[&str] = &["v5e", "v5p", "h100"];
const STORE: &[&str] = &["int8", "bf16", "int4"];
const FORMATS: &[&str] = &["bf16", "int8", "int4"];

const P_H100: &[Param] = &[choice("chip", "accelerator", PRICED_H100)];
const P_V5P: &[Param] = &[choice("chip", "accelerator", PRICED_V5P)];
const P_V5E: &[Param] = &[choice("chip", "accelerator", PRICED_V5E)];
const P_Q1A: &[Param] = &[choice("dtype", "KV format", STORE)];
const P_Q1B: &[Param] = &[param(
    "S",
    "sequence length",
    32768.0,
    1024.0,
    32768.0,
    Scale::Pow2,
)];
const P_Q1C: &[Param] = &[
    param(
        "S",
        "sequence length",
        32768.0,
        1024.0,
        32768.0,
        Scale::Pow2,
    ),
    param("B", "batch", 240.0, 16.0, 512.0, Scale::Int),
];
const P_Q2: &[Param] = &[
    param("B", "batch", 32.0, 4.0, 64.0, Scale::Int),
    param("S", "sequence length", 8192.0, 1024.0, 8192.0, Scale::Pow2),
];
const P_Q3A: &[Param] = &[
    param("B", "batch", 32.0, 4.0, 64.0, Scale::Int),
    param("N", "chips", 8.0, 8.0, 32.0, Scale::Pow2),
];
const P_Q3D: &[Param] = &[
    param("B", "batch", 32.0, 4.0, 64.0, Scale::Int),
    param("N", "chips", 16.0, 8.0, 32.0, Scale::Pow2),
];
const P_Q3C: &[Param] = &[
    param("F", "F", 28672.0, 8192.0, 65536.0, Scale::Linear),
    param("axes", "mesh axes", 2.0, 1.0, 3.0, Scale::Int),
];
const P_Q4: &[Param] = &[choice("chip", "TPU", &["v5e", "v5p", "v6e"])];
const P_Q6A: &[Param] = &[param("B", "batch", 43.0, 8.0, 43.0, Scale::Int)];
const P_Q6B: &[Param] = &[
    param("t", "step time (ms)", 19.0, 5.0, 50.0, Scale::Linear),
    param("G", "decode length", 512.0, 64.0, 4096.0, Scale::Pow2),
];
const P_Q6C: &[Param] = &[param("N", "chips", 4.0, 4.0, 32.0, Scale::Pow2)];
const P_Q8A: &[Param] = &[param("N", "chips", 32.0, 16.0, 64.0, Scale::Pow2)];
const P_Q9A: &[Param] = &[
    param("F", "F", 28672.0, 8192.0, 65536.0, Scale::Linear),
    param("B", "batch", 64.0, 8.0, 256.0, Scale::Pow2),
];
const P_Q9: &[Param] = &[
    param("B", "batch", 64.0, 8.0, 256.0, Scale::Pow2),
    param("Y", "model-parallel chips", 32.0, 8.0, 64.0, Scale::Pow2),
];
const P_Q10: &[Param] = &[
    param("T", "prompt tokens", 8192.0, 1024.0, 8192.0, Scale::Pow2),
    param("N", "chips", 16.0, 4.0, 64.0, Scale::Pow2),
    param("mfu", "MFU", 0.4, 0.2, 0.7, Scale::Linear),
];
const P_Q11: &[Param] = &[
    param("B", "batch", 32.0, 8.0, 256.0, Scale::Pow2),
    param("P", "prompt length", 8192.0, 512.0, 16384.0, Scale::Pow2),
    param("G", "decode length", 4096.0, 256.0, 8192.0, Scale::Pow2),
];
const P_Q12: &[Param] = &[
    param("tp", "prefill time (s)", 0.91, 0.2, 2.0, Scale::Linear),
    param("ts", "step time (ms)", 19.0, 5.0, 50.0, Scale::Linear),
    param("B", "batch", 32.0, 8.0, 128.0, Scale::Int),
    param("G", "decode length", 512.0, 128.0, 2048.0, Scale::Pow2),
];
const P_EX2: &[Param] = &[param("N", "chips", 16.0, 8.0, 64.0, Scale::Pow2)];
const P_WP1: &[Param] = &[choice(
    "model",
    "model",
    &["llama3-405b", "llama3-70b", "llama3-8b"],
)];

fn fpd(p: &[Param]) -> Result<Solution, String> {
    let c = chip_param(p, "chip")?;
    let f = flops_per_dollar(c, Dtype::Bf16).map_err(s)?;
    Ok(num(
        f,
        "FLOPs/$",
        format!(
            "{} FLOPs/s × 3600 s per hour / price per hour",
            sci(c.peak(Dtype::Bf16).map_or(f64::NAN, |x| x.0), 3)
        ),
    )
    .step(format!("= {} FLOPs per dollar", sci(f, 3))))
}

fn fpd_prompt(p: &[Param]) -> String {
    format!(
        "At its on-demand cloud price, how many bf16 FLOPs does a dollar buy on a {} running at peak?",
        name(p)
    )
}

fn q1d(p: &[Param]) -> Result<(Bytes, f64), String> {
    let kv = llama_32k()?
        .kv_per_sequence(32768.0, Dtype::Int8)
        .map_err(s)?
        * 240.0;
    let _ = p;
    Ok((llama()?.param_bytes(Dtype::Int8) + kv, 240.0))
}

fn q3(p: &[Param], tput: bool) -> Result<Solution, String> {
    let chips = int(p, "N");
    let st = step(Precision::stored(Dtype::Int8), value(p, "B"), chips)?;
    let line = format!(
        "memory-bound: (70 GB + B × KV) / ({chips} × 8.2e11 B/s) = {}",
        seconds(st.total.0)
    );
    let sol = if tput {
        num(st.tokens_per_sec(), "tokens/s", line)
            .step(format!("B / T = {} tokens/s", sci(st.tokens_per_sec(), 4)))
    } else {
        num(st.total.0, "ms", line)
    };
    Ok(sol.count("chips", chips as f64))
}

fn q3_prompt(p: &[Param], what: &str) -> String {
    format!(
        "LLaMA 3-70B (70e9 parameters) is served with int8 weights and KV caches on {} TPU v5e at batch {} with 8192-token contexts. What is the {what}?",
        n(value(p, "N")),
        n(value(p, "B"))
    )
}

const Q3_FIX: &str = "The book multiplies by 160e3 bytes of KV per token, but 2·8·128·80 = 163,840 bytes (160 KiB): the caches are 2.4% larger, so the step is 17.2 ms (8.6 ms on 16 chips) and the throughput 1858 tokens/s.";

fn topo(p: &[Param]) -> Result<MinTopologyRow, String> {
    let d = dtype(p, "dtype")?;
    let rows = min_topology_table(&llama()?, v5e()?, value(p, "S"), &[d]).map_err(s)?;
    rows.first().copied().ok_or_else(|| "no row".to_string())
}

fn topo_prompt(p: &[Param], what: &str) -> String {
    format!(
        "LLaMA 3-70B (70e9 parameters) with {} weights and KV caches on TPU v5e (16 GB per chip), sequences of {} tokens: {what}",
        chosen_name(p),
        n(value(p, "S"))
    )
}

fn chosen_name(p: &[Param]) -> &'static str {
    super::def::chosen(p, "dtype").unwrap_or("int8")
}

macro_rules! topo_defs {
    ($v:ident, $a:literal, $b:literal, $c:literal, $i:literal) => {{
        const P: &[Param] = &[
            param("dtype", "format", $i, 0.0, 2.0, Scale::Choice(FORMATS)),
            param("S", "sequence length", 8192.0, 2048.0, 8192.0, Scale::Pow2),
        ];
        $v.push(def($a, Kind::Question, P,
            |p| topo_prompt(p, "how many chips' worth of HBM do the weights alone fill (a fraction)?"),
            |p| {
                let r = topo(p)?;
                Ok(num(r.min_chips, "chips", format!("{} / 16 GB = {}", si(r.param_bytes.0, "B", 3), sci(r.min_chips, 3))))
            },
            &["Weight bytes divided by one chip's HBM."]));
        $v.push(def($b, Kind::Question, P,
            |p| topo_prompt(p, "on the smallest power-of-two slice that holds the weights, how many GB of HBM are left for KV caches?"),
            |p| {
                let r = topo(p)?;
                Ok(num(r.free_hbm.0, "GB", format!("slice of {} chips: {} × 16 GB − {} = {}", r.slice_chips, r.slice_chips, si(r.param_bytes.0, "B", 3), si(r.free_hbm.0, "B", 3)))
                    .count("chips", r.slice_chips as f64))
            },
            &["Round the chip count up to a power of two, then subtract the weights."]));
        $v.push(def($c, Kind::Question, P,
            |p| topo_prompt(p, "on that smallest slice, how many whole KV caches fit beside the weights?"),
            |p| {
                let r = topo(p)?;
                Ok(num(r.kv_caches as f64, "sequences", format!("KV per token {}; free {} / (KV per token × S)", si(r.kv_per_token.0, "B", 3), si(r.free_hbm.0, "B", 3)))
                    .step(format!("= {} caches", r.kv_caches)))
            },
            &["Free HBM divided by one sequence's KV cache, rounded down."]));
    }};
}

fn qps(p: &[Param]) -> Result<Solution, String> {
    let d = dtype(p, "dtype")?;
    let chips = int(p, "N");
    let pr = Precision::stored(d);
    let b = max_batch(&llama()?, pr, &slice(chips)?, 8192.0).map_err(s)? as f64;
    let st = step(pr, b, chips)?;
    let q = qps_per_chip(b, st.total, 512.0, chips).map_err(s)?;
    Ok(num(
        q,
        "queries/s/chip",
        format!(
            "largest batch {b}; step {} ({})",
            seconds(st.total.0),
            st.mlp_verdict.text()
        ),
    )
    .step(format!(
        "QPS per chip = B / (T_step × 512 × {chips}) = {}",
        sci(q, 3)
    ))
    .count("chips", chips as f64))
}

fn qps_prompt(p: &[Param]) -> String {
    format!(
        "LLaMA 3-70B in {} (weights and KV caches) on {} TPU v5e runs the largest batch of 8192-token contexts that fits, and each request decodes 512 tokens. How many queries per second does each chip serve?",
        chosen_name(p),
        n(value(p, "N"))
    )
}

macro_rules! qps_def {
    ($v:ident, $id:literal, $i:literal, $n:literal, $fix:expr) => {{
        const P: &[Param] = &[
            param("dtype", "format", $i, 0.0, 2.0, Scale::Choice(FORMATS)),
            param("N", "chips", $n, 4.0, 64.0, Scale::Pow2),
        ];
        let d = def(
            $id,
            Kind::Question,
            P,
            qps_prompt,
            qps,
            &["Each step finishes B tokens; a query needs 512 steps; divide by the chips."],
        );
        let fixed: Option<&'static str> = $fix;
        $v.push(match fixed {
            Some(why) => fix(d, why),
            None => d,
        });
    }};
}

const Q8_FIX: &str = "The book keeps its 19 ms memory-bound step at batch 140, but the KV caches only allow 138 sequences, and with int8 or int4 weights (bf16 FLOPs) that batch is past the critical batch, so the MLP is compute-bound and the step is longer; graded against the model's step.";

fn tp(p: &[Param]) -> Result<crate::roofline::Analysis, String> {
    let m = llama()?.config;
    tp_matmul(
        v5e()?,
        Precision::BF16,
        value(p, "B"),
        m.d_model as f64,
        m.d_ff as f64,
        int(p, "Y"),
    )
    .map_err(s)
}

fn tp_prompt(p: &[Param], what: &str) -> String {
    format!(
        "LLaMA 3-70B's MLP (D = 8192, F = 28,672) is sharded {}-way over TPU v5e at batch {} in bf16. Per matmul and chip, what is {what}, in µs?",
        n(value(p, "Y")),
        n(value(p, "B"))
    )
}

/// The book's worked problems 1 and 3: LLaMA 3-405B (the 3.1 release's shape) with
/// its exact parameter count.
fn llama_405b() -> Result<ServingModel, String> {
    ServingModel::preset("llama3-405b").map_err(s)
}

const WP_FORMATS: &[&str] = &["bf16", "int8"];
/// Worked problem 1's parameters, the weight format defaulting to `WP_FORMATS[format]`.
const fn wp1_params(format: f64) -> [Param; 2] {
    [
        param(
            "dtype",
            "weight format",
            format,
            0.0,
            1.0,
            Scale::Choice(WP_FORMATS),
        ),
        param("N", "chips", 1.0, 1.0, 256.0, Scale::Pow2),
    ]
}
const P_WP1_BF16: &[Param] = &wp1_params(0.0);
const P_WP1_INT8: &[Param] = &wp1_params(1.0);
const P_WP2: &[Param] = &[
    param("B", "batch", 240.0, 16.0, 512.0, Scale::Int),
    param("S", "context length", 8192.0, 1024.0, 8192.0, Scale::Pow2),
];
const P_WP3A: &[Param] = &[param(
    "t",
    "step-time limit (ms)",
    15.0,
    5.0,
    40.0,
    Scale::Linear,
)];
const P_WP3B: &[Param] = &[
    param("t", "step-time limit (ms)", 15.0, 5.0, 40.0, Scale::Linear),
    param("S", "context length", 8192.0, 2048.0, 16384.0, Scale::Pow2),
];

/// "on one TPU v5e" or "on 16 TPU v5e".
fn on_chips(chips: f64) -> String {
    if chips == 1.0 {
        "on one TPU v5e".into()
    } else {
        format!("on {} TPU v5e", n(chips))
    }
}

/// Worked problem 1, bandwidth-bound: the weights read once per token.
fn wp1_weights(p: &[Param]) -> Result<Solution, String> {
    let d = dtype(p, "dtype")?;
    let chips = int(p, "N");
    let pr = Precision::stored(d);
    let w = llama_405b()?.workload(pr, 1.0, 1.0).map_err(s)?;
    let st = decode_step(&w, &slice(chips)?, pr.compute).map_err(s)?;
    Ok(num(
        st.param_load.0,
        "s",
        format!(
            "{} of {d} weights / ({chips} × {} B/s) = {}",
            si(w.param_bytes.0, "B", 4),
            sci(v5e()?.hbm_bw().0, 3),
            seconds(st.param_load.0)
        ),
    )
    .count("chips", chips as f64))
}

fn wp1_prompt(p: &[Param]) -> String {
    format!(
        "Suppose instead that a forward pass of LLaMA 3.1 405B {} is bound by HBM bandwidth, reading every {} weight once per token (ignore that the weights do not fit on so few chips). How long does one token take at the least, in seconds?",
        on_chips(value(p, "N")),
        super::def::chosen(p, "dtype").unwrap_or("bf16")
    )
}

/// Worked problem 2's setting: LLaMA 3-8B decoding `B` sequences of `S` tokens,
/// weights and KV caches in int8.
fn wp2_workload(p: &[Param]) -> Result<(ServingModel, DecodeWorkload), String> {
    let m = ServingModel::preset("llama3-8b").map_err(s)?;
    let w = m
        .workload(Precision::stored(Dtype::Int8), value(p, "B"), value(p, "S"))
        .map_err(s)?;
    Ok((m, w))
}

fn wp2_prompt(p: &[Param], ask: &str) -> String {
    let m = model("llama3-8b").map_or_else(|| "LLaMA 3 8B".into(), describe);
    format!(
        "{m} decodes a batch of {} sequences of {} tokens, weights and KV caches in int8. {ask}",
        n(value(p, "B")),
        n(value(p, "S"))
    )
}

fn wp2_activations(p: &[Param]) -> Result<(DecodeWorkload, Bytes), String> {
    let (m, w) = wp2_workload(p)?;
    let a = decode_activation_bytes(&m.config, w.batch, Dtype::Bf16).map_err(s)?;
    Ok((w, a))
}

/// Worked problem 3: the smallest v5e slice whose weight reads meet the limit.
fn wp3_slice(p: &[Param]) -> Result<u64, String> {
    let limit = Seconds(value(p, "t") * 1e-3);
    min_slice_within(
        &llama_405b()?,
        Precision::stored(Dtype::Int8),
        v5e()?,
        limit,
    )
    .map_err(s)
}

fn wp3_prompt(p: &[Param], ask: &str) -> String {
    format!(
        "LLaMA 3.1 405B is served on TPU v5e with int8 weights and KV caches and bf16 FLOPs, and no decode step may take longer than {} ms. {ask}",
        value(p, "t")
    )
}

/// Part 8's exercises.
pub(super) fn defs() -> Vec<Def> {
    let mut v = vec![
        def("ch8-ex1a", Kind::WorkedExample, P_H100, fpd_prompt, fpd, &["FLOPs per second times seconds per hour, over dollars per hour."]),
        def("ch8-ex1b", Kind::WorkedExample, P_V5P, fpd_prompt, fpd, &["FLOPs per second times seconds per hour, over dollars per hour."]),
        def("ch8-ex1c", Kind::WorkedExample, P_V5E, fpd_prompt, fpd, &["FLOPs per second times seconds per hour, over dollars per hour."]),
        def("ch8-q1a", Kind::Question, P_Q1A,
            |p| format!("LLaMA 3-70B has 80 layers and 8 KV heads of size 128. How many kB of {} KV cache does one token take?", chosen_name(p)),
            |p| {
                let d = dtype(p, "dtype")?;
                let b = llama_32k()?.kv_per_token(d);
                Ok(num(b.0, "kB", format!("2 × 80 × 8 × 128 × {} bytes = {}", d.bytes(), si(b.0, "B", 4)))
                    .two("keys and values are both cached: did you forget the 2?"))
            },
            &["Keys and values, per layer, per KV head, per head dimension."]),
        def("ch8-q1b", Kind::Question, P_Q1B,
            |p| format!("How many GB of int8 KV cache does one {}-token sequence of LLaMA 3-70B take?", n(value(p, "S"))),
            |p| {
                let b = llama_32k()?.kv_per_sequence(value(p, "S"), Dtype::Int8).map_err(s)?;
                Ok(num(b.0, "GB", format!("163,840 bytes per token × {} = {}", n(value(p, "S")), si(b.0, "B", 3))))
            },
            &["Bytes per token times tokens."]),
        def("ch8-q1c", Kind::Question, P_Q1C,
            |p| format!("And for a batch of {} such {}-token sequences, in TB?", n(value(p, "B")), n(value(p, "S"))),
            |p| {
                let b = llama_32k()?.kv_per_sequence(value(p, "S"), Dtype::Int8).map_err(s)? * value(p, "B");
                Ok(num(b.0, "TB", format!("per sequence × {} = {}", n(value(p, "B")), si(b.0, "B", 3))))
            },
            &["One sequence's cache times the batch."]),
        fix(def("ch8-q1d", Kind::Question, &[],
            |_| "How many TPU v5e (16 GB each) does it take to hold LLaMA 3-70B's 70 GB of int8 weights plus the KV caches of 240 sequences of 32,768 tokens?".into(),
            |p| {
                let (total, _) = q1d(p)?;
                let c = v5e()?;
                let f = chips_for_bytes(total, c).map_err(s)?;
                let k = min_chips(total, c).map_err(s)?;
                Ok(num(k as f64, "chips", format!("{} / 16 GB = {}", si(total.0, "B", 4), sci(f, 4)))
                    .step(format!("round up: {k} chips")))
            },
            &["Add the weights and the caches, divide by one chip's HBM and round up."]),
            "The book rounds the KV caches to 1.3 TB before dividing and gets 86; the exact 1.29e12 bytes plus 70 GB need 84.9 chips' worth, so 85 chips."),
        fix(def("ch8-q2a", Kind::Question, P_Q2,
            |p| format!("LLaMA 3-70B decodes a batch of {} with {}-token contexts, weights and KV in int8. How many GB do the KV caches take?", n(value(p, "B")), n(value(p, "S"))),
            |p| {
                let w = llama()?.workload(Precision::stored(Dtype::Int8), value(p, "B"), value(p, "S")).map_err(s)?;
                Ok(num(w.kv_bytes().0, "GB", format!("163,840 B × {} × {} = {}", n(value(p, "S")), n(value(p, "B")), si(w.kv_bytes().0, "B", 4))))
            },
            &["Bytes per token, times tokens per sequence, times sequences."]),
            "The book multiplies by 160e3 bytes of KV per token and gets 41.9 GB; the exact 163,840 bytes (160 KiB) give 42.9 GB."),
        def("ch8-q2b", Kind::Question, P_Q2,
            |p| format!("Same setting (batch {}, {}-token contexts, int8): how many GB do weights plus KV caches need?", n(value(p, "B")), n(value(p, "S"))),
            |p| {
                let w = llama()?.workload(Precision::stored(Dtype::Int8), value(p, "B"), value(p, "S")).map_err(s)?;
                let c = v5e()?;
                let slice_chips = crate::inference::min_slice_chips(w.memory(), c).map_err(s)?;
                Ok(num(w.memory().0, "GB", format!("70 GB + {} = {}", si(w.kv_bytes().0, "B", 3), si(w.memory().0, "B", 4)))
                    .step(format!("smallest power-of-two v5e slice: {slice_chips} chips")))
            },
            &["Weights plus all the caches."]),
        fix(def("ch8-q3a", Kind::Question, P_Q3A, |p| q3_prompt(p, "decode step time, in ms"), |p| q3(p, false),
            &["At this batch every byte of weights and caches is read once per step: bytes over total HBM bandwidth."]), Q3_FIX),
        fix(def("ch8-q3b", Kind::Question, P_Q3A, |p| q3_prompt(p, "throughput in tokens/s"), |p| q3(p, true),
            &["Each step produces one token per sequence."]), Q3_FIX),
        def("ch8-q3c", Kind::Question, P_Q3C,
            |p| format!("Model parallelism over {} ICI axes of a v5e stays compute-bound while Y < axes·F/α_ici. With F = {}, what is the largest Y?", n(value(p, "axes")), n(value(p, "F"))),
            |p| {
                let y = prefill_tp_limit(v5e()?, Dtype::Bf16, value(p, "F"), value(p, "axes")).map_err(s)?;
                Ok(num(y, "ways", format!("Y = {} × {} / (C / W_ici) = {}", n(value(p, "axes")), n(value(p, "F")), sci(y, 3))))
            },
            &["α_ici is the peak FLOPs/s over the ICI bandwidth, about 2200 on a v5e."]),
        fix(def("ch8-q3d", Kind::Question, P_Q3D, |p| q3_prompt(p, "decode step time, in ms"), |p| q3(p, false),
            &["Twice the chips, twice the HBM bandwidth."]), Q3_FIX),
        def("ch8-q4", Kind::Question, P_Q4,
            |p| format!("On a {}, what are the critical batch sizes for (1) bf16 weights and matmuls, (2) int8 weights with bf16 matmuls, (3) int8 weights and int8 matmuls?", name(p)),
            |p| {
                let c = chip_param(p, "chip")?;
                let b = |w, k| critical_batch(c, w, k).map(|x| x.round()).map_err(s);
                let (a, bb, cc) = (b(Dtype::Bf16, Dtype::Bf16)?, b(Dtype::Int8, Dtype::Bf16)?, b(Dtype::Int8, Dtype::Int8)?);
                let t = |x: f64, y: f64, z: f64| format!("{}; {}; {}", n(x), n(y), n(z));
                let options = [("a", t(a, bb, cc)), ("b", t(a, 2.0 * bb, 2.0 * cc)), ("c", t(bb, a, a)), ("d", t(a, bb, 2.0 * cc))];
                Ok(pick(&options, "a").step(format!("bf16: C/W = {a}; int8 weights halve the bytes: {bb}; int8 FLOPs double C: {cc}")))
            },
            &["B_crit = C × bytes per weight / (2 W): change one factor at a time."]),
    ];
    topo_defs!(
        v,
        "ch8-q5-bf16-minchips",
        "ch8-q5-bf16-slice",
        "ch8-q5-bf16-kvcaches",
        0.0
    );
    topo_defs!(
        v,
        "ch8-q5-int8-minchips",
        "ch8-q5-int8-slice",
        "ch8-q5-int8-kvcaches",
        1.0
    );
    topo_defs!(
        v,
        "ch8-q5-int4-minchips",
        "ch8-q5-int4-slice",
        "ch8-q5-int4-kvcaches",
        2.0
    );
    if let Some(d) = v.iter_mut().find(|d| d.id == "ch8-q5-int4-minchips") {
        *d = fix(*d, "The book's table lists 2.81 chips for the 35 GB of int4 weights; 35 / 16 = 2.19. Its 2x2 slice is still right.");
    }
    v.extend([
        def("ch8-q6a", Kind::Question, P_Q6A,
            |p| format!("LLaMA 3-70B in bf16 fills 16 TPU v5e with its weights and {} KV caches of 8192 tokens. How long is one decode step, in ms?", n(value(p, "B"))),
            |p| {
                let st = step(Precision::BF16, value(p, "B"), 16)?;
                Ok(num(st.total.0, "ms", format!("weights + caches / (16 × 8.2e11 B/s) = {}", seconds(st.total.0))).count("chips", 16.0))
            },
            &["With HBM full, each chip streams its whole 16 GB every step."]),
        def("ch8-q6b", Kind::Question, P_Q6B,
            |p| format!("At {} ms per decode step, how long does it take to generate {} tokens, in seconds?", value(p, "t"), n(value(p, "G"))),
            |p| {
                let t = decode_time(Seconds(value(p, "t") * 1e-3), value(p, "G")).map_err(s)?;
                Ok(num(t.0, "s", format!("{} ms × {} = {}", value(p, "t"), n(value(p, "G")), seconds(t.0))))
            },
            &["One step per token."]),
        def("ch8-q6c", Kind::Question, P_Q6C,
            |p| format!("With int4 weights (35 GB) on {} TPU v5e, what is the least possible step time (weights only), in ms?", n(value(p, "N"))),
            |p| {
                let chips = int(p, "N");
                let st = step(Precision::stored(Dtype::Int4), 1.0, chips)?;
                Ok(num(st.param_load.0, "ms", format!("35 GB / ({chips} × 8.2e11 B/s) = {}", seconds(st.param_load.0))).count("chips", chips as f64))
            },
            &["The weights must be read once per step."]),
    ]);
    qps_def!(v, "ch8-q7-bfloat16", 0.0, 16.0, None);
    qps_def!(v, "ch8-q7-int8", 1.0, 8.0, None);
    qps_def!(v, "ch8-q7-int4", 2.0, 4.0, None);
    v.push(fix(def("ch8-q8a", Kind::Question, P_Q8A,
        |p| format!("LLaMA 3-70B in bf16 (140 GB) on {} TPU v5e: how many 8192-token KV caches fit beside the weights?", n(value(p, "N"))),
        |p| {
            let chips = int(p, "N");
            let b = max_batch(&llama()?, Precision::BF16, &slice(chips)?, 8192.0).map_err(s)?;
            Ok(num(b as f64, "sequences", format!("({chips} × 16 GB − 140 GB) / (327,680 B × 8192)"))
                .step(format!("= {b} sequences")))
        },
        &["Free HBM over one sequence's bf16 KV cache (2 bytes per value)."]),
        "The book divides by a rounded 324 kB per token and gets 140; the exact 327,680 bytes allow 138 sequences."));
    qps_def!(v, "ch8-q8-bfloat16", 0.0, 32.0, None);
    qps_def!(v, "ch8-q8-int8", 1.0, 16.0, Some(Q8_FIX));
    qps_def!(v, "ch8-q8-int4", 2.0, 8.0, Some(Q8_FIX));
    v.extend([
        def("ch8-q9a", Kind::Question, P_Q9A,
            |p| format!("At small batch, model parallelism helps while Y < F/(8B). For F = {} and batch {}, what is that limit?", n(value(p, "F")), n(value(p, "B"))),
            |p| {
                let y = decode_tp_limit(value(p, "F"), value(p, "B"), 8.0).map_err(s)?;
                Ok(num(y, "ways", format!("{} / (8 × {}) = {}", n(value(p, "F")), n(value(p, "B")), sci(y, 4))))
            },
            &["β ≈ 8 is the ratio of HBM to ICI bandwidth."]),
        def("ch8-q9b", Kind::Question, P_Q9, |p| tp_prompt(p, "the ICI time of the activations"),
            |p| {
                let a = tp(p)?;
                let t = a.t_comms(Link::Ici).ok_or("no ICI term")?;
                Ok(num(t.0, "µs", format!("2·B·D / W_ici = {}", seconds(t.0))))
            },
            &["bf16 activations [B, D] cross the ICI once."]),
        def("ch8-q9c", Kind::Question, P_Q9, |p| tp_prompt(p, "the HBM time of the weight shard"),
            |p| {
                let a = tp(p)?;
                let t = a.t_comms(Link::Hbm).ok_or("no HBM term")?;
                Ok(num(t.0, "µs", format!("2·D·F / (Y·W_hbm) = {}", seconds(t.0))))
            },
            &["Each chip reads 1/Y of the bf16 weight matrix."]),
        fix(def("ch8-q9d", Kind::Question, P_Q9, |p| tp_prompt(p, "the compute time"),
            |p| {
                let a = tp(p)?;
                Ok(num(a.t_math.0, "µs", format!("2·B·D·F / (Y·C) = {}", seconds(a.t_math.0)))
                    .step(format!("the matmul is {}", a.verdict.text())))
            },
            &["FLOPs per chip over the chip's peak."]),
            "2·64·8192·28,672 / (32 × 1.97e14) is 4.77 µs, not the book's 4 µs; the conclusion (HBM-bound) stands."),
        def("ch8-q10", Kind::Question, P_Q10,
            |p| format!("How long does prefilling a {}-token prompt of a 70e9-parameter model take on {} TPU v5e at {}% MFU, in seconds?", n(value(p, "T")), n(value(p, "N")), sci(value(p, "mfu") * 100.0, 3)),
            |p| {
                let t = prefill_time(&llama()?, value(p, "T"), &slice(int(p, "N"))?, Dtype::Bf16, value(p, "mfu")).map_err(s)?;
                Ok(num(t.0, "s", format!("2 × 70e9 × {} / ({} × 1.97e14 × {}) = {}", n(value(p, "T")), n(value(p, "N")), value(p, "mfu"), seconds(t.0))))
            },
            &["2 FLOPs per parameter per token, over the achieved FLOPs/s."]),
        def("ch8-q11a", Kind::Question, P_Q11,
            |p| format!("With continuous batching at batch {}, prompts of {} tokens and generations of {} tokens, how many sequences finish per decode step on average?", n(value(p, "B")), n(value(p, "P")), n(value(p, "G"))),
            |p| {
                let f = finished_per_step(value(p, "B"), value(p, "G")).map_err(s)?;
                Ok(num(f, "", format!("B / G = {}", sci(f, 3))))
            },
            &["Each sequence stays G steps."]),
        def("ch8-q11b", Kind::Question, P_Q11,
            |p| format!("Same setting (batch {}, prompts {}, generations {}): how many KV-cache tokens are freed per step?", n(value(p, "B")), n(value(p, "P")), n(value(p, "G"))),
            |p| {
                let t = tokens_evicted_per_step(value(p, "B"), value(p, "P"), value(p, "G")).map_err(s)?;
                Ok(num(t, "tokens", format!("B·(P + G)/G = {}", sci(t, 4))))
            },
            &["A finished sequence frees its prompt and its generated tokens."]),
        def("ch8-q12", Kind::Question, P_Q12,
            |p| format!("Disaggregated serving: a prefill takes {} s; the generate server runs batch {} at {} ms per step and each request decodes {} tokens. How many prefill servers does each generate server need?", value(p, "tp"), n(value(p, "B")), value(p, "ts"), n(value(p, "G"))),
            |p| {
                let r = prefill_decode_ratio(Seconds(value(p, "tp")), Seconds(value(p, "ts") * 1e-3), value(p, "B"), value(p, "G")).map_err(s)?;
                Ok(num(r, "", format!("t_prefill × B / (t_step × G) = {}", sci(r, 3))))
            },
            &["Match the rate prefills are produced with the rate the generate server consumes requests."]),
        def("ch8-ex2", Kind::WorkedExample, P_EX2,
            |p| format!("LLaMA 3-70B with int8 weights on {} TPU v5e: what is the lowest per-token latency at batch 1, in ms?", n(value(p, "N"))),
            |p| {
                let chips = int(p, "N");
                let m = ServingModel::preset("llama3-70b").map_err(s)?;
                let pr = Precision::stored(Dtype::Int8);
                let w = m.workload(pr, 1.0, 8192.0).map_err(s)?;
                let st = decode_step(&w, &slice(chips)?, pr.compute).map_err(s)?;
                Ok(num(st.total.0, "ms", format!("weights + one cache / ({chips} × 8.2e11 B/s) = {}", seconds(st.total.0))).count("chips", chips as f64))
            },
            &["At batch 1 the step is the time to read the weights."]),
        unanswered(def("ch8-wp1a", Kind::Question, P_WP1,
            |p| format!("How many FLOPs does one forward pass of {} spend per token?", super::def::chosen(p, "model").unwrap_or("the model")),
            |p| {
                let id = super::def::chosen(p, "model")?;
                let m = ServingModel::preset(id).map_err(s)?;
                let f = m.forward_flops(1.0).map_err(s)?;
                let w = DecodeWorkload::new(1.0, m.active_params, Bytes(1.0), Bytes(1.0)).map_err(s)?;
                Ok(num(f.0, "FLOPs", format!("2 × {} parameters = {}", sci(w.param_count, 4), sci(f.0, 3)))
                    .step(format!("on N v5e at peak: at least {} / N", seconds(f.0 / v5e()?.peak(Dtype::Bf16).map_or(f64::NAN, |x| x.0))))
                    .two("a multiply-add is two FLOPs per parameter."))
            },
            &["Two FLOPs per parameter per token."])),
        unanswered(def("ch8-wp1b", Kind::Question, P_WP1_BF16, wp1_prompt, wp1_weights,
            &["Weight bytes over the HBM bandwidth of all the chips."])),
        unanswered(def("ch8-wp1c", Kind::Question, P_WP1_INT8, wp1_prompt, wp1_weights,
            &["Weight bytes over the HBM bandwidth of all the chips."])),
        unanswered(def("ch8-wp2a", Kind::Question, &[],
            |_| "LLaMA 3 8B is served with int8 weights. How many GB do the weights take?".into(),
            |_| {
                let m = ServingModel::preset("llama3-8b").map_err(s)?;
                let b = m.param_bytes(Dtype::Int8);
                Ok(num(b.0, "GB", format!("{} parameters × 1 byte = {}", sci(m.params, 4), si(b.0, "B", 4))))
            },
            &["One byte per parameter."])),
        unanswered(def("ch8-wp2b", Kind::Question, P_WP2,
            |p| wp2_prompt(p, "How many GB do the KV caches take?"),
            |p| {
                let (m, w) = wp2_workload(p)?;
                let c = &m.config;
                let per_token = m.kv_per_token(Dtype::Int8);
                Ok(num(w.kv_bytes().0, "GB", format!("2 × {} × {} × {} = {} per token", c.layers, c.kv_heads, c.head_dim, si(per_token.0, "B", 4)))
                    .step(format!("× {} tokens × {} sequences = {}", n(value(p, "S")), n(w.batch), si(w.kv_bytes().0, "B", 4)))
                    .two("keys and values are both cached: did you forget the 2?"))
            },
            &["Bytes per token (keys and values, per layer, per KV head, per head dimension), times tokens, times sequences."])),
        unanswered(def("ch8-wp2c", Kind::Question, P_WP2,
            |p| wp2_prompt(p, "Activations are bf16. At the busiest moment of a decode step, the residual stream [B, D] sits beside the widest tensor computed from it: the MLP's two hidden activations [B, F], the attention projections or the logits [B, V] (attention scores are never held whole). How many MB is that?"),
            |p| {
                let (w, a) = wp2_activations(p)?;
                Ok(num(a.0, "MB", format!("B × (D + the widest of 2F, (N + 2K)·H and V) × 2 bytes = {}", si(a.0, "B", 3)))
                    .step(format!("{} of the step's {}: negligible", si(a.0, "B", 2), si((w.memory() + a).0, "B", 4))))
            },
            &["Decode holds no activations from layer to layer; find the widest tensor of one step."])),
        unanswered(def("ch8-wp2d", Kind::Question, P_WP2,
            |p| wp2_prompt(p, "What is the smallest power-of-two TPU v5e slice (16 GB of HBM per chip) that holds the weights, the caches and the activations, in chips?"),
            |p| {
                let (w, a) = wp2_activations(p)?;
                let c = v5e()?;
                let total = w.memory() + a;
                let whole = min_chips(total, c).map_err(s)?;
                let chips = min_slice_chips(total, c).map_err(s)?;
                let sol = num(chips as f64, "chips", format!("{} + {} + {} = {}", si(w.param_bytes.0, "B", 3), si(w.kv_bytes().0, "B", 4), si(a.0, "B", 2), si(total.0, "B", 4)))
                    .step(format!("/ 16 GB = {} → {whole} chips → a slice of {chips}", sci(chips_for_bytes(total, c).map_err(s)?, 3)));
                Ok(if whole == chips { sol } else { sol.perturb(whole as f64, "That many chips hold it, but a slice has a power-of-two number of chips: round up to the next one.") })
            },
            &["Add the three, divide by one chip's HBM, round up, then up again to a power of two."])),
        unanswered(def("ch8-wp3a", Kind::Question, P_WP3A,
            |p| wp3_prompt(p, "What is the smallest power-of-two slice that can meet that limit, in chips?"),
            |p| {
                let chips = wp3_slice(p)?;
                let m = llama_405b()?;
                let bytes = m.param_bytes(Dtype::Int8);
                let memory = min_slice_chips(bytes, v5e()?).map_err(s)?;
                let read = |k: u64| -> Result<f64, String> {
                    let pr = Precision::stored(Dtype::Int8);
                    let w = m.workload(pr, 1.0, 1.0).map_err(s)?;
                    Ok(decode_step(&w, &slice(k)?, pr.compute).map_err(s)?.param_load.0)
                };
                let mut sol = num(chips as f64, "chips", format!("{} of weights fit on a slice of {memory}, which reads them in {}", si(bytes.0, "B", 4), seconds(read(memory)?)))
                    .step(format!("a step is never shorter than its weight reads: {chips} chips read them in {}", seconds(read(chips)?)));
                if memory != chips {
                    sol = sol.perturb(memory as f64, "That slice holds the weights, but reading them alone takes longer than the limit.");
                }
                Ok(sol)
            },
            &["First the fewest chips whose HBM holds the weights; then check the time to read the weights once."])),
        unanswered(def("ch8-wp3b", Kind::Question, P_WP3B,
            |p| wp3_prompt(p, &format!("On the smallest slice that meets it, with contexts of {} tokens, what is the most throughput per chip it allows, in tokens/s per chip?", n(value(p, "S")))),
            |p| {
                let chips = wp3_slice(p)?;
                let m = llama_405b()?;
                let pr = Precision::stored(Dtype::Int8);
                let limit = Seconds(value(p, "t") * 1e-3);
                let best = largest_batch_within(&m, pr, &slice(chips)?, value(p, "S"), limit)
                    .map_err(s)?
                    .ok_or("no batch meets the limit")?;
                let weights_only = best.batch / (best.step.mlp.0 * chips as f64);
                Ok(num(best.tokens_per_sec_per_chip, "tokens/s/chip", format!("{chips} chips; the largest batch within the limit is {}, a step of {} ({} for its caches)", n(best.batch), seconds(best.step.total.0), seconds(best.step.kv_load.0)))
                    .step(format!("B / (T_step × {chips}) = {} tokens/s per chip", sci(best.tokens_per_sec_per_chip, 3)))
                    .step(format!("past the critical batch of {} the FLOPs bound the matmuls, so smaller batches from there up serve as much per chip", sci(m.critical_batch(v5e()?, pr).map_err(s)?, 3)))
                    .perturb(weights_only, "The KV caches are read every step too: their time adds to the step.")
                    .count("chips", chips as f64))
            },
            &["Find the largest batch whose step fits in the limit: caches plus the larger of the FLOPs and the weight reads."])),
        unanswered(def("ch8-wp3c", Kind::Question, &[],
            |_| "LLaMA 3.1 405B with int8 weights on a full TPU v5e pod: what is the shortest a decode step could possibly take, in ms?".into(),
            |_| {
                let c = v5e()?;
                let chips = Slice::full_pod(c).map_err(s)?.chips();
                let pr = Precision::stored(Dtype::Int8);
                let w = llama_405b()?.workload(pr, 1.0, 1.0).map_err(s)?;
                let st = decode_step(&w, &slice(chips)?, pr.compute).map_err(s)?;
                Ok(num(st.param_load.0, "ms", format!("a pod has {chips} chips; {} / ({chips} × {} B/s) = {}", si(w.param_bytes.0, "B", 4), sci(c.hbm_bw().0, 3), seconds(st.param_load.0)))
                    .step(format!("only if the interconnect keeps up with {chips}-way model parallelism"))
                    .count("chips", chips as f64))
            },
            &["At the smallest batch a step is the time to read the weights, spread over every chip of the pod."])),
    ]);
    v
}
