//! Part 4 charts: where a Transformer's parameters live (horizontal bars), and
//! the share of a layer's FLOPs spent in dot-product attention as the context
//! grows (log-x), with the model's 50% crossover and the book's `T = 8D` rule.
//!
//! The fraction plot has a static layer (curve, guides) and a moving layer (the
//! reader's sequence length), drawn as separate SVG layers.

use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use ridgeline_core::format::{grouped, sci};

use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::palette;
use super::place::{passes, text_box};
use super::style::{
    draw_legend_below, font, legend_below_height, legend_on, Entry, Mark, Styled, NARROW, NOTE,
};

/// Sequence-length axis of the fraction plot, tokens.
pub const T_RANGE: (f64, f64) = (128.0, 4_194_304.0);

/// `x` parameters written in billions (`70.6B`), millions below a billion.
pub fn billions(x: f64) -> String {
    if x == 0.0 {
        "0".into()
    } else if x >= 1e9 {
        format!("{}B", sci(x / 1e9, 3))
    } else {
        format!("{}M", sci(x / 1e6, 3))
    }
}

/// Draws one horizontal bar per component, labelled with its count and share.
pub fn draw_params<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    bars: &[(&str, f64)],
    dark: bool,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let pal = palette(dark);
    root.fill(&pal.background)?;
    let total: f64 = bars.iter().map(|b| b.1).sum();
    let max = bars.iter().map(|b| b.1).fold(0.0, f64::max);
    let max = if max > 0.0 { max } else { 1.0 };
    let n = bars.len().max(1) as f64;
    let share = |v: f64| {
        let share = if total > 0.0 { 100.0 * v / total } else { 0.0 };
        if share < 0.01 {
            "<0.01".to_string()
        } else {
            sci(share, 3)
        }
    };
    let labels: Vec<String> = bars
        .iter()
        .map(|(name, v)| format!("{name}: {} ({}%)", billions(*v), share(*v)))
        .collect();
    // The axis reaches far enough that every bar's label fits after it (on a
    // phone the longest bar's label is wider than the plot's spare half).
    let plot_w = f64::from(root.dim_in_pixel().0) - 40.0;
    let x_hi = bars
        .iter()
        .zip(&labels)
        .map(|((_, v), text)| {
            let spare = plot_w - f64::from(text_box(text, NOTE).0);
            if spare > 0.0 {
                (v + max * 0.02) * plot_w / spare
            } else {
                0.0
            }
        })
        .fold(max * 1.9, f64::max);
    let mut chart = ChartBuilder::on(root)
        .margin(10)
        .margin_right(20)
        .x_label_area_size(44)
        .y_label_area_size(10)
        .build_cartesian_2d(0.0..x_hi, 0.0..n)?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .disable_y_axis()
        .x_desc("parameters")
        .x_labels(5)
        .x_label_formatter(&|x| billions(*x))
        .styled(&pal)
        .draw()?;
    for (i, ((_, v), text)) in bars.iter().zip(labels).enumerate() {
        let y = n - i as f64 - 1.0;
        let colour = pal.series[i % pal.series.len()];
        chart.draw_series(std::iter::once(Rectangle::new(
            [(0.0, y + 0.18), (*v, y + 0.82)],
            colour.filled(),
        )))?;
        chart.draw_series(std::iter::once(Text::new(
            text,
            (*v + max * 0.02, y + 0.62),
            font(NOTE, &pal.text),
        )))?;
    }
    Ok(())
}

/// What the fraction plot shows.
#[derive(Debug, Clone, PartialEq)]
pub struct FractionModel {
    /// `(T, attention share of the layer's FLOPs)` along the curve.
    pub curve: Vec<(f64, f64)>,
    /// Where this model's share reaches one half.
    pub crossover: f64,
    /// The book's rule of thumb, `8·D`.
    pub eight_d: f64,
}

type Chart<'a, DB> = ChartContext<'a, DB, Cartesian2d<LogCoord<f64>, RangedCoordf64>>;

/// Legend rows of the attention-share chart.
const FRACTION_LEGEND: usize = 2;

/// Pixels under a narrow chart's plot kept for its legend (none on a wide
/// one, whose legend sits in the plot): on a phone the legend box would
/// cover the `8D` label.
fn legend_room<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>) -> u32 {
    if root.dim_in_pixel().0 < NARROW {
        legend_below_height(FRACTION_LEGEND)
    } else {
        0
    }
}

fn frame<'a, DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
) -> Result<Chart<'a, DB>, DrawingAreaErrorKind<DB::ErrorType>> {
    ChartBuilder::on(root)
        .margin(14)
        .margin_right(24)
        .margin_bottom(14 + legend_room(root))
        .x_label_area_size(44)
        .y_label_area_size(56)
        .build_cartesian_2d((T_RANGE.0..T_RANGE.1).log_scale(), 0.0..1.0)
}

fn in_range(t: f64) -> bool {
    t.is_finite() && t >= T_RANGE.0 && t <= T_RANGE.1
}

/// Draws the attention-share curve, the model's 50% crossover and the `8D` line.
pub fn draw_fraction<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    m: &FractionModel,
    dark: bool,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let pal = palette(dark);
    root.fill(&pal.background)?;
    let mut chart = frame(root)?;
    chart
        .configure_mesh()
        .x_desc("sequence length T (tokens)")
        .y_desc("share of layer FLOPs")
        .x_label_formatter(&|x| grouped(*x))
        .y_label_formatter(&|y| format!("{:.0}%", y * 100.0))
        .styled(&pal)
        .draw()?;
    let attention = pal.series[1];
    let mlp = pal.series[0];
    chart.draw_series(AreaSeries::new(
        m.curve.iter().map(|&(t, f)| (t, 1.0 - f)),
        0.0,
        mlp.mix(0.18),
    ))?;
    chart.draw_series(LineSeries::new(m.curve.clone(), attention.stroke_width(3)))?;
    let legend: [Entry; FRACTION_LEGEND] = [
        Entry::new("MLP and projections", mlp, Mark::Tint),
        Entry::new("dot-product attention", attention, Mark::Line(3)),
    ];
    if in_range(m.eight_d) {
        chart.draw_series(DashedLineSeries::new(
            vec![(m.eight_d, 0.0), (m.eight_d, 1.0)],
            6,
            4,
            pal.text.stroke_width(1),
        ))?;
        let text = format!("T = 8D = {}", grouped(m.eight_d));
        let right = chart.plotting_area().get_pixel_range().0.end;
        let x = chart.backend_coord(&(m.eight_d * 1.12, 0.93)).0;
        // Near the right edge the label ends left of its line instead.
        let label = if passes(x, &text, NOTE, right) {
            Text::new(
                text,
                (m.eight_d / 1.12, 0.93),
                font(NOTE, &pal.text).pos(Pos::new(HPos::Right, VPos::Top)),
            )
        } else {
            Text::new(text, (m.eight_d * 1.12, 0.93), font(NOTE, &pal.text))
        };
        chart.draw_series(std::iter::once(label))?;
    }
    if in_range(m.crossover) {
        chart.draw_series(std::iter::once(Circle::new(
            (m.crossover, 0.5),
            6,
            attention.filled(),
        )))?;
        chart.draw_series(std::iter::once(Text::new(
            format!("50% at T ≈ {}", grouped(m.crossover)),
            (m.crossover / 9.0, 0.56),
            font(NOTE, &pal.text),
        )))?;
    }
    let below = legend_room(root);
    if below > 0 {
        let top = root.dim_in_pixel().1 as i32 - below as i32 - 4;
        draw_legend_below(root, &legend, (14, top), &pal)?;
    } else {
        legend_on(&chart, &legend, SeriesLabelPosition::UpperLeft, &pal)?;
    }
    Ok(())
}

/// Draws the reader's sequence length and its attention share on a transparent layer.
pub fn draw_fraction_marker<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    t: f64,
    share: f64,
    dark: bool,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let pal = palette(dark);
    let mut chart = frame(root)?;
    let t = t.clamp(T_RANGE.0, T_RANGE.1);
    let share = if share.is_finite() {
        share.clamp(0.0, 1.0)
    } else {
        0.0
    };
    chart.draw_series(DashedLineSeries::new(
        vec![(t, 0.0), (t, 1.0)],
        4,
        4,
        pal.bad.stroke_width(1),
    ))?;
    chart.draw_series(std::iter::once(Circle::new(
        (t, share),
        8,
        pal.bad.filled(),
    )))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use plotters_svg::SVGBackend;

    #[test]
    fn parameter_bars_carry_names_counts_and_shares() {
        let mut out = String::new();
        {
            let root = SVGBackend::with_string(&mut out, (700, 260)).into_drawing_area();
            draw_params(&root, &[("MLP", 3e9), ("attention", 1e9)], false).unwrap();
            root.present().unwrap();
        }
        assert!(out.contains("MLP: 3B (75%)"), "{out}");
        assert!(out.contains("attention: 1B (25%)"));
        assert_eq!(billions(70.55e9), "70.6B");
        assert_eq!(billions(5.0e8), "500M");
    }

    #[test]
    fn fraction_plot_marks_both_crossovers() {
        let curve: Vec<(f64, f64)> = (0..50)
            .map(|i| {
                let t = T_RANGE.0 * 1.3f64.powi(i);
                (t, t / (65536.0 + t))
            })
            .collect();
        let m = FractionModel {
            curve,
            crossover: 52_000.0,
            eight_d: 65_536.0,
        };
        let mut out = String::new();
        {
            let root = SVGBackend::with_string(&mut out, (760, 380)).into_drawing_area();
            draw_fraction(&root, &m, true).unwrap();
            draw_fraction_marker(&root, 4096.0, 0.05, true).unwrap();
            root.present().unwrap();
        }
        assert!(out.contains("T = 8D = 65,536"));
        assert!(out.contains("50% at T ≈ 52,000"));
        assert!(out.contains("dot-product attention"));
        assert!(out.contains("sequence length T"));
    }
}
