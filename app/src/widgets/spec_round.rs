//! One round of greedy speculative sampling drawn token by token
//! (`data-widget="spec-round"`, Part 7, Appendix D), a static figure: the
//! drafted tokens, the large model's top choice at each position its one
//! pass scores, the longest agreeing prefix kept, the first miss replaced,
//! and, in a second round where every guess agrees, the bonus token. Which
//! tokens are kept and how many each round emits is `core`'s
//! `inference::serving::greedy_round`.

use super::figure::{label, rect, WIDTH};
use leptos::prelude::*;
use ridgeline_core::inference::serving::{greedy_round, GreedyRound};

/// An example round: the text so far, the drafted tokens, and the large
/// model's top choice at each of the k + 1 positions.
struct Example {
    /// The text the round continues.
    context: &'static str,
    /// What the drafter guessed.
    draft: [&'static str; 4],
    /// What the large model prefers at each position.
    top: [&'static str; 5],
}

/// The two rounds drawn: one with a miss, one where every guess holds.
const ROUNDS: [Example; 2] = [
    Example {
        context: "“the river ran …”",
        draft: ["past", "the", "old", "barn"],
        top: ["past", "the", "mill", "and", "on"],
    },
    Example {
        context: "“… then it rained”",
        draft: ["all", "night", "long", "."],
        top: ["all", "night", "long", ".", "By"],
    },
];

/// Cell width and height, and the gap between rows of one round.
const CELL: f64 = 74.0;
const H: f64 = 24.0;
const LEFT: f64 = 16.0;

/// One round's three rows: drafted, the large model's choices, emitted.
fn round(top_y: f64, ex: &Example, r: GreedyRound) -> AnyView {
    let x = |i: usize| LEFT + i as f64 * CELL;
    // A token in its box, in column `i` at height `y`.
    let cell = |out: &mut Vec<AnyView>,
                i: usize,
                y: f64,
                boxed: &'static str,
                text: &'static str,
                tok: &str| {
        out.push(rect(x(i), y, CELL - 6.0, H, boxed));
        out.push(label(
            x(i) + (CELL - 6.0) / 2.0,
            y + 16.0,
            "middle",
            text,
            tok,
        ));
    };
    let mut out = vec![label(LEFT, top_y, "start", "fig-title", ex.context)];
    let rows = [
        (top_y + 20.0, "drafted (k = 4, cheap)"),
        (top_y + 70.0, "large model's top choice (one pass)"),
        (top_y + 120.0, "emitted"),
    ];
    for (y, name) in rows {
        out.push(label(LEFT, y, "start", "fig-muted", name));
    }
    for (i, tok) in ex.draft.iter().enumerate() {
        let y = top_y + 26.0;
        let (class, text_class) = if i < r.kept {
            ("fig-hit", "")
        } else if i == r.kept {
            ("fig-miss", "fig-bad")
        } else {
            ("fig-box", "fig-muted")
        };
        cell(&mut out, i, y, class, text_class, tok);
    }
    for (i, tok) in ex.top.iter().enumerate() {
        let y = top_y + 76.0;
        let class = if i == r.kept { "fig-comm" } else { "fig-muted" };
        cell(&mut out, i, y, "fig-box", class, tok);
    }
    for i in 0..r.emitted {
        let y = top_y + 126.0;
        let (tok, class) = if i < r.kept {
            (ex.draft[i], "fig-hit")
        } else {
            (ex.top[i], "fig-box")
        };
        let text_class = if i < r.kept { "" } else { "fig-comm" };
        cell(&mut out, i, y, class, text_class, tok);
    }
    let verdict = if r.bonus {
        format!("all {} kept, plus a bonus: {} tokens", r.kept, r.emitted)
    } else {
        format!("{} kept, miss replaced: {} tokens", r.kept, r.emitted)
    };
    out.push(label(
        WIDTH - 8.0,
        top_y + 164.0,
        "end",
        "fig-comm",
        &verdict,
    ));
    out.into_iter().collect_view().into_any()
}

/// Each example round, checked by `core`.
pub fn rounds() -> Vec<GreedyRound> {
    ROUNDS
        .iter()
        .filter_map(|ex| greedy_round(&ex.draft, &ex.top).ok())
        .collect()
}

/// The figure.
#[component]
pub fn SpecRound(
    /// The chapter's arguments (none).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    drop(args);
    const ROUND_H: f64 = 184.0;
    let checked = rounds();
    let drawn = ROUNDS
        .iter()
        .zip(&checked)
        .enumerate()
        .map(|(i, (ex, r))| round(18.0 + i as f64 * ROUND_H, ex, *r))
        .collect_view();
    let height = 8.0 + ROUNDS.len() as f64 * ROUND_H;
    let total: usize = checked.iter().map(|r| r.emitted).sum();
    view! {
        <figure class="widget fig spec-round" data-widget="spec-round">
            <svg viewBox=format!("0 0 {WIDTH} {height:.0}") role="img"
                aria-label="Two rounds of greedy speculative sampling, token by token">
                {drawn}
            </svg>
            <figcaption>
                {format!(
                    "Two rounds, {total} tokens for two passes of the large model. Green: a drafted token \
                     that matches the large model's own top choice, kept. Red: the first disagreement; it \
                     and every guess after it are dropped, and the large model's token for that position \
                     takes its place. When all four guesses hold, the pass has already scored the next \
                     position too, so its choice comes as a bonus."
                )}
            </figcaption>
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rounds_show_a_replaced_miss_and_a_bonus() {
        let none: Vec<(String, String)> = Vec::new();
        let html = Owner::new().with(|| view! { <SpecRound args=none /> }.to_html());
        assert!(html.contains(r#"data-widget="spec-round""#));
        let r = rounds();
        assert_eq!(r.len(), 2);
        assert_eq!((r[0].kept, r[0].bonus, r[0].emitted), (2, false, 3));
        assert_eq!((r[1].kept, r[1].bonus, r[1].emitted), (4, true, 5));
        assert!(html.contains("2 kept, miss replaced: 3 tokens"), "{html}");
        assert!(
            html.contains("all 4 kept, plus a bonus: 5 tokens"),
            "{html}"
        );
        assert!(
            html.contains("Two rounds, 8 tokens for two passes"),
            "{html}"
        );
        // The miss is marked, and the large model's word replaces it.
        assert_eq!(html.matches(r#"class="fig-miss""#).count(), 1);
        assert!(html.contains(">mill<"));
    }
}
