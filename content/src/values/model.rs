//! Values about a model preset (Part 4 and its in-depth sections): its
//! parameters and dimensions, where attention's FLOPs overtake the rest of a
//! layer, its KV cache per token, Mixture-of-Experts thresholds and the cost of
//! each checkpointing policy.

use super::args::{
    billions, chip_arg, dtype_arg, message, model_arg, num_arg, show_arg, unknown_show, whole_arg,
};
use super::entry::ValueDirective;
use crate::directive::Directive;
use ridgeline_core::dtype::Dtype;
use ridgeline_core::format::{binary_bytes, grouped, sci, si};
use ridgeline_core::model::accounting as tf;
use ridgeline_core::model::config::ModelConfig;
use ridgeline_core::model::layer::{layer_ops, LayerParams};
use ridgeline_core::model::moe::{self, MoeParams};
use ridgeline_core::model::remat::{self, Policy, RematParams};

/// The model value directives.
pub const VALUES: &[ValueDirective] = &[
    ValueDirective {
        name: "model-params",
        args: &["model", "part", "fmt"],
        doc: "a preset's parameters (part=total, mlp, attention, vocab, norms, layers), in \
              billions unless fmt=sci",
        example: "model-params model=llama3-70b part=mlp fmt=b",
        shows: "56.4B",
        eval: model_params,
    },
    ValueDirective {
        name: "model-dim",
        args: &["model", "dim"],
        doc: "one dimension of a preset (dim=d, f, l, n, k, h, v)",
        example: "model-dim model=llama3-70b dim=f",
        shows: "28,672",
        eval: model_dim,
    },
    ValueDirective {
        name: "layer-params",
        args: &["model", "show"],
        doc: "parameters of one layer of a preset: show=attention (default), mlp, q, kv or \
              embedding",
        example: "layer-params model=llama3-70b show=mlp",
        shows: "704,643,072",
        eval: layer_params,
    },
    ValueDirective {
        name: "attention-crossover",
        args: &["model", "rule"],
        doc: "context length where dot-product attention FLOPs equal the rest of a layer \
              (rule=8d: the book's 8·D)",
        example: "attention-crossover model=llama3-70b rule=8d",
        shows: "65,536",
        eval: attention_crossover,
    },
    ValueDirective {
        name: "layer-share",
        args: &["model", "seq", "show"],
        doc: "share of one layer's forward FLOPs by kind at a context length: show=other \
              (norms, softmax, adds), matmul or attention",
        example: "layer-share model=llama3-70b seq=4096 show=other",
        shows: "0.083%",
        eval: layer_share,
    },
    ValueDirective {
        name: "kv-per-token",
        args: &["model", "dtype"],
        doc: "KV-cache bytes per token of a preset",
        example: "kv-per-token model=llama3-70b dtype=bf16",
        shows: "328 kB",
        eval: kv_per_token,
    },
    ValueDirective {
        name: "moe-value",
        args: &["model", "chip", "dtype", "show"],
        doc: "an MoE preset on a chip: show=critical (batch where experts turn compute-bound), \
              total, active, experts, k, sparsity",
        example: "moe-value model=mixtral-8x7b chip=v5e dtype=bf16 show=critical",
        shows: "961",
        eval: moe_value,
    },
    ValueDirective {
        name: "remat-cost",
        args: &["model", "policy", "batch", "seq", "show"],
        doc: "a checkpointing policy (none, selected, per-layer, full): show=flops (per param \
              per token) or memory",
        example: "remat-cost model=llama3-70b policy=none batch=1 seq=4096 show=flops",
        shows: "6.1",
        eval: remat_cost,
    },
    ValueDirective {
        name: "shape-value",
        args: &[
            "d", "f", "l", "n", "k", "h", "v", "tokens", "seq", "arrays", "show",
        ],
        doc: "a bare dense shape the book works by hand (f=4d, h=128, n=d/h, k=n, v=32768 \
              unless given): show=activations (bf16 bytes of `arrays` [tokens, D] arrays per \
              layer), kv-sequence (int8 KV cache of one seq-token sequence), params, crossover \
              (T where attention equals the rest, T/8D in the book's shape)",
        example: "shape-value d=8192 f=32768 l=64 n=64 k=64 h=128 v=32768 tokens=4e6 seq=8192 \
                  arrays=20 show=activations",
        shows: "84 TB",
        eval: shape_value,
    },
];

fn model_params(d: &Directive) -> Result<String, String> {
    let cfg = model_arg(d)?;
    let p = tf::params(&cfg);
    let x = match d.arg("part").unwrap_or("total") {
        "total" => p.total(),
        "mlp" => p.mlp,
        "attention" => p.attention,
        "vocab" => p.vocab(),
        "norms" => p.norms,
        "layers" => p.mlp + p.attention + p.router,
        o => {
            return Err(format!(
                "unknown part `{o}` (total, mlp, attention, vocab, norms, layers)"
            ))
        }
    };
    match d.arg("fmt") {
        None | Some("b") => Ok(billions(x)),
        Some("sci") => Ok(sci(x, 3)),
        Some("int") => Ok(grouped(x)),
        Some(o) => Err(format!("unknown fmt `{o}` (b, sci, int)")),
    }
}

fn model_dim(d: &Directive) -> Result<String, String> {
    let c = model_arg(d)?;
    let v = match d.arg("dim").unwrap_or("d") {
        "d" => c.d_model,
        "f" => c.d_ff,
        "l" => c.layers,
        "n" => c.heads,
        "k" => c.kv_heads,
        "h" => c.head_dim,
        "v" => c.vocab,
        o => return Err(format!("unknown dim `{o}` (d, f, l, n, k, h, v)")),
    };
    Ok(grouped(v as f64))
}

fn layer_params(d: &Directive) -> Result<String, String> {
    let cfg = model_arg(d)?;
    Ok(grouped(match show_arg(d, "attention") {
        "attention" => tf::attention_layer_params(&cfg),
        "mlp" => tf::dense_mlp_layer_params(&cfg),
        "q" => (cfg.d_model * cfg.heads * cfg.head_dim) as f64,
        "kv" => (cfg.d_model * cfg.kv_heads * cfg.head_dim) as f64,
        "embedding" => (cfg.vocab * cfg.d_model) as f64,
        o => return Err(unknown_show(d, o, "attention, mlp, q, kv, embedding")),
    }))
}

fn attention_crossover(d: &Directive) -> Result<String, String> {
    let cfg = model_arg(d)?;
    match d.arg("rule") {
        Some("8d") => Ok(grouped(8.0 * cfg.d_model as f64)),
        None | Some("exact") => Ok(grouped(tf::attention_crossover(&cfg))),
        Some(o) => Err(format!("unknown rule `{o}` (8d, exact)")),
    }
}

/// Forward FLOPs of one layer for one sequence, by kind of operation.
fn layer_share(d: &Directive) -> Result<String, String> {
    let l = layer_ops(&LayerParams {
        model: model_arg(d)?,
        batch: 1.0,
        seq: num_arg(d, "seq", Some(4096.0))?,
        dtype: Dtype::Bf16,
        causal: false,
    })?;
    let share = match show_arg(d, "other") {
        "matmul" => l.matmul_share(),
        "attention" => l.attention_share(),
        "other" => 1.0 - l.matmul_share(),
        o => return Err(unknown_show(d, o, "matmul, attention, other")),
    };
    Ok(format!("{}%", sci(100.0 * share, 2)))
}

fn kv_per_token(d: &Directive) -> Result<String, String> {
    let cfg = model_arg(d)?;
    let dt = dtype_arg(d, "dtype", Dtype::Bf16)?;
    Ok(si(tf::kv_bytes_per_token(&cfg, dt).0, "B", 3))
}

/// A Mixture-of-Experts preset (DeepSeek-V3 unless `model=` names another).
fn moe_value(d: &Directive) -> Result<String, String> {
    let id = d.arg("model").unwrap_or("deepseek-v3");
    let c = chip_arg(d)?;
    let mut p = MoeParams::preset(id, c)?;
    p.weight = dtype_arg(d, "dtype", Dtype::Bf16)?;
    let a = moe::analyse(&p)?;
    let e = p.model.moe.ok_or("not a Mixture-of-Experts model")?;
    Ok(match show_arg(d, "critical") {
        "critical" => grouped(a.critical_batch),
        "total" => billions(a.total_params),
        "active" => billions(a.active_params),
        "experts" => grouped(e.experts as f64),
        "k" => grouped(e.active as f64),
        "sparsity" => sci(e.sparsity(), 3),
        o => {
            return Err(unknown_show(
                d,
                o,
                "critical, total, active, experts, k, sparsity",
            ))
        }
    })
}

fn remat_cost(d: &Directive) -> Result<String, String> {
    let p = RematParams::new(
        model_arg(d)?,
        num_arg(d, "batch", Some(1.0))?,
        num_arg(d, "seq", Some(4096.0))?,
        1.0,
    );
    let policy = Policy::parse(d.arg("policy").unwrap_or("none"))?;
    let rows = remat::compare(&p)?;
    let row = rows
        .iter()
        .find(|r| r.policy == policy)
        .ok_or("policy missing from the comparison")?;
    Ok(match show_arg(d, "flops") {
        "flops" => sci(row.flops_per_param_token, 2),
        "memory" => si(row.activation_bytes.0, "B", 3),
        o => return Err(unknown_show(d, o, "flops, memory")),
    })
}

/// The dense shape `d=`, `l=` and friends name, with the book's defaults
/// (`F = 4D`, `H = 128`, `N = D/H`, `K = N`).
fn shape_arg(d: &Directive) -> Result<ModelConfig, String> {
    let max = 1e9;
    let dm = whole_arg::<u64>(d, "d", 8192.0, max)?;
    let h = whole_arg::<u64>(d, "h", 128.0, max)?;
    let n = whole_arg::<u64>(d, "n", (dm / h).max(1) as f64, max)?;
    ModelConfig::dense(
        dm,
        whole_arg::<u64>(d, "f", 4.0 * dm as f64, max)?,
        whole_arg::<u64>(d, "l", 64.0, max)?,
        n,
        whole_arg::<u64>(d, "k", n as f64, max)?,
        h,
        whole_arg::<u64>(d, "v", 32768.0, max)?,
    )
    .map_err(|e| e.to_string())
}

fn shape_value(d: &Directive) -> Result<String, String> {
    let cfg = shape_arg(d)?;
    Ok(match show_arg(d, "activations") {
        "activations" => {
            let arrays = whole_arg::<u32>(d, "arrays", 20.0, 1e3)?;
            let saved = tf::Remat::PerLayer(arrays);
            let tokens = num_arg(d, "tokens", Some(4e6))?;
            si(saved.activation_bytes(&cfg, tokens, Dtype::Bf16).0, "B", 2)
        }
        "kv-sequence" => {
            let seq = num_arg(d, "seq", Some(8192.0))?;
            let bytes = tf::kv_cache_bytes(&cfg, seq, 1.0, Dtype::Int8).map_err(message)?;
            binary_bytes(bytes.0)
        }
        "params" => billions(tf::params(&cfg).total()),
        "crossover" => grouped(tf::attention_crossover(&cfg)),
        o => {
            return Err(unknown_show(
                d,
                o,
                "activations, kv-sequence, params, crossover",
            ))
        }
    })
}
