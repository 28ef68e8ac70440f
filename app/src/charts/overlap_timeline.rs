//! Part 10's collective matmul as two timelines, blocking and overlapped (the
//! `overlap-timeline` widget's drawing).

use crate::charts::palette;
use crate::charts::place::{draw_label, placer_for};
use crate::charts::style::Styled;
use crate::charts::style::{lane_at, NOTE};
use plotters::coord::Shift;
use plotters::prelude::*;
use ridgeline_core::comms::overlap_timeline::{OverlapReport, Work};
use ridgeline_core::format::grouped;

/// The four lanes, top to bottom: each version's communication and matmul.
const LANES: [&str; 4] = [
    "blocking: comms",
    "blocking: matmul",
    "overlapped: comms",
    "overlapped: matmul",
];

/// Draws both versions' lanes on one time axis (µs), with each version's end
/// and, with `vs` (a second chip's report and name), where its versions end.
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    r: &OverlapReport,
    vs: Option<&(OverlapReport, &str)>,
) -> Option<()> {
    let pal = palette(false);
    root.fill(&pal.background).ok()?;
    let us = |s: f64| s * 1e6;
    let ends = |r: &OverlapReport| r.blocking.total.0.max(r.overlapped.total.0);
    let end = us(ends(r).max(vs.map_or(0.0, |(v, _)| ends(v)))) * 1.04;
    let mut chart = ChartBuilder::on(root)
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(140)
        .build_cartesian_2d(0.0..end.max(1e-3), 0.0..4.0)
        .ok()?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(9)
        .y_label_formatter(&|y: &f64| {
            lane_at(*y, LANES.len())
                .map_or_else(String::new, |i| LANES[LANES.len() - 1 - i].to_string())
        })
        .x_desc("time (µs)")
        .x_label_formatter(&|x| grouped(*x))
        .styled(&pal)
        .light_line_style(pal.background)
        .draw()
        .ok()?;
    let lane_of = |blocking: bool, w: Work| -> f64 {
        let top = if blocking { 3.0 } else { 1.0 };
        if w == Work::Matmul {
            top - 1.0
        } else {
            top
        }
    };
    let colour = |w: Work| match w {
        Work::Matmul => pal.series[0],
        Work::AllGather => pal.bad,
        Work::Ppermute => pal.series[1],
    };
    let spans = r
        .blocking
        .spans
        .iter()
        .map(|s| (true, s))
        .chain(r.overlapped.spans.iter().map(|s| (false, s)));
    chart
        .draw_series(spans.map(|(blocking, s)| {
            let lane = lane_of(blocking, s.work);
            Rectangle::new(
                [(us(s.start.0), lane + 0.15), (us(s.end.0), lane + 0.85)],
                ShapeStyle::from(colour(s.work)).filled(),
            )
        }))
        .ok()?;
    // Separators between consecutive loop steps.
    chart
        .draw_series(r.overlapped.spans.iter().map(|s| {
            let lane = lane_of(false, s.work);
            PathElement::new(
                vec![(us(s.start.0), lane + 0.15), (us(s.start.0), lane + 0.85)],
                pal.background.stroke_width(2),
            )
        }))
        .ok()?;
    // Each version's end.
    for (t, lane) in [(r.blocking.total.0, 2.0), (r.overlapped.total.0, 0.0)] {
        chart
            .draw_series([PathElement::new(
                vec![(us(t), lane), (us(t), lane + 2.0)],
                pal.text.stroke_width(2),
            )])
            .ok()?;
    }
    // Where each version ends on the compared chip: dashed, named.
    if let Some((v, name)) = vs {
        let mut placer = placer_for(&chart, &[]);
        for (t, lane) in [(v.blocking.total.0, 2.0), (v.overlapped.total.0, 0.0)] {
            chart
                .draw_series(DashedLineSeries::new(
                    vec![(us(t), lane), (us(t), lane + 2.0)],
                    5,
                    4,
                    pal.bad.stroke_width(2),
                ))
                .ok()?;
            let at = chart.backend_coord(&(us(t), lane + 1.0));
            draw_label(root, &mut placer, at, name, NOTE, &pal.bad, 4).ok()?;
        }
    }
    Some(())
}
