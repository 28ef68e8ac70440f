//! GPU networking and collectives (Part 12): NVLink nodes under an InfiniBand
//! fat tree, and what AllGather, ReduceScatter, AllReduce and AllToAll cost at
//! each level.
//!
//! Inside a node every GPU reaches every other through the NVSwitches, so a ring
//! collective of `B` bytes over `N` GPUs costs `B(N−1)/(N·W_gpu)`; an AllToAll
//! only `B(N−1)/(W·N²)`. Beyond the node the tree reduces level by level, and
//! the cost is the slowest level: `bytes · max_i (D_i−1)/(D_i·W_link_i)`.
//!
//! ```
//! use ridgeline_core::dtype::Dtype;
//! use ridgeline_core::gpu::GpuSystem;
//! use ridgeline_core::gpu::network::LevelKind;
//!
//! let tree = GpuSystem::from_id("h100", Dtype::Bf16).unwrap().fat_tree().unwrap();
//! let pod = tree.layout(1024).unwrap();
//! assert_eq!((pod.nodes, pod.sus, pod.switches()), (128, Some(4), Some(560)));
//! assert_eq!(tree.crosses(8).unwrap(), Some(LevelKind::Node));
//! assert_eq!(tree.crosses(512).unwrap(), Some(LevelKind::Spine));
//! // The leaf sets the AllGather bandwidth of the whole pod: 400e9 · 32/31.
//! assert_eq!((tree.all_gather_bandwidth().0 / 1e9).round(), 413.0);
//! ```

use super::specs::{
    nvlink_generation, SuperPodDesign, DGX_SUPERPOD, GB200_SUPERPOD_GPUS, IB_NDR_SWITCH,
};
use super::superpod::MAX_GPUS;
use super::{nonzero, GpuError, GpuSystem};
use crate::check::positive;
use crate::comms::collectives::Collective;
use crate::hardware::Source;
use crate::units::{Bytes, BytesPerSec, Seconds};

/// Whether to keep the `(N−1)/N` ring factors or use the book's large-`N` forms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Precision {
    /// With every `(N−1)/N` factor.
    #[default]
    Exact,
    /// The book's headline approximations (`B/W`, `B/(W·N)`), factors dropped.
    Asymptotic,
}

/// Knobs for a collective.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CollectiveOptions {
    /// Exact or asymptotic.
    pub precision: Precision,
    /// In-network reduction (SHARP): an AllReduce costs `B/W` instead of `2B(N−1)/(N·W)`.
    pub sharp: bool,
    /// Size of an inner sharding axis `Y` the array is also split over (1 if none).
    pub inner: u32,
    /// For a ragged AllToAll: at most `k` of the destinations receive anything.
    pub active: Option<u32>,
}

impl Default for CollectiveOptions {
    fn default() -> Self {
        CollectiveOptions {
            precision: Precision::Exact,
            sharp: false,
            inner: 1,
            active: None,
        }
    }
}

impl CollectiveOptions {
    /// The same options with the asymptotic forms.
    pub fn asymptotic(self) -> Self {
        CollectiveOptions {
            precision: Precision::Asymptotic,
            ..self
        }
    }

    /// The same options with SHARP on.
    pub fn with_sharp(self) -> Self {
        CollectiveOptions {
            sharp: true,
            ..self
        }
    }

    /// The same options with an inner axis of size `y`.
    pub fn with_inner(self, y: u32) -> Self {
        CollectiveOptions { inner: y, ..self }
    }

    /// The same options for a ragged AllToAll with `k` active destinations.
    pub fn with_active(self, k: u32) -> Self {
        CollectiveOptions {
            active: Some(k),
            ..self
        }
    }
}

fn ring(d: f64, precision: Precision) -> f64 {
    match precision {
        Precision::Exact => (d - 1.0) / d,
        Precision::Asymptotic => 1.0,
    }
}

fn ragged(active: Option<u32>, parties: f64) -> Result<f64, GpuError> {
    match active {
        None => Ok(1.0),
        Some(k) => {
            nonzero("active destinations k", u64::from(k))?;
            Ok((f64::from(k) / parties).min(1.0))
        }
    }
}

/// A collective over `n` GPUs of one NVLink domain, each egressing `w_gpu`.
///
/// AllGather/ReduceScatter `B(N−1)/(N·W)`; AllReduce twice that, or `B/W` with SHARP;
/// AllToAll `B(N−1)/(W·N²)`, times `min(k/N, 1)` when only `k` destinations are
/// active. An inner axis `Y` divides the bytes each GPU moves by `Y`.
pub fn in_node(
    kind: Collective,
    bytes: Bytes,
    n: u32,
    w_gpu: BytesPerSec,
    opts: CollectiveOptions,
) -> Result<Seconds, GpuError> {
    positive("bytes", bytes.0)?;
    nonzero("GPU count", u64::from(n))?;
    positive("GPU bandwidth", w_gpu.0)?;
    nonzero("inner axis", u64::from(opts.inner))?;
    let n = f64::from(n);
    let y = f64::from(opts.inner);
    if n == 1.0 {
        return Ok(Seconds(0.0));
    }
    let t = match kind {
        Collective::AllGather | Collective::ReduceScatter => {
            bytes.0 * ring(n, opts.precision) / (y * w_gpu.0)
        }
        Collective::AllReduce if opts.sharp => bytes.0 / (y * w_gpu.0),
        Collective::AllReduce => 2.0 * bytes.0 * ring(n, opts.precision) / (y * w_gpu.0),
        Collective::AllToAll => {
            if opts.inner != 1 {
                return Err(GpuError::TooLarge {
                    what: "inner axis of an AllToAll",
                    value: y,
                    max: 1.0,
                });
            }
            bytes.0 * ring(n, opts.precision) / (w_gpu.0 * n) * ragged(opts.active, n)?
        }
    };
    Ok(Seconds(t))
}

/// An AllToAll spanning `m` nodes: `B(M−1)/(M²·W_node)` (each node effectively gets
/// `W_node / M`), times `min(k/M, 1)` when ragged.
pub fn cross_node_all_to_all(
    bytes: Bytes,
    m: u32,
    w_node: BytesPerSec,
    opts: CollectiveOptions,
) -> Result<Seconds, GpuError> {
    positive("bytes", bytes.0)?;
    nonzero("node count", u64::from(m))?;
    positive("node bandwidth", w_node.0)?;
    let m = f64::from(m);
    if m == 1.0 {
        return Ok(Seconds(0.0));
    }
    Ok(Seconds(
        bytes.0 * ring(m, opts.precision) / (m * w_node.0) * ragged(opts.active, m)?,
    ))
}

/// The expected fraction of a dense AllToAll's bytes a ragged one sends when each
/// token picks `k` of `z` shards at random: `(1 − ((Z−1)/Z)^K)·(Z−1)/Z`.
pub fn ragged_fraction(z: u32, k: u32) -> Result<f64, GpuError> {
    nonzero("shards Z", u64::from(z))?;
    nonzero("choices K", u64::from(k))?;
    let z = f64::from(z);
    let keep = (z - 1.0) / z;
    Ok((1.0 - keep.powf(f64::from(k))) * keep)
}

/// The book's approximation of [`ragged_fraction`]: `min(K/Z, 1)·(Z−1)/Z`.
pub fn ragged_fraction_approx(z: u32, k: u32) -> Result<f64, GpuError> {
    nonzero("shards Z", u64::from(z))?;
    nonzero("choices K", u64::from(k))?;
    let z = f64::from(z);
    Ok((f64::from(k) / z).min(1.0) * (z - 1.0) / z)
}

/// The two terms of a reduction over an array also sharded over an inner axis.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ShardedCost {
    /// `(bytes / W_gpu) / min(Y, D_node)`.
    pub at_node: Seconds,
    /// `(bytes / W_node) · D_node / max(D_node, Y)`.
    pub scale_out: Seconds,
    /// The larger of the two.
    pub total: Seconds,
}

/// The book's simple rule for `AllGather_X(A[I_Y, J])` (or a ReduceScatter) with `Y`
/// the inner axis: the node term shrinks with `Y` up to the node size, the
/// scale-out term only once `Y` spans several nodes.
pub fn sharded_reduction(
    bytes: Bytes,
    y: u32,
    d_node: u32,
    w_gpu: BytesPerSec,
    w_node: BytesPerSec,
) -> Result<ShardedCost, GpuError> {
    positive("bytes", bytes.0)?;
    nonzero("inner axis Y", u64::from(y))?;
    nonzero("GPUs per node", u64::from(d_node))?;
    positive("GPU bandwidth", w_gpu.0)?;
    positive("node bandwidth", w_node.0)?;
    let (y, d) = (f64::from(y), f64::from(d_node));
    let at_node = Seconds(bytes.0 / w_gpu.0 / y.min(d));
    let scale_out = Seconds(bytes.0 / w_node.0 * d / d.max(y));
    Ok(ShardedCost {
        at_node,
        scale_out,
        total: at_node.max(scale_out),
    })
}

/// The factor `D_node / max(D_node, Y)` by which a model-parallel axis of `y` GPUs
/// that spans several nodes cuts the cost of the outer (data-parallel) reduction.
pub fn outer_reduction_factor(y: u32, d_node: u32) -> Result<f64, GpuError> {
    nonzero("model-parallel axis", u64::from(y))?;
    nonzero("GPUs per node", u64::from(d_node))?;
    let d = f64::from(d_node);
    Ok(d / d.max(f64::from(y)))
}

/// Bytes through one switch during a collective.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SwitchTraffic {
    /// Bytes into the switch.
    pub ingress: Bytes,
    /// Bytes out of it.
    pub egress: Bytes,
}

/// Switch traffic of an AllGather of `bytes` over one SU of `m` nodes of `n` GPUs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SuAllGatherTraffic {
    /// A node's NVSwitch: `B` in, `B·N` out.
    pub node_switch: SwitchTraffic,
    /// The top (leaf) switch: `B` in, `B(M−1)` out.
    pub top_switch: SwitchTraffic,
}

/// Counts the bytes each switch moves in an SU AllGather (Part 12 Quiz 4 Q1).
pub fn su_all_gather_traffic(bytes: Bytes, m: u32, n: u32) -> Result<SuAllGatherTraffic, GpuError> {
    positive("bytes", bytes.0)?;
    nonzero("nodes M", u64::from(m))?;
    nonzero("GPUs per node N", u64::from(n))?;
    let (b, m, n) = (bytes.0, f64::from(m), f64::from(n));
    // Node switch: N GPUs send B/(MN) each up (B/M), it egresses B/M to the top,
    // ingresses B(M−1)/M back, and egresses B − B/(MN) to each of N GPUs.
    let node_in = n * b / (m * n) + b * (m - 1.0) / m;
    let node_out = b / m + n * (b - b / (m * n));
    Ok(SuAllGatherTraffic {
        node_switch: SwitchTraffic {
            ingress: Bytes(node_in),
            egress: Bytes(node_out),
        },
        top_switch: SwitchTraffic {
            ingress: Bytes(m * b / m),
            egress: Bytes(m * b * (m - 1.0) / m),
        },
    })
}

/// Switch traffic of a SHARP AllReduce of `bytes` in one node of `n` GPUs
/// (Part 12 Quiz 4 Q2): `B·N` each way, so the time is `B / W_gpu`.
pub fn sharp_all_reduce_traffic(bytes: Bytes, n: u32) -> Result<SwitchTraffic, GpuError> {
    positive("bytes", bytes.0)?;
    nonzero("GPUs N", u64::from(n))?;
    let (b, n) = (bytes.0, f64::from(n));
    // In: B(N−1)/N from each GPU, then the B/N partial sums back. Out: B/N to each
    // GPU, then the reduced shards multicast to N − 1 peers each.
    Ok(SwitchTraffic {
        ingress: Bytes(n * b * (n - 1.0) / n + n * b / n),
        egress: Bytes(n * b / n + n * b * (n - 1.0) / n),
    })
}

/// A level of the switching hierarchy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LevelKind {
    /// The NVLink domain (node).
    Node,
    /// Leaf InfiniBand switches joining the nodes of a Scalable Unit.
    Leaf,
    /// Spine switches joining SUs.
    Spine,
    /// The scale-out fabric above an NVL72 rack (the book gives no leaf/spine split).
    ScaleOut,
}

impl LevelKind {
    /// Human label.
    pub fn label(self) -> &'static str {
        match self {
            LevelKind::Node => "node (NVLink)",
            LevelKind::Leaf => "leaf (SU)",
            LevelKind::Spine => "spine",
            LevelKind::ScaleOut => "scale-out",
        }
    }
}

/// One level of a fat tree.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TreeLevel {
    /// Which level.
    pub kind: LevelKind,
    /// Children under one unit of this level in the reference design (`D_i`).
    pub children: u32,
    /// GPUs under each child (`S_{i−1}`: 1 at the node, 8 at the leaf, 256 at the spine).
    pub child_gpus: u64,
    /// Bandwidth of each child's link into this level (`W_link_i`), each way.
    pub uplink: BytesPerSec,
    /// Switches in one unit, where the book gives them.
    pub switches: Option<u32>,
    /// Total switch bandwidth of one unit (`switches × ports × port bandwidth`).
    pub switch_bandwidth: Option<BytesPerSec>,
    /// The same counted as Appendix B does (1.6 TB/s per IB switch), where it differs.
    pub switch_bandwidth_appendix_b: Option<BytesPerSec>,
    /// Whether the level grows with the cluster (the top of the tree).
    pub open: bool,
    /// Where the book gives these.
    pub source: Source,
}

impl TreeLevel {
    /// GPUs under one unit in the reference design.
    pub fn gpus(&self) -> u64 {
        u64::from(self.children) * self.child_gpus
    }

    /// Cable bandwidth of one unit: `D_i · W_link_i`.
    pub fn cable_bandwidth(&self) -> BytesPerSec {
        self.uplink * f64::from(self.children)
    }

    /// AllGather/ReduceScatter bandwidth of the level: `D_i · W_link_i / (D_i − 1)`.
    pub fn effective_bandwidth(&self) -> BytesPerSec {
        let d = f64::from(self.children);
        if d <= 1.0 {
            return BytesPerSec(f64::INFINITY);
        }
        self.uplink * (d / (d - 1.0))
    }
}

/// The cost of one level in a collective.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LevelCost {
    /// Which level.
    pub level: LevelKind,
    /// Children of that level the collective spans.
    pub degree: u64,
    /// The link bandwidth used.
    pub bandwidth: BytesPerSec,
    /// Time at that level.
    pub time: Seconds,
}

/// A collective priced over a fat tree.
#[derive(Debug, Clone, PartialEq)]
pub struct CollectiveCost {
    /// Which collective.
    pub kind: Collective,
    /// Bytes in the (whole) array.
    pub bytes: Bytes,
    /// GPUs spanned.
    pub gpus: u64,
    /// Each level crossed, bottom up.
    pub levels: Vec<LevelCost>,
    /// The slowest level's time (levels overlap).
    pub total: Seconds,
    /// The slowest level.
    pub bottleneck: Option<LevelKind>,
}

impl CollectiveCost {
    /// The highest level crossed, `None` for a single GPU.
    pub fn crosses(&self) -> Option<LevelKind> {
        self.levels.last().map(|l| l.level)
    }

    /// `bytes / total`: the bandwidth the collective effectively runs at.
    pub fn algo_bandwidth(&self) -> Option<BytesPerSec> {
        (self.total.0 > 0.0).then(|| self.bytes / self.total)
    }
}

/// How many units of each kind a cluster of some size uses.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClusterLayout {
    /// GPUs asked for.
    pub gpus: u64,
    /// GPUs per node.
    pub gpus_per_node: u32,
    /// Nodes (NVLink domains), rounding up.
    pub nodes: u64,
    /// Scalable Units, in a DGX design.
    pub sus: Option<u64>,
    /// NVSwitches in all nodes, where the book gives the count per node.
    pub nvswitches: Option<u64>,
    /// Leaf switches, in a DGX design.
    pub leaf_switches: Option<u64>,
    /// Spine switches, in a two-tier DGX design (0 for one SU; `None` when a core layer is needed).
    pub spine_switches: Option<u64>,
    /// Cables between each leaf and each spine switch.
    pub cables_per_leaf_spine: Option<u64>,
    /// Whether a two-tier fat tree of 64-port switches runs out of ports.
    pub needs_core_layer: bool,
    /// The highest level a collective over all these GPUs crosses.
    pub highest_level: Option<LevelKind>,
}

impl ClusterLayout {
    /// Every switch (NVSwitches + leaf + spine), where all are known.
    pub fn switches(&self) -> Option<u64> {
        Some(self.nvswitches? + self.leaf_switches? + self.spine_switches?)
    }
}

/// The switched network of a GPU cluster: an NVLink level, then scale-out levels.
#[derive(Debug, Clone, PartialEq)]
pub struct FatTree {
    /// GPUs per node.
    pub gpus_per_node: u32,
    /// NVSwitches per node, where the book gives them.
    pub nvswitches_per_node: Option<u32>,
    /// Levels bottom up; the first is always the node.
    pub levels: Vec<TreeLevel>,
    /// The SuperPod design above the node, for 8-GPU DGX nodes.
    pub design: Option<&'static SuperPodDesign>,
}

impl FatTree {
    /// The tree for a GPU system: 8-GPU nodes sit in the DGX SuperPod (32-node SUs,
    /// 4 SUs per spine pod, growing by adding SUs); NVL72 racks sit under one
    /// scale-out level at their 3.6 TB/s egress; GPUs without a scale-out figure
    /// get the node only.
    pub fn for_system(sys: &GpuSystem) -> Result<FatTree, GpuError> {
        let gen = sys
            .generation()
            .and_then(|g| nvlink_generation(g.architecture));
        let nvswitches = gen.and_then(|g| g.switches_for(sys.gpus_per_node));
        let node = TreeLevel {
            kind: LevelKind::Node,
            children: sys.gpus_per_node,
            child_gpus: 1,
            uplink: sys.w_gpu,
            switches: nvswitches,
            switch_bandwidth: gen
                .and_then(|g| g.switch_bandwidth())
                .zip(nvswitches)
                .map(|(bw, s)| bw * f64::from(s)),
            switch_bandwidth_appendix_b: None,
            open: false,
            source: sys
                .chip
                .link(crate::hardware::Link::NvLink)
                .map(|l| l.source)
                .unwrap_or(DGX_SUPERPOD.source),
        };
        let mut levels = vec![node];
        let mut design = None;
        if let Some(w_node) = sys.w_node {
            let per_node = u64::from(sys.gpus_per_node);
            if sys.gpus_per_node == 8 {
                let d = &DGX_SUPERPOD;
                let ib = d.switch.bandwidth();
                let ib_half = d.switch.port_bandwidth * f64::from(d.switch.ports / 2);
                levels.push(TreeLevel {
                    kind: LevelKind::Leaf,
                    children: d.nodes_per_su,
                    child_gpus: per_node,
                    uplink: w_node,
                    switches: Some(d.leaf_switches_per_su),
                    switch_bandwidth: Some(ib * f64::from(d.leaf_switches_per_su)),
                    switch_bandwidth_appendix_b: Some(ib_half * f64::from(d.leaf_switches_per_su)),
                    open: false,
                    source: d.source,
                });
                levels.push(TreeLevel {
                    kind: LevelKind::Spine,
                    children: d.sus_per_pod,
                    child_gpus: per_node * u64::from(d.nodes_per_su),
                    uplink: sys
                        .derate
                        .bandwidth(crate::hardware::Link::ScaleOut, d.su_uplink()),
                    switches: Some(d.spine_switches_per_pod),
                    switch_bandwidth: Some(ib * f64::from(d.spine_switches_per_pod)),
                    switch_bandwidth_appendix_b: Some(
                        ib_half * f64::from(d.spine_switches_per_pod),
                    ),
                    open: true,
                    source: d.source,
                });
                design = Some(d);
            } else {
                levels.push(TreeLevel {
                    kind: LevelKind::ScaleOut,
                    children: GB200_SUPERPOD_GPUS.value / sys.gpus_per_node.max(1),
                    child_gpus: per_node,
                    uplink: w_node,
                    switches: None,
                    switch_bandwidth: None,
                    switch_bandwidth_appendix_b: None,
                    open: true,
                    source: GB200_SUPERPOD_GPUS.source,
                });
            }
        }
        Ok(FatTree {
            gpus_per_node: sys.gpus_per_node,
            nvswitches_per_node: nvswitches,
            levels,
            design,
        })
    }

    /// The levels a collective over `gpus` crosses, with the children it spans at each.
    pub fn span(&self, gpus: u64) -> Result<Vec<(TreeLevel, u64)>, GpuError> {
        nonzero("GPU count", gpus)?;
        let mut out = Vec::new();
        for lvl in &self.levels {
            if gpus <= lvl.child_gpus {
                return Ok(out);
            }
            if lvl.child_gpus == u64::from(self.gpus_per_node)
                && !gpus.is_multiple_of(lvl.child_gpus)
            {
                return Err(GpuError::NotDivisible {
                    what: "GPUs in a collective that leaves one node",
                    value: gpus,
                    of: lvl.child_gpus,
                });
            }
            // Whole nodes, but a partial SU still spans one more child above.
            let units = gpus.div_ceil(lvl.child_gpus);
            if lvl.open || units <= u64::from(lvl.children) {
                out.push((*lvl, units));
                return Ok(out);
            }
            out.push((*lvl, u64::from(lvl.children)));
        }
        match self.levels.last() {
            Some(last) if last.kind != LevelKind::Node => Err(GpuError::TooLarge {
                what: "GPU count",
                value: gpus as f64,
                max: last.gpus() as f64,
            }),
            _ => Err(GpuError::Missing {
                chip: "this GPU",
                what: "scale-out (node egress) bandwidth, so nothing beyond one node",
            }),
        }
    }

    /// The highest level a collective over `gpus` crosses (`None` for one GPU).
    pub fn crosses(&self, gpus: u64) -> Result<Option<LevelKind>, GpuError> {
        Ok(self.span(gpus)?.last().map(|(l, _)| l.kind))
    }

    /// Each level's AllGather bandwidth `D_i · W_link_i / (D_i − 1)` at its reference degree.
    pub fn effective_bandwidths(&self) -> Vec<(LevelKind, BytesPerSec)> {
        self.levels
            .iter()
            .map(|l| (l.kind, l.effective_bandwidth()))
            .collect()
    }

    /// The whole tree's AllGather/ReduceScatter bandwidth: the smallest level's.
    pub fn all_gather_bandwidth(&self) -> BytesPerSec {
        self.levels
            .iter()
            .map(|l| l.effective_bandwidth())
            .fold(BytesPerSec(f64::INFINITY), BytesPerSec::min)
    }

    /// Prices a collective of `bytes` (the whole array) over `gpus` GPUs.
    ///
    /// AllGather/ReduceScatter reduce level by level and overlap, so the cost is
    /// the slowest level: `bytes · S/max(Y, S) · (D−1)/(D · W_link)`, where `S` is
    /// the GPUs under each child and `Y` the inner axis (the book's
    /// `bytes · max_i (D_i−1)/(D_i · max(Y, S_{i−1}) · W_link_i)` with `W_link_i`
    /// per GPU). AllReduce doubles it, or drops the ring factor with SHARP.
    /// AllToAll is not hierarchical: `B(N−1)/(W N²)` in a node,
    /// `B(M−1)/(M² W_node)` over `M` nodes.
    pub fn collective(
        &self,
        kind: Collective,
        bytes: Bytes,
        gpus: u64,
        opts: CollectiveOptions,
    ) -> Result<CollectiveCost, GpuError> {
        positive("bytes", bytes.0)?;
        nonzero("inner axis", u64::from(opts.inner))?;
        if !gpus.is_multiple_of(u64::from(opts.inner)) {
            return Err(GpuError::NotDivisible {
                what: "GPU count",
                value: gpus,
                of: u64::from(opts.inner),
            });
        }
        let spans = self.span(gpus)?;
        let mut levels = Vec::with_capacity(spans.len());
        if kind == Collective::AllToAll {
            if let Some((top, degree)) = spans.last() {
                let time = if spans.len() == 1 {
                    in_node(kind, bytes, clamp_u32(*degree), top.uplink, opts)?
                } else {
                    let w_node = spans[1].0.uplink;
                    let m = gpus / u64::from(self.gpus_per_node.max(1));
                    cross_node_all_to_all(bytes, clamp_u32(m), w_node, opts)?
                };
                levels.push(LevelCost {
                    level: top.kind,
                    degree: *degree,
                    bandwidth: if spans.len() == 1 {
                        top.uplink
                    } else {
                        spans[1].0.uplink
                    },
                    time,
                });
            }
        } else {
            let y = f64::from(opts.inner);
            for (lvl, degree) in &spans {
                let s = lvl.child_gpus as f64;
                let share = s / y.max(s);
                let base = bytes.0 * share / lvl.uplink.0;
                let r = ring(*degree as f64, opts.precision);
                let t = match kind {
                    Collective::AllReduce if opts.sharp => base,
                    Collective::AllReduce => 2.0 * base * r,
                    _ => base * r,
                };
                levels.push(LevelCost {
                    level: lvl.kind,
                    degree: *degree,
                    bandwidth: lvl.uplink,
                    time: Seconds(t),
                });
            }
        }
        let slowest = levels
            .iter()
            .max_by(|a, b| a.time.0.total_cmp(&b.time.0))
            .copied();
        Ok(CollectiveCost {
            kind,
            bytes,
            gpus,
            total: slowest.map_or(Seconds(0.0), |l| l.time),
            bottleneck: slowest.map(|l| l.level),
            levels,
        })
    }

    /// How many nodes, SUs and switches a cluster of `gpus` (1 to [`MAX_GPUS`]) uses.
    pub fn layout(&self, gpus: u64) -> Result<ClusterLayout, GpuError> {
        nonzero("GPU count", gpus)?;
        if gpus > MAX_GPUS {
            return Err(GpuError::TooLarge {
                what: "GPU count",
                value: gpus as f64,
                max: MAX_GPUS as f64,
            });
        }
        let per_node = u64::from(self.gpus_per_node.max(1));
        let nodes = gpus.div_ceil(per_node);
        let rounded = nodes * per_node;
        let highest_level = if gpus == 1 {
            None
        } else {
            self.crosses(if nodes == 1 { gpus } else { rounded })?
        };
        let nvswitches = self
            .nvswitches_per_node
            .map(|s| u64::from(s).saturating_mul(nodes));
        let mut layout = ClusterLayout {
            gpus,
            gpus_per_node: self.gpus_per_node,
            nodes,
            sus: None,
            nvswitches,
            leaf_switches: None,
            spine_switches: None,
            cables_per_leaf_spine: None,
            needs_core_layer: false,
            highest_level,
        };
        if let Some(d) = self.design {
            let sus = nodes.div_ceil(u64::from(d.nodes_per_su));
            let core = rounded > d.two_tier_limit();
            layout.sus = Some(sus);
            layout.leaf_switches = Some(sus.saturating_mul(u64::from(d.leaf_switches_per_su)));
            layout.needs_core_layer = core;
            if sus <= 1 {
                layout.spine_switches = Some(0);
            } else if !core {
                let spines = (u64::from(d.spine_switches_per_pod).saturating_mul(sus))
                    .div_ceil(u64::from(d.sus_per_pod));
                layout.spine_switches = Some(spines);
                layout.cables_per_leaf_spine = Some(u64::from(d.leaf_uplink_ports()) / spines);
            }
        }
        Ok(layout)
    }
}

fn clamp_u32(x: u64) -> u32 {
    u32::try_from(x).unwrap_or(u32::MAX)
}

/// The IB switch bandwidth Part 12's summary table uses (3.2 TB/s).
pub fn ib_switch_bandwidth() -> BytesPerSec {
    IB_NDR_SWITCH.bandwidth()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::Dtype;
    use proptest::prelude::*;

    fn tree(id: &str) -> FatTree {
        GpuSystem::from_id(id, Dtype::Bf16)
            .unwrap()
            .fat_tree()
            .unwrap()
    }

    #[test]
    fn dgx_levels_match_the_summary_table() {
        let t = tree("h100");
        let bw: Vec<f64> = t.levels.iter().map(|l| l.cable_bandwidth().0).collect();
        assert_eq!(bw, vec![3.6e12, 12.8e12, 51.2e12]);
        let sw: Vec<f64> = t
            .levels
            .iter()
            .map(|l| l.switch_bandwidth.unwrap().0)
            .collect();
        assert_eq!(sw, vec![6.4e12, 25.6e12, 51.2e12]);
        assert_eq!(
            t.levels[2].switch_bandwidth_appendix_b,
            Some(BytesPerSec(25.6e12))
        );
        assert_eq!(t.levels[2].gpus(), 1024);
    }

    #[test]
    fn spans_and_errors() {
        let t = tree("h100");
        assert_eq!(t.crosses(1).unwrap(), None);
        assert_eq!(t.crosses(256).unwrap(), Some(LevelKind::Leaf));
        assert_eq!(t.crosses(264).unwrap(), Some(LevelKind::Spine));
        assert_eq!(t.span(4096).unwrap().last().unwrap().1, 16);
        assert_eq!(
            t.span(12).unwrap_err().to_string(),
            "GPUs in a collective that leaves one node (12) must be a multiple of 8"
        );
        assert_eq!(
            t.span(0).unwrap_err().to_string(),
            "GPU count must be at least 1"
        );
        assert_eq!(
            tree("a100").span(16).unwrap_err().to_string(),
            "the book gives this GPU no scale-out (node egress) bandwidth, so nothing beyond one node",
        );
        let nvl = tree("gb200");
        assert_eq!(nvl.crosses(72).unwrap(), Some(LevelKind::Node));
        assert_eq!(nvl.crosses(144).unwrap(), Some(LevelKind::ScaleOut));
        assert_eq!(nvl.layout(576).unwrap().nodes, 8);
        let opts = CollectiveOptions::default();
        assert_eq!(
            (t.collective(Collective::AllGather, Bytes(-1.0), 8, opts))
                .unwrap_err()
                .to_string(),
            "bytes must be a positive number (got -1)"
        );
        assert_eq!(
            (t.collective(Collective::AllGather, Bytes(1.0), 8, opts.with_inner(3)))
                .unwrap_err()
                .to_string(),
            "GPU count (8) must be a multiple of 3"
        );
        assert_eq!(
            (t.collective(Collective::AllToAll, Bytes(1.0), 8, opts.with_inner(2)))
                .unwrap_err()
                .to_string(),
            "inner axis of an AllToAll is 2, more than its maximum of 1"
        );
        assert_eq!(Collective::parse(" AllToAll"), Some(Collective::AllToAll));
        // The refusal states a limit that differs from the count it refuses.
        assert_eq!(
            t.layout(MAX_GPUS + 1).unwrap_err().to_string(),
            "GPU count is 1048577, more than its maximum of 1048576"
        );
        assert!(t.layout(u64::MAX).is_err());
        assert!(t.layout(MAX_GPUS).unwrap().needs_core_layer);
        assert_eq!(
            t.layout(0).unwrap_err().to_string(),
            "GPU count must be at least 1"
        );
    }

    #[test]
    fn ragged_fractions() {
        assert_eq!(ragged_fraction(1, 4).unwrap(), 0.0);
        let (e, a) = (
            ragged_fraction(64, 8).unwrap(),
            ragged_fraction_approx(64, 8).unwrap(),
        );
        assert!(e < a && (a - e) / a < 0.1);
        assert_eq!(
            ragged_fraction(0, 1).unwrap_err().to_string(),
            "shards Z must be at least 1"
        );
    }

    proptest! {
        #[test]
        fn in_node_allgather_is_bytes_over_w_in_the_limit(b in 1e3f64..1e12, n in 2u32..512) {
            let w = BytesPerSec(450e9);
            let exact = in_node(Collective::AllGather, Bytes(b), n, w, CollectiveOptions::default()).unwrap();
            let approx = in_node(Collective::AllGather, Bytes(b), n, w, CollectiveOptions::default().asymptotic()).unwrap();
            prop_assert!(exact < approx);
            prop_assert!((exact.0 / approx.0 - (n as f64 - 1.0) / n as f64).abs() < 1e-12);
            let sharp = in_node(Collective::AllReduce, Bytes(b), n, w, CollectiveOptions::default().with_sharp()).unwrap();
            prop_assert!((sharp.0 - b / w.0).abs() <= 1e-12 * sharp.0);
        }

        #[test]
        fn ragged_is_never_above_dense(z in 1u32..4096, k in 1u32..64) {
            let e = ragged_fraction(z, k).unwrap();
            let a = ragged_fraction_approx(z, k).unwrap();
            prop_assert!(e <= a + 1e-12);
            prop_assert!(e >= 0.0 && a <= 1.0);
        }

        #[test]
        fn a_wider_inner_axis_never_costs_more(y_exp in 0u32..8, b in 1e6f64..1e11) {
            let t = tree("h100");
            let y = 1u32 << y_exp;
            let opts = CollectiveOptions::default();
            let wide = t.collective(Collective::AllGather, Bytes(b), 1024, opts.with_inner(y * 2)).unwrap();
            let narrow = t.collective(Collective::AllGather, Bytes(b), 1024, opts.with_inner(y)).unwrap();
            prop_assert!(wide.total <= narrow.total);
        }
    }
}
