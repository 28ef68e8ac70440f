//! Part 12's GPU facts that the per-chip registry does not hold: clocks and
//! on-chip memories per generation (V100 to B200), the SM layout, the NVLink
//! generations and the cube-mesh nodes before NVSwitch, the switches and
//! structure of the DGX SuperPod, the H800 variant, the measured bandwidths
//! Part 12 quotes, the Megatron-LM table and DeepSeek V3's batches.
//!
//! Per-chip peaks, HBM, NVLink and node egress stay in
//! [`crate::hardware`]; this table holds only what Part 12 adds, each with its
//! citation. Where a row repeats a registry number (SMs, HBM capacity), a test
//! pins the two together.
//!
//! ```
//! use ridgeline_core::gpu::specs::{generation, SM};
//!
//! let h100 = generation("h100").unwrap();
//! assert_eq!(h100.sms * SM.subpartitions * SM.cuda_cores_per_subpartition, 16_896);
//! assert_eq!(h100.boost_clock.unwrap().0, 1.98e9);
//! ```

use crate::hardware::{Cited, Source};
use crate::units::{Bytes, BytesPerSec, FlopsPerSec};

/// A clock rate: cycles per second.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Default)]
pub struct Hertz(pub f64);

impl Hertz {
    /// The unit symbol.
    pub const UNIT: &'static str = "Hz";
}

const fn src(table: &'static str) -> Source {
    Source {
        part: 12,
        table,
        note: None,
    }
}

const fn src_note(table: &'static str, note: &'static str) -> Source {
    Source {
        part: 12,
        table,
        note: Some(note),
    }
}

const fn cited<T>(value: T, source: Source) -> Cited<T> {
    Cited { value, source }
}

const KIB: f64 = 1024.0;
const MB: f64 = 1e6;
const GB: f64 = 1e9;

/// The layout every NVIDIA SM has shared since Volta, as Part 12 describes it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SmLayout {
    /// SM subpartitions (quadrants) per SM.
    pub subpartitions: u32,
    /// Tensor Cores per subpartition.
    pub tensor_cores_per_subpartition: u32,
    /// fp32 CUDA cores (SIMT lanes) per subpartition.
    pub cuda_cores_per_subpartition: u32,
    /// 32-bit registers per subpartition.
    pub registers_per_subpartition: u32,
    /// Bytes per register.
    pub register_bytes: u32,
    /// Threads per warp.
    pub warp_size: u32,
    /// The most warps that can be resident on one SM.
    pub max_resident_warps: u32,
    /// The most registers one thread can address.
    pub max_registers_per_thread: u32,
    /// Where the book gives these.
    pub source: Source,
}

impl SmLayout {
    /// Tensor Cores per SM (4).
    pub fn tensor_cores(&self) -> u32 {
        self.subpartitions * self.tensor_cores_per_subpartition
    }

    /// fp32 CUDA cores per SM (128).
    pub fn cuda_cores(&self) -> u32 {
        self.subpartitions * self.cuda_cores_per_subpartition
    }

    /// The register file of one SM (256 KiB).
    pub fn register_file(&self) -> Bytes {
        Bytes(
            f64::from(self.subpartitions)
                * f64::from(self.registers_per_subpartition)
                * f64::from(self.register_bytes),
        )
    }
}

/// The SM of every generation in Part 12's table (V100 to B200).
pub static SM: SmLayout = SmLayout {
    subpartitions: 4,
    tensor_cores_per_subpartition: 1,
    cuda_cores_per_subpartition: 32,
    registers_per_subpartition: 16_384,
    register_bytes: 4,
    warp_size: 32,
    max_resident_warps: 64,
    max_registers_per_thread: 256,
    source: src("What Is a GPU? and Memory: 4 subpartitions, 1 TC, 32 fp32 cores, 16,384 registers each; 64 resident warps; 256 registers per thread"),
};

/// An NVIDIA GPU architecture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Architecture {
    /// V100.
    Volta,
    /// A100.
    Ampere,
    /// H100, H200.
    Hopper,
    /// B200, GB200.
    Blackwell,
}

impl Architecture {
    /// The name NVIDIA uses.
    pub fn name(self) -> &'static str {
        match self {
            Architecture::Volta => "Volta",
            Architecture::Ampere => "Ampere",
            Architecture::Hopper => "Hopper",
            Architecture::Blackwell => "Blackwell",
        }
    }
}

/// One row of Part 12's GPU spec tables.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GpuGeneration {
    /// Display name (`H100`).
    pub name: &'static str,
    /// Architecture.
    pub architecture: Architecture,
    /// The registry id of the chip, if it is in [`crate::hardware::CHIPS`] (V100 is not: the book gives it no FLOPs).
    pub chip: Option<&'static str>,
    /// SMs per chip (the table; a test checks it against the registry).
    pub sms: u32,
    /// Base clock, where the table gives one.
    pub base_clock: Option<Hertz>,
    /// Boost clock, where the table gives one.
    pub boost_clock: Option<Hertz>,
    /// The clock the book uses to turn the Tensor Core peak into FLOPs per cycle.
    pub tensor_clock: Option<Hertz>,
    /// SMEM (L1) per SM.
    pub smem_per_sm: Bytes,
    /// L2 per chip.
    pub l2: Bytes,
    /// Tensor memory per SM (Blackwell only).
    pub tmem_per_sm: Option<Bytes>,
    /// HBM capacity (the table; a test checks it against the registry).
    pub hbm_capacity: Bytes,
    /// HBM bandwidth, only for GPUs outside the registry; use [`GpuGeneration::hbm_bw`].
    pub hbm_bw_unregistered: Option<BytesPerSec>,
    /// Dense bf16 FLOPs one Tensor Core does per cycle, as the book states it.
    pub tensor_core_flops_per_cycle: Option<Cited<f64>>,
    /// Published fp32 vector rate counting an FMA as two FLOPs, where the book quotes one.
    pub vector_fp32_fma: Option<Cited<FlopsPerSec>>,
    /// Where the row comes from.
    pub source: Source,
}

impl GpuGeneration {
    /// The registry chip, if any.
    pub fn registry_chip(&self) -> Option<&'static crate::hardware::Chip> {
        self.chip.and_then(crate::hardware::chip)
    }

    /// HBM bandwidth: the registry's for registered chips, the table's otherwise.
    pub fn hbm_bw(&self) -> Option<BytesPerSec> {
        match self.registry_chip() {
            Some(c) => Some(c.hbm_bw()),
            None => self.hbm_bw_unregistered,
        }
    }

    /// Tensor Cores on the chip (`SMs × 4`).
    pub fn tensor_cores(&self) -> u32 {
        self.sms * SM.tensor_cores()
    }

    /// fp32 CUDA cores on the chip (`SMs × 4 × 32`).
    pub fn cuda_cores(&self) -> u32 {
        self.sms * SM.cuda_cores()
    }

    /// Total SMEM on the chip.
    pub fn smem_total(&self) -> Bytes {
        self.smem_per_sm * f64::from(self.sms)
    }

    /// Total register memory on the chip.
    pub fn registers_total(&self) -> Bytes {
        SM.register_file() * f64::from(self.sms)
    }
}

const MEM_TABLE: Source = src("Summary of GPU specs: memory and clocks table");
const TC_NOTE: Source =
    src("What Is a GPU?: Tensor Core footnote (V100 256, A100 512, H100 1024 FLOPs/TC/cycle)");

/// Every GPU generation in Part 12's spec tables, oldest first.
pub static GPU_GENERATIONS: &[GpuGeneration] = &[
    GpuGeneration {
        name: "V100",
        architecture: Architecture::Volta,
        chip: None,
        sms: 80,
        base_clock: Some(Hertz(1.25e9)),
        boost_clock: Some(Hertz(1.38e9)),
        tensor_clock: None,
        smem_per_sm: Bytes(96.0 * KIB),
        l2: Bytes(6.0 * MB),
        tmem_per_sm: None,
        hbm_capacity: Bytes(32.0 * GB),
        hbm_bw_unregistered: Some(BytesPerSec(9.0e11)),
        tensor_core_flops_per_cycle: Some(cited(256.0, TC_NOTE)),
        vector_fp32_fma: None,
        source: src_note(
            "Summary of GPU specs: memory/clocks and FLOPs tables",
            "the FLOPs table gives V100 no bf16 peak, so V100 is not in the chip registry",
        ),
    },
    GpuGeneration {
        name: "A100",
        architecture: Architecture::Ampere,
        chip: Some("a100"),
        sms: 108,
        base_clock: Some(Hertz(1.10e9)),
        boost_clock: Some(Hertz(1.41e9)),
        tensor_clock: None,
        smem_per_sm: Bytes(192.0 * KIB),
        l2: Bytes(40.0 * MB),
        tmem_per_sm: None,
        hbm_capacity: Bytes(80.0 * GB),
        hbm_bw_unregistered: None,
        tensor_core_flops_per_cycle: Some(cited(512.0, TC_NOTE)),
        vector_fp32_fma: None,
        source: MEM_TABLE,
    },
    GpuGeneration {
        name: "H100",
        architecture: Architecture::Hopper,
        chip: Some("h100"),
        sms: 132,
        base_clock: Some(Hertz(1.59e9)),
        boost_clock: Some(Hertz(1.98e9)),
        tensor_clock: Some(Hertz(1.76e9)),
        smem_per_sm: Bytes(256.0 * KIB),
        l2: Bytes(50.0 * MB),
        tmem_per_sm: None,
        hbm_capacity: Bytes(80.0 * GB),
        hbm_bw_unregistered: None,
        tensor_core_flops_per_cycle: Some(cited(
            1024.0,
            src_note(
                "What Is a GPU?: 990e12 / 132 SMs / 4 TCs / 1.76 GHz ~ 1024",
                "the quotient is 1065; the book rounds to the power of two (an 8x8x8 matmul)",
            ),
        )),
        vector_fp32_fma: None,
        source: src_note(
            "Summary of GPU specs: memory and clocks table",
            "tensor clock 1.76 GHz from the Tensor Core paragraph",
        ),
    },
    GpuGeneration {
        name: "H200",
        architecture: Architecture::Hopper,
        chip: Some("h200"),
        sms: 132,
        base_clock: Some(Hertz(1.59e9)),
        boost_clock: Some(Hertz(1.98e9)),
        tensor_clock: None,
        smem_per_sm: Bytes(256.0 * KIB),
        l2: Bytes(50.0 * MB),
        tmem_per_sm: None,
        hbm_capacity: Bytes(141.0 * GB),
        hbm_bw_unregistered: None,
        tensor_core_flops_per_cycle: None,
        vector_fp32_fma: None,
        source: MEM_TABLE,
    },
    GpuGeneration {
        name: "B200",
        architecture: Architecture::Blackwell,
        chip: Some("b200"),
        sms: 148,
        base_clock: None,
        boost_clock: None,
        tensor_clock: Some(Hertz(1.86e9)),
        smem_per_sm: Bytes(256.0 * KIB),
        l2: Bytes(126.0 * MB),
        tmem_per_sm: Some(Bytes(256.0 * KIB)),
        hbm_capacity: Bytes(192.0 * GB),
        hbm_bw_unregistered: None,
        tensor_core_flops_per_cycle: Some(cited(
            2048.0,
            src_note(
                "What Is a GPU?: Tensor Core footnote, 2250e12 / (148 * 4 * 1.86e9) ~ 2048",
                "an estimate: NVIDIA does not publish it",
            ),
        )),
        vector_fp32_fma: Some(cited(
            FlopsPerSec(80e12),
            src("Quiz 1 Q6: B200 80 TFLOPs/s vector fp32 (FMA counted as 2)"),
        )),
        source: src_note(
            "Summary of GPU specs: memory and clocks table",
            "the table leaves the clock as '?'; 1.86 GHz is the Tensor Core footnote's",
        ),
    },
];

/// The Part 12 generation row for a registry chip id (`gb200` maps to the B200 row,
/// since a GB200 is two B200s and a Grace CPU) or a row name (`v100`).
pub fn generation(id: &str) -> Option<&'static GpuGeneration> {
    let id = id.trim();
    let id = if id.eq_ignore_ascii_case("gb200") {
        "b200"
    } else {
        id
    };
    GPU_GENERATIONS.iter().find(|g| {
        g.chip.is_some_and(|c| c.eq_ignore_ascii_case(id)) || g.name.eq_ignore_ascii_case(id)
    })
}

/// One row of Part 12's NVLink/NVSwitch generation table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NvlinkGeneration {
    /// NVLink generation ("4.0").
    pub nvlink: &'static str,
    /// NVSwitch generation ("3.0").
    pub nvswitch: &'static str,
    /// The GPU architecture it ships with.
    pub architecture: Architecture,
    /// Bandwidth of one NVLink link, each way (full duplex).
    pub link_bandwidth: BytesPerSec,
    /// NVLink ports per GPU.
    pub ports_per_gpu: u32,
    /// GPU-to-GPU bandwidth in a node, each way.
    pub gpu_bandwidth: BytesPerSec,
    /// Node sizes (NVLink domains) and the NVSwitches each has: `(gpus, switches)`.
    pub nodes: &'static [(u32, u32)],
    /// NVLink ports on one NVSwitch, where the book gives it.
    pub switch_ports: Option<u32>,
    /// Physical lanes in one NVSwitch port, where the book gives it.
    pub lanes_per_port: Option<u32>,
    /// Where the book gives these.
    pub source: Source,
}

impl NvlinkGeneration {
    /// `ports × link bandwidth`: what one GPU can push into the NVLink network.
    pub fn gpu_egress(&self) -> BytesPerSec {
        self.link_bandwidth * f64::from(self.ports_per_gpu)
    }

    /// The NVSwitches in a node of `gpus`, if the book lists that node size.
    pub fn switches_for(&self, gpus: u32) -> Option<u32> {
        self.nodes.iter().find(|(g, _)| *g == gpus).map(|(_, s)| *s)
    }

    /// Bandwidth of one NVSwitch (`ports × link bandwidth`), where the book gives its ports.
    pub fn switch_bandwidth(&self) -> Option<BytesPerSec> {
        self.switch_ports
            .map(|p| self.link_bandwidth * f64::from(p))
    }
}

const NVLINK_TABLE: Source = src("At the node level: NVLink/NVSwitch generations table");

/// Part 12's NVLink generations, oldest first.
pub static NVLINK_GENERATIONS: &[NvlinkGeneration] = &[
    NvlinkGeneration {
        nvlink: "3.0",
        nvswitch: "2.0",
        architecture: Architecture::Ampere,
        link_bandwidth: BytesPerSec(25e9),
        ports_per_gpu: 12,
        gpu_bandwidth: BytesPerSec(300e9),
        nodes: &[(8, 6)],
        switch_ports: None,
        lanes_per_port: None,
        source: NVLINK_TABLE,
    },
    NvlinkGeneration {
        nvlink: "4.0",
        nvswitch: "3.0",
        architecture: Architecture::Hopper,
        link_bandwidth: BytesPerSec(25e9),
        ports_per_gpu: 18,
        gpu_bandwidth: BytesPerSec(450e9),
        nodes: &[(8, 4)],
        switch_ports: Some(64),
        lanes_per_port: Some(2),
        source: src_note(
            "At the node level: NVLink table; NVSwitches have up to 64 ports (64 * 25e9 * 4 = 6.4 TB/s); \
             Appendix B: each NVLink4 port uses 2 physical lanes, around a crossbar",
            "H100s attach to the 4 NVSwitches in a 5+4+4+5 link pattern",
        ),
    },
    NvlinkGeneration {
        nvlink: "5.0",
        nvswitch: "4.0",
        architecture: Architecture::Blackwell,
        link_bandwidth: BytesPerSec(50e9),
        ports_per_gpu: 18,
        gpu_bandwidth: BytesPerSec(900e9),
        nodes: &[(8, 2), (72, 18)],
        switch_ports: None,
        lanes_per_port: None,
        source: NVLINK_TABLE,
    },
];

/// The NVLink generation of an architecture, if it has one in the table.
pub fn nvlink_generation(arch: Architecture) -> Option<&'static NvlinkGeneration> {
    NVLINK_GENERATIONS.iter().find(|g| g.architecture == arch)
}

/// The kind of a network switch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SwitchKind {
    /// An NVSwitch inside an NVLink domain.
    NvSwitch,
    /// An InfiniBand switch in the scale-out fabric.
    InfiniBand,
}

/// A switch: its ports and the bandwidth of each, each way.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SwitchSpec {
    /// Kind.
    pub kind: SwitchKind,
    /// Ports.
    pub ports: u32,
    /// Bandwidth per port, each way.
    pub port_bandwidth: BytesPerSec,
    /// Where the book gives these.
    pub source: Source,
}

impl SwitchSpec {
    /// `ports × port bandwidth`.
    pub fn bandwidth(&self) -> BytesPerSec {
        self.port_bandwidth * f64::from(self.ports)
    }
}

/// The 64-port NDR InfiniBand switch of the DGX SuperPod (400 Gbps = 50 GB/s per port).
pub static IB_NDR_SWITCH: SwitchSpec = SwitchSpec {
    kind: SwitchKind::InfiniBand,
    ports: 64,
    port_bandwidth: BytesPerSec(50e9),
    source: src_note(
        "Beyond the node level: 64-port NDR IB switches, 50 GB/s per port; Quiz 3 Q1: 3.2 TB/s each",
        "Appendix B counts 1.6 TB/s per IB switch (half the ports), hence its 25.6 TB/s spine",
    ),
};

/// The structure of NVIDIA's reference DGX SuperPod above the node (Part 12).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SuperPodDesign {
    /// Nodes in one Scalable Unit.
    pub nodes_per_su: u32,
    /// Leaf switches under one SU.
    pub leaf_switches_per_su: u32,
    /// SUs in the reference pod.
    pub sus_per_pod: u32,
    /// Spine switches in the reference pod.
    pub spine_switches_per_pod: u32,
    /// Cables between each leaf and each spine switch in the reference pod.
    pub cables_per_leaf_spine: u32,
    /// The switch used at the leaf and spine.
    pub switch: &'static SwitchSpec,
    /// Where the book gives these.
    pub source: Source,
}

impl SuperPodDesign {
    /// The bandwidth from one SU up to the spine: `leaves × spines × cables × port`.
    pub fn su_uplink(&self) -> BytesPerSec {
        self.switch.port_bandwidth
            * f64::from(
                self.leaf_switches_per_su
                    * self.spine_switches_per_pod
                    * self.cables_per_leaf_spine,
            )
    }

    /// Ports on each leaf switch that face up (the other half face the nodes).
    pub fn leaf_uplink_ports(&self) -> u32 {
        self.switch.ports / 2
    }

    /// The most GPU NICs a two-tier leaf/spine fat tree of these switches can join at
    /// full bisection bandwidth: `ports / 2` per leaf and one leaf per spine port.
    pub fn two_tier_limit(&self) -> u64 {
        u64::from(self.switch.ports / 2) * u64::from(self.switch.ports)
    }
}

/// The 1024-GPU DGX H100 SuperPod: 32-node SUs under 8 leaf switches, 4 SUs under
/// 16 spine switches, 2 cables per leaf-spine pair. B200 DGX pods keep the same
/// scale-out network (Part 12 Quiz 5 Q1).
pub static DGX_SUPERPOD: SuperPodDesign = SuperPodDesign {
    nodes_per_su: 32,
    leaf_switches_per_su: 8,
    sus_per_pod: 4,
    spine_switches_per_pod: 16,
    cables_per_leaf_spine: 2,
    switch: &IB_NDR_SWITCH,
    source: src_note(
        "Beyond the node level: DGX H100 SuperPod (SUs, leaf and spine), per-level table, Quiz 3 Q1",
        "spine switch bandwidth: 51.2 TB/s (summary table, Quiz 3 Q1) chosen; Appendix B says 25.6 TB/s",
    ),
};

/// GPUs in the reference GB200 NVL72 SuperPod (8 racks of 72).
pub static GB200_SUPERPOD_GPUS: Cited<u32> =
    cited(576, src("Appendix A: GB200 DGX SuperPod of 576 GPUs"));

/// The divisor Quiz 5 uses for the in-node tensor-parallel limit of LLaMA-3
/// 70B (`F / 1995 = 14.37`). The book never derives it: its own in-node ratio
/// is `990e12 / 450e9 = 2200` and its cross-node one 2475. Kept so the page
/// can show where the quiz's 14.37 comes from.
pub static QUIZ5_TP_DIVISOR: Cited<f64> = cited(
    1995.0,
    src_note(
        "Quiz 5 Q2.3: the limit is roughly F / 1995 = 28672 / 1995 = 14.372",
        "matches neither C / W_gpu = 2200 nor C / W_node = 2475",
    ),
);

/// A GPU the book uses that differs from a registry chip in one respect.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GpuVariant {
    /// Id (`h800`).
    pub id: &'static str,
    /// Display name.
    pub name: &'static str,
    /// The registry chip it is otherwise equal to.
    pub base: &'static str,
    /// Its NVLink bandwidth per GPU.
    pub nvlink: BytesPerSec,
    /// Where the book gives it.
    pub source: Source,
}

/// The export-market variants Part 12 uses.
pub static GPU_VARIANTS: &[GpuVariant] = &[GpuVariant {
    id: "h800",
    name: "NVIDIA H800",
    base: "h100",
    nvlink: BytesPerSec(300e9),
    source: src_note(
        "Data Parallelism: DeepSeek v3 on 2048 H800s with 300 GB/s (990e12 / 300e9 = 3300)",
        "FLOPs as H100",
    ),
}];

/// A variant by id.
pub fn variant(id: &str) -> Option<&'static GpuVariant> {
    let id = id.trim();
    GPU_VARIANTS.iter().find(|v| v.id.eq_ignore_ascii_case(id))
}

/// Bandwidths Part 12 reports measuring, as opposed to NVIDIA's specs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Measured {
    /// Best intra-node AllReduce bus bandwidth on 8xH100 (at ~10 GB messages).
    pub nccl_allreduce_bus: Cited<BytesPerSec>,
    /// The same for a 58 MB message.
    pub nccl_allreduce_58mb: Cited<BytesPerSec>,
    /// Fractional bandwidth gain SHARP gives in practice.
    pub sharp_gain: Cited<f64>,
    /// Fractional gain SHARP should give in theory.
    pub sharp_gain_theory: Cited<f64>,
    /// H100 L2 bandwidth (not published by NVIDIA), one direction.
    pub h100_l2_bandwidth: Cited<BytesPerSec>,
    /// Directions the L2 carries at once: it is full-duplex, so reads and
    /// writes each get [`Measured::h100_l2_bandwidth`].
    pub h100_l2_directions: Cited<f64>,
}

impl Measured {
    /// The L2's effective bandwidth, both directions together: `2 × 5.5 TB/s`,
    /// which the book puts at "closer to 3x" the HBM's. The L2 ridge uses this.
    pub fn h100_l2_effective(&self) -> BytesPerSec {
        self.h100_l2_bandwidth.value * self.h100_l2_directions.value
    }
}

/// The measured numbers of Part 12.
pub static MEASURED: Measured = Measured {
    nccl_allreduce_bus: cited(
        BytesPerSec(370e9),
        src("Intra-node collectives: empirical AllReduce ~370 GB/s (vs 450 GB/s claimed)"),
    ),
    nccl_allreduce_58mb: cited(
        BytesPerSec(150e9),
        src("Intra-node collectives: a 58 MB AllReduce reaches ~150 GB/s"),
    ),
    sharp_gain: cited(
        0.30,
        src("In network reductions: ~30% more bandwidth with SHARP, ~480 GB/s"),
    ),
    sharp_gain_theory: cited(0.75, src("In network reductions: predicted 75% gain")),
    h100_l2_bandwidth: cited(BytesPerSec(5.5e12), src("Memory: L2 measured at ~5.5 TB/s")),
    h100_l2_directions: cited(
        2.0,
        src("Memory: L2 is full-duplex, effective bidirectional bandwidth closer to 3x HBM"),
    ),
};

/// Part 12's side-by-side count of H100 and TPU v5p units.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TpuCounterpart {
    /// The TPU in the table.
    pub tpu: &'static str,
    /// VPU slots (independent SIMD units): 4 per TensorCore.
    pub vpu_slots_per_core: u32,
    /// The VPU's lane shape (sublanes, lanes).
    pub vpu_lanes: (u32, u32),
    /// MXUs per TensorCore.
    pub mxus_per_core: u32,
    /// VMEM per chip.
    pub vmem: Bytes,
    /// Vector registers per chip.
    pub vregs: Bytes,
    /// The H100 column's SMEM and register totals, as the table rounds them.
    pub h100_smem_rounded: Bytes,
    /// Where the book gives these.
    pub source: Source,
}

/// The GPU-vs-TPU chip table (H100 vs TPU v5p).
pub static TPU_COUNTERPART: TpuCounterpart = TpuCounterpart {
    tpu: "v5p",
    vpu_slots_per_core: 4,
    vpu_lanes: (8, 128),
    mxus_per_core: 4,
    vmem: Bytes(128.0 * MB),
    vregs: Bytes(256.0 * KIB),
    h100_smem_rounded: Bytes(32.0 * MB),
    source: src_note(
        "GPUs vs. TPUs at the chip level: H100 # vs TPU v5p # table; Quiz 1 Q1 (8, 128) lanes, 4 ALUs",
        "Quiz 1 Q5 calls VMEM ~120 MB",
    ),
};

/// A TPU's VMEM bandwidth as Part 12 quotes it beside the H100's L2.
pub static TPU_VMEM_BANDWIDTH: Cited<BytesPerSec> = cited(
    BytesPerSec(40e12),
    src_note(
        "Memory: a TPU's VMEM is 2x larger than L2 and has around 40 TB/s",
        "Part 2 puts VMEM at ~22x HBM bandwidth instead; the GPU comparison uses Part 12's figure",
    ),
);

/// How much NVIDIA's headline Tensor Core figures exceed the dense peak: they assume
/// 2:4 structured sparsity. Every peak in the registry is the dense one.
pub static SPARSITY_FACTOR: Cited<f64> = cited(
    2.0,
    Source {
        part: 1,
        table: "Q5: the H100 spec sheet's 1.979e15 bf16 is 'with sparsity'; dense is half, 9.89e14",
        note: Some("Part 4 Q7 halves the H800's 3,026 TFLOPs/s fp8 the same way"),
    },
);

/// Part 12's measured NCCL numbers on one 8xH100 node, as (message bytes, bus bandwidth).
/// These are the book's measurements, not a model: the AllReduce at ~10 GB and at a
/// LLaMA-3 70B MLP shard of 58 MB.
pub static NCCL_ALLREDUCE_POINTS: [(f64, &Cited<BytesPerSec>); 2] = [
    (58e6, &MEASURED.nccl_allreduce_58mb),
    (10e9, &MEASURED.nccl_allreduce_bus),
];

/// Part 12 Quiz 2 Q3's AllGather of 512 MB on an 8xH100 node: ~1.04 ms in theory,
/// "about 1.5 ms" measured.
pub static NCCL_ALLGATHER_512MB: Cited<crate::units::Seconds> = cited(
    crate::units::Seconds(1.5e-3),
    src("Quiz 2 Q3: AllGather of bf16[4096, 65536] on 8xH100 takes about 1.5 ms in practice"),
);

/// Part 12 Quiz 1 Q7's measured fp32 vector adds on one H100 in JAX: `(N, seconds)`.
pub static H100_ADD_MEASURED: [(f64, Cited<crate::units::Seconds>); 2] = [
    (
        65_536.0,
        cited(
            crate::units::Seconds(1.5e-6),
            src("Quiz 1 Q7: N = 65,536 runs in about 1.5 us (roofline 0.23 us)"),
        ),
    ),
    (
        1_073_741_824.0,
        cited(
            crate::units::Seconds(4.1e-3),
            src("Quiz 1 Q7: N = 1024^3 runs in 4.1 ms (roofline 3.84 ms)"),
        ),
    ),
];

/// A bandwidth-against-size curve the book measured and plotted (Part 12, Appendix B).
///
/// The book prints these only as figures, so the points are read off the plots:
/// sizes are the powers of two the runs used, bandwidths are accurate to about
/// two percent of each plot's full scale. They are the book's measurements, not
/// a model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeasuredCurve {
    /// Short key (`h100-allreduce`).
    pub key: &'static str,
    /// What was measured.
    pub label: &'static str,
    /// The setup alone, for a legend on a phone's chart.
    pub short: &'static str,
    /// The collective.
    pub collective: &'static str,
    /// The bandwidth the vendor claims for the link, as drawn on the plot.
    pub claimed: BytesPerSec,
    /// Measured with in-network reduction (SHARP) on; drawn only beside a
    /// SHARP AllReduce.
    pub sharp: bool,
    /// `(message bytes, link or bus bandwidth in bytes/s)`, smallest message first.
    pub points: &'static [(f64, f64)],
    /// Where the book shows it.
    pub source: Source,
}

const P13: f64 = 8192.0;
const P17: f64 = 131_072.0;
const P19: f64 = 524_288.0;
const P22: f64 = 4_194_304.0;
const P24: f64 = 16_777_216.0;
const P27: f64 = 134_217_728.0;
const P28: f64 = 268_435_456.0;
const P30: f64 = 1_073_741_824.0;
const P31: f64 = 2_147_483_648.0;
const P32: f64 = 4_294_967_296.0;
const P33: f64 = 8_589_934_592.0;

/// The measured curves of Part 12: the four of Appendix B and the SHARP-on
/// AllReduce of "In network reductions".
pub static MEASURED_CURVES: [MeasuredCurve; 5] = [
    MeasuredCurve {
        key: "h100-allreduce",
        label: "AllReduce bus bandwidth, 8xH100 node, SHARP off (NCCL)",
        short: "8xH100, SHARP off",
        collective: "allreduce",
        claimed: BytesPerSec(450e9),
        sharp: false,
        points: &[
            (P13, 0.0),
            (P17, 2e9),
            (P19, 7e9),
            (P22, 45e9),
            (P24, 127e9),
            (P27, 292e9),
            (P28, 323e9),
            (P30, 352e9),
            (P31, 360e9),
            (P32, 364e9),
            (P33, 367e9),
        ],
        source: src_note(
            "Appendix B (and Intra-node collectives): gpu-all-reduce-bw.png, bus BW",
            "read off the figure",
        ),
    },
    MeasuredCurve {
        key: "v5p-allreduce",
        label: "AllReduce bus bandwidth, TPU v5p 4x4x4, one axis",
        short: "v5p 4x4x4, one axis",
        collective: "allreduce",
        claimed: BytesPerSec(90e9),
        sharp: false,
        points: &[
            (P13, 0.0),
            (P17, 0.5e9),
            (P19, 3e9),
            (P22, 23e9),
            (P24, 66e9),
            (P27, 76e9),
            (P28, 79e9),
            (P30, 77.5e9),
            (P31, 79.5e9),
            (P32, 80.5e9),
            (P33, 81.3e9),
        ],
        source: src_note(
            "Appendix B: tpu-all-reduce-bw.png, bus BW",
            "read off the figure",
        ),
    },
    MeasuredCurve {
        key: "h100-allgather",
        label: "AllGather link bandwidth, 8xH100 node (NCCL)",
        short: "8xH100 node",
        collective: "allgather",
        claimed: BytesPerSec(450e9),
        sharp: false,
        points: &[
            (P13, 0.0),
            (P17, 0.5e9),
            (P19, 3e9),
            (P22, 25e9),
            (P24, 80e9),
            (P27, 234e9),
            (P28, 280e9),
            (P30, 331e9),
            (P31, 343e9),
            (P32, 350e9),
        ],
        source: src_note(
            "Appendix B: gpu-all-gather-bw.png, link BW",
            "read off the figure",
        ),
    },
    MeasuredCurve {
        key: "v5e-allgather",
        label: "AllGather link bandwidth, TPU v5e 8x16, one axis",
        short: "v5e 8x16, one axis",
        collective: "allgather",
        claimed: BytesPerSec(45e9),
        sharp: false,
        points: &[
            (P13, 0.3e9),
            (P17, 4e9),
            (P19, 12.6e9),
            (P22, 33.8e9),
            (P24, 40.4e9),
            (P27, 41.8e9),
            (P28, 42e9),
            (P30, 42.1e9),
            (P31, 42.2e9),
            (P32, 42.2e9),
        ],
        source: src_note(
            "Appendix B: tpu-all-gather-bw.png, link BW",
            "read off the figure",
        ),
    },
    MeasuredCurve {
        key: "h100-allreduce-sharp",
        label: "AllReduce bus bandwidth, 8xH100 node, SHARP on (NCCL)",
        short: "8xH100, SHARP on",
        collective: "allreduce",
        // SHARP's ideal in ring-equivalent bus bandwidth: B/W against 2B(N-1)/(NW), 1.75 x 450 GB/s.
        claimed: BytesPerSec(450e9 * 1.75),
        sharp: true,
        // The figure plots algo bandwidth (bytes / runtime); stored here as NCCL's bus
        // bandwidth, algo x 2(N-1)/N = 1.75, the axis the SHARP-off curve uses.
        points: &[
            (P13, 0.0),
            (P17, 1.4e9 * 1.75),
            (P19, 7.5e9 * 1.75),
            (P22, 40e9 * 1.75),
            (P24, 135e9 * 1.75),
            (P27, 215.5e9 * 1.75),
            (P28, 232e9 * 1.75),
            (P30, 254e9 * 1.75),
            (P31, 262e9 * 1.75),
            (P32, 267e9 * 1.75),
            (P33, 272e9 * 1.75),
        ],
        source: src_note(
            "In network reductions: sharp-all-reduce-cost.png, SHARP curve, algo BW",
            "read off the figure; times 2(N-1)/N = 1.75 for bus bandwidth",
        ),
    },
];

impl MeasuredCurve {
    /// The measured bandwidth at `bytes`, interpolated on a log scale of size;
    /// `None` outside the measured range.
    pub fn at(&self, bytes: f64) -> Option<BytesPerSec> {
        let pts = self.points;
        let first = pts.first()?;
        let last = pts.last()?;
        if !(bytes >= first.0 && bytes <= last.0) {
            return None;
        }
        let i = pts.iter().position(|p| p.0 >= bytes)?;
        if i == 0 || pts[i].0 == bytes {
            return Some(BytesPerSec(pts[i].1));
        }
        let (a, b) = (pts[i - 1], pts[i]);
        let f = (bytes.ln() - a.0.ln()) / (b.0.ln() - a.0.ln());
        Some(BytesPerSec(a.1 + f * (b.1 - a.1)))
    }

    /// The measured bandwidth at `bytes` over the claimed one.
    pub fn share_of_claimed(&self, bytes: f64) -> Option<f64> {
        Some(self.at(bytes)? / self.claimed)
    }
}

/// A measured curve by key.
pub fn measured_curve(key: &str) -> Option<&'static MeasuredCurve> {
    MEASURED_CURVES.iter().find(|c| c.key == key)
}

/// One configuration of the Megatron-LM table Part 12 shows for Quiz 5 Q3
/// (every column of the figure, as printed).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MegatronRow {
    /// Model name (`70B`).
    pub model: &'static str,
    /// Parameters.
    pub params: f64,
    /// Attention heads.
    pub heads: u32,
    /// Hidden size `D`.
    pub hidden: u32,
    /// Layers.
    pub layers: u32,
    /// Tensor-parallel ways.
    pub tp: u32,
    /// Pipeline stages.
    pub pp: u32,
    /// Data-parallel ways.
    pub dp: u32,
    /// GPUs.
    pub gpus: u64,
    /// Global batch in sequences.
    pub batch_sequences: f64,
    /// Measured FLOP/s per GPU.
    pub per_gpu: FlopsPerSec,
    /// The MFU the table prints, a share of one.
    pub mfu: f64,
    /// The aggregate FLOP/s the table prints.
    pub aggregate: FlopsPerSec,
}

impl MegatronRow {
    /// Model-parallel ways: tensor × pipeline.
    pub fn model_parallel(&self) -> u32 {
        self.tp * self.pp
    }
}

/// Sequence length of every Megatron-LM row.
pub static MEGATRON_SEQ: Cited<f64> = cited(
    MEGATRON_SEQ_TOKENS,
    src("Quiz 5 Q3: sequence length 4096 everywhere"),
);

/// [`MEGATRON_SEQ`]'s value, for constant contexts (an exercise's defaults).
pub const MEGATRON_SEQ_TOKENS: f64 = 4096.0;

const fn mrow(
    model: &'static str,
    params: f64,
    shape: (u32, u32, u32),
    split: (u32, u32, u32),
    gpus: u64,
    batch_sequences: f64,
    measured: (f64, f64, f64),
) -> MegatronRow {
    MegatronRow {
        model,
        params,
        heads: shape.0,
        hidden: shape.1,
        layers: shape.2,
        tp: split.0,
        pp: split.1,
        dp: split.2,
        gpus,
        batch_sequences,
        per_gpu: FlopsPerSec(measured.0 * 1e12),
        mfu: measured.1,
        aggregate: FlopsPerSec(measured.2 * 1e15),
    }
}

/// The rows of [`MEGATRON_ROWS`], for constant contexts (an exercise's
/// defaults read a row by index).
pub const MEGATRON_TABLE: [MegatronRow; 9] = [
    mrow(
        "1.7B",
        1.7e9,
        (16, 2048, 24),
        (1, 1, 48),
        48,
        192.0,
        (408.8, 0.41, 19.6),
    ),
    mrow(
        "7.1B",
        7.1e9,
        (32, 4096, 30),
        (2, 1, 48),
        96,
        192.0,
        (465.9, 0.47, 44.7),
    ),
    mrow(
        "16B",
        16e9,
        (48, 6144, 32),
        (4, 1, 48),
        192,
        192.0,
        (489.1, 0.49, 93.9),
    ),
    mrow(
        "32B",
        32e9,
        (56, 7168, 48),
        (8, 1, 48),
        384,
        192.0,
        (459.6, 0.46, 176.5),
    ),
    mrow(
        "70B",
        70e9,
        (64, 8192, 84),
        (8, 2, 48),
        768,
        384.0,
        (419.7, 0.42, 322.3),
    ),
    mrow(
        "119B",
        119e9,
        (80, 10240, 92),
        (8, 4, 48),
        1536,
        768.0,
        (420.5, 0.43, 645.9),
    ),
    mrow(
        "177B",
        177e9,
        (96, 12288, 96),
        (8, 6, 48),
        2304,
        1152.0,
        (432.8, 0.44, 997.2),
    ),
    mrow(
        "314B",
        314e9,
        (128, 16384, 96),
        (8, 8, 48),
        3072,
        1536.0,
        (474.4, 0.48, 1457.4),
    ),
    mrow(
        "462B",
        462e9,
        (144, 18432, 112),
        (8, 16, 48),
        6144,
        3072.0,
        (459.9, 0.47, 2825.6),
    ),
];

/// The Megatron-LM table Part 12 shows in Quiz 5 Q3 (from the Megatron-LM
/// repository's README): heads, hidden size and layers; tensor, pipeline and
/// data-parallel ways; GPUs and batch; per-GPU teraFLOP/s, MFU and aggregate
/// petaFLOP/s.
pub static MEGATRON_ROWS: Cited<[MegatronRow; 9]> = cited(
    MEGATRON_TABLE,
    src_note(
        "Quiz 5 Q3: megatron-hparams.png (the Megatron-LM README's table), every row and column",
        "the answer reads the 16B, 70B and 314B rows; the others are read here the same way",
    ),
);

/// A Megatron-LM row by model name (`70B`).
pub fn megatron_row(model: &str) -> Option<&'static MegatronRow> {
    MEGATRON_ROWS.value.iter().find(|r| r.model == model)
}

/// An eight-GPU NVLink node from before NVSwitch: NVIDIA's DGX-1 "hybrid
/// cube-mesh", in which each GPU's few links go straight to some of the
/// others, one or two links to a pair, and the rest are reached in two hops.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CubeMeshNode {
    /// The GPU (`P100`).
    pub gpu: &'static str,
    /// The system (`DGX-1`).
    pub system: &'static str,
    /// The NVLink generation.
    pub nvlink: &'static str,
    /// NVLink links per GPU.
    pub links_per_gpu: u32,
    /// Bandwidth of one link, each way.
    pub link_bandwidth: BytesPerSec,
    /// The links of each joined pair, `(a, b, links)`, GPUs numbered 0 to 7 as
    /// `nvidia-smi topo -m` numbers them; a pair not listed has no link.
    pub pairs: &'static [(u8, u8, u8)],
    /// Where these come from.
    pub source: Source,
}

/// The two cube-mesh nodes of the book's figure of NVLink nodes (P100 in the
/// DGX-1 of 2016, and the V100 DGX-1 that kept its shape). The book's figure
/// draws them but states no link counts, so those are NVIDIA's.
pub static CUBE_MESH_NODES: [CubeMeshNode; 2] = [
    CubeMeshNode {
        gpu: "P100",
        system: "DGX-1",
        nvlink: "1.0",
        links_per_gpu: 4,
        link_bandwidth: BytesPerSec(20e9),
        // Two fully joined quads, and each GPU to its twin in the other quad.
        pairs: &[
            (0, 1, 1), (0, 2, 1), (0, 3, 1), (1, 2, 1), (1, 3, 1), (2, 3, 1),
            (4, 5, 1), (4, 6, 1), (4, 7, 1), (5, 6, 1), (5, 7, 1), (6, 7, 1),
            (0, 4, 1), (1, 5, 1), (2, 6, 1), (3, 7, 1),
        ],
        source: src_note(
            "At the node level: figure of NVLink nodes from P100 on (DGX-1, P100)",
            "the figure states no link counts: 4 NVLink 1.0 links of 20 GB/s each way per P100, \
             in a hybrid cube-mesh, are from NVIDIA's DGX-1 System Architecture white paper (WP-08437-001)",
        ),
    },
    CubeMeshNode {
        gpu: "V100",
        system: "DGX-1",
        nvlink: "2.0",
        links_per_gpu: 6,
        link_bandwidth: BytesPerSec(25e9),
        pairs: &[
            (0, 1, 1), (0, 2, 1), (0, 3, 2), (1, 2, 2), (1, 3, 1), (2, 3, 2),
            (4, 5, 1), (4, 6, 1), (4, 7, 2), (5, 6, 2), (5, 7, 1), (6, 7, 2),
            (0, 4, 2), (1, 5, 2), (2, 6, 1), (3, 7, 1),
        ],
        source: src_note(
            "At the node level: figure of NVLink nodes from P100 on (its V100 is the switched DGX-2)",
            "6 NVLink 2.0 links of 25 GB/s each way per V100 and the DGX-1's doubled pairs are from NVIDIA's \
             DGX-1 with Tesla V100 System Architecture white paper (WP-08437-002) and its nvidia-smi topo -m",
        ),
    },
];

/// A cube-mesh node by GPU name (`p100`, `V100`).
pub fn cube_mesh_node(gpu: &str) -> Option<&'static CubeMeshNode> {
    CUBE_MESH_NODES
        .iter()
        .find(|n| n.gpu.eq_ignore_ascii_case(gpu.trim()))
}

/// The first switched NVLink node, the V100 DGX-2 of the book's figure:
/// `(GPUs, NVSwitches)`.
pub static DGX2_NODE: Cited<(u32, u32)> = cited(
    (16, 12),
    src("At the node level: figure of NVLink nodes (DGX-2, V100: 16 GPUs on two boards of 6 NVSwitches)"),
);

/// DeepSeek V3's batch as the data-parallelism passage gives it ("4M"),
/// read as `4 · 2^20` like LLaMA-3's 16M.
pub static DEEPSEEK_DP_PASSAGE_BATCH: Cited<f64> = cited(
    4.0 * 1024.0 * 1024.0,
    src_note(
        "Rooflines, data parallelism: DeepSeek V3 would need about 6.7M; in practice they used 4M",
        "disagrees with Examples, which gives the steady batch as 4096 x 15360 = 62,914,560 tokens",
    ),
);

/// Tokens in DeepSeek V3's first batches (3,072 sequences of 4,096): the
/// DeepSeek-V3 report ramps the batch from this to the 15,360 sequences of the
/// Examples section.
pub static DEEPSEEK_RAMP_START: Cited<f64> = cited(
    3072.0 * 4096.0,
    src_note(
        "Further reading: the DeepSeek-V3 technical report (arXiv 2412.19437), section 4.2",
        "the batch grows from 3,072 to 15,360 sequences of 4,096 tokens over the first 469B tokens",
    ),
);

/// A training recipe the book describes in its Examples section.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrainingRecipe {
    /// Model.
    pub model: &'static str,
    /// GPU id (registry or variant).
    pub gpu: &'static str,
    /// GPUs.
    pub gpus: u64,
    /// Global batch in tokens.
    pub batch_tokens: f64,
    /// Tensor-parallel degree.
    pub tp: u32,
    /// Expert-parallel degree.
    pub ep: u32,
    /// Pipeline stages.
    pub pp: u32,
    /// Data-parallel degree.
    pub dp: u32,
    /// Experts and experts per token, for an MoE.
    pub moe: Option<(u32, u32)>,
    /// Where the book gives it.
    pub source: Source,
}

/// DeepSeek V3 and LLaMA-3 as Part 12's Examples describe them.
pub static RECIPES: [TrainingRecipe; 2] = [
    TrainingRecipe {
        model: "DeepSeek V3",
        gpu: "h800",
        gpus: 2048,
        batch_tokens: 4096.0 * 15360.0,
        tp: 1,
        ep: 64,
        pp: 16,
        dp: 2,
        moe: Some((256, 8)),
        source: src("Examples: 64-way EP over 8 nodes, 16-way PP, 2-way ZeRO-1 DP; batch 4096 x 15360; k=8, E=256"),
    },
    TrainingRecipe {
        model: "LLaMA-3",
        gpu: "h100",
        gpus: 16384,
        batch_tokens: 16.0 * 1024.0 * 1024.0,
        tp: 8,
        ep: 1,
        pp: 16,
        dp: 128,
        moe: None,
        source: src_note(
            "Examples: 16M-token batch on 16k GPUs; 8-way TP, 16-way PP, 128-way ZeRO-1 DP",
            "16k read as 16,384 = 8 x 16 x 128",
        ),
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hardware::{chip, Link, Topology};

    #[test]
    fn rows_agree_with_the_registry() {
        for g in GPU_GENERATIONS {
            let Some(c) = g.registry_chip() else {
                assert!(
                    g.hbm_bw_unregistered.is_some(),
                    "{} needs its own HBM",
                    g.name
                );
                continue;
            };
            let Topology::NvlinkDomain { sms, .. } = c.topology else {
                panic!("{} is not a GPU", g.name);
            };
            assert_eq!(sms, g.sms, "{}", g.name);
            assert_eq!(c.hbm_capacity.value, g.hbm_capacity, "{}", g.name);
            let nv = nvlink_generation(g.architecture).unwrap();
            assert_eq!(
                c.bandwidth(Link::NvLink),
                Some(nv.gpu_bandwidth),
                "{}",
                g.name
            );
            assert_eq!(nv.gpu_egress(), nv.gpu_bandwidth, "{}", g.name);
        }
        assert_eq!(generation("gb200").unwrap().name, "B200");
        assert_eq!(generation("V100").unwrap().chip, None);
        assert!(generation("tpu").is_none());
    }

    #[test]
    fn sm_layout() {
        assert_eq!(SM.tensor_cores(), 4);
        assert_eq!(SM.cuda_cores(), 128);
        assert_eq!(SM.register_file(), Bytes(256.0 * 1024.0));
        let h100 = chip("h100").unwrap();
        assert!(variant("H800").unwrap().base == h100.id);
    }

    #[test]
    fn superpod_structure() {
        assert_eq!(DGX_SUPERPOD.su_uplink(), BytesPerSec(12.8e12));
        assert_eq!(DGX_SUPERPOD.two_tier_limit(), 2048);
        assert_eq!(IB_NDR_SWITCH.bandwidth(), BytesPerSec(3.2e12));
        let hopper = nvlink_generation(Architecture::Hopper).unwrap();
        assert_eq!(hopper.switch_bandwidth(), Some(BytesPerSec(1.6e12)));
        assert_eq!(hopper.switches_for(8), Some(4));
    }

    #[test]
    fn measured_curves_read_consistently() {
        for c in &MEASURED_CURVES {
            assert!(c.points.windows(2).all(|w| w[0].0 < w[1].0), "{}", c.key);
            let top = c.points.last().unwrap().1;
            assert!(
                top < c.claimed.0 * 1.0,
                "{}: no curve beats its claim",
                c.key
            );
            assert_eq!(c.at(c.points[3].0), Some(BytesPerSec(c.points[3].1)));
            assert!(c.at(1.0).is_none());
        }
        // The book's 370 GB/s at ~10 GB agrees with the figure's last point within 1%.
        let ar = measured_curve("h100-allreduce").unwrap();
        let last = ar.points.last().unwrap().1;
        assert!((last / MEASURED.nccl_allreduce_bus.value.0 - 1.0).abs() < 0.01);
        // The SHARP-on curve tops the SHARP-off one by the book's ~30% and
        // reaches its ~480 GB/s ring-equivalent bandwidth.
        let on = measured_curve("h100-allreduce-sharp").unwrap();
        let on_top = on.points.last().unwrap().1;
        assert!((on_top / last - 1.0 - MEASURED.sharp_gain.value).abs() < 0.02);
        let book_480 = MEASURED.nccl_allreduce_bus.value.0 * (1.0 + MEASURED.sharp_gain.value);
        assert!((on_top / book_480 - 1.0).abs() < 0.02);
        assert!(on.sharp && !ar.sharp);
        // At 16 MB a TPU is near its claimed bandwidth, an H100 node far from it.
        let mb16 = 16_777_216.0;
        assert!(
            measured_curve("v5e-allgather")
                .unwrap()
                .share_of_claimed(mb16)
                .unwrap()
                > 0.85
        );
        assert!(
            measured_curve("h100-allgather")
                .unwrap()
                .share_of_claimed(mb16)
                .unwrap()
                < 0.2
        );
    }

    #[test]
    fn the_megatron_table_adds_up() {
        let peak = chip("h100")
            .unwrap()
            .peak(crate::dtype::Dtype::Bf16)
            .unwrap()
            .0;
        for r in &MEGATRON_ROWS.value {
            // Every GPU is in one tensor × pipeline × data-parallel slot.
            assert_eq!(u64::from(r.model_parallel() * r.dp), r.gpus, "{}", r.model);
            // The aggregate is the per-GPU rate times the GPUs, to the 0.1 PFLOP/s printed.
            let agg = r.per_gpu.0 * r.gpus as f64;
            assert!((agg - r.aggregate.0).abs() <= 0.05e15, "{}", r.model);
            // The printed MFU is the per-GPU rate over the H100's bf16 peak, within a point.
            assert!((r.per_gpu.0 / peak - r.mfu).abs() <= 0.01, "{}", r.model);
        }
        assert_eq!(megatron_row("70B").unwrap().model_parallel(), 16);
        assert_eq!(megatron_row("314B").unwrap().model_parallel(), 64);
        assert!(megatron_row("71B").is_none());
    }

    #[test]
    fn cube_mesh_nodes_use_every_link_once() {
        for n in &CUBE_MESH_NODES {
            for g in 0..8u8 {
                let links: u32 = n
                    .pairs
                    .iter()
                    .filter(|(a, b, _)| *a == g || *b == g)
                    .map(|(_, _, l)| u32::from(*l))
                    .sum();
                assert_eq!(links, n.links_per_gpu, "{} GPU {g}", n.gpu);
            }
            // No pair twice, no GPU joined to itself.
            for (i, (a, b, _)) in n.pairs.iter().enumerate() {
                assert!(a < b && *b < 8, "{}", n.gpu);
                assert!(n.pairs[..i].iter().all(|(c, d, _)| (c, d) != (a, b)));
            }
        }
        assert_eq!(cube_mesh_node("p100").unwrap().link_bandwidth.0, 20e9);
        assert_eq!(cube_mesh_node(" V100").unwrap().links_per_gpu, 6);
        assert!(cube_mesh_node("a100").is_none());
    }
}
