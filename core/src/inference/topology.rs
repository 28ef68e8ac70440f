//! How many chips a model needs, the smallest topology that holds it, and what serving costs.

use super::{
    batch_ok, decode_step, largest_batch, peak, InferenceError, Precision, ServingModel,
    ServingSlice, MAX_CHIPS,
};
use crate::dtype::Dtype;
use crate::hardware::{price_per_hour, Chip};
use crate::model::config::positive;
use crate::units::{Bytes, Seconds};

/// Chips whose HBM holds `bytes`, as a fraction: `bytes / HBM` (Part 8's "8.75").
pub fn chips_for_bytes(bytes: Bytes, chip: &'static Chip) -> Result<f64, InferenceError> {
    positive("bytes", bytes.0)?;
    Ok(bytes / chip.hbm_capacity.value)
}

/// The fewest whole chips that hold `bytes`: `ceil(bytes / HBM)`.
pub fn min_chips(bytes: Bytes, chip: &'static Chip) -> Result<u64, InferenceError> {
    let n = chips_for_bytes(bytes, chip)?.ceil();
    crate::check::whole(n)
        .filter(|&count| count <= MAX_CHIPS)
        .ok_or(InferenceError::BadChipCount(u64::MAX))
}

/// The smallest power-of-two slice that holds `bytes` (the book's
/// `2^ceil(log2(bytes / HBM))`: 4x4 for 140 GB on v5e).
pub fn min_slice_chips(bytes: Bytes, chip: &'static Chip) -> Result<u64, InferenceError> {
    let n = min_chips(bytes, chip)?;
    Ok(n.next_power_of_two())
}

/// The smallest power-of-two slice that holds `model`'s weights and reads them
/// within `limit` per decode step (Part 8, worked problem 3). A step is never
/// shorter than its weight reads, so a latency limit can call for more chips
/// than memory does: LLaMA 3-405B in int8 fits on 32 v5e but needs 64 for 15 ms.
pub fn min_slice_within(
    model: &ServingModel,
    precision: Precision,
    chip: &'static Chip,
    limit: Seconds,
) -> Result<u64, InferenceError> {
    let limit = Seconds(positive("step-time limit", limit.0)?);
    // One token of one sequence: the weight reads do not depend on the batch.
    let work = model.workload(precision, 1.0, 1.0)?;
    let mut chips = min_slice_chips(work.param_bytes, chip)?;
    loop {
        let step = decode_step(&work, &ServingSlice::new(chip, chips)?, precision.compute)?;
        if step.param_load <= limit {
            return Ok(chips);
        }
        chips = chips.saturating_mul(2);
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hardware::chip;

    #[test]
    fn a_latency_limit_can_need_more_chips_than_memory() {
        let m = ServingModel::preset("llama3-405b").unwrap();
        let p = Precision::new(Dtype::Int8, Dtype::Int8, Dtype::Bf16);
        let v5e = chip("v5e").unwrap();
        assert_eq!(
            min_slice_chips(m.param_bytes(Dtype::Int8), v5e).unwrap(),
            32
        );
        assert_eq!(min_slice_within(&m, p, v5e, Seconds(15e-3)).unwrap(), 64);
        // A loose limit leaves memory to decide; an impossible one is an error.
        assert_eq!(min_slice_within(&m, p, v5e, Seconds(1.0)).unwrap(), 32);
        assert!(min_slice_within(&m, p, v5e, Seconds(1e-12)).is_err());
    }
}
