//! Inside one NVSwitch (`data-widget="nvswitch-chip"`, Part 12, Appendix B),
//! a static figure: an H100 node's NVLink 4 switch, its ports around the
//! edge, each of two physical lanes, and the crossbar between them that joins
//! any port to any other. The ports, lanes and bandwidths are `core`'s
//! NVLink generation table (`gpu::specs::nvlink_generation`); the node's
//! switches and what its GPUs send are `core`'s `gpu::node::nvlink_node`.

use super::figure::{drawing, label, rect, strokes, WIDTH};
use leptos::prelude::*;
use ridgeline_core::format::si;
use ridgeline_core::gpu::node::{nvlink_node, NodeParams, NvlinkNode};
use ridgeline_core::gpu::specs::{generation, nvlink_generation, NvlinkGeneration};

/// The GPU whose node's switch is drawn.
const GPU: &str = "h100";

/// The switch's square, and the crossbar inside it.
const SIDE: f64 = 232.0;
const TOP: f64 = 52.0;
const BAR: f64 = 128.0;
/// Crossbar wires each way.
const WIRES: u32 = 8;
/// How far a lane reaches out of the switch, and the gap between the two lanes of a port.
const LANE: f64 = 16.0;
const LANE_GAP: f64 = 3.0;
const HEIGHT: f64 = TOP + SIDE + 60.0;

/// The switch's generation and the node it sits in.
pub fn numbers() -> Result<(&'static NvlinkGeneration, NvlinkNode), String> {
    let g = generation(GPU)
        .and_then(|g| nvlink_generation(g.architecture))
        .ok_or("no NVLink generation for the H100")?;
    let node = nvlink_node(&NodeParams::parse(GPU)?)?;
    Ok((g, node))
}

/// The figure.
#[component]
pub fn NvswitchChip(
    /// The chapter's arguments (none).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    drop(args);
    let (g, node) = match numbers() {
        Ok(n) => n,
        Err(e) => return view! { <p class="notice" role="status">{e}</p> }.into_any(),
    };
    let (Some(ports), Some(lanes), Some(switch_bw)) =
        (g.switch_ports, g.lanes_per_port, g.switch_bandwidth())
    else {
        return view! { <p class="notice" role="status">"the book gives no NVSwitch ports or lanes"</p> }
            .into_any();
    };
    let left = (WIDTH - SIDE) / 2.0;
    let (cx, cy) = (left + SIDE / 2.0, TOP + SIDE / 2.0);
    let mut parts = vec![label(
        8.0,
        16.0,
        "start",
        "fig-title",
        &format!("NVLink {} switch (NVSwitch {})", g.nvlink, g.nvswitch),
    )];
    parts.push(rect(left, TOP, SIDE, SIDE, "fig-box"));
    // The ports, a quarter on each side, each with its lanes running out.
    let per_side = ports.div_ceil(4);
    let pitch = SIDE / f64::from(per_side);
    let mut lane_runs = Vec::new();
    for p in 0..ports {
        let (side, i) = (p / per_side, p % per_side);
        let t = -SIDE / 2.0 + (f64::from(i) + 0.5) * pitch;
        for l in 0..lanes {
            let o = t + (f64::from(l) - f64::from(lanes - 1) / 2.0) * LANE_GAP;
            let (x1, y1, x2, y2) = match side {
                0 => (cx + o, TOP, cx + o, TOP - LANE),
                1 => (left + SIDE, cy + o, left + SIDE + LANE, cy + o),
                2 => (cx + o, TOP + SIDE, cx + o, TOP + SIDE + LANE),
                _ => (left, cy + o, left - LANE, cy + o),
            };
            lane_runs.push(vec![(x1, y1), (x2, y2)]);
        }
    }
    parts.push(strokes(&lane_runs, "fig-link"));
    // The crossbar: wires each way, every crossing a possible connection.
    let (bx, by) = (cx - BAR / 2.0, cy - BAR / 2.0);
    parts.push(rect(bx, by, BAR, BAR, "fig-box"));
    let wires: Vec<_> = (1..WIRES)
        .flat_map(|w| {
            let at = f64::from(w) * BAR / f64::from(WIRES);
            [
                vec![(bx + at, by), (bx + at, by + BAR)],
                vec![(bx, by + at), (bx + BAR, by + at)],
            ]
        })
        .collect();
    parts.push(strokes(&wires, "fig-mesh"));
    parts.push(rect(cx - 40.0, cy - 12.0, 80.0, 22.0, "fig-box"));
    parts.push(label(cx, cy + 4.0, "middle", "fig-title", "crossbar"));
    parts.push(label(
        cx,
        TOP + SIDE + LANE + 18.0,
        "middle",
        "fig-muted",
        &format!("{ports} ports × {lanes} lanes = {} lanes", ports * lanes),
    ));
    parts.push(label(
        cx,
        TOP + SIDE + LANE + 36.0,
        "middle",
        "fig-muted",
        &format!("a port: {} each way", si(g.link_bandwidth.0, "B/s", 3)),
    ));
    let bw = |x: f64| si(x, "B/s", 3);
    let switches = node.switches.unwrap_or(0);
    let summary = format!(
        "One switch: {ports} ports of {} each way, {} in all. An H100 node has {switches} of them, {} \
         between them, but its {} GPUs can send only {}.",
        bw(g.link_bandwidth.0),
        bw(switch_bw.0),
        node.switch_total.map_or_else(|| "—".into(), |t| bw(t.0)),
        node.gpus,
        bw(node.gpu_total.0),
    );
    view! {
        <figure class="widget fig nvswitch-chip" data-widget="nvswitch-chip">
            {drawing(
                HEIGHT,
                "One NVLink switch: ports of physical lanes around a crossbar",
                parts,
            )}
            <p data-numbers="">{summary}</p>
            <figcaption>
                "Each pair of short strokes is one port, its two physical lanes; each port carries one \
                 NVLink link from a GPU. The crossbar can join any port to any other, so a GPU reaches \
                 every GPU of its node through the switch in one hop. A TPU pod's optical switches are \
                 another thing: mirrors that set which chips are wired to which, and can be turned to \
                 rewire them."
            </figcaption>
        </figure>
    }
    .into_any()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_figure_draws_every_lane_of_every_port() {
        let none: Vec<(String, String)> = Vec::new();
        let html = Owner::new().with(|| view! { <NvswitchChip args=none /> }.to_html());
        assert!(html.contains(r#"data-widget="nvswitch-chip""#));
        assert!(html.contains("NVLink 4.0 switch (NVSwitch 3.0)"), "{html}");
        // 64 ports × 2 lanes, each lane a stroke.
        assert_eq!(super::super::figure::runs_of(&html, "fig-link"), 128);
        assert!(html.contains("64 ports × 2 lanes = 128 lanes"));
        assert!(html.contains(">crossbar<"));
        assert!(html.contains("One switch: 64 ports of 25 GB/s each way, 1.6 TB/s in all."));
        assert!(html.contains("An H100 node has 4 of them, 6.4 TB/s between them, but its 8 GPUs can send only 3.6 TB/s."));
    }
}
