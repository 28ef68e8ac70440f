//! A trace viewer for the synthetic profile of Part 9: one row per lane
//! (TensorCore, ICI, ...), each op a bar from its start to its end coloured by
//! kind, a dashed marker at the step time the roofline budgets, and a legend.

use super::px;
use plotters::coord::Shift;
use plotters::prelude::*;
use ridgeline_core::format::seconds;
use ridgeline_core::profiling::trace::{Lane, OpKind, StepTrace};

use super::place::{vertical_runs, Rect};
use super::style::{font, Styled, NOTE, TICK};
use super::text::text_box;
use super::{palette, Palette};

/// What the chart shows: a timeline, its budget and the time axis.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceModel {
    /// The ops laid out in time.
    pub timeline: StepTrace,
    /// The budgeted end of the timeline, seconds.
    pub budget: f64,
    /// Right end of the time axis, seconds (kept fixed while overlap is toggled).
    pub x_max: f64,
    /// Lanes to draw, top to bottom (always TensorCore and ICI).
    pub lanes: Vec<Lane>,
}

impl TraceModel {
    /// A model of `timeline` with its `budget`, on an axis reaching `x_max`.
    pub fn new(timeline: StepTrace, budget: f64, x_max: f64) -> TraceModel {
        let mut lanes = timeline.lanes();
        for l in [Lane::TensorCore, Lane::Ici] {
            if !lanes.contains(&l) {
                lanes.push(l);
            }
        }
        lanes.sort();
        let x_max = [x_max, budget, timeline.end.0]
            .into_iter()
            .filter(|x| x.is_finite())
            .fold(0.0, f64::max);
        TraceModel {
            timeline,
            budget,
            x_max: if x_max > 0.0 { x_max * 1.04 } else { 1.0 },
            lanes,
        }
    }
}

/// The colour of an op kind.
pub fn kind_colour(pal: &Palette, kind: OpKind) -> RGBColor {
    match kind {
        OpKind::Matmul => pal.series[0],
        OpKind::MatmulBackward => pal.series[4],
        OpKind::AllGather => pal.series[1],
        OpKind::ReduceScatter => pal.series[5],
        OpKind::AllReduce => pal.series[3],
        OpKind::Send => pal.series[2],
        OpKind::Overhead => pal.grid,
    }
}

/// Draws the lanes, the op bars, the budget marker and a legend of the kinds present.
pub fn draw_trace<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    m: &TraceModel,
    dark: bool,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let pal = palette(dark);
    root.fill(&pal.background)?;
    let (w, h) = root.dim_in_pixel();
    let kinds: Vec<OpKind> = OpKind::ALL
        .into_iter()
        .filter(|k| m.timeline.spans.iter().any(|s| s.kind == *k))
        .collect();
    let (spots, rows) = legend_spots(&kinds, w);
    let legend_h = px::length(34 + LEGEND_ROW * (rows - 1).max(0));
    let (plot, legend) = root.split_vertically(h.saturating_sub(legend_h));
    let n = m.lanes.len().max(1) as f64;
    let mut chart = ChartBuilder::on(&plot)
        .margin(10)
        .margin_right(20)
        .x_label_area_size(44)
        .y_label_area_size(120)
        .build_cartesian_2d(0.0..m.x_max, 0.0..n)?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .disable_y_axis()
        .x_desc("time in the step")
        .x_labels(8)
        .x_label_formatter(&|x| seconds(*x))
        .styled(&pal)
        .light_line_style(pal.grid.mix(0.3))
        .axis_style(pal.text)
        .draw()?;
    // Lane i (top = 0) occupies y in [n-i-1, n-i].
    let band = |lane: Lane| -> Option<f64> {
        let i = m.lanes.iter().position(|l| *l == lane)? as f64;
        Some(n - i - 1.0)
    };
    let label_font = font(NOTE, &pal.text);
    for (i, lane) in m.lanes.iter().enumerate() {
        let y = n - i as f64 - 0.5;
        let (px, py) = chart.backend_coord(&(0.0, y));
        plot.draw(&Text::new(
            lane.label(),
            (px - 114, py - 7),
            label_font.clone(),
        ))?;
        if i > 0 {
            chart.draw_series(std::iter::once(PathElement::new(
                vec![(0.0, n - i as f64), (m.x_max, n - i as f64)],
                pal.grid,
            )))?;
        }
    }
    let bars = m.timeline.spans.iter().filter_map(|s| {
        let y0 = band(s.lane)?;
        let c = kind_colour(&pal, s.kind);
        Some(Rectangle::new(
            [(s.start.0, y0 + 0.18), (s.end().0, y0 + 0.82)],
            c.filled(),
        ))
    });
    chart.draw_series(bars)?;
    // Thin separators so that back-to-back ops of one kind stay distinguishable.
    let edges = m.timeline.spans.iter().filter_map(|s| {
        let y0 = band(s.lane)?;
        Some(PathElement::new(
            vec![(s.start.0, y0 + 0.18), (s.start.0, y0 + 0.82)],
            pal.background.stroke_width(1),
        ))
    });
    chart.draw_series(edges)?;
    // Names of ops wide enough to hold them.
    let small = font(TICK, &pal.background);
    for s in &m.timeline.spans {
        let Some(y0) = band(s.lane) else { continue };
        let (x0, _) = chart.backend_coord(&(s.start.0, y0));
        let (x1, yc) = chart.backend_coord(&(s.end().0, y0 + 0.5));
        if x1 - x0 > 7 * px::coord(s.op.len()) + 10 {
            plot.draw(&Text::new(s.op.clone(), (x0 + 4, yc - 6), small.clone()))?;
        }
    }
    // The budget marker and the end of the timeline, each labelled on the
    // side of its line where the label stays in the plot and clear of the
    // other line (the end line ran through the budget's label when the step
    // ended just after its budget), beyond both if need be. Where a phone's
    // plot leaves no such place, the other line is interrupted around the
    // label (`vertical_runs`), as a map's road is under a town's name.
    let end = m.timeline.end.0;
    let (xr, yr) = chart.plotting_area().get_pixel_range();
    let (left, right) = (xr.start, px::coord(plot.dim_in_pixel().0) - 2);
    let (top, bottom) = (yr.start, yr.end);
    let height = text_box("0", TICK).1;
    let budget_x =
        (m.budget.is_finite() && m.budget > 0.0).then(|| chart.backend_coord(&(m.budget, n)).0);
    let end_x = chart.backend_coord(&(end, 0.0)).0;
    let budget_label = budget_x.map(|bx| {
        let text = format!("budget {}", seconds(m.budget));
        let w = text_box(&text, TICK).0;
        let at = beside(bx, w, Some(end_x), (left, right));
        (text, Rect::new(at, top + 2, w, height))
    });
    let end_text = format!("end {}", seconds(end));
    let ew = text_box(&end_text, TICK).0;
    let end_label = Rect::new(
        beside(end_x, ew, budget_x, (left, right)),
        bottom - 16,
        ew,
        height,
    );
    if let Some(bx) = budget_x {
        for (y0, y1) in vertical_runs(bx, top, bottom, &[end_label], 2) {
            plot.draw(&plotters::element::DashedPathElement::new(
                vec![(bx, y0), (bx, y1)],
                6,
                4,
                pal.text.stroke_width(2),
            ))?;
        }
    }
    let colour = if end > m.budget * (1.0 + 1e-9) {
        pal.bad
    } else {
        pal.good
    };
    let around: Vec<Rect> = budget_label.iter().map(|(_, r)| *r).collect();
    for (y0, y1) in vertical_runs(end_x, top, bottom, &around, 2) {
        plot.draw(&PathElement::new(
            vec![(end_x, y0), (end_x, y1)],
            colour.stroke_width(2),
        ))?;
    }
    // Each label on a plate of the background: the end label sits low in
    // the plot, over the lanes' bars, and in the verdict's colour it was
    // hard to read on a bar of a like colour (the ICI lane on a phone).
    let plate = |r: &Rect| Rectangle::new([(r.x0, r.y0), (r.x1, r.y1)], pal.background.filled());
    if let Some((text, r)) = budget_label {
        plot.draw(&plate(&r))?;
        plot.draw(&Text::new(text, (r.x0 + 2, r.y0), font(TICK, &pal.text)))?;
    }
    plot.draw(&plate(&end_label))?;
    plot.draw(&Text::new(
        end_text,
        (end_label.x0 + 2, end_label.y0),
        font(TICK, &colour),
    ))?;
    // Legend: one swatch per kind present.
    for (kind, (x, y)) in kinds.into_iter().zip(spots) {
        let c = kind_colour(&pal, kind);
        legend.draw(&Rectangle::new([(x, y), (x + 14, y + 14)], c.filled()))?;
        legend.draw(&Text::new(kind.label(), (x + 19, y), font(TICK, &pal.text)))?;
    }
    Ok(())
}

/// Where a label `w` pixels wide beside the vertical line at pixel `x`
/// starts: right of the line if it ends before `right` and keeps clear of the
/// other vertical line at `other`, else left of it on the same terms, else
/// beyond both lines (right, then left); failing all, the side of its line
/// that stays within `left..right`, and failing that, as far right as fits.
fn beside(x: i32, w: i32, other: Option<i32>, (left, right): (i32, i32)) -> i32 {
    const GAP: i32 = 6;
    let o = other.unwrap_or(x);
    let sides = [x + GAP, x - GAP - w];
    let beyond = [x.max(o) + GAP, x.min(o) - GAP - w];
    let fits = |x0: &i32| *x0 >= left && *x0 + w <= right;
    let clear = |x0: &i32| other.is_none_or(|o| o < *x0 - 2 || o > *x0 + w + 2);
    sides
        .into_iter()
        .chain(beyond)
        .find(|x0| fits(x0) && clear(x0))
        .or_else(|| sides.into_iter().find(fits))
        .unwrap_or_else(|| (right - w).max(left))
}

/// The height of each further row of the legend.
const LEGEND_ROW: i32 = 20;

/// Where each kind's legend swatch goes in a legend `width` pixels wide, in
/// one row while they fit and on further rows on a phone, and how many rows
/// that takes.
fn legend_spots(kinds: &[OpKind], width: u32) -> (Vec<(i32, i32)>, i32) {
    let (mut x, mut row) = (10i32, 0);
    let mut spots = Vec::new();
    for kind in kinds {
        let label = kind.label();
        let end = x + 19 + text_box(label, TICK).0;
        if end > px::coord(width) && x > 10 {
            x = 10;
            row += 1;
        }
        spots.push((x, 10 + LEGEND_ROW * row));
        x += 19 + 7 * px::coord(label.chars().count()) + 16;
    }
    (spots, row + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use plotters_svg::SVGBackend;
    use ridgeline_core::hardware::chip;
    use ridgeline_core::model::config::model;
    use ridgeline_core::profiling::trace::profile;
    use ridgeline_core::training::{Cluster, Job, Parallelism};
    use ridgeline_core::units::Seconds;

    fn svg(overlap: bool, layers: u32) -> String {
        let job = Job::new(model("llama3-70b").unwrap().config, 4194304.0, 4096.0).unwrap();
        let slice = Cluster::new(chip("v5p").unwrap(), &[16, 16, 16], 1).unwrap();
        let p = profile(
            &job,
            &slice,
            &Parallelism::fsdp(4096, 3),
            layers,
            Seconds(1e-4),
        )
        .unwrap();
        let s = p.window(overlap);
        let m = TraceModel::new(
            s.timeline.clone(),
            s.budget.total().0,
            p.window(false).timeline.end.0,
        );
        let mut out = String::new();
        {
            let root = SVGBackend::with_string(&mut out, (760, 260)).into_drawing_area();
            draw_trace(&root, &m, false).unwrap();
            root.present().unwrap();
        }
        out
    }

    #[test]
    fn draws_lanes_ops_budget_and_legend() {
        let out = svg(true, 3);
        for s in [
            "TensorCore",
            "ICI",
            "budget ",
            "end ",
            "matmul (forward)",
            "all-gather",
            "reduce-scatter",
            "step overhead",
        ] {
            assert!(out.contains(s), "{s} missing");
        }
        assert!(out.matches("<rect").count() > 20);
        assert_ne!(out, svg(false, 3));
        // With one layer the ops are wide enough to carry their HLO names.
        assert!(svg(false, 1).contains("fusion.3"));
    }

    /// A step ending just after (or before) its budget put the end line
    /// through the budget's label: at phone and desktop widths, neither label
    /// crosses either line, and both stay in the drawing.
    #[test]
    fn budget_and_end_labels_cross_neither_line() {
        use crate::charts::place::{segments, texts};
        use ridgeline_core::profiling::trace::TraceOp;
        let mut faults = Vec::new();
        for (w, h) in [(320, 240), (390, 260), (760, 260)] {
            // (end, budget, axis end): the last is /profiling's phone chart,
            // where no side of either line is clear of the other.
            for (end, budget, axis) in [
                (10.2e-3, 10.0e-3, 10.2e-3),
                (10.0e-3, 10.2e-3, 10.2e-3),
                (10.0e-3, 10.0e-3, 10.0e-3),
                (3.0e-3, 10.0e-3, 10.0e-3),
                (10.0e-3, 0.4e-3, 10.0e-3),
                (10.0e-3, 9.0e-3, 10.0e-3),
                (16.5e-3, 11.6e-3, 25.0e-3),
            ] {
                let span = TraceOp {
                    op: "fusion.1".into(),
                    what: "W_in matmul".into(),
                    kind: OpKind::Matmul,
                    lane: Lane::TensorCore,
                    layer: Some(0),
                    start: Seconds(0.0),
                    duration: Seconds(end),
                };
                let timeline = StepTrace {
                    spans: vec![span],
                    end: Seconds(end),
                };
                let m = TraceModel::new(timeline, budget, axis);
                let mut out = String::new();
                {
                    let root = SVGBackend::with_string(&mut out, (w, h)).into_drawing_area();
                    draw_trace(&root, &m, false).unwrap();
                    root.present().unwrap();
                }
                let lines: Vec<_> = segments(&out, r#"stroke-width="2""#)
                    .into_iter()
                    .filter(|(a, b)| a.0 == b.0)
                    .collect();
                assert!(lines.len() >= 2, "{w} px: {lines:?}");
                let labels: Vec<_> = texts(&out)
                    .into_iter()
                    .filter(|(t, _)| t.starts_with("budget ") || t.starts_with("end "))
                    .collect();
                assert_eq!(labels.len(), 2, "{w} px: {labels:?}");
                // Each label stands on a plate of the background, which
                // keeps it legible over the lanes' bars.
                let plates: Vec<Rect> = out
                    .split("<rect")
                    .skip(1)
                    .filter(|tag| tag.contains(r##"fill="#FFFFFF""##))
                    .filter_map(|tag| {
                        let at = |k: &str| -> Option<i32> {
                            let v = tag.split(&format!(" {k}=\"")).nth(1)?;
                            v.split('"').next()?.parse().ok()
                        };
                        Some(Rect::new(at("x")?, at("y")?, at("width")?, at("height")?))
                    })
                    .collect();
                for (text, r) in &labels {
                    let start = r.x0 + 2;
                    assert!(
                        plates.iter().any(|p| p.x0 <= start
                            && p.x1 >= start + 10
                            && p.x1 - p.x0 <= r.x1 - r.x0 + 4
                            && p.y0 <= r.y0 + 2),
                        "{w} px: “{text}” {r:?} has no plate in {plates:?}"
                    );
                }
                for (text, r) in &labels {
                    if r.x0 < 0 || r.x1 > w as i32 {
                        faults.push(format!("{w} px: “{text}” {r:?} leaves the drawing"));
                    }
                    for (a, b) in &lines {
                        if r.crosses(*a, *b) {
                            let at = (end * 1e3, budget * 1e3);
                            faults.push(format!(
                                "{w} px, end/budget {at:?} ms: “{text}” {r:?} on {a:?}–{b:?}"
                            ));
                        }
                    }
                }
            }
        }
        assert!(faults.is_empty(), "{}", faults.join("\n"));
    }

    #[test]
    fn a_label_goes_where_it_fits_and_is_clear() {
        // Room on the right: right of the line.
        assert_eq!(beside(100, 50, None, (0, 400)), 106);
        // The other line just right: left instead.
        assert_eq!(beside(100, 50, Some(120), (0, 400)), 44);
        // No room on the right: left.
        assert_eq!(beside(380, 50, None, (0, 400)), 324);
        // Its own line's sides taken: beyond the other line.
        assert_eq!(beside(100, 50, Some(100 + 6 + 20), (60, 400)), 132);
        // No room beyond it either: a side of its own line that fits.
        assert_eq!(beside(100, 50, Some(100 + 6 + 20), (60, 170)), 106);
        // Wider than the plot: its left edge.
        assert_eq!(beside(100, 500, None, (10, 400)), 10);
    }

    #[test]
    fn empty_and_degenerate_models_do_not_fail() {
        let m = TraceModel::new(
            StepTrace {
                spans: vec![],
                end: Seconds(0.0),
            },
            f64::NAN,
            0.0,
        );
        assert_eq!(m.lanes, vec![Lane::TensorCore, Lane::Ici]);
        let mut out = String::new();
        {
            let root = SVGBackend::with_string(&mut out, (400, 200)).into_drawing_area();
            draw_trace(&root, &m, true).unwrap();
            root.present().unwrap();
        }
        assert!(out.contains("TensorCore"));
    }
}
