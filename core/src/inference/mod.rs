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
//! | `mod.rs` | prefill and decode step times, the KV cache on a chip, latency against throughput, tensor-parallel serving, topology and cost |
//! | `serving.rs` | what a reader of a serving system measures (TTFT, ITL, throughput, cost), speculative sampling, Part 8's serving tables |
//! | `engine.rs` | a serving engine as a discrete-event simulation: static and continuous batching |
//! | `kv_sharding.rs` | sharding the KV cache over heads and batch, step by step |

pub mod engine;
pub mod kv_sharding;
pub mod serving;

use crate::comms::collectives::{CollectiveError, Network};
use crate::dtype::Dtype;
use crate::hardware::{price_per_hour, Chip, Link};
use crate::model::accounting::{
    active_params, attention_intensity, kv_bytes_per_token, moe_critical_batch, params,
};
use crate::model::config::{positive, try_model, ModelConfig, ModelError};
use crate::roofline::{Analysis, Verdict};
use crate::training::{ici_intensity, tp_max_degree, training_time, TrainingError};
use crate::units::{Bytes, BytesPerSec, Flops, FlopsPerSec, Intensity, Seconds};
use std::fmt;

/// The most chips a serving slice may have (far beyond any real deployment).
pub const MAX_CHIPS: u64 = 1 << 20;
/// The largest batch a reader may enter.
pub const MAX_BATCH: f64 = 1e7;

// ---------------------------------------------------------------- errors

/// Why an inference question has no answer.
#[derive(Debug, Clone, PartialEq)]
pub enum InferenceError {
    /// The model shape or a size is invalid (zero, negative, NaN, ...).
    Model(ModelError),
    /// A sequence is longer than the model's context.
    SequenceTooLong {
        /// Tokens requested.
        seq: f64,
        /// The model's context length.
        max: u64,
    },
    /// The weights alone do not fit in the slice's HBM.
    ModelDoesNotFit {
        /// Bytes of weights.
        params: Bytes,
        /// HBM of the chips holding one copy of the model.
        capacity: Bytes,
        /// Those chips.
        chips: u64,
    },
    /// The chip count is zero or absurdly large.
    BadChipCount(u64),
    /// The tensor-parallel degree does not divide the chips, or is zero.
    BadTensorParallel {
        /// Tensor-parallel degree requested.
        tp: u64,
        /// Chips in the slice.
        chips: u64,
    },
    /// The chip has no peak for the compute format (or a wider one).
    NoPeak {
        /// The chip.
        chip: &'static str,
        /// The format.
        dtype: Dtype,
    },
    /// The chip has no chip-to-chip link in the registry.
    NoInterconnect(&'static str),
    /// The book gives no price for this chip.
    NoPrice(&'static str),
    /// A fraction (utilisation, acceptance rate) is outside its range.
    BadFraction {
        /// Which quantity.
        field: &'static str,
        /// The value given.
        value: f64,
    },
    /// A training-side helper rejected the numbers.
    Training(TrainingError),
    /// A collective-cost helper rejected the numbers.
    Collective(CollectiveError),
    /// The inputs were each acceptable, but the answer they give is not a
    /// finite positive number (it overflowed, underflowed or divided by zero).
    OutOfRange {
        /// The quantity computed.
        quantity: &'static str,
        /// What it came out as.
        value: f64,
    },
    /// A split over chips was asked of fewer than one chip.
    TooFewChips {
        /// The chips given.
        chips: f64,
    },
}

impl fmt::Display for InferenceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InferenceError::Model(e) => e.fmt(f),
            InferenceError::SequenceTooLong { seq, max } => write!(
                f,
                "a sequence of {seq} tokens is longer than the model's {max}-token context"
            ),
            InferenceError::ModelDoesNotFit {
                params,
                capacity,
                chips,
            } => write!(
                f,
                "the weights alone take {} but {} hold only {} of HBM \
                 (GB = 10^9 bytes); use more chips or a smaller weight format",
                crate::format::decimal_bytes(params.0),
                crate::format::count(*chips, "chip", "chips"),
                crate::format::decimal_bytes(capacity.0)
            ),
            InferenceError::BadChipCount(n) => {
                write!(f, "a slice needs between 1 and {MAX_CHIPS} chips, not {n}")
            }
            InferenceError::BadTensorParallel { tp, chips } => write!(
                f,
                "the tensor-parallel degree ({tp}) must be at least 1 and divide the {chips} chips"
            ),
            InferenceError::NoPeak { chip, dtype } => {
                write!(f, "{chip} has no peak FLOPs/s for {dtype} in the registry")
            }
            InferenceError::NoInterconnect(id) => {
                write!(f, "{id} has no chip-to-chip link in the registry")
            }
            InferenceError::NoPrice(id) => write!(f, "the book quotes no price for {id}"),
            InferenceError::BadFraction { field, value } => {
                write!(f, "{field} must be a number in (0, 1], not {value}")
            }
            InferenceError::Training(e) => e.fmt(f),
            InferenceError::Collective(e) => e.fmt(f),
            InferenceError::OutOfRange { quantity, value } => write!(
                f,
                "the {quantity} comes out as {value}, not a finite positive number: \
                 the inputs are too extreme to compute with"
            ),
            InferenceError::TooFewChips { chips } => {
                write!(f, "a split needs at least one chip, not {chips}")
            }
        }
    }
}

impl std::error::Error for InferenceError {}

impl From<ModelError> for InferenceError {
    fn from(e: ModelError) -> Self {
        InferenceError::Model(e)
    }
}

impl From<TrainingError> for InferenceError {
    fn from(e: TrainingError) -> Self {
        InferenceError::Training(e)
    }
}

impl From<CollectiveError> for InferenceError {
    fn from(e: CollectiveError) -> Self {
        InferenceError::Collective(e)
    }
}

fn batch_ok(batch: f64) -> Result<f64, InferenceError> {
    let b = positive("batch", batch)?;
    if b > MAX_BATCH {
        return Err(ModelError::TooLarge {
            field: "batch",
            value: b,
            max: MAX_BATCH,
        }
        .into());
    }
    Ok(b)
}

/// Checks that a computed answer is finite and positive: inputs that pass their
/// own checks can still overflow, underflow or divide by a subnormal.
fn computed(quantity: &'static str, value: f64) -> Result<f64, InferenceError> {
    if value.is_finite() && value > 0.0 {
        Ok(value)
    } else {
        Err(InferenceError::OutOfRange { quantity, value })
    }
}

fn fraction(field: &'static str, value: f64) -> Result<f64, InferenceError> {
    if value.is_finite() && value > 0.0 && value <= 1.0 {
        Ok(value)
    } else {
        Err(InferenceError::BadFraction { field, value })
    }
}

fn peak(chip: &'static Chip, dtype: Dtype) -> Result<FlopsPerSec, InferenceError> {
    chip.peak_or_wider(dtype)
        .map(|(_, r)| r)
        .ok_or(InferenceError::NoPeak {
            chip: chip.id,
            dtype,
        })
}

fn ici_bw(chip: &'static Chip) -> Result<BytesPerSec, InferenceError> {
    chip.interconnect()
        .map(|l| l.bandwidth)
        .ok_or(InferenceError::NoInterconnect(chip.id))
}

// ---------------------------------------------------------------- precision

/// The formats a server stores weights and KV caches in, and computes in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Precision {
    /// Format of the stored weights.
    pub weights: Dtype,
    /// Format of the KV cache.
    pub kv: Dtype,
    /// Format the matmuls run in (the book's "bf16 FLOPs").
    pub compute: Dtype,
}

impl Precision {
    /// Everything in bf16.
    pub const BF16: Precision = Precision {
        weights: Dtype::Bf16,
        kv: Dtype::Bf16,
        compute: Dtype::Bf16,
    };

    /// Weights in `weights`, KV caches in `kv`, matmuls in `compute`.
    pub fn new(weights: Dtype, kv: Dtype, compute: Dtype) -> Precision {
        Precision {
            weights,
            kv,
            compute,
        }
    }

    /// Weights and KV caches stored in `storage`, FLOPs in bf16: the book's
    /// common "int8 weights, bf16 FLOPs" setting (Part 8).
    pub fn stored(storage: Dtype) -> Precision {
        Precision::new(storage, storage, Dtype::Bf16)
    }
}

// ---------------------------------------------------------------- critical batch

/// The book's `β = bits per param / bits per activation` (Part 7).
pub fn beta(weights: Dtype, activations: Dtype) -> f64 {
    weights.bits() / activations.bits()
}

/// The token batch above which a weight matmul is compute-bound:
/// `B_crit = C_compute · bytes_per_weight / (2 · W_hbm)` — each weight byte loaded
/// feeds `2·B / bytes` FLOPs. 240 for bf16 on a v5e, 120 for int8 weights with bf16
/// FLOPs, and 240 again with int8 FLOPs (the v5e's int8 rate is twice its bf16
/// rate). This is the book's `β·α_hbm` with `α_hbm` the bf16 ridge.
pub fn critical_batch(
    chip: &'static Chip,
    weights: Dtype,
    compute: Dtype,
) -> Result<f64, InferenceError> {
    let ridge = peak(chip, compute)? / chip.hbm_bw();
    Ok(moe_critical_batch(1.0, 1.0, ridge, weights))
}

/// Arithmetic intensity of dot-product attention during prefill of `seq` tokens
/// (bf16, non-causal): `T·G/(G+1)`, which is `T/2` for multi-head attention.
pub fn prefill_attention_intensity(seq: f64, group: f64) -> Intensity {
    attention_intensity(seq, seq, group)
}

/// Arithmetic intensity of attention while generating one token against a
/// context of `context` tokens (bf16): `S·G/(S+G)`, about 1 for MHA and `G` for GQA.
pub fn decode_attention_intensity(context: f64, group: f64) -> Intensity {
    attention_intensity(1.0, context, group)
}

// ---------------------------------------------------------------- KV cache

/// How a model's attention stores keys and values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AttentionKind {
    /// Multi-head attention: one KV head per query head (`K = N`).
    Mha,
    /// Grouped-query attention: `group` query heads share each KV head.
    Gqa {
        /// `G = N / K`.
        group: f64,
    },
    /// Multi-query attention: one KV head for all query heads (`K = 1`).
    Mqa,
    /// Multi-head latent attention: a shared latent of rank `rank` (plus a rope key).
    Mla {
        /// KV latent rank.
        rank: u64,
    },
}

impl AttentionKind {
    /// The kind of a model's attention.
    pub fn of(cfg: &ModelConfig) -> AttentionKind {
        if let Some(m) = cfg.mla {
            return AttentionKind::Mla { rank: m.kv_rank };
        }
        if cfg.kv_heads == cfg.heads {
            AttentionKind::Mha
        } else if cfg.kv_heads == 1 {
            AttentionKind::Mqa
        } else {
            AttentionKind::Gqa { group: cfg.group() }
        }
    }

    /// Short label: `MHA`, `GQA (G = 8)`, `MQA`, `MLA (rank 512)`.
    pub fn label(&self) -> String {
        match self {
            AttentionKind::Mha => "MHA".to_string(),
            AttentionKind::Gqa { group } => format!("GQA (G = {group})"),
            AttentionKind::Mqa => "MQA".to_string(),
            AttentionKind::Mla { rank } => format!("MLA (rank {rank})"),
        }
    }
}

/// The size of a KV cache.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KvCache {
    /// The attention variant.
    pub kind: AttentionKind,
    /// Bytes per token: `2·L·K·H·bytes` (GQA/MHA/MQA), `L·(rank + rope)·bytes` (MLA).
    pub per_token: Bytes,
    /// Bytes per sequence of `seq` tokens.
    pub per_sequence: Bytes,
    /// Bytes for the whole batch.
    pub total: Bytes,
    /// What multi-head attention (`K = N`) would store per token in the same format.
    pub mha_per_token: Bytes,
}

impl KvCache {
    /// How many times smaller than multi-head attention the cache is.
    pub fn reduction(&self) -> f64 {
        self.mha_per_token / self.per_token
    }
}

/// The KV cache of `batch` sequences of `seq` tokens in `dtype`; the sequence may
/// not exceed the model's context.
pub fn kv_cache(
    cfg: &ModelConfig,
    seq: f64,
    batch: f64,
    dtype: Dtype,
) -> Result<KvCache, InferenceError> {
    cfg.validate()?;
    let seq = seq_ok(cfg, seq)?;
    let batch = batch_ok(batch)?;
    let per_token = kv_bytes_per_token(cfg, dtype);
    let mha = ModelConfig {
        kv_heads: cfg.heads,
        mla: None,
        ..*cfg
    };
    Ok(KvCache {
        kind: AttentionKind::of(cfg),
        per_token,
        per_sequence: per_token * seq,
        total: per_token * (seq * batch),
        mha_per_token: kv_bytes_per_token(&mha, dtype),
    })
}

fn seq_ok(cfg: &ModelConfig, seq: f64) -> Result<f64, InferenceError> {
    let s = positive("sequence length", seq)?;
    if s > cfg.max_seq as f64 {
        return Err(InferenceError::SequenceTooLong {
            seq: s,
            max: cfg.max_seq,
        });
    }
    Ok(s)
}

/// Bytes of one activation `[T, D]` during a prefill of `tokens` tokens
/// (Part 7: 80 MB for an 8k prefill of LLaMA-2 13B in bf16).
pub fn activation_bytes(
    cfg: &ModelConfig,
    tokens: f64,
    dtype: Dtype,
) -> Result<Bytes, InferenceError> {
    let t = positive("tokens", tokens)?;
    Ok(dtype.size_of(t * cfg.d_model as f64))
}

// ---------------------------------------------------------------- the served model

/// A model as the serving arithmetic sees it: its shape and its parameter counts.
///
/// The counts default to the exact ones of [`crate::model::accounting::params`]; the book
/// often rounds them to the model's name (13e9 for LLaMA-2 13B, 70e9 for LLaMA 3-70B),
/// which [`ServingModel::with_params`] reproduces.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ServingModel {
    /// The shape.
    pub config: ModelConfig,
    /// Parameters stored (all experts of an MoE).
    pub params: f64,
    /// Parameters each token uses (`k` experts of an MoE); sets the FLOPs.
    pub active_params: f64,
}

impl ServingModel {
    /// A checked model with its exact parameter counts.
    pub fn new(config: ModelConfig) -> Result<ServingModel, InferenceError> {
        config.validate()?;
        Ok(ServingModel {
            config,
            params: params(&config).total(),
            active_params: active_params(&config).total(),
        })
    }

    /// A registry preset by id (`llama3-70b`).
    pub fn preset(id: &str) -> Result<ServingModel, InferenceError> {
        ServingModel::new(try_model(id)?.config)
    }

    /// The same shape with `total` parameters stored (the active count scales with it).
    pub fn with_params(self, total: f64) -> Result<ServingModel, InferenceError> {
        let total = positive("parameter count", total)?;
        let ratio = total / self.params;
        Ok(ServingModel {
            params: total,
            active_params: self.active_params * ratio,
            ..self
        })
    }

    /// Bytes of the stored weights in `dtype`.
    pub fn param_bytes(&self, dtype: Dtype) -> Bytes {
        dtype.size_of(self.params)
    }

    /// KV-cache bytes per token in `dtype`.
    pub fn kv_per_token(&self, dtype: Dtype) -> Bytes {
        kv_bytes_per_token(&self.config, dtype)
    }

    /// KV-cache bytes of one sequence of `seq` tokens (checked against the context).
    pub fn kv_per_sequence(&self, seq: f64, dtype: Dtype) -> Result<Bytes, InferenceError> {
        Ok(self.kv_per_token(dtype) * seq_ok(&self.config, seq)?)
    }

    /// Forward-pass FLOPs for `tokens` tokens: `2 · active params · T` (Part 7 Q5).
    pub fn forward_flops(&self, tokens: f64) -> Result<Flops, InferenceError> {
        let t = positive("tokens", tokens)?;
        Ok(Flops(2.0 * self.active_params * t))
    }

    /// The decode workload of `batch` sequences at context `seq`.
    pub fn workload(
        &self,
        precision: Precision,
        batch: f64,
        seq: f64,
    ) -> Result<DecodeWorkload, InferenceError> {
        DecodeWorkload::new(
            batch,
            self.active_params,
            self.param_bytes(precision.weights),
            self.kv_per_sequence(seq, precision.kv)?,
        )
    }

    /// The token batch above which the weight matmuls are compute-bound; for an
    /// MoE, `E/k` times the dense value (Part 7 Q5: `240·E/k`).
    pub fn critical_batch(
        &self,
        chip: &'static Chip,
        precision: Precision,
    ) -> Result<f64, InferenceError> {
        let ridge = peak(chip, precision.compute)? / chip.hbm_bw();
        let (e, k) = self
            .config
            .moe
            .map(|m| (m.experts as f64, m.active as f64))
            .unwrap_or((1.0, 1.0));
        Ok(moe_critical_batch(e, k, ridge, precision.weights))
    }
}

/// What one decode step moves and computes, in raw numbers (for models given
/// only as "30B parameters, 100 kB of KV per token").
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DecodeWorkload {
    /// Sequences decoded together, `B`.
    pub batch: f64,
    /// Parameters each token multiplies by (sets FLOPs: `2·B·P`).
    pub param_count: f64,
    /// Bytes of weights loaded each step.
    pub param_bytes: Bytes,
    /// KV-cache bytes of one sequence at the current context.
    pub kv_per_seq: Bytes,
}

impl DecodeWorkload {
    /// A checked workload: every quantity finite and positive.
    pub fn new(
        batch: f64,
        param_count: f64,
        param_bytes: Bytes,
        kv_per_seq: Bytes,
    ) -> Result<DecodeWorkload, InferenceError> {
        Ok(DecodeWorkload {
            batch: batch_ok(batch)?,
            param_count: positive("parameter count", param_count)?,
            param_bytes: Bytes(positive("parameter bytes", param_bytes.0)?),
            kv_per_seq: Bytes(positive("KV bytes per sequence", kv_per_seq.0)?),
        })
    }

    /// KV bytes of the whole batch.
    pub fn kv_bytes(&self) -> Bytes {
        self.kv_per_seq * self.batch
    }

    /// Weights plus the batch's KV caches: the HBM a step reads.
    pub fn memory(&self) -> Bytes {
        self.param_bytes + self.kv_bytes()
    }
}

// ---------------------------------------------------------------- the slice

/// The chips serving a model: `chips` in all, `tp` of them holding one copy of
/// the model with tensor (model) parallelism, so `chips / tp` independent replicas
/// each decode their own batch.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ServingSlice {
    /// The accelerator.
    pub chip: &'static Chip,
    /// Chips in the slice.
    pub chips: u64,
    /// Tensor-parallel degree: chips per model replica.
    pub tp: u64,
}

impl ServingSlice {
    /// `chips` chips all serving one replica (`tp = chips`).
    pub fn new(chip: &'static Chip, chips: u64) -> Result<ServingSlice, InferenceError> {
        if chips == 0 || chips > MAX_CHIPS {
            return Err(InferenceError::BadChipCount(chips));
        }
        Ok(ServingSlice {
            chip,
            chips,
            tp: chips,
        })
    }

    /// The same slice split into replicas of `tp` chips each.
    pub fn with_tp(self, tp: u64) -> Result<ServingSlice, InferenceError> {
        if tp == 0 || !self.chips.is_multiple_of(tp) {
            return Err(InferenceError::BadTensorParallel {
                tp,
                chips: self.chips,
            });
        }
        Ok(ServingSlice { tp, ..self })
    }

    /// Independent model copies, `chips / tp`.
    pub fn replicas(&self) -> u64 {
        self.chips / self.tp
    }

    /// HBM of one replica's chips.
    pub fn hbm_capacity(&self) -> Bytes {
        self.chip.hbm_capacity.value * self.tp as f64
    }

    /// HBM bandwidth of one replica's chips.
    pub fn hbm_bandwidth(&self) -> BytesPerSec {
        self.chip.hbm_bw() * self.tp as f64
    }

    /// Peak FLOPs/s of one replica's chips in `dtype`.
    pub fn peak(&self, dtype: Dtype) -> Result<FlopsPerSec, InferenceError> {
        Ok(peak(self.chip, dtype)? * self.tp as f64)
    }
}

// ---------------------------------------------------------------- step time

/// The time of one decode step, broken down as in Part 8's latency plot.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepTime {
    /// Sequences in the batch.
    pub batch: f64,
    /// Chips the step runs on (one replica).
    pub chips: u64,
    /// Loading every KV cache, `B·KV/W`: attention, always memory-bound.
    pub kv_load: Seconds,
    /// Loading the weights, `P_bytes/W`.
    pub param_load: Seconds,
    /// The matmul FLOPs, `2·B·P/C`.
    pub flops: Seconds,
    /// The MLP/projection time, `max(flops, param_load)`.
    pub mlp: Seconds,
    /// `kv_load + mlp`.
    pub total: Seconds,
    /// Whether the weight matmuls are compute- or memory-bound.
    pub mlp_verdict: Verdict,
    /// Attention's verdict (memory-bound: it has no FLOPs roofline in this model).
    pub attention_verdict: Verdict,
}

impl StepTime {
    /// Tokens per second of the replica, `B / T_step`.
    pub fn tokens_per_sec(&self) -> f64 {
        self.batch / self.total.0
    }

    /// Tokens per second per chip.
    pub fn tokens_per_sec_per_chip(&self) -> f64 {
        self.tokens_per_sec() / self.chips as f64
    }
}

/// The general decode step time (Part 7):
/// `B·KV/W + max(2·B·P_count/C, P_bytes/W)` on one replica of `slice`, FLOPs in `compute`.
pub fn decode_step(
    work: &DecodeWorkload,
    slice: &ServingSlice,
    compute: Dtype,
) -> Result<StepTime, InferenceError> {
    let w = slice.hbm_bandwidth();
    let c = slice.peak(compute)?;
    let kv_load = work.kv_bytes() / w;
    let param_load = work.param_bytes / w;
    let flops = Flops(2.0 * work.batch * work.param_count) / c;
    let (mlp, mlp_verdict) = if flops >= param_load {
        (flops, Verdict::ComputeBound)
    } else {
        (param_load, Verdict::MemoryBound)
    };
    Ok(StepTime {
        batch: work.batch,
        chips: slice.tp,
        kv_load,
        param_load,
        flops,
        mlp,
        total: kv_load + mlp,
        mlp_verdict,
        attention_verdict: Verdict::MemoryBound,
    })
}

/// The theoretical minimum step time, everything memory-bound:
/// `(B·KV + P_bytes) / W_total` (Part 7).
pub fn min_step_time(work: &DecodeWorkload, slice: &ServingSlice) -> Seconds {
    work.memory() / slice.hbm_bandwidth()
}

/// The theoretical maximum throughput in tokens/s: `B·W / (B·KV + P)` (Part 7).
pub fn max_throughput(work: &DecodeWorkload, slice: &ServingSlice) -> f64 {
    work.batch / min_step_time(work, slice).0
}

// ---------------------------------------------------------------- component rooflines

/// Prefill (process a prompt) or decode (generate one token per sequence).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// All `seq` tokens of each prompt at once.
    Prefill,
    /// One new token per sequence against a cache of `seq` tokens.
    Decode,
}

/// A part of a layer with its own roofline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Component {
    /// The weight matmuls: MLP and attention projections.
    Linear,
    /// Dot-product attention against the KV cache.
    Attention,
}

impl Component {
    /// `MLP + projections` or `attention`.
    pub fn label(self) -> &'static str {
        match self {
            Component::Linear => "MLP + projections",
            Component::Attention => "attention",
        }
    }
}

/// One component of one layer on one chip, on the HBM roofline.
#[derive(Debug, Clone, PartialEq)]
pub struct ComponentRoofline {
    /// Which component.
    pub component: Component,
    /// FLOPs per layer.
    pub flops: Flops,
    /// HBM bytes per layer.
    pub bytes: Bytes,
    /// `flops / bytes`.
    pub intensity: Intensity,
    /// The chip's ridge for the compute format.
    pub ridge: Intensity,
    /// Times and verdict.
    pub analysis: Analysis,
}

impl ComponentRoofline {
    /// Compute- or memory-bound.
    pub fn verdict(&self) -> Verdict {
        self.analysis.verdict
    }
}

/// One weight matmul of a layer, `[tokens, d_in]·[d_in, d_out]`, applied
/// `copies` times per token (the active experts of an MoE layer).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LayerMatmul {
    /// The weight's name (`W_Q`, `W_in`, ...).
    pub name: &'static str,
    /// Contracting width.
    pub d_in: f64,
    /// Output width.
    pub d_out: f64,
    /// How many times each token passes through a matmul of this shape.
    pub copies: f64,
}

/// The weight matmuls of one layer of `cfg`: the attention projections (or
/// MLA's down- and up-projections) and the MLP (three matrices when gated,
/// two otherwise; the active routed plus shared experts of an MoE layer).
pub fn layer_matmuls(cfg: &ModelConfig) -> Vec<LayerMatmul> {
    let d = cfg.d_model as f64;
    let n = cfg.heads as f64;
    let mm = |name, d_in: f64, d_out: f64, copies: f64| LayerMatmul {
        name,
        d_in,
        d_out,
        copies,
    };
    let mut out = match cfg.mla {
        None => {
            let h = cfg.head_dim as f64;
            let k = cfg.kv_heads as f64;
            vec![
                mm("W_Q", d, n * h, 1.0),
                mm("W_K", d, k * h, 1.0),
                mm("W_V", d, k * h, 1.0),
                mm("W_O", n * h, d, 1.0),
            ]
        }
        Some(m) => {
            let qk = (m.nope_dim + m.rope_dim) as f64;
            let mut v = Vec::new();
            if m.q_rank > 0 {
                v.push(mm("W_DQ", d, m.q_rank as f64, 1.0));
                v.push(mm("W_UQ", m.q_rank as f64, n * qk, 1.0));
            } else {
                v.push(mm("W_Q", d, n * qk, 1.0));
            }
            v.push(mm("W_DKV", d, (m.kv_rank + m.rope_dim) as f64, 1.0));
            v.push(mm(
                "W_UKV",
                m.kv_rank as f64,
                n * (m.nope_dim + m.v_dim) as f64,
                1.0,
            ));
            v.push(mm("W_O", n * m.v_dim as f64, d, 1.0));
            v
        }
    };
    let (ff, copies) = match cfg.moe {
        None => (cfg.d_ff as f64, 1.0),
        Some(m) => (m.expert_ff as f64, (m.active + m.shared) as f64),
    };
    if cfg.gated {
        out.push(mm("W_gate", d, ff, copies));
    }
    out.push(mm("W_in", d, ff, copies));
    out.push(mm("W_out", ff, d, copies));
    out
}

/// The per-layer rooflines of the weight matmuls and of attention, for `batch`
/// sequences at context `seq`, on one (unsharded) chip.
///
/// The linear part counts `2·tokens·P_layer` FLOPs against the layer's weight
/// bytes plus, for every matmul of the layer, its input and output activations
/// (bf16), as Part 1's roofline does (`2BD + 2DF + 2BF` bytes for one
/// `[B, D]·[D, F]` matmul, see [`layer_matmuls`]). While the token batch is small
/// against `D` and `F` the weights dominate and it flips to compute-bound just
/// above [`critical_batch`] tokens; for a long prefill the intensity levels off
/// at `P_layer / Σ(in + out)`, which is `D·F/(D+F)` for a single matmul.
/// Attention reads Q and the
/// KV cache and writes its output: `4·B·T·S·N·H` FLOPs against
/// `kv·2·B·S·K·H + act·2·B·T·N·H` bytes, intensity `T·S·G/(S + T·G)` in bf16 —
/// about `G` while decoding, whatever the batch.
pub fn component_rooflines(
    model: &ServingModel,
    precision: Precision,
    chip: &'static Chip,
    phase: Phase,
    batch: f64,
    seq: f64,
) -> Result<[ComponentRoofline; 2], InferenceError> {
    let cfg = &model.config;
    let b = batch_ok(batch)?;
    let s = seq_ok(cfg, seq)?;
    let c = peak(chip, precision.compute)?;
    let w = chip.hbm_bw();
    let ridge = c / w;
    let t = match phase {
        Phase::Prefill => s,
        Phase::Decode => 1.0,
    };
    let layers = cfg.layers as f64;
    let active = active_params(cfg);
    let layer_params = ((active.attention + active.mlp + active.router) / layers).max(1.0);
    let act = Dtype::Bf16;
    let lin_flops = Flops(2.0 * b * t * layer_params);
    let act_per_token: f64 = layer_matmuls(cfg)
        .iter()
        .map(|m| m.copies * (m.d_in + m.d_out))
        .sum();
    let lin_bytes = precision.weights.size_of(layer_params) + act.size_of(b * t * act_per_token);
    let (qk_dim, v_dim, kv_elems) = match cfg.mla {
        None => {
            let h = cfg.head_dim as f64;
            (h, h, 2.0 * cfg.kv_heads as f64 * h)
        }
        Some(m) => (
            (m.kv_rank + m.rope_dim) as f64,
            m.kv_rank as f64,
            (m.kv_rank + m.rope_dim) as f64,
        ),
    };
    let n = cfg.heads as f64;
    let att_flops = Flops(2.0 * b * t * s * n * (qk_dim + v_dim));
    let att_bytes =
        precision.kv.size_of(b * s * kv_elems) + act.size_of(b * t * n * (qk_dim + v_dim));
    let make = |component, flops: Flops, bytes: Bytes| ComponentRoofline {
        component,
        flops,
        bytes,
        intensity: flops / bytes,
        ridge,
        analysis: Analysis::new(flops, c, &[(Link::Hbm, bytes, w)]),
    };
    Ok([
        make(Component::Linear, lin_flops, lin_bytes),
        make(Component::Attention, att_flops, att_bytes),
    ])
}

// ---------------------------------------------------------------- memory and batch

/// What one replica's HBM holds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MemoryUse {
    /// Weights.
    pub params: Bytes,
    /// KV caches of the batch.
    pub kv: Bytes,
    /// HBM of the replica's chips.
    pub capacity: Bytes,
}

impl MemoryUse {
    /// Weights plus KV caches.
    pub fn total(&self) -> Bytes {
        self.params + self.kv
    }

    /// Whether it all fits.
    pub fn fits(&self) -> bool {
        self.total() <= self.capacity
    }

    /// HBM left for KV caches once the weights are in (negative if they do not fit).
    pub fn free_for_kv(&self) -> Bytes {
        self.capacity - self.params
    }
}

/// Memory of `workload` on one replica of `slice`.
pub fn memory_use(work: &DecodeWorkload, slice: &ServingSlice) -> MemoryUse {
    MemoryUse {
        params: work.param_bytes,
        kv: work.kv_bytes(),
        capacity: slice.hbm_capacity(),
    }
}

/// The most sequences whose KV caches fit beside `param_bytes` of weights in
/// `capacity`: `floor((capacity − P) / KV_per_seq)`. Errors when the weights alone
/// do not fit; may be 0 when no whole sequence fits.
pub fn largest_batch(
    capacity: Bytes,
    param_bytes: Bytes,
    kv_per_seq: Bytes,
    chips: u64,
) -> Result<u64, InferenceError> {
    positive("HBM capacity", capacity.0)?;
    positive("parameter bytes", param_bytes.0)?;
    positive("KV bytes per sequence", kv_per_seq.0)?;
    if param_bytes > capacity {
        return Err(InferenceError::ModelDoesNotFit {
            params: param_bytes,
            capacity,
            chips,
        });
    }
    let b = ((capacity - param_bytes) / kv_per_seq).floor();
    Ok(b.min(MAX_BATCH) as u64)
}

/// The largest batch of `seq`-token sequences one replica of `slice` can hold.
pub fn max_batch(
    model: &ServingModel,
    precision: Precision,
    slice: &ServingSlice,
    seq: f64,
) -> Result<u64, InferenceError> {
    largest_batch(
        slice.hbm_capacity(),
        model.param_bytes(precision.weights),
        model.kv_per_sequence(seq, precision.kv)?,
        slice.tp,
    )
}

// ---------------------------------------------------------------- latency vs throughput

/// One point of the latency–throughput curve.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ParetoPoint {
    /// Sequences per replica.
    pub batch: f64,
    /// The step-time breakdown (its `total` is the per-token latency).
    pub step: StepTime,
    /// Tokens per second per chip.
    pub tokens_per_sec_per_chip: f64,
    /// Whether weights plus KV caches fit in the replica's HBM.
    pub fits: bool,
}

/// Batch sizes from 1 to `max`, about `points` of them spaced geometrically,
/// always including 1 and `max`.
pub fn batch_grid(max: u64, points: usize) -> Vec<u64> {
    let max = max.clamp(1, MAX_BATCH as u64);
    let points = points.clamp(2, 10_000);
    let mut out: Vec<u64> = Vec::with_capacity(points);
    let ln = (max as f64).ln();
    for i in 0..points {
        let b = (ln * i as f64 / (points - 1) as f64).exp().round() as u64;
        let b = b.clamp(1, max);
        if out.last() != Some(&b) {
            out.push(b);
        }
    }
    if out.last() != Some(&max) {
        out.push(max);
    }
    out
}

/// Latency and throughput at each of `batches` for `seq`-token contexts (Part 8's
/// Pareto plot). Points whose memory does not fit are kept and marked.
pub fn pareto(
    model: &ServingModel,
    precision: Precision,
    slice: &ServingSlice,
    seq: f64,
    batches: &[f64],
) -> Result<Vec<ParetoPoint>, InferenceError> {
    batches
        .iter()
        .map(|&b| {
            let work = model.workload(precision, b, seq)?;
            let step = decode_step(&work, slice, precision.compute)?;
            Ok(ParetoPoint {
                batch: work.batch,
                tokens_per_sec_per_chip: step.tokens_per_sec_per_chip(),
                step,
                fits: memory_use(&work, slice).fits(),
            })
        })
        .collect()
}

/// The curve the way the book draws it: batches from 1 up to the largest that fits
/// (about `points` of them). Errors when the weights alone do not fit or no
/// sequence of this length fits beside them.
pub fn pareto_series(
    model: &ServingModel,
    precision: Precision,
    slice: &ServingSlice,
    seq: f64,
    points: usize,
) -> Result<Vec<ParetoPoint>, InferenceError> {
    let max = max_batch(model, precision, slice, seq)?;
    if max == 0 {
        return Err(InferenceError::ModelDoesNotFit {
            params: model.param_bytes(precision.weights)
                + model.kv_per_sequence(seq, precision.kv)?,
            capacity: slice.hbm_capacity(),
            chips: slice.tp,
        });
    }
    let grid: Vec<f64> = batch_grid(max, points)
        .into_iter()
        .map(|b| b as f64)
        .collect();
    pareto(model, precision, slice, seq, &grid)
}

// ---------------------------------------------------------------- tensor parallelism over ICI

/// `W_hbm / W_ici` of a chip (the book's generation `β`, "around 8": 9.1 on a v5e).
pub fn hbm_ici_ratio(chip: &'static Chip) -> Result<f64, InferenceError> {
    Ok(chip.hbm_bw() / ici_bw(chip)?)
}

/// How far generation can be model-sharded before ICI outlasts weight loading:
/// `Y < F / (B·β)` with `β = W_hbm / W_ici` (Part 7).
pub fn decode_tp_limit(d_ff: f64, batch: f64, beta: f64) -> Result<f64, InferenceError> {
    let f = positive("d_ff (F)", d_ff)?;
    let b = batch_ok(batch)?;
    let beta = positive("W_hbm / W_ici", beta)?;
    computed("tensor-parallel limit F/(B·β)", f / (b * beta))
}

/// How far prefill (or large-batch decode) can be model-sharded over `axes` mesh
/// axes before it is ICI-bound: `axes · F / α_ici`, about `F/2200` on one v5e axis.
pub fn prefill_tp_limit(
    chip: &'static Chip,
    compute: Dtype,
    d_ff: f64,
    axes: f64,
) -> Result<f64, InferenceError> {
    let f = positive("d_ff (F)", d_ff)?;
    let axes = positive("mesh axes", axes)?;
    Ok(tp_max_degree(f, ici_intensity(chip, compute)?, axes))
}

/// One model-sharded matmul pair of a decode step on each chip (Part 8):
/// `T_ici = act·B·D / W_ici`, `T_hbm = w·D·F / (Y·W_hbm)`, `T_math = 2·B·D·F / (Y·C)`
/// (`2BD/W_ici` and `2DF/(Y·W_hbm)` in bf16).
pub fn tp_matmul(
    chip: &'static Chip,
    precision: Precision,
    batch: f64,
    d_model: f64,
    d_ff: f64,
    tp: u64,
) -> Result<Analysis, InferenceError> {
    let b = batch_ok(batch)?;
    let d = positive("d_model (D)", d_model)?;
    let f = positive("d_ff (F)", d_ff)?;
    if tp == 0 || tp > MAX_CHIPS {
        return Err(InferenceError::BadChipCount(tp));
    }
    let y = tp as f64;
    let c = peak(chip, precision.compute)?;
    Ok(Analysis::new(
        Flops(2.0 * b * d * f / y),
        c,
        &[
            (
                Link::Hbm,
                precision.weights.size_of(d * f / y),
                chip.hbm_bw(),
            ),
            (Link::Ici, precision.compute.size_of(b * d), ici_bw(chip)?),
        ],
    ))
}

/// The buffer size below which a collective over `shards` chips is latency-bound:
/// `shards × one-way W_ici × 1 µs` (Part 7 Appendix C: 360 kB for 8 shards on a v5e).
pub fn latency_bound_bytes(chip: &'static Chip, shards: u64) -> Result<Bytes, InferenceError> {
    if shards == 0 || shards > MAX_CHIPS {
        return Err(InferenceError::BadChipCount(shards));
    }
    Ok(Network::ici(chip)?.latency_threshold() * shards as f64)
}

/// Whether a collective of `bytes` over `shards` chips is latency-bound:
/// `(bytes / shards) / W_ici < 1 µs`.
pub fn is_latency_bound(
    chip: &'static Chip,
    bytes: Bytes,
    shards: u64,
) -> Result<bool, InferenceError> {
    positive("bytes", bytes.0)?;
    Ok(bytes < latency_bound_bytes(chip, shards)?)
}

/// One point of "latency versus chip count" for model-parallel decoding.
#[derive(Debug, Clone, PartialEq)]
pub struct TpScaling {
    /// Tensor-parallel degree `Y` (chips per replica).
    pub tp: u64,
    /// The step time on those chips (HBM and FLOPs only).
    pub step: StepTime,
    /// One MLP matmul's per-chip times: math, HBM, ICI.
    pub matmul: Analysis,
    /// `T_ici > T_hbm` for that matmul: more sharding no longer cuts latency.
    pub ici_bound: bool,
    /// The activation collectives are latency-bound (below 1 µs per hop); always
    /// `false` for chips without ICI (GPUs), whose hop latency the registry lacks.
    pub latency_bound: bool,
    /// Whether weights plus KV caches fit on `tp` chips.
    pub fits: bool,
}

/// Decode latency for each tensor-parallel degree in `degrees`, with the ICI checks
/// of Part 7: model sharding keeps helping while `Y < F/(B·β)`.
pub fn latency_vs_chips(
    model: &ServingModel,
    precision: Precision,
    chip: &'static Chip,
    batch: f64,
    seq: f64,
    degrees: &[u64],
) -> Result<Vec<TpScaling>, InferenceError> {
    let work = model.workload(precision, batch, seq)?;
    let cfg = &model.config;
    let ff = match cfg.moe {
        None => cfg.d_ff,
        Some(m) => m.expert_ff,
    } as f64;
    degrees
        .iter()
        .map(|&y| {
            let slice = ServingSlice::new(chip, y)?;
            let step = decode_step(&work, &slice, precision.compute)?;
            let matmul = tp_matmul(chip, precision, work.batch, cfg.d_model as f64, ff, y)?;
            let t_ici = matmul.t_comms(Link::Ici).unwrap_or(Seconds(0.0));
            let t_hbm = matmul.t_comms(Link::Hbm).unwrap_or(Seconds(0.0));
            let act = precision.compute.size_of(work.batch * cfg.d_model as f64);
            Ok(TpScaling {
                tp: y,
                step,
                ici_bound: t_ici > t_hbm,
                latency_bound: y > 1 && is_latency_bound(chip, act, y).unwrap_or(false),
                fits: memory_use(&work, &slice).fits(),
                matmul,
            })
        })
        .collect()
}

/// Communication time of 1D weight-stationary (Megatron) sharding of an MLP over
/// a 3D torus (Part 7 Q7): `2·act·B·D / (3·W_ici)`, the book's `4BD/(3W)` in bf16.
pub fn weight_stationary_1d(
    batch: f64,
    d_model: f64,
    act: Dtype,
    w_ici: BytesPerSec,
) -> Result<Seconds, InferenceError> {
    let b = batch_ok(batch)?;
    let d = positive("d_model (D)", d_model)?;
    positive("ICI bandwidth", w_ici.0)?;
    Ok(act.size_of(2.0 * b * d) / (w_ici * 3.0))
}

/// 2D weight-stationary sharding of an MLP over `chips = X·YZ` chips.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WeightStationary2d {
    /// Chips along the `D` sharding axis, `X = sqrt(N·D/(2F))` (`sqrt(N/8)` for
    /// `F = 4D`), held between 1 and `N`.
    pub x: f64,
    /// Chips along the `F` sharding axes, `N / X`.
    pub yz: f64,
    /// `act·B·D/(X·W) + 2·act·B·F/(YZ·W)` at that split.
    pub t_comms: Seconds,
}

/// The best 2D weight-stationary split and its comms time (Part 7 Q7): with
/// `F = 4D` and bf16, `sqrt(128)·B·D / (sqrt(N)·W_ici)`.
///
/// The unconstrained optimum `X = sqrt(N·D/(2F))` is below one chip when
/// `N < 2F/D` (fewer than 8 chips for `F = 4D`); no axis can have fewer than one
/// chip or more than `N`, so `X` is held in `[1, N]`. The time is convex in `X`,
/// so the held value is the best split that exists. Fewer than one chip, or
/// inputs whose time overflows or underflows, are errors.
pub fn weight_stationary_2d(
    batch: f64,
    d_model: f64,
    d_ff: f64,
    chips: f64,
    act: Dtype,
    w_ici: BytesPerSec,
) -> Result<WeightStationary2d, InferenceError> {
    let b = batch_ok(batch)?;
    let d = positive("d_model (D)", d_model)?;
    let f = positive("d_ff (F)", d_ff)?;
    let n = positive("chips", chips)?;
    if n < 1.0 {
        return Err(InferenceError::TooFewChips { chips: n });
    }
    positive("ICI bandwidth", w_ici.0)?;
    // `d / f` first: `n·d` or `2f` alone may overflow, and `inf / inf` is NaN.
    let x = (n * (d / f) / 2.0).sqrt().clamp(1.0, n);
    let yz = n / x;
    let t = act.size_of(b * d) / (w_ici * x) + act.size_of(2.0 * b * f) / (w_ici * yz);
    let t = computed("2D weight-stationary communication time", t.0)?;
    Ok(WeightStationary2d {
        x,
        yz,
        t_comms: Seconds(t),
    })
}

/// The chip count above which 2D weight-stationary sharding communicates less than
/// 1D: `N > 32·(F/D)·(3/4)²`, 72 for `F = 4D` (Part 7 Q7).
pub fn weight_stationary_crossover(d_model: f64, d_ff: f64) -> Result<f64, InferenceError> {
    let d = positive("d_model (D)", d_model)?;
    let f = positive("d_ff (F)", d_ff)?;
    Ok(32.0 * (f / d) * 0.75 * 0.75)
}

// ---------------------------------------------------------------- topology and cost

/// Chips whose HBM holds `bytes`, as a fraction: `bytes / HBM` (Part 8's "8.75").
pub fn chips_for_bytes(bytes: Bytes, chip: &'static Chip) -> Result<f64, InferenceError> {
    positive("bytes", bytes.0)?;
    Ok(bytes / chip.hbm_capacity.value)
}

/// The fewest whole chips that hold `bytes`: `ceil(bytes / HBM)`.
pub fn min_chips(bytes: Bytes, chip: &'static Chip) -> Result<u64, InferenceError> {
    let n = chips_for_bytes(bytes, chip)?.ceil();
    if n > MAX_CHIPS as f64 {
        return Err(InferenceError::BadChipCount(u64::MAX));
    }
    Ok(n as u64)
}

/// The smallest power-of-two slice that holds `bytes` (the book's
/// `2^ceil(log2(bytes / HBM))`: 4x4 for 140 GB on v5e).
pub fn min_slice_chips(bytes: Bytes, chip: &'static Chip) -> Result<u64, InferenceError> {
    let n = min_chips(bytes, chip)?;
    Ok(n.next_power_of_two())
}

/// A row of Part 8's minimum-topology table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MinTopologyRow {
    /// Format of weights and KV caches.
    pub dtype: Dtype,
    /// Weight bytes.
    pub param_bytes: Bytes,
    /// KV bytes per token.
    pub kv_per_token: Bytes,
    /// `param_bytes / HBM` as a fraction of a chip.
    pub min_chips: f64,
    /// The smallest power-of-two slice holding the weights.
    pub slice_chips: u64,
    /// HBM left for KV caches on that slice.
    pub free_hbm: Bytes,
    /// Whole KV caches of `seq` tokens that fit: the largest batch.
    pub kv_caches: u64,
}

/// Part 8's minimum-topology table: for each format (weights and KV caches both in
/// it), the fewest chips of `chip` that hold the weights and how many `seq`-token
/// KV caches fit beside them.
pub fn min_topology_table(
    model: &ServingModel,
    chip: &'static Chip,
    seq: f64,
    dtypes: &[Dtype],
) -> Result<Vec<MinTopologyRow>, InferenceError> {
    dtypes
        .iter()
        .map(|&dtype| {
            let param_bytes = model.param_bytes(dtype);
            let slice_chips = min_slice_chips(param_bytes, chip)?;
            let capacity = chip.hbm_capacity.value * slice_chips as f64;
            let kv_seq = model.kv_per_sequence(seq, dtype)?;
            Ok(MinTopologyRow {
                dtype,
                param_bytes,
                kv_per_token: model.kv_per_token(dtype),
                min_chips: chips_for_bytes(param_bytes, chip)?,
                slice_chips,
                free_hbm: capacity - param_bytes,
                kv_caches: largest_batch(capacity, param_bytes, kv_seq, slice_chips)?,
            })
        })
        .collect()
}

/// Queries per second per chip: `B / (T_step · decode_len · N)` (Part 8).
pub fn qps_per_chip(
    batch: f64,
    step: Seconds,
    decode_len: f64,
    chips: u64,
) -> Result<f64, InferenceError> {
    let b = batch_ok(batch)?;
    let t = positive("step time", step.0)?;
    let g = positive("decode length", decode_len)?;
    if chips == 0 || chips > MAX_CHIPS {
        return Err(InferenceError::BadChipCount(chips));
    }
    Ok(b / (t * g * chips as f64))
}

/// Time to decode `decode_len` tokens at `step` per token.
pub fn decode_time(step: Seconds, decode_len: f64) -> Result<Seconds, InferenceError> {
    positive("step time", step.0)?;
    Ok(step * positive("decode length", decode_len)?)
}

/// FLOPs per dollar of a chip in `dtype`: `C · 3600 / price per hour` (Part 8).
pub fn flops_per_dollar(chip: &'static Chip, dtype: Dtype) -> Result<f64, InferenceError> {
    let price = price_per_hour(chip.id).ok_or(InferenceError::NoPrice(chip.id))?;
    Ok(peak(chip, dtype)?.0 * 3600.0 / price.value)
}

// ---------------------------------------------------------------- prefill and serving engines

/// Time to prefill `tokens` tokens on one replica of `slice` at utilisation `mfu`:
/// `2·P·T / (N·C·MFU)` (Part 8: 0.91 s for 8k tokens of LLaMA 3-70B on 16 v5e at 40%).
pub fn prefill_time(
    model: &ServingModel,
    tokens: f64,
    slice: &ServingSlice,
    compute: Dtype,
    mfu: f64,
) -> Result<Seconds, InferenceError> {
    let flops = model.forward_flops(tokens)?;
    let mfu = fraction("MFU", mfu)?;
    let t = training_time(flops, slice.tp as f64, peak(slice.chip, compute)?, mfu)?;
    Ok(Seconds(computed("prefill time", t.0)?))
}

/// Prefill servers needed per decode server so both stay saturated:
/// from `P / t_prefill = B·G / (t_step · decode_len)` (Part 8: about 3).
pub fn prefill_decode_ratio(
    prefill: Seconds,
    step: Seconds,
    batch: f64,
    decode_len: f64,
) -> Result<f64, InferenceError> {
    let tp = positive("prefill time", prefill.0)?;
    let ts = positive("step time", step.0)?;
    let b = batch_ok(batch)?;
    let g = positive("decode length", decode_len)?;
    Ok(tp * b / (ts * g))
}

/// Sequences finishing per decode step with continuous batching: `B / G`.
pub fn finished_per_step(batch: f64, decode_len: f64) -> Result<f64, InferenceError> {
    Ok(batch_ok(batch)? / positive("decode length", decode_len)?)
}

/// KV-cache tokens freed per decode step: `B·(P + G)/G` for prompts of `P` and
/// generations of `G` tokens (Part 8).
pub fn tokens_evicted_per_step(
    batch: f64,
    prefill_len: f64,
    decode_len: f64,
) -> Result<f64, InferenceError> {
    let b = batch_ok(batch)?;
    let p = positive("prefill length", prefill_len)?;
    let g = positive("decode length", decode_len)?;
    Ok(b * (p + g) / g)
}

/// Expected tokens produced per big-model step by speculative decoding with `k`
/// drafted tokens, each accepted independently with probability `accept`:
/// `(1 − a^(k+1)) / (1 − a)` (Leviathan et al., cited in Part 7 Appendix D).
pub fn speculative_tokens_per_step(accept: f64, k: u32) -> Result<f64, InferenceError> {
    if !(accept.is_finite() && (0.0..=1.0).contains(&accept)) {
        return Err(InferenceError::BadFraction {
            field: "acceptance rate",
            value: accept,
        });
    }
    let k = k.min(10_000);
    if accept >= 1.0 {
        return Ok(k as f64 + 1.0);
    }
    Ok((1.0 - accept.powi(k as i32 + 1)) / (1.0 - accept))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hardware::chip;
    use proptest::prelude::*;

    fn v5e() -> &'static Chip {
        chip("v5e").unwrap()
    }

    #[test]
    fn critical_batches() {
        let c = |w, k| critical_batch(v5e(), w, k).unwrap().round();
        assert_eq!(c(Dtype::Bf16, Dtype::Bf16), 240.0);
        assert_eq!(c(Dtype::Int8, Dtype::Bf16), 120.0);
        assert_eq!(c(Dtype::Int8, Dtype::Int8), 240.0);
        assert_eq!(beta(Dtype::Int8, Dtype::Bf16), 0.5);
    }

    #[test]
    fn step_time_is_the_general_formula() {
        let w = DecodeWorkload::new(256.0, 30e9, Bytes(30e9), Bytes(819.2e6)).unwrap();
        let s = ServingSlice::new(v5e(), 16).unwrap();
        let t = decode_step(&w, &s, Dtype::Bf16).unwrap();
        let expect = 256.0 * 819.2e6 / (16.0 * 8.2e11) + 2.0 * 256.0 * 30e9 / (16.0 * 1.97e14);
        assert!((t.total.0 - expect).abs() < 1e-12);
        assert_eq!(t.mlp_verdict, Verdict::ComputeBound);
        assert!(min_step_time(&w, &s) <= t.total);
    }

    #[test]
    fn mlp_flips_at_the_critical_batch_while_attention_stays_memory_bound() {
        let m = ServingModel::preset("llama3-70b").unwrap();
        let p = Precision::BF16;
        let bc = critical_batch(v5e(), p.weights, p.compute).unwrap();
        let at = |b: f64| component_rooflines(&m, p, v5e(), Phase::Decode, b, 4096.0).unwrap();
        // Counting activations moves the flip a little above B_crit (within 10 %).
        let below = at(bc.floor() - 1.0);
        let above = at((bc * 1.1).ceil());
        assert_eq!(below[0].verdict(), Verdict::MemoryBound);
        assert_eq!(above[0].verdict(), Verdict::ComputeBound);
        for b in [1.0, 64.0, 240.0, 4096.0] {
            assert_eq!(at(b)[1].verdict(), Verdict::MemoryBound, "{b}");
            // GQA with G = 8: decode attention intensity is just under 8.
            assert!((at(b)[1].intensity.0 - 8.0).abs() < 0.1);
        }
        let pre = component_rooflines(&m, p, v5e(), Phase::Prefill, 1.0, 4096.0).unwrap();
        assert_eq!(pre[1].verdict(), Verdict::ComputeBound);
    }

    #[test]
    fn kv_variants() {
        let mut cfg = crate::model::config::model("llama2-13b").unwrap().config;
        let mha = kv_cache(&cfg, 4096.0, 1.0, Dtype::Bf16).unwrap();
        assert_eq!(mha.kind, AttentionKind::Mha);
        assert_eq!(mha.reduction(), 1.0);
        cfg.kv_heads = 8;
        let gqa = kv_cache(&cfg, 4096.0, 1.0, Dtype::Bf16).unwrap();
        assert_eq!(gqa.reduction(), 5.0);
        cfg.kv_heads = 1;
        assert_eq!(
            kv_cache(&cfg, 1.0, 1.0, Dtype::Int8).unwrap().kind,
            AttentionKind::Mqa
        );
        let ds = crate::model::config::model("deepseek-v3").unwrap().config;
        let mla = kv_cache(&ds, 1.0, 1.0, Dtype::Bf16).unwrap();
        assert!(matches!(mla.kind, AttentionKind::Mla { rank: 512 }));
        assert!(mla.reduction() > 50.0);
        assert!(matches!(
            kv_cache(&cfg, 1e6, 1.0, Dtype::Int8),
            Err(InferenceError::SequenceTooLong { .. })
        ));
    }

    #[test]
    fn impossible_configurations_are_errors() {
        let m = ServingModel::preset("llama3-70b").unwrap();
        let one = ServingSlice::new(v5e(), 1).unwrap();
        let e = max_batch(&m, Precision::BF16, &one, 1024.0).unwrap_err();
        assert!(e.to_string().contains("weights alone"), "{e}");
        assert!(pareto_series(&m, Precision::BF16, &one, 1024.0, 10).is_err());
        assert!(m.workload(Precision::BF16, 0.0, 10.0).is_err());
        assert!(m.workload(Precision::BF16, f64::NAN, 10.0).is_err());
        assert!(m.workload(Precision::BF16, 1.0, -3.0).is_err());
        assert!(ServingSlice::new(v5e(), 0).is_err());
        assert!(ServingSlice::new(v5e(), 16).unwrap().with_tp(3).is_err());
        assert!(flops_per_dollar(chip("b200").unwrap(), Dtype::Bf16).is_err());
        assert!(prefill_time(&m, 10.0, &one, Dtype::Bf16, 1.5).is_err());
        assert!(speculative_tokens_per_step(f64::NAN, 3).is_err());
    }

    #[test]
    fn pareto_series_rises_in_latency_and_throughput() {
        let m = ServingModel::preset("llama3-70b").unwrap();
        let s = ServingSlice::new(v5e(), 16).unwrap();
        let pts = pareto_series(&m, Precision::stored(Dtype::Int8), &s, 2048.0, 40).unwrap();
        assert!(pts.len() > 10);
        assert_eq!(pts[0].batch, 1.0);
        for w in pts.windows(2) {
            assert!(w[1].step.total >= w[0].step.total);
            assert!(w[1].tokens_per_sec_per_chip >= w[0].tokens_per_sec_per_chip * (1.0 - 1e-12));
            assert!(w[1].fits);
        }
        assert_eq!(batch_grid(1, 5), vec![1]);
        assert_eq!(batch_grid(8, 4), vec![1, 2, 4, 8]);
    }

    #[test]
    fn speculative_decoding() {
        assert_eq!(speculative_tokens_per_step(0.0, 4).unwrap(), 1.0);
        assert_eq!(speculative_tokens_per_step(1.0, 4).unwrap(), 5.0);
        let e = speculative_tokens_per_step(0.8, 4).unwrap();
        assert!((e - (1.0 - 0.8f64.powi(5)) / 0.2).abs() < 1e-12);
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
mod activation_tests {
    use super::*;
    use crate::hardware::chip;
    use crate::roofline::ops::Op;

    fn linear(batch: f64, seq: f64) -> ComponentRoofline {
        let m = ServingModel::preset("llama3-70b").unwrap();
        let v5e = chip("v5e").unwrap();
        let [lin, _] =
            component_rooflines(&m, Precision::BF16, v5e, Phase::Prefill, batch, seq).unwrap();
        lin
    }

    #[test]
    fn prefill_intensity_counts_activations_like_part_1() {
        // The book's W_in of LLaMA 3-70B at T = 4096: about 2,500 FLOPs per byte.
        let w_in = Op::Matmul {
            b: 4096.0,
            d: 8192.0,
            f: 28672.0,
            act: Dtype::Bf16,
            weight: Dtype::Bf16,
        };
        assert!((w_in.intensity().0 - 2493.0).abs() < 1.0);
        let one = linear(1.0, 4096.0);
        assert!(
            one.intensity.0 > 1500.0 && one.intensity.0 < w_in.intensity().0,
            "{}",
            one.intensity.0
        );
        // The layer's FLOPs and bytes are the sums of Part 1's matmuls.
        let cfg = &ServingModel::preset("llama3-70b").unwrap().config;
        let (mut flops, mut bytes) = (0.0, 0.0);
        for mm in layer_matmuls(cfg) {
            let op = Op::Matmul {
                b: 4096.0,
                d: mm.d_in,
                f: mm.d_out,
                act: Dtype::Bf16,
                weight: Dtype::Bf16,
            };
            flops += mm.copies * op.flops().0;
            bytes += mm.copies * op.hbm_bytes().0;
        }
        assert!((one.flops.0 / flops - 1.0).abs() < 1e-3);
        assert!((one.bytes.0 / bytes - 1.0).abs() < 1e-3);
        // 512 prompts of 4096 tokens: bounded by the layer's limit, far below 2.1e6.
        let big = linear(512.0, 4096.0);
        let per_token: f64 = layer_matmuls(cfg)
            .iter()
            .map(|m| m.copies * (m.d_in + m.d_out))
            .sum();
        let weights: f64 = layer_matmuls(cfg)
            .iter()
            .map(|m| m.copies * m.d_in * m.d_out)
            .sum();
        let limit = weights / per_token;
        assert!(big.intensity.0 < limit && big.intensity.0 > 0.99 * limit);
        assert!(limit < 8192.0 * 28672.0 / (8192.0 + 28672.0));
    }
}

#[cfg(test)]
mod degenerate_tests {
    use super::*;
    use crate::hardware::chip;
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
    fn two_d_split_needs_a_chip_and_holds_x_between_one_and_n() {
        let w = BytesPerSec(9e10);
        let ws = |n: f64| weight_stationary_2d(16.0, 8192.0, 32768.0, n, Dtype::Bf16, w);
        for n in [0.0, 0.5, 1e-320, -3.0, f64::NAN] {
            let e = ws(n).unwrap_err();
            assert!(!e.to_string().is_empty(), "{n}: {e:?}");
        }
        assert_eq!(
            ws(0.5).unwrap_err(),
            InferenceError::TooFewChips { chips: 0.5 }
        );
        // Below 2F/D = 8 chips the optimum X would be under one chip: X is held at 1.
        let four = ws(4.0).unwrap();
        assert_eq!((four.x, four.yz), (1.0, 4.0));
        let expect = 2.0 * 16.0 * 8192.0 / 9e10 + 4.0 * 16.0 * 32768.0 / (4.0 * 9e10);
        assert!((four.t_comms.0 - expect).abs() < 1e-15);
        // At 8 chips and above the book's X = sqrt(N/8).
        assert_eq!(ws(8.0).unwrap().x, 1.0);
        assert!((ws(512.0).unwrap().x - 8.0).abs() < 1e-12);
        // F far below D would put X above N: it is held at N.
        let wide = weight_stationary_2d(16.0, 8192.0, 1.0, 4.0, Dtype::Bf16, w).unwrap();
        assert_eq!((wide.x, wide.yz), (4.0, 1.0));
    }

    #[test]
    fn overflowing_inputs_are_errors_not_infinities() {
        let tiny = BytesPerSec(1e-320);
        let e = weight_stationary_2d(16.0, 8192.0, 32768.0, 64.0, Dtype::Bf16, tiny).unwrap_err();
        assert!(matches!(e, InferenceError::OutOfRange { .. }), "{e:?}");
        assert!(e.to_string().contains("communication time"));
        let e = decode_tp_limit(1e300, 1.0, 1e-300).unwrap_err();
        assert!(matches!(e, InferenceError::OutOfRange { .. }), "{e:?}");
        assert!(decode_tp_limit(1e-300, 1e6, 1e300).is_err());
        assert!(decode_tp_limit(0.0, 8.0, 9.0).is_err());
        assert_eq!(decode_tp_limit(28672.0, 64.0, 8.0).unwrap(), 56.0);
        let m = ServingModel::preset("llama3-70b").unwrap();
        let s = ServingSlice::new(v5e(), 16).unwrap();
        let e = prefill_time(&m, 8192.0, &s, Dtype::Bf16, 1e-320).unwrap_err();
        assert!(e.to_string().contains("prefill time"), "{e}");
        assert!(prefill_time(&m, 0.0, &s, Dtype::Bf16, 0.4).is_err());
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
