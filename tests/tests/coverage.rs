//! Every problem of the book is exercised by a golden test: its id is used
//! inside the body of a `#[test]` function of `golden_ch*.rs` that asserts
//! something (not merely listed), and every id is graded by the exercise tests
//! through the registry.

#![allow(clippy::unwrap_used)]

use ridgeline_core::exercises::registry::covered_ids;
use ridgeline_tests::problems;

/// The golden test sources, embedded at compile time.
const GOLDEN: &[(&str, &str)] = &[
    ("golden_ch1.rs", include_str!("golden_ch1.rs")),
    ("golden_ch2.rs", include_str!("golden_ch2.rs")),
    ("golden_ch3.rs", include_str!("golden_ch3.rs")),
    ("golden_ch4.rs", include_str!("golden_ch4.rs")),
    ("golden_ch5.rs", include_str!("golden_ch5.rs")),
    ("golden_ch6.rs", include_str!("golden_ch6.rs")),
    ("golden_ch7.rs", include_str!("golden_ch7.rs")),
    ("golden_ch8.rs", include_str!("golden_ch8.rs")),
    ("golden_ch9.rs", include_str!("golden_ch9.rs")),
    ("golden_ch10.rs", include_str!("golden_ch10.rs")),
    ("golden_ch12.rs", include_str!("golden_ch12.rs")),
];

/// Test files that exercise problems of any part through the exercises.
const ANY_PART: &[&str] = &[
    include_str!("golden_formulas.rs"),
    include_str!("exercises.rs"),
];

/// The multiple-choice table of `exercises.rs`, whose test asserts every entry
/// (the correct option is the book's letter and states the book's numbers).
fn book_letters() -> &'static str {
    let src = include_str!("exercises.rs");
    let start = src.find("const BOOK_LETTERS").unwrap();
    let end = start + src[start..].find("];").unwrap();
    &src[start..end]
}

/// The bodies of the `#[test]` functions of a source file, with their names.
fn test_bodies(src: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for chunk in src.split("#[test]").skip(1) {
        let Some(start) = chunk.find("fn ") else {
            continue;
        };
        let name: String = chunk[start + 3..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        // The body runs to the next item at the start of a line.
        let end = chunk
            .match_indices("\n}")
            .next()
            .map_or(chunk.len(), |(i, _)| i);
        out.push((name, chunk[..end].to_string()));
    }
    out
}

/// Whether `body` uses `id` as a string literal, or builds it from a
/// `format!` pattern whose fixed parts match.
fn uses(body: &str, id: &str) -> bool {
    if body.contains(&format!("\"{id}\"")) {
        return true;
    }
    // `format!("ch8-q5-{}-minchips", …)`-style ids: the literal parts around `{…}`.
    body.split('"').skip(1).step_by(2).any(|lit| {
        lit.contains('{') && {
            let parts: Vec<&str> = lit
                .split(['{', '}'])
                .enumerate()
                .filter(|(i, _)| i % 2 == 0)
                .map(|(_, p)| p)
                .collect();
            parts.len() > 1
                && id.starts_with(parts[0])
                && id.ends_with(parts[parts.len() - 1])
                && !parts[0].is_empty()
        }
    })
}

#[test]
fn every_problem_is_exercised_by_a_golden_test() {
    let mut missing = Vec::new();
    for p in problems() {
        let file = format!("golden_ch{}.rs", p.chapter);
        let src = GOLDEN
            .iter()
            .find(|(f, _)| *f == file)
            .map(|(_, s)| *s)
            .unwrap_or_else(|| panic!("no {file}"));
        let in_test = |src: &str| {
            test_bodies(src).iter().any(|(name, body)| {
                !name.starts_with("every_part") && body.contains("assert") && uses(body, &p.id)
            })
        };
        let exercised = in_test(src)
            || ANY_PART.iter().any(|s| in_test(s))
            || book_letters().contains(&format!("\"{}\"", p.id));
        if !exercised {
            missing.push(p.id.clone());
        }
    }
    assert!(
        missing.is_empty(),
        "{} problems without a golden test: {missing:?}",
        missing.len()
    );
}

/// Every problem is a registered exercise, which the exercise tests grade with
/// the book's value (`book_answers.rs`) and perturb (`grading_props.rs`).
#[test]
fn every_problem_is_a_graded_exercise() {
    let ids = covered_ids();
    for p in problems() {
        assert!(ids.contains(&p.id.as_str()), "{} is not an exercise", p.id);
    }
    assert_eq!(ids.len(), problems().len());
}
