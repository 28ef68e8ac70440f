//! Charts drawn with plotters, generic over the drawing backend (canvas in the
//! browser, SVG in native tests). They take plain data, never signals.

pub mod collective_size;
pub mod inference;
pub mod overlap;
pub mod roofline;
pub mod serving;
pub mod trace;
pub mod training;
pub mod transformer;

use plotters::style::RGBColor;

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
