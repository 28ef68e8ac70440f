//! The one check every reader-entered quantity goes through: is it a finite,
//! positive number? And, for a share of something, is it also at most one
//! ([`fraction`])?
//!
//! Sizes, rates, bandwidths and counts that a reader types into a widget must be
//! finite and greater than zero before any formula may divide by them. Each domain
//! reports the failure in its own error type, and each of those wraps the one
//! [`NotPositive`] that [`positive`] returns.
//!
//! ```
//! use ridgeline_core::check::{is_positive, positive};
//!
//! assert_eq!(positive("the byte count", 4096.0), Ok(4096.0));
//! let e = positive("the byte count", f64::NAN).unwrap_err();
//! assert!(!e.is_finite());
//! assert_eq!(positive("the byte count", 0.0).unwrap_err().value, 0.0);
//! assert!(!is_positive(f64::INFINITY));
//! ```

use std::fmt;

/// A quantity that had to be a finite positive number and was not.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NotPositive {
    /// What the quantity is, as a reader would name it ("the byte count").
    pub what: &'static str,
    /// The value it had: zero, negative, infinite or NaN.
    pub value: f64,
}

impl NotPositive {
    /// Whether the value was at least a finite number (zero or negative).
    pub fn is_finite(&self) -> bool {
        self.value.is_finite()
    }
}

impl fmt::Display for NotPositive {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = self.what;
        if self.value.is_nan() {
            // Not a number: a figure missing from its source, or arithmetic
            // on one; never printed as `NaN`.
            write!(f, "{what} is unknown; it must be a finite positive number")
        } else if self.value.is_infinite() {
            write!(f, "{what} must be finite, not infinite")
        } else {
            write!(
                f,
                "{what} must be positive, not {}",
                crate::format::sci(self.value, 3)
            )
        }
    }
}

impl std::error::Error for NotPositive {}

impl From<NotPositive> for String {
    fn from(e: NotPositive) -> String {
        e.to_string()
    }
}

/// Whether `value` is a finite number greater than zero.
pub fn is_positive(value: f64) -> bool {
    value.is_finite() && value > 0.0
}

/// Whether `value` is a share in (0, 1]: positive, finite and at most one.
/// The one test behind [`fraction`], [`fraction_from`] and the checks that
/// name their own error.
pub fn is_fraction(value: f64) -> bool {
    is_positive(value) && value <= 1.0
}

/// Returns `value` if it is finite and positive, else the error naming `what`.
pub fn positive(what: &'static str, value: f64) -> Result<f64, NotPositive> {
    if is_positive(value) {
        Ok(value)
    } else {
        Err(NotPositive { what, value })
    }
}

/// `value` as a whole count of type `T` (a `u64`, `u32`, `usize`…), rounded
/// toward zero, or `None` when it is not finite, is negative, or does not fit
/// `T`.
///
/// The one float-to-count conversion of the crate: a bare `as` would turn `NaN`
/// into 0 and 1e30 into `u64::MAX` without a word, so every count computed in
/// floating point passes here and each caller names its own refusal for `None`.
///
/// ```
/// use ridgeline_core::check::whole;
///
/// assert_eq!(whole::<u64>(4096.7), Some(4096));
/// assert_eq!(whole::<u32>(5e9), None);
/// assert_eq!(whole::<u64>(-1.0), None);
/// assert_eq!(whole::<u64>(f64::NAN), None);
/// ```
pub fn whole<T: TryFrom<u64>>(value: f64) -> Option<T> {
    // 2^64 is the first float a `u64` cannot hold.
    if !(0.0..18_446_744_073_709_551_616.0).contains(&value) {
        return None;
    }
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "finite, non-negative and below 2^64: checked just above"
    )]
    let n = value as u64;
    T::try_from(n).ok()
}

/// A share that had to be a number in (0, 1] (or from a stated floor to
/// one) and was not.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NotFraction {
    /// What the share is, as a reader would name it ("the FLOPs derate").
    pub what: &'static str,
    /// The value it had: below the floor, zero or less, above one, infinite or NaN.
    pub value: f64,
    /// The least share accepted, when there is one above zero ([`fraction_from`]).
    pub least: Option<f64>,
}

impl fmt::Display for NotFraction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = self.what;
        let range = match self.least {
            Some(least) => format!("[{least}, 1]"),
            None => "(0, 1]".into(),
        };
        if self.value.is_nan() {
            write!(f, "{what} is unknown; it must be a number in {range}")
        } else {
            write!(
                f,
                "{what} must be a number in {range}, not {}",
                crate::format::sci(self.value, 3)
            )
        }
    }
}

impl std::error::Error for NotFraction {}

impl From<NotFraction> for String {
    fn from(e: NotFraction) -> String {
        e.to_string()
    }
}

/// Returns `value` if it is a positive share of at most one, else the error
/// naming `what`.
///
/// ```
/// use ridgeline_core::check::fraction;
///
/// assert_eq!(fraction("the HBM derate", 0.8), Ok(0.8));
/// assert_eq!(fraction("the HBM derate", 1.0), Ok(1.0));
/// assert!(fraction("the HBM derate", 0.0).is_err());
/// assert!(fraction("the HBM derate", 1.5).is_err());
/// ```
pub fn fraction(what: &'static str, value: f64) -> Result<f64, NotFraction> {
    if is_fraction(value) {
        Ok(value)
    } else {
        Err(NotFraction {
            what,
            value,
            least: None,
        })
    }
}

/// Returns `value` if it is a share from `least` to one, else the error
/// naming `what` and the range: for a share with a physical floor, where a
/// share just above zero would make every time it divides unbounded.
///
/// ```
/// use ridgeline_core::check::fraction_from;
///
/// assert_eq!(fraction_from("the link derate", 0.05, 0.05), Ok(0.05));
/// let e = fraction_from("the link derate", 0.05, 1e-300).unwrap_err();
/// assert_eq!(e.to_string(), "the link derate must be a number in [0.05, 1], not 1e-300");
/// ```
pub fn fraction_from(what: &'static str, least: f64, value: f64) -> Result<f64, NotFraction> {
    if is_fraction(value) && value >= least {
        Ok(value)
    } else {
        Err(NotFraction {
            what,
            value,
            least: Some(least),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A count out of a float is refused, not wrapped or saturated, at each
    /// edge: the largest `u32`, one past it, 2^64, NaN and a negative zero.
    #[test]
    fn whole_refuses_what_does_not_fit() {
        assert_eq!(whole::<u32>(4_294_967_295.0), Some(u32::MAX));
        assert_eq!(whole::<u32>(4_294_967_296.0), None);
        assert_eq!(whole::<u64>(18_446_744_073_709_551_616.0), None);
        assert_eq!(whole::<u64>(f64::INFINITY), None);
        assert_eq!(whole::<u64>(f64::NAN), None);
        assert_eq!(whole::<u64>(-0.0), Some(0));
        assert_eq!(whole::<u64>(-1e-9), None);
        assert_eq!(whole::<u8>(255.9), Some(255));
    }

    /// The message says what is wrong in words a reader knows; it never
    /// prints `NaN` or `inf` (a chip without a VPU figure read "must be a
    /// finite positive number, not NaN").
    #[test]
    fn the_message_names_the_fault_in_words() {
        let text = |v: f64| positive("the compute rate", v).unwrap_err().to_string();
        assert_eq!(
            text(f64::NAN),
            "the compute rate is unknown; it must be a finite positive number"
        );
        assert_eq!(
            text(f64::INFINITY),
            "the compute rate must be finite, not infinite"
        );
        assert_eq!(
            text(-2.5e-3),
            "the compute rate must be positive, not -2.5e-3"
        );
        assert_eq!(text(0.0), "the compute rate must be positive, not 0");
    }

    #[test]
    fn a_fraction_is_in_the_half_open_unit_interval() {
        let text = |v: f64| fraction("the FLOPs derate", v).unwrap_err().to_string();
        assert_eq!(fraction("the FLOPs derate", 1e-3), Ok(1e-3));
        assert_eq!(
            text(0.0),
            "the FLOPs derate must be a number in (0, 1], not 0"
        );
        assert_eq!(
            text(1.25),
            "the FLOPs derate must be a number in (0, 1], not 1.25"
        );
        assert_eq!(
            text(f64::NAN),
            "the FLOPs derate is unknown; it must be a number in (0, 1]"
        );
        assert!(fraction("x", f64::INFINITY).is_err());
    }
}
