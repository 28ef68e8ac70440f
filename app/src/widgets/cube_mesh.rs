//! The NVLink nodes before NVSwitch (`data-widget="cube-mesh"`, Part 12, "At
//! the node level"), a static figure: the P100 and V100 DGX-1, eight GPUs in
//! NVIDIA's hybrid cube-mesh, each link drawn (a doubled pair as two lines),
//! with the bandwidth of a pair and of a GPU under each. The links, pairs
//! and bandwidths are `core`'s `gpu::node::cube_mesh`; the switched H100
//! node they are set against is `core`'s `nvlink_node`.

use super::figure::{boxes, drawing, label, strokes};
use leptos::prelude::*;
use ridgeline_core::format::si;
use ridgeline_core::gpu::node::{cube_mesh, nvlink_node, CubeMesh, NodeParams};
use ridgeline_core::gpu::specs::CUBE_MESH_NODES;

/// Where GPU `g` sits: (column, row) of a 4 × 2 grid. GPUs 0–3 form the left
/// quad and 4–7 the right one, placed so that only GPU 0's and GPU 3's links
/// to their twins must go round the outside.
const PLACE: [(u8, u8); 8] = [
    (0, 0),
    (1, 0),
    (1, 1),
    (0, 1),
    (3, 0),
    (2, 0),
    (2, 1),
    (3, 1),
];

/// A panel's height, its grid and a GPU box.
const PANEL: f64 = 206.0;
const COL: f64 = 96.0;
const LEFT: f64 = 56.0;
const ROW: f64 = 70.0;
const BOX_W: f64 = 44.0;
const BOX_H: f64 = 26.0;
/// Gap between the two lines of a doubled pair.
const DOUBLE: f64 = 5.0;

fn bw(x: f64) -> String {
    si(x, "B/s", 3)
}

/// The centre of GPU `g` in a panel whose top is `top`.
fn centre(g: u8, top: f64) -> (f64, f64) {
    let (c, r) = PLACE[usize::from(g)];
    (LEFT + f64::from(c) * COL, top + 72.0 + f64::from(r) * ROW)
}

/// One link between `a` and `b`, `k` of `n` between that pair: a run of points.
fn link(a: u8, b: u8, k: u8, n: u8, top: f64) -> Vec<(f64, f64)> {
    let ((x1, y1), (x2, y2)) = (centre(a, top), centre(b, top));
    // Offsets of the parallel lines of a doubled pair: −2.5 and 2.5.
    let off = (f64::from(k) - f64::from(n - 1) / 2.0) * DOUBLE;
    if (y1 - y2).abs() < 1.0 && (x1 - x2).abs() > 2.0 * COL {
        // Twins at either end of a row: round the outside, over or under.
        let out = if y1 < top + 100.0 { -1.0 } else { 1.0 };
        // The nearer of a doubled pair's two runs is also the narrower, so they never cross.
        let y = y1 + out * (BOX_H / 2.0 + 19.0 + off);
        return vec![(x1 - off, y1), (x1 - off, y), (x2 + off, y), (x2 + off, y2)];
    }
    let (dx, dy) = (x2 - x1, y2 - y1);
    let len = dx.hypot(dy);
    let (nx, ny) = (-dy / len * off, dx / len * off);
    vec![(x1 + nx, y1 + ny), (x2 + nx, y2 + ny)]
}

/// One node's panel: its title, links and GPUs.
fn panel(m: &CubeMesh, top: f64) -> Vec<AnyView> {
    let n = m.node;
    let mut parts = vec![label(
        8.0,
        top + 16.0,
        "start",
        "fig-title",
        &format!(
            "{} ({}): {} NVLink {} links per GPU",
            n.gpu, n.system, n.links_per_gpu, n.nvlink
        ),
    )];
    let runs: Vec<_> = m
        .pairs
        .iter()
        .flat_map(|p| (0..p.links).map(move |k| link(p.a, p.b, k, p.links, top)))
        .collect();
    parts.push(strokes(&runs, "fig-link"));
    let gpus: Vec<u8> = (0..m.gpus)
        .filter_map(|g| u8::try_from(g).ok())
        .take(PLACE.len())
        .collect();
    let frames: Vec<_> = gpus
        .iter()
        .map(|&g| {
            let (x, y) = centre(g, top);
            (x - BOX_W / 2.0, y - BOX_H / 2.0, BOX_W, BOX_H)
        })
        .collect();
    parts.push(boxes(&frames, "fig-box"));
    for &g in &gpus {
        let (x, y) = centre(g, top);
        parts.push(label(x, y + 4.5, "middle", "", &format!("GPU {g}")));
    }
    let single = bw(n.link_bandwidth.0);
    let pairs = if m.pairs.iter().any(|p| p.links > 1) {
        format!(
            "one line: {single} each way; two: {}",
            bw(n.link_bandwidth.0 * 2.0)
        )
    } else {
        format!("every line: one link, {single} each way")
    };
    parts.push(label(8.0, top + PANEL - 8.0, "start", "fig-muted", &pairs));
    parts
}

/// The figure.
#[component]
pub fn CubeMeshFigure(
    /// The chapter's arguments (none).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    drop(args);
    let meshes: Result<Vec<CubeMesh>, String> =
        CUBE_MESH_NODES.iter().map(|n| cube_mesh(n.gpu)).collect();
    let h100 = NodeParams::parse("h100").and_then(|p| nvlink_node(&p));
    let (meshes, h100) = match (meshes, h100) {
        (Ok(m), Ok(h)) => (m, h),
        (Err(e), _) | (_, Err(e)) => {
            return view! { <p class="notice" role="status">{e}</p> }.into_any();
        }
    };
    let mut parts = Vec::new();
    for (i, m) in meshes.iter().enumerate() {
        parts.extend(panel(m, i as f64 * PANEL));
    }
    let sentences: Vec<String> = meshes
        .iter()
        .map(|m| {
            format!(
                "A {} sends {} into NVLink and reaches {} of its {} peers in one hop; {} cross between the two quads, each way.",
                m.node.gpu,
                bw(m.per_gpu.0),
                m.direct_peers,
                m.gpus - 1,
                bw(m.quad_cut.0),
            )
        })
        .collect();
    let summary = format!(
        "{} An H100 node's NVSwitches give every GPU its whole {} to any peer, one hop away.",
        sentences.join(" "),
        bw(h100.per_gpu.0),
    );
    view! {
        <figure class="widget fig cube-mesh" data-widget="cube-mesh">
            {drawing(
                PANEL * meshes.len() as f64,
                "The P100 and V100 DGX-1 nodes: eight GPUs joined directly in a hybrid cube-mesh",
                parts,
            )}
            <p data-numbers="">{summary}</p>
            <figcaption>
                "Before NVSwitch, a node's GPUs were wired to each other. Each quad (left, right) is \
                 fully joined, and every GPU has one more link, or two, to its twin in the other quad: \
                 the edges of a cube plus the diagonals of two faces. The V100 spends its extra links \
                 doubling some pairs. A GPU talks at full speed only to its direct peers; to the rest, \
                 traffic takes two hops and shares the links on the way."
            </figcaption>
        </figure>
    }
    .into_any()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn html() -> String {
        let none: Vec<(String, String)> = Vec::new();
        Owner::new().with(|| view! { <CubeMeshFigure args=none /> }.to_html())
    }

    #[test]
    fn the_figure_draws_every_link_of_both_nodes() {
        let html = html();
        assert!(html.contains(r#"data-widget="cube-mesh""#));
        assert!(
            html.contains("P100 (DGX-1): 4 NVLink 1.0 links per GPU"),
            "{html}"
        );
        assert!(
            html.contains("V100 (DGX-1): 6 NVLink 2.0 links per GPU"),
            "{html}"
        );
        // Sixteen GPU boxes, eight per node.
        assert_eq!(html.matches(">GPU 7<").count(), 2);
        assert_eq!(super::super::figure::runs_of(&html, "fig-box"), 16);
        // Each link is a run: P100 has 16 links, V100 24.
        assert_eq!(super::super::figure::runs_of(&html, "fig-link"), 16 + 24);
        assert!(html.contains("every line: one link, 20 GB/s each way"));
        assert!(html.contains("one line: 25 GB/s each way; two: 50 GB/s"));
        assert!(html.contains("A P100 sends 80 GB/s into NVLink and reaches 4 of its 7 peers"));
        assert!(html.contains("150 GB/s cross between the two quads"));
        assert!(html.contains("its whole 450 GB/s to any peer"));
    }

    #[test]
    fn only_twins_at_the_ends_of_a_row_go_round() {
        // Every other pair is straight, and no straight link passes through a
        // third GPU's centre.
        for n in &CUBE_MESH_NODES {
            for &(a, b, _) in n.pairs {
                let ((x1, y1), (x2, y2)) = (centre(a, 0.0), centre(b, 0.0));
                if (y1 - y2).abs() < 1.0 && (x1 - x2).abs() > 2.0 * COL {
                    assert_eq!(a.abs_diff(b), 4, "{a}-{b}");
                    continue;
                }
                for g in (0..8u8).filter(|g| *g != a && *g != b) {
                    let (x, y) = centre(g, 0.0);
                    let cross = (x2 - x1) * (y - y1) - (y2 - y1) * (x - x1);
                    let within = (x - x1) * (x - x2) <= 0.0 && (y - y1) * (y - y2) <= 0.0;
                    assert!(cross.abs() > 1.0 || !within, "{a}-{b} through {g}");
                }
            }
        }
    }
}
