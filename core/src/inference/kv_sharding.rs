//! Sharding the KV cache over heads and batch (Part 7, "Sharding the KV
//! cache"), step by step, for the `kv-sharding` widget.
//!
//! Model parallelism over a `Y × Z` mesh shards the query heads `N` over both
//! axes, but the KV cache has only `K` heads, often fewer than `Y·Z`. The book
//! shards the cache's heads over `Y` and its batch over `Z`,
//! `KV[2, B_Z, S, K_Y, H]`, so that no chip holds a copy of another chip's
//! cache. Attention then needs the queries batch-sharded too: one AllToAll
//! moves `Z` from the heads of `Q` to its batch before attention, and a second
//! moves it back to the heads of the output after. Both act on small
//! activations, while every chip reads `Y·Z` times less cache per step than a
//! single chip would.
//!
//! [`kv_sharding`] writes out the book's twelve steps with each chip's local
//! shape, FLOPs, bytes and time (matmuls on the HBM roofline, collectives
//! costed by [`crate::comms::collectives`]).
//!
//! ```
//! use ridgeline_core::inference::kv_sharding::{kv_sharding, KvShardingParams, StepKind};
//!
//! let r = kv_sharding(&KvShardingParams::default()).unwrap();
//! assert_eq!(r.steps.len(), 12);
//! let all_to_alls = r.steps.iter().filter(|s| s.kind == StepKind::AllToAll).count();
//! assert_eq!(all_to_alls, 2);
//! assert!(r.kv_per_chip.0 < r.kv_per_chip_heads_only.0);
//! ```

use crate::comms::collectives::{cost, Collective, Network, RingAxis};
use crate::dtype::Dtype;
use crate::hardware::{chip, Chip, Link};
use crate::roofline::Analysis;
use crate::units::{Bytes, Flops, Seconds};

/// Inputs of the `kv-sharding` widget.
#[derive(Debug, Clone, PartialEq)]
pub struct KvShardingParams {
    /// Chip id.
    pub chip: String,
    /// Sequences in the decode batch, `B`.
    pub batch: u64,
    /// Model width `D`.
    pub d_model: u64,
    /// Query heads `N`.
    pub heads: u64,
    /// KV heads `K`.
    pub kv_heads: u64,
    /// Head dimension `H`.
    pub head_dim: u64,
    /// Tokens in each cache, `S`.
    pub seq: u64,
    /// Mesh axis sharding the KV heads, `Y`.
    pub y: u64,
    /// Mesh axis sharding the batch, `Z`.
    pub z: u64,
    /// Format of the KV cache.
    pub kv_dtype: Dtype,
}

impl Default for KvShardingParams {
    /// LLaMA 3-70B's attention shape (64 query heads, 8 KV heads) on a 8 × 4
    /// TPU v5e mesh, batch 32 at 8k context.
    fn default() -> KvShardingParams {
        KvShardingParams {
            chip: "v5e".into(),
            batch: 32,
            d_model: 8192,
            heads: 64,
            kv_heads: 8,
            head_dim: 128,
            seq: 8192,
            y: 8,
            z: 4,
            kv_dtype: Dtype::Bf16,
        }
    }
}

/// What a step does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepKind {
    /// An array already in place.
    Given,
    /// A local matmul (no communication).
    Matmul,
    /// A local reshape or softmax (no FLOPs counted, no communication).
    Local,
    /// An AllToAll over `Z`.
    AllToAll,
    /// An AllReduce over `Y·Z`.
    AllReduce,
}

/// One line of the book's algorithm.
#[derive(Debug, Clone, PartialEq)]
pub struct KvStep {
    /// The line in the book's notation (subscripts written `_Z`).
    pub text: String,
    /// What it does.
    pub kind: StepKind,
    /// The result's local (per-chip) shape.
    pub local_shape: Vec<u64>,
    /// FLOPs per chip.
    pub flops: Flops,
    /// HBM bytes a matmul reads or writes, or bytes a collective moves, per chip.
    pub bytes: Bytes,
    /// Time per chip: a matmul's roofline time or a collective's cost.
    pub time: Seconds,
}

/// The whole algorithm with its totals.
#[derive(Debug, Clone, PartialEq)]
pub struct KvShardingReport {
    /// The twelve steps.
    pub steps: Vec<KvStep>,
    /// KV bytes each chip holds (heads over `Y`, batch over `Z`).
    pub kv_per_chip: Bytes,
    /// KV bytes each chip would hold with heads sharded over `Y` only
    /// (replicated over `Z`).
    pub kv_per_chip_heads_only: Bytes,
    /// Time of the two AllToAlls.
    pub all_to_all: Seconds,
    /// Time of every step.
    pub total: Seconds,
}

impl KvShardingParams {
    /// Checks sizes and divisibility; errors name the field.
    pub fn validate(&self) -> Result<&'static Chip, String> {
        let c = chip(&self.chip).ok_or_else(|| format!("chip: no chip {:?}", self.chip))?;
        self.validate_shape()?;
        Ok(c)
    }

    /// Checks sizes and divisibility, whatever the chip; errors name the field.
    pub fn validate_shape(&self) -> Result<(), String> {
        for (field, v, max) in [
            ("batch", self.batch, 1 << 20),
            ("d_model", self.d_model, 1 << 20),
            ("heads", self.heads, 4096),
            ("kv_heads", self.kv_heads, 4096),
            ("head_dim", self.head_dim, 4096),
            ("seq", self.seq, 1 << 22),
            ("y", self.y, 4096),
            ("z", self.z, 4096),
        ] {
            if v == 0 || v > max {
                return Err(format!("{field}: {v} is outside 1 to {max}"));
            }
        }
        let divides = |field: &str, what: &str, n: u64, d: u64| {
            if n.is_multiple_of(d) {
                Ok(())
            } else {
                Err(format!("{field}: {d} does not divide {what} ({n})"))
            }
        };
        divides("kv_heads", "the query heads N", self.heads, self.kv_heads)?;
        divides("y", "the KV heads K", self.kv_heads, self.y)?;
        divides("z", "the batch B", self.batch, self.z)?;
        divides(
            "z",
            "the query heads per KV head M = N/K",
            self.heads / self.kv_heads,
            self.z,
        )
    }
}

/// The book's algorithm on the mesh of `p`, step by step.
pub fn kv_sharding(p: &KvShardingParams) -> Result<KvShardingReport, String> {
    kv_sharding_on(p, p.validate()?)
}

/// The book's algorithm on the mesh of `p` with chips `c` (a registry chip or
/// the reader's own), whatever `p.chip` names.
pub fn kv_sharding_on(p: &KvShardingParams, c: &'static Chip) -> Result<KvShardingReport, String> {
    p.validate_shape()?;
    let net = Network::ici(c).map_err(|e| format!("chip: {e}"))?;
    let peak = c
        .peak_or_wider(Dtype::Bf16)
        .map(|(_, r)| r)
        .ok_or_else(|| format!("chip: {} has no bf16 peak", c.id))?;
    let w = c.hbm_bw();
    let act = Dtype::Bf16;
    let (b, d, n, k, h, s, y, z) = (
        p.batch, p.d_model, p.heads, p.kv_heads, p.head_dim, p.seq, p.y, p.z,
    );
    let m = n / k;
    let ring = |axis: &str, size: u64| {
        u32::try_from(size)
            .map(RingAxis::ring)
            .map_err(|_| format!("{axis}: {size} is too many devices for one ring"))
    };
    let (ring_y, ring_z) = (ring("y", y)?, ring("z", z)?);
    let f = |x: u64| x as f64;
    let matmul = |flops: f64, bytes: Bytes| -> (Flops, Bytes, Seconds) {
        let a = Analysis::new(Flops(flops), peak, &[(Link::Hbm, bytes, w)]);
        (Flops(flops), bytes, a.lower)
    };
    let collective =
        |kind: Collective, array: Bytes, axes: &[RingAxis]| -> Result<(Bytes, Seconds), String> {
            let k = cost(kind, array, axes, &net).map_err(|e| e.to_string())?;
            Ok((k.shard, k.time))
        };
    let kv_dt = p.kv_dtype;
    let mut steps = Vec::with_capacity(12);
    let mut push =
        |text: &str, kind, shape: Vec<u64>, (flops, bytes, time): (Flops, Bytes, Seconds)| {
            steps.push(KvStep {
                text: text.to_string(),
                kind,
                local_shape: shape,
                flops,
                bytes,
                time,
            })
        };
    let none = (Flops(0.0), Bytes(0.0), Seconds(0.0));
    push(
        "X[B, D] = … (activations, replicated)",
        StepKind::Given,
        vec![b, d],
        none,
    );
    push(
        "K[B_Z, S, K_Y, H], V[B_Z, S, K_Y, H] = … (the cache, batch- and head-sharded)",
        StepKind::Given,
        vec![b / z, s, k / y, h],
        none,
    );
    let q_local = f(n * h) / f(y * z);
    push(
        "Q[B, N_YZ, H] = X[B, D] · W_Q[D, N_YZ, H]",
        StepKind::Matmul,
        vec![b, n / (y * z), h],
        matmul(
            2.0 * f(b) * f(d) * q_local,
            act.size_of(f(b) * f(d) + f(d) * q_local + f(b) * q_local),
        ),
    );
    // The AllToAll runs within each Z group over the group's Q[B, N_Y, H].
    let q_group = act.size_of(f(b) * f(n * h) / f(y));
    let (sh, t) = collective(Collective::AllToAll, q_group, &[ring_z])?;
    push(
        "Q[B_Z, N_Y, H] = AllToAll_Z→B(Q[B, N_YZ, H])",
        StepKind::AllToAll,
        vec![b / z, n / y, h],
        (Flops(0.0), sh, t),
    );
    push(
        "Q[B_Z, K_Y, M, H] = Reshape(Q[B_Z, N_Y, H])",
        StepKind::Local,
        vec![b / z, k / y, m, h],
        none,
    );
    let att = 2.0 * f(b / z) * f(s) * f(k / y) * f(m) * f(h);
    let cache = kv_dt.size_of(f(b / z) * f(s) * f(k / y) * f(h));
    push(
        "O[B_Z, S, K_Y, M] = Q[B_Z, K_Y, M, H] ·_H K[B_Z, S, K_Y, H]",
        StepKind::Matmul,
        vec![b / z, s, k / y, m],
        matmul(att, cache),
    );
    push(
        "O[B_Z, S, K_Y, M] = Softmax_S(O[B_Z, S, K_Y, M])",
        StepKind::Local,
        vec![b / z, s, k / y, m],
        none,
    );
    push(
        "O[B_Z, K_Y, M, H] = O[B_Z, S, K_Y, M] ·_S V[B_Z, S, K_Y, H]",
        StepKind::Matmul,
        vec![b / z, k / y, m, h],
        matmul(att, cache),
    );
    let (sh, t) = collective(Collective::AllToAll, q_group, &[ring_z])?;
    push(
        "O[B, K_Y, M_Z, H] = AllToAll_Z→M(O[B_Z, K_Y, M, H])",
        StepKind::AllToAll,
        vec![b, k / y, m / z, h],
        (Flops(0.0), sh, t),
    );
    push(
        "O[B, N_YZ, H] = Reshape(O[B, K_Y, M_Z, H])",
        StepKind::Local,
        vec![b, n / (y * z), h],
        none,
    );
    push(
        "X[B, D]{U_YZ} = W_O[N_YZ, H, D] ·_N,H O[B, N_YZ, H]",
        StepKind::Matmul,
        vec![b, d],
        matmul(
            2.0 * f(b) * f(d) * q_local,
            act.size_of(f(b) * f(d) + f(d) * q_local + f(b) * q_local),
        ),
    );
    let (sh, t) = collective(
        Collective::AllReduce,
        act.size_of(f(b) * f(d)),
        &[ring_y, ring_z],
    )?;
    push(
        "X[B, D] = AllReduce_YZ(X[B, D]{U_YZ})",
        StepKind::AllReduce,
        vec![b, d],
        (Flops(0.0), sh, t),
    );
    let all_to_all = steps
        .iter()
        .filter(|s| s.kind == StepKind::AllToAll)
        .fold(Seconds(0.0), |a, s| a + s.time);
    let total = steps.iter().fold(Seconds(0.0), |a, s| a + s.time);
    let both = 2.0;
    Ok(KvShardingReport {
        kv_per_chip: kv_dt.size_of(both * f(b / z) * f(s) * f(k / y) * f(h)),
        kv_per_chip_heads_only: kv_dt.size_of(both * f(b) * f(s) * f(k / y) * f(h)),
        all_to_all,
        total,
        steps,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn twelve_steps_with_the_books_shapes() {
        let p = KvShardingParams::default();
        let r = kv_sharding(&p).unwrap();
        let shapes: Vec<&[u64]> = r.steps.iter().map(|s| s.local_shape.as_slice()).collect();
        assert_eq!(shapes[3], &[8, 8, 128]); // Q[B_Z, N_Y, H]: 32/4, 64/8
        assert_eq!(shapes[4], &[8, 1, 8, 128]); // K_Y = 1, M = 8
        assert_eq!(shapes[8], &[32, 1, 2, 128]); // M_Z = 2
        assert_eq!(shapes[9], &[32, 2, 128]); // N_YZ = 2
                                              // Batch sharding divides each chip's cache by Z.
        assert_eq!(r.kv_per_chip_heads_only.0 / r.kv_per_chip.0, 4.0);
        // Attention reads the cache twice (K and V); the AllToAlls move small activations.
        let read = r.steps[5].bytes + r.steps[7].bytes;
        assert_eq!(read, r.kv_per_chip);
        assert!(r.all_to_all.0 < r.steps[5].time.0 + r.steps[7].time.0);
        let sum: f64 = r.steps.iter().map(|s| s.time.0).sum();
        assert!((r.total.0 - sum).abs() < 1e-15);
    }

    #[test]
    fn bad_meshes_are_named() {
        let with = |f: fn(&mut KvShardingParams)| {
            let mut p = KvShardingParams::default();
            f(&mut p);
            kv_sharding(&p).unwrap_err()
        };
        assert!(with(|p| p.y = 3).starts_with("y:"));
        assert!(with(|p| p.z = 3).starts_with("z:"));
        assert!(with(|p| p.kv_heads = 7).starts_with("kv_heads:"));
        assert!(with(|p| p.z = 16).starts_with("z:")); // M = 8 is not divisible by 16
        assert!(with(|p| p.batch = 0).starts_with("batch:"));
        assert!(with(|p| p.chip = "h100".into()).starts_with("chip:"));
    }

    proptest! {
        #[test]
        fn flops_are_conserved_across_the_mesh(
            ky in 0u32..4, kz in 0u32..3, b_mult in 1u64..8,
        ) {
            let (y, z) = (1u64 << ky, 1u64 << kz);
            let p = KvShardingParams { y, z, batch: 4 * b_mult, ..KvShardingParams::default() };
            let r = kv_sharding(&p).unwrap();
            // Attention FLOPs summed over all Y·Z chips equal the unsharded count.
            let chips = (y * z) as f64;
            let att: f64 = r.steps[5].flops.0 + r.steps[7].flops.0;
            let whole = 4.0 * (p.batch * p.seq * p.heads * p.head_dim) as f64;
            prop_assert!((att * chips / whole - 1.0).abs() < 1e-12);
        }
    }
}
