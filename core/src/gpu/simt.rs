//! SIMT and warp divergence (Part 12, "What Is a GPU?"), stepped cycle by cycle.
//!
//! A warp is 32 threads that share one instruction stream: in each cycle the
//! warp scheduler issues one instruction, and every lane whose thread is on
//! that path executes it. When a branch splits the warp, the scheduler runs
//! the taken path with the other lanes masked off, then the other path with
//! the first lanes masked, and the lanes reconverge after the branch. The
//! result per thread is what each thread would compute alone; the price is
//! cycles in which some lanes sit idle.
//!
//! The example program (the shape of the book's figure) is
//!
//! ```text
//! x = lane
//! if lane % modulus < threshold { x = x + 1; x = x + 2; ... }   // then_ops instructions
//! else                          { x = x * 2; x = x * 2; ... }   // else_ops instructions
//! x = x + 100; ...                                              // after_ops instructions
//! ```
//!
//! ```
//! use ridgeline_core::gpu::simt::{run, DivergenceParams};
//!
//! // Half the warp takes each side: both paths run one after the other.
//! let p = DivergenceParams { lanes: 32, modulus: 32, threshold: 16, then_ops: 2, else_ops: 2, after_ops: 1 };
//! let r = run(&p).unwrap();
//! assert_eq!(r.cycles, 5);
//! assert!((r.utilization() - 0.6).abs() < 1e-12);
//! ```

/// The most lanes in a warp.
pub const WARP: u32 = 32;

/// The most instructions in one branch of the example.
pub const MAX_OPS: u32 = 16;

/// The divergence example's knobs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DivergenceParams {
    /// Threads in the warp (1 to 32).
    pub lanes: u32,
    /// The branch tests `lane % modulus < threshold`.
    pub modulus: u32,
    /// See `modulus`.
    pub threshold: u32,
    /// Instructions on the taken path.
    pub then_ops: u32,
    /// Instructions on the other path.
    pub else_ops: u32,
    /// Instructions after the branches reconverge.
    pub after_ops: u32,
}

impl Default for DivergenceParams {
    fn default() -> Self {
        DivergenceParams {
            lanes: WARP,
            modulus: WARP,
            threshold: 4,
            then_ops: 2,
            else_ops: 2,
            after_ops: 1,
        }
    }
}

impl DivergenceParams {
    /// Checks every field; the message names the bad one.
    pub fn validate(&self) -> Result<(), String> {
        if self.lanes == 0 || self.lanes > WARP {
            return Err(format!("lanes: must be 1 to {WARP} (got {})", self.lanes));
        }
        if self.modulus == 0 {
            return Err("modulus: must be at least 1".into());
        }
        if self.threshold > self.modulus {
            return Err(format!(
                "threshold: must be at most the modulus {} (got {})",
                self.modulus, self.threshold
            ));
        }
        for (name, v) in [
            ("then_ops", self.then_ops),
            ("else_ops", self.else_ops),
            ("after_ops", self.after_ops),
        ] {
            if v > MAX_OPS {
                return Err(format!("{name}: at most {MAX_OPS} instructions (got {v})"));
            }
        }
        Ok(())
    }

    /// Whether thread `lane` takes the `if` path.
    pub fn takes(&self, lane: u32) -> bool {
        lane % self.modulus.max(1) < self.threshold
    }
}

/// Which part of the program a cycle belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Phase {
    /// The `if` path.
    Then,
    /// The `else` path.
    Else,
    /// After reconvergence.
    Converged,
}

/// One issued instruction.
#[derive(Debug, Clone, PartialEq)]
pub struct SimtStep {
    /// Cycle number, from 0.
    pub cycle: u32,
    /// Path the instruction is on.
    pub phase: Phase,
    /// The instruction as text (`x = x + 1`).
    pub instruction: String,
    /// Bit `i` set when lane `i` executes this cycle.
    pub active: u32,
    /// Every lane's `x` after the cycle.
    pub values: Vec<i64>,
}

impl SimtStep {
    /// Lanes that execute this cycle.
    pub fn active_lanes(&self) -> u32 {
        self.active.count_ones()
    }
}

/// The stepped run.
#[derive(Debug, Clone, PartialEq)]
pub struct SimtRun {
    /// Threads in the warp.
    pub lanes: u32,
    /// Every issued instruction in order.
    pub steps: Vec<SimtStep>,
    /// Cycles the warp took.
    pub cycles: u32,
    /// Cycles had every lane taken the busier path the warp actually needs: the longer
    /// of the paths run plus the common tail (a bound no divergent warp beats).
    pub cycles_without_divergence: u32,
    /// Whether both paths ran.
    pub diverged: bool,
    /// Each lane's final `x`.
    pub result: Vec<i64>,
}

impl SimtRun {
    /// Lane-cycles that did work over lane-cycles available.
    pub fn utilization(&self) -> f64 {
        let busy: u32 = self.steps.iter().map(SimtStep::active_lanes).sum();
        let total = self.lanes * self.cycles;
        if total == 0 {
            1.0
        } else {
            f64::from(busy) / f64::from(total)
        }
    }
}

fn then_op(i: u32, x: i64) -> i64 {
    x + i64::from(i) + 1
}

fn else_op(x: i64) -> i64 {
    x * 2
}

fn after_op(x: i64) -> i64 {
    x + 100
}

/// What one thread computes running alone (the reference the warp must match).
pub fn scalar(params: &DivergenceParams, lane: u32) -> i64 {
    let mut x = i64::from(lane);
    if params.takes(lane) {
        for i in 0..params.then_ops {
            x = then_op(i, x);
        }
    } else {
        for _ in 0..params.else_ops {
            x = else_op(x);
        }
    }
    for _ in 0..params.after_ops {
        x = after_op(x);
    }
    x
}

/// Runs the warp: the taken path under its mask, then the other, then the common tail.
pub fn run(params: &DivergenceParams) -> Result<SimtRun, String> {
    params.validate()?;
    let lanes = params.lanes;
    let mut x: Vec<i64> = (0..lanes).map(i64::from).collect();
    let taken: u32 = (0..lanes)
        .filter(|&l| params.takes(l))
        .fold(0, |m, l| m | (1 << l));
    let all: u32 = if lanes == WARP {
        u32::MAX
    } else {
        (1u32 << lanes) - 1
    };
    let other = all & !taken;
    let mut steps = Vec::new();
    let mut issue =
        |phase: Phase, text: String, mask: u32, x: &mut Vec<i64>, f: &dyn Fn(i64) -> i64| {
            for (lane, v) in x.iter_mut().enumerate() {
                if mask & (1 << lane) != 0 {
                    *v = f(*v);
                }
            }
            steps.push(SimtStep {
                cycle: 0,
                phase,
                instruction: text,
                active: mask,
                values: x.clone(),
            });
        };
    if taken != 0 {
        for i in 0..params.then_ops {
            issue(
                Phase::Then,
                format!("x = x + {}", i + 1),
                taken,
                &mut x,
                &|v| then_op(i, v),
            );
        }
    }
    if other != 0 {
        for _ in 0..params.else_ops {
            issue(Phase::Else, "x = x * 2".into(), other, &mut x, &else_op);
        }
    }
    for _ in 0..params.after_ops {
        issue(
            Phase::Converged,
            "x = x + 100".into(),
            all,
            &mut x,
            &after_op,
        );
    }
    for (i, s) in steps.iter_mut().enumerate() {
        s.cycle = u32::try_from(i).unwrap_or(u32::MAX);
    }
    let longer = if taken == 0 {
        params.else_ops
    } else if other == 0 {
        params.then_ops
    } else {
        params.then_ops.max(params.else_ops)
    };
    Ok(SimtRun {
        lanes,
        cycles: u32::try_from(steps.len()).unwrap_or(u32::MAX),
        cycles_without_divergence: longer + params.after_ops,
        diverged: taken != 0 && other != 0,
        steps,
        result: x,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn validation_names_the_field() {
        let bad = |p: DivergenceParams| run(&p).unwrap_err();
        let d = DivergenceParams::default();
        assert!(bad(DivergenceParams { lanes: 33, ..d }).starts_with("lanes"));
        assert!(bad(DivergenceParams { modulus: 0, ..d }).starts_with("modulus"));
        assert!(bad(DivergenceParams { threshold: 40, ..d }).starts_with("threshold"));
        assert!(bad(DivergenceParams { else_ops: 99, ..d }).starts_with("else_ops"));
    }

    #[test]
    fn uniform_warps_do_not_diverge() {
        let p = DivergenceParams {
            threshold: 0,
            ..DivergenceParams::default()
        };
        let r = run(&p).unwrap();
        assert!(!r.diverged);
        assert_eq!(r.cycles, p.else_ops + p.after_ops);
        assert_eq!(r.utilization(), 1.0);
        // Even lanes only: every other lane idles on each path.
        let even = DivergenceParams {
            modulus: 2,
            threshold: 1,
            ..DivergenceParams::default()
        };
        let r = run(&even).unwrap();
        assert!(r.diverged);
        assert_eq!(r.steps[0].active, 0x5555_5555);
    }

    proptest! {
        #[test]
        fn the_warp_computes_what_each_thread_would_alone(
            lanes in 1u32..=32, modulus in 1u32..40, t in 0u32..40,
            then_ops in 0u32..=16, else_ops in 0u32..=16, after_ops in 0u32..=16,
        ) {
            let p = DivergenceParams { lanes, modulus, threshold: t.min(modulus), then_ops, else_ops, after_ops };
            let r = run(&p).unwrap();
            for lane in 0..lanes {
                prop_assert_eq!(r.result[lane as usize], scalar(&p, lane));
            }
            // A divergent warp pays for both paths; a uniform one for its own.
            let expect = if r.diverged { then_ops + else_ops } else { r.cycles_without_divergence - after_ops } + after_ops;
            prop_assert_eq!(r.cycles, expect);
            prop_assert!(r.cycles >= r.cycles_without_divergence);
            prop_assert!(r.utilization() <= 1.0);
        }
    }
}
