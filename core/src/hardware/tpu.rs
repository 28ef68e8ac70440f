//! Part 2's facts about TPUs as functions: slices of a torus, their
//! wraparound links, hop distances, hosts, point-to-point transfers, and the
//! throughput of the MXU and VPU.
//!
//! A slice is a box of chips cut from a chip's torus. Whether its axes wrap
//! around depends on the generation (a v5e axis wraps only at length 16; a v5p
//! slice wraps only when it is made of whole 4×4×4 cubes), and without
//! wraparound the farthest chip is `N − 1` hops away instead of `N / 2`:
//!
//! ```
//! use ridgeline_core::hardware::chip;
//! use ridgeline_core::hardware::tpu::Slice;
//!
//! let v5e = chip("v5e").unwrap();
//! let s = Slice::new(v5e, &[4, 4]).unwrap();
//! assert_eq!(s.wrap(), [false, false, false]);
//! assert_eq!(s.hops([0, 0, 0], [3, 3, 0]).unwrap(), 6);
//! assert_eq!(s.hosts(), 2);
//! let pod = Slice::new(v5e, &[16, 16]).unwrap();
//! assert_eq!(pod.hops([0, 0, 0], [15, 15, 0]).unwrap(), 2);
//! assert!(Slice::new(v5e, &[4, 4, 4]).is_err());
//! ```

use crate::check::{positive, NotPositive};
use crate::dtype::Dtype;
use crate::hardware::{
    Chip, Link, TensorCoreSpec, Topology, WrapRule, ICI_HOP_LATENCY, VMEM_OVER_HBM, VPU_SHAPE,
};
use crate::roofline::Analysis;
use crate::units::{Bytes, BytesPerSec, Flops, FlopsPerSec, Seconds};

/// Chip coordinates in a slice, `[x, y, z]` (z is 0 on 2D tori).
pub type Coord = [u32; 3];

/// Why a slice or transfer question has no answer.
#[derive(Debug, Clone, PartialEq)]
pub enum TpuError {
    /// The chip is not a TPU (it has no torus in the registry).
    NotATorus(&'static str),
    /// The shape has the wrong number of axes for the chip's torus.
    WrongRank {
        /// The chip.
        chip: &'static str,
        /// Axes given.
        given: usize,
        /// Axes the torus has.
        dims: u8,
    },
    /// An axis has length 0.
    EmptyAxis(usize),
    /// The shape does not fit in the chip's largest ICI domain.
    TooBig {
        /// The chip.
        chip: &'static str,
        /// The requested shape.
        shape: Coord,
        /// The largest domain.
        max: Coord,
    },
    /// A coordinate lies outside the slice.
    OutOfSlice {
        /// The coordinate.
        coord: Coord,
        /// The slice shape.
        shape: Coord,
    },
    /// A count or size was not finite and positive.
    BadValue(&'static str),
    /// The chip lacks a link or a fact the computation needs.
    Missing(&'static str),
}

impl std::fmt::Display for TpuError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TpuError::NotATorus(id) => write!(f, "{id} is not a TPU; it has no ICI torus"),
            TpuError::WrongRank { chip, given, dims } => write!(
                f,
                "{chip} is a {dims}D torus, so a slice needs at most {dims} axes, not {given}"
            ),
            TpuError::EmptyAxis(i) => write!(f, "slice axis #{} has length 0", i + 1),
            TpuError::TooBig { chip, shape, max } => write!(
                f,
                "a {}x{}x{} slice does not fit in {chip}'s largest ICI domain {}x{}x{}",
                shape[0], shape[1], shape[2], max[0], max[1], max[2]
            ),
            TpuError::OutOfSlice { coord, shape } => write!(
                f,
                "chip {{{},{},{}}} lies outside the {}x{}x{} slice",
                coord[0], coord[1], coord[2], shape[0], shape[1], shape[2]
            ),
            TpuError::BadValue(what) => write!(f, "{what} must be a finite positive number"),
            TpuError::Missing(what) => write!(f, "the registry has no {what} for this chip"),
        }
    }
}

impl std::error::Error for TpuError {}

/// A box of TPU chips cut from a chip's torus.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Slice {
    /// The chip.
    pub chip: &'static Chip,
    /// Chips along each axis (`[x, y, 1]` on a 2D torus).
    pub shape: Coord,
    /// Torus dimensionality (2 or 3).
    pub dims: u8,
    host: Coord,
    cores: u32,
    wrap: [bool; 3],
}

fn torus_of(chip: &'static Chip) -> Result<(u8, Coord, Coord, WrapRule, u32), TpuError> {
    match chip.topology {
        Topology::Torus {
            dims,
            max_slice,
            host,
            wrap,
            cores,
            ..
        } => Ok((dims, max_slice, host, wrap, cores)),
        Topology::NvlinkDomain { .. } => Err(TpuError::NotATorus(chip.id)),
    }
}

impl Slice {
    /// A slice of `shape` (1 to `dims` axis lengths; missing trailing axes are 1).
    ///
    /// Valid when every axis is ≥ 1 and the shape, up to a permutation of axes,
    /// fits in the chip's largest ICI domain (16×16 for v5e, 16×20×28 for v5p).
    pub fn new(chip: &'static Chip, shape: &[u32]) -> Result<Slice, TpuError> {
        let (dims, max, host, rule, cores) = torus_of(chip)?;
        if shape.is_empty() || shape.len() > dims as usize {
            return Err(TpuError::WrongRank {
                chip: chip.id,
                given: shape.len(),
                dims,
            });
        }
        if let Some(i) = shape.iter().position(|&s| s == 0) {
            return Err(TpuError::EmptyAxis(i));
        }
        let mut full = [1u32; 3];
        full[..shape.len()].copy_from_slice(shape);
        let mut sorted = full;
        sorted.sort_unstable();
        let mut cap = max;
        cap.sort_unstable();
        if sorted.iter().zip(cap.iter()).any(|(s, m)| s > m) {
            return Err(TpuError::TooBig {
                chip: chip.id,
                shape: full,
                max,
            });
        }
        let wrap = match rule {
            WrapRule::Axis16 => full.map(|n| n == 16),
            WrapRule::FullCube => {
                let cubes = full[..dims as usize].iter().all(|n| n % 4 == 0);
                let mut w = [false; 3];
                for (i, slot) in w.iter_mut().enumerate().take(dims as usize) {
                    *slot = cubes && full[i] > 1;
                }
                w
            }
            WrapRule::FullPod => {
                let mut w = [false; 3];
                for i in 0..3 {
                    w[i] = full[i] > 1 && full[i] == max[i];
                }
                w
            }
        };
        Ok(Slice {
            chip,
            shape: full,
            dims,
            host,
            cores,
            wrap,
        })
    }

    /// The chip's largest ICI domain (a full pod).
    pub fn full_pod(chip: &'static Chip) -> Result<Slice, TpuError> {
        let (dims, max, ..) = torus_of(chip)?;
        Slice::new(chip, &max[..dims as usize])
    }

    /// Chips in the slice.
    pub fn chips(&self) -> u64 {
        self.shape.iter().map(|&n| n as u64).product()
    }

    /// Chips attached to one host.
    pub fn chips_per_host(&self) -> u64 {
        self.host.iter().map(|&n| n as u64).product()
    }

    /// CPU hosts serving the slice: the host blocks (4×2 chips on a v5e) that a
    /// slice placed at the torus origin touches, a partly used host counting as
    /// one, in the orientation of the blocks that needs fewest. A 3×5 slice of a
    /// v5e touches three 4×2 hosts, not `⌈15 / 8⌉ = 2`.
    pub fn hosts(&self) -> u64 {
        let h = self.host.map(|n| n.max(1));
        let orientations = [
            [h[0], h[1], h[2]],
            [h[0], h[2], h[1]],
            [h[1], h[0], h[2]],
            [h[1], h[2], h[0]],
            [h[2], h[0], h[1]],
            [h[2], h[1], h[0]],
        ];
        orientations
            .iter()
            // A 2D torus has no third axis to turn a host block into.
            .filter(|o| self.dims == 3 || o[2] == h[2])
            .map(|o| {
                (0..3)
                    .map(|i| self.shape[i].div_ceil(o[i]) as u64)
                    .product::<u64>()
            })
            .min()
            .unwrap_or(1)
    }

    /// `1 host`, `3 hosts`.
    pub fn hosts_text(&self) -> String {
        counted(self.hosts(), "host")
    }

    /// `1 chip`, `16 chips`.
    pub fn chips_text(&self) -> String {
        counted(self.chips(), "chip")
    }

    /// A slice from a three-axis shape such as a reader types (`4x4x4`): on a 2D
    /// torus the third axis must be 1, and a shape that needs it is refused
    /// rather than cut down to its first two axes.
    pub fn from_coord(chip: &'static Chip, shape: Coord) -> Result<Slice, TpuError> {
        let (dims, ..) = torus_of(chip)?;
        let given = shape.iter().rposition(|&n| n != 1).map_or(1, |i| i + 1);
        if given > dims as usize {
            return Err(TpuError::WrongRank {
                chip: chip.id,
                given,
                dims,
            });
        }
        Slice::new(chip, &shape[..dims as usize])
    }

    /// Parses a slice shape (`16x16`, `4×4×4`, `2,2,1`) for `chip`, with a
    /// message naming what is wrong.
    pub fn parse(chip: &'static Chip, text: &str) -> Result<Slice, String> {
        let bad = || {
            format!(
                "“{}” is not a slice shape like 8x16 or 4x4x4",
                text.chars().take(24).collect::<String>()
            )
        };
        let parts: Vec<&str> = text
            .split(['x', '×', 'X', ',', '*'])
            .map(str::trim)
            .collect();
        if parts.len() > 3 {
            return Err(bad());
        }
        let mut shape = [1u32; 3];
        for (slot, part) in shape.iter_mut().zip(&parts) {
            *slot = part.parse::<u32>().map_err(|_| bad())?;
        }
        Slice::from_coord(chip, shape).map_err(|e| match e {
            TpuError::WrongRank { dims, .. } => format!(
                "{} is a {dims}D torus: a slice has at most {dims} axes, like 16x16, so {} cannot be formed",
                chip.name,
                text.trim()
            ),
            e => e.to_string(),
        })
    }

    /// TensorCores in the slice.
    pub fn cores(&self) -> u64 {
        self.chips() * self.cores as u64
    }

    /// Whether each axis has a wraparound link.
    pub fn wrap(&self) -> [bool; 3] {
        self.wrap
    }

    /// The axes as rings or lines, for the collective cost model (axes of length 1 left out).
    pub fn ring_axes(&self) -> Vec<crate::comms::collectives::RingAxis> {
        (0..3)
            .filter(|&i| self.shape[i] > 1)
            .map(|i| crate::comms::collectives::RingAxis {
                size: self.shape[i],
                wrap: self.wrap[i],
            })
            .collect()
    }

    fn check(&self, c: Coord) -> Result<(), TpuError> {
        if c.iter().zip(self.shape.iter()).any(|(x, n)| x >= n) {
            Err(TpuError::OutOfSlice {
                coord: c,
                shape: self.shape,
            })
        } else {
            Ok(())
        }
    }

    /// The chips one ICI hop from `c`, each listed once.
    pub fn neighbours(&self, c: Coord) -> Result<Vec<Coord>, TpuError> {
        self.check(c)?;
        let mut out: Vec<Coord> = Vec::with_capacity(6);
        for axis in 0..3 {
            let n = self.shape[axis];
            if n == 1 {
                continue;
            }
            let x = c[axis];
            let mut push = |v: u32| {
                let mut d = c;
                d[axis] = v;
                if d != c && !out.contains(&d) {
                    out.push(d);
                }
            };
            if x + 1 < n {
                push(x + 1);
            } else if self.wrap[axis] {
                push(0);
            }
            if x > 0 {
                push(x - 1);
            } else if self.wrap[axis] {
                push(n - 1);
            }
        }
        Ok(out)
    }

    /// Shortest hop count between two chips.
    pub fn hops(&self, a: Coord, b: Coord) -> Result<u32, TpuError> {
        self.check(a)?;
        self.check(b)?;
        Ok((0..3)
            .map(|i| {
                let d = a[i].abs_diff(b[i]);
                if self.wrap[i] {
                    d.min(self.shape[i] - d)
                } else {
                    d
                }
            })
            .sum())
    }

    /// The largest hop distance along one axis: `N / 2` with wraparound, `N − 1` without.
    pub fn max_hops_along(&self, axis: usize) -> u32 {
        match self.shape.get(axis) {
            Some(&n) if self.wrap[axis] => n / 2,
            Some(&n) => n - 1,
            None => 0,
        }
    }

    /// The largest hop distance in the slice (its diameter).
    pub fn diameter(&self) -> u32 {
        (0..3).map(|i| self.max_hops_along(i)).sum()
    }

    /// Peak throughput of the whole slice in `dtype`.
    pub fn peak(&self, dtype: Dtype) -> Option<FlopsPerSec> {
        Some(self.chip.peak(dtype)? * self.chips() as f64)
    }

    /// HBM of the whole slice.
    pub fn hbm(&self) -> Bytes {
        self.chip.hbm_capacity.value * self.chips() as f64
    }

    /// When the first byte sent from `a` reaches `b`: hops × the per-hop latency.
    pub fn first_byte(&self, a: Coord, b: Coord) -> Result<Seconds, TpuError> {
        Ok(ICI_HOP_LATENCY.value * self.hops(a, b)? as f64)
    }

    /// Sends `bytes` from `a` to `b` over all of `a`'s outgoing ICI links at once.
    pub fn send(&self, a: Coord, b: Coord, bytes: Bytes) -> Result<Transfer, TpuError> {
        let links = u32::try_from(self.neighbours(a)?.len()).unwrap_or(u32::MAX);
        let one_way = self
            .chip
            .link(Link::Ici)
            .and_then(|l| l.one_way)
            .ok_or(TpuError::Missing("one-way ICI bandwidth"))?;
        transfer(bytes, links, one_way, self.hops(a, b)?)
    }

    /// Lower bound for gathering `total` bytes, spread evenly over the slice, onto chip `c`:
    /// it receives `total · (n−1)/n` over its own incoming ICI links (one-way each).
    pub fn gather_onto(&self, c: Coord, total: Bytes) -> Result<Seconds, TpuError> {
        positive("the byte count", total.0)?;
        let links = self.neighbours(c)?.len();
        if links == 0 {
            return Ok(Seconds(0.0));
        }
        let one_way = self
            .chip
            .link(Link::Ici)
            .and_then(|l| l.one_way)
            .ok_or(TpuError::Missing("one-way ICI bandwidth"))?;
        let n = self.chips() as f64;
        Ok(total * ((n - 1.0) / n) / (one_way * links as f64))
    }

    /// Time to load `total` bytes, spread evenly over the slice's hosts, into HBM over
    /// every chip's PCIe link at once.
    pub fn load_from_hosts(&self, total: Bytes) -> Result<Seconds, TpuError> {
        positive("the byte count", total.0)?;
        let pcie = self
            .chip
            .bandwidth(Link::Pcie)
            .ok_or(TpuError::Missing("PCIe bandwidth"))?;
        Ok(total / (pcie * self.chips() as f64))
    }
}

impl From<NotPositive> for TpuError {
    fn from(e: NotPositive) -> TpuError {
        TpuError::BadValue(e.what)
    }
}

/// A point-to-point transfer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Transfer {
    /// When the first byte arrives: hops × per-hop latency.
    pub first_byte: Seconds,
    /// Streaming time: `bytes / (links · W)`, what the book calls the transfer time.
    pub streaming: Seconds,
    /// When the last byte arrives: `first_byte + streaming`.
    pub total: Seconds,
}

/// `bytes` over `links` parallel links of bandwidth `w` each, `hops` hops away.
pub fn transfer(bytes: Bytes, links: u32, w: BytesPerSec, hops: u32) -> Result<Transfer, TpuError> {
    if !(bytes.0.is_finite() && bytes.0 >= 0.0) {
        return Err(TpuError::BadValue("the byte count"));
    }
    if links == 0 {
        return Err(TpuError::BadValue("the number of links"));
    }
    positive("the link bandwidth", w.0)?;
    let first_byte = ICI_HOP_LATENCY.value * hops as f64;
    let streaming = bytes / (w * links as f64);
    Ok(Transfer {
        first_byte,
        streaming,
        total: first_byte + streaming,
    })
}

/// Lower bound on a sampling step: stream `param_bytes` from the HBM of `chips` chips once,
/// `param_bytes / (chips · W_hbm)`.
pub fn weight_load_time(param_bytes: Bytes, chips: u64, chip: &Chip) -> Result<Seconds, TpuError> {
    positive("the parameter bytes", param_bytes.0)?;
    if chips == 0 {
        return Err(TpuError::BadValue("the chip count"));
    }
    Ok(param_bytes / (chip.hbm_bw() * chips as f64))
}

/// FLOPs one MXU of side `s` does per cycle: one `[8, s] @ [s, s]` every 8 cycles, `2·s²`.
pub fn mxu_flops_per_cycle(side: u32) -> Flops {
    Flops(2.0 * side as f64 * side as f64)
}

/// Throughput of one MXU: `2·s²·clock`.
pub fn mxu_rate(core: &TensorCoreSpec) -> Option<FlopsPerSec> {
    let clock = core.clock_hz?.value;
    Some(FlopsPerSec(
        mxu_flops_per_cycle(core.mxu_side.value).0 * clock,
    ))
}

/// MXU throughput of one TensorCore: MXUs per core × [`mxu_rate`].
pub fn core_mxu_rate(core: &TensorCoreSpec) -> Option<FlopsPerSec> {
    Some(mxu_rate(core)? * core.mxus_per_core?.value as f64)
}

/// Vector throughput of one TensorCore: `8 · 128 · ALUs · clock`.
pub fn vpu_rate(core: &TensorCoreSpec) -> Option<FlopsPerSec> {
    let [sub, lanes] = VPU_SHAPE.value;
    Some(FlopsPerSec(
        sub as f64 * lanes as f64 * core.vpu_alus?.value as f64 * core.clock_hz?.value,
    ))
}

/// Vector-register memory per core: `VREGs · 8 · 128 · 4` bytes.
pub fn vreg_bytes(core: &TensorCoreSpec) -> Option<Bytes> {
    let [sub, lanes] = VPU_SHAPE.value;
    Some(Bytes(
        core.vregs?.value as f64 * sub as f64 * lanes as f64 * 4.0,
    ))
}

/// TensorCores per chip, from the registry's topology.
pub fn cores_per_chip(chip: &Chip) -> Option<u32> {
    match chip.topology {
        Topology::Torus { cores, .. } => Some(cores),
        Topology::NvlinkDomain { .. } => None,
    }
}

/// Bandwidth from VMEM to the MXU: about 22× HBM.
pub fn vmem_bandwidth(chip: &Chip) -> BytesPerSec {
    chip.hbm_bw() * VMEM_OVER_HBM.value
}

/// Bytes over one kind of link, for [`which_link_binds`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinkLoad {
    /// Which link.
    pub link: Link,
    /// Bytes moved over it.
    pub bytes: Bytes,
    /// How many such links carry them in parallel.
    pub lanes: u32,
    /// Use the one-way bandwidth per link (where the registry has one) instead of the
    /// book's bidirectional convention.
    pub one_way: bool,
}

impl LinkLoad {
    /// `bytes` over one link of the kind, in the registry's convention.
    pub fn new(link: Link, bytes: Bytes) -> LinkLoad {
        LinkLoad {
            link,
            bytes,
            lanes: 1,
            one_way: false,
        }
    }
}

/// The roofline of `flops` in `dtype` on one chip against bytes over several links:
/// the slowest stage sets the lower bound (`Analysis::lower`), the sum the upper.
pub fn which_link_binds(
    chip: &Chip,
    dtype: Dtype,
    flops: Flops,
    loads: &[LinkLoad],
) -> Result<Analysis, TpuError> {
    if !(flops.0.is_finite() && flops.0 >= 0.0) {
        return Err(TpuError::BadValue("the FLOP count"));
    }
    let (_, rate) = chip
        .peak_or_wider(dtype)
        .ok_or(TpuError::Missing("peak for this format"))?;
    let mut traffic = Vec::with_capacity(loads.len());
    for l in loads {
        if !(l.bytes.0.is_finite() && l.bytes.0 >= 0.0) {
            return Err(TpuError::BadValue("the byte count"));
        }
        if l.lanes == 0 {
            return Err(TpuError::BadValue("the number of links"));
        }
        let spec = chip.link(l.link).ok_or(TpuError::Missing("link"))?;
        let w = if l.one_way {
            spec.one_way.unwrap_or(spec.bandwidth)
        } else {
            spec.bandwidth
        };
        traffic.push((l.link, l.bytes, w * l.lanes as f64));
    }
    Ok(Analysis::new(flops, rate, &traffic))
}

/// `n` followed by `word`, pluralised with an `s` unless `n` is 1.
fn counted(n: u64, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// The group sizes that split `n` chips evenly, ascending: every divisor of
/// `n` (the sizes a mesh axis, a ring or a slice count can take), found by
/// trial up to `√n` so that a reader's million-chip cluster costs a thousand
/// steps, not a million.
pub fn divisors(n: u32) -> Vec<u32> {
    let mut small = Vec::new();
    let mut large = Vec::new();
    let mut i = 1u32;
    while u64::from(i) * u64::from(i) <= u64::from(n) {
        if n.is_multiple_of(i) {
            small.push(i);
            if i != n / i {
                large.push(n / i);
            }
        }
        i += 1;
    }
    small.extend(large.into_iter().rev());
    small
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hardware::{chip, tensor_core};

    #[test]
    fn divisors_are_every_whole_split_in_order() {
        for n in 0..3000u32 {
            let by_trial: Vec<u32> = (1..=n).filter(|d| n.is_multiple_of(*d)).collect();
            assert_eq!(divisors(n), by_trial, "{n}");
        }
        assert_eq!(divisors(8960).len(), 36); // 2⁸ · 5 · 7
        assert_eq!(
            divisors(u32::MAX),
            [
                1,
                3,
                5,
                15,
                17,
                51,
                85,
                255,
                257,
                771,
                1285,
                3855,
                4369,
                13107,
                21845,
                65535,
                65537,
                196611,
                327685,
                983055,
                1114129,
                3342387,
                5570645,
                16711935,
                16843009,
                50529027,
                84215045,
                252645135,
                286331153,
                858993459,
                1431655765,
                u32::MAX
            ]
        );
    }

    #[test]
    fn slices_and_wraparound() {
        let v5e = chip("v5e").unwrap();
        let s = Slice::new(v5e, &[8, 16]).unwrap();
        assert_eq!(s.wrap(), [false, true, false]);
        assert_eq!(s.max_hops_along(0), 7);
        assert_eq!(s.max_hops_along(1), 8);
        assert_eq!(s.neighbours([0, 0, 0]).unwrap().len(), 3);
        assert!(matches!(
            Slice::new(v5e, &[32, 8]),
            Err(TpuError::TooBig { .. })
        ));
        let v5p = chip("v5p").unwrap();
        let cube = Slice::new(v5p, &[4, 4, 4]).unwrap();
        assert_eq!(cube.wrap(), [true, true, true]);
        assert_eq!(cube.neighbours([0, 0, 0]).unwrap().len(), 6);
        assert_eq!(cube.diameter(), 6);
        let small = Slice::new(v5p, &[2, 2, 4]).unwrap();
        assert_eq!(small.wrap(), [false, false, false]);
        assert_eq!(Slice::new(v5p, &[28, 16, 20]).unwrap().hosts(), 2240);
        assert_eq!(
            Slice::new(chip("h100").unwrap(), &[8])
                .unwrap_err()
                .to_string(),
            "h100 is not a TPU; it has no ICI torus"
        );
        assert_eq!(
            s.neighbours([8, 0, 0]).unwrap_err().to_string(),
            "chip {8,0,0} lies outside the 8x16x1 slice"
        );
        let pair = Slice::new(v5e, &[2, 1]).unwrap();
        assert_eq!(pair.neighbours([0, 0, 0]).unwrap(), vec![[1, 0, 0]]);
    }

    #[test]
    fn shapes_the_chip_cannot_form_are_refused_and_hosts_are_counted() {
        let v5e = chip("v5e").unwrap();
        let e = Slice::parse(v5e, "4x4x4").unwrap_err();
        assert!(e.contains("2D torus") && e.contains("4x4x4"), "{e}");
        assert_eq!(
            Slice::from_coord(v5e, [4, 4, 4]).unwrap_err().to_string(),
            "v5e is a 2D torus, so a slice needs at most 2 axes, not 3"
        );
        assert_eq!(Slice::from_coord(v5e, [4, 4, 1]).unwrap().chips(), 16);
        assert_eq!(
            Slice::parse(v5e, "4xa").unwrap_err().to_string(),
            "“4xa” is not a slice shape like 8x16 or 4x4x4"
        );
        assert_eq!(
            Slice::parse(v5e, "0x4").unwrap_err().to_string(),
            "slice axis #1 has length 0"
        );
        let odd = Slice::parse(v5e, "3x5").unwrap();
        assert_eq!(odd.hosts(), 3);
        assert_eq!(odd.hosts_text(), "3 hosts");
        assert_eq!(odd.chips_text(), "15 chips");
        let one = Slice::parse(v5e, "2x2").unwrap();
        assert_eq!(one.hosts_text(), "1 host");
        assert_eq!(Slice::parse(v5e, "1").unwrap().chips_text(), "1 chip");
        assert_eq!(Slice::parse(v5e, "16x16").unwrap().hosts(), 32);
        let v5p = chip("v5p").unwrap();
        assert_eq!(Slice::parse(v5p, "4x4x4").unwrap().hosts(), 16);
    }

    #[test]
    fn core_rates() {
        let v5e = tensor_core("v5e").unwrap();
        assert!((mxu_rate(v5e).unwrap().0 - 4.9152e13).abs() < 1e9);
        assert!((core_mxu_rate(v5e).unwrap().0 - 1.966e14).abs() < 1e11);
        let v5p = tensor_core("v5p").unwrap();
        assert_eq!(vpu_rate(v5p).unwrap().0, 8.0 * 128.0 * 4.0 * 1.75e9);
        assert_eq!(vreg_bytes(v5p).unwrap().0, 262_144.0);
        assert!(vpu_rate(tensor_core("v3").unwrap()).is_none());
    }

    #[test]
    fn transfers_and_bottlenecks() {
        let t = transfer(Bytes(9e10), 2, BytesPerSec(4.5e10), 6).unwrap();
        assert_eq!(t.streaming, Seconds(1.0));
        assert!((t.total.0 - 1.000006).abs() < 1e-12);
        assert_eq!(
            transfer(Bytes(1.0), 0, BytesPerSec(1.0), 0)
                .unwrap_err()
                .to_string(),
            "the number of links must be a finite positive number"
        );
        let v5e = chip("v5e").unwrap();
        let a = which_link_binds(
            v5e,
            Dtype::Bf16,
            Flops(1e9),
            &[
                LinkLoad::new(Link::Hbm, Bytes(1e9)),
                LinkLoad::new(Link::Pcie, Bytes(1e9)),
            ],
        )
        .unwrap();
        assert_eq!(a.binding, Some(Link::Pcie));
        assert_eq!(
            weight_load_time(Bytes(1.0), 0, v5e)
                .unwrap_err()
                .to_string(),
            "the chip count must be a finite positive number"
        );
    }
}
