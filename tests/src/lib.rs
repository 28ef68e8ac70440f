//! Shared helpers for ridgeline's cross-crate tests.
//!
//! The book's problems live in `data/problems.json` (ids, inputs, answers,
//! tolerances and the consistency check of each; the question texts are left
//! out). Golden tests look a problem up by id and compare `core`'s value with the
//! book's answer within the problem's own tolerance.

use serde::Deserialize;
use serde_json::Value;
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};

/// The problem data, embedded at compile time so tests read no files at run time.
pub const PROBLEMS_JSON: &str = include_str!("../../data/problems.json");

/// One problem of the book, as recorded in `data/problems.json`.
#[derive(Debug, Clone, Deserialize)]
pub struct Problem {
    /// Stable id, e.g. `ch1-q2`.
    pub id: String,
    /// Book part.
    pub chapter: u8,
    /// The book's answer: a number, a string for symbolic answers, or null.
    pub answer: Value,
    /// The answer's unit as the book states it.
    pub unit: String,
    /// Relative tolerance for numeric answers.
    pub tolerance_rel: Option<f64>,
    /// The inputs the book uses.
    pub inputs: BTreeMap<String, Value>,
    /// The data compiler's recomputation.
    pub recomputed: Value,
    /// Whether the recomputation agrees with the book.
    pub check: String,
    /// A value computed where the book gives none.
    #[serde(default)]
    pub computed_answer: Value,
    /// The kind: worked example, question or pop quiz.
    pub kind: String,
}

impl Problem {
    /// The numeric answer, if the book's answer is a number.
    pub fn numeric_answer(&self) -> Option<f64> {
        self.answer.as_f64()
    }

    /// A numeric input by name; panics with the problem id if absent (tests only).
    pub fn input(&self, name: &str) -> f64 {
        self.inputs
            .get(name)
            .and_then(Value::as_f64)
            .unwrap_or_else(|| panic!("{}: no numeric input {name}", self.id))
    }
}

/// Every problem, in file order.
pub fn problems() -> Vec<Problem> {
    serde_json::from_str(PROBLEMS_JSON).expect("data/problems.json parses")
}

/// The problem with `id`; panics if absent (tests only).
pub fn problem(id: &str) -> Problem {
    problems()
        .into_iter()
        .find(|p| p.id == id)
        .unwrap_or_else(|| panic!("no problem {id}"))
}

/// Asserts that `value` matches the book's numeric answer to `id` within its tolerance
/// (with a floor of 1e-9 so exact answers compare exactly up to rounding).
pub fn assert_book(id: &str, value: f64) {
    let p = problem(id);
    let expected = p
        .numeric_answer()
        .unwrap_or_else(|| panic!("{id}: the book's answer is not numeric"));
    let tol = p.tolerance_rel.unwrap_or(0.0).max(1e-9);
    let rel = if expected == 0.0 {
        value.abs()
    } else {
        ((value - expected) / expected).abs()
    };
    assert!(
        rel <= tol,
        "{id}: core computed {value}, the book says {expected} {} (relative error {rel:.4} > tolerance {tol})",
        p.unit
    );
    checked(id);
}

/// Asserts `value` is within `tol` (relative) of `expected`: for answers the
/// book gets wrong, compared against the corrected value instead.
pub fn assert_rel(what: &str, value: f64, expected: f64, tol: f64) {
    let rel = ((value - expected) / expected).abs();
    assert!(
        rel <= tol,
        "{what}: computed {value}, expected {expected} (relative error {rel:.4} > {tol})"
    );
    // "ch8-q2a exercise" or "ch4-q1a (exact)" checks the problem its label starts with.
    if let Some(id) = what.split([' ', '(']).next() {
        checked(id);
    }
}

thread_local! {
    /// The ids checked on this thread while [`exercised_by`] runs its tests.
    static CHECKED: RefCell<Option<BTreeSet<String>>> = const { RefCell::new(None) };
}

/// Records that an assertion about problem `id` has just passed. [`assert_book`]
/// and [`assert_rel`] call it; a test that checks a problem with other asserts
/// (a letter, a formula, an ordering) calls it after them.
pub fn checked(id: &str) {
    CHECKED.with(|c| {
        if let Some(set) = c.borrow_mut().as_mut() {
            set.insert(id.to_string());
        }
    });
}

/// Runs `tests` one after another on this thread and returns the ids of every
/// problem an assertion in them checked (a failing test panics through).
pub fn exercised_by(tests: &[(&str, fn())]) -> BTreeSet<String> {
    CHECKED.with(|c| *c.borrow_mut() = Some(BTreeSet::new()));
    for (_, test) in tests {
        test();
    }
    CHECKED.with(|c| c.borrow_mut().take().unwrap_or_default())
}

/// The names of the `#[test]` functions of a source file, in order (the
/// attribute on a line of its own, not in a comment).
pub fn test_names(src: &str) -> Vec<String> {
    src.split("\n#[test]\n")
        .skip(1)
        .filter_map(|chunk| {
            let start = chunk.find("fn ")?;
            Some(
                chunk[start + 3..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect(),
            )
        })
        .collect()
}
