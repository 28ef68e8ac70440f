//! The two weight-stationary layouts of an MLP drawn side by side
//! (`data-widget="ws-layouts"`, Part 7, Appendix B), a static figure: which
//! mesh axes split each weight and activation, and the collective between
//! each pair of matmuls. 1D (Megatron) splits `F` over all `XYZ` chips; 2D
//! splits `D` over `X` and `F` over `YZ`. Under the drawing, `core`'s
//! `inference::serving::weight_stationary` gives the best 2D split `X`, `YZ`
//! at the chapter's chip count and each layout's communication per layer
//! (the `weight-stationary` widget plots the same numbers against chips).

use super::figure::{arg, label, line, rect, WIDTH};
use crate::input::{parse_count, parse_whole};
use leptos::prelude::*;
use ridgeline_core::format::{grouped, sci, seconds};
use ridgeline_core::hardware::chip;
use ridgeline_core::inference::serving::{weight_stationary, WeightStationaryParams};

/// The book's `D`; its `F` is `4D`.
const BOOK_D: f64 = 8192.0;

/// One step of a layout: an array (`false`) or an operation on it (`true`,
/// with whether it is a collective).
type Step = (&'static str, Option<bool>);

/// 1D: `F` split over every chip.
const ONE_D: [Step; 11] = [
    ("In[B, D_XYZ]", None),
    ("AllGather over XYZ", Some(true)),
    ("In[B, D]", None),
    ("× W_in[D, F_XYZ]", Some(false)),
    ("Tmp[B, F_XYZ]", None),
    ("gelu", Some(false)),
    ("× W_out[F_XYZ, D]", Some(false)),
    ("Out[B, D], partial", None),
    ("ReduceScatter over XYZ", Some(true)),
    ("Out[B, D_XYZ]", None),
    ("", Some(false)),
];

/// 2D: `D` split over `X`, `F` over `YZ`.
const TWO_D: [Step; 14] = [
    ("In[B, D_XYZ]", None),
    ("AllGather over YZ", Some(true)),
    ("In[B, D_X]", None),
    ("× W_in[D_X, F_YZ]", Some(false)),
    ("Tmp[B, F_YZ], partial", None),
    ("ReduceScatter over X", Some(true)),
    ("Tmp[B, F_XYZ]", None),
    ("gelu", Some(false)),
    ("AllGather over X", Some(true)),
    ("Tmp[B, F_YZ]", None),
    ("× W_out[F_YZ, D_X]", Some(false)),
    ("Out[B, D_X], partial", None),
    ("ReduceScatter over YZ", Some(true)),
    ("Out[B, D_XYZ]", None),
];

/// What the figure prints under the drawing, from `core`.
#[derive(Debug, Clone, PartialEq)]
pub struct Numbers {
    /// Chips.
    pub chips: u64,
    /// Tokens in the batch.
    pub batch: f64,
    /// The best 2D split `(X, YZ)`.
    pub split: (f64, f64),
    /// 1D and 2D communication per layer.
    pub times: (f64, f64),
    /// The chip count above which 2D communicates less.
    pub crossover: f64,
    /// The chip's name.
    pub chip: &'static str,
}

/// Reads the chapter's `chip`, `b` and `n` and asks `core`.
pub fn numbers(args: &[(String, String)]) -> Result<Numbers, String> {
    let id = arg(args, "chip", "v5e");
    let c = chip(id).ok_or_else(|| format!("chip: no chip “{}”", crate::input::short(id)))?;
    let batch = parse_count(arg(args, "b", "128"), "batch", 1.0, 65_536.0)?;
    let n = parse_whole::<u64>(arg(args, "n", "256"), "chips", 2.0, 8192.0)?;
    if !n.is_power_of_two() {
        return Err(format!("chips: {n} is not a power of two"));
    }
    let r = weight_stationary(&WeightStationaryParams {
        chip: c,
        batch,
        d_model: BOOK_D,
        d_ff: 4.0 * BOOK_D,
        max_chips: n,
    })?;
    let p = r
        .points
        .iter()
        .find(|p| p.chips == n)
        .ok_or_else(|| format!("chips: {n} is not drawn"))?;
    Ok(Numbers {
        chips: n,
        batch,
        split: p.split,
        times: (p.one_d.0, p.two_d.0),
        crossover: r.crossover,
        chip: c.name,
    })
}

/// Row height and the drawing's top margin.
const ROW: f64 = 23.0;
const TOP: f64 = 44.0;

/// One layout's column: its title, then arrays in boxes and operations between.
fn column(x: f64, w: f64, title: &'static str, subtitle: &'static str, steps: &[Step]) -> AnyView {
    let mid = x + w / 2.0;
    let mut parts = vec![
        label(mid, 16.0, "middle", "fig-title", title),
        label(mid, 32.0, "middle", "fig-muted", subtitle),
    ];
    for (i, (text, op)) in steps.iter().enumerate() {
        let y = TOP + i as f64 * ROW;
        match op {
            _ if text.is_empty() => {}
            None => {
                parts.push(rect(x + 8.0, y, w - 16.0, ROW - 4.0, "fig-box"));
                parts.push(label(mid, y + 14.0, "middle", "", text));
            }
            Some(collective) => {
                parts.push(line(x + 16.0, y - 4.0, x + 16.0, y + ROW, "fig-flow"));
                let class = if *collective { "fig-comm" } else { "" };
                parts.push(label(x + 24.0, y + 14.0, "start", class, text));
            }
        }
    }
    parts.into_iter().collect_view().into_any()
}

/// The figure.
#[component]
pub fn WsLayouts(
    /// The chapter's arguments: `chip`, `b` (tokens) and `n` (chips, a power of two).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let height = TOP + TWO_D.len() as f64 * ROW + 4.0;
    let half = WIDTH / 2.0;
    let drawing = view! {
        <svg viewBox=format!("0 0 {WIDTH} {height:.0}") role="img"
            aria-label="The 1D and 2D weight-stationary layouts of an MLP layer, step by step">
            {column(0.0, half, "1D (Megatron)", "F over all chips", &ONE_D)}
            {line(half, 6.0, half, height - 4.0, "fig-rule")}
            {column(half, half, "2D", "D over X, F over YZ", &TWO_D)}
        </svg>
    };
    let summary = match numbers(&args) {
        Ok(n) => view! {
            <p data-numbers="">
                {format!(
                    "On {} {} chips at a batch of {} tokens (D = {}, F = 4D): 2D's best split is X = {}, YZ = {}; \
                     one layer's collectives take {} in 1D and {} in 2D. 2D wins above {} chips.",
                    grouped(n.chips as f64), n.chip, grouped(n.batch), grouped(BOOK_D),
                    sci(n.split.0, 3), sci(n.split.1, 3),
                    seconds(n.times.0), seconds(n.times.1), sci(n.crossover, 3),
                )}
            </p>
        }
        .into_any(),
        Err(e) => view! { <p class="notice" role="status">{e}</p> }.into_any(),
    };
    view! {
        <figure class="widget fig ws-layouts" data-widget="ws-layouts">
            {drawing}
            {summary}
            <figcaption>
                "Each row is one step of an MLP layer on one chip. Boxed rows are what the chip holds; \
                 coloured rows are collectives. Megatron gathers the whole activation and splits only F, \
                 so its two collectives move B·D values whatever the chip count. The 2D layout also cuts D \
                 over X, so every collective moves a slice of the activation, and the slices shrink as \
                 chips are added."
            </figcaption>
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(args: &[(&str, &str)]) -> String {
        let args: Vec<(String, String)> = args
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Owner::new().with(|| view! { <WsLayouts args=args /> }.to_html())
    }

    #[test]
    fn the_figure_names_every_collective_and_cores_split() {
        let html = render(&[("chip", "v5e"), ("b", "128"), ("n", "256")]);
        assert!(html.contains(r#"data-widget="ws-layouts""#));
        for op in [
            "AllGather over XYZ",
            "ReduceScatter over XYZ",
            "AllGather over YZ",
            "ReduceScatter over X",
            "AllGather over X",
            "ReduceScatter over YZ",
        ] {
            assert!(html.contains(op), "{op}");
        }
        // X = sqrt(N·D/2F) = sqrt(32) at 256 chips and F = 4D, from core.
        let n = numbers(&[("n".into(), "256".into())]).unwrap();
        assert!((n.split.0 - 32f64.sqrt()).abs() < 1e-12);
        assert!(html.contains("X = 5.66, YZ = 45.3"), "{html}");
        assert!(html.contains("2D wins above 72 chips"), "{html}");
        assert!(n.times.1 < n.times.0);
        assert!(html.contains("<figcaption>"));
    }

    #[test]
    fn bad_arguments_say_so() {
        assert!(render(&[("n", "100")]).contains("not a power of two"));
        assert!(render(&[("chip", "nope")]).contains("no chip"));
    }
}
