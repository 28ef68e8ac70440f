//! The inside of one GPU (Part 12, "What Is a GPU?"): how many SMs, Tensor
//! Cores, CUDA cores and warp schedulers a generation has, how much register
//! file, shared memory, L2 and HBM sits beside them, and how the chip's peak
//! follows from the parts.
//!
//! Every count is derived from the generation row in [`super::specs`] and the
//! SM layout every generation since Volta shares; the peak is rebuilt as
//! `SMs × 4 Tensor Cores × FLOPs per Tensor Core per cycle × clock` and set
//! beside the registry's published peak, so a reader sees how close the
//! book's per-cycle estimate comes.
//!
//! ```
//! use ridgeline_core::gpu::anatomy::{anatomy, AnatomyParams};
//!
//! let a = anatomy(&AnatomyParams::parse("b200").unwrap()).unwrap();
//! assert_eq!((a.sms, a.tensor_cores, a.cuda_cores), (148, 592, 18_944));
//! // 148 SMs × 4 TCs × 2048 FLOPs/cycle × 1.86 GHz is within 1% of 2.25e15.
//! assert!((a.peak_from_parts.unwrap().0 / a.registry_peak.unwrap().0 - 1.0).abs() < 0.01);
//! ```

use super::specs::{generation, GpuGeneration, Hertz, MEASURED, SM};
use crate::dtype::Dtype;
use crate::units::{Bytes, BytesPerSec, FlopsPerSec};

/// What the anatomy view is asked for: one GPU generation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AnatomyParams {
    /// The generation row (V100 to B200; `gb200` maps to B200).
    pub gpu: &'static GpuGeneration,
}

impl AnatomyParams {
    /// Parses a GPU id or generation name (`h100`, `V100`, `gb200`).
    pub fn parse(gpu: &str) -> Result<AnatomyParams, String> {
        generation(gpu)
            .map(|gpu| AnatomyParams { gpu })
            .ok_or_else(|| {
                format!(
                    "gpu: no GPU generation called \u{201c}{}\u{201d} (try {})",
                    gpu.trim(),
                    super::specs::GPU_GENERATIONS
                        .iter()
                        .map(|g| g.name.to_ascii_lowercase())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })
    }
}

/// One kind of unit on the chip, as the anatomy view lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct AnatomyPart {
    /// Short key (`tensor-core`, `smem`...).
    pub key: &'static str,
    /// Name NVIDIA uses.
    pub label: &'static str,
    /// Its TPU counterpart in the book's cheat sheet.
    pub tpu_counterpart: &'static str,
    /// How many one SM has (or, for chip-wide parts, one).
    pub per_sm: f64,
    /// How many the chip has.
    pub per_chip: f64,
    /// Capacity of one, for memories.
    pub capacity: Option<Bytes>,
    /// What all of them together compute, for compute units (the registry's dense bf16
    /// peak for Tensor Cores, the boost-clock fp32 rate for CUDA cores).
    pub rate: Option<FlopsPerSec>,
    /// What it does, in one sentence.
    pub role: &'static str,
}

/// Everything the anatomy view shows for one generation.
#[derive(Debug, Clone, PartialEq)]
pub struct Anatomy {
    /// Display name.
    pub name: &'static str,
    /// Architecture name.
    pub architecture: &'static str,
    /// SMs on the chip.
    pub sms: u32,
    /// SM subpartitions (quadrants) per SM.
    pub subpartitions: u32,
    /// Tensor Cores on the chip.
    pub tensor_cores: u32,
    /// fp32 CUDA cores on the chip.
    pub cuda_cores: u32,
    /// Warp schedulers (one per subpartition) on the chip.
    pub warp_schedulers: u32,
    /// Register file of one SM.
    pub register_file_per_sm: Bytes,
    /// SMEM of one SM.
    pub smem_per_sm: Bytes,
    /// TMEM of one SM (Blackwell only).
    pub tmem_per_sm: Option<Bytes>,
    /// L2 on the chip.
    pub l2: Bytes,
    /// HBM capacity.
    pub hbm: Bytes,
    /// HBM bandwidth.
    pub hbm_bw: Option<BytesPerSec>,
    /// The clock the book uses for the Tensor Core estimate, if it gives one.
    pub tensor_clock: Option<Hertz>,
    /// Dense bf16 FLOPs per Tensor Core per cycle, as the book estimates it.
    pub tc_flops_per_cycle: Option<f64>,
    /// `SMs × 4 × FLOPs per TC per cycle × clock`, where all are known.
    pub peak_from_parts: Option<FlopsPerSec>,
    /// The registry's dense bf16 peak, where the chip is in the registry.
    pub registry_peak: Option<FlopsPerSec>,
    /// fp32 vector rate at the base clock, one op per CUDA core per cycle.
    pub vector_base: Option<FlopsPerSec>,
    /// The same at the boost clock.
    pub vector_boost: Option<FlopsPerSec>,
    /// Every part, SM-level first.
    pub parts: Vec<AnatomyPart>,
}

impl Anatomy {
    /// `registry peak / peak from parts`: how far the book's per-cycle estimate is off.
    pub fn peak_ratio(&self) -> Option<f64> {
        Some(self.registry_peak?.0 / self.peak_from_parts?.0)
    }

    /// How many more FLOPs/s the Tensor Cores do than the CUDA cores at boost.
    pub fn tensor_over_vector(&self) -> Option<f64> {
        Some(self.registry_peak?.0 / self.vector_boost?.0)
    }

    /// The part with a key, if the generation has it.
    pub fn part(&self, key: &str) -> Option<&AnatomyPart> {
        self.parts.iter().find(|p| p.key == key)
    }
}

/// Computes the anatomy view of one generation.
pub fn anatomy(params: &AnatomyParams) -> Result<Anatomy, String> {
    let g = params.gpu;
    let sms = g.sms;
    let sub = SM.subpartitions;
    let tc = g.tensor_cores();
    let cuda = g.cuda_cores();
    let schedulers = sms * sub;
    let tc_cycle = g.tensor_core_flops_per_cycle.map(|c| c.value);
    let peak_from_parts = match (tc_cycle, g.tensor_clock) {
        (Some(per_cycle), Some(clock)) => Some(FlopsPerSec(f64::from(tc) * per_cycle * clock.0)),
        _ => None,
    };
    let registry_peak = g.registry_chip().and_then(|c| c.peak(Dtype::Bf16));
    let vector = |clock: Option<Hertz>| clock.and_then(|c| super::vector_rate(cuda, c, 1.0).ok());
    let sms_f = f64::from(sms);
    let mut parts = vec![
        AnatomyPart {
            key: "tensor-core",
            label: "Tensor Core",
            tpu_counterpart: "MXU",
            per_sm: f64::from(SM.tensor_cores()),
            per_chip: f64::from(tc),
            capacity: None,
            rate: None,
            role: "the matrix unit: nearly all of the chip's FLOPs",
        },
        AnatomyPart {
            key: "warp-scheduler",
            label: "Warp scheduler",
            tpu_counterpart: "VPU slot",
            per_sm: f64::from(sub),
            per_chip: f64::from(schedulers),
            capacity: None,
            rate: None,
            role: "issues one instruction per cycle to its 32 CUDA cores",
        },
        AnatomyPart {
            key: "cuda-core",
            label: "CUDA core (fp32)",
            tpu_counterpart: "VPU ALU",
            per_sm: f64::from(SM.cuda_cores()),
            per_chip: f64::from(cuda),
            capacity: None,
            rate: None,
            role: "one SIMT lane: elementwise maths, reductions",
        },
        AnatomyPart {
            key: "registers",
            label: "Register file",
            tpu_counterpart: "vector registers",
            per_sm: f64::from(sub),
            per_chip: f64::from(schedulers),
            rate: None,

            capacity: Some(SM.register_file() / f64::from(sub)),
            role: "per-thread state of the resident warps",
        },
        AnatomyPart {
            key: "smem",
            label: "SMEM (L1)",
            tpu_counterpart: "VMEM",
            per_sm: 1.0,
            per_chip: sms_f,
            rate: None,

            capacity: Some(g.smem_per_sm),
            role: "programmer-managed cache feeding the Tensor Cores",
        },
    ];
    if let Some(tmem) = g.tmem_per_sm {
        parts.push(AnatomyPart {
            key: "tmem",
            label: "TMEM",
            tpu_counterpart: "(none)",
            per_sm: 1.0,
            per_chip: sms_f,
            rate: None,

            capacity: Some(tmem),
            role: "holds the accumulators the large Blackwell Tensor Cores no longer fit in SMEM",
        });
    }
    parts.push(AnatomyPart {
        key: "l2",
        label: "L2 cache",
        tpu_counterpart: "(none: VMEM is the large on-chip memory)",
        per_sm: 0.0,
        per_chip: 1.0,
        rate: None,
        capacity: Some(g.l2),
        role: "shared by every SM, managed by the hardware",
    });
    parts.push(AnatomyPart {
        key: "hbm",
        label: "HBM",
        tpu_counterpart: "HBM",
        per_sm: 0.0,
        per_chip: 1.0,
        rate: None,
        capacity: Some(g.hbm_capacity),
        role: "weights, optimizer state, activations",
    });
    let vector_boost = vector(g.boost_clock);
    for p in &mut parts {
        p.rate = match p.key {
            "tensor-core" => registry_peak.or(peak_from_parts),
            "cuda-core" => vector_boost,
            _ => None,
        };
    }
    Ok(Anatomy {
        name: g.name,
        architecture: g.architecture.name(),
        sms,
        subpartitions: sub,
        tensor_cores: tc,
        cuda_cores: cuda,
        warp_schedulers: schedulers,
        register_file_per_sm: SM.register_file(),
        smem_per_sm: g.smem_per_sm,
        tmem_per_sm: g.tmem_per_sm,
        l2: g.l2,
        hbm: g.hbm_capacity,
        hbm_bw: g.hbm_bw(),
        tensor_clock: g.tensor_clock,
        tc_flops_per_cycle: tc_cycle,
        peak_from_parts,
        registry_peak,
        vector_base: vector(g.base_clock),
        vector_boost,
        parts,
    })
}

/// The H100's L2 bandwidth as measured (NVIDIA does not publish it), over its
/// HBM bandwidth: one direction (`1.6x`) and both, as the full-duplex L2 serves
/// reads and writes at once (`3.3x`, the book's "closer to 3x").
pub fn h100_l2_over_hbm() -> Option<(f64, f64)> {
    let hbm = generation("h100")?.hbm_bw()?;
    Some((
        MEASURED.h100_l2_bandwidth.value / hbm,
        MEASURED.h100_l2_effective() / hbm,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::specs::GPU_GENERATIONS;

    fn of(id: &str) -> Anatomy {
        anatomy(&AnatomyParams::parse(id).unwrap()).unwrap()
    }

    #[test]
    fn counts_follow_the_sm_layout() {
        let h = of("h100");
        assert_eq!(h.cuda_cores, 16_896);
        assert_eq!(h.tensor_cores, 528);
        assert_eq!(h.warp_schedulers, 528);
        assert_eq!(h.part("smem").unwrap().per_chip, 132.0);
        assert!(h.part("tmem").is_none());
        assert!(of("b200").part("tmem").is_some());
        assert_eq!(h.part("tensor-core").unwrap().rate, h.registry_peak);
        assert_eq!(h.part("cuda-core").unwrap().rate, h.vector_boost);
        assert!(h.part("smem").unwrap().rate.is_none());
        assert_eq!(of("V100").sms, 80);
        let e = AnatomyParams::parse("x200").unwrap_err();
        assert!(e.starts_with("gpu:") && e.contains("h100"));
    }

    #[test]
    fn peak_from_parts_is_checked_against_the_registry() {
        // The book rounds the H100 quotient (1065) to 1024, so parts give 4% less.
        let h = of("h100");
        let r = h.peak_ratio().unwrap();
        assert!(r > 1.0 && r < 1.05, "{r}");
        let b = of("b200");
        assert!((b.peak_ratio().unwrap() - 1.0).abs() < 0.01);
        // Every generation with both a clock and a registry peak lands within 5%.
        for g in GPU_GENERATIONS {
            let a = anatomy(&AnatomyParams { gpu: g }).unwrap();
            if let Some(r) = a.peak_ratio() {
                assert!((r - 1.0).abs() < 0.05, "{}: {r}", g.name);
            }
        }
    }

    #[test]
    fn vector_rates_match_quiz_one() {
        let h = of("h100");
        assert!((h.vector_base.unwrap().0 / 1e12 - 26.9).abs() < 0.05);
        assert!((h.vector_boost.unwrap().0 / 1e12 - 33.5).abs() < 0.05);
        assert_eq!(h.tensor_over_vector().unwrap().round(), 30.0);
        let (one_way, both) = h100_l2_over_hbm().unwrap();
        assert!((one_way - 1.64).abs() < 0.01);
        assert!((both - 3.28).abs() < 0.01);
    }
}
