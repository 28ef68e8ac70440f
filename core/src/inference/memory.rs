//! What a slice holds (weights, KV caches) and the largest batch that fits.

use super::{DecodeWorkload, InferenceError, Precision, ServingModel, ServingSlice, MAX_BATCH};
use crate::model::config::positive;
use crate::units::Bytes;

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
    crate::check::whole(b.min(MAX_BATCH)).ok_or(InferenceError::OutOfRange {
        quantity: "largest batch",
        value: b,
    })
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
