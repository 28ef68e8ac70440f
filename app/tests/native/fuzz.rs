//! What a reader types and what a browser hands back from storage must never
//! panic: 1,000,000 random inputs (a fixed seed) each through `parse_count`
//! and `Progress::from_json`, with the accepted ones checked for sense; and
//! every widget's parameters driven through random changes, each checked
//! against what a widget promises and each state reached drawn (see
//! [`every_widgets_parameters_keep_their_promises`]).

use ridgeline_app::input::parse_count;
use ridgeline_app::progress::{Progress, SCHEMA, VERSION};
use ridgeline_core::rng::Rng;

/// Inputs per parser.
const INPUTS: usize = 1_000_000;

/// Appends up to `max` random characters, a third each ASCII, two-byte and anywhere
/// in Unicode (a surrogate becomes U+FFFD).
fn unicode(rng: &mut Rng, out: &mut String, max: usize) {
    for _ in 0..rng.below(max) {
        let c = match rng.below(3) {
            0 => char::from_u32(rng.below(0x80) as u32),
            1 => char::from_u32(0x80 + rng.below(0x780) as u32),
            _ => char::from_u32(rng.below(0x11_0000) as u32),
        };
        out.push(c.unwrap_or('\u{fffd}'));
    }
}

const COUNT_TOKENS: &[&str] = &[
    "0",
    "1",
    "2",
    "9",
    "10",
    "1024",
    ".",
    ".5",
    "e",
    "E",
    "e9",
    "e999",
    "e-999",
    "-",
    "+",
    "^",
    "^2",
    "^1000",
    "^1001",
    "^-1",
    ",",
    "_",
    " ",
    "\t",
    "inf",
    "infinity",
    "NaN",
    "nan",
    "x",
    "k",
    "M",
    "1e308",
    "1.7976931348623157e308",
    "4.9e-324",
    "18446744073709551616",
    "١",
    "٫",
];

#[test]
fn parse_count_never_panics_and_stays_in_range() {
    let mut rng = Rng::new(0x0c0_4e7_u64);
    let mut text = String::new();
    let mut accepted = 0usize;
    for _ in 0..INPUTS {
        text.clear();
        if rng.below(5) == 0 {
            unicode(&mut rng, &mut text, 12);
        } else {
            for _ in 0..1 + rng.below(6) {
                text.push_str(rng.pick(COUNT_TOKENS));
            }
        }
        let (min, max) = match rng.below(4) {
            0 => (1.0, 1e6),
            1 => (0.0, f64::MAX),
            2 => (-1e3, 1e3),
            _ => (1.0, 1.0),
        };
        if let Ok(v) = parse_count(&text, "the batch", min, max) {
            accepted += 1;
            assert!(
                v.is_finite() && v >= min && v <= max,
                "{text:?} gave {v} outside [{min}, {max}]"
            );
        }
    }
    assert!(
        accepted > INPUTS / 50,
        "only {accepted} inputs were accepted"
    );
}

const JSON_TOKENS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "\"",
    "\"schema\"",
    "\"version\"",
    "\"solved\"",
    "\"attempts\"",
    "\"seed\"",
    "\"ridgeline-progress\"",
    "\"ch1-q1\"",
    "\"ch3-q2\"",
    "\"x\"",
    "1",
    "0",
    "-1",
    "1.5",
    "1e15",
    "1e16",
    "1e999",
    "-0",
    "2",
    "true",
    "false",
    "null",
    " ",
    "\\",
    "\\u",
    "\\u00e9",
    "\\ud800",
    "\\n",
    "\"\\\"\"",
    "0.",
    "-",
    "e5",
    "tru",
    "nul",
    "\u{fffd}",
    "é",
];

fn known(id: &str) -> bool {
    id.starts_with("ch")
}

#[test]
fn progress_from_json_never_panics() {
    let mut rng = Rng::new(0x0910_6e55_u64);
    let mut text = String::new();
    let mut read = 0usize;
    for i in 0..INPUTS {
        text.clear();
        match rng.below(4) {
            // A valid document with one piece mutated.
            0 | 1 => {
                let mut p = Progress::default();
                for _ in 0..rng.below(4) {
                    let id = format!("ch{}-q{}", rng.below(13), rng.below(9));
                    p.solved.insert(
                        id,
                        ridgeline_app::progress::Solved {
                            attempts: rng.below(100) as u32,
                            seed: rng.next_u64() % 1_000_000_000_000_000,
                        },
                    );
                }
                let doc = p.to_json();
                let at = rng.below(doc.len() + 1);
                let at = (0..=at)
                    .rev()
                    .find(|&k| doc.is_char_boundary(k))
                    .unwrap_or(0);
                let cut = (at + rng.below(4)).min(doc.len());
                let cut = (cut..=doc.len())
                    .find(|&k| doc.is_char_boundary(k))
                    .unwrap_or(doc.len());
                text.push_str(&doc[..at]);
                if rng.below(3) > 0 {
                    text.push_str(rng.pick(JSON_TOKENS));
                }
                text.push_str(&doc[cut..]);
                if i % 7 == 0 {
                    // An untouched round trip must read back.
                    assert_eq!(
                        Progress::from_json(&doc, &known).ok().map(|r| r.progress),
                        Some(p)
                    );
                }
            }
            // Token soup, sometimes with the right header.
            2 => {
                if rng.below(2) == 0 {
                    text.push_str(&format!(
                        "{{\"schema\":\"{SCHEMA}\",\"version\":{VERSION},\"solved\":"
                    ));
                }
                for _ in 0..rng.below(16) {
                    text.push_str(rng.pick(JSON_TOKENS));
                }
            }
            // Deep nesting or arbitrary text.
            _ => {
                if rng.below(2) == 0 {
                    let depth = rng.below(80);
                    text.push_str(&"[".repeat(depth));
                    text.push_str(&"{\"a\":".repeat(rng.below(40)));
                } else {
                    unicode(&mut rng, &mut text, 24);
                }
            }
        }
        if Progress::from_json(&text, &known).is_ok() {
            read += 1;
        }
    }
    assert!(read > INPUTS / 20, "only {read} documents were read");
}

/// Every widget's URL and form parameters go through its params type's `apply`
/// (or `with`): 1,000,000 random `key=value` pairs spread over all of them, with
/// the widget's own keys most of the time and values from near-valid to junk.
/// Values a reader might give any widget setting: ids, numbers at and past
/// every bound, shapes, specs and junk.
pub const VALUES: &[&str] = &[
    "v5e",
    "v5p",
    "h100",
    "b200",
    "gb200",
    "tpu7x",
    "bf16",
    "int8",
    "int4",
    "fp4",
    "fp8",
    "f32",
    "matmul",
    "dot",
    "llama3-70b",
    "llama3-8b",
    "deepseek-v3",
    "fsdp",
    "tp",
    "fsdp+tp",
    "best",
    "decode",
    "prefill",
    "allgather",
    "alltoall",
    "1",
    "0",
    "-1",
    "2",
    "8",
    "16",
    "4096",
    "1e999",
    "NaN",
    "inf",
    "-0",
    "1e-300",
    "2^20",
    "8x16",
    "4x4x4",
    "16x20x28",
    "X=4, Y=2",
    "X=0",
    "I=512, J=1024, K=256",
    "A[I_X, J] · B[J, K_Y] -> C[I_X, K_Y]",
    "A[I_X,J_X]·B[J,K]",
    "",
    " ",
    "true",
    "yes",
    "on",
    "manual",
    "tpu",
    "gpu",
    "pod",
    "64",
    "1024",
    "1048576",
];

/// Parameter changes per widget unless `RIDGELINE_FUZZ_CASES` says otherwise:
/// 100,000 in the test command (a few minutes in a debug build: every change
/// is checked, and each distinct state it reaches drawn once); the long run
/// sets a million (`scripts/fuzz-long.sh`).
const CASES_PER_WIDGET: usize = 100_000;

/// The environment variable `name` read as a `T`, or `default` when it is
/// unset or unreadable (the fuzzers' case counts and seed).
pub fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Reader chips in compact form: sound ones, ones at the accepted floors and
/// ceilings, and ones below and above them (which must be refused).
pub fn chip_code(rng: &mut Rng) -> String {
    let peak = rng.pick(&[
        "1e6", "1.5e6", "1.97e14", "1e18", "5e-324", "1e-300", "1e30",
    ]);
    let hbm = rng.pick(&["1e6", "1.6e10", "1e13", "1", "1e20"]);
    let bw = rng.pick(&["1e3", "8.2e11", "1e15", "1e-300", "1e20"]);
    let link = rng.pick(&["1e3", "4.5e10", "1e15", "5e-324"]);
    if rng.below(2) == 0 {
        let slice = rng.pick(&[
            "4x4x1",
            "16x16x1",
            "1000x1000x1",
            "100000x100000x1",
            "100x100x100",
        ]);
        format!("c1~r~g~bf16:{peak}~{hbm}~hbm:{bw}_ici:{link}~t:2:{slice}:1x1x1:axis16:1")
    } else {
        let gpus = rng.pick(&["1", "8", "72", "100000"]);
        format!("c1~r~n~bf16:{peak}~{hbm}~hbm:{bw}_nvlink:{link}_scaleout:{link}~n:{gpus}:132:-")
    }
}

/// Reader models in compact form, from tiny to enormous.
pub fn model_code(rng: &mut Rng) -> String {
    let d = rng.pick(&["1", "64", "4096", "1000000"]);
    let f = rng.pick(&["1", "14336", "10000000"]);
    let l = rng.pick(&["1", "32", "10000"]);
    let v = rng.pick(&["2", "128256", "100000000"]);
    format!("m1~r~{d}~{f}~{l}~32~8~128~{v}~8192~g~-~-")
}

/// A value for `key`: a word or number from [`VALUES`], a reader's chip or
/// model in compact form where the key takes one, a number anywhere in
/// 10^±300, or random text.
pub fn value_for(rng: &mut Rng, key: &str) -> String {
    match rng.below(8) {
        0 if matches!(key, "chip" | "vs" | "gpu") => chip_code(rng),
        0 if key == "model" => model_code(rng),
        1 => {
            let x = rng.open_unit() * 10f64.powi(rng.below(601) as i32 - 300);
            format!("{x:e}")
        }
        2 => {
            let mut v = rng.pick(VALUES).to_string();
            unicode(rng, &mut v, 6);
            v
        }
        3 => {
            let mut v = String::new();
            unicode(rng, &mut v, 40);
            v
        }
        _ => rng.pick(VALUES).to_string(),
    }
}

/// Every widget's parameters (all of them, through `widgets::params_of`)
/// keep their promise under random input, each for [`CASES_PER_WIDGET`] changes: an
/// accepted value leaves parameters whose own URL pairs rebuild exactly
/// them; a refused one says why and keeps the last valid state. Keys are
/// the widget's own (one in eight a key it does not have); values include
/// reader chips and models in compact form and numbers across the whole
/// range of doubles.
///
/// Each state reached is drawn as its link draws it, on worker threads
/// ([`crate::render_fuzz::Drawer`]), once per distinct state: the drawing
/// is a function of the parameters, which their pairs rebuild exactly, so
/// one render of a state is the render of every input that led to it.
#[test]
fn every_widgets_parameters_keep_their_promises() {
    use ridgeline_app::widgets::{params_of, NAMES};
    let cases = env_or("RIDGELINE_FUZZ_CASES", CASES_PER_WIDGET);
    let seed = env_or("RIDGELINE_FUZZ_SEED", 0x05ee_d0ff_1e1d);
    let mut rng = Rng::new(seed);
    let mut driven = 0;
    let mut states = 0;
    let drawer = crate::render_fuzz::Drawer::start();
    // `RIDGELINE_FUZZ_ONLY=training-planner` drives one widget (to chase a find).
    let only = std::env::var("RIDGELINE_FUZZ_ONLY").ok();
    for name in NAMES {
        if only.as_deref().is_some_and(|o| o != *name) {
            continue;
        }
        let Some(mut p) = params_of(name) else {
            continue;
        };
        let keys = p.keys();
        // Each key's value at the defaults: a sound value to vary from.
        let defaults = p.pairs();
        let mut seen = std::collections::HashSet::from([defaults.clone()]);
        drawer.draw(name, defaults.clone());
        let mut accepted = 0;
        let started = std::time::Instant::now();
        for _ in 0..cases {
            let key = if keys.is_empty() || rng.below(8) == 0 {
                "junk-key"
            } else {
                rng.pick(keys)
            };
            let default = defaults.iter().find(|(k, _)| k == key).map(|(_, v)| v);
            let v = match default {
                Some(d) if rng.below(4) == 0 => d.clone(),
                _ => value_for(&mut rng, key),
            };
            match p.checked_apply(key, &v) {
                Ok(true) => {
                    accepted += 1;
                    let pairs = p.pairs();
                    if seen.insert(pairs.clone()) {
                        drawer.draw(name, pairs);
                    }
                }
                Ok(false) => {}
                Err(broken) => panic!("{name}: {key}={v:?}: {broken}"),
            }
            if rng.below(64) == 0 {
                p.reset();
            }
        }
        // Random input that no widget ever accepts would test only refusals.
        assert!(
            keys.is_empty() || accepted > 0,
            "{name}: none of {cases} values was accepted"
        );
        driven += 1;
        states += seen.len();
        if std::env::var_os("RIDGELINE_FUZZ_TIMES").is_some() {
            eprintln!(
                "{name}: {:?}, {} distinct states of {accepted} accepted",
                started.elapsed(),
                seen.len()
            );
        }
    }
    let drawn = drawer.finish();
    eprintln!(
        "{driven} widgets' parameters, {cases} changes each; {} distinct states drawn",
        drawn.renders
    );
    assert_eq!(drawn.renders, states);
    assert!(drawn.faults.is_empty(), "{}", drawn.faults.join("\n"));
    assert!(
        only.is_some() || driven >= 40,
        "only {driven} widgets have parameters"
    );
}
