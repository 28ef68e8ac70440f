//! A synthetic profile of one training step (Part 9): the per-layer costs of
//! [`crate::training`] laid out as op spans on a TensorCore lane and on
//! interconnect lanes, as a trace viewer would show them.
//!
//! Each layer's MLP matmuls become compute spans and each of its collectives a
//! span on the lane of the link it uses. Two schedules are built from the same
//! ops: **serial**, where every op waits for the one before it (the timeline's
//! length is then the sum of all durations), and **overlapped**, where each lane
//! runs its ops in program order as soon as their inputs are ready. In the
//! overlapped schedule the FSDP weight all-gather of the next layer is issued
//! when the current layer starts (double buffering), gradient reduce-scatters run
//! behind the next layer's backward pass, and tensor-parallel activation
//! collectives run alongside the matmul that consumes or produces them (a
//! collective matmul), so the next op waits for whichever of the two ends last.
//! A gap on the TensorCore lane is then time spent waiting on communication.
//!
//! Like the book's Part 5 roofline, only the MLP matmuls and their collectives
//! are modelled (attention and embeddings are left out), pipeline bubbles are
//! not drawn, and a fixed per-step overhead (such as the optimizer update,
//! [`update_overhead`]) closes the step.
//!
//! ```
//! use ridgeline_core::hardware::chip;
//! use ridgeline_core::model::config::model;
//! use ridgeline_core::roofline::Verdict;
//! use ridgeline_core::training::{Cluster, Job, Parallelism};
//! use ridgeline_core::profiling::trace::{profile, Lane};
//! use ridgeline_core::units::Seconds;
//!
//! let job = Job::new(model("llama3-70b").unwrap().config, 4194304.0, 4096.0).unwrap();
//! let slice = Cluster::new(chip("v5p").unwrap(), &[16, 16, 16], 1).unwrap();
//! let p = profile(&job, &slice, &Parallelism::fsdp(4096, 3), 3, Seconds(0.0)).unwrap();
//! assert_eq!(p.verdict, Verdict::ComputeBound); // 1024 tokens per chip > 850
//! let serial = p.window(false);
//! assert!((serial.timeline.end.0 - serial.budget.total().0).abs() < 1e-12);
//! assert!(p.window(true).timeline.end < serial.timeline.end);
//! assert!(p.window(true).timeline.busy(Lane::Ici).0 > 0.0);
//! ```

use std::collections::HashMap;

use crate::hardware::{Chip, Link};
use crate::roofline::Verdict;
use crate::training::{
    evaluate, Cluster, CommKind, Evaluation, Job, LayerCost, Parallelism, TrainingError,
};
use crate::units::Seconds;

/// A row of the trace viewer: the resource an op occupies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Lane {
    /// The matrix units: matmuls and the optimizer update.
    TensorCore,
    /// ICI along the data / FSDP mesh axes (weight gathers, gradient reductions).
    Ici,
    /// ICI along the tensor-parallel mesh axes (activation collectives).
    IciTensor,
    /// The data-centre network between slices.
    Dcn,
}

impl Lane {
    /// Every lane, top to bottom.
    pub const ALL: [Lane; 4] = [Lane::TensorCore, Lane::Ici, Lane::IciTensor, Lane::Dcn];

    /// The lane's label in a trace viewer.
    pub fn label(self) -> &'static str {
        match self {
            Lane::TensorCore => "TensorCore",
            Lane::Ici => "ICI",
            Lane::IciTensor => "ICI (tensor axes)",
            Lane::Dcn => "DCN",
        }
    }

    fn index(self) -> usize {
        self as usize
    }

    /// Whether communication (rather than compute) runs on this lane.
    pub fn is_comms(self) -> bool {
        self != Lane::TensorCore
    }
}

/// What an op does, for colouring and grouping.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OpKind {
    /// A forward-pass matmul.
    Matmul,
    /// A backward-pass matmul (input and weight gradients).
    MatmulBackward,
    /// An all-gather.
    AllGather,
    /// A reduce-scatter.
    ReduceScatter,
    /// An all-reduce.
    AllReduce,
    /// A point-to-point send (pipeline stages).
    Send,
    /// The fixed per-step overhead.
    Overhead,
}

impl OpKind {
    /// Every kind, in legend order.
    pub const ALL: [OpKind; 7] = [
        OpKind::Matmul,
        OpKind::MatmulBackward,
        OpKind::AllGather,
        OpKind::ReduceScatter,
        OpKind::AllReduce,
        OpKind::Send,
        OpKind::Overhead,
    ];

    /// Label for legends.
    pub fn label(self) -> &'static str {
        match self {
            OpKind::Matmul => "matmul (forward)",
            OpKind::MatmulBackward => "matmul (backward)",
            OpKind::AllGather => "all-gather",
            OpKind::ReduceScatter => "reduce-scatter",
            OpKind::AllReduce => "all-reduce",
            OpKind::Send => "send",
            OpKind::Overhead => "step overhead",
        }
    }

    /// The HLO-style name prefix (`fusion`, `all-gather`, ...).
    fn prefix(self) -> &'static str {
        match self {
            OpKind::Matmul | OpKind::MatmulBackward | OpKind::Overhead => "fusion",
            OpKind::AllGather => "all-gather",
            OpKind::ReduceScatter => "reduce-scatter",
            OpKind::AllReduce => "all-reduce",
            OpKind::Send => "send",
        }
    }
}

/// One op of the trace (Part 9's trace viewer): what it is, its lane, and
/// when it runs.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceOp {
    /// HLO-style op name: `fusion.12`, `all-gather.3`.
    pub op: String,
    /// What it computes or moves: `W_in matmul`, `weights`.
    pub what: String,
    /// Its kind.
    pub kind: OpKind,
    /// The lane it occupies.
    pub lane: Lane,
    /// The layer it belongs to (`None` for the step overhead).
    pub layer: Option<u32>,
    /// When it starts, from the beginning of the step.
    pub start: Seconds,
    /// How long it takes (its roofline time).
    pub duration: Seconds,
}

impl TraceOp {
    /// When it ends.
    pub fn end(&self) -> Seconds {
        self.start + self.duration
    }

    /// The name a trace viewer prints: `fusion.12 (W_in matmul)`.
    pub fn label(&self) -> String {
        format!("{} ({})", self.op, self.what)
    }
}

/// The trace of one training step: its ops laid out in time on their lanes.
#[derive(Debug, Clone, PartialEq)]
pub struct StepTrace {
    /// Every span, in program order.
    pub spans: Vec<TraceOp>,
    /// When the last span ends.
    pub end: Seconds,
}

impl StepTrace {
    /// Time `lane` is busy.
    pub fn busy(&self, lane: Lane) -> Seconds {
        self.spans
            .iter()
            .filter(|s| s.lane == lane)
            .map(|s| s.duration)
            .sum()
    }

    /// Time `lane` is idle before the end of the timeline.
    pub fn idle(&self, lane: Lane) -> Seconds {
        self.end - self.busy(lane)
    }

    /// The lanes that hold at least one span, top to bottom.
    pub fn lanes(&self) -> Vec<Lane> {
        Lane::ALL
            .into_iter()
            .filter(|l| self.spans.iter().any(|s| s.lane == *l))
            .collect()
    }

    /// The sum of every span's duration.
    pub fn total_work(&self) -> Seconds {
        self.spans.iter().map(|s| s.duration).sum()
    }
}

/// The step time a roofline predicts before looking at the profile.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Budget {
    /// Time for the FLOPs at peak.
    pub flops: Seconds,
    /// Communication time not hidden behind FLOPs: with overlap, what the
    /// roofline's maximum bound leaves exposed in each pass; without, all of it.
    pub comms: Seconds,
    /// The fixed per-step overhead.
    pub overhead: Seconds,
}

impl Budget {
    /// FLOPs + exposed communication + overhead.
    pub fn total(&self) -> Seconds {
        self.flops + self.comms + self.overhead
    }
}

/// A timeline and the budget it should meet.
#[derive(Debug, Clone, PartialEq)]
pub struct Schedule {
    /// The laid-out ops.
    pub timeline: StepTrace,
    /// The roofline's budget for the same layers.
    pub budget: Budget,
}

impl Schedule {
    /// How far the timeline runs past its budget (negative if it beats it).
    pub fn over_budget(&self) -> Seconds {
        self.timeline.end - self.budget.total()
    }
}

/// The ops of one group summed over the whole step: a row of an op table.
#[derive(Debug, Clone, PartialEq)]
pub struct OpSummary {
    /// What the ops compute or move (`W_in matmul`).
    pub what: String,
    /// Their kind.
    pub kind: OpKind,
    /// Their lane.
    pub lane: Lane,
    /// How many there are in the step.
    pub count: u32,
    /// Their total time.
    pub total: Seconds,
    /// Their share of the step's timeline.
    pub fraction: f64,
}

/// The synthetic profile of one training step.
#[derive(Debug, Clone, PartialEq)]
pub struct Profile {
    /// The core's roofline evaluation of the strategy.
    pub evaluation: Evaluation,
    /// Layers in the shown window (a model of that many layers).
    pub layers_shown: u32,
    /// The window with overlap.
    pub window_overlapped: Schedule,
    /// The window without overlap.
    pub window_serial: Schedule,
    /// Every layer of the model, with overlap.
    pub step_overlapped: Schedule,
    /// Every layer of the model, without overlap.
    pub step_serial: Schedule,
    /// What limits the step: compute-bound when every pass's collectives fit
    /// behind its FLOPs, communication-bound otherwise.
    pub verdict: Verdict,
}

impl Profile {
    /// The window's schedule, with or without overlap.
    pub fn window(&self, overlap: bool) -> &Schedule {
        if overlap {
            &self.window_overlapped
        } else {
            &self.window_serial
        }
    }

    /// The whole step's schedule, with or without overlap.
    pub fn step(&self, overlap: bool) -> &Schedule {
        if overlap {
            &self.step_overlapped
        } else {
            &self.step_serial
        }
    }

    /// The `n` op groups that take the most time over the whole step, longest first.
    pub fn top_ops(&self, overlap: bool, n: usize) -> Vec<OpSummary> {
        let s = self.step(overlap);
        let mut groups: HashMap<(String, OpKind, Lane), (u32, Seconds)> = HashMap::new();
        for span in &s.timeline.spans {
            let e = groups
                .entry((span.what.clone(), span.kind, span.lane))
                .or_insert((0, Seconds(0.0)));
            e.0 += 1;
            e.1 += span.duration;
        }
        let end = s.timeline.end.0;
        let mut rows: Vec<OpSummary> = groups
            .into_iter()
            .map(|((what, kind, lane), (count, total))| OpSummary {
                what,
                kind,
                lane,
                count,
                total,
                fraction: if end > 0.0 { total.0 / end } else { 0.0 },
            })
            .collect();
        rows.sort_by(|a, b| {
            b.total
                .0
                .total_cmp(&a.total.0)
                .then_with(|| a.kind.cmp(&b.kind))
                .then_with(|| a.what.cmp(&b.what))
        });
        rows.truncate(n);
        rows
    }
}

/// The optimizer update as a fixed per-step overhead: reading and writing each
/// chip's parameters, gradients and optimizer state once over HBM.
pub fn update_overhead(evaluation: &Evaluation, chip: &Chip) -> Seconds {
    (evaluation.memory.state() * 2.0) / chip.hbm_bw()
}

/// One op before scheduling.
struct Op {
    kind: OpKind,
    what: String,
    lane: Lane,
    layer: Option<u32>,
    duration: Seconds,
    /// Ops that must end before this one starts (indices of earlier ops).
    deps: Vec<usize>,
}

struct Program {
    ops: Vec<Op>,
    counters: HashMap<&'static str, u32>,
}

impl Program {
    fn push(
        &mut self,
        kind: OpKind,
        what: impl Into<String>,
        lane: Lane,
        layer: Option<u32>,
        duration: Seconds,
        deps: &[Option<usize>],
    ) -> usize {
        self.ops.push(Op {
            kind,
            what: what.into(),
            lane,
            layer,
            duration,
            deps: deps.iter().flatten().copied().collect(),
        });
        self.ops.len() - 1
    }

    /// Lays the ops out: serially (each after the previous) or overlapped (each lane
    /// in program order, each op as soon as its inputs and its lane are free).
    fn schedule(&mut self, overlap: bool) -> StepTrace {
        let mut ends: Vec<Seconds> = Vec::with_capacity(self.ops.len());
        let mut lane_free = [Seconds(0.0); 4];
        let mut clock = Seconds(0.0);
        let mut spans = Vec::with_capacity(self.ops.len());
        self.counters.clear();
        for op in &self.ops {
            let start = if overlap {
                op.deps
                    .iter()
                    .filter_map(|&d| ends.get(d).copied())
                    .fold(lane_free[op.lane.index()], Seconds::max)
            } else {
                clock
            };
            let end = start + op.duration;
            ends.push(end);
            lane_free[op.lane.index()] = end;
            clock = clock.max(end);
            let prefix = op.kind.prefix();
            let n = self.counters.entry(prefix).or_insert(0);
            *n += 1;
            spans.push(TraceOp {
                op: format!("{prefix}.{n}"),
                what: op.what.clone(),
                kind: op.kind,
                lane: op.lane,
                layer: op.layer,
                start,
                duration: op.duration,
            });
        }
        StepTrace { spans, end: clock }
    }
}

fn lane_of(kind: CommKind, link: Link) -> Lane {
    match (kind, link) {
        (CommKind::TpActivations, _) => Lane::IciTensor,
        (_, Link::Dcn | Link::ScaleOut) => Lane::Dcn,
        _ => Lane::Ici,
    }
}

/// The ops of a model of `layers` layers with per-layer costs `cost`, in program order.
fn build(cost: &LayerCost, names: &[&'static str], layers: u32, overhead: Seconds) -> Program {
    let mut p = Program {
        ops: Vec::new(),
        counters: HashMap::new(),
    };
    let k = names.len().max(1) as f64;
    let find = |comms: &[crate::training::PassComm], kind| {
        comms
            .iter()
            .find(|c| c.kind == kind)
            .map(|c| (c.time, c.link))
    };
    let fwd = &cost.forward.comms;
    let bwd = &cost.backward.comms;
    let gather_f = find(fwd, CommKind::FsdpGather);
    let gather_b = find(bwd, CommKind::FsdpGather);
    let tp_f = find(fwd, CommKind::TpActivations);
    let tp_b = find(bwd, CommKind::TpActivations);
    let send_f = find(fwd, CommKind::PipelineSend);
    let send_b = find(bwd, CommKind::PipelineSend);
    let scatter = find(bwd, CommKind::FsdpScatter);
    let dp = find(bwd, CommKind::DpAllReduce);
    let dcn = find(bwd, CommKind::DcnAllReduce);

    // Stages run forward 0..n then backward n-1..0; each may need gathered weights.
    let stages: Vec<(bool, u32)> = (0..layers)
        .map(|l| (true, l))
        .chain((0..layers).rev().map(|l| (false, l)))
        .collect();
    let gather_for = |fwd: bool| if fwd { gather_f } else { gather_b };
    let mut gathered: Vec<Option<usize>> = vec![None; stages.len()];
    let mut last_compute: Option<usize> = None;
    // What the next stage's input waits for.
    let mut ready: Vec<Option<usize>> = Vec::new();
    let mut reductions: Vec<Option<usize>> = Vec::new();
    if let Some(&(f, l)) = stages.first() {
        if let Some((t, link)) = gather_for(f) {
            gathered[0] = Some(p.push(
                OpKind::AllGather,
                "weights",
                lane_of(CommKind::FsdpGather, link),
                Some(l),
                t,
                &[],
            ));
        }
    }
    for (s, &(forward, layer)) in stages.iter().enumerate() {
        let l = Some(layer);
        // Prefetch the next stage's weights as this one starts (double buffering).
        if let Some(&(nf, nl)) = stages.get(s + 1) {
            if let Some((t, link)) = gather_for(nf) {
                gathered[s + 1] = Some(p.push(
                    OpKind::AllGather,
                    "weights",
                    lane_of(CommKind::FsdpGather, link),
                    Some(nl),
                    t,
                    &[last_compute],
                ));
            }
        }
        let mut start: Vec<Option<usize>> = ready.clone();
        start.push(last_compute);
        start.push(gathered[s]);
        let (math, kind, tp, send) = if forward {
            (cost.forward.math, OpKind::Matmul, tp_f, send_f)
        } else {
            (cost.backward.math, OpKind::MatmulBackward, tp_b, send_b)
        };
        let order: Vec<&str> = if forward {
            names.to_vec()
        } else {
            names.iter().rev().copied().collect()
        };
        let suffix = if forward { "matmul" } else { "backward" };
        let mut prev: Vec<Option<usize>> = start.clone();
        let mut gather_act = None;
        let mut last = None;
        for (i, w) in order.iter().enumerate() {
            if i == 0 {
                if let Some((t, link)) = tp {
                    let what = if forward {
                        "activations"
                    } else {
                        "activation gradients"
                    };
                    gather_act = Some(p.push(
                        OpKind::AllGather,
                        what,
                        lane_of(CommKind::TpActivations, link),
                        l,
                        t * 0.5,
                        &start,
                    ));
                }
            }
            let mut scatter_act = None;
            if i + 1 == order.len() {
                if let Some((t, link)) = tp {
                    let what = if forward {
                        "layer output"
                    } else {
                        "input gradients"
                    };
                    scatter_act = Some(p.push(
                        OpKind::ReduceScatter,
                        what,
                        lane_of(CommKind::TpActivations, link),
                        l,
                        t * 0.5,
                        &prev,
                    ));
                }
            }
            let mm = p.push(
                kind,
                format!("{w} {suffix}"),
                Lane::TensorCore,
                l,
                math / k,
                &prev,
            );
            last = Some(mm);
            prev = vec![Some(mm), gather_act];
            if scatter_act.is_some() {
                prev.push(scatter_act);
            }
        }
        last_compute = last;
        ready = prev;
        if let Some((t, link)) = send {
            let sent = p.push(
                OpKind::Send,
                "activations to the next stage",
                lane_of(CommKind::PipelineSend, link),
                l,
                t,
                &[last],
            );
            ready.push(Some(sent));
        }
        if !forward {
            let mut local = None;
            if let Some((t, link)) = scatter {
                local = Some(p.push(
                    OpKind::ReduceScatter,
                    "weight gradients",
                    lane_of(CommKind::FsdpScatter, link),
                    l,
                    t,
                    &[last],
                ));
                reductions.push(local);
            }
            if let Some((t, link)) = dp {
                local = Some(p.push(
                    OpKind::AllReduce,
                    "weight gradients",
                    lane_of(CommKind::DpAllReduce, link),
                    l,
                    t,
                    &[last, local],
                ));
                reductions.push(local);
            }
            if let Some((t, link)) = dcn {
                reductions.push(Some(p.push(
                    OpKind::AllReduce,
                    "gradients across slices",
                    lane_of(CommKind::DcnAllReduce, link),
                    l,
                    t,
                    &[last, local],
                )));
            }
        }
    }
    if overhead.0 > 0.0 {
        let mut deps = reductions;
        deps.extend(ready);
        deps.push(last_compute);
        p.push(
            OpKind::Overhead,
            "optimizer update",
            Lane::TensorCore,
            None,
            overhead,
            &deps,
        );
    }
    p
}

fn budget(cost: &LayerCost, layers: u32, overhead: Seconds, overlap: bool) -> Budget {
    let n = layers as f64;
    let flops = (cost.forward.math + cost.backward.math) * n;
    let per_layer = if overlap {
        cost.forward.lower() + cost.backward.lower()
    } else {
        cost.forward.upper() + cost.backward.upper()
    };
    Budget {
        flops,
        comms: (per_layer * n - flops).max(Seconds(0.0)),
        overhead,
    }
}

fn schedules(
    cost: &LayerCost,
    names: &[&'static str],
    layers: u32,
    overhead: Seconds,
) -> [Schedule; 2] {
    let mut p = build(cost, names, layers, overhead);
    [true, false].map(|overlap| Schedule {
        timeline: p.schedule(overlap),
        budget: budget(cost, layers, overhead, overlap),
    })
}

/// Most layers a profile's window may show.
pub const MAX_WINDOW_LAYERS: u32 = 16;

/// Checks that a profile of `layers` layers of `job` on `cluster` under `par`,
/// with `overhead` per step, can be built, and returns the step's evaluation
/// and the layers of the whole step (per pipeline stage), without building
/// the schedules ([`profile`] does, after this check; a widget checks a
/// reader's change with it alone).
pub fn check_profile(
    job: &Job,
    cluster: &Cluster,
    par: &Parallelism,
    layers: u32,
    overhead: Seconds,
) -> Result<(Evaluation, u32), TrainingError> {
    if !(overhead.0.is_finite() && overhead.0 >= 0.0) {
        return Err(TrainingError::BadMesh(format!(
            "the step overhead must be a finite, non-negative time, not {} s",
            overhead.0
        )));
    }
    let evaluation = evaluate(job, cluster, par)?;
    let model_layers = (job.model.layers / par.pipeline.max(1) as u64).clamp(1, 100_000) as u32;
    if layers == 0 || layers > MAX_WINDOW_LAYERS.min(model_layers) {
        return Err(TrainingError::BadMesh(format!(
            "a profile window shows 1 to {} layers, not {layers}",
            MAX_WINDOW_LAYERS.min(model_layers)
        )));
    }
    Ok((evaluation, model_layers))
}

/// Profiles one training step of `job` on `cluster` under `par`: a window of
/// `layers` layers (1 to [`MAX_WINDOW_LAYERS`], and at most the model's) and the
/// whole model, each with and without overlap, plus `overhead` per step.
/// Fails exactly when [`check_profile`] does.
pub fn profile(
    job: &Job,
    cluster: &Cluster,
    par: &Parallelism,
    layers: u32,
    overhead: Seconds,
) -> Result<Profile, TrainingError> {
    let (evaluation, model_layers) = check_profile(job, cluster, par, layers, overhead)?;
    let names: &[&'static str] = if job.count_gate && job.model.gated {
        &["W_gate", "W_in", "W_out"]
    } else {
        &["W_in", "W_out"]
    };
    let cost = &evaluation.layer;
    let [window_overlapped, window_serial] = schedules(cost, names, layers, overhead);
    let [step_overlapped, step_serial] = schedules(cost, names, model_layers, overhead);
    Ok(Profile {
        verdict: evaluation.verdict,
        layers_shown: layers,
        window_overlapped,
        window_serial,
        step_overlapped,
        step_serial,
        evaluation,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hardware::chip;
    use crate::model::config::model;
    use crate::training::Boundary;

    fn job(model_id: &str, batch: f64) -> Job {
        Job::new(model(model_id).unwrap().config, batch, 4096.0).unwrap()
    }

    fn slice() -> Cluster {
        Cluster::new(chip("v5p").unwrap(), &[16, 16, 16], 1).unwrap()
    }

    fn no_overlap_within_lanes(t: &StepTrace) {
        for lane in Lane::ALL {
            let mut spans: Vec<&TraceOp> = t.spans.iter().filter(|s| s.lane == lane).collect();
            spans.sort_by(|a, b| a.start.0.total_cmp(&b.start.0));
            for w in spans.windows(2) {
                assert!(
                    w[1].start.0 >= w[0].end().0 - 1e-15,
                    "{} overlaps {} on {}",
                    w[0].label(),
                    w[1].label(),
                    lane.label()
                );
            }
        }
    }

    fn plans() -> Vec<(Job, Parallelism)> {
        vec![
            (job("llama3-70b", 4194304.0), Parallelism::fsdp(4096, 3)),
            (job("llama3-70b", 2097152.0), Parallelism::fsdp(4096, 3)),
            (
                job("llama3-70b", 1048576.0),
                Parallelism::fsdp_tensor(1024, 4, 2, 1),
            ),
            (
                job("llama3-8b", 262144.0),
                Parallelism::fsdp_tensor(256, 16, 2, 1),
            ),
            (
                job("llama3-8b", 4194304.0),
                Parallelism::data_parallel(4096, 3),
            ),
        ]
    }

    #[test]
    fn spans_never_overlap_within_a_lane() {
        for (j, par) in plans() {
            let p = profile(&j, &slice(), &par, 4, Seconds(1e-4)).unwrap();
            for s in [
                &p.window_overlapped,
                &p.window_serial,
                &p.step_overlapped,
                &p.step_serial,
            ] {
                no_overlap_within_lanes(&s.timeline);
                assert!(s.timeline.spans.iter().all(|x| x.duration.0 >= 0.0));
            }
        }
    }

    #[test]
    fn serial_length_is_the_sum_and_overlap_respects_the_max_bound() {
        for (j, par) in plans() {
            let p = profile(&j, &slice(), &par, 3, Seconds(2e-4)).unwrap();
            for s in [&p.window_serial, &p.step_serial] {
                let t = &s.timeline;
                assert!((t.end.0 - t.total_work().0).abs() <= 1e-12 * t.end.0);
                assert!((t.end.0 - s.budget.total().0).abs() <= 1e-9 * t.end.0);
            }
            for s in [&p.window_overlapped, &p.step_overlapped] {
                let t = &s.timeline;
                assert!(t.end.0 >= s.budget.total().0 * (1.0 - 1e-12), "{par:?}");
                assert!(t.end <= t.total_work());
                assert!(t.end.0 >= t.busy(Lane::TensorCore).0);
            }
            // The step covers every layer of the model.
            let mm = p
                .step_serial
                .timeline
                .spans
                .iter()
                .filter(|s| s.kind == OpKind::Matmul)
                .count();
            assert_eq!(mm as u64, 2 * j.model.layers);
            assert_eq!(
                p.window(true).timeline.spans.len(),
                p.window(false).timeline.spans.len()
            );
        }
    }

    #[test]
    fn bottleneck_flips_below_the_critical_batch() {
        let s = slice();
        let par = Parallelism::fsdp(4096, 3);
        let e = evaluate(&job("llama3-70b", 4194304.0), &s, &par).unwrap();
        let Boundary::At(b) = e.boundary else {
            panic!("no boundary")
        };
        assert!((b / 4096.0 - 850.0).abs() < 1e-6);
        let above = profile(&job("llama3-70b", b * 1.25), &s, &par, 3, Seconds(0.0)).unwrap();
        let below = profile(&job("llama3-70b", b * 0.75), &s, &par, 3, Seconds(0.0)).unwrap();
        assert_eq!(above.verdict, Verdict::ComputeBound);
        assert_eq!(below.verdict, Verdict::CommunicationBound);
        // Above: only the first gather and the last reduce-scatter are exposed.
        // Below: the TensorCore also waits inside every layer.
        let first = above.window(true).timeline.spans[0].duration;
        let idle = |p: &Profile| p.window(true).timeline.idle(Lane::TensorCore);
        assert!((idle(&above).0 - 2.0 * first.0).abs() < 1e-12);
        let first_below = below.window(true).timeline.spans[0].duration;
        assert!(idle(&below).0 > 3.0 * first_below.0);
        // Overlap helps whichever side of the boundary.
        for p in [&above, &below] {
            assert!(p.step(true).timeline.end < p.step(false).timeline.end);
        }
    }

    #[test]
    fn names_tables_and_overhead() {
        let j = job("llama3-70b", 1048576.0);
        let par = Parallelism::fsdp_tensor(1024, 4, 2, 1);
        let e = evaluate(&j, &slice(), &par).unwrap();
        let over = update_overhead(&e, slice().chip);
        assert!(over.0 > 0.0 && over.0 < 1e-2, "{over:?}");
        let p = profile(&j, &slice(), &par, 2, over).unwrap();
        let spans = &p.window(true).timeline.spans;
        assert!(spans.iter().any(|s| s.label() == "fusion.1 (W_in matmul)"));
        assert!(spans
            .iter()
            .any(|s| s.label().starts_with("all-gather.1 (weights)")));
        assert!(spans.iter().any(|s| s.lane == Lane::IciTensor));
        let last = spans.last().unwrap();
        assert_eq!(last.kind, OpKind::Overhead);
        assert!((last.end().0 - p.window(true).timeline.end.0).abs() < 1e-15);
        assert_eq!(
            p.window(true).timeline.lanes(),
            vec![Lane::TensorCore, Lane::Ici, Lane::IciTensor]
        );
        assert_eq!(p.top_ops(true, 4).len(), 4);
        let top = p.top_ops(true, 20);
        assert_eq!(top[0].what, "weights");
        assert!(top.windows(2).all(|w| w[0].total >= w[1].total));
        assert!(top.iter().any(|r| r.what == "W_in matmul" && r.count == 80));
        assert!(top.iter().all(|r| r.fraction > 0.0 && r.fraction <= 1.0));
    }

    #[test]
    fn bad_windows_and_overheads_are_refused() {
        let j = job("llama3-8b", 1048576.0);
        let par = Parallelism::fsdp(4096, 3);
        for (layers, over) in [(0, 0.0), (17, 0.0), (2, -1.0), (2, f64::NAN)] {
            let e = profile(&j, &slice(), &par, layers, Seconds(over));
            assert!(!e.unwrap_err().to_string().is_empty());
        }
        // A batch too small to split is the training model's error, not a panic.
        assert_eq!(
            (profile(
                &Job::new(model("llama3-8b").unwrap().config, 2048.0, 1024.0).unwrap(),
                &slice(),
                &par,
                2,
                Seconds(0.0)
            ))
            .unwrap_err()
            .to_string(),
            "2048 tokens cannot be split over 4096 data shards (less than one token each)"
        );
    }
}
