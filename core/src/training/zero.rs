//! ZeRO stages: how much state data-parallel chips split, and what that costs in traffic.

use crate::model::accounting::{self, Optimizer, TrainingMemory};
use crate::model::config::positive;
use crate::units::Bytes;

/// How much of the training state data-parallel chips split among themselves
/// (ZeRO, Rajbhandari et al.; the book's FSDP is stage 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ZeroStage {
    /// Every chip holds everything (plain data parallelism).
    None,
    /// Optimizer state (moments and master copy) split.
    One,
    /// Optimizer state and gradients split.
    Two,
    /// Optimizer state, gradients and parameters split (FSDP).
    Three,
}

impl ZeroStage {
    /// Every stage.
    pub const ALL: [ZeroStage; 4] = [
        ZeroStage::None,
        ZeroStage::One,
        ZeroStage::Two,
        ZeroStage::Three,
    ];

    /// The stage's number, as used in URLs and directives (`0` is plain data
    /// parallelism).
    pub fn number(self) -> u8 {
        match self {
            ZeroStage::None => 0,
            ZeroStage::One => 1,
            ZeroStage::Two => 2,
            ZeroStage::Three => 3,
        }
    }

    /// A reader's label: `ZeRO-2`, or `none (data parallel)`.
    pub fn label(self) -> &'static str {
        match self {
            ZeroStage::None => "none (data parallel)",
            ZeroStage::One => "ZeRO-1",
            ZeroStage::Two => "ZeRO-2",
            ZeroStage::Three => "ZeRO-3 (FSDP)",
        }
    }

    /// Parses [`ZeroStage::number`].
    pub fn parse(text: &str) -> Result<ZeroStage, String> {
        ZeroStage::ALL
            .into_iter()
            .find(|s| s.number().to_string() == text.trim())
            .ok_or_else(|| format!("stage: {text:?} is not one of 0, 1, 2, 3"))
    }
}

/// Memory per chip and gradient traffic of one ZeRO stage.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ZeroCost {
    /// The stage.
    pub stage: ZeroStage,
    /// State per chip (no activations).
    pub memory: TrainingMemory,
    /// The book's `V` summed over the step's collectives: an AllReduce of the
    /// gradients (twice their size) for stages 0–2 (stages 1–2 do it as a
    /// ReduceScatter plus an AllGather of the updated parameters), and for stage 3
    /// two AllGathers of the parameters and a ReduceScatter of the gradients.
    pub comms_bytes: Bytes,
}

/// Every ZeRO stage for `params` parameters stored per `optimizer` over `shards`
/// data-parallel chips (gradients are counted in the parameters' format when the
/// optimizer does not store them).
pub fn zero_stages(
    params: f64,
    optimizer: Optimizer,
    shards: f64,
) -> Result<Vec<ZeroCost>, String> {
    positive("params", params).map_err(|e| format!("params: {e}"))?;
    positive("shards", shards).map_err(|e| format!("shards: {e}"))?;
    let grads = optimizer.grads.unwrap_or(optimizer.params);
    let full = TrainingMemory {
        grads: grads.size_of(params),
        ..accounting::state_memory(params, optimizer, Bytes(0.0))
    };
    let gradient_bytes = grads.size_of(params);
    let param_bytes = optimizer.params.size_of(params);
    Ok(ZeroStage::ALL
        .into_iter()
        .map(|stage| {
            let split = |on: bool, b: Bytes| if on { b / shards } else { b };
            let memory = TrainingMemory {
                optimizer: split(stage != ZeroStage::None, full.optimizer),
                grads: split(
                    matches!(stage, ZeroStage::Two | ZeroStage::Three),
                    full.grads,
                ),
                params: split(stage == ZeroStage::Three, full.params),
                activations: Bytes(0.0),
            };
            let comms_bytes = match stage {
                ZeroStage::Three => param_bytes * 2.0 + gradient_bytes,
                _ => gradient_bytes * 2.0,
            };
            ZeroCost {
                stage,
                memory,
                comms_bytes,
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_stages_split_more_state_for_the_same_or_half_more_traffic() {
        let rows = zero_stages(70e9, Optimizer::ADAM_MIXED, 64.0).unwrap();
        let per_param: Vec<f64> = rows.iter().map(|r| r.memory.state().0 / 70e9).collect();
        // 16 bytes per parameter; ZeRO-1 splits 12 of them, ZeRO-2 14, ZeRO-3 all.
        assert_eq!(per_param[0], 16.0);
        assert!((per_param[1] - (4.0 + 12.0 / 64.0)).abs() < 1e-12);
        assert!((per_param[2] - (2.0 + 14.0 / 64.0)).abs() < 1e-12);
        assert!((per_param[3] - 16.0 / 64.0).abs() < 1e-12);
        assert_eq!(rows[0].comms_bytes, rows[2].comms_bytes);
        assert_eq!(rows[3].comms_bytes.0, 1.5 * rows[0].comms_bytes.0);
        assert!(zero_stages(70e9, Optimizer::ADAM, 0.0)
            .unwrap_err()
            .starts_with("shards:"));
    }

    #[test]
    fn zero_stages_parse_their_numbers() {
        for s in ZeroStage::ALL {
            assert_eq!(ZeroStage::parse(&s.number().to_string()), Ok(s));
        }
        assert!(ZeroStage::parse("4").unwrap_err().starts_with("stage:"));
        assert_eq!(ZeroStage::Three.label(), "ZeRO-3 (FSDP)");
    }
}
