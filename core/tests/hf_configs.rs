//! The `config.json` of published models (`tests/data/hf-configs/`, sources in
//! the README beside them) import into models whose parameter counts from
//! `core` match the totals their authors publish within 1 %, and whose shapes
//! equal the registry's presets where the registry has the model.

use ridgeline_core::model::accounting::{active_params, params};
use ridgeline_core::model::config::model;
use ridgeline_core::reader::hf_config::{import, Family, Imported};
use serde_json::Value;

/// Each fixture: file name, its text, the published total parameter count.
const FIXTURES: &[(&str, &str, f64)] = &[
    (
        "llama-3.1-8b",
        include_str!("../../tests/data/hf-configs/llama-3.1-8b.json"),
        8.03e9,
    ),
    (
        "llama-3.1-70b",
        include_str!("../../tests/data/hf-configs/llama-3.1-70b.json"),
        70.6e9,
    ),
    (
        "mistral-7b-v0.1",
        include_str!("../../tests/data/hf-configs/mistral-7b-v0.1.json"),
        7.24e9,
    ),
    (
        "mixtral-8x7b-v0.1",
        include_str!("../../tests/data/hf-configs/mixtral-8x7b-v0.1.json"),
        46.7e9,
    ),
    (
        "qwen2.5-7b",
        include_str!("../../tests/data/hf-configs/qwen2.5-7b.json"),
        7.61e9,
    ),
    (
        "qwen3-30b-a3b",
        include_str!("../../tests/data/hf-configs/qwen3-30b-a3b.json"),
        30.5e9,
    ),
    (
        "gemma-2-9b",
        include_str!("../../tests/data/hf-configs/gemma-2-9b.json"),
        9.24e9,
    ),
    (
        "gemma-3-1b-it",
        include_str!("../../tests/data/hf-configs/gemma-3-1b-it.json"),
        999_885_952.0,
    ),
    (
        "deepseek-v3",
        include_str!("../../tests/data/hf-configs/deepseek-v3.json"),
        671e9,
    ),
    (
        "gpt-oss-120b",
        include_str!("../../tests/data/hf-configs/gpt-oss-120b.json"),
        116.83e9,
    ),
];

fn load(name: &str) -> Imported {
    let (_, text, _) = FIXTURES
        .iter()
        .find(|(n, _, _)| *n == name)
        .expect("a fixture of that name");
    import(text).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn published_totals_match_within_one_percent() {
    assert!(FIXTURES.len() >= 8);
    for (name, text, published) in FIXTURES {
        let m = import(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let total = params(&m.config).total();
        let off = total / published - 1.0;
        println!(
            "{name}: core {total:.5e}, published {published:.5e} ({:+.3} %)",
            off * 100.0
        );
        assert!(
            off.abs() < 0.01,
            "{name}: core {total:.4e} vs published {published:.4e} ({:+.2} %)",
            off * 100.0
        );
    }
}

#[test]
fn every_field_is_mapped_or_listed_as_ignored() {
    for (name, text, _) in FIXTURES {
        let m = import(text).unwrap();
        let v: Value = serde_json::from_str(text).unwrap();
        for key in v.as_object().unwrap().keys() {
            let mapped = m.rows.iter().any(|r| &r.field == key);
            let ignored = m.ignored.iter().any(|i| &i.field == key);
            assert!(
                mapped ^ ignored,
                "{name}: {key} mapped {mapped}, ignored {ignored}"
            );
        }
        assert!(m.ignored.iter().all(|i| !i.reason.is_empty()));
    }
}

#[test]
fn presets_in_the_registry_import_to_the_same_shape() {
    for (file, preset) in [
        ("mixtral-8x7b-v0.1", "mixtral-8x7b"),
        ("deepseek-v3", "deepseek-v3"),
        ("gpt-oss-120b", "gpt-oss-120b"),
    ] {
        assert_eq!(load(file).config, model(preset).unwrap().config, "{file}");
    }
    let llama = load("llama-3.1-70b").config;
    let preset = model("llama3-70b").unwrap().config;
    assert_eq!(
        ridgeline_core::model::config::ModelConfig {
            max_seq: 8192,
            ..llama
        },
        preset
    );
}

#[test]
fn families_windows_and_active_parameters() {
    let qwen = load("qwen3-30b-a3b");
    assert_eq!(qwen.family, Family::Qwen3Moe);
    // Published: 30.5B total, 3.3B activated.
    assert!((active_params(&qwen.config).total() / 3.3e9 - 1.0).abs() < 0.02);
    let ds = load("deepseek-v3");
    // Published: 37B activated (36.6B in the weights README, 0.9B of it the head).
    assert!((active_params(&ds.config).total() / 37e9 - 1.0).abs() < 0.02);
    assert!(ds
        .ignored
        .iter()
        .any(|i| i.field == "num_nextn_predict_layers"));
    let oss = load("gpt-oss-120b");
    let w = oss.window.unwrap();
    assert_eq!((w.window, w.sliding_layers), (128, 18));
    let gemma2 = load("gemma-2-9b");
    assert!(gemma2.config.tied_embeddings);
    assert_eq!(gemma2.window.unwrap().sliding_layers, 21);
    // Gemma 3: five of every six layers slide (26 layers: 4 global).
    assert_eq!(load("gemma-3-1b-it").window.unwrap().sliding_layers, 22);
    assert_eq!(load("mistral-7b-v0.1").window.unwrap().sliding_layers, 32);
    assert_eq!(load("qwen2.5-7b").window, None);
    assert_eq!(load("mixtral-8x7b-v0.1").window, None);
}
