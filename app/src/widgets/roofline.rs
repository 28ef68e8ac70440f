//! The roofline widget (`data-widget="roofline"`): one chip's roofs on log-log
//! axes and an operation whose batch the reader drags, with the slider, the
//! text field or the point itself. A second chip (`vs`) may be drawn on the
//! same axes, with the same operation's verdict on it and the difference
//! between the chips spelled out.
//!
//! The reader may derate the chip (`flops_derate`, `hbm_derate`: the share of
//! peak FLOPs/s and of HBM bandwidth to assume, with a one-click preset at
//! Part 1's achievable share): the achievable roof is drawn dashed under the
//! quoted one, and every time, ridge, verdict and share below the chart comes
//! from core's derated analysis.
//!
//! With `controls=batch` the widget shows only the chart, the batch slider and
//! the verdict: the home page's figure, which a reader grasps in ten seconds
//! before going on to the whole widget in Part 1.

use super::controls::Notice;
use super::controls::NumberField;
use super::controls::{rounded, LogScale, Slider};
use leptos::html::Div;
use leptos::prelude::*;
use ridgeline_core::dtype::Dtype;
use ridgeline_core::format::{grouped, sci, seconds};
use ridgeline_core::hardware::{chip, Chip, Link, CHIPS};
use ridgeline_core::roofline::derate::Derate;
use ridgeline_core::roofline::ops::{Op, OpKind};
use ridgeline_core::roofline::Verdict;

use super::compare::{chip_rows, compare_picker, compare_table, Comparison, Diff, VS};
use super::controls::option;
use super::derate::{self, Share};
use super::params::{WidgetParams, WidgetState};
use super::pointer::plot_x;
use crate::charts::roofline::{draw_point, draw_static, OpPoint, RoofModel};
use crate::charts::size::{Frame, Shape};
use crate::charts::svg;
use crate::input::{parse_count, short};

/// Smallest batch the slider reaches.
pub const B_MIN: f64 = 1.0;
/// Largest batch the slider reaches (2^20 tokens).
pub const B_MAX: f64 = 1_048_576.0;
/// Slider positions.
pub const STEPS: f64 = 400.0;
/// The chart's shape (see `charts::size`).
const SHAPE: Shape = Shape::new(760, 440, 420);

/// Largest D or F a reader may enter.
pub const DIM_MAX: f64 = 1_048_576.0;

/// The shares of quoted peak the widget lets the reader set.
const SHARES: [Share; 2] = [Share::Flops, Share::Hbm];

/// Which of the widget's controls are shown.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Controls {
    /// Every control: chip, operation, formats, shapes, the second chip, the
    /// achievable roof, the prediction and the times.
    #[default]
    All,
    /// The batch alone: the chart, its slider and the verdict.
    Batch,
}

impl Controls {
    /// The name a chapter or link gives it (`controls=batch`).
    pub fn name(self) -> &'static str {
        match self {
            Controls::All => "all",
            Controls::Batch => "batch",
        }
    }

    /// Reads [`Controls::name`] back, or says what it takes.
    pub fn parse(value: &str) -> Result<Controls, String> {
        [Controls::All, Controls::Batch]
            .into_iter()
            .find(|c| c.name() == value)
            .ok_or_else(|| format!("controls must be “all” or “batch”, not “{}”", short(value)))
    }
}

/// Everything the reader can set; always valid.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RooflineParams {
    /// The chip.
    pub chip: &'static Chip,
    /// A second chip drawn beside it, if any.
    pub vs: Option<&'static Chip>,
    /// Activation (and output) format.
    pub act: Dtype,
    /// Weight format.
    pub weight: Dtype,
    /// Which operation.
    pub kind: OpKind,
    /// Batch (tokens, or vector length for dot and add).
    pub b: f64,
    /// Contracting dimension.
    pub d: f64,
    /// Output features.
    pub f: f64,
    /// The shares of the chip's peak FLOPs/s and HBM bandwidth assumed
    /// ([`Derate::PEAK`]: the quoted roof).
    pub derate: Derate,
    /// Which controls the widget shows.
    pub controls: Controls,
}

impl Default for RooflineParams {
    fn default() -> Self {
        RooflineParams {
            chip: chip("v5e").unwrap_or(&CHIPS[0]),
            vs: None,
            act: Dtype::Bf16,
            weight: Dtype::Bf16,
            kind: OpKind::Matmul,
            b: 64.0,
            d: 8192.0,
            f: 8192.0,
            derate: Derate::PEAK,
            controls: Controls::All,
        }
    }
}

impl RooflineParams {
    /// The operation these parameters describe.
    pub fn op(&self) -> Op {
        self.kind
            .build(self.b, self.d, self.f, self.act, self.weight)
    }

    /// The chart's static model (with the second chip's roofs, if one is chosen).
    pub fn model(&self) -> Option<RoofModel> {
        let dtype = self.op().compute_dtype();
        let model = RoofModel::new(self.chip, dtype)?.derated(self.derate);
        match self.vs {
            Some(vs) => model.beside(vs, dtype),
            None => Some(model),
        }
    }

    /// The operation's verdict on the second chip, if one is chosen.
    pub fn vs_verdict(&self) -> Option<Verdict> {
        self.op().verdict(self.vs?)
    }

    /// The chip beside the second one: core's numbers for both, the
    /// operation's time and its verdict on each.
    pub fn comparison(&self) -> Option<Comparison> {
        let vs = self.vs?;
        let op = self.op();
        let (a, b) = (self.analysis()?, op.analyse(vs)?);
        let mut rows = chip_rows(self.chip, vs, op.compute_dtype());
        rows.push(Diff::number(
            "time",
            format!("this {} (overlapped)", self.kind.name()),
            a.lower.0,
            b.lower.0,
            seconds,
        ));
        rows.push(Diff::words(
            "verdict",
            "verdict",
            a.verdict.text(),
            b.verdict.text(),
        ));
        Some(Comparison {
            a: self.chip.name.into(),
            b: vs.name.into(),
            rows,
        })
    }

    /// Core's analysis of the operation on the chip at the derated rates.
    pub fn analysis(&self) -> Option<ridgeline_core::roofline::Analysis> {
        self.op().analyse_derated(self.chip, self.derate)
    }

    /// The HBM ridge the operation is judged against (the achievable roof's
    /// when the chip is derated), FLOPs per byte.
    pub fn ridge(&self) -> Option<f64> {
        self.model()?.ceiling().map(|(_, r)| r.ridge)
    }

    /// The share of the quoted peak FLOPs/s the operation reaches: its
    /// share of the derated roof times the FLOPs share assumed.
    pub fn of_peak(&self) -> Option<f64> {
        Some(self.analysis()?.utilisation() * self.derate.flops())
    }

    /// The batch at which the op crosses the HBM ridge (matmuls only), if it does.
    pub fn crossing_batch(&self) -> Option<f64> {
        let ridge = self.ridge()?;
        let op = self.op();
        if op.kind() != OpKind::Matmul {
            return None;
        }
        op.critical_batch(ridgeline_core::units::Intensity(ridge))
            .map(f64::ceil)
    }

    /// The sentence about where the op crosses the HBM ridge.
    pub fn crossing(&self) -> String {
        let op = self.op();
        let Some(ridge) = self.ridge() else {
            return String::new();
        };
        let name = self.chip.name;
        match op.critical_batch(ridgeline_core::units::Intensity(ridge)) {
            Some(b) if op.kind() == OpKind::Matmul => format!(
                "Crosses the HBM ridge ({} FLOPs/B) at B ≈ {} on {name}.",
                sci(ridge, 3),
                grouped(b.ceil())
            ),
            Some(_) => format!("Compute-bound at any size on {name}."),
            None => format!(
                "Never compute-bound on {name}: its intensity tends to {} FLOPs/B, below the ridge of {}.",
                sci(op.asymptotic_intensity().0, 3),
                sci(ridge, 3)
            ),
        }
    }
}

impl WidgetParams for RooflineParams {
    const ORDER: &'static [&'static [&'static str]] = &[&["chip", VS]];

    /// Sets one parameter from text, or explains why not (the params stay as they were).
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut next = *self;
        match key {
            "chip" => next.chip = super::controls::chip(value)?,
            VS => next.vs = super::compare::vs_chip(value)?,
            "dtype" | "act" => next.act = super::controls::dtype(value)?,
            "weight" => next.weight = super::controls::dtype(value)?,
            "op" => {
                next.kind = OpKind::parse(value)
                    .ok_or_else(|| format!("unknown operation “{}”", short(value)))?
            }
            "b" => next.b = parse_count(value, "batch B", B_MIN, B_MAX)?.round(),
            "d" => next.d = parse_count(value, "D", 1.0, DIM_MAX)?.round(),
            "f" => next.f = parse_count(value, "F", 1.0, DIM_MAX)?.round(),
            "controls" => next.controls = Controls::parse(value)?,
            other => match derate::apply(&SHARES, next.derate, other, value) {
                Some(d) => next.derate = d?,
                None => return Err(super::params::unknown_setting(other)),
            },
        }
        let dtype = next.op().compute_dtype();
        if next.chip.peak_or_wider(dtype).is_none() {
            return Err(format!(
                "{} has no {dtype} rate in the book's tables",
                next.chip.name
            ));
        }
        if let Some(vs) = next.vs.filter(|vs| vs.peak_or_wider(dtype).is_none()) {
            return Err(format!(
                "{} (compared) has no {dtype} rate in the book's tables",
                vs.name
            ));
        }
        *self = next;
        Ok(())
    }

    /// The parameters as `key=value` pairs, for the URL.
    fn to_pairs(&self) -> Vec<(String, String)> {
        let mut pairs = vec![
            ("chip".into(), self.chip.id.into()),
            ("op".into(), self.kind.name().into()),
            ("act".into(), self.act.name().into()),
            ("weight".into(), self.weight.name().into()),
            ("b".into(), format!("{}", self.b)),
            ("d".into(), format!("{}", self.d)),
            ("f".into(), format!("{}", self.f)),
        ];
        pairs.extend(self.vs.map(|vs| (VS.into(), vs.id.into())));
        pairs.extend(derate::pairs(&SHARES, self.derate));
        if self.controls != Controls::All {
            pairs.push(("controls".into(), self.controls.name().into()));
        }
        pairs
    }
}

/// The formats both the chip and the compared one (if any) have a rate for.
fn dtype_options(chip: &Chip, vs: Option<&Chip>) -> Vec<Dtype> {
    Dtype::ALL
        .into_iter()
        .filter(|d| chip.peak_or_wider(*d).is_some())
        .filter(|d| vs.is_none_or(|vs| vs.peak_or_wider(*d).is_some()))
        .collect()
}

/// The roofline widget.
#[component]
pub fn Roofline(
    /// The chapter's `key=value` arguments (URL parameters override them).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let state = WidgetState::<RooflineParams>::new(&args);
    let WidgetState { params, notice } = state;
    let set = move |key: &'static str, value: String| {
        // A refused second chip is put back in its select.
        state.set_or_refresh(key, &value, key == VS);
    };

    let overlay_ref = NodeRef::<Div>::new();
    let frame = Frame::new(SHAPE);

    // The static layer only changes with the chip or the compute format.
    let static_key = Memo::new(move |_| {
        params.with(|p| {
            let d = p.derate;
            (
                p.chip.id,
                p.vs.map(|c| c.id),
                p.op().compute_dtype(),
                (d.flops().to_bits(), d.hbm().to_bits()),
            )
        })
    });
    let base = Memo::new(move |_| {
        let _ = static_key.get();
        let size = frame.get();
        params.with_untracked(|p| p.model()).map(|model| {
            svg(size.width, size.height, |root| {
                draw_static(root, &model, false).ok()
            })
        })
    });
    let base_svg = move || base.with(|b| b.as_ref().map(|(s, _)| s.clone()).unwrap_or_default());
    // The point moves with every input event.
    let point_svg = move || {
        params.with(|p| {
            let Some(model) = p.model() else {
                return String::new();
            };
            let point = OpPoint::of(&p.op(), &model);
            let second = OpPoint::on_second(&p.op(), &model);
            let label = format!("B = {}, I = {}", grouped(p.b), sci(point.intensity, 3));
            let size = frame.get();
            svg(size.width, size.height, |root| {
                let _ = draw_point(root, &model, &point, second.as_ref(), &label, false);
            })
            .0
        })
    };

    let analysis = Memo::new(move |_| params.with(|p| p.analysis()));
    let verdict = move || {
        analysis.with(|a| {
            a.as_ref()
                .map(|a| a.verdict)
                .unwrap_or(Verdict::MemoryBound)
        })
    };
    let time_of = move |pick: fn(&ridgeline_core::roofline::Analysis) -> f64| {
        analysis.with(|a| a.as_ref().map(|a| seconds(pick(a))).unwrap_or_default())
    };

    let dragging = RwSignal::new(false);
    let revealed = RwSignal::new(false);
    let drag_to = move |client_x: i32| {
        let Some(layer) = overlay_ref.get_untracked() else {
            return;
        };
        let Some(a) = base.with_untracked(|b| b.as_ref().and_then(|(_, a)| *a)) else {
            return;
        };
        let target = a.intensity_at(plot_x(&layer, client_x, frame.get_untracked().width));
        let op = params.get_untracked().op();
        let b = op
            .batch_for_intensity(target, B_MIN, B_MAX)
            .round()
            .clamp(B_MIN, B_MAX);
        set("b", format!("{b}"));
    };
    let kind_options = OpKind::ALL
        .into_iter()
        .map(|k| option(k.name(), k.label(), move || params.with(|p| p.kind.name())))
        .collect_view();
    let dtype_list = Memo::new(move |_| params.with(|p| dtype_options(p.chip, p.vs)));
    let vs_id = move || params.with(|p| p.vs.map_or("", |c| c.id));
    let vs_options = super::controls::chip_options(super::controls::any, vs_id);
    let vs_verdict = move || {
        params.with(|p| {
            let (vs, v) = (p.vs?, p.vs_verdict()?);
            Some(view! {
                " on " {p.chip.name} "; on " {vs.name} " it is "
                <strong class=format!("verdict {}", v.text()) data-vs-verdict=v.text()>{v.text()}</strong>
            })
        })
    };
    let dtypes = move || dtype_list.get();
    let has_weights =
        move || params.with(|p| matches!(p.kind, OpKind::Matmul | OpKind::PerExampleMatmul));

    // The controls a reader sees are set once, by the chapter or the link.
    let shown = params.with_untracked(|p| p.controls);
    let all = shown == Controls::All;
    let controls = all.then(move || {
        view! {
            <div class="controls">
                {super::controls::chip_picker("Chip ", super::controls::any, move || params.with(|p| p.chip.id).to_string(), set)}
                <label>
                    "Operation "
                    <select
                        prop:value=move || params.with(|p| p.kind.name())
                        on:change=move |ev| set("op", event_target_value(&ev))
                    >
                        {kind_options}
                    </select>
                </label>
                <label>
                    "Activations "
                    <select
                        prop:value=move || params.with(|p| p.act.name())
                        on:change=move |ev| set("act", event_target_value(&ev))
                    >
                        {move || {
                            dtypes()
                                .into_iter()
                                .map(|d| option(d.name(), d.name(), move || params.with(|p| p.act.name())))
                                .collect_view()
                        }}
                    </select>
                </label>
                <Show when=has_weights>
                    <label>
                        "Weights "
                        <select
                            prop:value=move || params.with(|p| p.weight.name())
                            on:change=move |ev| set("weight", event_target_value(&ev))
                        >
                            {move || {
                                dtypes()
                                    .into_iter()
                                    .map(|d| option(d.name(), d.name(), move || params.with(|p| p.weight.name())))
                                    .collect_view()
                            }}
                        </select>
                    </label>
                    {NumberField::new("d", "contracting dimension D", 8).label("D ").view(move || format!("{}", params.with(|p| p.d)), set)}
                    {NumberField::new("f", "output features F", 8).label("F ").view(move || format!("{}", params.with(|p| p.f)), set)}
                </Show>
                {compare_picker(vs_options, vs_id, set)}
            </div>
        }
    });
    let derate = all.then(move || {
        derate::controls(
            "Achievable roof (share of the quoted peak)",
            &[
                (Share::Flops, "roofline-flops-derate"),
                (Share::Hbm, "roofline-hbm-derate"),
            ],
            move || params.with(|p| p.derate),
            move || Derate::achievable(params.get_untracked().chip),
            move || {
                params.with(|p| {
                    format!(
                        "Achievable ({:.0}% of peak FLOPs/s, Part 1)",
                        100.0 * Derate::achievable(p.chip).flops()
                    )
                })
            },
            None,
            set,
        )
    });
    let details = all.then(move || {
        view! {
            <super::predict::Predict
                question="At what batch B does this operation cross the HBM ridge?"
                answer=Signal::derive(move || params.with(|p| p.crossing_batch()))
                revealed=revealed
            />
            <p class="crossing" hidden=move || !revealed.get()>{move || params.with(|p| p.crossing())}</p>
            <dl class="times">
                <div><dt>"T_math"</dt><dd>{move || time_of(|a| a.t_math.0)}</dd></div>
                <div><dt>"T_HBM"</dt><dd>{move || time_of(|a| a.t_comms(Link::Hbm).map(|t| t.0).unwrap_or(f64::NAN))}</dd></div>
                <div><dt>"overlapped (max)"</dt><dd>{move || time_of(|a| a.lower.0)}</dd></div>
                <div><dt>"serial (sum)"</dt><dd>{move || time_of(|a| a.upper.0)}</dd></div>
                <div><dt>"HBM ridge"</dt><dd data-ridge="">{move || params.with(|p| p.ridge().map(|r| format!("{} FLOPs/B", sci(r, 3))).unwrap_or_default())}</dd></div>
                <div>
                    <dt>"of peak"</dt>
                    <dd>{move || params.with(|p| p.of_peak().map(|u| format!("{:.0}%", 100.0 * u)).unwrap_or_default())}</dd>
                </div>
            </dl>
            {compare_table(move || params.with(|p| p.comparison()))}
        }
    });

    view! {
        <figure class="widget roofline" data-widget="roofline" data-controls=shown.name()>
            {controls}
            <div class="plot" node_ref=frame.node style=frame.style()>
                <div class="layer" aria-hidden="true" inner_html=base_svg></div>
                <div
                    node_ref=overlay_ref
                    class="layer overlay"
                    inner_html=point_svg
                    role="img"
                    aria-label=move || {
                        params.with(|p| format!(
                            "Roofline of {}; the operation at batch {} is {}",
                            p.chip.name,
                            grouped(p.b),
                            verdict().text()
                        ))
                    }
                    on:pointerdown=move |ev| {
                        dragging.set(true);
                        if let Some(c) = overlay_ref.get_untracked() {
                            let _ = c.set_pointer_capture(ev.pointer_id());
                        }
                        drag_to(ev.client_x());
                    }
                    on:pointermove=move |ev| {
                        if dragging.get_untracked() {
                            drag_to(ev.client_x());
                        }
                    }
                    on:pointerup=move |_| dragging.set(false)
                    on:pointercancel=move |_| dragging.set(false)
                ></div>
            </div>
            {Slider::positions(STEPS).id("roofline-b").valuetext(move || format!("B = {}", grouped(params.with(|p| p.b)))).log_row("Batch B", LogScale::new(STEPS, move || (B_MIN, B_MAX), rounded), move || params.with(|p| p.b), "b", set, NumberField::new("b", "batch B", 9).class("batch-text").view(move || format!("{}", params.with(|p| p.b)), set))}
            {derate}
            <p class="verdict-line">
                "At B = "
                {move || grouped(params.with(|p| p.b))}
                " this "
                {move || params.with(|p| p.kind.name())}
                " is "
                <strong
                    class=move || format!("verdict {}", verdict().text())
                    data-verdict=move || verdict().text()
                    aria-live="polite"
                >
                    {move || verdict().text()}
                </strong>
                {vs_verdict}
                "."
            </p>
            {details}
            <Notice notice=notice />
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::widgets::params::pairs;
    use crate::widgets::params::testing::{assert_refused_keeps, assert_round_trip};

    #[test]
    fn defaults_are_a_memory_bound_v5e_matmul() {
        let p = RooflineParams::default();
        assert_eq!(p.chip.id, "v5e");
        assert_eq!(p.op().verdict(p.chip), Some(Verdict::MemoryBound));
        assert!(p.crossing().contains("B ≈ 256"), "{}", p.crossing());
    }

    #[test]
    fn bad_values_are_explained_and_ignored() {
        let (p, notices) = RooflineParams::from_pairs(&pairs(&[
            ("chip", "h100"),
            ("b", "-5"),
            ("d", "NaN"),
            ("f", "1e999"),
            ("op", "<script>"),
            ("act", "f32"),
        ]));
        assert_eq!(p.chip.id, "h100");
        assert_eq!(p.b, RooflineParams::default().b);
        assert_eq!(notices.len(), 5, "{notices:?}");
        assert!(
            notices.iter().any(|n| n.contains("no f32 rate")),
            "{notices:?}"
        );
    }

    #[test]
    fn pairs_round_trip() {
        assert_round_trip::<RooflineParams>(&[("chip", "b200"), ("act", "fp4"), ("b", "512")]);
    }

    #[test]
    fn a_second_chip_gets_cores_numbers_and_its_own_verdict() {
        let (p, refused) = RooflineParams::from_pairs(&pairs(&[("vs", "h100"), ("b", "300")]));
        assert!(refused.is_empty(), "{refused:?}");
        let h100 = chip("h100").unwrap();
        assert_eq!(p.vs.map(|c| c.id), Some("h100"));
        // At B = 300 the 8192 × 8192 matmul is past v5e's ridge (240) but
        // below H100's (9.9e14 / 3.35e12 ≈ 296), as core says for each chip.
        assert_eq!(p.op().verdict(p.chip), Some(Verdict::ComputeBound));
        assert_eq!(p.vs_verdict(), Some(Verdict::MemoryBound));
        let c = p.comparison().unwrap();
        assert_eq!((c.a.as_str(), c.b.as_str()), ("TPU v5e", "NVIDIA H100"));
        let ridge = c.row("ridge").unwrap();
        assert_eq!(
            ridge.b,
            format!(
                "{} FLOPs/B",
                sci(h100.ridge(Dtype::Bf16, Link::Hbm).unwrap().0, 3)
            )
        );
        assert_eq!(ridge.b, "296 FLOPs/B");
        let verdicts = c.row("verdict").unwrap();
        assert_eq!(
            (verdicts.a.as_str(), verdicts.b.as_str()),
            ("compute-bound", "memory-bound")
        );
        let time = c.row("time").unwrap();
        let core = p.op().analyse(h100).unwrap().lower.0;
        assert_eq!(time.b, seconds(core));
        // The chart draws both chips' ridges.
        let model = p.model().unwrap();
        assert_eq!(model.second.as_ref().map(|s| s.chip), Some("NVIDIA H100"));
        // Without a second chip there is nothing to compare.
        assert_eq!(RooflineParams::default().comparison(), None);
    }

    #[test]
    fn vs_round_trips_and_bad_ids_are_refused() {
        let p: RooflineParams = assert_round_trip(&[("chip", "v5p"), ("vs", "b200")]);
        assert!(p.to_pairs().contains(&("vs".into(), "b200".into())));
        // Nothing chosen: no `vs` in the link.
        assert!(RooflineParams::default()
            .to_pairs()
            .iter()
            .all(|(k, _)| k != "vs"));
        let messages = assert_refused_keeps(&p, &[("vs", "h900"), ("vs", "my:nothing")]);
        assert!(messages[0].contains("h900"), "{}", messages[0]);
        // Choosing "nothing" clears it.
        let mut q = p;
        q.apply("vs", "").unwrap();
        assert_eq!(q.vs, None);
        // The same chip on both sides is allowed: every ratio reads "same".
        let mut same = RooflineParams::default();
        same.apply("vs", "v5e").unwrap();
        let c = same.comparison().unwrap();
        assert!(c.rows.iter().all(|d| d.ratio_text() == "same"), "{c:?}");
    }

    #[test]
    fn the_batch_alone_round_trips_and_other_controls_are_refused_by_name() {
        let p: RooflineParams = assert_round_trip(&[("controls", "batch"), ("b", "300")]);
        assert_eq!(p.controls, Controls::Batch);
        // Every control is the default, and leaves nothing in the link.
        assert_eq!(RooflineParams::default().controls, Controls::All);
        assert!(RooflineParams::default()
            .to_pairs()
            .iter()
            .all(|(k, _)| k != "controls"));
        let messages = assert_refused_keeps(&p, &[("controls", "none"), ("controls", "")]);
        assert_eq!(messages[0], "controls must be “all” or “batch”, not “none”");
        assert_eq!(messages[1], "controls must be “all” or “batch”, not “”");
        // The controls shown change no number.
        let mut q = p;
        q.apply("controls", "all").unwrap();
        assert_eq!(q.analysis(), p.analysis());
    }

    #[test]
    fn never_crossing_ops_say_so() {
        let (p, _) = RooflineParams::from_pairs(&pairs(&[("op", "dot")]));
        assert!(
            p.crossing().starts_with("Never compute-bound"),
            "{}",
            p.crossing()
        );
    }

    #[test]
    fn the_derate_moves_every_number_below_the_chart() {
        let base = RooflineParams::default();
        let (p, refused) = RooflineParams::from_pairs(&pairs(&[("flops_derate", "0.8")]));
        assert!(refused.is_empty(), "{refused:?}");
        assert_eq!(p.derate.flops(), 0.8);
        // The quoted peak changes nothing: the numbers are core's undrated ones.
        assert_eq!(base.analysis(), base.op().analyse(base.chip));
        assert_eq!(base.model().unwrap().achievable, None);
        // At 80 % of peak FLOPs/s the math takes 1/0.8 as long, the ridge
        // falls from 240 to 192 FLOPs/B and B = 210 (intensity 199.8)
        // turns compute-bound; the crossing batch falls with the ridge.
        let (a, b) = (base.analysis().unwrap(), p.analysis().unwrap());
        assert!((b.t_math.0 / a.t_math.0 - 1.25).abs() < 1e-12);
        assert_eq!(sci(base.ridge().unwrap(), 3), "240");
        assert_eq!(sci(p.ridge().unwrap(), 3), "192");
        assert!(p.crossing().contains("192 FLOPs/B"), "{}", p.crossing());
        assert!(p.crossing_batch().unwrap() < base.crossing_batch().unwrap());
        let mut q = p;
        q.apply("b", "210").unwrap();
        let mut r = base;
        r.apply("b", "210").unwrap();
        assert_eq!(q.analysis().unwrap().verdict, Verdict::ComputeBound);
        assert_eq!(r.analysis().unwrap().verdict, Verdict::MemoryBound);
        // The point sits under the achievable roof, which the chart draws.
        let model = q.model().unwrap();
        let point = OpPoint::of(&q.op(), &model);
        assert_eq!(point.verdict, Verdict::ComputeBound);
        assert_eq!(point.attainable, model.achievable.as_ref().unwrap().peak);
        // Compute-bound on the derated roof, it reaches 80 % of the quoted peak.
        assert!((q.of_peak().unwrap() - 0.8).abs() < 1e-12);
        // A slower HBM stretches the memory time of a memory-bound op.
        let (h, _) = RooflineParams::from_pairs(&pairs(&[("hbm_derate", "0.5")]));
        let hbm = |p: &RooflineParams| p.analysis().unwrap().lower.0;
        assert!((hbm(&h) / hbm(&base) - 2.0).abs() < 1e-12);
    }

    #[test]
    fn the_derate_round_trips_and_bad_shares_are_refused_by_name() {
        let p: RooflineParams = assert_round_trip(&[
            ("chip", "h100"),
            ("flops_derate", "0.8"),
            ("hbm_derate", "0.9"),
        ]);
        assert_eq!((p.derate.flops(), p.derate.hbm()), (0.8, 0.9));
        // The quoted peak leaves no derate in the link.
        assert!(RooflineParams::default()
            .to_pairs()
            .iter()
            .all(|(k, _)| !k.ends_with("derate")));
        let messages = assert_refused_keeps(
            &p,
            &[
                ("flops_derate", "0"),
                ("flops_derate", "1.5"),
                ("hbm_derate", "-1"),
                ("hbm_derate", "lots"),
            ],
        );
        assert!(
            messages[0] == "the FLOPs derate must be at least 0.05",
            "{}",
            messages[0]
        );
        assert!(
            messages[1].starts_with("the FLOPs derate"),
            "{}",
            messages[1]
        );
        assert!(messages[2].starts_with("the HBM derate"), "{}", messages[2]);
        assert!(messages[3].starts_with("the HBM derate"), "{}", messages[3]);
    }

    #[test]
    fn the_achievable_preset_is_parts_one_share() {
        let mut p = RooflineParams::default();
        p.apply("chip", "h100").unwrap();
        let d = Derate::achievable(p.chip);
        p.apply("flops_derate", &format!("{}", d.flops())).unwrap();
        assert_eq!(p.derate, d);
        // The chart labels the achievable roof with the shares it assumes.
        let a = p.model().unwrap().achievable.unwrap();
        assert_eq!(a.derate.flops(), 0.8);
        assert_eq!(
            p.to_pairs().last(),
            Some(&("flops_derate".into(), "0.8".into()))
        );
    }
}
