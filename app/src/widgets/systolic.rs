//! The MXU's systolic array stepped cycle by cycle (`data-widget="systolic"`,
//! Part 2, Appendix B): every cell's stationary weight, the activation passing
//! through it and the partial sum it hands down, the results leaving the bottom,
//! and the run's cycles and utilisation, all from
//! [`ridgeline_core::hardware::systolic::run`].

use super::controls::Notice;
use super::controls::Slider;
use leptos::prelude::*;
use ridgeline_core::format::grouped;
use ridgeline_core::hardware::systolic::{run, Frame, Phase, SystolicParams, SystolicRun};

use super::params::{WidgetParams, WidgetState};
use super::player::Player;
use crate::input::{parse_count, parse_flag};

/// Largest side of the array the widget draws (the model allows more).
pub const MAX_VIEW_SIDE: u32 = 16;
/// Most rows per block the widget accepts.
pub const MAX_VIEW_M: u32 = 32;
/// Most blocks the widget accepts.
pub const MAX_VIEW_BLOCKS: u32 = 8;
/// The seed of the array's values (fixed, so a link shows the same numbers).
const SEED: u64 = 7;

/// The reader's choices: the array's shape and its input.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SystolicWidgetParams {
    /// Rows of the array (the contracting dimension `K`).
    pub k: u32,
    /// Columns of the array (output columns `N`).
    pub n: u32,
    /// Rows of `X` per block.
    pub m: u32,
    /// Blocks multiplied by the same weights.
    pub blocks: u32,
    /// Whether each block enters right behind the previous one.
    pub pipelined: bool,
}

impl Default for SystolicWidgetParams {
    fn default() -> Self {
        SystolicWidgetParams {
            k: 4,
            n: 4,
            m: 4,
            blocks: 2,
            pipelined: true,
        }
    }
}

impl SystolicWidgetParams {
    /// The model's parameters.
    pub fn model(&self) -> SystolicParams {
        SystolicParams {
            k: self.k,
            n: self.n,
            m: self.m,
            blocks: self.blocks,
            pipelined: self.pipelined,
            seed: SEED,
        }
    }
}

impl WidgetParams for SystolicWidgetParams {
    /// Sets one parameter from text.
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut next = *self;
        let whole = |what: &str, max: u32| -> Result<u32, String> {
            let v = parse_count(value, what, 1.0, f64::from(max))?;
            if v.fract() != 0.0 {
                return Err(format!("{what} must be a whole number"));
            }
            Ok(v as u32)
        };
        match key {
            "k" => next.k = whole("the array's rows (K)", MAX_VIEW_SIDE)?,
            "n" => next.n = whole("the array's columns (N)", MAX_VIEW_SIDE)?,
            "m" => next.m = whole("the rows per block (M)", MAX_VIEW_M)?,
            "blocks" => next.blocks = whole("the number of blocks", MAX_VIEW_BLOCKS)?,
            "pipelined" => next.pipelined = parse_flag(value, "pipelined")?,
            other => return Err(super::params::unknown_setting(other)),
        }
        next.model().validate()?;
        *self = next;
        Ok(())
    }

    /// The parameters as `key=value` pairs.
    fn to_pairs(&self) -> Vec<(String, String)> {
        vec![
            ("k".into(), self.k.to_string()),
            ("n".into(), self.n.to_string()),
            ("m".into(), self.m.to_string()),
            ("blocks".into(), self.blocks.to_string()),
            (
                "pipelined".into(),
                if self.pipelined { "1" } else { "0" }.into(),
            ),
        ]
    }
}

/// A phase's name as the reader sees it.
pub fn phase_name(phase: Phase) -> &'static str {
    match phase {
        Phase::Fill => "filling",
        Phase::Steady => "steady",
        Phase::Drain => "draining",
    }
}

/// Results that have left the array after `step` cycles.
pub fn results_out(r: &SystolicRun, step: usize) -> usize {
    r.frames.iter().take(step).map(|f| f.out.len()).sum()
}

/// A value as a short integer (the array's values are small whole numbers).
fn num(v: f32) -> String {
    format!("{v}").replace('-', "−")
}

/// What a reader should know about one step: the frame after it, if any.
fn frame(r: &SystolicRun, step: usize) -> Option<&Frame> {
    step.checked_sub(1).and_then(|i| r.frames.get(i))
}

/// The widget.
#[component]
pub fn Systolic(
    /// The chapter's `key=value` arguments (URL parameters override them).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let state = WidgetState::<SystolicWidgetParams>::new(&args);
    let WidgetState { params, notice } = state;
    let fallback = SystolicWidgetParams::default();
    let result = Memo::new(move |_| {
        params
            .with(|p| run(&p.model()))
            .or_else(|_| run(&fallback.model()))
            .ok()
    });
    let total = Signal::derive(move || result.with(|r| r.as_ref().map_or(0, |r| r.frames.len())));
    let player = Player::new(total, 450);
    let set = move |key: &'static str, value: String| {
        if state.set(key, &value) {
            player.reset();
        }
    };
    let step = player.step;
    let at = move |f: &dyn Fn(&SystolicRun, usize) -> String| {
        result.with(|r| r.as_ref().map(|r| f(r, step.get())).unwrap_or_default())
    };
    let phase = move || {
        at(&|r, s| match frame(r, s) {
            None => "not started".into(),
            Some(f) => phase_name(f.phase).into(),
        })
    };
    let grid = move || {
        let (k, n) = params.with(|p| (p.k as usize, p.n as usize));
        result.with(|r| {
            let Some(r) = r.as_ref() else {
                return ().into_any();
            };
            let f = frame(r, step.get());
            let rows = (0..k)
                .map(|kk| {
                    let cells = (0..n)
                        .map(|nn| {
                            let i = kk * n + nn;
                            let x = f.and_then(|f| f.x.get(i).copied().flatten());
                            let sum = f.and_then(|f| f.sum.get(i).copied().flatten());
                            let w = r.w.get(i).copied().unwrap_or(0.0);
                            view! {
                                <td class:busy=x.is_some()>
                                    <span class="w">{format!("w {}", num(w))}</span>
                                    <span class="x">{x.map(|v| format!("x {}", num(v))).unwrap_or_else(|| "·".into())}</span>
                                    <span class="s">{sum.map(|v| format!("Σ {}", num(v))).unwrap_or_default()}</span>
                                </td>
                            }
                        })
                        .collect_view();
                    view! { <tr><th scope="row">{format!("k={kk}")}</th>{cells}</tr> }
                })
                .collect_view();
            let outs = (0..n)
                .map(|nn| {
                    let out = f.and_then(|f| f.out.iter().find(|o| o.1 as usize == nn));
                    view! {
                        <td class="out">{out.map(|&(row, _, v)| format!("C[{row},{nn}] = {}", num(v))).unwrap_or_default()}</td>
                    }
                })
                .collect_view();
            view! {
                <tbody>{rows}</tbody>
                <tfoot><tr><th scope="row">"out"</th>{outs}</tr></tfoot>
            }
            .into_any()
        })
    };
    let heads = move || {
        (0..params.with(|p| p.n))
            .map(|nn| view! { <th scope="col">{format!("n={nn}")}</th> })
            .collect_view()
    };
    let formula = move || {
        params.with(|p| {
            let cycles = grouped(p.model().cycles() as f64);
            if p.pipelined {
                format!(
                    "M·blocks + K + N − 2 = {}·{} + {} + {} − 2 = {cycles}",
                    p.m, p.blocks, p.k, p.n
                )
            } else {
                format!(
                    "blocks·(M + K + N − 2) = {}·({} + {} + {} − 2) = {cycles}",
                    p.blocks, p.m, p.k, p.n
                )
            }
        })
    };
    let slider = move |key: &'static str,
                       label: &'static str,
                       max: u32,
                       get: fn(&SystolicWidgetParams) -> u32| {
        view! {
            <label>{label}
                {Slider::new("1", move || max.to_string().to_string(), "1").view(move || (params.with(get).to_string()).to_string(), move |v: String| set(key, v))}
                <output>{move || params.with(get).to_string()}</output>
            </label>
        }
    };
    view! {
        <figure class="widget systolic" data-widget="systolic">
            <div class="controls">
                {slider("k", "Array rows K ", MAX_VIEW_SIDE, |p| p.k)}
                {slider("n", "Array columns N ", MAX_VIEW_SIDE, |p| p.n)}
                {slider("m", "Rows per block M ", MAX_VIEW_M, |p| p.m)}
                {slider("blocks", "Blocks ", MAX_VIEW_BLOCKS, |p| p.blocks)}
                <label>
                    <input type="checkbox" checked=move || params.with(|p| p.pipelined) prop:checked=move || params.with(|p| p.pipelined)
                        on:change=move |ev| set("pipelined", if event_target_checked(&ev) { "1".into() } else { "0".into() }) />
                    " next block enters right behind the last"
                </label>
            </div>
            {player.controls("cycles", |s, t| format!("cycle {s} / {t}"))}
            <p class="step-label">"Phase: " <strong data-phase="">{phase}</strong></p>
            <div class="table-scroll" tabindex="0">
                <table class="systolic-grid" data-step=move || step.get()>
                    <caption>"Each cell keeps its weight w; activations x move right, partial sums Σ move down."</caption>
                    <thead><tr><td></td>{heads}</tr></thead>
                    {grid}
                </table>
            </div>
            <dl class="times">
                <div><dt>"cycles"</dt><dd data-cycles="">{move || at(&|r, _| grouped(f64::from(r.cycles)))}</dd></div>
                <div><dt>"formula"</dt><dd>{formula}</dd></div>
                <div><dt>"cells busy"</dt><dd data-utilisation="">{move || at(&|r, _| format!("{:.1} %", 100.0 * r.utilisation))}</dd></div>
                <div><dt>"results out"</dt><dd data-results="">{move || at(&|r, s| format!("{} / {}", grouped(results_out(r, s) as f64), grouped(r.result.len() as f64)))}</dd></div>
                <div><dt>"collected C = X·W"</dt><dd data-check="">{move || at(&|r, _| if r.result == r.expected { "yes".into() } else { "no".into() })}</dd></div>
            </dl>
            <Notice notice=notice />
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::widgets::params::pairs;
    use crate::widgets::params::testing::{assert_pairs_restore, assert_refused_keeps};

    #[test]
    fn the_chapters_8x8_example_takes_46_cycles_pipelined_and_88_serial() {
        // Part 2, Appendix B: M + K + N − 2 per stream; blocks back to back pay
        // the fill and drain once.
        let mut p = SystolicWidgetParams::default();
        for (k, v) in [("k", "8"), ("n", "8"), ("m", "8"), ("blocks", "4")] {
            p.apply(k, v).unwrap();
        }
        let piped = run(&p.model()).unwrap();
        assert_eq!(piped.cycles, 46);
        assert_eq!(piped.result, piped.expected);
        p.apply("pipelined", "0").unwrap();
        let serial = run(&p.model()).unwrap();
        assert_eq!(serial.cycles, 88);
        assert!(piped.utilisation > serial.utilisation);
        assert_eq!(results_out(&serial, serial.frames.len()), 8 * 4 * 8);
    }

    #[test]
    fn a_single_row_leaves_most_of_the_array_idle() {
        // The book's bad case: a short input, where fill and drain dominate.
        let (p, refused) = SystolicWidgetParams::from_pairs(&pairs(&[
            ("k", "8"),
            ("n", "8"),
            ("m", "1"),
            ("blocks", "1"),
        ]));
        assert!(refused.is_empty());
        let r = run(&p.model()).unwrap();
        assert_eq!(r.cycles, 15);
        assert!((r.utilisation - 1.0 / 15.0).abs() < 1e-9);
        let phases: Vec<&str> = r.frames.iter().map(|f| phase_name(f.phase)).collect();
        assert_eq!(phases.first(), Some(&"filling"));
        assert_eq!(phases.last(), Some(&"draining"));
    }

    #[test]
    fn bad_input_keeps_the_state_and_pairs_round_trip() {
        let mut p = SystolicWidgetParams::default();
        assert_refused_keeps(
            &p,
            &[
                ("k", "0"),
                ("n", "17"),
                ("m", "2.5"),
                ("blocks", "many"),
                ("pipelined", "maybe"),
                ("colour", "red"),
            ],
        );
        p.apply("k", "6").unwrap();
        p.apply("pipelined", "no").unwrap();
        assert_pairs_restore(&p);
    }

    #[test]
    fn the_first_cell_holds_the_first_activation_after_one_cycle() {
        let p = SystolicWidgetParams::default();
        let r = run(&p.model()).unwrap();
        assert!(frame(&r, 0).is_none());
        let f = frame(&r, 1).unwrap();
        assert_eq!(f.x[0], Some(r.x[0]));
        assert_eq!(f.sum[0], Some(r.x[0] * r.w[0]));
        assert!(f.x[1..].iter().all(Option::is_none));
    }
}
