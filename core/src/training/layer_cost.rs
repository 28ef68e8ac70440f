//! Per-layer costs: FLOPs and collectives of one layer under one strategy, and where a strategy turns compute-bound as the batch grows.

use super::{
    cross_slice_link, fsdp_comms, fsdp_rings, missing, Cluster, Job, Parallelism, TrainingError,
};
use crate::comms::collectives::{Collective, Network, RingAxis};
use crate::hardware::Link;
use crate::model::config::{positive, ModelError};
use crate::roofline::Verdict;
use crate::units::{Bytes, BytesPerSec, Flops, FlopsPerSec, Seconds};

/// A kind of communication in a training step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CommKind {
    /// FSDP: all-gather the weights before use (forward and backward).
    FsdpGather,
    /// FSDP: reduce-scatter the weight gradients (backward).
    FsdpScatter,
    /// Data parallelism: all-reduce the weight gradients (backward).
    DpAllReduce,
    /// Tensor parallelism: all-gather the activations and reduce-scatter the outputs.
    TpActivations,
    /// Pure data parallelism across slices: all-reduce gradients over the DCN.
    DcnAllReduce,
    /// Pipelining: send activations (or their gradients) to the next stage.
    PipelineSend,
}

impl CommKind {
    /// Label for legends.
    pub fn label(self) -> &'static str {
        match self {
            CommKind::FsdpGather => "FSDP all-gather (weights)",
            CommKind::FsdpScatter => "FSDP reduce-scatter (gradients)",
            CommKind::DpAllReduce => "DP all-reduce (gradients)",
            CommKind::TpActivations => "TP all-gather + reduce-scatter (activations)",
            CommKind::DcnAllReduce => "cross-pod all-reduce (DCN)",
            CommKind::PipelineSend => "pipeline send (activations)",
        }
    }
}

/// One collective in one pass of one layer, per chip.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PassComm {
    /// What it is.
    pub kind: CommKind,
    /// The link it uses.
    pub link: Link,
    /// Bytes each chip moves, in the book's accounting.
    pub bytes: Bytes,
    /// Time: [`fsdp_comms`] for FSDP's gathers and scatters (bandwidth or hop
    /// latency, whichever is larger), the link's axis-multiplied bandwidth for the rest.
    pub time: Seconds,
}

/// FLOPs and collectives of one pass of one layer, per chip.
#[derive(Debug, Clone, PartialEq)]
pub struct PassCost {
    /// Matmul time.
    pub math: Seconds,
    /// Collectives.
    pub comms: Vec<PassComm>,
}

impl PassCost {
    /// Communication time if collectives overlap each other: the slowest.
    pub fn comms_time(&self) -> Seconds {
        self.comms
            .iter()
            .map(|c| c.time)
            .fold(Seconds(0.0), Seconds::max)
    }

    /// Lower bound: FLOPs and communication overlap.
    pub fn lower(&self) -> Seconds {
        self.math.max(self.comms_time())
    }

    /// Upper bound: nothing overlaps.
    pub fn upper(&self) -> Seconds {
        self.math + self.comms.iter().map(|c| c.time).sum::<Seconds>()
    }
}

/// The roofline of one layer under one strategy.
#[derive(Debug, Clone, PartialEq)]
pub struct LayerCost {
    /// Forward pass.
    pub forward: PassCost,
    /// Backward pass (twice the forward FLOPs).
    pub backward: PassCost,
    /// Forward FLOPs time: the `T_math` of the book's formulas.
    pub t_math: Seconds,
    /// Communication time on the forward pass's scale: the forward's, or half the
    /// backward's if that is larger (the backward has twice the FLOPs to hide it).
    /// `t_comms > t_math` exactly when some pass is communication-bound, so the
    /// batch where they cross is the book's threshold.
    pub t_comms: Seconds,
    /// Compute-bound when `t_comms ≤ t_math`.
    pub verdict: Verdict,
    /// The collective that sets `t_comms`.
    pub binding: Option<CommKind>,
}

/// Everything about one strategy that does not depend on the batch.
pub(super) struct Ctx {
    d: f64,
    f_compute: f64,
    f_weights: f64,
    matrices: f64,
    param_bytes: f64,
    act_bytes: f64,
    pub(super) peak: FlopsPerSec,
    ici_link: Link,
    ici: BytesPerSec,
    /// The network and rings FSDP's collectives run over.
    fsdp_net: Network,
    fsdp_rings: Vec<RingAxis>,
    p2p: BytesPerSec,
    dcn: Option<(Link, BytesPerSec)>,
    par: Parallelism,
    slices: f64,
    layers_per_stage: f64,
}

impl Ctx {
    pub(super) fn new(
        job: &Job,
        cluster: &Cluster,
        par: &Parallelism,
    ) -> Result<Ctx, TrainingError> {
        let chip = cluster.chip;
        let peak = chip
            .peak(job.compute)
            .ok_or_else(|| missing(chip, "peak for the compute format"))?;
        let link = chip
            .interconnect()
            .ok_or_else(|| missing(chip, "chip-to-chip link"))?;
        let dcn = if cluster.slices > 1 {
            Some(cross_slice_link(chip)?)
        } else {
            None
        };
        let (f_compute, f_weights) = job.widths();
        Ok(Ctx {
            d: job.model.d_model as f64,
            f_compute,
            f_weights,
            matrices: job.matrices(),
            param_bytes: job.optimizer.params.bytes(),
            act_bytes: job.compute.bytes(),
            peak,
            ici_link: link.link,
            fsdp_net: Network::interconnect(chip)
                .ok_or_else(|| missing(chip, "chip-to-chip link"))?,
            fsdp_rings: fsdp_rings(par.fsdp, par.axes_data),
            ici: link.bandwidth,
            p2p: link.one_way.unwrap_or(link.bandwidth),
            dcn,
            par: *par,
            slices: cluster.slices as f64,
            layers_per_stage: job.model.layers as f64 / par.pipeline as f64,
        })
    }

    pub(super) fn layer(&self, batch: f64) -> Result<LayerCost, TrainingError> {
        let p = &self.par;
        let (data, fsdp, tensor) = (p.data as f64, p.fsdp as f64, p.tensor as f64);
        let m_x = p.axes_data.max(1) as f64;
        let m_y = p.axes_tensor.max(1) as f64;
        // Tokens each data shard processes.
        let b = batch / (data * fsdp * self.slices);
        let m = self.matrices;
        let fwd_flops = Flops(2.0 * m * b * self.d * self.f_compute / tensor);
        let fwd_math = fwd_flops / self.peak;
        // One layer's weights, split over the tensor axis.
        let weights = Bytes(m * self.d * self.f_weights * self.param_bytes / tensor);
        let ici = |bytes: Bytes, axes: f64| bytes / (self.ici * axes);
        let coll = |kind, link, bytes: Bytes, time| PassComm {
            kind,
            link,
            bytes,
            time,
        };
        let mut fwd = Vec::new();
        let mut bwd = Vec::new();
        if p.fsdp > 1 {
            let fsdp = |kind| fsdp_comms(kind, weights, &self.fsdp_rings, &self.fsdp_net);
            let gather = fsdp(Collective::AllGather)?.time;
            let scatter = fsdp(Collective::ReduceScatter)?.time;
            fwd.push(coll(CommKind::FsdpGather, self.ici_link, weights, gather));
            bwd.push(coll(CommKind::FsdpGather, self.ici_link, weights, gather));
            bwd.push(coll(CommKind::FsdpScatter, self.ici_link, weights, scatter));
        }
        if p.data > 1 {
            // An all-reduce moves twice the array (Part 3).
            let bytes = weights * 2.0 / fsdp;
            bwd.push(coll(
                CommKind::DpAllReduce,
                self.ici_link,
                bytes,
                ici(bytes, m_x),
            ));
        }
        if p.tensor > 1 {
            // All-gather In[B_X, D] and reduce-scatter Out[B_X, D]: 2·(2·b·D) bytes.
            let bytes = Bytes(2.0 * b * self.d * self.act_bytes);
            fwd.push(coll(
                CommKind::TpActivations,
                self.ici_link,
                bytes,
                ici(bytes, m_y),
            ));
            bwd.push(coll(
                CommKind::TpActivations,
                self.ici_link,
                bytes,
                ici(bytes, m_y),
            ));
        }
        if let Some((link, w)) = self.dcn {
            // Each chip all-reduces its share of the gradients across slices.
            let (bytes, time) = super::dcn_all_reduce(weights, data * fsdp, w);
            bwd.push(coll(CommKind::DcnAllReduce, link, bytes, time));
        }
        if p.pipeline > 1 {
            // Activations [b, D/Y] cross each stage boundary once per pass,
            // amortised over the layers of a stage.
            let bytes = Bytes(b * self.d * self.act_bytes / tensor / self.layers_per_stage);
            let t = bytes / self.p2p;
            fwd.push(coll(CommKind::PipelineSend, self.ici_link, bytes, t));
            bwd.push(coll(CommKind::PipelineSend, self.ici_link, bytes, t));
        }
        let forward = PassCost {
            math: fwd_math,
            comms: fwd,
        };
        let backward = PassCost {
            math: fwd_math * 2.0,
            comms: bwd,
        };
        let scaled = forward
            .comms
            .iter()
            .map(|c| (c.kind, c.time))
            .chain(backward.comms.iter().map(|c| (c.kind, c.time / 2.0)));
        let (binding, t_comms) = scaled.fold((None, Seconds(0.0)), |(k, t), (kind, time)| {
            if time > t {
                (Some(kind), time)
            } else {
                (k, t)
            }
        });
        let verdict = if t_comms > fwd_math {
            Verdict::CommunicationBound
        } else {
            Verdict::ComputeBound
        };
        Ok(LayerCost {
            forward,
            backward,
            t_math: fwd_math,
            t_comms,
            verdict,
            binding: if verdict == Verdict::ComputeBound {
                None
            } else {
                binding
            },
        })
    }
}

pub(super) fn check_structure(
    job: &Job,
    cluster: &Cluster,
    par: &Parallelism,
) -> Result<(), TrainingError> {
    job.model.validate()?;
    for (name, v) in [
        ("data-parallel degree", par.data),
        ("FSDP degree", par.fsdp),
        ("tensor-parallel degree", par.tensor),
        ("pipeline stages", par.pipeline),
        ("microbatches", par.microbatches),
    ] {
        if v == 0 {
            return Err(ModelError::NotPositive {
                field: name,
                value: 0.0,
            }
            .into());
        }
    }
    if par.chips() != cluster.chips_per_slice as u64 {
        return Err(TrainingError::DegreesDontMatch {
            product: par.chips(),
            chips: cluster.chips_per_slice as u64,
        });
    }
    if par.tensor as u64 > job.model.heads {
        return Err(TrainingError::TensorExceedsHeads {
            tensor: par.tensor,
            heads: job.model.heads,
        });
    }
    if par.pipeline as u64 > job.model.layers {
        return Err(TrainingError::PipelineExceedsLayers {
            stages: par.pipeline,
            layers: job.model.layers,
        });
    }
    let uses_x = par.data > 1 || par.fsdp > 1;
    let uses_y = par.tensor > 1;
    let bad_axes = TrainingError::BadAxes {
        data: par.axes_data,
        tensor: par.axes_tensor,
        available: cluster.axes,
    };
    let in_range = |a: u8, used: bool| !used || (1..=cluster.axes).contains(&a);
    if !in_range(par.axes_data, uses_x) || !in_range(par.axes_tensor, uses_y) {
        return Err(bad_axes);
    }
    // An axis cut between the two counts for both (`Parallelism::mesh_split`).
    let spare = u8::from(par.shared_axis);
    if uses_x
        && uses_y
        && cluster.axes >= 2
        && par.axes_data + par.axes_tensor > cluster.axes + spare
    {
        return Err(bad_axes);
    }
    Ok(())
}

pub(super) fn check_batch(
    job: &Job,
    cluster: &Cluster,
    par: &Parallelism,
) -> Result<f64, TrainingError> {
    job.validate()?;
    let shards = par.data as f64 * par.fsdp as f64 * cluster.slices as f64;
    let b = job.batch_tokens;
    if b < shards {
        return Err(TrainingError::BatchTooSmall { tokens: b, shards });
    }
    if b / shards < par.microbatches as f64 {
        return Err(TrainingError::BatchTooSmall {
            tokens: b / shards,
            shards: par.microbatches as f64,
        });
    }
    let sequences = job.sequences();
    if shards > sequences && !job.sequence_sharding {
        return Err(TrainingError::SequenceShardingRequired { shards, sequences });
    }
    let shards = crate::check::whole(shards).unwrap_or(u64::MAX);
    Ok(sequence_degree(shards, sequences) as f64)
}

/// The sequence (context) sharding degree for `shards` data shards over `sequences`
/// sequences: a sharding degree is a whole number that divides the data axis, so
/// this is the **smallest divisor `s` of `shards` with `shards / s ≤ sequences`**
/// (1 when every shard can hold whole sequences). The data axis is then `shards / s`
/// groups of sequences times `s` pieces of each sequence; rounding up to a divisor
/// keeps every group at least one sequence, and the groups differ by at most one
/// sequence when `shards / s` does not divide the sequence count (as the tokens per
/// chip already do when the chip count does not divide the batch). Part 6's
/// 2240 FSDP shards over 1024 sequences give 4 (not 2240/1024 ≈ 2.19), its 8960
/// shards give 10, and 2048 shards give 2.
pub fn sequence_degree(shards: u64, sequences: f64) -> u64 {
    let shards = shards.max(1);
    let fits = |s: u64| (shards / s) as f64 <= sequences;
    // Divisors come in pairs (i, shards / i) with i ≤ √shards.
    let mut best = shards;
    let mut i = 1u64;
    while i * i <= shards {
        if shards.is_multiple_of(i) {
            for s in [i, shards / i] {
                if fits(s) {
                    best = best.min(s);
                }
            }
        }
        i += 1;
    }
    best
}

/// Where `t_comms` meets `t_math` as the batch grows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Boundary {
    /// No communication, or none that outgrows the FLOPs: compute-bound at any batch.
    Always,
    /// Compute-bound from this global batch (tokens) up.
    At(f64),
    /// Communication grows as fast as the FLOPs: never compute-bound (e.g. tensor
    /// parallelism beyond `M_Y · F / α` ways).
    Never,
}

impl Boundary {
    /// Where the strategy `name` turns compute-bound on `chips` chips, in a
    /// sentence: "FSDP turns compute-bound above B ≈ 3.48M tokens, 850 per chip."
    pub fn sentence(self, name: &str, chips: f64) -> String {
        match self {
            Boundary::At(b) => format!(
                "{name} turns compute-bound above B ≈ {} tokens, {} per chip.",
                crate::format::tokens(b),
                crate::format::grouped(b / chips)
            ),
            Boundary::Always => format!("{name} is compute-bound at any batch on this mesh."),
            Boundary::Never => format!(
                "{name} is never compute-bound on this mesh: its communication grows as fast as its FLOPs."
            ),
        }
    }
}

pub(super) fn boundary_of(ctx: &Ctx) -> Result<Boundary, TrainingError> {
    // Every time is affine in the batch; read the lines off two batches.
    let (l1, l2) = (ctx.layer(1.0)?, ctx.layer(2.0)?);
    let a = l2.t_math.0 - l1.t_math.0;
    let series = |l: &LayerCost| -> Vec<f64> {
        l.forward
            .comms
            .iter()
            .map(|c| c.time.0)
            .chain(l.backward.comms.iter().map(|c| c.time.0 / 2.0))
            .collect()
    };
    let (v1, v2) = (series(&l1), series(&l2));
    let mut at: f64 = 0.0;
    for (x1, x2) in v1.iter().zip(&v2) {
        let slope = x2 - x1;
        let intercept = x1 - slope;
        if slope >= a * (1.0 - 1e-12) {
            if intercept > 0.0 || slope > a * (1.0 + 1e-12) {
                return Ok(Boundary::Never);
            }
            continue;
        }
        at = at.max(intercept / (a - slope));
    }
    Ok(if at > 0.0 {
        Boundary::At(at)
    } else {
        Boundary::Always
    })
}

/// The global batch at which `t_comms = t_math` for this strategy.
pub fn boundary_batch(
    job: &Job,
    cluster: &Cluster,
    par: &Parallelism,
) -> Result<Boundary, TrainingError> {
    check_structure(job, cluster, par)?;
    boundary_of(&Ctx::new(job, cluster, par)?)
}

/// One point of a batch sweep.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SweepPoint {
    /// Global batch in tokens.
    pub batch: f64,
    /// Per-layer FLOPs time (forward).
    pub t_math: Seconds,
    /// Per-layer communication time on the same scale.
    pub t_comms: Seconds,
    /// Which one is larger.
    pub verdict: Verdict,
}

/// `t_math` and `t_comms` of one strategy across `batches` (for a plot; each batch
/// must be positive and finite, and need not fill every chip).
pub fn sweep(
    job: &Job,
    cluster: &Cluster,
    par: &Parallelism,
    batches: &[f64],
) -> Result<Vec<SweepPoint>, TrainingError> {
    check_structure(job, cluster, par)?;
    let ctx = Ctx::new(job, cluster, par)?;
    batches
        .iter()
        .map(|&b| {
            let batch = positive("batch (tokens)", b)?;
            let l = ctx.layer(batch)?;
            Ok(SweepPoint {
                batch,
                t_math: l.t_math,
                t_comms: l.t_comms,
                verdict: l.verdict,
            })
        })
        .collect()
}

/// `n` batches spaced evenly in log scale from `lo` to `hi` (for sweeps).
pub fn log_batches(lo: f64, hi: f64, n: usize) -> Result<Vec<f64>, TrainingError> {
    let lo = positive("smallest batch", lo)?;
    let hi = positive("largest batch", hi)?;
    let n = n.clamp(2, 10_000);
    let (a, b) = (lo.ln(), hi.ln());
    Ok((0..n)
        .map(|i| (a + (b - a) * i as f64 / (n - 1) as f64).exp())
        .collect())
}
