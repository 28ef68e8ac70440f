//! Charts drawn with plotters, generic over the drawing backend. They take plain
//! data, never signals.
//!
//! Every chart on a page is inline SVG drawn by [`svg`]: at build time the
//! static page holds the chart at the chapter's parameters, and in the browser
//! the live widget redraws the same SVG, so the static figure and the live one
//! are the same markup (no layout shift) and both stay sharp at any pixel
//! density. Charts are always drawn in the light palette; the dark theme
//! recolours them in CSS ([`dark_theme_css`]), so switching themes needs no
//! redraw and a static figure follows the reader's theme before any script runs.

pub mod backend;
pub mod batch_roofline;
pub mod batch_scaling;
pub mod cache_steps;
pub mod collective_size;
pub mod gpu_collectives;
pub mod inference;
pub mod overlap;
pub mod overlap_timeline;
pub mod pipeline;
pub mod place;
pub mod px;
pub mod remat;
pub mod roofline;
pub mod rooflines;
pub mod serving;
pub mod serving_engine;
pub mod size;
pub mod speculative;
pub mod strong_scaling;
pub mod style;
pub mod text;
pub mod trace;
pub mod training;
pub mod transformer;
pub mod weight_stationary;

use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, IntoDrawingArea};
use plotters::style::RGBColor;
use plotters_svg::SVGBackend;

use backend::Svg;

/// Draws with `draw` into a `width` × `height` SVG, returned as markup that
/// scales to its container's width (its `viewBox` keeps the proportions),
/// together with what `draw` returned (a plot area used to map pointer
/// positions back to data, for instance). Text is measured by estimate, the
/// same natively and in wasm ([`backend`]).
pub fn svg<T>(
    width: u32,
    height: u32,
    draw: impl FnOnce(&DrawingArea<Svg<'_>, Shift>) -> T,
) -> (String, T) {
    let mut out = String::new();
    let result = {
        let root = Svg(SVGBackend::with_string(&mut out, (width, height))).into_drawing_area();
        let result = draw(&root);
        // Presenting a string backend only flushes the closing tag; it cannot fail.
        let _ = root.present();
        result
    };
    // plotters writes fixed pixel sizes; the viewBox alone sizes the figure,
    // and CSS gives it the container's width.
    let fixed = format!(r#"<svg width="{width}" height="{height}" "#);
    let out = backend::merge_strokes(&out.replacen(&fixed, r#"<svg class="chart-svg" "#, 1));
    (out, result)
}

fn hex(c: RGBColor) -> String {
    format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2)
}

/// One rule per light palette colour, as plotters writes it into `fill` and
/// `stroke` attributes, mapping it to its dark counterpart inside a
/// `.chart-svg` below `scope` (a selector, or nothing).
fn dark_rules(scope: &str) -> String {
    let (light, dark) = (palette(false), palette(true));
    let mut pairs = vec![
        (light.background, dark.background),
        (light.text, dark.text),
        (light.grid, dark.grid),
        (light.good, dark.good),
        (light.bad, dark.bad),
    ];
    pairs.extend(light.series.into_iter().zip(dark.series));
    let mut rules = String::new();
    for (l, d) in pairs {
        let (l, d) = (hex(l), hex(d));
        if l == d {
            continue;
        }
        for attr in ["fill", "stroke"] {
            rules.push_str(&format!(
                "  {scope} .chart-svg [{attr}=\"{l}\"] {{ {attr}: {d}; }}\n"
            ));
        }
    }
    rules
}

/// The stylesheet rules that recolour charts for the dark theme: each colour
/// of the light palette, as plotters writes it into `fill` and `stroke`
/// attributes, is mapped to its dark counterpart. They apply when the reader
/// chose the dark theme (`data-theme="dark"` on the root) and when the system
/// prefers dark and the reader made no choice, before any script runs; on
/// screens only (print is light).
pub fn dark_theme_css() -> String {
    // Screens only: a printed page is always light.
    format!(
        "/* Generated from app/src/charts/mod.rs: charts in the dark theme. */\n@media screen {{\n{}}}\n@media screen and (prefers-color-scheme: dark) {{\n{}}}\n",
        dark_rules(":root[data-theme=\"dark\"]"),
        dark_rules(":root:not([data-theme=\"light\"])"),
    )
}

/// The same recolouring for a chart saved as an SVG file of its own and shown
/// by `<img>` (which does not see the page's stylesheet): a `<style>` body
/// that follows the system's preference, the only one a page without
/// JavaScript knows. The file's chart layers must keep their `chart-svg` class.
pub fn dark_file_css() -> String {
    format!(
        "@media screen and (prefers-color-scheme: dark) {{\n{}}}\n",
        dark_rules("")
    )
}

/// Colours for one theme. The series colours are the Okabe–Ito palette, which
/// stays distinguishable under the common forms of colour blindness.
#[derive(Debug, Clone, Copy)]
pub struct Palette {
    /// Chart background.
    pub background: RGBColor,
    /// Axes and text.
    pub text: RGBColor,
    /// Grid lines.
    pub grid: RGBColor,
    /// Series colours, in order.
    pub series: [RGBColor; 6],
    /// Compute-bound (the good side of the ridge).
    pub good: RGBColor,
    /// Memory- or communication-bound.
    pub bad: RGBColor,
}

/// The palette for the light or dark theme.
pub fn palette(dark: bool) -> Palette {
    let series = [
        RGBColor(0, 114, 178),   // blue
        RGBColor(230, 159, 0),   // orange
        RGBColor(0, 158, 115),   // bluish green
        RGBColor(204, 121, 167), // reddish purple
        RGBColor(86, 180, 233),  // sky blue
        RGBColor(213, 94, 0),    // vermillion
    ];
    if dark {
        Palette {
            background: RGBColor(24, 26, 31),
            text: RGBColor(225, 228, 232),
            grid: RGBColor(70, 75, 85),
            series: [
                RGBColor(86, 180, 233),
                series[1],
                series[2],
                series[3],
                RGBColor(0, 114, 178),
                series[5],
            ],
            good: RGBColor(0, 190, 140),
            bad: RGBColor(240, 140, 60),
        }
    } else {
        Palette {
            background: RGBColor(255, 255, 255),
            text: RGBColor(34, 38, 46),
            grid: RGBColor(215, 219, 226),
            series,
            good: RGBColor(0, 130, 95),
            bad: RGBColor(200, 85, 0),
        }
    }
}

/// A chart colour as plotters writes it into SVG attributes, for tests.
#[cfg(test)]
pub(crate) fn svg_colour(c: plotters::style::RGBColor) -> String {
    format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2)
}
