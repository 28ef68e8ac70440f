//! The batch roofline (`data-widget="batch-roofline"`, Part 1, Question 3):
//! the FLOPs/s two matmul shapes attain on one chip against the batch, on
//! linear axes, each curve's meeting with the peak marked with its batch,
//! and both verdicts at the batch the reader chooses. Every point is core's
//! [`ridgeline_core::roofline::ops::Op::batch_curve`] (the op's
//! `min(C, I·W)` with exact bytes) and every crossing its
//! [`ridgeline_core::roofline::ops::Op::critical_batch`]. The widget
//! compares two shapes on one chip, so it has no second chip (`vs`).

use leptos::prelude::*;
use ridgeline_core::dtype::Dtype;
use ridgeline_core::format::{grouped, sci};
use ridgeline_core::hardware::{chip, Chip, CHIPS};
use ridgeline_core::roofline::ops::{BatchCurve, Op};
use ridgeline_core::roofline::Verdict;

use super::controls::{option, Notice, NumberField, Slider};
use super::params::{WidgetParams, WidgetState};
use crate::charts::batch_roofline::{draw, BatchModel, Curve};
use crate::charts::size::{Frame, Shape, Size};
use crate::charts::svg;
use crate::input::parse_count;

/// The chart's shape (see `charts::size`).
const SHAPE: Shape = Shape::new(760, 420, 380);
/// Largest D or F a reader may enter (2^20).
pub const DIM_MAX: f64 = 1_048_576.0;
/// The batch axis's shortest and longest reach (tokens).
pub const RANGE: (f64, f64) = (16.0, 65_536.0);
/// Points sampled along each curve (the crossing is added to them).
const SAMPLES: usize = 200;

/// Everything the reader can set; always valid.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BatchRooflineParams {
    /// The chip.
    pub chip: &'static Chip,
    /// Activation (and output) format.
    pub act: Dtype,
    /// Weight format.
    pub weight: Dtype,
    /// The two shapes `(D, F)`.
    pub shapes: [(f64, f64); 2],
    /// The chosen batch, at most `b_max`.
    pub b: f64,
    /// The batch axis runs from 0 to this.
    pub b_max: f64,
}

impl Default for BatchRooflineParams {
    /// The book's Question 3: bf16 activations, int8 weights on a v5e,
    /// `D = F = 4096` against `D = F = 1024`, batches up to 512.
    fn default() -> Self {
        BatchRooflineParams {
            chip: chip("v5e").unwrap_or(&CHIPS[0]),
            act: Dtype::Bf16,
            weight: Dtype::Int8,
            shapes: [(4096.0, 4096.0), (1024.0, 1024.0)],
            b: 128.0,
            b_max: 512.0,
        }
    }
}

/// One shape at the chosen batch: its curve and what the reader reads.
#[derive(Debug, Clone, PartialEq)]
pub struct ShapeView {
    /// The shape as the legend names it.
    pub label: String,
    /// Core's curve.
    pub curve: BatchCurve,
    /// The rate at the chosen batch, FLOPs/s.
    pub rate: f64,
    /// The verdict at the chosen batch.
    pub verdict: Verdict,
}

impl BatchRooflineParams {
    /// Shape `i` (0 or 1) as a matmul at the chosen batch.
    pub fn op(&self, i: usize) -> Op {
        let (d, f) = self.shapes[i];
        Op::Matmul {
            b: self.b,
            d,
            f,
            act: self.act,
            weight: self.weight,
        }
    }

    /// Both shapes' curves and verdicts, or why there are none.
    pub fn run(&self) -> Result<[ShapeView; 2], String> {
        let shape = |i: usize| {
            let op = self.op(i);
            let none = || {
                format!(
                    "{} has no {} rate and HBM bandwidth to draw with",
                    self.chip.name,
                    op.compute_dtype()
                )
            };
            let curve = op
                .batch_curve(self.chip, self.b_max, SAMPLES)
                .ok_or_else(none)?;
            let rate = op.attainable(self.chip).ok_or_else(none)?.0;
            let verdict = op.verdict(self.chip).ok_or_else(none)?;
            let (d, f) = self.shapes[i];
            let label = if d == f {
                format!("D = F = {}", grouped(d))
            } else {
                format!("D = {}, F = {}", grouped(d), grouped(f))
            };
            Ok::<_, String>(ShapeView {
                label,
                curve,
                rate,
                verdict,
            })
        };
        Ok([shape(0)?, shape(1)?])
    }

    /// The chart as inline SVG at `size` (empty if there is nothing to draw).
    pub fn chart_svg(&self, size: Size) -> String {
        let Ok(views) = self.run() else {
            return String::new();
        };
        let model = BatchModel {
            peak: views[0].curve.peak.0,
            b_max: self.b_max,
            b: self.b,
            curves: views
                .iter()
                .map(|v| Curve {
                    label: v.label.clone(),
                    points: v.curve.points.iter().map(|&(b, r)| (b, r.0)).collect(),
                    crossing: v.curve.crossing,
                    chosen: (v.rate, v.verdict == Verdict::ComputeBound),
                })
                .collect(),
        };
        svg(size.width, size.height, |root| draw(root, &model, false)).0
    }

    /// The sentence about where shape `view` meets the peak.
    pub fn crossing_text(&self, view: &ShapeView) -> String {
        match view.curve.crossing {
            Some(c) if c <= self.b_max => format!("reaches the peak at B ≈ {}", sci(c, 3)),
            Some(c) => format!("reaches the peak at B ≈ {}, past this range", sci(c, 3)),
            None => "never reaches the peak: its intensity stays below the ridge".into(),
        }
    }
}

impl WidgetParams for BatchRooflineParams {
    // The chip before the formats it must support; the range before the batch in it.
    const ORDER: &'static [&'static [&'static str]] = &[&["chip"], &["bmax"]];

    /// Sets one parameter from text, or explains why not (the params stay as they were).
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut next = *self;
        let dim = |what: &str| parse_count(value, what, 1.0, DIM_MAX).map(f64::round);
        match key {
            "chip" => next.chip = super::controls::chip(value)?,
            "act" => next.act = super::controls::dtype(value)?,
            "weight" => next.weight = super::controls::dtype(value)?,
            "d" => next.shapes[0].0 = dim("D")?,
            "f" => next.shapes[0].1 = dim("F")?,
            "d2" => next.shapes[1].0 = dim("the second D")?,
            "f2" => next.shapes[1].1 = dim("the second F")?,
            "b" => {
                next.b = parse_count(value, "batch B", 1.0, self.b_max)
                    .map_err(|e| format!("{e} (the batch axis ends at {})", grouped(self.b_max)))?
                    .round()
            }
            "bmax" => {
                next.b_max = parse_count(value, "the batch axis's end", RANGE.0, RANGE.1)?.round();
                // The chosen batch stays on the axis.
                next.b = next.b.min(next.b_max);
            }
            other => return Err(super::params::unknown_setting(other)),
        }
        next.run()?;
        *self = next;
        Ok(())
    }

    /// The parameters as `key=value` pairs, for the URL.
    fn to_pairs(&self) -> Vec<(String, String)> {
        let [(d, f), (d2, f2)] = self.shapes;
        vec![
            ("chip".into(), self.chip.id.into()),
            ("act".into(), self.act.name().into()),
            ("weight".into(), self.weight.name().into()),
            ("d".into(), format!("{d}")),
            ("f".into(), format!("{f}")),
            ("d2".into(), format!("{d2}")),
            ("f2".into(), format!("{f2}")),
            ("b".into(), format!("{}", self.b)),
            ("bmax".into(), format!("{}", self.b_max)),
        ]
    }
}

/// The batch roofline widget.
#[component]
pub fn BatchRoofline(
    /// The chapter's `key=value` arguments (URL parameters override them).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let state = WidgetState::<BatchRooflineParams>::new(&args);
    let WidgetState { params, notice } = state;
    let set = move |key: &'static str, value: String| {
        state.set(key, &value);
    };
    let frame = Frame::new(SHAPE);
    let chart = move || params.with(|p| p.chart_svg(frame.get()));
    let views = Memo::new(move |_| params.with(|p| p.run().ok()));
    let dtypes = move || {
        params.with(|p| {
            Dtype::ALL
                .into_iter()
                .filter(|d| p.chip.peak_or_wider(*d).is_some())
                .collect::<Vec<_>>()
        })
    };
    let format_select = move |label: &'static str,
                              key: &'static str,
                              get: fn(&BatchRooflineParams) -> Dtype| {
        view! {
            <label>
                {label}
                <select
                    prop:value=move || params.with(|p| get(p).name())
                    on:change=move |ev| set(key, event_target_value(&ev))
                >
                    {move || {
                        dtypes()
                            .into_iter()
                            .map(|d| option(d.name(), d.name(), move || params.with(|p| get(p).name())))
                            .collect_view()
                    }}
                </select>
            </label>
        }
    };
    let field = move |key: &'static str,
                      aria: &'static str,
                      label: &'static str,
                      get: fn(&BatchRooflineParams) -> f64| {
        NumberField::new(key, aria, 8)
            .label(label)
            .view(move || format!("{}", params.with(get)), set)
    };
    // What each shape does at the chosen batch: its verdict, rate and crossing.
    let line = move |i: usize| {
        let read = move |f: fn(&BatchRooflineParams, &ShapeView) -> String| {
            move || {
                views.with(|v| {
                    v.as_ref()
                        .map(|v| params.with(|p| f(p, &v[i])))
                        .unwrap_or_default()
                })
            }
        };
        let verdict = read(|_, v| v.verdict.text().into());
        view! {
            <li data-shape=i>
                {read(|_, v| v.label.clone())}
                ": "
                <strong class=move || format!("verdict {}", verdict()) data-verdict=verdict>
                    {verdict}
                </strong>
                " at "
                <span data-rate="">{read(|_, v| format!("{} FLOPs/s", sci(v.rate, 3)))}</span>
                " ("
                {read(|_, v| format!("{:.0}%", 100.0 * v.rate / v.curve.peak.0))}
                " of peak); "
                <span data-crossing="">{read(|p, v| p.crossing_text(v))}</span>
                "."
            </li>
        }
    };
    let b_text = move || grouped(params.with(|p| p.b));
    view! {
        <figure class="widget batch-roofline" data-widget="batch-roofline">
            <div class="controls">
                {super::controls::chip_picker("Chip ", super::controls::any, move || params.with(|p| p.chip.id).to_string(), set)}
                {format_select("Activations ", "act", |p| p.act)}
                {format_select("Weights ", "weight", |p| p.weight)}
                <span class="shape-fields">"First shape: "
                    {field("d", "first shape: contracting dimension D", "D ", |p| p.shapes[0].0)}
                    {field("f", "first shape: output features F", "F ", |p| p.shapes[0].1)}
                </span>
                <span class="shape-fields">"Second shape: "
                    {field("d2", "second shape: contracting dimension D", "D ", |p| p.shapes[1].0)}
                    {field("f2", "second shape: output features F", "F ", |p| p.shapes[1].1)}
                </span>
                {field("bmax", "end of the batch axis", "Batch axis to ", |p| p.b_max)}
            </div>
            <div class="plot" node_ref=frame.node style=frame.style()>
                <div class="layer" inner_html=chart role="img"
                    aria-label=move || params.with(|p| format!(
                        "Attainable FLOPs/s on {} against the batch from 0 to {} for two matmul shapes",
                        p.chip.name,
                        grouped(p.b_max)
                    ))></div>
            </div>
            {Slider::new(1, move || format!("{}", params.with(|p| p.b_max)), "1")
                .id("batch-roofline-b")
                .valuetext(move || format!("B = {}", b_text()))
                .row(
                    "Batch B",
                    move || format!("{}", params.with(|p| p.b)),
                    move |v: String| set("b", v),
                    NumberField::new("b", "batch B", 7).class("batch-text").view(move || format!("{}", params.with(|p| p.b)), set),
                )}
            <p class="verdict-line">"At B = " {b_text} ":"</p>
            <ul class="batch-verdicts">{line(0)}{line(1)}</ul>
            <Notice notice=notice />
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::widgets::params::testing::{assert_refused_keeps, assert_round_trip};

    #[test]
    fn the_books_two_curves_meet_the_peak_near_136_and_226() {
        let p = BatchRooflineParams::default();
        let [big, small] = p.run().unwrap();
        // Core's crossings (derived in core's `question_3_curves_meet_the_roof_at_136_and_226`).
        assert_eq!(big.curve.crossing.map(f64::round), Some(136.0));
        assert_eq!(small.curve.crossing.map(f64::round), Some(226.0));
        assert_eq!(p.crossing_text(&big), "reaches the peak at B ≈ 136");
        assert_eq!(p.crossing_text(&small), "reaches the peak at B ≈ 226");
        // At B = 128 both are still below the peak.
        assert_eq!(big.verdict, Verdict::MemoryBound);
        assert_eq!(small.verdict, Verdict::MemoryBound);
        // At 192 the larger shape is on the roof, the smaller is not.
        let mut q = p;
        q.apply("b", "192").unwrap();
        let [big, small] = q.run().unwrap();
        assert_eq!(
            (big.verdict, small.verdict),
            (Verdict::ComputeBound, Verdict::MemoryBound)
        );
        assert_eq!(big.rate, 1.97e14);
        // Both curves and both crossings are drawn.
        let s = p.chart_svg(SHAPE.design());
        assert!(
            s.contains("D = F = 4,096") && s.contains("D = F = 1,024"),
            "{s}"
        );
        assert!(s.contains("B ≈ 136") && s.contains("B ≈ 226"), "{s}");
    }

    #[test]
    fn bad_values_are_explained_and_ignored() {
        let p = BatchRooflineParams::default();
        let messages = assert_refused_keeps(
            &p,
            &[
                ("chip", "h900"),
                ("act", "f32"),
                ("d", "0"),
                ("f", "NaN"),
                ("d2", "1e999"),
                ("f2", "-3"),
                ("b", "600"),
                ("b", "0"),
                ("bmax", "8"),
                ("bmax", "1e6"),
                ("colour", "red"),
            ],
        );
        assert!(messages[1].contains("no f32 rate"), "{messages:?}");
        assert!(
            messages[6].contains("the batch axis ends at 512"),
            "{messages:?}"
        );
    }

    #[test]
    fn a_shorter_axis_keeps_the_batch_on_it_and_pairs_round_trip() {
        let mut p = BatchRooflineParams::default();
        p.apply("b", "300").unwrap();
        p.apply("bmax", "200").unwrap();
        assert_eq!((p.b, p.b_max), (200.0, 200.0));
        // The second crossing (226) lies past the axis: said, not marked.
        let [_, small] = p.run().unwrap();
        assert!(p.crossing_text(&small).ends_with("past this range"));
        assert!(!p.chart_svg(SHAPE.design()).contains("B ≈ 226"));
        let q: BatchRooflineParams = assert_round_trip(&[
            ("chip", "h100"),
            ("weight", "bf16"),
            ("d", "8192"),
            ("f2", "512"),
            ("bmax", "2048"),
            ("b", "1500"),
        ]);
        assert_eq!(q.b, 1500.0);
        // A small square matmul in bf16 never reaches the v5e's peak.
        let (r, refused) = BatchRooflineParams::from_pairs(&crate::widgets::params::pairs(&[
            ("weight", "bf16"),
            ("d2", "256"),
            ("f2", "256"),
        ]));
        assert!(refused.is_empty(), "{refused:?}");
        let [_, tiny] = r.run().unwrap();
        assert!(r.crossing_text(&tiny).starts_with("never reaches"));
    }
}
