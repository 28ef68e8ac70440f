//! The KV cache: its size per sequence for each kind of attention, and the activations beside it.

use super::{batch_ok, InferenceError};
use crate::dtype::Dtype;
use crate::model::accounting::kv_bytes_per_token;
use crate::model::config::{positive, ModelConfig};
use crate::units::Bytes;

/// How a model's attention stores keys and values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AttentionKind {
    /// Multi-head attention: one KV head per query head (`K = N`).
    Mha,
    /// Grouped-query attention: `group` query heads share each KV head.
    Gqa {
        /// `G = N / K`.
        group: f64,
    },
    /// Multi-query attention: one KV head for all query heads (`K = 1`).
    Mqa,
    /// Multi-head latent attention: a shared latent of rank `rank` (plus a rope key).
    Mla {
        /// KV latent rank.
        rank: u64,
    },
}

impl AttentionKind {
    /// The kind of a model's attention.
    pub fn of(cfg: &ModelConfig) -> AttentionKind {
        if let Some(m) = cfg.mla {
            return AttentionKind::Mla { rank: m.kv_rank };
        }
        if cfg.kv_heads == cfg.heads {
            AttentionKind::Mha
        } else if cfg.kv_heads == 1 {
            AttentionKind::Mqa
        } else {
            AttentionKind::Gqa { group: cfg.group() }
        }
    }

    /// Short label: `MHA`, `GQA (G = 8)`, `MQA`, `MLA (rank 512)`.
    pub fn label(&self) -> String {
        match self {
            AttentionKind::Mha => "MHA".to_string(),
            AttentionKind::Gqa { group } => format!("GQA (G = {group})"),
            AttentionKind::Mqa => "MQA".to_string(),
            AttentionKind::Mla { rank } => format!("MLA (rank {rank})"),
        }
    }
}

/// The size of a KV cache.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KvCache {
    /// The attention variant.
    pub kind: AttentionKind,
    /// Bytes per token: `2·L·K·H·bytes` (GQA/MHA/MQA), `L·(rank + rope)·bytes` (MLA).
    pub per_token: Bytes,
    /// Bytes per sequence of `seq` tokens.
    pub per_sequence: Bytes,
    /// Bytes for the whole batch.
    pub total: Bytes,
    /// What multi-head attention (`K = N`) would store per token in the same format.
    pub mha_per_token: Bytes,
}

impl KvCache {
    /// How many times smaller than multi-head attention the cache is.
    pub fn reduction(&self) -> f64 {
        self.mha_per_token / self.per_token
    }
}

/// The KV cache of `batch` sequences of `seq` tokens in `dtype`; the sequence may
/// not exceed the model's context.
pub fn kv_cache(
    cfg: &ModelConfig,
    seq: f64,
    batch: f64,
    dtype: Dtype,
) -> Result<KvCache, InferenceError> {
    cfg.validate()?;
    let seq = seq_ok(cfg, seq)?;
    let batch = batch_ok(batch)?;
    let per_token = kv_bytes_per_token(cfg, dtype);
    let mha = ModelConfig {
        kv_heads: cfg.heads,
        mla: None,
        ..*cfg
    };
    Ok(KvCache {
        kind: AttentionKind::of(cfg),
        per_token,
        per_sequence: per_token * seq,
        total: per_token * (seq * batch),
        mha_per_token: kv_bytes_per_token(&mha, dtype),
    })
}

pub(super) fn seq_ok(cfg: &ModelConfig, seq: f64) -> Result<f64, InferenceError> {
    let s = positive("sequence length", seq)?;
    if s > cfg.max_seq as f64 {
        return Err(InferenceError::SequenceTooLong {
            seq: s,
            max: cfg.max_seq,
        });
    }
    Ok(s)
}

/// Bytes of one activation `[T, D]` during a prefill of `tokens` tokens
/// (Part 7: 80 MB for an 8k prefill of LLaMA-2 13B in bf16).
pub fn activation_bytes(
    cfg: &ModelConfig,
    tokens: f64,
    dtype: Dtype,
) -> Result<Bytes, InferenceError> {
    let t = positive("tokens", tokens)?;
    Ok(dtype.size_of(t * cfg.d_model as f64))
}

/// Peak bytes of working activations in one decode step of `batch` sequences
/// (Part 8, worked problem 2): the residual stream `[B, D]` beside the largest
/// tensor computed from it, which is the MLP's hidden activations (`[B, F]`, two
/// of them when gated, the active and shared experts' in a Mixture of Experts),
/// the attention projections `[B, (N + 2K)·H]` or the logits `[B, V]`. The
/// attention scores are not counted: a fused decode kernel streams the caches
/// without holding them. Decode keeps no activations from layer to layer, so
/// this is small beside the weights and caches.
pub fn decode_activation_bytes(
    cfg: &ModelConfig,
    batch: f64,
    dtype: Dtype,
) -> Result<Bytes, InferenceError> {
    let b = batch_ok(batch)?;
    let per_mlp = if cfg.gated { 2.0 } else { 1.0 };
    let ff = match cfg.moe {
        None => cfg.d_ff as f64,
        Some(m) => ((m.active + m.shared) * m.expert_ff) as f64,
    };
    let projections = ((cfg.heads + 2 * cfg.kv_heads) * cfg.head_dim) as f64;
    let widest = (per_mlp * ff).max(projections).max(cfg.vocab as f64);
    Ok(dtype.size_of(b * (cfg.d_model as f64 + widest)))
}

/// Caches of several requests stored in fixed-size pages (paged attention,
/// Part 7): each request's block table lists the pages it holds, allocated
/// from one pool as its tokens arrive, so a request holds whole pages of
/// its own tokens instead of a slot padded to the full context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PagedCache {
    /// Each request's block table: the pool's page numbers it holds, in order.
    pub tables: Vec<Vec<usize>>,
    /// Pages allocated from the pool.
    pub pages: usize,
    /// Token slots the pages hold, `pages · page`.
    pub paged_slots: u64,
    /// Token slots a padded cache holds, one full context per request.
    pub padded_slots: u64,
    /// Tokens the requests actually have.
    pub tokens: u64,
}

/// Pages requests of `lengths` tokens into pages of `page` tokens, the pool
/// handing out page numbers in order as all requests decode in step, and
/// compares with padding each to `context` tokens. A page of no tokens, no
/// request, or a request longer than the context is an error.
pub fn paged_cache(lengths: &[u64], page: u64, context: u64) -> Result<PagedCache, String> {
    if page == 0 || lengths.is_empty() {
        return Err("a page holds at least one token, and a cache at least one request".into());
    }
    if let Some(&long) = lengths.iter().find(|&&l| l > context) {
        return Err(format!(
            "a request of {long} tokens exceeds the {context}-token context"
        ));
    }
    let mut tables = vec![Vec::new(); lengths.len()];
    let mut pages = 0;
    let longest = lengths.iter().copied().max().unwrap_or(0);
    // The first token of each page, in page-sized steps up to the longest request.
    for t in (0..longest.div_ceil(page)).map(|i| i * page) {
        for (table, &len) in tables.iter_mut().zip(lengths) {
            if len > t {
                table.push(pages);
                pages += 1;
            }
        }
    }
    Ok(PagedCache {
        tables,
        pages,
        paged_slots: pages as u64 * page,
        padded_slots: lengths.len() as u64 * context,
        tokens: lengths.iter().sum(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_come_from_one_pool_in_the_order_tokens_arrive() {
        let c = paged_cache(&[5, 11, 3], 4, 16).unwrap();
        assert_eq!(c.tables, vec![vec![0, 3], vec![1, 4, 5], vec![2]]);
        assert_eq!(
            (c.pages, c.paged_slots, c.padded_slots, c.tokens),
            (6, 24, 48, 19)
        );
        assert!(paged_cache(&[17], 4, 16).unwrap_err().contains("exceeds"));
        assert!(paged_cache(&[1], 0, 16).is_err());
        assert!(paged_cache(&[], 4, 16).is_err());
    }

    #[test]
    fn kv_variants() {
        let mut cfg = crate::model::config::model("llama2-13b").unwrap().config;
        let mha = kv_cache(&cfg, 4096.0, 1.0, Dtype::Bf16).unwrap();
        assert_eq!(mha.kind, AttentionKind::Mha);
        assert_eq!(mha.reduction(), 1.0);
        cfg.kv_heads = 8;
        let gqa = kv_cache(&cfg, 4096.0, 1.0, Dtype::Bf16).unwrap();
        assert_eq!(gqa.reduction(), 5.0);
        cfg.kv_heads = 1;
        assert_eq!(
            kv_cache(&cfg, 1.0, 1.0, Dtype::Int8).unwrap().kind,
            AttentionKind::Mqa
        );
        let ds = crate::model::config::model("deepseek-v3").unwrap().config;
        let mla = kv_cache(&ds, 1.0, 1.0, Dtype::Bf16).unwrap();
        assert!(matches!(mla.kind, AttentionKind::Mla { rank: 512 }));
        assert!(mla.reduction() > 50.0);
        assert!(matches!(
            kv_cache(&cfg, 1e6, 1.0, Dtype::Int8),
            Err(InferenceError::SequenceTooLong { .. })
        ));
    }

    #[test]
    fn decode_activations_are_the_residual_and_the_widest_tensor() {
        // LLaMA 3-8B: the logits (V = 128,256) are wider than the gated MLP (2F = 28,672).
        let cfg = crate::model::config::model("llama3-8b").unwrap().config;
        let a = decode_activation_bytes(&cfg, 240.0, Dtype::Bf16).unwrap();
        assert_eq!(a.0, 240.0 * (4096.0 + 128_256.0) * 2.0);
        // With a small vocabulary the MLP's two hidden activations are the widest.
        let small = ModelConfig { vocab: 1000, ..cfg };
        let a = decode_activation_bytes(&small, 1.0, Dtype::Int8).unwrap();
        assert_eq!(a.0, 4096.0 + 2.0 * 14_336.0);
        assert!(decode_activation_bytes(&cfg, 0.0, Dtype::Bf16).is_err());
    }
}
