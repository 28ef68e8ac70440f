//! A GPU collective's bus bandwidth against array size (Part 12): the model
//! (start-up cost plus the fat tree's transfer time) with SHARP on and off,
//! the same model at a derated link bandwidth (dashed, in the model's
//! colour), the book's measured NCCL and TPU curves beside it, and a marker at
//! the reader's size.

use super::px;
use crate::charts::style::Styled;
use plotters::coord::Shift;
use plotters::prelude::*;
use ridgeline_core::format::si;

use super::palette;
use super::style::{draw_legend_below, legend_below_height, legend_on, Entry, Mark, NARROW};

/// Array-size axis, bytes.
pub const V_RANGE: (f64, f64) = (1e3, 1e11);

/// Palette series of the measured curves (the model takes 0, SHARP 2, a
/// compared GPU 4).
const MEASURED_COLOURS: [usize; 3] = [1, 3, 5];

/// One drawn curve: a label and `(bytes, bytes per second)` points.
#[derive(Debug, Clone, PartialEq)]
pub struct Curve {
    /// Legend text.
    pub label: String,
    /// Legend text on a phone's chart, where the legend line is short.
    pub short: String,
    /// Points, smallest size first.
    pub points: Vec<(f64, f64)>,
}

/// What the chart draws.
#[derive(Debug, Clone, PartialEq)]
pub struct CollectivesChart {
    /// The model at the reader's settings and the quoted link bandwidth.
    pub model: Curve,
    /// The same model at the share of link bandwidth the reader assumes,
    /// when it is below one.
    pub derated: Option<Curve>,
    /// The model with SHARP the other way round (AllReduce only).
    pub other: Option<Curve>,
    /// The book's measurements (drawn with markers, never joined to the model).
    pub measured: Vec<Curve>,
    /// The model on a second GPU at the same settings, if one is compared.
    pub vs: Option<Curve>,
    /// The reader's array size and the model's bandwidth there.
    pub marker: (f64, f64),
}

/// Draws the chart.
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    m: &CollectivesChart,
    dark: bool,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let pal = palette(dark);
    root.fill(&pal.background)?;
    let all = std::iter::once(&m.model)
        .chain(m.derated.iter())
        .chain(m.other.iter())
        .chain(m.vs.iter())
        .chain(m.measured.iter());
    let y_top = all
        .flat_map(|c| c.points.iter().map(|p| p.1))
        .filter(|y| y.is_finite())
        .fold(0.0, f64::max);
    // Headroom above the highest curve keeps room for the legend.
    let y_max = if y_top > 0.0 { y_top * 1.45 } else { 1e9 };
    // A phone's plot has no room for the legend box: it goes under the plot,
    // with the curves' short labels.
    let (width, height) = root.dim_in_pixel();
    let narrow = width < NARROW;
    let rows = 1
        + usize::from(m.derated.is_some())
        + usize::from(m.other.is_some())
        + usize::from(m.vs.is_some())
        + m.measured.len();
    let below = if narrow { legend_below_height(rows) } else { 0 };
    let label = |c: &Curve| {
        if narrow {
            c.short.clone()
        } else {
            c.label.clone()
        }
    };
    let mut chart = ChartBuilder::on(root)
        .margin(14)
        .margin_right(24)
        .margin_bottom(14 + below)
        .x_label_area_size(44)
        .y_label_area_size(80)
        .build_cartesian_2d((V_RANGE.0..V_RANGE.1).log_scale(), 0.0..y_max)?;
    chart
        .configure_mesh()
        .x_desc("array size (bytes)")
        // Every decade labelled is too close together on a phone: every third.
        .x_labels(if narrow { 3 } else { 10 })
        .y_desc("bus bandwidth per GPU")
        .x_label_formatter(&|x| si(*x, "B", 2))
        .y_label_formatter(&|y| si(*y, "B/s", 2))
        .styled(&pal)
        .draw()?;
    let keep = |pts: &[(f64, f64)]| -> Vec<(f64, f64)> {
        pts.iter()
            .copied()
            .filter(|(x, y)| *x >= V_RANGE.0 && *x <= V_RANGE.1 && y.is_finite())
            .collect()
    };
    let colour = pal.series[0];
    chart.draw_series(LineSeries::new(
        keep(&m.model.points),
        colour.stroke_width(3),
    ))?;
    let mut legend = vec![Entry::new(label(&m.model), colour, Mark::Line(3))];
    if let Some(derated) = &m.derated {
        chart.draw_series(DashedLineSeries::new(
            keep(&derated.points),
            10,
            6,
            colour.stroke_width(3),
        ))?;
        legend.push(Entry::new(label(derated), colour, Mark::Dashed));
    }
    if let Some(other) = &m.other {
        let colour = pal.series[2];
        chart.draw_series(DashedLineSeries::new(
            keep(&other.points),
            8,
            5,
            colour.stroke_width(2),
        ))?;
        legend.push(Entry::new(label(other), colour, Mark::Dashed));
    }
    if let Some(vs) = &m.vs {
        let colour = pal.series[4];
        chart.draw_series(LineSeries::new(keep(&vs.points), colour.stroke_width(3)))?;
        legend.push(Entry::new(label(vs), colour, Mark::Line(3)));
    }
    for (i, c) in m.measured.iter().enumerate() {
        let colour = pal.series[MEASURED_COLOURS[i % MEASURED_COLOURS.len()]];
        let pts = keep(&c.points);
        chart.draw_series(LineSeries::new(pts.clone(), colour.stroke_width(1)))?;
        chart.draw_series(
            pts.into_iter()
                .map(move |p| Circle::new(p, 4, colour.filled())),
        )?;
        legend.push(Entry::new(label(c), colour, Mark::Dot));
    }
    let (v, bw) = m.marker;
    if v >= V_RANGE.0 && v <= V_RANGE.1 && bw.is_finite() {
        chart.draw_series(std::iter::once(Circle::new((v, bw), 7, pal.bad.filled())))?;
    }
    if narrow {
        let top = px::legend_top(height, below);
        draw_legend_below(root, &legend, (14, top), &pal)?;
    } else {
        legend_on(&chart, &legend, SeriesLabelPosition::UpperLeft, &pal)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use plotters_svg::SVGBackend;

    #[test]
    fn draws_every_curve_and_its_legend() {
        let m = CollectivesChart {
            model: Curve {
                label: "model".into(),
                short: "model".into(),
                points: vec![(1e3, 1e6), (1e11, 4e11)],
            },
            derated: Some(Curve {
                label: "at 80% of the links".into(),
                short: "at 80%".into(),
                points: vec![(1e3, 0.9e6), (1e11, 3.2e11)],
            }),
            other: Some(Curve {
                label: "with SHARP".into(),
                short: "with SHARP".into(),
                points: vec![(1e3, 2e6), (1e11, 7e11)],
            }),
            measured: vec![Curve {
                label: "measured".into(),
                short: "measured".into(),
                points: vec![(8192.0, 0.0), (1e9, 3.5e11), (1e12, 1.0)],
            }],
            vs: Some(Curve {
                label: "second GPU".into(),
                short: "second GPU".into(),
                points: vec![(1e3, 3e6), (1e11, 8e11)],
            }),
            marker: (1e9, 3e11),
        };
        let mut out = String::new();
        {
            let root = SVGBackend::with_string(&mut out, (760, 400)).into_drawing_area();
            draw(&root, &m, false).unwrap();
            root.present().unwrap();
        }
        for label in [
            "model",
            "at 80% of the links",
            "with SHARP",
            "second GPU",
            "measured",
            "bus bandwidth per GPU",
        ] {
            assert!(out.contains(label), "{label}");
        }
        // The measured points inside the axis are drawn as markers (two), plus one in the legend.
        let measured = format!(
            "fill=\"{}\"",
            crate::charts::svg_colour(palette(false).series[1])
        );
        assert_eq!(out.matches(&measured).count(), 3, "{out}");
    }
}
