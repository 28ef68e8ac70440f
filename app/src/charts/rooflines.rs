//! Two algorithms on two memory systems under one compute peak (Part 1, the
//! book's "Visualizing rooflines" figure): each bandwidth draws its slanted
//! roof up to its ridge, the peak is flat, each algorithm is a vertical guide
//! at its intensity, and each pairing is a point at the rate it attains,
//! coloured by whether it is compute-bound.

use super::px;
use plotters::coord::Shift;
use plotters::prelude::*;
use ridgeline_core::format::sci;
use ridgeline_core::roofline::ops::RooflinePoint;
use ridgeline_core::roofline::Verdict;

use super::palette;
use super::style::{draw_legend_below, legend_below_height, log_ticks, Entry, Mark, Styled};

/// What the chart draws: the peak, the bandwidths, the algorithms and the
/// points from [`ridgeline_core::roofline::ops::rooflines`].
#[derive(Debug, Clone, PartialEq)]
pub struct RooflinesModel {
    /// The compute peak, FLOPs/s.
    pub peak: f64,
    /// Each memory system: its legend label and bandwidth in bytes/s.
    pub memories: Vec<(String, f64)>,
    /// Each algorithm: its legend label and intensity in FLOPs per byte.
    pub algorithms: Vec<(String, f64)>,
    /// Every pairing's attained rate and verdict.
    pub points: Vec<RooflinePoint>,
    /// A second chip drawn on the same axes, if one is compared.
    pub vs: Option<VsRoof>,
}

/// A compared chip's HBM roof under its own peak, with the algorithms on it.
#[derive(Debug, Clone, PartialEq)]
pub struct VsRoof {
    /// Its legend label (the chip's name), and a short one for a phone.
    pub label: (String, String),
    /// Its compute peak, FLOPs/s.
    pub peak: f64,
    /// Its HBM bandwidth, bytes/s.
    pub bandwidth: f64,
    /// Each algorithm on its HBM.
    pub points: Vec<RooflinePoint>,
}

impl RooflinesModel {
    /// The intensity axis: a decade either side of every ridge and algorithm.
    pub fn x_range(&self) -> (f64, f64) {
        let xs = self
            .memories
            .iter()
            .map(|(_, w)| self.peak / w)
            .chain(self.vs.iter().map(|v| v.peak / v.bandwidth))
            .chain(self.algorithms.iter().map(|(_, i)| *i))
            .filter(|x| x.is_finite() && *x > 0.0);
        let (lo, hi) = xs.fold((f64::INFINITY, 0.0f64), |(a, b), x| (a.min(x), b.max(x)));
        if lo.is_finite() && hi >= lo {
            (lo / 8.0, hi * 8.0)
        } else {
            (0.1, 1e4)
        }
    }

    /// The rate axis: from the slowest roof at the left edge up to above the peak.
    pub fn y_range(&self) -> (f64, f64) {
        let x0 = self.x_range().0;
        let lo = self
            .memories
            .iter()
            .map(|(_, w)| x0 * w)
            .chain(self.vs.iter().map(|v| (x0 * v.bandwidth).min(v.peak)))
            .fold(self.peak, f64::min);
        let top = self
            .vs
            .as_ref()
            .map_or(self.peak, |v| v.peak.max(self.peak));
        (lo.max(top * 1e-6), top * 2.0)
    }
}

/// Draws the whole chart.
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    model: &RooflinesModel,
    dark: bool,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let pal = palette(dark);
    root.fill(&pal.background)?;
    let entries = model.memories.len() + model.algorithms.len() + usize::from(model.vs.is_some());
    let below = legend_below_height(entries);
    let (x0, x1) = model.x_range();
    let (y0, y1) = model.y_range();
    let narrow = root.dim_in_pixel().0 < super::style::NARROW;
    let mut chart = ChartBuilder::on(root)
        .margin(14)
        .margin_bottom(14 + below)
        .margin_right(24)
        .x_label_area_size(44)
        .y_label_area_size(74)
        .build_cartesian_2d(
            (x0..x1).log_scale(),
            (y0..y1).log_scale().with_key_points(log_ticks(y0, y1)),
        )?;
    chart
        .configure_mesh()
        .x_desc(super::style::intensity_title(narrow))
        .x_labels(if narrow { 5 } else { 10 })
        .y_desc("attainable FLOPs/s")
        .x_label_formatter(&|x| sci(*x, 2))
        .y_label_formatter(&|y| sci(*y, 2))
        .styled(&pal)
        .draw()?;
    let mut legend = Vec::with_capacity(entries);
    // Each memory's roof: slanted up to its ridge, then flat at the peak.
    for (i, (label, w)) in model.memories.iter().enumerate() {
        let colour = pal.series[i % pal.series.len()];
        let ridge = (model.peak / w).clamp(x0, x1);
        let start = x0.max(y0 / w);
        let line = vec![(start, start * w), (ridge, model.peak), (x1, model.peak)];
        if i == 0 {
            chart.draw_series(LineSeries::new(line, colour.stroke_width(3)))?;
        } else {
            chart.draw_series(DashedLineSeries::new(line, 8, 5, colour.stroke_width(3)))?;
        }
        let mark = if i == 0 { Mark::Line(3) } else { Mark::Dashed };
        legend.push(Entry::new(label.clone(), colour, mark));
    }
    // Each algorithm: a thin vertical guide at its intensity.
    for (j, (label, x)) in model.algorithms.iter().enumerate() {
        let colour = pal.series[(j + 2) % pal.series.len()];
        chart.draw_series(LineSeries::new(
            vec![(*x, y0), (*x, y1)],
            colour.stroke_width(2),
        ))?;
        legend.push(Entry::new(label.clone(), colour, Mark::Line(2)));
    }
    // The compared chip: its HBM roof under its own peak, dotted, and each
    // algorithm on it as a ring (hollow: the chart's own chip's points are filled).
    if let Some(vs) = &model.vs {
        let colour = pal.series[5];
        let ridge = (vs.peak / vs.bandwidth).clamp(x0, x1);
        let start = x0.max(y0 / vs.bandwidth);
        let line = vec![
            (start, start * vs.bandwidth),
            (ridge, vs.peak),
            (x1, vs.peak),
        ];
        chart.draw_series(DashedLineSeries::new(line, 3, 4, colour.stroke_width(3)))?;
        let label = super::style::fit_text(root, &vs.label.0, &vs.label.1);
        legend.push(Entry::new(label, colour, Mark::Dashed));
    }
    // Each pairing where it lands, filled when compute-bound.
    let compared = model.vs.iter().flat_map(|v| v.points.iter());
    for (k, p) in model.points.iter().chain(compared).enumerate() {
        let colour = match p.verdict {
            Verdict::ComputeBound => pal.good,
            _ => pal.bad,
        };
        let style = if k < model.points.len() {
            colour.filled()
        } else {
            colour.stroke_width(3)
        };
        chart.draw_series(std::iter::once(Circle::new(
            (p.intensity.0, p.attained.0),
            7,
            style,
        )))?;
    }
    let top = px::legend_top(root.dim_in_pixel().1, below);
    draw_legend_below(root, &legend, (14, top), &pal)?;
    Ok(())
}
