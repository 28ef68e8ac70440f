//! Every widget drawn as a page draws it, from two sources of input:
//!
//! - every distinct state the parameter fuzz reaches
//!   ([`crate::fuzz::every_widgets_parameters_keep_their_promises`]: 100,000
//!   changes a widget in the test command, reader chips and models in compact
//!   form among them), each drawn once (a drawing is a function of the
//!   widget's parameters, and their pairs rebuild them exactly);
//! - links of one to three random pairs of each widget's own keys (here,
//!   [`every_widget_renders_any_link_in_bounded_time_without_nan`]), which
//!   also draw the notices that refuse a value and the widgets without
//!   parameters.
//!
//! Each render must end within a time bound, stay small, and show neither
//! `NaN` nor an infinity (a number that is not one is refused with a message
//! or shown as `—`). A hang in a chart's tick loop, an unbounded drawing or a
//! stray `NaN` fails with the widget and arguments that caused it.
//!
//! `RIDGELINE_RENDER_CASES` sets the random links per widget (default 150; a
//! long run sets more); with `RIDGELINE_FUZZ_TIMES` set it prints each
//! widget's mean time a render.

use std::collections::BTreeMap;
use std::sync::{mpsc, Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use leptos::prelude::*;
use ridgeline_app::widgets::{keys_of, params_of, widget_view, NAMES};
use ridgeline_core::rng::Rng;

use crate::fuzz::{env_or, value_for};

/// Random links per widget unless `RIDGELINE_RENDER_CASES` says otherwise.
const CASES: usize = 150;

/// The longest one render may take before the test calls it a hang.
const TIME_BOUND: Duration = Duration::from_secs(20);

/// The largest render accepted, bytes of HTML (the largest widget at its
/// defaults is a few hundred kilobytes).
const MAX_HTML: usize = 4 << 20;

/// `html` without what echoes the reader's own text: the notices that quote
/// refused input (`Ignored: unknown chip “NaN”`) and the `value` of a form
/// field. One pass: each marker is searched for again only once the cut has
/// passed its last hit.
fn without_echoes(html: &str) -> String {
    const NOTICE: (&str, &str) = ("class=\"notice\">", "</p>");
    const FIELD: (&str, &str) = ("value=\"", "\"");
    let next = |from: usize, (open, _): (&str, &str)| html[from..].find(open).map(|at| at + from);
    let mut out = String::with_capacity(html.len());
    let mut from = 0;
    let (mut notice, mut field) = (next(0, NOTICE), next(0, FIELD));
    loop {
        if notice.is_some_and(|at| at < from) {
            notice = next(from, NOTICE);
        }
        if field.is_some_and(|at| at < from) {
            field = next(from, FIELD);
        }
        let Some((at, (open, close))) =
            [notice.map(|at| (at, NOTICE)), field.map(|at| (at, FIELD))]
                .into_iter()
                .flatten()
                .min_by_key(|(at, _)| *at)
        else {
            break;
        };
        out.push_str(&html[from..at]);
        let after = at + open.len();
        from = html[after..]
            .find(close)
            .map_or(html.len(), |end| after + end + close.len());
    }
    out.push_str(&html[from..]);
    out
}

/// Where `shown` prints a number that is not one: `NaN`, an infinity as
/// `format::sci` writes it (`∞`), or Rust's `inf` standing as a word of its
/// own (not the start of "inference" or "info").
fn not_a_number(shown: &str) -> Option<usize> {
    if let Some(at) = shown.find("NaN").or_else(|| shown.find('∞')) {
        return Some(at);
    }
    shown.match_indices("inf").map(|(at, _)| at).find(|&at| {
        let before = shown[..at].chars().next_back();
        let after = shown[at + 3..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

/// A widget from `args`, rendered natively in its own owner.
fn render(name: &str, args: &[(String, String)]) -> String {
    let owner = Owner::new();
    let pairs: Vec<(&str, &str)> = args.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    owner.with(|| {
        widget_view(name, &pairs)
            .map(|v| v.to_html())
            .unwrap_or_default()
    })
}

/// What is wrong with a render of `html`, if anything.
fn fault_in(html: &str, took: Duration, refused: bool) -> Option<String> {
    let shown = without_echoes(html);
    if let Some(at) = not_a_number(&shown) {
        let from = shown.floor_char_boundary(at.saturating_sub(80));
        Some(format!(
            "shows a number that is not one: …{}…",
            &shown[from..shown.ceil_char_boundary(at + 20)]
        ))
    } else if html.len() > MAX_HTML {
        Some(format!("{} bytes of HTML", html.len()))
    } else if html.is_empty() {
        Some("renders nothing".into())
    } else if refused && !html.contains("class=\"notice\">Ignored: ") {
        Some("refuses a value of the link without saying so".into())
    } else if took > TIME_BOUND {
        Some(format!("took {took:?}, over {TIME_BOUND:?}"))
    } else {
        None
    }
}

/// What a drawing worker says of a case: that it starts (so that a hang
/// is named), or how it ended.
enum Report {
    Starts(usize, String, Vec<(String, String)>),
    Drawn(
        usize,
        String,
        Vec<(String, String)>,
        Duration,
        Option<String>,
    ),
}

/// Draws widgets on worker threads, one a core, so that the caller goes on
/// producing cases and a hang is reported (the worker abandoned) instead of
/// stopping the test run.
pub struct Drawer {
    cases: mpsc::Sender<(String, Vec<(String, String)>)>,
    reports: mpsc::Receiver<Report>,
    workers: Vec<JoinHandle<()>>,
}

/// What a [`Drawer`] drew: renders, the time each widget took in all, and
/// every fault found, with the widget and arguments.
pub struct Drawn {
    pub renders: usize,
    pub per_widget: BTreeMap<String, (usize, Duration)>,
    pub faults: Vec<String>,
}

impl Drawer {
    /// A drawer with its workers waiting for cases.
    pub fn start() -> Self {
        let (cases, queue) = mpsc::channel::<(String, Vec<(String, String)>)>();
        let queue = Arc::new(Mutex::new(queue));
        let (tell, reports) = mpsc::channel();
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        let workers = (0..cores)
            .map(|worker| {
                let (queue, tell) = (Arc::clone(&queue), tell.clone());
                std::thread::Builder::new()
                    .stack_size(64 << 20)
                    .spawn(move || loop {
                        let next = queue.lock().map(|q| q.recv());
                        let Ok(Ok((name, args))) = next else {
                            return;
                        };
                        // Announce the case before drawing it: if it hangs,
                        // the caller names it.
                        let starts = Report::Starts(worker, name.clone(), args.clone());
                        if tell.send(starts).is_err() {
                            return;
                        }
                        let started = Instant::now();
                        let html = render(&name, &args);
                        let took = started.elapsed();
                        let refused =
                            params_of(&name).is_some_and(|p| !p.refusals(&args).is_empty());
                        let fault = fault_in(&html, took, refused);
                        if tell
                            .send(Report::Drawn(worker, name, args, took, fault))
                            .is_err()
                        {
                            return;
                        }
                    })
                    .expect("a worker thread")
            })
            .collect();
        Self {
            cases,
            reports,
            workers,
        }
    }

    /// Queues widget `name` drawn from `args`.
    pub fn draw(&self, name: &str, args: Vec<(String, String)>) {
        // A worker gone has panicked; `finish` reports it.
        let _ = self.cases.send((name.to_string(), args));
    }

    /// Waits for every queued case; panics naming the cases being drawn if
    /// no render ends for [`TIME_BOUND`].
    pub fn finish(self) -> Drawn {
        drop(self.cases);
        let mut drawn = Drawn {
            renders: 0,
            per_widget: BTreeMap::new(),
            faults: Vec::new(),
        };
        let mut drawing = BTreeMap::new();
        loop {
            match self.reports.recv_timeout(TIME_BOUND) {
                Ok(Report::Starts(worker, name, args)) => {
                    drawing.insert(worker, (name, args));
                }
                Ok(Report::Drawn(worker, name, args, took, fault)) => {
                    drawing.remove(&worker);
                    drawn.renders += 1;
                    let widget = drawn.per_widget.entry(name.clone()).or_default();
                    widget.0 += 1;
                    widget.1 += took;
                    if let Some(fault) = fault {
                        drawn.faults.push(format!("{name} {args:?}: {fault}"));
                    }
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    panic!("no render ended within {TIME_BOUND:?}; drawing {drawing:?}")
                }
            }
        }
        for worker in self.workers {
            worker.join().expect("the workers end without panicking");
        }
        if std::env::var_os("RIDGELINE_FUZZ_TIMES").is_some() {
            for (name, (n, took)) in &drawn.per_widget {
                eprintln!(
                    "{name}: {n} renders, {:?} a render",
                    *took / (*n).max(1) as u32
                );
            }
        }
        drawn
    }
}

#[test]
fn every_widget_renders_any_link_in_bounded_time_without_nan() {
    let cases = env_or("RIDGELINE_RENDER_CASES", CASES);
    let drawer = Drawer::start();
    let mut rng = Rng::new(0x00fa_11ed_11c5);
    for name in NAMES {
        let keys = keys_of(name);
        for _ in 0..cases {
            let mut args = Vec::new();
            if !keys.is_empty() {
                for _ in 0..1 + rng.below(3) {
                    let key = rng.pick(keys);
                    args.push((key.to_string(), value_for(&mut rng, key)));
                }
            }
            drawer.draw(name, args);
        }
    }
    let drawn = drawer.finish();
    eprintln!("{} renders of {} widgets", drawn.renders, NAMES.len());
    assert_eq!(drawn.renders, NAMES.len() * cases);
    assert!(drawn.faults.is_empty(), "{}", drawn.faults.join("\n"));
}

#[test]
fn a_number_that_is_not_one_is_found_and_words_are_not() {
    assert_eq!(not_a_number("<text x=\"NaN\">"), Some(9));
    assert_eq!(not_a_number("<rect width=\"inf\"/>"), Some(13));
    assert_eq!(not_a_number("a ridge of -inf FLOPs"), Some(12));
    assert_eq!(not_a_number("inf"), Some(0));
    assert_eq!(not_a_number("a step of ∞ s"), Some(10));
    assert_eq!(
        not_a_number("inference, infra, info, Infinity, tinfoil, 1 inflight"),
        None
    );
}

#[test]
fn echoes_of_the_readers_text_are_left_out() {
    let html = "<p class=\"notice\">Ignored: “NaN”</p><input value=\"inf\"/><b>ok</b>\
                <input value=\"1\"/><p class=\"notice\">x</p>end";
    assert_eq!(without_echoes(html), "<p <input /><b>ok</b><input /><p end");
    assert_eq!(without_echoes("value=\"unclosed"), "");
    assert_eq!(without_echoes("plain"), "plain");
}
