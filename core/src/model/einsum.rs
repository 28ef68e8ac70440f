//! Counting the FLOPs of a contraction written the way the book writes them
//! (Part 4, "Counting dots"): `BD,DF->BF` with a size for every letter. The
//! forward pass costs two FLOPs (a multiply and an add) for every combination of
//! the distinct dimensions when something is summed over; the backward pass runs
//! two more contractions of the same size, one for the gradient of each operand.
//! That is where the rule "training costs six FLOPs per parameter per token" comes
//! from: `2 + 2 + 2`, with the weight as one operand and the tokens as the letters
//! the weight lacks.
//!
//! The parser never panics: anything it cannot read is rejected with a message that
//! names the byte position of the first problem, and everything it accepts prints
//! back to a canonical form that parses to the same contraction.
//!
//! ```
//! use ridgeline_core::model::einsum::{analyse, Contraction};
//!
//! let c = Contraction::parse("BD,DF->BF").unwrap();
//! let sizes = c.sizes_from("B=4096 D=8192 F=28672").unwrap();
//! let a = analyse(&c, &sizes).unwrap();
//! assert_eq!(a.forward.flops.0, 2.0 * 4096.0 * 8192.0 * 28672.0);
//! assert_eq!(a.total().0, 6.0 * a.params * a.tokens);
//! assert!(Contraction::parse("BD,DF->BQ").unwrap_err().contains("byte 8"));
//! ```

use crate::units::Flops;
use std::fmt;

/// The longest expression the parser reads, in bytes.
pub const MAX_LEN: usize = 200;
/// The most distinct dimensions (letters) a contraction may use.
pub const MAX_DIMS: usize = 16;
/// The largest size one dimension may have.
pub const MAX_SIZE: f64 = 1e12;

/// A two-operand contraction: `lhs,rhs->out`, one ASCII letter per dimension.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Contraction {
    /// The first operand's dimensions, in order (for a matmul, the activations).
    pub lhs: Vec<char>,
    /// The second operand's dimensions (for a matmul, the weight).
    pub rhs: Vec<char>,
    /// The result's dimensions.
    pub out: Vec<char>,
}

fn err(pos: usize, what: impl fmt::Display) -> String {
    format!("at byte {pos}: {what}")
}

fn describe(text: &str, pos: usize) -> String {
    match text[pos..].chars().next() {
        Some(c) => format!("unexpected {c:?}"),
        None => "the expression ends too early".to_string(),
    }
}

impl Contraction {
    /// Parses `lhs,rhs->out` (spaces allowed between tokens). A letter may not repeat
    /// within one operand, every output letter must appear in an input, and the
    /// output may not repeat a letter. Errors name the byte position.
    pub fn parse(text: &str) -> Result<Contraction, String> {
        if text.len() > MAX_LEN {
            return Err(err(MAX_LEN, format!("longer than {MAX_LEN} bytes")));
        }
        let bytes = text.as_bytes();
        let mut pos = 0;
        let skip = |pos: &mut usize| {
            while *pos < bytes.len() && bytes[*pos] == b' ' {
                *pos += 1;
            }
        };
        // Reads one operand: a run of letters, each at most once.
        let operand = |pos: &mut usize, name: &str| -> Result<Vec<char>, String> {
            skip(pos);
            let start = *pos;
            let mut dims: Vec<char> = Vec::new();
            while *pos < bytes.len() && bytes[*pos].is_ascii_alphabetic() {
                let c = bytes[*pos] as char;
                if dims.contains(&c) {
                    return Err(err(
                        *pos,
                        format!("{c} appears twice in the {name} (a trace is not supported)"),
                    ));
                }
                dims.push(c);
                *pos += 1;
            }
            if *pos == start && name != "output" {
                return Err(err(
                    *pos,
                    format!("{}; expected the {name}'s letters", describe(text, *pos)),
                ));
            }
            skip(pos);
            Ok(dims)
        };
        let lhs = operand(&mut pos, "first operand")?;
        if bytes.get(pos) != Some(&b',') {
            return Err(err(pos, format!("{}; expected ','", describe(text, pos))));
        }
        pos += 1;
        let rhs = operand(&mut pos, "second operand")?;
        if !text[pos..].starts_with("->") {
            return Err(err(pos, format!("{}; expected '->'", describe(text, pos))));
        }
        pos += 2;
        let out_start = pos;
        let out = operand(&mut pos, "output")?;
        if pos != bytes.len() {
            return Err(err(
                pos,
                format!("{}; expected a letter or the end", describe(text, pos)),
            ));
        }
        let mut seen = 0;
        for (i, c) in text[out_start..].char_indices() {
            if c == ' ' {
                continue;
            }
            if !lhs.contains(&c) && !rhs.contains(&c) {
                return Err(err(
                    out_start + i,
                    format!("output dimension {c} appears in neither operand"),
                ));
            }
            seen += 1;
        }
        debug_assert_eq!(seen, out.len());
        let c = Contraction { lhs, rhs, out };
        if c.dims().len() > MAX_DIMS {
            return Err(err(0, format!("more than {MAX_DIMS} distinct dimensions")));
        }
        Ok(c)
    }

    /// Every distinct dimension, in order of first appearance.
    pub fn dims(&self) -> Vec<char> {
        let mut out: Vec<char> = Vec::new();
        for &c in self.lhs.iter().chain(&self.rhs) {
            if !out.contains(&c) {
                out.push(c);
            }
        }
        out
    }

    /// The dimensions summed over: in an input but not in the output.
    pub fn contracted(&self) -> Vec<char> {
        self.dims()
            .into_iter()
            .filter(|c| !self.out.contains(c))
            .collect()
    }

    /// Parses sizes written `B=4096 D=8192` (commas or spaces between entries), for
    /// this contraction's letters: every letter needs one size, unknown or repeated
    /// letters are rejected, and errors name the byte position in `text`.
    pub fn sizes_from(&self, text: &str) -> Result<Vec<(char, f64)>, String> {
        if text.len() > MAX_LEN {
            return Err(err(MAX_LEN, format!("longer than {MAX_LEN} bytes")));
        }
        let dims = self.dims();
        let mut sizes: Vec<(char, f64)> = Vec::new();
        let mut pos = 0;
        for entry in text.split([' ', ',']) {
            let start = pos;
            pos += entry.len() + 1;
            if entry.is_empty() {
                continue;
            }
            let Some((name, value)) = entry.split_once('=') else {
                return Err(err(start, format!("{entry:?} is not LETTER=SIZE")));
            };
            let mut letters = name.chars();
            let (Some(c), None) = (letters.next(), letters.next()) else {
                return Err(err(start, format!("{name:?} is not one letter")));
            };
            if !dims.contains(&c) {
                return Err(err(
                    start,
                    format!("{c} is not a dimension of the expression"),
                ));
            }
            if sizes.iter().any(|(d, _)| *d == c) {
                return Err(err(start, format!("{c} is given twice")));
            }
            let at = start + name.len() + 1;
            let size: f64 = value
                .parse()
                .map_err(|_| err(at, format!("{value:?} is not a number")))?;
            if !((1.0..=MAX_SIZE).contains(&size) && size.fract() == 0.0) {
                return Err(err(
                    at,
                    format!("{c} must be a whole number from 1 to {MAX_SIZE:e}"),
                ));
            }
            sizes.push((c, size));
        }
        if let Some(c) = dims.iter().find(|c| !sizes.iter().any(|(d, _)| d == *c)) {
            return Err(err(text.len(), format!("no size for {c}")));
        }
        Ok(sizes)
    }
}

impl fmt::Display for Contraction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = |v: &[char]| v.iter().collect::<String>();
        write!(f, "{},{}->{}", s(&self.lhs), s(&self.rhs), s(&self.out))
    }
}

/// One contraction of the forward or backward pass with its cost.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// What it computes (`forward`, `gradient of the first operand`, …).
    pub label: &'static str,
    /// The contraction in the same notation.
    pub spec: Contraction,
    /// Its FLOPs.
    pub flops: Flops,
    /// FLOPs of this and every earlier step.
    pub cumulative: Flops,
}

/// Everything the `flops-counter` widget shows for one contraction.
#[derive(Debug, Clone, PartialEq)]
pub struct Analysis {
    /// The forward contraction.
    pub forward: Step,
    /// The gradient of the first operand: `out,rhs->lhs`.
    pub grad_lhs: Step,
    /// The gradient of the second operand: `lhs,out->rhs`.
    pub grad_rhs: Step,
    /// Elements of the second operand (the weight's parameters).
    pub params: f64,
    /// The product of the first operand's letters the weight lacks (the tokens).
    pub tokens: f64,
}

impl Analysis {
    /// Forward plus both backward FLOPs.
    pub fn total(&self) -> Flops {
        self.forward.flops + self.grad_lhs.flops + self.grad_rhs.flops
    }

    /// Training FLOPs per parameter per token: 6 for a matmul.
    pub fn per_param_token(&self) -> f64 {
        self.total().0 / (self.params * self.tokens)
    }

    /// The three steps in order, for stepping through.
    pub fn steps(&self) -> [&Step; 3] {
        [&self.forward, &self.grad_lhs, &self.grad_rhs]
    }
}

fn size_of(sizes: &[(char, f64)], c: char) -> Result<f64, String> {
    sizes
        .iter()
        .find(|(d, _)| *d == c)
        .map(|(_, s)| *s)
        .ok_or_else(|| format!("no size for {c}"))
}

/// FLOPs of one contraction: `2·Π sizes` of the distinct letters when something is
/// summed over, `Π sizes` when nothing is (an elementwise or outer product).
pub fn flops(c: &Contraction, sizes: &[(char, f64)]) -> Result<Flops, String> {
    let mut product = 1.0;
    for d in c.dims() {
        product *= size_of(sizes, d)?;
    }
    Ok(Flops(if c.contracted().is_empty() {
        product
    } else {
        2.0 * product
    }))
}

/// The forward contraction and the two backward ones with their FLOPs.
pub fn analyse(c: &Contraction, sizes: &[(char, f64)]) -> Result<Analysis, String> {
    let grad_lhs = Contraction {
        lhs: c.out.clone(),
        rhs: c.rhs.clone(),
        out: c.lhs.clone(),
    };
    let grad_rhs = Contraction {
        lhs: c.lhs.clone(),
        rhs: c.out.clone(),
        out: c.rhs.clone(),
    };
    let mut total = Flops(0.0);
    let mut step = |label, spec: Contraction| -> Result<Step, String> {
        let f = flops(&spec, sizes)?;
        total += f;
        Ok(Step {
            label,
            spec,
            flops: f,
            cumulative: total,
        })
    };
    let forward = step("forward", c.clone())?;
    let grad_lhs = step("gradient of the first operand", grad_lhs)?;
    let grad_rhs = step("gradient of the second operand", grad_rhs)?;
    let mut params = 1.0;
    for &d in &c.rhs {
        params *= size_of(sizes, d)?;
    }
    let mut tokens = 1.0;
    for &d in c.lhs.iter().filter(|d| !c.rhs.contains(d)) {
        tokens *= size_of(sizes, d)?;
    }
    Ok(Analysis {
        forward,
        grad_lhs,
        grad_rhs,
        params,
        tokens,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    fn sized(spec: &str, sizes: &str) -> Analysis {
        let c = Contraction::parse(spec).unwrap();
        let s = c.sizes_from(sizes).unwrap();
        analyse(&c, &s).unwrap()
    }

    #[test]
    fn a_matmul_costs_six_flops_per_parameter_per_token() {
        let a = sized("BD,DF->BF", "B=4 D=3 F=5");
        assert_eq!(a.forward.flops.0, 120.0);
        assert_eq!(a.grad_lhs.spec.to_string(), "BF,DF->BD");
        assert_eq!(a.grad_rhs.spec.to_string(), "BD,BF->DF");
        assert_eq!(a.grad_lhs.flops.0, 120.0);
        assert_eq!(a.grad_rhs.flops.0, 120.0);
        assert_eq!(a.params, 15.0);
        assert_eq!(a.tokens, 4.0);
        assert_eq!(a.per_param_token(), 6.0);
        assert_eq!(a.grad_rhs.cumulative.0, 360.0);
    }

    #[test]
    fn the_books_batched_einsum() {
        // Part 4: "ijkl,ijmno->klmno" sums over i and j.
        let a = sized("ijkl, ijmno -> klmno", "i=2 j=3 k=4 l=5 m=6 n=7 o=8");
        assert_eq!(a.forward.flops.0, 2.0 * 40320.0);
        let elementwise = sized("ab,ab->ab", "a=3 b=4");
        assert_eq!(elementwise.forward.flops.0, 12.0);
    }

    #[test]
    fn messages_point_at_the_byte() {
        let e = |s: &str| Contraction::parse(s).unwrap_err();
        assert!(
            e("BD DF->BF").starts_with("at byte 3:"),
            "{}",
            e("BD DF->BF")
        );
        assert!(e("BD,DF>BF").starts_with("at byte 5:"));
        assert!(e("BD,DF->BX").contains("byte 8") && e("BD,DF->BX").contains("X"));
        assert!(e("BDB,DF->BF").starts_with("at byte 2:"));
        assert!(e("").contains("ends too early"));
        assert!(e("BD,DF->BF!").starts_with("at byte 9:"));
        let c = Contraction::parse("BD,DF->BF").unwrap();
        assert!(c
            .sizes_from("B=4 D=3")
            .unwrap_err()
            .contains("no size for F"));
        assert!(c
            .sizes_from("B=4 D=x F=2")
            .unwrap_err()
            .starts_with("at byte 6:"));
        assert!(c
            .sizes_from("B=4 Q=3")
            .unwrap_err()
            .contains("not a dimension"));
        assert_eq!(
            c.sizes_from("B=0 D=3 F=2").unwrap_err().to_string(),
            "at byte 2: B must be a whole number from 1 to 1e12"
        );
        assert!(c
            .sizes_from("B=4 B=4 D=3 F=2")
            .unwrap_err()
            .contains("twice"));
    }

    #[test]
    fn a_million_random_expressions_are_rejected_with_a_message_or_round_trip() {
        const ALPHABET: &[u8] = b"BDFbdf, ->-> ,,x\0=9";
        const LETTERS: &[u8] = b"BDFKNTbdf";
        let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
        let (mut accepted, mut rejected) = (0u32, 0u32);
        for _ in 0..1_000_000 {
            let mut text = String::new();
            // Half the inputs are well-formed skeletons, half free-form noise; either
            // may then have one character inserted at random.
            if rng.next_u64().is_multiple_of(2) {
                for sep in [",", "->", ""] {
                    for _ in 0..rng.next_u64() % 4 {
                        text.push(char::from(rng.pick(LETTERS)));
                    }
                    text.push_str(sep);
                }
            } else {
                let len = rng.next_u64() % 14;
                for _ in 0..len {
                    let c = if rng.next_u64() % 17 == 16 {
                        'é'
                    } else {
                        char::from(rng.pick(ALPHABET))
                    };
                    text.push(c);
                }
            }
            if rng.next_u64().is_multiple_of(3) && !text.is_empty() {
                let at = (rng.next_u64() % text.len() as u64) as usize;
                if text.is_char_boundary(at) {
                    let c = if rng.next_u64().is_multiple_of(5) {
                        'é'
                    } else {
                        char::from(rng.pick(ALPHABET))
                    };
                    text.insert(at, c);
                }
            }
            match Contraction::parse(&text) {
                Ok(c) => {
                    accepted += 1;
                    let printed = c.to_string();
                    assert_eq!(Contraction::parse(&printed).as_ref(), Ok(&c), "{text:?}");
                }
                Err(m) => {
                    rejected += 1;
                    let pos: usize = m
                        .strip_prefix("at byte ")
                        .and_then(|r| r.split(':').next())
                        .and_then(|n| n.parse().ok())
                        .unwrap_or(usize::MAX);
                    assert!(pos <= text.len(), "{text:?}: {m}");
                    assert!(m.len() > "at byte 0: ".len(), "{text:?}: {m}");
                }
            }
        }
        assert!(accepted > 1000 && rejected > 1000, "{accepted} {rejected}");
    }

    proptest::proptest! {
        #[test]
        fn backward_steps_match_the_forward_for_any_matmul(b in 1u32..5000, d in 1u32..5000, f in 1u32..5000) {
            let a = sized("BD,DF->BF", &format!("B={b} D={d} F={f}"));
            proptest::prop_assert_eq!(a.forward.flops, a.grad_lhs.flops);
            proptest::prop_assert_eq!(a.forward.flops, a.grad_rhs.flops);
            proptest::prop_assert!((a.per_param_token() - 6.0).abs() < 1e-12);
        }
    }
}
