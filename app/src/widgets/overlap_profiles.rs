//! The book's two profiles of Part 10's collective-matmul example drawn the
//! way a trace viewer shows them (`data-widget="overlap-profiles"`, Part 10,
//! "The book's collective matmul, step by step"), a static figure: the
//! compiler's program, a blocking AllGather then the matmul, and the
//! hand-written loop, chunk matmuls with permutes in flight beside them, on
//! one time axis at the book's measured totals. The timelines are `core`'s
//! `comms::overlap_timeline::book_profiles`, a split of the book's times.

use super::figure::{drawing, label, line, rect};
use leptos::prelude::*;
use ridgeline_core::comms::overlap_timeline::{book_profiles, Timeline, Work, BOOK_TIMES};

/// Where the time axis starts, its length in user units, and a lane's height.
const AXIS_X: f64 = 72.0;
const AXIS_W: f64 = 316.0;
const LANE: f64 = 22.0;

/// Microseconds of a time in seconds.
fn micros(s: f64) -> f64 {
    s * 1e6
}

/// The share of a timeline the matrix units are busy.
pub fn busy(t: &Timeline) -> f64 {
    let on: f64 = t
        .spans
        .iter()
        .filter(|s| s.work == Work::Matmul)
        .map(|s| s.end.0 - s.start.0)
        .sum();
    on / t.total.0
}

/// One profile: a module lane spanning the program, the ops lane, and the
/// lane of permutes in flight when there are any; returns the next free y.
fn profile(parts: &mut Vec<AnyView>, y: f64, title: &str, t: &Timeline, scale: f64) -> f64 {
    let x = |s: f64| AXIS_X + micros(s) * scale;
    parts.push(label(8.0, y, "start", "fig-title", title));
    let module = y + 10.0;
    parts.push(label(8.0, module + 15.0, "start", "fig-muted", "Module"));
    parts.push(rect(
        x(0.0),
        module,
        x(t.total.0) - x(0.0),
        LANE - 4.0,
        "fig-box",
    ));
    parts.push(label(
        (x(0.0) + x(t.total.0)) / 2.0,
        module + 13.0,
        "middle",
        "",
        &format!("jit program, {:.0} µs", micros(t.total.0)),
    ));
    let ops = module + LANE;
    parts.push(label(8.0, ops + 15.0, "start", "fig-muted", "XLA ops"));
    let permutes = ops + LANE;
    let has_permutes = t.spans.iter().any(|s| s.work == Work::Ppermute);
    if has_permutes {
        parts.push(label(
            8.0,
            permutes + 15.0,
            "start",
            "fig-muted",
            "In flight",
        ));
    }
    for s in &t.spans {
        let (lane, class, name) = match s.work {
            Work::AllGather => (ops, "fig-miss", "all-gather"),
            Work::Matmul => (ops, "fig-hit", "matmul"),
            Work::Ppermute => (permutes, "fig-box", "permute"),
        };
        let (a, b) = (x(s.start.0), x(s.end.0));
        parts.push(rect(a, lane, b - a - 1.0, LANE - 4.0, class));
        let text = if b - a > 120.0 {
            format!("{name}, {:.0} µs", micros(s.end.0 - s.start.0))
        } else {
            name.to_string()
        };
        parts.push(label((a + b) / 2.0, lane + 13.0, "middle", "", &text));
    }
    if has_permutes {
        permutes + LANE + 6.0
    } else {
        permutes + 6.0
    }
}

/// The figure.
#[component]
pub fn OverlapProfiles(
    /// The chapter's arguments (none).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    drop(args);
    let (blocking, looped) = book_profiles();
    let scale = AXIS_W / micros(blocking.total.0);
    let mut parts = Vec::new();
    // The shared time axis.
    for tick in [0.0, 100.0, 200.0, 300.0] {
        let tx = AXIS_X + tick * scale;
        parts.push(line(tx, 22.0, tx, 28.0, "fig-rule"));
        parts.push(label(
            tx,
            16.0,
            "middle",
            "fig-muted",
            &format!("{tick:.0} µs"),
        ));
    }
    parts.push(line(AXIS_X, 28.0, AXIS_X + AXIS_W, 28.0, "fig-rule"));
    let y = profile(
        &mut parts,
        48.0,
        "Default jit: gather, then multiply",
        &blocking,
        scale,
    );
    let end = profile(
        &mut parts,
        y + 16.0,
        "Collective matmul: multiply while passing",
        &looped,
        scale,
    );
    // The baseline: the same matmul with nothing to gather.
    let base = BOOK_TIMES[2].micros;
    let bx = AXIS_X + base * scale;
    parts.push(line(AXIS_X, end, AXIS_X + AXIS_W, end, "fig-rule"));
    parts.push(line(bx, end - 6.0, bx, end + 6.0, "fig-flow"));
    parts.push(label(
        bx - 4.0,
        end + 18.0,
        "end",
        "fig-muted",
        &format!("no gather needed: {base:.0} µs"),
    ));
    let height = end + 26.0;
    let gather = blocking
        .spans
        .iter()
        .find(|s| s.work == Work::AllGather)
        .map_or(0.0, |s| micros(s.end.0 - s.start.0));
    let chunks = looped
        .spans
        .iter()
        .filter(|s| s.work == Work::Matmul)
        .count();
    let chunk = looped
        .spans
        .first()
        .map_or(0.0, |s| micros(s.end.0 - s.start.0));
    let summary = format!(
        "The compiler's program spends its first {gather:.0} µs in the AllGather with the matrix units \
         idle, then multiplies for {base:.0} µs: {:.0} µs in all, the matrix units busy {:.0} % of it. \
         The loop has no AllGather: {chunks} chunk matmuls of {chunk:.0} µs, a permute in flight beside \
         each but the last, {:.0} µs in all, the matrix units busy {:.0} % of it.",
        micros(blocking.total.0),
        100.0 * busy(&blocking),
        micros(looped.total.0),
        100.0 * busy(&looped),
    );
    view! {
        <figure class="widget fig overlap-profiles" data-widget="overlap-profiles">
            {drawing(height, "Two profiles on one time axis: a blocking AllGather before one matmul, against four chunk matmuls with permutes in flight", parts)}
            <p data-numbers="">{summary}</p>
            <figcaption>
                "Drawn as a trace viewer lays out a TPU's lanes: the program, the ops it runs one after \
                 another, and the transfers in flight. The totals are the book's measurements on a TPU v5e \
                 with eight chips and integer arrays; the book gives only the totals, so the lengths \
                 inside each profile are a split of them: the gather takes what the blocking program \
                 spends beyond the matmul with nothing to gather, and the loop's four matmuls share that \
                 same matmul time, the permutes setting the pace of each step."
            </figcaption>
        </figure>
    }
    .into_any()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_figure_shows_the_books_profiles() {
        let none: Vec<(String, String)> = Vec::new();
        let html = Owner::new().with(|| view! { <OverlapProfiles args=none /> }.to_html());
        assert!(html.contains(r#"data-widget="overlap-profiles""#));
        assert!(html.contains("jit program, 311 µs"), "{html}");
        assert!(html.contains("jit program, 244 µs"), "{html}");
        // One AllGather, in the compiler's profile only; four matmul chunks
        // and three permutes in the loop's.
        assert_eq!(html.matches(">all-gather<").count(), 1, "{html}");
        assert_eq!(html.matches(">matmul<").count(), 4);
        assert_eq!(html.matches(">permute<").count(), 3);
        assert!(html.contains("matmul, 224 µs"));
        assert!(html.contains("first 87 µs in the AllGather"), "{html}");
        // 224 / 311 against 224 / 244 of the time on the matrix units.
        assert!(html.contains("busy 72 % of it"), "{html}");
        assert!(html.contains("busy 92 % of it"), "{html}");
        assert!(html.contains("no gather needed: 224 µs"));
    }
}
