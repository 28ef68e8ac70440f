//! DeepSeek-V3's DualPipe schedule, after the reference implementation
//! (`deepseek-ai/DualPipe`, `dualpipe/dualpipe.py`, `DualPipe.step`).
//!
//! Two directions of microbatches cross the same `S` devices: direction 0
//! enters at device 0 and runs stage `s` on device `s`; direction 1 enters at
//! device `S − 1` and runs stage `s` on device `S − 1 − s`. Microbatch `2i` is
//! the `i`-th of direction 0 and `2i + 1` the `i`-th of direction 1, so the
//! odd ones are the second stream, as in the bidirectional schedule.
//!
//! Each device sees one direction near its start (its *early* direction:
//! direction 0 on the first half of the devices, direction 1 on the second)
//! and the other near its end (its *late* direction). With `h` the device's
//! distance from the nearer end and `H = S / 2`, its order is eight phases:
//!
//! 1. `2(H − h − 1)` forwards of the early direction;
//! 2. `h + 1` pairs: a forward of the early direction, then of the late one;
//! 3. `H − h − 1` rounds of: a backward of the late direction with its weight
//!    gradient deferred (`B`), that `W` at once, a forward of the late direction;
//! 4. the main phase, `M/2 − S + h + 1` rounds of two overlapped cells: early
//!    forward with late backward, then late forward with early backward (the
//!    two middle devices run their first early forward and late backward apart);
//! 5. `H − h − 1` rounds of: a late backward, an overlapped late forward with
//!    early backward;
//! 6. `h + 1` pairs of backwards, late then early, deferring their `W`s from
//!    the middle of the phase on;
//! 7. `H − h − 1` rounds of: a deferred `W`, an early backward deferring its own;
//! 8. the `h + 1` deferred `W`s left, oldest first.
//!
//! A device runs its order one piece after another; a piece starts when the
//! device is free and its inputs have arrived (the previous stage's forward,
//! the next stage's backward, each a [`PipelineParams::transfer`] later when
//! it comes from another device).

use super::{Pass, PipelineParams, PipelineRun, Slot};
use crate::units::Seconds;

/// One piece of a device's order, in the device's own terms: `early` is the
/// direction in which the device is in the first half of the pipeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Piece {
    /// A forward chunk (`early` or not).
    F(bool),
    /// A backward chunk; `true` in the second field defers its weight gradient.
    B(bool, bool),
    /// A forward chunk of the first direction overlapped with a whole
    /// backward chunk of the second.
    Fb(bool, bool),
    /// The oldest deferred weight gradient.
    W,
}

/// The order of device `d` of `s` for `m` microbatches (both directions).
fn order(s: u32, m: u32, d: u32) -> Vec<Piece> {
    use Piece::{Fb, B, F, W};
    let half = s / 2;
    let h = d.min(s - 1 - d);
    let middle = h == half - 1;
    let (early, late) = (true, false);
    let mut out = Vec::new();
    // 1. Forwards of the early direction.
    out.extend((0..2 * (half - h - 1)).map(|_| F(early)));
    // 2. Both directions' forwards.
    for _ in 0..=h {
        out.extend([F(early), F(late)]);
    }
    // 3. Late backwards with their W at once, then a late forward.
    for _ in 0..half - h - 1 {
        out.extend([B(late, true), W, F(late)]);
    }
    // 4. The main phase: two overlapped cells a round.
    for i in 0..m / 2 + h + 1 - s {
        if i == 0 && middle {
            out.extend([F(early), B(late, false)]);
        } else {
            out.push(Fb(early, late));
        }
        out.push(Fb(late, early));
    }
    // 5. A late backward, then late forward overlapped with early backward.
    for _ in 0..half - h - 1 {
        out.extend([B(late, false), Fb(late, early)]);
    }
    // 6. Backwards of both directions, deferring W from the middle on.
    // The reference turns deferral on at round (h + 1) / 2, before the late
    // backward when h is odd and after it when h is even.
    let (turn, odd) = (h.div_ceil(2), !h.is_multiple_of(2));
    let mut defer = false;
    for i in 0..=h {
        if i == turn && odd {
            defer = true;
        }
        out.push(B(late, defer));
        if i == turn && !odd {
            defer = true;
        }
        out.push(B(early, defer));
    }
    // 7. A deferred W, then an early backward deferring its own.
    for _ in 0..half - h - 1 {
        out.extend([W, B(early, true)]);
    }
    // 8. The deferred Ws left.
    out.extend((0..=h).map(|_| W));
    out
}

/// A unit of work of one microbatch on one stage: `(direction, index within
/// the direction, stage)`.
type Unit = (usize, u32, u32);

/// End times of each microbatch's forward and backward (input-gradient part)
/// on each stage, by direction.
struct Done {
    s: u32,
    half_m: u32,
    fwd: Vec<Option<Seconds>>,
    bwd: Vec<Option<Seconds>>,
}

impl Done {
    #[allow(
        clippy::cast_possible_truncation,
        reason = "dir is 0 or 1; stages and microbatches are bounded by MAX_STAGES and MAX_MICROBATCHES"
    )]
    fn at(&self, (dir, i, st): Unit) -> usize {
        ((dir as u32 * self.half_m + i) * self.s + st) as usize
    }
}

/// Simulates DualPipe; `p` is valid and its schedule is DualPipe.
#[allow(clippy::cast_possible_truncation, reason = "a direction is 0 or 1")]
pub(super) fn simulate(p: &PipelineParams) -> Result<PipelineRun, String> {
    let (s, m) = (p.stages, p.microbatches);
    let half_m = m / 2;
    let (tf, tb) = (p.t_forward, p.t_backward);
    // The stage device `d` runs for direction `dir`, and back.
    let stage = |dir: usize, d: u32| if dir == 0 { d } else { s - 1 - d };
    let orders: Vec<Vec<Piece>> = (0..s).map(|d| order(s, m, d)).collect();
    let mut next = vec![0usize; s as usize];
    // Per device and direction, the next microbatch to go forward and backward.
    let mut next_f = vec![[0u32; 2]; s as usize];
    let mut next_b = vec![[0u32; 2]; s as usize];
    let mut deferred: Vec<std::collections::VecDeque<Unit>> =
        vec![std::collections::VecDeque::new(); s as usize];
    let mut done = Done {
        s,
        half_m,
        fwd: vec![None; (m * s) as usize],
        bwd: vec![None; (m * s) as usize],
    };
    let mut free = vec![Seconds(0.0); s as usize];
    let mut in_flight = vec![0u32; s as usize];
    let mut peak = 0u32;
    let mut slots = Vec::new();
    let total: usize = orders.iter().map(Vec::len).sum();
    let mut placed = 0;
    // When the input of a unit's forward or backward is ready on device `d`, if
    // it has arrived: the previous stage's forward, the next stage's backward
    // (the last stage's backward waits for its own forward).
    let arrive = |at: Seconds, from: u32, d: u32| {
        if from == d {
            at
        } else {
            at + p.transfer
        }
    };
    let device = |dir: usize, st: u32| if dir == 0 { st } else { s - 1 - st };
    while placed < total {
        let before = placed;
        for d in 0..s {
            let du = d as usize;
            let Some(&piece) = orders[du].get(next[du]) else {
                continue;
            };
            // The directions of the device's early and late halves.
            let dir_of = |early: bool| usize::from((d >= s / 2) == early);
            let f_unit = |early: bool| {
                let dir = dir_of(early);
                (dir, next_f[du][dir], stage(dir, d))
            };
            let b_unit = |early: bool| {
                let dir = dir_of(early);
                (dir, next_b[du][dir], stage(dir, d))
            };
            let f_ready = |u: Unit| -> Option<Seconds> {
                let (dir, i, st) = u;
                if i >= half_m {
                    return None;
                }
                if st == 0 {
                    return Some(Seconds(0.0));
                }
                let prev = (dir, i, st - 1);
                done.fwd[done.at(prev)].map(|t| arrive(t, device(dir, st - 1), d))
            };
            let b_ready = |u: Unit| -> Option<Seconds> {
                let (dir, i, st) = u;
                // Its own forward first, on this device.
                let own = done.fwd[done.at(u)]?;
                if st == s - 1 {
                    return Some(own);
                }
                let after = (dir, i, st + 1);
                done.bwd[done.at(after)].map(|t| arrive(t, device(dir, st + 1), d))
            };
            let (ready, length) = match piece {
                Piece::F(e) => (f_ready(f_unit(e)), tf),
                Piece::B(e, defer) => (b_ready(b_unit(e)), if defer { tb / 2.0 } else { tb }),
                Piece::Fb(e, l) => (
                    f_ready(f_unit(e))
                        .zip(b_ready(b_unit(l)))
                        .map(|(a, b)| a.max(b)),
                    tf + tb,
                ),
                Piece::W => (
                    deferred[du].front().and_then(|&u| done.bwd[done.at(u)]),
                    tb / 2.0,
                ),
            };
            let Some(ready) = ready else {
                continue;
            };
            let start = free[du].max(ready);
            let end = start + length;
            free[du] = end;
            next[du] += 1;
            placed += 1;
            let id = |(dir, i, _): Unit| 2 * i + dir as u32;
            let mut slot = |pass: Pass, microbatch: u32, paired: Option<u32>| {
                slots.push(Slot {
                    device: d,
                    pass,
                    microbatch,
                    chunk: 0,
                    paired,
                    start,
                    end,
                });
            };
            match piece {
                Piece::F(e) => {
                    let u = f_unit(e);
                    let at = done.at(u);
                    done.fwd[at] = Some(end);
                    next_f[du][u.0] += 1;
                    in_flight[du] += 1;
                    peak = peak.max(in_flight[du]);
                    slot(Pass::Forward, id(u), None);
                }
                Piece::B(e, defer) => {
                    let u = b_unit(e);
                    let at = done.at(u);
                    done.bwd[at] = Some(end);
                    next_b[du][u.0] += 1;
                    if defer {
                        deferred[du].push_back(u);
                    } else {
                        in_flight[du] -= 1;
                    }
                    slot(Pass::Backward, id(u), None);
                }
                Piece::Fb(e, l) => {
                    let (fu, bu) = (f_unit(e), b_unit(l));
                    let (fa, ba) = (done.at(fu), done.at(bu));
                    done.fwd[fa] = Some(end);
                    done.bwd[ba] = Some(end);
                    next_f[du][fu.0] += 1;
                    next_b[du][bu.0] += 1;
                    // Both chunks' activations are held while they overlap.
                    peak = peak.max(in_flight[du] + 1);
                    slot(Pass::ForwardBackward, id(fu), Some(id(bu)));
                }
                Piece::W => {
                    if let Some(u) = deferred[du].pop_front() {
                        in_flight[du] -= 1;
                        slot(Pass::Weight, id(u), None);
                    }
                }
            }
        }
        if placed == before {
            return Err("schedule: DualPipe's order is stuck (this is a bug)".into());
        }
    }
    if deferred.iter().any(|q| !q.is_empty()) {
        return Err("schedule: DualPipe left a weight gradient undone (this is a bug)".into());
    }
    let step = slots.iter().map(|x| x.end).fold(Seconds(0.0), Seconds::max);
    let busy = (tf + tb) * m as f64;
    Ok(PipelineRun {
        bubble: 1.0 - busy.0 / step.0,
        step,
        slots,
        peak_in_flight: peak as f64,
        peak_activations: p.activations * peak as f64,
        weight_copies: 2,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_device_runs_each_direction_s_microbatches_in_the_reference_order() {
        // Eight devices, twenty microbatches (the README's figure): device 0
        // (h = 0) starts with 2·(4 − 0 − 1) = 6 forwards of its early direction.
        let o = order(8, 20, 0);
        assert_eq!(&o[..6], &[Piece::F(true); 6]);
        assert_eq!(&o[6..8], &[Piece::F(true), Piece::F(false)]);
        // Each device does ten forwards and ten backwards per direction.
        for d in 0..8 {
            let o = order(8, 20, d);
            let count = |early: bool| {
                let f = o
                    .iter()
                    .filter(|p| matches!(p, Piece::F(e) | Piece::Fb(e, _) if *e == early))
                    .count();
                let b = o
                    .iter()
                    .filter(|p| matches!(p, Piece::B(e, _) | Piece::Fb(_, e) if *e == early))
                    .count();
                (f, b)
            };
            assert_eq!(count(true), (10, 10), "device {d}");
            assert_eq!(count(false), (10, 10), "device {d}");
            let deferred = o.iter().filter(|p| matches!(p, Piece::B(_, true))).count();
            let ws = o.iter().filter(|p| **p == Piece::W).count();
            assert_eq!(deferred, ws, "device {d}");
        }
    }
}
