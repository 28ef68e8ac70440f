//! JAX code for a sharded matmul plan (Part 10): the same computation in JAX's
//! three sharding modes, generated from a [`MatmulPlan`] so that it always agrees
//! with the plan the companion shows.
//!
//! - **automatic**: arrays placed with `NamedSharding`, `jax.jit` with an output
//!   sharding, and the compiler inserts the collectives;
//! - **explicit**: a mesh with explicit axes, where shardings are part of the
//!   array types and the einsum states its output sharding;
//! - **manual**: `jax.shard_map`, a per-device program with the plan's
//!   collectives written out (`all_gather`, `psum`, `psum_scatter`, `all_to_all`).
//!
//! ```
//! use ridgeline_core::sharding::jax_code::jax_code;
//! use ridgeline_core::hardware::chip;
//! use ridgeline_core::sharding::plan::MatmulPlan;
//!
//! let plan = MatmulPlan::parse("A[I, J_X] · B[J_X, K] -> C[I, K]", "X=4, Y=2", "I=512, J=1024, K=256",
//!     chip("v5e").unwrap()).unwrap();
//! let code = jax_code(&plan);
//! assert!(code.manual.contains("jax.lax.psum(c, 'X')"));
//! assert!(code.automatic.contains("P(None, 'X')"));
//! ```

use crate::comms::collectives::Collective;
use crate::sharding::layout::Sharding;
use crate::sharding::plan::{MatmulPlan, Operand, StepKind};

/// The three programs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JaxCode {
    /// `jax.jit` with shardings; the compiler adds the communication.
    pub automatic: String,
    /// Explicit-axis mesh: shardings in the types, output sharding stated.
    pub explicit: String,
    /// `jax.shard_map` with the collectives written out.
    pub manual: String,
}

fn quoted(plan: &MatmulPlan, axes: &[u8]) -> String {
    let names: Vec<String> = axes
        .iter()
        .filter_map(|a| plan.mesh.axes().get(*a as usize))
        .map(|a| format!("'{}'", a.name))
        .collect();
    match names.len() {
        0 => "None".into(),
        1 => names[0].clone(),
        _ => format!("({})", names.join(", ")),
    }
}

/// A `PartitionSpec` for a layout: `P('X', None)`, `P(None, ('X', 'Y'))`.
pub fn partition_spec(plan: &MatmulPlan, layout: &Sharding) -> String {
    format!(
        "P({}, {})",
        quoted(plan, &layout.rows),
        quoted(plan, &layout.cols)
    )
}

fn preamble(plan: &MatmulPlan, explicit: bool) -> String {
    let sizes: Vec<String> = plan
        .mesh
        .axes()
        .iter()
        .map(|a| a.size.to_string())
        .collect();
    let names: Vec<String> = plan
        .mesh
        .axes()
        .iter()
        .map(|a| format!("'{}'", a.name))
        .collect();
    let tuple = |v: &[String]| {
        if v.len() == 1 {
            format!("({},)", v[0])
        } else {
            format!("({})", v.join(", "))
        }
    };
    let [i, j, k] = plan.dims;
    let dtype = match plan.dtype {
        crate::dtype::Dtype::F32 => "jnp.float32",
        crate::dtype::Dtype::Int8 => "jnp.int8",
        _ => "jnp.bfloat16",
    };
    let mut s = String::from("import jax\nimport jax.numpy as jnp\nfrom jax.sharding import NamedSharding, PartitionSpec as P");
    if explicit {
        s.push_str(", AxisType");
    }
    s.push_str("\n\n");
    let axis_types = if explicit {
        format!(", axis_types=(AxisType.Explicit,) * {}", sizes.len())
    } else {
        String::new()
    };
    s.push_str(&format!(
        "# {} devices: set XLA_FLAGS=--xla_force_host_platform_device_count={} to try this on a CPU.\n",
        plan.mesh.devices(),
        plan.mesh.devices()
    ));
    s.push_str(&format!(
        "mesh = jax.make_mesh({}, {}{axis_types})\n",
        tuple(&sizes),
        tuple(&names)
    ));
    s.push_str(&format!(
        "a = jax.device_put(jnp.ones(({i}, {j}), {dtype}), NamedSharding(mesh, {}))\n",
        partition_spec(plan, &plan.a)
    ));
    s.push_str(&format!(
        "b = jax.device_put(jnp.ones(({j}, {k}), {dtype}), NamedSharding(mesh, {}))\n",
        partition_spec(plan, &plan.b)
    ));
    s
}

fn var(op: Operand) -> &'static str {
    match op {
        Operand::A => "a",
        Operand::B => "b",
        Operand::C => "c",
    }
}

/// The statements of the shard_map body for the plan's steps.
fn manual_body(plan: &MatmulPlan) -> Vec<String> {
    let mut lines = Vec::new();
    for step in &plan.steps {
        let x = var(step.operand);
        let axes: Vec<u8> = step.moves.iter().map(|m| m.axis).collect();
        let names = quoted(plan, &axes);
        let comment = format!("  # {step}");
        let first = step.moves.first();
        let line = match step.kind {
            StepKind::Matmul => format!("c = {} @ {}", var(Operand::A), var(Operand::B)),
            StepKind::Collective(Collective::AllGather) => {
                let d = first.and_then(|m| m.from).unwrap_or(0);
                format!("{x} = jax.lax.all_gather({x}, {names}, axis={d}, tiled=True)")
            }
            StepKind::Collective(Collective::AllReduce) => {
                format!("{x} = jax.lax.psum({x}, {names})")
            }
            StepKind::Collective(Collective::ReduceScatter) => {
                let d = first.and_then(|m| m.to).unwrap_or(0);
                format!(
                    "{x} = jax.lax.psum_scatter({x}, {names}, scatter_dimension={d}, tiled=True)"
                )
            }
            StepKind::Collective(Collective::AllToAll) => {
                let from = first.and_then(|m| m.from).unwrap_or(0);
                let to = first.and_then(|m| m.to).unwrap_or(1);
                format!("{x} = jax.lax.all_to_all({x}, {names}, split_axis={to}, concat_axis={from}, tiled=True)")
            }
            StepKind::Permute => format!(
                "# {x} leaves the shard_map as {}; the sharding constraint after it moves only the blocks that must move",
                partition_spec(plan, &step.before)
            ),
            StepKind::Slice => {
                let d = first.and_then(|m| m.to).unwrap_or(0);
                let parts = plan.mesh.size_of(&axes).max(1);
                format!(
                    "n = {x}.shape[{d}] // {parts}; {x} = jax.lax.dynamic_slice_in_dim({x}, jax.lax.axis_index({names}) * n, n, axis={d})"
                )
            }
        };
        lines.push(format!("    {line}{comment}"));
    }
    lines
}

/// The three programs for `plan`.
pub fn jax_code(plan: &MatmulPlan) -> JaxCode {
    let out = partition_spec(plan, &plan.output);
    let automatic = format!(
        "{}\n@jax.jit\ndef matmul(a, b):\n    c = a @ b\n    # Ask for the plan's output layout; the compiler inserts the collectives.\n    return jax.lax.with_sharding_constraint(c, NamedSharding(mesh, {out}))\n\nc = matmul(a, b)\nprint(jax.typeof(c), c.sharding)\n",
        preamble(plan, false)
    );
    let explicit = format!(
        "{}\n@jax.jit\ndef matmul(a, b):\n    # With explicit axes the sharding is part of the type; state the output's.\n    return jnp.einsum('ij,jk->ik', a, b, out_sharding={out})\n\nwith jax.sharding.use_mesh(mesh):\n    c = matmul(a, b)\nprint(jax.typeof(c))\n",
        preamble(plan, true)
    );
    // A permute has no one shard_map collective: the per-device program ends
    // before it, and a sharding constraint on its result lets XLA move the blocks
    // (as a collective permute or AllToAll).
    let permute = plan.steps.iter().find(|s| s.kind == StepKind::Permute);
    let manual = match permute {
        None => format!(
            "{}\n@jax.jit\n@jax.shard_map(mesh=mesh, in_specs=({}, {}), out_specs={out})\ndef matmul(a, b):\n    # Per-device code: each collective of the plan written out.\n{}\n    return c\n\nc = matmul(a, b)\n",
            preamble(plan, false),
            partition_spec(plan, &plan.a),
            partition_spec(plan, &plan.b),
            manual_body(plan).join("\n")
        ),
        Some(step) => format!(
            "{}\n@jax.shard_map(mesh=mesh, in_specs=({}, {}), out_specs={})\ndef local(a, b):\n    # Per-device code: each collective of the plan written out.\n{}\n    return c\n\n@jax.jit\ndef matmul(a, b):\n    return jax.lax.with_sharding_constraint(local(a, b), NamedSharding(mesh, {out}))\n\nc = matmul(a, b)\n",
            preamble(plan, false),
            partition_spec(plan, &plan.a),
            partition_spec(plan, &plan.b),
            partition_spec(plan, &step.before),
            manual_body(plan).join("\n")
        ),
    };
    JaxCode {
        automatic,
        explicit,
        manual,
    }
}

/// The book's overlapped collective matmul (Part 10) as a `shard_map`
/// program for the mesh and sizes of `p`: `A[B_X, D_Y] · W[D, F_Y]`, looping
/// over the `Y` chunks of `A` with `ppermute` while multiplying. Each loop step
/// carries the per-chip times [`crate::comms::overlap_timeline::overlap_timeline`] computes, as
/// comments, so the code and the timeline agree.
pub fn collective_matmul_code(
    p: &crate::comms::overlap_timeline::OverlapParams,
) -> Result<String, String> {
    let r = crate::comms::overlap_timeline::overlap_timeline(p)?;
    let us = |t: crate::units::Seconds| crate::format::si(t.0, "s", 3);
    let dtype = match p.dtype {
        crate::dtype::Dtype::F32 => "jnp.float32",
        crate::dtype::Dtype::Int8 => "jnp.int8",
        _ => "jnp.bfloat16",
    };
    Ok(format!(
        "import jax\nimport jax.numpy as jnp\nimport jax.sharding as shd\n\n\
mesh = jax.make_mesh(({x}, {y}), ('X', 'Y'), (shd.AxisType.Explicit, shd.AxisType.Explicit))\n\
jax.set_mesh(mesh)\n\n\
B, D, F = {b}, {d}, {f}\n\
A = jax.device_put(jnp.ones((B, D), dtype={dtype}), jax.P('X', 'Y'))\n\
W = jax.device_put(jnp.ones((D, F), dtype={dtype}), jax.P(None, 'Y'))\n\n\
def collective_matmul(lhs, rhs):\n\
    # lhs: A[B/X, D/Y] loops around the Y ring; rhs: W[D, F/Y] stays put.\n\
    axis_size = jax.lax.axis_size('Y')  # {y}\n\
    idx = jax.lax.axis_index('Y')\n\
    chunk = lhs.shape[1]  # D/Y = {chunk}\n\n\
    def step(i, carry):\n\
        accum, lhs = carry\n\
        rhs_chunk = jax.lax.dynamic_slice_in_dim(rhs, (idx + i) % axis_size * chunk, chunk)\n\
        update = lhs @ rhs_chunk  # {t_mm} per chip\n\
        # Pass our chunk to the left neighbour while the matmul runs: {t_pp} per hop.\n\
        lhs = jax.lax.ppermute(lhs, 'Y', perm=[(j, (j - 1) % axis_size) for j in range(axis_size)])\n\
        return accum + update, lhs\n\n\
    accum = jax.lax.pvary(jnp.zeros((lhs.shape[0], rhs.shape[1]), dtype=lhs.dtype), ('X', 'Y'))\n\
    accum, lhs = jax.lax.fori_loop(0, axis_size - 1, step, (accum, lhs), unroll=True)\n\
    i = axis_size - 1  # the last chunk needs no permute\n\
    rhs_chunk = jax.lax.dynamic_slice_in_dim(rhs, (idx + i) % axis_size * chunk, chunk)\n\
    return accum + lhs @ rhs_chunk\n\n\
matmul = jax.jit(jax.shard_map(collective_matmul,\n\
    in_specs=(jax.P('X', 'Y'), jax.P(None, 'Y')), out_specs=jax.P('X', 'Y')))\n\
out = matmul(A, W)  # about {t_all} per chip; blocking AllGather + matmul: {t_block}\n",
        x = p.x,
        y = p.y,
        b = p.b,
        d = p.d,
        f = p.f,
        chunk = p.d / p.y,
        t_mm = us(r.chunk_matmul),
        t_pp = us(r.chunk_permute),
        t_all = us(r.overlapped.total),
        t_block = us(r.blocking.total),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hardware::chip;

    /// `spec` on a 4×2 mesh of v5e chips, at the sizes every test here uses.
    fn parsed(spec: &str) -> MatmulPlan {
        MatmulPlan::parse(
            spec,
            "X=4, Y=2",
            "I=512, J=1024, K=256",
            chip("v5e").unwrap(),
        )
        .unwrap()
    }

    fn code(spec: &str) -> JaxCode {
        jax_code(&parsed(spec))
    }

    #[test]
    fn each_case_writes_its_collective() {
        let c = code("A[I_X, J] · B[J, K_Y] -> C[I_X, K_Y]");
        assert!(!c.manual.contains("jax.lax."), "{}", c.manual);
        assert!(c.automatic.contains("P('X', None)") && c.automatic.contains("P(None, 'Y')"));
        let c = code("A[I, J_X] · B[J, K] -> C[I, K]");
        assert!(
            c.manual
                .contains("a = jax.lax.all_gather(a, 'X', axis=1, tiled=True)"),
            "{}",
            c.manual
        );
        let c = code("A[I, J_X] · B[J_X, K] -> C[I, K_X]");
        assert!(
            c.manual
                .contains("jax.lax.psum_scatter(c, 'X', scatter_dimension=1, tiled=True)"),
            "{}",
            c.manual
        );
        assert!(c.explicit.contains("out_sharding=P(None, 'X')"));
        let c = code("A[I_X, J] · B[J, K] -> C[I, K_X]");
        assert!(
            c.manual.contains("jax.lax.all_to_all(c, 'X'"),
            "{}",
            c.manual
        );
        assert!(c
            .manual
            .contains("mesh = jax.make_mesh((4, 2), ('X', 'Y'))"));
    }

    #[test]
    fn every_step_appears_in_the_manual_program() {
        for spec in [
            "A[I_X, J_Y] · B[J_Y, K] -> C[I_X, K]",
            "A[I, J_X] · B[J_X, K_Y] -> C[I, K_XY]",
        ] {
            let plan = parsed(spec);
            let body = manual_body(&plan);
            assert_eq!(body.len(), plan.steps.len());
            assert!(jax_code(&plan).manual.contains("return c"));
        }
    }
}

#[cfg(test)]
mod collective_matmul_tests {
    use super::collective_matmul_code;
    use crate::comms::overlap_timeline::{overlap_timeline, OverlapParams};

    #[test]
    fn generated_code_matches_the_timeline() {
        let p = OverlapParams::default();
        let code = collective_matmul_code(&p).unwrap();
        let r = overlap_timeline(&p).unwrap();
        assert!(code.contains("jax.make_mesh((2, 4), ('X', 'Y')"));
        assert!(code.contains("B, D, F = 1024, 2048, 8192"));
        assert!(code.contains("chunk = lhs.shape[1]  # D/Y = 512"));
        assert!(code.contains(&crate::format::si(r.overlapped.total.0, "s", 3)));
        assert!(code.contains("jax.lax.ppermute(lhs, 'Y'"));
        let odd = OverlapParams {
            y: 3,
            ..OverlapParams::default()
        };
        assert!(collective_matmul_code(&odd).unwrap_err().starts_with("d:"));
    }
}
