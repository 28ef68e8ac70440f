//! Step time against chip count for a fixed training step (Part 0, "Why
//! should you care?"): compute falls as one over the chips, the gradient
//! AllReduce does not, and the step is the forward pass plus the larger of the
//! backward pass and the AllReduce. A dashed vertical line marks where the
//! chip's largest ICI domain ends and DCN joins the slices.

use plotters::coord::Shift;
use plotters::prelude::*;
use ridgeline_core::format::{grouped, seconds};
use ridgeline_core::roofline::strong_scaling::ScalingRow;

use super::palette;
use super::place::{draw_label, placer_for};
use super::style::{fit_text, legend_on, Entry, Mark, Styled, NOTE};

/// One line of the chart: its legend, the time it draws for a row, its colour.
type Line = (&'static str, fn(&ScalingRow) -> f64, RGBColor);

/// Compute, backward pass, communication and step time of each row, and the
/// chosen row marked; `domain`, the chips of the largest ICI domain, drawn as
/// a vertical line when it falls inside the rows; a compared chip's rows (`vs`:
/// its name and rows) add its step time, dashed, on the same axes.
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    rows: &[ScalingRow],
    chosen: u32,
    domain: Option<u32>,
    vs: Option<(&str, &[ScalingRow])>,
    dark: bool,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let pal = palette(dark);
    root.fill(&pal.background)?;
    let times = rows
        .iter()
        .chain(vs.iter().flat_map(|v| v.1))
        .flat_map(|r| [r.compute.0, r.comms.0, r.step.0])
        .filter(|t| t.is_finite() && *t > 0.0);
    let (lo, hi) = times.fold((f64::INFINITY, 0.0f64), |(a, b), t| (a.min(t), b.max(t)));
    let (y_min, y_max) = if lo.is_finite() && hi > lo {
        (lo * 0.5, hi * 2.0)
    } else {
        (1e-3, 1.0)
    };
    let x_max = rows.last().map_or(2.0, |r| f64::from(r.chips.max(2)));
    let mut chart = ChartBuilder::on(root)
        .margin(14)
        .margin_right(24)
        .x_label_area_size(44)
        .y_label_area_size(70)
        .build_cartesian_2d((1.0..x_max).log_scale(), (y_min..y_max).log_scale())?;
    chart
        .configure_mesh()
        .x_desc("chips")
        .y_desc("time per step")
        .x_label_formatter(&|x| grouped(*x))
        .y_label_formatter(&|y| seconds(*y))
        .styled(&pal)
        .draw()?;
    // The backward pass (what the AllReduce hides behind) is a fixed share
    // of the compute line, so the widget states it in words: a fourth line
    // left no corner of a phone-width chart free for the legend.
    let lines: [Line; 3] = [
        ("compute per chip", |r| r.compute.0, pal.series[0]),
        ("gradient AllReduce", |r| r.comms.0, pal.series[1]),
        ("step", |r| r.step.0, pal.text),
    ];
    let mut legend = Vec::new();
    let mut drawn = Vec::new();
    for (label, get, colour) in lines {
        let pts: Vec<(f64, f64)> = rows
            .iter()
            .map(|r| (f64::from(r.chips), get(r)))
            .filter(|(_, t)| t.is_finite() && *t > 0.0)
            .collect();
        chart.draw_series(LineSeries::new(pts.clone(), colour.stroke_width(3)))?;
        legend.push(Entry::new(label, colour, Mark::Line(3)));
        drawn.push(pts);
    }
    if let Some((name, vs_rows)) = vs {
        let colour = pal.series[5];
        let pts: Vec<(f64, f64)> = vs_rows
            .iter()
            .map(|r| (f64::from(r.chips), r.step.0))
            .filter(|(_, t)| t.is_finite() && *t > 0.0)
            .collect();
        chart.draw_series(DashedLineSeries::new(
            pts.clone(),
            8,
            5,
            colour.stroke_width(3),
        ))?;
        legend.push(Entry::new(format!("{name}: step"), colour, Mark::Dashed));
        if let Some(r) = vs_rows.iter().find(|r| r.chips == chosen) {
            chart.draw_series(std::iter::once(Circle::new(
                (f64::from(r.chips), r.step.0),
                7,
                colour.stroke_width(3),
            )))?;
        }
        drawn.push(pts);
    }
    if let Some(r) = rows.iter().find(|r| r.chips == chosen) {
        let colour = if r.efficiency >= 0.999 {
            pal.good
        } else {
            pal.bad
        };
        chart.draw_series(std::iter::once(Circle::new(
            (f64::from(r.chips), r.step.0),
            7,
            colour.filled(),
        )))?;
    }
    // The legend goes to the corner the lines (and so the marked point on
    // the step line) leave free: on a phone the upper right is crossed by them.
    let lines: Vec<&[(f64, f64)]> = drawn.iter().map(Vec::as_slice).collect();
    let mut placer = placer_for(&chart, &lines);
    if let Some(d) = domain.map(f64::from).filter(|&d| d > 1.0 && d < x_max) {
        chart.draw_series(DashedLineSeries::new(
            vec![(d, y_min), (d, y_max)],
            5,
            4,
            pal.text.stroke_width(1),
        ))?;
        let edge = [(d, y_min), (d, y_max)].map(|p| chart.backend_coord(&p));
        placer.avoid_line(&edge);
        let text = fit_text(root, "ICI domain ends: DCN beyond", "ICI domain ends");
        let at = chart.backend_coord(&(d, y_max / 3.0));
        draw_label(root, &mut placer, at, text, NOTE, &pal.text, 6)?;
    }
    let at = placer.legend_for(&legend);
    legend_on(&chart, &legend, at, &pal)?;
    Ok(())
}
