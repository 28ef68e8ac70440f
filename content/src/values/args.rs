//! Reading a value directive's arguments: the chip, model, format, link and
//! numbers it names, with the error message a chapter's author sees when one is
//! missing or wrong, and the formats the results are printed in.

use crate::directive::Directive;
use ridgeline_core::check::whole;
use ridgeline_core::dtype::Dtype;
use ridgeline_core::format::{grouped, sci, si};
use ridgeline_core::hardware::{chip, Chip, Link};
use ridgeline_core::model::config::{book_model, try_model, ModelConfig};
use ridgeline_core::units::FlopsPerSec;

/// The chip named by `chip=`, which the directive needs.
pub fn chip_arg(d: &Directive) -> Result<&'static Chip, String> {
    let id = d
        .arg("chip")
        .ok_or_else(|| format!("`{}` needs chip=", d.name))?;
    chip(id).ok_or_else(|| format!("unknown chip `{id}`"))
}

/// The number format named by `key=`, or `default` when it is not given.
pub fn dtype_arg(d: &Directive, key: &str, default: Dtype) -> Result<Dtype, String> {
    match d.arg(key) {
        None => Ok(default),
        Some(t) => Dtype::parse(t).ok_or_else(|| format!("unknown dtype `{t}`")),
    }
}

/// Chip `c`'s dense peak in the format `dtype=` names (bf16 by default).
pub fn peak_arg(d: &Directive, c: &Chip) -> Result<FlopsPerSec, String> {
    let dt = dtype_arg(d, "dtype", Dtype::Bf16)?;
    c.peak(dt)
        .ok_or_else(|| format!("{} has no {dt} peak", c.name))
}

/// The link named by `link=`, HBM when it is not given.
pub fn link_arg(d: &Directive) -> Result<Link, String> {
    match d.arg("link") {
        None => Ok(Link::Hbm),
        Some(t) => Link::parse(t).ok_or_else(|| format!("unknown link `{t}`")),
    }
}

/// The link named by `key=`, which the directive needs.
pub fn required_link_arg(d: &Directive, key: &str) -> Result<Link, String> {
    let t = d
        .arg(key)
        .ok_or_else(|| format!("`{}` needs {key}=", d.name))?;
    Link::parse(t).ok_or_else(|| format!("unknown link `{t}`"))
}

/// The positive, finite number given as `key=`, or `default` (an error when
/// there is none).
pub fn num_arg(d: &Directive, key: &str, default: Option<f64>) -> Result<f64, String> {
    match d.arg(key) {
        None => default.ok_or_else(|| format!("`{}` needs {key}=", d.name)),
        Some(t) => t
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite() && *x > 0.0)
            .ok_or_else(|| format!("{key}=`{t}` is not a positive number")),
    }
}

/// The whole number given as `key=` (or `default`), at most `max`, as the
/// count type `T` (a `max` beyond what `T` holds is refused, never wrapped).
pub fn whole_arg<T: TryFrom<u64>>(
    d: &Directive,
    key: &str,
    default: f64,
    max: f64,
) -> Result<T, String> {
    let x = num_arg(d, key, Some(default))?;
    match whole(x) {
        Some(n) if x.fract() == 0.0 && x <= max => Ok(n),
        _ => Err(format!("{key}=`{x}` is not a whole number up to {max}")),
    }
}

/// The number `x` given as `key=` as the count type `T`, toward zero: a value
/// `T` cannot hold is refused by name, never wrapped or cut.
pub fn count_of<T: TryFrom<u64>>(x: f64, key: &str) -> Result<T, String> {
    whole(x).ok_or_else(|| format!("{key}=`{x}` is not a count this directive can hold"))
}

/// The model named by `model=`, LLaMA 3-70B when it is not given: a published
/// preset, or one the book invents for its problems (`part7-problem`).
pub fn model_arg(d: &Directive) -> Result<ModelConfig, String> {
    let id = d.arg("model").unwrap_or("llama3-70b");
    match (try_model(id), book_model(id)) {
        (Ok(m), _) => Ok(m.config),
        (Err(_), Some(m)) => Ok(m.config),
        (Err(e), None) => Err(e.to_string()),
    }
}

/// The bandwidth of the link `link=` names on chip `c` (HBM by default), both
/// ways unless `dir=one-way` asks for the one-way figure.
pub fn bandwidth_arg(c: &Chip, d: &Directive) -> Result<f64, String> {
    let link = link_arg(d)?;
    let spec = c
        .link(link)
        .ok_or_else(|| format!("{} has no {} link", c.name, link.name()))?;
    match d.arg("dir") {
        None | Some("bidi") => Ok(spec.bandwidth.0),
        Some("one-way") => spec
            .one_way
            .map(|w| w.0)
            .ok_or_else(|| format!("{} {} has no separate one-way figure", c.name, link.name())),
        Some(o) => Err(format!("unknown dir `{o}` (bidi, one-way)")),
    }
}

/// Which of its results the directive shows: `show=`, or `default`.
pub fn show_arg<'a>(d: &'a Directive, default: &'a str) -> &'a str {
    d.arg("show").unwrap_or(default)
}

/// The error for a `show=` the directive does not know, listing the ones it does.
pub fn unknown_show(d: &Directive, what: &str, allowed: &str) -> String {
    format!("`{}`: unknown show=`{what}` ({allowed})", d.name)
}

/// `x` in the format `fmt=` asks for: `sci` (the default, `1.97e14`), `si`
/// (`197 TFLOPs/s`, with `unit`) or `int` (`197,000,000,000,000`).
pub fn fmt_value(d: &Directive, x: f64, unit: &str) -> Result<String, String> {
    match d.arg("fmt").unwrap_or("sci") {
        "sci" => Ok(sci(x, 3)),
        "si" => Ok(si(x, unit, 3)),
        "int" => Ok(grouped(x)),
        other => Err(format!("unknown fmt `{other}` (sci, si, int)")),
    }
}

/// A count in billions, as the book writes parameter counts (`70.6B`).
pub fn billions(x: f64) -> String {
    format!("{}B", sci(x / 1e9, 3))
}

/// Any error, as the message a chapter's author sees.
pub fn message(e: impl std::fmt::Display) -> String {
    e.to_string()
}
