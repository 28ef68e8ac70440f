//! Communication between chips (Part 3, and Part 10's overlap): what a collective
//! costs, and how a matmul hides it behind compute.
//!
//! | file | what |
//! |---|---|
//! | `collectives.rs` | AllGather, ReduceScatter, AllReduce and AllToAll along one or more axes of a mesh: bytes, the bandwidth and latency terms, [`collectives::cost`] |
//! | `collective_matmul.rs` | the one model of a collective matmul: a block's matmul ([`collective_matmul::chunk_matmul`]) and `ppermute` ([`collective_matmul::ppermute`]), the ring's steps ([`collective_matmul::gather_ring`]); an AllGather or ReduceScatter overlapped with the matmul, chunk by chunk (Part 3), and measured AllGather bandwidth against size |
//! | `pieces.rs` | who holds which piece, or which reduction of whose pieces, before and after each collective on a ring of a few devices ([`pieces::pieces`]) |
//! | `overlap_timeline.rs` | Part 10's collective matmul in JAX as two timelines, blocking and overlapped, built on `collective_matmul.rs` |

pub mod collective_matmul;
pub mod collectives;
pub mod overlap_timeline;
pub mod pieces;
