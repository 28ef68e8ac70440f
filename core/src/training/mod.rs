//! Parallel training on a roofline (Parts 5 and 6): how long each layer spends on
//! FLOPs and on collectives under data parallelism, FSDP, tensor parallelism,
//! their mix, pipelining and pure data parallelism across pods, and what that
//! means for step time, MFU, memory and days to train.
//!
//! The per-layer model is the book's: a layer is `In[B, D] · W_in[D, F] · W_out[F, D]`,
//! attention and the gating matrix are ignored (the gate behaves like `W_in`; set
//! [`Job::count_gate`] to include it). `B` is the global batch **in tokens**; sequence
//! (context) parallelism is data parallelism as far as the MLP is concerned. Using
//! `M` mesh axes for a collective multiplies its bandwidth by `M`. Collectives in the
//! same pass overlap each other and the pass's FLOPs (lower bound: the maximum);
//! the upper bound adds everything up.
//!
//! ```
//! use ridgeline_core::hardware::chip;
//! use ridgeline_core::model::config::model;
//! use ridgeline_core::roofline::Verdict;
//! use ridgeline_core::training::{evaluate, Cluster, Job, Parallelism};
//!
//! // LLaMA 3-70B, a 4M-token batch, a full TPU v5p pod (Part 6).
//! let job = Job::new(model("llama3-70b").unwrap().config, 4194304.0, 4096.0).unwrap();
//! let pod = Cluster::full_pod(chip("v5p").unwrap(), 1).unwrap();
//! let fsdp = evaluate(&job, &pod, &Parallelism::fsdp(8960, 3)).unwrap();
//! assert_eq!(fsdp.tokens_per_chip.round(), 468.0);
//! assert_eq!(fsdp.verdict, Verdict::CommunicationBound); // needs 850
//! let mixed = evaluate(&job, &pod, &Parallelism::fsdp_tensor(2240, 4, 2, 1)).unwrap();
//! assert_eq!(mixed.verdict, Verdict::ComputeBound);
//! ```
//!
//! ## Files
//!
//! | file | what |
//! |---|---|
//! | `mod.rs` | the strategies' closed forms (critical batch per strategy), ZeRO, clusters, jobs, per-layer costs and the evaluation of a training plan |
//! | `layout.rs` | how each strategy cuts the arrays of one MLP block, and which collective runs where in the forward and backward passes |
//! | `pipeline.rs` | pipeline schedules (GPipe, 1F1B) as timelines, and the bubble |

pub mod layout;
pub mod pipeline;

use crate::dtype::Dtype;
use crate::hardware::{Chip, Link, Topology};
use crate::model::accounting::{self, Optimizer, Remat, TrainingMemory};
use crate::model::config::{positive, ModelConfig, ModelError};
use crate::roofline::Verdict;
use crate::units::{Bytes, BytesPerSec, Flops, FlopsPerSec, Intensity, Seconds};
use std::fmt;

/// Seconds in a day.
pub const DAY: f64 = 86_400.0;
/// Seconds in a (Julian) year.
pub const YEAR: f64 = 365.25 * DAY;
/// The most pods (ICI slices) a cluster may join over the data-centre network.
pub const MAX_SLICES: u32 = 100_000;

// ---------------------------------------------------------------- errors

/// Why a training configuration cannot be analysed.
#[derive(Debug, Clone, PartialEq)]
pub enum TrainingError {
    /// The model or a size is invalid.
    Model(ModelError),
    /// The mesh is larger than the chip's largest ICI slice.
    MeshTooLarge {
        /// The chip.
        chip: &'static str,
        /// Chips requested in one slice.
        chips: f64,
        /// The most one slice can hold.
        max: f64,
    },
    /// One mesh axis is longer than any axis of the chip's largest slice.
    AxisTooLong {
        /// The chip.
        chip: &'static str,
        /// The axis length requested.
        axis: u32,
        /// The longest axis available.
        max: u32,
    },
    /// A mesh has zero chips along an axis, or too many axes.
    BadMesh(String),
    /// The chip lacks a link or a peak the analysis needs.
    Missing {
        /// The chip.
        chip: &'static str,
        /// What is missing.
        what: &'static str,
    },
    /// The parallelism degrees do not multiply to the slice's chip count.
    DegreesDontMatch {
        /// `data · fsdp · tensor · pipeline`.
        product: u64,
        /// Chips per slice.
        chips: u64,
    },
    /// The mesh axes given to the strategies are impossible.
    BadAxes {
        /// Axes for data/FSDP (`M_X`).
        data: u8,
        /// Axes for tensor parallelism (`M_Y`).
        tensor: u8,
        /// Axes the mesh has.
        available: u8,
    },
    /// The batch cannot be split over that many data shards.
    BatchTooSmall {
        /// Tokens (or microbatch tokens) to split.
        tokens: f64,
        /// Shards to split them over.
        shards: f64,
    },
    /// More data shards than sequences, with sequence sharding switched off.
    SequenceShardingRequired {
        /// Data shards (`data · fsdp · pods`).
        shards: f64,
        /// Sequences in the batch.
        sequences: f64,
    },
    /// A sequence is longer than the whole batch.
    SequenceLongerThanBatch {
        /// Sequence length.
        seq: f64,
        /// Batch in tokens.
        batch: f64,
    },
    /// Tensor parallelism wider than the model has heads.
    TensorExceedsHeads {
        /// Tensor-parallel degree.
        tensor: u32,
        /// Query heads.
        heads: u64,
    },
    /// More pipeline stages than layers.
    PipelineExceedsLayers {
        /// Stages.
        stages: u32,
        /// Layers.
        layers: u64,
    },
    /// A utilisation outside (0, 1].
    BadMfu(f64),
    /// No strategy fits the model in memory.
    NothingFits {
        /// The smallest per-chip footprint among the strategies tried.
        smallest: Bytes,
        /// HBM per chip.
        hbm: Bytes,
    },
}

impl fmt::Display for TrainingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TrainingError::Model(e) => e.fmt(f),
            TrainingError::MeshTooLarge { chip, chips, max } => write!(
                f,
                "{chips} chips is more than the largest {chip} slice ({max} chips); \
                 join slices over the data-centre network instead"
            ),
            TrainingError::AxisTooLong { chip, axis, max } => write!(
                f,
                "a mesh axis of {axis} chips is longer than any {chip} axis (at most {max})"
            ),
            TrainingError::BadMesh(why) => f.write_str(why),
            TrainingError::Missing { chip, what } => write!(f, "{chip} has no {what}"),
            TrainingError::DegreesDontMatch { product, chips } => write!(
                f,
                "data × FSDP × tensor × pipeline = {product}, but each slice has {chips} chips"
            ),
            TrainingError::BadAxes {
                data,
                tensor,
                available,
            } => write!(
                f,
                "{data} mesh axes for data/FSDP and {tensor} for tensor parallelism \
                 do not fit a mesh with {available}"
            ),
            TrainingError::BatchTooSmall { tokens, shards } => write!(
                f,
                "{tokens} tokens cannot be split over {shards} data shards \
                 (less than one token each)"
            ),
            TrainingError::SequenceShardingRequired { shards, sequences } => write!(
                f,
                "{shards} data shards but only {sequences} sequences: \
                 this needs sequence (context) parallelism"
            ),
            TrainingError::SequenceLongerThanBatch { seq, batch } => write!(
                f,
                "a {seq}-token sequence does not fit in a {batch}-token batch"
            ),
            TrainingError::TensorExceedsHeads { tensor, heads } => write!(
                f,
                "{tensor}-way tensor parallelism is wider than the model's {heads} heads"
            ),
            TrainingError::PipelineExceedsLayers { stages, layers } => {
                write!(f, "{stages} pipeline stages for only {layers} layers")
            }
            TrainingError::BadMfu(m) => {
                write!(f, "utilisation must be in (0, 1], got {m}")
            }
            TrainingError::NothingFits { smallest, hbm } => write!(
                f,
                "no strategy fits: the smallest footprint is {:.3e} bytes per chip \
                 against {:.3e} bytes of HBM",
                smallest.0, hbm.0
            ),
        }
    }
}

impl std::error::Error for TrainingError {}

impl From<ModelError> for TrainingError {
    fn from(e: ModelError) -> Self {
        TrainingError::Model(e)
    }
}

fn missing(chip: &Chip, what: &'static str) -> TrainingError {
    TrainingError::Missing {
        chip: chip.id,
        what,
    }
}

// ---------------------------------------------------------------- closed forms

/// The ICI (or NVLink) intensity `α = C / W` of a chip: 2550 for a v5p in bf16.
pub fn ici_intensity(chip: &Chip, dtype: Dtype) -> Result<Intensity, TrainingError> {
    let c = chip
        .peak(dtype)
        .ok_or_else(|| missing(chip, "peak for that format"))?;
    let w = chip
        .interconnect()
        .ok_or_else(|| missing(chip, "chip-to-chip link"))?
        .bandwidth;
    Ok(c / w)
}

/// The data-centre-network intensity `C / W_dcn` (scale-out network on GPUs): the
/// minimum tokens per ICI slice for pure data parallelism across slices.
pub fn dcn_intensity(chip: &Chip, dtype: Dtype) -> Result<Intensity, TrainingError> {
    let c = chip
        .peak(dtype)
        .ok_or_else(|| missing(chip, "peak for that format"))?;
    let (_, w) = cross_slice_link(chip)?;
    Ok(c / w)
}

fn cross_slice_link(chip: &Chip) -> Result<(Link, BytesPerSec), TrainingError> {
    chip.bandwidth(Link::Dcn)
        .map(|w| (Link::Dcn, w))
        .or_else(|| chip.bandwidth(Link::ScaleOut).map(|w| (Link::ScaleOut, w)))
        .ok_or_else(|| missing(chip, "data-centre or scale-out network bandwidth"))
}

/// Data parallelism and FSDP are compute-bound iff the tokens per chip exceed
/// `α / M_X` (2550 on one v5p axis, 850 on three).
pub fn dp_critical_tokens_per_chip(alpha: Intensity, axes: f64) -> f64 {
    alpha.0 / axes
}

/// Tensor parallelism is compute-bound iff `Y < M_Y · F / α` (Part 5).
pub fn tp_max_degree(d_ff: f64, alpha: Intensity, axes: f64) -> f64 {
    axes * d_ff / alpha.0
}

/// The smallest `F` for which `Y`-way tensor parallelism is compute-bound: `Y · α / M_Y`.
pub fn tp_min_d_ff(degree: f64, alpha: Intensity, axes: f64) -> f64 {
    degree * alpha.0 / axes
}

/// Mixed FSDP + tensor parallelism is compute-bound iff tokens per chip exceed
/// `α² / (M_X · M_Y · F)` (about 100 on a v5p) — **when the split is re-chosen for
/// each batch** (`X = X_opt`). This is the lowest threshold any split reaches; a
/// fixed split has the higher threshold of
/// [`fsdp_tp_split_critical_tokens_per_chip`].
pub fn fsdp_tp_critical_tokens_per_chip(alpha: Intensity, d_ff: f64, m_x: f64, m_y: f64) -> f64 {
    alpha.0 * alpha.0 / (m_x * m_y * d_ff)
}

/// The threshold of one **fixed** FSDP × tensor split: its FSDP gathers are hidden
/// once the tokens per chip exceed `α / (M_X · Y)` (the weights each chip gathers
/// shrink with `Y`), provided its tensor collectives are hidden too, `Y < M_Y · F / α`
/// (otherwise it is never compute-bound and this returns `None`). On a 4096-chip v5p
/// mesh with a 1M-token batch the split nearest `X_opt` is 512 × 8, whose threshold
/// is `α/16 ≈ 159` tokens per chip; re-choosing the split as the batch shrinks brings
/// the threshold down to `α² / (M_X · M_Y · F) ≈ 113`.
pub fn fsdp_tp_split_critical_tokens_per_chip(
    alpha: Intensity,
    tensor: f64,
    d_ff: f64,
    m_x: f64,
    m_y: f64,
) -> Option<f64> {
    (tensor < tp_max_degree(d_ff, alpha, m_y)).then(|| alpha.0 / (m_x * tensor))
}

/// The FSDP degree that minimises communication in mixed FSDP + tensor parallelism,
/// `X_opt = sqrt((B/F) · (M_X/M_Y) · N)`; the tensor degree is `N / X_opt`.
pub fn optimal_fsdp(batch: f64, d_ff: f64, chips: f64, m_x: f64, m_y: f64) -> f64 {
    (batch / d_ff * m_x / m_y * chips).sqrt()
}

/// How many chips a batch can spread over before falling below a per-chip threshold.
pub fn max_chips(batch: f64, critical_tokens_per_chip: f64) -> f64 {
    batch / critical_tokens_per_chip
}

/// The fraction of a GPipe-style step lost to the pipeline bubble:
/// `(P − 1) / (M + P − 1)` for `P` stages and `M` microbatches.
pub fn pipeline_bubble(stages: f64, microbatches: f64) -> Result<f64, TrainingError> {
    let p = positive("pipeline stages", stages)?;
    let m = positive("microbatches", microbatches)?;
    Ok((p - 1.0) / (m + p - 1.0))
}

fn check_mfu(mfu: f64) -> Result<f64, TrainingError> {
    if mfu.is_finite() && mfu > 0.0 && mfu <= 1.0 {
        Ok(mfu)
    } else {
        Err(TrainingError::BadMfu(mfu))
    }
}

/// Wall-clock time to perform `flops` on `chips` chips of peak `peak` at utilisation
/// `mfu`: `FLOPs / (chips · C · MFU)` (Part 6: 6.3e24 on 8960 v5p at 40% ≈ 44 days).
pub fn training_time(
    flops: Flops,
    chips: f64,
    peak: FlopsPerSec,
    mfu: f64,
) -> Result<Seconds, TrainingError> {
    let chips = positive("chips", chips)?;
    let mfu = check_mfu(mfu)?;
    positive("FLOPs", flops.0)?;
    positive("peak FLOPs/s", peak.0)?;
    Ok(flops / (peak * (chips * mfu)))
}

/// FLOPs available from `chip_hours` of a chip with peak `peak`.
pub fn available_flops(chip_hours: f64, peak: FlopsPerSec) -> Flops {
    Flops(chip_hours * 3600.0 * peak.0)
}

/// The chips needed just to hold `total` bytes, `ceil(total / HBM)`.
pub fn min_chips_for_memory(total: Bytes, hbm: Bytes) -> Result<f64, TrainingError> {
    positive("memory", total.0)?;
    positive("HBM per chip", hbm.0)?;
    Ok((total / hbm).ceil())
}

/// The same work on a different number of chips at the same efficiency.
pub fn scale_time(time: Seconds, from_chips: f64, to_chips: f64) -> Seconds {
    time * (from_chips / to_chips)
}

/// Cost and duration of a training run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunEstimate {
    /// Total FLOPs.
    pub flops: Flops,
    /// Wall-clock time.
    pub time: Seconds,
    /// Chips used.
    pub chips: f64,
}

impl RunEstimate {
    /// Wall-clock days.
    pub fn days(&self) -> f64 {
        self.time.0 / DAY
    }

    /// Chip-hours.
    pub fn chip_hours(&self) -> f64 {
        self.time.0 * self.chips / 3600.0
    }
}

/// Runs `6 · params · tokens` on `chips` chips of `peak` at `mfu`.
pub fn estimate_run(
    params: f64,
    tokens: f64,
    chips: f64,
    peak: FlopsPerSec,
    mfu: f64,
) -> Result<RunEstimate, TrainingError> {
    positive("parameters", params)?;
    positive("training tokens", tokens)?;
    let flops = accounting::training_flops_rule(params, tokens);
    Ok(RunEstimate {
        flops,
        time: training_time(flops, chips, peak, mfu)?,
        chips,
    })
}

/// Part 6's run assumptions: what the book assumes about the LLaMA 3-70B run, as
/// planner inputs with their defaults. Every number a page states about the run
/// comes from [`RunAssumptions::BOOK`] (or from a reader's change to it).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunAssumptions {
    /// The model preset's id.
    pub model: &'static str,
    /// The chip's id.
    pub chip: &'static str,
    /// Training tokens.
    pub tokens: f64,
    /// Model FLOPs utilisation, a fraction.
    pub mfu: f64,
    /// Sequences per batch.
    pub sequences: f64,
    /// Tokens per sequence.
    pub seq_len: f64,
    /// Full pods joined over the data-centre network.
    pub pods: u32,
}

impl RunAssumptions {
    /// The book's run (Part 6): LLaMA 3-70B on 15T tokens, a batch of 1024 sequences
    /// of 4096 tokens, 40% MFU on one full TPU v5p pod.
    pub const BOOK: RunAssumptions = RunAssumptions {
        model: "llama3-70b",
        chip: "v5p",
        tokens: 15e12,
        mfu: 0.4,
        sequences: 1024.0,
        seq_len: 4096.0,
        pods: 1,
    };

    /// Tokens per batch.
    pub fn batch_tokens(&self) -> f64 {
        self.sequences * self.seq_len
    }

    /// Checks every field; the message names the bad one.
    pub fn validate(&self) -> Result<(), String> {
        if crate::model::config::model(self.model).is_none() {
            return Err(format!("model: no preset is called {:?}", self.model));
        }
        if crate::hardware::chip(self.chip).is_none() {
            return Err(format!("chip: no chip is called {:?}", self.chip));
        }
        for (name, v) in [
            ("tokens", self.tokens),
            ("sequences", self.sequences),
            ("seq_len", self.seq_len),
        ] {
            if !(v.is_finite() && v >= 1.0) {
                return Err(format!("{name}: at least 1"));
            }
        }
        check_mfu(self.mfu).map_err(|e| format!("mfu: {e}"))?;
        if !(1..=MAX_SLICES).contains(&self.pods) {
            return Err(format!("pods: between 1 and {MAX_SLICES}"));
        }
        Ok(())
    }

    /// The run on full pods: `6 · params · tokens` at the assumed MFU.
    pub fn estimate(&self) -> Result<RunEstimate, String> {
        self.validate()?;
        let m = crate::model::config::model(self.model).ok_or("model: unknown")?;
        let c = crate::hardware::chip(self.chip).ok_or("chip: unknown")?;
        let cluster = Cluster::full_pod(c, self.pods).map_err(|e| format!("chip: {e}"))?;
        let peak = c.peak(Dtype::Bf16).ok_or("chip: no bf16 peak")?;
        estimate_run(
            accounting::params(&m.config).total(),
            self.tokens,
            cluster.chips(),
            peak,
            self.mfu,
        )
        .map_err(|e| e.to_string())
    }
}

// ---------------------------------------------------------------- ZeRO

/// How much of the training state data-parallel chips split among themselves
/// (ZeRO, Rajbhandari et al.; the book's FSDP is stage 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ZeroStage {
    /// Every chip holds everything (plain data parallelism).
    None,
    /// Optimizer state (moments and master copy) split.
    One,
    /// Optimizer state and gradients split.
    Two,
    /// Optimizer state, gradients and parameters split (FSDP).
    Three,
}

impl ZeroStage {
    /// Every stage.
    pub const ALL: [ZeroStage; 4] = [
        ZeroStage::None,
        ZeroStage::One,
        ZeroStage::Two,
        ZeroStage::Three,
    ];

    /// The stage's number, as used in URLs and directives (`0` is plain data
    /// parallelism).
    pub fn number(self) -> u8 {
        match self {
            ZeroStage::None => 0,
            ZeroStage::One => 1,
            ZeroStage::Two => 2,
            ZeroStage::Three => 3,
        }
    }

    /// A reader's label: `ZeRO-2`, or `none (data parallel)`.
    pub fn label(self) -> &'static str {
        match self {
            ZeroStage::None => "none (data parallel)",
            ZeroStage::One => "ZeRO-1",
            ZeroStage::Two => "ZeRO-2",
            ZeroStage::Three => "ZeRO-3 (FSDP)",
        }
    }

    /// Parses [`ZeroStage::number`].
    pub fn parse(text: &str) -> Result<ZeroStage, String> {
        ZeroStage::ALL
            .into_iter()
            .find(|s| s.number().to_string() == text.trim())
            .ok_or_else(|| format!("stage: {text:?} is not one of 0, 1, 2, 3"))
    }
}

/// Memory per chip and gradient traffic of one ZeRO stage.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ZeroCost {
    /// The stage.
    pub stage: ZeroStage,
    /// State per chip (no activations).
    pub memory: TrainingMemory,
    /// The book's `V` summed over the step's collectives: an AllReduce of the
    /// gradients (twice their size) for stages 0–2 (stages 1–2 do it as a
    /// ReduceScatter plus an AllGather of the updated parameters), and for stage 3
    /// two AllGathers of the parameters and a ReduceScatter of the gradients.
    pub comms_bytes: Bytes,
}

/// Every ZeRO stage for `params` parameters stored per `optimizer` over `shards`
/// data-parallel chips (gradients are counted in the parameters' format when the
/// optimizer does not store them).
pub fn zero_stages(
    params: f64,
    optimizer: Optimizer,
    shards: f64,
) -> Result<Vec<ZeroCost>, String> {
    positive("params", params).map_err(|e| format!("params: {e}"))?;
    positive("shards", shards).map_err(|e| format!("shards: {e}"))?;
    let grads = optimizer.grads.unwrap_or(optimizer.params);
    let full = TrainingMemory {
        grads: grads.size_of(params),
        ..accounting::state_memory(params, optimizer, Bytes(0.0))
    };
    let gradient_bytes = grads.size_of(params);
    let param_bytes = optimizer.params.size_of(params);
    Ok(ZeroStage::ALL
        .into_iter()
        .map(|stage| {
            let split = |on: bool, b: Bytes| if on { b / shards } else { b };
            let memory = TrainingMemory {
                optimizer: split(stage != ZeroStage::None, full.optimizer),
                grads: split(
                    matches!(stage, ZeroStage::Two | ZeroStage::Three),
                    full.grads,
                ),
                params: split(stage == ZeroStage::Three, full.params),
                activations: Bytes(0.0),
            };
            let comms_bytes = match stage {
                ZeroStage::Three => param_bytes * 2.0 + gradient_bytes,
                _ => gradient_bytes * 2.0,
            };
            ZeroCost {
                stage,
                memory,
                comms_bytes,
            }
        })
        .collect())
}

// ---------------------------------------------------------------- clusters

/// Chips joined by ICI into slices, and slices joined by the data-centre network.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cluster {
    /// The chip.
    pub chip: &'static Chip,
    /// Chips in one ICI slice (one NVLink domain on GPUs).
    pub chips_per_slice: u32,
    /// Mesh axes of the slice (3 for a v5p cube, 2 for a v5e, 1 for an NVLink domain).
    pub axes: u8,
    /// Slices joined over the data-centre (or scale-out) network.
    pub slices: u32,
}

/// The largest slice a chip supports: (chips, longest axis, axes).
fn slice_limits(chip: &Chip) -> (u64, u32, u8) {
    match chip.topology {
        Topology::Torus {
            dims, max_slice, ..
        } => (
            max_slice.iter().map(|&a| a as u64).product(),
            max_slice.iter().copied().max().unwrap_or(1),
            dims,
        ),
        Topology::NvlinkDomain { gpus, .. } => (gpus as u64, gpus, 1),
    }
}

impl Cluster {
    /// A slice of the given shape (`[16, 20, 28]`, `[16, 16]`, `[8]`), repeated `slices`
    /// times; checked against the chip's largest slice from the registry.
    pub fn new(chip: &'static Chip, shape: &[u32], slices: u32) -> Result<Cluster, TrainingError> {
        let (max_chips, max_axis, dims) = slice_limits(chip);
        if shape.is_empty() || shape.len() > dims.max(1) as usize {
            return Err(TrainingError::BadMesh(format!(
                "a {} mesh has 1 to {} axes, got {}",
                chip.id,
                dims,
                shape.len()
            )));
        }
        if let Some(i) = shape.iter().position(|&a| a == 0) {
            return Err(TrainingError::BadMesh(format!(
                "mesh axis {} has no chips",
                i + 1
            )));
        }
        if let Some(&axis) = shape.iter().find(|&&a| a > max_axis) {
            return Err(TrainingError::AxisTooLong {
                chip: chip.id,
                axis,
                max: max_axis,
            });
        }
        let chips: u64 = shape.iter().map(|&a| a as u64).product();
        let axes = shape.iter().filter(|&&a| a > 1).count().max(1) as u8;
        Cluster::checked(chip, chips, max_chips, axes, slices)
    }

    /// `chips` chips per slice spanning `axes` mesh axes, when the exact shape does not matter.
    pub fn with_chips(
        chip: &'static Chip,
        chips: u32,
        axes: u8,
        slices: u32,
    ) -> Result<Cluster, TrainingError> {
        let (max_chips, _, dims) = slice_limits(chip);
        if chips == 0 {
            return Err(TrainingError::BadMesh(
                "a slice needs at least one chip".into(),
            ));
        }
        if axes == 0 || axes > dims.max(1) {
            return Err(TrainingError::BadMesh(format!(
                "a {} mesh has 1 to {} axes, got {}",
                chip.id, dims, axes
            )));
        }
        Cluster::checked(chip, chips as u64, max_chips, axes, slices)
    }

    /// Full pods (the largest slice: 16×20×28 = 8960 v5p chips), `slices` of them.
    pub fn full_pod(chip: &'static Chip, slices: u32) -> Result<Cluster, TrainingError> {
        let (max_chips, _, dims) = slice_limits(chip);
        Cluster::checked(chip, max_chips, max_chips, dims.max(1), slices)
    }

    fn checked(
        chip: &'static Chip,
        chips: u64,
        max_chips: u64,
        axes: u8,
        slices: u32,
    ) -> Result<Cluster, TrainingError> {
        if chips > max_chips {
            return Err(TrainingError::MeshTooLarge {
                chip: chip.id,
                chips: chips as f64,
                max: max_chips as f64,
            });
        }
        if slices == 0 || slices > MAX_SLICES {
            return Err(TrainingError::BadMesh(format!(
                "the number of slices must be between 1 and {MAX_SLICES}, got {slices}"
            )));
        }
        if slices > 1 {
            cross_slice_link(chip)?;
        }
        chip.interconnect()
            .ok_or_else(|| missing(chip, "chip-to-chip link"))?;
        Ok(Cluster {
            chip,
            chips_per_slice: chips as u32,
            axes,
            slices,
        })
    }

    /// Every chip in the cluster.
    pub fn chips(&self) -> f64 {
        self.chips_per_slice as f64 * self.slices as f64
    }
}

// ---------------------------------------------------------------- strategies

/// How the chips of one slice are divided; slices are always joined by pure data
/// parallelism over the data-centre network.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Parallelism {
    /// Pure data-parallel replicas (parameters replicated, gradients all-reduced).
    pub data: u32,
    /// FSDP (ZeRO-3) shards: batch, parameters, gradients and optimizer state all split.
    pub fsdp: u32,
    /// Tensor (Megatron) parallelism: `F` split, activations gathered along `D`.
    pub tensor: u32,
    /// Pipeline stages (layers split).
    pub pipeline: u32,
    /// Microbatches per step when pipelining.
    pub microbatches: u32,
    /// Mesh axes spanned by data parallelism and FSDP, `M_X`.
    pub axes_data: u8,
    /// Mesh axes spanned by tensor parallelism, `M_Y`.
    pub axes_tensor: u8,
}

impl Parallelism {
    const ONE: Parallelism = Parallelism {
        data: 1,
        fsdp: 1,
        tensor: 1,
        pipeline: 1,
        microbatches: 1,
        axes_data: 0,
        axes_tensor: 0,
    };

    /// `n`-way pure data parallelism over `axes` mesh axes.
    pub const fn data_parallel(n: u32, axes: u8) -> Parallelism {
        Parallelism {
            data: n,
            axes_data: axes,
            ..Parallelism::ONE
        }
    }

    /// `n`-way FSDP over `axes` mesh axes.
    pub const fn fsdp(n: u32, axes: u8) -> Parallelism {
        Parallelism {
            fsdp: n,
            axes_data: axes,
            ..Parallelism::ONE
        }
    }

    /// `n`-way tensor parallelism over `axes` mesh axes.
    pub const fn tensor(n: u32, axes: u8) -> Parallelism {
        Parallelism {
            tensor: n,
            axes_tensor: axes,
            ..Parallelism::ONE
        }
    }

    /// `x`-way FSDP over `m_x` axes times `y`-way tensor parallelism over `m_y` axes.
    pub const fn fsdp_tensor(x: u32, y: u32, m_x: u8, m_y: u8) -> Parallelism {
        Parallelism {
            fsdp: x,
            tensor: y,
            axes_data: m_x,
            axes_tensor: m_y,
            ..Parallelism::ONE
        }
    }

    /// `stages` pipeline stages fed `microbatches` microbatches, combined with `self`.
    pub const fn with_pipeline(self, stages: u32, microbatches: u32) -> Parallelism {
        Parallelism {
            pipeline: stages,
            microbatches,
            ..self
        }
    }

    /// Chips of one slice this uses: `data · fsdp · tensor · pipeline`.
    pub fn chips(&self) -> u64 {
        (self.data as u64 * self.fsdp as u64)
            .saturating_mul(self.tensor as u64)
            .saturating_mul(self.pipeline as u64)
    }

    /// The book's name for this combination.
    pub fn scheme(&self) -> Scheme {
        let used = [self.data, self.fsdp, self.tensor, self.pipeline]
            .iter()
            .filter(|&&d| d > 1)
            .count();
        match (
            self.data > 1,
            self.fsdp > 1,
            self.tensor > 1,
            self.pipeline > 1,
        ) {
            _ if used == 0 => Scheme::Single,
            (true, false, false, false) => Scheme::DataParallel,
            (false, true, false, false) => Scheme::Fsdp,
            (false, false, true, false) => Scheme::Tensor,
            (false, true, true, false) => Scheme::FsdpTensor,
            (false, false, false, true) => Scheme::Pipeline,
            _ => Scheme::Mixed,
        }
    }
}

/// The named strategies of Part 5.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scheme {
    /// One chip per slice.
    Single,
    /// Pure data parallelism.
    DataParallel,
    /// Fully-sharded data parallelism (ZeRO-3).
    Fsdp,
    /// Tensor (Megatron) parallelism.
    Tensor,
    /// Mixed FSDP + tensor parallelism.
    FsdpTensor,
    /// Pipeline parallelism.
    Pipeline,
    /// Any other combination.
    Mixed,
}

impl Scheme {
    /// Short label for legends.
    pub fn label(self) -> &'static str {
        match self {
            Scheme::Single => "single chip",
            Scheme::DataParallel => "data parallel",
            Scheme::Fsdp => "FSDP",
            Scheme::Tensor => "tensor parallel",
            Scheme::FsdpTensor => "FSDP + tensor",
            Scheme::Pipeline => "pipeline",
            Scheme::Mixed => "mixed",
        }
    }
}

impl fmt::Display for Scheme {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

// ---------------------------------------------------------------- jobs

/// What is being trained: a model, a batch, and how its state is stored.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Job {
    /// The model.
    pub model: ModelConfig,
    /// Global batch in tokens, `B`.
    pub batch_tokens: f64,
    /// Tokens per sequence.
    pub seq_len: f64,
    /// Format the matmuls run in (bf16 in the book).
    pub compute: Dtype,
    /// How parameters and optimizer state are stored.
    pub optimizer: Optimizer,
    /// What activations are saved.
    pub remat: Remat,
    /// Count the MLP gate matrix in the per-layer roofline (the book leaves it out).
    pub count_gate: bool,
    /// Allow more data shards than sequences by sharding sequences too.
    pub sequence_sharding: bool,
}

impl Job {
    /// A bf16 job with the book's Adam (10 bytes/parameter), four `[B·T, D]` checkpoints
    /// per layer (Part 6), the gate left out of the roofline, sequence sharding allowed.
    pub fn new(model: ModelConfig, batch_tokens: f64, seq_len: f64) -> Result<Job, TrainingError> {
        let job = Job {
            model,
            batch_tokens,
            seq_len,
            compute: Dtype::Bf16,
            optimizer: Optimizer::ADAM,
            remat: Remat::PerLayer(4),
            count_gate: false,
            sequence_sharding: true,
        };
        job.validate()?;
        Ok(job)
    }

    /// The same job with another global batch, checked.
    pub fn with_batch(mut self, batch_tokens: f64) -> Result<Job, TrainingError> {
        self.batch_tokens = batch_tokens;
        self.validate()?;
        Ok(self)
    }

    /// Checks the model, the batch and the sequence length.
    pub fn validate(&self) -> Result<(), TrainingError> {
        self.model.validate()?;
        let b = positive("batch (tokens)", self.batch_tokens)?;
        let s = positive("sequence length", self.seq_len)?;
        if b > 1e15 {
            return Err(ModelError::TooLarge {
                field: "batch (tokens)",
                value: b,
                max: 1e15,
            }
            .into());
        }
        if s > b {
            return Err(TrainingError::SequenceLongerThanBatch { seq: s, batch: b });
        }
        Ok(())
    }

    /// Sequences per batch.
    pub fn sequences(&self) -> f64 {
        self.batch_tokens / self.seq_len
    }

    /// Model FLOPs per step: `6 · active params · B`.
    pub fn step_flops(&self) -> Flops {
        accounting::training_flops_rule(
            accounting::active_params(&self.model).total(),
            self.batch_tokens,
        )
    }

    /// The MLP widths the per-layer roofline uses: (computed per token, stored).
    fn widths(&self) -> (f64, f64) {
        match self.model.moe {
            None => (self.model.d_ff as f64, self.model.d_ff as f64),
            Some(m) => (
                (m.active + m.shared) as f64 * m.expert_ff as f64,
                (m.experts + m.shared) as f64 * m.expert_ff as f64,
            ),
        }
    }

    /// MLP matrices in the per-layer roofline.
    fn matrices(&self) -> f64 {
        if self.count_gate && self.model.gated {
            3.0
        } else {
            2.0
        }
    }
}

// ---------------------------------------------------------------- per-layer costs

/// A kind of communication in a training step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CommKind {
    /// FSDP: all-gather the weights before use (forward and backward).
    FsdpGather,
    /// FSDP: reduce-scatter the weight gradients (backward).
    FsdpScatter,
    /// Data parallelism: all-reduce the weight gradients (backward).
    DpAllReduce,
    /// Tensor parallelism: all-gather the activations and reduce-scatter the outputs.
    TpActivations,
    /// Pure data parallelism across slices: all-reduce gradients over the DCN.
    DcnAllReduce,
    /// Pipelining: send activations (or their gradients) to the next stage.
    PipelineSend,
}

impl CommKind {
    /// Label for legends.
    pub fn label(self) -> &'static str {
        match self {
            CommKind::FsdpGather => "FSDP all-gather (weights)",
            CommKind::FsdpScatter => "FSDP reduce-scatter (gradients)",
            CommKind::DpAllReduce => "DP all-reduce (gradients)",
            CommKind::TpActivations => "TP all-gather + reduce-scatter (activations)",
            CommKind::DcnAllReduce => "cross-pod all-reduce (DCN)",
            CommKind::PipelineSend => "pipeline send (activations)",
        }
    }
}

/// One collective in one pass of one layer, per chip.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Collective {
    /// What it is.
    pub kind: CommKind,
    /// The link it uses.
    pub link: Link,
    /// Bytes each chip moves, in the book's accounting.
    pub bytes: Bytes,
    /// Time at that link's (axis-multiplied) bandwidth.
    pub time: Seconds,
}

/// FLOPs and collectives of one pass of one layer, per chip.
#[derive(Debug, Clone, PartialEq)]
pub struct PassCost {
    /// Matmul time.
    pub math: Seconds,
    /// Collectives.
    pub comms: Vec<Collective>,
}

impl PassCost {
    /// Communication time if collectives overlap each other: the slowest.
    pub fn comms_time(&self) -> Seconds {
        self.comms
            .iter()
            .map(|c| c.time)
            .fold(Seconds(0.0), Seconds::max)
    }

    /// Lower bound: FLOPs and communication overlap.
    pub fn lower(&self) -> Seconds {
        self.math.max(self.comms_time())
    }

    /// Upper bound: nothing overlaps.
    pub fn upper(&self) -> Seconds {
        self.math + self.comms.iter().map(|c| c.time).sum::<Seconds>()
    }
}

/// The roofline of one layer under one strategy.
#[derive(Debug, Clone, PartialEq)]
pub struct LayerCost {
    /// Forward pass.
    pub forward: PassCost,
    /// Backward pass (twice the forward FLOPs).
    pub backward: PassCost,
    /// Forward FLOPs time: the `T_math` of the book's formulas.
    pub t_math: Seconds,
    /// Communication time on the forward pass's scale: the forward's, or half the
    /// backward's if that is larger (the backward has twice the FLOPs to hide it).
    /// `t_comms > t_math` exactly when some pass is communication-bound, so the
    /// batch where they cross is the book's threshold.
    pub t_comms: Seconds,
    /// Compute-bound when `t_comms ≤ t_math`.
    pub verdict: Verdict,
    /// The collective that sets `t_comms`.
    pub binding: Option<CommKind>,
}

/// Everything about one strategy that does not depend on the batch.
struct Ctx {
    d: f64,
    f_compute: f64,
    f_weights: f64,
    matrices: f64,
    param_bytes: f64,
    act_bytes: f64,
    peak: FlopsPerSec,
    ici_link: Link,
    ici: BytesPerSec,
    p2p: BytesPerSec,
    dcn: Option<(Link, BytesPerSec)>,
    par: Parallelism,
    slices: f64,
    layers_per_stage: f64,
}

impl Ctx {
    fn new(job: &Job, cluster: &Cluster, par: &Parallelism) -> Result<Ctx, TrainingError> {
        let chip = cluster.chip;
        let peak = chip
            .peak(job.compute)
            .ok_or_else(|| missing(chip, "peak for the compute format"))?;
        let link = chip
            .interconnect()
            .ok_or_else(|| missing(chip, "chip-to-chip link"))?;
        let dcn = if cluster.slices > 1 {
            Some(cross_slice_link(chip)?)
        } else {
            None
        };
        let (f_compute, f_weights) = job.widths();
        Ok(Ctx {
            d: job.model.d_model as f64,
            f_compute,
            f_weights,
            matrices: job.matrices(),
            param_bytes: job.optimizer.params.bytes(),
            act_bytes: job.compute.bytes(),
            peak,
            ici_link: link.link,
            ici: link.bandwidth,
            p2p: link.one_way.unwrap_or(link.bandwidth),
            dcn,
            par: *par,
            slices: cluster.slices as f64,
            layers_per_stage: job.model.layers as f64 / par.pipeline as f64,
        })
    }

    fn layer(&self, batch: f64) -> LayerCost {
        let p = &self.par;
        let (data, fsdp, tensor) = (p.data as f64, p.fsdp as f64, p.tensor as f64);
        let m_x = p.axes_data.max(1) as f64;
        let m_y = p.axes_tensor.max(1) as f64;
        // Tokens each data shard processes.
        let b = batch / (data * fsdp * self.slices);
        let m = self.matrices;
        let fwd_flops = Flops(2.0 * m * b * self.d * self.f_compute / tensor);
        let fwd_math = fwd_flops / self.peak;
        // One layer's weights, split over the tensor axis.
        let weights = Bytes(m * self.d * self.f_weights * self.param_bytes / tensor);
        let ici = |bytes: Bytes, axes: f64| bytes / (self.ici * axes);
        let coll = |kind, link, bytes: Bytes, time| Collective {
            kind,
            link,
            bytes,
            time,
        };
        let mut fwd = Vec::new();
        let mut bwd = Vec::new();
        if p.fsdp > 1 {
            fwd.push(coll(
                CommKind::FsdpGather,
                self.ici_link,
                weights,
                ici(weights, m_x),
            ));
            bwd.push(coll(
                CommKind::FsdpGather,
                self.ici_link,
                weights,
                ici(weights, m_x),
            ));
            bwd.push(coll(
                CommKind::FsdpScatter,
                self.ici_link,
                weights,
                ici(weights, m_x),
            ));
        }
        if p.data > 1 {
            // An all-reduce moves twice the array (Part 3).
            let bytes = weights * 2.0 / fsdp;
            bwd.push(coll(
                CommKind::DpAllReduce,
                self.ici_link,
                bytes,
                ici(bytes, m_x),
            ));
        }
        if p.tensor > 1 {
            // All-gather In[B_X, D] and reduce-scatter Out[B_X, D]: 2·(2·b·D) bytes.
            let bytes = Bytes(2.0 * b * self.d * self.act_bytes);
            fwd.push(coll(
                CommKind::TpActivations,
                self.ici_link,
                bytes,
                ici(bytes, m_y),
            ));
            bwd.push(coll(
                CommKind::TpActivations,
                self.ici_link,
                bytes,
                ici(bytes, m_y),
            ));
        }
        if let Some((link, w)) = self.dcn {
            // Each chip all-reduces its share of the gradients across slices.
            let bytes = weights * 2.0 / (data * fsdp);
            bwd.push(coll(CommKind::DcnAllReduce, link, bytes, bytes / w));
        }
        if p.pipeline > 1 {
            // Activations [b, D/Y] cross each stage boundary once per pass,
            // amortised over the layers of a stage.
            let bytes = Bytes(b * self.d * self.act_bytes / tensor / self.layers_per_stage);
            let t = bytes / self.p2p;
            fwd.push(coll(CommKind::PipelineSend, self.ici_link, bytes, t));
            bwd.push(coll(CommKind::PipelineSend, self.ici_link, bytes, t));
        }
        let forward = PassCost {
            math: fwd_math,
            comms: fwd,
        };
        let backward = PassCost {
            math: fwd_math * 2.0,
            comms: bwd,
        };
        let scaled = forward
            .comms
            .iter()
            .map(|c| (c.kind, c.time))
            .chain(backward.comms.iter().map(|c| (c.kind, c.time / 2.0)));
        let (binding, t_comms) = scaled.fold((None, Seconds(0.0)), |(k, t), (kind, time)| {
            if time > t {
                (Some(kind), time)
            } else {
                (k, t)
            }
        });
        let verdict = if t_comms > fwd_math {
            Verdict::CommunicationBound
        } else {
            Verdict::ComputeBound
        };
        LayerCost {
            forward,
            backward,
            t_math: fwd_math,
            t_comms,
            verdict,
            binding: if verdict == Verdict::ComputeBound {
                None
            } else {
                binding
            },
        }
    }
}

fn check_structure(job: &Job, cluster: &Cluster, par: &Parallelism) -> Result<(), TrainingError> {
    job.model.validate()?;
    for (name, v) in [
        ("data-parallel degree", par.data),
        ("FSDP degree", par.fsdp),
        ("tensor-parallel degree", par.tensor),
        ("pipeline stages", par.pipeline),
        ("microbatches", par.microbatches),
    ] {
        if v == 0 {
            return Err(ModelError::NotPositive {
                field: name,
                value: 0.0,
            }
            .into());
        }
    }
    if par.chips() != cluster.chips_per_slice as u64 {
        return Err(TrainingError::DegreesDontMatch {
            product: par.chips(),
            chips: cluster.chips_per_slice as u64,
        });
    }
    if par.tensor as u64 > job.model.heads {
        return Err(TrainingError::TensorExceedsHeads {
            tensor: par.tensor,
            heads: job.model.heads,
        });
    }
    if par.pipeline as u64 > job.model.layers {
        return Err(TrainingError::PipelineExceedsLayers {
            stages: par.pipeline,
            layers: job.model.layers,
        });
    }
    let uses_x = par.data > 1 || par.fsdp > 1;
    let uses_y = par.tensor > 1;
    let bad_axes = TrainingError::BadAxes {
        data: par.axes_data,
        tensor: par.axes_tensor,
        available: cluster.axes,
    };
    let in_range = |a: u8, used: bool| !used || (1..=cluster.axes).contains(&a);
    if !in_range(par.axes_data, uses_x) || !in_range(par.axes_tensor, uses_y) {
        return Err(bad_axes);
    }
    if uses_x && uses_y && cluster.axes >= 2 && par.axes_data + par.axes_tensor > cluster.axes {
        return Err(bad_axes);
    }
    Ok(())
}

fn check_batch(job: &Job, cluster: &Cluster, par: &Parallelism) -> Result<f64, TrainingError> {
    job.validate()?;
    let shards = par.data as f64 * par.fsdp as f64 * cluster.slices as f64;
    let b = job.batch_tokens;
    if b < shards {
        return Err(TrainingError::BatchTooSmall { tokens: b, shards });
    }
    if b / shards < par.microbatches as f64 {
        return Err(TrainingError::BatchTooSmall {
            tokens: b / shards,
            shards: par.microbatches as f64,
        });
    }
    let sequences = job.sequences();
    if shards > sequences && !job.sequence_sharding {
        return Err(TrainingError::SequenceShardingRequired { shards, sequences });
    }
    Ok(sequence_degree(shards as u64, sequences) as f64)
}

/// The sequence (context) sharding degree for `shards` data shards over `sequences`
/// sequences: a sharding degree is a whole number that divides the data axis, so
/// this is the **smallest divisor `s` of `shards` with `shards / s ≤ sequences`**
/// (1 when every shard can hold whole sequences). The data axis is then `shards / s`
/// groups of sequences times `s` pieces of each sequence; rounding up to a divisor
/// keeps every group at least one sequence, and the groups differ by at most one
/// sequence when `shards / s` does not divide the sequence count (as the tokens per
/// chip already do when the chip count does not divide the batch). Part 6's
/// 2240 FSDP shards over 1024 sequences give 4 (not 2240/1024 ≈ 2.19), its 8960
/// shards give 10, and 2048 shards give 2.
pub fn sequence_degree(shards: u64, sequences: f64) -> u64 {
    let shards = shards.max(1);
    let fits = |s: u64| (shards / s) as f64 <= sequences;
    // Divisors come in pairs (i, shards / i) with i ≤ √shards.
    let mut best = shards;
    let mut i = 1u64;
    while i * i <= shards {
        if shards.is_multiple_of(i) {
            for s in [i, shards / i] {
                if fits(s) {
                    best = best.min(s);
                }
            }
        }
        i += 1;
    }
    best
}

/// Where `t_comms` meets `t_math` as the batch grows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Boundary {
    /// No communication, or none that outgrows the FLOPs: compute-bound at any batch.
    Always,
    /// Compute-bound from this global batch (tokens) up.
    At(f64),
    /// Communication grows as fast as the FLOPs: never compute-bound (e.g. tensor
    /// parallelism beyond `M_Y · F / α` ways).
    Never,
}

fn boundary_of(ctx: &Ctx) -> Boundary {
    // Every time is affine in the batch; read the lines off two batches.
    let (l1, l2) = (ctx.layer(1.0), ctx.layer(2.0));
    let a = l2.t_math.0 - l1.t_math.0;
    let series = |l: &LayerCost| -> Vec<f64> {
        l.forward
            .comms
            .iter()
            .map(|c| c.time.0)
            .chain(l.backward.comms.iter().map(|c| c.time.0 / 2.0))
            .collect()
    };
    let (v1, v2) = (series(&l1), series(&l2));
    let mut at: f64 = 0.0;
    for (x1, x2) in v1.iter().zip(&v2) {
        let slope = x2 - x1;
        let intercept = x1 - slope;
        if slope >= a * (1.0 - 1e-12) {
            if intercept > 0.0 || slope > a * (1.0 + 1e-12) {
                return Boundary::Never;
            }
            continue;
        }
        at = at.max(intercept / (a - slope));
    }
    if at > 0.0 {
        Boundary::At(at)
    } else {
        Boundary::Always
    }
}

/// The global batch at which `t_comms = t_math` for this strategy.
pub fn boundary_batch(
    job: &Job,
    cluster: &Cluster,
    par: &Parallelism,
) -> Result<Boundary, TrainingError> {
    check_structure(job, cluster, par)?;
    Ok(boundary_of(&Ctx::new(job, cluster, par)?))
}

/// One point of a batch sweep.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SweepPoint {
    /// Global batch in tokens.
    pub batch: f64,
    /// Per-layer FLOPs time (forward).
    pub t_math: Seconds,
    /// Per-layer communication time on the same scale.
    pub t_comms: Seconds,
    /// Which one is larger.
    pub verdict: Verdict,
}

/// `t_math` and `t_comms` of one strategy across `batches` (for a plot; each batch
/// must be positive and finite, and need not fill every chip).
pub fn sweep(
    job: &Job,
    cluster: &Cluster,
    par: &Parallelism,
    batches: &[f64],
) -> Result<Vec<SweepPoint>, TrainingError> {
    check_structure(job, cluster, par)?;
    let ctx = Ctx::new(job, cluster, par)?;
    batches
        .iter()
        .map(|&b| {
            let batch = positive("batch (tokens)", b)?;
            let l = ctx.layer(batch);
            Ok(SweepPoint {
                batch,
                t_math: l.t_math,
                t_comms: l.t_comms,
                verdict: l.verdict,
            })
        })
        .collect()
}

/// `n` batches spaced evenly in log scale from `lo` to `hi` (for sweeps).
pub fn log_batches(lo: f64, hi: f64, n: usize) -> Result<Vec<f64>, TrainingError> {
    let lo = positive("smallest batch", lo)?;
    let hi = positive("largest batch", hi)?;
    let n = n.clamp(2, 10_000);
    let (a, b) = (lo.ln(), hi.ln());
    Ok((0..n)
        .map(|i| (a + (b - a) * i as f64 / (n - 1) as f64).exp())
        .collect())
}

// ---------------------------------------------------------------- evaluation

/// A strategy analysed for a job on a cluster.
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation {
    /// The division of each slice.
    pub parallelism: Parallelism,
    /// Its name.
    pub scheme: Scheme,
    /// Chips in the whole cluster.
    pub chips: f64,
    /// Global batch over all chips, `B / N`.
    pub tokens_per_chip: f64,
    /// Where this strategy's threshold lies as the batch changes.
    pub boundary: Boundary,
    /// That threshold in tokens per chip, if there is one.
    pub critical_tokens_per_chip: Option<f64>,
    /// The per-layer roofline at this batch.
    pub layer: LayerCost,
    /// Compute- or communication-bound.
    pub verdict: Verdict,
    /// Memory each chip holds.
    pub memory: TrainingMemory,
    /// HBM per chip.
    pub hbm: Bytes,
    /// Whether `memory` fits in `hbm`.
    pub fits: bool,
    /// Model FLOPs per step: `6 · active params · B`.
    pub model_flops: Flops,
    /// FLOPs actually executed, including rematerialisation.
    pub hardware_flops: Flops,
    /// Step time if FLOPs and collectives overlap.
    pub step_lower: Seconds,
    /// Step time if nothing overlaps.
    pub step_upper: Seconds,
    /// Model FLOPs utilisation at `step_lower`: the best this strategy can reach.
    pub mfu: f64,
    /// Fraction of the step lost to the pipeline bubble.
    pub bubble: f64,
    /// Sequence (context) parallelism needed: a whole number that divides the data
    /// shards, from [`sequence_degree`] (1 when no sequence is split).
    pub sequence_parallel: f64,
}

impl Evaluation {
    /// Time to train on `tokens` tokens at this step time.
    pub fn run(&self, tokens: f64) -> Result<RunEstimate, TrainingError> {
        let tokens = positive("training tokens", tokens)?;
        let steps = tokens / (self.tokens_per_chip * self.chips);
        Ok(RunEstimate {
            flops: self.model_flops * steps,
            time: self.step_lower * steps,
            chips: self.chips,
        })
    }
}

/// Analyses `par` for `job` on `cluster`; every input is checked.
pub fn evaluate(
    job: &Job,
    cluster: &Cluster,
    par: &Parallelism,
) -> Result<Evaluation, TrainingError> {
    check_structure(job, cluster, par)?;
    let sequence_parallel = check_batch(job, cluster, par)?;
    let ctx = Ctx::new(job, cluster, par)?;
    let layer = ctx.layer(job.batch_tokens);
    let boundary = boundary_of(&ctx);
    let chips = cluster.chips();
    let seqs = job.sequences();
    let model_flops = job.step_flops();
    let remat = job
        .remat
        .extra_flops(&job.model, seqs, job.seq_len, true)
        .map_err(TrainingError::from)?;
    let hardware_flops = model_flops + remat;
    let ideal = hardware_flops / (ctx.peak * chips);
    let math = layer.forward.math + layer.backward.math;
    let lower_factor = (layer.forward.lower() + layer.backward.lower()) / math;
    let upper_factor = (layer.forward.upper() + layer.backward.upper()) / math;
    let bubble = pipeline_bubble(par.pipeline as f64, par.microbatches as f64)?;
    let stretch = 1.0 / (1.0 - bubble);
    let step_lower = ideal * (lower_factor * stretch);
    let step_upper = ideal * (upper_factor * stretch);
    let mfu = (model_flops / (ctx.peak * chips)) / step_lower;
    let memory = accounting::training_memory(
        &job.model,
        job.batch_tokens,
        job.remat,
        job.optimizer,
        job.compute,
    )?
    .per_chip(
        par.fsdp as f64 * par.tensor as f64 * par.pipeline as f64,
        chips,
    );
    let hbm = cluster.chip.hbm_capacity.value;
    Ok(Evaluation {
        parallelism: *par,
        scheme: par.scheme(),
        chips,
        tokens_per_chip: job.batch_tokens / chips,
        boundary,
        critical_tokens_per_chip: match boundary {
            Boundary::At(b) => Some(b / chips),
            Boundary::Always => Some(0.0),
            Boundary::Never => None,
        },
        verdict: layer.verdict,
        layer,
        fits: memory.total() <= hbm,
        memory,
        hbm,
        model_flops,
        hardware_flops,
        step_lower,
        step_upper,
        mfu,
        bubble,
        sequence_parallel,
    })
}

fn divisors(n: u32) -> Vec<u32> {
    let mut small = Vec::new();
    let mut large = Vec::new();
    let mut i = 1u32;
    while (i as u64) * (i as u64) <= n as u64 {
        if n.is_multiple_of(i) {
            small.push(i);
            if i != n / i {
                large.push(n / i);
            }
        }
        i += 1;
    }
    small.extend(large.into_iter().rev());
    small
}

/// The candidate strategies [`best_plan`] compares: pure DP, FSDP, tensor
/// parallelism and every FSDP × tensor split of the slice (tensor degree at most the
/// head count), with the mesh axes divided between them every possible way.
pub fn candidates(job: &Job, cluster: &Cluster) -> Vec<Parallelism> {
    let n = cluster.chips_per_slice;
    let a = cluster.axes;
    let mut out = Vec::new();
    if n == 1 {
        out.push(Parallelism::ONE);
        return out;
    }
    out.push(Parallelism::data_parallel(n, a));
    out.push(Parallelism::fsdp(n, a));
    if n as u64 <= job.model.heads {
        out.push(Parallelism::tensor(n, a));
    }
    let splits: Vec<(u8, u8)> = if a >= 2 {
        (1..a).map(|mx| (mx, a - mx)).collect()
    } else {
        vec![(1, 1)]
    };
    for y in divisors(n) {
        if y < 2 || y == n || y as u64 > job.model.heads {
            continue;
        }
        for &(mx, my) in &splits {
            out.push(Parallelism::fsdp_tensor(n / y, y, mx, my));
        }
    }
    out
}

/// The book's four strategies on the whole slice, for side-by-side curves: pure DP
/// and FSDP over every axis, tensor parallelism (when the slice is no wider than the
/// head count), and FSDP × tensor with the whole-number split nearest `X_opt` for the
/// job's batch (FSDP on all axes but one, tensor on the last).
pub fn book_plans(job: &Job, cluster: &Cluster) -> Vec<Parallelism> {
    let n = cluster.chips_per_slice;
    let a = cluster.axes;
    if n == 1 {
        return vec![Parallelism::ONE];
    }
    let mut out = vec![Parallelism::data_parallel(n, a), Parallelism::fsdp(n, a)];
    if n as u64 <= job.model.heads {
        out.push(Parallelism::tensor(n, a));
    }
    let (mx, my) = if a >= 2 { (a - 1, 1) } else { (1, 1) };
    let (_, f_weights) = job.widths();
    let x_opt = optimal_fsdp(job.batch_tokens, f_weights, n as f64, mx as f64, my as f64);
    let split = divisors(n)
        .into_iter()
        .filter(|&y| y >= 2 && y < n && y as u64 <= job.model.heads)
        .min_by(|&p, &q| {
            let dist = |y: u32| ((n / y) as f64 / x_opt).ln().abs();
            dist(p).total_cmp(&dist(q))
        });
    if let Some(y) = split {
        out.push(Parallelism::fsdp_tensor(n / y, y, mx, my));
    }
    out
}

/// The fastest strategy among [`candidates`] that fits in memory (ties go to the
/// simpler one). Cheap: a full 8960-chip v5p pod is a few dozen evaluations.
pub fn best_plan(job: &Job, cluster: &Cluster) -> Result<Evaluation, TrainingError> {
    job.validate()?;
    let mut best: Option<Evaluation> = None;
    let mut smallest: Option<Bytes> = None;
    let mut first_err = None;
    for par in candidates(job, cluster) {
        match evaluate(job, cluster, &par) {
            Ok(e) => {
                let total = e.memory.total();
                smallest = Some(smallest.map_or(total, |s| s.min(total)));
                if e.fits && best.as_ref().is_none_or(|b| e.step_lower < b.step_lower) {
                    best = Some(e);
                }
            }
            Err(e) => {
                first_err.get_or_insert(e);
            }
        }
    }
    match (best, smallest, first_err) {
        (Some(b), _, _) => Ok(b),
        (None, Some(smallest), _) => Err(TrainingError::NothingFits {
            smallest,
            hbm: cluster.chip.hbm_capacity.value,
        }),
        (None, None, Some(e)) => Err(e),
        (None, None, None) => Err(TrainingError::BadMesh("no strategy to evaluate".into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hardware::chip;

    #[test]
    fn zero_stages_split_more_state_for_the_same_or_half_more_traffic() {
        let rows = zero_stages(70e9, Optimizer::ADAM_MIXED, 64.0).unwrap();
        let per_param: Vec<f64> = rows.iter().map(|r| r.memory.state().0 / 70e9).collect();
        // 16 bytes per parameter; ZeRO-1 splits 12 of them, ZeRO-2 14, ZeRO-3 all.
        assert_eq!(per_param[0], 16.0);
        assert!((per_param[1] - (4.0 + 12.0 / 64.0)).abs() < 1e-12);
        assert!((per_param[2] - (2.0 + 14.0 / 64.0)).abs() < 1e-12);
        assert!((per_param[3] - 16.0 / 64.0).abs() < 1e-12);
        assert_eq!(rows[0].comms_bytes, rows[2].comms_bytes);
        assert_eq!(rows[3].comms_bytes.0, 1.5 * rows[0].comms_bytes.0);
        assert!(zero_stages(70e9, Optimizer::ADAM, 0.0)
            .unwrap_err()
            .starts_with("shards:"));
    }

    #[test]
    fn zero_stages_parse_their_numbers() {
        for s in ZeroStage::ALL {
            assert_eq!(ZeroStage::parse(&s.number().to_string()), Ok(s));
        }
        assert!(ZeroStage::parse("4").unwrap_err().starts_with("stage:"));
        assert_eq!(ZeroStage::Three.label(), "ZeRO-3 (FSDP)");
    }

    #[test]
    fn the_books_run_assumptions() {
        let a = RunAssumptions::BOOK;
        assert_eq!(a.batch_tokens(), 4194304.0);
        let run = a.estimate().unwrap();
        assert!(run.days() > 40.0 && run.days() < 50.0, "{}", run.days());
        let bad = RunAssumptions { mfu: 1.5, ..a };
        assert!(bad.validate().unwrap_err().starts_with("mfu:"));
        assert!(RunAssumptions { pods: 0, ..a }
            .validate()
            .unwrap_err()
            .starts_with("pods:"));
    }

    #[test]
    fn sequence_sharding_is_a_whole_divisor_of_the_data_shards() {
        assert_eq!(sequence_degree(2240, 1024.0), 4);
        assert_eq!(sequence_degree(8960, 1024.0), 10);
        assert_eq!(sequence_degree(2048, 1024.0), 2);
        assert_eq!(sequence_degree(512, 1024.0), 1);
        assert_eq!(sequence_degree(7919, 1.0), 7919); // a prime: every shard its own piece
        let job = Job::new(model("llama3-70b").unwrap().config, 4194304.0, 4096.0).unwrap();
        let pod = Cluster::full_pod(chip("v5p").unwrap(), 1).unwrap();
        let e = evaluate(&job, &pod, &Parallelism::fsdp_tensor(2240, 4, 2, 1)).unwrap();
        assert_eq!(e.sequence_parallel, 4.0);
    }

    #[test]
    fn a_fixed_split_and_the_re_chosen_split_have_different_thresholds() {
        // The training roofline's default: 4096 v5p chips, a 1M-token batch.
        let v5p = chip("v5p").unwrap();
        let job = Job::new(model("llama3-70b").unwrap().config, 1048576.0, 4096.0).unwrap();
        let mesh = Cluster::new(v5p, &[16, 16, 16], 1).unwrap();
        let plan = book_plans(&job, &mesh)
            .into_iter()
            .find(|p| p.scheme() == Scheme::FsdpTensor)
            .unwrap();
        assert_eq!((plan.fsdp, plan.tensor), (512, 8));
        let e = evaluate(&job, &mesh, &plan).unwrap();
        let alpha = ici_intensity(v5p, Dtype::Bf16).unwrap();
        let f = job.model.d_ff as f64;
        let fixed = fsdp_tp_split_critical_tokens_per_chip(alpha, 8.0, f, 2.0, 1.0).unwrap();
        assert!((e.critical_tokens_per_chip.unwrap() / fixed - 1.0).abs() < 1e-9);
        assert_eq!(fixed.round(), 159.0);
        assert_eq!(
            fsdp_tp_critical_tokens_per_chip(alpha, f, 2.0, 1.0).round(),
            113.0
        );
        assert_eq!(
            fsdp_tp_split_critical_tokens_per_chip(alpha, 64.0, f, 2.0, 1.0),
            None
        );
    }
    use crate::model::config::model;

    fn llama70() -> Job {
        Job::new(model("llama3-70b").unwrap().config, 4194304.0, 4096.0).unwrap()
    }

    fn v5p_pod() -> Cluster {
        Cluster::full_pod(chip("v5p").unwrap(), 1).unwrap()
    }

    #[test]
    fn thresholds_match_closed_forms() {
        let v5p = chip("v5p").unwrap();
        let alpha = ici_intensity(v5p, Dtype::Bf16).unwrap();
        assert_eq!(alpha.0, 2550.0);
        let job = llama70();
        let pod = v5p_pod();
        let fsdp = evaluate(&job, &pod, &Parallelism::fsdp(8960, 3)).unwrap();
        let c = fsdp.critical_tokens_per_chip.unwrap();
        assert!((c - 850.0).abs() < 1e-6, "{c}");
        let dp = evaluate(
            &job.with_batch(8960.0 * 4096.0).unwrap(),
            &pod,
            &Parallelism::data_parallel(8960, 1),
        )
        .unwrap();
        assert!((dp.critical_tokens_per_chip.unwrap() - 2550.0).abs() < 1e-6);
        assert!(!dp.fits, "pure DP of a 70B model cannot fit");
        // Tensor parallelism: batch-independent.
        let small = Cluster::with_chips(v5p, 16, 1, 1).unwrap();
        let tp = boundary_batch(&job, &small, &Parallelism::tensor(16, 1)).unwrap();
        assert_eq!(tp, Boundary::Never); // 16 > F/2550 ≈ 11.2
        let tp8 = boundary_batch(
            &job,
            &Cluster::with_chips(v5p, 8, 1, 1).unwrap(),
            &Parallelism::tensor(8, 1),
        )
        .unwrap();
        assert_eq!(tp8, Boundary::Always);
    }

    #[test]
    fn mixed_boundary_is_never_below_alpha_squared_rule() {
        // Part 5: 4096 v5p chips, F = 4·8192; every FSDP × TP split turns
        // compute-bound no earlier than N·α²/(M_X·M_Y·F) ≈ 4.06e5 tokens, and the
        // best power-of-two split does so at 6.5e5 (the book's figure: "below 6e5").
        let v5p = chip("v5p").unwrap();
        let cfg =
            crate::model::config::ModelConfig::dense(8192, 32768, 8, 64, 64, 128, 1000).unwrap();
        let rule = 4096.0 * 2550.0 * 2550.0 / (2.0 * 32768.0);
        let job = Job::new(cfg, 1e6, 1.0).unwrap();
        let cl = Cluster::with_chips(v5p, 4096, 3, 1).unwrap();
        let mut best = f64::INFINITY;
        for y in [2u32, 4, 8, 16, 32, 64] {
            let par = Parallelism::fsdp_tensor(4096 / y, y, 2, 1);
            if let Boundary::At(v) = boundary_batch(&job, &cl, &par).unwrap() {
                assert!(v >= rule * (1.0 - 1e-9), "{y}: {v}");
                best = best.min(v);
            }
        }
        assert!((best - 652_800.0).abs() < 1.0, "{best}");
    }

    #[test]
    fn errors_are_precise() {
        let v5p = chip("v5p").unwrap();
        assert!(matches!(
            Cluster::with_chips(v5p, 9000, 3, 1),
            Err(TrainingError::MeshTooLarge { .. })
        ));
        assert!(matches!(
            Cluster::new(v5p, &[64, 4, 4], 1),
            Err(TrainingError::AxisTooLong { .. })
        ));
        assert!(Cluster::new(v5p, &[16, 0, 4], 1).is_err());
        assert!(Cluster::new(v5p, &[2, 2, 2, 2], 1).is_err());
        assert!(Cluster::full_pod(chip("v4p").unwrap(), 2).is_err()); // no DCN figure
        let job = llama70();
        let pod = v5p_pod();
        let e = evaluate(&job, &pod, &Parallelism::fsdp(4096, 3)).unwrap_err();
        assert!(e.to_string().contains("8960"), "{e}");
        let e = evaluate(&job, &pod, &Parallelism::fsdp_tensor(70, 128, 2, 1)).unwrap_err();
        assert!(matches!(e, TrainingError::TensorExceedsHeads { .. }), "{e}");
        let e = evaluate(&job, &pod, &Parallelism::fsdp_tensor(2240, 4, 2, 2)).unwrap_err();
        assert!(matches!(e, TrainingError::BadAxes { .. }), "{e}");
        let tiny = job.with_batch(4096.0).unwrap();
        let e = evaluate(&tiny, &pod, &Parallelism::fsdp(8960, 3)).unwrap_err();
        assert!(matches!(e, TrainingError::BatchTooSmall { .. }), "{e}");
        assert!(job.with_batch(f64::NAN).is_err());
        assert!(job.with_batch(-5.0).is_err());
        assert!(job.with_batch(100.0).is_err()); // shorter than one sequence
        assert!(training_time(Flops(1e20), 8.0, FlopsPerSec(1e14), 1.5).is_err());
        assert!(pipeline_bubble(0.0, 4.0).is_err());
    }

    #[test]
    fn pipeline_bubble_and_sweep() {
        assert_eq!(pipeline_bubble(4.0, 13.0).unwrap(), 3.0 / 16.0);
        let v5p = chip("v5p").unwrap();
        let job = llama70();
        let cl = Cluster::with_chips(v5p, 64, 3, 1).unwrap();
        let par = Parallelism::fsdp(16, 3).with_pipeline(4, 16);
        let e = evaluate(&job, &cl, &par).unwrap();
        assert_eq!(e.scheme, Scheme::Mixed);
        assert!((e.bubble - 3.0 / 19.0).abs() < 1e-12);
        let pts = sweep(&job, &cl, &par, &log_batches(1e4, 1e8, 50).unwrap()).unwrap();
        assert_eq!(pts.len(), 50);
        assert!(pts.windows(2).all(|w| w[1].t_math > w[0].t_math));
        assert!(sweep(&job, &cl, &par, &[0.0]).is_err());
    }

    #[test]
    fn best_plan_for_llama_on_a_pod_is_mixed_and_fast() {
        let job = llama70();
        let pod = v5p_pod();
        let start = std::time::Instant::now();
        let best = best_plan(&job, &pod).unwrap();
        let elapsed = start.elapsed();
        assert_eq!(best.scheme, Scheme::FsdpTensor);
        assert_eq!(best.verdict, Verdict::ComputeBound);
        assert!(best.fits);
        assert!(elapsed.as_millis() < 200, "{elapsed:?}");
        let plans = book_plans(&job, &pod);
        assert_eq!(plans.len(), 3); // 8960 chips is wider than 64 heads: no pure TP
        assert_eq!(plans[2], Parallelism::fsdp_tensor(1792, 5, 2, 1)); // X_opt ≈ 1619
    }

    mod props {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(256))]

            /// Nothing a reader can type makes the planner panic; what it accepts is finite.
            #[test]
            fn reader_input_never_panics(
                chip_i in 0usize..11,
                chips in 0u32..20_000,
                axes in 0u8..5,
                slices in 0u32..5,
                degrees in proptest::array::uniform4(0u32..70_000),
                mb in 0u32..64,
                mx in 0u8..4,
                my in 0u8..4,
                batch in prop_oneof![Just(f64::NAN), Just(-1.0), Just(0.0), 1.0f64..1e9],
                seq in prop_oneof![Just(f64::INFINITY), 1.0f64..1e6],
            ) {
                let chip = &crate::hardware::CHIPS[chip_i % crate::hardware::CHIPS.len()];
                let Ok(cluster) = Cluster::with_chips(chip, chips, axes, slices) else {
                    return Ok(());
                };
                let cfg = model("llama3-8b").unwrap().config;
                let job = Job { batch_tokens: batch, seq_len: seq, ..Job::new(cfg, 1e6, 4096.0).unwrap() };
                let par = Parallelism {
                    data: degrees[0],
                    fsdp: degrees[1],
                    tensor: degrees[2],
                    pipeline: degrees[3],
                    microbatches: mb,
                    axes_data: mx,
                    axes_tensor: my,
                };
                if let Ok(e) = evaluate(&job, &cluster, &par) {
                    prop_assert!(e.step_lower.0.is_finite() && e.step_lower.0 > 0.0);
                    prop_assert!(e.mfu > 0.0 && e.mfu <= 1.0 + 1e-12);
                    prop_assert!(e.memory.total().0.is_finite());
                }
                let batch_ok = batch.is_finite() && batch > 0.0;
                match sweep(&job, &cluster, &par, &[1.0, batch]) {
                    // A sweep answers each batch it was given, with finite times
                    // and the verdict the larger time calls for.
                    Ok(points) => {
                        prop_assert!(batch_ok, "a sweep accepted the batch {}", batch);
                        prop_assert_eq!(points.len(), 2);
                        for (pt, b) in points.iter().zip([1.0, batch]) {
                            prop_assert_eq!(pt.batch, b);
                            prop_assert!(pt.t_math.0.is_finite() && pt.t_math.0 > 0.0, "{:?}", pt);
                            prop_assert!(pt.t_comms.0.is_finite() && pt.t_comms.0 >= 0.0, "{:?}", pt);
                            if pt.t_comms.0 > pt.t_math.0 * (1.0 + 1e-9) {
                                prop_assert_eq!(pt.verdict, Verdict::CommunicationBound, "{:?}", pt);
                            } else if pt.t_comms.0 < pt.t_math.0 * (1.0 - 1e-9) {
                                prop_assert_eq!(pt.verdict, Verdict::ComputeBound, "{:?}", pt);
                            }
                        }
                    }
                    Err(e) => prop_assert!(!e.to_string().trim().is_empty(), "{:?}", e),
                }
                match boundary_batch(&job, &cluster, &par) {
                    Ok(Boundary::At(b)) => prop_assert!(b.is_finite() && b > 0.0, "boundary {}", b),
                    Ok(Boundary::Always | Boundary::Never) => {}
                    Err(e) => prop_assert!(!e.to_string().trim().is_empty(), "{:?}", e),
                }
                match best_plan(&job, &cluster) {
                    // The best plan is one the evaluator accepts, with the same figures.
                    Ok(best) => {
                        prop_assert!(best.step_lower.0.is_finite() && best.step_lower.0 > 0.0);
                        prop_assert!(best.mfu > 0.0 && best.mfu <= 1.0 + 1e-12);
                        let again = evaluate(&job, &cluster, &best.parallelism);
                        prop_assert!(again.is_ok(), "{:?}", again);
                    }
                    Err(e) => prop_assert!(!e.to_string().trim().is_empty(), "{:?}", e),
                }
            }

            /// Consistent strategies evaluate, and their verdict matches the boundary.
            #[test]
            fn consistent_strategies_agree_with_their_boundary(
                d in 1u32..5, x in 1u32..9, y in 1u32..9, p in 1u32..3, mb in 1u32..9,
                pods in 1u32..3, batch in 1e5f64..1e9,
            ) {
                let chip = crate::hardware::chip("v5p").unwrap();
                let n = d * x * y * p;
                let cluster = Cluster::with_chips(chip, n, 3, pods).unwrap();
                let job = Job::new(model("llama3-70b").unwrap().config, batch, 4096.0).unwrap();
                let par = Parallelism {
                    data: d, fsdp: x, tensor: y, pipeline: p, microbatches: mb,
                    axes_data: 1, axes_tensor: if d * x > 1 { 1 } else { 2 },
                };
                let e = evaluate(&job, &cluster, &par).unwrap();
                prop_assert!(e.step_upper >= e.step_lower);
                prop_assert!(e.mfu > 0.0 && e.mfu <= 1.0);
                let expect = match e.boundary {
                    Boundary::Always => Verdict::ComputeBound,
                    Boundary::Never => Verdict::CommunicationBound,
                    Boundary::At(b) if batch >= b * (1.0 + 1e-9) => Verdict::ComputeBound,
                    Boundary::At(b) if batch <= b * (1.0 - 1e-9) => Verdict::CommunicationBound,
                    Boundary::At(_) => e.verdict,
                };
                prop_assert_eq!(e.verdict, expect);
            }
        }
    }
}
