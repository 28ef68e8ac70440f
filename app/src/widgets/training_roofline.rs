//! The live training roofline (`data-widget="training-roofline"`): per-layer
//! compute and communication time against the global batch for data parallelism,
//! FSDP, tensor parallelism and FSDP + tensor on a TPU mesh the reader sizes; the
//! selected strategy's communication-bound region shaded, its boundary batch
//! labelled, memory per chip as stacked bars, and a batch slider whose verdict
//! flips as it crosses the boundary. A second chip (`vs`) may be drawn on the
//! same axes (its compute line, the selected strategy's communication line and
//! their crossover), with the difference between the chips spelled out.

use super::controls::Notice;
use super::controls::NumberField;
use super::controls::{rounded, LogScale, Slider};
use leptos::prelude::*;
use ridgeline_core::format::{grouped, sci, seconds, si, tokens};
use ridgeline_core::hardware::{chip, Chip, CHIPS};
use ridgeline_core::model::config::{model, ModelPreset, MODELS};
use ridgeline_core::roofline::Verdict;
use ridgeline_core::training::{
    book_plans, boundary_batch, evaluate, log_batches, sweep, Boundary, Cluster, Evaluation, Job,
    Parallelism, RunAssumptions, Scheme,
};

use super::compare::{
    chip_rows, compare_picker, compare_table, ici_row, parse_vs, Comparison, Diff, VS,
};
use super::controls::{ici_chip, option};
use super::params::{WidgetParams, WidgetState};
use crate::charts::size::{Frame, Shape, Size};
use crate::charts::svg;
use crate::charts::training::{
    comms_bound_region, draw_memory, draw_operating_point, draw_roofline, CommsLine, SecondChip,
    TrainingModel,
};
use crate::input::{mesh_text, parse_count, parse_mesh, short, GLOBAL_BATCH_MAX};
use ridgeline_core::dtype::Dtype;

/// Slider positions for the batch.
pub const STEPS: f64 = 400.0;
/// The roofline's shape (see `charts::size`).
const ROOFLINE: Shape = Shape::new(760, 420, 320);
/// The memory bars' shape.
const MEMORY: Shape = Shape::new(760, 260, 240);
/// Tokens per sequence: the book's LLaMA-3 run (Part 6).
const SEQ: f64 = RunAssumptions::BOOK.seq_len;

/// The strategies a reader can select.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    /// Pure data parallelism.
    Dp,
    /// FSDP.
    Fsdp,
    /// Tensor parallelism over the whole mesh.
    Tp,
    /// FSDP × tensor, split near `X_opt`.
    FsdpTp,
}

impl Choice {
    /// All choices, in legend order.
    pub const ALL: [Choice; 4] = [Choice::Dp, Choice::Fsdp, Choice::Tp, Choice::FsdpTp];

    /// URL name.
    pub fn name(self) -> &'static str {
        match self {
            Choice::Dp => "dp",
            Choice::Fsdp => "fsdp",
            Choice::Tp => "tp",
            Choice::FsdpTp => "fsdp-tp",
        }
    }

    /// The core's scheme.
    pub fn scheme(self) -> Scheme {
        match self {
            Choice::Dp => Scheme::DataParallel,
            Choice::Fsdp => Scheme::Fsdp,
            Choice::Tp => Scheme::Tensor,
            Choice::FsdpTp => Scheme::FsdpTensor,
        }
    }

    fn parse(text: &str) -> Option<Choice> {
        Choice::ALL.into_iter().find(|c| c.name() == text.trim())
    }
}

/// Everything the reader can set; always analysable.
#[derive(Debug, Clone, PartialEq)]
pub struct TrainingRooflineParams {
    /// The model.
    pub model: &'static ModelPreset,
    /// The chip (a TPU with ICI).
    pub chip: &'static Chip,
    /// A second chip (a TPU with ICI) drawn beside it, if any.
    pub vs: Option<&'static Chip>,
    /// Mesh axis sizes of the slice.
    pub mesh: Vec<u32>,
    /// The selected strategy.
    pub choice: Choice,
    /// Global batch, tokens.
    pub batch: f64,
}

impl Default for TrainingRooflineParams {
    fn default() -> Self {
        TrainingRooflineParams {
            model: model("llama3-70b").unwrap_or(&MODELS[0]),
            chip: chip("v5p").unwrap_or(&CHIPS[0]),
            vs: None,
            mesh: vec![16, 16, 16],
            choice: Choice::Fsdp,
            batch: 1_048_576.0,
        }
    }
}

/// The analysis of the current settings.
#[derive(Debug, Clone, PartialEq)]
pub struct Analysis {
    /// The cluster.
    pub cluster: Cluster,
    /// The job.
    pub job: Job,
    /// The book's strategies on this mesh, each with its evaluation if it has one.
    pub plans: Vec<(Choice, Parallelism, Option<Evaluation>)>,
    /// The selected strategy's evaluation.
    pub selected: Evaluation,
}

impl Analysis {
    /// The selected strategy's operating point over the roofline `m`, as inline
    /// SVG (the moving layer).
    pub fn point_svg(&self, m: &TrainingModel, size: Size) -> String {
        let l = &self.selected.layer;
        svg(size.width, size.height, |root| {
            draw_operating_point(
                root,
                m,
                self.job.batch_tokens,
                l.t_math.0,
                l.t_comms.0,
                self.selected.verdict == Verdict::CommunicationBound,
                false,
            )
        })
        .0
    }

    /// Memory per chip of every strategy that has an evaluation, as inline SVG bars.
    pub fn memory_svg(&self, size: Size) -> String {
        let bars: Vec<(String, _)> = self
            .plans
            .iter()
            .filter_map(|(_, p, e)| Some((p.label(), e.as_ref()?.memory)))
            .collect();
        svg(size.width, size.height, |root| {
            draw_memory(root, &bars, self.selected.hbm.0, false)
        })
        .0
    }
}

/// Every strategy's compute and communication time against the batch, the
/// shaded region and the boundary, as inline SVG (the static layer).
pub fn roofline_svg(m: &TrainingModel, size: Size) -> String {
    svg(size.width, size.height, |root| {
        draw_roofline(root, m, false)
    })
    .0
}

fn choice_of(p: &Parallelism) -> Option<Choice> {
    Choice::ALL.into_iter().find(|c| c.scheme() == p.scheme())
}

impl TrainingRooflineParams {
    /// Chips in the slice.
    pub fn chips(&self) -> f64 {
        self.mesh.iter().map(|&a| a as f64).product()
    }

    /// The batch slider's range: one token per chip (and one sequence) up to 2^30.
    pub fn batch_range(&self) -> (f64, f64) {
        let lo = self.chips().max(SEQ);
        (lo, GLOBAL_BATCH_MAX.max(lo * 1000.0))
    }

    /// Builds and evaluates everything, or says what is wrong.
    pub fn analyse(&self) -> Result<Analysis, String> {
        self.analyse_on(self.chip, &self.mesh)
    }

    /// The mesh the second chip `vs` runs on: the reader's mesh if that chip
    /// can form it, else its largest slice.
    pub fn vs_mesh(&self, vs: &'static Chip) -> Vec<u32> {
        if Cluster::new(vs, &self.mesh, 1).is_ok() {
            self.mesh.clone()
        } else {
            vs.topology.largest_mesh()
        }
    }

    /// The same model, batch and strategy on the second chip, if one is chosen.
    pub fn analyse_vs(&self) -> Option<Result<Analysis, String>> {
        let vs = self.vs?;
        Some(self.analyse_on(vs, &self.vs_mesh(vs)))
    }

    /// Builds and evaluates everything on `chip` with `mesh`, or says what is wrong.
    pub fn analyse_on(&self, chip: &'static Chip, mesh: &[u32]) -> Result<Analysis, String> {
        let cluster = Cluster::new(chip, mesh, 1).map_err(|e| e.to_string())?;
        let job = Job::new(self.model.config, self.batch, SEQ).map_err(|e| e.to_string())?;
        let plans: Vec<(Choice, Parallelism, Option<Evaluation>)> = book_plans(&job, &cluster)
            .into_iter()
            .filter_map(|p| Some((choice_of(&p)?, p, evaluate(&job, &cluster, &p).ok())))
            .collect();
        let Some((_, par, _)) = plans.iter().find(|(c, _, _)| *c == self.choice) else {
            return Err(match self.choice {
                Choice::Tp => format!(
                    "tensor parallelism alone cannot use {} chips: the model has only {} heads",
                    grouped(cluster.chips()),
                    self.model.config.heads
                ),
                c => format!("{} needs more than one chip", c.scheme().label()),
            });
        };
        let selected = evaluate(&job, &cluster, par).map_err(|e| e.to_string())?;
        Ok(Analysis {
            cluster,
            job,
            plans,
            selected,
        })
    }

    /// The chart's static model: a sweep of every strategy over the slider's
    /// range, and the selected strategy on the second chip `vs` if there is one.
    pub fn chart_model(&self, a: &Analysis, vs: Option<&Analysis>) -> TrainingModel {
        let (lo, hi) = self.batch_range();
        let xs = log_batches(lo, hi, 90).unwrap_or_default();
        let mut math = Vec::new();
        let mut comms = Vec::new();
        let mut selected = 0;
        for (c, par, _) in &a.plans {
            let Ok(points) = sweep(&a.job, &a.cluster, par, &xs) else {
                continue;
            };
            if math.is_empty() {
                math = points.iter().map(|p| (p.batch, p.t_math.0)).collect();
            }
            if *c == self.choice {
                selected = comms.len();
            }
            comms.push(CommsLine {
                label: par.label(),
                points: points.iter().map(|p| (p.batch, p.t_comms.0)).collect(),
            });
        }
        let (shaded, boundary) = boundary_batch(&a.job, &a.cluster, &a.selected.parallelism)
            .map_or((None, None), |b| {
                comms_bound_region(b, (lo, hi), a.cluster.chips())
            });
        let second = vs.and_then(|v| {
            let points = sweep(&v.job, &v.cluster, &v.selected.parallelism, &xs).ok()?;
            let crossing = match v.selected.boundary {
                Boundary::At(b) => {
                    let job = v.job.with_batch(b).ok()?;
                    let e = evaluate(&job, &v.cluster, &v.selected.parallelism).ok()?;
                    Some((b, e.layer.t_math.0))
                }
                _ => None,
            };
            Some(SecondChip {
                chip: v.cluster.chip.name,
                comms_label: v.selected.parallelism.label(),
                math: points.iter().map(|p| (p.batch, p.t_math.0)).collect(),
                comms: points.iter().map(|p| (p.batch, p.t_comms.0)).collect(),
                crossing,
            })
        });
        let mut m = TrainingModel {
            math,
            comms,
            selected,
            shaded,
            boundary,
            x: (lo, hi),
            y: (0.0, 0.0),
            second,
        };
        m.fit_y();
        m
    }

    /// The sentence about the selected strategy's boundary.
    pub fn boundary_text(&self, a: &Analysis) -> String {
        a.selected
            .boundary
            .sentence(&a.selected.parallelism.label(), a.cluster.chips())
    }

    /// The chip beside the second one: core's numbers for both chips, their
    /// ICI bandwidth and mesh, then the selected strategy on each: where it
    /// turns compute-bound, its verdict, times and memory at this batch.
    pub fn comparison(&self) -> Option<Comparison> {
        let vs = self.vs?;
        let (a, b) = (self.analyse().ok()?, self.analyse_vs()?.ok()?);
        let mut rows = chip_rows(self.chip, vs, Dtype::Bf16);
        rows.push(ici_row(self.chip, vs));
        let mesh = |m: &[u32], e: &Analysis| {
            format!("{} ({} chips)", mesh_text(m), grouped(e.cluster.chips()))
        };
        rows.push(Diff::words(
            "mesh",
            "mesh",
            mesh(&self.mesh, &a),
            mesh(&self.vs_mesh(vs), &b),
        ));
        let (ea, eb) = (&a.selected, &b.selected);
        let name = ea.parallelism.label();
        rows.push(
            match (ea.critical_tokens_per_chip, eb.critical_tokens_per_chip) {
                (Some(x), Some(y)) => Diff::number(
                    "boundary",
                    format!("{name} compute-bound from (tokens per chip)"),
                    x,
                    y,
                    |t| grouped(t.round()),
                ),
                _ => Diff::words(
                    "boundary",
                    format!("{name} compute-bound from"),
                    boundary_words(ea.boundary),
                    boundary_words(eb.boundary),
                ),
            },
        );
        rows.push(Diff::words(
            "verdict",
            "at this batch",
            ea.verdict.text(),
            eb.verdict.text(),
        ));
        rows.push(Diff::number(
            "math",
            "compute per layer",
            ea.layer.t_math.0,
            eb.layer.t_math.0,
            seconds,
        ));
        rows.push(Diff::number(
            "comms",
            "communication per layer",
            ea.layer.t_comms.0,
            eb.layer.t_comms.0,
            seconds,
        ));
        rows.push(Diff::number(
            "memory",
            "memory per chip",
            ea.memory.total().0,
            eb.memory.total().0,
            |x| si(x, "B", 3),
        ));
        Some(Comparison {
            a: self.chip.name.into(),
            b: vs.name.into(),
            rows,
        })
    }
}

/// Where a strategy turns compute-bound, in words for a comparison row.
fn boundary_words(b: Boundary) -> String {
    match b {
        Boundary::At(b) => format!("{} tokens", tokens(b)),
        Boundary::Always => "any batch".into(),
        Boundary::Never => "never".into(),
    }
}

impl WidgetParams for TrainingRooflineParams {
    const ORDER: &'static [&'static [&'static str]] = &[&["model", "chip", VS], &["mesh"]];

    /// Sets one parameter from text, or explains why not (nothing changes then).
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut next = self.clone();
        match key {
            "model" => next.model = super::controls::model(value)?,
            VS => next.vs = parse_vs(value, "TPU with ICI", ici_chip)?,
            "chip" => {
                let c = super::controls::tpu_with_ici(value)?;
                if Cluster::new(c, &next.mesh, 1).is_err() {
                    next.mesh = c.topology.largest_mesh();
                }
                next.chip = c;
            }
            "mesh" => next.mesh = parse_mesh(value)?,
            "scheme" => {
                next.choice = Choice::parse(value).ok_or_else(|| {
                    format!(
                        "unknown strategy “{}” (dp, fsdp, tp, fsdp-tp)",
                        short(value)
                    )
                })?
            }
            "b" | "batch" => {
                next.batch =
                    parse_count(value, "batch (tokens)", 1.0, GLOBAL_BATCH_MAX * 1000.0)?.round()
            }
            other => return Err(super::params::unknown_setting(other)),
        }
        if key != "scheme" && key != "b" && key != "batch" && next.choice != Choice::Fsdp {
            // A mesh or model that rules out the selected strategy falls back to FSDP.
            let mut probe = next.clone();
            if probe.analyse().is_err() {
                probe.choice = Choice::Fsdp;
                if probe.analyse().is_ok() {
                    next.choice = Choice::Fsdp;
                }
            }
        }
        next.analyse().map_err(|e| {
            if key == "scheme" {
                // The select snaps back, so say which strategy the verdict is about.
                format!(
                    "{e}; the verdict stays with {}",
                    self.choice.scheme().label()
                )
            } else {
                e
            }
        })?;
        if let Some(Err(e)) = next.analyse_vs() {
            return Err(format!(
                "{} (compared): {e}",
                next.vs.map_or("", |c| c.name)
            ));
        }
        *self = next;
        Ok(())
    }

    /// The parameters as `key=value` pairs.
    fn to_pairs(&self) -> Vec<(String, String)> {
        vec![
            ("model".into(), self.model.id.into()),
            ("chip".into(), self.chip.id.into()),
            ("mesh".into(), mesh_text(&self.mesh)),
            ("scheme".into(), self.choice.name().into()),
            ("b".into(), format!("{}", self.batch)),
        ]
        .into_iter()
        .chain(self.vs.map(|vs| (VS.into(), vs.id.into())))
        .collect()
    }
}

/// The training roofline widget.
#[component]
pub fn TrainingRoofline(
    /// The chapter's `key=value` arguments (URL parameters override them).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let state = WidgetState::<TrainingRooflineParams>::new(&args);
    let WidgetState { params, notice } = state;
    let set = move |key: &'static str, value: String| {
        // A refused select goes back to the strategy the verdict describes.
        state.set_or_refresh(key, &value, matches!(key, "model" | "chip" | "scheme" | VS));
    };
    let analysis = Memo::new(move |_| params.with(|p| p.analyse().ok()));
    let vs_analysis = Memo::new(move |_| params.with(|p| p.analyse_vs().and_then(Result::ok)));
    let chart_model = Memo::new(move |_| {
        let a = analysis.get()?;
        vs_analysis.with(|v| Some(params.with_untracked(|p| p.chart_model(&a, v.as_ref()))))
    });
    // The curves are redrawn only when the sweep changes, not with every batch.
    let roofline_frame = Frame::new(ROOFLINE);
    let memory_frame = Frame::new(MEMORY);
    let base = Memo::new(move |_| {
        let size = roofline_frame.get();
        chart_model.with(|m| {
            m.as_ref()
                .map(|m| roofline_svg(m, size))
                .unwrap_or_default()
        })
    });
    let point = move || {
        chart_model.with(|m| {
            analysis.with(|a| match (m, a) {
                (Some(m), Some(a)) => a.point_svg(m, roofline_frame.get()),
                _ => String::new(),
            })
        })
    };
    let memory = move || {
        analysis.with(|a| {
            a.as_ref()
                .map(|a| a.memory_svg(memory_frame.get()))
                .unwrap_or_default()
        })
    };

    let verdict = move || {
        analysis.with(|a| {
            a.as_ref()
                .map(|a| a.selected.verdict.text())
                .unwrap_or("communication-bound")
        })
    };
    let scheme_options = Choice::ALL
        .map(|c| {
            option(c.name(), c.scheme().label(), move || {
                params.with(|p| p.choice.name())
            })
        })
        .collect_view();
    let range = move || params.with(|p| p.batch_range());
    let vs_id = move || params.with(|p| p.vs.map_or("", |c| c.id));
    let vs_options = super::controls::chip_options(super::controls::has_ici, vs_id);
    // The selected strategy's verdict on the second chip, beside the first's.
    let vs_verdict = move || {
        vs_analysis.with(|v| {
            let v = v.as_ref()?;
            let word = v.selected.verdict.text();
            Some(view! {
                "; on " {v.cluster.chip.name} " "
                <strong class=format!("verdict {word}") data-vs-verdict=word>{word}</strong>
            })
        })
    };
    let rows = move || {
        analysis.get().map(|a| {
            a.plans
                .iter()
                .map(|(c, p, e)| {
                    let selected = *c == params.with_untracked(|q| q.choice);
                    let cells = match e {
                        Some(e) => {
                            let v = e.verdict.text();
                            let ratio = e.layer.t_comms.0 / e.layer.t_math.0;
                            let boundary = match e.boundary {
                                Boundary::At(b) => format!("{} per chip", grouped(b / e.chips)),
                                Boundary::Always => "always compute-bound".into(),
                                Boundary::Never => "never".into(),
                            };
                            view! {
                                <td>{seconds(e.layer.t_math.0)}</td>
                                <td>{seconds(e.layer.t_comms.0)}" ("{sci(ratio, 2)}"×)"</td>
                                <td>{boundary}</td>
                                <td>{si(e.memory.total().0, "B", 3)}{if e.fits { "" } else { " ✗" }}</td>
                                <td><span class=format!("verdict-tag {v}")>{v}</span></td>
                            }
                            .into_any()
                        }
                        None => view! { <td colspan="5">"—"</td> }.into_any(),
                    };
                    view! {
                        <tr data-scheme=c.name() class:selected=selected>
                            <th scope="row">{p.label()}</th>
                            {cells}
                        </tr>
                    }
                })
                .collect_view()
        })
    };

    view! {
        <figure class="widget training-roofline" data-widget="training-roofline">
            <div class="controls">
                {super::controls::model_picker("Model ", super::controls::any, move || params.with(|p| p.model.id).to_string(), set)}
                {super::controls::chip_picker("Chip ", super::controls::has_ici, move || params.with(|p| p.chip.id).to_string(), set)}
                {super::controls::mesh_field(move || params.with(|p| mesh_text(&p.mesh)), set)}
                <label>"Strategy "
                    <select class="scheme" prop:value=move || params.with(|p| p.choice.name()) on:change=move |ev| set("scheme", event_target_value(&ev))>{scheme_options}</select>
                </label>
                {compare_picker(vs_options, vs_id, set)}
            </div>
            <div class="plot" node_ref=roofline_frame.node style=roofline_frame.style()>
                <div class="layer" aria-hidden="true" inner_html=move || base.get()></div>
                <div class="layer overlay" inner_html=point role="img"
                    aria-label=move || format!("training roofline; at this batch the selected strategy is {}", verdict())></div>
            </div>
            {Slider::positions(STEPS).id("training-roofline-b").valuetext(move || format!("B = {} tokens", grouped(params.with(|p| p.batch)))).log_row("Global batch B", LogScale::new(STEPS, range, rounded), move || params.with(|p| p.batch), "b", set, NumberField::new("b", "global batch in tokens", 11).class("batch-text").on_change().view(move || format!("{}", params.with(|p| p.batch)), set))}
            <p class="verdict-line">
                "At B = " {move || grouped(params.with(|p| p.batch))} " tokens ("
                {move || analysis.with(|a| a.as_ref().map(|a| grouped(a.selected.tokens_per_chip)).unwrap_or_default())}
                " per chip), " {move || analysis.with(|a| a.as_ref().map(|a| a.selected.parallelism.label()).unwrap_or_default())} " is "
                <strong class=move || format!("verdict {}", verdict()) data-verdict=verdict aria-live="polite">{verdict}</strong>
                {vs_verdict}
                "."
            </p>
            <p class="crossing" data-boundary="">
                {move || analysis.with(|a| a.as_ref().map(|a| params.with_untracked(|p| p.boundary_text(a))).unwrap_or_default())}
            </p>
            {compare_table(move || params.with(|p| p.comparison()))}
            <Notice notice=notice />
            <div class="table-scroll" tabindex="0">
                <table class="schemes">
                    <thead><tr><th scope="col">"strategy"</th><th scope="col">"compute / layer"</th><th scope="col">"comms / layer"</th><th scope="col">"compute-bound from"</th><th scope="col">"memory / chip"</th><th scope="col">"at this batch"</th></tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
            <h4>"Memory per chip"</h4>
            <div class="plot" node_ref=memory_frame.node style=memory_frame.style()><div class="layer" inner_html=memory role="img" aria-label="memory per chip by strategy"></div></div>
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::charts::palette;
    use crate::charts::svg_colour;
    use crate::widgets::params::testing::{assert_refused_keeps, assert_round_trip};
    use ridgeline_core::hardware::Link;

    #[test]
    fn layers_are_svg_and_the_point_takes_the_verdicts_colour() {
        let mut p = TrainingRooflineParams::default();
        let a = p.analyse().unwrap();
        let m = p.chart_model(&a, None);
        let base = roofline_svg(&m, ROOFLINE.design());
        assert!(base.starts_with(r#"<svg class="chart-svg""#), "{base}");
        assert!(base.contains("global batch B (tokens)"), "{base}");
        assert!(base.contains("FSDP comms (selected)"), "{base}");
        let (good, bad) = (
            format!(r#"fill="{}""#, svg_colour(palette(false).good)),
            format!(r#"fill="{}""#, svg_colour(palette(false).bad)),
        );
        let point = a.point_svg(&m, ROOFLINE.design());
        assert_eq!(point.matches(&bad).count(), 2, "{point}");
        assert!(!point.contains(&good), "{point}");
        let memory = a.memory_svg(MEMORY.design());
        assert!(memory.contains(r#"viewBox="0 0 760 260""#), "{memory}");
        assert!(memory.contains("FSDP"), "{memory}");
        p.apply("b", "8388608").unwrap();
        let b = p.analyse().unwrap();
        let point = b.point_svg(&p.chart_model(&b, None), ROOFLINE.design());
        assert_eq!(point.matches(&good).count(), 2, "{point}");
    }

    #[test]
    fn default_fsdp_flips_at_850_per_chip() {
        let mut p = TrainingRooflineParams::default();
        let a = p.analyse().unwrap();
        assert_eq!(a.selected.verdict, Verdict::CommunicationBound);
        let Boundary::At(b) = a.selected.boundary else {
            panic!("no boundary")
        };
        assert!((b / 4096.0 - 850.0).abs() < 1e-6, "{b}");
        assert!(p.boundary_text(&a).contains("850 per chip"));
        p.apply("b", &format!("{}", (b * 1.2).round())).unwrap();
        assert_eq!(p.analyse().unwrap().selected.verdict, Verdict::ComputeBound);
        let m = p.chart_model(&p.analyse().unwrap(), None);
        assert_eq!(m.comms.len(), 3); // DP, FSDP, FSDP+TP: 4096 chips > 64 heads
        assert!(m.boundary.is_some());
    }

    #[test]
    fn invalid_meshes_and_batches_are_refused() {
        let mut p = TrainingRooflineParams::default();
        let messages = assert_refused_keeps(
            &p,
            &[
                ("mesh", "28x28x28"),
                ("mesh", "16x0x4"),
                ("mesh", "2x2x2x2"),
                ("mesh", "abc"),
                ("b", "100"),
                ("b", "-1"),
                ("scheme", "tp"),
                ("scheme", "zz"),
                ("chip", "h100"),
                ("model", "nope"),
            ],
        );
        // Pure tensor parallelism on a pod is refused, and the message says the
        // verdict still describes the strategy that stays selected.
        let e = &messages[6];
        assert!(
            e.contains("only 64 heads") && e.contains("stays with FSDP"),
            "{e}"
        );
        assert!(messages[0].contains("8960"), "{}", messages[0]);
        // A small mesh allows pure tensor parallelism.
        p.apply("mesh", "8").unwrap();
        p.apply("scheme", "tp").unwrap();
        assert_eq!(p.analyse().unwrap().selected.scheme, Scheme::Tensor);
        // Growing the mesh past the heads falls back to FSDP rather than refusing.
        p.apply("mesh", "16x16x16").unwrap();
        assert_eq!(p.choice, Choice::Fsdp);
        // A chip with two axes resets a three-axis mesh to its pod.
        p.apply("chip", "v5e").unwrap();
        assert_eq!(p.mesh, vec![16, 16]);
    }

    #[test]
    fn a_second_chip_draws_its_crossover_and_compares_cores_numbers() {
        use crate::widgets::params::pairs;
        use ridgeline_core::training::{dp_critical_tokens_per_chip, ici_intensity};
        let (mut p, n) = TrainingRooflineParams::from_pairs(&pairs(&[("vs", "v5e")]));
        assert!(n.is_empty(), "{n:?}");
        let v5e = chip("v5e").unwrap();
        // A v5e cannot form the 16×16×16 cube: it runs on its own pod.
        assert_eq!(p.vs_mesh(v5e), vec![16, 16]);
        let c = p.comparison().unwrap();
        assert_eq!(
            c.row("mesh").unwrap().b,
            "16x16 (256 chips)",
            "{:?}",
            c.rows
        );
        // FSDP turns compute-bound at α / M_X tokens per chip: 850 on the
        // v5p cube, and core's closed form for v5e on its two axes.
        let boundary = c.row("boundary").unwrap();
        assert_eq!(boundary.a, "850");
        let alpha = ici_intensity(v5e, Dtype::Bf16).unwrap();
        let expected = dp_critical_tokens_per_chip(alpha, 2.0);
        assert_eq!(boundary.b, grouped(expected.round()));
        assert!(boundary.ratio.unwrap() > 1.0, "{boundary:?}");
        let b = p.analyse_vs().unwrap().unwrap();
        assert_eq!(
            c.row("comms").unwrap().b,
            seconds(b.selected.layer.t_comms.0)
        );
        assert_eq!(
            c.row("ici").unwrap().b,
            si(v5e.bandwidth(Link::Ici).unwrap().0, "B/s", 3)
        );
        // The chart draws the second chip's lines in their own colour, named.
        let a = p.analyse().unwrap();
        let m = p.chart_model(&a, Some(&b));
        let s = m.second.as_ref().unwrap();
        let (x, t) = s.crossing.unwrap();
        assert!((x / 256.0 - expected).abs() < 1e-6 * expected, "{x}");
        assert!(t > 0.0);
        let svg = roofline_svg(&m, ROOFLINE.design());
        assert!(svg.contains("FSDP comms on TPU v5e"), "{svg}");
        assert!(svg.contains("compute on TPU v5e"), "{svg}");
        let vermillion = svg_colour(palette(false).series[5]);
        assert!(svg.contains(&vermillion), "the second chip's colour");
        let alone = roofline_svg(&p.chart_model(&a, None), ROOFLINE.design());
        assert!(!alone.contains(&vermillion) && !alone.contains("on TPU v5e"));
        // At 1M tokens FSDP is communication-bound on the cube (256 per chip,
        // short of 850) and compute-bound on the v5e pod (4096 per chip).
        let v = c.row("verdict").unwrap();
        assert_eq!(v.a, "communication-bound");
        assert!(4096.0 > expected, "{expected}");
        assert_eq!(v.b, "compute-bound");
        // At 8M tokens (2048 per chip) the cube is compute-bound too.
        p.apply("b", "8388608").unwrap();
        let c = p.comparison().unwrap();
        assert_eq!(c.row("verdict").unwrap().ratio_text(), "same");
    }

    #[test]
    fn vs_round_trips_and_a_chip_without_ici_is_refused() {
        let p: TrainingRooflineParams = assert_round_trip(&[("vs", "v6e"), ("mesh", "8x8")]);
        assert_eq!(p.vs.map(|c| c.id), Some("v6e"));
        assert_eq!(p.vs_mesh(chip("v6e").unwrap()), vec![8, 8]);
        let messages = assert_refused_keeps(&p, &[("vs", "h100"), ("vs", "tpu-v99")]);
        assert!(messages[0].contains("h100"), "{messages:?}");
        assert!(TrainingRooflineParams::default()
            .to_pairs()
            .iter()
            .all(|(k, _)| k != "vs"));
        let mut q = p;
        q.apply("vs", "none").unwrap();
        assert_eq!(q.comparison(), None);
    }

    #[test]
    fn pairs_round_trip() {
        let p: TrainingRooflineParams = assert_round_trip(&[
            ("b", "4194304"),
            ("scheme", "fsdp-tp"),
            ("mesh", "16x20x28"),
            ("model", "llama3-70b"),
        ]);
        assert_eq!(p.chips(), 8960.0);
    }
}
