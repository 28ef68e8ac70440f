//! Every chart widget renders natively, as the static pages are written at
//! build time: its component body runs without a browser, each figure is
//! inline SVG (no canvas is left), and the default figures' sizes are measured
//! against the static pages' budget (HTML and CSS ≤ 60 KB gzip per page).
//!
//! `cargo test -p ridgeline-app --test native -- charts --nocapture` prints the
//! size of each widget's figures.

use std::io::Write;

use flate2::write::GzEncoder;
use flate2::Compression;
use leptos::prelude::*;
use ridgeline_app::widgets::widget_view;

/// The chart widgets, and how many SVG charts (layers) each draws at its defaults.
const CHARTS: [(&str, usize); 11] = [
    ("roofline", 2),
    ("batch-roofline", 1),
    ("batch-scaling", 1),
    ("collective-size", 2),
    ("inference-roofline", 2),
    ("mlp-roofline", 2),
    ("overlap", 2),
    ("profile", 1),
    ("serving", 2),
    ("training-roofline", 3),
    ("transformer", 3),
];

/// The static pages' budget for HTML and CSS, gzip bytes.
const PAGE_BUDGET: usize = 60 * 1024;

/// A widget at its defaults, rendered to HTML natively in its own owner.
fn render(name: &str) -> String {
    let owner = Owner::new();
    owner.with(|| widget_view(name, &[]).to_html())
}

/// The `<svg class="chart-svg" …>…</svg>` charts in `html`, in order.
fn charts(html: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(start) = rest.find(r#"<svg class="chart-svg""#) {
        let tail = &rest[start..];
        let end = tail.find("</svg>").expect("an unclosed chart") + "</svg>".len();
        out.push(&tail[..end]);
        rest = &tail[end..];
    }
    out
}

fn gzip(text: &str) -> usize {
    let mut e = GzEncoder::new(Vec::new(), Compression::best());
    e.write_all(text.as_bytes()).unwrap();
    e.finish().unwrap().len()
}

#[test]
fn every_chart_widget_renders_its_figures_as_inline_svg() {
    for (name, layers) in CHARTS {
        let html = render(name);
        assert!(
            html.contains(&format!(r#"data-widget="{name}""#)),
            "{name}: {html}"
        );
        assert!(!html.contains("<canvas"), "{name} still has a canvas");
        let svgs = charts(&html);
        assert_eq!(svgs.len(), layers, "{name}: {html}");
        for svg in &svgs {
            // Sized by the viewBox alone, so CSS scales it to the column.
            let open = &svg[..svg.find('>').unwrap_or(svg.len())];
            assert!(open.contains("viewBox=\"0 0 760 "), "{name}: {open}");
            assert!(!open.contains("width="), "{name}: {open}");
            assert!(
                svg.contains("<polyline") || svg.contains("<path") || svg.contains("<circle"),
                "{name} draws nothing: {svg}"
            );
        }
        // Each chart sits in a layer of the plot; the described one is an image.
        assert_eq!(html.matches(r#"class="layer"#).count(), layers, "{name}");
        assert!(html.contains(r#"role="img""#), "{name}");
    }
}

#[test]
fn a_layered_chart_puts_the_axes_below_and_the_moving_mark_above() {
    let html = render("roofline");
    let svgs = charts(&html);
    assert!(svgs[0].contains("arithmetic intensity"), "{}", svgs[0]);
    assert!(svgs[1].contains("B = "), "{}", svgs[1]);
    // The moving layer draws no axes: they would double the base layer's text.
    assert!(!svgs[1].contains("arithmetic intensity"), "{}", svgs[1]);
}

/// The home page's figure: the roofline with its batch alone draws the same
/// charts as the whole widget at the same settings, with the batch slider and
/// the verdict, and none of the other controls.
#[test]
fn the_roofline_with_its_batch_alone_keeps_the_chart_the_slider_and_the_verdict() {
    let owner = Owner::new();
    let html = owner.with(|| widget_view("roofline", &[("controls", "batch")]).to_html());
    let full = render("roofline");
    assert_eq!(charts(&html), charts(&full));
    assert!(html.contains(r#"data-controls="batch""#), "{html}");
    assert!(full.contains(r#"data-controls="all""#));
    for kept in [
        r#"type="range""#,
        r#"data-verdict="memory-bound""#,
        "At B = ",
    ] {
        assert!(html.contains(kept), "{kept}");
    }
    for gone in [
        r#"class="controls""#,
        "data-derate",
        "data-vs",
        r#"class="predict""#,
        r#"class="times""#,
    ] {
        assert!(!html.contains(gone), "{gone}");
        assert!(full.contains(gone), "{gone}");
    }
}

#[test]
fn the_batch_roofline_draws_both_shapes_to_their_crossings() {
    // Part 1's Question 3 as the chapter places it: both curves, each in its
    // series colour, and both crossings labelled with core's batches (136 and
    // 226, derived in core's `question_3_curves_meet_the_roof_at_136_and_226`).
    let owner = Owner::new();
    let args = [
        ("chip", "v5e"),
        ("act", "bf16"),
        ("weight", "int8"),
        ("d", "4096"),
        ("f", "4096"),
        ("d2", "1024"),
        ("f2", "1024"),
        ("b", "192"),
        ("bmax", "512"),
    ];
    let html = owner.with(|| widget_view("batch-roofline", &args).to_html());
    let svgs = charts(&html);
    assert_eq!(svgs.len(), 1, "{html}");
    let pal = ridgeline_app::charts::palette(false);
    for (i, label) in [(0, "D = F = 4,096"), (1, "D = F = 1,024")] {
        let c = pal.series[i];
        let stroke = format!("stroke=\"#{:02X}{:02X}{:02X}\"", c.0, c.1, c.2);
        let curve = svgs[0]
            .split("<polyline")
            .skip(1)
            .find(|p| p.split('>').next().is_some_and(|tag| tag.contains(&stroke)));
        let points = curve.map_or(0, |p| {
            p.split("points=\"").nth(1).map_or(0, |q| {
                q.split('"')
                    .next()
                    .map_or(0, |q| q.split_whitespace().count())
            })
        });
        // Points on a straight run are left out of the drawing: the 4096
        // ramp is a start, a bend onto the roof and an end; the 1024 curve
        // bows, so it keeps many.
        let least = if i == 0 { 3 } else { 20 };
        assert!(points >= least, "{label}: {points} points in {}", svgs[0]);
        assert!(svgs[0].contains(label), "{label}");
    }
    assert!(svgs[0].contains("B ≈ 136") && svgs[0].contains("B ≈ 226"));
    // At B = 192 the larger shape is compute-bound and the smaller is not.
    let verdicts: Vec<&str> = html
        .split("data-verdict=\"")
        .skip(1)
        .filter_map(|t| t.split('"').next())
        .collect();
    assert_eq!(verdicts, ["compute-bound", "memory-bound"], "{html}");
}

#[test]
fn default_figures_fit_the_page_budget() {
    println!("widget               charts  raw bytes  gzip bytes");
    let mut largest = 0;
    for (name, _) in CHARTS {
        let html = render(name);
        let svgs = charts(&html);
        let raw: usize = svgs.iter().map(|s| s.len()).sum();
        let zipped = gzip(&svgs.concat());
        println!("{name:<20} {:>6} {raw:>10} {zipped:>11}", svgs.len());
        largest = largest.max(zipped);
    }
    // The largest widget's figures take at most a quarter of a page's budget,
    // leaving the rest for its text, the rest of the widget and the stylesheet.
    assert!(
        largest * 4 <= PAGE_BUDGET,
        "the largest widget's figures take {largest} B gzip"
    );
}
