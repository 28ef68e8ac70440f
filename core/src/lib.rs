//! # ridgeline-core
//!
//! The arithmetic of *How to Scale Your Model* (Austin et al., Google DeepMind,
//! 2025) as plain, deterministic Rust: unit-typed quantities, one registry of the
//! book's hardware, roofline analysis, and the operations the book puts on it.
//! Nothing here knows about the web; the companion's pages are thin views over
//! these functions, and every number a page shows can be recomputed in a native
//! test.
//!
//! ```
//! use ridgeline_core::dtype::Dtype;
//! use ridgeline_core::hardware::{chip, Link};
//! use ridgeline_core::ops::Op;
//! use ridgeline_core::roofline::Verdict;
//!
//! let v5e = chip("v5e").unwrap();
//! let matmul = |b| Op::Matmul { b, d: 8192.0, f: 8192.0, act: Dtype::Bf16, weight: Dtype::Bf16 };
//! assert_eq!(matmul(64.0).verdict(v5e), Some(Verdict::MemoryBound));
//! assert_eq!(matmul(1024.0).verdict(v5e), Some(Verdict::ComputeBound));
//! ```

pub mod chip_map;
pub mod codegen;
pub mod collective_matmul;
pub mod collectives;
pub mod compact;
pub mod dtype;
pub mod einsum;
pub mod emulator;
pub mod exercises;
pub mod flash;
pub mod format;
pub mod gpu;
pub mod hardware;
#[cfg(feature = "library")]
pub mod hf_config;
pub mod hlo_op;
pub mod inference;
pub mod jax;
pub mod kv_sharding;
pub mod layer;
pub mod layout;
#[cfg(feature = "library")]
pub mod library;
pub mod models;
pub mod moe;
pub mod ops;
pub mod overlap;
pub mod pipeline;
pub mod profiling;
pub mod remat;
pub mod roofline;
pub mod serving;
pub mod serving_sim;
pub mod sharding;
pub mod streaming;
pub mod strong_scaling;
pub mod symbols;
pub mod systolic;
pub mod tpu;
pub mod trace;
pub mod training;
pub mod transformer;
pub mod units;
pub mod user_chip;
