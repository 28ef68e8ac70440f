//! Entry points the benchmark script calls in the browser (through
//! `window.wasmBindings`, which each bundle's boot module sets), so `core` is timed as the reader's browser runs it.

#[cfg(widget = "sharding")]
use ridgeline_core::hardware::chip;
#[cfg(widget = "sharding")]
use ridgeline_core::sharding::emulator::{run, BENCH_SPECS};
#[cfg(widget = "sharding")]
use ridgeline_core::sharding::plan::MatmulPlan;
use wasm_bindgen::prelude::wasm_bindgen;

fn now() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map(|p| p.now())
        .unwrap_or(0.0)
}

/// Median milliseconds of `repeats` emulations (plan + run + trace) of
/// `BENCH_SPECS[case]` on an 8×8 mesh with 256×256×256 arrays; -1 on error.
/// Only the bundle that carries the emulator (the sharding widget) exports it.
#[cfg(widget = "sharding")]
#[wasm_bindgen]
pub fn bench_emulator(case: usize, repeats: u32) -> f64 {
    let (Some(spec), Some(v5e)) = (BENCH_SPECS.get(case), chip("v5e")) else {
        return -1.0;
    };
    let mut times = Vec::new();
    for _ in 0..repeats.clamp(1, 100) {
        let t0 = now();
        let ok = MatmulPlan::parse(spec, "X=8, Y=8", "I=256, J=256, K=256", v5e)
            .ok()
            .and_then(|plan| run(&plan, 1).ok())
            .is_some();
        if !ok {
            return -1.0;
        }
        times.push(now() - t0);
    }
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

/// The number of specs [`bench_emulator`] knows.
#[cfg(widget = "sharding")]
#[wasm_bindgen]
pub fn bench_emulator_cases() -> usize {
    BENCH_SPECS.len()
}

/// Median milliseconds of `repeats` serving simulations of `requests` requests
/// with the serving widget's settings (`core::inference::serving_engine`); -1 on error.
/// Only the bundle that carries the serving widget exports it.
#[cfg(widget = "serving-engine")]
#[wasm_bindgen]
pub fn bench_serving(requests: u32, repeats: u32) -> f64 {
    use crate::widgets::serving_engine::EngineParams;
    use ridgeline_core::inference::serving_engine::{simulate, SimParams};
    let sim = SimParams {
        requests,
        ..EngineParams::default().sim
    };
    let mut times = Vec::new();
    for _ in 0..repeats.clamp(1, 100) {
        let t0 = now();
        if simulate(&sim).is_err() {
            return -1.0;
        }
        times.push(now() - t0);
    }
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}
