//! Part 2 (TPUs): the exercises of `ch2-*`, computed as in `golden_ch2.rs`.

use super::def::{choice, n, param, value, Def, Kind, Param, Scale, Solution};
use super::kit::{chip_param, peak, ridge};
use crate::check::whole;
use crate::dtype::Dtype;
use crate::format::{sci, seconds};
use crate::hardware::tpu::{
    core_mxu_rate, cores_per_chip, mxu_rate, vmem_bandwidth, vpu_rate, vreg_bytes,
    weight_load_time, which_link_binds, LinkLoad, Slice,
};
use crate::hardware::{chip, tensor_core, Chip, Link, TensorCoreSpec};
use crate::roofline::ops::Op;
use crate::units::{Bytes, Flops};

const V5E_FIRST: &[&str] = &["v5e", "v5p", "v6e", "v4p"];
const V5P_FIRST: &[&str] = &["v5p", "v5e", "v4p", "v6e"];
const V4P_FIRST: &[&str] = &["v4p", "v5p", "v5e", "v6e"];
const V6E_FIRST: &[&str] = &["v6e", "v5e", "v5p", "v4p"];

fn core_of(c: &Chip) -> Result<&'static TensorCoreSpec, String> {
    tensor_core(c.id).ok_or_else(|| format!("no TensorCore data for {}", c.name))
}

fn tpu_err(e: crate::hardware::tpu::TpuError) -> String {
    e.to_string()
}

fn name(p: &[Param]) -> &'static str {
    chip_param(p, "chip").map_or("TPU", |c| c.name)
}

fn pod(p: &[Param]) -> Result<(&'static Chip, Slice), String> {
    let c = chip_param(p, "chip")?;
    Ok((c, Slice::full_pod(c).map_err(tpu_err)?))
}

fn pod_prompt(p: &[Param], what: &str) -> String {
    let shape = pod(p)
        .ok()
        .map(|(_, s)| format!(" ({} chips)", n(s.chips() as f64)))
        .unwrap_or_default();
    format!("A full {} pod{shape}: {what}", name(p))
}

const P_V5E: &[Param] = &[choice("chip", "TPU", V5E_FIRST)];
const P_V5P: &[Param] = &[choice("chip", "TPU", V5P_FIRST)];
const P_Q1: &[Param] = &[
    choice("chip", "TPU", V4P_FIRST),
    param("params", "parameters", 2e11, 1e9, 1e12, Scale::Log),
    param("chips", "chips", 32.0, 4.0, 256.0, Scale::Pow2),
];
const P_Q3: &[Param] = &[choice("chip", "TPU", V6E_FIRST)];
const P_Q4: &[Param] = &[
    choice("chip", "TPU", V5E_FIRST),
    param("D", "D", 4096.0, 1024.0, 16384.0, Scale::Pow2),
    param("F", "F", 16384.0, 4096.0, 65536.0, Scale::Pow2),
];
const P_Q5A: &[Param] = &[param("side", "slice side", 4.0, 2.0, 8.0, Scale::Int)];
const P_Q5B: &[Param] = &[
    param("side", "slice side", 4.0, 2.0, 8.0, Scale::Int),
    param("B", "batch", 8.0, 1.0, 64.0, Scale::Pow2),
    param("D", "model dimension", 8192.0, 1024.0, 16384.0, Scale::Pow2),
];
const P_Q6: &[Param] = &[param("bytes", "bytes", 16e9, 1e9, 6.4e10, Scale::Log)];
const P_Q6D: &[Param] = &[param("B", "batch", 8.0, 1.0, 256.0, Scale::Pow2)];

/// The v5e 4×4 slice of Q6 and the bytes to move.
fn q6(p: &[Param]) -> Result<(&'static Chip, Slice, Bytes), String> {
    let v5e = chip("v5e").ok_or("no v5e")?;
    let s = Slice::new(v5e, &[4, 4]).map_err(tpu_err)?;
    Ok((v5e, s, Bytes(value(p, "bytes"))))
}

const Q6_N: f64 = 128.0 * 1024.0;

fn q6_op(b: f64) -> Op {
    Op::Matmul {
        b,
        d: Q6_N,
        f: Q6_N,
        act: Dtype::Bf16,
        weight: Dtype::Int8,
    }
}

fn q6_prompt(p: &[Param], what: &str) -> String {
    format!(
        "An int8 weight matrix of about {} bytes is spread over the host DRAM of a TPU v5e 4×4 slice (2 hosts, one PCIe link per chip). {what}",
        sci(value(p, "bytes"), 2)
    )
}

fn pod_def(
    id: &'static str,
    params: &'static [Param],
    prompt: fn(&[Param]) -> String,
    solve: fn(&[Param]) -> Result<Solution, String>,
    hint: &'static [&'static str],
) -> Def {
    Def {
        id,
        chapter: 2,
        kind: Kind::Question,
        params,
        prompt,
        solve,
        hints: hint,
        correction: None,
        book_gave_answer: true,
    }
}

fn hosts(p: &[Param]) -> Result<Solution, String> {
    let (_, s) = pod(p)?;
    Ok(Solution::numeric(s.hosts() as f64, "hosts")
        .step(format!(
            "chips = {}; chips per host = {}",
            n(s.chips() as f64),
            s.chips_per_host()
        ))
        .step(format!("hosts = {}", n(s.hosts() as f64)))
        .count("chips per host", s.chips_per_host() as f64))
}

fn cores(p: &[Param]) -> Result<Solution, String> {
    let (c, s) = pod(p)?;
    let per = cores_per_chip(c).unwrap_or(1);
    Ok(Solution::numeric(s.cores() as f64, "cores")
        .step(format!(
            "{} chips × {per} TensorCore(s) per chip = {}",
            n(s.chips() as f64),
            n(s.cores() as f64)
        ))
        .count("cores per chip", per as f64))
}

fn pod_flops(p: &[Param]) -> Result<Solution, String> {
    let (c, s) = pod(p)?;
    let total = s.peak(Dtype::Bf16).ok_or("no bf16 peak")?;
    Ok(Solution::numeric(total.0, "FLOPs/s")
        .step(format!(
            "{} chips × {} FLOPs/s",
            n(s.chips() as f64),
            sci(peak(c, Dtype::Bf16)?.0, 3)
        ))
        .step(format!("= {} FLOPs/s", sci(total.0, 3)))
        .count("chips", s.chips() as f64))
}

fn pod_hbm(p: &[Param]) -> Result<Solution, String> {
    let (_, s) = pod(p)?;
    let total = s.hbm();
    Ok(Solution::numeric(total.0, "TB")
        .step(format!("{} chips × HBM per chip", n(s.chips() as f64)))
        .step(format!("= {} bytes", sci(total.0, 3)))
        .count("chips", s.chips() as f64))
}

/// Part 2's exercises.
pub(super) fn defs() -> Vec<Def> {
    vec![
        Def {
            id: "ch2-ex1",
            chapter: 2,
            kind: Kind::WorkedExample,
            params: P_V5E,
            prompt: |p| {
                format!(
                    "An MXU of a {} does one bf16 [8, 128] × [128, 128] matmul every 8 cycles at the chip's clock. How many FLOPs/s does the whole chip reach with all its MXUs?",
                    name(p)
                )
            },
            solve: |p| {
                let c = chip_param(p, "chip")?;
                let core = core_of(c)?;
                let one = mxu_rate(core).ok_or("no MXU rate")?;
                let per_core = core_mxu_rate(core).ok_or("no MXU count")?;
                let cores = cores_per_chip(c).ok_or("no core count")? as f64;
                let total = per_core.0 * cores;
                let mxus = (per_core / one).round() * cores;
                Ok(Solution::numeric(total, "FLOPs/s")
                    .step("one MXU: 2 × 8 × 128 × 128 FLOPs per 8 cycles = 2 × 128² FLOPs per cycle")
                    .step(format!("× clock = {} FLOPs/s per MXU", sci(one.0, 3)))
                    .step(format!("× {mxus} MXUs per chip = {} FLOPs/s", sci(total, 3)))
                    .count("MXUs", mxus))
            },
            hints: &["FLOPs of one small matmul, divided by the cycles it takes, times the clock, times the MXUs."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch2-ex2",
            chapter: 2,
            kind: Kind::WorkedExample,
            params: P_V5P,
            prompt: |p| pod_prompt(p, "what is its total bf16 peak in FLOPs/s?"),
            // The worked example rounds to one significant digit (4e18).
            solve: |p| pod_flops(p),
            hints: &["Multiply the chip count by the per-chip peak."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch2-ex3",
            chapter: 2,
            kind: Kind::WorkedExample,
            params: P_V5E,
            prompt: |p| {
                format!(
                    "VMEM feeds the MXUs of a {} at about 22 times the HBM bandwidth. What arithmetic intensity does a bf16 matmul need to keep the MXUs busy from VMEM?",
                    name(p)
                )
            },
            solve: |p| {
                let c = chip_param(p, "chip")?;
                let w = vmem_bandwidth(c);
                let r = peak(c, Dtype::Bf16)? / w;
                Ok(Solution::numeric(r.0, "FLOPs/byte")
                    .step(format!("W_vmem = 22 × {} = {} B/s", sci(c.hbm_bw().0, 3), sci(w.0, 3)))
                    .step(format!("C / W_vmem = {} FLOPs/byte (the HBM ridge / 22)", sci(r.0, 3))))
            },
            hints: &["The ridge point scales inversely with the bandwidth."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch2-ex4",
            chapter: 2,
            kind: Kind::WorkedExample,
            params: P_V5P,
            prompt: |p| {
                format!(
                    "A {} TensorCore has vector registers of 8 × 128 32-bit values each. How much memory do all its VREGs hold together?",
                    name(p)
                )
            },
            solve: |p| {
                let c = chip_param(p, "chip")?;
                let core = core_of(c)?;
                let b = vreg_bytes(core).ok_or("no VREG count")?;
                let regs = core.vregs.map_or(f64::NAN, |v| v.value as f64);
                Ok(Solution::numeric(b.0, "KiB")
                    .step(format!("{regs} VREGs × 8 × 128 values × 4 bytes"))
                    .step(format!("= {} bytes = {} KiB", n(b.0), n(b.0 / 1024.0)))
                    .count("VREGs", regs))
            },
            hints: &["Registers × values per register × bytes per 32-bit value."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch2-q1",
            chapter: 2,
            kind: Kind::Question,
            params: P_Q1,
            prompt: |p| {
                format!(
                    "A model of {} bf16 parameters is sharded over {} {} chips. What is the least time needed to read every weight from HBM once (a floor on the latency of one sampling step)?",
                    sci(value(p, "params"), 2),
                    n(value(p, "chips")),
                    name(p)
                )
            },
            solve: |p| {
                let c = chip_param(p, "chip")?;
                let (params, chips) = (value(p, "params"), value(p, "chips"));
                let bytes = Dtype::Bf16.size_of(params);
                let t = weight_load_time(bytes, whole(chips).unwrap_or(0), c).map_err(tpu_err)?;
                let int8 = weight_load_time(Dtype::Int8.size_of(params), whole(chips).unwrap_or(0), c).map_err(tpu_err)?;
                Ok(Solution::numeric(t.0, "ms")
                    .step(format!("bytes = 2 × {} = {}", sci(params, 3), sci(bytes.0, 3)))
                    .step(format!("T = bytes / (chips × W_hbm) = {} / ({} × {})", sci(bytes.0, 3), n(chips), sci(c.hbm_bw().0, 3)))
                    .step(format!("= {}", seconds(t.0)))
                    .perturb(int8.0, "You counted one byte per parameter; bf16 takes two.")
                    .count("chips", chips))
            },
            hints: &["Every chip streams its share of the weights in parallel from its own HBM."],
            correction: None,
            book_gave_answer: true,
        },
        pod_def("ch2-q2a", P_V5E, |p| pod_prompt(p, "how many CPU hosts does it have?"), hosts, &["Divide the chips by the chips attached to one host."]),
        pod_def("ch2-q2b", P_V5E, |p| pod_prompt(p, "how many TensorCores does it have?"), cores, &["Multiply the chips by the TensorCores per chip."]),
        pod_def("ch2-q2c", P_V5E, |p| pod_prompt(p, "what is its total bf16 peak in FLOPs/s?"), pod_flops, &["Multiply the chip count by the per-chip peak."]),
        pod_def("ch2-q2d", P_V5E, |p| pod_prompt(p, "how much HBM does it have in total?"), pod_hbm, &["Multiply the chip count by the HBM per chip."]),
        pod_def("ch2-q2e", P_V5P, |p| pod_prompt(p, "how many CPU hosts does it have?"), hosts, &["Divide the chips by the chips attached to one host."]),
        pod_def("ch2-q2f", P_V5P, |p| pod_prompt(p, "how many TensorCores does it have?"), cores, &["Multiply the chips by the TensorCores per chip."]),
        pod_def("ch2-q2g", P_V5P, |p| pod_prompt(p, "what is its total bf16 peak in FLOPs/s?"), pod_flops, &["Multiply the chip count by the per-chip peak."]),
        pod_def("ch2-q2h", P_V5P, |p| pod_prompt(p, "how much HBM does it have in total?"), pod_hbm, &["Multiply the chip count by the HBM per chip."]),
        Def {
            id: "ch2-q3",
            chapter: 2,
            kind: Kind::Question,
            params: P_Q3,
            prompt: |p| {
                let w = chip("v5e").and_then(|c| c.bandwidth(Link::Pcie)).map_or(f64::NAN, |w| w.0);
                format!(
                    "A bf16 weight matrix [D, 4D] and bf16 activations [B, D] sit in host memory; one {} streams both over PCIe at {} B/s for every matmul. With B ≪ D, what is the smallest B that keeps it compute-bound?",
                    name(p),
                    sci(w, 2)
                )
            },
            solve: |p| {
                let c = chip_param(p, "chip")?;
                // The question's generic per-TPU PCIe figure (the registry's v5e entry).
                let w = chip("v5e").and_then(|c| c.bandwidth(Link::Pcie)).ok_or("no PCIe figure")?;
                let r = peak(c, Dtype::Bf16)? / w;
                let mut s = Solution::numeric(r.0, "tokens")
                    .step("intensity ≈ 2BDF / 2DF = B when B ≪ D")
                    .step(format!("B > C / W_pcie = {} / {}", sci(peak(c, Dtype::Bf16)?.0, 3), sci(w.0, 3)))
                    .step(format!("= {}", sci(r.0, 3)));
                if let Some(own) = c.ridge(Dtype::Bf16, Link::Pcie) {
                    if (own.0 / r.0 - 1.0).abs() > 0.05 {
                        s = s.perturb(own.0, "You used this chip's own PCIe figure; the question fixes the PCIe bandwidth.");
                    }
                }
                Ok(s)
            },
            hints: &["Over PCIe the weights dominate the bytes, so the intensity is about B."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch2-q4a",
            chapter: 2,
            kind: Kind::Question,
            params: P_Q4,
            prompt: |p| {
                format!(
                    "int8[B, {}] × int8[{}, {}] runs on one {} from HBM at its int8 peak. Above what batch size B is it compute-bound?",
                    n(value(p, "D")),
                    n(value(p, "D")),
                    n(value(p, "F")),
                    name(p)
                )
            },
            solve: |p| {
                let c = chip_param(p, "chip")?;
                let op = Op::Matmul { b: 1.0, d: value(p, "D"), f: value(p, "F"), act: Dtype::Int8, weight: Dtype::Int8 };
                let r = ridge(c, Dtype::Int8, Link::Hbm)?;
                let b = op.critical_batch(r).ok_or("never compute-bound")?;
                Ok(Solution::numeric(b, "tokens")
                    .step("T_math = 2BDF / C_int8; T_hbm = (BD + DF + BF) / W_hbm")
                    .step(format!("equal when B = R·DF / (2DF − R(D + F)), R = {}", sci(r.0, 3)))
                    .step(format!("B ≈ {}", sci(b, 3))))
            },
            hints: &["Set T_math equal to T_comms and solve for B, keeping all three byte terms."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch2-q4b",
            chapter: 2,
            kind: Kind::Question,
            params: P_Q4,
            prompt: |p| {
                format!(
                    "Same int8 matmul with D = {} and F = {}, but the operands come from VMEM at 22 times the HBM bandwidth of a {}. Above what batch size is it compute-bound?",
                    n(value(p, "D")),
                    n(value(p, "F")),
                    name(p)
                )
            },
            solve: |p| {
                let c = chip_param(p, "chip")?;
                let op = Op::Matmul { b: 1.0, d: value(p, "D"), f: value(p, "F"), act: Dtype::Int8, weight: Dtype::Int8 };
                let r = peak(c, Dtype::Int8)? / vmem_bandwidth(c);
                let b = op.critical_batch(r).ok_or("never compute-bound")?;
                Ok(Solution::numeric(b, "tokens")
                    .step(format!("VMEM ridge = C_int8 / (22 W_hbm) = {}", sci(r.0, 3)))
                    .step(format!("B ≈ {}", sci(b, 3))))
            },
            hints: &["Same calculation as from HBM, with a 22× larger bandwidth."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch2-q5a",
            chapter: 2,
            kind: Kind::Question,
            params: P_Q5A,
            prompt: |p| {
                let k = value(p, "side");
                format!(
                    "On a TPU v5e {k}×{k} slice (no wraparound) with about 1 µs per ICI hop, when does the first byte sent from chip (0, 0) reach chip ({}, {})?",
                    k - 1.0,
                    k - 1.0
                )
            },
            solve: |p| {
                let k = whole::<u32>(value(p, "side")).unwrap_or(0);
                let s = Slice::new(chip("v5e").ok_or("no v5e")?, &[k, k]).map_err(tpu_err)?;
                let far = [k - 1, k - 1, 0];
                let hops = s.hops([0, 0, 0], far).map_err(tpu_err)?;
                let t = s.first_byte([0, 0, 0], far).map_err(tpu_err)?;
                Ok(Solution::numeric(t.0, "µs")
                    .step(format!("hops = {} + {} = {hops}", k - 1, k - 1))
                    .step(format!("latency = {hops} hops × 1 µs = {}", seconds(t.0))))
            },
            hints: &["Count the hops along each axis; without wraparound there is no shortcut."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch2-q5b",
            chapter: 2,
            kind: Kind::Question,
            params: P_Q5B,
            prompt: |p| {
                let k = value(p, "side");
                format!(
                    "On the same v5e {k}×{k} slice, chip (0, 0) sends bf16[{}, 128, {}] to chip ({}, {}) using both of its outgoing links. How long does the data take to stream (ignoring hop latency)?",
                    n(value(p, "B")),
                    n(value(p, "D")),
                    k - 1.0,
                    k - 1.0
                )
            },
            solve: |p| {
                let k = whole::<u32>(value(p, "side")).unwrap_or(0);
                let s = Slice::new(chip("v5e").ok_or("no v5e")?, &[k, k]).map_err(tpu_err)?;
                let bytes = Dtype::Bf16.size_of(value(p, "B") * 128.0 * value(p, "D"));
                let t = s.send([0, 0, 0], [k - 1, k - 1, 0], bytes).map_err(tpu_err)?;
                Ok(Solution::numeric(t.streaming.0, "µs")
                    .step(format!("bytes = 2 × {} × 128 × {} = {}", n(value(p, "B")), n(value(p, "D")), sci(bytes.0, 3)))
                    .step(format!("T = bytes / (2 links × one-way W) = {}", seconds(t.streaming.0)))
                    .step(format!("the last byte lands {} later, after the hop latency", seconds(t.first_byte.0)))
                    .perturb(t.total.0, "That includes the hop latency; the question asks for the streaming time only.")
                    .two("did you use only one outgoing link, or the bidirectional bandwidth per link?"))
            },
            hints: &["Two outgoing links, each at the one-way ICI bandwidth."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch2-q6a",
            chapter: 2,
            kind: Kind::Question,
            params: P_Q6,
            prompt: |p| q6_prompt(p, "How long does it take to load every shard into HBM over PCIe?"),
            solve: |p| {
                let (_, s, total) = q6(p)?;
                let t = s.load_from_hosts(total).map_err(tpu_err)?;
                Ok(Solution::numeric(t.0, "ms")
                    .step(format!("{} chips, each with its own PCIe link, load 1/{} of the bytes", s.chips(), s.chips()))
                    .step(format!("T = {} / ({} × W_pcie) = {}", sci(total.0, 3), s.chips(), seconds(t.0)))
                    .count("PCIe links", s.chips() as f64))
            },
            hints: hint_q6(),
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch2-q6b",
            chapter: 2,
            kind: Kind::Question,
            params: P_Q6,
            prompt: |p| q6_prompt(p, "All shards are then gathered onto chip (0, 0) over ICI. What is a lower bound on the time?"),
            solve: |p| {
                let (_, s, total) = q6(p)?;
                let t = s.gather_onto([0, 0, 0], total).map_err(tpu_err)?;
                Ok(Solution::numeric(t.0, "ms")
                    .step("chip (0, 0) already holds 1/16; it receives the other 15/16")
                    .step("over its 2 incoming links at the one-way ICI bandwidth each")
                    .step(format!("T = {}", seconds(t.0)))
                    .two("did you use one link instead of two, or the bidirectional bandwidth?"))
            },
            hints: hint_q6(),
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch2-q6c",
            chapter: 2,
            kind: Kind::Question,
            params: P_Q6,
            prompt: |p| q6_prompt(p, "Once on chip (0, 0), how long does streaming all of it from HBM into the MXUs take?"),
            solve: |p| {
                let (c, _, total) = q6(p)?;
                let t = total / c.hbm_bw();
                Ok(Solution::numeric(t.0, "ms")
                    .step(format!("T = {} / {} B/s = {}", sci(total.0, 3), sci(c.hbm_bw().0, 3), seconds(t.0))))
            },
            hints: hint_q6(),
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch2-q6d",
            chapter: 2,
            kind: Kind::Question,
            params: P_Q6D,
            prompt: |p| {
                format!(
                    "How long does the MXU need for bf16[{}, 131072] × int8[131072, 131072] on one TPU v5e (computing in bf16)?",
                    n(value(p, "B"))
                )
            },
            solve: |p| {
                let v5e = chip("v5e").ok_or("no v5e")?;
                let op = q6_op(value(p, "B"));
                let rate = peak(v5e, op.compute_dtype())?;
                let t = op.flops() / rate;
                Ok(Solution::numeric(t.0, "ms")
                    .step(format!("FLOPs = 2 × {} × 131072² = {}", n(value(p, "B")), sci(op.flops().0, 3)))
                    .step(format!("T = FLOPs / {} = {}", sci(rate.0, 3), seconds(t.0)))
                    .two("did you count a multiply-add as one FLOP, or use the int8 rate?"))
            },
            hints: &["T_math = 2BDF / C, at the bf16 rate since the activations are bf16."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch2-q6e",
            chapter: 2,
            kind: Kind::Question,
            params: P_Q6,
            prompt: |p| q6_prompt(p, "If PCIe loading, the ICI gather, HBM streaming and the bf16[8, 131072] matmul all overlap perfectly, what is the lower bound on the whole pipeline?"),
            solve: |p| {
                let (c, s, total) = q6(p)?;
                let op = q6_op(8.0);
                let a = which_link_binds(
                    c,
                    op.compute_dtype(),
                    Flops(op.flops().0),
                    &[
                        LinkLoad { link: Link::Pcie, bytes: total, lanes: u32::try_from(s.chips()).map_err(|e| e.to_string())?, one_way: false },
                        LinkLoad { link: Link::Ici, bytes: total * (15.0 / 16.0), lanes: 2, one_way: true },
                        LinkLoad::new(Link::Hbm, total),
                    ],
                )
                .map_err(tpu_err)?;
                let binding = a.binding.map_or("compute", |l| l.name());
                Ok(Solution::numeric(a.lower.0, "ms")
                    .step("overlapped, the slowest stage sets the time")
                    .step(format!("the slowest stage is {binding}: {}", seconds(a.lower.0)))
                    .perturb(a.upper.0, "That is the sum of all stages; with perfect overlap only the slowest one counts."))
            },
            hints: hint_q6(),
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch2-pq1a",
            chapter: 2,
            kind: Kind::PopQuiz,
            params: P_V5P,
            prompt: |p| {
                format!(
                    "The VPU of a {} TensorCore is 8 × 128 lanes, each issuing several vector FLOPs per cycle. How many vector FLOPs/s does one core reach?",
                    name(p)
                )
            },
            solve: |p| {
                let c = chip_param(p, "chip")?;
                let core = core_of(c)?;
                let v = vpu_rate(core).ok_or("no VPU data")?;
                let alus = core.vpu_alus.map_or(f64::NAN, |a| a.value as f64);
                let clock = core.clock_hz.map_or(f64::NAN, |c| c.value);
                Ok(Solution::numeric(v.0, "FLOPs/s")
                    .step(format!("8 × 128 lanes × {alus} ALUs × {} Hz", sci(clock, 3)))
                    .step(format!("= {} FLOPs/s", sci(v.0, 3))))
            },
            hints: &["Lanes × operations per lane per cycle × clock rate."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch2-pq1b",
            chapter: 2,
            kind: Kind::PopQuiz,
            params: P_V5P,
            prompt: |p| {
                format!(
                    "How many times more FLOPs/s does one {} TensorCore's MXUs deliver than its VPU?",
                    name(p)
                )
            },
            solve: |p| {
                let c = chip_param(p, "chip")?;
                let core = core_of(c)?;
                let v = vpu_rate(core).ok_or("no VPU data")?;
                let per_core = peak(c, Dtype::Bf16)?.0 / cores_per_chip(c).ok_or("no core count")? as f64;
                let r = per_core / v.0;
                Ok(Solution::numeric(r, "x")
                    .step(format!("MXU per core = {} FLOPs/s; VPU = {} FLOPs/s", sci(per_core, 3), sci(v.0, 3)))
                    .step(format!("ratio ≈ {}", sci(r, 3))))
            },
            hints: &["Per-core MXU peak divided by the VPU rate."],
            correction: None,
            book_gave_answer: true,
        },
    ]
}

fn hint_q6() -> &'static [&'static str] {
    &["Each stage is bytes divided by the bandwidth of the links carrying them in parallel."]
}

#[cfg(test)]
mod tests {
    #[test]
    fn all_solve() {
        for d in super::defs() {
            assert!(
                (d.solve)(d.params).is_ok(),
                "{}: {:?}",
                d.id,
                (d.solve)(d.params).err()
            );
        }
    }
}
