//! GPU clusters (`data-widget="gpu"`, Part 12): how many nodes, Scalable Units
//! and switches a GPU count occupies, what a collective costs inside one NVLink
//! domain and across the fat tree, and GPU and TPU rooflines side by side. A
//! second GPU (`vs`) may be laid out for the same job beside it, with the
//! difference spelled out. The collective is priced at the share of quoted
//! link bandwidth the reader assumes (`link_derate`, through core's
//! [`GpuSystem::derated`]).

use super::controls::Notice;
use super::controls::NumberField;
use super::controls::Slider;
use super::gpu_choice::{
    achievable_label, achievable_shares, find_gpu, find_gpu_chip, gpu_options, gpu_system,
};
use leptos::prelude::*;
use ridgeline_core::comms::collectives::Collective;
use ridgeline_core::dtype::Dtype;
use ridgeline_core::format::count as counted;
use ridgeline_core::format::{grouped, sci, seconds, si};
use ridgeline_core::gpu::compare::{gpu_row, roofline_row, RooflineRow};
use ridgeline_core::gpu::network::{ClusterLayout, CollectiveCost, CollectiveOptions};
use ridgeline_core::gpu::GpuSystem;
use ridgeline_core::hardware::Chip;
use ridgeline_core::roofline::derate::Derate;
use ridgeline_core::units::Bytes;

use super::compare::{chip_rows, compare_picker, compare_table, parse_vs, Comparison, Diff, VS};
use super::controls::option;
use super::derate::{self, Share};
use super::params::{WidgetParams, WidgetState};
use crate::input::{parse_count, parse_whole, short};

/// Largest GPU count (2^16).
pub const GPUS_MAX: f64 = 65_536.0;
/// Chips in the side-by-side table: two GPU generations, the NVL72 rack, two TPUs.
pub const COMPARED: [&str; 5] = ["h100", "b200", "gb200", "v5p", "v6e"];
/// SUs drawn in the topology view before the rest are summarised.
const SUS_DRAWN: u64 = 8;
/// Nodes drawn per SU (or racks, for NVL72 systems).
const NODES_DRAWN: u64 = 32;
/// The share of quoted peak the widget lets the reader set: its collective
/// moves bytes only.
const SHARES: [Share; 1] = [Share::Link];

/// The reader's choices.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GpuParams {
    /// GPU id (a registry GPU, or a variant such as `h800`).
    pub gpu: &'static str,
    /// GPUs in the job (and in the collective).
    pub gpus: u64,
    /// Which collective.
    pub kind: Collective,
    /// Bytes in the whole array.
    pub bytes: f64,
    /// A second GPU laid out for the same job, if any.
    pub vs: Option<&'static Chip>,
    /// The share of quoted link bandwidth the collective is priced at.
    pub derate: Derate,
}

impl Default for GpuParams {
    fn default() -> Self {
        GpuParams {
            gpu: "h100",
            gpus: 1024,
            kind: Collective::AllGather,
            bytes: 1e9,
            vs: None,
            derate: Derate::PEAK,
        }
    }
}

/// Everything the widget shows.
#[derive(Debug, Clone, PartialEq)]
pub struct GpuView {
    /// The system.
    pub system: GpuSystem,
    /// Nodes, SUs and switches.
    pub layout: ClusterLayout,
    /// The collective over one node's GPUs.
    pub in_node: CollectiveCost,
    /// The collective over all the GPUs, when they span more than one node.
    pub across: Option<CollectiveCost>,
}

impl GpuParams {
    /// The same job on `gpu`: the GPU count rounded up to whole nodes of it
    /// if the tree cannot hold it as it is (an NVL72 rack holds 72).
    pub fn on(mut self, gpu: &'static str) -> GpuParams {
        self.gpu = gpu;
        if self.compute().is_err() {
            if let Ok(sys) = gpu_system(gpu) {
                let per = u64::from(sys.gpus_per_node.max(1));
                if self.gpus > per {
                    self.gpus = self.gpus.div_ceil(per) * per;
                }
            }
        }
        self
    }

    /// The second GPU's job, if one is chosen.
    pub fn versus(&self) -> Option<GpuParams> {
        Some(self.on(self.vs?.id))
    }

    /// The GPU beside the second one: core's numbers for both chips, the
    /// data-parallel tokens each needs, then the same job on each: GPUs,
    /// nodes, the collective inside a node and across them all.
    pub fn comparison(&self) -> Option<Comparison> {
        let vs = self.vs?;
        let a_chip = find_gpu_chip(self.gpu).ok()?;
        let q = self.versus()?;
        let (a, b) = (self.compute().ok()?, q.compute().ok()?);
        let mut rows = chip_rows(a_chip, vs, Dtype::Bf16);
        let dp = |id| {
            gpu_system(id)
                .ok()
                .and_then(|s| gpu_row(&s, Dtype::Bf16).ok())
                .map_or(f64::NAN, |r| r.dp_tokens_in_domain)
        };
        rows.push(Diff::number(
            "dp-tokens",
            "DP tokens per chip inside a node",
            dp(self.gpu),
            dp(vs.id),
            grouped,
        ));
        let count = |v: &GpuView, f: fn(&ClusterLayout) -> u64| f(&v.layout) as f64;
        rows.push(Diff::number(
            "gpus",
            "GPUs",
            count(&a, |l| l.gpus),
            count(&b, |l| l.gpus),
            grouped,
        ));
        rows.push(Diff::number(
            "nodes",
            "nodes",
            count(&a, |l| l.nodes),
            count(&b, |l| l.nodes),
            grouped,
        ));
        rows.push(Diff::number(
            "in-node",
            format!("{} inside one node", self.kind.name()),
            a.in_node.total.0,
            b.in_node.total.0,
            seconds,
        ));
        let across = |v: &GpuView| v.across.as_ref().unwrap_or(&v.in_node).total.0;
        rows.push(Diff::number(
            "across",
            "across all the GPUs",
            across(&a),
            across(&b),
            seconds,
        ));
        Some(Comparison {
            a: a_chip.name.into(),
            b: vs.name.into(),
            rows,
        })
    }

    /// The Achievable preset: the links at the share the book measured on
    /// this GPU, or at their quoted bandwidth where it measured none.
    pub fn achievable(&self) -> Derate {
        achievable_shares(self.gpu, false)
    }

    /// Everything computed, or why not (the collective at the assumed link
    /// share).
    pub fn compute(&self) -> Result<GpuView, String> {
        let system = gpu_system(self.gpu)?.derated(self.derate);
        let tree = system.fat_tree().map_err(|e| e.to_string())?;
        let layout = tree.layout(self.gpus).map_err(|e| e.to_string())?;
        let opts = CollectiveOptions::default();
        let node = u64::from(system.gpus_per_node).min(self.gpus).max(1);
        let bytes = Bytes(self.bytes);
        let in_node = tree
            .collective(self.kind, bytes, node, opts)
            .map_err(|e| e.to_string())?;
        let across = if self.gpus > node {
            Some(
                tree.collective(self.kind, bytes, self.gpus, opts)
                    .map_err(|e| e.to_string())?,
            )
        } else {
            None
        };
        Ok(GpuView {
            system,
            layout,
            in_node,
            across,
        })
    }
}

impl WidgetParams for GpuParams {
    const ORDER: &'static [&'static [&'static str]] = &[&["gpu", "chip", VS]];

    /// Sets one parameter from text; a GPU count the tree cannot hold is refused.
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut next = *self;
        match key {
            "gpu" | "chip" => next = next.on(find_gpu(value)?),
            VS => next.vs = parse_vs(value, "GPU", |v| find_gpu_chip(v).ok())?,
            "gpus" | "n" => next.gpus = parse_whole::<u64>(value, "GPU count", 1.0, GPUS_MAX)?,
            "op" => {
                next.kind = Collective::parse(value)
                    .ok_or_else(|| format!("unknown collective “{}”", short(value)))?
            }
            "bytes" | "v" => next.bytes = parse_count(value, "array size", 1e3, 1e13)?,
            other => match derate::apply(&SHARES, next.derate, other, value) {
                Some(d) => next.derate = d?,
                None => return Err(super::params::unknown_setting(other)),
            },
        }
        next.compute()?;
        if let Some(q) = next.versus() {
            q.compute()
                .map_err(|e| format!("{} (compared): {e}", q.gpu))?;
        }
        *self = next;
        Ok(())
    }

    /// The parameters as `key=value` pairs.
    fn to_pairs(&self) -> Vec<(String, String)> {
        vec![
            ("gpu".into(), self.gpu.into()),
            ("gpus".into(), self.gpus.to_string()),
            ("op".into(), self.kind.key().into()),
            ("bytes".into(), format!("{}", self.bytes)),
        ]
        .into_iter()
        .chain(self.vs.map(|vs| (VS.into(), vs.id.into())))
        .chain(derate::pairs(&SHARES, self.derate))
        .collect()
    }
}

/// The comparison rows (chips without a figure are left out).
pub fn compared_rows() -> Vec<RooflineRow> {
    COMPARED
        .iter()
        .filter_map(|id| roofline_row(id, Dtype::Bf16).ok())
        .collect()
}

fn facts(v: &GpuView) -> String {
    let l = &v.layout;
    let mut s = format!(
        "{} {} {} of {}",
        counted(l.gpus, "GPU", "GPUs"),
        if l.gpus == 1 { "fills" } else { "fill" },
        counted(l.nodes, "node", "nodes"),
        l.gpus_per_node
    );
    if let Some(n) = l.nvswitches {
        s.push_str(&format!(
            " ({} in all)",
            counted(n, "NVSwitch", "NVSwitches")
        ));
    }
    if let Some(su) = l.sus {
        s.push_str(&format!(
            ", {}",
            counted(su, "Scalable Unit", "Scalable Units")
        ));
    }
    if let Some(leaf) = l.leaf_switches {
        s.push_str(&format!(
            ", {}",
            counted(leaf, "leaf switch", "leaf switches")
        ));
    }
    match l.spine_switches {
        Some(sp) => s.push_str(&format!(
            " and {}",
            counted(sp, "spine switch", "spine switches")
        )),
        None if l.needs_core_layer => {
            s.push_str("; a two-tier tree of 64-port switches runs out of ports here")
        }
        None => {}
    }
    match l.highest_level {
        Some(level) => s.push_str(&format!(
            ". A collective over all of them reaches the {} level.",
            level.label()
        )),
        None => s.push_str(". One GPU needs no network."),
    }
    s
}

/// The widget.
#[component]
pub fn Gpu(
    /// The chapter's `key=value` arguments (URL parameters override them).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let state = WidgetState::<GpuParams>::new(&args);
    let WidgetState { params, notice } = state;
    let set = move |key: &'static str, value: String| {
        // Put a refused comparison back to the last valid one.
        state.set_or_refresh(key, &value, key == VS);
    };
    let data = Memo::new(move |_| params.with(|p| p.compute().ok()));
    let read =
        move |f: fn(&GpuView) -> String| data.with(|v| v.as_ref().map(f).unwrap_or_default());

    // The topology: SUs (or one scale-out group) of nodes, each node a box.
    let topology = move || {
        let Some(v) = data.get() else {
            return ().into_any();
        };
        let l = v.layout;
        let per_su = v
            .system
            .fat_tree()
            .ok()
            .and_then(|t| t.design.map(|d| u64::from(d.nodes_per_su)))
            .unwrap_or(NODES_DRAWN);
        let groups = l.nodes.div_ceil(per_su).max(1);
        let drawn = groups.min(SUS_DRAWN);
        let group_name = if l.sus.is_some() { "SU" } else { "group" };
        let blocks = (0..drawn)
            .map(|g| {
                let nodes = (l.nodes - g * per_su).min(per_su);
                let shown = nodes.min(NODES_DRAWN);
                let boxes = (0..shown)
                    .map(|_| view! { <span class="node" title="node"></span> })
                    .collect_view();
                let more = (nodes > shown).then(|| format!("+{}", nodes - shown));
                view! {
                    <div class="su" data-su=g.to_string()>
                        <div class="su-name">{format!("{group_name} {} · {}", g + 1, counted(nodes, "node", "nodes"))}</div>
                        <div class="nodes">{boxes}{more}</div>
                    </div>
                }
            })
            .collect_view();
        let rest = (groups > drawn).then(|| {
            let more = groups - drawn;
            let noun = if more == 1 { "" } else { "s" };
            format!("… and {} more {group_name}{noun}", grouped(more as f64))
        });
        let top = match (l.spine_switches, l.sus) {
            (Some(s), Some(_)) if s > 0 => {
                format!("spine: {}", counted(s, "switch", "switches"))
            }
            (_, Some(_)) => "one SU: no spine needed".to_string(),
            _ => "scale-out network".to_string(),
        };
        view! {
            <div class="cluster" aria-hidden="true">
                <div class="spine">{top}</div>
                <div class="sus">{blocks}</div>
                <p class="muted">{rest}</p>
            </div>
        }
        .into_any()
    };
    let levels = move || {
        let Some(v) = data.get() else {
            return Vec::new().into_iter().collect_view();
        };
        let cost = v.across.clone().unwrap_or(v.in_node.clone());
        cost.levels
            .into_iter()
            .map(|l| {
                let bottleneck = cost.bottleneck == Some(l.level);
                view! {
                    <tr class:bottleneck=bottleneck>
                        <th scope="row">{l.level.label()}</th>
                        <td>{grouped(l.degree as f64)}</td>
                        <td>{si(l.bandwidth.0, "B/s", 3)}</td>
                        <td>{seconds(l.time.0)}{if bottleneck { " (slowest)" } else { "" }}</td>
                    </tr>
                }
            })
            .collect_view()
    };
    let rows = compared_rows()
        .into_iter()
        .map(|r| {
            view! {
                <tr data-chip=r.id>
                    <th scope="row">{r.name}</th>
                    <td>{si(r.peak.0, "FLOPs/s", 3)}</td>
                    <td>{sci(r.hbm_ridge.0, 3)}</td>
                    <td>{format!("{} over {}", grouped(r.domain_size as f64), r.domain_link.name())}</td>
                    <td>{grouped(r.dp_tokens_in_domain)}</td>
                    <td>{r.dp_tokens_across.map(grouped).unwrap_or_else(|| "—".into())}</td>
                </tr>
            }
        })
        .collect_view();
    let gpu_picks = gpu_options(move || params.with(|p| p.gpu));
    let vs_id = move || params.with(|p| p.vs.map_or("", |c| c.id));
    let vs_options = gpu_options(vs_id);
    let op_options =
        Collective::ALL.map(|c| option(c.key(), c.name(), move || params.with(|p| p.kind.key())));
    let log2 = move || params.with(|p| (p.gpus as f64).log2().round());

    view! {
        <figure class="widget gpu" data-widget="gpu">
            <div class="controls">
                {super::controls::picker("GPU ", "gpu", None, move || params.with(|p| p.gpu).to_string(), gpu_picks, set)}
                <label>"Collective "
                    <select prop:value=move || params.with(|p| p.kind.key()) on:change=move |ev| set("op", event_target_value(&ev))>{op_options}</select>
                </label>
                {NumberField::new("bytes", "array size in bytes", 8).class("bytes-text").label("Array size (bytes) ").view(move || format!("{}", params.with(|p| p.bytes)), set)}
                {compare_picker(vs_options, vs_id, set)}
            </div>
            {Slider::new("0", || "16".to_string(), "1").id("gpu-count").valuetext(move || format!("{} GPUs", grouped(params.with(|p| p.gpus as f64)))).row("GPUs", move || log2().to_string(), move |v: String| {
                        let pos = v.parse::<f64>().unwrap_or(0.0).clamp(0.0, 16.0);
                        set("gpus", format!("{}", 2f64.powf(pos)));
                    }, NumberField::new("gpus", "GPU count", 7).class("gpus-text").view(move || format!("{}", params.with(|p| p.gpus)), set))}
            {derate::controls(
                "Achievable links (share of the quoted bandwidth)",
                &[(Share::Link, "gpu-link-derate")],
                move || params.with(|p| p.derate),
                move || params.with_untracked(GpuParams::achievable),
                move || params.with(|p| achievable_label(p.gpu, false)),
                None,
                set,
            )}
            <Notice notice=notice />
            <p data-facts="">{move || read(facts)}</p>
            {topology}
            <dl class="times gpu-costs">
                <div>
                    <dt>{move || read(|v| format!("{} inside one node ({} GPUs)", v.in_node.kind.name(), v.in_node.gpus))}</dt>
                    <dd data-scope="node" data-seconds=move || read(|v| format!("{}", v.in_node.total.0))>{move || read(|v| seconds(v.in_node.total.0))}</dd>
                </div>
                <div>
                    <dt>{move || read(|v| format!("across {} GPUs", grouped(v.layout.gpus as f64)))}</dt>
                    <dd data-scope="network" data-seconds=move || read(|v| v.across.as_ref().map(|c| format!("{}", c.total.0)).unwrap_or_default())>
                        {move || read(|v| v.across.as_ref().map(|c| seconds(c.total.0)).unwrap_or_else(|| "— (fits in one node)".into()))}
                    </dd>
                </div>
                <div>
                    <dt>"effective bandwidth"</dt>
                    <dd>{move || read(|v| v.across.as_ref().unwrap_or(&v.in_node).algo_bandwidth().map(|b| si(b.0, "B/s", 3)).unwrap_or_default())}</dd>
                </div>
            </dl>
            {compare_table(move || params.with(|p| p.comparison()))}
            <div class="table-scroll" tabindex="0">
                <table class="levels">
                    <thead><tr><th scope="col">"level"</th><th scope="col">"children spanned"</th><th scope="col">"link per child"</th><th scope="col">"time"</th></tr></thead>
                    <tbody>{levels}</tbody>
                </table>
            </div>
            <h4>"Rooflines side by side (bf16)"</h4>
            <div class="table-scroll" tabindex="0">
                <table class="compare">
                    <thead><tr>
                        <th scope="col">"chip"</th><th scope="col">"peak"</th><th scope="col">"HBM ridge (FLOPs/B)"</th>
                        <th scope="col">"fast domain"</th><th scope="col">"DP tokens per chip inside it"</th><th scope="col">"DP tokens per chip, scale-out link alone"</th>
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

    /// Issue #39: the link share prices both collectives; it round-trips
    /// and a share outside (0, 1] is refused by name.
    #[test]
    fn the_link_share_prices_the_collectives() {
        let quoted = GpuParams::default();
        let (p, refused) =
            GpuParams::from_pairs(&crate::widgets::params::pairs(&[("link_derate", "0.8")]));
        assert!(refused.is_empty(), "{refused:?}");
        assert_pairs_restore(&p);
        let (a, b) = (quoted.compute().unwrap(), p.compute().unwrap());
        // By hand: at 0.8 of every level's link the transfers take 1.25 times as long.
        assert!((b.in_node.total.0 / a.in_node.total.0 - 1.25).abs() < 1e-12);
        let across = |v: &GpuView| v.across.as_ref().unwrap().total.0;
        assert!((across(&b) / across(&a) - 1.25).abs() < 1e-12);
        assert_eq!(b.layout, a.layout);
        let messages = assert_refused_keeps(&p, &[("link_derate", "0"), ("link_derate", "3")]);
        assert!(
            messages.iter().all(|m| m.starts_with("the link derate")),
            "{messages:?}"
        );
        let mut q = quoted;
        assert!(
            q.apply("flops_derate", "0.5").is_err(),
            "a collective has no FLOPs share"
        );
    }

    /// The GPU pickers take the reader's own GPUs beside the registry's (by
    /// `my:NAME` from the index and by compact text from a link) and refuse
    /// the reader's TPU, a registry TPU and an unknown id.
    #[test]
    fn the_readers_gpus_are_taken_and_tpus_refused() {
        use ridgeline_core::hardware::{chip, Link};
        use ridgeline_core::reader::compact::{encode_chip, spec_of};
        let (_, tpu) = crate::library::tests::sample_codes();
        let mut spec = spec_of(chip("h100").unwrap());
        spec.name = "my H100".into();
        for l in spec.links.iter_mut().filter(|l| l.link == Link::NvLink) {
            l.bandwidth.0 *= 2.0;
        }
        let gpu = encode_chip(&spec).unwrap();
        crate::library::set_index(&format!("{tpu}\n{gpu}\n"));
        for bad in [tpu.as_str(), "v5e", "h900", "my:fast v5e", "my:nothing"] {
            assert!(find_gpu(bad).is_err(), "{bad}");
        }
        assert!(find_gpu("v5e").unwrap_err().contains("not a GPU"));
        assert_eq!(gpu_system("gb200").unwrap().gpus_per_node, 72);
        let mine = find_gpu_chip("my:my H100").unwrap();
        assert_eq!(mine.name, "my H100");
        assert_eq!(
            find_gpu(&gpu).unwrap(),
            mine.id,
            "the link's compact text is the same chip"
        );
        // Every number is core's, from the reader's chip: twice the NVLink
        // bandwidth halves the in-node collective's time.
        let mut p = GpuParams::default();
        let h100 = p.compute().unwrap().in_node.total;
        p.apply("gpu", "my:my H100").unwrap();
        let own = p.compute().unwrap().in_node.total;
        assert!((h100.0 / own.0 - 2.0).abs() < 1e-9, "{h100:?} vs {own:?}");
        assert_pairs_restore(&p);
    }

    #[test]
    fn a_1024_gpu_h100_pod() {
        let v = GpuParams::default().compute().unwrap();
        assert_eq!(v.layout.nodes, 128);
        assert_eq!(v.layout.sus, Some(4));
        let across = v.across.unwrap();
        assert!(across.total > v.in_node.total, "crossing nodes costs more");
        assert!(facts(&GpuParams::default().compute().unwrap()).contains("128 nodes of 8"));
        let mut one = GpuParams::default();
        one.apply("gpus", "1").unwrap();
        let text = facts(&one.compute().unwrap());
        assert!(text.starts_with("1 GPU fills 1 node of 8"), "{text}");
        assert!(text.contains(", 1 Scalable Unit,"), "{text}");
    }

    #[test]
    fn bad_counts_are_refused() {
        let mut p = GpuParams::default();
        // Twelve GPUs would leave a node half full.
        assert_refused_keeps(
            &p,
            &[
                ("gpus", "12"),
                ("gpus", "0"),
                ("gpu", "v5e"),
                ("op", "broadcast"),
                ("bytes", "-1"),
            ],
        );
        p.apply("gpus", "8").unwrap();
        assert!(p.compute().unwrap().across.is_none());
        p.apply("gpu", "gb200").unwrap();
        p.apply("gpus", "144").unwrap();
        assert_pairs_restore(&p);
    }

    #[test]
    fn a_second_gpu_lays_out_the_same_job() {
        use crate::widgets::params::pairs;
        let (mut p, n) = GpuParams::from_pairs(&pairs(&[("vs", "gb200")]));
        assert!(n.is_empty(), "{n:?}");
        // 1024 GPUs are not whole NVL72 racks: the GB200 job takes 15 racks.
        let q = p.versus().unwrap();
        assert_eq!(q.gpus, 1080);
        let c = p.comparison().unwrap();
        assert_eq!(
            (c.a.as_str(), c.b.as_str()),
            ("NVIDIA H100", "NVIDIA GB200 NVL72")
        );
        let row = |k: &str| c.row(k).unwrap().clone();
        assert_eq!(
            (row("gpus").a, row("gpus").b),
            (grouped(1024.0), grouped(1080.0))
        );
        assert_eq!(
            (row("nodes").a, row("nodes").b),
            ("128".to_string(), "15".to_string())
        );
        let (a, b) = (p.compute().unwrap(), q.compute().unwrap());
        assert_eq!(row("in-node").a, seconds(a.in_node.total.0));
        assert_eq!(row("in-node").b, seconds(b.in_node.total.0));
        assert_eq!(row("across").b, seconds(b.across.unwrap().total.0));
        // Inside its 72-GPU domain the GB200 moves the same bytes over the
        // same NVLink per GPU as a B200 node, so DP needs the same tokens there.
        let dp = row("dp-tokens");
        let b200 = roofline_row("b200", Dtype::Bf16)
            .unwrap()
            .dp_tokens_in_domain;
        assert_eq!(dp.b, grouped(b200));
        assert_eq!(
            dp.a,
            grouped(
                roofline_row("h100", Dtype::Bf16)
                    .unwrap()
                    .dp_tokens_in_domain
            )
        );
        assert_eq!(row("ridge").a, "296 FLOPs/B");
        // The compared GPU follows the job: 8 GPUs is one node of each.
        p.apply("gpus", "8").unwrap();
        let c = p.comparison().unwrap();
        assert_eq!(c.row("nodes").unwrap().b, "1");
    }

    #[test]
    fn vs_round_trips_and_a_tpu_is_refused() {
        let mut p = GpuParams::default();
        p.apply("vs", "b200").unwrap();
        assert_pairs_restore(&p);
        let messages = assert_refused_keeps(&p, &[("vs", "v5e"), ("vs", "h900")]);
        assert!(messages[0].contains("v5e"), "{messages:?}");
        assert!(GpuParams::default()
            .to_pairs()
            .iter()
            .all(|(k, _)| k != "vs"));
        p.apply("vs", "").unwrap();
        assert_eq!(p.comparison(), None);
    }

    #[test]
    fn the_comparison_has_gpus_and_tpus() {
        let rows = compared_rows();
        assert_eq!(rows.len(), COMPARED.len());
        assert!(rows[0].dp_tokens_across.unwrap() > rows[3].dp_tokens_in_domain);
    }
}
