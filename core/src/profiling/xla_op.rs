//! Reading one XLA op line (Part 9, "How to read an XLA op"), for the `xla-op`
//! widget: the op's name, output shape with its layout (minor-to-major order,
//! tiles such as `T(8,128)(2,1)`, memory space `S(1)`), its opcode, its operands
//! and attributes. From those come the bytes it touches (logical, and with the
//! padding its tiles force), its FLOPs, and its roofline time on a chip.
//!
//! ```text
//! %fusion.3 = bf16[32,32,4096]{2,1,0:T(8,128)(2,1)S(1)} fusion(bf16[32,32,8192]{2,1,0:T(8,128)(2,1)S(1)} %fusion.32), kind=kCustom, calls=%all-reduce-scatter.3
//! ```
//!
//! Malformed text is rejected with the byte position of the problem, never a
//! panic: [`parse_op`] returns a [`ParseError`] whose `pos` points into the input.
//!
//! ```
//! use ridgeline_core::profiling::xla_op::parse_op;
//!
//! let op = parse_op("%x = f32[3,5]{1,0:T(2,2)} add(f32[3,5] %a, f32[3,5] %b)").unwrap();
//! assert_eq!(op.output.padded_dims(), vec![4, 6]);
//! let e = parse_op("%x = f32[3,5}").unwrap_err();
//! assert_eq!(e.pos, 12);
//! ```

use std::fmt;

use crate::dtype::Dtype;
use crate::hardware::Chip;
use crate::profiling::TiledArray;
use crate::roofline::Analysis;
use crate::units::{Bytes, Flops, Seconds};

/// Longest op line accepted, in bytes.
pub const MAX_LINE: usize = 4096;

/// A syntax error at a byte offset of the input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// Byte offset of the problem in the text given.
    pub pos: usize,
    /// What was expected or wrong.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at byte {}: {}", self.pos, self.message)
    }
}

impl std::error::Error for ParseError {}

/// An HLO element type and its width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ElementType {
    /// HLO spelling (`bf16`, `f32`, `s8`, ...).
    pub name: &'static str,
    /// Bits per element.
    pub bits: u32,
}

/// The element types understood.
pub const ELEMENT_TYPES: &[ElementType] = &[
    ElementType {
        name: "pred",
        bits: 8,
    },
    ElementType {
        name: "s4",
        bits: 4,
    },
    ElementType {
        name: "u4",
        bits: 4,
    },
    ElementType {
        name: "s8",
        bits: 8,
    },
    ElementType {
        name: "u8",
        bits: 8,
    },
    ElementType {
        name: "f8e4m3fn",
        bits: 8,
    },
    ElementType {
        name: "f8e5m2",
        bits: 8,
    },
    ElementType {
        name: "s16",
        bits: 16,
    },
    ElementType {
        name: "u16",
        bits: 16,
    },
    ElementType {
        name: "f16",
        bits: 16,
    },
    ElementType {
        name: "bf16",
        bits: 16,
    },
    ElementType {
        name: "s32",
        bits: 32,
    },
    ElementType {
        name: "u32",
        bits: 32,
    },
    ElementType {
        name: "f32",
        bits: 32,
    },
    ElementType {
        name: "s64",
        bits: 64,
    },
    ElementType {
        name: "u64",
        bits: 64,
    },
    ElementType {
        name: "f64",
        bits: 64,
    },
];

/// The largest dimension size accepted.
pub const MAX_DIM: u64 = 1 << 40;
/// The largest rank accepted.
pub const MAX_RANK: usize = 8;

/// An array type with its layout: `bf16[8,128]{1,0:T(8,128)(2,1)S(1)}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HloShape {
    /// Element type.
    pub element: ElementType,
    /// Logical dimensions, as written.
    pub dims: Vec<u64>,
    /// Minor-to-major order (row-major when the layout is omitted).
    pub minor_to_major: Vec<usize>,
    /// Tiles, outermost first (`[[8,128],[2,1]]`); only the first pads.
    pub tiles: Vec<Vec<u64>>,
    /// Memory space: 0 is HBM, 1 VMEM (`S(1)`).
    pub memory_space: u32,
}

impl HloShape {
    fn tiled(&self) -> Option<TiledArray> {
        let tile = self.tiles.first().cloned().unwrap_or_default();
        TiledArray::with_layout(Dtype::F32, &self.dims, &self.minor_to_major, &tile).ok()
    }

    /// Dimensions after padding each tiled dimension to a multiple of its tile side.
    pub fn padded_dims(&self) -> Vec<u64> {
        self.tiled()
            .map(|t| t.padded_shape())
            .unwrap_or_else(|| self.dims.clone())
    }

    /// Elements of the logical shape.
    pub fn elements(&self) -> f64 {
        self.dims.iter().map(|&d| d as f64).product()
    }

    /// Bytes of the logical array.
    pub fn bytes(&self) -> Bytes {
        Bytes(self.elements() * self.element.bits as f64 / 8.0)
    }

    /// Bytes in memory, tile padding included.
    pub fn padded_bytes(&self) -> Bytes {
        let n: f64 = self.padded_dims().iter().map(|&d| d as f64).product();
        Bytes(n * self.element.bits as f64 / 8.0)
    }

    /// `dtype[dims]`, as written in HLO without the layout.
    pub fn short(&self) -> String {
        let dims: Vec<String> = self.dims.iter().map(|d| d.to_string()).collect();
        format!("{}[{}]", self.element.name, dims.join(","))
    }
}

/// One operand: its type (if written) and name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Operand {
    /// Its type, when the line prints it.
    pub shape: Option<HloShape>,
    /// Its name without `%`.
    pub name: String,
}

/// A parsed op line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HloOp {
    /// The op's name without `%` (`fusion.3`).
    pub name: String,
    /// The output type.
    pub output: HloShape,
    /// The opcode (`fusion`, `dot`, `add`, `all-reduce`, ...).
    pub opcode: String,
    /// The operands.
    pub operands: Vec<Operand>,
    /// `key=value` attributes after the operands, in order.
    pub attributes: Vec<(String, String)>,
}

/// What an op costs.
#[derive(Debug, Clone, PartialEq)]
pub struct OpCost {
    /// FLOPs: `2·out·contracted` for a dot, one per output element for
    /// elementwise ops, none for data movement and collectives.
    pub flops: Flops,
    /// Bytes read and written, logical.
    pub bytes: Bytes,
    /// Bytes read and written with tile padding.
    pub padded_bytes: Bytes,
    /// The roofline of `flops` against the padded bytes over HBM.
    pub analysis: Analysis,
    /// A collective the op performs, named by its opcode or its `calls=`.
    pub collective: Option<String>,
    /// How the FLOPs were counted, for the reader.
    pub note: String,
}

struct Cursor<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn err<T>(&self, message: impl Into<String>) -> Result<T, ParseError> {
        Err(ParseError {
            pos: self.pos,
            message: message.into(),
        })
    }

    fn rest(&self) -> &'a str {
        &self.text[self.pos..]
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn ws(&mut self) {
        while let Some(c) = self.peek() {
            if c.is_whitespace() {
                self.pos += c.len_utf8();
            } else {
                break;
            }
        }
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: char, what: &str) -> Result<(), ParseError> {
        if self.eat(c) {
            Ok(())
        } else {
            match self.peek() {
                Some(f) => self.err(format!("expected `{c}` {what}, found `{f}`")),
                None => self.err(format!("expected `{c}` {what}, found the end of the line")),
            }
        }
    }

    fn word(&mut self) -> &'a str {
        let start = self.pos;
        while let Some(c) = self.peek() {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                self.pos += 1;
            } else {
                break;
            }
        }
        &self.text[start..self.pos]
    }

    fn number(&mut self, what: &str, max: u64) -> Result<u64, ParseError> {
        let start = self.pos;
        while matches!(self.peek(), Some('0'..='9')) {
            self.pos += 1;
        }
        let digits = &self.text[start..self.pos];
        if digits.is_empty() {
            return self.err(format!("expected a whole number ({what})"));
        }
        match digits.parse::<u64>() {
            Ok(v) if v <= max => Ok(v),
            _ => {
                self.pos = start;
                self.err(format!("{what} {digits} is larger than {max}"))
            }
        }
    }

    fn list(&mut self, close: char, what: &str, max: u64) -> Result<Vec<u64>, ParseError> {
        let mut out = Vec::new();
        self.ws();
        if self.eat(close) {
            return Ok(out);
        }
        loop {
            self.ws();
            out.push(self.number(what, max)?);
            if out.len() > MAX_RANK {
                return self.err(format!("more than {MAX_RANK} entries"));
            }
            self.ws();
            if self.eat(close) {
                return Ok(out);
            }
            self.expect(',', &format!("or `{close}` in the list of {what}s"))?;
        }
    }

    fn shape(&mut self) -> Result<HloShape, ParseError> {
        let start = self.pos;
        let name = self.word();
        let Some(element) = ELEMENT_TYPES.iter().find(|t| t.name == name).copied() else {
            self.pos = start;
            return if name.is_empty() {
                self.err("expected an element type such as bf16 or f32")
            } else {
                self.err(format!("unknown element type `{name}`"))
            };
        };
        self.expect('[', "after the element type")?;
        let dims_at = self.pos;
        let dims = self.list(']', "dimension", MAX_DIM)?;
        if dims.contains(&0) {
            self.pos = dims_at;
            return self.err("a dimension of 0");
        }
        let mut minor_to_major: Vec<usize> = (0..dims.len()).rev().collect();
        let mut tiles = Vec::new();
        let mut memory_space = 0;
        if self.eat('{') {
            let layout_at = self.pos;
            let order = self.list_until(&[':', '}'], "layout entry")?;
            if !order.is_empty() || !dims.is_empty() {
                let mut seen = vec![false; dims.len()];
                let ok = order.len() == dims.len()
                    && order.iter().all(|&d| {
                        // A dimension past `usize` (in 32-bit WebAssembly) is
                        // refused, not wrapped onto a small one.
                        usize::try_from(d)
                            .is_ok_and(|d| d < seen.len() && !std::mem::replace(&mut seen[d], true))
                    });
                if !ok {
                    self.pos = layout_at;
                    return self.err(format!(
                        "the layout must list each of the {} dimensions once, minor to major",
                        dims.len()
                    ));
                }
                minor_to_major = order
                    .iter()
                    .filter_map(|&d| usize::try_from(d).ok())
                    .collect();
            }
            if self.eat(':') {
                loop {
                    self.ws();
                    if self.eat('}') {
                        break;
                    }
                    let at = self.pos;
                    match self.peek() {
                        Some('T') => {
                            self.pos += 1;
                            self.expect('(', "after T")?;
                            let tile = self.list(')', "tile side", MAX_DIM)?;
                            if tile.is_empty() || tile.contains(&0) || tile.len() > dims.len() {
                                self.pos = at;
                                return self.err("a tile needs 1 to rank sides, each at least 1");
                            }
                            tiles.push(tile);
                            while self.peek() == Some('(') {
                                self.pos += 1;
                                let inner = self.list(')', "tile side", MAX_DIM)?;
                                if inner.is_empty() || inner.contains(&0) {
                                    self.pos = at;
                                    return self.err("an inner tile side of 0");
                                }
                                tiles.push(inner);
                            }
                        }
                        Some('S') => {
                            self.pos += 1;
                            self.expect('(', "after S")?;
                            memory_space = u32::from(
                                u8::try_from(self.number("memory space", 255)?).unwrap_or(u8::MAX),
                            );
                            self.expect(')', "after the memory space")?;
                        }
                        Some(c) => {
                            return self.err(format!(
                                "expected a tile T(..), a memory space S(..) or `}}`, found `{c}`"
                            ))
                        }
                        None => return self.err("the layout has no closing `}`"),
                    }
                }
            } else {
                self.expect('}', "to close the layout")?;
            }
        }
        if dims.is_empty() {
            // A scalar: nothing to tile.
            tiles.clear();
        }
        Ok(HloShape {
            element,
            dims,
            minor_to_major,
            tiles,
            memory_space,
        })
    }

    fn list_until(&mut self, stops: &[char], what: &str) -> Result<Vec<u64>, ParseError> {
        let mut out = Vec::new();
        loop {
            self.ws();
            match self.peek() {
                Some(c) if stops.contains(&c) => return Ok(out),
                Some('0'..='9') => {
                    out.push(self.number(what, MAX_RANK as u64)?);
                    if out.len() > MAX_RANK {
                        return self.err(format!("more than {MAX_RANK} layout entries"));
                    }
                    self.ws();
                    if !self.eat(',') {
                        match self.peek() {
                            Some(c) if stops.contains(&c) => {}
                            Some(c) => {
                                return self
                                    .err(format!("expected `,` or `:` in the layout, found `{c}`"))
                            }
                            None => return self.err("the layout has no closing `}`"),
                        }
                    }
                }
                Some(c) => return self.err(format!("expected a layout entry, found `{c}`")),
                None => return self.err("the layout has no closing `}`"),
            }
        }
    }

    fn name(&mut self) -> Result<String, ParseError> {
        self.expect('%', "before a name")?;
        let w = self.word();
        if w.is_empty() {
            return self.err("expected a name after `%`");
        }
        Ok(w.to_string())
    }
}

/// Parses an op line `%name = type opcode(operands), attributes`, or a bare
/// type such as `bf16[8,128]{1,0:T(8,128)(2,1)}` (then name and opcode are empty).
pub fn parse_op(text: &str) -> Result<HloOp, ParseError> {
    if text.len() > MAX_LINE {
        return Err(ParseError {
            pos: MAX_LINE,
            message: format!("the line is longer than {MAX_LINE} bytes"),
        });
    }
    let mut c = Cursor { text, pos: 0 };
    c.ws();
    let mut name = String::new();
    if c.peek() == Some('%') {
        name = c.name()?;
        c.ws();
        c.expect('=', "after the op's name")?;
        c.ws();
    } else if c.rest().starts_with("ROOT ") {
        c.pos += 5;
        c.ws();
        return parse_op(&text[c.pos..]).map_err(|e| ParseError {
            pos: e.pos + c.pos,
            ..e
        });
    }
    let output = c.shape()?;
    c.ws();
    let mut op = HloOp {
        name,
        output,
        opcode: String::new(),
        operands: Vec::new(),
        attributes: Vec::new(),
    };
    if c.peek().is_none() {
        return Ok(op);
    }
    if op.name.is_empty() {
        return c.err("expected the end of the type (an op line starts with `%name =`)");
    }
    let opcode = c.word();
    if opcode.is_empty() {
        return c.err("expected an opcode such as fusion, dot or add");
    }
    op.opcode = opcode.to_string();
    c.expect('(', "after the opcode")?;
    c.ws();
    if !c.eat(')') {
        loop {
            c.ws();
            let shape = if c.peek() == Some('%') {
                None
            } else {
                let s = c.shape()?;
                c.ws();
                Some(s)
            };
            let name = c.name()?;
            op.operands.push(Operand { shape, name });
            if op.operands.len() > 64 {
                return c.err("more than 64 operands");
            }
            c.ws();
            if c.eat(')') {
                break;
            }
            c.expect(',', "or `)` between operands")?;
        }
    }
    loop {
        c.ws();
        if c.peek().is_none() {
            break;
        }
        c.expect(',', "before an attribute")?;
        c.ws();
        let key = c.word();
        if key.is_empty() {
            return c.err("expected an attribute name");
        }
        c.expect('=', "after the attribute name")?;
        let start = c.pos;
        let mut depth = 0i32;
        while let Some(ch) = c.peek() {
            match ch {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth < 0 {
                        return c.err("unbalanced `}` in an attribute");
                    }
                }
                ',' if depth == 0 => break,
                _ => {}
            }
            c.pos += ch.len_utf8();
        }
        if depth != 0 {
            return c.err("an attribute's `{` is never closed");
        }
        let value = text[start..c.pos].trim();
        if value.is_empty() {
            c.pos = start;
            return c.err(format!("attribute `{key}` has no value"));
        }
        op.attributes.push((key.to_string(), value.to_string()));
    }
    Ok(op)
}

/// Opcodes of this kind (see [`op_cost`]).
pub(crate) const ELEMENTWISE: &[&str] = &[
    "add",
    "subtract",
    "multiply",
    "divide",
    "maximum",
    "minimum",
    "exponential",
    "tanh",
    "negate",
    "sqrt",
    "rsqrt",
    "log",
    "logistic",
    "power",
    "select",
    "compare",
    "abs",
];
/// Opcodes of this kind (see [`op_cost`]).
pub(crate) const MOVEMENT: &[&str] = &[
    "copy",
    "transpose",
    "reshape",
    "broadcast",
    "slice",
    "dynamic-slice",
    "dynamic-update-slice",
    "concatenate",
    "bitcast",
    "parameter",
    "constant",
    "convert",
];
/// Opcodes of this kind (see [`op_cost`]).
pub(crate) const COLLECTIVES: &[&str] = &[
    "all-reduce",
    "all-gather",
    "reduce-scatter",
    "all-to-all",
    "collective-permute",
];

fn dims_attr(op: &HloOp, key: &str) -> Option<Vec<usize>> {
    let v = op.attributes.iter().find(|(k, _)| k == key)?.1.as_str();
    let inner = v.strip_prefix('{')?.strip_suffix('}')?;
    if inner.trim().is_empty() {
        return Some(Vec::new());
    }
    inner.split(',').map(|x| x.trim().parse().ok()).collect()
}

/// What the op costs on `chip` with FLOPs in `compute`: bytes of the output and
/// of every operand whose type is written (padded and not), FLOPs by opcode,
/// and the roofline time over HBM. Errors when a dot's contracting dimensions
/// are missing or out of range, or the chip has no peak in `compute`.
pub fn op_cost(op: &HloOp, chip: &'static Chip, compute: Dtype) -> Result<OpCost, String> {
    let shapes =
        std::iter::once(&op.output).chain(op.operands.iter().filter_map(|o| o.shape.as_ref()));
    let (mut bytes, mut padded) = (0.0, 0.0);
    for s in shapes {
        bytes += s.bytes().0;
        padded += s.padded_bytes().0;
    }
    let calls = op
        .attributes
        .iter()
        .find(|(k, _)| k == "calls")
        .map(|(_, v)| v.trim_start_matches('%').to_string());
    // XLA names a fused ReduceScatter `all-reduce-scatter`: check it first.
    let collective = calls
        .as_deref()
        .filter(|k| k.contains("all-reduce-scatter"))
        .map(|_| "reduce-scatter".to_string())
        .or_else(|| {
            COLLECTIVES
                .iter()
                .find(|c| {
                    op.opcode.starts_with(*c) || calls.as_deref().is_some_and(|k| k.contains(*c))
                })
                .map(|c| c.to_string())
        });
    let out = op.output.elements();
    let (flops, note) = if op.opcode == "dot" || op.opcode == "convolution" {
        let lhs = op
            .operands
            .first()
            .and_then(|o| o.shape.as_ref())
            .ok_or("a dot needs its left operand's type written out to count FLOPs")?;
        let dims = dims_attr(op, "lhs_contracting_dims")
            .ok_or("a dot needs lhs_contracting_dims={..} to count FLOPs")?;
        let mut k = 1.0;
        for d in dims {
            k *= *lhs.dims.get(d).ok_or(format!(
                "contracting dimension {d} is beyond the left operand's rank"
            ))? as f64;
        }
        (2.0 * out * k, format!("2 × {out} outputs × {k} contracted"))
    } else if collective.is_some() {
        (
            0.0,
            "a collective: no FLOPs, bytes over the links".to_string(),
        )
    } else if ELEMENTWISE.contains(&op.opcode.as_str()) {
        (out, "one FLOP per output element".to_string())
    } else if MOVEMENT.contains(&op.opcode.as_str()) || op.opcode.is_empty() {
        (0.0, "data movement only".to_string())
    } else {
        (
            0.0,
            format!(
                "`{}`: FLOPs unknown from the line alone, bytes only",
                op.opcode
            ),
        )
    };
    let peak = chip
        .peak_or_wider(compute)
        .map(|(_, r)| r)
        .ok_or_else(|| format!("{} has no {compute} peak", chip.id))?;
    let analysis = Analysis::new(
        Flops(flops),
        peak,
        &[(crate::hardware::Link::Hbm, Bytes(padded), chip.hbm_bw())],
    );
    Ok(OpCost {
        flops: Flops(flops),
        bytes: Bytes(bytes),
        padded_bytes: Bytes(padded),
        analysis,
        collective,
        note,
    })
}

/// The roofline time of an op line on `chip` in bf16, or the parse error.
pub fn op_time(text: &str, chip: &'static Chip) -> Result<Seconds, String> {
    let op = parse_op(text).map_err(|e| e.to_string())?;
    Ok(op_cost(&op, chip, Dtype::Bf16)?.analysis.lower)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::comms::collectives::Collective;
    use crate::hardware::chip;
    use crate::profiling::{predicted_collective_time, tpu_v2_network};
    use crate::rng::Rng;

    const FUSION3: &str = "%fusion.3 = bf16[32,32,4096]{2,1,0:T(8,128)(2,1)S(1)} fusion(bf16[32,32,8192]{2,1,0:T(8,128)(2,1)S(1)} %fusion.32), kind=kCustom, calls=%all-reduce-scatter.3";
    const FUSION1: &str = "%fusion.1 = bf16[8,1024,4096]{2,1,0:T(8,128)(2,1)} fusion(bf16[8,1024,8192]{2,1,0:T(8,128)(2,1)} %fusion.31), kind=kCustom, calls=%all-reduce-scatter.1";

    #[test]
    fn the_books_fusion_line() {
        let op = parse_op(FUSION3).unwrap();
        assert_eq!(op.name, "fusion.3");
        assert_eq!(op.output.short(), "bf16[32,32,4096]");
        assert_eq!(op.output.minor_to_major, vec![2, 1, 0]);
        assert_eq!(op.output.tiles, vec![vec![8, 128], vec![2, 1]]);
        assert_eq!(op.output.memory_space, 1);
        assert_eq!(op.opcode, "fusion");
        assert_eq!(op.operands[0].name, "fusion.32");
        assert_eq!(
            op.operands[0].shape.as_ref().unwrap().dims,
            vec![32, 32, 8192]
        );
        assert_eq!(
            op.attributes,
            vec![
                ("kind".into(), "kCustom".into()),
                ("calls".into(), "%all-reduce-scatter.3".into())
            ]
        );
        let c = op_cost(&op, chip("v5e").unwrap(), Dtype::Bf16).unwrap();
        assert_eq!(c.collective.as_deref(), Some("reduce-scatter"));
        assert_eq!(c.flops.0, 0.0);
    }

    #[test]
    fn tiling_pads_as_the_book_draws_it() {
        let s = parse_op("f32[3,5]{1,0:T(2,2)}").unwrap().output;
        assert_eq!(s.padded_dims(), vec![4, 6]);
        assert!((s.padded_bytes().0 / s.bytes().0 - 1.6).abs() < 1e-12);
        let s = parse_op("bf16[4,8]{1,0:T(2,4)(2,1)}").unwrap().output;
        assert_eq!(s.padded_dims(), vec![4, 8]);
        let s = parse_op("bf16[8,100]{1,0:T(8,128)(2,1)}").unwrap().output;
        assert_eq!(s.padded_dims(), vec![8, 128]);
        // Column-major: the tile's last side pads dimension 0.
        let s = parse_op("f32[3,5]{0,1:T(2,4)}").unwrap().output;
        assert_eq!(s.padded_dims(), vec![4, 6]);
    }

    #[test]
    fn the_books_reduce_scatter_check() {
        // Part 9: a 128 MB shard reduced over one hop at 1.2e11 B/s: about 1.1 ms
        // (1.13 ms in the profile).
        let op = parse_op(FUSION1).unwrap();
        let input = op.operands[0].shape.as_ref().unwrap().bytes();
        assert_eq!(input.0, 2.0 * 8.0 * 1024.0 * 8192.0);
        let t = predicted_collective_time(Collective::ReduceScatter, input, 2, &tpu_v2_network())
            .unwrap();
        assert!((t.0 * 1e3 - 1.12).abs() < 0.03, "{}", t.0);
    }

    #[test]
    fn dot_flops_and_roofline() {
        let line = "%dot.1 = bf16[8192,16384]{1,0} dot(bf16[8192,8192]{1,0} %x, bf16[8192,16384]{1,0} %w), lhs_contracting_dims={1}, rhs_contracting_dims={0}";
        let op = parse_op(line).unwrap();
        let v5e = chip("v5e").unwrap();
        let c = op_cost(&op, v5e, Dtype::Bf16).unwrap();
        assert_eq!(c.flops.0, 2.0 * 8192.0 * 16384.0 * 8192.0);
        assert!((c.analysis.lower.0 - c.flops.0 / 1.97e14).abs() < 1e-12);
        assert_eq!(
            (op_cost(
                &parse_op("%d = f32[2,2] dot(f32[2,2] %a, f32[2,2] %b)").unwrap(),
                v5e,
                Dtype::Bf16
            ))
            .unwrap_err()
            .to_string(),
            "a dot needs lhs_contracting_dims={..} to count FLOPs"
        );
        let add =
            parse_op("%a = f32[1024,1024] add(f32[1024,1024] %x, f32[1024,1024] %y)").unwrap();
        let c = op_cost(&add, v5e, Dtype::Bf16).unwrap();
        assert_eq!(c.flops.0, 1024.0 * 1024.0);
        assert_eq!(c.bytes.0, 3.0 * 4.0 * 1024.0 * 1024.0);
        // The dot is compute-bound (about 3277 FLOPs per byte against the v5e's
        // 240), so its time is 2·8192·16384·8192 / 1.97e14 = 11.2 ms.
        let t = op_time(line, v5e).unwrap().0;
        assert!((t / (2.0 * 8192.0 * 16384.0 * 8192.0 / 1.97e14) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn errors_point_at_the_byte() {
        let at = |t: &str| parse_op(t).unwrap_err().pos;
        assert_eq!(at("bf17[8]"), 0);
        assert_eq!(at("bf16[8,x]"), 7);
        assert_eq!(at("bf16[8]{1,0}"), 8);
        assert_eq!(at("bf16[8,8]{1,0:Q(2)}"), 14);
        assert_eq!(at("%x = bf16[8] add(bf16[8] %a %b)"), 28);
        assert_eq!(at("%x = bf16[8] add(%a), kind"), 26);
        assert_eq!(at("bf16[8] add"), 8);
        let e = parse_op("bf16[0]").unwrap_err();
        assert!(e.to_string().contains("dimension of 0"), "{e}");
    }

    #[test]
    fn a_million_mutated_lines_are_parsed_or_rejected_with_a_message() {
        let seeds = [
            FUSION3,
            FUSION1,
            "f32[3,5]{1,0:T(2,2)}",
            "%dot.1 = bf16[8,16]{1,0} dot(bf16[8,8]{1,0} %x, bf16[8,16]{1,0} %w), lhs_contracting_dims={1}",
        ];
        let alphabet: Vec<char> = "%=[]{}(),:TSabf0123456789 .-_xé".chars().collect();
        let mut rng = Rng::new(42);
        let v5e = chip("v5e").unwrap();
        let mut rejected = 0;
        for i in 0..1_000_000u32 {
            let base = seeds[i as usize % seeds.len()];
            let mut chars: Vec<char> = base.chars().collect();
            for _ in 0..1 + rng.next_u64() % 3 {
                let at = (rng.next_u64() as usize) % (chars.len() + 1);
                let ch = alphabet[(rng.next_u64() as usize) % alphabet.len()];
                match rng.next_u64() % 3 {
                    0 => chars.insert(at, ch),
                    1 if at < chars.len() => {
                        chars.remove(at);
                    }
                    _ if at < chars.len() => chars[at] = ch,
                    _ => chars.push(ch),
                }
            }
            let text: String = chars.into_iter().collect();
            match parse_op(&text) {
                Ok(op) if i % 16 == 0 => match op_cost(&op, v5e, Dtype::Bf16) {
                    // A costed op has finite, non-negative counts, padding never
                    // shrinks the bytes, and its bounds are in order.
                    Ok(c) => {
                        let a = &c.analysis;
                        assert!(c.flops.0.is_finite() && c.flops.0 >= 0.0, "{text:?}: {c:?}");
                        assert!(c.bytes.0.is_finite() && c.bytes.0 > 0.0, "{text:?}: {c:?}");
                        assert!(c.padded_bytes.0 >= c.bytes.0, "{text:?}: {c:?}");
                        assert_eq!(a.flops.0, c.flops.0, "{text:?}");
                        assert!(
                            a.lower.0.is_finite() && a.lower.0 > 0.0 && a.lower.0 <= a.upper.0,
                            "{text:?}: {a:?}"
                        );
                    }
                    // A refusal says what cannot be costed.
                    Err(m) => assert!(!m.trim().is_empty(), "{text:?}: refused without a message"),
                },
                Ok(_) => {}
                Err(e) => {
                    rejected += 1;
                    assert!(!e.message.is_empty(), "{text:?}");
                    assert!(e.pos <= text.len(), "{text:?}: {e}");
                    assert!(text.is_char_boundary(e.pos), "{text:?}: {e}");
                }
            }
        }
        assert!(rejected > 100_000, "{rejected}");
    }
}
