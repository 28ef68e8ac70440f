//! A prefix cache as a trie (`data-widget="prefix-trie"`, Part 7, "Prefix
//! caching"), a static figure: four prompts made of segments (a system
//! prompt, a conversation's history, the new turn) inserted into `core`'s
//! `inference::serving_engine::PrefixTrie`, the trie that results, and the
//! tokens each prompt found already cached.

use super::figure::{drawing, label, line, rect};
use leptos::prelude::*;
use ridgeline_core::inference::serving_engine::PrefixTrie;

/// The prompts, as `(key, tokens)` segments.
const PROMPTS: [&[(u32, u64)]; 4] = [
    &[(1, 400), (11, 300), (101, 50)],
    &[(1, 400), (11, 300), (102, 60)],
    &[(1, 400), (12, 200), (103, 40)],
    &[(2, 350), (104, 30)],
];

/// A segment's name.
fn name(key: u32) -> String {
    match key {
        1 => "system A".into(),
        2 => "system B".into(),
        11 => "chat 1".into(),
        12 => "chat 2".into(),
        k => format!("turn {}", k - 100),
    }
}

/// A cached segment: `(node, parent, key, tokens)`, as `PrefixTrie::segments` lists it.
type Segment = (usize, usize, u32, u64);

/// Inserts the prompts into a trie with room for all; returns the tokens
/// each found cached, and the trie's segments.
pub fn build() -> (Vec<u64>, Vec<Segment>) {
    let mut t = PrefixTrie::new(1 << 20);
    let hits = PROMPTS.iter().map(|p| t.lookup_insert(p)).collect();
    (hits, t.segments())
}

/// The figure.
#[component]
pub fn PrefixTrieFigure(
    /// The chapter's arguments (none).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    drop(args);
    let (hits, segs) = build();
    // Depth of each node and the row of each: leaves take rows in order, a
    // parent sits on its first child's row.
    let depth = |mut n: usize| {
        let mut d = 0;
        while n != 0 {
            n = segs.iter().find(|s| s.0 == n).map_or(0, |s| s.1);
            d += 1;
        }
        d
    };
    let mut row = std::collections::BTreeMap::new();
    let mut next = 0usize;
    fn place(
        n: usize,
        segs: &[Segment],
        row: &mut std::collections::BTreeMap<usize, usize>,
        next: &mut usize,
    ) -> usize {
        let kids: Vec<usize> = segs
            .iter()
            .filter(|s| s.1 == n && s.0 != n)
            .map(|s| s.0)
            .collect();
        let r = if kids.is_empty() {
            *next += 1;
            *next - 1
        } else {
            let mut first = None;
            for k in kids {
                let r = place(k, segs, row, next);
                first.get_or_insert(r);
            }
            first.unwrap_or(0)
        };
        row.insert(n, r);
        r
    }
    place(0, &segs, &mut row, &mut next);
    const COL: f64 = 100.0;
    const ROW: f64 = 34.0;
    let at = |n: usize, d: usize| {
        (
            8.0 + d as f64 * COL,
            14.0 + row.get(&n).copied().unwrap_or(0) as f64 * ROW,
        )
    };
    let mut parts = vec![
        rect(4.0, 14.0, 44.0, 22.0, "fig-box"),
        label(26.0, 29.0, "middle", "fig-muted", "root"),
    ];
    for &(n, parent, key, tokens) in &segs {
        let d = depth(n);
        let (x, y) = at(n, d);
        let (px, py) = if parent == 0 {
            (4.0, 14.0)
        } else {
            at(parent, d - 1)
        };
        let from_x = if parent == 0 { 48.0 } else { px + COL - 12.0 };
        parts.push(line(from_x, py + 11.0, x, y + 11.0, "fig-flow"));
        let class = if key < 100 { "fig-hit" } else { "fig-box" };
        parts.push(rect(x, y, COL - 12.0, 22.0, class));
        parts.push(label(
            x + (COL - 12.0) / 2.0,
            y + 15.0,
            "middle",
            "",
            &format!("{} · {tokens}", name(key)),
        ));
    }
    let height = 20.0 + next as f64 * ROW;
    let rows = PROMPTS
        .iter()
        .zip(&hits)
        .enumerate()
        .map(|(i, (p, hit))| {
            let path = p
                .iter()
                .map(|(k, _)| name(*k))
                .collect::<Vec<_>>()
                .join(" + ");
            let total: u64 = p.iter().map(|s| s.1).sum();
            view! { <tr><td>{i + 1}</td><td>{path}</td><td>{format!("{hit} of {total}")}</td></tr> }
        })
        .collect_view();
    view! {
        <figure class="widget fig prefix-trie" data-widget="prefix-trie">
            {drawing(height, "A prefix cache as a trie of prompt segments", parts)}
            <div class="table-scroll" tabindex="0" role="region" aria-label="what each prompt found cached">
            <table>
                <thead><tr><th scope="col">"prompt"</th><th scope="col">"segments"</th><th scope="col">"tokens found cached"</th></tr></thead>
                <tbody>{rows}</tbody>
            </table>
            </div>
            <figcaption>
                "Four prompts, in order, each a path from the root. A shared beginning is stored once: \
                 the second prompt repeats the first one's system prompt and history, so only its new \
                 turn is prefilled. Green segments are system prompts and histories, the parts later \
                 prompts repeat; when memory runs short, the least recently used leaves go first."
            </figcaption>
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_trie_stores_shared_prefixes_once() {
        let (hits, segs) = build();
        assert_eq!(hits, vec![0, 700, 400, 0]);
        // system A, chat 1, turn 1, turn 2, chat 2, turn 3, system B, turn 4.
        assert_eq!(segs.len(), 8);
        let none: Vec<(String, String)> = Vec::new();
        let html = Owner::new().with(|| view! { <PrefixTrieFigure args=none /> }.to_html());
        assert!(html.contains(r#"data-widget="prefix-trie""#));
        assert_eq!(html.matches(">system A · 400<").count(), 1, "{html}");
        assert!(html.contains("700 of 760"), "{html}");
        assert!(html.contains("400 of 640"), "{html}");
    }
}
