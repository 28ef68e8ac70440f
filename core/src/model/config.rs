//! Transformer shapes: the handful of integers that fix a model's size, and a
//! registry of published models, each with the source of its numbers.
//!
//! The book names the dimensions with single letters (Part 4): `D` (d_model),
//! `F` (d_ff), `L` (layers), `N` (query heads), `K` (key/value heads), `H` (head
//! dimension) and `V` (vocabulary). A Mixture-of-Experts model adds `E` experts of
//! which `k` are active per token. [`ModelConfig`] holds them; its constructors
//! check them and say precisely what is wrong.
//!
//! ```
//! use ridgeline_core::model::config::{model, ModelConfig};
//!
//! let llama = model("llama3-70b").unwrap();
//! assert_eq!(llama.config.d_model, 8192);
//! assert_eq!(llama.config.kv_heads, 8);
//!
//! // 48 query heads cannot be grouped over 5 key/value heads.
//! let err = ModelConfig::dense(4096, 16384, 32, 48, 5, 128, 32000).unwrap_err();
//! assert!(err.to_string().contains("divide"));
//! ```

use crate::check::NotPositive;
use std::fmt;

/// The largest `d_model` a reader may enter (2^20).
pub const MAX_D_MODEL: u64 = 1 << 20;
/// The largest `d_ff` (or expert width) a reader may enter (2^24).
pub const MAX_D_FF: u64 = 1 << 24;
/// The most layers a reader may enter.
pub const MAX_LAYERS: u64 = 100_000;
/// The most heads (query or key/value) a reader may enter.
pub const MAX_HEADS: u64 = 1 << 16;
/// The largest head dimension a reader may enter.
pub const MAX_HEAD_DIM: u64 = 1 << 16;
/// The largest vocabulary a reader may enter.
pub const MAX_VOCAB: u64 = 100_000_000;
/// The longest context a reader may enter (2^30 tokens).
pub const MAX_SEQ: u64 = 1 << 30;
/// The most experts a reader may enter.
pub const MAX_EXPERTS: u64 = 1 << 16;
/// The most parameters a model may have (10^15; the largest published models
/// have about 10^12).
pub const MAX_PARAMS: f64 = 1e15;

/// What is wrong with a model shape or a workload size.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelError {
    /// A size that must be positive is zero or negative.
    NotPositive {
        /// Which quantity.
        field: &'static str,
        /// The value given.
        value: f64,
    },
    /// A value is NaN or infinite.
    NotFinite {
        /// Which quantity.
        field: &'static str,
    },
    /// A dimension that must be a whole number is not.
    NotAnInteger {
        /// Which quantity.
        field: &'static str,
        /// The value given.
        value: f64,
    },
    /// A value is beyond any real model.
    TooLarge {
        /// Which quantity.
        field: &'static str,
        /// The value given.
        value: f64,
        /// The largest value accepted.
        max: f64,
    },
    /// Grouped-query attention needs `K` to divide `N`.
    KvHeadsDontDivide {
        /// Query heads `N`.
        heads: u64,
        /// Key/value heads `K`.
        kv_heads: u64,
    },
    /// An MoE cannot activate more experts than it has.
    TooManyActiveExperts {
        /// Active experts per token `k`.
        active: u64,
        /// Routed experts `E`.
        experts: u64,
    },
    /// An MoE's leading dense layers must be fewer than its layers.
    TooManyDenseLayers {
        /// Dense layers requested.
        dense: u64,
        /// Total layers.
        layers: u64,
    },
    /// The shape adds up to more than [`MAX_PARAMS`] parameters.
    TooManyParams {
        /// The parameter count of the shape.
        params: f64,
    },
    /// No preset has this id.
    UnknownModel(String),
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModelError::NotPositive { field, value } => {
                write!(f, "{field} must be positive, got {value}")
            }
            ModelError::NotFinite { field } => write!(f, "{field} must be a finite number"),
            ModelError::NotAnInteger { field, value } => {
                write!(f, "{field} must be a whole number, got {value}")
            }
            ModelError::TooLarge { field, value, max } => {
                write!(f, "{field} = {value} is larger than the {max} accepted")
            }
            ModelError::KvHeadsDontDivide { heads, kv_heads } => write!(
                f,
                "the {kv_heads} key/value heads must divide the {heads} query heads \
                 (grouped-query attention shares each KV head among N/K query heads)"
            ),
            ModelError::TooManyActiveExperts { active, experts } => write!(
                f,
                "each token activates {active} experts but the layer has only {experts}"
            ),
            ModelError::TooManyDenseLayers { dense, layers } => write!(
                f,
                "{dense} leading dense layers leave no MoE layer in a {layers}-layer model"
            ),
            // `sci`, not `{:.3e}`: exponent formatting with a precision would
            // add its own float printer to every page bundle that decodes models.
            ModelError::TooManyParams { params } => write!(
                f,
                "{} parameters is more than the {} accepted",
                crate::format::sci(*params, 4),
                crate::format::sci(MAX_PARAMS, 1)
            ),
            ModelError::UnknownModel(id) => write!(f, "no model preset is called “{id}”"),
        }
    }
}

impl std::error::Error for ModelError {}

impl From<NotPositive> for ModelError {
    fn from(e: NotPositive) -> ModelError {
        if e.is_finite() {
            ModelError::NotPositive {
                field: e.what,
                value: e.value,
            }
        } else {
            ModelError::NotFinite { field: e.what }
        }
    }
}

/// [`check::positive`](crate::check::positive) with the failure as a [`ModelError`],
/// for the model, training and inference functions whose error types take a `ModelError`.
pub fn positive(field: &'static str, value: f64) -> Result<f64, ModelError> {
    Ok(crate::check::positive(field, value)?)
}

/// Checks that a reader-entered dimension is a whole number in `1..=max`.
pub fn parse_dim(field: &'static str, value: f64, max: u64) -> Result<u64, ModelError> {
    let v = crate::check::positive(field, value)?;
    if v.fract() != 0.0 {
        return Err(ModelError::NotAnInteger { field, value });
    }
    crate::check::whole(v)
        .filter(|&n| n <= max)
        .ok_or(ModelError::TooLarge {
            field,
            value,
            max: max as f64,
        })
}

fn check_dim(field: &'static str, value: u64, max: u64) -> Result<(), ModelError> {
    if value == 0 {
        return Err(ModelError::NotPositive { field, value: 0.0 });
    }
    if value > max {
        return Err(ModelError::TooLarge {
            field,
            value: value as f64,
            max: max as f64,
        });
    }
    Ok(())
}

/// Mixture-of-Experts feed-forward layers (Part 4, "Sparsity and Mixture-of-Experts").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Moe {
    /// Routed experts per MoE layer, `E`.
    pub experts: u64,
    /// Routed experts each token activates, `k`.
    pub active: u64,
    /// Shared experts every token passes through (DeepSeek), usually 0.
    pub shared: u64,
    /// Hidden width of one expert (DeepSeek's `moe_intermediate_size`).
    pub expert_ff: u64,
    /// Leading layers that keep a dense MLP of width `d_ff` (DeepSeek's `first_k_dense_replace`).
    pub dense_layers: u64,
}

impl Moe {
    /// Sparsity `E / k`.
    pub fn sparsity(&self) -> f64 {
        self.experts as f64 / self.active as f64
    }
}

/// Multi-head latent attention (DeepSeek V2/V3): keys and values are rebuilt from a
/// small shared latent, which is all the KV cache stores.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mla {
    /// Rank of the query down-projection (0: queries are projected directly).
    pub q_rank: u64,
    /// Rank of the key/value latent.
    pub kv_rank: u64,
    /// Per-head query/key dimension without rotary embedding.
    pub nope_dim: u64,
    /// Per-head query/key dimension carrying the rotary embedding (shared key part).
    pub rope_dim: u64,
    /// Per-head value dimension.
    pub v_dim: u64,
}

/// The shape of a decoder-only Transformer.
///
/// Fields are public so presets can be written as constants; anything built from
/// reader input should go through [`ModelConfig::dense`] or [`ModelConfig::validate`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelConfig {
    /// Model width `D` (`hidden_size`).
    pub d_model: u64,
    /// MLP hidden width `F` (`intermediate_size`) of a dense layer.
    pub d_ff: u64,
    /// Layers `L`.
    pub layers: u64,
    /// Query heads `N`.
    pub heads: u64,
    /// Key/value heads `K` (`K = N` is multi-head attention, `K = 1` multi-query).
    pub kv_heads: u64,
    /// Head dimension `H`.
    pub head_dim: u64,
    /// Vocabulary `V`.
    pub vocab: u64,
    /// Gated MLP (SwiGLU/GeGLU: three `D×F` matrices) rather than two.
    pub gated: bool,
    /// Input embedding and output projection share one matrix.
    pub tied_embeddings: bool,
    /// Longest context the model was trained for.
    pub max_seq: u64,
    /// Mixture-of-Experts layers, if any.
    pub moe: Option<Moe>,
    /// Multi-head latent attention, if used instead of grouped-query attention.
    pub mla: Option<Mla>,
}

impl ModelConfig {
    /// A dense model with a gated MLP, untied embeddings and an 8192-token context,
    /// checked by [`ModelConfig::validate`].
    pub fn dense(
        d_model: u64,
        d_ff: u64,
        layers: u64,
        heads: u64,
        kv_heads: u64,
        head_dim: u64,
        vocab: u64,
    ) -> Result<ModelConfig, ModelError> {
        let cfg = ModelConfig::gqa(
            d_model, d_ff, layers, heads, kv_heads, head_dim, vocab, 8192,
        );
        cfg.validate()?;
        Ok(cfg)
    }

    /// One ungated MLP block `D → F → D`, the whole model of the book's MLP
    /// rooflines (Part 5): one layer, and heads enough ([`MAX_HEADS`]) that
    /// attention never limits the tensor-parallel degree.
    pub fn mlp_block(d_model: u64, d_ff: u64) -> Result<ModelConfig, ModelError> {
        let cfg = ModelConfig {
            gated: false,
            ..ModelConfig::gqa(d_model, d_ff, 1, MAX_HEADS, 1, 1, 1, 1)
        };
        cfg.validate()?;
        Ok(cfg)
    }

    /// A dense grouped-query model with a gated MLP and untied embeddings, not yet
    /// checked: the shape of most presets, and the start of every model a reader
    /// enters (which sets the other fields and then calls `ModelConfig::checked`).
    /// The argument list mirrors a config file's fields.
    #[allow(clippy::too_many_arguments)]
    pub const fn gqa(
        d_model: u64,
        d_ff: u64,
        layers: u64,
        heads: u64,
        kv_heads: u64,
        head_dim: u64,
        vocab: u64,
        max_seq: u64,
    ) -> ModelConfig {
        ModelConfig {
            d_model,
            d_ff,
            layers,
            heads,
            kv_heads,
            head_dim,
            vocab,
            gated: true,
            tied_embeddings: false,
            max_seq,
            moe: None,
            mla: None,
        }
    }

    /// The same model with two MLP matrices instead of three.
    pub fn ungated(mut self) -> ModelConfig {
        self.gated = false;
        self
    }

    /// The same model with tied input and output embeddings.
    pub fn tied(mut self) -> ModelConfig {
        self.tied_embeddings = true;
        self
    }

    /// The same model with another context length, checked.
    pub fn with_max_seq(mut self, max_seq: u64) -> Result<ModelConfig, ModelError> {
        self.max_seq = max_seq;
        self.validate()?;
        Ok(self)
    }

    /// The same model with Mixture-of-Experts layers, checked.
    pub fn with_moe(mut self, moe: Moe) -> Result<ModelConfig, ModelError> {
        self.moe = Some(moe);
        self.validate()?;
        Ok(self)
    }

    /// Checks every dimension: positive, within sane bounds, `K` dividing `N`, `k ≤ E`.
    /// A reader's model also has its parameters counted: see `ModelConfig::checked`
    /// in [`accounting`](crate::model::accounting).
    pub fn validate(&self) -> Result<(), ModelError> {
        check_dim("d_model (D)", self.d_model, MAX_D_MODEL)?;
        check_dim("d_ff (F)", self.d_ff, MAX_D_FF)?;
        check_dim("layers (L)", self.layers, MAX_LAYERS)?;
        check_dim("query heads (N)", self.heads, MAX_HEADS)?;
        check_dim("key/value heads (K)", self.kv_heads, MAX_HEADS)?;
        check_dim("head dimension (H)", self.head_dim, MAX_HEAD_DIM)?;
        check_dim("vocabulary (V)", self.vocab, MAX_VOCAB)?;
        check_dim("context length", self.max_seq, MAX_SEQ)?;
        if !self.heads.is_multiple_of(self.kv_heads) {
            return Err(ModelError::KvHeadsDontDivide {
                heads: self.heads,
                kv_heads: self.kv_heads,
            });
        }
        if let Some(moe) = self.moe {
            check_dim("experts (E)", moe.experts, MAX_EXPERTS)?;
            check_dim("active experts (k)", moe.active, MAX_EXPERTS)?;
            check_dim("expert width", moe.expert_ff, MAX_D_FF)?;
            if moe.shared > MAX_EXPERTS {
                return Err(ModelError::TooLarge {
                    field: "shared experts",
                    value: moe.shared as f64,
                    max: MAX_EXPERTS as f64,
                });
            }
            if moe.active > moe.experts {
                return Err(ModelError::TooManyActiveExperts {
                    active: moe.active,
                    experts: moe.experts,
                });
            }
            if moe.dense_layers >= self.layers {
                return Err(ModelError::TooManyDenseLayers {
                    dense: moe.dense_layers,
                    layers: self.layers,
                });
            }
        }
        if let Some(mla) = self.mla {
            check_dim("KV latent rank", mla.kv_rank, MAX_D_MODEL)?;
            check_dim("value head dimension", mla.v_dim, MAX_HEAD_DIM)?;
            check_dim("no-rope head dimension", mla.nope_dim, MAX_HEAD_DIM)?;
            if mla.q_rank > MAX_D_MODEL || mla.rope_dim > MAX_HEAD_DIM {
                return Err(ModelError::TooLarge {
                    field: "MLA query rank or rope dimension",
                    value: mla.q_rank.max(mla.rope_dim) as f64,
                    max: MAX_HEAD_DIM as f64,
                });
            }
        }
        Ok(())
    }

    /// Query heads per key/value head, `G = N / K`.
    pub fn group(&self) -> f64 {
        self.heads as f64 / self.kv_heads as f64
    }

    /// MLP matrices per layer: 3 when gated, 2 otherwise.
    pub fn mlp_matrices(&self) -> f64 {
        if self.gated {
            3.0
        } else {
            2.0
        }
    }

    /// Layers whose MLP is a Mixture of Experts (0 for a dense model).
    pub fn moe_layers(&self) -> u64 {
        self.moe
            .map(|m| self.layers.saturating_sub(m.dense_layers))
            .unwrap_or(0)
    }

    /// Layers with a dense MLP.
    pub fn dense_layers(&self) -> u64 {
        self.layers - self.moe_layers()
    }
}

/// Where a preset's numbers come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelSource {
    /// The book part that uses the model, if any.
    pub part: Option<u8>,
    /// The published config or table the shape is taken from.
    pub citation: &'static str,
}

/// A named, published model shape.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelPreset {
    /// Stable id for URLs and directives (`llama3-70b`).
    pub id: &'static str,
    /// Display name.
    pub name: &'static str,
    /// The shape.
    pub config: ModelConfig,
    /// The parameter count its authors publish, for cross-checking.
    pub published_params: f64,
    /// Where the shape comes from.
    pub source: ModelSource,
}

/// Every preset, dense models first.
pub static MODELS: &[ModelPreset] = &[
    ModelPreset {
        id: "llama2-13b",
        name: "LLaMA-2 13B",
        config: ModelConfig::gqa(5120, 13824, 40, 40, 40, 128, 32000, 4096),
        published_params: 13.0e9,
        source: ModelSource {
            part: Some(5),
            citation: "Part 5, 'Some Problems to Work' table (also used in Part 7); \
                       meta-llama/Llama-2-13b-hf config.json",
        },
    },
    ModelPreset {
        id: "llama3-8b",
        name: "LLaMA 3 8B",
        config: ModelConfig::gqa(4096, 14336, 32, 32, 8, 128, 128256, 8192),
        published_params: 8.03e9,
        source: ModelSource {
            part: Some(6),
            citation: "meta-llama/Meta-Llama-3-8B config.json (Part 6 names the 8B model)",
        },
    },
    ModelPreset {
        id: "llama3-70b",
        name: "LLaMA 3 70B",
        config: ModelConfig::gqa(8192, 28672, 80, 64, 8, 128, 128256, 8192),
        published_params: 70.6e9,
        source: ModelSource {
            part: Some(6),
            citation: "Part 6, 'What does LLaMA 3 look like?' table; \
                       meta-llama/Meta-Llama-3-70B config.json",
        },
    },
    ModelPreset {
        id: "llama3-405b",
        name: "LLaMA 3.1 405B",
        config: ModelConfig::gqa(16384, 53248, 126, 128, 8, 128, 128256, 131072),
        published_params: 405.9e9,
        source: ModelSource {
            part: Some(6),
            citation: "Part 6, Worked Problem 2: meta-llama/Llama-3.1-405B config.json",
        },
    },
    ModelPreset {
        id: "gemma2-27b",
        name: "Gemma 2 27B",
        config: ModelConfig {
            tied_embeddings: true,
            ..ModelConfig::gqa(4608, 36864, 46, 32, 16, 128, 256000, 8192)
        },
        published_params: 27.2e9,
        source: ModelSource {
            part: Some(4),
            citation: "google/gemma-2-27b config.json (Part 4 uses its D = 4608)",
        },
    },
    ModelPreset {
        id: "mixtral-8x7b",
        name: "Mixtral 8x7B",
        config: ModelConfig {
            moe: Some(Moe {
                experts: 8,
                active: 2,
                shared: 0,
                expert_ff: 14336,
                dense_layers: 0,
            }),
            ..ModelConfig::gqa(4096, 14336, 32, 32, 8, 128, 32000, 32768)
        },
        published_params: 46.7e9,
        source: ModelSource {
            part: None,
            citation: "mistralai/Mixtral-8x7B-v0.1 config.json",
        },
    },
    ModelPreset {
        id: "gpt-oss-120b",
        name: "gpt-oss-120b",
        config: ModelConfig {
            moe: Some(Moe {
                experts: 128,
                active: 4,
                shared: 0,
                expert_ff: 2880,
                dense_layers: 0,
            }),
            ..ModelConfig::gqa(2880, 2880, 36, 64, 8, 64, 201088, 131072)
        },
        published_params: 116.8e9,
        source: ModelSource {
            part: Some(12),
            citation: "openai/gpt-oss-120b config.json (Part 12 uses E = 128, k = 4); \
                       attention biases and sinks are not counted",
        },
    },
    ModelPreset {
        id: "deepseek-v3",
        name: "DeepSeek-V3",
        config: ModelConfig {
            moe: Some(Moe {
                experts: 256,
                active: 8,
                shared: 1,
                expert_ff: 2048,
                dense_layers: 3,
            }),
            mla: Some(Mla {
                q_rank: 1536,
                kv_rank: 512,
                nope_dim: 128,
                rope_dim: 64,
                v_dim: 128,
            }),
            ..ModelConfig::gqa(7168, 18432, 61, 128, 128, 128, 129280, 163840)
        },
        published_params: 671e9,
        source: ModelSource {
            part: Some(4),
            citation: "deepseek-ai/DeepSeek-V3 config.json (Part 4 Q7-Q8: E = 256, k = 8, \
                       37B active); the multi-token-prediction module is not counted",
        },
    },
];

/// Models the book invents for its problems rather than takes from a
/// publication. They are not among [`MODELS`], so no picker offers them; a
/// chapter names them by id (`model=part7-problem`) and the problems that use
/// them read their shapes from here ([`book_model`]).
pub static BOOK_MODELS: &[ModelPreset] = &[
    ModelPreset {
        id: "part7-problem",
        name: "Part 7's problem model",
        config: ModelConfig {
            tied_embeddings: true,
            ..ModelConfig::gqa(4096, 16384, 64, 32, 8, 256, 32128, 131072)
        },
        published_params: 18.4e9,
        source: ModelSource {
            part: Some(7),
            citation: "Part 7, Worked Problems: a model invented from LLaMA-2 13B, \
                       input and output embeddings shared; 128k-token sequences (Question 2)",
        },
    },
    ModelPreset {
        id: "part7-moe",
        name: "Part 7's problem model as a mixture of experts",
        config: ModelConfig {
            tied_embeddings: true,
            moe: Some(Moe {
                experts: 16,
                active: 2,
                shared: 0,
                expert_ff: 16384,
                dense_layers: 0,
            }),
            ..ModelConfig::gqa(4096, 16384, 64, 32, 8, 256, 32128, 131072)
        },
        published_params: 212e9,
        source: ModelSource {
            part: Some(7),
            citation: "Part 7, Worked Problems, Questions 5 and 6: the problem model with \
                       E = 16 experts, k = 2 active",
        },
    },
];

/// Looks up one of the book's invented models ([`BOOK_MODELS`]) by id,
/// case-insensitively.
pub fn book_model(id: &str) -> Option<&'static ModelPreset> {
    let id = id.trim();
    BOOK_MODELS.iter().find(|m| m.id.eq_ignore_ascii_case(id))
}

/// Looks a preset up by id, case-insensitively.
pub fn model(id: &str) -> Option<&'static ModelPreset> {
    let id = id.trim();
    MODELS.iter().find(|m| m.id.eq_ignore_ascii_case(id))
}

/// Like [`model`], with an error naming the unknown id.
pub fn try_model(id: &str) -> Result<&'static ModelPreset, ModelError> {
    model(id).ok_or_else(|| ModelError::UnknownModel(id.trim().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_are_valid_and_unique() {
        for (i, a) in MODELS.iter().enumerate() {
            assert_eq!(a.config.validate(), Ok(()), "{}", a.id);
            for b in &MODELS[i + 1..] {
                assert_ne!(a.id, b.id);
            }
        }
        for b in BOOK_MODELS {
            assert_eq!(b.config.validate(), Ok(()), "{}", b.id);
            assert!(model(b.id).is_none(), "{} is also a published preset", b.id);
            assert_eq!(book_model(&b.id.to_uppercase()).map(|m| m.id), Some(b.id));
        }
        assert_eq!(model(" LLaMA3-70B").map(|m| m.config.layers), Some(80));
        assert!(model("llama5").is_none());
        assert!(try_model("gpt-5")
            .unwrap_err()
            .to_string()
            .contains("gpt-5"));
    }

    #[test]
    fn constructor_rejects_bad_shapes() {
        // Each argument lands in its own field (a swapped pair would not).
        let ok = ModelConfig::dense(4096, 16384, 32, 32, 8, 128, 32000).unwrap();
        assert_eq!(
            (ok.d_model, ok.d_ff, ok.layers, ok.heads),
            (4096, 16384, 32, 32)
        );
        assert_eq!((ok.kv_heads, ok.head_dim, ok.vocab), (8, 128, 32000));
        let e = ModelConfig::dense(0, 16384, 32, 32, 8, 128, 32000).unwrap_err();
        assert!(e.to_string().contains("d_model"), "{e}");
        let e = ModelConfig::dense(4096, 16384, 32, 32, 12, 128, 32000).unwrap_err();
        assert_eq!(
            e,
            ModelError::KvHeadsDontDivide {
                heads: 32,
                kv_heads: 12
            }
        );
        let e = ModelConfig::dense(4096, 16384, 32, 8, 32, 128, 32000).unwrap_err();
        assert!(matches!(e, ModelError::KvHeadsDontDivide { .. }));
        let e = ModelConfig::dense(MAX_D_MODEL + 1, 1, 1, 1, 1, 1, 1).unwrap_err();
        assert!(matches!(e, ModelError::TooLarge { .. }));
        let moe = Moe {
            experts: 8,
            active: 9,
            shared: 0,
            expert_ff: 100,
            dense_layers: 0,
        };
        let e = ok.with_moe(moe).unwrap_err();
        assert!(e.to_string().contains("activates 9"), "{e}");
    }

    #[test]
    fn reader_numbers_are_checked() {
        assert_eq!(parse_dim("D", 8192.0, MAX_D_MODEL), Ok(8192));
        assert!(matches!(
            parse_dim("D", f64::NAN, MAX_D_MODEL),
            Err(ModelError::NotFinite { .. })
        ));
        assert!(matches!(
            parse_dim("D", -3.0, MAX_D_MODEL),
            Err(ModelError::NotPositive { .. })
        ));
        assert!(matches!(
            parse_dim("D", 2.5, MAX_D_MODEL),
            Err(ModelError::NotAnInteger { .. })
        ));
        assert!(matches!(
            parse_dim("D", 1e30, MAX_D_MODEL),
            Err(ModelError::TooLarge { .. })
        ));
    }
}
