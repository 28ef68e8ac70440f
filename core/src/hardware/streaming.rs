//! How a TPU streams an operation through its memory hierarchy (Part 2,
//! "What Is a TPU?", and its `pointwise-product` animation).
//!
//! Data never goes straight from HBM to the compute units. A kernel copies a
//! chunk from HBM into VMEM, loads it from VMEM into the vector registers, and
//! only then does the VPU (elementwise work) or the MXU (matmuls) consume it;
//! while one chunk is being computed on, the next is already on its way. Each
//! stage is a resource that handles one chunk at a time, so after the pipeline
//! fills, a chunk leaves every `max(stage time)` seconds: the slowest stage sets
//! the pace and the others stall waiting for it.
//!
//! For `n` identical chunks through stages of times `t₁ … t_k` the finish time is
//! exactly `Σ tᵢ + (n − 1) · max tᵢ`, which the tests check against the
//! simulated timeline.
//!
//! The matmul variant streams the weights of `[B, D] · [D, F]` in column chunks.
//! When the weights already sit in VMEM (a small-batch matmul whose weights fit
//! and are reused), HBM carries only the activations and outputs, and the MXU can
//! run near its peak at far smaller batches: the book's reason VMEM matters.
//!
//! ```
//! use ridgeline_core::hardware::chip;
//! use ridgeline_core::hardware::streaming::{simulate, StreamOp, StreamParams, Stage};
//!
//! let v5e = chip("v5e").unwrap();
//! let p = StreamParams::new(v5e, StreamOp::Elementwise { elements: 1 << 24 });
//! let run = simulate(&p).unwrap();
//! // An elementwise product has almost no compute per byte: HBM sets the pace.
//! assert_eq!(run.bottleneck, Stage::HbmToVmem);
//! ```

use crate::check::positive;
use crate::dtype::Dtype;
use crate::hardware::tpu::{core_mxu_rate, cores_per_chip, vmem_bandwidth, vpu_rate, Coord, Slice};
use crate::hardware::{tensor_core, Chip, VMEM_CAPACITY};
use crate::units::{Bytes, BytesPerSec, Flops, FlopsPerSec, Seconds};

/// Most chunks the step-by-step timeline keeps (a longer stream is summarised).
pub const MAX_TIMELINE_CHUNKS: u64 = 4096;

/// The stages of the pipeline, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stage {
    /// HBM → VMEM (and results back), at the HBM bandwidth.
    HbmToVmem,
    /// VMEM → vector registers, at the VMEM bandwidth.
    VmemToVregs,
    /// The VPU or MXU computing on the chunk.
    Compute,
}

impl Stage {
    /// The three stages in order.
    pub const ALL: [Stage; 3] = [Stage::HbmToVmem, Stage::VmemToVregs, Stage::Compute];

    /// A short label.
    pub fn label(self) -> &'static str {
        match self {
            Stage::HbmToVmem => "HBM → VMEM",
            Stage::VmemToVregs => "VMEM → vector registers",
            Stage::Compute => "compute",
        }
    }
}

/// What is streamed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum StreamOp {
    /// `z = x · y` elementwise over `elements` values: two inputs read, one output written.
    Elementwise {
        /// Elements of each array.
        elements: u64,
    },
    /// `[B, D] · [D, F]`, the weights streamed in column chunks.
    Matmul {
        /// Batch (rows of the activations).
        b: u64,
        /// Contracting dimension.
        d: u64,
        /// Output columns.
        f: u64,
    },
}

/// Everything the streaming widget lets a reader set.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StreamParams {
    /// The chip (rates default to its registry values).
    pub chip: &'static Chip,
    /// The operation.
    pub op: StreamOp,
    /// Element format.
    pub dtype: Dtype,
    /// Bytes of input per chunk (for a matmul, of weights per chunk).
    pub chunk: Bytes,
    /// HBM bandwidth.
    pub hbm: BytesPerSec,
    /// VMEM → register bandwidth.
    pub vmem: BytesPerSec,
    /// Compute rate of the unit doing the work (VPU or MXU).
    pub compute: FlopsPerSec,
    /// Matmul only: the weights are already resident in VMEM.
    pub weights_in_vmem: bool,
}

impl StreamParams {
    /// The registry's rates for `chip`: HBM and VMEM bandwidth, and the VPU rate
    /// for elementwise work or the chip's bf16 peak for a matmul; 1 MiB chunks.
    pub fn new(chip: &'static Chip, op: StreamOp) -> StreamParams {
        let cores = cores_per_chip(chip).unwrap_or(1) as f64;
        let compute = match op {
            StreamOp::Elementwise { .. } => tensor_core(chip.id)
                .and_then(vpu_rate)
                .map(|r| r * cores)
                .unwrap_or(FlopsPerSec(f64::NAN)),
            StreamOp::Matmul { .. } => chip
                .peak(Dtype::Bf16)
                .or_else(|| tensor_core(chip.id).and_then(core_mxu_rate))
                .unwrap_or(FlopsPerSec(f64::NAN)),
        };
        StreamParams {
            chip,
            op,
            dtype: Dtype::Bf16,
            chunk: Bytes(1024.0 * 1024.0),
            hbm: chip.hbm_bw(),
            vmem: vmem_bandwidth(chip),
            compute,
            weights_in_vmem: false,
        }
    }

    /// Checks every field, naming the first bad one.
    pub fn validate(&self) -> Result<(), String> {
        positive("the chunk size", self.chunk.0)?;
        positive("the HBM bandwidth", self.hbm.0)?;
        positive("the VMEM bandwidth", self.vmem.0)?;
        positive(
            "the compute rate (this chip has no VPU figure in the book; set one)",
            self.compute.0,
        )?;
        match self.op {
            StreamOp::Elementwise { elements: 0 } => {
                Err("the element count must be at least 1".into())
            }
            StreamOp::Matmul { b, d, f } if b == 0 || d == 0 || f == 0 => {
                Err("the matmul sizes B, D and F must be at least 1".into())
            }
            StreamOp::Matmul { d, f, .. }
                if self.weights_in_vmem && self.dtype.size_of(d as f64 * f as f64) > VMEM_CAPACITY.value =>
            {
                Err(format!(
                    "weights of {} do not fit in VMEM ({} bytes); turn off weights in VMEM or shrink D or F",
                    crate::format::si(self.dtype.size_of(d as f64 * f as f64).0, "B", 3),
                    crate::format::si(VMEM_CAPACITY.value.0, "B", 3)
                ))
            }
            _ => Ok(()),
        }
    }
}

/// One chunk in one stage.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChunkSpan {
    /// The chunk (from 0).
    pub chunk: u64,
    /// The stage.
    pub stage: Stage,
    /// When it starts.
    pub start: Seconds,
    /// When it ends.
    pub end: Seconds,
}

/// The outcome of streaming an operation.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamRun {
    /// Number of chunks.
    pub chunks: u64,
    /// Time of one (full) chunk in each stage, in [`Stage::ALL`] order.
    pub stage_time: [Seconds; 3],
    /// Bytes one chunk moves over HBM and over VMEM, and its FLOPs.
    pub per_chunk: (Bytes, Bytes, Flops),
    /// The stage with the longest time: the one the others wait for.
    pub bottleneck: Stage,
    /// Fraction of the steady state each stage is busy (the bottleneck's is 1).
    pub busy: [f64; 3],
    /// When the last chunk leaves the last stage: `Σ t + (n − 1) · max t`.
    pub total: Seconds,
    /// The time if nothing overlapped: `n · Σ t`.
    pub serial: Seconds,
    /// Total FLOPs over total time, as a fraction of the compute rate.
    pub utilisation: f64,
    /// Every chunk's passage through every stage, for the first
    /// [`MAX_TIMELINE_CHUNKS`] chunks.
    pub timeline: Vec<ChunkSpan>,
}

/// Streams `p.op` through the pipeline.
pub fn simulate(p: &StreamParams) -> Result<StreamRun, String> {
    p.validate()?;
    let e = p.dtype.bytes();
    // Totals over the whole operation: bytes over HBM, bytes over VMEM, FLOPs,
    // and the bytes the chunking is counted in.
    let (hbm_total, vmem_total, flops_total, chunked) = match p.op {
        StreamOp::Elementwise { elements } => {
            let n = elements as f64;
            (3.0 * n * e, 2.0 * n * e, n, 2.0 * n * e)
        }
        StreamOp::Matmul { b, d, f } => {
            let (b, d, f) = (b as f64, d as f64, f as f64);
            let weights = d * f * e;
            let acts = b * d * e;
            let out = b * f * e;
            let hbm = if p.weights_in_vmem {
                acts + out
            } else {
                weights + acts + out
            };
            (hbm, weights + acts, 2.0 * b * d * f, weights)
        }
    };
    let chunks = (chunked / p.chunk.0).ceil().max(1.0);
    if chunks > 1e12 {
        return Err("the chunk size is too small for this operation; make it larger".into());
    }
    let per = |x: f64| x / chunks;
    let per_chunk = (
        Bytes(per(hbm_total)),
        Bytes(per(vmem_total)),
        Flops(per(flops_total)),
    );
    let stage_time = [
        per_chunk.0 / p.hbm,
        per_chunk.1 / p.vmem,
        per_chunk.2 / p.compute,
    ];
    let slowest = stage_time.iter().map(|t| t.0).fold(0.0, f64::max);
    let which = stage_time.iter().position(|t| t.0 == slowest).unwrap_or(0);
    let sum: f64 = stage_time.iter().map(|t| t.0).sum();
    // At most 10^12 (checked above), so a whole `u64`.
    let n: u64 = crate::check::whole(chunks).unwrap_or(1);
    let total = Seconds(sum + (chunks - 1.0) * slowest);
    let kept = n.min(MAX_TIMELINE_CHUNKS);
    let mut timeline = Vec::with_capacity(kept as usize * 3);
    let mut free = [0.0f64; 3];
    for c in 0..kept {
        let mut ready = 0.0f64;
        for (s, stage) in Stage::ALL.iter().enumerate() {
            let start = ready.max(free[s]);
            let end = start + stage_time[s].0;
            free[s] = end;
            ready = end;
            timeline.push(ChunkSpan {
                chunk: c,
                stage: *stage,
                start: Seconds(start),
                end: Seconds(end),
            });
        }
    }
    Ok(StreamRun {
        chunks: n,
        stage_time,
        per_chunk,
        bottleneck: Stage::ALL[which],
        busy: stage_time.map(|t| if slowest > 0.0 { t.0 / slowest } else { 0.0 }),
        total,
        serial: Seconds(chunks * sum),
        utilisation: flops_total / p.compute.0 / total.0,
        timeline,
    })
}

/// A pipeline of named stages each moving or computing the same amount per
/// item (the book's challenge problem: PCIe → ICI → HBM → MXU).
#[derive(Debug, Clone, PartialEq)]
pub struct StagePipeline {
    /// Each stage: its name and its time per item.
    pub stages: Vec<(String, Seconds)>,
    /// Items pushed through.
    pub items: u64,
}

/// The outcome of a [`StagePipeline`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PipelineTime {
    /// Index of the slowest stage.
    pub slowest: usize,
    /// Its time per item.
    pub per_item: Seconds,
    /// Fill plus steady state: `Σ t + (n − 1) · max t`.
    pub total: Seconds,
    /// Without overlap: `n · Σ t`.
    pub serial: Seconds,
}

impl StagePipeline {
    /// The book's challenge problem (Part 2, worked problem 6): a weight
    /// matrix `dtype[side, side]` spread evenly over the hosts of `slice` is
    /// loaded into HBM over every chip's PCIe link at once, gathered over ICI
    /// onto the chip at `target` (which receives all but its own share through
    /// its own incoming links), read from that chip's HBM together with the
    /// activations `bf16[batch, side]`, and multiplied on its MXUs at the bf16
    /// peak, in `items` equal pieces that may overlap.
    pub fn challenge(
        slice: &Slice,
        target: Coord,
        side: u64,
        dtype: Dtype,
        batch: u64,
        items: u64,
    ) -> Result<StagePipeline, String> {
        if items == 0 || side == 0 || batch == 0 {
            return Err("the matrix side, the batch and the pieces must be at least 1".into());
        }
        let chip = slice.chip;
        let weights = dtype.size_of(side as f64 * side as f64);
        let activations = Dtype::Bf16.size_of(batch as f64 * side as f64);
        let flops = Flops(2.0 * batch as f64 * side as f64 * side as f64);
        let peak = chip
            .peak(Dtype::Bf16)
            .ok_or_else(|| format!("{} has no bf16 peak", chip.name))?;
        let pcie = slice.load_from_hosts(weights).map_err(|e| e.to_string())?;
        let ici = slice
            .gather_onto(target, weights)
            .map_err(|e| e.to_string())?;
        let n = items as f64;
        Ok(StagePipeline {
            stages: vec![
                ("PCIe".into(), pcie / n),
                ("ICI".into(), ici / n),
                ("HBM".into(), (weights + activations) / chip.hbm_bw() / n),
                ("MXU".into(), flops / n / peak),
            ],
            items,
        })
    }

    /// The slowest stage and the totals.
    pub fn time(&self) -> Result<PipelineTime, String> {
        if self.stages.is_empty() {
            return Err("a pipeline needs at least one stage".into());
        }
        if let Some((name, _)) = self
            .stages
            .iter()
            .find(|(_, t)| !(t.0.is_finite() && t.0 >= 0.0))
        {
            return Err(format!(
                "the time of stage {name} must be finite and non-negative"
            ));
        }
        let (slowest, per_item) = self
            .stages
            .iter()
            .enumerate()
            .map(|(i, (_, t))| (i, *t))
            .fold((0, Seconds(-1.0)), |a, b| if b.1 > a.1 { b } else { a });
        let sum: Seconds = self.stages.iter().map(|(_, t)| *t).sum();
        let n = self.items as f64;
        Ok(PipelineTime {
            slowest,
            per_item,
            total: sum + per_item * (n - 1.0),
            serial: sum * n,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hardware::chip;
    use proptest::prelude::*;

    #[test]
    fn matmuls_with_weights_in_vmem_reach_the_mxu_at_small_batch() {
        let v5e = chip("v5e").unwrap();
        let op = StreamOp::Matmul {
            b: 32,
            d: 4096,
            f: 4096,
        };
        let streamed = simulate(&StreamParams::new(v5e, op)).unwrap();
        assert_eq!(streamed.bottleneck, Stage::HbmToVmem);
        let resident = simulate(&StreamParams {
            weights_in_vmem: true,
            ..StreamParams::new(v5e, op)
        })
        .unwrap();
        assert!(resident.utilisation > 4.0 * streamed.utilisation);
        assert_ne!(resident.bottleneck, Stage::HbmToVmem);
        // Too big for VMEM is refused with a message.
        let huge = StreamParams {
            weights_in_vmem: true,
            ..StreamParams::new(
                v5e,
                StreamOp::Matmul {
                    b: 8,
                    d: 16384,
                    f: 16384,
                },
            )
        };
        assert!(simulate(&huge).unwrap_err().contains("VMEM"));
    }

    #[test]
    fn bad_fields_are_named() {
        let v5e = chip("v5e").unwrap();
        let p = StreamParams::new(v5e, StreamOp::Elementwise { elements: 64 });
        let e = simulate(&StreamParams {
            chunk: Bytes(0.0),
            ..p
        })
        .unwrap_err();
        assert!(e.contains("chunk"));
        let e = simulate(&StreamParams {
            hbm: BytesPerSec(f64::NAN),
            ..p
        })
        .unwrap_err();
        assert!(e.contains("HBM"));
        // The book gives no VPU figure for a v3: the reader is told to set one.
        let v3 = StreamParams::new(chip("v3").unwrap(), StreamOp::Elementwise { elements: 64 });
        assert!(simulate(&v3).unwrap_err().contains("compute rate"));
    }

    #[test]
    fn the_book_challenge_is_paced_by_the_ici_gather() {
        let v5e = chip("v5e").unwrap();
        let slice = Slice::parse(v5e, "4x4").unwrap();
        let side = 128 * 1024;
        let p = StagePipeline::challenge(&slice, [0, 0, 0], side, Dtype::Int8, 8, 1).unwrap();
        let t = p.time().unwrap();
        assert_eq!(p.stages[t.slowest].0, "ICI");
        // The book rounds the 2^34-byte array to 16 GB: 63 ms of PCIe, 167 ms
        // of ICI into two links, 20 ms of HBM and 1.4 ms of FLOPs (the 2 MB of
        // activations add under a hundredth of a millisecond to the HBM read).
        let book = 16e9 / 2f64.powi(34);
        let ms: Vec<f64> = p.stages.iter().map(|(_, s)| s.0 * 1e3).collect();
        assert!((ms[0] * book - 62.5).abs() < 0.1, "{ms:?}");
        assert!(
            (ms[1] * book - 15.0 / 16.0 * 16e9 / 9e10 * 1e3).abs() < 0.1,
            "{ms:?}"
        );
        assert!((ms[1] * book - 167.0).abs() < 0.5, "{ms:?}");
        assert!((ms[2] * book - 16e9 / 8.2e11 * 1e3).abs() < 0.01, "{ms:?}");
        assert!((ms[3] - 1.395).abs() < 0.01, "{ms:?}");
        // In one piece nothing overlaps: the whole is the sum of the stages.
        let sum: f64 = ms.iter().sum();
        assert!((t.serial.0 * 1e3 - sum).abs() < 1e-9);
        assert_eq!(t.total, t.serial);
        // In more pieces the total falls towards the slowest stage alone.
        let many = StagePipeline::challenge(&slice, [0, 0, 0], side, Dtype::Int8, 8, 64)
            .unwrap()
            .time()
            .unwrap();
        assert!(many.total.0 < t.serial.0 && many.total.0 > t.per_item.0);
        assert_eq!(
            StagePipeline::challenge(&slice, [0, 0, 0], side, Dtype::Int8, 0, 1)
                .unwrap_err()
                .to_string(),
            "the matrix side, the batch and the pieces must be at least 1",
        );
        assert_eq!(
            StagePipeline::challenge(&slice, [9, 0, 0], side, Dtype::Int8, 8, 1)
                .unwrap_err()
                .to_string(),
            "chip {9,0,0} lies outside the 4x4x1 slice",
        );
    }

    proptest! {
        #[test]
        fn a_stage_pipeline_is_paced_by_its_slowest_stage(
            times in prop::collection::vec(0.0f64..1e-3, 1..6),
            items in 1u64..1000,
        ) {
            let p = StagePipeline {
                stages: times.iter().enumerate().map(|(i, &t)| (format!("s{i}"), Seconds(t))).collect(),
                items,
            };
            let t = p.time().unwrap();
            let max = times.iter().copied().fold(0.0, f64::max);
            prop_assert_eq!(p.stages[t.slowest].1 .0, max);
            // Never faster than the slowest stage alone, never slower than no overlap.
            prop_assert!(t.total.0 >= max * items as f64 * (1.0 - 1e-12));
            prop_assert!(t.total.0 <= t.serial.0 * (1.0 + 1e-12));
        }

        #[test]
        fn finish_time_is_fill_plus_steady_state(
            elements in 1u64..5_000_000,
            chunk_kib in 1u64..4096,
            hbm in 1e10f64..1e13,
            compute in 1e11f64..1e15,
        ) {
            let v5e = chip("v5e").unwrap();
            let p = StreamParams {
                chunk: Bytes(chunk_kib as f64 * 1024.0),
                hbm: BytesPerSec(hbm),
                compute: FlopsPerSec(compute),
                ..StreamParams::new(v5e, StreamOp::Elementwise { elements })
            };
            let r = simulate(&p).unwrap();
            let slowest = r.stage_time.iter().map(|t| t.0).fold(0.0, f64::max);
            if r.chunks <= MAX_TIMELINE_CHUNKS {
                let last = r.timeline.last().unwrap().end.0;
                prop_assert!((last - r.total.0).abs() <= 1e-9 * r.total.0);
            }
            // In steady state one chunk leaves per slowest-stage time.
            if r.chunks >= 3 && r.chunks <= MAX_TIMELINE_CHUNKS {
                let ends: Vec<f64> = r.timeline.iter().filter(|s| s.stage == Stage::Compute).map(|s| s.end.0).collect();
                let gap = ends[ends.len() - 1] - ends[ends.len() - 2];
                prop_assert!((gap - slowest).abs() <= 1e-9 * slowest.max(1e-30));
            }
            prop_assert!(r.total <= r.serial);
            prop_assert!(r.total.0 >= slowest * r.chunks as f64 * (1.0 - 1e-12));
        }
    }
}
