//! A weight-stationary systolic array stepped cycle by cycle (Part 2,
//! Appendix B, and its `systolic-array` animations).
//!
//! The MXU is a grid of multiply-add cells. Each cell `(k, n)` holds one weight
//! `W[k, n]` for the whole matmul. Activations enter from the left, row `k` of
//! the grid receiving column `k` of `X`, skewed by one cycle per row, and move one
//! cell right per cycle; partial sums move one cell down per cycle, each cell
//! adding `x · w` as they pass. Row `m` of the product leaves the bottom of column
//! `n` at cycle `m + (K − 1) + n`.
//!
//! Three phases follow. While the array **fills**, no result has left yet; in the
//! **steady** state a new row of `X` enters every cycle; while it **drains**, the
//! last inputs work their way out. Feeding several input blocks back to back
//! pays the fill and drain once instead of once per block, which is why the MXU
//! is kept fed with a pipeline of blocks.
//!
//! ```
//! use ridgeline_core::hardware::systolic::{run, SystolicParams};
//!
//! let p = SystolicParams { k: 4, n: 4, m: 6, blocks: 2, pipelined: true, seed: 3 };
//! let out = run(&p).unwrap();
//! assert_eq!(out.result, out.expected); // the array computes X · W exactly
//! assert_eq!(out.cycles, 2 * 6 + 4 + 4 - 2);
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

    /// Cycles until the last result leaves, without running the array: the
    /// last row enters at `M · blocks − 1` when pipelined (each block a full
    /// `M + K + N − 2` apart otherwise) and needs `K + N − 1` more cycles.
    pub fn cycles(&self) -> u64 {
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
}

/// Which phase a cycle belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// No result of the current block has left yet.
    Fill,
    /// Inputs still entering and results leaving.
    Steady,
    /// All inputs have entered; the array empties.
    Drain,
}

/// One cycle of the array.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    /// The cycle number (from 0).
    pub cycle: u32,
    /// Its phase.
    pub phase: Phase,
    /// The activation held by each cell after the cycle, row-major `K × N`.
    pub x: Vec<Option<f32>>,
    /// The partial sum held by each cell after the cycle, row-major `K × N`.
    pub sum: Vec<Option<f32>>,
    /// Results leaving the bottom this cycle: `(row of X, column, value)`.
    pub out: Vec<(u32, u32, f32)>,
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
    /// Every cycle.
    pub frames: Vec<Frame>,
    /// Cycles until the last result leaves.
    pub cycles: u32,
    /// Multiply-adds done over cells × cycles: the array's utilisation.
    pub utilisation: f64,
}

fn small(rng: &mut Rng) -> f32 {
    // Small integers keep every sum exact in f32.
    rng.below(7) as f32 - 3.0
}

/// The cycle at which row `row` (over all blocks) enters the array's first row.
fn entry(p: &SystolicParams, row: u32) -> u32 {
    if p.pipelined {
        row
    } else {
        let (block, r) = (row / p.m, row % p.m);
        block * (p.m + p.k + p.n - 2) + r
    }
}

/// Runs the array until every result has left.
pub fn run(p: &SystolicParams) -> Result<SystolicRun, String> {
    p.validate()?;
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
    let last_entry = entry(p, rows as u32 - 1);
    let mut entering: Vec<Option<u32>> = vec![None; last_entry as usize + 1];
    for r in 0..rows as u32 {
        entering[entry(p, r) as usize] = Some(r);
    }
    let cycles = last_entry + p.k + p.n - 1;
    let mut xs: Vec<Option<(u32, f32)>> = vec![None; k * n];
    let mut sums: Vec<Option<f32>> = vec![None; k * n];
    let mut result = vec![0.0f32; rows * n];
    let mut frames = Vec::with_capacity(cycles as usize);
    let mut busy = 0u64;
    for t in 0..cycles {
        let mut nx = vec![None; k * n];
        let mut ns = vec![None; k * n];
        for kk in 0..k {
            for nn in 0..n {
                // Row kk of the grid sees column kk of X, skewed by kk cycles.
                let x_in = if nn == 0 {
                    (t as usize)
                        .checked_sub(kk)
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
                    nx[kk * n + nn] = Some((r, v));
                    ns[kk * n + nn] = Some(above + v * w[kk * n + nn]);
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
        // The phase of the block whose rows are in flight at this cycle.
        let block_of = |r: u32| r / p.m;
        let current = xs
            .iter()
            .flatten()
            .map(|&(r, _)| block_of(r))
            .min()
            .unwrap_or(0);
        let first = entry(p, current * p.m);
        let last = entry(p, current * p.m + p.m - 1);
        let phase = if t < first + p.k - 1 {
            Phase::Fill
        } else if t > last + p.k - 1 {
            Phase::Drain
        } else {
            Phase::Steady
        };
        frames.push(Frame {
            cycle: t,
            phase,
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
        assert_eq!(serial.cycles, 4 * (8 + 8 + 8 - 2));
        assert_eq!(piped.cycles, 4 * 8 + 8 + 8 - 2);
        assert!(piped.utilisation > serial.utilisation);
        assert_eq!(piped.result, piped.expected);
        assert_eq!(serial.result, serial.expected);
        let phases: Vec<Phase> = piped.frames.iter().map(|f| f.phase).collect();
        assert_eq!(phases.first(), Some(&Phase::Fill));
        assert_eq!(phases.last(), Some(&Phase::Drain));
        assert!(phases.contains(&Phase::Steady));
    }

    #[test]
    fn bad_sizes_are_named() {
        let p = SystolicParams {
            k: 0,
            n: 8,
            m: 8,
            blocks: 1,
            pipelined: true,
            seed: 1,
        };
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
            // Each result leaves exactly once.
            let outs: usize = r.frames.iter().map(|f| f.out.len()).sum();
            prop_assert_eq!(outs, (m * blocks * n) as usize);
            // Every cell does one multiply-add per input row.
            let busy = r.utilisation * (k * n) as f64 * r.cycles as f64;
            prop_assert!((busy - (k * n * m * blocks) as f64).abs() < 1e-6);
        }
    }
}
