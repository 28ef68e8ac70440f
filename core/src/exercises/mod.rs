//! The book's problems as graded exercises.
//!
//! Each problem of *How to Scale Your Model* becomes an exercise with one text
//! input, a check button and a verdict (`correct`, `incorrect` or `invalid`):
//!
//! - [`quantity`] reads numbers with units (`197 TFLOPs/s`, `16 GiB`, `450 µs`)
//!   into canonical units;
//! - [`grade`] compares a value with the expected one and diagnoses likely
//!   slips (a factor of two, a power of ten, 1000 against 1024, per chip against
//!   total) by perturbing the answer;
//! - [`expr`] grades formulas (`2BDF`, `N^2(1-1/D)`) by evaluating them at random
//!   points; [`sharding_answer`] compares shardings by structure;
//! - [`def`] is what an exercise is made of (parameters, answer, solution);
//!   [`registry`] holds the exercises of every part, whose answers are
//!   computed by the rest of this crate, with hints, derivations and seeded
//!   variants; [`book`] the book's answers that differ from the exact ones.
//!
//! # Grading policy
//!
//! One rule decides every numeric verdict ([`grade::Precision`]):
//!
//! - **Exact counts are exact.** A whole number of hosts, chips, GPUs, cores,
//!   sequences or switches, and a whole number of bytes in a binary unit (the
//!   size of a given array: `256 KiB`), is correct only when it is exactly
//!   right; the shown answer carries every digit.
//! - **Everything else agrees to two significant figures.** An answer is
//!   correct when it is within half a unit in the second significant figure of
//!   core's exact value (and never tighter than 1%), so a sensible rounding
//!   passes: `22%` for 21.62%, `1.5e25` for 1.52e25, `9.7 s` for 9.73 s.
//!   An exercise asks for more figures only where the question does, and a
//!   wider window ([`grade::Precision::Estimate`]) only where the question is
//!   explicitly an order-of-magnitude estimate.
//! - **Bytes are never wider than 3.5%** ([`grade::MAX_BYTES_TOLERANCE`]),
//!   inside the 7.4% between GB and GiB and the 4.9% between MB and MiB, so a
//!   prefix slip is always diagnosed, never accepted.
//! - **The book's own answer** ([`book`]): where it differs from the exact
//!   value beyond that window because the book rounds an input or the result,
//!   it is accepted, and the feedback ([`Feedback::note`]) says what the book
//!   did and what the exact value is. Where the book slips (a spec it
//!   contradicts elsewhere, an arithmetic slip), typing its value is graded
//!   incorrect with a message explaining the slip, never a bare "Not quite.".
//! - **Wrong answers are diagnosed** from the exercise's own computation: its
//!   declared perturbations first, then a factor of two, a power of ten, a
//!   binary prefix (bytes only), a device count, bits against bytes (bytes
//!   only), or a one-figure near miss; each message names the quantity
//!   (`Your time is twice …`) with causes fitting its unit, and, for a factor of
//!   two or ten, which of the exercise's inputs the answer scales that way with
//!   (found by re-solving with the input scaled).
//! - **Notes come after an attempt.** [`Exercise::check`] returns the verdict,
//!   the note on the book's answer and, once the answer is correct, the
//!   derivation; a page shows none of them before the first check.
//! - **Symbols are the book's** ([`crate::symbols`]): a formula may write a
//!   subscripted symbol for a declared bare one only where the book's symbol
//!   table says it is a case of it (`W_ici` or `W_link` for `W`, in any of
//!   `W_ici`, `W_{ici}`, `W_\text{ici}`); any other subscript (`W_banana`, the
//!   weight matrix `W_in`) is refused with the forms the book knows.
//! - Formulas are graded by evaluation at random points ([`expr`]); shardings
//!   by structure ([`sharding_answer`]); multiple choice accepts the letter,
//!   `(b)`, `b)`, `option b` or the option's text, and asks for the letter when
//!   a start of text fits several options ([`registry::pick_option`]).
//!
//! ```
//! use ridgeline_core::exercises::{exercise, Verdict};
//!
//! let ex = exercise("ch1-q1b").unwrap(); // the FLOPs of a matmul, as a formula
//! assert_eq!(ex.grade("2BDF"), Verdict::Correct);
//! assert_eq!(ex.grade("2 * B * D * F"), Verdict::Correct);
//! assert_eq!(ex.grade("BDF").label(), "incorrect");
//! assert!(ex.grade("2BDQ").message().unwrap().contains("allowed: B, D, F"));
//! ```

pub mod book;
pub mod def;
pub mod expr;
pub mod grade;
mod kit;
pub mod quantity;
pub mod registry;
pub mod sharding_answer;

#[cfg(feature = "part1")]
mod part1;
#[cfg(feature = "part10")]
mod part10;
#[cfg(feature = "part12")]
mod part12;
#[cfg(feature = "part2")]
mod part2;
#[cfg(feature = "part3")]
mod part3;
#[cfg(feature = "part4")]
mod part4;
#[cfg(feature = "part5")]
mod part5;
#[cfg(feature = "part6")]
mod part6;
#[cfg(feature = "part7")]
mod part7;
#[cfg(feature = "part8")]
mod part8;
#[cfg(feature = "part9")]
mod part9;

pub use def::{Answer, Kind};
pub use grade::{Diagnosis, Mistake, Precision, Verdict};
pub use registry::{covered_ids, exercise, exercises, Exercise, ExerciseError, Feedback};
