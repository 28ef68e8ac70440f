//! Pipeline parallelism on GPUs (`data-widget="gpu-parallelism"`, Part 12,
//! "Pipeline Parallelism"): a GPipe step drawn stage by stage on a registry GPU
//! and model, with each microbatch's activations sent between stages (red) and
//! each stage's data-parallel gradient AllReduce (`G`), which can only start
//! once the last microbatch has left that stage. The bubble, the hop, the
//! reduction and the step are timed by [`ridgeline_core::gpu::pipelining`].
//! Below it, the same stages and microbatches under a zero-bubble schedule (each
//! backward split into `B` and `W`, the `W`s filling the bubble) beside 1F1B,
//! with what the schedule costs in memory and complexity. A second GPU (`vs`)
//! times the same step, compared figure by figure.
//!
//! The reader may derate the GPU (`flops_derate`, `link_derate`: the shares of
//! quoted peak FLOPs/s and of NVLink and scale-out bandwidth to assume): core's
//! derated system ([`ridgeline_core::gpu::GpuSystem::derated`]) times every
//! pass, hop, reduction and step, and the MFU against the quoted peak.

use super::controls::Notice;
use super::controls::NumberField;
use super::controls::Slider;
use leptos::prelude::*;
use ridgeline_core::format::{grouped, sci, seconds, si};
use ridgeline_core::gpu::pipelining::{
    link_name, parse_link, pipelining, zero_bubble, Pipelining, PipeliningParams, ZeroBubbleStep,
};
use ridgeline_core::gpu::Scope;
use ridgeline_core::hardware::Chip;
use ridgeline_core::model::config::{model, ModelPreset, MODELS};
use ridgeline_core::roofline::derate::Derate;
use ridgeline_core::training::pipeline::{Pass, Slot};

use super::compare::{compare_picker, compare_table, parse_vs, Comparison, Diff, VS};
use super::controls::option;
use super::derate::{self, Share};
use super::gpu_choice::{
    achievable_label, achievable_shares, find_gpu, find_gpu_chip, gpu_options, gpu_system,
};
use super::params::{WidgetParams, WidgetState};
use crate::charts::pipeline::{timeline_svg, Boxes, Fit, Px, LABEL_W, MAX_W, ROW as TIMELINE_ROW};
use crate::charts::px;
use crate::charts::size::Frame;
use crate::input::{parse_count, parse_whole};

/// Most stages the widget draws (one row each).
pub const MAX_STAGES: u32 = 16;
/// Most microbatches the widget draws.
pub const MAX_MICROBATCHES: u32 = 32;
/// Height of one stage's row, in CSS pixels.
const ROW: f64 = 30.0;
/// The shares of quoted peak the widget lets the reader set (a pipeline's
/// time here has no HBM term).
const SHARES: [Share; 2] = [Share::Flops, Share::Link];

/// The reader's choices; always a schedule core can time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ParallelismChoice {
    /// GPU id.
    pub gpu: &'static str,
    /// The model.
    pub model: &'static ModelPreset,
    /// Global batch in tokens.
    pub batch: f64,
    /// Pipeline stages.
    pub stages: u32,
    /// GPUs per stage.
    pub tp: u32,
    /// Microbatches.
    pub microbatches: u32,
    /// Data-parallel replicas.
    pub dp: u32,
    /// The link between stages.
    pub link: Scope,
    /// A second GPU timing the same step, if any.
    pub vs: Option<&'static Chip>,
    /// The shares of quoted FLOPs/s and link bandwidth assumed (on both GPUs).
    pub derate: Derate,
}

impl Default for ParallelismChoice {
    fn default() -> Self {
        ParallelismChoice {
            gpu: "h100",
            model: model("llama3-70b").unwrap_or(&MODELS[0]),
            batch: 1e6,
            stages: 4,
            tp: 8,
            microbatches: 4,
            dp: 8,
            link: Scope::Network,
            vs: None,
            derate: Derate::PEAK,
        }
    }
}

impl ParallelismChoice {
    /// The core's parameters, checked by core.
    pub fn core(&self) -> Result<PipeliningParams, String> {
        let p = PipeliningParams {
            system: gpu_system(self.gpu)?.derated(self.derate),
            model: self.model,
            batch_tokens: self.batch,
            stages: self.stages,
            tp: self.tp,
            microbatches: self.microbatches,
            dp: self.dp,
            link: self.link,
        };
        p.validate()?;
        Ok(p)
    }

    /// The Achievable preset: Part 1's share of peak FLOPs/s and the link
    /// share the book measured on this GPU (quoted links where it has none).
    pub fn achievable(&self) -> Derate {
        achievable_shares(self.gpu, true)
    }

    /// The same step on GPU `id`, its GPUs per stage capped at a node of it.
    pub fn on(&self, id: &'static str) -> Result<ParallelismChoice, String> {
        let per_node = gpu_system(id)?.gpus_per_node;
        Ok(ParallelismChoice {
            gpu: id,
            tp: self.tp.min(per_node),
            ..*self
        })
    }

    /// The two GPUs timing the same step, figure by figure, when a second is
    /// chosen: a forward unit, a hop, the gradient AllReduce, the idle share
    /// and the step.
    pub fn comparison(&self) -> Option<Comparison> {
        let vs = self.vs?;
        let q = self.on(vs.id).ok()?;
        let (a, b) = (self.compute().ok()?, q.compute().ok()?);
        let (sa, sb) = (self.core().ok()?.system, q.core().ok()?.system);
        let mut rows = vec![
            Diff::number(
                "tp",
                "GPUs per stage",
                f64::from(self.tp),
                f64::from(q.tp),
                |x| sci(x, 3),
            ),
            Diff::number(
                "forward",
                "one unit (a forward pass)",
                a.forward.0,
                b.forward.0,
                seconds,
            ),
            Diff::number("hop", "one hop of activations", a.hop.0, b.hop.0, seconds),
            Diff::number(
                "reduce",
                "each stage's gradient AllReduce",
                a.reduce.0,
                b.reduce.0,
                seconds,
            ),
            Diff::number(
                "idle",
                "idle, counting the reductions",
                a.idle,
                b.idle,
                percent,
            ),
            Diff::number("step", "step", a.step.0, b.step.0, seconds),
            Diff::number("mfu", "MFU", a.mfu, b.mfu, percent),
        ];
        // A step with no reduction has no ratio to show for it.
        if a.reduce.0 == 0.0 && b.reduce.0 == 0.0 {
            rows.retain(|d| d.key != "reduce");
        }
        Some(Comparison {
            a: sa.name.into(),
            b: sb.name.into(),
            rows,
        })
    }

    /// The timed step.
    pub fn compute(&self) -> Result<Pipelining, String> {
        pipelining(&self.core()?)
    }

    /// The same stages and microbatches with the zero-bubble schedule and 1F1B.
    pub fn zero_bubble(&self, r: &Pipelining) -> Result<ZeroBubbleStep, String> {
        zero_bubble(&self.core()?, r.forward)
    }
}

impl WidgetParams for ParallelismChoice {
    const ORDER: &'static [&'static [&'static str]] = &[&["gpu"], &["model"], &[VS]];

    /// Sets one parameter from text, or explains why not (nothing changes then).
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut next = *self;
        let count = |what: &str, max: f64| parse_whole::<u32>(value, what, 1.0, max);
        match key {
            // A GPU with smaller nodes caps the GPUs per stage: shrink to fit.
            "gpu" => next = self.on(find_gpu(value)?)?,
            VS => next.vs = parse_vs(value, "GPU", |v| find_gpu_chip(v).ok())?,
            "model" => next.model = super::controls::model(value)?,
            "batch" => next.batch = parse_count(value, "batch", 1.0, 1e12)?,
            "stages" => next.stages = count("stages", f64::from(MAX_STAGES))?,
            "tp" => next.tp = count("tp", 1e4)?,
            "microbatches" => {
                next.microbatches = count("microbatches", f64::from(MAX_MICROBATCHES))?
            }
            "dp" => next.dp = count("dp", 65_536.0)?,
            "link" => next.link = parse_link(value)?,
            other => match derate::apply(&SHARES, next.derate, other, value) {
                Some(d) => next.derate = d?,
                None => return Err(super::params::unknown_setting(other)),
            },
        }
        next.compute()?;
        if let Some(vs) = next.vs {
            next.on(vs.id)
                .and_then(|q| q.compute())
                .map_err(|e| format!("{} (compared): {e}", vs.name))?;
        }
        *self = next;
        Ok(())
    }

    /// The parameters as `key=value` pairs.
    fn to_pairs(&self) -> Vec<(String, String)> {
        vec![
            ("gpu".into(), self.gpu.into()),
            ("model".into(), self.model.id.into()),
            ("batch".into(), self.batch.to_string()),
            ("stages".into(), self.stages.to_string()),
            ("tp".into(), self.tp.to_string()),
            ("microbatches".into(), self.microbatches.to_string()),
            ("dp".into(), self.dp.to_string()),
            ("link".into(), link_name(self.link).into()),
        ]
        .into_iter()
        .chain(self.vs.map(|vs| (VS.into(), vs.id.into())))
        .chain(derate::pairs(&SHARES, self.derate))
        .collect()
    }
}

/// The activations a pass waits for: `(start, end)` of the send into it, if any.
pub fn transfer_into(r: &Pipelining, b: &Slot) -> Option<(f64, f64)> {
    let from = match b.pass {
        Pass::Forward => b.device.checked_sub(1)?,
        Pass::Backward => b.device + 1,
        Pass::Weight | Pass::ForwardBackward => return None,
    };
    let prev = r
        .timed
        .slots
        .iter()
        .find(|p| p.device == from && p.microbatch == b.microbatch && p.pass == b.pass)?;
    (r.transfer_units > 0.0).then_some((prev.end.0, prev.end.0 + r.transfer_units))
}

/// The GPipe step as SVG markup: a row per stage, a box per forward or
/// backward pass (labelled when wide enough), the activations each stage
/// receives, and each stage's gradient reduction, laid out for a box `box_w`
/// CSS pixels wide ([`Fit`]: compact on a phone, the sends then one path).
fn gpipe_svg(r: &Pipelining, stages: u32, box_w: f64) -> String {
    use std::fmt::Write;
    let step = r.step_units;
    let fit = Fit::new(step, box_w);
    let px = fit.px;
    let width = Px(fit.width(step));
    let height = timeline_height(stages, ROW);
    let x_of = |t: f64| LABEL_W + t * px;
    let y_of = |s: u32| f64::from(s) * ROW + 2.0;
    let mut out = String::with_capacity(128 * r.timed.slots.len() + 512);
    let _ = write!(
        out,
        r#"<svg class="pipeline-timeline gpu-pipeline" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" aria-label="GPipe step of {stages} stages: {} forward-pass units, {} idle">"#,
        sci(step, 3),
        percent(r.idle)
    );
    for s in 0..stages {
        let _ = write!(
            out,
            r#"<text class="stage" x="2" y="{}" dominant-baseline="middle">stage {s}</text>"#,
            y_of(s) + ROW / 2.0
        );
    }
    // A box with its letter, shared by the passes and the reductions.
    let mut boxes = Boxes::new(fit);
    let mut slot = |class: &'static str, stage: u32, start: f64, end: f64, label: &str| {
        let w = ((end - start) * px - 1.0).max(1.0);
        let (x, y) = (x_of(start), y_of(stage));
        boxes.add(
            class,
            (x, y),
            (w, ROW - 10.0),
            Some((label, y + ROW / 2.0 - 2.0)),
        );
    };
    for b in &r.timed.slots {
        let (class, letter) = match b.pass {
            Pass::Forward => ("slot fwd", 'F'),
            Pass::Backward => ("slot bwd", 'B'),
            Pass::Weight => ("slot wgt", 'W'),
            // Only DualPipe overlaps two passes; this widget draws GPipe.
            Pass::ForwardBackward => ("slot fb", '+'),
        };
        slot(
            class,
            b.device,
            b.start.0,
            b.end.0,
            &format!("{letter}{}", b.microbatch),
        );
    }
    for g in r.reductions.iter().filter(|g| g.end > g.start) {
        slot("slot reduce", g.stage, g.start, g.end, "G");
    }
    out.push_str(&boxes.finish());
    let mut sends = Boxes::new(fit);
    for (s, (a, e)) in r
        .timed
        .slots
        .iter()
        .filter_map(|b| transfer_into(r, b).map(|t| (b.device, t)))
    {
        sends.add(
            "send",
            (x_of(a), y_of(s) + ROW - 9.0),
            (((e - a) * px).max(1.0), 5.0),
            None,
        );
    }
    out.push_str(&sends.finish());
    let end_y = f64::from(stages) * ROW + 16.0;
    let _ = write!(
        out,
        r#"<text class="axis" x="{LABEL_W}" y="{end_y}">0</text><text class="axis" x="{}" y="{end_y}" text-anchor="end">{} units = {}</text></svg>"#,
        Px(width.0 - 4.0),
        sci(step, 3),
        seconds(r.step.0)
    );
    out
}

/// The height of a timeline of `stages` rows `row` pixels high, with its axis.
fn timeline_height(stages: u32, row: f64) -> f64 {
    f64::from(stages) * row + 22.0
}

fn percent(x: f64) -> String {
    format!("{}%", sci(100.0 * x, 3))
}

/// The widget.
#[component]
pub fn GpuParallelism(
    /// The chapter's `key=value` arguments (URL parameters override them).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let state = WidgetState::<ParallelismChoice>::new(&args);
    let WidgetState { params, notice } = state;
    let set = move |key: &'static str, value: String| {
        state.set_or_refresh(key, &value, true);
    };
    let result = Memo::new(move |_| params.with(|p| p.compute().ok()));
    let gpu_picks = gpu_options(move || params.with(|p| p.gpu));
    let vs_id = move || params.with(|p| p.vs.map_or("", |c| c.id));
    let vs_options = gpu_options(vs_id);
    let link_options = [Scope::Network, Scope::Node]
        .map(|s| {
            let label = match s {
                Scope::Node => "NVLink (stages in one node)",
                Scope::Network => "scale-out network (stages on different nodes)",
            };
            option(link_name(s), label, move || {
                params.with(|p| link_name(p.link))
            })
        })
        .collect_view();

    // Both timelines are written as SVG text and set with `inner_html`, for
    // the reason given at `charts::pipeline::timeline_svg` (a thousand boxes).
    // Both are laid out for the width of the first one's box.
    let frame = Frame::width_only(px::size(MAX_W));
    // Each timeline's box keeps the height of the most stages drawn so far:
    // dragging the stages slider down then leaves the page below where it
    // is, instead of moving all of it (a new layout, paint and layer tree of
    // the whole page per step, 10-25 ms on a phone).
    let most_stages = Memo::new(move |before: Option<&u32>| {
        params.with(|p| p.stages).max(before.copied().unwrap_or(0))
    });
    let keep_height =
        move |row: f64| move || format!("{}px", timeline_height(most_stages.get(), row));
    let drawing = move || {
        let box_w = f64::from(frame.get().width);
        let stages = params.with(|p| p.stages);
        result.with(|r| {
            r.as_ref()
                .map(|r| gpipe_svg(r, stages, box_w))
                .unwrap_or_default()
        })
    };
    let zb = Memo::new(move |_| {
        result.with(|r| {
            r.as_ref()
                .and_then(|r| params.with(|p| p.zero_bubble(r).ok()))
        })
    });
    let zb_drawing = move || {
        let box_w = f64::from(frame.get().width);
        let stages = params.with(|p| p.stages);
        zb.with(|z| {
            z.as_ref()
                .map(|z| {
                    let t = &z.timeline;
                    let aria = format!(
                        "zero-bubble step of {} stages: {} forward-pass units, {} idle",
                        stages,
                        sci(t.step.0, 3),
                        percent(t.bubble)
                    );
                    let end = format!("{} units = {}", sci(t.step.0, 3), seconds(z.step.0));
                    timeline_svg(
                        t,
                        stages,
                        box_w,
                        "pipeline-timeline gpu-pipeline zero-bubble",
                        &aria,
                        &end,
                        |_| false,
                    )
                })
                .unwrap_or_default()
        })
    };
    let zb_stat = move |f: fn(&ZeroBubbleStep) -> String| {
        move || zb.with(|z| z.as_ref().map(f).unwrap_or_default())
    };
    let stat = move |f: fn(&Pipelining) -> String| {
        move || result.with(|r| r.as_ref().map(f).unwrap_or_default())
    };
    let number = move |key: &'static str,
                       aria: &'static str,
                       get: fn(&ParallelismChoice) -> String| {
        view! {
            {NumberField::new(key, aria, 7).class(format!("in-{key}")).on_change().view(move || params.with(get), set)}
        }
    };
    let range = move |key: &'static str, max: u32, get: fn(&ParallelismChoice) -> u32| {
        view! {
            {Slider::new("1", move || max.to_string().to_string(), "1").class(format!("in-{key}")).view(move || (params.with(get).to_string()).to_string(), move |v: String| set(key, v))}
            <output>{move || params.with(get).to_string()}</output>
        }
    };

    view! {
        <figure class="widget gpu-parallelism" data-widget="gpu-parallelism">
            <div class="controls">
                {super::controls::picker("GPU ", "gpu", None, move || params.with(|p| p.gpu).to_string(), gpu_picks, set)}
                {super::controls::model_picker("Model ", super::controls::any, move || params.with(|p| p.model.id).to_string(), set)}
                <label>"Batch (tokens) "{number("batch", "global batch in tokens", |p| grouped(p.batch))}</label>
                <label>"Data-parallel replicas "{number("dp", "data-parallel replicas", |p| p.dp.to_string())}</label>
                <label>"Stages "{range("stages", MAX_STAGES, |p| p.stages)}</label>
                <label>"Microbatches "{range("microbatches", MAX_MICROBATCHES, |p| p.microbatches)}</label>
                <label>"GPUs per stage "{number("tp", "GPUs per stage", |p| p.tp.to_string())}</label>
                <label>"Stages talk over "<select prop:value=move || params.with(|p| link_name(p.link)) on:change=move |ev| set("link", event_target_value(&ev))>{link_options}</select></label>
                {compare_picker(vs_options, vs_id, set)}
            </div>
            {derate::controls(
                "Achievable rates (share of the quoted peak)",
                &[(Share::Flops, "gpu-parallelism-flops-derate"), (Share::Link, "gpu-parallelism-link-derate")],
                move || params.with(|p| p.derate),
                move || params.with_untracked(ParallelismChoice::achievable),
                move || params.with(|p| achievable_label(p.gpu, true)),
                Some("Every time below is at these shares; MFU counts the step's model FLOPs against the quoted peak."),
                set,
            )}
            <Notice notice=notice />
            <div class="table-scroll" tabindex="0" node_ref=frame.node style:min-height=keep_height(ROW) inner_html=drawing></div>
            <p class="legend"><span class="key fwd"></span>" F: forward (1 unit) "<span class="key bwd"></span>" B: backward (2 units) "<span class="key send"></span>" activations sent to the next stage "<span class="key reduce"></span>" G: the stage's gradient AllReduce"</p>
            <dl class="times gpu-pipeline-results">
                <div><dt>"one unit: a stage's forward pass of one microbatch"</dt><dd data-forward=stat(|r| r.forward.0.to_string())>{stat(|r| seconds(r.forward.0))}</dd></div>
                <div><dt>"one hop of activations"</dt><dd data-hop=stat(|r| r.hop.0.to_string())>{stat(|r| format!("{} at {} ({} of a unit)", seconds(r.hop.0), si(r.w_hop.0, "B/s", 3), percent(r.transfer_units)))}</dd></div>
                <div><dt>"each stage's gradient AllReduce"</dt><dd data-reduce=stat(|r| r.reduce.0.to_string())>{stat(|r| if r.reduce.0 > 0.0 { format!("{} ({} units), {} per GPU", seconds(r.reduce.0), sci(r.reduce_units, 3), si(r.reduce_bytes.0, "B", 3)) } else { "none: one replica".into() })}</dd></div>
                <div><dt>"bubble, (S − 1)/(M + S − 1)"</dt><dd data-bubble=stat(|r| r.bubble_formula.to_string())>{stat(|r| percent(r.bubble_formula))}</dd></div>
                <div><dt>"with the sends timed"</dt><dd data-bubble-timed="">{stat(|r| percent(r.timed.bubble))}</dd></div>
                <div><dt>"idle, counting the exposed reductions"</dt><dd data-idle=stat(|r| r.idle.to_string())>{stat(|r| percent(r.idle))}</dd></div>
                <div><dt>"step"</dt><dd data-step=stat(|r| r.step.0.to_string())>{stat(|r| format!("{} ({} units)", seconds(r.step.0), sci(r.step_units, 3)))}</dd></div>
                <div><dt>"MFU: model FLOPs over every GPU's quoted peak"</dt><dd data-mfu=stat(|r| r.mfu.to_string())>{stat(|r| percent(r.mfu))}</dd></div>
                <div><dt>"the book's pipeline traffic per step"</dt><dd>{stat(|r| format!("{} in all, about {} per layer", seconds(r.total_comms.0), seconds(r.per_layer.0)))}</dd></div>
            </dl>
            {compare_table(move || params.with(ParallelismChoice::comparison))}
            <h4 class="zb-title">"The same step with a zero-bubble schedule"</h4>
            <p class="muted">"Each backward pass splits into B, the gradient for the stage's input that the previous stage is waiting for, and W, the gradient for the stage's own weights that nobody waits for. B goes first; a stage runs its W passes whenever it would otherwise sit idle. Sends and gradient reductions are left out here, so compare the bubbles, not the step with the one above."</p>
            <div class="table-scroll" tabindex="0" style:min-height=keep_height(TIMELINE_ROW) inner_html=zb_drawing></div>
            <p class="legend"><span class="key fwd"></span>" F (1 unit) "<span class="key bwd"></span>" B: input gradient (1 unit) "<span class="key wgt"></span>" W: weight gradient (1 unit); the number is the microbatch."</p>
            <dl class="times zb-results">
                <div><dt>"zero-bubble: idle share"</dt><dd data-zb-bubble=zb_stat(|z| z.timeline.bubble.to_string())>{zb_stat(|z| format!("{} (step {})", percent(z.timeline.bubble), seconds(z.step.0)))}</dd></div>
                <div><dt>"1F1B and GPipe: idle share"</dt><dd data-1f1b-bubble=zb_stat(|z| z.one_f_one_b.to_string())>{zb_stat(|z| format!("{} (step {})", percent(z.one_f_one_b), seconds(z.one_f_one_b_step.0)))}</dd></div>
                <div><dt>"microbatches whose activations a stage holds at once"</dt><dd data-zb-in-flight=zb_stat(|z| z.timeline.peak_in_flight.to_string())>{zb_stat(|z| format!("at most {} (GPipe: {})", sci(z.timeline.peak_in_flight, 3), sci(z.gpipe_in_flight, 3)))}</dd></div>
            </dl>
            <p class="zb-cost">"What it costs: a microbatch has three passes per stage instead of two, run out of order, so the program no longer looks like a forward pass followed by its backward pass: this is the code complexity the book warns about, and it does not come from automatic sharding. Each stage keeps a microbatch's activations until its W has run, later than 1F1B frees them, and still waits for its last W before its gradient reduction can start."</p>
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::widgets::params::pairs;
    use crate::widgets::params::testing::{assert_pairs_restore, assert_refused_keeps};

    /// The box held open for the most stages drawn is as tall as their drawing.
    #[test]
    fn the_kept_height_is_the_drawings() {
        for stages in [1, 4, 16] {
            let p = ParallelismChoice {
                stages,
                ..ParallelismChoice::default()
            };
            let r = p.compute().unwrap();
            let h = timeline_height(stages, ROW);
            assert!(
                gpipe_svg(&r, stages, 336.0).contains(&format!(r#" height="{h}""#)),
                "{stages} stages"
            );
            let z = p.zero_bubble(&r).unwrap();
            let zh = timeline_height(stages, TIMELINE_ROW);
            let zb = timeline_svg(&z.timeline, stages, 336.0, "c", "a", "e", |_| false);
            assert!(
                zb.contains(&format!(r#" height="{zh}""#)),
                "{stages} stages"
            );
        }
    }

    #[test]
    fn the_books_two_by_two_figure() {
        let (p, refused) = ParallelismChoice::from_pairs(&pairs(&[
            ("stages", "2"),
            ("microbatches", "2"),
            ("dp", "1"),
        ]));
        assert!(refused.is_empty(), "{refused:?}");
        let r = p.compute().unwrap();
        // Each stage idles a third of the step; there is nothing to reduce.
        assert_eq!(percent(r.bubble_formula), "33.3%");
        assert_eq!(percent(3.0 / 7.0), "42.9%");
        assert_eq!(percent(3.0 / 35.0), "8.57%");
        assert!((r.ideal.step.0 - 9.0).abs() < 1e-12);
        assert_eq!(r.reduce.0, 0.0);
        // Every forward after the first stage and every backward before the last waits for a send.
        let sends = r
            .timed
            .slots
            .iter()
            .filter(|b| transfer_into(&r, b).is_some())
            .count();
        // Two microbatches each send forward once and back once.
        assert_eq!(sends, 4);
    }

    #[test]
    fn the_reduction_is_exposed_and_counts_against_the_step() {
        let p = ParallelismChoice::default();
        let r = p.compute().unwrap();
        // LLaMA-3 70B over 4 stages of 8 H100s: each GPU reduces 2 · 70.6e9 / 32 bf16
        // bytes · 2 · 7/8 at 50 GB/s; the step ends with stage 0's reduction.
        assert!(r.reduce_units > 1.0, "{}", r.reduce_units);
        assert!(r.idle > r.timed.bubble);
        assert!((r.step_units - r.reductions[0].end).abs() < 1e-12);
        // Pipelining itself is cheap: a hop is well under a percent of a unit.
        assert!(r.transfer_units < 0.01);
        // Over NVLink the hop is faster than over the scale-out network.
        let mut nv = p;
        nv.apply("link", "nvlink").unwrap();
        assert!(nv.compute().unwrap().hop.0 < r.hop.0);
    }

    #[test]
    fn bad_input_keeps_the_state_and_pairs_round_trip() {
        let mut p = ParallelismChoice::default();
        assert_refused_keeps(
            &p,
            &[
                ("gpu", "v5p"),
                ("model", "gpt9"),
                ("batch", "0"),
                ("stages", "17"),
                ("microbatches", "0"),
                ("tp", "9"),
                ("dp", "x"),
                ("link", "pcie"),
                ("colour", "red"),
            ],
        );
        p.apply("gpu", "b200").unwrap();
        p.apply("model", "llama3-8b").unwrap();
        p.apply("stages", "8").unwrap();
        p.apply("batch", "2e6").unwrap();
        assert_pairs_restore(&p);
    }

    #[test]
    fn the_zero_bubble_step_beats_1f1b_on_the_chapters_settings() {
        let p = ParallelismChoice::default();
        let r = p.compute().unwrap();
        let z = p.zero_bubble(&r).unwrap();
        // 4 stages, 4 microbatches: 1F1B idles (S − 1)/(M + S − 1) = 3/7 of the step;
        // ZB-H1's, (S − 1)/(3M + S − 1) = 3/15, is as low as 1F1B's memory allows.
        assert!(
            (z.one_f_one_b - 3.0 / 7.0).abs() < 1e-9,
            "{}",
            z.one_f_one_b
        );
        let zb = z.timeline.bubble;
        assert!(zb + 1e-12 >= 0.2 && zb < 0.7 * z.one_f_one_b, "{zb}");
        assert!(z.timeline.peak_in_flight <= 4.0);
        assert_eq!(percent(z.one_f_one_b), "42.9%");
        assert_eq!(z.gpipe_in_flight, 4.0);
        let owner = Owner::new();
        let html = owner.with(|| view! { <GpuParallelism args=pairs(&[]) /> }.to_html());
        assert!(
            html.contains("zero-bubble step of 4 stages"),
            "no zero-bubble timeline"
        );
        assert_eq!(html.matches("class=\"slot wgt\"").count(), 16);
    }

    /// The elements a drawing asks the browser to lay out and rasterise.
    fn elements(svg: &str) -> usize {
        ["<rect", "<path", "<text"]
            .iter()
            .map(|t| svg.matches(t).count())
            .sum()
    }

    /// The width a drawing says it has.
    fn drawn_width(svg: &str) -> f64 {
        svg.split(" width=\"")
            .nth(1)
            .and_then(|w| w.split('"').next())
            .and_then(|w| w.parse().ok())
            .unwrap_or(f64::INFINITY)
    }

    /// Issue #13: on a 390 px phone (a 336 px box) both timelines are drawn no
    /// wider than their box, with a fraction of the elements of the wide drawing.
    #[test]
    fn a_phone_draws_both_timelines_compact_and_inside_the_box() {
        const PHONE_BOX: f64 = 336.0;
        let mut report = Vec::new();
        for (stages, microbatches, bound) in [(4, 4, 90), (16, 4, 60), (16, 32, 60)] {
            let p = ParallelismChoice {
                stages,
                microbatches,
                ..ParallelismChoice::default()
            };
            let r = p.compute().unwrap();
            let z = p.zero_bubble(&r).unwrap();
            let draw = |box_w: f64| {
                let zb = timeline_svg(&z.timeline, stages, box_w, "c", "a", "e", |_| false);
                (gpipe_svg(&r, stages, box_w), zb)
            };
            let (wide_g, wide_z) = draw(f64::NAN);
            let (phone_g, phone_z) = draw(PHONE_BOX);
            for svg in [&phone_g, &phone_z] {
                assert!(drawn_width(svg) <= PHONE_BOX, "{svg}");
            }
            let (before, after) = (
                elements(&wide_g) + elements(&wide_z),
                elements(&phone_g) + elements(&phone_z),
            );
            report.push(format!("S={stages} M={microbatches}: {before} → {after}"));
            assert!(after <= bound, "{report:?}\n{phone_g}\n{phone_z}");
            assert!(2 * after < before, "{report:?}");
            // Every pass is still drawn: the merged boxes cover the same time.
            assert_eq!(phone_g.matches("class=\"slot fwd\"").count(), 1);
            assert_eq!(phone_g.matches("class=\"slot reduce\"").count(), 1);
            assert_eq!(phone_g.matches("class=\"send\"").count(), 1);
        }
        // The figures for the report (shown with --nocapture).
        println!("gpu-parallelism elements, wide → 336 px box: {report:?}");
    }

    #[test]
    fn the_static_page_draws_every_block() {
        let owner = Owner::new();
        let html = owner.with(|| view! { <GpuParallelism args=pairs(&[]) /> }.to_html());
        // 4 stages × 4 microbatches × (F + B), plus 4 reductions; then the
        // zero-bubble timeline's F, B and W of each.
        assert_eq!(
            html.matches("<rect").count() - html.matches("class=\"send\"").count(),
            2 * 4 * 4 + 4 + 3 * 4 * 4,
            "{html}"
        );
        assert!(html.contains("stage 3"), "{html}");
        assert!(html.contains(">G<"), "{html}");
    }

    /// Issue #39: the FLOPs and link shares time every pass, hop, reduction
    /// and step, and the MFU; they round-trip through the URL and a share
    /// outside (0, 1] is refused by name.
    #[test]
    fn the_shares_time_every_number_and_round_trip() {
        let quoted = ParallelismChoice::default();
        let (p, refused) = ParallelismChoice::from_pairs(&pairs(&[
            ("flops_derate", "0.8"),
            ("link_derate", "0.5"),
        ]));
        assert!(refused.is_empty(), "{refused:?}");
        assert_pairs_restore(&p);
        assert!(quoted
            .to_pairs()
            .iter()
            .all(|(k, _)| !k.ends_with("_derate")));
        let (a, b) = (quoted.compute().unwrap(), p.compute().unwrap());
        // By hand: a forward unit at 80 % of peak takes 1/0.8 = 1.25 times as
        // long; a hop and a reduction at half the links take twice as long.
        assert!((b.forward.0 / a.forward.0 - 1.25).abs() < 1e-12);
        assert!((b.hop.0 / a.hop.0 - 2.0).abs() < 1e-12);
        assert!((b.reduce.0 / a.reduce.0 - 2.0).abs() < 1e-12);
        assert!(b.step > a.step && b.mfu < a.mfu);
        assert!((b.mfu - 0.8 * (1.0 - b.idle)).abs() < 1e-12);
        let html = Owner::new()
            .with(|| view! { <GpuParallelism args=pairs(&[("flops_derate", "0.8")]) /> }.to_html());
        let c = ParallelismChoice {
            derate: Derate::new(0.8, 1.0, 1.0).unwrap(),
            ..quoted
        };
        assert!(html.contains(&format!("data-mfu=\"{}\"", c.compute().unwrap().mfu)));
        assert_refused_keeps(
            &p,
            &[
                ("flops_derate", "0"),
                ("flops_derate", "2"),
                ("link_derate", "-1"),
                ("link_derate", "x"),
                ("hbm_derate", "0.5"),
            ],
        );
        let mut q = p;
        assert_eq!(
            q.apply("flops_derate", "0").unwrap_err(),
            "the FLOPs derate must be at least 0.05"
        );
        // A share just above zero once gave a step of "∞ s".
        assert_eq!(
            q.apply("link_derate", "1e-300").unwrap_err(),
            "the link derate must be at least 0.05"
        );
        assert!(q
            .apply("link_derate", "1.5")
            .unwrap_err()
            .starts_with("the link derate"));
        // The Achievable preset on an H100: Part 1's 80 % and the book's
        // measured NCCL link share.
        let d = quoted.achievable();
        assert_eq!(d.flops(), 0.8);
        assert!((d.link() - 0.796).abs() < 0.003);
        assert!(achievable_label("h100", true).starts_with("Achievable (80% of peak FLOPs/s"));
    }

    /// Issue #19: a second GPU times the same step beside the first.
    #[test]
    fn a_second_gpu_times_the_same_step() {
        let mut p = ParallelismChoice::default();
        p.apply("vs", "b200").unwrap();
        assert_pairs_restore(&p);
        let c = p.comparison().unwrap();
        assert_eq!((c.a.as_str(), c.b.as_str()), ("NVIDIA H100", "NVIDIA B200"));
        let (a, b) = (
            p.compute().unwrap(),
            p.on("b200").unwrap().compute().unwrap(),
        );
        assert_eq!(c.row("step").unwrap().a, seconds(a.step.0));
        assert_eq!(c.row("step").unwrap().b, seconds(b.step.0));
        // A B200 has more FLOPs/s than an H100: each forward unit is shorter.
        assert!(c.row("forward").unwrap().ratio.unwrap() < 1.0);
        // An NVL72 rack holds all 32 GPUs of the step's four stages.
        p.apply("vs", "gb200").unwrap();
        let c = p.comparison().unwrap();
        assert_eq!(c.row("tp").unwrap().ratio_text(), "same");
        assert_refused_keeps(
            &p,
            &[
                ("vs", "v5p"),
                ("vs", "gpt9"),
                ("stages", "17"),
                ("model", "m1~broken"),
            ],
        );
        p.apply("vs", "none").unwrap();
        assert!(p.comparison().is_none());
    }

    /// Issue #19: the reader's own model (a link's compact text, or `my:NAME`
    /// from the library) times the step as the preset of the same shape does.
    #[test]
    fn the_readers_model_times_the_step_as_its_preset() {
        let code = crate::library::tests::saved_as("llama3-8b", "my 8B");
        let mut p = ParallelismChoice::default();
        p.apply("model", "llama3-8b").unwrap();
        let step = p.compute().unwrap().step;
        for id in [code.as_str(), "my:my 8B"] {
            let mut q = ParallelismChoice::default();
            q.apply("model", id).unwrap();
            assert_eq!(q.model.name, "my 8B");
            assert_eq!(q.compute().unwrap().step, step, "{id}");
            assert_pairs_restore(&q);
        }
    }
}
