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

/// One layer of a layout whose layers may attend locally and share caches
/// (Character.ai's, which Part 7 draws): whether it attends to the whole
/// context, and which of the layout's caches it reads and writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LayerCache {
    /// Global attention (the whole context) rather than a sliding window.
    pub global: bool,
    /// The cache it uses; layers with the same number share one.
    pub cache: usize,
}

/// A cache layout laid out as Character.ai describes it: one global layer in
/// every `global_every` (the first of each run), every global layer sharing
/// one cache, and the local layers between two global ones sharing a cache
/// in neighbouring groups of at most `local_share`, never across a global
/// layer. `global_every = 1` makes every layer global and `local_share = 1`
/// gives every local layer its own cache. Zero layers, a zero period or a
/// zero group is an error.
pub fn shared_cache_layout(
    layers: usize,
    global_every: usize,
    local_share: usize,
) -> Result<Vec<LayerCache>, String> {
    if layers == 0 || global_every == 0 || local_share == 0 {
        return Err("a layout has at least one layer, a global layer in some period and groups of at least one layer".into());
    }
    let mut out = Vec::with_capacity(layers);
    // Cache 0 is the global layers'; local groups are numbered after it.
    let mut next = 1;
    let mut run = 0;
    for l in 0..layers {
        if l % global_every == 0 {
            out.push(LayerCache {
                global: true,
                cache: 0,
            });
            run = 0;
        } else {
            if run % local_share == 0 {
                next += 1;
            }
            run += 1;
            out.push(LayerCache {
                global: false,
                cache: next - 1,
            });
        }
    }
    Ok(out)
}

/// What a layout's caches hold for one sequence, against one cache per
/// global layer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SharedCacheSize {
    /// Caches the layout keeps (each distinct `cache` number).
    pub caches: usize,
    /// Token rows its caches hold: `context` for a global cache, the smaller
    /// of the window and the context for a local one.
    pub rows: u64,
    /// Token rows of the plain layout, every layer global with its own cache.
    pub plain_rows: u64,
    /// Bytes of the layout's caches.
    pub bytes: Bytes,
    /// Bytes of the plain layout's.
    pub plain_bytes: Bytes,
}

impl SharedCacheSize {
    /// How many times smaller the layout's cache is than the plain one.
    pub fn reduction(&self) -> f64 {
        self.plain_rows as f64 / self.rows as f64
    }
}

/// The KV cache of one sequence of `context` tokens under `layout`, whose
/// local layers see the last `window` tokens, at `row_bytes` per token per
/// cache (one layer's keys and values, `2·K·H` numbers), against the plain
/// layout of as many global layers each with its own cache. A shared cache
/// is counted once: its layers write one set of keys and values.
pub fn shared_cache_size(
    layout: &[LayerCache],
    context: u64,
    window: u64,
    row_bytes: f64,
) -> Result<SharedCacheSize, String> {
    if layout.is_empty() || context == 0 || window == 0 {
        return Err(
            "a layout has at least one layer, a context and a window of at least one token".into(),
        );
    }
    if !(row_bytes.is_finite() && row_bytes > 0.0) {
        return Err(format!(
            "bytes per row: {row_bytes} is not a positive number"
        ));
    }
    let mut seen: Vec<(usize, bool)> = Vec::new();
    for l in layout {
        match seen.iter().find(|(c, _)| *c == l.cache) {
            Some(&(_, global)) if global != l.global => {
                return Err(format!(
                    "cache {}: a local and a global layer cannot share one cache",
                    l.cache
                ));
            }
            Some(_) => {}
            None => seen.push((l.cache, l.global)),
        }
    }
    let rows: u64 = seen
        .iter()
        .map(|&(_, global)| if global { context } else { window.min(context) })
        .sum();
    let plain_rows = layout.len() as u64 * context;
    Ok(SharedCacheSize {
        caches: seen.len(),
        rows,
        plain_rows,
        bytes: Bytes(rows as f64 * row_bytes),
        plain_bytes: Bytes(plain_rows as f64 * row_bytes),
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
    fn character_ai_layout_by_hand() {
        // Twelve layers, one global in six: layers 0 and 6 global (cache 0);
        // the five local layers after each share in groups of three then two.
        let l = shared_cache_layout(12, 6, 3).unwrap();
        let caches: Vec<usize> = l.iter().map(|c| c.cache).collect();
        assert_eq!(caches, vec![0, 1, 1, 1, 2, 2, 0, 3, 3, 3, 4, 4]);
        assert_eq!(l.iter().filter(|c| c.global).count(), 2);
        assert!(l[6].global && !l[5].global);
        // 8,192 tokens, a 1,024-token window: one global cache of 8,192 rows
        // and four local ones of 1,024 = 12,288 rows, against 12 · 8,192.
        let s = shared_cache_size(&l, 8192, 1024, 2.0).unwrap();
        assert_eq!((s.caches, s.rows, s.plain_rows), (5, 12_288, 98_304));
        assert_eq!((s.bytes.0, s.plain_bytes.0), (24_576.0, 196_608.0));
        assert_eq!(s.reduction(), 8.0);
        // A context inside the window: local caches hold the context only.
        let short = shared_cache_size(&l, 512, 1024, 1.0).unwrap();
        assert_eq!((short.rows, short.plain_rows), (5 * 512, 12 * 512));
        // Every layer global with its own cache is the plain layout.
        let plain = shared_cache_layout(4, 1, 1).unwrap();
        assert!(plain.iter().all(|c| c.global && c.cache == 0));
        let own: Vec<LayerCache> = (0..4)
            .map(|c| LayerCache {
                global: true,
                cache: c,
            })
            .collect();
        assert_eq!(
            shared_cache_size(&own, 100, 10, 1.0).unwrap().reduction(),
            1.0
        );
    }

    #[test]
    fn shared_layouts_refuse_what_cannot_be() {
        assert!(shared_cache_layout(0, 6, 3).is_err());
        assert!(shared_cache_layout(12, 0, 3).is_err());
        assert!(shared_cache_layout(12, 6, 0).is_err());
        let mixed = [
            LayerCache {
                global: true,
                cache: 0,
            },
            LayerCache {
                global: false,
                cache: 0,
            },
        ];
        assert_eq!(
            shared_cache_size(&mixed, 10, 5, 1.0).unwrap_err(),
            "cache 0: a local and a global layer cannot share one cache"
        );
        let l = shared_cache_layout(12, 6, 3).unwrap();
        assert!(shared_cache_size(&l, 0, 5, 1.0).is_err());
        assert!(shared_cache_size(&l, 10, 0, 1.0).is_err());
        assert_eq!(
            shared_cache_size(&l, 10, 5, f64::NAN).unwrap_err(),
            "bytes per row: NaN is not a positive number"
        );
        assert!(shared_cache_size(&[], 10, 5, 1.0).is_err());
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
