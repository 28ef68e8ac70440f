//! Gradient checkpointing (Part 4, "Gradient checkpointing"): what the forward pass
//! keeps for the backward pass, and what it costs to recompute the rest. Saving
//! every intermediate needs about twenty `[B·T, D]` arrays per layer; keeping only
//! the outputs of the big matmuls drops the attention scores and recomputes the two
//! attention matmuls; keeping one array per layer ("block remat") reruns the whole
//! forward pass, so a training step costs about `8` instead of `6` FLOPs per
//! parameter per token. Keeping only one layer input in every `√L` layers goes
//! further still: during the backward pass one segment of `√L` layers is rerun to
//! recover its layer inputs, then each of its layers is rerun once more with all its
//! intermediates, so the forward pass is computed three times in all (about `10`
//! FLOPs per parameter per token) and only about `2√L + 20` arrays are held at once.
//!
//! ```
//! use ridgeline_core::model::config::model;
//! use ridgeline_core::model::remat::{compare, RematParams};
//!
//! let p = RematParams::new(model("llama3-70b").unwrap().config, 4.0, 4096.0, 64.0);
//! let rows = compare(&p).unwrap();
//! assert!(rows[0].activation_bytes > rows[2].activation_bytes); // none vs per layer
//! assert!((rows[2].flops_per_param_token - 8.0).abs() < 0.3);
//! ```

use crate::dtype::Dtype;
use crate::model::accounting::{self, Pass, Remat};
use crate::model::config::{positive, ModelConfig};
use crate::units::{Bytes, Flops};

/// What the `remat` widget lets a reader set.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RematParams {
    /// The model.
    pub model: ModelConfig,
    /// Sequences per step.
    pub batch: f64,
    /// Tokens per sequence.
    pub seq: f64,
    /// Chips the activations are spread over (data, FSDP or sequence shards).
    pub chips: f64,
    /// Format of the saved activations.
    pub dtype: Dtype,
}

impl RematParams {
    /// A setting with bf16 activations.
    pub fn new(model: ModelConfig, batch: f64, seq: f64, chips: f64) -> RematParams {
        RematParams {
            model,
            batch,
            seq,
            chips,
            dtype: Dtype::Bf16,
        }
    }

    /// Checks every field; the message names the bad one.
    pub fn validate(&self) -> Result<(), String> {
        self.model.validate().map_err(|e| format!("model: {e}"))?;
        for (name, v) in [
            ("batch", self.batch),
            ("seq", self.seq),
            ("chips", self.chips),
        ] {
            positive(name, v).map_err(|e| format!("{name}: {e}"))?;
        }
        if self.batch * self.seq > 1e15 {
            return Err("batch: batch × seq must stay below 1e15 tokens".into());
        }
        Ok(())
    }
}

/// A checkpointing policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// Save every intermediate.
    None,
    /// Save the outputs of the big matmuls; recompute the attention matmuls.
    Selected,
    /// Save each layer's input; recompute each layer's forward pass.
    PerLayer,
    /// Save one layer input every `√L` layers; recompute a segment's layer inputs,
    /// then each layer's intermediates (two extra forward passes).
    Full,
}

impl Policy {
    /// Every policy, least recomputation first.
    pub const ALL: [Policy; 4] = [
        Policy::None,
        Policy::Selected,
        Policy::PerLayer,
        Policy::Full,
    ];

    /// The name used in URLs and directives.
    pub fn name(self) -> &'static str {
        match self {
            Policy::None => "none",
            Policy::Selected => "selected",
            Policy::PerLayer => "per-layer",
            Policy::Full => "full",
        }
    }

    /// Parses [`Policy::name`].
    pub fn parse(text: &str) -> Result<Policy, String> {
        Policy::ALL
            .into_iter()
            .find(|p| p.name() == text.trim())
            .ok_or_else(|| {
                format!("policy: {text:?} is not one of none, selected, per-layer, full")
            })
    }
}

/// One policy's cost.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PolicyCost {
    /// The policy.
    pub policy: Policy,
    /// Activation bytes per chip at the peak of the backward pass.
    pub activation_bytes: Bytes,
    /// Extra forward FLOPs recomputed per step (whole batch).
    pub extra_flops: Flops,
    /// Training FLOPs per step including recomputation.
    pub total_flops: Flops,
    /// `total_flops / (active params · tokens)`: 6 without recomputation.
    pub flops_per_param_token: f64,
}

impl PolicyCost {
    /// The recomputed FLOPs as a share of the step without recomputation
    /// (`0` for no remat, about `1/3` for per-layer remat: `8` against `6`).
    pub fn extra_share(&self) -> f64 {
        let base = self.total_flops.0 - self.extra_flops.0;
        if base > 0.0 {
            self.extra_flops.0 / base
        } else {
            0.0
        }
    }
}

/// Every policy's activation memory and extra FLOPs for `p` (causal attention).
pub fn compare(p: &RematParams) -> Result<Vec<PolicyCost>, String> {
    p.validate()?;
    let cfg = &p.model;
    let tokens = p.batch * p.seq;
    let train = accounting::flops(cfg, p.batch, p.seq, Pass::Training, true)
        .map_err(|e| e.to_string())?
        .total();
    let params = accounting::active_params(cfg).total();
    let l = cfg.layers as f64;
    let layer_bytes = |r: Remat| r.activation_bytes(cfg, tokens, p.dtype) / l;
    Policy::ALL
        .into_iter()
        .map(|policy| {
            let (bytes, extra) = match policy {
                Policy::None => (layer_bytes(Remat::SaveAll) * l, Remat::SaveAll),
                Policy::Selected => (layer_bytes(Remat::BigMatmuls) * l, Remat::BigMatmuls),
                Policy::PerLayer => (
                    // Every layer input, plus one layer's intermediates while it is redone.
                    layer_bytes(Remat::PerLayer(1)) * l + layer_bytes(Remat::SaveAll),
                    Remat::PerLayer(1),
                ),
                Policy::Full => {
                    let seg = l.sqrt().ceil();
                    let kept = (l / seg).ceil();
                    (
                        layer_bytes(Remat::PerLayer(1)) * (kept + seg)
                            + layer_bytes(Remat::SaveAll),
                        Remat::PerLayer(1),
                    )
                }
            };
            let reruns = if policy == Policy::Full { 2.0 } else { 1.0 };
            let extra = extra
                .extra_flops(cfg, p.batch, p.seq, true)
                .map_err(|e| e.to_string())?
                * reruns;
            let total = train + extra;
            Ok(PolicyCost {
                policy,
                activation_bytes: bytes / p.chips,
                extra_flops: extra,
                total_flops: total,
                flops_per_param_token: total.0 / (params * tokens),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::config::model;

    fn p() -> RematParams {
        RematParams::new(model("llama3-70b").unwrap().config, 32.0, 4096.0, 256.0)
    }

    #[test]
    fn memory_falls_and_flops_rise_down_the_list() {
        let rows = compare(&p()).unwrap();
        assert_eq!(rows.len(), 4);
        for w in rows.windows(2) {
            assert!(w[1].activation_bytes < w[0].activation_bytes, "{w:?}");
            assert!(w[1].extra_flops > w[0].extra_flops);
        }
        assert_eq!(rows[0].extra_flops.0, 0.0);
        assert!(rows[0].flops_per_param_token > 6.0 && rows[0].flops_per_param_token < 6.5);
        assert!((rows[2].flops_per_param_token - 8.0).abs() < 0.4);
        assert!((rows[3].flops_per_param_token - 10.0).abs() < 0.6);
    }

    #[test]
    fn save_everything_is_twenty_arrays_per_layer() {
        let q = p();
        let rows = compare(&q).unwrap();
        let c = &q.model;
        let expect = 2.0 * 20.0 * q.batch * q.seq * c.d_model as f64 * c.layers as f64 / q.chips;
        assert_eq!(rows[0].activation_bytes.0, expect);
    }

    #[test]
    fn extra_share_is_a_third_for_block_remat_and_two_thirds_for_full() {
        let rows = compare(&p()).unwrap();
        assert_eq!(rows[0].extra_share(), 0.0);
        // The book: block remat costs about 8 instead of 6 FLOPs per parameter-token.
        assert!(
            (rows[2].extra_share() - 1.0 / 3.0).abs() < 0.05,
            "{:?}",
            rows[2]
        );
        assert!(
            (rows[3].extra_share() - 2.0 / 3.0).abs() < 0.1,
            "{:?}",
            rows[3]
        );
        assert!(rows[1].extra_share() > 0.0 && rows[1].extra_share() < rows[2].extra_share());
    }

    #[test]
    fn bad_fields_are_named() {
        let q = RematParams { chips: 0.0, ..p() };
        assert!(compare(&q).unwrap_err().starts_with("chips:"));
        assert!(Policy::parse("most").unwrap_err().starts_with("policy:"));
        assert_eq!(Policy::parse("per-layer"), Ok(Policy::PerLayer));
    }
}
