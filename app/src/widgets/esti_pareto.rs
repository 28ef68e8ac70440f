//! ESTI's latency–cost frontiers for PaLM (`data-widget="esti-pareto"`,
//! Part 7, "Step time, latency and throughput"), a static figure: cost per
//! generated token against the time per token for PaLM 8B, 62B and 540B in
//! bf16 and with int8 weights, on the log axes of the paper's Figure 1, with
//! the chips and batch the paper prints beside some points and the 540B point
//! whose batch memory capped. The readings and every number under the
//! drawing are `core`'s `inference::book`.

use super::figure::{crosses, dots, drawing, label, line, strokes, Axis, WIDTH};
use leptos::prelude::*;
use ridgeline_core::dtype::Dtype;
use ridgeline_core::format::{grouped, round_sig};
use ridgeline_core::hardware::chip;
use ridgeline_core::inference::book::{
    cost_per_token, esti_frontier, esti_lessons, tokens_per_chip_second, CostPoint, EstiLessons,
    Frontier, ESTI, ESTI_CAPPED, ESTI_CHIP, ESTI_SOURCE,
};
use ridgeline_core::inference::critical_batch;

/// The plot's box in drawing units.
const LEFT: f64 = 40.0;
const RIGHT: f64 = WIDTH - 32.0;
const TOP: f64 = 44.0;
const BOTTOM: f64 = 304.0;

/// The axes: latency 2 to 256 ms, cost 1/4 to 128 chip-ms, both doubling per grid line.
const X: Axis = Axis {
    lo: 2.0,
    hi: 256.0,
    log: true,
    start: LEFT,
    end: RIGHT,
};
const Y: Axis = Axis {
    lo: 0.25,
    hi: 128.0,
    log: true,
    start: BOTTOM,
    end: TOP,
};

/// The classes one model's curves are drawn with, in one of the paper's hues.
struct Hue {
    /// The bf16 curve's line and dots.
    line: &'static str,
    dot: &'static str,
    /// The int8 curve's dashed line and hollow dots.
    dashed: &'static str,
    ring: &'static str,
    /// The model's name at the end of its bf16 curve.
    name: &'static str,
}

/// Each model's hue, as the paper draws them: green, blue, orange.
fn hue(model: &str) -> Hue {
    macro_rules! hue {
        ($c:literal) => {
            Hue {
                line: concat!("fig-ser ", $c),
                dot: concat!("fig-dot ", $c),
                dashed: concat!("fig-ser ", $c, " fig-dash"),
                ring: concat!("fig-ring ", $c),
                name: concat!("fig-small ", $c),
            }
        };
    }
    match model {
        "PaLM 540B" => hue!("fig-a"),
        "PaLM 62B" => hue!("fig-b"),
        _ => hue!("fig-c"),
    }
}

fn xy(p: &CostPoint) -> (f64, f64) {
    (X.at(p.latency_ms), Y.at(p.cost))
}

/// A label beside a point: where it goes relative to the point.
struct Note {
    model: &'static str,
    int8: bool,
    /// Which point of the frontier (negative: from the end).
    index: isize,
    dx: f64,
    dy: f64,
    anchor: &'static str,
}

const NOTES: [Note; 7] = [
    Note {
        model: "PaLM 540B",
        int8: false,
        index: 0,
        dx: -6.0,
        dy: 4.0,
        anchor: "end",
    },
    Note {
        model: "PaLM 540B",
        int8: false,
        index: -1,
        dx: 0.0,
        dy: -9.0,
        anchor: "end",
    },
    Note {
        model: "PaLM 540B",
        int8: true,
        index: 0,
        dx: -6.0,
        dy: 4.0,
        anchor: "end",
    },
    Note {
        model: "PaLM 62B",
        int8: false,
        index: 0,
        dx: 4.0,
        dy: -8.0,
        anchor: "middle",
    },
    Note {
        model: "PaLM 62B",
        int8: false,
        index: -1,
        dx: 0.0,
        dy: -9.0,
        anchor: "end",
    },
    Note {
        model: "PaLM 8B",
        int8: false,
        index: 0,
        dx: 6.0,
        dy: -9.0,
        anchor: "middle",
    },
    Note {
        model: "PaLM 8B",
        int8: false,
        index: -1,
        dx: 0.0,
        dy: -9.0,
        anchor: "middle",
    },
];

fn pick(f: &Frontier, index: isize) -> Option<&CostPoint> {
    let i = if index < 0 {
        f.points.len().checked_sub(index.unsigned_abs())?
    } else {
        index.unsigned_abs()
    };
    f.points.get(i)
}

fn served(p: &CostPoint) -> Option<String> {
    p.served.map(|s| format!("C:{} B:{}", s.chips, s.batch))
}

/// The sentence under the drawing: core's arithmetic on the readings.
fn numbers(l: &EstiLessons, b_crit: f64, chip_name: &str) -> Result<String, String> {
    let capped = ESTI_CAPPED
        .served
        .ok_or("the capped point carries no label")?;
    let small = esti_frontier("PaLM 8B", false).ok_or("no PaLM 8B frontier")?;
    let first = small.points.first().ok_or("an empty frontier")?;
    let s = first.served.ok_or("8B's first point carries no label")?;
    let pct = |x: f64| format!("{}%", round_sig(x * 100.0, 1));
    let flat = l
        .flat
        .iter()
        .map(|(m, s)| format!("{} ({})", pct(*s), m.trim_start_matches("PaLM ")))
        .collect::<Vec<_>>()
        .join(", ");
    let (gain_model, gain, gain_at) = l
        .int8_gain
        .iter()
        .copied()
        .fold(None, |b: Option<(&str, f64, f64)>, x| match b {
            Some(b) if b.1 >= x.1 => Some(b),
            _ => Some(x),
        })
        .ok_or("no int8 curves")?;
    let cheapest = ESTI
        .iter()
        .filter(|f| !f.int8)
        .map(|f| {
            let c = f.lowest_cost();
            format!(
                "{} chip-ms ({} tokens a chip-second) for {}",
                round_sig(c, 2),
                grouped(round_sig(tokens_per_chip_second(c), 2)),
                f.model.trim_start_matches("PaLM ")
            )
        })
        .collect::<Vec<_>>()
        .join(", ");
    Ok(format!(
        "Cost is chips × step time ÷ batch: PaLM 8B on {} chips with a batch of {} at {} ms a token \
         pays {} × {} ÷ {} = {} chip-ms per token. Along each curve a larger batch shares each step, \
         until the batch passes the critical batch ({} tokens on the {} in bf16): over its last \
         doubling of latency a bf16 curve sheds only {} of its cost. The 540B point on {} chips with a \
         batch of {} pays {}× what the 540B curve pays at the same {} ms. int8 weights cut the cost at \
         a given latency by up to {}× ({} at {} ms), yet no int8 curve ends lower than its bf16 twin: \
         the cheapest tokens cost {}.",
        s.chips,
        s.batch,
        first.latency_ms,
        s.chips,
        first.latency_ms,
        s.batch,
        round_sig(
            cost_per_token(f64::from(s.chips), f64::from(s.batch), first.latency_ms),
            3
        ),
        round_sig(b_crit, 3),
        chip_name,
        flat,
        capped.chips,
        capped.batch,
        round_sig(l.capped_over_frontier, 2),
        ESTI_CAPPED.latency_ms,
        round_sig(gain, 2),
        gain_model,
        gain_at,
        cheapest,
    ))
}

fn parts() -> Result<(Vec<AnyView>, String), String> {
    let l = esti_lessons().ok_or("the ESTI readings do not give their lessons")?;
    let v4 = chip(ESTI_CHIP).ok_or("no TPU v4 in the registry")?;
    let b_crit = critical_batch(v4, Dtype::Bf16, Dtype::Bf16).map_err(|e| e.to_string())?;
    let mut p = vec![
        label(
            4.0,
            14.0,
            "start",
            "fig-title",
            "PaLM served on TPU v4: cost against latency",
        ),
        line(8.0, 30.0, 30.0, 30.0, "fig-ser fig-key"),
        label(34.0, 34.0, "start", "fig-small", "bf16 weights"),
        line(124.0, 30.0, 146.0, 30.0, "fig-ser fig-key fig-dash"),
        label(150.0, 34.0, "start", "fig-small", "int8 weights"),
        label(
            WIDTH - 4.0,
            34.0,
            "end",
            "fig-small fig-muted",
            "cost: chip-ms per token",
        ),
    ];
    // Grid and tick labels: every doubling.
    let mut grid = Vec::new();
    let mut v = X.lo;
    while v <= X.hi * 1.0001 {
        let x = X.at(v);
        grid.push(vec![(x, TOP), (x, BOTTOM)]);
        p.push(label(
            x,
            BOTTOM + 14.0,
            "middle",
            "fig-small",
            &format!("{v}"),
        ));
        v *= 2.0;
    }
    let mut v = Y.lo;
    while v <= Y.hi * 1.0001 {
        let y = Y.at(v);
        grid.push(vec![(LEFT, y), (RIGHT, y)]);
        p.push(label(
            LEFT - 4.0,
            y + 4.0,
            "end",
            "fig-small",
            &format!("{v}"),
        ));
        v *= 2.0;
    }
    p.insert(0, strokes(&grid, "fig-mesh"));
    p.push(label(
        (LEFT + RIGHT) / 2.0,
        BOTTOM + 30.0,
        "middle",
        "fig-small",
        "latency per generated token (ms)",
    ));
    // The curves, int8 first so that bf16's solid line and dots sit on top.
    for f in ESTI
        .iter()
        .rev()
        .filter(|f| f.int8)
        .chain(ESTI.iter().filter(|f| !f.int8))
    {
        let pts: Vec<(f64, f64)> = f.points.iter().map(xy).collect();
        let hue = hue(f.model);
        let (line_class, dot_class) = if f.int8 {
            (hue.dashed, hue.ring)
        } else {
            (hue.line, hue.dot)
        };
        p.push(strokes(std::slice::from_ref(&pts), line_class));
        p.push(dots(&pts, if f.int8 { 3.0 } else { 3.5 }, dot_class));
        if !f.int8 {
            if let Some(last) = f.points.last() {
                let (x, y) = xy(last);
                let name = f.model.trim_start_matches("PaLM ");
                p.push(label(x + 6.0, y + 4.0, "start", hue.name, name));
            }
        }
    }
    for n in &NOTES {
        let f = esti_frontier(n.model, n.int8).ok_or("a note names no frontier")?;
        let point = pick(f, n.index).ok_or("a note names no point")?;
        let text = served(point).ok_or("a note's point carries no label")?;
        let (x, y) = xy(point);
        p.push(label(x + n.dx, y + n.dy, n.anchor, "fig-tiny", &text));
    }
    // The memory-capped point: a cross, and what capped it.
    let (x, y) = xy(&ESTI_CAPPED);
    p.push(crosses(&[(x, y)], 4.5, hue("PaLM 540B").line));
    let s = ESTI_CAPPED
        .served
        .ok_or("the capped point carries no label")?;
    p.push(label(
        x + 8.0,
        y + 2.0,
        "start",
        "fig-tiny",
        &format!("C:{} B:{}: memory", s.chips, s.batch),
    ));
    p.push(label(
        x + 8.0,
        y + 13.0,
        "start",
        "fig-tiny",
        "capped the batch",
    ));
    Ok((p, numbers(&l, b_crit, v4.name)?))
}

/// The figure.
#[component]
pub fn EstiPareto(
    /// The chapter's arguments (none).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    drop(args);
    let (parts, summary) = match parts() {
        Ok(p) => p,
        Err(e) => return view! { <p class="notice" role="status">{e}</p> }.into_any(),
    };
    view! {
        <figure class="widget fig esti-pareto" data-widget="esti-pareto">
            {drawing(BOTTOM + 38.0, "Cost per token against latency per token for PaLM 8B, 62B and 540B in bf16 and int8, on log axes", parts)}
            <p data-numbers="">{summary}</p>
            <figcaption>
                "Each curve is one model served at many chip counts C and batches B; moving right, a \
                 bigger batch makes every token slower and cheaper. The labels are the paper's. "
                {ESTI_SOURCE}
                "."
            </figcaption>
        </figure>
    }
    .into_any()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_figure_draws_the_readings_and_states_cores_lessons() {
        let none: Vec<(String, String)> = Vec::new();
        let html = Owner::new().with(|| view! { <EstiPareto args=none /> }.to_html());
        assert!(html.contains(r#"data-widget="esti-pareto""#));
        // Six curves: 45 points as dots (25 bf16, 20 int8) in six paths.
        let dots = html.matches(r#"class="fig-dot "#).count()
            + html.matches(r#"class="fig-ring "#).count();
        assert_eq!(dots, 6, "{html}");
        // 8B at C:16, B:32 and 4.3 ms: 16 × 4.3 ÷ 32 = 2.15 chip-ms.
        assert!(
            html.contains("pays 16 × 4.3 ÷ 32 = 2.15 chip-ms per token"),
            "{html}"
        );
        // TPU v4: 2.75e14 FLOP/s over 1.2e12 B/s = 229 tokens.
        assert!(
            html.contains("(229 tokens on the TPU v4p in bf16)"),
            "{html}"
        );
        assert!(
            html.contains("sheds only 2% (540B), 7% (62B), 9% (8B)"),
            "{html}"
        );
        assert!(
            html.contains("pays 2.4× what the 540B curve pays at the same 43 ms"),
            "{html}"
        );
        assert!(
            html.contains("by up to 3.1× (PaLM 540B at 33.2 ms)"),
            "{html}"
        );
        assert!(
            html.contains("0.29 chip-ms (3,400 tokens a chip-second) for 8B"),
            "{html}"
        );
        for label in [
            "C:128 B:64",
            "C:64 B:1024",
            "C:32 B:32",
            "C:8 B:1024",
            "C:16 B:32",
            "C:32 B:16: memory",
        ] {
            assert!(html.contains(label), "{label}");
        }
        assert!(!html.contains("NaN"), "{html}");
    }
}
