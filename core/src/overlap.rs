//! Part 10's collective-matmul example as two timelines, for the
//! `overlap-timeline` widget: `A[B_X, D_Y] ·_D W[D, F_Y] → Out[B_X, F_Y]` on an
//! `X × Y` mesh, computed either by gathering `A` over `Y` and then multiplying
//! (the compiler's default, one blocking AllGather) or by a loop of `Y` chunk
//! matmuls in which each chip passes its chunk of `A` to its neighbour with
//! `ppermute` while it multiplies the chunk it holds.
//!
//! Each lane's step times come from `core`: a chunk matmul is on the roofline
//! of the chip (FLOPs against HBM bytes), the AllGather is
//! [`crate::collectives::cost`] over the `Y` ring, and a `ppermute` is one hop,
//! the larger of the hop latency and the chunk's bytes over the one-way link.
//! Beside them sit the times the book measured on a TPU v5e-8 (311 µs, 244 µs,
//! and 224 µs for the same matmul with nothing to gather). The book's arrays
//! are `int32` (`jnp.arange`), which the matrix units do not run at their bf16
//! rate, so its absolute times are far above a bf16 roofline; the comparison
//! that carries over is the shape: the overlapped loop approaches the matmul
//! alone, the blocking version does not.
//!
//! ```
//! use ridgeline_core::overlap::{overlap_timeline, OverlapParams};
//!
//! let t = overlap_timeline(&OverlapParams::default()).unwrap();
//! assert!(t.overlapped.total < t.blocking.total);
//! assert!(t.overlapped.total >= t.matmul_only);
//! ```

use crate::collectives::{cost, Collective, Network, RingAxis};
use crate::dtype::Dtype;
use crate::hardware::{chip, Chip, Link};
use crate::roofline::Analysis;
use crate::units::{Bytes, Flops, Seconds};

/// Inputs of the `overlap-timeline` widget.
#[derive(Debug, Clone, PartialEq)]
pub struct OverlapParams {
    /// Chip id.
    pub chip: String,
    /// Mesh axis sharding the batch, `X`.
    pub x: u64,
    /// Mesh axis sharding `D` of `A` and `F` of `W`, `Y`.
    pub y: u64,
    /// Batch `B`.
    pub b: u64,
    /// Contracting dimension `D`.
    pub d: u64,
    /// Output dimension `F`.
    pub f: u64,
    /// Format of the arrays.
    pub dtype: Dtype,
}

impl Default for OverlapParams {
    /// The book's example: a TPU v5e 2 × 4 mesh, `B, D, F = 1024, 2048, 8192`, in bf16.
    fn default() -> OverlapParams {
        OverlapParams {
            chip: "v5e".into(),
            x: 2,
            y: 4,
            b: 1024,
            d: 2048,
            f: 8192,
            dtype: Dtype::Bf16,
        }
    }
}

/// What runs in one interval of a lane.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Work {
    /// A matmul on the matrix units.
    Matmul,
    /// The blocking AllGather of `A` over `Y`.
    AllGather,
    /// A `ppermute` of one chunk of `A` to the next chip.
    Ppermute,
}

/// One interval on a timeline lane.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Span {
    /// What runs.
    pub work: Work,
    /// Loop step it belongs to (0 for the blocking version).
    pub step: u64,
    /// Start time.
    pub start: Seconds,
    /// End time.
    pub end: Seconds,
}

/// A timeline: compute and communication lanes and the total.
#[derive(Debug, Clone, PartialEq)]
pub struct Timeline {
    /// Every interval, in start order.
    pub spans: Vec<Span>,
    /// When the last interval ends.
    pub total: Seconds,
}

/// A time the book reports for this example, cited.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BookTime {
    /// Which version.
    pub label: &'static str,
    /// Microseconds in the book's profile.
    pub micros: f64,
    /// Where the book says it.
    pub source: &'static str,
}

/// The book's measured times for the example (Part 10, "Example [Collective
/// Matmul]", TPU v5e-8, `int32` arrays).
pub const BOOK_TIMES: [BookTime; 3] = [
    BookTime {
        label: "jit matmul with a blocking AllGather",
        micros: 311.0,
        source: "Part 10, collective matmul example: default jit profile",
    },
    BookTime {
        label: "collective matmul with ppermute",
        micros: 244.0,
        source: "Part 10, collective matmul example: shard_map profile",
    },
    BookTime {
        label: "matmul without contracting-dimension sharding",
        micros: 224.0,
        source: "Part 10, collective matmul example: unsharded-contraction baseline",
    },
];

/// Both timelines and the baseline.
#[derive(Debug, Clone, PartialEq)]
pub struct OverlapReport {
    /// AllGather, then one matmul.
    pub blocking: Timeline,
    /// `Y` chunk matmuls, each overlapped with the next chunk's `ppermute`.
    pub overlapped: Timeline,
    /// The local matmul alone, `[B/X, D] · [D, F/Y]`.
    pub matmul_only: Seconds,
    /// One chunk matmul, `[B/X, D/Y] · [D/Y, F/Y]`.
    pub chunk_matmul: Seconds,
    /// One `ppermute` of a chunk of `A`.
    pub chunk_permute: Seconds,
    /// The blocking AllGather.
    pub all_gather: Seconds,
}

impl OverlapParams {
    /// Checks the fields; errors name the field.
    pub fn validate(&self) -> Result<&'static Chip, String> {
        let c = chip(&self.chip).ok_or_else(|| format!("chip: no chip {:?}", self.chip))?;
        for (field, v, max) in [
            ("x", self.x, 4096),
            ("y", self.y, 4096),
            ("b", self.b, 1 << 24),
            ("d", self.d, 1 << 24),
            ("f", self.f, 1 << 24),
        ] {
            if v == 0 || v > max {
                return Err(format!("{field}: {v} is outside 1 to {max}"));
            }
        }
        for (field, n, by, what) in [
            ("b", self.b, self.x, "X"),
            ("d", self.d, self.y, "Y"),
            ("f", self.f, self.y, "Y"),
        ] {
            if !n.is_multiple_of(by) {
                return Err(format!("{field}: {n} is not divisible by {what} = {by}"));
            }
        }
        Ok(c)
    }
}

/// The two timelines of the example on `p`'s mesh.
pub fn overlap_timeline(p: &OverlapParams) -> Result<OverlapReport, String> {
    let c = p.validate()?;
    let net = Network::ici(c).map_err(|e| format!("chip: {e}"))?;
    let peak = c
        .peak_or_wider(p.dtype)
        .map(|(_, r)| r)
        .ok_or_else(|| format!("dtype: {} has no {} or wider peak", c.id, p.dtype))?;
    let (b, d, f) = ((p.b / p.x) as f64, p.d as f64, (p.f / p.y) as f64);
    let y = p.y as f64;
    let dt = p.dtype;
    let mm = |rows: f64, k: f64, cols: f64| {
        Analysis::new(
            Flops(2.0 * rows * k * cols),
            peak,
            &[(
                Link::Hbm,
                dt.size_of(rows * k + k * cols + rows * cols),
                c.hbm_bw(),
            )],
        )
        .lower
    };
    let matmul_only = mm(b, d, f);
    let chunk_matmul = mm(b, d / y, f);
    let chunk_bytes: Bytes = dt.size_of(b * d / y);
    let chunk_permute = {
        let bw = chunk_bytes / net.one_way;
        if bw > net.hop_latency {
            bw
        } else {
            net.hop_latency
        }
    };
    let all_gather = if p.y > 1 {
        cost(
            Collective::AllGather,
            dt.size_of(b * d),
            &[RingAxis::ring(p.y as u32)],
            &net,
        )
        .map_err(|e| e.to_string())?
        .time
    } else {
        Seconds(0.0)
    };
    let blocking = Timeline {
        spans: vec![
            Span {
                work: Work::AllGather,
                step: 0,
                start: Seconds(0.0),
                end: all_gather,
            },
            Span {
                work: Work::Matmul,
                step: 0,
                start: all_gather,
                end: all_gather + matmul_only,
            },
        ],
        total: all_gather + matmul_only,
    };
    // Step i multiplies the chunk held while the next one travels; the next
    // step starts when both are done. The last step only multiplies.
    let mut spans = Vec::new();
    let mut t = Seconds(0.0);
    for i in 0..p.y {
        spans.push(Span {
            work: Work::Matmul,
            step: i,
            start: t,
            end: t + chunk_matmul,
        });
        let mut end = t + chunk_matmul;
        if i + 1 < p.y {
            spans.push(Span {
                work: Work::Ppermute,
                step: i,
                start: t,
                end: t + chunk_permute,
            });
            if t + chunk_permute > end {
                end = t + chunk_permute;
            }
        }
        t = end;
    }
    Ok(OverlapReport {
        blocking,
        overlapped: Timeline { spans, total: t },
        matmul_only,
        chunk_matmul,
        chunk_permute,
        all_gather,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_books_example() {
        let r = overlap_timeline(&OverlapParams::default()).unwrap();
        // Four chunk matmuls, three ppermutes.
        let count = |w| r.overlapped.spans.iter().filter(|s| s.work == w).count();
        assert_eq!(count(Work::Matmul), 4);
        assert_eq!(count(Work::Ppermute), 3);
        assert!(r.overlapped.total < r.blocking.total);
        assert!(r.overlapped.total >= r.matmul_only);
        // The book's ordering holds in the model too: blocking > overlapped > matmul alone.
        assert!(BOOK_TIMES[0].micros > BOOK_TIMES[1].micros);
        assert!(BOOK_TIMES[1].micros > BOOK_TIMES[2].micros);
        assert_eq!(
            r.blocking.total,
            r.all_gather + r.matmul_only,
            "blocking is a sum"
        );
    }

    #[test]
    fn bad_fields_are_named() {
        let with = |f: fn(&mut OverlapParams)| {
            let mut p = OverlapParams::default();
            f(&mut p);
            overlap_timeline(&p).unwrap_err()
        };
        assert!(with(|p| p.y = 3).starts_with("d:"));
        assert!(with(|p| p.x = 0).starts_with("x:"));
        assert!(with(|p| p.chip = "nope".into()).starts_with("chip:"));
    }

    proptest! {
        #[test]
        fn overlapped_is_the_sum_of_per_step_maxima(
            ky in 0u32..5, kb in 0u32..4, kd in 0u32..4,
        ) {
            let p = OverlapParams {
                y: 1 << ky,
                b: 256 << kb,
                d: 512 << kd,
                ..OverlapParams::default()
            };
            let r = overlap_timeline(&p).unwrap();
            let steps = p.y as f64;
            let per = r.chunk_matmul.0.max(r.chunk_permute.0);
            let want = per * (steps - 1.0) + r.chunk_matmul.0;
            prop_assert!((r.overlapped.total.0 - want).abs() <= 1e-12 * want.max(1e-9));
            // Overlap never costs more than running the same pieces one after another.
            // (It can lose to the blocking AllGather when communication dominates: the
            // one-way ppermute uses half the links a bidirectional AllGather does.)
            let serial = r.chunk_matmul.0 * steps + r.chunk_permute.0 * (steps - 1.0);
            prop_assert!(r.overlapped.total.0 <= serial * (1.0 + 1e-9));
            prop_assert!(r.overlapped.total.0 >= r.chunk_matmul.0 * steps * (1.0 - 1e-9));
        }
    }
}
