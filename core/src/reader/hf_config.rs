//! Importing a Hugging Face `config.json`: a reader's own model as the same
//! [`ModelConfig`] the registry's presets use, so every formula of `core`
//! works on it unchanged.
//!
//! The import reads the field names of the LLaMA, Mistral/Mixtral, Qwen2/Qwen3,
//! Gemma 2/3, DeepSeek-V2/V3 and gpt-oss configurations. It never guesses: every
//! field it reads becomes a [`MappingRow`] (field → book symbol → value, with a
//! note where a documented default of the format filled a gap), every field it
//! does not read is listed in [`Imported::ignored`] with the reason, and
//! anything it cannot express is refused with an [`ImportError`] naming the
//! field and what was expected.
//!
//! Sliding-window attention does not change a model's parameters or FLOPs per
//! token but bounds the KV cache of the sliding layers; [`ModelConfig`] has no
//! field for it, so the import returns it beside the model ([`SlidingWindow`])
//! and [`Imported::kv_cache_bytes`] counts it, while the shared KV-cache
//! formulas of [`crate::model::accounting`] keep counting every layer at full context
//! (an upper bound).
//!
//! ```
//! use ridgeline_core::reader::hf_config::import;
//! use ridgeline_core::model::accounting::params;
//!
//! let json = r#"{"model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336,
//!   "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
//!   "vocab_size": 128256, "max_position_embeddings": 131072,
//!   "tie_word_embeddings": false, "rope_theta": 500000.0}"#;
//! let m = import(json).unwrap();
//! assert_eq!(m.config.kv_heads, 8);
//! assert!((params(&m.config).total() / 1e9 - 8.03).abs() < 0.01);
//! assert!(m.rows.iter().any(|r| r.field == "hidden_size" && r.symbol.map(|s| s.name) == Some("D")));
//! assert_eq!(m.ignored[0].field, "rope_theta");
//!
//! let err = import(r#"{"model_type": "llama", "hidden_size": 0}"#).unwrap_err();
//! assert_eq!(err.field, "hidden_size");
//! ```

use crate::check::is_positive;
use crate::dtype::Dtype;
use crate::model::accounting::kv_bytes_per_token;
use crate::model::config::{
    Mla, ModelConfig, Moe, MAX_D_FF, MAX_D_MODEL, MAX_EXPERTS, MAX_HEADS, MAX_HEAD_DIM, MAX_LAYERS,
    MAX_SEQ, MAX_VOCAB,
};
use crate::symbols::{Symbol, SYMBOLS};
use crate::units::Bytes;
use serde_json::{Map, Value};
use std::fmt;

/// The largest `config.json` accepted, in bytes (1 MiB; published ones are a few KB).
/// Longer input is refused before it is parsed.
pub const MAX_CONFIG_BYTES: usize = 1 << 20;

pub use crate::reader::chip::ImportError;

/// One field the import read: where it came from, the book's symbol for it
/// (if the book has one), and the value the model takes.
#[derive(Debug, Clone, PartialEq)]
pub struct MappingRow {
    /// The JSON key (`hidden_size`), or the keys a derived value came from.
    pub field: String,
    /// The book's symbol (`D`), when the book names the quantity.
    pub symbol: Option<&'static Symbol>,
    /// What the quantity is, in the book's words.
    pub meaning: &'static str,
    /// The value the model takes, as text (`4096`, `yes`).
    pub value: String,
    /// How a value not written in the file was filled (a documented default of
    /// the format), or how it was read; `None` when it was copied as written.
    pub note: Option<String>,
}

/// A field the import did not read, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ignored {
    /// The JSON key.
    pub field: String,
    /// Why it does not change what the book computes.
    pub reason: &'static str,
}

/// Sliding-window attention: some layers attend only to the last `window` tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SlidingWindow {
    /// Tokens a sliding layer attends to (and caches).
    pub window: u64,
    /// Layers that slide; the others attend to the whole context.
    pub sliding_layers: u64,
}

/// The model families whose field names the import reads (`model_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// `llama`.
    Llama,
    /// `mistral`.
    Mistral,
    /// `mixtral`.
    Mixtral,
    /// `qwen2`.
    Qwen2,
    /// `qwen3`.
    Qwen3,
    /// `qwen3_moe`.
    Qwen3Moe,
    /// `gemma`.
    Gemma,
    /// `gemma2`.
    Gemma2,
    /// `gemma3_text` (or the text part of a `gemma3` configuration).
    Gemma3,
    /// `deepseek_v2`.
    DeepSeekV2,
    /// `deepseek_v3`.
    DeepSeekV3,
    /// `gpt_oss`.
    GptOss,
}

impl Family {
    /// Every family, in the order the refusal message lists them.
    pub const ALL: [Family; 12] = [
        Family::Llama,
        Family::Mistral,
        Family::Mixtral,
        Family::Qwen2,
        Family::Qwen3,
        Family::Qwen3Moe,
        Family::Gemma,
        Family::Gemma2,
        Family::Gemma3,
        Family::DeepSeekV2,
        Family::DeepSeekV3,
        Family::GptOss,
    ];

    /// The `model_type` string.
    pub fn model_type(self) -> &'static str {
        match self {
            Family::Llama => "llama",
            Family::Mistral => "mistral",
            Family::Mixtral => "mixtral",
            Family::Qwen2 => "qwen2",
            Family::Qwen3 => "qwen3",
            Family::Qwen3Moe => "qwen3_moe",
            Family::Gemma => "gemma",
            Family::Gemma2 => "gemma2",
            Family::Gemma3 => "gemma3_text",
            Family::DeepSeekV2 => "deepseek_v2",
            Family::DeepSeekV3 => "deepseek_v3",
            Family::GptOss => "gpt_oss",
        }
    }

    fn parse(text: &str) -> Option<Family> {
        Family::ALL.into_iter().find(|f| f.model_type() == text)
    }

    /// Whether the format ties the embeddings when `tie_word_embeddings` is absent
    /// (the default of the family's configuration class in `transformers`).
    fn ties_by_default(self) -> bool {
        matches!(self, Family::Gemma | Family::Gemma2 | Family::Gemma3)
    }

    fn is_deepseek(self) -> bool {
        matches!(self, Family::DeepSeekV2 | Family::DeepSeekV3)
    }
}

/// An imported model: the shape every `core` function takes, plus what the
/// shape cannot hold, the mapping and the ignored fields.
#[derive(Debug, Clone, PartialEq)]
pub struct Imported {
    /// The family the field names were read as.
    pub family: Family,
    /// The model, validated.
    pub config: ModelConfig,
    /// Sliding-window attention, when the configuration uses it.
    pub window: Option<SlidingWindow>,
    /// Every field read, in the order the book lists the dimensions.
    pub rows: Vec<MappingRow>,
    /// Every field not read, in key order.
    pub ignored: Vec<Ignored>,
}

impl Imported {
    /// KV-cache bytes for `batch` sequences of `seq` tokens, counting sliding
    /// layers at `min(seq, window)` tokens (non-finite or negative sizes give 0).
    pub fn kv_cache_bytes(&self, seq: f64, batch: f64, dtype: Dtype) -> Bytes {
        if !(is_positive(seq) && is_positive(batch)) {
            return Bytes(0.0);
        }
        let per_layer = kv_bytes_per_token(&self.config, dtype).0 / self.config.layers as f64;
        let layers = self.config.layers as f64;
        let tokens = match self.window {
            None => layers * seq,
            Some(w) => {
                let sliding = w.sliding_layers as f64;
                (layers - sliding) * seq + sliding * seq.min(w.window as f64)
            }
        };
        Bytes(per_layer * tokens * batch)
    }
}

/// Fields that never change what the book computes, with the reason shown to the
/// reader. Anything else unread is "not a field the import reads".
const KNOWN_IGNORED: &[(&str, &str)] = &[
    (
        "architectures",
        "the class name; model_type chooses the field names",
    ),
    (
        "torch_dtype",
        "the stored format; each widget chooses the dtype",
    ),
    ("dtype", "the stored format; each widget chooses the dtype"),
    (
        "quantization_config",
        "the stored format; each widget chooses the dtype",
    ),
    ("transformers_version", "the library version"),
    ("rope_theta", "position encoding: no parameters"),
    ("rope_scaling", "position encoding: no parameters"),
    ("rope_local_base_freq", "position encoding: no parameters"),
    ("rms_norm_eps", "a numerical constant"),
    ("initializer_range", "initialisation only"),
    (
        "attention_dropout",
        "training regularisation: no parameters",
    ),
    (
        "hidden_act",
        "the activation: the MLP is gated in every family read",
    ),
    (
        "hidden_activation",
        "the activation: the MLP is gated in every family read",
    ),
    (
        "attention_bias",
        "biases are a few per million of the parameters; not counted",
    ),
    (
        "mlp_bias",
        "biases are a few per million of the parameters; not counted",
    ),
    (
        "num_nextn_predict_layers",
        "multi-token-prediction modules are not counted",
    ),
    ("use_cache", "a runtime switch"),
    ("bos_token_id", "a token id"),
    ("eos_token_id", "a token id"),
    ("pad_token_id", "a token id"),
    ("router_aux_loss_coef", "a training loss weight"),
    ("aux_loss_alpha", "a training loss weight"),
    ("output_router_logits", "a runtime switch"),
    ("norm_topk_prob", "routing arithmetic: no parameters"),
    ("routed_scaling_factor", "routing arithmetic: no parameters"),
    ("scoring_func", "routing arithmetic: no parameters"),
    ("topk_method", "routing arithmetic: no parameters"),
    ("n_group", "routing arithmetic: no parameters"),
    ("topk_group", "routing arithmetic: no parameters"),
    ("seq_aux", "a training loss switch"),
    ("ep_size", "a parallelism setting, not the model"),
    ("pretraining_tp", "a parallelism setting, not the model"),
    ("attn_logit_softcapping", "logit arithmetic: no parameters"),
    ("final_logit_softcapping", "logit arithmetic: no parameters"),
    ("query_pre_attn_scalar", "logit arithmetic: no parameters"),
    ("cache_implementation", "a runtime switch"),
    ("swiglu_limit", "activation clamping: no parameters"),
    (
        "initial_context_length",
        "the pre-training context; max_position_embeddings is read",
    ),
    ("auto_map", "code locations"),
    ("use_mrope", "position encoding: no parameters"),
    ("vision_config", "the vision encoder is not counted"),
    (
        "max_window_layers",
        "used only with use_sliding_window on, which needs layer_types here",
    ),
    ("sliding_window_pattern", "read for gemma3 only"),
];

/// The book's symbol for a row, by its exact name (every name used here is a
/// row of `SYMBOLS`, which a test checks).
fn symbol(name: &str) -> Option<&'static Symbol> {
    SYMBOLS.iter().find(|s| s.name == name)
}

/// Reads the fields of one JSON object, remembering which were read.
struct Reader<'a> {
    obj: &'a Map<String, Value>,
    prefix: &'static str,
    read: Vec<&'a str>,
    rows: Vec<MappingRow>,
}

impl<'a> Reader<'a> {
    fn name(&self, key: &str) -> String {
        format!("{}{key}", self.prefix)
    }

    fn err(&self, key: &str, message: impl Into<String>) -> ImportError {
        ImportError::new(self.name(key), message)
    }

    /// The value of `key`, marking it read; `null` counts as absent.
    fn get(&mut self, key: &str) -> Option<&'a Value> {
        let (k, v) = self.obj.get_key_value(key)?;
        self.read.push(k.as_str());
        (!v.is_null()).then_some(v)
    }

    /// A whole number in `lo..=max`, or `None` when absent.
    fn int(
        &mut self,
        key: &str,
        lo: u64,
        max: u64,
        what: &str,
    ) -> Result<Option<u64>, ImportError> {
        let Some(v) = self.get(key) else {
            return Ok(None);
        };
        let n = match v {
            Value::Number(n) => match n.as_u64() {
                Some(n) => n,
                None => {
                    return Err(self.err(
                        key,
                        format!("expected a whole number of {what} from {lo} to {max}, got {n}"),
                    ))
                }
            },
            other => {
                return Err(self.err(
                    key,
                    format!(
                        "expected a whole number of {what} from {lo} to {max}, got {}",
                        kind(other)
                    ),
                ))
            }
        };
        if n < lo || n > max {
            return Err(self.err(
                key,
                format!("{n} {what} is outside the accepted range {lo} to {max}"),
            ));
        }
        Ok(Some(n))
    }

    /// A required whole number in `1..=max`.
    fn need(&mut self, key: &str, max: u64, what: &str) -> Result<u64, ImportError> {
        self.int(key, 1, max, what)?.ok_or_else(|| {
            self.err(
                key,
                format!("missing; expected a whole number of {what} from 1 to {max}"),
            )
        })
    }

    fn boolean(&mut self, key: &str) -> Result<Option<bool>, ImportError> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(other) => {
                Err(self.err(key, format!("expected true or false, got {}", kind(other))))
            }
        }
    }

    fn row(
        &mut self,
        field: impl Into<String>,
        symbol_name: Option<&str>,
        meaning: &'static str,
        value: impl fmt::Display,
        note: Option<String>,
    ) {
        self.rows.push(MappingRow {
            field: field.into(),
            symbol: symbol_name.and_then(symbol),
            meaning,
            value: value.to_string(),
            note,
        });
    }
}

/// A JSON value's kind, for messages.
fn kind(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("{b}"),
        Value::Number(n) => format!("{n}"),
        Value::String(s) if s.chars().count() <= 40 => format!("the text {s:?}"),
        Value::String(_) => "a long text".into(),
        Value::Array(_) => "a list".into(),
        Value::Object(_) => "an object".into(),
    }
}

/// Imports a `config.json`. Inputs over [`MAX_CONFIG_BYTES`] are refused before
/// parsing; never panics.
pub fn import(text: &str) -> Result<Imported, ImportError> {
    if text.len() > MAX_CONFIG_BYTES {
        return Err(ImportError::new(
            "(the whole file)",
            format!(
                "{} bytes is more than the {} bytes a config.json may have (published ones are a few KB)",
                text.len(),
                MAX_CONFIG_BYTES
            ),
        ));
    }
    // `Value::from_str` is compiled inside serde_json (optimised even in debug
    // builds, see the workspace profile), unlike a generic `from_str::<Value>`.
    let value: Value = text.parse().map_err(|e: serde_json::Error| {
        ImportError::new(
            "(JSON)",
            format!(
                "not valid JSON at line {} column {}: {e}",
                e.line(),
                e.column()
            ),
        )
    })?;
    let Value::Object(top) = value else {
        return Err(ImportError::new(
            "(JSON)",
            format!("expected an object of fields, got {}", kind(&value)),
        ));
    };
    // A multimodal Gemma 3 keeps its language model under `text_config`.
    let (obj, prefix, outer) = match (top.get("model_type"), top.get("text_config")) {
        (Some(Value::String(t)), Some(Value::Object(inner))) if t == "gemma3" => {
            (inner, "text_config.", Some(&top))
        }
        _ => (&top, "", None),
    };
    let mut r = Reader {
        obj,
        prefix,
        read: Vec::new(),
        rows: Vec::new(),
    };
    let family = read_family(&mut r, outer.is_some())?;
    let (config, window) = read_model(&mut r, family)?;
    config
        .checked()
        .map_err(|e| ImportError::new("(the model)", e.to_string()))?;
    // A field written as null was read as absent; say so rather than drop it.
    for key in r.read.clone() {
        if obj.get(key).is_some_and(Value::is_null)
            && !r.rows.iter().any(|row| row.field == r.name(key))
        {
            r.row(
                r.name(key),
                None,
                "written as null",
                "null",
                Some("read as absent".into()),
            );
        }
    }
    let mut ignored = unread(obj, &r.read, prefix);
    if let Some(outer) = outer {
        let mut outer_read = vec!["model_type", "text_config"];
        outer_read.retain(|k| outer.contains_key(*k));
        ignored.extend(unread(outer, &outer_read, ""));
    }
    Ok(Imported {
        family,
        config,
        window,
        rows: r.rows,
        ignored,
    })
}

fn unread(obj: &Map<String, Value>, read: &[&str], prefix: &str) -> Vec<Ignored> {
    obj.keys()
        .filter(|k| !read.contains(&k.as_str()))
        .map(|k| Ignored {
            field: format!("{prefix}{k}"),
            reason: KNOWN_IGNORED
                .iter()
                .find(|(name, _)| name == k)
                .map_or("not a field the import reads", |(_, why)| *why),
        })
        .collect()
}

fn read_family(r: &mut Reader<'_>, nested: bool) -> Result<Family, ImportError> {
    let known = || {
        Family::ALL
            .iter()
            .map(|f| f.model_type())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let family = match r.get("model_type") {
        None => {
            return Err(r.err(
                "model_type",
                format!(
                    "missing; it says which field names the file uses (one of {}, or gemma3)",
                    known()
                ),
            ))
        }
        Some(Value::String(t)) => match Family::parse(t) {
            Some(f) => f,
            None if t == "gemma3" && !nested => {
                return Err(r.err(
                    "text_config",
                    "a gemma3 configuration keeps its language model under text_config, which is missing",
                ))
            }
            None => {
                return Err(r.err(
                    "model_type",
                    format!(
                        "{t:?} is not a family the import reads (one of {}, or gemma3); \
                         whether its MLP is gated and which defaults apply cannot be read from the fields",
                        known()
                    ),
                ))
            }
        },
        Some(other) => {
            return Err(r.err(
                "model_type",
                format!("expected the family's name as text, got {}", kind(other)),
            ))
        }
    };
    let shown = if nested {
        "gemma3 (text_config: gemma3_text)"
    } else {
        family.model_type()
    };
    r.row(
        "model_type",
        None,
        "the family: which field names and defaults apply",
        shown,
        None,
    );
    Ok(family)
}

fn read_model(
    r: &mut Reader<'_>,
    family: Family,
) -> Result<(ModelConfig, Option<SlidingWindow>), ImportError> {
    let d = r.need("hidden_size", MAX_D_MODEL, "elements")?;
    r.row("hidden_size", Some("D"), "model width d_model", d, None);
    let f = r.need("intermediate_size", MAX_D_FF, "elements")?;
    r.row(
        "intermediate_size",
        Some("F"),
        "MLP hidden width of a dense layer",
        f,
        None,
    );
    let layers = r.need("num_hidden_layers", MAX_LAYERS, "layers")?;
    r.row("num_hidden_layers", Some("L"), "layers", layers, None);
    let heads = r.need("num_attention_heads", MAX_HEADS, "heads")?;
    r.row("num_attention_heads", Some("N"), "query heads", heads, None);
    let kv_heads = match r.int("num_key_value_heads", 1, MAX_HEADS, "heads")? {
        Some(k) => {
            r.row("num_key_value_heads", Some("K"), "key/value heads", k, None);
            k
        }
        None => {
            r.row(
                "num_key_value_heads",
                Some("K"),
                "key/value heads",
                heads,
                Some("absent: K = N, multi-head attention (the format's default)".into()),
            );
            heads
        }
    };
    if heads % kv_heads != 0 {
        return Err(r.err(
            "num_key_value_heads",
            format!("{kv_heads} key/value heads must divide the {heads} query heads"),
        ));
    }
    let vocab = r.need("vocab_size", MAX_VOCAB, "tokens")?;
    r.row("vocab_size", Some("V"), "vocabulary", vocab, None);
    let max_seq = r.need("max_position_embeddings", MAX_SEQ, "tokens")?;
    r.row(
        "max_position_embeddings",
        Some("S"),
        "longest context",
        max_seq,
        None,
    );
    let tied = match r.boolean("tie_word_embeddings")? {
        Some(t) => {
            r.row(
                "tie_word_embeddings",
                None,
                "input and output embeddings share one V×D matrix",
                yes(t),
                None,
            );
            t
        }
        None => {
            let t = family.ties_by_default();
            r.row(
                "tie_word_embeddings",
                None,
                "input and output embeddings share one V×D matrix",
                yes(t),
                Some(format!("absent: the {} default", family.model_type())),
            );
            t
        }
    };
    let mla = read_mla(r, family)?;
    let head_dim = match (mla, r.int("head_dim", 1, MAX_HEAD_DIM, "elements")?) {
        (Some(m), _) => {
            r.row(
                "v_head_dim",
                Some("H"),
                "head dimension",
                m.v_dim,
                Some("MLA: the value head dimension; the KV cache uses the latent rank".into()),
            );
            m.v_dim
        }
        (None, Some(h)) => {
            r.row("head_dim", Some("H"), "head dimension", h, None);
            h
        }
        (None, None) => {
            if d % heads != 0 {
                return Err(r.err(
                    "head_dim",
                    format!(
                        "missing, and hidden_size {d} is not a multiple of num_attention_heads {heads}, \
                         so H = D / N (the format's default) is not a whole number"
                    ),
                ));
            }
            r.row(
                "head_dim",
                Some("H"),
                "head dimension",
                d / heads,
                Some("absent: H = D / N (the format's default)".into()),
            );
            d / heads
        }
    };
    let moe = read_moe(r, family, f, layers)?;
    let window = read_window(r, family, layers)?;
    let config = ModelConfig {
        tied_embeddings: tied,
        moe,
        mla,
        ..ModelConfig::gqa(d, f, layers, heads, kv_heads, head_dim, vocab, max_seq)
    };
    Ok((config, window))
}

fn yes(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

fn read_mla(r: &mut Reader<'_>, family: Family) -> Result<Option<Mla>, ImportError> {
    let Some(kv_rank) = r.int("kv_lora_rank", 1, MAX_D_MODEL, "elements")? else {
        if family.is_deepseek() {
            return Err(r.err(
                "kv_lora_rank",
                "missing; a DeepSeek configuration uses multi-head latent attention and needs its KV latent rank",
            ));
        }
        return Ok(None);
    };
    let q_rank = r
        .int("q_lora_rank", 0, MAX_D_MODEL, "elements")?
        .unwrap_or(0);
    let rope_dim = r.need("qk_rope_head_dim", MAX_HEAD_DIM, "elements")?;
    let nope_dim = r.need("qk_nope_head_dim", MAX_HEAD_DIM, "elements")?;
    let v_dim = r.need("v_head_dim", MAX_HEAD_DIM, "elements")?;
    let q_note =
        (q_rank == 0).then(|| "absent or null: queries are projected directly".to_string());
    r.row("q_lora_rank", None, "MLA query latent rank", q_rank, q_note);
    r.row(
        "kv_lora_rank",
        None,
        "MLA key/value latent rank (what the KV cache stores)",
        kv_rank,
        None,
    );
    r.row(
        "qk_rope_head_dim",
        None,
        "MLA per-head query/key dimension with rotary embedding",
        rope_dim,
        None,
    );
    r.row(
        "qk_nope_head_dim",
        None,
        "MLA per-head query/key dimension without rotary embedding",
        nope_dim,
        None,
    );
    Ok(Some(Mla {
        q_rank,
        kv_rank,
        nope_dim,
        rope_dim,
        v_dim,
    }))
}

/// Reads one of several equivalent keys; two that disagree are refused.
fn one_of(
    r: &mut Reader<'_>,
    keys: &[&'static str],
    lo: u64,
    what: &str,
) -> Result<Option<(&'static str, u64)>, ImportError> {
    let mut found: Option<(&'static str, u64)> = None;
    for &key in keys {
        if let Some(v) = r.int(key, lo, MAX_EXPERTS, what)? {
            if let Some((first, w)) = found {
                if w != v {
                    return Err(r.err(key, format!("{v} disagrees with {first} = {w}")));
                }
                r.row(
                    key,
                    None,
                    "the same count under a second name",
                    v,
                    Some(format!("agrees with {first}")),
                );
            } else {
                found = Some((key, v));
            }
        }
    }
    Ok(found)
}

fn read_moe(
    r: &mut Reader<'_>,
    family: Family,
    d_ff: u64,
    layers: u64,
) -> Result<Option<Moe>, ImportError> {
    let experts = one_of(
        r,
        &["num_local_experts", "n_routed_experts", "num_experts"],
        0,
        "experts",
    )?;
    let active = one_of(
        r,
        &["num_experts_per_tok", "experts_per_token"],
        0,
        "experts",
    )?;
    if let Some((key, 0)) = experts {
        r.row(
            key,
            Some("E"),
            "routed experts per MoE layer",
            0,
            Some("0: a dense model".into()),
        );
    }
    let Some((experts_key, experts)) = experts.filter(|(_, e)| *e > 0) else {
        if let Some((key, k)) = active.filter(|(_, k)| *k > 0) {
            return Err(r.err(
                key,
                format!("{k} experts per token, but the file gives no number of experts (num_local_experts, n_routed_experts or num_experts)"),
            ));
        }
        return Ok(None);
    };
    let Some((active_key, active)) = active.filter(|(_, k)| *k > 0) else {
        return Err(r.err(
            "num_experts_per_tok",
            format!("missing or 0; an MoE with {experts_key} = {experts} needs the experts each token uses, from 1 to {experts}"),
        ));
    };
    if active > experts {
        return Err(r.err(
            active_key,
            format!(
                "{active} experts per token is more than the {experts} experts ({experts_key})"
            ),
        ));
    }
    // Qwen2-MoE's shared expert has its own width, which `Moe` cannot express.
    if let Some(w) = r.int("shared_expert_intermediate_size", 0, MAX_D_FF, "elements")? {
        if w > 0 {
            return Err(r.err(
                "shared_expert_intermediate_size",
                "a shared expert with its own width is not supported: shared experts must have the routed experts' width",
            ));
        }
    }
    let (expert_ff, ff_key, ff_note) =
        match r.int("moe_intermediate_size", 1, MAX_D_FF, "elements")? {
            Some(w) => (w, "moe_intermediate_size", None),
            None => (
                d_ff,
                "intermediate_size",
                Some("no moe_intermediate_size: each expert has the dense width F".to_string()),
            ),
        };
    let shared = r
        .int("n_shared_experts", 0, MAX_EXPERTS, "experts")?
        .unwrap_or(0);
    let mut dense_layers = r
        .int("first_k_dense_replace", 0, MAX_LAYERS, "layers")?
        .unwrap_or(0);
    let mut dense_key = "first_k_dense_replace";
    for key in ["moe_layer_freq", "decoder_sparse_step"] {
        if let Some(step) = r.int(key, 0, MAX_LAYERS, "layers")? {
            if step != 1 {
                return Err(r.err(
                    key,
                    format!("{step}: only every layer being an MoE layer (1) is supported, after any leading dense layers"),
                ));
            }
            r.row(
                key,
                None,
                "MoE layer spacing: every layer after the dense ones",
                step,
                None,
            );
        }
    }
    if let Some(v) = r.get("mlp_only_layers") {
        let Value::Array(list) = v else {
            return Err(r.err(
                "mlp_only_layers",
                format!("expected a list of layer indices, got {}", kind(v)),
            ));
        };
        // Only a leading run of dense layers (0, 1, …, k−1) can be expressed.
        for (i, item) in list.iter().enumerate() {
            if item.as_u64() != Some(i as u64) {
                return Err(r.err(
                    "mlp_only_layers",
                    "only leading dense layers 0, 1, …, k−1 are supported (the list must count up from 0)",
                ));
            }
        }
        let shown = match list.len() {
            0 => "none".to_string(),
            n => format!("layers 0 to {}", n - 1),
        };
        r.row(
            "mlp_only_layers",
            None,
            "layers with a dense MLP instead of experts",
            shown,
            None,
        );
        if !list.is_empty() {
            if dense_layers != 0 && dense_layers != list.len() as u64 {
                return Err(r.err("mlp_only_layers", "disagrees with first_k_dense_replace"));
            }
            dense_layers = list.len() as u64;
            dense_key = "mlp_only_layers";
        }
    }
    if dense_layers >= layers {
        return Err(r.err(
            dense_key,
            format!("{dense_layers} dense layers leave no MoE layer among the {layers} layers"),
        ));
    }
    r.row(
        experts_key,
        Some("E"),
        "routed experts per MoE layer",
        experts,
        None,
    );
    r.row(
        active_key,
        Some("k"),
        "routed experts each token uses",
        active,
        None,
    );
    r.row(
        ff_key,
        None,
        "hidden width of one expert",
        expert_ff,
        ff_note,
    );
    let note = |f: Family| (!f.is_deepseek()).then(|| "absent: none".to_string());
    r.row(
        "n_shared_experts",
        None,
        "shared experts every token uses",
        shared,
        note(family),
    );
    r.row(
        dense_key,
        None,
        "leading layers with a dense MLP of width F",
        dense_layers,
        (dense_layers == 0).then(|| "absent or 0: every layer is an MoE layer".to_string()),
    );
    Ok(Some(Moe {
        experts,
        active,
        shared,
        expert_ff,
        dense_layers,
    }))
}

fn read_window(
    r: &mut Reader<'_>,
    family: Family,
    layers: u64,
) -> Result<Option<SlidingWindow>, ImportError> {
    let window = r.int("sliding_window", 1, MAX_SEQ, "tokens")?;
    // Gemma 2 repeats the window under a second name.
    if family == Family::Gemma2 {
        if let Some(w2) = r.int("sliding_window_size", 1, MAX_SEQ, "tokens")? {
            if window != Some(w2) {
                return Err(r.err(
                    "sliding_window_size",
                    format!("{w2} disagrees with sliding_window"),
                ));
            }
            r.row(
                "sliding_window_size",
                None,
                "the window again (Gemma 2)",
                w2,
                None,
            );
        }
    }
    let enabled = r.boolean("use_sliding_window")?;
    let pattern = if family == Family::Gemma3 {
        r.int("sliding_window_pattern", 1, MAX_LAYERS, "layers")?
    } else {
        None
    };
    if let Some(p) = pattern {
        r.row(
            "sliding_window_pattern",
            None,
            "every p-th layer attends to the whole context",
            p,
            None,
        );
    }
    if let Some(on) = enabled {
        r.row(
            "use_sliding_window",
            None,
            "whether sliding-window attention is on",
            yes(on),
            None,
        );
    }
    let (sliding, how): (u64, String) = if let Some(v) = r.get("layer_types") {
        let Value::Array(list) = v else {
            return Err(r.err(
                "layer_types",
                format!("expected a list of layer kinds, got {}", kind(v)),
            ));
        };
        if list.len() as u64 != layers {
            return Err(r.err(
                "layer_types",
                format!(
                    "lists {} layers but num_hidden_layers is {layers}",
                    list.len()
                ),
            ));
        }
        let mut n = 0;
        for item in list {
            match item.as_str() {
                Some("sliding_attention") => n += 1,
                Some("full_attention") => {}
                _ => {
                    return Err(r.err(
                        "layer_types",
                        format!(
                            "expected \"sliding_attention\" or \"full_attention\", got {}",
                            kind(item)
                        ),
                    ))
                }
            }
        }
        (n, "layer_types".into())
    } else if enabled == Some(false) || window.is_none() {
        (0, String::new())
    } else {
        match family {
            Family::Mistral | Family::Mixtral => (layers, "every layer (Mistral)".into()),
            Family::Gemma2 => (
                layers.div_ceil(2),
                "every other layer from the first (the gemma2 default)".into(),
            ),
            Family::Gemma3 => {
                let p = pattern.unwrap_or(6);
                let src = if pattern.is_some() {
                    "sliding_window_pattern"
                } else {
                    "absent sliding_window_pattern: the gemma3 default 6"
                };
                (
                    layers - layers / p,
                    format!("all but every {p}th layer ({src})"),
                )
            }
            _ => {
                return Err(r.err(
                    "sliding_window",
                    format!(
                        "given for {} without layer_types: which layers slide cannot be read",
                        family.model_type()
                    ),
                ))
            }
        }
    };
    let listed = how == "layer_types";
    let (sliding_field, sliding_note) = if listed {
        ("layer_types", None)
    } else {
        ("(sliding layers)", Some(how))
    };
    if sliding == 0 {
        if listed {
            r.row(
                "layer_types",
                None,
                "layers with sliding-window attention",
                0,
                None,
            );
        }
        if let Some(w) = window {
            r.row(
                "sliding_window",
                None,
                "tokens a sliding layer attends to and caches",
                w,
                Some("not used: no layer slides".into()),
            );
        }
        return Ok(None);
    }
    let Some(w) = window else {
        return Err(r.err(
            "sliding_window",
            "missing; layer_types names sliding layers, which need a window in tokens",
        ));
    };
    r.row(
        "sliding_window",
        None,
        "tokens a sliding layer attends to and caches",
        w,
        None,
    );
    r.row(
        sliding_field,
        None,
        "layers with sliding-window attention",
        sliding,
        sliding_note,
    );
    Ok(Some(SlidingWindow {
        window: w,
        sliding_layers: sliding,
    }))
}

/// Writes a model as a `config.json` that [`import`] reads back to the same
/// model: `llama` field names for a dense model, `mixtral` or `qwen3_moe` for
/// an MoE, `deepseek_v3` for multi-head latent attention. A shape no family
/// can express (an ungated MLP, shared experts without MLA) is refused.
pub fn export(cfg: &ModelConfig) -> Result<String, ImportError> {
    if !cfg.gated {
        return Err(ImportError::new(
            "(the model)",
            "an ungated MLP has no field in the families the import reads",
        ));
    }
    let mut m = Map::new();
    let mut put = |k: &str, v: Value| {
        m.insert(k.to_string(), v);
    };
    let family = match (cfg.mla, cfg.moe) {
        (Some(_), Some(_)) => "deepseek_v3",
        (Some(_), None) => {
            return Err(ImportError::new(
                "(the model)",
                "latent attention without experts has no family here (deepseek_v3 is an MoE)",
            ))
        }
        (None, None) => "llama",
        (None, Some(moe)) if moe.shared > 0 => {
            return Err(ImportError::new(
                "n_shared_experts",
                "shared experts are read only with DeepSeek's latent attention",
            ))
        }
        (None, Some(moe)) if moe.expert_ff == cfg.d_ff && moe.dense_layers == 0 => "mixtral",
        (None, Some(_)) => "qwen3_moe",
    };
    put("model_type", family.into());
    put("hidden_size", cfg.d_model.into());
    put("intermediate_size", cfg.d_ff.into());
    put("num_hidden_layers", cfg.layers.into());
    put("num_attention_heads", cfg.heads.into());
    put("num_key_value_heads", cfg.kv_heads.into());
    put("vocab_size", cfg.vocab.into());
    put("max_position_embeddings", cfg.max_seq.into());
    put("tie_word_embeddings", cfg.tied_embeddings.into());
    if let Some(moe) = cfg.moe {
        let experts_key = match family {
            "mixtral" => "num_local_experts",
            "deepseek_v3" => "n_routed_experts",
            _ => "num_experts",
        };
        put(experts_key, moe.experts.into());
        put("num_experts_per_tok", moe.active.into());
        if family != "mixtral" {
            put("moe_intermediate_size", moe.expert_ff.into());
        }
        match family {
            "deepseek_v3" => {
                put("n_shared_experts", moe.shared.into());
                put("first_k_dense_replace", moe.dense_layers.into());
            }
            "qwen3_moe" => put(
                "mlp_only_layers",
                (0..moe.dense_layers)
                    .map(Value::from)
                    .collect::<Vec<_>>()
                    .into(),
            ),
            _ => {}
        }
    }
    match cfg.mla {
        Some(mla) => {
            put("q_lora_rank", mla.q_rank.into());
            put("kv_lora_rank", mla.kv_rank.into());
            put("qk_rope_head_dim", mla.rope_dim.into());
            put("qk_nope_head_dim", mla.nope_dim.into());
            put("v_head_dim", mla.v_dim.into());
        }
        None => put("head_dim", cfg.head_dim.into()),
    }
    Ok(Value::Object(m).to_string())
}

/// The same JSON without insignificant whitespace (for a URL): it imports to
/// the same [`Imported`] as `text`. Text that is not JSON is returned unchanged.
pub fn compact(text: &str) -> String {
    text.parse::<Value>()
        .map(|v| v.to_string())
        .unwrap_or_else(|_| text.to_string())
}

/// [`export`] with one field per line, as a `config.json` is usually written.
pub fn export_pretty(cfg: &ModelConfig) -> Result<String, ImportError> {
    let compact: Value = export(cfg)?
        .parse()
        .map_err(|e: serde_json::Error| ImportError::new("(JSON)", e.to_string()))?;
    serde_json::to_string_pretty(&compact).map_err(|e| ImportError::new("(JSON)", e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::accounting::{active_params, params};
    use crate::model::config::model;

    const LLAMA: &str = r#"{"model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336,
        "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
        "vocab_size": 128256, "max_position_embeddings": 131072}"#;

    fn with(base: &str, key: &str, value: &str) -> String {
        let mut v: Value = serde_json::from_str(base).unwrap();
        v[key] = serde_json::from_str(value).unwrap();
        v.to_string()
    }

    #[test]
    fn every_row_symbol_is_in_the_table() {
        for name in ["D", "F", "L", "N", "K", "H", "V", "S", "E", "k"] {
            assert!(symbol(name).is_some(), "{name}");
        }
        let m = import(LLAMA).unwrap();
        let named: Vec<_> = m
            .rows
            .iter()
            .filter_map(|r| r.symbol.map(|s| s.name))
            .collect();
        assert_eq!(named, ["D", "F", "L", "N", "K", "V", "S", "H"]);
    }

    #[test]
    fn defaults_are_stated_not_silent() {
        let m = import(LLAMA).unwrap();
        let tie = m
            .rows
            .iter()
            .find(|r| r.field == "tie_word_embeddings")
            .unwrap();
        assert_eq!(tie.value, "no");
        assert!(tie.note.as_deref().unwrap().contains("llama default"));
        let h = m.rows.iter().find(|r| r.field == "head_dim").unwrap();
        assert_eq!((h.value.as_str(), h.note.is_some()), ("128", true));
        let gemma = import(&with(LLAMA, "model_type", "\"gemma2\"")).unwrap();
        assert!(gemma.config.tied_embeddings);
    }

    #[test]
    fn bad_values_name_the_field_and_the_limit() {
        let e = import(&with(LLAMA, "num_hidden_layers", "0")).unwrap_err();
        assert_eq!(e.field, "num_hidden_layers");
        assert!(e.message.contains("1 to 100000"), "{e}");
        let e = import(&with(LLAMA, "hidden_size", "-4096")).unwrap_err();
        assert_eq!(e.field, "hidden_size");
        let e = import(&with(LLAMA, "hidden_size", "4096.5")).unwrap_err();
        assert!(e.message.contains("whole number"), "{e}");
        let e = import(&with(LLAMA, "vocab_size", "\"big\"")).unwrap_err();
        assert!(e.message.contains("the text \"big\""), "{e}");
        let e = import(&with(LLAMA, "num_key_value_heads", "5")).unwrap_err();
        assert_eq!(e.field, "num_key_value_heads");
        let e = import(&with(LLAMA, "model_type", "\"bert\"")).unwrap_err();
        assert!(
            e.message.contains("\"bert\"") && e.message.contains("qwen3_moe"),
            "{e}"
        );
        // NaN is not JSON; the parser's message says where it stopped.
        let e = import(r#"{"hidden_size": NaN}"#).unwrap_err();
        assert_eq!(e.field, "(JSON)");
        assert!(e.message.contains("line 1"), "{e}");
        assert_eq!(import("[1, 2]").unwrap_err().field, "(JSON)");
    }

    #[test]
    fn absurd_parameter_counts_are_refused_with_the_limit() {
        let huge = with(
            &with(
                &with(LLAMA, "hidden_size", "1048576"),
                "intermediate_size",
                "16777216",
            ),
            "num_hidden_layers",
            "100000",
        );
        let huge = with(&huge, "num_attention_heads", "8192");
        let huge = with(&huge, "num_key_value_heads", "8192");
        let e = import(&huge).unwrap_err();
        assert_eq!(e.field, "(the model)");
        assert!(e.message.contains("1e15"), "{e}");
    }

    #[test]
    fn oversized_input_is_refused_before_parsing() {
        let big = format!("{{\"x\": \"{}\"}}", "a".repeat(5 << 20));
        let start = std::time::Instant::now();
        let e = import(&big).unwrap_err();
        let took = start.elapsed();
        println!("a 5 MiB paste was refused in {took:?}");
        assert!(took.as_millis() < 50, "{took:?}");
        assert_eq!(e.field, "(the whole file)");
        assert!(e.message.contains("1048576"), "{e}");
    }

    #[test]
    fn moe_fields_map_to_the_preset_shape() {
        let mixtral = with(
            &with(
                &with(LLAMA, "model_type", "\"mixtral\""),
                "num_local_experts",
                "8",
            ),
            "num_experts_per_tok",
            "2",
        );
        let m = import(&mixtral).unwrap();
        let moe = m.config.moe.unwrap();
        assert_eq!((moe.experts, moe.active, moe.expert_ff), (8, 2, 14336));
        let e = import(&with(&mixtral, "num_experts_per_tok", "9")).unwrap_err();
        assert_eq!(e.field, "num_experts_per_tok");
        let e = import(&with(&mixtral, "experts_per_token", "3")).unwrap_err();
        assert!(e.message.contains("disagrees"), "{e}");
        let e = import(&with(&mixtral, "shared_expert_intermediate_size", "5632")).unwrap_err();
        assert_eq!(e.field, "shared_expert_intermediate_size");
        let e = import(&with(&mixtral, "decoder_sparse_step", "2")).unwrap_err();
        assert_eq!(e.field, "decoder_sparse_step");
        let m = import(&with(&mixtral, "mlp_only_layers", "[0, 1]")).unwrap();
        assert_eq!(m.config.moe.unwrap().dense_layers, 2);
        let e = import(&with(&mixtral, "mlp_only_layers", "[3]")).unwrap_err();
        assert_eq!(e.field, "mlp_only_layers");
        let e = import(&with(&mixtral, "first_k_dense_replace", "32")).unwrap_err();
        assert!(e.message.contains("no MoE layer"), "{e}");
    }

    #[test]
    fn sliding_windows_bound_the_kv_cache() {
        let mistral = with(
            &with(LLAMA, "model_type", "\"mistral\""),
            "sliding_window",
            "4096",
        );
        let m = import(&mistral).unwrap();
        assert_eq!(
            m.window,
            Some(SlidingWindow {
                window: 4096,
                sliding_layers: 32
            })
        );
        let full = kv_bytes_per_token(&m.config, Dtype::Bf16).0;
        assert_eq!(m.kv_cache_bytes(1000.0, 1.0, Dtype::Bf16).0, full * 1000.0);
        assert_eq!(m.kv_cache_bytes(32768.0, 1.0, Dtype::Bf16).0, full * 4096.0);
        assert_eq!(m.kv_cache_bytes(f64::NAN, 1.0, Dtype::Bf16).0, 0.0);
        let off = with(
            &with(LLAMA, "model_type", "\"qwen2\""),
            "sliding_window",
            "4096",
        );
        assert_eq!(
            import(&with(&off, "use_sliding_window", "false"))
                .unwrap()
                .window,
            None
        );
        let e = import(&with(&off, "use_sliding_window", "true")).unwrap_err();
        assert!(e.message.contains("layer_types"), "{e}");
        let e = import(&with(&mistral, "layer_types", "[\"sliding_attention\"]")).unwrap_err();
        assert!(e.message.contains("lists 1 layers"), "{e}");
    }

    #[test]
    fn gemma3_text_config_is_read_and_the_vision_part_listed() {
        let json = format!(
            r#"{{"model_type": "gemma3", "text_config": {}, "vision_config": {{"hidden_size": 1152}}}}"#,
            with(LLAMA, "model_type", "\"gemma3_text\"")
        );
        let m = import(&json).unwrap();
        assert_eq!(m.family, Family::Gemma3);
        assert!(m
            .ignored
            .iter()
            .any(|i| i.field == "vision_config" && i.reason.contains("not counted")));
        let e = import(r#"{"model_type": "gemma3"}"#).unwrap_err();
        assert_eq!(e.field, "text_config");
    }

    #[test]
    fn every_preset_exports_and_imports_to_itself() {
        for preset in crate::model::config::MODELS {
            let text = export(&preset.config).unwrap();
            let m = import(&text).unwrap_or_else(|e| panic!("{}: {e}", preset.id));
            let want = match preset.config.mla {
                // MLA keeps the value head dimension as H.
                Some(mla) => ModelConfig {
                    head_dim: mla.v_dim,
                    ..preset.config
                },
                None => preset.config,
            };
            assert_eq!(m.config, want, "{}", preset.id);
        }
        assert_eq!(
            (export(&model("llama3-8b").unwrap().config.ungated()))
                .unwrap_err()
                .to_string(),
            "(the model): an ungated MLP has no field in the families the import reads"
        );
        let pretty = export_pretty(&model("deepseek-v3").unwrap().config).unwrap();
        assert!(pretty.contains("\n  \"kv_lora_rank\": 512"), "{pretty}");
        assert_eq!(import(&compact(&pretty)), import(&pretty));
        assert!(compact(&pretty).len() < pretty.len());
    }

    #[test]
    fn llama_import_counts_like_the_preset() {
        let json = with(
            &with(LLAMA, "max_position_embeddings", "8192"),
            "vocab_size",
            "128256",
        );
        let m = import(&json).unwrap();
        let preset = model("llama3-8b").unwrap().config;
        assert_eq!(m.config, preset);
        assert_eq!(params(&m.config), params(&preset));
        assert_eq!(active_params(&m.config), active_params(&preset));
    }
}
