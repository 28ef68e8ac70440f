//! The sharding parsers and the planner must never panic, whatever the text.
//!
//! Two generators, each run over a fixed seed: arbitrary Unicode strings, and
//! near-valid sequences of the notation's own tokens (which reach much deeper
//! into the parser and the planner). Each proptest case feeds a batch of strings,
//! so the file feeds well over a million strings in total while staying fast in
//! debug builds.

use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use ridgeline_core::hardware::chip;
use ridgeline_core::sharding::plan::{MatmulPlan, PlanOptions, Strategy as CaseTwo};
use ridgeline_core::sharding::{ArraySpec, Dims, MatmulSpec, Mesh};

/// Strings fed per proptest case.
const BATCH: usize = 125;
/// Proptest cases per generator: 2 generators × 4,000 cases × 125 strings = 1,000,000.
const CASES: u32 = 4_000;

fn config(seed: u64) -> Config {
    Config {
        cases: CASES,
        rng_seed: RngSeed::Fixed(seed),
        failure_persistence: None,
        ..Config::default()
    }
}

const TOKENS: &[&str] = &[
    "A",
    "B",
    "C",
    "W_in",
    "Out",
    "x",
    "[",
    "]",
    "[",
    "]",
    ",",
    ",",
    "_",
    "_X",
    "_Y",
    "_XY",
    "_YX",
    "_Z",
    "_Q",
    "_",
    "I",
    "J",
    "K",
    "L",
    "D",
    "F",
    "·",
    "*",
    "@",
    "x",
    "×",
    "->",
    "→",
    "-",
    ">",
    "{",
    "}",
    "{U_X}",
    "{U_Y}",
    "U_",
    " ",
    " ",
    "  ",
    "=",
    ":",
    "4",
    "2",
    "0",
    "1",
    "65536",
    "99999999999999999999",
    "'",
    "\"",
    "Mesh(",
    ")",
    "(",
    "é",
    "\u{0}",
    "\u{200b}",
    "\\cdot",
    "X",
    "Y",
    "Z",
    "X=4",
    "Y=2",
    "I=8",
    "J=16",
    "K=4",
    ";",
    "\n",
    "\t",
    "🙂",
];

fn near_valid() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(TOKENS), 0..24).prop_map(|v| v.concat())
}

/// Arbitrary Unicode text, up to 40 characters.
fn unicode() -> impl Strategy<Value = String> {
    prop::collection::vec(any::<char>(), 0..40).prop_map(|v| v.into_iter().collect())
}

/// Feeds one string to every entry point in every role.
fn feed(text: &str) {
    let v5e = chip("v5e").expect("v5e is in the registry");
    let _ = ArraySpec::parse(text).map(|a| a.to_string());
    let _ = Mesh::parse(text).map(|m| m.to_string());
    let _ = Dims::parse(text);
    if let Ok(spec) = MatmulSpec::parse(text) {
        let _ = spec.to_string();
        let mesh = Mesh::parse("X=4, Y=2, Z=2").expect("mesh");
        let dims = Dims::parse("I=16, J=32, K=8, L=4, D=64, F=16").expect("dims");
        for strategy in [CaseTwo::GatherFirst, CaseTwo::ReduceAfter] {
            let opts = PlanOptions::for_chip(v5e)
                .expect("v5e has ICI")
                .with_strategy(strategy);
            if let Ok(plan) = MatmulPlan::build(&spec, &mesh, &dims, &opts) {
                let _ = plan.to_string();
                let _ = plan.device_blocks();
                let _ = ridgeline_core::emulator::run(&plan, 1);
            }
        }
    }
    let _ = MatmulPlan::parse("A[I_X, J] · B[J, K_Y]", text, "I=64, J=64, K=64", v5e);
    let _ = MatmulPlan::parse("A[I_X, J] · B[J, K_Y]", "X=4, Y=2", text, v5e);
}

proptest! {
    #![proptest_config(config(0x5eed_0001))]
    #[test]
    fn arbitrary_unicode_never_panics(batch in prop::collection::vec(unicode(), BATCH)) {
        for s in &batch {
            feed(s);
        }
    }
}

proptest! {
    #![proptest_config(config(0x5eed_0002))]
    #[test]
    fn near_valid_tokens_never_panic(batch in prop::collection::vec(near_valid(), BATCH)) {
        for s in &batch {
            feed(s);
        }
    }
}

#[test]
fn the_token_generator_reaches_valid_plans() {
    // The near-valid generator is only useful if valid specs are among its outputs;
    // check one hand-made sequence of its tokens parses and plans.
    let text = [
        "A", "[", "I", "_X", ",", "J", "]", "·", "B", "[", "J", ",", "K", "_Y", "]",
    ]
    .concat();
    let plan = MatmulPlan::parse(
        &text,
        "X=4, Y=2",
        "I=8, J=16, K=4",
        chip("v5e").expect("v5e"),
    );
    assert!(plan.is_ok(), "{plan:?}");
}
