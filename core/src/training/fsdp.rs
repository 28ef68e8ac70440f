//! The FSDP communication time: the one formula behind every FSDP collective in
//! the training roofline, the MLP layout and the profiler's trace.

use super::TrainingError;
use crate::comms::collectives::{self, Collective, CollectiveCost, Network, RingAxis};
use crate::hardware::tpu::divisors;

use crate::units::Bytes;

/// The rings an `x`-way FSDP group forms over `axes` mesh axes: `axes` rings whose
/// sizes multiply to `x`, each as close to `x^(1/axes)` as a whole divisor allows
/// (8960 chips over three axes are rings of 20, 28 and 16, the v5p pod's shape).
pub fn fsdp_rings(x: u32, axes: u8) -> Vec<RingAxis> {
    let mut left = x.max(1);
    let axes = axes.max(1);
    let mut rings = Vec::with_capacity(axes as usize);
    for i in 0..axes {
        let still = f64::from(axes - i);
        let target = f64::from(left).powf(1.0 / still);
        let size = divisors(left)
            .into_iter()
            .min_by(|a, b| {
                let dist = |d: u32| (f64::from(d) / target).ln().abs();
                dist(*a).total_cmp(&dist(*b))
            })
            .unwrap_or(1);
        rings.push(RingAxis::ring(size));
        left /= size;
    }
    rings
}

/// The book's FSDP communication time (Part 5): the AllGather of a layer's weights
/// before each pass, or the ReduceScatter of their gradients after the backward
/// pass, of `weights` bytes over the FSDP `rings`. Bandwidth-bound it is
/// `V / (M_X · W_ici)` for `M_X` rings; for small layers the hops' latency sets it,
/// as for any collective ([`collectives::cost`]).
pub fn fsdp_comms(
    collective: Collective,
    weights: Bytes,
    rings: &[RingAxis],
    net: &Network,
) -> Result<CollectiveCost, TrainingError> {
    if !matches!(
        collective,
        Collective::AllGather | Collective::ReduceScatter
    ) {
        return Err(TrainingError::BadMesh(format!(
            "FSDP gathers weights and reduce-scatters gradients; it has no {}",
            collective.name()
        )));
    }
    collectives::cost(collective, weights, rings, net)
        .map_err(|e| TrainingError::BadMesh(format!("FSDP {}: {e}", collective.name())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hardware::{chip, ICI_HOP_LATENCY};

    #[test]
    fn rings_multiply_to_the_group_and_follow_the_pod() {
        let sizes = |x, m| -> Vec<u32> { fsdp_rings(x, m).iter().map(|r| r.size).collect() };
        assert_eq!(sizes(8960, 3), vec![20, 28, 16]);
        assert_eq!(sizes(4096, 3), vec![16, 16, 16]);
        assert_eq!(sizes(7, 2), vec![7, 1]);
        assert_eq!(sizes(1, 1), vec![1]);
        for (x, m) in [(2240, 2), (512, 2), (97, 3), (1, 3)] {
            assert_eq!(sizes(x, m).iter().product::<u32>(), x);
        }
    }

    #[test]
    fn large_layers_take_the_books_bandwidth_time_and_small_ones_the_latency() {
        let v5p = chip("v5p").unwrap();
        let net = Network::interconnect(v5p).unwrap();
        let rings = fsdp_rings(4096, 3);
        let big = Bytes(1e9);
        let c = fsdp_comms(Collective::AllGather, big, &rings, &net).unwrap();
        assert!((c.time.0 - 1e9 / (3.0 * 1.8e11)).abs() < 1e-12);
        let small = fsdp_comms(Collective::ReduceScatter, Bytes(1e3), &rings, &net).unwrap();
        assert_eq!(small.time, ICI_HOP_LATENCY.value * 24.0);
        assert_eq!(
            fsdp_comms(Collective::AllReduce, big, &rings, &net)
                .unwrap_err()
                .to_string(),
            "FSDP gathers weights and reduce-scatters gradients; it has no AllReduce",
        );
    }
}
