//! The collective player (`data-widget="collective"`): a collective run by the
//! emulator on real data, step by step. Each device shows which part of the array
//! it holds (or how many partial sums it has added up); arrows show the blocks
//! sent in the current ring step, with their sizes. A second chip (`vs`)
//! times the same collective on its own ICI links, with the difference
//! spelled out.

use super::controls::Notice;
use super::controls::Slider;
use leptos::prelude::*;
use ridgeline_core::format::{grouped, seconds, si};
use ridgeline_core::hardware::{chip, Chip, CHIPS};
use ridgeline_core::sharding::emulator::{run, Run, Transfer};
use ridgeline_core::sharding::layout::Block;
use ridgeline_core::sharding::plan::{MatmulPlan, Operand, StepKind};
use ridgeline_core::units::Bytes;

use super::compare::{
    compare_picker, compare_table, diff_rows, ici_row, parse_vs_chip, Comparison, Diff, VS,
};
use super::controls::option;
use super::params::{WidgetParams, WidgetState};
use crate::input::short;

/// The four collectives, each as the sharded matmul that needs it.
pub const COLLECTIVES: &[(&str, &str, &str)] = &[
    ("allgather", "AllGather", "A[I, J_X] · B[J, K] -> C[I, K]"),
    (
        "reducescatter",
        "ReduceScatter",
        "A[I, J_X] · B[J_X, K] -> C[I, K_X]",
    ),
    ("allreduce", "AllReduce", "A[I, J_X] · B[J_X, K] -> C[I, K]"),
    ("alltoall", "AllToAll", "A[I_X, J] · B[J, K] -> C[I, K_X]"),
];

/// Ring sizes offered (they all divide the array sizes below).
pub const SIZES: &[u32] = &[2, 3, 4, 6, 8];
const DIMS: &str = "I=96, J=96, K=96";

/// The reader's choices.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CollectiveParams {
    /// Index into [`COLLECTIVES`].
    pub which: usize,
    /// Devices on the ring.
    pub n: u32,
    /// Whether the ring closes (wraparound).
    pub wrap: bool,
    /// Chip whose links time the collective.
    pub chip: &'static Chip,
    /// A second chip timing the same collective, if any.
    pub vs: Option<&'static Chip>,
}

impl Default for CollectiveParams {
    fn default() -> Self {
        CollectiveParams {
            which: 0,
            n: 4,
            wrap: true,
            chip: chip("v5e").unwrap_or(&CHIPS[0]),
            vs: None,
        }
    }
}

/// What the player shows: the plan, its emulation, and which trace steps are collective.
#[derive(Debug, Clone)]
pub struct Playback {
    /// The plan that needs the collective.
    pub plan: MatmulPlan,
    /// The emulation.
    pub run: Run,
    /// Indices of the trace steps that move data.
    pub steps: Vec<usize>,
    /// The array being moved.
    pub operand: Operand,
    /// Index of the plan step of the collective.
    pub plan_step: usize,
}

impl WidgetParams for CollectiveParams {
    /// Sets one parameter from text if the collective still plays, on both
    /// chips when one is compared.
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut next = *self;
        next.set_field(key, value)?;
        next.comparison()?;
        // The plan decides whether the collective plays: with the player's
        // fixed sizes, every plan runs (tested below), so the emulator itself
        // waits for the view.
        next.plan_on(next.chip)?;
        *self = next;
        Ok(())
    }

    /// The parameters as `key=value` pairs.
    fn to_pairs(&self) -> Vec<(String, String)> {
        vec![
            (
                "op".into(),
                COLLECTIVES[self.which.min(COLLECTIVES.len() - 1)].0.into(),
            ),
            ("n".into(), self.n.to_string()),
            ("wrap".into(), if self.wrap { "1" } else { "0" }.into()),
            ("chip".into(), self.chip.id.into()),
        ]
        .into_iter()
        .chain(self.vs.map(|c| (VS.into(), c.id.into())))
        .collect()
    }
}

impl CollectiveParams {
    /// Sets one parameter from text, whether or not the collective plays.
    fn set_field(&mut self, key: &str, value: &str) -> Result<(), String> {
        match key {
            "op" => {
                self.which = COLLECTIVES
                    .iter()
                    .position(|c| c.0 == value)
                    .ok_or_else(|| format!("unknown collective “{}”", short(value)))?
            }
            "n" => {
                let n: u32 = value
                    .trim()
                    .parse()
                    .map_err(|_| format!("ring size “{}” is not a whole number", short(value)))?;
                if !SIZES.contains(&n) {
                    return Err(format!("ring size must be one of {SIZES:?}"));
                }
                self.n = n;
            }
            "wrap" => self.wrap = crate::input::parse_flag(value, "wraparound")?,
            "chip" => {
                let c = super::controls::chip(value)?;
                self.chip = ring_chip(c)?;
            }
            VS => self.vs = parse_vs_chip(value, |c| ring_chip(c).map(|_| ()))?,
            other => return Err(super::params::unknown_setting(other)),
        }
        Ok(())
    }

    /// The plan of the chosen matmul with `chip`'s links, and the index of
    /// its collective step.
    fn plan_on(&self, chip: &'static Chip) -> Result<(MatmulPlan, usize), String> {
        let (_, _, spec) = COLLECTIVES[self.which.min(COLLECTIVES.len() - 1)];
        let mesh = format!("X={}", self.n);
        let mut plan = MatmulPlan::parse(spec, &mesh, DIMS, chip).map_err(|e| e.to_string())?;
        if !self.wrap {
            let spec =
                ridgeline_core::sharding::MatmulSpec::parse(spec).map_err(|e| e.to_string())?;
            let mesh = plan.mesh.clone().with_wrap_all(false);
            let dims = ridgeline_core::sharding::Dims::parse(DIMS).map_err(|e| e.to_string())?;
            let opts = ridgeline_core::sharding::plan::PlanOptions::for_chip(chip)
                .map_err(|e| e.to_string())?;
            plan = MatmulPlan::build(&spec, &mesh, &dims, &opts).map_err(|e| e.to_string())?;
        }
        let at = plan
            .steps
            .iter()
            .position(|s| matches!(s.kind, StepKind::Collective(_)))
            .ok_or("this matmul needs no collective")?;
        Ok((plan, at))
    }

    /// The same collective timed on both chips by core's cost model: the ICI
    /// bandwidth per link, the bytes moved, the time the bytes take over the
    /// links and the time the hops take, the larger of them, and which it is.
    /// At the player's sizes the hops win (latency-bound), so a chip with
    /// faster links takes as long: the table shows why.
    pub fn comparison(&self) -> Result<Option<Comparison>, String> {
        let Some(vs) = self.vs else {
            return Ok(None);
        };
        let cost = |chip: &'static Chip| -> Result<_, String> {
            let (plan, i) = self.plan_on(chip)?;
            plan.steps[i]
                .cost
                .ok_or_else(|| "this matmul needs no collective".to_string())
        };
        let a = cost(self.chip)?;
        let b = cost(vs).map_err(|e| format!("compared chip: {e}"))?;
        let mut rows = vec![
            ici_row(self.chip, vs),
            Diff::number(
                "bytes",
                "bytes the collective moves",
                a.total_bytes().0,
                b.total_bytes().0,
                |x| si(x, "B", 3),
            ),
        ];
        let hops = format!(
            "the hops ({} each)",
            seconds(ridgeline_core::hardware::ICI_HOP_LATENCY.value.0)
        );
        rows.extend(diff_rows(
            &a,
            &b,
            seconds,
            &[
                ("bandwidth", "the bytes over the links", |c| c.t_bandwidth.0),
                ("latency", &hops, |c| c.t_latency.0),
                ("time", "its time, the larger", |c| c.time.0),
            ],
        ));
        rows.push(Diff::words(
            "bound",
            "bound by",
            a.bound.text(),
            b.bound.text(),
        ));
        Ok(Some(Comparison {
            a: self.chip.name.into(),
            b: vs.name.into(),
            rows,
        }))
    }

    /// Plans and emulates the collective.
    pub fn playback(&self) -> Result<Playback, String> {
        let (plan, plan_step) = self.plan_on(self.chip)?;
        let operand = plan.steps[plan_step].operand;
        let run = run(&plan, 7).map_err(|e| e.to_string())?;
        let steps = run
            .trace
            .steps
            .iter()
            .enumerate()
            .filter(|(_, s)| !s.transfers.is_empty())
            .map(|(i, _)| i)
            .collect();
        Ok(Playback {
            plan,
            run,
            steps,
            operand,
            plan_step,
        })
    }
}

/// The chip if its links form an ICI ring, else why not.
fn ring_chip(c: &'static Chip) -> Result<&'static Chip, String> {
    if super::controls::has_ici(c) {
        Ok(c)
    } else {
        Err(format!("{} has no ICI ring in the book", c.name))
    }
}

/// Per device: the blocks of the moving array it holds, each with how many
/// devices' contributions it sums, after `done` data-moving steps.
pub fn holdings(pb: &Playback, done: usize) -> Vec<Vec<(Block, u32)>> {
    let before = &pb.plan.steps[pb.plan_step].before;
    let mut held: Vec<Vec<(Block, u32)>> = (0..pb.run.devices)
        .map(|d| vec![(pb.plan.block(pb.operand, before, d), 1)])
        .collect();
    for &i in pb.steps.iter().take(done) {
        let Some(step) = pb.run.trace.steps.get(i) else {
            continue;
        };
        // All transfers of a step are simultaneous: read senders' state first.
        let snapshot = held.clone();
        for t in &step.transfers {
            let from = t.from_device as usize;
            let to = t.to_device as usize;
            let sent = snapshot
                .get(from)
                .and_then(|h| {
                    h.iter()
                        .find(|(b, _)| overlaps(b, &t.block))
                        .map(|(_, c)| *c)
                })
                .unwrap_or(1);
            let Some(dest) = held.get_mut(to) else {
                continue;
            };
            if t.reduce {
                match dest.iter_mut().find(|(b, _)| *b == t.block) {
                    Some((_, c)) => *c += sent,
                    None => dest.push((t.block, sent + 1)),
                }
            } else if !dest.iter().any(|(b, _)| *b == t.block) {
                dest.push((t.block, sent));
            }
        }
    }
    held
}

fn overlaps(a: &Block, b: &Block) -> bool {
    a.rows.start < b.rows.end
        && b.rows.start < a.rows.end
        && a.cols.start < b.cols.end
        && b.cols.start < a.cols.end
}

fn position(i: usize, n: usize) -> (f64, f64) {
    let angle =
        -std::f64::consts::FRAC_PI_2 + 2.0 * std::f64::consts::PI * i as f64 / n.max(1) as f64;
    (200.0 + 135.0 * angle.cos(), 170.0 + 125.0 * angle.sin())
}

fn arrow(t: &Transfer, n: usize) -> impl IntoView {
    let (x1, y1) = position(t.from_device as usize, n);
    let (x2, y2) = position(t.to_device as usize, n);
    // Offset each direction sideways so the two directions of a link do not overlap.
    let (dx, dy) = (x2 - x1, y2 - y1);
    let len = (dx * dx + dy * dy).sqrt().max(1.0);
    let (ox, oy) = (-dy / len * 7.0, dx / len * 7.0);
    let shrink = 34.0 / len;
    let (sx, sy) = (x1 + dx * shrink + ox, y1 + dy * shrink + oy);
    let (ex, ey) = (x2 - dx * shrink + ox, y2 - dy * shrink + oy);
    let class = if t.reduce { "arrow reduce" } else { "arrow" };
    view! {
        <line x1=format!("{sx:.1}") y1=format!("{sy:.1}") x2=format!("{ex:.1}") y2=format!("{ey:.1}") class=class marker-end="url(#arrowhead)"></line>
    }
}

/// The collective player.
#[component]
pub fn CollectivePlayer(
    /// The chapter's `key=value` arguments (URL parameters override them).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let state = WidgetState::<CollectiveParams>::new(&args);
    let (params, notice) = (state.params, state.notice);
    let first = params
        .get_untracked()
        .playback()
        .or_else(|_| CollectiveParams::default().playback());
    let Ok(first) = first else {
        return view! { <p class="notice">"The collective could not be emulated."</p> }.into_any();
    };
    let playback = RwSignal::new(first);
    let step = RwSignal::new(0usize);
    let playing = RwSignal::new(false);
    let timer = StoredValue::new(None::<IntervalHandle>);

    let stop = move || {
        playing.set(false);
        if let Some(h) = timer.get_value() {
            h.clear();
        }
        timer.set_value(None);
    };
    let total = move || playback.with(|p| p.steps.len());
    let set = move |key: &'static str, value: String| {
        // A refused choice: the notice says why, and a select shows the last
        // valid choice again.
        if state.set_or_refresh(key, &value, true) {
            if let Ok(pb) = params.get_untracked().playback() {
                stop();
                playback.set(pb);
                step.set(0);
            }
        }
    };
    let play = move || {
        if playing.get_untracked() {
            stop();
            return;
        }
        if step.get_untracked() >= total() {
            step.set(0);
        }
        playing.set(true);
        let handle = set_interval_with_handle(
            move || {
                let next = step.get_untracked() + 1;
                if next > total() {
                    stop();
                } else {
                    step.set(next);
                }
            },
            std::time::Duration::from_millis(900),
        );
        if let Ok(h) = handle {
            timer.set_value(Some(h));
        }
    };
    on_cleanup(move || {
        if let Some(h) = timer.get_value() {
            h.clear();
        }
    });

    let held = Memo::new(move |_| playback.with(|pb| holdings(pb, step.get())));
    let current = move || {
        let k = step.get();
        playback.with(|pb| {
            if k == 0 {
                return (
                    format!(
                        "Before: each device holds its own block of {}.",
                        pb.plan.steps[pb.plan_step].array
                    ),
                    Bytes(0.0),
                    Vec::new(),
                );
            }
            let i = pb.steps[(k - 1).min(pb.steps.len().saturating_sub(1))];
            let s = &pb.run.trace.steps[i];
            let bytes: Bytes = s.transfers.iter().map(|t| t.bytes).sum();
            (s.label.clone(), bytes, s.transfers.clone())
        })
    };
    let moved_so_far = move || {
        let k = step.get();
        playback.with(|pb| {
            pb.steps
                .iter()
                .take(k)
                .map(|&i| {
                    pb.run.trace.steps[i]
                        .transfers
                        .iter()
                        .map(|t| t.bytes)
                        .sum::<Bytes>()
                })
                .sum::<Bytes>()
        })
    };

    let devices = move || {
        let h = held.get();
        let n = h.len();
        let shape = playback.with(|pb| pb.plan.shape(pb.operand));
        // Reductions fill in as partial sums arrive; gathers and all-to-alls copy whole blocks.
        let parts = playback.with(|pb| match pb.plan.steps[pb.plan_step].kind {
            StepKind::Collective(c) if matches!(c.name(), "ReduceScatter" | "AllReduce") => {
                pb.plan.mesh.axes().first().map(|a| a.size).unwrap_or(1)
            }
            _ => 1,
        });
        h.into_iter()
            .enumerate()
            .map(|(d, blocks)| {
                let (cx, cy) = position(d, n);
                let count = blocks.len();
                let rects = blocks
                    .into_iter()
                    .map(|(b, c)| {
                        let (hh, ww) = (shape[0].max(1) as f64, shape[1].max(1) as f64);
                        let x = cx - 26.0 + 52.0 * b.cols.start as f64 / ww;
                        let y = cy - 26.0 + 52.0 * b.rows.start as f64 / hh;
                        let w = (52.0 * b.cols.len() as f64 / ww).max(1.5);
                        let hgt = (52.0 * b.rows.len() as f64 / hh).max(1.5);
                        let opacity = (c as f64 / parts as f64).clamp(0.25, 1.0);
                        view! { <rect x=format!("{x:.1}") y=format!("{y:.1}") width=format!("{w:.1}") height=format!("{hgt:.1}") class="held" fill-opacity=format!("{opacity:.2}")></rect> }
                    })
                    .collect_view();
                view! {
                    <g class="ring-device" data-device=d data-held=count>
                        <rect x=format!("{:.1}", cx - 26.0) y=format!("{:.1}", cy - 26.0) width="52" height="52" class="device-frame"></rect>
                        {rects}
                        <text x=format!("{cx:.1}") y=format!("{:.1}", cy + 42.0) class="device-label">{format!("device {d}")}</text>
                    </g>
                }
            })
            .collect_view()
    };

    let op_options = COLLECTIVES
        .iter()
        .map(|(id, label, _)| option(*id, *label, move || COLLECTIVES[params.with(|p| p.which)].0))
        .collect_view();
    let size_options =
        super::controls::count_options(SIZES, "devices", move || params.with(|p| p.n.to_string()));
    let vs_id = move || params.with(|p| p.vs.map_or("", |c| c.id));
    let vs_options = super::controls::chip_options(super::controls::has_ici, vs_id);

    view! {
        <figure class="widget collective" data-widget="collective">
            <div class="controls">
                <label>"Collective "
                    <select prop:value=move || COLLECTIVES[params.with(|p| p.which)].0 on:change=move |ev| set("op", event_target_value(&ev))>{op_options}</select>
                </label>
                <label>"Ring "
                    <select prop:value=move || params.with(|p| p.n.to_string()) on:change=move |ev| set("n", event_target_value(&ev))>{size_options}</select>
                </label>
                <label>
                    <input type="checkbox" prop:checked=move || params.with(|p| p.wrap) on:change=move |ev| set("wrap", if event_target_checked(&ev) { "1".into() } else { "0".into() }) />
                    " wraparound link"
                </label>
                {super::controls::chip_picker("Chip ", super::controls::has_ici, move || params.with(|p| p.chip.id).to_string(), set)}
                {compare_picker(vs_options, vs_id, set)}
            </div>
            <p class="muted">{move || playback.with(|pb| format!("{} — the step a sharded matmul {} needs.", COLLECTIVES[params.with_untracked(|p| p.which)].1, pb.plan.summary()))}</p>
            <svg class="ring" viewBox="0 0 400 340" role="img" data-step=move || step.get()
                aria-label=move || format!("{} devices; step {} of {}", held.with(|h| h.len()), step.get(), total())>
                <defs>
                    <marker id="arrowhead" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
                        <path d="M 0 0 L 10 5 L 0 10 z" class="arrowhead"></path>
                    </marker>
                </defs>
                {move || {
                    let n = held.with(|h| h.len());
                    current().2.iter().map(|t| arrow(t, n)).collect_view()
                }}
                {devices}
            </svg>
            <div class="player" role="group" aria-label="collective player">
                <button type="button" on:click=move |_| { stop(); step.set(0); } aria-label="back to the start">"↺"</button>
                <button type="button" on:click=move |_| { stop(); step.update(|s| *s = s.saturating_sub(1)); } aria-label="previous step">"◀"</button>
                <button type="button" class="play" on:click=move |_| play() aria-label=move || if playing.get() { "pause" } else { "play" }>
                    {move || if playing.get() { "⏸ pause" } else { "▶ play" }}
                </button>
                <button type="button" on:click=move |_| { stop(); step.update(|s| *s = (*s + 1).min(total())); } aria-label="next step">"▶"</button>
                {Slider::new("0", move || total().to_string(), "1").aria("scrub through the steps").view(move || (step.get()).to_string(), move |v: String| { stop(); step.set(v.parse::<usize>().unwrap_or(0).min(total())); })}
                <output>{move || format!("step {} / {}", step.get(), total())}</output>
            </div>
            <p class="step-label" data-step-label="">{move || current().0}</p>
            <dl class="times">
                <div><dt>"this step"</dt><dd>{move || { let (_, b, t) = current(); format!("{} in {} sends", si(b.0, "B", 3), t.len()) }}</dd></div>
                <div><dt>"moved so far"</dt><dd>{move || si(moved_so_far().0, "B", 3)}</dd></div>
                <div><dt>"whole collective"</dt><dd>{move || playback.with(|pb| si(pb.run.trace.bytes_of(pb.plan_step).0, "B", 3))}</dd></div>
                <div><dt>"cost model"</dt><dd>{move || playback.with(|pb| {
                    let s = &pb.plan.steps[pb.plan_step];
                    format!("{} total, {} on {}", si(s.total_bytes.0, "B", 3), s.time.map(|t| seconds(t.0)).unwrap_or_default(), s.on)
                })}</dd></div>
                <div><dt>"ring steps"</dt><dd>{move || grouped(total() as f64)}</dd></div>
            </dl>
            {compare_table(move || params.with(|p| p.comparison().ok().flatten()))}
            <Notice notice=notice />
        </figure>
    }
    .into_any()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_collective_plays_and_its_bytes_match_the_cost_model() {
        for (id, label, _) in COLLECTIVES {
            for &n in SIZES {
                for wrap in [true, false] {
                    let mut p = CollectiveParams::default();
                    p.apply("op", id).unwrap();
                    p.n = n;
                    p.wrap = wrap;
                    let pb = p
                        .playback()
                        .unwrap_or_else(|e| panic!("{label} n={n}: {e}"));
                    let step = &pb.plan.steps[pb.plan_step];
                    assert!(
                        matches!(step.kind, StepKind::Collective(c) if c.name() == *label),
                        "{label}: {:?}",
                        step.kind
                    );
                    assert!(!pb.steps.is_empty());
                    let traced = pb.run.trace.bytes_of(pb.plan_step).0;
                    assert!(
                        (traced - step.total_bytes.0).abs() <= 1e-6 * step.total_bytes.0,
                        "{label} n={n}"
                    );
                }
            }
        }
    }

    /// A second chip times the same collective on its own ICI links: the
    /// same bytes, core's time for them, and a GPU refused.
    #[test]
    fn a_second_chip_times_the_same_collective() {
        let mut p = CollectiveParams::default();
        assert_eq!(p.comparison(), Ok(None));
        for (k, v) in [("op", "allreduce"), ("n", "8"), ("vs", "v5p")] {
            p.apply(k, v).unwrap();
        }
        let c = p.comparison().unwrap().unwrap();
        let (plan, i) = p.plan_on(chip("v5p").unwrap()).unwrap();
        let direct = plan.steps[i].time.unwrap();
        assert_eq!(c.row("time").unwrap().b, seconds(direct.0));
        assert_eq!(c.row("bytes").unwrap().ratio, Some(1.0));
        // The v5p's ICI links are twice the v5e's (Part 2's table): the
        // bytes take half the time over them, but the ring's hops take
        // longer than either, so the collective takes as long on both.
        let ratio = |key| c.row(key).unwrap().ratio.unwrap();
        assert!((ratio("ici") - 2.0).abs() < 1e-9);
        assert!(
            (ratio("bandwidth") - 0.5).abs() < 1e-9,
            "{}",
            ratio("bandwidth")
        );
        assert_eq!(ratio("latency"), 1.0);
        assert_eq!(ratio("time"), 1.0);
        let bound = c.row("bound").unwrap();
        assert_eq!(
            (bound.a.as_str(), bound.b.as_str()),
            ("latency-bound", "latency-bound")
        );
        let pairs = p.to_pairs();
        assert!(pairs.contains(&("vs".into(), "v5p".into())), "{pairs:?}");
        let mut q = CollectiveParams::default();
        for (k, v) in &pairs {
            q.apply(k, v).unwrap();
        }
        assert_eq!(q, p);
        let before = p;
        assert!(p.apply("vs", "h100").unwrap_err().contains("no ICI"));
        assert!(p.apply("vs", "tpu-v99").is_err());
        assert_eq!(p, before, "a refused vs keeps the last one");
        p.apply("vs", "none").unwrap();
        assert_eq!(p.comparison(), Ok(None));
    }

    #[test]
    fn an_allgather_ends_with_every_device_holding_everything() {
        let p = CollectiveParams::default();
        let pb = p.playback().unwrap();
        let start = holdings(&pb, 0);
        assert!(start.iter().all(|h| h.len() == 1));
        let end = holdings(&pb, pb.steps.len());
        assert!(end.iter().all(|h| h.len() == p.n as usize), "{end:?}");
    }

    #[test]
    fn bad_settings_are_refused() {
        let mut p = CollectiveParams::default();
        assert!(p.apply("n", "5").is_err());
        assert!(p.apply("n", "-1").is_err());
        assert!(p.apply("op", "broadcast").is_err());
        assert!(p.apply("chip", "h100").is_err());
        assert_eq!(p, CollectiveParams::default());
    }

    /// `apply` checks only the plan, not the emulator's run (tens of
    /// milliseconds in a debug build): every setting it can accept, every
    /// collective at every ring size, with and without wraparound, on every
    /// chip with an ICI ring, must then play.
    #[test]
    fn every_accepted_setting_plays() {
        let mut played = 0;
        for (op, _, _) in COLLECTIVES {
            for n in SIZES {
                for wrap in ["1", "0"] {
                    for c in ridgeline_core::hardware::CHIPS
                        .iter()
                        .filter(|c| super::super::controls::has_ici(c))
                    {
                        let mut p = CollectiveParams::default();
                        let pairs = [
                            ("op", *op),
                            ("n", &n.to_string()),
                            ("wrap", wrap),
                            ("chip", c.id),
                        ];
                        if pairs.iter().all(|(k, v)| p.apply(k, v).is_ok()) {
                            let pb = p.playback().unwrap_or_else(|e| panic!("{pairs:?}: {e}"));
                            assert!(!pb.steps.is_empty(), "{pairs:?}");
                            played += 1;
                        }
                    }
                }
            }
        }
        assert!(played >= COLLECTIVES.len() * SIZES.len() * 2, "{played}");
    }
}
