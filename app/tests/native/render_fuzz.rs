//! Every widget drawn from random arguments, as a page draws it from a link:
//! each widget's own keys with values a reader could type or a link could
//! carry, among them reader chips and models in compact form with extreme
//! numbers. Each render must end within a time bound, stay small, and never
//! show `NaN` (a number that is not one is refused with a message or shown as
//! `—`). A hang in a chart's tick loop, an unbounded drawing or a stray `NaN`
//! fails here with the widget and arguments that caused it.
//!
//! `RIDGELINE_RENDER_CASES` sets the renders per widget (default 150, about
//! seven thousand renders in all; a long run sets more); with
//! `RIDGELINE_FUZZ_TIMES` set it prints each widget's mean time a render.

use std::sync::mpsc;
use std::time::Duration;

use leptos::prelude::*;
use ridgeline_app::widgets::{keys_of, widget_view, NAMES};
use ridgeline_core::rng::Rng;

use crate::fuzz::{env_or, value_for};

/// Renders per widget unless `RIDGELINE_RENDER_CASES` says otherwise.
const CASES: usize = 150;

/// The longest one render may take before the test calls it a hang.
const TIME_BOUND: Duration = Duration::from_secs(20);

/// The largest render accepted, bytes of HTML (the largest widget at its
/// defaults is a few hundred kilobytes).
const MAX_HTML: usize = 4 << 20;

/// `html` without what echoes the reader's own text: the notices that quote
/// refused input (`Ignored: unknown chip “NaN”`) and the `value` of a form
/// field.
fn without_echoes(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    loop {
        const NOTICE: &str = "class=\"notice\">";
        const FIELD: &str = "value=\"";
        let notice = rest.find(NOTICE).map(|at| (at, NOTICE, "</p>"));
        let field = rest.find(FIELD).map(|at| (at, FIELD, "\""));
        let Some((at, open, close)) = [notice, field].into_iter().flatten().min() else {
            break;
        };
        out.push_str(&rest[..at]);
        let after = &rest[at + open.len()..];
        rest = after
            .find(close)
            .map_or("", |end| &after[end + close.len()..]);
    }
    out.push_str(rest);
    out
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

#[test]
fn every_widget_renders_any_link_in_bounded_time_without_nan() {
    let cases = env_or("RIDGELINE_RENDER_CASES", CASES);
    let (tx, rx) = mpsc::channel::<(String, Vec<(String, String)>, Option<String>)>();
    // The renders run on a worker, so that a hang is reported (and the worker
    // abandoned) instead of stopping the test run.
    let worker = std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(move || {
            let mut rng = Rng::new(0x00fa_11ed_11c5);
            for name in NAMES {
                let keys = keys_of(name);
                let started = std::time::Instant::now();
                for case in 0..cases {
                    let mut args = Vec::new();
                    if !keys.is_empty() {
                        for _ in 0..1 + rng.below(3) {
                            let key = rng.pick(keys);
                            args.push((key.to_string(), value_for(&mut rng, key)));
                        }
                    }
                    // Announce the case before drawing it: if it hangs, the
                    // main thread names it.
                    if tx.send((name.to_string(), args.clone(), None)).is_err() {
                        return;
                    }
                    let html = render(name, &args);
                    let shown = without_echoes(&html);
                    let fault = if shown.contains("NaN") {
                        let at = shown.find("NaN").unwrap_or(0);
                        let from = shown.floor_char_boundary(at.saturating_sub(80));
                        Some(format!(
                            "shows NaN: …{}…",
                            &shown[from..shown.ceil_char_boundary(at + 20)]
                        ))
                    } else if html.len() > MAX_HTML {
                        Some(format!("{} bytes of HTML", html.len()))
                    } else if case == 0 && html.is_empty() {
                        Some("renders nothing".into())
                    } else {
                        None
                    };
                    if tx
                        .send((name.to_string(), args, Some(fault.unwrap_or_default())))
                        .is_err()
                    {
                        return;
                    }
                }
                if std::env::var_os("RIDGELINE_FUZZ_TIMES").is_some() {
                    eprintln!(
                        "{name}: {:?} a render",
                        started.elapsed() / cases.max(1) as u32
                    );
                }
            }
        })
        .expect("a worker thread");
    let mut renders = 0;
    let mut faults = Vec::new();
    let mut last = (String::new(), Vec::new());
    loop {
        match rx.recv_timeout(TIME_BOUND) {
            Ok((name, args, None)) => last = (name, args),
            Ok((name, args, Some(fault))) => {
                renders += 1;
                if !fault.is_empty() {
                    faults.push(format!("{name} {args:?}: {fault}"));
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                panic!(
                    "{} {:?}: the render took longer than {TIME_BOUND:?}",
                    last.0, last.1
                )
            }
        }
    }
    worker.join().expect("the worker ends without panicking");
    eprintln!("{renders} renders of {} widgets", NAMES.len());
    assert_eq!(renders, NAMES.len() * cases);
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}
