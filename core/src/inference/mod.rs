//! Transformer inference on a roofline (Parts 7 and 8): prefill and decode,
//! KV caches, the latency–throughput trade-off, how many chips a model needs,
//! tensor-parallel serving over ICI, and disaggregated prefill/decode sizing.
//!
//! Decoding one token per sequence for a batch of `B` sequences does two kinds
//! of work. The linear layers (MLP and attention projections) load every weight
//! once per step and do `2·B·P` FLOPs, so they are compute-bound only once `B`
//! exceeds the critical batch `B_crit` (240 for bf16 on a TPU v5e, 120 with int8
//! weights and bf16 FLOPs). Attention reads every sequence's whole KV cache
//! each step and does about one FLOP per byte (about `G = N/K` with grouped
//! queries), so it is memory-bound at any batch. The book's general step time is
//!
//! `T_step = B·KV/W + max(2·B·P_count/C, P_bytes/W)`
//!
//! with `W` and `C` the HBM bandwidth and peak FLOPs/s of the chips serving one
//! copy of the model ([`decode_step`]).
//!
//! ```
//! use ridgeline_core::dtype::Dtype;
//! use ridgeline_core::hardware::chip;
//! use ridgeline_core::inference::{decode_step, Precision, ServingModel, ServingSlice};
//! use ridgeline_core::roofline::Verdict;
//!
//! // LLaMA 3-70B with int8 weights and KV caches, bf16 FLOPs, on a TPU v5e 4x4.
//! let model = ServingModel::preset("llama3-70b").unwrap();
//! let slice = ServingSlice::new(chip("v5e").unwrap(), 16).unwrap();
//! let p = Precision::new(Dtype::Int8, Dtype::Int8, Dtype::Bf16);
//! let small = decode_step(&model.workload(p, 8.0, 2048.0).unwrap(), &slice, p.compute).unwrap();
//! assert_eq!(small.mlp_verdict, Verdict::MemoryBound);
//! assert!((small.total.0 * 1e3 - 5.5).abs() < 0.2); // about 5.5 ms per token
//! let big = decode_step(&model.workload(p, 512.0, 2048.0).unwrap(), &slice, p.compute).unwrap();
//! assert_eq!(big.mlp_verdict, Verdict::ComputeBound);
//! assert_eq!(big.attention_verdict, Verdict::MemoryBound);
//! ```
//!
//! ## Files
//!
//! | file | what |
//! |---|---|
//! | `mod.rs` | this index, the limits on reader input ([`MAX_CHIPS`], [`MAX_BATCH`]) and the property tests that cross files |
//! | `error.rs` | [`InferenceError`] and the checks every input passes |
//! | `precision.rs` | [`Precision`]: the formats weights and KV caches are stored in, and the matmuls run in |
//! | `critical_batch.rs` | the critical batch `B_crit` and the arithmetic intensity of attention |
//! | `kv_cache.rs` | the KV cache per sequence for MHA, GQA, MQA and MLA, and the activations beside it |
//! | `served_model.rs` | [`ServingModel`] (shape and parameter counts) and the [`DecodeWorkload`] it puts on a slice |
//! | `slice.rs` | [`ServingSlice`]: the chips serving a model, as tensor-parallel replicas |
//! | `step.rs` | the decode step time ([`decode_step`]), its minimum and the throughput it allows |
//! | `components.rs` | the roofline of a layer's linear layers and attention in prefill and decode |
//! | `memory.rs` | what a slice holds and the largest batch that fits |
//! | `pareto.rs` | latency against throughput: the batch sweep and its Pareto front |
//! | `tensor_parallel.rs` | tensor-parallel serving over ICI: its limits, latency-bound collectives, weight-stationary layouts |
//! | `topology.rs` | chips a model needs, the smallest topology that holds it, cost per query and per FLOP |
//! | `prefill_decode.rs` | prefill time, the prefill-to-decode ratio, evictions and speculative tokens |
//! | `serving.rs` | what a reader of a serving system measures (TTFT, ITL, throughput, cost), speculative sampling, Part 8's serving tables |
//! | `serving_engine.rs` | a serving engine as a discrete-event simulation: static and continuous batching |
//! | `kv_sharding.rs` | sharding the KV cache over heads and batch, step by step |
//! | `book.rs` | two papers' measurements Part 7 shows (ESTI's PaLM latency–cost frontiers, speculative sampling of Chinchilla), read off the figures, and the arithmetic that explains them |

pub mod book;
pub mod kv_sharding;
pub mod serving;
pub mod serving_engine;

/// The most chips a serving slice may have (far beyond any real deployment).
pub const MAX_CHIPS: u64 = 1 << 20;
/// The largest batch a reader may enter.
pub const MAX_BATCH: f64 = 1e7;

mod components;
mod critical_batch;
mod error;
mod kv_cache;
mod memory;
mod pareto;
mod precision;
mod prefill_decode;
mod served_model;
mod slice;
mod step;
mod tensor_parallel;
mod topology;

pub use components::*;
pub use critical_batch::*;
pub use error::*;
pub use kv_cache::*;
pub use memory::*;
pub use pareto::*;
pub use precision::*;
pub use prefill_decode::*;
pub use served_model::*;
pub use slice::*;
pub use step::*;
pub use tensor_parallel::*;
pub use topology::*;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::Dtype;
    use crate::hardware::{chip, Chip};
    use crate::roofline::Verdict;
    use crate::units::{Bytes, BytesPerSec, Seconds};
    use proptest::prelude::*;

    fn v5e() -> &'static Chip {
        chip("v5e").unwrap()
    }

    #[test]
    fn impossible_configurations_are_errors() {
        let m = ServingModel::preset("llama3-70b").unwrap();
        let one = ServingSlice::new(v5e(), 1).unwrap();
        let e = max_batch(&m, Precision::BF16, &one, 1024.0).unwrap_err();
        assert!(e.to_string().contains("weights alone"), "{e}");
        assert_eq!(
            pareto_series(&m, Precision::BF16, &one, 1024.0, 10).unwrap_err().to_string(),
            "the weights alone take 141.1 GB but 1 chip hold only 16.0 GB of HBM (GB = 10^9 bytes); use more chips or a smaller weight format",
        );
        assert_eq!(
            m.workload(Precision::BF16, 0.0, 10.0)
                .unwrap_err()
                .to_string(),
            "batch must be positive, got 0"
        );
        assert_eq!(
            m.workload(Precision::BF16, f64::NAN, 10.0)
                .unwrap_err()
                .to_string(),
            "batch must be a finite number"
        );
        assert_eq!(
            m.workload(Precision::BF16, 1.0, -3.0)
                .unwrap_err()
                .to_string(),
            "sequence length must be positive, got -3"
        );
        assert_eq!(
            ServingSlice::new(v5e(), 0).unwrap_err().to_string(),
            "a slice needs between 1 and 1048576 chips, not 0"
        );
        assert_eq!(
            ServingSlice::new(v5e(), 16)
                .unwrap()
                .with_tp(3)
                .unwrap_err()
                .to_string(),
            "the tensor-parallel degree (3) must be at least 1 and divide the 16 chips"
        );
        assert_eq!(
            flops_per_dollar(chip("b200").unwrap(), Dtype::Bf16)
                .unwrap_err()
                .to_string(),
            "the book quotes no price for b200"
        );
        assert_eq!(
            prefill_time(&m, 10.0, &one, Dtype::Bf16, 1.5)
                .unwrap_err()
                .to_string(),
            "MFU must be a number in (0, 1], not 1.5"
        );
        let e = speculative_tokens_per_step(f64::NAN, 3)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("acceptance rate ") && e.ends_with("NaN"),
            "{e}"
        );
    }

    /// A rejection explains itself; an answer comes back for the caller to check.
    fn answer<T>(what: &str, r: Result<T, InferenceError>) -> Option<T> {
        match r {
            Ok(v) => Some(v),
            Err(e) => {
                assert!(
                    !e.to_string().trim().is_empty(),
                    "{what}: {e:?} has no message"
                );
                None
            }
        }
    }

    /// `a` and `b` agree to a relative 1e-9.
    fn close(a: f64, b: f64) -> bool {
        a == b || (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(f64::MIN_POSITIVE)
    }

    /// A reader value: anything at all, or a plausible one.
    fn value(plausible: std::ops::Range<f64>) -> impl Strategy<Value = f64> {
        prop_oneof![prop::num::f64::ANY, plausible]
    }

    proptest! {
        #[test]
        fn random_inputs_give_consistent_answers_or_messages(
            batch in value(1.0..512.0),
            seq in value(1.0..8192.0),
            chips in 0u64..5000,
            tp in 0u64..64,
            mfu in value(0.01..1.0),
            model_ix in 0usize..8,
            chip_ix in 0usize..11,
            d in 0usize..6,
        ) {
            let ids = ["llama2-13b", "llama3-8b", "llama3-70b", "llama3-405b",
                       "gemma2-27b", "mixtral-8x7b", "gpt-oss-120b", "deepseek-v3"];
            let c = &crate::hardware::CHIPS[chip_ix % crate::hardware::CHIPS.len()];
            let dt = Dtype::ALL[d];
            let p = Precision::new(dt, dt, Dtype::ALL[(d + 1) % 6]);
            let m = ServingModel::preset(ids[model_ix]).unwrap();
            let valid = |x: f64| x.is_finite() && x > 0.0;
            let seq_fits = valid(seq) && seq <= m.config.max_seq as f64;
            let batch_ok = valid(batch) && batch <= MAX_BATCH;

            let kv = answer("kv_cache", kv_cache(&m.config, seq, batch, dt));
            prop_assert_eq!(kv.is_some(), seq_fits && batch_ok);
            if let Some(kv) = kv {
                prop_assert!(valid(kv.per_token.0));
                prop_assert!(close(kv.per_sequence.0, kv.per_token.0 * seq));
                prop_assert!(close(kv.total.0, kv.per_token.0 * seq * batch));
                prop_assert!(kv.reduction() >= 1.0 - 1e-12);
            }

            // B_crit is the ridge times the bytes of a weight over two: per byte of
            // weight it is the same for every weight format.
            if let (Some(a), Some(b)) = (
                answer("critical_batch", critical_batch(c, dt, p.compute)),
                answer("critical_batch", critical_batch(c, Dtype::Bf16, p.compute)),
            ) {
                prop_assert!(valid(a));
                prop_assert!(close(a / dt.bytes(), b / Dtype::Bf16.bytes()));
            }

            for phase in [Phase::Decode, Phase::Prefill] {
                let rooflines = answer("rooflines", component_rooflines(&m, p, c, phase, batch, seq));
                if !(batch_ok && seq_fits) {
                    prop_assert!(rooflines.is_none(), "{:?} accepted {} x {}", phase, batch, seq);
                }
                for r in rooflines.into_iter().flatten() {
                    // Sub-token batches and sequences are accepted, and their FLOPs
                    // and bytes may underflow to zero; the rest must be consistent.
                    prop_assert!(r.flops.0 >= 0.0 && r.bytes.0 >= 0.0);
                    prop_assert!(r.flops.0.is_finite() && r.bytes.0.is_finite());
                    if !(r.flops.0.is_normal() && r.bytes.0.is_normal()) {
                        continue;
                    }
                    prop_assert!(close(r.intensity.0, r.flops.0 / r.bytes.0));
                    // Well clear of the ridge, the verdict follows the intensity.
                    if r.intensity.0 > r.ridge.0 * 1.001 {
                        prop_assert_eq!(r.verdict(), Verdict::ComputeBound);
                    } else if r.intensity.0 < r.ridge.0 * 0.999 {
                        prop_assert_eq!(r.verdict(), Verdict::MemoryBound);
                    }
                }
            }

            let slice = answer("slice", ServingSlice::new(c, chips));
            prop_assert_eq!(slice.is_some(), chips > 0);
            if let Some(s) = slice {
                let s = s.with_tp(tp).unwrap_or(s);
                prop_assert!(s.tp >= 1 && chips % s.tp == 0);
                if let Some(b) = answer("max_batch", max_batch(&m, p, &s, seq)) {
                    // b sequences fit beside the weights and one more would not.
                    let kv = m.kv_per_sequence(seq, p.kv).unwrap().0;
                    let (cap, w) = (s.hbm_capacity().0, m.param_bytes(p.weights).0);
                    prop_assert!(w + b as f64 * kv <= cap * (1.0 + 1e-12));
                    if (b as f64) < MAX_BATCH {
                        prop_assert!(w + (b + 1) as f64 * kv > cap * (1.0 - 1e-12));
                    }
                }
                if let Some(pts) = answer("pareto", pareto_series(&m, p, &s, seq, 16)) {
                    prop_assert!(!pts.is_empty());
                    prop_assert_eq!(pts[0].batch, 1.0);
                    for w in pts.windows(2) {
                        prop_assert!(w[1].batch > w[0].batch);
                        prop_assert!(w[1].step.total >= w[0].step.total);
                        prop_assert!(w[1].fits);
                    }
                }
                if let Some(w) = answer("workload", m.workload(p, batch, seq)) {
                    let floor = min_step_time(&w, &s);
                    prop_assert!(valid(floor.0));
                    if let Some(t) = answer("decode_step", decode_step(&w, &s, p.compute)) {
                        prop_assert!(close(t.total.0, t.kv_load.0 + t.mlp.0));
                        prop_assert_eq!(t.mlp.0, t.flops.0.max(t.param_load.0));
                        let bound = if t.flops >= t.param_load {
                            Verdict::ComputeBound
                        } else {
                            Verdict::MemoryBound
                        };
                        prop_assert_eq!(t.mlp_verdict, bound);
                        prop_assert!(floor.0 <= t.total.0 * (1.0 + 1e-12));
                    }
                }
                if let Some(t) = answer("prefill_time", prefill_time(&m, seq, &s, p.compute, mfu)) {
                    prop_assert!(valid(t.0));
                    prop_assert!(mfu > 0.0 && mfu <= 1.0);
                }
            }
            let degrees = [1, 2, chips, tp];
            if let Some(rows) = answer("latency", latency_vs_chips(&m, p, c, batch, seq, &degrees)) {
                prop_assert!(rows.len() <= degrees.len());
                for r in &rows {
                    prop_assert!(degrees.contains(&r.tp) && valid(r.step.total.0));
                }
            }
            for r in answer("topology", min_topology_table(&m, c, seq, &Dtype::ALL)).into_iter().flatten() {
                prop_assert!(r.slice_chips.is_power_of_two());
                prop_assert!(r.slice_chips as f64 >= r.min_chips * (1.0 - 1e-12));
                prop_assert!(r.free_hbm.0 >= 0.0);
            }
            if let Some(a) = answer("tp_matmul", tp_matmul(c, p, batch, seq, mfu, tp)) {
                prop_assert!(a.lower <= a.upper && a.t_math.0 >= 0.0);
                prop_assert!(a.lower >= a.t_math);
            }
            let limit = answer("decode_tp_limit", decode_tp_limit(seq, batch, mfu));
            // Valid inputs give the formula unless it overflows or underflows.
            let formula = seq / (batch * mfu);
            prop_assert_eq!(limit.is_some(), valid(seq) && batch_ok && valid(mfu) && valid(formula));
            if let Some(y) = limit {
                prop_assert!(close(y, formula));
            }
            if let Some(y) = answer("prefill_tp_limit", prefill_tp_limit(c, p.compute, seq, mfu)) {
                prop_assert!(y >= 0.0 && !y.is_nan());
            }
            let ws = weight_stationary_2d(batch, seq, mfu, chips as f64, dt, BytesPerSec(mfu));
            // Any answer is a real split of the chips with a finite positive time.
            let moderate = [batch, seq, mfu].iter().all(|x| (1e-100..1e100).contains(&x.abs()));
            if let Some(ws) = answer("weight_stationary_2d", ws) {
                prop_assert!(close(ws.x * ws.yz, chips as f64));
                prop_assert!(ws.x >= 1.0 && ws.yz >= 1.0 - 1e-12);
                prop_assert!(valid(ws.t_comms.0));
            }
            let qps = answer("qps", qps_per_chip(batch, Seconds(mfu), seq, chips));
            prop_assert_eq!(qps.is_some(), batch_ok && valid(mfu) && valid(seq) && (1..=MAX_CHIPS).contains(&chips));
            if let Some(q) = qps {
                prop_assert!(close(q, batch / (mfu * seq * chips as f64)));
            }
            if let Some(e) = answer("evicted", tokens_evicted_per_step(batch, seq, mfu)) {
                // At least the whole batch is evicted (where the product cannot underflow).
                prop_assert!(e >= 0.0 && !e.is_nan());
                if moderate {
                    prop_assert!(e >= batch * (1.0 - 1e-12));
                }
            }
            let k = chips as u32;
            if let Some(t) = answer("speculative", speculative_tokens_per_step(mfu, k)) {
                prop_assert!((0.0..=1.0).contains(&mfu));
                prop_assert!(t >= 1.0 - 1e-12 && t <= k.min(10_000) as f64 + 1.0 + 1e-9);
            }
            if let Some(n) = answer("min_chips", min_chips(Bytes(batch), c)) {
                let hbm = c.hbm_capacity.value.0;
                prop_assert!(n as f64 * hbm >= batch && (n as f64 - 1.0) * hbm < batch);
            }
            if let Some(b) = answer("largest_batch", largest_batch(Bytes(batch), Bytes(seq), Bytes(mfu), chips)) {
                prop_assert!(seq + b as f64 * mfu <= batch * (1.0 + 1e-12));
                if (b as f64) < MAX_BATCH {
                    prop_assert!(seq + (b + 1) as f64 * mfu > batch * (1.0 - 1e-12));
                }
            }
            if let Some(f) = answer("flops_per_dollar", flops_per_dollar(c, dt)) {
                prop_assert!(valid(f));
            }
        }
    }
}

#[cfg(test)]
mod degenerate_tests {
    use super::*;
    use crate::dtype::Dtype;
    use crate::hardware::{chip, Chip};
    use crate::units::BytesPerSec;
    use proptest::prelude::*;

    fn v5e() -> &'static Chip {
        chip("v5e").unwrap()
    }

    /// Either a finite positive answer or an error that says something.
    fn finite_or_message(what: &str, r: Result<f64, InferenceError>) -> Result<(), String> {
        match r {
            Ok(v) if v.is_finite() && v > 0.0 => Ok(()),
            Ok(v) => Err(format!("{what} answered Ok({v})")),
            Err(e) if e.to_string().trim().is_empty() => Err(format!("{what}: {e:?} is silent")),
            Err(_) => Ok(()),
        }
    }

    #[test]
    fn overflowing_inputs_are_errors_not_infinities() {
        let tiny = BytesPerSec(1e-320);
        let e = weight_stationary_2d(16.0, 8192.0, 32768.0, 64.0, Dtype::Bf16, tiny).unwrap_err();
        assert!(matches!(e, InferenceError::OutOfRange { .. }), "{e:?}");
        assert!(e.to_string().contains("communication time"));
        let e = decode_tp_limit(1e300, 1.0, 1e-300).unwrap_err();
        assert!(matches!(e, InferenceError::OutOfRange { .. }), "{e:?}");
        assert_eq!(
            decode_tp_limit(1e-300, 1e6, 1e300).unwrap_err().to_string(),
            "the tensor-parallel limit F/(B·β) comes out as 0, not a finite positive number: the inputs are too extreme to compute with",
        );
        assert_eq!(
            decode_tp_limit(0.0, 8.0, 9.0).unwrap_err().to_string(),
            "d_ff (F) must be positive, got 0"
        );
        assert_eq!(decode_tp_limit(28672.0, 64.0, 8.0).unwrap(), 56.0);
        let m = ServingModel::preset("llama3-70b").unwrap();
        let s = ServingSlice::new(v5e(), 16).unwrap();
        let e = prefill_time(&m, 8192.0, &s, Dtype::Bf16, 1e-320).unwrap_err();
        assert!(e.to_string().contains("prefill time"), "{e}");
        assert_eq!(
            prefill_time(&m, 0.0, &s, Dtype::Bf16, 0.4)
                .unwrap_err()
                .to_string(),
            "tokens must be positive, got 0"
        );
        // The book's 0.91 s for 8k tokens of LLaMA 3-70B on 16 v5e at 40 % MFU.
        let t = prefill_time(&m, 8192.0, &s, Dtype::Bf16, 0.4).unwrap();
        assert!((t.0 - 0.91).abs() < 0.01, "{t:?}");
    }

    proptest! {
        #[test]
        fn every_input_gives_a_finite_positive_answer_or_a_message(
            a in prop::num::f64::ANY,
            b in prop::num::f64::ANY,
            c in prop::num::f64::ANY,
            n in prop_oneof![prop::num::f64::ANY, 0.0..4096.0],
            w in prop_oneof![prop::num::f64::ANY, 1e9..1e12],
            tp in 0u64..300,
            model_ix in 0usize..4,
        ) {
            let ws = weight_stationary_2d(a, b, c, n, Dtype::Bf16, BytesPerSec(w));
            let r = finite_or_message("weight_stationary_2d", ws.clone().map(|x| x.t_comms.0));
            prop_assert!(r.is_ok(), "{:?}", r);
            if let Ok(ws) = ws {
                prop_assert!(ws.x.is_finite() && ws.x >= 1.0 && ws.x <= n);
            }
            let r = finite_or_message("decode_tp_limit", decode_tp_limit(a, b, c));
            prop_assert!(r.is_ok(), "{:?}", r);
            let ids = ["llama2-13b", "llama3-8b", "llama3-70b", "deepseek-v3"];
            let m = ServingModel::preset(ids[model_ix]).unwrap();
            if let Ok(s) = ServingSlice::new(v5e(), tp) {
                let r = finite_or_message("prefill_time", prefill_time(&m, a, &s, Dtype::Bf16, c).map(|t| t.0));
                prop_assert!(r.is_ok(), "{:?}", r);
            }
        }
    }
}
