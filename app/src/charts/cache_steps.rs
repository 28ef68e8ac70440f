//! Generation with and without a KV cache, step by step (the `cache-steps`
//! widget's drawing): one row per forward pass, one cell per token position.

use super::px;
use crate::charts::palette;
use crate::charts::style::{font, TICK};
use plotters::coord::Shift;
use plotters::prelude::*;
use ridgeline_core::inference::TokenPasses;

/// The panels' titles, from `core`'s counts.
pub fn titles(t: &TokenPasses) -> [String; 2] {
    [
        format!("no cache: {} token passes", t.naive),
        format!("KV cache: {} token passes", t.cached),
    ]
}

/// Draws both panels, side by side on a wide drawing and stacked on a narrow
/// one. Row `k` of the left panel runs the whole prefix, `prompt + k − 1`
/// positions (filled); in the right panel the first row (prefill) runs the
/// prompt and each later row runs only the newest token while the earlier
/// positions are read from the cache (outlined). The token each pass samples
/// is the ringed cell at the end of its row, the position the next pass adds.
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    prompt: u32,
    generated: u32,
    passes: &TokenPasses,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let pal = palette(false);
    root.fill(&pal.background)?;
    let (w, h) = root.dim_in_pixel();
    let (w, h) = (px::coord(w), px::coord(h));
    let side = w >= 560;
    let panels = if side {
        root.split_evenly((1, 2))
    } else {
        root.split_evenly((2, 1))
    };
    let (pw, ph) = if side { (w / 2, h) } else { (w, h / 2) };
    let (p, n) = (px::coord(prompt), px::coord(generated));
    let cols = p + n; // every position, and the last sampled token
    let title_h = 30;
    let cell = ((pw - 24) / cols)
        .min((ph - title_h - 8) / n.max(1))
        .clamp(4, 24);
    let (run, sampled) = (pal.series[0], pal.series[2]);
    for (i, (panel, title)) in panels.iter().zip(titles(passes)).enumerate() {
        panel.draw(&Text::new(title, (8, 6), font(TICK + 1, &pal.text)))?;
        for k in 1..=n {
            let y = title_h + (k - 1) * cell;
            let last = p + k - 1; // the positions this pass covers end here
            for c in 0..last {
                let x = 8 + c * cell;
                let rect = [(x + 1, y + 1), (x + cell - 1, y + cell - 1)];
                let new = i == 0 || k == 1 || c == last - 1;
                if new {
                    panel.draw(&Rectangle::new(rect, run.filled()))?;
                } else {
                    panel.draw(&Rectangle::new(rect, run.stroke_width(2)))?;
                }
            }
            let x = 8 + last * cell + cell / 2;
            panel.draw(&Circle::new(
                (x, y + cell / 2),
                (cell / 2 - 2).max(2),
                sampled.stroke_width(2),
            ))?;
        }
    }
    Ok(())
}
