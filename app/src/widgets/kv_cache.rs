//! The KV-cache calculator (`data-widget="kv-cache"`, Part 7): bytes per token,
//! per sequence and for a batch, for a model's own attention and the variants it
//! could have used (multi-head, grouped-query, multi-query). A second model
//! (`vs`) may be set beside it: its cache at the same settings and the batch
//! that fits in the first model's cache.

use super::controls::Notice;
use super::controls::NumberField;
use super::controls::{rounded, LogScale, Slider};
use leptos::prelude::*;
use ridgeline_core::dtype::Dtype;
use ridgeline_core::format::{grouped, sci, si};
use ridgeline_core::inference::{kv_cache, AttentionKind, KvCache};
use ridgeline_core::model::config::{model, ModelConfig, ModelPreset, MODELS};

use super::compare::{compare_picker, compare_table, Comparison, Diff, VS};
use super::controls::option;
use super::params::{WidgetParams, WidgetState};
use crate::input::{parse_count, short};

const STEPS: f64 = 240.0;
/// Largest batch the calculator takes.
pub const BATCH_MAX: f64 = 65_536.0;

/// The formats the KV cache can be stored in here.
pub const FORMATS: [Dtype; 4] = [Dtype::Bf16, Dtype::Fp8, Dtype::Int8, Dtype::Int4];

/// An attention layout for the same model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// As the model was published (GQA, MHA or MLA).
    Published,
    /// One KV head per query head.
    Mha,
    /// Eight KV heads (only where the query heads divide into eight groups).
    Gqa8,
    /// A single KV head.
    Mqa,
}

impl Variant {
    /// Every variant, in display order.
    pub const ALL: [Variant; 4] = [
        Variant::Published,
        Variant::Mha,
        Variant::Gqa8,
        Variant::Mqa,
    ];

    /// Short name for URLs.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Published => "published",
            Variant::Mha => "mha",
            Variant::Gqa8 => "gqa8",
            Variant::Mqa => "mqa",
        }
    }

    /// Parses a short name.
    pub fn parse(text: &str) -> Option<Variant> {
        Variant::ALL.into_iter().find(|v| v.name() == text.trim())
    }

    /// The model's shape with this attention layout; `None` if it makes no sense
    /// for the model (eight KV heads when the query heads are not a multiple of 8).
    pub fn config(self, cfg: &ModelConfig) -> Option<ModelConfig> {
        let with = |k: u64| ModelConfig {
            kv_heads: k,
            mla: None,
            ..*cfg
        };
        match self {
            Variant::Published => Some(*cfg),
            Variant::Mha => Some(with(cfg.heads)),
            Variant::Gqa8 => (cfg.heads > 8 && cfg.heads.is_multiple_of(8)).then(|| with(8)),
            Variant::Mqa => Some(with(1)),
        }
    }
}

/// The reader's choices.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KvParams {
    /// The model.
    pub model: &'static ModelPreset,
    /// The attention layout.
    pub variant: Variant,
    /// Format of the cache.
    pub dtype: Dtype,
    /// Tokens per sequence.
    pub seq: f64,
    /// Sequences.
    pub batch: f64,
    /// A second model, its cache as published beside this one's, if any.
    pub vs: Option<&'static ModelPreset>,
}

impl Default for KvParams {
    fn default() -> Self {
        KvParams {
            model: model("llama3-70b").unwrap_or(&MODELS[0]),
            variant: Variant::Published,
            dtype: Dtype::Bf16,
            seq: 8192.0,
            batch: 32.0,
            vs: None,
        }
    }
}

impl KvParams {
    /// The cache of one variant at these settings.
    pub fn cache_of(&self, v: Variant) -> Option<Result<KvCache, String>> {
        let cfg = v.config(&self.model.config)?;
        Some(kv_cache(&cfg, self.seq, self.batch, self.dtype).map_err(|e| e.to_string()))
    }

    /// The cache of the chosen variant.
    pub fn cache(&self) -> Result<KvCache, String> {
        self.cache_of(self.variant).unwrap_or_else(|| {
            Err(format!(
                "{} has {} query heads, which do not split into 8 KV groups",
                self.model.name, self.model.config.heads
            ))
        })
    }

    /// The second model's cache as published, at the same format, context
    /// (up to its longest) and batch.
    pub fn vs_cache(&self) -> Option<Result<KvCache, String>> {
        let m = self.vs?;
        let seq = self.seq.min(m.config.max_seq as f64);
        Some(kv_cache(&m.config, seq, self.batch, self.dtype).map_err(|e| e.to_string()))
    }

    /// This model's cache beside the second one's: bytes per token, per
    /// sequence and for the batch, and how many of the second model's
    /// sequences fit in the bytes this model's batch takes.
    pub fn comparison(&self) -> Option<Comparison> {
        let (a, b) = (self.cache().ok()?, self.vs_cache()?.ok()?);
        let bytes = |x| si(x, "B", 3);
        Some(Comparison {
            a: format!("{} ({})", self.model.name, self.label(self.variant)),
            b: self.vs?.name.into(),
            rows: vec![
                Diff::number("token", "per token", a.per_token.0, b.per_token.0, bytes),
                Diff::number(
                    "sequence",
                    "per sequence",
                    a.per_sequence.0,
                    b.per_sequence.0,
                    bytes,
                ),
                Diff::number("total", "whole batch", a.total.0, b.total.0, bytes),
                Diff::number(
                    "fits",
                    "sequences in this batch's bytes",
                    self.batch,
                    (a.total / b.per_sequence).floor(),
                    grouped,
                ),
            ],
        })
    }

    /// Label of a variant for this model.
    pub fn label(&self, v: Variant) -> String {
        match v.config(&self.model.config) {
            Some(cfg) => {
                let kind = AttentionKind::of(&cfg).label();
                if v == Variant::Published {
                    format!("{kind}, as published")
                } else {
                    kind
                }
            }
            None => v.name().to_string(),
        }
    }
}

impl WidgetParams for KvParams {
    const ORDER: &'static [&'static [&'static str]] = &[&["model", VS]];

    /// Sets one parameter from text.
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut next = *self;
        match key {
            "model" => {
                next.model = super::controls::model(value)?;
                next.seq = next.seq.min(next.model.config.max_seq as f64);
                if next.variant.config(&next.model.config).is_none() {
                    next.variant = Variant::Published;
                }
            }
            "variant" | "attention" => {
                next.variant = Variant::parse(value)
                    .ok_or_else(|| format!("unknown attention “{}”", short(value)))?
            }
            "dtype" => next.dtype = super::controls::dtype_among(value, &FORMATS, "the KV cache")?,
            VS => next.vs = super::compare::vs_model(value)?,
            "seq" => next.seq = parse_count(value, "context", 1.0, 1e9)?.round(),
            "batch" => next.batch = parse_count(value, "batch", 1.0, BATCH_MAX)?.round(),
            other => return Err(super::params::unknown_setting(other)),
        }
        next.cache()?;
        if let Some(Err(e)) = next.vs_cache() {
            return Err(format!("compared model: {e}"));
        }
        *self = next;
        Ok(())
    }

    /// The parameters as `key=value` pairs.
    fn to_pairs(&self) -> Vec<(String, String)> {
        vec![
            ("model".into(), self.model.id.into()),
            ("variant".into(), self.variant.name().into()),
            ("dtype".into(), self.dtype.name().into()),
            ("seq".into(), format!("{}", self.seq)),
            ("batch".into(), format!("{}", self.batch)),
        ]
        .into_iter()
        .chain(self.vs.map(|m| (VS.into(), m.id.into())))
        .collect()
    }
}

/// The widget.
#[component]
pub fn KvCacheCalc(
    /// The chapter's `key=value` arguments (URL parameters override them).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let state = WidgetState::<KvParams>::new(&args);
    let WidgetState { params, notice } = state;
    let set = move |key: &'static str, value: String| {
        state.set_or_refresh(key, &value, key == VS);
    };
    let vs_id = move || params.with(|p| p.vs.map_or("", |m| m.id));
    let cache = Memo::new(move |_| params.with(|p| p.cache().ok()));
    let show = move |f: fn(&KvCache) -> f64| {
        cache.with(|c| c.as_ref().map(|c| si(f(c), "B", 3)).unwrap_or_default())
    };
    let seq_max = move || params.with(|p| p.model.config.max_seq as f64);
    let dtype_options =
        FORMATS.map(|d| option(d.name(), d.name(), move || params.with(|p| p.dtype.name())));
    let rows = move || {
        let p = params.get();
        Variant::ALL
            .into_iter()
            .filter_map(|v| {
                let c = p.cache_of(v)?.ok()?;
                let chosen = v == p.variant;
                let width = format!("width: {:.1}%", (100.0 / c.reduction()).clamp(0.5, 100.0));
                Some(view! {
                    <tr data-variant=v.name() class:chosen=chosen>
                        <th scope="row">{p.label(v)}</th>
                        <td>{si(c.per_token.0, "B", 3)}</td>
                        <td class="bar-cell"><span class="bar kv" style=width></span>" "{si(c.total.0, "B", 3)}</td>
                        <td>{format!("{}×", sci(c.reduction(), 3))}</td>
                    </tr>
                })
            })
            .collect_view()
    };
    let variant_options = move || {
        let p = params.get();
        Variant::ALL
            .into_iter()
            .filter(|v| v.config(&p.model.config).is_some())
            .map(|v| {
                let selected = v == p.variant;
                view! { <option value=v.name() selected=selected>{p.label(v)}</option> }
            })
            .collect_view()
    };

    view! {
        <figure class="widget kv-cache" data-widget="kv-cache">
            <div class="controls">
                {super::controls::model_picker("Model ", super::controls::any, move || params.with(|p| p.model.id).to_string(), set)}
                <label>"Attention "
                    <select prop:value=move || params.with(|p| p.variant.name()) on:change=move |ev| set("variant", event_target_value(&ev))>{variant_options}</select>
                </label>
                <label>"Cache format "
                    <select prop:value=move || params.with(|p| p.dtype.name()) on:change=move |ev| set("dtype", event_target_value(&ev))>{dtype_options}</select>
                </label>
                {compare_picker(super::controls::model_options(super::controls::any, vs_id), vs_id, set)}
            </div>
            {Slider::positions(STEPS).id("kv-cache-seq").valuetext(move || format!("{} tokens", grouped(params.with(|p| p.seq)))).log_row("Context (tokens)", LogScale::new(STEPS, move || (1.0, seq_max()), rounded), move || params.with(|p| p.seq), "seq", set, NumberField::new("seq", "context length", 8).class("seq-text").view(move || format!("{}", params.with(|p| p.seq)), set))}
            {Slider::positions(STEPS).id("kv-cache-batch").valuetext(move || format!("{} sequences", grouped(params.with(|p| p.batch)))).log_row("Batch (sequences)", LogScale::new(STEPS, move || (1.0, BATCH_MAX), rounded), move || params.with(|p| p.batch), "batch", set, NumberField::new("batch", "batch", 8).class("batch-text").view(move || format!("{}", params.with(|p| p.batch)), set))}
            <dl class="times kv-figures">
                <div><dt>"per token"</dt><dd data-kv="token">{move || show(|c| c.per_token.0)}</dd></div>
                <div><dt>"per sequence"</dt><dd data-kv="sequence">{move || show(|c| c.per_sequence.0)}</dd></div>
                <div><dt>"whole batch"</dt><dd data-kv="total">{move || show(|c| c.total.0)}</dd></div>
                <div><dt>"smaller than MHA"</dt><dd data-kv="reduction">{move || cache.with(|c| c.as_ref().map(|c| format!("{}×", sci(c.reduction(), 3))).unwrap_or_default())}</dd></div>
            </dl>
            {compare_table(move || params.with(|p| p.comparison()))}
            <div class="table-scroll" tabindex="0">
                <table>
                    <thead><tr><th scope="col">"attention"</th><th scope="col">"per token"</th><th scope="col">"whole batch"</th><th scope="col">"vs MHA"</th></tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
            <Notice notice=notice />
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::widgets::params::testing::{assert_pairs_restore, assert_refused_keeps};

    #[test]
    fn llama3_70b_gqa_is_eight_times_smaller() {
        let p = KvParams::default();
        let c = p.cache().unwrap();
        assert_eq!(c.reduction(), 8.0);
        // 2 · K · H · L · bytes = 2·8·128·80·2 per token.
        assert_eq!(c.per_token.0, 327_680.0);
        assert_eq!(c.total.0, 327_680.0 * 8192.0 * 32.0);
        let mha = p.cache_of(Variant::Mha).unwrap().unwrap();
        assert_eq!(mha.reduction(), 1.0);
        let mqa = p.cache_of(Variant::Mqa).unwrap().unwrap();
        assert_eq!(mqa.reduction(), 64.0);
        assert_eq!(p.label(Variant::Published), "GQA (G = 8), as published");
    }

    #[test]
    fn a_second_model_shows_its_cache_and_the_batch_that_fits() {
        use crate::widgets::params::pairs;
        let (p, n) = KvParams::from_pairs(&pairs(&[("vs", "llama3-8b")]));
        assert!(n.is_empty(), "{n:?}");
        let c = p.comparison().unwrap();
        // LLaMA 3 8B: 2·8·128·32·2 = 131,072 bytes per token, 2.5× fewer
        // than 70B's 80 layers, so 2.5 × 32 = 80 of its sequences fit.
        let token = c.row("token").unwrap();
        assert_eq!((token.a.as_str(), token.b.as_str()), ("328 kB", "131 kB"));
        assert_eq!(token.ratio, Some(0.4));
        assert_eq!(c.row("fits").unwrap().b, "80");
        let mut q = p;
        q.apply("variant", "mqa").unwrap();
        let c = q.comparison().unwrap();
        // MQA keeps 2·1·128·80·2 = 40,960 bytes per token: 32 sequences of
        // it hold as much as 32 · 40,960 / 131,072 = 10 sequences of 8B.
        assert_eq!(c.row("fits").unwrap().b, "10");
        assert!(c.a.contains("MQA"), "{}", c.a);
        // A context past the second model's longest is cut to it.
        q.apply("vs", "llama2-13b").unwrap();
        let b = q.vs_cache().unwrap().unwrap();
        let m = model("llama2-13b").unwrap();
        let expected = kv_cache(&m.config, 4096.0, 32.0, Dtype::Bf16).unwrap();
        assert_eq!(b.total, expected.total);
        assert_eq!(
            q.comparison().unwrap().row("total").unwrap().b,
            si(expected.total.0, "B", 3)
        );
    }

    #[test]
    fn vs_round_trips_and_an_unknown_model_is_refused() {
        let mut p = KvParams::default();
        p.apply("vs", "deepseek-v3").unwrap();
        assert_pairs_restore(&p);
        let messages = assert_refused_keeps(&p, &[("vs", "gpt-9")]);
        assert!(messages[0].contains("gpt-9"), "{messages:?}");
        assert!(KvParams::default()
            .to_pairs()
            .iter()
            .all(|(k, _)| k != "vs"));
        p.apply("vs", "none").unwrap();
        assert_eq!(p.comparison(), None);
    }

    #[test]
    fn bad_input_keeps_the_last_state() {
        let mut p = KvParams::default();
        assert_refused_keeps(
            &p,
            &[
                ("seq", "9000"),
                ("batch", "0"),
                ("dtype", "fp64"),
                ("variant", "mla"),
                ("model", "<b>"),
            ],
        );
        p.apply("model", "deepseek-v3").unwrap();
        assert!(matches!(p.cache().unwrap().kind, AttentionKind::Mla { .. }));
        // 128 heads divide into eight groups, so GQA-8 is offered.
        assert!(p.cache_of(Variant::Gqa8).is_some());
        p.apply("model", "llama2-13b").unwrap();
        assert_eq!(p.seq, 4096.0);
        assert!(p.apply("variant", "gqa8").is_ok());
        assert_pairs_restore(&p);
    }
}
