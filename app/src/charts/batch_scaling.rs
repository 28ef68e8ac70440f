//! Appendix A's layer against the batch (the `batch-scaling` widget's
//! drawing): time per layer above, throughput below, the critical batch where
//! both bend, and the reader's batch.

use crate::charts::palette;
use crate::charts::style::{font, Styled, NARROW, NOTE};
use plotters::coord::Shift;
use plotters::prelude::*;
use ridgeline_core::format::{grouped, sci, seconds};
use ridgeline_core::inference::serving::BatchScalingPoint;

/// Everything the widget shows.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchScalingView {
    /// The layer at every batch drawn, in order.
    pub points: Vec<BatchScalingPoint>,
    /// The layer at the reader's batch.
    pub at: BatchScalingPoint,
    /// The first batch drawn at which the layer is compute-bound.
    pub knee: f64,
}

/// One panel: its axis title, the value it plots and its tick format.
type Panel = (
    &'static str,
    fn(&BatchScalingPoint) -> f64,
    fn(&f64) -> String,
);

/// Draws the time per layer (top) and tokens per second (bottom) against the
/// batch, the critical batch as a dashed line in both, and the reader's batch.
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    v: &BatchScalingView,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let pal = palette(false);
    root.fill(&pal.background)?;
    let Some(last) = v.points.last() else {
        return Ok(());
    };
    let xs = 0.0..last.batch;
    let panels = root.split_evenly((2, 1));
    let series: [Panel; 2] = [
        ("time per layer", |p| p.time.0, |y| seconds(*y)),
        ("tokens per second", |p| p.tokens_per_sec, |y| sci(*y, 2)),
    ];
    for (i, (panel, (desc, y, fmt))) in panels.iter().zip(series).enumerate() {
        let top = v.points.iter().map(y).fold(0.0, f64::max) * 1.15;
        let mut chart = ChartBuilder::on(panel)
            .margin(10)
            .margin_right(24)
            .x_label_area_size(if i == 1 { 40 } else { 22 })
            .y_label_area_size(74)
            .build_cartesian_2d(xs.clone(), 0.0..top)?;
        let mut mesh = chart.configure_mesh();
        mesh.y_desc(desc)
            .y_labels(4)
            .x_labels(6)
            .x_label_formatter(&|x| grouped(*x))
            .y_label_formatter(&fmt)
            .styled(&pal)
            .light_line_style(pal.background);
        if i == 1 {
            mesh.x_desc("batch B (tokens)");
        }
        mesh.draw()?;
        let colour = pal.series[i];
        chart.draw_series(LineSeries::new(
            v.points.iter().map(|p| (p.batch, y(p))),
            colour.stroke_width(3),
        ))?;
        // The critical batch: flat (or climbing) to its left, bent to its right.
        chart.draw_series(DashedLineSeries::new(
            vec![(v.knee, 0.0), (v.knee, top)],
            5,
            4,
            pal.text.stroke_width(1),
        ))?;
        if i == 0 {
            // Named once, in the top panel, where the curve is low at the line.
            let (kx, ky) = chart.backend_coord(&(v.knee, top));
            root.draw(&Text::new(
                if root.dim_in_pixel().0 < NARROW {
                    // A phone's plot has no room for the long label right of the line.
                    format!("B ≈ {}", grouped(v.knee))
                } else {
                    format!("critical batch ≈ {}", grouped(v.knee))
                },
                (kx + 6, ky + 4),
                font(NOTE, &pal.text),
            ))?;
        }
        chart.draw_series(std::iter::once(Circle::new(
            (v.at.batch, y(&v.at)),
            6,
            colour.filled(),
        )))?;
    }
    Ok(())
}
