//! A map of one TPU chip (Part 2, "What Is a TPU?", and the book's
//! `tpu-chip`, `tpu-bandwidth`, `cores` and `pcie` figures): its parts, what
//! each holds or computes, and the bandwidth of every path data takes, all read
//! from the registry for the chosen generation.
//!
//! A part the book gives no figure for on a generation says so (`None`) rather
//! than borrowing another generation's number. Each path also carries its
//! bandwidth relative to the fastest one, on a linear and a logarithmic scale,
//! so that a drawing can size arrows to scale.
//!
//! ```
//! use ridgeline_core::hardware::chip_map::{chip_map, Part};
//! use ridgeline_core::hardware::chip;
//!
//! let map = chip_map(chip("v5p").unwrap()).unwrap();
//! let hbm = map.path(Part::Hbm).unwrap();
//! let pcie = map.path(Part::Pcie).unwrap();
//! assert!(hbm.bandwidth.0 > 100.0 * pcie.bandwidth.0);
//! ```

use crate::dtype::Dtype;
use crate::hardware::tpu::{core_mxu_rate, cores_per_chip, vmem_bandwidth, vpu_rate, vreg_bytes};
use crate::hardware::{tensor_core, Chip, Link, Topology, VMEM_CAPACITY};
use crate::units::{Bytes, BytesPerSec, FlopsPerSec, Seconds};

/// The parts of a TPU chip the book names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Part {
    /// A TensorCore: MXUs, VPU, VMEM, registers and a scalar core.
    TensorCore,
    /// The matrix unit, a systolic array.
    Mxu,
    /// The vector unit, for elementwise work.
    Vpu,
    /// The on-chip scratchpad the MXU and VPU read from.
    Vmem,
    /// The vector registers the VPU computes on.
    Vregs,
    /// The scalar core that issues instructions and handles control flow.
    ScalarCore,
    /// High-bandwidth memory.
    Hbm,
    /// Inter-chip interconnect to the torus neighbours.
    Ici,
    /// The link to the host CPU.
    Pcie,
    /// The data-centre network between hosts.
    Dcn,
}

impl Part {
    /// Every part, from the inside of a core outwards.
    pub const ALL: [Part; 10] = [
        Part::TensorCore,
        Part::Mxu,
        Part::Vpu,
        Part::Vregs,
        Part::ScalarCore,
        Part::Vmem,
        Part::Hbm,
        Part::Ici,
        Part::Pcie,
        Part::Dcn,
    ];

    /// A short name for URLs (`vmem`).
    pub fn name(self) -> &'static str {
        match self {
            Part::TensorCore => "tensorcore",
            Part::Mxu => "mxu",
            Part::Vpu => "vpu",
            Part::Vmem => "vmem",
            Part::Vregs => "vregs",
            Part::ScalarCore => "scalar",
            Part::Hbm => "hbm",
            Part::Ici => "ici",
            Part::Pcie => "pcie",
            Part::Dcn => "dcn",
        }
    }

    /// Parses a short name, with a message listing the names otherwise.
    pub fn parse(text: &str) -> Result<Part, String> {
        let t = text.trim().to_ascii_lowercase();
        Part::ALL
            .into_iter()
            .find(|p| p.name() == t)
            .ok_or_else(|| {
                let names: Vec<&str> = Part::ALL.iter().map(|p| p.name()).collect();
                format!(
                    "unknown part “{}”; use one of {}",
                    text.chars().take(20).collect::<String>(),
                    names.join(", ")
                )
            })
    }
}

/// What the map shows for one part.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PartInfo {
    /// Which part.
    pub part: Part,
    /// How many the chip has (per chip; MXUs and VREGs per core).
    pub count: Option<u32>,
    /// What it holds, if it is a memory.
    pub capacity: Option<Bytes>,
    /// What it computes per second (bf16 for the MXU), if it computes.
    pub rate: Option<FlopsPerSec>,
    /// The bandwidth into or out of it, if it is a path.
    pub bandwidth: Option<BytesPerSec>,
}

/// One path data takes, to scale.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Path {
    /// The part the path belongs to (`Hbm` is HBM → VMEM).
    pub part: Part,
    /// From where, to where.
    pub label: &'static str,
    /// Bytes per second (for ICI, all of a chip's links together, both ways).
    pub bandwidth: BytesPerSec,
    /// Bandwidth over the fastest path's.
    pub linear: f64,
    /// `log10` of the bandwidth relative to the slowest path, over the same for
    /// the fastest: 0 for the slowest path, 1 for the fastest.
    pub log: f64,
}

impl Path {
    /// The time to move `bytes` over this path at its full bandwidth.
    pub fn time(&self, bytes: Bytes) -> Seconds {
        bytes / self.bandwidth
    }
}

/// A chip's map.
#[derive(Debug, Clone, PartialEq)]
pub struct ChipMap {
    /// The chip.
    pub chip: &'static Chip,
    /// TensorCores per chip.
    pub cores: u32,
    /// ICI neighbours per chip (4 on a 2D torus, 6 on a 3D one).
    pub ici_links: u32,
    /// Every part.
    pub parts: Vec<PartInfo>,
    /// The paths, fastest first.
    pub paths: Vec<Path>,
}

impl ChipMap {
    /// The information on one part.
    pub fn part(&self, part: Part) -> Option<&PartInfo> {
        self.parts.iter().find(|p| p.part == part)
    }

    /// The path of one part, if it is one.
    pub fn path(&self, part: Part) -> Option<&Path> {
        self.paths.iter().find(|p| p.part == part)
    }

    /// Each path's bandwidth over the next slower one's (fastest first): how far
    /// bandwidth falls at each step down the hierarchy.
    pub fn steps_down(&self) -> Vec<(Part, Part, f64)> {
        self.paths
            .windows(2)
            .map(|w| (w[0].part, w[1].part, w[0].bandwidth.0 / w[1].bandwidth.0))
            .collect()
    }
}

/// A logarithmic scale of bandwidth from the slowest path (0) to the fastest
/// (1), shared by several maps so that two chips' paths can be drawn to one
/// scale.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LogScale {
    slowest: f64,
    span: f64,
}

impl LogScale {
    /// The scale from `slowest` to `fastest` bytes per second.
    pub fn new(fastest: f64, slowest: f64) -> LogScale {
        LogScale {
            slowest,
            span: (fastest / slowest).log10(),
        }
    }

    /// The scale covering every path of `maps` (one map's is its paths' own `log`).
    pub fn of(maps: &[&ChipMap]) -> LogScale {
        let all = || {
            maps.iter()
                .flat_map(|m| m.paths.iter())
                .map(|p| p.bandwidth.0)
        };
        let fastest = all().fold(f64::NAN, f64::max);
        let slowest = all().fold(f64::NAN, f64::min);
        if fastest.is_nan() {
            LogScale::new(1.0, 1.0)
        } else {
            LogScale::new(fastest, slowest)
        }
    }

    /// Where `bandwidth` sits on the scale: 0 at the slowest, 1 at the fastest
    /// (1 for every path when all are equally fast).
    pub fn position(&self, bandwidth: BytesPerSec) -> f64 {
        if self.span > 0.0 {
            (bandwidth.0 / self.slowest).log10() / self.span
        } else {
            1.0
        }
    }
}

/// The map of `chip`; errors for a chip that is not a TPU.
pub fn chip_map(chip: &'static Chip) -> Result<ChipMap, String> {
    let dims = match chip.topology {
        Topology::Torus { dims, .. } => dims,
        Topology::NvlinkDomain { .. } => {
            return Err(format!(
                "{} is not a TPU; the chip map shows TPUs",
                chip.name
            ))
        }
    };
    let cores = cores_per_chip(chip).unwrap_or(1);
    let ici_links = 2 * dims as u32;
    let tc = tensor_core(chip.id);
    let vmem = vmem_bandwidth(chip);
    let info = |part, count, capacity, rate, bandwidth| PartInfo {
        part,
        count,
        capacity,
        rate,
        bandwidth,
    };
    let ici = chip.bandwidth(Link::Ici).map(|w| w * ici_links as f64);
    let parts = vec![
        info(
            Part::TensorCore,
            Some(cores),
            None,
            chip.peak(Dtype::Bf16),
            None,
        ),
        info(
            Part::Mxu,
            tc.and_then(|t| t.mxus_per_core.map(|c| c.value)),
            None,
            tc.and_then(core_mxu_rate),
            Some(vmem),
        ),
        info(Part::Vpu, Some(1), None, tc.and_then(vpu_rate), None),
        info(
            Part::Vregs,
            tc.and_then(|t| t.vregs.map(|v| v.value)),
            tc.and_then(vreg_bytes),
            None,
            None,
        ),
        info(Part::ScalarCore, Some(1), None, None, None),
        // The book gives VMEM's size for the v5e only.
        info(
            Part::Vmem,
            None,
            (chip.id == "v5e").then_some(VMEM_CAPACITY.value),
            None,
            Some(vmem),
        ),
        info(
            Part::Hbm,
            None,
            Some(chip.hbm_capacity.value),
            None,
            Some(chip.hbm_bw()),
        ),
        info(Part::Ici, Some(ici_links), None, None, ici),
        info(Part::Pcie, Some(1), None, None, chip.bandwidth(Link::Pcie)),
        info(Part::Dcn, Some(1), None, None, chip.bandwidth(Link::Dcn)),
    ];
    let mut raw: Vec<(Part, &'static str, BytesPerSec)> = [
        (Part::Vmem, "VMEM → MXU", Some(vmem)),
        (Part::Hbm, "HBM → VMEM", Some(chip.hbm_bw())),
        (Part::Ici, "ICI, all links", ici),
        (
            Part::Pcie,
            "host ↔ HBM over PCIe",
            chip.bandwidth(Link::Pcie),
        ),
        (Part::Dcn, "DCN, per chip", chip.bandwidth(Link::Dcn)),
    ]
    .into_iter()
    .filter_map(|(p, l, b)| b.filter(|b| b.0 > 0.0).map(|b| (p, l, b)))
    .collect();
    raw.sort_by(|a, b| b.2 .0.total_cmp(&a.2 .0));
    let fastest = raw.first().map_or(1.0, |r| r.2 .0);
    let slowest = raw.last().map_or(1.0, |r| r.2 .0);
    let scale = LogScale::new(fastest, slowest);
    let paths = raw
        .into_iter()
        .map(|(part, label, bandwidth)| Path {
            part,
            label,
            bandwidth,
            linear: bandwidth.0 / fastest,
            log: scale.position(bandwidth),
        })
        .collect();
    Ok(ChipMap {
        chip,
        cores,
        ici_links,
        parts,
        paths,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hardware::{chip, CHIPS};

    #[test]
    fn every_tpu_has_a_map_ordered_fastest_first() {
        for c in CHIPS
            .iter()
            .filter(|c| matches!(c.topology, Topology::Torus { .. }))
        {
            let m = chip_map(c).unwrap();
            assert_eq!(m.parts.len(), Part::ALL.len());
            assert!(m.paths.windows(2).all(|w| w[0].bandwidth >= w[1].bandwidth));
            assert_eq!(m.paths[0].linear, 1.0);
            assert_eq!(m.paths.last().unwrap().log, 0.0);
        }
        assert_eq!(
            chip_map(chip("h100").unwrap()).unwrap_err(),
            "NVIDIA H100 is not a TPU; the chip map shows TPUs"
        );
    }

    #[test]
    fn two_chips_share_one_scale() {
        let (v5p, v5e) = (
            chip_map(chip("v5p").unwrap()).unwrap(),
            chip_map(chip("v5e").unwrap()).unwrap(),
        );
        // One map's scale is its own paths' `log`, exactly.
        let own = LogScale::of(&[&v5p]);
        assert!(v5p.paths.iter().all(|p| own.position(p.bandwidth) == p.log));
        // Together, the fastest of both sits at 1 and the slowest at 0.
        let both = LogScale::of(&[&v5p, &v5e]);
        let all: Vec<&Path> = v5p.paths.iter().chain(&v5e.paths).collect();
        let fastest = all.iter().map(|p| p.bandwidth.0).fold(0.0, f64::max);
        let slowest = all
            .iter()
            .map(|p| p.bandwidth.0)
            .fold(f64::INFINITY, f64::min);
        assert_eq!(both.position(BytesPerSec(fastest)), 1.0);
        assert_eq!(both.position(BytesPerSec(slowest)), 0.0);
        // The v5p's HBM (2.8 TB/s) sits to the right of the v5e's (820 GB/s).
        let hbm = |m: &ChipMap| both.position(m.path(Part::Hbm).unwrap().bandwidth);
        assert!(hbm(&v5p) > hbm(&v5e));
        assert_eq!(LogScale::of(&[]).position(BytesPerSec(5.0)), 1.0);
    }

    #[test]
    fn v5p_steps_down_the_hierarchy() {
        let m = chip_map(chip("v5p").unwrap()).unwrap();
        let hbm_over_ici = m.part(Part::Hbm).unwrap().bandwidth.unwrap().0
            / chip("v5p").unwrap().bandwidth(Link::Ici).unwrap().0;
        assert!((hbm_over_ici - 2.8e12 / 1.8e11).abs() < 1e-9);
        assert_eq!(m.ici_links, 6);
        assert_eq!(
            m.part(Part::Vregs).unwrap().capacity,
            Some(Bytes(262_144.0))
        );
        assert!(m.steps_down().iter().all(|s| s.2 >= 1.0));
        // Moving 1 GB at the book's bandwidths: 1e9 / 2.8e12 = 357 µs from HBM,
        // 1e9 / 1.6e10 = 62.5 ms over PCIe (Part 2), 175 times as long.
        let gb = Bytes(1e9);
        let (hbm, pcie) = (m.path(Part::Hbm).unwrap(), m.path(Part::Pcie).unwrap());
        assert!((hbm.time(gb).0 - 1e9 / 2.8e12).abs() < 1e-15);
        assert!((pcie.time(gb).0 - 0.0625).abs() < 1e-15);
        assert!((pcie.time(gb).0 / hbm.time(gb).0 - 175.0).abs() < 1e-9);
        assert_eq!(Part::parse("VMEM"), Ok(Part::Vmem));
        assert!(Part::parse("cache").unwrap_err().contains("hbm"));
    }
}
