//! What the static figures (the widget table's `Static` kind) share: the
//! drawing width, labels whose `_x` parts are subscripts, and the reading of
//! a figure's chapter arguments. Static figures are drawn by the native page
//! writer only, so this module is compiled in native builds only.

use crate::charts::px::px;
use leptos::prelude::*;

/// A static figure's drawing width in SVG user units: about the phone column
/// (390 px), so a 13 px label stays 13 px there.
pub const WIDTH: f64 = 400.0;

/// One piece of a label: plain text, or a subscript.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// Set on the baseline.
    Plain(String),
    /// Set as a subscript.
    Sub(String),
}

/// Splits `text` at each `_`: the letters and digits after it are a
/// subscript (`W_in[D_X, F_YZ]` → `W`, `in`, `[D`, `X`, `, F`, `YZ`, `]`).
pub fn pieces(text: &str) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut plain = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '_' {
            let mut sub = String::new();
            while let Some(&n) = chars.peek() {
                if !n.is_alphanumeric() {
                    break;
                }
                sub.push(n);
                chars.next();
            }
            if !plain.is_empty() {
                out.push(Piece::Plain(std::mem::take(&mut plain)));
            }
            out.push(Piece::Sub(sub));
        } else {
            plain.push(c);
        }
    }
    if !plain.is_empty() {
        out.push(Piece::Plain(plain));
    }
    out
}

/// An SVG `<text>` at `(x, y)` with `anchor` and `class`, its `_x` parts set
/// as subscripts. Text without subscripts needs no `<tspan>`, and `start` is
/// SVG's own anchor: both are left out, since a page carries hundreds of
/// labels.
pub fn label(x: f64, y: f64, anchor: &'static str, class: &'static str, text: &str) -> AnyView {
    let anchor = (anchor != "start").then_some(anchor);
    let pieces = pieces(text);
    if let [Piece::Plain(t)] = pieces.as_slice() {
        return view! {
            <text x=units(x) y=units(y) text-anchor=anchor class=class>{t.clone()}</text>
        }
        .into_any();
    }
    // A subscript drops 4 units; the plain text after it rises back.
    let mut low = false;
    let spans = pieces
        .into_iter()
        .map(|p| match p {
            Piece::Plain(t) => {
                let dy = std::mem::take(&mut low).then_some("-4");
                view! { <tspan dy=dy>{t}</tspan> }.into_any()
            }
            Piece::Sub(t) => {
                let dy = if std::mem::replace(&mut low, true) {
                    "0"
                } else {
                    "4"
                };
                view! { <tspan class="sub" dy=dy>{t}</tspan> }.into_any()
            }
        })
        .collect_view();
    view! {
        <text x=units(x) y=units(y) text-anchor=anchor class=class>{spans}</text>
    }
    .into_any()
}

/// A coordinate in tenths of a unit, as short as SVG allows (`52`, `52.5`).
fn units(v: f64) -> String {
    let mut out = String::new();
    write_tenths(&mut out, tenths(v));
    out
}

/// An SVG `<text>` at `(x, y)` with `anchor` and `class`, set as written
/// (an `_` stays an underscore: `layer_0`, `qkv_matmul`).
pub fn plain(x: f64, y: f64, anchor: &'static str, class: &'static str, text: &str) -> AnyView {
    view! {
        <text x=units(x) y=units(y) text-anchor=(anchor != "start").then_some(anchor) class=class>{text.to_string()}</text>
    }
    .into_any()
}

/// A rectangle with rounded corners.
pub fn rect(x: f64, y: f64, w: f64, h: f64, class: &'static str) -> AnyView {
    view! {
        <rect x=units(x) y=units(y) width=units(w) height=units(h) rx="4" class=class />
    }
    .into_any()
}

/// A line from `(x1, y1)` to `(x2, y2)`.
pub fn line(x1: f64, y1: f64, x2: f64, y2: f64, class: &'static str) -> AnyView {
    view! {
        <line x1=units(x1) y1=units(y1) x2=units(x2) y2=units(y2) class=class />
    }
    .into_any()
}

/// A length in tenths of a unit, the precision figures are drawn at.
fn tenths(x: f64) -> i64 {
    // Figure coordinates are a few hundred units: far inside the pixel range.
    i64::from(px((x * 10.0).round()))
}

/// A length in tenths written as short as SVG allows: `84`, `84.5`, `-12`.
fn write_tenths(d: &mut String, t: i64) {
    if t < 0 {
        d.push('-');
    }
    let a = t.unsigned_abs();
    d.push_str(&(a / 10).to_string());
    if !a.is_multiple_of(10) {
        d.push('.');
        d.push_str(&(a % 10).to_string());
    }
}

/// An `x y` pair for path data; a negative `y` needs no space before it.
fn write_pair(d: &mut String, x: i64, y: i64) {
    write_tenths(d, x);
    if y >= 0 {
        d.push(' ');
    }
    write_tenths(d, y);
}

/// Path data for runs of points: each run starts with an absolute `M`, and
/// each point after it is relative to the last (`h`, `v` or `l`), so that
/// strokes of the same length and direction repeat and compress well.
fn run_data(runs: &[Vec<(f64, f64)>]) -> String {
    let mut d = String::new();
    for run in runs {
        let mut last = None;
        for &(x, y) in run {
            let (x, y) = (tenths(x), tenths(y));
            match last {
                None => {
                    d.push('M');
                    write_pair(&mut d, x, y);
                }
                Some((lx, ly)) if y == ly => {
                    d.push('h');
                    write_tenths(&mut d, x - lx);
                }
                Some((lx, ly)) if x == lx => {
                    d.push('v');
                    write_tenths(&mut d, y - ly);
                }
                Some((lx, ly)) => {
                    d.push('l');
                    write_pair(&mut d, x - lx, y - ly);
                }
            }
            last = Some((x, y));
        }
    }
    d
}

/// Many strokes of one class as one `<path>`: each run of points is drawn as
/// connected straight segments. A figure of hundreds of links costs one
/// element and a few bytes a link, not a `<line>` each.
pub fn strokes(runs: &[Vec<(f64, f64)>], class: &'static str) -> AnyView {
    view! { <path d=run_data(runs) class=class /> }.into_any()
}

/// Many rectangles `(x, y, width, height)` of one class as one `<path>`
/// (square corners), for figures that draw rows of small boxes.
pub fn boxes(rects: &[(f64, f64, f64, f64)], class: &'static str) -> AnyView {
    let mut d = String::new();
    for &(x, y, w, h) in rects {
        d.push('M');
        write_pair(&mut d, tenths(x), tenths(y));
        d.push('h');
        write_tenths(&mut d, tenths(w));
        d.push('v');
        write_tenths(&mut d, tenths(h));
        d.push('h');
        write_tenths(&mut d, -tenths(w));
        d.push('z');
    }
    view! { <path d=d class=class /> }.into_any()
}

/// Many dots of radius `r` and one class as one `<path>` (two arcs each).
pub fn dots(points: &[(f64, f64)], r: f64, class: &'static str) -> AnyView {
    let mut d = String::new();
    let (r, w) = (tenths(r), tenths(2.0 * r));
    for &(x, y) in points {
        d.push('M');
        write_pair(&mut d, tenths(x) - r, tenths(y));
        for dx in [w, -w] {
            d.push('a');
            write_pair(&mut d, r, r);
            d.push_str(" 0 1 0 ");
            write_pair(&mut d, dx, 0);
        }
    }
    view! { <path d=d class=class /> }.into_any()
}

/// Many × marks of half-width `r` and one class as one `<path>`.
pub fn crosses(points: &[(f64, f64)], r: f64, class: &'static str) -> AnyView {
    let runs: Vec<Vec<(f64, f64)>> = points
        .iter()
        .flat_map(|&(x, y)| {
            [
                vec![(x - r, y - r), (x + r, y + r)],
                vec![(x - r, y + r), (x + r, y - r)],
            ]
        })
        .collect();
    strokes(&runs, class)
}

/// One axis of a static plot: data from `lo` to `hi` (on a log scale when
/// `log`) drawn from `start` to `end` in drawing units.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Axis {
    /// The data value at `start`.
    pub lo: f64,
    /// The data value at `end`.
    pub hi: f64,
    /// Whether the scale is logarithmic.
    pub log: bool,
    /// Where `lo` is drawn.
    pub start: f64,
    /// Where `hi` is drawn.
    pub end: f64,
}

impl Axis {
    /// Where `v` is drawn.
    pub fn at(&self, v: f64) -> f64 {
        let t = if self.log {
            (v / self.lo).ln() / (self.hi / self.lo).ln()
        } else {
            (v - self.lo) / (self.hi - self.lo)
        };
        self.start + t * (self.end - self.start)
    }
}

/// How many runs the `<path>` of `class` in `html` draws (tests count links with it).
#[cfg(test)]
pub fn runs_of(html: &str, class: &str) -> usize {
    html.split("<path d=\"")
        .skip(1)
        .filter_map(|p| p.split_once('"'))
        .filter(|(_, rest)| rest.trim_start().starts_with(&format!("class=\"{class}\"")))
        .map(|(d, _)| d.matches('M').count())
        .sum()
}

/// A figure's drawing: `parts` in an SVG [`WIDTH`] wide and `height` tall,
/// described for a screen reader by `aria`.
pub fn drawing(height: f64, aria: &'static str, parts: Vec<AnyView>) -> AnyView {
    view! {
        <svg viewBox=format!("0 0 {WIDTH} {height:.0}") role="img" aria-label=aria>
            {parts.into_iter().collect_view()}
        </svg>
    }
    .into_any()
}

/// The value of `key` among a figure's chapter arguments, or `default`.
pub fn arg<'a>(args: &'a [(String, String)], key: &str, default: &'a str) -> &'a str {
    args.iter()
        .rev()
        .find(|(k, _)| k == key)
        .map_or(default, |(_, v)| v.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn underscores_start_subscripts() {
        let p = |s: &str| Piece::Plain(s.to_string());
        let s = |s: &str| Piece::Sub(s.to_string());
        assert_eq!(
            pieces("W_in[D_X, F_YZ]"),
            vec![p("W"), s("in"), p("[D"), s("X"), p(", F"), s("YZ"), p("]")]
        );
        assert_eq!(pieces("plain"), vec![p("plain")]);
        assert_eq!(pieces(""), vec![]);
    }

    #[test]
    fn later_arguments_win() {
        let args = vec![
            ("b".to_string(), "1".to_string()),
            ("b".to_string(), "2".to_string()),
        ];
        assert_eq!(arg(&args, "b", "9"), "2");
        assert_eq!(arg(&args, "n", "9"), "9");
    }

    #[test]
    fn strokes_are_one_path_of_runs() {
        let runs = vec![
            vec![(0.0, 1.25), (3.0, 4.0)],
            vec![(5.0, 6.0), (7.0, 6.0), (7.0, 2.5), (-1.0, 10.0)],
        ];
        let html = Owner::new().with(|| strokes(&runs, "fig-link").to_html());
        // Relative steps from rounded points, so the runs end where they should.
        assert!(
            html.contains(r#"d="M0 1.3l3 2.7M5 6h2v-3.5l-8 7.5""#),
            "{html}"
        );
        assert_eq!(runs_of(&html, "fig-link"), 2);
        assert_eq!(runs_of(&html, "fig-mesh"), 0);
        let html = Owner::new().with(|| boxes(&[(8.0, 24.0, 20.0, 14.5)], "fig-box").to_html());
        assert!(html.contains(r#"d="M8 24h20v14.5h-20z""#), "{html}");
    }
}
