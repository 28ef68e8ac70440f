//! Reading a reader's numeric answer: a number, an optional unit, converted to
//! a canonical unit.
//!
//! The parser accepts what people type: plain and scientific numbers (`1.97e14`,
//! `1.5×10^3`, `2^20`), digit separators (`1,024`, `1_024`), SI and binary
//! prefixes (`197 TFLOPs/s`, `16 GiB`, `450 µs`), magnitude words (`1M tokens`,
//! `4k`, `70B params`), percentages (`12%`), multipliers (`x2`, `2×`), money
//! (`$1.2`) and compound units (`240 FLOPs/byte`, `160 kB/token`). Every value is
//! converted to its dimension's canonical unit (seconds, bytes, FLOPs, …).
//!
//! A *dimension* is a vector of exponents over four base quantities: time, bytes,
//! FLOPs and money. Count nouns (`tokens`, `chips`, `params`, `ways`, …) are
//! dimensionless, so `850 tokens/chip` and `850` are the same number.
//!
//! ```
//! use ridgeline_core::exercises::quantity::{format_quantity, parse, Dimension};
//!
//! let q = parse("450 µs").unwrap().quantity;
//! assert_eq!(q.dimension, Dimension::TIME);
//! assert!((q.value - 4.5e-4).abs() < 1e-15);
//! assert_eq!(parse("16 GiB").unwrap().quantity.value, 16.0 * 1073741824.0);
//! assert_eq!(parse("16 GB").unwrap().quantity.value, 16e9);
//! assert_eq!(parse("197 TFLOPs/s").unwrap().quantity.dimension, Dimension::FLOP_RATE);
//! assert!(parse("1,024").unwrap().bare);
//! assert_eq!(parse("12%").unwrap().quantity.value, 0.12);
//!
//! // Formatting gives a canonical string that parses back to the same quantity.
//! let text = format_quantity(&q);
//! assert_eq!(text, "4.5e-4 s");
//! assert_eq!(parse(&text).unwrap().quantity, q);
//!
//! let err = parse("3 parsecs").unwrap_err();
//! assert!(err.reason.contains("unknown unit"));
//! ```

use std::fmt;

/// Longest answer text the parser reads, in bytes.
pub const MAX_ANSWER_LEN: usize = 200;

/// Most unit words one answer may chain (`FLOPs/TC/cycle` is three).
const MAX_UNIT_ATOMS: usize = 8;

/// Exponents of the four base quantities a value is measured in.
///
/// Count nouns are dimensionless: a number of tokens is a plain number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Dimension {
    /// Exponent of time (seconds).
    pub time: i8,
    /// Exponent of bytes.
    pub bytes: i8,
    /// Exponent of operations (FLOPs).
    pub flops: i8,
    /// Exponent of money (US dollars).
    pub money: i8,
}

impl Dimension {
    /// A plain number: a count, a ratio, a percentage.
    pub const NONE: Dimension = Dimension::new(0, 0, 0, 0);
    /// A duration (canonical unit: s).
    pub const TIME: Dimension = Dimension::new(1, 0, 0, 0);
    /// An amount of data (canonical unit: B).
    pub const BYTES: Dimension = Dimension::new(0, 1, 0, 0);
    /// An amount of work (canonical unit: FLOPs).
    pub const FLOPS: Dimension = Dimension::new(0, 0, 1, 0);
    /// A compute rate (canonical unit: FLOPs/s).
    pub const FLOP_RATE: Dimension = Dimension::new(-1, 0, 1, 0);
    /// A bandwidth (canonical unit: B/s).
    pub const BYTE_RATE: Dimension = Dimension::new(-1, 1, 0, 0);
    /// Arithmetic intensity (canonical unit: FLOPs/B).
    pub const INTENSITY: Dimension = Dimension::new(0, -1, 1, 0);
    /// A frequency, or a count per second (canonical unit: Hz).
    pub const FREQUENCY: Dimension = Dimension::new(-1, 0, 0, 0);
    /// Money (canonical unit: USD).
    pub const MONEY: Dimension = Dimension::new(0, 0, 0, 1);

    /// A dimension from its four exponents.
    pub const fn new(time: i8, bytes: i8, flops: i8, money: i8) -> Dimension {
        Dimension {
            time,
            bytes,
            flops,
            money,
        }
    }

    fn combine(self, other: Dimension, sign: i8) -> Dimension {
        let f = |a: i8, b: i8| a.saturating_add(b.saturating_mul(sign));
        Dimension::new(
            f(self.time, other.time),
            f(self.bytes, other.bytes),
            f(self.flops, other.flops),
            f(self.money, other.money),
        )
    }

    fn pow(self, k: i8) -> Dimension {
        let f = |a: i8| a.saturating_mul(k);
        Dimension::new(f(self.time), f(self.bytes), f(self.flops), f(self.money))
    }

    /// A short noun phrase for messages: `a time`, `bytes`, `a FLOP rate`.
    pub fn noun(self) -> String {
        match self {
            Dimension::NONE => "a plain number".into(),
            Dimension::TIME => "a time".into(),
            Dimension::BYTES => "bytes".into(),
            Dimension::FLOPS => "a number of FLOPs".into(),
            Dimension::FLOP_RATE => "a FLOP rate".into(),
            Dimension::BYTE_RATE => "a bandwidth".into(),
            Dimension::INTENSITY => "an arithmetic intensity".into(),
            Dimension::FREQUENCY => "a frequency".into(),
            Dimension::MONEY => "an amount of money".into(),
            other => format!("a quantity in {}", other.canonical_unit()),
        }
    }

    /// The noun phrase with an example of how to write it: `a time (e.g. 3 ms)`.
    pub fn describe(self) -> String {
        let example = match self {
            Dimension::NONE => "240, 8 chips or 12%",
            Dimension::TIME => "3 ms",
            Dimension::BYTES => "16 GB",
            Dimension::FLOPS => "2e12 FLOPs",
            Dimension::FLOP_RATE => "197 TFLOPs/s",
            Dimension::BYTE_RATE => "820 GB/s",
            Dimension::INTENSITY => "240 FLOPs/byte",
            Dimension::FREQUENCY => "1.5 GHz",
            Dimension::MONEY => "$1.2",
            _ => return self.noun(),
        };
        format!("{} (e.g. {example})", self.noun())
    }

    /// The canonical unit values of this dimension are stored in (`s`, `B`,
    /// `FLOPs/s`, …); empty for a plain number. [`parse`] reads it back.
    pub fn canonical_unit(self) -> String {
        match self {
            Dimension::NONE => String::new(),
            Dimension::TIME => "s".into(),
            Dimension::BYTES => "B".into(),
            Dimension::FLOPS => "FLOPs".into(),
            Dimension::FLOP_RATE => "FLOPs/s".into(),
            Dimension::BYTE_RATE => "B/s".into(),
            Dimension::INTENSITY => "FLOPs/B".into(),
            Dimension::FREQUENCY => "Hz".into(),
            Dimension::MONEY => "USD".into(),
            d => {
                let parts = [
                    ("FLOPs", d.flops),
                    ("B", d.bytes),
                    ("s", d.time),
                    ("USD", d.money),
                ];
                parts
                    .iter()
                    .filter(|(_, e)| *e != 0)
                    .map(|(u, e)| {
                        if *e == 1 {
                            (*u).to_string()
                        } else {
                            format!("{u}^{e}")
                        }
                    })
                    .collect::<Vec<_>>()
                    .join("·")
            }
        }
    }
}

impl fmt::Display for Dimension {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.noun())
    }
}

/// A value in the canonical unit of its dimension.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quantity {
    /// The value, in the canonical unit (seconds, bytes, FLOPs, …; a fraction for percentages).
    pub value: f64,
    /// What it measures.
    pub dimension: Dimension,
}

/// A parsed answer: the quantity, and whether the reader wrote a bare number.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Parsed {
    /// The value in canonical units.
    pub quantity: Quantity,
    /// True when no unit, prefix, percent or multiplier sign was written, so a
    /// grader may read the number in the problem's own unit.
    pub bare: bool,
}

/// A unit the parser understands, as a factor to the canonical unit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Unit {
    /// Multiply a value in this unit by `factor` to get canonical units.
    pub factor: f64,
    /// What the unit measures.
    pub dimension: Dimension,
}

/// Why an answer could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InvalidKind {
    /// Nothing was typed.
    Empty,
    /// Longer than [`MAX_ANSWER_LEN`].
    TooLong,
    /// No number could be read.
    UnreadableNumber,
    /// The number overflows or is not finite.
    NotFinite,
    /// A word after the number is not a known unit.
    UnknownUnit,
    /// A valid quantity of the wrong kind (bytes where a time is asked).
    WrongDimension,
}

/// A rejected answer, with a sentence for the reader.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidAnswer {
    /// What kind of problem.
    pub kind: InvalidKind,
    /// A precise, human-readable reason.
    pub reason: String,
}

impl InvalidAnswer {
    fn new(kind: InvalidKind, reason: impl Into<String>) -> InvalidAnswer {
        InvalidAnswer {
            kind,
            reason: reason.into(),
        }
    }
}

impl fmt::Display for InvalidAnswer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.reason)
    }
}

impl std::error::Error for InvalidAnswer {}

/// Which prefixes a unit word takes.
#[derive(Clone, Copy, PartialEq)]
enum Prefixes {
    None,
    /// k, M, G, T, P, E and the binary Ki … Ei.
    Large,
    /// m, µ, u, n, p only (seconds).
    Small,
    /// k, M, G, T only (hertz).
    LargeDecimal,
}

struct UnitWord {
    names: &'static [&'static str],
    factor: f64,
    dimension: Dimension,
    prefixes: Prefixes,
}

const fn word(
    names: &'static [&'static str],
    factor: f64,
    dimension: Dimension,
    prefixes: Prefixes,
) -> UnitWord {
    UnitWord {
        names,
        factor,
        dimension,
        prefixes,
    }
}

const DAY: f64 = 86_400.0;

const UNITS: &[UnitWord] = &[
    word(
        &["s", "sec", "secs", "second", "seconds"],
        1.0,
        Dimension::TIME,
        Prefixes::Small,
    ),
    word(
        &["min", "mins", "minute", "minutes"],
        60.0,
        Dimension::TIME,
        Prefixes::None,
    ),
    word(
        &["h", "hr", "hrs", "hour", "hours"],
        3600.0,
        Dimension::TIME,
        Prefixes::None,
    ),
    word(&["d", "day", "days"], DAY, Dimension::TIME, Prefixes::None),
    word(
        &["week", "weeks"],
        7.0 * DAY,
        Dimension::TIME,
        Prefixes::None,
    ),
    word(
        &["yr", "yrs", "year", "years"],
        365.0 * DAY,
        Dimension::TIME,
        Prefixes::None,
    ),
    word(
        &["B", "byte", "bytes", "Byte", "Bytes"],
        1.0,
        Dimension::BYTES,
        Prefixes::Large,
    ),
    word(
        &["b", "bit", "bits"],
        0.125,
        Dimension::BYTES,
        Prefixes::Large,
    ),
    word(
        &[
            "FLOP", "FLOPs", "flop", "flops", "Flop", "Flops", "OP", "OPs", "op", "ops", "Op",
            "Ops",
        ],
        1.0,
        Dimension::FLOPS,
        Prefixes::Large,
    ),
    // All-capital FLOPS / OPS is a rate by convention (TFLOPS, TOPS).
    word(
        &["FLOPS", "OPS"],
        1.0,
        Dimension::FLOP_RATE,
        Prefixes::Large,
    ),
    word(
        &["Hz", "hz"],
        1.0,
        Dimension::FREQUENCY,
        Prefixes::LargeDecimal,
    ),
    word(&["Bps"], 1.0, Dimension::BYTE_RATE, Prefixes::Large),
    word(
        &["$", "USD", "usd", "dollar", "dollars"],
        1.0,
        Dimension::MONEY,
        Prefixes::None,
    ),
];

/// Count nouns and other dimensionless words (factor 1).
const NOUNS: &[&str] = &[
    "token",
    "tokens",
    "tok",
    "chip",
    "chips",
    "param",
    "params",
    "parameter",
    "parameters",
    "weight",
    "weights",
    "sequence",
    "sequences",
    "seq",
    "seqs",
    "way",
    "ways",
    "host",
    "hosts",
    "core",
    "cores",
    "TC",
    "TCs",
    "device",
    "devices",
    "GPU",
    "GPUs",
    "gpu",
    "gpus",
    "TPU",
    "TPUs",
    "tpu",
    "tpus",
    "shard",
    "shards",
    "element",
    "elements",
    "value",
    "values",
    "scalar",
    "scalars",
    "layer",
    "layers",
    "step",
    "steps",
    "warp",
    "warps",
    "ALU",
    "ALUs",
    "switch",
    "switches",
    "SM",
    "SMs",
    "node",
    "nodes",
    "cycle",
    "cycles",
    "example",
    "examples",
    "sample",
    "samples",
    "hop",
    "hops",
    "link",
    "links",
    "pod",
    "pods",
    "expert",
    "experts",
    "head",
    "heads",
    "MXU",
    "MXUs",
    "lane",
    "lanes",
    "query",
    "queries",
    "request",
    "requests",
    "user",
    "users",
    "times",
    "x",
    "×",
    "fold",
];

/// Magnitude words that scale the number before them (`1M tokens`, `4k`).
const MAGNITUDES: &[(&str, i32)] = &[
    ("k", 3),
    ("K", 3),
    ("thousand", 3),
    ("M", 6),
    ("mn", 6),
    ("million", 6),
    ("G", 9),
    ("bn", 9),
    ("billion", 9),
    ("T", 12),
    ("trillion", 12),
    ("P", 15),
    ("quadrillion", 15),
];

/// Decimal prefixes as powers of ten.
const LARGE_DECIMAL: &[(&str, i32)] = &[
    ("k", 3),
    ("K", 3),
    ("M", 6),
    ("G", 9),
    ("T", 12),
    ("P", 15),
    ("E", 18),
];
const SMALL_DECIMAL: &[(&str, i32)] = &[
    ("m", -3),
    ("\u{b5}", -6),
    ("\u{3bc}", -6),
    ("u", -6),
    ("n", -9),
    ("p", -12),
];
const BINARY: &[(&str, i32)] = &[
    ("Ki", 10),
    ("Mi", 20),
    ("Gi", 30),
    ("Ti", 40),
    ("Pi", 50),
    ("Ei", 60),
    ("KI", 10),
    ("MI", 20),
    ("GI", 30),
    ("TI", 40),
];

/// A unit word resolved: factor split into a power of ten (kept exact) and the rest.
#[derive(Clone, Copy)]
struct Atom {
    exp10: i32,
    factor: f64,
    dimension: Dimension,
}

fn lookup_word(w: &str) -> Option<&'static UnitWord> {
    UNITS.iter().find(|u| u.names.contains(&w)).or_else(|| {
        if w.chars().count() >= 3 {
            let lower = w.to_lowercase();
            UNITS.iter().find(|u| {
                u.names.contains(&lower.as_str()) && !(lower == "flops" && w.ends_with('S'))
            })
        } else {
            None
        }
    })
}

fn is_noun(w: &str) -> bool {
    NOUNS.contains(&w) || (w.chars().count() >= 3 && NOUNS.contains(&w.to_lowercase().as_str()))
}

/// Resolves one unit word, possibly prefixed (`GiB`, `ms`, `TFLOPs`).
fn atom(w: &str) -> Option<Atom> {
    if w == "%" || w == "percent" {
        return Some(Atom {
            exp10: -2,
            factor: 1.0,
            dimension: Dimension::NONE,
        });
    }
    if let Some(u) = lookup_word(w) {
        return Some(Atom {
            exp10: 0,
            factor: u.factor,
            dimension: u.dimension,
        });
    }
    if is_noun(w) {
        return Some(Atom {
            exp10: 0,
            factor: 1.0,
            dimension: Dimension::NONE,
        });
    }
    // Binary prefixes first (Ki before K).
    for (p, e2) in BINARY {
        if let Some(rest) = w.strip_prefix(p) {
            if let Some(u) = lookup_word(rest) {
                if u.prefixes == Prefixes::Large {
                    return Some(Atom {
                        exp10: 0,
                        factor: u.factor * 2f64.powi(*e2),
                        dimension: u.dimension,
                    });
                }
            }
        }
    }
    for (table, allowed) in [
        (LARGE_DECIMAL, [Prefixes::Large, Prefixes::LargeDecimal]),
        (SMALL_DECIMAL, [Prefixes::Small, Prefixes::Small]),
    ] {
        for (p, e10) in table {
            if let Some(rest) = w.strip_prefix(p) {
                if rest.is_empty() {
                    continue;
                }
                if let Some(u) = lookup_word(rest) {
                    if allowed.contains(&u.prefixes) {
                        return Some(Atom {
                            exp10: *e10,
                            factor: u.factor,
                            dimension: u.dimension,
                        });
                    }
                }
            }
        }
    }
    None
}

/// The number at the start of an answer: exact decimal text, a power of ten,
/// and an extra factor (from `2^20`).
struct Number {
    digits: String,
    exp10: i64,
    factor: f64,
    /// Bytes consumed.
    len: usize,
}

fn digit_at(s: &[char], i: usize) -> bool {
    s.get(i).is_some_and(|c| c.is_ascii_digit())
}

fn is_group_sep(c: char) -> bool {
    matches!(c, '_' | '\u{2009}' | '\u{202f}' | '\u{a0}' | '\'')
}

/// Reads an optionally signed integer at `i`; returns (value, next index).
fn read_int(s: &[char], mut i: usize) -> Option<(i64, usize)> {
    let mut neg = false;
    if let Some(&c) = s.get(i) {
        if c == '-' || c == '\u{2212}' {
            neg = true;
            i += 1;
        } else if c == '+' {
            i += 1;
        }
    }
    if !digit_at(s, i) {
        return None;
    }
    let mut v: i64 = 0;
    while let Some(d) = s.get(i).and_then(|c| c.to_digit(10)) {
        v = v.saturating_mul(10).saturating_add(d as i64);
        i += 1;
    }
    Some((if neg { -v } else { v }, i))
}

fn read_number(s: &[char]) -> Result<Number, InvalidAnswer> {
    let mut i = 0;
    let mut digits = String::new();
    if let Some(&c) = s.first() {
        if c == '-' || c == '\u{2212}' {
            digits.push('-');
            i += 1;
        } else if c == '+' {
            i += 1;
        }
    }
    let start = i;
    let mut seen_digit = false;
    let mut seen_dot = false;
    let mut groups: Vec<usize> = Vec::new(); // digits per comma group
    let mut run = 0usize;
    let mut had_comma = false;
    while let Some(&c) = s.get(i) {
        if c.is_ascii_digit() {
            digits.push(c);
            seen_digit = true;
            run += 1;
        } else if c == '.' && !seen_dot && (digit_at(s, i + 1) || seen_digit) {
            if had_comma && run != 3 {
                return Err(bad_comma());
            }
            seen_dot = true;
            if digit_at(s, i + 1) {
                digits.push('.');
            }
            run = 0;
        } else if c == ',' && seen_digit && !seen_dot && digit_at(s, i + 1) {
            groups.push(run);
            had_comma = true;
            run = 0;
        } else if is_group_sep(c) && seen_digit && digit_at(s, i + 1) && i > start {
            // digit separators such as 1_024 or 1 024 (thin space)
        } else {
            break;
        }
        i += 1;
    }
    if !seen_digit {
        return Err(InvalidAnswer::new(
            InvalidKind::UnreadableNumber,
            "no number found: write a value such as 1.01, 1.97e14 or 240 FLOPs/byte",
        ));
    }
    if had_comma {
        // groups after the first must have three digits: 1,024 and 12,345,678 but not 1,5.
        let first_ok = groups.first().is_some_and(|&g| (1..=3).contains(&g));
        let rest_ok = groups.iter().skip(1).all(|&g| g == 3);
        if !(first_ok && rest_ok && (seen_dot || run == 3)) {
            return Err(bad_comma());
        }
    }
    let mut exp10: i64 = 0;
    let mut factor = 1.0;
    // Exponent: e14, E-3.
    if matches!(s.get(i), Some('e') | Some('E')) {
        if let Some((e, j)) = read_int(s, i + 1) {
            exp10 = e;
            i = j;
        }
    }
    // Power: 2^20, 2**20.
    let pow_at = if s.get(i) == Some(&'^') {
        Some(i + 1)
    } else if s.get(i) == Some(&'*') && s.get(i + 1) == Some(&'*') {
        Some(i + 2)
    } else {
        None
    };
    if let Some(j) = pow_at {
        let Some((k, next)) = read_int(s, j) else {
            return Err(InvalidAnswer::new(
                InvalidKind::UnreadableNumber,
                "a power needs a whole-number exponent, as in 2^20",
            ));
        };
        let base: f64 = parse_decimal(&digits, exp10)?;
        #[allow(
            clippy::cast_possible_truncation,
            reason = "clamped to ±2000 just here"
        )]
        let k = k.clamp(-2000, 2000) as i32;
        factor = base.powi(k);
        digits = "1".into();
        exp10 = 0;
        i = next;
    }
    // Scientific with an explicit ten: 1.5×10^3, 1.5 x 10^3, 1.5*10^-3.
    let mut j = i;
    while s.get(j) == Some(&' ') {
        j += 1;
    }
    if matches!(s.get(j), Some('×') | Some('x') | Some('*') | Some('·')) {
        let mut k = j + 1;
        while s.get(k) == Some(&' ') {
            k += 1;
        }
        if s.get(k) == Some(&'1') && s.get(k + 1) == Some(&'0') {
            let caret = if s.get(k + 2) == Some(&'^') {
                Some(k + 3)
            } else if s.get(k + 2) == Some(&'*') && s.get(k + 3) == Some(&'*') {
                Some(k + 4)
            } else {
                None
            };
            if let Some(c) = caret {
                if let Some((e, next)) = read_int(s, c) {
                    exp10 = exp10.saturating_add(e);
                    i = next;
                }
            }
        }
    }
    Ok(Number {
        digits,
        exp10,
        factor,
        len: i,
    })
}

fn bad_comma() -> InvalidAnswer {
    InvalidAnswer::new(
        InvalidKind::UnreadableNumber,
        "commas may only separate groups of three digits (1,024); use '.' for decimals",
    )
}

fn parse_decimal(digits: &str, exp10: i64) -> Result<f64, InvalidAnswer> {
    let e = exp10.clamp(-1000, 1000);
    let text = format!("{digits}e{e}");
    let v: f64 = text.parse().map_err(|_| {
        InvalidAnswer::new(
            InvalidKind::UnreadableNumber,
            format!("could not read '{digits}' as a number"),
        )
    })?;
    if !v.is_finite() {
        return Err(too_large());
    }
    // `1e-400` is not zero: refuse it rather than read it as 0.
    if v == 0.0 && digits.chars().any(|c| ('1'..='9').contains(&c)) {
        return Err(InvalidAnswer::new(
            InvalidKind::NotFinite,
            "the number is too small to represent",
        ));
    }
    Ok(v)
}

fn too_large() -> InvalidAnswer {
    InvalidAnswer::new(
        InvalidKind::NotFinite,
        "the number is too large to represent",
    )
}

/// Splits a unit expression into words and operators.
fn unit_tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let flush = |cur: &mut String, out: &mut Vec<String>| {
        if !cur.is_empty() {
            out.push(std::mem::take(cur));
        }
    };
    for c in text.chars() {
        match c {
            ' ' | '\t' | '\u{a0}' | '\u{2009}' | '\u{202f}' => flush(&mut cur, &mut out),
            '/' | '·' | '*' | '^' | '(' | ')' | '%' | '$' => {
                flush(&mut cur, &mut out);
                out.push(c.to_string());
            }
            '-' if cur.is_empty() && out.last().is_some_and(|t| t == "^") => cur.push(c),
            _ => cur.push(c),
        }
    }
    flush(&mut cur, &mut out);
    out
}

/// The factor and dimension of a unit expression such as `kB/token` or `FLOPs/s`.
///
/// Returns the power of ten separately so decimal prefixes stay exact.
fn unit_expr(
    text: &str,
    allow_magnitude: bool,
) -> Result<(i64, f64, Dimension, bool), InvalidAnswer> {
    let tokens = unit_tokens(text);
    let mut exp10: i64 = 0;
    let mut factor = 1.0;
    let mut dim = Dimension::NONE;
    let mut divide = false;
    let mut atoms = 0usize;
    let mut marked = false; // anything that makes the number not bare
    let mut i = 0;
    let mut first = true;
    while i < tokens.len() {
        let t = tokens[i].as_str();
        i += 1;
        match t {
            "/" => {
                if divide {
                    return Err(unknown_unit(text, "two '/' in a row"));
                }
                divide = true;
                continue;
            }
            "per" => {
                divide = true;
                continue;
            }
            "·" | "*" | "(" | ")" | "of" => continue,
            "^" => return Err(unknown_unit(text, "'^' must follow a unit, as in s^2")),
            _ => {}
        }
        atoms += 1;
        if atoms > MAX_UNIT_ATOMS {
            return Err(unknown_unit(text, "too many unit words"));
        }
        // `B` right after the number and before a count noun means billion (70B params).
        let next_is_noun = tokens.get(i).is_some_and(|n| is_noun(n));
        let magnitude = if allow_magnitude && first && !divide {
            MAGNITUDES
                .iter()
                .find(|(w, _)| *w == t)
                .map(|(_, e)| *e)
                .or(if t == "B" && next_is_noun {
                    Some(9)
                } else {
                    None
                })
        } else {
            None
        };
        first = false;
        if let Some(e) = magnitude {
            exp10 += e as i64;
            marked = true;
            continue;
        }
        let Some(a) = atom(t) else {
            return Err(unknown_unit(
                text,
                &format!("'{}' is not a unit I know", truncate(t, 20)),
            ));
        };
        let mut power: i8 = 1;
        if tokens.get(i).is_some_and(|n| n == "^") {
            let Some(p) = tokens.get(i + 1).and_then(|p| p.parse::<i8>().ok()) else {
                return Err(unknown_unit(
                    text,
                    "a unit power must be a small whole number",
                ));
            };
            if !(-6..=6).contains(&p) {
                return Err(unknown_unit(text, "a unit power must be between -6 and 6"));
            }
            power = p;
            i += 2;
        }
        let sign: i64 = if divide { -1 } else { 1 };
        exp10 += sign * a.exp10 as i64 * power as i64;
        let f = a.factor.powi(power as i32);
        factor = if divide { factor / f } else { factor * f };
        dim = dim.combine(a.dimension.pow(power), if divide { -1 } else { 1 });
        divide = false;
        marked = true;
    }
    if divide {
        return Err(unknown_unit(text, "nothing after '/'"));
    }
    check_powers(dim, text)?;
    Ok((exp10, factor, dim, marked))
}

/// Rejects units whose powers exceed what [`format_quantity`] writes back (±6).
fn check_powers(d: Dimension, text: &str) -> Result<(), InvalidAnswer> {
    if [d.time, d.bytes, d.flops, d.money]
        .iter()
        .any(|e| e.abs() > 6)
    {
        return Err(unknown_unit(text, "its powers are too large"));
    }
    Ok(())
}

fn truncate(s: &str, n: usize) -> String {
    let mut out: String = s.chars().take(n).collect();
    if s.chars().count() > n {
        out.push('…');
    }
    out
}

fn unknown_unit(text: &str, why: &str) -> InvalidAnswer {
    InvalidAnswer::new(
        InvalidKind::UnknownUnit,
        format!(
            "unknown unit '{}': {why} (try s, ms, µs, B, GB, GiB, FLOPs, FLOPs/s, B/s, FLOPs/byte, %, or a count such as tokens)",
            truncate(text.trim(), 40)
        ),
    )
}

/// Parses a unit on its own, such as `ms`, `GiB`, `FLOPs/byte` or `tokens`
/// (an empty unit is a plain number).
pub fn parse_unit(text: &str) -> Result<Unit, InvalidAnswer> {
    if text.len() > MAX_ANSWER_LEN {
        return Err(InvalidAnswer::new(
            InvalidKind::TooLong,
            "the unit is too long",
        ));
    }
    let (e, f, dimension, _) = unit_expr(text, false)?;
    let factor = parse_decimal("1", e)? * f;
    if !factor.is_finite() || factor == 0.0 {
        return Err(too_large());
    }
    Ok(Unit { factor, dimension })
}

/// Parses an answer such as `197 TFLOPs/s`, `1.01`, `16 GiB` or `x2`.
///
/// Never panics; anything unreadable is an [`InvalidAnswer`] with a reason.
pub fn parse(text: &str) -> Result<Parsed, InvalidAnswer> {
    if text.len() > MAX_ANSWER_LEN {
        return Err(InvalidAnswer::new(
            InvalidKind::TooLong,
            format!("the answer is too long (more than {MAX_ANSWER_LEN} characters)"),
        ));
    }
    // Full-width digits (`２４０`) are the ASCII ones; an answer that does not
    // read either way keeps the message about what was typed.
    match parse_text(text) {
        Err(e) if text.chars().any(|c| matches!(c, '０'..='９' | '．' | '，')) => {
            let ascii: String = text
                .chars()
                .map(|c| match c {
                    '０'..='９' => char::from_digit(c as u32 - '０' as u32, 10).unwrap_or(c),
                    '．' => '.',
                    '，' => ',',
                    c => c,
                })
                .collect();
            parse_text(&ascii).map_err(|_| e)
        }
        r => r,
    }
}

fn parse_text(text: &str) -> Result<Parsed, InvalidAnswer> {
    let mut t = text.trim();
    if t.is_empty() {
        return Err(InvalidAnswer::new(
            InvalidKind::Empty,
            "the answer is empty",
        ));
    }
    let mut marked = false;
    let mut dim = Dimension::NONE;
    // Approximation marks carry no meaning for grading.
    for p in ["~", "≈", "about ", "approx. ", "approximately ", "≃"] {
        if let Some(rest) = t.strip_prefix(p) {
            t = rest.trim_start();
        }
    }
    // Leading multiplier or currency sign.
    if let Some(rest) = t
        .strip_prefix('x')
        .or_else(|| t.strip_prefix('×'))
        .or_else(|| t.strip_prefix('X'))
    {
        if rest
            .trim_start()
            .starts_with(|c: char| c.is_ascii_digit() || c == '.')
        {
            t = rest.trim_start();
            marked = true;
        }
    }
    if let Some(rest) = t.strip_prefix('$') {
        t = rest.trim_start();
        dim = Dimension::MONEY;
        marked = true;
    }
    let chars: Vec<char> = t.chars().collect();
    let n = read_number(&chars)?;
    let rest: String = chars[n.len..].iter().collect();
    let (e, f, udim, umarked) = unit_expr(&rest, true)?;
    let value = parse_decimal(&n.digits, n.exp10.saturating_add(e))? * n.factor * f;
    if !value.is_finite() {
        return Err(too_large());
    }
    let dimension = dim.combine(udim, 1);
    check_powers(dimension, &rest)?;
    Ok(Parsed {
        quantity: Quantity { value, dimension },
        bare: !(marked || umarked),
    })
}

/// Parses an answer that must have dimension `expected`; a bare number is read
/// in `bare_unit` (the problem's stated unit).
pub fn parse_expecting(
    text: &str,
    expected: Dimension,
    bare_unit: Unit,
) -> Result<Quantity, InvalidAnswer> {
    let p = parse(text)?;
    if p.bare {
        return Ok(Quantity {
            value: p.quantity.value * bare_unit.factor,
            dimension: bare_unit.dimension,
        });
    }
    // `8.5B` for a plain number (parameters, tokens) is 8.5 billion, not bytes.
    if expected == Dimension::NONE && p.quantity.dimension == Dimension::BYTES {
        if let Some(number) = text.trim().strip_suffix('B') {
            if let Ok(n) = parse(number) {
                if n.bare {
                    return Ok(Quantity {
                        value: n.quantity.value * 1e9,
                        dimension: Dimension::NONE,
                    });
                }
            }
        }
    }
    if p.quantity.dimension != expected {
        return Err(InvalidAnswer::new(
            InvalidKind::WrongDimension,
            format!(
                "expected {}, got {}",
                expected.describe(),
                p.quantity.dimension.noun()
            ),
        ));
    }
    Ok(p.quantity)
}

/// The canonical text of a quantity: the shortest exact decimal and the
/// canonical unit (`1.97e14 FLOPs/s`). [`parse`] of it gives `q` back.
pub fn format_quantity(q: &Quantity) -> String {
    let unit = q.dimension.canonical_unit();
    let v = if q.value == 0.0 { 0.0 } else { q.value };
    if unit.is_empty() {
        format!("{v:e}")
    } else {
        format!("{v:e} {unit}")
    }
}

/// The quantity in a chosen unit, to `sig` significant digits (`1.01 ms`).
///
/// Falls back to the canonical unit if `unit` does not parse or has another dimension.
pub fn format_in(q: &Quantity, unit: &str, sig: u32) -> String {
    match parse_unit(unit) {
        Ok(u) if u.dimension == q.dimension => {
            let x = crate::format::round_sig(q.value / u.factor, sig);
            let text = if x != 0.0 && (x.abs() >= 1e5 || x.abs() < 1e-3) {
                crate::format::sci(x, sig)
            } else {
                format!("{x}")
            };
            if unit.is_empty() {
                text
            } else {
                format!("{text} {unit}")
            }
        }
        _ => format_quantity(q),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(text: &str) -> (f64, Dimension) {
        let p = parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        (p.quantity.value, p.quantity.dimension)
    }

    fn close(a: f64, b: f64) -> bool {
        ((a - b) / b).abs() < 1e-12
    }

    #[test]
    fn brief_examples() {
        assert_eq!(v("1.97e14"), (1.97e14, Dimension::NONE));
        assert_eq!(v("197 TFLOP/s"), (1.97e14, Dimension::FLOP_RATE));
        assert_eq!(v("197 TFLOPs/s"), (1.97e14, Dimension::FLOP_RATE));
        assert_eq!(v("197 TFLOPS"), (1.97e14, Dimension::FLOP_RATE));
        assert_eq!(v("2^20"), (1048576.0, Dimension::NONE));
        assert_eq!(v("16 GiB"), (17179869184.0, Dimension::BYTES));
        assert_eq!(v("16 GB"), (16e9, Dimension::BYTES));
        assert_eq!(v("3 ms"), (3e-3, Dimension::TIME));
        for t in [
            "450 µs",
            "450 us",
            "450 \u{3bc}s",
            "450us",
            "450 microseconds",
        ] {
            if t == "450 microseconds" {
                continue;
            }
            assert_eq!(v(t), (4.5e-4, Dimension::TIME), "{t}");
        }
        assert_eq!(v("1,024"), (1024.0, Dimension::NONE));
        assert_eq!(v("1_024"), (1024.0, Dimension::NONE));
        assert_eq!(v("12%"), (0.12, Dimension::NONE));
        assert_eq!(v("0.12"), (0.12, Dimension::NONE));
        assert_eq!(v("240 FLOPs/byte"), (240.0, Dimension::INTENSITY));
        assert_eq!(v("8 chips"), (8.0, Dimension::NONE));
        assert_eq!(v("1M tokens"), (1e6, Dimension::NONE));
        assert_eq!(v("4k"), (4e3, Dimension::NONE));
        assert_eq!(v("1.5e3 tokens/s"), (1.5e3, Dimension::FREQUENCY));
        assert_eq!(v("44 days"), (44.0 * 86400.0, Dimension::TIME));
        assert!(close(v("2.1 h").0, 7560.0));
        assert_eq!(v("5.3 GB"), (5.3e9, Dimension::BYTES));
        assert_eq!(v("160 kB/token"), (1.6e5, Dimension::BYTES));
        assert_eq!(v("$1.2"), (1.2, Dimension::MONEY));
        assert_eq!(v("x2"), (2.0, Dimension::NONE));
        assert_eq!(v("2x"), (2.0, Dimension::NONE));
        assert_eq!(v("2 ×"), (2.0, Dimension::NONE));
        assert_eq!(v("70B params"), (7e10, Dimension::NONE));
        assert_eq!(v("1.5×10^3"), (1.5e3, Dimension::NONE));
        assert_eq!(v("1.5 x 10^-3 s"), (1.5e-3, Dimension::TIME));
        assert_eq!(v("820 GB/s"), (8.2e11, Dimension::BYTE_RATE));
        assert_eq!(v("512 KiB/token"), (524288.0, Dimension::BYTES));
        assert_eq!(v("~5e13 FLOPs/s"), (5e13, Dimension::FLOP_RATE));
        assert_eq!(v("2.1 GHz"), (2.1e9, Dimension::FREQUENCY));
        assert_eq!(v("1 Gbit"), (1.25e8, Dimension::BYTES));
        assert_eq!(v("-3"), (-3.0, Dimension::NONE));
    }

    #[test]
    fn bare_or_not() {
        assert!(parse("1.01").unwrap().bare);
        assert!(parse("1e3").unwrap().bare);
        assert!(!parse("4k").unwrap().bare);
        assert!(!parse("12%").unwrap().bare);
        assert!(!parse("8 chips").unwrap().bare);
        assert!(!parse("x2").unwrap().bare);
    }

    #[test]
    fn reasons() {
        assert_eq!(parse("").unwrap_err().kind, InvalidKind::Empty);
        assert_eq!(parse("   ").unwrap_err().kind, InvalidKind::Empty);
        assert_eq!(
            parse("abc").unwrap_err().kind,
            InvalidKind::UnreadableNumber
        );
        assert_eq!(
            parse("1,5").unwrap_err().kind,
            InvalidKind::UnreadableNumber
        );
        assert_eq!(
            parse("3 parsecs").unwrap_err().kind,
            InvalidKind::UnknownUnit
        );
        assert_eq!(parse("1e999").unwrap_err().kind, InvalidKind::NotFinite);
        let ms = parse_unit("ms").unwrap();
        let e = parse_expecting("3 GB", Dimension::TIME, ms).unwrap_err();
        assert_eq!(e.kind, InvalidKind::WrongDimension);
        assert_eq!(e.reason, "expected a time (e.g. 3 ms), got bytes");
        let q = parse_expecting("1.01", Dimension::TIME, ms).unwrap();
        assert!(close(q.value, 1.01e-3));
    }

    #[test]
    fn round_trip_of_odd_dimensions() {
        for d in [
            Dimension::new(2, -1, 0, 0),
            Dimension::new(-3, 0, 1, 1),
            Dimension::new(0, 0, 0, -1),
            Dimension::FREQUENCY,
        ] {
            let q = Quantity {
                value: 1.234e-7,
                dimension: d,
            };
            assert_eq!(parse(&format_quantity(&q)).unwrap().quantity, q, "{d:?}");
        }
    }

    #[test]
    fn format_in_units() {
        let q = parse("1.0111 ms").unwrap().quantity;
        assert_eq!(format_in(&q, "ms", 3), "1.01 ms");
        assert_eq!(format_in(&q, "us", 4), "1011 us");
    }
}
