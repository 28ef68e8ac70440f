//! What a reader types and what a browser hands back from storage must never
//! panic: 1,000,000 random inputs (a fixed seed) each through `parse_count`
//! and `Progress::from_json`, with the accepted ones checked for sense.

use ridgeline_app::input::parse_count;
use ridgeline_app::progress::{Progress, SCHEMA, VERSION};
use ridgeline_app::widgets::params::WidgetParams;
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

#[test]
fn widget_parameters_never_panic() {
    use ridgeline_app::widgets::*;
    const KEYS: &[&str] = &[
        "chip",
        "dtype",
        "act",
        "weight",
        "op",
        "b",
        "d",
        "f",
        "n",
        "wrap",
        "v",
        "shape",
        "at",
        "spec",
        "mesh",
        "dims",
        "model",
        "slice",
        "scheme",
        "tp",
        "batch",
        "overlap",
        "layers",
        "seq",
        "phase",
        "kv",
        "chips",
        "gpus",
        "size",
        "collective",
        "mfu",
        "tokens",
        "pods",
        "mode",
        "family",
        "preset",
        "context",
        "format",
        "x",
        "y",
        "strategy",
    ];
    let mut rng = Rng::new(0x05ee_d0ff_1e1d);
    let mut value = String::new();
    let mut next_value = |rng: &mut Rng| -> String {
        value.clear();
        match rng.below(4) {
            0 | 1 => value.push_str(rng.pick(VALUES)),
            2 => {
                value.push_str(rng.pick(VALUES));
                unicode(rng, &mut value, 6);
            }
            _ => unicode(rng, &mut value, 40),
        }
        value.clone()
    };
    // Rebuilds parameters from their URL pairs: in `WidgetParams::ORDER` where
    // the type has it, else in the pairs' own order.
    macro_rules! rebuild {
        (ordered, $ty:ty, $pairs:expr) => {
            <$ty>::from_pairs($pairs)
        };
        (plain, $ty:ty, $pairs:expr) => {{
            let mut q = <$ty>::default();
            let mut refused = Vec::new();
            for (k, v) in $pairs {
                if let Err(e) = q.apply(k, v) {
                    refused.push(e);
                }
            }
            (q, refused)
        }};
    }
    macro_rules! drive {
        ($rng:expr, $ty:ty, $n:expr) => {
            drive!($rng, $ty, $n, ordered)
        };
        ($rng:expr, $ty:ty, $n:expr, $how:ident) => {{
            let mut p = <$ty>::default();
            for _ in 0..$n {
                let key = if $rng.below(8) == 0 {
                    "junk-key"
                } else {
                    $rng.pick(KEYS)
                };
                let v = next_value(&mut $rng);
                let before = p.clone();
                match p.apply(key, &v) {
                    // An accepted value leaves parameters whose URL pairs
                    // rebuild exactly them.
                    Ok(()) => {
                        let (again, refused) = rebuild!($how, $ty, &p.to_pairs());
                        assert!(
                            refused.is_empty(),
                            "{}: {key}={v:?}: its own pairs refused: {refused:?}",
                            stringify!($ty)
                        );
                        assert!(
                            again == p,
                            "{}: {key}={v:?}: the URL pairs do not rebuild the parameters",
                            stringify!($ty)
                        );
                    }
                    // A refused one says why and keeps the last valid state.
                    Err(message) => {
                        assert!(
                            !message.trim().is_empty(),
                            "{key}={v:?}: refused without a message"
                        );
                        assert!(
                            p == before,
                            "{key}={v:?}: refused but changed the parameters"
                        );
                    }
                }
                if $rng.below(64) == 0 {
                    p = <$ty>::default();
                }
            }
        }};
    }
    let per = INPUTS / 17 + 1;
    drive!(rng, roofline::RooflineParams, per);
    drive!(rng, overlap::OverlapParams, per);
    drive!(rng, collective::CollectiveParams, per, plain);
    drive!(rng, collective_size::SizeParams, per);
    drive!(rng, torus::TorusParams, per);
    drive!(rng, link_roofline::LinkParams, per);
    drive!(rng, transformer::TransformerParams, per);
    drive!(rng, training_roofline::TrainingRooflineParams, per);
    drive!(rng, training_planner::PlannerParams, per);
    drive!(rng, inference_roofline::InferenceParams, per);
    drive!(rng, kv_cache::KvParams, per);
    drive!(rng, serving::ServingParams, per);
    drive!(rng, min_topology::TopologyParams, per);
    drive!(rng, gpu::GpuParams, per);
    drive!(rng, profile::ProfileParams, per);
    // The sharding widget's `with` returns a new value instead of mutating.
    let mut s = sharding::ShardingParams::default();
    for _ in 0..2 * per {
        let key = rng.pick(&["spec", "mesh", "dims", "chip", "junk"]);
        let v = next_value(&mut rng);
        if let Ok(next) = s.with(key, &v) {
            s = next;
        }
    }
}
