//! The collective matmul (`data-widget="collective-matmul"`, Part 3,
//! "Overlapping communication with compute", the book's `ag_matmul` animation):
//! `A[I_X, J] · B[J, K]` on a ring of devices, stepped one `ppermute` at a
//! time. Each step shows which blocks of `A` each device holds, the block it
//! multiplies and the block it passes on meanwhile, with the step's compute
//! and transfer times; the totals compare the overlapped ring with gathering
//! first and multiplying afterwards. Everything comes from
//! [`ridgeline_core::collective_matmul`].

use leptos::prelude::*;
use ridgeline_core::collective_matmul::{
    collective_matmul, ring_schedule, CollectiveMatmul, CollectiveMatmulParams, DeviceStep,
};
use ridgeline_core::collectives::Network;
use ridgeline_core::format::seconds;
use ridgeline_core::hardware::{chip, Chip, CHIPS};
use ridgeline_core::roofline::Verdict;

use super::common::{WidgetParams, WidgetState};
use super::player::Player;
use crate::input::{parse_count, parse_flag, short};

/// Most devices the widget steps through (the table stays readable).
pub const MAX_DEVICES: u32 = 32;

/// The reader's choices.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CollectiveMatmulWidgetParams {
    /// The chip whose ICI and peak are used.
    pub chip: &'static Chip,
    /// Devices in the ring.
    pub n: u32,
    /// Rows of `A`, contracting dimension, columns of `B` per device.
    pub ijk: [u64; 3],
    /// Blocks travel both ways round the ring.
    pub bidirectional: bool,
}

impl Default for CollectiveMatmulWidgetParams {
    fn default() -> Self {
        CollectiveMatmulWidgetParams {
            chip: chip("v5e").unwrap_or(&CHIPS[0]),
            n: 8,
            ijk: [8192, 8192, 4096],
            bidirectional: true,
        }
    }
}

impl CollectiveMatmulWidgetParams {
    /// The model's parameters.
    pub fn model(&self) -> CollectiveMatmulParams {
        let [i, j, k] = self.ijk;
        let mut p = CollectiveMatmulParams::new(self.chip, self.n, i, j, k);
        if !self.bidirectional {
            p.network = p.network.one_way_only();
        }
        p
    }

    /// Both ways of doing the matmul, timed.
    pub fn run(&self) -> Result<CollectiveMatmul, String> {
        collective_matmul(&self.model())
    }

    /// Who holds, multiplies and sends what at each step.
    pub fn schedule(&self) -> Vec<Vec<DeviceStep>> {
        ring_schedule(self.n, self.bidirectional)
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
    const NAME: &'static str = "collective-matmul";
    const ORDER: &'static [&'static [&'static str]] = &[&["chip"], &["n"]];

    /// Sets one parameter from text, or explains why not.
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut next = *self;
        let dim = |what: &str| parse_count(value, what, 1.0, 1e7).map(|v| v.round() as u64);
        match key {
            "chip" => {
                let c = crate::library::resolve_chip(value)
                    .ok_or_else(|| format!("unknown chip “{}”", short(value)))?;
                if Network::ici(c).is_err() {
                    return Err(format!("{} has no ICI in the book", c.name));
                }
                next.chip = c;
            }
            "n" => {
                next.n = parse_count(value, "the number of devices", 2.0, MAX_DEVICES as f64)?
                    .round() as u32
            }
            "i" => next.ijk[0] = dim("I")?,
            "j" => next.ijk[1] = dim("J")?,
            "k" => next.ijk[2] = dim("K")?,
            "bidi" => next.bidirectional = parse_flag(value, "both directions")?,
            other => return Err(format!("unknown setting “{}”", short(other))),
        }
        next.run()?;
        *self = next;
        Ok(())
    }

    /// The parameters as `key=value` pairs.
    fn to_pairs(&self) -> Vec<(String, String)> {
        let [i, j, k] = self.ijk;
        vec![
            ("chip".into(), self.chip.id.into()),
            ("n".into(), self.n.to_string()),
            ("i".into(), i.to_string()),
            ("j".into(), j.to_string()),
            ("k".into(), k.to_string()),
            (
                "bidi".into(),
                if self.bidirectional { "1" } else { "0" }.into(),
            ),
        ]
    }
}

/// Blocks written for a reader: `A0, A7`.
fn blocks(list: &[u32]) -> String {
    list.iter()
        .map(|b| format!("A{b}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The sends of one step written for a reader: `A0 → 1`.
fn sends(list: &[(u32, u32)]) -> String {
    if list.is_empty() {
        return "—".into();
    }
    list.iter()
        .map(|(b, to)| format!("A{b} → device {to}"))
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
        if state.set(key, &value) {
            player.reset();
        }
    };
    let step = player.step;
    let at = move |f: &dyn Fn(&CollectiveMatmul) -> String| {
        result.with(|r| r.as_ref().map(f).unwrap_or_default())
    };
    let this_step = move |f: &dyn Fn(&ridgeline_core::collective_matmul::RingStep) -> String| {
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
                                    <td data-held="">{blocks(&ds.held)}</td>
                                    <td data-multiplies="">{blocks(&ds.multiplies)}</td>
                                    <td data-sends="">{sends(&ds.sends)}</td>
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
        result.with(|r| {
            let Some(r) = r.as_ref() else {
                return ().into_any();
            };
            let end = r.blocking.0.max(r.overlapped.0).max(f64::MIN_POSITIVE);
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
            let blocking = view! {
                {span(0.0, r.gather.0, "comms", true, "AllGather of A".into())}
                {span(r.gather.0, r.compute.0, "compute", true, "the whole matmul".into())}
            };
            view! {
                <div class="lane"><span class="lane-label">"ring: multiply"</span><div class="track">{compute}</div></div>
                <div class="lane"><span class="lane-label">"ring: ppermute"</span><div class="track">{comms}</div></div>
                <div class="lane"><span class="lane-label">"gather, then multiply"</span><div class="track">{blocking}</div></div>
            }
            .into_any()
        })
    };
    let chip_options = super::common::chip_options(
        |c| Network::ici(c).is_ok(),
        move || params.with(|p| p.chip.id),
    );
    let field = move |key: &'static str, label: &'static str, aria: &'static str, idx: usize| {
        let get = move || params.with(|p| p.ijk[idx].to_string());
        view! {
            <label>{label}
                <input type="text" inputmode="numeric" size="7" aria-label=aria
                    value=get prop:value=get
                    on:input=move |ev| set(key, event_target_value(&ev)) />
            </label>
        }
    };
    let n_text = move || params.with(|p| p.n.to_string());
    let controls = view! {
            <div class="controls">
                <label>"Chip "
                    <select prop:value=move || params.with(|p| p.chip.id) on:change=move |ev| set("chip", event_target_value(&ev))>{chip_options}</select>
                </label>
                {field("i", "I ", "rows of A, I", 0)}
                {field("j", "J ", "contracting dimension J", 1)}
                {field("k", "K ", "columns of B per device, K", 2)}
                <label>
                    <input type="checkbox" checked=move || params.with(|p| p.bidirectional) prop:checked=move || params.with(|p| p.bidirectional)
                        on:change=move |ev| set("bidi", if event_target_checked(&ev) { "1".into() } else { "0".into() }) />
                    " both directions round the ring"
                </label>
            </div>
            <div class="slider-row">
                <label for="collective-matmul-n">"Devices X"</label>
                <input id="collective-matmul-n" type="range" min="2" max=MAX_DEVICES step="1"
                    value=n_text prop:value=n_text
                    on:input=move |ev| set("n", event_target_value(&ev)) />
                <output data-devices="">{move || format!("X = {}", n_text())}</output>
            </div>
            <p class="muted">{move || params.with(|p| format!(
                "A[I_X, J] · B[J, K] → C[I, K]: each device starts with block A{{d}} of {} rows and multiplies every block by its own B.",
                p.ijk[0] / u64::from(p.n.max(1))
            ))}</p>
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
                <div><dt>"AllGather"</dt><dd data-gather="">{move || at(&|r| seconds(r.gather.0))}</dd></div>
                <div><dt>"gather, then multiply"</dt><dd data-blocking="">{move || at(&|r| seconds(r.blocking.0))}</dd></div>
                <div><dt>"saved"</dt><dd data-saved="">{move || at(&|r| seconds(r.saved.0))}</dd></div>
            </dl>
    }
    .into_any();
    view! {
        <figure class="widget collective-matmul" data-widget="collective-matmul">
            {controls}
            {stepped}
            {totals}
            <p class="notice" role="status" data-notice="" hidden=move || notice.with(|n| n.is_none())>{move || notice.get().unwrap_or_default()}</p>
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::widgets::common::pairs;

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
        assert_eq!(seconds(r.steps[0].comms.0), "374 µs");
        assert_eq!(seconds(r.steps[1].compute.0), "698 µs");
        // Bidirectional on 8 devices: steps 0..=4, the last without a transfer.
        let sched = p.schedule();
        assert_eq!(sched.len(), 5);
        assert_eq!(blocks(&sched[0][0].multiplies), "A0");
        assert_eq!(sends(&sched[0][0].sends), "A0 → device 1, A0 → device 7");
        assert_eq!(blocks(&sched[1][0].multiplies), "A7, A1");
        assert_eq!(sends(&sched[4][0].sends), "—");
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
    fn bad_input_keeps_the_state_and_pairs_round_trip() {
        let mut p = CollectiveMatmulWidgetParams::default();
        assert!(p.apply("chip", "h100").is_err());
        assert!(p.apply("n", "1").is_err());
        assert!(p.apply("n", "33").is_err());
        assert!(p.apply("i", "8191").unwrap_err().contains("divide"));
        assert!(p.apply("j", "0").is_err());
        assert!(p.apply("bidi", "maybe").is_err());
        assert!(p.apply("colour", "red").is_err());
        assert_eq!(p, CollectiveMatmulWidgetParams::default());
        p.apply("chip", "v4p").unwrap();
        p.apply("n", "16").unwrap();
        p.apply("bidi", "0").unwrap();
        let (q, refused) = CollectiveMatmulWidgetParams::from_pairs(&p.to_pairs());
        assert!(refused.is_empty(), "{refused:?}");
        assert_eq!(p, q);
    }
}
