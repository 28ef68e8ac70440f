//! Part 4 charts: where a Transformer's parameters live (horizontal bars), and
//! the share of a layer's FLOPs spent in dot-product attention as the context
//! grows (log-x), with the model's 50% crossover and the book's `T = 8D` rule.
//!
//! The fraction plot has a static layer (curve, guides) and a moving layer (the
//! reader's sequence length), drawn as separate SVG layers.

use super::px;
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use ridgeline_core::format::{grouped, sci};

use super::palette;
use super::place::{draw_label, placer_for, Rect};
use super::style::{
    draw_legend_below, font, legend_below_height, legend_on, Entry, Mark, Styled, NARROW, NOTE,
    TICK,
};
use super::text::{legend_box, text_box};

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

/// Rows of the attention-share chart's key under a narrow plot: the two
/// series, and the crossover and `8D` that a wide chart labels in the plot.
const NARROW_ROWS: usize = 4;

/// Pixels under a narrow chart's plot kept for its key (none on a wide one,
/// whose legend and labels sit in the plot): on a phone the legend box
/// would cover the `8D` label, and the labels would cross the curves.
fn legend_room<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>) -> u32 {
    if root.dim_in_pixel().0 < NARROW {
        legend_below_height(NARROW_ROWS)
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
    let mut legend = vec![
        Entry::new("MLP and projections", mlp, Mark::Tint),
        Entry::new("dot-product attention", attention, Mark::Line(3)),
    ];
    let below = legend_room(root);
    // On a wide chart the two annotations go beside their marks where they
    // cross neither the curve, the edge of the MLP's area, the 8D line nor the
    // legend. A phone's plot is too narrow for that (its free runs between the
    // crossing curves are shorter than either label), so there they join the
    // key under the plot, beside the mark they name.
    let (xr, yr) = chart.plotting_area().get_pixel_range();
    let plot = Rect::from_ranges(xr, yr);
    let mut placer = placer_for(
        &chart,
        &[
            &m.curve,
            &m.curve
                .iter()
                .map(|&(t, f)| (t, 1.0 - f))
                .collect::<Vec<_>>(),
        ],
    );
    if below == 0 {
        let labels: Vec<&str> = legend.iter().map(|e| e.label.as_str()).collect();
        let (w, h) = legend_box(&labels, TICK);
        placer.avoid_box(Rect::new(plot.x0 + 6, plot.y0 + 6, w, h));
    }
    if in_range(m.eight_d) {
        chart.draw_series(DashedLineSeries::new(
            vec![(m.eight_d, 0.0), (m.eight_d, 1.0)],
            6,
            4,
            pal.text.stroke_width(1),
        ))?;
        let text = format!("T = 8D = {}", grouped(m.eight_d));
        if below > 0 {
            legend.push(Entry::new(text, pal.text, Mark::Dashed));
        } else {
            let foot = chart.backend_coord(&(m.eight_d, 0.0));
            let head = chart.backend_coord(&(m.eight_d, 1.0));
            placer.avoid_line(&[foot, head]);
            let at = chart.backend_coord(&(m.eight_d, 0.9));
            draw_label(root, &mut placer, at, &text, NOTE, &pal.text, 6)?;
        }
    }
    if in_range(m.crossover) {
        chart.draw_series(std::iter::once(Circle::new(
            (m.crossover, 0.5),
            6,
            attention.filled(),
        )))?;
        let text = format!("50% at T ≈ {}", grouped(m.crossover));
        if below > 0 {
            legend.push(Entry::new(text, attention, Mark::Dot));
        } else {
            let at = chart.backend_coord(&(m.crossover, 0.5));
            placer.avoid_point(at, 8);
            draw_label(root, &mut placer, at, &text, NOTE, &pal.text, 8)?;
        }
    }
    if below > 0 {
        let top = px::legend_top(root.dim_in_pixel().1, below);
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

    /// On a 320 px phone the crossover's label sat across the attention
    /// curve: at every width and wherever the crossover and 8D fall, neither
    /// label crosses the curve or the 8D line, nor covers the legend's text.
    #[test]
    fn the_labels_cross_no_line_at_any_width() {
        use crate::charts::place::{segments, texts};
        let mut faults = Vec::new();
        for (w, h) in [(320, 300), (390, 320), (560, 340), (760, 380)] {
            for d in [512.0, 2048.0, 8192.0, 16384.0, 262_144.0] {
                let eight_d = 8.0 * d;
                let curve: Vec<(f64, f64)> = (0..60)
                    .map(|i| T_RANGE.0 * 1.2f64.powi(i))
                    .take_while(|t| *t <= T_RANGE.1)
                    .map(|t| (t, t / (eight_d * 0.8 + t)))
                    .collect();
                let m = FractionModel {
                    curve,
                    crossover: eight_d * 0.8,
                    eight_d,
                };
                let mut out = String::new();
                {
                    let root = SVGBackend::with_string(&mut out, (w, h)).into_drawing_area();
                    draw_fraction(&root, &m, false).unwrap();
                    root.present().unwrap();
                }
                let lines = [
                    segments(&out, r#"stroke-width="3""#),
                    segments(&out, r#"stroke-width="1""#)
                        .into_iter()
                        .filter(|(a, b)| a.0 == b.0 && a.1 != b.1 && (a.1 - b.1).abs() < 20)
                        .collect(),
                ]
                .concat();
                assert!(lines.len() > 20, "{w} px: {} segments", lines.len());
                let all = texts(&out);
                let legend: Vec<Rect> = all
                    .iter()
                    .filter(|(t, _)| t.contains("MLP") || t.contains("dot-product"))
                    .map(|(_, r)| *r)
                    .collect();
                for (text, r) in all
                    .iter()
                    .filter(|(t, _)| t.starts_with("50%") || t.starts_with("T = 8D"))
                {
                    for (a, b) in &lines {
                        if r.crosses(*a, *b) {
                            faults.push(format!("{w} px, D = {d}: “{text}” {r:?} on {a:?}–{b:?}"));
                        }
                    }
                    for l in &legend {
                        if l.overlap(r) > 0 {
                            faults.push(format!("{w} px, D = {d}: “{text}” on the legend"));
                        }
                    }
                }
            }
        }
        assert!(faults.is_empty(), "{}", faults.join("\n"));
    }
}
