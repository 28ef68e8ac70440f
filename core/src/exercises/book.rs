//! The book's own answers where they differ from core's exact value by more
//! than the grading policy's tolerance: what the book did, and whether its
//! value is accepted (it follows from the book's stated rounding or
//! simplification) or diagnosed (the book slips).
//!
//! Each value is the number the book prints, in the unit the exercise states,
//! cited like a registry constant; the exact value it is compared with is
//! always computed by core. An entry applies to the book's parameters only.

/// One of the book's answers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BookAnswer {
    /// The exercise.
    pub id: &'static str,
    /// The value the book prints, in the exercise's stated unit.
    pub value: f64,
    /// True where it follows from the book's own rounding (graded correct with
    /// the note); false where the book slips (graded incorrect, the note as the
    /// diagnosis).
    pub accepted: bool,
    /// What the book did; empty to use the exercise's correction note.
    pub note: &'static str,
}

const fn rounds(id: &'static str, value: f64, note: &'static str) -> BookAnswer {
    BookAnswer {
        id,
        value,
        accepted: true,
        note,
    }
}

const fn slips(id: &'static str, value: f64, note: &'static str) -> BookAnswer {
    BookAnswer {
        id,
        value,
        accepted: false,
        note,
    }
}

/// The book's answers that the policy's tolerance alone would not accept.
pub const BOOK_ANSWERS: &[BookAnswer] = &[
    rounds("ch1-ex4", 3.0, "The book calls the VPU's peak over v5p's HBM bandwidth “around 3”, a one-figure rounding."),
    rounds("ch2-ex2", 4e18, "The book rounds the pod's peak to one significant figure."),
    rounds("ch2-q2c", 5.1e16, "The book rounds the chip's peak to 2e14 FLOPs/s before multiplying by the chips."),
    rounds("ch2-q2d", 4.0, "The book multiplies the chips by 16 GB and rounds the total to one figure."),
    rounds("ch2-q4a", 267.0, "The book works with rounded sizes (6.7e7 bytes of weights, 2e4 bytes and 1.3e8 FLOPs per token)."),
    rounds("ch2-pq1a", 7e12, "The book rounds the VPU's peak to one significant figure."),
    rounds("ch2-pq1b", 30.0, "The book divides its rounded MXU peak by the VPU's and rounds to about 30."),
    rounds("ch3-pq1b", 294.0, "The book takes a MiB as 1e6 bytes rather than 1,048,576."),
    rounds("ch3-q2b", 46.0, "The book doubles its rounded time for one axis."),
    rounds("ch3-q7b", 2.0, "The book's MB here is a MiB, 2^20 bytes: 2 × 128 × 8192 bytes is exactly 2 MiB, about 2.1 MB of 10^6 bytes."),
    rounds("ch5-ex1", 9e9, "The book says “about 9B” parameters for the HBM over 10 bytes per parameter."),
    rounds("ch5-ex7", 19.0, "The book rounds the ratio down to a whole number of ways."),
    rounds("ch5-ex11", 4e5, "The book rounds the batch to one significant figure."),
    rounds("ch5-ex12", 71_360.0, ""),
    rounds("ch5-q3c-step", 300.0, "The book rounds the step time to one significant figure."),
    rounds("ch7-ex1d", 280.0, "This part of the book rounds the H100's ratio to “about 280” (Parts 1 and 12 keep more digits)."),
    rounds("ch7-ex3b", 80.0, "The book's MB here is a MiB, 2^20 bytes: 8192 × 5120 × 2 bytes is exactly 80 MiB, about 84 MB of 10^6 bytes."),
    rounds("ch7-ex6", 8.0, "The book gives one rough ratio, about 8, for both v5e and v6e."),
    rounds("ch8-ex1c", 5.8e17, "The book rounds the FLOPs per dollar down."),
    rounds("ch8-q1b", 5.3, "The book counts 160e3 bytes of KV per token instead of 2·8·128·80 = 163,840."),
    rounds("ch8-q1d", 86.0, ""),
    rounds("ch8-q2a", 41.9, ""),
    rounds("ch8-q3a", 17.0, ""),
    rounds("ch8-q3b", 1882.0, ""),
    rounds("ch8-q3d", 8.5, ""),
    rounds("ch8-q6b", 9.0, "The book says “about 9 s” for the decode steps."),
    rounds("ch8-q6c", 10.0, "The book rounds the step time to one significant figure."),
    rounds("ch8-q7-int8", 0.55, "The book uses its rounded 19 ms step."),
    rounds("ch8-q8a", 140.0, ""),
    rounds("ch8-q8-bfloat16", 0.44, "The book uses its rounded 19 ms step."),
    rounds("ch8-q8-int8", 0.9, ""),
    rounds("ch8-q8-int4", 1.8, ""),
    rounds("ch8-q9b", 11.0, "The book rounds the ICI time down to whole microseconds."),
    rounds("ch12-q4b", 15.0, ""),
    rounds("ch12-c-ex2", 4.0, "The book says “more than 4x”."),
    rounds("ch12-c-ex3", 58.0, "The book truncates the size to whole MB."),
    slips("ch4-q1a", 16e9, ""),
    slips("ch4-q4c", 240.0, ""),
    slips("ch6-q6b", 8.0, ""),
    slips("ch8-q5-int4-minchips", 2.81, ""),
    slips("ch8-q9d", 4.0, ""),
    slips("ch12-r-q2c", 14.37, ""),
];

/// The book's answer to exercise `id`, where the policy alone would not
/// accept it.
pub fn book_answer(id: &str) -> Option<&'static BookAnswer> {
    BOOK_ANSWERS.iter().find(|b| b.id == id)
}
