//! JAX code for a sharded matmul plan (Part 10): the same computation in JAX's
//! three sharding modes, generated from a [`MatmulPlan`] so that it always agrees
//! with the plan the companion shows. The programs use the current JAX API
//! (`jax.make_mesh(..., axis_types=...)`, `jax.set_mesh`, `jax.P`,
//! `jax.shard_map`, `jax.sharding.reshard`; checked against JAX 0.10 by
//! `tests/jax/check.py`), and each is self-contained: it makes its inputs,
//! runs, and asserts that the result has the plan's output sharding and equals
//! the unsharded product.
//!
//! - **automatic**: arrays placed with `NamedSharding` on a mesh of `Auto` axes,
//!   `jax.jit` with an output sharding constraint, and the compiler inserts the
//!   collectives;
//! - **explicit**: a mesh of `Explicit` axes, where shardings are part of the
//!   array types: the einsum states its output sharding (unreduced axes
//!   included) and every other step of the plan is a `jax.sharding.reshard`;
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
//! assert!(code.automatic.contains("jax.P(None, 'X')"));
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

/// Axis names of `axes`, in order, as Python: `None`, `'X'` or `('X', 'Y')`.
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

/// A `PartitionSpec` for a layout: `jax.P('X', None)`, `jax.P(None, ('X', 'Y'))`.
/// Partial sums (unreduced axes) are not part of it.
pub fn partition_spec(plan: &MatmulPlan, layout: &Sharding) -> String {
    format!(
        "jax.P({}, {})",
        quoted(plan, &layout.rows),
        quoted(plan, &layout.cols)
    )
}

/// The JAX element type of the plan's format.
fn jnp_dtype(dtype: crate::dtype::Dtype) -> &'static str {
    match dtype {
        crate::dtype::Dtype::F32 => "jnp.float32",
        crate::dtype::Dtype::Int8 => "jnp.int8",
        _ => "jnp.bfloat16",
    }
}

/// The relative tolerance of the result check: bf16 rounds the product (and
/// any partial sums a collective adds) to 8 significant bits.
fn tolerance(dtype: crate::dtype::Dtype) -> &'static str {
    match dtype {
        crate::dtype::Dtype::F32 => "1e-5",
        crate::dtype::Dtype::Int8 => "0",
        _ => "2**-6",
    }
}

/// `jax.make_mesh` of the plan's mesh with `axis_type` (`Auto`, `Explicit`)
/// axes, made the current mesh.
fn mesh_lines(plan: &MatmulPlan, axis_type: &str) -> String {
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
    let n = plan.mesh.devices();
    format!(
        "# {n} devices; on a CPU, start Python with XLA_FLAGS=--xla_force_host_platform_device_count={n}.\n\
mesh = jax.make_mesh({}, {}, axis_types=(AxisType.{axis_type},) * {})\n\
jax.set_mesh(mesh)\n",
        tuple(&sizes),
        tuple(&names),
        sizes.len()
    )
}

fn preamble(plan: &MatmulPlan, axis_type: &str) -> String {
    let [i, j, k] = plan.dims;
    let dtype = jnp_dtype(plan.dtype);
    format!(
        "import jax\nimport jax.numpy as jnp\nimport numpy as np\nfrom jax.sharding import AxisType, NamedSharding\n\n\
{}\n\
# Small integers, so that the sharded product can be checked against NumPy's.\n\
rng = np.random.default_rng(0)\n\
a_host = rng.integers(-2, 3, size=({i}, {j})).astype(np.float32)\n\
b_host = rng.integers(-2, 3, size=({j}, {k})).astype(np.float32)\n\
a = jax.device_put(jnp.asarray(a_host, {dtype}), NamedSharding(mesh, {}))\n\
b = jax.device_put(jnp.asarray(b_host, {dtype}), NamedSharding(mesh, {}))\n",
        mesh_lines(plan, axis_type),
        partition_spec(plan, &plan.a),
        partition_spec(plan, &plan.b),
    )
}

/// Runs `matmul` and checks the output's sharding and values.
fn epilogue(plan: &MatmulPlan) -> String {
    format!(
        "\nc = matmul(a, b)\nprint(jax.typeof(c), c.sharding.spec)\n\n\
# The check: the plan's output sharding, and the unsharded product.\n\
assert c.sharding.is_equivalent_to(NamedSharding(mesh, {}), 2), c.sharding\n\
expected = a_host @ b_host\n\
tol = {}\n\
assert np.allclose(np.asarray(c, np.float32), expected, rtol=tol, atol=tol * np.abs(expected).max())\n",
        partition_spec(plan, &plan.output),
        tolerance(plan.dtype)
    )
}

fn var(op: Operand) -> &'static str {
    match op {
        Operand::A => "a",
        Operand::B => "b",
        Operand::C => "c",
    }
}

/// For each dimension, the axes `after` has beyond `before`'s (a reduce-scatter's
/// or slice's new axes), or `before` has beyond `after`'s (a gather's), in
/// layout order (major first).
fn added(before: &Sharding, after: &Sharding, d: usize) -> Vec<u8> {
    let (b, a) = (before.dim(d), after.dim(d));
    if a.len() > b.len() {
        a[b.len()..].to_vec()
    } else {
        Vec::new()
    }
}

/// The statements of the shard_map body for one plan step.
fn step_lines(plan: &MatmulPlan, step: &crate::sharding::plan::PlanStep) -> Vec<String> {
    let x = var(step.operand);
    let axes: Vec<u8> = step.moves.iter().map(|m| m.axis).collect();
    let names = quoted(plan, &axes);
    let first = step.moves.first();
    let mut lines = Vec::new();
    match step.kind {
        StepKind::Matmul => lines.push(format!("c = {} @ {}", var(Operand::A), var(Operand::B))),
        StepKind::Collective(Collective::AllGather) => {
            for d in 0..2 {
                let gone = added(&step.after, &step.before, d);
                if !gone.is_empty() {
                    lines.push(format!(
                        "{x} = jax.lax.all_gather({x}, {}, axis={d}, tiled=True)",
                        quoted(plan, &gone)
                    ));
                }
            }
        }
        StepKind::Collective(Collective::AllReduce) => {
            lines.push(format!("{x} = jax.lax.psum({x}, {names})"));
        }
        StepKind::Collective(Collective::ReduceScatter) => {
            for d in 0..2 {
                let new = added(&step.before, &step.after, d);
                if !new.is_empty() {
                    lines.push(format!(
                        "{x} = jax.lax.psum_scatter({x}, {}, scatter_dimension={d}, tiled=True)",
                        quoted(plan, &new)
                    ));
                }
            }
        }
        StepKind::Collective(Collective::AllToAll) => {
            let from = first.and_then(|m| m.from).unwrap_or(0);
            let to = first.and_then(|m| m.to).unwrap_or(1);
            lines.push(format!(
                "{x} = jax.lax.all_to_all({x}, {names}, split_axis={to}, concat_axis={from}, tiled=True)"
            ));
        }
        StepKind::Permute => lines.push(format!(
            "# {x} leaves the shard_map as {}; the sharding constraint after it moves only the blocks that must move",
            partition_spec(plan, &step.before)
        )),
        StepKind::Slice => {
            for d in 0..2 {
                let new = added(&step.before, &step.after, d);
                if !new.is_empty() {
                    let parts = plan.mesh.size_of(&new).max(1);
                    lines.push(format!(
                        "n = {x}.shape[{d}] // {parts}; {x} = jax.lax.dynamic_slice_in_dim({x}, jax.lax.axis_index({}) * n, n, axis={d})",
                        quoted(plan, &new)
                    ));
                }
            }
        }
    }
    lines
}

/// The statements of the shard_map body for the plan's steps, each step's
/// first statement followed by the step as a comment.
fn manual_body(plan: &MatmulPlan) -> Vec<String> {
    let mut out = Vec::new();
    for step in &plan.steps {
        for (n, line) in step_lines(plan, step).into_iter().enumerate() {
            if n == 0 {
                out.push(format!("    {line}  # {step}"));
            } else {
                out.push(format!("    {line}"));
            }
        }
    }
    out
}

/// A `PartitionSpec` with the layout's partial sums, as explicit mode types
/// them: `jax.P(None, 'Y', unreduced={'X'})`.
fn typed_spec(plan: &MatmulPlan, layout: &Sharding) -> String {
    if layout.unreduced.is_empty() {
        return partition_spec(plan, layout);
    }
    let names: Vec<String> = layout
        .unreduced
        .iter()
        .filter_map(|a| plan.mesh.axes().get(*a as usize))
        .map(|a| format!("'{}'", a.name))
        .collect();
    format!(
        "jax.P({}, {}, unreduced={{{}}})",
        quoted(plan, &layout.rows),
        quoted(plan, &layout.cols),
        names.join(", ")
    )
}

/// The explicit program's body: every step of the plan as a change of type.
/// Input steps and output steps are `jax.sharding.reshard`s to the layout the
/// step leaves; the matmul is an einsum whose output sharding is the plan's
/// layout straight out of the local matmul, partial sums included.
fn explicit_body(plan: &MatmulPlan) -> Vec<String> {
    plan.steps
        .iter()
        .map(|s| {
            if s.kind == StepKind::Matmul {
                format!(
                    "    c = jnp.einsum('ij,jk->ik', a, b, out_sharding={})  # {s}",
                    typed_spec(plan, &s.after)
                )
            } else {
                let x = var(s.operand);
                format!(
                    "    {x} = jax.sharding.reshard({x}, {})  # {s}",
                    typed_spec(plan, &s.after)
                )
            }
        })
        .collect()
}

/// The three programs for `plan`.
pub fn jax_code(plan: &MatmulPlan) -> JaxCode {
    let out = partition_spec(plan, &plan.output);
    let automatic = format!(
        "{}\n@jax.jit\ndef matmul(a, b):\n    c = a @ b\n    # Ask for the plan's output layout; the compiler inserts the collectives.\n    return jax.lax.with_sharding_constraint(c, NamedSharding(mesh, {out}))\n{}",
        preamble(plan, "Auto"),
        epilogue(plan)
    );
    let explicit = format!(
        "{}\n@jax.jit\ndef matmul(a, b):\n    # The sharding is part of each array's type: every layout change of the\n    # plan is stated, and the einsum names its output's, partial sums included.\n{}\n    return c\n{}",
        preamble(plan, "Explicit"),
        explicit_body(plan).join("\n"),
        epilogue(plan)
    );
    // An all_gather's result is the same on every device of the gathered axes,
    // which shard_map's type check does not infer.
    let gathers = plan
        .steps
        .iter()
        .any(|s| s.kind == StepKind::Collective(Collective::AllGather));
    let check = if gathers { ", check_vma=False" } else { "" };
    let specs = format!(
        "in_specs=({}, {})",
        partition_spec(plan, &plan.a),
        partition_spec(plan, &plan.b)
    );
    // A permute has no one shard_map collective: the per-device program ends
    // before it, and a sharding constraint on its result lets XLA move the blocks
    // (as a collective permute or AllToAll).
    let permute = plan.steps.iter().find(|s| s.kind == StepKind::Permute);
    let manual = match permute {
        None => format!(
            "{}\n@jax.jit\n@jax.shard_map(mesh=mesh, {specs}, out_specs={out}{check})\ndef matmul(a, b):\n    # Per-device code: each collective of the plan written out.\n{}\n    return c\n{}",
            preamble(plan, "Auto"),
            manual_body(plan).join("\n"),
            epilogue(plan)
        ),
        Some(step) => format!(
            "{}\n@jax.shard_map(mesh=mesh, {specs}, out_specs={}{check})\ndef local(a, b):\n    # Per-device code: each collective of the plan written out.\n{}\n    return c\n\n@jax.jit\ndef matmul(a, b):\n    return jax.lax.with_sharding_constraint(local(a, b), NamedSharding(mesh, {out}))\n{}",
            preamble(plan, "Auto"),
            partition_spec(plan, &step.before),
            manual_body(plan).join("\n"),
            epilogue(plan)
        ),
    };
    JaxCode {
        automatic,
        explicit,
        manual,
    }
}

/// The collectives the plan runs, in order, as XLA spells their HLO
/// instructions (`all-gather`, `reduce-scatter`, `all-reduce`, `all-to-all`;
/// `permute` for a [`StepKind::Permute`]), each with the names of the mesh axes
/// it runs over. `tests/jax/check.py` compares them with the compiled programs.
pub fn predicted_collectives(plan: &MatmulPlan) -> Vec<(&'static str, Vec<String>)> {
    plan.steps
        .iter()
        .filter_map(|s| {
            let kind = match s.kind {
                StepKind::Collective(Collective::AllGather) => "all-gather",
                StepKind::Collective(Collective::ReduceScatter) => "reduce-scatter",
                StepKind::Collective(Collective::AllReduce) => "all-reduce",
                StepKind::Collective(Collective::AllToAll) => "all-to-all",
                StepKind::Permute => "permute",
                StepKind::Slice | StepKind::Matmul => return None,
            };
            let mut axes: Vec<String> = s
                .moves
                .iter()
                .filter_map(|m| plan.mesh.axes().get(m.axis as usize))
                .map(|a| a.name.to_string())
                .collect();
            axes.sort();
            axes.dedup();
            Some((kind, axes))
        })
        .collect()
}

/// The book's overlapped collective matmul (Part 10) as a `shard_map`
/// program for the mesh and sizes of `p`: `A[B_X, D_Y] · W[D, F_Y]`, looping
/// over the `Y` chunks of `A` with `ppermute` while multiplying. Each loop step
/// carries the per-chip times [`crate::comms::overlap_timeline::overlap_timeline`] computes, as
/// comments, so the code and the timeline agree. Like [`jax_code`]'s programs it
/// makes its inputs and checks the result against the unsharded product.
pub fn collective_matmul_code(
    p: &crate::comms::overlap_timeline::OverlapParams,
) -> Result<String, String> {
    let r = crate::comms::overlap_timeline::overlap_timeline(p)?;
    let us = |t: crate::units::Seconds| crate::format::si(t.0, "s", 3);
    let dtype = jnp_dtype(p.dtype);
    let n = p.x * p.y;
    Ok(format!(
        r#"import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import AxisType

# {n} devices; on a CPU, start Python with XLA_FLAGS=--xla_force_host_platform_device_count={n}.
mesh = jax.make_mesh(({x}, {y}), ('X', 'Y'), axis_types=(AxisType.Explicit,) * 2)
jax.set_mesh(mesh)

B, D, F = {b}, {d}, {f}
# Small integers, so that the result can be checked against NumPy's.
rng = np.random.default_rng(0)
a_host = rng.integers(-2, 3, size=(B, D)).astype(np.float32)
w_host = rng.integers(-2, 3, size=(D, F)).astype(np.float32)
A = jax.device_put(jnp.asarray(a_host, {dtype}), jax.P('X', 'Y'))
W = jax.device_put(jnp.asarray(w_host, {dtype}), jax.P(None, 'Y'))

def collective_matmul(lhs, rhs):
    # lhs: A[B/X, D/Y] loops around the Y ring; rhs: W[D, F/Y] stays put.
    axis_size = jax.lax.axis_size('Y')  # {y}
    idx = jax.lax.axis_index('Y')
    chunk = lhs.shape[1]  # D/Y = {chunk}

    def step(i, carry):
        accum, lhs = carry
        rhs_chunk = jax.lax.dynamic_slice_in_dim(rhs, (idx + i) % axis_size * chunk, chunk)
        update = lhs @ rhs_chunk  # {t_mm} per chip
        # Pass our chunk to the left neighbour while the matmul runs: {t_pp} per hop.
        lhs = jax.lax.ppermute(lhs, 'Y', perm=[(j, (j - 1) % axis_size) for j in range(axis_size)])
        return accum + update, lhs

    accum = jax.lax.pcast(jnp.zeros((lhs.shape[0], rhs.shape[1]), dtype=lhs.dtype), ('X', 'Y'), to='varying')
    accum, lhs = jax.lax.fori_loop(0, axis_size - 1, step, (accum, lhs), unroll=True)
    i = axis_size - 1  # the last chunk needs no permute
    rhs_chunk = jax.lax.dynamic_slice_in_dim(rhs, (idx + i) % axis_size * chunk, chunk)
    return accum + lhs @ rhs_chunk

matmul = jax.jit(jax.shard_map(collective_matmul,
    in_specs=(jax.P('X', 'Y'), jax.P(None, 'Y')), out_specs=jax.P('X', 'Y')))
out = matmul(A, W)  # about {t_all} per chip; blocking AllGather + matmul: {t_block}

# The check: the unsharded product.
expected = a_host @ w_host
tol = {tol}
assert np.allclose(np.asarray(out, np.float32), expected, rtol=tol, atol=tol * np.abs(expected).max())
"#,
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
        tol = tolerance(p.dtype),
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
        assert!(
            c.automatic.contains("jax.P('X', None)") && c.automatic.contains("jax.P(None, 'Y')")
        );
        let c = code("A[I, J_X] · B[J, K] -> C[I, K]");
        assert!(
            c.manual
                .contains("a = jax.lax.all_gather(a, 'X', axis=1, tiled=True)"),
            "{}",
            c.manual
        );
        assert!(c.manual.contains("check_vma=False"));
        assert!(c
            .explicit
            .contains("a = jax.sharding.reshard(a, jax.P(None, None))"));
        let c = code("A[I, J_X] · B[J_X, K] -> C[I, K_X]");
        assert!(
            c.manual
                .contains("jax.lax.psum_scatter(c, 'X', scatter_dimension=1, tiled=True)"),
            "{}",
            c.manual
        );
        assert!(!c.manual.contains("check_vma"));
        assert!(
            c.explicit
                .contains("out_sharding=jax.P(None, None, unreduced={'X'})")
                && c.explicit
                    .contains("c = jax.sharding.reshard(c, jax.P(None, 'X'))"),
            "{}",
            c.explicit
        );
        let c = code("A[I_X, J] · B[J, K] -> C[I, K_X]");
        assert!(
            c.manual.contains("jax.lax.all_to_all(c, 'X'"),
            "{}",
            c.manual
        );
        assert!(c
            .manual
            .contains("mesh = jax.make_mesh((4, 2), ('X', 'Y'), axis_types=(AxisType.Auto,) * 2)"));
        assert!(c.explicit.contains("axis_types=(AxisType.Explicit,) * 2)"));
    }

    /// Axes leaving or joining a dimension together are named major first,
    /// one collective per dimension.
    #[test]
    fn several_axes_keep_the_layout_order() {
        let c = code("A[I, J_XY] · B[J, K] -> C[I, K]");
        assert!(
            c.manual
                .contains("a = jax.lax.all_gather(a, ('X', 'Y'), axis=1, tiled=True)"),
            "{}",
            c.manual
        );
        let c = code("A[I, J_XY] · B[J_XY, K] -> C[I_X, K_Y]");
        assert!(
            c.manual
                .contains("c = jax.lax.psum_scatter(c, 'X', scatter_dimension=0, tiled=True)")
                && c.manual
                    .contains("c = jax.lax.psum_scatter(c, 'Y', scatter_dimension=1, tiled=True)"),
            "{}",
            c.manual
        );
        let plan = parsed("A[I, J_XY] · B[J_XY, K] -> C[I_X, K_Y]");
        assert_eq!(
            predicted_collectives(&plan),
            vec![("reduce-scatter", vec!["X".to_string(), "Y".to_string()])]
        );
    }

    /// The programs use JAX's current API (0.10): none of the names it removed
    /// or renamed, and every program makes its inputs and checks its result.
    #[test]
    fn current_jax_names_only() {
        let mut programs = Vec::new();
        for spec in [
            "A[I_X, J] · B[J, K_Y] -> C[I_X, K_Y]",
            "A[I, J_X] · B[J, K] -> C[I, K]",
            "A[I, J_X] · B[J_X, K] -> C[I, K_X]",
            "A[I_X, J] · B[J, K_X] -> C[I_X, K]",
            "A[I_X, J] · B[J, K] -> C[I, K_X]",
            "A[I_Y, J] · B[J, K_X] -> C[I, K_Y]",
        ] {
            let c = code(spec);
            programs.extend([c.automatic, c.explicit, c.manual]);
        }
        programs.push(
            collective_matmul_code(&crate::comms::overlap_timeline::OverlapParams::default())
                .unwrap(),
        );
        for p in &programs {
            for gone in [
                "use_mesh",
                "jax.experimental",
                "PartitionSpec",
                "pvary",
                "check_rep",
                "auto_axes",
                "mesh_utils",
                "with mesh",
            ] {
                assert!(!p.contains(gone), "{gone} in\n{p}");
            }
            for needed in [
                "jax.make_mesh(",
                "axis_types=(AxisType.",
                "jax.set_mesh(mesh)",
                "jax.P(",
                "np.allclose(",
            ] {
                assert!(p.contains(needed), "{needed} missing in\n{p}");
            }
            // Every statement starts at a multiple of four spaces, and a block
            // (a line ending in a colon) is indented under its header.
            let indent = |l: &str| l.len() - l.trim_start().len();
            let lines: Vec<&str> = p.lines().collect();
            for (n, line) in lines.iter().enumerate() {
                assert!(indent(line) % 4 == 0, "odd indentation: {line:?}");
                if line.ends_with(':') {
                    let next = lines.get(n + 1).copied().unwrap_or("");
                    assert!(indent(next) > indent(line), "no block after {line:?}");
                }
            }
        }
        assert!(programs[2].contains("jax.shard_map(mesh=mesh"));
    }

    #[test]
    fn every_step_appears_in_the_manual_program() {
        for spec in [
            "A[I_X, J_Y] · B[J_Y, K] -> C[I_X, K]",
            "A[I, J_X] · B[J_X, K_Y] -> C[I, K_XY]",
        ] {
            let plan = parsed(spec);
            let code = jax_code(&plan);
            for step in &plan.steps {
                assert!(code.manual.contains(&format!("# {step}")), "{step}");
            }
            assert!(code.manual.contains("return c"));
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
        assert!(code.contains("jax.make_mesh((2, 4), ('X', 'Y'), axis_types="));
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
