//! Training rooflines on GPUs (Part 12): when data, tensor, expert and pipeline
//! parallelism stay compute-bound, for one MLP block
//! `x[B, D] · W_in[D, F] · W_out[F, D]` with `B` the global batch in tokens.
//!
//! Every threshold is `α = C / W_collective` scaled by a factor: `W_gpu`
//! (NVLink) inside a node, `W_node` (scale-out egress) across nodes.
//!
//! ```
//! use ridgeline_core::dtype::Dtype;
//! use ridgeline_core::gpu::{GpuSystem, Scope};
//!
//! let b200 = GpuSystem::from_id("b200", Dtype::Bf16).unwrap();
//! // Twice the NVLink bandwidth but the same scale-out: cross-node DP gets harder.
//! assert_eq!(b200.dp_threshold(Scope::Node).unwrap(), 2500.0);
//! assert_eq!(b200.dp_threshold(Scope::Network).unwrap(), 5625.0);
//! // An MoE with E = 128 experts, k = 4 active needs E/k times more tokens.
//! let h100 = GpuSystem::from_id("h100", Dtype::Bf16).unwrap();
//! assert_eq!(h100.moe_dp_threshold(Scope::Network, 128, 4).unwrap(), 79_200.0);
//! ```

use super::{nonzero, GpuError, GpuSystem, Scope};
use crate::check::positive;
use crate::comms::collectives::{Collective, RingAxis};
use crate::hardware::Link;
use crate::roofline::{Analysis, LinkTime};
use crate::training::fsdp_comms;
use crate::units::{Bytes, BytesPerSec, Flops, FlopsPerSec, Seconds};

/// `E / k`: how much MoE sparsity inflates the DP batch threshold.
pub fn moe_factor(experts: u32, active: u32) -> Result<f64, GpuError> {
    nonzero("experts E", u64::from(experts))?;
    nonzero("active experts k", u64::from(active))?;
    if active > experts {
        return Err(GpuError::TooLarge {
            what: "active experts k",
            value: f64::from(active),
            max: f64::from(experts),
        });
    }
    Ok(f64::from(experts) / f64::from(active))
}

/// `(X − 1) / X`: the discount a small data-parallel axis of `x` nodes gets.
pub fn small_axis_factor(x: u32) -> Result<f64, GpuError> {
    nonzero("data-parallel nodes X", u64::from(x))?;
    let x = f64::from(x);
    Ok((x - 1.0) / x)
}

/// The smallest global batch for `gpus` GPUs each needing `tokens_per_gpu`.
pub fn min_global_batch(tokens_per_gpu: f64, gpus: u64) -> Result<f64, GpuError> {
    positive("tokens per GPU", tokens_per_gpu)?;
    nonzero("GPU count", gpus)?;
    Ok(tokens_per_gpu * gpus as f64)
}

/// Pipeline communication over a whole step: `2BD/(W·N_MB) · (N_MB + N_stages − 2)`
/// (bf16 activations, `N_MB + N_stages − 2` hops of one microbatch each).
pub fn pp_comms(
    tokens: f64,
    d: f64,
    w: BytesPerSec,
    microbatches: u32,
    stages: u32,
) -> Result<Seconds, GpuError> {
    positive("batch B", tokens)?;
    positive("model dim D", d)?;
    positive("bandwidth", w.0)?;
    nonzero("microbatches", u64::from(microbatches))?;
    nonzero("stages", u64::from(stages))?;
    let n_mb = f64::from(microbatches);
    let hops = (n_mb + f64::from(stages) - 2.0).max(0.0);
    Ok(Seconds(2.0 * tokens * d / (w.0 * n_mb) * hops))
}

/// The book's per-layer estimate of pipeline communication: `1.5 · 2BD/(W · N_layers)`.
pub fn pp_comms_per_layer(
    tokens: f64,
    d: f64,
    w: BytesPerSec,
    layers: u32,
) -> Result<Seconds, GpuError> {
    positive("batch B", tokens)?;
    positive("model dim D", d)?;
    positive("bandwidth", w.0)?;
    nonzero("layers", u64::from(layers))?;
    Ok(Seconds(1.5 * 2.0 * tokens * d / (w.0 * f64::from(layers))))
}

/// An MLP block (dense when `experts == active == 1`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mlp {
    /// Global batch in tokens, `B`.
    pub tokens: f64,
    /// Model dimension `D`.
    pub d: f64,
    /// Feed-forward dimension `F`.
    pub f: f64,
    /// Experts `E` (1 for dense).
    pub experts: u32,
    /// Experts per token `k` (1 for dense).
    pub active: u32,
}

impl Mlp {
    /// A dense MLP.
    pub fn dense(tokens: f64, d: f64, f: f64) -> Mlp {
        Mlp {
            tokens,
            d,
            f,
            experts: 1,
            active: 1,
        }
    }

    fn check(&self) -> Result<(), GpuError> {
        positive("batch B", self.tokens)?;
        positive("model dim D", self.d)?;
        positive("feed-forward dim F", self.f)?;
        moe_factor(self.experts, self.active)?;
        Ok(())
    }
}

fn link_of(scope: Scope) -> Link {
    match scope {
        Scope::Node => Link::NvLink,
        Scope::Network => Link::ScaleOut,
    }
}

impl GpuSystem {
    /// Per-GPU tokens DP/FSDP needs to stay compute-bound: `B/X > C / W_collective`.
    pub fn dp_threshold(&self, scope: Scope) -> Result<f64, GpuError> {
        Ok(self.alpha(scope)?.0)
    }

    /// The same for an MoE: `E/k · C / W_collective`.
    pub fn moe_dp_threshold(
        &self,
        scope: Scope,
        experts: u32,
        active: u32,
    ) -> Result<f64, GpuError> {
        Ok(self.dp_threshold(scope)? * moe_factor(experts, active)?)
    }

    /// The same for DP over only `x` nodes: `C / W · (X−1)/X`.
    pub fn small_dp_threshold(&self, scope: Scope, x: u32) -> Result<f64, GpuError> {
        Ok(self.dp_threshold(scope)? * small_axis_factor(x)?)
    }

    /// The largest tensor-parallel degree that stays compute-bound: `Y < F · W / C`.
    pub fn tp_max_ways(&self, scope: Scope, f: f64) -> Result<f64, GpuError> {
        positive("feed-forward dim F", f)?;
        Ok(f / self.dp_threshold(scope)?)
    }

    /// The same when TP spans two nodes: `F > α (Y − D_node)`, so `Y < D_node + F/α`.
    pub fn tp_max_ways_two_nodes(&self, f: f64) -> Result<f64, GpuError> {
        Ok(f64::from(self.gpus_per_node) + self.tp_max_ways(Scope::Network, f)?)
    }

    /// DP/FSDP backward pass of one MLP over `x` GPUs: `T_math = 8kBDF/(XC)`
    /// against the ReduceScatter of the bf16 gradients and the AllGather of the
    /// weights (`2EDF` parameters each), timed by the training model's
    /// [`fsdp_comms`] over a ring of the `x` replicas on the scope's links
    /// ([`GpuSystem::collective_network`]): `T_comms = 8EDF/W_collective · (X−1)/X`
    /// when bandwidth-bound, so the verdict flips at
    /// [`GpuSystem::small_dp_threshold`].
    pub fn dp_analysis(&self, mlp: &Mlp, x: u32, scope: Scope) -> Result<Analysis, GpuError> {
        mlp.check()?;
        nonzero("data-parallel GPUs X", u64::from(x))?;
        let net = self.collective_network(scope)?;
        let ring = [RingAxis::ring(x)];
        let flops = Flops(8.0 * f64::from(mlp.active) * mlp.tokens * mlp.d * mlp.f / f64::from(x));
        let weights = Bytes(4.0 * f64::from(mlp.experts) * mlp.d * mlp.f);
        let (mut bytes, mut time) = (Bytes(0.0), Seconds(0.0));
        for kind in [Collective::ReduceScatter, Collective::AllGather] {
            let c = fsdp_comms(kind, weights, &ring, &net)
                .map_err(|e| GpuError::Collective(e.to_string()))?;
            bytes += c.bytes_per_device;
            time += c.time;
        }
        let link = LinkTime {
            link: link_of(scope),
            bytes,
            bandwidth: net.one_way,
            time,
        };
        Ok(Analysis::of_times(flops, self.peak, vec![link]))
    }

    /// TP forward pass of one dense MLP over `y` GPUs: `T_math = 4BDF/(YC)`,
    /// `T_comms = 4BD / W_collective`.
    pub fn tp_analysis(&self, mlp: &Mlp, y: u32, scope: Scope) -> Result<Analysis, GpuError> {
        mlp.check()?;
        nonzero("tensor-parallel GPUs Y", u64::from(y))?;
        let w = self.w_collective(scope)?;
        let flops = Flops(4.0 * mlp.tokens * mlp.d * mlp.f / f64::from(y));
        let bytes = Bytes(4.0 * mlp.tokens * mlp.d);
        Ok(Analysis::new(
            flops,
            self.peak,
            &[(link_of(scope), bytes, w)],
        ))
    }

    /// Expert parallelism over `z` GPUs spanning nodes:
    /// `T_math = 4BkDF/(ZC)`, `T_comms = 4BD(Z − D_node)/(W_node Z) · min(D_node k / Z, 1)`.
    /// With `Z ≤ D_node` nothing crosses the scale-out network.
    pub fn ep_analysis(&self, mlp: &Mlp, z: u32) -> Result<Analysis, GpuError> {
        mlp.check()?;
        nonzero("expert-parallel GPUs Z", u64::from(z))?;
        let w = self.w_collective(Scope::Network)?;
        let (zf, dn, k) = (
            f64::from(z),
            f64::from(self.gpus_per_node),
            f64::from(mlp.active),
        );
        let flops = Flops(4.0 * mlp.tokens * k * mlp.d * mlp.f / zf);
        let leaving = ((zf - dn) / zf).max(0.0);
        let bytes = Bytes(4.0 * mlp.tokens * mlp.d * leaving * (dn * k / zf).min(1.0));
        Ok(Analysis::new(
            flops,
            self.peak,
            &[(Link::ScaleOut, bytes, w)],
        ))
    }

    /// Pipeline communication over the scale-out network (see [`pp_comms`]).
    pub fn pp_comms(
        &self,
        tokens: f64,
        d: f64,
        microbatches: u32,
        stages: u32,
    ) -> Result<Seconds, GpuError> {
        pp_comms(
            tokens,
            d,
            self.w_collective(Scope::Network)?,
            microbatches,
            stages,
        )
    }

    /// Wall-clock time for `flops` on `gpus` GPUs at a model-FLOPs utilisation `mfu`.
    pub fn training_time(&self, flops: Flops, gpus: u64, mfu: f64) -> Result<Seconds, GpuError> {
        positive("FLOPs", flops.0)?;
        nonzero("GPU count", gpus)?;
        positive("MFU", mfu)?;
        if mfu > 1.0 {
            return Err(GpuError::TooLarge {
                what: "MFU",
                value: mfu,
                max: 1.0,
            });
        }
        Ok(flops / FlopsPerSec(self.peak.0 * gpus as f64 * mfu))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::Dtype;
    use crate::hardware::ICI_HOP_LATENCY;
    use crate::roofline::Verdict;
    use proptest::prelude::*;

    fn h100() -> GpuSystem {
        GpuSystem::from_id("h100", Dtype::Bf16).unwrap()
    }

    #[test]
    fn factors_validate() {
        assert_eq!(
            moe_factor(4, 8).unwrap_err().to_string(),
            "active experts k is 8, more than its maximum of 4"
        );
        assert_eq!(
            moe_factor(0, 0).unwrap_err().to_string(),
            "experts E must be at least 1"
        );
        assert_eq!(small_axis_factor(1), Ok(0.0));
        assert_eq!(
            pp_comms(1.0, 1.0, BytesPerSec(0.0), 1, 1)
                .unwrap_err()
                .to_string(),
            "bandwidth must be a positive number (got 0)"
        );
        assert_eq!(
            h100()
                .training_time(Flops(1.0), 1, 1.5)
                .unwrap_err()
                .to_string(),
            "MFU is 1.5, more than its maximum of 1"
        );
    }

    proptest! {
        #[test]
        fn dp_verdict_flips_at_the_threshold(tokens_per_gpu in 100f64..10_000.0, x in 2u32..4096) {
            let sys = h100();
            for scope in [Scope::Node, Scope::Network] {
                let mlp = Mlp::dense(tokens_per_gpu * f64::from(x), 8192.0, 28672.0);
                let a = sys.dp_analysis(&mlp, x, scope).unwrap();
                let bound = a.verdict == Verdict::ComputeBound;
                // The ReduceScatter and the AllGather of 2DF bf16 weights round a
                // ring of X: 8DF(X−1)/(X·W) over the links, or X − 1 hops each.
                let xf = f64::from(x);
                let w = sys.w_collective(scope).unwrap().0;
                let bandwidth = 8.0 * mlp.d * mlp.f * (xf - 1.0) / (xf * w);
                let latency = 2.0 * (xf - 1.0) * ICI_HOP_LATENCY.value.0;
                let t = a.t_comms(link_of(scope)).unwrap().0;
                prop_assert!((t - bandwidth.max(latency)).abs() <= 1e-12 * t);
                if bandwidth >= latency {
                    // Bandwidth-bound, the book's case: the verdict flips at
                    // C/W · (X−1)/X tokens per GPU.
                    let need = sys.small_dp_threshold(scope, x).unwrap();
                    if (tokens_per_gpu / need - 1.0).abs() > 1e-9 {
                        prop_assert_eq!(bound, tokens_per_gpu > need);
                    }
                } else {
                    // A ring of thousands of GPUs pays its hops' latency instead.
                    prop_assert_eq!(bound, a.t_math.0 >= t);
                }
            }
        }

        #[test]
        fn tp_verdict_flips_at_f_w_over_c(f in 1000f64..100_000.0, y in 1u32..64) {
            let sys = h100();
            let a = sys.tp_analysis(&Mlp::dense(1e6, 8192.0, f), y, Scope::Node).unwrap();
            let limit = sys.tp_max_ways(Scope::Node, f).unwrap();
            if (f64::from(y) / limit - 1.0).abs() > 1e-9 {
                prop_assert_eq!(a.verdict == Verdict::ComputeBound, f64::from(y) < limit);
            }
        }

        #[test]
        fn ep_matches_the_books_two_regimes(f in 500f64..200_000.0, k in 1u32..16, z_nodes in 2u32..64) {
            let sys = h100();
            let z = z_nodes * 8;
            let mlp = Mlp { tokens: 1e6, d: 7168.0, f, experts: 256.max(z), active: k };
            let a = sys.ep_analysis(&mlp, z).unwrap();
            let alpha = sys.dp_threshold(Scope::Network).unwrap();
            let zf = f64::from(z);
            let kf = f64::from(k);
            // Few nodes (8k ≥ Z): F > α(Z − 8)/k; many (8k < Z): F > 8α(Z − 8)/Z.
            let need = if 8.0 * kf >= zf { alpha * (zf - 8.0) / kf } else { 8.0 * alpha * (zf - 8.0) / zf };
            if (f / need - 1.0).abs() > 1e-9 {
                prop_assert_eq!(a.verdict == Verdict::ComputeBound, f > need);
            }
        }
    }
}
