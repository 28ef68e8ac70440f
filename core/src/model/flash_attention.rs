//! Flash attention's online softmax (Part 4, Appendix A), stepped block by block
//! with real numbers. Ordinary attention forms the whole `[T, S]` matrix of scores,
//! takes a softmax over each row and multiplies by the values, so its memory grows
//! with `T · S`. Flash attention visits the keys one block at a time and keeps, for
//! each query, only a running maximum `m`, a running sum `l` of exponentials and an
//! accumulator of exponential-weighted values. When a new block raises the maximum,
//! the old sum and accumulator are rescaled by `exp(m_old − m_new)`; at the end the
//! accumulator divided by the sum is exactly the softmax-weighted average. The FLOPs
//! are the same `4 · T · S · H`; the memory is linear in the sequence length.
//!
//! ```
//! use ridgeline_core::model::flash_attention::{run, FlashParams};
//!
//! let p = FlashParams { queries: 4, keys: 32, head_dim: 8, block: 8, seed: 1 };
//! let r = run(&p).unwrap();
//! assert_eq!(r.steps.len(), 4);
//! assert!(r.max_error() < 1e-12); // equals ordinary softmax attention
//! ```

use crate::rng::Rng;
use crate::units::Flops;

/// The most queries the stepper holds.
pub const MAX_QUERIES: usize = 64;
/// The most keys.
pub const MAX_KEYS: usize = 4096;
/// The widest head.
pub const MAX_HEAD_DIM: usize = 128;

/// What the `flash-attention` widget lets a reader set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlashParams {
    /// Queries `T`.
    pub queries: usize,
    /// Keys and values `S`.
    pub keys: usize,
    /// Head dimension `H`.
    pub head_dim: usize,
    /// Keys per block.
    pub block: usize,
    /// Seed of the deterministic random `Q`, `K`, `V`.
    pub seed: u64,
}

impl FlashParams {
    /// Checks every field; the message names the bad one.
    pub fn validate(&self) -> Result<(), String> {
        let range = |name: &str, v: usize, max: usize| {
            if (1..=max).contains(&v) {
                Ok(())
            } else {
                Err(format!("{name}: between 1 and {max}, not {v}"))
            }
        };
        range("queries", self.queries, MAX_QUERIES)?;
        range("keys", self.keys, MAX_KEYS)?;
        range("head_dim", self.head_dim, MAX_HEAD_DIM)?;
        range("block", self.block, self.keys)
    }
}

/// The running state of one query row after a block.
#[derive(Debug, Clone, PartialEq)]
pub struct RowState {
    /// Running maximum of the scores seen so far.
    pub max: f64,
    /// Running sum of `exp(score − max)`.
    pub sum: f64,
    /// The factor the previous sum and accumulator were multiplied by, `exp(m_old − m_new)`.
    pub rescale: f64,
    /// Running `Σ exp(score − max) · v`, one entry per head dimension.
    pub acc: Vec<f64>,
}

/// The state after one block of keys.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// The keys of this block, `start..end`.
    pub keys: (usize, usize),
    /// Every query row's state.
    pub rows: Vec<RowState>,
    /// The current output estimate, `acc / sum`, one row per query.
    pub output: Vec<Vec<f64>>,
}

/// The whole run.
#[derive(Debug, Clone, PartialEq)]
pub struct FlashRun {
    /// The inputs, `[T, H]`, `[S, H]`, `[S, H]`.
    pub q: Vec<Vec<f64>>,
    /// Keys.
    pub k: Vec<Vec<f64>>,
    /// Values.
    pub v: Vec<Vec<f64>>,
    /// One step per block.
    pub steps: Vec<Step>,
    /// Ordinary softmax attention, for comparison.
    pub reference: Vec<Vec<f64>>,
    /// FLOPs of the two matmuls, `4 · T · S · H` (the same for both methods).
    pub flops: Flops,
    /// Numbers held at once by flash attention.
    pub flash_memory: f64,
    /// Numbers held at once by ordinary attention (the score matrix and the rest).
    pub naive_memory: f64,
}

impl FlashRun {
    /// The final output (after the last block).
    pub fn output(&self) -> &[Vec<f64>] {
        self.steps
            .last()
            .map(|s| s.output.as_slice())
            .unwrap_or(&[])
    }

    /// Largest absolute difference between the final output and the reference.
    pub fn max_error(&self) -> f64 {
        self.output()
            .iter()
            .flatten()
            .zip(self.reference.iter().flatten())
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max)
    }
}

/// Numbers held at once: flash keeps `Q`, the output, `m` and `l` per query, one
/// block of keys and values and one block of scores; ordinary attention keeps `Q`,
/// `K`, `V`, the whole score matrix and the output.
pub fn memory(queries: f64, keys: f64, head_dim: f64, block: f64) -> (f64, f64) {
    let flash = 2.0 * queries * head_dim + 2.0 * queries + 2.0 * block * head_dim + queries * block;
    let naive = 2.0 * queries * head_dim + 2.0 * keys * head_dim + queries * keys;
    (flash, naive)
}

/// A `rows × cols` matrix of seeded values in [-2, 2).
fn matrix(rows: usize, cols: usize, rng: &mut Rng) -> Vec<Vec<f64>> {
    (0..rows)
        .map(|_| (0..cols).map(|_| rng.unit() * 4.0 - 2.0).collect())
        .collect()
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Ordinary attention: `softmax(Q Kᵀ / √H) V`.
pub fn attention(q: &[Vec<f64>], k: &[Vec<f64>], v: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let h = q.first().map_or(1, Vec::len).max(1);
    let scale = 1.0 / (h as f64).sqrt();
    q.iter()
        .map(|qi| {
            let s: Vec<f64> = k.iter().map(|kj| dot(qi, kj) * scale).collect();
            let m = s.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let e: Vec<f64> = s.iter().map(|x| (x - m).exp()).collect();
            let total: f64 = e.iter().sum();
            (0..h)
                .map(|d| e.iter().zip(v).map(|(w, vj)| w * vj[d]).sum::<f64>() / total)
                .collect()
        })
        .collect()
}

/// Runs the online softmax over blocks of `p.block` keys.
pub fn run(p: &FlashParams) -> Result<FlashRun, String> {
    p.validate()?;
    let mut rng = Rng::new(p.seed);
    let q = matrix(p.queries, p.head_dim, &mut rng);
    let k = matrix(p.keys, p.head_dim, &mut rng);
    let v = matrix(p.keys, p.head_dim, &mut rng);
    let scale = 1.0 / (p.head_dim as f64).sqrt();
    let mut rows: Vec<RowState> = (0..p.queries)
        .map(|_| RowState {
            max: f64::NEG_INFINITY,
            sum: 0.0,
            rescale: 1.0,
            acc: vec![0.0; p.head_dim],
        })
        .collect();
    let mut steps = Vec::new();
    for start in (0..p.keys).step_by(p.block) {
        let end = (start + p.block).min(p.keys);
        for (qi, row) in q.iter().zip(rows.iter_mut()) {
            let s: Vec<f64> = k[start..end].iter().map(|kj| dot(qi, kj) * scale).collect();
            let m_new = s.iter().cloned().fold(row.max, f64::max);
            let rescale = (row.max - m_new).exp();
            row.sum *= rescale;
            row.acc.iter_mut().for_each(|a| *a *= rescale);
            for (sj, vj) in s.iter().zip(&v[start..end]) {
                let w = (sj - m_new).exp();
                row.sum += w;
                row.acc.iter_mut().zip(vj).for_each(|(a, x)| *a += w * x);
            }
            row.max = m_new;
            row.rescale = rescale;
        }
        let output = rows
            .iter()
            .map(|r| r.acc.iter().map(|a| a / r.sum).collect())
            .collect();
        steps.push(Step {
            keys: (start, end),
            rows: rows.clone(),
            output,
        });
    }
    let reference = attention(&q, &k, &v);
    let (t, s, h) = (p.queries as f64, p.keys as f64, p.head_dim as f64);
    let (flash_memory, naive_memory) = memory(t, s, h, p.block as f64);
    Ok(FlashRun {
        q,
        k,
        v,
        steps,
        reference,
        flops: Flops(4.0 * t * s * h),
        flash_memory,
        naive_memory,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_block_has_nothing_to_rescale_and_the_sum_only_grows_in_scale() {
        let r = run(&FlashParams {
            queries: 3,
            keys: 20,
            head_dim: 4,
            block: 6,
            seed: 7,
        })
        .unwrap();
        assert_eq!(r.steps.len(), 4);
        assert_eq!(r.steps[3].keys, (18, 20));
        assert!(r.steps[0].rows.iter().all(|row| row.rescale == 0.0));
        for w in r.steps.windows(2) {
            for (a, b) in w[0].rows.iter().zip(&w[1].rows) {
                assert!(b.max >= a.max);
                assert!(b.rescale <= 1.0);
            }
        }
        assert!(r.max_error() < 1e-12);
    }

    #[test]
    fn memory_is_linear_for_flash_and_quadratic_for_the_naive_kernel() {
        let (f1, n1) = memory(4096.0, 4096.0, 128.0, 512.0);
        let (f2, n2) = memory(8192.0, 8192.0, 128.0, 512.0);
        assert!((f2 / f1) < 2.01);
        assert!((n2 / n1) > 3.5);
    }

    #[test]
    fn bad_fields_are_named() {
        let p = FlashParams {
            queries: 4,
            keys: 8,
            head_dim: 2,
            block: 9,
            seed: 0,
        };
        assert!(run(&p).unwrap_err().starts_with("block:"));
        assert!(run(&FlashParams { queries: 0, ..p })
            .unwrap_err()
            .starts_with("queries:"));
        assert!(run(&FlashParams { keys: 100_000, ..p })
            .unwrap_err()
            .starts_with("keys:"));
    }

    proptest::proptest! {
        #[test]
        fn flash_equals_ordinary_attention(t in 1usize..8, s in 1usize..64, h in 1usize..9, b in 1usize..64, seed in 0u64..1000) {
            let p = FlashParams { queries: t, keys: s, head_dim: h, block: b.min(s), seed };
            let r = run(&p).unwrap();
            proptest::prop_assert!(r.max_error() < 1e-12, "{}", r.max_error());
            proptest::prop_assert_eq!(r.steps.len(), s.div_ceil(b.min(s)));
        }
    }
}
