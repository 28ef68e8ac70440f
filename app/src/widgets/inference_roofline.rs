//! Prefill and decode on one roofline (`data-widget="inference-roofline"`,
//! Part 7): a layer's weight matmuls and its attention as two points for a
//! model, chip, precision and phase. Dragging the batch moves the linear part
//! across the ridge; decode attention stays memory-bound at any batch. A
//! second chip (`vs`) may be drawn on the same axes, with both components'
//! verdicts on it and the difference between the chips spelled out.

use super::controls::Notice;
use super::controls::NumberField;
use super::controls::{rounded, LogScale, Slider};
use leptos::prelude::*;
use ridgeline_core::dtype::Dtype;
use ridgeline_core::format::{grouped, sci, seconds};
use ridgeline_core::hardware::{chip, Chip, CHIPS};
use ridgeline_core::inference::{
    component_rooflines, ComponentRoofline, InferenceError, Phase, Precision, ServingModel,
};
use ridgeline_core::model::config::{model, ModelPreset, MODELS};
use ridgeline_core::roofline::Verdict;

use super::compare::{chip_rows, compare_picker, compare_table, Comparison, Diff, VS};
use super::controls::option;
use super::params::{WidgetParams, WidgetState};
use crate::charts::inference::{draw_components, ComponentPoint};
use crate::charts::roofline::{draw_static, RoofModel};
use crate::charts::size::{Frame, Shape, Size};
use crate::charts::svg;
use crate::input::{parse_count, short};

/// Batch range of the slider (sequences).
pub const B_RANGE: (f64, f64) = (1.0, 16_384.0);
/// Slider positions.
const STEPS: f64 = 280.0;
/// Shortest context the reader may pick.
pub const SEQ_MIN: f64 = 16.0;
/// The chart's shape (see `charts::size`).
const SHAPE: Shape = Shape::new(760, 440, 420);

/// The static layer: the chip's roofs for the compute format.
fn roof_svg(model: &RoofModel, size: Size) -> String {
    svg(size.width, size.height, |root| {
        draw_static(root, model, false)
    })
    .0
}

/// The moving layer: one point per component of the layer.
fn points_svg(model: &RoofModel, comps: &[ComponentRoofline], size: Size) -> String {
    let points: Vec<ComponentPoint> = comps.iter().map(|c| ComponentPoint::of(c, model)).collect();
    svg(size.width, size.height, |root| {
        draw_components(root, model, &points, false)
    })
    .0
}

/// The formats the weights may be stored in.
pub const WEIGHTS: [Dtype; 4] = [Dtype::Bf16, Dtype::Fp8, Dtype::Int8, Dtype::Int4];
/// The formats the matmuls may run in.
pub const COMPUTE: [Dtype; 3] = [Dtype::Bf16, Dtype::Fp8, Dtype::Int8];

/// Everything the reader can set; always a valid combination.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct InferenceParams {
    /// The model.
    pub model: &'static ModelPreset,
    /// The chip.
    pub chip: &'static Chip,
    /// A second chip drawn beside it, if any.
    pub vs: Option<&'static Chip>,
    /// Format of the stored weights and KV cache.
    pub weight: Dtype,
    /// Format the matmuls run in.
    pub compute: Dtype,
    /// Prefill or decode.
    pub phase: Phase,
    /// Sequences in the batch.
    pub b: f64,
    /// Prompt length (prefill) or context length (decode).
    pub seq: f64,
}

impl Default for InferenceParams {
    fn default() -> Self {
        InferenceParams {
            model: model("llama3-70b").unwrap_or(&MODELS[0]),
            chip: chip("v5e").unwrap_or(&CHIPS[0]),
            vs: None,
            weight: Dtype::Bf16,
            compute: Dtype::Bf16,
            phase: Phase::Decode,
            b: 16.0,
            seq: 4096.0,
        }
    }
}

/// The name of a phase in URLs.
pub fn phase_name(p: Phase) -> &'static str {
    match p {
        Phase::Prefill => "prefill",
        Phase::Decode => "decode",
    }
}

impl InferenceParams {
    /// The precision: weights and KV cache in `weight`, FLOPs in `compute`.
    pub fn precision(&self) -> Precision {
        Precision::new(self.weight, self.weight, self.compute)
    }

    /// The two per-layer rooflines (linear part, attention).
    pub fn rooflines(&self) -> Result<[ComponentRoofline; 2], InferenceError> {
        self.rooflines_on(self.chip)
    }

    /// The two per-layer rooflines on `chip`.
    pub fn rooflines_on(
        &self,
        chip: &'static Chip,
    ) -> Result<[ComponentRoofline; 2], InferenceError> {
        let m = ServingModel::new(self.model.config)?;
        component_rooflines(&m, self.precision(), chip, self.phase, self.b, self.seq)
    }

    /// The chart's static model: the chip's roofs for the compute format,
    /// with the second chip's beside them if one is chosen.
    pub fn roof(&self) -> Option<RoofModel> {
        let model = RoofModel::new(self.chip, self.compute)?;
        match self.vs {
            Some(vs) => model.beside(vs, self.compute),
            None => Some(model),
        }
    }

    /// The chip beside the second one: core's numbers for both, then each
    /// component's verdict, the batch where the weight matmuls turn
    /// compute-bound and the layer's time on each chip.
    pub fn comparison(&self) -> Option<Comparison> {
        let vs = self.vs?;
        let (a, b) = (self.rooflines().ok()?, self.rooflines_on(vs).ok()?);
        let mut rows = chip_rows(self.chip, vs, self.compute);
        for (i, key) in [(0, "linear"), (1, "attention")] {
            rows.push(Diff::words(
                key,
                a[i].component.label(),
                a[i].verdict().text(),
                b[i].verdict().text(),
            ));
        }
        rows.push(Diff::number(
            "critical-batch",
            "weight matmuls compute-bound above (sequences)",
            self.critical_batch_on(self.chip).unwrap_or(f64::NAN),
            self.critical_batch_on(vs).unwrap_or(f64::NAN),
            |b| grouped(b.round()),
        ));
        let layer = |r: &[ComponentRoofline; 2]| r.iter().map(|c| c.analysis.lower.0).sum::<f64>();
        rows.push(Diff::number(
            "layer-time",
            "one layer (each part overlapped)",
            layer(&a),
            layer(&b),
            seconds,
        ));
        Some(Comparison {
            a: self.chip.name.into(),
            b: vs.name.into(),
            rows,
        })
    }

    /// Tokens per sequence the linear part sees in one step (the prompt in prefill, 1 in decode).
    pub fn tokens_per_seq(&self) -> f64 {
        match self.phase {
            Phase::Prefill => self.seq,
            Phase::Decode => 1.0,
        }
    }

    /// The batch (sequences) above which the weight matmuls are compute-bound.
    pub fn critical_batch(&self) -> Option<f64> {
        self.critical_batch_on(self.chip)
    }

    /// The batch (sequences) above which the weight matmuls are compute-bound on `chip`.
    pub fn critical_batch_on(&self, chip: &'static Chip) -> Option<f64> {
        let m = ServingModel::new(self.model.config).ok()?;
        let tokens = m.critical_batch(chip, self.precision()).ok()?;
        Some(tokens / self.tokens_per_seq())
    }
}

impl WidgetParams for InferenceParams {
    const ORDER: &'static [&'static [&'static str]] = &[&["model", "chip", VS]];

    /// Sets one parameter from text, or explains why not (the params stay as they were).
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut next = *self;
        match key {
            "model" => {
                next.model = super::controls::model(value)?;
                next.seq = next.seq.min(next.model.config.max_seq as f64);
            }
            "chip" => next.chip = super::controls::chip(value)?,
            VS => next.vs = super::compare::vs_chip(value)?,
            "weight" | "dtype" => {
                next.weight = super::controls::dtype_among(value, &WEIGHTS, "weights")?
            }
            "compute" => next.compute = super::controls::dtype_among(value, &COMPUTE, "compute")?,
            "phase" => {
                next.phase = match value.trim() {
                    "prefill" => Phase::Prefill,
                    "decode" => Phase::Decode,
                    other => return Err(format!("unknown phase “{}”", short(other))),
                }
            }
            "b" => next.b = parse_count(value, "batch", B_RANGE.0, B_RANGE.1)?.round(),
            "seq" => {
                next.seq = parse_count(value, "sequence length", 1.0, 1e9)?.round();
            }
            other => return Err(super::params::unknown_setting(other)),
        }
        next.rooflines().map_err(|e| e.to_string())?;
        if let Some(vs) = next.vs {
            next.rooflines_on(vs)
                .map_err(|e| format!("{} (compared): {e}", vs.name))?;
        }
        *self = next;
        Ok(())
    }

    /// The parameters as `key=value` pairs, for the URL.
    fn to_pairs(&self) -> Vec<(String, String)> {
        vec![
            ("model".into(), self.model.id.into()),
            ("chip".into(), self.chip.id.into()),
            ("weight".into(), self.weight.name().into()),
            ("compute".into(), self.compute.name().into()),
            ("phase".into(), phase_name(self.phase).into()),
            ("b".into(), format!("{}", self.b)),
            ("seq".into(), format!("{}", self.seq)),
        ]
        .into_iter()
        .chain(self.vs.map(|vs| (VS.into(), vs.id.into())))
        .collect()
    }
}

/// The widget.
#[component]
pub fn InferenceRoofline(
    /// The chapter's `key=value` arguments (URL parameters override them).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let state = WidgetState::<InferenceParams>::new(&args);
    let WidgetState { params, notice } = state;
    let set = move |key: &'static str, value: String| {
        // Put a refused select back to the last valid setting.
        state.set_or_refresh(
            key,
            &value,
            matches!(key, "model" | "chip" | VS | "weight" | "compute" | "phase"),
        );
    };

    let roof = Memo::new(move |_| params.with(|p| p.roof()));
    // The roofs only change with the chip or the compute format.
    let frame = Frame::new(SHAPE);
    let base = Memo::new(move |_| {
        let size = frame.get();
        roof.with(|m| m.as_ref().map(|m| roof_svg(m, size)).unwrap_or_default())
    });
    let rooflines = Memo::new(move |_| params.with(|p| p.rooflines().ok()));
    // The points move with every input event.
    let overlay = move || {
        roof.with(|m| {
            rooflines.with(|c| match (m, c) {
                (Some(m), Some(c)) => points_svg(m, c, frame.get()),
                _ => String::new(),
            })
        })
    };

    let verdict_of = move |i: usize| {
        rooflines.with(|r| {
            r.as_ref()
                .map(|r| r[i].verdict())
                .unwrap_or(Verdict::MemoryBound)
        })
    };
    let row = move |i: usize| {
        rooflines.with(|r| {
            r.as_ref()
                .map(|r| {
                    let a = &r[i].analysis;
                    format!(
                        "{} FLOPs/B; per layer {} of math, {} of HBM",
                        sci(r[i].intensity.0, 3),
                        seconds(a.t_math.0),
                        seconds(
                            a.t_comms(ridgeline_core::hardware::Link::Hbm)
                                .map(|t| t.0)
                                .unwrap_or(f64::NAN)
                        )
                    )
                })
                .unwrap_or_default()
        })
    };
    let crossing = move || {
        params.with(|p| {
            let ridge = roof
                .with(|m| m.as_ref().and_then(|m| m.hbm().map(|r| r.ridge)))
                .unwrap_or(f64::NAN);
            match p.critical_batch() {
                Some(b) if b >= 1.0 && p.phase == Phase::Decode => format!(
                    "The HBM ridge is {} FLOPs/B: the weight matmuls turn compute-bound above about {} sequences (one new token each).",
                    sci(ridge, 3),
                    grouped(b.round())
                ),
                Some(b) if b >= 1.0 => format!(
                    "The HBM ridge is {} FLOPs/B: the weight matmuls turn compute-bound above about {} prompts of {} tokens.",
                    sci(ridge, 3),
                    grouped(b.round()),
                    grouped(p.tokens_per_seq())
                ),
                Some(_) => format!(
                    "The HBM ridge is {} FLOPs/B: with {} tokens per prompt the weight matmuls are compute-bound from a single sequence.",
                    sci(ridge, 3),
                    grouped(p.tokens_per_seq())
                ),
                None => String::new(),
            }
        })
    };
    let dtype_options =
        |_| WEIGHTS.map(|d| option(d.name(), d.name(), move || params.with(|p| p.weight.name())));
    let compute_options = COMPUTE.map(|d| {
        option(d.name(), d.name(), move || {
            params.with(|p| p.compute.name())
        })
    });
    let seq_max = move || params.with(|p| p.model.config.max_seq as f64);
    let vs_id = move || params.with(|p| p.vs.map_or("", |c| c.id));
    let vs_options = super::controls::chip_options(super::controls::any, vs_id);
    // A component's verdict on the second chip, beside its verdict on the first.
    let vs_verdict = move |i: usize| {
        move || {
            params.with(|p| {
                let vs = p.vs?;
                let v = p.rooflines_on(vs).ok()?[i].verdict();
                Some(view! {
                    "; on " {vs.name} " "
                    <strong class=format!("verdict {}", v.text()) data-vs-verdict=v.text()>{v.text()}</strong>
                })
            })
        }
    };

    view! {
        <figure class="widget inference-roofline" data-widget="inference-roofline">
            <div class="controls">
                {super::controls::model_picker("Model ", super::controls::any, move || params.with(|p| p.model.id).to_string(), set)}
                {super::controls::chip_picker("Chip ", super::controls::any, move || params.with(|p| p.chip.id).to_string(), set)}
                <label>"Weights and KV "
                    <select prop:value=move || params.with(|p| p.weight.name()) on:change=move |ev| set("weight", event_target_value(&ev))>{dtype_options(())}</select>
                </label>
                <label>"FLOPs in "
                    <select prop:value=move || params.with(|p| p.compute.name()) on:change=move |ev| set("compute", event_target_value(&ev))>{compute_options}</select>
                </label>
                <label>"Phase "
                    <select prop:value=move || params.with(|p| phase_name(p.phase)) on:change=move |ev| set("phase", event_target_value(&ev))>
                        {option("decode", "decode (one token per sequence)", move || params.with(|p| phase_name(p.phase)))}
                        {option("prefill", "prefill (the whole prompt)", move || params.with(|p| phase_name(p.phase)))}
                    </select>
                </label>
                {compare_picker(vs_options, vs_id, set)}
            </div>
            <div class="plot" node_ref=frame.node style=frame.style()>
                <div class="layer" aria-hidden="true" inner_html=move || base.get()></div>
                <div
                    class="layer overlay"
                    inner_html=overlay
                    role="img"
                    aria-label=move || format!(
                        "Roofline with the MLP ({}) and attention ({}) of one layer",
                        verdict_of(0).text(),
                        verdict_of(1).text()
                    )
                ></div>
            </div>
            {Slider::positions(STEPS).id("inference-roofline-b").class("batch").valuetext(move || format!("B = {}", grouped(params.with(|p| p.b)))).log_row("Batch (sequences)", LogScale::new(STEPS, move || (B_RANGE.0, B_RANGE.1), rounded), move || params.with(|p| p.b), "b", set, NumberField::new("b", "batch", 7).class("batch-text").view(move || format!("{}", params.with(|p| p.b)), set))}
            {Slider::positions(STEPS).id("inference-roofline-seq").class("seq").valuetext(move || format!("{} tokens", grouped(params.with(|p| p.seq)))).log_row("Context (tokens)", LogScale::new(STEPS, move || (SEQ_MIN, seq_max()), rounded), move || params.with(|p| p.seq), "seq", set, NumberField::new("seq", "context length", 7).class("seq-text").view(move || format!("{}", params.with(|p| p.seq)), set))}
            <ul class="component-verdicts">
                <li>
                    "MLP + projections: "
                    <strong class=move || format!("verdict {}", verdict_of(0).text()) data-component="linear" data-verdict=move || verdict_of(0).text() aria-live="polite">
                        {move || verdict_of(0).text()}
                    </strong>
                    {vs_verdict(0)}
                    " — " {move || row(0)}
                </li>
                <li>
                    "Attention: "
                    <strong class=move || format!("verdict {}", verdict_of(1).text()) data-component="attention" data-verdict=move || verdict_of(1).text() aria-live="polite">
                        {move || verdict_of(1).text()}
                    </strong>
                    {vs_verdict(1)}
                    " — " {move || row(1)}
                </li>
            </ul>
            <p class="crossing">{crossing}</p>
            {compare_table(move || params.with(|p| p.comparison()))}
            <Notice notice=notice />
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::charts::palette;
    use crate::charts::svg_colour;
    use crate::widgets::params::pairs;
    use crate::widgets::params::testing::{assert_refused_keeps, assert_round_trip};

    #[test]
    fn layers_are_svg_and_the_points_take_their_verdicts_colours() {
        let mut p = InferenceParams::default();
        let roof = RoofModel::new(p.chip, p.compute).unwrap();
        let base = roof_svg(&roof, SHAPE.design());
        assert!(base.starts_with(r#"<svg class="chart-svg""#), "{base}");
        assert!(base.contains("HBM ridge"), "{base}");
        let (good, bad) = (
            format!(r#"fill="{}""#, svg_colour(palette(false).good)),
            format!(r#"fill="{}""#, svg_colour(palette(false).bad)),
        );
        // Decode at batch 16: both points are memory-bound.
        let low = points_svg(&roof, &p.rooflines().unwrap(), SHAPE.design());
        assert!(low.contains(&bad) && !low.contains(&good), "{low}");
        // At batch 4096 the weight matmuls turn compute-bound; attention does not.
        p.apply("b", "4096").unwrap();
        let high = points_svg(&roof, &p.rooflines().unwrap(), SHAPE.design());
        assert!(high.contains(&bad) && high.contains(&good), "{high}");
    }

    /// On a 390 px phone the attention label sat across the dashed link
    /// roofs: at phone and desktop widths and several batches, neither point's
    /// label crosses a roof of the static layer.
    #[test]
    fn the_point_labels_cross_no_roof() {
        use crate::charts::place::{segments, texts};
        let mut faults = Vec::new();
        for width in [320.0, 337.0, 390.0, 760.0] {
            for b in ["1", "16", "240", "4096"] {
                let mut p = InferenceParams::default();
                p.apply("b", b).unwrap();
                let roof = RoofModel::new(p.chip, p.compute).unwrap();
                let size = SHAPE.at(width);
                let roofs = roof_svg(&roof, size);
                let points = points_svg(&roof, &p.rooflines().unwrap(), size);
                let lines = [
                    segments(&roofs, r#"stroke-width="2""#),
                    segments(&roofs, r#"stroke-width="3""#),
                ]
                .concat();
                assert!(lines.len() > 4, "{width} px: {} roof segments", lines.len());
                for (t, r) in texts(&points) {
                    if let Some((a, z)) = lines.iter().find(|(a, z)| r.crosses(*a, *z)) {
                        faults.push(format!("{width} px, B = {b}: “{t}” {r:?} on {a:?}–{z:?}"));
                    }
                }
            }
        }
        assert!(faults.is_empty(), "{}", faults.join("\n"));
    }

    #[test]
    fn decode_batch_flips_the_linear_part_only() {
        let mut p = InferenceParams::default();
        let r = p.rooflines().unwrap();
        assert_eq!(r[0].verdict(), Verdict::MemoryBound);
        assert_eq!(r[1].verdict(), Verdict::MemoryBound);
        assert_eq!(p.critical_batch().unwrap().round(), 240.0);
        p.apply("b", "4096").unwrap();
        let r = p.rooflines().unwrap();
        assert_eq!(r[0].verdict(), Verdict::ComputeBound);
        assert_eq!(r[1].verdict(), Verdict::MemoryBound);
    }

    #[test]
    fn a_second_chip_shows_cores_verdicts_and_critical_batch() {
        let (mut p, n) = InferenceParams::from_pairs(&pairs(&[("vs", "h100")]));
        assert!(n.is_empty(), "{n:?}");
        let h100 = chip("h100").unwrap();
        let roof = p.roof().unwrap();
        let second = roof.second.as_ref().unwrap();
        assert_eq!(second.peak, h100.peak(Dtype::Bf16).unwrap().0);
        let c = p.comparison().unwrap();
        // Part 7: decode turns compute-bound above about 240 sequences on
        // v5e; on H100 the ridge is about 296, so the batch is about 296.
        let critical = c.row("critical-batch").unwrap();
        assert_eq!(critical.a, "240");
        let core = ServingModel::new(p.model.config)
            .unwrap()
            .critical_batch(h100, p.precision())
            .unwrap();
        assert_eq!(critical.b, grouped(core.round()));
        assert_eq!(critical.b, "296");
        // At 270 sequences the weight matmuls are compute-bound on v5e only.
        p.apply("b", "270").unwrap();
        let c = p.comparison().unwrap();
        let linear = c.row("linear").unwrap();
        assert_eq!(
            (linear.a.as_str(), linear.b.as_str()),
            ("compute-bound", "memory-bound")
        );
        assert_eq!(c.row("attention").unwrap().ratio_text(), "same");
        let layer = c.row("layer-time").unwrap();
        let on = |chip| -> f64 {
            p.rooflines_on(chip)
                .unwrap()
                .iter()
                .map(|r| r.analysis.lower.0)
                .sum()
        };
        assert_eq!(layer.b, seconds(on(h100)));
        assert_eq!(layer.a, seconds(on(p.chip)));
    }

    #[test]
    fn vs_round_trips_and_an_unknown_chip_is_refused() {
        let p: InferenceParams = assert_round_trip(&[("vs", "b200"), ("phase", "prefill")]);
        assert_eq!(p.vs.map(|c| c.id), Some("b200"));
        let messages = assert_refused_keeps(&p, &[("vs", "tpu-v99")]);
        assert!(messages[0].contains("tpu-v99"), "{messages:?}");
        assert!(InferenceParams::default()
            .to_pairs()
            .iter()
            .all(|(k, _)| k != "vs"));
    }

    #[test]
    fn prefill_is_compute_bound_for_both() {
        let (p, n) = InferenceParams::from_pairs(&pairs(&[("phase", "prefill"), ("b", "1")]));
        assert!(n.is_empty(), "{n:?}");
        let r = p.rooflines().unwrap();
        assert_eq!(r[0].verdict(), Verdict::ComputeBound);
        assert_eq!(r[1].verdict(), Verdict::ComputeBound);
    }

    #[test]
    fn bad_input_is_explained_and_ignored() {
        let (p, n) = InferenceParams::from_pairs(&pairs(&[
            ("b", "0"),
            ("seq", "1e7"),
            ("model", "gpt-9"),
            ("phase", "train"),
            ("compute", "f64"),
            ("x", "1"),
        ]));
        assert_eq!(p, InferenceParams::default());
        assert_eq!(n.len(), 6, "{n:?}");
        assert!(n.iter().any(|m| m.contains("context")), "{n:?}");
        assert_refused_keeps(&p, &[("seq", "9000")]);
    }

    #[test]
    fn model_change_clamps_the_context_and_pairs_round_trip() {
        let p: InferenceParams = assert_round_trip(&[
            ("model", "llama3-405b"),
            ("seq", "100000"),
            ("chip", "h100"),
            ("weight", "int8"),
        ]);
        let mut q = p;
        q.apply("model", "llama2-13b").unwrap();
        assert_eq!(q.seq, 4096.0);
    }
}
