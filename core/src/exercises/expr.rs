//! Symbolic answers: a small expression language, graded by evaluation.
//!
//! About forty of the book's answers are formulas (`2BDF`, `BD + DF`,
//! `N^2(1-1/D)`, `T_math = 2BDF/3.94e14`). A reader's formula is parsed, then
//! evaluated next to the reference at several random points of the declared
//! variables, as the STACK system does: the two are equivalent when they agree
//! to 1e-9 (relative) everywhere. A reader's formula that is a constant multiple
//! of the reference (say twice it) is reported with that ratio, so the grader
//! can diagnose the mistake.
//!
//! The language: numbers (`3.94e14`), variables with subscripts (`W_ici`,
//! `W_{ici}`), `+ - * / ^` (also `·`, `×`, `**`), parentheses, `sqrt`, `max`,
//! `min`, and implicit multiplication (`2BDF` is `2·B·D·F` when B, D and F are
//! declared one-letter variables; `N^2(1-1/D)`). The book's notation is read
//! too: Unicode superscripts (`N²`), the root sign (`√128`, `√N`), TeX subscripts
//! (`W_\text{ici}`), a subscripted symbol for a declared bare one when the
//! book's symbol table ([`crate::symbols`]) says it specialises it (`W_ici` or
//! `W_link` for `W`; `W_banana` and the weight matrix `W_in` are refused), a left side
//! naming the quantity asked for (`T_math = …`; any other word is refused), and
//! a lower bound (`B > 120E/k`, graded on its right side; `B < …` is refused).
//!
//! ```
//! use ridgeline_core::exercises::expr::{equivalence, parse_expr, Equivalence, Var};
//!
//! let vars = [Var::new("B", 1.0, 4096.0), Var::new("D", 128.0, 16384.0), Var::new("F", 128.0, 65536.0)];
//! let names: Vec<&str> = vars.iter().map(|v| v.name.as_str()).collect();
//! let reader = parse_expr("2BDF", &names).unwrap();
//! let reference = parse_expr("2*B*D*F", &names).unwrap();
//! assert_eq!(equivalence(&reader, &|x: &[f64]| reference.eval(x), &vars, 7), Equivalence::Equal);
//! let twice = parse_expr("4 B D F", &names).unwrap();
//! assert_eq!(equivalence(&twice, &|x: &[f64]| reference.eval(x), &vars, 7), Equivalence::ConstantRatio(2.0));
//! let err = parse_expr("2BQF", &names).unwrap_err();
//! assert!(err.reason.contains("allowed: B, D, F"));
//! ```

use std::fmt;

use crate::rng::Rng;
use crate::symbols;

/// Names a formula's left side may have: the quantity asked for (`T = …`,
/// `T_math = …`, `FLOPs = …`). Any `T_…`, `t_…` or `B_…` subscript is also read.
const LEFT_SIDES: &[&str] = &[
    "T",
    "t",
    "time",
    "cost",
    "C",
    "FLOPs",
    "flops",
    "bytes",
    "I",
    "intensity",
    "N",
    "P",
    "params",
    "M",
    "memory",
    "B",
    "X",
    "Y",
    "E",
];

/// The book's notation, rewritten into the parser's: Unicode superscripts
/// (`N²` is `N^2`), the root sign (`√128` is `sqrt(128)`, `√(x)` is `sqrt(x)`).
fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '²' => out.push_str("^2"),
            '³' => out.push_str("^3"),
            '√' => {
                out.push_str("sqrt");
                let mut j = i + 1;
                while chars.get(j).is_some_and(|c| c.is_whitespace()) {
                    j += 1;
                }
                if chars.get(j) == Some(&'(') {
                    i = j;
                    continue;
                }
                out.push('(');
                while chars
                    .get(j)
                    .is_some_and(|c| c.is_alphanumeric() || *c == '.' || *c == '_')
                {
                    out.push(chars[j]);
                    j += 1;
                }
                out.push(')');
                i = j;
                continue;
            }
            c => out.push(c),
        }
        i += 1;
    }
    out
}

/// Splits `lhs REL rhs` at the first relation sign (`=`, `>`, `≥`, `>=`, `<`,
/// `≤`, `<=`), returning the relation as `=`, `>` or `<`.
fn split_relation(t: &str) -> Option<(&str, char, &str)> {
    let (i, c) = t
        .char_indices()
        .find(|(_, c)| matches!(c, '=' | '>' | '<' | '≥' | '≤'))?;
    let rel = match c {
        '=' => '=',
        '>' | '≥' => '>',
        _ => '<',
    };
    let mut rest = &t[i + c.len_utf8()..];
    if rel != '=' {
        rest = rest.strip_prefix('=').unwrap_or(rest);
    }
    Some((&t[..i], rel, rest))
}

/// Checks the left side of `lhs = …` or `lhs > …`: a symbol, the quantity
/// asked for; and a bound must be a lower bound (`B > …`), as the book's
/// thresholds are.
fn check_left_side(lhs: &str, rel: char) -> Result<(), ExprError> {
    let symbol = !lhs.is_empty()
        && lhs.chars().next().is_some_and(char::is_alphabetic)
        && lhs
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '{' | '}' | '\\'));
    if !symbol {
        return Err(err(
            format!(
                "the left side “{}” is not a symbol: give the formula alone, or `T = …`",
                lhs.chars().take(30).collect::<String>()
            ),
            Some(0),
        ));
    }
    if rel == '<' {
        return Err(err(
            format!("the condition is a lower bound: write it as {lhs} > …"),
            Some(0),
        ));
    }
    // `T_\text{math}` and `T_{math}` are `T_math`, as the symbol table reads them.
    let name = match symbols::key(lhs) {
        (base, sub) if sub.is_empty() => base,
        (base, sub) => format!("{base}_{sub}"),
    };
    let known = LEFT_SIDES.contains(&name.as_str())
        || ["T_", "t_", "B_", "N_", "C_"]
            .iter()
            .any(|p| name.starts_with(p) && name.len() > 2);
    if rel == '=' && !known {
        return Err(err(
            format!(
                "“{}” is not the quantity asked for: give the formula alone, or `T = …`",
                lhs.chars().take(30).collect::<String>()
            ),
            Some(0),
        ));
    }
    Ok(())
}

/// Longest formula the parser reads, in bytes.
pub const MAX_EXPR_LEN: usize = 400;
/// Deepest nesting of parentheses and operators.
const MAX_DEPTH: usize = 64;
/// Points at which formulas are compared.
pub const POINTS: usize = 8;
/// Relative agreement required at every point.
pub const REL_TOL: f64 = 1e-9;

/// A declared variable and the range random points are drawn from.
#[derive(Debug, Clone, PartialEq)]
pub struct Var {
    /// Its name as the reader types it (`B`, `W_ici`).
    pub name: String,
    /// Smallest value drawn.
    pub min: f64,
    /// Largest value drawn.
    pub max: f64,
    /// If positive, values are multiples of `step` (whole numbers for 1).
    pub step: f64,
}

impl Var {
    /// A real-valued variable on `[min, max]`.
    pub fn new(name: &str, min: f64, max: f64) -> Var {
        Var {
            name: name.to_string(),
            min,
            max,
            step: 0.0,
        }
    }

    /// A variable taking multiples of `step` on `[min, max]`.
    pub fn stepped(name: &str, min: f64, max: f64, step: f64) -> Var {
        Var {
            step,
            ..Var::new(name, min, max)
        }
    }
}

/// A parsed formula.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    /// A number.
    Num(f64),
    /// The i-th declared variable.
    Var(usize),
    /// `-x`.
    Neg(Box<Expr>),
    /// A binary operation: one of `+ - * / ^`.
    Bin(char, Box<Expr>, Box<Expr>),
    /// `sqrt`, `max` or `min` applied to arguments.
    Call(Func, Vec<Expr>),
}

/// The functions a formula may call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Func {
    /// Square root (one argument).
    Sqrt,
    /// Largest argument.
    Max,
    /// Smallest argument.
    Min,
}

impl Expr {
    /// Evaluates with `values[i]` for the i-th declared variable (NaN if missing).
    pub fn eval(&self, values: &[f64]) -> f64 {
        match self {
            Expr::Num(x) => *x,
            Expr::Var(i) => values.get(*i).copied().unwrap_or(f64::NAN),
            Expr::Neg(e) => -e.eval(values),
            Expr::Bin(op, a, b) => {
                let (a, b) = (a.eval(values), b.eval(values));
                match op {
                    '+' => a + b,
                    '-' => a - b,
                    '*' => a * b,
                    '/' => a / b,
                    _ => a.powf(b),
                }
            }
            Expr::Call(f, args) => {
                let vals = args.iter().map(|a| a.eval(values));
                match f {
                    Func::Sqrt => args.first().map_or(f64::NAN, |a| a.eval(values).sqrt()),
                    Func::Max => vals.fold(f64::NEG_INFINITY, f64::max),
                    Func::Min => vals.fold(f64::INFINITY, f64::min),
                }
            }
        }
    }
}

/// Why a formula could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExprError {
    /// A sentence for the reader.
    pub reason: String,
    /// Character offset of the problem, when known.
    pub position: Option<usize>,
}

impl fmt::Display for ExprError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.position {
            Some(p) => write!(f, "at character {}: {}", p + 1, self.reason),
            None => f.write_str(&self.reason),
        }
    }
}

impl std::error::Error for ExprError {}

fn err(reason: impl Into<String>, position: Option<usize>) -> ExprError {
    ExprError {
        reason: reason.into(),
        position,
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Num(f64),
    Ident(String),
    Op(char),
    LParen,
    RParen,
    Comma,
}

/// Unit words a reader may append to a formula (`BD + DF bytes`); ignored when
/// they are not declared variables.
const TRAILING_UNITS: &[&str] = &[
    "bytes", "byte", "B", "FLOPs", "flops", "FLOP", "OPs", "ops", "scalars", "elements", "s",
    "seconds", "sec", "tokens", "values", "words",
];

fn lex(text: &str) -> Result<Vec<(Tok, usize)>, ExprError> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let start = i;
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c.is_ascii_digit() || (c == '.' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit()))
        {
            let mut s = String::new();
            while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
                s.push(chars[i]);
                i += 1;
            }
            // exponent: e14, E-3 (only when digits follow, so `2e` stays 2·e)
            if matches!(chars.get(i), Some('e') | Some('E')) {
                let mut j = i + 1;
                if matches!(chars.get(j), Some('+') | Some('-')) {
                    j += 1;
                }
                if chars.get(j).is_some_and(|d| d.is_ascii_digit()) {
                    s.push('e');
                    s.extend(&chars[i + 1..j]);
                    i = j;
                    while i < chars.len() && chars[i].is_ascii_digit() {
                        s.push(chars[i]);
                        i += 1;
                    }
                }
            }
            let v: f64 = s
                .parse()
                .map_err(|_| err(format!("'{s}' is not a number"), Some(start)))?;
            if !v.is_finite() {
                return Err(err("a number is too large", Some(start)));
            }
            out.push((Tok::Num(v), start));
            continue;
        }
        if c.is_alphabetic() {
            let mut s = String::new();
            while i < chars.len() && (chars[i].is_alphanumeric()) {
                s.push(chars[i]);
                i += 1;
            }
            if chars.get(i) == Some(&'_') {
                s.push('_');
                i += 1;
                // A braced or TeX subscript: `W_{ici}`, `W_\text{ici}`,
                // `W_{\text{ici}}`, read as the symbol table reads it.
                if matches!(chars.get(i), Some('{' | '\\')) {
                    let from = i;
                    if chars[i] == '\\' {
                        // A TeX command (`\text`), then its braced argument.
                        i += 1;
                        while chars.get(i).is_some_and(char::is_ascii_alphabetic) {
                            i += 1;
                        }
                        if chars.get(i) != Some(&'{') {
                            return Err(err(
                                "a TeX subscript needs braces, as in W_\\text{ici}",
                                Some(start),
                            ));
                        }
                    }
                    let mut depth = 0usize;
                    while let Some(&c) = chars.get(i) {
                        i += 1;
                        match c {
                            '{' => depth += 1,
                            '}' => depth -= 1,
                            _ => {}
                        }
                        if depth == 0 {
                            break;
                        }
                    }
                    if depth > 0 {
                        return Err(err("unclosed '{' in a subscript", Some(start)));
                    }
                    let raw: String = chars[from..i].iter().collect();
                    s.push_str(&symbols::subscript(&raw));
                } else {
                    while i < chars.len() && chars[i].is_alphanumeric() {
                        s.push(chars[i]);
                        i += 1;
                    }
                }
                if s.ends_with('_') {
                    return Err(err("a subscript is empty", Some(start)));
                }
            }
            out.push((Tok::Ident(s), start));
            continue;
        }
        let tok = match c {
            '+' => Tok::Op('+'),
            '-' | '\u{2212}' => Tok::Op('-'),
            '*' if chars.get(i + 1) == Some(&'*') => {
                i += 1;
                Tok::Op('^')
            }
            '*' | '·' | '×' | '⋅' => Tok::Op('*'),
            '/' | '÷' => Tok::Op('/'),
            '^' => Tok::Op('^'),
            '(' | '[' => Tok::LParen,
            ')' | ']' => Tok::RParen,
            ',' => Tok::Comma,
            _ => return Err(err(format!("unexpected character '{c}'"), Some(start))),
        };
        out.push((tok, start));
        i += 1;
    }
    Ok(out)
}

struct Parser<'a> {
    toks: Vec<(Tok, usize)>,
    pos: usize,
    vars: &'a [&'a str],
    depth: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|(t, _)| t)
    }

    fn at(&self) -> Option<usize> {
        self.toks.get(self.pos).map(|(_, p)| *p)
    }

    fn enter(&mut self) -> Result<(), ExprError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            Err(err("the formula is nested too deeply", self.at()))
        } else {
            Ok(())
        }
    }

    fn expr(&mut self) -> Result<Expr, ExprError> {
        self.enter()?;
        let mut lhs = self.term()?;
        while let Some(Tok::Op(op @ ('+' | '-'))) = self.peek().cloned() {
            self.pos += 1;
            let rhs = self.term()?;
            lhs = Expr::Bin(op, Box::new(lhs), Box::new(rhs));
        }
        self.depth -= 1;
        Ok(lhs)
    }

    fn term(&mut self) -> Result<Expr, ExprError> {
        let mut lhs = self.unary()?;
        loop {
            match self.peek() {
                Some(Tok::Op(op @ ('*' | '/'))) => {
                    let op = *op;
                    self.pos += 1;
                    let rhs = self.unary()?;
                    lhs = Expr::Bin(op, Box::new(lhs), Box::new(rhs));
                }
                // implicit multiplication: 2BDF, N^2(1-1/D), (a)(b)
                Some(Tok::Num(_)) | Some(Tok::Ident(_)) | Some(Tok::LParen) => {
                    let rhs = self.power()?;
                    lhs = Expr::Bin('*', Box::new(lhs), Box::new(rhs));
                }
                _ => return Ok(lhs),
            }
        }
    }

    fn unary(&mut self) -> Result<Expr, ExprError> {
        self.enter()?;
        let e = match self.peek() {
            Some(Tok::Op('-')) => {
                self.pos += 1;
                Expr::Neg(Box::new(self.unary()?))
            }
            Some(Tok::Op('+')) => {
                self.pos += 1;
                self.unary()?
            }
            _ => self.power()?,
        };
        self.depth -= 1;
        Ok(e)
    }

    fn power(&mut self) -> Result<Expr, ExprError> {
        let base = self.primary()?;
        if self.peek() == Some(&Tok::Op('^')) {
            self.pos += 1;
            let exp = self.unary()?;
            return Ok(Expr::Bin('^', Box::new(base), Box::new(exp)));
        }
        Ok(base)
    }

    fn primary(&mut self) -> Result<Expr, ExprError> {
        self.enter()?;
        let at = self.at();
        let Some((tok, _)) = self.toks.get(self.pos).cloned() else {
            return Err(err("the formula ends too early", None));
        };
        self.pos += 1;
        let e = match tok {
            Tok::Num(v) => Expr::Num(v),
            Tok::LParen => {
                let e = self.expr()?;
                if self.peek() != Some(&Tok::RParen) {
                    return Err(err("missing ')'", self.at()));
                }
                self.pos += 1;
                e
            }
            Tok::Ident(name) => self.ident(&name, at)?,
            Tok::RParen => return Err(err("unexpected ')'", at)),
            Tok::Comma => return Err(err("unexpected ','", at)),
            Tok::Op(c) => return Err(err(format!("unexpected '{c}'"), at)),
        };
        self.depth -= 1;
        Ok(e)
    }

    fn ident(&mut self, name: &str, at: Option<usize>) -> Result<Expr, ExprError> {
        if let Some(i) = self.vars.iter().position(|v| *v == name) {
            return Ok(Expr::Var(i));
        }
        // Another spelling of a declared symbol (`W_ICI` for `W_ici`).
        if let Some(s) = symbols::lookup(name) {
            if let Some(i) = self.vars.iter().position(|v| *v == s.name) {
                return Ok(Expr::Var(i));
            }
        }
        // The book's subscripted symbols (`W_ici`, `W_link`) for a declared
        // bare one (`W`), where no declared variable carries a subscript: only
        // those the symbol table says specialise it.
        if let Some((base, _)) = name.split_once('_') {
            let subscripted = self.vars.iter().any(|v| v.starts_with(&format!("{base}_")));
            if !subscripted {
                if let Some(i) = self.vars.iter().position(|v| *v == base) {
                    return match symbols::refusal(name, base) {
                        None => Ok(Expr::Var(i)),
                        Some(why) => Err(err(why, at)),
                    };
                }
            }
        }
        let func = match name {
            "sqrt" => Some(Func::Sqrt),
            "max" => Some(Func::Max),
            "min" => Some(Func::Min),
            _ => None,
        };
        if let Some(f) = func {
            if self.peek() == Some(&Tok::LParen) {
                self.pos += 1;
                let mut args = vec![self.expr()?];
                while self.peek() == Some(&Tok::Comma) {
                    self.pos += 1;
                    args.push(self.expr()?);
                }
                if self.peek() != Some(&Tok::RParen) {
                    return Err(err(
                        format!("missing ')' after the arguments of {name}"),
                        self.at(),
                    ));
                }
                self.pos += 1;
                if f == Func::Sqrt && args.len() != 1 {
                    return Err(err("sqrt takes one argument", at));
                }
                return Ok(Expr::Call(f, args));
            }
        }
        // Implicit product of one-letter variables: BDF = B·D·F.
        if !name.contains('_') && name.chars().count() > 1 {
            let mut factors = Vec::new();
            for c in name.chars() {
                let s = c.to_string();
                match self.vars.iter().position(|v| *v == s) {
                    Some(i) => factors.push(Expr::Var(i)),
                    None => return Err(self.unknown(&s, name, at)),
                }
            }
            let mut it = factors.into_iter();
            let first = it.next().unwrap_or(Expr::Num(1.0));
            return Ok(it.fold(first, |acc, f| Expr::Bin('*', Box::new(acc), Box::new(f))));
        }
        Err(self.unknown(name, name, at))
    }

    fn unknown(&self, var: &str, word: &str, at: Option<usize>) -> ExprError {
        let allowed = if self.vars.is_empty() {
            "none (a number is expected)".to_string()
        } else {
            self.vars.join(", ")
        };
        let what = if var == word {
            format!("unknown variable '{var}'")
        } else {
            format!("unknown variable '{var}' in '{word}'")
        };
        err(format!("{what}; allowed: {allowed}"), at)
    }
}

/// Parses a formula over the declared variable names.
///
/// Never panics; an unreadable formula or an undeclared variable is an error
/// that lists the allowed variables.
pub fn parse_expr(text: &str, vars: &[&str]) -> Result<Expr, ExprError> {
    if text.len() > MAX_EXPR_LEN {
        return Err(err(
            format!("the formula is too long (more than {MAX_EXPR_LEN} characters)"),
            None,
        ));
    }
    let normal = normalize(text);
    let mut t = normal.trim();
    // `T_math = 2BDF/C` and `B > 120E/k`: grade the right-hand side, after
    // checking the left side and the direction.
    while let Some((lhs, rel, rhs)) = split_relation(t) {
        check_left_side(lhs.trim(), rel)?;
        t = rhs.trim();
    }
    for p in ["~", "≈", "≃"] {
        if let Some(rest) = t.strip_prefix(p) {
            t = rest.trim_start();
        }
    }
    let mut toks = lex(t)?;
    while let Some((Tok::Ident(w), _)) = toks.last() {
        if toks.len() > 1 && TRAILING_UNITS.contains(&w.as_str()) && !vars.contains(&w.as_str()) {
            toks.pop();
        } else {
            break;
        }
    }
    if toks.is_empty() {
        return Err(err("the formula is empty", None));
    }
    let mut p = Parser {
        toks,
        pos: 0,
        vars,
        depth: 0,
    };
    let e = p.expr()?;
    if p.pos < p.toks.len() {
        let at = p.at();
        return Err(err("unexpected text after the formula", at));
    }
    Ok(e)
}

/// How a reader's formula compares with the reference.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Equivalence {
    /// Equal at every sampled point.
    Equal,
    /// A constant multiple of the reference (the ratio reader / reference).
    ConstantRatio(f64),
    /// Different.
    Different,
}

/// Draws one point: a value for each variable.
pub fn sample(vars: &[Var], rng: &mut Rng) -> Vec<f64> {
    vars.iter()
        .map(|v| {
            let x = rng.range(v.min, v.max);
            if v.step > 0.0 {
                ((x / v.step).round() * v.step).clamp(v.min, v.max)
            } else {
                x
            }
        })
        .collect()
}

fn same(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= REL_TOL * a.abs().max(b.abs())
}

/// Compares `reader` with `reference` at [`POINTS`] random points of `vars`.
pub fn equivalence(
    reader: &Expr,
    reference: &dyn Fn(&[f64]) -> f64,
    vars: &[Var],
    seed: u64,
) -> Equivalence {
    let mut rng = Rng::new(seed);
    let mut equal = true;
    let mut ratio: Option<f64> = None;
    let mut constant = true;
    let mut compared = 0;
    for _ in 0..POINTS * 4 {
        if compared == POINTS {
            break;
        }
        let x = sample(vars, &mut rng);
        let want = reference(&x);
        if !want.is_finite() {
            continue;
        }
        compared += 1;
        let got = reader.eval(&x);
        if !got.is_finite() {
            return Equivalence::Different;
        }
        if !same(got, want) {
            equal = false;
        }
        if want == 0.0 {
            if got != 0.0 {
                constant = false;
            }
            continue;
        }
        let r = got / want;
        match ratio {
            None => ratio = Some(r),
            Some(r0) if !same(r, r0) => constant = false,
            _ => {}
        }
    }
    if compared == 0 {
        return Equivalence::Different;
    }
    if equal {
        Equivalence::Equal
    } else if let (true, Some(r)) = (constant, ratio) {
        Equivalence::ConstantRatio(r)
    } else {
        Equivalence::Different
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars() -> Vec<Var> {
        vec![
            Var::new("B", 1.0, 4096.0),
            Var::new("D", 2.0, 64.0),
            Var::new("F", 128.0, 65536.0),
            Var::new("N", 16.0, 4096.0),
            Var::new("W_ici", 1e10, 1e12),
        ]
    }

    fn check(a: &str, b: &str) -> Equivalence {
        let v = vars();
        let names: Vec<&str> = v.iter().map(|v| v.name.as_str()).collect();
        let ea = parse_expr(a, &names).unwrap_or_else(|e| panic!("{a}: {e}"));
        let eb = parse_expr(b, &names).unwrap_or_else(|e| panic!("{b}: {e}"));
        equivalence(&ea, &|x: &[f64]| eb.eval(x), &v, 3)
    }

    #[test]
    fn equivalent_spellings() {
        assert_eq!(check("2BDF", "2*B*D*F"), Equivalence::Equal);
        assert_eq!(check("BD + DF bytes", "D*(B+F)"), Equivalence::Equal);
        assert_eq!(check("N^2(1-1/D)", "N*N - N*N/D"), Equivalence::Equal);
        assert_eq!(
            check("~N^2/2 (1-1/D)", "(N**2/2)*(D-1)/D"),
            Equivalence::Equal
        );
        assert_eq!(
            check("T_math=2BDF/3.94e14", "2*B*D*F/394000000000000"),
            Equivalence::Equal
        );
        assert_eq!(check("4BD/W_ici", "4*B*D/W_{ici}"), Equivalence::Equal);
        assert_eq!(
            check(r"4BD/W_\text{ici}", r"4*B*D/W_{\text{ ici }}"),
            Equivalence::Equal
        );
        assert_eq!(check("4BD/W_ICI", "4*B*D/W_ici"), Equivalence::Equal);
        assert_eq!(
            check(r"T_\text{math} = 2BDF", "2*B*D*F"),
            Equivalence::Equal
        );
        assert_eq!(
            check("max(B, D) + sqrt(F^2)", "max(D,B)+F"),
            Equivalence::Equal
        );
        assert_eq!(check("-B + 2B", "B"), Equivalence::Equal);
    }

    #[test]
    fn multiples_and_differences() {
        assert_eq!(check("4BDF", "2BDF"), Equivalence::ConstantRatio(2.0));
        assert_eq!(check("BD + DF", "BD + DF + BF"), Equivalence::Different);
    }

    #[test]
    fn errors_are_precise() {
        let names = ["B", "D", "F"];
        let e = parse_expr("2BQF", &names).unwrap_err();
        assert_eq!(e.reason, "unknown variable 'Q' in 'BQF'; allowed: B, D, F");
        assert!(parse_expr("", &names).is_err());
        assert!(parse_expr("(B", &names).is_err());
        assert!(parse_expr("B +", &names).is_err());
        assert!(parse_expr("sqrt(B, D)", &names).is_err());
        let deep = "(".repeat(200) + "B" + &")".repeat(200);
        assert!(parse_expr(&deep, &names).is_err());
        assert!(parse_expr("B $ D", &names).is_err());
        assert!(parse_expr(r"B_\text{crit", &names).is_err());
        assert!(parse_expr(r"B_\text crit", &names).is_err());
        assert!(parse_expr("W_{}", &names).is_err());
    }

    #[test]
    fn subscripts_stand_for_a_bare_symbol_as_the_table_says() {
        let names = ["B", "D", "W"];
        let w = Expr::Var(2);
        for text in ["W_ici", "W_{link}", r"W_\text{hbm}", "W_gpu"] {
            assert_eq!(parse_expr(text, &names), Ok(w.clone()), "{text}");
        }
        let banana = parse_expr("2BD/W_banana", &names).unwrap_err();
        assert_eq!(
            banana.reason,
            "'W_banana' is not one of the book's symbols; write W or one of the \
             book's forms of it: W_hbm, W_ici, W_vmem, W_dcn, W_pcie, W_link, W_gpu, W_node, W_collective"
        );
        let weights = parse_expr("W_in", &names).unwrap_err();
        assert!(weights.reason.contains("weight matrix"), "{weights}");
        // A time is not a bandwidth, nor a batch size a width.
        assert!(parse_expr("B*D/T_math", &["B", "D", "T"]).is_ok());
        assert!(parse_expr("B*D_node", &names).is_err());
        // Where a subscripted variable is declared, the others are its own.
        assert!(parse_expr("W_hbm", &["W", "W_ici"]).is_err());
    }
}
