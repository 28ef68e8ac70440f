//! Prefill and decode on one roofline (Part 7): the weight matmuls and attention
//! of one layer as two points over the static roofline layer of
//! [`super::roofline::draw_static`]. Drawn on a transparent layer, so moving the
//! batch redraws only the points.

use plotters::coord::Shift;
use plotters::prelude::*;
use ridgeline_core::format::sci;
use ridgeline_core::inference::{Component, ComponentRoofline};
use ridgeline_core::roofline::{attainable, Verdict};
use ridgeline_core::units::{BytesPerSec, FlopsPerSec};

use super::palette;
use super::place::draw_label;
use super::roofline::{chart, label_placer, RoofModel};
use super::style::TITLE;

/// One component of a layer as a point on the roofline.
#[derive(Debug, Clone, PartialEq)]
pub struct ComponentPoint {
    /// Which component (the linear part is a circle, attention a square).
    pub component: Component,
    /// FLOPs per byte.
    pub intensity: f64,
    /// Attainable FLOPs/s under the HBM roof.
    pub attainable: f64,
    /// Which side of the ridge.
    pub verdict: Verdict,
    /// Text drawn beside the point.
    pub label: String,
}

impl ComponentPoint {
    /// The point of a component under `model`'s compute and HBM roofs.
    pub fn of(c: &ComponentRoofline, model: &RoofModel) -> ComponentPoint {
        let w = model.hbm().map(|r| r.bandwidth).unwrap_or(f64::NAN);
        ComponentPoint {
            component: c.component,
            intensity: c.intensity.0,
            attainable: attainable(c.intensity, FlopsPerSec(model.peak), BytesPerSec(w)).0,
            verdict: c.verdict(),
            label: format!(
                "{}: {} FLOPs/B",
                c.component.label(),
                ridgeline_core::format::sci(c.intensity.0, 3)
            ),
        }
    }
}

/// Draws the component points and their labels, each label beside its point
/// where it covers no roof, point, guide or other label (the shared
/// [`Placer`](super::place::Placer)), inside the plot at any width.
pub fn draw_components<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    model: &RoofModel,
    points: &[ComponentPoint],
    dark: bool,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let pal = palette(dark);
    let mut chart = chart(root, model)?;
    let mut placer = label_placer(root, &chart, model);
    let narrow = root.dim_in_pixel().0 < super::style::NARROW;
    let mut labels = Vec::with_capacity(points.len());
    for p in points {
        let x = p.intensity.clamp(model.x.0, model.x.1);
        let y = p.attainable.clamp(model.y.0, model.y.1);
        let colour = match p.verdict {
            Verdict::ComputeBound => pal.good,
            _ => pal.bad,
        };
        chart.draw_series(DashedLineSeries::new(
            vec![(x, model.y.0), (x, y)],
            4,
            4,
            colour.stroke_width(1),
        ))?;
        match p.component {
            Component::Linear => {
                chart.draw_series(std::iter::once(Circle::new((x, y), 9, colour.filled())))?;
                chart.draw_series(std::iter::once(Circle::new(
                    (x, y),
                    9,
                    pal.background.stroke_width(2),
                )))?;
            }
            Component::Attention => {
                // A filled square with a light edge (drawn in pixels around the point).
                chart.draw_series(std::iter::once(
                    EmptyElement::at((x, y))
                        + Rectangle::new([(-9, -9), (9, 9)], pal.background.filled())
                        + Rectangle::new([(-7, -7), (7, 7)], colour.filled()),
                ))?;
            }
        }
        let at = chart.backend_coord(&(x, y));
        placer.avoid_line(&[chart.backend_coord(&(x, model.y.0)), at]);
        placer.avoid_point(at, 11);
        // On a phone the full label is wider than the plot, and even "attn
        // 7.98 FLOPs/B" found no place clear of the link roofs: the name and
        // the intensity, whose unit the axis title gives.
        let label = if narrow {
            let name = match p.component {
                Component::Linear => "MLP",
                Component::Attention => "attn",
            };
            format!("{name} {}", sci(p.intensity, 3))
        } else {
            p.label.clone()
        };
        labels.push((at, label, colour));
    }
    // Every point and guide is kept free before any label is placed.
    for (at, text, colour) in labels {
        draw_label(root, &mut placer, at, &text, TITLE, &colour, 6)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use plotters_svg::SVGBackend;
    use ridgeline_core::dtype::Dtype;
    use ridgeline_core::hardware::chip;
    use ridgeline_core::inference::{component_rooflines, Phase, Precision, ServingModel};

    fn svg(batch: f64) -> (String, Vec<ComponentPoint>) {
        let c = chip("v5e").unwrap();
        let model = RoofModel::new(c, Dtype::Bf16).unwrap();
        let m = ServingModel::preset("llama3-70b").unwrap();
        let comps =
            component_rooflines(&m, Precision::BF16, c, Phase::Decode, batch, 4096.0).unwrap();
        let points: Vec<ComponentPoint> = comps
            .iter()
            .map(|c| ComponentPoint::of(c, &model))
            .collect();
        let mut out = String::new();
        {
            let root = SVGBackend::with_string(&mut out, (760, 440)).into_drawing_area();
            super::super::roofline::draw_static(&root, &model, false).unwrap();
            draw_components(&root, &model, &points, false).unwrap();
            root.present().unwrap();
        }
        (out, points)
    }

    #[test]
    fn both_components_are_labelled() {
        let (s, points) = svg(16.0);
        assert!(s.contains("MLP + projections: 16 FLOPs/B"), "linear label");
        assert!(s.contains("attention: "), "attention label");
        assert!(s.contains("HBM ridge 240 FLOPs/B"));
        assert!(points.iter().all(|p| p.verdict == Verdict::MemoryBound));
    }

    #[test]
    fn the_linear_point_crosses_the_ridge_and_attention_does_not() {
        let (_, points) = svg(1024.0);
        assert_eq!(points[0].verdict, Verdict::ComputeBound);
        assert_eq!(points[1].verdict, Verdict::MemoryBound);
        assert!(points[1].attainable < points[0].attainable);
    }
}
