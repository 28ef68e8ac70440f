//! The `config.json` import and the chip parser must never panic, whatever the
//! text: every rejection names a field or the problem, every accepted model
//! passes its own validation and shows a non-empty mapping, and every accepted
//! chip passes the limits registry chips meet.
//!
//! Inputs per parser: mutations of real inputs (the published configurations
//! under `tests/data/hf-configs/`, chip definitions starting from every registry
//! chip), structural (a field's value replaced by a hostile one, deleted or
//! added) or byte-level (bytes flipped, inserted, cut), and arbitrary Unicode
//! strings. Each proptest case feeds a batch: per parser, 2 generators ×
//! 4,000 cases × 125 inputs = 1,000,000 inputs, over fixed seeds.
//! (About 35 s of CPU for the model import and 10 s for the chip parser in a
//! debug build.)

use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use ridgeline_core::dtype::Dtype;
use ridgeline_core::hardware::CHIPS;
use ridgeline_core::model::accounting::params;
use ridgeline_core::model::config::MAX_PARAMS;
use ridgeline_core::reader::chip::{parse_chip, validate_chip};
use ridgeline_core::reader::hf_config::{import, ImportError};
use ridgeline_core::reader::library::{load, Library};
use ridgeline_core::rng::Rng;
use serde_json::Value;
use std::sync::OnceLock;

/// Inputs fed per proptest case.
const BATCH: usize = 125;
/// Proptest cases per generator.
const CASES: u32 = 4_000;

fn config(seed: u64) -> Config {
    Config {
        cases: CASES,
        rng_seed: RngSeed::Fixed(seed),
        failure_persistence: None,
        max_shrink_iters: 32,
        ..Config::default()
    }
}

const MODEL_SEEDS: &[&str] = &[
    include_str!("../../tests/data/hf-configs/llama-3.1-8b.json"),
    include_str!("../../tests/data/hf-configs/mistral-7b-v0.1.json"),
    include_str!("../../tests/data/hf-configs/mixtral-8x7b-v0.1.json"),
    include_str!("../../tests/data/hf-configs/qwen2.5-7b.json"),
    include_str!("../../tests/data/hf-configs/qwen3-30b-a3b.json"),
    include_str!("../../tests/data/hf-configs/gemma-2-9b.json"),
    include_str!("../../tests/data/hf-configs/gemma-3-1b-it.json"),
    include_str!("../../tests/data/hf-configs/deepseek-v3.json"),
    include_str!("../../tests/data/hf-configs/gpt-oss-120b.json"),
];

/// Values a hostile or careless file might hold.
const HOSTILE: &[&str] = &[
    "0",
    "1",
    "2",
    "3",
    "-1",
    "7",
    "64",
    "128",
    "4096",
    "1.5",
    "1e30",
    "-1e308",
    "18446744073709551615",
    "18446744073709551616",
    "100001",
    "1048577",
    "null",
    "true",
    "false",
    "\"\"",
    "\"4096\"",
    "\"llama\"",
    "\"mixtral\"",
    "\"deepseek_v3\"",
    "\"gpt_oss\"",
    "\"gemma3\"",
    "\"gemma2\"",
    "\"qwen3_moe\"",
    "\"sliding_attention\"",
    "[]",
    "[0]",
    "[0, 1]",
    "[\"sliding_attention\", \"full_attention\"]",
    "{}",
    "{\"hidden_size\": 8}",
    "\"5.3 TB/s\"",
    "\"2.6 PFLOP/s\"",
    "\"192 GB\"",
    "\"NaN\"",
    "\"-3 TB/s\"",
    "\"1e400 B/s\"",
    "\"5 ms\"",
    "\"v5e\"",
    "\"h100\"",
    "\"google\"",
    "\"nvidia\"",
    "\"full-cube\"",
    "[16, 16, 16]",
    "[0, 0, 0]",
    "{\"gpus\": 8, \"sms\": 132}",
    "{\"torus\": {}}",
];

const KEYS: &[&str] = &[
    "model_type",
    "hidden_size",
    "intermediate_size",
    "num_hidden_layers",
    "num_attention_heads",
    "num_key_value_heads",
    "head_dim",
    "vocab_size",
    "max_position_embeddings",
    "tie_word_embeddings",
    "num_local_experts",
    "n_routed_experts",
    "num_experts",
    "num_experts_per_tok",
    "experts_per_token",
    "n_shared_experts",
    "moe_intermediate_size",
    "first_k_dense_replace",
    "moe_layer_freq",
    "decoder_sparse_step",
    "mlp_only_layers",
    "q_lora_rank",
    "kv_lora_rank",
    "qk_rope_head_dim",
    "qk_nope_head_dim",
    "v_head_dim",
    "sliding_window",
    "sliding_window_size",
    "sliding_window_pattern",
    "use_sliding_window",
    "layer_types",
    "text_config",
    "shared_expert_intermediate_size",
    "name",
    "start_from",
    "vendor",
    "peaks",
    "hbm",
    "links",
    "topology",
    "capacity",
    "bandwidth",
    "bf16",
    "fp8",
    "ici",
    "nvlink",
    "torus",
    "nvlink_domain",
    "dims",
    "max_slice",
    "host",
    "wrap",
    "cores",
    "gpus",
    "sms",
    "node_egress",
];

fn chip_seeds() -> &'static [String] {
    static SEEDS: OnceLock<Vec<String>> = OnceLock::new();
    SEEDS.get_or_init(|| {
        let mut seeds: Vec<String> = CHIPS
            .iter()
            .map(|c| format!(r#"{{"name": "mine", "start_from": "{}", "peaks": {{"bf16": "1 PFLOP/s"}}, "hbm": {{"bandwidth": "3 TB/s"}}}}"#, c.id))
            .collect();
        seeds.push(r#"{"name": "t", "vendor": "google", "peaks": {"bf16": 2.3e15, "int8": 4.6e15},
            "hbm": {"capacity": "96 GB", "bandwidth": "2.8 TB/s"}, "links": {"ici": "90 GB/s"},
            "topology": {"torus": {"dims": 3, "max_slice": [16, 16, 24], "host": [2, 2, 1],
            "wrap": "full-cube", "cores": 1}}}"#.into());
        seeds.push(r#"{"name": "g", "vendor": "nvidia", "peaks": {"bf16": "1.3 PFLOP/s", "fp8": "2.6 PFLOP/s"},
            "hbm": {"capacity": "192 GB", "bandwidth": "5.3 TB/s"},
            "links": {"nvlink": "450 GB/s", "scaleout": "50 GB/s"},
            "topology": {"nvlink_domain": {"gpus": 8, "sms": 304, "node_egress": "400 GB/s"}}}"#.into());
        seeds
    })
}

fn parsed(texts: &'static [String], cache: &'static OnceLock<Vec<Value>>) -> &'static [Value] {
    cache.get_or_init(|| {
        texts
            .iter()
            .map(|t| t.parse::<Value>().expect("seeds are JSON"))
            .collect()
    })
}

fn model_values() -> &'static [Value] {
    static TEXTS: OnceLock<Vec<String>> = OnceLock::new();
    static VALUES: OnceLock<Vec<Value>> = OnceLock::new();
    parsed(
        TEXTS.get_or_init(|| MODEL_SEEDS.iter().map(|s| s.to_string()).collect()),
        &VALUES,
    )
}

fn chip_values() -> &'static [Value] {
    static VALUES: OnceLock<Vec<Value>> = OnceLock::new();
    parsed(chip_seeds(), &VALUES)
}

/// Replaces, deletes or adds fields at random depths of a copy of `seed`.
fn mutate_structure(seed: &Value, rng: &mut Rng) -> String {
    let mut v = seed.clone();
    for _ in 0..1 + rng.below(3) {
        // Walk down into nested objects now and then (text_config, hbm, topology).
        let mut path = String::new();
        let mut at = &v;
        while rng.below(3) == 0 {
            let Some(obj) = at.as_object() else { break };
            let nested: Vec<&String> = obj
                .iter()
                .filter(|(_, v)| v.is_object())
                .map(|(k, _)| k)
                .collect();
            if nested.is_empty() {
                break;
            }
            let key = nested[rng.below(nested.len())];
            path.push('/');
            path.push_str(&key.replace('~', "~0").replace('/', "~1"));
            at = &obj[key.as_str()];
        }
        let Some(obj) = v.pointer_mut(&path).and_then(Value::as_object_mut) else {
            continue;
        };
        let hostile: Value = rng.pick(HOSTILE).parse().expect("hostile values are JSON");
        match rng.below(4) {
            0 if !obj.is_empty() => {
                let key = obj
                    .keys()
                    .nth(rng.below(obj.len()))
                    .cloned()
                    .unwrap_or_default();
                obj.remove(&key);
            }
            1 => {
                obj.insert(rng.pick(KEYS).to_string(), hostile);
            }
            _ if !obj.is_empty() => {
                let key = obj
                    .keys()
                    .nth(rng.below(obj.len()))
                    .cloned()
                    .unwrap_or_default();
                obj.insert(key, hostile);
            }
            _ => {}
        }
    }
    v.to_string()
}

/// Bytes that change what JSON means.
const FLIPS: &[u8] = b"{}[]\",:0123456789e.-ntf \\";

/// Flips, inserts or cuts bytes of the seed's text (keeping it UTF-8).
fn mutate_bytes(seed: &str, rng: &mut Rng) -> String {
    let mut b = seed.as_bytes().to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(b.len() + 1);
        match rng.below(4) {
            0 if at < b.len() => b[at] = FLIPS[rng.below(FLIPS.len())],
            1 => b.insert(at, FLIPS[rng.below(FLIPS.len())]),
            2 => b.truncate(at),
            _ if at < b.len() => {
                b.remove(at);
            }
            _ => {}
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

fn check_error(text: &str, e: &ImportError) {
    assert!(!e.field.trim().is_empty(), "no field for {text:?}: {e:?}");
    assert!(
        !e.message.trim().is_empty(),
        "no message for {text:?}: {e:?}"
    );
}

fn feed_model(text: &str) {
    match import(text) {
        Err(e) => check_error(text, &e),
        Ok(m) => {
            assert_eq!(m.config.validate(), Ok(()), "{text}");
            assert!(!m.rows.is_empty(), "{text}");
            assert!(
                m.rows
                    .iter()
                    .all(|r| !r.field.is_empty() && !r.value.is_empty()),
                "{text}"
            );
            let total = params(&m.config).total();
            assert!(
                total.is_finite() && total > 0.0 && total <= MAX_PARAMS,
                "{text}"
            );
            let kv = m
                .kv_cache_bytes(m.config.max_seq as f64, 1.0, Dtype::Bf16)
                .0;
            assert!(kv.is_finite() && kv > 0.0, "{text}");
        }
    }
}

/// Accepted chips leaked so far, to check the registry type on a sample
/// without keeping a million chips alive.
static LEAKED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn feed_chip(text: &str) {
    match parse_chip(text) {
        Err(e) => check_error(text, &e),
        Ok(spec) => {
            assert_eq!(spec.validate(), Ok(()), "{text}");
            assert!(!spec.peaks.is_empty() && !spec.links.is_empty(), "{text}");
            let n = LEAKED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            if n.is_multiple_of(512) {
                let chip = spec.leak();
                assert_eq!(validate_chip(chip), Ok(()), "{text}");
                assert!(chip.hbm_bw().0.is_finite());
            }
        }
    }
}

/// Arbitrary text of up to 40 characters: ASCII half the time, any Unicode
/// scalar value otherwise (drawn from the seed, which is cheaper than
/// proptest's character strategy).
fn arbitrary_text(seed: u64) -> String {
    let mut rng = Rng::new(seed);
    (0..rng.below(41))
        .filter_map(|_| {
            let bits = rng.next_u64();
            let code = if bits & 1 == 0 {
                (bits >> 1) % 128
            } else {
                (bits >> 1) % 0x11_0000
            };
            char::from_u32(code as u32)
        })
        .collect()
}

proptest! {
    #![proptest_config(config(0x4846_0001))]
    #[test]
    fn mutated_configs_never_panic(batch in prop::collection::vec(any::<u64>(), BATCH)) {
        let seeds = model_values();
        for s in batch {
            let mut rng = Rng::new(s);
            let seed = &seeds[rng.below(seeds.len())];
            let text = if rng.below(2) == 0 {
                mutate_structure(seed, &mut rng)
            } else {
                mutate_bytes(MODEL_SEEDS[rng.below(MODEL_SEEDS.len())], &mut rng)
            };
            feed_model(&text);
        }
    }
}

proptest! {
    #![proptest_config(config(0x4846_0002))]
    #[test]
    fn arbitrary_text_is_a_refused_config(batch in prop::collection::vec(any::<u64>(), BATCH)) {
        for seed in batch {
            feed_model(&arbitrary_text(seed));
        }
    }
}

proptest! {
    #![proptest_config(config(0x4846_0003))]
    #[test]
    fn mutated_chips_never_panic(batch in prop::collection::vec(any::<u64>(), BATCH)) {
        let values = chip_values();
        let texts = chip_seeds();
        for s in batch {
            let mut rng = Rng::new(s);
            let text = if rng.below(2) == 0 {
                mutate_structure(&values[rng.below(values.len())], &mut rng)
            } else {
                mutate_bytes(&texts[rng.below(texts.len())], &mut rng)
            };
            feed_chip(&text);
        }
    }
}

proptest! {
    #![proptest_config(config(0x4846_0004))]
    #[test]
    fn arbitrary_text_is_a_refused_chip(batch in prop::collection::vec(any::<u64>(), BATCH)) {
        for seed in batch {
            feed_chip(&arbitrary_text(seed));
        }
    }
}

/// The mutations reach deep: a fair share of mutated inputs is still accepted,
/// so the checks on accepted models and chips are exercised, not only refusals.
#[test]
fn mutations_reach_accepted_inputs() {
    let mut rng = Rng::new(0x1234_5678);
    let (mut models, mut chips) = (0, 0);
    for _ in 0..2_000 {
        let seeds = model_values();
        if import(&mutate_structure(&seeds[rng.below(seeds.len())], &mut rng)).is_ok() {
            models += 1;
        }
        let values = chip_values();
        if parse_chip(&mutate_structure(
            &values[rng.below(values.len())],
            &mut rng,
        ))
        .is_ok()
        {
            chips += 1;
        }
    }
    assert!(
        models > 200 && models < 1_900,
        "{models} of 2000 mutated configs accepted"
    );
    assert!(
        chips > 200 && chips < 1_900,
        "{chips} of 2000 mutated chips accepted"
    );
}

/// A library file holding two published configurations and two chips.
fn library_seed() -> &'static str {
    static SEED: OnceLock<String> = OnceLock::new();
    SEED.get_or_init(|| {
        let mut lib = Library::default();
        lib.save_model("mistral", MODEL_SEEDS[1])
            .expect("a seed imports");
        lib.save_model("qwen moe", MODEL_SEEDS[4])
            .expect("a seed imports");
        lib.save_chip("g", &chip_seeds()[CHIPS.len() + 1])
            .expect("a seed parses");
        lib.save_chip("v5e-ish", &chip_seeds()[0])
            .expect("a seed parses");
        lib.to_json()
    })
}

/// Loading never panics and never loses text: whatever is not read comes back
/// whole with a reason, and what is read writes out and reads back the same.
fn feed_library(text: &str) -> bool {
    let loaded = load(text);
    match &loaded.backup {
        Some((raw, reason)) => {
            assert_eq!(raw, text);
            assert!(!reason.trim().is_empty(), "{text}");
            false
        }
        None => {
            let again = load(&loaded.library.to_json());
            assert_eq!(again.backup, None, "{text}");
            assert_eq!(again.library, loaded.library, "{text}");
            true
        }
    }
}

/// The library parser over 6,000 mutated files (a few seconds in a debug
/// build): structural and byte-level mutations of a real library, and
/// arbitrary text.
#[test]
fn mutated_libraries_never_panic_or_lose_text() {
    let seed = library_seed();
    let value: Value = seed.parse().expect("the seed is JSON");
    let mut rng = Rng::new(0x4c49_4252);
    let mut read = 0;
    for i in 0..6_000 {
        let text = match i % 3 {
            0 => mutate_structure(&value, &mut rng),
            1 => mutate_bytes(seed, &mut rng),
            _ => arbitrary_text(rng.next_u64()),
        };
        if feed_library(&text) {
            read += 1;
        }
    }
    assert!(read > 100 && read < 5_000, "{read} of 6000 read whole");
}
