//! Character.ai's KV-cache layout drawn beside the plain one
//! (`data-widget="shared-kv"`, Part 7, "Tricks that shrink the cache"), a
//! static figure: twelve layers, each global with a cache of its own, against
//! the same layers with one global layer in six, the global layers sharing
//! one cache across the model and neighbouring local layers sharing theirs.
//! The layout and the rows each holds are `core`'s
//! `inference::shared_cache_layout` and `shared_cache_size`; a row's bytes
//! are one layer's share of `kv_bytes_per_token` for LLaMA 2-13B in bf16.

use super::figure::{drawing, label, line, rect};
use leptos::prelude::*;
use ridgeline_core::dtype::Dtype;
use ridgeline_core::format::{grouped, si};
use ridgeline_core::inference::{
    shared_cache_layout, shared_cache_size, LayerCache, SharedCacheSize,
};
use ridgeline_core::model::accounting::kv_bytes_per_token;
use ridgeline_core::model::config::model;

/// Layers drawn, one global layer in every `GLOBAL_EVERY`, local layers
/// sharing a cache in groups of at most `LOCAL_SHARE`.
const LAYERS: usize = 12;
const GLOBAL_EVERY: usize = 6;
const LOCAL_SHARE: usize = 3;
/// The context and the local layers' window, in tokens.
const CONTEXT: u64 = 8192;
const WINDOW: u64 = 1024;
/// A longer context, where the saving grows.
const LONG: u64 = 32_768;
/// The model whose heads price a row.
const MODEL: &str = "llama2-13b";

/// A layer column's pitch and box size, the left margin, and the height of a
/// full-context cache.
const PITCH: f64 = 30.0;
const BOX: f64 = 24.0;
const LEFT: f64 = 30.0;
const TALL: f64 = 64.0;

/// The figure's numbers: the layout, its rows at `CONTEXT` and `LONG`,
/// and a row's bytes.
pub fn numbers() -> Result<(Vec<LayerCache>, [SharedCacheSize; 2]), String> {
    let layout = shared_cache_layout(LAYERS, GLOBAL_EVERY, LOCAL_SHARE)?;
    let m = model(MODEL).ok_or("no LLaMA 2-13B preset")?;
    let row = kv_bytes_per_token(&m.config, Dtype::Bf16).0 / m.config.layers as f64;
    let at = |c| shared_cache_size(&layout, c, WINDOW, row);
    let sizes = [at(CONTEXT)?, at(LONG)?];
    Ok((layout, sizes))
}

/// The x of layer `l`'s column.
fn column(l: usize) -> f64 {
    let l = l as f64;
    LEFT + l * PITCH
}

/// The figure.
#[component]
pub fn SharedKv(
    /// The chapter's arguments (none).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    drop(args);
    let (layout, [size, long]) = match numbers() {
        Ok(n) => n,
        Err(e) => {
            return view! { <p class="notice" role="status">{e}</p> }.into_any();
        }
    };
    let local = TALL * WINDOW as f64 / CONTEXT as f64;
    let mut parts = vec![label(
        8.0,
        16.0,
        "start",
        "fig-title",
        "Plain: every layer global, a cache each",
    )];
    let top = 26.0;
    for l in 0..LAYERS {
        let x = column(l);
        parts.push(rect(x, top, BOX, BOX, "fig-box"));
        parts.push(label(x + BOX / 2.0, top + 16.0, "middle", "", "G"));
        parts.push(rect(x + 4.0, top + BOX + 4.0, BOX - 8.0, TALL, "fig-miss"));
    }
    let y0 = top + BOX + TALL + 30.0;
    parts.push(label(
        8.0,
        y0,
        "start",
        "fig-title",
        "Character.ai: mostly local, caches shared",
    ));
    // The global layers' one cache, and an arc joining the layers that share it.
    let row = y0 + 34.0;
    let globals: Vec<usize> = (0..LAYERS).filter(|&l| layout[l].global).collect();
    if let (Some(&first), Some(&last)) = (globals.first(), globals.last()) {
        let arc = row - 10.0;
        for &g in &globals {
            let x = column(g) + BOX / 2.0;
            parts.push(line(x, arc, x, row, "fig-flow"));
        }
        parts.push(line(
            column(first) + BOX / 2.0,
            arc,
            column(last) + BOX / 2.0,
            arc,
            "fig-flow",
        ));
        parts.push(label(
            (column(first) + column(last) + BOX) / 2.0,
            arc - 5.0,
            "middle",
            "fig-muted",
            "global layers share one cache",
        ));
    }
    for (l, c) in layout.iter().enumerate() {
        let x = column(l);
        let (class, text) = if c.global {
            ("fig-box", "G")
        } else {
            ("fig-hit", "L")
        };
        parts.push(rect(x, row, BOX, BOX, class));
        parts.push(label(x + BOX / 2.0, row + 16.0, "middle", "", text));
        // Each cache once, under the first layer that uses it, as wide as
        // the neighbours sharing it.
        if layout[..l].iter().any(|p| p.cache == c.cache) {
            continue;
        }
        let span = layout[l..]
            .iter()
            .take_while(|p| p.cache == c.cache)
            .count();
        let w = (span as f64 - 1.0) * PITCH + BOX - 8.0;
        let (h, class) = if c.global {
            (TALL, "fig-miss")
        } else {
            (local, "fig-hit")
        };
        parts.push(rect(x + 4.0, row + BOX + 4.0, w, h, class));
    }
    let height = row + BOX + TALL + 12.0;
    let rows = |n: u64| grouped(n as f64);
    let summary = format!(
        "At a context of {} tokens and a window of {}, the plain layers keep {} caches of {} rows, \
         {} rows in all; the shared layout keeps {} caches, {} rows, {:.1}× fewer. \
         With rows the size of LLaMA 2-13B's (one layer's keys and values for a token in bf16, {}), \
         that is {} against {} per sequence. At {} tokens the layout's cache is {:.1}× smaller.",
        rows(CONTEXT),
        rows(WINDOW),
        LAYERS,
        rows(CONTEXT),
        rows(size.plain_rows),
        size.caches,
        rows(size.rows),
        size.reduction(),
        si(size.plain_bytes.0 / size.plain_rows as f64, "B", 3),
        si(size.plain_bytes.0, "B", 3),
        si(size.bytes.0, "B", 3),
        rows(LONG),
        long.reduction(),
    );
    view! {
        <figure class="widget fig shared-kv" data-widget="shared-kv">
            {drawing(height, "Twelve layers each with a full cache, against mostly local layers sharing caches", parts)}
            <p data-numbers="">{summary}</p>
            <figcaption>
                "G marks a global layer, L a local one; the bar under a layer is the cache it writes, \
                 as tall as the tokens it keeps. A local layer keeps only the window, and neighbouring \
                 local layers write one cache between them. The global layers, one in six, are not \
                 neighbours, yet they too share one cache, the only one that grows with the whole context."
            </figcaption>
        </figure>
    }
    .into_any()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_figure_shows_cores_layout_and_sizes() {
        let none: Vec<(String, String)> = Vec::new();
        let html = Owner::new().with(|| view! { <SharedKv args=none /> }.to_html());
        assert!(html.contains(r#"data-widget="shared-kv""#));
        // 12 · 8,192 rows against one global cache and four windows of 1,024.
        assert!(
            html.contains("12 caches of 8,192 rows, 98,304 rows in all"),
            "{html}"
        );
        assert!(
            html.contains("keeps 5 caches, 12,288 rows, 8.0× fewer"),
            "{html}"
        );
        // A row: 40 heads · 128 · 2 (K and V) · 2 bytes = 20,480 B.
        assert!(html.contains("20.5 kB"), "{html}");
        assert!(html.contains("2.01 GB against 252 MB"), "{html}");
        // 12 · 32,768 / (32,768 + 4 · 1,024) = 10.7.
        assert!(html.contains("smaller"), "{html}");
        assert!(html.contains("is 10.7× smaller"), "{html}");
        // Two global boxes among twelve in the layout, twelve in the plain row.
        assert_eq!(html.matches(">G<").count(), 14, "{html}");
        assert_eq!(html.matches(">L<").count(), 10);
        // One cache bar per plain layer and per shared cache: 12 + 5 bars.
        assert_eq!(html.matches("fig-miss").count(), 13);
        assert_eq!(html.matches("class=\"fig-hit\"").count(), 10 + 4);
    }
}
