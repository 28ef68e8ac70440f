//! Numeric formats and their sizes.

use crate::units::Bytes;

/// A numeric format an array or an accelerator's math unit can use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dtype {
    /// 32-bit IEEE float.
    F32,
    /// bfloat16, the book's default for weights and activations.
    Bf16,
    /// 8-bit float (GPUs).
    Fp8,
    /// 8-bit integer.
    Int8,
    /// 4-bit integer.
    Int4,
    /// 4-bit float (Blackwell GPUs).
    Fp4,
}

impl Dtype {
    /// Every format, widest first.
    pub const ALL: [Dtype; 6] = [
        Dtype::F32,
        Dtype::Bf16,
        Dtype::Fp8,
        Dtype::Int8,
        Dtype::Int4,
        Dtype::Fp4,
    ];

    /// Bytes one element occupies (4-bit formats take half a byte).
    pub fn bytes(self) -> f64 {
        match self {
            Dtype::F32 => 4.0,
            Dtype::Bf16 => 2.0,
            Dtype::Fp8 | Dtype::Int8 => 1.0,
            Dtype::Int4 | Dtype::Fp4 => 0.5,
        }
    }

    /// Bytes taken by `count` elements of this format.
    pub fn size_of(self, count: f64) -> Bytes {
        Bytes(self.bytes() * count)
    }

    /// Bits one element occupies.
    pub fn bits(self) -> f64 {
        self.bytes() * 8.0
    }

    /// The short name used in URLs, directives and the book (`bf16`, `int8`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Dtype::F32 => "f32",
            Dtype::Bf16 => "bf16",
            Dtype::Fp8 => "fp8",
            Dtype::Int8 => "int8",
            Dtype::Int4 => "int4",
            Dtype::Fp4 => "fp4",
        }
    }

    /// Parses a short name, case-insensitively; `None` for anything unknown.
    pub fn parse(text: &str) -> Option<Dtype> {
        let t = text.trim().to_ascii_lowercase();
        Dtype::ALL
            .into_iter()
            .find(|d| d.name() == t || (t == "fp32" && *d == Dtype::F32))
    }

    /// The format a product of `self` and `other` is computed in: the wider of the two.
    ///
    /// The book's int8-weight, bf16-activation matmul runs at the bf16 rate (Part 1, Q2).
    pub fn compute_with(self, other: Dtype) -> Dtype {
        if self.bytes() >= other.bytes() {
            self
        } else {
            other
        }
    }
}

impl std::fmt::Display for Dtype {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for d in Dtype::ALL {
            assert_eq!(Dtype::parse(d.name()), Some(d));
        }
        assert_eq!(Dtype::parse(" BF16 "), Some(Dtype::Bf16));
        assert_eq!(Dtype::parse("fp32"), Some(Dtype::F32));
        assert_eq!(Dtype::parse("int3"), None);
    }

    #[test]
    fn compute_format_is_the_wider() {
        assert_eq!(Dtype::Int8.compute_with(Dtype::Bf16), Dtype::Bf16);
        assert_eq!(Dtype::Int8.compute_with(Dtype::Int8), Dtype::Int8);
        assert_eq!(Dtype::Int4.size_of(10.0), Bytes(5.0));
    }
}
