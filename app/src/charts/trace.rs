//! A trace viewer for the synthetic profile of Part 9: one row per lane
//! (TensorCore, ICI, ...), each op a bar from its start to its end coloured by
//! kind, a dashed marker at the step time the roofline budgets, and a legend.

use plotters::coord::Shift;
use plotters::prelude::*;
use ridgeline_core::format::seconds;
use ridgeline_core::trace::{Lane, OpKind, Timeline};

use super::style::{font, Styled, NOTE, TICK};
use super::{palette, Palette};

/// What the chart shows: a timeline, its budget and the time axis.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceModel {
    /// The ops laid out in time.
    pub timeline: Timeline,
    /// The budgeted end of the timeline, seconds.
    pub budget: f64,
    /// Right end of the time axis, seconds (kept fixed while overlap is toggled).
    pub x_max: f64,
    /// Lanes to draw, top to bottom (always TensorCore and ICI).
    pub lanes: Vec<Lane>,
}

impl TraceModel {
    /// A model of `timeline` with its `budget`, on an axis reaching `x_max`.
    pub fn new(timeline: Timeline, budget: f64, x_max: f64) -> TraceModel {
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
    let legend_h = (34 + LEGEND_ROW * (rows - 1).max(0)) as u32;
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
        if x1 - x0 > 7 * s.op.len() as i32 + 10 {
            plot.draw(&Text::new(s.op.clone(), (x0 + 4, yc - 6), small.clone()))?;
        }
    }
    // The budget marker and the end of the timeline.
    let end = m.timeline.end.0;
    let (pw, _) = plot.dim_in_pixel();
    if m.budget.is_finite() && m.budget > 0.0 {
        chart.draw_series(DashedLineSeries::new(
            vec![(m.budget, 0.0), (m.budget, n)],
            6,
            4,
            pal.text.stroke_width(2),
        ))?;
        let (bx, by) = chart.backend_coord(&(m.budget, n));
        let budget_text = format!("budget {}", seconds(m.budget));
        let text_w = 7 * budget_text.chars().count() as i32;
        let tx = if bx + text_w + 6 > pw as i32 {
            bx - text_w - 6
        } else {
            bx + 6
        };
        plot.draw(&Text::new(budget_text, (tx, by + 2), font(TICK, &pal.text)))?;
    }
    let colour = if end > m.budget * (1.0 + 1e-9) {
        pal.bad
    } else {
        pal.good
    };
    chart.draw_series(std::iter::once(PathElement::new(
        vec![(end, 0.0), (end, n)],
        colour.stroke_width(2),
    )))?;
    let (ex, ey) = chart.backend_coord(&(end, 0.0));
    let end_text = format!("end {}", seconds(end));
    let ew = super::place::text_box(&end_text, TICK).0;
    let ex = if ex + ew + 6 > pw as i32 {
        ex - ew - 6
    } else {
        ex + 6
    };
    plot.draw(&Text::new(end_text, (ex, ey - 16), font(TICK, &colour)))?;
    // Legend: one swatch per kind present.
    for (kind, (x, y)) in kinds.into_iter().zip(spots) {
        let c = kind_colour(&pal, kind);
        legend.draw(&Rectangle::new([(x, y), (x + 14, y + 14)], c.filled()))?;
        legend.draw(&Text::new(kind.label(), (x + 19, y), font(TICK, &pal.text)))?;
    }
    Ok(())
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
        let end = x + 19 + super::place::text_box(label, TICK).0;
        if end > width as i32 && x > 10 {
            x = 10;
            row += 1;
        }
        spots.push((x, 10 + LEGEND_ROW * row));
        x += 19 + 7 * label.chars().count() as i32 + 16;
    }
    (spots, row + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use plotters_svg::SVGBackend;
    use ridgeline_core::hardware::chip;
    use ridgeline_core::models::model;
    use ridgeline_core::trace::profile;
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

    #[test]
    fn empty_and_degenerate_models_do_not_fail() {
        let m = TraceModel::new(
            Timeline {
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
