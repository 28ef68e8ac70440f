//! Part 3's sharding notation, parsed and turned into communication plans.
//!
//! `A[I_X, J] · B[J, K_Y] → C[I_X, K_Y]` says that A's rows are split over mesh
//! axis X, B's columns over Y, and that the product keeps both splits. The
//! parser accepts the book's spellings (`·`, `*`, `@`, `x` for the product,
//! `->` or `→`, multi-axis subscripts such as `J_XY`, an `{U_X}` unreduced
//! marker on the output) and rejects anything invalid with a precise message
//! and the byte position of the problem. From a parsed matmul, a mesh and
//! concrete sizes, [`plan::MatmulPlan`] decides which of the book's four cases
//! applies and which collectives to run.
//!
//! ```
//! use ridgeline_core::hardware::chip;
//! use ridgeline_core::sharding::{Dims, Mesh, MatmulSpec};
//! use ridgeline_core::sharding::plan::{Case, MatmulPlan, PlanOptions};
//!
//! let spec = MatmulSpec::parse("A[I, J_X] · B[J_X, K] -> C[I, K]").unwrap();
//! let mesh = Mesh::parse("X=4, Y=2").unwrap();
//! let dims = Dims::parse("I=256, J=1024, K=512").unwrap();
//! let opts = PlanOptions::for_chip(chip("v5e").unwrap()).unwrap();
//! let plan = MatmulPlan::build(&spec, &mesh, &dims, &opts).unwrap();
//! assert_eq!(plan.case(), Case::BothContracting);
//! assert_eq!(plan.steps.last().unwrap().to_string(),
//!            "AllReduce C over X: 393 kB per device, 5.83 µs on TPU v5e");
//!
//! let err = MatmulSpec::parse("A[I_X, J_X] · B[J, K]").unwrap_err();
//! assert!(err.to_string().contains("axis X is used twice in A"));
//! ```

pub mod emulator;
pub mod jax;
pub mod jax_code;
pub mod layout;
pub mod parser;
pub mod permute;
pub mod plan;

use crate::comms::collectives::RingAxis;
use crate::dtype::Dtype;
use crate::units::Bytes;

/// Most mesh axes a mesh may have.
pub const MAX_MESH_AXES: usize = 4;
/// Largest size of one mesh axis.
pub const MAX_AXIS_SIZE: u32 = 65_536;
/// Largest number of devices in a mesh.
pub const MAX_DEVICES: u64 = 65_536;
/// Largest size of one array dimension.
pub const MAX_DIM: u64 = 1 << 40;
/// Longest text the parsers accept, in bytes.
pub const MAX_TEXT: usize = 4096;

/// What kind of problem an input has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// Nothing was given.
    Empty,
    /// The text does not follow the notation.
    Syntax,
    /// A name refers to a mesh axis the mesh lacks.
    UnknownAxis,
    /// A mesh axis appears twice in one array.
    AxisReused,
    /// A dimension is not divisible by the mesh axes it is split over.
    NotDivisible,
    /// The two inputs do not share their contracting dimension, or the output's
    /// dimensions are not the inputs' free ones.
    DimMismatch,
    /// A size is zero, or larger than the caps.
    BadSize,
    /// A dimension has no size.
    MissingSize,
    /// Something valid in the notation that plans do not support.
    Unsupported,
}

/// A rejected input: what is wrong, and where (a byte offset into the text).
#[derive(Debug, Clone, PartialEq)]
pub struct ShardingError {
    /// The kind of problem.
    pub kind: ErrorKind,
    /// A sentence for the reader.
    pub message: String,
    /// Byte offset into the text the problem was found at, when it is about text.
    pub position: Option<usize>,
}

impl ShardingError {
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> ShardingError {
        ShardingError {
            kind,
            message: message.into(),
            position: None,
        }
    }

    pub(crate) fn at(
        kind: ErrorKind,
        position: usize,
        message: impl Into<String>,
    ) -> ShardingError {
        ShardingError {
            kind,
            message: message.into(),
            position: Some(position),
        }
    }
}

impl std::fmt::Display for ShardingError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.position {
            Some(p) => write!(f, "at byte {p}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for ShardingError {}

/// One named axis of a device mesh.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MeshAxis {
    /// Its one-letter name (`X`).
    pub name: char,
    /// Devices along it.
    pub size: u32,
    /// Whether the axis closes into a ring (wraparound); the default is `true`.
    pub wrap: bool,
}

/// Coordinates of a device in a mesh, one entry per mesh axis (unused entries are 0).
pub type Coord = [u32; MAX_MESH_AXES];

/// A logical mesh of devices: named axes, the first one major.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mesh {
    axes: Vec<MeshAxis>,
}

impl Mesh {
    /// A mesh from `(name, size)` pairs, every axis a ring.
    pub fn new(axes: &[(char, u32)]) -> Result<Mesh, ShardingError> {
        if axes.is_empty() {
            return Err(ShardingError::new(ErrorKind::Empty, "the mesh has no axes"));
        }
        if axes.len() > MAX_MESH_AXES {
            return Err(ShardingError::new(
                ErrorKind::BadSize,
                format!(
                    "a mesh may have at most {MAX_MESH_AXES} axes, not {}",
                    axes.len()
                ),
            ));
        }
        let mut out: Vec<MeshAxis> = Vec::with_capacity(axes.len());
        let mut devices: u64 = 1;
        for &(name, size) in axes {
            if !name.is_ascii_alphabetic() {
                return Err(ShardingError::new(
                    ErrorKind::Syntax,
                    format!("mesh axis names are single letters, not {name:?}"),
                ));
            }
            if out.iter().any(|a| a.name == name) {
                return Err(ShardingError::new(
                    ErrorKind::AxisReused,
                    format!("mesh axis {name} is listed twice"),
                ));
            }
            if size == 0 || size > MAX_AXIS_SIZE {
                return Err(ShardingError::new(
                    ErrorKind::BadSize,
                    format!(
                        "mesh axis {name} has size {size}; sizes run from 1 to {MAX_AXIS_SIZE}"
                    ),
                ));
            }
            devices *= size as u64;
            if devices > MAX_DEVICES {
                return Err(ShardingError::new(
                    ErrorKind::BadSize,
                    format!("the mesh has more than {MAX_DEVICES} devices"),
                ));
            }
            out.push(MeshAxis {
                name,
                size,
                wrap: true,
            });
        }
        Ok(Mesh { axes: out })
    }

    /// Parses `X=4, Y=2`, `X:4 Y:2`, `{'X': 4, 'Y': 2}`, `Mesh({'X': 4})` or `4x2`
    /// (unnamed sizes are called X, Y, Z, W).
    pub fn parse(text: &str) -> Result<Mesh, ShardingError> {
        parser::parse_mesh(text)
    }

    /// The axes, major first.
    pub fn axes(&self) -> &[MeshAxis] {
        &self.axes
    }

    /// The index of the axis called `name`.
    pub fn axis(&self, name: char) -> Option<usize> {
        self.axes.iter().position(|a| a.name == name)
    }

    /// Devices in the mesh.
    pub fn devices(&self) -> usize {
        self.axes.iter().map(|a| a.size as usize).product()
    }

    /// Product of the sizes of the axes at `indices`.
    pub fn size_of(&self, indices: &[u8]) -> u64 {
        indices
            .iter()
            .map(|&i| self.axes.get(i as usize).map_or(1, |a| a.size as u64))
            .product()
    }

    /// The names of the axes at `indices`, concatenated (`XY`).
    pub fn names(&self, indices: &[u8]) -> String {
        indices
            .iter()
            .filter_map(|&i| self.axes.get(i as usize).map(|a| a.name))
            .collect()
    }

    /// Coordinates of device number `device` (row-major, first axis major).
    pub fn coord(&self, device: usize) -> Coord {
        let mut c = [0u32; MAX_MESH_AXES];
        let mut rest = device;
        for (i, a) in self.axes.iter().enumerate().rev() {
            let n = a.size as usize;
            #[allow(
                clippy::cast_possible_truncation,
                reason = "below the axis size, a u32"
            )]
            let at = (rest % n) as u32;
            c[i] = at;
            rest /= n;
        }
        c
    }

    /// Device number of coordinates `c` (entries beyond the mesh's axes are ignored).
    pub fn device(&self, c: &Coord) -> usize {
        self.axes
            .iter()
            .enumerate()
            .fold(0usize, |acc, (i, a)| acc * a.size as usize + c[i] as usize)
    }

    /// Sets whether the axis called `name` wraps around.
    pub fn with_wrap(mut self, name: char, wrap: bool) -> Result<Mesh, ShardingError> {
        let i = self.axis(name).ok_or_else(|| {
            ShardingError::new(
                ErrorKind::UnknownAxis,
                format!("the mesh has no axis {name}"),
            )
        })?;
        self.axes[i].wrap = wrap;
        Ok(self)
    }

    /// Sets every axis to wrap around or not.
    pub fn with_wrap_all(mut self, wrap: bool) -> Mesh {
        for a in &mut self.axes {
            a.wrap = wrap;
        }
        self
    }

    /// Axis `index` as a ring or line for the cost model.
    pub fn ring(&self, index: u8) -> RingAxis {
        self.axes
            .get(index as usize)
            .map_or(RingAxis::ring(1), |a| RingAxis {
                size: a.size,
                wrap: a.wrap,
            })
    }
}

impl std::fmt::Display for Mesh {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, a) in self.axes.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{}={}", a.name, a.size)?;
        }
        Ok(())
    }
}

/// One dimension of an array in the notation: a name and the mesh axes it is split over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dim {
    /// The dimension's name (`I`).
    pub name: String,
    /// Mesh axes it is split over, major first (`J_XY` → `['X', 'Y']`).
    pub axes: Vec<char>,
    /// Byte offset of the dimension in the text.
    pub position: usize,
}

/// An array in the notation, such as `A[I_XY, J]` or `C[I, K]{U_X}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArraySpec {
    /// The array's name.
    pub name: String,
    /// Its dimensions.
    pub dims: Vec<Dim>,
    /// Mesh axes over which it holds unreduced partial sums.
    pub unreduced: Vec<char>,
    /// Byte offset of the array in the text.
    pub position: usize,
}

impl ArraySpec {
    /// Parses one array, e.g. `A[I_XY, J]`.
    pub fn parse(text: &str) -> Result<ArraySpec, ShardingError> {
        parser::parse_array(text)
    }

    /// Every mesh axis the array mentions, with the byte position of the mention.
    fn mentions(&self) -> impl Iterator<Item = (char, usize)> + '_ {
        self.dims
            .iter()
            .flat_map(|d| d.axes.iter().map(move |&a| (a, d.position)))
            .chain(self.unreduced.iter().map(move |&a| (a, self.position)))
    }

    /// Checks that every axis exists in `mesh` and appears once.
    pub fn check(&self, mesh: &Mesh) -> Result<(), ShardingError> {
        let mut seen: Vec<char> = Vec::new();
        for (a, pos) in self.mentions() {
            if seen.contains(&a) {
                return Err(ShardingError::at(
                    ErrorKind::AxisReused,
                    pos,
                    format!(
                        "mesh axis {a} is used twice in {}; each mesh axis may shard an array once",
                        self.name
                    ),
                ));
            }
            seen.push(a);
            if mesh.axis(a).is_none() {
                return Err(ShardingError::at(
                    ErrorKind::UnknownAxis,
                    pos,
                    format!(
                        "{} uses mesh axis {a}, but the mesh has only {}",
                        self.name, mesh
                    ),
                ));
            }
        }
        Ok(())
    }

    /// How many ways the array is split (the product of the axes its dimensions use).
    pub fn shards(&self, mesh: &Mesh) -> Result<u64, ShardingError> {
        self.check(mesh)?;
        Ok(self
            .dims
            .iter()
            .flat_map(|d| d.axes.iter())
            .filter_map(|&a| mesh.axis(a))
            .map(|i| mesh.axes[i].size as u64)
            .product())
    }

    /// Copies of each element across the mesh: `devices / shards`
    /// (partial sums over unreduced axes count as copies).
    pub fn replication(&self, mesh: &Mesh) -> Result<u64, ShardingError> {
        Ok(mesh.devices() as u64 / self.shards(mesh)?)
    }

    /// The global shape from concrete sizes.
    pub fn global_shape(&self, dims: &Dims) -> Result<Vec<u64>, ShardingError> {
        self.dims
            .iter()
            .map(|d| {
                dims.get(&d.name).ok_or_else(|| {
                    ShardingError::at(
                        ErrorKind::MissingSize,
                        d.position,
                        format!("no size is given for dimension {} of {}", d.name, self.name),
                    )
                })
            })
            .collect()
    }

    /// Each device's block shape; errors if a dimension is not divisible by its axes.
    pub fn local_shape(&self, mesh: &Mesh, dims: &Dims) -> Result<Vec<u64>, ShardingError> {
        self.check(mesh)?;
        let global = self.global_shape(dims)?;
        self.dims
            .iter()
            .zip(global)
            .map(|(d, n)| {
                let split: u64 = d
                    .axes
                    .iter()
                    .filter_map(|&a| mesh.axis(a))
                    .map(|i| mesh.axes[i].size as u64)
                    .product();
                if n % split != 0 {
                    Err(ShardingError::at(
                        ErrorKind::NotDivisible,
                        d.position,
                        format!(
                            "dimension {} = {n} of {} is not divisible by {} = {split}",
                            d.name,
                            self.name,
                            d.axes.iter().collect::<String>()
                        ),
                    ))
                } else {
                    Ok(n / split)
                }
            })
            .collect()
    }

    /// Bytes of one copy of the whole array.
    pub fn global_bytes(&self, dims: &Dims, dtype: Dtype) -> Result<Bytes, ShardingError> {
        let n: f64 = self.global_shape(dims)?.iter().map(|&x| x as f64).product();
        Ok(dtype.size_of(n))
    }

    /// Bytes each device holds.
    pub fn bytes_per_device(
        &self,
        mesh: &Mesh,
        dims: &Dims,
        dtype: Dtype,
    ) -> Result<Bytes, ShardingError> {
        let n: f64 = self
            .local_shape(mesh, dims)?
            .iter()
            .map(|&x| x as f64)
            .product();
        Ok(dtype.size_of(n))
    }

    /// Bytes across every device of the mesh.
    pub fn total_bytes(
        &self,
        mesh: &Mesh,
        dims: &Dims,
        dtype: Dtype,
    ) -> Result<Bytes, ShardingError> {
        Ok(self.bytes_per_device(mesh, dims, dtype)? * mesh.devices() as f64)
    }
}

impl std::fmt::Display for ArraySpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}[", self.name)?;
        for (i, d) in self.dims.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(&d.name)?;
            if !d.axes.is_empty() {
                write!(f, "_{}", d.axes.iter().collect::<String>())?;
            }
        }
        f.write_str("]")?;
        if !self.unreduced.is_empty() {
            write!(f, "{{U_{}}}", self.unreduced.iter().collect::<String>())?;
        }
        Ok(())
    }
}

/// A matmul in the notation: `A[I, J] · B[J, K] → C[I, K]`, the output optional.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatmulSpec {
    /// The left input.
    pub a: ArraySpec,
    /// The right input.
    pub b: ArraySpec,
    /// The requested output, if written.
    pub c: Option<ArraySpec>,
}

impl MatmulSpec {
    /// Parses a matmul such as `A[I_X, J] · B[J, K_Y] -> C[I_X, K_Y]`.
    pub fn parse(text: &str) -> Result<MatmulSpec, ShardingError> {
        parser::parse_matmul(text)
    }
}

impl std::fmt::Display for MatmulSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} · {}", self.a, self.b)?;
        if let Some(c) = &self.c {
            write!(f, " → {c}")?;
        }
        Ok(())
    }
}

/// Concrete sizes of named dimensions, e.g. `I=1024, J=4096`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Dims {
    sizes: Vec<(String, u64)>,
}

impl Dims {
    /// Sizes from `(name, size)` pairs; every size must be 1 to [`MAX_DIM`], names unique.
    pub fn new(pairs: &[(&str, u64)]) -> Result<Dims, ShardingError> {
        let mut d = Dims::default();
        for &(name, size) in pairs {
            d.insert(name, size, None)?;
        }
        Ok(d)
    }

    pub(crate) fn insert(
        &mut self,
        name: &str,
        size: u64,
        position: Option<usize>,
    ) -> Result<(), ShardingError> {
        let err = |kind, msg: String| ShardingError {
            kind,
            message: msg,
            position,
        };
        if name.is_empty() {
            return Err(err(ErrorKind::Syntax, "a dimension needs a name".into()));
        }
        if self.sizes.iter().any(|(n, _)| n == name) {
            return Err(err(
                ErrorKind::Syntax,
                format!("dimension {name} is given twice"),
            ));
        }
        if size == 0 || size > MAX_DIM {
            return Err(err(
                ErrorKind::BadSize,
                format!("dimension {name} = {size}; sizes run from 1 to 2^40"),
            ));
        }
        self.sizes.push((name.to_string(), size));
        Ok(())
    }

    /// Parses `I=1024, J=4096` (also `I: 1024` and whitespace separators).
    pub fn parse(text: &str) -> Result<Dims, ShardingError> {
        parser::parse_dims(text)
    }

    /// The size of dimension `name`.
    pub fn get(&self, name: &str) -> Option<u64> {
        self.sizes.iter().find(|(n, _)| n == name).map(|&(_, s)| s)
    }

    /// The named sizes, in the order given.
    pub fn iter(&self) -> impl Iterator<Item = (&str, u64)> {
        self.sizes.iter().map(|(n, s)| (n.as_str(), *s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mesh_coords_round_trip() {
        let m = Mesh::new(&[('X', 4), ('Y', 2), ('Z', 3)]).unwrap();
        assert_eq!(m.devices(), 24);
        for d in 0..24 {
            assert_eq!(m.device(&m.coord(d)), d);
        }
        assert_eq!(m.coord(5), [0, 1, 2, 0]);
        assert_eq!(
            Mesh::new(&[('X', 0)]).unwrap_err().to_string(),
            "mesh axis X has size 0; sizes run from 1 to 65536",
        );
        assert_eq!(
            Mesh::new(&[('X', 300), ('Y', 300)])
                .unwrap_err()
                .to_string(),
            "the mesh has more than 65536 devices",
        );
    }

    #[test]
    fn local_shapes_and_bytes() {
        let a = ArraySpec::parse("A[I_XY, J]").unwrap();
        let mesh = Mesh::parse("X=8, Y=2").unwrap();
        let dims = Dims::parse("I=1024, J=4096").unwrap();
        assert_eq!(a.local_shape(&mesh, &dims).unwrap(), vec![64, 4096]);
        assert_eq!(
            a.bytes_per_device(&mesh, &dims, Dtype::F32).unwrap(),
            Bytes(1_048_576.0)
        );
        let bad = Dims::parse("I=1000, J=4096").unwrap();
        let e = a.local_shape(&mesh, &bad).unwrap_err();
        assert_eq!(e.kind, ErrorKind::NotDivisible);
        assert_eq!(e.position, Some(2));
        assert_eq!(a.to_string(), "A[I_XY, J]");
    }
}
