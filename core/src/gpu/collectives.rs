//! GPU collectives against message size (Part 12, "How Do Collectives Work on
//! GPUs?"): the bandwidth model of [`super::network`] with a fixed start-up
//! cost in front, so small messages are latency-bound and large ones
//! bandwidth-bound; in-network reduction (SHARP) as a switch; and the book's
//! NCCL measurements beside the model, labelled as measurements.
//!
//! The book gives no latency figure for NVLink. What it gives is a measured
//! AllReduce curve on one 8×H100 node (its figure, which the widget draws as
//! dots); [`nccl_fit`] fits one start-up time and one bandwidth to those dots
//! by least squares, and that start-up time is the default latency here. It is
//! a fit to the book's measurements, not a specification. (The book's text
//! also quotes about 150 GB/s at 58 MB, below its own figure's dots there.)
//!
//! ```
//! use ridgeline_core::gpu::collectives::{bytes_per_gpu, nccl_fit};
//! use ridgeline_core::comms::collectives::Collective;
//! use ridgeline_core::units::Bytes;
//!
//! // SHARP sends B per GPU where a ring AllReduce sends 2B(N-1)/N: at N = 8 that is
//! // the 75% gain the book predicts.
//! let ring = bytes_per_gpu(Collective::AllReduce, Bytes(1e9), 8, false).unwrap();
//! let sharp = bytes_per_gpu(Collective::AllReduce, Bytes(1e9), 8, true).unwrap();
//! assert!((ring / sharp - 1.75).abs() < 1e-12);
//! let fit = nccl_fit();
//! assert!((fit.bandwidth.0 / 1e9 - 358.0).abs() < 1.0);
//! assert!((fit.latency.0 * 1e6 - 128.0).abs() < 1.0);
//! ```

use super::network::{CollectiveCost, CollectiveOptions, FatTree};
use super::specs::{MeasuredCurve, MEASURED, MEASURED_CURVES, NCCL_ALLREDUCE_POINTS};
use super::GpuSystem;
use crate::check::is_positive;
use crate::comms::collectives::Collective;
use crate::dtype::Dtype;
use crate::hardware::Link;
use crate::roofline::derate::Derate;
use crate::units::{Bytes, BytesPerSec, Seconds};

/// Bytes each GPU sends in a collective over `n` GPUs of an array of `bytes`.
///
/// AllGather and ReduceScatter `B(N−1)/N`; AllReduce twice that, or with SHARP
/// `B(N−1)/N` up to the switch plus `B/N` of partial sums back, exactly `B`;
/// AllToAll `B(N−1)/N²`.
pub fn bytes_per_gpu(kind: Collective, bytes: Bytes, n: u32, sharp: bool) -> Result<Bytes, String> {
    if !is_positive(bytes.0) {
        return Err(format!(
            "bytes: must be a positive number (got {})",
            bytes.0
        ));
    }
    if n == 0 {
        return Err("gpus: must be at least 1".into());
    }
    let nf = f64::from(n);
    let ring = bytes.0 * (nf - 1.0) / nf;
    Ok(Bytes(match kind {
        Collective::AllGather | Collective::ReduceScatter => ring,
        Collective::AllReduce if sharp && n > 1 => ring + bytes.0 / nf,
        Collective::AllReduce => 2.0 * ring,
        Collective::AllToAll => ring / nf,
    }))
}

/// The start-up time and bandwidth fitted to the book's measured NCCL AllReduce.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NcclFit {
    /// Fixed cost of a collective.
    pub latency: Seconds,
    /// Bus bandwidth once the fixed cost is paid.
    pub bandwidth: BytesPerSec,
}

/// Fits `T = latency + bus bytes / bandwidth` to every measured point of the
/// book's 8×H100 AllReduce figure (`h100-allreduce`, SHARP off, bus bytes
/// `2B(N−1)/N`), the dots the collectives widget draws, by least squares on
/// the relative error of the time, so small and large messages weigh alike.
/// (Points the figure shows at zero bandwidth carry no time and are skipped.)
pub fn nccl_fit() -> NcclFit {
    let n = 8.0;
    let bus = |b: f64| 2.0 * b * (n - 1.0) / n;
    // Minimise Σ ((L + x v − t) / t)²: normal equations in (L, v = 1/W) on the
    // rows (1/t, x/t) with target 1.
    let (mut s11, mut s12, mut s22, mut r1, mut r2) = (0.0, 0.0, 0.0, 0.0, 0.0);
    let curve = super::specs::measured_curve("h100-allreduce").map_or(&[][..], |c| c.points);
    for &(b, w) in curve.iter().filter(|(_, w)| *w > 0.0) {
        let x = bus(b);
        let t = x / w;
        let (a1, a2) = (1.0 / t, x / t);
        s11 += a1 * a1;
        s12 += a1 * a2;
        s22 += a2 * a2;
        r1 += a1;
        r2 += a2;
    }
    let det = s11 * s22 - s12 * s12;
    let latency = (r1 * s22 - r2 * s12) / det;
    let per_byte = (s11 * r2 - s12 * r1) / det;
    NcclFit {
        latency: Seconds(latency),
        bandwidth: BytesPerSec(1.0 / per_byte),
    }
}

/// The share of quoted NVLink bandwidth the book's measured NCCL AllReduce
/// reaches on one 8×H100 node (the fitted bus bandwidth of [`nccl_fit`] over
/// the H100's quoted `W_gpu`), for the H100 only: the registry has no
/// collective measured on any other GPU.
pub fn measured_link_share(sys: &GpuSystem) -> Option<f64> {
    let quoted = sys.chip.bandwidth(Link::NvLink)?;
    (sys.id == "h100").then(|| (nccl_fit().bandwidth.0 / quoted.0).min(1.0))
}

/// The achievable shares of a GPU's quoted rates: Part 1's share of peak
/// FLOPs/s for its maker ([`Derate::achievable`]) and, where the registry
/// measured one, the link share of [`measured_link_share`]; HBM and, on
/// other GPUs, the links stay at their quoted peaks.
pub fn achievable(sys: &GpuSystem) -> Derate {
    let base = Derate::achievable(sys.chip);
    measured_link_share(sys)
        .and_then(|l| base.with_link(l).ok())
        .unwrap_or(base)
}

/// Which term dominates a collective's time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Regime {
    /// The fixed start-up cost is larger than the transfer.
    Latency,
    /// The transfer is larger.
    Bandwidth,
}

/// What the collectives view is asked for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CollectiveParams {
    /// The GPU system.
    pub system: GpuSystem,
    /// Which collective.
    pub kind: Collective,
    /// GPUs spanned.
    pub gpus: u64,
    /// The whole array.
    pub bytes: Bytes,
    /// In-network reduction on.
    pub sharp: bool,
    /// Start-up cost; `None` for the fit to the book's measurements.
    pub latency: Option<Seconds>,
}

impl CollectiveParams {
    /// Builds and checks parameters from a reader's text; messages name the field.
    pub fn parse(
        gpu: &str,
        kind: &str,
        gpus: u64,
        bytes: f64,
        sharp: bool,
    ) -> Result<CollectiveParams, String> {
        let system = GpuSystem::from_id(gpu, Dtype::Bf16).map_err(|e| format!("gpu: {e}"))?;
        let kind = Collective::parse(kind).ok_or_else(|| {
            format!("op: unknown collective \u{201c}{}\u{201d} (allgather, reducescatter, allreduce, alltoall)", kind.trim())
        })?;
        let p = CollectiveParams {
            system,
            kind,
            gpus,
            bytes: Bytes(bytes),
            sharp,
            latency: None,
        };
        p.validate()?;
        Ok(p)
    }

    /// Checks the numbers; the message names the bad field.
    pub fn validate(&self) -> Result<(), String> {
        if !(self.bytes.0.is_finite() && self.bytes.0 >= 1.0 && self.bytes.0 <= 1e15) {
            return Err(format!(
                "bytes: must be between 1 and 1e15 (got {})",
                self.bytes.0
            ));
        }
        if self.gpus < 2 {
            return Err(format!(
                "gpus: a collective needs at least 2 GPUs (got {})",
                self.gpus
            ));
        }
        if let Some(l) = self.latency {
            if !(l.0.is_finite() && l.0 >= 0.0) {
                return Err(format!("latency: must be zero or more (got {})", l.0));
            }
        }
        Ok(())
    }
}

/// One point of the cost-against-size curve.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CurvePoint {
    /// Array size.
    pub bytes: Bytes,
    /// Bandwidth term alone.
    pub transfer: Seconds,
    /// Start-up plus transfer.
    pub total: Seconds,
    /// `bytes / total`.
    pub algo_bandwidth: BytesPerSec,
    /// NCCL's bus bandwidth: the bytes each GPU sends in a ring (SHARP off),
    /// over `total`, the quantity the book's measured curves plot.
    pub bus_bandwidth: BytesPerSec,
    /// Which term dominates.
    pub regime: Regime,
}

/// A measurement the book reports, for drawing beside the model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Measurement {
    /// What was measured.
    pub label: &'static str,
    /// Array size.
    pub bytes: Bytes,
    /// Bus bandwidth the book reports.
    pub bus_bandwidth: BytesPerSec,
    /// Where the book gives it.
    pub source: crate::hardware::Source,
}

/// Everything the collectives view shows.
#[derive(Debug, Clone, PartialEq)]
pub struct CollectiveReport {
    /// The level-by-level cost from the fat tree (bandwidth only).
    pub cost: CollectiveCost,
    /// Bytes each GPU sends, were the whole collective one flat ring.
    pub bytes_per_gpu: Bytes,
    /// NCCL's bus bandwidth at this size: the ring's bytes per GPU (SHARP off)
    /// over the total time, comparable with the book's measured curves.
    pub bus_bandwidth: BytesPerSec,
    /// Start-up cost used.
    pub latency: Seconds,
    /// Start-up plus the tree's transfer time.
    pub total: Seconds,
    /// Which term dominates at this size.
    pub regime: Regime,
    /// The size at which the two terms are equal.
    pub crossover: Bytes,
    /// The same collective with SHARP the other way round, for comparison.
    pub other_sharp: Seconds,
    /// The cost against size, from 1 kB to 100 GB.
    pub curve: Vec<CurvePoint>,
    /// The book's measurements that match this collective (AllReduce on one H100 node).
    pub measured: Vec<Measurement>,
    /// The book's plotted curves for this collective: the H100 node's when the
    /// collective spans one H100 node, and the TPU's for comparison.
    pub figure_curves: Vec<&'static MeasuredCurve>,
}

fn tree_time(
    tree: &FatTree,
    p: &CollectiveParams,
    bytes: Bytes,
    sharp: bool,
) -> Result<CollectiveCost, String> {
    let opts = CollectiveOptions {
        sharp,
        ..CollectiveOptions::default()
    };
    tree.collective(p.kind, bytes, p.gpus, opts)
        .map_err(|e| format!("gpus: {e}"))
}

/// Prices the collective, its regime and its curve.
pub fn collective_report(p: &CollectiveParams) -> Result<CollectiveReport, String> {
    p.validate()?;
    let tree = p.system.fat_tree().map_err(|e| format!("gpu: {e}"))?;
    let latency = p.latency.unwrap_or(nccl_fit().latency);
    let cost = tree_time(&tree, p, p.bytes, p.sharp)?;
    let other = tree_time(&tree, p, p.bytes, !p.sharp)?.total;
    let n = u32::try_from(p.gpus).map_err(|_| "gpus: too many".to_string())?;
    let per_gpu = bytes_per_gpu(p.kind, p.bytes, n, p.sharp)?;
    let regime = |t: Seconds| {
        if latency > t {
            Regime::Latency
        } else {
            Regime::Bandwidth
        }
    };
    // Transfer time is linear in bytes, so the crossover is latency × bytes/time.
    let rate = p.bytes.0 / cost.total.0.max(f64::MIN_POSITIVE);
    let curve = cost_curve(p, (3, 11), 1)?;
    let one_h100_node = p.system.chip.id == "h100" && p.gpus == 8;
    let measured = if one_h100_node && p.kind == Collective::AllReduce {
        NCCL_ALLREDUCE_POINTS
            .iter()
            .map(|(b, w)| Measurement {
                label: "NCCL AllReduce, 8×H100, SHARP off (the book's measurement)",
                bytes: Bytes(*b),
                bus_bandwidth: w.value,
                source: w.source,
            })
            .collect()
    } else {
        Vec::new()
    };
    let figure_curves = MEASURED_CURVES
        .iter()
        .filter(|c| c.collective == p.kind.key())
        .filter(|c| one_h100_node || !c.key.starts_with("h100"))
        .filter(|c| p.sharp || !c.sharp)
        .collect();
    let ring_bytes = bytes_per_gpu(p.kind, p.bytes, n, false)?;
    Ok(CollectiveReport {
        figure_curves,
        bus_bandwidth: ring_bytes / (latency + cost.total),
        total: latency + cost.total,
        regime: regime(cost.total),
        crossover: Bytes(latency.0 * rate),
        other_sharp: other,
        bytes_per_gpu: per_gpu,
        latency,
        cost,
        curve,
        measured,
    })
}

/// The model's cost at `per_decade` sizes in each decade from `10^from` to
/// `10^to` bytes (both included), with the parameters' collective, GPUs, SHARP
/// setting and start-up cost.
pub fn cost_curve(
    p: &CollectiveParams,
    (from, to): (i32, i32),
    per_decade: u32,
) -> Result<Vec<CurvePoint>, String> {
    p.validate()?;
    if !(0..=15).contains(&from) || !(from..=15).contains(&to) {
        return Err(format!(
            "sizes: decades must satisfy 0 <= from <= to <= 15 (got {from} to {to})"
        ));
    }
    if !(1..=64).contains(&per_decade) {
        return Err(format!(
            "sizes: 1 to 64 points per decade (got {per_decade})"
        ));
    }
    let tree = p.system.fat_tree().map_err(|e| format!("gpu: {e}"))?;
    let latency = p.latency.unwrap_or(nccl_fit().latency);
    let n = u32::try_from(p.gpus).map_err(|_| "gpus: too many".to_string())?;
    // 0 <= from <= to <= 15, checked above.
    let decades = u32::try_from(to - from).unwrap_or(0);
    let steps = decades * per_decade;
    let mut curve = Vec::with_capacity(steps as usize + 1);
    for i in 0..=steps {
        let b = if i % per_decade == 0 {
            Bytes(10f64.powi(from + i32::try_from(i / per_decade).unwrap_or(0)))
        } else {
            Bytes(10f64.powf(f64::from(from) + f64::from(i) / f64::from(per_decade)))
        };
        let transfer = tree_time(&tree, p, b, p.sharp)?.total;
        let total = latency + transfer;
        let ring_bytes = bytes_per_gpu(p.kind, b, n, false)?;
        curve.push(CurvePoint {
            bytes: b,
            transfer,
            total,
            algo_bandwidth: b / total,
            bus_bandwidth: ring_bytes / total,
            regime: if latency > transfer {
                Regime::Latency
            } else {
                Regime::Bandwidth
            },
        });
    }
    Ok(curve)
}

/// SHARP's bandwidth gain: `(predicted, measured)` fractions, and the measured
/// AllReduce bandwidth with SHARP (the book's ~480 GB/s).
pub fn sharp_gain(n: u32) -> Result<(f64, f64, BytesPerSec), String> {
    let b = Bytes(1.0);
    let ring = bytes_per_gpu(Collective::AllReduce, b, n, false)?;
    let sharp = bytes_per_gpu(Collective::AllReduce, b, n, true)?;
    let measured = MEASURED.sharp_gain.value;
    Ok((
        ring / sharp - 1.0,
        measured,
        MEASURED.nccl_allreduce_bus.value * (1.0 + measured),
    ))
}

/// The cost of `AllGather_X(A[I_Y, J])` (or a ReduceScatter) as the inner axis `Y`
/// doubles from 1 to `max_y` (the book's sharded-all-gather figure): each point is
/// `(Y, node term, scale-out term, total)`.
pub fn sharded_curve(
    system: &GpuSystem,
    bytes: Bytes,
    max_y: u32,
) -> Result<Vec<(u32, super::network::ShardedCost)>, String> {
    if max_y == 0 || max_y > 1 << 20 {
        return Err(format!("max_y: must be 1 to {} (got {max_y})", 1 << 20));
    }
    let w_node = system
        .w_collective(super::Scope::Network)
        .map_err(|e| format!("gpu: {e}"))?;
    let mut out = Vec::new();
    let mut y = 1u32;
    while y <= max_y {
        let c =
            super::network::sharded_reduction(bytes, y, system.gpus_per_node, system.w_gpu, w_node)
                .map_err(|e| e.to_string())?;
        out.push((y, c));
        y = match y.checked_mul(2) {
            Some(next) => next,
            None => break,
        };
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::network::{in_node, Precision};
    use proptest::prelude::*;

    /// Worked by hand: at 80 % of the quoted link bandwidth every level of
    /// the fat tree moves its bytes at 0.8 × W, so the transfer takes
    /// 1/0.8 = 1.25 times as long, inside a node (NVLink), across two nodes
    /// (InfiniBand) and across the spine (64 nodes, past a 32-node SU); the
    /// start-up cost is not a rate and stays, and the book's measured curves
    /// are the same measurements.
    #[test]
    fn a_link_share_of_eighty_percent_stretches_each_transfer_by_a_quarter() {
        use crate::roofline::derate::Derate;
        let h100 = GpuSystem::from_id("h100", crate::dtype::Dtype::Bf16).unwrap();
        let slow = h100.derated(Derate::new(1.0, 1.0, 0.8).unwrap());
        for gpus in [8, 16, 512] {
            let of = |system| {
                collective_report(&CollectiveParams {
                    system,
                    kind: Collective::AllReduce,
                    gpus,
                    bytes: Bytes(1e9),
                    sharp: false,
                    latency: None,
                })
                .unwrap()
            };
            let (quoted, derated) = (of(h100), of(slow));
            let ratio = derated.cost.total.0 / quoted.cost.total.0;
            assert!((ratio - 1.25).abs() < 1e-12, "{gpus} GPUs: {ratio}");
            assert_eq!(derated.latency, quoted.latency);
            let transfer = derated.total.0 - derated.latency.0;
            assert!((transfer / quoted.cost.total.0 - 1.25).abs() < 1e-12);
            assert_eq!(derated.figure_curves, quoted.figure_curves);
            assert_eq!(derated.measured, quoted.measured);
        }
        // The FLOPs and HBM shares do not touch a collective.
        let other = h100.derated(Derate::new(0.5, 0.5, 1.0).unwrap());
        assert_eq!(other.w_gpu, h100.w_gpu);
        assert_eq!(other.w_node, h100.w_node);
        // The Achievable preset: Part 1's 80 % of peak FLOPs/s, and the
        // H100's links at the book's measured NCCL bus bandwidth,
        // 358 / 450 GB/s = 79.6 % of quoted NVLink; no other GPU has a
        // measured collective, so its links stay quoted.
        let share = measured_link_share(&h100).unwrap();
        assert!((share - 358.0 / 450.0).abs() < 0.003, "{share}");
        assert_eq!(achievable(&h100).flops(), 0.8);
        assert_eq!(achievable(&h100).link(), share);
        let b200 = GpuSystem::from_id("b200", crate::dtype::Dtype::Bf16).unwrap();
        assert_eq!(measured_link_share(&b200), None);
        assert_eq!(achievable(&b200).link(), 1.0);
        assert_eq!(
            measured_link_share(&GpuSystem::from_id("h800", Dtype::Bf16).unwrap()),
            None
        );
        // A new derate replaces the old one: the quoted peak restores the links.
        let back = slow.derated(Derate::PEAK);
        assert!((back.w_gpu.0 / h100.w_gpu.0 - 1.0).abs() < 1e-15);
        assert!(back.derate.is_peak());
    }

    #[test]
    fn fit_follows_the_figure_the_widget_draws() {
        let f = nccl_fit();
        let dots = crate::gpu::specs::measured_curve("h100-allreduce").unwrap();
        for &(b, w) in dots.points.iter().filter(|(_, w)| *w > 0.0) {
            let bus = 2.0 * b * 7.0 / 8.0;
            let t = f.latency.0 + bus / f.bandwidth.0;
            assert!((bus / t / w - 1.0).abs() < 0.15, "{b}: {} vs {w}", bus / t);
        }
        assert!(f.latency.0 > 0.0 && f.bandwidth.0 < 450e9);
        // The widget's model (fitted start-up + transfer at the claimed 450 GB/s)
        // sits near the dots at 4–16 MiB, where the old two-point fit (405 µs)
        // drew it about 2x below them.
        for (b, w) in [(4_194_304.0, 45e9), (16_777_216.0, 127e9)] {
            let p = CollectiveParams::parse("h100", "allreduce", 8, b, false).unwrap();
            let model = collective_report(&p).unwrap().bus_bandwidth.0;
            assert!((0.8..1.25).contains(&(model / w)), "{b}: {model} vs {w}");
        }
        // The SHARP-on measurement is drawn only beside a SHARP AllReduce.
        let on = CollectiveParams::parse("h100", "allreduce", 8, 1e9, true).unwrap();
        let keys: Vec<_> = collective_report(&on)
            .unwrap()
            .figure_curves
            .iter()
            .map(|c| c.key)
            .collect();
        assert_eq!(
            keys,
            ["h100-allreduce", "v5p-allreduce", "h100-allreduce-sharp"]
        );
    }

    #[test]
    fn report_regimes_and_measurements() {
        let p = CollectiveParams::parse("h100", "allreduce", 8, 1e9, false).unwrap();
        let r = collective_report(&p).unwrap();
        assert_eq!(r.measured.len(), 2);
        let keys: Vec<_> = r.figure_curves.iter().map(|c| c.key).collect();
        assert_eq!(keys, ["h100-allreduce", "v5p-allreduce"]);
        let ag = CollectiveParams::parse("b200", "allgather", 16, 1e9, false).unwrap();
        let keys: Vec<_> = collective_report(&ag)
            .unwrap()
            .figure_curves
            .iter()
            .map(|c| c.key)
            .collect();
        assert_eq!(keys, ["v5e-allgather"]);
        assert_eq!(r.curve.first().unwrap().regime, Regime::Latency);
        assert_eq!(r.curve.last().unwrap().regime, Regime::Bandwidth);
        assert!(r.other_sharp < r.cost.total);
        let c = r.crossover.0;
        let at = |b: f64| {
            let q = CollectiveParams {
                bytes: Bytes(b),
                ..p
            };
            collective_report(&q).unwrap().regime
        };
        assert_eq!(at(c * 0.9), Regime::Latency);
        assert_eq!(at(c * 1.1), Regime::Bandwidth);
        let (predicted, measured, bw) = sharp_gain(8).unwrap();
        assert!((predicted - MEASURED.sharp_gain_theory.value).abs() < 1e-12);
        assert_eq!(measured, 0.3);
        assert!((bw.0 / 1e9 - 481.0).abs() < 1.0);
        assert!(CollectiveParams::parse("h100", "bcast", 8, 1e9, false)
            .unwrap_err()
            .starts_with("op:"));
        assert!(CollectiveParams::parse("h100", "allgather", 1, 1e9, false)
            .unwrap_err()
            .starts_with("gpus:"));
        assert!(
            CollectiveParams::parse("h100", "allgather", 8, f64::NAN, false)
                .unwrap_err()
                .starts_with("bytes:")
        );
        let bad = CollectiveParams::parse("h100", "allgather", 12, 1e9, false).unwrap();
        assert!(collective_report(&bad).unwrap_err().starts_with("gpus:"));
    }

    #[test]
    fn fine_curve_meets_the_report_and_the_measurement() {
        let p = CollectiveParams::parse("h100", "allreduce", 8, 1e9, false).unwrap();
        let coarse = collective_report(&p).unwrap().curve;
        let fine = cost_curve(&p, (3, 11), 4).unwrap();
        assert_eq!(fine.len(), 33);
        // Every fourth point of the fine curve is a point of the report's curve.
        for (c, f) in coarse.iter().zip(fine.iter().step_by(4)) {
            assert_eq!(c, f);
        }
        assert!(fine.windows(2).all(|w| w[0].bytes < w[1].bytes));
        // The model moves bytes at NVLink's claimed 450 GB/s after the fitted
        // start-up, so at 10 GB it lies between NCCL's measured 370 GB/s and the claim.
        let at_10gb = cost_curve(&p, (10, 10), 1).unwrap()[0];
        let q = CollectiveParams {
            bytes: Bytes(1e10),
            ..p
        };
        assert_eq!(
            collective_report(&q).unwrap().bus_bandwidth,
            at_10gb.bus_bandwidth
        );
        let bus = at_10gb.bus_bandwidth.0;
        assert!(
            bus > MEASURED.nccl_allreduce_bus.value.0 && bus < 450e9,
            "{bus}"
        );
        // With SHARP on, the same bytes take less time, so the bus bandwidth rises.
        let sharp = CollectiveParams { sharp: true, ..p };
        let on = cost_curve(&sharp, (10, 10), 1).unwrap()[0];
        assert!(on.bus_bandwidth > at_10gb.bus_bandwidth);
        assert_eq!(
            (cost_curve(&p, (5, 4), 1)).unwrap_err().to_string(),
            "sizes: decades must satisfy 0 <= from <= to <= 15 (got 5 to 4)"
        );
        assert_eq!(
            cost_curve(&p, (3, 11), 0).unwrap_err().to_string(),
            "sizes: 1 to 64 points per decade (got 0)",
        );
        assert_eq!(
            cost_curve(&p, (-1, 11), 1).unwrap_err().to_string(),
            "sizes: decades must satisfy 0 <= from <= to <= 15 (got -1 to 11)",
        );
    }

    #[test]
    fn sharding_over_nodes_is_what_helps() {
        let sys = GpuSystem::from_id("h100", Dtype::Bf16).unwrap();
        // Pop quiz 3's array: bf16[8192, 32768].
        let curve = sharded_curve(&sys, Bytes(2.0 * 8192.0 * 32768.0), 256).unwrap();
        assert_eq!(curve.len(), 9);
        let total = |y: u32| curve.iter().find(|(v, _)| *v == y).unwrap().1.total;
        // Inside a node the inner axis leaves the total alone; across nodes it divides it.
        assert_eq!(total(1), total(8));
        assert!((total(8).0 / total(64).0 - 8.0).abs() < 1e-9);
        for w in curve.windows(2) {
            assert!(w[1].1.total <= w[0].1.total);
        }
        assert_eq!(
            (sharded_curve(&sys, Bytes(1.0), 0))
                .unwrap_err()
                .to_string(),
            "max_y: must be 1 to 1048576 (got 0)"
        );
        let a100 = GpuSystem::from_id("a100", Dtype::Bf16).unwrap();
        assert!(sharded_curve(&a100, Bytes(1.0), 8)
            .unwrap_err()
            .starts_with("gpu:"));
    }

    proptest! {
        #[test]
        fn reader_input_never_panics(gpu in 0usize..4, kind in 0usize..5, gpus in 0u64..5_000_000, bytes in -1e3f64..1e16, sharp: bool) {
            let gpu = ["h100", "b200", "gb200", "a100"][gpu];
            let kind = ["allgather", "reducescatter", "allreduce", "alltoall", "x"][kind];
            if let Ok(p) = CollectiveParams::parse(gpu, kind, gpus, bytes, sharp) {
                if let Ok(r) = collective_report(&p) {
                    prop_assert!(r.total >= r.latency);
                    prop_assert_eq!(r.curve.len(), 9);
                }
            }
        }

        #[test]
        fn sharp_halves_the_allreduce_bytes_in_the_limit(b in 1.0f64..1e12, n in 2u32..100_000) {
            let ring = bytes_per_gpu(Collective::AllReduce, Bytes(b), n, false).unwrap();
            let sharp = bytes_per_gpu(Collective::AllReduce, Bytes(b), n, true).unwrap();
            prop_assert!((sharp.0 - b).abs() <= 1e-9 * b);
            let nf = f64::from(n);
            prop_assert!((sharp / ring - nf / (2.0 * (nf - 1.0))).abs() < 1e-9);
            if n >= 10_000 {
                prop_assert!((sharp / ring - 0.5).abs() < 1e-4);
            }
        }

        #[test]
        fn hierarchical_reduces_to_the_flat_formulas(b in 1e3f64..1e12, nodes in 1u64..=32, kind in 0usize..3) {
            let kind = [Collective::AllGather, Collective::ReduceScatter, Collective::AllReduce][kind];
            let sys = GpuSystem::from_id("h100", Dtype::Bf16).unwrap();
            let tree = sys.fat_tree().unwrap();
            let gpus = nodes * 8;
            let exact = tree.collective(kind, Bytes(b), gpus, CollectiveOptions::default()).unwrap();
            if nodes == 1 {
                // Inside one node the tree is the flat ring over NVLink.
                let flat = in_node(kind, Bytes(b), 8, sys.w_gpu, CollectiveOptions::default()).unwrap();
                prop_assert!((exact.total.0 - flat.0).abs() <= 1e-12 * flat.0);
            }
            // With the ring factors dropped, the tree is max(B/W_gpu, B/W_node), doubled for an AllReduce.
            let asym = tree.collective(kind, Bytes(b), gpus, CollectiveOptions { precision: Precision::Asymptotic, ..CollectiveOptions::default() }).unwrap();
            let factor = if kind == Collective::AllReduce { 2.0 } else { 1.0 };
            let w_node = sys.w_node.unwrap();
            let flat = if nodes == 1 { b / sys.w_gpu.0 } else { (b / sys.w_gpu.0).max(b / w_node.0) };
            prop_assert!((asym.total.0 - factor * flat).abs() <= 1e-12 * flat);
        }
    }
}
