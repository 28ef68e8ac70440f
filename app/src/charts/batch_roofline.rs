//! Attainable FLOPs/s against the batch on linear axes, for two matmul shapes
//! on one chip (Part 1, Question 3, the `batch-roofline` widget): each curve
//! rises until it meets the chip's peak, where a ring marks it with its
//! batch; a thin vertical line marks the batch the reader chose, with each
//! curve's point there coloured by its verdict.

use plotters::coord::Shift;
use plotters::prelude::*;
use ridgeline_core::format::{grouped, sci};

use super::palette;
use super::place::{draw_label, placer_for, vertical_runs};
use super::style::{fit_text, legend_on, Entry, Mark, Styled, NARROW, NOTE};

/// One matmul's curve as the chart draws it.
#[derive(Debug, Clone, PartialEq)]
pub struct Curve {
    /// Its legend entry (the shape).
    pub label: String,
    /// `(batch, FLOPs/s)` points, batches increasing.
    pub points: Vec<(f64, f64)>,
    /// The batch where it meets the peak, if within the range.
    pub crossing: Option<f64>,
    /// Its rate at the chosen batch, and whether that is compute-bound.
    pub chosen: (f64, bool),
}

/// Everything the chart draws.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchModel {
    /// The chip's peak for the format: the roof, FLOPs/s.
    pub peak: f64,
    /// The batch axis runs from 0 to this.
    pub b_max: f64,
    /// The batch the reader chose.
    pub b: f64,
    /// The curves, drawn in palette order.
    pub curves: Vec<Curve>,
}

/// Draws `model` on `root`.
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    model: &BatchModel,
    dark: bool,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let pal = palette(dark);
    root.fill(&pal.background)?;
    let (b_max, peak) = (model.b_max, model.peak);
    let y_max = peak * 1.12;
    // A phone's plot is narrow: fewer batch ticks, and legend labels without
    // the spaces around their equals signs.
    let narrow = root.dim_in_pixel().0 < NARROW;
    let mut chart = ChartBuilder::on(root)
        .margin(14)
        .margin_right(if narrow { 14 } else { 24 })
        .x_label_area_size(44)
        .y_label_area_size(if narrow { 62 } else { 70 })
        .build_cartesian_2d(0.0..b_max, 0.0..y_max)?;
    chart
        .configure_mesh()
        .x_desc(fit_text(root, "batch B (tokens)", "batch B"))
        .y_desc(fit_text(root, "attainable FLOPs/s", "FLOPs/s"))
        .x_labels(if narrow { 4 } else { 6 })
        .y_labels(6)
        .x_label_formatter(&|x| grouped(*x))
        .y_label_formatter(&|y| sci(*y, 2))
        .styled(&pal)
        .draw()?;
    // The roof, thin and dashed under the curves that run along it.
    chart.draw_series(DashedLineSeries::new(
        vec![(0.0, peak), (b_max, peak)],
        6,
        4,
        pal.text.stroke_width(1),
    ))?;
    let mut legend = Vec::new();
    let mut lines: Vec<&[(f64, f64)]> = Vec::new();
    for (curve, colour) in model.curves.iter().zip(pal.series) {
        chart.draw_series(LineSeries::new(
            curve.points.iter().copied(),
            colour.stroke_width(3),
        ))?;
        let label = if narrow {
            curve.label.replace(" = ", "=")
        } else {
            curve.label.clone()
        };
        legend.push(Entry::new(label, colour, Mark::Line(3)));
        lines.push(&curve.points);
    }
    let mut placer = placer_for(&chart, &lines);
    let roof_px = [(0.0, peak), (b_max, peak)].map(|p| chart.backend_coord(&p));
    placer.avoid_line(&roof_px);
    // Each crossing: a ring on the roof and its batch beside it.
    for (curve, colour) in model.curves.iter().zip(pal.series) {
        let Some(c) = curve.crossing.filter(|&c| c <= b_max) else {
            continue;
        };
        let at = chart.backend_coord(&(c, peak));
        root.draw(&Circle::new(at, 6, colour.stroke_width(3)))?;
        placer.avoid_point(at, 7);
        draw_label(
            root,
            &mut placer,
            at,
            &format!("B ≈ {}", sci(c, 3)),
            NOTE,
            &pal.text,
            6,
        )?;
    }
    // The chosen batch: a vertical line, broken around the labels, and each
    // curve's point on it in its verdict's colour.
    let b = model.b.clamp(0.0, b_max);
    let (x, top) = chart.backend_coord(&(b, y_max));
    let (_, bottom) = chart.backend_coord(&(b, 0.0));
    for (y0, y1) in vertical_runs(x, top, bottom, placer.taken(), 3) {
        root.draw(&PathElement::new(
            vec![(x, y0), (x, y1)],
            pal.text.mix(0.6).stroke_width(1),
        ))?;
    }
    for curve in &model.curves {
        let (rate, compute) = curve.chosen;
        let colour = if compute { pal.good } else { pal.bad };
        root.draw(&Circle::new(
            chart.backend_coord(&(b, rate)),
            5,
            colour.filled(),
        ))?;
    }
    let at = placer.legend_for(&legend);
    legend_on(&chart, &legend, at, &pal)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::charts::svg;

    fn model() -> BatchModel {
        let ramp = |slope: f64| -> Vec<(f64, f64)> {
            (0..=8)
                .map(|i| f64::from(i) * 64.0)
                .map(|b| (b, (slope * b).min(2e14)))
                .collect()
        };
        BatchModel {
            peak: 2e14,
            b_max: 512.0,
            b: 192.0,
            curves: vec![
                Curve {
                    label: "first".into(),
                    points: ramp(2e12),
                    crossing: Some(100.0),
                    chosen: (2e14, true),
                },
                Curve {
                    label: "second".into(),
                    points: ramp(1e12),
                    crossing: Some(200.0),
                    chosen: (1.92e14, false),
                },
            ],
        }
    }

    #[test]
    fn draws_both_curves_their_crossings_and_the_chosen_batch() {
        let (s, ok) = svg(760, 440, |root| draw(root, &model(), false).is_ok());
        assert!(ok);
        let pal = palette(false);
        for colour in [pal.series[0], pal.series[1]] {
            let c = crate::charts::svg_colour(colour);
            assert!(s.contains(&format!("stroke=\"{c}\"")), "no {c} in {s}");
        }
        for text in ["B ≈ 100", "B ≈ 200", "first", "second", "batch B (tokens)"] {
            assert!(s.contains(text), "{text} missing: {s}");
        }
        // One point per curve at the chosen batch, in its verdict's colour.
        assert!(s.contains(&crate::charts::svg_colour(pal.good)));
        assert!(s.contains(&crate::charts::svg_colour(pal.bad)));
        assert!(!s.contains("NaN"));
    }

    #[test]
    fn a_crossing_beyond_the_range_is_not_marked() {
        let mut m = model();
        m.b_max = 150.0;
        let (s, _) = svg(760, 440, |root| draw(root, &m, false));
        assert!(s.contains("B ≈ 100") && !s.contains("B ≈ 200"), "{s}");
    }
}
