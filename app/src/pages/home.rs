//! The home page: every part of the book, from `chapters/SUMMARY.md`, with
//! what each teaches (`chapters/teaches.md`), its reading time, its widgets
//! and, once the start script has read the stored progress, how many of its
//! problems the reader has solved. Above the list, a live roofline: Part 1's
//! widget with its batch alone, the one island the home page makes live
//! besides the site's own controls.

use crate::content::{PartPage, Segment, EXERCISE_IDS, PARTS};
use crate::islands::encode_args;
use crate::widgets::widget_view;
use leptos::prelude::*;
use ridgeline_core::dtype::Dtype;
use ridgeline_core::format::{grouped, sci};
use ridgeline_core::hardware::{chip, Link};
use ridgeline_core::roofline::ops::OpKind;

/// The widget of the home page's figure: what the companion is for, in one
/// chart the reader moves. It is an island like any chapter's, so the home
/// page starts the bundle of the part that carries it ([`figure_part`]).
pub const FIGURE_WIDGET: &str = "roofline";

/// The chip of the home page's figure, in bf16.
const FIGURE_CHIP: &str = "v5e";

/// The matmul of the home page's figure: batch and width, as the roofline
/// widget's own defaults in Part 1 (left of the ridge).
const FIGURE_MATMUL: (f64, f64) = (64.0, 8192.0);

/// The figure's arguments: the chip, the matmul, and the batch as its only
/// control (`controls=batch`).
pub fn figure_args() -> Vec<(String, String)> {
    let (batch, width) = FIGURE_MATMUL;
    [
        ("chip", FIGURE_CHIP.to_string()),
        ("b", format!("{batch}")),
        ("d", format!("{width}")),
        ("f", format!("{width}")),
        ("controls", "batch".to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

/// The part whose page places [`FIGURE_WIDGET`], whose bundle the home page
/// starts (in a build without chapter bodies, none).
pub fn figure_part() -> Option<&'static PartPage> {
    PARTS.iter().find(|p| {
        p.segments
            .iter()
            .any(|s| matches!(s, Segment::Widget(name, _) if *name == FIGURE_WIDGET))
    })
}

/// What the home figure's caption says, in core's numbers: the roofline of
/// the chip in bf16 and where the figure's matmul crosses its ridge.
#[derive(Debug, Clone, PartialEq)]
pub struct RidgeFacts {
    /// The chip's name.
    pub chip: &'static str,
    /// The ridge: FLOPs per byte of HBM traffic where the two roofs meet.
    pub ridge: f64,
    /// The matmul's batch when the page opens.
    pub batch: f64,
    /// Its width (contracting and output dimension).
    pub width: f64,
    /// Its arithmetic intensity at that batch.
    pub intensity: f64,
    /// The batch from which it is compute-bound.
    pub crossing: f64,
}

/// Core's numbers for the home figure's caption (`None` if the registry
/// lacks the chip, which a test rules out).
pub fn ridge_facts() -> Option<RidgeFacts> {
    let chip = chip(FIGURE_CHIP)?;
    let ridge = chip.ridge(Dtype::Bf16, Link::Hbm)?;
    let (batch, width) = FIGURE_MATMUL;
    let op = OpKind::Matmul.build(batch, width, width, Dtype::Bf16, Dtype::Bf16);
    Some(RidgeFacts {
        chip: chip.name,
        ridge: ridge.0,
        batch,
        width,
        intensity: op.intensity().0,
        crossing: op.critical_batch(ridge)?.ceil(),
    })
}

/// The figure: the roofline widget with its batch alone, as an island (drawn
/// here at the page's build, live once the bundle starts), its caption and
/// the way into Part 1's whole widget.
#[component]
fn Ridge(facts: RidgeFacts) -> impl IntoView {
    let caption = format!(
        "The roofline of one {chip} in bf16. Left of the ridge, at {ridge} FLOPs per byte, a chip waits on its memory; right of it, on its arithmetic. A matmul {width} wide is compute-bound only from a batch of {crossing}: move the batch across the ridge and the verdict turns. ",
        chip = facts.chip,
        ridge = sci(facts.ridge, 3),
        width = grouped(facts.width),
        crossing = grouped(facts.crossing),
    );
    let args = figure_args();
    let pairs: Vec<(&str, &str)> = args.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let island = widget_view(FIGURE_WIDGET, &pairs).map(|live| {
        view! { <div class="island" data-island=FIGURE_WIDGET data-args=encode_args(&args)>{live}</div> }
    });
    view! {
        <figure class="home-figure" data-home-figure="">
            {island}
            <figcaption>
                {caption}
                <a href="rooflines#figure-roofline">"Every chip, format and operation in Part 1 →"</a>
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
            {ridge_facts().map(|facts| view! { <Ridge facts=facts /> })}
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
        let f = ridge_facts().expect("v5e is in the registry");
        let v5e = chip(FIGURE_CHIP).expect("v5e");
        assert_eq!(f.ridge, v5e.ridge(Dtype::Bf16, Link::Hbm).expect("bf16").0);
        assert!(f.intensity < f.ridge, "{f:?}");
        let op = OpKind::Matmul.build(f.crossing, f.width, f.width, Dtype::Bf16, Dtype::Bf16);
        assert!(op.intensity().0 >= f.ridge && f.crossing > f.batch, "{f:?}");
    }

    /// The widget draws the caption's matmul on the caption's chip, with its
    /// batch as the only control; Part 1 carries it. (Native only: the
    /// browser build carries no chapter text.)
    #[cfg(all(widget_module = "roofline", not(target_arch = "wasm32")))]
    #[test]
    fn the_figure_is_the_roofline_widget_at_the_captions_matmul() {
        use crate::widgets::params::WidgetParams;
        use crate::widgets::roofline::{Controls, RooflineParams};
        let f = ridge_facts().expect("facts");
        let (p, refused) = RooflineParams::from_pairs(&figure_args());
        assert!(refused.is_empty(), "{refused:?}");
        assert_eq!(p.controls, Controls::Batch);
        assert_eq!(p.chip.name, f.chip);
        assert_eq!((p.b, p.d, p.f), (f.batch, f.width, f.width));
        assert_eq!(p.ridge(), Some(f.ridge));
        assert_eq!(p.crossing_batch(), Some(f.crossing));
        assert_eq!(figure_part().map(|p| p.slug), Some("rooflines"));
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
