//! Parallel training on a roofline (Parts 5 and 6): how long each layer spends on
//! FLOPs and on collectives under data parallelism, FSDP, tensor parallelism,
//! their mix, pipelining and pure data parallelism across pods, and what that
//! means for step time, MFU, memory and days to train.
//!
//! The per-layer model is the book's: a layer is `In[B, D] · W_in[D, F] · W_out[F, D]`,
//! attention and the gating matrix are ignored (the gate behaves like `W_in`; set
//! [`Job::count_gate`] to include it). `B` is the global batch **in tokens**; sequence
//! (context) parallelism is data parallelism as far as the MLP is concerned. Using
//! `M` mesh axes for a collective multiplies its bandwidth by `M`. Collectives in the
//! same pass overlap each other and the pass's FLOPs (lower bound: the maximum);
//! the upper bound adds everything up.
//!
//! ```
//! use ridgeline_core::hardware::chip;
//! use ridgeline_core::model::config::model;
//! use ridgeline_core::roofline::Verdict;
//! use ridgeline_core::training::{evaluate, Cluster, Job, Parallelism};
//!
//! // LLaMA 3-70B, a 4M-token batch, a full TPU v5p pod (Part 6).
//! let job = Job::new(model("llama3-70b").unwrap().config, 4194304.0, 4096.0).unwrap();
//! let pod = Cluster::full_pod(chip("v5p").unwrap(), 1).unwrap();
//! let fsdp = evaluate(&job, &pod, &Parallelism::fsdp(8960, 3)).unwrap();
//! assert_eq!(fsdp.tokens_per_chip.round(), 468.0);
//! assert_eq!(fsdp.verdict, Verdict::CommunicationBound); // needs 850
//! let mixed = evaluate(&job, &pod, &Parallelism::fsdp_tensor(2240, 4, 2, 1)).unwrap();
//! assert_eq!(mixed.verdict, Verdict::ComputeBound);
//! ```
//!
//! ## Files
//!
//! | file | what |
//! |---|---|
//! | `error.rs` | [`TrainingError`]: why a plan cannot be analysed |
//! | `thresholds.rs` | the strategies' closed forms: ICI and DCN intensities, the critical tokens per chip of each strategy, `X_opt`, the pipeline bubble |
//! | `run.rs` | whole runs: training time, [`RunEstimate`], the book's [`RunAssumptions`] |
//! | `zero.rs` | ZeRO stages 0–3: memory per chip and gradient traffic |
//! | `cluster.rs` | [`Cluster`]: chips in ICI slices, slices over the data-centre network |
//! | `strategy.rs` | [`Parallelism`] (degrees and mesh axes; the splits of a mesh between FSDP and tensor parallelism) and the book's names for them, [`Scheme`] |
//! | `fsdp.rs` | the FSDP communication time ([`fsdp_comms`]) over the FSDP rings of a chip's network, the one formula behind every FSDP collective |
//! | `job.rs` | [`Job`]: the model, the batch and how its state is stored |
//! | `layer_cost.rs` | one layer's FLOPs and collectives per pass ([`LayerCost`]), the batch where a strategy turns compute-bound, batch sweeps |
//! | `evaluate.rs` | [`evaluate`] a plan (step time, MFU, memory), the candidate plans and [`best_plan`] |
//! | `layout.rs` | how each strategy cuts the arrays of one MLP block, and which collective runs where in the forward and backward passes |
//! | `pipeline.rs` | pipeline schedules (GPipe, 1F1B, interleaved, bidirectional, zero-bubble, DualPipe in `pipeline/dualpipe.rs`) as timelines |

pub mod layout;
pub mod pipeline;

mod cluster;
mod error;
mod evaluate;
mod fsdp;
mod job;
mod layer_cost;
mod run;
mod strategy;
mod thresholds;
mod zero;

pub use cluster::*;
pub use error::*;
pub use evaluate::*;
pub use fsdp::*;
pub use job::*;
pub use layer_cost::*;
pub use run::*;
pub use strategy::*;
pub use thresholds::*;
pub use zero::*;
