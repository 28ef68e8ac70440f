//! Verdicts on a reader's answer, with a diagnosis of likely mistakes.
//!
//! A numeric answer is parsed ([`super::quantity`]), a bare number is read in
//! the problem's stated unit, and the value is compared with the expected one
//! within a relative tolerance. A wrong answer is *diagnosed* by perturbing the
//! expected value rather than by hand-written messages per problem: if the
//! reader's value is the expected one times 2, a power of ten, 1.024^k, 8, or a
//! chip count of the exercise, the matching sentence explains the likely slip.
//! Exercise-specific perturbations (the answer recomputed under a changed
//! assumption) are tried first.
//!
//! ```
//! use ridgeline_core::exercises::grade::{grade_numeric, Context, Mistake, Verdict};
//!
//! let ctx = Context::default();
//! // The book's 1.01 ms, typed three ways.
//! for text in ["1.01", "1.01 ms", "1011 µs"] {
//!     assert_eq!(grade_numeric(1.0111e-3, "ms", 0.02, text, &ctx), Verdict::Correct);
//! }
//! match grade_numeric(1.0111e-3, "ms", 0.02, "1.01 s", &ctx) {
//!     Verdict::Incorrect { diagnosis: Some(d) } => assert_eq!(d.mistake, Mistake::PowerOfTen(3)),
//!     other => panic!("{other:?}"),
//! }
//! assert!(matches!(grade_numeric(1.0111e-3, "ms", 0.02, "3 GB", &ctx), Verdict::Invalid { .. }));
//! ```

use super::quantity::{parse_expecting, parse_unit, Dimension, InvalidAnswer, Unit};
use crate::check::is_positive;

/// The outcome of checking one answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Within tolerance.
    Correct,
    /// Readable but wrong, perhaps with a guess at the mistake.
    Incorrect {
        /// The likely mistake, if one of the perturbations matches.
        diagnosis: Option<Diagnosis>,
    },
    /// Unreadable: empty, not a number, an unknown unit or variable, the wrong dimension.
    Invalid {
        /// Why, for the reader.
        reason: String,
    },
}

impl Verdict {
    /// `correct`, `incorrect` or `invalid`.
    pub fn label(&self) -> &'static str {
        match self {
            Verdict::Correct => "correct",
            Verdict::Incorrect { .. } => "incorrect",
            Verdict::Invalid { .. } => "invalid",
        }
    }

    /// Whether the answer was accepted.
    pub fn is_correct(&self) -> bool {
        matches!(self, Verdict::Correct)
    }

    /// The sentence to show under the verdict: the diagnosis or the reason, if any.
    pub fn message(&self) -> Option<&str> {
        match self {
            Verdict::Correct => None,
            Verdict::Incorrect { diagnosis } => diagnosis.as_ref().map(|d| d.message.as_str()),
            Verdict::Invalid { reason } => Some(reason),
        }
    }
}

impl From<InvalidAnswer> for Verdict {
    fn from(e: InvalidAnswer) -> Verdict {
        Verdict::Invalid { reason: e.reason }
    }
}

/// Which slip a diagnosis points at.
#[derive(Debug, Clone, PartialEq)]
pub enum Mistake {
    /// An exercise-specific changed assumption (its index in [`Context::perturbations`]).
    Perturbation(usize),
    /// Off by a factor of two (`+1` for twice, `-1` for half).
    FactorTwo(i8),
    /// Off by `10^k`.
    PowerOfTen(i32),
    /// Off by `1.024^k` or `1024^k`: decimal against binary prefixes.
    BinaryPrefix(i32),
    /// Off by a device count of the exercise: total against per-device.
    PerDevice {
        /// What was counted (`chips`).
        what: String,
        /// The count.
        count: f64,
        /// True if the answer is the expected one times the count.
        times: bool,
    },
    /// Off by 8: bits against bytes.
    BitsBytes(i8),
    /// The right magnitude with the wrong sign.
    Sign,
    /// The book's own value where the book slips (its note explains the slip).
    BookSlip,
    /// Right to one significant figure but not to the two the policy asks for.
    Rounding,
}

/// A likely mistake and a sentence explaining it.
#[derive(Debug, Clone, PartialEq)]
pub struct Diagnosis {
    /// The kind of slip.
    pub mistake: Mistake,
    /// Reader's value divided by the expected one.
    pub ratio: f64,
    /// A short sentence for the reader.
    pub message: String,
}

/// The answer recomputed under a changed assumption, with what that assumption was.
#[derive(Debug, Clone, PartialEq)]
pub struct Perturbation {
    /// The value (canonical units) a reader making this slip gets.
    pub value: f64,
    /// A sentence naming the slip (`You used the one-way link bandwidth …`).
    pub message: String,
}

/// What an exercise knows that helps diagnose mistakes.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Context {
    /// Counts of devices or parts (`("chips", 32.0)`), for per-device slips.
    pub counts: Vec<(String, f64)>,
    /// Answers under changed assumptions, tried first.
    pub perturbations: Vec<Perturbation>,
    /// The likely cause of a factor of two in this exercise, if known; a
    /// cause fitting the answer's unit is named otherwise.
    pub factor_two_cause: Option<String>,
    /// The book's own value, where it differs from the exact one beyond the
    /// tolerance (only for the book's parameters).
    pub book: Option<BookValue>,
}

/// The book's own value of an exercise, where it differs from core's exact one.
#[derive(Debug, Clone, PartialEq)]
pub struct BookValue {
    /// The book's value in canonical units, computed by core from the book's
    /// own rounded inputs where the book states them.
    pub value: f64,
    /// True where the value follows from the book's own stated rounding or
    /// simplification: it is graded correct, with `note`. False where the book
    /// slips: it is graded incorrect, with `note` as the diagnosis.
    pub accepted: bool,
    /// What the book did and what the exact figure is.
    pub note: String,
}

/// How closely a numeric answer must agree with the exact value (see the
/// grading policy in [`super`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Precision {
    /// An exact count (hosts, chips, bytes of a given array, a per-device
    /// batch): only the exact value is correct.
    Exact,
    /// Agreement to this many significant figures (two by default), and never
    /// tighter than one unit in the figure after them.
    SigFigs(u32),
    /// An explicit order-of-magnitude estimate: within this relative tolerance.
    Estimate(f64),
}

/// The largest relative tolerance a byte quantity is graded with: well inside
/// the 7.4% between GB and GiB (and the 4.9% between MB and MiB), so that a
/// prefix slip is always diagnosed, never accepted.
pub const MAX_BYTES_TOLERANCE: f64 = 0.035;

/// Relative tolerance of an exact count (floating-point rounding only).
pub const EXACT_TOLERANCE: f64 = 1e-9;

/// Count nouns: a whole-number answer in one of these is an exact count.
const COUNT_UNITS: &[&str] = &[
    "hosts",
    "cores",
    "chips",
    "GPUs",
    "TPUs",
    "ALUs",
    "warps",
    "switches",
    "sequences",
    "SMs",
    "nodes",
    "devices",
];

/// Byte units in which a whole-number answer is the size of a given array.
const EXACT_BYTE_UNITS: &[&str] = &["B", "bytes", "KiB", "MiB", "GiB", "TiB"];

impl Precision {
    /// The policy's precision for an answer of `value_in_unit` stated in `unit`:
    /// exact for a whole count or a whole number of bytes in a binary unit, two
    /// significant figures otherwise.
    pub fn default_for(value_in_unit: f64, unit: &str) -> Precision {
        let whole = value_in_unit.is_finite() && value_in_unit.fract() == 0.0;
        let unit = unit.trim();
        if whole && (COUNT_UNITS.contains(&unit) || EXACT_BYTE_UNITS.contains(&unit)) {
            Precision::Exact
        } else {
            Precision::SigFigs(2)
        }
    }

    /// The relative tolerance this precision gives an exact value `value` of
    /// dimension `dimension`.
    pub fn tolerance(self, value: f64, dimension: Dimension) -> f64 {
        let tol = match self {
            Precision::Exact => return EXACT_TOLERANCE,
            Precision::SigFigs(n) => sig_fig_tolerance(value, n),
            Precision::Estimate(t) => t.abs(),
        };
        if dimension.bytes != 0 {
            tol.min(MAX_BYTES_TOLERANCE)
        } else {
            tol
        }
    }
}

/// Half a unit in the `n`th significant figure of `value`, relative to it, and
/// at least one unit in the figure after (`10^-n`): 22 passes for 21.62 at two
/// figures, 9.7 for 9.728.
pub fn sig_fig_tolerance(value: f64, n: u32) -> f64 {
    let v = value.abs();
    let n = n.clamp(1, 12).cast_signed();
    let floor = 10f64.powi(-n);
    if !is_positive(v) {
        return floor;
    }
    #[allow(
        clippy::cast_possible_truncation,
        reason = "the decimal exponent of a finite positive f64 is within -324..=308"
    )]
    let exp = v.log10().floor() as i32;
    let unit = 10f64.powi(exp - (n - 1));
    (0.5 * unit / v * (1.0 + 1e-9)).max(floor)
}

/// Relative closeness used to match perturbations (never tighter than 0.5%).
fn diag_tol(tolerance: f64) -> f64 {
    tolerance.clamp(0.005, 0.05)
}

fn near(ratio: f64, target: f64, tol: f64) -> bool {
    target != 0.0 && ((ratio / target) - 1.0).abs() <= tol
}

fn times(r: f64) -> String {
    if r >= 1.0 {
        format!("{}×", crate::format::sci(r, 4))
    } else {
        format!("1/{} of", crate::format::sci(1.0 / r, 4))
    }
}

/// Guesses the mistake behind `got` when `expected` was wanted (both canonical).
///
/// `unit` is the problem's stated unit and `bare` whether the reader typed a
/// bare number (read in that unit).
pub fn diagnose(
    expected: f64,
    got: f64,
    dimension: Dimension,
    unit: &str,
    bare: bool,
    tolerance: f64,
    ctx: &Context,
) -> Option<Diagnosis> {
    if !(expected.is_finite() && got.is_finite()) || expected == 0.0 || got == 0.0 {
        return None;
    }
    let tol = diag_tol(tolerance);
    let ratio = got / expected;
    let d = |mistake: Mistake, message: String| {
        Some(Diagnosis {
            mistake,
            ratio,
            message,
        })
    };
    if let Some(b) = ctx.book.as_ref().filter(|b| !b.accepted) {
        let book_tol = tol.max(sig_fig_tolerance(b.value, 2));
        if b.value.is_finite() && b.value != 0.0 && near(got, b.value, book_tol) {
            return d(
                Mistake::BookSlip,
                format!(
                    "That is the book's value, but the book slips here: {}",
                    b.note
                ),
            );
        }
    }
    for (i, p) in ctx.perturbations.iter().enumerate() {
        if p.value.is_finite() && p.value != 0.0 && near(got, p.value, tol) {
            return d(Mistake::Perturbation(i), p.message.clone());
        }
    }
    let yours = quantity_phrase(dimension, unit);
    if near(ratio, -1.0, tol) {
        return d(
            Mistake::Sign,
            "Your answer has the right size but the wrong sign.".into(),
        );
    }
    let r = ratio.abs();
    for (k, target) in [(1i8, 2.0), (-1, 0.5)] {
        if near(r, target, tol) {
            let cause = ctx
                .factor_two_cause
                .clone()
                .unwrap_or_else(|| factor_two_cause(dimension, unit).into());
            let size = if k > 0 { "twice" } else { "half" };
            return d(
                Mistake::FactorTwo(k),
                format!("{yours} is {size} the expected one: {cause}"),
            );
        }
    }
    for k in 1..=12i32 {
        for sign in [1, -1] {
            let e = sign * k;
            if near(r, 10f64.powi(e), tol) {
                let hint = unit_hint(dimension, unit, bare, e);
                return d(
                    Mistake::PowerOfTen(e),
                    format!(
                        "{yours} is {} the expected one, off by a power of ten: {hint}",
                        times(r)
                    ),
                );
            }
        }
    }
    for k in (1..=6i32).filter(|_| dimension.bytes != 0) {
        for sign in [1, -1] {
            let e = sign * k;
            let small = 1.024f64.powi(e);
            let big = 1024f64.powi(e);
            if near(r, small, tol.min(0.005)) || near(r, big, tol.min(0.005)) {
                return d(
                    Mistake::BinaryPrefix(e),
                    format!(
                        "{yours} is {} the expected one: did you mix decimal prefixes (k = 1000, G = 10^9) with binary ones (Ki = 1024, Gi = 2^30)?",
                        times(r)
                    ),
                );
            }
        }
    }
    for (what, count) in &ctx.counts {
        if *count > 1.0 {
            for (up, target) in [(true, *count), (false, 1.0 / *count)] {
                if near(r, target, tol) {
                    let msg = if up {
                        format!(
                            "{yours} is {} the expected one, the number of {what}: did you give the total over all {what} where one {} was asked for?",
                            times(r),
                            singular(what)
                        )
                    } else {
                        format!(
                            "{yours} is {} the expected one, one over the number of {what}: did you give the value for one {} where the total over all {what} was asked for?",
                            times(r),
                            singular(what)
                        )
                    };
                    return d(
                        Mistake::PerDevice {
                            what: what.clone(),
                            count: *count,
                            times: up,
                        },
                        msg,
                    );
                }
            }
        }
    }
    for (k, target) in [(1i8, 8.0), (-1, 0.125)] {
        if dimension.bytes != 0 && near(r, target, tol) {
            return d(
                Mistake::BitsBytes(k),
                format!(
                    "{yours} is {} the expected one: did you mix bits and bytes (8 bits per byte)?",
                    times(r)
                ),
            );
        }
    }
    if near(r, 1.0, sig_fig_tolerance(expected, 1).clamp(tol, 0.1)) {
        let why = if tolerance <= EXACT_TOLERANCE {
            "close, but this is an exact count: give every digit, without rounding."
        } else {
            "close, but not to two significant figures. Carry more digits through the computation (or check a rounded input)."
        };
        return d(
            Mistake::Rounding,
            format!(
                "{yours} is within {:.0}% of the expected one: {why}",
                ((r - 1.0).abs() * 100.0).max(1.0)
            ),
        );
    }
    None
}

/// How a diagnosis names the quantity: `Your time`, `Your answer in tokens`.
fn quantity_phrase(dimension: Dimension, unit: &str) -> String {
    let unit = unit.trim();
    match dimension {
        Dimension::NONE if unit.is_empty() || unit == "%" || unit == "x" => {
            "Your answer".to_string()
        }
        Dimension::NONE => format!("Your answer in {unit}"),
        Dimension::TIME => "Your time".to_string(),
        Dimension::BYTES => "Your byte count".to_string(),
        Dimension::FLOPS => "Your FLOP count".to_string(),
        Dimension::FLOP_RATE => "Your FLOP rate".to_string(),
        Dimension::BYTE_RATE => "Your bandwidth".to_string(),
        Dimension::INTENSITY => "Your arithmetic intensity".to_string(),
        d => format!("Your answer ({})", d.noun()),
    }
}

/// The usual causes of a factor of two for a quantity of this dimension.
pub fn factor_two_cause(dimension: Dimension, unit: &str) -> &'static str {
    match dimension {
        Dimension::BYTES => {
            "did you count bf16 values as 1 byte (or 4), or count only the keys (or only the values, or one direction) where both are needed?"
        }
        Dimension::BYTE_RATE => {
            "did you use the one-way instead of the bidirectional link bandwidth (or the reverse), or count only one of the links?"
        }
        Dimension::TIME => {
            "did you count a multiply-add as one FLOP (it is two), count bf16 values as 1 byte, or use the one-way instead of the bidirectional bandwidth (or the reverse)?"
        }
        Dimension::FLOPS | Dimension::FLOP_RATE => {
            "a multiply-add is two FLOPs: did you count it as one (or as four)?"
        }
        Dimension::INTENSITY => {
            "intensity is FLOPs over bytes: did you count a multiply-add as one FLOP, or a bf16 value as 1 byte (or 4)?"
        }
        _ if unit.trim() == "tokens" => {
            "a critical batch size is the peak over twice the bandwidth per byte: did you drop (or double) the 2 FLOPs per multiply-add or the 2 bytes per bf16 value?"
        }
        _ => {
            "check each factor of two in the computation: 2 FLOPs per multiply-add, 2 bytes per bf16 value, keys and values, both directions of a link."
        }
    }
}

fn singular(what: &str) -> &str {
    what.strip_suffix("es")
        .filter(|s| s.ends_with("ch") || s.ends_with("sh"))
        .or_else(|| what.strip_suffix('s'))
        .unwrap_or(what)
}

fn unit_hint(dimension: Dimension, unit: &str, bare: bool, e: i32) -> String {
    let mut s = match (dimension, e.abs()) {
        (Dimension::TIME, 3) => "did you mix seconds and milliseconds (or ms and µs)?".to_string(),
        (Dimension::TIME, 6) => "did you mix seconds and microseconds?".to_string(),
        (Dimension::TIME, 9) => "did you mix seconds and nanoseconds?".to_string(),
        (_, 3) | (_, 6) | (_, 9) | (_, 12) => {
            "check the prefix (k = 10^3, M = 10^6, G = 10^9, T = 10^12) and the exponent."
                .to_string()
        }
        _ => "check the exponent and the units of the inputs.".to_string(),
    };
    if bare && !unit.is_empty() {
        s.push_str(&format!(" (A number without a unit is read in {unit}.)"));
    }
    s
}

/// Whether `got` is within `tolerance` (relative) of `expected`.
pub fn within(expected: f64, got: f64, tolerance: f64) -> bool {
    let tol = tolerance.max(1e-9);
    if expected == 0.0 {
        got.abs() <= tol
    } else {
        ((got - expected) / expected).abs() <= tol
    }
}

/// Whether `got` is the book's own value where the book's rounding is accepted.
pub fn book_accepts(ctx: &Context, got: f64, tolerance: f64) -> bool {
    ctx.book.as_ref().is_some_and(|b| {
        b.accepted && within(b.value, got, tolerance.max(sig_fig_tolerance(b.value, 2)))
    })
}

/// Grades a numeric answer.
///
/// `expected` is in the canonical unit of `unit`'s dimension; `unit` is the
/// problem's stated unit (a bare number is read in it). Never panics.
pub fn grade_numeric(
    expected: f64,
    unit: &str,
    tolerance: f64,
    text: &str,
    ctx: &Context,
) -> Verdict {
    let bare_unit = parse_unit(unit).unwrap_or(Unit {
        factor: 1.0,
        dimension: Dimension::NONE,
    });
    let dimension = bare_unit.dimension;
    let parsed = match super::quantity::parse(text) {
        Ok(p) => p,
        Err(e) => return e.into(),
    };
    let q = match parse_expecting(text, dimension, bare_unit) {
        Ok(q) => q,
        Err(e) => return e.into(),
    };
    if within(expected, q.value, tolerance) {
        return Verdict::Correct;
    }
    // A percentage typed as a fraction (0.217 for 21.7%) is the same number.
    if parsed.bare && unit.trim() == "%" && within(expected, parsed.quantity.value, tolerance) {
        return Verdict::Correct;
    }
    if book_accepts(ctx, q.value, tolerance) {
        return Verdict::Correct;
    }
    let mut diagnosis = diagnose(
        expected,
        q.value,
        dimension,
        unit,
        parsed.bare,
        tolerance,
        ctx,
    );
    // A bare fraction for a percentage (0.43 for 43%): diagnose that reading too.
    if diagnosis.is_none() && parsed.bare && unit.trim() == "%" {
        diagnosis = diagnose(
            expected,
            parsed.quantity.value,
            dimension,
            unit,
            false,
            tolerance,
            ctx,
        );
    }
    Verdict::Incorrect { diagnosis }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diag(expected: f64, unit: &str, text: &str, ctx: &Context) -> Option<Diagnosis> {
        match grade_numeric(expected, unit, 0.01, text, ctx) {
            Verdict::Incorrect { diagnosis } => diagnosis,
            v => panic!("{text}: {v:?}"),
        }
    }

    #[test]
    fn bare_numbers_use_the_stated_unit() {
        let c = Context::default();
        assert!(grade_numeric(240.0, "FLOPs/byte", 0.01, "240", &c).is_correct());
        assert!(grade_numeric(240.0, "FLOPs/byte", 0.01, "240 FLOPs/B", &c).is_correct());
        assert!(grade_numeric(16e9, "GB", 0.0, "16", &c).is_correct());
        assert!(grade_numeric(0.217, "%", 0.01, "21.7", &c).is_correct());
        assert!(grade_numeric(0.217, "%", 0.01, "0.217", &c).is_correct());
        assert!(grade_numeric(0.217, "%", 0.01, "21.7%", &c).is_correct());
        // Twice the answer, typed as a fraction or as a percentage.
        for text in ["0.434", "43.4", "43.4%"] {
            match grade_numeric(0.217, "%", 0.01, text, &c) {
                Verdict::Incorrect { diagnosis: Some(d) } => {
                    assert_eq!(d.mistake, Mistake::FactorTwo(1), "{text}")
                }
                v => panic!("{text}: {v:?}"),
            }
        }
        assert!(grade_numeric(1024.0, "tokens", 0.0, "1,024 tokens", &c).is_correct());
        assert!(grade_numeric(44.0 * 86400.0, "days", 0.02, "3.8e6 s", &c).is_correct());
    }

    #[test]
    fn diagnoses() {
        let c = Context {
            counts: vec![("chips".into(), 32.0)],
            ..Context::default()
        };
        let d = diag(1.0, "s", "2", &c).unwrap();
        assert_eq!(d.mistake, Mistake::FactorTwo(1));
        assert!(d.message.starts_with("Your time is twice the expected one"));
        assert_eq!(
            diag(1.0, "s", "0.5", &c).unwrap().mistake,
            Mistake::FactorTwo(-1)
        );
        assert_eq!(
            diag(1.0, "s", "1000 s", &c).unwrap().mistake,
            Mistake::PowerOfTen(3)
        );
        assert_eq!(
            diag(16e9, "GB", "16 GiB", &c).unwrap().mistake,
            Mistake::BinaryPrefix(3)
        );
        assert_eq!(
            diag(1024.0, "B", "1 B", &c).unwrap().mistake,
            Mistake::BinaryPrefix(-1)
        );
        let per = diag(1.0, "s", "32", &c).unwrap();
        assert!(matches!(
            per.mistake,
            Mistake::PerDevice { times: true, .. }
        ));
        assert!(per.message.contains("one chip"), "{}", per.message);
        assert_eq!(
            diag(1.0, "B", "8", &c).unwrap().mistake,
            Mistake::BitsBytes(1)
        );
        assert_eq!(diag(1.0, "s", "-1", &c).unwrap().mistake, Mistake::Sign);
        assert_eq!(diag(1.0, "s", "3.7", &c), None);
        let p = Context {
            perturbations: vec![Perturbation {
                value: 2.0,
                message: "You used the one-way bandwidth.".into(),
            }],
            ..Context::default()
        };
        assert_eq!(
            diag(1.0, "s", "2", &p).unwrap().mistake,
            Mistake::Perturbation(0)
        );
    }

    #[test]
    fn invalid_answers() {
        let c = Context::default();
        for t in ["", "abc", "3 GB", "1,5", "12 parsecs"] {
            let v = grade_numeric(1e-3, "ms", 0.01, t, &c);
            assert_eq!(v.label(), "invalid", "{t}: {v:?}");
        }
        assert_eq!(
            grade_numeric(1e-3, "ms", 0.01, "3 GB", &c).message(),
            Some("expected a time (e.g. 3 ms), got bytes")
        );
    }
}
