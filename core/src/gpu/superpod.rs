//! The SuperPod view (Part 12, "Beyond the node level" and Appendix B): a GPU
//! cluster of a chosen size laid out on NVIDIA's reference fat tree, level by
//! level, with each level's cable and switch bandwidth, its oversubscription,
//! the rails the node NICs form, and the bisection bandwidth of the whole.
//!
//! In the DGX H100 (and B200) SuperPod every GPU has its own 400 Gbps NIC, and
//! NIC `k` of every node in a Scalable Unit goes to leaf switch `k`: eight
//! *rails*, so GPUs of the same rank in different nodes are one switch apart.
//! Half of each leaf's 64 ports face the nodes and half face the spine, so the
//! leaf passes up exactly what comes in (no oversubscription). Appendix B
//! counts each InfiniBand switch at half its ports; under that count the
//! spine carries half its cables' bandwidth, and the view shows both.
//!
//! ```
//! use ridgeline_core::gpu::superpod::{superpod, SuperPodParams};
//!
//! let v = superpod(&SuperPodParams::parse("h100", 1024).unwrap()).unwrap();
//! assert_eq!(v.description, "1,024 GPUs fill 128 nodes of 8, in 4 Scalable Units, with 560 switches");
//! assert_eq!(v.rails, Some(8));
//! assert_eq!(v.bisection.0, 51.2e12);
//! ```

use super::network::{ClusterLayout, FatTree, LevelKind};
use super::specs::GB200_SUPERPOD_GPUS;
use super::GpuSystem;
use crate::dtype::Dtype;
use crate::format::count;
use crate::units::BytesPerSec;

/// What the SuperPod view is asked for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SuperPodParams {
    /// The GPU system.
    pub system: GpuSystem,
    /// GPUs in the cluster.
    pub gpus: u64,
}

/// The largest cluster the view lays out.
pub const MAX_GPUS: u64 = 1 << 20;

impl SuperPodParams {
    /// Builds and checks parameters; the message names the field.
    pub fn parse(gpu: &str, gpus: u64) -> Result<SuperPodParams, String> {
        let system = GpuSystem::from_id(gpu, Dtype::Bf16).map_err(|e| format!("gpu: {e}"))?;
        if gpus == 0 || gpus > MAX_GPUS {
            return Err(format!("gpus: must be 1 to {MAX_GPUS} (got {gpus})"));
        }
        Ok(SuperPodParams { system, gpus })
    }
}

/// One level as the view lists it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LevelView {
    /// Which level.
    pub kind: LevelKind,
    /// GPUs under one unit of the level in the reference design.
    pub gpus: u64,
    /// Children per unit (`D_i`).
    pub degree: u32,
    /// Switches per unit, where known.
    pub switches: Option<u32>,
    /// Cable bandwidth into one unit from its children, each way.
    pub cable: BytesPerSec,
    /// Switch bandwidth of one unit (summary-table count).
    pub switch: Option<BytesPerSec>,
    /// Switch bandwidth as Appendix B counts it, where it differs.
    pub switch_appendix_b: Option<BytesPerSec>,
    /// What each child can send at once: the link per child (the book's "collective bandwidth").
    pub per_child: BytesPerSec,
    /// AllGather bandwidth of the level, `D · W / (D − 1)`.
    pub all_gather: BytesPerSec,
    /// Cable bandwidth over what the switches can carry (1 means none; above 1, oversubscribed).
    pub oversubscription: Option<f64>,
    /// The same under Appendix B's switch count.
    pub oversubscription_appendix_b: Option<f64>,
}

/// Everything the SuperPod view shows.
#[derive(Debug, Clone, PartialEq)]
pub struct SuperPodView {
    /// How many nodes, SUs and switches.
    pub layout: ClusterLayout,
    /// The reference design's levels, bottom up.
    pub levels: Vec<LevelView>,
    /// NICs per node, each on its own leaf switch (DGX designs).
    pub rails: Option<u32>,
    /// Bandwidth of one NIC.
    pub nic: Option<BytesPerSec>,
    /// Bisection bandwidth of the cluster above the node, both directions: nodes × node egress.
    pub bisection: BytesPerSec,
    /// `bisection / GPUs`.
    pub bisection_per_gpu: BytesPerSec,
    /// One line with proper plurals.
    pub description: String,
}

impl ClusterLayout {
    /// One line with proper plurals: "1,024 GPUs fill 128 nodes of 8, in 4 Scalable
    /// Units, with 560 switches" (widgets show this instead of "node(s)").
    pub fn describe(&self) -> String {
        describe(self)
    }
}

fn describe(layout: &ClusterLayout) -> String {
    let mut s = format!(
        "{} {} {} of {}",
        count(layout.gpus, "GPU", "GPUs"),
        if layout.gpus == 1 { "fills" } else { "fill" },
        count(layout.nodes, "node", "nodes"),
        layout.gpus_per_node
    );
    if let Some(su) = layout.sus {
        s.push_str(&format!(
            ", in {}",
            count(su, "Scalable Unit", "Scalable Units")
        ));
    }
    if let Some(sw) = layout.switches() {
        s.push_str(&format!(", with {}", count(sw, "switch", "switches")));
    }
    if layout.needs_core_layer {
        s.push_str(", past what two tiers of 64-port switches can join");
    }
    s
}

fn levels(tree: &FatTree) -> Vec<LevelView> {
    tree.levels
        .iter()
        .map(|l| {
            let cable = l.cable_bandwidth();
            let ratio = |sw: Option<BytesPerSec>| sw.map(|s| cable / s);
            LevelView {
                kind: l.kind,
                gpus: l.gpus(),
                degree: l.children,
                switches: l.switches,
                cable,
                switch: l.switch_bandwidth,
                switch_appendix_b: l.switch_bandwidth_appendix_b,
                per_child: l.uplink,
                all_gather: l.effective_bandwidth(),
                // At the node the NVSwitches have headroom; the GPUs' links are the limit.
                oversubscription: ratio(l.switch_bandwidth).map(|r| r.max(1.0)),
                oversubscription_appendix_b: ratio(l.switch_bandwidth_appendix_b)
                    .map(|r| r.max(1.0)),
            }
        })
        .collect()
}

/// Lays the cluster out and prices each level.
pub fn superpod(p: &SuperPodParams) -> Result<SuperPodView, String> {
    let tree = p.system.fat_tree().map_err(|e| format!("gpu: {e}"))?;
    let layout = tree.layout(p.gpus).map_err(|e| format!("gpus: {e}"))?;
    let w_node = p.system.w_node.unwrap_or(BytesPerSec(0.0));
    let bisection = if layout.nodes > 1 {
        w_node * layout.nodes as f64
    } else {
        // One node: the NVLink domain is the whole cluster (Quiz 2: GPUs × W_gpu).
        p.system.w_gpu * p.gpus.min(u64::from(p.system.gpus_per_node)) as f64
    };
    let (rails, nic) = match tree.design {
        Some(d) => (Some(d.leaf_switches_per_su), Some(d.switch.port_bandwidth)),
        None => (
            p.system.w_node.map(|_| p.system.gpus_per_node),
            p.system
                .w_node
                .map(|w| w / f64::from(p.system.gpus_per_node)),
        ),
    };
    Ok(SuperPodView {
        description: describe(&layout),
        levels: levels(&tree),
        rails,
        nic,
        bisection,
        bisection_per_gpu: bisection / p.gpus as f64,
        layout,
    })
}

/// The reference GB200 NVL72 SuperPod (576 GPUs, 8 racks).
pub fn gb200_superpod() -> Result<SuperPodView, String> {
    superpod(&SuperPodParams::parse(
        "gb200",
        u64::from(GB200_SUPERPOD_GPUS.value),
    )?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn view(gpu: &str, n: u64) -> SuperPodView {
        superpod(&SuperPodParams::parse(gpu, n).unwrap()).unwrap()
    }

    #[test]
    fn plurals() {
        assert_eq!(count(1, "node", "nodes"), "1 node");
        assert_eq!(count(2048, "node", "nodes"), "2,048 nodes");
        assert_eq!(
            view("h100", 8).description,
            "8 GPUs fill 1 node of 8, in 1 Scalable Unit, with 12 switches"
        );
        assert_eq!(
            view("h100", 1).description,
            "1 GPU fills 1 node of 8, in 1 Scalable Unit, with 12 switches"
        );
        assert!(view("h100", 1 << 14)
            .description
            .contains("past what two tiers"));
        assert!(SuperPodParams::parse("h100", 0)
            .unwrap_err()
            .starts_with("gpus:"));
        assert!(SuperPodParams::parse("v5p", 8)
            .unwrap_err()
            .starts_with("gpu:"));
    }

    #[test]
    fn dgx_levels_and_oversubscription() {
        let v = view("h100", 1024);
        let over: Vec<_> = v.levels.iter().map(|l| l.oversubscription).collect();
        assert_eq!(over, [Some(1.0), Some(1.0), Some(1.0)]);
        // Appendix B's count leaves the spine at half its cables' bandwidth.
        assert_eq!(v.levels[2].oversubscription_appendix_b, Some(2.0));
        assert_eq!(v.levels[1].oversubscription_appendix_b, Some(1.0));
        assert_eq!(v.nic, Some(BytesPerSec(50e9)));
        assert_eq!(v.bisection_per_gpu.0, 50e9);
        let g = gb200_superpod().unwrap();
        assert_eq!(g.layout.nodes, 8);
        assert_eq!(g.rails, Some(72));
        assert_eq!(g.bisection.0, 8.0 * 3.6e12);
        assert_eq!(g.nic, Some(BytesPerSec(50e9)));
        assert_eq!(view("h100", 8).bisection.0, 3.6e12);
    }

    proptest! {
        #[test]
        fn reader_input_never_panics(gpu in 0usize..4, gpus in 0u64..(2 * MAX_GPUS)) {
            let gpu = ["h100", "b200", "gb200", "a100"][gpu];
            if let Ok(p) = SuperPodParams::parse(gpu, gpus) {
                if let Ok(v) = superpod(&p) {
                    prop_assert!(v.layout.nodes >= 1);
                    prop_assert!(!v.description.contains("(s)"));
                }
            }
        }

        #[test]
        fn full_bisection_gives_every_gpu_the_same_share(nodes in 2u64..=256) {
            let v = view("h100", nodes * 8);
            prop_assert_eq!(v.bisection_per_gpu.0, 50e9);
            prop_assert!(!v.description.contains("(s)"));
        }
    }
}
