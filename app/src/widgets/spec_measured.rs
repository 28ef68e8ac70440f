//! Speculative sampling measured (`data-widget="spec-measured"`, Part 7,
//! "Speculative sampling"), a static figure: Chinchilla 70B with a 4B drafter
//! on XSum and HumanEval, the three panels of Chen et al.'s Figure 1 (time for
//! 128 tokens, acceptance, loop time against the draft length K) with the
//! measurements as crosses and core's speculative model as lines: one
//! acceptance probability per task and a straight loop-time line, fitted to
//! the readings. Readings, fits and the numbers under the drawing are
//! `core`'s `inference::book`.

use super::figure::{crosses, drawing, label, strokes, Axis, WIDTH};
use leptos::prelude::*;
use ridgeline_core::format::{grouped, round_sig};
use ridgeline_core::inference::book::{
    measured_best, measured_speedup, time_from_loops, SpecFit, SpecReading, Task, CHINCHILLA,
    CHINCHILLA_SOURCE, SPEC_TOKENS,
};
use ridgeline_core::inference::speculative_tokens_per_step;

const LEFT: f64 = 44.0;
const RIGHT: f64 = WIDTH - 12.0;
/// One panel's plot height and the space a panel takes with its title and ticks.
const PLOT: f64 = 92.0;
const PANEL: f64 = 136.0;
/// Where the first panel's title sits.
const FIRST: f64 = 50.0;

/// The draft lengths measured, 0 to 7, along every panel.
const K: Axis = Axis {
    lo: 0.0,
    hi: 7.0,
    log: false,
    start: LEFT + 8.0,
    end: RIGHT - 8.0,
};

fn class(t: Task) -> &'static str {
    match t {
        Task::HumanEval => "fig-ser fig-b",
        Task::XSum => "fig-ser fig-c",
    }
}

/// A series: its class, the measured points and the modelled line, as (K, value).
type Series = (&'static str, Vec<(f64, f64)>, Vec<(f64, f64)>);

/// One panel: its title, its y range and ticks, and its series (crosses
/// measured, a line modelled) in their classes.
struct Panel {
    title: String,
    lo: f64,
    hi: f64,
    ticks: &'static [f64],
    series: Vec<Series>,
}

fn panel(p: &Panel, top: f64, out: &mut Vec<AnyView>) {
    let y = Axis {
        lo: p.lo,
        hi: p.hi,
        log: false,
        start: top + 10.0 + PLOT,
        end: top + 10.0,
    };
    out.push(label(LEFT, top, "start", "fig-small fig-title", &p.title));
    let mut grid: Vec<Vec<(f64, f64)>> = p
        .ticks
        .iter()
        .map(|&v| vec![(LEFT, y.at(v)), (RIGHT, y.at(v))])
        .collect();
    grid.push(vec![(LEFT, y.start), (LEFT, y.end)]);
    out.push(strokes(&grid, "fig-mesh"));
    for &v in p.ticks {
        out.push(label(
            LEFT - 4.0,
            y.at(v) + 4.0,
            "end",
            "fig-small",
            &if v.fract() == 0.0 {
                grouped(v)
            } else {
                v.to_string()
            },
        ));
    }
    for k in 0..=7u32 {
        out.push(label(
            K.at(f64::from(k)),
            y.start + 14.0,
            "middle",
            "fig-small",
            &k.to_string(),
        ));
    }
    for (class, measured, modelled) in &p.series {
        let at = |v: &[(f64, f64)]| -> Vec<(f64, f64)> {
            v.iter().map(|&(k, v)| (K.at(k), y.at(v))).collect()
        };
        out.push(strokes(&[at(modelled)], class));
        out.push(crosses(&at(measured), 3.5, class));
    }
}

fn series(f: impl Fn(&SpecReading) -> f64) -> Vec<(f64, f64)> {
    CHINCHILLA
        .iter()
        .map(|r| (f64::from(r.draft), f(r)))
        .collect()
}

fn parts() -> Result<(f64, Vec<AnyView>, String), String> {
    let model = SpecFit::new().map_err(|e| e.to_string())?;
    let fit = model.loops;
    let mut time = Vec::new();
    let mut accept = Vec::new();
    for t in Task::ALL {
        let modelled_t = (0..=7u32)
            .map(|k| Ok((f64::from(k), model.time(t, k)?)))
            .collect::<Result<Vec<_>, ridgeline_core::inference::InferenceError>>()
            .map_err(|e| e.to_string())?;
        let modelled_a = (0..=7u32)
            .map(|k| {
                Ok((
                    f64::from(k),
                    speculative_tokens_per_step(model.accept(t), k)? / (f64::from(k) + 1.0),
                ))
            })
            .collect::<Result<Vec<_>, ridgeline_core::inference::InferenceError>>()
            .map_err(|e| e.to_string())?;
        time.push((class(t), series(|r| r.time(t)), modelled_t));
        accept.push((class(t), series(|r| r.acceptance(t)), modelled_a));
    }
    let loops = vec![(
        "fig-ser fig-a",
        series(|r| r.loop_ms),
        vec![(0.0, fit.loop_ms(0)), (7.0, fit.loop_ms(7))],
    )];
    let panels = [
        Panel {
            title: format!("time for {SPEC_TOKENS} tokens (ms)"),
            lo: 500.0,
            hi: 1900.0,
            ticks: &[600.0, 1000.0, 1400.0, 1800.0],
            series: time,
        },
        Panel {
            title: "acceptance: tokens kept ÷ (K + 1)".into(),
            lo: 0.4,
            hi: 1.02,
            ticks: &[0.4, 0.6, 0.8, 1.0],
            series: accept,
        },
        Panel {
            title: "time of one loop (ms)".into(),
            lo: 12.0,
            hi: 30.0,
            ticks: &[15.0, 20.0, 25.0, 30.0],
            series: loops,
        },
    ];
    let mut out = vec![
        label(
            4.0,
            14.0,
            "start",
            "fig-title",
            "Chinchilla 70B checking a 4B drafter",
        ),
        crosses(&[(12.0, 27.0)], 3.5, "fig-ser fig-key"),
        label(20.0, 31.0, "start", "fig-small", "measured"),
        strokes(&[vec![(80.0, 27.0), (98.0, 27.0)]], "fig-ser fig-key"),
        label(102.0, 31.0, "start", "fig-small", "core's model"),
        label(190.0, 31.0, "start", "fig-small fig-b", "HumanEval"),
        label(262.0, 31.0, "start", "fig-small fig-c", "XSum"),
        label(300.0, 31.0, "start", "fig-small fig-a", "loop time"),
    ];
    for (i, p) in panels.iter().enumerate() {
        panel(p, FIRST + PANEL * i as f64, &mut out);
    }
    // Below the last panel's K labels (its plot's foot plus 14), a line apart.
    let bottom = FIRST + PANEL * (panels.len() - 1) as f64 + 10.0 + PLOT + 32.0;
    out.push(label(
        (LEFT + RIGHT) / 2.0,
        bottom,
        "middle",
        "fig-small",
        "drafted tokens per loop, K",
    ));

    // The worked example: XSum's measured best draft length.
    let (worked_k, _) = measured_best(Task::XSum);
    let worked = CHINCHILLA
        .iter()
        .find(|r| r.draft == worked_k)
        .ok_or("no reading at XSum's best K")?;
    let sig = |x: f64, n| round_sig(x, n);
    let best = |t| -> Result<String, String> {
        let (k, ms) = measured_best(t);
        Ok(format!(
            "{}: best measured at K = {} ({} ms, {}× faster than plain sampling), best modelled at K = {}",
            t.name(),
            k,
            grouped(ms),
            sig(measured_speedup(t), 3),
            model.best(t)?
        ))
    };
    let summary = format!(
        "The paper's first panel (the top one here) is the other two combined: {} tokens × loop time ÷ (acceptance × \
         (K + 1)). For XSum at K = {} that is {} × {} ms ÷ ({} × {}) = {} ms, against {} ms measured. \
         A straight line fits the loop: {} ms for the target's pass and {} ms per drafted token, so a \
         draft step costs {} of a target step. One probability per task that a drafted token is \
         accepted, {} on HumanEval and {} on XSum, then gives every measured time to within {}% \
         through core's speculative model. {}; {}.",
        SPEC_TOKENS,
        worked.draft,
        SPEC_TOKENS,
        worked.loop_ms,
        worked.acceptance(Task::XSum),
        worked.draft + 1,
        grouped(sig(
            time_from_loops(
                SPEC_TOKENS,
                worked.draft,
                worked.acceptance(Task::XSum),
                worked.loop_ms
            ),
            3
        )),
        grouped(worked.time(Task::XSum)),
        sig(fit.base_ms, 3),
        sig(fit.per_draft_ms, 3),
        sig(fit.draft_cost(), 2),
        sig(model.accept(Task::HumanEval), 3),
        sig(model.accept(Task::XSum), 3),
        sig(model.worst_gap().map_err(|e| e.to_string())? * 100.0, 2),
        best(Task::XSum)?,
        best(Task::HumanEval)?,
    );
    Ok((bottom + 8.0, out, summary))
}

/// The figure.
#[component]
pub fn SpecMeasured(
    /// The chapter's arguments (none).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    drop(args);
    let (height, parts, summary) = match parts() {
        Ok(p) => p,
        Err(e) => return view! { <p class="notice" role="status">{e}</p> }.into_any(),
    };
    view! {
        <figure class="widget fig spec-measured" data-widget="spec-measured">
            {drawing(height, "Time for 128 tokens, acceptance rate and loop time against the number of drafted tokens, measured and modelled, for HumanEval and XSum", parts)}
            <p data-numbers="">{summary}</p>
            <figcaption>
                "Crosses are the paper's measurements; lines are core's model with the fitted numbers. \
                 More drafted tokens make each loop longer and each token less likely to survive, so \
                 the time first falls and then, on the harder text, rises again. "
                {CHINCHILLA_SOURCE}
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
    fn the_figure_draws_the_measurements_beside_cores_model() {
        let none: Vec<(String, String)> = Vec::new();
        let html = Owner::new().with(|| view! { <SpecMeasured args=none /> }.to_html());
        assert!(html.contains(r#"data-widget="spec-measured""#));
        // 128 · 20.4 / (0.695 · 4) = 939 ms.
        assert!(
            html.contains("128 × 20.4 ms ÷ (0.695 × 4) = 939 ms, against 936 ms measured"),
            "{html}"
        );
        assert!(
            html.contains("14.2 ms for the target's pass and 2.09 ms per drafted token"),
            "{html}"
        );
        assert!(html.contains("0.15 of a target step"), "{html}");
        assert!(
            html.contains(
                "0.885 on HumanEval and 0.756 on XSum, then gives every measured time to within 1.8%"
            ),
            "{html}"
        );
        assert!(html.contains("XSum: best measured at K = 3 (936 ms, 1.92× faster than plain sampling), best modelled at K = 4"), "{html}");
        assert!(
            html.contains("HumanEval: best measured at K = 7 (674 ms, 2.67× faster"),
            "{html}"
        );
        // Five series (two tasks in two panels, the loop), each a line and crosses.
        assert_eq!(
            html.matches(r#"class="fig-ser fig-b""#).count(),
            4,
            "{html}"
        );
        assert_eq!(
            html.matches(r#"class="fig-ser fig-c""#).count(),
            4,
            "{html}"
        );
        assert_eq!(
            html.matches(r#"class="fig-ser fig-a""#).count(),
            2,
            "{html}"
        );
        assert!(!html.contains("NaN"), "{html}");
    }
}
