//! Serving charts (Part 8): the latency–throughput Pareto curve of a served
//! model, and the per-token latency broken into weight loading, KV-cache loading
//! and the FLOPs beyond weight loading, stacked against the batch.

use super::px;
use plotters::coord::Shift;
use plotters::prelude::*;
use ridgeline_core::format::{grouped, sci};
use ridgeline_core::inference::ParetoPoint;

use super::palette;
use super::place::{draw_label, placer_for, Rect};
use super::style::{
    draw_legend_below, fit_text, font, legend_below_height, legend_on, log_ticks, Entry, Mark,
    Styled, NARROW, NOTE, TITLE,
};
use super::text::text_box;

/// One stacked layer: legend label, its top edge, its colour.
type Layer = (&'static str, Vec<(f64, f64)>, RGBColor);

fn span(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    let (lo, hi) = values
        .filter(|v| v.is_finite() && *v > 0.0)
        .fold((f64::INFINITY, 0.0f64), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    (lo.is_finite() && hi >= lo).then_some((lo, hi))
}

/// Throughput per chip against per-token latency, one point per batch, with the
/// reader's batch marked.
pub fn draw_pareto<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    points: &[ParetoPoint],
    mark: Option<&ParetoPoint>,
    second: Option<(&str, &[ParetoPoint])>,
    dark: bool,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let pal = palette(dark);
    root.fill(&pal.background)?;
    let at = |p: &ParetoPoint| (p.step.total.0 * 1e3, p.tokens_per_sec_per_chip);
    let xy: Vec<(f64, f64)> = points.iter().map(at).collect();
    let other: Vec<(f64, f64)> = second.map_or(Vec::new(), |s| s.1.iter().map(at).collect());
    let all = || xy.iter().chain(&other).copied().chain(mark.map(at));
    let (Some(xs), Some(ys)) = (span(all().map(|p| p.0)), span(all().map(|p| p.1))) else {
        return Ok(());
    };
    let mut chart = ChartBuilder::on(root)
        .margin(14)
        .margin_right(28)
        .x_label_area_size(44)
        .y_label_area_size(70)
        .build_cartesian_2d(
            (xs.0 / 1.3..xs.1 * 1.3)
                .log_scale()
                .with_key_points(log_ticks(xs.0 / 1.3, xs.1 * 1.3)),
            (ys.0 / 1.5..ys.1 * 1.5)
                .log_scale()
                .with_key_points(log_ticks(ys.0 / 1.5, ys.1 * 1.5)),
        )?;
    chart
        .configure_mesh()
        .x_desc("latency per token (ms)")
        .y_desc("throughput (tokens/s per chip)")
        .x_label_formatter(&|x| sci(*x, 2))
        .y_label_formatter(&|y| sci(*y, 2))
        .styled(&pal)
        .draw()?;
    let colour = pal.series[0];
    chart.draw_series(LineSeries::new(xy.clone(), colour.stroke_width(3)))?;
    chart.draw_series(
        xy.iter()
            .map(|&(x, y)| Circle::new((x, y), 3, colour.filled())),
    )?;
    // The legend first, in the corner the frontiers leave free, then the
    // labels clear of it.
    let mut legend = vec![Entry::new(
        fit_text(
            root,
            "Pareto frontier (batch 1 → largest that fits)",
            "Pareto frontier",
        ),
        colour,
        Mark::Line(3),
    )];
    if let Some((name, _)) = second {
        legend.push(Entry::new(
            format!("on {name}"),
            pal.series[5],
            Mark::Dashed,
        ));
    }
    let mut placer = placer_for(&chart, &[&xy, &other]);
    let your_batch = mark.map(|m| {
        let at = (m.step.total.0 * 1e3, m.tokens_per_sec_per_chip);
        let text = format!("your batch: {}", grouped(m.batch));
        let (x, y) = chart.backend_coord(&(at.0 * 1.06, at.1 / 1.35));
        placer.avoid_point(chart.backend_coord(&at), 9);
        let (w, h) = text_box(&text, TITLE);
        placer.avoid_box(Rect::new(x, y, w, h));
        (m, at, text)
    });
    let position = placer.legend_for(&legend);
    if let (Some(first), Some(last)) = (points.first(), points.last()) {
        // The frontier's ends, labelled where they cross neither frontier
        // (on a phone the last batch's label sat on the flat top of the line).
        for p in [first, last] {
            let text = format!("B = {}", grouped(p.batch));
            let at = chart.backend_coord(&at(p));
            placer.avoid_point(at, 4);
            draw_label(root, &mut placer, at, &text, NOTE, &pal.text, 5)?;
        }
    }
    if let Some((m, at, text)) = your_batch {
        let c = if m.fits { pal.series[1] } else { pal.bad };
        chart.draw_series(std::iter::once(Circle::new(at, 8, c.filled())))?;
        chart.draw_series(std::iter::once(Text::new(
            text,
            (at.0 * 1.06, at.1 / 1.35),
            font(TITLE, &c),
        )))?;
    }
    if second.is_some() {
        // The second chip's frontier, dashed in vermillion (series 5).
        let colour = pal.series[5];
        chart.draw_series(DashedLineSeries::new(other, 6, 4, colour.stroke_width(3)))?;
    }
    legend_on(&chart, &legend, position, &pal)?;
    Ok(())
}

/// Per-token latency against batch, stacked: KV-cache loading, weight loading,
/// and the FLOPs time beyond weight loading (non-zero only where the weight
/// matmuls are compute-bound, which is shaded).
pub fn draw_breakdown<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    points: &[ParetoPoint],
    dark: bool,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let pal = palette(dark);
    root.fill(&pal.background)?;
    let Some(bs) = span(points.iter().map(|p| p.batch)) else {
        return Ok(());
    };
    let top = points
        .iter()
        .map(|p| p.step.total.0 * 1e3)
        .fold(0.0, f64::max);
    if !(top.is_finite() && top > 0.0) {
        return Ok(());
    }
    let x_hi = if bs.1 > bs.0 { bs.1 } else { bs.0 * 2.0 };
    let shaded = points.iter().find(|p| p.step.flops >= p.step.param_load);
    // A phone's plot has no room for the legend box or the shaded band's
    // note: the legend goes under the plot, with the band as its last entry.
    let (width, height) = root.dim_in_pixel();
    let narrow = width < NARROW;
    let below = if narrow {
        legend_below_height(3 + usize::from(shaded.is_some()))
    } else {
        0
    };
    let mut chart = ChartBuilder::on(root)
        .margin(14)
        .margin_right(28)
        .margin_bottom(14 + below)
        .x_label_area_size(44)
        .y_label_area_size(70)
        .build_cartesian_2d((bs.0..x_hi).log_scale(), 0.0..top * 1.12)?;
    chart
        .configure_mesh()
        .x_desc("batch (sequences)")
        .y_desc(fit_text(root, "latency per token (ms)", "ms per token"))
        .x_label_formatter(&|x| sci(*x, 2))
        .y_label_formatter(&|y| sci(*y, 2))
        .styled(&pal)
        .draw()?;
    // Shade the batches where the weight matmuls are compute-bound.
    let band = "MLP compute-bound";
    if let Some(first) = shaded {
        chart.draw_series(std::iter::once(Rectangle::new(
            [(first.batch, 0.0), (x_hi, top * 1.12)],
            pal.grid.mix(0.45).filled(),
        )))?;
        if !narrow {
            chart.draw_series(std::iter::once(Text::new(
                band,
                (first.batch * 1.05, top * 1.08),
                font(NOTE, &pal.text),
            )))?;
        }
    }
    let ms = |x: f64| x * 1e3;
    let layers: [Layer; 3] = [
        (
            "FLOPs beyond weight loading",
            points
                .iter()
                .map(|p| (p.batch, ms(p.step.total.0)))
                .collect(),
            pal.series[2],
        ),
        (
            "weight loading",
            points
                .iter()
                .map(|p| (p.batch, ms(p.step.kv_load.0 + p.step.param_load.0)))
                .collect(),
            pal.series[0],
        ),
        (
            "KV-cache loading",
            points
                .iter()
                .map(|p| (p.batch, ms(p.step.kv_load.0)))
                .collect(),
            pal.series[1],
        ),
    ];
    let mut legend = Vec::new();
    for (label, data, colour) in layers {
        chart.draw_series(AreaSeries::new(data, 0.0, colour.mix(0.85)).border_style(colour))?;
        legend.push(Entry::new(label, colour, Mark::Swatch));
    }
    if narrow {
        if shaded.is_some() {
            legend.push(Entry::new(band, pal.grid, Mark::Tint));
        }
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
    use ridgeline_core::dtype::Dtype;
    use ridgeline_core::hardware::chip;
    use ridgeline_core::inference::{pareto_series, Precision, ServingModel, ServingSlice};

    fn series(seq: f64) -> Vec<ParetoPoint> {
        let m = ServingModel::preset("llama3-70b").unwrap();
        let s = ServingSlice::new(chip("v5e").unwrap(), 16).unwrap();
        pareto_series(&m, Precision::stored(Dtype::Int8), &s, seq, 40).unwrap()
    }

    #[test]
    fn pareto_chart_labels_axes_and_ends() {
        let pts = series(2048.0);
        let mut out = String::new();
        {
            let root = SVGBackend::with_string(&mut out, (760, 400)).into_drawing_area();
            draw_pareto(&root, &pts, pts.get(10), None, false).unwrap();
            root.present().unwrap();
        }
        assert!(out.contains("latency per token (ms)"));
        assert!(out.contains("throughput (tokens/s per chip)"));
        let i = out.find("B = ").unwrap_or(0);
        assert!(
            out.contains("B = 1\n") || out.contains("B = 1<"),
            "first batch label: {}",
            &out[i..(i + 80).min(out.len())]
        );
        assert!(out.contains(&format!("B = {}", grouped(pts.last().unwrap().batch))));
        assert!(out.contains("your batch"));
    }

    /// On a phone the last batch's label sat on the frontier's flat top: at
    /// every width, neither end's label crosses the frontier.
    #[test]
    fn the_end_labels_cross_no_frontier() {
        use crate::charts::place::{segments, texts};
        let mut faults = Vec::new();
        for (w, h) in [(320, 320), (337, 320), (390, 340), (760, 400)] {
            for seq in [1024.0, 2048.0, 8192.0] {
                let pts = series(seq);
                let mut out = String::new();
                {
                    let root = SVGBackend::with_string(&mut out, (w, h)).into_drawing_area();
                    draw_pareto(&root, &pts, None, None, false).unwrap();
                    root.present().unwrap();
                }
                let line = segments(&out, r#"stroke-width="3""#);
                assert!(line.len() > 10, "{w} px: no frontier");
                let labels: Vec<_> = texts(&out)
                    .into_iter()
                    .filter(|(t, _)| t.starts_with("B = "))
                    .collect();
                assert_eq!(labels.len(), 2, "{w} px: {labels:?}");
                for (t, r) in &labels {
                    if let Some((a, b)) = line.iter().find(|(a, b)| r.crosses(*a, *b)) {
                        faults.push(format!("{w} px, T = {seq}: “{t}” {r:?} on {a:?}–{b:?}"));
                    }
                }
            }
        }
        assert!(faults.is_empty(), "{}", faults.join("\n"));
    }

    #[test]
    fn breakdown_stacks_three_layers_and_shades_compute_bound() {
        let pts = series(2048.0);
        let mut out = String::new();
        {
            let root = SVGBackend::with_string(&mut out, (760, 400)).into_drawing_area();
            draw_breakdown(&root, &pts, false).unwrap();
            root.present().unwrap();
        }
        for label in [
            "KV-cache loading",
            "weight loading",
            "FLOPs beyond weight loading",
            "MLP compute-bound",
            "batch (sequences)",
        ] {
            assert!(out.contains(label), "{label} missing");
        }
        // Long contexts fit fewer sequences: the largest batch shrinks.
        assert!(series(8192.0).last().unwrap().batch < pts.last().unwrap().batch);
    }

    #[test]
    fn empty_series_draw_nothing_and_do_not_fail() {
        let mut out = String::new();
        let root = SVGBackend::with_string(&mut out, (100, 100)).into_drawing_area();
        draw_pareto(&root, &[], None, None, true).unwrap();
        draw_breakdown(&root, &[], true).unwrap();
    }
}
