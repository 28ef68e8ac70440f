//! How much room a line of chart text takes, estimated: the SVG backend cannot
//! measure text (the browser lays it out), so every chart sizes and places its
//! labels and legends from these estimates. A leaf module: the placer (`place`)
//! and the chart style (`style`) both read it.

use super::px;
use ridgeline_core::check::whole;

/// The size in pixels of one line of text of `size` pixels, estimated from
/// the average advance of a sans-serif face (0.6 em per character) with a
/// little padding: the SVG backend cannot measure text (the browser lays it
/// out), so placement must not depend on exact glyph widths.
pub fn text_box(text: &str, size: u32) -> (i32, i32) {
    let chars = text.chars().count() as f64;
    let size = f64::from(size);
    (
        px::px((chars * size * 0.6).ceil()) + 4,
        px::px((size * 1.3).ceil()),
    )
}

/// `text` cut short with an ellipsis so that one line of it at `size` pixels
/// is at most `max_w` pixels wide by [`text_box`]'s estimate; whole if it
/// fits. A legend names the reader's own chips and models, whose names may be
/// of any length, and must stay inside its chart.
pub fn fit_width(text: &str, size: u32, max_w: i32) -> std::borrow::Cow<'_, str> {
    if text_box(text, size).0 <= max_w {
        return text.into();
    }
    // The characters that fit beside the ellipsis (one more character).
    let per = f64::from(size) * 0.6;
    // A zero font size leaves room for every character.
    let keep = whole::<usize>(f64::from((max_w - 4).max(0)) / per).unwrap_or(usize::MAX);
    let kept: String = text.chars().take(keep.saturating_sub(1)).collect();
    format!("{}…", kept.trim_end()).into()
}

/// Whether one line of `text` at `size` pixels, starting at pixel `x`, passes
/// pixel `right` (a plot's right edge): a label that would is drawn to end at
/// its point instead.
pub fn passes(x: i32, text: &str, size: u32, right: i32) -> bool {
    x + text_box(text, size).0 > right
}

/// The size of a plotters legend box with these entries at `font` pixels
/// (the swatch, margins and one row per entry).
pub fn legend_box(labels: &[&str], font: u32) -> (i32, i32) {
    let widest = labels
        .iter()
        .map(|l| text_box(l, font).0)
        .max()
        .unwrap_or(0);
    let rows = px::coord(labels.len());
    (widest + 50, rows * (px::coord(font) + 6) + 20)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_label_is_cut_to_the_width_and_a_short_one_kept() {
        assert_eq!(fit_width("NVIDIA H100", 12, 200), "NVIDIA H100");
        let long = "my very own accelerator with a name far too long for any phone's legend";
        for max in [60, 150, 240] {
            let cut = fit_width(long, 12, max);
            assert!(cut.ends_with('…'), "{cut}");
            assert!(text_box(&cut, 12).0 <= max, "{cut} in {max}");
            assert!(long.starts_with(cut.trim_end_matches('…')), "{cut}");
        }
        // No room at all still gives a mark that something was there.
        assert_eq!(fit_width(long, 12, 0), "…");
    }
}
