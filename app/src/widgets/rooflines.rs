//! Two rooflines (`data-widget="rooflines"`, Part 1, the book's "Visualizing
//! rooflines" figure): two algorithms on two memory systems under one chip's
//! compute peak. The first algorithm's intensity is typed; the second is a
//! tiled matmul whose intensity comes from its tile sides `bm, bk, bn`
//! (about `bm·bn/(bm+bn)` in bf16). The second memory is the chip's HBM made
//! faster by a factor. Rates and verdicts come from
//! [`ridgeline_core::roofline::ops::rooflines`] and [`ridgeline_core::roofline::ops::tiled_intensity`].
//! A second chip (`vs`) may be drawn on the same axes: its HBM roof under its
//! own peak, both algorithms on it, and the difference spelled out.

use super::compare::{chip_rows, compare_picker, compare_table, Comparison, Diff, VS};
use super::controls::NumberField;
use super::controls::{number_field, Notice};
use super::controls::{LogScale, Slider};
use leptos::prelude::*;
use ridgeline_core::dtype::Dtype;
use ridgeline_core::format::sci;
use ridgeline_core::hardware::{chip, Chip, CHIPS};
use ridgeline_core::roofline::ops::{rooflines, tiled_intensity, RooflinePoint, TiledIntensity};
use ridgeline_core::units::{BytesPerSec, FlopsPerSec, Intensity};

use super::params::{WidgetParams, WidgetState};
use crate::charts::rooflines::{draw, RooflinesModel, VsRoof};
use crate::charts::size::{Frame, Shape, Size};
use crate::charts::svg;
use crate::input::{parse_count, parse_whole};

/// The chart's drawing size (SVG user units) and least height.
const SHAPE: Shape = Shape::new(760, 460, 420);
/// Range of the first algorithm's intensity slider.
pub const I_RANGE: (f64, f64) = (0.5, 5000.0);
/// Slider positions.
pub const STEPS: f64 = 200.0;

/// The compared chip's bf16 peak, HBM bandwidth and both algorithms on its HBM.
pub type VsChip = (FlopsPerSec, BytesPerSec, Vec<RooflinePoint>);

/// The reader's choices.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RooflinesParams {
    /// The chip: its bf16 peak and HBM bandwidth.
    pub chip: &'static Chip,
    /// The second memory's bandwidth as a multiple of the chip's HBM.
    pub faster: f64,
    /// The first algorithm's intensity, FLOPs per byte.
    pub intensity: f64,
    /// The second algorithm's tile sides `bm, bk, bn`.
    pub tile: [u64; 3],
    /// A second chip shown beside the first on its own HBM, if any.
    pub vs: Option<&'static Chip>,
}

impl Default for RooflinesParams {
    fn default() -> Self {
        RooflinesParams {
            chip: chip("v5e").unwrap_or(&CHIPS[0]),
            faster: 2.0,
            intensity: 100.0,
            tile: [1024, 8192, 1024],
            vs: None,
        }
    }
}

/// Everything the widget shows.
#[derive(Debug, Clone, PartialEq)]
pub struct RooflinesView {
    /// The bf16 peak.
    pub peak: FlopsPerSec,
    /// The two bandwidths.
    pub bandwidths: [BytesPerSec; 2],
    /// The tile's intensity, exact and approximate.
    pub tile: TiledIntensity,
    /// Every algorithm on every memory (memory-major).
    pub points: Vec<RooflinePoint>,
}

impl RooflinesParams {
    /// Computes the view, or says why it cannot.
    pub fn run(&self) -> Result<RooflinesView, String> {
        let peak = self
            .chip
            .peak(Dtype::Bf16)
            .ok_or_else(|| format!("{} has no bf16 peak in the book", self.chip.name))?;
        let hbm = self.chip.hbm_bw();
        let bandwidths = [hbm, BytesPerSec(hbm.0 * self.faster)];
        let [bm, bk, bn] = self.tile;
        let tile = tiled_intensity(bm, bk, bn, Dtype::Bf16)?;
        let points = rooflines(peak, &bandwidths, &[Intensity(self.intensity), tile.exact])?;
        Ok(RooflinesView {
            peak,
            bandwidths,
            tile,
            points,
        })
    }

    /// The compared chip's bf16 peak, HBM bandwidth and both algorithms on
    /// its HBM; `None` when nothing is compared.
    pub fn vs_run(&self) -> Option<Result<VsChip, String>> {
        let c = self.vs?;
        Some((|| {
            let peak = c
                .peak(Dtype::Bf16)
                .ok_or_else(|| format!("{} has no bf16 peak in the book", c.name))?;
            let [bm, bk, bn] = self.tile;
            let tile = tiled_intensity(bm, bk, bn, Dtype::Bf16)?;
            let points = rooflines(
                peak,
                &[c.hbm_bw()],
                &[Intensity(self.intensity), tile.exact],
            )?;
            Ok((peak, c.hbm_bw(), points))
        })())
    }

    /// The chip beside the compared one: core's chip numbers, then each
    /// algorithm's rate and verdict on each chip's HBM.
    pub fn comparison(&self) -> Option<Comparison> {
        let (a, b) = (self.run().ok()?, self.vs_run()?.ok()?);
        let on_hbm = |points: &[RooflinePoint], algorithm: usize| {
            points
                .iter()
                .find(|p| p.algorithm == algorithm && p.memory == 0)
                .copied()
        };
        let mut rows = chip_rows(self.chip, self.vs?, Dtype::Bf16);
        for (algorithm, key, verdict_key, what) in [
            (0, "rate-1", "verdict-1", "algorithm 1"),
            (1, "rate-tiled", "verdict-tiled", "tiled matmul"),
        ] {
            let (pa, pb) = (on_hbm(&a.points, algorithm)?, on_hbm(&b.2, algorithm)?);
            rows.push(Diff::number(
                key,
                format!("{what} on HBM"),
                pa.attained.0,
                pb.attained.0,
                |x| format!("{} FLOPs/s", sci(x, 3)),
            ));
            rows.push(Diff::words(
                verdict_key,
                format!("{what} is"),
                pa.verdict.text(),
                pb.verdict.text(),
            ));
        }
        Some(Comparison {
            a: self.chip.name.into(),
            b: self.vs?.name.into(),
            rows,
        })
    }

    /// The chart as inline SVG at `size`.
    pub fn chart_svg(&self, size: Size) -> String {
        let Ok(v) = self.run() else {
            return String::new();
        };
        let model = RooflinesModel {
            peak: v.peak.0,
            memories: vec![
                (
                    format!("HBM, {} B/s", sci(v.bandwidths[0].0, 3)),
                    v.bandwidths[0].0,
                ),
                (
                    format!("{}× faster, {} B/s", self.faster, sci(v.bandwidths[1].0, 3)),
                    v.bandwidths[1].0,
                ),
            ],
            algorithms: vec![
                (
                    format!("algorithm 1, I = {}", sci(self.intensity, 3)),
                    self.intensity,
                ),
                (
                    format!("tiled matmul, I = {}", sci(v.tile.exact.0, 3)),
                    v.tile.exact.0,
                ),
            ],
            points: v.points,
            vs: self.vs.zip(self.vs_run().and_then(Result::ok)).map(
                |(c, (peak, bandwidth, points))| VsRoof {
                    label: (format!("{}: HBM roof, peak", c.name), c.name.to_string()),
                    peak: peak.0,
                    bandwidth: bandwidth.0,
                    points,
                },
            ),
        };
        svg(size.width, size.height, |root| draw(root, &model, false)).0
    }
}

impl WidgetParams for RooflinesParams {
    /// Sets one parameter from text, or explains why not.
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut next = *self;
        let side = |what: &str| parse_whole::<u64>(value, what, 8.0, 65536.0);
        match key {
            "chip" => next.chip = super::controls::chip(value)?,
            "faster" => next.faster = parse_count(value, "the speed-up of memory 2", 1.0, 100.0)?,
            "i" => next.intensity = parse_count(value, "the intensity", I_RANGE.0, I_RANGE.1)?,
            "bm" => next.tile[0] = side("bm")?,
            "bk" => next.tile[1] = side("bk")?,
            "bn" => next.tile[2] = side("bn")?,
            VS => next.vs = super::compare::vs_chip(value)?,
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
        let [bm, bk, bn] = self.tile;
        vec![
            ("chip".into(), self.chip.id.into()),
            ("faster".into(), format!("{}", self.faster)),
            ("i".into(), format!("{}", self.intensity)),
            ("bm".into(), bm.to_string()),
            ("bk".into(), bk.to_string()),
            ("bn".into(), bn.to_string()),
        ]
        .into_iter()
        .chain(self.vs.map(|c| (VS.into(), c.id.into())))
        .collect()
    }
}

/// The widget.
#[component]
pub fn Rooflines(
    /// The chapter's `key=value` arguments (URL parameters override them).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let state = WidgetState::<RooflinesParams>::new(&args);
    let WidgetState { params, notice } = state;
    let set = move |key: &'static str, value: String| {
        state.set_or_refresh(key, &value, key == VS);
    };
    let frame = Frame::new(SHAPE);
    let chart = move || params.with(|p| p.chart_svg(frame.get()));
    let view_of = Memo::new(move |_| params.with(|p| p.run().ok()));
    let point = move |algorithm: usize, memory: usize, f: fn(&RooflinePoint) -> String| {
        view_of.with(|v| {
            v.as_ref()
                .and_then(|v| {
                    v.points
                        .iter()
                        .find(|p| p.algorithm == algorithm && p.memory == memory)
                })
                .map(f)
                .unwrap_or_default()
        })
    };
    let cell = move |algorithm: usize, memory: usize| {
        view! {
            <td data-algorithm=algorithm data-memory=memory>
                <span data-rate="">{move || point(algorithm, memory, |p| format!("{} FLOPs/s", sci(p.attained.0, 3)))}</span>
                " "
                <strong data-verdict=move || point(algorithm, memory, |p| p.verdict.text().into())>
                    {move || point(algorithm, memory, |p| p.verdict.text().into())}
                </strong>
            </td>
        }
    };
    let vs_id = move || params.with(|p| p.vs.map_or("", |c| c.id));
    let vs_options = super::controls::chip_options(|c| c.peak(Dtype::Bf16).is_some(), vs_id);
    let vs_verdict = move || {
        params.with(|p| {
            let (c, (_, _, points)) = p.vs.zip(p.vs_run().and_then(Result::ok))?;
            let first = points.iter().find(|q| q.algorithm == 0)?;
            let text = first.verdict.text();
            Some(view! {
                <p data-vs-line="">{format!("On {}'s HBM, algorithm 1 is ", c.name)}
                    <strong data-vs-verdict=text>{text}</strong>
                    {format!(" at {} FLOPs/s.", sci(first.attained.0, 3))}
                </p>
            })
        })
    };
    let tile_field = move |key: &'static str, label: &'static str, idx: usize| {
        let get = move || params.with(|p| p.tile[idx].to_string());
        number_field(label, format!("tile side {key}"), 6, get, key, set)
    };
    let faster = move || params.with(|p| format!("{}", p.faster));
    let ridge = move |m: usize| {
        view_of.with(|v| {
            v.as_ref()
                .map(|v| sci(v.peak.0 / v.bandwidths[m].0, 3))
                .unwrap_or_default()
        })
    };
    let controls = view! {
            <div class="controls">
                {super::controls::chip_picker("Chip ", |c| c.peak(Dtype::Bf16).is_some(), move || params.with(|p| p.chip.id).to_string(), set)}
                <label>"Memory 2 is "
                    {NumberField::new("faster", "memory 2 bandwidth as a multiple of HBM", 4).decimal().view(faster, set)}
                    "× HBM"
                </label>
                <span class="tile-fields">"Tiled matmul: "
                    {tile_field("bm", "bm ", 0)}
                    {tile_field("bk", "bk ", 1)}
                    {tile_field("bn", "bn ", 2)}
                </span>
                {compare_picker(vs_options, vs_id, set)}
            </div>
            {Slider::positions(STEPS).id("rooflines-i").valuetext(move || format!("{} FLOPs per byte", sci(params.with(|p| p.intensity), 3))).log_row("Algorithm 1's intensity", LogScale::new(STEPS, move || I_RANGE, |x| sci(x, 3)), move || params.with(|p| p.intensity), "i", set, view! { <output data-intensity="">{move || format!("I₁ = {}", sci(params.with(|p| p.intensity), 3))}</output> })}
    }
    .into_any();
    let numbers = view! {
            <div class="plot" node_ref=frame.node style=frame.style()>
                <div class="layer" inner_html=chart role="img"
                    aria-label="two rooflines, two algorithms: attainable FLOPs/s against intensity"></div>
            </div>
            <p class="muted">
                "Tile intensity ≈ bm·bn/(bm+bn) = "
                <span data-tile-approx="">{move || view_of.with(|v| v.as_ref().map(|v| sci(v.tile.approx.0, 3)).unwrap_or_default())}</span>
                "; exactly, counting the output written back: "
                <span data-tile-exact="">{move || view_of.with(|v| v.as_ref().map(|v| sci(v.tile.exact.0, 3)).unwrap_or_default())}</span>
                " FLOPs per byte. Ridges: "
                <span data-ridge="0">{move || ridge(0)}</span>" and "<span data-ridge="1">{move || ridge(1)}</span>"."
            </p>
            <div class="table-scroll" tabindex="0" role="region" aria-label="each algorithm on each memory">
                <table class="rooflines-table">
                    <thead><tr><th scope="col"></th><th scope="col">"HBM"</th><th scope="col">{move || format!("{}× HBM", faster())}</th></tr></thead>
                    <tbody>
                        <tr><th scope="row">"algorithm 1"</th>{cell(0, 0)}{cell(0, 1)}</tr>
                        <tr><th scope="row">"tiled matmul"</th>{cell(1, 0)}{cell(1, 1)}</tr>
                    </tbody>
                </table>
            </div>
            {vs_verdict}
            {compare_table(move || params.with(|p| p.comparison()))}
    }
    .into_any();
    view! {
        <figure class="widget rooflines" data-widget="rooflines">
            {controls}
            {numbers}
            <Notice notice=notice />
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::widgets::params::testing::{assert_pairs_restore, assert_refused_keeps};
    use ridgeline_core::roofline::Verdict;

    fn at(v: &RooflinesView, a: usize, m: usize) -> RooflinePoint {
        *v.points
            .iter()
            .find(|p| p.algorithm == a && p.memory == m)
            .unwrap()
    }

    #[test]
    fn faster_memory_helps_only_the_memory_bound_algorithm() {
        let p = RooflinesParams::default();
        let v = p.run().unwrap();
        // v5e: 1.97e14 FLOPs/s over 8.2e11 B/s, the book's ridge of 240.
        assert!((v.peak.0 / v.bandwidths[0].0 - 240.2).abs() < 0.1);
        let (slow, fast) = (at(&v, 0, 0), at(&v, 0, 1));
        assert_eq!(slow.verdict, Verdict::MemoryBound);
        assert!((fast.attained.0 / slow.attained.0 - 2.0).abs() < 1e-9);
        // A 1024 × 1024 tile: about 512 FLOPs per byte, compute-bound either way.
        assert!((v.tile.approx.0 - 512.0).abs() < 1e-9);
        assert_eq!(at(&v, 1, 0).verdict, Verdict::ComputeBound);
        assert_eq!(at(&v, 1, 0).attained, at(&v, 1, 1).attained);
        let svg = p.chart_svg(SHAPE.design());
        assert!(svg.starts_with(r#"<svg class="chart-svg""#));
        assert!(svg.contains("tiled matmul, I = "), "{svg}");
    }

    #[test]
    fn a_short_tile_is_only_as_intense_as_its_short_side() {
        let mut p = RooflinesParams::default();
        p.apply("bm", "64").unwrap();
        let v = p.run().unwrap();
        assert!((v.tile.approx.0 - 64.0 * 1024.0 / 1088.0).abs() < 1e-9);
        assert_eq!(at(&v, 1, 0).verdict, Verdict::MemoryBound);
        // Above memory 2's ridge the first algorithm stops gaining from it.
        p.apply("i", "200").unwrap();
        let v = p.run().unwrap();
        assert_eq!(at(&v, 0, 0).verdict, Verdict::MemoryBound);
        assert_eq!(at(&v, 0, 1).verdict, Verdict::ComputeBound);
    }

    #[test]
    fn bad_input_keeps_the_state_and_pairs_round_trip() {
        let mut p = RooflinesParams::default();
        assert_refused_keeps(
            &p,
            &[
                ("chip", "nope"),
                ("faster", "0.5"),
                ("i", "-1"),
                ("bm", "0"),
                ("bk", "x"),
                ("colour", "red"),
            ],
        );
        p.apply("chip", "h100").unwrap();
        p.apply("faster", "3").unwrap();
        p.apply("i", "42").unwrap();
        p.apply("bn", "256").unwrap();
        assert_pairs_restore(&p);
    }

    #[test]
    fn a_second_chip_is_drawn_and_compared() {
        let p: RooflinesParams =
            crate::widgets::params::testing::assert_round_trip(&[("chip", "v5e"), ("vs", "v5p")]);
        let c = p.comparison().unwrap();
        assert_eq!(c.b, "TPU v5p");
        // Algorithm 1 (I = 100) on the v5p's HBM attains I · W, memory-bound.
        let v5p = chip("v5p").unwrap();
        let expected = 100.0 * v5p.hbm_bw().0;
        let row = c.row("rate-1").unwrap();
        assert_eq!(row.b, format!("{} FLOPs/s", sci(expected, 3)));
        assert_eq!(c.row("verdict-1").unwrap().b, Verdict::MemoryBound.text());
        let ridge = v5p.peak(Dtype::Bf16).unwrap().0 / v5p.hbm_bw().0;
        assert_eq!(
            c.row("ridge").unwrap().b,
            format!("{} FLOPs/B", sci(ridge, 3))
        );
        let svg = p.chart_svg(SHAPE.design());
        assert!(svg.contains("TPU v5p: HBM roof, peak"), "{svg}");
        // An unknown chip is refused and the comparison kept; none removes it.
        let messages = assert_refused_keeps(&p, &[("vs", "tpu-v99")]);
        assert!(messages[0].contains("tpu-v99"), "{messages:?}");
        let mut q = p;
        q.apply("vs", "none").unwrap();
        assert_eq!(q.comparison(), None);
        assert!(q.to_pairs().iter().all(|(k, _)| k != "vs"));
        assert!(!q.chart_svg(SHAPE.design()).contains("TPU v5p"));
    }
}
