//! Gradient checkpointing's policies as activation memory per chip against
//! extra FLOPs, with the chip's HBM as a line (the `remat` widget's drawing).

use crate::charts::palette;
use crate::charts::place::{draw_label, placer_for};
use crate::charts::style::{fit_text, log_ticks, Styled, NOTE};
use plotters::coord::Shift;
use plotters::prelude::*;
use ridgeline_core::format::si;
use ridgeline_core::model::remat::{Policy, PolicyCost};

/// A policy's label for readers.
pub fn label(p: Policy) -> &'static str {
    match p {
        Policy::None => "none",
        Policy::Selected => "selected activations",
        Policy::PerLayer => "per layer",
        Policy::Full => "full (√L segments)",
    }
}

/// A policy's label on a phone's plot: the first word, which still tells the
/// four policies apart (the table under the chart gives the full names).
pub fn short_label(p: Policy) -> &'static str {
    match p {
        Policy::None => "none",
        Policy::Selected => "selected",
        Policy::PerLayer => "per layer",
        Policy::Full => "full",
    }
}

/// Draws activation memory per chip (log) against extra FLOPs, one point per
/// policy with the `chosen` one ringed, the chip's `hbm` as a dashed line, and
/// with `vs` a second model's policies as rings joined by a dashed line.
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    rows: &[PolicyCost],
    chosen: Policy,
    hbm: f64,
    chip_name: &str,
    vs: Option<(&str, &[PolicyCost])>,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let pal = palette(false);
    root.fill(&pal.background)?;
    let xs: Vec<f64> = rows
        .iter()
        .chain(vs.iter().flat_map(|v| v.1))
        .map(|r| 100.0 * r.extra_share())
        .collect();
    let ys: Vec<f64> = rows
        .iter()
        .chain(vs.iter().flat_map(|v| v.1))
        .map(|r| r.activation_bytes.0)
        .collect();
    let x_max = xs.iter().copied().fold(10.0, f64::max) * 1.25;
    let lo = ys
        .iter()
        .copied()
        .chain([hbm])
        .fold(f64::INFINITY, f64::min)
        / 3.0;
    let hi = ys.iter().copied().chain([hbm]).fold(0.0, f64::max) * 3.0;
    let (lo, hi) = if lo.is_finite() && lo > 0.0 && hi > lo {
        (lo, hi)
    } else {
        (1.0, 10.0)
    };
    let ticks = log_ticks(lo, hi);
    let mut chart = ChartBuilder::on(root)
        .margin(14)
        .margin_right(24)
        .x_label_area_size(44)
        .y_label_area_size(74)
        .build_cartesian_2d(0.0..x_max, (lo..hi).log_scale().with_key_points(ticks))?;
    chart
        .configure_mesh()
        .x_desc(fit_text(
            root,
            "extra FLOPs (% of a step without recomputation)",
            "extra FLOPs (% of step)",
        ))
        .y_desc("activations per chip")
        .x_labels(6)
        .x_label_formatter(&|x| format!("{x:.0}%"))
        .y_label_formatter(&|y| si(*y, "B", 2))
        .styled(&pal)
        .draw()?;
    let hbm_line = [(0.0, hbm), (x_max, hbm)];
    chart.draw_series(DashedLineSeries::new(
        hbm_line,
        6,
        4,
        pal.text.stroke_width(1),
    ))?;
    let points: Vec<(f64, f64)> = xs.iter().copied().zip(ys.iter().copied()).collect();
    let (points, vs_points) = points.split_at(rows.len().min(points.len()));
    let mut placer = placer_for(&chart, &[&hbm_line[..], vs_points]);
    // The compared model: its four policies as rings joined by a dashed line,
    // the chosen one labelled with its name.
    if let Some((name, vs_rows)) = vs {
        let colour = pal.series[0];
        chart.draw_series(DashedLineSeries::new(
            vs_points.to_vec(),
            6,
            4,
            colour.stroke_width(2),
        ))?;
        for (row, &(x, y)) in vs_rows.iter().zip(vs_points) {
            let ring = if y <= hbm { pal.good } else { pal.bad };
            placer.avoid_point(chart.backend_coord(&(x, y)), 9);
            chart.draw_series(std::iter::once(Circle::new(
                (x, y),
                6,
                ring.stroke_width(3),
            )))?;
            if row.policy == chosen {
                let text = format!("{name}: {}", si(y, "B", 3));
                let at = chart.backend_coord(&(x, y));
                draw_label(root, &mut placer, at, &text, NOTE, &colour, 10)?;
            }
        }
    }
    for (row, &(x, y)) in rows.iter().zip(points) {
        let colour = if y <= hbm { pal.good } else { pal.bad };
        let anchor = chart.backend_coord(&(x, y));
        let radius = if row.policy == chosen { 9 } else { 6 };
        placer.avoid_point(anchor, radius + 2);
        chart.draw_series(std::iter::once(Circle::new(
            (x, y),
            radius,
            colour.filled(),
        )))?;
        if row.policy == chosen {
            chart.draw_series(std::iter::once(Circle::new(
                (x, y),
                radius + 4,
                pal.text.stroke_width(2),
            )))?;
        }
    }
    let hbm_text = format!("{chip_name} HBM {}", si(hbm, "B", 3));
    let at = chart.backend_coord(&(x_max * 0.7, hbm));
    draw_label(root, &mut placer, at, &hbm_text, NOTE, &pal.text, 4)?;
    for (row, &(x, y)) in rows.iter().zip(points) {
        let name = fit_text(root, label(row.policy), short_label(row.policy));
        let text = format!("{name}: {}", si(y, "B", 3));
        let at = chart.backend_coord(&(x, y));
        draw_label(root, &mut placer, at, &text, NOTE, &pal.text, 10)?;
    }
    Ok(())
}
