//! The answer parsers and graders must never panic, whatever the reader types,
//! and formatting a quantity must parse back to the same quantity.
//!
//! Two generators, each over a fixed seed: arbitrary Unicode strings, and
//! near-valid soups of the parsers' own tokens (numbers, prefixes, units,
//! operators, variables). Each proptest case feeds a batch of strings: 2
//! generators × 4,000 cases × 125 strings = 1,000,000 strings in total.

use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use ridgeline_core::exercises::expr::parse_expr;
use ridgeline_core::exercises::grade::{grade_numeric, Context};
use ridgeline_core::exercises::quantity::{
    format_quantity, parse, parse_unit, Dimension, Quantity,
};
use ridgeline_core::exercises::sharding_answer::grade_sharding;

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

/// Feeds one string to every entry point that reads reader text.
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
        let _ = parse_unit(text);
    }
    let v = grade_numeric(1.0111e-3, "ms", 0.02, text, ctx);
    let _ = v.label();
    let _ = parse_expr(text, &["B", "D", "F", "N", "W_ici"]).map(|e| e.eval(&[1.0, 2.0, 3.0, 4.0]));
    let _ = grade_sharding(&["In[B, D_XY]".to_string()], text);
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
    for text in [
        ["1", ".", "5", "e", "3", " ", "tokens", "/s"].concat(),
        ["1", ",024", " ", "Gi", "B"].concat(),
        ["2", "^20"].concat(),
    ] {
        assert!(parse(&text).is_ok(), "{text}");
    }
}
