//! NVLink nodes (Part 12, "At the node level"): 8 × H100, 8 × B200 and the
//! GB200 NVL72 rack, with what each GPU can push into the NVLink network, what
//! the NVSwitches could carry, what the node actually sustains (the smaller of
//! the two), its bisection bandwidth and its egress into the scale-out fabric;
//! and the switchless P100 and V100 DGX-1 before them, priced pair by pair
//! ([`cube_mesh`]).
//!
//! ```
//! use ridgeline_core::gpu::node::{nvlink_node, NodeParams};
//!
//! let h = nvlink_node(&NodeParams::parse("h100").unwrap()).unwrap();
//! // Quiz 2: 4 NVSwitches could carry 6.4 TB/s, but 8 GPUs only push 3.6 TB/s.
//! assert_eq!(h.switch_total.unwrap().0, 6.4e12);
//! assert_eq!(h.usable.0, 3.6e12);
//! assert_eq!(h.bisection.0, 3.6e12);
//! ```

use super::specs::{cube_mesh_node, nvlink_generation, CubeMeshNode, NvlinkGeneration};
use super::GpuSystem;
use crate::dtype::Dtype;
use crate::hardware::Source;
use crate::units::BytesPerSec;

/// The node types of Part 12's egress table.
pub const NODE_IDS: [&str; 3] = ["h100", "b200", "gb200"];

/// Which node to show.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NodeParams {
    /// The GPU system (its node size comes from the registry).
    pub system: GpuSystem,
}

impl NodeParams {
    /// Parses a GPU id (`h100`, `b200`, `gb200`, or any registry GPU).
    pub fn parse(gpu: &str) -> Result<NodeParams, String> {
        GpuSystem::from_id(gpu, Dtype::Bf16)
            .map(|system| NodeParams { system })
            .map_err(|e| format!("gpu: {e}"))
    }
}

/// Everything the node view shows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NvlinkNode {
    /// GPU name.
    pub name: &'static str,
    /// GPUs in the NVLink domain.
    pub gpus: u32,
    /// The NVLink generation row, where the book has one.
    pub generation: Option<&'static NvlinkGeneration>,
    /// NVLink ports (links) per GPU.
    pub links_per_gpu: Option<u32>,
    /// Bandwidth of one link, each way.
    pub link_bandwidth: Option<BytesPerSec>,
    /// NVSwitches in the node.
    pub switches: Option<u32>,
    /// Each GPU's NVLink egress (`W_gpu`), each way.
    pub per_gpu: BytesPerSec,
    /// Every GPU's egress together: `GPUs × W_gpu`.
    pub gpu_total: BytesPerSec,
    /// The NVSwitches' total: `switches × ports × link bandwidth`, where the book gives ports.
    pub switch_total: Option<BytesPerSec>,
    /// What the node can sustain: the smaller of the two.
    pub usable: BytesPerSec,
    /// Bisection bandwidth counting both directions: half the GPUs each send `W_gpu`
    /// across and as much comes back, `GPUs × W_gpu`.
    pub bisection: BytesPerSec,
    /// The node's egress into the scale-out fabric, where the book gives it.
    pub scale_out: Option<BytesPerSec>,
    /// Scale-out egress per GPU.
    pub scale_out_per_gpu: Option<BytesPerSec>,
    /// `W_gpu / (W_node / GPUs)`: how much faster a GPU talks inside the node than out of it.
    pub inside_over_outside: Option<f64>,
    /// Where the node figures come from.
    pub source: Option<Source>,
}

/// Computes the node view.
pub fn nvlink_node(params: &NodeParams) -> Result<NvlinkNode, String> {
    let s = &params.system;
    let gen = s
        .generation()
        .and_then(|g| nvlink_generation(g.architecture));
    let switches = gen.and_then(|g| g.switches_for(s.gpus_per_node));
    let n = f64::from(s.gpus_per_node);
    let gpu_total = s.w_gpu * n;
    let switch_total = gen
        .and_then(|g| g.switch_bandwidth())
        .zip(switches)
        .map(|(bw, k)| bw * f64::from(k));
    let usable = switch_total.map_or(gpu_total, |t| t.min(gpu_total));
    let per_gpu_out = s.w_node.map(|w| w / n);
    Ok(NvlinkNode {
        name: s.name,
        gpus: s.gpus_per_node,
        generation: gen,
        links_per_gpu: gen.map(|g| g.ports_per_gpu),
        link_bandwidth: gen.map(|g| g.link_bandwidth),
        switches,
        per_gpu: s.w_gpu,
        gpu_total,
        switch_total,
        usable,
        bisection: usable,
        scale_out: s.w_node,
        scale_out_per_gpu: per_gpu_out,
        inside_over_outside: per_gpu_out.map(|o| s.w_gpu / o),
        source: gen.map(|g| g.source),
    })
}

/// How a GPU's `links` NVLink ports spread over `switches` NVSwitches: as evenly
/// as possible, the extra links going to the outermost switches first (the
/// book's 5 + 4 + 4 + 5 for an H100's 18 links over 4 switches).
pub fn links_to_switches(links: u32, switches: u32) -> Vec<u32> {
    if switches == 0 {
        return Vec::new();
    }
    let mut out = vec![links / switches; switches as usize];
    let last = out.len() - 1;
    for i in 0..(links % switches) as usize {
        // Alternate ends: 0, last, 1, last − 1, ...
        let at = if i % 2 == 0 { i / 2 } else { last - i / 2 };
        out[at] += 1;
    }
    out
}

/// The three nodes of Part 12's egress table.
pub fn node_table() -> Result<Vec<NvlinkNode>, String> {
    NODE_IDS
        .iter()
        .map(|id| nvlink_node(&NodeParams::parse(id)?))
        .collect()
}

/// One joined pair of a cube-mesh node.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeshPair {
    /// One GPU (0 to 7).
    pub a: u8,
    /// The other.
    pub b: u8,
    /// Links between them.
    pub links: u8,
    /// What the pair can send each way: `links × link bandwidth`.
    pub bandwidth: BytesPerSec,
}

/// A node from before NVSwitch, priced pair by pair.
#[derive(Debug, Clone, PartialEq)]
pub struct CubeMesh {
    /// The registry row.
    pub node: &'static CubeMeshNode,
    /// Every joined pair with its bandwidth.
    pub pairs: Vec<MeshPair>,
    /// GPUs in the node.
    pub gpus: u32,
    /// Each GPU's NVLink egress: `links × link bandwidth`, each way.
    pub per_gpu: BytesPerSec,
    /// How many of the other seven GPUs each GPU reaches in one hop.
    pub direct_peers: u32,
    /// What crosses the cut between GPUs 0–3 and 4–7, each way.
    pub quad_cut: BytesPerSec,
}

/// Prices a cube-mesh node (`p100`, `v100`).
pub fn cube_mesh(gpu: &str) -> Result<CubeMesh, String> {
    let node = cube_mesh_node(gpu).ok_or_else(|| format!("gpu: no cube-mesh node `{gpu}`"))?;
    let pairs: Vec<MeshPair> = node
        .pairs
        .iter()
        .map(|&(a, b, links)| MeshPair {
            a,
            b,
            links,
            bandwidth: node.link_bandwidth * f64::from(links),
        })
        .collect();
    let quad_cut = pairs
        .iter()
        .filter(|p| (p.a < 4) != (p.b < 4))
        .fold(BytesPerSec(0.0), |sum, p| sum + p.bandwidth);
    let direct_peers = pairs.iter().filter(|p| p.a == 0 || p.b == 0).count();
    let gpus = pairs
        .iter()
        .map(|p| u32::from(p.a.max(p.b)) + 1)
        .max()
        .unwrap_or(0);
    Ok(CubeMesh {
        node,
        gpus,
        per_gpu: node.link_bandwidth * f64::from(node.links_per_gpu),
        direct_peers: u32::try_from(direct_peers).unwrap_or(u32::MAX),
        quad_cut,
        pairs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_books_node_table() {
        let t = node_table().unwrap();
        let row = |i: usize| (t[i].gpus, t[i].per_gpu.0, t[i].scale_out.unwrap().0);
        assert_eq!(row(0), (8, 450e9, 400e9));
        assert_eq!(row(1), (8, 900e9, 400e9));
        assert_eq!(row(2), (72, 900e9, 3.6e12));
        assert_eq!(t[2].switches, Some(18));
        assert_eq!(t[1].switches, Some(2));
        // GB200 keeps 50 GB/s per GPU out of the rack, like an H100 node.
        assert_eq!(t[2].scale_out_per_gpu, t[0].scale_out_per_gpu);
        assert_eq!(t[0].inside_over_outside, Some(9.0));
        assert_eq!(t[0].links_per_gpu, Some(18));
        let a100 = nvlink_node(&NodeParams::parse("a100").unwrap()).unwrap();
        assert!(a100.scale_out.is_none());
        assert_eq!(a100.switches, Some(6));
        assert!(NodeParams::parse("v5e").unwrap_err().starts_with("gpu:"));
    }

    #[test]
    fn links_spread_over_switches() {
        assert_eq!(links_to_switches(18, 4), [5, 4, 4, 5]);
        assert_eq!(links_to_switches(18, 2), [9, 9]);
        assert_eq!(links_to_switches(18, 18), [1; 18]);
        assert_eq!(links_to_switches(12, 6), [2; 6]);
        assert_eq!(links_to_switches(7, 4), [2, 2, 1, 2]);
        assert!(links_to_switches(18, 0).is_empty());
        for (l, s) in [(18, 4), (7, 3), (100, 7), (3, 5)] {
            assert_eq!(links_to_switches(l, s).iter().sum::<u32>(), l);
        }
    }

    #[test]
    fn cube_meshes_reach_some_peers_directly() {
        let p = cube_mesh("p100").unwrap();
        assert_eq!(p.per_gpu.0, 80e9);
        assert!(p.pairs.iter().all(|q| q.bandwidth.0 == 20e9));
        assert_eq!(p.quad_cut.0, 80e9);
        let v = cube_mesh("v100").unwrap();
        assert_eq!(v.per_gpu.0, 150e9);
        // Doubled pairs carry 50 GB/s; the quads are joined by 2 + 2 + 1 + 1 links.
        assert_eq!(v.pairs.iter().filter(|q| q.bandwidth.0 == 50e9).count(), 8);
        assert_eq!(v.quad_cut.0, 150e9);
        // Every GPU of either reaches 4 of its 7 peers in one hop, the same 4 in both.
        for m in [&p, &v] {
            assert_eq!(m.gpus, 8);
            assert_eq!(m.direct_peers, 4);
            for g in 0..8u8 {
                assert_eq!(m.pairs.iter().filter(|q| q.a == g || q.b == g).count(), 4);
            }
        }
        // An H100 node's switches give every pair the GPU's whole 450 GB/s.
        let h = nvlink_node(&NodeParams::parse("h100").unwrap()).unwrap();
        assert_eq!(h.per_gpu.0 / v.per_gpu.0, 3.0);
        assert_eq!(
            cube_mesh("a100").unwrap_err(),
            "gpu: no cube-mesh node `a100`"
        );
    }
}
