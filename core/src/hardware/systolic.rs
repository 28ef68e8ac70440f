//! A weight-stationary systolic array stepped cycle by cycle (Part 2,
//! Appendix B, and its `systolic-array` animations).
//!
//! The MXU is a grid of multiply-add cells. Each cell `(k, n)` holds one weight
//! `W[k, n]` for the whole matmul. The weights are loaded first, from the top:
//! column `n` starts shifting its weights in at cycle `n` (the bottom row's
//! weight first), every weight of the column moves one cell down per cycle, and
//! after `K` cycles the column is in place. The columns thus settle on a
//! diagonal front, the last one after `K + N − 1` cycles
//! ([`SystolicParams::load_cycles`]).
//!
//! Activations enter from the left as soon as the first column holds its
//! weights, at cycle `K` ([`SystolicParams::first_entry`]), while the other
//! columns are still loading: row `k` of the grid receives column `k` of `X`,
//! skewed by one cycle per row, and activations move one cell right per cycle,
//! so they reach column `n` one cycle after its weights are in place. A cell
//! multiplies with the weight it held at the start of the cycle. Partial sums
//! move one cell down per cycle, each cell adding `x · w` as they pass. Row `m`
//! of the product leaves the bottom of column `n` at cycle
//! `K + m + (K − 1) + n`.
//!
//! Four phases follow. While the weights **load**, no activation has entered;
//! while the array **fills**, no result has left yet (the last columns'
//! weights are still shifting in during its first cycles); in the **steady**
//! state a new row of `X` enters every cycle; while it **drains**, the last
//! inputs work their way out. Feeding several input blocks back to back pays
//! the fill and drain once instead of once per block, which is why the MXU is
//! kept fed with a pipeline of blocks. The blocks share one set of weights, so
//! the weights load once.
//!
//! ```
//! use ridgeline_core::hardware::systolic::{run, SystolicParams};
//!
//! let p = SystolicParams { k: 4, n: 4, m: 6, blocks: 2, pipelined: true, seed: 3 };
//! let out = run(&p).unwrap();
//! assert_eq!(out.result, out.expected); // the array computes X · W exactly
//! // K cycles of loading before the first activation, then the stream.
//! assert_eq!(out.cycles, 4 + (2 * 6 + 4 + 4 - 2));
//! ```

use crate::rng::Rng;

/// Largest side of the array the emulation accepts.
pub const MAX_SIDE: u32 = 32;
/// Most input rows (over all blocks) the emulation accepts.
pub const MAX_ROWS: u32 = 512;

/// The array and its input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SystolicParams {
    /// Rows of the array: the contracting dimension `K`.
    pub k: u32,
    /// Columns of the array: output columns `N`.
    pub n: u32,
    /// Rows of `X` per input block.
    pub m: u32,
    /// Input blocks multiplied by the same weights.
    pub blocks: u32,
    /// Whether a block enters right behind the previous one (`true`) or waits
    /// for it to drain (`false`).
    pub pipelined: bool,
    /// Seed of the small integer values of `X` and `W`.
    pub seed: u64,
}

impl SystolicParams {
    /// Checks the fields, naming the first bad one.
    pub fn validate(&self) -> Result<(), String> {
        for (v, what) in [
            (self.k, "the array's rows (K)"),
            (self.n, "the array's columns (N)"),
        ] {
            if v == 0 || v > MAX_SIDE {
                return Err(format!("{what} must be between 1 and {MAX_SIDE}, not {v}"));
            }
        }
        if self.m == 0 {
            return Err("the rows per block (M) must be at least 1".into());
        }
        if self.blocks == 0 {
            return Err("the number of blocks must be at least 1".into());
        }
        if self.m.saturating_mul(self.blocks) > MAX_ROWS {
            return Err(format!(
                "M × blocks must be at most {MAX_ROWS}, not {}",
                self.m as u64 * self.blocks as u64
            ));
        }
        Ok(())
    }

    /// Cycles during which some column's weights are still shifting in:
    /// column `n` loads during cycles `n ..= n + K − 1`, so the last column is
    /// in place after `K + N − 1` cycles.
    pub fn load_cycles(&self) -> u64 {
        (self.k as u64 + self.n as u64).saturating_sub(1)
    }

    /// The cycle at which the first activation enters: `K`, the first cycle
    /// after the first column holds its weights. The other `N − 1` cycles of
    /// loading overlap the stream of activations.
    pub fn first_entry(&self) -> u64 {
        self.k as u64
    }

    /// Cycles from the first activation entering until the last result
    /// leaves: the last row enters `M · blocks − 1` cycles after the first when
    /// pipelined (each block a full `M + K + N − 2` apart otherwise) and needs
    /// `K + N − 1` more cycles.
    pub fn stream_cycles(&self) -> u64 {
        let (k, n, m, blocks) = (
            self.k as u64,
            self.n as u64,
            self.m as u64,
            self.blocks as u64,
        );
        let last_entry = if self.pipelined {
            m * blocks
        } else {
            blocks.saturating_sub(1) * (m + k + n).saturating_sub(2) + m
        };
        (last_entry + k + n).saturating_sub(2)
    }

    /// Cycles until the last result leaves, without running the array: the
    /// [`first_entry`](Self::first_entry) cycles before the first activation
    /// enters, then the [`stream_cycles`](Self::stream_cycles).
    pub fn cycles(&self) -> u64 {
        self.first_entry() + self.stream_cycles()
    }
}

/// Which phase a cycle belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Weights shifting in; no activation has entered yet.
    Load,
    /// No result of the current block has left yet.
    Fill,
    /// Inputs still entering and results leaving.
    Steady,
    /// All inputs have entered; the array empties.
    Drain,
}

/// What one cell does in a cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CellState {
    /// No weight has reached it yet.
    Empty,
    /// A weight moved into it this cycle: its column is still loading, and the
    /// weight may be on its way to a cell further down.
    LoadingWeight,
    /// It holds its own weight and no activation passes.
    HoldingWeight,
    /// An activation passes: it multiplies it by its weight and adds the sum
    /// from above.
    Multiplying,
}

/// One cycle of the array.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    /// The cycle number (from 0).
    pub cycle: u32,
    /// Its phase.
    pub phase: Phase,
    /// What each cell did, row-major `K × N`.
    pub cells: Vec<CellState>,
    /// The weight held by each cell after the cycle, row-major `K × N`.
    pub w: Vec<Option<f32>>,
    /// Weights of each column still waiting above the array after the cycle.
    pub waiting: Vec<u32>,
    /// The activation held by each cell after the cycle, row-major `K × N`.
    pub x: Vec<Option<f32>>,
    /// The partial sum held by each cell after the cycle, row-major `K × N`.
    pub sum: Vec<Option<f32>>,
    /// Results leaving the bottom this cycle: `(row of X, column, value)`.
    pub out: Vec<(u32, u32, f32)>,
}

impl Frame {
    /// Whether some column's weights are still shifting in.
    pub fn weights_loading(&self) -> bool {
        self.cells.contains(&CellState::LoadingWeight)
    }
}

/// The outcome of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct SystolicRun {
    /// The weights, row-major `K × N`.
    pub w: Vec<f32>,
    /// All input rows, row-major `(M · blocks) × K`.
    pub x: Vec<f32>,
    /// The product collected from the bottom of the array, row-major `(M · blocks) × N`.
    pub result: Vec<f32>,
    /// `X · W` computed directly.
    pub expected: Vec<f32>,
    /// Every cycle, the weight loading included.
    pub frames: Vec<Frame>,
    /// Cycles until the last result leaves, the weight loading included.
    pub cycles: u32,
    /// Multiply-adds done over cells × cycles: the array's utilisation.
    pub utilisation: f64,
}

fn small(rng: &mut Rng) -> f32 {
    // Small integers keep every sum exact in f32.
    rng.below(7) as f32 - 3.0
}

/// The cycle at which row `row` (over all blocks) enters the array's first
/// row, when the first row enters at `first`.
fn entry(p: &SystolicParams, first: u32, row: u32) -> u32 {
    first
        + if p.pipelined {
            row
        } else {
            let (block, r) = (row / p.m, row % p.m);
            block * (p.m + p.k + p.n - 2) + r
        }
}

/// Runs the array until every result has left: the weights load, then the
/// activations enter from cycle [`SystolicParams::first_entry`].
pub fn run(p: &SystolicParams) -> Result<SystolicRun, String> {
    p.validate()?;
    simulate(p, p.k)
}

/// Runs the array with the first activation entering at cycle `first`.
/// [`run`] passes `K`, the earliest cycle at which every activation meets
/// its cell's own weight; the tests show that one cycle earlier is wrong.
#[allow(
    clippy::cast_possible_truncation,
    reason = "rows, columns and cycles are bounded by MAX_SIDE and MAX_ROWS (checked by validate)"
)]
fn simulate(p: &SystolicParams, first: u32) -> Result<SystolicRun, String> {
    let (k, n) = (p.k as usize, p.n as usize);
    let rows = (p.m * p.blocks) as usize;
    let mut rng = Rng::new(p.seed);
    let w: Vec<f32> = (0..k * n).map(|_| small(&mut rng)).collect();
    let x: Vec<f32> = (0..rows * k).map(|_| small(&mut rng)).collect();
    let mut expected = vec![0.0f32; rows * n];
    for r in 0..rows {
        for c in 0..n {
            expected[r * n + c] = (0..k).map(|j| x[r * k + j] * w[j * n + c]).sum();
        }
    }
    // Which input row enters at each cycle, if any.
    let last_entry = entry(p, first, rows as u32 - 1);
    let mut entering: Vec<Option<u32>> = vec![None; last_entry as usize + 1];
    for r in 0..rows as u32 {
        entering[entry(p, first, r) as usize] = Some(r);
    }
    let cycles = (last_entry + p.k + p.n - 1).max(p.k + p.n - 1);
    // The weight registers: each holds a weight on its way down, or in place.
    let mut wreg: Vec<Option<f32>> = vec![None; k * n];
    let mut xs: Vec<Option<(u32, f32)>> = vec![None; k * n];
    let mut sums: Vec<Option<f32>> = vec![None; k * n];
    let mut result = vec![0.0f32; rows * n];
    let mut frames = Vec::with_capacity(cycles as usize);
    let mut busy = 0u64;
    for t in 0..cycles as usize {
        // A cell multiplies with the weight it held when the cycle began.
        let held = wreg.clone();
        // Column nn loads during cycles nn ..= nn + K − 1: its weights move one
        // cell down and the next enters at the top, the bottom row's first.
        let loading = |nn: usize| t >= nn && t < nn + k;
        for nn in (0..n).filter(|&nn| loading(nn)) {
            for kk in (1..k).rev() {
                wreg[kk * n + nn] = wreg[(kk - 1) * n + nn];
            }
            let row = k - 1 - (t - nn);
            wreg[nn] = Some(w[row * n + nn]);
        }
        let mut nx = vec![None; k * n];
        let mut ns = vec![None; k * n];
        for kk in 0..k {
            for nn in 0..n {
                // Row kk of the grid sees column kk of X, skewed by kk cycles.
                let x_in = if nn == 0 {
                    t.checked_sub(kk)
                        .and_then(|c| entering.get(c).copied().flatten())
                        .map(|r| (r, x[r as usize * k + kk]))
                } else {
                    xs[kk * n + nn - 1]
                };
                if let Some((r, v)) = x_in {
                    let above = if kk == 0 {
                        0.0
                    } else {
                        sums[(kk - 1) * n + nn].unwrap_or(0.0)
                    };
                    let weight = held[kk * n + nn].unwrap_or(0.0);
                    nx[kk * n + nn] = Some((r, v));
                    ns[kk * n + nn] = Some(above + v * weight);
                    busy += 1;
                }
            }
        }
        let mut out = Vec::new();
        for nn in 0..n {
            if let (Some((r, _)), Some(s)) = (nx[(k - 1) * n + nn], ns[(k - 1) * n + nn]) {
                result[r as usize * n + nn] = s;
                out.push((r, nn as u32, s));
            }
        }
        xs = nx;
        sums = ns;
        let cells = (0..k * n)
            .map(|i| {
                if xs[i].is_some() {
                    CellState::Multiplying
                } else if wreg[i].is_none() {
                    CellState::Empty
                } else if loading(i % n) {
                    CellState::LoadingWeight
                } else {
                    CellState::HoldingWeight
                }
            })
            .collect();
        // The phase of the block whose rows are in flight at this cycle.
        let t = t as u32;
        let block_of = |r: u32| r / p.m;
        let current = xs
            .iter()
            .flatten()
            .map(|&(r, _)| block_of(r))
            .min()
            .unwrap_or(0);
        let first_in = entry(p, first, current * p.m);
        let last_in = entry(p, first, current * p.m + p.m - 1);
        let phase = if t < first {
            Phase::Load
        } else if t < first_in + p.k - 1 {
            Phase::Fill
        } else if t > last_in + p.k - 1 {
            Phase::Drain
        } else {
            Phase::Steady
        };
        frames.push(Frame {
            cycle: t,
            phase,
            cells,
            w: wreg.clone(),
            waiting: (0..n)
                .map(|nn| (k - (t as usize + 1).saturating_sub(nn).min(k)) as u32)
                .collect(),
            x: xs.iter().map(|c| c.map(|(_, v)| v)).collect(),
            sum: sums.clone(),
            out,
        });
    }
    Ok(SystolicRun {
        w,
        x,
        result,
        expected,
        cycles,
        utilisation: busy as f64 / (k * n) as f64 / cycles as f64,
        frames,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A `k × n` array fed `blocks` blocks of `m` rows back to back.
    fn piped(k: u32, n: u32, m: u32, blocks: u32, seed: u64) -> SystolicParams {
        SystolicParams {
            k,
            n,
            m,
            blocks,
            pipelined: true,
            seed,
        }
    }

    #[test]
    fn pipelining_hides_the_fill() {
        let base = SystolicParams {
            k: 8,
            n: 8,
            m: 8,
            blocks: 4,
            pipelined: false,
            seed: 1,
        };
        let serial = run(&base).unwrap();
        let piped = run(&SystolicParams {
            pipelined: true,
            ..base
        })
        .unwrap();
        // Eight cycles of loading, then the stream.
        assert_eq!(serial.cycles, 8 + 4 * (8 + 8 + 8 - 2));
        assert_eq!(piped.cycles, 8 + 4 * 8 + 8 + 8 - 2);
        assert!(piped.utilisation > serial.utilisation);
        assert_eq!(piped.result, piped.expected);
        assert_eq!(serial.result, serial.expected);
        let phases: Vec<Phase> = piped.frames.iter().map(|f| f.phase).collect();
        assert_eq!(phases.first(), Some(&Phase::Load));
        assert_eq!(phases.last(), Some(&Phase::Drain));
        assert!(phases.contains(&Phase::Fill));
        assert!(phases.contains(&Phase::Steady));
    }

    /// The cycles in which some cell takes a weight on its way in.
    fn loading_cycles(r: &SystolicRun) -> Vec<u32> {
        r.frames
            .iter()
            .filter(|f| f.weights_loading())
            .map(|f| f.cycle)
            .collect()
    }

    #[test]
    fn the_weights_load_on_a_diagonal_front_before_and_under_the_stream() {
        // A 2 × 2 array, two rows of X, by hand (cycles from 0):
        //   cycle 0: column 0 takes W[1,0] into its top cell;
        //   cycle 1: W[1,0] moves down, W[0,0] enters: column 0 is in place;
        //            column 1 takes W[1,1];
        //   cycle 2: X[0,0] enters cell (0,0), which multiplies, while
        //            W[0,1] enters column 1, which is then in place;
        //   cycle 3: X[1,0] enters; X[0,0] reaches cell (0,1); X[0,1] enters
        //            cell (1,0), adds the sum from above, and C[0,0] leaves;
        //   the last result C[1,1] leaves at K + 1 + (K − 1) + 1 = 5.
        // Loading: cycles 0, 1, 2 = K + N − 1 = 3 cycles; the total is
        // K + (M + K + N − 2) = 2 + 4 = 6.
        let p = piped(2, 2, 2, 1, 5);
        let r = run(&p).unwrap();
        assert_eq!(r.result, r.expected);
        assert_eq!(r.cycles, 6);
        assert_eq!((p.load_cycles(), p.first_entry(), p.cycles()), (3, 2, 6));
        assert_eq!(loading_cycles(&r), vec![0, 1, 2]);
        let at = |t: usize, k: usize, n: usize| r.frames[t].cells[k * 2 + n];
        use CellState::*;
        // Cycle 0: only the top of column 0 holds a weight, the bottom row's.
        assert_eq!(r.frames[0].cells, vec![LoadingWeight, Empty, Empty, Empty]);
        assert_eq!(r.frames[0].w[0], Some(r.w[2]));
        assert_eq!(r.frames[0].waiting, vec![1, 2]);
        assert_eq!(r.frames[2].waiting, vec![0, 0]);
        // Cycle 1: column 0 complete, column 1 half loaded.
        assert_eq!(
            r.frames[1].cells,
            vec![LoadingWeight, LoadingWeight, LoadingWeight, Empty]
        );
        // Cycle 2: the first activation meets W[0,0] while column 1 loads.
        assert_eq!(at(2, 0, 0), Multiplying);
        assert_eq!(
            (at(2, 1, 0), at(2, 0, 1), at(2, 1, 1)),
            (HoldingWeight, LoadingWeight, LoadingWeight)
        );
        assert_eq!(r.frames[2].sum[0], Some(r.x[0] * r.w[0]));
        assert_eq!(r.frames[2].phase, Phase::Fill);
        assert!(r.frames[..2]
            .iter()
            .all(|f| f.phase == Phase::Load && f.x.iter().all(Option::is_none)));
        // Once loaded, every cell holds its own weight to the end.
        let last = r.frames.last().unwrap();
        assert_eq!(last.w, r.w.iter().map(|&v| Some(v)).collect::<Vec<_>>());
    }

    #[test]
    fn larger_shapes_pay_the_load_once() {
        // K = 3, N = 4, M = 5, two blocks. Loading: 3 + 4 − 1 = 6 cycles,
        // the first activation at cycle 3. Pipelined: 3 + (2·5 + 3 + 4 − 2)
        // = 18 cycles; each block waiting: 3 + 2·(5 + 3 + 4 − 2) = 23.
        let p = piped(3, 4, 5, 2, 9);
        let piped = run(&p).unwrap();
        assert_eq!(piped.cycles, 18);
        assert_eq!(loading_cycles(&piped), (0..6).collect::<Vec<_>>());
        let serial = run(&SystolicParams {
            pipelined: false,
            ..p
        })
        .unwrap();
        assert_eq!(serial.cycles, 23);
        // The second block does not load the weights again.
        assert_eq!(loading_cycles(&serial), (0..6).collect::<Vec<_>>());
        assert_eq!(serial.result, serial.expected);
    }

    #[test]
    fn an_activation_one_cycle_early_meets_a_weight_still_moving() {
        // K is the earliest entry: one cycle earlier, cell (0, 0) still holds
        // the weight of the row below, and the product is wrong.
        let p = piped(4, 4, 4, 1, 7);
        let on_time = simulate(&p, p.k).unwrap();
        assert_eq!(on_time.result, on_time.expected);
        let early = simulate(&p, p.k - 1).unwrap();
        assert_ne!(early.result, early.expected);
    }

    #[test]
    fn bad_sizes_are_named() {
        let p = piped(0, 8, 8, 1, 1);
        assert!(run(&p).unwrap_err().contains("(K)"));
        assert!(run(&SystolicParams { k: 4, m: 0, ..p })
            .unwrap_err()
            .contains("(M)"));
        assert!(run(&SystolicParams { k: 4, n: 99, ..p })
            .unwrap_err()
            .contains("(N)"));
        assert!(run(&SystolicParams {
            k: 4,
            blocks: 1000,
            ..p
        })
        .unwrap_err()
        .contains("blocks"));
    }

    proptest! {
        #[test]
        fn the_array_computes_the_matmul(
            k in 1u32..=12, n in 1u32..=12, m in 1u32..=10, blocks in 1u32..=4,
            pipelined in any::<bool>(), seed in any::<u64>(),
        ) {
            let p = SystolicParams { k, n, m, blocks, pipelined, seed };
            let r = run(&p).unwrap();
            prop_assert_eq!(&r.result, &r.expected);
            prop_assert_eq!(p.cycles(), r.cycles as u64);
            // The weights take K + N − 1 cycles to load, from cycle 0, and the
            // first K cycles see no activation.
            let loading: Vec<u32> = r.frames.iter().filter(|f| f.weights_loading()).map(|f| f.cycle).collect();
            prop_assert_eq!(loading, (0..(k + n - 1)).collect::<Vec<_>>());
            prop_assert!(r.frames[..k as usize].iter().all(|f| f.phase == Phase::Load && f.x.iter().all(Option::is_none)));
            // Each result leaves exactly once.
            let outs: usize = r.frames.iter().map(|f| f.out.len()).sum();
            prop_assert_eq!(outs, (m * blocks * n) as usize);
            // Every cell does one multiply-add per input row.
            let busy = r.utilisation * (k * n) as f64 * r.cycles as f64;
            prop_assert!((busy - (k * n * m * blocks) as f64).abs() < 1e-6);
        }
    }
}
