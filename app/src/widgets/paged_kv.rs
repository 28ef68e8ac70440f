//! A paged KV cache drawn beside a padded one (`data-widget="paged-kv"`,
//! Part 7, "Tricks that shrink the cache"), a static figure: three requests
//! of different lengths, each padded to the full context in one layout, and
//! in the other stored in small pages handed out from one pool, with each
//! request's block table and the slots each layout holds. The pages, block
//! tables and slot counts are `core`'s `inference::paged_cache`; the bytes
//! per token are `core`'s `kv_bytes_per_token` for LLaMA 2-13B in bf16.

use super::figure::{drawing, label, rect};
use leptos::prelude::*;
use ridgeline_core::dtype::Dtype;
use ridgeline_core::format::si;
use ridgeline_core::inference::{paged_cache, PagedCache};
use ridgeline_core::model::accounting::kv_bytes_per_token;
use ridgeline_core::model::config::model;

/// The requests' lengths in tokens, the page size and the context drawn.
const LENGTHS: [u64; 3] = [5, 11, 3];
const PAGE: u64 = 4;
const CONTEXT: u64 = 16;
/// The requests' names.
const NAMES: [&str; 3] = ["A", "B", "C"];
/// The model whose bytes per token price the slots.
const MODEL: &str = "llama2-13b";

/// One token slot's width and height.
const SLOT: f64 = 21.0;
const LEFT: f64 = 28.0;

/// The figure's numbers: the paging, and bytes per token.
pub fn numbers() -> Result<(PagedCache, f64, &'static str), String> {
    let c = paged_cache(&LENGTHS, PAGE, CONTEXT)?;
    let m = model(MODEL).ok_or("no LLaMA 2-13B preset")?;
    Ok((c, kv_bytes_per_token(&m.config, Dtype::Bf16).0, m.name))
}

/// The figure.
#[component]
pub fn PagedKv(
    /// The chapter's arguments (none).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    drop(args);
    let (c, per_token, name) = match numbers() {
        Ok(n) => n,
        Err(e) => {
            return view! { <p class="notice" role="status">{e}</p> }.into_any();
        }
    };
    let mut parts = vec![label(
        8.0,
        16.0,
        "start",
        "fig-title",
        "Padded: a full context per request",
    )];
    for (r, &len) in LENGTHS.iter().enumerate() {
        let y = 26.0 + r as f64 * (SLOT + 4.0);
        parts.push(label(8.0, y + 15.0, "start", "fig-title", NAMES[r]));
        for t in 0..CONTEXT {
            let class = if t < len { "fig-hit" } else { "fig-box" };
            parts.push(rect(LEFT + t as f64 * SLOT, y, SLOT - 3.0, SLOT, class));
        }
    }
    let pool_y = 132.0;
    parts.push(label(
        8.0,
        pool_y - 10.0,
        "start",
        "fig-title",
        &format!("Paged: pages of {PAGE} tokens from one pool"),
    ));
    // The pool: each allocated page, its number and its owner's tokens.
    for p in 0..c.pages {
        let (owner, nth) = c
            .tables
            .iter()
            .enumerate()
            .find_map(|(r, t)| t.iter().position(|&q| q == p).map(|i| (r, i)))
            .unwrap_or((0, 0));
        let filled = LENGTHS[owner].saturating_sub(nth as u64 * PAGE).min(PAGE);
        // Three pages a row.
        let x = LEFT + (p % 3) as f64 * (PAGE as f64 * SLOT + 14.0);
        let pool_y = pool_y + (p / 3) as f64 * 42.0;
        parts.push(label(
            x + 2.0 * SLOT - 1.5,
            pool_y + 12.0,
            "middle",
            "fig-muted",
            &format!("page {p}"),
        ));
        for t in 0..PAGE {
            let class = if t < filled { "fig-hit" } else { "fig-box" };
            let sx = x + t as f64 * SLOT;
            parts.push(rect(sx, pool_y + 18.0, SLOT - 3.0, SLOT, class));
            if t < filled {
                parts.push(label(
                    sx + (SLOT - 3.0) / 2.0,
                    pool_y + 33.0,
                    "middle",
                    "",
                    NAMES[owner],
                ));
            }
        }
    }
    let table_y = pool_y + 42.0 * c.pages.div_ceil(3) as f64 + 22.0;
    parts.push(label(8.0, table_y, "start", "fig-title", "Block tables"));
    for (r, t) in c.tables.iter().enumerate() {
        let list = t
            .iter()
            .map(|p| p.to_string())
            .collect::<Vec<_>>()
            .join(", ");
        let pages = if t.len() == 1 { "page" } else { "pages" };
        parts.push(label(
            LEFT,
            table_y + 20.0 + r as f64 * 18.0,
            "start",
            "",
            &format!("{}: {} tokens → {pages} {list}", NAMES[r], LENGTHS[r]),
        ));
    }
    let height = table_y + 20.0 + LENGTHS.len() as f64 * 18.0;
    let bytes = |slots: u64| si(slots as f64 * per_token, "B", 3);
    let summary = format!(
        "{} tokens in all. Padded, the cache holds {} slots; paged, {} pages of {PAGE}, {} slots. \
         At {name}'s {} per token in bf16 that is {} against {}.",
        c.tokens,
        c.padded_slots,
        c.pages,
        c.paged_slots,
        si(per_token, "B", 3),
        bytes(c.padded_slots),
        bytes(c.paged_slots),
    );
    view! {
        <figure class="widget fig paged-kv" data-widget="paged-kv">
            {drawing(height, "Three requests' KV caches, padded to the context and stored in pages", parts)}
            <p data-numbers="">{summary}</p>
            <figcaption>
                "Green slots hold a token's keys and values. Padding reserves the longest context for \
                 every request, however short. Paging hands each request a page only when its tokens \
                 fill the last one, from wherever the pool has room, so a request's pages need not be \
                 neighbours; its block table says where they are, and attention reads them through it. \
                 At most the last page of each request is part empty."
            </figcaption>
        </figure>
    }
    .into_any()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_figure_shows_cores_pages_and_tables() {
        let none: Vec<(String, String)> = Vec::new();
        let html = Owner::new().with(|| view! { <PagedKv args=none /> }.to_html());
        assert!(html.contains(r#"data-widget="paged-kv""#));
        assert!(html.contains("B: 11 tokens → pages 1, 4, 5"), "{html}");
        assert!(html.contains("A: 5 tokens → pages 0, 3"), "{html}");
        assert!(
            html.contains("Padded, the cache holds 48 slots; paged, 6 pages of 4, 24 slots."),
            "{html}"
        );
        // 819.2 kB per token (40 layers · 40 heads · 128 · 2 · 2 bytes).
        assert!(html.contains("819 kB per token"), "{html}");
        assert!(html.contains("39.3 MB against 19.7 MB"), "{html}");
        for p in 0..6 {
            assert!(html.contains(&format!(">page {p}<")), "page {p}");
        }
        assert!(!html.contains(">page 6<"));
        assert!(html.contains("C: 3 tokens → page 2<"), "{html}");
    }
}
