//! Native timings of `core`'s hot entry points (figures, not tests). Prints the
//! median of many runs for each; `scripts/bench.sh` runs it with the budgets.
//!
//! `cargo run --release -p ridgeline-core --example bench_core`; the divan
//! benches (`cargo bench -p ridgeline-core`) time the same fixtures in detail.

#[path = "../benches/fixtures.rs"]
mod fixtures;

use ridgeline_core::inference::pareto_series;
use ridgeline_core::sharding::emulator::BENCH_SPECS;
use ridgeline_core::training::{best_plan, evaluate};
use std::time::Instant;

fn median_ms(runs: usize, mut f: impl FnMut() -> bool) -> f64 {
    let mut t: Vec<f64> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            assert!(f(), "the benchmarked call failed");
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[t.len() / 2]
}

fn line(what: &str, ms: f64, budget: Option<f64>) -> bool {
    let ok = budget.is_none_or(|b| ms <= b);
    let b = budget
        .map(|b| format!("{b} ms"))
        .unwrap_or_else(|| "—".into());
    println!(
        "  {what:<58}{ms:>10.4} ms   budget {b:<8} {}",
        if ok { "ok" } else { "OVER BUDGET" }
    );
    ok
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let f = fixtures::fixtures()?;
    let mut ok = true;
    println!("core, native release build (median of many runs)");
    ok &= line(
        "training cost model, full 8960-chip v5p pod (evaluate)",
        median_ms(201, || evaluate(&f.job, &f.pod, &f.par).is_ok()),
        Some(1.0),
    );
    ok &= line(
        "best plan over every scheme, full v5p pod",
        median_ms(51, || best_plan(&f.job, &f.pod).is_ok()),
        None,
    );
    ok &= line(
        "serving Pareto curve, LLaMA 3-70B on 16 v5e (64 points)",
        median_ms(201, || {
            pareto_series(&f.serving, f.precision, &f.slice, 8192.0, 64).is_ok()
        }),
        None,
    );
    for spec in BENCH_SPECS {
        let ms = median_ms(15, || fixtures::emulate(spec, f.v5e));
        ok &= line(&format!("emulator 8×8, 256³: {spec}"), ms, Some(20.0));
    }
    if !ok {
        return Err("a budget was missed".into());
    }
    Ok(())
}
