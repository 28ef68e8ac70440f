//! NVLink nodes (`data-widget="nvlink-node"`, Part 12, "At the node level"):
//! a node's GPUs and NVSwitches with the links between them, what each GPU can
//! push into NVLink, what the switches could carry, the node's bisection
//! bandwidth and its egress into the scale-out network; the three nodes of the
//! book side by side. The GPU may be the reader's own, and a second GPU
//! (`vs`) is compared figure by figure.

use super::controls::Notice;
use leptos::prelude::*;
use ridgeline_core::format::count as counted;
use ridgeline_core::format::{grouped, sci, si};
use ridgeline_core::gpu::node::{
    links_to_switches, node_table, nvlink_node, NodeParams, NvlinkNode,
};

use super::compare::{compare_picker, compare_table, diff_rows, parse_vs, Comparison, Diff, VS};
use super::gpu_choice::{find_gpu, find_gpu_chip, gpu_options, gpu_system};
use super::params::{WidgetParams, WidgetState};
use ridgeline_core::hardware::Chip;
use ridgeline_core::units::BytesPerSec;

/// Width of the node drawing (SVG user units; text stays ≥ 12 px on a phone).
const DRAW_W: f64 = 400.0;
/// GPUs drawn with every link; larger nodes are drawn as a grid under one bus.
const FULL_DRAW: u32 = 8;
/// GPUs per row in the grid of a large node.
const GRID_ROW: u32 = 12;
/// The most GPUs drawn as boxes (twelve rows); a larger domain (a reader's
/// GPU may have up to 100,000) draws these and says how many more it has.
const GRID_MAX: u32 = GRID_ROW * 12;
/// The most switches drawn.
const SWITCHES_MAX: u32 = 36;

/// The reader's choice; always valid.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NvlinkNodeParams {
    /// GPU id (a registry GPU with an NVLink domain, or the reader's own).
    pub gpu: &'static str,
    /// A second GPU whose node is compared, if any.
    pub vs: Option<&'static Chip>,
}

impl Default for NvlinkNodeParams {
    fn default() -> Self {
        NvlinkNodeParams {
            gpu: "h100",
            vs: None,
        }
    }
}

/// The node of GPU `id`, or why not.
fn node_of(id: &str) -> Result<NvlinkNode, String> {
    nvlink_node(&NodeParams {
        system: gpu_system(id)?,
    })
}

impl NvlinkNodeParams {
    /// The node, or why not.
    pub fn compute(&self) -> Result<NvlinkNode, String> {
        node_of(self.gpu)
    }

    /// The two nodes figure by figure, when a second GPU is chosen: the
    /// domain's size, what each GPU and all of them push into NVLink, the
    /// bisection, the egress into the scale-out network and the ratio of the
    /// two per GPU (`NaN`, shown as `—`, where the book gives no egress).
    pub fn comparison(&self) -> Option<Comparison> {
        let vs = self.vs?;
        let (a, b) = (self.compute().ok()?, node_of(vs.id).ok()?);
        // `NaN`, shown as `—`, where the book gives no figure.
        fn rate(x: f64) -> String {
            if x.is_finite() {
                si(x, "B/s", 3)
            } else {
                "—".into()
            }
        }
        fn or_nan(x: Option<BytesPerSec>) -> f64 {
            x.map_or(f64::NAN, |x| x.0)
        }
        let mut rows = vec![Diff::number(
            "gpus",
            "GPUs in the NVLink domain",
            f64::from(a.gpus),
            f64::from(b.gpus),
            grouped,
        )];
        rows.extend(diff_rows(
            &a,
            &b,
            rate,
            &[
                ("per-gpu", "per GPU into NVLink", |n| n.per_gpu.0),
                ("gpu-total", "all GPUs together", |n| n.gpu_total.0),
                ("bisection", "bisection bandwidth", |n| n.bisection.0),
                ("scale-out", "egress into the scale-out network", |n| {
                    or_nan(n.scale_out)
                }),
                ("scale-out-per-gpu", "scale-out per GPU", |n| {
                    or_nan(n.scale_out_per_gpu)
                }),
            ],
        ));
        let ratio = |n: &NvlinkNode| n.inside_over_outside.unwrap_or(f64::NAN);
        rows.push(Diff::number(
            "ratio",
            "NVLink over scale-out, per GPU",
            ratio(&a),
            ratio(&b),
            |x| {
                if x.is_finite() {
                    format!("{}×", sci(x, 3))
                } else {
                    "—".into()
                }
            },
        ));
        Some(Comparison {
            a: a.name.into(),
            b: b.name.into(),
            rows,
        })
    }
}

impl WidgetParams for NvlinkNodeParams {
    /// Sets the GPU from text, or explains why not.
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut next = *self;
        match key {
            "gpu" => next.gpu = find_gpu(value)?,
            VS => next.vs = parse_vs(value, "GPU", |v| find_gpu_chip(v).ok())?,
            other => return Err(super::params::unknown_setting(other)),
        }
        next.compute()?;
        if let Some(vs) = next.vs {
            node_of(vs.id).map_err(|e| format!("{} (compared): {e}", vs.name))?;
        }
        *self = next;
        Ok(())
    }

    /// The parameters as `key=value` pairs.
    fn to_pairs(&self) -> Vec<(String, String)> {
        std::iter::once(("gpu".into(), self.gpu.into()))
            .chain(self.vs.map(|vs| (VS.into(), vs.id.into())))
            .collect()
    }
}

/// A rectangle with a centred label, in the drawing's units.
#[derive(Debug, Clone, PartialEq)]
pub struct Boxed {
    /// Left edge.
    pub x: f64,
    /// Top edge.
    pub y: f64,
    /// Width.
    pub w: f64,
    /// Height.
    pub h: f64,
    /// Text inside (may be empty when the box is too small).
    pub label: String,
}

/// The node drawing: switches on top, GPUs below, and the links.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeDrawing {
    /// Drawing height.
    pub height: f64,
    /// The NVSwitches.
    pub switches: Vec<Boxed>,
    /// The GPUs.
    pub gpus: Vec<Boxed>,
    /// Lines `(x1, y1, x2, y2, links)`; `links` is labelled on a full drawing.
    pub links: Vec<(f64, f64, f64, f64, u32)>,
    /// A bus joining the switches to a large node's GPUs, `(x, y, w)`.
    pub bus: Option<(f64, f64, f64)>,
    /// GPUs and switches beyond the most drawn (a hundred and forty-four GPUs,
    /// thirty-six switches), not drawn.
    pub not_drawn: (u32, u32),
}

/// Lays out the node: a full bipartite drawing for small nodes, a grid under a
/// bus for a rack.
pub fn drawing(n: &NvlinkNode) -> NodeDrawing {
    let all_switches = n.switches.unwrap_or(0);
    let switches = all_switches.min(SWITCHES_MAX);
    let not_drawn = (n.gpus.saturating_sub(GRID_MAX), all_switches - switches);
    let row = |count: u32, y: f64, h: f64, gap: f64, label: &dyn Fn(u32) -> String| {
        let count_f = f64::from(count.max(1));
        let w = ((DRAW_W - gap * (count_f - 1.0)) / count_f).min(90.0);
        let total = w * count_f + gap * (count_f - 1.0);
        let left = (DRAW_W - total) / 2.0;
        (0..count)
            .map(|i| Boxed {
                x: left + f64::from(i) * (w + gap),
                y,
                w,
                h,
                label: label(i),
            })
            .collect::<Vec<_>>()
    };
    let sw_label = |i: u32| {
        if switches <= 4 {
            format!("NVSwitch {}", i + 1)
        } else {
            String::new()
        }
    };
    let sw = row(switches, 8.0, 30.0, 6.0, &sw_label);
    if n.gpus <= FULL_DRAW {
        let gpus = row(n.gpus, 150.0, 34.0, 8.0, &|i| format!("GPU {i}"));
        let spread = n
            .links_per_gpu
            .map(|l| links_to_switches(l, switches))
            .unwrap_or_default();
        let mut links = Vec::new();
        for g in &gpus {
            for (s, k) in sw.iter().zip(spread.iter()) {
                links.push((g.x + g.w / 2.0, g.y, s.x + s.w / 2.0, s.y + s.h, *k));
            }
        }
        NodeDrawing {
            height: 192.0,
            switches: sw,
            gpus,
            links,
            bus: None,
            not_drawn,
        }
    } else {
        let drawn = n.gpus.min(GRID_MAX);
        let rows = drawn.div_ceil(GRID_ROW);
        let size = 26.0;
        let gap = 5.0;
        let left = (DRAW_W - f64::from(GRID_ROW) * (size + gap) + gap) / 2.0;
        let top = 80.0;
        let gpus = (0..drawn)
            .map(|i| Boxed {
                x: left + f64::from(i % GRID_ROW) * (size + gap),
                y: top + f64::from(i / GRID_ROW) * (size + gap),
                w: size,
                h: size,
                label: String::new(),
            })
            .collect();
        let bus_y = 58.0;
        let bus = bus_span(&sw, bus_y);
        let links = sw
            .iter()
            .map(|s| (s.x + s.w / 2.0, s.y + s.h, s.x + s.w / 2.0, bus_y, 0))
            .collect();
        NodeDrawing {
            height: top
                + f64::from(rows) * (size + gap)
                + 4.0
                + if not_drawn == (0, 0) { 0.0 } else { 22.0 },
            switches: sw,
            gpus,
            links,
            bus,
            not_drawn,
        }
    }
}

/// The bus under a rack's switches: from the first switch's centre to the last's.
fn bus_span(switches: &[Boxed], y: f64) -> Option<(f64, f64, f64)> {
    let first = switches.first()?;
    let last = switches.last()?;
    let x = first.x + first.w / 2.0;
    Some((x, y, last.x + last.w / 2.0 - x))
}

fn bw(x: Option<ridgeline_core::units::BytesPerSec>) -> String {
    x.map(|b| si(b.0, "B/s", 3))
        .unwrap_or_else(|| "not in the book".into())
}

/// The widget.
#[component]
pub fn NvlinkNodeView(
    /// The chapter's `key=value` arguments (URL parameters override them).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let state = WidgetState::<NvlinkNodeParams>::new(&args);
    let WidgetState { params, notice } = state;
    let data = Memo::new(move |_| params.with(|p| p.compute().ok()));
    let read = move |f: &dyn Fn(&NvlinkNode) -> String| {
        data.with(|v| v.as_ref().map(f).unwrap_or_default())
    };
    let gpu_picks = gpu_options(move || params.with(|p| p.gpu));
    let vs_id = move || params.with(|p| p.vs.map_or("", |c| c.id));
    let vs_options = gpu_options(vs_id);

    let picture = move || {
        let Some(n) = data.get() else {
            return ().into_any();
        };
        let d = drawing(&n);
        let full = d.bus.is_none();
        let first_gpu = d.switches.len();
        let links = d
            .links
            .iter()
            .enumerate()
            .map(|(i, &(x1, y1, x2, y2, k))| {
                // Only GPU 0's bundles are numbered; every GPU is cabled alike.
                let label = (full && k > 0 && i < first_gpu).then(|| {
                    // Label each link bundle a third of the way up from the GPU.
                    let (lx, ly) = (x1 + (x2 - x1) / 3.0, y1 + (y2 - y1) / 3.0);
                    view! { <text class="link-count" x=format!("{lx:.1}") y=format!("{ly:.1}") text-anchor="middle">{k.to_string()}</text> }
                });
                view! {
                    <line class="nvlink" x1=format!("{x1:.1}") y1=format!("{y1:.1}") x2=format!("{x2:.1}") y2=format!("{y2:.1}") />
                    {label}
                }
            })
            .collect_view();
        let boxes = |bs: &[Boxed], class: &'static str| {
            bs.iter()
                .map(|b| {
                    let label = (!b.label.is_empty()).then(|| {
                        view! { <text x=format!("{:.1}", b.x + b.w / 2.0) y=format!("{:.1}", b.y + b.h / 2.0 + 4.5) text-anchor="middle">{b.label.clone()}</text> }
                    });
                    view! {
                        <rect class=class x=format!("{:.1}", b.x) y=format!("{:.1}", b.y) width=format!("{:.1}", b.w) height=format!("{:.1}", b.h) rx="4" />
                        {label}
                    }
                })
                .collect_view()
        };
        let bus = d.bus.map(|(x, y, w)| {
            view! { <rect class="bus" x=format!("{x:.1}") y=format!("{:.1}", y - 3.0) width=format!("{w:.1}") height="6" rx="3" /> }
        });
        let switches = boxes(&d.switches, "nvswitch");
        let gpus = boxes(&d.gpus, "gpu-box");
        let more = (d.not_drawn != (0, 0)).then(|| {
            let (g, s) = d.not_drawn;
            let mut parts = Vec::new();
            if g > 0 {
                parts.push(counted(u64::from(g), "more GPU", "more GPUs"));
            }
            if s > 0 {
                parts.push(counted(u64::from(s), "more switch", "more switches"));
            }
            view! {
                <text class="not-drawn" x=format!("{:.1}", DRAW_W / 2.0) y=format!("{:.1}", d.height - 8.0) text-anchor="middle">
                    {format!("and {}, not drawn", parts.join(" and "))}
                </text>
            }
        });
        let joined = match n.switches {
            Some(k) => counted(u64::from(k), "NVSwitch", "NVSwitches"),
            None => "NVLink (no switch count is given for this GPU)".into(),
        };
        let label = format!(
            "{} joined by {joined}; {}",
            counted(u64::from(n.gpus), "GPU", "GPUs"),
            if full {
                "each GPU's links are split over every switch as numbered on GPU 0's lines"
            } else {
                "every GPU has a link to every switch"
            }
        );
        view! {
            <svg class="node-diagram" viewBox=format!("0 0 {DRAW_W} {:.0}", d.height) role="img" aria-label=label>
                {links}{bus}{switches}{gpus}{more}
            </svg>
        }
        .into_any()
    };
    let rows = node_table()
        .unwrap_or_default()
        .into_iter()
        .map(|r| {
            view! {
                <tr data-node=r.name>
                    <th scope="row">{r.name}</th>
                    <td>{grouped(f64::from(r.gpus))}</td>
                    <td>{r.switches.map(|s| s.to_string()).unwrap_or_else(|| "—".into())}</td>
                    <td>{si(r.per_gpu.0, "B/s", 3)}</td>
                    <td>{si(r.usable.0, "B/s", 3)}</td>
                    <td>{bw(r.scale_out)}</td>
                    <td>{bw(r.scale_out_per_gpu)}</td>
                </tr>
            }
        })
        .collect_view();

    view! {
        <figure class="widget nvlink-node" data-widget="nvlink-node">
            <div class="controls">
                {super::controls::picker("GPU ", "gpu", None, move || params.with(|p| p.gpu).to_string(), gpu_picks, move |k, v: String| { state.set(k, &v); })}
                {compare_picker(vs_options, vs_id, move |key, value| {
                    state.set_or_refresh(key, &value, true);
                })}
            </div>
            <Notice notice=notice />
            <div class="node-picture">{picture}</div>
            <dl class="times node-numbers">
                <div>
                    <dt>"per GPU into NVLink"</dt>
                    <dd data-per-gpu=move || read(&|n| n.per_gpu.0.to_string())>
                        {move || read(&|n| match (n.links_per_gpu, n.link_bandwidth) {
                            (Some(l), Some(b)) => format!("{} = {} × {}", si(n.per_gpu.0, "B/s", 3), l, si(b.0, "B/s", 3)),
                            _ => si(n.per_gpu.0, "B/s", 3),
                        })}
                    </dd>
                </div>
                <div>
                    <dt>"all GPUs together"</dt>
                    <dd data-gpu-total=move || read(&|n| n.gpu_total.0.to_string())>{move || read(&|n| si(n.gpu_total.0, "B/s", 3))}</dd>
                </div>
                <div>
                    <dt>"what the NVSwitches could carry"</dt>
                    <dd>{move || read(&|n| bw(n.switch_total))}</dd>
                </div>
                <div>
                    <dt>"bisection bandwidth (both directions)"</dt>
                    <dd data-bisection=move || read(&|n| n.bisection.0.to_string())>{move || read(&|n| si(n.bisection.0, "B/s", 3))}</dd>
                </div>
                <div>
                    <dt>"egress into the scale-out network"</dt>
                    <dd data-scale-out=move || read(&|n| n.scale_out.map(|b| b.0.to_string()).unwrap_or_default())>
                        {move || read(&|n| match (n.scale_out, n.scale_out_per_gpu) {
                            (Some(t), Some(g)) => format!("{} ({} per GPU)", si(t.0, "B/s", 3), si(g.0, "B/s", 3)),
                            _ => "not in the book".into(),
                        })}
                    </dd>
                </div>
                <div>
                    <dt>"NVLink over scale-out, per GPU"</dt>
                    <dd data-ratio=move || read(&|n| n.inside_over_outside.map(|r| r.to_string()).unwrap_or_default())>
                        {move || read(&|n| n.inside_over_outside.map(|r| format!("{}×", sci(r, 3))).unwrap_or_else(|| "—".into()))}
                    </dd>
                </div>
            </dl>
            {compare_table(move || params.with(NvlinkNodeParams::comparison))}
            <div class="table-scroll" tabindex="0">
                <table class="nodes">
                    <caption>"The book's three nodes"</caption>
                    <thead><tr>
                        <th scope="col">"node"</th><th scope="col">"GPUs"</th><th scope="col">"NVSwitches"</th>
                        <th scope="col">"per GPU"</th><th scope="col">"node total"</th><th scope="col">"scale-out"</th><th scope="col">"scale-out per GPU"</th>
                    </tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::widgets::params::testing::{assert_pairs_restore, assert_refused_keeps};

    /// Issue #19: a second node compared figure by figure, a figure the
    /// book does not give shown as such.
    #[test]
    fn a_second_node_compared() {
        let mut p = NvlinkNodeParams::default();
        p.apply("vs", "b200").unwrap();
        assert_pairs_restore(&p);
        let c = p.comparison().unwrap();
        assert_eq!((c.a.as_str(), c.b.as_str()), ("NVIDIA H100", "NVIDIA B200"));
        let row = |k: &str| c.row(k).unwrap().clone();
        assert_eq!(
            (row("per-gpu").a.as_str(), row("per-gpu").b.as_str()),
            ("450 GB/s", "900 GB/s")
        );
        assert_eq!(row("per-gpu").ratio_text(), "2×");
        assert_eq!(row("gpus").ratio_text(), "same");
        // The book gives no scale-out egress for an A100 node.
        p.apply("vs", "a100").unwrap();
        let c = p.comparison().unwrap();
        assert_eq!(c.row("scale-out").unwrap().b, "—");
        assert_eq!(c.row("scale-out").unwrap().ratio_text(), "—");
        p.apply("gpu", "gb200").unwrap();
        let c = p.comparison().unwrap();
        assert_eq!(c.row("gpus").unwrap().ratio_text(), "0.111×");
        let messages = assert_refused_keeps(&p, &[("vs", "v5e"), ("vs", "h900")]);
        assert!(
            messages.iter().all(|m| m.contains("compare")),
            "{messages:?}"
        );
        p.apply("vs", "none").unwrap();
        assert_eq!(p.comparison(), None);
        assert!(p.to_pairs().iter().all(|(k, _)| k != "vs"));
    }

    #[test]
    fn h100_node_as_the_book_draws_it() {
        let p = NvlinkNodeParams::default();
        let n = p.compute().unwrap();
        assert_eq!(si(n.per_gpu.0, "B/s", 3), "450 GB/s");
        assert_eq!(si(n.bisection.0, "B/s", 3), "3.6 TB/s");
        assert_eq!(
            n.switch_total.map(|b| si(b.0, "B/s", 3)),
            Some("6.4 TB/s".into())
        );
        let d = drawing(&n);
        assert_eq!((d.switches.len(), d.gpus.len(), d.links.len()), (4, 8, 32));
        // Each GPU's 18 links split 5 + 4 + 4 + 5 over the four switches.
        let first: Vec<u32> = d.links[..4].iter().map(|l| l.4).collect();
        assert_eq!(first, [5, 4, 4, 5]);
        assert!(d.bus.is_none());
        assert_eq!(sci(n.inside_over_outside.unwrap(), 3), "9");
        // Every box lies inside the drawing.
        for b in d.switches.iter().chain(d.gpus.iter()) {
            assert!(
                b.x >= 0.0 && b.x + b.w <= DRAW_W && b.y + b.h <= d.height,
                "{b:?}"
            );
        }
    }

    #[test]
    fn b200_and_the_nvl72_rack() {
        let mut p = NvlinkNodeParams::default();
        p.apply("gpu", "b200").unwrap();
        let b = p.compute().unwrap();
        assert_eq!(si(b.per_gpu.0, "B/s", 3), "900 GB/s");
        assert_eq!(
            drawing(&b).links[..2]
                .iter()
                .map(|l| l.4)
                .collect::<Vec<_>>(),
            [9, 9]
        );
        p.apply("gpu", "gb200").unwrap();
        let r = p.compute().unwrap();
        let d = drawing(&r);
        assert_eq!((d.switches.len(), d.gpus.len()), (18, 72));
        assert!(d.bus.is_some());
        for b in d.switches.iter().chain(d.gpus.iter()) {
            assert!(
                b.x >= 0.0 && b.x + b.w <= DRAW_W && b.y + b.h <= d.height,
                "{b:?}"
            );
        }
        assert_eq!(
            r.scale_out_per_gpu.map(|g| si(g.0, "B/s", 3)),
            Some("50 GB/s".into())
        );
        // Bad input leaves the state as it was; the pairs round-trip.
        assert!(p.apply("gpu", "v5e").is_err());
        assert!(p.apply("nodes", "2").is_err());
        assert_eq!(p.gpu, "gb200");
        let (q, errors) = NvlinkNodeParams::from_pairs(&p.to_pairs());
        assert!(errors.is_empty());
        assert_eq!(p, q);
        assert_eq!(node_table().unwrap().len(), 3);
    }

    /// A reader's GPU may put 100,000 GPUs in one NVLink domain: the drawing
    /// keeps to [`GRID_MAX`] boxes and says how many it left out (before, one
    /// box per GPU: 100,000 rectangles from one link).
    #[test]
    fn a_huge_domain_draws_a_summary() {
        let mut p = NvlinkNodeParams::default();
        p.apply("gpu", "gb200").unwrap();
        let mut n = p.compute().unwrap();
        n.gpus = 100_000;
        n.switches = Some(1_000);
        let d = drawing(&n);
        assert_eq!(d.gpus.len(), GRID_MAX as usize);
        assert_eq!(d.switches.len(), SWITCHES_MAX as usize);
        assert_eq!(d.not_drawn, (100_000 - GRID_MAX, 1_000 - SWITCHES_MAX));
        for b in d.switches.iter().chain(d.gpus.iter()) {
            assert!(
                b.x >= 0.0 && b.x + b.w <= DRAW_W && b.y + b.h <= d.height,
                "{b:?}"
            );
        }
        assert_eq!(drawing(&p.compute().unwrap()).not_drawn, (0, 0));
    }
}
