//! Clusters: chips joined by ICI into slices, slices joined by the data-centre network.

use super::{missing, TrainingError};
use crate::hardware::{Chip, Link, Topology};
use crate::units::{Bytes, BytesPerSec, Seconds};

/// The most pods (ICI slices) a cluster may join over the data-centre network.
pub const MAX_SLICES: u32 = 100_000;

/// The link joining slices: the data-centre network on TPUs, the scale-out network on GPUs.
pub(super) fn cross_slice_link(chip: &Chip) -> Result<(Link, BytesPerSec), TrainingError> {
    chip.bandwidth(Link::Dcn)
        .map(|w| (Link::Dcn, w))
        .or_else(|| chip.bandwidth(Link::ScaleOut).map(|w| (Link::ScaleOut, w)))
        .ok_or_else(|| missing(chip, "data-centre or scale-out network bandwidth"))
}

/// The book's gradient AllReduce across slices (Part 5, pure data parallelism
/// over DCN): each of the `ways` chips a slice splits the gradients over
/// all-reduces its `1 / ways` share with its peers in the other slices, on a
/// ring over the slices: `2 · V / (ways · W_dcn)` seconds for `V` bytes of
/// gradients and `W_dcn` per chip. Returns the bytes each chip moves and the time.
pub fn dcn_all_reduce(grads: Bytes, ways: f64, w_dcn: BytesPerSec) -> (Bytes, Seconds) {
    let bytes = grads * 2.0 / ways;
    (bytes, bytes / w_dcn)
}

/// Chips joined by ICI into slices, and slices joined by the data-centre network.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cluster {
    /// The chip.
    pub chip: &'static Chip,
    /// Chips in one ICI slice (one NVLink domain on GPUs).
    pub chips_per_slice: u32,
    /// Mesh axes of the slice (3 for a v5p cube, 2 for a v5e, 1 for an NVLink domain).
    pub axes: u8,
    /// Slices joined over the data-centre (or scale-out) network.
    pub slices: u32,
}

/// The largest slice a chip supports: (chips, longest axis, axes).
fn slice_limits(chip: &Chip) -> (u64, u32, u8) {
    match chip.topology {
        Topology::Torus {
            dims, max_slice, ..
        } => (
            max_slice.iter().map(|&a| a as u64).product(),
            max_slice.iter().copied().max().unwrap_or(1),
            dims,
        ),
        Topology::NvlinkDomain { gpus, .. } => (gpus as u64, gpus, 1),
    }
}

impl Cluster {
    /// A slice of the given shape (`[16, 20, 28]`, `[16, 16]`, `[8]`), repeated `slices`
    /// times; checked against the chip's largest slice from the registry.
    pub fn new(chip: &'static Chip, shape: &[u32], slices: u32) -> Result<Cluster, TrainingError> {
        let (max_chips, max_axis, dims) = slice_limits(chip);
        if shape.is_empty() || shape.len() > dims.max(1) as usize {
            return Err(TrainingError::BadMesh(format!(
                "a {} mesh has 1 to {} axes, got {}",
                chip.id,
                dims,
                shape.len()
            )));
        }
        if let Some(i) = shape.iter().position(|&a| a == 0) {
            return Err(TrainingError::BadMesh(format!(
                "mesh axis {} has no chips",
                i + 1
            )));
        }
        if let Some(&axis) = shape.iter().find(|&&a| a > max_axis) {
            return Err(TrainingError::AxisTooLong {
                chip: chip.id,
                axis,
                max: max_axis,
            });
        }
        let chips: u64 = shape.iter().map(|&a| a as u64).product();
        let axes = u8::try_from(shape.iter().filter(|&&a| a > 1).count().max(1)).unwrap_or(u8::MAX);
        Cluster::checked(chip, chips, max_chips, axes, slices)
    }

    /// `chips` chips per slice spanning `axes` mesh axes, when the exact shape does not matter.
    pub fn with_chips(
        chip: &'static Chip,
        chips: u32,
        axes: u8,
        slices: u32,
    ) -> Result<Cluster, TrainingError> {
        let (max_chips, _, dims) = slice_limits(chip);
        if chips == 0 {
            return Err(TrainingError::BadMesh(
                "a slice needs at least one chip".into(),
            ));
        }
        if axes == 0 || axes > dims.max(1) {
            return Err(TrainingError::BadMesh(format!(
                "a {} mesh has 1 to {} axes, got {}",
                chip.id, dims, axes
            )));
        }
        Cluster::checked(chip, chips as u64, max_chips, axes, slices)
    }

    /// Full pods (the largest slice: 16×20×28 = 8960 v5p chips), `slices` of them.
    pub fn full_pod(chip: &'static Chip, slices: u32) -> Result<Cluster, TrainingError> {
        let (max_chips, _, dims) = slice_limits(chip);
        Cluster::checked(chip, max_chips, max_chips, dims.max(1), slices)
    }

    fn checked(
        chip: &'static Chip,
        chips: u64,
        max_chips: u64,
        axes: u8,
        slices: u32,
    ) -> Result<Cluster, TrainingError> {
        if chips > max_chips {
            return Err(TrainingError::MeshTooLarge {
                chip: chip.id,
                chips: chips as f64,
                max: max_chips as f64,
            });
        }
        if slices == 0 || slices > MAX_SLICES {
            return Err(TrainingError::BadMesh(format!(
                "the number of slices must be between 1 and {MAX_SLICES}, got {slices}"
            )));
        }
        if slices > 1 {
            cross_slice_link(chip)?;
        }
        chip.interconnect()
            .ok_or_else(|| missing(chip, "chip-to-chip link"))?;
        // A reader's chip may allow more chips in a slice than a `u32`
        // counts: refused, never wrapped.
        let chips_per_slice = u32::try_from(chips).map_err(|_| TrainingError::MeshTooLarge {
            chip: chip.id,
            chips: chips as f64,
            max: f64::from(u32::MAX),
        })?;
        Ok(Cluster {
            chip,
            chips_per_slice,
            axes,
            slices,
        })
    }

    /// Every chip in the cluster.
    pub fn chips(&self) -> f64 {
        self.chips_per_slice as f64 * self.slices as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hardware::chip;

    /// A chip built around the reader's checks (they refuse more than
    /// 10^6 chips a slice) whose largest slice holds 10^10 chips: a slice of
    /// all of them is refused, not counted modulo 2^32 (1,410,065,408).
    #[test]
    fn a_slice_too_large_to_count_is_refused_not_wrapped() {
        let v5e = chip("v5e").unwrap();
        let Topology::Torus {
            host, wrap, source, ..
        } = v5e.topology
        else {
            panic!("v5e is a torus")
        };
        let huge: &'static Chip = Box::leak(Box::new(Chip {
            topology: Topology::Torus {
                dims: 2,
                max_slice: [100_000, 100_000, 1],
                host,
                wrap,
                cores: 1,
                source,
            },
            ..*v5e
        }));
        let err = Cluster::new(huge, &[100_000, 100_000], 1).unwrap_err();
        assert!(
            matches!(err, TrainingError::MeshTooLarge { chips, .. } if chips == 1e10),
            "{err:?}"
        );
        let fits = Cluster::new(huge, &[1_000, 1_000], 1).unwrap();
        assert_eq!(fits.chips_per_slice, 1_000_000);
    }
}
