//! The inputs every `core` benchmark uses, shared by the divan benches
//! (`benches/core.rs`) and the budget table (`examples/bench_core.rs`).

use ridgeline_core::dtype::Dtype;
use ridgeline_core::hardware::{chip, Chip};
use ridgeline_core::inference::{Precision, ServingModel, ServingSlice};
use ridgeline_core::model::config::model;
use ridgeline_core::sharding::emulator::run;
use ridgeline_core::sharding::plan::MatmulPlan;
use ridgeline_core::training::{Cluster, Job, Parallelism};

/// LLaMA 3-70B training on a full 8960-chip v5p pod, and serving on 16 v5e.
pub struct Fixtures {
    /// 4M-token batches of 4096-token sequences.
    pub job: Job,
    /// One full v5p pod.
    pub pod: Cluster,
    /// FSDP × tensor parallelism over the pod.
    pub par: Parallelism,
    /// LLaMA 3-70B for serving.
    pub serving: ServingModel,
    /// 16 v5e chips, tensor-parallel.
    pub slice: ServingSlice,
    /// int8 weights.
    pub precision: Precision,
    /// The chip the emulator's plans are costed on.
    pub v5e: &'static Chip,
}

/// Builds the fixtures from the registry.
pub fn fixtures() -> Result<Fixtures, Box<dyn std::error::Error>> {
    let v5p = chip("v5p").ok_or("no v5p")?;
    let v5e = chip("v5e").ok_or("no v5e")?;
    let llama = model("llama3-70b").ok_or("no llama3-70b")?.config;
    Ok(Fixtures {
        job: Job::new(llama, 4_194_304.0, 4096.0)?,
        pod: Cluster::full_pod(v5p, 1)?,
        par: Parallelism::fsdp_tensor(2240, 4, 2, 1),
        serving: ServingModel::preset("llama3-70b")?,
        slice: ServingSlice::new(v5e, 16)?.with_tp(16)?,
        precision: Precision::stored(Dtype::Int8),
        v5e,
    })
}

/// Plans and emulates `spec` on an 8×8 mesh with 256×256×256 arrays, with a trace.
pub fn emulate(spec: &str, chip: &'static Chip) -> bool {
    MatmulPlan::parse(spec, "X=8, Y=8", "I=256, J=256, K=256", chip)
        .ok()
        .and_then(|plan| run(&plan, 1).ok())
        .is_some()
}
