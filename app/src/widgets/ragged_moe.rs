//! The ragged plan of an expert-parallel MoE layer drawn step by step
//! (`data-widget="ragged-moe"`, Part 10, "A mixture-of-experts layer"), a
//! static figure: four devices of four tokens each route them to eight
//! experts, two a device; each sorts its tokens by expert, the counts are
//! exchanged with `all_to_all`, `ragged_all_to_all` delivers the runs at the
//! offsets the counts give, and each device regroups what arrived for
//! `ragged_dot`. Every sort, count, offset and group is `core`'s
//! `model::moe::ragged_plan`.

use super::figure::{drawing, label, rect};
use leptos::prelude::*;
use ridgeline_core::model::moe::{ragged_plan, RaggedDevice};

/// The expert of each device's tokens, and the number of experts.
const ROUTING: [[usize; 4]; 4] = [[5, 0, 3, 5], [1, 6, 0, 2], [7, 3, 4, 1], [2, 2, 6, 0]];
const EXPERTS: usize = 8;

/// A token box's pitch and width, a row's height, and the left margin.
const PITCH: f64 = 24.0;
const BOX: f64 = 21.0;
const ROW: f64 = 26.0;
const LEFT: f64 = 30.0;
/// The gap between two runs of a row.
const GAP: f64 = 6.0;
/// Where the sorted tokens start, right of each device's own four.
const SORTED_X: f64 = LEFT + 4.0 * PITCH + 20.0;

/// The plan the figure draws.
pub fn plan() -> Result<Vec<RaggedDevice>, String> {
    ragged_plan(&ROUTING.map(Vec::from), EXPERTS)
}

/// A token's name, lettered across the devices (`a` … `p`) with its expert
/// as a subscript.
fn token(device: usize, index: usize) -> String {
    let n = device * ROUTING[0].len() + index;
    let letter = char::from_u32(u32::try_from(n).unwrap_or(0) + u32::from('a')).unwrap_or('?');
    format!("{letter}_{}", ROUTING[device][index])
}

/// Token boxes from `x` on the row at `y`, a gap after each run of `runs`.
fn boxes(parts: &mut Vec<AnyView>, x: f64, y: f64, tokens: &[String], runs: &[usize]) -> f64 {
    let mut at = x;
    let mut i = 0;
    for &n in runs.iter().filter(|&&n| n > 0) {
        if i > 0 {
            at += GAP;
        }
        for t in &tokens[i..i + n] {
            parts.push(rect(at, y, BOX, BOX, "fig-box"));
            parts.push(label(at + BOX / 2.0, y + 15.0, "middle", "", t));
            at += PITCH;
        }
        i += n;
    }
    at
}

/// A small matrix of counts, row `s` and column `r` the value for sender
/// `s` and receiver `r`, headed `title`.
fn matrix(
    parts: &mut Vec<AnyView>,
    x: f64,
    y: f64,
    title: &str,
    cell: impl Fn(usize, usize) -> usize,
) {
    parts.push(label(x, y, "start", "fig-muted", title));
    for r in 0..ROUTING.len() {
        let cx = x + 30.0 + r as f64 * 24.0;
        parts.push(label(
            cx + 8.0,
            y + 18.0,
            "middle",
            "fig-muted",
            &format!("d{r}"),
        ));
        for s in 0..ROUTING.len() {
            let cy = y + 36.0 + s as f64 * 18.0;
            if r == 0 {
                parts.push(label(x, cy, "start", "fig-muted", &format!("d{s}")));
            }
            parts.push(label(cx + 8.0, cy, "middle", "", &cell(s, r).to_string()));
        }
    }
}

/// The y of device `d`'s row in a step whose rows start at `top`.
fn row_y(top: f64, d: usize) -> f64 {
    top + d as f64 * ROW
}

/// Device `d`'s row of a step whose rows start at `top`: its name at the
/// left; returns the row's y.
fn device_row(parts: &mut Vec<AnyView>, top: f64, d: usize) -> f64 {
    let y = row_y(top, d);
    parts.push(label(8.0, y + 15.0, "start", "fig-muted", &format!("d{d}")));
    y
}

/// The figure.
#[component]
pub fn RaggedMoe(
    /// The chapter's arguments (none).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    drop(args);
    let p = match plan() {
        Ok(p) => p,
        Err(e) => {
            return view! { <p class="notice" role="status">{e}</p> }.into_any();
        }
    };
    let x = ROUTING.len();
    let mut parts = vec![label(
        8.0,
        16.0,
        "start",
        "fig-title",
        "1. Tokens and their experts; sorted by expert",
    )];
    let mut y = 26.0;
    for (d, dev) in p.iter().enumerate() {
        let ry = device_row(&mut parts, y, d);
        let own: Vec<String> = (0..dev.experts.len()).map(|i| token(d, i)).collect();
        boxes(&mut parts, LEFT, ry, &own, &[own.len()]);
        let sorted: Vec<String> = dev.order.iter().map(|&i| token(d, i)).collect();
        boxes(&mut parts, SORTED_X, ry, &sorted, &dev.send_sizes);
        let sizes: Vec<String> = dev.send_sizes.iter().map(usize::to_string).collect();
        // Clear of the longest sorted row: four tokens in four runs.
        parts.push(label(
            SORTED_X + 4.0 * PITCH + 3.0 * GAP + 6.0,
            ry + 15.0,
            "start",
            "fig-comm",
            &format!("send {}", sizes.join(" ")),
        ));
    }
    y = row_y(y, x) + 18.0;
    parts.push(label(
        8.0,
        y,
        "start",
        "fig-title",
        "2. The counts exchanged; where each run lands",
    ));
    matrix(
        &mut parts,
        8.0,
        y + 20.0,
        "tokens sent (row to column)",
        |s, r| p[s].send_sizes[r],
    );
    matrix(
        &mut parts,
        208.0,
        y + 20.0,
        "offset on the receiver",
        |s, r| p[s].output_offsets[r],
    );
    y += 20.0 + 36.0 + 18.0 * 4.0 + 10.0;
    parts.push(label(
        8.0,
        y,
        "start",
        "fig-title",
        "3. What each device receives, regrouped by expert",
    ));
    let top = y + 10.0;
    let mut ends = Vec::with_capacity(x);
    for (d, dev) in p.iter().enumerate() {
        let ry = device_row(&mut parts, top, d);
        let arrived: Vec<String> = dev.received.iter().map(|&(s, i)| token(s, i)).collect();
        boxes(&mut parts, LEFT, ry, &arrived, &dev.recv_sizes);
        let grouped: Vec<String> = dev.grouped.iter().map(|&(s, i)| token(s, i)).collect();
        ends.push(boxes(&mut parts, 200.0, ry, &grouped, &dev.group_sizes));
    }
    // The group sizes in one column, clear of the longest row.
    let sizes_x = ends.iter().copied().fold(0.0, f64::max) + 6.0;
    for (d, dev) in p.iter().enumerate() {
        let sizes: Vec<String> = dev.group_sizes.iter().map(usize::to_string).collect();
        parts.push(label(
            sizes_x,
            row_y(top, d) + 15.0,
            "start",
            "fig-comm",
            &sizes.join(" + "),
        ));
    }
    let height = row_y(top, x) + 4.0;
    let back: Vec<String> = p[0].send_sizes.iter().map(usize::to_string).collect();
    let d0_sorted: Vec<String> = p[0].order.iter().map(|&i| token(0, i)).collect();
    let summary = format!(
        "Device d0 sends {} tokens to d0…d3 and receives {}; it holds experts 0 and 1, so ragged_dot \
         multiplies its {} arrivals in groups of {}. The return trip is the same exchange with the \
         counts swapped: d0 gets back {} results from d0…d3, in its sorted order {}, and puts \
         each back in its token's place by undoing the sort.",
        p[0].send_sizes.iter().map(usize::to_string).collect::<Vec<_>>().join(", "),
        p[0].recv_sizes.iter().map(usize::to_string).collect::<Vec<_>>().join(", "),
        p[0].received.len(),
        p[0].group_sizes.iter().map(usize::to_string).collect::<Vec<_>>().join(" and "),
        back.join(", "),
        d0_sorted.join(" ").replace('_', ""),
    );
    view! {
        <figure class="widget fig ragged-moe" data-widget="ragged-moe">
            {drawing(height, "Four devices sort their tokens by expert, exchange counts, and send runs of different lengths to the devices holding those experts", parts)}
            <p data-numbers="">{summary}</p>
            <figcaption>
                "A box is a token, lettered a to p across the devices, with the expert it is routed to \
                 as a subscript; device d holds experts 2d and 2d + 1. Sorting by expert also sorts by \
                 destination, so each device's tokens fall into one run per device (gaps mark the runs). \
                 The count matrix's row is what a device sends, its column what a device receives, and an \
                 offset is the sum of the column above it: the runs of lower-numbered senders come first. \
                 Nothing is padded: a device receives exactly the tokens its experts need."
            </figcaption>
        </figure>
    }
    .into_any()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_figure_shows_cores_sorts_counts_and_groups() {
        let none: Vec<(String, String)> = Vec::new();
        let html = Owner::new().with(|| view! { <RaggedMoe args=none /> }.to_html());
        assert!(html.contains(r#"data-widget="ragged-moe""#));
        // Each device's send sizes, from the hand-worked plan.
        for s in [
            "send 1 1 2 0",
            "send 2 1 0 1",
            "send 1 1 1 1",
            "send 1 2 0 1",
        ] {
            assert!(html.contains(s), "{s}: {html}");
        }
        // ragged_dot's groups on each device.
        for g in [">3 + 2<", ">1 + 2<", ">2 + 1<"] {
            assert!(html.contains(g), "{g}");
        }
        assert!(
            html.contains("sends 1, 1, 2, 0 tokens to d0…d3 and receives 1, 2, 1, 1"),
            "{html}"
        );
        assert!(html.contains("in groups of 3 and 2"), "{html}");
        assert!(html.contains("in its sorted order b0 c3 a5 d5"), "{html}");
        // Sixteen tokens drawn three times (own, sorted, arrived) and regrouped.
        assert_eq!(html.matches("fig-box").count(), 16 * 4);
    }

    #[test]
    fn tokens_are_lettered_across_devices() {
        assert_eq!(token(0, 0), "a_5");
        assert_eq!(token(3, 3), "p_0");
    }
}
