//! Pipeline timelines (the `pipeline` and `gpu-parallelism` widgets): a row
//! per stage and a box per forward, backward or weight pass, or per DualPipe
//! cell that overlaps a forward and a backward.
//!
//! Unlike the other charts these are written as SVG text rather than drawn
//! with plotters: a 16-stage, 32-microbatch step has over a thousand boxes, and
//! the browser parses one string faster than it takes a thousand elements
//! (see [`timeline_svg`]).

use ridgeline_core::training::pipeline::{Pass, PipelineRun, Slot};

/// Height of one stage's row, in CSS pixels.
pub const ROW: f64 = 28.0;
/// Room on the left for the stage labels.
pub const LABEL_W: f64 = 64.0;
/// Most drawing width of the timeline, in CSS pixels; wider steps are compressed.
pub const MAX_W: f64 = 1400.0;
/// Width of one forward-pass unit when the step is short.
const UNIT_W: f64 = 26.0;
/// Narrowest box that carries its microbatch's number.
const LABELLED_W: f64 = 16.0;

/// A coordinate written into a timeline's markup: to a tenth of a CSS pixel,
/// without a trailing `.0`. A 16-stage step has hundreds of boxes, and
/// coordinates such as `116.47818795745215` made its markup a third longer
/// for the browser to parse on every slider step.
#[derive(Debug, Clone, Copy)]
pub struct Px(pub f64);

impl std::fmt::Display for Px {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Integer formatting: the float formatter costs more than the parse
        // it saves on a thousand boxes.
        let tenths = i64::from(super::px::px((self.0 * 10.0).round()));
        let sign = if tenths < 0 { "-" } else { "" };
        let (whole, tenth) = (tenths.unsigned_abs() / 10, tenths.unsigned_abs() % 10);
        if tenth == 0 {
            write!(f, "{sign}{whole}")
        } else {
            write!(f, "{sign}{whole}.{tenth}")
        }
    }
}

/// Pixels per unit of time for a step of `step` units.
pub fn scale(step: f64) -> f64 {
    if step > 0.0 {
        UNIT_W.min((MAX_W - LABEL_W) / step)
    } else {
        UNIT_W
    }
}

/// Timelines in boxes narrower than this many CSS pixels (a phone's) are
/// drawn [`Fit::compact`]: wider ones keep one box per pass and scroll.
pub const COMPACT_BELOW: f64 = 560.0;

/// How a timeline of some step is laid out in its box.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fit {
    /// Pixels per unit of time.
    pub px: f64,
    /// Drawn for a narrow box: no wider than the box, the boxes of each kind
    /// in one `path` with touching unlabelled boxes merged, and a label only
    /// where it fits its box. A phone then lays out and rasterises a few
    /// dozen elements per redraw instead of hundreds.
    pub compact: bool,
}

impl Fit {
    /// The layout of a step of `step` units in a box `box_w` CSS pixels wide
    /// (a width that is not a finite positive number is a wide box).
    pub fn new(step: f64, box_w: f64) -> Fit {
        let compact = box_w.is_finite() && box_w > 0.0 && box_w < COMPACT_BELOW;
        let px = if compact && step > 0.0 {
            scale(step).min((box_w - LABEL_W - 4.0).max(1.0) / step)
        } else {
            scale(step)
        };
        Fit { px, compact }
    }

    /// The drawing's width for a step of `step` units.
    pub fn width(self, step: f64) -> f64 {
        LABEL_W + step * self.px + 4.0
    }

    /// Whether a box `w` pixels wide carries `label`: at least
    /// [`LABELLED_W`], and when compact, as wide as the label's 12 px text.
    fn labels(self, w: f64, label: &str) -> bool {
        w >= LABELLED_W
            && (!self.compact || w >= f64::from(crate::charts::text::text_box(label, 12).0))
    }
}

/// One box of a compact timeline, kept until [`Boxes::finish`] merges them.
#[derive(Debug, Clone)]
struct Pending {
    class: &'static str,
    x: f64,
    y: f64,
    w: f64,
    h: f64,
    labelled: bool,
}

/// The boxes of a timeline and their labels, written as [`Fit`] says: a
/// `rect` (and its label) each, or, compact, one `path` per class with
/// touching unlabelled boxes of a row merged, the labels over them.
pub struct Boxes {
    fit: Fit,
    out: String,
    pending: Vec<Pending>,
    labels: String,
}

impl Boxes {
    /// No boxes yet, laid out by `fit`.
    pub fn new(fit: Fit) -> Boxes {
        Boxes {
            fit,
            out: String::new(),
            pending: Vec::new(),
            labels: String::new(),
        }
    }

    /// A box of `class` at `(x, y)`, `w` × `h`, with `label` centred at
    /// `label_y` when it fits.
    pub fn add(
        &mut self,
        class: &'static str,
        (x, y): (f64, f64),
        (w, h): (f64, f64),
        label: Option<(&str, f64)>,
    ) {
        use std::fmt::Write;
        let label = label.filter(|(text, _)| self.fit.labels(w, text));
        if self.fit.compact {
            self.pending.push(Pending {
                class,
                x,
                y,
                w,
                h,
                labelled: label.is_some(),
            });
        } else {
            let _ = write!(
                self.out,
                r#"<rect class="{class}" x="{}" y="{}" width="{}" height="{}" rx="2"></rect>"#,
                Px(x),
                Px(y),
                Px(w),
                Px(h)
            );
        }
        if let Some((text, label_y)) = label {
            let target = if self.fit.compact {
                &mut self.labels
            } else {
                &mut self.out
            };
            let _ = write!(
                target,
                r#"<text class="slot-label" x="{}" y="{}">{text}</text>"#,
                Px(x + w / 2.0),
                Px(label_y)
            );
        }
    }

    /// The markup of every box added, in the order of their classes' first boxes.
    pub fn finish(self) -> String {
        use std::fmt::Write;
        let Boxes {
            mut out,
            pending,
            labels,
            ..
        } = self;
        let mut classes: Vec<&'static str> = Vec::new();
        for p in &pending {
            if !classes.contains(&p.class) {
                classes.push(p.class);
            }
        }
        for class in classes {
            let mut mine: Vec<&Pending> = pending.iter().filter(|p| p.class == class).collect();
            mine.sort_by(|a, b| a.y.total_cmp(&b.y).then(a.x.total_cmp(&b.x)));
            let mut merged: Vec<Pending> = Vec::with_capacity(mine.len());
            for p in mine {
                match merged.last_mut() {
                    // A box that touches the previous one of its row (across
                    // the pixel gap between boxes) joins it, unless either is labelled.
                    Some(m)
                        if !m.labelled
                            && !p.labelled
                            && m.y == p.y
                            && m.h == p.h
                            && p.x <= m.x + m.w + 1.5 =>
                    {
                        m.w = m.w.max(p.x + p.w - m.x);
                    }
                    _ => merged.push(p.clone()),
                }
            }
            let _ = write!(out, r#"<path class="{class}" d=""#);
            for m in merged {
                let _ = write!(
                    out,
                    "M{:.1} {:.1}h{:.1}v{:.1}h-{:.1}z",
                    m.x, m.y, m.w, m.h, m.w
                );
            }
            out.push_str(r#""></path>"#);
        }
        out.push_str(&labels);
        out
    }
}

/// A pipeline timeline as SVG markup: a row per stage, a box per pass
/// (`rect.slot`, no group around it: a third fewer elements to parse; in a
/// compact drawing one `path.slot` per kind) labelled with its microbatch (`text.slot-label`) when wide enough (rows of [`ROW`] pixels below
/// a [`LABEL_W`]-pixel margin), and the step's length under the last row.
/// `stream_b` marks the passes of a bidirectional schedule's second stream.
/// A DualPipe cell that overlaps a forward of one microbatch with a backward
/// of another is one box (`slot fb`) labelled with both, `3|6`, when the label fits.
/// The drawing is laid out for a box `box_w` CSS pixels wide ([`Fit`]).
///
/// Written as text and set with `inner_html` rather than built with `view!`:
/// a 16-stage, 32-microbatch step has over a thousand boxes, and creating them
/// one DOM call at a time cost 4–20 ms per slider step in the browser (the
/// benchmark's redraw budget is 8 ms); the browser parses the same markup in
/// one call. Every value written is a number or a fixed word, so nothing
/// needs escaping.
pub fn timeline_svg(
    t: &PipelineRun,
    stages: u32,
    box_w: f64,
    class: &str,
    aria: &str,
    axis_end: &str,
    stream_b: impl Fn(&Slot) -> bool,
) -> String {
    use std::fmt::Write;
    let fit = Fit::new(t.step.0, box_w);
    let px = fit.px;
    let width = Px(fit.width(t.step.0));
    let height = f64::from(stages) * ROW + 22.0;
    let mut out = String::with_capacity(96 * t.slots.len() + 512);
    let _ = write!(
        out,
        r#"<svg class="{class}" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" aria-label="{aria}">"#
    );
    for d in 0..stages {
        let y = f64::from(d) * ROW + ROW / 2.0 + 2.0;
        let _ = write!(
            out,
            r#"<text class="stage" x="2" y="{y}" dominant-baseline="middle">stage {d}</text>"#
        );
    }
    let mut boxes = Boxes::new(fit);
    for s in &t.slots {
        let x = LABEL_W + s.start.0 * px;
        let w = ((s.end.0 - s.start.0) * px - 1.0).max(1.0);
        let y = s.device as f64 * ROW + 2.0;
        let class = match (s.pass, stream_b(s)) {
            // It holds both streams' work: neither stream's shade.
            (Pass::ForwardBackward, _) => "slot fb",
            (Pass::Forward, false) => "slot fwd",
            (Pass::Forward, true) => "slot fwd stream-b",
            (Pass::Backward, false) => "slot bwd",
            (Pass::Backward, true) => "slot bwd stream-b",
            (Pass::Weight, false) => "slot wgt",
            (Pass::Weight, true) => "slot wgt stream-b",
        };
        let label = match s.paired {
            Some(b) => format!("{}|{b}", s.microbatch),
            None => s.microbatch.to_string(),
        };
        // A pair's label is longer than one number: only where its text fits.
        let fits =
            s.paired.is_none() || w >= f64::from(crate::charts::text::text_box(&label, 12).0) + 2.0;
        boxes.add(
            class,
            (x, y),
            (w, ROW - 4.0),
            fits.then_some((label.as_str(), y + ROW / 2.0 + 1.0)),
        );
    }
    out.push_str(&boxes.finish());
    let end_y = f64::from(stages) * ROW + 16.0;
    let _ = write!(
        out,
        r#"<text class="axis" x="{LABEL_W}" y="{end_y}">0</text><text class="axis" x="{}" y="{end_y}" text-anchor="end">{axis_end}</text></svg>"#,
        Px(width.0 - 4.0)
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinates_are_written_to_a_tenth_of_a_pixel() {
        for (x, s) in [
            (0.0, "0"),
            (25.000000000000007, "25"),
            (116.47818795745215, "116.5"),
            (644.2633638723564, "644.3"),
            (0.04, "0"),
            (9.96, "10"),
            (-1.25, "-1.3"),
        ] {
            assert_eq!(Px(x).to_string(), s, "{x}");
        }
    }
}
