//! # ridgeline-content
//!
//! The companion's chapters are Markdown files under `chapters/`, ordered by
//! `chapters/SUMMARY.md`. This crate turns them into HTML at build time: math
//! becomes MathML, value directives (`{{ridge chip=v5e}}`) become numbers
//! computed by `ridgeline-core`, and widget directives (`{{widget roofline}}`)
//! become slots the app fills with live components. It runs natively (in the
//! app's build script and in tests), never in the browser.
//!
//! ```
//! use ridgeline_content::render::render_chapter;
//!
//! let page = render_chapter("# Hi\n\nv5e: {{peak chip=v5e fmt=si}}.\n").unwrap();
//! assert!(page.html.contains("197 TFLOPs/s"));
//! ```

// Counts never pass through a silent `as`: a float becomes a count through
// `ridgeline_core::check::whole`, an integer narrows through `try_from`, and the
// few casts left carry an `allow` saying why they are in range. Unit tests are
// exempt: their casts are of the constants they choose.
#![cfg_attr(
    not(test),
    warn(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        clippy::cast_possible_wrap
    )
)]

pub mod app_build;
pub mod coverage;
pub mod directive;
pub mod html;
pub mod lint;
pub mod measured;
pub mod ngrams;
pub mod render;
pub mod search;
pub mod summary;
pub mod values;
pub mod widgets;
