//! The Transformer arithmetic of Part 4: parameters, FLOPs, KV caches,
//! activation memory and optimizer state, all as functions of a [`ModelConfig`].
//!
//! Conventions follow the book. A matmul parameter costs 2 FLOPs per token
//! forward and 4 backward, so training costs `6 · params · tokens`; dot-product
//! attention adds `12·B·T²·N·H` per layer in training (halved by a causal
//! kernel). Input embeddings are a lookup: their parameters count, their FLOPs do
//! not. LayerNorm/RMSNorm weights are `2·D` per layer plus a final `D` (pre-norm
//! LLaMA); their FLOPs are ignored, as the book does.
//!
//! ```
//! use ridgeline_core::model::config::model;
//! use ridgeline_core::model::accounting::params;
//!
//! let p = params(&model("llama3-70b").unwrap().config);
//! assert!((p.mlp / 1e9 - 56.37).abs() < 0.01);       // 3·D·F·L
//! assert!((p.attention / 1e9 - 12.08).abs() < 0.01);  // L·(2DNH + 2DKH)
//! assert!((p.vocab() / 1e9 - 2.10).abs() < 0.01);     // 2·V·D
//! assert!((p.total() / 1e9 - 70.55).abs() < 0.01);
//! ```

use crate::check::{is_positive, positive};
use crate::dtype::Dtype;
use crate::model::config::{ModelConfig, ModelError, MAX_PARAMS};
use crate::units::{Bytes, Flops, Intensity};
use std::fmt;

// ---------------------------------------------------------------- parameters

/// Parameter counts of a model by component.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ParamCounts {
    /// Input embedding, `V·D`.
    pub embedding: f64,
    /// Output projection (unembedding), `V·D`, or 0 when tied to the embedding.
    pub unembedding: f64,
    /// Q, K, V and O projections over all layers (GQA: `L·(2DNH + 2DKH)`).
    pub attention: f64,
    /// MLP (or expert) matrices over all layers (gated dense: `3·D·F·L`).
    pub mlp: f64,
    /// MoE router matrices, `D·E` per MoE layer.
    pub router: f64,
    /// Norm scales: `2·D` per layer plus a final `D`.
    pub norms: f64,
}

impl ParamCounts {
    /// Embedding plus unembedding (the book's "vocab params", `2·V·D` when untied).
    pub fn vocab(&self) -> f64 {
        self.embedding + self.unembedding
    }

    /// Everything.
    pub fn total(&self) -> f64 {
        self.embedding + self.unembedding + self.attention + self.mlp + self.router + self.norms
    }
}

/// Attention parameters of one layer: `2·D·N·H + 2·D·K·H` for grouped-query
/// attention, or the latent projections (and their norms) for MLA.
pub fn attention_layer_params(cfg: &ModelConfig) -> f64 {
    let d = cfg.d_model as f64;
    let n = cfg.heads as f64;
    match cfg.mla {
        None => {
            let (k, h) = (cfg.kv_heads as f64, cfg.head_dim as f64);
            2.0 * d * n * h + 2.0 * d * k * h
        }
        Some(m) => {
            let (qr, kr) = (m.q_rank as f64, m.kv_rank as f64);
            let (nope, rope, v) = (m.nope_dim as f64, m.rope_dim as f64, m.v_dim as f64);
            let q = if m.q_rank == 0 {
                d * n * (nope + rope)
            } else {
                d * qr + qr + qr * n * (nope + rope)
            };
            let kv = d * (kr + rope) + kr + kr * n * (nope + v);
            let o = n * v * d;
            q + kv + o
        }
    }
}

/// MLP parameters of one dense layer: `3·D·F` gated, `2·D·F` otherwise.
pub fn dense_mlp_layer_params(cfg: &ModelConfig) -> f64 {
    cfg.mlp_matrices() * cfg.d_model as f64 * cfg.d_ff as f64
}

/// Parameters of one expert: `3·D·F_e` gated (0 for a dense model).
pub fn expert_params(cfg: &ModelConfig) -> f64 {
    cfg.moe
        .map(|m| cfg.mlp_matrices() * cfg.d_model as f64 * m.expert_ff as f64)
        .unwrap_or(0.0)
}

fn counts(cfg: &ModelConfig, experts_per_token: Option<u64>) -> ParamCounts {
    let d = cfg.d_model as f64;
    let l = cfg.layers as f64;
    let v = cfg.vocab as f64;
    let (mlp, router) = match cfg.moe {
        None => (l * dense_mlp_layer_params(cfg), 0.0),
        Some(m) => {
            let routed = experts_per_token.unwrap_or(m.experts);
            let per_layer = (routed + m.shared) as f64 * expert_params(cfg);
            let moe_layers = cfg.moe_layers() as f64;
            let dense = cfg.dense_layers() as f64 * dense_mlp_layer_params(cfg);
            (
                moe_layers * per_layer + dense,
                moe_layers * d * m.experts as f64,
            )
        }
    };
    ParamCounts {
        embedding: v * d,
        unembedding: if cfg.tied_embeddings { 0.0 } else { v * d },
        attention: l * attention_layer_params(cfg),
        mlp,
        router,
        norms: (2.0 * l + 1.0) * d,
    }
}

impl ModelConfig {
    /// The same model once [`ModelConfig::validate`] accepts its shape and it has at
    /// most [`MAX_PARAMS`] parameters: the one check every model a reader enters
    /// (a compact form, a `config.json`) passes before anything is computed from it.
    pub fn checked(self) -> Result<ModelConfig, ModelError> {
        self.validate()?;
        let params = params(&self).total();
        if params.is_nan() || params > MAX_PARAMS {
            return Err(ModelError::TooManyParams { params });
        }
        Ok(self)
    }
}

/// Every parameter the model stores (for an MoE, all experts).
pub fn params(cfg: &ModelConfig) -> ParamCounts {
    counts(cfg, None)
}

/// The parameters one token uses (for an MoE, `k` routed plus the shared experts).
pub fn active_params(cfg: &ModelConfig) -> ParamCounts {
    counts(cfg, cfg.moe.map(|m| m.active))
}

/// Bytes to store every parameter in `dtype`.
pub fn param_bytes(cfg: &ModelConfig, dtype: Dtype) -> Bytes {
    dtype.size_of(params(cfg).total())
}

/// Bytes of the parameters one token touches, in `dtype`.
pub fn active_param_bytes(cfg: &ModelConfig, dtype: Dtype) -> Bytes {
    dtype.size_of(active_params(cfg).total())
}

// ---------------------------------------------------------------- FLOPs

/// Which part of a training step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pass {
    /// Forward only (inference, or the forward half of training): 2 FLOPs per parameter per token.
    Forward,
    /// Backward only: 4 FLOPs per parameter per token.
    Backward,
    /// Forward plus backward: 6 FLOPs per parameter per token.
    Training,
}

impl Pass {
    /// FLOPs per matmul parameter per token.
    pub fn per_param(self) -> f64 {
        match self {
            Pass::Forward => 2.0,
            Pass::Backward => 4.0,
            Pass::Training => 6.0,
        }
    }
}

/// FLOPs of a batch by component.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FlopsBreakdown {
    /// MLP (active experts) matmuls.
    pub mlp: Flops,
    /// Q, K, V, O projections.
    pub attention_projections: Flops,
    /// The two dot-product attention matmuls (`QKᵀ` and `softmax·V`), quadratic in T.
    pub attention_scores: Flops,
    /// Output projection onto the vocabulary (`6·B·T·D·V` in training).
    pub unembedding: Flops,
    /// MoE router.
    pub router: Flops,
}

impl FlopsBreakdown {
    /// The sum.
    pub fn total(&self) -> Flops {
        self.mlp
            + self.attention_projections
            + self.attention_scores
            + self.unembedding
            + self.router
    }

    /// Everything except dot-product attention: what `6·params·tokens` counts.
    pub fn matmuls(&self) -> Flops {
        self.total() - self.attention_scores
    }
}

/// Per-head widths of the two attention matmuls: (query/key, value).
fn attention_head_dims(cfg: &ModelConfig) -> (f64, f64) {
    match cfg.mla {
        None => (cfg.head_dim as f64, cfg.head_dim as f64),
        Some(m) => ((m.nope_dim + m.rope_dim) as f64, m.v_dim as f64),
    }
}

/// Dot-product attention FLOPs per query token per layer, forward, against `s` keys:
/// `2·S·N·(H_qk + H_v)` (`4·S·N·H` for GQA).
fn scores_per_token_layer(cfg: &ModelConfig, s: f64) -> f64 {
    let (hqk, hv) = attention_head_dims(cfg);
    2.0 * s * cfg.heads as f64 * (hqk + hv)
}

/// FLOPs for `batch` sequences of `seq` tokens.
///
/// With `causal`, each query attends on average to half the sequence, halving the
/// dot-product term (which needs a kernel that skips the masked half, Part 4).
pub fn flops(
    cfg: &ModelConfig,
    batch: f64,
    seq: f64,
    pass: Pass,
    causal: bool,
) -> Result<FlopsBreakdown, ModelError> {
    cfg.validate()?;
    let batch = positive("batch (sequences)", batch)?;
    let seq = positive("sequence length", seq)?;
    let tokens = batch * seq;
    let p = pass.per_param();
    let act = active_params(cfg);
    let s_eff = if causal { seq / 2.0 } else { seq };
    let l = cfg.layers as f64;
    Ok(FlopsBreakdown {
        mlp: Flops(p * tokens * act.mlp),
        attention_projections: Flops(p * tokens * act.attention),
        // Forward is 2 FLOPs per multiply-add already in `scores_per_token_layer`;
        // backward doubles it, training triples it.
        attention_scores: Flops(p / 2.0 * tokens * l * scores_per_token_layer(cfg, s_eff)),
        unembedding: Flops(p * tokens * cfg.vocab as f64 * cfg.d_model as f64),
        router: Flops(p * tokens * act.router),
    })
}

/// The book's rule of thumb: training costs `6 · params · tokens`.
pub fn training_flops_rule(params: f64, tokens: f64) -> Flops {
    Flops(6.0 * params * tokens)
}

/// Training FLOPs per token by the rule of thumb, on the active parameters
/// (`6 · 70e9 ≈ 4.2e11` for LLaMA 3-70B, Part 6).
pub fn training_flops_per_token(cfg: &ModelConfig) -> Flops {
    training_flops_rule(active_params(cfg).total(), 1.0)
}

/// Matmul parameters one token uses in a typical layer (the last, an MoE layer if any).
fn layer_matmul_params(cfg: &ModelConfig) -> f64 {
    let mlp = match cfg.moe {
        None => dense_mlp_layer_params(cfg),
        Some(m) => {
            (m.active + m.shared) as f64 * expert_params(cfg)
                + cfg.d_model as f64 * m.experts as f64
        }
    };
    attention_layer_params(cfg) + mlp
}

/// The sequence length at which (non-causal) dot-product attention FLOPs equal all
/// other matmul FLOPs of a layer. With `F = 4D`, `D = NH` and `N = K` this is `T = 8D`
/// (Part 4: ~64K tokens for D = 8192).
pub fn attention_crossover(cfg: &ModelConfig) -> f64 {
    // Per token per layer, training: scores 3·2·T·N·(Hqk+Hv), matmuls 6·params.
    let (hqk, hv) = attention_head_dims(cfg);
    layer_matmul_params(cfg) / (cfg.heads as f64 * (hqk + hv))
}

/// The sequence length at which dot-product attention FLOPs equal the Q/K/V/O
/// projection FLOPs: `24·B·T·D·N·H = 12·B·T²·N·H`, i.e. `T = 2D` for MHA (Part 4 Q5).
pub fn projection_crossover(cfg: &ModelConfig) -> f64 {
    let (hqk, hv) = attention_head_dims(cfg);
    attention_layer_params(cfg) / (cfg.heads as f64 * (hqk + hv))
}

/// Fraction of a layer's FLOPs spent in dot-product attention at context `seq`:
/// `T / (8D + T)` under the book's assumptions (non-causal).
pub fn attention_fraction(cfg: &ModelConfig, seq: f64, causal: bool) -> Result<f64, ModelError> {
    let seq = positive("sequence length", seq)?;
    let s_eff = if causal { seq / 2.0 } else { seq };
    let scores = scores_per_token_layer(cfg, s_eff) / 2.0;
    let mm = layer_matmul_params(cfg);
    Ok(scores / (scores + mm))
}

/// Arithmetic intensity of dot-product attention alone (no projections), bf16,
/// with `t` queries, `s` keys and `group = N/K` query heads per KV head (Part 4 Q4):
/// `T·S·G / (T·G + S)`. Prefill (`S = T`) gives `T·G/(G+1)`; generation (`T = 1`)
/// gives `S·G/(S+G) → G`.
pub fn attention_intensity(t: f64, s: f64, group: f64) -> Intensity {
    Intensity(t * s * group / (t * group + s))
}

/// The prefill length above which attention is compute-bound against `ridge`:
/// `T·G/(G+1) > ridge`, i.e. `T > ridge·(G+1)/G` (480 for MHA at a ridge of 240).
pub fn attention_compute_bound_length(ridge: Intensity, group: f64) -> f64 {
    ridge.0 * (group + 1.0) / group
}

// ---------------------------------------------------------------- einsums

/// What is wrong with an einsum specification.
#[derive(Debug, Clone, PartialEq)]
pub enum EinsumError {
    /// The text is not `lhs,rhs->out` over letters.
    Malformed(String),
    /// An output dimension appears in neither input.
    UnknownOutput(char),
    /// A dimension has no size, or a size that is not positive and finite.
    BadSize(char),
}

impl fmt::Display for EinsumError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EinsumError::Malformed(s) => write!(
                f,
                "{s:?} is not an einsum like \"bd,df->bf\" (letters, one comma, one arrow)"
            ),
            EinsumError::UnknownOutput(c) => {
                write!(f, "output dimension {c} appears in neither input")
            }
            EinsumError::BadSize(c) => write!(f, "dimension {c} needs a positive, finite size"),
        }
    }
}

impl std::error::Error for EinsumError {}

/// FLOPs of a two-operand einsum such as `"ijkl,ijmno->klmno"` (Part 4): twice the
/// product of every distinct dimension when something is contracted (a multiply and
/// an add per term), once the product when nothing is (an elementwise or outer product).
pub fn einsum_flops(spec: &str, sizes: &[(char, f64)]) -> Result<Flops, EinsumError> {
    let malformed = || EinsumError::Malformed(spec.to_string());
    let compact: String = spec.chars().filter(|c| !c.is_whitespace()).collect();
    let (inputs, out) = compact.split_once("->").ok_or_else(malformed)?;
    let (a, b) = inputs.split_once(',').ok_or_else(malformed)?;
    let letters_ok = |s: &str| s.chars().all(|c| c.is_ascii_alphabetic());
    if !letters_ok(a) || !letters_ok(b) || !letters_ok(out) || a.is_empty() || b.is_empty() {
        return Err(malformed());
    }
    let mut distinct: Vec<char> = Vec::new();
    for c in a.chars().chain(b.chars()) {
        if !distinct.contains(&c) {
            distinct.push(c);
        }
    }
    if let Some(c) = out.chars().find(|c| !distinct.contains(c)) {
        return Err(EinsumError::UnknownOutput(c));
    }
    let mut product = 1.0;
    for &c in &distinct {
        let size = sizes
            .iter()
            .find(|(d, _)| *d == c)
            .map(|(_, s)| *s)
            .filter(|s| is_positive(*s))
            .ok_or(EinsumError::BadSize(c))?;
        product *= size;
    }
    let contracts = distinct.iter().any(|c| !out.contains(*c));
    Ok(Flops(if contracts { 2.0 * product } else { product }))
}

/// FLOPs of a sharded computation (Part 4 Q2).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ShardedFlops {
    /// FLOPs executed across all chips, counting duplicated work on replicated axes.
    pub executed: Flops,
    /// FLOPs each chip performs.
    pub per_chip: Flops,
}

/// Work `flops` split over mesh axes of sizes `sharded` and duplicated over axes of
/// sizes `replicated`: each chip does `flops / Π sharded`, and the mesh executes
/// `flops · Π replicated` in total.
pub fn sharded_flops(flops: Flops, sharded: &[f64], replicated: &[f64]) -> ShardedFlops {
    let s: f64 = sharded.iter().product();
    let r: f64 = replicated.iter().product();
    ShardedFlops {
        executed: flops * r,
        per_chip: flops / s,
    }
}

// ---------------------------------------------------------------- KV cache

/// KV-cache bytes per token: `2·L·K·H` elements for GQA, `L·(latent + rope)` for MLA.
pub fn kv_bytes_per_token(cfg: &ModelConfig, dtype: Dtype) -> Bytes {
    let l = cfg.layers as f64;
    let elements = match cfg.mla {
        None => 2.0 * l * cfg.kv_heads as f64 * cfg.head_dim as f64,
        Some(m) => l * (m.kv_rank + m.rope_dim) as f64,
    };
    dtype.size_of(elements)
}

/// KV-cache bytes for `batch` sequences of `seq` tokens: `2·S·L·K·H·bytes` each.
pub fn kv_cache_bytes(
    cfg: &ModelConfig,
    seq: f64,
    batch: f64,
    dtype: Dtype,
) -> Result<Bytes, ModelError> {
    let seq = positive("sequence length", seq)?;
    let batch = positive("batch", batch)?;
    Ok(kv_bytes_per_token(cfg, dtype) * (seq * batch))
}

// ---------------------------------------------------------------- rematerialisation

/// What the forward pass saves for the backward pass (Part 4, "Gradient checkpointing").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Remat {
    /// Save every intermediate: about 20 arrays of size `[B·T, D]` per layer; no recomputation.
    SaveAll,
    /// Save the outputs of the seven big matmuls (Q, K, V, O and the three MLP
    /// matrices); the two attention matmuls are recomputed (Part 4 Q6).
    BigMatmuls,
    /// Save the outputs of the MLP matmuls only (two `[B·T, F]` and one `[B·T, D]`
    /// when gated, Part 5 Q2); attention is recomputed.
    MlpOutputs,
    /// Save `n` arrays of size `[B·T, D]` per layer; `PerLayer(1)` is block remat. The
    /// whole forward pass is recomputed, so training costs about `8 · params · tokens`.
    PerLayer(u32),
}

impl Remat {
    /// Elements saved per token per layer.
    pub fn saved_per_token_layer(self, cfg: &ModelConfig) -> f64 {
        let d = cfg.d_model as f64;
        let f = match cfg.moe {
            None => cfg.d_ff as f64,
            Some(m) => (m.active + m.shared) as f64 * m.expert_ff as f64,
        };
        let mlp_inputs = if cfg.gated { 2.0 * f } else { f };
        match self {
            Remat::SaveAll => 20.0 * d,
            Remat::BigMatmuls => {
                let q = (cfg.heads * cfg.head_dim) as f64;
                let kv = 2.0 * (cfg.kv_heads * cfg.head_dim) as f64;
                q + kv + d + mlp_inputs + d
            }
            Remat::MlpOutputs => mlp_inputs + d,
            Remat::PerLayer(n) => n as f64 * d,
        }
    }

    /// Activation bytes saved for `tokens` tokens (`2·20·B·T·D·L` for `SaveAll` in bf16).
    pub fn activation_bytes(self, cfg: &ModelConfig, tokens: f64, dtype: Dtype) -> Bytes {
        dtype.size_of(tokens * cfg.layers as f64 * self.saved_per_token_layer(cfg))
    }

    /// Extra forward FLOPs recomputed in the backward pass for `batch` sequences of `seq`.
    ///
    /// `BigMatmuls` recomputes `QKᵀ` and `softmax·V`: `4·B·T²·N·H` per layer (Part 4 Q6);
    /// `MlpOutputs` recomputes attention (projections and scores); `PerLayer` recomputes
    /// the whole forward pass.
    pub fn extra_flops(
        self,
        cfg: &ModelConfig,
        batch: f64,
        seq: f64,
        causal: bool,
    ) -> Result<Flops, ModelError> {
        let fwd = flops(cfg, batch, seq, Pass::Forward, causal)?;
        Ok(match self {
            Remat::SaveAll => Flops(0.0),
            Remat::BigMatmuls => fwd.attention_scores,
            Remat::MlpOutputs => fwd.attention_scores + fwd.attention_projections,
            Remat::PerLayer(_) => fwd.total() - fwd.unembedding,
        })
    }
}

// ---------------------------------------------------------------- optimizer and memory

/// How training state is stored per parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Optimizer {
    /// Format of the working parameters.
    pub params: Dtype,
    /// Format of a stored gradient, if the accounting keeps one (the book's does not).
    pub grads: Option<Dtype>,
    /// Format of a full-precision master copy, if any.
    pub master: Option<Dtype>,
    /// Moment accumulators per parameter (2 for Adam, 1 for momentum, 0 for SGD).
    pub moments: u8,
    /// Format of the moments.
    pub moment_dtype: Dtype,
}

impl Optimizer {
    /// The book's Adam: bf16 parameters and two fp32 moments, 10 bytes per parameter (Part 5).
    pub const ADAM: Optimizer = Optimizer {
        params: Dtype::Bf16,
        grads: None,
        master: None,
        moments: 2,
        moment_dtype: Dtype::F32,
    };
    /// Mixed-precision Adam: bf16 parameters and gradients, fp32 master and moments (16 bytes).
    pub const ADAM_MIXED: Optimizer = Optimizer {
        params: Dtype::Bf16,
        grads: Some(Dtype::Bf16),
        master: Some(Dtype::F32),
        moments: 2,
        moment_dtype: Dtype::F32,
    };
    /// Plain SGD on bf16 parameters (2 bytes).
    pub const SGD: Optimizer = Optimizer {
        params: Dtype::Bf16,
        grads: None,
        master: None,
        moments: 0,
        moment_dtype: Dtype::F32,
    };

    /// Bytes of state per parameter.
    pub fn bytes_per_param(&self) -> f64 {
        self.params.bytes()
            + self.grads.map(Dtype::bytes).unwrap_or(0.0)
            + self.master.map(Dtype::bytes).unwrap_or(0.0)
            + self.moments as f64 * self.moment_dtype.bytes()
    }

    /// The most parameters whose state fits in `hbm` bytes (Part 5: `HBM / 10` with Adam).
    pub fn max_params(&self, hbm: Bytes) -> f64 {
        hbm.0 / self.bytes_per_param()
    }
}

/// Training memory by kind.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct TrainingMemory {
    /// Working parameters.
    pub params: Bytes,
    /// Stored gradients.
    pub grads: Bytes,
    /// Optimizer state: moments and any master copy.
    pub optimizer: Bytes,
    /// Saved activations (gradient checkpoints).
    pub activations: Bytes,
}

impl TrainingMemory {
    /// Parameters, gradients and optimizer state.
    pub fn state(&self) -> Bytes {
        self.params + self.grads + self.optimizer
    }

    /// Everything.
    pub fn total(&self) -> Bytes {
        self.state() + self.activations
    }

    /// The share one chip holds when the state is split `state_shards` ways (FSDP ×
    /// tensor × pipeline) and the activations `activation_shards` ways (every chip).
    pub fn per_chip(&self, state_shards: f64, activation_shards: f64) -> TrainingMemory {
        TrainingMemory {
            params: self.params / state_shards,
            grads: self.grads / state_shards,
            optimizer: self.optimizer / state_shards,
            activations: self.activations / activation_shards,
        }
    }
}

/// Memory to train `cfg` on a batch of `tokens` tokens: every parameter stored per
/// `optimizer`, activations saved per `remat` in `act` (bf16 in the book).
pub fn training_memory(
    cfg: &ModelConfig,
    tokens: f64,
    remat: Remat,
    optimizer: Optimizer,
    act: Dtype,
) -> Result<TrainingMemory, ModelError> {
    cfg.validate()?;
    let tokens = positive("batch (tokens)", tokens)?;
    Ok(state_memory(
        params(cfg).total(),
        optimizer,
        remat.activation_bytes(cfg, tokens, act),
    ))
}

/// Memory for `params` parameters stored per `optimizer`, plus `activations`.
pub fn state_memory(params: f64, optimizer: Optimizer, activations: Bytes) -> TrainingMemory {
    TrainingMemory {
        params: optimizer.params.size_of(params),
        grads: optimizer
            .grads
            .map(|d| d.size_of(params))
            .unwrap_or_default(),
        optimizer: Bytes(
            params
                * (optimizer.master.map(Dtype::bytes).unwrap_or(0.0)
                    + optimizer.moments as f64 * optimizer.moment_dtype.bytes()),
        ),
        activations,
    }
}

// ---------------------------------------------------------------- MoE

/// The token batch above which an MoE layer's expert matmuls are compute-bound
/// (Part 4 Q8): the layer loads `E·D·F` weights of `weight` format and does
/// `2·k·B·D·F` FLOPs, so it needs `B > ridge · bytes · E / (2k)` — `120·E/k` for
/// int8 weights at the v5e's ridge of 240.
pub fn moe_critical_batch(experts: f64, active: f64, ridge: Intensity, weight: Dtype) -> f64 {
    ridge.0 * weight.bytes() * experts / (2.0 * active)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::config::{model, ModelConfig};

    fn cfg(id: &str) -> ModelConfig {
        model(id).unwrap().config
    }

    #[test]
    fn published_parameter_counts() {
        // Exact counts from the models' own releases, including norms.
        assert_eq!(params(&cfg("llama3-8b")).total(), 8_030_261_248.0);
        assert_eq!(params(&cfg("llama2-13b")).total(), 13_015_864_320.0);
        assert_eq!(params(&cfg("llama3-70b")).total(), 70_553_706_496.0);
        assert_eq!(params(&cfg("llama3-405b")).total(), 405_853_388_800.0);
        let book = crate::model::config::BOOK_MODELS;
        for m in crate::model::config::MODELS.iter().chain(book) {
            let p = params(&m.config).total();
            assert!(
                (p / m.published_params - 1.0).abs() < 0.01,
                "{}: {p} vs {}",
                m.id,
                m.published_params
            );
        }
        let ds = cfg("deepseek-v3");
        let active = active_params(&ds).total();
        assert!((active / 1e9 - 37.5).abs() < 1.0, "{active}");
    }

    #[test]
    fn six_n_d_and_table() {
        let c = ModelConfig::dense(4096, 16384, 2, 32, 32, 128, 1000).unwrap();
        let f = flops(&c, 3.0, 100.0, Pass::Training, false).unwrap();
        let (b, t, d, ff, n, h) = (3.0, 100.0, 4096.0, 16384.0, 32.0, 128.0);
        assert_eq!(f.mlp.0, 2.0 * 18.0 * b * t * d * ff);
        assert_eq!(f.attention_projections.0, 2.0 * 24.0 * b * t * d * n * h);
        assert_eq!(f.attention_scores.0, 2.0 * 12.0 * b * t * t * n * h);
        assert_eq!(f.unembedding.0, 6.0 * b * t * d * 1000.0);
        let causal = flops(&c, 3.0, 100.0, Pass::Training, true).unwrap();
        assert_eq!(causal.attention_scores.0 * 2.0, f.attention_scores.0);
        let fwd = flops(&c, 3.0, 100.0, Pass::Forward, false).unwrap();
        assert_eq!(fwd.total().0 * 3.0, f.total().0);
        assert_eq!(
            flops(&c, 0.0, 100.0, Pass::Forward, false)
                .unwrap_err()
                .to_string(),
            "batch (sequences) must be positive, got 0"
        );
        assert_eq!(
            flops(&c, 1.0, f64::NAN, Pass::Forward, false)
                .unwrap_err()
                .to_string(),
            "sequence length must be a finite number"
        );
    }

    #[test]
    fn crossovers() {
        let c = ModelConfig::dense(8192, 32768, 1, 64, 64, 128, 1000).unwrap();
        assert_eq!(attention_crossover(&c), 8.0 * 8192.0);
        assert_eq!(projection_crossover(&c), 2.0 * 8192.0);
        let half = attention_fraction(&c, 8.0 * 8192.0, false).unwrap();
        assert!((half - 0.5).abs() < 1e-12);
    }

    #[test]
    fn einsums() {
        let s = [('b', 2.0), ('d', 3.0), ('f', 5.0)];
        assert_eq!(einsum_flops("bd,df->bf", &s), Ok(Flops(60.0)));
        assert_eq!(einsum_flops("bd, bd -> bd", &s), Ok(Flops(6.0)));
        assert!(matches!(
            einsum_flops("bd,df", &s),
            Err(EinsumError::Malformed(_))
        ));
        assert_eq!(
            einsum_flops("bd,df->bz", &s),
            Err(EinsumError::UnknownOutput('z'))
        );
        assert_eq!(
            einsum_flops("bx,df->bf", &s),
            Err(EinsumError::BadSize('x'))
        );
    }

    #[test]
    fn kv_and_memory() {
        let c = cfg("llama3-70b");
        assert_eq!(
            kv_bytes_per_token(&c, Dtype::Bf16).0,
            2.0 * 80.0 * 8.0 * 128.0 * 2.0
        );
        assert_eq!(Optimizer::ADAM.bytes_per_param(), 10.0);
        assert_eq!(Optimizer::ADAM_MIXED.bytes_per_param(), 16.0);
        let m = training_memory(&c, 4e6, Remat::PerLayer(1), Optimizer::ADAM, Dtype::Bf16).unwrap();
        assert_eq!(m.activations.0, 2.0 * 4e6 * 8192.0 * 80.0);
        let pc = m.per_chip(8.0, 16.0);
        assert_eq!(pc.activations.0 * 16.0, m.activations.0);
        assert_eq!(
            kv_cache_bytes(&c, -1.0, 1.0, Dtype::Int8)
                .unwrap_err()
                .to_string(),
            "sequence length must be positive, got -1"
        );
        let ds = cfg("deepseek-v3");
        assert_eq!(kv_bytes_per_token(&ds, Dtype::Bf16).0, 61.0 * 576.0 * 2.0);
    }

    #[test]
    fn block_remat_costs_about_eight_nd() {
        let c = cfg("llama3-70b");
        let base = flops(&c, 1024.0, 4096.0, Pass::Training, true)
            .unwrap()
            .matmuls();
        let extra = Remat::PerLayer(1)
            .extra_flops(&c, 1024.0, 4096.0, true)
            .unwrap();
        let ratio = (base + extra
            - flops(&c, 1024.0, 4096.0, Pass::Forward, true)
                .unwrap()
                .attention_scores)
            / base;
        assert!((ratio - 8.0 / 6.0).abs() < 0.01, "{ratio}");
    }
}
