//! Strong scaling, the argument of Part 0 ("Why should you care?"): a fixed
//! training step spread over more chips by pure data parallelism.
//!
//! Each chip's share of the step's `6 · P · T` FLOPs shrinks as `1 / chips`, but
//! the gradients every data-parallel replica must AllReduce stay `P` parameters
//! big, so their time does not shrink. Once communication, not compute, sets the
//! step time, adding chips no longer speeds the step up and the efficiency —
//! the ideal step time over the actual one — falls.
//!
//! The model keeps to the book's physical limits:
//!
//! - **Memory.** Every chip holds the whole model and its Adam state, 10 bytes per
//!   parameter (Part 5: at most `HBM / 10` parameters per chip, about 1.6B on a
//!   16 GB v5e). A model whose state does not fit is refused.
//! - **Network.** Chips share one ICI slice only up to the chip's largest ICI
//!   domain ([`Topology::largest_mesh`](crate::hardware::Topology::largest_mesh):
//!   16×16 = 256 chips on a v5e). More chips are split into equal slices joined
//!   by the data-centre network (DCN). Inside a slice the gradients are
//!   AllReduced over the slice's mesh axes ([`crate::comms::collectives::cost`]);
//!   across slices each chip AllReduces its `1 / M` share over DCN,
//!   `2 · V / (M · W_dcn)` for `M` chips per slice ([`dcn_all_reduce`], Part 5's
//!   data parallelism across pods). The two links work at once, so the slower
//!   sets the communication time, as in the training roofline.
//! - **Overlap.** Gradients exist only once the backward pass makes them, so the
//!   AllReduce hides behind the backward pass alone, two thirds of the step's
//!   FLOPs (Part 5): `step = forward + max(backward, comms)`.
//! - **Chip count.** Every chip needs at least one token of the batch, and the
//!   slices must be boxes of the chip's torus, at most
//!   [`crate::training::MAX_SLICES`] of them.
//!
//! ```
//! use ridgeline_core::hardware::chip;
//! use ridgeline_core::roofline::strong_scaling::{strong_scaling, StrongScalingParams};
//!
//! let p = StrongScalingParams::new(chip("v5e").unwrap(), 1e9, 1_048_576.0);
//! let rows = strong_scaling(&p, &[16, 256, 4096]).unwrap();
//! assert_eq!(rows[0].efficiency, 1.0);
//! assert!(rows[2].efficiency < 0.5);
//! assert_eq!((rows[1].slices, rows[2].slices), (1, 16));
//! // An 8B model's Adam state (80 GB) does not fit in a v5e's 16 GB.
//! let big = StrongScalingParams::new(chip("v5e").unwrap(), 8e9, 1_048_576.0);
//! assert!(strong_scaling(&big, &[16]).unwrap_err().contains("HBM"));
//! ```

use crate::comms::collectives::{self, Collective, Network};
use crate::dtype::Dtype;
use crate::format::{grouped, sci, si};
use crate::hardware::tpu::{divisors, Slice};
use crate::hardware::{Chip, Link};
use crate::model::accounting::{training_flops_rule, Optimizer, Pass};
use crate::training::{dcn_all_reduce, MAX_SLICES};
use crate::units::{Bytes, Seconds};

/// The model, the batch and the chip.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StrongScalingParams {
    /// The chip (a TPU: its torus bounds a slice).
    pub chip: &'static Chip,
    /// Parameters of the model.
    pub params: f64,
    /// Tokens per training step.
    pub tokens: f64,
    /// Bytes per gradient element (bf16 by default).
    pub grad_dtype: Dtype,
    /// The optimizer whose state every chip holds (the book's Adam by default).
    pub optimizer: Optimizer,
}

impl StrongScalingParams {
    /// A `params`-parameter model trained on `tokens` tokens per step on `chip`
    /// (bf16 peak and gradients, the book's Adam).
    pub fn new(chip: &'static Chip, params: f64, tokens: f64) -> StrongScalingParams {
        StrongScalingParams {
            chip,
            params,
            tokens,
            grad_dtype: Dtype::Bf16,
            optimizer: Optimizer::ADAM,
        }
    }

    /// Bytes of weights and optimizer state each chip holds: a full copy.
    pub fn state_per_chip(&self) -> Bytes {
        Bytes(self.params * self.optimizer.bytes_per_param())
    }

    /// Checks the fields, naming the first bad one, and that a full copy of the
    /// model and its optimizer state fits in one chip's HBM.
    pub fn validate(&self) -> Result<(), String> {
        use crate::check::positive;
        positive("the parameter count", self.params)?;
        positive("the tokens per step", self.tokens)?;
        let peak = self.chip.peak(Dtype::Bf16).map_or(f64::NAN, |r| r.0);
        positive("the chip's bf16 peak", peak)?;
        positive(
            "the ICI bandwidth (this chip has none in the book)",
            self.chip.bandwidth(Link::Ici).map_or(f64::NAN, |w| w.0),
        )?;
        let hbm = self.chip.hbm_capacity.value;
        let state = self.state_per_chip();
        if state.0 > hbm.0 {
            return Err(format!(
                "a {}-parameter model needs {} of weights and optimizer state on every chip \
                 ({} bytes per parameter), more than the {}'s {} of HBM: pure data parallelism \
                 fits at most {} parameters",
                sci(self.params, 3),
                si(state.0, "B", 3),
                self.optimizer.bytes_per_param(),
                self.chip.name,
                si(hbm.0, "B", 3),
                sci(self.optimizer.max_params(hbm), 2),
            ));
        }
        Ok(())
    }

    /// How `chips` chips are laid out: equal slices, each a box of the chip's
    /// torus no larger than its largest ICI domain, as few slices as can be.
    /// Refused with the reason when the count is not physical.
    pub fn layout(&self, chips: u32) -> Result<Layout, String> {
        self.validate()?;
        if chips == 0 {
            return Err("a chip count must be at least 1".into());
        }
        if f64::from(chips) > self.tokens {
            return Err(format!(
                "{} chips would leave some without a token: a step of {} tokens spreads over at \
                 most {} chips",
                grouped(f64::from(chips)),
                grouped(self.tokens),
                grouped(self.tokens.floor()),
            ));
        }
        let mesh = self.chip.topology.largest_mesh();
        let domain: u64 = mesh.iter().map(|&a| u64::from(a)).product();
        // At most `chips` (a domain has at least one chip).
        let fewest = u32::try_from(u64::from(chips).div_ceil(domain.max(1))).unwrap_or(chips);
        let (slices, shape) = divisors(chips)
            .into_iter()
            .filter(|s| *s >= fewest)
            .find_map(|s| box_shape(&mesh, chips / s).map(|shape| (s, shape)))
            .ok_or_else(|| {
                format!(
                    "{chips} chips do not split into slices of a {}",
                    self.chip.name
                )
            })?;
        if slices > MAX_SLICES {
            return Err(format!(
                "{} chips need {} slices of at most {} chips, more than the {} a data centre \
                 network joins here",
                grouped(f64::from(chips)),
                grouped(f64::from(slices)),
                grouped(domain as f64),
                grouped(f64::from(MAX_SLICES)),
            ));
        }
        let slice = Slice::new(self.chip, &shape).map_err(|e| e.to_string())?;
        if slices > 1 && self.chip.bandwidth(Link::Dcn).is_none() {
            return Err(format!(
                "the book gives no DCN bandwidth for the {}, so it cannot go beyond one ICI \
                 domain of {} chips",
                self.chip.name,
                grouped(domain as f64)
            ));
        }
        let domain = u32::try_from(domain)
            .map_err(|_| format!("an ICI domain of {domain} chips is too many to count"))?;
        Ok(Layout {
            slices,
            slice,
            domain,
        })
    }

    /// The step on `chips` chips.
    pub fn row(&self, chips: u32) -> Result<ScalingRow, String> {
        let layout = self.layout(chips)?;
        let peak = self
            .chip
            .peak(Dtype::Bf16)
            .ok_or_else(|| format!("{} has no bf16 peak", self.chip.name))?;
        let n = f64::from(chips);
        let compute = training_flops_rule(self.params, self.tokens) / (peak * n);
        let backward = compute * (Pass::Backward.per_param() / Pass::Training.per_param());
        let grads: Bytes = self.grad_dtype.size_of(self.params);
        let per_slice = layout.slice.chips() as f64;
        let ici = if per_slice > 1.0 {
            let net = Network::ici(self.chip).map_err(|e| e.to_string())?;
            collectives::cost(
                Collective::AllReduce,
                grads,
                &layout.slice.ring_axes(),
                &net,
            )
            .map_err(|e| e.to_string())?
            .time
        } else {
            Seconds(0.0)
        };
        let dcn = match (layout.slices > 1, self.chip.bandwidth(Link::Dcn)) {
            // Each chip all-reduces its 1/M share of the gradients across slices.
            (true, Some(w)) => dcn_all_reduce(grads, per_slice, w).1,
            _ => Seconds(0.0),
        };
        let comms = ici.max(dcn);
        let step = (compute - backward) + backward.max(comms);
        Ok(ScalingRow {
            chips,
            slices: layout.slices,
            compute,
            backward,
            ici,
            dcn,
            comms,
            step,
            efficiency: compute.0 / step.0,
            speedup: 1.0,
        })
    }
}

/// The most chips along each axis of `mesh` that multiply to `chips`, or `None`
/// when `chips` is no box of it (found greedily, longest axis first).
fn box_shape(mesh: &[u32], chips: u32) -> Option<Vec<u32>> {
    let mut axes = mesh.to_vec();
    axes.sort_unstable_by(|a, b| b.cmp(a));
    let mut left = chips;
    let mut shape = Vec::with_capacity(axes.len());
    for a in axes {
        let d = divisors(left)
            .into_iter()
            .rev()
            .find(|d| *d <= a)
            .unwrap_or(1);
        shape.push(d);
        left /= d;
    }
    if left != 1 {
        return None;
    }
    while shape.len() > 1 && shape.last() == Some(&1) {
        shape.pop();
    }
    Some(shape)
}

/// How a chip count is laid out.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Layout {
    /// Slices joined over DCN (1: a single ICI slice).
    pub slices: u32,
    /// One slice.
    pub slice: Slice,
    /// Chips in the chip's largest ICI domain.
    pub domain: u32,
}

/// One chip count.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScalingRow {
    /// Chips.
    pub chips: u32,
    /// ICI slices joined over DCN.
    pub slices: u32,
    /// Compute per chip: `6 · P · T / (chips · peak)`.
    pub compute: Seconds,
    /// The backward pass's share of it, two thirds: what the AllReduce can hide behind.
    pub backward: Seconds,
    /// The gradient AllReduce inside a slice, over ICI.
    pub ici: Seconds,
    /// The gradient AllReduce across slices, over DCN (0 for one slice).
    pub dcn: Seconds,
    /// The communication time: the slower of the two.
    pub comms: Seconds,
    /// `forward + max(backward, comms)`.
    pub step: Seconds,
    /// `compute / step`: 1 while the backward pass hides the AllReduce.
    pub efficiency: f64,
    /// Speed-up over the first row's step time.
    pub speedup: f64,
}

/// The step at each of `chips`; refused, with the reason, if any count is not
/// physical ([`StrongScalingParams::layout`]).
pub fn strong_scaling(p: &StrongScalingParams, chips: &[u32]) -> Result<Vec<ScalingRow>, String> {
    p.validate()?;
    if chips.is_empty() {
        return Err("give at least one chip count".into());
    }
    let mut rows = chips
        .iter()
        .map(|&n| p.row(n))
        .collect::<Result<Vec<_>, _>>()?;
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

    fn v5e(params: f64) -> StrongScalingParams {
        StrongScalingParams::new(chip("v5e").unwrap(), params, 1_048_576.0)
    }

    #[test]
    fn efficiency_falls_once_communication_binds() {
        let p = StrongScalingParams::new(chip("v5p").unwrap(), 7e9, 4_194_304.0);
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

    #[test]
    fn a_model_whose_adam_state_exceeds_hbm_is_refused() {
        // Part 5: pure data parallelism holds HBM / 10 parameters, 1.6e9 on a v5e.
        assert_eq!(v5e(1.6e9).validate(), Ok(()));
        let e = v5e(1.7e9).validate().unwrap_err();
        assert!(
            e.contains("17 GB") && e.contains("16 GB") && e.contains("1.6e9"),
            "{e}"
        );
        assert_eq!(
            v5e(8e9).row(16).unwrap_err().to_string(),
            "a 8e9-parameter model needs 80 GB of weights and optimizer state on every chip (10 bytes per parameter), more than the TPU v5e's 16 GB of HBM: pure data parallelism fits at most 1.6e9 parameters",
        );
    }

    #[test]
    fn chips_beyond_the_ici_domain_go_over_dcn() {
        let p = v5e(1e9);
        let grads = 2e9;
        let ici = chip("v5e").unwrap().bandwidth(Link::Ici).unwrap().0;
        let dcn = chip("v5e").unwrap().bandwidth(Link::Dcn).unwrap().0;
        // 256 chips fill the v5e's 16×16 domain: one slice, two axes, 2V / (2 W_ici).
        let full = p.row(256).unwrap();
        assert_eq!((full.slices, full.dcn), (1, Seconds(0.0)));
        assert!((full.ici.0 - 2.0 * grads / (2.0 * ici)).abs() < 1e-9);
        // 4,096 chips are 16 slices of 256 joined by DCN: 2V / (256 · W_dcn) there.
        let many = p.row(4096).unwrap();
        assert_eq!(many.slices, 16);
        assert!((many.dcn.0 - 2.0 * grads / (256.0 * dcn)).abs() < 1e-12);
        assert_eq!(many.ici, full.ici);
        assert_eq!(many.comms, many.ici.max(many.dcn));
        // 16 chips are one ring of 16 with wraparound: 2V / W_ici.
        let ring = p.row(16).unwrap();
        assert!((ring.ici.0 - 2.0 * grads / ici).abs() < 1e-6);
        let v5p = StrongScalingParams::new(chip("v5p").unwrap(), 7e9, 1_048_576.0);
        assert_eq!(v5p.layout(8192).unwrap().slices, 2);
        assert_eq!(v5p.layout(8960).unwrap().slices, 1);
    }

    #[test]
    fn the_allreduce_hides_behind_the_backward_pass_only() {
        let p = v5e(1e9);
        let r = p.row(4096).unwrap();
        assert!((r.backward.0 - r.compute.0 * 2.0 / 3.0).abs() < 1e-15);
        assert!(r.comms > r.backward);
        let forward = r.compute.0 / 3.0;
        assert!((r.step.0 - (forward + r.comms.0)).abs() < 1e-12);
        // While the backward pass is longer, the step is the compute alone.
        let r = p.row(256).unwrap();
        assert!(r.backward > r.comms);
        assert!((r.step.0 - r.compute.0).abs() < 1e-12);
    }

    #[test]
    fn chip_counts_are_bounded_by_the_batch_and_the_network() {
        let p = StrongScalingParams::new(chip("v5e").unwrap(), 1e9, 1024.0);
        // 1024 tokens over 1024 chips: one token each, on 4 slices of 256 v5e.
        let row = p.row(1024).unwrap();
        assert_eq!((row.chips, row.slices), (1024, 4));
        let e = p.row(2048).unwrap_err();
        assert!(e.contains("without a token"), "{e}");
        let e = p.layout(256 * (MAX_SLICES + 1)).unwrap_err();
        assert!(e.contains("without a token"), "{e}");
        let p = StrongScalingParams::new(chip("v5e").unwrap(), 1e9, 1e12);
        let e = p.layout(256 * (MAX_SLICES + 1)).unwrap_err();
        assert!(e.contains("slices"), "{e}");
        // A chip without a DCN figure stops at its ICI domain.
        let v4 = StrongScalingParams::new(chip("v4p").unwrap(), 1e9, 1e9);
        let domain = v4.layout(1).unwrap().domain;
        let whole = v4.layout(domain).unwrap();
        assert_eq!((whole.slices, whole.domain), (1, domain));
        let e = v4.layout(2 * domain).unwrap_err();
        assert!(e.contains("DCN"), "{e}");
    }
}
