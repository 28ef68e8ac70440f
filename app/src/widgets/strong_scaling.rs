//! Strong scaling (`data-widget="strong-scaling"`, Part 0, "Why should you
//! care?"): a fixed data-parallel training step spread over 1 to 65,536 chips,
//! with compute, the backward pass, the gradient AllReduce (over ICI inside a
//! slice, over DCN across slices) and the step time drawn against the chip
//! count, and the efficiency at the chosen count, all from
//! [`ridgeline_core::roofline::strong_scaling`]. Counts the chip and the batch
//! cannot physically take (a model whose state does not fit in HBM, fewer
//! tokens than chips) are left off the chart and refused with the reason. A
//! second TPU (`vs`) adds its step time on the same axes, and the difference at
//! the chosen count spelled out.

use super::compare::{
    chip_rows, compare_picker, compare_table, diff_rows, parse_vs_chip, Comparison, Diff, VS,
};
use super::controls::Notice;
use super::controls::NumberField;
use super::controls::Slider;
use leptos::prelude::*;
use ridgeline_core::format::{grouped, seconds};
use ridgeline_core::hardware::{chip, Chip, Topology, CHIPS};
use ridgeline_core::roofline::strong_scaling::{strong_scaling, ScalingRow, StrongScalingParams};

use super::params::{WidgetParams, WidgetState};
use crate::charts::size::{Frame, Shape};
use crate::charts::strong_scaling::draw;
use crate::charts::svg;
use crate::input::parse_count;
use ridgeline_core::check::whole;

const SHAPE: Shape = Shape::new(760, 380, 300);
/// The chip counts offered: every power of two up to 2^16 that the chip and
/// the batch physically allow.
const MAX_LOG2: u32 = 16;

/// The reader's choices.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScalingParams {
    /// The chip.
    pub chip: &'static Chip,
    /// Parameters of the model.
    pub params: f64,
    /// Tokens per step.
    pub tokens: f64,
    /// The chip count marked, a power of two.
    pub chips: u32,
    /// A second TPU running the same step, if any.
    pub vs: Option<&'static Chip>,
}

impl Default for ScalingParams {
    fn default() -> Self {
        ScalingParams {
            chip: chip("v5e").unwrap_or(&CHIPS[0]),
            params: 1e9,
            tokens: 1_048_576.0,
            chips: 16,
            vs: None,
        }
    }
}

impl ScalingParams {
    /// One row per power of two from 1 to 2^16 chips that the chip and the
    /// batch allow ([`StrongScalingParams::layout`]).
    pub fn rows(&self) -> Result<Vec<ScalingRow>, String> {
        self.rows_on(self.chip)
    }

    /// The same rows on the compared TPU; `None` when nothing is compared.
    pub fn vs_rows(&self) -> Option<Result<Vec<ScalingRow>, String>> {
        self.vs.map(|c| self.rows_on(c))
    }

    /// The core model of the step on `chip`.
    fn model(&self, chip: &'static Chip) -> StrongScalingParams {
        StrongScalingParams::new(chip, self.params, self.tokens)
    }

    fn rows_on(&self, chip: &'static Chip) -> Result<Vec<ScalingRow>, String> {
        let p = self.model(chip);
        p.validate()?;
        let counts: Vec<u32> = (0..=MAX_LOG2)
            .map(|i| 1u32 << i)
            .filter(|&n| p.layout(n).is_ok())
            .collect();
        strong_scaling(&p, &counts)
    }

    /// Chips in the chip's largest ICI domain, where DCN takes over.
    pub fn domain(&self) -> Option<u32> {
        self.model(self.chip).layout(1).ok().map(|l| l.domain)
    }

    /// The step at the chosen count beside the same step on the compared
    /// TPU: core's chip numbers, compute, the backward pass, the AllReduce over
    /// ICI and DCN, step, slices, chips busy, speed-up.
    pub fn comparison(&self) -> Option<Comparison> {
        let vs = self.vs?;
        let at = |rows: Vec<ScalingRow>| rows.into_iter().find(|r| r.chips == self.chips);
        let (a, b) = (at(self.rows().ok()?)?, at(self.vs_rows()?.ok()?)?);
        let mut rows = chip_rows(self.chip, vs, ridgeline_core::dtype::Dtype::Bf16);
        rows.extend(diff_rows(
            &a,
            &b,
            seconds,
            &[
                ("compute", "compute per chip", |r| r.compute.0),
                ("backward", "backward pass", |r| r.backward.0),
                ("ici", "AllReduce over ICI", |r| r.ici.0),
                ("dcn", "AllReduce over DCN", |r| r.dcn.0),
                ("comms", "gradient AllReduce", |r| r.comms.0),
                ("step", "step", |r| r.step.0),
            ],
        ));
        rows.extend([
            Diff::words("slices", "slices", slices_text(&a), slices_text(&b)),
            Diff::number(
                "efficiency",
                "chips busy",
                100.0 * a.efficiency,
                100.0 * b.efficiency,
                |x| format!("{x:.0}%"),
            ),
            Diff::number(
                "speedup",
                "speed-up over one chip",
                a.speedup,
                b.speedup,
                |x| format!("{}×", grouped(x.round())),
            ),
        ]);
        Some(Comparison {
            a: self.chip.name.into(),
            b: vs.name.into(),
            rows,
        })
    }
}

/// How the chosen count is laid out: one ICI slice, or slices over DCN.
fn slices_text(r: &ScalingRow) -> String {
    if r.slices == 1 {
        "one ICI slice".into()
    } else {
        format!(
            "{} of {} chips, over DCN",
            grouped(f64::from(r.slices)),
            grouped(f64::from(r.chips / r.slices))
        )
    }
}

/// The chip if it is a TPU (on a torus), else why not.
fn tpu(c: &'static Chip) -> Result<&'static Chip, String> {
    match c.topology {
        Topology::Torus { .. } => Ok(c),
        _ => Err(format!("{} is not a TPU", c.name)),
    }
}

impl WidgetParams for ScalingParams {
    /// Sets one parameter from text.
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut next = *self;
        match key {
            "chip" => {
                let c = super::controls::chip(value)?;
                next.chip = tpu(c)?;
            }
            VS => next.vs = parse_vs_chip(value, |c| tpu(c).map(|_| ()))?,
            "params" => next.params = parse_count(value, "the parameter count", 1e6, 1e13)?,
            "tokens" => next.tokens = parse_count(value, "the tokens per step", 1.0, 1e9)?,
            "chips" => {
                let n = parse_count(value, "the chip count", 1.0, f64::from(1u32 << MAX_LOG2))?;
                match whole::<u32>(n) {
                    Some(chips) if n.fract() == 0.0 && chips.is_power_of_two() => {
                        next.chips = chips
                    }
                    _ => return Err("the chip count must be a power of two".into()),
                }
            }
            other => return Err(super::params::unknown_setting(other)),
        }
        // The chosen count must be physical on both chips; the chart leaves
        // out the counts that are not.
        next.model(next.chip).row(next.chips)?;
        if let Some(vs) = next.vs {
            next.model(vs)
                .row(next.chips)
                .map_err(|e| format!("compared chip: {e}"))?;
        }
        next.rows()?;
        *self = next;
        Ok(())
    }

    /// The parameters as `key=value` pairs.
    fn to_pairs(&self) -> Vec<(String, String)> {
        vec![
            ("chip".into(), self.chip.id.into()),
            ("params".into(), format!("{}", self.params)),
            ("tokens".into(), format!("{}", self.tokens)),
            ("chips".into(), self.chips.to_string()),
        ]
        .into_iter()
        .chain(self.vs.map(|c| (VS.into(), c.id.into())))
        .collect()
    }
}

/// The widget.
#[component]
pub fn StrongScaling(
    /// The chapter's `key=value` arguments (URL parameters override them).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let state = WidgetState::<ScalingParams>::new(&args);
    let WidgetState { params, notice } = state;
    let set = move |key: &'static str, value: String| {
        state.set_or_refresh(key, &value, key == VS);
    };
    let rows = Memo::new(move |_| params.with(|p| p.rows()).unwrap_or_default());
    let vs_rows = Memo::new(move |_| {
        params.with(|p| {
            let rows = p.vs_rows()?.ok()?;
            Some((p.vs?.name, rows))
        })
    });
    let frame = Frame::new(SHAPE);
    let chart = move || {
        let (chosen, domain) = params.with(|p| (p.chips, p.domain()));
        let size = frame.get();
        vs_rows.with(|vs| {
            let vs = vs.as_ref().map(|(n, r)| (*n, r.as_slice()));
            rows.with(|r| {
                svg(size.width, size.height, |root| {
                    draw(root, r, chosen, domain, vs, false)
                })
                .0
            })
        })
    };
    let vs_id = move || params.with(|p| p.vs.map_or("", |c| c.id));
    let vs_options = super::controls::chip_options(super::controls::is_tpu, vs_id);
    let row = move || {
        let chosen = params.with(|p| p.chips);
        rows.with(|r| r.iter().find(|r| r.chips == chosen).copied())
    };
    let show = move |f: fn(&ScalingRow) -> String| move || row().map(|r| f(&r)).unwrap_or_default();
    let log2 = move || params.with(|p| p.chips.trailing_zeros()).to_string();
    let text = move |get: fn(&ScalingParams) -> f64| move || format!("{}", params.with(get));
    view! {
        <figure class="widget strong-scaling" data-widget="strong-scaling">
            <div class="controls">
                {super::controls::chip_picker("Chip ", super::controls::is_tpu, move || params.with(|p| p.chip.id).to_string(), set)}
                {NumberField::new("params", "parameters", 7).decimal().label("Parameters ").view(text(|p| p.params), set)}
                {NumberField::new("tokens", "tokens per step", 8).decimal().label("Tokens per step ").view(text(|p| p.tokens), set)}
                <label>"Chips "
                    {Slider::new(0, || MAX_LOG2.to_string(), "1").aria("chips, as a power of two").view(move || log2().to_string(), move |v: String| {
                        let k = v.parse::<u32>().unwrap_or(0).min(MAX_LOG2);
                        set("chips", (1u32 << k).to_string());
                    })}
                    <output data-chips="">{move || grouped(f64::from(params.with(|p| p.chips)))}</output>
                </label>
                {compare_picker(vs_options, vs_id, set)}
            </div>
            <div class="plot" node_ref=frame.node style=frame.style()><div class="layer" role="img" inner_html=chart
                aria-label="step time, compute and gradient AllReduce against the number of chips, both axes logarithmic"></div></div>
            <dl class="times">
                <div><dt>"compute per chip"</dt><dd data-compute="">{show(|r| seconds(r.compute.0))}</dd></div>
                <div><dt>"backward pass (hides the AllReduce)"</dt><dd data-backward="">{show(|r| seconds(r.backward.0))}</dd></div>
                <div><dt>"slices"</dt><dd data-slices="">{show(slices_text)}</dd></div>
                <div><dt>"AllReduce over ICI"</dt><dd data-ici="">{show(|r| seconds(r.ici.0))}</dd></div>
                <div><dt>"AllReduce over DCN"</dt><dd data-dcn="">{show(|r| seconds(r.dcn.0))}</dd></div>
                <div><dt>"gradient AllReduce"</dt><dd data-comms="">{show(|r| seconds(r.comms.0))}</dd></div>
                <div><dt>"step"</dt><dd data-step="">{show(|r| seconds(r.step.0))}</dd></div>
                <div><dt>"chips busy"</dt><dd data-efficiency="">{show(|r| format!("{:.0}%", 100.0 * r.efficiency))}</dd></div>
                <div><dt>"speed-up over one chip"</dt><dd data-speedup="">{show(|r| format!("{}×", grouped(r.speedup.round())))}</dd></div>
            </dl>
            {compare_table(move || params.with(|p| p.comparison()))}
            <Notice notice=notice />
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::widgets::params::pairs;
    use crate::widgets::params::testing::{assert_pairs_restore, assert_refused_keeps};

    /// The chosen row, as the widget shows it.
    fn chosen(p: &ScalingParams) -> ScalingRow {
        let rows = p.rows().unwrap();
        *rows.iter().find(|r| r.chips == p.chips).unwrap()
    }

    #[test]
    fn the_introductions_example_matches_the_core_model() {
        // Part 0: 1e9 parameters (their Adam state fits in a v5e's HBM), 2^20
        // tokens per step on v5e; efficiency falls from 16 chips to 4096, where
        // 16 slices of 256 are joined over DCN.
        let p = ScalingParams::default();
        let at16 = chosen(&p);
        let direct = strong_scaling(
            &StrongScalingParams::new(chip("v5e").unwrap(), 1e9, 1_048_576.0),
            &[16, 4096],
        )
        .unwrap();
        assert_eq!(
            at16,
            ScalingRow {
                speedup: at16.speedup,
                ..direct[0]
            }
        );
        let (q, refused) = ScalingParams::from_pairs(&pairs(&[("chips", "4096")]));
        assert!(refused.is_empty());
        let at4096 = chosen(&q);
        assert_eq!(at4096.efficiency, direct[1].efficiency);
        assert!(at4096.efficiency < at16.efficiency);
        assert_eq!(slices_text(&at4096), "16 of 256 chips, over DCN");
        assert_eq!(q.domain(), Some(256));
        let html = svg(SHAPE.width, SHAPE.height, |root| {
            draw(root, &q.rows().unwrap(), 4096, q.domain(), None, false)
        })
        .0;
        assert!(html.contains("gradient AllReduce"));
        assert!(html.contains("ICI domain"));
    }

    #[test]
    fn counts_the_chip_or_the_batch_cannot_take_are_refused_with_the_reason() {
        let p = ScalingParams::default();
        // An 8B model's Adam state (80 GB) is five times a v5e's HBM.
        let m = assert_refused_keeps(&p, &[("params", "8e9")]);
        assert!(m[0].contains("HBM"), "{m:?}");
        // A step of 1,024 tokens cannot feed 2,048 chips, nor can a smaller
        // batch feed the chips already chosen.
        let mut q = p;
        q.apply("tokens", "1024").unwrap();
        let m = assert_refused_keeps(&q, &[("chips", "2048")]);
        assert!(m[0].contains("without a token"), "{m:?}");
        q.apply("chips", "1024").unwrap();
        let m = assert_refused_keeps(&q, &[("tokens", "512")]);
        assert!(m[0].contains("without a token"), "{m:?}");
        // The chart leaves out the counts that are not physical.
        assert_eq!(q.rows().unwrap().last().unwrap().chips, 1024);
    }

    #[test]
    fn bad_input_keeps_the_state_and_pairs_round_trip() {
        let mut p = ScalingParams::default();
        assert_refused_keeps(
            &p,
            &[
                ("chips", "48"),
                ("chips", "0"),
                ("chip", "h100"),
                ("params", "-1"),
                ("colour", "red"),
            ],
        );
        p.apply("chip", "v5p").unwrap();
        p.apply("tokens", "4e6").unwrap();
        assert_pairs_restore(&p);
    }

    #[test]
    fn a_second_tpu_runs_the_same_step() {
        let p: ScalingParams = crate::widgets::params::testing::assert_round_trip(&[("vs", "v5p")]);
        let c = p.comparison().unwrap();
        let direct = strong_scaling(
            &StrongScalingParams::new(chip("v5p").unwrap(), 1e9, 1_048_576.0),
            &[16],
        )
        .unwrap();
        assert_eq!(c.row("step").unwrap().b, seconds(direct[0].step.0));
        assert_eq!(c.row("comms").unwrap().b, seconds(direct[0].comms.0));
        let messages = assert_refused_keeps(&p, &[("vs", "h100"), ("vs", "tpu-v99")]);
        assert!(messages[0].contains("not a TPU"), "{messages:?}");
        let mut q = p;
        q.apply("vs", "none").unwrap();
        assert_eq!(q.comparison(), None);
    }
}
