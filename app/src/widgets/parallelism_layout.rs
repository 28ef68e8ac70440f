//! How one MLP block is cut under each training strategy
//! (`data-widget="parallelism-layout"`, Part 5): the reader picks a strategy,
//! a model, a chip, the number of chips (and the tensor degree for FSDP +
//! tensor parallelism) and a batch; the widget draws which block of `In`,
//! `W_in`, `W_out` and `Out` one chip holds, and steps through the forward and
//! backward passes with each collective's axis, bytes and time, all from
//! [`ridgeline_core::training::layout`]. A second chip (`vs`) may be set beside the
//! first: the same block and mesh on it, its pass times and verdict, and a
//! table of the differences.

use super::controls::Notice;
use super::controls::NumberField;
use super::controls::{rounded, LogScale, Slider};
use leptos::prelude::*;
use ridgeline_core::dtype::Dtype;
use ridgeline_core::format::{grouped, sci, seconds, si};
use ridgeline_core::hardware::{chip, Chip, CHIPS};
use ridgeline_core::model::config::{model, ModelPreset, MODELS};
use ridgeline_core::training::layout::{layout, Layout, LayoutParams, PassStep, Strategy};

use super::compare::{
    chip_rows, compare_picker, compare_table, ici_row, parse_vs, Comparison, Diff, VS,
};
use super::controls::{ici_chip, option};
use super::params::{WidgetParams, WidgetState};
use crate::input::{parse_count, parse_whole};

/// Range of the batch slider, in tokens.
pub const BATCH_RANGE: (f64, f64) = (1024.0, 67_108_864.0);
/// Slider positions.
const STEPS: f64 = 320.0;
/// Most chips the widget lays out.
pub const MAX_CHIPS: f64 = 65_536.0;
/// Most stripes drawn along one side of an array; more shards are labelled.
const MAX_STRIPES: usize = 16;

/// The reader's choices; always a valid layout.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ParallelismParams {
    /// The strategy.
    pub strategy: Strategy,
    /// The model (its `D` and `F`).
    pub model: &'static ModelPreset,
    /// The chip (its ICI and bf16 peak).
    pub chip: &'static Chip,
    /// Chips in all, `X · Y`.
    pub chips: u32,
    /// Tensor degree `Y` for FSDP + tensor parallelism.
    pub tensor: u32,
    /// Global batch in tokens.
    pub batch: f64,
    /// A second TPU the same block is laid out on, if any.
    pub vs: Option<&'static Chip>,
}

impl Default for ParallelismParams {
    fn default() -> Self {
        ParallelismParams {
            strategy: Strategy::FsdpTp,
            model: model("llama3-70b").unwrap_or(&MODELS[0]),
            chip: chip("v5p").unwrap_or(&CHIPS[0]),
            chips: 256,
            tensor: 4,
            batch: 1_048_576.0,
            vs: None,
        }
    }
}

/// What the reader sees for each strategy.
pub fn strategy_label(s: Strategy) -> &'static str {
    match s {
        Strategy::Dp => "data parallel",
        Strategy::Fsdp => "FSDP",
        Strategy::Tp => "tensor parallel",
        Strategy::FsdpTp => "FSDP + tensor parallel",
    }
}

impl ParallelismParams {
    /// The mesh `(X, Y)`: all chips on `X` for DP and FSDP, on `Y` for tensor
    /// parallelism, `chips / tensor` by `tensor` for the mix.
    pub fn mesh(&self) -> Result<(u32, u32), String> {
        Ok(match self.strategy {
            Strategy::Dp | Strategy::Fsdp => (self.chips, 1),
            Strategy::Tp => (1, self.chips),
            Strategy::FsdpTp => {
                if self.tensor == 0 || !self.chips.is_multiple_of(self.tensor) {
                    return Err(format!(
                        "the tensor degree {} must divide the {} chips",
                        self.tensor,
                        grouped(self.chips as f64)
                    ));
                }
                (self.chips / self.tensor, self.tensor)
            }
        })
    }

    /// The core's parameters.
    pub fn core(&self) -> Result<LayoutParams, String> {
        let (x, y) = self.mesh()?;
        let c = self.model.config;
        Ok(LayoutParams::new(
            self.strategy,
            x,
            y,
            self.batch,
            c.d_model,
            c.d_ff,
            self.chip,
        ))
    }

    /// The layout and both passes.
    pub fn layout(&self) -> Result<Layout, String> {
        layout(&self.core()?)
    }

    /// The same block, mesh and batch on the compared chip, if there is one.
    pub fn vs_layout(&self) -> Option<Result<Layout, String>> {
        let chip = self.vs?;
        Some(ParallelismParams { chip, ..*self }.layout())
    }

    /// This chip beside the compared one: bf16 peak, ICI bandwidth, the time
    /// of each pass's matmuls and collectives, and the verdict.
    pub fn comparison(&self) -> Option<Comparison> {
        let (a, b) = (self.layout().ok()?, self.vs_layout()?.ok()?);
        let other = self.vs?;
        let mut rows = chip_rows(self.chip, other, Dtype::Bf16);
        rows.push(ici_row(self.chip, other));
        for (backward, pass) in [(false, "forward"), (true, "backward")] {
            let ((ma, ca), (mb, cb)) = (a.pass_times(backward), b.pass_times(backward));
            let (matmuls, comms) = if backward {
                ("backward-matmuls", "backward-comms")
            } else {
                ("forward-matmuls", "forward-comms")
            };
            rows.push(Diff::number(
                matmuls,
                format!("{pass} matmuls"),
                ma.0,
                mb.0,
                seconds,
            ));
            rows.push(Diff::number(
                comms,
                format!("{pass} collectives"),
                ca.0,
                cb.0,
                seconds,
            ));
        }
        rows.push(Diff::words(
            "verdict",
            "verdict",
            a.verdict().text(),
            b.verdict().text(),
        ));
        Some(Comparison {
            a: self.chip.name.into(),
            b: other.name.into(),
            rows,
        })
    }
}

impl WidgetParams for ParallelismParams {
    const ORDER: &'static [&'static [&'static str]] = &[&["scheme", "model", "chip", VS]];

    /// Sets one parameter from text, or explains why not (nothing changes then).
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut next = *self;
        match key {
            "scheme" => next.strategy = Strategy::parse(value)?,
            "model" => next.model = super::controls::model(value)?,
            "chip" => next.chip = super::controls::tpu_with_ici(value)?,
            VS => next.vs = parse_vs(value, "TPU with ICI", ici_chip)?,
            "chips" => next.chips = parse_whole::<u32>(value, "chips", 1.0, MAX_CHIPS)?,
            "tp" => next.tensor = parse_whole::<u32>(value, "tensor degree", 1.0, MAX_CHIPS)?,
            "b" => {
                next.batch =
                    parse_count(value, "batch (tokens)", BATCH_RANGE.0, BATCH_RANGE.1)?.round()
            }
            other => return Err(super::params::unknown_setting(other)),
        }
        next.layout()?;
        if let Some(Err(e)) = next.vs_layout() {
            return Err(format!("compared chip: {e}"));
        }
        *self = next;
        Ok(())
    }

    /// The parameters as `key=value` pairs.
    fn to_pairs(&self) -> Vec<(String, String)> {
        vec![
            ("scheme".into(), self.strategy.name().into()),
            ("model".into(), self.model.id.into()),
            ("chip".into(), self.chip.id.into()),
            ("chips".into(), self.chips.to_string()),
            ("tp".into(), self.tensor.to_string()),
            ("b".into(), format!("{}", self.batch)),
        ]
        .into_iter()
        .chain(self.vs.map(|c| (VS.into(), c.id.into())))
        .collect()
    }
}

/// How many ways each dimension of an array is cut, read from the core's
/// notation (`W_in[D_X, F_Y]`): `X` and `Y` are the mesh's sizes.
pub fn splits(spec: &str, x: u32, y: u32) -> [u32; 2] {
    let inner = spec
        .split_once('[')
        .and_then(|(_, rest)| rest.split_once(']'))
        .map_or("", |(dims, _)| dims);
    let mut out = [1, 1];
    for (slot, dim) in out.iter_mut().zip(inner.split(',')) {
        let dim = dim.trim();
        if dim.ends_with("_X") {
            *slot = x;
        } else if dim.ends_with("_Y") {
            *slot = y;
        }
    }
    out
}

/// One array as a rectangle cut into the shards along each side, with the first
/// chip's block filled; more than [`MAX_STRIPES`] shards are drawn as that many.
fn array_svg(rows: u32, cols: u32) -> impl IntoView {
    const W: f64 = 120.0;
    const H: f64 = 84.0;
    let r = (rows as usize).min(MAX_STRIPES);
    let c = (cols as usize).min(MAX_STRIPES);
    let (bw, bh) = (W / c as f64, H / r as f64);
    let lines = (1..r)
        .map(|i| (0.0, i as f64 * bh, W, i as f64 * bh))
        .chain((1..c).map(|j| (j as f64 * bw, 0.0, j as f64 * bw, H)))
        .map(|(x1, y1, x2, y2)| view! { <line x1=x1 y1=y1 x2=x2 y2=y2 class="cut"></line> })
        .collect_view();
    view! {
        <svg class="array-cut" viewBox="-1 -1 122 86" width="122" height="86" aria-hidden="true">
            <rect x="0" y="0" width=W height=H class="whole"></rect>
            <rect x="0" y="0" width=bw height=bh class="mine"></rect>
            {lines}
        </svg>
    }
}

/// One step as a table row: the notation, the work per chip and the time.
fn step_row(index: usize, step: &PassStep, current: bool) -> impl IntoView {
    let (kind, work) = match &step.collective {
        Some(c) => (
            format!("{} over {}", c.kind.name(), c.axis),
            format!(
                "V = {}, sends {} per chip",
                si(c.bytes.0, "B", 3),
                si(c.sent.0, "B", 3)
            ),
        ),
        None => (
            "matmul".to_string(),
            format!("{} FLOPs per chip", sci(step.flops.0, 3)),
        ),
    };
    let class = match (step.collective.is_some(), current) {
        (true, true) => "comm current",
        (true, false) => "comm",
        (false, true) => "matmul current",
        (false, false) => "matmul",
    };
    view! {
        <tr class=class data-step=index data-collective=step.collective.as_ref().map(|c| c.kind.name())>
            <td>{index + 1}</td>
            <td><code>{step.text.clone()}</code><br/><span class="kind">{kind}</span></td>
            <td>{work}</td>
            <td>{seconds(step.time.0)}</td>
        </tr>
    }
}

/// The widget.
#[component]
pub fn ParallelismLayout(
    /// The chapter's `key=value` arguments (URL parameters override them).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let state = WidgetState::<ParallelismParams>::new(&args);
    let WidgetState { params, notice } = state;
    let set = move |key: &'static str, value: String| {
        // Put a refused choice back to the last valid one.
        state.set_or_refresh(
            key,
            &value,
            matches!(key, "scheme" | "model" | "chip" | "chips" | "tp" | VS),
        );
    };
    let result = Memo::new(move |_| params.with(|p| p.layout().ok()));
    let mesh = move || params.with(|p| p.mesh().unwrap_or((1, 1)));
    // The step a reader has reached, over the forward then the backward pass.
    let step = RwSignal::new(0usize);
    let total_steps =
        move || result.with(|l| l.as_ref().map_or(0, |l| l.forward.len() + l.backward.len()));
    let clamp_step = move || step.get().min(total_steps().saturating_sub(1));

    let strategy_options = Strategy::ALL
        .map(|s| {
            option(s.name(), strategy_label(s), move || {
                params.with(|p| p.strategy.name())
            })
        })
        .collect_view();
    let vs_id = move || params.with(|p| p.vs.map_or("", |c| c.id));
    let vs_options = super::controls::chip_options(super::controls::has_ici, vs_id);
    let vs_verdict = move || {
        params.with(|p| {
            let (other, l) = (p.vs?, p.vs_layout()?.ok()?);
            let v = l.verdict().text();
            let (fc, fm) = l.pass_times(false);
            let (bc, bm) = l.pass_times(true);
            Some(view! {
                " On " {other.name} " it is "
                <strong class=format!("verdict {v}") data-vs-verdict=v>{v}</strong>
                {format!(" (forward: matmuls {}, collectives {}; backward: matmuls {}, collectives {}).",
                    seconds(fc.0), seconds(fm.0), seconds(bc.0), seconds(bm.0))}
            })
        })
    };

    let arrays = move || {
        let (x, y) = mesh();
        result.with(|l| {
            l.as_ref()
                .map(|l| {
                    l.arrays
                        .iter()
                        .map(|a| {
                            let [r, c] = splits(&a.spec, x, y);
                            view! {
                                <div class="array" data-array=a.name>
                                    {array_svg(r, c)}
                                    <p><code data-spec="">{a.spec.clone()}</code></p>
                                    <p>{format!("{} × {} per chip, {}", grouped(a.local[0]), grouped(a.local[1]), si(a.bytes.0, "B", 3))}</p>
                                </div>
                            }
                        })
                        .collect_view()
                })
                .unwrap_or_default()
        })
    };
    let pass = move |backward: bool| {
        move || {
            let current = clamp_step();
            result.with(|l| {
                l.as_ref()
                    .map(|l| {
                        let offset = if backward { l.forward.len() } else { 0 };
                        let steps = if backward { &l.backward } else { &l.forward };
                        steps
                            .iter()
                            .enumerate()
                            .map(|(i, s)| step_row(offset + i, s, offset + i == current))
                            .collect_view()
                    })
                    .unwrap_or_default()
            })
        }
    };
    let times = move |backward: bool| {
        move || {
            result.with(|l| {
                l.as_ref()
                    .map(|l| {
                        let (compute, comms) = l.pass_times(backward);
                        format!(
                            "matmuls {}, collectives {}",
                            seconds(compute.0),
                            seconds(comms.0)
                        )
                    })
                    .unwrap_or_default()
            })
        }
    };
    let verdict = move || result.with(|l| l.as_ref().map(|l| l.verdict().text()).unwrap_or(""));
    let detail = move || {
        let current = clamp_step();
        result.with(|l| {
            l.as_ref()
                .and_then(|l| {
                    l.forward.iter().chain(&l.backward).nth(current).map(|s| {
                        let pass = if current < l.forward.len() {
                            "forward"
                        } else {
                            "backward"
                        };
                        let what = match &s.collective {
                            Some(c) => format!(
                                "{} over the {} axis: each chip sends {} in {}",
                                c.kind.name(),
                                c.axis,
                                si(c.sent.0, "B", 3),
                                seconds(c.time.0)
                            ),
                            None => format!(
                                "a matmul of {} FLOPs per chip, {}",
                                sci(s.flops.0, 3),
                                seconds(s.time.0)
                            ),
                        };
                        format!("Step {} ({pass}): {what}.", current + 1)
                    })
                })
                .unwrap_or_default()
        })
    };
    let go = move |delta: isize| {
        let n = total_steps();
        if n > 0 {
            step.set(clamp_step().saturating_add_signed(delta).min(n - 1));
        }
    };

    view! {
        <figure class="widget parallelism-layout" data-widget="parallelism-layout">
            <div class="controls">
                <label>"Strategy "
                    <select prop:value=move || params.with(|p| p.strategy.name()) on:change=move |ev| set("scheme", event_target_value(&ev))>{strategy_options}</select>
                </label>
                {super::controls::model_picker("Model ", super::controls::any, move || params.with(|p| p.model.id).to_string(), set)}
                {super::controls::chip_picker("Chip ", super::controls::has_ici, move || params.with(|p| p.chip.id).to_string(), set)}
                {compare_picker(vs_options, vs_id, set)}
            </div>
            <div class="controls">
                {NumberField::new("chips", "number of chips", 6).class("in-chips").on_change().label("Chips ").view(move || params.with(|p| p.chips.to_string()), set)}
                {NumberField::new("tp", "tensor-parallel degree", 4).class("in-tp").on_change().disabled(move || params.with(|p| p.strategy != Strategy::FsdpTp)).label("Tensor degree Y (FSDP + tensor) ").view(move || params.with(|p| p.tensor.to_string()), set)}
            </div>
            {Slider::positions(STEPS).id("parallelism-layout-b").valuetext(move || format!("B = {} tokens", grouped(params.with(|p| p.batch)))).log_row("Global batch B (tokens)", LogScale::new(STEPS, move || BATCH_RANGE, rounded), move || params.with(|p| p.batch), "b", set, view! { <output>{move || format!("B = {}", grouped(params.with(|p| p.batch)))}</output> })}
            <Notice notice=notice />
            <p class="mesh-line" data-mesh="">
                {move || params.with(|p| {
                    let (x, y) = mesh();
                    let c = p.model.config;
                    format!(
                        "{}: X = {} by Y = {} ({} chips), D = {}, F = {}, {} tokens per chip row.",
                        strategy_label(p.strategy), grouped(x as f64), grouped(y as f64), grouped(p.chips as f64),
                        grouped(c.d_model as f64), grouped(c.d_ff as f64), grouped(p.batch / x as f64),
                    )
                })}
            </p>
            <div class="arrays" aria-label="the block of each array that the first chip holds">{arrays}</div>
            <div class="step-controls">
                <button type="button" aria-label="previous step" on:click=move |_| go(-1)>"◀"</button>
                <label for="parallelism-layout-step">"Step"</label>
                {Slider::new("0", move || (total_steps().saturating_sub(1)).to_string(), "1").id("parallelism-layout-step").valuetext(move || detail().to_string()).view(move || clamp_step().to_string(), move |v: String| step.set(v.parse::<usize>().unwrap_or(0)))}
                <button type="button" aria-label="next step" on:click=move |_| go(1)>"▶"</button>
            </div>
            <p class="step-detail" data-step-detail="" aria-live="polite">{detail}</p>
            <div class="table-scroll" tabindex="0">
                <table class="pass-steps">
                    <caption>"Forward: " <span data-forward-times="">{times(false)}</span></caption>
                    <thead><tr><th scope="col">"#"</th><th scope="col">"step"</th><th scope="col">"per chip"</th><th scope="col">"time"</th></tr></thead>
                    <tbody>{pass(false)}</tbody>
                </table>
                <table class="pass-steps">
                    <caption>"Backward: " <span data-backward-times="">{times(true)}</span></caption>
                    <thead><tr><th scope="col">"#"</th><th scope="col">"step"</th><th scope="col">"per chip"</th><th scope="col">"time"</th></tr></thead>
                    <tbody>{pass(true)}</tbody>
                </table>
            </div>
            <p class="verdict-line">
                "With the collectives overlapped with the matmuls of their pass, this block is "
                <strong class=move || format!("verdict {}", verdict()) data-verdict=verdict>{verdict}</strong>
                ". Collectives move "
                <span data-comms-bytes="">{move || result.with(|l| l.as_ref().map(|l| si(l.comms_bytes().0, "B", 3)).unwrap_or_default())}</span>
                " of V in all."
                {vs_verdict}
            </p>
            {compare_table(move || params.with(|p| p.comparison()))}
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::widgets::params::pairs;
    use crate::widgets::params::testing::{
        assert_pairs_restore, assert_refused_keeps, assert_round_trip,
    };
    use ridgeline_core::comms::collectives::Collective;
    use ridgeline_core::dtype::Dtype;
    use ridgeline_core::roofline::Verdict;
    use ridgeline_core::training::{dp_critical_tokens_per_chip, ici_intensity};

    #[test]
    fn the_default_is_fsdp_by_four_way_tensor_on_256_v5p() {
        let p = ParallelismParams::default();
        assert_eq!(p.mesh().unwrap(), (64, 4));
        let l = p.layout().unwrap();
        assert_eq!(l.arrays[1].spec, "W_in[D_X, F_Y]");
        assert_eq!(splits(&l.arrays[1].spec, 64, 4), [64, 4]);
        assert_eq!(splits(&l.arrays[2].spec, 64, 4), [4, 64]);
        assert_eq!(splits(&l.arrays[0].spec, 64, 4), [64, 4]);
        // LLaMA 3-70B: D = 8192 / 64 = 128 rows, F = 28672 / 4 = 7168 columns.
        assert_eq!(l.arrays[1].local, [128.0, 7168.0]);
        assert_eq!(l.forward.len(), 6);
        assert_eq!(l.backward.len(), 10);
    }

    #[test]
    fn data_parallel_verdict_flips_at_the_books_critical_batch() {
        // Part 5: DP is compute-bound above α = C / W_ici tokens per chip, 2550 on a v5p.
        let alpha = ici_intensity(chip("v5p").unwrap(), Dtype::Bf16).unwrap();
        let critical = dp_critical_tokens_per_chip(alpha, 1.0);
        assert_eq!(grouped(critical), "2,550");
        let mut p = ParallelismParams::default();
        p.apply("scheme", "dp").unwrap();
        assert_eq!(p.mesh().unwrap(), (256, 1));
        p.apply("b", &format!("{}", (critical * 256.0 * 0.9).round()))
            .unwrap();
        assert_eq!(p.layout().unwrap().verdict(), Verdict::CommunicationBound);
        p.apply("b", &format!("{}", (critical * 256.0 * 1.1).round()))
            .unwrap();
        let l = p.layout().unwrap();
        assert_eq!(l.verdict(), Verdict::ComputeBound);
        // The gradient AllReduce moves each weight, D · F · 2 bytes.
        let ar = l
            .backward
            .iter()
            .find_map(|s| s.collective.clone())
            .unwrap();
        assert_eq!(ar.kind, Collective::AllReduce);
        assert_eq!(ar.bytes.0, 8192.0 * 28672.0 * 2.0);
    }

    #[test]
    fn bad_input_keeps_the_layout_and_pairs_round_trip() {
        let mut p = ParallelismParams::default();
        assert_refused_keeps(
            &p,
            &[
                ("tp", "3"),
                ("tp", "0"),
                ("chips", "0"),
                ("chips", "1e9"),
                ("b", "10"),
                ("scheme", "zero"),
                ("chip", "h100"),
                ("model", "gpt-9"),
                ("colour", "red"),
            ],
        );
        // A batch smaller than the data shards is refused with the core's reason.
        p.apply("chips", "8192").unwrap();
        assert!(p.apply("b", "1024").unwrap_err().starts_with("batch:"));
        p.apply("scheme", "tp").unwrap();
        assert_eq!(p.mesh().unwrap(), (1, 8192));
        assert_pairs_restore(&p);
        let r: ParallelismParams = assert_round_trip(&[("scheme", "fsdp"), ("chips", "64")]);
        assert_eq!(r.mesh().unwrap(), (64, 1));
    }

    #[test]
    fn a_second_chip_lays_out_the_same_block() {
        let mut p = ParallelismParams::default();
        p.apply("vs", "v5e").unwrap();
        assert_pairs_restore(&p);
        let c = p.comparison().unwrap();
        let on_v5e = ParallelismParams {
            chip: chip("v5e").unwrap(),
            vs: None,
            ..ParallelismParams::default()
        }
        .layout()
        .unwrap();
        let (compute, comms) = on_v5e.pass_times(true);
        assert_eq!(c.row("backward-matmuls").unwrap().b, seconds(compute.0));
        assert_eq!(c.row("backward-comms").unwrap().b, seconds(comms.0));
        assert_eq!(
            c.row("verdict").unwrap().b,
            on_v5e.verdict().text().to_string()
        );
        // The v5e's bf16 peak is lower than the v5p's.
        assert!(c.row("peak").unwrap().ratio.unwrap() < 1.0);
        // A GPU has no ICI and an unknown id is refused; the comparison stays.
        let messages = assert_refused_keeps(&p, &[("vs", "h100"), ("vs", "tpu-v9")]);
        assert!(messages[1].contains("tpu-v9"), "{messages:?}");
        p.apply("vs", "").unwrap();
        assert_eq!(p.comparison(), None);
        assert!(p.to_pairs().iter().all(|(k, _)| k != "vs"));
    }

    #[test]
    fn the_static_figure_shows_the_first_step_and_the_verdict() {
        let owner = Owner::new();
        let html = owner
            .with(|| view! { <ParallelismLayout args=pairs(&[("scheme", "fsdp")]) /> }.to_html());
        assert!(
            html.contains(r#"data-widget="parallelism-layout""#),
            "{html}"
        );
        assert!(
            html.contains("AllGather_X W_in[D_X, F] → W_in[D, F]"),
            "{html}"
        );
        assert!(
            html.contains("matmul current") || html.contains("comm current"),
            "{html}"
        );
        assert!(html.contains(r#"data-verdict="compute-bound""#), "{html}");
    }
}
