//! Every JAX program the code widget can write for the checked cases, as JSON
//! lines for `tests/jax/check.py`: the widget's presets (Part 3's four cases) on
//! its default mesh and sizes, Part 10's `jax.jit` examples, the collective
//! matmul, and seeded random shardings on 1-D and 2-D meshes of 8 devices, each
//! in the three modes. Each line has the id, mode, Part 3 case, matmul, mesh,
//! sizes, program text, the planner's collectives (kind and mesh axes), the
//! elements each device sends under the planner's cost model, and the block of
//! each array on every device.
//!
//! `cargo run -q -p ridgeline-core --example jax_corpus > corpus.jsonl`

use ridgeline_core::comms::overlap_timeline::OverlapParams;
use ridgeline_core::hardware::chip;
use ridgeline_core::rng::Rng;
use ridgeline_core::sharding::jax::{jit_matmul, PartitionSpec};
use ridgeline_core::sharding::jax_code::{collective_matmul_code, jax_code, predicted_collectives};
use ridgeline_core::sharding::layout::Block;
use ridgeline_core::sharding::plan::MatmulPlan;
use ridgeline_core::sharding::Mesh;
use serde_json::json;

/// The sharding widget's presets (`app/src/widgets/sharded_matmul.rs`), which
/// the code widget offers: Part 3's four cases and a 2-D mesh.
const PRESETS: &[(&str, &str)] = &[
    ("case1", "A[I_X, J] · B[J, K_Y] -> C[I_X, K_Y]"),
    ("case2", "A[I, J_X] · B[J, K] -> C[I, K]"),
    ("case3-allreduce", "A[I, J_X] · B[J_X, K] -> C[I, K]"),
    ("case3-reducescatter", "A[I, J_X] · B[J_X, K] -> C[I, K_X]"),
    ("case4", "A[I_X, J] · B[J, K_X] -> C[I_X, K]"),
    ("2d-both-axes", "A[I_X, J_Y] · B[J_Y, K] -> C[I_X, K]"),
];

/// The random shardings: how many per mesh, and the seed.
const RANDOM_PER_MESH: usize = 40;
const SEED: u64 = 38;

/// `[[row start, row end], [col start, col end]]`.
fn block(b: Block) -> serde_json::Value {
    json!([[b.rows.start, b.rows.end], [b.cols.start, b.cols.end]])
}

fn emit(id: &str, plan: &MatmulPlan, spec: &str, mesh: &str, dims: &str) {
    let code = jax_code(plan);
    // The planner's blocks of A, B (as given) and C (at the end) on every
    // device, row-major over the mesh: the check compares them with the shards
    // JAX places, independently of the PartitionSpecs the programs spell.
    let blocks: Vec<_> = plan
        .device_blocks()
        .into_iter()
        .map(|d| json!({"a": block(d.a), "b": block(d.b), "c": block(d.c)}))
        .collect();
    let predicted: Vec<_> = predicted_collectives(plan)
        .into_iter()
        .map(|(kind, axes)| json!({"kind": kind, "axes": axes}))
        .collect();
    for (mode, program) in [
        ("automatic", &code.automatic),
        ("explicit", &code.explicit),
        ("manual", &code.manual),
    ] {
        let line = json!({
            "id": id,
            "mode": mode,
            "case": plan.case().number(),
            "spec": spec,
            "mesh": mesh,
            "dims": dims,
            "program": program,
            "predicted": predicted,
            "planner_elements": plan.bytes_per_device().0 / plan.dtype.bytes(),
            "blocks": blocks,
        });
        println!("{line}");
    }
}

/// A random layout of one array: each mesh axis goes to the rows, the columns
/// or nowhere, in a random order within a dimension.
fn random_dims(rng: &mut Rng, axes: &[char]) -> [String; 2] {
    let mut order: Vec<char> = axes.to_vec();
    if order.len() == 2 && rng.next_u64() % 2 == 1 {
        order.swap(0, 1);
    }
    let mut dims = [String::new(), String::new()];
    for a in order {
        match rng.next_u64() % 3 {
            0 => dims[0].push(a),
            1 => dims[1].push(a),
            _ => {}
        }
    }
    dims
}

fn dim(name: &str, axes: &str) -> String {
    if axes.is_empty() {
        name.to_string()
    } else {
        format!("{name}_{axes}")
    }
}

fn main() {
    let v5e = chip("v5e").expect("v5e is in the registry");
    // The widget's presets at its defaults.
    let (mesh, dims) = ("X=4, Y=2", "I=512, J=1024, K=256");
    for (id, spec) in PRESETS {
        let plan = MatmulPlan::parse(spec, mesh, dims, v5e).expect("a preset plans");
        emit(&format!("preset-{id}"), &plan, spec, mesh, dims);
    }
    // Part 10's jax.jit examples (`sharding::jax`'s tests and docs), with F at
    // an eighth of the book's 8192 (the collectives are the same; CPUs
    // multiply and convert large bf16 arrays slowly).
    let p = |s: &str| PartitionSpec::parse(s).expect("a valid spec");
    let book = [
        (
            "jit-allreduce",
            "P('X', 'Y')",
            "P('Y', None)",
            "P('X', None)",
            [4, 2],
            [8, 2048, 8192],
        ),
        (
            "jit-reducescatter",
            "P('X', 'Y')",
            "P('Y', None)",
            "P('X', 'Y')",
            [4, 2],
            [8, 2048, 8192],
        ),
        (
            "jit-nocomm",
            "P('X', None)",
            "P(None, 'Y')",
            "P('X', 'Y')",
            [4, 2],
            [8, 2048, 8192],
        ),
        // The collective-matmul example at an eighth of the book's sizes
        // (B, D, F = 1024, 2048, 8192), which CPUs multiply slowly.
        (
            "jit-collective-matmul",
            "P('X', 'Y')",
            "P(None, 'Y')",
            "P('X', 'Y')",
            [2, 4],
            [128, 256, 1024],
        ),
    ];
    for (id, l, r, o, m, d) in book {
        let mesh = Mesh::new(&[('X', m[0]), ('Y', m[1])]).expect("a valid mesh");
        let jm = jit_matmul(&p(l), &p(r), &p(o), &mesh, d, v5e).expect("the example plans");
        let spec = format!("{l} · {r} -> {o}");
        let mesh_text = format!("X={}, Y={}", m[0], m[1]);
        let dims_text = format!("B={}, D={}, F={}", d[0], d[1], d[2]);
        emit(
            &format!("book-{id}"),
            &jm.plan,
            &spec,
            &mesh_text,
            &dims_text,
        );
    }
    // The collective matmul (Part 10), at an eighth of the book's sizes.
    let book = OverlapParams::default();
    let cm = OverlapParams {
        b: book.b / 8,
        d: book.d / 8,
        f: book.f / 8,
        ..book
    };
    let program = collective_matmul_code(&cm).expect("the book's example");
    let predicted: Vec<_> = (1..cm.y)
        .map(|_| json!({"kind": "collective-permute", "axes": ["Y"]}))
        .collect();
    println!(
        "{}",
        json!({
            "id": "book-collective-matmul-overlapped",
            "mode": "manual",
            "case": 2,
            "spec": "A[B_X, D_Y] · W[D, F_Y] -> Out[B_X, F_Y]",
            "mesh": format!("X={}, Y={}", cm.x, cm.y),
            "dims": format!("B={}, D={}, F={}", cm.b, cm.d, cm.f),
            "program": program,
            "predicted": predicted,
            "planner_elements": ((cm.y - 1) * (cm.b / cm.x) * (cm.d / cm.y)) as f64,
        })
    );
    // Seeded random shardings on meshes of 8 devices.
    let mut rng = Rng::new(SEED);
    let dims = "I=64, J=128, K=32";
    for mesh in ["X=8", "X=4, Y=2", "X=2, Y=4"] {
        let axes: Vec<char> = Mesh::parse(mesh)
            .expect("a valid mesh")
            .axes()
            .iter()
            .map(|a| a.name)
            .collect();
        let mut seen = std::collections::BTreeSet::new();
        let mut tries = 0;
        while seen.len() < RANDOM_PER_MESH && tries < 10_000 {
            tries += 1;
            let [ai, aj] = random_dims(&mut rng, &axes);
            let [bj, bk] = random_dims(&mut rng, &axes);
            let [ci, ck] = random_dims(&mut rng, &axes);
            let spec = format!(
                "A[{}, {}] · B[{}, {}] -> C[{}, {}]",
                dim("I", &ai),
                dim("J", &aj),
                dim("J", &bj),
                dim("K", &bk),
                dim("I", &ci),
                dim("K", &ck)
            );
            if seen.contains(&spec) {
                continue;
            }
            let Ok(plan) = MatmulPlan::parse(&spec, mesh, dims, v5e) else {
                continue;
            };
            seen.insert(spec.clone());
            let id = format!(
                "random-{}-{:03}",
                mesh.replace([' ', ',', '='], ""),
                seen.len()
            );
            emit(&id, &plan, &spec, mesh, dims);
        }
    }
}
