//! Part 10 (programming TPUs in JAX): what a `PartitionSpec` does to an array,
//! which collectives `jax.jit` inserts around a sharded matmul, and the values
//! of the chapter's `shard_map` examples.
//!
//! A [`PartitionSpec`] names, for each dimension of an array, the mesh axes it
//! is split over — `P('X', 'Y')`, `P('Y', None)`, `P(('x', 'y'))` — which is
//! Part 3's notation in JAX's spelling; [`local_shape`] and [`jit_matmul`] turn
//! it into [`crate::sharding`]'s arrays and plans. [`pmean_of_slices`] and
//! [`shard_means`] compute what the chapter's `shard_map` programs return.
//!
//! ```
//! use ridgeline_core::comms::collectives::Collective;
//! use ridgeline_core::hardware::chip;
//! use ridgeline_core::sharding::jax::{jit_matmul, local_shape, pmean_of_slices, PartitionSpec};
//! use ridgeline_core::sharding::Mesh;
//!
//! let mesh = Mesh::new(&[('X', 4), ('Y', 2)]).unwrap();
//! let x = PartitionSpec::parse("P('X', 'Y')").unwrap();
//! assert_eq!(local_shape(&[8, 2048], &x, &mesh).unwrap(), vec![2, 1024]);
//!
//! // In[B_X, D_Y] · W[D_Y, F] with the output P('X', None): a local matmul, then an AllReduce over Y.
//! let w = PartitionSpec::parse("P('Y', None)").unwrap();
//! let out = PartitionSpec::parse("P('X', None)").unwrap();
//! let m = jit_matmul(&x, &w, &out, &mesh, [8, 2048, 8192], chip("v5e").unwrap()).unwrap();
//! assert_eq!((m.local_lhs, m.local_rhs, m.local_out), ([2, 1024], [1024, 8192], [2, 8192]));
//! assert_eq!(m.collectives, vec![(Collective::AllReduce, "Y".to_string())]);
//!
//! // Each of 8 shards of arange(512) keeps its first 4 elements; pmean averages them.
//! assert_eq!(pmean_of_slices(512, 8, 4).unwrap(), vec![224.0, 225.0, 226.0, 227.0]);
//! ```

use std::fmt;

use crate::comms::collectives::Collective;
use crate::dtype::Dtype;
use crate::hardware::Chip;
use crate::sharding::layout::Sharding;
use crate::sharding::plan::{MatmulPlan, Operand, PlanOptions, StepKind};
use crate::sharding::{
    ArraySpec, Dim, Dims, MatmulSpec, Mesh, ShardingError, MAX_DEVICES, MAX_DIM,
};

/// Most elements a returned vector may have.
pub const MAX_OUTPUT: u64 = 65_536;

/// Why a JAX computation was rejected.
#[derive(Debug, Clone, PartialEq)]
pub enum JaxError {
    /// The text is not a `PartitionSpec`.
    Syntax(String),
    /// A size or count is out of range or not divisible.
    BadValue(String),
    /// The sharding does not fit the mesh or shape.
    Sharding(ShardingError),
}

impl fmt::Display for JaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JaxError::Syntax(m) | JaxError::BadValue(m) => f.write_str(m),
            JaxError::Sharding(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for JaxError {}

impl From<ShardingError> for JaxError {
    fn from(e: ShardingError) -> JaxError {
        JaxError::Sharding(e)
    }
}

fn bad(msg: impl Into<String>) -> JaxError {
    JaxError::BadValue(msg.into())
}

/// A `jax.P(...)`: for each dimension, the mesh axes it is split over (major
/// first; empty for `None`). Missing trailing entries mean `None`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PartitionSpec {
    /// One entry per dimension.
    pub entries: Vec<Vec<char>>,
}

impl PartitionSpec {
    /// A spec from its entries.
    pub fn new(entries: Vec<Vec<char>>) -> PartitionSpec {
        PartitionSpec { entries }
    }

    /// Parses `P('X', 'Y')`, `jax.P('Y', None)`, `P(('x', 'y'))`, `P()` or the
    /// bare list `'X', None`. Axis names are single letters.
    pub fn parse(text: &str) -> Result<PartitionSpec, JaxError> {
        let mut t = text.trim();
        if t.len() > 1024 {
            return Err(JaxError::Syntax(
                "the spec is longer than 1024 bytes".into(),
            ));
        }
        for prefix in ["jax.sharding.PartitionSpec", "PartitionSpec", "jax.P", "P"] {
            if let Some(r) = t.strip_prefix(prefix) {
                let r = r.trim();
                t = r
                    .strip_prefix('(')
                    .and_then(|r| r.strip_suffix(')'))
                    .ok_or_else(|| {
                        JaxError::Syntax(format!("expected {prefix}(...), got {text:?}"))
                    })?;
                break;
            }
        }
        let mut entries = Vec::new();
        let mut rest = t.trim();
        while !rest.is_empty() {
            let (item, tail) = if let Some(r) = rest.strip_prefix('(') {
                let end = r
                    .find(')')
                    .ok_or_else(|| JaxError::Syntax("a tuple of axes has no closing )".into()))?;
                (&r[..end], &r[end + 1..])
            } else {
                match rest.find(',') {
                    Some(i) => (&rest[..i], &rest[i..]),
                    None => (rest, ""),
                }
            };
            let mut axes = Vec::new();
            for name in item.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                if name == "None" {
                    continue;
                }
                let n = name.trim_matches(|c| c == '\'' || c == '"');
                let mut chars = n.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) if c.is_ascii_alphabetic() => {
                        if axes.contains(&c) || entries.iter().any(|e: &Vec<char>| e.contains(&c)) {
                            return Err(JaxError::Syntax(format!(
                                "mesh axis {c} is used twice; each axis may shard an array once"
                            )));
                        }
                        axes.push(c)
                    }
                    _ => {
                        return Err(JaxError::Syntax(format!(
                            "expected a one-letter axis name in quotes or None, got {name:?}"
                        )))
                    }
                }
            }
            entries.push(axes);
            let tail = tail.trim();
            rest = match tail.strip_prefix(',') {
                Some(r) => r.trim(),
                None if tail.is_empty() => "",
                None => {
                    return Err(JaxError::Syntax(format!(
                        "expected a comma before {tail:?}"
                    )))
                }
            };
        }
        Ok(PartitionSpec { entries })
    }

    /// The axes of dimension `d` (none beyond the listed entries).
    pub fn axes(&self, d: usize) -> &[char] {
        self.entries.get(d).map_or(&[], Vec::as_slice)
    }

    /// Part 3's array for this spec: array `name` with dimensions `dim_names`.
    /// Errors if the spec has more entries than the array has dimensions.
    pub fn array_spec(&self, name: &str, dim_names: &[&str]) -> Result<ArraySpec, JaxError> {
        if self.entries.len() > dim_names.len() {
            return Err(bad(format!(
                "{self} has {} entries but the array has only {} dimensions",
                self.entries.len(),
                dim_names.len()
            )));
        }
        Ok(ArraySpec {
            name: name.to_string(),
            dims: dim_names
                .iter()
                .enumerate()
                .map(|(i, n)| Dim {
                    name: n.to_string(),
                    axes: self.axes(i).to_vec(),
                    position: 0,
                })
                .collect(),
            unreduced: Vec::new(),
            position: 0,
        })
    }
}

impl fmt::Display for PartitionSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("P(")?;
        for (i, e) in self.entries.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            match e.as_slice() {
                [] => f.write_str("None")?,
                [a] => write!(f, "'{a}'")?,
                many => {
                    let names: Vec<String> = many.iter().map(|a| format!("'{a}'")).collect();
                    write!(f, "({})", names.join(", "))?
                }
            }
        }
        f.write_str(")")
    }
}

fn dim_names(rank: usize) -> Vec<String> {
    (0..rank).map(|i| format!("d{i}")).collect()
}

/// The per-device shape of an array of `global` shape sharded by `spec` on `mesh`.
pub fn local_shape(
    global: &[u64],
    spec: &PartitionSpec,
    mesh: &Mesh,
) -> Result<Vec<u64>, JaxError> {
    let names = dim_names(global.len());
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let arr = spec.array_spec("x", &refs)?;
    let pairs: Vec<(&str, u64)> = refs.iter().copied().zip(global.iter().copied()).collect();
    Ok(arr.local_shape(mesh, &Dims::new(&pairs)?)?)
}

/// The type explicit sharding prints, e.g. `bf16[8@X,2@Y]` (`jax.typeof`).
pub fn type_text(
    dtype: Dtype,
    global: &[u64],
    spec: &PartitionSpec,
    mesh: &Mesh,
) -> Result<String, JaxError> {
    local_shape(global, spec, mesh)?;
    let dims: Vec<String> = global
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let axes: String = spec.axes(i).iter().collect();
            if axes.is_empty() {
                n.to_string()
            } else {
                format!("{n}@{axes}")
            }
        })
        .collect();
    Ok(format!("{}[{}]", dtype.name(), dims.join(",")))
}

/// A matmul as `jax.jit` partitions it: the plan, the local matmul's shapes and
/// the collectives it adds, in order.
#[derive(Debug, Clone, PartialEq)]
pub struct JitMatmul {
    /// Part 3's plan of the matmul.
    pub plan: MatmulPlan,
    /// Shape of each device's left operand when it multiplies.
    pub local_lhs: [u64; 2],
    /// Shape of each device's right operand when it multiplies.
    pub local_rhs: [u64; 2],
    /// Shape of each device's product, before any reduction.
    pub local_out: [u64; 2],
    /// The collectives added and the mesh axes each runs over (`(AllReduce, "Y")`).
    pub collectives: Vec<(Collective, String)>,
}

/// Partitions `lhs[B, D] · rhs[D, F]` with these input and output shardings on
/// `mesh`, with `dims = [B, D, F]`, in bf16 on `chip`'s links.
pub fn jit_matmul(
    lhs: &PartitionSpec,
    rhs: &PartitionSpec,
    out: &PartitionSpec,
    mesh: &Mesh,
    dims: [u64; 3],
    chip: &'static Chip,
) -> Result<JitMatmul, JaxError> {
    let spec = MatmulSpec {
        a: lhs.array_spec("In", &["B", "D"])?,
        b: rhs.array_spec("W", &["D", "F"])?,
        c: Some(out.array_spec("Out", &["B", "F"])?),
    };
    let sizes = Dims::new(&[("B", dims[0]), ("D", dims[1]), ("F", dims[2])])?;
    let plan = MatmulPlan::build(&spec, mesh, &sizes, &PlanOptions::for_chip(chip)?)?;
    let mut a = plan.a.clone();
    let mut b = plan.b.clone();
    let mut c: Sharding = plan.natural.clone();
    let mut collectives = Vec::new();
    let mut multiplied = false;
    for step in &plan.steps {
        match (step.kind, step.operand) {
            (StepKind::Matmul, _) => {
                c = step.after.clone();
                multiplied = true;
            }
            (_, Operand::A) if !multiplied => a = step.after.clone(),
            (_, Operand::B) if !multiplied => b = step.after.clone(),
            _ => {}
        }
        if let StepKind::Collective(k) = step.kind {
            collectives.push((k, step.axes.clone()));
        }
    }
    Ok(JitMatmul {
        local_lhs: plan.local_shape(Operand::A, &a),
        local_rhs: plan.local_shape(Operand::B, &b),
        local_out: plan.local_shape(Operand::C, &c),
        collectives,
        plan,
    })
}

/// `shard_map` over `devices` shards of `arange(n)`: each shard keeps its first
/// `take` elements and `pmean` averages them over all devices. Element `k` of
/// the result is the mean of `x[s·i + k]` over shards `i`, with `s = n / devices`.
pub fn pmean_of_slices(n: u64, devices: u64, take: u64) -> Result<Vec<f64>, JaxError> {
    if devices == 0 || devices > MAX_DEVICES {
        return Err(bad(format!("{devices} devices; use 1 to {MAX_DEVICES}")));
    }
    if n == 0 || n > MAX_DIM || !n.is_multiple_of(devices) {
        return Err(bad(format!(
            "arange({n}) cannot be split evenly over {devices} devices"
        )));
    }
    let shard = n / devices;
    if take == 0 || take > shard || take > MAX_OUTPUT {
        return Err(bad(format!(
            "each shard has {shard} elements; take 1 to {} of them, not {take}",
            shard.min(MAX_OUTPUT)
        )));
    }
    let offset = shard as f64 * (devices as f64 - 1.0) / 2.0;
    Ok((0..take).map(|k| offset + k as f64).collect())
}

/// `shard_map` of `x.mean()` over `arange(rows·cols).reshape(rows, cols)`
/// sharded `P(a, b)` on a two-axis mesh: `out[i][j]` is the mean of the block
/// device `(i, j)` holds.
pub fn shard_means(rows: u64, cols: u64, mesh: &Mesh) -> Result<Vec<Vec<f64>>, JaxError> {
    let [x, y] = match mesh.axes() {
        [x, y] => [x.size, y.size],
        axes => {
            return Err(bad(format!(
                "a two-axis mesh is needed, not one with {} axes",
                axes.len()
            )))
        }
    };
    let spec = PartitionSpec::new(mesh.axes().iter().map(|a| vec![a.name]).collect());
    local_shape(&[rows, cols], &spec, mesh)?;
    let layout = Sharding {
        rows: vec![0],
        cols: vec![1],
        unreduced: Vec::new(),
    };
    let c = cols as f64;
    Ok((0..x)
        .map(|i| {
            (0..y)
                .map(|j| {
                    let blk = layout.block([rows, cols], mesh, &[i, j, 0, 0]);
                    let r = (blk.rows.start + blk.rows.end - 1) as f64 / 2.0;
                    let k = (blk.cols.start + blk.cols.end - 1) as f64 / 2.0;
                    c * r + k
                })
                .collect()
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hardware::chip;

    fn p(t: &str) -> PartitionSpec {
        PartitionSpec::parse(t).unwrap()
    }

    #[test]
    fn parses_partition_specs() {
        assert_eq!(p("P('X', 'Y')").entries, vec![vec!['X'], vec!['Y']]);
        assert_eq!(p("jax.P('Y', None)").entries, vec![vec!['Y'], vec![]]);
        assert_eq!(p("P(('x', 'y'))").entries, vec![vec!['x', 'y']]);
        assert_eq!(p("P()").entries, Vec::<Vec<char>>::new());
        assert_eq!(p("'X', None").to_string(), "P('X', None)");
        assert_eq!(p("P(('x','y'), None)").to_string(), "P(('x', 'y'), None)");
        for bad in [
            "P('X'",
            "P('XY')",
            "P('X', 'X')",
            "P(('x', 'y')",
            "P(1)",
            "P('X' 'Y')",
        ] {
            let e = PartitionSpec::parse(bad);
            assert!(e.is_err(), "{bad}");
            assert!(!e.unwrap_err().to_string().is_empty());
        }
    }

    #[test]
    fn local_shapes_and_types() {
        let mesh = Mesh::new(&[('X', 4), ('Y', 2)]).unwrap();
        assert_eq!(
            local_shape(&[2048, 8192], &p("P('Y', None)"), &mesh).unwrap(),
            vec![1024, 8192]
        );
        assert_eq!(
            local_shape(&[512], &p("P(('X', 'Y'))"), &mesh).unwrap(),
            vec![64]
        );
        assert_eq!(
            local_shape(&[8, 2], &p("P('X')"), &mesh).unwrap(),
            vec![2, 2]
        );
        assert_eq!(
            local_shape(&[6, 2], &p("P('X')"), &mesh)
                .unwrap_err()
                .to_string(),
            "at byte 0: dimension d0 = 6 of x is not divisible by X = 4",
        );
        assert_eq!(
            local_shape(&[8], &p("P('X', 'Y')"), &mesh)
                .unwrap_err()
                .to_string(),
            "P('X', 'Y') has 2 entries but the array has only 1 dimensions",
        );
        assert_eq!(
            local_shape(&[8], &p("P('Z')"), &mesh)
                .unwrap_err()
                .to_string(),
            "at byte 0: x uses mesh axis Z, but the mesh has only X=4, Y=2",
        );
        let m2 = Mesh::new(&[('X', 2), ('Y', 2)]).unwrap();
        assert_eq!(
            type_text(Dtype::Bf16, &[8, 2], &p("P('X', 'Y')"), &m2).unwrap(),
            "bf16[8@X,2@Y]"
        );
    }

    #[test]
    fn jit_adds_the_right_collectives() {
        let mesh = Mesh::new(&[('X', 4), ('Y', 2)]).unwrap();
        let v5e = chip("v5e").unwrap();
        // Reduce-scatter when the output stays sharded over Y.
        let m = jit_matmul(
            &p("P('X', 'Y')"),
            &p("P('Y', None)"),
            &p("P('X', 'Y')"),
            &mesh,
            [8, 2048, 8192],
            v5e,
        )
        .unwrap();
        assert_eq!(
            m.collectives,
            vec![(Collective::ReduceScatter, "Y".to_string())]
        );
        // No contracting sharding: no collective at all.
        let m = jit_matmul(
            &p("P('X', None)"),
            &p("P(None, 'Y')"),
            &p("P('X', 'Y')"),
            &mesh,
            [8, 2048, 8192],
            v5e,
        )
        .unwrap();
        assert!(m.collectives.is_empty());
        assert_eq!(m.local_out, [2, 4096]);
        // The collective-matmul example: the lhs is gathered over Y first.
        let mesh = Mesh::new(&[('X', 2), ('Y', 4)]).unwrap();
        let m = jit_matmul(
            &p("P('X', 'Y')"),
            &p("P(None, 'Y')"),
            &p("P('X', 'Y')"),
            &mesh,
            [1024, 2048, 8192],
            v5e,
        )
        .unwrap();
        assert_eq!(m.collectives[0], (Collective::AllGather, "Y".to_string()));
        assert_eq!(m.local_lhs, [512, 2048]);
        assert_eq!(
            (jit_matmul(
                &p("P('X', 'Y', None)"),
                &p("P()"),
                &p("P()"),
                &mesh,
                [8, 8, 8],
                v5e
            ))
            .unwrap_err()
            .to_string(),
            "P('X', 'Y', None) has 3 entries but the array has only 2 dimensions"
        );
    }

    #[test]
    fn shard_map_values() {
        let out = pmean_of_slices(512, 8, 4).unwrap();
        // Brute force: the mean over shards of x[64 i + k].
        for (k, v) in out.iter().enumerate() {
            let mean = (0..8).map(|i| (64 * i + k) as f64).sum::<f64>() / 8.0;
            assert_eq!(*v, mean);
        }
        assert_eq!(
            pmean_of_slices(500, 8, 4).unwrap_err().to_string(),
            "arange(500) cannot be split evenly over 8 devices",
        );
        assert_eq!(
            pmean_of_slices(512, 8, 65).unwrap_err().to_string(),
            "each shard has 64 elements; take 1 to 64 of them, not 65",
        );
        assert_eq!(
            pmean_of_slices(512, 0, 4).unwrap_err().to_string(),
            "0 devices; use 1 to 65536",
        );

        let mesh = Mesh::new(&[('X', 4), ('Y', 2)]).unwrap();
        let m = shard_means(512, 8, &mesh).unwrap();
        for (i, row) in m.iter().enumerate() {
            for (j, v) in row.iter().enumerate() {
                assert_eq!(*v, 1024.0 * i as f64 + 4.0 * j as f64 + 509.5);
                // Brute force over the block.
                let mut s = 0.0;
                for r in 128 * i..128 * (i + 1) {
                    for c in 4 * j..4 * (j + 1) {
                        s += (8 * r + c) as f64;
                    }
                }
                assert_eq!(*v, s / 512.0);
            }
        }
        assert_eq!(
            shard_means(510, 8, &mesh).unwrap_err().to_string(),
            "at byte 0: dimension d0 = 510 of x is not divisible by X = 4",
        );
        assert_eq!(
            shard_means(512, 8, &Mesh::new(&[('X', 8)]).unwrap())
                .unwrap_err()
                .to_string(),
            "a two-axis mesh is needed, not one with 1 axes",
        );
    }
}
