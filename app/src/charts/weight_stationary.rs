//! Weight-stationary serving of an MLP: its time against batch, blocking and
//! overlapped (the `weight-stationary` widget's drawing).

use super::px;
use crate::charts::palette;
use crate::charts::place::{draw_label, placer_for};
use crate::charts::style::{
    draw_legend_below, legend_below_height, log_ticks, Entry, Mark, Styled, NARROW, NOTE,
};
use plotters::coord::Shift;
use plotters::prelude::*;
use ridgeline_core::format::{grouped, seconds};
use ridgeline_core::inference::serving::{WeightStationaryPoint, WeightStationaryReport};

/// The legend's two entries, shortened on a `narrow` plot.
fn entries(pal: &crate::charts::Palette, narrow: bool) -> [Entry; 2] {
    let two_d = if narrow {
        "2D weight-stationary"
    } else {
        "2D weight-stationary, best split"
    };
    [
        Entry::new("1D (Megatron): 4BD/(3W)", pal.series[0], Mark::Line(3)),
        Entry::new(two_d, pal.series[1], Mark::Line(3)),
    ]
}

/// Everything the widget shows.
#[derive(Debug, Clone, PartialEq)]
pub struct WeightStationaryView {
    /// Both times at every power of two up to the slider's largest, and the crossover.
    pub report: WeightStationaryReport,
    /// The point at the reader's chip count.
    pub at: WeightStationaryPoint,
}

impl WeightStationaryView {
    /// Whether 2D communicates less at the reader's chip count.
    pub fn two_d_wins(&self) -> bool {
        self.at.two_d < self.at.one_d
    }
}

/// Draws both times against the chip count (log–log), the crossover and the
/// reader's chip count.
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    v: &WeightStationaryView,
    vs: Option<&(WeightStationaryView, &str)>,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let pal = palette(false);
    root.fill(&pal.background)?;
    let (width, height) = root.dim_in_pixel();
    let narrow = width < NARROW;
    let below = legend_below_height(if vs.is_some() { 4 } else { 2 });
    let pts = &v.report.points;
    let (Some(first), Some(last)) = (pts.first(), pts.last()) else {
        return Ok(());
    };
    let xs = (first.chips as f64 / 1.2, last.chips as f64 * 1.2);
    let all = pts
        .iter()
        .chain(vs.iter().flat_map(|(w, _)| &w.report.points));
    let (lo, hi) = all.fold((f64::INFINITY, 0.0f64), |(lo, hi), p| {
        (
            lo.min(p.one_d.0).min(p.two_d.0),
            hi.max(p.one_d.0).max(p.two_d.0),
        )
    });
    let ys = (lo / 1.5, hi * 1.5);
    let step = if narrow { 4 } else { 2 };
    let x_ticks: Vec<f64> = (1..=last.chips.max(2).ilog2())
        .step_by(step)
        .map(|k| 2f64.powi(px::coord(k) + 1))
        .filter(|x| *x <= xs.1)
        .collect();
    let mut chart = ChartBuilder::on(root)
        .margin(14)
        .margin_right(24)
        .margin_bottom(14 + below)
        .x_label_area_size(44)
        .y_label_area_size(70)
        .build_cartesian_2d(
            (xs.0..xs.1).log_scale().with_key_points(x_ticks),
            (ys.0..ys.1)
                .log_scale()
                .with_key_points(log_ticks(ys.0, ys.1)),
        )?;
    chart
        .configure_mesh()
        .x_desc("chips N")
        .y_desc("communication per layer")
        .x_label_formatter(&|x| grouped(x.round()))
        .y_label_formatter(&|y| seconds(*y))
        .styled(&pal)
        .draw()?;

    let one: Vec<(f64, f64)> = pts.iter().map(|p| (p.chips as f64, p.one_d.0)).collect();
    let two: Vec<(f64, f64)> = pts.iter().map(|p| (p.chips as f64, p.two_d.0)).collect();
    let mut placer = placer_for(&chart, &[one.as_slice(), two.as_slice()]);
    let [e1, e2] = entries(&pal, narrow);
    chart.draw_series(LineSeries::new(one, e1.colour.stroke_width(3)))?;
    chart.draw_series(LineSeries::new(two, e2.colour.stroke_width(3)))?;
    // The compared MLP: the same two curves, dashed, named in the legend.
    let mut legend = vec![e1, e2];
    if let Some((w, name)) = vs {
        for (i, scheme) in ["1D", "2D"].into_iter().enumerate() {
            let line: Vec<(f64, f64)> = w
                .report
                .points
                .iter()
                .map(|p| (p.chips as f64, if i == 0 { p.one_d.0 } else { p.two_d.0 }))
                .collect();
            let colour = pal.series[i];
            chart.draw_series(DashedLineSeries::new(line, 8, 5, colour.stroke_width(2)))?;
            legend.push(Entry::new(
                format!("{scheme}: {name}"),
                colour,
                Mark::Dashed,
            ));
        }
    }

    // Labels keep off the two vertical lines: the crossover and the reader's N.
    let x = v.at.chips as f64;
    let n = v.report.crossover;
    for at in [n, x] {
        placer.avoid_line(&[
            chart.backend_coord(&(at, ys.0)),
            chart.backend_coord(&(at, ys.1)),
        ]);
    }
    // The crossover: where 2D starts to communicate less.
    if n > xs.0 && n < xs.1 {
        let t = v.at.one_d.0;
        chart.draw_series(DashedLineSeries::new(
            vec![(n, ys.0), (n, ys.1)],
            5,
            4,
            pal.text.stroke_width(1),
        ))?;
        chart.draw_series(std::iter::once(Circle::new((n, t), 6, pal.text.filled())))?;
        let at = chart.backend_coord(&(n, t));
        placer.avoid_point(at, 7);
        // A phone's plot has no room for the long label between the two lines.
        let name = if narrow { "N" } else { "crossover N" };
        let text = format!("{name} = {}", grouped(n));
        draw_label(root, &mut placer, at, &text, NOTE, &pal.text, 6)?;
    }
    // The reader's chip count, coloured by which scheme wins there.
    let colour = if v.two_d_wins() { pal.good } else { pal.bad };
    chart.draw_series(DashedLineSeries::new(
        vec![(x, ys.0), (x, ys.1)],
        4,
        4,
        colour.stroke_width(2),
    ))?;
    chart.draw_series(
        [v.at.one_d.0, v.at.two_d.0]
            .into_iter()
            .map(|t| Circle::new((x, t), 6, colour.filled())),
    )?;
    let top = px::legend_top(height, below);
    draw_legend_below(root, &legend, (14, top), &pal)?;
    Ok(())
}
