//! 1D against 2D weight-stationary sharding (`data-widget="weight-stationary"`,
//! Part 7, Appendix B and Q7). Megatron (1D) sharding splits an MLP's weights
//! over `F` only, so every chip gathers the whole activation and its
//! communication per layer, `4BD/(3·W_ici)` on a 3D torus, does not shrink as
//! chips are added. 2D weight-stationary sharding also splits `D` over `X`
//! chips and communicates `2BD/(X·W) + 4BF/(YZ·W)`, which falls as `1/sqrt(N)`
//! at the best split. The widget draws both against the chip count, marks the
//! crossover `N = 32·(F/D)·(3/4)²` computed by `core` (72 chips for `F = 4D`)
//! and reads both times off at the reader's chip count. A second MLP (`vs`, a
//! dense model or the book's case) may be drawn on the same axes, dashed, with
//! its verdict at the same chip count and a table of the differences.

use super::controls::Notice;
use super::controls::NumberField;
use super::controls::Slider;
use leptos::prelude::*;
use ridgeline_core::format::{grouped, seconds};
use ridgeline_core::hardware::{chip, Chip, CHIPS};
use ridgeline_core::inference::serving::{weight_stationary, WeightStationaryParams};
use ridgeline_core::model::config::ModelPreset;

use super::compare::{compare_picker, compare_table, parse_vs, Comparison, Diff, VS};
use super::controls::option;
use super::params::{WidgetParams, WidgetState};
use crate::charts::size::{Frame, Shape, Size};
use crate::charts::svg;
use crate::charts::weight_stationary::{draw, WeightStationaryView};
use crate::input::{parse_count, short};
use ridgeline_core::check::whole;

/// The chart's drawing size (SVG user units).
const SHAPE: Shape = Shape::new(760, 380, 320);
/// The largest power of two the chip slider reaches (`2^MAX_LOG2` = 8192 chips).
pub const MAX_LOG2: u32 = 13;
/// The `model` value of the book's own case: `D = 8192`, `F = 4D`.
pub const BOOK: &str = "book";
/// The book's `D` for its `F = 4D` case.
const BOOK_D: f64 = 8192.0;

/// Whose MLP is sharded: the book's `F = 4D` case or a dense preset's shape.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Mlp {
    /// `D = 8192`, `F = 4D` (the book's assumption, as in LLaMA-2).
    Book,
    /// A dense model preset's `d_model` and `d_ff`.
    Preset(&'static ModelPreset),
}

impl Mlp {
    /// The directive value.
    pub fn id(self) -> &'static str {
        match self {
            Mlp::Book => BOOK,
            Mlp::Preset(m) => m.id,
        }
    }

    /// The name the chart and the comparison show.
    pub fn name(self) -> &'static str {
        match self {
            Mlp::Book => "the book's F = 4D",
            Mlp::Preset(m) => m.name,
        }
    }

    /// The MLP a `model` or `vs` value names: the book's case or a dense model.
    pub fn parse(value: &str) -> Result<Mlp, String> {
        if value.trim() == BOOK {
            return Ok(Mlp::Book);
        }
        let m = super::controls::model(value)?;
        if !dense(m) {
            return Err(format!(
                "{} is a Mixture-of-Experts model; pick a dense one",
                m.name
            ));
        }
        Ok(Mlp::Preset(m))
    }

    /// `(D, F)`.
    pub fn dims(self) -> (f64, f64) {
        match self {
            Mlp::Book => (BOOK_D, 4.0 * BOOK_D),
            Mlp::Preset(m) => (m.config.d_model as f64, m.config.d_ff as f64),
        }
    }
}

/// The reader's settings; always valid.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WeightStationaryWidgetParams {
    /// The MLP's shape.
    pub mlp: Mlp,
    /// The chip whose ICI carries the activations.
    pub chip: &'static Chip,
    /// Tokens in the batch, `B`.
    pub batch: f64,
    /// The chip count read off, `N = 2^log2`.
    pub log2: u32,
    /// A second MLP drawn on the same axes, if any.
    pub vs: Option<Mlp>,
}

impl Default for WeightStationaryWidgetParams {
    fn default() -> Self {
        WeightStationaryWidgetParams {
            mlp: Mlp::Book,
            chip: chip("v5e").unwrap_or(&CHIPS[0]),
            batch: 128.0,
            log2: 8,
            vs: None,
        }
    }
}

/// Dense presets only: a Mixture-of-Experts layer's `F` is per expert, and its
/// sharding is the `moe` widget's subject.
fn dense(m: &ModelPreset) -> bool {
    m.config.moe.is_none()
}

impl WeightStationaryWidgetParams {
    /// The chip count read off.
    pub fn chips(&self) -> u64 {
        1 << self.log2
    }

    /// Computes the view from `core`.
    pub fn view(&self) -> Result<WeightStationaryView, String> {
        let (d_model, d_ff) = self.mlp.dims();
        let report = weight_stationary(&WeightStationaryParams {
            chip: self.chip,
            batch: self.batch,
            d_model,
            d_ff,
            max_chips: 1 << MAX_LOG2,
        })?;
        let at = report
            .points
            .iter()
            .find(|p| p.chips == self.chips())
            .copied()
            .ok_or_else(|| format!("{} chips are outside the chart", self.chips()))?;
        Ok(WeightStationaryView { report, at })
    }

    /// The compared MLP's view at the same chip, batch and chip count.
    pub fn vs_view(&self) -> Option<Result<WeightStationaryView, String>> {
        let mlp = self.vs?;
        Some(
            WeightStationaryWidgetParams {
                mlp,
                vs: None,
                ..*self
            }
            .view(),
        )
    }

    /// This MLP beside the compared one: its shape, the crossover, both
    /// times at the reader's chip count and which scheme wins there.
    pub fn comparison(&self) -> Option<Comparison> {
        let (a, b) = (self.view().ok()?, self.vs_view()?.ok()?);
        let other = self.vs?;
        let ((da, fa), (db, fb)) = (self.mlp.dims(), other.dims());
        let winner = |v: &WeightStationaryView| if v.two_d_wins() { "2D" } else { "1D" };
        let n = self.chips();
        let at =
            |key, scheme, x, y| Diff::number(key, format!("{scheme} on {n} chips"), x, y, seconds);
        Some(Comparison {
            a: self.mlp.name().into(),
            b: other.name().into(),
            rows: vec![
                Diff::number("f-over-d", "F / D", fa / da, fb / db, |x| format!("{x:.3}")),
                Diff::number(
                    "crossover",
                    "2D wins above N =",
                    a.report.crossover,
                    b.report.crossover,
                    grouped,
                ),
                at("one-d", "1D", a.at.one_d.0, b.at.one_d.0),
                at("two-d", "2D", a.at.two_d.0, b.at.two_d.0),
                Diff::words("winner", "communicates less", winner(&a), winner(&b)),
            ],
        })
    }

    /// The chart as inline SVG.
    pub fn chart_svg(&self, size: Size) -> String {
        let vs = self
            .vs_view()
            .and_then(Result::ok)
            .zip(self.vs.map(Mlp::name));
        self.view()
            .ok()
            .map(|v| svg(size.width, size.height, |root| draw(root, &v, vs.as_ref())).0)
            .unwrap_or_default()
    }
}

impl WidgetParams for WeightStationaryWidgetParams {
    /// Sets one parameter from text, or explains why not.
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut next = *self;
        match key {
            "model" => next.mlp = Mlp::parse(value)?,
            VS => {
                next.vs = match value.trim() {
                    BOOK => Some(Mlp::Book),
                    _ => parse_vs(value, "dense model", |id| {
                        crate::library::resolve_model(id).filter(|m| dense(m))
                    })?
                    .map(Mlp::Preset),
                }
            }
            "chip" => next.chip = super::controls::chip(value)?,
            "b" => next.batch = parse_count(value, "batch B", 1.0, 1e6)?.round(),
            "n" => {
                let n = parse_count(value, "chips N", 2.0, (1u64 << MAX_LOG2) as f64)?;
                let log2 = n.log2().round();
                if (2f64.powf(log2) - n).abs() > 1e-9 {
                    return Err(format!(
                        "chips N must be a power of two, not {}",
                        short(value)
                    ));
                }
                next.log2 = whole(log2).unwrap_or_default();
            }
            other => return Err(super::params::unknown_setting(other)),
        }
        next.view()?;
        if let Some(Err(e)) = next.vs_view() {
            return Err(format!("compared MLP: {e}"));
        }
        *self = next;
        Ok(())
    }

    /// The parameters as `key=value` pairs.
    fn to_pairs(&self) -> Vec<(String, String)> {
        vec![
            ("model".into(), self.mlp.id().into()),
            ("chip".into(), self.chip.id.into()),
            ("b".into(), format!("{}", self.batch)),
            ("n".into(), format!("{}", self.chips())),
        ]
        .into_iter()
        .chain(self.vs.map(|m| (VS.into(), m.id().into())))
        .collect()
    }
}

/// The two curves' legend entries; on a phone the 2D entry drops "best
/// split", which the text around the chart explains.
/// The weight-stationary widget.
#[component]
pub fn WeightStationaryWidget(
    /// The chapter's `key=value` arguments (URL parameters override them).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let state = WidgetState::<WeightStationaryWidgetParams>::new(&args);
    let WidgetState { params, notice } = state;
    let set = move |key: &'static str, value: String| {
        // Put a refused comparison back to the last valid one.
        state.set_or_refresh(key, &value, key == VS);
    };
    let view_ = Memo::new(move |_| params.with(WeightStationaryWidgetParams::view).ok());
    let frame = Frame::new(SHAPE);
    let chart = move || params.with(|p| p.chart_svg(frame.get()));
    let shown = move |f: fn(&WeightStationaryView) -> String| {
        move || view_.with(|v| v.as_ref().map(f).unwrap_or_default())
    };
    let chips = move || grouped(params.with(|p| p.chips()) as f64);
    let log2 = move || format!("{}", params.with(|p| p.log2));
    let batch = move || format!("{}", params.with(|p| p.batch));
    let mlp_id = move || params.with(|p| p.mlp.id());
    let model_options = view! {
        {option(BOOK, "The book's F = 4D (D = 8192)", mlp_id)}
        {super::controls::model_options(dense, mlp_id)}
    };
    let vs_id = move || params.with(|p| p.vs.map_or("", Mlp::id));
    let vs_options = view! {
        {option(BOOK, "The book's F = 4D (D = 8192)", vs_id)}
        {super::controls::model_options(dense, vs_id)}
    }
    .into_any();
    let vs_verdict = move || {
        params.with(|p| {
            let (other, v) = (p.vs?, p.vs_view()?.ok()?);
            let word = if v.two_d_wins() { "2D" } else { "1D" };
            Some(view! {
                " For " {other.name()} ", "
                <strong class="ws-verdict" data-vs-verdict=word>{word}</strong>
                {format!(" communicates less ({} against {}; 2D wins above N = {}).",
                    seconds(v.at.one_d.0), seconds(v.at.two_d.0), grouped(v.report.crossover))}
            })
        })
    };
    let verdict = move || {
        view_.with(|v| match v {
            Some(v) if v.two_d_wins() => "2D",
            _ => "1D",
        })
    };

    view! {
        <figure class="widget weight-stationary" data-widget="weight-stationary">
            <div class="controls">
                <label>
                    "MLP "
                    <select
                        prop:value=move || params.with(|p| p.mlp.id())
                        on:change=move |ev| set("model", event_target_value(&ev))
                    >
                        {model_options}
                    </select>
                </label>
                {super::controls::chip_picker("Chip ", |c| c.interconnect().is_some(), move || params.with(|p| p.chip.id).to_string(), set)}
                {compare_picker(vs_options, vs_id, set)}
                {NumberField::new("b", "batch B (tokens)", 7).label("B ").view(batch, set)}
            </div>
            {Slider::new(1, || MAX_LOG2.to_string(), "1").id("weight-stationary-n").valuetext(move || format!("N = {}", chips())).row("Chips N", move || log2().to_string(), move |v: String| {
                    let k = v.parse::<u32>().unwrap_or(1).clamp(1, MAX_LOG2);
                    set("n", format!("{}", 1u64 << k));
                }, view! { <output data-chips="">{move || format!("N = {}", chips())}</output> })}
            <div class="plot" node_ref=frame.node style=frame.style()>
                <div class="layer" inner_html=chart role="img"
                    aria-label=move || format!("communication per layer against chips for 1D and 2D weight-stationary sharding; the marker is at N = {}", chips())></div>
            </div>
            <p class="verdict-line">
                "On " {chips} " chips, 1D sharding communicates "
                <strong data-one-d="">{shown(|v| seconds(v.at.one_d.0))}</strong>
                " per layer and 2D weight-stationary "
                <strong data-two-d="">{shown(|v| seconds(v.at.two_d.0))}</strong>
                " (X = " <span data-x="">{shown(|v| format!("{:.1}", v.at.split.0))}</span>
                " chips along D, YZ = " <span data-yz="">{shown(|v| format!("{:.1}", v.at.split.1))}</span>
                " along F): " <strong class="ws-verdict" data-verdict=verdict>{verdict}</strong> " communicates less. "
                "2D wins above N = " <strong data-crossover="">{shown(|v| grouped(v.report.crossover))}</strong>
                " chips, whatever the batch and the chip."
                {vs_verdict}
            </p>
            {compare_table(move || params.with(|p| p.comparison()))}
            <p class="caption">
                "The split is the continuous optimum X = √(N·D/(2F)), held at one chip or more; "
                "a real mesh rounds it to factors of N. Both times grow in proportion to B."
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
    fn book_case_crosses_at_72_chips_and_matches_its_formulas() {
        let p = WeightStationaryWidgetParams::default();
        let v = p.view().unwrap();
        // N > 32·(F/D)·(3/4)² = 72 for F = 4D (Part 7 Q7).
        assert_eq!(v.report.crossover, 72.0);
        let w = p.chip.interconnect().unwrap().bandwidth.0;
        let (b, d) = (128.0, 8192.0);
        // 1D: 4BD/(3W); 2D at the best split: sqrt(128)·B·D/(sqrt(N)·W).
        assert!((v.at.one_d.0 - 4.0 * b * d / (3.0 * w)).abs() < 1e-15);
        let two = 128f64.sqrt() * b * d / (256f64.sqrt() * w);
        assert!((v.at.two_d.0 - two).abs() < 1e-15, "{:?}", v.at);
        // X = sqrt(N/8), YZ = sqrt(8N) at N = 256.
        assert!((v.at.split.0 - 32f64.sqrt()).abs() < 1e-12);
        assert!((v.at.split.1 - 2048f64.sqrt()).abs() < 1e-9);
        assert!(v.two_d_wins());
        // Below the crossover 1D communicates less.
        let mut q = p;
        q.apply("n", "64").unwrap();
        assert!(!q.view().unwrap().two_d_wins());
        q.apply("n", "128").unwrap();
        assert!(q.view().unwrap().two_d_wins());
    }

    #[test]
    fn a_preset_moves_the_crossover_and_the_chart_marks_it() {
        let mut p = WeightStationaryWidgetParams::default();
        p.apply("model", "llama3-70b").unwrap();
        // F/D = 28672/8192 = 3.5: 32 × 3.5 × 0.5625 = 63.
        assert_eq!(p.view().unwrap().report.crossover, 63.0);
        let svg = p.chart_svg(SHAPE.design());
        assert!(svg.contains("crossover N = 63"), "{svg}");
        assert!(svg.contains("2D weight-stationary"), "{svg}");
        let narrow = p.chart_svg(SHAPE.at(320.0));
        assert!(narrow.contains("\nN = 63\n"), "{narrow}");
        // The batch scales both times and leaves the crossover.
        let before = p.view().unwrap();
        p.apply("b", "256").unwrap();
        let after = p.view().unwrap();
        assert!((after.at.one_d.0 / before.at.one_d.0 - 2.0).abs() < 1e-12);
        assert_eq!(after.report.crossover, before.report.crossover);
    }

    #[test]
    fn a_second_mlp_is_drawn_dashed_on_the_same_axes() {
        use crate::widgets::params::testing::assert_pairs_restore;
        let mut p = WeightStationaryWidgetParams::default();
        p.apply("vs", "llama3-70b").unwrap();
        assert_pairs_restore(&p);
        let other = WeightStationaryWidgetParams {
            mlp: Mlp::parse("llama3-70b").unwrap(),
            ..WeightStationaryWidgetParams::default()
        }
        .view()
        .unwrap();
        let c = p.comparison().unwrap();
        assert_eq!(c.row("crossover").unwrap().a, "72");
        assert_eq!(
            c.row("crossover").unwrap().b,
            grouped(other.report.crossover)
        );
        assert_eq!(c.row("two-d").unwrap().b, seconds(other.at.two_d.0));
        assert_eq!(c.row("winner").unwrap().b, "2D");
        for width in [SHAPE.design(), SHAPE.at(267.0)] {
            let svg = p.chart_svg(width);
            assert!(svg.contains("2D: LLaMA 3 70B"), "{svg}");
            assert!(svg.contains("1D: LLaMA 3 70B"), "{svg}");
        }
        // The book's case compares too; an MoE or unknown model is refused.
        p.apply("model", "llama3-8b").unwrap();
        p.apply("vs", "book").unwrap();
        assert_pairs_restore(&p);
        assert_eq!(p.comparison().unwrap().row("crossover").unwrap().b, "72");
        let messages = assert_refused_keeps(&p, &[("vs", "mixtral-8x7b"), ("vs", "gpt-9")]);
        assert!(messages[1].contains("gpt-9"), "{messages:?}");
        p.apply("vs", "").unwrap();
        assert_eq!(p.comparison(), None);
        assert!(!p.chart_svg(SHAPE.design()).contains("LLaMA 3 70B"));
    }

    #[test]
    fn bad_input_keeps_the_state_and_pairs_round_trip() {
        assert_refused_keeps(
            &WeightStationaryWidgetParams::default(),
            &[
                ("n", "100"),
                ("n", "1"),
                ("n", "16384"),
                ("n", "x"),
                ("b", "0"),
                ("b", "-4"),
                ("model", "mixtral-8x7b"),
                ("model", "nope"),
                ("chip", "nope"),
                ("q", "1"),
            ],
        );
        let q: WeightStationaryWidgetParams = assert_round_trip(&[
            ("model", "llama2-13b"),
            ("chip", "v4p"),
            ("b", "32"),
            ("n", "1024"),
        ]);
        assert_eq!(q.chips(), 1024);
    }
}
