//! One Transformer layer, operation by operation (Part 4, "Transformer
//! Accounting"): the book's layer diagram with numbers. Each matmul has shapes,
//! forward FLOPs, parameters and the bytes it reads and writes; the other
//! operations (norms, softmax, the gating nonlinearity, residual adds) have a
//! per-element FLOP estimate so their share can be seen to be small. The totals
//! recover the ledger of [`crate::model::accounting`]: matmul FLOPs are `2 · params ·
//! tokens` forward, plus the two attention matmuls, which have no parameters.
//!
//! The per-element costs of the non-matmul operations are our estimates, not the
//! book's (it calls them negligible): an RMS norm takes four FLOPs per element
//! (square, sum, scale, weight), a softmax five per score (max, subtract, exponent,
//! sum, divide), a gated SiLU five per hidden element and a residual add one.
//!
//! ```
//! use ridgeline_core::dtype::Dtype;
//! use ridgeline_core::model::layer::{layer_ops, LayerParams};
//! use ridgeline_core::model::config::model;
//!
//! let p = LayerParams { model: model("llama3-70b").unwrap().config, batch: 1.0, seq: 4096.0, dtype: Dtype::Bf16, causal: false };
//! let l = layer_ops(&p).unwrap();
//! assert!(l.matmul_share() > 0.99); // norms, softmax and adds are under 1% of the FLOPs
//! ```

use crate::dtype::Dtype;
use crate::model::accounting;
use crate::model::config::{positive, ModelConfig, MAX_SEQ};
use crate::units::{Bytes, Flops, Intensity};

/// FLOPs per element of an RMS norm (our estimate).
pub const NORM_FLOPS: f64 = 4.0;
/// FLOPs per attention score of a softmax (our estimate).
pub const SOFTMAX_FLOPS: f64 = 5.0;
/// FLOPs per hidden element of the gated nonlinearity, `silu(a)·b` (our estimate).
pub const GATE_FLOPS: f64 = 5.0;

/// What the layer diagram needs: a model, a batch of sequences and a format.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LayerParams {
    /// The model (grouped-query attention; MLA models are refused).
    pub model: ModelConfig,
    /// Sequences in the batch, `B`.
    pub batch: f64,
    /// Tokens per sequence, `T` (queries and keys).
    pub seq: f64,
    /// Format of weights and activations.
    pub dtype: Dtype,
    /// Whether the attention kernel skips the masked half of a causal mask.
    pub causal: bool,
}

impl LayerParams {
    /// Checks every field; the message names the bad one.
    pub fn validate(&self) -> Result<(), String> {
        self.model.validate().map_err(|e| e.to_string())?;
        if self.model.mla.is_some() {
            return Err(
                "model: the layer diagram covers grouped-query attention, not latent attention"
                    .into(),
            );
        }
        positive("batch", self.batch).map_err(|e| e.to_string())?;
        positive("seq", self.seq).map_err(|e| e.to_string())?;
        if self.seq > MAX_SEQ as f64 {
            return Err(format!("seq: at most {MAX_SEQ} tokens"));
        }
        if self.batch * self.seq > 1e15 {
            return Err("batch: batch × seq must stay below 1e15 tokens".into());
        }
        Ok(())
    }
}

/// Matmul or something cheaper.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpKind {
    /// A matmul against a weight matrix.
    Weight,
    /// A matmul between activations (the two attention matmuls).
    Attention,
    /// Norms, softmax, nonlinearities, residual adds.
    Elementwise,
}

/// One operation of the layer.
#[derive(Debug, Clone, PartialEq)]
pub struct LayerOp {
    /// Its name in the diagram (`W_Q`, `QKᵀ`, `softmax`, …).
    pub name: &'static str,
    /// Matmul or elementwise.
    pub kind: OpKind,
    /// The contraction in the book's letters, e.g. `BTD,DNH->BTNH`.
    pub einsum: &'static str,
    /// Input and output shapes with numbers, e.g. `[4096, 8192] × [8192, 8192] → [4096, 8192]`.
    pub shapes: String,
    /// Forward FLOPs.
    pub flops: Flops,
    /// Parameters the operation owns.
    pub params: f64,
    /// Bytes read and written if every operand goes through HBM.
    pub bytes: Bytes,
}

impl LayerOp {
    /// FLOPs per byte.
    pub fn intensity(&self) -> Intensity {
        self.flops / self.bytes
    }

    /// Training FLOPs: three times the forward for matmuls (forward plus two
    /// gradients), about twice for elementwise work (our estimate).
    pub fn training_flops(&self) -> Flops {
        match self.kind {
            OpKind::Elementwise => self.flops * 2.0,
            _ => self.flops * 3.0,
        }
    }
}

/// The whole layer.
#[derive(Debug, Clone, PartialEq)]
pub struct LayerOps {
    /// Operations in order.
    pub ops: Vec<LayerOp>,
    /// Tokens in the batch, `B·T`.
    pub tokens: f64,
}

impl LayerOps {
    /// Forward FLOPs of everything.
    pub fn flops(&self) -> Flops {
        self.ops.iter().map(|o| o.flops).sum()
    }

    /// Parameters of the layer.
    pub fn params(&self) -> f64 {
        self.ops.iter().map(|o| o.params).sum()
    }

    /// Sum of `value` over the operations whose kind passes `keep`.
    fn sum(&self, keep: impl Fn(OpKind) -> bool, value: impl Fn(&LayerOp) -> f64) -> f64 {
        self.ops.iter().filter(|o| keep(o.kind)).map(value).sum()
    }

    /// Share of forward FLOPs in matmuls (weight and attention).
    pub fn matmul_share(&self) -> f64 {
        self.sum(|k| k != OpKind::Elementwise, |o| o.flops.0) / self.flops().0
    }

    /// Share of forward FLOPs in the two attention matmuls.
    pub fn attention_share(&self) -> f64 {
        self.sum(|k| k == OpKind::Attention, |o| o.flops.0) / self.flops().0
    }

    /// The rule of thumb for this layer: `6 · (weight-matrix params) · tokens`.
    pub fn rule_of_thumb(&self) -> Flops {
        let p = self.sum(|k| k == OpKind::Weight, |o| o.params);
        accounting::training_flops_rule(p, self.tokens)
    }

    /// Training FLOPs of every operation.
    pub fn training_flops(&self) -> Flops {
        self.ops.iter().map(LayerOp::training_flops).sum()
    }
}

fn g(x: f64) -> String {
    crate::format::grouped(x)
}

/// Every operation of one layer for `p` (for an MoE, one token's `k` routed and the
/// shared experts, with all experts' parameters on the MLP rows).
pub fn layer_ops(p: &LayerParams) -> Result<LayerOps, String> {
    p.validate()?;
    let c = &p.model;
    let bt = p.batch * p.seq;
    let (d, n, k, h) = (
        c.d_model as f64,
        c.heads as f64,
        c.kv_heads as f64,
        c.head_dim as f64,
    );
    let s_eff = if p.causal { p.seq / 2.0 } else { p.seq };
    let (f, active, stored) = match c.moe {
        None => (c.d_ff as f64, 1.0, 1.0),
        Some(m) => (
            m.expert_ff as f64,
            (m.active + m.shared) as f64,
            (m.experts + m.shared) as f64,
        ),
    };
    let by = p.dtype.bytes();
    let mut ops = Vec::new();
    let mut weight = |name, einsum, rows: f64, inner: f64, cols: f64, copies: f64, stored: f64| {
        ops.push(LayerOp {
            name,
            kind: OpKind::Weight,
            einsum,
            shapes: format!(
                "[{}, {}] × [{}, {}] → [{}, {}]",
                g(rows),
                g(inner),
                g(inner),
                g(cols),
                g(rows),
                g(cols)
            ),
            flops: Flops(2.0 * rows * inner * cols * copies),
            params: inner * cols * stored,
            bytes: Bytes(by * (copies * (rows * inner + rows * cols) + stored * inner * cols)),
        });
    };
    weight("W_Q", "BTD,DNH->BTNH", bt, d, n * h, 1.0, 1.0);
    weight("W_K", "BTD,DKH->BTKH", bt, d, k * h, 1.0, 1.0);
    weight("W_V", "BTD,DKH->BTKH", bt, d, k * h, 1.0, 1.0);
    weight("W_O", "BTNH,NHD->BTD", bt, n * h, d, 1.0, 1.0);
    let gate = c.gated;
    weight("W_in", "BTD,DF->BTF", bt, d, f, active, stored);
    if gate {
        weight("W_gate", "BTD,DF->BTF", bt, d, f, active, stored);
    }
    weight("W_out", "BTF,FD->BTD", bt, f, d, active, stored);
    let scores = p.batch * n * p.seq * s_eff;
    let attention = |name, einsum, flops: f64, bytes: f64| LayerOp {
        name,
        kind: OpKind::Attention,
        einsum,
        shapes: format!(
            "{} heads × [{}, {}] · [{}, {}]",
            g(p.batch * n),
            g(p.seq),
            g(h),
            g(h),
            g(p.seq)
        ),
        flops: Flops(flops),
        params: 0.0,
        bytes: Bytes(by * bytes),
    };
    let q_bytes = bt * n * h;
    let kv_bytes = bt * k * h;
    ops.push(attention(
        "QKᵀ",
        "BTKGH,BSKH->BTSKG",
        2.0 * scores * h,
        q_bytes + kv_bytes + scores,
    ));
    ops.push(attention(
        "softmax·V",
        "BTSKG,BSKH->BTKGH",
        2.0 * scores * h,
        scores + kv_bytes + q_bytes,
    ));
    let elementwise = |name, einsum, elements: f64, per: f64, params: f64, traffic: f64| LayerOp {
        name,
        kind: OpKind::Elementwise,
        einsum,
        shapes: format!("{} elements", g(elements)),
        flops: Flops(per * elements),
        params,
        bytes: Bytes(by * traffic),
    };
    ops.insert(
        0,
        elementwise(
            "norm (attention)",
            "BTD->BTD",
            bt * d,
            NORM_FLOPS,
            d,
            2.0 * bt * d,
        ),
    );
    ops.push(elementwise(
        "softmax",
        "BTSKG->BTSKG",
        scores,
        SOFTMAX_FLOPS,
        0.0,
        2.0 * scores,
    ));
    ops.push(elementwise(
        "residual add (attention)",
        "BTD,BTD->BTD",
        bt * d,
        1.0,
        0.0,
        3.0 * bt * d,
    ));
    ops.push(elementwise(
        "norm (MLP)",
        "BTD->BTD",
        bt * d,
        NORM_FLOPS,
        d,
        2.0 * bt * d,
    ));
    if let Some(m) = c.moe {
        ops.push(LayerOp {
            name: "router",
            kind: OpKind::Weight,
            einsum: "BTD,DE->BTE",
            shapes: format!(
                "[{}, {}] × [{}, {}]",
                g(bt),
                g(d),
                g(d),
                g(m.experts as f64)
            ),
            flops: Flops(2.0 * bt * d * m.experts as f64),
            params: d * m.experts as f64,
            bytes: Bytes(by * (bt * d + d * m.experts as f64 + bt * m.experts as f64)),
        });
    }
    let hidden = bt * f * active;
    ops.push(elementwise(
        if gate {
            "silu(in)·gate"
        } else {
            "nonlinearity"
        },
        "BTF,BTF->BTF",
        hidden,
        GATE_FLOPS,
        0.0,
        3.0 * hidden,
    ));
    ops.push(elementwise(
        "residual add (MLP)",
        "BTD,BTD->BTD",
        bt * d,
        1.0,
        0.0,
        3.0 * bt * d,
    ));
    Ok(LayerOps { ops, tokens: bt })
}

/// The fraction of a layer's FLOPs in dot-product attention at each context length
/// of `seqs` (the curve under the diagram), from [`accounting::attention_fraction`].
pub fn attention_fraction_curve(
    model: &ModelConfig,
    seqs: &[f64],
    causal: bool,
) -> Result<Vec<(f64, f64)>, String> {
    seqs.iter()
        .map(|&t| {
            accounting::attention_fraction(model, t, causal)
                .map(|f| (t, f))
                .map_err(|e| e.to_string())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::config::{model, MODELS};

    fn params(id: &str, seq: f64) -> LayerParams {
        LayerParams {
            model: model(id).unwrap().config,
            batch: 2.0,
            seq,
            dtype: Dtype::Bf16,
            causal: false,
        }
    }

    #[test]
    fn the_layer_recovers_the_models_parameter_count() {
        for m in MODELS.iter().filter(|m| m.config.mla.is_none()) {
            let p = LayerParams {
                model: m.config,
                ..params("llama3-8b", 1024.0)
            };
            let l = layer_ops(&p).unwrap();
            let c = &m.config;
            let per_layer = accounting::attention_layer_params(c)
                + match c.moe {
                    None => accounting::dense_mlp_layer_params(c),
                    Some(e) => {
                        (e.experts + e.shared) as f64 * accounting::expert_params(c)
                            + (c.d_model * e.experts) as f64
                    }
                }
                + 2.0 * c.d_model as f64;
            assert_eq!(l.params(), per_layer, "{}", m.id);
        }
    }

    #[test]
    fn matmul_flops_are_two_per_active_parameter_per_token_plus_attention() {
        let p = params("llama3-70b", 4096.0);
        let l = layer_ops(&p).unwrap();
        let weight = l.sum(|k| k == OpKind::Weight, |o| o.flops.0);
        let c = &p.model;
        let per_token =
            accounting::attention_layer_params(c) + accounting::dense_mlp_layer_params(c);
        assert_eq!(weight, 2.0 * per_token * l.tokens);
        let fwd = accounting::flops(c, 2.0, 4096.0, accounting::Pass::Forward, false).unwrap();
        let attn = l.sum(|k| k == OpKind::Attention, |o| o.flops.0);
        assert!((attn * c.layers as f64 / fwd.attention_scores.0 - 1.0).abs() < 1e-12);
        assert!(l.matmul_share() > 0.99);
    }

    #[test]
    fn attention_grows_with_context() {
        let short = layer_ops(&params("llama3-70b", 1024.0)).unwrap();
        let long = layer_ops(&params("llama3-70b", 131072.0)).unwrap();
        assert!(short.attention_share() < 0.05);
        assert!(long.attention_share() > 0.5);
        let curve =
            attention_fraction_curve(&params("llama3-70b", 1.0).model, &[1e3, 1e4, 1e5], false)
                .unwrap();
        assert!(curve.windows(2).all(|w| w[0].1 < w[1].1));
    }

    #[test]
    fn bad_fields_are_named() {
        let mut p = params("llama3-8b", 0.0);
        assert!(
            layer_ops(&p).unwrap_err().contains("sequence")
                || layer_ops(&p).unwrap_err().contains("seq")
        );
        p.seq = 10.0;
        p.batch = f64::NAN;
        assert!(layer_ops(&p).unwrap_err().contains("batch"));
        p.batch = 1.0;
        p.model = model("deepseek-v3").unwrap().config;
        assert!(layer_ops(&p).unwrap_err().starts_with("model"));
    }
}
