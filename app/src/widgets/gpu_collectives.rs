//! GPU collectives against array size (`data-widget="gpu-collectives"`, Part
//! 12): a start-up cost plus the fat tree's transfer time, inside one NVLink
//! node or across nodes, with in-network reduction (SHARP) as a switch; the
//! book's measured NCCL and TPU curves drawn beside the model; what an inner
//! sharding axis saves across nodes and what a ragged AllToAll sends. The GPU
//! may be the reader's own; a second GPU (`vs`) draws its model curve on the
//! same axes, with the two collectives compared figure by figure.
//!
//! The reader may derate the links (`link_derate`, the share of quoted NVLink
//! and scale-out bandwidth to assume): the model at that share is drawn dashed
//! beside the quoted one and every number below the chart comes from core's
//! derated system ([`GpuSystem::derated`]); the book's measured curves stay
//! what was measured.

use super::controls::Notice;
use super::controls::NumberField;
use super::controls::{rounded, LogScale, Slider};
use leptos::prelude::*;
use ridgeline_core::comms::collectives::Collective;
use ridgeline_core::format::count as counted;
use ridgeline_core::format::{grouped, seconds, si};
use ridgeline_core::gpu::collectives::{
    collective_report, cost_curve, sharded_curve, sharp_gain, CollectiveParams, CollectiveReport,
    CurvePoint, Regime,
};
use ridgeline_core::gpu::network::{
    ragged_fraction, ragged_fraction_approx, sharp_all_reduce_traffic, ShardedCost, SwitchTraffic,
};
use ridgeline_core::gpu::{GpuSystem, Scope};
use ridgeline_core::units::Bytes;

use super::compare::{compare_picker, compare_table, parse_vs, Comparison, Diff, VS};
use super::controls::option;
use super::derate::{self, Share};
use super::gpu_choice::{
    achievable_label, achievable_shares, find_gpu, find_gpu_chip, gpu_options, gpu_system,
};
use super::params::{WidgetParams, WidgetState};
use crate::charts::gpu_collectives::{draw, CollectivesChart, Curve, V_RANGE};
use crate::charts::size::{Frame, Shape, Size};
use crate::charts::svg;
use crate::input::{parse_count, parse_flag, parse_whole, short};
use ridgeline_core::hardware::Chip;
use ridgeline_core::roofline::derate::Derate;

/// Largest GPU count offered (2^16).
pub const GPUS_MAX: u64 = 65_536;
/// Positions of the array-size slider.
pub const STEPS: f64 = 160.0;
/// Sizes per decade on the drawn curves.
const PER_DECADE: u32 = 8;
/// The largest inner axis in the sharded table.
const MAX_Y: u32 = 256;
/// Shard counts in the ragged AllToAll table.
const SHARDS: [u32; 6] = [8, 16, 32, 64, 128, 256];
/// The chart's drawing size (SVG user units).
const SHAPE: Shape = Shape::new(760, 400, 320);
/// The shares of quoted peak the widget lets the reader set: a collective
/// moves bytes only.
const SHARES: [Share; 1] = [Share::Link];

/// The reader's settings; always valid.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GpuCollectivesParams {
    /// GPU id (a registry GPU with an NVLink domain, or the reader's own).
    pub gpu: &'static str,
    /// Which collective.
    pub kind: Collective,
    /// GPUs spanned: up to one node, or whole nodes.
    pub gpus: u64,
    /// Bytes in the whole array.
    pub bytes: f64,
    /// In-network reduction.
    pub sharp: bool,
    /// Destinations each token picks, for the ragged AllToAll table.
    pub k: u32,
    /// A second GPU running the same collective, if any.
    pub vs: Option<&'static Chip>,
    /// The share of quoted link bandwidth assumed ([`Derate::PEAK`]: the
    /// quoted links).
    pub derate: Derate,
}

impl Default for GpuCollectivesParams {
    fn default() -> Self {
        GpuCollectivesParams {
            gpu: "h100",
            kind: Collective::AllReduce,
            gpus: 8,
            bytes: 1e9,
            sharp: false,
            k: 8,
            vs: None,
            derate: Derate::PEAK,
        }
    }
}

/// Everything the widget shows.
#[derive(Debug, Clone, PartialEq)]
pub struct CollectivesView {
    /// The GPU system.
    pub system: GpuSystem,
    /// The collective at the reader's size.
    pub report: CollectiveReport,
    /// The model against size.
    pub curve: Vec<CurvePoint>,
    /// The model against size at the quoted link bandwidth, when the links
    /// are derated (`curve` is then the derated model).
    pub quoted: Option<Vec<CurvePoint>>,
    /// The AllReduce with SHARP the other way round, against size.
    pub other: Option<Vec<CurvePoint>>,
    /// SHARP's gain at this size in the model (`t_off / t_on − 1`), for an AllReduce.
    pub sharp_model_gain: Option<f64>,
    /// The book's predicted and measured gains on one node, and the measured bandwidth.
    pub sharp_book: Option<(f64, f64, f64)>,
    /// Bytes through the node's switches in a SHARP AllReduce, inside one node.
    pub sharp_traffic: Option<SwitchTraffic>,
    /// The book's measurements at this size: `(what, bytes per second)`.
    pub measured_here: Vec<(&'static str, f64)>,
    /// `AllGather_X(A[I_Y, J])` as the inner axis `Y` grows, across nodes.
    pub sharded: Vec<(u32, ShardedCost)>,
    /// Ragged AllToAll: `(shards Z, expected fraction, the book's approximation)`.
    pub ragged: Vec<(u32, f64, f64)>,
}

/// The GPU counts the slider steps through: powers of two inside a node, the
/// node itself, then whole nodes doubling (where the GPU has a scale-out network).
pub fn counts(system: &GpuSystem) -> Vec<u64> {
    let per = u64::from(system.gpus_per_node.max(2));
    let mut out: Vec<u64> = std::iter::successors(Some(2u64), |n| Some(n * 2))
        .take_while(|n| *n < per)
        .collect();
    out.push(per);
    if system.w_node.is_some() {
        out.extend(
            std::iter::successors(Some(2 * per), |n| Some(n * 2)).take_while(|n| *n <= GPUS_MAX),
        );
    }
    out
}

impl GpuCollectivesParams {
    /// The same collective on GPU `id`, keeping its scope: as many nodes
    /// (where the GPU has a scale-out network), or the same share of one node.
    pub fn on(&self, id: &'static str) -> Result<GpuCollectivesParams, String> {
        let old = gpu_system(self.gpu)?;
        let new = gpu_system(id)?;
        let (old_per, new_per) = (u64::from(old.gpus_per_node), u64::from(new.gpus_per_node));
        let gpus = if self.gpus > old_per && new.w_node.is_some() {
            self.gpus / old_per * new_per
        } else if self.gpus >= old_per {
            new_per
        } else {
            self.gpus.min(new_per)
        };
        // A reader's GPU may put up to 100,000 in one domain; the count stays
        // within what the `gpus` setting (and so the link) accepts.
        let gpus = gpus.min(GPUS_MAX);
        Ok(GpuCollectivesParams {
            gpu: id,
            gpus,
            ..*self
        })
    }

    /// The second GPU's collective and what it computes, if one is chosen.
    pub fn versus(&self) -> Option<(GpuCollectivesParams, CollectivesView)> {
        let q = self.on(self.vs?.id).ok()?;
        let v = q.compute().ok()?;
        Some((q, v))
    }

    /// The two GPUs' collectives figure by figure, when a second is chosen:
    /// GPUs spanned, the time, the bus bandwidth, the regime and the size
    /// where start-up and transfer are equal.
    pub fn comparison(&self) -> Option<Comparison> {
        let a = self.compute().ok()?;
        let (_, b) = self.versus()?;
        let (ra, rb) = (&a.report, &b.report);
        let rows = vec![
            Diff::number(
                "gpus",
                "GPUs spanned",
                ra.cost.gpus as f64,
                rb.cost.gpus as f64,
                grouped,
            ),
            Diff::number(
                "time",
                format!("{} of {}", self.kind.name(), si(self.bytes, "B", 3)),
                ra.total.0,
                rb.total.0,
                seconds,
            ),
            Diff::number(
                "bus-bw",
                "bus bandwidth per GPU",
                ra.bus_bandwidth.0,
                rb.bus_bandwidth.0,
                |x| si(x, "B/s", 3),
            ),
            Diff::words(
                "regime",
                "regime",
                regime_text(ra.regime),
                regime_text(rb.regime),
            ),
            Diff::number(
                "crossover",
                "start-up and transfer equal at",
                ra.crossover.0,
                rb.crossover.0,
                |x| si(x, "B", 3),
            ),
        ];
        Some(Comparison {
            a: a.system.name.into(),
            b: b.system.name.into(),
            rows,
        })
    }

    /// The Achievable preset: the links at the share the book measured on
    /// this GPU, or at their quoted bandwidth where it measured none.
    pub fn achievable(&self) -> Derate {
        achievable_shares(self.gpu, false)
    }

    /// Whether the collective leaves one node.
    pub fn scope(&self) -> Scope {
        match gpu_system(self.gpu) {
            Ok(s) if self.gpus > u64::from(s.gpus_per_node) => Scope::Network,
            _ => Scope::Node,
        }
    }

    fn core_params(&self, system: GpuSystem, sharp: bool) -> CollectiveParams {
        CollectiveParams {
            system,
            kind: self.kind,
            gpus: self.gpus,
            bytes: Bytes(self.bytes),
            sharp,
            latency: None,
        }
    }

    /// Everything computed, or why not: every number at the assumed link
    /// share.
    pub fn compute(&self) -> Result<CollectivesView, String> {
        let quoted_system = gpu_system(self.gpu)?;
        let system = quoted_system.derated(self.derate);
        let p = self.core_params(system, self.sharp);
        let report = collective_report(&p)?;
        let curve = cost_curve(&p, (3, 11), PER_DECADE)?;
        let quoted = if self.derate.is_peak() {
            None
        } else {
            Some(cost_curve(
                &self.core_params(quoted_system, self.sharp),
                (3, 11),
                PER_DECADE,
            )?)
        };
        let is_ar = self.kind == Collective::AllReduce;
        let other = if is_ar {
            Some(cost_curve(
                &self.core_params(system, !self.sharp),
                (3, 11),
                PER_DECADE,
            )?)
        } else {
            None
        };
        let (t_on, t_off) = if self.sharp {
            (report.total, report.latency + report.other_sharp)
        } else {
            (report.latency + report.other_sharp, report.total)
        };
        let n_node = system.gpus_per_node;
        let in_node = self.scope() == Scope::Node;
        let sharp_book = if is_ar && in_node {
            let (predicted, measured, bw) = sharp_gain(n_node)?;
            Some((predicted, measured, bw.0))
        } else {
            None
        };
        let sharp_traffic = if is_ar && self.sharp && in_node {
            let n = u32::try_from(self.gpus).map_err(|_| "gpus: too many".to_string())?;
            Some(sharp_all_reduce_traffic(Bytes(self.bytes), n).map_err(|e| e.to_string())?)
        } else {
            None
        };
        let measured_here = report
            .figure_curves
            .iter()
            .filter_map(|c| c.at(self.bytes).map(|bw| (c.label, bw.0)))
            .collect();
        let sharded = if self.kind != Collective::AllToAll && system.w_node.is_some() {
            sharded_curve(&system, Bytes(self.bytes), MAX_Y)?
        } else {
            Vec::new()
        };
        let ragged = if self.kind == Collective::AllToAll {
            SHARDS
                .iter()
                .map(|&z| {
                    Ok((
                        z,
                        ragged_fraction(z, self.k)?,
                        ragged_fraction_approx(z, self.k)?,
                    ))
                })
                .collect::<Result<Vec<_>, ridgeline_core::gpu::GpuError>>()
                .map_err(|e| format!("k: {e}"))?
        } else {
            Vec::new()
        };
        Ok(CollectivesView {
            system,
            sharp_model_gain: is_ar.then(|| t_off.0 / t_on.0 - 1.0),
            report,
            curve,
            quoted,
            other,
            sharp_book,
            sharp_traffic,
            measured_here,
            sharded,
            ragged,
        })
    }
}

impl WidgetParams for GpuCollectivesParams {
    const ORDER: &'static [&'static [&'static str]] = &[&["gpu"], &["scope"], &[VS]];

    /// Sets one parameter from text; a count the GPU's network cannot span is refused.
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut next = *self;
        match key {
            "gpu" => next = self.on(find_gpu(value)?)?,
            VS => next.vs = parse_vs(value, "GPU", |v| find_gpu_chip(v).ok())?,
            "op" => {
                next.kind = Collective::parse(value)
                    .ok_or_else(|| format!("op: unknown collective “{}”", short(value)))?
            }
            "scope" => {
                let per = u64::from(gpu_system(self.gpu)?.gpus_per_node);
                next.gpus = match value.trim() {
                    "node" => self.gpus.min(per),
                    "network" if self.gpus > per => self.gpus,
                    "network" => 2 * per,
                    other => {
                        return Err(format!("scope: “{}” is not node or network", short(other)))
                    }
                };
            }
            "gpus" => next.gpus = parse_whole::<u64>(value, "gpus", 2.0, GPUS_MAX as f64)?,
            "bytes" => next.bytes = parse_count(value, "bytes", V_RANGE.0, V_RANGE.1)?,
            "sharp" => next.sharp = parse_flag(value, "sharp")?,
            "k" => next.k = parse_whole::<u32>(value, "k", 1.0, 256.0)?,
            other => match derate::apply(&SHARES, next.derate, other, value) {
                Some(d) => next.derate = d?,
                None => return Err(super::params::unknown_setting(other)),
            },
        }
        next.compute()?;
        if let Some(vs) = next.vs {
            next.on(vs.id)
                .and_then(|q| q.compute())
                .map_err(|e| format!("{} (compared): {e}", vs.name))?;
        }
        *self = next;
        Ok(())
    }

    /// The parameters as `key=value` pairs.
    fn to_pairs(&self) -> Vec<(String, String)> {
        vec![
            ("gpu".into(), self.gpu.into()),
            ("op".into(), self.kind.key().into()),
            ("gpus".into(), self.gpus.to_string()),
            ("bytes".into(), format!("{}", self.bytes)),
            ("sharp".into(), if self.sharp { "1" } else { "0" }.into()),
            ("k".into(), self.k.to_string()),
        ]
        .into_iter()
        .chain(self.vs.map(|vs| (VS.into(), vs.id.into())))
        .chain(derate::pairs(&SHARES, self.derate))
        .collect()
    }
}

fn sharp_label(on: bool) -> &'static str {
    if on {
        "SHARP on"
    } else {
        "SHARP off"
    }
}

/// The chart's data: the model's and the book's curves, and the marker.
pub fn chart_of(
    p: &GpuCollectivesParams,
    v: &CollectivesView,
    vs: Option<&(GpuCollectivesParams, CollectivesView)>,
) -> CollectivesChart {
    let points = |c: &[CurvePoint]| -> Vec<(f64, f64)> {
        c.iter().map(|q| (q.bytes.0, q.bus_bandwidth.0)).collect()
    };
    let what = format!(
        "model: {} over {} ({})",
        p.kind.name(),
        counted(p.gpus, "GPU", "GPUs"),
        v.system.name
    );
    let share = format!("{:.0}%", 100.0 * p.derate.link());
    CollectivesChart {
        model: Curve {
            label: if p.kind == Collective::AllReduce {
                format!("{what}, {}", sharp_label(p.sharp))
            } else {
                what.clone()
            },
            // The collective, GPU count and system are in the controls
            // above the chart; on a phone the legend names the curve only.
            short: if p.kind == Collective::AllReduce {
                format!("model, {}", sharp_label(p.sharp))
            } else {
                "model".into()
            },
            points: points(v.quoted.as_ref().unwrap_or(&v.curve)),
        },
        derated: v.quoted.as_ref().map(|_| Curve {
            label: format!("the same at {share} of the quoted link bandwidth"),
            short: format!("model, links at {share}"),
            points: points(&v.curve),
        }),
        other: v.other.as_ref().map(|o| Curve {
            label: format!("model, {}", sharp_label(!p.sharp)),
            short: format!("model, {}", sharp_label(!p.sharp)),
            points: points(o),
        }),
        measured: v
            .report
            .figure_curves
            .iter()
            .map(|c| Curve {
                label: format!("{} (the book's measurement)", c.label),
                short: format!("measured: {}", c.short),
                points: c.points.to_vec(),
            })
            .collect(),
        vs: vs.map(|(q, w)| Curve {
            label: format!(
                "model: {} over {} ({})",
                q.kind.name(),
                counted(q.gpus, "GPU", "GPUs"),
                w.system.name
            ),
            short: format!("model, {}", w.system.name),
            points: points(&w.curve),
        }),
        marker: (p.bytes, v.report.bus_bandwidth.0),
    }
}

/// The chart as inline SVG.
pub fn chart_svg(
    p: &GpuCollectivesParams,
    v: &CollectivesView,
    vs: Option<&(GpuCollectivesParams, CollectivesView)>,
    size: Size,
) -> String {
    let m = chart_of(p, v, vs);
    svg(size.width, size.height, |root| {
        let _ = draw(root, &m, false);
    })
    .0
}

fn regime_text(r: Regime) -> &'static str {
    match r {
        Regime::Latency => "latency-bound",
        Regime::Bandwidth => "bandwidth-bound",
    }
}

fn percent(x: f64) -> String {
    format!("{:.0}%", 100.0 * x)
}

/// The widget.
#[component]
pub fn GpuCollectives(
    /// The chapter's `key=value` arguments (URL parameters override them).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let state = WidgetState::<GpuCollectivesParams>::new(&args);
    let WidgetState { params, notice } = state;
    let set = move |key: &'static str, value: String| {
        state.set(key, &value);
    };
    let data = Memo::new(move |_| params.with(|p| p.compute().ok()));
    let versus = Memo::new(move |_| params.with(GpuCollectivesParams::versus));
    let read = move |f: &dyn Fn(&CollectivesView) -> String| {
        data.with(|v| v.as_ref().map(f).unwrap_or_default())
    };
    let has = move |f: &dyn Fn(&CollectivesView) -> bool| data.with(|v| v.as_ref().is_some_and(f));
    let frame = Frame::new(SHAPE);
    let chart = move || {
        data.with(|v| {
            v.as_ref()
                .map(|v| versus.with(|w| params.with(|p| chart_svg(p, v, w.as_ref(), frame.get()))))
                .unwrap_or_default()
        })
    };

    let gpu_picks = gpu_options(move || params.with(|p| p.gpu));
    let vs_id = move || params.with(|p| p.vs.map_or("", |c| c.id));
    let vs_options = gpu_options(vs_id);
    let op_options =
        Collective::ALL.map(|c| option(c.key(), c.name(), move || params.with(|p| p.kind.key())));
    let scope_name = move || match params.with(GpuCollectivesParams::scope) {
        Scope::Node => "node",
        Scope::Network => "network",
    };
    let scope_options = [("node", "within one node"), ("network", "across nodes")]
        .map(|(v, l)| option(v, l, scope_name));
    let steps = move || {
        params.with(|p| {
            gpu_system(p.gpu)
                .map(|s| counts(&s))
                .unwrap_or_else(|_| vec![p.gpus])
        })
    };
    let count_pos = move || {
        let g = params.with(|p| p.gpus);
        let c = steps();
        c.iter()
            .position(|n| *n >= g)
            .unwrap_or(c.len().saturating_sub(1))
            .to_string()
    };
    let count_max = move || steps().len().saturating_sub(1).to_string();
    let count_text = move || {
        data.with(|v| {
            v.as_ref()
                .map(|v| {
                    let per = u64::from(v.system.gpus_per_node);
                    let g = v.report.cost.gpus;
                    if g > per {
                        format!(
                            "{} ({})",
                            counted(g, "GPU", "GPUs"),
                            counted(g / per, "node", "nodes")
                        )
                    } else {
                        format!("{} of one node", counted(g, "GPU", "GPUs"))
                    }
                })
                .unwrap_or_default()
        })
    };
    let bytes_text = move || format!("{}", params.with(|p| p.bytes));
    let is_ar = move || params.with(|p| p.kind == Collective::AllReduce);
    let is_a2a = move || params.with(|p| p.kind == Collective::AllToAll);

    let levels = move || {
        data.with(|v| {
            v.as_ref()
                .map(|v| {
                    let cost = &v.report.cost;
                    cost.levels
                        .iter()
                        .map(|l| {
                            let slowest = cost.bottleneck == Some(l.level);
                            view! {
                                <tr class:bottleneck=slowest data-level=l.level.label()>
                                    <th scope="row">{l.level.label()}</th>
                                    <td>{grouped(l.degree as f64)}</td>
                                    <td>{si(l.bandwidth.0, "B/s", 3)}</td>
                                    <td>{seconds(l.time.0)}{if slowest { " (slowest)" } else { "" }}</td>
                                </tr>
                            }
                        })
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        })
    };
    let sharded_rows = move || {
        data.with(|v| {
            v.as_ref()
                .map(|v| {
                    v.sharded
                        .iter()
                        .map(|(y, c)| {
                            view! {
                                <tr data-y=y.to_string()>
                                    <th scope="row">{y.to_string()}</th>
                                    <td>{seconds(c.at_node.0)}</td>
                                    <td>{seconds(c.scale_out.0)}</td>
                                    <td data-seconds=c.total.0.to_string()>{seconds(c.total.0)}</td>
                                </tr>
                            }
                        })
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        })
    };
    let ragged_rows = move || {
        data.with(|v| {
            v.as_ref()
                .map(|v| {
                    v.ragged
                        .iter()
                        .map(|(z, exact, approx)| {
                            view! {
                                <tr data-z=z.to_string()>
                                    <th scope="row">{z.to_string()}</th>
                                    <td data-fraction=exact.to_string()>{percent(*exact)}</td>
                                    <td>{percent(*approx)}</td>
                                </tr>
                            }
                        })
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        })
    };

    view! {
        <figure class="widget gpu-collectives" data-widget="gpu-collectives">
            <div class="controls">
                {super::controls::picker("GPU ", "gpu", None, move || params.with(|p| p.gpu).to_string(), gpu_picks, set)}
                <label>"Collective "
                    <select class="op" prop:value=move || params.with(|p| p.kind.key()) on:change=move |ev| set("op", event_target_value(&ev))>{op_options}</select>
                </label>
                <label>"Scope "
                    <select class="scope" prop:value=scope_name on:change=move |ev| set("scope", event_target_value(&ev))>{scope_options}</select>
                </label>
                <label>
                    <input type="checkbox" class="sharp"
                        checked=move || params.with(|p| p.sharp) prop:checked=move || params.with(|p| p.sharp)
                        on:change=move |ev| set("sharp", if event_target_checked(&ev) { "1".into() } else { "0".into() }) />
                    " SHARP (in-network reduction)"
                </label>
                {compare_picker(vs_options, vs_id, move |key, value| {
                    state.set_or_refresh(key, &value, true);
                })}
            </div>
            {Slider::new("0", move || count_max().to_string(), "1").id("gpu-collectives-gpus").class("gpus").valuetext(move || count_text().to_string()).row("GPUs", move || count_pos().to_string(), move |v: String| {
                        let i = v.parse::<usize>().unwrap_or(0);
                        let c = steps();
                        if let Some(n) = c.get(i.min(c.len().saturating_sub(1))) {
                            set("gpus", n.to_string());
                        }
                    }, view! { <output data-gpus=move || params.with(|p| p.gpus.to_string())>{count_text}</output> })}
            {Slider::positions(STEPS).id("gpu-collectives-bytes").class("bytes").valuetext(move || si(params.with(|p| p.bytes), "B", 3)).log_row("Array size", LogScale::new(STEPS, move || V_RANGE, rounded), move || params.with(|p| p.bytes), "bytes", set, NumberField::new("bytes", "array size in bytes", 10).class("bytes-text").view(bytes_text, set))}
            {derate::controls(
                "Achievable links (share of the quoted bandwidth)",
                &[(Share::Link, "gpu-collectives-link-derate")],
                move || params.with(|p| p.derate),
                move || params.with_untracked(GpuCollectivesParams::achievable),
                move || params.with(|p| achievable_label(p.gpu, false)),
                Some("The model at the share set here is drawn dashed and times every number below; the book's measured curves are drawn as measured."),
                set,
            )}
            <Notice notice=notice />
            <div class="plot" node_ref=frame.node style=frame.style()>
                <div class="layer" inner_html=chart role="img"
                    aria-label=move || params.with(|p| format!("bus bandwidth of {} against array size, the model beside the book's measurements; the marker is at {}", p.kind.name(), si(p.bytes, "B", 3)))></div>
            </div>
            <dl class="times gpu-collectives-numbers">
                <div>
                    <dt>{move || read(&|v| format!("{} of {} over {}", v.report.cost.kind.name(), si(v.report.cost.bytes.0, "B", 3), counted(v.report.cost.gpus, "GPU", "GPUs")))}</dt>
                    <dd data-total=move || read(&|v| v.report.total.0.to_string())>{move || read(&|v| seconds(v.report.total.0))}</dd>
                </div>
                <div>
                    <dt>"start-up + transfer"</dt>
                    <dd>{move || read(&|v| format!("{} + {}", seconds(v.report.latency.0), seconds(v.report.cost.total.0)))}</dd>
                </div>
                <div>
                    <dt>"effective bandwidth (array / time)"</dt>
                    <dd data-algo-bw=move || read(&|v| (v.report.cost.bytes.0 / v.report.total.0).to_string())>
                        {move || read(&|v| si(v.report.cost.bytes.0 / v.report.total.0, "B/s", 3))}
                    </dd>
                </div>
                <div>
                    <dt>"bus bandwidth per GPU"</dt>
                    <dd data-bus-bw=move || read(&|v| v.report.bus_bandwidth.0.to_string())>{move || read(&|v| si(v.report.bus_bandwidth.0, "B/s", 3))}</dd>
                </div>
                <div>
                    <dt>"regime"</dt>
                    <dd data-regime=move || read(&|v| regime_text(v.report.regime).to_string())>
                        {move || read(&|v| format!("{} (the terms are equal at {})", regime_text(v.report.regime), si(v.report.crossover.0, "B", 3)))}
                    </dd>
                </div>
                <div hidden=move || !is_ar()>
                    <dt>"SHARP's gain here"</dt>
                    <dd data-sharp-gain=move || read(&|v| v.sharp_model_gain.map(|g| g.to_string()).unwrap_or_default())>
                        {move || read(&|v| v.sharp_model_gain.map(|g| format!("{} more bandwidth with SHARP in the model", percent(g))).unwrap_or_default())}
                    </dd>
                </div>
            </dl>
            {compare_table(move || params.with(GpuCollectivesParams::comparison))}
            <p class="sharp-book" hidden=move || !has(&|v| v.sharp_book.is_some())>
                {move || read(&|v| v.sharp_book.map(|(pred, meas, bw)| format!(
                    "On one node of {} the book predicts a {} gain for large arrays, and measures about {} (an AllReduce near {}).",
                    v.system.gpus_per_node, percent(pred), percent(meas), si(bw, "B/s", 3)
                )).unwrap_or_default())}
                {move || read(&|v| v.sharp_traffic.map(|t| format!(
                    " With SHARP the node's switches take in {} and send out {}: each GPU sends the array once.",
                    si(t.ingress.0, "B", 3), si(t.egress.0, "B", 3)
                )).unwrap_or_default())}
            </p>
            <p class="measured-here" hidden=move || !has(&|v| !v.measured_here.is_empty())>
                {move || read(&|v| v.measured_here.iter().map(|(what, bw)| format!("The book measured {} at this size: {what}.", si(*bw, "B/s", 3))).collect::<Vec<_>>().join(" "))}
            </p>
            <div class="table-scroll" tabindex="0">
                <table class="levels">
                    <caption>"Each level of the network, bottom up (levels overlap; the slowest sets the transfer time)"</caption>
                    <thead><tr><th scope="col">"level"</th><th scope="col">"children spanned"</th><th scope="col">"link per child"</th><th scope="col">"time"</th></tr></thead>
                    <tbody>{levels}</tbody>
                </table>
            </div>
            <div class="table-scroll" tabindex="0" hidden=move || !has(&|v| !v.sharded.is_empty())>
                <table class="sharded">
                    <caption>{move || read(&|v| format!("AllGather of the same array also sharded over an inner axis Y (the book's rule, {} per node)", v.system.gpus_per_node))}</caption>
                    <thead><tr><th scope="col">"Y"</th><th scope="col">"NVLink term"</th><th scope="col">"scale-out term"</th><th scope="col">"time"</th></tr></thead>
                    <tbody>{sharded_rows}</tbody>
                </table>
            </div>
            <div hidden=move || !is_a2a()>
                {Slider::new("1", || "64".to_string(), "1").id("gpu-collectives-k").class("k").row("Destinations per token K", move || (params.with(|p| p.k.to_string())).to_string(), move |v: String| set("k", v), view! { <output>{move || params.with(|p| format!("K = {}", p.k))}</output> })}
                <div class="table-scroll" tabindex="0">
                    <table class="ragged">
                        <caption>"A ragged AllToAll: share of the dense AllToAll's bytes when each token picks K of Z shards at random"</caption>
                        <thead><tr><th scope="col">"shards Z"</th><th scope="col">"expected"</th><th scope="col">"min(K/Z, 1)·(Z−1)/Z"</th></tr></thead>
                        <tbody>{ragged_rows}</tbody>
                    </table>
                </div>
            </div>
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::widgets::params::testing::{assert_pairs_restore, assert_refused_keeps};
    use ridgeline_core::gpu::specs::MEASURED;

    #[test]
    fn one_h100_node_against_the_books_numbers() {
        let p = GpuCollectivesParams::default();
        let v = p.compute().unwrap();
        assert_eq!(p.scope(), Scope::Node);
        assert_eq!(v.report.cost.gpus, 8);
        // SHARP's predicted 75% gain on 8 GPUs, the measured 30% and ~480 GB/s.
        let (pred, meas, bw) = v.sharp_book.unwrap();
        assert!((pred - 0.75).abs() < 1e-12);
        assert_eq!(meas, MEASURED.sharp_gain.value);
        assert!((bw / 1e9 - 481.0).abs() < 1.0);
        // At 1 GB the model's gain is below the large-array limit, since the start-up cost is shared.
        let g = v.sharp_model_gain.unwrap();
        assert!(g > 0.5 && g < 0.75, "{g}");
        // 0.128 ms fitted start-up + 2·(7/8)·1 GB / 450 GB/s; with SHARP, + 1 GB / 450 GB/s.
        assert_eq!(seconds(v.report.total.0), "4.02 ms");
        assert_eq!(
            seconds((v.report.latency + v.report.other_sharp).0),
            "2.35 ms"
        );
        assert_eq!(percent(g), "71%");
        assert_eq!(si(v.report.bus_bandwidth.0, "B/s", 3), "436 GB/s");
        // The book's NCCL and TPU AllReduce curves are drawn, and the H100's is read at 1 GB.
        assert_eq!(chart_of(&p, &v, None).measured.len(), 2);
        assert_eq!(v.measured_here.len(), 2);
        let h100 = v.measured_here[0].1;
        assert!(h100 > 330e9 && h100 < 360e9, "{h100}");
        assert_eq!(v.curve.len(), 8 * 8 + 1);
        let svg = chart_svg(&p, &v, None, SHAPE.design());
        assert_eq!(svg.matches("the book&apos;s measurement").count(), 2);
        assert!(svg.contains("SHARP on"));
        // With SHARP ticked the book's SHARP-on run joins the measured curves.
        let mut on = p;
        on.apply("sharp", "1").unwrap();
        let w = on.compute().unwrap();
        let measured = chart_of(&on, &w, None).measured;
        assert_eq!(measured.len(), 3);
        assert_eq!(measured[2].short, "measured: 8xH100, SHARP on");
    }

    #[test]
    fn across_nodes_the_leaf_is_slowest_and_sharding_helps() {
        let mut p = GpuCollectivesParams::default();
        p.apply("op", "allgather").unwrap();
        p.apply("scope", "network").unwrap();
        assert_eq!(p.gpus, 16);
        p.apply("gpus", "1024").unwrap();
        let v = p.compute().unwrap();
        assert_eq!(p.scope(), Scope::Network);
        assert!(v.sharp_model_gain.is_none() && v.other.is_none());
        let bottleneck = v.report.cost.bottleneck.unwrap();
        assert_eq!(bottleneck.label(), "leaf (SU)");
        // Only an inner axis that spans nodes cuts the scale-out term.
        let t = |y: u32| v.sharded.iter().find(|(a, _)| *a == y).unwrap().1.total;
        assert_eq!(t(1), t(8));
        assert!((t(8).0 / t(64).0 - 8.0).abs() < 1e-9);
        // No measured H100 curve beyond one node; the TPU's stays for comparison.
        assert_eq!(v.report.figure_curves.len(), 1);
    }

    #[test]
    fn ragged_all_to_all_and_bad_input() {
        let mut p = GpuCollectivesParams::default();
        p.apply("op", "alltoall").unwrap();
        let v = p.compute().unwrap();
        assert_eq!(v.ragged.len(), SHARDS.len());
        // With K = 8 of Z = 256 shards the approximation K/Z is close to exact.
        let (_, exact, approx) = v.ragged[5];
        assert!((exact / approx - 1.0).abs() < 0.02, "{exact} {approx}");
        // (1 − (7/8)^8)·7/8: K = 8 of Z = 8 shards sends 57% of a dense AllToAll.
        assert_eq!(percent(v.ragged[0].1), "57%");
        // With Z = 8 the approximation overstates the bytes.
        assert!(v.ragged[0].2 > v.ragged[0].1);
        let before = p;
        assert!(
            p.apply("gpus", "12").is_err(),
            "12 GPUs leave a node half full"
        );
        assert!(p.apply("gpus", "1").is_err());
        assert!(p.apply("bytes", "abc").is_err());
        assert!(p.apply("bytes", "1e15").is_err());
        assert!(p.apply("op", "broadcast").is_err());
        assert!(p.apply("scope", "rack").is_err());
        assert!(p.apply("sharp", "maybe").is_err());
        assert!(p.apply("gpu", "v5e").is_err());
        assert!(p.apply("k", "0").is_err());
        assert_eq!(p, before);
        // The A100 has no scale-out figure in the book: only one node.
        p.apply("gpu", "a100").unwrap();
        assert!(p.apply("scope", "network").is_err());
        assert_eq!(counts(&gpu_system("a100").unwrap()), vec![2, 4, 8]);
    }

    #[test]
    fn changing_gpu_keeps_the_nodes_and_pairs_round_trip() {
        let mut p = GpuCollectivesParams::default();
        p.apply("gpus", "64").unwrap();
        p.apply("gpu", "gb200").unwrap();
        assert_eq!(p.gpus, 8 * 72);
        p.apply("sharp", "1").unwrap();
        p.apply("bytes", "5e8").unwrap();
        assert_pairs_restore(&p);
        let c = counts(&gpu_system("gb200").unwrap());
        assert_eq!(&c[..8], &[2, 4, 8, 16, 32, 64, 72, 144]);
        assert!(c.iter().all(|n| *n <= GPUS_MAX));
    }

    /// Issue #39: the link share times every number and draws the derated
    /// model dashed beside the quoted one; the measured curves do not move.
    #[test]
    fn the_link_share_times_every_number_and_round_trips() {
        let quoted = GpuCollectivesParams::default();
        let (p, refused) = GpuCollectivesParams::from_pairs(&crate::widgets::params::pairs(&[(
            "link_derate",
            "0.8",
        )]));
        assert!(refused.is_empty(), "{refused:?}");
        assert_eq!(p.derate.link(), 0.8);
        assert_pairs_restore(&p);
        assert!(quoted.to_pairs().iter().all(|(k, _)| k != "link_derate"));
        let (a, b) = (quoted.compute().unwrap(), p.compute().unwrap());
        // Worked by hand: the transfer at 0.8 × 450 GB/s takes 1.25 times as long.
        let ratio = b.report.cost.total.0 / a.report.cost.total.0;
        assert!((ratio - 1.25).abs() < 1e-12, "{ratio}");
        assert_eq!(b.report.latency, a.report.latency);
        assert!(b.report.bus_bandwidth.0 < a.report.bus_bandwidth.0);
        assert_eq!(b.measured_here, a.measured_here);
        assert_eq!(b.quoted.as_ref(), Some(&a.curve));
        let m = chart_of(&p, &b, None);
        assert_eq!(m.model.points, chart_of(&quoted, &a, None).model.points);
        assert_eq!(m.measured, chart_of(&quoted, &a, None).measured);
        assert!(m.derated.unwrap().label.contains("80%"));
        assert!(chart_of(&quoted, &a, None).derated.is_none());
        assert_eq!(m.marker.1, b.report.bus_bandwidth.0);
        // Shares outside (0, 1] are refused by name and change nothing.
        for bad in ["0", "1.5", "-0.2", "fast"] {
            let mut q = p;
            let e = q.apply("link_derate", bad).unwrap_err();
            assert!(e.starts_with("the link derate"), "{bad}: {e}");
            assert_eq!(q, p);
        }
        // The Achievable preset is the book's measured NCCL share on an H100 only.
        assert!((quoted.achievable().link() - 0.796).abs() < 0.003);
        assert_eq!(quoted.achievable().flops(), 1.0);
        let mut b200 = quoted;
        b200.apply("gpu", "b200").unwrap();
        assert!(b200.achievable().is_peak());
        assert!(achievable_label("b200", false).contains("no measured link share"));
    }

    /// Issue #19: a second GPU runs the same collective at the same scope;
    /// its curve shares the axes and the difference is spelled out.
    #[test]
    fn a_second_gpu_on_the_same_axes() {
        let mut p = GpuCollectivesParams::default();
        p.apply("vs", "b200").unwrap();
        assert_pairs_restore(&p);
        let (q, w) = p.versus().unwrap();
        assert_eq!((q.gpu, q.gpus), ("b200", 8));
        let v = p.compute().unwrap();
        let m = chart_of(&p, &v, Some(&(q, w.clone())));
        assert!(m.vs.as_ref().unwrap().label.contains("NVIDIA B200"));
        let svg = chart_svg(&p, &v, Some(&(q, w.clone())), SHAPE.design());
        assert!(svg.contains("NVIDIA B200"), "no second curve's legend");
        let c = p.comparison().unwrap();
        let row = |k: &str| c.row(k).unwrap().clone();
        assert_eq!(row("time").a, seconds(v.report.total.0));
        assert_eq!(row("time").b, seconds(w.report.total.0));
        // A B200's NVLink is twice an H100's: a 1 GB AllReduce in one node is
        // bandwidth-bound on both and about twice as fast on the B200.
        assert_eq!(row("regime").ratio_text(), "same");
        let r = row("time").ratio.unwrap();
        assert!((0.45..0.6).contains(&r), "{r}");
        // Across 4 nodes the compared GPU spans 4 of its own nodes.
        p.apply("gpus", "32").unwrap();
        assert_eq!(p.versus().unwrap().0.gpus, 32);
        // Four NVL72 racks are 288 GPUs.
        p.apply("vs", "gb200").unwrap();
        assert_eq!(p.versus().unwrap().0.gpus, 288);
        assert_refused_keeps(&p, &[("vs", "v5e"), ("vs", "x")]);
        p.apply("vs", "").unwrap();
        assert!(p.comparison().is_none());
    }
}
