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
//! use ridgeline_core::roofline::ops::Op;
//! use ridgeline_core::roofline::Verdict;
//!
//! let v5e = chip("v5e").unwrap();
//! let matmul = |b| Op::Matmul { b, d: 8192.0, f: 8192.0, act: Dtype::Bf16, weight: Dtype::Bf16 };
//! assert_eq!(matmul(64.0).verdict(v5e), Some(Verdict::MemoryBound));
//! assert_eq!(matmul(1024.0).verdict(v5e), Some(Verdict::ComputeBound));
//! ```
//!
//! ## Where things are
//!
//! The crate is laid out by domain, the way the book's parts are: each folder's
//! `mod.rs` lists its files and what each holds.
//!
//! | module | what |
//! |---|---|
//! | [`units`], [`dtype`], [`format`](mod@format), [`symbols`], [`check`], [`rng`] | foundations: unit-typed quantities, numeric formats, how numbers are printed, the book's notation, the finite-and-positive check on what a reader enters, the seeded random numbers and content hash |
//! | [`hardware`] | the registry of the book's chips, and the TPU's parts: slices of a torus, the chip map, the MXU's systolic array, streaming through VMEM (Parts 1, 2) |
//! | [`roofline`] | compute against bandwidth: the roofline, the operations put on it, strong scaling (Parts 0, 1) |
//! | [`comms`] | collectives and their cost, overlapping them with matmuls (Parts 3, 10) |
//! | [`sharding`] | the sharding notation, the plan a sharded matmul needs, its emulator, and the JAX code for it (Parts 3, 10) |
//! | [`model`] | the Transformer's shape and accounting: parameters, FLOPs, KV cache, MoE, attention, rematerialisation (Part 4) |
//! | [`training`] | parallel training: each strategy's costs and thresholds, ZeRO, array layouts, pipelines (Parts 5, 6) |
//! | [`inference`] | prefill and decode, KV cache on a chip, serving cost and latency, the engine simulation, KV sharding (Parts 7, 8) |
//! | [`profiling`] | reading a profile: layouts, op times, a synthetic trace, one HLO op (Part 9) |
//! | [`gpu`] | what differs on GPUs: SMs, NVLink nodes, the fat tree, their collectives and rooflines (Part 12) |
//! | [`reader`] | the reader's own chips and models: JSON chip, Hugging Face config, library, compact form |
//! | [`rng`] | deterministic random numbers and a content hash, for the grader and every crate's fuzz tests |
//! | [`exercises`] | the book's problems: solvers, the answer parser and the grader |

// Counts never pass through a silent `as`: a float becomes a count through
// `check::whole`, an integer narrows through `try_from`, and the few casts left
// carry an `allow` saying why they are in range. Unit tests are exempt: their
// casts are of the constants they choose.
#![cfg_attr(
    not(test),
    warn(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        clippy::cast_possible_wrap
    )
)]

pub mod check;
pub mod comms;
pub mod dtype;
pub mod exercises;
pub mod format;
pub mod gpu;
pub mod hardware;
pub mod inference;
#[cfg(feature = "measured")]
pub mod measured;
pub mod model;
pub mod profiling;
pub mod reader;
pub mod rng;
pub mod roofline;
pub mod sharding;
pub mod symbols;
pub mod training;
pub mod units;
