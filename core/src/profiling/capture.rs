//! A reader's own profile: the Chrome/Perfetto trace JSON that
//! `jax.profiler.trace(dir, create_perfetto_trace=True)` writes
//! (`perfetto_trace.json.gz`) or that PyTorch's profiler exports
//! (`export_chrome_trace`), read into device lanes, steps and an op table.
//!
//! [`read`] takes the file's bytes as they are (gzip is recognised by its
//! magic bytes and inflated here, never more than [`MAX_TRACE_BYTES`]), and
//! either returns a [`Capture`] or a [`Refusal`] that says what is wrong.
//!
//! What counts as an *op*: an event that names its HLO instruction
//! (`args.hlo_op`, as JAX's CPU and GPU runtimes write), an event on a
//! thread named `XLA Ops` (TPU traces), or a PyTorch GPU kernel, copy or set
//! (`cat` `kernel`, `gpu_memcpy`, `gpu_memset`); a PyTorch trace without any
//! GPU work falls back to its `cpu_op` events. An op's *self time* is its
//! duration less the ops nested inside it on the same thread. Steps are the
//! events that carry a `step_num` argument (`jax.profiler.StepTraceAnnotation`)
//! or are named `ProfilerStep#N` (PyTorch's `profiler.step()`), or sit on a
//! `Steps` thread.
//!
//! ```
//! use ridgeline_core::profiling::capture::{read, Refusal};
//! let trace = br#"{"traceEvents": [
//!   {"ph": "X", "pid": 1, "tid": 2, "ts": 0, "dur": 10, "name": "fusion.1",
//!    "args": {"hlo_op": "fusion.1", "device_ordinal": "0"}},
//!   {"ph": "X", "pid": 1, "tid": 2, "ts": 10, "dur": 30, "name": "dot.2",
//!    "args": {"hlo_op": "dot.2", "device_ordinal": "0"}}]}"#;
//! let c = read(trace).unwrap();
//! assert_eq!(c.ops[0].name, "dot.2");
//! assert!((c.ops[0].share - 0.75).abs() < 1e-12);
//! assert_eq!(c.lanes[0].name, "device 0 · XLA Ops");
//! assert!(matches!(read(b"not json"), Err(Refusal::NotJson(_))));
//! ```

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;

use serde::{Deserialize, Serialize};

/// The largest trace read, in bytes of JSON (after inflating a gzipped
/// file): 64 MiB. Inflating stops as soon as the output would pass it.
pub const MAX_TRACE_BYTES: usize = 64 << 20;

/// The most events a trace may hold.
pub const MAX_EVENTS: usize = 1_000_000;

/// The longest duration taken as real, in µs (about eleven days); an event
/// longer, or negative, is skipped and counted in [`Capture::skipped`].
pub const MAX_DUR_US: f64 = 1e12;

/// The latest timestamp taken as real, in µs (past three thousand years from
/// the Unix epoch: PyTorch writes times from the epoch).
pub const MAX_TS_US: f64 = 1e17;

/// The most spans each lane keeps for drawing (the first in time); its
/// totals count every event.
pub const MAX_SPANS_PER_LANE: usize = 4000;

/// Why a file is not read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Refusal {
    /// The file (or what it inflates to) is larger than [`MAX_TRACE_BYTES`].
    TooLarge,
    /// A gzip file that ends early or is corrupt.
    BadGzip,
    /// Not JSON; serde_json's message (with line and column).
    NotJson(String),
    /// JSON, but neither `{"traceEvents": [...]}` nor an array of events.
    NotATrace,
    /// More events than [`MAX_EVENTS`].
    TooManyEvents(usize),
    /// A trace with no complete (`"ph": "X"`) event of sane time.
    NoEvents,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::TooLarge => write!(
                f,
                "the trace is larger than {} MiB of JSON (after inflating); capture fewer steps",
                MAX_TRACE_BYTES >> 20
            ),
            Refusal::BadGzip => write!(f, "the gzip file is truncated or corrupt"),
            Refusal::NotJson(e) => write!(f, "not a JSON file ({e})"),
            Refusal::NotATrace => write!(
                f,
                "JSON, but not a trace: expected {{\"traceEvents\": [...]}} or an array of events"
            ),
            Refusal::TooManyEvents(n) => {
                write!(f, "{n} events, more than the {MAX_EVENTS} read here")
            }
            Refusal::NoEvents => write!(f, "the trace holds no complete event (\"ph\": \"X\")"),
        }
    }
}

/// Which profiler wrote the trace, as far as its contents tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Source {
    /// JAX/XLA (`jax.profiler.trace`): HLO ops, `/host:` or `/device:` processes.
    Xla,
    /// PyTorch's profiler (`schemaVersion`, `cpu_op`, `kernel` events).
    PyTorch,
    /// Some other Chrome trace.
    Chrome,
}

impl Source {
    /// A name for the reader.
    pub fn label(self) -> &'static str {
        match self {
            Source::Xla => "JAX / XLA",
            Source::PyTorch => "PyTorch",
            Source::Chrome => "Chrome trace",
        }
    }
}

/// What a lane shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum LaneKind {
    /// The ops one device ran (XLA ops, GPU kernels).
    Ops,
    /// Another lane of a device process (steps, modules).
    Device,
    /// A host thread.
    Host,
}

/// One drawn interval of a lane.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Span {
    /// Start, µs from the trace's first event.
    pub start: f64,
    /// Duration, µs.
    pub dur: f64,
    /// Index into [`Capture::names`].
    pub name: usize,
}

/// One lane: a device's ops, or one thread.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Lane {
    /// `device 0 · XLA Ops`, `/device:TPU:0 · Steps`, `/host:CPU · python`.
    pub name: String,
    /// What it shows.
    pub kind: LaneKind,
    /// Its events (all of them, drawn or not).
    pub events: usize,
    /// Time covered by its outermost events, µs.
    pub busy: f64,
    /// Its first [`MAX_SPANS_PER_LANE`] events in time.
    pub spans: Vec<Span>,
}

/// One row of the op table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OpRow {
    /// The op's name (`fusion.3`, `aten::mm`, a kernel's name).
    pub name: String,
    /// How many times it ran, over every device.
    pub count: usize,
    /// Total self time, µs.
    pub self_us: f64,
    /// Total duration, µs (self time plus nested ops).
    pub total_us: f64,
    /// Its share of all ops' self time, in [0, 1].
    pub share: f64,
    /// FLOPs over all its runs, when every run's event carried them
    /// (`model_flops`, else `flops`, in its `args`).
    pub flops: Option<f64>,
    /// Bytes over all its runs, when every run's event carried them (`bytes_accessed`).
    pub bytes: Option<f64>,
    /// The HLO module its runs name (`args.hlo_module`), when they all name the same one.
    pub module: Option<String>,
}

/// One step (a `StepTraceAnnotation`, a `ProfilerStep#N`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// Its name and number as the trace gives them (`train 0`, `ProfilerStep#3`).
    pub name: String,
    /// Start, µs from the trace's first event.
    pub start: f64,
    /// Duration, µs.
    pub dur: f64,
}

/// A trace read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Capture {
    /// Which profiler wrote it.
    pub source: Source,
    /// Lanes: devices' ops first (by device), then other device lanes, then host threads.
    pub lanes: Vec<Lane>,
    /// Ops by total self time, longest first.
    pub ops: Vec<OpRow>,
    /// The sum of every op's self time, µs.
    pub op_self_us: f64,
    /// Steps, in time order.
    pub steps: Vec<Step>,
    /// From the first event's start to the last one's end, µs.
    pub span_us: f64,
    /// Complete events read.
    pub events: usize,
    /// Events skipped for absurd times (negative, not finite, past [`MAX_TS_US`], [`MAX_DUR_US`]).
    pub skipped: usize,
    /// The span names (spans refer to them by index).
    pub names: Vec<String>,
}

impl Capture {
    /// The mean step duration, µs, if the trace marks steps.
    pub fn mean_step_us(&self) -> Option<f64> {
        (!self.steps.is_empty())
            .then(|| self.steps.iter().map(|s| s.dur).sum::<f64>() / self.steps.len() as f64)
    }

    /// How busy the op lanes were over the steps: every op's self time over
    /// (op lanes × the steps' total time), or `None` without steps or ops.
    /// Ops outside the steps count too, so a trace that marks only some of
    /// its steps reads high.
    pub fn op_busy_fraction(&self) -> Option<f64> {
        let lanes = self
            .lanes
            .iter()
            .filter(|l| l.kind == LaneKind::Ops)
            .count();
        let steps: f64 = self.steps.iter().map(|s| s.dur).sum();
        (lanes > 0 && steps > 0.0).then(|| self.op_self_us / (lanes as f64 * steps))
    }
}

#[derive(Deserialize)]
struct Doc<'a> {
    #[serde(rename = "traceEvents", borrow)]
    trace_events: Option<Vec<Event<'a>>>,
    #[serde(rename = "schemaVersion")]
    schema_version: Option<serde::de::IgnoredAny>,
}

/// One event as read: strings borrowed from the file where they hold no
/// escapes, the fields not used skipped unread.
#[derive(Deserialize)]
struct Event<'a> {
    #[serde(default, borrow)]
    ph: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    cat: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pid: Option<Scalar<'a>>,
    #[serde(default, borrow)]
    tid: Option<Scalar<'a>>,
    #[serde(default, borrow)]
    ts: Option<Scalar<'a>>,
    #[serde(default, borrow)]
    dur: Option<Scalar<'a>>,
    #[serde(default, borrow)]
    args: Option<Box<Args<'a>>>,
}

#[derive(Deserialize)]
struct Args<'a> {
    #[serde(default)]
    hlo_op: Option<serde::de::IgnoredAny>,
    #[serde(default, borrow)]
    device_ordinal: Option<Scalar<'a>>,
    #[serde(default, borrow)]
    step_num: Option<Scalar<'a>>,
    #[serde(default, borrow)]
    device: Option<Scalar<'a>>,
    #[serde(default, borrow)]
    stream: Option<Scalar<'a>>,
    #[serde(default, borrow)]
    name: Option<Scalar<'a>>,
    #[serde(default, borrow)]
    hlo_module: Option<Scalar<'a>>,
    #[serde(default, borrow)]
    model_flops: Option<Scalar<'a>>,
    #[serde(default, borrow)]
    flops: Option<Scalar<'a>>,
    #[serde(default, borrow)]
    bytes_accessed: Option<Scalar<'a>>,
}

/// A JSON value read where the trace gives text or a number (ids, times,
/// arguments): a string stays borrowed from the file when it can, and an
/// object or array is skipped without building it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Scalar<'a> {
    Num(serde_json::Number),
    Str(Cow<'a, str>),
    Bool(bool),
    /// An object or an array.
    Other,
}

impl<'de: 'a, 'a> Deserialize<'de> for Scalar<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::{IgnoredAny, MapAccess, SeqAccess, Visitor};
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Scalar<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_bool<E>(self, v: bool) -> Result<Scalar<'a>, E> {
                Ok(Scalar::Bool(v))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Scalar<'a>, E> {
                Ok(Scalar::Num(v.into()))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Scalar<'a>, E> {
                Ok(Scalar::Num(v.into()))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Scalar<'a>, E> {
                Ok(serde_json::Number::from_f64(v).map_or(Scalar::Other, Scalar::Num))
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Scalar<'a>, E> {
                Ok(Scalar::Str(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Scalar<'a>, E> {
                Ok(Scalar::Str(Cow::Owned(v.to_string())))
            }
            fn visit_string<E>(self, v: String) -> Result<Scalar<'a>, E> {
                Ok(Scalar::Str(Cow::Owned(v)))
            }
            fn visit_unit<E>(self) -> Result<Scalar<'a>, E> {
                Ok(Scalar::Other)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Scalar<'a>, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Scalar::Other)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Scalar<'a>, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Scalar::Other)
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// `v` as text: a string as it is, a number or a boolean as JSON prints it
/// (an object or an array reads as nothing).
fn text<'s>(v: &'s Scalar) -> Cow<'s, str> {
    match v {
        Scalar::Str(s) => Cow::Borrowed(s),
        Scalar::Num(n) => Cow::Owned(n.to_string()),
        Scalar::Bool(b) => Cow::Borrowed(if *b { "true" } else { "false" }),
        Scalar::Other => Cow::Borrowed(""),
    }
}

/// `v` as a number: a JSON number, or a string holding one.
fn number(v: &Scalar) -> Option<f64> {
    match v {
        Scalar::Num(n) => n.as_f64(),
        Scalar::Str(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// The JSON text of `bytes`: inflated if it is gzip, refused past [`MAX_TRACE_BYTES`].
pub fn json_bytes(bytes: &[u8]) -> Result<Cow<'_, [u8]>, Refusal> {
    if bytes.len() > MAX_TRACE_BYTES {
        return Err(Refusal::TooLarge);
    }
    if bytes.starts_with(&[0x1f, 0x8b]) {
        return gunzip(bytes).map(Cow::Owned);
    }
    Ok(Cow::Borrowed(bytes))
}

/// Inflates a gzip member (RFC 1952), stopping at [`MAX_TRACE_BYTES`] of output.
fn gunzip(bytes: &[u8]) -> Result<Vec<u8>, Refusal> {
    use miniz_oxide::inflate::{decompress_to_vec_with_limit, TINFLStatus};
    if bytes.len() < 18 || bytes[2] != 8 {
        return Err(Refusal::BadGzip);
    }
    let flags = bytes[3];
    let mut at = 10usize;
    if flags & 4 != 0 {
        let extra = usize::from(*bytes.get(at).ok_or(Refusal::BadGzip)?)
            | usize::from(*bytes.get(at + 1).ok_or(Refusal::BadGzip)?) << 8;
        at += 2 + extra;
    }
    for bit in [8u8, 16] {
        if flags & bit != 0 {
            let end = bytes
                .get(at..)
                .and_then(|rest| rest.iter().position(|&b| b == 0))
                .ok_or(Refusal::BadGzip)?;
            at += end + 1;
        }
    }
    if flags & 2 != 0 {
        at += 2;
    }
    let body = bytes.get(at..).ok_or(Refusal::BadGzip)?;
    match decompress_to_vec_with_limit(body, MAX_TRACE_BYTES) {
        Ok(out) => Ok(out),
        Err(e) if e.status == TINFLStatus::HasMoreOutput => Err(Refusal::TooLarge),
        Err(_) => Err(Refusal::BadGzip),
    }
}

/// One complete event kept for aggregation.
struct Kept {
    ts: f64,
    dur: f64,
    thread: usize,
    name: usize,
    lane: usize,
    op: bool,
    /// FLOPs and bytes the event carries (NaN when it carries none).
    flops: f64,
    bytes: f64,
    /// Index into the module names, for an op naming its HLO module.
    module: Option<usize>,
}

/// Per op name: runs, self time, total time, FLOPs and bytes summed with
/// how many runs carried each, and the one module its runs name.
#[derive(Default)]
struct OpSum {
    count: usize,
    self_us: f64,
    total_us: f64,
    flops: (f64, usize),
    bytes: (f64, usize),
    module: Option<Option<usize>>,
}

/// [`read`]'s answer for `bytes` as JSON text, for a worker that reads a
/// trace off the page's thread to hand back (the summary, far smaller than
/// the file); [`from_reply`] reads it back.
pub fn reply(bytes: &[u8]) -> String {
    // Plain data with string keys always serialises.
    serde_json::to_string(&read(bytes)).unwrap_or_default()
}

/// A [`reply`] read back, or `None` if `text` is not one.
pub fn from_reply(text: &str) -> Option<Result<Capture, Refusal>> {
    serde_json::from_str(text).ok()
}

/// What decides an event's lane: its thread and the kind of event it is,
/// with the arguments that name its device (and stream).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum LaneKey<'e, 'a> {
    /// An op naming its HLO instruction, with its `device_ordinal`.
    Hlo(usize, Option<&'e Scalar<'a>>),
    /// An event on a thread named `XLA Ops`.
    XlaOps(usize),
    /// A GPU kernel, copy or set, with its `device` and `stream`.
    Gpu(usize, Option<&'e Scalar<'a>>, Option<&'e Scalar<'a>>),
    /// A PyTorch CPU op of a trace without GPU work.
    CpuOps(usize),
    /// Any other event: its thread's lane.
    Thread(usize),
}

/// The name and kind of the lane `key` puts an event in, on the thread of
/// process `pname` named `tname`.
fn lane_of(key: LaneKey, pname: &str, tname: &str) -> (String, LaneKind) {
    match key {
        LaneKey::Hlo(_, device) => {
            let device =
                device.map_or_else(|| pname.to_string(), |d| format!("device {}", text(d)));
            (format!("{device} · XLA Ops"), LaneKind::Ops)
        }
        LaneKey::XlaOps(_) => (format!("{pname} · XLA Ops"), LaneKind::Ops),
        LaneKey::Gpu(_, device, stream) => {
            let device = device.map_or(Cow::Borrowed(pname), text);
            let stream = stream.map_or(Cow::Borrowed(tname), text);
            (format!("GPU {device} · stream {stream}"), LaneKind::Ops)
        }
        LaneKey::CpuOps(_) => (format!("{pname} · {tname} · ops"), LaneKind::Ops),
        LaneKey::Thread(_) if pname.starts_with("/device:") => {
            (format!("{pname} · {tname}"), LaneKind::Device)
        }
        LaneKey::Thread(_) => (format!("{pname} · {tname}"), LaneKind::Host),
    }
}

/// Reads a trace file's bytes (gzipped or not).
pub fn read(bytes: &[u8]) -> Result<Capture, Refusal> {
    let json = json_bytes(bytes)?;
    let first = json.iter().find(|b| !b.is_ascii_whitespace()).copied();
    let (events, pytorch_doc) = match first {
        Some(b'[') => (
            serde_json::from_slice::<Vec<Event>>(&json)
                .map_err(|e| Refusal::NotJson(e.to_string()))?,
            false,
        ),
        Some(b'{') => {
            let doc: Doc = serde_json::from_slice(&json).map_err(|e| {
                if e.is_data() {
                    Refusal::NotATrace
                } else {
                    Refusal::NotJson(e.to_string())
                }
            })?;
            let events = doc.trace_events.ok_or(Refusal::NotATrace)?;
            (events, doc.schema_version.is_some())
        }
        _ => {
            return Err(
                match serde_json::from_slice::<serde::de::IgnoredAny>(&json) {
                    Ok(_) => Refusal::NotATrace,
                    Err(e) => Refusal::NotJson(e.to_string()),
                },
            )
        }
    };
    if events.len() > MAX_EVENTS {
        return Err(Refusal::TooManyEvents(events.len()));
    }
    build(&events, pytorch_doc)
}

fn build(events: &[Event], pytorch_doc: bool) -> Result<Capture, Refusal> {
    // Names of processes and threads from the metadata events.
    let mut process: HashMap<String, String> = HashMap::new();
    let mut thread: HashMap<(String, String), String> = HashMap::new();
    let mut has_hlo = false;
    let mut has_gpu = false;
    let mut pytorch = pytorch_doc;
    for e in events {
        if e.ph.as_deref() == Some("M") {
            let arg_name = e.args.as_ref().and_then(|a| a.name.as_ref());
            if let (Some(kind @ ("process_name" | "thread_name")), Some(n)) =
                (e.name.as_deref(), arg_name)
            {
                let pid = e.pid.as_ref().map(text).unwrap_or_default().into_owned();
                let n = text(n).into_owned();
                if kind == "process_name" {
                    process.insert(pid, n);
                } else {
                    let tid = e.tid.as_ref().map(text).unwrap_or_default().into_owned();
                    thread.insert((pid, tid), n);
                }
            }
        }
        if e.args.as_ref().is_some_and(|a| a.hlo_op.is_some()) {
            has_hlo = true;
        }
        match e.cat.as_deref() {
            Some("kernel" | "gpu_memcpy" | "gpu_memset") => {
                has_gpu = true;
                pytorch = true;
            }
            Some("cpu_op" | "python_function" | "user_annotation" | "cuda_runtime") => {
                pytorch = true
            }
            _ => {}
        }
    }
    let xla_ops_thread = thread.values().any(|n| n == "XLA Ops");
    let source = if has_hlo
        || xla_ops_thread
        || process
            .values()
            .any(|p| p.starts_with("/host:") || p.starts_with("/device:"))
    {
        Source::Xla
    } else if pytorch {
        Source::PyTorch
    } else {
        Source::Chrome
    };
    let cpu_ops_are_ops = source == Source::PyTorch && !has_gpu;

    let mut names: Vec<String> = Vec::new();
    let mut name_ix: HashMap<&str, usize> = HashMap::new();
    let mut lanes: Vec<(String, LaneKind, f64)> = Vec::new();
    let mut lane_ix: HashMap<String, usize> = HashMap::new();
    // What an event's lane depends on (see `lane_of` below), to the lane.
    let mut lane_memo: HashMap<LaneKey, usize> = HashMap::new();
    // Threads by their (pid, tid) text, in order of first use, with their
    // process's name and their own; and by the values as written, to the same.
    let mut threads: HashMap<(String, String), usize> = HashMap::new();
    let mut thread_names: Vec<(String, String)> = Vec::new();
    let mut thread_memo: HashMap<(Option<&Scalar>, Option<&Scalar>), usize> = HashMap::new();
    let mut steps_by_thread: HashMap<usize, Vec<(String, f64, f64)>> = HashMap::new();
    let mut kept: Vec<Kept> = Vec::new();
    let mut modules: Vec<String> = Vec::new();
    let mut module_ix: HashMap<Cow<str>, usize> = HashMap::new();
    let mut skipped = 0usize;

    for e in events {
        if e.ph.as_deref() != Some("X") {
            continue;
        }
        let ts = e.ts.as_ref().and_then(number);
        let dur = e.dur.as_ref().and_then(number).unwrap_or(0.0);
        let Some(ts) = ts.filter(|t| t.is_finite() && t.abs() <= MAX_TS_US) else {
            skipped += 1;
            continue;
        };
        if !(dur.is_finite() && (0.0..=MAX_DUR_US).contains(&dur)) {
            skipped += 1;
            continue;
        }
        let thread_id = *thread_memo
            .entry((e.pid.as_ref(), e.tid.as_ref()))
            .or_insert_with(|| {
                let pid = e.pid.as_ref().map(text).unwrap_or_default().into_owned();
                let tid = e.tid.as_ref().map(text).unwrap_or_default().into_owned();
                let key = (pid, tid);
                let next = threads.len();
                *threads.entry(key.clone()).or_insert_with(|| {
                    let pname = process
                        .get(&key.0)
                        .cloned()
                        .unwrap_or_else(|| key.0.clone());
                    let tname = thread.get(&key).cloned().unwrap_or_else(|| key.1.clone());
                    thread_names.push((pname, tname));
                    next
                })
            });
        let (pname, tname) = &thread_names[thread_id];
        let args = e.args.as_deref();
        let cat = e.cat.as_deref().unwrap_or("");
        let name = e.name.as_deref().unwrap_or("(unnamed)");

        let step = args.and_then(|a| a.step_num.as_ref()).map(text);
        if step.is_some() || name.starts_with("ProfilerStep#") || tname == "Steps" {
            let label = match step {
                Some(n) if !name.ends_with(&*n) => format!("{name} {n}"),
                _ => name.to_string(),
            };
            steps_by_thread
                .entry(thread_id)
                .or_default()
                .push((label, ts, dur));
        }

        let key = if args.is_some_and(|a| a.hlo_op.is_some()) {
            LaneKey::Hlo(thread_id, args.and_then(|a| a.device_ordinal.as_ref()))
        } else if tname == "XLA Ops" {
            LaneKey::XlaOps(thread_id)
        } else if matches!(cat, "kernel" | "gpu_memcpy" | "gpu_memset") {
            LaneKey::Gpu(
                thread_id,
                args.and_then(|a| a.device.as_ref()),
                args.and_then(|a| a.stream.as_ref()),
            )
        } else if cpu_ops_are_ops && cat == "cpu_op" {
            LaneKey::CpuOps(thread_id)
        } else {
            LaneKey::Thread(thread_id)
        };
        let op = !matches!(key, LaneKey::Thread(_));
        let lane = *lane_memo.entry(key).or_insert_with(|| {
            let (lane, kind) = lane_of(key, pname, tname);
            let next = lanes.len();
            *lane_ix.entry(lane.clone()).or_insert_with(|| {
                lanes.push((lane, kind, 0.0));
                next
            })
        });
        let next = names.len();
        let name = *name_ix.entry(name).or_insert_with(|| {
            names.push(name.to_string());
            next
        });
        let arg_number =
            |v: Option<&Scalar>| v.and_then(number).filter(|x| x.is_finite() && *x >= 0.0);
        let flops = args
            .and_then(|a| {
                arg_number(a.model_flops.as_ref()).or_else(|| arg_number(a.flops.as_ref()))
            })
            .unwrap_or(f64::NAN);
        let bytes = args
            .and_then(|a| arg_number(a.bytes_accessed.as_ref()))
            .unwrap_or(f64::NAN);
        let module = args
            .and_then(|a| a.hlo_module.as_ref())
            .filter(|_| op)
            .map(|m| {
                let next = modules.len();
                *module_ix.entry(text(m)).or_insert_with_key(|m| {
                    modules.push(m.to_string());
                    next
                })
            });
        kept.push(Kept {
            ts,
            dur,
            thread: thread_id,
            name,
            lane,
            op,
            flops,
            bytes,
            module,
        });
    }
    if kept.is_empty() {
        return Err(Refusal::NoEvents);
    }
    let t0 = kept.iter().map(|k| k.ts).fold(f64::INFINITY, f64::min);
    let t1 = kept
        .iter()
        .map(|k| k.ts + k.dur)
        .fold(f64::NEG_INFINITY, f64::max);

    // In time order (a longer event first when two start together, so that
    // it encloses the shorter).
    kept.sort_by(|a, b| a.ts.total_cmp(&b.ts).then(b.dur.total_cmp(&a.dur)));

    // Self time of ops: each op less the ops nested in it on its thread.
    let mut self_time: Vec<f64> = kept.iter().map(|k| k.dur).collect();
    let mut open: HashMap<usize, Vec<usize>> = HashMap::new();
    for (i, k) in kept.iter().enumerate().filter(|(_, k)| k.op) {
        let stack = open.entry(k.thread).or_default();
        while let Some(&top) = stack.last() {
            if kept[top].ts + kept[top].dur <= k.ts {
                stack.pop();
            } else {
                break;
            }
        }
        if let Some(&parent) = stack.last() {
            self_time[parent] -= k.dur.min(kept[parent].dur);
        }
        stack.push(i);
    }

    // Lanes: spans and busy time (outermost events).
    let mut lane_spans: Vec<Vec<Span>> = vec![Vec::new(); lanes.len()];
    let mut lane_events = vec![0usize; lanes.len()];
    let mut lane_end = vec![f64::NEG_INFINITY; lanes.len()];
    let mut ops: HashMap<usize, OpSum> = HashMap::new();
    for (i, k) in kept.iter().enumerate() {
        lane_events[k.lane] += 1;
        let end = k.ts + k.dur;
        let busy = &mut lanes[k.lane].2;
        if end > lane_end[k.lane] {
            *busy += end - k.ts.max(lane_end[k.lane]);
            lane_end[k.lane] = end;
        }
        if lane_spans[k.lane].len() < MAX_SPANS_PER_LANE {
            lane_spans[k.lane].push(Span {
                start: k.ts - t0,
                dur: k.dur,
                name: k.name,
            });
        }
        if k.op {
            let row = ops.entry(k.name).or_default();
            row.count += 1;
            row.self_us += self_time[i].max(0.0);
            row.total_us += k.dur;
            for (sum, x) in [(&mut row.flops, k.flops), (&mut row.bytes, k.bytes)] {
                if !x.is_nan() {
                    sum.0 += x;
                    sum.1 += 1;
                }
            }
            row.module = match row.module {
                None => Some(k.module),
                Some(m) if m == k.module => Some(m),
                Some(_) => Some(None),
            };
        }
    }
    let op_self_us: f64 = ops.values().map(|r| r.self_us).sum();
    let mut ops: Vec<OpRow> = ops
        .into_iter()
        .map(|(name, r)| OpRow {
            name: names[name].clone(),
            count: r.count,
            self_us: r.self_us,
            total_us: r.total_us,
            share: if op_self_us > 0.0 {
                r.self_us / op_self_us
            } else {
                0.0
            },
            flops: (r.flops.1 == r.count).then_some(r.flops.0),
            bytes: (r.bytes.1 == r.count).then_some(r.bytes.0),
            module: r.module.flatten().map(|m| modules[m].clone()),
        })
        .collect();
    ops.sort_by(|a, b| b.self_us.total_cmp(&a.self_us).then(a.name.cmp(&b.name)));

    let mut lanes: Vec<Lane> = lanes
        .into_iter()
        .zip(lane_spans)
        .zip(lane_events)
        .map(|(((name, kind, busy), spans), events)| Lane {
            name,
            kind,
            events,
            busy,
            spans,
        })
        .collect();
    lanes.sort_by(|a, b| a.kind.cmp(&b.kind).then(natural(&a.name, &b.name)));

    // Steps from the first thread that marks any (a TPU trace has one
    // `Steps` lane per device).
    let mut steps: Vec<Step> = steps_by_thread
        .into_iter()
        .min_by(|a, b| {
            let first =
                |v: &Vec<(String, f64, f64)>| v.iter().map(|s| s.1).fold(f64::INFINITY, f64::min);
            first(&a.1).total_cmp(&first(&b.1)).then(a.0.cmp(&b.0))
        })
        .map(|(_, v)| {
            v.into_iter()
                .map(|(name, ts, dur)| Step {
                    name,
                    start: ts - t0,
                    dur,
                })
                .collect()
        })
        .unwrap_or_default();
    steps.sort_by(|a, b| a.start.total_cmp(&b.start));

    Ok(Capture {
        source,
        lanes,
        ops,
        op_self_us,
        steps,
        span_us: t1 - t0,
        events: kept.len(),
        skipped,
        names,
    })
}

/// Compares names with their digit runs as numbers (`device 2` before `device 10`).
fn natural(a: &str, b: &str) -> std::cmp::Ordering {
    fn key(s: &str) -> Vec<(String, u64)> {
        let mut out = Vec::new();
        let mut word = String::new();
        let mut digits = String::new();
        for c in s.chars() {
            if c.is_ascii_digit() {
                digits.push(c);
            } else {
                if !digits.is_empty() {
                    out.push((
                        std::mem::take(&mut word),
                        digits.parse().unwrap_or(u64::MAX),
                    ));
                    digits.clear();
                }
                word.push(c);
            }
        }
        out.push((word, digits.parse().unwrap_or(0)));
        out
    }
    key(a).cmp(&key(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    const JAX: &[u8] = include_bytes!("../../../tests/data/traces/jax-sharded-matmul-8cpu.json.gz");
    const TORCH: &[u8] = include_bytes!("../../../tests/data/traces/pytorch-mlp-minimal.json");

    #[test]
    fn a_real_jax_trace_of_a_sharded_matmul_on_eight_cpu_devices() {
        let c = read(JAX).unwrap();
        assert_eq!(c.source, Source::Xla);
        assert_eq!(c.skipped, 0);
        // Eight devices' XLA Ops lanes come first, in device order.
        let ops_lanes: Vec<&str> = c
            .lanes
            .iter()
            .take_while(|l| l.kind == LaneKind::Ops)
            .map(|l| l.name.as_str())
            .collect();
        assert_eq!(
            ops_lanes,
            (0..8)
                .map(|d| format!("device {d} · XLA Ops"))
                .collect::<Vec<_>>()
        );
        // Three ops, each run once per device per step (8 × 3).
        let names: Vec<&str> = c.ops.iter().map(|o| o.name.as_str()).collect();
        assert_eq!(names, FIXTURE_OPS);
        assert!(c.ops.iter().all(|o| o.count == 24));
        for (row, (want_us, want_share)) in c.ops.iter().zip(FIXTURE_SELF) {
            assert!(
                (row.self_us - want_us).abs() < 1e-6,
                "{}: {}",
                row.name,
                row.self_us
            );
            assert!(
                (row.share - want_share).abs() < 1e-6,
                "{}: {}",
                row.name,
                row.share
            );
        }
        assert_eq!(c.steps.len(), 3);
        assert_eq!(c.steps[0].name, "train 0");
        assert!((c.steps[0].dur - FIXTURE_STEP0_US).abs() < 1e-6);
        // 108,638.107 µs of ops over 8 lanes × 33,387.931 µs of steps.
        let busy = c.op_busy_fraction().unwrap();
        assert!(
            (busy - 108_638.107 / (8.0 * 33_387.931)).abs() < 1e-9,
            "{busy}"
        );
    }

    #[test]
    fn a_pytorch_chrome_trace() {
        let c = read(TORCH).unwrap();
        assert_eq!(c.source, Source::PyTorch);
        assert_eq!(c.lanes[0].name, "GPU 0 · stream 7");
        assert_eq!(c.lanes[0].kind, LaneKind::Ops);
        let top: Vec<(&str, usize)> = c.ops.iter().map(|o| (o.name.as_str(), o.count)).collect();
        assert_eq!(top, TORCH_OPS);
        assert!((c.op_self_us - TORCH_OP_US).abs() < 1e-9);
        assert_eq!(c.steps.len(), 2);
        assert_eq!(c.steps[1].name, "ProfilerStep#1");
    }

    const TRANSFORMER: &[u8] =
        include_bytes!("../../../tests/data/traces/jax-transformer-8cpu.json.gz");
    const TORCH_CPU: &[u8] = include_bytes!("../../../tests/data/traces/pytorch-mlp-cpu.json.gz");

    #[test]
    fn a_real_jax_trace_of_a_transformer_step_on_eight_cpu_devices() {
        let c = read(TRANSFORMER).unwrap();
        assert_eq!(c.source, Source::Xla);
        assert_eq!(c.events, 15_245);
        let op_lanes = c.lanes.iter().filter(|l| l.kind == LaneKind::Ops).count();
        assert_eq!(op_lanes, 8);
        assert_eq!(c.lanes[0].name, "device 0 · XLA Ops");
        // 3,648 op events of 152 instructions, each run 24 times.
        assert_eq!(c.ops.len(), 152);
        assert!(c.ops.iter().all(|o| o.count == 24));
        assert!(
            (c.op_self_us - 2_408_445.494).abs() < 1e-3,
            "{}",
            c.op_self_us
        );
        let top: Vec<(&str, f64)> = c
            .ops
            .iter()
            .take(3)
            .map(|o| (o.name.as_str(), o.self_us))
            .collect();
        for ((name, us), (want, want_us)) in top.iter().zip(TRANSFORMER_TOP) {
            assert_eq!(name, &want);
            assert!((us - want_us).abs() < 1e-6, "{name}: {us}");
        }
        // Every op names the module it ran in; none carries FLOPs or bytes on the CPU.
        assert_eq!(c.ops[0].module.as_deref(), Some("jit_step"));
        assert!(c.ops.iter().all(|o| o.flops.is_none() && o.bytes.is_none()));
        let steps: Vec<(&str, f64)> = c.steps.iter().map(|s| (s.name.as_str(), s.dur)).collect();
        assert_eq!(
            steps,
            [
                ("train 0", 137_767.335),
                ("train 1", 107_512.42),
                ("train 2", 122_336.847)
            ]
        );
    }

    #[test]
    fn a_real_pytorch_cpu_trace() {
        let c = read(TORCH_CPU).unwrap();
        assert_eq!(c.source, Source::PyTorch);
        // No GPU: the host's cpu_op events are the ops, nested ones counted once.
        assert_eq!(c.lanes[0].kind, LaneKind::Ops);
        assert_eq!(c.ops.len(), 42);
        assert!((c.op_self_us - 160_990.89).abs() < 1e-3, "{}", c.op_self_us);
        let top: Vec<(&str, usize)> = c
            .ops
            .iter()
            .take(2)
            .map(|o| (o.name.as_str(), o.count))
            .collect();
        assert_eq!(top, [("aten::mm", 9), ("aten::addmm", 6)]);
        assert!(
            (c.ops[0].self_us - 64_320.5).abs() < 1e-6,
            "{}",
            c.ops[0].self_us
        );
        let steps: Vec<&str> = c.steps.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            steps,
            ["ProfilerStep#1", "ProfilerStep#2", "ProfilerStep#3"]
        );
    }

    const TRANSFORMER_TOP: [(&str, f64); 3] = [
        ("all-reduce.10", 861_647.184),
        ("ynn_fusion.18", 129_198.996),
        ("ynn_fusion.36", 100_435.703),
    ];

    // Verified with Python's json module (tests/data/traces/README.md).
    const FIXTURE_OPS: [&str; 3] = ["ynn_fusion", "ynn_fusion.1", "wrapped_tanh"];
    const FIXTURE_SELF: [(f64, f64); 3] = [
        (60930.183, 0.5608546087792196),
        (34440.397, 0.31701948746216646),
        (13267.527, 0.12212590375861389),
    ];
    const FIXTURE_STEP0_US: f64 = 10168.188;
    const TORCH_OPS: [(&str, usize); 3] = [
        ("ampere_sgemm_128x64_tn", 4),
        ("Memcpy HtoD (Pageable -> Device)", 2),
        (TORCH_RELU, 2),
    ];
    const TORCH_RELU: &str = "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2> >(int, at::native::(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2>)";
    const TORCH_OP_US: f64 = 572.0;

    #[test]
    fn nested_ops_count_only_their_own_time() {
        let t = br#"[
          {"ph": "M", "pid": 1, "tid": 1, "name": "thread_name", "args": {"name": "XLA Ops"}},
          {"ph": "M", "pid": 1, "name": "process_name", "args": {"name": "/device:TPU:0"}},
          {"ph": "X", "pid": 1, "tid": 1, "ts": 100, "dur": 50, "name": "while"},
          {"ph": "X", "pid": 1, "tid": 1, "ts": 110, "dur": 20, "name": "fusion"},
          {"ph": "X", "pid": 1, "tid": 1, "ts": 130, "dur": 10, "name": "fusion"}
        ]"#;
        let c = read(t).unwrap();
        assert_eq!(c.lanes[0].name, "/device:TPU:0 · XLA Ops");
        assert_eq!(c.ops[0].name, "fusion");
        assert_eq!(c.ops[0].count, 2);
        assert!((c.ops[0].self_us - 30.0).abs() < 1e-12);
        assert!((c.ops[1].self_us - 20.0).abs() < 1e-12);
        assert!((c.ops[1].total_us - 50.0).abs() < 1e-12);
        assert!((c.lanes[0].busy - 50.0).abs() < 1e-12);
        assert!((c.span_us - 50.0).abs() < 1e-12);
    }

    #[test]
    fn bad_files_are_refused_with_a_reason() {
        assert!(matches!(read(b"{\"a\": "), Err(Refusal::NotJson(_))));
        assert!(matches!(read(b"hello"), Err(Refusal::NotJson(_))));
        assert_eq!(
            read(b"{\"model_type\": \"llama\"}"),
            Err(Refusal::NotATrace)
        );
        assert_eq!(read(b"{\"traceEvents\": 3}"), Err(Refusal::NotATrace));
        assert_eq!(read(b"42"), Err(Refusal::NotATrace));
        assert_eq!(read(b"{\"traceEvents\": []}"), Err(Refusal::NoEvents));
        // Absurd times are skipped, and a trace of nothing else is refused.
        let absurd = br#"[{"ph":"X","ts":-1e300,"dur":1,"name":"a"},{"ph":"X","ts":"soon","dur":1,"name":"d"},{"ph":"X","ts":0,"dur":1e200,"name":"b"},{"ph":"X","ts":0,"dur":-5,"name":"c"}]"#;
        assert_eq!(read(absurd), Err(Refusal::NoEvents));
        // Deep nesting stops at serde_json's recursion limit.
        let deep = format!(
            "{{\"traceEvents\": [{{\"args\": {}{}}}]}}",
            "[".repeat(10_000),
            "]".repeat(10_000)
        );
        assert!(read(deep.as_bytes()).is_err());
        // A gzip cut short.
        assert_eq!(read(&JAX[..JAX.len() / 2]), Err(Refusal::BadGzip));
        assert_eq!(read(&[0x1f, 0x8b, 8, 0]), Err(Refusal::BadGzip));
        // Too large before or after inflating.
        assert_eq!(
            read(&vec![b' '; MAX_TRACE_BYTES + 1]),
            Err(Refusal::TooLarge)
        );
        let bomb = gzip_of_spaces(MAX_TRACE_BYTES + 1);
        assert!(bomb.len() < 1 << 20);
        assert_eq!(read(&bomb), Err(Refusal::TooLarge));
    }

    #[test]
    fn a_reply_reads_back_as_the_capture_or_the_refusal() {
        // serde_json reads a float back within an ulp of what it wrote.
        fn near(a: &serde_json::Value, b: &serde_json::Value) -> bool {
            use serde_json::Value;
            match (a, b) {
                (Value::Number(x), Value::Number(y)) => {
                    let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
                    (x - y).abs() <= 1e-12 * x.abs().max(y.abs())
                }
                (Value::Array(x), Value::Array(y)) => {
                    x.len() == y.len() && x.iter().zip(y).all(|(x, y)| near(x, y))
                }
                (Value::Object(x), Value::Object(y)) => {
                    x.len() == y.len()
                        && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| near(v, w)))
                }
                _ => a == b,
            }
        }
        let value = |c: Capture| serde_json::to_value(c).unwrap();
        for file in [JAX, TORCH, TRANSFORMER, TORCH_CPU] {
            let back = from_reply(&reply(file)).unwrap().unwrap();
            assert!(near(&value(back), &value(read(file).unwrap())));
        }
        assert!(!near(
            &value(read(JAX).unwrap()),
            &value(read(TRANSFORMER).unwrap())
        ));
        assert_eq!(
            from_reply(&reply(&JAX[..JAX.len() / 2])),
            Some(Err(Refusal::BadGzip))
        );
        assert_eq!(from_reply(&reply(b"hello")), Some(read(b"hello")));
        assert_eq!(from_reply("hello"), None);
    }

    #[test]
    fn ids_written_as_numbers_or_as_strings_name_the_same_thread() {
        let trace = br#"{"traceEvents": [
          {"ph": "M", "pid": 1, "tid": 2, "name": "thread_name", "args": {"name": "XLA Ops"}},
          {"ph": "M", "pid": "1", "name": "process_name", "args": {"name": "/device:TPU:0"}},
          {"ph": "X", "pid": "1", "tid": 2, "ts": 0, "dur": 10, "name": "fusion"},
          {"ph": "X", "pid": 1, "tid": "2", "ts": 10, "dur": 5, "name": "fusion"},
          {"ph": "X", "pid": 1, "tid": 2, "ts": 0, "dur": 1, "name": "dot",
           "args": {"hlo_op": "dot", "device_ordinal": 3, "hlo_module": ["odd"]}}]}"#;
        let c = read(trace).unwrap();
        let lanes: Vec<(&str, usize)> = c
            .lanes
            .iter()
            .map(|l| (l.name.as_str(), l.events))
            .collect();
        assert_eq!(
            lanes,
            [("/device:TPU:0 · XLA Ops", 2), ("device 3 · XLA Ops", 1)]
        );
        assert_eq!(c.ops[0].name, "fusion");
        assert_eq!(c.ops[0].count, 2);
        // The dot is nested in the first fusion, on the same thread.
        assert!((c.ops[0].self_us - 14.0).abs() < 1e-12);
    }

    /// A gzip file of `n` spaces, with a stored-nothing header.
    fn gzip_of_spaces(n: usize) -> Vec<u8> {
        let deflated = miniz_oxide::deflate::compress_to_vec(&vec![b' '; n], 6);
        let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255];
        out.extend_from_slice(&deflated);
        out.extend_from_slice(&[0; 8]);
        out
    }
}
