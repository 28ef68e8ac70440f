//! Latency against throughput: the batch sweep and its Pareto front.

use super::{
    decode_step, max_batch, memory_use, InferenceError, Precision, ServingModel, ServingSlice,
    StepTime, MAX_BATCH,
};

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
}
