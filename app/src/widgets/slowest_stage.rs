//! The slowest stage (`data-widget="slowest-stage"`, Part 2, the worked
//! challenge problem and its `challenge-problem` figure): a weight matrix held
//! in the hosts' memory is loaded over PCIe into every chip of a slice,
//! gathered over ICI onto one chip, read from its HBM and multiplied by a small
//! batch. Each stage's time comes from
//! [`ridgeline_core::hardware::streaming::StagePipeline::challenge`]; the stage that sets
//! the pace is marked, and the totals compare perfect overlap, overlap in a
//! number of pieces, and one stage after another. A second TPU (`vs`) runs the
//! same job on the same slice shape (or its smallest 2D slice when it cannot
//! form it): its bar beside each stage, its verdict and the difference spelled out.

use super::compare::{
    chip_rows, compare_picker, compare_table, diff_rows, parse_vs_chip, Comparison, Diff, VS,
};
use super::controls::Slider;
use super::controls::{number_field, Notice};
use leptos::prelude::*;
use ridgeline_core::dtype::Dtype;
use ridgeline_core::format::{decimal_bytes, seconds};
use ridgeline_core::hardware::streaming::{PipelineTime, StagePipeline};
use ridgeline_core::hardware::tpu::Slice;
use ridgeline_core::hardware::{chip, Chip, Topology, CHIPS};
use ridgeline_core::roofline::Verdict;

use super::controls::option;
use super::params::{WidgetParams, WidgetState};
use crate::input::{parse_whole, short};

/// Weight formats the reader may pick.
const DTYPES: [(Dtype, &str); 3] = [
    (Dtype::Int8, "int8"),
    (Dtype::Bf16, "bf16"),
    (Dtype::F32, "f32"),
];

/// The reader's choices.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SlowestStageParams {
    /// The slice (its chip, shape, hosts and wraparound).
    pub slice: Slice,
    /// Rows and columns of the square weight matrix.
    pub side: u64,
    /// The weights' element format.
    pub dtype: Dtype,
    /// Rows of the bf16 activations multiplied by the weights.
    pub batch: u64,
    /// Pieces the transfer is cut into so that stages overlap.
    pub pieces: u64,
    /// A second TPU running the same job, if any.
    pub vs: Option<&'static Chip>,
}

impl Default for SlowestStageParams {
    fn default() -> Self {
        let v5e = chip("v5e").unwrap_or(&CHIPS[0]);
        SlowestStageParams {
            slice: Slice::parse(v5e, "4x4").unwrap_or_else(|_| default_slice()),
            side: 128 * 1024,
            dtype: Dtype::Int8,
            batch: 8,
            pieces: 16,
            vs: None,
        }
    }
}

/// A slice of the first TPU in the registry, for the impossible case where
/// the book's v5e slice cannot be formed.
fn default_slice() -> Slice {
    CHIPS
        .iter()
        .find_map(|c| Slice::full_pod(c).ok())
        .expect("the registry holds at least one TPU")
}

/// The stages with their times and the totals.
#[derive(Debug, Clone, PartialEq)]
pub struct SlowestStage {
    /// The pipeline (each stage's time per piece).
    pub pipeline: StagePipeline,
    /// The slowest stage and the totals.
    pub time: PipelineTime,
}

impl SlowestStage {
    /// A stage's time over the whole array (all pieces).
    pub fn stage_total(&self, i: usize) -> f64 {
        self.pipeline
            .stages
            .get(i)
            .map_or(0.0, |(_, t)| t.0 * self.pipeline.items as f64)
    }

    /// The lower bound with perfect overlap: the slowest stage alone.
    pub fn bound(&self) -> f64 {
        self.stage_total(self.time.slowest)
    }

    /// What bounds the whole: the gather and the load are communication, the
    /// HBM read memory, the MXU compute.
    pub fn verdict(&self) -> Verdict {
        match self
            .pipeline
            .stages
            .get(self.time.slowest)
            .map(|s| s.0.as_str())
        {
            Some("HBM") => Verdict::MemoryBound,
            Some("MXU") => Verdict::ComputeBound,
            _ => Verdict::CommunicationBound,
        }
    }
}

impl SlowestStageParams {
    /// The pipeline and its times.
    pub fn run(&self) -> Result<SlowestStage, String> {
        let pipeline = StagePipeline::challenge(
            &self.slice,
            [0, 0, 0],
            self.side,
            self.dtype,
            self.batch,
            self.pieces,
        )?;
        let time = pipeline.time()?;
        Ok(SlowestStage { pipeline, time })
    }

    /// The same job on the compared TPU: the same slice shape when it can
    /// form it, else its smallest 2D slice. `None` when nothing is compared.
    pub fn vs_params(&self) -> Option<Result<SlowestStageParams, String>> {
        let c = self.vs?;
        Some(
            Slice::parse(c, &self.shape_text())
                .or_else(|_| Slice::parse(c, "2x2"))
                .map_err(|e| e.to_string())
                .map(|slice| SlowestStageParams {
                    slice,
                    vs: None,
                    ..*self
                }),
        )
    }

    /// The pipeline on the compared TPU.
    pub fn vs_run(&self) -> Option<Result<SlowestStage, String>> {
        self.vs_params().map(|p| p?.run())
    }

    /// The job beside the same job on the compared TPU: core's chip numbers,
    /// the slice, each stage, the slowest, the totals and the verdict.
    pub fn comparison(&self) -> Option<Comparison> {
        let vs = self.vs?;
        let q = self.vs_params()?.ok()?;
        let (a, b) = (self.run().ok()?, q.run().ok()?);
        let mut rows = chip_rows(self.slice.chip, vs, Dtype::Bf16);
        rows.push(Diff::words(
            "slice",
            "slice",
            self.slice.chips_text(),
            q.slice.chips_text(),
        ));
        for (i, (name, _)) in a.pipeline.stages.iter().enumerate() {
            let key = match name.as_str() {
                "PCIe" => "stage-pcie",
                "ICI" => "stage-ici",
                "HBM" => "stage-hbm",
                _ => "stage-mxu",
            };
            rows.push(Diff::number(
                key,
                name.clone(),
                a.stage_total(i),
                b.stage_total(i),
                seconds,
            ));
        }
        let slowest = |r: &SlowestStage| {
            r.pipeline
                .stages
                .get(r.time.slowest)
                .map(|s| s.0.clone())
                .unwrap_or_default()
        };
        rows.push(Diff::words(
            "slowest",
            "slowest stage",
            slowest(&a),
            slowest(&b),
        ));
        rows.extend(diff_rows(
            &a,
            &b,
            seconds,
            &[
                ("bound", "perfect overlap", SlowestStage::bound),
                ("total", "overlapped in these pieces", |r| r.time.total.0),
            ],
        ));
        rows.push(Diff::words(
            "verdict",
            "the whole is",
            a.verdict().text(),
            b.verdict().text(),
        ));
        Some(Comparison {
            a: self.slice.chip.name.into(),
            b: vs.name.into(),
            rows,
        })
    }

    /// The weights' size in bytes.
    pub fn weight_bytes(&self) -> f64 {
        self.dtype.size_of(self.side as f64 * self.side as f64).0
    }

    /// The slice shape as the reader types it (`4x4`).
    pub fn shape_text(&self) -> String {
        let dims = usize::from(self.slice.dims).clamp(1, 3);
        self.slice.shape[..dims]
            .iter()
            .map(|n| n.to_string())
            .collect::<Vec<_>>()
            .join("x")
    }
}

/// Refuses a chip that is not a TPU (no torus to form a slice on).
fn torus(c: &Chip) -> Result<(), String> {
    match c.topology {
        Topology::Torus { .. } => Ok(()),
        _ => Err(format!("{} is not a TPU", c.name)),
    }
}

impl WidgetParams for SlowestStageParams {
    const ORDER: &'static [&'static [&'static str]] = &[&["chip"], &["slice"]];

    /// Sets one parameter from text, or explains why not.
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut next = *self;
        match key {
            "chip" => {
                let c = super::controls::chip(value)?;
                torus(c)?;
                // Keep the shape if the new chip can form it, else take its smallest 2D slice.
                next.slice = Slice::parse(c, &self.shape_text())
                    .or_else(|_| Slice::parse(c, "2x2"))
                    .map_err(|e| e.to_string())?;
            }
            "slice" => next.slice = Slice::parse(self.slice.chip, value)?,
            VS => next.vs = parse_vs_chip(value, torus)?,
            "side" => next.side = parse_whole::<u64>(value, "the matrix side", 128.0, 1_048_576.0)?,
            "dtype" => {
                next.dtype = DTYPES
                    .iter()
                    .find(|(_, name)| *name == value)
                    .map(|(d, _)| *d)
                    .ok_or_else(|| format!("format “{}” is not int8, bf16 or f32", short(value)))?
            }
            "batch" => next.batch = parse_whole::<u64>(value, "the batch", 1.0, 65536.0)?,
            "pieces" => {
                next.pieces = parse_whole::<u64>(value, "the number of pieces", 1.0, 4096.0)?
            }
            other => return Err(super::params::unknown_setting(other)),
        }
        next.run()?;
        if let Some(Err(e)) = next.vs_run() {
            return Err(format!("compared chip: {e}"));
        }
        *self = next;
        Ok(())
    }

    /// The parameters as `key=value` pairs.
    fn to_pairs(&self) -> Vec<(String, String)> {
        let dtype = DTYPES
            .iter()
            .find(|(d, _)| *d == self.dtype)
            .map_or("int8", |(_, n)| n);
        vec![
            ("chip".into(), self.slice.chip.id.into()),
            ("slice".into(), self.shape_text()),
            ("side".into(), self.side.to_string()),
            ("dtype".into(), dtype.into()),
            ("batch".into(), self.batch.to_string()),
            ("pieces".into(), self.pieces.to_string()),
        ]
        .into_iter()
        .chain(self.vs.map(|c| (VS.into(), c.id.into())))
        .collect()
    }
}

/// What each stage does, for the reader.
fn stage_note(name: &str) -> &'static str {
    match name {
        "PCIe" => "every chip loads its share from its host",
        "ICI" => "chip (0, 0) receives every other share",
        "HBM" => "chip (0, 0) reads the whole matrix",
        _ => "chip (0, 0) multiplies at its bf16 peak",
    }
}

/// The widget.
#[component]
pub fn SlowestStageWidget(
    /// The chapter's `key=value` arguments (URL parameters override them).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let state = WidgetState::<SlowestStageParams>::new(&args);
    let WidgetState { params, notice } = state;
    let set = move |key: &'static str, value: String| {
        state.set_or_refresh(key, &value, key == VS);
    };
    let compared = Memo::new(move |_| params.with(|p| p.vs_run().and_then(Result::ok)));
    let vs_name = move || params.with(|p| p.vs.map(|c| c.name));
    let result = Memo::new(move |_| {
        params
            .with(|p| p.run())
            .or_else(|_| SlowestStageParams::default().run())
            .ok()
    });
    let at = move |f: &dyn Fn(&SlowestStage) -> String| {
        result.with(|r| r.as_ref().map(f).unwrap_or_default())
    };
    let stages = move || {
        result.with(|r| {
            let Some(r) = r.as_ref() else {
                return ().into_any();
            };
            let longest = compared
                .with(|c| c.as_ref().map_or(0.0, SlowestStage::bound))
                .max(r.bound())
                .max(f64::MIN_POSITIVE);
            r.pipeline
                .stages
                .iter()
                .enumerate()
                .map(|(i, (name, _))| {
                    let t = r.stage_total(i);
                    let slowest = i == r.time.slowest;
                    let width = |t: f64| format!("width: {:.1}%", (100.0 * t / longest).clamp(0.5, 100.0));
                    let style = width(t);
                    // The same stage on the compared TPU, a second bar under the first.
                    let vs = compared.with(|c| {
                        c.as_ref().map(|c| {
                            let t = c.stage_total(i);
                            let slowest = i == c.time.slowest;
                            view! {
                                <span class="stage-vs" data-vs-stage="">
                                    <span class="stage-name">{format!("on {}{}", vs_name().unwrap_or_default(), if slowest { " (sets its pace)" } else { "" })}</span>
                                    <span class="stage-bar"><span class="bar vs" style=width(t)></span></span>
                                    <span class="stage-time" data-vs-time="">{seconds(t)}</span>
                                </span>
                            }
                        })
                    });
                    view! {
                        <li class="stage" class:bottleneck=slowest data-stage=name.clone()
                            data-slowest=if slowest { "yes" } else { "no" }>
                            <span class="stage-name">{name.clone()}{if slowest { " (sets the pace)" } else { "" }}</span>
                            <span class="stage-note">{stage_note(name)}</span>
                            <span class="stage-bar"><span class="bar" style=style></span></span>
                            <span class="stage-time" data-time="">{seconds(t)}</span>
                            {vs}
                        </li>
                    }
                })
                .collect_view()
                .into_any()
        })
    };
    let vs_id = move || params.with(|p| p.vs.map_or("", |c| c.id));
    let vs_options = super::controls::chip_options(super::controls::is_tpu, vs_id);
    let dtype_text = move || {
        let chosen = params.with(|p| p.dtype);
        DTYPES
            .iter()
            .find(|(x, _)| *x == chosen)
            .map_or("int8", |(_, n)| n)
    };
    let dtype_options = DTYPES
        .iter()
        .map(|(_, name)| option(*name, *name, move || dtype_text().to_string()))
        .collect_view();
    let text =
        move |key: &'static str, label: &'static str, get: fn(&SlowestStageParams) -> String| {
            number_field(label, label, 7, move || params.with(get), key, set)
        };
    let pieces = move || params.with(|p| p.pieces.to_string());
    let controls = view! {
            <div class="controls">
                {super::controls::chip_picker("Chip ", super::controls::is_tpu, move || params.with(|p| p.slice.chip.id).to_string(), set)}
                {text("slice", "Slice ", |p| p.shape_text())}
                {text("side", "Matrix side ", |p| p.side.to_string())}
                <label>"Weights "
                    <select prop:value=dtype_text on:change=move |ev| set("dtype", event_target_value(&ev))>{dtype_options}</select>
                </label>
                {text("batch", "Batch ", |p| p.batch.to_string())}
                {compare_picker(vs_options, vs_id, set)}
            </div>
            {Slider::new("1", || "64".to_string(), "1").id("slowest-stage-pieces").row("Pieces streamed", move || pieces().to_string(), move |v: String| set("pieces", v), view! { <output data-pieces="">{pieces}</output> })}
    }
    .into_any();
    let numbers = view! {
            <p class="muted">{move || params.with(|p| format!(
                "{} weights of {} on {} over {}, multiplied by bf16[{}, {}] on chip (0, 0).",
                dtype_text(), decimal_bytes(p.weight_bytes()), p.slice.hosts_text(), p.slice.chips_text(), p.batch, p.side
            ))}</p>
            <ol class="stages" aria-label="the four stages, each over the whole matrix">{stages}</ol>
            <dl class="times">
                <div><dt>"the whole is"</dt><dd data-verdict="">{move || at(&|r| r.verdict().text().into())}</dd></div>
                <div><dt>"slowest stage"</dt><dd data-slowest-stage="">{move || at(&|r| r.pipeline.stages.get(r.time.slowest).map(|s| s.0.clone()).unwrap_or_default())}</dd></div>
                <div><dt>"perfect overlap (at least)"</dt><dd data-bound="">{move || at(&|r| seconds(r.bound()))}</dd></div>
                <div><dt>"overlapped in these pieces"</dt><dd data-total="">{move || at(&|r| seconds(r.time.total.0))}</dd></div>
                <div><dt>"one stage after another"</dt><dd data-serial="">{move || at(&|r| seconds(r.time.serial.0))}</dd></div>
                {move || compared.with(|c| c.as_ref().map(|c| {
                    let v = c.verdict().text();
                    view! { <div><dt>{format!("on {}, the whole is", vs_name().unwrap_or_default())}</dt><dd data-vs-verdict=v>{v}</dd></div> }
                }))}
            </dl>
            {compare_table(move || params.with(|p| p.comparison()))}
    }
    .into_any();
    view! {
        <figure class="widget slowest-stage" data-widget="slowest-stage">
            {controls}
            {numbers}
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
    fn the_book_problem_is_paced_by_the_gather_onto_one_chip() {
        let p = SlowestStageParams::default();
        let r = p.run().unwrap();
        assert_eq!(r.pipeline.stages[r.time.slowest].0, "ICI");
        assert_eq!(r.verdict(), Verdict::CommunicationBound);
        // The book's 167 ms is for an array rounded to 16 GB; ours is 2^34 bytes.
        let scaled = r.bound() * 16e9 / 2f64.powi(34);
        assert!((scaled * 1e3 - 167.0).abs() < 0.5, "{scaled}");
        assert_eq!(seconds(r.bound()), seconds(r.stage_total(1)));
        assert_eq!(seconds(r.bound()), "179 ms");
        assert!(r.time.total.0 > r.bound() && r.time.total.0 < r.time.serial.0);
        // A 16×16 slice wraps round: chip (0, 0) receives 255/256 of the
        // matrix over four links instead of 15/16 over two.
        let mut q = p;
        q.apply("slice", "16x16").unwrap();
        let wide = q.run().unwrap();
        let ratio = (255.0 / 256.0 / 4.0) / (15.0 / 16.0 / 2.0);
        assert!((wide.stage_total(1) / r.stage_total(1) - ratio).abs() < 1e-9);
    }

    #[test]
    fn a_large_batch_turns_the_mxu_into_the_slowest_stage() {
        let (mut p, refused) = SlowestStageParams::from_pairs(&pairs(&[("batch", "8192")]));
        assert!(refused.is_empty(), "{refused:?}");
        let r = p.run().unwrap();
        assert_eq!(r.pipeline.stages[r.time.slowest].0, "MXU");
        assert_eq!(r.verdict(), Verdict::ComputeBound);
        assert_eq!(seconds(r.bound()), "1.43 s");
        p.apply("pieces", "1").unwrap();
        let one = p.run().unwrap();
        assert_eq!(one.time.total, one.time.serial);
    }

    #[test]
    fn bad_input_keeps_the_state_and_pairs_round_trip() {
        let mut p = SlowestStageParams::default();
        assert_refused_keeps(
            &p,
            &[
                ("chip", "h100"),
                ("slice", "4x4x4"),
                ("slice", "banana"),
                ("side", "0"),
                ("dtype", "fp4"),
                ("pieces", "0"),
                ("colour", "red"),
            ],
        );
        p.apply("chip", "v5p").unwrap();
        p.apply("slice", "4x4x4").unwrap();
        p.apply("dtype", "bf16").unwrap();
        p.apply("pieces", "32").unwrap();
        assert_pairs_restore(&p);
    }

    #[test]
    fn a_second_tpu_runs_the_same_job_on_the_same_slice() {
        let p: SlowestStageParams =
            crate::widgets::params::testing::assert_round_trip(&[("vs", "v5p")]);
        let c = p.comparison().unwrap();
        let v5p = chip("v5p").unwrap();
        let q = SlowestStageParams {
            slice: Slice::parse(v5p, "4x4").unwrap(),
            vs: None,
            ..p
        };
        let r = q.run().unwrap();
        assert_eq!(c.row("bound").unwrap().b, seconds(r.bound()));
        assert_eq!(c.row("bound").unwrap().a, "179 ms");
        assert_eq!(c.row("stage-ici").unwrap().b, seconds(r.stage_total(1)));
        assert_eq!(c.row("verdict").unwrap().b, r.verdict().text());
        let messages = assert_refused_keeps(&p, &[("vs", "h100"), ("vs", "tpu-v99")]);
        assert!(messages[0].contains("not a TPU"), "{messages:?}");
        let mut none = p;
        none.apply("vs", "none").unwrap();
        assert_eq!(none.comparison(), None);
    }
}
