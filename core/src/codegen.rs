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
//! use ridgeline_core::codegen::jax_code;
//! use ridgeline_core::hardware::chip;
//! use ridgeline_core::sharding::plan::MatmulPlan;
//!
//! let plan = MatmulPlan::parse("A[I, J_X] · B[J_X, K] -> C[I, K]", "X=4, Y=2", "I=512, J=1024, K=256",
//!     chip("v5e").unwrap()).unwrap();
//! let code = jax_code(&plan);
//! assert!(code.manual.contains("jax.lax.psum(c, 'X')"));
//! assert!(code.automatic.contains("P(None, 'X')"));
//! ```

use crate::collectives::Collective;
use crate::sharding::plan::{Layout, MatmulPlan, Operand, StepKind};

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
pub fn partition_spec(plan: &MatmulPlan, layout: &Layout) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hardware::chip;

    fn code(spec: &str) -> JaxCode {
        let plan = MatmulPlan::parse(
            spec,
            "X=4, Y=2",
            "I=512, J=1024, K=256",
            chip("v5e").unwrap(),
        )
        .unwrap();
        jax_code(&plan)
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
            let plan = MatmulPlan::parse(
                spec,
                "X=4, Y=2",
                "I=512, J=1024, K=256",
                chip("v5e").unwrap(),
            )
            .unwrap();
            let body = manual_body(&plan);
            assert_eq!(body.len(), plan.steps.len());
            assert!(jax_code(&plan).manual.contains("return c"));
        }
    }
}
