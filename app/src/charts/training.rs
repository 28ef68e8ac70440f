//! Part 5 charts: the training roofline (per-layer compute and communication time
//! against the global batch, log-log, one communication line per strategy, the
//! communication-bound region of the selected strategy shaded, and a second
//! chip's compute and communication lines beside them if there is one), the
//! ratio of compute to communication time against tokens per chip, and
//! memory per chip as stacked bars against HBM.

use super::px;
use plotters::coord::Shift;
use plotters::prelude::*;
use ridgeline_core::format::{grouped, sci, seconds, si, tokens};
use ridgeline_core::model::accounting::TrainingMemory;
use ridgeline_core::training::Boundary;

use super::palette;
use super::place::{draw_label, vertical_runs, Placer, Rect};
use super::style::{
    draw_legend_below, fit_text, font, legend_below_height, legend_on, Entry, Mark, Styled, NARROW,
    NOTE, TICK,
};
use super::text::text_box;

/// One strategy's communication line.
#[derive(Debug, Clone, PartialEq)]
pub struct CommsLine {
    /// Legend label.
    pub label: String,
    /// `(batch, t_comms)` points, seconds.
    pub points: Vec<(f64, f64)>,
}

/// What the static layer of the training roofline shows.
#[derive(Debug, Clone, PartialEq)]
pub struct TrainingModel {
    /// `(batch, t_math)`: the same for every strategy that uses every chip.
    pub math: Vec<(f64, f64)>,
    /// One line per strategy.
    pub comms: Vec<CommsLine>,
    /// Which line is selected.
    pub selected: usize,
    /// The selected strategy's comms-bound batches `(from, to)`, if any.
    pub shaded: Option<(f64, f64)>,
    /// The boundary to mark, with its label.
    pub boundary: Option<(f64, String)>,
    /// Batch axis.
    pub x: (f64, f64),
    /// Time axis.
    pub y: (f64, f64),
    /// A second chip's lines on the same axes, if any.
    pub second: Option<SecondChip>,
}

/// A second chip on the training roofline: its compute line and the selected
/// strategy's communication line, swept over the same batches, and where they cross.
#[derive(Debug, Clone, PartialEq)]
pub struct SecondChip {
    /// Chip name.
    pub chip: &'static str,
    /// The selected strategy's label.
    pub comms_label: String,
    /// `(batch, t_math)`, seconds.
    pub math: Vec<(f64, f64)>,
    /// `(batch, t_comms)`, seconds.
    pub comms: Vec<(f64, f64)>,
    /// `(batch, time)` where the strategy turns compute-bound on this chip, if it does.
    pub crossing: Option<(f64, f64)>,
}

/// The palette series the second chip is drawn in (vermillion: the strategies
/// take at most the first four).
const SECOND: usize = 5;

impl TrainingModel {
    /// Fits the time axis around every positive point.
    pub fn fit_y(&mut self) {
        let all = self
            .math
            .iter()
            .chain(self.comms.iter().flat_map(|c| c.points.iter()))
            .chain(
                self.second
                    .iter()
                    .flat_map(|s| s.math.iter().chain(s.comms.iter())),
            )
            .map(|p| p.1)
            .filter(|t| t.is_finite() && *t > 0.0);
        let (lo, hi) = all.fold((f64::INFINITY, 0.0f64), |(lo, hi), t| {
            (lo.min(t), hi.max(t))
        });
        self.y = if lo.is_finite() && hi > lo {
            (lo / 2.0, hi * 3.0)
        } else {
            (1e-6, 1.0)
        };
    }
}

/// A communication-bound region and its boundary: [`TrainingModel::shaded`]
/// and [`TrainingModel::boundary`].
pub type Region = (Option<(f64, f64)>, Option<(f64, String)>);

/// The batches a strategy is communication-bound over on the axis `x`, and
/// its boundary with its label ("B ≈ 3.48M tokens (850 per chip)"), for
/// [`TrainingModel::shaded`] and [`TrainingModel::boundary`].
pub fn comms_bound_region(boundary: Boundary, x: (f64, f64), chips: f64) -> Region {
    match boundary {
        Boundary::At(b) => (
            Some((x.0, b)),
            Some((
                b,
                format!("B ≈ {} tokens ({} per chip)", tokens(b), grouped(b / chips)),
            )),
        ),
        Boundary::Never => (Some(x), None),
        Boundary::Always => (None, None),
    }
}

type Chart<'a, DB> = ChartContext<'a, DB, Cartesian2d<LogCoord<f64>, LogCoord<f64>>>;

/// How many entries the roofline's legend has: compute, one per strategy,
/// and two for a second chip.
fn legend_rows(m: &TrainingModel) -> usize {
    1 + m.comms.len() + 2 * usize::from(m.second.is_some())
}

/// The height under a narrow roofline's plot that holds its legend (a
/// phone's plot has no room for the legend box), or nothing on a wide one.
fn below<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, m: &TrainingModel) -> u32 {
    if root.dim_in_pixel().0 < NARROW {
        legend_below_height(legend_rows(m))
    } else {
        0
    }
}

fn frame<'a, DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    m: &TrainingModel,
) -> Result<Chart<'a, DB>, DrawingAreaErrorKind<DB::ErrorType>> {
    ChartBuilder::on(root)
        .margin(14)
        .margin_right(24)
        .margin_bottom(14 + below(root, m))
        .x_label_area_size(44)
        .y_label_area_size(70)
        .build_cartesian_2d((m.x.0..m.x.1).log_scale(), (m.y.0..m.y.1).log_scale())
}

fn positive(points: &[(f64, f64)]) -> Vec<(f64, f64)> {
    points
        .iter()
        .copied()
        .filter(|p| p.1.is_finite() && p.1 > 0.0)
        .collect()
}

/// Draws axes, the compute line, every strategy's communication line, the shaded
/// communication-bound region of the selected one and its boundary.
pub fn draw_roofline<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    m: &TrainingModel,
    dark: bool,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let pal = palette(dark);
    root.fill(&pal.background)?;
    let mut chart = frame(root, m)?;
    let narrow = root.dim_in_pixel().0 < NARROW;
    let (xr, yr) = chart.plotting_area().get_pixel_range();
    let plot = Rect::from_ranges(xr, yr);
    let mut placer = Placer::new(plot);
    if let Some((a, b)) = m.shaded {
        let (a, b) = (a.max(m.x.0), b.min(m.x.1));
        if b > a {
            chart.draw_series(std::iter::once(Rectangle::new(
                [(a, m.y.0), (b, m.y.1)],
                pal.bad.mix(0.12).filled(),
            )))?;
            if let Some((text, r)) = region_label(&chart, &plot, m) {
                // The legend keeps off the note.
                placer.avoid_box(r);
                root.draw(&Text::new(text, (r.x0, r.y0), font(NOTE, &pal.bad)))?;
            }
        }
    }
    chart
        .configure_mesh()
        .x_desc("global batch B (tokens)")
        // Every decade labelled is too close together on a phone: every other.
        .x_labels(if narrow { 3 } else { 10 })
        .y_desc(fit_text(root, "time per layer (forward)", "time per layer"))
        .x_label_formatter(&|x| si(*x, "", 2))
        .y_label_formatter(&|y| seconds(*y))
        .styled(&pal)
        .draw()?;
    chart.draw_series(LineSeries::new(positive(&m.math), pal.text.stroke_width(3)))?;
    let mut legend = vec![Entry::new(
        "compute (every strategy)",
        pal.text,
        Mark::Line(3),
    )];
    placer.avoid_line(&pixels(&chart, &positive(&m.math)));
    // The selected line first, the dashed ones over it: a strategy whose line
    // coincides with the selected one's (data parallelism and FSDP move the
    // same bytes) stays visible, and its legend entry says so.
    let mut order: Vec<usize> = (0..m.comms.len()).collect();
    order.sort_by_key(|&i| i != m.selected);
    for (k, &i) in order.iter().enumerate() {
        let line = &m.comms[i];
        let colour = pal.series[i % pal.series.len()];
        let pts = positive(&line.points);
        placer.avoid_line(&pixels(&chart, &pts));
        let same = order[..k]
            .iter()
            .map(|&j| &m.comms[j])
            .find(|o| same_curve(&o.points, &line.points));
        let label = match (i == m.selected, same) {
            (true, _) => format!("{} comms (selected)", line.label),
            // A phone's legend line has no room for "same as".
            (false, Some(o)) if narrow => format!("{} comms (= {})", line.label, o.label),
            (false, Some(o)) => format!("{} comms (same as {})", line.label, o.label),
            (false, None) => format!("{} comms", line.label),
        };
        if i == m.selected {
            chart.draw_series(LineSeries::new(pts, colour.stroke_width(4)))?;
            legend.push(Entry::new(label, colour, Mark::Line(4)));
        } else {
            // Short dashes over a coinciding line, so that both colours show.
            let (dash, gap) = if same.is_some() { (4, 8) } else { (6, 4) };
            chart.draw_series(DashedLineSeries::new(
                pts,
                dash,
                gap,
                colour.stroke_width(2),
            ))?;
            legend.push(Entry::new(label, colour, Mark::Dashed));
        }
    }
    if let Some(s) = &m.second {
        // The second chip in one colour: its compute dashed, its
        // communication solid, their crossover a dot.
        let colour = pal.series[SECOND];
        let (math, comms) = (positive(&s.math), positive(&s.comms));
        placer.avoid_line(&pixels(&chart, &math));
        placer.avoid_line(&pixels(&chart, &comms));
        chart.draw_series(DashedLineSeries::new(math, 6, 4, colour.stroke_width(3)))?;
        chart.draw_series(LineSeries::new(comms, colour.stroke_width(3)))?;
        legend.push(Entry::new(
            format!("compute on {}", s.chip),
            colour,
            Mark::Dashed,
        ));
        legend.push(Entry::new(
            format!("{} comms on {}", s.comms_label, s.chip),
            colour,
            Mark::Line(3),
        ));
        if let Some((b, t)) = s.crossing {
            if b > m.x.0 && b < m.x.1 && t > m.y.0 && t < m.y.1 {
                chart.draw_series(std::iter::once(Circle::new((b, t), 6, colour.filled())))?;
            }
        }
    }
    if let Some((b, label)) = &m.boundary {
        if *b > m.x.0 && *b < m.x.1 {
            let boxes = boundary_label(&chart, &plot, m, *b, label, narrow);
            // The boundary, interrupted where the label still meets it.
            let rects: Vec<Rect> = boxes.iter().map(|(_, r)| *r).collect();
            let (top, foot) = (
                chart.backend_coord(&(*b, m.y.1)),
                chart.backend_coord(&(*b, m.y.0)),
            );
            for (y0, y1) in vertical_runs(foot.0, top.1, foot.1, &rects, 2) {
                root.draw(&plotters::element::DashedPathElement::new(
                    vec![(foot.0, y1), (foot.0, y0)],
                    5,
                    4,
                    pal.text.stroke_width(1),
                ))?;
            }
            for (line, r) in boxes {
                placer.avoid_box(r);
                root.draw(&Text::new(line, (r.x0, r.y0), font(NOTE, &pal.text)))?;
            }
        }
    }
    if narrow {
        let top = px::legend_top(root.dim_in_pixel().1, below(root, m));
        draw_legend_below(root, &legend, (14, top), &pal)?;
    } else {
        let position = placer.legend_for(&legend);
        legend_on(&chart, &legend, position, &pal)?;
    }
    Ok(())
}

/// The region note ("communication-bound") over the shaded batches, with the
/// box it takes, if the shaded range is in view.
fn region_label<DB: DrawingBackend>(
    chart: &Chart<'_, DB>,
    plot: &Rect,
    m: &TrainingModel,
) -> Option<(&'static str, Rect)> {
    let (a, b) = m.shaded?;
    let (a, b) = (a.max(m.x.0), b.min(m.x.1));
    if b <= a {
        return None;
    }
    let text = "communication-bound";
    let at = chart.backend_coord(&((a * b).sqrt().max(a * 1.2), m.y.1 / 2.2));
    let (w, h) = text_box(text, NOTE);
    Some((text, Rect::new(within(at.0, text, plot), at.1, w, h)))
}

/// Every label of the static layer that the operating point's marker must
/// pass around: the region note and the boundary's label.
fn static_labels<DB: DrawingBackend>(
    chart: &Chart<'_, DB>,
    m: &TrainingModel,
    narrow: bool,
) -> Vec<Rect> {
    let (xr, yr) = chart.plotting_area().get_pixel_range();
    let plot = Rect::from_ranges(xr, yr);
    let mut out: Vec<Rect> = region_label(chart, &plot, m)
        .map(|(_, r)| r)
        .into_iter()
        .collect();
    if let Some((b, label)) = &m.boundary {
        if *b > m.x.0 && *b < m.x.1 {
            out.extend(
                boundary_label(chart, &plot, m, *b, label, narrow)
                    .into_iter()
                    .map(|(_, r)| r),
            );
        }
    }
    out
}

/// The lines of the boundary's label and their boxes, beside the boundary at
/// batch `b`: on the side the plot has room for them (the right one first
/// when the boundary is in the left half), near the foot of the plot, or
/// higher up, a row at a time, where the foot is crossed by a curve (on a
/// phone the compute line ran through it). On a phone the label breaks
/// before its parenthesis onto a second line, the first above the second; if
/// neither side has room, the side with more.
fn boundary_label<DB: DrawingBackend>(
    chart: &Chart<'_, DB>,
    plot: &Rect,
    m: &TrainingModel,
    b: f64,
    label: &str,
    narrow: bool,
) -> Vec<(String, Rect)> {
    const GAP: i32 = 6;
    let lines: Vec<&str> = match label.split_once(" (") {
        Some((first, _)) if narrow => vec![first, &label[first.len() + 1..]],
        _ => vec![label],
    };
    let widest = lines.iter().map(|l| text_box(l, NOTE).0).max().unwrap_or(0);
    let (bx, by) = chart.backend_coord(&(b, m.y.0 * 2.0));
    let (room_right, room_left) = (plot.x1 - bx - GAP, bx - GAP - plot.x0);
    let prefer_right = b < (m.x.0 * m.x.1).sqrt();
    let right = match (room_right >= widest, room_left >= widest) {
        (true, true) => prefer_right,
        (true, false) => true,
        (false, true) => false,
        (false, false) => room_right >= room_left,
    };
    let row = text_box(label, NOTE).1;
    let rows = px::coord(lines.len());
    // The curves the label keeps off: compute, and every strategy's comms.
    let curves: Vec<Vec<(i32, i32)>> = std::iter::once(&m.math)
        .chain(m.comms.iter().map(|c| &c.points))
        .map(|pts| pixels(chart, &positive(pts)))
        .collect();
    let at = |top: i32| -> Vec<(String, Rect)> {
        lines
            .iter()
            .enumerate()
            .map(|(i, line)| {
                let (w, h) = text_box(line, NOTE);
                let x = if right { bx + GAP } else { bx - GAP - w };
                let x = within(x, line, plot);
                (
                    line.to_string(),
                    Rect::new(x, top + row * px::coord(i), w, h),
                )
            })
            .collect()
    };
    let clear = |boxes: &[(String, Rect)]| {
        boxes.iter().all(|(_, r)| {
            curves
                .iter()
                .all(|c| c.windows(2).all(|s| !r.crosses(s[0], s[1])))
        })
    };
    // The last line stays above the axis.
    let foot = (by - row * (rows - 1)).min(plot.y1 - row * rows - 2);
    (0..)
        .map(|k| foot - k * row)
        .take_while(|top| *top >= plot.y0)
        .map(at)
        .find(|boxes| clear(boxes))
        .unwrap_or_else(|| at(foot))
}

/// The left pixel of a `NOTE` label of `text` asked to start at `x`, moved
/// left (never past the plot's left edge) so that it ends inside `plot`.
fn within(x: i32, text: &str, plot: &Rect) -> i32 {
    x.min(plot.x1 - text_box(text, NOTE).0).max(plot.x0)
}

/// A curve in pixels.
fn pixels<DB: DrawingBackend>(chart: &Chart<'_, DB>, pts: &[(f64, f64)]) -> Vec<(i32, i32)> {
    pts.iter().map(|p| chart.backend_coord(p)).collect()
}

/// Whether two curves are the same within 0.5 % at every point.
fn same_curve(a: &[(f64, f64)], b: &[(f64, f64)]) -> bool {
    a.len() == b.len()
        && !a.is_empty()
        && a.iter().zip(b).all(|(p, q)| {
            (p.0 - q.0).abs() <= 0.005 * p.0.abs().max(q.0.abs())
                && (p.1 - q.1).abs() <= 0.005 * p.1.abs().max(q.1.abs())
        })
}

/// Draws the operating point: the batch, and the selected strategy's two times.
pub fn draw_operating_point<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    m: &TrainingModel,
    batch: f64,
    t_math: f64,
    t_comms: f64,
    comms_bound: bool,
    dark: bool,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let pal = palette(dark);
    let mut chart = frame(root, m)?;
    let x = batch.clamp(m.x.0, m.x.1);
    let colour = if comms_bound { pal.bad } else { pal.good };
    // The marker passes around the static layer's labels (it ran through
    // "communication-bound").
    let narrow = root.dim_in_pixel().0 < NARROW;
    let (px, top) = chart.backend_coord(&(x, m.y.1));
    let bottom = chart.backend_coord(&(x, m.y.0)).1;
    for (y0, y1) in vertical_runs(px, top, bottom, &static_labels(&chart, m, narrow), 2) {
        root.draw(&plotters::element::DashedPathElement::new(
            vec![(px, y0), (px, y1)],
            4,
            4,
            colour.stroke_width(2),
        ))?;
    }
    for t in [t_math, t_comms] {
        if t.is_finite() && t > 0.0 {
            let y = t.clamp(m.y.0, m.y.1);
            chart.draw_series(std::iter::once(Circle::new((x, y), 7, colour.filled())))?;
        }
    }
    Ok(())
}

/// Draws one stacked bar per strategy (parameters, gradients, optimizer state,
/// activations) against the chip's HBM.
pub fn draw_memory<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    bars: &[(String, TrainingMemory)],
    hbm: f64,
    dark: bool,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let pal = palette(dark);
    root.fill(&pal.background)?;
    let n = bars.len().max(1) as f64;
    let narrow = root.dim_in_pixel().0 < NARROW;
    let largest = bars.iter().map(|b| b.1.total().0).fold(hbm, f64::max);
    let x_max = (largest * 1.15).min(hbm * 1.5).max(hbm * 1.2);
    let kinds = ["parameters", "gradients", "optimizer", "activations"];
    // A phone's plot has no room for the legend box beside the bars' labels:
    // it goes under the plot, in two columns.
    let legend: Vec<Entry> = kinds
        .iter()
        .enumerate()
        .map(|(j, k)| Entry::new(*k, pal.series[j], Mark::Swatch))
        .collect();
    let below = if narrow {
        legend_below_height(legend.len().div_ceil(2))
    } else {
        0
    };
    let mut chart = ChartBuilder::on(root)
        .margin(10)
        .margin_right(24)
        .margin_bottom(10 + below)
        .x_label_area_size(44)
        .y_label_area_size(10)
        .build_cartesian_2d(0.0..x_max, 0.0..n)?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .disable_y_axis()
        .x_desc("memory per chip")
        .x_labels(6)
        .x_label_formatter(&|x| si(*x, "B", 2))
        .styled(&pal)
        .draw()?;
    let (xr, yr) = chart.plotting_area().get_pixel_range();
    let plot = Rect::from_ranges(xr, yr);
    let mut placer = Placer::new(plot);
    // The axis line at the bottom of the plot: labels keep off it too.
    placer.avoid_line(&[(plot.x0, plot.y1 - 1), (plot.x1, plot.y1 - 1)]);
    for (i, (label, mem)) in bars.iter().enumerate() {
        let y = n - i as f64 - 1.0;
        let parts = [
            mem.params.0,
            mem.grads.0,
            mem.optimizer.0,
            mem.activations.0,
        ];
        let mut x = 0.0;
        for (j, v) in parts.iter().enumerate() {
            let end = (x + v).min(x_max);
            if end > x {
                chart.draw_series(std::iter::once(Rectangle::new(
                    [(x, y + 0.15), (end, y + 0.6)],
                    pal.series[j].filled(),
                )))?;
            }
            x = end;
        }
        let total = mem.total().0;
        if total > x_max {
            // A break mark: the bar goes on past the axis; its label gives its size.
            let (b0, b1, slant) = (x_max * 0.95, x_max * 0.97, x_max * 0.007);
            chart.draw_series(std::iter::once(Rectangle::new(
                [(b0, y + 0.1), (b1, y + 0.65)],
                pal.background.filled(),
            )))?;
            for b in [b0, b1] {
                chart.draw_series(std::iter::once(PathElement::new(
                    vec![(b - slant, y + 0.08), (b + slant, y + 0.67)],
                    pal.text.stroke_width(2),
                )))?;
            }
        }
        // A phone's bar has no room for the verdict in words: a tick or a
        // cross, as in the table beside the chart.
        let verdict = match (total <= hbm, narrow) {
            (true, false) => " (fits)",
            (false, false) => " (does not fit)",
            (true, true) => " ✓",
            (false, true) => " ✗",
        };
        let text = format!("{label}: {}{verdict}", si(total, "B", 3));
        let at = chart.backend_coord(&(x_max * 0.01, y + 0.95));
        let (w, h) = text_box(&text, NOTE);
        placer.avoid_box(Rect::new(at.0, at.1, w, h));
        let (p0, p1) = (
            chart.backend_coord(&(0.0, y + 0.6)),
            chart.backend_coord(&(x, y + 0.15)),
        );
        placer.avoid_box(Rect::new(p0.0, p0.1, p1.0 - p0.0, p1.1 - p0.1));
        chart.draw_series(std::iter::once(Text::new(
            text,
            (x_max * 0.01, y + 0.95),
            font(NOTE, &pal.text),
        )))?;
    }
    if hbm < x_max {
        chart.draw_series(DashedLineSeries::new(
            vec![(hbm, 0.0), (hbm, n)],
            5,
            4,
            pal.bad.stroke_width(2),
        ))?;
        // Beside its line in the free space nearest the axis, clear of the
        // bars and their labels (a fixed spot sat on the axis line).
        let foot = chart.backend_coord(&(hbm, 0.0));
        let head = chart.backend_coord(&(hbm, n));
        placer.avoid_line(&[foot, head]);
        let text = format!("HBM {}", si(hbm, "B", 3));
        let (_, h) = text_box(&text, TICK);
        draw_label(
            root,
            &mut placer,
            (foot.0, foot.1 - h / 2 - 4),
            &text,
            TICK,
            &pal.bad,
            4,
        )?;
    }
    if narrow {
        let (width, height) = root.dim_in_pixel();
        let top = px::legend_top(height, below);
        let (left, right) = legend.split_at(legend.len().div_ceil(2));
        draw_legend_below(root, left, (14, top), &pal)?;
        draw_legend_below(root, right, (14 + (px::coord(width) - 14) / 2, top), &pal)?;
    } else {
        let position = placer.legend_for(&legend);
        legend_on(&chart, &legend, position, &pal)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use plotters_svg::SVGBackend;
    use ridgeline_core::units::Bytes;

    fn model() -> TrainingModel {
        let xs: Vec<f64> = (0..40).map(|i| 1e4 * 1.4f64.powi(i)).collect();
        let mut m = TrainingModel {
            math: xs.iter().map(|&b| (b, b * 1e-10)).collect(),
            comms: vec![
                CommsLine {
                    label: "FSDP".into(),
                    points: xs.iter().map(|&b| (b, 3e-4)).collect(),
                },
                CommsLine {
                    label: "data parallel".into(),
                    points: xs.iter().map(|&b| (b, 6e-4)).collect(),
                },
            ],
            selected: 0,
            shaded: Some((1e4, 3e6)),
            boundary: Some((3e6, "B ≈ 3M tokens".into())),
            x: (1e4, 1e9),
            y: (0.0, 0.0),
            second: None,
        };
        m.fit_y();
        m
    }

    #[test]
    fn roofline_labels_schemes_region_and_boundary() {
        let m = model();
        assert!(m.y.0 > 0.0 && m.y.1 > m.y.0);
        let mut out = String::new();
        {
            let root = SVGBackend::with_string(&mut out, (760, 420)).into_drawing_area();
            draw_roofline(&root, &m, false).unwrap();
            draw_operating_point(&root, &m, 1e6, 1e-4, 3e-4, true, false).unwrap();
            root.present().unwrap();
        }
        for s in [
            "communication-bound",
            "B ≈ 3M tokens",
            "FSDP comms (selected)",
            "data parallel comms",
            "compute (every strategy)",
        ] {
            assert!(out.contains(s), "{s} missing");
        }
    }

    /// On a phone the two-line boundary label was pushed back over its own
    /// line; now it sits on the side with room, and where no side has room
    /// the line is interrupted under it.
    #[test]
    fn the_boundary_label_never_sits_on_its_line() {
        let mut crossed = Vec::new();
        for (w, h) in [(267, 320), (320, 320), (390, 320), (760, 420)] {
            for b in [2e4, 1e5, 1e6, 3e6, 1e7, 1e8, 5e8] {
                let mut m = model();
                m.boundary = Some((b, "B ≈ 3M tokens (2,930 per chip)".into()));
                let mut out = String::new();
                let (labels, x, plot) = {
                    let root = SVGBackend::with_string(&mut out, (w, h)).into_drawing_area();
                    draw_roofline(&root, &m, false).unwrap();
                    let chart = frame(&root, &m).unwrap();
                    let (xr, yr) = chart.plotting_area().get_pixel_range();
                    let plot = Rect::from_ranges(xr, yr);
                    let narrow = w < NARROW;
                    let label = "B ≈ 3M tokens (2,930 per chip)";
                    let x = chart.backend_coord(&(b, m.y.0)).0;
                    (boundary_label(&chart, &plot, &m, b, label, narrow), x, plot)
                };
                // The boundary's dashes: the thin ones along its column.
                let dashes: Vec<_> = crate::charts::place::dashes(&out, r#"stroke-width="1""#)
                    .into_iter()
                    .filter(|(a, z)| a.0 == x && z.0 == x)
                    .collect();
                assert!(!dashes.is_empty(), "{w} px: no boundary drawn");
                for (line, r) in &labels {
                    assert!(out.contains(line.as_str()), "{line}");
                    assert!(
                        plot.contains(r),
                        "{w} px, B = {b}: “{line}” {r:?} leaves {plot:?}"
                    );
                    for (a, z) in &dashes {
                        if r.crosses(*a, *z) {
                            crossed.push(format!("{w} px, B = {b}: “{line}” {r:?} on {a:?}–{z:?}"));
                        }
                    }
                }
            }
        }
        assert!(crossed.is_empty(), "{}", crossed.join("\n"));
    }

    /// On a phone the compute line ran through the boundary's label at the
    /// foot of the plot: wherever the boundary is, the label crosses no curve.
    #[test]
    fn the_boundary_label_keeps_off_the_curves() {
        use crate::charts::place::{segments, texts};
        let mut faults = Vec::new();
        for (w, h) in [(320, 420), (390, 440), (760, 420)] {
            for b in [2e4, 1e5, 1e6, 3e6, 1e7, 1e8, 5e8] {
                let mut m = model();
                m.boundary = Some((b, "B ≈ 3.48M tokens (850 per chip)".into()));
                let mut out = String::new();
                {
                    let root = SVGBackend::with_string(&mut out, (w, h)).into_drawing_area();
                    draw_roofline(&root, &m, false).unwrap();
                    root.present().unwrap();
                }
                let curves = [
                    segments(&out, r#"stroke-width="3""#),
                    segments(&out, r#"stroke-width="4""#),
                ]
                .concat();
                for (t, r) in texts(&out)
                    .into_iter()
                    .filter(|(t, _)| t.contains("tokens") || t.contains("per chip"))
                {
                    // Legend marks sit beside their own text, left of it.
                    if let Some((a, z)) = curves
                        .iter()
                        .filter(|(a, z)| (z.0 - a.0).abs() != 18)
                        .find(|(a, z)| r.crosses(*a, *z))
                    {
                        faults.push(format!("{w} px, B = {b}: “{t}” {r:?} on {a:?}–{z:?}"));
                    }
                }
            }
        }
        assert!(faults.is_empty(), "{}", faults.join("\n"));
    }

    /// The reader's batch marker ran through "communication-bound": wherever
    /// the batch is, at phone and desktop widths, the marker crosses no label
    /// of the static layer.
    #[test]
    fn the_batch_marker_passes_around_the_labels() {
        use crate::charts::place::{segments, texts};
        let mut faults = Vec::new();
        for (w, h) in [(320, 420), (390, 440), (760, 420)] {
            let mut m = model();
            m.boundary = Some((3e6, "B ≈ 3M tokens (2,930 per chip)".into()));
            let mut base = String::new();
            {
                let root = SVGBackend::with_string(&mut base, (w, h)).into_drawing_area();
                draw_roofline(&root, &m, false).unwrap();
                root.present().unwrap();
            }
            let labels = texts(&base);
            assert!(
                labels.iter().any(|(t, _)| t == "communication-bound"),
                "{w} px: {labels:?}"
            );
            for batch in [2e4, 1e5, 4e5, 1e6, 2.9e6, 3.2e6, 1e8] {
                let mut marker = String::new();
                {
                    let root = SVGBackend::with_string(&mut marker, (w, h)).into_drawing_area();
                    draw_operating_point(&root, &m, batch, 1e-4, 3e-4, true, false).unwrap();
                    root.present().unwrap();
                }
                let dashes = segments(&marker, r#"stroke-width="2""#);
                assert!(!dashes.is_empty(), "{w} px: no marker");
                for (t, r) in labels.iter().filter(|(t, _)| {
                    t.starts_with("comm") || t.contains("tokens") || t.contains("per chip")
                }) {
                    if let Some((a, b)) = dashes.iter().find(|(a, b)| r.crosses(*a, *b)) {
                        faults.push(format!("{w} px, B = {batch}: “{t}” {r:?} on {a:?}–{b:?}"));
                    }
                }
            }
        }
        assert!(faults.is_empty(), "{}", faults.join("\n"));
    }

    /// At 267 px the legend box covered the third bar's label: a phone's
    /// legend goes under the plot, clear of every bar label.
    #[test]
    fn a_phone_memory_legend_covers_no_bar_label() {
        let mem = TrainingMemory {
            params: Bytes(2e10),
            grads: Bytes(2e10),
            optimizer: Bytes(8e10),
            activations: Bytes(1e10),
        };
        let bars: Vec<(String, TrainingMemory)> = ["DP", "FSDP", "TP", "FSDP + TP"]
            .iter()
            .map(|l| (l.to_string(), mem))
            .collect();
        for (w, h) in [(267, 240), (320, 240), (390, 240)] {
            let mut out = String::new();
            {
                let root = SVGBackend::with_string(&mut out, (w, h)).into_drawing_area();
                draw_memory(&root, &bars, 9.5e10, false).unwrap();
                root.present().unwrap();
            }
            // Each text's top and baseline (plotters writes y at the baseline
            // less 0.76 em with dy; the rows only need to be apart).
            let texts: Vec<(String, i32, i32)> = out
                .split("<text")
                .skip(1)
                .filter_map(|t| {
                    let attr = |k: &str| -> Option<i32> {
                        let v = t.split(&format!(" {k}=\"")).nth(1)?.split('"').next()?;
                        v.parse::<f64>().ok().map(|v| v.round() as i32)
                    };
                    let body = t
                        .split('>')
                        .nth(1)?
                        .split("</text")
                        .next()?
                        .trim()
                        .to_string();
                    Some((body, attr("x")?, attr("y")?))
                })
                .collect();
            let legend: Vec<&(String, i32, i32)> = texts
                .iter()
                .filter(|t| {
                    ["parameters", "gradients", "optimizer", "activations"].contains(&t.0.as_str())
                })
                .collect();
            assert_eq!(legend.len(), 4, "{w} px: {texts:?}");
            for bar in texts.iter().filter(|t| t.0.contains(": ")) {
                for l in &legend {
                    assert!(
                        (bar.2 - l.2).abs() >= 14 || {
                            let (bw, _) = text_box(&bar.0, NOTE);
                            let (lw, _) = text_box(&l.0, TICK);
                            bar.1 + bw <= l.1 || l.1 + lw <= bar.1
                        },
                        "{w} px: legend “{}” at {:?} on “{}” at {:?}",
                        l.0,
                        (l.1, l.2),
                        bar.0,
                        (bar.1, bar.2)
                    );
                }
            }
        }
    }

    #[test]
    fn memory_bars_say_what_fits() {
        let small = TrainingMemory {
            params: Bytes(2e9),
            grads: Bytes(0.0),
            optimizer: Bytes(8e9),
            activations: Bytes(1e9),
        };
        let big = TrainingMemory {
            params: Bytes(1.4e11),
            ..small
        };
        let mut out = String::new();
        {
            let root = SVGBackend::with_string(&mut out, (760, 240)).into_drawing_area();
            draw_memory(
                &root,
                &[("FSDP".into(), small), ("DP".into(), big)],
                9.5e10,
                true,
            )
            .unwrap();
            root.present().unwrap();
        }
        assert!(out.contains("FSDP: 11 GB (fits)"), "{out}");
        assert!(out.contains("DP: 149 GB (does not fit)"));
        assert!(out.contains("HBM 95 GB"));
        assert!(out.contains("optimizer"));
    }

    /// The HBM label sat on the axis line: at every width, with a few bars or
    /// many, it stays off the axis, its own dashed line and every bar label.
    #[test]
    fn the_hbm_label_sits_clear() {
        use crate::charts::place::{segments, texts};
        let mem = |p: f64| TrainingMemory {
            params: Bytes(p),
            grads: Bytes(p),
            optimizer: Bytes(4.0 * p),
            activations: Bytes(p / 2.0),
        };
        let mut faults = Vec::new();
        for (w, h) in [(320, 240), (390, 260), (760, 260)] {
            for sizes in [
                &[1e9, 2e10][..],
                &[2e10, 2e10, 1e10, 4e9],
                &[5e10, 1e9, 3e9],
            ] {
                let bars: Vec<(String, TrainingMemory)> = sizes
                    .iter()
                    .enumerate()
                    .map(|(i, p)| (format!("plan {i}"), mem(*p)))
                    .collect();
                let mut out = String::new();
                {
                    let root = SVGBackend::with_string(&mut out, (w, h)).into_drawing_area();
                    draw_memory(&root, &bars, 9.6e10, false).unwrap();
                    root.present().unwrap();
                }
                let all = texts(&out);
                let Some((text, r)) = all.iter().find(|(t, _)| t.starts_with("HBM ")) else {
                    panic!("{w} px: no HBM label")
                };
                // The axis (the x axis is the one long horizontal line in
                // the text colour) and the HBM line's dashes.
                let lines: Vec<_> = segments(&out, r#"stroke-width="1""#)
                    .into_iter()
                    .chain(segments(&out, r#"stroke-width="2""#))
                    .filter(|(a, b)| (a.1 == b.1 && (b.0 - a.0).abs() > w as i32 / 2) || a.0 == b.0)
                    .filter(|(a, b)| a.0 != b.0 || (b.1 - a.1).abs() < 20)
                    .collect();
                for (a, b) in &lines {
                    if r.crosses(*a, *b) {
                        faults.push(format!("{w} px {sizes:?}: “{text}” {r:?} on {a:?}–{b:?}"));
                    }
                }
                for (t, o) in all.iter().filter(|(t, _)| t.starts_with("plan ")) {
                    if o.overlap(r) > 0 {
                        faults.push(format!("{w} px {sizes:?}: “{text}” on “{t}”"));
                    }
                }
            }
        }
        assert!(faults.is_empty(), "{}", faults.join("\n"));
    }
}

/// One strategy's ratio of FLOP time to communication time against tokens
/// per chip, and where it reaches one, if it does in view.
#[derive(Debug, Clone, PartialEq)]
pub struct RatioLine {
    /// Legend label.
    pub label: String,
    /// `(tokens per chip, T_math / T_comms)`.
    pub points: Vec<(f64, f64)>,
    /// Tokens per chip where the ratio is one.
    pub crossing: Option<f64>,
    /// Drawn dashed (an idealisation, not a split a mesh can take).
    pub dashed: bool,
}

/// The ratio chart's model: logarithmic in tokens per chip and in the ratio,
/// so that a ratio growing as `B` is a line of slope one and one growing as
/// `√B` a line of slope one half.
#[derive(Debug, Clone, PartialEq)]
pub struct RatioModel {
    /// The strategies, in legend order.
    pub lines: Vec<RatioLine>,
    /// Tokens-per-chip range.
    pub x: (f64, f64),
    /// Ratio range.
    pub y: (f64, f64),
    /// The reader's tokens per chip, marked by a vertical line.
    pub at: Option<f64>,
}

/// Draws the ratio of compute to communication time of each strategy against
/// tokens per chip: above one (the thick line) the strategy is compute-bound.
/// Each crossing of one is dotted and labelled with its tokens per chip.
pub fn draw_ratio<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    m: &RatioModel,
    dark: bool,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let pal = palette(dark);
    root.fill(&pal.background)?;
    let narrow = root.dim_in_pixel().0 < NARROW;
    let under = if narrow {
        legend_below_height(m.lines.len())
    } else {
        0
    };
    let mut chart = ChartBuilder::on(root)
        .margin(14)
        .margin_right(24)
        .margin_bottom(14 + under)
        .x_label_area_size(44)
        .y_label_area_size(70)
        .build_cartesian_2d((m.x.0..m.x.1).log_scale(), (m.y.0..m.y.1).log_scale())?;
    let (xr, yr) = chart.plotting_area().get_pixel_range();
    let mut placer = Placer::new(Rect::from_ranges(xr, yr));
    chart
        .configure_mesh()
        .x_desc(fit_text(root, "tokens per chip B / N", "tokens per chip"))
        .x_labels(if narrow { 4 } else { 8 })
        .y_desc(fit_text(
            root,
            "compute time / communication time",
            "compute / comms",
        ))
        .x_label_formatter(&|x| grouped(*x))
        .y_label_formatter(&|y| sci(*y, 2))
        .styled(&pal)
        .draw()?;
    // One: the line between communication- and compute-bound.
    let one = [(m.x.0, 1.0), (m.x.1, 1.0)];
    chart.draw_series(LineSeries::new(one, pal.text.stroke_width(2)))?;
    placer.avoid_line(&[chart.backend_coord(&one[0]), chart.backend_coord(&one[1])]);
    let mut legend = Vec::new();
    for (i, line) in m.lines.iter().enumerate() {
        let colour = pal.series[i % pal.series.len()];
        let pts: Vec<(f64, f64)> = line
            .points
            .iter()
            .copied()
            .filter(|p| p.1.is_finite() && p.1 > 0.0)
            .map(|(x, y)| (x, y.clamp(m.y.0, m.y.1)))
            .collect();
        let px: Vec<(i32, i32)> = pts.iter().map(|p| chart.backend_coord(p)).collect();
        placer.avoid_line(&px);
        if line.dashed {
            chart.draw_series(DashedLineSeries::new(pts, 6, 4, colour.stroke_width(2)))?;
            legend.push(Entry::new(line.label.clone(), colour, Mark::Dashed));
        } else {
            chart.draw_series(LineSeries::new(pts, colour.stroke_width(3)))?;
            legend.push(Entry::new(line.label.clone(), colour, Mark::Line(3)));
        }
    }
    for (i, line) in m.lines.iter().enumerate() {
        let colour = pal.series[i % pal.series.len()];
        if let Some(x) = line.crossing.filter(|x| *x > m.x.0 && *x < m.x.1) {
            chart.draw_series(std::iter::once(Circle::new((x, 1.0), 5, colour.filled())))?;
            let at = chart.backend_coord(&(x, 1.0));
            placer.avoid_point(at, 6);
            draw_label(root, &mut placer, at, &grouped(x.round()), NOTE, &colour, 8)?;
        }
    }
    if let Some(x) = m.at.filter(|x| *x > m.x.0 && *x < m.x.1) {
        let (top, foot) = (
            chart.backend_coord(&(x, m.y.1)),
            chart.backend_coord(&(x, m.y.0)),
        );
        root.draw(&plotters::element::DashedPathElement::new(
            vec![top, foot],
            4,
            4,
            pal.text.stroke_width(1),
        ))?;
    }
    if narrow {
        let top = px::legend_top(root.dim_in_pixel().1, under);
        draw_legend_below(root, &legend, (14, top), &pal)?;
    } else {
        let position = placer.legend_for(&legend);
        legend_on(&chart, &legend, position, &pal)?;
    }
    Ok(())
}
