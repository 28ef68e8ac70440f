//! Tensor-parallel serving over ICI: how far a matmul can be split before the collectives dominate, and weight-stationary layouts.

use super::{
    batch_ok, computed, decode_step, ici_bw, memory_use, peak, InferenceError, Precision,
    ServingModel, ServingSlice, StepTime, MAX_CHIPS,
};
use crate::comms::collectives::Network;
use crate::dtype::Dtype;
use crate::hardware::{Chip, Link};
use crate::model::config::positive;
use crate::roofline::Analysis;
use crate::training::{ici_intensity, tp_max_degree};
use crate::units::{Bytes, BytesPerSec, Flops, Seconds};

/// `W_hbm / W_ici` of a chip (the book's generation `β`, "around 8": 9.1 on a v5e).
pub fn hbm_ici_ratio(chip: &'static Chip) -> Result<f64, InferenceError> {
    Ok(chip.hbm_bw() / ici_bw(chip)?)
}

/// How far generation can be model-sharded before ICI outlasts weight loading:
/// `Y < F / (B·β)` with `β = W_hbm / W_ici` (Part 7).
pub fn decode_tp_limit(d_ff: f64, batch: f64, beta: f64) -> Result<f64, InferenceError> {
    let f = positive("d_ff (F)", d_ff)?;
    let b = batch_ok(batch)?;
    let beta = positive("W_hbm / W_ici", beta)?;
    computed("tensor-parallel limit F/(B·β)", f / (b * beta))
}

/// How far prefill (or large-batch decode) can be model-sharded over `axes` mesh
/// axes before it is ICI-bound: `axes · F / α_ici`, about `F/2200` on one v5e axis.
pub fn prefill_tp_limit(
    chip: &'static Chip,
    compute: Dtype,
    d_ff: f64,
    axes: f64,
) -> Result<f64, InferenceError> {
    let f = positive("d_ff (F)", d_ff)?;
    let axes = positive("mesh axes", axes)?;
    Ok(tp_max_degree(f, ici_intensity(chip, compute)?, axes))
}

/// One model-sharded matmul pair of a decode step on each chip (Part 8):
/// `T_ici = act·B·D / W_ici`, `T_hbm = w·D·F / (Y·W_hbm)`, `T_math = 2·B·D·F / (Y·C)`
/// (`2BD/W_ici` and `2DF/(Y·W_hbm)` in bf16).
pub fn tp_matmul(
    chip: &'static Chip,
    precision: Precision,
    batch: f64,
    d_model: f64,
    d_ff: f64,
    tp: u64,
) -> Result<Analysis, InferenceError> {
    let b = batch_ok(batch)?;
    let d = positive("d_model (D)", d_model)?;
    let f = positive("d_ff (F)", d_ff)?;
    if tp == 0 || tp > MAX_CHIPS {
        return Err(InferenceError::BadChipCount(tp));
    }
    let y = tp as f64;
    let c = peak(chip, precision.compute)?;
    Ok(Analysis::new(
        Flops(2.0 * b * d * f / y),
        c,
        &[
            (
                Link::Hbm,
                precision.weights.size_of(d * f / y),
                chip.hbm_bw(),
            ),
            (Link::Ici, precision.compute.size_of(b * d), ici_bw(chip)?),
        ],
    ))
}

/// The buffer size below which a collective over `shards` chips is latency-bound:
/// `shards × one-way W_ici × 1 µs` (Part 7 Appendix C: 360 kB for 8 shards on a v5e).
pub fn latency_bound_bytes(chip: &'static Chip, shards: u64) -> Result<Bytes, InferenceError> {
    if shards == 0 || shards > MAX_CHIPS {
        return Err(InferenceError::BadChipCount(shards));
    }
    Ok(Network::ici(chip)?.latency_threshold() * shards as f64)
}

/// Whether a collective of `bytes` over `shards` chips is latency-bound:
/// `(bytes / shards) / W_ici < 1 µs`.
pub fn is_latency_bound(
    chip: &'static Chip,
    bytes: Bytes,
    shards: u64,
) -> Result<bool, InferenceError> {
    positive("bytes", bytes.0)?;
    Ok(bytes < latency_bound_bytes(chip, shards)?)
}

/// One point of "latency versus chip count" for model-parallel decoding.
#[derive(Debug, Clone, PartialEq)]
pub struct TpScaling {
    /// Tensor-parallel degree `Y` (chips per replica).
    pub tp: u64,
    /// The step time on those chips (HBM and FLOPs only).
    pub step: StepTime,
    /// One MLP matmul's per-chip times: math, HBM, ICI.
    pub matmul: Analysis,
    /// `T_ici > T_hbm` for that matmul: more sharding no longer cuts latency.
    pub ici_bound: bool,
    /// The activation collectives are latency-bound (below 1 µs per hop); always
    /// `false` for chips without ICI (GPUs), whose hop latency the registry lacks.
    pub latency_bound: bool,
    /// Whether weights plus KV caches fit on `tp` chips.
    pub fits: bool,
}

/// Decode latency for each tensor-parallel degree in `degrees`, with the ICI checks
/// of Part 7: model sharding keeps helping while `Y < F/(B·β)`.
pub fn latency_vs_chips(
    model: &ServingModel,
    precision: Precision,
    chip: &'static Chip,
    batch: f64,
    seq: f64,
    degrees: &[u64],
) -> Result<Vec<TpScaling>, InferenceError> {
    let work = model.workload(precision, batch, seq)?;
    let cfg = &model.config;
    let ff = match cfg.moe {
        None => cfg.d_ff,
        Some(m) => m.expert_ff,
    } as f64;
    degrees
        .iter()
        .map(|&y| {
            let slice = ServingSlice::new(chip, y)?;
            let step = decode_step(&work, &slice, precision.compute)?;
            let matmul = tp_matmul(chip, precision, work.batch, cfg.d_model as f64, ff, y)?;
            let t_ici = matmul.t_comms(Link::Ici).unwrap_or(Seconds(0.0));
            let t_hbm = matmul.t_comms(Link::Hbm).unwrap_or(Seconds(0.0));
            let act = precision.compute.size_of(work.batch * cfg.d_model as f64);
            Ok(TpScaling {
                tp: y,
                step,
                ici_bound: t_ici > t_hbm,
                latency_bound: y > 1 && is_latency_bound(chip, act, y).unwrap_or(false),
                fits: memory_use(&work, &slice).fits(),
                matmul,
            })
        })
        .collect()
}

/// Communication time of 1D weight-stationary (Megatron) sharding of an MLP over
/// a 3D torus (Part 7 Q7): `2·act·B·D / (3·W_ici)`, the book's `4BD/(3W)` in bf16.
pub fn weight_stationary_1d(
    batch: f64,
    d_model: f64,
    act: Dtype,
    w_ici: BytesPerSec,
) -> Result<Seconds, InferenceError> {
    let b = batch_ok(batch)?;
    let d = positive("d_model (D)", d_model)?;
    positive("ICI bandwidth", w_ici.0)?;
    Ok(act.size_of(2.0 * b * d) / (w_ici * 3.0))
}

/// 2D weight-stationary sharding of an MLP over `chips = X·YZ` chips.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WeightStationary2d {
    /// Chips along the `D` sharding axis, `X = sqrt(N·D/(2F))` (`sqrt(N/8)` for
    /// `F = 4D`), held between 1 and `N`.
    pub x: f64,
    /// Chips along the `F` sharding axes, `N / X`.
    pub yz: f64,
    /// `act·B·D/(X·W) + 2·act·B·F/(YZ·W)` at that split.
    pub t_comms: Seconds,
}

/// The best 2D weight-stationary split and its comms time (Part 7 Q7): with
/// `F = 4D` and bf16, `sqrt(128)·B·D / (sqrt(N)·W_ici)`.
///
/// The unconstrained optimum `X = sqrt(N·D/(2F))` is below one chip when
/// `N < 2F/D` (fewer than 8 chips for `F = 4D`); no axis can have fewer than one
/// chip or more than `N`, so `X` is held in `[1, N]`. The time is convex in `X`,
/// so the held value is the best split that exists. Fewer than one chip, or
/// inputs whose time overflows or underflows, are errors.
pub fn weight_stationary_2d(
    batch: f64,
    d_model: f64,
    d_ff: f64,
    chips: f64,
    act: Dtype,
    w_ici: BytesPerSec,
) -> Result<WeightStationary2d, InferenceError> {
    let b = batch_ok(batch)?;
    let d = positive("d_model (D)", d_model)?;
    let f = positive("d_ff (F)", d_ff)?;
    let n = positive("chips", chips)?;
    if n < 1.0 {
        return Err(InferenceError::TooFewChips { chips: n });
    }
    positive("ICI bandwidth", w_ici.0)?;
    // `d / f` first: `n·d` or `2f` alone may overflow, and `inf / inf` is NaN.
    let x = (n * (d / f) / 2.0).sqrt().clamp(1.0, n);
    let yz = n / x;
    let t = act.size_of(b * d) / (w_ici * x) + act.size_of(2.0 * b * f) / (w_ici * yz);
    let t = computed("2D weight-stationary communication time", t.0)?;
    Ok(WeightStationary2d {
        x,
        yz,
        t_comms: Seconds(t),
    })
}

/// The chip count above which 2D weight-stationary sharding communicates less than
/// 1D: `N > 32·(F/D)·(3/4)²`, 72 for `F = 4D` (Part 7 Q7).
pub fn weight_stationary_crossover(d_model: f64, d_ff: f64) -> Result<f64, InferenceError> {
    let d = positive("d_model (D)", d_model)?;
    let f = positive("d_ff (F)", d_ff)?;
    Ok(32.0 * (f / d) * 0.75 * 0.75)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_d_split_needs_a_chip_and_holds_x_between_one_and_n() {
        let w = BytesPerSec(9e10);
        let ws = |n: f64| weight_stationary_2d(16.0, 8192.0, 32768.0, n, Dtype::Bf16, w);
        for n in [0.0, 0.5, 1e-320, -3.0, f64::NAN] {
            let e = ws(n).unwrap_err();
            assert!(!e.to_string().is_empty(), "{n}: {e:?}");
        }
        assert_eq!(
            ws(0.5).unwrap_err(),
            InferenceError::TooFewChips { chips: 0.5 }
        );
        // Below 2F/D = 8 chips the optimum X would be under one chip: X is held at 1.
        let four = ws(4.0).unwrap();
        assert_eq!((four.x, four.yz), (1.0, 4.0));
        let expect = 2.0 * 16.0 * 8192.0 / 9e10 + 4.0 * 16.0 * 32768.0 / (4.0 * 9e10);
        assert!((four.t_comms.0 - expect).abs() < 1e-15);
        // At 8 chips and above the book's X = sqrt(N/8).
        assert_eq!(ws(8.0).unwrap().x, 1.0);
        assert!((ws(512.0).unwrap().x - 8.0).abs() < 1e-12);
        // F far below D would put X above N: it is held at N.
        let wide = weight_stationary_2d(16.0, 8192.0, 1.0, 4.0, Dtype::Bf16, w).unwrap();
        assert_eq!((wide.x, wide.yz), (4.0, 1.0));
    }
}
