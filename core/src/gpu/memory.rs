//! The memory hierarchy of a GPU beside a TPU's (Part 12, "Memory"): registers,
//! SMEM, TMEM, L2 and HBM with their capacities and, where the book gives one,
//! their bandwidth; and the roofline consequence of each level, the intensity
//! a kernel needs to stay compute-bound when its operands stream from there.
//!
//! The GPU side comes from the generation rows of [`super::specs`] and the
//! chip registry; the TPU side from the registry (HBM) and Part 12's figures
//! for VMEM and vector registers. A level whose bandwidth the book does not
//! give has no ridge: the view says so rather than guess.
//!
//! ```
//! use ridgeline_core::gpu::memory::{hierarchy, MemoryParams};
//!
//! let m = hierarchy(&MemoryParams::parse("h100", "v5p").unwrap()).unwrap();
//! let hbm = m.gpu.iter().find(|l| l.key == "hbm").unwrap();
//! assert_eq!(hbm.ridge.unwrap().0.floor(), 295.0);
//! // The measured L2 (5.5 TB/s each way, full-duplex: 11 TB/s) brings the
//! // ridge down to 90 FLOPs per byte.
//! let l2 = m.gpu.iter().find(|l| l.key == "l2").unwrap();
//! assert_eq!(l2.ridge.unwrap().0.round(), 90.0);
//! ```

use super::specs::{GpuGeneration, MEASURED, SM, TPU_COUNTERPART, TPU_VMEM_BANDWIDTH};
use crate::dtype::Dtype;
use crate::hardware::{chip, Chip, Cited, Source, Vendor, VMEM_CAPACITY};
use crate::units::{Bytes, BytesPerSec, FlopsPerSec, Intensity};

/// What the memory view compares: a GPU generation, a TPU and a number format.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MemoryParams {
    /// The GPU generation.
    pub gpu: &'static GpuGeneration,
    /// The TPU from the registry.
    pub tpu: &'static Chip,
    /// The format whose peak sets the ridges.
    pub dtype: Dtype,
}

impl MemoryParams {
    /// Parses the two ids (bf16 peaks).
    pub fn parse(gpu: &str, tpu: &str) -> Result<MemoryParams, String> {
        let g = super::anatomy::AnatomyParams::parse(gpu)?.gpu;
        let t = chip(tpu)
            .filter(|c| c.vendor == Vendor::Google)
            .ok_or_else(|| format!("tpu: no TPU called \u{201c}{}\u{201d}", tpu.trim()))?;
        Ok(MemoryParams {
            gpu: g,
            tpu: t,
            dtype: Dtype::Bf16,
        })
    }
}

/// One level of a memory hierarchy.
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryLevel {
    /// Short key (`registers`, `smem`, `tmem`, `l2`, `hbm`, `vregs`, `vmem`).
    pub key: &'static str,
    /// Name.
    pub label: &'static str,
    /// Capacity on the whole chip, where the book gives it.
    pub capacity: Option<Bytes>,
    /// Capacity of one unit (per SM, per subpartition), where that is how it is built.
    pub per_unit: Option<(Bytes, &'static str)>,
    /// Bandwidth to the compute units, where the book gives it.
    pub bandwidth: Option<BytesPerSec>,
    /// Whether the bandwidth is a measurement rather than a specification.
    pub measured: bool,
    /// `peak / bandwidth`: FLOPs per byte a kernel streaming from here needs.
    pub ridge: Option<Intensity>,
    /// Who manages it.
    pub managed_by: &'static str,
    /// Where the numbers come from.
    pub source: Option<Source>,
}

/// The two hierarchies side by side.
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryComparison {
    /// GPU name.
    pub gpu_name: &'static str,
    /// TPU name.
    pub tpu_name: &'static str,
    /// GPU peak in the chosen format, where the registry has it.
    pub gpu_peak: Option<FlopsPerSec>,
    /// TPU peak in the chosen format.
    pub tpu_peak: Option<FlopsPerSec>,
    /// GPU levels, fastest first.
    pub gpu: Vec<MemoryLevel>,
    /// TPU levels, fastest first.
    pub tpu: Vec<MemoryLevel>,
}

impl MemoryComparison {
    /// The GPU's largest on-chip memory a kernel can place data in (SMEM + TMEM over the
    /// chip) over the TPU's VMEM, where both are known.
    pub fn on_chip_ratio(&self) -> Option<f64> {
        let smem = self.gpu.iter().find(|l| l.key == "smem")?.capacity?;
        let tmem = self
            .gpu
            .iter()
            .find(|l| l.key == "tmem")
            .and_then(|l| l.capacity)
            .unwrap_or(Bytes(0.0));
        let vmem = self.tpu.iter().find(|l| l.key == "vmem")?.capacity?;
        Some((smem + tmem) / vmem)
    }
}

/// A TPU's VMEM capacity where the book gives it: Part 12's figure for the v5p,
/// Part 2's for the v5e.
pub fn tpu_vmem(id: &str) -> Option<Cited<Bytes>> {
    if id.eq_ignore_ascii_case(TPU_COUNTERPART.tpu) {
        Some(Cited {
            value: TPU_COUNTERPART.vmem,
            source: TPU_COUNTERPART.source,
        })
    } else if id.eq_ignore_ascii_case("v5e") {
        Some(VMEM_CAPACITY)
    } else {
        None
    }
}

fn ridge(peak: Option<FlopsPerSec>, bw: Option<BytesPerSec>) -> Option<Intensity> {
    Some(peak? / bw?)
}

/// Builds both hierarchies and their ridges.
pub fn hierarchy(params: &MemoryParams) -> Result<MemoryComparison, String> {
    let g = params.gpu;
    let sms = f64::from(g.sms);
    let gpu_peak = g.registry_chip().and_then(|c| c.peak(params.dtype));
    let sub = f64::from(SM.subpartitions);
    // Full-duplex: reads and writes each get the measured 5.5 TB/s at once.
    let l2_bw = (g.chip == Some("h100")).then(|| MEASURED.h100_l2_effective());
    let mut gpu = vec![
        MemoryLevel {
            key: "registers",
            label: "Registers",
            capacity: Some(SM.register_file() * sms),
            per_unit: Some((SM.register_file() / sub, "per subpartition")),
            bandwidth: None,
            measured: false,
            ridge: None,
            managed_by: "the compiler, per thread",
            source: Some(SM.source),
        },
        MemoryLevel {
            key: "smem",
            label: "SMEM (L1)",
            capacity: Some(g.smem_total()),
            per_unit: Some((g.smem_per_sm, "per SM")),
            bandwidth: None,
            measured: false,
            ridge: None,
            managed_by: "the programmer (shared memory) or the hardware (L1 cache)",
            source: Some(g.source),
        },
    ];
    if let Some(tmem) = g.tmem_per_sm {
        gpu.push(MemoryLevel {
            key: "tmem",
            label: "TMEM",
            capacity: Some(tmem * sms),
            per_unit: Some((tmem, "per SM")),
            bandwidth: None,
            measured: false,
            ridge: None,
            managed_by: "the programmer, for Tensor Core accumulators",
            source: Some(g.source),
        });
    }
    gpu.push(MemoryLevel {
        key: "l2",
        label: "L2 cache",
        capacity: Some(g.l2),
        per_unit: None,
        bandwidth: l2_bw,
        measured: l2_bw.is_some(),
        ridge: ridge(gpu_peak, l2_bw),
        managed_by: "the hardware, shared by every SM",
        source: Some(if l2_bw.is_some() {
            MEASURED.h100_l2_bandwidth.source
        } else {
            g.source
        }),
    });
    gpu.push(MemoryLevel {
        key: "hbm",
        label: "HBM",
        capacity: Some(g.hbm_capacity),
        per_unit: None,
        bandwidth: g.hbm_bw(),
        measured: false,
        ridge: ridge(gpu_peak, g.hbm_bw()),
        managed_by: "the programmer",
        source: g
            .registry_chip()
            .and_then(|c| c.link(crate::hardware::Link::Hbm))
            .map(|l| l.source)
            .or(Some(g.source)),
    });

    let t = params.tpu;
    let tpu_peak = t.peak(params.dtype);
    let counterpart = t.id == TPU_COUNTERPART.tpu;
    let vmem_bw = TPU_VMEM_BANDWIDTH.value;
    let tpu = vec![
        MemoryLevel {
            key: "vregs",
            label: "Vector registers",
            capacity: counterpart.then_some(TPU_COUNTERPART.vregs),
            per_unit: None,
            bandwidth: None,
            measured: false,
            ridge: None,
            managed_by: "the compiler",
            source: Some(TPU_COUNTERPART.source),
        },
        MemoryLevel {
            key: "vmem",
            label: "VMEM",
            capacity: tpu_vmem(t.id).map(|v| v.value),
            per_unit: None,
            bandwidth: Some(vmem_bw),
            measured: false,
            ridge: ridge(tpu_peak, Some(vmem_bw)),
            managed_by: "the compiler (programmer-visible in Pallas)",
            source: Some(TPU_VMEM_BANDWIDTH.source),
        },
        MemoryLevel {
            key: "hbm",
            label: "HBM",
            capacity: Some(t.hbm_capacity.value),
            per_unit: None,
            bandwidth: Some(t.hbm_bw()),
            measured: false,
            ridge: ridge(tpu_peak, Some(t.hbm_bw())),
            managed_by: "the programmer",
            source: t.link(crate::hardware::Link::Hbm).map(|l| l.source),
        },
    ];
    Ok(MemoryComparison {
        gpu_name: g.name,
        tpu_name: t.name,
        gpu_peak,
        tpu_peak,
        gpu,
        tpu,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_and_ridges() {
        let m = hierarchy(&MemoryParams::parse("h100", "v5p").unwrap()).unwrap();
        let keys: Vec<_> = m.gpu.iter().map(|l| l.key).collect();
        assert_eq!(keys, ["registers", "smem", "l2", "hbm"]);
        let regs = &m.gpu[0];
        assert!((regs.capacity.unwrap().0 / 1e6 - 34.6).abs() < 0.1);
        // Quiz 1 Q5: SMEM + registers ~ 66 MB, about half of v5p's VMEM.
        let ratio = m.on_chip_ratio().unwrap();
        assert!((ratio - 0.27).abs() < 0.01, "{ratio}");
        // L2 is full-duplex (the book: effective bandwidth closer to 3x HBM),
        // so its ridge is C / 11 TB/s = 90, not C / 5.5 TB/s = 180.
        let l2 = m.gpu.iter().find(|l| l.key == "l2").unwrap();
        assert_eq!(l2.bandwidth.unwrap(), BytesPerSec(11e12));
        assert_eq!(l2.ridge.unwrap().0, 90.0);
        let vmem = m.tpu.iter().find(|l| l.key == "vmem").unwrap();
        assert!(vmem.ridge.unwrap().0 < 15.0);
        // Faster levels never have a higher ridge than HBM.
        let hbm = m
            .gpu
            .iter()
            .find(|l| l.key == "hbm")
            .unwrap()
            .ridge
            .unwrap();
        for l in &m.gpu {
            if let Some(r) = l.ridge {
                assert!(r.0 <= hbm.0);
            }
        }
        let b = hierarchy(&MemoryParams::parse("b200", "v5e").unwrap()).unwrap();
        assert!(b.gpu.iter().any(|l| l.key == "tmem"));
        assert!((b.on_chip_ratio().unwrap() - 0.58).abs() < 0.01);
        let v4 = hierarchy(&MemoryParams::parse("h100", "v4p").unwrap()).unwrap();
        assert!(v4.on_chip_ratio().is_none());
        assert!(MemoryParams::parse("h100", "h100")
            .unwrap_err()
            .starts_with("tpu:"));
        assert!(MemoryParams::parse("q", "v5p")
            .unwrap_err()
            .starts_with("gpu:"));
    }
}
