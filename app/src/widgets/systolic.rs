//! The MXU's systolic array stepped cycle by cycle (`data-widget="systolic"`,
//! Part 2, Appendix B): the weights shifting in from the top on a diagonal
//! front, then every cell's stationary weight, the activation passing through
//! it and the partial sum it hands down, each cell's state (loading a weight,
//! holding it, multiplying), the results leaving the bottom, and the run's
//! cycles and utilisation, all from [`ridgeline_core::hardware::systolic::run`].

use super::controls::Notice;
use super::controls::Slider;
use leptos::prelude::*;
use ridgeline_core::format::grouped;
use ridgeline_core::hardware::systolic::{
    run, CellState, Frame, Phase, SystolicParams, SystolicRun,
};

use super::params::{WidgetParams, WidgetState};
use super::player::Player;
use crate::input::{parse_count, parse_flag};
use ridgeline_core::check;

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
            check::whole(v).ok_or_else(|| format!("{what} must be at most {max}"))
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
        Phase::Load => "loading weights",
        Phase::Fill => "filling",
        Phase::Steady => "steady",
        Phase::Drain => "draining",
    }
}

/// A cell's state as the reader sees it (also its `data-state`).
pub fn state_name(state: CellState) -> &'static str {
    match state {
        CellState::Empty => "empty",
        CellState::LoadingWeight => "loading",
        CellState::HoldingWeight => "holding",
        CellState::Multiplying => "multiplying",
    }
}

/// What the phase line says after `step` cycles: the phase, and whether
/// weights are still shifting in while the activations fill the array.
pub fn phase_text(r: &SystolicRun, step: usize) -> String {
    match frame(r, step) {
        None => "not started".into(),
        Some(f) if f.phase == Phase::Fill && f.weights_loading() => {
            "filling, weights still loading".into()
        }
        Some(f) => phase_name(f.phase).into(),
    }
}

/// How many cells load a weight, hold one and multiply after `step` cycles.
pub fn cell_counts(r: &SystolicRun, step: usize) -> [usize; 3] {
    let count =
        |s: CellState| frame(r, step).map_or(0, |f| f.cells.iter().filter(|&&c| c == s).count());
    [
        count(CellState::LoadingWeight),
        count(CellState::HoldingWeight),
        count(CellState::Multiplying),
    ]
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
    let phase = move || at(&phase_text);
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
                            let w = f.and_then(|f| f.w.get(i).copied().flatten());
                            let state = f
                                .and_then(|f| f.cells.get(i).copied())
                                .unwrap_or(CellState::Empty);
                            let loading = state == CellState::LoadingWeight;
                            let w = match (w, loading) {
                                (Some(w), true) => format!("↓ w {}", num(w)),
                                (Some(w), false) => format!("w {}", num(w)),
                                (None, _) => "no weight".into(),
                            };
                            view! {
                                <td class:busy=x.is_some() class:loading=loading data-state=state_name(state)>
                                    <span class="w">{w}</span>
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
            let waiting = (0..n)
                .map(|nn| {
                    let left = f.map_or(k, |f| f.waiting.get(nn).copied().unwrap_or(0) as usize);
                    view! {
                        <td class="waiting">{(left > 0).then(|| format!("{left} to load ↓"))}</td>
                    }
                })
                .collect_view();
            view! {
                <tbody>
                    <tr class="waiting"><th scope="row">"weights"</th>{waiting}</tr>
                    {rows}
                </tbody>
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
                    "K + (M·blocks + K + N − 2) = {} + ({}·{} + {} + {} − 2) = {cycles}",
                    p.k, p.m, p.blocks, p.k, p.n
                )
            } else {
                format!(
                    "K + blocks·(M + K + N − 2) = {} + {}·({} + {} + {} − 2) = {cycles}",
                    p.k, p.blocks, p.m, p.k, p.n
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
                    <caption>"Weights enter from the top and shift down (↓) until their column is full; then each cell keeps its weight w, activations x move right and partial sums Σ move down."</caption>
                    <thead><tr><td></td>{heads}</tr></thead>
                    {grid}
                </table>
            </div>
            <dl class="times">
                <div><dt>"cycles"</dt><dd data-cycles="">{move || at(&|r, _| grouped(f64::from(r.cycles)))}</dd></div>
                <div><dt>"formula"</dt><dd>{formula}</dd></div>
                <div><dt>"weights loading"</dt><dd data-load="">{move || params.with(|p| { let m = p.model(); format!("cycles 1–{} (K + N − 1), first input at cycle {} (K + 1)", grouped(m.load_cycles() as f64), grouped(m.first_entry() as f64 + 1.0)) })}</dd></div>
                <div><dt>"cells this cycle"</dt><dd data-cells="">{move || at(&|r, s| { let [l, h, m] = cell_counts(r, s); format!("{} loading, {} holding, {} multiplying", grouped(l as f64), grouped(h as f64), grouped(m as f64)) })}</dd></div>
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
    fn the_chapters_8x8_example_takes_54_cycles_pipelined_and_96_serial() {
        // Part 2, Appendix B: K cycles of loading, then M + K + N − 2 per
        // stream; blocks back to back pay the fill and drain once:
        // 8 + (32 + 8 + 8 − 2) = 54 against 8 + 4·(8 + 8 + 8 − 2) = 96.
        let mut p = SystolicWidgetParams::default();
        for (k, v) in [("k", "8"), ("n", "8"), ("m", "8"), ("blocks", "4")] {
            p.apply(k, v).unwrap();
        }
        let piped = run(&p.model()).unwrap();
        assert_eq!(piped.cycles, 54);
        assert_eq!(piped.result, piped.expected);
        p.apply("pipelined", "0").unwrap();
        let serial = run(&p.model()).unwrap();
        assert_eq!(serial.cycles, 96);
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
        // 8 cycles of loading, then 1 + 8 + 8 − 2 = 15: 64 multiply-adds on
        // 64 cells over 23 cycles.
        assert_eq!(r.cycles, 23);
        assert!((r.utilisation - 1.0 / 23.0).abs() < 1e-9);
        let phases: Vec<&str> = r.frames.iter().map(|f| phase_name(f.phase)).collect();
        assert_eq!(phases.first(), Some(&"loading weights"));
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
    fn the_weights_load_first_and_the_first_activation_follows_column_0() {
        // The default 4 × 4 array: after one cycle only the top-left cell has
        // a weight (the bottom row's, on its way down); after K = 4 cycles
        // column 0 is in place and columns 1–3 hold 3, 2 and 1 weights; the
        // first activation meets W[0,0] in cycle K + 1 = 5, while the last
        // three columns still load.
        let p = SystolicWidgetParams::default();
        let r = run(&p.model()).unwrap();
        assert!(frame(&r, 0).is_none());
        assert_eq!(phase_text(&r, 0), "not started");
        assert_eq!(cell_counts(&r, 1), [1, 0, 0]);
        assert_eq!(phase_text(&r, 1), "loading weights");
        assert_eq!(cell_counts(&r, 4), [4 + 3 + 2 + 1, 0, 0]);
        assert_eq!(frame(&r, 4).unwrap().waiting, vec![0, 1, 2, 3]);
        let f = frame(&r, 5).unwrap();
        assert_eq!(f.x[0], Some(r.x[0]));
        assert_eq!(f.sum[0], Some(r.x[0] * r.w[0]));
        assert!(f.x[1..].iter().all(Option::is_none));
        assert_eq!(cell_counts(&r, 5), [4 + 3 + 2, 3, 1]);
        assert_eq!(phase_text(&r, 5), "filling, weights still loading");
        // Loading ends after K + N − 1 = 7 cycles; the cells then only hold or multiply.
        assert_eq!(cell_counts(&r, 7)[0], 4);
        assert_eq!(phase_text(&r, 7), "filling, weights still loading");
        assert_eq!(cell_counts(&r, 8)[0], 0);
        // The first result leaves column 0 in cycle K + (K − 1) + 1 = 8.
        assert_eq!(phase_text(&r, 8), "steady");
    }
}
