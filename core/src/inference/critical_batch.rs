//! The critical batch: where a weight matmul turns compute-bound, and the arithmetic intensity of attention.

use super::{peak, InferenceError};
use crate::dtype::Dtype;
use crate::hardware::Chip;
use crate::model::accounting::{attention_intensity, moe_critical_batch};
use crate::units::Intensity;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hardware::chip;

    #[test]
    fn critical_batches() {
        let c = |w, k| critical_batch(chip("v5e").unwrap(), w, k).unwrap().round();
        assert_eq!(c(Dtype::Bf16, Dtype::Bf16), 240.0);
        assert_eq!(c(Dtype::Int8, Dtype::Bf16), 120.0);
        assert_eq!(c(Dtype::Int8, Dtype::Int8), 240.0);
        assert_eq!(beta(Dtype::Int8, Dtype::Bf16), 0.5);
    }
}
