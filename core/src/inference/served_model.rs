//! The served model: its shape and parameter counts, and the decode workload it puts on a slice.

use super::{batch_ok, peak, seq_ok, InferenceError, Precision};
use crate::dtype::Dtype;
use crate::hardware::Chip;
use crate::model::accounting::{active_params, kv_bytes_per_token, moe_critical_batch, params};
use crate::model::config::{positive, try_model, ModelConfig};
use crate::units::{Bytes, Flops};

/// A model as the serving arithmetic sees it: its shape and its parameter counts.
///
/// The counts default to the exact ones of [`crate::model::accounting::params`]; the book
/// often rounds them to the model's name (13e9 for LLaMA-2 13B, 70e9 for LLaMA 3-70B),
/// which [`ServingModel::with_params`] reproduces.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ServingModel {
    /// The shape.
    pub config: ModelConfig,
    /// Parameters stored (all experts of an MoE).
    pub params: f64,
    /// Parameters each token uses (`k` experts of an MoE); sets the FLOPs.
    pub active_params: f64,
}

impl ServingModel {
    /// A checked model with its exact parameter counts.
    pub fn new(config: ModelConfig) -> Result<ServingModel, InferenceError> {
        config.validate()?;
        Ok(ServingModel {
            config,
            params: params(&config).total(),
            active_params: active_params(&config).total(),
        })
    }

    /// A registry preset by id (`llama3-70b`).
    pub fn preset(id: &str) -> Result<ServingModel, InferenceError> {
        ServingModel::new(try_model(id)?.config)
    }

    /// The same shape with `total` parameters stored (the active count scales with it).
    pub fn with_params(self, total: f64) -> Result<ServingModel, InferenceError> {
        let total = positive("parameter count", total)?;
        let ratio = total / self.params;
        Ok(ServingModel {
            params: total,
            active_params: self.active_params * ratio,
            ..self
        })
    }

    /// Bytes of the stored weights in `dtype`.
    pub fn param_bytes(&self, dtype: Dtype) -> Bytes {
        dtype.size_of(self.params)
    }

    /// KV-cache bytes per token in `dtype`.
    pub fn kv_per_token(&self, dtype: Dtype) -> Bytes {
        kv_bytes_per_token(&self.config, dtype)
    }

    /// KV-cache bytes of one sequence of `seq` tokens (checked against the context).
    pub fn kv_per_sequence(&self, seq: f64, dtype: Dtype) -> Result<Bytes, InferenceError> {
        Ok(self.kv_per_token(dtype) * seq_ok(&self.config, seq)?)
    }

    /// Forward-pass FLOPs for `tokens` tokens: `2 · active params · T` (Part 7 Q5).
    pub fn forward_flops(&self, tokens: f64) -> Result<Flops, InferenceError> {
        let t = positive("tokens", tokens)?;
        Ok(Flops(2.0 * self.active_params * t))
    }

    /// The decode workload of `batch` sequences at context `seq`.
    pub fn workload(
        &self,
        precision: Precision,
        batch: f64,
        seq: f64,
    ) -> Result<DecodeWorkload, InferenceError> {
        DecodeWorkload::new(
            batch,
            self.active_params,
            self.param_bytes(precision.weights),
            self.kv_per_sequence(seq, precision.kv)?,
        )
    }

    /// The token batch above which the weight matmuls are compute-bound; for an
    /// MoE, `E/k` times the dense value (Part 7 Q5: `240·E/k`).
    pub fn critical_batch(
        &self,
        chip: &'static Chip,
        precision: Precision,
    ) -> Result<f64, InferenceError> {
        let ridge = peak(chip, precision.compute)? / chip.hbm_bw();
        let (e, k) = self
            .config
            .moe
            .map(|m| (m.experts as f64, m.active as f64))
            .unwrap_or((1.0, 1.0));
        Ok(moe_critical_batch(e, k, ridge, precision.weights))
    }
}

/// What one decode step moves and computes, in raw numbers (for models given
/// only as "30B parameters, 100 kB of KV per token").
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DecodeWorkload {
    /// Sequences decoded together, `B`.
    pub batch: f64,
    /// Parameters each token multiplies by (sets FLOPs: `2·B·P`).
    pub param_count: f64,
    /// Bytes of weights loaded each step.
    pub param_bytes: Bytes,
    /// KV-cache bytes of one sequence at the current context.
    pub kv_per_seq: Bytes,
}

impl DecodeWorkload {
    /// A checked workload: every quantity finite and positive.
    pub fn new(
        batch: f64,
        param_count: f64,
        param_bytes: Bytes,
        kv_per_seq: Bytes,
    ) -> Result<DecodeWorkload, InferenceError> {
        Ok(DecodeWorkload {
            batch: batch_ok(batch)?,
            param_count: positive("parameter count", param_count)?,
            param_bytes: Bytes(positive("parameter bytes", param_bytes.0)?),
            kv_per_seq: Bytes(positive("KV bytes per sequence", kv_per_seq.0)?),
        })
    }

    /// KV bytes of the whole batch.
    pub fn kv_bytes(&self) -> Bytes {
        self.kv_per_seq * self.batch
    }

    /// Weights plus the batch's KV caches: the HBM a step reads.
    pub fn memory(&self) -> Bytes {
        self.param_bytes + self.kv_bytes()
    }
}
