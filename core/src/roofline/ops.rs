//! The operations Part 1 puts on a roofline: how many FLOPs they perform and
//! how many bytes they move between HBM and the compute units.
//!
//! ```
//! use ridgeline_core::dtype::Dtype;
//! use ridgeline_core::roofline::ops::Op;
//!
//! let mm = Op::Matmul { b: 256.0, d: 8192.0, f: 8192.0, act: Dtype::Bf16, weight: Dtype::Bf16 };
//! // I = BDF / (BD + DF + BF), close to B while B ≪ D, F.
//! assert!((mm.intensity().0 - 241.0).abs() < 1.0);
//! ```

use crate::check::is_positive;
use crate::dtype::Dtype;
use crate::hardware::{Chip, Link};
use crate::roofline::derate::Derate;
use crate::roofline::{Analysis, Verdict};
use crate::units::{Bytes, Flops, FlopsPerSec, Intensity};

/// An operation with a batch-like size the reader can drag.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Op {
    /// `A[B, D] · W[D, F] → C[B, F]`; activations and output in `act`, weights in `weight`.
    Matmul {
        /// Batch (tokens).
        b: f64,
        /// Contracting dimension.
        d: f64,
        /// Output features.
        f: f64,
        /// Format of activations and the output.
        act: Dtype,
        /// Format of the weights.
        weight: Dtype,
    },
    /// `x · y` of two length-N vectors, one scalar written back.
    Dot {
        /// Vector length.
        n: f64,
        /// Format of both vectors and the result.
        dtype: Dtype,
    },
    /// `z = x + y` over N elements.
    Elementwise {
        /// Element count.
        n: f64,
        /// Format of all three arrays.
        dtype: Dtype,
    },
    /// `A[B, D] · W[B, D, F] → C[B, F]`: a separate weight matrix per example (Part 1 Q4).
    PerExampleMatmul {
        /// Batch.
        b: f64,
        /// Contracting dimension.
        d: f64,
        /// Output features.
        f: f64,
        /// Format of every array.
        dtype: Dtype,
    },
}

/// The kinds of [`Op`], for pickers and URLs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OpKind {
    /// See [`Op::Matmul`].
    Matmul,
    /// See [`Op::Dot`].
    Dot,
    /// See [`Op::Elementwise`].
    Elementwise,
    /// See [`Op::PerExampleMatmul`].
    PerExampleMatmul,
}

impl OpKind {
    /// Every kind, in picker order.
    pub const ALL: [OpKind; 4] = [
        OpKind::Matmul,
        OpKind::Dot,
        OpKind::Elementwise,
        OpKind::PerExampleMatmul,
    ];

    /// Short name for URLs.
    pub fn name(self) -> &'static str {
        match self {
            OpKind::Matmul => "matmul",
            OpKind::Dot => "dot",
            OpKind::Elementwise => "add",
            OpKind::PerExampleMatmul => "batched",
        }
    }

    /// Human label.
    pub fn label(self) -> &'static str {
        match self {
            OpKind::Matmul => "matmul A[B,D]·W[D,F]",
            OpKind::Dot => "dot product x·y (length B)",
            OpKind::Elementwise => "elementwise x + y (B elements)",
            OpKind::PerExampleMatmul => "per-example weights A[B,D]·W[B,D,F]",
        }
    }

    /// Parses a short name.
    pub fn parse(text: &str) -> Option<OpKind> {
        let t = text.trim().to_ascii_lowercase();
        OpKind::ALL.into_iter().find(|k| k.name() == t)
    }

    /// Builds the op with batch (or length) `b`, dims `d`, `f`, activation and weight formats.
    pub fn build(self, b: f64, d: f64, f: f64, act: Dtype, weight: Dtype) -> Op {
        match self {
            OpKind::Matmul => Op::Matmul {
                b,
                d,
                f,
                act,
                weight,
            },
            OpKind::Dot => Op::Dot { n: b, dtype: act },
            OpKind::Elementwise => Op::Elementwise { n: b, dtype: act },
            OpKind::PerExampleMatmul => Op::PerExampleMatmul {
                b,
                d,
                f,
                dtype: weight,
            },
        }
    }
}

impl Op {
    /// Which kind of op this is.
    pub fn kind(&self) -> OpKind {
        match self {
            Op::Matmul { .. } => OpKind::Matmul,
            Op::Dot { .. } => OpKind::Dot,
            Op::Elementwise { .. } => OpKind::Elementwise,
            Op::PerExampleMatmul { .. } => OpKind::PerExampleMatmul,
        }
    }

    /// Operations performed (a multiply-add counts as two).
    pub fn flops(&self) -> Flops {
        match *self {
            Op::Matmul { b, d, f, .. } | Op::PerExampleMatmul { b, d, f, .. } => {
                Flops(2.0 * b * d * f)
            }
            Op::Dot { n, .. } => Flops(2.0 * n - 1.0),
            Op::Elementwise { n, .. } => Flops(n),
        }
    }

    /// Bytes read from and written to HBM, assuming each array is touched once.
    pub fn hbm_bytes(&self) -> Bytes {
        match *self {
            Op::Matmul {
                b,
                d,
                f,
                act,
                weight,
            } => act.size_of(b * d) + weight.size_of(d * f) + act.size_of(b * f),
            Op::Dot { n, dtype } => dtype.size_of(2.0 * n + 1.0),
            Op::Elementwise { n, dtype } => dtype.size_of(3.0 * n),
            Op::PerExampleMatmul { b, d, f, dtype } => {
                dtype.size_of(b * d) + dtype.size_of(b * d * f) + dtype.size_of(b * f)
            }
        }
    }

    /// FLOPs per byte.
    pub fn intensity(&self) -> Intensity {
        self.flops() / self.hbm_bytes()
    }

    /// The format the arithmetic runs in (the wider of the operands).
    pub fn compute_dtype(&self) -> Dtype {
        match *self {
            Op::Matmul { act, weight, .. } => act.compute_with(weight),
            Op::Dot { dtype, .. }
            | Op::Elementwise { dtype, .. }
            | Op::PerExampleMatmul { dtype, .. } => dtype,
        }
    }

    /// The batch-like size (B or N).
    pub fn batch(&self) -> f64 {
        match *self {
            Op::Matmul { b, .. } | Op::PerExampleMatmul { b, .. } => b,
            Op::Dot { n, .. } | Op::Elementwise { n, .. } => n,
        }
    }

    /// The same op with a different batch-like size.
    pub fn with_batch(self, b: f64) -> Op {
        match self {
            Op::Matmul {
                d, f, act, weight, ..
            } => Op::Matmul {
                b,
                d,
                f,
                act,
                weight,
            },
            Op::PerExampleMatmul { d, f, dtype, .. } => Op::PerExampleMatmul { b, d, f, dtype },
            Op::Dot { dtype, .. } => Op::Dot { n: b, dtype },
            Op::Elementwise { dtype, .. } => Op::Elementwise { n: b, dtype },
        }
    }

    /// The intensity this op approaches as its batch grows without bound.
    pub fn asymptotic_intensity(&self) -> Intensity {
        match *self {
            Op::Matmul { d, f, act, .. } => {
                Intensity(2.0 * d * f / (act.bytes() * d + act.bytes() * f))
            }
            Op::Dot { dtype, .. } => Intensity(1.0 / dtype.bytes()),
            Op::Elementwise { dtype, .. } => Intensity(1.0 / (3.0 * dtype.bytes())),
            Op::PerExampleMatmul { d, f, dtype, .. } => {
                Intensity(2.0 * d * f / (dtype.bytes() * (d + d * f + f)))
            }
        }
    }

    /// The batch at which this op's intensity reaches `ridge`, if it ever does.
    ///
    /// Only the matmul's intensity depends materially on the batch; for it the
    /// crossing solves `2BDF = R·(a·BD + w·DF + a·BF)` exactly:
    /// `B = R·w·DF / (2DF − R·a·(D + F))`. The other ops have a nearly constant
    /// intensity, so they cross everywhere or nowhere; `Some(1.0)` means the op is
    /// compute-bound at any size.
    pub fn critical_batch(&self, ridge: Intensity) -> Option<f64> {
        let r = ridge.0;
        if !is_positive(r) {
            return None;
        }
        match *self {
            Op::Matmul {
                d, f, act, weight, ..
            } => {
                let denom = 2.0 * d * f - r * act.bytes() * (d + f);
                if denom <= 0.0 {
                    None
                } else {
                    Some((r * weight.bytes() * d * f / denom).max(1.0))
                }
            }
            _ => {
                if self.asymptotic_intensity().0 >= r && self.with_batch(1.0).intensity().0 >= r {
                    Some(1.0)
                } else {
                    None
                }
            }
        }
    }

    /// The batch in `lo..=hi` whose intensity is closest to `target`, found by
    /// bisection (every op's intensity grows with its batch). Used when a reader
    /// drags the op's point along the intensity axis.
    pub fn batch_for_intensity(&self, target: f64, lo: f64, hi: f64) -> f64 {
        let at = |b: f64| self.with_batch(b).intensity().0;
        if !(target.is_finite() && lo.is_finite() && hi.is_finite() && lo > 0.0 && hi >= lo) {
            return lo.max(1.0);
        }
        if target <= at(lo) {
            return lo;
        }
        if target >= at(hi) {
            return hi;
        }
        let (mut a, mut b) = (lo.ln(), hi.ln());
        for _ in 0..60 {
            let mid = 0.5 * (a + b);
            if at(mid.exp()) < target {
                a = mid;
            } else {
                b = mid;
            }
        }
        (0.5 * (a + b)).exp()
    }

    /// The roofline analysis on `chip` against HBM, or `None` when the chip has no
    /// peak for the op's format (or a wider one).
    pub fn analyse(&self, chip: &Chip) -> Option<Analysis> {
        self.analyse_derated(chip, Derate::PEAK)
    }

    /// The roofline analysis on `chip` against HBM with its peak FLOPs/s and
    /// HBM bandwidth scaled by `derate` (an achievable roof), or `None` when
    /// the chip has no peak for the op's format (or a wider one).
    pub fn analyse_derated(&self, chip: &Chip, derate: Derate) -> Option<Analysis> {
        let (_, rate) = chip.peak_or_wider(self.compute_dtype())?;
        Some(Analysis::new(
            self.flops(),
            derate.rate(rate),
            &[(
                Link::Hbm,
                self.hbm_bytes(),
                derate.bandwidth(Link::Hbm, chip.hbm_bw()),
            )],
        ))
    }

    /// The HBM verdict on `chip`, if the chip can run the op.
    pub fn verdict(&self, chip: &Chip) -> Option<Verdict> {
        self.analyse(chip).map(|a| a.verdict)
    }

    /// The FLOPs/s this op attains on `chip` reading HBM with exact bytes:
    /// [`super::attainable`] at its intensity, `min(C, I·W)`, which is its
    /// FLOPs over the longer of its compute and HBM times. `None` when the
    /// chip has no peak for the op's format (or a wider one).
    pub fn attainable(&self, chip: &Chip) -> Option<FlopsPerSec> {
        let (_, rate) = chip.peak_or_wider(self.compute_dtype())?;
        Some(super::attainable(self.intensity(), rate, chip.hbm_bw()))
    }

    /// This op's attainable rate on `chip` against its batch from 0 to
    /// `b_max` (Part 1, Question 3: the book's plot of peak FLOPs/s against
    /// B), sampled at `samples` even steps with the batch where it meets the
    /// roof added, so a drawn curve bends exactly there. `None` when the chip
    /// has no peak for the op's format or its HBM ridge is not a finite
    /// positive number, or the range is empty.
    pub fn batch_curve(&self, chip: &Chip, b_max: f64, samples: usize) -> Option<BatchCurve> {
        let (_, peak) = chip.peak_or_wider(self.compute_dtype())?;
        let ridge = peak / chip.hbm_bw();
        if !is_positive(ridge.0) || !is_positive(b_max) || samples == 0 {
            return None;
        }
        let crossing = self.critical_batch(ridge);
        let mut batches: Vec<f64> = (0..=samples)
            .map(|i| b_max * i as f64 / samples as f64)
            .chain(crossing.filter(|&c| c < b_max))
            .collect();
        batches.sort_by(f64::total_cmp);
        batches.dedup();
        let points = batches
            .into_iter()
            .map(|b| {
                let rate = super::attainable(self.with_batch(b).intensity(), peak, chip.hbm_bw());
                (b, rate)
            })
            .collect();
        Some(BatchCurve {
            points,
            peak,
            crossing,
        })
    }
}

/// A matmul's attainable rate against its batch on one chip
/// ([`Op::batch_curve`]): a straight ramp while the batch is small beside D
/// and F (the intensity is then nearly proportional to B), bowed when it is
/// not, flat at the peak past the crossing.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchCurve {
    /// `(batch, attainable FLOPs/s)`, batches increasing from 0.
    pub points: Vec<(f64, FlopsPerSec)>,
    /// The chip's peak for the op's format: the roof.
    pub peak: FlopsPerSec,
    /// The batch where the op meets the roof ([`Op::critical_batch`]), if
    /// it ever does; it may lie beyond the sampled range.
    pub crossing: Option<f64>,
}

/// Tokens each device holds when `sequences` of `seq_len` tokens are split evenly
/// over `devices` (the per-device batch that decides the roofline, Part 1).
pub fn tokens_per_device(sequences: f64, seq_len: f64, devices: f64) -> f64 {
    sequences * seq_len / devices
}

/// The arithmetic intensity of one tile of a matmul: `[bm, bk] · [bk, bn]`
/// loaded from memory, multiplied and its `[bm, bn]` result written back (Part 1,
/// "Matrix multiplication").
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TiledIntensity {
    /// `2 · bm · bk · bn`.
    pub flops: Flops,
    /// `(bm·bk + bk·bn + bm·bn) · bytes per element`.
    pub bytes: Bytes,
    /// FLOPs over bytes, exactly.
    pub exact: Intensity,
    /// The book's approximation for bf16 and a long `bk`: `bm · bn / (bm + bn)`.
    pub approx: Intensity,
}

/// The intensity of a `bm × bk × bn` tile in `dtype`; errors name a zero tile side.
pub fn tiled_intensity(bm: u64, bk: u64, bn: u64, dtype: Dtype) -> Result<TiledIntensity, String> {
    for (v, what) in [(bm, "bm"), (bk, "bk"), (bn, "bn")] {
        if v == 0 {
            return Err(format!("the tile side {what} must be at least 1"));
        }
    }
    let (m, k, n) = (bm as f64, bk as f64, bn as f64);
    let flops = Flops(2.0 * m * k * n);
    let bytes = dtype.size_of(m * k + k * n + m * n);
    // Per element of bf16 the two FLOPs of a multiply-add meet two bytes.
    let approx = Intensity(m * n / (m + n) * 2.0 / dtype.bytes());
    Ok(TiledIntensity {
        flops,
        bytes,
        exact: flops / bytes,
        approx,
    })
}

/// One algorithm on one memory system, as the "Visualizing rooflines" figure
/// draws it: the rate it attains and what bounds it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RooflinePoint {
    /// Which algorithm (index into the intensities given).
    pub algorithm: usize,
    /// Which bandwidth (index into the bandwidths given).
    pub memory: usize,
    /// Its intensity.
    pub intensity: Intensity,
    /// `min(peak, intensity · bandwidth)`.
    pub attained: crate::units::FlopsPerSec,
    /// Compute- or memory-bound.
    pub verdict: Verdict,
}

/// Every pairing of `intensities` (algorithms) with `bandwidths` under `peak`:
/// raising the bandwidth helps only the algorithms below its ridge.
pub fn rooflines(
    peak: crate::units::FlopsPerSec,
    bandwidths: &[crate::units::BytesPerSec],
    intensities: &[Intensity],
) -> Result<Vec<RooflinePoint>, String> {
    if !is_positive(peak.0) {
        return Err("the peak must be a finite positive number".into());
    }
    if let Some(i) = bandwidths.iter().position(|b| !is_positive(b.0)) {
        return Err(format!(
            "bandwidth #{} must be a finite positive number",
            i + 1
        ));
    }
    if let Some(i) = intensities.iter().position(|x| !is_positive(x.0)) {
        return Err(format!(
            "intensity #{} must be a finite positive number",
            i + 1
        ));
    }
    let mut out = Vec::with_capacity(bandwidths.len() * intensities.len());
    for (memory, &w) in bandwidths.iter().enumerate() {
        for (algorithm, &intensity) in intensities.iter().enumerate() {
            let ridge = peak / w;
            let memory_rate = crate::units::FlopsPerSec(intensity.0 * w.0);
            out.push(RooflinePoint {
                algorithm,
                memory,
                intensity,
                attained: if memory_rate < peak {
                    memory_rate
                } else {
                    peak
                },
                verdict: if intensity < ridge {
                    Verdict::MemoryBound
                } else {
                    Verdict::ComputeBound
                },
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiles_approach_the_books_intensity() {
        let t = tiled_intensity(512, 8192, 1024, Dtype::Bf16).unwrap();
        let book = 512.0 * 1024.0 / (512.0 + 1024.0);
        assert!((t.approx.0 - book).abs() < 1e-9);
        // The written-back output makes the exact figure a little lower.
        assert!(t.exact < t.approx && t.exact.0 > 0.9 * book);
        assert!(tiled_intensity(0, 8, 8, Dtype::Bf16)
            .unwrap_err()
            .contains("bm"));
    }

    #[test]
    fn more_bandwidth_helps_only_below_the_ridge() {
        use crate::units::{BytesPerSec, FlopsPerSec};
        let peak = FlopsPerSec(1.97e14);
        let pts = rooflines(
            peak,
            &[BytesPerSec(8.2e11), BytesPerSec(1.64e12)],
            &[Intensity(50.0), Intensity(400.0)],
        )
        .unwrap();
        assert_eq!(pts.len(), 4);
        assert!(pts[2].attained.0 > pts[0].attained.0);
        assert_eq!(pts[1].attained, pts[3].attained);
        assert_eq!(pts[1].verdict, Verdict::ComputeBound);
        assert_eq!(
            rooflines(peak, &[BytesPerSec(0.0)], &[Intensity(1.0)])
                .unwrap_err()
                .to_string(),
            "bandwidth #1 must be a finite positive number",
        );
    }
    use crate::hardware::chip;

    fn mm(b: f64, d: f64, f: f64, act: Dtype, weight: Dtype) -> Op {
        Op::Matmul {
            b,
            d,
            f,
            act,
            weight,
        }
    }

    #[test]
    fn dot_product_tends_to_a_half() {
        let op = Op::Dot {
            n: 1e9,
            dtype: Dtype::Bf16,
        };
        assert!((op.intensity().0 - 0.5).abs() < 1e-6);
        let small = Op::Dot {
            n: 1.0,
            dtype: Dtype::Bf16,
        };
        assert!((small.intensity().0 - 1.0 / 6.0).abs() < 1e-12);
    }

    #[test]
    fn v5e_bf16_matmul_crosses_near_240() {
        let v5e = chip("v5e").unwrap();
        let ridge = v5e.ridge(Dtype::Bf16, Link::Hbm).unwrap();
        // In the B ≪ D, F limit the crossing is the ridge itself.
        let huge = mm(1.0, 1e9, 1e9, Dtype::Bf16, Dtype::Bf16);
        let b = huge.critical_batch(ridge).unwrap();
        assert!((b - 240.24).abs() < 0.1, "{b}");
        // For a realistic layer it is a little higher.
        let layer = mm(1.0, 8192.0, 28672.0, Dtype::Bf16, Dtype::Bf16);
        let b = layer.critical_batch(ridge).unwrap();
        assert!((240.0..260.0).contains(&b), "{b}");
        assert_eq!(
            layer.with_batch(b - 1.0).verdict(v5e),
            Some(Verdict::MemoryBound)
        );
        assert_eq!(
            layer.with_batch(b + 1.0).verdict(v5e),
            Some(Verdict::ComputeBound)
        );
    }

    #[test]
    fn int8_weights_halve_the_critical_batch() {
        let v5e = chip("v5e").unwrap();
        let op = mm(1.0, 1e9, 1e9, Dtype::Bf16, Dtype::Int8);
        let ridge = v5e.ridge(op.compute_dtype(), Link::Hbm).unwrap();
        let b = op.critical_batch(ridge).unwrap();
        assert!((b - 120.1).abs() < 0.1, "{b}");
        // int8 × int8: twice the rate, half the bytes: back to 240.
        let op = mm(1.0, 1e9, 1e9, Dtype::Int8, Dtype::Int8);
        let ridge = v5e.ridge(op.compute_dtype(), Link::Hbm).unwrap();
        assert!((op.critical_batch(ridge).unwrap() - 240.2).abs() < 0.1);
    }

    #[test]
    fn question_3_curves_meet_the_roof_at_136_and_226() {
        // Part 1, Question 3: bf16 activations, int8 weights, bf16 arithmetic
        // on a v5e, exact bytes 2BD + DF + 2BF. The rate 2BDF / max(T_math,
        // T_comms) reaches C where the times meet: 2BDF / C = (2BD + DF + 2BF) / W,
        // so with R = C / W = 1.97e14 / 8.2e11 = 240.24,
        // 2BDF = R·(2BD + DF + 2BF) and B = R·DF / (2DF − 2R·(D + F)).
        // D = F = 4096: R·DF = 4.0306e9, 2DF − 2R·8192 = 33,554,432 − 3,936,156
        //   = 29,618,276, so B = 136.09, the book's ≈ 136.
        // D = F = 1024: R·DF = 2.5191e8, 2DF − 2R·2048 = 2,097,152 − 984,039
        //   = 1,113,113, so B = 226.31, the book's ≈ 226.
        let v5e = chip("v5e").unwrap();
        for (dim, book) in [(4096.0, 136.0), (1024.0, 226.0)] {
            let op = mm(1.0, dim, dim, Dtype::Bf16, Dtype::Int8);
            let curve = op.batch_curve(v5e, 512.0, 256).unwrap();
            let crossing = curve.crossing.unwrap();
            assert_eq!(crossing.round(), book, "D = F = {dim}: {crossing}");
            assert_eq!(curve.peak, FlopsPerSec(1.97e14));
            // The curve holds the crossing itself, at the roof, and every
            // point is the op's own attainable rate (one formula).
            assert!(curve
                .points
                .iter()
                .any(|&(b, r)| b == crossing && (r.0 / 1.97e14 - 1.0).abs() < 1e-12));
            for &(b, r) in &curve.points {
                assert_eq!(Some(r), op.with_batch(b).attainable(v5e), "B = {b}");
            }
            let below = op.with_batch(crossing - 1.0).attainable(v5e).unwrap();
            assert!(below.0 < 1.97e14);
            assert_eq!(curve.points.first(), Some(&(0.0, FlopsPerSec(0.0))));
            assert_eq!(curve.points.last().map(|p| p.0), Some(512.0));
        }
        // The larger shape is a near-straight ramp: halfway to its crossing
        // it attains about half the peak; the smaller is bowed, well above half.
        let share_at_half = |dim: f64| {
            let op = mm(1.0, dim, dim, Dtype::Bf16, Dtype::Int8);
            let c = op.batch_curve(v5e, 512.0, 256).unwrap().crossing.unwrap();
            op.with_batch(c / 2.0).attainable(v5e).unwrap().0 / 1.97e14
        };
        assert!((share_at_half(4096.0) - 0.5).abs() < 0.06);
        assert!(share_at_half(1024.0) > 0.6);
        // A chip without the format's peak has no curve.
        let f32 = mm(1.0, 64.0, 64.0, Dtype::F32, Dtype::F32);
        assert_eq!(f32.batch_curve(v5e, 512.0, 8), None);
    }

    #[test]
    fn small_matmuls_never_cross() {
        let op = mm(1.0, 256.0, 256.0, Dtype::Bf16, Dtype::Bf16);
        assert_eq!(op.critical_batch(Intensity(240.0)), None);
        assert!(op.asymptotic_intensity().0 < 240.0);
    }

    #[test]
    fn per_example_weights_stay_near_two() {
        let op = Op::PerExampleMatmul {
            b: 64.0,
            d: 4096.0,
            f: 4096.0,
            dtype: Dtype::Int8,
        };
        assert!((op.intensity().0 - 2.0).abs() < 0.01);
        assert_eq!(op.critical_batch(Intensity(240.0)), None);
    }

    #[test]
    fn batch_for_intensity_inverts_intensity() {
        let op = mm(1.0, 8192.0, 8192.0, Dtype::Bf16, Dtype::Bf16);
        for b in [1.0, 17.0, 240.0, 5000.0] {
            let i = op.with_batch(b).intensity().0;
            let back = op.batch_for_intensity(i, 1.0, 1e6);
            assert!((back / b - 1.0).abs() < 1e-6, "{b} -> {back}");
        }
        assert_eq!(op.batch_for_intensity(1e-9, 1.0, 1e6), 1.0);
        assert_eq!(op.batch_for_intensity(1e9, 1.0, 1e6), 1e6);
        assert_eq!(op.batch_for_intensity(f64::NAN, 1.0, 1e6), 1.0);
    }

    #[test]
    fn kinds_round_trip() {
        for k in OpKind::ALL {
            assert_eq!(OpKind::parse(k.name()), Some(k));
            assert_eq!(k.build(3.0, 4.0, 5.0, Dtype::Bf16, Dtype::Bf16).kind(), k);
        }
    }
}
