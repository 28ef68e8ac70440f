//! Speculative sampling (`data-widget="speculative"`, Part 7, Appendix D): a
//! small model drafts `k` tokens, the large one checks them in one step. The
//! reader sets the draft length, the chance each drafted token is accepted and
//! a draft step's cost relative to a target step; the widget shows the
//! expected tokens per target step, the speedup over plain decoding, the best
//! draft length, both against `k` in a chart, and a seeded run of many rounds
//! that checks the expectation.

use super::controls::Notice;
use super::controls::Slider;
use leptos::prelude::*;
use ridgeline_core::inference::serving::{
    best_draft, simulate_speculative, speculative, SpeculativeParams,
};

use super::params::{WidgetParams, WidgetState};
use crate::charts::size::{Frame, Shape, Size};
use crate::charts::speculative::{draw, SpecView};
use crate::charts::svg;
use crate::input::{parse_count, parse_whole};

/// The longest draft on the slider and the chart.
pub const MAX_DRAFT: u32 = 16;
/// Rounds of the seeded check.
pub const ROUNDS: u32 = 4000;
/// The chart's drawing size (SVG user units).
const SHAPE: Shape = Shape::new(760, 340, 300);

/// The reader's settings; always valid.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpecParams {
    /// Draft length, acceptance and draft cost.
    pub spec: SpeculativeParams,
}

impl Default for SpecParams {
    /// The chapter's example: four drafted tokens, 80 % accepted, a draft step
    /// costing a twentieth of a target step.
    fn default() -> Self {
        SpecParams {
            spec: SpeculativeParams {
                draft: 4,
                accept: 0.8,
                draft_cost: 0.05,
            },
        }
    }
}

impl SpecParams {
    /// Computes the view.
    pub fn view(&self) -> Result<SpecView, String> {
        let s = self.spec;
        let curve = (0..=MAX_DRAFT)
            .map(|k| {
                speculative(&SpeculativeParams { draft: k, ..s })
                    .map(|r| (k, r.tokens_per_step, r.speedup))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(SpecView {
            at: speculative(&s)?,
            best: best_draft(s.accept, s.draft_cost)?,
            simulated: simulate_speculative(&s, ROUNDS, 1)?,
            curve,
        })
    }

    /// The chart as inline SVG.
    pub fn chart_svg(&self, size: Size) -> String {
        self.view()
            .ok()
            .map(|v| {
                svg(size.width, size.height, |root| {
                    draw(root, self.spec.draft, &v)
                })
                .0
            })
            .unwrap_or_default()
    }
}

impl WidgetParams for SpecParams {
    /// Sets one parameter from text, or explains why not.
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut next = self.spec;
        match key {
            "draft" => {
                next.draft = parse_whole::<u32>(value, "draft length", 0.0, MAX_DRAFT as f64)?
            }
            "accept" => next.accept = parse_count(value, "acceptance", 0.0, 1.0)?,
            "cost" => next.draft_cost = parse_count(value, "draft cost", 0.0, 1.0)?,
            other => return Err(super::params::unknown_setting(other)),
        }
        next.validate()?;
        self.spec = next;
        Ok(())
    }

    /// The parameters as `key=value` pairs.
    fn to_pairs(&self) -> Vec<(String, String)> {
        vec![
            ("draft".into(), format!("{}", self.spec.draft)),
            ("accept".into(), format!("{}", self.spec.accept)),
            ("cost".into(), format!("{}", self.spec.draft_cost)),
        ]
    }
}

/// The speculative-sampling widget.
#[component]
pub fn SpeculativeWidget(
    /// The chapter's `key=value` arguments (URL parameters override them).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let state = WidgetState::<SpecParams>::new(&args);
    let WidgetState { params, notice } = state;
    let set = move |key: &'static str, value: String| {
        state.set(key, &value);
    };
    let view_ = Memo::new(move |_| params.with(SpecParams::view).ok());
    let frame = Frame::new(SHAPE);
    let chart = move || params.with(|p| p.chart_svg(frame.get()));
    let shown = move |f: fn(&SpecView) -> String| {
        move || view_.with(|v| v.as_ref().map(f).unwrap_or_default())
    };
    let draft = move || format!("{}", params.with(|p| p.spec.draft));
    let accept = move || format!("{}", params.with(|p| p.spec.accept));
    let cost = move || format!("{}", params.with(|p| p.spec.draft_cost));
    let pct = |x: f64| format!("{:.0} %", x * 100.0);

    view! {
        <figure class="widget speculative" data-widget="speculative">
            {Slider::new("0", move || MAX_DRAFT.to_string(), "1").id("speculative-draft").valuetext(move || format!("k = {}", draft())).row("Tokens drafted per round k", move || draft().to_string(), move |v: String| set("draft", v), view! { <output data-draft="">{move || format!("k = {}", draft())}</output> })}
            {Slider::new("0", || "1".to_string(), "0.01").id("speculative-accept").valuetext(move || pct(params.with(|p| p.spec.accept))).row("Chance a drafted token is accepted", move || accept().to_string(), move |v: String| set("accept", v), view! { <output data-accept="">{move || pct(params.with(|p| p.spec.accept))}</output> })}
            {Slider::new("0", || "0.5".to_string(), "0.01").id("speculative-cost").valuetext(move || cost().to_string()).row("Draft step cost, in target steps", move || cost().to_string(), move |v: String| set("cost", v), view! { <output data-cost="">{cost}</output> })}
            <div class="plot" node_ref=frame.node style=frame.style()>
                <div class="layer" inner_html=chart role="img"
                    aria-label=move || format!("tokens per target step and speedup against the draft length; the marker is at k = {}", draft())></div>
            </div>
            <p class="verdict-line">
                "Each round yields " <strong data-tokens="">{shown(|v| format!("{:.2}", v.at.tokens_per_step))}</strong>
                " tokens per target step on average and costs "
                <span data-round="">{shown(|v| format!("{:.2}", v.at.round_cost))}</span>
                " target steps, a speedup of " <strong data-speedup="">{shown(|v| format!("{:.2}×", v.at.speedup))}</strong>
                ". The best draft length here is " <strong data-best="">{shown(|v| format!("{}", v.best.0))}</strong>
                " (" {shown(|v| format!("{:.2}×", v.best.1.speedup))} ")."
            </p>
            <p class="caption">
                "A seeded run of " {ridgeline_core::format::grouped(ROUNDS as f64)} " rounds at these settings averaged "
                <span data-simulated="">{shown(|v| format!("{:.2}", v.simulated))}</span> " tokens per target step."
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
    fn chapter_example_and_the_seeded_check_agree() {
        let v = SpecParams::default().view().unwrap();
        // (1 − 0.8⁵) / 0.2 = 3.3616 tokens, over a round of 1 + 4 · 0.05 = 1.2 steps.
        assert!((v.at.tokens_per_step - 3.3616).abs() < 1e-9);
        assert!((v.at.round_cost - 1.2).abs() < 1e-12);
        assert!((v.at.speedup - 3.3616 / 1.2).abs() < 1e-9);
        assert!(
            (v.simulated - v.at.tokens_per_step).abs() < 0.1,
            "{}",
            v.simulated
        );
        assert!(v.best.1.speedup >= v.at.speedup);
        assert_eq!(v.curve.len(), MAX_DRAFT as usize + 1);
        // No draft: one token per step and no speedup.
        assert_eq!(v.curve[0].1, 1.0);
        let svg = SpecParams::default().chart_svg(SHAPE.design());
        assert!(svg.contains("speedup") && svg.contains("<circle"), "{svg}");
    }

    #[test]
    fn longer_drafts_pay_off_only_when_accepted() {
        let mut p = SpecParams::default();
        p.apply("accept", "0.3").unwrap();
        let low = p.view().unwrap();
        p.apply("accept", "0.95").unwrap();
        let high = p.view().unwrap();
        assert!(
            high.best.0 > low.best.0,
            "{} vs {}",
            high.best.0,
            low.best.0
        );
    }

    #[test]
    fn bad_input_keeps_the_state_and_pairs_round_trip() {
        assert_refused_keeps(
            &SpecParams::default(),
            &[
                ("draft", "17"),
                ("accept", "1.5"),
                ("cost", "-1"),
                ("cost", "x"),
                ("k", "2"),
            ],
        );
        let q: SpecParams =
            assert_round_trip(&[("draft", "7"), ("accept", "0.6"), ("cost", "0.1")]);
        assert_eq!(q.spec.draft, 7);
    }
}
