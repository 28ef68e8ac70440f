//! Latency against throughput: the batch sweep and its Pareto front.

use super::{
    decode_step, max_batch, memory_use, InferenceError, Precision, ServingModel, ServingSlice,
    StepTime, MAX_BATCH,
};
use crate::model::config::positive;
use crate::units::Seconds;

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
    let max = max.clamp(1, crate::check::whole(MAX_BATCH).unwrap_or(1));
    let points = points.clamp(2, 10_000);
    let mut out: Vec<u64> = Vec::with_capacity(points);
    let ln = (max as f64).ln();
    for i in 0..points {
        let b =
            crate::check::whole((ln * i as f64 / (points - 1) as f64).exp().round()).unwrap_or(max);
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
        .map(|&b| point(model, precision, slice, seq, b))
        .collect()
}

/// Latency and throughput at one batch.
fn point(
    model: &ServingModel,
    precision: Precision,
    slice: &ServingSlice,
    seq: f64,
    batch: f64,
) -> Result<ParetoPoint, InferenceError> {
    let work = model.workload(precision, batch, seq)?;
    let step = decode_step(&work, slice, precision.compute)?;
    Ok(ParetoPoint {
        batch: work.batch,
        tokens_per_sec_per_chip: step.tokens_per_sec_per_chip(),
        step,
        fits: memory_use(&work, slice).fits(),
    })
}

/// The point of the curve with the most throughput per chip whose step takes at
/// most `limit` (Part 8, worked problem 3): the largest batch of `seq`-token
/// sequences that fits and meets the limit, since `B / T_step` never falls as
/// the batch grows (past the critical batch it stays level). `None` when not
/// even one sequence meets the limit; errors when the weights alone do not fit.
pub fn largest_batch_within(
    model: &ServingModel,
    precision: Precision,
    slice: &ServingSlice,
    seq: f64,
    limit: Seconds,
) -> Result<Option<ParetoPoint>, InferenceError> {
    let limit = Seconds(positive("step-time limit", limit.0)?);
    let meets = |b: u64| -> Result<bool, InferenceError> {
        Ok(point(model, precision, slice, seq, b as f64)?.step.total <= limit)
    };
    // The step time grows with the batch: the last batch meeting the limit is
    // found by bisection, `lo` meeting it (0: none) and every batch above `hi` not.
    let (mut lo, mut hi) = (0, max_batch(model, precision, slice, seq)?);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if meets(mid)? {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    if lo == 0 {
        return Ok(None);
    }
    point(model, precision, slice, seq, lo as f64).map(Some)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::Dtype;
    use crate::hardware::chip;

    #[test]
    fn pareto_series_rises_in_latency_and_throughput() {
        let m = ServingModel::preset("llama3-70b").unwrap();
        let s = ServingSlice::new(chip("v5e").unwrap(), 16).unwrap();
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
    fn the_largest_batch_within_a_limit_is_the_last_that_meets_it() {
        let m = ServingModel::preset("llama3-405b").unwrap();
        let p = Precision::new(Dtype::Int8, Dtype::Int8, Dtype::Bf16);
        let s = ServingSlice::new(chip("v5e").unwrap(), 64).unwrap();
        let limit = Seconds(15e-3);
        let best = largest_batch_within(&m, p, &s, 8192.0, limit)
            .unwrap()
            .unwrap();
        assert!(best.step.total <= limit && best.fits);
        let next = pareto(&m, p, &s, 8192.0, &[best.batch + 1.0]).unwrap()[0];
        assert!(next.step.total > limit);
        // No batch is faster than the weight reads.
        assert_eq!(
            largest_batch_within(&m, p, &s, 8192.0, Seconds(1e-3)).unwrap(),
            None
        );
        assert!(largest_batch_within(&m, p, &s, 8192.0, Seconds(0.0)).is_err());
    }
}
