//! The profile viewer (`data-widget="profile"`, Part 9): a synthetic trace of
//! one training step of LLaMA 3 on a TPU slice, built by `ridgeline_core::profiling::trace`
//! from the Part 5 roofline. Matmuls on the TensorCore lane, collectives on the
//! ICI lanes, with or without overlap; the step-time budget as a marker; the ops
//! that take the most time; and a "find the bottleneck" question whose answer
//! (the verdict) is shown only once the reader has picked one.

use super::controls::Notice;
use super::controls::NumberField;
use super::controls::{rounded, LogScale, Slider};
use leptos::prelude::*;
use ridgeline_core::format::{grouped, sci, seconds, tokens};
use ridgeline_core::hardware::{chip, Chip, CHIPS};
use ridgeline_core::model::config::{model, ModelPreset, MODELS};
use ridgeline_core::profiling::trace::{
    check_profile, profile, update_overhead, OpKind, OpSummary, Profile, MAX_WINDOW_LAYERS,
};
use ridgeline_core::roofline::Verdict;
use ridgeline_core::training::{evaluate, Boundary, Cluster, Job, Parallelism, RunAssumptions};
use ridgeline_core::units::Seconds;

use super::controls::option;
use super::params::{WidgetParams, WidgetState};
use crate::charts::size::{Frame, Shape, Size};
use crate::charts::svg;
use crate::charts::trace::{draw_trace, TraceModel};
use crate::input::{mesh_text, parse_count, parse_mesh, parse_whole, short, GLOBAL_BATCH_MAX};

/// The presets the profile offers (the reader's own models too: see [`profiled`]).
pub const PROFILE_MODELS: [&str; 2] = ["llama3-8b", "llama3-70b"];

/// Whether the profile offers a model: LLaMA 3 8B and 70B, the models its
/// chapter profiles, and the reader's own (issue 19).
pub fn profiled(m: &ModelPreset) -> bool {
    PROFILE_MODELS.contains(&m.id) || m.id.starts_with(ridgeline_core::reader::compact::MODEL_TAG)
}
/// Rows of the op table.
pub const TOP_OPS: usize = 6;
/// Slider positions for the batch.
const STEPS: f64 = 400.0;
/// Tokens per sequence: the book's LLaMA-3 run (Part 6).
const SEQ: f64 = RunAssumptions::BOOK.seq_len;
/// The trace's drawing size (SVG user units).
const SHAPE: Shape = Shape::new(760, 260, 240);
/// Most layers the window may show (the trace stays readable).
pub const MAX_LAYERS: u32 = 6;

/// The strategies the profile offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProfileScheme {
    /// FSDP over the whole slice.
    Fsdp,
    /// FSDP × tensor parallelism.
    FsdpTp,
}

impl ProfileScheme {
    /// URL name.
    pub fn name(self) -> &'static str {
        match self {
            ProfileScheme::Fsdp => "fsdp",
            ProfileScheme::FsdpTp => "fsdp-tp",
        }
    }

    /// What the reader sees.
    pub fn label(self) -> &'static str {
        match self {
            ProfileScheme::Fsdp => "FSDP",
            ProfileScheme::FsdpTp => "FSDP + tensor",
        }
    }
}

/// The reader's two possible answers to "what is the bottleneck?".
pub const ANSWERS: [(Verdict, &str, &str); 2] = [
    (Verdict::ComputeBound, "compute", "compute"),
    (Verdict::CommunicationBound, "ici", "ICI communication"),
];

/// Everything the reader can set; always profilable.
#[derive(Debug, Clone, PartialEq)]
pub struct ProfileParams {
    /// The model.
    pub model: &'static ModelPreset,
    /// The chip (a TPU with ICI).
    pub chip: &'static Chip,
    /// Mesh axis sizes of the slice.
    pub mesh: Vec<u32>,
    /// The strategy.
    pub scheme: ProfileScheme,
    /// Tensor-parallel degree for FSDP + tensor.
    pub tensor: u32,
    /// Global batch, tokens.
    pub batch: f64,
    /// Overlap communication with compute.
    pub overlap: bool,
    /// Layers shown in the trace.
    pub layers: u32,
}

impl Default for ProfileParams {
    fn default() -> Self {
        ProfileParams {
            model: model("llama3-70b").unwrap_or(&MODELS[0]),
            chip: chip("v5p").unwrap_or(&CHIPS[0]),
            mesh: vec![16, 16, 16],
            scheme: ProfileScheme::Fsdp,
            tensor: 4,
            batch: 2_097_152.0,
            overlap: true,
            layers: 3,
        }
    }
}

fn parse_bool(value: &str, what: &str) -> Result<bool, String> {
    match value.trim().to_ascii_lowercase().as_str() {
        "on" | "true" | "yes" | "1" => Ok(true),
        "off" | "false" | "no" | "0" => Ok(false),
        _ => Err(format!("{what} is on or off, not “{}”", short(value))),
    }
}

impl ProfileParams {
    /// Chips in the slice.
    pub fn chips(&self) -> f64 {
        self.mesh.iter().map(|&a| a as f64).product()
    }

    /// The batch slider's range: one sequence (and a token per chip) up to 2^30.
    pub fn batch_range(&self) -> (f64, f64) {
        let lo = self.chips().max(SEQ);
        (lo, GLOBAL_BATCH_MAX.max(lo * 1000.0))
    }

    /// The cluster and the division of its chips.
    pub fn plan(&self) -> Result<(Cluster, Parallelism), String> {
        let cluster = Cluster::new(self.chip, &self.mesh, 1).map_err(|e| e.to_string())?;
        let n = cluster.chips_per_slice;
        let a = cluster.axes;
        let par = match self.scheme {
            ProfileScheme::Fsdp => Parallelism::fsdp(n, a),
            ProfileScheme::FsdpTp => {
                let y = self.tensor;
                if y < 2 || y >= n || !n.is_multiple_of(y) {
                    return Err(format!(
                        "the tensor degree {y} must be at least 2 and divide the {} chips of the slice, leaving FSDP at least 2",
                        grouped(n as f64)
                    ));
                }
                let (mx, my) = if a >= 2 { (a - 1, 1) } else { (1, 1) };
                Parallelism::fsdp_tensor(n / y, y, mx, my)
            }
        };
        if n < 2 {
            return Err("a profile of FSDP needs at least two chips".into());
        }
        Ok((cluster, par))
    }

    /// The step to profile: the job, the slice, the split and the optimizer's
    /// overhead, or what is wrong with them.
    fn step(&self) -> Result<(Job, Cluster, Parallelism, Seconds), String> {
        let (cluster, par) = self.plan()?;
        let job = Job::new(self.model.config, self.batch, SEQ).map_err(|e| e.to_string())?;
        let e = evaluate(&job, &cluster, &par).map_err(|e| e.to_string())?;
        let overhead = update_overhead(&e, cluster.chip);
        Ok((job, cluster, par, overhead))
    }

    /// Builds the profile, or says what is wrong.
    pub fn analyse(&self) -> Result<Profile, String> {
        let (job, cluster, par, overhead) = self.step()?;
        profile(&job, &cluster, &par, self.layers, overhead).map_err(|e| e.to_string())
    }

    /// The mesh as `16x16x16`.
    pub fn mesh_text(&self) -> String {
        mesh_text(&self.mesh)
    }

    /// The chart for the current overlap setting; the axis reaches the serial end,
    /// so switching overlap on visibly shortens the step.
    pub fn trace_model(&self, p: &Profile) -> TraceModel {
        let s = p.window(self.overlap);
        TraceModel::new(
            s.timeline.clone(),
            s.budget.total().0,
            p.window(false).timeline.end.0,
        )
    }

    /// The trace of the profiled window as inline SVG.
    pub fn trace_svg(&self, p: &Profile, size: Size) -> String {
        let m = self.trace_model(p);
        svg(size.width, size.height, |root| draw_trace(root, &m, false)).0
    }

    /// The sentence on the whole step: its length, its budget and how they compare.
    pub fn step_text(&self, p: &Profile) -> String {
        let s = p.step(self.overlap);
        let end = s.timeline.end.0;
        format!(
            "Whole step ({} layers, {}): {}.",
            step_layers(p),
            if self.overlap {
                "with overlap"
            } else {
                "without overlap"
            },
            seconds(end)
        )
    }

    /// What the trace shows: which layers, and the span of time its axis covers.
    pub fn window_text(&self, p: &Profile) -> String {
        let shown = p.window(self.overlap).timeline.end.0;
        let axis = p.window(false).timeline.end.0;
        let layers = p.layers_shown;
        format!(
            "Trace window: the first {} of the step's {} layers, closed by the optimizer update, as one chip runs them. The time axis spans 0 to {}, the window's length without overlap; {} the window ends at {}. The whole step lasts {}.",
            if layers == 1 { "layer".to_string() } else { format!("{layers} layers") },
            step_layers(p),
            seconds(axis),
            if self.overlap { "with overlap" } else { "as drawn, without overlap," },
            seconds(shown),
            seconds(p.step(self.overlap).timeline.end.0),
        )
    }

    /// What the table's "of the step" column is a fraction of, and why the
    /// column can add up to more than 100 %.
    pub fn share_text(&self, p: &Profile) -> String {
        let end = p.step(self.overlap).timeline.end.0;
        let total: f64 = p
            .top_ops(self.overlap, usize::MAX)
            .iter()
            .map(|r| r.fraction)
            .sum();
        let why = if total > 1.0 + 1e-9 {
            "more than 100 %, because the TensorCore and the ICI lanes run at the same time: an op on one lane and an op on another both count the time they share"
        } else {
            "no more than 100 %, because without overlap only one lane works at a time"
        };
        format!(
            "“of the step” is an op's total time divided by the whole step's wall-clock time ({}), not by the time of the window drawn above. Over every op of the step the column adds up to {}%: {why}.",
            seconds(end),
            sci(100.0 * total, 3),
        )
    }

    /// The budget line: FLOPs + exposed communication + overhead against the timeline.
    pub fn budget_text(&self, p: &Profile) -> String {
        let s = p.step(self.overlap);
        let b = s.budget;
        let over = s.over_budget().0;
        let verdict = if over > 1e-9 * b.total().0 {
            format!(
                "the trace runs {} ({}%) past it",
                seconds(over),
                sci(100.0 * over / b.total().0, 2)
            )
        } else {
            "the trace meets it".to_string()
        };
        format!(
            "Budget: {} of FLOPs + {} of {} communication + {} optimizer update = {}; {}.",
            seconds(b.flops.0),
            seconds(b.comms.0),
            if self.overlap { "exposed" } else { "serial" },
            seconds(b.overhead.0),
            seconds(b.total().0),
            verdict
        )
    }

    /// Why the answer is what it is (shown after the reader answers).
    pub fn explanation(&self, p: &Profile) -> String {
        let e = &p.evaluation;
        let s = p.step(true);
        let idle = 100.0
            * s.timeline
                .idle(ridgeline_core::profiling::trace::Lane::TensorCore)
                .0
            / s.timeline.end.0.max(f64::MIN_POSITIVE);
        let threshold = match e.boundary {
            Boundary::At(b) => format!(
                "this strategy needs about {} tokens per chip (B ≈ {} tokens) to hide its collectives",
                grouped(b / e.chips),
                tokens(b)
            ),
            Boundary::Always => "this strategy hides its collectives at any batch".into(),
            Boundary::Never => "this strategy never hides its collectives on this slice".into(),
        };
        let binding = e
            .layer
            .binding
            .map(|k| format!(" The longest collective is the {}.", k.label()))
            .unwrap_or_default();
        format!(
            "Each chip has {} tokens; {threshold}. With overlap the TensorCore is idle {}% of the step.{binding}",
            grouped(e.tokens_per_chip),
            sci(idle, 2),
        )
    }
}

/// Layers in the whole step (those of the step's schedule).
fn step_layers(p: &Profile) -> u32 {
    p.step_serial
        .timeline
        .spans
        .iter()
        .filter_map(|s| s.layer)
        .max()
        .map_or(0, |l| l + 1)
}

impl WidgetParams for ProfileParams {
    const ORDER: &'static [&'static [&'static str]] =
        &[&["model", "chip"], &["slice", "mesh"], &["tp"]];

    /// Sets one parameter from text, or explains why not (nothing changes then).
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut next = self.clone();
        next.assign(key, value)?;
        next.check()?;
        *self = next;
        Ok(())
    }

    /// Sets one parameter from its own text; the slice, split, batch and
    /// window are checked together by [`Self::check`], so that a link whose
    /// settings are valid only together (a small slice with a small batch)
    /// loads whole.
    fn assign(&mut self, key: &str, value: &str) -> Result<(), String> {
        let next = self;
        match key {
            "model" => {
                let id = value.trim();
                let id = PROFILE_MODELS
                    .iter()
                    .find(|p| p.eq_ignore_ascii_case(id))
                    .map_or(id, |p| *p);
                next.model = crate::library::resolve_model(id)
                    .filter(|m| profiled(m))
                    .ok_or_else(|| {
                        format!(
                            "the profile offers LLaMA 3 8B and 70B and your own models, not “{}”",
                            short(value)
                        )
                    })?
            }
            "chip" => {
                let c = super::controls::tpu_with_ici(value)?;
                if Cluster::new(c, &next.mesh, 1).is_err() {
                    next.mesh = c.topology.largest_mesh();
                }
                next.chip = c;
            }
            "slice" | "mesh" => next.mesh = parse_mesh(value)?,
            "scheme" => {
                next.scheme = [ProfileScheme::Fsdp, ProfileScheme::FsdpTp]
                    .into_iter()
                    .find(|s| s.name() == value.trim())
                    .ok_or_else(|| format!("unknown strategy “{}” (fsdp, fsdp-tp)", short(value)))?
            }
            "tp" => next.tensor = parse_whole::<u32>(value, "tensor degree", 1.0, 65536.0)?,
            "b" | "batch" => {
                next.batch =
                    parse_count(value, "batch (tokens)", 1.0, GLOBAL_BATCH_MAX * 1000.0)?.round()
            }
            "overlap" => next.overlap = parse_bool(value, "overlap")?,
            "layers" => {
                let max = MAX_LAYERS.min(MAX_WINDOW_LAYERS) as f64;
                next.layers = parse_whole::<u32>(value, "layers shown", 1.0, max)?
            }
            other => return Err(super::params::unknown_setting(other)),
        }
        Ok(())
    }

    /// Says what is wrong, if anything, without building the schedules:
    /// [`ProfileParams::analyse`] succeeds exactly when this does.
    fn check(&self) -> Result<(), String> {
        let (job, cluster, par, overhead) = self.step()?;
        check_profile(&job, &cluster, &par, self.layers, overhead)
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    /// The parameters as `key=value` pairs.
    fn to_pairs(&self) -> Vec<(String, String)> {
        vec![
            ("model".into(), self.model.id.into()),
            ("chip".into(), self.chip.id.into()),
            ("slice".into(), self.mesh_text()),
            ("scheme".into(), self.scheme.name().into()),
            ("tp".into(), self.tensor.to_string()),
            ("batch".into(), format!("{}", self.batch)),
            (
                "overlap".into(),
                if self.overlap { "on" } else { "off" }.into(),
            ),
            ("layers".into(), self.layers.to_string()),
        ]
    }
}

/// The name of an op group in the table: `W_in matmul`, `all-gather: weights`.
pub fn op_name(r: &OpSummary) -> String {
    match r.kind {
        OpKind::Matmul | OpKind::MatmulBackward | OpKind::Overhead => r.what.clone(),
        k => format!("{}: {}", k.label(), r.what),
    }
}

/// The profile viewer widget.
#[component]
pub fn ProfileViewer(
    /// The chapter's `key=value` arguments (URL parameters override them).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let state = WidgetState::<ProfileParams>::new(&args);
    let WidgetState { params, notice } = state;
    let set = move |key: &'static str, value: String| {
        state.set(key, &value);
    };
    let analysis = Memo::new(move |_| params.with(|p| p.analyse().ok()));
    let choice = RwSignal::new(None::<Verdict>);
    let answered = RwSignal::new(None::<Verdict>);
    let frame = Frame::new(SHAPE);
    let trace = move || {
        analysis.with(|a| {
            a.as_ref()
                .map(|a| params.with(|p| p.trace_svg(a, frame.get())))
                .unwrap_or_default()
        })
    };
    let show = move |f: fn(&ProfileParams, &Profile) -> String| {
        move || {
            analysis.with(|a| {
                a.as_ref()
                    .map(|a| params.with(|p| f(p, a)))
                    .unwrap_or_default()
            })
        }
    };
    let verdict = move || {
        analysis.with(|a| {
            a.as_ref()
                .map(|a| a.verdict.text())
                .unwrap_or("communication-bound")
        })
    };
    let model_id = move || params.with(|p| p.model.id);
    let chip_id = move || params.with(|p| p.chip.id);
    let scheme_options = [ProfileScheme::Fsdp, ProfileScheme::FsdpTp]
        .map(|s| {
            option(s.name(), s.label(), move || {
                params.with(|p| p.scheme.name())
            })
        })
        .collect_view();
    let tp_options = move || {
        [2u32, 4, 8, 16, 32, 64]
            .map(|y| {
                option(y.to_string(), y.to_string(), move || {
                    params.with(|p| p.tensor.to_string())
                })
            })
            .collect_view()
    };
    let range = move || params.with(|p| p.batch_range());
    let rows = move || {
        analysis.with(|a| {
            a.as_ref().map(|a| {
                let overlap = params.with(|p| p.overlap);
                a.top_ops(overlap, TOP_OPS)
                    .into_iter()
                    .map(|r| {
                        view! {
                            <tr data-kind=r.kind.label()>
                                <th scope="row">{op_name(&r)}</th>
                                <td>{r.lane.label()}</td>
                                <td>{grouped(r.count as f64)}</td>
                                <td>{seconds(r.total.0)}</td>
                                <td>{format!("{}%", sci(100.0 * r.fraction, 3))}</td>
                            </tr>
                        }
                    })
                    .collect_view()
            })
        })
    };
    let answer_options = ANSWERS
        .map(|(v, value, label)| {
            view! {
                <label class="answer-option">
                    <input type="radio" name="profile-bottleneck" value=value
                        prop:checked=move || choice.get() == Some(v)
                        on:change=move |_| choice.set(Some(v)) />
                    " " {label}
                </label>
            }
        })
        .collect_view();
    let result = move || {
        let Some(a) = answered.get() else {
            return (String::new(), String::new());
        };
        let right = analysis.with(|p| p.as_ref().map(|p| p.verdict == a).unwrap_or(false));
        let said = ANSWERS
            .iter()
            .find(|(v, _, _)| *v == a)
            .map(|(_, _, l)| *l)
            .unwrap_or("");
        if right {
            (
                "right".to_string(),
                format!("You said {said}: right for these settings."),
            )
        } else {
            (
                "wrong".to_string(),
                format!("You said {said}: not for these settings."),
            )
        }
    };

    view! {
        <figure class="widget profile" data-widget="profile">
            <div class="controls">
                {super::controls::picker("Model ", "model", Some("model-select"), move || model_id().to_string(), super::controls::model_options(profiled, model_id), set)}
                {super::controls::picker("Chip ", "chip", Some("chip-select"), move || chip_id().to_string(), super::controls::chip_options(super::controls::has_ici, chip_id), set)}
                <label>"Slice "
                    <input type="text" size="10" class="slice-text" aria-label="slice mesh axis sizes, like 16x16x16"
                        value=move || params.with(|p| p.mesh_text()) prop:value=move || params.with(|p| p.mesh_text())
                        on:change=move |ev| set("slice", event_target_value(&ev)) />
                </label>
                <label>"Strategy "
                    <select class="scheme" prop:value=move || params.with(|p| p.scheme.name()) on:change=move |ev| set("scheme", event_target_value(&ev))>{scheme_options}</select>
                </label>
                <Show when=move || params.with(|p| p.scheme == ProfileScheme::FsdpTp)>
                    <label>"tensor degree "
                        <select class="tp" prop:value=move || params.with(|p| p.tensor.to_string()) on:change=move |ev| set("tp", event_target_value(&ev))>{tp_options()}</select>
                    </label>
                </Show>
                <label class="overlap-toggle">
                    <input type="checkbox" class="overlap"
                        prop:checked=move || params.with(|p| p.overlap)
                        on:change=move |ev| set("overlap", if event_target_checked(&ev) { "on".into() } else { "off".into() }) />
                    " overlap communication with compute"
                </label>
            </div>
            {Slider::positions(STEPS).id("profile-batch").valuetext(move || format!("B = {} tokens", grouped(params.with(|p| p.batch)))).log_row("Global batch B", LogScale::new(STEPS, range, rounded), move || params.with(|p| p.batch), "batch", set, view! { {NumberField::new("batch", "global batch in tokens", 11).class("batch-text").on_change().view(move || format!("{}", params.with(|p| p.batch)), set)}
                <span class="per-chip">{move || format!("{} tokens per chip", grouped(params.with(|p| p.batch / p.chips())))}</span> })}
            <Notice notice=notice />
            <div class="plot" node_ref=frame.node style=frame.style()>
                <div class="layer" inner_html=trace role="img"
                    aria-label=move || format!("trace of {} layers of one training step: TensorCore and ICI lanes, {}", params.with(|p| p.layers), params.with(|p| if p.overlap { "with overlap" } else { "without overlap" }))></div>
            </div>
            <p class="trace-window muted" data-trace-window="">{show(|p, a| p.window_text(a))}</p>
            <p class="step-line" data-step-time="">{show(|p, a| p.step_text(a))}</p>
            <p class="budget-line" data-budget="">{show(|p, a| p.budget_text(a))}</p>
            <fieldset class="bottleneck-quiz">
                <legend>"Find the bottleneck: what limits this step?"</legend>
                {answer_options}
                <button type="button" class="reveal" disabled=move || choice.get().is_none()
                    on:click=move |_| answered.set(choice.get_untracked())>"Reveal"</button>
            </fieldset>
            <Show when=move || answered.with(|a| a.is_some())>
                <p class="answer-result" data-answer-result=move || result().0 aria-live="polite">{move || result().1}</p>
                <p class="verdict-line">
                    "The profile is "
                    <strong class=move || format!("verdict {}", verdict()) data-verdict=verdict>{verdict}</strong>
                    ". " {show(|p, a| p.explanation(a))}
                </p>
            </Show>
            <div class="table-scroll" tabindex="0" role="region" aria-label="ops that take the most time">
                <table class="top-ops">
                    <caption>"Ops that take the most time in the whole step"</caption>
                    <thead><tr><th scope="col">"op"</th><th scope="col">"lane"</th><th scope="col">"count"</th><th scope="col">"total"</th><th scope="col">"of the step"</th></tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
            <p class="muted" data-step-share="">{show(|p, a| p.share_text(a))}</p>
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::widgets::params::pairs;
    use crate::widgets::params::testing::{assert_refused_keeps, assert_round_trip};

    /// Issue #19: the profile takes the reader's own model and profiles it
    /// as the preset of the same shape.
    #[test]
    fn the_readers_model_is_profiled_as_its_preset() {
        let code = crate::library::tests::saved_as("llama3-70b", "my 70B");
        let preset = ProfileParams::default().analyse().unwrap();
        for id in [code.as_str(), "my:my 70B"] {
            let mut p = ProfileParams::default();
            p.apply("model", id).unwrap();
            assert_eq!(p.model.name, "my 70B");
            let mine = p.analyse().unwrap();
            assert_eq!(
                mine.step_overlapped.timeline.end, preset.step_overlapped.timeline.end,
                "{id}"
            );
            assert_eq!(mine.verdict, preset.verdict, "{id}");
        }
        assert!(ProfileParams::default()
            .apply("model", "gpt-oss-120b")
            .is_err());
    }

    /// A change is checked without building the schedules; the check must
    /// accept exactly the settings the profile can be built for, or the
    /// widget would keep settings it then cannot draw.
    #[test]
    fn the_check_accepts_exactly_what_can_be_profiled() {
        let (mut ok, mut refused) = (0, 0);
        for tp in ["1", "2", "3", "4", "8", "16", "64", "256"] {
            for layers in ["1", "4", "6"] {
                for mesh in ["2x2x1", "4x4x4", "16x16x16", "2x1x1"] {
                    for (model, batch) in [
                        ("llama3-8b", 2048.0),
                        ("llama3-8b", 4096.0),
                        ("llama3-70b", 4194304.0),
                        ("m1~r~4096~14336~2~32~8~128~128256~8192~g~-~-", 65536.0),
                    ] {
                        let mut p = ProfileParams {
                            layers: 1,
                            ..ProfileParams::default()
                        };
                        p.apply("model", model).unwrap();
                        p.scheme = ProfileScheme::FsdpTp;
                        p.batch = batch;
                        p.tensor = tp.parse().unwrap();
                        p.layers = layers.parse().unwrap();
                        p.mesh = parse_mesh(mesh).unwrap();
                        let (c, a) = (p.check(), p.analyse());
                        assert_eq!(
                            c.is_ok(),
                            a.is_ok(),
                            "tp {tp}, layers {layers}, {mesh}, {model}"
                        );
                        if let (Err(c), Err(a)) = (c, a) {
                            assert_eq!(c, a);
                            refused += 1;
                        } else {
                            ok += 1;
                        }
                    }
                }
            }
        }
        assert!(ok > 10 && refused > 10, "{ok} built, {refused} refused");
    }

    #[test]
    fn trace_svg_shows_the_lanes_and_follows_overlap() {
        let mut p = ProfileParams::default();
        let a = p.analyse().unwrap();
        let on = p.trace_svg(&a, SHAPE.design());
        assert!(on.starts_with(r#"<svg class="chart-svg""#), "{on}");
        assert!(on.contains(r#"viewBox="0 0 760 260""#), "{on}");
        assert!(on.contains("time in the step"), "{on}");
        assert!(on.contains("TensorCore"), "{on}");
        p.apply("overlap", "off").unwrap();
        assert_ne!(p.trace_svg(&a, SHAPE.design()), on);
    }

    #[test]
    fn default_is_communication_bound_and_flips_with_the_batch() {
        let mut p = ProfileParams::default();
        let a = p.analyse().unwrap();
        assert_eq!(a.verdict, Verdict::CommunicationBound);
        assert!(p.explanation(&a).contains("850 tokens per chip"));
        p.apply("batch", "8388608").unwrap();
        let b = p.analyse().unwrap();
        assert_eq!(b.verdict, Verdict::ComputeBound);
        assert!(p.budget_text(&b).contains("optimizer update"));
    }

    #[test]
    fn overlap_changes_the_step_text_and_the_chart() {
        let mut p = ProfileParams::default();
        let a = p.analyse().unwrap();
        let (on, chart_on) = (p.step_text(&a), p.trace_model(&a));
        assert!(on.contains("80 layers"), "{on}");
        p.apply("overlap", "off").unwrap();
        assert!(!p.overlap);
        let (off, chart_off) = (p.step_text(&a), p.trace_model(&a));
        assert_ne!(on, off);
        assert_ne!(chart_on, chart_off);
        assert_eq!(chart_on.x_max, chart_off.x_max);
    }

    #[test]
    fn the_window_and_the_share_column_are_explained() {
        let mut p = ProfileParams::default();
        let a = p.analyse().unwrap();
        let step = a.step(true).timeline.end.0;
        let w = p.window_text(&a);
        assert!(w.contains("of the step's 80 layers"), "{w}");
        assert!(
            w.contains(&format!("0 to {}", seconds(a.window(false).timeline.end.0))),
            "{w}"
        );
        assert!(
            w.contains(&format!("whole step lasts {}", seconds(step))),
            "{w}"
        );
        // With overlap the lanes run together, so the shares add past 100 %.
        let on = p.share_text(&a);
        let sum_on: f64 = a.top_ops(true, usize::MAX).iter().map(|r| r.fraction).sum();
        assert!(sum_on > 1.0, "{sum_on}");
        assert!(on.contains(&format!("{}%", sci(100.0 * sum_on, 3))), "{on}");
        assert!(on.contains("more than 100 %"), "{on}");
        assert!(on.contains(&seconds(step)), "{on}");
        // Without overlap one lane works at a time: the shares add to 100 %.
        p.apply("overlap", "off").unwrap();
        let off = p.share_text(&a);
        let sum_off: f64 = a
            .top_ops(false, usize::MAX)
            .iter()
            .map(|r| r.fraction)
            .sum();
        assert!((sum_off - 1.0).abs() < 1e-9, "{sum_off}");
        assert!(off.contains("adds up to 100%: no more than 100 %"), "{off}");
        assert_ne!(p.window_text(&a), w);
    }

    #[test]
    fn bad_input_is_refused_and_nothing_changes() {
        let mut p = ProfileParams::default();
        assert_refused_keeps(
            &p,
            &[
                ("batch", "100"),
                ("batch", "-3"),
                ("batch", "abc"),
                ("slice", "28x28x28"),
                ("slice", "0x4"),
                ("model", "llama3-405b"),
                ("chip", "h100"),
                ("scheme", "tp"),
                ("overlap", "maybe"),
                ("layers", "0"),
                ("layers", "40"),
                ("colour", "red"),
            ],
        );
        p.apply("scheme", "fsdp-tp").unwrap();
        for v in ["3", "1", "4096"] {
            assert!(p.apply("tp", v).is_err(), "tp={v}");
        }
        p.apply("tp", "8").unwrap();
        assert_eq!(p.analyse().unwrap().evaluation.parallelism.tensor, 8);
    }

    #[test]
    fn pairs_round_trip_and_chips_reset_the_slice() {
        let p: ProfileParams = assert_round_trip(&[
            ("batch", "1048576"),
            ("scheme", "fsdp-tp"),
            ("tp", "4"),
            ("slice", "8x16x16"),
            ("model", "llama3-8b"),
            ("overlap", "off"),
            ("layers", "2"),
        ]);
        assert_eq!(p.chips(), 2048.0);
        let mut r = ProfileParams::default();
        r.apply("chip", "v5e").unwrap();
        assert_eq!(r.mesh, vec![16, 16]);
        let (_, n) = ProfileParams::from_pairs(&pairs(&[("batch", "zero")]));
        assert_eq!(n.len(), 1);
    }

    /// The profile's cross-setting check is the trait's ([`WidgetParams::check`]),
    /// which `from_pairs` runs on a link's settings assigned together. Every
    /// state a reader reaches by single changes loads whole from its link,
    /// and a link whose settings are wrong together is refused, naming why:
    /// a tensor degree as large as a slice of four chips.
    #[test]
    fn a_link_loads_what_the_reader_set_and_refuses_a_wrong_combination() {
        let mut loaded = 0;
        for slice in ["2x2x1", "2x2x2", "4x4x4", "16x16x16"] {
            for tp in ["2", "4", "8"] {
                for scheme in ["fsdp", "fsdp-tp"] {
                    for batch in ["8192", "2097152"] {
                        let mut p = ProfileParams::default();
                        p.apply("model", "llama3-8b").unwrap();
                        let steps = [
                            ("tp", tp),
                            ("slice", slice),
                            ("scheme", scheme),
                            ("batch", batch),
                            ("layers", "2"),
                        ];
                        if steps.iter().all(|(k, v)| p.apply(k, v).is_ok()) {
                            let (q, refused) = ProfileParams::from_pairs(&p.to_pairs());
                            assert_eq!(refused, Vec::<String>::new(), "{steps:?}");
                            assert_eq!(q, p, "{steps:?}");
                            loaded += 1;
                        }
                    }
                }
            }
        }
        assert!(loaded >= 30, "{loaded} states reached");
        let bad = pairs(&[
            ("model", "llama3-8b"),
            ("slice", "2x2x1"),
            ("tp", "4"),
            ("scheme", "fsdp-tp"),
        ]);
        let (p, refused) = ProfileParams::from_pairs(&bad);
        assert_eq!(p.scheme, ProfileScheme::Fsdp);
        assert_eq!(
            refused,
            vec!["the tensor degree 4 must be at least 2 and divide the 4 chips of the slice, leaving FSDP at least 2".to_string()]
        );
    }
}
