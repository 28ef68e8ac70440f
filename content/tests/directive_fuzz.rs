//! The directive parser and the value evaluator must never panic, whatever a
//! chapter says, and must answer consistently: 1,000,000 random chapter snippets
//! (a fixed seed) go through `find_directives`, and every directive body through
//! `Directive::parse` and, when it parses, `values::evaluate`. A parsed directive
//! round-trips through its printed form, a found range holds exactly its
//! directive, a value is readable text, and every rejection says what was wrong
//! (an unknown directive or argument is named).
//!
//! The snippets are soups of the syntax's own pieces (`{{`, `}}`, `=`, the value
//! directives' names and arguments, chips, models, dtypes, extreme numbers) mixed
//! with arbitrary Unicode, so most of them reach deep into the evaluator.

use ridgeline_content::directive::{find_directives, Directive};
use ridgeline_content::values::{self, evaluate};
use ridgeline_core::hardware::CHIPS;
use ridgeline_core::model::config::MODELS;
use ridgeline_core::rng::Rng;

/// Snippets generated.
const INPUTS: usize = 1_000_000;

const NUMBERS: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "8",
    "16",
    "256",
    "4096",
    "1e999",
    "-1e999",
    "1e308",
    "1e-308",
    "NaN",
    "nan",
    "inf",
    "-inf",
    "0.5",
    "1.5",
    "0.0",
    "-0",
    "18446744073709551616",
    "9223372036854775807",
    "4294967296",
    "1_000",
    "1,000",
    "0x10",
    "1e",
    ".",
    "",
    "3/4",
    "1k",
    "2M",
    "65536",
    "131072",
];

const WORDS: &[&str] = &[
    "bf16",
    "int8",
    "int4",
    "fp8",
    "f32",
    "fp32",
    "sci",
    "plain",
    "ms",
    "one-way",
    "bidi",
    "hbm",
    "ici",
    "dcn",
    "pcie",
    "nvlink",
    "total",
    "mlp",
    "attention",
    "vocab",
    "norms",
    "layers",
    "d",
    "f",
    "l",
    "n",
    "k",
    "h",
    "v",
    "hosts",
    "chips",
    "8d",
    "allgather",
    "allreduce",
    "reducescatter",
    "alltoall",
    "node",
    "network",
    "prefill",
    "decode",
    "x",
    "widget",
    "exercise",
];

fn random_unicode(rng: &mut Rng, out: &mut String) {
    for _ in 0..rng.below(6) {
        let c = match rng.below(4) {
            0 => char::from_u32(rng.below(0x80) as u32),
            1 => char::from_u32(0x80 + rng.below(0x780) as u32),
            2 => char::from_u32(rng.below(0x11_0000) as u32),
            _ => Some(['{', '}', '=', ' ', '\n', '\t', '`', '$'][rng.below(8)]),
        };
        out.push(c.unwrap_or('\u{fffd}'));
    }
}

/// One directive body: a name, then key=value and bare words.
fn body(rng: &mut Rng, names: &[&str], keys: &[&str], values: &[&str]) -> String {
    let mut s = String::new();
    if rng.below(20) > 0 {
        s.push_str(rng.pick(names));
    } else {
        random_unicode(rng, &mut s);
    }
    for _ in 0..rng.below(7) {
        s.push(if rng.below(30) == 0 { '\t' } else { ' ' });
        match rng.below(12) {
            0 => s.push_str(rng.pick(WORDS)),
            1 => random_unicode(rng, &mut s),
            2 => {
                s.push_str(rng.pick(keys));
                s.push('=');
            }
            _ => {
                s.push_str(rng.pick(keys));
                s.push('=');
                s.push_str(rng.pick(values));
            }
        }
    }
    s
}

/// A parsed directive prints as `{{…}}` and its printed body parses back to it.
fn check_round_trip(d: &Directive) {
    let printed = d.to_string();
    let inner = printed
        .strip_prefix("{{")
        .and_then(|s| s.strip_suffix("}}"))
        .unwrap_or_else(|| panic!("{d:?} printed as {printed:?}"));
    assert_eq!(Directive::parse(inner).as_ref(), Ok(d), "{printed:?}");
}

/// A value is text for the reader, never an empty string or a float's failure;
/// a rejection says what was wrong.
fn check_value(d: &Directive, value: &Result<String, String>) {
    match value {
        Ok(text) => {
            assert!(!text.trim().is_empty(), "{d} evaluated to nothing");
            for bad in ["NaN", "inf", "∞"] {
                assert!(!text.contains(bad), "{d} evaluated to {text:?}");
            }
        }
        Err(message) => {
            assert!(!message.trim().is_empty(), "{d} rejected without a message");
            match values::find(&d.name) {
                None => assert!(message.contains(&d.name), "{d}: {message:?}"),
                Some(spec) => {
                    if let Some((k, _)) = d
                        .args
                        .iter()
                        .find(|(k, _)| !spec.args.contains(&k.as_str()))
                    {
                        assert!(
                            message.contains(k.as_str()),
                            "{d}: {message:?} does not name {k}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn a_million_random_directives_are_parsed_consistently() {
    let mut names: Vec<&str> = values::all().map(|v| v.name).collect();
    names.extend(["widget", "exercise", "nope", "peak-", "-"]);
    let mut keys: Vec<&str> = values::all().flat_map(|v| v.args.iter().copied()).collect();
    keys.sort_unstable();
    keys.dedup();
    keys.extend(["", "bogus", "chip chip"]);
    let mut values: Vec<&str> = CHIPS.iter().map(|c| c.id).collect();
    values.extend(MODELS.iter().map(|m| m.id));
    values.extend(NUMBERS);
    values.extend(WORDS);

    let mut rng = Rng::new(0x00d1_2ec7_1e5f_u64);
    let (mut parsed, mut evaluated, mut found) = (0usize, 0usize, 0usize);
    for _ in 0..INPUTS {
        let b = body(&mut rng, &names, &keys, &values);
        // The body alone.
        match Directive::parse(&b) {
            Ok(d) => {
                parsed += 1;
                check_round_trip(&d);
                let value = evaluate(&d);
                check_value(&d, &value);
                if value.is_ok() {
                    evaluated += 1;
                }
            }
            Err(e) => {
                assert!(!e.message.trim().is_empty(), "{b:?}: {e:?}");
                assert!(e.at <= b.len(), "{b:?}: {e}");
            }
        }
        // The body inside some text, sometimes with broken braces.
        let mut text = String::new();
        random_unicode(&mut rng, &mut text);
        text.push_str(["{{", "{{", "{{", "{", "{{{", "}}"][rng.below(6)]);
        text.push_str(&b);
        text.push_str(["}}", "}}", "}}", "}", "", "}}}", "{{"][rng.below(7)]);
        if rng.below(4) == 0 {
            text.push_str(" and {{");
            text.push_str(rng.pick(&names));
            text.push_str("}}");
        }
        random_unicode(&mut rng, &mut text);
        match find_directives(&text) {
            Ok(list) => {
                let mut after = 0;
                for (range, d) in list {
                    found += 1;
                    assert!(range.start >= after, "{text:?}: overlapping {range:?}");
                    after = range.end;
                    // The range holds exactly the directive, braces included.
                    let held = text.get(range.clone()).unwrap_or_else(|| {
                        panic!("range {range:?} off a char boundary in {text:?}")
                    });
                    let body = held
                        .strip_prefix("{{")
                        .and_then(|h| h.strip_suffix("}}"))
                        .unwrap_or_else(|| panic!("{text:?}: {held:?} is not a directive"));
                    assert_eq!(Directive::parse(body).as_ref(), Ok(&d), "{text:?}");
                    check_value(&d, &evaluate(&d));
                }
            }
            Err(e) => {
                assert!(!e.message.trim().is_empty(), "{text:?}: {e:?}");
                assert!(
                    text.get(e.at..).is_some_and(|rest| rest.starts_with('{')),
                    "{text:?}: {e}"
                );
            }
        }
    }
    // The generator reaches every stage, not just the first error.
    assert!(parsed > INPUTS / 4, "only {parsed} bodies parsed");
    assert!(
        evaluated > INPUTS / 50,
        "only {evaluated} directives evaluated"
    );
    assert!(found > INPUTS / 4, "only {found} directives found");
}
