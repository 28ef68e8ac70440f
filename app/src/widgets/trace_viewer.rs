//! A reader's own profile (`data-widget="trace-viewer"`, Part 9; library
//! bundle only): the reader drops or chooses the trace file that
//! `jax.profiler.trace(dir, create_perfetto_trace=True)` writes
//! (`perfetto_trace.json.gz`, gzipped or not) or PyTorch's profiler exports
//! (`export_chrome_trace`), and sees its device lanes (XLA ops first), its
//! steps and its ops by total self time. The file is read in the browser by
//! [`ridgeline_core::profiling::capture::read`], in a worker so that the
//! page keeps answering however large the file ([`serve_worker`]), and sent
//! nowhere; a file it refuses is named with the reason, and the trace shown
//! before stays.
//!
//! Beside them, the heaviest ops on the chosen chip's roofline: each op's
//! achieved FLOP/s at its arithmetic intensity, as a share of the roof there
//! ([`ridgeline_core::profiling::achieved`]), with FLOPs and bytes from the
//! trace's own events or from the program's HLO text the reader opens too; an
//! op neither explains is listed without a point. Then the book's step budget
//! for a step of matmuls the reader names, beside the measured step.
//!
//! Until the reader opens one, the widget shows a real trace committed with
//! the repository (a sharded matmul on eight CPU devices, captured with JAX)
//! and that program's HLO text, which is also what the static page shows.

use std::sync::Arc;

use leptos::prelude::*;
use ridgeline_core::dtype::Dtype;
use ridgeline_core::format::{count, grouped, sci, seconds, si};
use ridgeline_core::hardware::{chip as registry_chip, Chip, CHIPS};
use ridgeline_core::profiling::achieved::{heavy_ops, CostFrom, HeavyOp, HloCosts, MatmulStep};
use ridgeline_core::profiling::capture::{self, Capture, LaneKind, Refusal, MAX_TRACE_BYTES};
use ridgeline_core::units::Seconds;

use crate::charts::roofline::{draw_measured, Measured, RoofModel};
use crate::charts::size::{Frame, Shape};
use crate::charts::svg;
use crate::widgets::controls::NumberField;

mod worker;
pub use worker::serve as serve_worker;
use worker::{Outcome, Reader};

/// The sample trace shown until the reader opens one (see
/// `tests/data/traces/README.md`).
const SAMPLE: &[u8] = include_bytes!("../../../tests/data/traces/jax-sharded-matmul-8cpu.json.gz");

/// The sample program's HLO text (`compile().as_text()`), which names the
/// shapes behind the sample trace's ops.
const SAMPLE_HLO: &str = include_str!("../../../tests/data/traces/jax-sharded-matmul-8cpu.hlo.txt");

/// The chip whose roofline is drawn first.
const DEFAULT_CHIP: &str = "v5e";

/// How many of the heaviest ops are placed on the roofline.
const HEAVY: usize = 8;

/// The roofline chart's shape.
const CHART: Shape = Shape::new(760, 420, 340);

/// What the sample is.
const SAMPLE_LABEL: &str =
    "the sample trace: a jitted sharded matmul on eight CPU devices, captured with JAX";

/// The most lanes drawn (the rest are counted).
const MAX_LANES: usize = 16;

/// The most rows of the op table.
const MAX_ROWS: usize = 15;

/// The most spans drawn in one lane.
const MAX_DRAWN: usize = 1500;

/// A trace on show and what it is.
#[derive(Clone)]
struct Shown {
    label: String,
    capture: Arc<Capture>,
}

/// The sample, read (it is part of the build, so it always reads).
fn sample() -> Option<Shown> {
    capture::read(SAMPLE).ok().map(|c| Shown {
        label: SAMPLE_LABEL.to_string(),
        capture: Arc::new(c),
    })
}

/// A duration in µs, readably.
fn us(t: f64) -> String {
    seconds(t * 1e-6)
}

/// A fraction as a percentage with one decimal.
fn percent(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

/// HLO text on show and what it is.
#[derive(Clone)]
struct Hlo {
    label: String,
    costs: Arc<HloCosts>,
}

/// The sample's HLO text, read.
fn sample_hlo() -> Option<Hlo> {
    Some(Hlo {
        label: "the sample program's HLO text".to_string(),
        costs: Arc::new(HloCosts::read(SAMPLE_HLO)),
    })
}

/// Reads `file`'s bytes (at most [`MAX_TRACE_BYTES`]) on the page's thread
/// and hands them with the file's name and size to `done`, saying `reading`
/// meanwhile, or says why not in `error`.
fn read_file(
    file: web_sys::File,
    error: RwSignal<Option<String>>,
    reading: String,
    done: impl FnOnce(String, f64, Vec<u8>) + 'static,
) {
    let name = file.name();
    let size = file.size();
    if size > MAX_TRACE_BYTES as f64 {
        error.set(Some(too_large(&name)));
        return;
    }
    error.set(Some(reading));
    let promise = file.array_buffer();
    wasm_bindgen_futures::spawn_local(async move {
        let Ok(buffer) = wasm_bindgen_futures::JsFuture::from(promise).await else {
            error.set(Some(format!("{name} could not be read.")));
            return;
        };
        done(name, size, js_sys::Uint8Array::new(&buffer).to_vec());
    });
}

/// What is said of a file larger than [`MAX_TRACE_BYTES`].
fn too_large(name: &str) -> String {
    format!("{name} was not opened: {}.", Refusal::TooLarge)
}

/// Reads a trace `file` in `reader`'s worker (on the page's thread where no
/// worker runs, saying so) and shows it, dropping the HLO text of the one
/// before, or says why not. The trace shown stays until the new one is read;
/// a file chosen meanwhile supersedes this one.
fn open_file(
    file: web_sys::File,
    reader: &Reader,
    shown: RwSignal<Option<Shown>>,
    hlo: RwSignal<Option<Hlo>>,
    error: RwSignal<Option<String>>,
) {
    let name = file.name();
    let size = file.size();
    if size > MAX_TRACE_BYTES as f64 {
        error.set(Some(too_large(&name)));
        return;
    }
    let ticket = reader.ticket();
    error.set(Some(format!("reading {name}…")));
    let latest = reader.clone();
    reader.read(file, move |outcome| match outcome {
        Outcome::Reply(text) => show(&name, size, capture::from_reply(&text), shown, hlo, error),
        Outcome::Here(file, why) => {
            let reading = format!(
                "reading {name} on this page's own thread ({why}): the page may not answer until it is read…"
            );
            read_file(file, error, reading, move |name, size, bytes| {
                if latest.is_latest(ticket) {
                    show(&name, size, Some(capture::read(&bytes)), shown, hlo, error);
                }
            });
        }
    });
}

/// Shows the trace `read` from the file `name` of `size` bytes, or says why not.
fn show(
    name: &str,
    size: f64,
    read: Option<Result<Capture, Refusal>>,
    shown: RwSignal<Option<Shown>>,
    hlo: RwSignal<Option<Hlo>>,
    error: RwSignal<Option<String>>,
) {
    match read {
        Some(Ok(c)) => {
            shown.set(Some(Shown {
                label: format!("your file {name} ({} bytes)", grouped(size)),
                capture: Arc::new(c),
            }));
            hlo.set(None);
            error.set(None);
        }
        Some(Err(r)) => error.set(Some(format!("{name} was not opened: {r}."))),
        None => error.set(Some(format!("{name} could not be read."))),
    }
}

/// Reads an HLO text `file` for the trace on show, or says why not.
fn open_hlo(file: web_sys::File, hlo: RwSignal<Option<Hlo>>, error: RwSignal<Option<String>>) {
    let reading = format!("reading {}…", file.name());
    read_file(
        file,
        error,
        reading,
        move |name, _, bytes| match HloCosts::from_file(&bytes) {
            Ok(costs) => {
                hlo.set(Some(Hlo {
                    label: format!("your HLO text {name}"),
                    costs: Arc::new(costs),
                }));
                error.set(None);
            }
            Err(e) => error.set(Some(format!("{name} was not opened: {e}."))),
        },
    );
}

/// The first file of a file input's change event.
fn picked(ev: &leptos::ev::Event) -> Option<web_sys::File> {
    use wasm_bindgen::JsCast;
    ev.target()
        .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
        .and_then(|i| i.files())
        .and_then(|f| f.get(0))
}

/// The chart of the heavy ops on `chip`'s bf16 roofline, drawn `size`.
fn roof_svg(ops: &[HeavyOp], chip: &'static Chip, size: crate::charts::size::Size) -> String {
    let Some(model) = RoofModel::new(chip, Dtype::Bf16) else {
        return String::new();
    };
    let (peak, bw) = roofs(chip);
    let points: Vec<Measured> = ops
        .iter()
        .enumerate()
        .filter_map(|(i, o)| {
            o.on_roof(peak, bw).map(|p| Measured {
                intensity: p.intensity.0,
                achieved: p.achieved.0,
                label: (i + 1).to_string(),
            })
        })
        .collect();
    svg(size.width, size.height, |root| {
        // Drawing into a string cannot fail.
        let _ = draw_measured(root, &model, &points, false);
    })
    .0
}

/// `chip`'s bf16 compute roof (zero if it has none) and HBM bandwidth.
fn roofs(
    chip: &Chip,
) -> (
    ridgeline_core::units::FlopsPerSec,
    ridgeline_core::units::BytesPerSec,
) {
    let peak = chip
        .peak_or_wider(Dtype::Bf16)
        .map(|(_, p)| p)
        .unwrap_or_default();
    (peak, chip.hbm_bw())
}

/// One heavy op's row: its number on the chart, its costs, its rate and
/// its share of the roof, or why it has no point.
fn heavy_row(i: usize, o: &HeavyOp, chip: &Chip) -> impl IntoView {
    let (peak, bw) = roofs(chip);
    let point = o.on_roof(peak, bw);
    let flops = o.flops.map_or("—".to_string(), |f| sci(f.0, 3));
    let bytes = o.bytes.map_or("—".to_string(), |b| si(b.0, "B", 3));
    let rate = o
        .achieved()
        .map_or("—".to_string(), |r| si(r.0, "FLOP/s", 3));
    let intensity = o
        .intensity()
        .map_or("—".to_string(), |x| format!("{:.3}", x.0));
    let share = match (point, o.from) {
        (Some(p), _) => format!(
            "{}% of {}",
            sci(p.share * 100.0, 2),
            si(p.roof.0, "FLOP/s", 3)
        ),
        (None, None) => {
            "no FLOPs or bytes: the trace gives none and no HLO text names it".to_string()
        }
        (None, Some(_)) if o.flops.is_none() => "FLOPs not counted for its opcode".to_string(),
        (None, Some(_)) => "no bytes, or no FLOPs, to place it".to_string(),
    };
    let from = match o.from {
        Some(CostFrom::Trace) => "trace",
        Some(CostFrom::Hlo) => "HLO",
        None => "",
    };
    view! {
        <tr data-roof-op=o.name.clone() data-on-roof=point.is_some().to_string()>
            <td>{(i + 1).to_string()}</td>
            <td class="trace-op-name" title=o.name.clone()>{o.name.clone()}</td>
            <td>{flops}</td>
            <td>{bytes}</td>
            <td>{from}</td>
            <td>{rate}</td>
            <td>{intensity}</td>
            <td data-roof-share="">{share}</td>
        </tr>
    }
}

/// The step budget line for `step` on `chip` beside the trace's mean step.
fn budget_text(step: &MatmulStep, chip: &'static Chip, c: &Capture) -> String {
    let b = match step.budget(chip) {
        Ok(b) => b,
        Err(e) => return format!("No budget: {e}."),
    };
    let (peak, bw) = roofs(chip);
    let head = format!(
        "Budget on {}: {} FLOPs per device at {} is {}, plus {} at {} is {}: {} a step.",
        chip.name,
        sci(b.flops.0, 3),
        si(peak.0, "FLOP/s", 3),
        seconds(b.compute.0),
        si(b.bytes.0, "B", 3),
        si(bw.0, "B/s", 3),
        seconds(b.memory.0),
        seconds(b.total().0),
    );
    match c.mean_step_us() {
        Some(mean) => format!(
            "{head} The trace's mean step is {}: {}× the budget.",
            us(mean),
            sci(b.ratio(Seconds(mean * 1e-6)), 3)
        ),
        None => format!("{head} The trace marks no steps to set beside it."),
    }
}

/// The step starts as one path of vertical lines on a lane's 1000-wide axis
/// (one element however many steps: a long trace marks thousands), each
/// position once.
fn step_marks(c: &Capture) -> String {
    let span = c.span_us.max(1e-9);
    let mut d = String::new();
    let mut last = String::new();
    for s in &c.steps {
        let x = format!("{:.2}", s.start / span * 1000.0);
        if x != last {
            d.push_str(&format!("M{x} 0V12"));
            last = x;
        }
    }
    d
}

/// One lane: its name, its spans on the trace's time axis, and `steps`
/// ([`step_marks`]).
fn lane_view(lane: &capture::Lane, c: &Capture, steps: &str) -> impl IntoView {
    let span = c.span_us.max(1e-9);
    let kind = match lane.kind {
        LaneKind::Ops => "ops",
        LaneKind::Device => "device",
        LaneKind::Host => "host",
    };
    let rects = lane
        .spans
        .iter()
        .filter(|s| s.dur / span * 1000.0 >= 0.25)
        .take(MAX_DRAWN)
        .map(|s| {
            let x = s.start / span * 1000.0;
            let w = s.dur / span * 1000.0;
            let title = format!("{} · {}", c.names[s.name], us(s.dur));
            view! {
                <rect x=format!("{x:.2}") y="1" width=format!("{w:.2}") height="10">
                    <title>{title}</title>
                </rect>
            }
        })
        .collect_view();
    let busy = format!(
        "{} busy, {}",
        us(lane.busy),
        count(lane.events as u64, "event", "events")
    );
    view! {
        <li data-lane=lane.name.clone() data-kind=kind>
            <span class="trace-lane-name">{lane.name.clone()}</span>
            <svg class="trace-lane-bar" viewBox="0 0 1000 12" preserveAspectRatio="none" aria-hidden="true">
                {(!steps.is_empty()).then(|| view! { <path class="trace-step" d=steps.to_string() /> })}
                {rects}
            </svg>
            <span class="trace-lane-busy">{busy}</span>
        </li>
    }
}

/// Everything shown of one trace.
fn capture_view(shown: &Shown) -> impl IntoView {
    let c = &shown.capture;
    let ops_lanes = c.lanes.iter().filter(|l| l.kind == LaneKind::Ops).count();
    let summary = format!(
        "{} trace: {} over {}, {} ({} with ops){}.",
        c.source.label(),
        count(c.events as u64, "event", "events"),
        us(c.span_us),
        count(c.lanes.len() as u64, "lane", "lanes"),
        grouped(ops_lanes as f64),
        if c.skipped > 0 {
            format!(
                "; {} with impossible times skipped",
                count(c.skipped as u64, "event", "events")
            )
        } else {
            String::new()
        }
    );
    let more = c.lanes.len().saturating_sub(MAX_LANES);
    let marks = step_marks(c);
    let lanes = c
        .lanes
        .iter()
        .take(MAX_LANES)
        .map(|l| lane_view(l, c, &marks))
        .collect_view();
    let steps = match c.mean_step_us() {
        Some(mean) => {
            let names: Vec<String> = c
                .steps
                .iter()
                .take(8)
                .map(|s| format!("{} ({})", s.name, us(s.dur)))
                .collect();
            let busy = c
                .op_busy_fraction()
                .map(|f| {
                    format!(
                        " Inside the steps, ops kept each device busy {} of the time on average (their self time over devices × step time); the rest is the host, the launch and waiting.",
                        percent(f)
                    )
                })
                .unwrap_or_default();
            format!(
                "{}, mean {}: {}{}.{busy}",
                count(c.steps.len() as u64, "step", "steps"),
                us(mean),
                names.join(", "),
                if c.steps.len() > 8 { ", …" } else { "" }
            )
        }
        None => "No step markers (wrap each step in jax.profiler.StepTraceAnnotation, or call prof.step() in PyTorch, to see them).".to_string(),
    };
    let rows = c
        .ops
        .iter()
        .take(MAX_ROWS)
        .map(|o| {
            view! {
                <tr data-op=o.name.clone()>
                    <td class="trace-op-name" title=o.name.clone()>{o.name.clone()}</td>
                    <td>{grouped(o.count as f64)}</td>
                    <td>{us(o.self_us)}</td>
                    <td>{us(o.self_us / o.count.max(1) as f64)}</td>
                    <td data-share="">{percent(o.share)}</td>
                </tr>
            }
        })
        .collect_view();
    let op_note = if c.ops.is_empty() {
        "This trace names no device ops (no XLA op, kernel or cpu_op events).".to_string()
    } else {
        format!(
            "{} by total self time (its own time, less the ops nested inside it), {} in all{}.",
            count(c.ops.len() as u64, "op", "ops"),
            us(c.op_self_us),
            if c.ops.len() > MAX_ROWS {
                format!("; the first {MAX_ROWS} shown")
            } else {
                String::new()
            }
        )
    };
    view! {
        <p class="trace-showing" data-trace-showing>"Showing " {shown.label.clone()} "."</p>
        <p data-trace-summary>{summary}</p>
        <ol class="trace-lanes" data-trace-lanes>{lanes}</ol>
        {(more > 0).then(|| view! { <p>{format!("and {} more", count(more as u64, "lane", "lanes"))}</p> })}
        <p data-trace-steps>{steps}</p>
        <p>{op_note}</p>
        <div class="table-scroll" tabindex="0" role="region" aria-label="ops by self time">
        <table class="trace-ops" data-trace-ops>
            <thead>
                <tr>
                    <th scope="col">"op"</th>
                    <th scope="col">"count"</th>
                    <th scope="col">"self time"</th>
                    <th scope="col">"mean"</th>
                    <th scope="col">"share of op time"</th>
                </tr>
            </thead>
            <tbody>{rows}</tbody>
        </table>
        </div>
    }
}

/// The viewer.
#[component]
pub fn TraceViewer(
    /// Unused; widgets all take the chapter's arguments.
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let _ = args;
    let shown = RwSignal::new(sample());
    let hlo = RwSignal::new(sample_hlo());
    let error = RwSignal::new(None::<String>);
    let reader = Reader::default();
    let on_pick = {
        let reader = reader.clone();
        move |ev: leptos::ev::Event| {
            if let Some(file) = picked(&ev) {
                open_file(file, &reader, shown, hlo, error);
            }
        }
    };
    let on_pick_hlo = move |ev: leptos::ev::Event| {
        if let Some(file) = picked(&ev) {
            open_hlo(file, hlo, error);
        }
    };
    let on_drop = move |ev: leptos::ev::DragEvent| {
        ev.prevent_default();
        if let Some(file) = ev
            .data_transfer()
            .and_then(|d| d.files())
            .and_then(|f| f.get(0))
        {
            open_file(file, &reader, shown, hlo, error);
        }
    };
    let chip = RwSignal::new(registry_chip(DEFAULT_CHIP).unwrap_or(&CHIPS[0]));
    let step = RwSignal::new(MatmulStep::SAMPLE_TRACE);
    let budget_error = RwSignal::new(None::<String>);
    let set_chip = move |_: &'static str, id: String| match super::controls::chip(&id) {
        Ok(c) => chip.set(c),
        Err(e) => budget_error.set(Some(e)),
    };
    let set_step = move |key: &'static str, value: String| {
        let Ok(x) = value.trim().parse::<f64>() else {
            budget_error.set(Some(format!("{key}: {value:?} is not a number")));
            return;
        };
        budget_error.set(None);
        step.update(|s| match key {
            "b" => s.b = x,
            "d" => s.d = x,
            "f" => s.f = x,
            "n" => s.matmuls = x,
            "devices" => s.devices = x,
            _ => s.bytes_per_element = x,
        });
    };
    let heavy = Memo::new(move |_| {
        shown.with(|s| {
            s.as_ref()
                .map(|s| {
                    hlo.with(|h| heavy_ops(&s.capture, h.as_ref().map(|h| h.costs.as_ref()), HEAVY))
                })
                .unwrap_or_default()
        })
    });
    let frame = Frame::new(CHART);
    let chart = move || heavy.with(|ops| roof_svg(ops, chip.get(), frame.get()));
    let placed = move || {
        let (peak, bw) = roofs(chip.get());
        heavy.with(|ops| ops.iter().filter(|o| o.on_roof(peak, bw).is_some()).count())
    };
    let hlo_note = move || {
        let source = hlo.with(|h| h.as_ref().map(|h| h.label.clone()));
        let costs = match source {
            Some(label) => format!("FLOPs and bytes from the trace's events where they carry them, else from {label}"),
            None => "FLOPs and bytes from the trace's events where they carry them (TPU traces do; open the program's HLO text for the rest)".to_string(),
        };
        format!(
            "The {} heaviest ops on {}'s bf16 roofline, {} placed: {costs}. Each dot is an op's FLOPs over its self time at its FLOPs per byte; its share is of the roof at that intensity.",
            heavy.with(Vec::len),
            chip.get().name,
            placed()
        )
    };
    let heavy_rows = move || {
        let c = chip.get();
        heavy.with(|ops| {
            ops.iter()
                .enumerate()
                .map(|(i, o)| heavy_row(i, o, c))
                .collect_view()
        })
    };
    let budget = move || {
        shown.with(|s| {
            s.as_ref()
                .map(|s| step.with(|st| budget_text(st, chip.get(), &s.capture)))
                .unwrap_or_default()
        })
    };
    let num = move |f: fn(&MatmulStep) -> f64| move || format!("{}", step.with(f));
    let hlo_picker = cfg!(target_arch = "wasm32").then(|| {
        view! {
            <p class="controls trace-pick">
                <label>
                    "Open its HLO text (compile().as_text(), .txt or .gz) "
                    <input type="file" accept=".txt,.hlo,.gz,text/plain" data-hlo-file="" on:change=on_pick_hlo />
                </label>
            </p>
        }
    });
    let on_dragover = |ev: leptos::ev::DragEvent| ev.prevent_default();
    // The static page has no file input: without the library bundle (or
    // without JavaScript) nothing could read the file.
    let picker = if cfg!(target_arch = "wasm32") {
        view! {
            <p class="controls trace-pick">
                <label>
                    "Open a trace (.json or .json.gz) "
                    <input type="file" accept=".json,.gz,application/json,application/gzip" data-trace-file="" on:change=on_pick />
                </label>
                " or drop it here. It is read in this page and sent nowhere."
            </p>
        }
        .into_any()
    } else {
        view! {
            <p class="trace-pick" data-trace-nojs="">
                "Opening your own trace file needs JavaScript: the page reads it in your browser and sends it nowhere. Below is a real trace captured with JAX."
            </p>
        }
        .into_any()
    };
    view! {
        <figure class="widget trace-viewer" data-widget="trace-viewer" on:drop=on_drop on:dragover=on_dragover>
            {picker}
            <p class="notice" role="status" data-trace-error="" hidden=move || error.get().is_none()>
                {move || error.get().unwrap_or_default()}
            </p>
            {move || shown.get().map(|s| capture_view(&s))}
            <h4 class="trace-roof-title">"The heavy ops on a roofline"</h4>
            <div class="controls">
                {super::controls::chip_picker("Chip ", |_| true, move || chip.get().id.to_string(), set_chip)}
            </div>
            {hlo_picker}
            <p data-roof-note="">{hlo_note}</p>
            <div class="plot" node_ref=frame.node style=frame.style()>
                <div class="layer" role="img" aria-label=move || format!("the trace's heaviest ops on the {} roofline", chip.get().name) inner_html=chart></div>
            </div>
            <div class="table-scroll" tabindex="0" role="region" aria-label="heavy ops against the roofline">
            <table class="trace-ops trace-roof" data-trace-roof="">
                <thead>
                    <tr>
                        <th scope="col">"#"</th>
                        <th scope="col">"op"</th>
                        <th scope="col">"FLOPs"</th>
                        <th scope="col">"bytes"</th>
                        <th scope="col">"from"</th>
                        <th scope="col">"achieved"</th>
                        <th scope="col">"FLOPs/byte"</th>
                        <th scope="col">"share of the roof"</th>
                    </tr>
                </thead>
                <tbody>{heavy_rows}</tbody>
            </table>
            </div>
            <h4 class="trace-roof-title">"The step against its budget"</h4>
            <p>"Name the step as matmuls [B, D] × [D, F], the batch B split over the devices and the weights whole on each:"</p>
            <div class="controls">
                {NumberField::new("b", "batch B over all devices", 7).label("B ").on_change().view(num(|s| s.b), set_step)}
                {NumberField::new("d", "contracted width D", 7).label("D ").on_change().view(num(|s| s.d), set_step)}
                {NumberField::new("f", "output width F", 7).label("F ").on_change().view(num(|s| s.f), set_step)}
                {NumberField::new("n", "matmuls per step", 4).label("matmuls ").on_change().view(num(|s| s.matmuls), set_step)}
                {NumberField::new("devices", "devices", 5).label("devices ").on_change().view(num(|s| s.devices), set_step)}
                {NumberField::new("bytes", "bytes per element", 3).label("bytes/element ").on_change().view(num(|s| s.bytes_per_element), set_step)}
            </div>
            <p class="notice" role="status" hidden=move || budget_error.get().is_none()>{move || budget_error.get().unwrap_or_default()}</p>
            <p class="verdict-line" data-budget="">{budget}</p>
            <figcaption>
                {format!(
                    "JAX's perfetto_trace.json.gz or PyTorch's Chrome trace, up to {} MiB of JSON: device lanes (XLA ops first, each step's start marked), steps, ops by self time, the heaviest on a chip's roofline, and the step against the roofline's budget (FLOPs over the peak plus bytes over HBM bandwidth).",
                    MAX_TRACE_BYTES >> 20
                )}
            </figcaption>
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_starts_are_one_path_with_each_position_once() {
        let mut c = sample().unwrap().capture.as_ref().clone();
        assert_eq!(step_marks(&c).matches('M').count(), 3);
        let first = c.steps[0].clone();
        c.steps.insert(0, first);
        assert_eq!(step_marks(&c).matches('M').count(), 3);
        c.steps.clear();
        assert_eq!(step_marks(&c), "");
    }

    #[test]
    fn the_sample_s_ops_sit_on_the_roofline_and_its_step_beside_its_budget() {
        let shown = sample().unwrap();
        let hlo = sample_hlo().unwrap();
        let ops = heavy_ops(&shown.capture, Some(hlo.costs.as_ref()), HEAVY);
        let v5e = registry_chip("v5e").unwrap();
        let (peak, bw) = roofs(v5e);
        assert!(ops.iter().all(|o| o.on_roof(peak, bw).is_some()));
        // Three dots, numbered as the table numbers them.
        let drawn = roof_svg(&ops, v5e, CHART.design());
        for n in ["1", "2", "3"] {
            assert!(drawn.contains(&format!(">\n{n}\n</text>")), "{n}");
        }
        // 2 × 2·64·512·512 FLOPs at 1.97e14 FLOP/s and 2,621,440 bytes at
        // 8.2e11 B/s: 0.341 + 3.197 = 3.538 µs, against the mean step of
        // 33,387.931 / 3 µs = 11.13 ms, 3,146 times longer.
        assert_eq!(
            budget_text(&MatmulStep::SAMPLE_TRACE, v5e, &shown.capture),
            "Budget on TPU v5e: 6.71e7 FLOPs per device at 197 TFLOP/s is 341 ns, plus 2.62 MB at 820 GB/s is 3.2 µs: 3.54 µs a step. The trace's mean step is 11.1 ms: 3150× the budget."
        );
        let bad = MatmulStep {
            matmuls: -1.0,
            ..MatmulStep::SAMPLE_TRACE
        };
        assert!(
            budget_text(&bad, v5e, &shown.capture).starts_with("No budget: the matmuls per step")
        );
    }
}
