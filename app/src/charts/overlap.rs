//! Compute time against communication time for the book's two-chip split
//! contraction, as the contracting dimension D grows (Part 1).

use plotters::coord::Shift;
use plotters::prelude::*;
use ridgeline_core::format::{grouped, sci, seconds};
use ridgeline_core::hardware::Link;
use ridgeline_core::roofline::SplitContraction;
use ridgeline_core::units::{BytesPerSec, FlopsPerSec};

use super::palette;
use super::place::{draw_label, placer_for};
use super::style::{
    draw_legend_below, fit_text, legend_below_height, legend_on, Entry, Mark, Styled, NARROW, NOTE,
};

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

fn samples(m: &OverlapModel) -> Vec<(f64, (f64, f64, f64, f64))> {
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

/// Entries of the legend with a compared chip.
const VS_ENTRIES: usize = 6;

/// The height kept under the plot for the legend: on a phone with a compared
/// chip its six entries would cover the plot, so they go below it.
fn legend_below<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, m: &OverlapModel) -> u32 {
    if m.vs.is_some() && root.dim_in_pixel().0 < NARROW {
        legend_below_height(VS_ENTRIES)
    } else {
        0
    }
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

/// Draws T_math, T_comms, their max (perfect overlap) and sum (none) against D,
/// and the crossover: everything that does not move with D.
pub fn draw_static<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    m: &OverlapModel,
    dark: bool,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let pal = palette(dark);
    root.fill(&pal.background)?;
    let series = samples(m);
    let mut chart = chart(root, m)?;
    chart
        .configure_mesh()
        .x_desc("contracting dimension D")
        .y_desc("time per chip")
        .x_label_formatter(&|x| sci(*x, 2))
        .y_label_formatter(&|y| seconds(*y))
        .styled(&pal)
        .draw()?;

    let line = |pick: fn(&(f64, f64, f64, f64)) -> f64| -> Vec<(f64, f64)> {
        series.iter().map(|(d, t)| (*d, pick(t))).collect()
    };
    let (c0, c1, c2) = (pal.series[0], pal.series[1], pal.text);
    let vs_series = m.vs_model().map(|v| samples(&v));
    let vs_line = |pick: fn(&(f64, f64, f64, f64)) -> f64| -> Vec<(f64, f64)> {
        vs_series
            .iter()
            .flatten()
            .map(|(d, t)| (*d, pick(t)))
            .collect()
    };
    let lines = [
        line(|t| t.0),
        line(|t| t.1),
        line(|t| t.3),
        line(|t| t.2),
        vs_line(|t| t.0),
        vs_line(|t| t.1),
    ];
    let mut placer = placer_for(&chart, &lines.each_ref().map(|l| l.as_slice()));
    chart.draw_series(LineSeries::new(line(|t| t.0), c0.stroke_width(3)))?;
    chart.draw_series(LineSeries::new(line(|t| t.1), c1.stroke_width(3)))?;
    chart.draw_series(DashedLineSeries::new(
        line(|t| t.3),
        6,
        4,
        c2.stroke_width(1),
    ))?;
    chart.draw_series(LineSeries::new(line(|t| t.2), c2.stroke_width(1)))?;
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
    if let (Some((name, _, _)), Some(v)) = (m.vs, m.vs_model()) {
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
        let dx = v.crossover();
        if dx > m.d_range.0 && dx < m.d_range.1 {
            let (tm, _, _, _) = v.times(dx);
            chart.draw_series(std::iter::once(Circle::new((dx, tm), 6, v1.filled())))?;
            let at = chart.backend_coord(&(dx, tm));
            placer.avoid_point(at, 7);
            let text = format!("{name}: D = {}", grouped(dx));
            draw_label(root, &mut placer, at, &text, NOTE, &pal.text, 6)?;
        }
    }

    let dx = m.crossover();
    if dx > m.d_range.0 && dx < m.d_range.1 {
        let (tm, _, _, _) = m.times(dx);
        chart.draw_series(std::iter::once(Circle::new((dx, tm), 6, pal.text.filled())))?;
        let text = format!("crossover D = {}", grouped(dx));
        let at = chart.backend_coord(&(dx, tm));
        placer.avoid_point(at, 7);
        draw_label(root, &mut placer, at, &text, NOTE, &pal.text, 6)?;
    }
    let below = legend_below(root, m);
    if below > 0 {
        let top = root.dim_in_pixel().1 as i32 - below as i32 - 4;
        draw_legend_below(root, &legend, (14, top), &pal)?;
    } else {
        let position = placer.legend_for(&legend);
        legend_on(&chart, &legend, position, &pal)?;
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
    chart.draw_series(DashedLineSeries::new(
        vec![(d, y_min), (d, y_max)],
        4,
        4,
        colour.stroke_width(2),
    ))?;
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
}
