//! Deterministic pseudo-random numbers and a content hash, for code and tests
//! that must give the same answer on every run and every machine.
//!
//! [`Rng`] is SplitMix64: small, fast, and good enough to sample the points at
//! which the grader compares a reader's formula with the book's, and to drive
//! the fuzz tests of every crate. [`fnv1a`] is the 64-bit FNV-1a hash, used to
//! name files by their content; neither is a security measure.
//!
//! ```
//! use ridgeline_core::rng::{fnv1a, Rng};
//!
//! let mut a = Rng::new(7);
//! let mut b = Rng::new(7);
//! assert_eq!(a.next_u64(), b.next_u64());
//! let x = a.unit();
//! assert!((0.0..1.0).contains(&x));
//! assert_eq!(a.pick(&["only"]), "only");
//! assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
//! assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
//! ```

/// The SplitMix64 increment, the golden ratio in 64 bits.
const GOLDEN_GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// A deterministic generator (SplitMix64): the same seed gives the same numbers.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ GOLDEN_GAMMA)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(GOLDEN_GAMMA);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform on [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform on (0, 1): never 0, so that its logarithm is finite (an
    /// exponential waiting time is `-ln(u) / rate`).
    pub fn open_unit(&mut self) -> f64 {
        ((self.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    /// Uniform on [lo, hi], log-uniform when the range spans more than a decade.
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        let u = self.unit();
        if lo > 0.0 && hi / lo > 10.0 {
            (lo.ln() + u * (hi.ln() - lo.ln())).exp()
        } else {
            lo + u * (hi - lo)
        }
    }

    /// Uniform on `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        #[allow(clippy::cast_possible_truncation, reason = "below n, a usize")]
        let i = (self.next_u64() % n.max(1) as u64) as usize;
        i
    }

    /// One of `items`, uniformly.
    ///
    /// # Panics
    ///
    /// If `items` is empty; callers pass a fixed, non-empty list.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// The FNV-1a offset basis for 64 bits, where [`fnv1a`] starts.
pub const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// The 64-bit FNV-1a hash of `bytes`.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    fnv1a_from(FNV_OFFSET, bytes)
}

/// The 64-bit FNV-1a hash of `bytes` from another starting value, for a second,
/// independent hash of the same bytes.
pub fn fnv1a_from(offset: u64, bytes: &[u8]) -> u64 {
    bytes.iter().fold(offset, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}
