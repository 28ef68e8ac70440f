//! The slice: the chips serving a model, split into tensor-parallel replicas.

use super::{peak, InferenceError, MAX_CHIPS};
use crate::dtype::Dtype;
use crate::hardware::Chip;
use crate::units::{Bytes, BytesPerSec, FlopsPerSec};

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
