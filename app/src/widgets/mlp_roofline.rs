//! The book's MLP roofline (`data-widget="mlp-roofline"`): one ungated MLP
//! block `D → F → D` trained on a TPU mesh, split between FSDP and tensor
//! parallelism in every way the mesh allows, a slider stepping through the
//! splits. Two views: the time per layer against the global batch (compute,
//! FSDP alone, tensor parallelism alone and the chosen split, its
//! communication-bound region shaded), and the ratio of compute to
//! communication time against tokens per chip (FSDP alone, tensor alone,
//! FSDP × tensor at its best split for every batch, and the chosen split),
//! each crossing of one labelled. A table lists every split with the batch
//! below which it is communication-bound.

use super::controls::{option, rounded, LogScale, Notice, NumberField, Slider};
use super::params::{WidgetParams, WidgetState};
use crate::charts::size::{Frame, Shape, Size};
use crate::charts::svg;
use crate::charts::training::{
    comms_bound_region, draw_operating_point, draw_ratio, draw_roofline, CommsLine, RatioLine,
    RatioModel, TrainingModel,
};
use crate::input::{mesh_text, parse_count, parse_mesh, parse_whole, short, GLOBAL_BATCH_MAX};
use leptos::prelude::*;
use ridgeline_core::check::whole;
use ridgeline_core::dtype::Dtype;
use ridgeline_core::format::grouped;
use ridgeline_core::hardware::{chip, Chip, CHIPS};
use ridgeline_core::model::config::{ModelConfig, MAX_D_FF, MAX_D_MODEL};
use ridgeline_core::roofline::Verdict;
use ridgeline_core::training::{
    boundary_batch, evaluate, fsdp_tp_best_ratio, fsdp_tp_critical_tokens_per_chip, ici_intensity,
    log_batches, sweep, Boundary, Cluster, Evaluation, Job, Parallelism,
};

/// Slider positions for the batch.
const STEPS: f64 = 400.0;
/// The chart's shape (see `charts::size`).
const CHART: Shape = Shape::new(760, 420, 340);
/// Points per curve.
const POINTS: usize = 160;
/// The ratio chart's tokens-per-chip axis reaches at least this far (the
/// book's figure runs to 2,000).
const RATIO_X_MIN: f64 = 2000.0;
/// Where the ratio chart's tokens-per-chip axis starts.
const RATIO_X_LOW: f64 = 10.0;

/// What the chart plots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum View {
    /// Time per layer against the global batch.
    Time,
    /// Compute time over communication time against tokens per chip.
    Ratio,
}

impl View {
    const ALL: [View; 2] = [View::Time, View::Ratio];

    /// URL name.
    pub fn name(self) -> &'static str {
        match self {
            View::Time => "time",
            View::Ratio => "ratio",
        }
    }

    fn label(self) -> &'static str {
        match self {
            View::Time => "time per layer",
            View::Ratio => "compute ÷ communication",
        }
    }
}

/// Everything the reader can set; always analysable.
#[derive(Debug, Clone, PartialEq)]
pub struct MlpRooflineParams {
    /// The chip (a TPU with ICI).
    pub chip: &'static Chip,
    /// Model width `D`.
    pub d: f64,
    /// MLP width `F`.
    pub f: f64,
    /// Mesh axis sizes.
    pub mesh: Vec<u32>,
    /// The tensor-parallel degree `Y` of the chosen split (FSDP takes the rest).
    pub tensor: u32,
    /// What the chart plots.
    pub view: View,
    /// Global batch, tokens.
    pub batch: f64,
}

impl Default for MlpRooflineParams {
    /// The book's interactive figure: a v5p 16 × 16 × 16, D = 8192, F = 32,768.
    fn default() -> Self {
        MlpRooflineParams {
            chip: chip("v5p").unwrap_or(&CHIPS[0]),
            d: 8192.0,
            f: 32768.0,
            mesh: vec![16, 16, 16],
            tensor: 8,
            view: View::Time,
            batch: 1_048_576.0,
        }
    }
}

/// One split of the mesh and where it turns compute-bound.
#[derive(Debug, Clone, PartialEq)]
pub struct SplitRow {
    /// The split.
    pub split: Parallelism,
    /// Where it turns compute-bound.
    pub boundary: Boundary,
}

/// The analysis of the current settings.
#[derive(Debug, Clone, PartialEq)]
pub struct Analysis {
    /// The slice.
    pub cluster: Cluster,
    /// The MLP block at the reader's batch.
    pub job: Job,
    /// Every split of the mesh, FSDP alone first, tensor alone last.
    pub splits: Vec<SplitRow>,
    /// The chosen split at the reader's batch.
    pub selected: Evaluation,
}

/// What the chart draws: the time view's lines or the ratio view's curves.
#[derive(Debug, Clone, PartialEq)]
pub enum ChartModel {
    /// Time per layer against the global batch.
    Time(TrainingModel),
    /// Compute over communication time against tokens per chip.
    Ratio(RatioModel),
}

impl ChartModel {
    /// The chart as inline SVG.
    pub fn svg(&self, size: Size) -> String {
        svg(size.width, size.height, |root| match self {
            ChartModel::Time(m) => draw_roofline(root, m, false),
            ChartModel::Ratio(m) => draw_ratio(root, m, false),
        })
        .0
    }
}

impl MlpRooflineParams {
    /// Chips in the mesh.
    pub fn chips(&self) -> f64 {
        self.mesh.iter().map(|&a| a as f64).product()
    }

    /// The batch slider's range: one token per chip up to 2^30 (or more on a
    /// huge mesh).
    pub fn batch_range(&self) -> (f64, f64) {
        let lo = self.chips();
        (lo, GLOBAL_BATCH_MAX.max(lo * 1000.0))
    }

    /// Builds and evaluates everything, or says what is wrong.
    pub fn analyse(&self) -> Result<Analysis, String> {
        let cluster = Cluster::new(self.chip, &self.mesh, 1).map_err(|e| e.to_string())?;
        if cluster.chips_per_slice < 2 {
            return Err("a split needs a mesh of at least two chips".into());
        }
        let block = ModelConfig::mlp_block(
            whole(self.d).ok_or_else(|| "D is not a whole count".to_string())?,
            whole(self.f).ok_or_else(|| "F is not a whole count".to_string())?,
        )
        .map_err(|e| e.to_string())?;
        let job = Job::new(block, self.batch, 1.0).map_err(|e| e.to_string())?;
        let chosen = Parallelism::mesh_split(&self.mesh, self.tensor).ok_or_else(|| {
            format!(
                "{}-way tensor parallelism cannot be laid on a {} mesh: pick a split the slider offers",
                grouped(self.tensor as f64),
                mesh_text(&self.mesh)
            )
        })?;
        let splits = Parallelism::mesh_splits(&self.mesh)
            .into_iter()
            .map(|split| {
                let boundary = boundary_batch(&job, &cluster, &split).map_err(|e| e.to_string())?;
                Ok(SplitRow { split, boundary })
            })
            .collect::<Result<Vec<_>, String>>()?;
        let selected = evaluate(&job, &cluster, &chosen).map_err(|e| e.to_string())?;
        Ok(Analysis {
            cluster,
            job,
            splits,
            selected,
        })
    }

    /// The time view: compute, FSDP alone, tensor alone and the chosen split,
    /// with the chosen split's communication-bound region.
    pub fn time_model(&self, a: &Analysis) -> TrainingModel {
        let (lo, hi) = self.batch_range();
        let xs = log_batches(lo, hi, POINTS).unwrap_or_default();
        let chosen = a.selected.parallelism;
        let mut lines: Vec<Parallelism> = Vec::new();
        for p in [a.splits.first(), a.splits.last()].into_iter().flatten() {
            lines.push(p.split);
        }
        if !lines.contains(&chosen) {
            lines.push(chosen);
        }
        let mut math = Vec::new();
        let mut comms = Vec::new();
        let mut selected = 0;
        for par in &lines {
            let Ok(points) = sweep(&a.job, &a.cluster, par, &xs) else {
                continue;
            };
            if math.is_empty() {
                math = points.iter().map(|p| (p.batch, p.t_math.0)).collect();
            }
            if *par == chosen {
                selected = comms.len();
            }
            comms.push(CommsLine {
                label: par.label(),
                points: points.iter().map(|p| (p.batch, p.t_comms.0)).collect(),
            });
        }
        let (shaded, boundary) =
            comms_bound_region(a.selected.boundary, (lo, hi), a.cluster.chips());
        let mut m = TrainingModel {
            math,
            comms,
            selected,
            shaded,
            boundary,
            x: (lo, hi),
            y: (0.0, 0.0),
            second: None,
        };
        m.fit_y();
        m
    }

    /// The ratio view: compute time over communication time against tokens
    /// per chip for FSDP alone, tensor alone, FSDP × tensor at its best split
    /// for every batch (`√B`, the closed form; on a mesh of two or more axes)
    /// and the chosen split.
    pub fn ratio_model(&self, a: &Analysis) -> RatioModel {
        let n = a.cluster.chips();
        let per_chip = |b: Boundary| match b {
            Boundary::At(b) => Some(b / n),
            _ => None,
        };
        let crossings: Vec<f64> = a
            .splits
            .iter()
            .filter_map(|s| per_chip(s.boundary))
            .collect();
        let furthest = crossings.iter().copied().fold(0.0, f64::max);
        let hi = (furthest * 1.25).clamp(RATIO_X_MIN, 1e6);
        let xs = log_batches(RATIO_X_LOW, hi, POINTS).unwrap_or_default();
        let batches: Vec<f64> = xs.iter().map(|x| x * n).collect();
        let ratio_line = |par: &Parallelism, boundary: Boundary| {
            let points = sweep(&a.job, &a.cluster, par, &batches).ok()?;
            Some(RatioLine {
                label: format!("{} alone", par.label()),
                points: points
                    .iter()
                    .map(|p| (p.batch / n, p.t_math.0 / p.t_comms.0))
                    .collect(),
                crossing: per_chip(boundary),
                dashed: false,
            })
        };
        let mut lines = Vec::new();
        for s in [a.splits.first(), a.splits.last()].into_iter().flatten() {
            lines.extend(ratio_line(&s.split, s.boundary));
        }
        let axes = a.cluster.axes;
        if axes >= 2 {
            if let Ok(alpha) = ici_intensity(self.chip, Dtype::Bf16) {
                let (mx, my) = (f64::from(axes - 1), 1.0);
                let f = self.f;
                lines.push(RatioLine {
                    label: "FSDP × tensor, ideal split".into(),
                    points: xs
                        .iter()
                        .map(|&x| (x, fsdp_tp_best_ratio(alpha, x, f, mx, my)))
                        .collect(),
                    crossing: Some(fsdp_tp_critical_tokens_per_chip(alpha, f, mx, my)),
                    dashed: true,
                });
            }
        }
        let chosen = a.selected.parallelism;
        if chosen.fsdp > 1 && chosen.tensor > 1 {
            if let Some(mut line) = ratio_line(&chosen, a.selected.boundary) {
                line.label = format!("{} (chosen)", chosen.label());
                lines.push(line);
            }
        }
        let all = lines
            .iter()
            .flat_map(|l| l.points.iter().map(|p| p.1))
            .filter(|r| r.is_finite() && *r > 0.0);
        let (lo_r, hi_r) = all.fold((f64::INFINITY, 0.0f64), |(lo, hi), r| {
            (lo.min(r), hi.max(r))
        });
        let y = if lo_r.is_finite() && hi_r > lo_r {
            ((lo_r / 2.0).min(0.5), (hi_r * 2.0).max(2.0))
        } else {
            (0.1, 10.0)
        };
        RatioModel {
            lines,
            x: (RATIO_X_LOW, hi),
            y,
            at: Some(self.batch / n),
        }
    }

    /// The model of the chart for the current view.
    pub fn chart_model(&self, a: &Analysis) -> ChartModel {
        match self.view {
            View::Time => ChartModel::Time(self.time_model(a)),
            View::Ratio => ChartModel::Ratio(self.ratio_model(a)),
        }
    }

    /// The chart for the current view, as inline SVG (the static layer).
    pub fn chart_svg(&self, a: &Analysis, size: Size) -> String {
        self.chart_model(a).svg(size)
    }

    /// The operating point over the time view's model `m` (nothing over the
    /// ratio view, whose static layer marks the batch).
    pub fn point_svg(&self, a: &Analysis, m: &ChartModel, size: Size) -> String {
        let ChartModel::Time(m) = m else {
            return String::new();
        };
        let l = &a.selected.layer;
        svg(size.width, size.height, |root| {
            draw_operating_point(
                root,
                m,
                self.batch,
                l.t_math.0,
                l.t_comms.0,
                a.selected.verdict == Verdict::CommunicationBound,
                false,
            )
        })
        .0
    }

    /// Where the chosen split turns compute-bound, in a sentence (a split
    /// never compute-bound says why).
    pub fn boundary_text(&self, a: &Analysis) -> String {
        let par = a.selected.parallelism;
        match a.selected.boundary {
            Boundary::Never => format!(
                "{} is never compute-bound: its tensor-parallel collectives grow with the batch as fast as the FLOPs, and {}-way is too wide for F = {}.",
                par.label(),
                grouped(par.tensor as f64),
                grouped(self.f)
            ),
            b => b.sentence(&par.label(), a.cluster.chips()),
        }
    }
}

impl WidgetParams for MlpRooflineParams {
    const ORDER: &'static [&'static [&'static str]] = &[&["chip"], &["mesh"]];

    /// Sets one parameter from text, or explains why not (nothing changes
    /// then). A new chip that cannot form the mesh brings its largest slice,
    /// and a new mesh the split nearest the old one it can lay out.
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut next = self.clone();
        next.assign(key, value)?;
        if key == "chip" && Cluster::new(next.chip, &next.mesh, 1).is_err() {
            next.mesh = next.chip.topology.largest_mesh();
        }
        if matches!(key, "chip" | "mesh")
            && Parallelism::mesh_split(&next.mesh, next.tensor).is_none()
        {
            let y = next.tensor as f64;
            if let Some(p) = Parallelism::mesh_splits(&next.mesh)
                .into_iter()
                .min_by(|p, q| {
                    let dist = |p: &Parallelism| (p.tensor as f64 / y).ln().abs();
                    dist(p).total_cmp(&dist(q))
                })
            {
                next.tensor = p.tensor;
            }
        }
        next.check()?;
        *self = next;
        Ok(())
    }

    /// Sets one parameter from text checked on its own: a reader's chip, its
    /// mesh and the split can be valid together but not one at a time (a
    /// slice the default chip cannot form), so a link sets them together.
    fn assign(&mut self, key: &str, value: &str) -> Result<(), String> {
        match key {
            "chip" => self.chip = super::controls::tpu_with_ici(value)?,
            "d" => self.d = parse_count(value, "D", 1.0, MAX_D_MODEL as f64)?.round(),
            "f" => self.f = parse_count(value, "F", 1.0, MAX_D_FF as f64)?.round(),
            "mesh" => self.mesh = parse_mesh(value)?,
            "tp" => self.tensor = parse_whole::<u32>(value, "tensor-parallel degree", 1.0, 1e6)?,
            "view" => {
                self.view = View::ALL
                    .into_iter()
                    .find(|v| v.name() == value.trim())
                    .ok_or_else(|| format!("unknown view “{}” (time, ratio)", short(value)))?
            }
            "b" => {
                self.batch =
                    parse_count(value, "batch (tokens)", 1.0, GLOBAL_BATCH_MAX * 1000.0)?.round()
            }
            other => return Err(super::params::unknown_setting(other)),
        }
        Ok(())
    }

    /// The chip, mesh, split and sizes analysed together.
    fn check(&self) -> Result<(), String> {
        self.analyse().map(|_| ())
    }

    /// The parameters as `key=value` pairs.
    fn to_pairs(&self) -> Vec<(String, String)> {
        vec![
            ("chip".into(), self.chip.id.into()),
            ("d".into(), format!("{}", self.d)),
            ("f".into(), format!("{}", self.f)),
            ("mesh".into(), mesh_text(&self.mesh)),
            ("tp".into(), format!("{}", self.tensor)),
            ("view".into(), self.view.name().into()),
            ("b".into(), format!("{}", self.batch)),
        ]
    }
}

/// The MLP roofline widget.
#[component]
pub fn MlpRoofline(
    /// The chapter's `key=value` arguments (URL parameters override them).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let state = WidgetState::<MlpRooflineParams>::new(&args);
    let WidgetState { params, notice } = state;
    let set = move |key: &'static str, value: String| {
        state.set_or_refresh(key, &value, matches!(key, "chip" | "view"));
    };
    let analysis = Memo::new(move |_| params.with(|p| p.analyse().ok()));
    let frame = Frame::new(CHART);
    // The static layer is redrawn when anything but the batch changes in the
    // time view (the ratio view marks the batch on it).
    let base_key = Memo::new(move |_| {
        params.with(|p| {
            let mut q = p.clone();
            if q.view == View::Time {
                q.batch = 0.0;
            }
            q
        })
    });
    // The chart's model, built only when `base_key` changes: the analysis
    // changes with every batch, the time view's lines do not.
    let model = Memo::new(move |_| {
        // Read, not only tracked: a memo brings itself up to date when read.
        base_key.with(|_| ());
        analysis.with_untracked(|a| {
            a.as_ref()
                .map(|a| params.with_untracked(|p| p.chart_model(a)))
        })
    });
    let base = Memo::new(move |_| {
        let size = frame.get();
        model.with(|m| m.as_ref().map(|m| m.svg(size)).unwrap_or_default())
    });
    let point = move || {
        model.with(|m| {
            analysis.with(|a| match (m, a) {
                (Some(m), Some(a)) => params.with(|p| p.point_svg(a, m, frame.get())),
                _ => String::new(),
            })
        })
    };
    let verdict = move || {
        analysis.with(|a| {
            a.as_ref()
                .map(|a| a.selected.verdict.text())
                .unwrap_or("communication-bound")
        })
    };
    let splits = move || {
        analysis.with(|a| {
            a.as_ref()
                .map(|a| a.splits.iter().map(|s| s.split.tensor).collect::<Vec<_>>())
                .unwrap_or_default()
        })
    };
    let split_pos = move || {
        let y = params.with(|p| p.tensor);
        splits()
            .iter()
            .position(|&t| t == y)
            .unwrap_or(0)
            .to_string()
    };
    let split_max = move || splits().len().saturating_sub(1).to_string();
    let split_moved = move |pos: String| {
        let list = splits();
        if let Some(y) = pos.parse::<usize>().ok().and_then(|i| list.get(i)) {
            set("tp", y.to_string());
        }
    };
    let split_label = move || {
        analysis.with(|a| {
            a.as_ref()
                .map(|a| a.selected.parallelism.label())
                .unwrap_or_default()
        })
    };
    let view_options = View::ALL
        .map(|v| option(v.name(), v.label(), move || params.with(|p| p.view.name())))
        .collect_view();
    let range = move || params.with(|p| p.batch_range());
    let rows = move || {
        analysis.get().map(|a| {
            let chosen = a.selected.parallelism;
            let n = a.cluster.chips();
            a.splits
                .iter()
                .map(|s| {
                    let bound = match s.boundary {
                        Boundary::At(b) => format!("{} ({} per chip)", grouped(b), grouped(b / n)),
                        Boundary::Always => "no batch".into(),
                        Boundary::Never => "every batch".into(),
                    };
                    // A cut axis counts for both: marked, and explained under the table.
                    let shared = if s.split.shared_axis { " †" } else { "" };
                    let axes = format!("{} / {}{shared}", s.split.axes_data, s.split.axes_tensor);
                    view! {
                        <tr data-tp=s.split.tensor class:selected=s.split == chosen>
                            <th scope="row">{s.split.label()}</th>
                            <td>{axes}</td>
                            <td>{bound}</td>
                        </tr>
                    }
                })
                .collect_view()
        })
    };

    view! {
        <figure class="widget mlp-roofline" data-widget="mlp-roofline">
            <div class="controls">
                {super::controls::chip_picker("Chip ", super::controls::has_ici, move || params.with(|p| p.chip.id).to_string(), set)}
                {NumberField::new("d", "model width D", 7).label("D ").on_change().view(move || format!("{}", params.with(|p| p.d)), set)}
                {NumberField::new("f", "MLP width F", 7).label("F ").on_change().view(move || format!("{}", params.with(|p| p.f)), set)}
                {super::controls::mesh_field(move || params.with(|p| mesh_text(&p.mesh)), set)}
                <label>"Plot "
                    <select class="view" prop:value=move || params.with(|p| p.view.name()) on:change=move |ev| set("view", event_target_value(&ev))>{view_options}</select>
                </label>
            </div>
            {Slider::new(0, split_max, "1").id("mlp-roofline-split").valuetext(split_label).row("Split", split_pos, split_moved, view! { <output class="split" for="mlp-roofline-split">{split_label}</output> })}
            <div class="plot" node_ref=frame.node style=frame.style()>
                <div class="layer" aria-hidden="true" inner_html=move || base.get()></div>
                <div class="layer overlay" inner_html=point role="img"
                    aria-label=move || format!("MLP roofline; at this batch the chosen split is {}", verdict())></div>
            </div>
            {Slider::positions(STEPS).id("mlp-roofline-b").valuetext(move || format!("B = {} tokens", grouped(params.with(|p| p.batch)))).log_row("Global batch B", LogScale::new(STEPS, range, rounded), move || params.with(|p| p.batch), "b", set, NumberField::new("b", "global batch in tokens", 11).class("batch-text").on_change().view(move || format!("{}", params.with(|p| p.batch)), set))}
            <p class="verdict-line">
                "At B = " {move || grouped(params.with(|p| p.batch))} " tokens ("
                {move || analysis.with(|a| a.as_ref().map(|a| grouped(a.selected.tokens_per_chip)).unwrap_or_default())}
                " per chip), " {split_label} " is "
                <strong class=move || format!("verdict {}", verdict()) data-verdict=verdict aria-live="polite">{verdict}</strong>
                "."
            </p>
            <p class="crossing" data-boundary="">
                {move || analysis.with(|a| a.as_ref().map(|a| params.with_untracked(|p| p.boundary_text(a))).unwrap_or_default())}
            </p>
            <Notice notice=notice />
            <p class="crossing table-note">"Every split of the mesh: the axes FSDP and tensor parallelism span (M_X / M_Y), and the batch below which the split is communication-bound. † One axis is cut between the two and counted for both, as the book's figure counts it; the two then share that axis's links, so the threshold is optimistic. The dashed ideal uses M_X = " {move || analysis.with(|a| a.as_ref().map(|a| a.cluster.axes.saturating_sub(1).max(1)).unwrap_or(1))} " and M_Y = 1."</p>
            <div class="table-scroll" tabindex="0">
                <table class="splits">
                    <thead><tr><th scope="col">"split"</th><th scope="col">"axes M_X / M_Y"</th><th scope="col">"comms-bound below"</th></tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::widgets::params::testing::{assert_refused_keeps, assert_round_trip};

    /// A reader's chip whose slices the default chip cannot form: its link
    /// (chip, then mesh) must load whole, not fall back to the defaults.
    #[test]
    fn a_readers_chip_and_its_mesh_load_from_their_link() {
        let code =
            "c1~r~g~bf16:1.97e14~1.6e10~hbm:8.2e11_ici:4.5e10~t:2:1000x1000x1:1x1x1:axis16:1";
        let mut p = MlpRooflineParams::default();
        p.apply("mesh", "16x16").unwrap();
        p.apply("chip", code).unwrap();
        p.apply("mesh", "64").unwrap();
        p.apply("tp", "8").unwrap();
        let (again, refused) = MlpRooflineParams::from_pairs(&p.to_pairs());
        assert!(refused.is_empty(), "{refused:?}");
        assert_eq!(again, p);
    }

    #[test]
    fn the_books_figure_steps_through_thirteen_splits() {
        let p = MlpRooflineParams::default();
        let a = p.analyse().unwrap();
        assert_eq!(a.splits.len(), 13);
        assert_eq!(a.selected.parallelism.label(), "FSDP 512 × tensor 8");
        // 4096 · 2550 / (3 · 8) tokens.
        assert_eq!(a.selected.boundary, Boundary::At(435_200.0));
        assert_eq!(a.selected.verdict, Verdict::ComputeBound);
        let m = p.time_model(&a);
        assert_eq!(
            m.comms.len(),
            3,
            "FSDP alone, tensor alone, the chosen split"
        );
        assert_eq!(m.comms[m.selected].label, "FSDP 512 × tensor 8");
        let svg = p.chart_svg(&a, CHART.design());
        assert!(
            svg.contains("FSDP 512 × tensor 8 comms (selected)"),
            "{svg}"
        );
        assert!(svg.contains("(106 per chip)"), "{svg}");
        // Tensor 16 is never compute-bound: the whole axis is shaded.
        let mut q = p.clone();
        q.apply("tp", "16").unwrap();
        let b = q.analyse().unwrap();
        assert_eq!(b.selected.boundary, Boundary::Never);
        assert_eq!(q.time_model(&b).shaded, Some(q.batch_range()));
        assert!(q.boundary_text(&b).contains("never compute-bound"));
    }

    #[test]
    fn the_ratio_view_crosses_one_where_core_says() {
        let (p, notices) = MlpRooflineParams::from_pairs(&crate::widgets::params::pairs(&[
            ("mesh", "4x4x4"),
            ("f", "30000"),
            ("view", "ratio"),
            ("tp", "4"),
            ("b", "64000"),
        ]));
        assert!(notices.is_empty(), "{notices:?}");
        let a = p.analyse().unwrap();
        let m = p.ratio_model(&a);
        let labels: Vec<&str> = m.lines.iter().map(|l| l.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "FSDP alone",
                "tensor parallel alone",
                "FSDP × tensor, ideal split",
                "FSDP 16 × tensor 4 (chosen)"
            ]
        );
        assert_eq!(m.lines[0].crossing.map(f64::round), Some(850.0));
        assert_eq!(m.lines[1].crossing, None);
        assert_eq!(m.lines[2].crossing.map(f64::round), Some(108.0));
        // Tensor alone is flat near 0.55.
        assert!(m.lines[1]
            .points
            .iter()
            .all(|p| (p.1 - 0.551).abs() < 0.001));
        assert_eq!(m.x, (RATIO_X_LOW, RATIO_X_MIN));
        let svg = p.chart_svg(&a, CHART.design());
        assert!(svg.contains("tokens per chip B / N"), "{svg}");
        assert!(svg.contains("\n850\n"), "{svg}");
        assert!(svg.contains("\n0.1\n"), "ratios written plainly: {svg}");
        assert!(p
            .point_svg(&a, &p.chart_model(&a), CHART.design())
            .is_empty());
    }

    #[test]
    fn bad_settings_are_refused_and_a_new_mesh_keeps_a_split() {
        let mut p = MlpRooflineParams::default();
        let messages = assert_refused_keeps(
            &p,
            &[
                ("tp", "3"),
                ("tp", "0"),
                ("d", "0"),
                ("f", "1e30"),
                ("mesh", "1"),
                ("mesh", "64x64x64"),
                ("b", "100"),
                ("view", "pie"),
                ("chip", "h100"),
            ],
        );
        assert!(messages[0].contains("cannot be laid"), "{}", messages[0]);
        assert!(
            messages[4].contains("at least two chips"),
            "{}",
            messages[4]
        );
        p.apply("mesh", "8").unwrap();
        assert_eq!(p.tensor, 8);
        p.apply("mesh", "4x4").unwrap();
        assert_eq!(p.tensor, 8);
        p.apply("mesh", "2").unwrap();
        assert_eq!(p.tensor, 2);
    }

    #[test]
    fn pairs_round_trip() {
        let p: MlpRooflineParams = assert_round_trip(&[
            ("mesh", "4x4x4"),
            ("tp", "4"),
            ("view", "ratio"),
            ("f", "30000"),
            ("b", "64000"),
        ]);
        assert_eq!(p.chips(), 64.0);
    }
}
