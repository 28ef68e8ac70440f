//! The hardware registry: every chip in the book's spec tables, each number
//! with the part and table it comes from.
//!
//! This is the only place a hardware constant is written down. Pages, plots,
//! exercises and tests all read it from here.
//!
//! ```
//! use ridgeline_core::dtype::Dtype;
//! use ridgeline_core::hardware::{chip, Link};
//!
//! let v5e = chip("v5e").unwrap();
//! let ridge = v5e.ridge(Dtype::Bf16, Link::Hbm).unwrap();
//! assert_eq!(ridge.0.round(), 240.0);
//! ```

use crate::dtype::Dtype;
use crate::units::{Bytes, BytesPerSec, FlopsPerSec, Intensity};

/// Where in the book a number comes from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Source {
    /// The book part (0–12).
    pub part: u8,
    /// The table or section within that part.
    pub table: &'static str,
    /// How a disagreement inside the book was settled, if there was one.
    pub note: Option<&'static str>,
}

const fn src(part: u8, table: &'static str) -> Source {
    Source {
        part,
        table,
        note: None,
    }
}

const fn src_note(part: u8, table: &'static str, note: &'static str) -> Source {
    Source {
        part,
        table,
        note: Some(note),
    }
}

/// A value together with its citation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cited<T> {
    /// The value.
    pub value: T,
    /// Where the book gives it.
    pub source: Source,
}

const fn cited<T>(value: T, source: Source) -> Cited<T> {
    Cited { value, source }
}

/// Who makes a chip; decides which topology model applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Vendor {
    /// Google TPUs: ICI tori.
    Google,
    /// NVIDIA GPUs: NVLink domains and a scale-out fabric.
    Nvidia,
}

/// A kind of data path a chip moves bytes over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Link {
    /// High-bandwidth memory to the compute units.
    Hbm,
    /// TPU inter-chip interconnect, one link, both directions (the book's collective convention).
    Ici,
    /// Data-centre network egress per chip.
    Dcn,
    /// PCIe between a chip and its host.
    Pcie,
    /// NVLink into the node's NVSwitch network, per GPU.
    NvLink,
    /// Scale-out (InfiniBand) egress per GPU.
    ScaleOut,
}

impl Link {
    /// Every link kind, fastest first in the book's hierarchy.
    pub const ALL: [Link; 6] = [
        Link::Hbm,
        Link::NvLink,
        Link::Ici,
        Link::ScaleOut,
        Link::Pcie,
        Link::Dcn,
    ];

    /// Short name for URLs and directives.
    pub fn name(self) -> &'static str {
        match self {
            Link::Hbm => "hbm",
            Link::Ici => "ici",
            Link::Dcn => "dcn",
            Link::Pcie => "pcie",
            Link::NvLink => "nvlink",
            Link::ScaleOut => "scaleout",
        }
    }

    /// Human label for legends.
    pub fn label(self) -> &'static str {
        match self {
            Link::Hbm => "HBM",
            Link::Ici => "ICI (per link, bidirectional)",
            Link::Dcn => "DCN (per chip)",
            Link::Pcie => "PCIe (per chip)",
            Link::NvLink => "NVLink (per GPU)",
            Link::ScaleOut => "InfiniBand (per GPU)",
        }
    }

    /// Parses a short name; `None` for anything unknown.
    pub fn parse(text: &str) -> Option<Link> {
        let t = text.trim().to_ascii_lowercase();
        Link::ALL.into_iter().find(|l| l.name() == t)
    }
}

/// Peak throughput of a chip's matrix units in one format.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Peak {
    /// The format.
    pub dtype: Dtype,
    /// Operations per second, dense.
    pub rate: FlopsPerSec,
    /// Where the book gives it.
    pub source: Source,
}

/// Bandwidth of one kind of link.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinkSpec {
    /// Which link.
    pub link: Link,
    /// Bandwidth in the convention the book's formulas use (bidirectional for ICI).
    pub bandwidth: BytesPerSec,
    /// The one-way figure, where the book gives one separately.
    pub one_way: Option<BytesPerSec>,
    /// Where the book gives it.
    pub source: Source,
}

/// How a TPU slice may wrap around.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WrapRule {
    /// Wraparound only on axes that are whole multiples of a 4×4×4 cube (v4, v5p, TPU7x).
    FullCube,
    /// Wraparound on any axis of length 16 (v5e, v6e).
    Axis16,
    /// Wraparound on any full pod axis (v3).
    FullPod,
}

/// How chips are wired together.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Topology {
    /// A TPU torus.
    Torus {
        /// 2 for a 2D torus (4 neighbours), 3 for 3D (6 neighbours).
        dims: u8,
        /// The largest ICI domain, as (x, y, z); z is 1 for 2D tori.
        max_slice: [u32; 3],
        /// Chips attached to one host, as (x, y, z).
        host: [u32; 3],
        /// When a slice has wraparound links.
        wrap: WrapRule,
        /// TensorCores per chip.
        cores: u32,
        /// Where the book gives these.
        source: Source,
    },
    /// GPUs in an NVLink domain, joined to others by a scale-out fat tree.
    NvlinkDomain {
        /// GPUs sharing one NVLink domain (8 for a DGX node, 72 for NVL72).
        gpus: u32,
        /// Streaming multiprocessors per GPU.
        sms: u32,
        /// Scale-out egress of the whole domain, where the book gives it.
        node_egress: Option<BytesPerSec>,
        /// Where the book gives these.
        source: Source,
    },
}

impl Topology {
    /// The largest ICI domain as a mesh shape, one entry per axis: a TPU's
    /// largest slice over its torus axes (`[16, 20, 28]` for a v5p pod), or
    /// the GPUs of one NVLink domain.
    pub fn largest_mesh(&self) -> Vec<u32> {
        match *self {
            Topology::Torus {
                dims, max_slice, ..
            } => max_slice[..usize::from(dims)].to_vec(),
            Topology::NvlinkDomain { gpus, .. } => vec![gpus],
        }
    }
}

/// One accelerator in the registry.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Chip {
    /// Stable id used in URLs and directives (`v5e`, `h100`).
    pub id: &'static str,
    /// Display name.
    pub name: &'static str,
    /// Maker.
    pub vendor: Vendor,
    /// Dense peak rates by format.
    pub peaks: &'static [Peak],
    /// HBM capacity per chip.
    pub hbm_capacity: Cited<Bytes>,
    /// Link bandwidths; the HBM entry is always present.
    pub links: &'static [LinkSpec],
    /// How chips are wired.
    pub topology: Topology,
}

impl Chip {
    /// The dense peak for `dtype`, if the book gives one.
    pub fn peak(&self, dtype: Dtype) -> Option<FlopsPerSec> {
        peak_in(self.peaks, dtype)
    }

    /// The peak used for a computation in `dtype`: its own entry, or for formats the
    /// chip lacks, the nearest wider format it has (int4 weights run at the int8 rate
    /// where the book gives no int4 figure; fp8 is the int8 figure on GPUs).
    pub fn peak_or_wider(&self, dtype: Dtype) -> Option<(Dtype, FlopsPerSec)> {
        if let Some(rate) = self.peak(dtype) {
            return Some((dtype, rate));
        }
        let fallbacks: &[Dtype] = match dtype {
            Dtype::Fp4 | Dtype::Int4 => &[Dtype::Int8, Dtype::Fp8, Dtype::Bf16],
            Dtype::Fp8 => &[Dtype::Int8, Dtype::Bf16],
            Dtype::Int8 => &[Dtype::Fp8, Dtype::Bf16],
            Dtype::F32 => &[],
            Dtype::Bf16 => &[],
        };
        fallbacks
            .iter()
            .find_map(|d| self.peak(*d).map(|r| (*d, r)))
    }

    /// The formats this chip has a peak for.
    pub fn dtypes(&self) -> impl Iterator<Item = Dtype> + '_ {
        self.peaks.iter().map(|p| p.dtype)
    }

    /// The spec of one link, if the chip has it.
    pub fn link(&self, link: Link) -> Option<&LinkSpec> {
        link_in(self.links, link)
    }

    /// Bandwidth of one link, if the chip has it.
    pub fn bandwidth(&self, link: Link) -> Option<BytesPerSec> {
        self.link(link).map(|l| l.bandwidth)
    }

    /// HBM bandwidth (every chip has one).
    pub fn hbm_bw(&self) -> BytesPerSec {
        self.bandwidth(Link::Hbm).unwrap_or(BytesPerSec(f64::NAN))
    }

    /// The ridge point `C / W` for a format and a link: the intensity above which
    /// an operation is compute-bound on that link.
    pub fn ridge(&self, dtype: Dtype, link: Link) -> Option<Intensity> {
        ridge_point(self.peaks, self.links, dtype, link)
    }

    /// The chips joined by the fastest chip-to-chip link (ICI for TPUs, NVLink for GPUs).
    pub fn interconnect(&self) -> Option<&LinkSpec> {
        self.link(Link::Ici).or_else(|| self.link(Link::NvLink))
    }

    /// The share of its advertised dense peak the chip reaches in normal use, as
    /// a range (low, high): Part 1's figure for its maker ([`ACHIEVABLE_PEAK`]).
    pub fn achievable_share(&self) -> Cited<(f64, f64)> {
        match self.vendor {
            Vendor::Google => ACHIEVABLE_PEAK.tpu,
            Vendor::Nvidia => ACHIEVABLE_PEAK.gpu,
        }
    }
}

/// The share of the advertised peak FLOPs/s a chip reaches in normal use, by
/// maker, as a range (low, high).
#[derive(Debug, Clone, Copy)]
pub struct AchievablePeak {
    /// TPUs.
    pub tpu: Cited<(f64, f64)>,
    /// NVIDIA GPUs (the book names the H100 and B200).
    pub gpu: Cited<(f64, f64)>,
}

/// Part 1's footnote on achievable peak: H100s and B200s reach about 80–85 % of
/// the peak they are sold at, TPUs about 95 %.
pub const ACHIEVABLE_PEAK: AchievablePeak = AchievablePeak {
    tpu: cited(
        (0.95, 0.95),
        src(
            1,
            "Where Does the Time Go?: TPUs get closer to 95% of peak in normal use",
        ),
    ),
    gpu: cited(
        (0.80, 0.85),
        src(
            1,
            "Where Does the Time Go?: H100s and B200s usually reach only 80-85% of claimed peak",
        ),
    ),
};

/// The dense peak for `dtype` among `peaks`.
fn peak_in(peaks: &[Peak], dtype: Dtype) -> Option<FlopsPerSec> {
    peaks.iter().find(|p| p.dtype == dtype).map(|p| p.rate)
}

/// The spec of `link` among `links`.
fn link_in(links: &[LinkSpec], link: Link) -> Option<&LinkSpec> {
    links.iter().find(|l| l.link == link)
}

/// The ridge point `C / W` of a chip given by its peaks and links: the one
/// formula behind [`Chip::ridge`] and, for a reader's chip that is not (yet)
/// a registry `Chip`, `reader::chip::ChipSpec::ridge`.
pub(crate) fn ridge_point(
    peaks: &[Peak],
    links: &[LinkSpec],
    dtype: Dtype,
    link: Link,
) -> Option<Intensity> {
    Some(peak_in(peaks, dtype)? / link_in(links, link)?.bandwidth)
}

const GB: f64 = 1e9;

macro_rules! peaks {
    ($($d:ident = $v:expr, $s:expr);* $(;)?) => {
        &[$(Peak { dtype: Dtype::$d, rate: FlopsPerSec($v), source: $s }),*]
    };
}

const TPU_TABLE: Source = src(2, "TPU specs: per-chip table");
const ICI_TABLE: Source = src(2, "TPU specs: ICI bandwidth per link");
const TOPO: Source = src(2, "TPU specs and topology text (pod, host, wraparound)");
const PCIE: Source = src(2, "host connectivity: PCIe ~1.6e10 B/s per TPU");
const GPU_FLOPS: Source = src(12, "GPU specs: FLOPs and HBM bandwidth table");
const GPU_MEM: Source = src(12, "GPU specs: memory and clocks table");
const NVLINK: Source = src(12, "NVLink generations table: node GPU-to-GPU bandwidth");
const NODE_EGRESS: Source = src(12, "node types: GPU and node egress bandwidth table");
const SCALE_OUT: Source = src(
    12,
    "DGX SuperPod: one 400 Gbps (50 GB/s) NIC per GPU; node egress 400e9 over 8 GPUs",
);

const fn ici(one_way: f64, bidi: f64) -> LinkSpec {
    LinkSpec {
        link: Link::Ici,
        bandwidth: BytesPerSec(bidi),
        one_way: Some(BytesPerSec(one_way)),
        source: ICI_TABLE,
    }
}

const fn bw(link: Link, value: f64, source: Source) -> LinkSpec {
    LinkSpec {
        link,
        bandwidth: BytesPerSec(value),
        one_way: None,
        source,
    }
}

const fn torus(
    dims: u8,
    max_slice: [u32; 3],
    host: [u32; 3],
    wrap: WrapRule,
    cores: u32,
) -> Topology {
    Topology::Torus {
        dims,
        max_slice,
        host,
        wrap,
        cores,
        source: TOPO,
    }
}

/// Every chip in the book, TPUs first, then GPUs, each family oldest first.
pub static CHIPS: &[Chip] = &[
    Chip {
        id: "v3",
        name: "TPU v3",
        vendor: Vendor::Google,
        peaks: peaks![Bf16 = 1.4e14, TPU_TABLE; Int8 = 1.4e14, TPU_TABLE],
        hbm_capacity: cited(Bytes(32.0 * GB), TPU_TABLE),
        links: &[
            bw(Link::Hbm, 9.0e11, TPU_TABLE),
            ici(1.0e11, 2.0e11),
            bw(Link::Pcie, 1.6e10, PCIE),
        ],
        topology: torus(2, [32, 32, 1], [4, 2, 1], WrapRule::FullPod, 2),
    },
    Chip {
        id: "v4p",
        name: "TPU v4p",
        vendor: Vendor::Google,
        peaks: peaks![Bf16 = 2.75e14, TPU_TABLE; Int8 = 2.75e14, TPU_TABLE],
        hbm_capacity: cited(Bytes(32.0 * GB), TPU_TABLE),
        links: &[
            LinkSpec {
                link: Link::Hbm,
                bandwidth: BytesPerSec(1.2e12),
                one_way: None,
                source: src_note(2, "TPU specs: per-chip table", "Part 2 Q1 uses 1.23e12"),
            },
            ici(4.5e10, 9.0e10),
            bw(
                Link::Pcie,
                1.6e10,
                src(2, "PCIe for TPU v4: 16 GB/s each way"),
            ),
        ],
        topology: torus(3, [16, 16, 16], [2, 2, 1], WrapRule::FullCube, 2),
    },
    Chip {
        id: "v5p",
        name: "TPU v5p",
        vendor: Vendor::Google,
        peaks: peaks![Bf16 = 4.59e14, TPU_TABLE; Int8 = 9.18e14, TPU_TABLE],
        hbm_capacity: cited(Bytes(96.0 * GB), TPU_TABLE),
        links: &[
            LinkSpec {
                link: Link::Hbm,
                bandwidth: BytesPerSec(2.8e12),
                one_way: None,
                source: src_note(
                    2,
                    "TPU specs: per-chip table",
                    "the Feb-2025 text said 2.5e12",
                ),
            },
            ici(9.0e10, 1.8e11),
            bw(Link::Pcie, 1.6e10, PCIE),
            bw(
                Link::Dcn,
                6.25e9,
                src(2, "DCN egress per TPU (v5p: 6.25e9)"),
            ),
        ],
        topology: torus(3, [16, 20, 28], [2, 2, 1], WrapRule::FullCube, 2),
    },
    Chip {
        id: "v5e",
        name: "TPU v5e",
        vendor: Vendor::Google,
        peaks: peaks![Bf16 = 1.97e14, TPU_TABLE; Int8 = 3.94e14, TPU_TABLE],
        hbm_capacity: cited(Bytes(16.0 * GB), TPU_TABLE),
        links: &[
            LinkSpec {
                link: Link::Hbm,
                bandwidth: BytesPerSec(8.2e11),
                one_way: None,
                source: src_note(
                    2,
                    "TPU specs: per-chip table",
                    "the Feb-2025 text said 8.1e11",
                ),
            },
            ici(4.5e10, 9.0e10),
            bw(Link::Pcie, 1.6e10, PCIE),
            bw(
                Link::Dcn,
                3.125e9,
                src(2, "DCN egress per TPU (v5e: 3.125e9)"),
            ),
        ],
        topology: torus(2, [16, 16, 1], [4, 2, 1], WrapRule::Axis16, 1),
    },
    Chip {
        id: "v6e",
        name: "TPU v6e",
        vendor: Vendor::Google,
        peaks: &[
            Peak {
                dtype: Dtype::Bf16,
                rate: FlopsPerSec(9.20e14),
                source: src_note(
                    2,
                    "TPU specs: per-chip table",
                    "Part 1's text quotes 9.1e14",
                ),
            },
            Peak {
                dtype: Dtype::Int8,
                rate: FlopsPerSec(1.84e15),
                source: TPU_TABLE,
            },
        ],
        hbm_capacity: cited(Bytes(32.0 * GB), TPU_TABLE),
        links: &[
            bw(Link::Hbm, 1.6e12, TPU_TABLE),
            ici(9.0e10, 1.8e11),
            bw(
                Link::Pcie,
                3.2e10,
                src(2, "host connectivity: 3.2e10 B/s for TPU v6e"),
            ),
            bw(
                Link::Dcn,
                1.25e10,
                src(2, "DCN egress per TPU (v6e: 12.5e9)"),
            ),
        ],
        topology: torus(2, [16, 16, 1], [4, 2, 1], WrapRule::Axis16, 1),
    },
    Chip {
        id: "tpu7x",
        name: "TPU7x",
        vendor: Vendor::Google,
        peaks: peaks![Bf16 = 2.30e15, TPU_TABLE; Int8 = 4.61e15, TPU_TABLE],
        hbm_capacity: cited(Bytes(192.0 * GB), TPU_TABLE),
        links: &[
            bw(Link::Hbm, 7.4e12, TPU_TABLE),
            ici(9.0e10, 1.8e11),
            bw(Link::Pcie, 1.6e10, PCIE),
            bw(
                Link::Dcn,
                1.25e10,
                src(2, "DCN egress per TPU (TPU7x: 12.5e9)"),
            ),
        ],
        topology: torus(3, [4, 4, 576], [2, 2, 1], WrapRule::FullCube, 2),
    },
    Chip {
        id: "a100",
        name: "NVIDIA A100",
        vendor: Vendor::Nvidia,
        peaks: peaks![Bf16 = 3.1e14, GPU_FLOPS; Int8 = 6.2e14, GPU_FLOPS],
        hbm_capacity: cited(Bytes(80.0 * GB), GPU_MEM),
        links: &[
            bw(Link::Hbm, 2.0e12, GPU_FLOPS),
            bw(Link::NvLink, 300e9, NVLINK),
        ],
        topology: Topology::NvlinkDomain {
            gpus: 8,
            sms: 108,
            node_egress: None,
            source: GPU_MEM,
        },
    },
    Chip {
        id: "h100",
        name: "NVIDIA H100",
        vendor: Vendor::Nvidia,
        peaks: &[
            Peak {
                dtype: Dtype::Bf16,
                rate: FlopsPerSec(9.9e14),
                source: src_note(
                    12,
                    "GPU specs: FLOPs and HBM bandwidth table",
                    "Part 1 Q5 derives 9.89e14 from the 1.979e15 sparse figure",
                ),
            },
            Peak {
                dtype: Dtype::Int8,
                rate: FlopsPerSec(2.0e15),
                source: GPU_FLOPS,
            },
            Peak {
                dtype: Dtype::Fp8,
                rate: FlopsPerSec(2.0e15),
                source: GPU_FLOPS,
            },
        ],
        hbm_capacity: cited(Bytes(80.0 * GB), GPU_MEM),
        links: &[
            LinkSpec {
                link: Link::Hbm,
                bandwidth: BytesPerSec(3.35e12),
                one_way: None,
                source: src_note(
                    12,
                    "text and calculations (ridge 295)",
                    "the spec table says 3.4e12",
                ),
            },
            bw(Link::NvLink, 450e9, NVLINK),
            bw(Link::ScaleOut, 50e9, SCALE_OUT),
        ],
        topology: Topology::NvlinkDomain {
            gpus: 8,
            sms: 132,
            node_egress: Some(BytesPerSec(400e9)),
            source: NODE_EGRESS,
        },
    },
    Chip {
        id: "h200",
        name: "NVIDIA H200",
        vendor: Vendor::Nvidia,
        peaks: peaks![Bf16 = 9.9e14, GPU_FLOPS; Int8 = 2.0e15, GPU_FLOPS; Fp8 = 2.0e15, GPU_FLOPS],
        hbm_capacity: cited(Bytes(141.0 * GB), GPU_MEM),
        links: &[
            bw(Link::Hbm, 4.8e12, GPU_FLOPS),
            bw(Link::NvLink, 450e9, NVLINK),
            bw(Link::ScaleOut, 50e9, SCALE_OUT),
        ],
        topology: Topology::NvlinkDomain {
            gpus: 8,
            sms: 132,
            node_egress: Some(BytesPerSec(400e9)),
            source: NODE_EGRESS,
        },
    },
    Chip {
        id: "b200",
        name: "NVIDIA B200",
        vendor: Vendor::Nvidia,
        peaks: &[
            Peak {
                dtype: Dtype::Bf16,
                rate: FlopsPerSec(2.25e15),
                source: src_note(
                    12,
                    "text and Q3 (2250e12, ridge 281)",
                    "the spec table rounds to 2.3e15",
                ),
            },
            Peak {
                dtype: Dtype::Int8,
                rate: FlopsPerSec(4.5e15),
                source: GPU_FLOPS,
            },
            Peak {
                dtype: Dtype::Fp8,
                rate: FlopsPerSec(4.5e15),
                source: GPU_FLOPS,
            },
            Peak {
                dtype: Dtype::Fp4,
                rate: FlopsPerSec(9.0e15),
                source: GPU_FLOPS,
            },
        ],
        hbm_capacity: cited(Bytes(192.0 * GB), GPU_MEM),
        links: &[
            LinkSpec {
                link: Link::Hbm,
                bandwidth: BytesPerSec(8.0e12),
                one_way: None,
                source: src_note(
                    12,
                    "GPU specs: FLOPs and HBM bandwidth table",
                    "the text also says 9 TB/s",
                ),
            },
            bw(Link::NvLink, 900e9, NVLINK),
            bw(Link::ScaleOut, 50e9, SCALE_OUT),
        ],
        topology: Topology::NvlinkDomain {
            gpus: 8,
            sms: 148,
            node_egress: Some(BytesPerSec(400e9)),
            source: NODE_EGRESS,
        },
    },
    Chip {
        id: "gb200",
        name: "NVIDIA GB200 NVL72",
        vendor: Vendor::Nvidia,
        peaks: &[
            Peak {
                dtype: Dtype::Bf16,
                rate: FlopsPerSec(2.25e15),
                source: src_note(
                    12,
                    "GB200 = 2 B200 + 1 Grace; B200 rates",
                    "the spec table rounds to 2.3e15",
                ),
            },
            Peak {
                dtype: Dtype::Int8,
                rate: FlopsPerSec(4.5e15),
                source: GPU_FLOPS,
            },
            Peak {
                dtype: Dtype::Fp8,
                rate: FlopsPerSec(4.5e15),
                source: GPU_FLOPS,
            },
            Peak {
                dtype: Dtype::Fp4,
                rate: FlopsPerSec(9.0e15),
                source: GPU_FLOPS,
            },
        ],
        hbm_capacity: cited(Bytes(192.0 * GB), GPU_MEM),
        links: &[
            bw(Link::Hbm, 8.0e12, GPU_FLOPS),
            bw(Link::NvLink, 900e9, NODE_EGRESS),
            bw(
                Link::ScaleOut,
                50e9,
                src(12, "GB200 NVL72: node egress 3.6e12 over 72 GPUs"),
            ),
        ],
        topology: Topology::NvlinkDomain {
            gpus: 72,
            sms: 148,
            node_egress: Some(BytesPerSec(3.6e12)),
            source: NODE_EGRESS,
        },
    },
];

/// Looks a chip up by id, case-insensitively.
pub fn chip(id: &str) -> Option<&'static Chip> {
    let id = id.trim();
    CHIPS.iter().find(|c| c.id.eq_ignore_ascii_case(id))
}

/// The on-demand price of one chip for an hour, as the book quotes it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChipPrice {
    /// The chip id in [`CHIPS`].
    pub chip: &'static str,
    /// US dollars per chip-hour.
    pub usd_per_hour: Cited<f64>,
}

const PRICE_TABLE: Source = src_note(
    8,
    "What's the LLaMA serving story? FLOPs-per-dollar table (Google Cloud pricing)",
    "list prices as of February 2025; they change",
);

/// Chip-hour prices from Part 8's FLOPs-per-dollar table.
pub static PRICES: &[ChipPrice] = &[
    ChipPrice {
        chip: "h100",
        usd_per_hour: cited(10.8, PRICE_TABLE),
    },
    ChipPrice {
        chip: "v5p",
        usd_per_hour: cited(4.2, PRICE_TABLE),
    },
    ChipPrice {
        chip: "v5e",
        usd_per_hour: cited(1.2, PRICE_TABLE),
    },
];

/// Part 12's round on-demand prices for its GPU-vs-TPU comparison: an H200
/// "around $10/hour" against a TPU v5p's "$4/hour" on Google Cloud. A separate
/// quote from Part 8's table (which prices an H100 and a v5p at $10.8 and $4.2),
/// so a comparison takes both prices from one quote.
pub static PART12_PRICES: &[ChipPrice] = &[
    ChipPrice {
        chip: "h200",
        usd_per_hour: cited(
            10.0,
            src(
                12,
                "GPUs vs. TPUs at the chip level: around $10/hour for an H200 on Google Cloud",
            ),
        ),
    },
    ChipPrice {
        chip: "v5p",
        usd_per_hour: cited(
            4.0,
            src(
                12,
                "GPUs vs. TPUs at the chip level: $4/hour for a TPU v5p on Google Cloud",
            ),
        ),
    },
];

/// Prices of a GPU and a TPU from one quote of the book: Part 12's where it
/// prices both (H200 and v5p), else Part 8's table where that prices both.
pub fn price_pair(gpu: &str, tpu: &str) -> Option<(Cited<f64>, Cited<f64>)> {
    let find = |table: &[ChipPrice], id: &str| {
        table
            .iter()
            .find(|p| p.chip.eq_ignore_ascii_case(id.trim()))
            .map(|p| p.usd_per_hour)
    };
    [PART12_PRICES, PRICES]
        .into_iter()
        .find_map(|t| find(t, gpu).zip(find(t, tpu)))
}

/// The book's price per chip-hour for a chip id, case-insensitively, if it gives one.
pub fn price_per_hour(id: &str) -> Option<Cited<f64>> {
    let id = id.trim();
    PRICES
        .iter()
        .find(|p| p.chip.eq_ignore_ascii_case(id))
        .map(|p| p.usd_per_hour)
}

/// The CPU memory (DRAM) of one TPU host, the machine that drives a block of
/// chips (`Topology::Torus::host`), as the book gives it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HostDram {
    /// The chip id in [`CHIPS`] whose host this is.
    pub chip: &'static str,
    /// DRAM of one host.
    pub dram: Cited<Bytes>,
}

/// Host DRAM from Part 7's prefix caching: a host of eight TPU v5e holds
/// "around 450 GiB" of DRAM beside their 128 GiB of HBM.
pub static HOST_DRAM: &[HostDram] = &[HostDram {
    chip: "v5e",
    dram: cited(
        Bytes(450.0 * GB),
        src_note(
            7,
            "Prefix caching: an 8xTPUv5e server has 128GiB of HBM and around 450GiB of host DRAM",
            "the book writes GiB; stored in GB, as the registry stores its 16 GiB of v5e HBM as 16 GB",
        ),
    ),
}];

/// The book's DRAM of one host of a chip id, case-insensitively, if it gives one.
pub fn host_dram(id: &str) -> Option<Cited<Bytes>> {
    let id = id.trim();
    HOST_DRAM
        .iter()
        .find(|h| h.chip.eq_ignore_ascii_case(id))
        .map(|h| h.dram)
}

/// Latency of one ICI hop between neighbouring TPUs, whatever the message size.
///
/// Part 2 (Q5) and Part 3 ("a note on ICI latency") both use about 1 µs; below
/// `one-way bandwidth × 1 µs` bytes per hop (45 kB on a v5e) a collective is
/// latency-bound.
pub const ICI_HOP_LATENCY: Cited<crate::units::Seconds> = cited(
    crate::units::Seconds(1e-6),
    src(
        2,
        "Q5: per-hop ICI latency ~1 µs (also Part 3, note on ICI latency)",
    ),
);

/// bf16 FLOPs/s of one TensorCore of a TPU v2 (two per chip), as Part 9's
/// profiling examples use it on a free Colab TPU v2-8; the v2 is not in [`CHIPS`].
pub const TPU_V2_CORE_PEAK: Cited<FlopsPerSec> = cited(
    FlopsPerSec(23e12),
    src(
        9,
        "Roofline check of the FFW matmul: ~23e12 bf16 FLOPs/s per TPU v2 core",
    ),
);

/// Bidirectional ICI bandwidth of one link of a TPU v2 4x2, as Part 9's
/// ReduceScatter example uses it.
pub const TPU_V2_ICI_BIDI: Cited<BytesPerSec> = cited(
    BytesPerSec(1.2e11),
    src(
        9,
        "Roofline check of the ReduceScatter: 1.2e11 B/s bidirectional on a TPU v2 4x2",
    ),
);

/// VMEM-to-MXU bandwidth as a multiple of HBM bandwidth on a TPU.
pub const VMEM_OVER_HBM: Cited<f64> = cited(
    22.0,
    src(2, "VMEM: bandwidth to the MXU ~22x HBM bandwidth"),
);

/// VMEM capacity of one TPU v5e TensorCore (the book's figure; other generations
/// are of the same order, and Part 12 compares 128 MB on a v5p).
pub const VMEM_CAPACITY: Cited<Bytes> = cited(
    Bytes(128.0 * 1024.0 * 1024.0),
    src(2, "VMEM: 128 MiB on TPU v5e, much smaller than HBM"),
);
/// The book's measured AllGather on a TPU v5e 8x16 slice, gathered over the
/// axis of 16 (a full bidirectional ring): the fraction of the one-way link
/// bandwidth reached at large messages.
pub const ALLGATHER_MEASURED_FRACTION: Cited<f64> = cited(
    0.95,
    src(
        3,
        "empirical AllGather bandwidth on v5e 8x16: about 95% of 4.5e10",
    ),
);
/// The message size at which that measured AllGather reaches its peak (about
/// 625 kB per device over 16 devices).
pub const ALLGATHER_MEASURED_PEAK_AT: Cited<Bytes> = cited(
    Bytes(10e6),
    src(
        3,
        "empirical AllGather bandwidth on v5e 8x16: peak at about 10 MB",
    ),
);
/// The devices on the axis of that measured AllGather: the 16-long axis of
/// the 8x16 slice, the one with wraparound.
pub const ALLGATHER_MEASURED_RING: Cited<u32> = cited(
    16,
    src(
        3,
        "empirical AllGather bandwidth on v5e 8x16: sharded over the 16 axis, a full bidirectional ring",
    ),
);
/// The bytes gathered per second of runtime that measured AllGather tends to at
/// large messages (the orange curve of the figure).
pub const ALLGATHER_MEASURED_ACHIEVED: Cited<BytesPerSec> = cited(
    BytesPerSec(9e10),
    src(
        3,
        "all-gather-bandwidth.png: bytes / runtime (orange) approaches ~9e10",
    ),
);
/// Pop Quiz 2's profiled time of `AllGather_Y` of a 34 MB bf16[2048, 8192] on a
/// v5e mesh {X: 8, Y: 4} (the 4-long axis has no wraparound).
pub const ALLGATHER_PROFILED_LARGE: Cited<crate::units::Seconds> = cited(
    crate::units::Seconds(680e-6),
    src(3, "Pop Quiz 2: an actual profile shows 680 us"),
);
/// Pop Quiz 2's profiled time of the same gather with E = F = 256 (32 kB shards).
pub const ALLGATHER_PROFILED_SMALL: Cited<crate::units::Seconds> = cited(
    crate::units::Seconds(8e-6),
    src(3, "Pop Quiz 2: in practice closer to 8 us"),
);
/// Shape of a TPU VPU and of one vector register: 8 sublanes by 128 lanes of 32-bit values.
pub const VPU_SHAPE: Cited<[u32; 2]> = cited(
    [8, 128],
    src(
        2,
        "Appendix A: VPU of shape (8, 128); VREGs hold 8x128 32-bit values",
    ),
);

/// What the book says about the inside of one TPU TensorCore of a generation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TensorCoreSpec {
    /// The chip id in [`CHIPS`].
    pub chip: &'static str,
    /// Clock rate in Hz, where the book gives one.
    pub clock_hz: Option<Cited<f64>>,
    /// MXUs per TensorCore.
    pub mxus_per_core: Option<Cited<u32>>,
    /// Side of the MXU's square systolic array (128, or 256 on v6e).
    pub mxu_side: Cited<u32>,
    /// Independent floating-point ALUs per (sublane, lane) pair of the VPU.
    pub vpu_alus: Option<Cited<u32>>,
    /// 32-bit vector registers per core.
    pub vregs: Option<Cited<u32>>,
}

const MXU_SIDE: Source = src(2, "Appendix B: 128x128 systolic array (256x256 on v6e)");
const MXU_COUNT: Source = src(2, "Appendix B: 2 MXUs on TPU v3, 4 on v4/v5 per TensorCore");
const VPU_ALUS: Source = src(
    2,
    "Appendix A: 4 independent ALUs per (lane, sublane) on v5",
);
const VREGS: Source = src(2, "Appendix A: 64 VREGs per v5p core (32 on v4)");

/// TensorCore internals for the TPUs the book describes, oldest first.
pub static TENSOR_CORES: &[TensorCoreSpec] = &[
    TensorCoreSpec {
        chip: "v3",
        clock_hz: None,
        mxus_per_core: Some(cited(2, MXU_COUNT)),
        mxu_side: cited(128, MXU_SIDE),
        vpu_alus: None,
        vregs: None,
    },
    TensorCoreSpec {
        chip: "v4p",
        clock_hz: None,
        mxus_per_core: Some(cited(4, MXU_COUNT)),
        mxu_side: cited(128, MXU_SIDE),
        vpu_alus: None,
        vregs: Some(cited(32, VREGS)),
    },
    TensorCoreSpec {
        chip: "v5p",
        clock_hz: Some(cited(
            1.75e9,
            src(2, "Appendix A pop quiz: v5p clock ~1.75 GHz"),
        )),
        mxus_per_core: Some(cited(4, MXU_COUNT)),
        mxu_side: cited(128, MXU_SIDE),
        vpu_alus: Some(cited(4, VPU_ALUS)),
        vregs: Some(cited(64, VREGS)),
    },
    TensorCoreSpec {
        chip: "v5e",
        clock_hz: Some(cited(
            1.5e9,
            src(
                2,
                "MXU text: one bf16[8,128]@[128,128] per 8 cycles at 1.5 GHz (v5e)",
            ),
        )),
        mxus_per_core: Some(cited(4, MXU_COUNT)),
        mxu_side: cited(128, MXU_SIDE),
        vpu_alus: Some(cited(4, VPU_ALUS)),
        vregs: None,
    },
    TensorCoreSpec {
        chip: "v6e",
        clock_hz: None,
        mxus_per_core: None,
        mxu_side: cited(256, MXU_SIDE),
        vpu_alus: None,
        vregs: None,
    },
];

/// The TensorCore facts for a TPU id, case-insensitively.
pub fn tensor_core(id: &str) -> Option<&'static TensorCoreSpec> {
    let id = id.trim();
    TENSOR_CORES
        .iter()
        .find(|c| c.chip.eq_ignore_ascii_case(id))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn achievable_share_follows_the_maker() {
        let tpu = chip("v5e").unwrap().achievable_share().value;
        let gpu = chip("h100").unwrap().achievable_share().value;
        assert_eq!(tpu, (0.95, 0.95));
        assert_eq!(gpu, (0.80, 0.85));
        assert_eq!(chip("b200").unwrap().achievable_share().value, gpu);
        assert_eq!(chip("h100").unwrap().achievable_share().source.part, 1);
    }

    #[test]
    fn host_dram_names_a_registry_tpu_and_outweighs_its_hbm() {
        for h in HOST_DRAM {
            let c = chip(h.chip).unwrap();
            assert_eq!(c.vendor, Vendor::Google, "{}", h.chip);
            assert!(h.dram.value > c.hbm_capacity.value, "{}", h.chip);
        }
        assert_eq!(host_dram("V5E").unwrap().value, Bytes(450.0 * GB));
        assert_eq!(host_dram("v5e").unwrap().source.part, 7);
        assert!(host_dram("h100").is_none());
    }

    #[test]
    fn largest_meshes() {
        assert_eq!(chip("v5p").unwrap().topology.largest_mesh(), [16, 20, 28]);
        assert_eq!(chip("v5e").unwrap().topology.largest_mesh(), [16, 16]);
        assert_eq!(chip("h100").unwrap().topology.largest_mesh(), [8]);
    }

    #[test]
    fn tensor_core_entries_name_registry_tpus() {
        for t in TENSOR_CORES {
            let c = chip(t.chip).unwrap();
            assert_eq!(c.vendor, Vendor::Google, "{}", t.chip);
        }
        assert_eq!(ICI_HOP_LATENCY.value.0, 1e-6);
        assert_eq!(tensor_core("V5P").unwrap().vregs.unwrap().value, 64);
    }

    #[test]
    fn ids_are_unique_and_every_chip_has_hbm_and_bf16() {
        for (i, a) in CHIPS.iter().enumerate() {
            for b in &CHIPS[i + 1..] {
                assert_ne!(a.id, b.id);
            }
            assert!(a.hbm_bw().0 > 0.0, "{} lacks HBM", a.id);
            assert!(a.peak(Dtype::Bf16).is_some(), "{} lacks bf16", a.id);
            assert!(a.interconnect().is_some(), "{} lacks a chip link", a.id);
        }
    }

    #[test]
    fn book_ridges() {
        let r = |id: &str, d, l| chip(id).unwrap().ridge(d, l).unwrap().0;
        assert_eq!(r("v5e", Dtype::Bf16, Link::Hbm).round(), 240.0);
        assert_eq!(r("v5p", Dtype::Bf16, Link::Ici).round(), 2550.0);
        assert_eq!(r("h100", Dtype::Bf16, Link::Hbm).floor(), 295.0);
        assert_eq!(r("b200", Dtype::Bf16, Link::Hbm).round(), 281.0);
        assert_eq!(r("v5e", Dtype::Int8, Link::Hbm).round(), 480.0);
    }

    #[test]
    fn lookups() {
        assert_eq!(chip(" V5E").map(|c| c.name), Some("TPU v5e"));
        assert!(chip("v9").is_none());
        let v5e = chip("v5e").unwrap();
        assert_eq!(v5e.peak_or_wider(Dtype::Int4).unwrap().0, Dtype::Int8);
        assert_eq!(v5e.peak_or_wider(Dtype::F32), None);
        assert_eq!(Link::parse("ICI"), Some(Link::Ici));
    }
}
