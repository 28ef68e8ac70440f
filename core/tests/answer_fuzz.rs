//! The answer parsers and graders must never panic, whatever the reader types;
//! every rejection carries a reason, every graded answer gets the verdict its
//! value calls for, and formatting a quantity must parse back to the same quantity.
//!
//! Two generators, each over a fixed seed: arbitrary Unicode strings, and
//! near-valid soups of the parsers' own tokens (numbers, prefixes, units,
//! operators, variables). Each proptest case feeds a batch of strings: 2
//! generators × 4,000 cases × 125 strings = 1,000,000 strings in total.

use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use ridgeline_core::exercises::expr::{parse_expr, MAX_EXPR_LEN};
use ridgeline_core::exercises::grade::{grade_numeric, Context, Verdict};
use ridgeline_core::exercises::quantity::{
    format_quantity, parse, parse_unit, Dimension, InvalidKind, Quantity,
};
use ridgeline_core::exercises::sharding_answer::{grade_sharding, ShardingMatch};
use ridgeline_core::sharding::ArraySpec;

/// Strings fed per proptest case.
const BATCH: usize = 125;
/// Proptest cases per generator.
const CASES: u32 = 4_000;

fn config(seed: u64, cases: u32) -> Config {
    Config {
        cases,
        rng_seed: RngSeed::Fixed(seed),
        failure_persistence: None,
        ..Config::default()
    }
}

const TOKENS: &[&str] = &[
    "1",
    "2",
    "0",
    "9",
    ".",
    ".5",
    "1.97",
    "e",
    "E",
    "e14",
    "e-3",
    "e+",
    "^",
    "**",
    "^20",
    "×10^",
    "x10^",
    "*",
    "10",
    ",",
    ",024",
    "_",
    "_024",
    "-",
    "−",
    "+",
    " ",
    " ",
    "  ",
    "k",
    "K",
    "M",
    "G",
    "T",
    "P",
    "E",
    "Ki",
    "Mi",
    "Gi",
    "m",
    "µ",
    "\u{3bc}",
    "u",
    "n",
    "p",
    "B",
    "b",
    "bit",
    "s",
    "ms",
    "us",
    "h",
    "min",
    "day",
    "days",
    "years",
    "FLOP",
    "FLOPs",
    "FLOPS",
    "flops",
    "OPs",
    "/",
    "/s",
    "per",
    "byte",
    "bytes",
    "token",
    "tokens",
    "chip",
    "chips",
    "params",
    "%",
    "$",
    "x",
    "×",
    "~",
    "≈",
    "Hz",
    "GHz",
    "USD",
    "·",
    "^-1",
    "^2",
    "(",
    ")",
    "D",
    "F",
    "N",
    "W_ici",
    "_{",
    "}",
    "sqrt(",
    "max(",
    "min(",
    "=",
    "T_math",
    "[",
    "]",
    "I_X",
    "J_XY",
    "->",
    "→",
    "@",
    "\u{0}",
    "\u{200b}",
    "\u{202f}",
    "🙂",
    "é",
    "'",
    "\"",
    "\n",
    "99999999999999999999",
    "1e308",
    "1e-400",
    "1e999999999999",
];

fn near_valid() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(TOKENS), 0..16).prop_map(|v| v.concat())
}

/// Arbitrary Unicode text, up to 40 characters.
fn unicode() -> impl Strategy<Value = String> {
    prop::collection::vec(any::<char>(), 0..40).prop_map(|v| v.into_iter().collect())
}

/// The answer the fuzzed grading expects: 1.0111 ms within 2 %.
const EXPECTED: f64 = 1.0111e-3;
/// Its tolerance.
const TOLERANCE: f64 = 0.02;

/// Whether `got` is clearly inside (`Some(true)`), clearly outside (`Some(false)`)
/// or too close to the tolerance's edge to call (`None`, rounding decides).
fn clearly_within(got: f64) -> Option<bool> {
    let off = ((got - EXPECTED) / EXPECTED).abs();
    if off < TOLERANCE * (1.0 - 1e-9) {
        Some(true)
    } else if off > TOLERANCE * (1.0 + 1e-9) {
        Some(false)
    } else {
        None
    }
}

/// Checks the verdict on `text` against what any correct grader must say.
fn check_verdict(text: &str, v: &Verdict) {
    assert!(
        ["correct", "incorrect", "invalid"].contains(&v.label()),
        "{text:?}: {v:?}"
    );
    match v {
        Verdict::Invalid { reason } => {
            assert!(
                !reason.trim().is_empty(),
                "{text:?}: rejected without a reason"
            )
        }
        Verdict::Incorrect { diagnosis: Some(d) } => {
            assert!(
                !d.message.trim().is_empty(),
                "{text:?}: a diagnosis without a message"
            );
            assert!(d.ratio.is_finite() && d.ratio != 1.0, "{text:?}: {d:?}");
        }
        Verdict::Correct | Verdict::Incorrect { diagnosis: None } => {}
    }
    match parse(text) {
        // Unreadable text is rejected with a reason, never graded.
        Err(e) => {
            assert!(!e.reason.trim().is_empty(), "{text:?}: {e:?}");
            assert!(
                matches!(v, Verdict::Invalid { .. }),
                "{text:?} is unreadable ({}) but {v:?}",
                e.reason
            );
            if e.kind == InvalidKind::UnknownUnit && text.chars().count() < 30 {
                // The reason quotes the unit it could not read, which ends the text.
                let t = text.trim();
                let tail = t
                    .char_indices()
                    .rev()
                    .take_while(|(_, c)| !c.is_ascii_digit() && !".,".contains(*c))
                    .last()
                    .map_or("", |(i, _)| t[i..].trim());
                let reason = v.message().unwrap_or_default();
                assert!(
                    reason.contains(tail),
                    "{text:?}: {reason:?} does not name {tail:?}"
                );
            }
        }
        Ok(p) => {
            // A bare number is read in the stated unit (ms); a time is compared as is.
            let got = if p.bare {
                Some(p.quantity.value * 1e-3)
            } else if p.quantity.dimension == Dimension::TIME {
                Some(p.quantity.value)
            } else {
                None
            };
            match got {
                Some(got) => match clearly_within(got) {
                    Some(true) => assert!(v.is_correct(), "{text:?} = {got} s but {v:?}"),
                    Some(false) => assert!(
                        matches!(v, Verdict::Incorrect { .. }),
                        "{text:?} = {got} s but {v:?}"
                    ),
                    None => assert!(!matches!(v, Verdict::Invalid { .. }), "{text:?}: {v:?}"),
                },
                None => {
                    // A quantity of another kind: the reason says a time was wanted.
                    let reason = v.message().unwrap_or_default();
                    assert!(
                        matches!(v, Verdict::Invalid { .. }) && reason.contains("time"),
                        "{text:?} is {:?} but {v:?}",
                        p.quantity.dimension
                    );
                }
            }
        }
    }
}

/// Feeds one string to every entry point that reads reader text and checks
/// every answer.
fn feed(text: &str, ctx: &Context) {
    if let Ok(p) = parse(text) {
        assert!(
            p.quantity.value.is_finite(),
            "{text:?} gave {:?}",
            p.quantity
        );
        let again = parse(&format_quantity(&p.quantity));
        assert_eq!(again.map(|a| a.quantity), Ok(p.quantity), "{text:?}");
    }
    if text.len() < 12 {
        match parse_unit(text) {
            Ok(u) => assert!(u.factor.is_finite() && u.factor != 0.0, "{text:?}: {u:?}"),
            Err(e) => assert!(!e.reason.trim().is_empty(), "{text:?}: {e:?}"),
        }
    }
    check_verdict(text, &grade_numeric(EXPECTED, "ms", TOLERANCE, text, ctx));
    let vars = ["B", "D", "F", "N", "W_ici"];
    match parse_expr(text, &vars) {
        Ok(e) => {
            // A formula evaluates inside a larger one to what it evaluates to
            // alone: doubled, to exactly twice its value (doubling is exact in
            // floating point). Only what belongs to a whole answer (a leading
            // "~", a left side "T =", a trailing unit, the length limit) keeps
            // a formula from nesting.
            let at = [1.0, 2.0, 3.0, 4.0, 5.0];
            let x = e.eval(&at);
            match parse_expr(&format!("2*({text})"), &vars) {
                Ok(twice) => {
                    let y = twice.eval(&at);
                    assert!(
                        y == 2.0 * x || y.is_nan() && x.is_nan(),
                        "{text:?}: {x} doubled is {y}"
                    );
                }
                Err(e) => {
                    let t = text.trim();
                    let whole = t.contains(['~', '≈', '≃', '=', '<', '>', '≤', '≥'])
                        || t.ends_with(char::is_alphabetic)
                        || text.len() + 4 > MAX_EXPR_LEN;
                    assert!(whole, "{text:?} parses alone but not doubled: {e}");
                }
            }
        }
        Err(e) => {
            assert!(!e.reason.trim().is_empty(), "{text:?}: {e:?}");
            if let Some(p) = e.position {
                assert!(p <= text.chars().count(), "{text:?}: {e}");
            }
        }
    }
    let reference = "In[B, D_XY]";
    match grade_sharding(&[reference.to_string()], text) {
        Ok(ShardingMatch::Accepted(i)) => {
            assert_eq!(i, 0, "{text:?}");
            // Only the same array is accepted: B unsharded, D over X then Y.
            let t = text.trim();
            let a = ArraySpec::parse(t)
                .or_else(|_| ArraySpec::parse(&format!("A{t}")))
                .unwrap_or_else(|e| panic!("{text:?} accepted but unreadable: {e}"));
            let dims: Vec<_> = a
                .dims
                .iter()
                .map(|d| (d.name.as_str(), d.axes.clone()))
                .collect();
            assert_eq!(dims, [("B", vec![]), ("D", vec!['X', 'Y'])], "{text:?}");
        }
        Ok(ShardingMatch::Different) => {}
        Err(reason) => assert!(!reason.trim().is_empty(), "{text:?}"),
    }
}

fn ctx() -> Context {
    Context {
        counts: vec![("chips".into(), 32.0)],
        ..Context::default()
    }
}

proptest! {
    #![proptest_config(config(0xa5e0_0001, CASES))]
    #[test]
    fn arbitrary_unicode_never_panics(batch in prop::collection::vec(unicode(), BATCH)) {
        let c = ctx();
        for s in &batch {
            feed(s, &c);
        }
    }
}

proptest! {
    #![proptest_config(config(0xa5e0_0002, CASES))]
    #[test]
    fn near_valid_tokens_never_panic(batch in prop::collection::vec(near_valid(), BATCH)) {
        let c = ctx();
        for s in &batch {
            feed(s, &c);
        }
    }
}

fn dimension() -> impl Strategy<Value = Dimension> {
    (-3i8..=3, -3i8..=3, -3i8..=3, -2i8..=2).prop_map(|(t, b, f, m)| Dimension::new(t, b, f, m))
}

proptest! {
    #![proptest_config(config(0xa5e0_0003, 20_000))]
    #[test]
    fn format_then_parse_is_the_identity(
        value in prop_oneof![
            any::<f64>().prop_filter("finite", |x| x.is_finite()),
            -1e30f64..1e30,
            1e-12f64..1e20,
        ],
        dim in dimension(),
    ) {
        let q = Quantity { value, dimension: dim };
        let text = format_quantity(&q);
        let back = parse(&text).map(|p| p.quantity);
        prop_assert_eq!(back, Ok(q), "{}", text);
    }
}

#[test]
fn the_token_generator_reaches_valid_answers() {
    for (text, value) in [
        (
            ["1", ".", "5", "e", "3", " ", "tokens", "/s"].concat(),
            1500.0,
        ),
        (
            ["1", ",024", " ", "Gi", "B"].concat(),
            1024.0 * 1024.0 * 1024.0 * 1024.0,
        ),
        (["2", "^20"].concat(), 1_048_576.0),
    ] {
        let got = parse(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(got.quantity.value, value, "{text}");
    }
}
