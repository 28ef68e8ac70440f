//! Part 10 (programming TPUs in JAX): the exercises of `ch10-*`, computed with
//! [`crate::sharding::jax`] as in `golden_ch10.rs`.

use super::def::{n, param, value, Def, Kind, Param, Scale, Solution};
use super::kit::{def, int, int32, num, pick, reg, s, unanswered};
use crate::format::seconds;
use crate::sharding::jax::{jit_matmul, pmean_of_slices, shard_means, JitMatmul, PartitionSpec};
use crate::sharding::Mesh;

const P_EX1: &[Param] = &[
    param("X", "mesh X", 4.0, 2.0, 8.0, Scale::Pow2),
    param("Y", "mesh Y", 2.0, 2.0, 4.0, Scale::Pow2),
];
const P_EX2: &[Param] = &[
    param("n", "array length", 512.0, 256.0, 4096.0, Scale::Pow2),
    param("N", "devices", 8.0, 2.0, 16.0, Scale::Pow2),
];
const P_Q1: &[Param] = &[
    param("X", "mesh X", 4.0, 2.0, 8.0, Scale::Pow2),
    param("Y", "mesh Y", 2.0, 2.0, 8.0, Scale::Pow2),
];

fn spec(text: &str) -> Result<PartitionSpec, String> {
    PartitionSpec::parse(text).map_err(s)
}

fn mesh(p: &[Param]) -> Result<Mesh, String> {
    Mesh::new(&[('X', int32(p, "X")), ('Y', int32(p, "Y"))]).map_err(s)
}

fn shapes(m: &JitMatmul) -> String {
    let [a, b, c] = [m.local_lhs, m.local_rhs, m.local_out];
    format!(
        "bf16[{},{}] × bf16[{},{}] → bf16[{},{}]",
        a[0], a[1], b[0], b[1], c[0], c[1]
    )
}

fn collectives(m: &JitMatmul) -> String {
    if m.collectives.is_empty() {
        return "no collective".into();
    }
    m.collectives
        .iter()
        .map(|(c, axes)| format!("{c} over {axes}"))
        .collect::<Vec<_>>()
        .join(", then ")
}

fn ex1(p: &[Param]) -> Result<Solution, String> {
    let mesh = mesh(p)?;
    let v5e = reg("v5e")?;
    let dims = [8, 2048, 8192];
    let m = jit_matmul(
        &spec("P('X', 'Y')")?,
        &spec("P('Y', None)")?,
        &spec("P('X', None)")?,
        &mesh,
        dims,
        v5e,
    )
    .map_err(s)?;
    let [a, b, c] = [m.local_lhs, m.local_rhs, m.local_out];
    let y = int(p, "Y");
    let x = int(p, "X");
    let opts = [
        ("a", format!("{}, then {}", shapes(&m), collectives(&m))),
        (
            "b",
            format!(
                "an AllGather of In over Y first, then bf16[{},{}] × bf16[{},{}] → bf16[{},{}] with no reduction",
                a[0],
                a[1] * y,
                b[0] * y,
                b[1],
                c[0],
                c[1]
            ),
        ),
        ("c", format!("{}, then a ReduceScatter over Y", shapes(&m))),
        (
            "d",
            format!(
                "bf16[{},{}] × bf16[{},{}] → bf16[{},{}], then an AllReduce over X",
                a[0] * x,
                a[1],
                b[0],
                b[1],
                c[0] * x,
                c[1]
            ),
        ),
    ];
    Ok(pick(&opts, "a")
        .step(format!("In is split {x} ways on its batch and {y} ways on D; W is split {y} ways on D, so each device multiplies {}", shapes(&m)))
        .step(format!(
            "D is contracted while sharded over Y, so each product is a partial sum; the output P('X', None) is not sharded over Y, so jit adds {}",
            collectives(&m)
        )))
}

fn ex2(p: &[Param]) -> Result<Solution, String> {
    let (len, dev) = (int(p, "n"), int(p, "N"));
    let out = pmean_of_slices(len, dev, 4).map_err(s)?;
    let first = out.first().copied().ok_or("no output")?;
    let shard = len / dev.max(1);
    Ok(num(
        first,
        "",
        format!("each device holds {shard} elements (local shape ({shard},)) and keeps the first 4: x[{shard}·i : {shard}·i + 4]"),
    )
    .step(format!(
        "pmean over the {dev} devices: element 0 is the mean of 0, {shard}, …, {} = {}",
        shard * (dev - 1),
        first
    ))
    .step(format!("the output has shape (4,): {out:?}")))
}

fn q1(p: &[Param]) -> Result<Solution, String> {
    let mesh = mesh(p)?;
    let (x, y) = (int(p, "X"), int(p, "Y"));
    let means = shard_means(512, 8, &mesh).map_err(s)?;
    let v = means
        .last()
        .and_then(|r| r.last())
        .copied()
        .ok_or("no shards")?;
    let (br, bc) = (512 / x, 8 / y);
    Ok(num(
        v,
        "",
        format!(
            "device ({}, {}) holds rows {}–{} and columns {}–{}, whose entries are 8·row + column",
            x - 1,
            y - 1,
            br * (x - 1),
            br * x - 1,
            bc * (y - 1),
            bc * y - 1
        ),
    )
    .step(format!(
        "mean = 8 × (mean row {}) + (mean column {}) = {v}",
        (br * (x - 1)) as f64 + (br as f64 - 1.0) / 2.0,
        (bc * (y - 1)) as f64 + (bc as f64 - 1.0) / 2.0
    ))
    .step(format!("all shard means: {means:?}")))
}

fn ex3() -> Result<Solution, String> {
    let v5e = reg("v5e")?;
    let mesh = Mesh::new(&[('X', 2), ('Y', 4)]).map_err(s)?;
    let dims = [1024, 2048, 8192];
    let out = spec("P('X', 'Y')")?;
    let w = spec("P(None, 'Y')")?;
    let jit = jit_matmul(&spec("P('X', 'Y')")?, &w, &out, &mesh, dims, v5e).map_err(s)?;
    let base = jit_matmul(&spec("P('X', None)")?, &w, &out, &mesh, dims, v5e).map_err(s)?;
    let t_jit = jit.plan.time_upper().ok_or("no peak for v5e")?;
    let t_overlap = jit.plan.time_lower().ok_or("no peak for v5e")?;
    let t_base = base.plan.time_upper().ok_or("no peak for v5e")?;
    let mut ranked = [
        (t_base.0, "the unsharded-contracting baseline"),
        (t_overlap.0, "the collective matmul"),
        (t_jit.0, "default jit"),
    ];
    ranked.sort_by(|a, b| a.0.total_cmp(&b.0));
    let order = |names: [&str; 3]| names.join(" < ");
    let opts = [
        (
            "a",
            order([
                "default jit",
                "the collective matmul",
                "the unsharded-contracting baseline",
            ]),
        ),
        (
            "b",
            order([
                "the unsharded-contracting baseline",
                "the collective matmul",
                "default jit",
            ]),
        ),
        (
            "c",
            order([
                "the collective matmul",
                "the unsharded-contracting baseline",
                "default jit",
            ]),
        ),
        (
            "d",
            order([
                "the unsharded-contracting baseline",
                "default jit",
                "the collective matmul",
            ]),
        ),
    ];
    let model = order(ranked.map(|r| r.1));
    let correct = opts
        .iter()
        .find(|(_, t)| *t == model)
        .map(|(id, _)| *id)
        .ok_or("the model's ordering is not among the options")?;
    Ok(pick(&opts, correct)
        .step(format!(
            "cost model on TPU v5e: local matmul {}, AllGather of the lhs over Y {}",
            seconds(base.plan.compute_time().map_or(f64::NAN, |t| t.0)),
            seconds(jit.plan.comm_time().0)
        ))
        .step(format!(
            "baseline = matmul alone {}; collective matmul ≈ max(matmul, gather) {}; default jit = gather then matmul {}",
            seconds(t_base.0),
            seconds(t_overlap.0),
            seconds(t_jit.0)
        ))
        .step("The book's profiles measured 224 µs, 244 µs and 311 µs: these are measurements (the model gives the order, not the numbers).".to_string()))
}

/// Part 10's exercises.
pub(super) fn defs() -> Vec<Def> {
    vec![
        def(
            "ch10-ex1",
            Kind::WorkedExample,
            P_EX1,
            |p| {
                format!(
                    "On a {}x{} mesh with axes ('X', 'Y'), In = bf16[8, 2048] is sharded P('X', 'Y') and W = bf16[2048, 8192] P('Y', None). jax.jit computes In @ W with out_shardings P('X', None). What local matmul does each device run, and which collective does jit add? Answer with a letter.",
                    n(value(p, "X")),
                    n(value(p, "Y"))
                )
            },
            ex1,
            &["Which dimension of the local matmul is sharded, and is it a contracting one? Partial sums need a reduction."],
        ),
        unanswered(def(
            "ch10-ex2",
            Kind::WorkedExample,
            P_EX2,
            |p| {
                format!(
                    "x = arange({}) is sharded over all {} devices of a mesh. Inside shard_map each device keeps the first 4 elements of its shard and takes their pmean over every device. What is the first element of the result?",
                    int(p, "n"),
                    n(value(p, "N"))
                )
            },
            ex2,
            &["Each shard is a contiguous block of arange; the result averages the same position of every block."],
        )),
        def(
            "ch10-ex3",
            Kind::WorkedExample,
            &[],
            |_| "On a TPU v5e 2x4, A[B_X, D_Y] · W[D, F_Y] → Out[B_X, F_Y] with B = 1024, D = 2048, F = 8192 was profiled three ways: default jit (which gathers A first), a shard_map collective matmul that overlaps the permutes with the matmul, and a baseline with D not sharded. Which ordering, fastest first, did the book measure? Answer with a letter.".to_string(),
            |_| ex3(),
            &["Overlapping hides communication behind compute at best; a blocking AllGather adds to it."],
        ),
        unanswered(def(
            "ch10-q1",
            Kind::Question,
            P_Q1,
            |p| {
                format!(
                    "x = arange(4096).reshape(512, 8) is sharded P('X', 'Y') on a ({}, {}) mesh, and shard_map returns each shard's mean as arr[i, j]. What is the mean held by the last device, ({}, {})?",
                    n(value(p, "X")),
                    n(value(p, "Y")),
                    n(value(p, "X") - 1.0),
                    n(value(p, "Y") - 1.0)
                )
            },
            q1,
            &["Device (i, j) holds a block of rows and columns; the mean of 8·row + column is 8·(mean row) + (mean column)."],
        )),
    ]
}
