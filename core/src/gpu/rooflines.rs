//! Rooflines for LLM training on a GPU cluster (Part 12, "Rooflines for LLM
//! Scaling on GPUs"): for a chosen GPU, model, batch and split of the GPUs
//! into data, tensor, expert and pipeline parallelism, whether each axis stays
//! compute-bound, what the pipeline's bubble and inter-stage transfers cost,
//! the book's worked examples, and its TL;DR as a table of rules evaluated on
//! the reader's settings.
//!
//! The per-axis conditions are the book's, for the MLP block
//! `x[B, D] · W_in[D, F] · W_out[F, D]`:
//!
//! * data parallelism: `B / N > (E/k) · α · (X−1)/X · D_node / max(D_node, M)`, where
//!   `α = C / W_collective`, `X` the data-parallel degree, `N` all GPUs and `M`
//!   the model-parallel degree (tensor × expert × pipeline): a model-parallel
//!   axis that spans nodes divides the outer reduction's cost by the nodes it spans;
//! * tensor parallelism: `Y < F · W / C` inside a node, `Y < D_node + F / α` over two;
//! * expert parallelism: `F > α (Z − D_node) / k` when `D_node · k ≥ Z`, else
//!   `F > D_node · α (Z − D_node) / Z`;
//! * pipeline parallelism: `2BD / (W · N_MB)` per hop, vanishing per layer.
//!
//! ```
//! use ridgeline_core::gpu::rooflines::{examples, megatron};
//!
//! // LLaMA-3 70B on 4096 H100s with 8-way TP and 8-way PP: the model-parallel
//! // axis spans 8 nodes, so DP needs only 990e12 / 3.2e12 ≈ 309 tokens per GPU.
//! let m = megatron().unwrap();
//! let largest = m.iter().find(|c| c.row.model == "314B").unwrap();
//! assert_eq!(largest.tokens_per_gpu, 2048.0);
//! assert_eq!(largest.threshold.round(), 309.0);
//! assert!(examples().unwrap().iter().all(|e| e.report.dp.compute_bound));
//! ```

use super::parallelism::Mlp;
use super::specs::{MegatronRow, MEGATRON_ROWS, MEGATRON_SEQ, RECIPES};
use super::{GpuSystem, Scope};
use crate::dtype::Dtype;
use crate::model::config::{model, ModelPreset};
use crate::roofline::Verdict;
use crate::units::{BytesPerSec, Seconds};

/// The largest degree of any axis.
pub const MAX_DEGREE: u32 = 1 << 16;

/// What the rooflines view is asked for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RooflineParams {
    /// The GPU system.
    pub system: GpuSystem,
    /// The model (its `D`, `F` — the expert width for an MoE — layers, `E` and `k`).
    pub model: &'static ModelPreset,
    /// Global batch in tokens.
    pub batch_tokens: f64,
    /// Data-parallel degree `X`.
    pub dp: u32,
    /// Tensor-parallel degree `Y`.
    pub tp: u32,
    /// Expert-parallel degree `Z`.
    pub ep: u32,
    /// Pipeline stages.
    pub pp: u32,
    /// Microbatches per step.
    pub microbatches: u32,
}

/// The bf16 GPU system and the model a Part 12 view is asked for; the message names the bad one.
pub fn system_and_model(
    gpu: &str,
    model_id: &str,
) -> Result<(GpuSystem, &'static ModelPreset), String> {
    let system = GpuSystem::from_id(gpu, Dtype::Bf16).map_err(|e| format!("gpu: {e}"))?;
    let model = model(model_id)
        .ok_or_else(|| format!("model: no model called \u{201c}{}\u{201d}", model_id.trim()))?;
    Ok((system, model))
}

/// Checks a global batch: 1 to `1e12` tokens.
pub fn check_batch(tokens: f64) -> Result<(), String> {
    if tokens.is_finite() && (1.0..=1e12).contains(&tokens) {
        Ok(())
    } else {
        Err(format!("batch: must be 1 to 1e12 tokens (got {tokens})"))
    }
}

impl RooflineParams {
    /// Builds and checks parameters; the message names the bad field.
    #[allow(clippy::too_many_arguments)]
    pub fn parse(
        gpu: &str,
        model_id: &str,
        batch_tokens: f64,
        dp: u32,
        tp: u32,
        ep: u32,
        pp: u32,
        microbatches: u32,
    ) -> Result<RooflineParams, String> {
        let (system, model) = system_and_model(gpu, model_id)?;
        let p = RooflineParams {
            system,
            model,
            batch_tokens,
            dp,
            tp,
            ep,
            pp,
            microbatches,
        };
        p.validate()?;
        Ok(p)
    }

    /// Checks every field.
    pub fn validate(&self) -> Result<(), String> {
        check_batch(self.batch_tokens)?;
        for (name, v) in [
            ("dp", self.dp),
            ("tp", self.tp),
            ("ep", self.ep),
            ("pp", self.pp),
            ("microbatches", self.microbatches),
        ] {
            if v == 0 || v > MAX_DEGREE {
                return Err(format!("{name}: must be 1 to {MAX_DEGREE} (got {v})"));
            }
        }
        let experts = self.model.config.moe.map_or(1, |m| m.experts);
        if u64::from(self.ep) > experts {
            return Err(format!(
                "ep: {} has only {} to shard ({}-way asked)",
                self.model.name,
                crate::format::count(experts, "expert", "experts"),
                self.ep
            ));
        }
        if u64::from(self.pp) > self.model.config.layers {
            return Err(format!(
                "pp: more stages ({}) than layers ({})",
                self.pp, self.model.config.layers
            ));
        }
        Ok(())
    }

    /// All GPUs: `dp · tp · ep · pp`.
    pub fn gpus(&self) -> u64 {
        u64::from(self.dp)
            .saturating_mul(u64::from(self.tp))
            .saturating_mul(u64::from(self.ep))
            .saturating_mul(u64::from(self.pp))
    }

    /// The model-parallel degree `tp · ep · pp`.
    pub fn model_parallel(&self) -> u64 {
        u64::from(self.tp)
            .saturating_mul(u64::from(self.ep))
            .saturating_mul(u64::from(self.pp))
    }

    /// The MLP the book's rooflines use: `D`, the (expert) `F`, `E` and `k`.
    pub fn mlp(&self) -> Mlp {
        let c = &self.model.config;
        match c.moe {
            Some(m) => Mlp {
                tokens: self.batch_tokens,
                d: c.d_model as f64,
                f: m.expert_ff as f64,
                experts: u32::try_from(m.experts).unwrap_or(u32::MAX),
                active: u32::try_from(m.active).unwrap_or(u32::MAX),
            },
            None => Mlp::dense(self.batch_tokens, c.d_model as f64, c.d_ff as f64),
        }
    }
}

/// One axis's check.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AxisCheck {
    /// The quantity compared (tokens per GPU, ways, `F`).
    pub value: f64,
    /// The limit it must stay above (DP, EP) or below (TP).
    pub limit: f64,
    /// Whether the axis stays compute-bound.
    pub compute_bound: bool,
    /// Which bandwidth the axis communicates over.
    pub scope: Scope,
}

/// Pipeline costs.
#[derive(Debug, Clone, PartialEq)]
pub struct PipelineCheck {
    /// Idle fraction of a GPipe schedule with backward = 2 × forward: `(S−1)/(M+S−1)`.
    pub bubble: f64,
    /// One hop of one microbatch's activations: `2BD / (W · N_MB)`.
    pub per_hop: Seconds,
    /// All hops of a step: `per hop · (N_MB + S − 2)`.
    pub total: Seconds,
    /// The book's per-layer estimate `1.5 · 2BD / (W · N_layers)`.
    pub per_layer: Seconds,
    /// A step's MLP math on each GPU (forward and backward, every layer), for comparison.
    pub step_math: Seconds,
}

/// Everything the rooflines view shows.
#[derive(Debug, Clone, PartialEq)]
pub struct RooflineReport {
    /// GPUs used.
    pub gpus: u64,
    /// Nodes used.
    pub nodes: u64,
    /// Data parallelism.
    pub dp: AxisCheck,
    /// Tensor parallelism.
    pub tp: AxisCheck,
    /// Expert parallelism (`value` is `F`, `limit` the `F` needed).
    pub ep: AxisCheck,
    /// Pipeline parallelism.
    pub pp: PipelineCheck,
    /// The TL;DR rules evaluated on these settings.
    pub rules: Vec<Rule>,
}

impl RooflineReport {
    /// Whether every axis stays compute-bound.
    pub fn compute_bound(&self) -> bool {
        self.dp.compute_bound && self.tp.compute_bound && self.ep.compute_bound
    }
}

/// One line of the TL;DR decision table.
#[derive(Debug, Clone, PartialEq)]
pub struct Rule {
    /// The rule as the book states it, in our words.
    pub rule: &'static str,
    /// Its number on these settings.
    pub value: String,
    /// Whether the settings satisfy it.
    pub holds: bool,
    /// What to do about it.
    pub advice: &'static str,
}

fn scope_of(gpus: u64, per_node: u32) -> Scope {
    if gpus <= u64::from(per_node) {
        Scope::Node
    } else {
        Scope::Network
    }
}

/// The per-GPU token batch DP needs with `x` data-parallel replicas of an
/// `m`-way model-parallel shard on `sys` (the MoE factor included).
pub fn dp_limit(sys: &GpuSystem, mlp: &Mlp, x: u32, m: u64) -> Result<(f64, Scope), String> {
    let e = |e: super::GpuError| e.to_string();
    let n = u64::from(x) * m;
    let scope = scope_of(n, sys.gpus_per_node);
    let moe = super::parallelism::moe_factor(mlp.experts, mlp.active).map_err(e)?;
    let small = super::parallelism::small_axis_factor(x).map_err(e)?;
    let d_node = sys.gpus_per_node;
    let (alpha, spread) = match scope {
        // Inside one node each GPU reduces its own 1/M of the weights over NVLink.
        Scope::Node => (sys.alpha(Scope::Node).map_err(e)?.0, 1.0 / m as f64),
        Scope::Network => {
            let m32 = u32::try_from(m).unwrap_or(u32::MAX);
            (
                sys.alpha(Scope::Network).map_err(e)?.0,
                super::network::outer_reduction_factor(m32, d_node).map_err(e)?,
            )
        }
    };
    Ok((alpha * moe * small * spread, scope))
}

/// Evaluates every axis, the pipeline and the TL;DR rules.
pub fn rooflines(p: &RooflineParams) -> Result<RooflineReport, String> {
    p.validate()?;
    let e = |e: super::GpuError| e.to_string();
    let sys = &p.system;
    let mlp = p.mlp();
    let gpus = p.gpus();
    let per_node = u64::from(sys.gpus_per_node);
    let nodes = gpus.div_ceil(per_node);
    let m = p.model_parallel();

    let (dp_need, dp_scope) = dp_limit(sys, &mlp, p.dp, m)?;
    let per_gpu = p.batch_tokens / gpus as f64;
    let dp = AxisCheck {
        value: per_gpu,
        limit: dp_need,
        compute_bound: p.dp == 1 || per_gpu > dp_need,
        scope: dp_scope,
    };

    let tp_scope = scope_of(u64::from(p.tp), sys.gpus_per_node);
    let tp_limit = match tp_scope {
        Scope::Node => sys.tp_max_ways(Scope::Node, mlp.f).map_err(e)?,
        Scope::Network => sys.tp_max_ways_two_nodes(mlp.f).map_err(e)?,
    };
    let tp = AxisCheck {
        value: f64::from(p.tp),
        limit: tp_limit,
        compute_bound: p.tp == 1 || f64::from(p.tp) < tp_limit,
        scope: tp_scope,
    };

    let ep_scope = scope_of(u64::from(p.ep), sys.gpus_per_node);
    let (z, dn, k) = (f64::from(p.ep), per_node as f64, f64::from(mlp.active));
    let alpha_net = sys
        .alpha(Scope::Network)
        .map(|a| a.0)
        .unwrap_or(f64::INFINITY);
    let f_need = if ep_scope == Scope::Node {
        0.0
    } else if dn * k >= z {
        alpha_net * (z - dn) / k
    } else {
        dn * alpha_net * (z - dn) / z
    };
    let ep = AxisCheck {
        value: mlp.f,
        limit: f_need,
        compute_bound: ep_scope == Scope::Node || mlp.f > f_need,
        scope: ep_scope,
    };

    let w_pp: BytesPerSec = if nodes > 1 {
        sys.w_collective(Scope::Network).map_err(e)?
    } else {
        sys.w_gpu
    };
    let d = mlp.d;
    let layers = u32::try_from(p.model.config.layers).unwrap_or(u32::MAX);
    // Each data-parallel replica pipelines its own share of the batch on its own links.
    let replica = p.batch_tokens / f64::from(p.dp);
    let per_hop = Seconds(2.0 * replica * d / (w_pp.0 * f64::from(p.microbatches)));
    let total = super::parallelism::pp_comms(replica, d, w_pp, p.microbatches, p.pp).map_err(e)?;
    let per_layer = super::parallelism::pp_comms_per_layer(replica, d, w_pp, layers).map_err(e)?;
    let step_math = Seconds(
        f64::from(layers) * 12.0 * f64::from(mlp.active) * p.batch_tokens * d * mlp.f
            / (gpus as f64 * sys.peak.0),
    );
    let pp = PipelineCheck {
        bubble: crate::training::pipeline_bubble(f64::from(p.pp), f64::from(p.microbatches))
            .map_err(|e| e.to_string())?,
        per_hop,
        total: if p.pp == 1 { Seconds(0.0) } else { total },
        per_layer: if p.pp == 1 { Seconds(0.0) } else { per_layer },
        step_math,
    };

    let rules = rules(p, &dp, &tp, &ep, &pp, alpha_net);
    Ok(RooflineReport {
        gpus,
        nodes,
        dp,
        tp,
        ep,
        pp,
        rules,
    })
}

fn rules(
    p: &RooflineParams,
    dp: &AxisCheck,
    tp: &AxisCheck,
    ep: &AxisCheck,
    pp: &PipelineCheck,
    alpha_net: f64,
) -> Vec<Rule> {
    use crate::format::{grouped, sci};
    let per_node = p.system.gpus_per_node;
    let m = p.model_parallel();
    let nodes_spanned = m.div_ceil(u64::from(per_node)).max(1);
    let ep_many = 8.0 * alpha_net;
    vec![
        Rule {
            rule: "Data parallelism or FSDP needs enough tokens per GPU",
            value: format!(
                "{} per GPU, {} needed",
                grouped(dp.value),
                grouped(dp.limit)
            ),
            holds: dp.compute_bound,
            advice: "raise the batch, or let model parallelism span more nodes",
        },
        Rule {
            rule: "Tensor parallelism stays inside the NVLink domain (at most two nodes)",
            value: format!("{}-way, limit {}", p.tp, sci(tp.limit, 3)),
            holds: tp.compute_bound && u64::from(p.tp) <= 2 * u64::from(per_node),
            advice: "keep TP within one node; use PP or EP to cross nodes",
        },
        Rule {
            rule: "Model parallelism that spans nodes divides the data-parallel threshold",
            value: format!(
                "{}-way model parallelism spans {}",
                m,
                crate::format::count(nodes_spanned, "node", "nodes")
            ),
            holds: nodes_spanned > 1 || p.dp == 1,
            advice: "mix PP, EP and TP across nodes to cut the FSDP cost",
        },
        Rule {
            rule: "Expert parallelism across many nodes needs F > 8 C / W_node",
            value: format!(
                "F = {}, 8 C / W_node = {}",
                grouped(ep.value),
                grouped(ep_many)
            ),
            holds: ep.compute_bound,
            advice: "below it, keep EP to about two nodes",
        },
        Rule {
            rule: "Pipelining costs little bandwidth but leaves a bubble",
            value: format!("bubble {:.0}%", pp.bubble * 100.0),
            holds: pp.bubble <= 0.1,
            advice: "more microbatches, or a zero-bubble schedule; pair with ZeRO-1, not ZeRO-3",
        },
    ]
}

/// A worked example of the Examples section, evaluated.
#[derive(Debug, Clone, PartialEq)]
pub struct Example {
    /// Model name.
    pub model: &'static str,
    /// The evaluated rooflines.
    pub report: RooflineReport,
}

/// DeepSeek V3 on 2048 H800s and LLaMA-3 on 16k H100s, as the book describes them.
pub fn examples() -> Result<Vec<Example>, String> {
    RECIPES
        .iter()
        .map(|r| {
            let id = if r.moe.is_some() {
                "deepseek-v3"
            } else {
                "llama3-405b"
            };
            let p =
                RooflineParams::parse(r.gpu, id, r.batch_tokens, r.dp, r.tp, r.ep, r.pp, 4 * r.pp)?;
            Ok(Example {
                model: r.model,
                report: rooflines(&p)?,
            })
        })
        .collect()
}

/// One Megatron-LM row evaluated (Quiz 5 Q3).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MegatronCheck {
    /// The row.
    pub row: MegatronRow,
    /// `batch · sequence / GPUs`.
    pub tokens_per_gpu: f64,
    /// The spine-level DP threshold divided by the nodes the model-parallel axis spans.
    pub threshold: f64,
    /// Whether the row is compute-bound.
    pub compute_bound: bool,
}

/// The Megatron-LM table on H100s, row by row.
pub fn megatron() -> Result<Vec<MegatronCheck>, String> {
    let sys = GpuSystem::from_id("h100", Dtype::Bf16).map_err(|e| e.to_string())?;
    let mlp = Mlp::dense(1.0, 1.0, 1.0);
    MEGATRON_ROWS
        .value
        .iter()
        .map(|row| {
            let tokens = row.batch_sequences * MEGATRON_SEQ.value / row.gpus as f64;
            let m = u64::from(row.model_parallel());
            // The book takes DP as the outer, cross-node axis: no (X−1)/X discount.
            let x = u32::try_from(row.gpus / m).unwrap_or(u32::MAX);
            let (limit, _) = dp_limit(&sys, &mlp, x, m)?;
            let threshold =
                limit / super::parallelism::small_axis_factor(x).map_err(|e| e.to_string())?;
            Ok(MegatronCheck {
                row: *row,
                tokens_per_gpu: tokens,
                threshold,
                compute_bound: tokens > threshold,
            })
        })
        .collect()
}

/// What Appendix A computes for one node type.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NodeRooflines {
    /// GPU id.
    pub id: &'static str,
    /// `C / W_gpu`.
    pub alpha_node: f64,
    /// `C / W_node`.
    pub alpha_network: f64,
    /// H100's cross-node threshold over this one's, counting only the node's
    /// egress (`C / W_node`): the book's "about 4x" for GB200 NVL72.
    pub cross_node_gain: f64,
    /// Tokens per GPU that data parallelism over the whole reference pod needs
    /// once every level of the tree is counted: `C` over the slowest level's
    /// AllGather bandwidth (ring factors kept). On GB200 NVL72 the NVLink level
    /// binds, so this is `C · 71 / (72 · W_gpu)`, not `C / W_node`.
    pub pod_threshold: f64,
    /// The level that bounds an AllGather over the whole reference pod (1024 GPUs of
    /// 8-GPU nodes, 576 of NVL72 racks), ring factors dropped.
    pub pod_bottleneck: Option<super::network::LevelKind>,
}

/// Appendix A: H100, B200 and GB200 NVL72 side by side.
pub fn gb200_changes() -> Result<Vec<NodeRooflines>, String> {
    let e = |e: super::GpuError| e.to_string();
    let h100 = GpuSystem::from_id("h100", Dtype::Bf16).map_err(e)?;
    let base = h100.alpha(Scope::Network).map_err(e)?.0;
    super::node::NODE_IDS
        .iter()
        .map(|id| {
            let s = GpuSystem::from_id(id, Dtype::Bf16).map_err(e)?;
            let net = s.alpha(Scope::Network).map_err(e)?.0;
            let tree = s.fat_tree().map_err(e)?;
            let pod = tree.levels.last().map_or(1, |l| l.gpus());
            let cost = tree
                .collective(
                    crate::comms::collectives::Collective::AllGather,
                    crate::units::Bytes(1e9),
                    pod,
                    super::network::CollectiveOptions::default().asymptotic(),
                )
                .map_err(e)?;
            Ok(NodeRooflines {
                id: s.id,
                alpha_node: s.alpha(Scope::Node).map_err(e)?.0,
                alpha_network: net,
                cross_node_gain: base / net,
                pod_threshold: (s.peak / tree.all_gather_bandwidth()).0,
                pod_bottleneck: cost.bottleneck,
            })
        })
        .collect()
}

/// The verdict of one axis as the shared roofline type.
pub fn verdict(check: &AxisCheck) -> Verdict {
    if check.compute_bound {
        Verdict::ComputeBound
    } else {
        Verdict::CommunicationBound
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::network::LevelKind;
    use proptest::prelude::*;

    #[test]
    fn examples_and_megatron() {
        let ex = examples().unwrap();
        let ds = &ex[0].report;
        assert_eq!(ds.gpus, 2048);
        assert!((ds.dp.value - 30_720.0).abs() < 1.0);
        // 1024-way model parallelism spans 128 nodes; 2-way DP halves the rest.
        assert!(ds.dp.limit < 1000.0);
        let ll = &ex[1].report;
        assert_eq!(ll.gpus, 16_384);
        assert_eq!(ll.dp.value, 1024.0);
        assert!(ll.tp.compute_bound && ll.tp.scope == Scope::Node);
        let m = megatron().unwrap();
        let row = |name: &str| m.iter().find(|c| c.row.model == name).unwrap();
        let t: Vec<_> = ["16B", "70B", "314B"]
            .map(|n| row(n).tokens_per_gpu)
            .to_vec();
        assert_eq!(t, [4096.0, 2048.0, 2048.0]);
        // The answer's thresholds: 2,475 at the spine, then 2x and 8x lower.
        assert_eq!(row("16B").threshold.round(), 2475.0);
        assert_eq!(row("70B").threshold.round(), 1238.0);
        assert_eq!(row("314B").threshold.round(), 309.0);
        // Read the same way, only the 32B row (8-way TP inside a node, 2,048
        // tokens per GPU) falls short of its threshold.
        let short: Vec<_> = m
            .iter()
            .filter(|c| !c.compute_bound)
            .map(|c| c.row.model)
            .collect();
        assert_eq!(short, ["32B"]);
        assert_eq!(m.len(), 9);
    }

    #[test]
    fn appendix_a() {
        let rows = gb200_changes().unwrap();
        assert_eq!(rows[1].alpha_network, 5625.0);
        assert!((rows[2].cross_node_gain - 3.96).abs() < 0.01);
        // H100 and B200 pods are bound at the leaf; the NVL72 pod by NVLink itself.
        assert_eq!(rows[0].pod_bottleneck, Some(LevelKind::Leaf));
        assert_eq!(rows[1].pod_bottleneck, Some(LevelKind::Leaf));
        assert_eq!(rows[2].pod_bottleneck, Some(LevelKind::Node));
        // So across racks the NVL72 pod needs C / (72 W_gpu / 71) ≈ 2,465 tokens
        // per GPU, not the C / W_node = 625 its egress alone would allow.
        assert_eq!(rows[2].alpha_network, 625.0);
        assert!((rows[2].pod_threshold - 2.25e15 * 71.0 / (72.0 * 900e9)).abs() < 1e-6);
        assert_eq!(rows[2].pod_threshold.floor(), 2465.0);
        // The H100 pod is bound at the leaf: C / (32 · 400e9 / 31).
        assert_eq!(rows[0].pod_threshold.floor(), 2397.0);
    }

    #[test]
    fn validation_and_rules() {
        let bad = |r: Result<RooflineParams, String>| r.unwrap_err();
        assert!(bad(RooflineParams::parse(
            "h100",
            "llama3-70b",
            0.0,
            1,
            1,
            1,
            1,
            1
        ))
        .starts_with("batch"));
        assert!(bad(RooflineParams::parse(
            "h100",
            "llama3-70b",
            1e6,
            1,
            1,
            2,
            1,
            1
        ))
        .starts_with("ep"));
        assert!(bad(RooflineParams::parse(
            "h100",
            "llama3-70b",
            1e6,
            1,
            1,
            1,
            999,
            1
        ))
        .starts_with("pp"));
        assert!(
            bad(RooflineParams::parse("h100", "nope", 1e6, 1, 1, 1, 1, 1)).starts_with("model")
        );
        assert!(bad(RooflineParams::parse(
            "h100",
            "llama3-70b",
            1e6,
            0,
            1,
            1,
            1,
            1
        ))
        .starts_with("dp"));
        // Quiz 5 Q2: 8-way TP + 512-way DP with a 4M batch is comms-bound; 8-way PP fixes it.
        let p = RooflineParams::parse("h100", "llama3-70b", 4e6, 512, 8, 1, 1, 1).unwrap();
        let r = rooflines(&p).unwrap();
        assert!(!r.dp.compute_bound);
        assert!(!r.rules[0].holds);
        let p = RooflineParams::parse("h100", "llama3-70b", 4e6, 64, 8, 1, 8, 32).unwrap();
        let r = rooflines(&p).unwrap();
        assert!((r.dp.limit - 990e12 / 3.2e12 * 63.0 / 64.0).abs() < 1e-6);
        assert!(r.dp.compute_bound);
        assert!(r.pp.total.0 < 0.05 * r.pp.step_math.0);
        assert!(!r.rules.iter().any(|x| x.value.contains("(s)")));
        assert_eq!(verdict(&r.dp), Verdict::ComputeBound);
    }

    proptest! {
        #[test]
        fn reader_input_never_panics(
            gpu in 0usize..5, model in 0usize..4, batch in -1e3f64..1e13,
            dp in 0u32..70_000, tp in 0u32..70_000, ep in 0u32..300, pp in 0u32..200, mb in 0u32..300,
        ) {
            let gpu = ["h100", "b200", "gb200", "a100", "h800"][gpu];
            let model = ["llama3-70b", "deepseek-v3", "gpt-oss-120b", "mixtral-8x7b"][model];
            if let Ok(p) = RooflineParams::parse(gpu, model, batch, dp, tp, ep, pp, mb) {
                if let Ok(r) = rooflines(&p) {
                    prop_assert!(r.pp.bubble >= 0.0 && r.pp.bubble < 1.0);
                    prop_assert_eq!(r.gpus, p.gpus());
                }
            }
        }

        #[test]
        fn dp_verdict_flips_at_its_limit(batch in 1e4f64..1e8, dp_exp in 1u32..8, tp_exp in 0u32..4) {
            let (dp, tp) = (1u32 << dp_exp, 1u32 << tp_exp);
            let p = RooflineParams::parse("h100", "llama3-70b", batch, dp, tp, 1, 1, 1).unwrap();
            let r = rooflines(&p).unwrap();
            if (r.dp.value / r.dp.limit - 1.0).abs() > 1e-9 {
                prop_assert_eq!(r.dp.compute_bound, r.dp.value > r.dp.limit);
            }
        }
    }
}
