//! The collective matmul (`data-widget="collective-matmul"`, Part 3,
//! "Overlapping communication with compute", the book's `ag_matmul` animation):
//! `A[I_X, J] · B[J, K]` on a ring of devices, stepped one `ppermute` at a
//! time. Each step shows which blocks of `A` each device holds, the block it
//! multiplies and the block it passes on meanwhile, with the step's compute
//! and transfer times; the totals compare the overlapped ring with gathering
//! first and multiplying afterwards. The second case, Part 3's case 3
//! (`A[I, J_X] · B[J_X, K]`), passes running partial sums of `C` round the ring
//! instead: a ReduceScatter overlapped with the matmul. Everything comes from
//! [`ridgeline_core::comms::collective_matmul`]. A second chip (`vs`) runs the same
//! matmul on its own ICI and peak: its lanes on the same time scale, its
//! verdict and the difference spelled out.

use super::compare::{
    chip_rows, compare_picker, compare_table, diff_rows, parse_vs_chip, Comparison, Diff, VS,
};
use super::controls::NumberField;
use super::controls::Slider;
use super::controls::{number_field, option, Notice};
use leptos::prelude::*;
use ridgeline_core::comms::collective_matmul::{
    collective_matmul, reduce_scatter_schedule, ring_schedule, CollectiveMatmul,
    CollectiveMatmulParams, DeviceStep, MatmulCase,
};
use ridgeline_core::comms::collectives::Network;
use ridgeline_core::format::seconds;
use ridgeline_core::hardware::{chip, Chip, CHIPS};
use ridgeline_core::roofline::Verdict;

use super::params::{WidgetParams, WidgetState};
use super::player::Player;
use crate::input::{parse_flag, parse_whole, short};

/// Most devices the widget steps through (the table stays readable).
pub const MAX_DEVICES: u32 = 32;

/// The reader's choices.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CollectiveMatmulWidgetParams {
    /// The chip whose ICI and peak are used.
    pub chip: &'static Chip,
    /// Which operand is sharded (which collective the ring hides).
    pub case: MatmulCase,
    /// Devices in the ring.
    pub n: u32,
    /// Rows of `A`, contracting dimension, columns of `B` (per device when `A`
    /// is gathered, in all when `C` is reduce-scattered).
    pub ijk: [u64; 3],
    /// Blocks travel both ways round the ring.
    pub bidirectional: bool,
    /// A second chip running the same matmul, if any.
    pub vs: Option<&'static Chip>,
}

impl Default for CollectiveMatmulWidgetParams {
    fn default() -> Self {
        CollectiveMatmulWidgetParams {
            chip: chip("v5e").unwrap_or(&CHIPS[0]),
            case: MatmulCase::AllGather,
            n: 8,
            ijk: [8192, 8192, 4096],
            bidirectional: true,
            vs: None,
        }
    }
}

impl CollectiveMatmulWidgetParams {
    /// The model's parameters.
    pub fn model(&self) -> CollectiveMatmulParams {
        let [i, j, k] = self.ijk;
        let mut p = CollectiveMatmulParams::new(self.chip, self.n, i, j, k);
        p.case = self.case;
        if !self.bidirectional {
            p.network = p.network.one_way_only();
        }
        p
    }

    /// Both ways of doing the matmul, timed.
    pub fn run(&self) -> Result<CollectiveMatmul, String> {
        collective_matmul(&self.model())
    }

    /// The same matmul on the compared chip; `None` when nothing is compared.
    pub fn vs_run(&self) -> Option<Result<CollectiveMatmul, String>> {
        let chip = self.vs?;
        Some(
            CollectiveMatmulWidgetParams {
                chip,
                vs: None,
                ..*self
            }
            .run(),
        )
    }

    /// The matmul beside the same matmul on the compared chip: core's chip
    /// numbers, then each time and the verdict.
    pub fn comparison(&self) -> Option<Comparison> {
        let vs = self.vs?;
        let (a, b) = (self.run().ok()?, self.vs_run()?.ok()?);
        let mut rows = chip_rows(self.chip, vs, ridgeline_core::dtype::Dtype::Bf16);
        rows.extend(diff_rows(
            &a,
            &b,
            seconds,
            &[
                ("compute", "compute", |r| r.compute.0),
                ("ring-comms", "ring ppermutes", |r| r.ring_comms.0),
                ("overlapped", "overlapped", |r| r.overlapped.0),
                ("blocking", "blocking collective, then matmul", |r| {
                    r.blocking.0
                }),
                ("saved", "saved", |r| r.saved.0),
            ],
        ));
        rows.push(Diff::words(
            "verdict",
            "the ring is",
            verdict(&a).text(),
            verdict(&b).text(),
        ));
        Some(Comparison {
            a: self.chip.name.into(),
            b: vs.name.into(),
            rows,
        })
    }

    /// Who holds, multiplies and sends what at each step.
    pub fn schedule(&self) -> Vec<Vec<DeviceStep>> {
        match self.case {
            MatmulCase::AllGather => ring_schedule(self.n, self.bidirectional),
            MatmulCase::ReduceScatter => reduce_scatter_schedule(self.n, self.bidirectional),
        }
    }

    /// What the widget calls the blocking collective.
    pub fn collective(&self) -> &'static str {
        match self.case {
            MatmulCase::AllGather => "AllGather",
            MatmulCase::ReduceScatter => "ReduceScatter",
        }
    }
}

/// Refuses a chip without ICI in the book.
fn has_ici(c: &'static Chip) -> Result<(), String> {
    match Network::ici(c) {
        Ok(_) => Ok(()),
        Err(_) => Err(format!("{} has no ICI in the book", c.name)),
    }
}

/// Whether the overlapped ring waits on its transfers or on its arithmetic.
pub fn verdict(r: &CollectiveMatmul) -> Verdict {
    if r.ring_comms > r.compute {
        Verdict::CommunicationBound
    } else {
        Verdict::ComputeBound
    }
}

impl WidgetParams for CollectiveMatmulWidgetParams {
    const ORDER: &'static [&'static [&'static str]] = &[&["chip"], &["case"], &["n"]];

    /// Sets one parameter from text, or explains why not.
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut next = *self;
        let dim = |what: &str| parse_whole::<u64>(value, what, 1.0, 1e7);
        match key {
            "chip" => {
                let c = super::controls::chip(value)?;
                has_ici(c)?;
                next.chip = c;
            }
            VS => next.vs = parse_vs_chip(value, has_ici)?,
            "n" => {
                next.n =
                    parse_whole::<u32>(value, "the number of devices", 2.0, MAX_DEVICES as f64)?
            }
            "case" => {
                next.case = MatmulCase::parse(value).ok_or_else(|| {
                    format!(
                        "unknown case “{}” (allgather or reducescatter)",
                        short(value)
                    )
                })?
            }
            "i" => next.ijk[0] = dim("I")?,
            "j" => next.ijk[1] = dim("J")?,
            "k" => next.ijk[2] = dim("K")?,
            "bidi" => next.bidirectional = parse_flag(value, "both directions")?,
            other => return Err(super::params::unknown_setting(other)),
        }
        next.run()?;
        if let Some(Err(e)) = next.vs_run() {
            return Err(format!("compared chip: {e}"));
        }
        *self = next;
        Ok(())
    }

    /// The parameters as `key=value` pairs.
    fn to_pairs(&self) -> Vec<(String, String)> {
        let [i, j, k] = self.ijk;
        vec![
            ("chip".into(), self.chip.id.into()),
            ("case".into(), self.case.id().into()),
            ("n".into(), self.n.to_string()),
            ("i".into(), i.to_string()),
            ("j".into(), j.to_string()),
            ("k".into(), k.to_string()),
            (
                "bidi".into(),
                if self.bidirectional { "1" } else { "0" }.into(),
            ),
        ]
        .into_iter()
        .chain(self.vs.map(|c| (VS.into(), c.id.into())))
        .collect()
    }
}

/// How a case writes what a device holds, multiplies and sends.
fn labels(case: MatmulCase, bidirectional: bool) -> (&'static str, &'static str, &'static str) {
    match (case, bidirectional) {
        (MatmulCase::AllGather, _) => ("A", "A", "A"),
        // A device holds its shard of both operands, computes its part of a
        // chunk of C (half of one each way round a bidirectional ring) and
        // passes on the running sum (Σ).
        (MatmulCase::ReduceScatter, false) => ("A,B", "C", "ΣC"),
        (MatmulCase::ReduceScatter, true) => ("A,B", "½C", "Σ½C"),
    }
}

/// Blocks written for a reader: `A0, A7` (or `C3` partial sums).
fn blocks(prefix: &str, list: &[u32]) -> String {
    list.iter()
        .map(|b| {
            if prefix == "A,B" {
                format!("A{b}, B{b}")
            } else {
                format!("{prefix}{b}")
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The sends of one step written for a reader: `A0 → device 1`.
fn sends(prefix: &str, list: &[(u32, u32)]) -> String {
    if list.is_empty() {
        return "—".into();
    }
    list.iter()
        .map(|(b, to)| format!("{prefix}{b} → device {to}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The widget.
#[component]
pub fn CollectiveMatmulWidget(
    /// The chapter's `key=value` arguments (URL parameters override them).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let state = WidgetState::<CollectiveMatmulWidgetParams>::new(&args);
    let WidgetState { params, notice } = state;
    let result = Memo::new(move |_| {
        params
            .with(|p| p.run())
            .or_else(|_| CollectiveMatmulWidgetParams::default().run())
            .ok()
    });
    let schedule = Memo::new(move |_| params.with(|p| p.schedule()));
    let last = Signal::derive(move || schedule.with(|s| s.len().saturating_sub(1)));
    let player = Player::new(last, 900);
    let set = move |key: &'static str, value: String| {
        if state.set_or_refresh(key, &value, key == VS) {
            player.reset();
        }
    };
    let compared = Memo::new(move |_| params.with(|p| p.vs_run().and_then(Result::ok)));
    let vs_name = move || params.with(|p| p.vs.map_or("", |c| c.name));
    let step = player.step;
    let at = move |f: &dyn Fn(&CollectiveMatmul) -> String| {
        result.with(|r| r.as_ref().map(f).unwrap_or_default())
    };
    let this_step =
        move |f: &dyn Fn(&ridgeline_core::comms::collective_matmul::RingStep) -> String| {
            let s = step.get();
            result.with(|r| {
                r.as_ref()
                    .and_then(|r| r.steps.get(s))
                    .map(f)
                    .unwrap_or_default()
            })
        };
    let rows = move || {
        let s = step.get();
        let (held, mult, sent) = params.with(|p| labels(p.case, p.bidirectional));
        schedule.with(|sched| {
            sched
                .get(s)
                .map(|row| {
                    row.iter()
                        .enumerate()
                        .map(|(d, ds)| {
                            view! {
                                <tr data-device=d>
                                    <th scope="row">{format!("device {d}")}</th>
                                    <td data-held="">{blocks(held, &ds.held)}</td>
                                    <td data-multiplies="">{blocks(mult, &ds.multiplies)}</td>
                                    <td data-sends="">{sends(sent, &ds.sends)}</td>
                                </tr>
                            }
                        })
                        .collect_view()
                })
                .into_any()
        })
    };
    // The timeline: each step's compute and transfer on two lanes, and the
    // blocking gather-then-multiply below, all on one time scale.
    let lanes = move || {
        let s = step.get();
        let case = params.with(|p| p.case);
        result.with(|r| {
            let Some(r) = r.as_ref() else {
                return ().into_any();
            };
            let vs_end = compared.with(|c| c.as_ref().map_or(0.0, |c| c.blocking.0.max(c.overlapped.0)));
            let end = r.blocking.0.max(r.overlapped.0).max(vs_end).max(f64::MIN_POSITIVE);
            let pct = |t: f64| 100.0 * t / end;
            let span = |start: f64, len: f64, class: &'static str, done: bool, title: String| {
                let style = format!(
                    "left: {:.2}%; width: {:.2}%",
                    pct(start),
                    pct(len).max(0.3)
                );
                view! { <span class=format!("chunk {class}") class:done=done style=style title=title></span> }
            };
            let compute = r
                .steps
                .iter()
                .map(|st| {
                    span(
                        st.start.0,
                        st.compute.0,
                        "compute",
                        st.index as usize <= s,
                        format!("step {}: multiply {} block(s)", st.index, st.blocks),
                    )
                })
                .collect_view();
            let comms = r
                .steps
                .iter()
                .filter(|st| st.comms.0 > 0.0)
                .map(|st| {
                    span(
                        st.start.0,
                        st.comms.0,
                        "comms",
                        st.index as usize <= s,
                        format!("step {}: ppermute", st.index),
                    )
                })
                .collect_view();
            let (blocking, label) = match case {
                MatmulCase::AllGather => (
                    view! {
                        {span(0.0, r.gather.0, "comms", true, "AllGather of A".into())}
                        {span(r.gather.0, r.compute.0, "compute", true, "the whole matmul".into())}
                    },
                    "gather, then multiply",
                ),
                MatmulCase::ReduceScatter => (
                    view! {
                        {span(0.0, r.compute.0, "compute", true, "the whole local matmul".into())}
                        {span(r.compute.0, r.gather.0, "comms", true, "ReduceScatter of C".into())}
                    },
                    "multiply, then reduce-scatter",
                ),
            };
            // The compared chip on the same time scale: its ring's multiplies
            // and its blocking collective followed by (or after) the matmul.
            let vs_lanes = compared.with(|c| {
                c.as_ref().map(|c| {
                    let ring = c
                        .steps
                        .iter()
                        .map(|st| span(st.start.0, st.compute.0, "compute", true, format!("step {}", st.index)))
                        .collect_view();
                    let (first, second) = match case {
                        MatmulCase::AllGather => (span(0.0, c.gather.0, "comms", true, "AllGather of A".into()), span(c.gather.0, c.compute.0, "compute", true, "the whole matmul".into())),
                        MatmulCase::ReduceScatter => (span(0.0, c.compute.0, "compute", true, "the whole local matmul".into()), span(c.compute.0, c.gather.0, "comms", true, "ReduceScatter of C".into())),
                    };
                    let name = vs_name();
                    view! {
                        <div class="lane" data-vs-lane="ring"><span class="lane-label">{format!("{name}: ring multiply")}</span><div class="track">{ring}</div></div>
                        <div class="lane" data-vs-lane="blocking"><span class="lane-label">{format!("{name}: {label}")}</span><div class="track">{first}{second}</div></div>
                    }
                })
            });
            view! {
                <div class="lane"><span class="lane-label">"ring: multiply"</span><div class="track">{compute}</div></div>
                <div class="lane"><span class="lane-label">"ring: ppermute"</span><div class="track">{comms}</div></div>
                <div class="lane"><span class="lane-label">{label}</span><div class="track">{blocking}</div></div>
                {vs_lanes}
            }
            .into_any()
        })
    };
    let vs_id = move || params.with(|p| p.vs.map_or("", |c| c.id));
    let vs_options = super::controls::chip_options(|c| Network::ici(c).is_ok(), vs_id);
    let field = move |key: &'static str, label: &'static str, aria: &'static str, idx: usize| {
        let get = move || params.with(|p| p.ijk[idx].to_string());
        number_field(label, aria, 7, get, key, set)
    };
    let n_text = move || params.with(|p| p.n.to_string());
    let case_options = [
        (MatmulCase::AllGather, "A[I_X, J]: gather A (AllGather)"),
        (
            MatmulCase::ReduceScatter,
            "A[I, J_X]·B[J_X, K]: reduce-scatter C (case 3)",
        ),
    ]
    .into_iter()
    .map(|(c, label)| option(c.id(), label, move || params.with(|p| p.case.id())))
    .collect_view();
    let k_label = move || {
        params.with(|p| match p.case {
            MatmulCase::AllGather => "columns of B per device, K",
            MatmulCase::ReduceScatter => "columns of B and C, K",
        })
    };
    let controls = view! {
            <div class="controls">
                {super::controls::chip_picker("Chip ", |c| Network::ici(c).is_ok(), move || params.with(|p| p.chip.id).to_string(), set)}
                <label>"Sharding "
                    <select prop:value=move || params.with(|p| p.case.id()) on:change=move |ev| set("case", event_target_value(&ev))>{case_options}</select>
                </label>
                {field("i", "I ", "rows of A, I", 0)}
                {field("j", "J ", "contracting dimension J", 1)}
                {NumberField::new("k", "", 7).aria_with(move || k_label().to_string()).label("K ").view(move || params.with(|p| p.ijk[2].to_string()), set)}
                <label>
                    <input type="checkbox" checked=move || params.with(|p| p.bidirectional) prop:checked=move || params.with(|p| p.bidirectional)
                        on:change=move |ev| set("bidi", if event_target_checked(&ev) { "1".into() } else { "0".into() }) />
                    " both directions round the ring"
                </label>
                {compare_picker(vs_options, vs_id, set)}
            </div>
            {Slider::new("2", move || MAX_DEVICES.to_string(), "1").id("collective-matmul-n").row("Devices X", move || n_text().to_string(), move |v: String| set("n", v), view! { <output data-devices="">{move || format!("X = {}", n_text())}</output> })}
            <p class="muted" data-case-note="">{move || params.with(|p| {
                let n = u64::from(p.n.max(1));
                match p.case {
                    MatmulCase::AllGather => format!(
                        "{}: each device starts with block A{{d}} of {} rows and multiplies every block by its own B.",
                        p.case.notation(),
                        p.ijk[0] / n
                    ),
                    MatmulCase::ReduceScatter => format!(
                        "{}: each device holds A{{d}} and B{{d}}, {} rows of the contraction each. At every step it computes its part of one chunk of {} columns of C{}, adds it to the running sum ΣC its neighbour sent, and passes the sum on; after the last step it holds the full sum of its own chunk C{{d}}.",
                        p.case.notation(),
                        p.ijk[1] / n,
                        p.ijk[2] / n,
                        if p.bidirectional { " (half of it each way round the ring)" } else { "" }
                    ),
                }
            })}</p>
    }
    .into_any();
    let stepped = view! {
            {player.controls("ring steps", |s, t| format!("step {s} / {t}"))}
            <div class="table-scroll" tabindex="0" role="region" aria-label="what each device does at this step">
                <table class="cm-devices" data-step=move || step.get()>
                    <thead><tr><th scope="col">"device"</th><th scope="col">"holds"</th><th scope="col">"multiplies"</th><th scope="col">"ppermute meanwhile"</th></tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
            <dl class="times">
                <div><dt>"this step: multiply"</dt><dd data-step-compute="">{move || this_step(&|st| seconds(st.compute.0))}</dd></div>
                <div><dt>"this step: ppermute"</dt><dd data-step-comms="">{move || this_step(&|st| seconds(st.comms.0))}</dd></div>
                <div><dt>"this step ends at"</dt><dd data-step-end="">{move || this_step(&|st| seconds(st.end.0))}</dd></div>
            </dl>
    }
    .into_any();
    let totals = view! {
            <div class="stream-lanes cm-lanes" role="img"
                aria-label="timeline: the ring's multiplies and ppermutes against a gather followed by the matmul">
                {lanes}
            </div>
            <dl class="times">
                <div><dt>"the ring is"</dt><dd data-verdict="">{move || at(&|r| verdict(r).text().into())}</dd></div>
                <div><dt>"compute"</dt><dd data-compute="">{move || at(&|r| seconds(r.compute.0))}</dd></div>
                <div><dt>"ring ppermutes"</dt><dd data-ring-comms="">{move || at(&|r| seconds(r.ring_comms.0))}</dd></div>
                <div><dt>"overlapped"</dt><dd data-overlapped="">{move || at(&|r| seconds(r.overlapped.0))}</dd></div>
                <div><dt>{move || params.with(|p| p.collective())}</dt><dd data-gather="">{move || at(&|r| seconds(r.gather.0))}</dd></div>
                <div><dt>{move || params.with(|p| match p.case {
                    MatmulCase::AllGather => "gather, then multiply",
                    MatmulCase::ReduceScatter => "multiply, then reduce-scatter",
                })}</dt><dd data-blocking="">{move || at(&|r| seconds(r.blocking.0))}</dd></div>
                <div><dt>"saved"</dt><dd data-saved="">{move || at(&|r| seconds(r.saved.0))}</dd></div>
                {move || compared.with(|c| c.as_ref().map(|c| {
                    let v = verdict(c).text();
                    view! { <div><dt>{format!("on {}, the ring is", vs_name())}</dt><dd data-vs-verdict=v>{v}</dd></div> }
                }))}
            </dl>
            {compare_table(move || params.with(|p| p.comparison()))}
    }
    .into_any();
    view! {
        <figure class="widget collective-matmul" data-widget="collective-matmul">
            {controls}
            {stepped}
            {totals}
            <Notice notice=notice />
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::widgets::params::pairs;
    use crate::widgets::params::testing::{assert_pairs_restore, assert_refused_keeps};

    #[test]
    fn the_chapter_example_overlaps_and_saves_what_core_says() {
        let p = CollectiveMatmulWidgetParams::default();
        let r = p.run().unwrap();
        // v5e: 2·1024·8192·4096 FLOPs per block at 1.97e14 FLOP/s, eight blocks.
        let block = 2.0 * 1024.0 * 8192.0 * 4096.0 / 1.97e14;
        assert!((r.compute.0 - 8.0 * block).abs() < 1e-9 * r.compute.0);
        assert!(r.overlapped.0 >= r.compute.0.max(r.ring_comms.0));
        assert!(r.overlapped < r.blocking);
        assert_eq!(seconds(r.saved.0), seconds(r.blocking.0 - r.overlapped.0));
        // What the browser test reads: one block, then two blocks per step.
        assert_eq!(seconds(r.steps[0].compute.0), "349 µs");
        // One hop of a 16 MiB block: its bytes over 4.5e10 B/s, above the 1 µs latency.
        assert_eq!(seconds(r.steps[0].comms.0), "373 µs");
        assert_eq!(seconds(r.steps[1].compute.0), "698 µs");
        // Bidirectional on 8 devices: steps 0..=4, the last without a transfer.
        let sched = p.schedule();
        assert_eq!(sched.len(), 5);
        assert_eq!(blocks("A", &sched[0][0].multiplies), "A0");
        assert_eq!(
            sends("A", &sched[0][0].sends),
            "A0 → device 1, A0 → device 7"
        );
        assert_eq!(blocks("A", &sched[1][0].multiplies), "A7, A1");
        assert_eq!(sends("A", &sched[4][0].sends), "—");
    }

    #[test]
    fn one_direction_takes_more_steps_and_small_k_is_communication_bound() {
        let (mut p, refused) =
            CollectiveMatmulWidgetParams::from_pairs(&pairs(&[("bidi", "0"), ("n", "4")]));
        assert!(refused.is_empty(), "{refused:?}");
        assert_eq!(p.schedule().len(), 4);
        assert_eq!(verdict(&p.run().unwrap()), Verdict::ComputeBound);
        p.apply("k", "64").unwrap();
        let r = p.run().unwrap();
        assert_eq!(verdict(&r), Verdict::CommunicationBound);
        assert!(r.overlapped.0 >= r.ring_comms.0);
    }

    #[test]
    fn case_3_reduce_scatters_partial_sums_round_the_ring() {
        let (p, refused) = CollectiveMatmulWidgetParams::from_pairs(&pairs(&[
            ("case", "reducescatter"),
            ("k", "8192"),
        ]));
        assert!(refused.is_empty(), "{refused:?}");
        let r = p.run().unwrap();
        // v5e: each step multiplies A[8192, 1024] by a 1024-column chunk of B.
        let block = 2.0 * 8192.0 * 1024.0 * 1024.0 / 1.97e14;
        assert!((r.steps[0].compute.0 - block).abs() < 1e-9 * block);
        assert_eq!(seconds(r.steps[0].compute.0), "87.2 µs");
        // Part 3: a ReduceScatter of C[I, K] (128 MiB in bf16) takes V / W_ici.
        assert_eq!(seconds(r.gather.0), "1.49 ms");
        // Half a 16 MiB chunk each way: 8 MiB over 4.5e10 B/s (more than the 1 µs hop).
        assert_eq!(seconds(r.steps[1].comms.0), "186 µs");
        assert_eq!(r.steps[0].comms.0, 0.0);
        assert_eq!(verdict(&r), Verdict::CommunicationBound);
        assert_eq!(p.collective(), "ReduceScatter");
        let sched = p.schedule();
        assert_eq!(sched.len(), 8);
        let (held, mult, sent) = labels(p.case, p.bidirectional);
        assert_eq!(blocks(held, &sched[0][0].held), "A0, B0");
        assert_eq!(blocks(mult, &sched[0][0].multiplies), "½C7, ½C1");
        assert_eq!(sends(sent, &sched[0][0].sends), "—");
        assert_eq!(
            sends(sent, &sched[1][0].sends),
            "Σ½C7 → device 1, Σ½C1 → device 7"
        );
        assert_eq!(blocks(mult, &sched[7][3].multiplies), "½C3, ½C3");
        let (_, mult, sent) = labels(p.case, false);
        let one_way = reduce_scatter_schedule(8, false);
        assert_eq!(blocks(mult, &one_way[2][5].multiplies), "C2");
        assert_eq!(sends(sent, &one_way[2][5].sends), "ΣC3 → device 6");
        // The chapter's widget (K = 4096) switched to this case, as the browser
        // test reads it: C[8192, 4096] in bf16 is 67 MB, 746 µs at 9e10 B/s.
        let (c, refused) = CollectiveMatmulWidgetParams::from_pairs(&pairs(&[
            ("k", "4096"),
            ("case", "reducescatter"),
        ]));
        assert!(refused.is_empty(), "{refused:?}");
        let rc = c.run().unwrap();
        assert_eq!(seconds(rc.gather.0), "746 µs");
        assert_eq!(seconds(rc.steps[0].compute.0), "43.6 µs");
        // K must divide over the ring in this case, I need not.
        let mut q = p;
        assert!(q.apply("k", "8190").unwrap_err().contains("K = 8190"));
        q.apply("i", "8191").unwrap();
        assert!(q
            .apply("case", "allgather")
            .unwrap_err()
            .contains("I = 8191"));
        assert_eq!(q.case, MatmulCase::ReduceScatter);
    }

    #[test]
    fn bad_input_keeps_the_state_and_pairs_round_trip() {
        let mut p = CollectiveMatmulWidgetParams::default();
        let messages = assert_refused_keeps(
            &p,
            &[
                ("chip", "h100"),
                ("n", "1"),
                ("n", "33"),
                ("i", "8191"),
                ("j", "0"),
                ("bidi", "maybe"),
                ("colour", "red"),
                ("case", "case3"),
            ],
        );
        assert!(messages[3].contains("divide"), "{}", messages[3]);
        p.apply("case", "reducescatter").unwrap();
        p.apply("chip", "v4p").unwrap();
        p.apply("n", "16").unwrap();
        p.apply("bidi", "0").unwrap();
        assert_pairs_restore(&p);
    }

    #[test]
    fn a_second_chip_runs_the_same_ring() {
        let p: CollectiveMatmulWidgetParams =
            crate::widgets::params::testing::assert_round_trip(&[("vs", "v5p")]);
        let c = p.comparison().unwrap();
        let mut m = CollectiveMatmulParams::new(chip("v5p").unwrap(), 8, 8192, 8192, 4096);
        m.case = MatmulCase::AllGather;
        let r = collective_matmul(&m).unwrap();
        assert_eq!(c.row("overlapped").unwrap().b, seconds(r.overlapped.0));
        assert_eq!(c.row("verdict").unwrap().b, verdict(&r).text());
        let messages = assert_refused_keeps(&p, &[("vs", "h100"), ("vs", "tpu-v99")]);
        assert!(messages[0].contains("no ICI"), "{messages:?}");
        let mut q = p;
        q.apply("vs", "none").unwrap();
        assert_eq!(q.comparison(), None);
        assert!(q.to_pairs().iter().all(|(k, _)| k != "vs"));
    }
}
