//! Physical quantities as newtypes over `f64`.
//!
//! Scaling arithmetic mixes FLOPs, bytes, seconds and their rates, and the
//! classic mistake is dividing the wrong two of them. Each quantity here is its
//! own type, and only the physically meaningful operations are implemented:
//!
//! ```
//! use ridgeline_core::units::{Bytes, BytesPerSec, Flops, FlopsPerSec};
//!
//! let work = Flops(2.0e12);
//! let chip = FlopsPerSec(1.97e14);
//! let t = work / chip; // Seconds
//! assert!((t.0 - 0.01015).abs() < 1e-4);
//!
//! let intensity = work / Bytes(1.0e10); // Intensity, FLOPs per byte
//! let ridge = chip / BytesPerSec(8.2e11); // also an Intensity
//! assert!(intensity < ridge);
//! ```
//!
//! `Flops / Bytes` compiles; `Flops / Seconds` gives `FlopsPerSec`;
//! `Flops + Bytes` does not compile. Unwrap with `.0` only at the edge
//! (formatting, plotting).

use std::ops::{Add, AddAssign, Div, Mul, Sub};

macro_rules! quantity {
    ($(#[$doc:meta])* $name:ident, $unit:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Default)]
        pub struct $name(pub f64);

        impl $name {
            /// The unit symbol this quantity is measured in.
            pub const UNIT: &'static str = $unit;

            /// The larger of two values (NaN-ignoring, like `f64::max`).
            pub fn max(self, other: Self) -> Self {
                Self(self.0.max(other.0))
            }

            /// The smaller of two values (NaN-ignoring, like `f64::min`).
            pub fn min(self, other: Self) -> Self {
                Self(self.0.min(other.0))
            }

            /// Whether the value is finite (not NaN or infinite).
            pub fn is_finite(self) -> bool {
                self.0.is_finite()
            }
        }

        impl Add for $name {
            type Output = $name;
            fn add(self, rhs: $name) -> $name {
                $name(self.0 + rhs.0)
            }
        }

        impl AddAssign for $name {
            fn add_assign(&mut self, rhs: $name) {
                self.0 += rhs.0;
            }
        }

        impl Sub for $name {
            type Output = $name;
            fn sub(self, rhs: $name) -> $name {
                $name(self.0 - rhs.0)
            }
        }

        impl Mul<f64> for $name {
            type Output = $name;
            fn mul(self, rhs: f64) -> $name {
                $name(self.0 * rhs)
            }
        }

        impl Mul<$name> for f64 {
            type Output = $name;
            fn mul(self, rhs: $name) -> $name {
                $name(self * rhs.0)
            }
        }

        impl Div<f64> for $name {
            type Output = $name;
            fn div(self, rhs: f64) -> $name {
                $name(self.0 / rhs)
            }
        }

        /// A ratio of two like quantities is a plain number.
        impl Div for $name {
            type Output = f64;
            fn div(self, rhs: $name) -> f64 {
                self.0 / rhs.0
            }
        }

        impl std::iter::Sum for $name {
            fn sum<I: Iterator<Item = $name>>(iter: I) -> $name {
                $name(iter.map(|q| q.0).sum())
            }
        }
    };
}

quantity!(
    /// A count of floating-point (or integer) operations.
    Flops,
    "FLOPs"
);
quantity!(
    /// An amount of memory or data moved, in bytes.
    Bytes,
    "B"
);
quantity!(
    /// A duration in seconds.
    Seconds,
    "s"
);
quantity!(
    /// A compute rate: operations per second.
    FlopsPerSec,
    "FLOPs/s"
);
quantity!(
    /// A bandwidth: bytes per second.
    BytesPerSec,
    "B/s"
);
quantity!(
    /// Arithmetic intensity: operations per byte moved.
    Intensity,
    "FLOPs/B"
);

macro_rules! relation {
    // a / b = c, and the two rearrangements c * b = a, b * c = a, a / c = b.
    ($a:ident / $b:ident = $c:ident) => {
        impl Div<$b> for $a {
            type Output = $c;
            fn div(self, rhs: $b) -> $c {
                $c(self.0 / rhs.0)
            }
        }
        impl Mul<$b> for $c {
            type Output = $a;
            fn mul(self, rhs: $b) -> $a {
                $a(self.0 * rhs.0)
            }
        }
        impl Mul<$c> for $b {
            type Output = $a;
            fn mul(self, rhs: $c) -> $a {
                $a(self.0 * rhs.0)
            }
        }
        impl Div<$c> for $a {
            type Output = $b;
            fn div(self, rhs: $c) -> $b {
                $b(self.0 / rhs.0)
            }
        }
    };
}

relation!(Flops / FlopsPerSec = Seconds);
relation!(Bytes / BytesPerSec = Seconds);
relation!(Flops / Bytes = Intensity);
relation!(FlopsPerSec / BytesPerSec = Intensity);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_from_work_and_rate() {
        let t = Flops(1e12) / FlopsPerSec(9.89e14);
        assert!((t.0 * 1e3 - 1.011).abs() < 1e-3);
        let t = Bytes(8.2e11) / BytesPerSec(8.2e11);
        assert_eq!(t, Seconds(1.0));
    }

    #[test]
    fn rearrangements_round_trip() {
        let c = FlopsPerSec(1.97e14);
        let w = BytesPerSec(8.2e11);
        let ridge: Intensity = c / w;
        assert!((ridge.0 - 240.24).abs() < 0.01);
        let back: FlopsPerSec = ridge * w;
        assert!((back / c - 1.0).abs() < 1e-12);
        let rate: FlopsPerSec = Flops(10.0) / Seconds(2.0);
        assert_eq!(rate, FlopsPerSec(5.0));
        let moved: Bytes = Seconds(2.0) * BytesPerSec(3.0);
        assert_eq!(moved, Bytes(6.0));
    }

    #[test]
    fn like_quantities_add_and_compare() {
        let total: Seconds = [Seconds(1.0), Seconds(2.5)].into_iter().sum();
        assert_eq!(total, Seconds(3.5));
        assert_eq!(Seconds(1.0).max(Seconds(2.0)), Seconds(2.0));
        assert_eq!(Bytes(6.0) / Bytes(3.0), 2.0);
    }
}
