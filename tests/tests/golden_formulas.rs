//! The book's answers that are formulas, shardings or quoted figures rather
//! than one number in the data, checked against `core` through the exercises:
//! the book's formula, typed as a reader would, grades correct against core's
//! reference; the book's figures are recomputed from the data's inputs.

#![allow(clippy::unwrap_used)]

use ridgeline_core::exercises::{exercise, Verdict};
use ridgeline_tests::{assert_rel, checked, problem};

fn grades(id: &str, text: &str) {
    let v = exercise(id).unwrap().grade(text);
    assert_eq!(v, Verdict::Correct, "{id}: the book's {text:?} gave {v:?}");
    checked(id);
}

fn refuses(id: &str, text: &str) {
    let v = exercise(id).unwrap().grade(text);
    assert_eq!(v.label(), "incorrect", "{id}: {text:?} gave {v:?}");
}

#[test]
pub(crate) fn the_books_formulas_grade_correct() {
    // "read BD + DF bytes; write BF bytes", one byte per value.
    assert_eq!(problem("ch1-q1a").input("bytes_per_value"), 1.0);
    grades("ch1-q1a", "BD + DF + BF");
    // "2BDF" FLOPs; forgetting the multiply-add's factor two is wrong.
    assert_eq!(problem("ch1-q1b").answer, "2BDF");
    grades("ch1-q1b", "2BDF");
    refuses("ch1-q1b", "BDF");
    refuses("ch1-q1a", "2BD + 2DF + 2BF");
    // "T_math = 2BDF/3.94e14", with the data's int8 peak.
    let c = problem("ch1-q1d").input("C_int8");
    grades("ch1-q1d", &format!("2BDF/{c:e}"));
    // "exactly B(N-1)/(W N^2)"; the book's "~B/(W*N)" is only the large-N limit.
    grades("ch12-c-pq2", "B(N-1)/(W N^2)");
    refuses("ch12-c-pq2", "B/(W*N)");
    // "B*N each way".
    grades("ch12-c-q2", "B*N");
    // "2*D*F/(Y*W_link)": W is the GPU's egress bandwidth here.
    grades("ch12-c-q3", "2*D*F/(Y*W)");
    refuses("ch12-c-q3", "2*D*F/W");
}

#[test]
pub(crate) fn the_books_shardings_grade_correct() {
    // "A[I_XYZ,J].B[J,K] or A[I,J].B[J,K_XYZ] ... these two options tie".
    grades("ch3-q5", "A[I_XYZ, J] · B[J, K]");
    grades("ch3-q5", "A[I, J] · B[J, K_XYZ]");
    refuses("ch3-q5", "A[I, J_XYZ] · B[J_XYZ, K]");
    // "B local [2048, 4096]" on the 4 × 2 mesh: B[J, K_Y] halves K = 8192.
    assert_eq!(problem("ch3-ex1").inputs["mesh"]["Y"], 2);
    grades("ch3-ex1", "B[J, K_Y]");
}

#[test]
pub(crate) fn the_books_quoted_figures() {
    // "~5e13 per MXU; ~2e14 per chip": MXUs × 128 × 128 multiply-adds × 2 × clock.
    let p = problem("ch2-ex1");
    let chip = p.input("mxus") * 128.0 * 128.0 * 2.0 * p.input("clock_hz");
    let ex = exercise("ch2-ex1").unwrap();
    assert_rel("ch2-ex1", ex.expected_value().unwrap(), chip, 1e-9);
    assert_rel("ch2-ex1 per MXU", chip / p.input("mxus"), 5e13, 0.02);
    // No book answer: the weights over the slice's HBM bandwidth.
    let p = problem("ch7-q6a");
    let load = p.input("params_bytes") / (p.input("chips") * p.input("W"));
    assert_rel(
        "ch7-q6a",
        exercise("ch7-q6a").unwrap().expected_value().unwrap(),
        load,
        0.01,
    );
    // "514 GB/s; 413 GB/s; 17.1 TB/s => 413 GB/s overall".
    let ex = exercise("ch12-c-ex1").unwrap();
    assert_rel("ch12-c-ex1", ex.expected_value().unwrap(), 413e9, 0.01);
    // The book's rounded 16e9 parameters slip; the exact count is the data's
    // recomputation from the model's shape.
    let p = problem("ch4-q1a");
    let exact = p.recomputed.as_f64().unwrap();
    assert_rel(
        "ch4-q1a",
        exercise("ch4-q1a").unwrap().expected_value().unwrap(),
        exact,
        1e-4,
    );
}
