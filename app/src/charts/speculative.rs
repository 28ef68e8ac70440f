//! Speculative sampling's speed-up against the draft length (the `speculative`
//! widget's drawing).

use crate::charts::palette;
use crate::charts::style::{fit_text, legend_on, Entry, Mark, Styled};
use plotters::coord::Shift;
use plotters::prelude::*;
use ridgeline_core::inference::serving::Speculative;

/// Everything the widget shows.
#[derive(Debug, Clone, PartialEq)]
pub struct SpecView {
    /// At the reader's draft length.
    pub at: Speculative,
    /// The best draft length and what it gives.
    pub best: (u32, Speculative),
    /// Tokens per target step in a seeded run (the widget's check).
    pub simulated: f64,
    /// `(k, tokens per step, speedup)` for k = 0 to the longest draft.
    pub curve: Vec<(u32, f64, f64)>,
}

/// Draws tokens per target step and the speed-up against the draft length
/// (0 to the curve's longest), with the reader's `draft` marked.
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    draft: u32,
    v: &SpecView,
) -> Option<()> {
    let max_draft = v.curve.last().map_or(0, |c| c.0);
    let pal = palette(false);
    root.fill(&pal.background).ok()?;
    let top = v
        .curve
        .iter()
        .map(|&(_, t, s)| t.max(s))
        .fold(1.0, f64::max)
        * 1.1;
    let mut chart = ChartBuilder::on(root)
        .margin(14)
        .x_label_area_size(46)
        .y_label_area_size(56)
        .build_cartesian_2d(-0.5..(f64::from(max_draft) + 0.5), 0.0..top)
        .ok()?;
    chart
        .configure_mesh()
        .x_desc(fit_text(
            root,
            "tokens drafted per round, k",
            "draft length k",
        ))
        .y_desc("per target step / speedup")
        .x_labels(max_draft as usize + 1)
        .x_label_formatter(&|x| format!("{}", x.round()))
        .y_label_formatter(&|y| format!("{y:.1}"))
        .styled(&pal)
        .light_line_style(pal.background)
        .draw()
        .ok()?;
    let (tok, speed) = (pal.series[0], pal.series[2]);
    chart
        .draw_series(LineSeries::new(
            v.curve.iter().map(|&(k, t, _)| (k as f64, t)),
            tok.stroke_width(3),
        ))
        .ok()?;
    chart
        .draw_series(LineSeries::new(
            v.curve.iter().map(|&(k, _, s)| (k as f64, s)),
            speed.stroke_width(3),
        ))
        .ok()?;
    let k = f64::from(draft);
    chart
        .draw_series([
            Circle::new((k, v.at.tokens_per_step), 7, tok.filled()),
            Circle::new((k, v.at.speedup), 7, speed.filled()),
        ])
        .ok()?;
    let legend = [
        Entry::new(
            fit_text(root, "tokens per target step", "tokens / step"),
            tok,
            Mark::Line(3),
        ),
        Entry::new("speedup", speed, Mark::Line(3)),
    ];
    legend_on(&chart, &legend, SeriesLabelPosition::UpperLeft, &pal).ok()?;
    Some(())
}
