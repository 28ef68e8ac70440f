//! The roofline of each component of a layer (linear layers, attention) in prefill and decode.

use super::{batch_ok, peak, seq_ok, InferenceError, Precision, ServingModel};
use crate::dtype::Dtype;
use crate::hardware::{Chip, Link};
use crate::model::accounting::active_params;
use crate::model::config::ModelConfig;
use crate::roofline::{Analysis, Verdict};
use crate::units::{Bytes, Flops, Intensity};

/// Prefill (process a prompt) or decode (generate one token per sequence).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// All `seq` tokens of each prompt at once.
    Prefill,
    /// One new token per sequence against a cache of `seq` tokens.
    Decode,
}

/// A part of a layer with its own roofline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Component {
    /// The weight matmuls: MLP and attention projections.
    Linear,
    /// Dot-product attention against the KV cache.
    Attention,
}

impl Component {
    /// `MLP + projections` or `attention`.
    pub fn label(self) -> &'static str {
        match self {
            Component::Linear => "MLP + projections",
            Component::Attention => "attention",
        }
    }
}

/// One component of one layer on one chip, on the HBM roofline.
#[derive(Debug, Clone, PartialEq)]
pub struct ComponentRoofline {
    /// Which component.
    pub component: Component,
    /// FLOPs per layer.
    pub flops: Flops,
    /// HBM bytes per layer.
    pub bytes: Bytes,
    /// `flops / bytes`.
    pub intensity: Intensity,
    /// The chip's ridge for the compute format.
    pub ridge: Intensity,
    /// Times and verdict.
    pub analysis: Analysis,
}

impl ComponentRoofline {
    /// Compute- or memory-bound.
    pub fn verdict(&self) -> Verdict {
        self.analysis.verdict
    }
}

/// One weight matmul of a layer, `[tokens, d_in]·[d_in, d_out]`, applied
/// `copies` times per token (the active experts of an MoE layer).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LayerMatmul {
    /// The weight's name (`W_Q`, `W_in`, ...).
    pub name: &'static str,
    /// Contracting width.
    pub d_in: f64,
    /// Output width.
    pub d_out: f64,
    /// How many times each token passes through a matmul of this shape.
    pub copies: f64,
}

/// The weight matmuls of one layer of `cfg`: the attention projections (or
/// MLA's down- and up-projections) and the MLP (three matrices when gated,
/// two otherwise; the active routed plus shared experts of an MoE layer).
pub fn layer_matmuls(cfg: &ModelConfig) -> Vec<LayerMatmul> {
    let d = cfg.d_model as f64;
    let n = cfg.heads as f64;
    let mm = |name, d_in: f64, d_out: f64, copies: f64| LayerMatmul {
        name,
        d_in,
        d_out,
        copies,
    };
    let mut out = match cfg.mla {
        None => {
            let h = cfg.head_dim as f64;
            let k = cfg.kv_heads as f64;
            vec![
                mm("W_Q", d, n * h, 1.0),
                mm("W_K", d, k * h, 1.0),
                mm("W_V", d, k * h, 1.0),
                mm("W_O", n * h, d, 1.0),
            ]
        }
        Some(m) => {
            let qk = (m.nope_dim + m.rope_dim) as f64;
            let mut v = Vec::new();
            if m.q_rank > 0 {
                v.push(mm("W_DQ", d, m.q_rank as f64, 1.0));
                v.push(mm("W_UQ", m.q_rank as f64, n * qk, 1.0));
            } else {
                v.push(mm("W_Q", d, n * qk, 1.0));
            }
            v.push(mm("W_DKV", d, (m.kv_rank + m.rope_dim) as f64, 1.0));
            v.push(mm(
                "W_UKV",
                m.kv_rank as f64,
                n * (m.nope_dim + m.v_dim) as f64,
                1.0,
            ));
            v.push(mm("W_O", n * m.v_dim as f64, d, 1.0));
            v
        }
    };
    let (ff, copies) = match cfg.moe {
        None => (cfg.d_ff as f64, 1.0),
        Some(m) => (m.expert_ff as f64, (m.active + m.shared) as f64),
    };
    if cfg.gated {
        out.push(mm("W_gate", d, ff, copies));
    }
    out.push(mm("W_in", d, ff, copies));
    out.push(mm("W_out", ff, d, copies));
    out
}

/// The per-layer rooflines of the weight matmuls and of attention, for `batch`
/// sequences at context `seq`, on one (unsharded) chip.
///
/// The linear part counts `2·tokens·P_layer` FLOPs against the layer's weight
/// bytes plus, for every matmul of the layer, its input and output activations
/// (bf16), as Part 1's roofline does (`2BD + 2DF + 2BF` bytes for one
/// `[B, D]·[D, F]` matmul, see [`layer_matmuls`]). While the token batch is small
/// against `D` and `F` the weights dominate and it flips to compute-bound just
/// above [`critical_batch`](crate::inference::critical_batch) tokens; for a long prefill the intensity levels off
/// at `P_layer / Σ(in + out)`, which is `D·F/(D+F)` for a single matmul.
/// Attention reads Q and the
/// KV cache and writes its output: `4·B·T·S·N·H` FLOPs against
/// `kv·2·B·S·K·H + act·2·B·T·N·H` bytes, intensity `T·S·G/(S + T·G)` in bf16 —
/// about `G` while decoding, whatever the batch.
pub fn component_rooflines(
    model: &ServingModel,
    precision: Precision,
    chip: &'static Chip,
    phase: Phase,
    batch: f64,
    seq: f64,
) -> Result<[ComponentRoofline; 2], InferenceError> {
    let cfg = &model.config;
    let b = batch_ok(batch)?;
    let s = seq_ok(cfg, seq)?;
    let c = peak(chip, precision.compute)?;
    let w = chip.hbm_bw();
    let ridge = c / w;
    let t = match phase {
        Phase::Prefill => s,
        Phase::Decode => 1.0,
    };
    let layers = cfg.layers as f64;
    let active = active_params(cfg);
    let layer_params = ((active.attention + active.mlp + active.router) / layers).max(1.0);
    let act = Dtype::Bf16;
    let lin_flops = Flops(2.0 * b * t * layer_params);
    let act_per_token: f64 = layer_matmuls(cfg)
        .iter()
        .map(|m| m.copies * (m.d_in + m.d_out))
        .sum();
    let lin_bytes = precision.weights.size_of(layer_params) + act.size_of(b * t * act_per_token);
    let (qk_dim, v_dim, kv_elems) = match cfg.mla {
        None => {
            let h = cfg.head_dim as f64;
            (h, h, 2.0 * cfg.kv_heads as f64 * h)
        }
        Some(m) => (
            (m.kv_rank + m.rope_dim) as f64,
            m.kv_rank as f64,
            (m.kv_rank + m.rope_dim) as f64,
        ),
    };
    let n = cfg.heads as f64;
    let att_flops = Flops(2.0 * b * t * s * n * (qk_dim + v_dim));
    let att_bytes =
        precision.kv.size_of(b * s * kv_elems) + act.size_of(b * t * n * (qk_dim + v_dim));
    let make = |component, flops: Flops, bytes: Bytes| ComponentRoofline {
        component,
        flops,
        bytes,
        intensity: flops / bytes,
        ridge,
        analysis: Analysis::new(flops, c, &[(Link::Hbm, bytes, w)]),
    };
    Ok([
        make(Component::Linear, lin_flops, lin_bytes),
        make(Component::Attention, att_flops, att_bytes),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hardware::chip;
    use crate::inference::{critical_batch, Precision};
    use crate::roofline::ops::Op;

    #[test]
    fn mlp_flips_at_the_critical_batch_while_attention_stays_memory_bound() {
        let m = ServingModel::preset("llama3-70b").unwrap();
        let p = Precision::BF16;
        let bc = critical_batch(chip("v5e").unwrap(), p.weights, p.compute).unwrap();
        let at = |b: f64| {
            component_rooflines(&m, p, chip("v5e").unwrap(), Phase::Decode, b, 4096.0).unwrap()
        };
        // Counting activations moves the flip a little above B_crit (within 10 %).
        let below = at(bc.floor() - 1.0);
        let above = at((bc * 1.1).ceil());
        assert_eq!(below[0].verdict(), Verdict::MemoryBound);
        assert_eq!(above[0].verdict(), Verdict::ComputeBound);
        for b in [1.0, 64.0, 240.0, 4096.0] {
            assert_eq!(at(b)[1].verdict(), Verdict::MemoryBound, "{b}");
            // GQA with G = 8: decode attention intensity is just under 8.
            assert!((at(b)[1].intensity.0 - 8.0).abs() < 0.1);
        }
        let pre =
            component_rooflines(&m, p, chip("v5e").unwrap(), Phase::Prefill, 1.0, 4096.0).unwrap();
        assert_eq!(pre[1].verdict(), Verdict::ComputeBound);
    }

    fn linear(batch: f64, seq: f64) -> ComponentRoofline {
        let m = ServingModel::preset("llama3-70b").unwrap();
        let v5e = chip("v5e").unwrap();
        let [lin, _] =
            component_rooflines(&m, Precision::BF16, v5e, Phase::Prefill, batch, seq).unwrap();
        lin
    }

    #[test]
    fn prefill_intensity_counts_activations_like_part_1() {
        // The book's W_in of LLaMA 3-70B at T = 4096: about 2,500 FLOPs per byte.
        let w_in = Op::Matmul {
            b: 4096.0,
            d: 8192.0,
            f: 28672.0,
            act: Dtype::Bf16,
            weight: Dtype::Bf16,
        };
        assert!((w_in.intensity().0 - 2493.0).abs() < 1.0);
        let one = linear(1.0, 4096.0);
        assert!(
            one.intensity.0 > 1500.0 && one.intensity.0 < w_in.intensity().0,
            "{}",
            one.intensity.0
        );
        // The layer's FLOPs and bytes are the sums of Part 1's matmuls.
        let cfg = &ServingModel::preset("llama3-70b").unwrap().config;
        let (mut flops, mut bytes) = (0.0, 0.0);
        for mm in layer_matmuls(cfg) {
            let op = Op::Matmul {
                b: 4096.0,
                d: mm.d_in,
                f: mm.d_out,
                act: Dtype::Bf16,
                weight: Dtype::Bf16,
            };
            flops += mm.copies * op.flops().0;
            bytes += mm.copies * op.hbm_bytes().0;
        }
        assert!((one.flops.0 / flops - 1.0).abs() < 1e-3);
        assert!((one.bytes.0 / bytes - 1.0).abs() < 1e-3);
        // 512 prompts of 4096 tokens: bounded by the layer's limit, far below 2.1e6.
        let big = linear(512.0, 4096.0);
        let per_token: f64 = layer_matmuls(cfg)
            .iter()
            .map(|m| m.copies * (m.d_in + m.d_out))
            .sum();
        let weights: f64 = layer_matmuls(cfg)
            .iter()
            .map(|m| m.copies * m.d_in * m.d_out)
            .sum();
        let limit = weights / per_token;
        assert!(big.intensity.0 < limit && big.intensity.0 > 0.99 * limit);
        assert!(limit < 8192.0 * 28672.0 / (8192.0 + 28672.0));
    }
}
