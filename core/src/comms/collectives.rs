//! The cost of the four collectives of Part 3 — AllGather, ReduceScatter,
//! AllReduce and AllToAll — along one or several axes of a TPU mesh.
//!
//! `V` is always the book's `V`: the bytes of the array the collective is about,
//! *as gathered along the axes involved* (for an AllGather, the per-device block
//! after the gather; for a ReduceScatter or AllReduce, the unreduced block each
//! device starts with; for an AllToAll, the whole array exchanged among the
//! group). A bidirectional ring with wraparound gathers `V` bytes in
//! `V / W` seconds whatever its length; each hop costs at least the ICI latency,
//! so `T = max(T_hop · X/2, V / W)`:
//!
//! ```
//! use ridgeline_core::comms::collectives::{cost, Collective, Network, RingAxis, Bound};
//! use ridgeline_core::hardware::chip;
//! use ridgeline_core::units::Bytes;
//!
//! let net = Network::ici(chip("v5e").unwrap()).unwrap();
//! // AllGather of a 34 MB bf16[2048, 8192] over a full ring of 4: 373 µs.
//! let big = cost(Collective::AllGather, Bytes(33_554_432.0), &[RingAxis::ring(4)], &net).unwrap();
//! assert_eq!(big.bound, Bound::Bandwidth);
//! assert!((big.time.0 * 1e6 - 372.8).abs() < 0.1);
//! // Tiny messages pay the per-hop latency instead: 2 hops on a ring of 4.
//! let tiny = cost(Collective::AllGather, Bytes(256.0), &[RingAxis::ring(4)], &net).unwrap();
//! assert_eq!(tiny.bound, Bound::Latency);
//! assert!((tiny.time.0 - 2e-6).abs() < 1e-12);
//! ```
//!
//! Without wraparound a ring is a line and the edge shards travel `X − 1` hops
//! one way, which costs about twice as much; with one-way links only, the same.
//! Several axes add their links: `V / (W · N_axes)` for an AllGather over
//! `N_axes` equal rings.

use crate::check::is_positive;
use crate::hardware::{Chip, LinkSpec, ICI_HOP_LATENCY};
use crate::units::{Bytes, BytesPerSec, Seconds};

/// One of the collectives of Part 3.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Collective {
    /// `[A_X, B] → [A, B]`: every device ends with every shard.
    AllGather,
    /// `[A, B]{U_X} → [A_X, B]`: sums partial results and scatters the sum.
    ReduceScatter,
    /// `[A, B]{U_X} → [A, B]`: a ReduceScatter followed by an AllGather.
    AllReduce,
    /// `[A, B_X] → [A_X, B]`: moves a subscript from one dimension to another.
    AllToAll,
}

impl Collective {
    /// Every collective, in the book's order.
    pub const ALL: [Collective; 4] = [
        Collective::AllGather,
        Collective::ReduceScatter,
        Collective::AllReduce,
        Collective::AllToAll,
    ];

    /// The book's name: `AllGather`, `ReduceScatter`, `AllReduce`, `AllToAll`.
    pub fn name(self) -> &'static str {
        match self {
            Collective::AllGather => "AllGather",
            Collective::ReduceScatter => "ReduceScatter",
            Collective::AllReduce => "AllReduce",
            Collective::AllToAll => "AllToAll",
        }
    }

    /// The lower-case key a widget's URL and the book's measured curves use:
    /// `allgather`, `reducescatter`, `allreduce`, `alltoall`.
    pub fn key(self) -> &'static str {
        match self {
            Collective::AllGather => "allgather",
            Collective::ReduceScatter => "reducescatter",
            Collective::AllReduce => "allreduce",
            Collective::AllToAll => "alltoall",
        }
    }

    /// Parses a name or key case-insensitively, ignoring `-`, `_` and white space
    /// (`all-gather`, ` AllToAll`, `AG` too).
    pub fn parse(text: &str) -> Option<Collective> {
        let t: String = text
            .chars()
            .filter(|c| !matches!(c, '-' | '_') && !c.is_whitespace())
            .collect::<String>()
            .to_ascii_lowercase();
        match t.as_str() {
            "allgather" | "ag" => Some(Collective::AllGather),
            "reducescatter" | "rs" => Some(Collective::ReduceScatter),
            "allreduce" | "ar" => Some(Collective::AllReduce),
            "alltoall" | "a2a" => Some(Collective::AllToAll),
            _ => None,
        }
    }
}

impl std::fmt::Display for Collective {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One mesh axis a collective runs along.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RingAxis {
    /// Devices along the axis.
    pub size: u32,
    /// Whether the axis has a wraparound link (a ring) or not (a line).
    pub wrap: bool,
}

impl RingAxis {
    /// A full ring (with wraparound) of `size` devices.
    pub fn ring(size: u32) -> RingAxis {
        RingAxis { size, wrap: true }
    }

    /// A line (no wraparound) of `size` devices.
    pub fn line(size: u32) -> RingAxis {
        RingAxis { size, wrap: false }
    }
}

/// The links a collective runs over.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Network {
    /// What the links belong to, for display (`TPU v5e`).
    pub name: &'static str,
    /// Bandwidth of one link counting both directions (the book's `W_ici`).
    pub bidi: BytesPerSec,
    /// Bandwidth of one link in one direction.
    pub one_way: BytesPerSec,
    /// Minimum time of one hop (`T_min`).
    pub hop_latency: Seconds,
    /// Whether a ring sends both ways at once; `false` models one-way links.
    pub bidirectional: bool,
}

/// Why a collective cost could not be computed.
#[derive(Debug, Clone, PartialEq)]
pub enum CollectiveError {
    /// The byte count was negative, NaN or infinite.
    BadBytes(f64),
    /// No axes were given.
    NoAxes,
    /// An axis had size 0.
    ZeroAxis {
        /// Position of the axis in the list.
        index: usize,
    },
    /// The chip has no ICI link in the registry (GPUs, for instance).
    NoIci(&'static str),
    /// A bandwidth or latency was not a finite positive number.
    BadNetwork(&'static str),
    /// A device count for a bus-bandwidth conversion was below 1.
    BadDeviceCount(u32),
}

impl std::fmt::Display for CollectiveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CollectiveError::BadBytes(b) => {
                write!(f, "the byte count must be a finite number ≥ 0, not {b}")
            }
            CollectiveError::NoAxes => f.write_str("a collective needs at least one mesh axis"),
            CollectiveError::ZeroAxis { index } => {
                write!(f, "mesh axis #{} has size 0; sizes must be ≥ 1", index + 1)
            }
            CollectiveError::NoIci(id) => write!(f, "{id} has no ICI links in the registry"),
            CollectiveError::BadNetwork(what) => {
                write!(f, "the network's {what} must be a finite positive number")
            }
            CollectiveError::BadDeviceCount(n) => {
                write!(f, "a collective needs at least 1 device, not {n}")
            }
        }
    }
}

impl std::error::Error for CollectiveError {}

impl Network {
    /// The ICI of a TPU from the registry, bidirectional, with the book's per-hop latency.
    pub fn ici(chip: &'static Chip) -> Result<Network, CollectiveError> {
        let spec = chip
            .link(crate::hardware::Link::Ici)
            .ok_or(CollectiveError::NoIci(chip.id))?;
        Ok(Network::over(chip, spec))
    }

    /// The chip's fastest chip-to-chip link (ICI on a TPU, NVLink on a GPU) as
    /// [`Network::ici`] takes ICI, or `None` for a chip without one. The registry
    /// gives no separate per-hop latency for NVLink, so it uses the book's ICI one.
    pub fn interconnect(chip: &'static Chip) -> Option<Network> {
        chip.interconnect().map(|spec| Network::over(chip, spec))
    }

    /// `spec`'s links of `chip` as bidirectional rings with the book's per-hop
    /// latency `T_min` (Part 3).
    fn over(chip: &'static Chip, spec: &LinkSpec) -> Network {
        Network {
            name: chip.name,
            bidi: spec.bandwidth,
            one_way: spec.one_way.unwrap_or(spec.bandwidth * 0.5),
            hop_latency: ICI_HOP_LATENCY.value,
            bidirectional: true,
        }
    }

    /// The same links used in one direction only.
    pub fn one_way_only(self) -> Network {
        Network {
            bidirectional: false,
            ..self
        }
    }

    fn check(&self) -> Result<(), CollectiveError> {
        if !is_positive(self.bidi.0) {
            return Err(CollectiveError::BadNetwork("bidirectional bandwidth"));
        }
        if !is_positive(self.one_way.0) {
            return Err(CollectiveError::BadNetwork("one-way bandwidth"));
        }
        if !(self.hop_latency.0.is_finite() && self.hop_latency.0 >= 0.0) {
            return Err(CollectiveError::BadNetwork("hop latency"));
        }
        Ok(())
    }

    /// The message size per hop below which a transfer is latency-bound:
    /// `one-way bandwidth × hop latency` (45 kB on a v5e).
    pub fn latency_threshold(&self) -> Bytes {
        self.one_way * self.hop_latency
    }
}

/// Which term sets a collective's time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Bound {
    /// `V / W` dominates: large messages.
    Bandwidth,
    /// `hops × T_min` dominates: small messages.
    Latency,
}

impl Bound {
    /// `bandwidth-bound` or `latency-bound`.
    pub fn text(self) -> &'static str {
        match self {
            Bound::Bandwidth => "bandwidth-bound",
            Bound::Latency => "latency-bound",
        }
    }
}

impl std::fmt::Display for Bound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.text())
    }
}

/// The cost of one collective.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CollectiveCost {
    /// Which collective.
    pub collective: Collective,
    /// The book's `V` (see the module docs).
    pub bytes: Bytes,
    /// Devices taking part (the product of the axis sizes).
    pub devices: u64,
    /// `V / devices`: one device's shard.
    pub shard: Bytes,
    /// Estimated time: the larger of the two terms below.
    pub time: Seconds,
    /// The bandwidth term.
    pub t_bandwidth: Seconds,
    /// The latency term: hops × per-hop latency.
    pub t_latency: Seconds,
    /// Bytes each device sends in total (payload, not counting relays for an AllToAll).
    pub bytes_per_device: Bytes,
    /// Bytes crossing the busiest link in one direction: `t_bandwidth × one-way bandwidth`.
    pub bytes_per_link: Bytes,
    /// Sequential hop steps (an AllReduce counts both halves).
    pub steps: u32,
    /// Which term is larger.
    pub bound: Bound,
}

impl CollectiveCost {
    /// Bytes sent by all devices together.
    pub fn total_bytes(&self) -> Bytes {
        self.bytes_per_device * self.devices as f64
    }
}

/// Sequential hops an AllGather takes along one axis.
fn gather_steps(axis: RingAxis, bidirectional: bool) -> u32 {
    if axis.wrap && bidirectional {
        axis.size / 2
    } else {
        axis.size.saturating_sub(1)
    }
}

/// Busiest one-direction link load of an AllToAll along one axis, in units of
/// the blocks a device sends to each position (`n` blocks per device).
fn all_to_all_load(n: f64, axis: RingAxis, bidirectional: bool) -> f64 {
    let odd = if axis.size % 2 == 1 { 1.0 } else { 0.0 };
    if axis.wrap && bidirectional {
        (n * n - odd) / 8.0
    } else if axis.wrap {
        n * (n - 1.0) / 2.0
    } else {
        (n * n - odd) / 4.0
    }
}

/// The cost of `collective` over `axes` with `bytes` = the book's `V`, on `net`.
///
/// Axes of size 1 take part trivially (no hops). Errors if `bytes` is not finite
/// and non-negative, if there are no axes, or an axis has size 0.
pub fn cost(
    collective: Collective,
    bytes: Bytes,
    axes: &[RingAxis],
    net: &Network,
) -> Result<CollectiveCost, CollectiveError> {
    if !(bytes.0.is_finite() && bytes.0 >= 0.0) {
        return Err(CollectiveError::BadBytes(bytes.0));
    }
    if axes.is_empty() {
        return Err(CollectiveError::NoAxes);
    }
    if let Some(index) = axes.iter().position(|a| a.size == 0) {
        return Err(CollectiveError::ZeroAxis { index });
    }
    net.check()?;
    let v = bytes.0;
    let devices: u64 = axes.iter().map(|a| a.size as u64).product();
    let n_all = devices as f64;
    let w1 = net.one_way.0;
    let active: Vec<RingAxis> = axes.iter().copied().filter(|a| a.size > 1).collect();
    let hops: u32 = active
        .iter()
        .map(|a| gather_steps(*a, net.bidirectional))
        .sum();

    let (t_bw, per_device, steps) = match collective {
        Collective::AllGather | Collective::ReduceScatter | Collective::AllReduce => {
            // Each axis alone gathers V in steps × (V/n) / W_one_way; axes add rates.
            let rate: f64 = active
                .iter()
                .map(|a| {
                    let n = a.size as f64;
                    n * w1 / gather_steps(*a, net.bidirectional) as f64
                })
                .sum();
            let t = if rate > 0.0 { v / rate } else { 0.0 };
            let sent = v * (n_all - 1.0) / n_all;
            if collective == Collective::AllReduce {
                (2.0 * t, 2.0 * sent, 2 * hops)
            } else {
                (t, sent, hops)
            }
        }
        Collective::AllToAll => {
            // Dimension-ordered exchange: along axis i each device sends n_i blocks of
            // (V / N) / n_i bytes; axes run in parallel and the busiest link sets the time.
            let per_block = v / n_all;
            let t = active
                .iter()
                .map(|a| {
                    let n = a.size as f64;
                    all_to_all_load(n, *a, net.bidirectional) * per_block / n / w1
                })
                .fold(0.0, f64::max);
            let sent: f64 = active
                .iter()
                .map(|a| {
                    let n = a.size as f64;
                    (n - 1.0) / n * per_block
                })
                .sum();
            (t, sent, hops)
        }
    };
    let t_latency = net.hop_latency.0 * steps as f64;
    let bound = if t_latency > t_bw {
        Bound::Latency
    } else {
        Bound::Bandwidth
    };
    Ok(CollectiveCost {
        collective,
        bytes,
        devices,
        shard: Bytes(v / n_all),
        time: Seconds(t_bw.max(t_latency)),
        t_bandwidth: Seconds(t_bw),
        t_latency: Seconds(t_latency),
        bytes_per_device: Bytes(per_device),
        bytes_per_link: Bytes(t_bw * w1),
        steps,
        bound,
    })
}

/// AllGather of `bytes` (the gathered size) over `axes`.
pub fn all_gather(
    bytes: Bytes,
    axes: &[RingAxis],
    net: &Network,
) -> Result<CollectiveCost, CollectiveError> {
    cost(Collective::AllGather, bytes, axes, net)
}

/// ReduceScatter of `bytes` (the unreduced size) over `axes`: the same cost as an AllGather.
pub fn reduce_scatter(
    bytes: Bytes,
    axes: &[RingAxis],
    net: &Network,
) -> Result<CollectiveCost, CollectiveError> {
    cost(Collective::ReduceScatter, bytes, axes, net)
}

/// AllReduce of `bytes` over `axes`: twice an AllGather.
pub fn all_reduce(
    bytes: Bytes,
    axes: &[RingAxis],
    net: &Network,
) -> Result<CollectiveCost, CollectiveError> {
    cost(Collective::AllReduce, bytes, axes, net)
}

/// AllToAll of `bytes` (the whole array) over `axes`: `V · max(axis) / (4 · N · W)`
/// on bidirectional rings, a quarter of an AllGather in 1D.
pub fn all_to_all(
    bytes: Bytes,
    axes: &[RingAxis],
    net: &Network,
) -> Result<CollectiveCost, CollectiveError> {
    cost(Collective::AllToAll, bytes, axes, net)
}

/// nccl-tests' factor from algorithm bandwidth to bus bandwidth for `n` ranks:
/// `(n−1)/n` for AllGather and ReduceScatter, `2(n−1)/n` for AllReduce, `(n−1)/n` for AllToAll.
pub fn bus_factor(collective: Collective, n: u32) -> Result<f64, CollectiveError> {
    if n == 0 {
        return Err(CollectiveError::BadDeviceCount(n));
    }
    let n = n as f64;
    Ok(match collective {
        Collective::AllReduce => 2.0 * (n - 1.0) / n,
        _ => (n - 1.0) / n,
    })
}

/// Bus bandwidth from algorithm bandwidth (`algbw = bytes / time`), as nccl-tests reports it.
pub fn bus_bandwidth(
    collective: Collective,
    algbw: BytesPerSec,
    n: u32,
) -> Result<BytesPerSec, CollectiveError> {
    Ok(algbw * bus_factor(collective, n)?)
}

/// Algorithm bandwidth from bus bandwidth; for `n = 1` (factor 0) the result is infinite.
pub fn alg_bandwidth(
    collective: Collective,
    busbw: BytesPerSec,
    n: u32,
) -> Result<BytesPerSec, CollectiveError> {
    let f = bus_factor(collective, n)?;
    Ok(BytesPerSec(busbw.0 / f))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hardware::chip;

    fn v5e() -> Network {
        Network::ici(chip("v5e").unwrap()).unwrap()
    }

    #[test]
    fn allgather_is_v_over_w_on_even_rings() {
        let net = v5e();
        for n in [2, 4, 8, 16] {
            let c = all_gather(Bytes(9e9), &[RingAxis::ring(n)], &net).unwrap();
            assert!((c.t_bandwidth.0 - 0.1).abs() < 1e-12, "{n}");
            assert_eq!(c.steps, n / 2);
        }
        let two = all_gather(Bytes(9e9), &[RingAxis::ring(4), RingAxis::ring(4)], &net).unwrap();
        assert!((two.t_bandwidth.0 - 0.05).abs() < 1e-12);
    }

    #[test]
    fn line_and_one_way_cost_about_double() {
        let net = v5e();
        let line = all_gather(Bytes(4e9), &[RingAxis::line(4)], &net).unwrap();
        // 3 hops of V/4 at 4.5e10 one way.
        assert!((line.t_bandwidth.0 - 3.0 * 1e9 / 4.5e10).abs() < 1e-12);
        let uni = all_gather(Bytes(4e9), &[RingAxis::ring(4)], &net.one_way_only()).unwrap();
        assert_eq!(uni.t_bandwidth, line.t_bandwidth);
        assert_eq!(uni.steps, 3);
    }

    #[test]
    fn allreduce_doubles_and_alltoall_quarters() {
        let net = v5e();
        let ag = all_gather(Bytes(1e9), &[RingAxis::ring(8)], &net).unwrap();
        let ar = all_reduce(Bytes(1e9), &[RingAxis::ring(8)], &net).unwrap();
        let a2a = all_to_all(Bytes(1e9), &[RingAxis::ring(8)], &net).unwrap();
        assert!((ar.time.0 / ag.time.0 - 2.0).abs() < 1e-12);
        assert!((ag.time.0 / a2a.time.0 - 4.0).abs() < 1e-12);
        // 2D: V · max / (4 N W).
        let a2 = all_to_all(Bytes(1e9), &[RingAxis::ring(4), RingAxis::ring(8)], &net).unwrap();
        assert!((a2.t_bandwidth.0 - 1e9 * 8.0 / (4.0 * 32.0 * 9e10)).abs() < 1e-15);
    }

    #[test]
    fn validation_and_bus_bandwidth() {
        let net = v5e();
        assert!(matches!(
            all_gather(Bytes(f64::NAN), &[RingAxis::ring(4)], &net),
            Err(CollectiveError::BadBytes(_))
        ));
        assert_eq!(
            all_gather(Bytes(1.0), &[], &net),
            Err(CollectiveError::NoAxes)
        );
        assert_eq!(
            all_gather(Bytes(1.0), &[RingAxis::ring(2), RingAxis::ring(0)], &net),
            Err(CollectiveError::ZeroAxis { index: 1 })
        );
        assert_eq!(
            Network::ici(chip("h100").unwrap()).unwrap_err().to_string(),
            "h100 has no ICI links in the registry",
        );
        let b = bus_bandwidth(Collective::AllReduce, BytesPerSec(100.0), 8).unwrap();
        assert!((b.0 - 175.0).abs() < 1e-9);
        let a = alg_bandwidth(Collective::AllGather, BytesPerSec(175.0), 8).unwrap();
        assert!((a.0 - 200.0).abs() < 1e-9);
        assert_eq!(Collective::parse("all-gather"), Some(Collective::AllGather));
        let single = all_reduce(Bytes(10.0), &[RingAxis::ring(1)], &net).unwrap();
        assert_eq!(single.time, Seconds(0.0));
    }
}
