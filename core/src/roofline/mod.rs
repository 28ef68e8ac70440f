//! Rooflines: how long an operation takes when it is limited by compute or by
//! the bytes it moves over one or more links (Part 1).
//!
//! ```
//! use ridgeline_core::roofline::{Analysis, Verdict};
//! use ridgeline_core::hardware::Link;
//! use ridgeline_core::units::{Bytes, BytesPerSec, Flops, FlopsPerSec};
//!
//! // 1 GFLOP against 100 MB over HBM on a TPU v5e.
//! let a = Analysis::new(
//!     Flops(1e9),
//!     FlopsPerSec(1.97e14),
//!     &[(Link::Hbm, Bytes(1e8), BytesPerSec(8.2e11))],
//! );
//! assert_eq!(a.verdict, Verdict::MemoryBound);
//! assert!(a.upper.0 <= 2.0 * a.lower.0);
//! ```
//!
//! ## Files
//!
//! | file | what |
//! |---|---|
//! | `mod.rs` | the roofline itself: time bounded by compute and by each link, the [`Verdict`] |
//! | `derate.rs` | an achievable roof: the share of peak FLOPs/s, HBM and link bandwidth a reader assumes |
//! | `ops.rs` | the operations Part 1 puts on a roofline (dot products, matmuls, pointwise ops) with their FLOPs and bytes, the rate each attains, and a matmul's rate against its batch |
//! | `strong_scaling.rs` | Part 0's strong scaling: a fixed step spread over more chips |

pub mod derate;
pub mod ops;
pub mod strong_scaling;

use crate::hardware::Link;
use crate::units::{Bytes, BytesPerSec, Flops, FlopsPerSec, Intensity, Seconds};

/// Which resource sets the runtime.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// The matrix units are the bottleneck.
    ComputeBound,
    /// Moving bytes between HBM and the compute units is the bottleneck.
    MemoryBound,
    /// Moving bytes between chips (ICI, DCN, PCIe, NVLink, network) is the bottleneck.
    CommunicationBound,
}

impl Verdict {
    /// The text a reader sees: `compute-bound`, `memory-bound` or `communication-bound`.
    pub fn text(self) -> &'static str {
        match self {
            Verdict::ComputeBound => "compute-bound",
            Verdict::MemoryBound => "memory-bound",
            Verdict::CommunicationBound => "communication-bound",
        }
    }

    /// The verdict when `link` is the slowest path.
    pub fn for_link(link: Link) -> Verdict {
        match link {
            Link::Hbm => Verdict::MemoryBound,
            _ => Verdict::CommunicationBound,
        }
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.text())
    }
}

/// Time spent moving bytes over one link.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinkTime {
    /// Which link.
    pub link: Link,
    /// Bytes moved over it.
    pub bytes: Bytes,
    /// Its bandwidth.
    pub bandwidth: BytesPerSec,
    /// `bytes / bandwidth`, or for a collective its time from
    /// [`crate::comms::collectives::cost`] (the larger of that and its hops' latency).
    pub time: Seconds,
}

/// The roofline analysis of one operation on one chip.
#[derive(Debug, Clone, PartialEq)]
pub struct Analysis {
    /// Operations performed.
    pub flops: Flops,
    /// Peak compute rate.
    pub rate: FlopsPerSec,
    /// `flops / rate`.
    pub t_math: Seconds,
    /// Per-link communication times.
    pub links: Vec<LinkTime>,
    /// Runtime if compute and every transfer overlap perfectly: the maximum.
    pub lower: Seconds,
    /// Runtime if nothing overlaps: the sum.
    pub upper: Seconds,
    /// What sets the lower bound.
    pub verdict: Verdict,
    /// The slowest link, when a link sets the bound.
    pub binding: Option<Link>,
}

impl Analysis {
    /// Analyses `flops` at `rate` against each `(link, bytes, bandwidth)` transfer.
    ///
    /// Ties go to compute: an operation exactly at the ridge is called compute-bound.
    pub fn new(flops: Flops, rate: FlopsPerSec, traffic: &[(Link, Bytes, BytesPerSec)]) -> Self {
        let links: Vec<LinkTime> = traffic
            .iter()
            .map(|&(link, bytes, bandwidth)| LinkTime {
                link,
                bytes,
                bandwidth,
                time: bytes / bandwidth,
            })
            .collect();
        Analysis::of_times(flops, rate, links)
    }

    /// Analyses `flops` at `rate` against transfers whose times are already
    /// known (a collective's, with its latency), with the same verdict as
    /// [`Analysis::new`].
    pub fn of_times(flops: Flops, rate: FlopsPerSec, links: Vec<LinkTime>) -> Self {
        let t_math = flops / rate;
        let slowest = links
            .iter()
            .filter(|l| l.time.0.is_finite())
            .max_by(|a, b| a.time.0.total_cmp(&b.time.0));
        let (verdict, binding, lower) = match slowest {
            Some(l) if l.time > t_math => (Verdict::for_link(l.link), Some(l.link), l.time),
            _ => (Verdict::ComputeBound, None, t_math),
        };
        let upper = t_math + links.iter().map(|l| l.time).sum::<Seconds>();
        Analysis {
            flops,
            rate,
            t_math,
            links,
            lower,
            upper,
            verdict,
            binding,
        }
    }

    /// Communication time over one link, if it was part of the analysis.
    pub fn t_comms(&self, link: Link) -> Option<Seconds> {
        self.links.iter().find(|l| l.link == link).map(|l| l.time)
    }

    /// The fraction of peak the operation reaches at the lower bound.
    pub fn utilisation(&self) -> f64 {
        self.t_math / self.lower
    }
}

/// Attainable throughput of an operation of intensity `i` under a compute roof `c`
/// and a bandwidth roof `w`: `min(c, i·w)`.
pub fn attainable(i: Intensity, c: FlopsPerSec, w: BytesPerSec) -> FlopsPerSec {
    c.min(i * w)
}

/// The verdict for an intensity against a ridge point (ties are compute-bound).
pub fn verdict_at(i: Intensity, ridge: Intensity, link: Link) -> Verdict {
    if i >= ridge {
        Verdict::ComputeBound
    } else {
        Verdict::for_link(link)
    }
}

/// The book's two-chip example (Part 1): `A[B, D]·W[D, F]` split in half along D
/// over two chips, each computing a partial sum and exchanging `2·B·F` bytes of
/// bf16 partial sums over one link.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SplitContraction {
    /// Token batch.
    pub b: f64,
    /// Contracting dimension (split over the two chips).
    pub d: f64,
    /// Output features.
    pub f: f64,
}

impl SplitContraction {
    /// FLOPs each chip performs: `2·B·(D/2)·F = B·D·F`.
    pub fn flops_per_chip(&self) -> Flops {
        Flops(self.b * self.d * self.f)
    }

    /// Bytes each chip sends: its bf16 partial sums, `2·B·F`.
    pub fn bytes_exchanged(&self) -> Bytes {
        Bytes(2.0 * self.b * self.f)
    }

    /// The roofline analysis on a chip of peak `c` joined by a link of bandwidth `w`.
    pub fn analyse(&self, c: FlopsPerSec, link: Link, w: BytesPerSec) -> Analysis {
        Analysis::new(
            self.flops_per_chip(),
            c,
            &[(link, self.bytes_exchanged(), w)],
        )
    }

    /// The contracting dimension above which the split is compute-bound: `D > 2·C/W`.
    pub fn critical_d(c: FlopsPerSec, w: BytesPerSec) -> f64 {
        2.0 * (c / w).0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const V5E_C: FlopsPerSec = FlopsPerSec(1.97e14);
    const V5E_HBM: BytesPerSec = BytesPerSec(8.2e11);

    #[test]
    fn bounds_are_max_and_sum_and_within_two() {
        let a = Analysis::new(Flops(2e12), V5E_C, &[(Link::Hbm, Bytes(8.2e9), V5E_HBM)]);
        assert!((a.t_math.0 - 2e12 / 1.97e14).abs() < 1e-12);
        assert_eq!(a.t_comms(Link::Hbm), Some(Seconds(0.01)));
        assert_eq!(a.lower, a.t_math.max(Seconds(0.01)));
        assert!((a.upper.0 - (a.t_math.0 + 0.01)).abs() < 1e-15);
        assert!(a.upper.0 <= 2.0 * a.lower.0 + 1e-15);
        assert_eq!(a.verdict, Verdict::ComputeBound);
    }

    #[test]
    fn slowest_link_binds() {
        let a = Analysis::new(
            Flops(1.0),
            V5E_C,
            &[
                (Link::Hbm, Bytes(1e6), V5E_HBM),
                (Link::Ici, Bytes(1e6), BytesPerSec(9e10)),
            ],
        );
        assert_eq!(a.verdict, Verdict::CommunicationBound);
        assert_eq!(a.binding, Some(Link::Ici));
        assert_eq!(a.verdict.text(), "communication-bound");
    }

    #[test]
    fn two_chip_threshold_is_8755() {
        let d = SplitContraction::critical_d(V5E_C, BytesPerSec(4.5e10));
        assert!((d - 8755.6).abs() < 1.0);
        let below = SplitContraction {
            b: 1024.0,
            d: 8000.0,
            f: 8192.0,
        };
        let above = SplitContraction {
            b: 1024.0,
            d: 9000.0,
            f: 8192.0,
        };
        let w = BytesPerSec(4.5e10);
        assert_eq!(
            below.analyse(V5E_C, Link::Ici, w).verdict,
            Verdict::CommunicationBound
        );
        assert_eq!(
            above.analyse(V5E_C, Link::Ici, w).verdict,
            Verdict::ComputeBound
        );
    }

    #[test]
    fn attainable_is_min_of_roofs() {
        assert_eq!(
            attainable(Intensity(1.0), V5E_C, V5E_HBM),
            FlopsPerSec(8.2e11)
        );
        assert_eq!(attainable(Intensity(1e6), V5E_C, V5E_HBM), V5E_C);
        assert_eq!(
            verdict_at(Intensity(240.0), Intensity(240.0), Link::Hbm),
            Verdict::ComputeBound
        );
    }
}
