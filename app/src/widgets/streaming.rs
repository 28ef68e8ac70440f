//! Streaming an operation through a TPU (`data-widget="streaming"`, Part 2,
//! the `pointwise-product` animation): chunks cross HBM → VMEM → vector
//! registers → VPU or MXU, stepped chunk by chunk on a timeline of the three
//! stages, with the stage that sets the pace, the total time and the verdict,
//! all from [`ridgeline_core::hardware::streaming::simulate`]. A second TPU (`vs`)
//! streams the same operation at its registry rates: its three lanes on the
//! same time scale, its verdict and the difference spelled out.

use super::compare::{
    compare_picker, compare_table, diff_rows, parse_vs_chip, Comparison, Diff, VS,
};
use super::controls::NumberField;
use super::controls::{is_tpu, Notice};
use leptos::prelude::*;
use ridgeline_core::format::{grouped, seconds, si};
use ridgeline_core::hardware::streaming::{simulate, Stage, StreamOp, StreamParams, StreamRun};
use ridgeline_core::hardware::{chip, Chip, CHIPS};
use ridgeline_core::units::{Bytes, BytesPerSec, FlopsPerSec};

use super::controls::option;
use super::params::{WidgetParams, WidgetState};
use super::player::Player;
use crate::input::{parse_count, parse_flag, parse_whole, short};

/// Most chunks the timeline draws (the totals cover all of them).
pub const SHOWN_CHUNKS: usize = 12;

/// The reader's choices.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StreamingParams {
    /// The chip whose rates are the defaults.
    pub chip: &'static Chip,
    /// A matmul (`true`) or an elementwise product.
    pub matmul: bool,
    /// Elements of each array of the elementwise product.
    pub elements: u64,
    /// The matmul's batch, contracting and output sizes.
    pub bdf: [u64; 3],
    /// Bytes per chunk.
    pub chunk: f64,
    /// The HBM bandwidth, if the reader overrode the chip's.
    pub hbm: Option<f64>,
    /// The compute rate, if the reader overrode the chip's.
    pub compute: Option<f64>,
    /// Matmul only: the weights already sit in VMEM.
    pub resident: bool,
    /// A second TPU streaming the same operation at its registry rates, if any.
    pub vs: Option<&'static Chip>,
}

impl Default for StreamingParams {
    fn default() -> Self {
        StreamingParams {
            chip: chip("v5e").unwrap_or(&CHIPS[0]),
            matmul: false,
            elements: 1 << 24,
            bdf: [128, 4096, 4096],
            chunk: 4.0 * 1024.0 * 1024.0,
            hbm: None,
            compute: None,
            resident: false,
            vs: None,
        }
    }
}

impl StreamingParams {
    /// The model's parameters.
    pub fn model(&self) -> StreamParams {
        let op = if self.matmul {
            let [b, d, f] = self.bdf;
            StreamOp::Matmul { b, d, f }
        } else {
            StreamOp::Elementwise {
                elements: self.elements,
            }
        };
        let mut p = StreamParams::new(self.chip, op);
        p.chunk = Bytes(self.chunk);
        if let Some(h) = self.hbm {
            p.hbm = BytesPerSec(h);
        }
        if let Some(c) = self.compute {
            p.compute = FlopsPerSec(c);
        }
        p.weights_in_vmem = self.matmul && self.resident;
        p
    }

    /// The run.
    pub fn run(&self) -> Result<StreamRun, String> {
        simulate(&self.model())
    }

    /// The compared chip's parameters: the same operation, chunk and weights
    /// at its registry rates (the reader's rates are for their own chip).
    pub fn vs_params(&self) -> Option<StreamingParams> {
        self.vs.map(|chip| StreamingParams {
            chip,
            hbm: None,
            compute: None,
            vs: None,
            ..*self
        })
    }

    /// The same operation streamed on the compared chip; `None` when nothing is compared.
    pub fn vs_run(&self) -> Option<Result<StreamRun, String>> {
        self.vs_params().map(|p| p.run())
    }

    /// The run beside the compared chip's: the rates each stage runs at, each
    /// stage's time per chunk, the totals, how busy compute is and the verdict.
    pub fn comparison(&self) -> Option<Comparison> {
        let vs = self.vs?;
        let (ma, mb) = (self.model(), self.vs_params()?.model());
        let (a, b) = (self.run().ok()?, self.vs_run()?.ok()?);
        let mut rows = vec![
            Diff::number("hbm", "HBM bandwidth", ma.hbm.0, mb.hbm.0, |x| {
                si(x, "B/s", 3)
            }),
            Diff::number("vmem", "VMEM bandwidth", ma.vmem.0, mb.vmem.0, |x| {
                si(x, "B/s", 3)
            }),
            Diff::number("compute", "compute rate", ma.compute.0, mb.compute.0, |x| {
                si(x, "FLOP/s", 3)
            }),
        ];
        rows.extend(diff_rows(
            &a,
            &b,
            seconds,
            &[
                ("stage-hbm", "HBM → VMEM, per chunk", |r| {
                    r.stage_time[0].0
                }),
                ("stage-vmem", "VMEM → registers, per chunk", |r| {
                    r.stage_time[1].0
                }),
                ("stage-compute", "compute, per chunk", |r| r.stage_time[2].0),
                ("total", "total, overlapped", |r| r.total.0),
                ("serial", "one stage at a time", |r| r.serial.0),
            ],
        ));
        rows.push(Diff::number(
            "busy",
            "compute busy",
            a.utilisation,
            b.utilisation,
            |x| format!("{:.1} %", 100.0 * x),
        ));
        rows.push(Diff::words("verdict", "verdict", verdict(&a), verdict(&b)));
        Some(Comparison {
            a: self.chip.name.into(),
            b: vs.name.into(),
            rows,
        })
    }
}

impl WidgetParams for StreamingParams {
    const ORDER: &'static [&'static [&'static str]] = &[&["chip"], &["op"]];

    /// Sets one parameter from text.
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut next = *self;
        let count = |what: &str, max: f64| parse_whole::<u64>(value, what, 1.0, max);
        let rate = |what: &str| -> Result<Option<f64>, String> {
            // "chip" (the field's default text) restores the registry's rate;
            // a blank is refused like any other unreadable number.
            if value.trim().eq_ignore_ascii_case("chip") {
                Ok(None)
            } else if value.trim().is_empty() {
                Err(format!(
                    "{what} is empty: enter a rate, or “chip” for the registry's"
                ))
            } else {
                parse_count(value, what, 1.0, 1e18).map(Some)
            }
        };
        match key {
            "chip" => {
                let c = super::controls::chip(value)?;
                if !is_tpu(c) {
                    return Err(format!("{} is not a TPU", c.name));
                }
                next.chip = c;
            }
            VS => {
                next.vs = parse_vs_chip(value, |c| {
                    if is_tpu(c) {
                        Ok(())
                    } else {
                        Err(format!("{} is not a TPU", c.name))
                    }
                })?
            }
            "op" => {
                next.matmul = match value {
                    "elementwise" => false,
                    "matmul" => true,
                    o => return Err(format!("op “{}” is not elementwise or matmul", short(o))),
                }
            }
            "elements" => next.elements = count("the element count", 1e12)?,
            "b" => next.bdf[0] = count("B", 1e7)?,
            "d" => next.bdf[1] = count("D", 1e6)?,
            "f" => next.bdf[2] = count("F", 1e6)?,
            "chunk" => next.chunk = parse_count(value, "the chunk size", 512.0, 1e10)?,
            "hbm" => next.hbm = rate("the HBM bandwidth")?,
            "compute" => next.compute = rate("the compute rate")?,
            "resident" => next.resident = parse_flag(value, "weights in VMEM")?,
            other => return Err(super::params::unknown_setting(other)),
        }
        next.run()?;
        if let Some(Err(e)) = next.vs_run() {
            return Err(format!("on {}: {e}", next.vs.map_or("", |c| c.name)));
        }
        *self = next;
        Ok(())
    }

    /// The parameters as `key=value` pairs.
    fn to_pairs(&self) -> Vec<(String, String)> {
        let [b, d, f] = self.bdf;
        let mut out = vec![
            ("chip".into(), self.chip.id.into()),
            (
                "op".into(),
                if self.matmul { "matmul" } else { "elementwise" }.into(),
            ),
            ("elements".into(), self.elements.to_string()),
            ("b".into(), b.to_string()),
            ("d".into(), d.to_string()),
            ("f".into(), f.to_string()),
            ("chunk".into(), format!("{}", self.chunk)),
            (
                "resident".into(),
                if self.resident { "1" } else { "0" }.into(),
            ),
        ];
        if let Some(h) = self.hbm {
            out.push(("hbm".into(), format!("{h}")));
        }
        if let Some(c) = self.compute {
            out.push(("compute".into(), format!("{c}")));
        }
        out.extend(self.vs.map(|c| (VS.into(), c.id.into())));
        out
    }
}

/// What sets the pace, as the reader reads it.
pub fn verdict(run: &StreamRun) -> &'static str {
    match run.bottleneck {
        Stage::HbmToVmem => "bandwidth-bound (HBM)",
        Stage::VmemToVregs => "bandwidth-bound (VMEM)",
        Stage::Compute => "compute-bound",
    }
}

/// How many of a run's `chunks` the timeline draws.
fn shown_of(chunks: u64) -> usize {
    usize::try_from(chunks).map_or(SHOWN_CHUNKS, |c| c.min(SHOWN_CHUNKS))
}

/// The time on the timeline after `step` chunks have left the last stage.
pub fn time_after(run: &StreamRun, step: usize) -> f64 {
    step.checked_sub(1)
        .and_then(|c| run.timeline.get(c * 3 + 2))
        .map_or(0.0, |s| s.end.0)
}

/// The widget.
#[component]
pub fn Streaming(
    /// The chapter's `key=value` arguments (URL parameters override them).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let state = WidgetState::<StreamingParams>::new(&args);
    let WidgetState { params, notice } = state;
    let result = Memo::new(move |_| {
        params
            .with(|p| p.run())
            .or_else(|_| StreamingParams::default().run())
            .ok()
    });
    let shown =
        Signal::derive(move || result.with(|r| r.as_ref().map_or(0, |r| shown_of(r.chunks))));
    let player = Player::new(shown, 700);
    let set = move |key: &'static str, value: String| {
        if state.set_or_refresh(key, &value, key == VS) {
            player.reset();
        }
    };
    let compared = Memo::new(move |_| params.with(|p| p.vs_run().and_then(Result::ok)));
    let vs_name = move || params.with(|p| p.vs.map_or("", |c| c.name));
    let vs_id = move || params.with(|p| p.vs.map_or("", |c| c.id));
    let vs_options = super::controls::chip_options(is_tpu, vs_id);
    let step = player.step;
    let at = move |f: &dyn Fn(&StreamRun) -> String| {
        result.with(|r| r.as_ref().map(f).unwrap_or_default())
    };
    let lanes = move || {
        let s = step.get();
        result.with(|r| {
            let Some(r) = r.as_ref() else {
                return ().into_any();
            };
            let n = shown_of(r.chunks);
            // The compared chip's first chunks share the time scale: the
            // scale ends where the slower of the two finishes them.
            let vs_end = compared.with(|c| {
                c.as_ref()
                    .map_or(0.0, |c| time_after(c, shown_of(c.chunks)))
            });
            let end = time_after(r, n).max(vs_end).max(f64::MIN_POSITIVE);
            let now = time_after(r, s);
            let pct = |t: f64| 100.0 * t / end;
            let lane = |run: &StreamRun, stage: Stage, i: usize, name: Option<&'static str>| {
                let shown = shown_of(run.chunks);
                let boxes = run
                    .timeline
                    .iter()
                    .filter(|sp| {
                        sp.stage == stage && usize::try_from(sp.chunk).is_ok_and(|c| c < shown)
                    })
                    .map(|sp| {
                        let style = format!(
                            "left: {:.2}%; width: {:.2}%",
                            pct(sp.start.0),
                            pct(sp.end.0 - sp.start.0).max(0.3)
                        );
                        view! {
                            <span class="chunk" class:done=sp.end.0 <= now style=style
                                title=format!("chunk {}", sp.chunk)></span>
                        }
                    })
                    .collect_view();
                let bottleneck = run.bottleneck == stage;
                let pace = if bottleneck { " (sets the pace)" } else { "" };
                let label = match name {
                    Some(name) => format!("{name}: {}{pace}", stage.label()),
                    None => format!("{}{pace}", stage.label()),
                };
                view! {
                    <div class="lane" class:bottleneck=bottleneck class:vs=name.is_some()
                        data-stage=name.is_none().then_some(i) data-vs-lane=name.map(|_| i)>
                        <span class="lane-label">{label}</span>
                        <div class="track">
                            {boxes}
                            <span class="now" style=format!("left: {:.2}%", pct(now))></span>
                        </div>
                    </div>
                }
            };
            let own = Stage::ALL
                .iter()
                .enumerate()
                .map(|(i, stage)| lane(r, *stage, i, None))
                .collect_view();
            let name = params.with(|p| p.vs.map(|c| c.name));
            let other = compared.with(|c| {
                c.as_ref().zip(name).map(|(c, name)| {
                    Stage::ALL
                        .iter()
                        .enumerate()
                        .map(|(i, stage)| lane(c, *stage, i, Some(name)))
                        .collect_view()
                })
            });
            view! { {own}{other} }.into_any()
        })
    };
    let stage_times = move || {
        result.with(|r| {
            let Some(r) = r.as_ref() else {
                return ().into_any();
            };
            Stage::ALL
                .iter()
                .zip(r.stage_time.iter().zip(r.busy))
                .map(|(stage, (t, busy))| {
                    view! {
                        <div><dt>{stage.label()}</dt><dd>{format!("{} per chunk, busy {:.0} %", seconds(t.0), 100.0 * busy)}</dd></div>
                    }
                })
                .collect_view()
                .into_any()
        })
    };
    let op_options = [("elementwise", "elementwise product"), ("matmul", "matmul")]
        .into_iter()
        .map(|(v, l)| {
            option(v, l, move || {
                if params.with(|p| p.matmul) {
                    "matmul"
                } else {
                    "elementwise"
                }
            })
        })
        .collect_view();
    let field =
        move |key: &'static str, label: &'static str, get: fn(&StreamingParams) -> String| {
            view! {
                <label>{label}
                    {NumberField::new(key, label, 8).decimal().view(move || params.with(get), set)}
                </label>
            }
        };
    let rate_default = move |which: usize| {
        params.with(|p| {
            let base = StreamingParams {
                hbm: None,
                compute: None,
                ..*p
            }
            .model();
            if which == 0 {
                si(base.hbm.0, "B/s", 3)
            } else {
                si(base.compute.0, "FLOP/s", 3)
            }
        })
    };
    let is_matmul = move || params.with(|p| p.matmul);
    view! {
        <figure class="widget streaming" data-widget="streaming">
            <div class="controls">
                {super::controls::chip_picker("Chip ", is_tpu, move || params.with(|p| p.chip.id).to_string(), set)}
                <label>"Operation "
                    <select prop:value=move || if is_matmul() { "matmul" } else { "elementwise" } on:change=move |ev| set("op", event_target_value(&ev))>{op_options}</select>
                </label>
                <span hidden=is_matmul>{field("elements", "Elements ", |p| p.elements.to_string())}</span>
                <span hidden=move || !is_matmul()>
                    {field("b", "B ", |p| p.bdf[0].to_string())}
                    {field("d", "D ", |p| p.bdf[1].to_string())}
                    {field("f", "F ", |p| p.bdf[2].to_string())}
                    <label>
                        <input type="checkbox" checked=move || params.with(|p| p.resident) prop:checked=move || params.with(|p| p.resident)
                            on:change=move |ev| set("resident", if event_target_checked(&ev) { "1".into() } else { "0".into() }) />
                        " weights already in VMEM"
                    </label>
                </span>
                {field("chunk", "Chunk (bytes) ", |p| format!("{}", p.chunk))}
                {field("hbm", "HBM bandwidth (B/s) ", |p| p.hbm.map(|h| format!("{h}")).unwrap_or_else(|| "chip".into()))}
                {field("compute", "Compute rate (FLOP/s) ", |p| p.compute.map(|c| format!("{c}")).unwrap_or_else(|| "chip".into()))}
                {compare_picker(vs_options, vs_id, set)}
            </div>
            <p class="muted">{move || format!("“chip” uses the registry's rates: HBM {}, compute {}.", rate_default(0), rate_default(1))}</p>
            {player.controls("chunks", |s, t| format!("chunk {s} / {t} shown"))}
            <div class="stream-lanes" role="img" data-step=move || step.get()
                aria-label=move || format!("timeline of the first {} chunks through three stages", shown.get())>
                {lanes}
            </div>
            <dl class="times">
                <div><dt>"verdict"</dt><dd data-verdict="">{move || at(&|r| verdict(r).into())}</dd></div>
                <div><dt>"chunks"</dt><dd data-chunks="">{move || at(&|r| grouped(r.chunks as f64))}</dd></div>
                {stage_times}
                <div><dt>"total, overlapped"</dt><dd data-total="">{move || at(&|r| seconds(r.total.0))}</dd></div>
                <div><dt>"one stage at a time"</dt><dd>{move || at(&|r| seconds(r.serial.0))}</dd></div>
                <div><dt>"compute busy"</dt><dd data-utilisation="">{move || at(&|r| format!("{:.1} %", 100.0 * r.utilisation))}</dd></div>
                <div><dt>"HBM bytes per chunk"</dt><dd>{move || at(&|r| si(r.per_chunk.0 .0, "B", 3))}</dd></div>
                {move || compared.with(|c| c.as_ref().map(|c| {
                    let v = verdict(c);
                    view! {
                        <div><dt>{format!("on {}", vs_name())}</dt><dd data-vs-verdict=v>{v}</dd></div>
                        <div><dt>{format!("total on {}", vs_name())}</dt><dd data-vs-total="">{seconds(c.total.0)}</dd></div>
                    }
                }))}
            </dl>
            {compare_table(move || params.with(|p| p.comparison()))}
            <Notice notice=notice />
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::widgets::params::testing::{assert_pairs_restore, assert_refused_keeps};

    #[test]
    fn a_blank_rate_is_refused_and_chip_restores_the_registry() {
        let mut p = StreamingParams::default();
        p.apply("hbm", "1e11").unwrap();
        assert_eq!(p.hbm, Some(1e11));
        let err = p.apply("hbm", "   ").unwrap_err();
        assert!(err.contains("empty"), "{err}");
        assert_eq!(p.hbm, Some(1e11), "a refused value keeps the last one");
        p.apply("hbm", "Chip").unwrap();
        assert_eq!(p.hbm, None);
    }
    use crate::widgets::params::pairs;

    #[test]
    fn an_elementwise_product_waits_on_hbm_and_its_total_is_fill_plus_slowest() {
        let r = StreamingParams::default().run().unwrap();
        assert_eq!(verdict(&r), "bandwidth-bound (HBM)");
        // 2^24 bf16 elements in two inputs, 4 MiB chunks: 16 chunks.
        assert_eq!(r.chunks, 16);
        let sum: f64 = r.stage_time.iter().map(|t| t.0).sum();
        let max = r.stage_time.iter().map(|t| t.0).fold(0.0, f64::max);
        assert!((r.total.0 - (sum + 15.0 * max)).abs() < 1e-12 * r.total.0);
        assert!((time_after(&r, 16) - r.total.0).abs() < 1e-12 * r.total.0);
        assert_eq!(time_after(&r, 0), 0.0);
    }

    #[test]
    fn weights_in_vmem_make_a_small_batch_matmul_compute_bound() {
        let (mut p, refused) = StreamingParams::from_pairs(&pairs(&[
            ("op", "matmul"),
            ("b", "128"),
            ("d", "4096"),
            ("f", "4096"),
        ]));
        assert!(refused.is_empty(), "{refused:?}");
        let streamed = p.run().unwrap();
        assert_eq!(verdict(&streamed), "bandwidth-bound (HBM)");
        p.apply("resident", "1").unwrap();
        let resident = p.run().unwrap();
        assert_eq!(verdict(&resident), "compute-bound");
        assert!(resident.total.0 < streamed.total.0);
        // A slower HBM the reader types slows the streamed matmul in proportion.
        p.apply("resident", "0").unwrap();
        p.apply("hbm", "4.1e11").unwrap();
        let slow = p.run().unwrap();
        assert!(slow.total.0 > 1.9 * streamed.total.0);
    }

    #[test]
    fn a_fractional_count_rounds_to_the_nearest_as_in_every_count_field() {
        // `parse_whole` rounds; a bare `as` once cut 127.6 to 127 here.
        let mut p = StreamingParams::default();
        p.apply("op", "matmul").unwrap();
        p.apply("b", "127.6").unwrap();
        assert_eq!(p.bdf[0], 128);
        p.apply("elements", "2.5e3").unwrap();
        assert_eq!(p.elements, 2500);
        let err = p.apply("b", "0.4").unwrap_err();
        assert_eq!(err, "B must be at least 1");
        assert_eq!(p.bdf[0], 128, "a refused count keeps the last one");
    }

    #[test]
    fn bad_input_keeps_the_state_and_pairs_round_trip() {
        let mut p = StreamingParams::default();
        assert_refused_keeps(
            &p,
            &[
                ("chip", "h100"),
                ("op", "conv"),
                ("chunk", "1"),
                ("hbm", "-3"),
                ("elements", "0"),
                ("colour", "red"),
            ],
        );
        // Weights too large for VMEM are refused with the model's reason.
        p.apply("op", "matmul").unwrap();
        p.apply("d", "65536").unwrap();
        assert!(p.apply("resident", "1").unwrap_err().contains("VMEM"));
        p.apply("compute", "1e14").unwrap();
        assert_pairs_restore(&p);
        p.apply("compute", "chip").unwrap();
        assert_eq!(p.compute, None);
    }

    #[test]
    fn a_second_tpu_streams_the_same_operation_at_its_own_rates() {
        use crate::widgets::params::testing::assert_round_trip;
        let p: StreamingParams = assert_round_trip(&[("vs", "v5p"), ("hbm", "4.1e11")]);
        let c = p.comparison().unwrap();
        // Core's run of the same product on the v5p at the registry's rates
        // (the reader's 410 GB/s is for their own chip only).
        let mut direct = StreamParams::new(
            chip("v5p").unwrap(),
            StreamOp::Elementwise { elements: 1 << 24 },
        );
        direct.chunk = Bytes(4.0 * 1024.0 * 1024.0);
        let r = simulate(&direct).unwrap();
        assert_eq!(c.row("total").unwrap().b, seconds(r.total.0));
        assert_eq!(c.row("hbm").unwrap().a, "410 GB/s");
        assert_eq!(
            c.row("hbm").unwrap().b,
            si(chip("v5p").unwrap().hbm_bw().0, "B/s", 3)
        );
        assert_eq!(c.row("verdict").unwrap().b, verdict(&r));
        let messages = assert_refused_keeps(&p, &[("vs", "h100"), ("vs", "tpu-v99")]);
        assert!(messages[0].contains("not a TPU"), "{messages:?}");
        assert!(messages[1].contains("tpu-v99"), "{messages:?}");
        // The reader's own TPU compares like a registry one; the book gives
        // a VPU rate for its own generations only, so the reader's chip
        // streams a matmul (on its bf16 peak) but not an elementwise product.
        let (_, code) = crate::library::tests::with_own_entries();
        let mut own = p;
        let e = own.apply("vs", "my:fast v5e").unwrap_err();
        assert!(e.contains("fast v5e") && e.contains("VPU"), "{e}");
        own.apply("op", "matmul").unwrap();
        own.apply("vs", "my:fast v5e").unwrap();
        assert_eq!(own.vs.unwrap().id, code);
        assert_eq!(own.comparison().unwrap().row("hbm").unwrap().b, "1.62 TB/s");
        let mut q = p;
        q.apply("vs", "none").unwrap();
        assert_eq!(q.comparison(), None);
        assert!(q.to_pairs().iter().all(|(k, _)| k != "vs"));
    }

    #[test]
    fn the_compared_lanes_share_the_time_scale_and_the_static_page_has_none() {
        let owner = Owner::new();
        let html = owner.with(|| view! { <Streaming args=pairs(&[("chip", "v5e")]) /> }.to_html());
        assert!(
            html.contains("data-vs=") || html.contains("data-vs "),
            "{html}"
        );
        assert!(
            !html.contains("data-vs-lane") && !html.contains("data-compare"),
            "{html}"
        );
        // Arguments naming a second chip draw its three lanes and its verdict.
        let owner = Owner::new();
        let html = owner.with(|| {
            view! { <Streaming args=pairs(&[("chip", "v5e"), ("vs", "v5p")]) /> }.to_html()
        });
        assert_eq!(html.matches("data-vs-lane=").count(), 3, "{html}");
        assert!(html.contains("TPU v5p: HBM → VMEM"), "{html}");
        assert!(
            html.contains(r#"data-vs-verdict="bandwidth-bound (HBM)""#),
            "{html}"
        );
    }
}
