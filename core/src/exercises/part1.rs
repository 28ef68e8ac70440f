//! Part 1 (rooflines): the exercises of `ch1-*`, computed as in `golden_ch1.rs`.

use super::def::{choice, chosen, n, param, value, Answer, Def, Kind, Param, Scale, Solution};
use super::grade::Precision;
use super::kit::{bdf, chip_param, peak, reference, ridge};
use crate::dtype::Dtype;
use crate::format::{sci, seconds};
use crate::hardware::Link;
use crate::roofline::ops::{tokens_per_device, Op};
use crate::roofline::SplitContraction;
use crate::units::Flops;

fn at(x: &[f64], i: usize) -> f64 {
    x.get(i).copied().unwrap_or(f64::NAN)
}

const H100_FIRST: &[&str] = &["h100", "a100", "h200", "b200", "v5e", "v5p", "v6e"];
const V6E_FIRST: &[&str] = &["v6e", "v5e", "v5p", "v4p", "h100", "b200"];
const V5E_FIRST: &[&str] = &["v5e", "v5p", "v6e", "v4p", "h100", "a100", "b200"];
const TPU_V5E_FIRST: &[&str] = &["v5e", "v5p", "v6e", "v4p"];
const V5P_FIRST: &[&str] = &["v5p", "v5e", "v4p", "v6e"];
const GPUS: &[&str] = &["h100", "a100", "h200", "b200"];
const DTYPES: &[&str] = &["bf16", "f32", "int8", "fp8"];
const INT8_FIRST: &[&str] = &["int8", "bf16", "f32"];

fn dtype_param(p: &[Param], name: &str) -> Result<Dtype, String> {
    let d = chosen(p, name)?;
    Dtype::parse(d).ok_or_else(|| format!("unknown format {d}"))
}

const P_EX1A: &[Param] = &[
    choice("chip", "accelerator", H100_FIRST),
    param("flops", "FLOPs", 1e12, 1e9, 1e16, Scale::Log),
];
const P_EX1B: &[Param] = &[
    choice("chip", "accelerator", V6E_FIRST),
    param("flops", "FLOPs", 1e12, 1e9, 1e16, Scale::Log),
];
const P_CHIP_V5E: &[Param] = &[choice("chip", "accelerator", V5E_FIRST)];
const P_TPU_V5E: &[Param] = &[choice("chip", "TPU", TPU_V5E_FIRST)];
const P_DOT: &[Param] = &[choice("dtype", "number format", DTYPES)];
const P_VPU: &[Param] = &[choice("chip", "TPU", V5P_FIRST)];
const P_EX6: &[Param] = &[
    param("seqs", "sequences", 512.0, 16.0, 4096.0, Scale::Pow2),
    param(
        "len",
        "sequence length",
        4096.0,
        512.0,
        32768.0,
        Scale::Pow2,
    ),
    param("devices", "devices", 2048.0, 8.0, 8192.0, Scale::Pow2),
];
const P_Q3: &[Param] = &[
    choice("chip", "TPU", TPU_V5E_FIRST),
    param("big", "larger D = F", 4096.0, 2048.0, 16384.0, Scale::Pow2),
    param("small", "smaller D = F", 1024.0, 512.0, 1024.0, Scale::Pow2),
];
const P_Q4: &[Param] = &[
    choice("dtype", "number format", INT8_FIRST),
    param("B", "batch", 1024.0, 1.0, 4096.0, Scale::Pow2),
    param("D", "D", 4096.0, 256.0, 16384.0, Scale::Pow2),
    param("F", "F", 4096.0, 256.0, 16384.0, Scale::Pow2),
];
const P_GPU: &[Param] = &[choice("chip", "GPU", GPUS)];

fn time_of_flops(p: &[Param]) -> Result<Solution, String> {
    let c = chip_param(p, "chip")?;
    let rate = peak(c, Dtype::Bf16)?;
    let f = value(p, "flops");
    let t = Flops(f) / rate;
    Ok(Solution::numeric(t.0, "ms")
        .step(format!(
            "T_math = FLOPs / C = {} FLOPs / {} FLOPs/s ({} bf16 peak)",
            n(f),
            sci(rate.0, 3),
            c.name
        ))
        .step(format!("= {}", seconds(t.0)))
        .two("did you count a multiply-add as one FLOP instead of two, or use a 2:4-sparse peak?"))
}

fn time_prompt(p: &[Param]) -> String {
    let name = chip_param(p, "chip").map_or("chip", |c| c.name);
    format!(
        "Ignoring memory traffic, how long does one {name} need to perform {} bf16 FLOPs at its peak rate?",
        n(value(p, "flops"))
    )
}

fn chip_name(p: &[Param]) -> &'static str {
    chip_param(p, "chip").map_or("chip", |c| c.name)
}

/// Part 1's exercises.
pub(super) fn defs() -> Vec<Def> {
    vec![
        Def {
            id: "ch1-ex1a",
            chapter: 1,
            kind: Kind::WorkedExample,
            params: P_EX1A,
            prompt: time_prompt,
            solve: time_of_flops,
            hints: &["Time is work divided by rate: T = FLOPs / (FLOPs per second)."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch1-ex1b",
            chapter: 1,
            kind: Kind::WorkedExample,
            params: P_EX1B,
            prompt: time_prompt,
            solve: time_of_flops,
            hints: &["Time is work divided by rate: T = FLOPs / (FLOPs per second)."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch1-ex2",
            chapter: 1,
            kind: Kind::WorkedExample,
            params: P_CHIP_V5E,
            prompt: |p| {
                format!(
                    "What arithmetic intensity must a bf16 kernel reach on one {} to be compute-bound rather than limited by HBM bandwidth?",
                    chip_name(p)
                )
            },
            solve: |p| {
                let c = chip_param(p, "chip")?;
                let r = ridge(c, Dtype::Bf16, Link::Hbm)?;
                let mut s = Solution::numeric(r.0, "FLOPs/byte")
                    .step(format!(
                        "Critical intensity = C / W_hbm = {} FLOPs/s / {} B/s",
                        sci(peak(c, Dtype::Bf16)?.0, 3),
                        sci(c.hbm_bw().0, 3)
                    ))
                    .step(format!("= {} FLOPs/byte", sci(r.0, 3)));
                if let Some(i8r) = c.ridge(Dtype::Int8, Link::Hbm) {
                    if (i8r.0 / r.0 - 1.0).abs() > 0.05 {
                        s = s.perturb(i8r.0, "That is the int8 ridge: the question is about the bf16 peak.");
                    }
                }
                Ok(s)
            },
            hints: &["The critical (ridge) intensity is peak FLOPs/s divided by memory bandwidth in bytes/s."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch1-ex3",
            chapter: 1,
            kind: Kind::WorkedExample,
            params: P_DOT,
            prompt: |p| {
                format!(
                    "Two {} vectors of length N are read from memory and their dot product (one value) is written back. What arithmetic intensity does this approach as N grows without bound?",
                    chosen(p, "dtype").unwrap_or("bf16")
                )
            },
            solve: |p| {
                let dtype = dtype_param(p, "dtype")?;
                let op = Op::Dot { n: 1e12, dtype };
                let i = op.asymptotic_intensity();
                Ok(Solution::numeric(i.0, "FLOPs/byte")
                    .step(format!(
                        "FLOPs: N multiplies + (N − 1) adds ≈ 2N; bytes: 2 vectors × N × {} B",
                        dtype.bytes()
                    ))
                    .step(format!("intensity → 2N / ({}N) = {}", 2.0 * dtype.bytes(), sci(i.0, 3)))
                    .two("did you count only the N multiplies and not the N − 1 adds, or one vector instead of two?"))
            },
            hints: &["Count FLOPs (a multiply and an add per element) and bytes read for both vectors; the single output is negligible."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch1-ex4",
            chapter: 1,
            kind: Kind::WorkedExample,
            params: P_VPU,
            prompt: |p| {
                let c = chip_param(p, "chip");
                let vpu = c
                    .ok()
                    .and_then(|c| crate::hardware::tensor_core(c.id))
                    .and_then(crate::hardware::tpu::vpu_rate)
                    .map_or("?".into(), |r| sci(r.0, 2));
                format!(
                    "The vector unit (VPU) of one {} TensorCore does about {vpu} FLOPs/s. Reading operands from HBM, what arithmetic intensity does a vector operation need to keep the VPU busy?",
                    chip_name(p)
                )
            },
            solve: |p| {
                let c = chip_param(p, "chip")?;
                let core = crate::hardware::tensor_core(c.id)
                    .ok_or_else(|| format!("no TensorCore data for {}", c.name))?;
                let vpu = crate::hardware::tpu::vpu_rate(core)
                    .ok_or_else(|| format!("no VPU rate for {}", c.name))?;
                let i = vpu / c.hbm_bw();
                Ok(Solution::numeric(i.0, "FLOPs/byte")
                    .step(format!(
                        "VPU ridge = C_vpu / W_hbm = {} / {} B/s",
                        sci(vpu.0, 3),
                        sci(c.hbm_bw().0, 3)
                    ))
                    .step(format!("≈ {} FLOPs/byte", sci(i.0, 2))))
            },
            hints: &["Same as the MXU ridge, with the VPU's FLOPs/s in place of the MXU's."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch1-ex5",
            chapter: 1,
            kind: Kind::WorkedExample,
            params: P_TPU_V5E,
            prompt: |p| {
                format!(
                    "X[B, D] and Y[D, F] (bf16) are both split in half along D over two {} chips. Each chip multiplies its halves and sends its bf16 partial sums (2BF bytes) to the other over one ICI link in one direction. Above what D is this compute-bound?",
                    chip_name(p)
                )
            },
            solve: |p| {
                let c = chip_param(p, "chip")?;
                let spec = c.link(Link::Ici).ok_or("no ICI link")?;
                let one_way = spec.one_way.ok_or("no one-way ICI figure")?;
                let rate = peak(c, Dtype::Bf16)?;
                let d = SplitContraction::critical_d(rate, one_way);
                let both = SplitContraction::critical_d(rate, spec.bandwidth);
                Ok(Solution::numeric(d, "")
                    .step("Each chip: B·D·F FLOPs (half of 2BDF), and 2BF bytes sent".to_string())
                    .step(format!(
                        "compute-bound when B·D·F / C > 2BF / W, i.e. D > 2C / W = 2 × {} / {}",
                        sci(rate.0, 3),
                        sci(one_way.0, 3)
                    ))
                    .step(format!("D > {}", sci(d, 4)))
                    .perturb(both, "You used the bidirectional ICI bandwidth; the partial sums go one way over one link.")
                    .two("did you use the bidirectional link bandwidth, or forget that bf16 partial sums take 2 bytes?"))
            },
            hints: &["Per chip the math is halved (B·D·F FLOPs); the communication is the 2BF bytes of partial sums."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch1-ex6",
            chapter: 1,
            kind: Kind::WorkedExample,
            params: P_EX6,
            prompt: |p| {
                format!(
                    "A batch of {} sequences of {} tokens each is spread evenly over {} devices. How many tokens does each device hold?",
                    n(value(p, "seqs")),
                    n(value(p, "len")),
                    n(value(p, "devices"))
                )
            },
            solve: |p| {
                let (s, l, d) = (value(p, "seqs"), value(p, "len"), value(p, "devices"));
                let t = tokens_per_device(s, l, d);
                // A per-device batch is an exact count.
                Ok(Solution::numeric(t, "tokens")
                    .precision(Precision::Exact)
                    .step(format!("tokens = {} × {} = {}", n(s), n(l), n(s * l)))
                    .step(format!("per device = {} / {} = {}", n(s * l), n(d), n(t)))
                    .count("devices", d))
            },
            hints: &["Total tokens are sequences × length; divide by the number of devices."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch1-q1a",
            chapter: 1,
            kind: Kind::Question,
            params: &[],
            prompt: |_| {
                "An int8 matmul X[B, D] · Y[D, F] → Z[B, F] stores one byte per value. As a formula in B, D and F, how many bytes move between HBM and the chip in total (both inputs read, the output written)?".into()
            },
            solve: |_| {
                let op = |x: &[f64]| Op::Matmul {
                    b: at(x, 0),
                    d: at(x, 1),
                    f: at(x, 2),
                    act: Dtype::Int8,
                    weight: Dtype::Int8,
                };
                Ok(Solution::new(Answer::Symbolic {
                    expr: "B*D + D*F + B*F".into(),
                    vars: bdf(),
                    reference: reference(move |x| op(x).hbm_bytes().0),
                })
                .step("read X: B·D bytes; read Y: D·F bytes; write Z: B·F bytes")
                .step("total = BD + DF + BF")
                .two("did you count two bytes per value? int8 takes one."))
            },
            hints: &["Count the elements of each array; each int8 element is one byte."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch1-q1b",
            chapter: 1,
            kind: Kind::Question,
            params: &[],
            prompt: |_| {
                "How many operations does the matmul X[B, D] · Y[D, F] → Z[B, F] perform? Give a formula in B, D and F.".into()
            },
            solve: |_| {
                Ok(Solution::new(Answer::Symbolic {
                    expr: "2*B*D*F".into(),
                    vars: bdf(),
                    reference: reference(|x| {
                        Op::Matmul {
                            b: at(x, 0),
                            d: at(x, 1),
                            f: at(x, 2),
                            act: Dtype::Int8,
                            weight: Dtype::Int8,
                        }
                        .flops()
                        .0
                    }),
                })
                .step("each of the B·F outputs is a length-D dot product: D multiplies and D adds")
                .step("total = 2·B·D·F")
                .two("did you count a multiply-add as one operation? It is two."))
            },
            hints: &["Each output element is a dot product of length D."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch1-q1c",
            chapter: 1,
            kind: Kind::Question,
            params: P_TPU_V5E,
            prompt: |p| {
                format!(
                    "The int8 matmul X[B, D] · Y[D, F] runs on a {} at its int8 peak, reading from HBM. With B much smaller than D and F, above what batch size B is it compute-bound?",
                    chip_name(p)
                )
            },
            solve: |p| {
                let c = chip_param(p, "chip")?;
                let op = Op::Matmul { b: 1.0, d: 1e9, f: 1e9, act: Dtype::Int8, weight: Dtype::Int8 };
                let r = ridge(c, Dtype::Int8, Link::Hbm)?;
                let b = op.critical_batch(r).ok_or("never compute-bound")?;
                let mut s = Solution::numeric(b, "tokens")
                    .step("intensity = 2BDF / (BD + DF + BF) ≈ 2B when B ≪ D, F (one byte per value)")
                    .step(format!(
                        "compute-bound when 2B > C_int8 / W_hbm = {} / {} = {}",
                        sci(peak(c, Dtype::Int8)?.0, 3),
                        sci(c.hbm_bw().0, 3),
                        sci(r.0, 3)
                    ))
                    .step(format!("B > {}", sci(b, 3)));
                if let Ok(rb) = ridge(c, Dtype::Bf16, Link::Hbm) {
                    if let Some(bb) = op.critical_batch(rb) {
                        if (bb / b - 1.0).abs() > 0.05 {
                            s = s.perturb(bb, "You used the bf16 peak; the int8 matmul runs at the int8 rate.");
                        }
                    }
                }
                Ok(s.two("with one byte per value the intensity is 2B, not B: did you divide by 2 bytes?"))
            },
            hints: &["For B ≪ D, F the bytes are dominated by the weights (DF), so the intensity is about 2B."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch1-q1d",
            chapter: 1,
            kind: Kind::Question,
            params: P_TPU_V5E,
            prompt: |p| {
                format!(
                    "Write T_math, the time in seconds the {}'s int8 peak needs for the int8 matmul X[B, D] · Y[D, F], as a formula in B, D and F (use the chip's number).",
                    chip_name(p)
                )
            },
            solve: |p| {
                let c = chip_param(p, "chip")?;
                let rate = peak(c, Dtype::Int8)?;
                Ok(Solution::new(Answer::Symbolic {
                    expr: format!("2*B*D*F/{}", sci(rate.0, 4)),
                    vars: bdf(),
                    reference: reference(move |x| {
                        let op = Op::Matmul {
                            b: at(x, 0),
                            d: at(x, 1),
                            f: at(x, 2),
                            act: Dtype::Int8,
                            weight: Dtype::Int8,
                        };
                        op.analyse(c).map_or(f64::NAN, |a| a.t_math.0)
                    }),
                })
                .step(format!("T_math = FLOPs / C_int8 = 2BDF / {}", sci(rate.0, 4)))
                .step(format!(
                    "T_comms = (BD + DF + BF) / {}; the runtime lies between max(T_math, T_comms) and their sum",
                    sci(c.hbm_bw().0, 3)
                )))
            },
            hints: &["T_math is the FLOP count divided by the int8 peak."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch1-q2",
            chapter: 1,
            kind: Kind::Question,
            params: P_TPU_V5E,
            prompt: |p| {
                format!(
                    "Now the activations are bf16 and the weights int8, and the matmul computes in bf16 on a {}. Above what token batch size is it compute-bound (B ≪ D, F)?",
                    chip_name(p)
                )
            },
            solve: |p| {
                let c = chip_param(p, "chip")?;
                let op = Op::Matmul { b: 1.0, d: 1e9, f: 1e9, act: Dtype::Bf16, weight: Dtype::Int8 };
                let r = ridge(c, op.compute_dtype(), Link::Hbm)?;
                let b = op.critical_batch(r).ok_or("never compute-bound")?;
                let bf16 = Op::Matmul { b: 1.0, d: 1e9, f: 1e9, act: Dtype::Bf16, weight: Dtype::Bf16 }
                    .critical_batch(r)
                    .unwrap_or(f64::NAN);
                Ok(Solution::numeric(b, "tokens")
                    .step("bytes ≈ DF (one byte per int8 weight); FLOPs = 2BDF: intensity ≈ 2B")
                    .step(format!("compute-bound when 2B > C_bf16 / W_hbm = {}", sci(r.0, 3)))
                    .step(format!("B > {}", sci(b, 3)))
                    .perturb(bf16, "You counted the weights as bf16 (2 bytes); they are int8, one byte each.")
                    .two("did you count the int8 weights as 2 bytes each?"))
            },
            hints: &["Weights dominate the bytes; int8 weights halve them compared with bf16."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch1-q3",
            chapter: 1,
            kind: Kind::Question,
            params: P_Q3,
            prompt: |p| {
                format!(
                    "On one {}, compare the critical batch size of a bf16-activation, int8-weight matmul with D = F = {} against D = F = {}, counting bytes exactly (2BD + DF + 2BF). How does the smaller one's compare?\n(a) about the same\n(b) larger, but less than twice\n(c) more than twice as large\n(d) smaller",
                    chip_name(p),
                    n(value(p, "big")),
                    n(value(p, "small"))
                )
            },
            solve: |p| {
                let c = chip_param(p, "chip")?;
                let r = ridge(c, Dtype::Bf16, Link::Hbm)?;
                let crit = |df: f64| {
                    Op::Matmul { b: 1.0, d: df, f: df, act: Dtype::Bf16, weight: Dtype::Int8 }
                        .critical_batch(r)
                };
                let (big, small) = (value(p, "big"), value(p, "small"));
                let (cb, cs) = (crit(big).ok_or("never compute-bound")?, crit(small).ok_or("never compute-bound")?);
                let ratio = cs / cb;
                let correct = if ratio < 0.9 {
                    "d"
                } else if ratio < 1.25 {
                    "a"
                } else if ratio < 2.0 {
                    "b"
                } else {
                    "c"
                };
                let options = vec![
                    ("a", "about the same".to_string()),
                    ("b", "larger, but less than twice".to_string()),
                    ("c", "more than twice as large".to_string()),
                    ("d", "smaller".to_string()),
                ];
                Ok(Solution::new(Answer::Choice { options, correct })
                    .step("B_crit = R·DF / (2DF − 2R(D + F)) with R the bf16 ridge")
                    .step(format!("D = F = {}: B_crit ≈ {}", n(big), sci(cb, 3)))
                    .step(format!("D = F = {}: B_crit ≈ {} ({}× the first); both reach the compute roof eventually", n(small), sci(cs, 3), sci(ratio, 3))))
            },
            hints: &["With exact byte counts the activations' 2B(D + F) bytes matter more when D and F are small."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch1-q4",
            chapter: 1,
            kind: Kind::Question,
            params: P_Q4,
            prompt: |p| {
                let d = chosen(p, "dtype").unwrap_or("int8");
                format!(
                    "Each example has its own weight matrix: {d}[B, D] contracted with {d}[B, D, F] gives {d}[B, F], with B = {}, D = {}, F = {}. What is the arithmetic intensity?",
                    n(value(p, "B")),
                    n(value(p, "D")),
                    n(value(p, "F"))
                )
            },
            solve: |p| {
                let dtype = dtype_param(p, "dtype")?;
                let op = Op::PerExampleMatmul { b: value(p, "B"), d: value(p, "D"), f: value(p, "F"), dtype };
                let i = op.intensity();
                Ok(Solution::numeric(i.0, "FLOPs/byte")
                    .step("FLOPs = 2BDF; bytes ≈ BDF × bytes per value (the weights dominate)")
                    .step(format!("intensity = {} / {} = {}", sci(op.flops().0, 3), sci(op.hbm_bytes().0, 3), sci(i.0, 3)))
                    .two("with one weight per example, each weight byte is used once: did you count the bytes per value right?"))
            },
            hints: &["Every weight is used by one example only, so the intensity no longer grows with B."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch1-q5",
            chapter: 1,
            kind: Kind::Question,
            params: P_GPU,
            prompt: |p| {
                format!(
                    "The {}'s spec sheet quotes a bf16 rate with 2:4 sparsity, twice the dense rate. Using the dense rate and HBM bandwidth, above what batch size is a bf16 matmul compute-bound?",
                    chip_name(p)
                )
            },
            solve: |p| {
                let c = chip_param(p, "chip")?;
                let r = ridge(c, Dtype::Bf16, Link::Hbm)?;
                Ok(Solution::numeric(r.0, "tokens")
                    .step("bf16 intensity ≈ B for B ≪ D, F")
                    .step(format!(
                        "B > C_dense / W_hbm = {} / {} = {}",
                        sci(peak(c, Dtype::Bf16)?.0, 4),
                        sci(c.hbm_bw().0, 3),
                        sci(r.0, 3)
                    ))
                    .perturb(2.0 * r.0, "You used the 2:4-sparse rate; dense matmuls run at half of it.")
                    .two("did you use the sparse FLOPs/s figure?"))
            },
            hints: &["Halve the spec sheet's sparse figure, then divide by the HBM bandwidth."],
            correction: None,
            book_gave_answer: true,
        },
    ]
}

#[cfg(test)]
mod tests {
    #[test]
    fn all_solve() {
        for d in super::defs() {
            assert!((d.solve)(d.params).is_ok(), "{}", d.id);
        }
    }
}
