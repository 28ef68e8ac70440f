//! GPU values (Part 12): the token batches data parallelism needs inside and
//! across NVLink domains, GPUs per node, and Part 12's other numbers by name.

use super::args::message;
use super::entry::ValueDirective;
use crate::directive::Directive;
use ridgeline_core::dtype::Dtype;
use ridgeline_core::format::grouped;
use ridgeline_core::gpu::{facts, GpuSystem, Scope};

/// The GPU value directives.
pub const VALUES: &[ValueDirective] = &[
    ValueDirective {
        name: "gpu-dp-tokens",
        args: &["chip", "scope"],
        doc: "per-GPU tokens data parallelism needs inside a node (scope=node) or across nodes \
              (scope=network)",
        example: "gpu-dp-tokens chip=h100 scope=node",
        shows: "2,200",
        eval: gpu_dp_tokens,
    },
    ValueDirective {
        name: "gpus-per-node",
        args: &["chip"],
        doc: "GPUs in one NVLink domain",
        example: "gpus-per-node chip=gb200",
        shows: "72",
        eval: gpus_per_node,
    },
    ValueDirective {
        name: "gpu-fact",
        args: &["fact", "chip"],
        doc: "a Part 12 number by name (see `ridgeline_core::gpu::facts::FACTS`); chip= where \
              the fact needs one",
        example: "gpu-fact fact=cuda-cores chip=h100",
        shows: "16,896",
        eval: gpu_fact,
    },
];

/// The GPU system `chip=` names, which the directive needs.
fn system_arg(d: &Directive) -> Result<GpuSystem, String> {
    let id = d
        .arg("chip")
        .ok_or_else(|| format!("`{}` needs chip=", d.name))?;
    GpuSystem::from_id(id, Dtype::Bf16).map_err(message)
}

fn gpu_dp_tokens(d: &Directive) -> Result<String, String> {
    let sys = system_arg(d)?;
    let scope = match d.arg("scope").unwrap_or("node") {
        "node" => Scope::Node,
        "network" => Scope::Network,
        o => return Err(format!("unknown scope `{o}` (node, network)")),
    };
    Ok(grouped(sys.dp_threshold(scope).map_err(message)?))
}

fn gpus_per_node(d: &Directive) -> Result<String, String> {
    Ok(grouped(f64::from(system_arg(d)?.gpus_per_node)))
}

fn gpu_fact(d: &Directive) -> Result<String, String> {
    facts::fact(
        d.arg("fact").ok_or("`gpu-fact` needs fact=")?,
        d.arg("chip"),
    )
}
