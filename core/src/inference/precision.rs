//! The formats a server stores weights and KV caches in, and computes in.

use crate::dtype::Dtype;

/// The formats a server stores weights and KV caches in, and computes in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Precision {
    /// Format of the stored weights.
    pub weights: Dtype,
    /// Format of the KV cache.
    pub kv: Dtype,
    /// Format the matmuls run in (the book's "bf16 FLOPs").
    pub compute: Dtype,
}

impl Precision {
    /// Everything in bf16.
    pub const BF16: Precision = Precision {
        weights: Dtype::Bf16,
        kv: Dtype::Bf16,
        compute: Dtype::Bf16,
    };

    /// Weights in `weights`, KV caches in `kv`, matmuls in `compute`.
    pub fn new(weights: Dtype, kv: Dtype, compute: Dtype) -> Precision {
        Precision {
            weights,
            kv,
            compute,
        }
    }

    /// Weights and KV caches stored in `storage`, FLOPs in bf16: the book's
    /// common "int8 weights, bf16 FLOPs" setting (Part 8).
    pub fn stored(storage: Dtype) -> Precision {
        Precision::new(storage, storage, Dtype::Bf16)
    }
}
