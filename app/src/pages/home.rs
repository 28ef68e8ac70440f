//! The home page: every part of the book, from `chapters/SUMMARY.md`, with
//! what each teaches (`chapters/teaches.md`), its reading time, its widgets
//! and, once the start script has read the stored progress, how many of its
//! problems the reader has solved.

use crate::charts::roofline::{draw_point, draw_static, OpPoint, RoofModel};
use crate::content::{PartPage, Segment, EXERCISE_IDS, PARTS};
use leptos::prelude::*;
use ridgeline_core::dtype::Dtype;
use ridgeline_core::format::{grouped, sci};
use ridgeline_core::hardware::chip;
use ridgeline_core::roofline::ops::OpKind;
use ridgeline_core::units::Intensity;

/// The home page's figure: what the companion is for, in one chart. The
/// roofline of a TPU v5e in bf16, drawn by the roofline widget's chart code,
/// with a square matmul at a small batch, left of the ridge: the reader sees
/// the two regimes and where they meet, then drags the batch in Part 1.
#[derive(Debug, Clone, PartialEq)]
pub struct RidgeFigure {
    /// The chart, an SVG document.
    pub svg: String,
    /// The chip's name.
    pub chip: &'static str,
    /// The ridge: FLOPs per byte of HBM traffic where the two roofs meet.
    pub ridge: f64,
    /// The matmul's batch.
    pub batch: f64,
    /// Its width (contracting and output dimension).
    pub width: f64,
    /// Its arithmetic intensity at that batch.
    pub intensity: f64,
    /// The batch from which it is compute-bound.
    pub crossing: f64,
}

/// The matmul of the home page's figure: batch and width, as the roofline
/// widget's own defaults in Part 1.
const FIGURE_MATMUL: (f64, f64) = (64.0, 8192.0);

/// The figure's drawing sizes: for a wide column, and for a phone's (each
/// scales to its column, so its text stays about as large as drawn).
const FIGURE_SIZE: (u32, u32) = (720, 360);
const FIGURE_NARROW: (u32, u32) = (340, 420);

/// Draws the home page's figure at the given size (`None` if the registry
/// lacks the chip, which a core test rules out).
pub fn ridge_figure(width: u32, height: u32) -> Option<RidgeFigure> {
    let chip = chip("v5e")?;
    let model = RoofModel::new(chip, Dtype::Bf16)?;
    let (batch, dim) = FIGURE_MATMUL;
    let op = OpKind::Matmul.build(batch, dim, dim, Dtype::Bf16, Dtype::Bf16);
    let point = OpPoint::of(&op, &model);
    let ridge = model.hbm()?.ridge;
    let crossing = op.critical_batch(Intensity(ridge))?.ceil();
    let label = format!("B = {}, I = {}", grouped(batch), sci(point.intensity, 3));
    let (svg, drawn) = crate::charts::svg(width, height, |root| {
        draw_static(root, &model, false).ok()?;
        draw_point(root, &model, &point, None, &label, false).ok()
    });
    drawn?;
    Some(RidgeFigure {
        svg,
        chip: chip.name,
        ridge,
        batch,
        width: dim,
        intensity: point.intensity,
        crossing,
    })
}

/// The figure (drawn wide, and again narrow for phones) with its caption and
/// the way into Part 1's live widget.
#[component]
fn Ridge(figure: RidgeFigure, narrow: RidgeFigure) -> impl IntoView {
    let caption = format!(
        "The roofline of one {chip} in bf16. Left of the ridge, at {ridge} FLOPs per byte, a chip waits on its memory; right of it, on its arithmetic. A matmul {width} wide at batch {batch} does {intensity} FLOPs per byte it moves, so it is memory-bound: it needs a batch of {crossing} to keep the chip busy. ",
        chip = figure.chip,
        ridge = sci(figure.ridge, 3),
        width = grouped(figure.width),
        batch = grouped(figure.batch),
        intensity = sci(figure.intensity, 3),
        crossing = grouped(figure.crossing),
    );
    let label = format!(
        "Roofline of a {} with a matmul left of its ridge",
        figure.chip
    );
    view! {
        <figure class="home-figure" data-home-figure="">
            <div class="home-chart wide" role="img" aria-label=label.clone() inner_html=figure.svg></div>
            <div class="home-chart narrow" role="img" aria-label=label inner_html=narrow.svg></div>
            <figcaption>
                {caption}
                <a href="rooflines#figure-roofline">"Drag the batch across the ridge in Part 1 →"</a>
            </figcaption>
        </figure>
    }
}

/// Words a reader reads in a minute, for the reading time.
pub const WORDS_PER_MINUTE: usize = 230;

/// What the home page says of a part besides its title.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct About {
    /// One or two sentences on what the part teaches.
    pub teaches: String,
    /// Minutes to read the chapter's text (0 when it is not written).
    pub minutes: usize,
    /// The widgets it holds, by directive name, each once, in page order
    /// (the problems are counted apart).
    pub widgets: Vec<&'static str>,
    /// How many of the book's problems the part holds.
    pub problems: usize,
}

/// The words of a chapter's text: its HTML segments without their tags.
pub fn word_count(page: &PartPage) -> usize {
    page.segments
        .iter()
        .filter_map(|s| match s {
            Segment::Html(h) => Some(*h),
            Segment::Widget(..) => None,
        })
        .map(|h| {
            let mut text = String::with_capacity(h.len());
            let mut in_tag = false;
            for c in h.chars() {
                match c {
                    '<' => {
                        in_tag = true;
                        text.push(' ');
                    }
                    '>' => in_tag = false,
                    c if !in_tag => text.push(c),
                    _ => {}
                }
            }
            text.split_whitespace()
                .filter(|w| w.chars().any(char::is_alphanumeric))
                .count()
        })
        .sum()
}

/// Minutes to read `words` at [`WORDS_PER_MINUTE`], rounded up.
pub fn reading_minutes(words: usize) -> usize {
    words.div_ceil(WORDS_PER_MINUTE)
}

/// What the home page says of `page`, with `teaches` from `chapters/teaches.md`.
pub fn about(page: &PartPage, teaches: &str) -> About {
    let mut widgets: Vec<&'static str> = Vec::new();
    for s in page.segments {
        if let Segment::Widget(name, _) = s {
            if !name.starts_with("exercise") && !widgets.contains(name) {
                widgets.push(name);
            }
        }
    }
    About {
        teaches: teaches.to_string(),
        minutes: if page.written {
            reading_minutes(word_count(page))
        } else {
            0
        },
        widgets,
        problems: EXERCISE_IDS
            .iter()
            .filter(|(_, n)| *n == page.number)
            .count(),
    }
}

/// Reads `chapters/teaches.md`: `slug: sentence` lines; `#` and blank lines
/// are skipped. Every part of `parts` must be named, once.
pub fn parse_teaches<'a>(
    text: &'a str,
    parts: &[PartPage],
) -> Result<Vec<(&'a str, &'a str)>, String> {
    let mut out: Vec<(&str, &str)> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = |m: &str| format!("teaches.md line {}: {m}", i + 1);
        let (slug, what) = line
            .split_once(": ")
            .ok_or_else(|| at("expected `slug: what the part teaches`"))?;
        if !parts.iter().any(|p| p.slug == slug) {
            return Err(at(&format!("no part has the slug `{slug}`")));
        }
        if out.iter().any(|(s, _)| *s == slug) {
            return Err(at(&format!("`{slug}` appears twice")));
        }
        out.push((slug, what.trim()));
    }
    if let Some(p) = parts
        .iter()
        .find(|p| !out.iter().any(|(s, _)| *s == p.slug))
    {
        return Err(format!(
            "teaches.md says nothing of part {} ({})",
            p.number, p.slug
        ));
    }
    Ok(out)
}

/// Lists all parts: what each teaches, its reading time, widgets and the
/// reader's progress; unwritten ones say so and link to the book.
#[component]
pub fn Home(
    /// What to say of each part, in [`PARTS`] order (empty: titles only).
    #[prop(optional)]
    about: Vec<About>,
) -> impl IntoView {
    let items = PARTS
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let a = about.get(i).cloned().unwrap_or_default();
            let status = if !p.written {
                "not yet written".to_string()
            } else if a.minutes > 0 {
                format!("{} min read", a.minutes)
            } else {
                String::new()
            };
            let widgets = (!a.widgets.is_empty()).then(|| {
                let names = a.widgets.join(", ");
                view! { <span class="part-widgets">"widgets: " {names}</span> }
            });
            let problems = a.problems;
            view! {
                <li class=if p.written { "part written" } else { "part todo" } data-part=p.number>
                    <span class="part-number">{format!("Part {}", p.number)}</span>
                    <a class="part-title" href=p.slug>{p.title}</a>
                    <span class="part-status">{status}</span>
                    <div class="part-about">
                        {(!a.teaches.is_empty()).then(|| view! { <p class="part-teaches">{a.teaches.clone()}</p> })}
                        <p class="part-meta">
                            <a class="book-link" href=p.book_url rel="noopener">"the book's chapter ↗"</a>
                            {widgets}
                            <span class="part-progress" data-progress=p.number data-problems=problems></span>
                        </p>
                    </div>
                </li>
            }
        })
        .collect_view();
    view! {
        <section class="page home" data-page="home">
            <h1>"ridgeline"</h1>
            <p class="lede">
                "An interactive companion to "
                <a href="https://jax-ml.github.io/scaling-book/" rel="noopener"><cite>"How to Scale Your Model"</cite></a>
                " (Austin, Douglas, Frostig, Levskaya et al., Google DeepMind, 2025). Every number is computed live in your browser from one registry of the book's hardware; drag the sliders and watch the arithmetic move."
            </p>
            {ridge_figure(FIGURE_SIZE.0, FIGURE_SIZE.1)
                .zip(ridge_figure(FIGURE_NARROW.0, FIGURE_NARROW.1))
                .map(|(figure, narrow)| view! { <Ridge figure=figure narrow=narrow /> })}
            <ol class="parts">{items}</ol>
            <h2 id="keys-home">"Keyboard shortcuts"</h2>
            <crate::pages::keys::Shortcuts />
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_home_figure_puts_the_matmul_left_of_the_ridge_with_cores_numbers() {
        let f = ridge_figure(720, 360).expect("v5e is in the registry");
        let v5e = chip("v5e").expect("v5e");
        let ridge = v5e
            .ridge(Dtype::Bf16, ridgeline_core::hardware::Link::Hbm)
            .expect("bf16 ridge")
            .0;
        assert!(
            (f.ridge - ridge).abs() < 1e-9 * ridge,
            "{} {ridge}",
            f.ridge
        );
        assert!(f.intensity < f.ridge, "{f:?}");
        let op = OpKind::Matmul.build(f.crossing, f.width, f.width, Dtype::Bf16, Dtype::Bf16);
        assert!(op.intensity().0 >= f.ridge && f.crossing > f.batch, "{f:?}");
        assert!(
            f.svg.starts_with("<svg") && f.svg.contains("ridge"),
            "{}",
            &f.svg[..200]
        );
    }

    // Native only: the browser build carries no chapter text.
    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn reading_time_rounds_up_at_230_words_a_minute() {
        assert_eq!(reading_minutes(0), 0);
        assert_eq!(reading_minutes(1), 1);
        assert_eq!(reading_minutes(230), 1);
        assert_eq!(reading_minutes(231), 2);
        let tpus = crate::content::part("tpus").expect("tpus");
        let words = word_count(tpus);
        assert!(words > 2000, "{words}");
        assert_eq!(about(tpus, "x").minutes, reading_minutes(words));
    }

    #[test]
    fn words_are_counted_without_tags() {
        let page = PartPage {
            number: 1,
            title: "t",
            slug: "t",
            book_url: "",
            written: true,
            bundle: "main",
            here: true,
            sections: &[],
            segments: &[
                Segment::Html("<p>One <em>two</em> three.</p><math><mi>x</mi></math>"),
                Segment::Widget("roofline", &[]),
                Segment::Widget("exercise", &[]),
                Segment::Html("<p>four — five</p>"),
                Segment::Widget("roofline", &[]),
            ],
        };
        assert_eq!(word_count(&page), 6);
        let a = about(&page, "what");
        assert_eq!(a.widgets, vec!["roofline"]);
        assert_eq!(a.teaches, "what");
    }

    // Native only: the browser build carries no chapter text.
    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn every_part_says_what_it_teaches_and_problem_ids_carry_their_part() {
        let text = std::fs::read_to_string(crate::content::chapters_dir().join("teaches.md"))
            .expect("teaches.md");
        let lines = parse_teaches(&text, &PARTS).expect("teaches.md");
        assert_eq!(lines.len(), PARTS.len());
        assert!(parse_teaches("nope: x", &PARTS).is_err());
        assert!(parse_teaches("rooflines x", &PARTS).is_err());
        // The start script counts a part's solved problems by this prefix.
        for (id, part) in EXERCISE_IDS {
            assert!(id.starts_with(&format!("ch{part}-")), "{id}");
        }
    }
}
