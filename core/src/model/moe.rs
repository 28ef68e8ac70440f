//! Mixture-of-Experts layers (Part 4, "Sparsity and Mixture-of-Experts"): a layer
//! holds `E` expert MLPs but each token visits only `k` of them, so the model stores
//! far more parameters than a token uses. That is cheap in FLOPs and expensive in
//! bytes: every expert's weights are loaded for the few tokens routed to it, so the
//! expert matmuls only become compute-bound once each expert sees enough tokens,
//! about `B > ridge · bytes · E / (2k)` tokens per batch. Experts are usually spread
//! over chips (expert parallelism), which divides their memory but makes every
//! token travel to its experts and back with two AllToAlls per layer.
//!
//! ```
//! use ridgeline_core::hardware::chip;
//! use ridgeline_core::model::config::model;
//! use ridgeline_core::model::moe::{analyse, MoeParams};
//!
//! let p = MoeParams::preset("deepseek-v3", chip("v5e").unwrap()).unwrap();
//! let a = analyse(&p).unwrap();
//! // About 671B stored and 37B used: every token touches a small share.
//! assert!(a.total_params > 15.0 * a.active_params);
//! assert!(a.total_params < 20.0 * a.active_params);
//! ```

use crate::comms::collectives::{all_to_all, Network, RingAxis};
use crate::dtype::Dtype;
use crate::hardware::Chip;
use crate::model::accounting;
use crate::model::config::{self, ModelConfig};
use crate::roofline::Verdict;
use crate::units::{Bytes, Flops, Seconds};

/// What the `moe` widget lets a reader set.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MoeParams {
    /// The model; its `moe` field may be replaced by the reader's `E`, `k` and expert size.
    pub model: ModelConfig,
    /// Tokens in one batch, `B`.
    pub tokens: f64,
    /// The chip.
    pub chip: &'static Chip,
    /// Format of the weights (FLOPs run in bf16).
    pub weight: Dtype,
    /// Chips the experts of a layer are spread over (expert parallelism).
    pub expert_parallel: u32,
}

/// The registry's Mixture-of-Experts presets.
pub fn presets() -> impl Iterator<Item = &'static config::ModelPreset> {
    config::MODELS.iter().filter(|m| m.config.moe.is_some())
}

impl MoeParams {
    /// A preset with a batch of 8192 tokens, bf16 weights and the experts spread over
    /// as many chips as there are experts (capped at 256).
    pub fn preset(id: &str, chip: &'static Chip) -> Result<MoeParams, String> {
        let m = config::model(id).ok_or_else(|| format!("model: no preset is called {id:?}"))?;
        MoeParams::of(m, chip)
    }

    /// [`MoeParams::preset`] for any model of the registry's type (a reader's
    /// own Mixture of Experts, say).
    pub fn of(m: &config::ModelPreset, chip: &'static Chip) -> Result<MoeParams, String> {
        let e = m
            .config
            .moe
            .ok_or_else(|| format!("model: {} is not a Mixture-of-Experts model", m.name))?;
        Ok(MoeParams {
            model: m.config,
            tokens: 8192.0,
            chip,
            weight: Dtype::Bf16,
            expert_parallel: e.experts.min(256) as u32,
        })
    }

    /// Replaces the expert count, active experts and expert width.
    pub fn with_experts(mut self, experts: u64, active: u64, expert_ff: u64) -> MoeParams {
        if let Some(m) = self.model.moe.as_mut() {
            m.experts = experts;
            m.active = active;
            m.expert_ff = expert_ff;
        }
        self
    }

    /// Checks every field; the message names the bad one.
    pub fn validate(&self) -> Result<(), String> {
        let Some(m) = self.model.moe else {
            return Err("model: not a Mixture-of-Experts model".into());
        };
        if m.active == 0 || m.active > m.experts {
            return Err(format!(
                "k: active experts must be between 1 and E = {}",
                m.experts
            ));
        }
        self.model.validate().map_err(|e| format!("model: {e}"))?;
        if !(self.tokens.is_finite() && self.tokens >= 1.0 && self.tokens <= 1e12) {
            return Err("tokens: a batch of 1 to 1e12 tokens".into());
        }
        if self.expert_parallel == 0 || !m.experts.is_multiple_of(self.expert_parallel as u64) {
            return Err(format!(
                "ep: the expert-parallel degree must divide E = {}",
                m.experts
            ));
        }
        if self.chip.peak(Dtype::Bf16).is_none() {
            return Err(format!(
                "chip: {} has no bf16 peak in the registry",
                self.chip.name
            ));
        }
        Ok(())
    }
}

/// Everything the `moe` widget shows.
#[derive(Debug, Clone, PartialEq)]
pub struct MoeAnalysis {
    /// Parameters stored.
    pub total_params: f64,
    /// Parameters one token uses.
    pub active_params: f64,
    /// Forward FLOPs per token, `2 · active params`.
    pub forward_flops_per_token: Flops,
    /// Training FLOPs per token, `6 · active params`.
    pub training_flops_per_token: Flops,
    /// Tokens each expert receives on average, `B · k / E`.
    pub tokens_per_expert: f64,
    /// The batch above which the expert matmuls are compute-bound.
    pub critical_batch: f64,
    /// Compute- or memory-bound at this batch.
    pub verdict: Verdict,
    /// Weight bytes per chip: the non-expert weights whole, the experts divided by
    /// the expert-parallel degree.
    pub weight_bytes_per_chip: Bytes,
    /// Whether those weights fit in HBM.
    pub fits: bool,
    /// Bytes one AllToAll moves per MoE layer (tokens × k × D activations).
    pub all_to_all_bytes: Bytes,
    /// Time of the dispatch plus the combine AllToAll per MoE layer.
    pub all_to_all_time: Seconds,
    /// Time of one MoE layer's expert FLOPs on the expert-parallel chips.
    pub expert_time: Seconds,
}

/// Analyses `p`.
pub fn analyse(p: &MoeParams) -> Result<MoeAnalysis, String> {
    p.validate()?;
    let cfg = &p.model;
    let m = cfg.moe.ok_or("model: not a Mixture-of-Experts model")?;
    let total = accounting::params(cfg);
    let active = accounting::active_params(cfg);
    let peak = p
        .chip
        .peak(Dtype::Bf16)
        .ok_or("chip: no bf16 peak in the registry")?;
    let ridge = peak / p.chip.hbm_bw();
    let critical =
        accounting::moe_critical_batch(m.experts as f64, m.active as f64, ridge, p.weight);
    let (e, k) = (m.experts as f64, m.active as f64);
    let expert = accounting::expert_params(cfg);
    let routed = cfg.moe_layers() as f64 * e * expert;
    let ep = p.expert_parallel as f64;
    let weight_bytes = p.weight.size_of(total.total() - routed + routed / ep);
    let act = Dtype::Bf16.size_of(p.tokens * k * cfg.d_model as f64);
    let (a2a_time, a2a_bytes) = if p.expert_parallel > 1 {
        let net = Network::ici(p.chip).map_err(|e| format!("chip: {e}"))?;
        let c = all_to_all(act, &[RingAxis::ring(p.expert_parallel)], &net)
            .map_err(|e| format!("ep: {e}"))?;
        (c.time * 2.0, act)
    } else {
        (Seconds(0.0), Bytes(0.0))
    };
    let expert_flops = Flops(2.0 * p.tokens * k * expert);
    Ok(MoeAnalysis {
        total_params: total.total(),
        active_params: active.total(),
        forward_flops_per_token: Flops(2.0 * active.total()),
        training_flops_per_token: accounting::training_flops_per_token(cfg),
        tokens_per_expert: p.tokens * k / e,
        critical_batch: critical,
        verdict: if p.tokens > critical {
            Verdict::ComputeBound
        } else {
            Verdict::MemoryBound
        },
        fits: weight_bytes <= p.chip.hbm_capacity.value,
        weight_bytes_per_chip: weight_bytes,
        all_to_all_bytes: a2a_bytes,
        all_to_all_time: a2a_time,
        expert_time: expert_flops / (peak * ep),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hardware::{chip, Link};

    fn v5e() -> &'static Chip {
        chip("v5e").unwrap()
    }

    #[test]
    fn deepseek_stores_far_more_than_it_uses() {
        let a = analyse(&MoeParams::preset("deepseek-v3", v5e()).unwrap()).unwrap();
        assert!(
            (a.total_params / 671e9 - 1.0).abs() < 0.01,
            "{}",
            a.total_params
        );
        assert!(
            (a.active_params / 37e9 - 1.0).abs() < 0.03,
            "{}",
            a.active_params
        );
        assert_eq!(
            a.training_flops_per_token.0,
            3.0 * a.forward_flops_per_token.0
        );
    }

    #[test]
    fn the_critical_batch_is_ridge_times_e_over_k_in_bf16() {
        let p = MoeParams {
            tokens: 512.0,
            ..MoeParams::preset("mixtral-8x7b", v5e()).unwrap()
        };
        let a = analyse(&p).unwrap();
        let ridge = v5e().ridge(Dtype::Bf16, Link::Hbm).unwrap().0;
        assert!((a.critical_batch - ridge * 8.0 / 2.0).abs() < 1e-9);
        let int8 = analyse(&MoeParams {
            weight: Dtype::Int8,
            ..p
        })
        .unwrap();
        assert!((int8.critical_batch * 2.0 - a.critical_batch).abs() < 1e-9);
        let big = analyse(&MoeParams {
            tokens: a.critical_batch * 2.0,
            ..p
        })
        .unwrap();
        assert_eq!(a.verdict, Verdict::MemoryBound);
        assert_eq!(big.verdict, Verdict::ComputeBound);
    }

    #[test]
    fn expert_parallelism_divides_expert_memory_and_adds_all_to_alls() {
        let p = MoeParams::preset("gpt-oss-120b", v5e()).unwrap();
        let one = analyse(&MoeParams {
            expert_parallel: 1,
            ..p
        })
        .unwrap();
        let many = analyse(&p).unwrap();
        assert!(many.weight_bytes_per_chip < one.weight_bytes_per_chip * 0.1);
        assert_eq!(one.all_to_all_time.0, 0.0);
        assert!(many.all_to_all_time.0 > 0.0);
        assert_eq!(presets().count(), 3);
    }

    #[test]
    fn bad_fields_are_named() {
        let p = MoeParams::preset("mixtral-8x7b", v5e()).unwrap();
        assert!(analyse(&p.with_experts(8, 9, 14336))
            .unwrap_err()
            .starts_with("k:"));
        assert!(analyse(&MoeParams {
            expert_parallel: 3,
            ..p
        })
        .unwrap_err()
        .starts_with("ep:"));
        assert!(analyse(&MoeParams {
            tokens: f64::NAN,
            ..p
        })
        .unwrap_err()
        .starts_with("tokens:"));
        assert!(MoeParams::preset("llama3-8b", v5e())
            .unwrap_err()
            .starts_with("model:"));
    }

    proptest::proptest! {
        #[test]
        fn active_never_exceeds_total(e in 1u64..512, k in 1u64..64, f in 64u64..8192) {
            let p = MoeParams::preset("mixtral-8x7b", chip("v5e").unwrap()).unwrap();
            let k = k.min(e);
            let p = MoeParams { expert_parallel: 1, ..p.with_experts(e, k, f) };
            let a = analyse(&p).unwrap();
            proptest::prop_assert!(a.active_params <= a.total_params);
            proptest::prop_assert!((a.tokens_per_expert * e as f64 - p.tokens * k as f64).abs() < 1e-6 * p.tokens * k as f64);
        }
    }
}
