//! The strategies' closed forms: the ICI and DCN intensities, each strategy's critical tokens per chip, the best FSDP × tensor split and the pipeline bubble.

use super::{cross_slice_link, missing, TrainingError};
use crate::dtype::Dtype;
use crate::hardware::Chip;
use crate::model::config::positive;
use crate::units::Intensity;

/// The ICI (or NVLink) intensity `α = C / W` of a chip: 2550 for a v5p in bf16.
pub fn ici_intensity(chip: &Chip, dtype: Dtype) -> Result<Intensity, TrainingError> {
    let c = chip
        .peak(dtype)
        .ok_or_else(|| missing(chip, "peak for that format"))?;
    let w = chip
        .interconnect()
        .ok_or_else(|| missing(chip, "chip-to-chip link"))?
        .bandwidth;
    Ok(c / w)
}

/// The data-centre-network intensity `C / W_dcn` (scale-out network on GPUs): the
/// minimum tokens per ICI slice for pure data parallelism across slices.
pub fn dcn_intensity(chip: &Chip, dtype: Dtype) -> Result<Intensity, TrainingError> {
    let c = chip
        .peak(dtype)
        .ok_or_else(|| missing(chip, "peak for that format"))?;
    let (_, w) = cross_slice_link(chip)?;
    Ok(c / w)
}

/// Data parallelism and FSDP are compute-bound iff the tokens per chip exceed
/// `α / M_X` (2550 on one v5p axis, 850 on three).
pub fn dp_critical_tokens_per_chip(alpha: Intensity, axes: f64) -> f64 {
    alpha.0 / axes
}

/// Tensor parallelism is compute-bound iff `Y < M_Y · F / α` (Part 5).
pub fn tp_max_degree(d_ff: f64, alpha: Intensity, axes: f64) -> f64 {
    axes * d_ff / alpha.0
}

/// The smallest `F` for which `Y`-way tensor parallelism is compute-bound: `Y · α / M_Y`.
pub fn tp_min_d_ff(degree: f64, alpha: Intensity, axes: f64) -> f64 {
    degree * alpha.0 / axes
}

/// Mixed FSDP + tensor parallelism is compute-bound iff tokens per chip exceed
/// `α² / (M_X · M_Y · F)` (about 100 on a v5p) — **when the split is re-chosen for
/// each batch** (`X = X_opt`). This is the lowest threshold any split reaches; a
/// fixed split has the higher threshold of
/// [`fsdp_tp_split_critical_tokens_per_chip`].
pub fn fsdp_tp_critical_tokens_per_chip(alpha: Intensity, d_ff: f64, m_x: f64, m_y: f64) -> f64 {
    alpha.0 * alpha.0 / (m_x * m_y * d_ff)
}

/// The ratio of FLOP time to communication time of mixed FSDP + tensor
/// parallelism at its best split for every batch, `√(B/N · F · M_X · M_Y) / α`
/// with `B/N` the tokens per chip: it grows as `√B` and reaches one at
/// [`fsdp_tp_critical_tokens_per_chip`].
pub fn fsdp_tp_best_ratio(
    alpha: Intensity,
    tokens_per_chip: f64,
    d_ff: f64,
    m_x: f64,
    m_y: f64,
) -> f64 {
    (tokens_per_chip * d_ff * m_x * m_y).sqrt() / alpha.0
}

/// The threshold of one **fixed** FSDP × tensor split: its FSDP gathers are hidden
/// once the tokens per chip exceed `α / (M_X · Y)` (the weights each chip gathers
/// shrink with `Y`), provided its tensor collectives are hidden too, `Y < M_Y · F / α`
/// (otherwise it is never compute-bound and this returns `None`). On a 4096-chip v5p
/// mesh with a 1M-token batch the split nearest `X_opt` is 512 × 8, whose threshold
/// is `α/16 ≈ 159` tokens per chip; re-choosing the split as the batch shrinks brings
/// the threshold down to `α² / (M_X · M_Y · F) ≈ 113`.
pub fn fsdp_tp_split_critical_tokens_per_chip(
    alpha: Intensity,
    tensor: f64,
    d_ff: f64,
    m_x: f64,
    m_y: f64,
) -> Option<f64> {
    (tensor < tp_max_degree(d_ff, alpha, m_y)).then(|| alpha.0 / (m_x * tensor))
}

/// The FSDP degree that minimises communication in mixed FSDP + tensor parallelism,
/// `X_opt = sqrt((B/F) · (M_X/M_Y) · N)`; the tensor degree is `N / X_opt`.
pub fn optimal_fsdp(batch: f64, d_ff: f64, chips: f64, m_x: f64, m_y: f64) -> f64 {
    (batch / d_ff * m_x / m_y * chips).sqrt()
}

/// How many chips a batch can spread over before falling below a per-chip threshold.
pub fn max_chips(batch: f64, critical_tokens_per_chip: f64) -> f64 {
    batch / critical_tokens_per_chip
}

/// The fraction of a GPipe-style step lost to the pipeline bubble:
/// `(P − 1) / (M + P − 1)` for `P` stages and `M` microbatches.
pub fn pipeline_bubble(stages: f64, microbatches: f64) -> Result<f64, TrainingError> {
    let p = positive("pipeline stages", stages)?;
    let m = positive("microbatches", microbatches)?;
    Ok((p - 1.0) / (m + p - 1.0))
}
