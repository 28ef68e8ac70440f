//! A reader's trace against a chip's roofline (Part 9): each heavy op's
//! achieved FLOP/s and arithmetic intensity, and the step's roofline budget
//! beside the step the trace measured.
//!
//! An op's FLOPs and bytes come from the trace itself when its events carry
//! them (TPU traces write `model_flops` and `bytes_accessed` on each XLA op;
//! PyTorch's profiler writes `flops` with `with_flops=True`), or else from the
//! compiled program's HLO text (`jax.jit(f).lower(...).compile().as_text()`),
//! which names every instruction's shape: [`HloCosts::read`] counts each
//! instruction's FLOPs (a dot `2·out·contracted`, one per output element for
//! elementwise ops, one per input element for a reduce, a fusion the sum of
//! its body) and bytes (its operands and output). An op the trace gives no
//! numbers for and the HLO does not explain is kept without them, never
//! guessed.
//!
//! The budget is the book's: expected FLOPs over the peak plus expected bytes
//! over the memory bandwidth ([`StepBudget`]), here for a step of matmuls whose
//! batch is sharded over the devices ([`MatmulStep`]).
//!
//! ```
//! use ridgeline_core::profiling::achieved::{HloCosts, MatmulStep};
//! use ridgeline_core::hardware::chip;
//!
//! let hlo = HloCosts::read("HloModule m\n\nENTRY %main (p: f32[8,4], q: f32[4,2]) -> f32[8,2] {\n  %p = f32[8,4]{1,0} parameter(0)\n  %q = f32[4,2]{1,0} parameter(1)\n  ROOT %d = f32[8,2]{1,0} dot(%p, %q), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n");
//! let d = hlo.op("d").unwrap();
//! assert_eq!(d.flops, Some(2.0 * 8.0 * 2.0 * 4.0));
//! assert_eq!(d.bytes, Some((32.0 + 8.0 + 16.0) * 4.0));
//!
//! // Two 512 x 512 x 512 matmuls per step, the batch split over 8 devices, in f32.
//! let step = MatmulStep { b: 512.0, d: 512.0, f: 512.0, matmuls: 2.0, devices: 8.0, bytes_per_element: 4.0 };
//! let budget = step.budget(chip("v5e").unwrap()).unwrap();
//! assert_eq!(budget.flops.0, 2.0 * 2.0 * 64.0 * 512.0 * 512.0);
//! ```

use std::collections::HashMap;

use crate::check::positive;
use crate::dtype::Dtype;
use crate::hardware::Chip;
use crate::profiling::capture::{json_bytes, Capture, OpRow};
use crate::profiling::xla_op::{parse_op, HloOp, HloShape, COLLECTIVES, ELEMENTWISE, MOVEMENT};
use crate::roofline::attainable;
use crate::units::{Bytes, BytesPerSec, Flops, FlopsPerSec, Intensity, Seconds};

/// The longest HLO text read, in bytes.
pub const MAX_HLO_BYTES: usize = 16 << 20;

/// How deep fusions may call fusions before a body is given up on.
const MAX_DEPTH: usize = 8;

/// Where an op's FLOPs and bytes came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CostFrom {
    /// The trace's own events (`model_flops`, `flops`, `bytes_accessed`).
    Trace,
    /// The compiled program's HLO text.
    Hlo,
}

/// One run's FLOPs and bytes, as far as they are known.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct RunCost {
    /// FLOPs of one run, if known.
    pub flops: Option<f64>,
    /// Bytes one run reads and writes, if known.
    pub bytes: Option<f64>,
}

/// Every instruction's cost in one HLO module's text.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HloCosts {
    /// The module's name (`HloModule jit_step` gives `jit_step`), if written.
    pub module: Option<String>,
    /// Cost of each instruction, by name without `%`.
    pub ops: HashMap<String, RunCost>,
}

/// One computation of the module: its instructions in order.
struct Computation {
    ops: Vec<HloOp>,
    shapes: HashMap<String, HloShape>,
}

impl HloCosts {
    /// Reads the text `compile().as_text()` prints. Lines that are not
    /// instructions are passed over; an instruction whose line does not parse
    /// keeps only its output shape (for the ops that read it) and no cost.
    pub fn read(text: &str) -> HloCosts {
        let text = &text[..floor_char_boundary(text, MAX_HLO_BYTES)];
        let module = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("HloModule "))
            .and_then(|rest| rest.split([',', ' ']).next())
            .filter(|m| !m.is_empty())
            .map(str::to_string);
        let mut comps: HashMap<String, Computation> = HashMap::new();
        let mut current: Option<String> = None;
        for line in text.lines() {
            let line = line.trim();
            if line == "}" {
                current = None;
                continue;
            }
            if line.ends_with('{') && line.contains("->") && !line.contains(" = ") {
                let head = line.strip_prefix("ENTRY ").unwrap_or(line);
                let name = head
                    .split([' ', '('])
                    .next()
                    .unwrap_or("")
                    .trim_start_matches('%');
                current = Some(name.to_string());
                comps.entry(name.to_string()).or_insert(Computation {
                    ops: Vec::new(),
                    shapes: HashMap::new(),
                });
                continue;
            }
            let Some(comp) = current.as_ref().and_then(|c| comps.get_mut(c)) else {
                continue;
            };
            let Some((lhs, rhs)) = line.split_once(" = ") else {
                continue;
            };
            let name = lhs
                .trim()
                .trim_start_matches("ROOT ")
                .trim_start_matches('%');
            if name.is_empty() {
                continue;
            }
            match parse_op(&format!("%{name} = {}", strip_attributes(rhs))) {
                Ok(op) => {
                    comp.shapes.insert(op.name.clone(), op.output.clone());
                    comp.ops.push(op);
                }
                Err(_) => {
                    // `parameter(0)`, tuples: keep the output type if it reads.
                    let ty = rhs.split(' ').next().unwrap_or("");
                    if let Ok(bare) = parse_op(ty) {
                        comp.shapes.insert(name.to_string(), bare.output);
                    }
                }
            }
        }
        let mut ops = HashMap::new();
        for comp in comps.values() {
            for op in &comp.ops {
                let cost = RunCost {
                    flops: flops_of(op, comp, &comps, 0),
                    bytes: bytes_of(op, comp),
                };
                ops.insert(op.name.clone(), cost);
            }
        }
        HloCosts { module, ops }
    }

    /// Reads a file's bytes (gzipped or not, at most [`MAX_HLO_BYTES`] of
    /// text): an error when it is not UTF-8 text or names no instruction.
    pub fn from_file(bytes: &[u8]) -> Result<HloCosts, String> {
        let text = json_bytes(bytes).map_err(|e| e.to_string())?;
        if text.len() > MAX_HLO_BYTES {
            return Err(format!("larger than {} MiB of text", MAX_HLO_BYTES >> 20));
        }
        let text = std::str::from_utf8(&text).map_err(|_| "not UTF-8 text".to_string())?;
        let costs = HloCosts::read(text);
        if costs.ops.is_empty() {
            return Err("no HLO instruction in it (save compile().as_text())".to_string());
        }
        Ok(costs)
    }

    /// The cost of the instruction `name`.
    pub fn op(&self, name: &str) -> Option<RunCost> {
        self.ops.get(name).copied()
    }
}

/// The largest char boundary at or below `at`.
fn floor_char_boundary(s: &str, at: usize) -> usize {
    let mut i = at.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// An instruction's text less the attributes that cost nothing and that the
/// op-line parser need not read (metadata, backend configs, shardings).
fn strip_attributes(rhs: &str) -> &str {
    const NOISE: [&str; 6] = [
        ", metadata=",
        ", backend_config=",
        ", sharding=",
        ", frontend_attributes=",
        ", statistics=",
        ", origin=",
    ];
    let cut = NOISE
        .iter()
        .filter_map(|n| rhs.find(n))
        .min()
        .unwrap_or(rhs.len());
    &rhs[..cut]
}

/// The type of operand `i` of `op`: written on the line, or the output of the
/// instruction it names in the same computation.
fn operand_shape<'a>(op: &'a HloOp, i: usize, comp: &'a Computation) -> Option<&'a HloShape> {
    let o = op.operands.get(i)?;
    o.shape.as_ref().or_else(|| comp.shapes.get(&o.name))
}

/// Bytes read and written: every operand and the output.
fn bytes_of(op: &HloOp, comp: &Computation) -> Option<f64> {
    if matches!(op.opcode.as_str(), "parameter" | "constant" | "bitcast") {
        return Some(0.0);
    }
    let mut bytes = op.output.bytes().0;
    for i in 0..op.operands.len() {
        bytes += operand_shape(op, i, comp)?.bytes().0;
    }
    Some(bytes)
}

/// FLOPs of one run, or `None` for an opcode whose FLOPs are not counted here.
fn flops_of(
    op: &HloOp,
    comp: &Computation,
    comps: &HashMap<String, Computation>,
    depth: usize,
) -> Option<f64> {
    let out = op.output.elements();
    let code = op.opcode.as_str();
    match code {
        "dot" => {
            let lhs = operand_shape(op, 0, comp)?;
            let dims = op
                .attributes
                .iter()
                .find(|(k, _)| k == "lhs_contracting_dims")?
                .1
                .trim_matches(['{', '}']);
            let mut k = 1.0;
            for d in dims.split(',').filter(|d| !d.trim().is_empty()) {
                let d: usize = d.trim().parse().ok()?;
                k *= *lhs.dims.get(d)? as f64;
            }
            Some(2.0 * out * k)
        }
        "reduce" => Some(operand_shape(op, 0, comp)?.elements()),
        "fusion" | "call" => {
            if depth >= MAX_DEPTH {
                return None;
            }
            let callee = op
                .attributes
                .iter()
                .find(|(k, _)| k == "calls")?
                .1
                .trim_start_matches('%');
            let body = comps.get(callee)?;
            body.ops
                .iter()
                .map(|o| flops_of(o, body, comps, depth + 1))
                .sum()
        }
        _ if ELEMENTWISE.contains(&code) => Some(out),
        _ if MOVEMENT.contains(&code)
            || COLLECTIVES.iter().any(|c| code.starts_with(c))
            || matches!(code, "tuple" | "get-tuple-element" | "iota") =>
        {
            Some(0.0)
        }
        _ => None,
    }
}

/// An op of the trace with what it cost and how fast it ran.
#[derive(Debug, Clone, PartialEq)]
pub struct HeavyOp {
    /// The op's name.
    pub name: String,
    /// Its runs.
    pub count: usize,
    /// Its total self time, µs.
    pub self_us: f64,
    /// Its share of all ops' self time.
    pub share: f64,
    /// FLOPs over all its runs, if known.
    pub flops: Option<Flops>,
    /// Bytes over all its runs, if known.
    pub bytes: Option<Bytes>,
    /// Where the FLOPs and bytes came from (`None` when neither is known).
    pub from: Option<CostFrom>,
}

/// An op placed on a chip's roofline.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RoofPoint {
    /// FLOPs per byte.
    pub intensity: Intensity,
    /// FLOPs over self time.
    pub achieved: FlopsPerSec,
    /// The roof at that intensity: `min(peak, intensity × bandwidth)`.
    pub roof: FlopsPerSec,
    /// `achieved / roof`.
    pub share: f64,
}

impl HeavyOp {
    /// FLOPs over self time, when the FLOPs are known.
    pub fn achieved(&self) -> Option<FlopsPerSec> {
        let t = Seconds(self.self_us * 1e-6);
        (t.0 > 0.0).then_some(())?;
        self.flops.map(|f| f / t)
    }

    /// FLOPs per byte, when both are known and the bytes are not zero.
    pub fn intensity(&self) -> Option<Intensity> {
        match (self.flops, self.bytes) {
            (Some(f), Some(b)) if b.0 > 0.0 => Some(f / b),
            _ => None,
        }
    }

    /// The op on the roofline of compute roof `peak` and memory roof `bw`,
    /// when its FLOPs (more than none), bytes and time are known.
    pub fn on_roof(&self, peak: FlopsPerSec, bw: BytesPerSec) -> Option<RoofPoint> {
        let intensity = self.intensity().filter(|i| i.0 > 0.0)?;
        let achieved = self.achieved()?;
        let roof = attainable(intensity, peak, bw);
        Some(RoofPoint {
            intensity,
            achieved,
            roof,
            share: achieved.0 / roof.0,
        })
    }
}

/// The `n` heaviest ops of `capture` (by self time) with their costs: from the
/// trace where every run carried them, else from `hlo` for ops whose events
/// name its module (or name no module at all).
pub fn heavy_ops(capture: &Capture, hlo: Option<&HloCosts>, n: usize) -> Vec<HeavyOp> {
    capture
        .ops
        .iter()
        .take(n)
        .map(|row| heavy_op(row, hlo))
        .collect()
}

fn heavy_op(row: &OpRow, hlo: Option<&HloCosts>) -> HeavyOp {
    let runs = row.count as f64;
    let from_hlo = hlo
        .filter(|h| match (&row.module, &h.module) {
            (Some(a), Some(b)) => a == b,
            (None, _) => true,
            (Some(_), None) => true,
        })
        .and_then(|h| h.op(&row.name))
        .filter(|c| c.flops.is_some() || c.bytes.is_some());
    let (flops, bytes, from) = if row.flops.is_some() || row.bytes.is_some() {
        (row.flops, row.bytes, Some(CostFrom::Trace))
    } else if let Some(c) = from_hlo {
        (
            c.flops.map(|f| f * runs),
            c.bytes.map(|b| b * runs),
            Some(CostFrom::Hlo),
        )
    } else {
        (None, None, None)
    };
    HeavyOp {
        name: row.name.clone(),
        count: row.count,
        self_us: row.self_us,
        share: row.share,
        flops: flops.map(Flops),
        bytes: bytes.map(Bytes),
        from,
    }
}

/// The roofline's budget for one step on one chip: the book's expected FLOPs
/// over the peak plus expected bytes over the HBM bandwidth.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepBudget {
    /// FLOPs each device runs in a step.
    pub flops: Flops,
    /// Bytes each device moves to and from HBM in a step.
    pub bytes: Bytes,
    /// `flops` at the chip's bf16 peak.
    pub compute: Seconds,
    /// `bytes` at the chip's HBM bandwidth.
    pub memory: Seconds,
}

impl StepBudget {
    /// The budget of `flops` and `bytes` per device on `chip` (bf16 peak);
    /// an error when the chip has no bf16 peak.
    pub fn new(flops: Flops, bytes: Bytes, chip: &Chip) -> Result<StepBudget, String> {
        let (_, peak) = chip
            .peak_or_wider(Dtype::Bf16)
            .ok_or_else(|| format!("{} has no bf16 peak", chip.name))?;
        Ok(StepBudget {
            flops,
            bytes,
            compute: flops / peak,
            memory: bytes / chip.hbm_bw(),
        })
    }

    /// Compute time plus memory time.
    pub fn total(&self) -> Seconds {
        self.compute + self.memory
    }

    /// The measured step over this budget (above 1: slower than the roofline).
    pub fn ratio(&self, measured: Seconds) -> f64 {
        measured.0 / self.total().0
    }
}

/// A step of `matmuls` matmuls `[b, d] × [d, f]`, the batch `b` split over
/// `devices` devices and the weights whole on each, `bytes_per_element` wide.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MatmulStep {
    /// Batch (rows of the left operand), over all devices.
    pub b: f64,
    /// Contracted dimension.
    pub d: f64,
    /// Output columns.
    pub f: f64,
    /// Matmuls per step.
    pub matmuls: f64,
    /// Devices the batch is split over.
    pub devices: f64,
    /// Bytes per element (2 for bf16, 4 for f32).
    pub bytes_per_element: f64,
}

impl MatmulStep {
    /// The step of the sample trace (`tests/data/traces/`): `tanh(a @ b) @ b`,
    /// two 512 × 512 × 512 matmuls in f32 with `a` split by rows over eight devices.
    pub const SAMPLE_TRACE: MatmulStep = MatmulStep {
        b: 512.0,
        d: 512.0,
        f: 512.0,
        matmuls: 2.0,
        devices: 8.0,
        bytes_per_element: 4.0,
    };

    /// Each device's FLOPs (`2·(b/devices)·d·f` per matmul) and bytes (its
    /// rows of the input and output and the whole weight, per matmul), as a
    /// budget on `chip`; an error names a size that is not positive.
    pub fn budget(&self, chip: &Chip) -> Result<StepBudget, String> {
        for (x, what) in [
            (self.b, "the batch"),
            (self.d, "D"),
            (self.f, "F"),
            (self.matmuls, "the matmuls per step"),
            (self.devices, "the device count"),
            (self.bytes_per_element, "the bytes per element"),
        ] {
            positive(what, x).map_err(|e| e.to_string())?;
        }
        let rows = self.b / self.devices;
        let flops = self.matmuls * 2.0 * rows * self.d * self.f;
        let bytes = self.matmuls
            * (rows * self.d + self.d * self.f + rows * self.f)
            * self.bytes_per_element;
        StepBudget::new(Flops(flops), Bytes(bytes), chip)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hardware::chip;
    use crate::profiling::capture::read;

    const JAX: &[u8] = include_bytes!("../../../tests/data/traces/jax-sharded-matmul-8cpu.json.gz");
    const JAX_HLO: &str =
        include_str!("../../../tests/data/traces/jax-sharded-matmul-8cpu.hlo.txt");

    #[test]
    fn the_sharded_matmul_s_fusions_on_a_roofline() {
        let c = read(JAX).unwrap();
        let hlo = HloCosts::read(JAX_HLO);
        assert_eq!(hlo.module.as_deref(), Some("jit_step"));
        let ops = heavy_ops(&c, Some(&hlo), 10);
        // Each device's dot: f32[64,512] x f32[512,512], 2·64·512·512 FLOPs,
        // reading both operands and writing f32[64,512]: 1,310,720 bytes.
        let per_run = 2.0 * 64.0 * 512.0 * 512.0;
        let bytes = (64.0 * 512.0 + 512.0 * 512.0 + 64.0 * 512.0) * 4.0;
        assert_eq!(bytes, 1_310_720.0);
        let second = &ops[0];
        assert_eq!(second.name, "ynn_fusion");
        assert_eq!(second.from, Some(CostFrom::Hlo));
        assert_eq!(second.flops, Some(Flops(24.0 * per_run)));
        assert_eq!(second.bytes, Some(Bytes(24.0 * bytes)));
        // 24 runs in 60,930.183 µs: 805,306,368 FLOPs / 0.060930183 s.
        let rate = second.achieved().unwrap().0;
        assert!((rate - 805_306_368.0 / 0.060_930_183).abs() < 1.0, "{rate}");
        assert!((second.intensity().unwrap().0 - 25.6).abs() < 1e-12);
        // On a v5e (bf16 roof 1.97e14, HBM 8.2e11 B/s): below the ridge, so
        // the roof is 25.6 × 8.2e11 B/s.
        let v5e = chip("v5e").unwrap();
        let (_, peak) = v5e.peak_or_wider(Dtype::Bf16).unwrap();
        let p = second.on_roof(peak, v5e.hbm_bw()).unwrap();
        let roof = 25.6 * v5e.hbm_bw().0;
        assert!((p.roof.0 - roof).abs() < 1.0);
        assert!((p.share - rate / roof).abs() < 1e-12);
        // tanh: XLA's transcendental, one FLOP per element here; 64·512
        // in, 64·512 out.
        let tanh = ops.iter().find(|o| o.name == "wrapped_tanh").unwrap();
        assert_eq!(tanh.flops, Some(Flops(24.0 * 64.0 * 512.0)));
        assert_eq!(tanh.bytes, Some(Bytes(24.0 * 2.0 * 64.0 * 512.0 * 4.0)));
        // Without the HLO text the trace alone gives no costs: none are guessed.
        let bare = heavy_ops(&c, None, 10);
        assert!(bare.iter().all(|o| o.flops.is_none() && o.from.is_none()));
        assert!(bare[0].on_roof(peak, v5e.hbm_bw()).is_none());
        // Another module's text explains nothing here.
        let other = HloCosts::read(&JAX_HLO.replace("HloModule jit_step", "HloModule jit_other"));
        assert!(heavy_ops(&c, Some(&other), 10)
            .iter()
            .all(|o| o.from.is_none()));
    }

    #[test]
    fn the_transformer_step_s_heaviest_matmul() {
        let c = read(include_bytes!(
            "../../../tests/data/traces/jax-transformer-8cpu.json.gz"
        ))
        .unwrap();
        let hlo = HloCosts::from_file(include_bytes!(
            "../../../tests/data/traces/jax-transformer-8cpu.hlo.txt.gz"
        ))
        .unwrap();
        let ops = heavy_ops(&c, Some(&hlo), 3);
        // The gradients' all-reduce: a tuple of ten arrays, not costed here.
        assert_eq!(ops[0].name, "all-reduce.10");
        assert_eq!(ops[0].from, None);
        // ynn_fusion.18 = dot(f32[128,256], f32[1024,256]) -> f32[128,1024],
        // contracting 256: 2·128·1024·256 FLOPs and
        // (128·256 + 1024·256 + 128·1024)·4 bytes per run, 24 runs in 129,198.996 µs.
        let m = &ops[1];
        assert_eq!(m.name, "ynn_fusion.18");
        let flops = 24.0 * 2.0 * 128.0 * 1024.0 * 256.0;
        let bytes = 24.0 * 1_703_936.0;
        assert_eq!(m.flops, Some(Flops(flops)));
        assert_eq!(m.bytes, Some(Bytes(bytes)));
        assert!((m.achieved().unwrap().0 - flops / 0.129_198_996).abs() < 1.0);
        // The log-softmax fusion: a dot 2·128·512·256, a reduce over 128·512
        // inputs and a subtract of 128·512 outputs.
        let l = &ops[2];
        assert_eq!(l.name, "ynn_fusion.36");
        let per_run = 2.0 * 128.0 * 512.0 * 256.0 + 2.0 * 128.0 * 512.0;
        assert_eq!(l.flops, Some(Flops(24.0 * per_run)));
        assert!(HloCosts::from_file(b"\xff\xfe").is_err());
        assert_eq!(
            HloCosts::from_file(b"hello").unwrap_err(),
            "no HLO instruction in it (save compile().as_text())"
        );
    }

    #[test]
    fn costs_the_trace_carries_come_first() {
        let t = br#"[
          {"ph": "X", "pid": 1, "tid": 1, "ts": 0, "dur": 100, "name": "fusion.1",
           "args": {"hlo_op": "fusion.1", "model_flops": "2000000", "bytes_accessed": 1000000}},
          {"ph": "X", "pid": 1, "tid": 1, "ts": 100, "dur": 100, "name": "fusion.1",
           "args": {"hlo_op": "fusion.1", "model_flops": 2000000, "bytes_accessed": "1000000"}},
          {"ph": "X", "pid": 1, "tid": 1, "ts": 200, "dur": 50, "name": "copy.2",
           "args": {"hlo_op": "copy.2", "bytes_accessed": 500}},
          {"ph": "X", "pid": 1, "tid": 1, "ts": 250, "dur": 50, "name": "copy.2",
           "args": {"hlo_op": "copy.2"}}
        ]"#;
        let c = read(t).unwrap();
        let ops = heavy_ops(&c, None, 5);
        let f = &ops[0];
        assert_eq!(f.from, Some(CostFrom::Trace));
        assert_eq!(f.flops, Some(Flops(4e6)));
        assert_eq!(f.bytes, Some(Bytes(2e6)));
        // 4e6 FLOPs in 200 µs: 2e10 FLOP/s at 2 FLOPs per byte.
        assert!((f.achieved().unwrap().0 - 2e10).abs() < 1e-3);
        assert_eq!(f.intensity(), Some(Intensity(2.0)));
        // One run of copy.2 carried its bytes and one did not: unknown.
        assert_eq!(ops[1].bytes, None);
        assert_eq!(ops[1].from, None);
    }

    #[test]
    fn hlo_lines_it_cannot_cost_are_left_unknown() {
        let hlo = HloCosts::read(
            "HloModule m\nENTRY %e (p: f32[4]) -> f32[4] {\n  %p = f32[4]{0} parameter(0)\n  %c = f32[4]{0} custom-call(%p), custom_call_target=\"x\"\n  %w = f32[4]{0} fusion(%p), kind=kLoop, calls=%missing\n  %s = f32[4]{0} add(%p, %nowhere)\n  %r = f32[] reduce(%p, %p), dimensions={0}, to_apply=%sum\n  garbage = = =\n}\n",
        );
        assert_eq!(hlo.op("c").unwrap().flops, None);
        assert_eq!(hlo.op("c").unwrap().bytes, Some(32.0));
        assert_eq!(hlo.op("w").unwrap().flops, None);
        assert_eq!(hlo.op("s").unwrap().bytes, None);
        assert_eq!(hlo.op("r").unwrap().flops, Some(4.0));
        assert!(HloCosts::read("not hlo at all é").ops.is_empty());
    }

    #[test]
    fn the_budget_of_the_sample_step() {
        // tanh(a @ b) @ b: two 512³ matmuls, a split by rows over 8 devices, f32.
        let step = MatmulStep::SAMPLE_TRACE;
        let v5e = chip("v5e").unwrap();
        let b = step.budget(v5e).unwrap();
        assert_eq!(b.flops, Flops(67_108_864.0));
        assert_eq!(b.bytes, Bytes(2_621_440.0));
        let (_, peak) = v5e.peak_or_wider(Dtype::Bf16).unwrap();
        let want = 67_108_864.0 / peak.0 + 2_621_440.0 / v5e.hbm_bw().0;
        assert!((b.total().0 - want).abs() < 1e-15);
        // The fixture's first step, 10,168.188 µs.
        assert!((b.ratio(Seconds(10_168.188e-6)) - 10_168.188e-6 / want).abs() < 1e-9);
        let bad = MatmulStep {
            devices: 0.0,
            ..step
        };
        let e = bad.budget(v5e).unwrap_err();
        assert!(e.contains("the device count"), "{e}");
    }
}
