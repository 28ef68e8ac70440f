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
use ridgeline_core::sharding::emulator;
use ridgeline_core::sharding::plan::{MatmulPlan, Operand, PlanOptions, Strategy as CaseTwo};
use ridgeline_core::sharding::{ArraySpec, Dims, ErrorKind, MatmulSpec, Mesh, ShardingError};

/// Strings fed per proptest case.
const BATCH: usize = 125;
/// Proptest cases per generator: 2 generators × 4,000 cases × 125 strings = 1,000,000,
/// plus 500 × 125 structured matmuls that mostly plan.
const CASES: u32 = 4_000;

fn config(seed: u64) -> Config {
    Config {
        cases: CASES,
        rng_seed: RngSeed::Fixed(seed),
        failure_persistence: None,
        // A failing batch of 125 strings shrinks slowly; the message names the string.
        max_shrink_iters: 32,
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

/// A rejection must say what was wrong and point inside the text it read.
fn check_error(text: &str, e: &ShardingError) {
    assert!(
        !e.message.trim().is_empty(),
        "{text:?}: a {:?} rejection without a message",
        e.kind
    );
    if let Some(p) = e.position {
        assert!(
            p <= text.len() && text.is_char_boundary(p),
            "{text:?}: position {p} is not a place in the text ({e})"
        );
    }
    // Errors about a named axis or dimension name it.
    match e.kind {
        ErrorKind::AxisReused | ErrorKind::UnknownAxis => assert!(
            e.message
                .split(|c: char| !c.is_ascii_alphabetic())
                .any(|w| w.len() == 1 && text.contains(w)),
            "{text:?}: {e} names no axis of the text"
        ),
        _ => {}
    }
}

/// An array's name, its dimensions with their mesh axes, and its unreduced axes.
type Shape = (String, Vec<(String, Vec<char>)>, Vec<char>);

/// The fields of an array that its printed form must keep (positions are not).
fn array_shape(a: &ArraySpec) -> Shape {
    let mut unreduced = a.unreduced.clone();
    unreduced.sort_unstable();
    (
        a.name.clone(),
        a.dims
            .iter()
            .map(|d| (d.name.clone(), d.axes.clone()))
            .collect(),
        unreduced,
    )
}

/// An accepted array prints to text that parses back to the same array.
fn check_array_round_trip(text: &str, a: &ArraySpec) {
    let printed = a.to_string();
    let again = ArraySpec::parse(&printed)
        .unwrap_or_else(|e| panic!("{text:?} printed as {printed:?}, which is rejected: {e}"));
    assert_eq!(
        array_shape(&again),
        array_shape(a),
        "{text:?} → {printed:?}"
    );
    assert_eq!(again.to_string(), printed, "{text:?}");
}

/// An accepted plan is valid: its blocks tile every array, the emulator computes
/// the unsharded product while moving the bytes the plan charges, and its printed
/// layouts, mesh and sizes rebuild the same plan.
fn check_plan(text: &str, plan: &MatmulPlan, dims: &Dims, opts: &PlanOptions) {
    assert!(!plan.cases.is_empty(), "{text:?}: a plan with no case");
    let printed = plan.to_string();
    assert!(
        printed.contains(&plan.mesh.to_string()),
        "{text:?}: {printed}"
    );
    assert_eq!(
        printed.lines().count(),
        plan.steps.len() + 1,
        "{text:?}: one line per step: {printed}"
    );
    let devices = plan.mesh.devices();
    let blocks = plan.device_blocks();
    assert_eq!(blocks.len(), devices, "{text:?}");
    for (op, layout, pick) in [
        (Operand::A, &plan.a, 0),
        (Operand::B, &plan.b, 1),
        (Operand::C, &plan.output, 2),
    ] {
        let [r, c] = plan.shape(op);
        let local = plan.local_shape(op, layout);
        let held: u64 = blocks
            .iter()
            .map(|b| [b.a, b.b, b.c][pick])
            .inspect(|b| assert_eq!([b.rows.len(), b.cols.len()], local, "{text:?}: {op:?}"))
            .map(|b| b.elements())
            .sum();
        // Every element is held by as many devices as the layout replicates it on.
        let copies = devices as u64
            / plan
                .mesh
                .size_of(&[layout.rows.clone(), layout.cols.clone()].concat());
        assert_eq!(held, r * c * copies, "{text:?}: {op:?} blocks do not tile");
    }
    let run = emulator::run(plan, 1).unwrap_or_else(|e| panic!("{text:?}: {e}"));
    let want = emulator::reference(plan, 1).unwrap_or_else(|e| panic!("{text:?}: {e}"));
    let diff = run.result.max_abs_diff(&want).expect("same shape");
    assert!(
        diff < 1e-3,
        "{text:?}: the emulated product is off by {diff}"
    );
    let (t, p) = (run.trace.total_bytes().0, plan.total_bytes().0);
    assert!(
        (t - p).abs() <= 1e-9 * p.max(1.0),
        "{text:?}: trace {t} vs plan {p} bytes"
    );
    // The printed form of the plan: its layouts in the notation, the mesh, the sizes.
    let spec_text = format!(
        "{} · {} -> {}",
        plan.notation(Operand::A, &plan.a),
        plan.notation(Operand::B, &plan.b),
        plan.notation(Operand::C, &plan.output)
    );
    let spec = MatmulSpec::parse(&spec_text)
        .unwrap_or_else(|e| panic!("{text:?} printed as {spec_text:?}, rejected: {e}"));
    let mesh = Mesh::parse(&plan.mesh.to_string()).expect("a printed mesh parses");
    assert_eq!(mesh, plan.mesh, "{text:?}");
    let again = MatmulPlan::build(&spec, &mesh, dims, opts)
        .unwrap_or_else(|e| panic!("{text:?} printed as {spec_text:?}, which does not plan: {e}"));
    assert_eq!(again.steps, plan.steps, "{text:?} → {spec_text:?}");
    assert_eq!(again.output, plan.output, "{text:?} → {spec_text:?}");
    assert_eq!(again.to_string(), printed, "{text:?} → {spec_text:?}");
}

/// Feeds one string to every entry point in every role and checks every answer.
fn feed(text: &str) {
    let v5e = chip("v5e").expect("v5e is in the registry");
    match ArraySpec::parse(text) {
        Ok(a) => check_array_round_trip(text, &a),
        Err(e) => check_error(text, &e),
    }
    match Mesh::parse(text) {
        Ok(m) => {
            assert!(m.devices() >= 1, "{text:?}");
            let printed = m.to_string();
            assert_eq!(
                Mesh::parse(&printed).as_ref(),
                Ok(&m),
                "{text:?} → {printed:?}"
            );
        }
        Err(e) => check_error(text, &e),
    }
    match Dims::parse(text) {
        Ok(d) => {
            assert!(d.iter().all(|(_, s)| s >= 1), "{text:?}");
            let printed = d
                .iter()
                .map(|(n, s)| format!("{n}={s}"))
                .collect::<Vec<_>>()
                .join(", ");
            assert_eq!(
                Dims::parse(&printed).as_ref(),
                Ok(&d),
                "{text:?} → {printed:?}"
            );
        }
        Err(e) => check_error(text, &e),
    }
    match MatmulSpec::parse(text) {
        Ok(spec) => {
            let printed = spec.to_string();
            let again = MatmulSpec::parse(&printed)
                .unwrap_or_else(|e| panic!("{text:?} printed as {printed:?}, rejected: {e}"));
            assert_eq!(array_shape(&again.a), array_shape(&spec.a), "{text:?}");
            assert_eq!(array_shape(&again.b), array_shape(&spec.b), "{text:?}");
            assert_eq!(
                again.c.as_ref().map(array_shape),
                spec.c.as_ref().map(array_shape),
                "{text:?}"
            );
            let mesh = Mesh::parse("X=4, Y=2, Z=2").expect("mesh");
            let dims = Dims::parse("I=16, J=32, K=8, L=4, D=64, F=16").expect("dims");
            for strategy in [CaseTwo::GatherFirst, CaseTwo::ReduceAfter] {
                let opts = PlanOptions::for_chip(v5e)
                    .expect("v5e has ICI")
                    .with_strategy(strategy);
                match MatmulPlan::build(&spec, &mesh, &dims, &opts) {
                    Ok(plan) => check_plan(text, &plan, &dims, &opts),
                    Err(e) => check_error(text, &e),
                }
            }
        }
        Err(e) => check_error(text, &e),
    }
    // The text as a mesh, then as sizes, for a valid matmul: a rejection points
    // into that text (or nowhere).
    let spec = "A[I_X, J] · B[J, K_Y]";
    for (mesh, dims) in [(text, "I=64, J=64, K=64"), ("X=4, Y=2", text)] {
        match MatmulPlan::parse(spec, mesh, dims, v5e) {
            Ok(plan) => {
                assert_eq!(plan.mesh, Mesh::parse(mesh).expect("accepted"), "{text:?}");
                let d = Dims::parse(dims).expect("accepted");
                let size = |n| d.get(n).unwrap_or(0);
                assert_eq!(plan.dims, [size("I"), size("J"), size("K")], "{text:?}");
            }
            Err(e) => {
                assert!(!e.message.trim().is_empty(), "{text:?}: {e:?}");
                let longest = spec.len().max(mesh.len()).max(dims.len());
                assert!(e.position.is_none_or(|p| p <= longest), "{text:?}: {e}");
            }
        }
    }
}

/// Mesh axes a dimension may be split over (the mesh is X=4, Y=2, Z=2).
const SPLITS: &[&str] = &[
    "", "", "_X", "_Y", "_Z", "_XY", "_YX", "_XZ", "_YZ", "_XYZ", "_ZYX", "_W",
];

/// A matmul in the notation with random shardings and spellings: most are valid
/// plans, so the plan checks (tiling, emulation, costs, round trip) run often.
fn structured() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(prop::sample::select(SPLITS), 6),
        prop::sample::select(&[" · ", "·", " x ", " @ ", " * ", " × "][..]),
        prop::sample::select(&[" -> ", "→", " → ", ""][..]),
        prop::sample::select(&["", "", "{U_X}", "{U_Y}", "{U_XZ}", "{U_W}"][..]),
    )
        .prop_map(|(s, op, arrow, unreduced)| {
            let mut t = format!("A[I{}, J{}]{op}B[J{}, K{}]", s[0], s[1], s[2], s[3]);
            if !arrow.is_empty() {
                t.push_str(&format!("{arrow}C[I{}, K{}]{unreduced}", s[4], s[5]));
            }
            t
        })
}

proptest! {
    #![proptest_config(Config { cases: CASES / 8, ..config(0x5eed_0003) })]
    #[test]
    fn structured_matmuls_plan_consistently(batch in prop::collection::vec(structured(), BATCH)) {
        for s in &batch {
            feed(s);
        }
    }
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
    // A[I_X, J] · B[J, K_Y]: J is unsharded, so this is the book's case 1,
    // a local matmul that needs no communication and leaves C[I_X, K_Y].
    let plan = plan.unwrap_or_else(|e| panic!("{text}: {e}"));
    assert_eq!(plan.dims, [8, 16, 4]);
    assert!(!plan.reshard, "{plan:?}");
    assert_eq!(plan.output, plan.natural);
}
