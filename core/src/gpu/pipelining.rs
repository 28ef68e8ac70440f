//! Pipeline parallelism on a GPU cluster, timed (Part 12, "Pipeline
//! Parallelism"): the GPipe schedule of [`crate::training::pipeline::simulate`]
//! with the activations sent between stages and each stage's data-parallel
//! gradient AllReduce priced on a registry GPU, for a registry model.
//!
//! The book's two figures are both here. In the first (`pipeline-bubble.png`)
//! each stage's gradient reduction (`G`) can only start once the last
//! microbatch's backward pass has left that stage, so it is not hidden behind
//! any work. In the second (`pipeline-transfer.png`) every hop of a microbatch
//! between stages waits for its activations, which shifts the later stages and
//! widens the bubble.
//!
//! The book adds that zero-bubble schedules can do without most of the bubble,
//! at a price in code complexity. [`zero_bubble`] lays the same step out with
//! the zero-bubble schedule of [`crate::training::pipeline`] (each backward split into an
//! input-gradient pass `B` and a weight-gradient pass `W` that fills the idle
//! slots) beside 1F1B, in the same forward-pass units.
//!
//! A stage is `Y` GPUs (tensor-parallel inside one node, the book's usual
//! layout). One time unit is one stage's forward pass of one microbatch:
//! `T_F = (2 · N_active · B / (X · N_MB)) / (N_stages · Y · C)`. A hop sends one
//! microbatch's bf16 activations over the stage's `Y` links,
//! `T_hop = 2 · B D / (X · W · N_MB)` with `W = Y · W_link` (the book's per-hop
//! cost; a whole node sends at `W_node`), where a GPU's link is NVLink (`W_gpu`)
//! or its share of the node's scale-out egress (`W_node / D_node`). The
//! reduction moves each GPU's `1/Y` of a stage's bf16 gradients,
//! `2 · (2 · N / (N_stages · Y)) · (X − 1)/X` bytes, at its share of `W_node`.
//!
//! ```
//! use ridgeline_core::gpu::pipelining::{pipelining, PipeliningParams};
//!
//! // The book's figure: 2 stages, 2 microbatches, no transfers, no reduction.
//! let p = PipeliningParams::parse("h100", "llama3-70b", 4e6, 2, 8, 2, 1, "network").unwrap();
//! let r = pipelining(&p).unwrap();
//! assert!((r.ideal.bubble - 1.0 / 3.0).abs() < 1e-9);
//! // Pipelining is cheap in bandwidth: a hop costs a few percent of a forward pass.
//! assert!(r.transfer_units > 0.0 && r.transfer_units < 0.05);
//! ```

use super::collectives::bytes_per_gpu;
use super::parallelism::{pp_comms, pp_comms_per_layer};
use super::rooflines::{check_batch, system_and_model};
use super::{GpuSystem, Scope};
use crate::comms::collectives::Collective;
use crate::model::accounting::{active_params, params};
use crate::model::config::ModelPreset;
use crate::training::pipeline::{simulate, PipelineParams, PipelineRun, Schedule as PipeSchedule};
use crate::training::pipeline_bubble;
use crate::units::{Bytes, BytesPerSec, Seconds};

/// The most stages or microbatches the view takes (the schedule's own limit).
pub const MAX_PIPE: u32 = 64;
/// The most data-parallel replicas.
pub const MAX_DP: u32 = 1 << 16;

/// What the pipelining view is asked for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PipeliningParams {
    /// The GPU system (bf16).
    pub system: GpuSystem,
    /// The model whose activations and gradients move.
    pub model: &'static ModelPreset,
    /// Global batch in tokens, `B`.
    pub batch_tokens: f64,
    /// Pipeline stages.
    pub stages: u32,
    /// GPUs per stage, `Y` (at most a node).
    pub tp: u32,
    /// Microbatches per step.
    pub microbatches: u32,
    /// Data-parallel replicas of the whole pipeline, `X`.
    pub dp: u32,
    /// Which link the stage-to-stage sends use.
    pub link: Scope,
}

/// Reads a link name: `nvlink` (inside the node) or `network` (scale-out).
pub fn parse_link(text: &str) -> Result<Scope, String> {
    match text.trim().to_ascii_lowercase().as_str() {
        "nvlink" | "node" => Ok(Scope::Node),
        "network" | "scale-out" | "scaleout" => Ok(Scope::Network),
        other => Err(format!(
            "link: \u{201c}{other}\u{201d} is neither nvlink nor network"
        )),
    }
}

/// The short name of a link, as [`parse_link`] reads it.
pub fn link_name(scope: Scope) -> &'static str {
    match scope {
        Scope::Node => "nvlink",
        Scope::Network => "network",
    }
}

impl PipeliningParams {
    /// Builds and checks parameters; the message names the bad field.
    #[allow(clippy::too_many_arguments)]
    pub fn parse(
        gpu: &str,
        model_id: &str,
        batch_tokens: f64,
        stages: u32,
        tp: u32,
        microbatches: u32,
        dp: u32,
        link: &str,
    ) -> Result<PipeliningParams, String> {
        let (system, model) = system_and_model(gpu, model_id)?;
        let p = PipeliningParams {
            system,
            model,
            batch_tokens,
            stages,
            tp,
            microbatches,
            dp,
            link: parse_link(link)?,
        };
        p.validate()?;
        Ok(p)
    }

    /// Checks every field.
    pub fn validate(&self) -> Result<(), String> {
        check_batch(self.batch_tokens)?;
        for (name, v, max) in [
            ("stages", self.stages, MAX_PIPE),
            ("microbatches", self.microbatches, MAX_PIPE),
            ("dp", self.dp, MAX_DP),
            ("tp", self.tp, self.system.gpus_per_node),
        ] {
            if v == 0 || v > max {
                return Err(format!("{name}: must be 1 to {max} (got {v})"));
            }
        }
        if u64::from(self.stages) > self.model.config.layers {
            return Err(format!(
                "stages: more stages ({}) than layers ({})",
                self.stages, self.model.config.layers
            ));
        }
        Ok(())
    }
}

/// One stage's gradient reduction in the timed schedule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reduction {
    /// Stage index.
    pub stage: u32,
    /// When it starts (the stage's last backward pass ends), in forward units.
    pub start: f64,
    /// When it ends.
    pub end: f64,
}

/// Everything the pipelining view shows.
#[derive(Debug, Clone, PartialEq)]
pub struct Pipelining {
    /// The bandwidth the stage-to-stage sends use.
    pub w_hop: BytesPerSec,
    /// One stage's forward pass of one microbatch: the time unit.
    pub forward: Seconds,
    /// One hop of one microbatch's activations: `2BD / (X · W · N_MB)`.
    pub hop: Seconds,
    /// `hop / forward`.
    pub transfer_units: f64,
    /// Bytes each GPU sends in one stage's gradient AllReduce (zero with `X = 1`).
    pub reduce_bytes: Bytes,
    /// Its time over the scale-out network.
    pub reduce: Seconds,
    /// `reduce / forward`.
    pub reduce_units: f64,
    /// The GPipe timeline with untimed sends, in forward units (a backward is two).
    pub ideal: PipelineRun,
    /// The same with each send taking `transfer_units`.
    pub timed: PipelineRun,
    /// Each stage's gradient reduction after the timed schedule.
    pub reductions: Vec<Reduction>,
    /// When the last reduction ends, in forward units: the step.
    pub step_units: f64,
    /// The step in seconds.
    pub step: Seconds,
    /// The book's closed form `(S − 1)/(M + S − 1)`.
    pub bubble_formula: f64,
    /// Idle share of the step on every stage, counting transfers and the exposed reductions.
    pub idle: f64,
    /// Model FLOPs utilisation: the step's model FLOPs (`6 · N_active · B`)
    /// over what every GPU could do in the step at its quoted peak, which is
    /// the busy share `1 − idle` times the FLOPs share the system assumes.
    pub mfu: f64,
    /// The book's total pipeline communication of a step, `2BD/(W · N_MB) · (N_MB + S − 2)`.
    pub total_comms: Seconds,
    /// The book's per-layer estimate `1.5 · 2BD / (W · N_layers)`.
    pub per_layer: Seconds,
}

/// The step's passes under the zero-bubble schedule, beside 1F1B (sends and
/// gradient reductions left out; one unit is one stage's forward pass of one
/// microbatch, a backward is two).
#[derive(Debug, Clone, PartialEq)]
pub struct ZeroBubbleStep {
    /// The zero-bubble timeline, in forward units.
    pub timeline: PipelineRun,
    /// Its length in seconds on the chosen GPU.
    pub step: Seconds,
    /// 1F1B's bubble for the same stages and microbatches (GPipe's too).
    pub one_f_one_b: f64,
    /// 1F1B's step in seconds.
    pub one_f_one_b_step: Seconds,
    /// The most microbatches GPipe holds activations for on one stage (all `M`).
    pub gpipe_in_flight: f64,
}

/// Lays out `p`'s stages and microbatches with the zero-bubble schedule and
/// with 1F1B, both timed at `forward` per unit.
pub fn zero_bubble(p: &PipeliningParams, forward: Seconds) -> Result<ZeroBubbleStep, String> {
    p.validate()?;
    if !(forward.0.is_finite() && forward.0 > 0.0) {
        return Err("forward: a positive time".into());
    }
    let run = |schedule| simulate(&PipelineParams::new(p.stages, p.microbatches, schedule));
    let timeline = run(PipeSchedule::ZeroBubble)?;
    let one = run(PipeSchedule::OneFOneB)?;
    let gpipe = run(PipeSchedule::GPipe)?;
    Ok(ZeroBubbleStep {
        step: forward * timeline.step.0,
        timeline,
        one_f_one_b: one.bubble,
        one_f_one_b_step: forward * one.step.0,
        gpipe_in_flight: gpipe.peak_in_flight,
    })
}

/// Times the GPipe schedule on the chosen GPU and model.
pub fn pipelining(p: &PipeliningParams) -> Result<Pipelining, String> {
    p.validate()?;
    let e = |e: super::GpuError| e.to_string();
    let sys = &p.system;
    let cfg = &p.model.config;
    let (s, y, m, x) = (
        f64::from(p.stages),
        f64::from(p.tp),
        f64::from(p.microbatches),
        f64::from(p.dp),
    );
    let per_node = f64::from(sys.gpus_per_node);
    let replica = p.batch_tokens / x;
    let forward = Seconds(2.0 * active_params(cfg).total() * replica / m / (s * y * sys.peak.0));
    // One GPU's share of the scale-out egress, or its own NVLink bandwidth.
    let per_gpu = |scope: Scope| -> Result<f64, String> {
        let w = sys.w_collective(scope).map_err(e)?.0;
        Ok(match scope {
            Scope::Node => w,
            Scope::Network => w / per_node,
        })
    };
    let w_hop = BytesPerSec(y * per_gpu(p.link)?);
    let d = cfg.d_model as f64;
    let hop = Seconds(2.0 * replica * d / (w_hop.0 * m));
    let grads = Bytes(2.0 * params(cfg).total() / (s * y));
    let reduce_bytes = if p.dp > 1 {
        bytes_per_gpu(Collective::AllReduce, grads, p.dp, false)?
    } else {
        Bytes(0.0)
    };
    let reduce = if p.dp > 1 {
        reduce_bytes / BytesPerSec(per_gpu(Scope::Network)?)
    } else {
        Seconds(0.0)
    };
    let transfer_units = hop.0 / forward.0;
    let reduce_units = reduce.0 / forward.0;
    let gpipe = PipelineParams::new(p.stages, p.microbatches, PipeSchedule::GPipe);
    let ideal = simulate(&gpipe)?;
    let timed = simulate(&gpipe.with_transfer(Seconds(transfer_units)))?;
    let reductions: Vec<Reduction> = (0..p.stages)
        .map(|stage| {
            let start = timed
                .slots
                .iter()
                .filter(|b| b.device == stage)
                .map(|b| b.end.0)
                .fold(0.0, f64::max);
            Reduction {
                stage,
                start,
                end: start + reduce_units,
            }
        })
        .collect();
    let step_units = reductions
        .iter()
        .map(|r| r.end)
        .fold(timed.step.0, f64::max);
    let busy = 3.0 * s * m;
    let idle = 1.0 - busy / (s * step_units);
    let layers = u32::try_from(cfg.layers).unwrap_or(u32::MAX);
    let (total_comms, per_layer) = if p.stages == 1 {
        (Seconds(0.0), Seconds(0.0))
    } else {
        (
            pp_comms(replica, d, w_hop, p.microbatches, p.stages).map_err(e)?,
            pp_comms_per_layer(replica, d, w_hop, layers).map_err(e)?,
        )
    };
    Ok(Pipelining {
        w_hop,
        forward,
        hop,
        transfer_units,
        reduce_bytes,
        reduce,
        reduce_units,
        step_units,
        step: Seconds(step_units * forward.0),
        bubble_formula: pipeline_bubble(s, m).map_err(|e| e.to_string())?,
        idle,
        mfu: (1.0 - idle) * sys.derate.flops(),
        total_comms,
        per_layer,
        ideal,
        timed,
        reductions,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::training::pipeline::Pass;

    #[test]
    fn zero_bubble_shrinks_the_books_bubble() {
        // The book's figure: 2 stages, 2 microbatches, a third of the step idle.
        let p = PipeliningParams::parse("h100", "llama3-70b", 4e6, 2, 8, 2, 1, "network").unwrap();
        let r = pipelining(&p).unwrap();
        let z = zero_bubble(&p, r.forward).unwrap();
        assert!((z.one_f_one_b - 1.0 / 3.0).abs() < 1e-9);
        // ZB-H1 leaves (S − 1)(T_F + T_B − T_W) = 1 unit of 7 per stage idle.
        assert!(
            (z.timeline.bubble - 1.0 / 7.0).abs() < 1e-12,
            "{}",
            z.timeline.bubble
        );
        assert!(z.step < z.one_f_one_b_step);
        assert!((z.step.0 - z.timeline.step.0 * r.forward.0).abs() < 1e-15);
        assert_eq!(z.gpipe_in_flight, 2.0);
        assert_eq!(
            z.timeline
                .slots
                .iter()
                .filter(|s| s.pass == Pass::Weight)
                .count(),
            4
        );
        // Larger pipelines keep most of the gain.
        let p = PipeliningParams::parse("h100", "llama3-70b", 4e6, 8, 8, 16, 1, "network").unwrap();
        let z = zero_bubble(&p, r.forward).unwrap();
        assert!(z.timeline.bubble < 0.7 * z.one_f_one_b);
        assert!(z.timeline.peak_in_flight <= 8.0 && z.gpipe_in_flight == 16.0);
        assert_eq!(
            zero_bubble(&p, Seconds(0.0)).unwrap_err().to_string(),
            "forward: a positive time",
        );
    }
    use proptest::prelude::*;

    fn of(gpu: &str, model: &str, b: f64, s: u32, m: u32, x: u32, link: &str) -> Pipelining {
        pipelining(&PipeliningParams::parse(gpu, model, b, s, 8, m, x, link).unwrap()).unwrap()
    }

    #[test]
    fn the_books_two_stage_figure() {
        // Two stages, two microbatches, backward twice the forward: 6 units of
        // work per stage in a 9-unit step, so each stage idles a third of it.
        let r = of("h100", "llama3-70b", 4e6, 2, 2, 1, "network");
        assert_eq!(r.ideal.step.0, 9.0);
        assert!((r.ideal.bubble - 1.0 / 3.0).abs() < 1e-12);
        assert!((r.bubble_formula - 1.0 / 3.0).abs() < 1e-12);
        // Without data parallelism there is nothing to reduce.
        assert_eq!(r.reduce.0, 0.0);
        assert!(r.reductions.iter().all(|g| g.start == g.end));
    }

    #[test]
    fn hop_is_the_books_per_hop_cost_and_the_total_matches() {
        // LLaMA-3 70B (D = 8192) on H100s across nodes (W = 400 GB/s per node),
        // B = 4M tokens over 2 replicas, 8 microbatches: 2 · 2e6 · 8192 / (4e11 · 8).
        let r = of("h100", "llama3-70b", 4e6, 4, 8, 2, "network");
        assert!((r.hop.0 - 2.0 * 2e6 * 8192.0 / (4e11 * 8.0)).abs() < 1e-12);
        // The book's total is one hop per microbatch plus S − 2 more.
        assert!((r.total_comms.0 - r.hop.0 * (8.0 + 4.0 - 2.0)).abs() < 1e-12);
        // Over NVLink (450 GB/s on an H100) the same hop is faster.
        let nv = of("h100", "llama3-70b", 4e6, 4, 8, 2, "nvlink");
        assert!(nv.hop.0 < r.hop.0);
        // The forward unit, each stage a node of 8 GPUs: 2 · N · 2e6 / 8 / (4 · 8 · 990e12).
        let n = active_params(&r_model().config).total();
        assert!((r.forward.0 - 2.0 * n * 2e6 / 8.0 / (4.0 * 8.0 * 990e12)).abs() < 1e-12);
        // Each GPU reduces its eighth of the stage's bf16 gradients, 2 · (X − 1)/X = 1
        // times over, at its 50 GB/s share of the node: the node's gradients at 400 GB/s.
        let grads = 2.0 * params(&r_model().config).total() / 4.0;
        assert!((r.reduce_bytes.0 - grads / 8.0).abs() < 1.0);
        assert!((r.reduce.0 - grads / 4e11).abs() < 1e-9);
        // One GPU per stage has an eighth of the bandwidth and an eighth of the FLOPs.
        let one = pipelining(
            &PipeliningParams::parse("h100", "llama3-70b", 4e6, 4, 1, 8, 2, "network").unwrap(),
        )
        .unwrap();
        assert!((one.hop.0 / r.hop.0 - 8.0).abs() < 1e-9);
        assert!((one.forward.0 / r.forward.0 - 8.0).abs() < 1e-9);
    }

    /// Worked by hand: at 80 % of peak FLOPs/s each forward unit takes
    /// 1/0.8 = 1.25 times as long and the hop does not change; at half the
    /// link bandwidth the hop and the gradient AllReduce take twice as long
    /// and the forward unit does not change. MFU is the step's model FLOPs
    /// (6 · N · B) over every GPU's quoted peak for the step: the busy share
    /// times the FLOPs share.
    #[test]
    fn a_derated_gpu_stretches_compute_and_links_by_their_shares() {
        use crate::roofline::derate::Derate;
        let p = PipeliningParams::parse("h100", "llama3-70b", 4e6, 4, 8, 8, 2, "network").unwrap();
        let on = |f: f64, l: f64| {
            pipelining(&PipeliningParams {
                system: p.system.derated(Derate::new(f, 1.0, l).unwrap()),
                ..p
            })
            .unwrap()
        };
        let quoted = pipelining(&p).unwrap();
        assert!((quoted.mfu - (1.0 - quoted.idle)).abs() < 1e-12);
        let slow = on(0.8, 1.0);
        assert!((slow.forward.0 / quoted.forward.0 - 1.25).abs() < 1e-12);
        assert_eq!(slow.hop, quoted.hop);
        assert_eq!(slow.reduce, quoted.reduce);
        let gpus = f64::from(4 * 8 * 2);
        let model_flops = 6.0 * active_params(&r_model().config).total() * 4e6;
        let by_definition = model_flops / (slow.step.0 * gpus * p.system.peak.0);
        assert!((slow.mfu - by_definition).abs() < 1e-12, "{}", slow.mfu);
        assert!((slow.mfu - 0.8 * (1.0 - slow.idle)).abs() < 1e-12);
        let thin = on(1.0, 0.5);
        assert_eq!(thin.forward, quoted.forward);
        assert!((thin.hop.0 / quoted.hop.0 - 2.0).abs() < 1e-12);
        assert!((thin.reduce.0 / quoted.reduce.0 - 2.0).abs() < 1e-12);
        assert!(thin.step > quoted.step && thin.mfu < quoted.mfu);
    }

    fn r_model() -> &'static ModelPreset {
        crate::model::config::model("llama3-70b").unwrap()
    }

    #[test]
    fn reductions_start_after_each_stages_last_backward() {
        let r = of("b200", "llama3-8b", 1e6, 4, 4, 8, "network");
        // The first stage finishes its backward passes last, so its reduction ends the step.
        let last = r.reductions.last().unwrap();
        let first = r.reductions.first().unwrap();
        assert!(first.start >= last.start);
        assert!((r.step_units - first.end).abs() < 1e-12);
        assert!(r.idle > r.timed.bubble);
    }

    #[test]
    fn bad_input_is_named() {
        let bad = |r: Result<PipeliningParams, String>| r.unwrap_err();
        let parse = |g, m, b, s, x, l| PipeliningParams::parse(g, m, b, s, 8, x, 1, l);
        assert!(bad(parse("v5p", "llama3-8b", 1e6, 2, 2, "network")).starts_with("gpu"));
        assert!(bad(parse("h100", "gpt9", 1e6, 2, 2, "network")).starts_with("model"));
        assert!(bad(parse("h100", "llama3-8b", 0.0, 2, 2, "network")).starts_with("batch"));
        assert!(bad(parse("h100", "llama3-8b", 1e6, 0, 2, "network")).starts_with("stages"));
        assert!(bad(parse("h100", "llama3-8b", 1e6, 2, 99, "network")).starts_with("microbatches"));
        assert!(bad(parse("h100", "llama3-8b", 1e6, 2, 2, "pcie")).starts_with("link"));
        assert!(bad(PipeliningParams::parse(
            "h100",
            "llama3-8b",
            1e6,
            2,
            9,
            2,
            1,
            "network"
        ))
        .starts_with("tp"));
        assert_eq!(parse_link(link_name(Scope::Node)), Ok(Scope::Node));
        assert_eq!(parse_link(link_name(Scope::Network)), Ok(Scope::Network));
    }

    proptest! {
        #[test]
        fn transfers_and_reductions_only_lengthen_the_step(
            s in 1u32..=12, m in 1u32..=16, x in 1u32..64, b in 1e4f64..1e8,
        ) {
            let r = of("h100", "llama3-8b", b, s, m, x, "network");
            prop_assert!(r.timed.step.0 >= r.ideal.step.0 - 1e-9);
            prop_assert!(r.step_units >= r.timed.step.0 - 1e-9);
            prop_assert!((r.ideal.bubble - r.bubble_formula).abs() < 1e-9);
            prop_assert!(r.idle >= r.ideal.bubble - 1e-9 && r.idle < 1.0);
        }
    }
}
