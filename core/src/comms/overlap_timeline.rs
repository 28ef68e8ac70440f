//! Part 10's collective-matmul example as two timelines, for the
//! `overlap-timeline` widget: `A[B_X, D_Y] ·_D W[D, F_Y] → Out[B_X, F_Y]` on an
//! `X × Y` mesh, computed either by gathering `A` over `Y` and then multiplying
//! (the compiler's default, one blocking AllGather) or by a loop of `Y` chunk
//! matmuls in which each chip passes its chunk of `A` to its neighbour with
//! `ppermute` while it multiplies the chunk it holds.
//!
//! The loop is Part 3's collective matmul ([`crate::comms::collective_matmul`])
//! one way round the `Y` ring, and its step times are that model's: a chunk
//! matmul is [`chunk_matmul`] (on the roofline of the chip, FLOPs against HBM
//! bytes), a `ppermute` is [`ppermute`] (one hop, the larger of the hop
//! latency and the chunk's bytes over the one-way link), the steps are
//! [`gather_ring`]'s, and the AllGather is
//! [`crate::comms::collectives::cost`] over the `Y` ring.
//! Beside them sit the times the book measured on a TPU v5e-8 (311 µs, 244 µs,
//! and 224 µs for the same matmul with nothing to gather). The book's arrays
//! are `int32` (`jnp.arange`), which the matrix units do not run at their bf16
//! rate, so its absolute times are far above a bf16 roofline; the comparison
//! that carries over is the shape: the overlapped loop approaches the matmul
//! alone, the blocking version does not.
//!
//! **Why the loop can lose.** The book's `shard_map` code permutes one way
//! round the ring (`perm = [(j, (j - 1) % Y)]`), so each chunk crosses one link
//! in one direction: a hop is a chunk over the *one-way* bandwidth, and the
//! `Y − 1` hops use half of what the ring offers. The compiler's AllGather
//! sends both ways at once and finishes the same `Y − 1` chunks in about half
//! that time. Overlap hides at most the matmul, so once a chunk's one-way
//! transfer takes more than twice its matmul the one-way loop ends after the
//! blocking version: with bf16 on a TPU v5e 2 × 8 (`Y = 8`) each chunk's
//! matmul is short and the loop is slower. That is the model being right,
//! not wrong: the book measured int32 arrays, whose matmuls are slow enough to
//! hide the transfers, and its Q4 asks for the bidirectional loop for exactly
//! this reason ([`fused_costs`] prices it: half the steps, two chunks each).
//!
//! ```
//! use ridgeline_core::comms::overlap_timeline::{overlap_timeline, OverlapParams};
//!
//! let t = overlap_timeline(&OverlapParams::default()).unwrap();
//! assert!(t.overlapped.total < t.blocking.total);
//! assert!(t.overlapped.total >= t.matmul_only);
//! ```

use crate::comms::collective_matmul::{chunk_matmul, gather_ring, ppermute};
use crate::comms::collectives::{cost, Collective, Network, RingAxis};
use crate::dtype::Dtype;
use crate::hardware::{chip, Chip};
use crate::units::{Bytes, Seconds};

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

impl OverlapReport {
    /// The loop is communication-bound: passing a chunk one way takes longer
    /// than multiplying it.
    pub fn loop_comm_bound(&self) -> bool {
        self.chunk_permute > self.chunk_matmul
    }

    /// The one-way loop ends after the blocking version (see the module
    /// notes: its permutes use one direction of each link, the AllGather both).
    pub fn loop_loses(&self) -> bool {
        self.overlapped.total > self.blocking.total
    }
}

impl OverlapParams {
    /// Checks the fields; errors name the field.
    pub fn validate(&self) -> Result<&'static Chip, String> {
        let c = chip(&self.chip).ok_or_else(|| format!("chip: no chip {:?}", self.chip))?;
        self.validate_sizes()?;
        Ok(c)
    }

    /// Checks the sizes, whatever the chip; errors name the field.
    pub fn validate_sizes(&self) -> Result<(), String> {
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
        Ok(())
    }
}

/// The [`chunk_matmul`] time of a `rows × k` by `k × cols` matmul on chip `c`
/// in `dtype`, or why the chip has no rate for that format.
fn matmul_time(
    c: &'static Chip,
    dtype: Dtype,
) -> Result<impl Fn(f64, f64, f64) -> Seconds, String> {
    let peak = c
        .peak_or_wider(dtype)
        .map(|(_, r)| r)
        .ok_or_else(|| format!("dtype: {} has no {} or wider peak", c.id, dtype))?;
    let hbm = c.hbm_bw();
    Ok(move |rows: f64, k: f64, cols: f64| chunk_matmul(rows, k, cols, dtype, peak, hbm))
}

/// The two timelines of the example on `p`'s mesh.
pub fn overlap_timeline(p: &OverlapParams) -> Result<OverlapReport, String> {
    overlap_timeline_on(p, p.validate()?)
}

/// The two timelines of the example on `p`'s mesh of chips `c` (a registry
/// chip or the reader's own), whatever `p.chip` names.
pub fn overlap_timeline_on(p: &OverlapParams, c: &'static Chip) -> Result<OverlapReport, String> {
    p.validate_sizes()?;
    let ring_y = u32::try_from(p.y).map_err(|_| format!("y: {} is too many devices", p.y))?;
    let net = Network::ici(c).map_err(|e| format!("chip: {e}"))?;
    let mm = matmul_time(c, p.dtype)?;
    let (b, d, f) = ((p.b / p.x) as f64, p.d as f64, (p.f / p.y) as f64);
    let y = p.y as f64;
    let dt = p.dtype;
    let matmul_only = mm(b, d, f);
    let chunk_matmul = mm(b, d / y, f);
    let chunk_bytes: Bytes = dt.size_of(b * d / y);
    let chunk_permute = ppermute(chunk_bytes, &net);
    let all_gather = if p.y > 1 {
        cost(
            Collective::AllGather,
            dt.size_of(b * d),
            &[RingAxis::ring(ring_y)],
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
    let steps = gather_ring(ring_y, false, chunk_matmul, chunk_permute);
    let mut spans = Vec::new();
    for s in &steps {
        let step = u64::from(s.index);
        spans.push(Span {
            work: Work::Matmul,
            step,
            start: s.start,
            end: s.start + s.compute,
        });
        if step + 1 < p.y {
            spans.push(Span {
                work: Work::Ppermute,
                step,
                start: s.start,
                end: s.start + s.comms,
            });
        }
    }
    let t = steps.last().map_or(Seconds(0.0), |s| s.end);
    Ok(OverlapReport {
        blocking,
        overlapped: Timeline { spans, total: t },
        matmul_only,
        chunk_matmul,
        chunk_permute,
        all_gather,
    })
}

/// The book's two profiles of the example as timelines (Part 10, the
/// `not-overlapped` and `overlapped` profile figures), built from its
/// measured totals ([`BOOK_TIMES`]) on its `Y = 4` ring. The book gives only
/// the totals, so the lengths inside each are a split of them: the blocking
/// profile's matmul takes the time of the communication-free baseline and its
/// AllGather the rest; in the loop every chunk matmul takes a `Y`-th of the
/// baseline and each of the first `Y − 1` steps lasts as long as its
/// `ppermute`, which is in flight for the whole step, so the time the loop
/// spends over the baseline is the transfers' unhidden part.
pub fn book_profiles() -> (Timeline, Timeline) {
    let us = |m: f64| Seconds(m * 1e-6);
    let [blocked, looped, baseline] = BOOK_TIMES.map(|b| b.micros);
    let y = OverlapParams::default().y;
    let yf = y as f64;
    let gather = blocked - baseline;
    let blocking = Timeline {
        spans: vec![
            Span {
                work: Work::AllGather,
                step: 0,
                start: us(0.0),
                end: us(gather),
            },
            Span {
                work: Work::Matmul,
                step: 0,
                start: us(gather),
                end: us(blocked),
            },
        ],
        total: us(blocked),
    };
    let chunk = baseline / yf;
    let step = (looped - chunk) / (yf - 1.0);
    let mut spans = Vec::new();
    for i in 0..y {
        let start = i as f64 * step;
        spans.push(Span {
            work: Work::Matmul,
            step: i,
            start: us(start),
            end: us(start + chunk),
        });
        if i + 1 < y {
            spans.push(Span {
                work: Work::Ppermute,
                step: i,
                start: us(start),
                end: us(start + step),
            });
        }
    }
    (
        blocking,
        Timeline {
            spans,
            total: us(looped),
        },
    )
}

/// Which collective a collective matmul hides (Part 10's worked problems).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fused {
    /// `A[B_X, D_Y] · W[D, F_Y]`: gather `A`'s chunks while multiplying (the example).
    AllGather,
    /// `A[B_X, D_Y] · W[D_Y, F] → Out[B_X, F]`: reduce each output tile while
    /// the next is multiplied (Q3.1).
    AllReduce,
    /// `Tmp[B_X, F_Y] · W2[F_Y, D] → Out[B_X, D_Y]`: pass partial sums around
    /// the ring as they accumulate (Q3.2).
    ReduceScatter,
}

/// One collective matmul, blocking against overlapped, with one-way or
/// bidirectional permutes (Q3 and Q4).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FusedCost {
    /// Which collective.
    pub fused: Fused,
    /// The local matmul followed by the whole collective.
    pub blocking: Seconds,
    /// The loop with one-way permutes.
    pub one_way: Seconds,
    /// The loop with permutes in both directions at once (Q4): half the steps,
    /// each carrying two chunks.
    pub bidirectional: Seconds,
}

/// Q3 and Q4: the three collective matmuls of a Transformer MLP on `p`'s mesh
/// (`F` is the MLP width, `D` the model width), and the whole block
/// `In[B_X, D_Y] · W_in[D, F_Y] · W_out[F_Y, D] → Out[B_X, D_Y]` as the sum of
/// the AllGather and ReduceScatter ones.
pub fn fused_costs(p: &OverlapParams) -> Result<(Vec<FusedCost>, FusedCost), String> {
    let c = p.validate()?;
    let ring_y = u32::try_from(p.y).map_err(|_| format!("y: {} is too many devices", p.y))?;
    let net = Network::ici(c).map_err(|e| format!("chip: {e}"))?;
    let matmul = matmul_time(c, p.dtype)?;
    let mm = |rows: f64, k: f64, cols: f64| matmul(rows, k, cols).0;
    let dt = p.dtype;
    let (b, d, f, y) = ((p.b / p.x) as f64, p.d as f64, p.f as f64, p.y as f64);
    let hop = |elems: f64| ppermute(dt.size_of(elems), &net).0;
    let coll = |kind, elems: f64| -> Result<f64, String> {
        if p.y == 1 {
            return Ok(0.0);
        }
        cost(kind, dt.size_of(elems), &[RingAxis::ring(ring_y)], &net)
            .map(|k| k.time.0)
            .map_err(|e| e.to_string())
    };
    // A loop of `Y` chunk matmuls, each overlapped with moving one chunk
    // ([`gather_ring`]); bidirectional halves the steps and doubles the work
    // per step. `tail` is what the last step leaves to pay after the loop.
    let looped = |chunk_mm: f64, chunk_hop: f64, tail: f64| {
        let ring = |both| {
            let steps = gather_ring(ring_y, both, Seconds(chunk_mm), Seconds(chunk_hop));
            steps.last().map_or(0.0, |s| s.end.0) + tail
        };
        let one = ring(false);
        (one, ring(true).min(one))
    };
    let mut out = Vec::new();
    // The example: chunks of A travel; the last step is a matmul only.
    let (one, two) = looped(mm(b, d / y, f / y), hop(b * d / y), 0.0);
    out.push(FusedCost {
        fused: Fused::AllGather,
        blocking: Seconds(coll(Collective::AllGather, b * d)? + mm(b, d, f / y)),
        one_way: Seconds(one),
        bidirectional: Seconds(two),
    });
    // Q3.1: Y output tiles; each tile's AllReduce hides under the next tile's
    // matmul, and the last one is paid in full.
    let tile_ar = coll(Collective::AllReduce, b * f / y)?;
    let (one, two) = looped(mm(b, d / y, f / y), tile_ar, tile_ar);
    out.push(FusedCost {
        fused: Fused::AllReduce,
        blocking: Seconds(mm(b, d / y, f) + coll(Collective::AllReduce, b * f)?),
        one_way: Seconds(one),
        bidirectional: Seconds(two),
    });
    // Q3.2: partial sums of one output chunk travel while the next is computed.
    let (one, two) = looped(mm(b, f / y, d / y), hop(b * d / y), 0.0);
    out.push(FusedCost {
        fused: Fused::ReduceScatter,
        blocking: Seconds(mm(b, f / y, d) + coll(Collective::ReduceScatter, b * d)?),
        one_way: Seconds(one),
        bidirectional: Seconds(two),
    });
    let block = FusedCost {
        fused: Fused::AllGather,
        blocking: out[0].blocking + out[2].blocking,
        one_way: out[0].one_way + out[2].one_way,
        bidirectional: out[0].bidirectional + out[2].bidirectional,
    };
    Ok((out, block))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_books_profiles_split_its_totals() {
        let (blocking, looped) = book_profiles();
        let us = |s: Seconds| (s.0 * 1e6 * 1e6).round() / 1e6;
        // 311 − 224 = 87 µs of AllGather before the 224-µs matmul.
        let b: Vec<(Work, f64, f64)> = blocking
            .spans
            .iter()
            .map(|s| (s.work, us(s.start), us(s.end)))
            .collect();
        assert_eq!(
            b,
            vec![(Work::AllGather, 0.0, 87.0), (Work::Matmul, 87.0, 311.0)]
        );
        // Four chunk matmuls of 56 µs; steps of (244 − 56) / 3 = 62.67 µs.
        let m: Vec<(f64, f64)> = looped
            .spans
            .iter()
            .filter(|s| s.work == Work::Matmul)
            .map(|s| (us(s.start), us(s.end)))
            .collect();
        assert_eq!(m.len(), 4);
        assert_eq!(m[0], (0.0, 56.0));
        assert_eq!(m[3], (188.0, 244.0));
        let p: Vec<f64> = looped
            .spans
            .iter()
            .filter(|s| s.work == Work::Ppermute)
            .map(|s| us(s.end) - us(s.start))
            .collect();
        assert_eq!(p.len(), 3);
        assert!(p.iter().all(|&d| (d - 188.0 / 3.0).abs() < 1e-6), "{p:?}");
        assert_eq!((us(blocking.total), us(looped.total)), (311.0, 244.0));
        assert!(!looped.spans.iter().any(|s| s.work == Work::AllGather));
    }

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
    fn a_one_way_loop_loses_when_a_chunk_moves_slower_than_twice_its_matmul() {
        let p = OverlapParams {
            y: 8,
            ..OverlapParams::default()
        };
        let r = overlap_timeline(&p).unwrap();
        let net = Network::ici(chip("v5e").unwrap()).unwrap();
        // Each hop is one chunk of A, [B/X, D/Y] = [512, 256] in bf16, one way.
        let chunk = Dtype::Bf16.size_of(512.0 * 256.0);
        assert_eq!(r.chunk_permute, chunk / net.one_way);
        assert!(r.loop_comm_bound() && r.chunk_permute > r.chunk_matmul * 2.0);
        // Comm-bound: the loop is the first matmul plus seven one-way hops...
        let expect = r.chunk_matmul + r.chunk_permute * 7.0;
        assert!((r.overlapped.total.0 - expect.0).abs() < 1e-15);
        // ...while the AllGather moves the same seven chunks both ways at once.
        assert!(r.all_gather.0 < 0.6 * 7.0 * r.chunk_permute.0);
        assert!(r.loop_loses());
        // The bidirectional loop of Q4 halves the hops and wins again.
        let (costs, _) = fused_costs(&p).unwrap();
        assert!(costs[0].bidirectional < costs[0].one_way);
        assert!((costs[0].one_way.0 - r.overlapped.total.0).abs() < 1e-12);
        // With the book's Y = 4 the chunks are larger to multiply and the
        // one-way loop wins.
        let book = overlap_timeline(&OverlapParams::default()).unwrap();
        assert!(!book.loop_loses());
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

    #[test]
    fn worked_problems_q3_q4() {
        // A v5e 2x4 mesh, B = 8192 tokens, D = 4096, F = 16384, bf16.
        let p = OverlapParams {
            b: 8192,
            d: 4096,
            f: 16384,
            ..OverlapParams::default()
        };
        let (costs, block) = fused_costs(&p).unwrap();
        assert_eq!(costs.len(), 3);
        for c in &costs {
            assert!(c.one_way <= c.blocking, "{c:?}");
            assert!(c.bidirectional <= c.one_way, "{c:?}");
        }
        // The example's one-way loop is the timeline's overlapped total.
        let t = overlap_timeline(&p).unwrap();
        assert!((costs[0].one_way.0 - t.overlapped.total.0).abs() < 1e-15);
        assert!((block.blocking.0 - costs[0].blocking.0 - costs[2].blocking.0).abs() < 1e-15);
        // Communication-bound case: bidirectional permutes help (Q4).
        let small = OverlapParams {
            f: 2048,
            ..OverlapParams::default()
        };
        let (costs, _) = fused_costs(&small).unwrap();
        assert!(costs[0].bidirectional < costs[0].one_way, "{:?}", costs[0]);
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
