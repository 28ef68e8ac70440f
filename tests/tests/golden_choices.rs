//! The book's multiple-choice answers: for every multiple-choice exercise,
//! the option core derives is the book's letter, and where the book's answer is
//! quantitative that option states the book's numbers.

#![allow(clippy::unwrap_used)]

use ridgeline_core::exercises::registry::exercises;
use ridgeline_core::exercises::Answer;
use ridgeline_core::exercises::Verdict;
use ridgeline_tests::{assert_rel, problem};

/// The letter of the option that states the book's answer (the options are
/// ours; the book states the answer in words, quoted from `data/problems.json`
/// in the failure message).
const BOOK_LETTERS: &[(&str, &str)] = &[
    ("ch1-q3", "b"),
    ("ch3-q4c", "a"),
    // Q6 and Q8: the book prints no answer; the letters are ours (core's planner and cost model).
    ("ch3-q6a", "b"),
    ("ch3-q6b", "c"),
    ("ch3-q6c", "a"),
    ("ch3-q7c", "a"),
    ("ch3-q8", "a"),
    ("ch3-q9a", "a"),
    ("ch3-q9b", "a"),
    ("ch5-q3a", "b"),
    ("ch5-q3b-comms", "b"),
    ("ch6-q7", "b"),
    // Worked problems 1 and 2(b): no book answer; the letters are ours (core's thresholds).
    ("ch6-wp1a", "b"),
    ("ch6-wp2b", "c"),
    ("ch8-q4", "a"),
    ("ch9-q1", "b"),
    ("ch10-ex1", "a"),
    ("ch10-ex3", "b"),
    ("ch12-ex5", "a"),
    ("ch12-q3c", "a"),
    ("ch12-ex6", "a"),
    ("ch12-b-q2", "a"),
    ("ch12-c-pq3", "a"),
    ("ch12-c-q1", "a"),
    ("ch12-c-q4", "a"),
    ("ch12-c-q5", "a"),
    ("ch12-r-q3d", "a"),
];

/// The numbers in a text, in order (`6.4 TB/s` gives 6.4; `1,182` gives 1182).
fn numbers(text: &str) -> Vec<f64> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for c in text.chars().chain([' ']) {
        if c.is_ascii_digit() || (c == '.' && !cur.is_empty()) || (c == ',' && !cur.is_empty()) {
            if c != ',' {
                cur.push(c);
            }
        } else if !cur.is_empty() {
            if let Ok(v) = cur.trim_end_matches('.').parse() {
                out.push(v);
            }
            cur.clear();
        }
    }
    out
}

/// Every multiple-choice exercise: core's correct option is the book's letter,
/// the letter, `(b)`, `b)`, `option b` and the option's text grade the same,
/// every other option grades incorrect, and where the book's answer is
/// quantitative the correct option states the book's numbers (within 1%).
#[test]
pub(crate) fn choice_answers_match_the_book() {
    let quantitative = ["ch8-q4", "ch12-q3c", "ch12-ex6", "ch12-ex5"];
    let mut checked = 0;
    for ex in exercises() {
        let Answer::Choice { options, correct } = &ex.answer else {
            continue;
        };
        let book = problem(ex.id);
        let letter = BOOK_LETTERS
            .iter()
            .find(|(id, _)| *id == ex.id)
            .map(|(_, l)| *l)
            .unwrap_or_else(|| panic!("{}: no book letter", ex.id));
        assert_eq!(*correct, letter, "{}: the book says {}", ex.id, book.answer);
        let text = &options.iter().find(|(id, _)| id == correct).unwrap().1;
        for typed in [
            letter.to_string(),
            format!("({letter})"),
            format!("{letter})"),
            format!("option {letter}"),
            letter.to_uppercase(),
            text.clone(),
            format!("{letter}) {text}"),
        ] {
            assert_eq!(ex.grade(&typed), Verdict::Correct, "{}: {typed:?}", ex.id);
        }
        for (id, _) in options.iter().filter(|(id, _)| id != correct) {
            assert_eq!(ex.grade(id).label(), "incorrect", "{}: {id}", ex.id);
        }
        if quantitative.contains(&ex.id) {
            let want = numbers(book.answer.as_str().unwrap());
            let have = numbers(text);
            assert!(
                !want.is_empty() && want.len() <= have.len(),
                "{}: {want:?} vs {have:?}",
                ex.id
            );
            for (w, h) in want.iter().zip(&have) {
                assert_rel(ex.id, *h, *w, 0.01);
            }
        }
        checked += 1;
        ridgeline_tests::checked(ex.id);
    }
    assert_eq!(checked, BOOK_LETTERS.len());
}
