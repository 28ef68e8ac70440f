//! Part 12 (How to Think About GPUs): the exercises of `ch12-*`, computed as in
//! `golden_ch12.rs`.

use super::def::{choice, n, param, value, Answer, Def, Kind, Param, Scale, Solution};
use super::expr::Var;
use super::kit::{chip_param, def, fix, int, int32, name, num, pick, reference, reg, s};
use crate::check::whole;
use crate::comms::collectives::Collective;
use crate::dtype::Dtype;
use crate::format::{sci, seconds, si};
use crate::gpu::network::{
    in_node, outer_reduction_factor, sharp_all_reduce_traffic, CollectiveOptions, FatTree,
    Precision as Exactness,
};
use crate::gpu::specs::{
    generation, nvlink_generation, Architecture, GpuGeneration, MegatronRow, DGX_SUPERPOD,
    IB_NDR_SWITCH, MEASURED, MEGATRON_SEQ_TOKENS, MEGATRON_TABLE, SM, TPU_COUNTERPART,
};
use crate::gpu::{
    clock_from_vector_rate, cuda_cores, gpus_to_hold, resident_warps, tensor_core_flops_per_cycle,
    vector_rate, GpuSystem, Scope,
};
use crate::hardware::{Link, Topology};
use crate::roofline::ops::{tokens_per_device, Op};
use crate::units::{Bytes, BytesPerSec, Flops, FlopsPerSec};

const EXACT: CollectiveOptions = CollectiveOptions {
    precision: Exactness::Exact,
    sharp: false,
    inner: 1,
    active: None,
};

fn sys(id: &str) -> Result<GpuSystem, String> {
    GpuSystem::from_id(id, Dtype::Bf16).map_err(s)
}

fn gsys(p: &[Param]) -> Result<GpuSystem, String> {
    GpuSystem::new(chip_param(p, "chip")?, Dtype::Bf16).map_err(s)
}

fn gen(p: &[Param]) -> Result<&'static GpuGeneration, String> {
    let c = chip_param(p, "chip")?;
    generation(c.id).ok_or_else(|| format!("no Part 12 row for {}", c.name))
}

fn tree() -> Result<FatTree, String> {
    sys("h100")?.fat_tree().map_err(s)
}

fn h100() -> Result<GpuSystem, String> {
    sys("h100")
}

fn boost(p: &[Param]) -> Result<FlopsPerSec, String> {
    let g = gen(p)?;
    vector_rate(
        gsys(p)?.cuda_cores(),
        g.boost_clock.ok_or("no boost clock")?,
        1.0,
    )
    .map_err(s)
}

const H100_FIRST: &[&str] = &["h100", "b200", "a100", "h200"];
const B200_FIRST: &[&str] = &["b200", "h100", "a100", "h200"];
const P_H100: &[Param] = &[choice("chip", "GPU", H100_FIRST)];
const P_B200: &[Param] = &[choice("chip", "GPU", B200_FIRST)];
const P_B200_ONLY: &[Param] = &[choice("chip", "GPU", &["b200"])];
const P_TPU: &[Param] = &[choice("chip", "TPU", &["v5p", "v4p", "v5e", "v6e"])];
const P_REGS: &[Param] = &[param(
    "r",
    "registers per thread",
    256.0,
    32.0,
    256.0,
    Scale::Pow2,
)];
const P_Q4A: &[Param] = &[param("B", "batch", 64.0, 8.0, 128.0, Scale::Pow2)];
const P_Q4B: &[Param] = &[param("B", "batch", 512.0, 512.0, 4096.0, Scale::Pow2)];
const P_Q7C: &[Param] = &[param("N", "N", 65536.0, 4096.0, 1048576.0, Scale::Pow2)];
const P_Q7D: &[Param] = &[param(
    "N",
    "N",
    1073741824.0,
    16777216.0,
    4294967296.0,
    Scale::Pow2,
)];
const P_NQ3: &[Param] = &[
    param("D", "D", 4096.0, 1024.0, 16384.0, Scale::Pow2),
    param("F", "F", 65536.0, 8192.0, 131072.0, Scale::Pow2),
];
const P_EX7: &[Param] = &[param("G", "GPUs", 1024.0, 512.0, 1024.0, Scale::Pow2)];
const P_PQ1: &[Param] = &[
    param("B", "B", 1024.0, 128.0, 8192.0, Scale::Pow2),
    param("F", "F", 16384.0, 2048.0, 65536.0, Scale::Pow2),
];
const P_EX3: &[Param] = &[param(
    "Y",
    "model-parallel GPUs",
    8.0,
    2.0,
    16.0,
    Scale::Pow2,
)];
const P_REX3: &[Param] = &[param("G", "GPUs", 16000.0, 1000.0, 32000.0, Scale::Log)];
const P_REX4: &[Param] = &[param("G", "GPUs", 2048.0, 256.0, 8192.0, Scale::Pow2)];
const P_REX5: &[Param] = &[
    param("E", "experts", 128.0, 8.0, 256.0, Scale::Pow2),
    param("k", "active experts", 4.0, 1.0, 8.0, Scale::Int),
];
const P_REX6: &[Param] = &[param("X", "nodes", 2.0, 2.0, 8.0, Scale::Int)];
const P_REX7: &[Param] = &[param("F", "F", 28000.0, 8000.0, 60000.0, Scale::Linear)];
const P_REX9: &[Param] = &[
    param("B", "sequences", 4096.0, 512.0, 8192.0, Scale::Pow2),
    param(
        "T",
        "sequence length",
        15360.0,
        2048.0,
        32768.0,
        Scale::Linear,
    ),
];
const P_REX10: &[Param] = &[
    param("T", "batch tokens", 16e6, 1e6, 6.4e7, Scale::Log),
    param("G", "GPUs", 16e3, 1e3, 6.4e4, Scale::Log),
];
const P_P70: &[Param] = &[param("P", "parameters", 70e9, 7e9, 4e11, Scale::Log)];
const P_Q2B: &[Param] = &[
    param("P", "parameters", 70e9, 7e9, 4e11, Scale::Log),
    param("T", "training tokens", 15e12, 1e12, 3e13, Scale::Log),
    param("G", "GPUs", 4096.0, 512.0, 16384.0, Scale::Pow2),
    param("mfu", "MFU", 0.45, 0.2, 0.7, Scale::Linear),
];
const P_Q2C: &[Param] = &[param("F", "F", 28672.0, 8192.0, 65536.0, Scale::Linear)];
const P_Q2E: &[Param] = &[
    param("T", "batch tokens", 4e6, 1e6, 1.6e7, Scale::Log),
    param("G", "GPUs", 4096.0, 1024.0, 16384.0, Scale::Pow2),
];
const P_Q2F: &[Param] = &[param(
    "Y",
    "model-parallel GPUs",
    64.0,
    16.0,
    256.0,
    Scale::Pow2,
)];

/// Quiz 5 Q3's tokens per GPU for row `$row` of the Megatron-LM table
/// (its batch and GPUs are the question's defaults).
macro_rules! q3 {
    ($id:literal, $row:literal) => {{
        const ROW: MegatronRow = MEGATRON_TABLE[$row];
        #[allow(clippy::cast_precision_loss, reason = "a few thousand GPUs")]
        const P: &[Param] = &[
            param("B", "sequences", ROW.batch_sequences, 64.0, 4096.0, Scale::Pow2),
            param("G", "GPUs", ROW.gpus as f64, 64.0, 4096.0, Scale::Pow2),
        ];
        def($id, Kind::Question, P,
            |p| format!("A Megatron-style run trains on {} sequences of {} tokens per batch over {} GPUs. How many tokens does each GPU process per step?", n(value(p, "B")), n(MEGATRON_SEQ_TOKENS), n(value(p, "G"))),
            |p| {
                let t = tokens_per_device(value(p, "B"), MEGATRON_SEQ_TOKENS, value(p, "G"));
                Ok(num(t, "tokens", format!("{} × {} / {} = {}", n(value(p, "B")), n(MEGATRON_SEQ_TOKENS), n(value(p, "G")), sci(t, 4))))
            },
            &["Total batch tokens over GPUs."])
    }};
}

/// The Megatron-LM rows Quiz 5 Q3 reads: 16B, 70B and 314B.
const Q3_ROWS: [usize; 3] = [2, 4, 7];

/// Tokens each GPU of `row` processes per step.
fn megatron_tokens_per_gpu(row: &MegatronRow) -> f64 {
    #[allow(clippy::cast_precision_loss, reason = "a few thousand GPUs")]
    let gpus = row.gpus as f64;
    tokens_per_device(row.batch_sequences, MEGATRON_SEQ_TOKENS, gpus)
}

fn sym(expr: &str, vars: Vec<Var>, f: impl Fn(&[f64]) -> f64 + Send + Sync + 'static) -> Solution {
    Solution::new(Answer::Symbolic {
        expr: expr.into(),
        vars,
        reference: reference(f),
    })
}

fn at(x: &[f64], i: usize) -> f64 {
    x.get(i).copied().unwrap_or(f64::NAN)
}

fn opts<S: AsRef<str>>(labels: [S; 4]) -> Vec<(&'static str, String)> {
    ["a", "b", "c", "d"]
        .into_iter()
        .zip(labels)
        .map(|(id, l)| (id, l.as_ref().to_string()))
        .collect()
}

/// Part 12's exercises.
pub(super) fn defs() -> Vec<Def> {
    let mut v = chip_level();
    v.extend(network_level());
    v.extend(rooflines());
    v
}

fn tc_prompt(p: &[Param]) -> String {
    format!("Spread a {}'s dense bf16 peak over its SMs (4 Tensor Cores each) at the clock the book uses. How many FLOPs does one Tensor Core do per cycle?", name(p))
}

fn tc_solve(p: &[Param]) -> Result<Solution, String> {
    let sy = gsys(p)?;
    let g = gen(p)?;
    let clock = g.tensor_clock.ok_or("no Tensor Core clock")?;
    let f = tensor_core_flops_per_cycle(sy.peak, sy.sms, clock).map_err(s)?;
    Ok(num(
        f,
        "FLOPs",
        format!(
            "{} / ({} SMs × 4 × {} Hz) = {}",
            sci(sy.peak.0, 3),
            sy.sms,
            sci(clock.0, 3),
            sci(f, 4)
        ),
    ))
}

fn chip_level() -> Vec<Def> {
    vec![
        def("ch12-ex1", Kind::WorkedExample, P_H100, tc_prompt, tc_solve, &["Peak FLOPs/s over (Tensor Cores × cycles per second)."]),
        def("ch12-ex2", Kind::WorkedExample, P_B200, tc_prompt, tc_solve, &["Peak FLOPs/s over (Tensor Cores × cycles per second)."]),
        def("ch12-ex3", Kind::WorkedExample, &[],
            |_| "An SM has 4 subpartitions, each with 16,384 registers of 32 bits. How large is its register file, in KiB?".into(),
            |_| Ok(num(SM.register_file().0, "KiB", format!("4 × 16,384 × 4 bytes = {}", n(SM.register_file().0))))
                .map(|x| x.two("a 32-bit register is 4 bytes.")),
            &["Registers times bytes per register."]),
        def("ch12-ex4", Kind::WorkedExample, P_REGS,
            |p| format!("If every thread of a kernel uses {} registers, how many warps of 32 threads can an SM keep resident?", n(value(p, "r"))),
            |p| {
                let w = resident_warps(int32(p, "r")).map_err(s)?;
                Ok(num(f64::from(w), "warps", format!("register file / (4 B × 32 threads × {}) = {w}", n(value(p, "r")))))
            },
            &["Divide the register file by what one warp needs."]),
        def("ch12-ex5", Kind::WorkedExample, &[],
            |_| "Compare an H200 with a TPU v5p: roughly how much more bf16 FLOPs/s and how much more HBM does the H200 have?".into(),
            |_| {
                let (a, b) = (reg("h200")?, reg("v5p")?);
                let f = a.peak(Dtype::Bf16).ok_or("no peak")?.0 / b.peak(Dtype::Bf16).ok_or("no peak")?.0;
                let h = a.hbm_capacity.value.0 / b.hbm_capacity.value.0;
                // Each option claims a pair of ratios; "about" is within 15%.
                let about = |x: f64, t: f64| (x / t - 1.0).abs() <= 0.15;
                let claims = [(2.0, 1.5), (1.5, 2.0), (2.0, 2.0), (4.0, 1.0)].map(|(cf, ch)| about(f, cf) && about(h, ch));
                Ok(pick(&opts(["about 2× the FLOPs/s and 1.5× the HBM", "about 1.5× the FLOPs/s and 2× the HBM", "about 2× both", "about 4× the FLOPs/s and the same HBM"]), confirmed(claims)?)
                    .step(format!("FLOPs/s: {} ; HBM: {}", sci(f, 3), sci(h, 3))))
            },
            &["Divide the two peaks and the two HBM capacities."]),
        def("ch12-q1a", Kind::Question, P_H100,
            |p| format!("How many fp32 CUDA cores does a {} have (4 subpartitions of 32 lanes per SM)?", name(p)),
            |p| { let sy = gsys(p)?; Ok(num(f64::from(sy.cuda_cores()), "cores", format!("{} SMs × 4 × 32 = {}", sy.sms, sy.cuda_cores()))) },
            &["SMs × subpartitions × lanes."]),
        def("ch12-q1b", Kind::Question, P_B200,
            |p| format!("How many fp32 CUDA cores does a {} have?", name(p)),
            |p| { let sy = gsys(p)?; Ok(num(f64::from(cuda_cores(sy.sms)), "cores", format!("{} SMs × 128 = {}", sy.sms, cuda_cores(sy.sms)))) },
            &["SMs × subpartitions × lanes."]),
        def("ch12-q1c", Kind::Question, P_TPU,
            |p| format!("How many independent vector ALUs does a {} have (4 VPU ALUs per TensorCore, each 8×128 lanes)?", name(p)),
            |p| {
                let c = chip_param(p, "chip")?;
                let Topology::Torus { cores, .. } = c.topology else { return Err("not a TPU".into()) };
                let (sub, lanes) = TPU_COUNTERPART.vpu_lanes;
                let alus = cores * TPU_COUNTERPART.vpu_slots_per_core * sub * lanes;
                Ok(num(f64::from(alus), "ALUs", format!("{cores} TensorCores × 4 × {sub} × {lanes} = {alus}")))
            },
            &["TensorCores × ALUs × sublanes × lanes."]),
        def("ch12-q2a", Kind::Question, P_H100,
            |p| format!("At its base clock, with one op per CUDA core per cycle, what vector fp32 rate does a {} reach, in TFLOPs/s?", name(p)),
            |p| {
                let g = gen(p)?;
                let clock = g.base_clock.ok_or("no base clock")?;
                let r = vector_rate(gsys(p)?.cuda_cores(), clock, 1.0).map_err(s)?;
                Ok(num(r.0, "TFLOPs/s", format!("cores × {} Hz = {}", sci(clock.0, 3), sci(r.0, 3))))
            },
            &["Cores × cycles per second."]),
        def("ch12-q2b", Kind::Question, P_H100,
            |p| format!("And at the {}'s boost clock, in TFLOPs/s?", name(p)),
            |p| { let r = boost(p)?; Ok(num(r.0, "TFLOPs/s", format!("cores × boost clock = {}", sci(r.0, 3)))) },
            &["Cores × cycles per second."]),
        def("ch12-q2c", Kind::Question, P_H100,
            |p| format!("How many times faster are a {}'s bf16 Tensor Cores than its boosted fp32 vector rate?", name(p)),
            |p| { let r = gsys(p)?.peak / boost(p)?; Ok(num(r, "", format!("Tensor Core peak / vector rate = {}", sci(r, 3)))) },
            &["Divide the two rates."]),
        def("ch12-q3a", Kind::Question, P_H100,
            |p| format!("What arithmetic intensity does a bf16 matmul need to be compute-bound on a {}, in FLOPs per byte?", name(p)),
            |p| { let sy = gsys(p)?; let r = sy.hbm_ridge().0; Ok(num(r, "FLOPs/byte", format!("C / W_hbm = {} / {} = {}", sci(sy.peak.0, 3), sci(sy.chip.hbm_bw().0, 3), sci(r, 4)))) },
            &["Peak FLOPs/s over HBM bytes/s."]),
        def("ch12-q3b", Kind::Question, P_B200,
            |p| format!("And on a {}?", name(p)),
            |p| { let sy = gsys(p)?; let r = sy.hbm_ridge().0; Ok(num(r, "FLOPs/byte", format!("C / W_hbm = {}", sci(r, 4)))) },
            &["Peak FLOPs/s over HBM bytes/s."]),
        def("ch12-q3c", Kind::Question, &[],
            |_| "In fp8 the Tensor Cores run twice as fast. What intensities do H100 and B200 then need?".into(),
            |_| {
                let r = |id: &str| sys(id).map(|x| 2.0 * x.hbm_ridge().0);
                let (a, b) = (r("h100")?, r("b200")?);
                let f = |x: f64, y: f64| format!("{} and {}", n(x.round()), n(y.round()));
                Ok(pick(&[("a", f(a, b)), ("b", f(a / 2.0, b / 2.0)), ("c", f(2.0 * a, 2.0 * b)), ("d", f(b, a))], "a")
                    .step(format!("twice the bf16 ridges: {} and {}", sci(a, 3), sci(b, 3))))
            },
            &["Twice the FLOPs at the same bandwidth doubles the ridge."]),
        def("ch12-q4a", Kind::Question, P_Q4A,
            |p| format!("How long does bf16[{}, 4096] × bf16[4096, 8192] take on one B200, in µs?", n(value(p, "B"))),
            b200_matmul,
            &["Check the intensity against the ridge, then divide by the limiting rate."]),
        fix(def("ch12-q4b", Kind::Question, P_Q4B,
            |p| format!("How long does bf16[{}, 4096] × bf16[4096, 8192] take on one B200, in µs?", n(value(p, "B"))),
            b200_matmul,
            &["Check the intensity against the ridge, then divide by the limiting rate."]),
            "The book divides by the spec table's rounded 2.3e15 FLOPs/s and gets 15 µs; with the text's 2.25e15 FLOPs/s the matmul takes 15.3 µs."),
        def("ch12-q5", Kind::Question, P_H100,
            |p| format!("How much SMEM and register file does a {} have in total, in MiB?", name(p)),
            |p| {
                let g = gen(p)?;
                let t = g.smem_total() + g.registers_total();
                Ok(num(t.0, "MiB", format!("SMEM {} + registers {}", si(g.smem_total().0, "B", 3), si(g.registers_total().0, "B", 3)))
                    .step(format!("= {} MiB, vs {} of TPU VMEM", sci(t.0 / 1048576.0, 3), si(TPU_COUNTERPART.vmem.0, "B", 3))))
            },
            &["Per-SM capacity times SMs, for each of the two."]),
        def("ch12-q6", Kind::Question, P_B200_ONLY,
            |p| format!("A {} is quoted at 80 TFLOPs/s of fp32 vector math counting an FMA as 2 FLOPs. What clock does that imply, in GHz?", name(p)),
            |p| {
                let g = gen(p)?;
                let rate = g.vector_fp32_fma.ok_or("no vector rate")?.value;
                let c = clock_from_vector_rate(rate, cuda_cores(gsys(p)?.sms), 2.0).map_err(s)?;
                Ok(num(c.0, "GHz", format!("{} / (cores × 2) = {} Hz", sci(rate.0, 3), sci(c.0, 3))))
            },
            &["Rate over (cores × FLOPs per core per cycle)."]),
        def("ch12-q7a", Kind::Question, &[],
            |_| "What is the arithmetic intensity of adding two fp32 vectors of length N into a third?".into(),
            |_| {
                let i = Op::Elementwise { n: 1e6, dtype: Dtype::F32 }.intensity().0;
                Ok(num(i, "FLOPs/byte", "N FLOPs over 12N bytes (two reads, one write, 4 bytes each)".into()))
            },
            &["Count FLOPs and bytes per element."]),
        def("ch12-q7b", Kind::Question, P_H100,
            |p| format!("What is a {}'s ridge point for CUDA-core (vector) fp32 work, using its boosted vector rate?", name(p)),
            |p| { let r = boost(p)?.0 / gsys(p)?.chip.hbm_bw().0; Ok(num(r, "FLOPs/byte", format!("vector rate / W_hbm = {}", sci(r, 3)))) },
            &["The same ridge formula with the vector rate."]),
        def("ch12-q7c", Kind::Question, P_Q7C,
            |p| format!("On an H100, what is the roofline time of that fp32 vector add at N = {}, in µs?", n(value(p, "N"))),
            |p| vec_add(p, "µs"),
            &["Far below the ridge: bytes over HBM bandwidth."]),
        def("ch12-q7d", Kind::Question, P_Q7D,
            |p| format!("And at N = {}, in ms?", n(value(p, "N"))),
            |p| vec_add(p, "ms"),
            &["Far below the ridge: bytes over HBM bandwidth."]),
    ]
}

fn b200_matmul(p: &[Param]) -> Result<Solution, String> {
    let c = reg("b200")?;
    let op = Op::Matmul {
        b: value(p, "B"),
        d: 4096.0,
        f: 8192.0,
        act: Dtype::Bf16,
        weight: Dtype::Bf16,
    };
    let peak = c.peak(Dtype::Bf16).ok_or("no peak")?;
    let t = (op.hbm_bytes() / c.hbm_bw()).max(op.flops() / peak);
    Ok(num(
        t.0,
        "µs",
        format!(
            "intensity {} vs ridge {}",
            sci(op.intensity().0, 3),
            sci((peak / c.hbm_bw()).0, 3)
        ),
    )
    .step(format!("T = max(FLOPs/C, bytes/W) = {}", seconds(t.0))))
}

fn vec_add(p: &[Param], unit: &'static str) -> Result<Solution, String> {
    let op = Op::Elementwise {
        n: value(p, "N"),
        dtype: Dtype::F32,
    };
    let c = reg("h100")?;
    let b = boost(&[choice("chip", "GPU", &["h100"])])?;
    let t = (op.hbm_bytes() / c.hbm_bw()).max(op.flops() / b);
    Ok(num(
        t.0,
        unit,
        format!(
            "12N / W_hbm = {} / {} B/s = {}",
            n(op.hbm_bytes().0),
            sci(c.hbm_bw().0, 3),
            seconds(t.0)
        ),
    ))
}

fn network_level() -> Vec<Def> {
    vec![
        def("ch12-ex6", Kind::WorkedExample, &[],
            |_| "An H100 has 18 NVLink 4 links of 25 GB/s; an 8-GPU node has 4 NVSwitches of 64 ports at 25 GB/s. What are the per-GPU and total switch bandwidths?".into(),
            |_| {
                let g = nvlink_generation(Architecture::Hopper).ok_or("no NVLink 4")?;
                let w = g.gpu_egress().0;
                let sw = g.switch_bandwidth().ok_or("no switch")?.0 * f64::from(g.switches_for(8).ok_or("no switches")?);
                let f = |a: f64, b: f64| format!("{} GB/s per GPU; {} TB/s across the switches", n(a / 1e9), sci(b / 1e12, 2));
                Ok(pick(&[("a", f(w, sw)), ("b", f(2.0 * w, sw / 2.0)), ("c", f(w / 2.0, sw)), ("d", f(w, sw / 4.0))], "a")
                    .step(format!("18 × 25 GB/s = {}; 4 × 64 × 25 GB/s = {}", si(w, "B/s", 3), si(sw, "B/s", 3))))
            },
            &["Links times link bandwidth; switches times ports times port bandwidth."]),
        def("ch12-n-q1", Kind::Question, &[],
            |_| "In an 8×H100 node, the GPUs can push 450 GB/s each and the 4 NVSwitches carry 64 × 25 GB/s each. What total bandwidth can the node actually use, in TB/s?".into(),
            |_| {
                let node = *tree()?.levels.first().ok_or("no node level")?;
                let u = node.cable_bandwidth().min(node.switch_bandwidth.ok_or("no switch bandwidth")?);
                Ok(num(u.0, "TB/s", format!("min(GPU side {}, switch side {})", si(node.cable_bandwidth().0, "B/s", 3), si(node.switch_bandwidth.map_or(0.0, |x| x.0), "B/s", 3))))
            },
            &["The smaller of what the GPUs can send and what the switches can carry."]),
        def("ch12-n-q2", Kind::Question, &[],
            |_| "What is the bisection bandwidth of an 8×H100 node, counting both directions, in TB/s?".into(),
            |_| {
                let w = h100()?.w_gpu;
                let b = w * 4.0 * 2.0;
                Ok(num(b.0, "TB/s", format!("4 GPUs on each side × {} × 2 directions", si(w.0, "B/s", 3))))
            },
            &["Split the node in two halves of 4 GPUs each."]),
        def("ch12-n-q3", Kind::Question, P_NQ3,
            |p| format!("On an 8×H100 node, how long does AllGathering bf16[D_X, F] with D = {} and F = {} take (bandwidth-bound), in ms?", n(value(p, "D")), n(value(p, "F"))),
            |p| {
                let b = Dtype::Bf16.size_of(value(p, "D") * value(p, "F"));
                let t = in_node(Collective::AllGather, b, 8, h100()?.w_gpu, EXACT).map_err(s)?;
                Ok(num(t.0, "ms", format!("B·(N−1)/(N·W) = {} × 7/8 / 450 GB/s = {}", si(b.0, "B", 3), seconds(t.0))).count("GPUs", 8.0))
            },
            &["Each GPU receives 7/8 of the array through its own NVLink egress."]),
        def("ch12-ex7", Kind::WorkedExample, P_EX7,
            |p| format!("How many switches (NVSwitches, leaf and spine) does a DGX H100 SuperPod of {} GPUs use?", n(value(p, "G"))),
            |p| {
                let l = tree()?.layout(int(p, "G")).map_err(s)?;
                let sw = l.switches().ok_or("no switch count")?;
                Ok(num(sw as f64, "switches", format!("{} nodes × 4 NVSwitches + {} leaf + {} spine = {sw}", l.nodes, l.leaf_switches.unwrap_or(0), l.spine_switches.unwrap_or(0))))
            },
            &["Count each level separately."]),
        def("ch12-ex8", Kind::WorkedExample, &[],
            |_| "A GB200 NVL72 node has one 400 Gbps NIC per GPU. What is its total egress to the leaf switches, in TB/s?".into(),
            |_| {
                let g = sys("gb200")?;
                let w = reg("gb200")?.bandwidth(Link::ScaleOut).ok_or("no NIC")? * f64::from(g.gpus_per_node);
                Ok(num(w.0, "TB/s", format!("{} GPUs × 50 GB/s = {}", g.gpus_per_node, si(w.0, "B/s", 3))))
            },
            &["NICs times NIC bandwidth (400 Gbps = 50 GB/s)."]),
        def("ch12-b-q1a", Kind::Question, &[],
            |_| "In a DGX H100 SuperPod each node has 8 NICs of 400 Gbps. What bandwidth does a node have to the leaf switches, in GB/s?".into(),
            |_| { let w = reg("h100")?.bandwidth(Link::ScaleOut).ok_or("no NIC")? * 8.0; Ok(num(w.0, "GB/s", format!("8 × 50 GB/s = {}", si(w.0, "B/s", 3)))) },
            &["400 Gbps is 50 GB/s."]),
        def("ch12-b-q1b", Kind::Question, &[],
            |_| "A scalable unit has 8 leaf switches, each using 32 of its 64 400-Gbps ports towards its 32 nodes. What is the leaf bandwidth of the SU, in TB/s?".into(),
            |_| {
                let l = *tree()?.levels.get(1).ok_or("no leaf")?;
                let w = IB_NDR_SWITCH.port_bandwidth * f64::from(IB_NDR_SWITCH.ports / 2) * 8.0;
                Ok(num(l.cable_bandwidth().0, "TB/s", format!("8 × 32 × 50 GB/s = {}", si(w.0, "B/s", 3))))
            },
            &["Half of each leaf's ports face the nodes."]),
        def("ch12-b-q1c", Kind::Question, &[],
            |_| "Each SU connects to the spine with 8 × 16 × 2 cables of 400 Gbps. What is that uplink bandwidth, in TB/s?".into(),
            |_| { let w = DGX_SUPERPOD.su_uplink(); Ok(num(w.0, "TB/s", format!("256 × 50 GB/s = {}", si(w.0, "B/s", 3)))) },
            &["Cables times 50 GB/s."]),
        def("ch12-b-q1d", Kind::Question, &[],
            |_| "The spine has 16 switches of 3.2 TB/s each. What is the total spine bandwidth, in TB/s?".into(),
            |_| {
                let sp = *tree()?.levels.get(2).ok_or("no spine")?;
                let w = sp.switch_bandwidth.ok_or("no spine bandwidth")?;
                Ok(num(w.0, "TB/s", format!("16 × 3.2 TB/s = {}; per node of 128: {}", si(w.0, "B/s", 3), si(w.0 / 128.0, "B/s", 3))))
            },
            &["Switches times switch bandwidth."]),
        def("ch12-b-q2", Kind::Question, &[],
            |_| "How would you scale the 1024-GPU DGX H100 design to 2048 and to 4096 GPUs with the same 64-port switches?".into(),
            |_| {
                let t = tree()?;
                let a = t.layout(2048).map_err(s)?;
                let b = t.layout(4096).map_err(s)?;
                let claims = [
                    a.sus == Some(8) && a.spine_switches == Some(32) && a.cables_per_leaf_spine == Some(1) && !a.needs_core_layer && b.needs_core_layer,
                    a.spine_switches == Some(16) && a.cables_per_leaf_spine == Some(2) && !b.needs_core_layer && b.spine_switches == Some(64),
                    !a.needs_core_layer && !b.needs_core_layer,
                    a.needs_core_layer,
                ];
                Ok(pick(&opts([
                    "2048: 8 SUs and 32 spine switches, one cable per leaf–spine pair; 4096: add a core switch layer",
                    "2048: 8 SUs and 16 spine switches, two cables per pair; 4096: 64 spine switches",
                    "both fit a two-tier tree by adding leaf switches",
                    "2048 already needs a core layer; 4096 needs two",
                ]), confirmed(claims)?)
                    .step(format!("2048 GPUs: {} SUs, {} spine switches, {} cable(s) per pair", a.sus.unwrap_or(0), a.spine_switches.unwrap_or(0), a.cables_per_leaf_spine.unwrap_or(0)))
                    .step("4096 GPUs: 64-port switches run out of ports in two tiers"))
            },
            &["Count the ports each leaf has towards the spine."]),
        def("ch12-c-pq1a", Kind::PopQuiz, P_PQ1,
            |p| format!("On an 8×H100 node, roughly how long does AllGather of bf16[B_X, F] take with B = {} and F = {} (ignore the (N−1)/N factor), in µs?", n(value(p, "B")), n(value(p, "F"))),
            |p| ag(p, EXACT.asymptotic(), "2·B·F / W"),
            &["All the bytes pass through each GPU's NVLink egress."]),
        def("ch12-c-pq1b", Kind::PopQuiz, P_PQ1,
            |p| format!("And precisely, with the (N−1)/N factor (B = {}, F = {}), in µs?", n(value(p, "B")), n(value(p, "F"))),
            |p| ag(p, EXACT, "2·B·F·(7/8) / W"),
            &["Each GPU already has 1/8 of the array."]),
        def("ch12-c-pq2", Kind::PopQuiz, &[],
            |_| "In one node of N GPUs with egress W each, what does a dense AllToAll of an array of B bytes cost (exactly)? Give a formula in B, N and W.".into(),
            |_| {
                let vars = vec![Var::new("B", 1e6, 1e10), Var::stepped("N", 2.0, 72.0, 1.0), Var::new("W", 1e11, 1e12)];
                Ok(sym("B*(N-1)/(W*N^2)", vars, |x| in_node(Collective::AllToAll, Bytes(at(x, 0)), whole::<u32>(at(x, 1)).unwrap_or(0), BytesPerSec(at(x, 2)), EXACT).map_or(f64::NAN, |t| t.0))
                    .step("each GPU keeps 1/N of its B/N bytes and sends the rest: B(N−1)/N² over W")
                    .step("about B/(W·N); if only half the destinations get data, half that"))
            },
            &["Each GPU holds B/N bytes and sends all but 1/N of them."]),
        def("ch12-c-ex1", Kind::WorkedExample, &[],
            |_| "In a DGX H100 SuperPod, AllGather bandwidth per level is D·W/(D−1). Taking the slowest level, what is the effective AllGather bandwidth of the whole pod, in GB/s?".into(),
            |_| {
                let t = tree()?;
                let mut sol = num(t.all_gather_bandwidth().0, "GB/s", "the slowest of the levels bounds the whole collective".into());
                for (k, w) in t.effective_bandwidths() {
                    sol = sol.step(format!("{}: {}", k.label(), si(w.0, "B/s", 3)));
                }
                Ok(sol)
            },
            &["Compute D·W/(D−1) for node, leaf and spine and take the minimum."]),
        def("ch12-c-ex2", Kind::WorkedExample, &[],
            |_| "How many times slower is an AllToAll over 2 H100 nodes than over a single 8-GPU node (book's large-N forms)?".into(),
            |_| {
                let t = tree()?;
                let o = EXACT.asymptotic();
                let one = t.collective(Collective::AllToAll, Bytes(1e9), 8, o).map_err(s)?;
                let two = t.collective(Collective::AllToAll, Bytes(1e9), 16, o).map_err(s)?;
                let r = two.total / one.total;
                Ok(num(r, "x", format!("B/(2 × 400 GB/s) vs B/(8 × 450 GB/s): ratio {}", sci(r, 3))))
            },
            &["Compare B/(8·W_gpu) with B/(2·W_node)."]),
        def("ch12-c-ex3", Kind::WorkedExample, P_EX3,
            |p| format!("LLaMA-3 70B's MLP weight bf16[8192, 28672] is sharded {}-way. How large is each GPU's AllReduce message, in MB?", n(value(p, "Y"))),
            |p| { let b = Dtype::Bf16.size_of(8192.0 * 28672.0 / value(p, "Y")); Ok(num(b.0, "MB", format!("2 × 8192 × 28,672 / {} = {}", n(value(p, "Y")), si(b.0, "B", 3)))) },
            &["Two bytes per value, divided by the shards."]),
        def("ch12-c-ex4", Kind::WorkedExample, &[],
            |_| "In-network reduction (SHARP) measured about 30% more than the ~370 GB/s AllReduce bandwidth of an H100 node. What bandwidth is that, in GB/s?".into(),
            |_| {
                let e = MEASURED.nccl_allreduce_bus.value * (1.0 + MEASURED.sharp_gain.value);
                Ok(num(e.0, "GB/s", format!("{} × {} = {}", si(MEASURED.nccl_allreduce_bus.value.0, "B/s", 3), 1.0 + MEASURED.sharp_gain.value, si(e.0, "B/s", 3))))
            },
            &["Scale the measured bandwidth by the gain."]),
        def("ch12-c-pq3", Kind::PopQuiz, &[],
            |_| "Within one SU (256 H100s), how does AllGather_X(bf16[D_X, F_Y]) cost depend on the inner axis Y?".into(),
            |_| c_pq3(),
            &["Ask which level is the bottleneck before and after Y spans more than one node."]),
        def("ch12-c-q1", Kind::Question, &[],
            |_| "An SU has M nodes of N GPUs. In an AllGather of B bytes, how many bytes go in and out of a node's switch, and of the top switch?".into(),
            |_| {
                let t = crate::gpu::network::su_all_gather_traffic(Bytes(1.0), 32, 8).map_err(s)?;
                // Each option's in/out bytes for B = 1, M = 32 nodes, N = 8 GPUs.
                let (m, nn) = (32.0, 8.0);
                let is = |x: f64, want: f64| (x - want).abs() <= 0.05 * want.max(1.0);
                let has = |sw: &crate::gpu::network::SwitchTraffic, i: f64, o: f64| is(sw.ingress.0, i) && is(sw.egress.0, o);
                let claims = [
                    has(&t.node_switch, 1.0, nn) && has(&t.top_switch, 1.0, m - 1.0),
                    has(&t.node_switch, nn, 1.0) && has(&t.top_switch, m - 1.0, 1.0),
                    has(&t.node_switch, 1.0, 1.0) && has(&t.top_switch, 1.0, 1.0),
                    has(&t.node_switch, 1.0, 1.0) && has(&t.top_switch, m, m),
                ];
                Ok(pick(&opts([
                    "node switch: about B in and B·N out; top switch: B in and B(M−1) out",
                    "node switch: B·N in and B out; top switch: B(M−1) in and B out",
                    "both switches: B in and B out",
                    "node switch: B in and B out; top switch: B·M in and B·M out",
                ]), confirmed(claims)?).step(format!("for B = 1, M = 32, N = 8: node out {}, top out {}", sci(t.node_switch.egress.0, 3), sci(t.top_switch.egress.0, 3))))
            },
            &["Every GPU must end up with all B bytes; the top switch forwards each node's share to the others."]),
        def("ch12-c-q2", Kind::Question, &[],
            |_| "In one node of N GPUs, a SHARP AllReduce of B bytes: how many bytes leave the switch? Give a formula in B and N.".into(),
            |_| Ok(sym("B*N", vec![Var::new("B", 1e6, 1e10), Var::stepped("N", 2.0, 72.0, 1.0)], |x| sharp_all_reduce_traffic(Bytes(at(x, 0)), whole::<u32>(at(x, 1)).unwrap_or(0)).map_or(f64::NAN, |t| t.egress.0))
                .step("each GPU receives its reduced shard and the others' shards: B per GPU")
                .step("so B·N each way, and T = B / W_gpu")),
            &["Each GPU must end up with the whole reduced array."]),
        def("ch12-c-q3", Kind::Question, &[],
            |_| "Within one node with in-network reduction, what does AllReduce(bf16[D, F_Y]{U_X}) cost? Give a formula in D, F, Y and W (GPU egress).".into(),
            |_| {
                let vars = vec![Var::stepped("D", 1024.0, 16384.0, 128.0), Var::stepped("F", 1024.0, 65536.0, 128.0), Var::stepped("Y", 1.0, 8.0, 1.0), Var::new("W", 1e11, 1e12)];
                Ok(sym("2*D*F/(Y*W)", vars, |x| in_node(Collective::AllReduce, Bytes(2.0 * at(x, 0) * at(x, 1)), 8, BytesPerSec(at(x, 3)), EXACT.with_sharp().with_inner(whole::<u32>(at(x, 2)).unwrap_or(0))).map_or(f64::NAN, |t| t.0))
                    .step("with SHARP an AllReduce costs B/W; the Y shards divide B by Y")
                    .step("T = 2DF/(Y·W), falling with Y"))
            },
            &["SHARP makes an AllReduce cost like one pass of the bytes."]),
        def("ch12-c-q4", Kind::Question, &[],
            |_| "With Y = 256 over 4 SUs, AllReduce(bf16[D, F_Y]{U_X}) with SHARP reduces at the spine. What bounds its time?".into(),
            |_| c_q4(),
            &["With SHARP each level moves the bytes once; find the narrowest level."]),
        def("ch12-c-q5", Kind::Question, &[],
            |_| "An AllGather spans exactly 2 H100 nodes. Which term sets its precise cost?".into(),
            |_| {
                let c = tree()?.collective(Collective::AllGather, Bytes(1e9), 16, EXACT).map_err(s)?;
                use crate::gpu::network::LevelKind;
                let time = |k: LevelKind| c.levels.iter().find(|l| l.level == k).map(|l| l.time.0);
                let (node, across) = (time(LevelKind::Node).ok_or("no node level")?, time(LevelKind::Leaf).ok_or("no leaf level")?);
                let claims = [
                    c.bottleneck == Some(LevelKind::Node) && node > across,
                    c.bottleneck == Some(LevelKind::Leaf) && across > node,
                    ((node - across) / node).abs() < 0.01,
                    c.bottleneck == Some(LevelKind::Spine),
                ];
                Ok(pick(&opts([
                    "the node level, B·7/(8·450 GB/s) = B/514 GB/s, above the cross-node B/(2·400 GB/s)",
                    "the cross-node level, B/(2·400 GB/s)",
                    "both are equal",
                    "the spine",
                ]), confirmed(claims)?).step(format!("levels: {}", c.levels.iter().map(|l| format!("{} {}", l.level.label(), seconds(l.time.0))).collect::<Vec<_>>().join(", "))))
            },
            &["Compute each level's time with its (D−1)/D factor."]),
    ]
}

/// The one option whose claim core confirms (an error if none or several do,
/// so that a change in the cost model cannot leave a stale letter).
fn confirmed(claims: [bool; 4]) -> Result<&'static str, String> {
    let holds: Vec<&'static str> = ["a", "b", "c", "d"]
        .into_iter()
        .zip(claims)
        .filter(|(_, c)| *c)
        .map(|(id, _)| id)
        .collect();
    match holds.as_slice() {
        [one] => Ok(one),
        _ => Err(format!("core confirms options {holds:?}, not exactly one")),
    }
}

/// Whether `predicted` is within `tol` (relative) of core's `cost` at every point.
fn agrees(points: &[(f64, f64)], tol: f64) -> bool {
    points
        .iter()
        .all(|(cost, predicted)| ((predicted - cost) / cost).abs() <= tol)
}

/// AllGather of a bf16[D_X, F_Y] array in one SU against Y: each option's
/// claim checked against core's fat-tree cost for Y from 1 to 128.
fn c_pq3() -> Result<Solution, String> {
    let h = h100()?;
    let node = h.gpus_per_node as f64;
    let nic = reg("h100")?.bandwidth(Link::ScaleOut).ok_or("no NIC")?.0;
    let (w_node, w_gpu) = (nic * node, h.w_gpu.0);
    let b = Dtype::Bf16.size_of(8192.0 * 32768.0).0;
    let t = tree()?;
    let su = 256u64;
    let nodes = su as f64 / node;
    let mut cost = Vec::new();
    for y in [1u32, 2, 4, 8, 16, 32, 64, 128] {
        let c = t
            .collective(Collective::AllGather, Bytes(b), su, EXACT.with_inner(y))
            .map_err(s)?;
        cost.push((f64::from(y), c.total.0));
    }
    let leaf = b * (nodes - 1.0) / (nodes * w_node);
    let claim = |f: &dyn Fn(f64) -> f64, tol: f64| {
        agrees(
            &cost.iter().map(|(y, c)| (*c, f(*y))).collect::<Vec<_>>(),
            tol,
        )
    };
    let a = claim(&|y| if y <= node { leaf } else { b / (y * nic) }, 0.05);
    let bb = claim(&|y| b / (y * w_node), 0.05);
    let c = claim(&|_| leaf, 0.05);
    let d = claim(
        &|y| {
            if y <= node {
                b / (y * w_gpu)
            } else {
                b / (node * w_gpu)
            }
        },
        0.05,
    );
    let nodes_txt = n(nodes);
    let options = opts([
        &format!(
            "Y ≤ {}: 2DF·{}/({nodes_txt}·{}), no gain from Y; Y > {}: about 2DF/(Y·{})",
            n(node),
            n(nodes - 1.0),
            si(w_node, "B/s", 3),
            n(node),
            si(nic, "B/s", 3)
        ),
        &format!("always 2DF/(Y·{})", si(w_node, "B/s", 3)),
        &format!(
            "always 2DF·{}/({nodes_txt}·{}), whatever Y",
            n(nodes - 1.0),
            si(w_node, "B/s", 3)
        ),
        &format!(
            "Y ≤ {}: 2DF/(Y·{}); Y > {}: constant",
            n(node),
            si(w_gpu, "B/s", 3),
            n(node)
        ),
    ]);
    let steps = cost
        .iter()
        .map(|(y, c)| format!("Y = {}: {}", n(*y), seconds(*c)))
        .collect::<Vec<_>>()
        .join(", ");
    Ok(pick(&options, confirmed([a, bb, c, d])?)
        .step("within a node Y only splits the node term; the leaf still carries the whole array until Y spans nodes")
        .step(format!("core's cost for 2DF = {}: {steps}", si(b, "B", 3))))
}

/// SHARP AllReduce of bf16[D, F_Y] with Y = 256 over 4 SUs: each option's
/// claim checked against core's fat-tree cost.
fn c_q4() -> Result<Solution, String> {
    let h = h100()?;
    let t = tree()?;
    let b = Dtype::Bf16.size_of(8192.0 * 28672.0).0;
    let (gpus, y, sus) = (1024u64, 256u32, 4.0);
    let cost = t
        .collective(
            Collective::AllReduce,
            Bytes(b),
            gpus,
            EXACT.with_sharp().with_inner(y),
        )
        .map_err(s)?
        .total
        .0;
    let spine = t
        .levels
        .get(2)
        .and_then(|l| l.switch_bandwidth)
        .ok_or("no spine level")?
        .0;
    let nic = reg("h100")?.bandwidth(Link::ScaleOut).ok_or("no NIC")?.0;
    let w_node = nic * h.gpus_per_node as f64;
    let g = gpus as f64;
    let near = |x: f64| ((x - cost) / cost).abs() <= 0.01;
    let claims = [
        near(b / (spine / sus)),
        near(b / (f64::from(y) * h.w_gpu.0)),
        near(2.0 * b * (g - 1.0) / g / w_node),
        cost == 0.0,
    ];
    let options = opts([
        "the whole 2DF bytes crossing each SU's share of the spine bandwidth once",
        &format!("2DF/(Y·{}), the NVLink term", si(h.w_gpu.0, "B/s", 3)),
        "2·2DF·(N−1)/N over the leaf bandwidth, as without SHARP",
        "nothing: the reduction is free in the network",
    ]);
    Ok(pick(&options, confirmed(claims)?)
        .step("each SU sends its array up once and receives the reduction: B over the spine bandwidth per SU")
        .step(format!("core: {} for 2DF = {} over {} per SU", seconds(cost), si(b, "B", 3), si(spine / sus, "B/s", 3)))
        .step("the book divides by 25.6 TB/s / 4 = 6.4 TB/s (Appendix B); the summary table's 51.2 TB/s gives 12.8 TB/s"))
}

fn ag(p: &[Param], o: CollectiveOptions, formula: &str) -> Result<Solution, String> {
    let b = Dtype::Bf16.size_of(value(p, "B") * value(p, "F"));
    let t = in_node(Collective::AllGather, b, 8, h100()?.w_gpu, o).map_err(s)?;
    Ok(num(
        t.0,
        "µs",
        format!(
            "{formula} = {} / 450 GB/s → {}",
            si(b.0, "B", 3),
            seconds(t.0)
        ),
    )
    .count("GPUs", 8.0))
}

/// Cross-node data parallelism's threshold, `C / W_node` (the book's form):
/// after the in-node ReduceScatter each GPU sends `1/D_node` of the gradient
/// over `1/D_node` of the node's egress, so the node count cancels.
fn cross_node_dp(sy: GpuSystem) -> Result<Solution, String> {
    let t = sy.dp_threshold(Scope::Network).map_err(s)?;
    let w = sy.w_node.ok_or("no node egress")?;
    Ok(num(
        t,
        "tokens",
        format!(
            "C / W_node = {} / {} = {}",
            si(sy.peak.0, "FLOPs/s", 3),
            si(w.0, "B/s", 3),
            sci(t, 4)
        ),
    )
    .step(format!(
        "per GPU: 1/{n} of the gradient over 1/{n} of the egress, so the {n}s cancel",
        n = sy.gpus_per_node
    )))
}

fn rooflines() -> Vec<Def> {
    vec![
        def("ch12-r-ex1", Kind::WorkedExample, P_H100,
            |p| format!("Data parallelism inside one {} node: above how many tokens per GPU is it compute-bound?", name(p)),
            |p| { let t = gsys(p)?.dp_threshold(Scope::Node).map_err(s)?; Ok(num(t, "tokens", format!("C / W_gpu = {}", sci(t, 4)))) },
            &["Compare the FLOPs per GPU with the bytes of the gradient AllReduce: the threshold is C over the collective bandwidth."]),
        def("ch12-r-ex2", Kind::WorkedExample, P_H100,
            |p| format!("Data parallelism across {} nodes (node egress shared by its GPUs): how many tokens per GPU are needed?", name(p)),
            |p| cross_node_dp(gsys(p)?),
            &["Inside the node the gradient is first reduce-scattered, so each GPU sends only 1/8 of it, over its 1/8 of the node's egress: the eights cancel."]),
        def("ch12-r-ex3", Kind::WorkedExample, P_REX3,
            |p| format!("With pure data parallelism over {} H100s, what is the smallest global batch that stays compute-bound, in tokens?", n(value(p, "G"))),
            |p| {
                let per = h100()?.dp_threshold(Scope::Network).map_err(s)?;
                let b = crate::gpu::parallelism::min_global_batch(per, int(p, "G")).map_err(s)?;
                Ok(num(b, "tokens", format!("{} per GPU × {} GPUs = {}", sci(per, 4), n(value(p, "G")), sci(b, 3))))
            },
            &["Per-GPU threshold times GPUs."]),
        def("ch12-r-ex4", Kind::WorkedExample, P_REX4,
            |p| format!("On {} H800s (300 GB/s NVLink), taking the NVLink bandwidth as the collective bandwidth, what global batch keeps pure data parallelism compute-bound, in tokens?", n(value(p, "G"))),
            |p| {
                let per = sys("h800")?.dp_threshold(Scope::Node).map_err(s)?;
                let b = crate::gpu::parallelism::min_global_batch(per, int(p, "G")).map_err(s)?;
                Ok(num(b, "tokens", format!("{} per GPU × {} = {}", sci(per, 4), n(value(p, "G")), sci(b, 3))))
            },
            &["C over 300 GB/s, times GPUs."]),
        def("ch12-r-ex5", Kind::WorkedExample, P_REX5,
            |p| format!("An MoE with {} experts, {} active per token, trained with data parallelism across H100 nodes: how many tokens per GPU are needed?", n(value(p, "E")), n(value(p, "k"))),
            |p| {
                let t = h100()?.moe_dp_threshold(Scope::Network, int32(p, "E"), int32(p, "k")).map_err(s)?;
                Ok(num(t, "tokens", format!("E/k × 2475 = {}", sci(t, 4))))
            },
            &["Only k/E of the weights see each token, so E/k times more tokens are needed."]),
        def("ch12-r-ex6", Kind::WorkedExample, P_REX6,
            |p| format!("Data parallelism over only {} H100 nodes: what is the per-GPU threshold, with the (X−1)/X factor?", n(value(p, "X"))),
            |p| { let t = h100()?.small_dp_threshold(Scope::Network, int32(p, "X")).map_err(s)?; Ok(num(t, "tokens", format!("2475 × (X−1)/X = {}", sci(t, 4)))) },
            &["A small ring moves only (X−1)/X of the bytes."]),
        def("ch12-r-ex7", Kind::WorkedExample, P_REX7,
            |p| format!("Tensor parallelism across H100 nodes: with F = {}, how many ways can the MLP be split before comms dominate?", n(value(p, "F"))),
            |p| { let y = h100()?.tp_max_ways(Scope::Network, value(p, "F")).map_err(s)?; Ok(num(y, "ways", format!("Y < F / 2475 = {}", sci(y, 3)))) },
            &["Y < F·W/C at the scale-out bandwidth."]),
        def("ch12-r-ex8", Kind::WorkedExample, P_REX7,
            |p| format!("Tensor parallelism over two H100 nodes satisfies F > 2475·(Y − 8). With F = {}, what is the largest Y?", n(value(p, "F"))),
            |p| { let y = h100()?.tp_max_ways_two_nodes(value(p, "F")).map_err(s)?; Ok(num(y, "ways", format!("Y < 8 + F/2475 = {}", sci(y, 3)))) },
            &["Solve F > 2475·(Y − 8) for Y."]),
        def("ch12-r-ex9", Kind::WorkedExample, P_REX9,
            |p| format!("A run uses {} sequences of {} tokens per batch. How many tokens is that?", n(value(p, "B")), n(value(p, "T"))),
            |p| { let t = tokens_per_device(value(p, "B"), value(p, "T"), 1.0); Ok(num(t, "tokens", format!("{} × {} = {}; over 2048 GPUs: {} each", n(value(p, "B")), n(value(p, "T")), sci(t, 4), sci(t / 2048.0, 3)))) },
            &["Sequences times tokens per sequence."]),
        def("ch12-r-ex10", Kind::WorkedExample, P_REX10,
            |p| format!("A batch of {} tokens spread over {} GPUs: how many tokens per GPU?", sci(value(p, "T"), 3), sci(value(p, "G"), 3)),
            |p| { let t = tokens_per_device(1.0, value(p, "T"), value(p, "G")); Ok(num(t, "tokens", format!("{} / {} = {}", sci(value(p, "T"), 3), sci(value(p, "G"), 3), sci(t, 3)))) },
            &["Divide."]),
        def("ch12-r-q1a", Kind::Question, P_B200,
            |p| format!("Inside a {} node, what is the critical intensity C / W_gpu that limits tensor parallelism (Y < F / it)?", name(p)),
            |p| { let a = gsys(p)?.alpha(Scope::Node).map_err(s)?; Ok(num(a.0, "FLOPs/byte", format!("C / W_gpu = {}", sci(a.0, 4)))) },
            &["Peak over NVLink egress."]),
        def("ch12-r-q1b", Kind::Question, P_B200,
            |p| format!("Across {} nodes (400 GB/s scale-out per node), how many tokens per GPU does data parallelism need?", name(p)),
            |p| cross_node_dp(gsys(p)?),
            &["Each GPU sends 1/8 of the reduce-scattered gradient over its 1/8 of the node's egress, so the threshold is C over the node's egress."]),
        def("ch12-r-q2a", Kind::Question, P_P70,
            |p| format!("A {}-parameter model trained with bf16 weights and fp32 Adam states (10 bytes per parameter): how many 80 GB H100s does it take just to hold them?", sci(value(p, "P"), 3)),
            |p| {
                let st = Bytes(value(p, "P") * 10.0);
                let g = gpus_to_hold(st, reg("h100")?.hbm_capacity.value).map_err(s)?;
                Ok(num(g as f64, "GPUs", format!("{} / 80 GB = {}, rounded up", si(st.0, "B", 3), sci(st.0 / 80e9, 3))))
            },
            &["Bytes of state over HBM per GPU, rounded up."]),
        def("ch12-r-q2b", Kind::Question, P_Q2B,
            |p| format!("Training a {}-parameter model on {} tokens with {} H100s at {}% MFU: how many days?", sci(value(p, "P"), 3), sci(value(p, "T"), 3), n(value(p, "G")), sci(value(p, "mfu") * 100.0, 3)),
            |p| {
                let f = Flops(6.0 * value(p, "P") * value(p, "T"));
                let t = h100()?.training_time(f, int(p, "G"), value(p, "mfu")).map_err(s)?;
                Ok(num(t.0, "days", format!("6·P·T = {} FLOPs over GPUs × C × MFU = {}", sci(f.0, 3), seconds(t.0))))
            },
            &["6 FLOPs per parameter per token, over the achieved cluster rate."]),
        fix(def("ch12-r-q2c", Kind::Question, P_Q2C,
            |p| format!("With F = {}, how far can tensor parallelism go inside one H100 node before comms dominate?", n(value(p, "F"))),
            |p| { let y = h100()?.tp_max_ways(Scope::Node, value(p, "F")).map_err(s)?; Ok(num(y, "ways", format!("Y < F·W_gpu/C = F / 2200 = {}", sci(y, 4))).step("so 8-way (one node) in practice")) },
            &["Y < F / (C / W_gpu)."]),
            "The book divides by 1995; its own in-node ratio is 990e12 / 450e9 = 2200, so the limit is 13.0, not 14.37. Both mean 8-way tensor parallelism."),
        def("ch12-r-q2d", Kind::Question, P_P70,
            |p| format!("With 8-way tensor parallelism and pure data parallelism, how many GB of weights and Adam state (10 bytes per parameter, {} parameters) sit on each GPU?", sci(value(p, "P"), 3)),
            |p| { let b = value(p, "P") * 10.0 / 8.0; Ok(num(b, "GB", format!("10 × P / 8 = {} (vs 80 GB of HBM)", si(b, "B", 3)))) },
            &["Only the tensor-parallel axis divides the state."]),
        def("ch12-r-q2e", Kind::Question, P_Q2E,
            |p| format!("8-way tensor parallelism with ZeRO-3 data parallelism over the rest: a batch of {} tokens on {} GPUs gives how many tokens per GPU?", sci(value(p, "T"), 3), n(value(p, "G"))),
            |p| { let t = tokens_per_device(1.0, value(p, "T"), value(p, "G")); Ok(num(t, "tokens", format!("{} / {} = {} (needs 2475 to be compute-bound)", sci(value(p, "T"), 3), n(value(p, "G")), sci(t, 4)))) },
            &["Batch over GPUs."]),
        def("ch12-r-q2f", Kind::Question, P_Q2F,
            |p| format!("Add pipelining so each model copy spans {} H100s ({} nodes). What per-GPU batch does the outer data-parallel reduction now need?", n(value(p, "Y")), n(value(p, "Y") / 8.0)),
            |p| {
                let sy = h100()?;
                let f = outer_reduction_factor(int32(p, "Y"), sy.gpus_per_node).map_err(s)?;
                let w = sy.w_node.ok_or("no node egress")? / f;
                let t = (sy.peak / w).0;
                Ok(num(t, "tokens", format!("the reduction uses {} nodes' egress: {}", sci(1.0 / f, 3), si(w.0, "B/s", 3))).step(format!("C / that = {}", sci(t, 4))))
            },
            &["A model copy spanning k nodes has k times the scale-out bandwidth for its gradients."]),
        q3!("ch12-r-q3a", 2),
        q3!("ch12-r-q3b", 4),
        q3!("ch12-r-q3c", 7),
        def("ch12-r-q3d", Kind::Question, &[],
            |_| {
                let rows = Q3_ROWS.map(|i| MEGATRON_TABLE[i]);
                let tokens = rows.map(|r| n(megatron_tokens_per_gpu(&r)));
                let ways = rows.map(|r| r.model_parallel().to_string());
                format!("Those three Megatron runs ({}, {} and {} tokens per GPU; {}-, {}- and {}-way model sharding) sit in one pod. Which of them are compute-bound?", tokens[0], tokens[1], tokens[2], ways[0], ways[1], ways[2])
            },
            |_| {
                let sy = h100()?;
                let a = sy.dp_threshold(Scope::Network).map_err(s)?;
                let mut need = [0.0; 3];
                let mut bound = [false; 3];
                for (k, i) in Q3_ROWS.into_iter().enumerate() {
                    let r = MEGATRON_TABLE[i];
                    need[k] = a * outer_reduction_factor(r.model_parallel(), sy.gpus_per_node).map_err(s)?;
                    bound[k] = megatron_tokens_per_gpu(&r) > need[k];
                }
                let claims = [
                    bound == [true, true, true],
                    bound == [true, false, false],
                    bound == [false, false, false],
                    bound == [false, true, true],
                ];
                Ok(pick(&opts(["all three", "only the first", "none", "only the last two"]), confirmed(claims)?)
                    .step(format!("thresholds: {}, {} and {} tokens per GPU", sci(need[0], 4), sci(need[1], 4), sci(need[2], 4))))
            },
            &["Model sharding across nodes multiplies the bandwidth available to the data-parallel reduction."]),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exercises::registry::exercise;

    #[test]
    fn quiz_five_q3_reads_the_megatron_rows() {
        let rows = Q3_ROWS.map(|i| MEGATRON_TABLE[i].model);
        assert_eq!(rows, ["16B", "70B", "314B"]);
        // 192 · 4096 / 192 = 4096 tokens; 384 · 4096 / 768 = 2048.
        for (id, tokens) in [
            ("ch12-r-q3a", 4096.0),
            ("ch12-r-q3b", 2048.0),
            ("ch12-r-q3c", 2048.0),
        ] {
            let e = exercise(id).unwrap();
            assert!(
                e.prompt.contains("sequences of 4,096 tokens"),
                "{}",
                e.prompt
            );
            assert_eq!(e.expected_value(), Some(tokens), "{id}");
        }
        // The 16B row shards 4 ways inside one node (TP 4, PP 1), which
        // leaves the data-parallel reduction its own node's egress.
        let d = exercise("ch12-r-q3d").unwrap();
        assert!(
            d.prompt.contains(
                "(4,096, 2,048 and 2,048 tokens per GPU; 4-, 16- and 64-way model sharding)"
            ),
            "{}",
            d.prompt
        );
    }
}
