//! Two papers' measurements that Part 7 shows as figures, kept as data read
//! off the book's copies, with the arithmetic that explains them.
//!
//! - [`ESTI`]: the latency–cost frontiers of PaLM 8B, 62B and 540B, in bf16
//!   and with int8 weights, served on TPU v4 (Pope et al., *Efficiently
//!   Scaling Transformer Inference*, 2022, Figure 1; Part 7, "What about
//!   latency and throughput?"), and [`ESTI_CAPPED`], the 540B point whose
//!   batch memory capped.
//! - [`CHINCHILLA`]: speculative sampling of Chinchilla 70B with a 4B drafter
//!   on XSum and HumanEval (Chen et al., *Accelerating Large Language Model
//!   Decoding with Speculative Sampling*, 2023, Figure 1; Part 7,
//!   "Speculative sampling").
//!
//! Both figures are plots without a table, so every value here is read off the
//! plot: positions on ESTI's log axes to about 3 % (points hidden under
//! another curve's marker are placed where the visible part of the marker
//! sits), Chen's to about 10 ms, 0.01 and 0.2 ms. The papers' configuration
//! labels (`C:16, B:32`: 16 chips, batch 32) are copied as printed; ESTI labels
//! only some points, so the others carry none.

use super::prefill_decode::speculative_tokens_per_step;
use super::InferenceError;

// ---------------------------------------------------------------- ESTI: latency against cost

/// Chips and batch as ESTI's figure labels a point (`C:16, B:32`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Served {
    /// Chips serving one copy of the model.
    pub chips: u32,
    /// Sequences decoded together.
    pub batch: u32,
}

/// One point of a latency–cost frontier.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CostPoint {
    /// Time per generated token (one decode step), in ms.
    pub latency_ms: f64,
    /// Chip-milliseconds per generated token.
    pub cost: f64,
    /// The chips and batch, where the figure prints them.
    pub served: Option<Served>,
}

/// One model's frontier in one weight format.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Frontier {
    /// The figure's legend (`PaLM 62B`).
    pub model: &'static str,
    /// Whether the weights are int8 (else bf16).
    pub int8: bool,
    /// The points from the lowest latency to the highest.
    pub points: &'static [CostPoint],
}

const fn at(latency_ms: f64, cost: f64) -> CostPoint {
    CostPoint {
        latency_ms,
        cost,
        served: None,
    }
}

const fn labelled(latency_ms: f64, cost: f64, chips: u32, batch: u32) -> CostPoint {
    CostPoint {
        latency_ms,
        cost,
        served: Some(Served { chips, batch }),
    }
}

/// Where ESTI's figure comes from, as a caption cites it.
pub const ESTI_SOURCE: &str = "Pope et al., Efficiently Scaling Transformer Inference (2022), \
     Figure 1, as Part 7 reproduces it; values read off the plot";

/// The six frontiers of ESTI's Figure 1, largest model first.
pub const ESTI: [Frontier; 6] = [
    Frontier {
        model: "PaLM 540B",
        int8: false,
        points: &[
            labelled(33.2, 65.1, 128, 64),
            at(36.5, 35.9),
            labelled(44.8, 22.1, 64, 128),
            at(57.0, 14.3),
            at(91.0, 11.6),
            labelled(184.0, 11.35, 64, 1024),
        ],
    },
    Frontier {
        model: "PaLM 540B",
        int8: true,
        points: &[
            labelled(28.1, 27.7, 64, 64),
            at(36.1, 18.1),
            at(55.3, 13.7),
            at(94.8, 11.8),
        ],
    },
    Frontier {
        model: "PaLM 62B",
        int8: false,
        points: &[
            labelled(11.8, 11.5, 32, 32),
            at(14.0, 6.9),
            labelled(16.5, 4.06, 16, 64),
            at(22.2, 2.75),
            at(30.7, 1.9),
            at(55.1, 1.7),
            at(77.7, 1.21),
            labelled(149.5, 1.17, 8, 1024),
        ],
    },
    Frontier {
        model: "PaLM 62B",
        int8: true,
        points: &[
            at(10.2, 9.95),
            at(11.1, 5.49),
            at(13.5, 3.35),
            at(17.6, 2.2),
            at(25.2, 1.58),
            at(77.7, 1.21),
            at(149.5, 1.17),
        ],
    },
    Frontier {
        model: "PaLM 8B",
        int8: false,
        points: &[
            labelled(4.3, 2.13, 16, 32),
            at(5.0, 1.23),
            labelled(5.9, 0.73, 8, 64),
            at(8.0, 0.49),
            at(11.6, 0.37),
            at(20.1, 0.31),
            labelled(37.0, 0.29, 8, 1024),
        ],
    },
    Frontier {
        model: "PaLM 8B",
        int8: true,
        points: &[
            at(4.0, 1.97),
            at(4.2, 1.03),
            at(5.1, 0.64),
            at(7.4, 0.46),
            at(11.4, 0.36),
            at(20.1, 0.31),
            at(37.0, 0.29),
        ],
    },
];

/// PaLM 540B on 32 chips, where memory left room for a batch of only 16: the
/// point the figure sets apart, off every frontier.
pub const ESTI_CAPPED: CostPoint = labelled(43.0, 59.3, 32, 16);

/// The accelerator ESTI's measurements ran on, as a registry id.
pub const ESTI_CHIP: &str = "v4p";

/// Chip-milliseconds per generated token when `chips` chips decode `batch`
/// sequences at `latency_ms` a step: every chip is busy for the whole step,
/// and the step yields one token per sequence, so cost = C · t / B.
pub fn cost_per_token(chips: f64, batch: f64, latency_ms: f64) -> f64 {
    chips * latency_ms / batch
}

/// Tokens a chip generates per second at `cost` chip-milliseconds per token:
/// the throughput the cost axis stands for.
pub fn tokens_per_chip_second(cost: f64) -> f64 {
    1e3 / cost
}

impl Frontier {
    /// The legend's name: `PaLM 62B` or `PaLM 62B int8`.
    pub fn name(&self) -> String {
        if self.int8 {
            format!("{} int8", self.model)
        } else {
            self.model.to_string()
        }
    }

    /// The frontier's cost at `latency_ms`, interpolated on the figure's log
    /// axes between the two points around it; `None` outside its range.
    pub fn cost_at(&self, latency_ms: f64) -> Option<f64> {
        self.points.windows(2).find_map(|w| {
            let (a, b) = (w[0], w[1]);
            if !(a.latency_ms..=b.latency_ms).contains(&latency_ms) {
                return None;
            }
            let t = (latency_ms / a.latency_ms).ln() / (b.latency_ms / a.latency_ms).ln();
            Some(a.cost * (b.cost / a.cost).powf(t))
        })
    }

    /// The lowest cost the frontier reaches (its highest throughput).
    pub fn lowest_cost(&self) -> f64 {
        self.points
            .iter()
            .map(|p| p.cost)
            .fold(f64::INFINITY, f64::min)
    }

    /// How much of its cost the frontier still sheds over the last doubling
    /// of latency: 1 − cost(last) / cost(last latency ÷ 2). Near zero where
    /// the curve has gone flat.
    pub fn last_doubling_saving(&self) -> Option<f64> {
        let last = self.points.last()?;
        Some(1.0 - last.cost / self.cost_at(last.latency_ms / 2.0)?)
    }
}

/// The frontier of `model` in bf16 or int8.
pub fn esti_frontier(model: &str, int8: bool) -> Option<&'static Frontier> {
    ESTI.iter().find(|f| f.model == model && f.int8 == int8)
}

/// What ESTI's figure teaches, in numbers core computes from the readings.
#[derive(Debug, Clone, PartialEq)]
pub struct EstiLessons {
    /// The capped point's cost over the 540B bf16 frontier's at its latency.
    pub capped_over_frontier: f64,
    /// Per model (largest first): the share of cost the bf16 frontier still
    /// sheds over its last doubling of latency.
    pub flat: Vec<(&'static str, f64)>,
    /// Per model: int8's lowest cost over bf16's (about 1: no higher peak
    /// throughput).
    pub int8_peak: Vec<(&'static str, f64)>,
    /// Per model: the most bf16 costs over int8 at one latency both reach,
    /// and that latency in ms (int8's better frontier).
    pub int8_gain: Vec<(&'static str, f64, f64)>,
}

/// The lessons of [`ESTI`].
pub fn esti_lessons() -> Option<EstiLessons> {
    let bf16_540 = esti_frontier("PaLM 540B", false)?;
    let capped_over_frontier = ESTI_CAPPED.cost / bf16_540.cost_at(ESTI_CAPPED.latency_ms)?;
    let models: Vec<&'static str> = ESTI.iter().filter(|f| !f.int8).map(|f| f.model).collect();
    let mut flat = Vec::new();
    let mut int8_peak = Vec::new();
    let mut int8_gain = Vec::new();
    for m in models {
        let (b, i) = (esti_frontier(m, false)?, esti_frontier(m, true)?);
        flat.push((m, b.last_doubling_saving()?));
        int8_peak.push((m, i.lowest_cost() / b.lowest_cost()));
        // The latencies of either curve's points where both curves reach.
        let best = b
            .points
            .iter()
            .chain(i.points)
            .filter_map(|p| {
                Some((
                    b.cost_at(p.latency_ms)? / i.cost_at(p.latency_ms)?,
                    p.latency_ms,
                ))
            })
            .fold(None, |acc: Option<(f64, f64)>, x| match acc {
                Some(a) if a.0 >= x.0 => Some(a),
                _ => Some(x),
            })?;
        int8_gain.push((m, best.0, best.1));
    }
    Some(EstiLessons {
        capped_over_frontier,
        flat,
        int8_peak,
        int8_gain,
    })
}

// ---------------------------------------------------------------- Chen et al.: speculative sampling measured

/// The two tasks of Chen et al.'s figure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Task {
    /// Code completion, where the drafter agrees more often.
    HumanEval,
    /// News summarisation.
    XSum,
}

impl Task {
    /// Both, in the figure's legend order.
    pub const ALL: [Task; 2] = [Task::HumanEval, Task::XSum];

    /// The dataset's name.
    pub fn name(self) -> &'static str {
        match self {
            Task::HumanEval => "HumanEval",
            Task::XSum => "XSum",
        }
    }

    fn index(self) -> usize {
        match self {
            Task::HumanEval => 0,
            Task::XSum => 1,
        }
    }
}

/// One draft length's measurements.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpecReading {
    /// Tokens drafted per loop, `K` (0 is plain sampling).
    pub draft: u32,
    /// Mean time to generate [`SPEC_TOKENS`] tokens, in ms, per task
    /// (HumanEval, XSum).
    pub time_ms: [f64; 2],
    /// Tokens accepted per loop over `K + 1`, per task (HumanEval, XSum).
    pub acceptance: [f64; 2],
    /// Mean time of one loop (K draft steps and one target pass), in ms.
    pub loop_ms: f64,
}

impl SpecReading {
    /// The time for `task`.
    pub fn time(&self, task: Task) -> f64 {
        self.time_ms[task.index()]
    }

    /// The acceptance rate for `task`.
    pub fn acceptance(&self, task: Task) -> f64 {
        self.acceptance[task.index()]
    }
}

/// Where Chen et al.'s figure comes from, as a caption cites it.
pub const CHINCHILLA_SOURCE: &str = "Chen et al., Accelerating Large Language Model Decoding \
     with Speculative Sampling (2023), Figure 1, as Part 7 reproduces it; values read off the plot";

/// Tokens each measured generation produces.
pub const SPEC_TOKENS: f64 = 128.0;

const fn spec(draft: u32, time_ms: [f64; 2], acceptance: [f64; 2], loop_ms: f64) -> SpecReading {
    SpecReading {
        draft,
        time_ms,
        acceptance,
        loop_ms,
    }
}

/// Chinchilla 70B with a 4B drafter, K = 0 to 7.
pub const CHINCHILLA: [SpecReading; 8] = [
    spec(0, [1800.0, 1800.0], [1.0, 1.0], 14.2),
    spec(1, [1111.0, 1194.0], [0.946, 0.878], 16.3),
    spec(2, [881.0, 999.0], [0.886, 0.784], 18.3),
    spec(3, [776.0, 936.0], [0.836, 0.695], 20.4),
    spec(4, [733.0, 946.0], [0.799, 0.617], 22.8),
    spec(5, [710.0, 964.0], [0.753, 0.552], 25.0),
    spec(6, [694.0, 988.0], [0.710, 0.502], 27.0),
    spec(7, [674.0, 1002.0], [0.678, 0.456], 28.4),
];

/// The time to generate `tokens` when each loop of `loop_ms` drafts `draft`
/// tokens and `acceptance · (draft + 1)` of the loop's tokens survive: the
/// three panels of the figure are one equation.
pub fn time_from_loops(tokens: f64, draft: u32, acceptance: f64, loop_ms: f64) -> f64 {
    tokens * loop_ms / (acceptance * (f64::from(draft) + 1.0))
}

/// A straight line through the loop times: `base + K · per_draft`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LoopFit {
    /// The loop's time with nothing drafted: one target step, in ms.
    pub base_ms: f64,
    /// What each drafted token adds, in ms.
    pub per_draft_ms: f64,
}

impl LoopFit {
    /// A draft step's time over a target step's: the `draft_cost` of
    /// [`super::serving::SpeculativeParams`].
    pub fn draft_cost(&self) -> f64 {
        self.per_draft_ms / self.base_ms
    }

    /// The fitted loop time at `draft` drafted tokens.
    pub fn loop_ms(&self, draft: u32) -> f64 {
        self.base_ms + f64::from(draft) * self.per_draft_ms
    }
}

/// The least-squares line through [`CHINCHILLA`]'s loop times.
pub fn loop_fit() -> LoopFit {
    let n = CHINCHILLA.len() as f64;
    let k = |r: &SpecReading| f64::from(r.draft);
    let mk = CHINCHILLA.iter().map(k).sum::<f64>() / n;
    let ml = CHINCHILLA.iter().map(|r| r.loop_ms).sum::<f64>() / n;
    let sxy: f64 = CHINCHILLA
        .iter()
        .map(|r| (k(r) - mk) * (r.loop_ms - ml))
        .sum();
    let sxx: f64 = CHINCHILLA.iter().map(|r| (k(r) - mk).powi(2)).sum();
    let per_draft_ms = sxy / sxx;
    LoopFit {
        base_ms: ml - per_draft_ms * mk,
        per_draft_ms,
    }
}

/// The squared gap between the independent-draft model at acceptance
/// probability `a` and `task`'s measured acceptance, summed over K = 1 to 7.
fn acceptance_gap(task: Task, a: f64) -> Result<f64, InferenceError> {
    CHINCHILLA
        .iter()
        .filter(|r| r.draft > 0)
        .map(|r| {
            let modelled = speculative_tokens_per_step(a, r.draft)? / (f64::from(r.draft) + 1.0);
            Ok((modelled - r.acceptance(task)).powi(2))
        })
        .sum()
}

/// The one per-token acceptance probability `a` whose independent-draft
/// model, `(1 − a^(K+1)) / (1 − a)` tokens a loop, best matches the measured
/// acceptance of `task` (least squares over K = 1 to 7, by golden-section
/// search on [0, 1] to 1e-7: the gap has one minimum there).
pub fn fitted_accept(task: Task) -> Result<f64, InferenceError> {
    let ratio = (5f64.sqrt() - 1.0) / 2.0;
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    while hi - lo > 1e-7 {
        let (a, b) = (hi - ratio * (hi - lo), lo + ratio * (hi - lo));
        if acceptance_gap(task, a)? <= acceptance_gap(task, b)? {
            hi = b;
        } else {
            lo = a;
        }
    }
    Ok((lo + hi) / 2.0)
}

/// Core's speculative model fitted to [`CHINCHILLA`]: the loop line and one
/// acceptance probability per task, computed once.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpecFit {
    /// The loop-time line.
    pub loops: LoopFit,
    /// The fitted acceptance probability per task (HumanEval, XSum).
    pub accept: [f64; 2],
}

impl SpecFit {
    /// Fits both tasks.
    pub fn new() -> Result<SpecFit, InferenceError> {
        Ok(SpecFit {
            loops: loop_fit(),
            accept: [fitted_accept(Task::HumanEval)?, fitted_accept(Task::XSum)?],
        })
    }

    /// The fitted acceptance probability of `task`.
    pub fn accept(&self, task: Task) -> f64 {
        self.accept[task.index()]
    }

    /// The modelled time to generate [`SPEC_TOKENS`] tokens on `task` at
    /// `draft` drafted tokens: the fitted loop time over the modelled tokens
    /// per loop.
    pub fn time(&self, task: Task, draft: u32) -> Result<f64, InferenceError> {
        Ok(SPEC_TOKENS * self.loops.loop_ms(draft)
            / speculative_tokens_per_step(self.accept(task), draft)?)
    }

    /// The draft length core's speculative model favours for `task`
    /// ([`super::serving::best_draft`] at the fitted acceptance and draft cost).
    pub fn best(&self, task: Task) -> Result<u32, String> {
        Ok(super::serving::best_draft(self.accept(task), self.loops.draft_cost())?.0)
    }

    /// The largest relative gap between the modelled and the measured time,
    /// over both tasks and every draft length.
    pub fn worst_gap(&self) -> Result<f64, InferenceError> {
        let mut worst = 0.0f64;
        for r in &CHINCHILLA {
            for t in Task::ALL {
                worst = worst.max((self.time(t, r.draft)? / r.time(t) - 1.0).abs());
            }
        }
        Ok(worst)
    }
}

/// The measured draft length with the shortest time on `task`, and that time.
pub fn measured_best(task: Task) -> (u32, f64) {
    CHINCHILLA
        .iter()
        .map(|r| (r.draft, r.time(task)))
        .fold((0, f64::INFINITY), |b, x| if x.1 < b.1 { x } else { b })
}

/// Plain sampling's time over the best measured time on `task`: what
/// speculation bought.
pub fn measured_speedup(task: Task) -> f64 {
    CHINCHILLA[0].time(task) / measured_best(task).1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_labelled_point_costs_chips_times_latency_over_batch() {
        // 8B at C:16, B:32 and 4.3 ms: 16 · 4.3 / 32 = 2.15 chip-ms, read as
        // 2.13; the readings hold the identity to within reading error (6 %).
        assert!((cost_per_token(16.0, 32.0, 4.3) - 2.15).abs() < 1e-12);
        let mut labelled = 0;
        for f in &ESTI {
            for p in f.points {
                if let Some(s) = p.served {
                    let c = cost_per_token(f64::from(s.chips), f64::from(s.batch), p.latency_ms);
                    assert!((c / p.cost - 1.0).abs() < 0.06, "{} {p:?}: {c}", f.name());
                    labelled += 1;
                }
            }
        }
        assert_eq!(labelled, 10);
    }

    #[test]
    fn frontiers_run_from_fast_and_dear_to_slow_and_cheap() {
        for f in &ESTI {
            for w in f.points.windows(2) {
                assert!(w[0].latency_ms < w[1].latency_ms, "{}", f.name());
                assert!(w[0].cost > w[1].cost, "{}", f.name());
            }
        }
        // Interpolation on log axes: halfway (geometrically) between 4.3 ms
        // at 2.13 and 5.0 ms at 1.23 costs √(2.13 · 1.23) = 1.619.
        let f = esti_frontier("PaLM 8B", false).unwrap();
        let mid = (4.3f64 * 5.0).sqrt();
        assert!((f.cost_at(mid).unwrap() - (2.13f64 * 1.23).sqrt()).abs() < 1e-9);
        assert_eq!(f.cost_at(3.0), None);
        assert_eq!(f.cost_at(40.0), None);
        assert_eq!(tokens_per_chip_second(0.29).round(), 3448.0);
    }

    #[test]
    fn the_lessons_of_the_esti_figure() {
        let l = esti_lessons().unwrap();
        // The capped point: 540B bf16 at 43 ms lies between 36.5 ms (35.9)
        // and 44.8 ms (22.1): ln(43/36.5)/ln(44.8/36.5) = 0.800 of the way,
        // 35.9 · (22.1/35.9)^0.800 = 24.4, so 59.3 is 2.43× the frontier.
        assert!((l.capped_over_frontier - 2.43).abs() < 0.02, "{l:?}");
        // Flat ends: 8B's last point (37 ms, 0.29) against 18.5 ms, which
        // lies between 11.6 (0.37) and 20.1 (0.31): about 0.315, a saving
        // of about 8 %; each model's last doubling saves under 15 %.
        let (m, s) = l.flat[2];
        assert_eq!(m, "PaLM 8B");
        assert!((s - 0.08).abs() < 0.01, "{s}");
        assert!(
            l.flat.iter().all(|&(_, s)| (0.0..0.15).contains(&s)),
            "{l:?}"
        );
        // int8 reaches no lower cost than bf16 (within 5 %)...
        assert!(
            l.int8_peak.iter().all(|&(_, r)| (0.95..1.05).contains(&r)),
            "{l:?}"
        );
        // ...but at one latency it is cheaper: 62B at 16.5 ms costs 4.06 in
        // bf16 and, between int8's 13.5 ms (3.35) and 17.6 ms (2.2), about
        // 2.3 in int8: more than 1.7× cheaper somewhere.
        let (m, g, _) = l.int8_gain[1];
        assert_eq!(m, "PaLM 62B");
        assert!(g > 1.7, "{g}");
    }

    #[test]
    fn the_speculative_panels_are_one_equation() {
        // Time = 128 · loop / (acceptance · (K + 1)): XSum at K = 3 is
        // 128 · 20.4 / (0.695 · 4) = 939 ms against the 936 read; every
        // reading agrees to 2 %.
        assert!((time_from_loops(128.0, 3, 0.695, 20.4) - 939.3).abs() < 0.1);
        for r in &CHINCHILLA {
            for t in Task::ALL {
                let from_parts = time_from_loops(SPEC_TOKENS, r.draft, r.acceptance(t), r.loop_ms);
                assert!((from_parts / r.time(t) - 1.0).abs() < 0.02, "{r:?} {t:?}");
            }
        }
    }

    #[test]
    fn one_acceptance_probability_per_task_explains_the_curves() {
        // The loop line, by hand: the mean K is 3.5 and the mean loop
        // (14.2 + 16.3 + … + 28.4) / 8 = 21.55 ms; Σ(K − 3.5)(t − 21.55) =
        // 87.7 over Σ(K − 3.5)² = 42 gives 2.088 ms a drafted token, and
        // 21.55 − 3.5 · 2.088 = 14.24 ms with none: a draft step costs 0.147
        // of a target step.
        let fit = loop_fit();
        assert!((fit.per_draft_ms - 2.088).abs() < 0.01, "{fit:?}");
        assert!((fit.base_ms - 14.24).abs() < 0.02, "{fit:?}");
        assert!((fit.draft_cost() - 0.1466).abs() < 0.001, "{fit:?}");
        // HumanEval's drafts are accepted with a ≈ 0.885, XSum's with 0.756:
        // at K = 7, (1 − 0.885^8)/(1 − 0.885)/8 = 0.678, as measured.
        let fit = SpecFit::new().unwrap();
        let (he, xs) = (fit.accept(Task::HumanEval), fit.accept(Task::XSum));
        assert!((he - 0.885).abs() < 0.002, "{he}");
        assert!((xs - 0.7565).abs() < 0.001, "{xs}");
        // The model with those two numbers lands within 2 % of every
        // measured time (at worst 1.8 %: XSum at K = 5, 947 against 964).
        let gap = fit.worst_gap().unwrap();
        assert!((0.015..0.02).contains(&gap), "{gap}");
        // And core's speculative model picks about the draft length the
        // measurements favour: XSum best at 3 measured, 4 modelled (the
        // curve is flat there); HumanEval still improving at 7.
        assert_eq!(measured_best(Task::XSum), (3, 936.0));
        assert_eq!(measured_best(Task::HumanEval), (7, 674.0));
        assert_eq!(fit.best(Task::XSum), Ok(4));
        assert_eq!(fit.best(Task::HumanEval), Ok(7));
        // The search found the minimum: a step either side is worse.
        for t in Task::ALL {
            let a = fit.accept(t);
            let at = |x| acceptance_gap(t, x).unwrap();
            assert!(at(a) <= at(a - 1e-4) && at(a) <= at(a + 1e-4), "{t:?}");
        }
        // Speculation's gain: 1,800 ms down to 674 (2.67×) and to 936 (1.92×).
        assert!((measured_speedup(Task::HumanEval) - 1800.0 / 674.0).abs() < 1e-12);
        assert!((measured_speedup(Task::XSum) - 1800.0 / 936.0).abs() < 1e-12);
    }
}
