//! The Transformer itself (Part 4): its shape, and what it costs in parameters,
//! FLOPs, bytes and memory, before any question of chips.
//!
//! | file | what |
//! |---|---|
//! | `config.rs` | [`config::ModelConfig`], the handful of integers that fix a model, and the registry of published models |
//! | `accounting.rs` | parameters, FLOPs per token, KV cache per token (MHA, GQA, MQA, MLA), activation memory and optimizer state |
//! | `einsum.rs` | the FLOPs and bytes of a contraction written as the book writes it (`BD,DF->BF`) |
//! | `layer.rs` | one layer operation by operation, the book's layer diagram with numbers |
//! | `moe.rs` | Mixture of Experts: parameters stored against parameters used, and its intensity |
//! | `flash_attention.rs` | flash attention's online softmax, block by block |
//! | `remat.rs` | gradient checkpointing: what the forward pass keeps and what recomputing costs |

pub mod accounting;
pub mod config;
pub mod einsum;
pub mod flash_attention;
pub mod layer;
pub mod moe;
pub mod remat;
