//! Pipeline schedules as timelines (Part 5, "Pipelining"). The layers are cut into
//! `S` stages on `S` devices and the batch into `M` microbatches; a microbatch's
//! forward pass walks the stages in order and its backward pass walks them back.
//! While the pipeline fills and drains some devices have nothing to do: the bubble.
//!
//! The schedules differ in the order each device runs its work:
//!
//! - **GPipe** runs every forward, then every backward; its bubble is
//!   `(S − 1) / (M + S − 1)` ([`crate::training::pipeline_bubble`]) and every microbatch's activations are held at once.
//! - **1F1B** starts backward passes as soon as it can and lets stage `s` hold at
//!   most `S − s` microbatches in flight: the same bubble, far less memory.
//! - **Interleaved** gives each device `v` smaller chunks of layers (device `s` holds
//!   chunks `s, s + S, …`) and follows Megatron-LM's fixed order (it needs `M` to
//!   be a multiple of `S`): the bubble shrinks to `(S − 1) / (v·M + S − 1)`, at the
//!   price of `v` times as many stage-to-stage sends.
//! - **Bidirectional** (after DeepSeek's DualPipe) feeds half the microbatches from
//!   each end; each device keeps the weights of its stage for both directions (two
//!   copies), and the two streams fill each other's bubbles.
//! - **Zero-bubble** (after Qi et al.'s ZB-H1, the family Part 12 calls
//!   zero-bubble pipelining) splits each backward pass in two: `B`, the gradient
//!   with respect to the stage's input, which the previous stage waits for, and
//!   `W`, the gradient with respect to the weights, which nobody waits for. Each
//!   takes half the backward time. A device runs `W`s only when it has nothing
//!   else ready, so they fill the holes 1F1B leaves while the pipeline fills and
//!   drains. A microbatch's activations stay until its `W` is done; a device
//!   admits a new microbatch under 1F1B's rule (`S − s` whose `B` is still to
//!   come) and holds at most `S` whose `W` is still to come, 1F1B's peak, so the
//!   schedule needs no more activation memory than 1F1B. The price is a program
//!   with three kinds of work per microbatch and stage instead of two, run out
//!   of order.
//! - **DualPipe** (DeepSeek-V3) combines the two: half the microbatches enter
//!   at the first device and half at the last, each device holding stage `s`
//!   of the first direction and stage `S − 1 − s` of the second (two copies of
//!   weights); some backward passes are split into `B` and a deferred `W` that
//!   fills idle time; and in the steady state a device runs a forward chunk of
//!   one direction overlapped with a full backward chunk of the other as one
//!   combined cell ([`Pass::ForwardBackward`]). Each device follows the fixed
//!   order of DeepSeek's reference implementation (`dualpipe.py`, eight
//!   phases: forwards of the device's early direction, then both directions'
//!   forwards, backwards with `W`s right behind them, the overlapped main
//!   phase, and the backwards and deferred `W`s of the tail). It needs an even
//!   number of stages, and an even number of microbatches, at least twice the
//!   stages. The overlap hides each chunk's communication (all-to-alls in
//!   DeepSeek's model), not its arithmetic, so a combined cell lasts a forward
//!   plus a backward here.
//!
//! The timeline comes from a small list scheduler (DualPipe's from its fixed
//! per-device order): each device, whenever it is
//! free, starts the most urgent piece of work whose input is ready (for the
//! interleaved schedule, the next piece of its fixed order). A send between
//! devices takes [`PipelineParams::transfer`] (zero unless set): the work it
//! carries is ready that much after the pass that produced it ends.
//!
//! ```
//! use ridgeline_core::training::pipeline::{simulate, PipelineParams, Schedule};
//! use ridgeline_core::units::Seconds;
//!
//! let p = PipelineParams::new(4, 8, Schedule::GPipe);
//! let t = simulate(&p).unwrap();
//! assert!((t.bubble - 3.0 / 11.0).abs() < 1e-12);
//! ```

use crate::units::{Bytes, Seconds};

mod dualpipe;

/// Most stages the simulator takes.
pub const MAX_STAGES: u32 = 64;
/// Most microbatches.
pub const MAX_MICROBATCHES: u32 = 256;
/// Most chunks per device (interleaved).
pub const MAX_CHUNKS: u32 = 8;

/// The order in which devices run their work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Schedule {
    /// All forwards, then all backwards.
    GPipe,
    /// One forward, one backward, with at most `S − s` microbatches in flight on stage `s`.
    OneFOneB,
    /// 1F1B over `chunks` smaller stages per device.
    Interleaved,
    /// Two 1F1B streams entering from opposite ends.
    Bidirectional,
    /// 1F1B with each backward split into `B` (input gradient) and `W` (weight
    /// gradient), the `W`s filling the bubbles.
    ZeroBubble,
    /// DeepSeek-V3's DualPipe: microbatches from both ends, deferred weight
    /// gradients, and a forward of one direction overlapped with a backward
    /// of the other.
    DualPipe,
}

impl Schedule {
    /// Every schedule.
    pub const ALL: [Schedule; 6] = [
        Schedule::GPipe,
        Schedule::OneFOneB,
        Schedule::Interleaved,
        Schedule::Bidirectional,
        Schedule::ZeroBubble,
        Schedule::DualPipe,
    ];

    /// The name used in URLs.
    pub fn name(self) -> &'static str {
        match self {
            Schedule::GPipe => "gpipe",
            Schedule::OneFOneB => "1f1b",
            Schedule::Interleaved => "interleaved",
            Schedule::Bidirectional => "bidirectional",
            Schedule::ZeroBubble => "zero-bubble",
            Schedule::DualPipe => "dualpipe",
        }
    }

    /// Parses [`Schedule::name`].
    pub fn parse(text: &str) -> Result<Schedule, String> {
        Schedule::ALL
            .into_iter()
            .find(|s| s.name() == text.trim())
            .ok_or_else(|| {
                format!(
                    "schedule: {text:?} is not gpipe, 1f1b, interleaved, bidirectional, zero-bubble or dualpipe"
                )
            })
    }
}

/// What the `pipeline` widget lets a reader set.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PipelineParams {
    /// Stages (devices), `S`.
    pub stages: u32,
    /// Microbatches, `M`.
    pub microbatches: u32,
    /// The schedule.
    pub schedule: Schedule,
    /// Chunks per device for the interleaved schedule (1 otherwise).
    pub chunks: u32,
    /// Forward time of one microbatch through one whole stage.
    pub t_forward: Seconds,
    /// Backward time of one microbatch through one whole stage (about twice the forward).
    pub t_backward: Seconds,
    /// Activations one microbatch leaves on one whole stage until its backward pass.
    pub activations: Bytes,
    /// Time to send a microbatch's activations (or their gradients) from one device
    /// to the next; zero leaves the sends untimed.
    pub transfer: Seconds,
}

impl PipelineParams {
    /// Unit forward time, twice that backward, one byte of activations, two chunks
    /// when interleaved.
    pub fn new(stages: u32, microbatches: u32, schedule: Schedule) -> PipelineParams {
        PipelineParams {
            stages,
            microbatches,
            schedule,
            chunks: if schedule == Schedule::Interleaved {
                2
            } else {
                1
            },
            t_forward: Seconds(1.0),
            t_backward: Seconds(2.0),
            activations: Bytes(1.0),
            transfer: Seconds(0.0),
        }
    }

    /// The same step with each stage-to-stage send taking `transfer`.
    pub fn with_transfer(self, transfer: Seconds) -> PipelineParams {
        PipelineParams { transfer, ..self }
    }

    /// Checks every field; the message names the bad one.
    pub fn validate(&self) -> Result<(), String> {
        if !(1..=MAX_STAGES).contains(&self.stages) {
            return Err(format!("stages: between 1 and {MAX_STAGES}"));
        }
        if !(1..=MAX_MICROBATCHES).contains(&self.microbatches) {
            return Err(format!("microbatches: between 1 and {MAX_MICROBATCHES}"));
        }
        if !(1..=MAX_CHUNKS).contains(&self.chunks) {
            return Err(format!("chunks: between 1 and {MAX_CHUNKS}"));
        }
        if self.schedule == Schedule::Interleaved && !self.microbatches.is_multiple_of(self.stages)
        {
            return Err(
                "microbatches: the interleaved schedule needs a multiple of the stages".into(),
            );
        }
        if self.chunks > 1 && self.schedule != Schedule::Interleaved {
            return Err("chunks: only the interleaved schedule splits a stage".into());
        }
        if self.schedule == Schedule::Bidirectional && self.microbatches < 2 {
            return Err("microbatches: the bidirectional schedule needs two or more".into());
        }
        if self.schedule == Schedule::DualPipe {
            if !self.stages.is_multiple_of(2) {
                return Err(format!(
                    "stages: DualPipe pairs each device with its mirror and needs an even number, not {}",
                    self.stages
                ));
            }
            let least = 2 * self.stages;
            if !self.microbatches.is_multiple_of(2) || self.microbatches < least {
                return Err(format!(
                    "microbatches: DualPipe on {} stages needs an even number (half enter from each end), at least {least}, not {}",
                    self.stages, self.microbatches
                ));
            }
        }
        for (name, v) in [
            ("t_forward", self.t_forward.0),
            ("t_backward", self.t_backward.0),
        ] {
            if !(v.is_finite() && v > 0.0) {
                return Err(format!("{name}: a positive time"));
            }
        }
        if !(self.activations.0.is_finite() && self.activations.0 >= 0.0) {
            return Err("activations: a size of zero or more".into());
        }
        if !(self.transfer.0.is_finite() && self.transfer.0 >= 0.0) {
            return Err("transfer: a time of zero or more".into());
        }
        Ok(())
    }
}

/// Forward or backward (or, in the zero-bubble and DualPipe schedules, the
/// backward pass's weight-gradient half, or a forward and a backward run as
/// one overlapped chunk).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pass {
    /// A forward pass.
    Forward,
    /// A backward pass (in the zero-bubble schedule, only its input-gradient
    /// half, `B`; in DualPipe, either, by its length).
    Backward,
    /// The weight-gradient half of a backward pass, `W` (zero-bubble and
    /// DualPipe).
    Weight,
    /// DualPipe's overlapped chunk: the forward of [`Slot::microbatch`] in one
    /// direction and the whole backward of [`Slot::paired`] in the other.
    ForwardBackward,
}

/// One bar of the timeline.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Slot {
    /// The device (stage) that runs it.
    pub device: u32,
    /// Forward, backward or weight gradient.
    pub pass: Pass,
    /// The microbatch.
    pub microbatch: u32,
    /// The chunk on this device (0 unless interleaved).
    pub chunk: u32,
    /// In a [`Pass::ForwardBackward`] cell, the microbatch whose backward runs
    /// beside the forward of [`Slot::microbatch`]; `None` otherwise.
    pub paired: Option<u32>,
    /// Start time.
    pub start: Seconds,
    /// End time.
    pub end: Seconds,
}

/// One simulated step of a pipeline schedule: every stage's passes in time,
/// the bubble, and the activations held.
#[derive(Debug, Clone, PartialEq)]
pub struct PipelineRun {
    /// Every bar, in the order they were started.
    pub slots: Vec<Slot>,
    /// Time of the whole step.
    pub step: Seconds,
    /// Fraction of device time left idle: `1 − busy / (S · step)`.
    pub bubble: f64,
    /// The most microbatch-chunks any device holds activations for at once.
    pub peak_in_flight: f64,
    /// That many activations in bytes.
    pub peak_activations: Bytes,
    /// Copies of each stage's weights a device keeps (2 for bidirectional and
    /// DualPipe).
    pub weight_copies: u32,
}

/// Megatron-LM's interleaved order for device `d`: chunk forwards in groups of `S`
/// microbatches, a warmup of `2(S − d − 1) + (v − 1)·S` of them, then one forward
/// and one backward in turn, then the remaining backwards.
fn interleaved_order(s: u32, m: u32, v: u32, d: u32) -> Vec<Op> {
    let nth = |k: u32, pass: Pass| {
        let within = k % (s * v);
        let chunk = within / s;
        let chunk = if pass == Pass::Forward {
            chunk
        } else {
            v - 1 - chunk
        };
        Op {
            m: (k / (s * v)) * s + within % s,
            vs: chunk * s + d,
            pass,
        }
    };
    let total = m * v;
    let warmup = (2 * (s - d - 1) + (v - 1) * s).min(total);
    let mut out: Vec<Op> = (0..warmup).map(|k| nth(k, Pass::Forward)).collect();
    for i in 0..total - warmup {
        out.push(nth(warmup + i, Pass::Forward));
        out.push(nth(i, Pass::Backward));
    }
    out.extend((total - warmup..total).map(|k| nth(k, Pass::Backward)));
    out
}

/// Urgency of a piece of work, smallest first: (pass class, chunk group,
/// microbatch). The class is 0 for the urgent pass, 1 for the deferred one and
/// 2 for a weight gradient, which waits for everything else.
type Rank = (u8, u32, u32);

#[derive(Clone, Copy)]
struct Op {
    m: u32,
    vs: u32,
    pass: Pass,
}

/// Simulates `p` and returns its timeline.
#[allow(
    clippy::cast_possible_truncation,
    reason = "device indices are below MAX_STAGES (checked by validate)"
)]
pub fn simulate(p: &PipelineParams) -> Result<PipelineRun, String> {
    p.validate()?;
    if p.schedule == Schedule::DualPipe {
        return dualpipe::simulate(p);
    }
    let s = p.stages;
    let v = p.chunks;
    let vstages = s * v;
    let device = |op: &Op| {
        let d = op.vs % s;
        if p.schedule == Schedule::Bidirectional && op.m % 2 == 1 {
            s - 1 - d
        } else {
            d
        }
    };
    let tf = p.t_forward / v as f64;
    let zero_bubble = p.schedule == Schedule::ZeroBubble;
    // The zero-bubble schedule splits the backward into equal B and W halves.
    let tb = p.t_backward / v as f64 / if zero_bubble { 2.0 } else { 1.0 };
    // How many microbatches a device may hold activations for before it lets a new
    // one in, per stream: 1F1B's `S − pos` for the device at position `pos` of the
    // stream. Later stages of a microbatch are never held back, so this cannot deadlock.
    let limit = |pos: u32| -> u32 {
        match p.schedule {
            Schedule::GPipe | Schedule::Interleaved => u32::MAX,
            // DualPipe follows its own order (`dualpipe.rs`) and never gets here.
            Schedule::OneFOneB
            | Schedule::Bidirectional
            | Schedule::ZeroBubble
            | Schedule::DualPipe => s - pos,
        }
    };
    let stream = |op: &Op| (p.schedule == Schedule::Bidirectional && op.m % 2 == 1) as usize;
    let mut open = vec![[0u32; 2]; s as usize];
    // The interleaved schedule follows Megatron-LM's fixed order on each device.
    let order: Vec<Vec<Op>> = if p.schedule == Schedule::Interleaved {
        (0..s)
            .map(|d| interleaved_order(s, p.microbatches, v, d))
            .collect()
    } else {
        Vec::new()
    };
    let mut next_in_order = vec![0usize; s as usize];
    let total_f = p.microbatches * vstages;
    let mut ready: Vec<Vec<(Op, Seconds)>> = vec![Vec::new(); s as usize];
    for m in 0..p.microbatches {
        let op = Op {
            m,
            vs: 0,
            pass: Pass::Forward,
        };
        ready[device(&op) as usize].push((op, Seconds(0.0)));
    }
    let mut free = vec![Seconds(0.0); s as usize];
    let mut fwd_done = vec![0u32; s as usize];
    let mut in_flight = vec![0u32; s as usize];
    let mut peak = 0u32;
    let passes = if zero_bubble { 3 } else { 2 };
    let total_slots = passes * total_f as usize;
    let mut slots = Vec::with_capacity(total_slots);
    // Urgency: backward first (GPipe: forward first), then the chunk-group order
    // (microbatches in groups of `S`, chunk by chunk), then the microbatch.
    let rank = |op: &Op| -> Rank {
        let late = match op.pass {
            Pass::Weight => 2,
            _ => u8::from((op.pass == Pass::Forward) != (p.schedule == Schedule::GPipe)),
        };
        let chunk = op.vs / s;
        let chunk = if op.pass == Pass::Forward {
            chunk
        } else {
            v - 1 - chunk
        };
        (late, (op.m / s) * v + chunk, op.m)
    };
    let forwards_per_device = p.microbatches * v;
    while slots.len() < total_slots {
        let mut best: Option<(Seconds, Rank, usize, usize)> = None;
        for d in 0..s as usize {
            let allowed = |op: &Op| match op.pass {
                _ if !order.is_empty() => order[d]
                    .get(next_in_order[d])
                    .is_some_and(|o| (o.m, o.vs, o.pass) == (op.m, op.vs, op.pass)),
                // Zero-bubble also caps the microbatches whose W is still to
                // come at 1F1B's peak, `S`, so it needs no more memory.
                Pass::Forward => {
                    op.vs >= s
                        || (open[d][stream(op)] < limit(op.vs)
                            && (!zero_bubble || in_flight[d] < s))
                }
                Pass::Backward => {
                    p.schedule != Schedule::GPipe || fwd_done[d] == forwards_per_device
                }
                Pass::Weight | Pass::ForwardBackward => true,
            };
            // The device's choice: among work ready when it frees up, the most urgent;
            // otherwise the work that becomes ready first.
            let choice = ready[d]
                .iter()
                .enumerate()
                .filter(|(_, (op, _))| allowed(op))
                .map(|(i, (op, at))| {
                    let start = free[d].max(*at);
                    (start > free[d], start, rank(op), i)
                })
                .min_by(|x, y| {
                    (x.0, x.1 .0, x.2)
                        .partial_cmp(&(y.0, y.1 .0, y.2))
                        .unwrap_or(std::cmp::Ordering::Equal)
                });
            if let Some((_, start, r, i)) = choice {
                if best.is_none_or(|(bs, br, _, _)| (start.0, r) < (bs.0, br)) {
                    best = Some((start, r, d, i));
                }
            }
        }
        let Some((start, _, d, i)) = best else {
            return Err("schedule: no device can make progress (this is a bug)".into());
        };
        let (op, _) = ready[d].swap_remove(i);
        next_in_order[d] += 1;
        let end = start + if op.pass == Pass::Forward { tf } else { tb };
        // A microbatch's activations are freed by its last pass on the stage.
        let frees = match op.pass {
            Pass::Forward => false,
            Pass::Backward => !zero_bubble,
            // The list scheduler never makes an overlapped cell (only DualPipe's order does).
            Pass::Weight | Pass::ForwardBackward => true,
        };
        free[d] = end;
        match op.pass {
            Pass::Forward => {
                fwd_done[d] += 1;
                in_flight[d] += 1;
                peak = peak.max(in_flight[d]);
                if op.vs < s {
                    open[d][stream(&op)] += 1;
                }
            }
            Pass::Backward | Pass::Weight | Pass::ForwardBackward => {
                if frees {
                    in_flight[d] -= 1;
                }
                // The 1F1B limit counts microbatches whose B is still to come.
                if op.pass == Pass::Backward && op.vs < s {
                    open[d][stream(&op)] -= 1;
                }
            }
        }
        slots.push(Slot {
            device: d as u32,
            pass: op.pass,
            microbatch: op.m,
            chunk: op.vs / s,
            paired: None,
            start,
            end,
        });
        let next = match op.pass {
            Pass::Forward if op.vs + 1 < vstages => Some(Op {
                vs: op.vs + 1,
                ..op
            }),
            Pass::Forward => Some(Op {
                pass: Pass::Backward,
                ..op
            }),
            Pass::Backward if op.vs > 0 => Some(Op {
                vs: op.vs - 1,
                ..op
            }),
            Pass::Backward | Pass::Weight | Pass::ForwardBackward => None,
        };
        if let Some(n) = next {
            // Work that moves to another device waits for the send.
            let to = device(&n);
            let at = if to == d as u32 {
                end
            } else {
                end + p.transfer
            };
            ready[to as usize].push((n, at));
        }
        if zero_bubble && op.pass == Pass::Backward {
            ready[d].push((
                Op {
                    pass: Pass::Weight,
                    ..op
                },
                end,
            ));
        }
    }
    let step = slots.iter().map(|x| x.end).fold(Seconds(0.0), Seconds::max);
    let busy = (p.t_forward + p.t_backward) * p.microbatches as f64;
    let bubble = 1.0 - busy.0 / step.0;
    Ok(PipelineRun {
        slots,
        step,
        bubble,
        peak_in_flight: peak as f64,
        peak_activations: p.activations * (peak as f64 / v as f64),
        weight_copies: if p.schedule == Schedule::Bidirectional {
            2
        } else {
            1
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_f_one_b_keeps_the_bubble_and_cuts_the_memory() {
        let g = simulate(&PipelineParams::new(4, 16, Schedule::GPipe)).unwrap();
        let o = simulate(&PipelineParams::new(4, 16, Schedule::OneFOneB)).unwrap();
        assert!(
            (o.bubble - g.bubble).abs() < 1e-12,
            "{} {}",
            o.bubble,
            g.bubble
        );
        assert_eq!(g.peak_in_flight, 16.0);
        assert_eq!(o.peak_in_flight, 4.0);
    }

    #[test]
    fn interleaving_shrinks_the_bubble() {
        let o = simulate(&PipelineParams::new(4, 8, Schedule::OneFOneB)).unwrap();
        let i = simulate(&PipelineParams::new(4, 8, Schedule::Interleaved)).unwrap();
        assert!(i.bubble < o.bubble * 0.75, "{} {}", i.bubble, o.bubble);
        // Megatron-LM's bubble: (S − 1) / (v·M + S − 1).
        assert!((i.bubble - 3.0 / 19.0).abs() < 1e-12, "{}", i.bubble);
        assert_eq!(i.slots.len(), 2 * 8 * 4 * 2);
    }

    #[test]
    fn bidirectional_fills_bubbles_with_the_other_stream() {
        let o = simulate(&PipelineParams::new(8, 16, Schedule::OneFOneB)).unwrap();
        let b = simulate(&PipelineParams::new(8, 16, Schedule::Bidirectional)).unwrap();
        assert!(b.bubble < o.bubble, "{} {}", b.bubble, o.bubble);
        assert_eq!(b.weight_copies, 2);
        // Both ends start at once.
        assert!(b.slots.iter().any(|x| x.device == 7 && x.start.0 == 0.0));
    }

    #[test]
    fn zero_bubble_fills_the_drain_with_weight_gradients() {
        for (stages, mb) in [(4u32, 8u32), (8, 16), (4, 4)] {
            let o = simulate(&PipelineParams::new(stages, mb, Schedule::OneFOneB)).unwrap();
            let z = simulate(&PipelineParams::new(stages, mb, Schedule::ZeroBubble)).unwrap();
            // With F = B = W = 1 unit, ZB-H1's idle time per device is
            // (S − 1)·(T_F + T_B − T_W) = S − 1 units against 1F1B's 3·(S − 1).
            // No schedule with 1F1B's memory does better: the first stage holds
            // at most S microbatches, then waits S − 1 units for the first B.
            let s = f64::from(stages);
            let zb_h1 = (s - 1.0) / (3.0 * f64::from(mb) + s - 1.0);
            assert!(
                z.bubble + 1e-12 >= zb_h1,
                "S={stages} M={mb}: {} < {zb_h1}",
                z.bubble
            );
            assert!(z.bubble < o.bubble * 0.7, "{} {}", z.bubble, o.bubble);
            assert_eq!(z.slots.len() as u32, 3 * stages * mb);
            // The same 1F1B limit on microbatches in flight.
            assert!(
                z.peak_in_flight <= o.peak_in_flight,
                "{} {}",
                z.peak_in_flight,
                o.peak_in_flight
            );
            // Every W runs on its B's device after that B.
            for w in z.slots.iter().filter(|x| x.pass == Pass::Weight) {
                let b = z
                    .slots
                    .iter()
                    .find(|x| {
                        x.pass == Pass::Backward
                            && x.device == w.device
                            && x.microbatch == w.microbatch
                    })
                    .unwrap();
                assert!(b.end.0 <= w.start.0 + 1e-12);
                assert!((w.end.0 - w.start.0 - 1.0).abs() < 1e-12);
            }
        }
        assert_eq!(Schedule::parse("zero-bubble"), Ok(Schedule::ZeroBubble));
    }

    /// Checks a DualPipe run of `s` stages and `m` microbatches: every
    /// microbatch's forward and backward on every stage exactly once, on the
    /// device that holds the stage for its direction; forwards in stage order
    /// and backwards in reverse, each after its input arrived; a `W` only for a
    /// split backward, after it on the same device; no device running two
    /// cells at once. Returns the message of the first broken rule.
    fn dualpipe_broken(t: &PipelineRun, p: &PipelineParams) -> Option<String> {
        let (s, m) = (p.stages, p.microbatches);
        let eps = 1e-9;
        let stage_of = |mb: u32, device: u32| {
            if mb.is_multiple_of(2) {
                device
            } else {
                s - 1 - device
            }
        };
        // (start, end) of each unit by (microbatch, stage).
        let mut f = vec![Vec::new(); (m * s) as usize];
        let mut b = vec![Vec::new(); (m * s) as usize];
        let mut w = vec![Vec::new(); (m * s) as usize];
        let at = |mb: u32, st: u32| (mb * s + st) as usize;
        for x in &t.slots {
            let len = x.end.0 - x.start.0;
            let (fwd, bwd) = match x.pass {
                Pass::Forward => (Some(x.microbatch), None),
                Pass::Backward => (None, Some(x.microbatch)),
                Pass::ForwardBackward => (Some(x.microbatch), x.paired),
                Pass::Weight => {
                    w[at(x.microbatch, stage_of(x.microbatch, x.device))]
                        .push((x.device, x.start.0, x.end.0));
                    (None, None)
                }
            };
            if x.pass == Pass::ForwardBackward {
                if x.paired.is_none_or(|b| b % 2 == x.microbatch % 2) {
                    return Some(format!(
                        "{x:?}: an overlapped cell pairs the two directions"
                    ));
                }
                if (len - p.t_forward.0 - p.t_backward.0).abs() > eps {
                    return Some(format!("{x:?}: an overlapped cell lasts F + B"));
                }
            }
            if let Some(mb) = fwd {
                f[at(mb, stage_of(mb, x.device))].push((x.device, x.start.0, x.end.0));
            }
            if let Some(mb) = bwd {
                let split = x.pass == Pass::Backward && (len - p.t_backward.0 / 2.0).abs() < eps;
                b[at(mb, stage_of(mb, x.device))].push((
                    x.device,
                    x.start.0,
                    if split { -x.end.0 } else { x.end.0 },
                ));
            }
        }
        let hop = |from: u32, to: u32| if from == to { 0.0 } else { p.transfer.0 };
        for mb in 0..m {
            for st in 0..s {
                let i = at(mb, st);
                let device = if mb.is_multiple_of(2) { st } else { s - 1 - st };
                let [(fd, fs, fe)] = f[i][..] else {
                    return Some(format!(
                        "microbatch {mb} stage {st}: {} forwards",
                        f[i].len()
                    ));
                };
                let [(bd, bs, be)] = b[i][..] else {
                    return Some(format!(
                        "microbatch {mb} stage {st}: {} backwards",
                        b[i].len()
                    ));
                };
                if fd != device || bd != device {
                    return Some(format!("microbatch {mb} stage {st} on devices {fd}, {bd}"));
                }
                if st > 0 {
                    let (pd, _, pe) = f[at(mb, st - 1)][0];
                    if fs + eps < pe + hop(pd, fd) {
                        return Some(format!(
                            "microbatch {mb}: stage {st}'s forward before stage {}'s",
                            st - 1
                        ));
                    }
                }
                let after = if st + 1 < s {
                    let (nd, _, ne) = b[at(mb, st + 1)][0];
                    ne.abs() + hop(nd, bd)
                } else {
                    fe
                };
                if bs + eps < after.max(fe) {
                    return Some(format!("microbatch {mb}: stage {st}'s backward too early"));
                }
                // A split backward (end written negative) has exactly one W after it.
                match (be < 0.0, &w[i][..]) {
                    (false, []) => {}
                    (true, [(wd, ws, _)]) if *wd == bd && *ws + eps >= -be => {}
                    (split, ws) => {
                        return Some(format!(
                            "microbatch {mb} stage {st}: split {split}, weight gradients {ws:?}"
                        ))
                    }
                }
            }
        }
        for d in 0..s {
            let mut mine: Vec<&Slot> = t.slots.iter().filter(|x| x.device == d).collect();
            mine.sort_by(|a, b| a.start.0.total_cmp(&b.start.0));
            if mine.windows(2).any(|x| x[0].end.0 > x[1].start.0 + eps) {
                return Some(format!("device {d} runs two cells at once"));
            }
        }
        None
    }

    #[test]
    fn dualpipe_keeps_the_dependencies_and_beats_one_f_one_b() {
        // Measured with F = 1, B = 2 (split: B = W = 1), the overlapped cell 3;
        // DualPipe idles S − 2 units per device, the reference README's
        // (S/2 − 1)·(F&B + B − 3W) = (S/2 − 1)·2, against 1F1B's (S − 1)·(F + B):
        //   S = 4, M = 8:  1F1B 27.3 % idle (9 of 33 units), DualPipe 8.3 % (24 + 2 units)
        //   S = 8, M = 20: 1F1B 25.9 % (21 of 81 units), DualPipe 9.1 % (60 + 6 units)
        //   S = 8, M = 16: 1F1B 30.4 % (21 of 69 units), DualPipe 11.1 % (48 + 6 units)
        for (stages, mb, ours, theirs) in [
            (4u32, 8u32, 2.0 / 26.0, 9.0 / 33.0),
            (8, 20, 6.0 / 66.0, 21.0 / 81.0),
            (8, 16, 6.0 / 54.0, 21.0 / 69.0),
        ] {
            let o = simulate(&PipelineParams::new(stages, mb, Schedule::OneFOneB)).unwrap();
            let p = PipelineParams::new(stages, mb, Schedule::DualPipe);
            let d = simulate(&p).unwrap();
            assert_eq!(dualpipe_broken(&d, &p), None, "S={stages} M={mb}");
            assert!(
                (o.bubble - theirs).abs() < 1e-9,
                "1F1B S={stages} M={mb}: {}",
                o.bubble
            );
            assert!(
                (d.bubble - ours).abs() < 1e-9,
                "DualPipe S={stages} M={mb}: {}",
                d.bubble
            );
            assert!(d.bubble < o.bubble);
            assert_eq!(d.weight_copies, 2);
            // The reference README's activation memory: S + 1 against 1F1B's S.
            assert_eq!(d.peak_in_flight, f64::from(stages + 1));
            assert_eq!(o.peak_in_flight, f64::from(stages));
            // Microbatches enter at both ends at once, and the tail ends in Ws.
            let first = |dev: u32| d.slots.iter().find(|x| x.device == dev).unwrap();
            assert_eq!((first(0).microbatch % 2, first(0).start.0), (0, 0.0));
            assert_eq!(
                (first(stages - 1).microbatch % 2, first(stages - 1).start.0),
                (1, 0.0)
            );
            assert!(d.slots.iter().any(|x| x.pass == Pass::ForwardBackward));
            let last = d
                .slots
                .iter()
                .max_by(|a, b| a.end.0.total_cmp(&b.end.0))
                .unwrap();
            assert_eq!(last.pass, Pass::Weight);
        }
    }

    #[test]
    fn dualpipe_refuses_odd_stages_and_too_few_microbatches() {
        let e =
            |s: u32, m: u32| simulate(&PipelineParams::new(s, m, Schedule::DualPipe)).unwrap_err();
        assert!(e(5, 20).starts_with("stages: DualPipe"), "{}", e(5, 20));
        assert!(e(4, 6).starts_with("microbatches: DualPipe"), "{}", e(4, 6));
        assert!(e(4, 6).contains("at least 8"));
        assert!(e(4, 9).starts_with("microbatches: DualPipe"));
        assert_eq!(Schedule::parse("dualpipe"), Ok(Schedule::DualPipe));
    }

    proptest::proptest! {
        #[test]
        fn dualpipe_holds_for_every_shape(half in 1u32..6, extra in 0u32..10, t in 0.0f64..1.5) {
            let s = 2 * half;
            let m = 2 * s + 2 * extra;
            let p = PipelineParams::new(s, m, Schedule::DualPipe).with_transfer(Seconds(t));
            let d = simulate(&p).unwrap();
            proptest::prop_assert_eq!(dualpipe_broken(&d, &p), None);
            let o = simulate(&PipelineParams::new(s, m, Schedule::OneFOneB).with_transfer(Seconds(t))).unwrap();
            proptest::prop_assert!(d.bubble >= 0.0 && d.bubble <= o.bubble + 1e-9, "{} {}", d.bubble, o.bubble);
        }
    }

    #[test]
    fn bad_fields_are_named() {
        let p = PipelineParams::new(4, 8, Schedule::GPipe);
        let e = |q: PipelineParams| simulate(&q).unwrap_err();
        assert!(e(PipelineParams { stages: 0, ..p }).starts_with("stages:"));
        assert!(e(PipelineParams { chunks: 2, ..p }).starts_with("chunks:"));
        assert!(e(PipelineParams {
            t_forward: Seconds(f64::NAN),
            ..p
        })
        .starts_with("t_forward:"));
        assert!(e(PipelineParams {
            stages: 0,
            ..PipelineParams::new(1, 1, Schedule::GPipe)
        })
        .starts_with("stages:"));
        assert!(e(p.with_transfer(Seconds(-1.0))).starts_with("transfer:"));
        assert!(Schedule::parse("zigzag")
            .unwrap_err()
            .starts_with("schedule:"));
    }

    proptest::proptest! {
        #[test]
        fn gpipe_in_units_is_the_books_figure(s in 1u32..16, m in 1u32..32) {
            let sch = simulate(&PipelineParams::new(s, m, Schedule::GPipe)).unwrap();
            let (sf, mf) = (f64::from(s), f64::from(m));
            proptest::prop_assert!((sch.step.0 - 3.0 * (mf + sf - 1.0)).abs() < 1e-9);
            proptest::prop_assert!((sch.bubble - (sf - 1.0) / (mf + sf - 1.0)).abs() < 1e-9);
            proptest::prop_assert_eq!(sch.slots.len() as u32, 2 * s * m);
        }

        #[test]
        fn a_zero_transfer_leaves_the_sends_untimed(s in 1u32..16, m in 1u32..32) {
            let p = PipelineParams::new(s, m, Schedule::GPipe);
            let untimed = simulate(&p).unwrap();
            let zero = simulate(&p.with_transfer(Seconds(0.0))).unwrap();
            proptest::prop_assert!((untimed.step.0 - zero.step.0).abs() < 1e-9);
            proptest::prop_assert!((untimed.bubble - zero.bubble).abs() < 1e-9);
        }

        #[test]
        fn transfers_only_lengthen_the_pipeline(s in 2u32..12, m in 1u32..16, t in 0.0f64..2.0) {
            let p = PipelineParams::new(s, m, Schedule::GPipe);
            let a = simulate(&p).unwrap();
            let b = simulate(&p.with_transfer(Seconds(t))).unwrap();
            proptest::prop_assert!(b.step.0 >= a.step.0 - 1e-9);
            proptest::prop_assert!(b.bubble >= a.bubble - 1e-9);
            // No device ever runs two slots at once.
            for d in 0..s {
                let mut mine: Vec<&Slot> = b.slots.iter().filter(|x| x.device == d).collect();
                mine.sort_by(|x, y| x.start.0.total_cmp(&y.start.0));
                for w in mine.windows(2) {
                    proptest::prop_assert!(w[0].end.0 <= w[1].start.0 + 1e-9);
                }
            }
        }

        #[test]
        fn gpipe_bubble_is_s_minus_1_over_m_plus_s_minus_1(s in 1u32..12, m in 1u32..40, tf in 0.1f64..5.0, tb in 0.1f64..5.0) {
            let p = PipelineParams { t_forward: Seconds(tf), t_backward: Seconds(tb), ..PipelineParams::new(s, m, Schedule::GPipe) };
            let t = simulate(&p).unwrap();
            proptest::prop_assert!((t.bubble - crate::training::pipeline_bubble(s as f64, m as f64).unwrap()).abs() < 1e-9);
            proptest::prop_assert!((t.step.0 - (m + s - 1) as f64 * (tf + tb)).abs() < 1e-9);
        }

        #[test]
        fn every_schedule_respects_dependencies_and_never_overlaps(s in 1u32..8, m in 2u32..20, which in 0usize..5, v in 1u32..4) {
            let mut p = PipelineParams::new(s, m, Schedule::ALL[which]);
            if p.schedule == Schedule::Interleaved {
                p.microbatches = m.div_ceil(s) * s;
                p.chunks = v;
            }
            let m = p.microbatches;
            let t = simulate(&p).unwrap();
            let passes = if p.schedule == Schedule::ZeroBubble { 3 } else { 2 };
            proptest::prop_assert_eq!(t.slots.len() as u32, passes * m * s * p.chunks);
            for d in 0..s {
                let mut mine: Vec<&Slot> = t.slots.iter().filter(|x| x.device == d).collect();
                mine.sort_by(|a, b| a.start.0.total_cmp(&b.start.0));
                for w in mine.windows(2) {
                    proptest::prop_assert!(w[0].end.0 <= w[1].start.0 + 1e-12);
                }
            }
            // The step is at least one microbatch's full path and at least the busiest device's work.
            // (A zero-bubble microbatch's path waits only for the B halves.)
            let path = if p.schedule == Schedule::ZeroBubble {
                (p.t_forward.0 + p.t_backward.0 / 2.0) * s as f64 + p.t_backward.0 / 2.0
            } else {
                (p.t_forward.0 + p.t_backward.0) * s as f64
            };
            let work = (p.t_forward.0 + p.t_backward.0) * m as f64;
            proptest::prop_assert!(t.step.0 + 1e-9 >= path.max(work));
            proptest::prop_assert!(t.bubble >= -1e-12 && t.bubble < 1.0);
        }
    }
}
