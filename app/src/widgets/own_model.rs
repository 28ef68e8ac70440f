//! Your own model (`data-widget="own-model"`, Part 6): paste a Hugging Face
//! `config.json` and see how each field maps to the book's symbols, which
//! fields were ignored and why, and the key numbers `core` computes from it
//! exactly as for a preset (total and active parameters, training FLOPs per
//! token, KV-cache bytes per token).
//!
//! The text starts as `core`'s export of a preset; the URL keeps the preset and,
//! when the reader changed the model, the reader's text without insignificant
//! whitespace (so a link reproduces the mapping, the ignored fields included).

use super::controls::Notice;
use leptos::prelude::*;
use ridgeline_core::dtype::Dtype;
use ridgeline_core::format::{sci, si};
use ridgeline_core::model::accounting::{
    active_params, kv_bytes_per_token, params, training_flops_per_token,
};
use ridgeline_core::model::config::{model, ModelPreset, MODELS};
use ridgeline_core::reader::hf_config::{
    compact, export, export_pretty, import, Imported, MAX_CONFIG_BYTES,
};

use super::controls::option;
use super::params::{WidgetParams, WidgetState};
use crate::input::short;

/// The reader's choices: the preset the text started from, the text, and the
/// model imported from it.
#[derive(Debug, Clone)]
pub struct OwnModelParams {
    /// The preset whose export filled the text.
    pub start: &'static ModelPreset,
    /// The `config.json` as the reader last left it (valid).
    pub text: String,
    /// The model imported from `text`.
    pub imported: Imported,
}

/// Two states are the same when they start from the same preset and import the
/// same model (the text may differ in spacing or ignored fields).
impl PartialEq for OwnModelParams {
    fn eq(&self, other: &Self) -> bool {
        self.start.id == other.start.id && self.imported == other.imported
    }
}

/// The numbers shown under the mapping, all from `core`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KeyNumbers {
    /// Every parameter.
    pub total: f64,
    /// Parameters one token uses.
    pub active: f64,
    /// Training FLOPs per token, `6 · active`.
    pub flops_per_token: f64,
    /// bf16 KV-cache bytes per token over all layers at full context.
    pub kv_per_token: f64,
}

impl KeyNumbers {
    /// The numbers as the widget shows them: total, active, FLOPs, KV bytes.
    pub fn shown(&self) -> [String; 4] {
        [
            sci(self.total, 4),
            sci(self.active, 4),
            sci(self.flops_per_token, 3),
            si(self.kv_per_token, "B", 3),
        ]
    }
}

impl OwnModelParams {
    fn from_preset(start: &'static ModelPreset) -> Result<OwnModelParams, String> {
        let text = export_pretty(&start.config).map_err(|e| e.to_string())?;
        let imported = import(&text).map_err(|e| e.to_string())?;
        Ok(OwnModelParams {
            start,
            text,
            imported,
        })
    }

    /// Whether the model is the preset's own (the text was not changed in substance).
    pub fn is_preset(&self) -> bool {
        import(&export(&self.start.config).unwrap_or_default())
            .ok()
            .as_ref()
            == Some(&self.imported)
    }

    /// Total and active parameters, FLOPs and KV bytes per token.
    pub fn numbers(&self) -> KeyNumbers {
        let cfg = &self.imported.config;
        KeyNumbers {
            total: params(cfg).total(),
            active: active_params(cfg).total(),
            flops_per_token: training_flops_per_token(cfg).0,
            kv_per_token: kv_bytes_per_token(cfg, Dtype::Bf16).0,
        }
    }
}

impl Default for OwnModelParams {
    fn default() -> Self {
        MODELS
            .iter()
            .filter_map(|m| OwnModelParams::from_preset(m).ok())
            .next()
            .expect("a dense preset exports")
    }
}

impl WidgetParams for OwnModelParams {
    const ORDER: &'static [&'static [&'static str]] = &[&["model"]];

    /// Sets one parameter from text.
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        let next = match key {
            "model" => {
                let m = model(value).ok_or_else(|| format!("unknown model “{}”", short(value)))?;
                OwnModelParams::from_preset(m)?
            }
            "config" => {
                if value.len() > MAX_CONFIG_BYTES {
                    return Err(format!(
                        "The text is {} bytes; a config.json may have at most {MAX_CONFIG_BYTES}.",
                        value.len()
                    ));
                }
                let imported = import(value).map_err(|e| format!("Not imported: {e}."))?;
                OwnModelParams {
                    start: self.start,
                    text: value.to_string(),
                    imported,
                }
            }
            other => return Err(super::params::unknown_setting(other)),
        };
        *self = next;
        Ok(())
    }

    /// The parameters as `key=value` pairs: the preset, and the reader's text
    /// without insignificant whitespace when it changed the model.
    fn to_pairs(&self) -> Vec<(String, String)> {
        let mut pairs = vec![("model".to_string(), self.start.id.to_string())];
        if !self.is_preset() {
            pairs.push(("config".into(), compact(&self.text)));
        }
        pairs
    }
}

/// The widget.
#[component]
pub fn OwnModel(
    /// The chapter's `key=value` arguments (URL parameters override them).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let state = WidgetState::<OwnModelParams>::new(&args);
    let WidgetState { params, notice } = state;
    let text = move || params.with(|p| p.text.clone());
    // The static page's text; the live textarea follows `prop:value`.
    let initial = params.with_untracked(|p| p.text.clone());
    let model_options = MODELS
        .iter()
        .filter(|m| export(&m.config).is_ok())
        .map(|m| option(m.id, m.name, move || params.with(|p| p.start.id)))
        .collect_view();
    let rows = move || {
        params.with(|p| {
            p.imported
                .rows
                .iter()
                .map(|r| {
                    let symbol = r.symbol.map_or("—".to_string(), |s| s.name.to_string());
                    let note = r.note.clone().unwrap_or_default();
                    view! {
                        <tr data-field=r.field.clone()>
                            <th scope="row"><code>{r.field.clone()}</code></th>
                            <td data-symbol="">{symbol}</td>
                            <td>{r.meaning}</td>
                            <td data-value="">{r.value.clone()}</td>
                            <td>{note}</td>
                        </tr>
                    }
                })
                .collect_view()
        })
    };
    let ignored = move || {
        params.with(|p| {
            p.imported
                .ignored
                .iter()
                .map(|i| {
                    view! { <li data-ignored=i.field.clone()><code>{i.field.clone()}</code>": "{i.reason}</li> }
                })
                .collect_view()
        })
    };
    let shown = move || params.with(|p| p.numbers().shown());
    let save = move |l: &mut ridgeline_core::reader::library::Library, name: &str| {
        l.save_model(name, &params.with_untracked(|p| p.text.clone()))
    };
    view! {
        <figure class="widget own-model" data-widget="own-model">
            <div class="controls">
                <label>"Start from "
                    <select prop:value=move || params.with(|p| p.start.id)
                        on:change=move |ev| { if !state.set("model", &event_target_value(&ev)) { state.refresh(); } }>
                        {model_options}
                    </select>
                </label>
            </div>
            <label class="own-model-text">"config.json (paste your model's)"
                <textarea rows="12" spellcheck="false" autocomplete="off"
                    prop:value=text on:input=move |ev| {
                        // A text too long to import does not stay in the box
                        // either (the last valid one comes back beside the
                        // message): the browser spent a second laying out a
                        // 5 MB paste, with the page frozen.
                        let text = event_target_value(&ev);
                        state.set_or_refresh("config", &text, text.len() > MAX_CONFIG_BYTES);
                    }>
                    {initial}
                </textarea>
            </label>
            <Notice notice=notice />
            <dl class="own-model-numbers">
                <dt>"Parameters"</dt><dd data-total="">{move || shown()[0].clone()}</dd>
                <dt>"Active per token"</dt><dd data-active="">{move || shown()[1].clone()}</dd>
                <dt>"Training FLOPs per token (6 · active)"</dt><dd data-flops="">{move || shown()[2].clone()}</dd>
                <dt>"KV cache per token (bf16, every layer)"</dt><dd data-kv="">{move || shown()[3].clone()}</dd>
            </dl>
            {crate::library::store::save_controls("Save as my model", "model", save)}
            <crate::library::store::LibraryPanel />
            <div class="table-scroll" tabindex="0">
                <table>
                    <caption>"How each field maps to the book's symbols"</caption>
                    <thead><tr>
                        <th scope="col">"field"</th><th scope="col">"symbol"</th><th scope="col">"meaning"</th>
                        <th scope="col">"value"</th><th scope="col">"how it was read"</th>
                    </tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
            <details class="own-model-ignored">
                <summary>"Fields ignored"</summary>
                <ul>{ignored}</ul>
            </details>
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::widgets::params::testing::{assert_pairs_restore, assert_refused_keeps};

    #[test]
    fn the_default_is_a_preset_with_the_books_numbers() {
        let p = OwnModelParams::default();
        assert!(p.is_preset());
        assert_eq!(p.imported.config, p.start.config);
        let n = p.numbers();
        assert_eq!(n.total, params(&p.start.config).total());
    }

    #[test]
    fn llama3_70b_has_the_books_numbers() {
        let mut p = OwnModelParams::default();
        p.apply("model", "llama3-70b").unwrap();
        let n = p.numbers();
        // Part 6: about 70e9 parameters and 6 · 70e9 ≈ 4.2e11 FLOPs per token;
        // KV cache 2·L·K·H·2 bytes = 2·80·8·128·2 = 327,680 bytes per token.
        assert!((n.total / 1e9 - 70.55).abs() < 0.01, "{}", n.total);
        assert!((n.flops_per_token / 4.2e11 - 1.0).abs() < 0.01);
        assert_eq!(n.kv_per_token, 327_680.0);
        assert_eq!(n.shown(), ["7.055e10", "7.055e10", "4.23e11", "328 kB"]);
        p.apply("model", "mixtral-8x7b").unwrap();
        assert_eq!(p.numbers().shown()[0], "4.67e10");
        p.apply("config", MISTRAL).unwrap();
        assert_eq!(p.numbers().shown()[0], "7.242e9");
        let (q, _) = OwnModelParams::from_pairs(&p.to_pairs());
        assert_eq!(
            (q.imported.window, &q.imported.ignored),
            (p.imported.window, &p.imported.ignored)
        );
        assert_eq!(p.numbers().shown()[3], "131 kB");
        assert!(p
            .imported
            .rows
            .iter()
            .any(|r| r.field == "sliding_window" && r.value == "4096"));
        assert!(p.imported.ignored.iter().any(|i| i.field == "rope_theta"));
    }

    /// What the e2e test pastes: Mistral 7B's published fields.
    const MISTRAL: &str = r#"{"architectures": ["MistralForCausalLM"], "model_type": "mistral",
        "hidden_size": 4096, "intermediate_size": 14336, "max_position_embeddings": 32768,
        "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8,
        "rope_theta": 10000.0, "sliding_window": 4096, "tie_word_embeddings": false,
        "vocab_size": 32000}"#;

    #[test]
    fn a_pasted_config_changes_the_numbers_and_round_trips() {
        let mut p = OwnModelParams::default();
        let text = p
            .text
            .replace("\"num_hidden_layers\": 40", "\"num_hidden_layers\": 20");
        assert_ne!(text, p.text, "the default preset has 40 layers");
        p.apply("config", &text).unwrap();
        assert_eq!(p.imported.config.layers, 20);
        assert!(!p.is_preset());
        assert_eq!(p.to_pairs().len(), 2);
        assert_pairs_restore(&p);
    }

    #[test]
    fn bad_input_keeps_the_state_and_names_the_field() {
        let p = OwnModelParams::default();
        let big = " ".repeat(MAX_CONFIG_BYTES + 1);
        let messages = assert_refused_keeps(
            &p,
            &[
                ("config", "{\"model_type\": \"llama\", \"hidden_size\": 0}"),
                ("config", "not json"),
                ("model", "gpt-9"),
                ("colour", "red"),
                ("config", big.as_str()),
            ],
        );
        assert!(messages[0].contains("hidden_size"), "{}", messages[0]);
        assert!(messages[1].contains("JSON"), "{}", messages[1]);
        assert!(messages[4].contains("bytes"), "{}", messages[4]);
    }

    #[test]
    fn every_preset_the_select_offers_imports() {
        for m in MODELS.iter().filter(|m| export(&m.config).is_ok()) {
            let mut p = OwnModelParams::default();
            p.apply("model", m.id).unwrap();
            assert_eq!(p.to_pairs(), vec![("model".to_string(), m.id.to_string())]);
        }
    }
}
