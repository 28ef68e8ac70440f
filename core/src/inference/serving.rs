//! Part 7's serving quantities in depth, and Part 8's serving arithmetic: what
//! a reader of an inference system measures (time to first token, inter-token
//! latency, throughput, cost), the book's theoretical tables for LLaMA 2-13B,
//! the tricks that shrink the KV cache and what each buys, and the four
//! appendices (batch scaling, 2D weight-stationary sharding, latency-bound
//! collectives, speculative sampling).
//!
//! Everything is computed from the registry through [`crate::inference`]:
//! the step time of a memory-bound decode is
//! `(B·KV + P_bytes) / W_hbm` ([`crate::inference::min_step_time`]), and a
//! table row is that formula at one batch size.
//!
//! ```
//! use ridgeline_core::inference::serving::{speculative, SpeculativeParams};
//!
//! // Four drafted tokens, 80 % accepted, a drafter costing 5 % of the target.
//! let s = speculative(&SpeculativeParams { draft: 4, accept: 0.8, draft_cost: 0.05 }).unwrap();
//! assert!((s.tokens_per_step - 3.3616).abs() < 1e-4);
//! assert!(s.speedup > 2.7 && s.speedup < 2.9);
//! ```

use crate::dtype::Dtype;
use crate::hardware::{price_per_hour, Chip};
use crate::inference::{
    decode_step, min_step_time, prefill_time, DecodeWorkload, InferenceError, Precision,
    ServingModel, ServingSlice,
};
use crate::model::config::positive;
use crate::rng::Rng;
use crate::units::{Bytes, BytesPerSec, Seconds};

// ---------------------------------------------------------------- what we optimise

/// The four numbers Part 7 says a serving system is judged by, for one
/// configuration: a prompt of `prompt` tokens, `output` generated tokens at
/// decode batch `batch`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ServingMetrics {
    /// Time to first token: the prefill of the prompt (no queueing).
    pub ttft: Seconds,
    /// Inter-token latency: one decode step at the batch.
    pub itl: Seconds,
    /// Time for the whole answer: `TTFT + (output − 1)·ITL`.
    pub request: Seconds,
    /// Decode tokens per second per chip.
    pub tokens_per_sec_per_chip: f64,
    /// US dollars per million generated tokens at the book's chip-hour price
    /// (`None` for chips the book quotes no price for).
    pub usd_per_million: Option<f64>,
}

/// The metrics of serving `model` on `slice` at decode batch `batch`, with
/// prompts of `prompt` and answers of `output` tokens, prefill at `mfu`.
pub fn serving_metrics(
    model: &ServingModel,
    precision: Precision,
    slice: &ServingSlice,
    batch: f64,
    prompt: f64,
    output: f64,
    mfu: f64,
) -> Result<ServingMetrics, InferenceError> {
    let out = positive("output tokens", output)?;
    let ttft = prefill_time(model, prompt, slice, precision.compute, mfu)?;
    let work = model.workload(precision, batch, prompt + out / 2.0)?;
    let step = decode_step(&work, slice, precision.compute)?;
    let per_chip = step.tokens_per_sec_per_chip();
    Ok(ServingMetrics {
        ttft,
        itl: step.total,
        request: ttft + step.total * (out - 1.0).max(0.0),
        tokens_per_sec_per_chip: per_chip,
        usd_per_million: usd_per_million_tokens(slice.chip, per_chip).ok(),
    })
}

/// US dollars per million tokens for a chip producing `tokens_per_sec_per_chip`,
/// at the chip-hour price the book quotes (Part 8's table, February 2025 list
/// prices; labelled as the book's, they change).
pub fn usd_per_million_tokens(
    chip: &'static Chip,
    tokens_per_sec_per_chip: f64,
) -> Result<f64, InferenceError> {
    let price = price_per_hour(chip.id).ok_or(InferenceError::NoPrice(chip.id))?;
    let rate = positive("tokens per second per chip", tokens_per_sec_per_chip)?;
    Ok(price.value / 3600.0 / rate * 1e6)
}

// ---------------------------------------------------------------- the LLaMA 2-13B tables

/// One column of Part 7's "Modeling throughput and latency for LLaMA 2-13B"
/// tables: everything memory-bound, at one batch size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TheoryRow {
    /// Sequences in the batch.
    pub batch: f64,
    /// KV caches of the batch.
    pub kv: Bytes,
    /// Weights plus KV caches.
    pub total: Bytes,
    /// `total / W_hbm` of the slice.
    pub step: Seconds,
    /// `batch / step`, tokens per second of the slice.
    pub tokens_per_sec: f64,
    /// Whether `total` fits in the slice's HBM.
    pub fits: bool,
}

/// Part 7's LLaMA 2-13B table: for each batch, the theoretical memory-bound
/// step time on `slice` with `seq`-token KV caches. `kv_heads` replaces the
/// model's KV heads (the book's second table uses 8 of 40, "1:5 GMQA") while
/// keeping the parameter count, as the book does.
///
/// The book labels these memory columns GiB but its numbers are decimal GB
/// (6.7 = 8192·40·128·40·2·2 / 10^9); the rows here are plain bytes.
pub fn theory_table(
    model: &ServingModel,
    precision: Precision,
    slice: &ServingSlice,
    seq: f64,
    kv_heads: Option<u64>,
    batches: &[f64],
) -> Result<Vec<TheoryRow>, InferenceError> {
    let seq = positive("sequence length", seq)?;
    let mut m = *model;
    if let Some(k) = kv_heads {
        let mut cfg = m.config;
        cfg.kv_heads = k;
        m = ServingModel::new(cfg)?.with_params(model.params)?;
    }
    // The book's table uses 8,192-token caches, beyond LLaMA 2's trained
    // context, so the per-token size is scaled directly.
    let kv_seq = m.kv_per_token(precision.kv) * seq;
    batches
        .iter()
        .map(|&b| {
            let work = DecodeWorkload::new(b, m.params, m.param_bytes(precision.weights), kv_seq)?;
            let step = min_step_time(&work, slice);
            Ok(TheoryRow {
                batch: work.batch,
                kv: work.kv_bytes(),
                total: work.memory(),
                step,
                tokens_per_sec: work.batch / step.0,
                fits: work.memory() <= slice.hbm_capacity(),
            })
        })
        .collect()
}

/// The batches of the book's tables.
pub const BOOK_TABLE_BATCHES: [f64; 6] = [1.0, 8.0, 16.0, 32.0, 64.0, 240.0];

/// What one inference step keeps in HBM (Part 7, "What about memory?").
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MemoryBudget {
    /// One copy of the weights.
    pub params: Bytes,
    /// KV caches of the batch.
    pub kv: Bytes,
    /// One activation of a prefill chunk, `tokens · D · bytes` (about 80 MB for
    /// 8k tokens of LLaMA 2-13B): negligible, since nothing is kept for a
    /// backward pass.
    pub activation: Bytes,
}

/// The memory budget of serving `batch` sequences of `seq` tokens, prefilling
/// `chunk` tokens at a time.
pub fn memory_budget(
    model: &ServingModel,
    precision: Precision,
    batch: f64,
    seq: f64,
    chunk: f64,
) -> Result<MemoryBudget, InferenceError> {
    let b = positive("batch", batch)?;
    let s = positive("sequence length", seq)?;
    let c = positive("prefill chunk", chunk)?;
    Ok(MemoryBudget {
        params: model.param_bytes(precision.weights),
        kv: model.kv_per_token(precision.kv) * (b * s),
        activation: Dtype::Bf16.size_of(c * model.config.d_model as f64),
    })
}

// ---------------------------------------------------------------- tricks

/// A way of shrinking or skipping KV-cache work (Part 7, "Tricks for Improving
/// Generation Throughput and Latency").
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Trick {
    /// The model as published.
    Baseline,
    /// Grouped queries: `kv_heads` KV heads shared by all query heads.
    Gqa {
        /// KV heads kept.
        kv_heads: u64,
    },
    /// One KV head for every query head.
    Mqa,
    /// Weights and KV caches stored in int8 (FLOPs stay bf16).
    Int8,
    /// Paged attention: caches hold (and steps read) the tokens a request
    /// actually has, `mean_fill` of the allocated context on average, instead
    /// of padding every slot to the full context.
    Paged {
        /// Mean context used over context allocated, in (0, 1].
        mean_fill: f64,
    },
}

impl Trick {
    /// A short label.
    pub fn label(&self) -> String {
        match self {
            Trick::Baseline => "as published".into(),
            Trick::Gqa { kv_heads } => format!("GQA, {kv_heads} KV heads"),
            Trick::Mqa => "MQA (one KV head)".into(),
            Trick::Int8 => "int8 weights and KV".into(),
            Trick::Paged { mean_fill } => format!("paged, {:.0} % filled", mean_fill * 100.0),
        }
    }
}

/// What a trick buys on one slice at one context length.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrickEffect {
    /// The trick.
    pub trick: Trick,
    /// KV bytes a sequence's cache takes.
    pub kv_per_seq: Bytes,
    /// The largest batch whose caches fit beside the weights.
    pub max_batch: u64,
    /// The decode step at that batch (book's general formula).
    pub step: Seconds,
    /// Tokens per second per chip at that batch.
    pub tokens_per_sec_per_chip: f64,
}

/// The effect of each of `tricks` on serving `model` at `seq`-token contexts on
/// `slice`: cache size, largest batch, step time and throughput there.
pub fn trick_effects(
    model: &ServingModel,
    slice: &ServingSlice,
    seq: f64,
    tricks: &[Trick],
) -> Result<Vec<TrickEffect>, InferenceError> {
    let seq = positive("sequence length", seq)?;
    tricks
        .iter()
        .map(|&trick| {
            let mut m = *model;
            let mut p = Precision::BF16;
            let mut fill = 1.0;
            match trick {
                Trick::Baseline => {}
                Trick::Gqa { .. } | Trick::Mqa if m.config.mla.is_none() => {
                    let k = if let Trick::Gqa { kv_heads } = trick {
                        kv_heads
                    } else {
                        1
                    };
                    let mut cfg = m.config;
                    cfg.kv_heads = k;
                    m = ServingModel::new(cfg)?.with_params(model.params)?;
                }
                Trick::Gqa { .. } | Trick::Mqa => {}
                Trick::Int8 => p = Precision::stored(Dtype::Int8),
                Trick::Paged { mean_fill } => {
                    if !crate::check::is_fraction(mean_fill) {
                        return Err(InferenceError::BadFraction {
                            field: "mean fill",
                            value: mean_fill,
                        });
                    }
                    fill = mean_fill;
                }
            }
            let kv_per_seq = m.kv_per_token(p.kv) * (seq * fill);
            let free = slice.hbm_capacity() - m.param_bytes(p.weights);
            if free.0 <= 0.0 {
                return Err(InferenceError::ModelDoesNotFit {
                    params: m.param_bytes(p.weights),
                    capacity: slice.hbm_capacity(),
                    chips: slice.tp,
                });
            }
            let max_batch: u64 = crate::check::whole((free / kv_per_seq).floor().clamp(0.0, 1e7))
                .ok_or(InferenceError::OutOfRange {
                quantity: "largest batch",
                value: free / kv_per_seq,
            })?;
            let b = max_batch.max(1) as f64;
            let work =
                DecodeWorkload::new(b, m.active_params, m.param_bytes(p.weights), kv_per_seq)?;
            let step = decode_step(&work, slice, p.compute)?;
            Ok(TrickEffect {
                trick,
                kv_per_seq,
                max_batch,
                step: step.total,
                tokens_per_sec_per_chip: step.tokens_per_sec_per_chip(),
            })
        })
        .collect()
}

// ---------------------------------------------------------------- appendix A

/// One point of Appendix A's batch-scaling plots: a layer of two `D×F` matmuls
/// sharded `shards` ways, its time and throughput against batch.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BatchScalingPoint {
    /// Tokens in the batch.
    pub batch: f64,
    /// Layer time, `max(FLOPs/C, bytes/W)` per shard.
    pub time: Seconds,
    /// Tokens per second.
    pub tokens_per_sec: f64,
    /// Compute-bound at this batch.
    pub compute_bound: bool,
}

/// Appendix A's layer (`d_model` 8192, `d_ff` 32768, two matmuls, sharded 4
/// ways in the book) on `chip`: flat time until the batch passes the critical
/// batch, then linear; throughput rises until there and then levels off.
/// Weights, input and output activations all count, in bf16.
pub fn batch_scaling(
    chip: &'static Chip,
    d_model: f64,
    d_ff: f64,
    shards: u64,
    batches: &[f64],
) -> Result<Vec<BatchScalingPoint>, InferenceError> {
    let d = positive("d_model", d_model)?;
    let f = positive("d_ff", d_ff)?;
    let slice = ServingSlice::new(chip, shards)?;
    let c = slice.peak(Dtype::Bf16)?;
    let w = slice.hbm_bandwidth();
    batches
        .iter()
        .map(|&b| {
            let b = positive("batch", b)?;
            let flops = crate::units::Flops(2.0 * 2.0 * b * d * f);
            let bytes = Dtype::Bf16.size_of(2.0 * d * f + 2.0 * (b * d + b * f));
            let (tm, tb) = (flops / c, bytes / w);
            let time = if tm > tb { tm } else { tb };
            Ok(BatchScalingPoint {
                batch: b,
                time,
                tokens_per_sec: b / time.0,
                compute_bound: tm > tb,
            })
        })
        .collect()
}

// ---------------------------------------------------------------- appendix B

/// Inputs of the `weight-stationary` widget.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WeightStationaryParams {
    /// Chip whose ICI carries the activations.
    pub chip: &'static Chip,
    /// Tokens in the batch.
    pub batch: f64,
    /// `D`.
    pub d_model: f64,
    /// `F`.
    pub d_ff: f64,
    /// Largest chip count drawn.
    pub max_chips: u64,
}

/// One chip count of the comparison.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WeightStationaryPoint {
    /// Chips.
    pub chips: u64,
    /// 1D (Megatron) communication per MLP.
    pub one_d: Seconds,
    /// 2D weight-stationary communication per MLP at the best split.
    pub two_d: Seconds,
    /// The 2D split `(X, YZ)`.
    pub split: (f64, f64),
}

/// The comparison: communication per layer against chips (powers of two up to
/// `max_chips`), and the chip count above which 2D wins.
#[derive(Debug, Clone, PartialEq)]
pub struct WeightStationaryReport {
    /// One point per chip count.
    pub points: Vec<WeightStationaryPoint>,
    /// `N` above which 2D communicates less (72 for `F = 4D`).
    pub crossover: f64,
}

/// Appendix B: 1D vs 2D weight-stationary communication per layer.
pub fn weight_stationary(p: &WeightStationaryParams) -> Result<WeightStationaryReport, String> {
    use crate::inference::{
        weight_stationary_1d, weight_stationary_2d, weight_stationary_crossover,
    };
    if p.max_chips < 2 || p.max_chips > 1 << 16 {
        return Err(format!("max_chips: {} is outside 2 to 65536", p.max_chips));
    }
    let w = p
        .chip
        .interconnect()
        .map(|l| l.bandwidth)
        .ok_or_else(|| format!("chip: {} has no chip-to-chip link", p.chip.id))?;
    fn err(field: &'static str) -> impl Fn(InferenceError) -> String {
        move |e| format!("{field}: {e}")
    }
    let crossover = weight_stationary_crossover(p.d_model, p.d_ff).map_err(err("d_ff"))?;
    let mut points = Vec::new();
    let mut n = 2u64;
    while n <= p.max_chips {
        let one_d =
            weight_stationary_1d(p.batch, p.d_model, Dtype::Bf16, w).map_err(err("batch"))?;
        let two = weight_stationary_2d(p.batch, p.d_model, p.d_ff, n as f64, Dtype::Bf16, w)
            .map_err(err("d_model"))?;
        points.push(WeightStationaryPoint {
            chips: n,
            one_d,
            two_d: two.t_comms,
            split: (two.x, two.yz),
        });
        n *= 2;
    }
    Ok(WeightStationaryReport { points, crossover })
}

// ---------------------------------------------------------------- appendix C

/// Appendix C's AllGather time on a ring of `shards` chips: the larger of the
/// latency term `T_min·|X|/2` and `bytes / W_ici` (a maximum, not a sum).
pub fn latency_bound_allgather(
    bytes: Bytes,
    shards: u64,
    w_ici: BytesPerSec,
    hop: Seconds,
) -> Result<Seconds, InferenceError> {
    positive("bytes", bytes.0)?;
    positive("ICI bandwidth", w_ici.0)?;
    if shards == 0 {
        return Err(InferenceError::BadChipCount(0));
    }
    let lat = hop * (shards as f64 / 2.0);
    let bw = bytes / w_ici;
    Ok(if lat > bw { lat } else { bw })
}

/// The model-parallel degree above which activations of `batch` tokens of
/// width `d_model` in `act` are latency-bound on `chip`'s ICI:
/// `Y > B·D·bytes / (W_ici·1 µs)` (the book's `BD/45,000` in int8 on a v5e).
pub fn latency_bound_degree(
    chip: &'static Chip,
    batch: f64,
    d_model: f64,
    act: Dtype,
) -> Result<f64, InferenceError> {
    let bytes = act.size_of(positive("batch", batch)? * positive("d_model", d_model)?);
    Ok(bytes / crate::inference::latency_bound_bytes(chip, 1)?)
}

// ---------------------------------------------------------------- appendix D

/// Inputs of the `speculative` widget.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpeculativeParams {
    /// Tokens drafted per round, `k`.
    pub draft: u32,
    /// Probability each drafted token is accepted, independently.
    pub accept: f64,
    /// One draft step's time over one target step's time.
    pub draft_cost: f64,
}

/// What speculative sampling buys.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Speculative {
    /// Expected tokens per target step, `(1 − a^(k+1)) / (1 − a)`.
    pub tokens_per_step: f64,
    /// Time of a round in target steps, `1 + k·c`.
    pub round_cost: f64,
    /// Tokens per unit time over plain decoding: `tokens_per_step / round_cost`.
    pub speedup: f64,
}

impl SpeculativeParams {
    /// Checks the fields: `draft` 0 to 64, `accept` in [0, 1], `draft_cost` in [0, 10].
    pub fn validate(&self) -> Result<(), String> {
        if self.draft > 64 {
            return Err(format!("draft: {} is outside 0 to 64", self.draft));
        }
        if !(self.accept.is_finite() && (0.0..=1.0).contains(&self.accept)) {
            return Err(format!("accept: {} is not a probability", self.accept));
        }
        if !(self.draft_cost.is_finite() && (0.0..=10.0).contains(&self.draft_cost)) {
            return Err(format!(
                "draft_cost: {} is outside 0 to 10",
                self.draft_cost
            ));
        }
        Ok(())
    }
}

/// Appendix D: expected tokens per target step and the speedup.
pub fn speculative(p: &SpeculativeParams) -> Result<Speculative, String> {
    p.validate()?;
    let tokens = crate::inference::speculative_tokens_per_step(p.accept, p.draft)
        .map_err(|e| format!("accept: {e}"))?;
    let round = 1.0 + p.draft as f64 * p.draft_cost;
    Ok(Speculative {
        tokens_per_step: tokens,
        round_cost: round,
        speedup: tokens / round,
    })
}

/// The draft length with the best speedup for `accept` and `draft_cost`
/// (searched over 0 to 64).
pub fn best_draft(accept: f64, draft_cost: f64) -> Result<(u32, Speculative), String> {
    let mut best: Option<(u32, Speculative)> = None;
    for k in 0..=64 {
        let s = speculative(&SpeculativeParams {
            draft: k,
            accept,
            draft_cost,
        })?;
        if best.is_none_or(|(_, b)| s.speedup > b.speedup) {
            best = Some((k, s));
        }
    }
    best.ok_or_else(|| "no draft length".into())
}

/// Simulates `rounds` rounds of greedy speculative decoding with a seeded
/// generator: each round drafts `draft` tokens, accepts the longest prefix of
/// independent successes, and the target adds one token of its own. Returns
/// the mean tokens per target step.
pub fn simulate_speculative(p: &SpeculativeParams, rounds: u32, seed: u64) -> Result<f64, String> {
    p.validate()?;
    let mut rng = Rng::new(seed);
    let mut tokens = 0u64;
    for _ in 0..rounds {
        let mut accepted = 0;
        while accepted < p.draft {
            if rng.unit() >= p.accept {
                break;
            }
            accepted += 1;
        }
        tokens += accepted as u64 + 1;
    }
    Ok(tokens as f64 / rounds.max(1) as f64)
}

/// One round of greedy speculative decoding, checked token by token
/// (Appendix D): the drafted tokens kept, and the large model's token that
/// follows them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GreedyRound {
    /// Drafted tokens kept: the longest prefix equal to the large model's
    /// top choice at each position.
    pub kept: usize,
    /// Whether every drafted token was kept, so the large model's choice
    /// after them is a bonus token rather than a replacement.
    pub bonus: bool,
    /// Tokens the round emits: the kept ones and the large model's one.
    pub emitted: usize,
}

/// Checks `draft` (k tokens) against `top`, the large model's top choice at
/// each of the k + 1 positions its one pass scores: keep the drafted tokens
/// while they agree, then emit the large model's token (the replacement at
/// the first miss, or the bonus token when all k agree).
pub fn greedy_round<T: PartialEq>(draft: &[T], top: &[T]) -> Result<GreedyRound, String> {
    if top.len() != draft.len() + 1 {
        return Err(format!(
            "top: {} choices for {} drafted tokens; the pass scores k + 1 positions",
            top.len(),
            draft.len()
        ));
    }
    let kept = draft.iter().zip(top).take_while(|(d, t)| d == t).count();
    Ok(GreedyRound {
        kept,
        bonus: kept == draft.len(),
        emitted: kept + 1,
    })
}

// ---------------------------------------------------------------- Part 8: prefill and decode pools

/// The KV handover arithmetic of disaggregated serving (Part 8, "What about
/// prefill?"), for a generate batch `batch`, prompts of `prefill` and answers of
/// `decode` tokens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Handover {
    /// Sequences finishing per decode step, `B/G`.
    pub finished_per_step: f64,
    /// KV tokens freed per step, `B·(P+G)/G`.
    pub evicted_per_step: f64,
    /// KV tokens that must arrive per step to refill the freed slots, `B·P/G`.
    pub inserted_per_step: f64,
    /// Bytes per second the handover must sustain at `step` per decode step.
    pub transfer_rate: BytesPerSec,
    /// Prefill servers per generate server to keep both busy.
    pub prefill_per_decode: f64,
}

/// The handover of `batch` sequences decoding at `step` per token, whose caches
/// take `kv_per_token` each, refilled by prefills of `prefill_time` each.
pub fn handover(
    batch: f64,
    prefill: f64,
    decode: f64,
    kv_per_token: Bytes,
    step: Seconds,
    prefill_time: Seconds,
) -> Result<Handover, InferenceError> {
    let finished = crate::inference::finished_per_step(batch, decode)?;
    let evicted = crate::inference::tokens_evicted_per_step(batch, prefill, decode)?;
    let step_s = positive("step time", step.0)?;
    positive("KV bytes per token", kv_per_token.0)?;
    let inserted = finished * prefill;
    Ok(Handover {
        finished_per_step: finished,
        evicted_per_step: evicted,
        inserted_per_step: inserted,
        transfer_rate: BytesPerSec((kv_per_token * inserted).0 / step_s),
        prefill_per_decode: crate::inference::prefill_decode_ratio(
            prefill_time,
            step,
            batch,
            decode,
        )?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_greedy_round_keeps_the_agreeing_prefix_and_adds_one_token() {
        let miss = greedy_round(&["a", "b", "x", "d"], &["a", "b", "c", "d", "e"]).unwrap();
        assert_eq!(
            miss,
            GreedyRound {
                kept: 2,
                bonus: false,
                emitted: 3
            }
        );
        let all = greedy_round(&[1, 2, 3], &[1, 2, 3, 4]).unwrap();
        assert_eq!(
            all,
            GreedyRound {
                kept: 3,
                bonus: true,
                emitted: 4
            }
        );
        let first = greedy_round(&[9], &[1, 2]).unwrap();
        assert_eq!((first.kept, first.emitted), (0, 1));
        assert!(greedy_round(&[1, 2], &[1, 2])
            .unwrap_err()
            .contains("k + 1"));
        assert_eq!(greedy_round::<u8>(&[], &[7]).unwrap().emitted, 1);
    }

    use crate::hardware::chip;
    use proptest::prelude::*;

    fn v5e() -> &'static Chip {
        chip("v5e").unwrap()
    }

    fn near(a: f64, b: f64, rel: f64) -> bool {
        (a / b - 1.0).abs() < rel
    }

    #[test]
    fn llama2_13b_tables_match_the_book() {
        let m = ServingModel::preset("llama2-13b").unwrap();
        let s = ServingSlice::new(v5e(), 8).unwrap();
        let mha = theory_table(&m, Precision::BF16, &s, 8192.0, None, &BOOK_TABLE_BATCHES).unwrap();
        // The book's rows: step (ms) and tokens/s at batches 1, 8, 16, 32, 64, 240.
        let book_step = [4.98, 12.13, 20.30, 36.65, 69.33, 249.09];
        let book_tps = [200.61, 659.30, 787.99, 873.21, 923.13, 963.53];
        for (i, r) in mha.iter().enumerate() {
            assert!(near(r.step.0 * 1e3, book_step[i], 0.01), "{i}: {:?}", r);
            assert!(near(r.tokens_per_sec, book_tps[i], 0.01), "{i}: {:?}", r);
        }
        assert!(near(mha[0].kv.0, 6.7e9, 0.01));
        let gqa = theory_table(
            &m,
            Precision::BF16,
            &s,
            8192.0,
            Some(8),
            &BOOK_TABLE_BATCHES,
        )
        .unwrap();
        let book_step = [4.17, 5.60, 7.23, 10.50, 17.04, 52.99];
        for (i, r) in gqa.iter().enumerate() {
            assert!(near(r.step.0 * 1e3, book_step[i], 0.01), "{i}: {:?}", r);
        }
        // 128 GB of HBM (decimal) holds batch 8 but not 16 of MHA caches.
        assert!(mha[1].fits && !mha[2].fits);
        assert!(gqa[4].fits && !gqa[5].fits);
    }

    #[test]
    fn memory_budget_of_the_book() {
        let m = ServingModel::preset("llama2-13b").unwrap();
        let b = memory_budget(&m, Precision::BF16, 1.0, 8192.0, 8192.0).unwrap();
        assert!(near(b.params.0, 26e9, 0.01));
        assert!(near(b.activation.0, 8192.0 * 5120.0 * 2.0, 1e-12));
        assert!(
            b.kv.0 * 4.0 > b.params.0,
            "four caches outweigh the weights"
        );
    }

    #[test]
    fn tricks_buy_batch_and_throughput() {
        let m = ServingModel::preset("llama2-13b").unwrap();
        let s = ServingSlice::new(v5e(), 8).unwrap();
        let e = trick_effects(
            &m,
            &s,
            4096.0,
            &[
                Trick::Baseline,
                Trick::Gqa { kv_heads: 8 },
                Trick::Mqa,
                Trick::Int8,
                Trick::Paged { mean_fill: 0.25 },
            ],
        )
        .unwrap();
        let base = e[0];
        assert!(near(base.kv_per_seq.0 / e[1].kv_per_seq.0, 5.0, 1e-9));
        assert!(near(base.kv_per_seq.0 / e[2].kv_per_seq.0, 40.0, 1e-9));
        for t in &e[1..] {
            assert!(t.max_batch > base.max_batch, "{:?}", t.trick);
            assert!(t.tokens_per_sec_per_chip > base.tokens_per_sec_per_chip);
        }
        assert_eq!(
            trick_effects(&m, &s, 4096.0, &[Trick::Gqa { kv_heads: 3 }]).unwrap_err().to_string(),
            "the 3 key/value heads must divide the 40 query heads (grouped-query attention shares each KV head among N/K query heads)",
        );
        assert_eq!(
            trick_effects(&m, &s, 4096.0, &[Trick::Paged { mean_fill: 0.0 }])
                .unwrap_err()
                .to_string(),
            "mean fill must be a number in (0, 1], not 0"
        );
    }

    #[test]
    fn metrics_and_cost() {
        let m = ServingModel::preset("llama3-70b").unwrap();
        let s = ServingSlice::new(v5e(), 16).unwrap();
        let x = serving_metrics(
            &m,
            Precision::stored(Dtype::Int8),
            &s,
            32.0,
            4096.0,
            512.0,
            0.4,
        )
        .unwrap();
        // Part 8: about 0.91 s to prefill 8k tokens on 16 v5e at 40 %, so half for 4k.
        assert!((x.ttft.0 - 0.455).abs() < 0.01, "{:?}", x.ttft);
        // Over the 512-token answer a sequence holds 4096 + 512/2 = 4352 tokens
        // on average. KV per token: K and V of 80 layers, 8 heads of 128, one
        // byte: 163,840 B. A decode step loads 32 · 4352 · 163,840 bytes of
        // caches and the P int8 weights over 16 · 8.2e11 B/s (its FLOPs,
        // 2 · 32 · P / (16 · 1.97e14), take a quarter of the weight load, so the
        // step is memory-bound).
        let p = crate::model::accounting::params(&m.config).total();
        let itl = (32.0 * 4352.0 * 163_840.0 + p) / (16.0 * 8.2e11);
        assert!(near(x.itl.0, itl, 1e-12), "{:?}", x.itl);
        // The first token comes from the prefill, the other 511 from decode steps.
        assert!(near(x.request.0, x.ttft.0 + 511.0 * itl, 1e-12));
        let usd = x.usd_per_million.unwrap();
        assert!(near(
            usd,
            1.2 / 3600.0 / x.tokens_per_sec_per_chip * 1e6,
            1e-12
        ));
        assert_eq!(
            usd_per_million_tokens(chip("b200").unwrap(), 100.0)
                .unwrap_err()
                .to_string(),
            "the book quotes no price for b200"
        );
    }

    #[test]
    fn batch_scaling_is_flat_then_linear() {
        let bs: Vec<f64> = (0..12).map(|i| 2f64.powi(i)).collect();
        let pts = batch_scaling(v5e(), 8192.0, 32768.0, 4, &bs).unwrap();
        // Minimum: two 8192x32768 bf16 matrices over 4 chips' HBM, about 327 µs
        // (the book rounds the layer to 600M parameters and says 365 µs).
        assert!(near(
            pts[0].time.0,
            2.0 * 2.0 * 8192.0 * 32768.0 / (4.0 * 8.2e11),
            0.01
        ));
        let knee = pts.iter().position(|p| p.compute_bound).unwrap();
        assert!(bs[knee] >= 256.0 && bs[knee] <= 512.0, "{}", bs[knee]);
        for w in pts.windows(2) {
            assert!(w[1].tokens_per_sec >= w[0].tokens_per_sec * 0.999);
        }
    }

    #[test]
    fn weight_stationary_crossover_is_where_2d_wins() {
        let r = weight_stationary(&WeightStationaryParams {
            chip: v5e(),
            batch: 512.0,
            d_model: 8192.0,
            d_ff: 32768.0,
            max_chips: 1024,
        })
        .unwrap();
        assert_eq!(r.crossover, 72.0);
        for p in &r.points {
            if (p.chips as f64) > r.crossover * 1.01 {
                assert!(p.two_d < p.one_d, "{p:?}");
            }
            if (p.chips as f64) < r.crossover * 0.99 {
                assert!(p.two_d > p.one_d, "{p:?}");
            }
        }
    }

    #[test]
    fn latency_bound_collectives() {
        let w = BytesPerSec(4.5e10);
        let hop = Seconds(1e-6);
        // Small arrays pay the latency term, large ones bytes over bandwidth.
        let small = latency_bound_allgather(Bytes(1e4), 8, w, hop).unwrap();
        assert_eq!(small, Seconds(4e-6));
        let big = latency_bound_allgather(Bytes(1e9), 8, w, hop).unwrap();
        assert!(near(big.0, 1e9 / 4.5e10, 1e-12));
        // BS=16, D=8192 in int8 over 8 shards: latency-bound (the book's 131 kB < 360 kB).
        let y = latency_bound_degree(v5e(), 16.0, 8192.0, Dtype::Int8).unwrap();
        assert!(
            y < 8.0 && (y - 16.0 * 8192.0 / 45_000.0).abs() < 0.01,
            "{y}"
        );
    }

    #[test]
    fn speculative_closed_form_matches_simulation() {
        for (k, a) in [(1, 0.5), (4, 0.8), (8, 0.6), (3, 0.95), (0, 0.7)] {
            let p = SpeculativeParams {
                draft: k,
                accept: a,
                draft_cost: 0.05,
            };
            let closed = speculative(&p).unwrap().tokens_per_step;
            let sim = simulate_speculative(&p, 200_000, 7).unwrap();
            assert!(near(sim, closed, 0.01), "k={k} a={a}: {sim} vs {closed}");
        }
        let (k, best) = best_draft(0.8, 0.05).unwrap();
        assert!((3..=8).contains(&k), "{k}");
        assert!(best.speedup > 1.0);
        assert!(speculative(&SpeculativeParams {
            draft: 4,
            accept: 1.5,
            draft_cost: 0.1
        })
        .unwrap_err()
        .starts_with("accept"));
    }

    #[test]
    fn handover_arithmetic_of_part_8() {
        let h = handover(
            32.0,
            8192.0,
            4096.0,
            Bytes(324e3),
            Seconds(0.019),
            Seconds(0.91),
        )
        .unwrap();
        assert_eq!(h.evicted_per_step, 96.0);
        assert_eq!(h.finished_per_step, 32.0 / 4096.0);
        assert!(near(h.transfer_rate.0, 64.0 * 324e3 / 0.019, 1e-12));
        let r = handover(
            32.0,
            8192.0,
            512.0,
            Bytes(324e3),
            Seconds(0.019),
            Seconds(0.91),
        )
        .unwrap();
        assert!(
            (r.prefill_per_decode - 3.0).abs() < 0.05,
            "{}",
            r.prefill_per_decode
        );
    }

    proptest! {
        #[test]
        fn speculation_never_yields_fewer_than_one_token(
            k in 0u32..64, a in 0.0f64..=1.0, c in 0.0f64..1.0,
        ) {
            let s = speculative(&SpeculativeParams { draft: k, accept: a, draft_cost: c }).unwrap();
            prop_assert!(s.tokens_per_step >= 1.0 - 1e-12);
            prop_assert!(s.tokens_per_step <= k as f64 + 1.0 + 1e-9);
        }

        #[test]
        fn theory_step_is_bytes_over_bandwidth(b in 1.0f64..1000.0, chips in 1u64..64) {
            let m = ServingModel::preset("llama2-13b").unwrap();
            let s = ServingSlice::new(v5e(), chips).unwrap();
            let r = theory_table(&m, Precision::BF16, &s, 4096.0, None, &[b]).unwrap()[0];
            prop_assert!(near(r.step.0, r.total.0 / (chips as f64 * 8.2e11), 1e-9));
        }
    }
}
