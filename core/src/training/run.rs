//! Whole training runs: their time and cost, and the book's run assumptions.

use super::{Cluster, TrainingError, MAX_SLICES};
use crate::dtype::Dtype;
use crate::model::accounting::{self};
use crate::model::config::positive;
use crate::units::{Bytes, Flops, FlopsPerSec, Seconds};

/// Seconds in a day.
pub const DAY: f64 = 86_400.0;
/// Seconds in a (Julian) year.
pub const YEAR: f64 = 365.25 * DAY;

pub(super) fn check_mfu(mfu: f64) -> Result<f64, TrainingError> {
    if crate::check::is_fraction(mfu) {
        Ok(mfu)
    } else {
        Err(TrainingError::BadMfu(mfu))
    }
}

/// Wall-clock time to perform `flops` on `chips` chips of peak `peak` at utilisation
/// `mfu`: `FLOPs / (chips · C · MFU)` (Part 6: 6.3e24 on 8960 v5p at 40% ≈ 44 days).
pub fn training_time(
    flops: Flops,
    chips: f64,
    peak: FlopsPerSec,
    mfu: f64,
) -> Result<Seconds, TrainingError> {
    let chips = positive("chips", chips)?;
    let mfu = check_mfu(mfu)?;
    positive("FLOPs", flops.0)?;
    positive("peak FLOPs/s", peak.0)?;
    Ok(flops / (peak * (chips * mfu)))
}

/// FLOPs available from `chip_hours` of a chip with peak `peak`.
pub fn available_flops(chip_hours: f64, peak: FlopsPerSec) -> Flops {
    Flops(chip_hours * 3600.0 * peak.0)
}

/// The chips needed just to hold `total` bytes, `ceil(total / HBM)`.
pub fn min_chips_for_memory(total: Bytes, hbm: Bytes) -> Result<f64, TrainingError> {
    positive("memory", total.0)?;
    positive("HBM per chip", hbm.0)?;
    Ok((total / hbm).ceil())
}

/// The same work on a different number of chips at the same efficiency.
pub fn scale_time(time: Seconds, from_chips: f64, to_chips: f64) -> Seconds {
    time * (from_chips / to_chips)
}

/// Cost and duration of a training run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunEstimate {
    /// Total FLOPs.
    pub flops: Flops,
    /// Wall-clock time.
    pub time: Seconds,
    /// Chips used.
    pub chips: f64,
}

impl RunEstimate {
    /// Wall-clock days.
    pub fn days(&self) -> f64 {
        self.time.0 / DAY
    }

    /// Chip-hours.
    pub fn chip_hours(&self) -> f64 {
        self.time.0 * self.chips / 3600.0
    }
}

/// Runs `6 · params · tokens` on `chips` chips of `peak` at `mfu`.
pub fn estimate_run(
    params: f64,
    tokens: f64,
    chips: f64,
    peak: FlopsPerSec,
    mfu: f64,
) -> Result<RunEstimate, TrainingError> {
    positive("parameters", params)?;
    positive("training tokens", tokens)?;
    let flops = accounting::training_flops_rule(params, tokens);
    Ok(RunEstimate {
        flops,
        time: training_time(flops, chips, peak, mfu)?,
        chips,
    })
}

/// Part 6's run assumptions: what the book assumes about the LLaMA 3-70B run, as
/// planner inputs with their defaults. Every number a page states about the run
/// comes from [`RunAssumptions::BOOK`] (or from a reader's change to it).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunAssumptions {
    /// The model preset's id.
    pub model: &'static str,
    /// The chip's id.
    pub chip: &'static str,
    /// Training tokens.
    pub tokens: f64,
    /// Model FLOPs utilisation, a fraction.
    pub mfu: f64,
    /// Sequences per batch.
    pub sequences: f64,
    /// Tokens per sequence.
    pub seq_len: f64,
    /// Full pods joined over the data-centre network.
    pub pods: u32,
}

impl RunAssumptions {
    /// The book's run (Part 6): LLaMA 3-70B on 15T tokens, a batch of 1024 sequences
    /// of 4096 tokens, 40% MFU on one full TPU v5p pod.
    pub const BOOK: RunAssumptions = RunAssumptions {
        model: "llama3-70b",
        chip: "v5p",
        tokens: 15e12,
        mfu: 0.4,
        sequences: 1024.0,
        seq_len: 4096.0,
        pods: 1,
    };

    /// Tokens per batch.
    pub fn batch_tokens(&self) -> f64 {
        self.sequences * self.seq_len
    }

    /// Checks every field; the message names the bad one.
    pub fn validate(&self) -> Result<(), String> {
        if crate::model::config::model(self.model).is_none() {
            return Err(format!("model: no preset is called {:?}", self.model));
        }
        if crate::hardware::chip(self.chip).is_none() {
            return Err(format!("chip: no chip is called {:?}", self.chip));
        }
        for (name, v) in [
            ("tokens", self.tokens),
            ("sequences", self.sequences),
            ("seq_len", self.seq_len),
        ] {
            if !(v.is_finite() && v >= 1.0) {
                return Err(format!("{name}: at least 1"));
            }
        }
        check_mfu(self.mfu).map_err(|e| format!("mfu: {e}"))?;
        if !(1..=MAX_SLICES).contains(&self.pods) {
            return Err(format!("pods: between 1 and {MAX_SLICES}"));
        }
        Ok(())
    }

    /// The run on full pods: `6 · params · tokens` at the assumed MFU.
    pub fn estimate(&self) -> Result<RunEstimate, String> {
        self.validate()?;
        let m = crate::model::config::model(self.model).ok_or("model: unknown")?;
        let c = crate::hardware::chip(self.chip).ok_or("chip: unknown")?;
        let cluster = Cluster::full_pod(c, self.pods).map_err(|e| format!("chip: {e}"))?;
        let peak = c.peak(Dtype::Bf16).ok_or("chip: no bf16 peak")?;
        estimate_run(
            accounting::params(&m.config).total(),
            self.tokens,
            cluster.chips(),
            peak,
            self.mfu,
        )
        .map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_books_run_assumptions() {
        let a = RunAssumptions::BOOK;
        assert_eq!(a.batch_tokens(), 4194304.0);
        let run = a.estimate().unwrap();
        assert!(run.days() > 40.0 && run.days() < 50.0, "{}", run.days());
        let bad = RunAssumptions { mfu: 1.5, ..a };
        assert!(bad.validate().unwrap_err().starts_with("mfu:"));
        assert!(RunAssumptions { pods: 0, ..a }
            .validate()
            .unwrap_err()
            .starts_with("pods:"));
    }
}
