//! How to think about GPUs (Part 12): the chip as many small SMs, the network
//! as NVLink domains joined by an InfiniBand fat tree, what collectives cost on
//! each, and the training rooflines that follow.
//!
//! A [`GpuSystem`] bundles a registry chip with the bandwidths Part 12 reasons
//! with: NVLink per GPU inside the node (`W_gpu`) and scale-out egress per node
//! across nodes (`W_node`). Its critical intensities give the per-GPU token
//! batches data parallelism needs, and [`network::FatTree`] prices collectives
//! level by level.
//!
//! Each view a Part 12 widget shows has one parameters type and one function:
//! [`anatomy`] (the SM and the chip's parts), [`simt`] (warp divergence, cycle
//! by cycle), [`memory`] (the hierarchy beside a TPU's), [`compare`] (the spec
//! table and GPU-vs-TPU units), [`node`] (NVLink nodes), [`superpod`] (the fat
//! tree with rails, oversubscription and bisection), [`collectives`] (cost
//! against message size, SHARP, the book's measurements) and [`rooflines`]
//! (the parallelism rooflines, pipeline schedule and worked examples);
//! [`facts`] names the numbers the chapter's prose quotes.
//!
//! ```
//! use ridgeline_core::dtype::Dtype;
//! use ridgeline_core::gpu::{GpuSystem, Scope};
//! use ridgeline_core::comms::collectives::Collective;
//! use ridgeline_core::gpu::network::CollectiveOptions;
//! use ridgeline_core::units::Bytes;
//!
//! let h100 = GpuSystem::from_id("h100", Dtype::Bf16).unwrap();
//! // DP/FSDP needs C / W tokens per GPU: 2200 inside a node, 2475 across nodes.
//! assert_eq!(h100.dp_threshold(Scope::Node).unwrap(), 2200.0);
//! assert_eq!(h100.dp_threshold(Scope::Network).unwrap(), 2475.0);
//!
//! // An AllGather of 1 GB over 2 nodes is bound by the NVLink level (514 GB/s),
//! // not by the 2-node ring over InfiniBand (800 GB/s).
//! let tree = h100.fat_tree().unwrap();
//! let cost = tree
//!     .collective(Collective::AllGather, Bytes(1e9), 16, CollectiveOptions::default())
//!     .unwrap();
//! assert!((1e9 / cost.total.0 / 1e9 - 514.3).abs() < 0.1);
//! ```

pub mod anatomy;
pub mod collectives;
pub mod compare;
pub mod facts;
pub mod memory;
pub mod network;
pub mod node;
pub mod parallelism;
pub mod pipelining;
pub mod rooflines;
pub mod simt;
pub mod specs;
pub mod superpod;

use crate::check::{positive, NotPositive};
use crate::comms::collectives::Network;
use crate::dtype::Dtype;
use crate::hardware::{chip, Chip, Link, Topology, Vendor, ICI_HOP_LATENCY};
use crate::roofline::derate::Derate;
use crate::units::{Bytes, BytesPerSec, FlopsPerSec, Intensity};
use specs::{GpuGeneration, Hertz, SM};
use std::fmt;

/// Why a GPU calculation could not be done.
#[derive(Debug, Clone, PartialEq)]
pub enum GpuError {
    /// No chip or variant has this id.
    UnknownChip(String),
    /// The chip is a TPU.
    NotAGpu(&'static str),
    /// The book gives the chip no such figure.
    Missing {
        /// Chip id.
        chip: &'static str,
        /// What is missing.
        what: &'static str,
    },
    /// A quantity that must be positive and finite was not.
    NotPositive {
        /// Which input.
        what: &'static str,
        /// Its value.
        value: f64,
    },
    /// A count that must be at least one was zero.
    Zero {
        /// Which input.
        what: &'static str,
    },
    /// A value above its allowed maximum.
    TooLarge {
        /// Which input.
        what: &'static str,
        /// Its value.
        value: f64,
        /// The maximum.
        max: f64,
    },
    /// A count that must divide another did not.
    NotDivisible {
        /// Which input.
        what: &'static str,
        /// Its value.
        value: u64,
        /// What it must be a multiple of.
        of: u64,
    },
    /// The collectives model refused a collective (its message says why).
    Collective(String),
}

impl fmt::Display for GpuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GpuError::UnknownChip(id) => {
                write!(f, "no GPU called \u{201c}{id}\u{201d} in the registry")
            }
            GpuError::NotAGpu(id) => write!(f, "{id} is a TPU, not a GPU"),
            GpuError::Missing { chip, what } => write!(f, "the book gives {chip} no {what}"),
            GpuError::NotPositive { what, value } => {
                write!(f, "{what} must be a positive number (got {value})")
            }
            GpuError::Zero { what } => write!(f, "{what} must be at least 1"),
            GpuError::TooLarge { what, value, max } => {
                write!(f, "{what} is {value}, more than its maximum of {max}")
            }
            GpuError::NotDivisible { what, value, of } => {
                write!(f, "{what} ({value}) must be a multiple of {of}")
            }
            GpuError::Collective(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for GpuError {}

impl From<NotPositive> for GpuError {
    fn from(e: NotPositive) -> GpuError {
        GpuError::NotPositive {
            what: e.what,
            value: e.value,
        }
    }
}

/// Checks that a count is at least one.
pub(crate) fn nonzero(what: &'static str, value: u64) -> Result<u64, GpuError> {
    if value == 0 {
        Err(GpuError::Zero { what })
    } else {
        Ok(value)
    }
}

/// Which bandwidth a collective runs at: inside the NVLink domain or across it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scope {
    /// Within one node (NVLink domain): each GPU's NVLink egress, `W_gpu`.
    Node,
    /// Across nodes over the scale-out fat tree: each node's egress, `W_node`.
    Network,
}

impl Scope {
    /// Human label.
    pub fn label(self) -> &'static str {
        match self {
            Scope::Node => "inside the NVLink domain",
            Scope::Network => "across nodes",
        }
    }
}

/// A GPU as Part 12 reasons about it: a peak, HBM, and the two collective bandwidths.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GpuSystem {
    /// Id (`h100`, or a variant such as `h800`).
    pub id: &'static str,
    /// Display name.
    pub name: &'static str,
    /// The registry chip (the base chip for a variant).
    pub chip: &'static Chip,
    /// The format of the math.
    pub dtype: Dtype,
    /// Dense peak in that format.
    pub peak: FlopsPerSec,
    /// GPUs in one NVLink domain (`D_node`).
    pub gpus_per_node: u32,
    /// SMs per GPU.
    pub sms: u32,
    /// NVLink egress per GPU (`W_gpu`).
    pub w_gpu: BytesPerSec,
    /// Scale-out egress per node (`W_node`), where the book gives it.
    pub w_node: Option<BytesPerSec>,
    /// The shares of the quoted rates assumed ([`Derate::PEAK`] unless
    /// [`GpuSystem::derated`] set them): `peak`, `w_gpu` and `w_node` already
    /// carry them, and so does every time computed from the system.
    pub derate: Derate,
}

impl GpuSystem {
    /// The system for a registry GPU computing in `dtype`.
    pub fn new(chip: &'static Chip, dtype: Dtype) -> Result<GpuSystem, GpuError> {
        if chip.vendor != Vendor::Nvidia {
            return Err(GpuError::NotAGpu(chip.id));
        }
        let Topology::NvlinkDomain {
            gpus,
            sms,
            node_egress,
            ..
        } = chip.topology
        else {
            return Err(GpuError::NotAGpu(chip.id));
        };
        let peak = chip.peak(dtype).ok_or(GpuError::Missing {
            chip: chip.id,
            what: "peak in that format",
        })?;
        let w_gpu = chip.bandwidth(Link::NvLink).ok_or(GpuError::Missing {
            chip: chip.id,
            what: "NVLink bandwidth",
        })?;
        Ok(GpuSystem {
            id: chip.id,
            name: chip.name,
            chip,
            dtype,
            peak,
            gpus_per_node: gpus,
            sms,
            w_gpu,
            w_node: node_egress,
            derate: Derate::PEAK,
        })
    }

    /// The same GPU at `d`'s shares of its quoted rates (replacing any shares
    /// set before): the peak at the FLOPs share, NVLink and the scale-out
    /// network (every level of the fat tree) at the link share, HBM at the
    /// HBM share. A collective's start-up cost is not a rate and stays.
    ///
    /// ```
    /// use ridgeline_core::dtype::Dtype;
    /// use ridgeline_core::gpu::{GpuSystem, Scope};
    /// use ridgeline_core::roofline::derate::Derate;
    ///
    /// let h100 = GpuSystem::from_id("h100", Dtype::Bf16).unwrap();
    /// let slow = h100.derated(Derate::new(1.0, 1.0, 0.8).unwrap());
    /// // 80 % of 450 GB/s of NVLink: the critical batch C / W grows by 1/0.8.
    /// assert!((slow.w_gpu.0 - 3.6e11).abs() < 1.0);
    /// assert!((slow.alpha(Scope::Node).unwrap().0 - 2750.0).abs() < 1e-9);
    /// ```
    pub fn derated(self, d: Derate) -> GpuSystem {
        let was = self.derate;
        let link = |w: BytesPerSec| d.bandwidth(Link::NvLink, w * (1.0 / was.link()));
        GpuSystem {
            peak: d.rate(self.peak * (1.0 / was.flops())),
            w_gpu: link(self.w_gpu),
            w_node: self.w_node.map(link),
            derate: d,
            ..self
        }
    }

    /// The system for a registry id or a Part 12 variant id (`h800`).
    pub fn from_id(id: &str, dtype: Dtype) -> Result<GpuSystem, GpuError> {
        if let Some(v) = specs::variant(id) {
            let base = chip(v.base).ok_or_else(|| GpuError::UnknownChip(v.base.to_string()))?;
            let mut sys = GpuSystem::new(base, dtype)?;
            sys.id = v.id;
            sys.name = v.name;
            sys.w_gpu = v.nvlink;
            return Ok(sys);
        }
        let c = chip(id).ok_or_else(|| GpuError::UnknownChip(id.trim().to_string()))?;
        GpuSystem::new(c, dtype)
    }

    /// The Part 12 generation row of this GPU.
    pub fn generation(&self) -> Option<&'static GpuGeneration> {
        specs::generation(self.chip.id)
    }

    /// The collective bandwidth in a scope: `W_gpu` in the node, `W_node` beyond it.
    pub fn w_collective(&self, scope: Scope) -> Result<BytesPerSec, GpuError> {
        match scope {
            Scope::Node => Ok(self.w_gpu),
            Scope::Network => self.w_node.ok_or(GpuError::Missing {
                chip: self.chip.id,
                what: "scale-out (node egress) bandwidth",
            }),
        }
    }

    /// The links of a scope as the collectives model of Part 3 takes them: a
    /// ring whose members (GPUs in a node, or nodes) each send `W_collective`
    /// one way, so that an AllGather of `B` over `N` takes `B(N − 1)/(N · W)`
    /// (Part 12), and each hop at least the book's `T_min`, as the training
    /// model's chip-to-chip links ([`Network::interconnect`]).
    pub fn collective_network(&self, scope: Scope) -> Result<Network, GpuError> {
        let w = self.w_collective(scope)?;
        Ok(Network {
            name: self.name,
            bidi: w * 2.0,
            one_way: w,
            hop_latency: ICI_HOP_LATENCY.value,
            bidirectional: false,
        })
    }

    /// The critical intensity `α = C / W_collective` of a scope.
    pub fn alpha(&self, scope: Scope) -> Result<Intensity, GpuError> {
        Ok(self.peak / self.w_collective(scope)?)
    }

    /// The HBM ridge `C / W_hbm` (both at the shares assumed).
    pub fn hbm_ridge(&self) -> Intensity {
        self.peak / self.derate.bandwidth(Link::Hbm, self.chip.hbm_bw())
    }

    /// The chip's Tensor Cores (`SMs × 4`).
    pub fn tensor_cores(&self) -> u32 {
        self.sms * SM.tensor_cores()
    }

    /// The chip's fp32 CUDA cores (`SMs × 4 × 32`).
    pub fn cuda_cores(&self) -> u32 {
        cuda_cores(self.sms)
    }

    /// The scale-out fat tree this GPU's nodes sit in.
    pub fn fat_tree(&self) -> Result<network::FatTree, GpuError> {
        network::FatTree::for_system(self)
    }
}

/// Dense FLOPs one Tensor Core does per cycle: `C / (SMs · 4 · clock)`.
pub fn tensor_core_flops_per_cycle(
    peak: FlopsPerSec,
    sms: u32,
    clock: Hertz,
) -> Result<f64, GpuError> {
    positive("peak FLOPs/s", peak.0)?;
    nonzero("SM count", u64::from(sms))?;
    positive("clock", clock.0)?;
    Ok(peak.0 / (f64::from(sms) * f64::from(SM.tensor_cores()) * clock.0))
}

/// fp32 CUDA cores on a chip of `sms` SMs: `SMs · 4 · 32`.
pub fn cuda_cores(sms: u32) -> u32 {
    sms.saturating_mul(SM.cuda_cores())
}

/// The vector (CUDA-core) rate: `cores · clock · FLOPs per core per cycle`
/// (1 for a plain op, 2 counting an FMA).
pub fn vector_rate(
    cores: u32,
    clock: Hertz,
    flops_per_cycle: f64,
) -> Result<FlopsPerSec, GpuError> {
    nonzero("CUDA cores", u64::from(cores))?;
    positive("clock", clock.0)?;
    positive("FLOPs per core per cycle", flops_per_cycle)?;
    Ok(FlopsPerSec(f64::from(cores) * clock.0 * flops_per_cycle))
}

/// The clock implied by a published vector rate: `rate / (cores · FLOPs per cycle)`.
pub fn clock_from_vector_rate(
    rate: FlopsPerSec,
    cores: u32,
    flops_per_cycle: f64,
) -> Result<Hertz, GpuError> {
    positive("vector FLOPs/s", rate.0)?;
    nonzero("CUDA cores", u64::from(cores))?;
    positive("FLOPs per core per cycle", flops_per_cycle)?;
    Ok(Hertz(rate.0 / (f64::from(cores) * flops_per_cycle)))
}

/// Warps that fit on one SM when every thread uses `registers_per_thread` registers:
/// `register file / (4 B · 32 threads · registers)`, at most 64.
pub fn resident_warps(registers_per_thread: u32) -> Result<u32, GpuError> {
    nonzero("registers per thread", u64::from(registers_per_thread))?;
    if registers_per_thread > SM.max_registers_per_thread {
        return Err(GpuError::TooLarge {
            what: "registers per thread",
            value: f64::from(registers_per_thread),
            max: f64::from(SM.max_registers_per_thread),
        });
    }
    let per_warp =
        u64::from(SM.register_bytes) * u64::from(SM.warp_size) * u64::from(registers_per_thread);
    let file: u64 = crate::check::whole(SM.register_file().0).unwrap_or(0);
    Ok(u32::try_from(file / per_warp)
        .unwrap_or(u32::MAX)
        .min(SM.max_resident_warps))
}

/// The fewest GPUs whose HBM holds `bytes` (weights, optimizer state...).
pub fn gpus_to_hold(bytes: Bytes, per_gpu: Bytes) -> Result<u64, GpuError> {
    positive("bytes to hold", bytes.0)?;
    positive("HBM per GPU", per_gpu.0)?;
    let n = (bytes / per_gpu).ceil();
    match crate::check::whole(n) {
        Some(count) if n <= 1e15 => Ok(count),
        _ => Err(GpuError::TooLarge {
            what: "GPU count",
            value: n,
            max: 1e15,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn systems() {
        let h100 = GpuSystem::from_id(" H100", Dtype::Bf16).unwrap();
        assert_eq!(h100.gpus_per_node, 8);
        assert_eq!(h100.alpha(Scope::Node).unwrap().0, 2200.0);
        let h800 = GpuSystem::from_id("h800", Dtype::Bf16).unwrap();
        assert_eq!(h800.alpha(Scope::Node).unwrap().0, 3300.0);
        assert_eq!(h800.peak, h100.peak);
        assert_eq!(
            GpuSystem::from_id("v5e", Dtype::Bf16),
            Err(GpuError::NotAGpu("v5e"))
        );
        assert!(matches!(
            GpuSystem::from_id("x9", Dtype::Bf16),
            Err(GpuError::UnknownChip(_))
        ));
        let a100 = GpuSystem::from_id("a100", Dtype::Bf16).unwrap();
        assert_eq!(
            a100.alpha(Scope::Network).unwrap_err().to_string(),
            "the book gives a100 no scale-out (node egress) bandwidth"
        );
        assert_eq!(
            GpuSystem::from_id("a100", Dtype::Fp4)
                .unwrap_err()
                .to_string(),
            "the book gives a100 no peak in that format"
        );
        assert_eq!(h100.generation().unwrap().name, "H100");
    }

    #[test]
    fn chip_level() {
        assert_eq!(cuda_cores(132), 16_896);
        assert_eq!(resident_warps(256), Ok(8));
        assert_eq!(resident_warps(32), Ok(64));
        assert_eq!(
            resident_warps(0).unwrap_err().to_string(),
            "registers per thread must be at least 1"
        );
        assert_eq!(
            resident_warps(300).unwrap_err().to_string(),
            "registers per thread is 300, more than its maximum of 256"
        );
        assert_eq!(
            tensor_core_flops_per_cycle(FlopsPerSec(1e15), 0, Hertz(1e9))
                .unwrap_err()
                .to_string(),
            "SM count must be at least 1"
        );
        assert_eq!(
            vector_rate(10, Hertz(f64::NAN), 1.0)
                .unwrap_err()
                .to_string(),
            "clock must be a positive number (got NaN)"
        );
        assert_eq!(gpus_to_hold(Bytes(700e9), Bytes(80e9)), Ok(9));
        assert_eq!(
            gpus_to_hold(Bytes(-1.0), Bytes(80e9))
                .unwrap_err()
                .to_string(),
            "bytes to hold must be a positive number (got -1)"
        );
        let e = GpuError::NotPositive {
            what: "bytes",
            value: -1.0,
        };
        assert_eq!(e.to_string(), "bytes must be a positive number (got -1)");
    }
}
