//! Strong scaling, the argument of Part 0 ("Why should you care?"): a fixed
//! training step spread over more chips.
//!
//! Each chip's share of the step's `6 · P · T` FLOPs shrinks as `1 / chips`, but
//! the gradients every data-parallel replica must AllReduce stay `P` parameters
//! big, so their time does not shrink. Once communication, not compute, sets the
//! step time, adding chips no longer speeds the step up and the efficiency —
//! the ideal step time over the actual one — falls. The step here overlaps the
//! two perfectly (`max(compute, comms)`), the best case.
//!
//! ```
//! use ridgeline_core::hardware::chip;
//! use ridgeline_core::roofline::strong_scaling::{strong_scaling, StrongScalingParams};
//!
//! let p = StrongScalingParams::new(chip("v5e").unwrap(), 8e9, 1_048_576.0);
//! let rows = strong_scaling(&p, &[16, 256, 4096]).unwrap();
//! assert!(rows[0].efficiency > rows[2].efficiency);
//! assert!(rows[2].step < rows[0].step);
//! ```

use crate::comms::collectives::{self, Collective, Network, RingAxis};
use crate::dtype::Dtype;
use crate::hardware::Chip;
use crate::units::{Bytes, Flops, FlopsPerSec, Seconds};

/// Most chips a row may have.
pub const MAX_CHIPS: u32 = 1 << 20;

/// The model, the batch and the chip.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StrongScalingParams {
    /// Parameters of the model.
    pub params: f64,
    /// Tokens per training step.
    pub tokens: f64,
    /// Bytes per gradient element (bf16 by default).
    pub grad_dtype: Dtype,
    /// Peak FLOPs/s per chip.
    pub peak: FlopsPerSec,
    /// The ICI the gradients are reduced over, as one ring of all the chips.
    pub network: Network,
}

impl StrongScalingParams {
    /// A `params`-parameter model trained on `tokens` tokens per step on `chip`
    /// (bf16 peak and gradients, its ICI).
    pub fn new(chip: &'static Chip, params: f64, tokens: f64) -> StrongScalingParams {
        StrongScalingParams {
            params,
            tokens,
            grad_dtype: Dtype::Bf16,
            peak: chip.peak(Dtype::Bf16).unwrap_or(FlopsPerSec(f64::NAN)),
            network: Network::ici(chip).unwrap_or(Network {
                name: chip.name,
                bidi: crate::units::BytesPerSec(f64::NAN),
                one_way: crate::units::BytesPerSec(f64::NAN),
                hop_latency: Seconds(f64::NAN),
                bidirectional: true,
            }),
        }
    }

    /// Checks the fields, naming the first bad one.
    pub fn validate(&self) -> Result<(), String> {
        use crate::check::positive;
        positive("the parameter count", self.params)?;
        positive("the tokens per step", self.tokens)?;
        positive("the chip's peak", self.peak.0)?;
        positive(
            "the ICI bandwidth (this chip has none in the book)",
            self.network.one_way.0,
        )?;
        Ok(())
    }
}

/// One chip count.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScalingRow {
    /// Chips.
    pub chips: u32,
    /// Compute per chip: `6 · P · T / (chips · peak)`.
    pub compute: Seconds,
    /// The gradient AllReduce over a ring of all the chips.
    pub comms: Seconds,
    /// `max(compute, comms)`.
    pub step: Seconds,
    /// `compute / step`: 1 while compute-bound.
    pub efficiency: f64,
    /// Speed-up over the first row's step time.
    pub speedup: f64,
}

/// The step at each of `chips`.
pub fn strong_scaling(p: &StrongScalingParams, chips: &[u32]) -> Result<Vec<ScalingRow>, String> {
    p.validate()?;
    if chips.is_empty() {
        return Err("give at least one chip count".into());
    }
    if let Some(&c) = chips.iter().find(|&&c| c == 0 || c > MAX_CHIPS) {
        return Err(format!("a chip count must be 1 to {MAX_CHIPS}, not {c}"));
    }
    let flops = Flops(6.0 * p.params * p.tokens);
    let grads: Bytes = p.grad_dtype.size_of(p.params);
    let mut rows = Vec::with_capacity(chips.len());
    for &n in chips {
        let compute = flops / (p.peak * n as f64);
        let comms = if n == 1 {
            Seconds(0.0)
        } else {
            collectives::cost(
                Collective::AllReduce,
                grads,
                &[RingAxis::ring(n)],
                &p.network,
            )
            .map_err(|e| e.to_string())?
            .time
        };
        let step = compute.max(comms);
        rows.push(ScalingRow {
            chips: n,
            compute,
            comms,
            step,
            efficiency: compute.0 / step.0,
            speedup: 1.0,
        });
    }
    let first = rows[0].step;
    for r in &mut rows {
        r.speedup = first.0 / r.step.0;
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hardware::chip;

    #[test]
    fn efficiency_falls_once_communication_binds() {
        let p = StrongScalingParams::new(chip("v5p").unwrap(), 70e9, 4_194_304.0);
        let counts = [1, 64, 1024, 8192, 65536];
        let rows = strong_scaling(&p, &counts).unwrap();
        assert_eq!(rows[0].efficiency, 1.0);
        assert!(rows.windows(2).all(|w| w[1].efficiency <= w[0].efficiency));
        assert!(rows.last().unwrap().efficiency < 0.5);
        assert!(rows.windows(2).all(|w| w[1].step <= w[0].step));
        let e = strong_scaling(&p, &[0]).unwrap_err();
        assert!(e.contains("chip count"));
        let bad = StrongScalingParams { tokens: -1.0, ..p };
        assert!(strong_scaling(&bad, &[1]).unwrap_err().contains("tokens"));
    }
}
