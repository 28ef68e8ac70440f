//! A pipeline schedule as a timeline (`data-widget="pipeline"`, Part 5,
//! "Pipelining", and the DeepSeek-style schedule of Part 6): stages down the
//! side, time along the bottom, one box per forward or backward pass of a
//! microbatch, and the bubble fraction, step time and activations in flight,
//! all from [`ridgeline_core::training::pipeline::simulate`].

use super::controls::Notice;
use leptos::prelude::*;
use ridgeline_core::format::{grouped, sci};
use ridgeline_core::training::pipeline::{
    simulate, Pass, PipelineParams, Schedule, Slot, Timeline,
};
use ridgeline_core::training::pipeline_bubble;

use super::controls::option;
use super::params::{WidgetParams, WidgetState};
use crate::charts::size::Frame;
use crate::input::parse_count;

/// Most stages the widget draws (each is a row of the timeline).
pub const MAX_STAGES: u32 = 16;
/// Most microbatches the widget draws.
pub const MAX_MICROBATCHES: u32 = 64;
/// Most chunks per device.
pub const MAX_CHUNKS: u32 = 4;
/// Height of one stage's row, in CSS pixels.
pub(super) const ROW: f64 = 28.0;
/// Room on the left for the stage labels.
pub(super) const LABEL_W: f64 = 64.0;
/// Most drawing width of the timeline, in CSS pixels; wider steps are compressed.
pub(super) const MAX_W: f64 = 1400.0;
/// Width of one forward-pass unit when the step is short.
const UNIT_W: f64 = 26.0;
/// Narrowest box that carries its microbatch's number.
const LABELLED_W: f64 = 16.0;

/// A coordinate written into a timeline's markup: to a tenth of a CSS pixel,
/// without a trailing `.0`. A 16-stage step has hundreds of boxes, and
/// coordinates such as `116.47818795745215` made its markup a third longer
/// for the browser to parse on every slider step.
#[derive(Debug, Clone, Copy)]
pub(super) struct Px(pub f64);

impl std::fmt::Display for Px {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Integer formatting: the float formatter costs more than the parse
        // it saves on a thousand boxes.
        let tenths = (self.0 * 10.0).round() as i64;
        let sign = if tenths < 0 { "-" } else { "" };
        let (whole, tenth) = (tenths.unsigned_abs() / 10, tenths.unsigned_abs() % 10);
        if tenth == 0 {
            write!(f, "{sign}{whole}")
        } else {
            write!(f, "{sign}{whole}.{tenth}")
        }
    }
}

/// What the reader sets; always a schedule the simulator takes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PipelineChoice {
    /// The schedule.
    pub schedule: Schedule,
    /// Stages, `S`.
    pub stages: u32,
    /// Microbatches, `M`.
    pub microbatches: u32,
    /// Chunks per device, for the interleaved schedule.
    pub chunks: u32,
}

impl Default for PipelineChoice {
    fn default() -> Self {
        PipelineChoice {
            schedule: Schedule::OneFOneB,
            stages: 4,
            microbatches: 8,
            chunks: 2,
        }
    }
}

/// What the reader sees for each schedule.
pub fn schedule_label(s: Schedule) -> &'static str {
    match s {
        Schedule::GPipe => "GPipe",
        Schedule::OneFOneB => "1F1B",
        Schedule::Interleaved => "interleaved 1F1B",
        Schedule::Bidirectional => "bidirectional (DualPipe-like)",
        Schedule::ZeroBubble => "zero-bubble (B and W split)",
    }
}

impl PipelineChoice {
    /// The core's parameters (unit forward time, twice that backward).
    pub fn core(&self) -> PipelineParams {
        let mut p = PipelineParams::new(self.stages, self.microbatches, self.schedule);
        if self.schedule == Schedule::Interleaved {
            p.chunks = self.chunks;
        }
        p
    }

    /// The simulated step.
    pub fn timeline(&self) -> Result<Timeline, String> {
        simulate(&self.core())
    }
}

impl WidgetParams for PipelineChoice {
    const ORDER: &'static [&'static [&'static str]] = &[&["schedule"]];

    /// Sets one parameter from text, or explains why not (nothing changes then).
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut next = *self;
        match key {
            "schedule" => next.schedule = Schedule::parse(value)?,
            "stages" => {
                next.stages = parse_count(value, "stages", 1.0, MAX_STAGES as f64)?.round() as u32
            }
            "microbatches" => {
                next.microbatches =
                    parse_count(value, "microbatches", 1.0, MAX_MICROBATCHES as f64)?.round() as u32
            }
            "chunks" => {
                next.chunks = parse_count(value, "chunks", 1.0, MAX_CHUNKS as f64)?.round() as u32
            }
            other => return Err(super::params::unknown_setting(other)),
        }
        next.timeline()?;
        *self = next;
        Ok(())
    }

    /// The parameters as `key=value` pairs.
    fn to_pairs(&self) -> Vec<(String, String)> {
        vec![
            ("schedule".into(), self.schedule.name().into()),
            ("stages".into(), self.stages.to_string()),
            ("microbatches".into(), self.microbatches.to_string()),
            ("chunks".into(), self.chunks.to_string()),
        ]
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
pub(super) const COMPACT_BELOW: f64 = 560.0;

/// How a timeline of some step is laid out in its box.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Fit {
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
    pub(super) fn new(step: f64, box_w: f64) -> Fit {
        let compact = box_w.is_finite() && box_w > 0.0 && box_w < COMPACT_BELOW;
        let px = if compact && step > 0.0 {
            scale(step).min((box_w - LABEL_W - 4.0).max(1.0) / step)
        } else {
            scale(step)
        };
        Fit { px, compact }
    }

    /// The drawing's width for a step of `step` units.
    pub(super) fn width(self, step: f64) -> f64 {
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
pub(super) struct Boxes {
    fit: Fit,
    out: String,
    pending: Vec<Pending>,
    labels: String,
}

impl Boxes {
    /// No boxes yet, laid out by `fit`.
    pub(super) fn new(fit: Fit) -> Boxes {
        Boxes {
            fit,
            out: String::new(),
            pending: Vec::new(),
            labels: String::new(),
        }
    }

    /// A box of `class` at `(x, y)`, `w` × `h`, with `label` centred at
    /// `label_y` when it fits.
    pub(super) fn add(
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
    pub(super) fn finish(self) -> String {
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
/// The drawing is laid out for a box `box_w` CSS pixels wide ([`Fit`]).
///
/// Written as text and set with `inner_html` rather than built with `view!`:
/// a 16-stage, 32-microbatch step has over a thousand boxes, and creating them
/// one DOM call at a time cost 4–20 ms per slider step in the browser (the
/// benchmark's redraw budget is 8 ms); the browser parses the same markup in
/// one call. Every value written is a number or a fixed word, so nothing
/// needs escaping.
pub(super) fn timeline_svg(
    t: &Timeline,
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
            (Pass::Forward, false) => "slot fwd",
            (Pass::Forward, true) => "slot fwd stream-b",
            (Pass::Backward, false) => "slot bwd",
            (Pass::Backward, true) => "slot bwd stream-b",
            (Pass::Weight, false) => "slot wgt",
            (Pass::Weight, true) => "slot wgt stream-b",
        };
        let label = s.microbatch.to_string();
        boxes.add(
            class,
            (x, y),
            (w, ROW - 4.0),
            Some((&label, y + ROW / 2.0 + 1.0)),
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

/// The pipeline widget.
#[component]
pub fn Pipeline(
    /// The chapter's `key=value` arguments (URL parameters override them).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let state = WidgetState::<PipelineChoice>::new(&args);
    let WidgetState { params, notice } = state;
    let set = move |key: &'static str, value: String| {
        state.set_or_refresh(key, &value, true);
    };
    let result = Memo::new(move |_| params.with(|p| p.timeline().ok()));
    let schedule_options = Schedule::ALL
        .map(|s| {
            option(s.name(), schedule_label(s), move || {
                params.with(|p| p.schedule.name())
            })
        })
        .collect_view();

    let frame = Frame::width_only(MAX_W as u32);
    let drawing = move || {
        let box_w = f64::from(frame.get().width);
        let (stages, bidirectional) =
            params.with(|p| (p.stages, p.schedule == Schedule::Bidirectional));
        result.with(|t| {
            t.as_ref()
                .map(|t| {
                    let aria = format!(
                        "timeline of {} stages; the step takes {} forward-pass units",
                        stages,
                        sci(t.step.0, 3)
                    );
                    let end = format!("{} units", sci(t.step.0, 3));
                    timeline_svg(t, stages, box_w, "pipeline-timeline", &aria, &end, |s| {
                        bidirectional && s.microbatch % 2 == 1
                    })
                })
                .unwrap_or_default()
        })
    };
    let stat = move |f: fn(&Timeline, &PipelineChoice) -> String| {
        move || {
            result.with(|t| {
                t.as_ref()
                    .map(|t| params.with(|p| f(t, p)))
                    .unwrap_or_default()
            })
        }
    };
    let number_input = move |key: &'static str,
                             aria: &'static str,
                             get: fn(&PipelineChoice) -> u32| {
        view! {
            <input type="number" min="1" size="4" class=format!("in-{key}") aria-label=aria
                value=move || params.with(get).to_string() prop:value=move || params.with(get).to_string()
                on:change=move |ev| set(key, event_target_value(&ev)) />
        }
    };

    view! {
        <figure class="widget pipeline" data-widget="pipeline">
            <div class="controls">
                <label>"Schedule "
                    <select prop:value=move || params.with(|p| p.schedule.name()) on:change=move |ev| set("schedule", event_target_value(&ev))>{schedule_options}</select>
                </label>
                <label>"Stages S " {number_input("stages", "pipeline stages", |p| p.stages)}</label>
                <label>"Microbatches M " {number_input("microbatches", "microbatches", |p| p.microbatches)}</label>
                <label>"Chunks v (interleaved) " {number_input("chunks", "chunks per device", |p| p.chunks)}</label>
            </div>
            <Notice notice=notice />
            <div class="table-scroll" tabindex="0" node_ref=frame.node inner_html=drawing></div>
            <p class="legend"><span class="key fwd"></span>" forward (1 unit) "<span class="key bwd"></span>" backward (2 units; in the zero-bubble schedule only its input-gradient half B, 1 unit) "<span class="key wgt"></span>" W: the weight-gradient half (zero-bubble, 1 unit); the number is the microbatch."</p>
            <dl class="times pipeline-results">
                <div><dt>"bubble (idle share of device time)"</dt><dd data-bubble="">{stat(|t, _| format!("{}%", sci(100.0 * t.bubble, 3)))}</dd></div>
                <div><dt>"GPipe's (S − 1)/(M + S − 1)"</dt><dd>{stat(|_, p| pipeline_bubble(p.stages as f64, p.microbatches as f64).map_or_else(|e| e.to_string(), |b| format!("{}%", sci(100.0 * b, 3))))}</dd></div>
                <div><dt>"step time"</dt><dd data-step-time="">{stat(|t, _| format!("{} forward units", sci(t.step.0, 3)))}</dd></div>
                <div><dt>"most activations held by one device"</dt><dd data-in-flight="">{stat(|t, _| format!("{} microbatch-stages", sci(t.peak_in_flight, 3)))}</dd></div>
                <div><dt>"copies of each stage's weights"</dt><dd>{stat(|t, _| grouped(t.weight_copies as f64))}</dd></div>
            </dl>
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::widgets::params::pairs;
    use crate::widgets::params::testing::{assert_pairs_restore, assert_refused_keeps};

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

    #[test]
    fn the_books_bubbles_for_four_stages_and_eight_microbatches() {
        // Part 5: GPipe and 1F1B idle (S − 1)/(M + S − 1) = 3/11 of the time;
        // interleaving two chunks makes it 3/19.
        for (schedule, bubble) in [
            ("gpipe", 3.0 / 11.0),
            ("1f1b", 3.0 / 11.0),
            ("interleaved", 3.0 / 19.0),
        ] {
            let (p, refused) = PipelineChoice::from_pairs(&pairs(&[("schedule", schedule)]));
            assert!(refused.is_empty(), "{refused:?}");
            let t = p.timeline().unwrap();
            assert!((t.bubble - bubble).abs() < 1e-9, "{schedule}: {}", t.bubble);
            assert_eq!(t.slots.len(), 2 * 4 * 8 * p.core().chunks as usize);
        }
        // GPipe holds every microbatch at the turn; 1F1B at most S on the first stage.
        let gpipe = PipelineChoice::from_pairs(&pairs(&[("schedule", "gpipe")])).0;
        assert_eq!(gpipe.timeline().unwrap().peak_in_flight, 8.0);
        assert_eq!(
            PipelineChoice::default().timeline().unwrap().peak_in_flight,
            4.0
        );
        let bi = PipelineChoice::from_pairs(&pairs(&[("schedule", "bidirectional")])).0;
        assert_eq!(bi.timeline().unwrap().weight_copies, 2);
    }

    #[test]
    fn bad_input_keeps_the_schedule_and_pairs_round_trip() {
        let mut p = PipelineChoice::default();
        assert_refused_keeps(
            &p,
            &[
                ("stages", "0"),
                ("stages", "65"),
                ("microbatches", "1000"),
                ("schedule", "zigzag"),
                ("chunks", "9"),
                ("colour", "red"),
            ],
        );
        p.apply("schedule", "interleaved").unwrap();
        // Interleaving needs M to be a multiple of S: 8 microbatches on 3 stages is refused.
        assert!(p
            .apply("stages", "3")
            .unwrap_err()
            .starts_with("microbatches"));
        p.apply("chunks", "4").unwrap();
        assert_pairs_restore(&p);
    }

    #[test]
    fn the_timeline_fits_the_drawing_and_labels_wide_boxes() {
        let owner = Owner::new();
        let html = owner.with(|| view! { <Pipeline args=pairs(&[]) /> }.to_html());
        assert_eq!(html.matches("<rect").count(), 2 * 4 * 8, "{html}");
        assert!(html.contains("stage 3"), "{html}");
        // The largest schedule is compressed into the drawing width.
        let big = PipelineChoice {
            stages: MAX_STAGES,
            microbatches: MAX_MICROBATCHES,
            ..PipelineChoice::default()
        };
        let t = big.timeline().unwrap();
        assert!(LABEL_W + t.step.0 * scale(t.step.0) <= MAX_W + 1e-9);
    }
}
