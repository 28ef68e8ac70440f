//! An emulator of a sharded matmul: virtual devices on a mesh, each holding
//! real `f32` shards, executing a [`MatmulPlan`] literally — ring AllGathers
//! as neighbour sends, ReduceScatters as neighbour sends with adds, AllReduce as
//! both, AllToAll as pairwise block exchanges, a permute as the pieces each
//! device lacks sent from their nearest holder — then the local matmuls.
//!
//! Every transfer is recorded in a [`Trace`] (who sends which block of which
//! array to whom, over which link) for the collective player to animate, and the
//! assembled result can be checked against the unsharded matmul:
//!
//! ```
//! use ridgeline_core::sharding::emulator::{reference, run};
//! use ridgeline_core::hardware::chip;
//! use ridgeline_core::sharding::plan::MatmulPlan;
//!
//! let plan = MatmulPlan::parse(
//!     "A[I, J_X] · B[J_X, K_Y] -> C[I_X, K_Y]", "X=4, Y=2", "I=16, J=32, K=8",
//!     chip("v5e").unwrap(),
//! ).unwrap();
//! let out = run(&plan, 7).unwrap();
//! let want = reference(&plan, 7).unwrap();
//! assert!(out.result.max_abs_diff(&want).unwrap() < 1e-4);
//! // The trace moves exactly the bytes the cost model charges.
//! assert_eq!(out.trace.total_bytes(), plan.total_bytes());
//! ```
//!
//! Values are carried in `f32`; bytes are counted in the plan's format, so the
//! trace agrees with the plan's cost model.

// Every index, length and coordinate here is bounded by `check_size` before
// anything is built: each array holds at most `MAX_ELEMENTS` (2^22) values and
// a mesh has at most 2^26 / 3 devices, so `u64`/`usize`/`u32` conversions
// between them cannot lose a bit, on 64-bit hosts or in 32-bit WebAssembly.
#![allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_possible_wrap,
    reason = "indices bounded by MAX_ELEMENTS and MAX_WORK (check_size)"
)]

use crate::comms::collectives::Collective;
use crate::rng::Rng;
use crate::sharding::layout::{Block, IndexRange, Sharding};
use crate::sharding::permute::{distance, permute_pieces};
use crate::sharding::plan::{MatmulPlan, Operand, StepKind};
use crate::sharding::{Coord, Mesh};
use crate::units::Bytes;

/// Largest global array the emulator accepts, in elements.
pub const MAX_ELEMENTS: u64 = 1 << 22;
/// Largest `devices × (IJ + JK + IK)` the emulator accepts.
pub const MAX_WORK: u64 = 1 << 26;

/// Why an emulation could not run.
#[derive(Debug, Clone, PartialEq)]
pub enum EmulatorError {
    /// The problem is too big to emulate.
    TooLarge(String),
    /// The plan could not be executed as written (a bug, reported rather than panicking).
    Internal(String),
}

impl std::fmt::Display for EmulatorError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EmulatorError::TooLarge(s) => write!(f, "too large to emulate: {s}"),
            EmulatorError::Internal(s) => write!(f, "emulator error: {s}"),
        }
    }
}

impl std::error::Error for EmulatorError {}

/// The value of element `(r, c)` of operand `op` for `seed`: a pure function, so
/// every device can generate its own shard. Uniform in `[-1, 1)` on 24 bits of
/// [`Rng`]'s first draw, so every value is exact in `f32`.
pub fn element(seed: u64, op: Operand, r: u64, c: u64) -> f32 {
    let mix = seed
        ^ (op.index() as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ r.wrapping_mul(0xBF58_476D_1CE4_E5B9)
        ^ c.wrapping_mul(0x94D0_49BB_1331_11EB).rotate_left(29);
    let bits = Rng::new(mix ^ (mix >> 31)).next_u64() >> 40;
    bits as f32 / (1u64 << 23) as f32 - 1.0
}

/// A dense row-major `f32` matrix.
#[derive(Debug, Clone, PartialEq)]
pub struct Matrix {
    /// Rows.
    pub rows: usize,
    /// Columns.
    pub cols: usize,
    /// `rows × cols` values, row-major.
    pub data: Vec<f32>,
}

impl Matrix {
    /// A matrix of zeros.
    pub fn zeros(rows: usize, cols: usize) -> Matrix {
        Matrix {
            rows,
            cols,
            data: vec![0.0; rows * cols],
        }
    }

    /// Operand `op` of shape `rows × cols` generated from `seed`.
    pub fn generate(op: Operand, rows: usize, cols: usize, seed: u64) -> Matrix {
        let mut m = Matrix::zeros(rows, cols);
        for r in 0..rows {
            for c in 0..cols {
                m.data[r * cols + c] = element(seed, op, r as u64, c as u64);
            }
        }
        m
    }

    /// Element `(r, c)`, if in range.
    pub fn get(&self, r: usize, c: usize) -> Option<f32> {
        if r < self.rows && c < self.cols {
            self.data.get(r * self.cols + c).copied()
        } else {
            None
        }
    }

    /// The largest absolute element-wise difference, or `None` if the shapes differ.
    pub fn max_abs_diff(&self, other: &Matrix) -> Option<f32> {
        if self.rows != other.rows || self.cols != other.cols {
            return None;
        }
        Some(
            self.data
                .iter()
                .zip(&other.data)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f32::max),
        )
    }
}

/// `a · b`; errors if the inner dimensions differ.
pub fn matmul(a: &Matrix, b: &Matrix) -> Result<Matrix, EmulatorError> {
    if a.cols != b.rows {
        return Err(EmulatorError::Internal(format!(
            "cannot multiply {}x{} by {}x{}",
            a.rows, a.cols, b.rows, b.cols
        )));
    }
    let mut c = Matrix::zeros(a.rows, b.cols);
    kernel(&a.data, &b.data, &mut c.data, a.rows, a.cols, b.cols);
    Ok(c)
}

/// `c += a · b` for row-major `a` (m×k), `b` (k×n), `c` (m×n). Four rows of C
/// at a time share each row of B, which keeps the inner loop cheap even where
/// the compiler does not vectorise (the release profile optimises for size).
fn kernel(a: &[f32], b: &[f32], c: &mut [f32], m: usize, k: usize, n: usize) {
    if n == 0 || k == 0 {
        return;
    }
    let quads = m / 4;
    for (q, block) in c.chunks_exact_mut(4 * n).enumerate().take(quads) {
        let (c0, rest) = block.split_at_mut(n);
        let (c1, rest) = rest.split_at_mut(n);
        let (c2, c3) = rest.split_at_mut(n);
        let rows = &a[4 * q * k..4 * (q + 1) * k];
        for j in 0..k {
            let (x0, x1, x2, x3) = (rows[j], rows[k + j], rows[2 * k + j], rows[3 * k + j]);
            let brow = &b[j * n..(j + 1) * n];
            for ((((o0, o1), o2), o3), &y) in c0
                .iter_mut()
                .zip(c1.iter_mut())
                .zip(c2.iter_mut())
                .zip(c3.iter_mut())
                .zip(brow)
            {
                *o0 += x0 * y;
                *o1 += x1 * y;
                *o2 += x2 * y;
                *o3 += x3 * y;
            }
        }
    }
    for (i, crow) in c.chunks_exact_mut(n).enumerate().take(m).skip(4 * quads) {
        let arow = &a[i * k..(i + 1) * k];
        for (j, &x) in arow.iter().enumerate() {
            let brow = &b[j * n..(j + 1) * n];
            for (o, &y) in crow.iter_mut().zip(brow) {
                *o += x * y;
            }
        }
    }
}

fn check_size(plan: &MatmulPlan) -> Result<[usize; 3], EmulatorError> {
    let [i, j, k] = plan.dims;
    for (name, n) in [
        ("A", i.saturating_mul(j)),
        ("B", j.saturating_mul(k)),
        ("C", i.saturating_mul(k)),
    ] {
        if n > MAX_ELEMENTS {
            return Err(EmulatorError::TooLarge(format!(
                "{name} has {n} elements; at most {MAX_ELEMENTS} can be emulated"
            )));
        }
    }
    let work = (plan.mesh.devices() as u64).saturating_mul(
        i.saturating_mul(j)
            .saturating_add(j.saturating_mul(k))
            .saturating_add(i.saturating_mul(k)),
    );
    if work > MAX_WORK {
        return Err(EmulatorError::TooLarge(format!(
            "{} devices times the three arrays is {work} elements; at most {MAX_WORK}",
            plan.mesh.devices()
        )));
    }
    Ok([i as usize, j as usize, k as usize])
}

/// The unsharded product of the plan's inputs for `seed`.
pub fn reference(plan: &MatmulPlan, seed: u64) -> Result<Matrix, EmulatorError> {
    let [i, j, k] = check_size(plan)?;
    let a = Matrix::generate(Operand::A, i, j, seed);
    let b = Matrix::generate(Operand::B, j, k, seed);
    matmul(&a, &b)
}

/// The shardings the performance budget is measured on: a 256×256×256 matmul on
/// an 8×8 mesh (`X=8, Y=8`), from no reshard to a permute of C that moves a
/// sharded axis (which once gathered C whole and sliced it).
pub const BENCH_SPECS: &[&str] = &[
    "A[I_X, J_Y] · B[J_Y, K] -> C[I_X, K_Y]",
    "A[I_X, J] · B[J, K_Y] -> C[I_X, K_Y]",
    "A[I, J_X] · B[J_X, K_Y] -> C[I, K_XY]",
    "A[I_X, J] · B[J, K_Y] -> C[I, K_XY]",
];

/// One block sent from one device to another.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Transfer {
    /// Sender's mesh coordinates.
    pub from: Coord,
    /// Receiver's mesh coordinates.
    pub to: Coord,
    /// Sender's device number.
    pub from_device: u32,
    /// Receiver's device number.
    pub to_device: u32,
    /// The array the block belongs to.
    pub operand: Operand,
    /// The block, in global indices of that array.
    pub block: Block,
    /// Bytes sent (in the plan's format).
    pub bytes: Bytes,
    /// The mesh axis the link runs along.
    pub axis: u8,
    /// `+1` toward higher coordinates, `-1` toward lower (shortest way round).
    pub direction: i8,
    /// Hops between the two devices (1 for ring steps).
    pub hops: u32,
    /// Whether the receiver adds the block into its own (a reduction).
    pub reduce: bool,
}

/// One step of the emulation: a ring step of a collective, or a local computation.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceStep {
    /// Index of the plan step it belongs to.
    pub plan_step: usize,
    /// What the plan step does.
    pub kind: StepKind,
    /// The array involved.
    pub operand: Operand,
    /// The mesh axis of a collective step.
    pub axis: Option<u8>,
    /// A short description (`AllGather A over X, step 2/3`).
    pub label: String,
    /// The transfers, all simultaneous.
    pub transfers: Vec<Transfer>,
}

/// Everything the emulation did.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Trace {
    /// The steps, in order.
    pub steps: Vec<TraceStep>,
}

impl Trace {
    /// Bytes sent by all transfers.
    pub fn total_bytes(&self) -> Bytes {
        self.steps
            .iter()
            .flat_map(|s| s.transfers.iter())
            .map(|t| t.bytes)
            .sum()
    }

    /// Bytes sent in the steps of plan step `plan_step`.
    pub fn bytes_of(&self, plan_step: usize) -> Bytes {
        self.steps
            .iter()
            .filter(|s| s.plan_step == plan_step)
            .flat_map(|s| s.transfers.iter())
            .map(|t| t.bytes)
            .sum()
    }
}

/// The outcome of an emulation.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// C assembled from the devices' final blocks (summing partial sums if C stays unreduced).
    pub result: Matrix,
    /// Every step and transfer.
    pub trace: Trace,
    /// Number of devices.
    pub devices: usize,
}

#[derive(Debug, Clone, Default)]
struct Local {
    block: Block,
    data: Vec<f32>,
}

fn offset(l: &Local, r: u64, c: u64) -> usize {
    ((r - l.block.rows.start) * l.block.cols.len() + (c - l.block.cols.start)) as usize
}

fn contains(outer: Block, inner: Block) -> bool {
    inner.rows.start >= outer.rows.start
        && inner.rows.end <= outer.rows.end
        && inner.cols.start >= outer.cols.start
        && inner.cols.end <= outer.cols.end
}

fn read(l: &Local, b: Block, out: &mut Vec<f32>) -> Result<(), EmulatorError> {
    if !contains(l.block, b) {
        return Err(EmulatorError::Internal(format!(
            "block {b} is not within {}",
            l.block
        )));
    }
    let w = b.cols.len() as usize;
    for r in b.rows.start..b.rows.end {
        let o = offset(l, r, b.cols.start);
        out.extend_from_slice(&l.data[o..o + w]);
    }
    Ok(())
}

fn write(l: &mut Local, b: Block, src: &[f32], add: bool) -> Result<(), EmulatorError> {
    if !contains(l.block, b) {
        return Err(EmulatorError::Internal(format!(
            "block {b} is not within {}",
            l.block
        )));
    }
    let w = b.cols.len() as usize;
    for (n, r) in (b.rows.start..b.rows.end).enumerate() {
        let o = offset(l, r, b.cols.start);
        let dst = &mut l.data[o..o + w];
        let s = &src[n * w..(n + 1) * w];
        if add {
            for (d, x) in dst.iter_mut().zip(s) {
                *d += x;
            }
        } else {
            dst.copy_from_slice(s);
        }
    }
    Ok(())
}

/// A copy of `l` cut or padded (with zeros) to `b`, keeping the overlap.
fn rebase(l: &Local, b: Block) -> Local {
    let mut out = Local {
        block: b,
        data: vec![0.0; b.elements() as usize],
    };
    let rows = IndexRange {
        start: l.block.rows.start.max(b.rows.start),
        end: l.block.rows.end.min(b.rows.end),
    };
    let cols = IndexRange {
        start: l.block.cols.start.max(b.cols.start),
        end: l.block.cols.end.min(b.cols.end),
    };
    if rows.is_empty() || cols.is_empty() {
        return out;
    }
    let w = cols.len() as usize;
    for r in rows.start..rows.end {
        let s = offset(l, r, cols.start);
        let d = offset(&out, r, cols.start);
        out.data[d..d + w].copy_from_slice(&l.data[s..s + w]);
    }
    out
}

/// Piece `k` of `n` of `region` along dimension `d` (integer split, possibly uneven).
fn piece(region: Block, d: usize, k: usize, n: usize) -> Block {
    let span = if d == 0 { region.rows } else { region.cols };
    let len = span.len();
    let (k, n) = (k as u64, n.max(1) as u64);
    let s = IndexRange {
        start: span.start + k * len / n,
        end: span.start + (k + 1) * len / n,
    };
    if d == 0 {
        Block {
            rows: s,
            cols: region.cols,
        }
    } else {
        Block {
            rows: region.rows,
            cols: s,
        }
    }
}

/// `(src, dst, piece, direction)` per ring step, in axis positions. For a gather the
/// piece is the one originating at its owner; for a reduction the piece whose sum
/// ends at that position.
type RingStep = Vec<(usize, usize, usize, i8)>;

fn schedule(reduce: bool, n: usize, wrap: bool, bidi: bool) -> Vec<RingStep> {
    let m = |x: isize| x.rem_euclid(n as isize) as usize;
    let mut steps = Vec::new();
    if n <= 1 {
        return steps;
    }
    let ni = n as isize;
    if wrap && bidi {
        let (r, l) = ((n / 2) as isize, ((n - 1) / 2) as isize);
        for s in 1..=r {
            let mut st = Vec::with_capacity(2 * n);
            for c in 0..ni {
                let k = if reduce {
                    m(c + r - s + 1)
                } else {
                    m(c - s + 1)
                };
                st.push((c as usize, m(c + 1), k, 1));
                if s <= l {
                    let k = if reduce {
                        m(c - l + s - 1)
                    } else {
                        m(c + s - 1)
                    };
                    st.push((c as usize, m(c - 1), k, -1));
                }
            }
            steps.push(st);
        }
    } else if wrap {
        for s in 1..ni {
            let st = (0..ni)
                .map(|c| {
                    let k = if reduce { m(c - s) } else { m(c - s + 1) };
                    (c as usize, m(c + 1), k, 1)
                })
                .collect();
            steps.push(st);
        }
    } else {
        for s in 1..ni {
            let mut st = Vec::with_capacity(2 * n);
            for c in 0..ni {
                if c + 1 < ni {
                    if reduce && c < s {
                        st.push((c as usize, (c + 1) as usize, (ni - s + c) as usize, 1));
                    } else if !reduce && c + 1 >= s {
                        st.push((c as usize, (c + 1) as usize, (c + 1 - s) as usize, 1));
                    }
                }
                if c > 0 {
                    if reduce && c >= ni - s {
                        st.push((c as usize, (c - 1) as usize, (s + c - ni) as usize, -1));
                    } else if !reduce && c + s - 1 < ni {
                        st.push((c as usize, (c - 1) as usize, (c + s - 1) as usize, -1));
                    }
                }
            }
            steps.push(st);
        }
    }
    steps
}

struct Emu<'a> {
    plan: &'a MatmulPlan,
    mesh: &'a Mesh,
    coords: Vec<Coord>,
    locals: [Vec<Local>; 3],
    layouts: [Sharding; 3],
    trace: Trace,
    elem_bytes: f64,
    stage: Vec<f32>,
}

impl Emu<'_> {
    fn shape(&self, op: Operand) -> [u64; 2] {
        self.plan.shape(op)
    }

    /// Devices whose coordinate along `axis` is 0: one per group along the axis.
    fn group_bases(&self, axis: u8) -> impl Iterator<Item = usize> + '_ {
        (0..self.coords.len()).filter(move |&d| self.coords[d][axis as usize] == 0)
    }

    fn stride(&self, axis: u8) -> usize {
        self.mesh.axes()[axis as usize + 1..]
            .iter()
            .map(|a| a.size as usize)
            .product()
    }

    /// Runs one ring phase along `axis`: per group, each device's region (given by
    /// `region(device)`) split into `n` pieces along `dim(device)`.
    #[allow(clippy::too_many_arguments)]
    fn ring(
        &mut self,
        plan_step: usize,
        op: Operand,
        axis: u8,
        reduce: bool,
        regions: &[(Block, usize)],
        label: &str,
    ) -> Result<(), EmulatorError> {
        let ax = self.mesh.axes()[axis as usize];
        let n = ax.size as usize;
        let sched = schedule(reduce, n, ax.wrap, self.plan.bidirectional);
        let stride = self.stride(axis);
        let bases: Vec<usize> = self.group_bases(axis).collect();
        let total = sched.len();
        let oi = op.index();
        for (si, st) in sched.iter().enumerate() {
            let mut transfers = Vec::with_capacity(st.len() * bases.len());
            let mut pending: Vec<(usize, Block, usize, usize)> = Vec::new();
            self.stage.clear();
            for &base in &bases {
                for &(s, d, k, dir) in st {
                    let (src, dst) = (base + s * stride, base + d * stride);
                    let (region, pd) = regions[src];
                    let b = piece(region, pd, k, n);
                    let start = self.stage.len();
                    read(&self.locals[oi][src], b, &mut self.stage)?;
                    pending.push((dst, b, start, self.stage.len()));
                    transfers.push(Transfer {
                        from: self.coords[src],
                        to: self.coords[dst],
                        from_device: src as u32,
                        to_device: dst as u32,
                        operand: op,
                        block: b,
                        bytes: Bytes(b.elements() as f64 * self.elem_bytes),
                        axis,
                        direction: dir,
                        hops: 1,
                        reduce,
                    });
                }
            }
            for (dst, b, s, e) in pending {
                let (locals, stage) = (&mut self.locals[oi], &self.stage);
                write(&mut locals[dst], b, &stage[s..e], reduce)?;
            }
            self.trace.steps.push(TraceStep {
                plan_step,
                kind: self.plan.steps[plan_step].kind,
                operand: op,
                axis: Some(axis),
                label: format!("{label}, step {}/{total}", si + 1),
                transfers,
            });
        }
        Ok(())
    }

    fn label(&self, plan_step: usize, what: &str, axis: u8) -> String {
        let name = &self.plan.names[self.plan.steps[plan_step].operand.index()];
        format!("{what} {name} over {}", self.mesh.names(&[axis]))
    }

    fn all_gather(
        &mut self,
        ps: usize,
        op: Operand,
        axis: u8,
        d: usize,
    ) -> Result<(), EmulatorError> {
        let oi = op.index();
        let mut after = self.layouts[oi].clone();
        let list = if d == 0 {
            &mut after.rows
        } else {
            &mut after.cols
        };
        if list.last() != Some(&axis) {
            return Err(EmulatorError::Internal(
                "gathered axis is not the minor one".into(),
            ));
        }
        list.pop();
        let shape = self.shape(op);
        let mut regions = Vec::with_capacity(self.coords.len());
        for dev in 0..self.coords.len() {
            let b = after.block(shape, self.mesh, &self.coords[dev]);
            self.locals[oi][dev] = rebase(&self.locals[oi][dev], b);
            regions.push((b, d));
        }
        let label = self.label(ps, "AllGather", axis);
        self.ring(ps, op, axis, false, &regions, &label)?;
        self.layouts[oi] = after;
        Ok(())
    }

    fn reduce_scatter(
        &mut self,
        ps: usize,
        op: Operand,
        axis: u8,
        d: usize,
    ) -> Result<(), EmulatorError> {
        let oi = op.index();
        let regions: Vec<(Block, usize)> = self.locals[oi].iter().map(|l| (l.block, d)).collect();
        let label = self.label(ps, "ReduceScatter", axis);
        self.ring(ps, op, axis, true, &regions, &label)?;
        let mut after = self.layouts[oi].clone();
        after.unreduced.retain(|&x| x != axis);
        if d == 0 {
            after.rows.push(axis);
        } else {
            after.cols.push(axis);
        }
        let shape = self.shape(op);
        for dev in 0..self.coords.len() {
            let b = after.block(shape, self.mesh, &self.coords[dev]);
            self.locals[oi][dev] = rebase(&self.locals[oi][dev], b);
        }
        self.layouts[oi] = after;
        Ok(())
    }

    fn all_reduce(&mut self, ps: usize, op: Operand, axes: &[u8]) -> Result<(), EmulatorError> {
        let oi = op.index();
        let devices = self.coords.len();
        // Per device, the stack of (region, split dimension) of each level.
        let mut levels: Vec<Vec<(Block, usize)>> = Vec::with_capacity(axes.len());
        let mut current: Vec<Block> = self.locals[oi].iter().map(|l| l.block).collect();
        for &axis in axes {
            let n = self.mesh.axes()[axis as usize].size as u64;
            let regions: Vec<(Block, usize)> = current
                .iter()
                .map(|&r| {
                    let d = if r.rows.len() >= n || r.cols.len() < n {
                        0
                    } else {
                        1
                    };
                    (r, d)
                })
                .collect();
            let label = self.label(ps, "AllReduce (reduce-scatter half)", axis);
            self.ring(ps, op, axis, true, &regions, &label)?;
            for dev in 0..devices {
                let (r, d) = regions[dev];
                let c = self.coords[dev][axis as usize] as usize;
                current[dev] = piece(r, d, c, n as usize);
            }
            levels.push(regions);
        }
        for (level, &axis) in levels.iter().zip(axes).rev() {
            let label = self.label(ps, "AllReduce (all-gather half)", axis);
            self.ring(ps, op, axis, false, level, &label)?;
        }
        self.layouts[oi].unreduced.retain(|x| !axes.contains(x));
        Ok(())
    }

    fn all_to_all(
        &mut self,
        ps: usize,
        op: Operand,
        axis: u8,
        from: usize,
        to: usize,
    ) -> Result<(), EmulatorError> {
        let oi = op.index();
        let mut after = self.layouts[oi].clone();
        {
            let src = if from == 0 {
                &mut after.rows
            } else {
                &mut after.cols
            };
            if src.last() != Some(&axis) {
                return Err(EmulatorError::Internal(
                    "moved axis is not the minor one".into(),
                ));
            }
            src.pop();
        }
        if to == 0 {
            after.rows.push(axis);
        } else {
            after.cols.push(axis);
        }
        let shape = self.shape(op);
        let ax = self.mesh.axes()[axis as usize];
        let n = ax.size as usize;
        let stride = self.stride(axis);
        let bases: Vec<usize> = self.group_bases(axis).collect();
        let mut fresh: Vec<Local> = (0..self.coords.len())
            .map(|dev| {
                let b = after.block(shape, self.mesh, &self.coords[dev]);
                Local {
                    block: b,
                    data: vec![0.0; b.elements() as usize],
                }
            })
            .collect();
        let label = self.label(ps, "AllToAll", axis);
        for shift in 0..n {
            let mut transfers = Vec::new();
            for &base in &bases {
                for s in 0..n {
                    let t = (s + shift) % n;
                    let (src, dst) = (base + s * stride, base + t * stride);
                    let old = self.locals[oi][src].block;
                    let new = fresh[dst].block;
                    let b = Block {
                        rows: IndexRange {
                            start: old.rows.start.max(new.rows.start),
                            end: old.rows.end.min(new.rows.end),
                        },
                        cols: IndexRange {
                            start: old.cols.start.max(new.cols.start),
                            end: old.cols.end.min(new.cols.end),
                        },
                    };
                    self.stage.clear();
                    read(&self.locals[oi][src], b, &mut self.stage)?;
                    write(&mut fresh[dst], b, &self.stage, false)?;
                    if shift > 0 {
                        let fwd = t as isize - s as isize;
                        let (hops, dir) = if ax.wrap {
                            let f = fwd.rem_euclid(n as isize) as usize;
                            if f <= n - f {
                                (f, 1)
                            } else {
                                (n - f, -1)
                            }
                        } else {
                            (fwd.unsigned_abs(), if fwd > 0 { 1 } else { -1 })
                        };
                        transfers.push(Transfer {
                            from: self.coords[src],
                            to: self.coords[dst],
                            from_device: src as u32,
                            to_device: dst as u32,
                            operand: op,
                            block: b,
                            bytes: Bytes(b.elements() as f64 * self.elem_bytes),
                            axis,
                            direction: dir,
                            hops: hops as u32,
                            reduce: false,
                        });
                    }
                }
            }
            if shift > 0 {
                self.trace.steps.push(TraceStep {
                    plan_step: ps,
                    kind: self.plan.steps[ps].kind,
                    operand: op,
                    axis: Some(axis),
                    label: format!("{label}, exchange {shift}/{}", n - 1),
                    transfers,
                });
            }
        }
        self.locals[oi] = fresh;
        self.layouts[oi] = after;
        Ok(())
    }

    /// Executes a permute: every device keeps what it holds of its new block and
    /// receives the rest, piece by piece, from the devices the plan names.
    fn permute(&mut self, ps: usize, op: Operand, after: &Sharding) -> Result<(), EmulatorError> {
        let oi = op.index();
        let shape = self.shape(op);
        let pieces = permute_pieces(
            shape,
            self.mesh,
            &self.layouts[oi],
            after,
            self.plan.bidirectional,
        );
        let mut fresh: Vec<Local> = (0..self.coords.len())
            .map(|dev| {
                let b = after.block(shape, self.mesh, &self.coords[dev]);
                rebase(&self.locals[oi][dev], b)
            })
            .collect();
        let mut transfers = Vec::with_capacity(pieces.len());
        for p in &pieces {
            self.stage.clear();
            read(&self.locals[oi][p.from], p.block, &mut self.stage)?;
            write(&mut fresh[p.to], p.block, &self.stage, false)?;
            let (from, to) = (self.coords[p.from], self.coords[p.to]);
            // The first axis the piece travels along names its link.
            let axis = (0..self.mesh.axes().len())
                .find(|&i| from[i] != to[i])
                .unwrap_or(0);
            let ax = self.mesh.axes()[axis];
            let (a, b) = (from[axis] as i64, to[axis] as i64);
            let n = ax.size as i64;
            let direction = if ax.wrap && self.plan.bidirectional {
                if (b - a).rem_euclid(n) <= (a - b).rem_euclid(n) {
                    1
                } else {
                    -1
                }
            } else if ax.wrap || b > a {
                1
            } else {
                -1
            };
            transfers.push(Transfer {
                from,
                to,
                from_device: p.from as u32,
                to_device: p.to as u32,
                operand: op,
                block: p.block,
                bytes: Bytes(p.block.elements() as f64 * self.elem_bytes),
                axis: axis as u8,
                direction,
                hops: distance(self.mesh, &from, &to, self.plan.bidirectional),
                reduce: false,
            });
        }
        let step = &self.plan.steps[ps];
        self.trace.steps.push(TraceStep {
            plan_step: ps,
            kind: step.kind,
            operand: op,
            axis: None,
            label: format!(
                "permute {} to {}: {} pieces move",
                step.array,
                step.result,
                pieces.len()
            ),
            transfers,
        });
        self.locals[oi] = fresh;
        self.layouts[oi] = after.clone();
        Ok(())
    }

    fn local_step(&mut self, ps: usize, label: String) {
        let step = &self.plan.steps[ps];
        self.trace.steps.push(TraceStep {
            plan_step: ps,
            kind: step.kind,
            operand: step.operand,
            axis: None,
            label,
            transfers: Vec::new(),
        });
    }

    fn execute(&mut self) -> Result<(), EmulatorError> {
        let plan = self.plan;
        for (ps, step) in plan.steps.iter().enumerate() {
            let op = step.operand;
            let oi = op.index();
            match step.kind {
                StepKind::Matmul => {
                    let mut out = Vec::with_capacity(self.coords.len());
                    for dev in 0..self.coords.len() {
                        let (a, b) = (&self.locals[0][dev], &self.locals[1][dev]);
                        if a.block.cols != b.block.rows {
                            return Err(EmulatorError::Internal(format!(
                                "device {dev} holds A{} and B{}, whose contracting ranges differ",
                                a.block, b.block
                            )));
                        }
                        let block = Block {
                            rows: a.block.rows,
                            cols: b.block.cols,
                        };
                        let (m, k, n) = (
                            a.block.rows.len() as usize,
                            a.block.cols.len() as usize,
                            b.block.cols.len() as usize,
                        );
                        let mut data = vec![0.0; m * n];
                        kernel(&a.data, &b.data, &mut data, m, k, n);
                        out.push(Local { block, data });
                    }
                    self.locals[2] = out;
                    self.layouts[2] = step.after.clone();
                    self.local_step(ps, format!("local matmul → {}", step.result));
                }
                StepKind::Slice => {
                    let shape = self.shape(op);
                    for dev in 0..self.coords.len() {
                        let b = step.after.block(shape, self.mesh, &self.coords[dev]);
                        if !contains(self.locals[oi][dev].block, b) {
                            return Err(EmulatorError::Internal(format!(
                                "device {dev} cannot slice {b} from {}",
                                self.locals[oi][dev].block
                            )));
                        }
                        self.locals[oi][dev] = rebase(&self.locals[oi][dev], b);
                    }
                    self.layouts[oi] = step.after.clone();
                    self.local_step(
                        ps,
                        format!("slice {} locally to {}", step.array, step.result),
                    );
                }
                StepKind::Permute => self.permute(ps, op, &step.after)?,
                StepKind::Collective(Collective::AllReduce) => {
                    let axes: Vec<u8> = step.moves.iter().map(|m| m.axis).collect();
                    self.all_reduce(ps, op, &axes)?;
                }
                StepKind::Collective(c) => {
                    for mv in &step.moves {
                        match (c, mv.from, mv.to) {
                            (Collective::AllGather, Some(d), None) => {
                                self.all_gather(ps, op, mv.axis, d)?
                            }
                            (Collective::ReduceScatter, None, Some(d)) => {
                                self.reduce_scatter(ps, op, mv.axis, d)?
                            }
                            (Collective::AllToAll, Some(f), Some(t)) => {
                                self.all_to_all(ps, op, mv.axis, f, t)?
                            }
                            _ => {
                                return Err(EmulatorError::Internal(format!(
                                    "{c} cannot move axis {} from {:?} to {:?}",
                                    mv.axis, mv.from, mv.to
                                )))
                            }
                        }
                    }
                }
            }
        }
        Ok(())
    }

    fn assemble(&self) -> Matrix {
        let [i, k] = self.shape(Operand::C);
        let mut out = Matrix::zeros(i as usize, k as usize);
        let l = &self.layouts[2];
        for (dev, c) in self.coords.iter().enumerate() {
            let replica =
                (0..self.mesh.axes().len() as u8).any(|a| !l.uses(a) && c[a as usize] != 0);
            if replica {
                continue;
            }
            let local = &self.locals[2][dev];
            let w = local.block.cols.len() as usize;
            for (n, r) in (local.block.rows.start..local.block.rows.end).enumerate() {
                let o = r as usize * out.cols + local.block.cols.start as usize;
                for (d, x) in out.data[o..o + w]
                    .iter_mut()
                    .zip(&local.data[n * w..(n + 1) * w])
                {
                    *d += x;
                }
            }
        }
        out
    }
}

/// Emulates `plan` with inputs generated from `seed`.
pub fn run(plan: &MatmulPlan, seed: u64) -> Result<Run, EmulatorError> {
    check_size(plan)?;
    let mesh = &plan.mesh;
    let devices = mesh.devices();
    let coords: Vec<Coord> = (0..devices).map(|d| mesh.coord(d)).collect();
    // Each device's shard holds the values `element` gives its indices. The
    // operand is generated once and each shard copied out of it: a replicated
    // operand would otherwise be generated once per device (64 times on an
    // 8×8 mesh), which was a fifth of a run.
    let make = |op: Operand, layout: &Sharding| -> Vec<Local> {
        let shape = plan.shape(op);
        let cols = shape[1] as usize;
        let mut whole = Vec::with_capacity((shape[0] * shape[1]) as usize);
        for r in 0..shape[0] {
            for c in 0..shape[1] {
                whole.push(element(seed, op, r, c));
            }
        }
        coords
            .iter()
            .map(|c| {
                let block = layout.block(shape, mesh, c);
                let mut data = Vec::with_capacity(block.elements() as usize);
                for r in block.rows.start..block.rows.end {
                    let row = r as usize * cols;
                    data.extend_from_slice(
                        &whole[row + block.cols.start as usize..row + block.cols.end as usize],
                    );
                }
                Local { block, data }
            })
            .collect()
    };
    let locals = [
        make(Operand::A, &plan.a),
        make(Operand::B, &plan.b),
        Vec::new(),
    ];
    let mut emu = Emu {
        plan,
        mesh,
        locals,
        layouts: [plan.a.clone(), plan.b.clone(), Sharding::default()],
        coords,
        trace: Trace::default(),
        elem_bytes: plan.dtype.bytes(),
        stage: Vec::new(),
    };
    emu.execute()?;
    Ok(Run {
        result: emu.assemble(),
        trace: emu.trace,
        devices,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hardware::chip;

    fn check(spec: &str, mesh: &str, dims: &str) {
        for wrap in [true, false] {
            for bidi in [true, false] {
                let spec_p = crate::sharding::MatmulSpec::parse(spec).unwrap();
                let mesh_p = Mesh::parse(mesh).unwrap().with_wrap_all(wrap);
                let dims_p = crate::sharding::Dims::parse(dims).unwrap();
                let mut opts =
                    crate::sharding::plan::PlanOptions::for_chip(chip("v5e").unwrap()).unwrap();
                if !bidi {
                    opts.network = opts.network.one_way_only();
                }
                let plan = MatmulPlan::build(&spec_p, &mesh_p, &dims_p, &opts).unwrap();
                let out = run(&plan, 11).unwrap();
                let want = reference(&plan, 11).unwrap();
                let diff = out.result.max_abs_diff(&want).unwrap();
                assert!(diff < 1e-4, "{spec} on {mesh}: off by {diff}");
                let (t, p) = (out.trace.total_bytes().0, plan.total_bytes().0);
                assert!(
                    (t - p).abs() <= 1e-9 * p.max(1.0),
                    "{spec}: trace {t} vs plan {p}"
                );
            }
        }
    }

    #[test]
    fn every_kind_of_step_matches_the_reference() {
        let d = "I=24, J=12, K=30";
        check("A[I_X, J] · B[J, K_Y] -> C[I_X, K_Y]", "X=3, Y=2", d);
        check("A[I, J_X] · B[J, K] -> C[I, K]", "X=3, Y=2", d);
        check("A[I, J_X] · B[J_X, K] -> C[I, K_X]", "X=3", d);
        check("A[I, J_XY] · B[J_XY, K]", "X=3, Y=2", d);
        check("A[I, J_XY] · B[J_XY, K] -> C[I_Y, K_X]", "X=3, Y=2", d);
        check("A[I_X, J] · B[J, K_X] -> C[I_X, K]", "X=3", d);
        check("A[I_X, J] · B[J, K] -> C[I, K_X]", "X=3, Y=2", d);
        check("A[I_X, J] · B[J, K] -> C[I, K_XY]", "X=3, Y=2", d);
        check("A[I, J_X] · B[J_Y, K]", "X=3, Y=2", d);
        check("A[I, J_X] · B[J_X, K] -> C[I, K]{U_X}", "X=3", d);
        check("A[I, J_YX] · B[J_YX, K]", "X=4, Y=2", "I=3, J=16, K=5");
    }

    #[test]
    fn schedules_deliver_everything_once() {
        for n in 1..=9 {
            for (wrap, bidi) in [(true, true), (true, false), (false, true)] {
                let st = schedule(false, n, wrap, bidi);
                let mut have: Vec<Vec<bool>> =
                    (0..n).map(|c| (0..n).map(|k| k == c).collect()).collect();
                let mut sends = 0;
                for step in &st {
                    for &(s, _, k, _) in step {
                        assert!(have[s][k], "n={n} {wrap} {bidi}");
                    }
                    for &(_, d, k, _) in step {
                        assert!(!have[d][k]);
                        have[d][k] = true;
                        sends += 1;
                    }
                }
                assert!(have.iter().all(|h| h.iter().all(|&x| x)));
                assert_eq!(sends, n * (n - 1));
            }
        }
    }

    #[test]
    fn oversized_problems_are_refused() {
        let plan = MatmulPlan::parse(
            "A[I, J] · B[J, K]",
            "X=2",
            "I=65536, J=65536, K=2",
            chip("v5e").unwrap(),
        )
        .unwrap();
        assert!(matches!(run(&plan, 1), Err(EmulatorError::TooLarge(_))));
    }

    #[test]
    fn an_8x8_mesh_runs_a_256_cube_once() {
        let plan = MatmulPlan::parse(
            "A[I_X, J_Y] · B[J_Y, K] -> C[I_X, K_Y]",
            "X=8, Y=8",
            "I=256, J=256, K=256",
            chip("v5e").unwrap(),
        )
        .unwrap();
        let out = run(&plan, 3).unwrap();
        assert_eq!(out.devices, 64);
        assert!(!out.trace.steps.is_empty());
    }
}
