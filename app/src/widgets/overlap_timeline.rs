//! The collective matmul as two timelines (`data-widget="overlap-timeline"`,
//! Part 10): `A[B_X, D_Y] · W[D, F_Y]` computed after a blocking AllGather of
//! `A`, or as a loop of `Y` chunk matmuls while `ppermute` passes the next
//! chunk along the ring. Both timelines are drawn on one time axis from
//! `ridgeline_core::comms::overlap_timeline`, with each version's step time and the times the
//! book measured beside them. A second chip (`vs`) may be set beside the
//! first: where each of its versions ends is marked on the same time axis,
//! and a table spells out the differences.

use super::controls::Notice;
use super::controls::NumberField;
use leptos::prelude::*;
use ridgeline_core::comms::overlap_timeline::{
    overlap_timeline_on, OverlapParams, OverlapReport, Work, BOOK_TIMES,
};
use ridgeline_core::dtype::Dtype;
use ridgeline_core::format::{grouped, seconds};
use ridgeline_core::hardware::Chip;

use super::compare::{compare_picker, compare_table, parse_vs, Comparison, Diff, VS};
use super::controls::{ici_chip, option};
use super::params::{WidgetParams, WidgetState};
use crate::charts::overlap_timeline::draw;
use crate::charts::size::{Frame, Shape, Size};
use crate::charts::svg;
use crate::input::{parse_whole, short};

/// Mesh axis sizes offered for `Y`.
pub const Y_CHOICES: [u64; 6] = [1, 2, 4, 8, 16, 32];
/// Formats offered.
pub const DTYPES: [Dtype; 3] = [Dtype::Bf16, Dtype::Int8, Dtype::F32];
/// The chart's drawing size (SVG user units).
const SHAPE: Shape = Shape::new(760, 280, 260);

/// The reader's settings; always valid.
#[derive(Debug, Clone, PartialEq)]
pub struct TimelineParams {
    /// The example's inputs.
    pub p: OverlapParams,
    /// A second chip the same example runs on, if any.
    pub vs: Option<&'static Chip>,
}

impl Default for TimelineParams {
    /// The book's example on a TPU v5e 2 × 4 mesh.
    fn default() -> Self {
        TimelineParams {
            p: OverlapParams::default(),
            vs: None,
        }
    }
}

/// The chip an example's `chip` names: a registry chip or the reader's own
/// (`my:NAME`, or its compact text from a link).
fn chip_named(id: &str) -> Result<&'static Chip, String> {
    super::controls::chip(id)
}

/// Whether the example runs on a chip at its default sizes (ICI, and a rate
/// for its format): the chips the picker offers.
fn runs_on(c: &'static Chip) -> bool {
    overlap_timeline_on(&OverlapParams::default(), c).is_ok()
}

impl TimelineParams {
    /// Both timelines.
    pub fn report(&self) -> Result<OverlapReport, String> {
        overlap_timeline_on(&self.p, chip_named(&self.p.chip)?)
    }

    /// Both timelines on the compared chip, if there is one.
    pub fn vs_report(&self) -> Option<Result<OverlapReport, String>> {
        Some(overlap_timeline_on(&self.p, self.vs?))
    }

    /// This chip beside the compared one: each version's step time and the
    /// chunk matmul and pass that set the loop's pace.
    pub fn comparison(&self) -> Option<Comparison> {
        let (a, b) = (self.report().ok()?, self.vs_report()?.ok()?);
        let (this, other) = (chip_named(&self.p.chip).ok()?, self.vs?);
        let row = |key, what: &str, f: fn(&OverlapReport) -> f64| {
            Diff::number(key, what, f(&a), f(&b), seconds)
        };
        Some(Comparison {
            a: this.name.into(),
            b: other.name.into(),
            rows: vec![
                row("blocking", "AllGather, then matmul", |r| r.blocking.total.0),
                row("overlapped", "loop with ppermute", |r| r.overlapped.total.0),
                row("matmul", "matmul alone", |r| r.matmul_only.0),
                row("chunk-matmul", "one chunk's matmul", |r| r.chunk_matmul.0),
                row("chunk-permute", "passing one chunk", |r| r.chunk_permute.0),
            ],
        })
    }

    /// The chart as inline SVG.
    pub fn chart_svg(&self, size: Size) -> String {
        let vs = self
            .vs_report()
            .and_then(Result::ok)
            .zip(self.vs.map(|c| c.name));
        self.report()
            .ok()
            .map(|r| svg(size.width, size.height, |root| draw(root, &r, vs.as_ref())).0)
            .unwrap_or_default()
    }
}

impl WidgetParams for TimelineParams {
    const ORDER: &'static [&'static [&'static str]] = &[&["chip"], &["x", "y"]];

    /// Sets one parameter from text, or explains why not; a second chip must
    /// run the same example.
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut next = self.clone();
        if key == VS {
            next.vs = parse_vs(value, "TPU with ICI", ici_chip)?;
        } else {
            next.apply_own(key, value)?;
        }
        if let Some(Err(e)) = next.vs_report() {
            return Err(format!("compared chip: {e}"));
        }
        *self = next;
        Ok(())
    }

    /// The parameters as `key=value` pairs.
    fn to_pairs(&self) -> Vec<(String, String)> {
        let p = &self.p;
        vec![
            ("chip".into(), p.chip.clone()),
            ("x".into(), format!("{}", p.x)),
            ("y".into(), format!("{}", p.y)),
            ("b".into(), format!("{}", p.b)),
            ("d".into(), format!("{}", p.d)),
            ("f".into(), format!("{}", p.f)),
            ("dtype".into(), p.dtype.name().into()),
        ]
        .into_iter()
        .chain(self.vs.map(|c| (VS.into(), c.id.into())))
        .collect()
    }
}

impl TimelineParams {
    /// Sets one of the example's own parameters from text, or explains why
    /// not (sizes must divide over the mesh, the chip must have ICI and a rate
    /// for the format).
    fn apply_own(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut next = self.p.clone();
        let count = |what: &str| -> Result<u64, String> {
            parse_whole::<u64>(value, what, 1.0, f64::from(1u32 << 24))
        };
        match key {
            "chip" => next.chip = chip_named(value)?.id.to_string(),
            "x" => next.x = count("X")?,
            "y" => next.y = count("Y")?,
            "b" => next.b = count("B")?,
            "d" => next.d = count("D")?,
            "f" => next.f = count("F")?,
            "dtype" => next.dtype = super::controls::dtype_among(value, &DTYPES, "the arrays")?,
            other => return Err(super::params::unknown_setting(other)),
        }
        overlap_timeline_on(&next, chip_named(&next.chip)?).map_err(|e| {
            if key == "chip" {
                format!("chip “{}”: {e}", short(value))
            } else {
                e
            }
        })?;
        self.p = next;
        Ok(())
    }
}

/// The lanes, top to bottom.
/// The overlap-timeline widget.
#[component]
pub fn OverlapTimeline(
    /// The chapter's `key=value` arguments (URL parameters override them).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let state = WidgetState::<TimelineParams>::new(&args);
    let WidgetState { params, notice } = state;
    let set = move |key: &'static str, value: String| {
        state.set_or_refresh(key, &value, true);
    };
    let report = Memo::new(move |_| params.with(TimelineParams::report).ok());
    let frame = Frame::new(SHAPE);
    let chart = move || params.with(|p| p.chart_svg(frame.get()));
    let shown = move |f: fn(&OverlapReport) -> String| {
        move || report.with(|r| r.as_ref().map(f).unwrap_or_default())
    };
    let y_options = Y_CHOICES
        .iter()
        .map(|&y| {
            option(format!("{y}"), format!("{y}"), move || {
                params.with(|p| format!("{}", p.p.y))
            })
        })
        .collect_view();
    let dtype_options = DTYPES
        .iter()
        .map(|&d| {
            option(d.name(), d.name(), move || {
                params.with(|p| p.p.dtype.name().to_string())
            })
        })
        .collect_view();
    type Size = (
        &'static str,
        &'static str,
        &'static str,
        fn(&OverlapParams) -> u64,
    );
    let size_fields: [Size; 4] = [
        ("x", "X ", "mesh axis X, sharding the batch", |p| p.x),
        ("b", "B ", "batch B", |p| p.b),
        ("d", "D ", "contracting dimension D", |p| p.d),
        ("f", "F ", "output dimension F", |p| p.f),
    ];
    let sizes = size_fields
        .into_iter()
        .map(|(key, label, aria, get)| {
            let text = move || format!("{}", params.with(|p| get(&p.p)));
            view! {
                <label>{label}
                    {NumberField::new(key, aria, 7).view(text, set)}
                </label>
            }
        })
        .collect_view();
    let book = |i: usize| format!("{} µs", grouped(BOOK_TIMES[i].micros));
    let vs_id = move || params.with(|p| p.vs.map_or("", |c| c.id));
    let vs_options = super::controls::chip_options(super::controls::has_ici, vs_id);

    view! {
        <figure class="widget overlap-timeline" data-widget="overlap-timeline">
            <div class="controls">
                {super::controls::chip_picker("Chip ", runs_on, move || params.with(|p| p.p.chip.clone()).to_string(), set)}
                <label>"Y "
                    <select prop:value=move || params.with(|p| format!("{}", p.p.y))
                        on:change=move |ev| set("y", event_target_value(&ev))>{y_options}</select>
                </label>
                <label>"Format "
                    <select prop:value=move || params.with(|p| p.p.dtype.name().to_string())
                        on:change=move |ev| set("dtype", event_target_value(&ev))>{dtype_options}</select>
                </label>
                {sizes}
                {compare_picker(vs_options, vs_id, set)}
            </div>
            <div class="plot" node_ref=frame.node style=frame.style()>
                <div class="layer" inner_html=chart role="img"
                    aria-label=move || format!("two timelines on one axis: the blocking version ends at {}, the overlapped loop at {}", shown(|r| seconds(r.blocking.total.0))(), shown(|r| seconds(r.overlapped.total.0))())></div>
            </div>
            <div class="table-scroll" tabindex="0">
                <table>
                    <thead><tr><th scope="col">"version"</th><th scope="col">"step time (core)"</th><th scope="col">"the book measured"</th></tr></thead>
                    <tbody>
                        <tr><th scope="row">"AllGather, then matmul"</th><td data-blocking="">{shown(|r| seconds(r.blocking.total.0))}</td><td>{book(0)}</td></tr>
                        <tr><th scope="row">"loop with ppermute"</th><td data-overlapped="">{shown(|r| seconds(r.overlapped.total.0))}</td><td>{book(1)}</td></tr>
                        <tr><th scope="row">"matmul alone"</th><td data-matmul="">{shown(|r| seconds(r.matmul_only.0))}</td><td>{book(2)}</td></tr>
                    </tbody>
                </table>
            </div>
            <p class="caption">
                "One chunk's matmul takes " <span data-chunk-matmul="">{shown(|r| seconds(r.chunk_matmul.0))}</span>
                {shown(|r| if r.overlapped.spans.iter().any(|s| s.work == Work::Ppermute) {
                    format!(" and passing a chunk to the neighbour {}; the loop runs at the slower of the two.", seconds(r.chunk_permute.0))
                } else {
                    " and with Y = 1 there is nothing to pass.".to_string()
                })}
                " The book's times are for int32 arrays on a TPU v5e 2 × 4."
                {move || params.with(|p| p.vs.map(|c| format!(" The dashed lines mark where each version ends on {}.", c.name)))}
            </p>
            {compare_table(move || params.with(|p| p.comparison()))}
            <p class="caption" data-one-way="" hidden=move || !report.with(|r| r.as_ref().is_some_and(OverlapReport::loop_loses))>
                "Here the loop ends later than the blocking version, and that is no slip: the book's loop "
                "passes each chunk one way round the ring, so it uses one direction of each link, while the "
                "AllGather sends both ways at once and moves the same chunks in about half the time. Overlap "
                "hides at most the matmuls, so once passing a chunk takes more than twice multiplying it, the "
                "one-way loop loses. The book's Q4 asks for the loop that sends both ways."
            </p>
            <Notice notice=notice />
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::widgets::params::testing::{
        assert_pairs_restore, assert_refused_keeps, assert_round_trip,
    };
    use ridgeline_core::hardware::chip;

    /// Issue #19: the reader's own chip (from the library or a link) runs
    /// the example as core runs it on that chip; a GPU is not offered.
    #[test]
    fn the_readers_chip_runs_the_example() {
        let (_, code) = crate::library::tests::with_own_entries();
        let mine = crate::library::resolve_chip(&code).unwrap();
        let direct = overlap_timeline_on(&OverlapParams::default(), mine).unwrap();
        for id in [code.as_str(), "my:fast v5e"] {
            let mut p = TimelineParams::default();
            p.apply("chip", id).unwrap();
            assert_eq!(p.report().unwrap(), direct, "{id}");
            assert_pairs_restore(&p);
        }
        assert!(runs_on(mine));
        assert!(!runs_on(chip("h100").unwrap()));
    }

    #[test]
    fn a_one_way_loop_at_y_8_loses_and_says_why() {
        let mut p = TimelineParams::default();
        assert!(!p.report().unwrap().loop_loses());
        p.apply("y", "8").unwrap();
        let r = p.report().unwrap();
        assert!(r.loop_loses() && r.loop_comm_bound());
        assert!(r.overlapped.total > r.blocking.total);
    }

    #[test]
    fn book_example_overlaps_and_draws_both_timelines() {
        let p = TimelineParams::default();
        let r = p.report().unwrap();
        assert!(r.overlapped.total < r.blocking.total);
        assert!(r.overlapped.total >= r.matmul_only);
        // Y = 4: four chunk matmuls and three permutes in the loop.
        let n = |w: Work| r.overlapped.spans.iter().filter(|s| s.work == w).count();
        assert_eq!((n(Work::Matmul), n(Work::Ppermute)), (4, 3));
        let svg = p.chart_svg(SHAPE.design());
        assert!(
            svg.contains("overlapped: matmul") && svg.contains("blocking: comms"),
            "{svg}"
        );
        assert_eq!(BOOK_TIMES.map(|b| b.micros), [311.0, 244.0, 224.0]);
    }

    #[test]
    fn one_chip_on_y_has_nothing_to_gather() {
        let mut p = TimelineParams::default();
        p.apply("y", "1").unwrap();
        let r = p.report().unwrap();
        assert_eq!(r.all_gather.0, 0.0);
        assert_eq!(r.blocking.total, r.matmul_only);
    }

    #[test]
    fn a_second_chip_marks_its_ends_on_the_same_axis() {
        use crate::widgets::params::testing::assert_pairs_restore;
        let mut p = TimelineParams::default();
        p.apply("vs", "v5p").unwrap();
        assert_pairs_restore(&p);
        let on_v5p = overlap_timeline_on(&p.p, chip("v5p").unwrap()).unwrap();
        let c = p.comparison().unwrap();
        assert_eq!(
            c.row("blocking").unwrap().b,
            seconds(on_v5p.blocking.total.0)
        );
        assert_eq!(
            c.row("overlapped").unwrap().b,
            seconds(on_v5p.overlapped.total.0)
        );
        assert_eq!(
            c.row("overlapped").unwrap().a,
            seconds(p.report().unwrap().overlapped.total.0)
        );
        for size in [SHAPE.design(), SHAPE.at(267.0)] {
            assert!(p.chart_svg(size).contains("TPU v5p"));
        }
        let messages = assert_refused_keeps(&p, &[("vs", "h100"), ("vs", "v99")]);
        assert!(messages[1].contains("v99"), "{messages:?}");
        p.apply("vs", "none").unwrap();
        assert_eq!(p.comparison(), None);
        assert!(!p.chart_svg(SHAPE.design()).contains("TPU v5p"));
    }

    #[test]
    fn bad_input_keeps_the_state_and_pairs_round_trip() {
        assert_refused_keeps(
            &TimelineParams::default(),
            &[
                ("d", "2047"),
                ("x", "0"),
                ("chip", "v99"),
                ("dtype", "f13"),
                ("b", "x"),
                ("z", "1"),
            ],
        );
        let q: TimelineParams = assert_round_trip(&[
            ("chip", "v4p"),
            ("y", "8"),
            ("d", "4096"),
            ("dtype", "int8"),
        ]);
        assert_eq!(q.p.y, 8);
    }
}
