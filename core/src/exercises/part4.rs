//! Part 4 (transformer math): the exercises of `ch4-*`, computed as in
//! `golden_ch4.rs`.

use super::def::{choice, n, param, value, Answer, Def, Kind, Param, Scale, Solution};
use super::expr::Var;
use super::kit::{bdf, chip_param, int, reference, ridge, s};
use crate::check::whole;
use crate::dtype::Dtype;
use crate::format::{round_sig, sci, si};
use crate::hardware::Link;
use crate::model::accounting::{
    attention_compute_bound_length, attention_crossover, attention_intensity,
    attention_layer_params, dense_mlp_layer_params, einsum_flops, kv_bytes_per_token,
    kv_cache_bytes, moe_critical_batch, params, projection_crossover, sharded_flops,
    training_flops_rule, Remat,
};
use crate::model::config::ModelConfig;
use crate::training::available_flops;
use crate::units::{FlopsPerSec, Intensity};

const TPUS: &[&str] = &["v5e", "v5p", "v6e", "v4p"];

fn at(x: &[f64], i: usize) -> f64 {
    x.get(i).copied().unwrap_or(f64::NAN)
}

/// The book's idealised model: F = 4D, D = N·H with H = 128, N = K.
fn idealised(d: u64, layers: u64) -> Result<ModelConfig, String> {
    ModelConfig::dense(d, 4 * d, layers, d / 128, d / 128, 128, 32000).map_err(s)
}

fn d_of(p: &[Param]) -> Result<u64, String> {
    let d = int(p, "D");
    if d < 128 {
        return Err("D must be at least 128".into());
    }
    Ok(d)
}

fn crossover(p: &[Param]) -> Result<Solution, String> {
    let d = d_of(p)?;
    let cfg = idealised(d, 1)?;
    let t = attention_crossover(&cfg);
    Ok(Solution::numeric(t, "tokens")
        .step("per token and layer: the matmuls cost 6·(4DNH + 3DF) = 6·16D² FLOPs (training)")
        .step("the attention dot products cost 6·2·T·N·H = 12·T·D")
        .step(format!(
            "equal when T = 8D = 8 × {} = {}",
            n(d as f64),
            n(t)
        )))
}

fn crossover_prompt(p: &[Param]) -> String {
    format!(
        "Take a transformer layer with F = 4D, D = N·H and as many KV heads as query heads. Past some sequence length T, the dot-product attention FLOPs exceed all the other matmul FLOPs of the layer. For D = {}, what is that T?",
        n(value(p, "D"))
    )
}

fn activations(p: &[Param], remat: Remat) -> Result<(f64, ModelConfig), String> {
    let cfg = idealised(d_of(p)?, int(p, "L"))?;
    let b = remat.activation_bytes(&cfg, value(p, "tokens"), Dtype::Bf16);
    Ok((b.0, cfg))
}

fn act_prompt(p: &[Param], what: &str) -> String {
    format!(
        "A batch of {} tokens trains a {}-layer model with D = {} in bf16. {what} How much memory do the saved activations take?",
        sci(value(p, "tokens"), 2),
        n(value(p, "L")),
        n(value(p, "D"))
    )
}

fn q1_model(p: &[Param]) -> Result<ModelConfig, String> {
    let d = d_of(p)?;
    ModelConfig::dense(d, 4 * d, int(p, "L"), d / 128, d / 128, 128, int(p, "V")).map_err(s)
}

fn q1_prompt(p: &[Param], what: &str) -> String {
    format!(
        "A dense transformer has D = {}, F = 4D, V = {}, L = {}, a gated MLP and multi-head attention with N·H = D. {what}",
        n(value(p, "D")),
        n(value(p, "V")),
        n(value(p, "L"))
    )
}

/// The v5e-style ridge of a chosen TPU, rounded to three figures as the book does (240).
fn rounded_ridge(p: &[Param]) -> Result<(f64, &'static str), String> {
    let c = chip_param(p, "chip")?;
    Ok((round_sig(ridge(c, Dtype::Bf16, Link::Hbm)?.0, 3), c.name))
}

/// Available and used FLOPs of the DeepSeek-style run; variants whose implied
/// utilisation is implausible (below 2% or above 90%) are rejected.
fn ds_flops(p: &[Param]) -> Result<(f64, f64), String> {
    let available = available_flops(value(p, "hours"), FlopsPerSec(value(p, "C")));
    let used = training_flops_rule(value(p, "N"), value(p, "tokens"));
    let u = used / available;
    if !(0.02..=0.9).contains(&u) {
        return Err(format!("an implausible utilisation of {:.1}%", u * 100.0));
    }
    Ok((available.0, used.0))
}

fn ds_prompt(p: &[Param], what: &str) -> String {
    format!(
        "An MoE model with {} active parameters was trained on {} tokens using {} GPU-hours of GPUs that each do {} dense FP8 FLOPs/s. {what}",
        sci(value(p, "N"), 3),
        sci(value(p, "tokens"), 3),
        sci(value(p, "hours"), 3),
        sci(value(p, "C"), 4)
    )
}

const P_EX1: &[Param] = &[param("D", "D", 8192.0, 1024.0, 65536.0, Scale::Pow2)];
const P_EX2: &[Param] = &[param("D", "D", 4608.0, 1024.0, 32768.0, Scale::Pow2)];
const P_ACT: &[Param] = &[
    param("tokens", "tokens per batch", 4e6, 1e5, 1e8, Scale::Log),
    param("L", "layers", 64.0, 8.0, 128.0, Scale::Int),
    param("D", "D", 8192.0, 1024.0, 32768.0, Scale::Pow2),
];
const P_EX5: &[Param] = &[
    param(
        "S",
        "sequence length",
        8192.0,
        1024.0,
        131072.0,
        Scale::Pow2,
    ),
    param("L", "layers", 64.0, 8.0, 128.0, Scale::Int),
    param("KH", "K·H", 8192.0, 128.0, 16384.0, Scale::Pow2),
];
const P_Q1: &[Param] = &[
    param("D", "D", 4096.0, 1024.0, 16384.0, Scale::Pow2),
    param("V", "vocabulary", 32000.0, 8000.0, 256000.0, Scale::Int),
    param("L", "layers", 64.0, 8.0, 128.0, Scale::Int),
];
const P_Q1B: &[Param] = &[param("r", "F / D", 4.0, 2.0, 8.0, Scale::Int)];
const P_Q2: &[Param] = &[
    param("X", "mesh X", 4.0, 1.0, 16.0, Scale::Pow2),
    param("Y", "mesh Y", 8.0, 1.0, 16.0, Scale::Pow2),
    param("Z", "mesh Z", 4.0, 1.0, 16.0, Scale::Pow2),
];
const P_Q4C: &[Param] = &[
    choice("chip", "TPU", TPUS),
    param("G", "query heads per KV head", 1.0, 1.0, 8.0, Scale::Int),
];
const P_Q5: &[Param] = &[param("D", "D", 4096.0, 1024.0, 65536.0, Scale::Pow2)];
const P_Q7AB: &[Param] = &[
    param("hours", "GPU-hours", 2.79e6, 1e6, 1e7, Scale::Log),
    param(
        "C",
        "dense FP8 FLOPs/s per GPU",
        1.513e15,
        5e14,
        3e15,
        Scale::Log,
    ),
    param("N", "active parameters", 37e9, 1e10, 1e11, Scale::Log),
    param("tokens", "training tokens", 14.8e12, 5e12, 3e13, Scale::Log),
];
const P_Q8A: &[Param] = &[choice("chip", "TPU", TPUS)];
const P_Q8B: &[Param] = &[
    choice("chip", "TPU", TPUS),
    param("E", "experts", 256.0, 8.0, 1024.0, Scale::Pow2),
    param("k", "active experts", 8.0, 1.0, 8.0, Scale::Pow2),
];

/// Part 4's exercises.
pub(super) fn defs() -> Vec<Def> {
    vec![
        Def {
            id: "ch4-ex1",
            chapter: 4,
            kind: Kind::WorkedExample,
            params: P_EX1,
            prompt: crossover_prompt,
            solve: crossover,
            hints: &["Per token, compare the 12·T·N·H FLOPs of the two attention matmuls with the 6 FLOPs per parameter of the projections and MLP."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch4-ex2",
            chapter: 4,
            kind: Kind::WorkedExample,
            params: P_EX2,
            prompt: crossover_prompt,
            solve: crossover,
            hints: &["The same rule as for D = 8192: attention dominates once T exceeds a fixed multiple of D."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch4-ex3",
            chapter: 4,
            kind: Kind::WorkedExample,
            params: P_ACT,
            prompt: |p| act_prompt(p, "The forward pass keeps every intermediate, about 20 arrays of size [tokens, D] per layer."),
            solve: |p| {
                let (b, _) = activations(p, Remat::SaveAll)?;
                Ok(Solution::numeric(b, "TB")
                    .step("bytes = 2 (bf16) × 20 × tokens × D × L")
                    .step(format!("= 2 × 20 × {} × {} × {} = {}", sci(value(p, "tokens"), 3), n(value(p, "D")), n(value(p, "L")), si(b, "B", 3)))
                    .two("did you count bf16 as one byte (or four)?"))
            },
            hints: &["Arrays per layer × tokens × D × layers × 2 bytes."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch4-ex4",
            chapter: 4,
            kind: Kind::WorkedExample,
            params: P_ACT,
            prompt: |p| act_prompt(p, "With block rematerialisation, only each layer's input ([tokens, D]) is saved."),
            solve: |p| {
                let (b, _) = activations(p, Remat::PerLayer(1))?;
                Ok(Solution::numeric(b, "TB")
                    .step("bytes = 2 (bf16) × tokens × D × L: one checkpoint per layer")
                    .step(format!("= {}", si(b, "B", 3)))
                    .step("the price: the forward pass runs twice, so training costs about 8·N·P FLOPs instead of 6·N·P")
                    .two("did you count bf16 as one byte (or four)?"))
            },
            hints: &["One [tokens, D] array per layer, in bf16."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch4-ex5",
            chapter: 4,
            kind: Kind::WorkedExample,
            params: P_EX5,
            prompt: |p| {
                format!(
                    "A model has {} layers and K·H = {} (KV heads × head dimension). How much memory does an int8 KV cache take for one sequence of {} tokens?",
                    n(value(p, "L")), n(value(p, "KH")), n(value(p, "S"))
                )
            },
            solve: |p| {
                let kh = int(p, "KH");
                if kh < 128 {
                    return Err("K·H must be at least 128".into());
                }
                let cfg = ModelConfig::dense(kh, 4 * kh, int(p, "L"), kh / 128, kh / 128, 128, 32000).map_err(s)?;
                let b = kv_cache_bytes(&cfg, value(p, "S"), 1.0, Dtype::Int8).map_err(s)?;
                Ok(Solution::numeric(b.0, "GiB")
                    .step("bytes = 2 (K and V) × S × L × K·H × 1 byte")
                    .step(format!("= 2 × {} × {} × {} = {} bytes = {} GiB", n(value(p, "S")), n(value(p, "L")), n(kh as f64), sci(b.0, 4), sci(b.0 / 1024f64.powi(3), 4)))
                    .two("did you forget that both K and V are cached, or count two bytes per int8 value?"))
            },
            hints: &["Each token stores a key and a value vector of K·H entries in every layer."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch4-q1a",
            chapter: 4,
            kind: Kind::Question,
            params: P_Q1,
            prompt: |p| q1_prompt(p, "How many parameters does it have in total?"),
            solve: |p| {
                let cfg = q1_model(p)?;
                let c = params(&cfg);
                let total = c.total();
                // The book's arithmetic: D and F rounded to one significant figure.
                let d = round_sig(value(p, "D"), 1);
                let rounded = value(p, "L") * (3.0 * d * 4.0 * d + 4.0 * d * d + d) + 2.0 * d * value(p, "V");
                Ok(Solution::numeric(total, "params")
                    .step("total ≈ L·(3DF + 4DNH + D) + 2DV (gated MLP, Q/K/V/O, norms, embeddings)")
                    .step(format!("MLP {}, attention {}, vocabulary {}", sci(c.mlp, 4), sci(c.attention, 4), sci(c.vocab(), 4)))
                    .step(format!("total = {}", sci(total, 4)))
                    .perturb(rounded, "That comes from rounding D and F to one significant figure, as the book does; with the exact dimensions the count is larger.")
                    .two("did you count the embedding and unembedding twice, or give the MLP six matrices?"))
            },
            hints: &["Per layer: three D×F MLP matrices and four D×D attention projections; then the embedding and the output layer."],
            correction: Some("The book rounds D to 4e3 and F to 16e3 and reports 16e9 parameters; with the exact D = 4096 and F = 16,384 the count is 17.4e9, which is what is graded."),
            book_gave_answer: true,
        },
        Def {
            id: "ch4-q1b",
            chapter: 4,
            kind: Kind::Question,
            params: P_Q1B,
            prompt: |p| {
                format!(
                    "In a dense transformer with F = {}·D, a gated MLP and multi-head attention with N·H = D, what fraction of each layer's parameters belongs to attention?",
                    n(value(p, "r"))
                )
            },
            solve: |p| {
                let r = int(p, "r");
                let cfg = ModelConfig::dense(4096, r * 4096, 1, 32, 32, 128, 32000).map_err(s)?;
                let attn = attention_layer_params(&cfg);
                let mlp = dense_mlp_layer_params(&cfg);
                let f = attn / (attn + mlp);
                let ungated = attn / (attn + dense_mlp_layer_params(&cfg.ungated()));
                let mut sol = Solution::numeric(f, "")
                    .step(format!("attention: 4D² per layer; gated MLP: 3·D·F = {}D²", 3 * r))
                    .step(format!("fraction = 4 / (4 + {}) = {}", 3 * r, sci(f, 3)));
                if (ungated / f - 1.0).abs() > 0.05 {
                    sol = sol.perturb(ungated, "You gave the MLP two matrices; a gated MLP has three.");
                }
                Ok(sol)
            },
            hints: &["Compare 4·D·N·H with 3·D·F, both in units of D²."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch4-q1c",
            chapter: 4,
            kind: Kind::Question,
            params: P_Q1,
            prompt: |p| q1_prompt(p, "With an int8 KV cache, how many bytes does each token of context take?"),
            solve: |p| {
                let cfg = q1_model(p)?;
                let b = kv_bytes_per_token(&cfg, Dtype::Int8);
                Ok(Solution::numeric(b.0, "KiB")
                    .step("bytes per token = 2 (K and V) × L × N·H × 1 byte")
                    .step(format!("= 2 × {} × {} = {} bytes = {} KiB", n(value(p, "L")), n(value(p, "D")), n(b.0), sci(b.0 / 1024.0, 4)))
                    .two("did you forget either K or V, or count two bytes per int8 value?"))
            },
            hints: &["Every layer stores a key and a value of N·H entries per token."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch4-q2",
            chapter: 4,
            kind: Kind::Question,
            params: P_Q2,
            prompt: |p| {
                format!(
                    "On the mesh {{X: {}, Y: {}, Z: {}}}, A[B_X, D_Y] is multiplied by W[D_Y, F], contracting D (the partial sums are reduced afterwards). How many FLOPs does each chip perform? Give a formula in B, D and F.",
                    value(p, "X"), value(p, "Y"), value(p, "Z")
                )
            },
            solve: |p| {
                let (x, y, z) = (value(p, "X"), value(p, "Y"), value(p, "Z"));
                let one = |v: &[f64]| einsum_flops("bd,df->bf", &[('b', at(v, 0)), ('d', at(v, 1)), ('f', at(v, 2))]);
                let total = sharded_flops(one(&[1.0, 1.0, 1.0]).map_err(s)?, &[x, y], &[z]);
                Ok(Solution::new(Answer::Symbolic {
                    expr: format!("2*B*D*F/{}", x * y),
                    vars: bdf(),
                    reference: reference(move |v| one(v).map_or(f64::NAN, |f| sharded_flops(f, &[x, y], &[z]).per_chip.0)),
                })
                .step(format!("the work 2BDF is split over X·Y = {} chips", x * y))
                .step(format!("and repeated on each of the Z = {z} copies: {}·BDF FLOPs executed in total", total.executed.0))
                .step(format!("per chip: 2BDF / {}", x * y))
                .two("did you count a multiply-add as one FLOP?"))
            },
            hints: &["Only the mesh axes that appear in the shardings split the work; the others duplicate it."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch4-q3",
            chapter: 4,
            kind: Kind::Question,
            params: &[],
            prompt: |_| {
                "The einsum A[I, J, K, L] · B[I, J, M, N, O] → C[K, L, M, N, O] sums over I and J. How many FLOPs does it take? Give a formula in I, J, K, L, M, N and O.".into()
            },
            solve: |_| {
                let vars: Vec<Var> = ["I", "J", "K", "L", "M", "N", "O"].iter().map(|v| Var::stepped(v, 1.0, 64.0, 1.0)).collect();
                Ok(Solution::new(Answer::Symbolic {
                    expr: "2*I*J*K*L*M*N*O".into(),
                    vars,
                    reference: reference(|x| {
                        let dims: Vec<(char, f64)> = "ijklmno".chars().enumerate().map(|(i, c)| (c, at(x, i))).collect();
                        einsum_flops("ijkl,ijmno->klmno", &dims).map_or(f64::NAN, |f| f.0)
                    }),
                })
                .step("I and J are contracted; there are no batch dimensions")
                .step("each of the K·L·M·N·O outputs sums I·J products: 2·I·J·K·L·M·N·O FLOPs")
                .two("did you count a multiply-add as one FLOP?"))
            },
            hints: &["Two FLOPs for every combination of all the distinct dimensions."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch4-q4a",
            chapter: 4,
            kind: Kind::Question,
            params: &[],
            prompt: |_| {
                "Count only the two attention matmuls (no projections), in bf16, with G query heads per KV head. During prefill the queries and keys have the same length T. What is the arithmetic intensity? Give a formula in T and G.".into()
            },
            solve: |_| {
                Ok(Solution::new(Answer::Symbolic {
                    expr: "T*G/(G+1)".into(),
                    vars: vec![Var::stepped("T", 1.0, 100_000.0, 1.0), Var::stepped("G", 1.0, 16.0, 1.0)],
                    reference: reference(|x| attention_intensity(at(x, 0), at(x, 0), at(x, 1)).0),
                })
                .step("FLOPs: 4·B·T·S·K·G·H; bytes: 4·B·H·K·(T·G + S) for Q, K, V and the output")
                .step("intensity = T·S·G / (T·G + S); with S = T this is T·G / (G + 1), T/2 for multi-head attention")
                .two("did you count bf16 as one byte, or the multiply-adds once?"))
            },
            hints: &["Write the FLOPs and the bytes of QKᵀ and softmax·V, then set S = T."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch4-q4b",
            chapter: 4,
            kind: Kind::Question,
            params: &[],
            prompt: |_| {
                "Same attention-only count, now while generating: one new query token (T = 1) attends to S cached keys, with G query heads per KV head. What is the arithmetic intensity? Give a formula in S and G.".into()
            },
            solve: |_| {
                Ok(Solution::new(Answer::Symbolic {
                    expr: "S*G/(S+G)".into(),
                    vars: vec![Var::stepped("S", 1.0, 100_000.0, 1.0), Var::stepped("G", 1.0, 16.0, 1.0)],
                    reference: reference(|x| attention_intensity(1.0, at(x, 0), at(x, 1)).0),
                })
                .step("intensity = T·S·G / (T·G + S) with T = 1: S·G / (S + G)")
                .step("it never exceeds G, however long the context: generation attention is memory-bound")
                .two("did you count bf16 as one byte, or the multiply-adds once?"))
            },
            hints: &["Set T = 1 in the general intensity T·S·G / (T·G + S)."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch4-q4c",
            chapter: 4,
            kind: Kind::Question,
            params: P_Q4C,
            prompt: |p| {
                let name = chip_param(p, "chip").map_or("TPU", |c| c.name);
                let g = value(p, "G");
                let heads = if g == 1.0 { " (plain multi-head attention)".to_string() } else { String::new() };
                format!(
                    "Attention alone (no projections) runs in bf16 from HBM on a {name}, during prefill or training without sequence sharding, with G = {g} query head(s) per KV head{heads}. Above what sequence length T is it compute-bound?"
                )
            },
            solve: |p| {
                let c = chip_param(p, "chip")?;
                let r = ridge(c, Dtype::Bf16, Link::Hbm)?;
                let g = value(p, "G");
                let t = attention_compute_bound_length(r, g);
                let mut sol = Solution::numeric(t, "tokens")
                    .step(format!("prefill intensity = T·G / (G + 1) = T·{g}/{}", g + 1.0))
                    .step(format!("compute-bound when it exceeds the ridge {}: T > {} × {}/{g} = {}", sci(r.0, 4), sci(r.0, 4), g + 1.0, sci(t, 4)));
                if (t / r.0 - 1.0).abs() > 0.05 {
                    sol = sol.perturb(r.0, "That is the limit for many query heads per KV head; with this G the intensity is T·G/(G + 1), below T.");
                }
                Ok(sol)
            },
            hints: &["Use the prefill intensity T·G/(G + 1) and compare it with the chip's ridge point."],
            correction: Some("The book answers 240, the limit for many query heads per KV head; with multi-head attention (G = 1) the prefill intensity is T/2, so attention is compute-bound only above about 480 tokens, as the inference chapter itself says."),
            book_gave_answer: true,
        },
        Def {
            id: "ch4-q5",
            chapter: 4,
            kind: Kind::Question,
            params: P_Q5,
            prompt: |p| {
                format!(
                    "With multi-head attention (N·H = D), at what sequence length T do the dot-product attention FLOPs equal the FLOPs of the Q, K, V and O projections? Give the value for D = {}.",
                    n(value(p, "D"))
                )
            },
            solve: |p| {
                let d = d_of(p)?;
                let t = projection_crossover(&idealised(d, 1)?);
                Ok(Solution::numeric(t, "tokens")
                    .step("projections: 24·B·T·D·N·H FLOPs; attention: 12·B·T²·N·H (training, per layer)")
                    .step(format!("equal when T = 2D = {}", n(t))))
            },
            hints: &["Set 24·B·T·D·N·H equal to 12·B·T²·N·H."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch4-q6",
            chapter: 4,
            kind: Kind::Question,
            params: &[],
            prompt: |_| {
                "The forward pass saves only the outputs of the seven big matmuls (Q, K, V, O and the three MLP matrices). Counting matmuls only, how many extra FLOPs per layer must the backward pass recompute, for B sequences of length T? Give a formula in B, T, N and H.".into()
            },
            solve: |_| {
                Ok(Solution::new(Answer::Symbolic {
                    expr: "4*B*T^2*N*H".into(),
                    vars: vec![
                        Var::stepped("B", 1.0, 16.0, 1.0),
                        Var::stepped("T", 1.0, 8192.0, 1.0),
                        Var::stepped("N", 1.0, 64.0, 1.0),
                        Var::stepped("H", 64.0, 256.0, 64.0),
                    ],
                    reference: reference(|x| {
                        let (nn, h) = (whole::<u64>(at(x, 2)).unwrap_or(0), whole::<u64>(at(x, 3)).unwrap_or(0));
                        ModelConfig::dense(nn * h, 4 * nn * h, 1, nn, nn, h, 1000)
                            .ok()
                            .and_then(|cfg| Remat::BigMatmuls.extra_flops(&cfg, at(x, 0), at(x, 1), false).ok())
                            .map_or(f64::NAN, |f| f.0)
                    }),
                })
                .step("what is missing: QKᵀ and softmax·V, each a T×T product batched over B and N")
                .step("each costs 2·B·T²·N·H: together 4·B·T²·N·H (plus cheap elementwise work)")
                .two("did you count one of the two attention matmuls twice, or a multiply-add as one FLOP?"))
            },
            hints: &["Which matmuls of the layer produce outputs that were not saved?"],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch4-q7a",
            chapter: 4,
            kind: Kind::Question,
            params: P_Q7AB,
            prompt: |p| ds_prompt(p, "How many FLOPs could that hardware deliver at peak?"),
            solve: |p| {
                let (available, _) = ds_flops(p)?;
                Ok(Solution::numeric(available, "FLOPs")
                    .step(format!("{} h × 3600 s/h × {} FLOPs/s", sci(value(p, "hours"), 3), sci(value(p, "C"), 4)))
                    .step(format!("= {} FLOPs", sci(available, 3))))
            },
            hints: &["GPU-hours become GPU-seconds; multiply by the per-GPU rate."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch4-q7b",
            chapter: 4,
            kind: Kind::Question,
            params: P_Q7AB,
            prompt: |p| ds_prompt(p, "How many FLOPs did the training take, by the usual rule of thumb?"),
            solve: |p| {
                let (_, used) = ds_flops(p)?;
                Ok(Solution::numeric(used, "FLOPs")
                    .step("training FLOPs ≈ 6 × active parameters × tokens")
                    .step(format!("= 6 × {} × {} = {}", sci(value(p, "N"), 3), sci(value(p, "tokens"), 3), sci(used, 3)))
                    .two("the rule is 6·N·D: 2 for the forward pass and 4 for the backward. Did you use 3 or 12?"))
            },
            hints: &["Only the activated parameters do work for a token."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch4-q7c",
            chapter: 4,
            kind: Kind::Question,
            params: P_Q7AB,
            prompt: |p| ds_prompt(p, "What hardware FLOPs utilisation does that imply?"),
            solve: |p| {
                let (available, used) = ds_flops(p)?;
                let u = used / available;
                Ok(Solution::numeric(u, "%")
                    .step(format!("available: {}; used: 6·N·D = {}", sci(available, 3), sci(used, 3)))
                    .step(format!("utilisation = {} / {} = {:.1}%", sci(used, 3), sci(available, 3), u * 100.0))
                    .two("did you use 12·N·D or 3·N·D instead of 6·N·D?"))
            },
            hints: &["Divide the FLOPs the training needed by the FLOPs the hardware could deliver."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch4-q8a",
            chapter: 4,
            kind: Kind::Question,
            params: P_Q8A,
            prompt: |p| {
                let (r, name) = rounded_ridge(p).unwrap_or((f64::NAN, "TPU"));
                format!(
                    "An MoE layer has E experts of which k are active per token; its weights are int8 and it computes in bf16 on a {name} (bf16 ridge about {r} FLOPs/byte). How large must the token batch B be for the expert matmuls to be compute-bound? Give the threshold as a formula in E and k."
                )
            },
            solve: |p| {
                let (r, _) = rounded_ridge(p)?;
                let coef = r * Dtype::Int8.bytes() / 2.0;
                Ok(Solution::new(Answer::Symbolic {
                    expr: format!("{coef}*E/k"),
                    vars: vec![Var::stepped("E", 8.0, 512.0, 1.0), Var::stepped("k", 1.0, 8.0, 1.0)],
                    reference: reference(move |x| moe_critical_batch(at(x, 0), at(x, 1), Intensity(r), Dtype::Int8)),
                })
                .step("all E·D·F int8 weights are loaded (1 byte each); each token uses k experts: 2·k·B·D·F FLOPs")
                .step(format!("intensity 2·k·B / E > {r}, so B > {coef}·E/k"))
                .two("int8 weights are one byte each: did you count two?"))
            },
            hints: &["Weights loaded scale with E, FLOPs with k·B."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch4-q8b",
            chapter: 4,
            kind: Kind::Question,
            params: P_Q8B,
            prompt: |p| {
                let (r, name) = rounded_ridge(p).unwrap_or((f64::NAN, "TPU"));
                format!(
                    "The same int8 MoE layer on a {name} (ridge about {r}) has E = {} experts with k = {} active. What token batch makes it compute-bound?",
                    n(value(p, "E")), n(value(p, "k"))
                )
            },
            solve: |p| {
                let (r, _) = rounded_ridge(p)?;
                let (e, k) = (value(p, "E"), value(p, "k"));
                if k > e {
                    return Err("more active experts than experts".into());
                }
                let b = moe_critical_batch(e, k, Intensity(r), Dtype::Int8);
                Ok(Solution::numeric(b, "tokens")
                    .step(format!("B > (ridge / 2)·E/k = {}·{}/{}", r / 2.0, n(e), n(k)))
                    .step(format!("= {}", n(b)))
                    .two("int8 weights are one byte each: did you count two?"))
            },
            hints: &["Plug E and k into the threshold of the previous question."],
            correction: None,
            book_gave_answer: true,
        },
    ]
}

#[cfg(test)]
mod tests {
    #[test]
    fn all_solve() {
        for d in super::defs() {
            assert!(
                (d.solve)(d.params).is_ok(),
                "{}: {:?}",
                d.id,
                (d.solve)(d.params).err()
            );
        }
    }
}
