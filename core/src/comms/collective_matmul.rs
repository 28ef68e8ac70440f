//! Overlapping communication with compute (Part 3, "How to overlap matmul
//! communication with compute", and its `ag_matmul` animation), and the measured
//! AllGather bandwidth against message size (`all-gather-bandwidth`).
//!
//! To multiply `A[I_X, J] · B[J, K] → C[I, K]` each device needs all of `A`.
//! The plain way gathers `A` first and multiplies afterwards, paying
//! `T_comms + T_math`. A collective matmul instead passes the blocks of `A`
//! around the ring with `ppermute`, one step at a time, and multiplies the block
//! it already holds while the next one travels. Each step costs the larger of a
//! block's compute and a block's transfer, so the whole takes at least
//! `max(T_math, T_comms)` and, when the two are balanced, little more.
//!
//! On a bidirectional ring blocks travel both ways at once, so after the first
//! step each device receives (and multiplies) two blocks per step.
//!
//! The same trick hides the ReduceScatter of Part 3's case 3, where both
//! operands are sharded on the contracting dimension:
//! `A[I, J_X] · B[J_X, K] → C[I, K]{U_X}`, reduced and scattered to
//! `C[I, K_X]` ([`MatmulCase::ReduceScatter`]). Each device computes its
//! partial sum of one column chunk of `C` per step, adds it to the running sum
//! that arrived from its neighbour, and passes the sum on while it computes the
//! next chunk; after `X` steps every device holds the full sum of its own chunk.
//! On a bidirectional ring each chunk is split in halves that travel opposite
//! ways, so each transfer carries half as many bytes.
//!
//! Every step is built from two costs, computed here and nowhere else:
//! [`chunk_matmul`], one block's matmul on the chip's roofline (its FLOPs
//! against its HBM bytes), and [`ppermute`], one block's hop to a neighbour
//! (its bytes over the one-way link, or the hop latency if that is larger, as
//! every hop of [`collectives::cost`]). [`gather_ring`] steps the ring; Part
//! 10's timelines ([`crate::comms::overlap_timeline`]) are built on the same
//! three.
//!
//! ```
//! use ridgeline_core::comms::collective_matmul::{collective_matmul, CollectiveMatmulParams};
//! use ridgeline_core::hardware::chip;
//!
//! let p = CollectiveMatmulParams::new(chip("v5e").unwrap(), 8, 8192, 8192, 4096);
//! let r = collective_matmul(&p).unwrap();
//! assert!(r.overlapped < r.blocking);
//! assert!(r.overlapped.0 >= r.compute.0.max(r.ring_comms.0));
//! ```

use crate::check::is_positive;
use crate::comms::collectives::{self, Collective, Network, RingAxis};
use crate::dtype::Dtype;
use crate::hardware::{
    Chip, Link, ALLGATHER_MEASURED_ACHIEVED, ALLGATHER_MEASURED_FRACTION,
    ALLGATHER_MEASURED_PEAK_AT, ALLGATHER_MEASURED_RING,
};
use crate::roofline::Analysis;
use crate::units::{Bytes, BytesPerSec, Flops, FlopsPerSec, Seconds};

/// Which operand is sharded, and so which collective the ring hides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatmulCase {
    /// `A[I_X, J] · B[J, K]`: the rows of `A` are sharded and gathered (an
    /// AllGather overlapped with the matmul).
    AllGather,
    /// `A[I, J_X] · B[J_X, K] → C[I, K_X]`: both operands are sharded on the
    /// contracting dimension and the partial sums are reduce-scattered (Part 3's
    /// case 3, a ReduceScatter overlapped with the matmul).
    ReduceScatter,
}

impl MatmulCase {
    /// The name used in URLs and chapter arguments.
    pub fn id(self) -> &'static str {
        match self {
            MatmulCase::AllGather => "allgather",
            MatmulCase::ReduceScatter => "reducescatter",
        }
    }

    /// The case named `id`.
    pub fn parse(id: &str) -> Option<MatmulCase> {
        match id.trim() {
            "allgather" => Some(MatmulCase::AllGather),
            "reducescatter" => Some(MatmulCase::ReduceScatter),
            _ => None,
        }
    }

    /// The product in the book's notation.
    pub fn notation(self) -> &'static str {
        match self {
            MatmulCase::AllGather => "A[I_X, J] · B[J, K] → C[I, K]",
            MatmulCase::ReduceScatter => "A[I, J_X] · B[J_X, K] → C[I, K]{U_X} → C[I, K_X]",
        }
    }
}

/// A collective matmul's shapes and machine.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CollectiveMatmulParams {
    /// Which operand is sharded.
    pub case: MatmulCase,
    /// Devices in the ring (the mesh axis `A` is sharded over).
    pub devices: u32,
    /// Rows of `A` (all devices together).
    pub i: u64,
    /// The contracting dimension.
    pub j: u64,
    /// Columns of `B` each device holds ([`MatmulCase::AllGather`]), or all
    /// columns of `B` and `C` ([`MatmulCase::ReduceScatter`], where each device
    /// ends with `K / X` of them).
    pub k: u64,
    /// Element format.
    pub dtype: Dtype,
    /// The ring's links.
    pub network: Network,
    /// Peak FLOPs/s of one device.
    pub peak: FlopsPerSec,
    /// HBM bandwidth of one device, the other side of a block's roofline.
    pub hbm: BytesPerSec,
}

impl CollectiveMatmulParams {
    /// bf16 on `chip`'s ICI ring of `devices` with wraparound, at its bf16 peak.
    pub fn new(
        chip: &'static Chip,
        devices: u32,
        i: u64,
        j: u64,
        k: u64,
    ) -> CollectiveMatmulParams {
        let network = Network::ici(chip).unwrap_or(Network {
            name: chip.name,
            bidi: BytesPerSec(f64::NAN),
            one_way: BytesPerSec(f64::NAN),
            hop_latency: Seconds(f64::NAN),
            bidirectional: true,
        });
        CollectiveMatmulParams {
            case: MatmulCase::AllGather,
            devices,
            i,
            j,
            k,
            dtype: Dtype::Bf16,
            network,
            peak: chip.peak(Dtype::Bf16).unwrap_or(FlopsPerSec(f64::NAN)),
            hbm: chip.hbm_bw(),
        }
    }

    /// Checks the fields, naming the first bad one.
    pub fn validate(&self) -> Result<(), String> {
        if !(2..=1024).contains(&self.devices) {
            return Err(format!(
                "the ring must have 2 to 1024 devices, not {}",
                self.devices
            ));
        }
        for (v, what) in [(self.i, "I"), (self.j, "J"), (self.k, "K")] {
            if v == 0 {
                return Err(format!("{what} must be at least 1"));
            }
        }
        let n = self.devices as u64;
        let even: &[(u64, &str)] = match self.case {
            MatmulCase::AllGather => &[(self.i, "I")],
            MatmulCase::ReduceScatter => &[(self.j, "J"), (self.k, "K")],
        };
        for &(v, what) in even {
            if !v.is_multiple_of(n) {
                return Err(format!(
                    "{what} = {v} must divide evenly over {} devices",
                    self.devices
                ));
            }
        }
        if !is_positive(self.network.one_way.0) {
            return Err(format!(
                "{} has no ICI bandwidth in the book",
                self.network.name
            ));
        }
        if !is_positive(self.peak.0) {
            return Err("the peak FLOPs/s must be a finite positive number".into());
        }
        if !is_positive(self.hbm.0) {
            return Err("the HBM bandwidth must be a finite positive number".into());
        }
        Ok(())
    }
}

/// One step of the overlapped ring.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RingStep {
    /// Step number, from 0.
    pub index: u32,
    /// Blocks of `A` multiplied during the step (for a ReduceScatter: chunks of
    /// `C` whose partial sum is computed, a bidirectional ring's two halves
    /// counting as one chunk).
    pub blocks: u32,
    /// Their compute time ([`chunk_matmul`] each).
    pub compute: Seconds,
    /// The transfer running alongside (zero in the last step of an AllGather,
    /// in the first step of a ReduceScatter).
    pub comms: Seconds,
    /// When the step starts.
    pub start: Seconds,
    /// When it ends: `start + max(compute, comms)`.
    pub end: Seconds,
}

/// Blocking vs overlapped.
#[derive(Debug, Clone, PartialEq)]
pub struct CollectiveMatmul {
    /// The whole matmul's time per device: its blocks' [`chunk_matmul`] times.
    pub compute: Seconds,
    /// The blocking collective (the cost model of [`crate::comms::collectives`]): the
    /// AllGather of `A`, or the ReduceScatter of `C`.
    pub gather: Seconds,
    /// Gather, then multiply (or multiply, then reduce-scatter).
    pub blocking: Seconds,
    /// The ring's transfers added up.
    pub ring_comms: Seconds,
    /// The overlapped ring's finish time.
    pub overlapped: Seconds,
    /// `blocking − overlapped`.
    pub saved: Seconds,
    /// The ring's steps, for the timeline.
    pub steps: Vec<RingStep>,
}

/// Times both ways of doing the matmul: the blocking collective plus the
/// whole matmul, against the overlapped ring.
pub fn collective_matmul(p: &CollectiveMatmulParams) -> Result<CollectiveMatmul, String> {
    p.validate()?;
    if p.case == MatmulCase::ReduceScatter {
        return reduce_scatter_matmul(p);
    }
    let n = p.devices;
    let rows = (p.i / n as u64) as f64;
    let block = p.dtype.size_of(rows * p.j as f64);
    let t_block = chunk_matmul(rows, p.j as f64, p.k as f64, p.dtype, p.peak, p.hbm);
    let compute = t_block * n as f64;
    let gathered = block * n as f64;
    let ring = RingAxis::ring(n);
    let gather = collectives::cost(Collective::AllGather, gathered, &[ring], &p.network)
        .map_err(|e| e.to_string())?
        .time;
    let steps = gather_ring(
        n,
        p.network.bidirectional,
        t_block,
        ppermute(block, &p.network),
    );
    let ring_comms = steps.iter().map(|s| s.comms).sum();
    let clock = steps.last().map_or(Seconds(0.0), |s| s.end);
    let blocking = gather + compute;
    Ok(CollectiveMatmul {
        compute,
        gather,
        blocking,
        ring_comms,
        overlapped: clock,
        saved: blocking - clock,
        steps,
    })
}

/// The roofline time of one block's matmul `[rows, k] · [k, cols]` in `dtype`
/// on a device of peak `peak` and HBM bandwidth `hbm`: its `2 · rows · k · cols`
/// FLOPs against the HBM bytes of both operands and the result, overlapped
/// (Part 1). Every step of a collective matmul multiplies such blocks.
pub fn chunk_matmul(
    rows: f64,
    k: f64,
    cols: f64,
    dtype: Dtype,
    peak: FlopsPerSec,
    hbm: BytesPerSec,
) -> Seconds {
    let bytes = dtype.size_of(rows * k + k * cols + rows * cols);
    Analysis::new(
        Flops(2.0 * rows * k * cols),
        peak,
        &[(Link::Hbm, bytes, hbm)],
    )
    .lower
}

/// One `ppermute` of `bytes` to a ring neighbour over `net`: one hop, the
/// larger of the bytes over the one-way link and the hop latency `T_min`, as
/// each hop of [`collectives::cost`] costs.
pub fn ppermute(bytes: Bytes, net: &Network) -> Seconds {
    let bandwidth = bytes / net.one_way;
    if bandwidth > net.hop_latency {
        bandwidth
    } else {
        net.hop_latency
    }
}

/// The overlapped ring of an AllGather collective matmul over `devices`: each
/// step multiplies the blocks that arrived (`t_block` each) while the next
/// ones travel (`hop`), and ends when both are done. One way round the ring
/// that is `devices` steps of one block, the last without a transfer; both
/// ways, after the first step each device receives and multiplies two blocks
/// per step, in about half the steps.
pub fn gather_ring(
    devices: u32,
    bidirectional: bool,
    t_block: Seconds,
    hop: Seconds,
) -> Vec<RingStep> {
    let n = devices.max(1);
    // Blocks arriving from the left for `right` steps and from the right for `left`.
    let (right, left) = if bidirectional {
        (n / 2, (n - 1) / 2)
    } else {
        (n - 1, 0)
    };
    let mut steps = Vec::with_capacity(right as usize + 1);
    let mut clock = Seconds(0.0);
    for s in 0..=right {
        let blocks = if s == 0 {
            1
        } else {
            u32::from(s <= right) + u32::from(s <= left)
        };
        let comms = if s < right { hop } else { Seconds(0.0) };
        let c = t_block * blocks as f64;
        let end = clock + c.max(comms);
        steps.push(RingStep {
            index: s,
            blocks,
            compute: c,
            comms,
            start: clock,
            end,
        });
        clock = end;
    }
    steps
}

/// Case 3: each device multiplies its `A[I, J/X]` by one `K/X`-column chunk of
/// its `B[J/X, K]` per step and passes the running sum on.
fn reduce_scatter_matmul(p: &CollectiveMatmulParams) -> Result<CollectiveMatmul, String> {
    let n = p.devices;
    let (i, j_local, k_chunk) = (p.i as f64, (p.j / n as u64) as f64, (p.k / n as u64) as f64);
    let t_block = chunk_matmul(i, j_local, k_chunk, p.dtype, p.peak, p.hbm);
    let compute = t_block * n as f64;
    // The unreduced `C[I, K]{U_X}` each device holds: the book's `V`.
    let unreduced = p.dtype.size_of(i * p.k as f64);
    let ring = RingAxis::ring(n);
    let scatter = collectives::cost(Collective::ReduceScatter, unreduced, &[ring], &p.network)
        .map_err(|e| e.to_string())?
        .time;
    // A running sum is one chunk of `C`; both ways round, each half of it.
    let ways = if p.network.bidirectional { 2.0 } else { 1.0 };
    let chunk = p.dtype.size_of(i * k_chunk);
    let hop = ppermute(chunk / ways, &p.network);
    let mut steps = Vec::with_capacity(n as usize);
    let mut clock = Seconds(0.0);
    let mut ring_comms = Seconds(0.0);
    for s in 0..n {
        // The sum computed in the previous step travels during this one.
        let comms = if s > 0 { hop } else { Seconds(0.0) };
        ring_comms += comms;
        let end = clock + t_block.max(comms);
        steps.push(RingStep {
            index: s,
            blocks: 1,
            compute: t_block,
            comms,
            start: clock,
            end,
        });
        clock = end;
    }
    let blocking = compute + scatter;
    Ok(CollectiveMatmul {
        compute,
        gather: scatter,
        blocking,
        ring_comms,
        overlapped: clock,
        saved: blocking - clock,
        steps,
    })
}

/// Which chunk of `C` each device works on at each step of the
/// reduce-scattering ring of [`collective_matmul`] with
/// [`MatmulCase::ReduceScatter`]: `schedule[step][device]`. `held` is the
/// device's own shard (block `d` of `A` and `B`), `multiplies` the chunks of `C`
/// whose partial sum it computes (one way round the ring, chunk `d − s − 1`;
/// the other way, chunk `d + s + 1`), and `sends` the running sums it passes on
/// (computed in the previous step) with the neighbour they go to. At the last
/// step every device computes its own chunk `d`. Returns an empty schedule for
/// fewer than 2 devices.
pub fn reduce_scatter_schedule(devices: u32, bidirectional: bool) -> Vec<Vec<DeviceStep>> {
    let n = devices;
    if n < 2 {
        return Vec::new();
    }
    let back = |d: u32, k: u32| (d + n - k % n) % n;
    let ahead = |d: u32, k: u32| (d + k) % n;
    (0..n)
        .map(|s| {
            (0..n)
                .map(|d| {
                    let mut multiplies = vec![back(d, s + 1)];
                    let mut sends = Vec::new();
                    if s > 0 {
                        sends.push((back(d, s), ahead(d, 1)));
                    }
                    if bidirectional {
                        multiplies.push(ahead(d, s + 1));
                        if s > 0 {
                            sends.push((ahead(d, s), back(d, 1)));
                        }
                    }
                    DeviceStep {
                        held: vec![d],
                        multiplies,
                        sends,
                    }
                })
                .collect()
        })
        .collect()
}

/// What one device does during one step of the overlapped ring.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceStep {
    /// The blocks of `A` (numbered by the device that started with them) the
    /// device holds when the step starts.
    pub held: Vec<u32>,
    /// The blocks it multiplies during the step.
    pub multiplies: Vec<u32>,
    /// The `ppermute`s it starts during the step: the block and the neighbour
    /// it goes to (it arrives for the next step).
    pub sends: Vec<(u32, u32)>,
}

/// Which block each device holds, multiplies and sends at each step of the
/// ring of [`collective_matmul`]: `schedule[step][device]`. Device `d` starts
/// with block `d`; a block received from the left at step `s` is `d − s`, one
/// from the right is `d + s` (round the ring). Returns an empty schedule for
/// fewer than 2 devices.
pub fn ring_schedule(devices: u32, bidirectional: bool) -> Vec<Vec<DeviceStep>> {
    let n = devices;
    if n < 2 {
        return Vec::new();
    }
    let (right, left) = if bidirectional {
        (n / 2, (n - 1) / 2)
    } else {
        (n - 1, 0)
    };
    let at = |d: u32, back: u32| (d + n - back % n) % n;
    let ahead = |d: u32, fwd: u32| (d + fwd) % n;
    (0..=right)
        .map(|s| {
            (0..n)
                .map(|d| {
                    let mut held = vec![d];
                    held.extend((1..=s.min(right)).map(|k| at(d, k)));
                    held.extend((1..=s.min(left)).map(|k| ahead(d, k)));
                    held.sort_unstable();
                    let mut multiplies = vec![at(d, s)];
                    if s >= 1 && s <= left {
                        multiplies.push(ahead(d, s));
                    }
                    let mut sends = Vec::new();
                    if s < right {
                        sends.push((at(d, s), ahead(d, 1)));
                    }
                    if s < left {
                        sends.push((ahead(d, s), at(d, 1)));
                    }
                    DeviceStep {
                        held,
                        multiplies,
                        sends,
                    }
                })
                .collect()
        })
        .collect()
}

/// One point of the AllGather-vs-message-size curve.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GatherPoint {
    /// Bytes gathered (the book's `V`).
    pub bytes: Bytes,
    /// The cost model's time.
    pub time: Seconds,
    /// Bytes gathered per second of that time, `V / T`: the figure's orange curve.
    pub achieved: BytesPerSec,
    /// The one-way link bandwidth the book infers from the time,
    /// `V · (X − 1) / (2 · X · T)`: the figure's blue curve.
    pub link_bandwidth: BytesPerSec,
    /// That over the link's one-way peak.
    pub fraction: f64,
}

/// The curve and its landmarks.
#[derive(Debug, Clone, PartialEq)]
pub struct GatherCurve {
    /// Points from `from` to `to`, evenly spaced in `log V`.
    pub points: Vec<GatherPoint>,
    /// Where latency and bandwidth terms meet: below it the gather is latency-bound.
    pub knee: Bytes,
    /// The model's `V / T` once the bandwidth term alone counts (large arrays).
    pub achieved_limit: BytesPerSec,
    /// The model's inferred link bandwidth over the one-way peak for large
    /// arrays: `(X − 1) / X` on a full bidirectional ring, since the book's
    /// inference counts `X − 1` of the `X` pieces.
    pub fraction_limit: f64,
    /// The book's measurement: the fraction of peak it reached…
    pub measured_fraction: f64,
    /// …and the message size at which it reached it…
    pub measured_at: Bytes,
    /// …on a ring of this many devices…
    pub measured_ring: u32,
    /// …where the bytes gathered per second tended to this.
    pub measured_achieved: BytesPerSec,
}

impl GatherCurve {
    /// One device's shard of the array at which the book's measurement peaked.
    pub fn measured_per_device(&self) -> Bytes {
        self.measured_at / self.measured_ring as f64
    }
}

/// The cost model's AllGather along `axis` on `net` for `points` message
/// sizes from `from` to `to`, with the two bandwidths the book's figure plots,
/// beside the book's measurement (a v5e ring of 16).
pub fn gather_curve(
    net: &Network,
    axis: RingAxis,
    from: Bytes,
    to: Bytes,
    points: usize,
) -> Result<GatherCurve, String> {
    let devices = axis.size;
    if !(2..=1024).contains(&devices) {
        return Err(format!(
            "the ring must have 2 to 1024 devices, not {devices}"
        ));
    }
    if !(from.0 > 0.0 && to.0 > from.0 && to.0.is_finite()) {
        return Err("the sizes must satisfy 0 < from < to".into());
    }
    if !(2..=2000).contains(&points) {
        return Err(format!("use 2 to 2000 points, not {points}"));
    }
    let ring = [axis];
    let x = devices as f64;
    // The book's inference: V · (X − 1) / (2 · X · T).
    let share = (x - 1.0) / (2.0 * x);
    let (l0, l1) = (from.0.ln(), to.0.ln());
    let mut out = Vec::with_capacity(points);
    for n in 0..points {
        let v = Bytes((l0 + (l1 - l0) * n as f64 / (points - 1) as f64).exp());
        let c =
            collectives::cost(Collective::AllGather, v, &ring, net).map_err(|e| e.to_string())?;
        let link = BytesPerSec(v.0 * share / c.time.0);
        out.push(GatherPoint {
            bytes: v,
            time: c.time,
            achieved: BytesPerSec(v.0 / c.time.0),
            link_bandwidth: link,
            fraction: link.0 / net.one_way.0,
        });
    }
    let c = collectives::cost(Collective::AllGather, Bytes(1.0), &ring, net)
        .map_err(|e| e.to_string())?;
    // The latency term is constant; the bandwidth term grows linearly in V.
    let knee = Bytes(c.t_latency.0 / c.t_bandwidth.0);
    let achieved_limit = BytesPerSec(1.0 / c.t_bandwidth.0);
    Ok(GatherCurve {
        points: out,
        knee,
        achieved_limit,
        fraction_limit: achieved_limit.0 * share / net.one_way.0,
        measured_fraction: ALLGATHER_MEASURED_FRACTION.value,
        measured_at: ALLGATHER_MEASURED_PEAK_AT.value,
        measured_ring: ALLGATHER_MEASURED_RING.value,
        measured_achieved: ALLGATHER_MEASURED_ACHIEVED.value,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hardware::chip;
    use proptest::prelude::*;

    /// Every block (or chunk) device `d` multiplies over the schedule, sorted.
    fn multiplied_by(sched: &[Vec<DeviceStep>], d: usize) -> Vec<u32> {
        let mut all: Vec<u32> = sched
            .iter()
            .flat_map(|row| row[d].multiplies.clone())
            .collect();
        all.sort_unstable();
        all
    }

    #[test]
    fn the_curve_saturates_after_the_knee() {
        let net = Network::ici(chip("v5e").unwrap()).unwrap();
        let c = gather_curve(&net, RingAxis::ring(16), Bytes(1e3), Bytes(1e9), 61).unwrap();
        // 8 hops of 1 µs against 9e10 B/s: the knee is at 720 kB.
        assert!((c.knee.0 - 8e-6 * 9e10).abs() < 1.0);
        assert!(c
            .points
            .windows(2)
            .all(|w| w[0].fraction <= w[1].fraction + 1e-12));
        // Large arrays: V / T tends to 2 × 4.5e10 = 9e10 B/s, the book's
        // measured asymptote, and the book's inference reads 15/16 of the peak.
        let last = c.points.last().unwrap();
        assert!((c.achieved_limit.0 - 9e10).abs() < 1.0);
        assert!((last.achieved.0 / c.achieved_limit.0 - 1.0).abs() < 1e-9);
        assert!((c.fraction_limit - 15.0 / 16.0).abs() < 1e-9);
        assert!((last.fraction - c.fraction_limit).abs() < 1e-9);
        assert!((last.link_bandwidth.0 - 9e10 * 15.0 / 32.0).abs() < 1.0);
        assert!(c.points[0].fraction < 0.01);
        // The book measured its peak above the model's knee, 625 kB a device.
        assert!(c.measured_at > c.knee);
        assert_eq!(c.measured_ring, 16);
        assert!((c.measured_per_device().0 - 625e3).abs() < 1e-6);
        assert!((c.measured_achieved.0 / c.achieved_limit.0 - 1.0).abs() < 1e-9);
        assert_eq!(
            gather_curve(&net, RingAxis::ring(1), Bytes(1.0), Bytes(2.0), 4)
                .unwrap_err()
                .to_string(),
            "the ring must have 2 to 1024 devices, not 1"
        );
    }

    #[test]
    fn overlap_saves_when_compute_and_comms_are_balanced() {
        let v5e = chip("v5e").unwrap();
        let p = CollectiveMatmulParams::new(v5e, 8, 8192, 8192, 4096);
        let r = collective_matmul(&p).unwrap();
        assert!(r.saved.0 > 0.0);
        assert_eq!(r.steps.iter().map(|s| s.blocks).sum::<u32>(), 8);
        let e = collective_matmul(&CollectiveMatmulParams { i: 8193, ..p }).unwrap_err();
        assert!(e.contains("I = 8193"));
        let e = collective_matmul(&CollectiveMatmulParams::new(
            chip("h100").unwrap(),
            8,
            64,
            64,
            64,
        ))
        .unwrap_err();
        assert!(e.contains("h100") || e.contains("H100"), "{e}");
    }

    #[test]
    fn the_schedule_multiplies_every_block_once_and_sends_what_is_needed_next() {
        for n in 2..=17u32 {
            for bidi in [false, true] {
                let sched = ring_schedule(n, bidi);
                let p = CollectiveMatmulParams {
                    network: if bidi {
                        Network::ici(chip("v5e").unwrap()).unwrap()
                    } else {
                        Network::ici(chip("v5e").unwrap()).unwrap().one_way_only()
                    },
                    ..CollectiveMatmulParams::new(chip("v5e").unwrap(), n, 64 * n as u64, 64, 64)
                };
                let r = collective_matmul(&p).unwrap();
                assert_eq!(sched.len(), r.steps.len());
                for (s, row) in sched.iter().enumerate() {
                    assert_eq!(row.len(), n as usize);
                    for (d, ds) in row.iter().enumerate() {
                        assert_eq!(ds.multiplies.len() as u32, r.steps[s].blocks);
                        // A device multiplies only what it holds.
                        assert!(ds.multiplies.iter().all(|b| ds.held.contains(b)));
                        // Whatever it sends, its neighbour multiplies on the next step.
                        for &(b, to) in &ds.sends {
                            let next = &sched[s + 1][to as usize];
                            assert!(next.multiplies.contains(&b), "n={n} s={s} d={d}");
                        }
                        assert_eq!(ds.sends.is_empty(), r.steps[s].comms.0 == 0.0);
                    }
                }
                for d in 0..n as usize {
                    let all = multiplied_by(&sched, d);
                    assert_eq!(all, (0..n).collect::<Vec<_>>(), "n={n} bidi={bidi}");
                }
            }
        }
        assert!(ring_schedule(1, true).is_empty());
    }

    #[test]
    fn case_3_reduce_scatters_as_it_multiplies() {
        let v5e = chip("v5e").unwrap();
        let p = CollectiveMatmulParams {
            case: MatmulCase::ReduceScatter,
            ..CollectiveMatmulParams::new(v5e, 8, 8192, 8192, 8192)
        };
        let r = collective_matmul(&p).unwrap();
        // Each device multiplies A[I, J/8] by B[J/8, K]: 2·8192·1024·8192 FLOPs.
        let flops = 2.0 * 8192.0 * 1024.0 * 8192.0;
        assert!((r.compute.0 - flops / 1.97e14).abs() < 1e-9 * r.compute.0);
        // Part 3: a ReduceScatter costs what an AllGather of the same array
        // does, V / W_ici on a bidirectional ring; V is the unreduced C[I, K].
        // V / W_ici with W_ici = 9e10 B/s both ways (4.5e10 each way): each
        // direction carries 4 of the 8 shards, 4 · (V/8) / 4.5e10 = V / 9e10,
        // 1.49 ms against 4 hops of 1 µs, so bandwidth sets it exactly.
        let v = Bytes(2.0 * 8192.0 * 8192.0);
        assert!((r.gather.0 - v.0 / 9e10).abs() < 1e-12 * r.gather.0);
        // The ring sends 7 running sums of half a chunk each way: 7/8 of V / W.
        let half_chunk = 2.0 * 8192.0 * 1024.0 / 2.0;
        let hop = (half_chunk / 4.5e10_f64).max(1e-6);
        assert!((r.ring_comms.0 - 7.0 * hop).abs() < 1e-12);
        assert_eq!(r.steps.len(), 8);
        assert_eq!(r.steps[0].comms.0, 0.0);
        assert!(r.overlapped.0 >= r.compute.0.max(r.ring_comms.0));
        assert!(r.overlapped < r.blocking);
        // One direction: whole chunks, twice the transfer per step.
        let one = CollectiveMatmulParams {
            network: p.network.one_way_only(),
            ..p
        };
        let r1 = collective_matmul(&one).unwrap();
        assert!(r1.ring_comms.0 > 1.9 * r.ring_comms.0);
        // J and K must divide over the ring; I need not.
        let bad = CollectiveMatmulParams { k: 8190, ..p };
        assert!(collective_matmul(&bad).unwrap_err().contains("K = 8190"));
        let bad = CollectiveMatmulParams { j: 8190, ..p };
        assert!(collective_matmul(&bad).unwrap_err().contains("J = 8190"));
        // I = 8191 rows: each device multiplies 2·8191·1024·8192 FLOPs.
        let odd = collective_matmul(&CollectiveMatmulParams { i: 8191, ..p }).unwrap();
        let flops = 2.0 * 8191.0 * 1024.0 * 8192.0;
        assert!((odd.compute.0 - flops / 1.97e14).abs() < 1e-9 * odd.compute.0);
        assert_eq!(
            MatmulCase::parse(MatmulCase::ReduceScatter.id()),
            Some(MatmulCase::ReduceScatter)
        );
        assert_eq!(MatmulCase::parse("case3"), None);
    }

    #[test]
    fn the_reduce_scatter_ring_sums_every_chunk_on_its_owner() {
        for n in 2..=17u32 {
            for bidi in [false, true] {
                let sched = reduce_scatter_schedule(n, bidi);
                assert_eq!(sched.len(), n as usize);
                // Every running sum ends on the device that owns its chunk.
                for (d, last) in sched[n as usize - 1].iter().enumerate() {
                    assert!(
                        last.multiplies.iter().all(|&c| c == d as u32),
                        "n={n} d={d}"
                    );
                }
                for (s, row) in sched.iter().enumerate() {
                    for ds in row {
                        // A sum sent now is the one the sender computed last step,
                        // and the receiver adds its own part of it this step.
                        for &(c, to) in &ds.sends {
                            assert!(s > 0);
                            assert!(sched[s][to as usize].multiplies.contains(&c));
                        }
                    }
                }
                // Every device contributes to every chunk exactly once per direction.
                let ways = if bidi { 2 } else { 1 };
                for d in 0..n as usize {
                    let all = multiplied_by(&sched, d);
                    let want: Vec<u32> =
                        (0..n).flat_map(|c| std::iter::repeat_n(c, ways)).collect();
                    assert_eq!(all, want, "n={n} bidi={bidi}");
                }
            }
        }
        assert!(reduce_scatter_schedule(1, false).is_empty());
    }

    proptest! {
        #[test]
        fn overlapped_time_is_at_least_the_larger_part(
            devices in 2u32..=32, rows in 1u64..=512, j in 1u64..=8192, k in 1u64..=8192,
            bidi in any::<bool>(),
        ) {
            let v5e = chip("v5e").unwrap();
            let mut p = CollectiveMatmulParams::new(v5e, devices, rows * devices as u64, j, k);
            if !bidi {
                p.network = p.network.one_way_only();
            }
            let r = collective_matmul(&p).unwrap();
            let tol = 1e-12 * r.blocking.0;
            prop_assert!(r.overlapped.0 + tol >= r.compute.0.max(r.ring_comms.0));
            prop_assert!(r.overlapped.0 <= r.compute.0 + r.ring_comms.0 + tol);
            // Every block is multiplied exactly once.
            prop_assert_eq!(r.steps.iter().map(|s| s.blocks).sum::<u32>(), devices);
            // The same shapes as case 3 obey the same bounds.
            let q = CollectiveMatmulParams {
                case: MatmulCase::ReduceScatter,
                j: j * devices as u64,
                k: k * devices as u64,
                ..p
            };
            let r = collective_matmul(&q).unwrap();
            let tol = 1e-12 * r.blocking.0;
            prop_assert!(r.overlapped.0 + tol >= r.compute.0.max(r.ring_comms.0));
            prop_assert!(r.overlapped.0 <= r.compute.0 + r.ring_comms.0 + tol);
            prop_assert_eq!(r.steps.len() as u32, devices);
        }
    }
}
