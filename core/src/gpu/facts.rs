//! Part 12's numbers by name, formatted for prose: the chapter writes
//! `{{gpu-fact fact=cuda-cores chip=b200}}` and the build asks [`fact`] for
//! `18,944`. Every fact is computed by the GPU models of this module from the
//! registry; [`FACTS`] lists them, and a test evaluates each one.
//!
//! ```
//! use ridgeline_core::gpu::facts::fact;
//!
//! assert_eq!(fact("cuda-cores", Some("h100")).unwrap(), "16,896");
//! assert_eq!(fact("sharp-predicted-gain", None).unwrap(), "75%");
//! assert!(fact("cuda-cores", Some("v5e")).is_err());
//! ```

use super::anatomy::{anatomy, AnatomyParams};
use super::collectives::{measured_link_share, nccl_fit, sharp_gain};
use super::memory::{hierarchy, MemoryParams};
use super::node::{nvlink_node, NodeParams};
use super::rooflines::{gb200_changes, megatron};
use super::specs::{DEEPSEEK_DP_PASSAGE_BATCH, DEEPSEEK_RAMP_START, DGX_SUPERPOD, MEASURED, SM};
use super::superpod::{superpod, SuperPodParams};
use crate::format::{grouped, sci, si};
use crate::training::pipeline::{simulate, PipelineParams, Schedule};

/// One fact: its name, whether it needs `chip=`, and what it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FactSpec {
    /// Name used in `fact=`.
    pub name: &'static str,
    /// Whether `chip=` is required.
    pub needs_chip: bool,
    /// What it is.
    pub doc: &'static str,
}

const fn f(name: &'static str, needs_chip: bool, doc: &'static str) -> FactSpec {
    FactSpec {
        name,
        needs_chip,
        doc,
    }
}

/// Every fact [`fact`] knows.
pub const FACTS: &[FactSpec] = &[
    f("sms", true, "SMs per chip"),
    f("tensor-cores", true, "Tensor Cores per chip"),
    f("cuda-cores", true, "fp32 CUDA cores per chip"),
    f("warp-schedulers", true, "warp schedulers per chip"),
    f(
        "tc-flops-per-cycle",
        true,
        "dense bf16 FLOPs per Tensor Core per cycle (the book's estimate)",
    ),
    f(
        "tensor-clock",
        true,
        "the clock the Tensor Core estimate uses",
    ),
    f(
        "peak-from-parts",
        true,
        "SMs x 4 x FLOPs per TC per cycle x clock",
    ),
    f(
        "vector-boost",
        true,
        "fp32 CUDA-core FLOPs/s at boost, one op per cycle",
    ),
    f("smem-per-sm", true, "SMEM per SM"),
    f("smem-total", true, "SMEM on the chip"),
    f("l2", true, "L2 per chip"),
    f("hbm", true, "HBM capacity"),
    f("hbm-bw", true, "HBM bandwidth"),
    f("hbm-ridge", true, "peak over HBM bandwidth"),
    f("register-file", false, "register file per SM"),
    f(
        "registers-per-subpartition",
        false,
        "32-bit registers per subpartition",
    ),
    f("resident-warps", false, "most resident warps per SM"),
    f("warp-size", false, "threads per warp"),
    f("l2-bw", false, "the H100's measured L2 bandwidth, one direction"),
    f(
        "l2-bw-both",
        false,
        "the same, both directions of the full-duplex L2",
    ),
    f(
        "l2-over-hbm",
        false,
        "the full-duplex L2 bandwidth over the H100's HBM bandwidth",
    ),
    f(
        "l2-ridge",
        false,
        "the H100's peak over its full-duplex L2 bandwidth",
    ),
    f(
        "vmem-bw",
        false,
        "a TPU's VMEM bandwidth as Part 12 quotes it",
    ),
    f("vmem-ridge", false, "TPU v5p peak over that VMEM bandwidth"),
    f("vmem", false, "VMEM on a TPU v5p, as Part 12's chip table gives it"),
    f(
        "vmem-over-l2",
        false,
        "a TPU v5p's VMEM over an H100's L2 capacity",
    ),
    f("nvlink-links", true, "NVLink ports per GPU"),
    f(
        "nvlink-link-bw",
        true,
        "bandwidth of one NVLink link, each way",
    ),
    f("nvswitches", true, "NVSwitches in the node"),
    f("node-gpu-total", true, "every GPU's NVLink egress added up"),
    f("node-switch-total", true, "the node's NVSwitch bandwidth"),
    f(
        "node-bisection",
        true,
        "the node's bisection bandwidth, both directions",
    ),
    f("node-egress", true, "the node's scale-out egress"),
    f(
        "inside-over-outside",
        true,
        "NVLink per GPU over scale-out per GPU",
    ),
    f("su-nodes", false, "nodes per Scalable Unit"),
    f("su-leaves", false, "leaf switches per Scalable Unit"),
    f("pod-sus", false, "Scalable Units in the reference pod"),
    f("pod-spines", false, "spine switches in the reference pod"),
    f("pod-switches", true, "every switch of a 1,024-GPU pod"),
    f(
        "pod-bisection",
        true,
        "bisection bandwidth of the reference pod",
    ),
    f("su-uplink", false, "bandwidth from one SU to the spine"),
    f("ib-switch-bw", false, "one InfiniBand switch, all ports"),
    f(
        "two-tier-limit",
        false,
        "GPUs two tiers of 64-port switches can join",
    ),
    f(
        "nccl-latency",
        false,
        "start-up time least-squares fitted to the book's measured NCCL AllReduce curve",
    ),
    f("nccl-bw", false, "bus bandwidth fitted to the same"),
    f(
        "nccl-10gb",
        false,
        "measured AllReduce bus bandwidth at about 10 GB",
    ),
    f(
        "nccl-58mb",
        false,
        "measured AllReduce bus bandwidth at 58 MB",
    ),
    f(
        "sharp-predicted-gain",
        false,
        "SHARP's predicted AllReduce gain on 8 GPUs",
    ),
    f("sharp-measured-gain", false, "SHARP's measured gain"),
    f(
        "nccl-link-share",
        false,
        "the share of the H100's quoted NVLink bandwidth its fitted NCCL AllReduce reaches",
    ),
    f(
        "sharp-measured-bw",
        false,
        "AllReduce bandwidth with SHARP, measured",
    ),
    f(
        "megatron-70b-threshold",
        false,
        "DP threshold of the 70B Megatron row",
    ),
    f(
        "megatron-314b-threshold",
        false,
        "DP threshold of the 314B Megatron row",
    ),
    f(
        "gb200-cross-node-gain",
        false,
        "how much easier cross-node DP gets on GB200 NVL72 than H100 counting only the \
         rack's egress (the book's estimate)",
    ),
    f(
        "gb200-pod-dp-tokens",
        false,
        "tokens per GPU DP needs across a whole GB200 SuperPod, every level counted \
         (NVLink binds)",
    ),
    f(
        "bubble-2x2",
        false,
        "idle fraction of the 2-stage, 2-microbatch pipeline",
    ),
    f(
        "tp-limit-llama3-70b",
        true,
        "most TP ways inside a node for LLaMA-3 70B's F",
    ),
    f(
        "tp-limit-network-llama3-70b",
        true,
        "TP ways for LLaMA-3 70B's F at the cross-node ratio (the book's prose, ~11)",
    ),
    f(
        "tp-quiz-divisor",
        false,
        "the divisor Quiz 5 uses for the in-node TP limit",
    ),
    f(
        "tp-limit-quiz-llama3-70b",
        false,
        "LLaMA-3 70B's F over Quiz 5's divisor (the quiz's 14.37)",
    ),
    f(
        "tp-limit-two-nodes-llama3-70b",
        true,
        "most TP ways over two nodes for LLaMA-3 70B's F",
    ),
    f(
        "moe-dp-gpt-oss",
        true,
        "cross-node DP tokens per GPU for gpt-oss-120b's E/k",
    ),
    f(
        "ep-many-nodes-f",
        true,
        "the F above which EP can span many nodes, 8 C / W_node",
    ),
    f(
        "deepseek-tokens-per-gpu",
        false,
        "DeepSeek V3's steady-state tokens per GPU",
    ),
    f("llama3-tokens-per-gpu", false, "LLaMA-3's tokens per GPU"),
    f(
        "gb200-pod-gpus",
        false,
        "GPUs in the reference GB200 SuperPod",
    ),
    f("subpartitions", false, "subpartitions per SM"),
    f("v5p-tensorcores", false, "TensorCores on a TPU v5p"),
    f("v5p-vpu-slots", false, "independent VPU slots on a TPU v5p"),
    f("v5p-vpu-alus", false, "VPU ALUs (lanes) on a TPU v5p"),
    f(
        "v5p-ici-per-chip",
        false,
        "a TPU v5p's ICI bandwidth over every torus axis: the bidirectional link figure x axes",
    ),
    f(
        "vs-v5p-flops",
        true,
        "this GPU's dense bf16 peak over a TPU v5p's",
    ),
    f("vs-v5p-hbm", true, "this GPU's HBM over a TPU v5p's"),
    f(
        "vs-v5p-smem",
        true,
        "this GPU's SMEM over a TPU v5p's VMEM, as a percentage",
    ),
    f(
        "h100-v5p-price",
        false,
        "an H100's price per hour over a TPU v5p's (Part 8's table)",
    ),
    f(
        "h200-v5p-price",
        false,
        "an H200's price per hour over a TPU v5p's (Part 12's quote)",
    ),
    f("h200-price", false, "an H200's hourly price as Part 12 quotes it"),
    f("v5p-price-p12", false, "a TPU v5p's hourly price as Part 12 quotes it"),
    f(
        "ag-bw-node",
        true,
        "AllGather bandwidth of the node level, D W / (D - 1)",
    ),
    f("ag-bw-leaf", true, "AllGather bandwidth of the leaf level"),
    f(
        "ag-bw-spine",
        true,
        "AllGather bandwidth of the spine level",
    ),
    f(
        "dp-two-nodes",
        true,
        "per-GPU DP tokens when DP spans exactly two nodes",
    ),
    f(
        "spine-cable-bw",
        false,
        "cable bandwidth into the reference pod's spine",
    ),
    f(
        "spine-switch-bw-b",
        false,
        "the spine's switch bandwidth as Appendix B counts it",
    ),
    f(
        "spine-per-gpu-b",
        false,
        "the spine's bandwidth per GPU under Appendix B's count",
    ),
    f("h100-ag-16mb-share", false, "share of the claimed bandwidth an 8xH100 AllGather reached at 16 MiB (read off the book's figure)"),
    f("v5e-ag-16mb-share", false, "the same for a TPU v5e AllGather"),
    f(
        "max-registers-per-thread",
        false,
        "most 32-bit registers one thread can address",
    ),
    f(
        "warps-at-max-registers",
        false,
        "resident warps per SM when every thread uses the most registers",
    ),
    f(
        "vector-fma",
        true,
        "fp32 CUDA-core FLOPs/s at boost counting an FMA as two, as spec sheets do",
    ),
    f(
        "fp8-over-bf16",
        true,
        "the dense fp8 (or int8) peak over the bf16 peak",
    ),
    f(
        "vector-ridge",
        true,
        "fp32 CUDA-core FLOPs/s at boost over HBM bandwidth",
    ),
    f(
        "ib-over-nvswitch",
        false,
        "one InfiniBand leaf switch's bandwidth over one H100 NVSwitch's",
    ),
    f(
        "alltoall-node-per-gpu",
        true,
        "a GPU's share of its node's egress, what a cross-node AllToAll gets",
    ),
    f(
        "alltoall-two-node-slowdown",
        true,
        "an AllToAll over two nodes over one inside a node, (D W_gpu) / (2 W_node)",
    ),
    f(
        "pod-bisection-one-way",
        true,
        "the reference pod's bisection bandwidth, one direction",
    ),
    f(
        "pod-collective-bw",
        true,
        "2 x the one-way bisection bandwidth / nodes: the collective bandwidth per node",
    ),
    f("deepseek-gpus", false, "GPUs of DeepSeek V3's run"),
    f("deepseek-ep", false, "DeepSeek V3's expert-parallel ways"),
    f("deepseek-ep-nodes", false, "nodes DeepSeek V3's expert parallelism spans"),
    f("deepseek-pp", false, "DeepSeek V3's pipeline stages"),
    f("deepseek-dp", false, "DeepSeek V3's data-parallel (ZeRO-1) ways"),
    f("deepseek-batch", false, "DeepSeek V3's batch in tokens"),
    f("deepseek-experts", false, "DeepSeek V3's experts, E"),
    f("deepseek-active", false, "DeepSeek V3's active experts per token, k"),
    f(
        "deepseek-model-parallel",
        false,
        "DeepSeek V3's model-parallel ways, EP x PP x TP",
    ),
    f(
        "deepseek-dp-gain",
        false,
        "the bandwidth gain of a data-parallel ring of DeepSeek V3's size, X / (X - 1)",
    ),
    f(
        "deepseek-dp-batch-needed",
        false,
        "the batch DeepSeek V3's GPUs need for DP over H800 NVLink",
    ),
    f("tmem-per-sm", false, "tensor memory (TMEM) per SM on a B200 (Blackwell only)"),
    f("nvlink-gen", true, "the NVLink generation of this GPU's architecture"),
    f("nvswitch-gen", true, "the NVSwitch generation of this GPU's architecture"),
    f("nvswitch-ports", true, "NVLink ports on one NVSwitch"),
    f("nvswitch-lanes", true, "physical lanes in one NVSwitch port (Appendix B)"),
    f("nvswitch-lane-total", true, "physical lanes on one NVSwitch, ports x lanes"),
    f("nvswitch-bw", true, "one NVSwitch's bandwidth, ports x link bandwidth, each way"),
    f("p100-links", false, "NVLink links per P100 (DGX-1)"),
    f("p100-link-bw", false, "bandwidth of one P100 NVLink link, each way"),
    f("p100-per-gpu", false, "a P100's NVLink egress, each way"),
    f("p100-quad-cut", false, "what crosses between the two quads of a P100 DGX-1, each way"),
    f("v100-links", false, "NVLink links per V100 (DGX-1)"),
    f("v100-link-bw", false, "bandwidth of one V100 NVLink link, each way"),
    f("v100-per-gpu", false, "a V100's NVLink egress, each way"),
    f("v100-pair-double", false, "a doubled V100 pair's bandwidth, each way"),
    f("v100-quad-cut", false, "what crosses between the two quads of a V100 DGX-1, each way"),
    f("mesh-peers", false, "peers a DGX-1 GPU reaches in one hop"),
    f("dgx2-gpus", false, "V100s in a DGX-2's switched NVLink domain"),
    f("dgx2-switches", false, "NVSwitches in a DGX-2"),
    f(
        "deepseek-passage-batch",
        false,
        "DeepSeek V3's batch as the data-parallelism passage gives it",
    ),
    f(
        "deepseek-passage-per-gpu",
        false,
        "the passage's DeepSeek V3 batch per GPU",
    ),
    f(
        "deepseek-passage-share",
        false,
        "the passage's DeepSeek V3 batch over the batch pure DP would need",
    ),
    f(
        "deepseek-batch-over-needed",
        false,
        "DeepSeek V3's steady batch over the batch pure DP would need",
    ),
    f(
        "deepseek-batch-start",
        false,
        "DeepSeek V3's first batch in tokens (the report's ramp)",
    ),
    f("pod-node-degree", false, "children of one node-level group in the reference H100 pod"),
    f("pod-node-switch", false, "switch bandwidth of the reference H100 pod's node level, every port counted"),
    f("pod-node-cable", false, "cable bandwidth of the reference H100 pod's node level"),
    f("pod-leaf-degree", false, "children of one leaf-level group in the reference H100 pod"),
    f("pod-leaf-switch", false, "switch bandwidth of the reference H100 pod's leaf level, every port counted"),
    f("pod-leaf-cable", false, "cable bandwidth of the reference H100 pod's leaf level"),
    f("pod-spine-degree", false, "children of one spine-level group in the reference H100 pod"),
    f("pod-spine-switch", false, "switch bandwidth of the reference H100 pod's spine level, every port counted"),
    f("pod-spine-cable", false, "cable bandwidth of the reference H100 pod's spine level"),
    f("ib-switch-ports", false, "ports on one InfiniBand switch of the SuperPod"),
    f("ib-port-bw", false, "bandwidth of one InfiniBand NDR port, each way"),
    f(
        "tpu-dp-tokens",
        false,
        "per-chip tokens DP needs on a TPU v5p over its whole 3D torus",
    ),
    f("llama3-gpus", false, "GPUs of LLaMA-3's run"),
    f("llama3-tp", false, "LLaMA-3's tensor-parallel ways"),
    f("llama3-pp", false, "LLaMA-3's pipeline stages"),
    f("llama3-dp", false, "LLaMA-3's data-parallel (ZeRO-1) ways"),
    f("llama3-batch", false, "LLaMA-3's batch in tokens"),
    f(
        "llama3-pp-saving",
        false,
        "how many times fewer gradient bytes each GPU reduces with LLaMA-3's pipeline",
    ),
    f(
        "llama3-dp-batch-needed",
        false,
        "the batch LLaMA-3's GPUs need for DP across H100 nodes",
    ),
];

fn chip_of(chip: Option<&str>, name: &str) -> Result<String, String> {
    chip.map(str::to_string)
        .ok_or_else(|| format!("`gpu-fact fact={name}` needs chip="))
}

fn bps(x: crate::units::BytesPerSec) -> String {
    si(x.0, "B/s", 3)
}

fn missing(name: &str, chip: &str) -> String {
    format!("the book gives {chip} no {name}")
}

/// Evaluates one fact.
pub fn fact(name: &str, chip: Option<&str>) -> Result<String, String> {
    let spec = FACTS
        .iter()
        .find(|s| s.name == name)
        .ok_or_else(|| format!("unknown fact `{name}`"))?;
    let c = if spec.needs_chip {
        chip_of(chip, name)?
    } else {
        String::new()
    };
    let anat = || anatomy(&AnatomyParams::parse(&c)?);
    let node = || nvlink_node(&NodeParams::parse(&c)?);
    let pod = || superpod(&SuperPodParams::parse(&c, 1024)?);
    let need = |v: Option<String>| v.ok_or_else(|| missing(name, &c));
    match name {
        "sms" => Ok(grouped(f64::from(anat()?.sms))),
        "tensor-cores" => Ok(grouped(f64::from(anat()?.tensor_cores))),
        "cuda-cores" => Ok(grouped(f64::from(anat()?.cuda_cores))),
        "warp-schedulers" => Ok(grouped(f64::from(anat()?.warp_schedulers))),
        "tc-flops-per-cycle" => need(anat()?.tc_flops_per_cycle.map(grouped)),
        "tensor-clock" => need(anat()?.tensor_clock.map(|h| si(h.0, "Hz", 3))),
        "peak-from-parts" => need(anat()?.peak_from_parts.map(|p| sci(p.0, 3))),
        "vector-boost" => need(anat()?.vector_boost.map(|p| si(p.0, "FLOPs/s", 3))),
        "smem-per-sm" => Ok(si(anat()?.smem_per_sm.0 / 1024.0, "KiB", 3)),
        "smem-total" => Ok(si(anat()?.smem_per_sm.0 * f64::from(anat()?.sms), "B", 3)),
        "l2" => Ok(si(anat()?.l2.0, "B", 3)),
        "hbm" => Ok(si(anat()?.hbm.0, "B", 3)),
        "hbm-bw" => need(anat()?.hbm_bw.map(bps)),
        "hbm-ridge" => {
            let a = anat()?;
            need(
                a.registry_peak
                    .zip(a.hbm_bw)
                    .map(|(p, w)| grouped((p / w).0.floor())),
            )
        }
        "register-file" => Ok(si(SM.register_file().0 / 1024.0, "KiB", 3)),
        "registers-per-subpartition" => Ok(grouped(f64::from(SM.registers_per_subpartition))),
        "resident-warps" => Ok(grouped(f64::from(SM.max_resident_warps))),
        "warp-size" => Ok(grouped(f64::from(SM.warp_size))),
        "l2-bw" => Ok(bps(MEASURED.h100_l2_bandwidth.value)),
        "l2-bw-both" => Ok(bps(MEASURED.h100_l2_effective())),
        "l2-over-hbm" => super::anatomy::h100_l2_over_hbm()
            .map(|(_, both)| sci(both, 2))
            .ok_or_else(|| missing(name, "H100")),
        "l2-ridge" | "vmem-ridge" => {
            let m = hierarchy(&MemoryParams::parse("h100", "v5p")?)?;
            let (side, key) = if name == "l2-ridge" {
                (&m.gpu, "l2")
            } else {
                (&m.tpu, "vmem")
            };
            let r = side.iter().find(|l| l.key == key).and_then(|l| l.ridge);
            r.map(|r| grouped(r.0)).ok_or_else(|| missing(name, "H100"))
        }
        "vmem-bw" => Ok(bps(super::specs::TPU_VMEM_BANDWIDTH.value)),
        "vmem" => Ok(si(super::specs::TPU_COUNTERPART.vmem.0, "B", 3)),
        "vmem-over-l2" => {
            let l2 = anatomy(&AnatomyParams::parse("h100")?)?.l2;
            Ok(sci(super::specs::TPU_COUNTERPART.vmem.0 / l2.0, 2))
        }
        "nvlink-links" => need(node()?.links_per_gpu.map(|n| grouped(f64::from(n)))),
        "nvlink-link-bw" => need(node()?.link_bandwidth.map(bps)),
        "nvswitches" => need(node()?.switches.map(|n| grouped(f64::from(n)))),
        "node-gpu-total" => Ok(bps(node()?.gpu_total)),
        "node-switch-total" => need(node()?.switch_total.map(bps)),
        "node-bisection" => Ok(bps(node()?.bisection)),
        "node-egress" => need(node()?.scale_out.map(bps)),
        "inside-over-outside" => need(node()?.inside_over_outside.map(grouped)),
        "su-nodes" => Ok(grouped(f64::from(DGX_SUPERPOD.nodes_per_su))),
        "su-leaves" => Ok(grouped(f64::from(DGX_SUPERPOD.leaf_switches_per_su))),
        "pod-sus" => Ok(grouped(f64::from(DGX_SUPERPOD.sus_per_pod))),
        "pod-spines" => Ok(grouped(f64::from(DGX_SUPERPOD.spine_switches_per_pod))),
        "pod-switches" => need(pod()?.layout.switches().map(|n| grouped(n as f64))),
        "pod-bisection" => Ok(bps(pod()?.bisection)),
        "su-uplink" => Ok(bps(DGX_SUPERPOD.su_uplink())),
        "ib-switch-bw" => Ok(bps(DGX_SUPERPOD.switch.bandwidth())),
        "two-tier-limit" => Ok(grouped(DGX_SUPERPOD.two_tier_limit() as f64)),
        "nccl-latency" => Ok(si(nccl_fit().latency.0, "s", 2)),
        "nccl-bw" => Ok(bps(nccl_fit().bandwidth)),
        "nccl-10gb" => Ok(bps(MEASURED.nccl_allreduce_bus.value)),
        "nccl-58mb" => Ok(bps(MEASURED.nccl_allreduce_58mb.value)),
        "sharp-predicted-gain" => Ok(format!("{:.0}%", sharp_gain(8)?.0 * 100.0)),
        "sharp-measured-gain" => Ok(format!("{:.0}%", sharp_gain(8)?.1 * 100.0)),
        "nccl-link-share" => {
            let h100 = super::GpuSystem::from_id("h100", crate::dtype::Dtype::Bf16)
                .map_err(|e| e.to_string())?;
            need(measured_link_share(&h100).map(|s| format!("{:.0}%", s * 100.0)))
        }
        "sharp-measured-bw" => Ok(bps(sharp_gain(8)?.2)),
        "megatron-70b-threshold" | "megatron-314b-threshold" => {
            let rows = megatron()?;
            let want = if name == "megatron-70b-threshold" {
                "70B"
            } else {
                "314B"
            };
            rows.iter()
                .find(|r| r.row.model == want)
                .map(|r| grouped(r.threshold.floor()))
                .ok_or_else(|| missing(name, "Megatron"))
        }
        "gb200-cross-node-gain" => gb200_changes()?
            .iter()
            .find(|r| r.id == "gb200")
            .map(|r| sci(r.cross_node_gain, 2))
            .ok_or_else(|| missing(name, "GB200")),
        "gb200-pod-dp-tokens" => gb200_changes()?
            .iter()
            .find(|r| r.id == "gb200")
            .map(|r| grouped(r.pod_threshold.floor()))
            .ok_or_else(|| missing(name, "GB200")),
        "bubble-2x2" => Ok(format!(
            "{:.0}%",
            simulate(&PipelineParams::new(2, 2, Schedule::GPipe))?.bubble * 100.0
        )),
        "tp-quiz-divisor" => Ok(grouped(super::specs::QUIZ5_TP_DIVISOR.value)),
        "tp-limit-quiz-llama3-70b" => {
            let f = crate::model::config::model("llama3-70b")
                .ok_or("no model llama3-70b")?
                .config
                .d_ff as f64;
            Ok(sci(f / super::specs::QUIZ5_TP_DIVISOR.value, 4))
        }
        "tp-limit-llama3-70b"
        | "tp-limit-network-llama3-70b"
        | "tp-limit-two-nodes-llama3-70b"
        | "moe-dp-gpt-oss"
        | "ep-many-nodes-f" => {
            let sys = super::GpuSystem::from_id(&c, crate::dtype::Dtype::Bf16)
                .map_err(|e| e.to_string())?;
            let e = |e: super::GpuError| e.to_string();
            let model = |id: &str| {
                crate::model::config::model(id)
                    .map(|m| m.config)
                    .ok_or_else(|| format!("no model {id}"))
            };
            let v = match name {
                "tp-limit-llama3-70b" => sys
                    .tp_max_ways(super::Scope::Node, model("llama3-70b")?.d_ff as f64)
                    .map_err(e)?,
                "tp-limit-network-llama3-70b" => sys
                    .tp_max_ways(super::Scope::Network, model("llama3-70b")?.d_ff as f64)
                    .map_err(e)?,
                "tp-limit-two-nodes-llama3-70b" => sys
                    .tp_max_ways_two_nodes(model("llama3-70b")?.d_ff as f64)
                    .map_err(e)?,
                "moe-dp-gpt-oss" => {
                    let m = model("gpt-oss-120b")?
                        .moe
                        .ok_or("gpt-oss-120b is not an MoE")?;
                    let (ex, k) = (
                        u32::try_from(m.experts).map_err(|_| "too many experts")?,
                        u32::try_from(m.active).map_err(|_| "too many experts")?,
                    );
                    sys.moe_dp_threshold(super::Scope::Network, ex, k)
                        .map_err(e)?
                }
                _ => 8.0 * sys.dp_threshold(super::Scope::Network).map_err(e)?,
            };
            Ok(grouped(v.floor()))
        }
        "deepseek-tokens-per-gpu" | "llama3-tokens-per-gpu" => {
            let r = &super::specs::RECIPES[usize::from(name == "llama3-tokens-per-gpu")];
            Ok(grouped(r.batch_tokens / r.gpus as f64))
        }
        "gb200-pod-gpus" => Ok(grouped(f64::from(super::specs::GB200_SUPERPOD_GPUS.value))),
        "subpartitions" => Ok(grouped(f64::from(SM.subpartitions))),
        "v5p-tensorcores" | "v5p-vpu-slots" | "v5p-vpu-alus" | "vs-v5p-flops" | "vs-v5p-hbm"
        | "vs-v5p-smem" | "h100-v5p-price" | "h200-v5p-price" => {
            let gpu = match name {
                "h200-v5p-price" => "h200",
                _ if c.is_empty() => "h100",
                _ => c.as_str(),
            };
            let cmp = super::compare::compare_chips(gpu, "v5p", crate::dtype::Dtype::Bf16)?;
            let unit = |i: usize| {
                cmp.units
                    .get(i)
                    .copied()
                    .ok_or_else(|| missing(name, "v5p"))
            };
            let v = match name {
                "v5p-tensorcores" => unit(0)?.tpu.map(grouped),
                "v5p-vpu-slots" => unit(1)?.tpu.map(grouped),
                "v5p-vpu-alus" => unit(2)?.tpu.map(grouped),
                "vs-v5p-flops" => cmp.flops_ratio().map(|r| sci(r, 2)),
                "vs-v5p-hbm" => Some(sci(cmp.hbm_ratio(), 2)),
                "vs-v5p-smem" => unit(4)?.ratio().map(|r| format!("{:.0}%", r * 100.0)),
                _ => cmp.price_ratio().map(|r| sci(r, 2)),
            };
            v.ok_or_else(|| missing(name, gpu))
        }
        "h200-price" | "v5p-price-p12" => {
            let (h200, v5p) =
                crate::hardware::price_pair("h200", "v5p").ok_or_else(|| missing(name, "H200"))?;
            let p = if name == "h200-price" { h200 } else { v5p };
            Ok(format!("{} USD", grouped(p.value)))
        }
        "ag-bw-node" | "ag-bw-leaf" | "ag-bw-spine" => {
            let kind = match name {
                "ag-bw-node" => super::network::LevelKind::Node,
                "ag-bw-leaf" => super::network::LevelKind::Leaf,
                _ => super::network::LevelKind::Spine,
            };
            let tree = super::GpuSystem::from_id(&c, crate::dtype::Dtype::Bf16)
                .and_then(|s| s.fat_tree())
                .map_err(|e| e.to_string())?;
            let bw = tree.effective_bandwidths();
            need(bw.iter().find(|(k, _)| *k == kind).map(|(_, w)| bps(*w)))
        }
        "dp-two-nodes" => {
            let sys = super::GpuSystem::from_id(&c, crate::dtype::Dtype::Bf16)
                .map_err(|e| e.to_string())?;
            let v = sys
                .small_dp_threshold(super::Scope::Network, 2)
                .map_err(|e| e.to_string())?;
            Ok(grouped(v.floor()))
        }
        "spine-cable-bw" | "spine-switch-bw-b" | "spine-per-gpu-b" => {
            let v = superpod(&SuperPodParams::parse("h100", 1024)?)?;
            let spine = v
                .levels
                .iter()
                .find(|l| l.kind == super::network::LevelKind::Spine)
                .ok_or_else(|| missing(name, "H100"))?;
            match name {
                "spine-cable-bw" => Ok(bps(spine.cable)),
                "spine-switch-bw-b" => need(spine.switch_appendix_b.map(bps)),
                _ => need(spine.switch_appendix_b.map(|s| bps(s / spine.gpus as f64))),
            }
        }
        "h100-ag-16mb-share" | "v5e-ag-16mb-share" => {
            let key = name.trim_end_matches("-ag-16mb-share");
            let curve = super::specs::measured_curve(&format!("{key}-allgather"))
                .ok_or_else(|| missing(name, key))?;
            need(
                curve
                    .share_of_claimed(16_777_216.0)
                    .map(|s| format!("{:.0}%", s * 100.0)),
            )
        }
        "max-registers-per-thread" => Ok(grouped(f64::from(SM.max_registers_per_thread))),
        "warps-at-max-registers" => Ok(grouped(
            SM.register_file().0
                / f64::from(SM.register_bytes * SM.max_registers_per_thread * SM.warp_size),
        )),
        "vector-fma" => need(anat()?.vector_boost.map(|p| si(2.0 * p.0, "FLOPs/s", 3))),
        "fp8-over-bf16" => {
            let chip = crate::hardware::chip(&c).ok_or_else(|| format!("no chip {c}"))?;
            let bf16 = chip.peak(crate::dtype::Dtype::Bf16);
            let fp8 = chip
                .peak_or_wider(crate::dtype::Dtype::Fp8)
                .filter(|(d, _)| *d != crate::dtype::Dtype::Bf16);
            need(bf16.zip(fp8).map(|(b, (_, f))| sci(f / b, 2)))
        }
        "vector-ridge" => {
            let a = anat()?;
            need(
                a.vector_boost
                    .zip(a.hbm_bw)
                    .map(|(p, w)| grouped((p / w).0)),
            )
        }
        "ib-over-nvswitch" => {
            let n = nvlink_node(&NodeParams::parse("h100")?)?;
            let per_switch = n
                .switch_total
                .zip(n.switches)
                .map(|(t, k)| t / f64::from(k))
                .ok_or_else(|| missing(name, "h100"))?;
            Ok(sci(DGX_SUPERPOD.switch.bandwidth().0 / per_switch.0, 2))
        }
        "alltoall-node-per-gpu" | "alltoall-two-node-slowdown" => {
            let sys = super::GpuSystem::from_id(&c, crate::dtype::Dtype::Bf16)
                .map_err(|e| e.to_string())?;
            let w_node = sys.w_node.ok_or_else(|| missing(name, &c))?;
            let d = f64::from(sys.gpus_per_node);
            if name == "alltoall-node-per-gpu" {
                Ok(bps(w_node / d))
            } else {
                Ok(sci((sys.w_gpu * d).0 / (2.0 * w_node.0), 2))
            }
        }
        "pod-bisection-one-way" => Ok(bps(pod()?.bisection / 2.0)),
        "pod-collective-bw" => {
            let v = pod()?;
            Ok(bps(v.bisection / 2.0 * 2.0 / v.layout.nodes as f64))
        }
        "tmem-per-sm" => need(
            anatomy(&AnatomyParams::parse("b200")?)?
                .tmem_per_sm
                .map(|b| si(b.0 / 1024.0, "KiB", 3)),
        ),
        "nvswitch-lanes" | "nvswitch-lane-total" | "nvswitch-bw" => {
            let g = super::specs::generation(&c)
                .and_then(|g| super::specs::nvlink_generation(g.architecture))
                .ok_or_else(|| missing(name, &c))?;
            match name {
                "nvswitch-lanes" => need(g.lanes_per_port.map(|l| grouped(f64::from(l)))),
                "nvswitch-lane-total" => need(
                    g.lanes_per_port
                        .zip(g.switch_ports)
                        .map(|(l, p)| grouped(f64::from(l * p))),
                ),
                _ => need(g.switch_bandwidth().map(bps)),
            }
        }
        "p100-links" | "p100-link-bw" | "p100-per-gpu" | "p100-quad-cut" | "v100-links"
        | "v100-link-bw" | "v100-per-gpu" | "v100-pair-double" | "v100-quad-cut" | "mesh-peers" => {
            let (gpu, key) = name.split_once('-').unwrap_or(("v100", name));
            let m = super::node::cube_mesh(if gpu == "mesh" { "v100" } else { gpu })?;
            match key {
                "links" => Ok(grouped(f64::from(m.node.links_per_gpu))),
                "link-bw" => Ok(bps(m.node.link_bandwidth)),
                "per-gpu" => Ok(bps(m.per_gpu)),
                "quad-cut" => Ok(bps(m.quad_cut)),
                "pair-double" => Ok(bps(m.node.link_bandwidth * 2.0)),
                _ => Ok(grouped(f64::from(m.direct_peers))),
            }
        }
        "dgx2-gpus" => Ok(grouped(f64::from(super::specs::DGX2_NODE.value.0))),
        "dgx2-switches" => Ok(grouped(f64::from(super::specs::DGX2_NODE.value.1))),
        "nvlink-gen" | "nvswitch-gen" | "nvswitch-ports" => {
            let g = super::specs::generation(&c)
                .and_then(|g| super::specs::nvlink_generation(g.architecture))
                .ok_or_else(|| missing(name, &c))?;
            match name {
                "nvlink-gen" => Ok(g.nvlink.to_string()),
                "nvswitch-gen" => Ok(g.nvswitch.to_string()),
                _ => need(g.switch_ports.map(|p| grouped(f64::from(p)))),
            }
        }
        "v5p-ici-per-chip" => {
            let c = crate::hardware::chip("v5p").ok_or_else(|| missing(name, "v5p"))?;
            let axes = match c.topology {
                crate::hardware::Topology::Torus { dims, .. } => f64::from(dims),
                crate::hardware::Topology::NvlinkDomain { .. } => return Err(missing(name, "v5p")),
            };
            let w = c
                .bandwidth(crate::hardware::Link::Ici)
                .ok_or_else(|| missing(name, "v5p"))?;
            Ok(bps(w * axes))
        }
        "pod-node-degree" | "pod-node-switch" | "pod-node-cable" | "pod-leaf-degree"
        | "pod-leaf-switch" | "pod-leaf-cable" | "pod-spine-degree" | "pod-spine-switch"
        | "pod-spine-cable" => {
            let kind = match name.split('-').nth(1) {
                Some("node") => super::network::LevelKind::Node,
                Some("leaf") => super::network::LevelKind::Leaf,
                _ => super::network::LevelKind::Spine,
            };
            let v = superpod(&SuperPodParams::parse("h100", 1024)?)?;
            let level = v
                .levels
                .iter()
                .find(|l| l.kind == kind)
                .ok_or_else(|| missing(name, "H100"))?;
            match name.rsplit('-').next() {
                Some("degree") => Ok(grouped(f64::from(level.degree))),
                Some("switch") => need(level.switch.map(bps)),
                _ => Ok(bps(level.cable)),
            }
        }
        "ib-switch-ports" => Ok(grouped(f64::from(DGX_SUPERPOD.switch.ports))),
        "ib-port-bw" => Ok(bps(DGX_SUPERPOD.switch.port_bandwidth)),
        "tpu-dp-tokens" => super::compare::roofline_row("v5p", crate::dtype::Dtype::Bf16)
            .map(|r| grouped(r.dp_tokens_in_domain))
            .map_err(|e| e.to_string()),
        "deepseek-gpus"
        | "deepseek-ep"
        | "deepseek-ep-nodes"
        | "deepseek-pp"
        | "deepseek-dp"
        | "deepseek-batch"
        | "deepseek-experts"
        | "deepseek-active"
        | "deepseek-model-parallel"
        | "deepseek-dp-gain"
        | "deepseek-dp-batch-needed"
        | "deepseek-passage-batch"
        | "deepseek-passage-per-gpu"
        | "deepseek-passage-share"
        | "deepseek-batch-over-needed"
        | "deepseek-batch-start"
        | "llama3-gpus"
        | "llama3-tp"
        | "llama3-pp"
        | "llama3-dp"
        | "llama3-batch"
        | "llama3-pp-saving"
        | "llama3-dp-batch-needed" => recipe_fact(name),
        _ => Err(format!("fact `{name}` is listed but not implemented")),
    }
}

/// The facts of the book's two training recipes (DeepSeek V3, LLaMA-3).
fn recipe_fact(name: &str) -> Result<String, String> {
    let deepseek = name.starts_with("deepseek");
    let r = &super::specs::RECIPES[usize::from(!deepseek)];
    let key = name.split_once('-').map_or(name, |(_, k)| k);
    let sys =
        || super::GpuSystem::from_id(r.gpu, crate::dtype::Dtype::Bf16).map_err(|e| e.to_string());
    let moe = || r.moe.ok_or_else(|| missing(name, r.model));
    let n = |x: u32| Ok(grouped(f64::from(x)));
    // The batch pure data parallelism needs over all the run's GPUs. DeepSeek's
    // is the book's NVLink figure (990e12 / 300e9 per GPU); LLaMA-3's is across nodes.
    let dp_batch_needed = || -> Result<f64, String> {
        let scope = if deepseek {
            super::Scope::Node
        } else {
            super::Scope::Network
        };
        let per_gpu = sys()?.dp_threshold(scope).map_err(|e| e.to_string())?;
        Ok(per_gpu * r.gpus as f64)
    };
    match key {
        "gpus" => Ok(grouped(r.gpus as f64)),
        "ep" => n(r.ep),
        "ep-nodes" => n(r.ep / sys()?.gpus_per_node),
        "pp" | "pp-saving" => n(r.pp),
        "tp" => n(r.tp),
        "dp" => n(r.dp),
        "batch" if deepseek => Ok(grouped(r.batch_tokens)),
        "batch" => Ok(crate::format::tokens(r.batch_tokens)),
        "experts" => n(moe()?.0),
        "active" => n(moe()?.1),
        "model-parallel" => n(r.ep * r.pp * r.tp),
        "dp-gain" => Ok(sci(f64::from(r.dp) / f64::from(r.dp - 1), 2)),
        "dp-batch-needed" => Ok(crate::format::tokens(dp_batch_needed()?)),
        "passage-batch" => Ok(crate::format::tokens(DEEPSEEK_DP_PASSAGE_BATCH.value)),
        "passage-per-gpu" => Ok(grouped(DEEPSEEK_DP_PASSAGE_BATCH.value / r.gpus as f64)),
        "passage-share" => Ok(format!(
            "{:.0}%",
            100.0 * DEEPSEEK_DP_PASSAGE_BATCH.value / dp_batch_needed()?
        )),
        "batch-over-needed" => Ok(sci(r.batch_tokens / dp_batch_needed()?, 2)),
        "batch-start" => Ok(crate::format::tokens(DEEPSEEK_RAMP_START.value)),
        _ => Err(format!("fact `{name}` is listed but not implemented")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_fact_evaluates() {
        for s in FACTS {
            let chip = s.needs_chip.then_some("h100");
            let v = fact(s.name, chip).unwrap_or_else(|e| panic!("{}: {e}", s.name));
            // Every fact is a number (with its unit), never a NaN or infinity.
            assert!(
                v.starts_with(|c: char| c.is_ascii_digit()),
                "{}: {v}",
                s.name
            );
            assert!(!v.contains("NaN") && !v.contains("inf"), "{}: {v}", s.name);
        }
        // The H100 (SXM) has 132 SMs (NVIDIA's whitepaper); a warp is 32 threads.
        assert_eq!(fact("sms", Some("h100")).unwrap(), "132");
        assert_eq!(fact("warp-size", None).unwrap(), "32");
    }

    #[test]
    fn values_and_errors() {
        assert_eq!(fact("sms", Some("b200")).unwrap(), "148");
        assert_eq!(fact("tc-flops-per-cycle", Some("b200")).unwrap(), "2,048");
        assert_eq!(fact("nvswitches", Some("gb200")).unwrap(), "18");
        assert_eq!(fact("node-bisection", Some("h100")).unwrap(), "3.6 TB/s");
        assert_eq!(fact("pod-switches", Some("h100")).unwrap(), "560");
        assert_eq!(fact("smem-per-sm", Some("h100")).unwrap(), "256 KiB");
        assert_eq!(fact("register-file", None).unwrap(), "256 KiB");
        assert_eq!(fact("hbm-ridge", Some("h100")).unwrap(), "295");
        // The L2 is full-duplex: 2 x 5.5 TB/s, 3.3x HBM, so its ridge is 90.
        assert_eq!(fact("l2-bw-both", None).unwrap(), "11 TB/s");
        assert_eq!(fact("l2-over-hbm", None).unwrap(), "3.3");
        assert_eq!(fact("l2-ridge", None).unwrap(), "90");
        // 128 MB of VMEM over the H100's 50 MB of L2: the book's "about 2x".
        assert_eq!(fact("vmem-over-l2", None).unwrap(), "2.6");
        assert_eq!(fact("bubble-2x2", None).unwrap(), "33%");
        assert_eq!(fact("gb200-cross-node-gain", None).unwrap(), "4");
        assert_eq!(fact("gb200-pod-dp-tokens", None).unwrap(), "2,465");
        assert_eq!(fact("moe-dp-gpt-oss", Some("h100")).unwrap(), "79,200");
        assert_eq!(fact("tp-limit-llama3-70b", Some("h100")).unwrap(), "13");
        // The book's prose says ~11 (F over the cross-node 2475), its Quiz 5
        // says 14.37 (F / 1995); core's in-node ratio 2200 gives 13.
        assert_eq!(
            fact("tp-limit-network-llama3-70b", Some("h100")).unwrap(),
            "11"
        );
        assert_eq!(fact("tp-quiz-divisor", None).unwrap(), "1,995");
        assert_eq!(fact("tp-limit-quiz-llama3-70b", None).unwrap(), "14.37");
        assert_eq!(
            fact("tp-limit-two-nodes-llama3-70b", Some("h100")).unwrap(),
            "19"
        );
        assert_eq!(fact("deepseek-tokens-per-gpu", None).unwrap(), "30,720");
        assert_eq!(fact("llama3-tokens-per-gpu", None).unwrap(), "1,024");
        assert_eq!(fact("v5p-vpu-slots", None).unwrap(), "8");
        assert_eq!(fact("v5p-vpu-alus", None).unwrap(), "8,192");
        assert_eq!(fact("v5p-ici-per-chip", None).unwrap(), "540 GB/s");
        let levels: Vec<String> = ["node", "leaf", "spine"]
            .iter()
            .flat_map(|l| ["degree", "switch", "cable"].map(|f| format!("pod-{l}-{f}")))
            .map(|n| fact(&n, None).unwrap())
            .collect();
        assert_eq!(
            levels,
            [
                "8",
                "6.4 TB/s",
                "3.6 TB/s",
                "32",
                "25.6 TB/s",
                "12.8 TB/s",
                "4",
                "51.2 TB/s",
                "51.2 TB/s"
            ]
        );
        assert_eq!(fact("vs-v5p-flops", Some("h200")).unwrap(), "2.2");
        assert_eq!(fact("vs-v5p-hbm", Some("h200")).unwrap(), "1.5");
        assert_eq!(fact("vs-v5p-smem", Some("h100")).unwrap(), "27%");
        assert_eq!(fact("h100-v5p-price", None).unwrap(), "2.6");
        // The book's comparison: an H200 at about $10/h against a v5p at $4/h.
        assert_eq!(fact("h200-v5p-price", None).unwrap(), "2.5");
        assert_eq!(fact("h200-price", None).unwrap(), "10 USD");
        assert_eq!(fact("v5p-price-p12", None).unwrap(), "4 USD");
        assert_eq!(fact("ag-bw-node", Some("h100")).unwrap(), "514 GB/s");
        assert_eq!(fact("ag-bw-leaf", Some("h100")).unwrap(), "413 GB/s");
        assert_eq!(fact("ag-bw-spine", Some("h100")).unwrap(), "17.1 TB/s");
        assert_eq!(
            fact("ag-bw-leaf", Some("gb200")).unwrap_err().to_string(),
            "the book gives gb200 no ag-bw-leaf",
        );
        assert_eq!(fact("dp-two-nodes", Some("h100")).unwrap(), "1,237");
        assert_eq!(fact("spine-switch-bw-b", None).unwrap(), "25.6 TB/s");
        assert_eq!(fact("spine-per-gpu-b", None).unwrap(), "25 GB/s");
        assert_eq!(fact("h100-ag-16mb-share", None).unwrap(), "18%");
        assert_eq!(fact("v5e-ag-16mb-share", None).unwrap(), "90%");
        assert_eq!(fact("megatron-70b-threshold", None).unwrap(), "1,237");
        assert_eq!(fact("warps-at-max-registers", None).unwrap(), "8");
        assert_eq!(fact("tmem-per-sm", None).unwrap(), "256 KiB");
        assert_eq!(fact("nvlink-gen", Some("a100")).unwrap(), "3.0");
        assert_eq!(fact("nvswitch-gen", Some("b200")).unwrap(), "4.0");
        assert_eq!(fact("nvswitch-ports", Some("h100")).unwrap(), "64");
        assert_eq!(fact("ib-switch-ports", None).unwrap(), "64");
        assert_eq!(fact("ib-port-bw", None).unwrap(), "50 GB/s");
        assert_eq!(fact("tpu-dp-tokens", None).unwrap(), "850");
        assert_eq!(fact("vector-fma", Some("h100")).unwrap(), "66.9 TFLOPs/s");
        assert_eq!(fact("fp8-over-bf16", Some("h100")).unwrap(), "2");
        assert_eq!(fact("vector-ridge", Some("h100")).unwrap(), "10");
        assert_eq!(fact("ib-over-nvswitch", None).unwrap(), "2");
        assert_eq!(
            fact("alltoall-node-per-gpu", Some("h100")).unwrap(),
            "50 GB/s"
        );
        assert_eq!(
            fact("alltoall-two-node-slowdown", Some("h100")).unwrap(),
            "4.5"
        );
        assert_eq!(
            fact("pod-bisection-one-way", Some("h100")).unwrap(),
            "25.6 TB/s"
        );
        assert_eq!(fact("pod-collective-bw", Some("h100")).unwrap(), "400 GB/s");
        assert_eq!(fact("deepseek-ep-nodes", None).unwrap(), "8");
        assert_eq!(fact("deepseek-batch", None).unwrap(), "62,914,560");
        assert_eq!(fact("deepseek-model-parallel", None).unwrap(), "1,024");
        assert_eq!(fact("deepseek-dp-gain", None).unwrap(), "2");
        assert_eq!(fact("deepseek-dp-batch-needed", None).unwrap(), "6.76M");
        assert_eq!(fact("llama3-dp", None).unwrap(), "128");
        assert_eq!(fact("llama3-batch", None).unwrap(), "16.8M");
        assert_eq!(fact("llama3-dp-batch-needed", None).unwrap(), "40.6M");
        assert_eq!(fact("deepseek-experts", None).unwrap(), "256");
        assert!(fact("llama3-experts", None).is_err());
        assert!(fact("sms", None).unwrap_err().contains("chip="));
        assert!(fact("nope", None).unwrap_err().contains("unknown fact"));
        assert!(fact("tensor-clock", Some("a100"))
            .unwrap_err()
            .contains("no tensor-clock"));
        assert_eq!(
            fact("node-egress", Some("a100")).unwrap_err().to_string(),
            "the book gives a100 no node-egress",
        );
    }

    #[test]
    fn nodes_before_nvswitch_and_the_switch_itself() {
        assert_eq!(fact("p100-links", None).unwrap(), "4");
        assert_eq!(fact("p100-link-bw", None).unwrap(), "20 GB/s");
        assert_eq!(fact("p100-per-gpu", None).unwrap(), "80 GB/s");
        assert_eq!(fact("v100-links", None).unwrap(), "6");
        assert_eq!(fact("v100-per-gpu", None).unwrap(), "150 GB/s");
        assert_eq!(fact("v100-pair-double", None).unwrap(), "50 GB/s");
        assert_eq!(fact("v100-quad-cut", None).unwrap(), "150 GB/s");
        assert_eq!(fact("mesh-peers", None).unwrap(), "4");
        assert_eq!(fact("dgx2-gpus", None).unwrap(), "16");
        assert_eq!(fact("dgx2-switches", None).unwrap(), "12");
        assert_eq!(fact("nvswitch-lanes", Some("h100")).unwrap(), "2");
        assert_eq!(fact("nvswitch-lane-total", Some("h100")).unwrap(), "128");
        assert_eq!(fact("nvswitch-bw", Some("h100")).unwrap(), "1.6 TB/s");
        assert!(fact("nvswitch-lanes", Some("a100")).is_err());
    }

    #[test]
    fn deepseeks_two_batches() {
        // The passage's 4M against the 6.76M pure DP would need: 62% of it,
        // 2,048 tokens per GPU against 3,300.
        assert_eq!(fact("deepseek-passage-batch", None).unwrap(), "4.19M");
        assert_eq!(fact("deepseek-passage-per-gpu", None).unwrap(), "2,048");
        assert_eq!(fact("deepseek-passage-share", None).unwrap(), "62%");
        // The Examples' steady batch is nine times that need; the report's
        // ramp starts at 12.6M, already above it.
        assert_eq!(fact("deepseek-batch-over-needed", None).unwrap(), "9.3");
        assert_eq!(fact("deepseek-batch-start", None).unwrap(), "12.6M");
    }
}
