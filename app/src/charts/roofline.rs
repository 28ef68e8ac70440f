//! The roofline chart: roofs of one chip on log-log axes, and an operation's point.
//!
//! Drawing is generic over plotters' `DrawingBackend`; pages draw it as inline
//! SVG (`super::svg`). The static layer (axes, roofs, ridge labels) and the
//! moving point are separate SVG layers: dragging only redraws the point.
//!
//! A second chip may be drawn on the same axes ([`RoofModel::beside`]): its
//! HBM and compute roofs and its ridge, in a colour of their own.
//!
//! An achievable roof may be drawn under the quoted one
//! ([`RoofModel::derated`]): the HBM and compute roofs scaled by a
//! [`Derate`], dashed and labelled; the operation's point then sits under it.

use super::px;
use plotters::coord::Shift;
use plotters::prelude::*;
use ridgeline_core::dtype::Dtype;
use ridgeline_core::format::{sci, si};
use ridgeline_core::hardware::{Chip, Link};
use ridgeline_core::roofline::derate::Derate;
use ridgeline_core::roofline::ops::Op;
use ridgeline_core::roofline::{attainable, Verdict};
use ridgeline_core::units::Intensity;

use super::palette;
use super::place::{draw_label, vertical_runs, Placer, Rect};
use super::style::{
    draw_legend, draw_legend_below, font, legend_below_height, Entry, Mark, Styled, NARROW, NOTE,
    TITLE,
};
use super::text::text_box;

/// One bandwidth roof.
#[derive(Debug, Clone, PartialEq)]
pub struct Roof {
    /// Legend label.
    pub label: &'static str,
    /// Which link.
    pub link: Link,
    /// Bandwidth, bytes/s.
    pub bandwidth: f64,
    /// Ridge point `C / W`, FLOPs per byte.
    pub ridge: f64,
}

/// Everything the static layer shows.
#[derive(Debug, Clone, PartialEq)]
pub struct RoofModel {
    /// Chip name for the caption.
    pub chip: &'static str,
    /// Format of the compute roof.
    pub dtype: Dtype,
    /// Compute roof, FLOPs/s.
    pub peak: f64,
    /// Bandwidth roofs, HBM first.
    pub roofs: Vec<Roof>,
    /// Intensity axis range.
    pub x: (f64, f64),
    /// Throughput axis range.
    pub y: (f64, f64),
    /// A second chip drawn beside this one, if any.
    pub second: Option<Second>,
    /// The achievable roof drawn under the quoted one, if the reader derates it.
    pub achievable: Option<Achievable>,
}

/// The quoted roofs scaled by a [`Derate`]: what the operation's point sits
/// under when the reader assumes less than the quoted peaks.
#[derive(Debug, Clone, PartialEq)]
pub struct Achievable {
    /// The shares assumed.
    pub derate: Derate,
    /// The derated compute roof, FLOPs/s.
    pub peak: f64,
    /// The derated HBM roof.
    pub hbm: Roof,
}

/// A second chip on the same axes: its compute roof and its HBM roof.
#[derive(Debug, Clone, PartialEq)]
pub struct Second {
    /// Chip name.
    pub chip: &'static str,
    /// Format of its compute roof.
    pub dtype: Dtype,
    /// Its compute roof, FLOPs/s.
    pub peak: f64,
    /// Its HBM roof.
    pub hbm: Roof,
}

/// The palette series the second chip is drawn in (vermillion: the chips of
/// the registry have at most four roofs, drawn in the first four).
const SECOND: usize = 5;

impl RoofModel {
    /// The roofs of `chip` for compute in `dtype`; `None` if the chip has no such peak.
    pub fn new(chip: &'static Chip, dtype: Dtype) -> Option<RoofModel> {
        let (dtype, peak) = chip.peak_or_wider(dtype)?;
        let roofs: Vec<Roof> = Link::ALL
            .into_iter()
            .filter_map(|link| {
                let w = chip.bandwidth(link)?;
                Some(Roof {
                    label: link.label(),
                    link,
                    bandwidth: w.0,
                    ridge: (peak / w).0,
                })
            })
            .collect();
        Some(RoofModel {
            chip: chip.name,
            dtype,
            peak: peak.0,
            roofs,
            x: (0.05, 1e6),
            y: (peak.0 * 1e-6, peak.0 * 4.0),
            second: None,
            achievable: None,
        })
    }

    /// These roofs with `other`'s HBM and compute roofs (for compute in
    /// `dtype`) beside them, the throughput axis widened to hold both;
    /// `None` if `other` has no such peak.
    pub fn beside(mut self, other: &'static Chip, dtype: Dtype) -> Option<RoofModel> {
        let (dtype, peak) = other.peak_or_wider(dtype)?;
        let w = other.bandwidth(Link::Hbm)?;
        self.y = (self.y.0.min(peak.0 * 1e-6), self.y.1.max(peak.0 * 4.0));
        self.second = Some(Second {
            chip: other.name,
            dtype,
            peak: peak.0,
            hbm: Roof {
                label: Link::Hbm.label(),
                link: Link::Hbm,
                bandwidth: w.0,
                ridge: (peak / w).0,
            },
        });
        Some(self)
    }

    /// The HBM roof.
    pub fn hbm(&self) -> Option<&Roof> {
        self.roofs.iter().find(|r| r.link == Link::Hbm)
    }

    /// These roofs with the achievable roof `derate` gives drawn under them
    /// (its compute roof and its HBM roof, with their ridge); unchanged when
    /// `derate` is the quoted peak or there is no HBM roof.
    pub fn derated(mut self, derate: Derate) -> RoofModel {
        let hbm = self.hbm().cloned();
        self.achievable = hbm.filter(|_| !derate.is_peak()).map(|hbm| {
            let peak = derate.rate(ridgeline_core::units::FlopsPerSec(self.peak));
            let w = derate.bandwidth(Link::Hbm, ridgeline_core::units::BytesPerSec(hbm.bandwidth));
            Achievable {
                derate,
                peak: peak.0,
                hbm: Roof {
                    bandwidth: w.0,
                    ridge: (peak / w).0,
                    ..hbm
                },
            }
        });
        self
    }

    /// The compute roof and HBM roof the operation sits under: the
    /// achievable ones when drawn, else the quoted ones.
    pub fn ceiling(&self) -> Option<(f64, &Roof)> {
        match &self.achievable {
            Some(a) => Some((a.peak, &a.hbm)),
            None => self.hbm().map(|r| (self.peak, r)),
        }
    }
}

/// The operation's point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OpPoint {
    /// FLOPs per byte.
    pub intensity: f64,
    /// Attainable FLOPs/s under the HBM roof.
    pub attainable: f64,
    /// Which side of the ridge it is on.
    pub verdict: Verdict,
}

impl OpPoint {
    /// The point of `op` under `model`'s HBM roof (the achievable one when
    /// it is drawn).
    pub fn of(op: &Op, model: &RoofModel) -> OpPoint {
        let (peak, w, ridge) = model
            .ceiling()
            .map(|(peak, r)| (peak, r.bandwidth, r.ridge))
            .unwrap_or((model.peak, f64::NAN, f64::NAN));
        OpPoint::under(op.intensity(), peak, w, ridge)
    }

    /// The point of `op` under the second chip's HBM roof, if there is one.
    pub fn on_second(op: &Op, model: &RoofModel) -> Option<OpPoint> {
        let s = model.second.as_ref()?;
        Some(OpPoint::under(
            op.intensity(),
            s.peak,
            s.hbm.bandwidth,
            s.hbm.ridge,
        ))
    }

    /// The point at intensity `i` under a compute roof `peak` and an HBM roof
    /// of bandwidth `w` whose ridge is `ridge`.
    fn under(i: Intensity, peak: f64, w: f64, ridge: f64) -> OpPoint {
        let y = attainable(
            i,
            ridgeline_core::units::FlopsPerSec(peak),
            ridgeline_core::units::BytesPerSec(w),
        );
        OpPoint {
            intensity: i.0,
            attainable: y.0,
            verdict: ridgeline_core::roofline::verdict_at(i, Intensity(ridge), Link::Hbm),
        }
    }
}

/// The pixel rectangle of the plotting area, for turning pointer positions into data.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlotArea {
    /// Left and right pixel edges.
    pub x: (i32, i32),
    /// Top and bottom pixel edges.
    pub y: (i32, i32),
    /// The data range on the x axis (log scale).
    pub range: (f64, f64),
}

impl PlotArea {
    /// The intensity under pixel column `px`.
    pub fn intensity_at(&self, px: f64) -> f64 {
        let t = ((px - self.x.0 as f64) / (self.x.1 - self.x.0).max(1) as f64).clamp(0.0, 1.0);
        (self.range.0.ln() + t * (self.range.1.ln() - self.range.0.ln())).exp()
    }
}

pub(crate) type Chart<'a, DB> = ChartContext<'a, DB, Cartesian2d<LogCoord<f64>, LogCoord<f64>>>;

/// Whether the chart is drawn narrow: its legend then goes under the plot.
fn narrow<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>) -> bool {
    root.dim_in_pixel().0 < NARROW
}

/// The legend's entries: each bandwidth roof (HBM solid), then the compute
/// roof, then the second chip's roofs if there is one.
fn entries(model: &RoofModel, pal: &super::Palette) -> Vec<Entry> {
    let mut e: Vec<Entry> = model
        .roofs
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let mark = if r.link == Link::Hbm {
                Mark::Line(3)
            } else {
                Mark::Dashed
            };
            Entry::new(r.label, pal.series[i % pal.series.len()], mark)
        })
        .collect();
    e.push(Entry::new(peak_label(model), pal.text, Mark::Line(3)));
    if let Some(s) = &model.second {
        e.push(Entry::new(
            format!(
                "{}: HBM and {} peak {}",
                s.chip,
                s.dtype,
                si(s.peak, "FLOPs/s", 3)
            ),
            pal.series[SECOND],
            Mark::Line(3),
        ));
    }
    if let Some(a) = &model.achievable {
        e.push(Entry::new(achievable_label(a), pal.text, Mark::Dashed));
    }
    e
}

/// The achievable roof's legend entry: the shares it assumes and its peak.
fn achievable_label(a: &Achievable) -> String {
    format!(
        "achievable ({:.0}% FLOPs, {:.0}% HBM): {}",
        100.0 * a.derate.flops(),
        100.0 * a.derate.hbm(),
        si(a.peak, "FLOPs/s", 3)
    )
}

/// How many entries the legend has.
fn entry_count(model: &RoofModel) -> usize {
    model.roofs.len()
        + 1
        + usize::from(model.second.is_some())
        + usize::from(model.achievable.is_some())
}

/// The band above a narrow chart's plot that holds the operation's label:
/// on a phone the plot is too small for a label beside the point that
/// crosses none of the roofs (issue #13), so the label goes above the plot,
/// over its point's guide, where no roof is drawn.
const LABEL_STRIP: u32 = 24;

/// The chart's margin above the plot.
const TOP: u32 = 14;

pub(crate) fn chart<'a, DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    model: &RoofModel,
) -> Result<Chart<'a, DB>, DrawingAreaErrorKind<DB::ErrorType>> {
    let (below, strip) = if narrow(root) {
        (legend_below_height(entry_count(model)), LABEL_STRIP)
    } else {
        (0, 0)
    };
    ChartBuilder::on(root)
        .margin(TOP)
        .margin_top(TOP + strip)
        .margin_bottom(TOP + below)
        .margin_right(24)
        .x_label_area_size(44)
        .y_label_area_size(74)
        .build_cartesian_2d(
            (model.x.0..model.x.1).log_scale(),
            (model.y.0..model.y.1).log_scale(),
        )
}

/// Draws axes, grid, the compute roof, every bandwidth roof and the ridge labels.
/// Returns the plotting area's pixel rectangle.
pub fn draw_static<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    model: &RoofModel,
    dark: bool,
) -> Result<PlotArea, DrawingAreaErrorKind<DB::ErrorType>> {
    let pal = palette(dark);
    root.fill(&pal.background)?;
    let mut chart = chart(root, model)?;
    chart
        .configure_mesh()
        .x_desc(super::style::intensity_title(narrow(root)))
        .x_labels(if narrow(root) { 5 } else { 10 })
        .y_desc(format!("attainable {} FLOPs/s", model.dtype))
        .x_label_formatter(&|x| sci(*x, 2))
        .y_label_formatter(&|y| sci(*y, 2))
        .styled(&pal)
        .draw()?;

    // Bandwidth roofs: slanted until their ridge, HBM solid, the rest dashed.
    for (i, roof) in model.roofs.iter().enumerate() {
        let colour = pal.series[i % pal.series.len()];
        let x0 = model.x.0.max(model.y.0 / roof.bandwidth);
        let ridge = roof.ridge.min(model.x.1);
        let points = vec![(x0, x0 * roof.bandwidth), (ridge, ridge * roof.bandwidth)];
        let width = if roof.link == Link::Hbm { 3 } else { 2 };
        if roof.link == Link::Hbm {
            chart.draw_series(LineSeries::new(points, colour.stroke_width(width)))?;
        } else {
            chart.draw_series(DashedLineSeries::new(
                points,
                6,
                4,
                colour.stroke_width(width),
            ))?;
        }
    }
    // The compute roof.
    chart.draw_series(LineSeries::new(
        vec![
            (
                model.x.0.max(
                    model
                        .roofs
                        .iter()
                        .map(|r| r.ridge)
                        .fold(f64::INFINITY, f64::min),
                ),
                model.peak,
            ),
            (model.x.1, model.peak),
        ],
        pal.text.stroke_width(3),
    ))?;

    // The second chip's HBM and compute roofs, in its own colour.
    if let Some(s) = &model.second {
        let colour = pal.series[SECOND];
        let (w, ridge) = (s.hbm.bandwidth, s.hbm.ridge.min(model.x.1));
        let x0 = model.x.0.max(model.y.0 / w);
        chart.draw_series(LineSeries::new(
            vec![(x0, x0 * w), (ridge, ridge * w), (model.x.1, s.peak)],
            colour.stroke_width(3),
        ))?;
    }

    // The achievable roof under the quoted one, dashed, with its ridge.
    if let Some(a) = &model.achievable {
        let (w, ridge) = (a.hbm.bandwidth, a.hbm.ridge.min(model.x.1));
        let x0 = model.x.0.max(model.y.0 / w);
        chart.draw_series(DashedLineSeries::new(
            vec![(x0, x0 * w), (ridge, ridge * w), (model.x.1, a.peak)],
            8,
            5,
            pal.text.stroke_width(2),
        ))?;
        chart.draw_series(std::iter::once(Circle::new(
            (a.hbm.ridge, a.peak),
            4,
            pal.text.filled(),
        )))?;
    }

    // The HBM ridge points, marked and labelled with their values.
    let layout = Layout::of(&chart, model, narrow(root));
    if let Some(hbm) = model.hbm() {
        chart.draw_series(std::iter::once(Circle::new(
            (hbm.ridge, model.peak),
            6,
            pal.series[0].filled(),
        )))?;
    }
    if let Some(s) = &model.second {
        chart.draw_series(std::iter::once(Circle::new(
            (s.hbm.ridge, s.peak),
            6,
            pal.series[SECOND].filled(),
        )))?;
    }
    for (text, r) in layout.ridge_labels.iter() {
        root.draw(&Text::new(
            text.clone(),
            (r.x0 + 2, r.y0),
            font(NOTE, &pal.text),
        ))?;
    }
    let list = entries(model, &pal);
    match layout.legend {
        Some(position) => draw_legend(
            &chart.plotting_area().strip_coord_spec(),
            &list,
            position,
            &pal,
        )?,
        None => {
            let top = px::legend_top(root.dim_in_pixel().1, legend_below_height(list.len()));
            draw_legend_below(root, &list, (14, top), &pal)?;
        }
    }

    let (xr, yr) = chart.plotting_area().get_pixel_range();
    Ok(PlotArea {
        x: (xr.start, xr.end),
        y: (yr.start, yr.end),
        range: model.x,
    })
}

/// Draws the operation's point, its guide to the x axis and its label on a
/// transparent layer over the static chart; with `second` (the same operation
/// under the second chip's roofs), a ring on that chip's roof too. Returns the
/// box the label took.
pub fn draw_point<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    model: &RoofModel,
    point: &OpPoint,
    second: Option<&OpPoint>,
    label: &str,
    dark: bool,
) -> Result<Rect, DrawingAreaErrorKind<DB::ErrorType>> {
    let pal = palette(dark);
    let mut chart = chart(root, model)?;
    let x = point.intensity.clamp(model.x.0, model.x.1);
    let y = point.attainable.clamp(model.y.0, model.y.1);
    let colour_of = |v: Verdict| match v {
        Verdict::ComputeBound => pal.good,
        _ => pal.bad,
    };
    let colour = colour_of(point.verdict);
    let other = second.map(|p| (p.attainable.clamp(model.y.0, model.y.1), p.verdict));
    let narrow = narrow(root);
    // On a phone the guide runs to the top of the plot, to the label above it.
    let top = match (narrow, other) {
        (true, _) => model.y.1,
        (false, Some((y2, _))) => y.max(y2),
        (false, None) => y,
    };
    // The guide, from the axis up, interrupted where it would cross a ridge
    // label (on a phone it runs the plot's height, past the ridge).
    let layout = Layout::of(&chart, model, narrow);
    let foot = chart.backend_coord(&(x, model.y.0));
    let head = chart.backend_coord(&(x, top));
    let labels: Vec<Rect> = layout.ridge_labels.iter().map(|(_, r)| *r).collect();
    for (a, b) in vertical_runs(foot.0, head.1, foot.1, &labels, 2) {
        root.draw(&plotters::element::DashedPathElement::new(
            vec![(foot.0, b), (foot.0, a)],
            4,
            4,
            colour.stroke_width(1),
        ))?;
    }
    if let Some((y2, v)) = other {
        chart.draw_series(std::iter::once(Circle::new(
            (x, y2),
            7,
            colour_of(v).filled(),
        )))?;
        chart.draw_series(std::iter::once(Circle::new(
            (x, y2),
            7,
            pal.series[SECOND].stroke_width(3),
        )))?;
    }
    chart.draw_series(std::iter::once(Circle::new((x, y), 9, colour.filled())))?;
    chart.draw_series(std::iter::once(Circle::new(
        (x, y),
        9,
        pal.background.stroke_width(2),
    )))?;
    let at = chart.backend_coord(&(x, y));
    if narrow {
        // Above the plot, centred on the guide, inside the drawing.
        let (w, h) = text_box(label, TITLE);
        let right = px::coord(root.dim_in_pixel().0) - 2;
        let x0 = (at.0 - w / 2).min(right - w).max(2);
        let r = Rect::new(
            x0,
            px::coord(TOP) + (px::coord(LABEL_STRIP) - h) / 2 - 2,
            w,
            h,
        );
        root.draw(&Text::new(label, (r.x0 + 2, r.y0), font(TITLE, &colour)))?;
        return Ok(r);
    }
    // Beside the point, where it covers no roof, the legend or the ridge label.
    let mut placer = layout.placer;
    placer.avoid_line(&[foot, head]);
    placer.avoid_point(at, 11);
    if let Some((y2, _)) = other {
        placer.avoid_point(chart.backend_coord(&(x, y2)), 9);
    }
    draw_label(root, &mut placer, at, label, TITLE, &colour, 6)
}

/// One measured operation: its intensity and the rate it achieved (not
/// the attainable rate: a profile's op sits wherever it ran, under the roof).
#[derive(Debug, Clone, PartialEq)]
pub struct Measured {
    /// FLOPs per byte.
    pub intensity: f64,
    /// FLOPs/s achieved.
    pub achieved: f64,
    /// A short label drawn beside the point (its number in the table).
    pub label: String,
}

/// Draws the chart with `points` where they ran: each a dot at its
/// intensity and achieved rate, labelled where the label covers no roof,
/// legend or other point.
pub fn draw_measured<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    model: &RoofModel,
    points: &[Measured],
    dark: bool,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    draw_static(root, model, dark)?;
    let pal = palette(dark);
    let mut chart = chart(root, model)?;
    let mut placer = label_placer(root, &chart, model);
    let at: Vec<(f64, f64)> = points
        .iter()
        .map(|p| {
            (
                p.intensity.clamp(model.x.0, model.x.1),
                p.achieved.clamp(model.y.0, model.y.1),
            )
        })
        .collect();
    for xy in &at {
        placer.avoid_point(chart.backend_coord(xy), 8);
    }
    let colour = pal.series[1];
    for (p, xy) in points.iter().zip(&at) {
        chart.draw_series(std::iter::once(Circle::new(*xy, 6, colour.filled())))?;
        chart.draw_series(std::iter::once(Circle::new(
            *xy,
            6,
            pal.text.stroke_width(1),
        )))?;
        draw_label(
            root,
            &mut placer,
            chart.backend_coord(xy),
            &p.label,
            NOTE,
            &pal.text,
            4,
        )?;
    }
    Ok(())
}

/// Free space on `root`'s plot for labels drawn over the static layer: the
/// roofs, the ridge points and labels and the legend are taken.
pub(crate) fn label_placer<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &Chart<'_, DB>,
    model: &RoofModel,
) -> Placer {
    Layout::of(chart, model, narrow(root)).placer
}

/// The compute roof's legend entry (naming the chip when a second one is drawn).
fn peak_label(model: &RoofModel) -> String {
    let peak = format!("{} peak {}", model.dtype, si(model.peak, "FLOPs/s", 3));
    match model.second {
        Some(_) => format!("{}: {peak}", model.chip),
        None => peak,
    }
}

/// Where the static layer's labels go, computed the same way by both layers
/// so that the moving label avoids what the static layer drew.
struct Layout {
    /// Free space after the roofs, the ridge label and the legend.
    placer: Placer,
    /// The HBM ridge labels (the second chip's after this one's) and their boxes.
    ridge_labels: Vec<(String, Rect)>,
    /// The legend's position in the plot, or `None` when it goes under it.
    legend: Option<SeriesLabelPosition>,
}

impl Layout {
    fn of<DB: DrawingBackend>(chart: &Chart<'_, DB>, model: &RoofModel, narrow: bool) -> Layout {
        let (xr, yr) = chart.plotting_area().get_pixel_range();
        let mut placer = Placer::new(Rect::from_ranges(xr, yr));
        let px = |x: f64, y: f64| chart.backend_coord(&(x, y));
        for roof in &model.roofs {
            let x0 = model.x.0.max(model.y.0 / roof.bandwidth);
            let ridge = roof.ridge.min(model.x.1);
            placer.avoid_line(&[
                px(x0, x0 * roof.bandwidth),
                px(ridge, ridge * roof.bandwidth),
            ]);
        }
        if let Some(s) = &model.second {
            let (w, ridge) = (s.hbm.bandwidth, s.hbm.ridge.min(model.x.1));
            let x0 = model.x.0.max(model.y.0 / w);
            placer.avoid_line(&[px(x0, x0 * w), px(ridge, ridge * w), px(model.x.1, s.peak)]);
            placer.avoid_point(px(s.hbm.ridge, s.peak), 7);
        }
        if let Some(a) = &model.achievable {
            let (w, ridge) = (a.hbm.bandwidth, a.hbm.ridge.min(model.x.1));
            let x0 = model.x.0.max(model.y.0 / w);
            placer.avoid_line(&[px(x0, x0 * w), px(ridge, ridge * w), px(model.x.1, a.peak)]);
            placer.avoid_point(px(a.hbm.ridge, a.peak), 5);
        }
        let first_ridge = model
            .roofs
            .iter()
            .map(|r| r.ridge)
            .fold(f64::INFINITY, f64::min);
        placer.avoid_line(&[
            px(model.x.0.max(first_ridge), model.peak),
            px(model.x.1, model.peak),
        ]);
        // Each ridge point is kept free before any label is placed, so that
        // neither chip's label covers the other's point.
        let mut ridges: Vec<(String, (i32, i32))> = Vec::new();
        if let Some(hbm) = model.hbm() {
            let text = match &model.second {
                Some(_) => format!("{}: HBM ridge {} FLOPs/B", model.chip, sci(hbm.ridge, 3)),
                None => format!("HBM ridge {} FLOPs/B", sci(hbm.ridge, 3)),
            };
            ridges.push((text, px(hbm.ridge, model.peak)));
        }
        if let Some(s) = &model.second {
            let text = format!("{}: HBM ridge {} FLOPs/B", s.chip, sci(s.hbm.ridge, 3));
            ridges.push((text, px(s.hbm.ridge, s.peak)));
        }
        if let Some(a) = &model.achievable {
            let text = format!("achievable ridge {} FLOPs/B", sci(a.hbm.ridge, 3));
            ridges.push((text, px(a.hbm.ridge, a.peak)));
        }
        for (_, at) in &ridges {
            placer.avoid_point(*at, 7);
        }
        let ridge_labels = ridges
            .into_iter()
            .map(|(text, at)| {
                let r = placer.place(at, text_box(&text, NOTE), 6);
                (text, r)
            })
            .collect();
        let legend = (!narrow).then(|| placer.legend_for(&entries(model, &palette(false))));
        Layout {
            placer,
            ridge_labels,
            legend,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use plotters_svg::SVGBackend;
    use ridgeline_core::hardware::chip;

    #[test]
    fn a_derated_chart_draws_and_labels_the_achievable_roof() {
        let v5e = chip("v5e").unwrap();
        let quoted = RoofModel::new(v5e, Dtype::Bf16).unwrap();
        // The quoted peak draws nothing more.
        assert_eq!(quoted.clone().derated(Derate::PEAK), quoted);
        let model = quoted.clone().derated(Derate::new(0.8, 1.0, 1.0).unwrap());
        let a = model.achievable.as_ref().unwrap();
        // 0.8 × 1.97e14 = 1.576e14 FLOPs/s over 8.2e11 B/s: a ridge of 192.
        assert_eq!(sci(a.peak, 4), "1.576e14");
        assert_eq!(sci(a.hbm.ridge, 3), "192");
        let op = ridgeline_core::roofline::ops::OpKind::Matmul.build(
            64.0,
            8192.0,
            8192.0,
            Dtype::Bf16,
            Dtype::Bf16,
        );
        let drawn = svg(&model, &op);
        assert!(drawn.contains("achievable ridge 192 FLOPs/B"), "{drawn}");
        assert!(
            drawn.contains("achievable (80% FLOPs, 100% HBM)"),
            "{drawn}"
        );
        assert!(
            drawn.contains("HBM ridge 240 FLOPs/B"),
            "the quoted ridge stays"
        );
        assert!(!svg(&quoted, &op).contains("achievable"));
    }

    fn svg(model: &RoofModel, op: &Op) -> String {
        let mut out = String::new();
        {
            let root = SVGBackend::with_string(&mut out, (720, 420)).into_drawing_area();
            draw_static(&root, model, false).unwrap();
            let second = OpPoint::on_second(op, model);
            draw_point(
                &root,
                model,
                &OpPoint::of(op, model),
                second.as_ref(),
                "B = 64",
                false,
            )
            .unwrap();
            root.present().unwrap();
        }
        out
    }

    #[test]
    fn v5e_chart_labels_the_ridge_and_every_link() {
        let model = RoofModel::new(chip("v5e").unwrap(), Dtype::Bf16).unwrap();
        let op = Op::Matmul {
            b: 64.0,
            d: 8192.0,
            f: 8192.0,
            act: Dtype::Bf16,
            weight: Dtype::Bf16,
        };
        let s = svg(&model, &op);
        assert!(s.contains("HBM ridge 240 FLOPs/B"), "ridge label missing");
        for label in [
            "HBM",
            "ICI (per link, bidirectional)",
            "DCN (per chip)",
            "PCIe (per chip)",
        ] {
            assert!(s.contains(label), "{label} missing");
        }
        assert!(s.contains("B = 64"));
        assert!(s.contains("197 TFLOPs/s"));
    }

    #[test]
    fn a_second_chip_gets_its_roofs_ridge_label_and_point() {
        let v5e = chip("v5e").unwrap();
        let h100 = chip("h100").unwrap();
        let model = RoofModel::new(v5e, Dtype::Bf16)
            .unwrap()
            .beside(h100, Dtype::Bf16)
            .unwrap();
        let s = model.second.as_ref().unwrap();
        assert_eq!(s.peak, h100.peak(Dtype::Bf16).unwrap().0);
        assert_eq!(
            s.hbm.ridge,
            h100.ridge(Dtype::Bf16, Link::Hbm).unwrap().0,
            "the ridge is core's"
        );
        // The axis holds H100's 990 TFLOPs/s with room above.
        assert!(model.y.1 >= 4.0 * s.peak);
        let op = Op::Matmul {
            b: 300.0,
            d: 8192.0,
            f: 8192.0,
            act: Dtype::Bf16,
            weight: Dtype::Bf16,
        };
        // At B = 300 the matmul is past v5e's ridge (240) but not H100's (296).
        assert_eq!(OpPoint::of(&op, &model).verdict, Verdict::ComputeBound);
        let second = OpPoint::on_second(&op, &model).unwrap();
        assert_eq!(second.verdict, Verdict::MemoryBound);
        assert_eq!(Some(second.verdict), op.verdict(h100));
        let out = svg(&model, &op);
        assert!(out.contains("TPU v5e: HBM ridge 240 FLOPs/B"), "{out}");
        assert!(out.contains("NVIDIA H100: HBM ridge 296 FLOPs/B"), "{out}");
        assert!(out.contains("NVIDIA H100: HBM and bf16 peak 990 TFLOPs/s"));
        let colour = crate::charts::svg_colour(palette(false).series[SECOND]);
        assert!(out.contains(&colour), "the second chip's colour");
        // Alone, the chart is as before: no second colour, the short label.
        let alone = svg(&RoofModel::new(v5e, Dtype::Bf16).unwrap(), &op);
        assert!(!alone.contains(&colour), "{alone}");
        assert!(alone.contains("\nHBM ridge 240 FLOPs/B"), "{alone}");
    }

    /// Every line the static layer draws, in pixels: each bandwidth roof up to
    /// its ridge, the compute roof, and the second chip's roofs.
    fn roof_segments<DB: DrawingBackend>(
        root: &DrawingArea<DB, Shift>,
        model: &RoofModel,
    ) -> Vec<((i32, i32), (i32, i32))> {
        let c = chart(root, model).unwrap();
        let px = |x: f64, y: f64| c.backend_coord(&(x, y));
        let mut out = Vec::new();
        for r in &model.roofs {
            let x0 = model.x.0.max(model.y.0 / r.bandwidth);
            let ridge = r.ridge.min(model.x.1);
            out.push((px(x0, x0 * r.bandwidth), px(ridge, ridge * r.bandwidth)));
        }
        let first = model
            .roofs
            .iter()
            .map(|r| r.ridge)
            .fold(f64::INFINITY, f64::min);
        out.push((
            px(model.x.0.max(first), model.peak),
            px(model.x.1, model.peak),
        ));
        if let Some(s) = &model.second {
            let (w, ridge) = (s.hbm.bandwidth, s.hbm.ridge.min(model.x.1));
            let x0 = model.x.0.max(model.y.0 / w);
            out.push((px(x0, x0 * w), px(ridge, ridge * w)));
            out.push((px(ridge, ridge * w), px(model.x.1, s.peak)));
        }
        out
    }

    /// A bf16 8192 × 8192 matmul of batch `b`, under the chip's roofs and the second chip's.
    fn matmul_points(b: f64, model: &RoofModel) -> (OpPoint, Option<OpPoint>) {
        let op = Op::Matmul {
            b,
            d: 8192.0,
            f: 8192.0,
            act: Dtype::Bf16,
            weight: Dtype::Bf16,
        };
        (OpPoint::of(&op, model), OpPoint::on_second(&op, model))
    }

    /// v5e's roofline, alone and with H100's beside it.
    fn v5e_alone_and_beside_h100() -> (RoofModel, RoofModel) {
        let alone = RoofModel::new(chip("v5e").unwrap(), Dtype::Bf16).unwrap();
        let both = alone
            .clone()
            .beside(chip("h100").unwrap(), Dtype::Bf16)
            .unwrap();
        (alone, both)
    }

    /// Issue #13: on a phone the operation's label ("B = 64, I = 63" on v5e,
    /// whose ICI roof runs just under HBM's) crosses none of the roofs, the
    /// dashed ICI roof included, nor sits within a pixel of one.
    #[test]
    fn the_point_label_crosses_no_roof_on_a_phone() {
        let (alone, both) = v5e_alone_and_beside_h100();
        let mut crossed = Vec::new();
        for model in [&alone, &both] {
            for (w, h) in [(267, 420), (320, 420), (337, 420), (390, 420), (760, 440)] {
                for b in [1.0, 8.0, 16.0, 32.0, 64.0, 128.0, 240.0, 1024.0, 65536.0] {
                    let (point, second) = matmul_points(b, model);
                    let label = format!("B = {b}, I = {}", sci(point.intensity, 3));
                    let mut out = String::new();
                    let root = SVGBackend::with_string(&mut out, (w, h)).into_drawing_area();
                    draw_static(&root, model, false).unwrap();
                    let r =
                        draw_point(&root, model, &point, second.as_ref(), &label, false).unwrap();
                    assert!(
                        r.x0 >= 0 && r.y0 >= 0 && r.x1 <= w as i32 && r.y1 <= h as i32,
                        "{w} px: “{label}” {r:?} leaves the drawing"
                    );
                    // The text's box, a pixel wider each way for the line's width.
                    let padded = Rect::new(r.x0 - 1, r.y0 - 1, r.w() + 2, r.h() + 2);
                    for (a, z) in roof_segments(&root, model) {
                        if padded.crosses(a, z) {
                            let vs = model.second.as_ref().map_or("", |s| s.chip);
                            crossed.push(format!("{w} px {vs}: “{label}” {r:?} on {a:?}–{z:?}"));
                        }
                    }
                }
            }
        }
        assert!(
            crossed.is_empty(),
            "{} labels on a roof:\n{}",
            crossed.len(),
            crossed.join("\n")
        );
    }

    /// The no-JS phone figure of /rooflines drew the point's guide, which runs
    /// the plot's height on a phone, through "HBM ridge 240 FLOPs/B".
    #[test]
    fn the_guide_never_crosses_a_ridge_label() {
        let (alone, both) = v5e_alone_and_beside_h100();
        let mut crossed = Vec::new();
        let mut cut = 0;
        for model in [&alone, &both] {
            for (w, h) in [(267, 420), (320, 420), (390, 420), (760, 440)] {
                for b in [8.0, 64.0, 128.0, 200.0, 240.0, 300.0, 400.0, 1024.0] {
                    let (point, second) = matmul_points(b, model);
                    let mut out = String::new();
                    let labels = {
                        let root = SVGBackend::with_string(&mut out, (w, h)).into_drawing_area();
                        draw_point(&root, model, &point, second.as_ref(), "B", false).unwrap();
                        let c = chart(&root, model).unwrap();
                        Layout::of(&c, model, narrow(&root)).ridge_labels
                    };
                    // Every dash of the guide is a two-point polyline.
                    let dashes = crate::charts::place::dashes(&out, "");
                    assert!(!dashes.is_empty(), "{w} px, B = {b}: no guide drawn");
                    for (text, r) in &labels {
                        if dashes.iter().any(|d| d.0 .0 >= r.x0 && d.0 .0 <= r.x1) {
                            cut += 1;
                        }
                        for (a, z) in &dashes {
                            if r.crosses(*a, *z) {
                                crossed.push(format!(
                                    "{w} px, B = {b}: guide {a:?}–{z:?} on “{text}” {r:?}"
                                ));
                            }
                        }
                    }
                }
            }
        }
        assert!(crossed.is_empty(), "{}", crossed.join("\n"));
        // Some guides did pass a ridge label's column: the test saw a cut.
        assert!(cut > 0);
    }

    #[test]
    fn point_follows_the_batch() {
        let model = RoofModel::new(chip("h100").unwrap(), Dtype::Bf16).unwrap();
        let small = Op::Matmul {
            b: 16.0,
            d: 8192.0,
            f: 8192.0,
            act: Dtype::Bf16,
            weight: Dtype::Bf16,
        };
        let p = OpPoint::of(&small, &model);
        assert_eq!(p.verdict, Verdict::MemoryBound);
        assert!(p.attainable < model.peak);
        let big = OpPoint::of(&small.with_batch(4096.0), &model);
        assert_eq!(big.verdict, Verdict::ComputeBound);
        assert_eq!(big.attainable, model.peak);
    }

    #[test]
    fn pixels_map_back_to_intensity() {
        let area = PlotArea {
            x: (100, 600),
            y: (10, 300),
            range: (0.1, 1000.0),
        };
        assert!((area.intensity_at(100.0) - 0.1).abs() < 1e-9);
        assert!((area.intensity_at(600.0) - 1000.0).abs() < 1e-6);
        assert!((area.intensity_at(350.0) - 10.0).abs() < 1e-6);
        assert!((area.intensity_at(-5000.0) - 0.1).abs() < 1e-9);
    }
}
