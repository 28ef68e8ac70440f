//! A pipeline schedule as a timeline (`data-widget="pipeline"`, Part 5,
//! "Pipelining", with DeepSeek-V3's DualPipe): stages down the side, time along
//! the bottom, one box per forward or backward pass of a microbatch (or per
//! weight-gradient half, or per DualPipe cell overlapping a forward with a
//! backward), and the bubble fraction, step time and activations in flight,
//! all from [`ridgeline_core::training::pipeline::simulate`].

use super::controls::Notice;
use leptos::prelude::*;
use ridgeline_core::format::{grouped, sci};
use ridgeline_core::training::pipeline::{simulate, PipelineParams, PipelineRun, Schedule};
use ridgeline_core::training::pipeline_bubble;

use super::controls::option;
use super::params::{WidgetParams, WidgetState};
use crate::charts::pipeline::{timeline_svg, MAX_W};
use crate::charts::px;
use crate::charts::size::Frame;
use crate::input::parse_whole;

/// Most stages the widget draws (each is a row of the timeline).
pub const MAX_STAGES: u32 = 16;
/// Most microbatches the widget draws.
pub const MAX_MICROBATCHES: u32 = 64;
/// Most chunks per device.
pub const MAX_CHUNKS: u32 = 4;
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
        Schedule::Bidirectional => "bidirectional (two 1F1B streams)",
        Schedule::ZeroBubble => "zero-bubble (B and W split)",
        Schedule::DualPipe => "DualPipe (both ends, B/W split, F&B overlapped)",
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
    pub fn timeline(&self) -> Result<PipelineRun, String> {
        simulate(&self.core())
    }
}

impl WidgetParams for PipelineChoice {
    const ORDER: &'static [&'static [&'static str]] = &[&["schedule"]];

    /// Sets one parameter from text, or explains why not (nothing changes then).
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut next = *self;
        next.assign(key, value)?;
        next.check()?;
        *self = next;
        Ok(())
    }

    /// Sets one parameter from text checked on its own (a schedule's needs,
    /// such as DualPipe's even stages, are [`Self::check`]'s).
    fn assign(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut next = *self;
        match key {
            "schedule" => next.schedule = Schedule::parse(value)?,
            "stages" => next.stages = parse_whole::<u32>(value, "stages", 1.0, MAX_STAGES as f64)?,
            "microbatches" => {
                next.microbatches =
                    parse_whole::<u32>(value, "microbatches", 1.0, MAX_MICROBATCHES as f64)?
            }
            "chunks" => next.chunks = parse_whole::<u32>(value, "chunks", 1.0, MAX_CHUNKS as f64)?,
            other => return Err(super::params::unknown_setting(other)),
        }
        *self = next;
        Ok(())
    }

    /// The settings together: a schedule the simulator takes, or the core's
    /// reason (interleaving needs `M` a multiple of `S`; DualPipe an even `S`
    /// and an even `M` of at least `2S`).
    fn check(&self) -> Result<(), String> {
        self.core().validate()
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

    let frame = Frame::width_only(px::size(MAX_W));
    let drawing = move || {
        let box_w = f64::from(frame.get().width);
        let (stages, two_ends) = params.with(|p| {
            (
                p.stages,
                matches!(p.schedule, Schedule::Bidirectional | Schedule::DualPipe),
            )
        });
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
                        two_ends && s.microbatch % 2 == 1
                    })
                })
                .unwrap_or_default()
        })
    };
    let stat = move |f: fn(&PipelineRun, &PipelineChoice) -> String| {
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
            <p class="legend"><span class="key fwd"></span>" forward (1 unit) "<span class="key bwd"></span>" backward (2 units; when split, only its input-gradient half B, 1 unit) "<span class="key wgt"></span>" W: the weight-gradient half (1 unit) "<span class="key fb"></span>" DualPipe's overlapped cell: a forward and a backward of the other direction (3 units, labelled forward|backward). The number is the microbatch; with two ends, the odd ones (paler) enter at the last stage."</p>
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
    fn dualpipe_loads_from_a_link_and_refuses_what_it_cannot_run() {
        // A link's settings valid only together load whole: eight stages need
        // at least sixteen microbatches, more than the default eight.
        let (p, refused) = PipelineChoice::from_pairs(&pairs(&[
            ("schedule", "dualpipe"),
            ("stages", "8"),
            ("microbatches", "20"),
        ]));
        assert!(refused.is_empty(), "{refused:?}");
        assert_eq!(
            (p.schedule, p.stages, p.microbatches),
            (Schedule::DualPipe, 8, 20)
        );
        let t = p.timeline().unwrap();
        let one_f_one_b = PipelineChoice {
            schedule: Schedule::OneFOneB,
            ..p
        };
        assert!(t.bubble < one_f_one_b.timeline().unwrap().bubble);
        // The reader's changes that DualPipe cannot run are refused with the
        // core's reason, and the last valid state stays.
        let mut q = p;
        let e = q.apply("stages", "7").unwrap_err();
        assert!(e.starts_with("stages: DualPipe"), "{e}");
        let e = q.apply("microbatches", "14").unwrap_err();
        assert!(e.contains("at least 16"), "{e}");
        assert!(q.apply("microbatches", "21").is_err());
        assert_eq!(q, p);
        assert_refused_keeps(&q, &[("stages", "9"), ("microbatches", "10")]);
        assert_pairs_restore(&q);
    }

    #[test]
    fn the_dualpipe_timeline_draws_four_kinds_of_cell() {
        let owner = Owner::new();
        let html = owner.with(|| {
            view! { <Pipeline args=pairs(&[("schedule", "dualpipe"), ("stages", "4"), ("microbatches", "8")]) /> }
                .to_html()
        });
        for class in ["slot fwd", "slot bwd", "slot wgt", "slot fb"] {
            assert!(
                html.contains(&format!(r#"class="{class}""#)),
                "{class}: {html}"
            );
        }
        // A box per cell, an overlapped pair labelled with both microbatches.
        let t = PipelineChoice {
            schedule: Schedule::DualPipe,
            ..PipelineChoice::default()
        }
        .timeline()
        .unwrap();
        assert_eq!(html.matches("<rect").count(), t.slots.len());
        let fb = t.slots.iter().find(|s| s.paired.is_some()).unwrap();
        let label = format!(">{}|{}<", fb.microbatch, fb.paired.unwrap());
        assert!(html.contains(&label), "{label}");
        assert!(html.contains(r#"class="key fb""#));
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
        use crate::charts::pipeline::{scale, LABEL_W};
        assert!(LABEL_W + t.step.0 * scale(t.step.0) <= MAX_W + 1e-9);
    }
}
