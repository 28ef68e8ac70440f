//! Jobs: what is being trained (the model, the batch, the formats).

use super::TrainingError;
use crate::dtype::Dtype;
use crate::model::accounting::{self, Optimizer, Remat};
use crate::model::config::{positive, ModelConfig, ModelError};
use crate::units::Flops;

/// What is being trained: a model, a batch, and how its state is stored.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Job {
    /// The model.
    pub model: ModelConfig,
    /// Global batch in tokens, `B`.
    pub batch_tokens: f64,
    /// Tokens per sequence.
    pub seq_len: f64,
    /// Format the matmuls run in (bf16 in the book).
    pub compute: Dtype,
    /// How parameters and optimizer state are stored.
    pub optimizer: Optimizer,
    /// What activations are saved.
    pub remat: Remat,
    /// Count the MLP gate matrix in the per-layer roofline (the book leaves it out).
    pub count_gate: bool,
    /// Allow more data shards than sequences by sharding sequences too.
    pub sequence_sharding: bool,
}

impl Job {
    /// A bf16 job with the book's Adam (10 bytes/parameter), four `[B·T, D]` checkpoints
    /// per layer (Part 6), the gate left out of the roofline, sequence sharding allowed.
    pub fn new(model: ModelConfig, batch_tokens: f64, seq_len: f64) -> Result<Job, TrainingError> {
        let job = Job {
            model,
            batch_tokens,
            seq_len,
            compute: Dtype::Bf16,
            optimizer: Optimizer::ADAM,
            remat: Remat::PerLayer(4),
            count_gate: false,
            sequence_sharding: true,
        };
        job.validate()?;
        Ok(job)
    }

    /// The same job with another global batch, checked.
    pub fn with_batch(mut self, batch_tokens: f64) -> Result<Job, TrainingError> {
        self.batch_tokens = batch_tokens;
        self.validate()?;
        Ok(self)
    }

    /// Checks the model, the batch and the sequence length.
    pub fn validate(&self) -> Result<(), TrainingError> {
        self.model.validate()?;
        let b = positive("batch (tokens)", self.batch_tokens)?;
        let s = positive("sequence length", self.seq_len)?;
        if b > 1e15 {
            return Err(ModelError::TooLarge {
                field: "batch (tokens)",
                value: b,
                max: 1e15,
            }
            .into());
        }
        if s > b {
            return Err(TrainingError::SequenceLongerThanBatch { seq: s, batch: b });
        }
        Ok(())
    }

    /// Sequences per batch.
    pub fn sequences(&self) -> f64 {
        self.batch_tokens / self.seq_len
    }

    /// Model FLOPs per step: `6 · active params · B`.
    pub fn step_flops(&self) -> Flops {
        accounting::training_flops_rule(
            accounting::active_params(&self.model).total(),
            self.batch_tokens,
        )
    }

    /// The MLP widths the per-layer roofline uses: (computed per token, stored).
    pub(super) fn widths(&self) -> (f64, f64) {
        match self.model.moe {
            None => (self.model.d_ff as f64, self.model.d_ff as f64),
            Some(m) => (
                (m.active + m.shared) as f64 * m.expert_ff as f64,
                (m.experts + m.shared) as f64 * m.expert_ff as f64,
            ),
        }
    }

    /// MLP matrices in the per-layer roofline.
    pub(super) fn matrices(&self) -> f64 {
        if self.count_gate && self.model.gated {
            3.0
        } else {
            2.0
        }
    }
}
