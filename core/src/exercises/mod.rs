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
//! - [`registry`] holds the exercises of Parts 1–6, whose answers are computed by
//!   the rest of this crate, with hints, derivations and seeded variants.
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

pub use grade::{Diagnosis, Mistake, Verdict};
pub use registry::{covered_ids, exercise, exercises, Answer, Exercise, ExerciseError, Kind};
