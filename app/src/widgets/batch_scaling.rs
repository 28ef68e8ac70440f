//! A layer's time and throughput against the batch (`data-widget="batch-scaling"`,
//! Part 7, Appendix A). The book measures one layer of two `8192 × 32768`
//! matmuls sharded over four chips: its time stays near the floor of streaming
//! the weights from HBM until the batch nears the critical batch, then grows
//! linearly, so the tokens per second climb and then level off. The widget
//! draws `core`'s roofline model of that layer (`max(FLOPs/C, bytes/W)` per
//! shard, weights and activations in bf16) on the reader's chip, marks where
//! it turns compute-bound and reads off the reader's batch.

use super::controls::Notice;
use super::controls::Slider;
use leptos::prelude::*;
use ridgeline_core::format::{grouped, sci, seconds};
use ridgeline_core::hardware::{chip, Chip, CHIPS};
use ridgeline_core::inference::serving::batch_scaling;

use super::params::{WidgetParams, WidgetState};
use crate::charts::batch_scaling::{draw, BatchScalingView};
use crate::charts::size::{Frame, Shape, Size};
use crate::charts::svg;
use crate::input::parse_count;
use ridgeline_core::check::whole;

/// The chart's drawing size (SVG user units).
const SHAPE: Shape = Shape::new(760, 420, 340);
/// The book's layer: `d_model`.
pub const D_MODEL: f64 = 8192.0;
/// The book's layer: `d_ff`.
pub const D_FF: f64 = 32768.0;
/// The book's layer: chips its weights are sharded over.
pub const SHARDS: u64 = 4;
/// The spacing of the batches drawn, and of the slider.
const STEP: f64 = 8.0;
/// The largest batch drawn or read off.
pub const MAX_BATCH: f64 = 4096.0;

/// The reader's settings; always valid.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BatchScalingParams {
    /// The chip the layer runs on.
    pub chip: &'static Chip,
    /// Tokens in the batch read off.
    pub batch: f64,
}

impl Default for BatchScalingParams {
    fn default() -> Self {
        BatchScalingParams {
            chip: chip("v5e").unwrap_or(&CHIPS[0]),
            batch: 512.0,
        }
    }
}

impl BatchScalingParams {
    /// Computes the view from `core`: the layer every `STEP` tokens up to
    /// twice the critical batch (at least 1,024, and past the reader's batch).
    pub fn view(&self) -> Result<BatchScalingView, String> {
        let grid: Vec<f64> = (1..=whole::<u32>(MAX_BATCH / STEP).unwrap_or_default())
            .map(|k| f64::from(k) * STEP)
            .collect();
        let all =
            batch_scaling(self.chip, D_MODEL, D_FF, SHARDS, &grid).map_err(|e| e.to_string())?;
        let knee = all
            .iter()
            .find(|p| p.compute_bound)
            .map_or(MAX_BATCH, |p| p.batch);
        let end = (2.0 * knee).max(1024.0).max(self.batch);
        let end = ((end / 256.0).ceil() * 256.0).min(MAX_BATCH);
        let points = all.into_iter().filter(|p| p.batch <= end).collect();
        let at = batch_scaling(self.chip, D_MODEL, D_FF, SHARDS, &[self.batch])
            .map_err(|e| e.to_string())?[0];
        Ok(BatchScalingView { points, at, knee })
    }

    /// The chart as inline SVG.
    pub fn chart_svg(&self, size: Size) -> String {
        self.view()
            .ok()
            .map(|v| svg(size.width, size.height, |root| draw(root, &v)).0)
            .unwrap_or_default()
    }
}

impl WidgetParams for BatchScalingParams {
    /// Sets one parameter from text, or explains why not.
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut next = *self;
        match key {
            "chip" => next.chip = super::controls::chip(value)?,
            "b" => next.batch = parse_count(value, "batch B", 1.0, MAX_BATCH)?.round(),
            other => return Err(super::params::unknown_setting(other)),
        }
        next.view()?;
        *self = next;
        Ok(())
    }

    /// The parameters as `key=value` pairs.
    fn to_pairs(&self) -> Vec<(String, String)> {
        vec![
            ("chip".into(), self.chip.id.into()),
            ("b".into(), format!("{}", self.batch)),
        ]
    }
}

/// The batch-scaling widget.
#[component]
pub fn BatchScaling(
    /// The chapter's `key=value` arguments (URL parameters override them).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let state = WidgetState::<BatchScalingParams>::new(&args);
    let WidgetState { params, notice } = state;
    let set = move |key: &'static str, value: String| {
        state.set(key, &value);
    };
    let view_ = Memo::new(move |_| params.with(BatchScalingParams::view).ok());
    let frame = Frame::new(SHAPE);
    let chart = move || params.with(|p| p.chart_svg(frame.get()));
    let shown = move |f: fn(&BatchScalingView) -> String| {
        move || view_.with(|v| v.as_ref().map(f).unwrap_or_default())
    };
    let batch = move || grouped(params.with(|p| p.batch));
    let bound = move || {
        view_.with(|v| match v {
            Some(v) if v.at.compute_bound => "compute-bound",
            _ => "memory-bound",
        })
    };

    view! {
        <figure class="widget batch-scaling" data-widget="batch-scaling">
            <div class="controls">
                {super::controls::chip_picker("Chip ", |c| c.interconnect().is_some(), move || params.with(|p| p.chip.id).to_string(), set)}
            </div>
            {Slider::new("8", || "2048".to_string(), "8").id("batch-scaling-b").valuetext(move || format!("B = {}", batch())).row("Batch B", move || params.with(|p| p.batch).to_string(), move |v: String| set("b", v), view! { <output data-batch="">{move || format!("B = {}", batch())}</output> })}
            <div class="plot" node_ref=frame.node style=frame.style()>
                <div class="layer" inner_html=chart role="img"
                    aria-label=move || format!("time per layer and tokens per second against the batch, bending at the critical batch; the marker is at B = {}", batch())></div>
            </div>
            <p class="verdict-line">
                "At B = " {batch} " the layer takes "
                <strong data-time="">{shown(|v| seconds(v.at.time.0))}</strong>
                " and serves " <strong data-throughput="">{shown(|v| sci(v.at.tokens_per_sec, 3))}</strong>
                " tokens per second: " <strong data-bound=bound>{bound}</strong> ". "
                "Below B ≈ " <strong data-knee="">{shown(|v| grouped(v.knee))}</strong>
                " its time barely moves from "
                <span data-floor="">{shown(|v| v.points.first().map(|p| seconds(p.time.0)).unwrap_or_default())}</span>
                ", so throughput climbs; above it time grows in proportion to B and throughput stays flat."
            </p>
            <p class="caption">
                {format!("Two {} × {} matmuls sharded over {} chips, weights and activations in bf16, each step max(FLOPs/C, bytes/W): a roofline model, not the book's measurement.", grouped(D_MODEL), grouped(D_FF), SHARDS)}
            </p>
            <Notice notice=notice />
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::widgets::params::testing::{assert_refused_keeps, assert_round_trip};

    #[test]
    fn the_book_layer_is_flat_then_linear_and_the_chart_shows_the_knee() {
        let p = BatchScalingParams::default();
        let v = p.view().unwrap();
        let c = p.chip;
        let (peak, bw) = (
            c.peak(ridgeline_core::dtype::Dtype::Bf16).unwrap().0 * SHARDS as f64,
            c.hbm_bw().0 * SHARDS as f64,
        );
        // The floor: the weights, 2·D·F in bf16, streamed from four chips' HBM.
        let floor = 2.0 * 2.0 * D_MODEL * D_FF / bw;
        let first = v.points[0];
        assert!(
            (first.time.0 / floor - 1.0).abs() < 0.01,
            "{first:?} {floor}"
        );
        // The knee sits just above the chip's ridge, C/W FLOPs per byte (240 on a v5e).
        let ridge = peak / bw;
        assert!(v.knee > ridge && v.knee < ridge * 1.1, "{} {ridge}", v.knee);
        // On a v5e the ridge is about 240 and the activations' bytes push the
        // bend to the next step of the grid, 256 (the e2e test reads it off).
        assert_eq!(v.knee, 256.0);
        // Past it time doubles with the batch and throughput stays flat.
        let at = |b: f64| *v.points.iter().find(|p| p.batch == b).unwrap();
        assert!((at(1024.0).time.0 / at(512.0).time.0 - 2.0).abs() < 0.01);
        assert!((at(1024.0).tokens_per_sec / at(512.0).tokens_per_sec - 1.0).abs() < 0.01);
        // Before it, doubling the batch nearly doubles throughput.
        assert!(at(128.0).tokens_per_sec / at(64.0).tokens_per_sec > 1.9);
        assert!(v.at.compute_bound && v.at.batch == 512.0);
        let svg = p.chart_svg(SHAPE.design());
        for text in [
            "time per layer",
            "tokens per second",
            "batch B (tokens)",
            &format!("critical batch ≈ {}", grouped(v.knee)),
        ] {
            assert!(svg.contains(text), "{text}: {svg}");
        }
        assert_eq!(svg.matches("<circle").count(), 2, "{svg}");
        // A phone's drawing names the bend briefly, so the label stays inside.
        let narrow = p.chart_svg(SHAPE.at(240.0));
        assert!(
            narrow.contains("B ≈ 256") && !narrow.contains("critical batch"),
            "{narrow}"
        );
    }

    #[test]
    fn bad_input_keeps_the_state_and_pairs_round_trip() {
        assert_refused_keeps(
            &BatchScalingParams::default(),
            &[
                ("b", "0"),
                ("b", "5000"),
                ("b", "x"),
                ("chip", "nope"),
                ("n", "4"),
            ],
        );
        let q: BatchScalingParams = assert_round_trip(&[("chip", "v4p"), ("b", "96")]);
        assert_eq!(q.batch, 96.0);
        // A small batch on the reader's chip is memory-bound.
        assert!(!q.view().unwrap().at.compute_bound);
    }
}
