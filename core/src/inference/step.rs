//! The decode step time: the book's general formula, its minimum and the throughput it allows.

use super::{DecodeWorkload, InferenceError, ServingSlice};
use crate::dtype::Dtype;
use crate::roofline::Verdict;
use crate::units::{Flops, Seconds};

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hardware::chip;
    use crate::roofline::Verdict;
    use crate::units::Bytes;

    #[test]
    fn step_time_is_the_general_formula() {
        let w = DecodeWorkload::new(256.0, 30e9, Bytes(30e9), Bytes(819.2e6)).unwrap();
        let s = ServingSlice::new(chip("v5e").unwrap(), 16).unwrap();
        let t = decode_step(&w, &s, Dtype::Bf16).unwrap();
        let expect = 256.0 * 819.2e6 / (16.0 * 8.2e11) + 2.0 * 256.0 * 30e9 / (16.0 * 1.97e14);
        assert!((t.total.0 - expect).abs() < 1e-12);
        assert_eq!(t.mlp_verdict, Verdict::ComputeBound);
        assert!(min_step_time(&w, &s) <= t.total);
    }
}
