//! Why an inference question has no answer, and the checks every input passes.

use super::{MAX_BATCH, MAX_CHIPS};
use crate::check;
use crate::comms::collectives::CollectiveError;
use crate::dtype::Dtype;
use crate::hardware::Chip;
use crate::model::config::{positive, ModelError};
use crate::training::TrainingError;
use crate::units::{Bytes, BytesPerSec, FlopsPerSec};
use std::fmt;

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
    /// A probability (a draft token's acceptance rate) is outside [0, 1].
    BadProbability {
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
            InferenceError::BadProbability { field, value } => {
                write!(f, "{field} must be a probability in [0, 1], not {value}")
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

pub(super) fn batch_ok(batch: f64) -> Result<f64, InferenceError> {
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
pub(super) fn computed(quantity: &'static str, value: f64) -> Result<f64, InferenceError> {
    if check::is_positive(value) {
        Ok(value)
    } else {
        Err(InferenceError::OutOfRange { quantity, value })
    }
}

pub(super) fn fraction(field: &'static str, value: f64) -> Result<f64, InferenceError> {
    check::fraction(field, value).map_err(|_| InferenceError::BadFraction { field, value })
}

pub(super) fn peak(chip: &'static Chip, dtype: Dtype) -> Result<FlopsPerSec, InferenceError> {
    chip.peak_or_wider(dtype)
        .map(|(_, r)| r)
        .ok_or(InferenceError::NoPeak {
            chip: chip.id,
            dtype,
        })
}

pub(super) fn ici_bw(chip: &'static Chip) -> Result<BytesPerSec, InferenceError> {
    chip.interconnect()
        .map(|l| l.bandwidth)
        .ok_or(InferenceError::NoInterconnect(chip.id))
}
