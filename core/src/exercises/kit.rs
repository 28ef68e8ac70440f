//! Helpers every part's exercises share: building definitions, reading
//! parameters, looking up the registry, shaping solutions. Always compiled; the
//! `partN` modules each sit behind their own Cargo feature, so with only some
//! parts compiled some helpers go unused; with all of them, none may.
#![cfg_attr(
    not(all(
        feature = "part1",
        feature = "part2",
        feature = "part3",
        feature = "part4",
        feature = "part5",
        feature = "part6",
        feature = "part7",
        feature = "part8",
        feature = "part9",
        feature = "part10",
        feature = "part12"
    )),
    allow(dead_code)
)]

use std::sync::Arc;

use super::def::{chosen, n, value, Answer, Def, Kind, Param, Reference, Solution};
use super::expr::Var;
use crate::dtype::Dtype;
use crate::hardware::{chip, Chip, Link};
use crate::model::config::{model, ModelPreset};
use crate::units::{FlopsPerSec, Intensity};

/// Any error as text.
pub(super) fn s<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// A definition with the usual defaults (the chapter is read from the id).
pub(super) fn def(
    id: &'static str,
    kind: Kind,
    params: &'static [Param],
    prompt: fn(&[Param]) -> String,
    solve: fn(&[Param]) -> Result<Solution, String>,
    hints: &'static [&'static str],
) -> Def {
    let chapter = id
        .trim_start_matches("ch")
        .split('-')
        .next()
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    Def {
        id,
        chapter,
        kind,
        params,
        prompt,
        solve,
        hints,
        correction: None,
        book_gave_answer: true,
    }
}

/// The same definition with a correction of the book's answer.
pub(super) fn fix(d: Def, why: &'static str) -> Def {
    Def {
        correction: Some(why),
        ..d
    }
}

/// The same definition, marked as one the book leaves unanswered.
pub(super) fn unanswered(d: Def) -> Def {
    Def {
        book_gave_answer: false,
        ..d
    }
}

/// Looks up the chip chosen by parameter `name`.
pub(super) fn chip_param(p: &[Param], name: &str) -> Result<&'static Chip, String> {
    let id = chosen(p, name)?;
    chip(id).ok_or_else(|| format!("no chip {id} in the registry"))
}

/// The registry chip `id`.
pub(super) fn reg(id: &str) -> Result<&'static Chip, String> {
    chip(id).ok_or_else(|| format!("no chip {id} in the registry"))
}

/// The chosen chip's name, for prompts.
pub(super) fn name(p: &[Param]) -> &'static str {
    chip_param(p, "chip").map_or("chip", |c| c.name)
}

/// A chip's peak for a number format, or why it has none.
pub(super) fn peak(c: &Chip, d: Dtype) -> Result<FlopsPerSec, String> {
    c.peak(d)
        .ok_or_else(|| format!("{} has no {d} peak in the registry", c.name))
}

/// A chip's ridge point over `link`, or why it has none.
pub(super) fn ridge(c: &Chip, d: Dtype, link: Link) -> Result<Intensity, String> {
    c.ridge(d, link)
        .ok_or_else(|| format!("{} has no {d} peak or {} bandwidth", c.name, link.name()))
}

/// The number format chosen by parameter `name`.
pub(super) fn dtype(p: &[Param], name: &str) -> Result<Dtype, String> {
    let d = chosen(p, name)?;
    Dtype::parse(d).ok_or_else(|| format!("unknown format {d}"))
}

/// The model preset chosen by parameter `name`.
pub(super) fn model_param(p: &[Param], name: &str) -> Result<&'static ModelPreset, String> {
    let id = chosen(p, name)?;
    model(id).ok_or_else(|| format!("no model {id} among the presets"))
}

/// A model's name and shape, for prompts: `LLaMA-2 13B (L = 40, D = 5,120, …)`.
pub(super) fn describe(m: &ModelPreset) -> String {
    let c = &m.config;
    format!(
        "{} (L = {}, D = {}, F = {}, N = {}, K = {}, H = {}, V = {}, {} MLP)",
        m.name,
        n(c.layers as f64),
        n(c.d_model as f64),
        n(c.d_ff as f64),
        n(c.heads as f64),
        n(c.kv_heads as f64),
        n(c.head_dim as f64),
        n(c.vocab as f64),
        if c.gated { "gated" } else { "two-matrix" }
    )
}

/// A whole-number parameter (0 if not positive).
pub(super) fn int(p: &[Param], name: &str) -> u64 {
    let v = value(p, name);
    if (1.0..1e15).contains(&v) {
        crate::check::whole(v.round()).unwrap_or(0)
    } else {
        0
    }
}

/// A whole-number parameter as a `u32` (0 if not positive or too large), for
/// the mesh axes, rings and pod counts that take one.
pub(super) fn int32(p: &[Param], name: &str) -> u32 {
    u32::try_from(int(p, name)).unwrap_or(0)
}

/// A numeric solution with one derivation line, graded with the policy's
/// precision for its unit.
pub(super) fn num(v: f64, unit: &'static str, line: String) -> Solution {
    Solution::numeric(v, unit).step(line)
}

/// A multiple choice: options and the correct id.
pub(super) fn pick(options: &[(&'static str, String)], correct: &'static str) -> Solution {
    Solution::new(Answer::Choice {
        options: options.to_vec(),
        correct,
    })
}

/// A reference formula for symbolic grading.
pub(super) fn reference(f: impl Fn(&[f64]) -> f64 + Send + Sync + 'static) -> Reference {
    Reference(Arc::new(f))
}

/// The three matmul variables with the book's usual ranges.
pub(super) fn bdf() -> Vec<Var> {
    vec![
        Var::stepped("B", 1.0, 4096.0, 1.0),
        Var::stepped("D", 128.0, 16384.0, 128.0),
        Var::stepped("F", 128.0, 65536.0, 128.0),
    ]
}
