//! Formulas of `core`'s newer models for which the book prints no number (or only
//! a rule), each checked against a value derived by hand in the test's comment,
//! term by term, so that a wrong factor or a dropped term fails here. Hardware
//! numbers are the book's (v5e: 1.97e14 bf16 FLOP/s, 8.2e11 B/s of HBM,
//! 4.5e10 B/s of ICI one way), model shapes the models' own releases.

use ridgeline_core::dtype::Dtype;
use ridgeline_core::hardware::chip;
use ridgeline_core::inference::serving::{speculative, SpeculativeParams};
use ridgeline_core::model::accounting::params;
use ridgeline_core::model::config::model;
use ridgeline_core::model::flash_attention::{run, FlashParams};
use ridgeline_core::model::moe::{analyse, MoeParams};
use ridgeline_core::model::remat::{compare, Policy, RematParams};
use ridgeline_core::reader::hf_config::import;
use ridgeline_core::training::pipeline::{simulate, PipelineParams, Schedule};
use ridgeline_core::units::Seconds;

/// Asserts `value` is within `tol` (relative) of `expected`.
fn near(what: &str, value: f64, expected: f64, tol: f64) {
    let rel = ((value - expected) / expected).abs();
    assert!(
        rel <= tol,
        "{what}: computed {value}, derived {expected} (relative error {rel:.3e})"
    );
}

#[test]
fn moe_dispatch_combine_expert_time_and_weights_of_mixtral_on_v5e() {
    // Mixtral 8x7B: D = 4096, F = 14336 (gated, three matrices), L = 32, E = 8,
    // k = 2; the preset takes B = 8192 tokens, bf16 weights and EP = 8.
    let p = MoeParams::preset("mixtral-8x7b", chip("v5e").unwrap()).unwrap();
    assert_eq!(p.expert_parallel, 8);
    let a = analyse(&p).unwrap();
    // One AllToAll moves every routed token's activations: B · k · D · 2 bytes
    // = 8192 · 2 · 4096 · 2 = 134,217,728 bytes.
    assert_eq!(a.all_to_all_bytes.0, 134_217_728.0);
    // On a bidirectional ring of 8 it costs V · n / (4 · n · W_bidi)
    // = V / (8 · W_one_way) = 134,217,728 / (8 · 4.5e10) = 372.8 µs (above the
    // 4 hops × 1 µs of latency); dispatch plus combine is twice that, 745.6 µs.
    near(
        "dispatch + combine",
        a.all_to_all_time.0,
        2.0 * 134_217_728.0 / (8.0 * 4.5e10),
        1e-12,
    );
    // One expert is 3 · D · F = 3 · 4096 · 14336 = 176,160,768 parameters; the
    // batch runs 2 · B · k of them each = 2 · 8192 · 2 · 176,160,768
    // = 5.7724e12 FLOPs, spread over 8 chips at 1.97e14: 3.663 ms.
    near(
        "expert time",
        a.expert_time.0,
        2.0 * 8192.0 * 2.0 * 176_160_768.0 / (8.0 * 1.97e14),
        1e-12,
    );
    // Weights per chip: everything but the routed experts whole, the
    // 32 · 8 · 176,160,768 = 45,097,156,608 routed ones over 8 chips, in bf16.
    // Mixtral's published total is 46,702,792,704 parameters.
    let total = 46_702_792_704.0;
    let routed = 45_097_156_608.0;
    assert_eq!(params(&p.model).total(), total);
    near(
        "weights per chip",
        a.weight_bytes_per_chip.0,
        2.0 * (total - routed + routed / 8.0),
        1e-12,
    );
}

#[test]
fn flash_attention_memory_and_flops_term_by_term() {
    // T = 4 queries, S = 32 keys, H = 8, blocks of 8 keys.
    let r = run(&FlashParams {
        queries: 4,
        keys: 32,
        head_dim: 8,
        block: 8,
        seed: 1,
    })
    .unwrap();
    // Flash keeps Q and the output (2·T·H = 64), m and l per query (2·T = 8),
    // one block of keys and values (2·8·H = 128) and one block of scores
    // (T·8 = 32): 232 numbers.
    assert_eq!(r.flash_memory, 64.0 + 8.0 + 128.0 + 32.0);
    // Ordinary attention keeps Q and the output (64), all of K and V
    // (2·S·H = 512) and the whole score matrix (T·S = 128): 704 numbers.
    assert_eq!(r.naive_memory, 64.0 + 512.0 + 128.0);
    // Q·Kᵀ and P·V are 2·T·S·H FLOPs each: 4 · 4 · 32 · 8 = 4096.
    assert_eq!(r.flops.0, 4096.0);
}

/// A Gemma 3 text config: 32 layers, D = 4096 over 32 heads (H = 128), 8 KV
/// heads, a 1024-token window on all but every 6th layer.
const GEMMA3: &str = r#"{"model_type": "gemma3_text", "hidden_size": 4096,
    "intermediate_size": 14336, "num_hidden_layers": 32, "num_attention_heads": 32,
    "num_key_value_heads": 8, "vocab_size": 262144, "max_position_embeddings": 131072,
    "sliding_window": 1024}"#;

#[test]
fn sliding_window_kv_cache_of_mixed_layers_and_batches() {
    let m = import(GEMMA3).unwrap();
    let w = m.window.unwrap();
    // All but every 6th of 32 layers: 32 − ⌊32/6⌋ = 27 sliding, 5 full.
    assert_eq!((w.window, w.sliding_layers), (1024, 27));
    // Per token and layer: K and V, 8 heads of 128, 2 bytes = 4096 bytes.
    // At 8192 tokens the 5 full layers hold 8192 tokens and the 27 sliding
    // ones 1024: 5·8192 + 27·1024 = 68,608 token-layers; 4 sequences of it are
    // 4096 · 68,608 · 4 = 1,124,073,472 bytes.
    assert_eq!(
        m.kv_cache_bytes(8192.0, 4.0, Dtype::Bf16).0,
        4096.0 * (5.0 * 8192.0 + 27.0 * 1024.0) * 4.0
    );
    // Below the window every layer holds the whole sequence: 4096 · 32 · 512.
    assert_eq!(
        m.kv_cache_bytes(512.0, 1.0, Dtype::Bf16).0,
        4096.0 * 32.0 * 512.0
    );
}

#[test]
fn remat_policies_of_llama3_70b_term_by_term() {
    // LLaMA 3 70B: L = 80, D = 8192, 64 heads and 8 KV heads of 128, F = 28672
    // (gated); 32 sequences of 4096 tokens over 256 chips, bf16 activations.
    let rows = compare(&RematParams::new(
        model("llama3-70b").unwrap().config,
        32.0,
        4096.0,
        256.0,
    ))
    .unwrap();
    // Bytes per chip for n saved numbers per token and layer:
    // 2 · (32 · 4096) · n / 256 = 1024 · n.
    let per = |n: f64| 2.0 * 32.0 * 4096.0 * n / 256.0;
    let d = 8192.0;
    assert_eq!(rows[0].policy, Policy::None);
    // Selected: Q (64·128 = 8192), K and V (2·8·128 = 2048), the attention
    // output (D), both MLP inputs (2F = 57344) and the MLP output (D) per layer.
    assert_eq!(rows[1].policy, Policy::Selected);
    assert_eq!(
        rows[1].activation_bytes.0,
        per(80.0 * (8192.0 + 2048.0 + d + 57344.0 + d))
    );
    // Per layer: 80 layer inputs, plus the 20·D intermediates of the one layer
    // being recomputed.
    assert_eq!(rows[2].policy, Policy::PerLayer);
    assert_eq!(rows[2].activation_bytes.0, per(80.0 * d + 20.0 * d));
    // Full (√L): segments of ⌈√80⌉ = 9 layers, so ⌈80/9⌉ = 9 kept inputs, the 9
    // inputs of the segment being rerun, and one layer's 20·D.
    assert_eq!(rows[3].policy, Policy::Full);
    assert_eq!(
        rows[3].activation_bytes.0,
        per(9.0 * d + 9.0 * d + 20.0 * d)
    );
    // Full reruns the forward pass twice where per-layer reruns it once.
    assert_eq!(rows[3].extra_flops.0, 2.0 * rows[2].extra_flops.0);
}

#[test]
fn pipeline_sends_and_interleaved_memory() {
    // GPipe with T_F = 1, T_B = 2 and a send of t between stages: the last
    // forward reaches stage S − 1 at (M + S − 1)·T_F + (S − 1)·t, its backwards
    // follow (M·T_B), and the last backward walks back to stage 0 in
    // (S − 1)·(T_B + t): (M + S − 1)(T_F + T_B) + 2(S − 1)·t.
    // S = 4, M = 8, t = 0.5: 11 · 3 + 2 · 3 · 0.5 = 36.
    let g = PipelineParams::new(4, 8, Schedule::GPipe).with_transfer(Seconds(0.5));
    assert!((simulate(&g).unwrap().step.0 - 36.0).abs() < 1e-9);
    // Megatron-LM's interleaved schedule (Narayanan et al. 2021): the first
    // device runs 2(S − 1) + (v − 1)·S = 10 warm-up chunk forwards and one
    // more before its first backward, 11 chunks of 1/v of a stage each:
    // S·(1 + (S − 1)/(S·v)) = 5.5 stages' worth of activations for S = 4, v = 2.
    let i = simulate(&PipelineParams::new(4, 8, Schedule::Interleaved)).unwrap();
    assert_eq!(i.peak_in_flight, 11.0);
    assert_eq!(i.peak_activations.0, 5.5);
}

#[test]
fn speculative_round_of_four_drafts() {
    // k = 4 drafts accepted with a = 0.8 each: the expected tokens per target
    // step are 1 + a + a² + a³ + a⁴ = 1 + 0.8 + 0.64 + 0.512 + 0.4096 = 3.3616.
    // A round is one target step plus 4 draft steps of 0.05: 1.2. Speedup
    // 3.3616 / 1.2 = 2.80133.
    let s = speculative(&SpeculativeParams {
        draft: 4,
        accept: 0.8,
        draft_cost: 0.05,
    })
    .unwrap();
    near("tokens per step", s.tokens_per_step, 3.3616, 1e-12);
    near("round cost", s.round_cost, 1.2, 1e-12);
    near("speedup", s.speedup, 3.3616 / 1.2, 1e-12);
}
