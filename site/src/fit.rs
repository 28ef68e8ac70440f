//! Every chart's text lies inside its drawing at a phone's width (issue #13).
//!
//! Each page is rendered as the site writer renders it, with every chart frame
//! starting at a narrow width (`drawn_at`: the no-JS copies' 267 px, and the
//! live charts' boxes at 320 and 390 px), and every `<text>` of every plotters
//! drawing is given a box from its position, anchor, rotation and font size
//! (a character taken as [`ridgeline_app::charts::place::text_box`]'s 0.6 em,
//! the estimate label placement uses). A box that leaves the drawing is text
//! the reader sees cut at the edge.

use crate::figures::{layers, plot_boxes, view_box};
use crate::pages::{body, tests::ctx, Route};

/// The widths the charts are drawn at: the no-JS copy, then two phones' boxes.
const WIDTHS: [f64; 3] = [crate::figures::NARROW_WIDTH, 320.0, 390.0];

/// How far (in SVG units) a text box may reach past the edge: rounding of the
/// positions plotters writes.
const SLACK: f64 = 0.5;

/// The texts still cut at a phone's width, by page: none. The list stays so
/// that a text which cannot be fitted yet is named here rather than hidden;
/// the test fails when a new text is cut and when a listed one is fixed
/// without being struck off.
const STILL_CUT: &[(&str, &str)] = &[];

/// One drawn text and the box it covers.
#[derive(Debug, Clone, PartialEq)]
struct TextBox {
    text: String,
    x0: f64,
    y0: f64,
    x1: f64,
    y1: f64,
}

/// The value of attribute `name` in the tag `tag`.
fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let key = format!(" {name}=\"");
    let start = tag.find(&key)? + key.len();
    let end = tag[start..].find('"')? + start;
    Some(&tag[start..end])
}

/// A length in SVG units from `value` (`12`, `12px`, `0.76em`, `0.5ex`).
fn length(value: &str, size: f64) -> Option<f64> {
    if let Some(em) = value.strip_suffix("em") {
        return Some(em.parse::<f64>().ok()? * size);
    }
    if let Some(ex) = value.strip_suffix("ex") {
        // An ex is about half an em in a sans-serif face.
        return Some(ex.parse::<f64>().ok()? * size * 0.5);
    }
    value.trim_end_matches("px").parse().ok()
}

/// The text of an element, with the entities plotters escapes counted as one
/// character each.
fn unescape(s: &str) -> String {
    s.trim()
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

/// Every `<text>` of an SVG drawing as a box in the drawing's units: `None`
/// when a text has a position or size this reader does not understand.
fn text_boxes(svg: &str) -> Option<Vec<TextBox>> {
    let mut out = Vec::new();
    for piece in svg.split("<text").skip(1) {
        let tag_end = piece.find('>')?;
        let tag = &piece[..tag_end];
        let content = unescape(piece[tag_end + 1..].split("</text>").next()?);
        if content.is_empty() {
            continue;
        }
        let size = length(attr(tag, "font-size")?, 16.0)?;
        let x: f64 = attr(tag, "x")?.parse().ok()?;
        let y: f64 = attr(tag, "y")?.parse().ok()?;
        let dy = attr(tag, "dy").map_or(Some(0.0), |d| length(d, size))?;
        // The estimate of `place::text_box` without its padding.
        let w = content.chars().count() as f64 * 0.6 * size;
        // The glyphs stand from 0.76 em above the baseline to 0.24 em below it.
        let baseline = y
            + dy
            + match attr(tag, "dominant-baseline") {
                Some("middle" | "central") => 0.26 * size,
                Some("hanging" | "text-before-edge") => 0.76 * size,
                _ => 0.0,
            };
        let left = match attr(tag, "text-anchor") {
            Some("middle") => x - w / 2.0,
            Some("end") => x - w,
            _ => x,
        };
        let (mut x0, mut y0, mut x1, mut y1) = (
            left,
            baseline - 0.76 * size,
            left + w,
            baseline + 0.24 * size,
        );
        if let Some(rotate) = attr(tag, "transform").and_then(|t| t.strip_prefix("rotate(")) {
            let args: Vec<f64> = rotate
                .trim_end_matches(')')
                .split(',')
                .map(|a| a.trim().parse())
                .collect::<Result<_, _>>()
                .ok()?;
            let (angle, cx, cy) = match args[..] {
                [a] => (a, 0.0, 0.0),
                [a, cx, cy] => (a, cx, cy),
                _ => return None,
            };
            let (sin, cos) = angle.to_radians().sin_cos();
            let turn = |(px, py): (f64, f64)| {
                let (dx, dy) = (px - cx, py - cy);
                (cx + dx * cos - dy * sin, cy + dx * sin + dy * cos)
            };
            let corners = [(x0, y0), (x1, y0), (x0, y1), (x1, y1)].map(turn);
            x0 = corners.iter().map(|c| c.0).fold(f64::INFINITY, f64::min);
            x1 = corners
                .iter()
                .map(|c| c.0)
                .fold(f64::NEG_INFINITY, f64::max);
            y0 = corners.iter().map(|c| c.1).fold(f64::INFINITY, f64::min);
            y1 = corners
                .iter()
                .map(|c| c.1)
                .fold(f64::NEG_INFINITY, f64::max);
        }
        out.push(TextBox {
            text: content,
            x0,
            y0,
            x1,
            y1,
        });
    }
    Some(out)
}

/// Every text box of every chart drawing of `html` that leaves its drawing,
/// described for the failure message.
fn cut_texts(html: &str, page: &str, width: f64) -> Vec<(String, String)> {
    let mut cut = Vec::new();
    for (n, plot) in plot_boxes(html).iter().enumerate() {
        for layer in layers(plot.inner) {
            let svg = layer.content.trim();
            if !svg.starts_with("<svg class=\"chart-svg\"") {
                continue;
            }
            let Some((w, h)) = view_box(svg) else {
                cut.push((
                    String::new(),
                    format!("{page} chart {} at {width}: no viewBox", n + 1),
                ));
                continue;
            };
            let Some(boxes) = text_boxes(svg) else {
                cut.push((
                    String::new(),
                    format!("{page} chart {} at {width}: unreadable text", n + 1),
                ));
                continue;
            };
            let (w, h) = (f64::from(w), f64::from(h));
            for b in boxes {
                if b.x0 < -SLACK || b.y0 < -SLACK || b.x1 > w + SLACK || b.y1 > h + SLACK {
                    let text = format!(
                        "{page} chart {} drawn {w}×{h} (at {width}): “{}” at x {:.0}–{:.0}, y {:.0}–{:.0}",
                        n + 1,
                        b.text,
                        b.x0,
                        b.x1,
                        b.y0,
                        b.y1
                    );
                    cut.push((b.text, text));
                }
            }
        }
    }
    cut
}

#[test]
fn text_boxes_follow_anchor_baseline_and_rotation() {
    let svg = r#"<svg class="chart-svg" viewBox="0 0 100 50"><text x="10" y="20" dy="0.76em" text-anchor="start" font-size="10">abcde</text>
<text x="90" y="20" dy="0.5ex" text-anchor="end" font-size="10">a &amp; b</text>
<text x="20" y="30" dy="0.76em" text-anchor="middle" font-size="10" transform="rotate(270, 20, 30)">abcdefghij</text></svg>"#;
    let b = text_boxes(svg).expect("readable");
    assert_eq!(b.len(), 3);
    // Top-anchored: the box starts at y and is one em high, 0.6 em a character wide.
    assert_eq!((b[0].x0, b[0].x1), (10.0, 40.0));
    assert!((b[0].y0 - 20.0).abs() < 1e-9 && (b[0].y1 - 30.0).abs() < 1e-9);
    // End-anchored, the entity one character: five characters left of x.
    assert_eq!(b[1].text, "a & b");
    assert_eq!((b[1].x0, b[1].x1), (60.0, 90.0));
    // Turned a quarter: 60 wide becomes 60 high around its anchor.
    assert!((b[2].y1 - b[2].y0 - 60.0).abs() < 1e-9, "{:?}", b[2]);
    assert!((b[2].x1 - b[2].x0 - 10.0).abs() < 1e-9, "{:?}", b[2]);
    assert!((b[2].y0 - 0.0).abs() < 1e-9 && (b[2].y1 - 60.0).abs() < 1e-9);
    let page = format!(r#"<div class="plot"><div class="layer">{svg}</div></div>"#);
    let cut = cut_texts(&page, "p", 100.0);
    assert_eq!(cut.len(), 1, "{cut:?}");
    assert_eq!(cut[0].0, "abcdefghij", "{cut:?}");
}

/// Issue #13: at a phone's width no chart text is cut at the drawing's edge,
/// but for the ones [`STILL_CUT`] lists.
#[test]
fn no_chart_text_leaves_its_drawing_on_a_phone() {
    let ctx = ctx();
    let mut cut = Vec::new();
    let mut known = Vec::new();
    let mut texts = 0;
    for route in Route::all() {
        for width in WIDTHS {
            let html = ridgeline_app::charts::size::drawn_at(width, || body(route, &ctx));
            texts += html.matches("<text").count();
            for (text, said) in cut_texts(&html, route.path(), width) {
                match STILL_CUT
                    .iter()
                    .find(|k| **k == (route.path(), text.as_str()))
                {
                    Some(k) => known.push(*k),
                    None => cut.push(said),
                }
            }
        }
    }
    assert!(texts > 1000, "only {texts} texts drawn");
    assert!(
        cut.is_empty(),
        "{} texts cut:\n{}",
        cut.len(),
        cut.join("\n")
    );
    let fixed: Vec<_> = STILL_CUT.iter().filter(|k| !known.contains(k)).collect();
    assert!(
        fixed.is_empty(),
        "no longer cut, strike them off: {fixed:?}"
    );
}
