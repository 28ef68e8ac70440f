//! Value directives: every number a chapter's prose shows, computed by `core`.
//!
//! A chapter never types a hardware or model number itself: it writes
//! `{{ridge chip=v5e}}` and the build inserts `240`. Each directive is declared
//! once, as one [`ValueDirective`] row (name, arguments, what it computes, an
//! example and the function that evaluates it) in the table of its domain; the
//! domains are core's folders:
//!
//! - [`scenario`]: numbers a chapter chooses for an example (`input`);
//! - [`hardware`]: one chip's peaks, bandwidths, memory, MXU, torus and pod;
//! - [`roofline`]: ridge points, critical batches, intensities, strong scaling;
//! - [`comms`]: latency knees, collectives compared, collective matmuls;
//! - [`model`]: a preset's parameters, dimensions, KV cache, MoE and remat;
//! - [`training`]: parallelism thresholds, splits, bubbles, Part 6's run;
//! - [`plan`]: Part 6's splits per pod and run times on any number of chips;
//! - [`inference`]: serving memory, step times, metrics and simulations;
//! - [`profiling`]: arrays padded to whole tiles;
//! - [`gpu`]: Part 12's GPU thresholds and facts;
//! - [`exercise`]: the answers of registered exercises, for worked problems.
//!
//! [`evaluate`] finds a directive's row in [`DOMAINS`], checks its arguments and
//! runs it; `args` holds the argument readers every domain shares.
//!
//! ```
//! use ridgeline_content::directive::Directive;
//! use ridgeline_content::values::evaluate;
//!
//! let d = Directive::parse("ridge chip=v5e dtype=bf16").unwrap();
//! assert_eq!(evaluate(&d).unwrap(), "240");
//! let d = Directive::parse("time flops=1e12 chip=h100").unwrap();
//! assert_eq!(evaluate(&d).unwrap(), "1.01 ms");
//! ```

mod args;
pub mod comms;
mod entry;
pub mod exercise;
pub mod gpu;
pub mod hardware;
pub mod inference;
pub mod model;
pub mod plan;
pub mod profiling;
pub mod roofline;
pub mod scenario;
#[cfg(test)]
mod tests;
pub mod training;

use crate::directive::Directive;
pub use entry::ValueDirective;

/// Every domain's table of value directives, in the book's order.
pub const DOMAINS: &[&[ValueDirective]] = &[
    scenario::VALUES,
    hardware::VALUES,
    roofline::VALUES,
    comms::VALUES,
    model::VALUES,
    training::VALUES,
    plan::VALUES,
    inference::VALUES,
    profiling::VALUES,
    gpu::VALUES,
    exercise::VALUES,
];

/// Every value directive, domain by domain.
pub fn all() -> impl Iterator<Item = &'static ValueDirective> {
    DOMAINS.iter().flat_map(|domain| domain.iter())
}

/// The value directive called `name`, if there is one.
pub fn find(name: &str) -> Option<&'static ValueDirective> {
    all().find(|v| v.name == name)
}

/// Evaluates a value directive to the text the reader sees.
///
/// Arguments that drive a formula out of range (a dimension of `1e-308` whose
/// intensity is `0/0`) are rejected with a message rather than shown as `NaN`.
pub fn evaluate(d: &Directive) -> Result<String, String> {
    let value = find(&d.name).ok_or_else(|| format!("unknown value directive `{}`", d.name))?;
    d.check_args(value.args)?;
    if !d.positional.is_empty() {
        return Err(format!("`{}` takes only key=value arguments", d.name));
    }
    let text = (value.eval)(d)?;
    // Every formatter writes a non-finite number with one of these.
    if ["NaN", "inf", "∞", "—"]
        .iter()
        .any(|bad| text.contains(bad))
    {
        return Err(format!("{d} has no finite value ({text})"));
    }
    Ok(text)
}
