//! An achievable roof: the share of a chip's quoted peak FLOPs/s, HBM
//! bandwidth and chip-to-chip link bandwidth a reader assumes real kernels
//! reach (Part 1: GPUs usually reach only part of their claimed peak, TPUs
//! more of it).
//!
//! A [`Derate`] scales the rates a roofline analysis uses; [`Derate::PEAK`]
//! (every share one) leaves every number exactly as the quoted peaks give it.
//!
//! ```
//! use ridgeline_core::roofline::derate::Derate;
//! use ridgeline_core::units::FlopsPerSec;
//!
//! let d = Derate::new(0.8, 1.0, 1.0).unwrap();
//! assert_eq!(d.rate(FlopsPerSec(1e15)), FlopsPerSec(8e14));
//! assert!(Derate::new(1.2, 1.0, 1.0).unwrap_err().to_string().contains("FLOPs derate"));
//! ```

use crate::check::{fraction_from, NotFraction};
use crate::hardware::{Chip, Link};
use crate::units::{BytesPerSec, FlopsPerSec};

/// Shares of the quoted peak rates to assume, each from [`Derate::MIN_SHARE`] to one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Derate {
    flops: f64,
    hbm: f64,
    link: f64,
}

impl Default for Derate {
    fn default() -> Self {
        Derate::PEAK
    }
}

impl Derate {
    /// The quoted peaks themselves: every share one.
    pub const PEAK: Derate = Derate {
        flops: 1.0,
        hbm: 1.0,
        link: 1.0,
    };

    /// The least share of a quoted rate a reader may assume: 5 %. Kernels
    /// that reach less are a bug to find in a profile, not a roof to plan
    /// on, and a share near zero would stretch every time to infinity.
    pub const MIN_SHARE: f64 = 0.05;

    /// Shares of peak FLOPs/s, HBM bandwidth and link bandwidth; each must be
    /// a number from [`Derate::MIN_SHARE`] to one, and the refusal names the
    /// first that is not.
    pub fn new(flops: f64, hbm: f64, link: f64) -> Result<Derate, NotFraction> {
        let share = |what, value| fraction_from(what, Derate::MIN_SHARE, value);
        Ok(Derate {
            flops: share("the FLOPs derate", flops)?,
            hbm: share("the HBM derate", hbm)?,
            link: share("the link derate", link)?,
        })
    }

    /// Part 1's achievable share of peak FLOPs/s for `chip`'s maker (the low
    /// end of [`Chip::achievable_share`]), with the bandwidths left at their
    /// quoted peaks: the book gives a figure for compute only.
    pub fn achievable(chip: &Chip) -> Derate {
        Derate {
            flops: chip.achievable_share().value.0,
            ..Derate::PEAK
        }
    }

    /// The share of peak FLOPs/s.
    pub fn flops(&self) -> f64 {
        self.flops
    }

    /// The share of peak HBM bandwidth.
    pub fn hbm(&self) -> f64 {
        self.hbm
    }

    /// The share of peak bandwidth of every link other than HBM.
    pub fn link(&self) -> f64 {
        self.link
    }

    /// Whether every share is one (the quoted peaks).
    pub fn is_peak(&self) -> bool {
        *self == Derate::PEAK
    }

    /// The same shares with the FLOPs share set to `flops`, or the refusal.
    pub fn with_flops(self, flops: f64) -> Result<Derate, NotFraction> {
        Derate::new(flops, self.hbm, self.link)
    }

    /// The same shares with the HBM share set to `hbm`, or the refusal.
    pub fn with_hbm(self, hbm: f64) -> Result<Derate, NotFraction> {
        Derate::new(self.flops, hbm, self.link)
    }

    /// The same shares with the link share set to `link`, or the refusal.
    pub fn with_link(self, link: f64) -> Result<Derate, NotFraction> {
        Derate::new(self.flops, self.hbm, link)
    }

    /// The compute rate assumed for a quoted `peak`.
    pub fn rate(&self, peak: FlopsPerSec) -> FlopsPerSec {
        peak * self.flops
    }

    /// The bandwidth assumed for `link` quoted at `w`: the HBM share for
    /// HBM, the link share for every other path.
    pub fn bandwidth(&self, link: Link, w: BytesPerSec) -> BytesPerSec {
        match link {
            Link::Hbm => w * self.hbm,
            _ => w * self.link,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::Dtype;
    use crate::hardware::chip;
    use crate::roofline::ops::{Op, OpKind};

    /// The widget's default operation: a bf16 matmul with B = 64, D = F = 8192.
    fn matmul() -> Op {
        OpKind::Matmul.build(64.0, 8192.0, 8192.0, Dtype::Bf16, Dtype::Bf16)
    }

    #[test]
    fn the_peak_derate_changes_nothing() {
        let v5e = chip("v5e").unwrap();
        for b in [1.0, 64.0, 240.0, 4096.0] {
            let op = matmul().with_batch(b);
            assert_eq!(op.analyse_derated(v5e, Derate::PEAK), op.analyse(v5e));
        }
        assert!(Derate::default().is_peak());
    }

    /// Worked by hand for the v5e (1.97e14 bf16 FLOPs/s, 8.2e11 B/s of HBM).
    /// The matmul does 2·64·8192·8192 = 8.59e9 FLOPs: at peak that is
    /// 8.59e9 / 1.97e14 = 43.6 µs of math; at 80 % of peak the rate is
    /// 1.576e14 and the math takes 8.59e9 / 1.576e14 = 54.5 µs, 1/0.8 = 1.25
    /// times as long. The bytes, and so the HBM time, do not change. The
    /// ridge C/W moves from 1.97e14 / 8.2e11 = 240.2 to
    /// 1.576e14 / 8.2e11 = 192.2 FLOPs/B, the ratio 0.8 / 1: the derated
    /// chip turns compute-bound at a smaller batch.
    #[test]
    fn eighty_percent_of_peak_flops_stretches_the_math_and_lowers_the_ridge() {
        let v5e = chip("v5e").unwrap();
        let d = Derate::new(0.8, 1.0, 1.0).unwrap();
        let (peak, derated) = (
            matmul().analyse(v5e).unwrap(),
            matmul().analyse_derated(v5e, d).unwrap(),
        );
        assert!(
            (peak.t_math.0 - 43.6e-6).abs() < 0.1e-6,
            "{:?}",
            peak.t_math
        );
        assert!(
            (derated.t_math.0 - 54.5e-6).abs() < 0.1e-6,
            "{:?}",
            derated.t_math
        );
        assert!((derated.t_math.0 / peak.t_math.0 - 1.25).abs() < 1e-12);
        assert_eq!(derated.t_comms(Link::Hbm), peak.t_comms(Link::Hbm));
        let ridge = |d: Derate| {
            (d.rate(v5e.peak(Dtype::Bf16).unwrap()) / d.bandwidth(Link::Hbm, v5e.hbm_bw())).0
        };
        assert!((ridge(Derate::PEAK) - 240.2).abs() < 0.1);
        assert!((ridge(d) - 192.2).abs() < 0.1);
        assert!((ridge(d) / ridge(Derate::PEAK) - 0.8).abs() < 1e-12);
        // At B = 210 (intensity 210·8192 / (2·210 + 8192) = 199.8 FLOPs/B)
        // the op sits between the two ridges: memory-bound at the
        // quoted peak, compute-bound on the derated roof.
        let op = matmul().with_batch(210.0);
        assert_eq!(op.verdict(v5e), Some(crate::roofline::Verdict::MemoryBound));
        assert_eq!(
            op.analyse_derated(v5e, d).map(|a| a.verdict),
            Some(crate::roofline::Verdict::ComputeBound)
        );
    }

    #[test]
    fn a_slower_hbm_stretches_only_the_memory_time() {
        let v5e = chip("v5e").unwrap();
        let d = Derate::new(1.0, 0.5, 1.0).unwrap();
        let (peak, derated) = (
            matmul().analyse(v5e).unwrap(),
            matmul().analyse_derated(v5e, d).unwrap(),
        );
        assert_eq!(derated.t_math, peak.t_math);
        let hbm = |a: &crate::roofline::Analysis| a.t_comms(Link::Hbm).unwrap().0;
        assert!((hbm(&derated) / hbm(&peak) - 2.0).abs() < 1e-12);
        // Other links use the link share, HBM its own.
        let l = Derate::new(1.0, 1.0, 0.25).unwrap();
        assert_eq!(l.bandwidth(Link::Ici, BytesPerSec(4e10)), BytesPerSec(1e10));
        assert_eq!(l.bandwidth(Link::Hbm, BytesPerSec(4e10)), BytesPerSec(4e10));
    }

    #[test]
    fn refusals_name_the_field() {
        let e = |r: Result<Derate, NotFraction>| r.unwrap_err().to_string();
        assert!(e(Derate::new(0.0, 1.0, 1.0)).starts_with("the FLOPs derate"));
        assert!(e(Derate::new(1.0, 1.5, 1.0)).starts_with("the HBM derate"));
        assert!(e(Derate::new(1.0, 1.0, f64::NAN)).starts_with("the link derate"));
        assert!(e(Derate::PEAK.with_hbm(-0.1)).starts_with("the HBM derate"));
        assert_eq!(Derate::PEAK.with_link(0.5).unwrap().link(), 0.5);
        // A share just above zero made every time infinite (a step of "∞ s").
        assert_eq!(
            e(Derate::PEAK.with_link(1e-300)),
            "the link derate must be a number in [0.05, 1], not 1e-300"
        );
        assert_eq!(Derate::PEAK.with_link(0.05).unwrap().link(), 0.05);
    }

    #[test]
    fn the_achievable_preset_is_the_books_share_for_the_maker() {
        let h100 = chip("h100").unwrap();
        let v5e = chip("v5e").unwrap();
        assert_eq!(Derate::achievable(h100).flops(), 0.80);
        assert_eq!(Derate::achievable(v5e).flops(), 0.95);
        assert_eq!(Derate::achievable(h100).hbm(), 1.0);
        assert_eq!(Derate::achievable(h100).link(), 1.0);
    }
}
