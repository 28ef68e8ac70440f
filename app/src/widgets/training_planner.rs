//! The LLaMA 3 training planner (`data-widget="training-planner"`): a model, a
//! pod (or slice) and a sharding plan, a batch, a token budget and an assumed MFU;
//! out come step time, the MFU the plan's roofline allows, memory per chip, days
//! to train and chip-hours. The default is the book's Part 6 configuration.
//! A second model (`vs`) may be planned the same way beside it, its key
//! numbers side by side with the ratio.

use super::controls::NumberField;
use super::controls::{fit_word, Notice};
use leptos::prelude::*;
use ridgeline_core::format::{grouped, sci, seconds, si, tokens};
use ridgeline_core::hardware::{chip, Chip, Topology, CHIPS};
use ridgeline_core::model::accounting::params;
use ridgeline_core::model::config::{model, ModelPreset, MODELS};
use ridgeline_core::training::{
    best_plan, estimate_run, evaluate, training_time, Cluster, Evaluation, Job, Parallelism,
    RunAssumptions, RunEstimate, MAX_SLICES,
};
use ridgeline_core::units::Seconds;

use super::compare::{compare_picker, compare_table, parse_vs, Comparison, Diff, VS};
use super::controls::option;
use super::params::{WidgetParams, WidgetState};
use crate::input::{parse_count, parse_whole, short};
use ridgeline_core::reader::compact::MODEL_TAG;

/// The models the planner offers (Part 6 is about LLaMA 3).
pub const PLANNER_MODELS: [&str; 3] = ["llama3-8b", "llama3-70b", "llama3-405b"];
/// The reader's own model `id` (`my:NAME` or its compact text), never a preset.
fn own_model(id: &str) -> Option<&'static ModelPreset> {
    model(id)
        .is_none()
        .then(|| crate::library::resolve_model(id))
        .flatten()
}

/// A model the planner offers: a LLaMA 3 preset or one of the reader's own.
fn planner_model(id: &str) -> Option<&'static ModelPreset> {
    PLANNER_MODELS
        .iter()
        .find(|m| m.eq_ignore_ascii_case(id.trim()))
        .and_then(|m| model(m))
        .or_else(|| own_model(id))
}

/// Tokens per sequence: the book's run (Part 6).
pub const SEQ: f64 = BOOK.seq_len;
/// The book's LLaMA 3-70B run on a v5p pod, the planner's starting point.
const BOOK: RunAssumptions = RunAssumptions::BOOK;

/// How each slice is divided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlanChoice {
    /// FSDP over every chip of the slice.
    Fsdp,
    /// FSDP × `tensor`-way tensor parallelism.
    FsdpTp,
    /// The fastest plan that fits, chosen by the core.
    Best,
}

impl PlanChoice {
    /// URL name.
    pub fn name(self) -> &'static str {
        match self {
            PlanChoice::Fsdp => "fsdp",
            PlanChoice::FsdpTp => "fsdp-tp",
            PlanChoice::Best => "best",
        }
    }

    /// What the reader sees.
    pub fn label(self) -> &'static str {
        match self {
            PlanChoice::Fsdp => "FSDP",
            PlanChoice::FsdpTp => "FSDP + tensor",
            PlanChoice::Best => "best plan",
        }
    }
}

/// Everything the reader can set; always plannable.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlannerParams {
    /// The model.
    pub model: &'static ModelPreset,
    /// A second model planned beside it, if any.
    pub vs: Option<&'static ModelPreset>,
    /// The chip.
    pub chip: &'static Chip,
    /// Chips per slice, or `None` for a full pod.
    pub slice: Option<u32>,
    /// Slices (pods) joined over the data-centre network.
    pub pods: u32,
    /// The plan.
    pub choice: PlanChoice,
    /// Tensor-parallel degree for `FsdpTp`.
    pub tensor: u32,
    /// Global batch, tokens.
    pub batch: f64,
    /// Tokens to train on.
    pub tokens: f64,
    /// Assumed model FLOPs utilisation, a fraction.
    pub mfu: f64,
}

impl Default for PlannerParams {
    fn default() -> Self {
        PlannerParams {
            model: model(BOOK.model).unwrap_or(&MODELS[0]),
            vs: None,
            chip: chip(BOOK.chip).unwrap_or(&CHIPS[0]),
            slice: None,
            pods: BOOK.pods,
            choice: PlanChoice::FsdpTp,
            tensor: 4,
            batch: BOOK.batch_tokens(),
            tokens: BOOK.tokens,
            mfu: BOOK.mfu,
        }
    }
}

/// What a plan comes to.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The cluster.
    pub cluster: Cluster,
    /// The plan's roofline evaluation.
    pub eval: Evaluation,
    /// The run at the assumed MFU.
    pub run: RunEstimate,
    /// Step time at the assumed MFU.
    pub step: Seconds,
}

fn axes_of(c: &Chip) -> u8 {
    match c.topology {
        Topology::Torus { dims, .. } => dims,
        Topology::NvlinkDomain { .. } => 1,
    }
}

impl PlannerParams {
    /// The cluster these settings describe.
    pub fn cluster(&self) -> Result<Cluster, String> {
        match self.slice {
            None => Cluster::full_pod(self.chip, self.pods),
            Some(n) => Cluster::with_chips(self.chip, n, axes_of(self.chip), self.pods),
        }
        .map_err(|e| e.to_string())
    }

    /// Plans and costs the run, or says what is wrong.
    pub fn outcome(&self) -> Result<Outcome, String> {
        self.outcome_of(self.model)
    }

    /// Plans and costs the same run for `model`, or says what is wrong.
    pub fn outcome_of(&self, model: &ModelPreset) -> Result<Outcome, String> {
        let cluster = self.cluster()?;
        let job = Job::new(model.config, self.batch, SEQ).map_err(|e| e.to_string())?;
        let n = cluster.chips_per_slice;
        let a = cluster.axes;
        let eval = match self.choice {
            PlanChoice::Best => best_plan(&job, &cluster),
            PlanChoice::Fsdp => evaluate(&job, &cluster, &Parallelism::fsdp(n, a)),
            PlanChoice::FsdpTp => {
                let y = self.tensor;
                if y < 2 || !n.is_multiple_of(y) || y == n {
                    return Err(format!(
                        "the tensor degree {y} must be at least 2 and divide the {} chips of a slice, leaving FSDP at least 2",
                        grouped(n as f64)
                    ));
                }
                let (mx, my) = if a >= 2 { (a - 1, 1) } else { (1, 1) };
                evaluate(&job, &cluster, &Parallelism::fsdp_tensor(n / y, y, mx, my))
            }
        }
        .map_err(|e| e.to_string())?;
        let peak = cluster
            .chip
            .peak(job.compute)
            .ok_or_else(|| format!("{} has no bf16 peak", cluster.chip.name))?;
        let total = params(&model.config).total();
        let chips = cluster.chips();
        let run =
            estimate_run(total, self.tokens, chips, peak, self.mfu).map_err(|e| e.to_string())?;
        let step =
            training_time(job.step_flops(), chips, peak, self.mfu).map_err(|e| e.to_string())?;
        Ok(Outcome {
            cluster,
            eval,
            run,
            step,
        })
    }
}

impl PlannerParams {
    /// The plan beside the same plan for the second model: each model's
    /// parameters and its plan's key numbers from core, with their ratio. A
    /// second model the settings cannot plan gets a row saying why.
    pub fn comparison(&self) -> Option<Comparison> {
        let vs = self.vs?;
        let a = self.outcome().ok()?;
        let mut rows = vec![Diff::number(
            "params",
            "parameters",
            params(&self.model.config).total(),
            params(&vs.config).total(),
            |x| sci(x, 3),
        )];
        match self.outcome_of(vs) {
            Err(e) => rows.push(Diff::words(
                "plan",
                "plan",
                "planned",
                format!("cannot be planned: {e}"),
            )),
            Ok(b) => {
                let number = |key, what: &str, f: fn(&Outcome) -> f64, show: fn(f64) -> String| {
                    Diff::number(key, what, f(&a), f(&b), show)
                };
                rows.extend([
                    number("step", "step time at this MFU", |o| o.step.0, seconds),
                    number(
                        "step-lower",
                        "best step time the roofline allows",
                        |o| o.eval.step_lower.0,
                        seconds,
                    ),
                    number(
                        "mfu-ceiling",
                        "MFU ceiling of this plan",
                        |o| o.eval.mfu * 100.0,
                        |x| format!("{}%", sci(x, 3)),
                    ),
                    number(
                        "memory",
                        "memory per chip",
                        |o| o.eval.memory.total().0,
                        |x| si(x, "B", 3),
                    ),
                    number("flops", "training FLOPs", |o| o.run.flops.0, |x| sci(x, 3)),
                    number("days", "days to train", |o| o.run.days(), |x| sci(x, 3)),
                    number(
                        "chip-hours",
                        "chip-hours",
                        |o| o.run.chip_hours(),
                        |x| sci(x, 3),
                    ),
                    Diff::words(
                        "verdict",
                        "verdict",
                        a.eval.verdict.text(),
                        b.eval.verdict.text(),
                    ),
                    Diff::words(
                        "fits",
                        "fits in HBM",
                        fit_word(a.eval.fits),
                        fit_word(b.eval.fits),
                    ),
                ]);
            }
        }
        Some(Comparison {
            a: self.model.name.into(),
            b: vs.name.into(),
            rows,
        })
    }
}

impl WidgetParams for PlannerParams {
    const ORDER: &'static [&'static [&'static str]] = &[&["model", "chip", VS], &["slice", "pods"]];

    /// Sets one parameter from text, or explains why not (nothing changes then).
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut next = *self;
        next.assign(key, value)?;
        next.check()?;
        *self = next;
        Ok(())
    }

    /// A model may fit only on many pods, and many pods suit only a large
    /// model: a link carrying both loads whole ([`WidgetParams::from_pairs`]).
    fn check(&self) -> Result<(), String> {
        self.outcome().map(|_| ())
    }

    fn assign(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut next = *self;
        match key {
            "model" => {
                next.model = planner_model(value).ok_or_else(|| {
                    format!(
                    "the planner offers LLaMA 3 8B, 70B and 405B and your saved models, not “{}”",
                    short(value)
                )
                })?
            }
            VS => next.vs = parse_vs(value, "planner model", planner_model)?,
            "chip" => next.chip = super::controls::tpu_with_ici(value)?,
            "slice" => {
                next.slice = if value.trim() == "pod" {
                    None
                } else {
                    Some(parse_whole::<u32>(value, "chips per slice", 1.0, 1e6)?)
                }
            }
            "pods" => next.pods = parse_whole::<u32>(value, "pods", 1.0, MAX_SLICES as f64)?,
            "scheme" => {
                next.choice = [PlanChoice::Fsdp, PlanChoice::FsdpTp, PlanChoice::Best]
                    .into_iter()
                    .find(|c| c.name() == value.trim())
                    .ok_or_else(|| {
                        format!("unknown plan “{}” (fsdp, fsdp-tp, best)", short(value))
                    })?
            }
            "tp" => next.tensor = parse_whole::<u32>(value, "tensor degree", 1.0, 65536.0)?,
            "batch" => next.batch = parse_count(value, "batch (tokens)", 1.0, 1e12)?.round(),
            "tokens" => next.tokens = parse_count(value, "training tokens", 1.0, 1e18)?,
            "mfu" => next.mfu = parse_count(value, "MFU (%)", 0.1, 100.0)? / 100.0,
            other => return Err(super::params::unknown_setting(other)),
        }
        *self = next;
        Ok(())
    }

    /// The parameters as `key=value` pairs.
    fn to_pairs(&self) -> Vec<(String, String)> {
        vec![
            ("model".into(), self.model.id.into()),
            ("chip".into(), self.chip.id.into()),
            (
                "slice".into(),
                self.slice.map_or("pod".into(), |n| n.to_string()),
            ),
            ("pods".into(), self.pods.to_string()),
            ("scheme".into(), self.choice.name().into()),
            ("tp".into(), self.tensor.to_string()),
            ("batch".into(), format!("{}", self.batch)),
            ("tokens".into(), format!("{}", self.tokens)),
            ("mfu".into(), format!("{}", self.mfu * 100.0)),
        ]
        .into_iter()
        .chain(self.vs.map(|vs| (VS.into(), vs.id.into())))
        .collect()
    }
}

/// Whether a refused value of `key` is put back in its control: the selects
/// and the tensor degree, whose refused value would otherwise stay on show
/// beside a plan computed from the last valid one.
pub fn resets_on_refusal(key: &str) -> bool {
    matches!(key, "model" | "chip" | "scheme" | "tp" | VS)
}

/// The training planner.
#[component]
pub fn TrainingPlanner(
    /// The chapter's `key=value` arguments (URL parameters override them).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let state = WidgetState::<PlannerParams>::new(&args);
    let WidgetState { params, notice } = state;
    let set = move |key: &'static str, value: String| {
        // Put a refused choice (a plan or tensor degree the slice cannot take)
        // back to the last valid one, so the control shows what is planned.
        state.set_or_refresh(key, &value, resets_on_refusal(key));
    };
    let outcome = Memo::new(move |_| params.with(|p| p.outcome().ok()));
    let show = move |f: fn(&Outcome, &PlannerParams) -> String| {
        move || {
            outcome.with(|o| {
                o.as_ref()
                    .map(|o| params.with(|p| f(o, p)))
                    .unwrap_or_default()
            })
        }
    };
    let scheme_options = [PlanChoice::FsdpTp, PlanChoice::Fsdp, PlanChoice::Best]
        .map(|c| {
            option(c.name(), c.label(), move || {
                params.with(|p| p.choice.name())
            })
        })
        .collect_view();
    let text_input = move |key: &'static str,
                           aria: &'static str,
                           size: u32,
                           get: fn(&PlannerParams) -> String| {
        view! {
            {NumberField::new(key, aria, size).class(format!("in-{key}")).decimal().on_change().view(move || params.with(get), set)}
        }
    };
    let verdict = move || outcome.with(|o| o.as_ref().map(|o| o.eval.verdict.text()).unwrap_or(""));
    let vs_id = move || params.with(|p| p.vs.map_or("", |m| m.id));
    let vs_options = super::controls::model_options(
        |m| PLANNER_MODELS.contains(&m.id) || m.id.starts_with(MODEL_TAG),
        vs_id,
    );

    view! {
        <figure class="widget training-planner" data-widget="training-planner">
            <div class="controls">
                {super::controls::model_picker("Model ", |m| PLANNER_MODELS.contains(&m.id) || m.id.starts_with(MODEL_TAG), move || params.with(|p| p.model.id).to_string(), set)}
                {super::controls::chip_picker("Chip ", super::controls::has_ici, move || params.with(|p| p.chip.id).to_string(), set)}
                <label>"Chips per slice ("<code>"pod"</code>" = full pod) "
                    {text_input("slice", "chips per slice, or pod", 6, |p| p.slice.map_or("pod".into(), |n| n.to_string()))}
                </label>
                <label>"Pods " {text_input("pods", "number of pods", 4, |p| p.pods.to_string())}</label>
            </div>
            <div class="controls">
                <label>"Plan "
                    <select prop:value=move || params.with(|p| p.choice.name()) on:change=move |ev| set("scheme", event_target_value(&ev))>{scheme_options}</select>
                </label>
                <Show when=move || params.with(|p| p.choice == PlanChoice::FsdpTp)>
                    <label>"tensor degree " {text_input("tp", "tensor-parallel degree", 4, |p| p.tensor.to_string())}</label>
                </Show>
                <label>"Batch (tokens) " {text_input("batch", "global batch in tokens", 10, |p| format!("{}", p.batch))}</label>
                <label>"Tokens to train " {text_input("tokens", "training tokens", 8, |p| sci(p.tokens, 4))}</label>
                <label>"MFU % " {text_input("mfu", "assumed MFU in percent", 4, |p| sci(p.mfu * 100.0, 4))}</label>
            </div>
            <div class="controls">{compare_picker(vs_options, vs_id, set)}</div>
            <Notice notice=notice />
            <p class="plan-line">
                {show(|o, _| format!(
                    "{} chips ({} per pod × {}), plan {}, {} tokens per chip{}: ",
                    grouped(o.cluster.chips()),
                    grouped(o.cluster.chips_per_slice as f64),
                    o.cluster.slices,
                    o.eval.parallelism.label(),
                    grouped(o.eval.tokens_per_chip),
                    if o.eval.sequence_parallel > 1.0 { format!(", {}-way sequence sharding", sci(o.eval.sequence_parallel, 3)) } else { String::new() },
                ))}
                <strong class=move || format!("verdict {}", verdict()) data-verdict=verdict>{verdict}</strong>
                "."
            </p>
            <dl class="times planner-results">
                <div><dt>"step time at this MFU"</dt><dd data-step="">{show(|o, _| seconds(o.step.0))}</dd></div>
                <div><dt>"best step time the roofline allows"</dt><dd>{show(|o, _| seconds(o.eval.step_lower.0))}</dd></div>
                <div><dt>"MFU ceiling of this plan"</dt><dd data-mfu-ceiling="">{show(|o, _| format!("{}%", sci(o.eval.mfu * 100.0, 3)))}</dd></div>
                <div><dt>"memory per chip"</dt><dd data-memory="">{show(|o, _| format!("{} of {}{}", si(o.eval.memory.total().0, "B", 3), si(o.eval.hbm.0, "B", 3), if o.eval.fits { "" } else { " — does not fit" }))}</dd></div>
                <div><dt>"training FLOPs"</dt><dd>{show(|o, _| sci(o.run.flops.0, 3))}</dd></div>
                <div><dt>"days to train"</dt><dd data-days="">{show(|o, _| sci(o.run.days(), 3))}</dd></div>
                <div><dt>"chip-hours"</dt><dd data-chip-hours="">{show(|o, _| sci(o.run.chip_hours(), 3))}</dd></div>
                <div><dt>"steps"</dt><dd>{show(|o, p| grouped(p.tokens / (o.eval.tokens_per_chip * o.eval.chips)))}</dd></div>
            </dl>
            <p class="crossing">
                {show(|o, p| if p.mfu > o.eval.mfu * (1.0 + 1e-9) {
                    format!("The assumed {}% MFU is above what this plan's roofline allows ({}%): expect slower.", sci(p.mfu * 100.0, 3), sci(o.eval.mfu * 100.0, 3))
                } else {
                    format!("Batch {} tokens; the roofline leaves room for the assumed {}% MFU.", tokens(p.batch), sci(p.mfu * 100.0, 3))
                })}
            </p>
            {compare_table(move || params.with(|p| p.comparison()))}
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::widgets::params::pairs;
    use crate::widgets::params::testing::assert_refused_keeps;
    use ridgeline_core::roofline::Verdict;

    #[test]
    fn default_is_the_books_run() {
        let p = PlannerParams::default();
        let o = p.outcome().unwrap();
        assert_eq!(o.cluster.chips(), 8960.0);
        assert_eq!(sci(o.run.days(), 2), "45");
        assert!((o.run.days() - 44.0).abs() < 1.5, "{}", o.run.days());
        assert_eq!(o.eval.verdict, Verdict::ComputeBound);
        assert!(o.eval.fits);
        assert!(o.eval.mfu >= p.mfu);
    }

    #[test]
    fn bad_plans_are_refused_with_a_reason() {
        let messages = assert_refused_keeps(
            &PlannerParams::default(),
            &[
                ("tp", "3"),
                ("tp", "8960"),
                ("slice", "9000"),
                ("pods", "0"),
                ("mfu", "150"),
                ("mfu", "0"),
                ("batch", "100"),
                ("tokens", "-5"),
                ("model", "deepseek-v3"),
                ("chip", "h100"),
                ("scheme", "magic"),
            ],
        );
        assert!(messages[2].contains("8960"), "{}", messages[2]);
        // A tensor plan the slice cannot take is refused, and its control is
        // put back: on a 4-chip slice 4-way tensor parallelism leaves no FSDP.
        let (mut small, n) =
            PlannerParams::from_pairs(&pairs(&[("slice", "4"), ("scheme", "fsdp")]));
        assert!(n.is_empty(), "{n:?}");
        assert!(small.apply("scheme", "fsdp-tp").is_err());
        assert_eq!(small.choice, PlanChoice::Fsdp);
        assert!(resets_on_refusal("scheme") && resets_on_refusal("tp"));
        assert!(!resets_on_refusal("batch"));
    }

    #[test]
    fn a_second_model_is_planned_the_same_way() {
        let (p, n) = PlannerParams::from_pairs(&pairs(&[("vs", "llama3-8b")]));
        assert!(n.is_empty(), "{n:?}");
        let c = p.comparison().unwrap();
        assert_eq!((c.a.as_str(), c.b.as_str()), ("LLaMA 3 70B", "LLaMA 3 8B"));
        // The compared numbers are the planner's own for that model.
        let mut eight = p;
        eight.apply("model", "llama3-8b").unwrap();
        let o = eight.outcome().unwrap();
        assert_eq!(c.row("days").unwrap().b, sci(o.run.days(), 3));
        assert_eq!(c.row("step").unwrap().b, seconds(o.step.0));
        assert_eq!(c.row("chip-hours").unwrap().b, sci(o.run.chip_hours(), 3));
        // The book's run: about 44 days for 70B on a v5p pod at 40 % MFU.
        let days = p.outcome().unwrap().run.days();
        assert_eq!(c.row("days").unwrap().a, sci(days, 3));
        assert!((days - 44.0).abs() < 1.5, "{days}");
        // Training FLOPs scale with parameters (6 N D): 8B costs about 8/70.6 of 70B.
        let flops = c.row("flops").unwrap().ratio.unwrap();
        let params_ratio = c.row("params").unwrap().ratio.unwrap();
        assert!(
            (flops / params_ratio - 1.0).abs() < 0.02,
            "{flops} {params_ratio}"
        );
    }

    #[test]
    fn vs_round_trips_and_only_planner_models_are_taken() {
        let p = PlannerParams::default();
        let mut q = p;
        q.apply("vs", "llama3-405b").unwrap();
        let (r, n) = PlannerParams::from_pairs(&q.to_pairs());
        assert!(n.is_empty(), "{n:?}");
        assert_eq!(r, q);
        let messages = assert_refused_keeps(&q, &[("vs", "deepseek-v3"), ("vs", "my:gone")]);
        assert!(messages[0].contains("deepseek-v3"), "{messages:?}");
        // The same model on both sides is allowed; every ratio reads "same".
        q.apply("vs", "llama3-70b").unwrap();
        let c = q.comparison().unwrap();
        assert!(c.rows.iter().all(|d| d.ratio_text() == "same"), "{c:?}");
        q.apply("vs", "none").unwrap();
        assert_eq!(q.comparison(), None);
        assert_eq!(q, p);
    }

    #[test]
    fn a_second_model_the_settings_cannot_plan_says_why() {
        // 64-way tensor parallelism suits LLaMA 3 70B's 64 heads, not 8B's 32:
        // the 70B plan stands and the row for 8B says why it cannot be planned.
        let (p, n) = PlannerParams::from_pairs(&pairs(&[("tp", "64"), ("vs", "llama3-8b")]));
        assert!(n.is_empty(), "{n:?}");
        let c = p.comparison().unwrap();
        let plan = c.row("plan").unwrap();
        assert!(plan.b.starts_with("cannot be planned"), "{plan:?}");
        assert!(plan.b.contains("heads"), "{plan:?}");
        assert_eq!(plan.ratio_text(), "differs");
        assert!(c.row("days").is_none());
    }

    #[test]
    fn more_pods_and_best_plans() {
        let (p, n) = PlannerParams::from_pairs(&pairs(&[
            ("pods", "4"),
            ("scheme", "best"),
            ("batch", "16777216"),
        ]));
        assert!(n.is_empty(), "{n:?}");
        let o = p.outcome().unwrap();
        assert_eq!(o.cluster.chips(), 4.0 * 8960.0);
        assert!(o.run.days() < 12.0);
        let (q, n) = PlannerParams::from_pairs(&p.to_pairs());
        assert!(n.is_empty(), "{n:?}");
        assert_eq!(p, q);
        let (p, n) = PlannerParams::from_pairs(&pairs(&[
            ("model", "llama3-405b"),
            ("slice", "4096"),
            ("scheme", "fsdp"),
        ]));
        assert!(n.is_empty(), "{n:?}");
        assert!(p.outcome().unwrap().run.days() > 44.0);
    }

    /// Found by the parameter fuzzer: a reader's model too large for one
    /// pod, on 4,096 pods. Reached step by step, but its link did not load:
    /// in no order could the pairs be applied one at a time ("no strategy
    /// fits" for the model, "tokens cannot be split" for the pods).
    #[test]
    fn settings_valid_only_together_load_from_their_link() {
        let found = crate::widgets::params::pairs(&[
            ("model", "m1~r~1000000~14336~32~32~8~128~2~8192~g~-~-"),
            ("chip", "v5p"),
            ("slice", "pod"),
            ("pods", "4096"),
            ("scheme", "best"),
            ("tp", "4"),
            ("batch", "4194304"),
            ("tokens", "15000000000000"),
            ("mfu", "40"),
        ]);
        let (p, refused) = PlannerParams::from_pairs(&found);
        assert_eq!(refused, Vec::<String>::new());
        assert_eq!(p.to_pairs(), found);
        assert!(p.outcome().is_ok());
        // Settings that are invalid together still are.
        let mut bad = found.clone();
        bad[6].1 = "1".into();
        let (_, refused) = PlannerParams::from_pairs(&bad);
        assert!(!refused.is_empty());
    }
}
