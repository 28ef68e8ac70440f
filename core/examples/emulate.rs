//! Times one emulation of a 256×256×256 matmul on an 8×8 mesh, with its trace.
//!
//! Run with `cargo run --release -p ridgeline-core --example emulate`.

use ridgeline_core::emulator::{run, BENCH_SPECS};
use ridgeline_core::hardware::chip;
use ridgeline_core::sharding::plan::MatmulPlan;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let v5e = chip("v5e").ok_or("no v5e in the registry")?;
    for spec in BENCH_SPECS {
        let plan = MatmulPlan::parse(spec, "X=8, Y=8", "I=256, J=256, K=256", v5e)?;
        let start = Instant::now();
        let out = run(&plan, 1)?;
        let elapsed = start.elapsed();
        let transfers: usize = out.trace.steps.iter().map(|s| s.transfers.len()).sum();
        println!(
            "{spec}: {:.2} ms, {} trace steps, {transfers} transfers",
            elapsed.as_secs_f64() * 1e3,
            out.trace.steps.len()
        );
    }
    Ok(())
}
