//! How a 2-D array lies on the mesh: the mesh axes that split its rows and
//! columns and those it holds partial sums over ([`Sharding`]), and the block of
//! global indices each device holds ([`Block`], two [`IndexRange`]s).
//!
//! The plan of a sharded matmul ([`plan`](super::plan)), the permutations that
//! move sharded axes ([`permute`](super::permute)), the emulator and the code
//! generators all read arrays through these types.

use super::{Coord, Mesh};

/// How a 2-D array is split over the mesh: mesh-axis indices per dimension
/// (major first) and the axes it is unreduced over.
#[derive(Debug, Clone, PartialEq, Eq, Default, Hash)]
pub struct Sharding {
    /// Mesh axes splitting the rows (first dimension).
    pub rows: Vec<u8>,
    /// Mesh axes splitting the columns (second dimension).
    pub cols: Vec<u8>,
    /// Mesh axes over which the array holds partial sums.
    pub unreduced: Vec<u8>,
}

impl Sharding {
    /// The axes of dimension `d` (0 rows, 1 columns).
    pub fn dim(&self, d: usize) -> &[u8] {
        if d == 0 {
            &self.rows
        } else {
            &self.cols
        }
    }

    /// The axes of dimension `d`, to change (0 rows, 1 columns).
    pub(super) fn dim_mut(&mut self, d: usize) -> &mut Vec<u8> {
        if d == 0 {
            &mut self.rows
        } else {
            &mut self.cols
        }
    }

    /// Whether the layout mentions mesh axis `a` anywhere.
    pub fn uses(&self, a: u8) -> bool {
        self.rows.contains(&a) || self.cols.contains(&a) || self.unreduced.contains(&a)
    }

    /// The per-device block shape of an array of global `shape`.
    pub fn local(&self, shape: [u64; 2], mesh: &Mesh) -> [u64; 2] {
        [
            shape[0] / mesh.size_of(&self.rows).max(1),
            shape[1] / mesh.size_of(&self.cols).max(1),
        ]
    }

    /// The block (global index ranges) device coordinates `coord` hold.
    pub fn block(&self, shape: [u64; 2], mesh: &Mesh, coord: &Coord) -> Block {
        let span = |axes: &[u8], n: u64| {
            let (idx, parts) = axes.iter().fold((0u64, 1u64), |(i, p), &a| {
                let size = mesh.axes().get(a as usize).map_or(1, |x| x.size as u64);
                (i * size + coord[a as usize] as u64, p * size)
            });
            let len = n / parts.max(1);
            IndexRange {
                start: idx * len,
                end: (idx + 1) * len,
            }
        };
        Block {
            rows: span(&self.rows, shape[0]),
            cols: span(&self.cols, shape[1]),
        }
    }

    /// The layout in the book's notation, e.g. `C[I_X, K_Y]{U_Z}`.
    pub fn notation(&self, name: &str, dims: [&str; 2], mesh: &Mesh) -> String {
        let mut s = format!("{name}[");
        for (d, name) in dims.iter().enumerate() {
            if d > 0 {
                s.push_str(", ");
            }
            s.push_str(name);
            if !self.dim(d).is_empty() {
                s.push('_');
                s.push_str(&mesh.names(self.dim(d)));
            }
        }
        s.push(']');
        if !self.unreduced.is_empty() {
            s.push_str(&format!("{{U_{}}}", mesh.names(&self.unreduced)));
        }
        s
    }
}

/// A half-open range of global indices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct IndexRange {
    /// First index.
    pub start: u64,
    /// One past the last index.
    pub end: u64,
}

impl IndexRange {
    /// Number of indices.
    pub fn len(&self) -> u64 {
        self.end.saturating_sub(self.start)
    }

    /// Whether the span is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A rectangular block of a 2-D array.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Block {
    /// Row range.
    pub rows: IndexRange,
    /// Column range.
    pub cols: IndexRange,
}

impl Block {
    /// Number of elements.
    pub fn elements(&self) -> u64 {
        self.rows.len() * self.cols.len()
    }
}

impl std::fmt::Display for Block {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "[{}:{}, {}:{}]",
            self.rows.start, self.rows.end, self.cols.start, self.cols.end
        )
    }
}
