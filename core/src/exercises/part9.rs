//! Part 9 (profiling TPU programs): the exercises of `ch9-*`, computed with
//! [`crate::profiling`] as in `golden_ch9.rs`.

use super::def::{n, param, value, Def, Kind, Param, Scale, Solution};
use super::kit::{def, int, int32, num, pick, s};
use crate::comms::collectives::Collective;
use crate::dtype::Dtype;
use crate::format::{sci, seconds};
use crate::hardware::TPU_V2_CORE_PEAK;
use crate::profiling::{
    predicted_collective_time, predicted_matmul_time, tpu_v2_network, true_shape, TiledArray,
};
use crate::units::Bytes;

const P_EX1: &[Param] = &[
    param("R", "rows", 3.0, 1.0, 9.0, Scale::Int),
    param("C", "columns", 5.0, 1.0, 17.0, Scale::Int),
    param("t", "tile rows", 2.0, 1.0, 8.0, Scale::Pow2),
    param("u", "tile columns", 2.0, 1.0, 8.0, Scale::Pow2),
];
const P_EX2: &[Param] = &[
    param("B", "tokens", 32768.0, 4096.0, 131072.0, Scale::Pow2),
    param("D", "d_model", 8192.0, 2048.0, 16384.0, Scale::Pow2),
    param("F", "d_ff", 32768.0, 8192.0, 65536.0, Scale::Pow2),
    param("N", "cores", 8.0, 2.0, 32.0, Scale::Pow2),
];
const P_EX3: &[Param] = &[
    param(
        "T",
        "tokens per shard",
        8192.0,
        1024.0,
        65536.0,
        Scale::Pow2,
    ),
    param("D", "d_model", 8192.0, 2048.0, 16384.0, Scale::Pow2),
];
const P_Q1: &[Param] = &[
    param("G", "replica group size", 8.0, 2.0, 16.0, Scale::Pow2),
    param(
        "K",
        "per-shard output size",
        4096.0,
        1024.0,
        8192.0,
        Scale::Pow2,
    ),
];

fn tiled(p: &[Param]) -> Result<TiledArray, String> {
    TiledArray::new(
        Dtype::F32,
        &[int(p, "R"), int(p, "C")],
        &[int(p, "t"), int(p, "u")],
    )
    .map_err(s)
}

fn ex1(p: &[Param]) -> Result<Solution, String> {
    let a = tiled(p)?;
    let padded = a.padded_shape();
    let (l, q) = (a.elements(), a.padded_elements());
    Ok(num(
        a.blowup(),
        "x",
        format!(
            "round each dimension up to a whole number of tiles: {:?} → {:?}",
            a.shape, padded
        ),
    )
    .step(format!(
        "{} stored elements over {} logical ones = {}×",
        n(q),
        n(l),
        sci(a.blowup(), 3)
    ))
    .two("compare element counts, padded over logical, not the padding alone"))
}

fn ex2(p: &[Param]) -> Result<Solution, String> {
    let (b, d, f) = (value(p, "B"), value(p, "D"), value(p, "F"));
    let cores = int32(p, "N");
    let rate = TPU_V2_CORE_PEAK.value;
    let t = predicted_matmul_time(b, d, f, cores, rate).map_err(s)?;
    Ok(num(
        t.0,
        "ms",
        format!(
            "FLOPs = 2·B·D·F = 2 × {} × {} × {} = {}",
            n(b),
            n(d),
            n(f),
            sci(2.0 * b * d * f, 4)
        ),
    )
    .step(format!(
        "T = FLOPs / ({} cores × {} FLOPs/s) = {}",
        cores,
        sci(rate.0, 3),
        seconds(t.0)
    ))
    .count("cores", cores as f64)
    .two("a matmul does 2 FLOPs (a multiply and an add) per B·D·F"))
}

fn ex3(p: &[Param]) -> Result<Solution, String> {
    let v = Bytes(2.0 * value(p, "T") * value(p, "D"));
    let net = tpu_v2_network();
    let t = predicted_collective_time(Collective::ReduceScatter, v, 2, &net).map_err(s)?;
    Ok(num(
        t.0,
        "ms",
        format!(
            "the unreduced bf16 block: 2 bytes × {} × {} = {}",
            int(p, "T"),
            int(p, "D"),
            sci(v.0, 4)
        ),
    )
    .step(format!(
        "over one bidirectional hop: V / W = {} / {} B/s = {}",
        sci(v.0, 4),
        sci(net.bidi.0, 2),
        seconds(t.0)
    ))
    .two("a ReduceScatter over a bidirectional ring costs V / W, once"))
}

fn q1(p: &[Param]) -> Result<Solution, String> {
    let g = int(p, "G");
    let k = int(p, "K");
    let w = true_shape(&[k, 8192], 0, g).map_err(s)?;
    let x = true_shape(&[1, 8192], 0, g).map_err(s)?;
    let wrong_contract = true_shape(&[k, 8192], 1, g).map_err(s)?;
    let opts = [
        (
            "a",
            format!(
                "data parallelism: x bf16[{}, 8192] · W bf16[{k}, 8192] → bf16[{}, {k}], W replicated",
                x[0], x[0]
            ),
        ),
        (
            "b",
            format!(
                "{g}-way model parallelism: x bf16[{}, 8192] · W bf16[{}, 8192] → bf16[{}, {}]",
                x[0], w[0], x[0], w[0]
            ),
        ),
        (
            "c",
            format!(
                "the contraction split {g} ways: x bf16[{}] · W bf16[{k}, {}] → bf16[{k}]",
                wrong_contract[1], wrong_contract[1]
            ),
        ),
        (
            "d",
            format!("no sharding: the shapes are the per-shard ones, bf16[8192] · bf16[{k}, 8192]"),
        ),
    ];
    Ok(pick(&opts, "b")
        .step(format!(
            "the replica groups hold {g} devices, so the sharded dimension is {g}× its per-shard size"
        ))
        .step(format!(
            "W's output dimension: {k} × {g} = {}; the AllReduce combines the {g} model-parallel pieces",
            w[0]
        )))
}

/// Part 9's exercises.
pub(super) fn defs() -> Vec<Def> {
    vec![
        def(
            "ch9-ex1",
            Kind::WorkedExample,
            P_EX1,
            |p| {
                format!(
                    "An HLO op's output is printed as f32[{},{}]{{1,0:T({},{})}}: row-major, stored in {}×{} tiles. By what factor does the padding inflate its memory?",
                    n(value(p, "R")),
                    n(value(p, "C")),
                    n(value(p, "t")),
                    n(value(p, "u")),
                    n(value(p, "t")),
                    n(value(p, "u"))
                )
            },
            ex1,
            &["Memory holds whole tiles: each dimension rounds up to a multiple of its tile side."],
        ),
        def(
            "ch9-ex2",
            Kind::WorkedExample,
            P_EX2,
            |p| {
                format!(
                    "A profile shows the up-projection bf16[{}, {}] × bf16[{}, {}] (batch and sequence flattened) spread over {} TPU v2 cores of about 23 TFLOPs/s each. If it is compute-bound, how long should it take, in ms?",
                    int(p, "B"),
                    int(p, "D"),
                    int(p, "D"),
                    int(p, "F"),
                    n(value(p, "N"))
                )
            },
            ex2,
            &["Count the matmul's FLOPs, then divide by the combined rate of all cores."],
        ),
        def(
            "ch9-ex3",
            Kind::WorkedExample,
            P_EX3,
            |p| {
                format!(
                    "On a TPU v2 4x2 a ReduceScatter runs over a pair of devices on an unreduced bf16[{}, {}] block per device, over links of 1.2e11 B/s counting both directions. What time does the roofline predict, in ms?",
                    int(p, "T"),
                    int(p, "D")
                )
            },
            ex3,
            &["A bandwidth-bound ReduceScatter takes the block's bytes over the link bandwidth."],
        ),
        def(
            "ch9-q1",
            Kind::Question,
            P_Q1,
            |p| {
                format!(
                    "A profile shows, per shard, a fusion bf16[8192] · bf16[{}, 8192] → bf16[{}] followed by an AllReduce whose replica groups hold {} devices each. Which true shapes and sharding does this reveal? Answer with a letter.",
                    int(p, "K"),
                    int(p, "K"),
                    n(value(p, "G"))
                )
            },
            q1,
            &["The replica groups' size tells how many ways the sharded dimension is split."],
        ),
    ]
}
