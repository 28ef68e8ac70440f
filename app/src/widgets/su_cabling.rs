//! The cabling of one Scalable Unit (`data-widget="su-cabling"`, Part 12,
//! "Beyond the node level"), a static figure: the nodes of an H100 SU, each
//! GPU's own NIC cabled to the leaf switch of its rank (the rails), and every
//! leaf cabled to every spine. The counts (rails, nodes per SU, leaves,
//! spines, cables per leaf and spine, the ports each way) and the pod's
//! totals are `core`'s `gpu::superpod` and `gpu::specs::DGX_SUPERPOD`.

use super::figure::{boxes, drawing, label, rect, strokes, WIDTH};
use leptos::prelude::*;
use ridgeline_core::format::{grouped, si};
use ridgeline_core::gpu::specs::DGX_SUPERPOD;
use ridgeline_core::gpu::superpod::{superpod, SuperPodParams, SuperPodView};

/// The GPU the figure lays out, and the pod it fills.
const GPU: &str = "h100";
const POD_GPUS: u64 = 1024;

/// Rows of the drawing: spines, leaves, nodes.
const SPINE_Y: f64 = 24.0;
const SPINE_H: f64 = 14.0;
const LEAF_Y: f64 = 98.0;
const LEAF_H: f64 = 22.0;
const NODE_Y: f64 = 200.0;
const NODE_H: f64 = 34.0;
const NODE_W: f64 = 110.0;
/// A GPU (with its NIC) inside a node, and the pitch between them.
const GPU_SIDE: f64 = 10.0;
const GPU_PITCH: f64 = 12.5;
/// The height of the drawing.
const HEIGHT: f64 = 276.0;

/// What the figure shows, from `core`.
#[derive(Debug, Clone, PartialEq)]
pub struct Cabling {
    /// The reference pod.
    pub pod: SuperPodView,
    /// The same pod one node short.
    pub short: SuperPodView,
}

/// The pod, and the pod one node short.
pub fn cabling() -> Result<Cabling, String> {
    let pod = superpod(&SuperPodParams::parse(GPU, POD_GPUS)?)?;
    let per_node = u64::from(pod.layout.gpus_per_node);
    let short = superpod(&SuperPodParams::parse(GPU, POD_GPUS - per_node)?)?;
    Ok(Cabling { pod, short })
}

/// The x of the left edge of box `i` of `n` spread over the width with `w` each.
fn spread(i: u32, n: u32, w: f64) -> f64 {
    let pitch = (WIDTH - 16.0) / f64::from(n);
    8.0 + f64::from(i) * pitch + (pitch - w) / 2.0
}

/// The figure.
#[component]
pub fn SuCabling(
    /// The chapter's arguments (none).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    drop(args);
    let c = match cabling() {
        Ok(c) => c,
        Err(e) => return view! { <p class="notice" role="status">{e}</p> }.into_any(),
    };
    let d = &DGX_SUPERPOD;
    let rails = c.pod.rails.unwrap_or(c.pod.layout.gpus_per_node);
    let leaves = d.leaf_switches_per_su;
    let spines = d.spine_switches_per_pod;
    let nodes = d.nodes_per_su;
    let spine_w = ((WIDTH - 16.0) / f64::from(spines) - 4.0).max(2.0);
    let leaf_w = ((WIDTH - 16.0) / f64::from(leaves) - 8.0).max(2.0);
    let mut parts = vec![label(
        8.0,
        14.0,
        "start",
        "fig-title",
        &format!("{spines} spine switches, shared by the pod's SUs"),
    )];
    // Every leaf to every spine.
    let mesh: Vec<_> = (0..leaves)
        .flat_map(|l| {
            let lx = spread(l, leaves, leaf_w) + leaf_w / 2.0;
            (0..spines).map(move |s| {
                let sx = spread(s, spines, spine_w) + spine_w / 2.0;
                vec![(lx, LEAF_Y), (sx, SPINE_Y + SPINE_H)]
            })
        })
        .collect();
    parts.push(strokes(&mesh, "fig-mesh"));
    let spine_boxes: Vec<_> = (0..spines)
        .map(|s| (spread(s, spines, spine_w), SPINE_Y, spine_w, SPINE_H))
        .collect();
    parts.push(boxes(&spine_boxes, "fig-box"));
    // Three nodes drawn: the first two and the last.
    let drawn = [1, 2, nodes];
    let node_x = [8.0, 8.0 + NODE_W + 18.0, WIDTH - 8.0 - NODE_W];
    let gpu_x = |n: usize, k: u32| node_x[n] + 8.0 + f64::from(k) * GPU_PITCH;
    // The rails: GPU k of each drawn node to leaf k; the first rail bold.
    let rail = |k: u32| -> Vec<Vec<(f64, f64)>> {
        let lx = spread(k, leaves, leaf_w) + leaf_w / 2.0;
        (0..drawn.len())
            .map(|n| {
                vec![
                    (gpu_x(n, k) + GPU_SIDE / 2.0, NODE_Y + 4.0),
                    (lx, LEAF_Y + LEAF_H),
                ]
            })
            .collect()
    };
    let others: Vec<_> = (1..rails.min(leaves)).flat_map(rail).collect();
    parts.push(strokes(&others, "fig-link"));
    parts.push(strokes(&rail(0), "fig-link fig-rail"));
    for l in 0..leaves {
        let x = spread(l, leaves, leaf_w);
        parts.push(rect(x, LEAF_Y, leaf_w, LEAF_H, "fig-box"));
        parts.push(label(
            x + leaf_w / 2.0,
            LEAF_Y + 15.5,
            "middle",
            "",
            &format!("L{}", l + 1),
        ));
    }
    let gpu_box = |n: usize, k: u32| (gpu_x(n, k), NODE_Y + 4.0, GPU_SIDE, GPU_SIDE);
    let frames: Vec<_> = (0..drawn.len())
        .map(|n| (node_x[n], NODE_Y, NODE_W, NODE_H))
        .chain((0..drawn.len()).flat_map(|n| (1..rails).map(move |k| gpu_box(n, k))))
        .collect();
    parts.push(boxes(&frames, "fig-box"));
    let firsts: Vec<_> = (0..drawn.len()).map(|n| gpu_box(n, 0)).collect();
    parts.push(boxes(&firsts, "fig-hit"));
    for (n, number) in drawn.iter().enumerate() {
        parts.push(label(
            node_x[n] + NODE_W / 2.0,
            NODE_Y + NODE_H - 5.0,
            "middle",
            "fig-muted",
            &format!("node {number}"),
        ));
    }
    parts.push(label(
        (node_x[1] + NODE_W + node_x[2]) / 2.0,
        NODE_Y + NODE_H / 2.0 + 4.0,
        "middle",
        "fig-title",
        "…",
    ));
    parts.push(label(
        8.0,
        HEIGHT - 8.0,
        "start",
        "fig-muted",
        &format!("{leaves} leaf switches; {rails} GPUs a node, each with a NIC"),
    ));
    let nic = c.pod.nic.map_or_else(|| "—".into(), |w| si(w.0, "B/s", 3));
    let l = &c.pod.layout;
    let g = |x: u64| grouped(x as f64);
    let opt = |x: Option<u64>| x.map_or_else(|| "—".into(), g);
    let summary = format!(
        "Each GPU's NIC sends {nic} each way to the leaf of its rank: rail 1 (drawn bold) joins GPU 1 of all \
         {nodes} nodes of the SU, and so on to rail {rails}. A leaf gives {nodes} ports to the nodes and \
         {} to the spines, {} cables to each of the {spines}: as much up as down, so the tree keeps full \
         bisection bandwidth. The pod: {} SUs, {} nodes, {} leaves and {} spines, {} switches with the \
         NVSwitches. One node short, {} GPUs on {} nodes, it still fills {} SUs.",
        d.leaf_uplink_ports(),
        d.cables_per_leaf_spine,
        opt(l.sus),
        g(l.nodes),
        opt(l.leaf_switches),
        opt(l.spine_switches),
        opt(l.switches()),
        g(c.short.layout.gpus),
        g(c.short.layout.nodes),
        opt(c.short.layout.sus),
    );
    view! {
        <figure class="widget fig su-cabling" data-widget="su-cabling">
            {drawing(
                HEIGHT,
                "One Scalable Unit: each node's GPUs cabled by rank to eight leaf switches, every leaf to every spine",
                parts,
            )}
            <p data-numbers="">{summary}</p>
            <figcaption>
                "Three of the SU's nodes are drawn. The rails mean that GPUs of the same rank in \
                 different nodes are one leaf apart, while GPUs of different ranks meet only at the \
                 spine (or inside their own node, over NVLink). The leaf-to-spine mesh is the same for \
                 every SU of the pod."
            </figcaption>
        </figure>
    }
    .into_any()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_figure_cables_rails_and_the_spine_mesh() {
        let none: Vec<(String, String)> = Vec::new();
        let html = Owner::new().with(|| view! { <SuCabling args=none /> }.to_html());
        assert!(html.contains(r#"data-widget="su-cabling""#));
        // 8 leaves × 16 spines, and 3 drawn nodes × 8 rails.
        let runs = |class| super::super::figure::runs_of(&html, class);
        assert_eq!(runs("fig-mesh"), 8 * 16);
        assert_eq!(runs("fig-link fig-rail"), 3);
        assert_eq!(runs("fig-link"), 3 * 7);
        // 16 spines, 3 nodes and their GPUs, the first of each marked.
        assert_eq!(runs("fig-box"), 16 + 3 + 3 * 7);
        assert_eq!(runs("fig-hit"), 3);
        for l in 1..=8 {
            assert!(html.contains(&format!(">L{l}<")), "leaf {l}");
        }
        assert!(!html.contains(">L9<"));
        assert!(html.contains(">node 32<") && html.contains(">node 1<"));
        assert!(
            html.contains("sends 50 GB/s each way to the leaf of its rank"),
            "{html}"
        );
        assert!(html.contains(
            "A leaf gives 32 ports to the nodes and 32 to the spines, 2 cables to each of the 16"
        ));
        assert!(html.contains("The pod: 4 SUs, 128 nodes, 32 leaves and 16 spines, 560 switches"));
        assert!(html.contains("One node short, 1,016 GPUs on 127 nodes, it still fills 4 SUs."));
    }
}
