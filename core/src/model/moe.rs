//! Mixture-of-Experts layers (Part 4, "Sparsity and Mixture-of-Experts"): a layer
//! holds `E` expert MLPs but each token visits only `k` of them, so the model stores
//! far more parameters than a token uses. That is cheap in FLOPs and expensive in
//! bytes: every expert's weights are loaded for the few tokens routed to it, so the
//! expert matmuls only become compute-bound once each expert sees enough tokens,
//! about `B > ridge · bytes · E / (2k)` tokens per batch. Experts are usually spread
//! over chips (expert parallelism), which divides their memory but makes every
//! token travel to its experts and back with two AllToAlls per layer.
//!
//! ```
//! use ridgeline_core::hardware::chip;
//! use ridgeline_core::model::config::model;
//! use ridgeline_core::model::moe::{analyse, MoeParams};
//!
//! let p = MoeParams::preset("deepseek-v3", chip("v5e").unwrap()).unwrap();
//! let a = analyse(&p).unwrap();
//! // About 671B stored and 37B used: every token touches a small share.
//! assert!(a.total_params > 15.0 * a.active_params);
//! assert!(a.total_params < 20.0 * a.active_params);
//! ```

use crate::comms::collectives::{all_to_all, Network, RingAxis};
use crate::dtype::Dtype;
use crate::hardware::Chip;
use crate::model::accounting;
use crate::model::config::{self, ModelConfig};
use crate::roofline::Verdict;
use crate::units::{Bytes, Flops, Seconds};

/// What the `moe` widget lets a reader set.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MoeParams {
    /// The model; its `moe` field may be replaced by the reader's `E`, `k` and expert size.
    pub model: ModelConfig,
    /// Tokens in one batch, `B`.
    pub tokens: f64,
    /// The chip.
    pub chip: &'static Chip,
    /// Format of the weights (FLOPs run in bf16).
    pub weight: Dtype,
    /// Chips the experts of a layer are spread over (expert parallelism).
    pub expert_parallel: u32,
}

/// The registry's Mixture-of-Experts presets.
pub fn presets() -> impl Iterator<Item = &'static config::ModelPreset> {
    config::MODELS.iter().filter(|m| m.config.moe.is_some())
}

impl MoeParams {
    /// A preset with a batch of 8192 tokens, bf16 weights and the experts spread over
    /// as many chips as there are experts (capped at 256).
    pub fn preset(id: &str, chip: &'static Chip) -> Result<MoeParams, String> {
        let m = config::model(id).ok_or_else(|| format!("model: no preset is called {id:?}"))?;
        MoeParams::of(m, chip)
    }

    /// [`MoeParams::preset`] for any model of the registry's type (a reader's
    /// own Mixture of Experts, say).
    pub fn of(m: &config::ModelPreset, chip: &'static Chip) -> Result<MoeParams, String> {
        let e = m
            .config
            .moe
            .ok_or_else(|| format!("model: {} is not a Mixture-of-Experts model", m.name))?;
        Ok(MoeParams {
            model: m.config,
            tokens: 8192.0,
            chip,
            weight: Dtype::Bf16,
            expert_parallel: e.experts.min(256) as u32,
        })
    }

    /// Replaces the expert count, active experts and expert width.
    pub fn with_experts(mut self, experts: u64, active: u64, expert_ff: u64) -> MoeParams {
        if let Some(m) = self.model.moe.as_mut() {
            m.experts = experts;
            m.active = active;
            m.expert_ff = expert_ff;
        }
        self
    }

    /// Checks every field; the message names the bad one.
    pub fn validate(&self) -> Result<(), String> {
        let Some(m) = self.model.moe else {
            return Err("model: not a Mixture-of-Experts model".into());
        };
        if m.active == 0 || m.active > m.experts {
            return Err(format!(
                "k: active experts must be between 1 and E = {}",
                m.experts
            ));
        }
        self.model.validate().map_err(|e| format!("model: {e}"))?;
        if !(self.tokens.is_finite() && self.tokens >= 1.0 && self.tokens <= 1e12) {
            return Err("tokens: a batch of 1 to 1e12 tokens".into());
        }
        if self.expert_parallel == 0 || !m.experts.is_multiple_of(self.expert_parallel as u64) {
            return Err(format!(
                "ep: the expert-parallel degree must divide E = {}",
                m.experts
            ));
        }
        if self.chip.peak(Dtype::Bf16).is_none() {
            return Err(format!(
                "chip: {} has no bf16 peak in the registry",
                self.chip.name
            ));
        }
        Ok(())
    }
}

/// Everything the `moe` widget shows.
#[derive(Debug, Clone, PartialEq)]
pub struct MoeAnalysis {
    /// Parameters stored.
    pub total_params: f64,
    /// Parameters one token uses.
    pub active_params: f64,
    /// Forward FLOPs per token, `2 · active params`.
    pub forward_flops_per_token: Flops,
    /// Training FLOPs per token, `6 · active params`.
    pub training_flops_per_token: Flops,
    /// Tokens each expert receives on average, `B · k / E`.
    pub tokens_per_expert: f64,
    /// The batch above which the expert matmuls are compute-bound.
    pub critical_batch: f64,
    /// Compute- or memory-bound at this batch.
    pub verdict: Verdict,
    /// Weight bytes per chip: the non-expert weights whole, the experts divided by
    /// the expert-parallel degree.
    pub weight_bytes_per_chip: Bytes,
    /// Whether those weights fit in HBM.
    pub fits: bool,
    /// Bytes one AllToAll moves per MoE layer (tokens × k × D activations).
    pub all_to_all_bytes: Bytes,
    /// Time of the dispatch plus the combine AllToAll per MoE layer.
    pub all_to_all_time: Seconds,
    /// Time of one MoE layer's expert FLOPs on the expert-parallel chips.
    pub expert_time: Seconds,
}

/// Analyses `p`.
pub fn analyse(p: &MoeParams) -> Result<MoeAnalysis, String> {
    p.validate()?;
    let cfg = &p.model;
    let m = cfg.moe.ok_or("model: not a Mixture-of-Experts model")?;
    let total = accounting::params(cfg);
    let active = accounting::active_params(cfg);
    let peak = p
        .chip
        .peak(Dtype::Bf16)
        .ok_or("chip: no bf16 peak in the registry")?;
    let ridge = peak / p.chip.hbm_bw();
    let critical =
        accounting::moe_critical_batch(m.experts as f64, m.active as f64, ridge, p.weight);
    let (e, k) = (m.experts as f64, m.active as f64);
    let expert = accounting::expert_params(cfg);
    let routed = cfg.moe_layers() as f64 * e * expert;
    let ep = p.expert_parallel as f64;
    let weight_bytes = p.weight.size_of(total.total() - routed + routed / ep);
    let act = Dtype::Bf16.size_of(p.tokens * k * cfg.d_model as f64);
    let (a2a_time, a2a_bytes) = if p.expert_parallel > 1 {
        let net = Network::ici(p.chip).map_err(|e| format!("chip: {e}"))?;
        let c = all_to_all(act, &[RingAxis::ring(p.expert_parallel)], &net)
            .map_err(|e| format!("ep: {e}"))?;
        (c.time * 2.0, act)
    } else {
        (Seconds(0.0), Bytes(0.0))
    };
    let expert_flops = Flops(2.0 * p.tokens * k * expert);
    Ok(MoeAnalysis {
        total_params: total.total(),
        active_params: active.total(),
        forward_flops_per_token: Flops(2.0 * active.total()),
        training_flops_per_token: accounting::training_flops_per_token(cfg),
        tokens_per_expert: p.tokens * k / e,
        critical_batch: critical,
        verdict: if p.tokens > critical {
            Verdict::ComputeBound
        } else {
            Verdict::MemoryBound
        },
        fits: weight_bytes <= p.chip.hbm_capacity.value,
        weight_bytes_per_chip: weight_bytes,
        all_to_all_bytes: a2a_bytes,
        all_to_all_time: a2a_time,
        expert_time: expert_flops / (peak * ep),
    })
}

/// One device's part of an expert-parallel MoE layer's ragged exchange
/// (Part 10, Problem 2's second pass), for top-1 routing: its tokens sorted
/// by expert, the runs it sends and receives with `ragged_all_to_all`, and
/// the groups `ragged_dot` multiplies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RaggedDevice {
    /// The expert of each of its tokens, in their original order.
    pub experts: Vec<usize>,
    /// Its token indices sorted by expert (stable), which also sorts them by
    /// the device holding the expert.
    pub order: Vec<usize>,
    /// Tokens it sends to each device: the counts exchanged with `all_to_all`.
    pub send_sizes: Vec<usize>,
    /// Where each device's run starts in its sorted tokens.
    pub input_offsets: Vec<usize>,
    /// Where its run lands in each receiving device's buffer: the tokens
    /// lower-numbered devices send there first.
    pub output_offsets: Vec<usize>,
    /// Tokens it receives from each device (its column of the counts).
    pub recv_sizes: Vec<usize>,
    /// What arrives, in buffer order: (source device, that device's token).
    pub received: Vec<(usize, usize)>,
    /// The arrivals regrouped by its local expert (stable), as `ragged_dot`
    /// takes them.
    pub grouped: Vec<(usize, usize)>,
    /// Tokens for each of its experts: `ragged_dot`'s group sizes.
    pub group_sizes: Vec<usize>,
}

/// The ragged exchange of a top-1 MoE layer on `routing.len()` devices,
/// `routing[d][i]` naming the expert of device `d`'s token `i`, with
/// `experts` experts split evenly, device `d` holding experts
/// `d·E/X … (d+1)·E/X − 1`. The return trip is the same exchange with send
/// and receive sizes swapped, then each device undoes its sort.
pub fn ragged_plan(routing: &[Vec<usize>], experts: usize) -> Result<Vec<RaggedDevice>, String> {
    let x = routing.len();
    if x == 0 || experts == 0 || !experts.is_multiple_of(x) {
        return Err(format!(
            "experts: {experts} experts do not split evenly over {x} devices"
        ));
    }
    let per = experts / x;
    if let Some((d, &e)) = routing
        .iter()
        .enumerate()
        .find_map(|(d, r)| r.iter().find(|&&e| e >= experts).map(|e| (d, e)))
    {
        return Err(format!(
            "routing: device {d} sends a token to expert {e}, but there are {experts}"
        ));
    }
    let prefix = |sizes: &[usize]| -> Vec<usize> {
        sizes
            .iter()
            .scan(0, |at, &n| {
                let start = *at;
                *at += n;
                Some(start)
            })
            .collect()
    };
    // counts[s][r]: tokens device s sends to device r.
    let mut counts = vec![vec![0; x]; x];
    let mut orders = Vec::with_capacity(x);
    for (s, r) in routing.iter().enumerate() {
        let mut order: Vec<usize> = (0..r.len()).collect();
        order.sort_by_key(|&i| r[i]);
        for &e in r {
            counts[s][e / per] += 1;
        }
        orders.push(order);
    }
    let mut devices: Vec<RaggedDevice> = Vec::with_capacity(x);
    for (d, (r, order)) in routing.iter().zip(orders).enumerate() {
        let recv_sizes: Vec<usize> = counts.iter().map(|row| row[d]).collect();
        let output_offsets = (0..x)
            .map(|to| counts[..d].iter().map(|row| row[to]).sum())
            .collect();
        devices.push(RaggedDevice {
            experts: r.clone(),
            send_sizes: counts[d].clone(),
            input_offsets: prefix(&counts[d]),
            output_offsets,
            recv_sizes,
            order,
            received: Vec::new(),
            grouped: Vec::new(),
            group_sizes: vec![0; per],
        });
    }
    // Each source's sorted run for device `d`, sources in order.
    for d in 0..x {
        let mut received = Vec::new();
        for (s, src) in devices.iter().enumerate() {
            let start = src.input_offsets[d];
            let run = &src.order[start..start + src.send_sizes[d]];
            received.extend(run.iter().map(|&i| (s, i)));
        }
        let expert = |&(s, i): &(usize, usize)| routing[s][i];
        let mut grouped = received.clone();
        grouped.sort_by_key(expert);
        let dev = &mut devices[d];
        for t in &grouped {
            dev.group_sizes[expert(t) - d * per] += 1;
        }
        dev.received = received;
        dev.grouped = grouped;
    }
    Ok(devices)
}

#[cfg(test)]
mod tests {
    #[test]
    fn ragged_plan_by_hand() {
        // Four devices, eight experts (two each), four tokens a device;
        // tokens are lettered a..p across the devices.
        let routing = vec![
            vec![5, 0, 3, 5],
            vec![1, 6, 0, 2],
            vec![7, 3, 4, 1],
            vec![2, 2, 6, 0],
        ];
        let p = super::ragged_plan(&routing, 8).unwrap();
        // d0 sorts a5 b0 c3 d5 into b0 c3 a5 d5.
        assert_eq!(p[0].order, vec![1, 2, 0, 3]);
        assert_eq!(p[3].order, vec![3, 0, 1, 2]);
        let sends: Vec<Vec<usize>> = p.iter().map(|d| d.send_sizes.clone()).collect();
        assert_eq!(
            sends,
            vec![
                vec![1, 1, 2, 0],
                vec![2, 1, 0, 1],
                vec![1, 1, 1, 1],
                vec![1, 2, 0, 1]
            ]
        );
        assert_eq!(p[1].input_offsets, vec![0, 2, 3, 3]);
        // d1 lands at 1 on d0 (after d0's one), 1 on d1, 2 on d2, 0 on d3.
        assert_eq!(p[1].output_offsets, vec![1, 1, 2, 0]);
        assert_eq!(p[3].output_offsets, vec![4, 3, 3, 2]);
        assert_eq!(p[0].recv_sizes, vec![1, 2, 1, 1]);
        assert_eq!(p[2].recv_sizes, vec![2, 0, 1, 0]);
        // d0 receives b0 | g0 e1 | l1 | p0, regrouped b0 g0 p0 | e1 l1.
        assert_eq!(p[0].received, vec![(0, 1), (1, 2), (1, 0), (2, 3), (3, 3)]);
        assert_eq!(p[0].grouped, vec![(0, 1), (1, 2), (3, 3), (1, 0), (2, 3)]);
        let groups: Vec<Vec<usize>> = p.iter().map(|d| d.group_sizes.clone()).collect();
        assert_eq!(groups, vec![vec![3, 2], vec![3, 2], vec![1, 2], vec![2, 1]]);
        // Every token arrives exactly once.
        assert_eq!(p.iter().map(|d| d.received.len()).sum::<usize>(), 16);
    }

    #[test]
    fn ragged_plan_refuses_what_cannot_be_split() {
        assert_eq!(
            super::ragged_plan(&[vec![0], vec![1], vec![2]], 4).unwrap_err(),
            "experts: 4 experts do not split evenly over 3 devices"
        );
        assert_eq!(
            super::ragged_plan(&[vec![0, 4], vec![1]], 4).unwrap_err(),
            "routing: device 0 sends a token to expert 4, but there are 4"
        );
        assert!(super::ragged_plan(&[], 4).is_err());
    }

    use super::*;
    use crate::hardware::{chip, Link};

    fn v5e() -> &'static Chip {
        chip("v5e").unwrap()
    }

    #[test]
    fn deepseek_stores_far_more_than_it_uses() {
        let a = analyse(&MoeParams::preset("deepseek-v3", v5e()).unwrap()).unwrap();
        assert!(
            (a.total_params / 671e9 - 1.0).abs() < 0.01,
            "{}",
            a.total_params
        );
        assert!(
            (a.active_params / 37e9 - 1.0).abs() < 0.03,
            "{}",
            a.active_params
        );
        assert_eq!(
            a.training_flops_per_token.0,
            3.0 * a.forward_flops_per_token.0
        );
    }

    #[test]
    fn the_critical_batch_is_ridge_times_e_over_k_in_bf16() {
        let p = MoeParams {
            tokens: 512.0,
            ..MoeParams::preset("mixtral-8x7b", v5e()).unwrap()
        };
        let a = analyse(&p).unwrap();
        let ridge = v5e().ridge(Dtype::Bf16, Link::Hbm).unwrap().0;
        assert!((a.critical_batch - ridge * 8.0 / 2.0).abs() < 1e-9);
        let int8 = analyse(&MoeParams {
            weight: Dtype::Int8,
            ..p
        })
        .unwrap();
        assert!((int8.critical_batch * 2.0 - a.critical_batch).abs() < 1e-9);
        let big = analyse(&MoeParams {
            tokens: a.critical_batch * 2.0,
            ..p
        })
        .unwrap();
        assert_eq!(a.verdict, Verdict::MemoryBound);
        assert_eq!(big.verdict, Verdict::ComputeBound);
    }

    #[test]
    fn expert_parallelism_divides_expert_memory_and_adds_all_to_alls() {
        let p = MoeParams::preset("gpt-oss-120b", v5e()).unwrap();
        let one = analyse(&MoeParams {
            expert_parallel: 1,
            ..p
        })
        .unwrap();
        let many = analyse(&p).unwrap();
        assert!(many.weight_bytes_per_chip < one.weight_bytes_per_chip * 0.1);
        assert_eq!(one.all_to_all_time.0, 0.0);
        assert!(many.all_to_all_time.0 > 0.0);
        assert_eq!(presets().count(), 3);
    }

    #[test]
    fn bad_fields_are_named() {
        let p = MoeParams::preset("mixtral-8x7b", v5e()).unwrap();
        assert!(analyse(&p.with_experts(8, 9, 14336))
            .unwrap_err()
            .starts_with("k:"));
        assert!(analyse(&MoeParams {
            expert_parallel: 3,
            ..p
        })
        .unwrap_err()
        .starts_with("ep:"));
        assert!(analyse(&MoeParams {
            tokens: f64::NAN,
            ..p
        })
        .unwrap_err()
        .starts_with("tokens:"));
        assert!(MoeParams::preset("llama3-8b", v5e())
            .unwrap_err()
            .starts_with("model:"));
    }

    proptest::proptest! {
        #[test]
        fn active_never_exceeds_total(e in 1u64..512, k in 1u64..64, f in 64u64..8192) {
            let p = MoeParams::preset("mixtral-8x7b", chip("v5e").unwrap()).unwrap();
            let k = k.min(e);
            let p = MoeParams { expert_parallel: 1, ..p.with_experts(e, k, f) };
            let a = analyse(&p).unwrap();
            proptest::prop_assert!(a.active_params <= a.total_params);
            proptest::prop_assert!((a.tokens_per_expert * e as f64 - p.tokens * k as f64).abs() < 1e-6 * p.tokens * k as f64);
        }
    }
}
