//! Compute time against communication time for the book's two-chip split
//! contraction, as the contracting dimension D grows (Part 1).

use super::px;
use plotters::coord::Shift;
use plotters::prelude::*;
use ridgeline_core::format::{grouped, sci, seconds};
use ridgeline_core::hardware::Link;
use ridgeline_core::roofline::SplitContraction;
use ridgeline_core::units::{BytesPerSec, FlopsPerSec};

use super::palette;
use super::place::{placer_for, vertical_runs, Rect};
use super::style::{
    draw_legend_below, fit_text, font, legend_below_height, Entry, Mark, Styled, NARROW, NOTE,
};
use super::text::text_box;

/// What the chart needs: the chip's rates, the fixed dims and the current D.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OverlapModel {
    /// Peak FLOPs/s of each chip.
    pub c: f64,
    /// Link bandwidth between the two chips, bytes/s.
    pub w: f64,
    /// Token batch.
    pub b: f64,
    /// Output features.
    pub f: f64,
    /// Current contracting dimension.
    pub d: f64,
    /// D axis range.
    pub d_range: (f64, f64),
    /// A second chip drawn on the same axes: its name, peak and link bandwidth.
    pub vs: Option<(&'static str, f64, f64)>,
}

impl OverlapModel {
    /// The split contraction at dimension `d`.
    pub fn at(&self, d: f64) -> SplitContraction {
        SplitContraction {
            b: self.b,
            d,
            f: self.f,
        }
    }

    /// (T_math, T_comms, lower, upper) in seconds at dimension `d`.
    pub fn times(&self, d: f64) -> (f64, f64, f64, f64) {
        let a = self
            .at(d)
            .analyse(FlopsPerSec(self.c), Link::Ici, BytesPerSec(self.w));
        let comms = a.t_comms(Link::Ici).map(|t| t.0).unwrap_or(f64::NAN);
        (a.t_math.0, comms, a.lower.0, a.upper.0)
    }

    /// The same split on the compared chip, if there is one.
    pub fn vs_model(&self) -> Option<OverlapModel> {
        let (_, c, w) = self.vs?;
        Some(OverlapModel {
            c,
            w,
            vs: None,
            ..*self
        })
    }

    /// Where compute time overtakes communication time.
    pub fn crossover(&self) -> f64 {
        SplitContraction::critical_d(FlopsPerSec(self.c), BytesPerSec(self.w))
    }
}

/// `(T_math, T_comms, max, sum)` at one D (`OverlapModel::times`).
type Times = (f64, f64, f64, f64);

fn samples(m: &OverlapModel) -> Vec<(f64, Times)> {
    (0..=120)
        .map(|i| {
            (m.d_range.0.ln() + (m.d_range.1.ln() - m.d_range.0.ln()) * i as f64 / 120.0).exp()
        })
        .map(|d| (d, m.times(d)))
        .collect()
}

/// The time axis range: it depends on B, F and the chips, not on D.
fn y_range(m: &OverlapModel) -> (f64, f64) {
    let one = |m: &OverlapModel| {
        let (lo, tc, _, _) = m.times(m.d_range.0);
        let (_, _, _, hi) = m.times(m.d_range.1);
        (lo.min(tc), hi)
    };
    let (mut lo, mut hi) = one(m);
    if let Some((vlo, vhi)) = m.vs_model().map(|v| one(&v)) {
        (lo, hi) = (lo.min(vlo), hi.max(vhi));
    }
    (lo * 0.5, hi * 2.0)
}

/// Entries of the legend: the four times, and two more with a compared chip.
fn entries(m: &OverlapModel) -> usize {
    if m.vs.is_some() {
        6
    } else {
        4
    }
}

/// Columns of the legend under the plot: one on a phone, two on a wider chart.
fn columns<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>) -> usize {
    if root.dim_in_pixel().0 < NARROW {
        1
    } else {
        2
    }
}

/// The height kept under the plot for the legend. The legend is always
/// under the plot: the reader's D marker moves across the whole plot, and a
/// legend inside it had the marker running through its labels.
fn legend_below<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, m: &OverlapModel) -> u32 {
    legend_below_height(entries(m).div_ceil(columns(root)))
}

type Chart<'a, DB> = ChartContext<'a, DB, Cartesian2d<LogCoord<f64>, LogCoord<f64>>>;

fn chart<'a, DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    m: &OverlapModel,
) -> Result<Chart<'a, DB>, DrawingAreaErrorKind<DB::ErrorType>> {
    let (y_min, y_max) = y_range(m);
    ChartBuilder::on(root)
        .margin(14)
        .margin_bottom(14 + legend_below(root, m))
        .margin_right(24)
        .x_label_area_size(44)
        .y_label_area_size(70)
        .build_cartesian_2d(
            (m.d_range.0..m.d_range.1).log_scale(),
            (y_min..y_max).log_scale(),
        )
}

/// A crossover the static layer marks.
struct Crossover {
    /// The compared chip's (else this one's).
    compared: bool,
    /// `(D, time)` of the point.
    at: (f64, f64),
    /// Its label.
    text: String,
    /// The box the label takes, in pixels.
    label: Rect,
}

/// The crossovers the static layer marks, the compared chip's first, each
/// with its label placed clear of the series. Both layers compute them (the
/// moving marker is interrupted around the labels), so they are one function
/// of the model and the chart.
fn crossovers<DB: DrawingBackend>(chart: &Chart<'_, DB>, m: &OverlapModel) -> Vec<Crossover> {
    let lines = series_lines(m);
    let mut placer = placer_for(chart, &lines.each_ref().map(|l| l.as_slice()));
    let compared =
        m.vs.zip(m.vs_model())
            .map(|((name, _, _), v)| (true, v, format!("{name}: D = ")));
    let ours = (false, *m, "crossover D = ".to_string());
    let mut out = Vec::new();
    for (compared, model, prefix) in compared.into_iter().chain(std::iter::once(ours)) {
        let dx = model.crossover();
        if dx > m.d_range.0 && dx < m.d_range.1 {
            let (tm, _, _, _) = model.times(dx);
            let at = chart.backend_coord(&(dx, tm));
            placer.avoid_point(at, 7);
            let text = format!("{prefix}{}", grouped(dx));
            let label = placer.place(at, text_box(&text, NOTE), 6);
            out.push(Crossover {
                compared,
                at: (dx, tm),
                text,
                label,
            });
        }
    }
    out
}

/// The static layer's series: T_math, T_comms, the sum, the max, and the
/// compared chip's T_math and T_comms (empty without one).
fn series_lines(m: &OverlapModel) -> [Vec<(f64, f64)>; 6] {
    let series = samples(m);
    let vs_series = m.vs_model().map(|v| samples(&v)).unwrap_or_default();
    let line = |s: &[(f64, Times)], pick: fn(&Times) -> f64| {
        s.iter().map(|(d, t)| (*d, pick(t))).collect::<Vec<_>>()
    };
    [
        line(&series, |t| t.0),
        line(&series, |t| t.1),
        line(&series, |t| t.3),
        line(&series, |t| t.2),
        line(&vs_series, |t| t.0),
        line(&vs_series, |t| t.1),
    ]
}

/// Draws T_math, T_comms, their max (perfect overlap) and sum (none) against D,
/// and the crossover: everything that does not move with D.
pub fn draw_static<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    m: &OverlapModel,
    dark: bool,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let pal = palette(dark);
    root.fill(&pal.background)?;
    let mut chart = chart(root, m)?;
    chart
        .configure_mesh()
        .x_desc("contracting dimension D")
        .y_desc("time per chip")
        .x_label_formatter(&|x| sci(*x, 2))
        .y_label_formatter(&|y| seconds(*y))
        .styled(&pal)
        .draw()?;
    let lines = series_lines(m);
    let (c0, c1, c2) = (pal.series[0], pal.series[1], pal.text);
    chart.draw_series(LineSeries::new(lines[0].clone(), c0.stroke_width(3)))?;
    chart.draw_series(LineSeries::new(lines[1].clone(), c1.stroke_width(3)))?;
    chart.draw_series(DashedLineSeries::new(
        lines[2].clone(),
        6,
        4,
        c2.stroke_width(1),
    ))?;
    chart.draw_series(LineSeries::new(lines[3].clone(), c2.stroke_width(1)))?;
    let mut legend = vec![
        Entry::new("T_math (compute)", c0, Mark::Line(3)),
        Entry::new(
            fit_text(
                root,
                "T_comms (partial sums over the link)",
                "T_comms (link)",
            ),
            c1,
            Mark::Line(3),
        ),
        Entry::new("no overlap: sum", c2, Mark::Dashed),
        Entry::new("perfect overlap: max", c2, Mark::Line(1)),
    ];
    // The compared chip: its two times dashed in the same colours' partners.
    if let Some((name, _, _)) = m.vs {
        let (v0, v1) = (pal.series[4], pal.series[5]);
        chart.draw_series(DashedLineSeries::new(
            lines[4].clone(),
            8,
            5,
            v0.stroke_width(3),
        ))?;
        chart.draw_series(DashedLineSeries::new(
            lines[5].clone(),
            8,
            5,
            v1.stroke_width(3),
        ))?;
        legend.push(Entry::new(format!("{name}: T_math"), v0, Mark::Dashed));
        legend.push(Entry::new(format!("{name}: T_comms"), v1, Mark::Dashed));
    }
    for c in crossovers(&chart, m) {
        // The compared chip's crossover in its T_comms colour, ours in the text's.
        let dot = if c.compared { pal.series[5] } else { pal.text };
        chart.draw_series(std::iter::once(Circle::new(c.at, 6, dot.filled())))?;
        let at = (c.label.x0 + 2, c.label.y0);
        root.draw(&Text::new(c.text, at, font(NOTE, &pal.text)))?;
    }
    let (width, height) = root.dim_in_pixel();
    let top = px::legend_top(height, legend_below(root, m));
    let per = legend.len().div_ceil(columns(root));
    for (i, column) in legend.chunks(per.max(1)).enumerate() {
        let x = 14 + px::coord(i) * (px::coord(width) - 14) / px::coord(columns(root));
        draw_legend_below(root, column, (x, top), &pal)?;
    }
    Ok(())
}

/// Draws the current D: a vertical marker and the two times, on a transparent
/// layer over the static chart.
pub fn draw_marker<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    m: &OverlapModel,
    dark: bool,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let pal = palette(dark);
    let (y_min, y_max) = y_range(m);
    let mut chart = chart(root, m)?;
    let d = m.d.clamp(m.d_range.0, m.d_range.1);
    let (tm, tc, _, _) = m.times(d);
    let colour = if tm >= tc { pal.good } else { pal.bad };
    // The marker is interrupted around the static layer's labels.
    let (x, top) = chart.backend_coord(&(d, y_max));
    let bottom = chart.backend_coord(&(d, y_min)).1;
    let labels: Vec<Rect> = crossovers(&chart, m).iter().map(|c| c.label).collect();
    for (y0, y1) in vertical_runs(x, top, bottom, &labels, 2) {
        root.draw(&plotters::element::DashedPathElement::new(
            vec![(x, y0), (x, y1)],
            4,
            4,
            colour.stroke_width(2),
        ))?;
    }
    chart.draw_series(
        [tm, tc]
            .into_iter()
            .map(|t| Circle::new((d, t), 6, colour.filled())),
    )?;
    // The compared chip's two times at the same D, as rings.
    if let Some(v) = m.vs_model() {
        let (tm, tc, _, _) = v.times(d);
        let colour = if tm >= tc { pal.good } else { pal.bad };
        chart.draw_series(
            [tm, tc]
                .into_iter()
                .map(|t| Circle::new((d, t), 6, colour.stroke_width(3))),
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use plotters_svg::SVGBackend;

    #[test]
    fn marks_the_book_crossover() {
        let m = OverlapModel {
            c: 1.97e14,
            w: 4.5e10,
            b: 1024.0,
            f: 8192.0,
            d: 4096.0,
            d_range: (256.0, 1048576.0),
            vs: None,
        };
        assert!((m.crossover() - 8755.6).abs() < 1.0);
        let (tm, tc, lo, hi) = m.times(4096.0);
        assert!(tm < tc && lo == tc && (hi - (tm + tc)).abs() < 1e-15);
        let mut out = String::new();
        {
            let root = SVGBackend::with_string(&mut out, (720, 380)).into_drawing_area();
            draw_static(&root, &m, false).unwrap();
            draw_marker(&root, &m, false).unwrap();
            root.present().unwrap();
        }
        assert!(out.contains("crossover D = 8,756"));
        assert!(out.contains("T_math (compute)"));
    }

    /// The reader's D marker ran through the legend on a phone: wherever D
    /// is, at phone and desktop widths, no text of the chart is crossed by
    /// the marker or by a series line.
    #[test]
    fn the_marker_and_the_lines_cross_no_text() {
        use crate::charts::place::{segments, texts};
        let mut faults = Vec::new();
        for (w, h) in [(320, 380), (390, 380), (760, 424)] {
            for d in [300.0, 2048.0, 4096.0, 65536.0, 1e6] {
                let m = OverlapModel {
                    c: 1.97e14,
                    w: 4.5e10,
                    b: 1024.0,
                    f: 8192.0,
                    d,
                    d_range: (256.0, 1048576.0),
                    vs: None,
                };
                let mut out = String::new();
                {
                    let root = SVGBackend::with_string(&mut out, (w, h)).into_drawing_area();
                    draw_static(&root, &m, false).unwrap();
                    draw_marker(&root, &m, false).unwrap();
                    root.present().unwrap();
                }
                let lines = [
                    segments(&out, r#"stroke-width="2""#),
                    segments(&out, r#"stroke-width="3""#),
                ]
                .concat();
                for (t, r) in texts(&out) {
                    // A legend entry's own mark is drawn beside its text.
                    if let Some((a, b)) = lines.iter().find(|(a, b)| r.crosses(*a, *b)) {
                        faults.push(format!("{w} px, D = {d}: “{t}” {r:?} on {a:?}–{b:?}"));
                    }
                }
            }
        }
        assert!(faults.is_empty(), "{}", faults.join("\n"));
    }
}
