//! Choosing a GPU: the picker and the checks every GPU widget (`gpu`,
//! `gpu-collectives`, `gpu-parallelism`, `nvlink-node`) shares, for a registry
//! GPU or one of the reader's own chips wired as an NVLink domain.

use leptos::prelude::*;
use ridgeline_core::dtype::Dtype;
use ridgeline_core::gpu::collectives::{achievable, measured_link_share};
use ridgeline_core::gpu::GpuSystem;
use ridgeline_core::hardware::{Chip, Topology};
use ridgeline_core::roofline::derate::Derate;

use crate::input::short;

/// Whether a chip is a GPU in an NVLink domain: what the GPU widgets offer
/// and accept.
pub fn is_gpu(c: &'static Chip) -> bool {
    matches!(c.topology, Topology::NvlinkDomain { .. })
}

/// A GPU picker's options: the registry's GPUs, then the reader's own GPUs
/// (chips wired as an NVLink domain) under "Yours".
pub fn gpu_options<S: Into<String>>(chosen: impl Fn() -> S + Send + Sync + 'static) -> AnyView {
    super::controls::chip_options(is_gpu, chosen)
}

/// The GPU the reader named: a registry GPU or one of the reader's own
/// (by `my:NAME` or its compact text, as every chip picker takes them).
pub fn find_gpu_chip(value: &str) -> Result<&'static Chip, String> {
    let c = crate::library::resolve_chip(value.trim())
        .ok_or_else(|| format!("gpu: unknown GPU “{}”", short(value)))?;
    if is_gpu(c) {
        Ok(c)
    } else {
        Err(format!("gpu: {} is not a GPU in an NVLink domain", c.name))
    }
}

/// The id of the GPU the reader named ([`find_gpu_chip`]).
pub fn find_gpu(value: &str) -> Result<&'static str, String> {
    find_gpu_chip(value).map(|c| c.id)
}

/// A GPU widget's Achievable preset for GPU `id` (core's
/// [`ridgeline_core::gpu::collectives::achievable`]): the link share the book
/// measured on it, or the quoted links where it measured none, and with
/// `flops`, Part 1's share of peak FLOPs/s; every other share one.
pub fn achievable_shares(id: &str, flops: bool) -> Derate {
    let Ok(sys) = gpu_system(id) else {
        return Derate::PEAK;
    };
    let d = achievable(&sys);
    let d = if flops {
        d
    } else {
        d.with_flops(1.0).unwrap_or(d)
    };
    d.with_hbm(1.0).unwrap_or(d)
}

/// The label of a GPU widget's Achievable preset for GPU `id`: the link
/// share the book measured on it, or that it measured none, and with
/// `flops`, Part 1's share of peak FLOPs/s.
pub fn achievable_label(id: &str, flops: bool) -> String {
    let Ok(sys) = gpu_system(id) else {
        return "Achievable".into();
    };
    let links = match measured_link_share(&sys) {
        Some(s) => format!("links at {:.0}%, the book's NCCL measurement", 100.0 * s),
        None => "no measured link share for this GPU: links quoted".into(),
    };
    if flops {
        let f = Derate::achievable(sys.chip).flops();
        format!(
            "Achievable ({:.0}% of peak FLOPs/s, Part 1; {links})",
            100.0 * f
        )
    } else {
        format!("Achievable ({links})")
    }
}

/// The GPU widgets' system for GPU `id`, computing in bf16, or why not.
pub fn gpu_system(id: &str) -> Result<GpuSystem, String> {
    GpuSystem::new(find_gpu_chip(id)?, Dtype::Bf16).map_err(|e| format!("gpu: {e}"))
}
