//! Scenario inputs: numbers a chapter chooses for an example (a batch of 1,024
//! sequences, an MFU of 40%), printed the way core prints its results so the
//! prose reads alike (see [`crate::lint`], which insists on them).

use super::entry::ValueDirective;
use crate::directive::Directive;
use ridgeline_core::format::{grouped, sci};

/// The scenario-input directive.
pub const VALUES: &[ValueDirective] = &[ValueDirective {
    name: "input",
    args: &["value", "unit", "name"],
    doc: "a scenario input the chapter chooses for an example (not a result): value=1024 \
          unit=sequences, printed through core::format; name= says what it is",
    example: "input value=1024 unit=sequences name=batch",
    shows: "1,024 sequences",
    eval: input,
}];

/// Whole numbers grouped (`1,024`), others in the book's notation (`0.5`,
/// `1.5e13`); `%` and `x` follow the number directly, and `_` in a unit is a
/// space (`unit=trillion_tokens`).
fn input(d: &Directive) -> Result<String, String> {
    let text = d.arg("value").ok_or("`input` needs value=")?;
    let x: f64 = text
        .parse()
        .ok()
        .filter(|x: &f64| x.is_finite())
        .ok_or_else(|| format!("input value=`{text}` is not a number"))?;
    let number = if x.fract() == 0.0 && x.abs() < 1e7 {
        grouped(x)
    } else {
        sci(x, 3)
    };
    Ok(match d.arg("unit") {
        None => number,
        Some(u @ ("%" | "x" | "×")) => format!("{number}{u}"),
        Some(u) => format!("{number} {}", u.replace('_', " ")),
    })
}
