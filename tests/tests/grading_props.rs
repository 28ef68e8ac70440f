//! A property test over every numeric exercise (the book's numbers and five
//! seeded variants each): answers within the stated precision pass; twice,
//! half, ten times, a tenth of the answer and a unit-prefix slip are graded
//! incorrect with a diagnosis that names the quantity and a cause fitting its
//! unit (bytes-only causes only for bytes).

#![allow(clippy::unwrap_used)]

use ridgeline_core::exercises::grade::{Mistake, Precision, MAX_BYTES_TOLERANCE};
use ridgeline_core::exercises::quantity::{format_in, Dimension, Quantity};
use ridgeline_core::exercises::registry::exercises;
use ridgeline_core::exercises::Answer;
use ridgeline_core::exercises::{Exercise, Verdict};

/// A value as a reader types it in the exercise's unit, with every digit.
fn typed(ex: &Exercise, value: f64, dimension: Dimension) -> String {
    let Answer::Numeric { unit, .. } = &ex.answer else {
        unreachable!()
    };
    format_in(&Quantity { value, dimension }, unit, 15)
}

/// The diagnosis of `text`, which must be graded incorrect with one.
fn diagnosis(ex: &Exercise, text: &str) -> (Mistake, String) {
    match ex.grade(text) {
        Verdict::Incorrect { diagnosis: Some(d) } => (d.mistake, d.message),
        v => panic!("{} (seed {}): {text:?} gave {v:?}", ex.id, ex.seed),
    }
}

/// Whether a message is about this exercise's quantity: it names the quantity,
/// or it is one of the exercise's own perturbations (its computation).
fn relevant(ex: &Exercise, mistake: &Mistake, message: &str, dimension: Dimension) -> bool {
    if matches!(mistake, Mistake::Perturbation(_) | Mistake::BookSlip) {
        return !message.is_empty();
    }
    let byte_only = ["binary ones", "bits and bytes"];
    if dimension.bytes == 0 && byte_only.iter().any(|b| message.contains(b)) {
        return false;
    }
    if dimension != Dimension::TIME && message.contains("milliseconds") {
        return false;
    }
    let _ = ex;
    message.starts_with("Your ")
}

#[test]
fn precision_and_slips_over_every_exercise() {
    let (mut exercises_checked, mut within, mut slips) = (0, 0, 0);
    for base in exercises() {
        for seed in [0u64, 1, 2, 3, 4, 5] {
            let ex = base.variant(seed);
            let Answer::Numeric {
                value,
                dimension,
                precision,
                tolerance,
                ..
            } = ex.answer.clone()
            else {
                continue;
            };
            if dimension.bytes != 0 {
                assert!(tolerance <= MAX_BYTES_TOLERANCE, "{}: {tolerance}", ex.id);
            }
            // Within the stated precision.
            let inside: &[f64] = match precision {
                Precision::Exact => &[1.0],
                _ => &[1.0 - 0.9 * tolerance, 1.0 + 0.9 * tolerance],
            };
            for f in inside {
                let t = typed(&ex, value * f, dimension);
                assert_eq!(
                    ex.grade(&t),
                    Verdict::Correct,
                    "{} seed {seed}: {t:?}",
                    ex.id
                );
                within += 1;
            }
            // Twice, half, ten times, a tenth.
            for (f, word) in [(2.0, "twice"), (0.5, "half"), (10.0, "10×"), (0.1, "1/10")] {
                let t = typed(&ex, value * f, dimension);
                let (m, msg) = diagnosis(&ex, &t);
                assert!(
                    relevant(&ex, &m, &msg, dimension),
                    "{} seed {seed}: {t:?}: {msg}",
                    ex.id
                );
                let own = matches!(m, Mistake::Perturbation(_) | Mistake::BookSlip);
                assert!(
                    own || msg.contains(word),
                    "{} seed {seed}: {t:?}: {msg}",
                    ex.id
                );
                slips += 1;
            }
            // A prefix slip: GB for GiB on bytes, a factor of 1000 otherwise.
            let (f, want): (f64, fn(&Mistake) -> bool) = if dimension.bytes != 0 {
                (1.073_741_824, |m| {
                    matches!(m, Mistake::BinaryPrefix(3) | Mistake::Perturbation(_))
                })
            } else {
                (1000.0, |m| {
                    matches!(m, Mistake::PowerOfTen(3) | Mistake::Perturbation(_))
                })
            };
            let t = typed(&ex, value * f, dimension);
            let (m, msg) = diagnosis(&ex, &t);
            assert!(want(&m), "{} seed {seed}: {t:?}: {m:?} {msg}", ex.id);
            assert!(
                relevant(&ex, &m, &msg, dimension),
                "{} seed {seed}: {t:?}: {msg}",
                ex.id
            );
            slips += 1;
            exercises_checked += 1;
        }
    }
    eprintln!("property: {exercises_checked} numeric exercise variants, {within} answers within precision accepted, {slips} slips diagnosed");
    assert!(exercises_checked >= 6 * 260, "{exercises_checked}");
}

/// A GB/GiB slip on a quantity that is not bytes gets no prefix hint, and a
/// factor of two on a count of tokens gets no bf16-bytes hint of a byte count.
#[test]
fn byte_hints_only_for_bytes() {
    for ex in exercises() {
        let Answer::Numeric {
            value, dimension, ..
        } = ex.answer.clone()
        else {
            continue;
        };
        if dimension.bytes != 0 {
            continue;
        }
        let t = typed(&ex, value * 1.073_741_824, dimension);
        if let Verdict::Incorrect { diagnosis: Some(d) } = ex.grade(&t) {
            assert!(
                !matches!(d.mistake, Mistake::BinaryPrefix(_)),
                "{}: {}",
                ex.id,
                d.message
            );
        }
    }
}
