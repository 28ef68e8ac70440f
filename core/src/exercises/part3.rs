//! Part 3 (sharded matmuls and collectives): the exercises of `ch3-*`,
//! computed as in `golden_ch3.rs`.

use super::def::{choice, n, param, value, Answer, Def, Kind, Param, Scale, Solution};
use super::expr::Var;
use super::kit::{chip_param, int, int32, reference, ridge, s, unanswered};
use crate::check::whole;
use crate::comms::collectives::{cost, Bound, Collective, CollectiveCost, Network, RingAxis};
use crate::dtype::Dtype;
use crate::format::{sci, seconds, si};
use crate::hardware::tpu::Slice;
use crate::hardware::{chip, Link};
use crate::sharding::plan::{MatmulPlan, Operand, PlanOptions, StepKind, Strategy};
use crate::sharding::{ArraySpec, Dims, MatmulSpec, Mesh};
use crate::units::{Bytes, Seconds};

const V5E_FIRST: &[&str] = &["v5e", "v5p", "v6e", "v4p"];
const V5P_FIRST: &[&str] = &["v5p", "v5e", "v4p", "v6e"];
const GPUS: &[&str] = &["h100", "a100", "h200", "b200"];

fn net(id: &str) -> Result<Network, String> {
    Network::ici(chip(id).ok_or_else(|| format!("no chip {id}"))?).map_err(s)
}

fn array_bytes(spec: &str, mesh: &Mesh, dims: &str, dtype: Dtype) -> Result<Bytes, String> {
    ArraySpec::parse(spec)
        .map_err(s)?
        .bytes_per_device(mesh, &Dims::parse(dims).map_err(s)?, dtype)
        .map_err(s)
}

fn plan(spec: &str, mesh: &Mesh, dims: &str, opts: &PlanOptions) -> Result<MatmulPlan, String> {
    MatmulPlan::build(
        &MatmulSpec::parse(spec).map_err(s)?,
        mesh,
        &Dims::parse(dims).map_err(s)?,
        opts,
    )
    .map_err(s)
}

/// The v4p 4×4×4 cube of Q2 and Q3, wrapping as the slice does.
fn v4p_cube() -> Result<(Mesh, Network), String> {
    let slice = Slice::new(chip("v4p").ok_or("no v4p")?, &[4, 4, 4]).map_err(s)?;
    let mut mesh = Mesh::parse("X=4, Y=4, Z=4").map_err(s)?;
    for (i, name) in ['X', 'Y', 'Z'].into_iter().enumerate() {
        mesh = mesh.with_wrap(name, slice.wrap()[i]).map_err(s)?;
    }
    Ok((mesh, net("v4p")?))
}

/// A ring of `d` devices moving an N×N matrix of one-byte scalars, no latency.
fn ring(c: Collective, nn: f64, d: u32, bidi: bool) -> Result<CollectiveCost, String> {
    let mut net = net("v5e")?;
    net.hop_latency = Seconds(0.0);
    if !bidi {
        net = net.one_way_only();
    }
    cost(c, Bytes(nn * nn), &[RingAxis::ring(d)], &net).map_err(s)
}

fn mesh_xyz(p: &[Param]) -> String {
    let mut parts = Vec::new();
    for a in ["X", "Y", "Z"] {
        let v = value(p, a);
        if v.is_finite() {
            parts.push(format!("{a}={v}"));
        }
    }
    parts.join(", ")
}

fn cost_steps(sol: Solution, c: &CollectiveCost) -> Solution {
    sol.step(format!(
        "bandwidth term {}; latency term {} ({} hops)",
        seconds(c.t_bandwidth.0),
        seconds(c.t_latency.0),
        c.steps
    ))
    .step(format!("{}: T = {}", c.bound.text(), seconds(c.time.0)))
}

fn word_bound(b: Bound) -> &'static str {
    match b {
        Bound::Latency => "latency",
        _ => "bandwidth",
    }
}

const P_PQ1: &[Param] = &[
    choice("chip", "GPU", GPUS),
    param("X", "mesh X", 8.0, 2.0, 16.0, Scale::Pow2),
    param("Y", "mesh Y", 2.0, 1.0, 8.0, Scale::Pow2),
    param("I", "I", 1024.0, 256.0, 8192.0, Scale::Pow2),
    param("J", "J", 4096.0, 512.0, 16384.0, Scale::Pow2),
];
const P_PQ2: &[Param] = &[
    param("X", "mesh X", 2.0, 1.0, 8.0, Scale::Pow2),
    param("Y", "mesh Y", 8.0, 1.0, 16.0, Scale::Pow2),
    param("Z", "mesh Z", 2.0, 1.0, 8.0, Scale::Pow2),
    param("I", "I", 128.0, 128.0, 4096.0, Scale::Pow2),
    param("J", "J", 2048.0, 256.0, 8192.0, Scale::Pow2),
];
const P_TPU_V5E: &[Param] = &[choice("chip", "TPU", V5E_FIRST)];
const P_TPU_V5P: &[Param] = &[choice("chip", "TPU", V5P_FIRST)];
const P_EX3: &[Param] = &[
    param("total", "bytes gathered", 1e7, 1e6, 1e9, Scale::Log),
    param("shards", "shards", 16.0, 4.0, 64.0, Scale::Pow2),
];
const P_PQ3: &[Param] = &[
    param("E", "E", 2048.0, 256.0, 8192.0, Scale::Pow2),
    param("F", "F", 8192.0, 256.0, 16384.0, Scale::Pow2),
];
const P_PQ3C: &[Param] = &[
    param("E", "E", 256.0, 64.0, 512.0, Scale::Pow2),
    param("F", "F", 256.0, 64.0, 512.0, Scale::Pow2),
];
const P_Q1: &[Param] = &[
    param("X", "mesh X", 4.0, 2.0, 16.0, Scale::Pow2),
    param("Y", "mesh Y", 8.0, 1.0, 16.0, Scale::Pow2),
    param("Z", "mesh Z", 2.0, 1.0, 8.0, Scale::Pow2),
];
const P_Q2: &[Param] = &[
    param("B", "B", 1024.0, 256.0, 16384.0, Scale::Pow2),
    param("D", "D", 4096.0, 1024.0, 16384.0, Scale::Pow2),
];
const P_Q3: &[Param] = &[param("B", "B", 128.0, 16.0, 512.0, Scale::Pow2)];
const P_Q4B: &[Param] = &[param("D", "D", 8192.0, 4096.0, 65536.0, Scale::Pow2)];
const P_Q7A: &[Param] = &[
    param("D", "D", 8192.0, 2048.0, 16384.0, Scale::Pow2),
    param("F", "F", 32768.0, 8192.0, 65536.0, Scale::Pow2),
];
const P_Q7B: &[Param] = &[
    param("B", "B", 128.0, 16.0, 4096.0, Scale::Pow2),
    param("D", "D", 8192.0, 2048.0, 16384.0, Scale::Pow2),
];
const P_Q7C: &[Param] = &[param(
    "free",
    "free HBM per chip (MB)",
    300.0,
    100.0,
    500.0,
    Scale::Linear,
)];
const P_RING: &[Param] = &[
    param("N", "N", 1024.0, 64.0, 8192.0, Scale::Pow2),
    param("D", "ring size", 8.0, 2.0, 64.0, Scale::Int),
];
const P_Q10D: &[Param] = &[param("D", "ring size", 1024.0, 4.0, 1024.0, Scale::Pow2)];
const P_Q10E: &[Param] = &[param(
    "D",
    "ring size",
    2147483648.0,
    4.0,
    2147483648.0,
    Scale::Pow2,
)];
const P_Q10F: &[Param] = &[param("D", "ring size", 8.0, 2.0, 64.0, Scale::Pow2)];

fn pq1(p: &[Param]) -> Result<(Bytes, Vec<u64>, f64), String> {
    let mesh = Mesh::parse(&format!("X={}, Y={}", value(p, "X"), value(p, "Y"))).map_err(s)?;
    let dims = Dims::parse(&format!("I={}, J={}", int(p, "I"), int(p, "J"))).map_err(s)?;
    let a = ArraySpec::parse("A[I_XY, J]").map_err(s)?;
    let local = a.local_shape(&mesh, &dims).map_err(s)?;
    let b = a.bytes_per_device(&mesh, &dims, Dtype::F32).map_err(s)?;
    Ok((b, local, mesh.devices() as f64))
}

fn pq3_cost(e: u64, f: u64, wrap: bool) -> Result<CollectiveCost, String> {
    let mesh = Mesh::parse("X=8, Y=4").map_err(s)?;
    let shard = array_bytes("A[E_Y, F]", &mesh, &format!("E={e}, F={f}"), Dtype::Bf16)?;
    cost(
        Collective::AllGather,
        shard * 4.0,
        &[RingAxis { size: 4, wrap }],
        &net("v5e")?,
    )
    .map_err(s)
}

fn pq3_prompt(p: &[Param], tail: &str) -> String {
    format!(
        "On a TPU v5e mesh {{X: 8, Y: 4}}, AllGather_Y turns bf16[E_Y, F] into bf16[E, F] with E = {} and F = {}. {tail}",
        n(value(p, "E")),
        n(value(p, "F"))
    )
}

fn q2_cost(p: &[Param], block: &str, c: Collective, axes: &[u8]) -> Result<CollectiveCost, String> {
    let (mesh, net) = v4p_cube()?;
    let dims = format!("B={}, D={}", int(p, "B"), int(p, "D"));
    let v = array_bytes(block, &mesh, &dims, Dtype::Bf16)?;
    let rings: Vec<RingAxis> = axes.iter().map(|&a| mesh.ring(a)).collect();
    cost(c, v, &rings, &net).map_err(s)
}

fn q2_prompt(p: &[Param], what: &str) -> String {
    format!(
        "A TPU v4p 4×4×4 slice (with wraparound) is used as the mesh {{X: 4, Y: 4, Z: 4}}; an activation bf16[B, D] has B = {} and D = {}. How long does {what} take?",
        n(value(p, "B")),
        n(value(p, "D"))
    )
}

fn q2_solution(c: CollectiveCost, v_note: &str) -> Solution {
    let sol = Solution::numeric(c.time.0, "µs")
        .step(format!("V = {} ({v_note})", si(c.bytes.0, "B", 3)))
        .count("devices", c.devices as f64)
        .two("did you use the one-way ICI bandwidth (or count each axis's two directions twice)?");
    cost_steps(sol, &c)
}

fn ring_time_ratio(
    a: Collective,
    bidi_a: bool,
    b: Collective,
    bidi_b: bool,
    nn: f64,
    d: u32,
) -> Result<f64, String> {
    Ok(ring(a, nn, d, bidi_a)?.time.0 / ring(b, nn, d, bidi_b)?.time.0)
}

fn d_of(p: &[Param]) -> u32 {
    whole(value(p, "D")).unwrap_or(0)
}

fn nd_vars() -> Vec<Var> {
    vec![
        Var::stepped("N", 16.0, 4096.0, 1.0),
        Var::stepped("D", 2.0, 64.0, 1.0),
    ]
}

/// Part 3's exercises.
/// The v5e 4×4 slice of Q6 as a mesh {X: 4, Y: 4}, wrapping as the slice does.
fn v5e_4x4() -> Result<Mesh, String> {
    let slice = Slice::new(chip("v5e").ok_or("no v5e")?, &[4, 4]).map_err(s)?;
    let mut mesh = Mesh::parse("X=4, Y=4").map_err(s)?;
    for (i, name) in ['X', 'Y'].into_iter().enumerate() {
        mesh = mesh.with_wrap(name, slice.wrap()[i]).map_err(s)?;
    }
    Ok(mesh)
}

/// A plan's communication as `Collective over AXES of ARRAY` lines (`none`).
fn comm_signature(plan: &MatmulPlan) -> String {
    let lines: Vec<String> = plan
        .steps
        .iter()
        .filter_map(|st| match st.kind {
            StepKind::Collective(c) => {
                Some(format!("{} over {} of {}", c.name(), st.axes, st.array))
            }
            StepKind::Permute => Some(format!("a permute over {} of {}", st.axes, st.array)),
            StepKind::Slice | StepKind::Matmul => None,
        })
        .collect();
    if lines.is_empty() {
        "none".into()
    } else {
        lines.join(", then ")
    }
}

/// The options of Q6: which communication a sharded matmul needs.
const Q6_OPTIONS: [(&str, &str); 4] = [
    ("a", "none"),
    ("b", "AllReduce over Y of C"),
    ("c", "AllGather over X of B"),
    ("d", "AllGather over Y of A"),
];

/// Q6 on the v5e 4×4 with our sizes (the book gives none): core's plan for
/// `spec`, its communication matched to an option, and its times.
fn q6_solve(spec: &str) -> Result<Solution, String> {
    let mesh = v5e_4x4()?;
    let opts = PlanOptions::for_chip(chip("v5e").ok_or("no v5e")?).map_err(s)?;
    let plan = plan(spec, &mesh, "I=8192, J=8192, K=8192", &opts)?;
    let sig = comm_signature(&plan);
    let correct = Q6_OPTIONS
        .iter()
        .find(|(_, t)| *t == sig)
        .map(|(id, _)| *id)
        .ok_or_else(|| format!("core's plan needs {sig}, which is not an option"))?;
    let options: Vec<(&'static str, String)> = Q6_OPTIONS
        .iter()
        .map(|(id, t)| (*id, t.to_string()))
        .collect();
    let compute = plan.compute_time().ok_or("no peak")?;
    let mut sol = Solution::new(Answer::Choice { options, correct })
        .step(format!("{}: case {}", plan.summary(), plan.case().number()))
        .step(format!("communication: {sig}"));
    for st in plan.steps.iter().filter(|st| st.kind != StepKind::Matmul) {
        if let Some(c) = st.cost {
            sol = cost_steps(
                sol.step(format!("{} moves V = {}", st.result, si(st.v.0, "B", 3))),
                &c,
            );
        }
    }
    Ok(sol.step(format!(
        "with I = J = K = 8,192 in bf16 (our sizes): communication {}, the local matmul {} ({} per chip at peak)",
        seconds(plan.comm_time().0),
        seconds(compute.0),
        sci(plan.flops_per_device().0, 3)
    )))
}

fn q6_prompt(spec: &str, role: &str) -> String {
    format!(
        "On a TPU v5e 4×4 slice (mesh X, Y), {spec}{role}. Which communication does it need?\n(a) none\n(b) an AllReduce over Y of C\n(c) an AllGather over X of B\n(d) an AllGather over Y of A"
    )
}

/// The order of the four collectives' times on `net` over `axis` for `v`
/// bytes, fastest first, equal times joined by `=`.
fn collective_order(
    v: Bytes,
    axis: RingAxis,
    net: &Network,
) -> Result<(String, Vec<(Collective, Seconds)>), String> {
    let mut times = Vec::new();
    for c in [
        Collective::AllToAll,
        Collective::AllGather,
        Collective::ReduceScatter,
        Collective::AllReduce,
    ] {
        times.push((c, cost(c, v, &[axis], net).map_err(s)?.time));
    }
    let mut sorted = times.clone();
    sorted.sort_by(|a, b| a.1 .0.total_cmp(&b.1 .0));
    let mut order = String::new();
    for (i, (c, t)) in sorted.iter().enumerate() {
        if i > 0 {
            let same = (t.0 / sorted[i - 1].1 .0 - 1.0).abs() < 0.01;
            order.push_str(if same { " = " } else { " < " });
        }
        order.push_str(c.name());
    }
    Ok((order, times))
}

/// The jax.lax function that runs a collective.
fn jax_name(c: Collective) -> &'static str {
    match c {
        Collective::AllGather => "jax.lax.all_gather",
        Collective::ReduceScatter => "jax.lax.psum_scatter",
        Collective::AllReduce => "jax.lax.psum",
        Collective::AllToAll => "jax.lax.all_to_all",
    }
}

const Q8_OPTIONS: [(&str, &str); 4] = [
    ("a", "AllToAll < AllGather = ReduceScatter < AllReduce"),
    ("b", "AllToAll = AllGather = ReduceScatter = AllReduce"),
    ("c", "AllReduce < AllGather = ReduceScatter < AllToAll"),
    ("d", "AllGather < ReduceScatter < AllToAll < AllReduce"),
];

/// Q9's matmul, A[N, M_X] · B[M, K] on a ring of four, multiplied locally and
/// reduced afterwards, with output `out`.
fn q9_plan(out: &str) -> Result<MatmulPlan, String> {
    let mesh = Mesh::parse("X=4").map_err(s)?;
    let opts = PlanOptions::for_chip(chip("v5e").ok_or("no v5e")?)
        .map_err(s)?
        .with_strategy(Strategy::ReduceAfter);
    plan(
        &format!("A[N, M_X] · B[M, K] -> {out}"),
        &mesh,
        "N=16, M=16, K=16",
        &opts,
    )
}

pub(super) fn defs() -> Vec<Def> {
    vec![
        Def {
            id: "ch3-pq1a",
            chapter: 3,
            kind: Kind::PopQuiz,
            params: P_PQ1,
            prompt: |p| {
                format!(
                    "An fp32 array A[I, J] with I = {} and J = {} is sharded as A[I_XY, J] over the mesh {{X: {}, Y: {}}}. How many bytes does each device hold?",
                    n(value(p, "I")), n(value(p, "J")), value(p, "X"), value(p, "Y")
                )
            },
            solve: |p| {
                let (b, local, devices) = pq1(p)?;
                Ok(Solution::numeric(b.0, "MiB")
                    .step(format!("local shape = [{}, {}] (I split over X·Y = {devices} devices)", local.first().copied().unwrap_or(0), local.get(1).copied().unwrap_or(0)))
                    .step(format!("bytes = {} × 4 = {} = {} MiB", n(b.0 / 4.0), n(b.0), sci(b.0 / 1_048_576.0, 3)))
                    .count("devices", devices))
            },
            hints: &["Divide the sharded dimension by the product of its mesh axes; fp32 is 4 bytes."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch3-pq1b",
            chapter: 3,
            kind: Kind::PopQuiz,
            params: P_PQ1,
            prompt: |p| {
                format!(
                    "Each device is a {} holding that shard of fp32 A[I_XY, J] (I = {}, J = {}, mesh {{X: {}, Y: {}}}). How long does reading it from HBM once take?",
                    chip_param(p, "chip").map_or("GPU", |c| c.name),
                    n(value(p, "I")), n(value(p, "J")), value(p, "X"), value(p, "Y")
                )
            },
            solve: |p| {
                let c = chip_param(p, "chip")?;
                let (b, _, devices) = pq1(p)?;
                let t = b / c.hbm_bw();
                Ok(Solution::numeric(t.0, "ns")
                    .step(format!("T = {} bytes / {} B/s = {}", n(b.0), sci(c.hbm_bw().0, 3), seconds(t.0)))
                    .count("devices", devices))
            },
            hints: &["Local bytes divided by the HBM bandwidth."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch3-pq2a",
            chapter: 3,
            kind: Kind::PopQuiz,
            params: P_PQ2,
            prompt: |p| {
                format!(
                    "An int8 array A[I, J] with I = {} and J = {} is sharded as A[I_XY, J] on the mesh {{{}}}. How many bytes does each device hold?",
                    n(value(p, "I")), n(value(p, "J")), mesh_xyz(p)
                )
            },
            solve: |p| {
                let mesh = Mesh::parse(&mesh_xyz(p)).map_err(s)?;
                let b = array_bytes("A[I_XY, J]", &mesh, &format!("I={}, J={}", int(p, "I"), int(p, "J")), Dtype::Int8)?;
                Ok(Solution::numeric(b.0, "bytes")
                    .step("I is split over X·Y; J and the Z axis are not split")
                    .step(format!("bytes = I·J / (X·Y) = {}", n(b.0)))
                    .count("devices", mesh.devices() as f64))
            },
            hints: &["Only the axes in the subscript divide the array; int8 is one byte."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch3-pq2b",
            chapter: 3,
            kind: Kind::PopQuiz,
            params: P_PQ2,
            prompt: |p| {
                format!(
                    "Same int8 A[I_XY, J] (I = {}, J = {}) on the mesh {{{}}}: how many bytes do all devices hold together?",
                    n(value(p, "I")), n(value(p, "J")), mesh_xyz(p)
                )
            },
            solve: |p| {
                let mesh = Mesh::parse(&mesh_xyz(p)).map_err(s)?;
                let dims = Dims::parse(&format!("I={}, J={}", int(p, "I"), int(p, "J"))).map_err(s)?;
                let a = ArraySpec::parse("A[I_XY, J]").map_err(s)?;
                let t = a.total_bytes(&mesh, &dims, Dtype::Int8).map_err(s)?;
                let r = a.replication(&mesh).map_err(s)?;
                Ok(Solution::numeric(t.0, "KiB")
                    .step(format!("one copy = {} bytes; it is replicated {r}× (over the unused axes)", n(a.global_bytes(&dims, Dtype::Int8).map_err(s)?.0)))
                    .step(format!("total = {} bytes = {} KiB", n(t.0), n(t.0 / 1024.0)))
                    .count("devices", mesh.devices() as f64)
                    .count("copies", r as f64))
            },
            hints: &["Bytes per device times the number of devices, or one copy times the replication."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch3-ex1",
            chapter: 3,
            kind: Kind::WorkedExample,
            params: &[],
            prompt: |_| {
                "On a 4×2 mesh with axes ('X', 'Y'), B = bf16[2048, 8192] with dimensions named J and K is sharded with PartitionSpec(None, 'Y'). Write its sharding in the book's notation (e.g. A[I_X, J])."
                    .into()
            },
            solve: |_| {
                let mesh = Mesh::parse("4x2").map_err(s)?;
                let dims = Dims::parse("I=8, J=2048, K=8192").map_err(s)?;
                let a = ArraySpec::parse("A[I_X, J_Y]").map_err(s)?.local_shape(&mesh, &dims).map_err(s)?;
                let b = ArraySpec::parse("B[J, K_Y]").map_err(s)?.local_shape(&mesh, &dims).map_err(s)?;
                Ok(Solution::new(Answer::Sharding { accepted: vec!["B[J, K_Y]".into()] })
                    .step("None leaves J unsplit; 'Y' splits K over the Y axis: B[J, K_Y]")
                    .step(format!("local shape of B: {b:?}; for A = bf16[8, 2048] with P('X', 'Y'), A[I_X, J_Y] has local shape {a:?}")))
            },
            hints: &["Each entry of the PartitionSpec names the mesh axis that dimension is split over."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch3-ex2",
            chapter: 3,
            kind: Kind::WorkedExample,
            params: P_TPU_V5E,
            prompt: |p| {
                format!(
                    "An ICI hop on a {} costs about 1 µs whatever its size. Below what message size per hop is an AllGather latency-bound rather than bandwidth-bound?",
                    chip_param(p, "chip").map_or("TPU", |c| c.name)
                )
            },
            solve: |p| {
                let c = chip_param(p, "chip")?;
                let nw = Network::ici(c).map_err(s)?;
                let t = nw.latency_threshold();
                Ok(Solution::numeric(t.0, "kB")
                    .step(format!("threshold = one-way bandwidth × hop latency = {} B/s × 1 µs", sci(nw.one_way.0, 3)))
                    .step(format!("= {}", si(t.0, "B", 3)))
                    .perturb(nw.bidi.0 * nw.hop_latency.0, "You used the bidirectional bandwidth; a hop sends one way.")
                    .two("did you use the bidirectional bandwidth?"))
            },
            hints: &["Latency-bound when one hop's bytes take less time than the hop latency."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch3-ex3",
            chapter: 3,
            kind: Kind::WorkedExample,
            params: P_EX3,
            prompt: |p| {
                format!(
                    "A TPU v5e AllGather moves {} bytes in total, sharded {} ways. How many bytes does each device hold before the gather?",
                    sci(value(p, "total"), 3),
                    n(value(p, "shards"))
                )
            },
            solve: |p| {
                let c = cost(Collective::AllGather, Bytes(value(p, "total")), &[RingAxis::ring(int32(p, "shards"))], &net("v5e")?).map_err(s)?;
                Ok(Solution::numeric(c.shard.0, "kB")
                    .step(format!("shard = V / devices = {} / {}", sci(c.bytes.0, 3), c.devices))
                    .step(format!("= {}", si(c.shard.0, "B", 3)))
                    .count("devices", c.devices as f64))
            },
            hints: &["The total divided by the number of shards."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch3-pq3a",
            chapter: 3,
            kind: Kind::PopQuiz,
            params: P_PQ3,
            prompt: |p| pq3_prompt(p, "Treating Y as a full bidirectional ring, how long does it take?"),
            solve: |p| {
                let c = pq3_cost(int(p, "E"), int(p, "F"), true)?;
                Ok(cost_steps(Solution::numeric(c.time.0, "µs")
                    .step(format!("V = 2·E·F = {}; T ≈ V / W_bidi", si(c.bytes.0, "B", 3))), &c)
                    .two("did you use the one-way bandwidth instead of the bidirectional one?"))
            },
            hints: &["On a bidirectional ring an AllGather takes about V / W_ici."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch3-pq3b",
            chapter: 3,
            kind: Kind::PopQuiz,
            params: P_PQ3,
            prompt: |p| pq3_prompt(p, "A 4-long v5e axis has no wraparound, so the edge shards travel 3 one-way hops. How long does it take?"),
            solve: |p| {
                let v5e = Slice::new(chip("v5e").ok_or("no v5e")?, &[8, 4]).map_err(s)?;
                let c = pq3_cost(int(p, "E"), int(p, "F"), v5e.wrap()[1])?;
                let ring = pq3_cost(int(p, "E"), int(p, "F"), true)?;
                Ok(cost_steps(Solution::numeric(c.time.0, "µs")
                    .step(format!("shard = {}; {} one-way hops", si(c.shard.0, "B", 3), c.steps)), &c)
                    .perturb(ring.time.0, "That is the full-ring time; without wraparound the shards go 3 hops one way."))
            },
            hints: &["Without wraparound each shard must cross the line one hop at a time in one direction."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch3-pq3c",
            chapter: 3,
            kind: Kind::PopQuiz,
            params: P_PQ3C,
            prompt: |p| pq3_prompt(p, "On the 4-long line without wraparound, how long does it take now?"),
            solve: |p| {
                let c = pq3_cost(int(p, "E"), int(p, "F"), false)?;
                Ok(cost_steps(Solution::numeric(c.time.0, "µs")
                    .step(format!("shard = {}: {}-bound", si(c.shard.0, "B", 3), word_bound(c.bound))), &c))
            },
            hints: &["Compare the shard size with the ~45 kB latency threshold."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch3-q1",
            chapter: 3,
            kind: Kind::Question,
            params: P_Q1,
            prompt: |p| {
                format!(
                    "An array sharded as A[I_X, J, K] lives on the mesh {{{}}}. How many times larger is the total memory across all devices than one copy of the array?",
                    mesh_xyz(p)
                )
            },
            solve: |p| {
                let mesh = Mesh::parse(&mesh_xyz(p)).map_err(s)?;
                let r = ArraySpec::parse("A[I_X, J, K]").map_err(s)?.replication(&mesh).map_err(s)?;
                Ok(Solution::numeric(r as f64, "x")
                    .step("only X splits the array; it is copied over every other axis")
                    .step(format!("ratio = Y·Z = {r}"))
                    .count("devices", mesh.devices() as f64))
            },
            hints: &["The array is replicated over every mesh axis that does not appear in its sharding."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch3-q2a",
            chapter: 3,
            kind: Kind::Question,
            params: P_Q2,
            prompt: |p| q2_prompt(p, "AllGather_X([B_X, D_Y])"),
            solve: |p| Ok(q2_solution(q2_cost(p, "A[B, D_Y]", Collective::AllGather, &[0])?, "the gathered [B, D_Y] block")),
            hints: &["V is the gathered array, [B, D_Y]: 2BD/Y bytes."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch3-q2b",
            chapter: 3,
            kind: Kind::Question,
            params: P_Q2,
            prompt: |p| q2_prompt(p, "AllGather_XY([B_X, D_Y])"),
            solve: |p| Ok(q2_solution(q2_cost(p, "A[B, D]", Collective::AllGather, &[0, 1])?, "the whole [B, D] array, over two axes")),
            hints: &["Gathering over two axes uses both axes' links: twice the bandwidth."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch3-q2c",
            chapter: 3,
            kind: Kind::Question,
            params: P_Q2,
            prompt: |p| q2_prompt(p, "AllReduce_Z([B_X, D_Y] {U_Z})"),
            solve: |p| Ok(q2_solution(q2_cost(p, "A[B_X, D_Y]", Collective::AllReduce, &[2])?, "the [B_X, D_Y] block being reduced")),
            hints: &["An AllReduce costs two AllGathers of the block."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch3-q3",
            chapter: 3,
            kind: Kind::Question,
            params: P_Q3,
            prompt: |p| {
                format!(
                    "On the same v4p 4×4×4 slice, how long does AllGather_X([B_X]) of a bf16 vector with B = {} take?",
                    n(value(p, "B"))
                )
            },
            solve: |p| {
                let (mesh, nw) = v4p_cube()?;
                let v = ArraySpec::parse("A[B]").map_err(s)?
                    .global_bytes(&Dims::parse(&format!("B={}", int(p, "B"))).map_err(s)?, Dtype::Bf16)
                    .map_err(s)?;
                let c = cost(Collective::AllGather, v, &[mesh.ring(0)], &nw).map_err(s)?;
                Ok(cost_steps(Solution::numeric(c.time.0, "µs")
                    .step(format!("V = {}; tiny shards, so the hop latency dominates", si(v.0, "B", 3))), &c))
            },
            hints: &["With a few hundred bytes the transfer is latency-bound: count the hops."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch3-q4a",
            chapter: 3,
            kind: Kind::Question,
            params: P_TPU_V5P,
            prompt: |p| {
                format!(
                    "What is the ICI arithmetic intensity of a {}: its bf16 peak over its bidirectional ICI bandwidth per link?",
                    chip_param(p, "chip").map_or("TPU", |c| c.name)
                )
            },
            solve: |p| {
                let c = chip_param(p, "chip")?;
                let r = ridge(c, crate::dtype::Dtype::Bf16, Link::Ici)?;
                Ok(Solution::numeric(r.0, "FLOPs/byte")
                    .step(format!("α = C / W_ici = {} / {}", sci(c.peak(Dtype::Bf16).map_or(f64::NAN, |x| x.0), 3), sci(c.bandwidth(Link::Ici).map_or(f64::NAN, |x| x.0), 3)))
                    .step(format!("= {}", sci(r.0, 3)))
                    .two("did you use the one-way ICI bandwidth?"))
            },
            hints: &["Divide the FLOPs/s by the ICI bytes/s."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch3-q4b",
            chapter: 3,
            kind: Kind::Question,
            params: P_Q4B,
            prompt: |p| {
                format!(
                    "X[B, D] · Y[D_X, F] on TPU v5p: multiply the local shards, then AllReduce the partial sums. With D = {}, up to how many shards X does the matmul stay compute-bound?",
                    n(value(p, "D"))
                )
            },
            solve: |p| {
                let mesh = Mesh::parse("X=2").map_err(s)?;
                let opts = PlanOptions::for_chip(chip("v5p").ok_or("no v5p")?).map_err(s)?.with_strategy(Strategy::ReduceAfter);
                let pl = plan("In[B, D_X] · W[D_X, F] -> Out[B, F]", &mesh, &format!("B=512, D={}, F=4096", int(p, "D")), &opts)?;
                if pl.steps.last().map(|s| s.kind) != Some(StepKind::Collective(Collective::AllReduce)) {
                    return Err("the plan does not end with an AllReduce".into());
                }
                let x = 2.0 * pl.compute_time().ok_or("no compute time")?.0 / pl.comm_time().0;
                Ok(Solution::numeric(x, "shards")
                    .step("T_math = 2BDF / (X·C); T_comms = 4BF / W_ici (an AllReduce of bf16[B, F])")
                    .step("compute-bound while X < D·W / (2C) = D / (2α)")
                    .step(format!("X < {}: basically always comms-bound", sci(x, 3))))
            },
            hints: &["Set 2BDF/(X·C) ≥ 4BF/W and solve for X."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch3-q4c",
            chapter: 3,
            kind: Kind::Question,
            params: &[],
            prompt: |_| {
                let a = chip("v5p").and_then(|c| c.ridge(Dtype::Bf16, Link::Ici)).map_or(f64::NAN, |r| r.0);
                format!(
                    "For X[B, D] · Y[D_X, F] on TPU v5p (α = C/W_ici ≈ {}), when is multiplying locally and AllReducing better than AllGathering Y first?\n(a) when D > 2B for B < α, and when D > 2α for larger B: usually for large models\n(b) only when B > D\n(c) never\n(d) always",
                    sci(a, 3)
                )
            },
            solve: |_| {
                let v5p = chip("v5p").ok_or("no v5p")?;
                let a = ridge(v5p, Dtype::Bf16, Link::Ici)?.0;
                // Which strategy core's planner finds faster at (B, D), four ways on X.
                let mesh = Mesh::parse("X=4").map_err(s)?;
                let opts = PlanOptions::for_chip(v5p).map_err(s)?;
                let reduce_wins = |b: f64, d: f64| -> Result<bool, String> {
                    let round = |x: f64| whole::<u64>((x / 64.0).round().max(1.0) * 64.0).unwrap_or(0);
                    let dims = format!("B={}, D={}, F=8192", round(b), round(d));
                    let time = |strategy| -> Result<f64, String> {
                        let p = plan("X[B, D] · Y[D_X, F] -> Z[B, F]", &mesh, &dims, &opts.with_strategy(strategy))?;
                        p.time_lower().map(|t| t.0).ok_or_else(|| "no time".to_string())
                    };
                    Ok(time(Strategy::ReduceAfter)? < time(Strategy::GatherFirst)?)
                };
                // Points well to each side of every option's boundary.
                let points = [(a / 8.0, a), (a / 8.0, a / 16.0), (8.0 * a, 8.0 * a), (8.0 * a, a / 2.0), (a / 2.0, a / 16.0)];
                let mut claims = [true; 4];
                for (b, d) in points {
                    let wins = reduce_wins(b, d)?;
                    let rule = if b < a { d > 2.0 * b } else { d > 2.0 * a };
                    for (claim, says) in claims.iter_mut().zip([rule, b > d, false, true]) {
                        *claim &= wins == says;
                    }
                }
                let options = vec![
                    ("a", format!("when D > 2B for B < {0}, and when D > {1} for larger B", sci(a, 3), sci(2.0 * a, 3))),
                    ("b", "only when B > D".to_string()),
                    ("c", "never".to_string()),
                    ("d", "always".to_string()),
                ];
                let correct = match claims {
                    [true, false, false, false] => "a",
                    [false, true, false, false] => "b",
                    [false, false, true, false] => "c",
                    [false, false, false, true] => "d",
                    _ => return Err(format!("core's planner confirms {claims:?}, not one option")),
                };
                Ok(Solution::new(Answer::Choice { options, correct })
                    .step("strategy 1: T = max(2BDF/C, 2DF/W); strategy 2: T = max(2BDF/(XC), 4BF/W)")
                    .step(format!("both comms-bound (B < {}): strategy 2 wins when 4BF < 2DF, i.e. D > 2B", sci(a, 3)))
                    .step(format!("otherwise strategy 1 is compute-bound and strategy 2 wins when D > 2α = {}", sci(2.0 * a, 3))))
            },
            hints: &["Compare the communication terms 2DF/W and 4BF/W."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch3-q5",
            chapter: 3,
            kind: Kind::Question,
            params: &[],
            prompt: |_| {
                "A[I, J] · B[J, K] → C[I, K] runs on a TPU v4p 4×4×4 slice (mesh X, Y, Z) and C must end fully replicated. Which input sharding gives the lowest time? Write it as a sharded matmul, e.g. A[I_X, J] · B[J, K_Y]."
                    .into()
            },
            solve: |_| {
                let (mesh, _) = v4p_cube()?;
                let opts = PlanOptions::for_chip(chip("v4p").ok_or("no v4p")?).map_err(s)?;
                let dims = "I=8192, J=8192, K=8192";
                let candidates = [
                    "A[I_XYZ, J] · B[J, K] -> C[I, K]",
                    "A[I, J] · B[J, K_XYZ] -> C[I, K]",
                    "A[I, J_XYZ] · B[J_XYZ, K] -> C[I, K]",
                    "A[I, J] · B[J, K] -> C[I, K]",
                ];
                let mut times = Vec::new();
                for c in candidates {
                    times.push(plan(c, &mesh, dims, &opts)?.time_lower().ok_or("no time")?.0);
                }
                let best = times.iter().copied().fold(f64::INFINITY, f64::min);
                let accepted: Vec<String> = candidates
                    .iter()
                    .zip(&times)
                    .filter(|(_, t)| (**t / best - 1.0).abs() < 1e-9)
                    .map(|(c, _)| c.to_string())
                    .collect();
                let mut sol = Solution::new(Answer::Sharding { accepted });
                for (c, t) in candidates.iter().zip(&times) {
                    sol = sol.step(format!("{c}: {}", seconds(*t)));
                }
                Ok(sol.step("sharding a free dimension over all axes and AllGathering C wins; the two free dimensions tie"))
            },
            hints: &["Shard a non-contracting dimension over every axis, then gather the output."],
            correction: None,
            book_gave_answer: true,
        },
        unanswered(Def {
            id: "ch3-q6a",
            chapter: 3,
            kind: Kind::Question,
            params: &[],
            prompt: |_| q6_prompt("A[I_X, J_Y] · B[J_Y, K] → C[I_X, K]", ""),
            solve: |_| q6_solve("A[I_X, J_Y] · B[J_Y, K] -> C[I_X, K]"),
            hints: &["Which input dimension is the contraction, and is it sharded the same way on both inputs?"],
            correction: None,
            book_gave_answer: false,
        }),
        unanswered(Def {
            id: "ch3-q6b",
            chapter: 3,
            kind: Kind::Question,
            params: &[],
            prompt: |_| q6_prompt("A[I_X, J] · B[J_X, K_Y] → C[I_X, K_Y]", " (data, tensor and ZeRO sharding together, as in training)"),
            solve: |_| q6_solve("A[I_X, J] · B[J_X, K_Y] -> C[I_X, K_Y]"),
            hints: &["Only B is sharded on the contracting dimension, and X is also used by A's rows."],
            correction: None,
            book_gave_answer: false,
        }),
        unanswered(Def {
            id: "ch3-q6c",
            chapter: 3,
            kind: Kind::Question,
            params: &[],
            prompt: |_| q6_prompt("A[I_X, J] · B[J, K_Y] → C[I_X, K_Y]", " (tensor and data parallelism, as in inference)"),
            solve: |_| q6_solve("A[I_X, J] · B[J, K_Y] -> C[I_X, K_Y]"),
            hints: &["Is the contracting dimension sharded at all?"],
            correction: None,
            book_gave_answer: false,
        }),
        Def {
            id: "ch3-q7a",
            chapter: 3,
            kind: Kind::Question,
            params: P_Q7A,
            prompt: |p| {
                format!(
                    "A transformer block has weights W_in[D, F] and W_out[F, D] in bf16 with D = {} and F = {}. How much memory does one of these matrices take?",
                    n(value(p, "D")), n(value(p, "F"))
                )
            },
            solve: |p| {
                let dims = Dims::parse(&format!("D={}, F={}", int(p, "D"), int(p, "F"))).map_err(s)?;
                let b = ArraySpec::parse("W_in[D, F]").map_err(s)?.global_bytes(&dims, Dtype::Bf16).map_err(s)?;
                Ok(Solution::numeric(b.0, "MB")
                    .step(format!("2 bytes × D × F = {}", si(b.0, "B", 3)))
                    .two("did you count one byte per bf16 value?"))
            },
            hints: &["Elements times 2 bytes."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch3-q7b",
            chapter: 3,
            kind: Kind::Question,
            params: P_Q7B,
            prompt: |p| {
                format!(
                    "The block's input activations In[B, D] are bf16 with B = {} and D = {}. How much memory do they take?",
                    n(value(p, "B")), n(value(p, "D"))
                )
            },
            solve: |p| {
                let dims = Dims::parse(&format!("B={}, D={}", int(p, "B"), int(p, "D"))).map_err(s)?;
                let b = ArraySpec::parse("In[B, D]").map_err(s)?.global_bytes(&dims, Dtype::Bf16).map_err(s)?;
                Ok(Solution::numeric(b.0, "MB")
                    .step(format!("2 bytes × B × D = {}", si(b.0, "B", 3)))
                    .two("did you count one byte per bf16 value?"))
            },
            hints: &["Elements times 2 bytes."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch3-q7c",
            chapter: 3,
            kind: Kind::Question,
            params: P_Q7C,
            prompt: |p| {
                format!(
                    "The block (D = 8192, F = 32768, B = 128, bf16) runs on a TPU v5e 2×2 with {} MB of HBM free per chip. How should In, W_in, W_out and Out be sharded?\n(a) tensor parallel: In[B, D_XY] · W_in[D, F_XY] · W_out[F_XY, D] → Out[B, D_XY]\n(b) FSDP: weights sharded along D, each gathered in full before use\n(c) replicate both weights on every chip\n(d) shard only the batch B over X and Y",
                    n(value(p, "free"))
                )
            },
            solve: |p| {
                let mesh = Mesh::parse("X=2, Y=2").map_err(s)?;
                let free = value(p, "free") * 1e6;
                let d = "B=128, D=8192, F=32768";
                let opts = PlanOptions::for_chip(chip("v5e").ok_or("no v5e")?).map_err(s)?;
                let w = |spec: &str| array_bytes(spec, &mesh, d, Dtype::Bf16).map(|b| b.0);
                let tp = w("W_in[D, F_XY]")? + w("W_out[F_XY, D]")?;
                let replicated = w("W_in[D, F]")? + w("W_out[F, D]")?;
                let fsdp = plan("In[B_X, D] · W_in[D_XY, F] -> Tmp[B_X, F]", &mesh, d, &opts)?;
                let gathered = fsdp.steps.first().map_or(0.0, |s| s.v.0);
                if !(tp < free && gathered > free && replicated > free) {
                    return Err("with this much free memory more than one option fits".into());
                }
                let options = vec![
                    ("a", "tensor parallel".to_string()),
                    ("b", "FSDP".to_string()),
                    ("c", "replicate the weights".to_string()),
                    ("d", "shard only the batch".to_string()),
                ];
                Ok(Solution::new(Answer::Choice { options, correct: "a" })
                    .step(format!("tensor parallel: weights take {} per chip, under the {} free", si(tp, "B", 3), si(free, "B", 3)))
                    .step(format!("FSDP must gather a whole {} weight: too big", si(gathered, "B", 3)))
                    .step(format!("replicated weights need {} per chip", si(replicated, "B", 3))))
            },
            hints: &["Compare each option's largest per-chip weight footprint with the free memory."],
            correction: None,
            book_gave_answer: true,
        },
        unanswered(Def {
            id: "ch3-q8",
            chapter: 3,
            kind: Kind::Question,
            params: &[],
            prompt: |_| {
                "You benchmark jax.lax.all_gather, psum_scatter, psum and all_to_all on a bf16[8192, 8192] array sharded over the sixteen chips of one wrapping axis of a TPU v5e pod. Which ordering of their times should you see?\n(a) AllToAll < AllGather = ReduceScatter < AllReduce\n(b) all four take the same time\n(c) AllReduce < AllGather = ReduceScatter < AllToAll\n(d) AllGather < ReduceScatter < AllToAll < AllReduce"
                    .into()
            },
            solve: |_| {
                let net = net("v5e")?;
                let v = ArraySpec::parse("A[I, J]")
                    .map_err(s)?
                    .global_bytes(&Dims::parse("I=8192, J=8192").map_err(s)?, Dtype::Bf16)
                    .map_err(s)?;
                let (order, times) = collective_order(v, RingAxis::ring(16), &net)?;
                let correct = Q8_OPTIONS
                    .iter()
                    .find(|(_, t)| *t == order)
                    .map(|(id, _)| *id)
                    .ok_or_else(|| format!("core orders them {order}, not an option"))?;
                let options = Q8_OPTIONS.iter().map(|(id, t)| (*id, t.to_string())).collect();
                let mut sol = Solution::new(Answer::Choice { options, correct })
                    .step(format!("V = {} on a ring of 16 with wraparound", si(v.0, "B", 3)));
                for (c, t) in times {
                    sol = sol.step(format!("{} ({}): {}", c.name(), jax_name(c), seconds(t.0)));
                }
                Ok(sol.step(format!("fastest first: {order}; a real benchmark adds launch overheads and falls short of the links' peak")))
            },
            hints: &["An AllReduce is a ReduceScatter then an AllGather; an AllToAll moves each piece only part way round."],
            correction: None,
            book_gave_answer: false,
        }),
        Def {
            id: "ch3-q9a",
            chapter: 3,
            kind: Kind::Question,
            params: &[],
            prompt: |_| {
                "Case 2 done another way: A[N, M_X] (M is the contracting dimension, split over a ring of four) times a replicated B[M, K], with C[N, K] wanted on every device, computed by multiplying locally and reducing afterwards. With M = 16, what does each device do?\n(a) device d takes rows 4d to 4d + 3 of B to match its columns of A, forms a partial C[N, K]{U_X} summed over those four indices, and an AllReduce over X adds the four partial sums\n(b) each device AllGathers A, then multiplies the whole of A by B\n(c) device d computes rows 4d to 4d + 3 of C completely, then an AllGather over X assembles C\n(d) every device computes all of C from its own blocks: no communication"
                    .into()
            },
            solve: |_| {
                let p = q9_plan("C[N, K]")?;
                let sliced = p.steps.iter().any(|st| st.kind == StepKind::Slice && st.array == "B");
                let sig = comm_signature(&p);
                let correct = match (sliced, sig.as_str()) {
                    (true, "AllReduce over X of C") => "a",
                    (_, "AllGather over X of A") => "b",
                    (_, "AllGather over X of C") => "c",
                    (_, "none") => "d",
                    _ => return Err(format!("core's plan: {sig}")),
                };
                let options = vec![
                    ("a", "slice B, partial sums, AllReduce".to_string()),
                    ("b", "AllGather A first".to_string()),
                    ("c", "rows of C, then AllGather".to_string()),
                    ("d", "no communication".to_string()),
                ];
                let local = p.local_shape(Operand::B, &p.steps.iter().find(|st| st.kind == StepKind::Slice).map_or(p.b.clone(), |st| st.after.clone()));
                let mut sol = Solution::new(Answer::Choice { options, correct })
                    .step(format!("B is cut locally to its device's rows: local B is {}×{}, no data moves", local[0], local[1]));
                for d in 0..4u64 {
                    sol = sol.step(format!("device {d}: C[n, k] partial = Σ over m in {}…{} of A[n, m]·B[m, k]", d * local[0], (d + 1) * local[0] - 1));
                }
                Ok(sol.step(format!("then {sig}: C[N, K]{{U_X}} → C[N, K] on every device")))
            },
            hints: &["Each device holds only some of the contracting indices; what does a sum over only some of them give?"],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch3-q9b",
            chapter: 3,
            kind: Kind::Question,
            params: &[],
            prompt: |_| {
                "The same local multiply of A[N, M_X] by B[M, K], but now C may stay sharded over X. What replaces the AllReduce?\n(a) a ReduceScatter over X, leaving C[N_X, K] or C[N, K_X]\n(b) still an AllReduce over X\n(c) an AllToAll over X\n(d) an AllGather over X of C"
                    .into()
            },
            solve: |_| {
                let mut kinds = Vec::new();
                for out in ["C[N_X, K]", "C[N, K_X]"] {
                    kinds.push(comm_signature(&q9_plan(out)?));
                }
                let correct = if kinds.iter().all(|k| k == "ReduceScatter over X of C") { "a" } else {
                    return Err(format!("core's plans: {kinds:?}"));
                };
                let options = vec![
                    ("a", "a ReduceScatter".to_string()),
                    ("b", "an AllReduce".to_string()),
                    ("c", "an AllToAll".to_string()),
                    ("d", "an AllGather".to_string()),
                ];
                let ar = q9_plan("C[N, K]")?.comm_time();
                let rs = q9_plan("C[N_X, K]")?.comm_time();
                Ok(Solution::new(Answer::Choice { options, correct })
                    .step("both C[N_X, K] and C[N, K_X]: ReduceScatter over X of C")
                    .step(format!("it is the first half of the AllReduce: {} here against {}", seconds(rs.0), seconds(ar.0))))
            },
            hints: &["An AllReduce is a ReduceScatter followed by an AllGather."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch3-q9c",
            chapter: 3,
            kind: Kind::Question,
            params: &[],
            prompt: |_| {
                "A[N, M_X] (sharded along its contracting dimension) multiplies a replicated B[M, K]. What is the ratio of the communication of AllGathering A first to that of multiplying locally and ReduceScattering C[N, K]? Give a formula in N, M and K."
                    .into()
            },
            solve: |_| {
                let reference = reference(|x: &[f64]| {
                    let go = || -> Result<f64, String> {
                        let mesh = Mesh::parse("X=8").map_err(s)?;
                        let opts = PlanOptions::for_chip(chip("v5p").ok_or("no v5p")?).map_err(s)?;
                        let dims = format!("N={}, M={}, K={}", whole::<u64>(x[0]).unwrap_or(0), whole::<u64>(x[1]).unwrap_or(0), whole::<u64>(x[2]).unwrap_or(0));
                        let gather = plan("A[N, M_X] · B[M, K] -> C[N, K]", &mesh, &dims, &opts)?;
                        let reduce = plan("A[N, M_X] · B[M, K] -> C[N_X, K]", &mesh, &dims, &opts.with_strategy(Strategy::ReduceAfter))?;
                        let g: f64 = gather
                            .steps
                            .iter()
                            .filter(|s| s.kind == StepKind::Collective(Collective::AllGather))
                            .filter_map(|s| s.cost.map(|c| c.t_bandwidth.0))
                            .sum();
                        let r = reduce.steps.last().and_then(|s| s.cost).ok_or("no reduce")?.t_bandwidth.0;
                        Ok(g / r)
                    };
                    if x.len() < 3 { f64::NAN } else { go().unwrap_or(f64::NAN) }
                });
                let vars = vec![
                    Var::stepped("N", 64.0, 4096.0, 64.0),
                    Var::stepped("M", 64.0, 8192.0, 64.0),
                    Var::stepped("K", 64.0, 8192.0, 64.0),
                ];
                Ok(Solution::new(Answer::Symbolic { expr: "M/K".into(), vars, reference })
                    .step("AllGather A: V = bytes of A[N, M]; ReduceScatter C: V = bytes of C[N, K]")
                    .step("ratio = NM / NK = M / K"))
            },
            hints: &["Both collectives cost about V / W; compare the sizes of A and C."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch3-q10a",
            chapter: 3,
            kind: Kind::Question,
            params: &[],
            prompt: |_| {
                "On a unidirectional ring of D devices, an AllGather (or a ReduceScatter) moves an N×N matrix of one-byte scalars. How many scalars cross each link? Give a formula in N and D."
                    .into()
            },
            solve: |_| {
                Ok(Solution::new(Answer::Symbolic {
                    expr: "N^2*(1 - 1/D)".into(),
                    vars: nd_vars(),
                    reference: reference(|x: &[f64]| {
                        if x.len() < 2 { return f64::NAN; }
                        ring(Collective::AllGather, x[0], whole::<u32>(x[1]).unwrap_or(0), false).map_or(f64::NAN, |c| c.bytes_per_link.0)
                    }),
                })
                .step("each device's N²/D block must pass D − 1 links")
                .step("per link: (D − 1) · N²/D = N²(1 − 1/D)"))
            },
            hints: &["Each of the D − 1 other blocks passes every link once in a one-way ring."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch3-q10b",
            chapter: 3,
            kind: Kind::Question,
            params: &[],
            prompt: |_| {
                "Same unidirectional ring of D devices and N×N one-byte scalars, but an AllToAll. How many scalars cross each link? Give a formula in N and D."
                    .into()
            },
            solve: |_| {
                Ok(Solution::new(Answer::Symbolic {
                    expr: "N^2/2*(1 - 1/D)".into(),
                    vars: nd_vars(),
                    reference: reference(|x: &[f64]| {
                        if x.len() < 2 { return f64::NAN; }
                        ring(Collective::AllToAll, x[0], whole::<u32>(x[1]).unwrap_or(0), false).map_or(f64::NAN, |c| c.bytes_per_link.0)
                    }),
                })
                .step("each device sends an N²/D² block to every other device; blocks travel about D/2 hops on average")
                .step("per link: (N²/2)(1 − 1/D)"))
            },
            hints: &["Blocks travel different distances: on average half way round the ring."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch3-q10c",
            chapter: 3,
            kind: Kind::Question,
            params: P_RING,
            prompt: |p| {
                format!(
                    "On a unidirectional ring of {} devices with an N×N matrix (N = {}), what is the ratio of the AllToAll's time to the AllGather's?",
                    value(p, "D"), n(value(p, "N"))
                )
            },
            solve: |p| {
                let r = ring_time_ratio(Collective::AllToAll, false, Collective::AllGather, false, value(p, "N"), d_of(p))?;
                Ok(Solution::numeric(r, "x")
                    .step("AllToAll per link: (N²/2)(1 − 1/D); AllGather: N²(1 − 1/D)")
                    .step(format!("ratio = {}", sci(r, 3))))
            },
            hints: &["Divide the two per-link loads."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch3-q10d",
            chapter: 3,
            kind: Kind::Question,
            params: P_Q10D,
            prompt: |p| {
                format!(
                    "Making the links of a {}-device ring bidirectional: by what factor does the AllGather get faster?",
                    n(value(p, "D"))
                )
            },
            solve: |p| {
                let r = ring_time_ratio(Collective::AllGather, false, Collective::AllGather, true, 64.0, d_of(p))?;
                Ok(Solution::numeric(r, "x")
                    .step("each block can travel the shorter way round: the one-way time halves")
                    .step(format!("exactly 2(D − 1)/D = {}", sci(r, 4))))
            },
            hints: &["With both directions, each shard goes half way round each way."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch3-q10e",
            chapter: 3,
            kind: Kind::Question,
            params: P_Q10E,
            prompt: |p| {
                format!(
                    "Making the links of a ring of {} devices bidirectional: by what factor does an AllToAll get faster?",
                    n(value(p, "D"))
                )
            },
            solve: |p| {
                let r = ring_time_ratio(Collective::AllToAll, false, Collective::AllToAll, true, 1e6, d_of(p))?;
                Ok(Solution::numeric(r, "x")
                    .step("blocks go the shorter way (half the distance) and both directions carry load")
                    .step(format!("speed-up 4(D − 1)/D = {}", sci(r, 4))))
            },
            hints: &["Two effects: half the distance, and twice the links."],
            correction: None,
            book_gave_answer: true,
        },
        Def {
            id: "ch3-q10f",
            chapter: 3,
            kind: Kind::Question,
            params: P_Q10F,
            prompt: |p| {
                format!(
                    "On a bidirectional ring of {} devices, how many times longer does an AllGather take than an AllToAll of the same matrix?",
                    n(value(p, "D"))
                )
            },
            solve: |p| {
                let r = ring_time_ratio(Collective::AllGather, true, Collective::AllToAll, true, 64.0, d_of(p))?;
                Ok(Solution::numeric(r, "x")
                    .step(format!("ratio = {}", sci(r, 3))))
            },
            hints: &["Combine the one-way ratio (1/2) with the two speed-ups (2 and 4)."],
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
            assert!(
                (d.solve)(d.params).is_ok(),
                "{}: {:?}",
                d.id,
                (d.solve)(d.params).err()
            );
        }
    }
}
