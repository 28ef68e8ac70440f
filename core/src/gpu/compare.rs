//! GPUs and TPUs side by side (Part 12): the HBM ridge, the critical intensity
//! of the fastest chip-to-chip domain, and the per-chip token batch data
//! parallelism needs on each.
//!
//! ```
//! use ridgeline_core::dtype::Dtype;
//! use ridgeline_core::gpu::compare::roofline_row;
//!
//! let h100 = roofline_row("h100", Dtype::Bf16).unwrap();
//! let v5p = roofline_row("v5p", Dtype::Bf16).unwrap();
//! // DP needs ~2500 tokens per H100 across nodes but 850 per v5p over its 3D torus.
//! assert_eq!(h100.dp_tokens_across.unwrap().round(), 2475.0);
//! assert_eq!(v5p.dp_tokens_in_domain.round(), 850.0);
//! ```

use super::{GpuError, GpuSystem, Scope};
use crate::dtype::Dtype;
use crate::hardware::{chip, Link, Topology, Vendor};
use crate::units::{FlopsPerSec, Intensity};

/// One chip's rooflines for a comparison table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RooflineRow {
    /// Registry (or variant) id.
    pub id: &'static str,
    /// Display name.
    pub name: &'static str,
    /// Maker.
    pub vendor: Vendor,
    /// Format compared.
    pub dtype: Dtype,
    /// Dense peak.
    pub peak: FlopsPerSec,
    /// `C / W_hbm`.
    pub hbm_ridge: Intensity,
    /// Chips in the fastest-linked domain (NVLink node or ICI slice).
    pub domain_size: u64,
    /// The link of that domain.
    pub domain_link: Link,
    /// `C / W` over that link: `W_gpu` for GPUs, one bidirectional ICI link for TPUs.
    pub domain_ridge: Intensity,
    /// Per-chip tokens DP needs inside the domain: `C / W_gpu`, or `C / (W_ici · axes)`
    /// on a TPU torus (DP over every axis).
    pub dp_tokens_in_domain: f64,
    /// Per-chip tokens DP needs beyond it: `C / W_node` for GPUs, `C / W_dcn` per TPU.
    pub dp_tokens_across: Option<f64>,
}

/// The comparison row for a chip id (GPU, GPU variant or TPU).
pub fn roofline_row(id: &str, dtype: Dtype) -> Result<RooflineRow, GpuError> {
    match GpuSystem::from_id(id, dtype) {
        Err(GpuError::NotAGpu(_)) => {}
        Err(e) => return Err(e),
        Ok(sys) => return gpu_row(&sys, dtype),
    }
    tpu_row(id, dtype)
}

fn gpu_row(sys: &GpuSystem, dtype: Dtype) -> Result<RooflineRow, GpuError> {
    let domain_ridge = sys.alpha(Scope::Node)?;
    Ok(RooflineRow {
        id: sys.id,
        name: sys.name,
        vendor: Vendor::Nvidia,
        dtype,
        peak: sys.peak,
        hbm_ridge: sys.hbm_ridge(),
        domain_size: u64::from(sys.gpus_per_node),
        domain_link: Link::NvLink,
        domain_ridge,
        dp_tokens_in_domain: domain_ridge.0,
        dp_tokens_across: sys.alpha(Scope::Network).ok().map(|a| a.0),
    })
}

fn tpu_row(id: &str, dtype: Dtype) -> Result<RooflineRow, GpuError> {
    let c = chip(id).ok_or_else(|| GpuError::UnknownChip(id.trim().to_string()))?;
    let Topology::Torus {
        dims, max_slice, ..
    } = c.topology
    else {
        return Err(GpuError::UnknownChip(id.trim().to_string()));
    };
    let peak = c.peak(dtype).ok_or(GpuError::Missing {
        chip: c.id,
        what: "peak in that format",
    })?;
    let ici = c.bandwidth(Link::Ici).ok_or(GpuError::Missing {
        chip: c.id,
        what: "ICI bandwidth",
    })?;
    let domain_ridge = peak / ici;
    Ok(RooflineRow {
        id: c.id,
        name: c.name,
        vendor: c.vendor,
        dtype,
        peak,
        hbm_ridge: peak / c.hbm_bw(),
        domain_size: max_slice.iter().map(|&x| u64::from(x)).product(),
        domain_link: Link::Ici,
        domain_ridge,
        dp_tokens_in_domain: domain_ridge.0 / f64::from(dims.max(1)),
        dp_tokens_across: c.bandwidth(Link::Dcn).map(|w| (peak / w).0),
    })
}

/// Rows for several chips, in the order given.
pub fn side_by_side(ids: &[&str], dtype: Dtype) -> Result<Vec<RooflineRow>, GpuError> {
    ids.iter().map(|id| roofline_row(id, dtype)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows() {
        let rows = side_by_side(&["h100", "b200", "gb200", "v5p", "v5e"], Dtype::Bf16).unwrap();
        assert_eq!(rows.len(), 5);
        assert_eq!(rows[0].hbm_ridge.0.floor(), 295.0);
        assert_eq!(rows[2].domain_size, 72);
        assert_eq!(rows[2].dp_tokens_across.unwrap(), 625.0);
        assert_eq!(rows[3].domain_ridge.0.round(), 2550.0);
        assert_eq!(rows[3].domain_size, 8960);
        assert!(rows[4].dp_tokens_across.is_some());
        assert!(roofline_row("zz", Dtype::Bf16).is_err());
        assert!(roofline_row("v5e", Dtype::Fp4).is_err());
        assert_eq!(
            roofline_row("h800", Dtype::Bf16)
                .unwrap()
                .dp_tokens_in_domain,
            3300.0
        );
    }
}
