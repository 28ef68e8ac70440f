//! A reader's own profile (`data-widget="trace-viewer"`, Part 9; library
//! bundle only): the reader drops or chooses the trace file that
//! `jax.profiler.trace(dir, create_perfetto_trace=True)` writes
//! (`perfetto_trace.json.gz`, gzipped or not) or PyTorch's profiler exports
//! (`export_chrome_trace`), and sees its device lanes (XLA ops first), its
//! steps and its ops by total self time. The file is read in the browser by
//! [`ridgeline_core::profiling::capture::read`] and sent nowhere; a file it
//! refuses is named with the reason, and the trace shown before stays.
//!
//! Until the reader opens one, the widget shows a real trace committed with
//! the repository (a sharded matmul on eight CPU devices, captured with JAX),
//! which is also what the static page shows.

use std::sync::Arc;

use leptos::prelude::*;
use ridgeline_core::format::{count, grouped, seconds};
use ridgeline_core::profiling::capture::{self, Capture, LaneKind, Refusal, MAX_TRACE_BYTES};

/// The sample trace shown until the reader opens one (see
/// `tests/data/traces/README.md`).
const SAMPLE: &[u8] = include_bytes!("../../../tests/data/traces/jax-sharded-matmul-8cpu.json.gz");

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

/// Reads `file` and shows it, or says why not.
fn open_file(file: web_sys::File, shown: RwSignal<Option<Shown>>, error: RwSignal<Option<String>>) {
    let name = file.name();
    let size = file.size();
    if size > MAX_TRACE_BYTES as f64 {
        error.set(Some(format!(
            "{name} was not opened: {}.",
            Refusal::TooLarge
        )));
        return;
    }
    error.set(Some(format!("reading {name}…")));
    let promise = file.array_buffer();
    wasm_bindgen_futures::spawn_local(async move {
        let Ok(buffer) = wasm_bindgen_futures::JsFuture::from(promise).await else {
            error.set(Some(format!("{name} could not be read.")));
            return;
        };
        let bytes = js_sys::Uint8Array::new(&buffer).to_vec();
        match capture::read(&bytes) {
            Ok(c) => {
                shown.set(Some(Shown {
                    label: format!("your file {name} ({} bytes)", grouped(size)),
                    capture: Arc::new(c),
                }));
                error.set(None);
            }
            Err(r) => error.set(Some(format!("{name} was not opened: {r}."))),
        }
    });
}

/// One lane: its name, its spans on the trace's time axis, step starts as lines.
fn lane_view(lane: &capture::Lane, c: &Capture) -> impl IntoView {
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
    let steps = c
        .steps
        .iter()
        .map(|s| {
            let x = format!("{:.2}", s.start / span * 1000.0);
            view! { <line class="trace-step" x1=x.clone() x2=x y1="0" y2="12" /> }
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
                {steps}
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
    let lanes = c
        .lanes
        .iter()
        .take(MAX_LANES)
        .map(|l| lane_view(l, c))
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
    let error = RwSignal::new(None::<String>);
    let on_pick = move |ev: leptos::ev::Event| {
        use wasm_bindgen::JsCast;
        let input = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok());
        if let Some(file) = input
            .as_ref()
            .and_then(|i| i.files())
            .and_then(|f| f.get(0))
        {
            open_file(file, shown, error);
        }
    };
    let on_drop = move |ev: leptos::ev::DragEvent| {
        ev.prevent_default();
        if let Some(file) = ev
            .data_transfer()
            .and_then(|d| d.files())
            .and_then(|f| f.get(0))
        {
            open_file(file, shown, error);
        }
    };
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
            <figcaption>
                {format!(
                    "JAX's perfetto_trace.json.gz or PyTorch's Chrome trace, up to {} MiB of JSON: device lanes (XLA ops first, each step's start marked), steps, and ops by self time.",
                    MAX_TRACE_BYTES >> 20
                )}
            </figcaption>
        </figure>
    }
}
