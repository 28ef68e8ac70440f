//! Part 9 (profiling TPU programs): the arithmetic of reading a profile.
//!
//! An HLO op prints its output shape with a layout such as `f32[3,5]{1,0:T(2,2)}`:
//! the minor-to-major order of the dimensions and a tile. Memory is laid out in
//! whole tiles, so each tiled dimension is padded up to a multiple of its tile
//! size and the array takes more bytes than its logical shape suggests
//! ([`TiledArray`]). A profile also lets us check each op against its roofline:
//! a matmul should take `FLOPs / (cores × FLOPs/s per core)`
//! ([`predicted_matmul_time`]), a collective its [`crate::comms::collectives`] cost over
//! the links it uses ([`predicted_collective_time`]), and the replica groups of a
//! collective reveal how many ways an array is sharded, hence its true shape
//! ([`true_shape`]).
//!
//! ```
//! use ridgeline_core::profiling::{predicted_matmul_time, TiledArray};
//! use ridgeline_core::hardware::TPU_V2_CORE_PEAK;
//!
//! let a = TiledArray::parse("f32[3,5]{1,0:T(2,2)}").unwrap();
//! assert_eq!(a.padded_shape(), vec![4, 6]);
//! assert!((a.blowup() - 1.6).abs() < 1e-12);
//!
//! // Part 9's up-projection on 8 TPU v2 cores: about 95.6 ms.
//! let t = predicted_matmul_time(32.0 * 1024.0, 8192.0, 32768.0, 8, TPU_V2_CORE_PEAK.value).unwrap();
//! assert!((t.0 * 1e3 - 95.6).abs() < 0.05);
//! ```
//!
//! ## Files
//!
//! | file | what |
//! |---|---|
//! | `mod.rs` | the arithmetic of reading a profile: layouts and padding, predicted op times |
//! | `achieved.rs` | a reader's trace on a chip's roofline: each heavy op's FLOPs and bytes (from the trace or the program's HLO text), its achieved rate against the roof, and the step's budget (feature `library`) |
//! | `book.rs` | the book's own profiles as data: its trace screenshots' rows, ops and details, its graph-viewer pictures, the tool menu and the times it reports |
//! | `capture.rs` | a reader's own trace file (JAX/Perfetto or PyTorch Chrome JSON, gzipped or not) read into lanes, steps and an op table (feature `library`) |
//! | `trace.rs` | a synthetic profile of one training step, as a trace viewer would show it |
//! | `xla_op.rs` | one XLA op line read: shape, layout, opcode, operands, FLOPs and bytes |

#[cfg(feature = "library")]
pub mod achieved;
pub mod book;
#[cfg(feature = "library")]
pub mod capture;
pub mod trace;
pub mod xla_op;

use std::fmt;

use crate::check::{positive, NotPositive};
use crate::comms::collectives::{cost, Collective, Network, RingAxis};
use crate::dtype::Dtype;
use crate::hardware::{ICI_HOP_LATENCY, TPU_V2_ICI_BIDI};
use crate::units::{Bytes, BytesPerSec, Flops, FlopsPerSec, Seconds};

/// Largest rank of an array [`TiledArray`] accepts.
pub const MAX_RANK: usize = 8;
/// Largest size of one dimension or tile side.
pub const MAX_DIM: u64 = 1 << 40;

/// Why a profiling computation was rejected.
#[derive(Debug, Clone, PartialEq)]
pub enum ProfilingError {
    /// The text is not an HLO shape such as `f32[3,5]{1,0:T(2,2)}`.
    Syntax(String),
    /// A dimension, tile side, count or rate is out of range.
    BadValue(String),
    /// A collective cost could not be computed.
    Collective(String),
}

impl fmt::Display for ProfilingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProfilingError::Syntax(m) | ProfilingError::BadValue(m) => f.write_str(m),
            ProfilingError::Collective(m) => write!(f, "collective cost: {m}"),
        }
    }
}

impl std::error::Error for ProfilingError {}

impl From<NotPositive> for ProfilingError {
    fn from(e: NotPositive) -> ProfilingError {
        ProfilingError::BadValue(e.to_string())
    }
}

fn bad(msg: impl Into<String>) -> ProfilingError {
    ProfilingError::BadValue(msg.into())
}

fn syntax(msg: impl Into<String>) -> ProfilingError {
    ProfilingError::Syntax(msg.into())
}

/// An array in HLO with a tiled layout: its logical shape (major to minor as
/// written), the minor-to-major order of its dimensions and the tile.
///
/// The tile's sides apply to the most minor dimensions in memory order (its
/// last side to the most minor one). Sub-tiles such as bf16's `(2,1)` are
/// ignored: they reorder elements inside a tile without adding padding here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TiledArray {
    /// Element format.
    pub dtype: Dtype,
    /// Logical shape, as written (`[3, 5]`).
    pub shape: Vec<u64>,
    /// Minor-to-major order of the dimensions (`[1, 0]` is row-major).
    pub minor_to_major: Vec<usize>,
    /// Tile sides, major to minor (`[2, 2]`); empty for no tiling.
    pub tile: Vec<u64>,
}

impl TiledArray {
    /// A row-major array of `shape` tiled by `tile`. Errors on an empty or
    /// too-large shape, zero sizes, or a tile of higher rank than the shape.
    pub fn new(dtype: Dtype, shape: &[u64], tile: &[u64]) -> Result<TiledArray, ProfilingError> {
        let minor_to_major = (0..shape.len()).rev().collect::<Vec<_>>();
        TiledArray::with_layout(dtype, shape, &minor_to_major, tile)
    }

    /// An array with an explicit minor-to-major order.
    pub fn with_layout(
        dtype: Dtype,
        shape: &[u64],
        minor_to_major: &[usize],
        tile: &[u64],
    ) -> Result<TiledArray, ProfilingError> {
        if shape.is_empty() || shape.len() > MAX_RANK {
            return Err(bad(format!(
                "an array needs 1 to {MAX_RANK} dimensions, not {}",
                shape.len()
            )));
        }
        for (what, v) in shape
            .iter()
            .map(|v| ("dimension", v))
            .chain(tile.iter().map(|v| ("tile side", v)))
        {
            if *v == 0 || *v > MAX_DIM {
                return Err(bad(format!("a {what} of {v}; sizes run from 1 to 2^40")));
            }
        }
        if tile.len() > shape.len() {
            return Err(bad(format!(
                "a tile of {} sides cannot tile an array of rank {}",
                tile.len(),
                shape.len()
            )));
        }
        let mut seen = vec![false; shape.len()];
        for &d in minor_to_major {
            match seen.get_mut(d) {
                Some(s) if !*s => *s = true,
                _ => {
                    return Err(bad(format!(
                        "the layout {minor_to_major:?} is not a permutation of 0..{}",
                        shape.len()
                    )))
                }
            }
        }
        if minor_to_major.len() != shape.len() {
            return Err(bad(format!(
                "the layout lists {} dimensions but the shape has {}",
                minor_to_major.len(),
                shape.len()
            )));
        }
        Ok(TiledArray {
            dtype,
            shape: shape.to_vec(),
            minor_to_major: minor_to_major.to_vec(),
            tile: tile.to_vec(),
        })
    }

    /// Parses HLO text such as `f32[3,5]{1,0:T(2,2)}` or `bf16[4096,8192]{1,0:T(8,128)(2,1)}`
    /// (the layout is optional; only the first tile counts for padding).
    pub fn parse(text: &str) -> Result<TiledArray, ProfilingError> {
        let t = text.trim();
        if t.len() > 1024 {
            return Err(syntax("the shape text is longer than 1024 bytes"));
        }
        let open = t
            .find('[')
            .ok_or_else(|| syntax(format!("expected dtype[dims], such as f32[3,5], in {t:?}")))?;
        let close = t[open..]
            .find(']')
            .map(|i| i + open)
            .ok_or_else(|| syntax("the shape has no closing ]"))?;
        let dt = t[..open].trim();
        let hlo = match dt {
            "s8" | "u8" => "int8",
            "s4" | "u4" => "int4",
            other => other,
        };
        let dtype =
            Dtype::parse(hlo).ok_or_else(|| syntax(format!("unknown element type {dt:?}")))?;
        let ints = |s: &str, what: &str| -> Result<Vec<u64>, ProfilingError> {
            s.split(',')
                .map(|x| x.trim())
                .filter(|x| !x.is_empty())
                .map(|x| {
                    x.parse::<u64>()
                        .map_err(|_| syntax(format!("{what} {x:?} is not a whole number")))
                })
                .collect()
        };
        let shape = ints(&t[open + 1..close], "dimension")?;
        let rest = t[close + 1..].trim();
        if rest.is_empty() {
            return TiledArray::new(dtype, &shape, &[]);
        }
        let inner = rest
            .strip_prefix('{')
            .and_then(|r| r.strip_suffix('}'))
            .ok_or_else(|| {
                syntax(format!(
                    "expected a layout in braces after the shape, not {rest:?}"
                ))
            })?;
        let (order, tiles) = match inner.split_once(':') {
            Some((o, t)) => (o, t.trim()),
            None => (inner, ""),
        };
        let m2m: Vec<usize> = ints(order, "layout entry")?
            .into_iter()
            .map(|x| {
                usize::try_from(x)
                    .map_err(|_| syntax(format!("layout entry {x} is not a dimension")))
            })
            .collect::<Result<_, _>>()?;
        let m2m = if m2m.is_empty() {
            (0..shape.len()).rev().collect()
        } else {
            m2m
        };
        let tile = if tiles.is_empty() {
            Vec::new()
        } else {
            let body = tiles
                .strip_prefix("T(")
                .and_then(|r| r.split(')').next())
                .ok_or_else(|| syntax(format!("expected a tile such as T(2,2), not {tiles:?}")))?;
            ints(body, "tile side")?
        };
        TiledArray::with_layout(dtype, &shape, &m2m, &tile)
    }

    /// The shape after padding every tiled dimension to a multiple of its tile side.
    pub fn padded_shape(&self) -> Vec<u64> {
        let mut out = self.shape.clone();
        // Memory order, major to minor: the reverse of minor-to-major.
        let k = self.tile.len();
        for (i, &side) in self.tile.iter().rev().enumerate().take(k) {
            if let Some(&d) = self.minor_to_major.get(i) {
                if let Some(n) = out.get_mut(d) {
                    *n = n.div_ceil(side) * side;
                }
            }
        }
        out
    }

    /// Elements of the logical shape.
    pub fn elements(&self) -> f64 {
        self.shape.iter().map(|&x| x as f64).product()
    }

    /// Elements stored, padding included.
    pub fn padded_elements(&self) -> f64 {
        self.padded_shape().iter().map(|&x| x as f64).product()
    }

    /// Bytes of the logical array.
    pub fn logical_bytes(&self) -> Bytes {
        self.dtype.size_of(self.elements())
    }

    /// Bytes it occupies in memory, padding included.
    pub fn padded_bytes(&self) -> Bytes {
        self.dtype.size_of(self.padded_elements())
    }

    /// The memory blow-up from padding: padded over logical elements (1.6 for `f32[3,5]` in `T(2,2)`).
    pub fn blowup(&self) -> f64 {
        self.padded_elements() / self.elements()
    }
}

/// The roofline time of `flops` spread evenly over `cores` cores of `per_core` FLOPs/s each.
pub fn predicted_time(
    flops: Flops,
    cores: u32,
    per_core: FlopsPerSec,
) -> Result<Seconds, ProfilingError> {
    positive("the FLOP count", flops.0)?;
    positive("the FLOPs/s per core", per_core.0)?;
    if cores == 0 {
        return Err(bad("at least one core is needed"));
    }
    Ok(flops / (per_core * cores as f64))
}

/// The roofline time of a `[b, d] × [d, f]` matmul (`2·b·d·f` FLOPs) on
/// `cores` cores of `per_core` FLOPs/s each (compute-bound, as large matmuls are).
pub fn predicted_matmul_time(
    b: f64,
    d: f64,
    f: f64,
    cores: u32,
    per_core: FlopsPerSec,
) -> Result<Seconds, ProfilingError> {
    for (x, what) in [(b, "b"), (d, "d"), (f, "f")] {
        positive(what, x)?;
    }
    predicted_time(Flops(2.0 * b * d * f), cores, per_core)
}

/// The ICI of Part 9's TPU v2 4x2: the registry's bidirectional link bandwidth
/// and the usual per-hop latency.
pub fn tpu_v2_network() -> Network {
    let bidi = TPU_V2_ICI_BIDI.value;
    Network {
        name: "TPU v2",
        bidi,
        one_way: BytesPerSec(bidi.0 * 0.5),
        hop_latency: ICI_HOP_LATENCY.value,
        bidirectional: true,
    }
}

/// The predicted time of `collective` with the book's `V` = `bytes` along one
/// ring of `ring` devices on `net` (see [`crate::comms::collectives::cost`]). A
/// ReduceScatter over a pair of devices takes `V / W_bidi`.
pub fn predicted_collective_time(
    collective: Collective,
    bytes: Bytes,
    ring: u32,
    net: &Network,
) -> Result<Seconds, ProfilingError> {
    cost(collective, bytes, &[RingAxis::ring(ring)], net)
        .map(|c| c.time)
        .map_err(|e| ProfilingError::Collective(e.to_string()))
}

/// The true (unsharded) shape from a per-shard shape: dimension `dim` is split
/// `group` ways (the size of the collective's replica groups), so it is `group`
/// times larger. Errors on an out-of-range dimension or a zero group.
pub fn true_shape(per_shard: &[u64], dim: usize, group: u64) -> Result<Vec<u64>, ProfilingError> {
    if group == 0 || group > MAX_DIM {
        return Err(bad(format!("a replica group of {group} devices")));
    }
    if dim >= per_shard.len() {
        return Err(bad(format!(
            "dimension {dim} does not exist in a shape of rank {}",
            per_shard.len()
        )));
    }
    let mut out = per_shard.to_vec();
    out[dim] = out[dim]
        .checked_mul(group)
        .filter(|&n| n <= MAX_DIM)
        .ok_or_else(|| bad("the unsharded dimension exceeds 2^40"))?;
    Ok(out)
}

/// The size of a replica group from its text, e.g. `{0,16,32,48,64,80,96,112}` → 8
/// (only the first group is read; all groups of a collective have the same size).
pub fn replica_group_size(text: &str) -> Result<u64, ProfilingError> {
    let t = text
        .trim()
        .trim_start_matches("replica_groups=")
        .trim_start_matches('{');
    let first = t
        .split('}')
        .next()
        .unwrap_or("")
        .trim()
        .trim_start_matches('{');
    let ids: Vec<&str> = first
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    if ids.is_empty() {
        return Err(syntax(format!(
            "no device ids in the replica group {text:?}"
        )));
    }
    for id in &ids {
        if id.parse::<u64>().is_err() {
            return Err(syntax(format!("device id {id:?} is not a whole number")));
        }
    }
    Ok(ids.len() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hardware::TPU_V2_CORE_PEAK;

    #[test]
    fn tiling_pads_to_whole_tiles() {
        let a = TiledArray::new(Dtype::F32, &[3, 5], &[2, 2]).unwrap();
        assert_eq!(a.padded_shape(), vec![4, 6]);
        assert_eq!(a.logical_bytes().0, 60.0);
        assert_eq!(a.padded_bytes().0, 96.0);
        assert!((a.blowup() - 1.6).abs() < 1e-12);
        // Column-major layout: the tile's minor side goes to dimension 0.
        let c = TiledArray::with_layout(Dtype::F32, &[3, 5], &[0, 1], &[2, 4]).unwrap();
        assert_eq!(c.padded_shape(), vec![4, 6]);
        // A 1-D tile touches only the most minor dimension.
        let d = TiledArray::parse("bf16[4096,8192]{1,0:T(8,128)(2,1)}").unwrap();
        assert_eq!(d.padded_shape(), vec![4096, 8192]);
        assert_eq!(TiledArray::parse("f32[3,5]").unwrap().blowup(), 1.0);
        assert_eq!(
            TiledArray::parse("s8[3]{0:T(1024)}")
                .unwrap()
                .padded_shape(),
            vec![1024]
        );
    }

    #[test]
    fn tiling_rejects_bad_input() {
        for t in [
            "",
            "f32",
            "f32[3,5",
            "q9[3]",
            "f32[0,5]",
            "f32[3,x]",
            "f32[3]{0:T(2,2)}",
            "f32[3,5]{1,1}",
            "f32[3,5]{1,0:U}",
            "f32[3,5]junk",
        ] {
            let e = TiledArray::parse(t);
            assert!(e.is_err(), "{t:?}");
            assert!(!e.unwrap_err().to_string().is_empty());
        }
    }

    #[test]
    fn roofline_predictions() {
        let t = predicted_matmul_time(32768.0, 8192.0, 32768.0, 8, TPU_V2_CORE_PEAK.value).unwrap();
        assert!((t.0 - 0.0956097).abs() < 1e-6);
        assert_eq!(
            predicted_matmul_time(1.0, 1.0, 1.0, 0, TPU_V2_CORE_PEAK.value)
                .unwrap_err()
                .to_string(),
            "at least one core is needed",
        );
        assert_eq!(
            predicted_time(Flops(f64::NAN), 1, TPU_V2_CORE_PEAK.value)
                .unwrap_err()
                .to_string(),
            "the FLOP count is unknown; it must be a finite positive number",
        );
        let rs = predicted_collective_time(
            Collective::ReduceScatter,
            Bytes(2.0 * 8.0 * 1024.0 * 8192.0),
            2,
            &tpu_v2_network(),
        )
        .unwrap();
        assert!((rs.0 - 134217728.0 / 1.2e11).abs() < 1e-12);
        assert_eq!(
            (predicted_collective_time(Collective::AllGather, Bytes(-1.0), 2, &tpu_v2_network()))
                .unwrap_err()
                .to_string(),
            "collective cost: the byte count must be a finite number ≥ 0, not -1"
        );
    }

    #[test]
    fn true_shapes_from_replica_groups() {
        let g = replica_group_size("replica_groups={{0,16,32,48,64,80,96,112},{1,17}}").unwrap();
        assert_eq!(g, 8);
        assert_eq!(true_shape(&[4096, 8192], 0, g).unwrap(), vec![32768, 8192]);
        assert_eq!(
            true_shape(&[4096], 1, 8).unwrap_err().to_string(),
            "dimension 1 does not exist in a shape of rank 1",
        );
        assert_eq!(
            true_shape(&[4096], 0, 0).unwrap_err().to_string(),
            "a replica group of 0 devices",
        );
        assert_eq!(
            true_shape(&[1 << 40], 0, 2).unwrap_err().to_string(),
            "the unsharded dimension exceeds 2^40",
        );
        assert_eq!(
            replica_group_size("{}").unwrap_err().to_string(),
            "no device ids in the replica group \"{}\"",
        );
        assert_eq!(
            replica_group_size("{a,b}").unwrap_err().to_string(),
            "device id \"a\" is not a whole number",
        );
    }
}
