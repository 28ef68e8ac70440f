//! Chart styling in one place: text sizes, the axes and grid, the legend box.
//! Every chart module draws its text with [`font`], styles its mesh with
//! [`Styled::styled`] and draws its legend with [`draw_legend`], so a change of
//! look is made here once.
//!
//! Sizes are CSS pixels: charts are drawn at their box's CSS width
//! (`super::size`), so 12 units is 12 CSS pixels on every screen.

use super::px;
use plotters::chart::{MeshStyle, SeriesLabelPosition};
use plotters::coord::ranged1d::{Ranged, ValueFormatter};
use plotters::coord::CoordTranslate;
use plotters::prelude::*;
use plotters::style::{RGBColor, TextStyle};

use super::Palette;
use ridgeline_core::check::whole;

/// The font family of every chart.
pub const FAMILY: &str = "sans-serif";
/// Axis titles.
pub const TITLE: u32 = 14;
/// Annotations on the plot: ridge labels, values on bars, point labels.
pub const NOTE: u32 = 13;
/// Tick labels and legend entries; also the smallest text any chart draws.
pub const TICK: u32 = 12;

/// plotters' SVG backend writes a font of size `s` as `font-size = s / 1.24`
/// (its point-to-pixel guess); sizes here are CSS pixels, so they are scaled
/// up by the same factor before plotters sees them.
const SVG_FONT_SCALE: f64 = 1.24;

/// Text of `size` CSS pixels (never below [`TICK`]) in `colour`.
pub fn font(size: u32, colour: &RGBColor) -> TextStyle<'static> {
    (FAMILY, f64::from(size.max(TICK)) * SVG_FONT_SCALE)
        .into_font()
        .color(colour)
}

/// The house style of a plotters style builder, given the palette.
pub trait Styled {
    /// Applies fonts, colours and lines from `pal`.
    fn styled(&mut self, pal: &Palette) -> &mut Self;
}

impl<'a, 'b, X, Y, DB> Styled for MeshStyle<'a, 'b, X, Y, DB>
where
    X: Ranged + ValueFormatter<X::ValueType>,
    Y: Ranged + ValueFormatter<Y::ValueType>,
    DB: DrawingBackend,
{
    fn styled(&mut self, pal: &Palette) -> &mut Self {
        self.axis_desc_style(font(TITLE, &pal.text))
            .label_style(font(TICK, &pal.text))
            .bold_line_style(pal.grid)
            .light_line_style(pal.grid.mix(0.35))
            // At most four faint lines between two labelled ones: enough to read
            // a value off, and each is bytes in every static figure.
            .max_light_lines(4)
            .axis_style(pal.text)
    }
}

/// Charts narrower than this draw their legend under the plot rather than in
/// it: on a phone a legend box would cover much of a small plotting area.
pub const NARROW: u32 = 560;

/// `short` on a chart narrower than [`NARROW`], `full` otherwise: for a
/// title or legend entry wider than a phone's plot.
pub fn fit_text<'a, DB: DrawingBackend>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
    full: &'a str,
    short: &'a str,
) -> &'a str {
    if root.dim_in_pixel().0 < NARROW {
        short
    } else {
        full
    }
}

/// The intensity axis's title, shortened on a narrow chart (the full title
/// is wider than a phone's plot).
pub fn intensity_title(narrow: bool) -> &'static str {
    if narrow {
        "intensity (FLOPs/byte)"
    } else {
        "arithmetic intensity (FLOPs per byte)"
    }
}

/// How a legend entry shows its series.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    /// A solid line this many pixels wide.
    Line(u32),
    /// A dashed line.
    Dashed,
    /// A filled swatch, for bars and areas.
    Swatch,
    /// A filled dot, for measured points.
    Dot,
    /// A light swatch, for a faintly filled area.
    Tint,
}

/// Where an entry's label starts, in pixels from its mark's left end.
const LABEL_AT: i32 = 26;

/// One entry of a legend drawn by [`draw_legend`] or [`draw_legend_below`].
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The text.
    pub label: String,
    /// The series' colour.
    pub colour: RGBColor,
    /// How the series is shown.
    pub mark: Mark,
}

impl Entry {
    /// An entry for a series of `colour` shown as `mark`.
    pub fn new(label: impl Into<String>, colour: RGBColor, mark: Mark) -> Entry {
        Entry {
            label: label.into(),
            colour,
            mark,
        }
    }

    /// Draws the entry's mark from `(x, cy)` (its left end, vertically centred)
    /// and its label after it, cut to end by pixel `right` of `area`.
    fn draw<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, plotters::coord::Shift>,
        (x, cy): (i32, i32),
        right: i32,
        pal: &Palette,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        match self.mark {
            Mark::Line(w) => {
                area.draw(&PathElement::new(
                    vec![(x, cy), (x + 18, cy)],
                    self.colour.stroke_width(w),
                ))?;
            }
            Mark::Dashed => {
                for k in 0..3 {
                    let x0 = x + k * 7;
                    area.draw(&PathElement::new(
                        vec![(x0, cy), (x0 + 4, cy)],
                        self.colour.stroke_width(2),
                    ))?;
                }
            }
            Mark::Dot => {
                area.draw(&Circle::new((x + 9, cy), 4, self.colour.filled()))?;
            }
            Mark::Tint => {
                area.draw(&Rectangle::new(
                    [(x, cy - 5), (x + 16, cy + 5)],
                    self.colour.mix(0.5).filled(),
                ))?;
            }
            Mark::Swatch => {
                area.draw(&Rectangle::new(
                    [(x, cy - 5), (x + 16, cy + 5)],
                    self.colour.filled(),
                ))?;
            }
        }
        let label = super::text::fit_width(&self.label, TICK, right - x - LABEL_AT);
        area.draw(&Text::new(
            label.into_owned(),
            (x + LABEL_AT, cy - px::coord(TICK) / 2 - 1),
            font(TICK, &pal.text),
        ))
    }
}

/// Draws a boxed legend of `entries` in `chart`'s plotting area at
/// `position` (see [`draw_legend`]).
pub fn legend_on<DB: DrawingBackend, CT: CoordTranslate>(
    chart: &ChartContext<'_, DB, CT>,
    entries: &[Entry],
    position: SeriesLabelPosition,
    pal: &Palette,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    draw_legend(
        &chart.plotting_area().strip_coord_spec(),
        entries,
        position,
        pal,
    )
}

/// Draws a boxed legend of `entries` in `area` (normally the chart's plotting
/// area), at `position`: a corner, or the pixel offset that
/// `place::Placer::legend` chose. Its size is
/// [`legend_box`](super::text::legend_box)'s, so a placed legend fills the
/// box that was kept free for it.
///
/// plotters' own legend measures each label's text, which on wasm32 inserts a
/// `<span>` into the page and forces a layout per label (see
/// [`super::backend`]); this one sizes its box from the same estimate as the
/// placement helper, so a redraw never reads the DOM.
pub fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    entries: &[Entry],
    position: SeriesLabelPosition,
    pal: &Palette,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    if entries.is_empty() {
        return Ok(());
    }
    let (aw, ah) = area.dim_in_pixel();
    let (aw, ah) = (px::coord(aw), px::coord(ah));
    let m = 6;
    // The box is `legend_box`'s: 50 pixels beside the widest label. A label
    // too wide for the area is cut (the reader's own names can be long).
    let widest = aw - 2 * m - 50;
    let labels: Vec<_> = entries
        .iter()
        .map(|e| super::text::fit_width(&e.label, TICK, widest))
        .collect();
    let labels: Vec<&str> = labels.iter().map(|l| l.as_ref()).collect();
    let (w, h) = super::text::legend_box(&labels, TICK);
    let (x, y) = match position {
        SeriesLabelPosition::Coordinate(x, y) => (x, y),
        SeriesLabelPosition::UpperRight => (aw - m - w, m),
        SeriesLabelPosition::LowerLeft => (m, ah - m - h),
        SeriesLabelPosition::LowerRight => (aw - m - w, ah - m - h),
        SeriesLabelPosition::UpperMiddle => ((aw - w) / 2, m),
        SeriesLabelPosition::MiddleLeft => (m, (ah - h) / 2),
        SeriesLabelPosition::MiddleRight => (aw - m - w, (ah - h) / 2),
        SeriesLabelPosition::MiddleMiddle => ((aw - w) / 2, (ah - h) / 2),
        SeriesLabelPosition::LowerMiddle => ((aw - w) / 2, ah - m - h),
        SeriesLabelPosition::UpperLeft => (m, m),
    };
    area.draw(&Rectangle::new(
        [(x, y), (x + w, y + h)],
        pal.background.mix(0.9).filled(),
    ))?;
    area.draw(&Rectangle::new([(x, y), (x + w, y + h)], pal.grid))?;
    let row = px::coord(TICK) + 6;
    for (i, e) in entries.iter().enumerate() {
        e.draw(
            area,
            (x + 10, y + 10 + px::coord(i) * row + row / 2),
            x + w - 4,
            pal,
        )?;
    }
    Ok(())
}

/// The height a legend of `entries` rows takes under a plot.
pub fn legend_below_height(entries: usize) -> u32 {
    px::length(entries)
        .saturating_mul(TICK + 7)
        .saturating_add(6)
}

/// Draws a legend under the plot, one entry per row, from pixel `(x, y)` of
/// `root`. plotters' own legend is drawn inside the plotting area (it clamps
/// to it), so a legend outside the plot is drawn here from its parts.
pub fn draw_legend_below<DB: DrawingBackend>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
    entries: &[Entry],
    (x, y): (i32, i32),
    pal: &Palette,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let row = px::coord(TICK + 7);
    let right = px::coord(root.dim_in_pixel().0) - 4;
    for (i, e) in entries.iter().enumerate() {
        e.draw(root, (x, y + 6 + px::coord(i) * row + row / 2), right, pal)?;
    }
    Ok(())
}

/// The lane, counted from the bottom, whose middle is at `y` on an axis of
/// `lanes` lanes one unit tall (lane `i` spans `i..i + 1`), or `None` between
/// middles and off the axis: what a timeline labels on its y axis.
pub fn lane_at(y: f64, lanes: usize) -> Option<usize> {
    let i = (y - 0.5).round();
    if (y - 0.5 - i).abs() < 1e-6 {
        whole::<usize>(i).filter(|&i| i < lanes)
    } else {
        None
    }
}

/// Tick values for a log axis over `lo..hi`: the 1–2–5 steps of each decade,
/// thinned to at most nine on long ranges and refined on short ones, so every
/// log axis has labelled ticks over the whole range that holds data (plotters
/// alone labels only whole decades, which leaves a range such as 3–40 ms with
/// one tick). Empty if the range is not positive and finite.
pub fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    if !(lo.is_finite() && hi.is_finite() && lo > 0.0 && hi > lo) {
        return Vec::new();
    }
    let ticks = |steps: &[f64]| -> Vec<f64> {
        let mut out = Vec::new();
        // One pass per decade, counted rather than multiplied: a decade
        // below about 1e-323 underflows to zero, and `decade *= 10` would
        // never pass `hi`.
        let first = px::px(lo.log10().floor());
        let last = px::px(hi.log10().ceil());
        for exp in first..=last {
            let decade = 10f64.powi(exp);
            if decade == 0.0 || !decade.is_finite() {
                continue;
            }
            for s in steps {
                let v = decade * s;
                // Step values like 0.3 come out as 0.30000000000000004; rounding
                // to a few significant figures keeps the labels exact.
                let v = format!("{v:.6e}").parse().unwrap_or(v);
                if v >= lo * (1.0 - 1e-9) && v <= hi * (1.0 + 1e-9) {
                    out.push(v);
                }
            }
        }
        out
    };
    let choices: [&[f64]; 5] = [
        &[1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
        &[1.0, 2.0, 5.0],
        &[1.0, 3.0],
        &[1.0],
        &[1.0],
    ];
    for (i, steps) in choices.iter().enumerate() {
        let t = ticks(steps);
        if (t.len() >= 3 || i == 0) && t.len() <= 9 {
            return t;
        }
    }
    // Many decades: every other (or every n-th) decade.
    let decades = ticks(&[1.0]);
    let every = decades.len().div_ceil(8).max(1);
    decades.into_iter().step_by(every).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lane_at_labels_only_lane_middles_on_the_axis() {
        assert_eq!(lane_at(0.5, 4), Some(0));
        assert_eq!(lane_at(3.5, 4), Some(3));
        assert_eq!(lane_at(1.0, 4), None, "between two middles");
        assert_eq!(lane_at(4.5, 4), None, "above the top lane");
        assert_eq!(lane_at(-0.5, 4), None, "below the axis");
        assert_eq!(lane_at(f64::NAN, 4), None);
    }

    #[test]
    fn svg_text_is_as_large_as_asked() {
        let (svg, _) = crate::charts::svg(200, 100, |root| {
            let _ = root.draw(&plotters::element::Text::new(
                "x",
                (10, 10),
                font(TICK, &RGBColor(0, 0, 0)),
            ));
        });
        assert!(svg.contains(r#"font-size="12""#), "{svg}");
    }

    /// Issue #19: a reader's chip with a long name gets its legend entry cut
    /// to the chart's width, in the box and under the plot, and a preset's
    /// descriptive label that fits is drawn whole.
    #[test]
    fn long_legend_labels_are_cut_to_the_chart() {
        let long = "my own accelerator, second revision, with the faster HBM stacks: 2.6 PFLOP/s";
        let preset = "NVIDIA H100: HBM and bf16 peak 990 TFLOPs/s";
        let pal = crate::charts::palette(false);
        let entries = [
            Entry::new(long, pal.series[0], Mark::Line(3)),
            Entry::new(preset, pal.series[1], Mark::Dashed),
        ];
        for (w, below) in [(760, false), (320, false), (320, true)] {
            let (svg, _) = crate::charts::svg(w, 200, |root| {
                let _ = if below {
                    draw_legend_below(root, &entries, (14, 100), &pal)
                } else {
                    draw_legend(root, &entries, SeriesLabelPosition::UpperLeft, &pal)
                };
            });
            // Each `<text x=… …>label</text>`: its x and its label.
            let texts: Vec<(i32, &str)> = svg
                .split("<text")
                .skip(1)
                .filter_map(|t| {
                    let x = t.split("x=\"").nth(1)?.split('"').next()?.parse().ok()?;
                    let label = t.split('>').nth(1)?.split("</text").next()?.trim();
                    Some((x, label))
                })
                .collect();
            assert_eq!(texts.len(), 2, "{svg}");
            if w == 760 {
                assert_eq!(texts[0].1, long, "room for the whole name");
                assert_eq!(texts[1].1, preset);
            } else {
                assert!(
                    texts[0].1.ends_with('…') && !texts[0].1.contains("PFLOP"),
                    "{w}: {texts:?}"
                );
            }
            for (x, t) in &texts {
                // Each label ends inside the chart by the placement estimate.
                let end = x + crate::charts::text::text_box(t, TICK).0;
                assert!(end <= w as i32, "{w} px: “{t}” ends at {end}");
            }
        }
    }

    #[test]
    fn log_ticks_cover_short_and_long_ranges() {
        // 3 ms to 40 ms: 5, 10, 20 (and 30, 40) rather than 10 alone.
        let t = log_ticks(3.0, 40.0);
        assert!(t.len() >= 3 && t.len() <= 9, "{t:?}");
        assert!(
            t.contains(&5.0) && t.contains(&10.0) && t.contains(&20.0),
            "{t:?}"
        );
        assert!(t.iter().all(|v| (3.0..=40.0).contains(v)));
        // Less than a factor of two still gets ticks.
        let t = log_ticks(1.1, 1.9);
        assert!(
            !t.is_empty() && t.iter().all(|v| (1.1..=1.9).contains(v)),
            "{t:?}"
        );
        // Twelve decades: at most nine ticks, every one a power of ten.
        let t = log_ticks(1e-3, 1e9);
        assert!(t.len() <= 9 && t.len() >= 4, "{t:?}");
        assert!(t
            .iter()
            .all(|v| (v.log10() - v.log10().round()).abs() < 1e-9));
        assert_eq!(log_ticks(0.0, 10.0), Vec::<f64>::new());
        assert_eq!(log_ticks(f64::NAN, 10.0), Vec::<f64>::new());
    }

    /// From the smallest positive double: a decade of 10^-324 is zero, and
    /// multiplying it by ten never reached the top (the rooflines chart of a
    /// chip with a 5e-324 FLOP/s peak hung its page).
    #[test]
    fn log_ticks_end_from_the_bottom_of_the_range() {
        for (lo, hi) in [
            (5e-324, 1e10),
            (1e-320, 1e-300),
            (5e-324, f64::MAX),
            (1e300, f64::MAX),
        ] {
            let t = log_ticks(lo, hi);
            assert!(!t.is_empty() && t.len() <= 9, "{lo:e}..{hi:e}: {t:?}");
            assert!(t.iter().all(|v| v.is_finite() && *v > 0.0), "{t:?}");
        }
    }
}
