//! The roofline chart: roofs of one chip on log-log axes, and an operation's point.
//!
//! Drawing is generic over plotters' `DrawingBackend`; pages draw it as inline
//! SVG (`super::svg`). The static layer (axes, roofs, ridge labels) and the
//! moving point are separate SVG layers: dragging only redraws the point.

use plotters::coord::Shift;
use plotters::prelude::*;
use ridgeline_core::dtype::Dtype;
use ridgeline_core::format::{sci, si};
use ridgeline_core::hardware::{Chip, Link};
use ridgeline_core::ops::Op;
use ridgeline_core::roofline::{attainable, Verdict};
use ridgeline_core::units::Intensity;

use super::palette;
use super::place::{draw_label, legend_box, text_box, Placer, Rect};
use super::style::{
    draw_legend, draw_legend_below, font, legend_below_height, Entry, Mark, Styled, NARROW, NOTE,
    TICK, TITLE,
};

/// One bandwidth roof.
#[derive(Debug, Clone, PartialEq)]
pub struct Roof {
    /// Legend label.
    pub label: &'static str,
    /// Which link.
    pub link: Link,
    /// Bandwidth, bytes/s.
    pub bandwidth: f64,
    /// Ridge point `C / W`, FLOPs per byte.
    pub ridge: f64,
}

/// Everything the static layer shows.
#[derive(Debug, Clone, PartialEq)]
pub struct RoofModel {
    /// Chip name for the caption.
    pub chip: &'static str,
    /// Format of the compute roof.
    pub dtype: Dtype,
    /// Compute roof, FLOPs/s.
    pub peak: f64,
    /// Bandwidth roofs, HBM first.
    pub roofs: Vec<Roof>,
    /// Intensity axis range.
    pub x: (f64, f64),
    /// Throughput axis range.
    pub y: (f64, f64),
}

impl RoofModel {
    /// The roofs of `chip` for compute in `dtype`; `None` if the chip has no such peak.
    pub fn new(chip: &'static Chip, dtype: Dtype) -> Option<RoofModel> {
        let (dtype, peak) = chip.peak_or_wider(dtype)?;
        let roofs: Vec<Roof> = Link::ALL
            .into_iter()
            .filter_map(|link| {
                let w = chip.bandwidth(link)?;
                Some(Roof {
                    label: link.label(),
                    link,
                    bandwidth: w.0,
                    ridge: (peak / w).0,
                })
            })
            .collect();
        Some(RoofModel {
            chip: chip.name,
            dtype,
            peak: peak.0,
            roofs,
            x: (0.05, 1e6),
            y: (peak.0 * 1e-6, peak.0 * 4.0),
        })
    }

    /// The HBM roof.
    pub fn hbm(&self) -> Option<&Roof> {
        self.roofs.iter().find(|r| r.link == Link::Hbm)
    }
}

/// The operation's point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OpPoint {
    /// FLOPs per byte.
    pub intensity: f64,
    /// Attainable FLOPs/s under the HBM roof.
    pub attainable: f64,
    /// Which side of the ridge it is on.
    pub verdict: Verdict,
}

impl OpPoint {
    /// The point of `op` under `model`'s HBM roof.
    pub fn of(op: &Op, model: &RoofModel) -> OpPoint {
        let i = op.intensity();
        let (w, ridge) = model
            .hbm()
            .map(|r| (r.bandwidth, r.ridge))
            .unwrap_or((f64::NAN, f64::NAN));
        let y = attainable(
            i,
            ridgeline_core::units::FlopsPerSec(model.peak),
            ridgeline_core::units::BytesPerSec(w),
        );
        OpPoint {
            intensity: i.0,
            attainable: y.0,
            verdict: ridgeline_core::roofline::verdict_at(i, Intensity(ridge), Link::Hbm),
        }
    }
}

/// The pixel rectangle of the plotting area, for turning pointer positions into data.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlotArea {
    /// Left and right pixel edges.
    pub x: (i32, i32),
    /// Top and bottom pixel edges.
    pub y: (i32, i32),
    /// The data range on the x axis (log scale).
    pub range: (f64, f64),
}

impl PlotArea {
    /// The intensity under pixel column `px`.
    pub fn intensity_at(&self, px: f64) -> f64 {
        let t = ((px - self.x.0 as f64) / (self.x.1 - self.x.0).max(1) as f64).clamp(0.0, 1.0);
        (self.range.0.ln() + t * (self.range.1.ln() - self.range.0.ln())).exp()
    }
}

pub(crate) type Chart<'a, DB> = ChartContext<'a, DB, Cartesian2d<LogCoord<f64>, LogCoord<f64>>>;

/// Whether the chart is drawn narrow: its legend then goes under the plot.
fn narrow<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>) -> bool {
    root.dim_in_pixel().0 < NARROW
}

/// The legend's entries: each bandwidth roof (HBM solid), then the compute roof.
fn entries(model: &RoofModel, pal: &super::Palette) -> Vec<Entry> {
    let mut e: Vec<Entry> = model
        .roofs
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let mark = if r.link == Link::Hbm {
                Mark::Line(3)
            } else {
                Mark::Dashed
            };
            Entry::new(r.label, pal.series[i % pal.series.len()], mark)
        })
        .collect();
    e.push(Entry::new(peak_label(model), pal.text, Mark::Line(3)));
    e
}

pub(crate) fn chart<'a, DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    model: &RoofModel,
) -> Result<Chart<'a, DB>, DrawingAreaErrorKind<DB::ErrorType>> {
    let below = if narrow(root) {
        legend_below_height(model.roofs.len() + 1)
    } else {
        0
    };
    ChartBuilder::on(root)
        .margin(14)
        .margin_bottom(14 + below)
        .margin_right(24)
        .x_label_area_size(44)
        .y_label_area_size(74)
        .build_cartesian_2d(
            (model.x.0..model.x.1).log_scale(),
            (model.y.0..model.y.1).log_scale(),
        )
}

/// Draws axes, grid, the compute roof, every bandwidth roof and the ridge labels.
/// Returns the plotting area's pixel rectangle.
pub fn draw_static<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    model: &RoofModel,
    dark: bool,
) -> Result<PlotArea, DrawingAreaErrorKind<DB::ErrorType>> {
    let pal = palette(dark);
    root.fill(&pal.background)?;
    let mut chart = chart(root, model)?;
    chart
        .configure_mesh()
        .x_desc("arithmetic intensity (FLOPs per byte)")
        .x_labels(if narrow(root) { 5 } else { 10 })
        .y_desc(format!("attainable {} FLOPs/s", model.dtype))
        .x_label_formatter(&|x| sci(*x, 2))
        .y_label_formatter(&|y| sci(*y, 2))
        .styled(&pal)
        .draw()?;

    // Bandwidth roofs: slanted until their ridge, HBM solid, the rest dashed.
    for (i, roof) in model.roofs.iter().enumerate() {
        let colour = pal.series[i % pal.series.len()];
        let x0 = model.x.0.max(model.y.0 / roof.bandwidth);
        let ridge = roof.ridge.min(model.x.1);
        let points = vec![(x0, x0 * roof.bandwidth), (ridge, ridge * roof.bandwidth)];
        let width = if roof.link == Link::Hbm { 3 } else { 2 };
        if roof.link == Link::Hbm {
            chart.draw_series(LineSeries::new(points, colour.stroke_width(width)))?;
        } else {
            chart.draw_series(DashedLineSeries::new(
                points,
                6,
                4,
                colour.stroke_width(width),
            ))?;
        }
    }
    // The compute roof.
    chart.draw_series(LineSeries::new(
        vec![
            (
                model.x.0.max(
                    model
                        .roofs
                        .iter()
                        .map(|r| r.ridge)
                        .fold(f64::INFINITY, f64::min),
                ),
                model.peak,
            ),
            (model.x.1, model.peak),
        ],
        pal.text.stroke_width(3),
    ))?;

    // The HBM ridge point, marked and labelled with its value.
    let layout = Layout::of(&chart, model, narrow(root));
    if let Some(hbm) = model.hbm() {
        chart.draw_series(std::iter::once(Circle::new(
            (hbm.ridge, model.peak),
            6,
            pal.series[0].filled(),
        )))?;
    }
    if let Some((text, r)) = &layout.ridge_label {
        root.draw(&Text::new(
            text.clone(),
            (r.x0 + 2, r.y0),
            font(NOTE, &pal.text),
        ))?;
    }
    let list = entries(model, &pal);
    match layout.legend {
        Some(position) => draw_legend(
            &chart.plotting_area().strip_coord_spec(),
            &list,
            position,
            &pal,
        )?,
        None => {
            let height = root.dim_in_pixel().1 as i32;
            let top = height - legend_below_height(list.len()) as i32 - 4;
            draw_legend_below(root, &list, (14, top), &pal)?;
        }
    }

    let (xr, yr) = chart.plotting_area().get_pixel_range();
    Ok(PlotArea {
        x: (xr.start, xr.end),
        y: (yr.start, yr.end),
        range: model.x,
    })
}

/// Draws the operation's point, its guide to the x axis and its label on a
/// transparent layer over the static chart.
pub fn draw_point<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    model: &RoofModel,
    point: &OpPoint,
    label: &str,
    dark: bool,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let pal = palette(dark);
    let mut chart = chart(root, model)?;
    let x = point.intensity.clamp(model.x.0, model.x.1);
    let y = point.attainable.clamp(model.y.0, model.y.1);
    let colour = match point.verdict {
        Verdict::ComputeBound => pal.good,
        _ => pal.bad,
    };
    chart.draw_series(DashedLineSeries::new(
        vec![(x, model.y.0), (x, y)],
        4,
        4,
        colour.stroke_width(1),
    ))?;
    chart.draw_series(std::iter::once(Circle::new((x, y), 9, colour.filled())))?;
    chart.draw_series(std::iter::once(Circle::new(
        (x, y),
        9,
        pal.background.stroke_width(2),
    )))?;
    // Beside the point, where it covers no roof, the legend or the ridge label.
    let mut placer = Layout::of(&chart, model, narrow(root)).placer;
    let at = chart.backend_coord(&(x, y));
    let foot = chart.backend_coord(&(x, model.y.0));
    placer.avoid_line(&[foot, at]);
    placer.avoid_point(at, 11);
    draw_label(root, &mut placer, at, label, TITLE, &colour, 6)?;
    Ok(())
}

/// The compute roof's legend entry.
fn peak_label(model: &RoofModel) -> String {
    format!("{} peak {}", model.dtype, si(model.peak, "FLOPs/s", 3))
}

/// Where the static layer's labels go, computed the same way by both layers
/// so that the moving label avoids what the static layer drew.
struct Layout {
    /// Free space after the roofs, the ridge label and the legend.
    placer: Placer,
    /// The HBM ridge label and its box.
    ridge_label: Option<(String, Rect)>,
    /// The legend's position in the plot, or `None` when it goes under it.
    legend: Option<SeriesLabelPosition>,
}

impl Layout {
    fn of<DB: DrawingBackend>(chart: &Chart<'_, DB>, model: &RoofModel, narrow: bool) -> Layout {
        let (xr, yr) = chart.plotting_area().get_pixel_range();
        let mut placer = Placer::new(Rect::from_ranges(xr, yr));
        let px = |x: f64, y: f64| chart.backend_coord(&(x, y));
        let mut labels: Vec<String> = Vec::new();
        for roof in &model.roofs {
            let x0 = model.x.0.max(model.y.0 / roof.bandwidth);
            let ridge = roof.ridge.min(model.x.1);
            placer.avoid_line(&[
                px(x0, x0 * roof.bandwidth),
                px(ridge, ridge * roof.bandwidth),
            ]);
            labels.push(roof.label.to_string());
        }
        let first_ridge = model
            .roofs
            .iter()
            .map(|r| r.ridge)
            .fold(f64::INFINITY, f64::min);
        placer.avoid_line(&[
            px(model.x.0.max(first_ridge), model.peak),
            px(model.x.1, model.peak),
        ]);
        labels.push(peak_label(model));
        let ridge_label = model.hbm().map(|hbm| {
            let text = format!("HBM ridge {} FLOPs/B", sci(hbm.ridge, 3));
            let at = px(hbm.ridge, model.peak);
            placer.avoid_point(at, 7);
            let r = placer.place(at, text_box(&text, NOTE), 6);
            (text, r)
        });
        let names: Vec<&str> = labels.iter().map(String::as_str).collect();
        let legend = (!narrow).then(|| placer.legend(legend_box(&names, TICK)));
        Layout {
            placer,
            ridge_label,
            legend,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use plotters_svg::SVGBackend;
    use ridgeline_core::hardware::chip;

    fn svg(model: &RoofModel, op: &Op) -> String {
        let mut out = String::new();
        {
            let root = SVGBackend::with_string(&mut out, (720, 420)).into_drawing_area();
            draw_static(&root, model, false).unwrap();
            draw_point(&root, model, &OpPoint::of(op, model), "B = 64", false).unwrap();
            root.present().unwrap();
        }
        out
    }

    #[test]
    fn v5e_chart_labels_the_ridge_and_every_link() {
        let model = RoofModel::new(chip("v5e").unwrap(), Dtype::Bf16).unwrap();
        let op = Op::Matmul {
            b: 64.0,
            d: 8192.0,
            f: 8192.0,
            act: Dtype::Bf16,
            weight: Dtype::Bf16,
        };
        let s = svg(&model, &op);
        assert!(s.contains("HBM ridge 240 FLOPs/B"), "ridge label missing");
        for label in [
            "HBM",
            "ICI (per link, bidirectional)",
            "DCN (per chip)",
            "PCIe (per chip)",
        ] {
            assert!(s.contains(label), "{label} missing");
        }
        assert!(s.contains("B = 64"));
        assert!(s.contains("197 TFLOPs/s"));
    }

    #[test]
    fn point_follows_the_batch() {
        let model = RoofModel::new(chip("h100").unwrap(), Dtype::Bf16).unwrap();
        let small = Op::Matmul {
            b: 16.0,
            d: 8192.0,
            f: 8192.0,
            act: Dtype::Bf16,
            weight: Dtype::Bf16,
        };
        let p = OpPoint::of(&small, &model);
        assert_eq!(p.verdict, Verdict::MemoryBound);
        assert!(p.attainable < model.peak);
        let big = OpPoint::of(&small.with_batch(4096.0), &model);
        assert_eq!(big.verdict, Verdict::ComputeBound);
        assert_eq!(big.attainable, model.peak);
    }

    #[test]
    fn pixels_map_back_to_intensity() {
        let area = PlotArea {
            x: (100, 600),
            y: (10, 300),
            range: (0.1, 1000.0),
        };
        assert!((area.intensity_at(100.0) - 0.1).abs() < 1e-9);
        assert!((area.intensity_at(600.0) - 1000.0).abs() < 1e-6);
        assert!((area.intensity_at(350.0) - 10.0).abs() < 1e-6);
        assert!((area.intensity_at(-5000.0) - 0.1).abs() < 1e-9);
    }
}
