//! How the arrays of one MLP block are cut under each training strategy, and which
//! collective runs where as the forward and backward passes go by (Part 5, "How the
//! arrays are cut", and its Appendix A). The block is `Tmp = In · W_in`,
//! `Out = Tmp · W_out`, with `In[B, D]`, `W_in[D, F]`, `W_out[F, D]`; `X` is the data
//! (or FSDP) axis and `Y` the tensor axis.
//!
//! The backward pass is derived, not listed: the gradient of a matmul's output
//! gives the gradient of each input by one more matmul (`dW_out = Tmpᵀ · dOut`,
//! `dTmp = dOut · W_outᵀ`, and the same for the first matmul). Whenever the two
//! operands of such a matmul are both split along the dimension it sums over, each
//! device holds a partial sum (`{U_X}` in the book's notation) that must be reduced:
//! an AllReduce when the result is kept whole (data parallelism), a ReduceScatter
//! when it is kept sharded (FSDP's weights, tensor parallelism's activations).
//! Whenever an operand is sharded along a dimension the matmul needs whole, it is
//! gathered first (FSDP's weights, tensor parallelism's activations).
//!
//! ```
//! use ridgeline_core::hardware::chip;
//! use ridgeline_core::training::layout::{layout, LayoutParams, Strategy};
//!
//! let p = LayoutParams::new(Strategy::Fsdp, 256, 1, 1_048_576.0, 8192, 28672, chip("v5p").unwrap());
//! let l = layout(&p).unwrap();
//! // FSDP gathers each weight forward, gathers both again backward, and
//! // reduce-scatters both gradients.
//! assert_eq!(l.forward.iter().filter(|s| s.collective.is_some()).count(), 2);
//! assert_eq!(l.backward.iter().filter(|s| s.collective.is_some()).count(), 4);
//! ```

use super::fsdp_comms;
use crate::comms::collectives::{self, Collective, Network, RingAxis};
use crate::dtype::Dtype;
use crate::hardware::Chip;
use crate::roofline::Verdict;
use crate::units::{Bytes, Flops, Seconds};

/// The four strategies of Part 5.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    /// Data parallelism.
    Dp,
    /// Fully-sharded data parallelism.
    Fsdp,
    /// Tensor (model) parallelism.
    Tp,
    /// FSDP on `X`, tensor parallelism on `Y`.
    FsdpTp,
}

impl Strategy {
    /// Every strategy.
    pub const ALL: [Strategy; 4] = [Strategy::Dp, Strategy::Fsdp, Strategy::Tp, Strategy::FsdpTp];

    /// The name used in URLs.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Dp => "dp",
            Strategy::Fsdp => "fsdp",
            Strategy::Tp => "tp",
            Strategy::FsdpTp => "fsdp-tp",
        }
    }

    /// Parses [`Strategy::name`].
    pub fn parse(text: &str) -> Result<Strategy, String> {
        Strategy::ALL
            .into_iter()
            .find(|s| s.name() == text.trim())
            .ok_or_else(|| format!("scheme: {text:?} is not dp, fsdp, tp or fsdp-tp"))
    }

    fn shards_batch(self) -> bool {
        self != Strategy::Tp
    }

    fn shards_weights_on_x(self) -> bool {
        matches!(self, Strategy::Fsdp | Strategy::FsdpTp)
    }

    fn tensor(self) -> bool {
        matches!(self, Strategy::Tp | Strategy::FsdpTp)
    }
}

/// What the `parallelism-layout` widget lets a reader set.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LayoutParams {
    /// The strategy.
    pub strategy: Strategy,
    /// Devices on the data/FSDP axis `X` (1 for pure tensor parallelism).
    pub x: u32,
    /// Devices on the tensor axis `Y` (1 for DP and FSDP).
    pub y: u32,
    /// Global batch in tokens, `B`.
    pub batch: f64,
    /// Model width `D`.
    pub d: u64,
    /// MLP width `F`.
    pub f: u64,
    /// The chip (its ICI and bf16 peak come from the registry).
    pub chip: &'static Chip,
}

impl LayoutParams {
    /// A setting in bf16.
    pub fn new(
        strategy: Strategy,
        x: u32,
        y: u32,
        batch: f64,
        d: u64,
        f: u64,
        chip: &'static Chip,
    ) -> LayoutParams {
        LayoutParams {
            strategy,
            x,
            y,
            batch,
            d,
            f,
            chip,
        }
    }

    /// Checks every field; the message names the bad one.
    pub fn validate(&self) -> Result<(), String> {
        let s = self.strategy;
        if self.x == 0 || (!s.shards_batch() && self.x != 1) {
            return Err(format!(
                "x: {} needs {}",
                s.name(),
                if s.shards_batch() {
                    "at least one device on X"
                } else {
                    "X = 1 (it does not split the batch)"
                }
            ));
        }
        if self.y == 0 || (!s.tensor() && self.y != 1) {
            return Err(format!(
                "y: {} needs {}",
                s.name(),
                if s.tensor() {
                    "at least one device on Y"
                } else {
                    "Y = 1 (it does not split F)"
                }
            ));
        }
        if !(self.batch.is_finite() && self.batch >= self.x as f64 && self.batch <= 1e12) {
            return Err("batch: at least one token per data shard, at most 1e12".into());
        }
        if self.d == 0 || self.d > crate::model::config::MAX_D_MODEL {
            return Err("d: a model width from 1 to 2^20".into());
        }
        if self.f == 0 || self.f > crate::model::config::MAX_D_FF {
            return Err("f: an MLP width from 1 to 2^24".into());
        }
        if (self.y as u64) > self.f {
            return Err("y: more tensor shards than F has columns".into());
        }
        if self.chip.peak(Dtype::Bf16).is_none() {
            return Err(format!("chip: {} has no bf16 peak", self.chip.name));
        }
        Ok(())
    }
}

/// One array as each device holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct ArrayLayout {
    /// `In`, `W_in`, `W_out` or `Out`.
    pub name: &'static str,
    /// The book's notation, e.g. `W_in[D_X, F_Y]`.
    pub spec: String,
    /// The block one device holds, `[rows, cols]`.
    pub local: [f64; 2],
    /// Its bytes.
    pub bytes: Bytes,
}

/// A collective on one step.
#[derive(Debug, Clone, PartialEq)]
pub struct CollectiveStep {
    /// Which collective.
    pub kind: Collective,
    /// The mesh axis it runs over, `'X'` or `'Y'`.
    pub axis: char,
    /// The book's `V`: the gathered (or unreduced) array's bytes.
    pub bytes: Bytes,
    /// Bytes each device sends: `V (n - 1) / n`, twice that for an AllReduce.
    pub sent: Bytes,
    /// Its time on the chip's ICI.
    pub time: Seconds,
}

/// One step of a pass: a matmul or a collective, in the book's notation.
#[derive(Debug, Clone, PartialEq)]
pub struct PassStep {
    /// What happens, e.g. `AllGather_X W_in[D_X, F_Y] → W_in[D, F_Y]`.
    pub text: String,
    /// The collective, if this step is one.
    pub collective: Option<CollectiveStep>,
    /// FLOPs per device, if this step is a matmul.
    pub flops: Flops,
    /// Time of the step.
    pub time: Seconds,
}

/// Everything the widget shows.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    /// `In`, `W_in`, `W_out`, `Out`.
    pub arrays: Vec<ArrayLayout>,
    /// Forward steps in order.
    pub forward: Vec<PassStep>,
    /// Backward steps in order.
    pub backward: Vec<PassStep>,
}

impl Layout {
    fn sum(steps: &[PassStep], comms: bool) -> Seconds {
        steps
            .iter()
            .filter(|s| s.collective.is_some() == comms)
            .map(|s| s.time)
            .sum()
    }

    /// Matmul time of both passes.
    pub fn compute_time(&self) -> Seconds {
        Layout::sum(&self.forward, false) + Layout::sum(&self.backward, false)
    }

    /// Collective time of both passes, not overlapped.
    pub fn comms_time(&self) -> Seconds {
        Layout::sum(&self.forward, true) + Layout::sum(&self.backward, true)
    }

    /// Matmul and collective time of one pass (`backward` picks which).
    pub fn pass_times(&self, backward: bool) -> (Seconds, Seconds) {
        let steps = if backward {
            &self.backward
        } else {
            &self.forward
        };
        (Layout::sum(steps, false), Layout::sum(steps, true))
    }

    /// Whether each pass's matmuls take longer than its collectives (the book's
    /// comparison, pass by pass, with the collectives overlapped with the matmuls).
    pub fn verdict(&self) -> Verdict {
        let bound = |backward| {
            let (compute, comms) = self.pass_times(backward);
            compute.0 >= comms.0
        };
        if bound(false) && bound(true) {
            Verdict::ComputeBound
        } else {
            Verdict::CommunicationBound
        }
    }

    /// Bytes of all collectives' `V`.
    pub fn comms_bytes(&self) -> Bytes {
        self.forward
            .iter()
            .chain(&self.backward)
            .filter_map(|s| s.collective.as_ref().map(|c| c.bytes))
            .sum()
    }
}

/// Lays out the MLP block for `p` and steps through both passes.
pub fn layout(p: &LayoutParams) -> Result<Layout, String> {
    p.validate()?;
    let s = p.strategy;
    let by = Dtype::Bf16.bytes();
    let net = Network::ici(p.chip).map_err(|e| format!("chip: {e}"))?;
    let peak = p.chip.peak(Dtype::Bf16).ok_or("chip: no bf16 peak")?;
    let (x, y) = (p.x as f64, p.y as f64);
    let (d, f) = (p.d as f64, p.f as f64);
    // Local sizes of the batch, of D in activations, and of D and F in weights.
    let b_loc = if s.shards_batch() {
        p.batch / x
    } else {
        p.batch
    };
    let f_loc = f / y;
    let w_d = if s.shards_weights_on_x() { d / x } else { d };
    let bx = if s.shards_batch() { "B_X" } else { "B" };
    let dy = if s.tensor() { "D_Y" } else { "D" };
    let dx = if s.shards_weights_on_x() { "D_X" } else { "D" };
    let fy = if s.tensor() { "F_Y" } else { "F" };
    let act_d = if s.tensor() { d / y } else { d };
    let array = |name, spec: String, local: [f64; 2]| ArrayLayout {
        name,
        spec,
        local,
        bytes: Bytes(local[0] * local[1] * by),
    };
    let arrays = vec![
        array("In", format!("In[{bx}, {dy}]"), [b_loc, act_d]),
        array("W_in", format!("W_in[{dx}, {fy}]"), [w_d, f_loc]),
        array("W_out", format!("W_out[{fy}, {dx}]"), [f_loc, w_d]),
        array("Out", format!("Out[{bx}, {dy}]"), [b_loc, act_d]),
    ];
    // FSDP's weight gathers and gradient scatters take the FSDP communication time;
    // the other collectives (tensor parallelism's, data parallelism's AllReduce) the
    // plain collective cost. Both are over one ring of the axis.
    let coll =
        |kind, axis: char, size: u32, bytes: f64, text: String| -> Result<PassStep, String> {
            let ring = [RingAxis::ring(size)];
            let fsdp = axis == 'X' && s.shards_weights_on_x() && kind != Collective::AllReduce;
            let c = if fsdp {
                fsdp_comms(kind, Bytes(bytes * by), &ring, &net).map_err(|e| format!("x: {e}"))?
            } else {
                collectives::cost(kind, Bytes(bytes * by), &ring, &net)
                    .map_err(|e| format!("{}: {e}", axis.to_ascii_lowercase()))?
            };
            Ok(PassStep {
                text,
                collective: Some(CollectiveStep {
                    kind,
                    axis,
                    bytes: c.bytes,
                    sent: c.bytes_per_device,
                    time: c.time,
                }),
                flops: Flops(0.0),
                time: c.time,
            })
        };
    let matmul = |text: String, m: f64, k: f64, n: f64| {
        let flops = Flops(2.0 * m * k * n);
        PassStep {
            text,
            collective: None,
            flops,
            time: flops / peak,
        }
    };
    let gather_w = |w: &str, spec: &str, whole: &str| {
        coll(
            Collective::AllGather,
            'X',
            p.x,
            d * f_loc,
            format!("AllGather_X {w}[{spec}] → {w}[{whole}]"),
        )
    };
    let mut fwd = Vec::new();
    if s.tensor() {
        fwd.push(coll(
            Collective::AllGather,
            'Y',
            p.y,
            b_loc * d,
            format!("AllGather_Y In[{bx}, D_Y] → In[{bx}, D]"),
        )?);
    }
    if s.shards_weights_on_x() {
        fwd.push(gather_w(
            "W_in",
            &format!("D_X, {fy}"),
            &format!("D, {fy}"),
        )?);
    }
    fwd.push(matmul(
        format!("Tmp[{bx}, {fy}] = In[{bx}, D] · W_in[D, {fy}]"),
        b_loc,
        d,
        f_loc,
    ));
    if s.shards_weights_on_x() {
        fwd.push(gather_w(
            "W_out",
            &format!("{fy}, D_X"),
            &format!("{fy}, D"),
        )?);
    }
    let partial_y = if s.tensor() { "{U_Y}" } else { "" };
    fwd.push(matmul(
        format!("Out[{bx}, D]{partial_y} = Tmp[{bx}, {fy}] · W_out[{fy}, D]"),
        b_loc,
        f_loc,
        d,
    ));
    if s.tensor() {
        fwd.push(coll(
            Collective::ReduceScatter,
            'Y',
            p.y,
            b_loc * d,
            format!("ReduceScatter_Y Out[{bx}, D]{{U_Y}} → Out[{bx}, D_Y]"),
        )?);
    }

    let mut bwd = Vec::new();
    if s.tensor() {
        bwd.push(coll(
            Collective::AllGather,
            'Y',
            p.y,
            b_loc * d,
            format!("AllGather_Y dOut[{bx}, D_Y] → dOut[{bx}, D]"),
        )?);
    }
    // The weight gradients sum over the batch, which DP and FSDP split over X.
    let partial_x = if s.shards_batch() && p.x > 1 {
        "{U_X}"
    } else {
        ""
    };
    let reduce_grad = |w: &str, whole: &str, kept: &str| -> Result<Option<PassStep>, String> {
        Ok(match s {
            _ if p.x == 1 || !s.shards_batch() => None,
            Strategy::Dp => Some(coll(
                Collective::AllReduce,
                'X',
                p.x,
                d * f_loc,
                format!("AllReduce_X d{w}[{whole}]{{U_X}} → d{w}[{whole}]"),
            )?),
            _ => Some(coll(
                Collective::ReduceScatter,
                'X',
                p.x,
                d * f_loc,
                format!("ReduceScatter_X d{w}[{whole}]{{U_X}} → d{w}[{kept}]"),
            )?),
        })
    };
    bwd.push(matmul(
        format!("dW_out[{fy}, D]{partial_x} = Tmp[{bx}, {fy}]ᵀ · dOut[{bx}, D]"),
        f_loc,
        b_loc,
        d,
    ));
    bwd.extend(reduce_grad(
        "W_out",
        &format!("{fy}, D"),
        &format!("{fy}, D_X"),
    )?);
    if s.shards_weights_on_x() {
        bwd.push(gather_w(
            "W_out",
            &format!("{fy}, D_X"),
            &format!("{fy}, D"),
        )?);
    }
    bwd.push(matmul(
        format!("dTmp[{bx}, {fy}] = dOut[{bx}, D] · W_out[{fy}, D]ᵀ"),
        b_loc,
        d,
        f_loc,
    ));
    bwd.push(matmul(
        format!("dW_in[D, {fy}]{partial_x} = In[{bx}, D]ᵀ · dTmp[{bx}, {fy}]"),
        d,
        b_loc,
        f_loc,
    ));
    bwd.extend(reduce_grad(
        "W_in",
        &format!("D, {fy}"),
        &format!("D_X, {fy}"),
    )?);
    if s.shards_weights_on_x() {
        bwd.push(gather_w(
            "W_in",
            &format!("D_X, {fy}"),
            &format!("D, {fy}"),
        )?);
    }
    bwd.push(matmul(
        format!("dIn[{bx}, D]{partial_y} = dTmp[{bx}, {fy}] · W_in[D, {fy}]ᵀ"),
        b_loc,
        f_loc,
        d,
    ));
    if s.tensor() {
        bwd.push(coll(
            Collective::ReduceScatter,
            'Y',
            p.y,
            b_loc * d,
            format!("ReduceScatter_Y dIn[{bx}, D]{{U_Y}} → dIn[{bx}, D_Y]"),
        )?);
    }
    Ok(Layout {
        arrays,
        forward: fwd,
        backward: bwd,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hardware::chip;

    fn p(s: Strategy, x: u32, y: u32) -> LayoutParams {
        LayoutParams::new(s, x, y, 1_048_576.0, 8192, 28672, chip("v5p").unwrap())
    }

    #[test]
    fn every_strategy_does_the_same_flops_per_device() {
        let total = 6.0 * 1_048_576.0 * 8192.0 * 28672.0 * 2.0;
        for (s, x, y) in [
            (Strategy::Dp, 256, 1),
            (Strategy::Fsdp, 256, 1),
            (Strategy::Tp, 1, 256),
            (Strategy::FsdpTp, 64, 4),
        ] {
            let l = layout(&p(s, x, y)).unwrap();
            let flops: Flops = l.forward.iter().chain(&l.backward).map(|s| s.flops).sum();
            assert!((flops.0 * 256.0 / total - 1.0).abs() < 1e-12, "{s:?}");
        }
    }

    #[test]
    fn fsdp_moves_the_same_bytes_as_dp_plus_the_forward_gathers() {
        // DP: two gradient AllReduces (each twice a gather). FSDP: three gathers or
        // scatters per weight, each the size of the weight.
        let dp = layout(&p(Strategy::Dp, 256, 1)).unwrap();
        let fsdp = layout(&p(Strategy::Fsdp, 256, 1)).unwrap();
        let w = 8192.0 * 28672.0 * 2.0;
        assert_eq!(dp.comms_bytes().0, 2.0 * w);
        assert_eq!(fsdp.comms_bytes().0, 6.0 * w);
        let ar = dp
            .backward
            .iter()
            .find_map(|s| s.collective.clone())
            .unwrap();
        let rs = fsdp
            .backward
            .iter()
            .filter_map(|s| s.collective.clone())
            .find(|c| c.kind == Collective::ReduceScatter)
            .unwrap();
        assert!((ar.time.0 / rs.time.0 - 2.0).abs() < 1e-9);
    }

    #[test]
    fn tensor_parallel_backward_mirrors_the_forward() {
        let l = layout(&p(Strategy::FsdpTp, 64, 4)).unwrap();
        let texts: Vec<&str> = l.backward.iter().map(|s| s.text.as_str()).collect();
        assert!(texts[0].starts_with("AllGather_Y dOut[B_X, D_Y]"));
        assert!(texts
            .last()
            .unwrap()
            .starts_with("ReduceScatter_Y dIn[B_X, D]{U_Y}"));
        assert!(texts
            .iter()
            .any(|t| t.starts_with("ReduceScatter_X dW_in[D, F_Y]{U_X} → dW_in[D_X, F_Y]")));
        assert_eq!(l.arrays[1].spec, "W_in[D_X, F_Y]");
        assert_eq!(l.arrays[1].local, [128.0, 7168.0]);
    }

    #[test]
    fn data_parallelism_turns_compute_bound_at_the_books_alpha() {
        // Part 5: DP and FSDP are compute-bound once each chip holds more than
        // α = C / W_ici tokens (one axis).
        let v5p = chip("v5p").unwrap();
        let alpha = crate::training::ici_intensity(v5p, Dtype::Bf16).unwrap().0;
        for s in [Strategy::Dp, Strategy::Fsdp] {
            let at = |f: f64| {
                layout(&LayoutParams {
                    batch: (alpha * f * 256.0).round(),
                    ..p(s, 256, 1)
                })
                .unwrap()
                .verdict()
            };
            assert_eq!(at(0.9), Verdict::CommunicationBound, "{s:?}");
            assert_eq!(at(1.1), Verdict::ComputeBound, "{s:?}");
        }
        let dp = layout(&p(Strategy::Dp, 256, 1)).unwrap();
        let ar = dp
            .backward
            .iter()
            .find_map(|s| s.collective.clone())
            .unwrap();
        assert_eq!(ar.sent.0, 2.0 * ar.bytes.0 * 255.0 / 256.0);
        assert_eq!(dp.pass_times(false).1 .0, 0.0);
    }

    #[test]
    fn bad_fields_are_named() {
        assert!(layout(&p(Strategy::Dp, 256, 2))
            .unwrap_err()
            .starts_with("y:"));
        assert!(layout(&p(Strategy::Tp, 2, 4))
            .unwrap_err()
            .starts_with("x:"));
        assert!(layout(&LayoutParams {
            batch: 10.0,
            ..p(Strategy::Dp, 256, 1)
        })
        .unwrap_err()
        .starts_with("batch:"));
        assert!(Strategy::parse("zero").unwrap_err().starts_with("scheme:"));
    }
}
