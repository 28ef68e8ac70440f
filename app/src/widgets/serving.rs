//! Serving a model on a slice (`data-widget="serving"`, Part 8): the
//! latency–throughput Pareto curve computed live for a chip, slice, tensor-parallel
//! degree, weight format and context length, and the per-token latency broken
//! into weight loading, KV-cache loading and FLOPs. Configurations that cannot
//! run (weights larger than the replica's HBM, an empty batch, a context longer
//! than the model's) are refused with a notice. A second chip (`vs`) may
//! serve the same model on as many chips beside it: its frontier on the same
//! axes and the difference spelled out.

use super::controls::Notice;
use super::controls::NumberField;
use super::controls::{rounded, LogScale, Slider};
use leptos::prelude::*;
use ridgeline_core::dtype::Dtype;
use ridgeline_core::format::{grouped, sci, seconds, si};
use ridgeline_core::hardware::{chip, Chip, CHIPS};
use ridgeline_core::inference::{
    decode_step, max_batch, memory_use, pareto, pareto_series, MemoryUse, ParetoPoint, Precision,
    ServingModel, ServingSlice,
};
use ridgeline_core::model::config::{model, ModelPreset, MODELS};
use ridgeline_core::roofline::Verdict;

use super::compare::{chip_rows, compare_picker, compare_table, Comparison, Diff, VS};
use super::controls::option;
use super::params::{WidgetParams, WidgetState};
use crate::charts::serving::{draw_breakdown, draw_pareto};
use crate::charts::size::{Frame, Shape, Size};
use crate::charts::svg;
use crate::input::{parse_count, parse_whole};

const STEPS: f64 = 240.0;
/// Points on the Pareto curve.
pub const POINTS: usize = 48;
/// Slice sizes offered.
pub const CHIP_COUNTS: [u64; 9] = [1, 2, 4, 8, 16, 32, 64, 128, 256];
/// Shortest context on the slider.
pub const SEQ_MIN: f64 = 128.0;
/// The Pareto chart's shape (see `charts::size`).
const PARETO: Shape = Shape::new(760, 380, 320);
/// The latency breakdown's shape.
const BREAKDOWN: Shape = Shape::new(760, 340, 300);

/// The formats the serving widget stores weights and KV caches in.
pub const FORMATS: [Dtype; 4] = [Dtype::Bf16, Dtype::Fp8, Dtype::Int8, Dtype::Int4];

/// The reader's choices; always a configuration that can serve at least one sequence.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ServingParams {
    /// The model.
    pub model: &'static ModelPreset,
    /// The accelerator.
    pub chip: &'static Chip,
    /// Chips in the slice.
    pub chips: u64,
    /// Tensor-parallel degree (chips per replica).
    pub tp: u64,
    /// Format of weights and KV caches (FLOPs in bf16).
    pub dtype: Dtype,
    /// Context length of every sequence.
    pub seq: f64,
    /// The batch the readout describes.
    pub batch: f64,
    /// A second chip serving the same model on as many chips, if any.
    pub vs: Option<&'static Chip>,
}

impl Default for ServingParams {
    fn default() -> Self {
        ServingParams {
            model: model("llama3-70b").unwrap_or(&MODELS[0]),
            chip: chip("v5e").unwrap_or(&CHIPS[0]),
            chips: 16,
            tp: 16,
            dtype: Dtype::Int8,
            seq: 2048.0,
            batch: 64.0,
            vs: None,
        }
    }
}

/// Everything the widget shows for one configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct ServingView {
    /// The Pareto curve from batch 1 to the largest that fits.
    pub series: Vec<ParetoPoint>,
    /// The reader's batch.
    pub mark: ParetoPoint,
    /// What one replica's HBM holds at that batch.
    pub memory: MemoryUse,
    /// The largest batch that fits.
    pub max_batch: u64,
}

impl ServingView {
    /// The Pareto curve with the reader's batch marked, and the second
    /// chip's curve (`vs`: its name and view) beside it, as inline SVG.
    pub fn pareto_svg(&self, vs: Option<(&str, &ServingView)>, size: Size) -> String {
        let second = vs.map(|(name, v)| (name, v.series.as_slice()));
        svg(size.width, size.height, |root| {
            draw_pareto(root, &self.series, Some(&self.mark), second, false)
        })
        .0
    }
}

/// The per-token latency along a Pareto curve, split into its three parts, as
/// inline SVG.
pub fn breakdown_svg(series: &[ParetoPoint], size: Size) -> String {
    svg(size.width, size.height, |root| {
        draw_breakdown(root, series, false)
    })
    .0
}

impl ServingParams {
    /// The served model (exact parameter count).
    pub fn serving_model(&self) -> Result<ServingModel, String> {
        ServingModel::new(self.model.config).map_err(|e| e.to_string())
    }

    /// Weights and KV caches in the chosen format, FLOPs in bf16.
    pub fn precision(&self) -> Precision {
        Precision::stored(self.dtype)
    }

    /// The slice split into replicas of `tp` chips.
    pub fn slice(&self) -> Result<ServingSlice, String> {
        ServingSlice::new(self.chip, self.chips)
            .and_then(|s| s.with_tp(self.tp))
            .map_err(|e| e.to_string())
    }

    /// Everything computed, or why this configuration cannot serve.
    pub fn compute(&self) -> Result<ServingView, String> {
        let m = self.serving_model()?;
        let s = self.slice()?;
        let p = self.precision();
        let series = pareto_series(&m, p, &s, self.seq, POINTS).map_err(|e| e.to_string())?;
        let mark = pareto(&m, p, &s, self.seq, &[self.batch])
            .map_err(|e| e.to_string())?
            .into_iter()
            .next()
            .ok_or("no point")?;
        let work = m
            .workload(p, self.batch, self.seq)
            .map_err(|e| e.to_string())?;
        decode_step(&work, &s, p.compute).map_err(|e| e.to_string())?;
        Ok(ServingView {
            series,
            mark,
            memory: memory_use(&work, &s),
            max_batch: max_batch(&m, p, &s, self.seq).map_err(|e| e.to_string())?,
        })
    }
}

impl ServingParams {
    /// The same configuration on the second chip, if one is chosen.
    pub fn versus(&self) -> Option<Result<ServingView, String>> {
        let chip = self.vs?;
        Some(ServingParams { chip, ..*self }.compute())
    }

    /// The chip beside the second one: core's numbers for both chips, then
    /// the largest batch, the latency, throughput and MLP verdict at this batch.
    pub fn comparison(&self) -> Option<Comparison> {
        let vs = self.vs?;
        let (a, b) = (self.compute().ok()?, self.versus()?.ok()?);
        let mut rows = chip_rows(self.chip, vs, Dtype::Bf16);
        rows.extend([
            Diff::number(
                "max-batch",
                "largest batch that fits",
                a.max_batch as f64,
                b.max_batch as f64,
                grouped,
            ),
            Diff::number(
                "latency",
                "latency per token",
                a.mark.step.total.0,
                b.mark.step.total.0,
                seconds,
            ),
            Diff::number(
                "throughput",
                "tokens/s per chip",
                a.mark.tokens_per_sec_per_chip,
                b.mark.tokens_per_sec_per_chip,
                |x| sci(x, 3),
            ),
            Diff::words(
                "verdict",
                "MLP at this batch",
                a.mark.step.mlp_verdict.text(),
                b.mark.step.mlp_verdict.text(),
            ),
        ]);
        Some(Comparison {
            a: self.chip.name.into(),
            b: vs.name.into(),
            rows,
        })
    }
}

impl WidgetParams for ServingParams {
    const ORDER: &'static [&'static [&'static str]] = &[
        &["model"],
        &["chip"],
        &["dtype", "weight"],
        &["chips"],
        &["tp"],
        &[VS],
    ];

    /// Sets one parameter from text; an impossible configuration is refused
    /// with the reason and the params stay as they were.
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut next = *self;
        match key {
            "model" => {
                next.model = super::controls::model(value)?;
                next.seq = next.seq.min(next.model.config.max_seq as f64);
            }
            "chip" => next.chip = super::controls::chip(value)?,
            "chips" => {
                let n = parse_whole::<u64>(value, "chips", 1.0, 4096.0)?;
                if next.tp == next.chips || !n.is_multiple_of(next.tp) {
                    next.tp = n;
                }
                next.chips = n;
            }
            "tp" => next.tp = parse_whole::<u64>(value, "tensor-parallel degree", 1.0, 4096.0)?,
            "dtype" | "weight" => {
                next.dtype = super::controls::dtype_among(value, &FORMATS, "weights and KV caches")?
            }
            VS => next.vs = super::compare::vs_chip(value)?,
            "seq" => next.seq = parse_count(value, "sequence length", 0.0, 1e9)?.round(),
            "batch" => next.batch = parse_count(value, "batch", 0.0, 1e7)?.round(),
            other => return Err(super::params::unknown_setting(other)),
        }
        next.compute()?;
        if let Some(Err(e)) = next.versus() {
            return Err(format!(
                "{} (compared): {e}",
                next.vs.map_or("", |c| c.name)
            ));
        }
        *self = next;
        Ok(())
    }

    /// The parameters as `key=value` pairs.
    fn to_pairs(&self) -> Vec<(String, String)> {
        vec![
            ("model".into(), self.model.id.into()),
            ("chip".into(), self.chip.id.into()),
            ("chips".into(), self.chips.to_string()),
            ("tp".into(), self.tp.to_string()),
            ("dtype".into(), self.dtype.name().into()),
            ("seq".into(), format!("{}", self.seq)),
            ("batch".into(), format!("{}", self.batch)),
        ]
        .into_iter()
        .chain(self.vs.map(|c| (VS.into(), c.id.into())))
        .collect()
    }
}

/// The widget.
#[component]
pub fn Serving(
    /// The chapter's `key=value` arguments (URL parameters override them).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let state = WidgetState::<ServingParams>::new(&args);
    let params = state.params;
    let notice = state.notice;
    let set = move |key: &'static str, value: String| {
        // Put a refused select back to the last valid setting (text fields
        // keep what the reader typed).
        let select = matches!(key, "model" | "chip" | "chips" | "tp" | "dtype" | VS);
        state.set_or_refresh(key, &value, select);
    };
    let view_data = Memo::new(move |_| params.with(|p| p.compute().ok()));
    let vs_data = Memo::new(move |_| params.with(|p| p.versus().and_then(Result::ok)));
    let pareto_frame = Frame::new(PARETO);
    let breakdown_frame = Frame::new(BREAKDOWN);
    let pareto_chart = move || {
        let name = params.with(|p| p.vs.map_or("", |c| c.name));
        view_data.with(|v| {
            vs_data.with(|w| {
                v.as_ref()
                    .map(|v| v.pareto_svg(w.as_ref().map(|w| (name, w)), pareto_frame.get()))
            })
        })
    };
    let vs_id = move || params.with(|p| p.vs.map_or("", |c| c.id));
    // The breakdown does not mark the reader's batch: it is redrawn only when
    // the curve changes.
    let series = Memo::new(move |_| view_data.with(|v| v.as_ref().map(|v| v.series.clone())));
    let breakdown = Memo::new(move |_| {
        let size = breakdown_frame.get();
        series.with(|s| s.as_deref().map(|s| breakdown_svg(s, size)))
    });
    let read = move |f: fn(&ServingView) -> String| {
        view_data.with(|v| v.as_ref().map(f).unwrap_or_default())
    };
    let mlp = move || {
        view_data.with(|v| {
            v.as_ref()
                .map(|v| v.mark.step.mlp_verdict)
                .unwrap_or(Verdict::MemoryBound)
        })
    };
    let seq_max = move || params.with(|p| p.model.config.max_seq as f64);
    let batch_max =
        move || view_data.with(|v| v.as_ref().map(|v| v.max_batch.max(2) as f64).unwrap_or(2.0));
    let count_options = CHIP_COUNTS.map(|n| {
        option(n.to_string(), n.to_string(), move || {
            params.with(|p| p.chips.to_string())
        })
    });
    let tp_options = move || {
        let p = params.get();
        CHIP_COUNTS
            .into_iter()
            .filter(|t| *t <= p.chips && p.chips.is_multiple_of(*t))
            .map(|t| {
                let selected = t == p.tp;
                view! { <option value=t.to_string() selected=selected>{t.to_string()}</option> }
            })
            .collect_view()
    };
    let dtype_options =
        FORMATS.map(|d| option(d.name(), d.name(), move || params.with(|p| p.dtype.name())));

    view! {
        <figure class="widget serving" data-widget="serving">
            <div class="controls">
                {super::controls::model_picker("Model ", super::controls::any, move || params.with(|p| p.model.id).to_string(), set)}
                {super::controls::chip_picker("Chip ", super::controls::any, move || params.with(|p| p.chip.id).to_string(), set)}
                <label>"Chips "
                    <select class="chips" prop:value=move || params.with(|p| p.chips.to_string()) on:change=move |ev| set("chips", event_target_value(&ev))>{count_options}</select>
                </label>
                <label>"TP degree "
                    <select class="tp" prop:value=move || params.with(|p| p.tp.to_string()) on:change=move |ev| set("tp", event_target_value(&ev))>{tp_options}</select>
                </label>
                <label>"Weights and KV "
                    <select class="dtype" prop:value=move || params.with(|p| p.dtype.name()) on:change=move |ev| set("dtype", event_target_value(&ev))>{dtype_options}</select>
                </label>
                {compare_picker(super::controls::chip_options(super::controls::any, vs_id), vs_id, set)}
            </div>
            {Slider::positions(STEPS).id("serving-seq").class("seq").valuetext(move || format!("{} tokens", grouped(params.with(|p| p.seq)))).log_row("Sequence length", LogScale::new(STEPS, move || (SEQ_MIN, seq_max()), rounded), move || params.with(|p| p.seq), "seq", set, NumberField::new("seq", "sequence length", 7).class("seq-text").view(move || format!("{}", params.with(|p| p.seq)), set))}
            {Slider::positions(STEPS).id("serving-batch").class("batch").valuetext(move || format!("{} sequences", grouped(params.with(|p| p.batch)))).log_row("Batch", LogScale::new(STEPS, move || (1.0, batch_max()), rounded), move || params.with(|p| p.batch), "batch", set, NumberField::new("batch", "batch", 7).class("batch-text").view(move || format!("{}", params.with(|p| p.batch)), set))}
            <Notice notice=notice />
            <div class="plot" node_ref=pareto_frame.node style=pareto_frame.style()>
                <div class="layer pareto" inner_html=move || pareto_chart().unwrap_or_default() role="img"
                    aria-label=move || params.with(|p| format!("Latency against throughput per chip for {} on {} {}", p.model.name, p.chips, p.chip.name))></div>
            </div>
            <dl class="times serving-figures">
                <div><dt>"latency per token"</dt><dd data-serving="latency">{move || read(|v| seconds(v.mark.step.total.0))}</dd></div>
                <div><dt>"tokens/s per chip"</dt><dd data-serving="throughput">{move || read(|v| sci(v.mark.tokens_per_sec_per_chip, 3))}</dd></div>
                <div><dt>"weight loading"</dt><dd>{move || read(|v| seconds(v.mark.step.param_load.0))}</dd></div>
                <div><dt>"KV loading"</dt><dd>{move || read(|v| seconds(v.mark.step.kv_load.0))}</dd></div>
                <div><dt>"FLOPs"</dt><dd>{move || read(|v| seconds(v.mark.step.flops.0))}</dd></div>
                <div><dt>"largest batch that fits"</dt><dd data-serving="max-batch">{move || read(|v| grouped(v.max_batch as f64))}</dd></div>
            </dl>
            <p class="verdict-line">
                "At this batch the MLP is "
                <strong class=move || format!("verdict {}", mlp().text()) data-component="linear" data-verdict=move || mlp().text()>{move || mlp().text()}</strong>
                {move || vs_data.with(|w| w.as_ref().map(|w| {
                    let v = w.mark.step.mlp_verdict.text();
                    view! { " (on " {params.with(|p| p.vs.map_or("", |c| c.name))} " " <strong class=format!("verdict {v}") data-vs-verdict=v>{v}</strong> ")" }
                }))}
                "; attention is "
                <strong class="verdict memory-bound" data-component="attention" data-verdict="memory-bound">"memory-bound"</strong>
                ". HBM holds "
                {move || read(|v| format!(
                    "{} of weights and {} of KV caches out of {} per replica{}",
                    si(v.memory.params.0, "B", 3),
                    si(v.memory.kv.0, "B", 3),
                    si(v.memory.capacity.0, "B", 3),
                    if v.memory.fits() { "" } else { " — this batch does not fit" }
                ))}
                "."
            </p>
            {compare_table(move || params.with(|p| p.comparison()))}
            <div class="plot" node_ref=breakdown_frame.node style=breakdown_frame.style()>
                <div class="layer breakdown" inner_html=move || breakdown.get().unwrap_or_default() role="img"
                    aria-label="Latency per token against batch, split into KV loading, weight loading and FLOPs"></div>
            </div>
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::widgets::params::pairs;
    use crate::widgets::params::testing::assert_pairs_restore;

    #[test]
    fn both_charts_are_svg_and_only_the_pareto_marks_the_batch() {
        let mut p = ServingParams::default();
        let v = p.compute().unwrap();
        let (pareto, breakdown) = (
            v.pareto_svg(None, PARETO.design()),
            breakdown_svg(&v.series, BREAKDOWN.design()),
        );
        assert!(pareto.starts_with(r#"<svg class="chart-svg""#), "{pareto}");
        assert!(
            pareto.contains("throughput (tokens/s per chip)"),
            "{pareto}"
        );
        assert!(
            breakdown.contains(r#"viewBox="0 0 760 340""#),
            "{breakdown}"
        );
        assert!(breakdown.contains("batch (sequences)"), "{breakdown}");
        p.apply("batch", "2").unwrap();
        let w = p.compute().unwrap();
        assert_eq!(w.series, v.series, "the curve does not depend on the batch");
        assert_ne!(
            w.pareto_svg(None, PARETO.design()),
            pareto,
            "the mark did not move"
        );
    }

    #[test]
    fn a_second_chip_serves_the_same_model_beside_the_first() {
        let (mut p, n) = ServingParams::from_pairs(&pairs(&[("vs", "v5p")]));
        assert!(n.is_empty(), "{n:?}");
        let v5p = chip("v5p").unwrap();
        let (a, b) = (p.compute().unwrap(), p.versus().unwrap().unwrap());
        let c = p.comparison().unwrap();
        let row = |k: &str| c.row(k).unwrap().clone();
        // The same model on 16 v5p: core's own numbers for that slice.
        let q = ServingParams {
            chip: v5p,
            ..ServingParams::default()
        };
        let direct = q.compute().unwrap();
        assert_eq!(b, direct);
        assert_eq!(row("max-batch").a, grouped(a.max_batch as f64));
        assert_eq!(row("max-batch").b, grouped(direct.max_batch as f64));
        assert!(
            direct.max_batch > a.max_batch,
            "a v5p's HBM holds more KV than a v5e's 16 GB"
        );
        assert_eq!(row("latency").b, seconds(direct.mark.step.total.0));
        assert_eq!(row("hbm").b, si(v5p.hbm_capacity.value.0, "B", 3));
        assert_eq!(row("verdict").a, "memory-bound");
        // The second frontier is drawn in its own colour and named.
        let svg = a.pareto_svg(Some((v5p.name, &b)), PARETO.design());
        assert!(svg.contains("on TPU v5p"), "{svg}");
        let vermillion = crate::charts::svg_colour(crate::charts::palette(false).series[5]);
        assert!(svg.contains(&vermillion));
        assert!(!a.pareto_svg(None, PARETO.design()).contains(&vermillion));
        // A slice the second chip cannot serve on is refused with its name:
        // 70 GB of int8 weights fit on two v5p but not on two v5e.
        p.apply("vs", "none").unwrap();
        p.apply("chip", "v5p").unwrap();
        p.apply("chips", "2").unwrap();
        let e = p.apply("vs", "v5e").unwrap_err();
        assert!(
            e.contains("TPU v5e (compared)") && e.contains("weights alone"),
            "{e}"
        );
        p.apply("vs", "h100").unwrap();
        assert_pairs_restore(&p);
        let messages = crate::widgets::params::testing::assert_refused_keeps(
            &p,
            &[("vs", "h900"), ("vs", "v5e")],
        );
        assert!(messages[0].contains("h900"), "{messages:?}");
        p.apply("vs", "none").unwrap();
        assert_eq!(p.comparison(), None);
        assert!(p.to_pairs().iter().all(|(k, _)| k != "vs"));
    }

    #[test]
    fn fp8_is_offered_and_a_format_the_select_lacks_is_refused() {
        // fp8 weights and caches: one byte each, as int8, so the same slice
        // holds the same batch.
        let mut p = ServingParams::default();
        p.apply("dtype", "fp8").unwrap();
        assert_eq!(p.dtype, Dtype::Fp8);
        let (fp8, int8) = (
            p.compute().unwrap().max_batch,
            ServingParams::default().compute().unwrap().max_batch,
        );
        assert_eq!(fp8, int8);
        let args = vec![("dtype".to_string(), "fp8".to_string())];
        let html = Owner::new().with(|| view! { <Serving args=args /> }.to_html());
        assert!(html.contains(r#"<option value="fp8" selected"#), "{html}");
        // A link naming f32 (which the inference roofline also lacks) is
        // refused by name, and the last valid format stays.
        let e = p.apply("dtype", "f32").unwrap_err();
        assert_eq!(
            e,
            "weights and KV caches in bf16, fp8, int8 or int4, not “f32”"
        );
        assert_eq!(p.dtype, Dtype::Fp8);
    }

    #[test]
    fn default_is_the_books_int8_4x4() {
        let p = ServingParams::default();
        let v = p.compute().unwrap();
        assert!(v.series.len() > 10);
        assert_eq!(v.series[0].batch, 1.0);
        assert!(v.memory.fits());
        assert_eq!(v.mark.step.mlp_verdict, Verdict::MemoryBound);
    }

    #[test]
    fn impossible_configurations_are_refused() {
        let mut p = ServingParams::default();
        let e = p.apply("chips", "1").unwrap_err();
        assert!(e.contains("weights alone"), "{e}");
        assert_eq!(p, ServingParams::default());
        assert!(p.apply("batch", "0").unwrap_err().contains("batch"));
        assert!(p.apply("seq", "100000").unwrap_err().contains("context"));
        assert!(p.apply("seq", "0").is_err());
        assert!(p.apply("tp", "3").is_err());
        assert!(p.apply("dtype", "bf16").is_ok(), "bf16 fits on 16 v5e");
        assert!(
            p.apply("chips", "8").is_err(),
            "141 GB of bf16 weights do not fit in 128 GB"
        );
        let (q, n) =
            ServingParams::from_pairs(&pairs(&[("chips", "4"), ("tp", "3"), ("dtype", "bf16")]));
        assert_eq!(q.dtype, Dtype::Bf16);
        assert_eq!((q.chips, q.tp), (16, 16));
        assert_eq!(n.len(), 2, "{n:?}");
    }

    #[test]
    fn longer_sequences_shrink_the_batch_and_pairs_round_trip() {
        let mut p = ServingParams::default();
        let short = p.compute().unwrap().max_batch;
        p.apply("seq", "8192").unwrap();
        assert!(p.compute().unwrap().max_batch < short);
        p.apply("chips", "32").unwrap();
        assert_eq!(p.tp, 32);
        p.apply("tp", "16").unwrap();
        assert_eq!(p.slice().unwrap().replicas(), 2);
        p.apply("chips", "64").unwrap();
        assert_eq!(p.tp, 16, "a TP degree that divides the new slice is kept");
        assert_pairs_restore(&p);
    }
}
