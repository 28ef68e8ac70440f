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

use super::specs::{Hertz, GPU_GENERATIONS, SM, SPARSITY_FACTOR, TPU_COUNTERPART};
use super::{GpuError, GpuSystem, Scope};
use crate::dtype::Dtype;
use crate::hardware::{chip, price_pair, tensor_core, Link, Topology, Vendor, VPU_SHAPE};
use crate::units::{Bytes, BytesPerSec, FlopsPerSec, Intensity};

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

/// The comparison row of a GPU system (a registry GPU or a reader's own).
pub fn gpu_row(sys: &GpuSystem, dtype: Dtype) -> Result<RooflineRow, GpuError> {
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

/// One row of Part 12's GPU spec tables, with every figure resolved from the registry.
#[derive(Debug, Clone, PartialEq)]
pub struct SpecRow {
    /// Generation name (`H100`).
    pub name: &'static str,
    /// Architecture name.
    pub architecture: &'static str,
    /// Registry id, if the chip is in the registry.
    pub id: Option<&'static str>,
    /// Base and boost clocks, where the table gives them.
    pub clocks: (Option<Hertz>, Option<Hertz>),
    /// SMs.
    pub sms: u32,
    /// SMEM per SM.
    pub smem_per_sm: Bytes,
    /// L2 per chip.
    pub l2: Bytes,
    /// HBM capacity.
    pub hbm: Bytes,
    /// HBM bandwidth.
    pub hbm_bw: Option<BytesPerSec>,
    /// Dense peaks by format (bf16, fp8, int8, fp4), where the book gives them.
    pub dense: Vec<(Dtype, FlopsPerSec)>,
    /// The same as NVIDIA's spec sheets quote them (with 2:4 structured sparsity).
    pub sparse: Vec<(Dtype, FlopsPerSec)>,
    /// The book's notes on the row: dense vs sparse, and how a disagreement was settled.
    pub notes: Vec<&'static str>,
}

/// The note every GPU row carries about sparse figures.
pub const SPARSE_NOTE: &str =
    "dense figures; NVIDIA's spec sheets quote twice these, assuming 2:4 structured sparsity";

/// Part 12's spec tables: every GPU generation the book lists, oldest first.
pub fn spec_table() -> Vec<SpecRow> {
    GPU_GENERATIONS
        .iter()
        .map(|g| {
            let c = g.registry_chip();
            let dense: Vec<(Dtype, FlopsPerSec)> = c
                .map(|c| c.peaks.iter().map(|p| (p.dtype, p.rate)).collect())
                .unwrap_or_default();
            let sparse = dense
                .iter()
                .map(|&(d, r)| (d, r * SPARSITY_FACTOR.value))
                .collect();
            let mut notes = vec![SPARSE_NOTE];
            if let Some(c) = c {
                notes.extend(c.peaks.iter().filter_map(|p| p.source.note));
                notes.extend(c.links.iter().filter_map(|l| l.source.note));
            }
            notes.extend(g.source.note);
            SpecRow {
                name: g.name,
                architecture: g.architecture.name(),
                id: g.chip,
                clocks: (g.base_clock, g.boost_clock),
                sms: g.sms,
                smem_per_sm: g.smem_per_sm,
                l2: g.l2,
                hbm: g.hbm_capacity,
                hbm_bw: g.hbm_bw(),
                dense,
                sparse,
                notes,
            }
        })
        .collect()
}

/// One line of the unit-by-unit GPU vs TPU comparison.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UnitPair {
    /// What the GPU calls it.
    pub gpu_unit: &'static str,
    /// What the TPU calls it.
    pub tpu_unit: &'static str,
    /// How many (or how many bytes) the GPU has.
    pub gpu: Option<f64>,
    /// How many (or how many bytes) the TPU has, where the book gives it.
    pub tpu: Option<f64>,
    /// Whether the numbers are bytes.
    pub bytes: bool,
}

impl UnitPair {
    /// GPU over TPU, where both are known.
    pub fn ratio(&self) -> Option<f64> {
        Some(self.gpu? / self.tpu?)
    }
}

/// A GPU and a TPU compared at the chip level.
#[derive(Debug, Clone, PartialEq)]
pub struct ChipComparison {
    /// GPU name.
    pub gpu: &'static str,
    /// TPU name.
    pub tpu: &'static str,
    /// Unit counts side by side (Part 12's H100 vs v5p table, for any pair).
    pub units: Vec<UnitPair>,
    /// Dense peaks in the chosen format.
    pub peaks: (Option<FlopsPerSec>, Option<FlopsPerSec>),
    /// HBM capacities.
    pub hbm: (Bytes, Bytes),
    /// HBM bandwidths.
    pub hbm_bw: (BytesPerSec, BytesPerSec),
    /// Prices per chip-hour from one quote of the book, where it prices both
    /// ([`crate::hardware::price_pair`]).
    pub price: (Option<f64>, Option<f64>),
}

impl ChipComparison {
    /// GPU peak over TPU peak.
    pub fn flops_ratio(&self) -> Option<f64> {
        Some(self.peaks.0? / self.peaks.1?)
    }

    /// GPU HBM over TPU HBM.
    pub fn hbm_ratio(&self) -> f64 {
        self.hbm.0 / self.hbm.1
    }

    /// GPU price over TPU price, where both are quoted.
    pub fn price_ratio(&self) -> Option<f64> {
        Some(self.price.0? / self.price.1?)
    }
}

/// Compares any registry GPU with any registry TPU in `dtype`.
pub fn compare_chips(gpu: &str, tpu: &str, dtype: Dtype) -> Result<ChipComparison, String> {
    let g = GpuSystem::from_id(gpu, dtype)
        .or_else(|e| match e {
            GpuError::Missing { .. } => GpuSystem::from_id(gpu, Dtype::Bf16),
            e => Err(e),
        })
        .map_err(|e| format!("gpu: {e}"))?;
    let t = chip(tpu)
        .filter(|c| c.vendor == Vendor::Google)
        .ok_or_else(|| format!("tpu: no TPU called \u{201c}{}\u{201d}", tpu.trim()))?;
    let cores = match t.topology {
        Topology::Torus { cores, .. } => f64::from(cores),
        Topology::NvlinkDomain { .. } => return Err(format!("tpu: {} is a GPU", t.name)),
    };
    let tc = tensor_core(t.id);
    let alus = tc.and_then(|c| c.vpu_alus).map(|a| f64::from(a.value));
    let mxus = tc.and_then(|c| c.mxus_per_core).map(|m| f64::from(m.value));
    let lanes = f64::from(VPU_SHAPE.value[0] * VPU_SHAPE.value[1]);
    let table = t.id == TPU_COUNTERPART.tpu;
    let sms = f64::from(g.sms);
    let gen = g.generation();
    let units = vec![
        UnitPair {
            gpu_unit: "SM",
            tpu_unit: "TensorCore",
            gpu: Some(sms),
            tpu: Some(cores),
            bytes: false,
        },
        UnitPair {
            gpu_unit: "Warp scheduler",
            tpu_unit: "VPU slot",
            gpu: Some(sms * f64::from(SM.subpartitions)),
            tpu: alus.map(|a| cores * a),
            bytes: false,
        },
        UnitPair {
            gpu_unit: "CUDA core (fp32 ALU)",
            tpu_unit: "VPU ALU",
            gpu: Some(f64::from(g.cuda_cores())),
            tpu: alus.map(|a| cores * a * lanes),
            bytes: false,
        },
        UnitPair {
            gpu_unit: "Tensor Core",
            tpu_unit: "MXU",
            gpu: Some(f64::from(g.tensor_cores())),
            tpu: mxus.map(|m| cores * m),
            bytes: false,
        },
        UnitPair {
            gpu_unit: "SMEM (L1)",
            tpu_unit: "VMEM",
            gpu: gen.map(|r| r.smem_total().0),
            tpu: super::memory::tpu_vmem(t.id).map(|v| v.value.0),
            bytes: true,
        },
        UnitPair {
            gpu_unit: "Registers",
            tpu_unit: "Vector registers",
            gpu: gen.map(|r| r.registers_total().0),
            tpu: table.then_some(TPU_COUNTERPART.vregs.0),
            bytes: true,
        },
    ];
    Ok(ChipComparison {
        gpu: g.name,
        tpu: t.name,
        units,
        peaks: (g.chip.peak(dtype), t.peak(dtype)),
        hbm: (g.chip.hbm_capacity.value, t.hbm_capacity.value),
        hbm_bw: (g.chip.hbm_bw(), t.hbm_bw()),
        price: price_pair(g.chip.id, t.id)
            .map_or((None, None), |(a, b)| (Some(a.value), Some(b.value))),
    })
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
        assert_eq!(
            roofline_row("zz", Dtype::Bf16).unwrap_err().to_string(),
            "no GPU called “zz” in the registry",
        );
        assert_eq!(
            roofline_row("v5e", Dtype::Fp4).unwrap_err().to_string(),
            "the book gives v5e no peak in that format",
        );
        assert_eq!(
            roofline_row("h800", Dtype::Bf16)
                .unwrap()
                .dp_tokens_in_domain,
            3300.0
        );
    }

    #[test]
    fn spec_table_rows() {
        let rows = spec_table();
        let names: Vec<_> = rows.iter().map(|r| r.name).collect();
        assert_eq!(names, ["V100", "A100", "H100", "H200", "B200"]);
        let h100 = &rows[2];
        let bf16 = h100
            .sparse
            .iter()
            .find(|(d, _)| *d == Dtype::Bf16)
            .unwrap()
            .1;
        assert_eq!(bf16.0, 1.98e15);
        assert!(h100.notes.iter().any(|n| n.contains("3.4e12")));
        assert!(rows[0].dense.is_empty() && rows[0].hbm_bw.is_some());
        assert!(rows.iter().all(|r| r.notes[0] == SPARSE_NOTE));
    }

    #[test]
    fn h100_vs_v5p_matches_the_books_table() {
        let c = compare_chips("h100", "v5p", Dtype::Bf16).unwrap();
        let counts: Vec<_> = c.units.iter().map(|u| (u.gpu, u.tpu)).collect();
        assert_eq!(counts[0], (Some(132.0), Some(2.0)));
        assert_eq!(counts[1], (Some(528.0), Some(8.0)));
        assert_eq!(counts[2], (Some(16_896.0), Some(8192.0)));
        assert_eq!(counts[3], (Some(528.0), Some(8.0)));
        assert_eq!(c.units[4].tpu, Some(128e6));
        assert!((c.price_ratio().unwrap() - 10.8 / 4.2).abs() < 1e-12);
        let h200 = compare_chips("h200", "v5p", Dtype::Bf16).unwrap();
        assert!((h200.flops_ratio().unwrap() - 2.16).abs() < 0.01);
        assert!((h200.hbm_ratio() - 1.47).abs() < 0.01);
        // Part 12 prices the H200 against the v5p: about $10/h against $4/h.
        assert_eq!(h200.price, (Some(10.0), Some(4.0)));
        assert_eq!(h200.price_ratio(), Some(2.5));
        let any = compare_chips("gb200", "v5e", Dtype::Fp8).unwrap();
        assert!(any.units[4].tpu.is_some() && any.units[5].tpu.is_none());
        assert!(compare_chips("v5e", "v5p", Dtype::Bf16)
            .unwrap_err()
            .starts_with("gpu:"));
        assert!(compare_chips("h100", "b200", Dtype::Bf16)
            .unwrap_err()
            .starts_with("tpu:"));
    }
}
