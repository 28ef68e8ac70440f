//! Why a training plan cannot be analysed.

use crate::hardware::Chip;
use crate::model::config::ModelError;
use crate::units::Bytes;
use std::fmt;

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

pub(super) fn missing(chip: &Chip, what: &'static str) -> TrainingError {
    TrainingError::Missing {
        chip: chip.id,
        what,
    }
}
