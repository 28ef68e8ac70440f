//! Part 8 (serving LLaMA 3-70B on TPUs): every `ch8-*` problem reproduced by `ridgeline-core`.
//!
//! Two roundings run through the book's arithmetic and are handled here on purpose:
//! - It takes LLaMA 3-70B to have 70e9 parameters ("our model has 70e9 parameters";
//!   the exact count is 70.55e9). [`llama_70b`] uses the round figure.
//! - It computes the int8 KV cache per token as 2·8·128·80 = 163,840 bytes, calls it
//!   "160kB" (it is 160 KiB), and then multiplies by 160e3. Core keeps the exact
//!   163,840 bytes; where the book's 2.4% shortfall pushes a number outside its
//!   tolerance, the test asserts the exact value and says so.

// Helpers outside `#[test]` functions unwrap known-good presets too.
#![allow(clippy::unwrap_used)]

use ridgeline_core::dtype::Dtype;
use ridgeline_core::exercises::{exercise, Verdict as Grade};
use ridgeline_core::hardware::{chip, price_per_hour, Chip, Link};
use ridgeline_core::inference::{
    chips_for_bytes, critical_batch, decode_activation_bytes, decode_step, decode_time,
    decode_tp_limit, finished_per_step, flops_per_dollar, hbm_ici_ratio, largest_batch,
    largest_batch_within, latency_vs_chips, max_batch, memory_use, min_chips, min_slice_chips,
    min_slice_within, min_topology_table, pareto_series, prefill_decode_ratio, prefill_time,
    prefill_tp_limit, qps_per_chip, tokens_evicted_per_step, tp_matmul, DecodeWorkload, Precision,
    ServingModel, ServingSlice, StepTime,
};
use ridgeline_core::roofline::Verdict;
use ridgeline_core::units::{Bytes, Seconds};
use ridgeline_tests::{assert_book, assert_rel, checked, problem};

const GB: f64 = 1e9;
const MS: f64 = 1e3;
const US: f64 = 1e6;

fn v5e() -> &'static Chip {
    chip("v5e").unwrap()
}

fn slice(chips: u64) -> ServingSlice {
    ServingSlice::new(v5e(), chips).unwrap()
}

/// LLaMA 3-70B with the book's round 70e9 parameters.
fn llama_70b() -> ServingModel {
    ServingModel::preset("llama3-70b")
        .unwrap()
        .with_params(70e9)
        .unwrap()
}

/// LLaMA 3-70B with its exact parameter count and a 32k context (the released
/// model has 8192; Part 8 considers 32k sequences "as is common").
fn llama_70b_32k() -> ServingModel {
    let m = ServingModel::preset("llama3-70b").unwrap();
    ServingModel::new(m.config.with_max_seq(32768).unwrap()).unwrap()
}

/// The decode step of LLaMA 3-70B (round 70e9 parameters) at `batch` 8k sequences.
fn step(p: Precision, batch: f64, chips: u64) -> StepTime {
    let w = llama_70b().workload(p, batch, 8192.0).unwrap();
    decode_step(&w, &slice(chips), p.compute).unwrap()
}

#[test]
pub(crate) fn ex1_flops_per_dollar() {
    for (id, c) in [
        ("ch8-ex1a", "h100"),
        ("ch8-ex1b", "v5p"),
        ("ch8-ex1c", "v5e"),
    ] {
        let chip = chip(c).unwrap();
        assert_eq!(price_per_hour(c).unwrap().source.part, 8);
        // v5e: 1.97e14 × 3600 / 1.2 = 5.91e17; the book's table rounds to 5.8e17.
        assert_book(id, flops_per_dollar(chip, Dtype::Bf16).unwrap());
    }
}

#[test]
pub(crate) fn q1_kv_cache_size() {
    let m = llama_70b_32k();
    let per_token = m.kv_per_token(Dtype::Int8);
    assert_eq!(per_token.0, 163_840.0); // 160 KiB, the book's "160kB"
    assert_book("ch8-q1a", per_token.0 / 1e3);
    let per_seq = m.kv_per_sequence(32768.0, Dtype::Int8).unwrap();
    assert_book("ch8-q1b", per_seq.0 / GB);
    let batch = problem("ch8-q1c").input("batch");
    let kv = per_seq * batch;
    assert_book("ch8-q1c", kv.0 / 1e12);
    // (70e9 + 1.29e12) / 16e9 = 84.9 chips, so 85. The book rounds the KV to 1.3 TB
    // first and gets 85.6 ≈ 86, outside its 1% tolerance of the exact count.
    let total = llama_70b().param_bytes(Dtype::Int8) + kv;
    assert_rel(
        "ch8-q1d",
        chips_for_bytes(total, v5e()).unwrap(),
        84.9,
        0.001,
    );
    assert_rel(
        "ch8-q1d",
        min_chips(total, v5e()).unwrap() as f64,
        85.0,
        1e-12,
    );
}

#[test]
pub(crate) fn q2_memory_at_batch_32() {
    let p = problem("ch8-q2a");
    let int8 = Precision::stored(Dtype::Int8);
    let w = llama_70b()
        .workload(int8, p.input("batch"), p.input("S"))
        .unwrap();
    // 163,840 × 8192 × 32 = 42.9e9 bytes (40 GiB). The book multiplies 160e3 and
    // gets 41.9e9, 2.4% short. The exact value, from the model's shape: keys and
    // values, per layer, per KV head, per head dimension, one int8 byte each.
    let c = llama_70b().config;
    let per_token = 2.0 * (c.layers * c.kv_heads * c.head_dim) as f64;
    assert_eq!(per_token, 163_840.0);
    assert_rel(
        "ch8-q2a",
        w.kv_bytes().0,
        per_token * p.input("S") * p.input("batch"),
        1e-12,
    );
    let ex = ridgeline_core::exercises::exercise("ch8-q2a").unwrap();
    assert_rel(
        "ch8-q2a exercise",
        ex.expected_value().unwrap(),
        w.kv_bytes().0,
        1e-12,
    );
    // The book's rounding, explicitly: core's batch of caches from the book's
    // rounded 160e3 bytes per token.
    let book = DecodeWorkload::new(
        p.input("batch"),
        70e9,
        llama_70b().param_bytes(Dtype::Int8),
        Bytes(p.input("per_token") * p.input("S")),
    )
    .unwrap();
    assert_book("ch8-q2a", book.kv_bytes().0 / GB);
    // The total (113 GB) is within the book's 1% of its 112 GB.
    assert_book("ch8-q2b", w.memory().0 / GB);
    // Smallest slice: 7.06 chips' worth, a 4x2 of 8.
    assert_eq!(min_slice_chips(w.memory(), v5e()).unwrap(), 8);
}

#[test]
pub(crate) fn q3_step_time_on_4x2_and_4x4() {
    let int8 = Precision::stored(Dtype::Int8);
    let exact = step(int8, 32.0, 8);
    assert_eq!(exact.mlp_verdict, Verdict::MemoryBound);
    // With the exact KV (113 GB) the step is 17.2 ms and the throughput 1858 tok/s,
    // 1.3% off the book's 17 ms and 1882 tok/s, which inherit its 160e3-byte KV.
    // The exact value, by the book's method on exact inputs: weights plus caches
    // over the slice's HBM bandwidth, one token per sequence per step.
    let memory_bound = |chips: u64| {
        let w = llama_70b().workload(int8, 32.0, 8192.0).unwrap();
        (llama_70b().param_bytes(Dtype::Int8) + w.kv_bytes()).0 / (chips as f64 * v5e().hbm_bw().0)
    };
    assert_rel("ch8-q3a", exact.total.0, memory_bound(8), 1e-9);
    assert_rel(
        "ch8-q3b",
        exact.tokens_per_sec(),
        32.0 / memory_bound(8),
        1e-9,
    );
    for id in ["ch8-q3a", "ch8-q3d"] {
        let ex = ridgeline_core::exercises::exercise(id).unwrap();
        let chips = if id == "ch8-q3a" { 8 } else { 16 };
        assert_rel(id, ex.expected_value().unwrap(), memory_bound(chips), 1e-9);
    }
    // The same formula on the book's 160e3 bytes per token reproduces its numbers.
    let per_token = problem("ch8-q2a").input("per_token");
    let book = |chips: u64| {
        let w = DecodeWorkload::new(32.0, 70e9, Bytes(70e9), Bytes(per_token * 8192.0)).unwrap();
        decode_step(&w, &slice(chips), Dtype::Bf16).unwrap()
    };
    assert_book("ch8-q3a", book(8).total.0 * MS);
    assert_book("ch8-q3b", book(8).tokens_per_sec());
    assert_book("ch8-q3d", book(16).total.0 * MS);
    // A 4x4 halves the step and keeps the per-chip throughput.
    let x16 = step(int8, 32.0, 16);
    assert_rel("ch8-q3d", x16.total.0, memory_bound(16), 1e-9);
    assert_rel(
        "per-chip throughput on 4x4",
        x16.tokens_per_sec_per_chip(),
        exact.tokens_per_sec_per_chip(),
        1e-12,
    );
    // ICI limit over two axes: Y < 2F / 2200 = 26.
    let y = prefill_tp_limit(v5e(), Dtype::Bf16, 28672.0, 2.0).unwrap();
    assert_book("ch8-q3c", y);
}

/// The answer is "240; 120; 240": each checked within 1%.
#[test]
pub(crate) fn q4_critical_batches() {
    let b = |w, c| critical_batch(v5e(), w, c).unwrap();
    assert_rel("ch8-q4 bf16", b(Dtype::Bf16, Dtype::Bf16), 240.0, 0.01);
    assert_rel("ch8-q4 int8/bf16", b(Dtype::Int8, Dtype::Bf16), 120.0, 0.01);
    assert_rel("ch8-q4 int8/int8", b(Dtype::Int8, Dtype::Int8), 240.0, 0.01);
    assert_eq!(problem("ch8-q4").answer.as_str(), Some("240; 120; 240"));
}

#[test]
pub(crate) fn q5_minimum_topology_table() {
    let rows = min_topology_table(
        &llama_70b(),
        v5e(),
        8192.0,
        &[Dtype::Bf16, Dtype::Int8, Dtype::Int4],
    )
    .unwrap();
    let ids = ["bf16", "int8", "int4"];
    let slices = [16, 8, 4];
    for ((row, id), chips) in rows.iter().zip(ids).zip(slices) {
        assert_eq!(row.slice_chips, chips, "{id}");
        if id == "int4" {
            // DISAGREES: the book's table lists 2.81 chips for 35 GB; 35e9 / 16e9 is
            // 2.19. Its 2x2 slice is still right.
            assert_rel("ch8-q5-int4-minchips", row.min_chips, 2.1875, 1e-12);
        } else {
            assert_book(&format!("ch8-q5-{id}-minchips"), row.min_chips);
        }
        assert_book(&format!("ch8-q5-{id}-slice"), row.free_hbm.0 / GB);
        assert_book(&format!("ch8-q5-{id}-kvcaches"), row.kv_caches as f64);
    }
    // KV per token: the book's 324 / 162 / 81 kB are 327,680 / 163,840 / 81,920 B.
    assert_eq!(rows[0].kv_per_token.0, 327_680.0);
    assert_eq!(rows[2].kv_per_token.0, 81_920.0);
}

#[test]
pub(crate) fn q6_latency_with_full_hbm() {
    // Filling 16 chips with weights and 43 8k caches: 19.5 ms, the time to stream
    // one chip's 16 GB (the book's "19ms").
    let full = step(Precision::BF16, 43.0, 16);
    assert_book("ch8-q6a", full.total.0 * MS);
    assert_rel(
        "HBM / bandwidth",
        full.total.0,
        v5e().hbm_capacity.value.0 / v5e().hbm_bw().0,
        0.01,
    );
    let p = problem("ch8-q6b");
    let t = decode_time(Seconds(p.input("step_s")), p.input("steps")).unwrap();
    assert_book("ch8-q6b", t.0);
    // At the unrounded 19.5 ms a 512-token decode takes 10.0 s; the book's "about
    // 9s" truncates 9.7 s (19 ms × 512).
    let exact = decode_time(full.total, 512.0).unwrap();
    assert_rel("512 decode steps", exact.0, 9.97, 0.005);
    // int4 weights alone on a 2x2: 10.7 ms.
    let int4 = step(Precision::stored(Dtype::Int4), 1.0, 4);
    assert_book("ch8-q6c", int4.param_load.0 * MS);
}

#[test]
pub(crate) fn q7_queries_per_second_per_chip() {
    for (id, dtype, chips) in [
        ("ch8-q7-bfloat16", Dtype::Bf16, 16u64),
        ("ch8-q7-int8", Dtype::Int8, 8),
        ("ch8-q7-int4", Dtype::Int4, 4),
    ] {
        let p = problem(id);
        assert_eq!(p.input("chips"), chips as f64);
        // From the book's stated inputs (19 ms/step).
        let q = qps_per_chip(
            p.input("batch"),
            Seconds(p.input("step_s")),
            p.input("steps"),
            chips,
        )
        .unwrap();
        assert_book(id, q);
        // From the model: batch 43 fills the slice, and the step follows.
        let st = step(Precision::stored(dtype), p.input("batch"), chips);
        let q = qps_per_chip(p.input("batch"), st.total, 512.0, chips).unwrap();
        assert_book(id, q);
    }
}

#[test]
pub(crate) fn q8_doubling_the_topology() {
    // bf16 on a 4x8: 512 − 140 = 372 GB free.
    let bf16 = Precision::BF16;
    let s32 = slice(32);
    let w = llama_70b().workload(bf16, 1.0, 8192.0).unwrap();
    assert_eq!(memory_use(&w, &s32).free_for_kv().0 / GB, 372.0);
    // 372e9 / (327,680 × 8192) = 138.6, so 138 caches. The book divides by its
    // rounded 324 kB per token and gets 140.
    let b = max_batch(&llama_70b(), bf16, &s32, 8192.0).unwrap();
    assert_rel("ch8-q8a", b as f64, 138.0, 1e-12);
    // The book's rounding, explicitly: core's largest batch beside core's weights
    // on core's 4x8 HBM, with the KV cache per token the book rounds to 324 kB.
    let book_kv_per_seq = Bytes(324e3 * 8192.0);
    let rounded = largest_batch(
        s32.hbm_capacity(),
        llama_70b().param_bytes(bf16.weights),
        book_kv_per_seq,
        32,
    )
    .unwrap();
    assert_book("ch8-q8a", rounded as f64);
    for (id, dtype, chips) in [
        ("ch8-q8-bfloat16", Dtype::Bf16, 32u64),
        ("ch8-q8-int8", Dtype::Int8, 16),
        ("ch8-q8-int4", Dtype::Int4, 8),
    ] {
        let p = problem(id);
        assert_eq!(p.input("chips"), chips as f64);
        // The book's inputs: batch 140 at 19 ms per step.
        let step_s = problem("ch8-q7-int8").input("step_s");
        let q = qps_per_chip(p.input("batch"), Seconds(step_s), 512.0, chips).unwrap();
        assert_book(id, q);
        // From the model the batch is 138, not 140. In bf16 the step is 19.45 ms and
        // the QPS per chip 0.433, within the book's 3%. But the book keeps its 19 ms
        // memory-bound step for int8 and int4, and 138 sequences exceed their critical
        // batches (120 and 60 with bf16 FLOPs): the MLP turns compute-bound, and the
        // general step formula gives 20.2 ms (int8) and 26.4 ms (int4), so 0.83 and
        // 1.28 QPS per chip rather than the book's 0.9 and 1.8.
        let p = Precision::stored(dtype);
        let b = max_batch(&llama_70b(), p, &slice(chips), 8192.0).unwrap() as f64;
        assert_eq!(b, 138.0);
        let st = step(p, b, chips);
        let bound = if dtype == Dtype::Bf16 {
            Verdict::MemoryBound
        } else {
            Verdict::ComputeBound
        };
        assert_eq!(st.mlp_verdict, bound, "{id}");
        let q = qps_per_chip(b, st.total, 512.0, chips).unwrap();
        // The step is at least the time to read the weights and caches and at
        // least the MLP's FLOPs at peak, and at most their sum; the QPS follow
        // from it by the book's formula, and are below the book's for int8/int4.
        let w = llama_70b().workload(p, b, 8192.0).unwrap();
        let read =
            (llama_70b().param_bytes(dtype) + w.kv_bytes()).0 / (chips as f64 * v5e().hbm_bw().0);
        let math = 2.0 * 70e9 * b / (chips as f64 * v5e().peak(Dtype::Bf16).unwrap().0);
        let t = st.total.0;
        assert!(
            t >= read.max(math) * (1.0 - 1e-9) && t <= (read + math) * (1.0 + 1e-9),
            "{id}: {t}"
        );
        assert_rel(id, q, b / (t * 512.0 * chips as f64), 1e-12);
        if dtype != Dtype::Bf16 {
            assert!(q < problem(id).numeric_answer().unwrap(), "{id}: {q}");
        }
        let ex = ridgeline_core::exercises::exercise(id).unwrap();
        assert_rel(id, ex.expected_value().unwrap(), q, 1e-9);
    }
}

#[test]
pub(crate) fn q9_model_parallelism_at_small_batch() {
    let p = problem("ch8-q9a");
    // The book's rounded β = 8; the registry's 9.1 gives 49 ways.
    assert_book(
        "ch8-q9a",
        decode_tp_limit(p.input("F"), p.input("B"), 8.0).unwrap(),
    );
    let beta = hbm_ici_ratio(v5e()).unwrap();
    assert_rel(
        "Y with the registry's β",
        decode_tp_limit(28672.0, 64.0, beta).unwrap(),
        49.2,
        0.01,
    );
    let m = llama_70b().config;
    let a = tp_matmul(
        v5e(),
        Precision::BF16,
        64.0,
        m.d_model as f64,
        m.d_ff as f64,
        32,
    )
    .unwrap();
    assert_book("ch8-q9b", a.t_comms(Link::Ici).unwrap().0 * US);
    assert_book("ch8-q9c", a.t_comms(Link::Hbm).unwrap().0 * US);
    // DISAGREES: 2·64·8192·28672 / (32·1.97e14) = 4.77 µs, not the book's 4 µs.
    // The conclusion (HBM-bound) stands.
    assert_rel("ch8-q9d", a.t_math.0 * US, 4.769, 0.001);
    assert_eq!(a.verdict, Verdict::MemoryBound);
    // Latency keeps falling with chips while the matmuls stay HBM-bound.
    let scaling = latency_vs_chips(
        &llama_70b(),
        Precision::BF16,
        v5e(),
        64.0,
        2048.0,
        &[16, 32, 64],
    )
    .unwrap();
    assert!(scaling[1].step.total < scaling[0].step.total);
    assert!(!scaling[1].ici_bound);
    assert!(scaling[2].ici_bound); // 64 > F / (8.2e11/9e10 · 64) ≈ 49
}

#[test]
pub(crate) fn q10_prefill_time() {
    let p = problem("ch8-q10");
    let s = slice(p.input("chips") as u64);
    let t = prefill_time(&llama_70b(), p.input("T"), &s, Dtype::Bf16, p.input("MFU")).unwrap();
    assert_book("ch8-q10", t.0);
    // The exact 70.55e9 parameters give 0.92 s, also within the tolerance.
    let exact = ServingModel::preset("llama3-70b").unwrap();
    let t = prefill_time(&exact, 8192.0, &s, Dtype::Bf16, 0.4).unwrap();
    assert_book("ch8-q10", t.0);
}

#[test]
pub(crate) fn q11_q12_continuous_batching_and_disaggregation() {
    let p = problem("ch8-q11b");
    assert_book(
        "ch8-q11a",
        finished_per_step(p.input("B"), p.input("G")).unwrap(),
    );
    assert_book(
        "ch8-q11b",
        tokens_evicted_per_step(p.input("B"), p.input("P"), p.input("G")).unwrap(),
    );
    let q = problem("ch8-q12");
    let r = prefill_decode_ratio(
        Seconds(q.input("prefill_s")),
        Seconds(q.input("step_s")),
        q.input("batch"),
        q.input("decode_len"),
    )
    .unwrap();
    assert_book("ch8-q12", r);
    // From the model: 0.91 s prefill on 16 chips, 19.5 ms steps at batch 43 (the book
    // "calls that 32"): still about 3 prefill servers per decode server.
    let prefill = prefill_time(&llama_70b(), 8192.0, &slice(16), Dtype::Bf16, 0.4).unwrap();
    let decode = step(Precision::BF16, 43.0, 16);
    let r = prefill_decode_ratio(prefill, decode.total, 32.0, 512.0).unwrap();
    assert_rel("prefill:decode from the model", r, 3.0, 0.03);
}

#[test]
pub(crate) fn ex2_pareto_curve() {
    // v5e 4x4, 16-way TP, int8 weights (and KV), bf16 FLOPs, exact parameter count.
    let m = ServingModel::preset("llama3-70b").unwrap();
    let p = Precision::stored(Dtype::Int8);
    let s = slice(16);
    let curve = pareto_series(&m, p, &s, 8192.0, 50).unwrap();
    assert_eq!(curve[0].batch, 1.0);
    assert_book("ch8-ex2", curve[0].step.total.0 * MS);
    assert!(curve.iter().all(|pt| pt.fits));
    // At 2k context throughput plateaus near 1 token/ms/chip past the B = 120 roofline.
    let short = pareto_series(&m, p, &s, 2048.0, 50).unwrap();
    let last = short.last().unwrap();
    assert!(last.batch > 120.0);
    assert_eq!(last.step.mlp_verdict, Verdict::ComputeBound);
    assert_rel("2k plateau", last.tokens_per_sec_per_chip / 1e3, 0.89, 0.02);
    // At long context, KV loading outweighs FLOPs once the batch is large.
    let long = pareto_series(&m, p, &s, 8192.0, 50).unwrap();
    let last = long.last().unwrap();
    assert!(last.step.kv_load > last.step.flops);
}

/// No book answer: the computed 8.1e11 FLOPs per token and 4.1 ms / N.
#[test]
pub(crate) fn wp1_llama_405b_flops_per_token() {
    let m = ServingModel::preset("llama3-405b").unwrap();
    let f = m.forward_flops(1.0).unwrap();
    assert_rel("ch8-wp1a", f.0, 8.1e11, 0.02);
    for n in [1u64, 16, 256] {
        let t = prefill_time(&m, 1.0, &slice(n), Dtype::Bf16, 1.0).unwrap();
        assert_rel("ch8-wp1a bound", t.0, 4.1e-3 / n as f64, 0.02);
    }
}

/// Grades `typed` with exercise `id` as a reader would.
fn graded(id: &str, typed: &str) -> Grade {
    exercise(id).unwrap().grade(typed)
}

/// Worked problem 1, bandwidth-bound (no book answer): reading the 405B's
/// weights once per token takes 0.99 s / N in bf16 and half that in int8.
#[test]
pub(crate) fn wp1_llama_405b_bandwidth_bound() {
    let m = ServingModel::preset("llama3-405b").unwrap();
    for (id, d) in [("ch8-wp1b", Dtype::Bf16), ("ch8-wp1c", Dtype::Int8)] {
        let expected = problem(id).computed_answer["seconds"].as_f64().unwrap();
        for n in [1u64, 16, 256] {
            let p = Precision::stored(d);
            let w = m.workload(p, 1.0, 1.0).unwrap();
            let t = decode_step(&w, &slice(n), p.compute).unwrap().param_load;
            assert_rel(id, t.0, expected / n as f64, 1e-4);
        }
    }
    // As a reader types it: the answer, a rounding, and the format slip.
    assert!(graded("ch8-wp1b", "0.99 s").is_correct());
    assert!(graded("ch8-wp1b", "990 ms").is_correct());
    assert_eq!(graded("ch8-wp1b", "0.49 s").label(), "incorrect");
    assert!(graded("ch8-wp1c", "0.49 s").is_correct());
    assert!(graded("ch8-wp1c", "495 ms").is_correct());
    assert_eq!(graded("ch8-wp1c", "0.99 s").label(), "incorrect");
}

/// Worked problem 2 (no book answer, no context length: ours is 8192 tokens):
/// LLaMA 3-8B at batch 240 in int8 holds 8 GB of weights, 129 GB of caches and a
/// negligible 64 MB of activations, so a 4x4; at 4096 tokens a 4x2.
#[test]
pub(crate) fn wp2_llama_8b_at_batch_240() {
    let m = ServingModel::preset("llama3-8b").unwrap();
    let p = Precision::stored(Dtype::Int8);
    let w = m.workload(p, 240.0, 8192.0).unwrap();
    assert_eq!(m.kv_per_token(Dtype::Int8).0, 65_536.0);
    let answer = |id: &str, key: &str| problem(id).computed_answer[key].as_f64().unwrap();
    assert_rel(
        "ch8-wp2a",
        w.param_bytes.0 / GB,
        answer("ch8-wp2a", "gb"),
        1e-6,
    );
    assert_rel(
        "ch8-wp2b",
        w.kv_bytes().0 / GB,
        answer("ch8-wp2b", "gb"),
        1e-6,
    );
    let act = decode_activation_bytes(&m.config, 240.0, Dtype::Bf16).unwrap();
    assert_rel("ch8-wp2c", act.0 / 1e6, answer("ch8-wp2c", "mb"), 1e-6);
    let total = w.memory() + act;
    assert_eq!(min_chips(total, v5e()).unwrap(), 9);
    assert_eq!(min_slice_chips(total, v5e()).unwrap(), 16);
    assert_eq!(answer("ch8-wp2d", "chips"), 16.0);
    checked("ch8-wp2d");
    let short = m.workload(p, 240.0, 4096.0).unwrap();
    let act = decode_activation_bytes(&m.config, 240.0, Dtype::Bf16).unwrap();
    assert_eq!(min_slice_chips(short.memory() + act, v5e()).unwrap(), 8);
    // As a reader types it.
    assert!(graded("ch8-wp2a", "8 GB").is_correct());
    assert!(graded("ch8-wp2a", "8.03e9 bytes").is_correct());
    assert_eq!(graded("ch8-wp2a", "16 GB").label(), "incorrect");
    assert!(graded("ch8-wp2b", "129 GB").is_correct());
    assert!(graded("ch8-wp2b", "0.13 TB").is_correct());
    assert_eq!(graded("ch8-wp2b", "64.4 GB").label(), "incorrect");
    // 240 × 2^29 bytes is exactly 120 GiB; 120 GB is the binary-prefix slip.
    assert!(graded("ch8-wp2b", "120 GiB").is_correct());
    assert_eq!(graded("ch8-wp2b", "120 GB").label(), "incorrect");
    assert!(graded("ch8-wp2c", "64 MB").is_correct());
    assert!(graded("ch8-wp2c", "0.0635 GB").is_correct());
    assert_eq!(graded("ch8-wp2c", "15.7 MB").label(), "incorrect");
    assert!(graded("ch8-wp2d", "16").is_correct());
    assert!(graded("ch8-wp2d", "16 chips").is_correct());
    for wrong in ["9", "8", "32"] {
        assert_eq!(graded("ch8-wp2d", wrong).label(), "incorrect", "{wrong}");
    }
}

/// Worked problem 3 (no book answer): LLaMA 3-405B in int8 fits on 32 v5e but
/// reads its weights there in 15.5 ms, so 15 ms needs 64; there the largest batch
/// within the limit serves about 149 tokens/s per chip at 8k contexts (185 at 4k,
/// where a batch near the critical 120 already takes 10 ms); a whole pod could
/// step in 1.9 ms.
#[test]
pub(crate) fn wp3_llama_405b_within_15_ms() {
    let m = ServingModel::preset("llama3-405b").unwrap();
    let p = Precision::stored(Dtype::Int8);
    let limit = Seconds(15e-3);
    let weights = m.param_bytes(Dtype::Int8);
    assert_eq!(min_slice_chips(weights, v5e()).unwrap(), 32);
    let read = |n: u64| {
        let w = m.workload(p, 1.0, 1.0).unwrap();
        decode_step(&w, &slice(n), p.compute).unwrap().param_load
    };
    assert_rel("32 chips read the weights in", read(32).0 * MS, 15.47, 1e-3);
    let chips = min_slice_within(&m, p, v5e(), limit).unwrap();
    assert_eq!(
        chips as f64,
        problem("ch8-wp3a").computed_answer["chips"]
            .as_f64()
            .unwrap()
    );
    checked("ch8-wp3a");
    let best = largest_batch_within(&m, p, &slice(chips), 8192.0, limit)
        .unwrap()
        .unwrap();
    assert_eq!(best.batch, 143.0);
    assert_eq!(best.step.mlp_verdict, Verdict::ComputeBound);
    let tput = problem("ch8-wp3b").computed_answer["tokens_per_sec_per_chip"]
        .as_f64()
        .unwrap();
    assert_rel("ch8-wp3b", best.tokens_per_sec_per_chip, tput, 1e-3);
    // Past the critical batch the throughput per chip is level: batch 120 (the
    // critical batch with int8 weights) serves the same at a shorter step.
    let at_crit = step_of(&m, p, 120.0, 8192.0, chips);
    assert_rel(
        "batch 120 at 8k",
        at_crit.tokens_per_sec_per_chip(),
        tput,
        0.01,
    );
    assert_rel("batch 120 at 8k, step", at_crit.total.0 * MS, 12.6, 0.01);
    let short = step_of(&m, p, 120.0, 4096.0, chips);
    assert_rel(
        "batch 120 at 4k",
        short.tokens_per_sec_per_chip(),
        185.0,
        0.01,
    );
    assert_rel("batch 120 at 4k, step", short.total.0 * MS, 10.1, 0.01);
    let pod = read(256);
    assert_rel(
        "ch8-wp3c",
        pod.0 * MS,
        problem("ch8-wp3c").computed_answer["ms"].as_f64().unwrap(),
        1e-4,
    );
    // As a reader types it.
    assert!(graded("ch8-wp3a", "64").is_correct());
    assert_eq!(graded("ch8-wp3a", "32").label(), "incorrect");
    assert_eq!(graded("ch8-wp3a", "26").label(), "incorrect");
    assert!(graded("ch8-wp3b", "149").is_correct());
    assert!(graded("ch8-wp3b", "150 tokens/s/chip").is_correct());
    // Forgetting the caches gives about 243 a chip.
    assert_eq!(graded("ch8-wp3b", "243").label(), "incorrect");
    assert!(graded("ch8-wp3c", "1.9 ms").is_correct());
    assert!(graded("ch8-wp3c", "1.93e-3 s").is_correct());
    assert_eq!(graded("ch8-wp3c", "3.9 ms").label(), "incorrect");
}

fn step_of(m: &ServingModel, p: Precision, batch: f64, seq: f64, chips: u64) -> StepTime {
    let w = m.workload(p, batch, seq).unwrap();
    decode_step(&w, &slice(chips), p.compute).unwrap()
}
