//! The Transformer calculator (`data-widget="transformer"`): pick a published
//! model or type its shape, and see where its parameters live, how a layer's
//! FLOPs split between the MLP and attention as the context grows, and how big
//! its KV cache is. A second model (`vs`) may be shown beside it: parameter,
//! FLOP and KV-cache counts side by side with their ratio.

use super::controls::Notice;
use super::controls::NumberField;
use super::controls::{rounded, LogScale, Slider};
use leptos::prelude::*;
use ridgeline_core::dtype::Dtype;
use ridgeline_core::format::{grouped, sci, si};
use ridgeline_core::model::accounting::{
    attention_crossover, attention_fraction, flops, kv_bytes_per_token, kv_cache_bytes, params,
    Pass,
};
use ridgeline_core::model::config::{
    model, parse_dim, ModelConfig, ModelPreset, MAX_D_FF, MAX_D_MODEL, MAX_HEADS, MAX_HEAD_DIM,
    MAX_LAYERS, MAX_VOCAB, MODELS,
};

use super::compare::{compare_picker, compare_table, Comparison, Diff, VS};
use super::controls::option;
use super::params::{WidgetParams, WidgetState};
use crate::charts::size::{Frame, Shape, Size};
use crate::charts::svg;
use crate::charts::transformer::{
    billions, draw_fraction, draw_fraction_marker, draw_params, FractionModel, T_RANGE,
};
use crate::input::{parse_count, slider_to_value};

/// Slider positions for the sequence length.
pub const STEPS: f64 = 300.0;
/// The parameter bars' shape (see `charts::size`).
const BARS: Shape = Shape::new(760, 230, 220);
/// The FLOP-share plot's shape (on a phone 340 px high: its key under the
/// plot has four rows).
const FRACTION: Shape = Shape::new(760, 360, 340);

/// The formats a KV cache may be stored in.
pub const KV_DTYPES: [Dtype; 4] = [Dtype::F32, Dtype::Bf16, Dtype::Int8, Dtype::Int4];

/// Everything the reader can set; always a valid model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TransformerParams {
    /// The preset the shape equals, or `None` once the reader edits it away.
    pub preset: Option<&'static str>,
    /// The preset the shape started from: an edited shape keeps its other
    /// fields (gating, tied embeddings, experts), and its link names it.
    pub base: &'static str,
    /// The shape.
    pub cfg: ModelConfig,
    /// Sequence length `T` for the FLOP split and the per-sequence KV cache.
    pub seq: f64,
    /// KV-cache format.
    pub kv_dtype: Dtype,
    /// A second model shown beside this shape, if any.
    pub vs: Option<&'static ModelPreset>,
}

impl Default for TransformerParams {
    fn default() -> Self {
        let preset = model("llama3-70b").unwrap_or(&MODELS[0]);
        TransformerParams {
            preset: Some(preset.id),
            base: preset.id,
            cfg: preset.config,
            seq: 8192.0,
            kv_dtype: Dtype::Bf16,
            vs: None,
        }
    }
}

/// One parameter bar: the component's name and its count.
pub type ParamBar = (&'static str, f64);

impl TransformerParams {
    /// The base preset's id if the shape equals that preset's again.
    fn matching_preset(&self) -> Option<&'static str> {
        crate::library::resolve_model(self.base)
            .filter(|m| m.config == self.cfg)
            .map(|m| m.id)
    }

    /// The shape in the book's letters, `D = 8,192, F = 28,672, …`, for the
    /// sentence that says which shape a stale figure shows.
    pub fn shape_label(&self) -> String {
        let c = &self.cfg;
        [
            ("D", c.d_model),
            ("F", c.d_ff),
            ("L", c.layers),
            ("N", c.heads),
            ("K", c.kv_heads),
            ("H", c.head_dim),
            ("V", c.vocab),
        ]
        .map(|(k, v)| format!("{k} = {}", grouped(v as f64)))
        .join(", ")
    }

    /// Parameter counts by component (the router only for an MoE), and the total.
    pub fn bars(&self) -> (Vec<ParamBar>, f64) {
        let p = params(&self.cfg);
        let mut bars = vec![
            ("MLP", p.mlp),
            ("attention", p.attention),
            ("embeddings", p.vocab()),
            ("norms", p.norms),
        ];
        if p.router > 0.0 {
            bars.push(("router", p.router));
        }
        (bars, p.total())
    }

    /// The fraction plot's static model.
    pub fn fraction_model(&self) -> FractionModel {
        let curve = (0..=120)
            .map(|i| {
                let t = slider_to_value(i as f64, 120.0, T_RANGE.0, T_RANGE.1);
                (
                    t,
                    attention_fraction(&self.cfg, t, false).unwrap_or(f64::NAN),
                )
            })
            .filter(|(_, f)| f.is_finite())
            .collect();
        FractionModel {
            curve,
            crossover: attention_crossover(&self.cfg),
            eight_d: 8.0 * self.cfg.d_model as f64,
        }
    }

    /// Shares of a layer's training FLOPs at the current length, non-causal:
    /// (MLP, Q/K/V/O projections, dot-product attention), summing to one.
    pub fn split(&self) -> (f64, f64, f64) {
        let att = attention_fraction(&self.cfg, self.seq, false).unwrap_or(f64::NAN);
        match flops(&self.cfg, 1.0, self.seq, Pass::Training, false) {
            Ok(f) => {
                let (mlp, proj) = (f.mlp.0 + f.router.0, f.attention_projections.0);
                let rest = 1.0 - att;
                (rest * mlp / (mlp + proj), rest * proj / (mlp + proj), att)
            }
            Err(_) => (f64::NAN, f64::NAN, att),
        }
    }

    /// The parameter bars as inline SVG.
    pub fn bars_svg(&self, size: Size) -> String {
        let (bars, _) = self.bars();
        svg(size.width, size.height, |root| {
            draw_params(root, &bars, false)
        })
        .0
    }

    /// The attention share against the length, as inline SVG (the static layer).
    pub fn fraction_svg(&self, size: Size) -> String {
        let m = self.fraction_model();
        svg(size.width, size.height, |root| {
            draw_fraction(root, &m, false)
        })
        .0
    }

    /// The marker at the current length, as inline SVG (the moving layer).
    pub fn marker_svg(&self, size: Size) -> String {
        let (_, _, att) = self.split();
        svg(size.width, size.height, |root| {
            draw_fraction_marker(root, self.seq, att, false)
        })
        .0
    }

    /// Training FLOPs per token at the current length (non-causal, with the unembedding).
    pub fn flops_per_token(&self) -> f64 {
        flops(&self.cfg, 1.0, self.seq, Pass::Training, false)
            .map(|f| f.total().0 / self.seq)
            .unwrap_or(f64::NAN)
    }

    /// This shape beside the second model at the same length and KV format:
    /// core's parameter, FLOP and KV-cache counts for each, with their ratio.
    pub fn comparison(&self) -> Option<Comparison> {
        let vs = self.vs?;
        let other = TransformerParams {
            preset: Some(vs.id),
            base: vs.id,
            cfg: vs.config,
            vs: None,
            ..*self
        };
        let (a, b) = (params(&self.cfg), params(&vs.config));
        let (ka, kb) = (self.kv(), other.kv());
        let name = match self.preset {
            Some(_) => crate::library::resolve_model(self.base).map_or(self.base, |m| m.name),
            None => "custom shape",
        };
        Some(Comparison {
            a: name.into(),
            b: vs.name.into(),
            rows: vec![
                Diff::number("params", "parameters", a.total(), b.total(), billions),
                Diff::number("mlp", "in the MLP", a.mlp, b.mlp, billions),
                Diff::number(
                    "attention",
                    "in attention",
                    a.attention,
                    b.attention,
                    billions,
                ),
                Diff::number(
                    "embeddings",
                    "in embeddings",
                    a.vocab(),
                    b.vocab(),
                    billions,
                ),
                Diff::number(
                    "flops-per-token",
                    format!("training FLOPs per token at T = {}", grouped(self.seq)),
                    self.flops_per_token(),
                    other.flops_per_token(),
                    |x| sci(x, 3),
                ),
                Diff::number(
                    "attention-share",
                    "FLOPs in dot-product attention",
                    self.split().2,
                    other.split().2,
                    pct,
                ),
                Diff::number("kv-token", "KV cache per token", ka.0, kb.0, |x| {
                    si(x, "B", 3)
                }),
                Diff::number("kv-seq", "KV cache per sequence", ka.1, kb.1, |x| {
                    si(x, "B", 3)
                }),
            ],
        })
    }

    /// KV-cache bytes: per token, per sequence of the current length.
    pub fn kv(&self) -> (f64, f64) {
        (
            kv_bytes_per_token(&self.cfg, self.kv_dtype).0,
            kv_cache_bytes(&self.cfg, self.seq, 1.0, self.kv_dtype)
                .map(|b| b.0)
                .unwrap_or(f64::NAN),
        )
    }
}

impl WidgetParams for TransformerParams {
    const ORDER: &'static [&'static [&'static str]] = &[&["model"]];

    /// Sets one parameter from text, or explains why not (nothing changes then).
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut next = *self;
        if let Some(set) = set_dim(&mut next.cfg, key, value) {
            set?;
            next.cfg.validate().map_err(|e| e.to_string())?;
            next.preset = next.matching_preset();
            *self = next;
            return Ok(());
        }
        match key {
            "model" => {
                let m = super::controls::model(value)?;
                next.preset = Some(m.id);
                next.base = m.id;
                next.cfg = m.config;
            }
            "seq" => {
                next.seq = parse_count(value, "sequence length", T_RANGE.0, T_RANGE.1)?.round()
            }
            VS => next.vs = super::compare::vs_model(value)?,
            "dtype" => {
                let d = super::controls::dtype_among(value, &KV_DTYPES, "the KV cache")?;
                next.kv_dtype = d;
            }
            other => return Err(super::params::unknown_setting(other)),
        }
        *self = next;
        Ok(())
    }

    /// The preset first, then the shape's fields all at once (each checked on
    /// its own, the whole shape once: a link's fields may only be valid
    /// together), then the rest in the pairs' order.
    fn from_pairs(pairs: &[(String, String)]) -> (Self, Vec<String>) {
        let mut p = Self::default();
        let mut notices = Vec::new();
        let mut refuse = |r: Result<(), String>| {
            if let Err(e) = r {
                notices.push(e);
            }
        };
        for (k, v) in pairs.iter().filter(|(k, _)| k == "model") {
            refuse(p.apply(k, v));
        }
        let mut cfg = p.cfg;
        let mut shaped = false;
        for (k, v) in pairs {
            if let Some(set) = set_dim(&mut cfg, k, v) {
                shaped |= set.is_ok();
                refuse(set);
            }
        }
        if shaped {
            refuse(cfg.validate().map_err(|e| e.to_string()).map(|()| {
                p.cfg = cfg;
                p.preset = p.matching_preset();
            }));
        }
        for (k, v) in pairs {
            if k != "model" && !SHAPE_KEYS.contains(&k.as_str()) {
                refuse(p.apply(k, v));
            }
        }
        (p, notices)
    }

    /// The parameters as `key=value` pairs: the preset, then the shape if edited.
    fn to_pairs(&self) -> Vec<(String, String)> {
        let mut out = vec![("model".into(), self.base.to_string())];
        if self.preset.is_none() {
            let c = &self.cfg;
            let dims = [
                c.d_model, c.d_ff, c.layers, c.heads, c.kv_heads, c.head_dim, c.vocab,
            ];
            for (k, v) in SHAPE_KEYS.iter().zip(dims) {
                out.push((k.to_string(), v.to_string()));
            }
        }
        out.push(("seq".into(), format!("{}", self.seq)));
        out.push(("dtype".into(), self.kv_dtype.name().into()));
        out.extend(self.vs.map(|vs| (VS.into(), vs.id.into())));
        out
    }
}

/// The URL keys of the shape's fields.
const SHAPE_KEYS: [&str; 7] = ["d", "f", "l", "n", "k", "h", "v"];

/// Sets one field of the shape from text, checked on its own (not the whole
/// shape); `None` if `key` is not a field of the shape.
fn set_dim(cfg: &mut ModelConfig, key: &str, value: &str) -> Option<Result<(), String>> {
    let (field, max, slot) = match key {
        "d" => ("d_model (D)", MAX_D_MODEL, &mut cfg.d_model),
        "f" => ("d_ff (F)", MAX_D_FF, &mut cfg.d_ff),
        "l" => ("layers (L)", MAX_LAYERS, &mut cfg.layers),
        "n" => ("query heads (N)", MAX_HEADS, &mut cfg.heads),
        "k" => ("key/value heads (K)", MAX_HEADS, &mut cfg.kv_heads),
        "h" => ("head dimension (H)", MAX_HEAD_DIM, &mut cfg.head_dim),
        "v" => ("vocabulary (V)", MAX_VOCAB, &mut cfg.vocab),
        _ => return None,
    };
    Some(
        parse_count(value, field, 1.0, max as f64)
            .and_then(|v| parse_dim(field, v, max).map_err(|e| e.to_string()))
            .map(|v| *slot = v),
    )
}

fn pct(x: f64) -> String {
    format!("{}%", sci(100.0 * x, 3))
}

/// The Transformer calculator.
#[component]
pub fn Transformer(
    /// The chapter's `key=value` arguments (URL parameters override them).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let state = WidgetState::<TransformerParams>::new(&args);
    let WidgetState { params, notice } = state;
    // A refused field keeps the reader's text while everything below still
    // shows the last valid shape: marked stale until an input is accepted.
    let stale = RwSignal::new(false);
    let set = move |key: &'static str, value: String| {
        stale.set(!state.set(key, &value));
    };

    let cfg = Memo::new(move |_| params.with(|p| p.cfg));
    // The bars and the curve depend on the shape alone, not on the length.
    let bars_frame = Frame::new(BARS);
    let fraction_frame = Frame::new(FRACTION);
    let bars = Memo::new(move |_| {
        let _ = cfg.get();
        let size = bars_frame.get();
        params.with_untracked(|p| p.bars_svg(size))
    });
    let fraction = Memo::new(move |_| {
        let _ = cfg.get();
        let size = fraction_frame.get();
        params.with_untracked(|p| p.fraction_svg(size))
    });
    let marker = move || params.with(|p| p.marker_svg(fraction_frame.get()));

    let model_options = super::controls::model_options(super::controls::any, move || {
        params.with(|p| p.preset.unwrap_or(""))
    });
    let vs_id = move || params.with(|p| p.vs.map_or("", |m| m.id));
    let vs_options = super::controls::model_options(super::controls::any, vs_id);
    let dtype_options = KV_DTYPES
        .map(|d| {
            option(d.name(), d.name(), move || {
                params.with(|p| p.kv_dtype.name())
            })
        })
        .collect_view();
    let dim = move |key: &'static str,
                    label: &'static str,
                    aria: &'static str,
                    get: fn(&ModelConfig) -> u64| {
        view! {
            <label>
                {label}
                {NumberField::new(key, aria, 7).class(format!("dim-{key}")).on_change().view(move || cfg.with(|c| get(c).to_string()), set)}
            </label>
        }
    };
    let table = move || {
        let (bars, total) = params.with(|p| p.bars());
        let rows = bars
            .into_iter()
            .map(|(name, v)| {
                view! { <tr><th scope="row">{name}</th><td>{billions(v)}</td><td>{grouped(v)}</td></tr> }
            })
            .collect_view();
        view! {
            {rows}
            <tr class="total"><th scope="row">"total"</th><td data-total-params="">{billions(total)}</td><td>{grouped(total)}</td></tr>
        }
    };

    // The figures a refused input leaves stale, as one erased view (the whole
    // figure as one static type is deeper than the compiler allows).
    let results = view! {
        <h4>"Where the parameters live"</h4>
        <div class="plot" node_ref=bars_frame.node style=bars_frame.style()><div class="layer" inner_html=move || bars.get() role="img"
            aria-label=move || params.with(|p| format!("parameters by component, {} in total", billions(p.bars().1)))></div></div>
        <div class="table-scroll" tabindex="0">
            <table class="params-table">
                <thead><tr><th scope="col">"component"</th><th scope="col">"parameters"</th><th scope="col">"exact"</th></tr></thead>
                <tbody>{table}</tbody>
            </table>
        </div>
        {compare_table(move || params.with(|p| p.comparison()))}
        <h4>"FLOPs: MLP against attention"</h4>
        <div class="plot" node_ref=fraction_frame.node style=fraction_frame.style()>
            <div class="layer" aria-hidden="true" inner_html=move || fraction.get()></div>
            <div class="layer overlay" inner_html=marker role="img"
                aria-label=move || params.with(|p| format!("attention share {} at T = {}", pct(p.split().2), grouped(p.seq)))></div>
        </div>
        {Slider::positions(STEPS).id("transformer-seq").valuetext(move || format!("T = {}", grouped(params.with(|p| p.seq)))).log_row("Sequence length T", LogScale::new(STEPS, move || (T_RANGE.0, T_RANGE.1), rounded), move || params.with(|p| p.seq), "seq", set, view! { <output>{move || format!("T = {}", grouped(params.with(|p| p.seq)))}</output> })}
        <p class="split" data-split="">
            {move || params.with(|p| {
                let (mlp, proj, att) = p.split();
                format!(
                    "At T = {}, a layer spends {} of its FLOPs in the MLP, {} in the Q/K/V/O projections and {} in dot-product attention; training costs {} FLOPs per token.",
                    grouped(p.seq), pct(mlp), pct(proj), pct(att), sci(p.flops_per_token(), 3)
                )
            })}
        </p>
        <h4>"KV cache"</h4>
        <div class="controls">
            <label>"Stored as "
                <select prop:value=move || params.with(|p| p.kv_dtype.name())
                    on:change=move |ev| set("dtype", event_target_value(&ev))>{dtype_options}</select>
            </label>
        </div>
        <dl class="times">
            <div><dt>"per token"</dt><dd data-kv-token="">{move || si(params.with(|p| p.kv().0), "B", 3)}</dd></div>
            <div><dt>"per sequence of T tokens"</dt><dd data-kv-seq="">{move || si(params.with(|p| p.kv().1), "B", 3)}</dd></div>
            <div><dt>"K/V heads per query head"</dt><dd>{move || format!("1/{}", sci(cfg.with(|c| c.group()), 3))}</dd></div>
        </dl>
    }
    .into_any();

    view! {
        <figure class="widget transformer" data-widget="transformer">
            <div class="controls">
                <label>"Model "
                    <select prop:value=move || params.with(|p| p.preset.unwrap_or(""))
                        on:change=move |ev| set("model", event_target_value(&ev))>
                        <option value="" disabled=true selected=move || params.with(|p| p.preset.is_none())>"custom shape"</option>
                        {model_options}
                    </select>
                </label>
                {compare_picker(vs_options, vs_id, set)}
            </div>
            <div class="controls shapes">
                {dim("d", "D ", "model width D", |c| c.d_model)}
                {dim("f", "F ", "MLP width F", |c| c.d_ff)}
                {dim("l", "L ", "layers L", |c| c.layers)}
                {dim("n", "N ", "query heads N", |c| c.heads)}
                {dim("k", "K ", "key/value heads K", |c| c.kv_heads)}
                {dim("h", "H ", "head dimension H", |c| c.head_dim)}
                {dim("v", "V ", "vocabulary V", |c| c.vocab)}
            </div>
            <Notice notice=notice />
            <p class="stale-note" data-stale-note="" hidden=move || !stale.get()>
                {move || params.with(|p| format!("Everything below still shows the last valid shape ({}), not the refused value.", p.shape_label()))}
            </p>
            <div class="results" class:stale=move || stale.get() data-stale=move || stale.get().then_some("")>{results}</div>
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::widgets::params::pairs;
    use crate::widgets::params::testing::{
        assert_pairs_restore, assert_refused_keeps, assert_round_trip,
    };

    #[test]
    fn charts_are_svg_with_names_and_a_marker_that_follows_t() {
        let mut p = TransformerParams::default();
        let bars = p.bars_svg(BARS.design());
        assert!(bars.starts_with(r#"<svg class="chart-svg""#), "{bars}");
        assert!(bars.contains(r#"viewBox="0 0 760 230""#), "{bars}");
        assert!(bars.contains("MLP") && bars.contains("56.4B"), "{bars}");
        let fraction = p.fraction_svg(FRACTION.design());
        assert!(fraction.contains(r#"viewBox="0 0 760 360""#), "{fraction}");
        let marker = p.marker_svg(FRACTION.design());
        assert_eq!(marker.matches("<circle").count(), 1, "{marker}");
        p.apply("seq", "65536").unwrap();
        assert_ne!(p.marker_svg(FRACTION.design()), marker);
        assert_eq!(
            p.fraction_svg(FRACTION.design()),
            fraction,
            "T moves the marker only"
        );
    }

    #[test]
    fn the_stale_sentence_names_the_last_valid_shape() {
        let mut p = TransformerParams::default();
        assert!(p.apply("k", "7").is_err());
        let label = p.shape_label();
        assert!(label.starts_with("D = 8,192, F = 28,672"), "{label}");
        assert!(label.contains("K = 8"), "{label}");
    }

    #[test]
    fn default_is_llama3_70b() {
        let p = TransformerParams::default();
        assert_eq!(p.preset, Some("llama3-70b"));
        let (bars, total) = p.bars();
        assert_eq!(billions(total), "70.6B");
        assert_eq!(bars[0].0, "MLP");
        assert_eq!(billions(bars[0].1), "56.4B");
        let (mlp, proj, att) = p.split();
        assert!((mlp + proj + att - 1.0).abs() < 1e-9);
        assert!(att < 0.2 && mlp > proj);
        assert_eq!(si(p.kv().0, "B", 3), "328 kB");
    }

    #[test]
    fn bad_shapes_are_refused_with_a_reason() {
        let mut p = TransformerParams::default();
        let messages = assert_refused_keeps(
            &p,
            &[
                ("k", "7"),
                ("d", "0"),
                ("d", "abc"),
                ("l", "2.5"),
                ("v", "1e99"),
                ("seq", "-1"),
                ("dtype", "fp4"),
                ("model", "gpt-9"),
                ("zz", "1"),
            ],
        );
        assert!(messages[0].contains("divide"), "{}", messages[0]);
        p.apply("n", "32").unwrap();
        assert_eq!(p.preset, None);
        assert_eq!(p.cfg.heads, 32);
    }

    #[test]
    fn an_edited_preset_keeps_its_other_fields_in_the_link() {
        let mut p = TransformerParams::default();
        p.apply("model", "deepseek-v3").unwrap();
        p.apply("f", "2").unwrap();
        assert_eq!((p.preset, p.base), (None, "deepseek-v3"));
        let pairs = p.to_pairs();
        assert_eq!(pairs[0], ("model".to_string(), "deepseek-v3".to_string()));
        assert_pairs_restore(&p);
        let (q, _) = TransformerParams::from_pairs(&pairs);
        assert!(q.cfg.moe.is_some(), "the experts come from the preset");
        // Editing the field back gives the preset again, and a short link.
        let f = model("deepseek-v3").unwrap().config.d_ff;
        p.apply("f", &f.to_string()).unwrap();
        assert_eq!(p.preset, Some("deepseek-v3"));
        assert!(p.to_pairs().iter().all(|(k, _)| k != "f"));
    }

    #[test]
    fn a_shape_valid_only_as_a_whole_rebuilds_from_its_link() {
        // From 64 query heads over 8: 48 heads, then 3 K/V heads, then 57 heads.
        // 57 over the preset's 8 K/V heads is refused, so the link's fields
        // must be checked together.
        let mut p = TransformerParams::default();
        for (k, v) in [("n", "48"), ("k", "3"), ("n", "57")] {
            p.apply(k, v).unwrap();
        }
        let (q, n) = TransformerParams::from_pairs(&p.to_pairs());
        assert!(n.is_empty(), "{n:?}");
        assert_eq!(q, p);
        let (_, n) = TransformerParams::from_pairs(&pairs(&[("n", "57")]));
        assert!(n[0].contains("divide"), "{n:?}");
    }

    #[test]
    fn a_second_model_shows_cores_counts_side_by_side() {
        let (p, n) = TransformerParams::from_pairs(&pairs(&[("vs", "llama3-8b")]));
        assert!(n.is_empty(), "{n:?}");
        let c = p.comparison().unwrap();
        assert_eq!((c.a.as_str(), c.b.as_str()), ("LLaMA 3 70B", "LLaMA 3 8B"));
        let eight = model("llama3-8b").unwrap();
        let total = c.row("params").unwrap();
        assert_eq!(total.a, "70.6B");
        assert_eq!(total.b, billions(params(&eight.config).total()));
        assert_eq!(total.b, "8.03B");
        // The compared numbers are what the calculator shows for that model.
        let (q, _) = TransformerParams::from_pairs(&pairs(&[("model", "llama3-8b")]));
        assert_eq!(
            c.row("flops-per-token").unwrap().b,
            sci(q.flops_per_token(), 3)
        );
        assert_eq!(c.row("kv-token").unwrap().b, si(q.kv().0, "B", 3));
        assert_eq!(c.row("kv-token").unwrap().a, "328 kB");
        // An edited shape is named as such.
        let mut edited = p;
        edited.apply("l", "40").unwrap();
        assert_eq!(edited.comparison().unwrap().a, "custom shape");
    }

    #[test]
    fn vs_round_trips_with_an_edited_shape_and_bad_ids_are_refused() {
        let p: TransformerParams = assert_round_trip(&[
            ("model", "deepseek-v3"),
            ("f", "4096"),
            ("vs", "llama3-405b"),
        ]);
        assert_eq!(p.vs.map(|m| m.id), Some("llama3-405b"));
        let messages = assert_refused_keeps(&p, &[("vs", "gpt-9"), ("vs", "my:none")]);
        assert!(messages[0].contains("gpt-9"), "{messages:?}");
        let mut q = p;
        q.apply("vs", "").unwrap();
        assert_eq!(q.comparison(), None);
    }

    #[test]
    fn pairs_round_trip_and_presets_all_work() {
        let p: TransformerParams =
            assert_round_trip(&[("d", "4096"), ("model", "llama3-8b"), ("seq", "65536")]);
        assert_eq!(p.cfg.d_model, 4096);
        for m in MODELS {
            let (p, n) = TransformerParams::from_pairs(&pairs(&[("model", m.id)]));
            assert!(n.is_empty());
            assert!(p.bars().1 > 0.0);
            assert!(p.fraction_model().curve.len() > 100);
            assert!(p.kv().1 > 0.0);
        }
    }
}
