//! Native timings of `core`'s hot entry points (figures, not tests). Prints the
//! median of many runs for each; `scripts/bench.sh` runs it with the budgets.
//!
//! `cargo run --release -p ridgeline-core --example bench_core`

use ridgeline_core::emulator::{run, BENCH_SPECS};
use ridgeline_core::hardware::chip;
use ridgeline_core::inference::{pareto_series, Precision, ServingModel, ServingSlice};
use ridgeline_core::models::model;
use ridgeline_core::sharding::plan::MatmulPlan;
use ridgeline_core::training::{best_plan, evaluate, Cluster, Job, Parallelism};
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
    let v5p = chip("v5p").ok_or("no v5p")?;
    let v5e = chip("v5e").ok_or("no v5e")?;
    let llama = model("llama3-70b").ok_or("no llama3-70b")?.config;
    let job = Job::new(llama, 4_194_304.0, 4096.0)?;
    let pod = Cluster::full_pod(v5p, 1)?;
    let mut ok = true;
    println!("core, native release build (median of many runs)");
    let par = Parallelism::fsdp_tensor(2240, 4, 2, 1);
    ok &= line(
        "training cost model, full 8960-chip v5p pod (evaluate)",
        median_ms(201, || evaluate(&job, &pod, &par).is_ok()),
        Some(1.0),
    );
    ok &= line(
        "best plan over every scheme, full v5p pod",
        median_ms(51, || best_plan(&job, &pod).is_ok()),
        None,
    );
    let serving = ServingModel::preset("llama3-70b")?;
    let slice = ServingSlice::new(v5e, 16)?.with_tp(16)?;
    let p = Precision::stored(ridgeline_core::dtype::Dtype::Int8);
    ok &= line(
        "serving Pareto curve, LLaMA 3-70B on 16 v5e (64 points)",
        median_ms(201, || {
            pareto_series(&serving, p, &slice, 8192.0, 64).is_ok()
        }),
        None,
    );
    for spec in BENCH_SPECS {
        let ms = median_ms(15, || {
            MatmulPlan::parse(spec, "X=8, Y=8", "I=256, J=256, K=256", v5e)
                .ok()
                .and_then(|plan| run(&plan, 1).ok())
                .is_some()
        });
        ok &= line(&format!("emulator 8×8, 256³: {spec}"), ms, Some(20.0));
    }
    if !ok {
        return Err("a budget was missed".into());
    }
    Ok(())
}
