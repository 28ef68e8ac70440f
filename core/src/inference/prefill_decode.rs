//! Prefill and decode in a serving engine: prefill time, the prefill-to-decode ratio, evictions and speculative tokens.

use super::{batch_ok, computed, fraction, peak, InferenceError, ServingModel, ServingSlice};
use crate::dtype::Dtype;
use crate::model::config::positive;
use crate::training::training_time;
use crate::units::Seconds;

/// Time to prefill `tokens` tokens on one replica of `slice` at utilisation `mfu`:
/// `2·P·T / (N·C·MFU)` (Part 8: 0.91 s for 8k tokens of LLaMA 3-70B on 16 v5e at 40%).
pub fn prefill_time(
    model: &ServingModel,
    tokens: f64,
    slice: &ServingSlice,
    compute: Dtype,
    mfu: f64,
) -> Result<Seconds, InferenceError> {
    let flops = model.forward_flops(tokens)?;
    let mfu = fraction("MFU", mfu)?;
    let t = training_time(flops, slice.tp as f64, peak(slice.chip, compute)?, mfu)?;
    Ok(Seconds(computed("prefill time", t.0)?))
}

/// Prefill servers needed per decode server so both stay saturated:
/// from `P / t_prefill = B·G / (t_step · decode_len)` (Part 8: about 3).
pub fn prefill_decode_ratio(
    prefill: Seconds,
    step: Seconds,
    batch: f64,
    decode_len: f64,
) -> Result<f64, InferenceError> {
    let tp = positive("prefill time", prefill.0)?;
    let ts = positive("step time", step.0)?;
    let b = batch_ok(batch)?;
    let g = positive("decode length", decode_len)?;
    Ok(tp * b / (ts * g))
}

/// Sequences finishing per decode step with continuous batching: `B / G`.
pub fn finished_per_step(batch: f64, decode_len: f64) -> Result<f64, InferenceError> {
    Ok(batch_ok(batch)? / positive("decode length", decode_len)?)
}

/// KV-cache tokens freed per decode step: `B·(P + G)/G` for prompts of `P` and
/// generations of `G` tokens (Part 8).
pub fn tokens_evicted_per_step(
    batch: f64,
    prefill_len: f64,
    decode_len: f64,
) -> Result<f64, InferenceError> {
    let b = batch_ok(batch)?;
    let p = positive("prefill length", prefill_len)?;
    let g = positive("decode length", decode_len)?;
    Ok(b * (p + g) / g)
}

/// Token positions pushed through the layers to generate `generated` tokens
/// after a `prompt`-token prompt, with and without a KV cache (Part 7's first
/// figures).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TokenPasses {
    /// Without a cache: pass `k` re-runs the whole prefix, `prompt + k − 1`
    /// tokens, so the total is `n·P + n(n − 1)/2`, quadratic in `n`.
    pub naive: u64,
    /// With a cache: prefill runs the prompt once, then each of the `n − 1`
    /// later passes runs only the token sampled last: `P + n − 1`, linear.
    pub cached: u64,
}

/// The passes of [`TokenPasses`]; `prompt` and `generated` at least one.
pub fn token_passes(prompt: u64, generated: u64) -> Result<TokenPasses, InferenceError> {
    positive("prompt length", prompt as f64)?;
    positive("tokens generated", generated as f64)?;
    let (p, n) = (prompt.min(1 << 20), generated.min(1 << 20));
    Ok(TokenPasses {
        naive: n * p + n * (n - 1) / 2,
        cached: p + n - 1,
    })
}

/// Expected tokens produced per big-model step by speculative decoding with `k`
/// drafted tokens, each accepted independently with probability `accept`:
/// `(1 − a^(k+1)) / (1 − a)` (Leviathan et al., cited in Part 7 Appendix D).
pub fn speculative_tokens_per_step(accept: f64, k: u32) -> Result<f64, InferenceError> {
    if !(accept.is_finite() && (0.0..=1.0).contains(&accept)) {
        return Err(InferenceError::BadProbability {
            field: "acceptance rate",
            value: accept,
        });
    }
    #[allow(clippy::cast_possible_wrap, reason = "at most 10,000 just here")]
    let k = k.min(10_000) as i32;
    if accept >= 1.0 {
        return Ok(f64::from(k) + 1.0);
    }
    Ok((1.0 - accept.powi(k + 1)) / (1.0 - accept))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speculative_decoding() {
        assert_eq!(speculative_tokens_per_step(0.0, 4).unwrap(), 1.0);
        assert_eq!(speculative_tokens_per_step(1.0, 4).unwrap(), 5.0);
        let e = speculative_tokens_per_step(0.8, 4).unwrap();
        assert!((e - (1.0 - 0.8f64.powi(5)) / 0.2).abs() < 1e-12);
        // Zero is a rate the function accepts, so the refusal's range includes it.
        assert_eq!(
            speculative_tokens_per_step(1.5, 4).unwrap_err().to_string(),
            "acceptance rate must be a probability in [0, 1], not 1.5"
        );
    }

    #[test]
    fn a_cache_turns_quadratic_passes_linear() {
        // A four-token prompt and six generated tokens: 4+5+…+9 without a cache,
        // 4 + 5 with one.
        let t = token_passes(4, 6).unwrap();
        assert_eq!(t.naive, 4 + 5 + 6 + 7 + 8 + 9);
        assert_eq!(t.cached, 9);
        // One token: only the prompt's pass, with or without the cache.
        assert_eq!(
            token_passes(3, 1).unwrap(),
            TokenPasses {
                naive: 3,
                cached: 3
            }
        );
        // Doubling n roughly quadruples the naive count and doubles the cached one.
        let (a, b) = (
            token_passes(1, 1000).unwrap(),
            token_passes(1, 2000).unwrap(),
        );
        assert!((b.naive as f64 / a.naive as f64 - 4.0).abs() < 0.01);
        assert!((b.cached as f64 / a.cached as f64 - 2.0).abs() < 0.01);
        assert!(token_passes(0, 4).is_err() && token_passes(4, 0).is_err());
    }
}
