//! A serving engine's timeline: each lane's prefills and decode steps over time
//! (the `serving-engine` widget's drawing).

use super::px;
use crate::charts::style::{lane_at, Styled};
use crate::charts::{palette, svg};
use plotters::coord::Shift;
use plotters::prelude::*;
use ridgeline_core::format::grouped;
use ridgeline_core::inference::serving_engine::{Role, SimReport};

/// The height of one replica's lane (SVG user units).
const LANE_H: u32 = 46;

/// Each lane's name, numbered within its role (`replica 1`, `prefill 2`).
pub(crate) fn lane_labels(lanes: &[Role]) -> Vec<String> {
    let mut seen = [0u32; 3];
    lanes
        .iter()
        .map(|r| {
            let (i, name) = match r {
                Role::Both => (0, "replica"),
                Role::Prefill => (1, "prefill"),
                Role::Decode => (2, "generate"),
            };
            seen[i] += 1;
            format!("{name} {}", seen[i])
        })
        .collect()
}

/// The timeline as inline SVG: one lane per replica over the report's window,
/// prefills full height, decode steps as tall as their batch is full.
pub fn timeline_svg(report: &SimReport, max_batch: u64, width: u32) -> String {
    let t = &report.timeline;
    let lanes = px::length(t.lanes.len().max(1));
    let height = 70 + LANE_H * lanes;
    svg(width, height, |root| draw_timeline(root, report, max_batch))
        .0
        .to_string()
}

fn draw_timeline<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    report: &SimReport,
    max_batch: u64,
) -> Option<()> {
    let pal = palette(false);
    root.fill(&pal.background).ok()?;
    let t = &report.timeline;
    let ms = |s: f64| s * 1e3;
    let (x0, x1) = (ms(t.from.0), ms(t.to.0));
    let n = t.lanes.len().max(1);
    let labels = lane_labels(&t.lanes);
    let mut chart = ChartBuilder::on(root)
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(96)
        .build_cartesian_2d(x0..x1, 0.0..n as f64)
        .ok()?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(n * 2 + 1)
        .y_label_formatter(&|y: &f64| {
            // Label each lane at its middle.
            lane_at(*y, n).map_or_else(String::new, |i| labels[n - 1 - i].clone())
        })
        .x_desc("time in the run (ms)")
        // Ten ticks 50 ms apart collide on a phone ("10,35010,400…").
        .x_labels(if root.dim_in_pixel().0 < crate::charts::style::NARROW {
            4
        } else {
            10
        })
        .x_label_formatter(&|x| grouped(x.round()))
        .styled(&pal)
        .light_line_style(pal.grid)
        .draw()
        .ok()?;
    let (prefill, decode) = (pal.series[1], pal.series[0]);
    // Each box starts one pixel after its step does, so consecutive steps stay
    // distinct without a separator line per step (half the SVG elements to
    // rebuild on every slider step).
    let plot_px = f64::from(chart.plotting_area().dim_in_pixel().0.max(1));
    let gap = (x1 - x0) / plot_px;
    let boxes = t.spans.iter().map(|s| {
        let lane = (n - 1 - s.lane as usize) as f64;
        let (a, b) = (ms(s.start.0).max(x0), ms(s.start.0 + s.duration.0).min(x1));
        let a = (a + gap).min(b);
        let fill = if s.prefill {
            0.84
        } else {
            0.84 * (s.size as f64 / max_batch.max(1) as f64).min(1.0)
        };
        let colour = if s.prefill { prefill } else { decode };
        Rectangle::new(
            [(a, lane + 0.08), (b, lane + 0.08 + fill.max(0.04))],
            ShapeStyle::from(colour).filled(),
        )
    });
    chart.draw_series(boxes).ok()?;
    Some(())
}
