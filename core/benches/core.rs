//! Statistical micro-benchmarks of `core`'s hot entry points with divan
//! (`cargo bench -p ridgeline-core --bench core`; `scripts/bench.sh` runs it).
//! The budget table is `examples/bench_core.rs`, over the same fixtures.

#![allow(missing_docs)]

use divan::{black_box, Bencher};
use ridgeline_core::inference::pareto_series;
use ridgeline_core::sharding::emulator::BENCH_SPECS;
use ridgeline_core::training::{best_plan, evaluate};

#[path = "fixtures.rs"]
mod fixtures;

fn main() {
    divan::main();
}

#[divan::bench]
fn training_evaluate_full_v5p_pod(b: Bencher) {
    let f = fixtures::fixtures().expect("fixtures");
    b.bench(|| evaluate(black_box(&f.job), &f.pod, &f.par).is_ok());
}

#[divan::bench]
fn training_best_plan_full_v5p_pod(b: Bencher) {
    let f = fixtures::fixtures().expect("fixtures");
    b.bench(|| best_plan(black_box(&f.job), &f.pod).is_ok());
}

#[divan::bench]
fn serving_pareto_64_points(b: Bencher) {
    let f = fixtures::fixtures().expect("fixtures");
    b.bench(|| pareto_series(black_box(&f.serving), f.precision, &f.slice, 8192.0, 64).is_ok());
}

#[divan::bench(args = [0, 1, 2, 3], sample_count = 30)]
fn emulator_8x8_256(b: Bencher, case: usize) {
    let f = fixtures::fixtures().expect("fixtures");
    let spec = BENCH_SPECS[case];
    b.bench(|| fixtures::emulate(black_box(spec), f.v5e));
}
