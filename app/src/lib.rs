//! # ridgeline-app
//!
//! The companion's front end. The same Leptos components serve twice: at build
//! time `ridgeline-site` renders every page with them natively (Leptos `ssr`)
//! into static HTML with every figure drawn, and in the browser this crate,
//! compiled to WebAssembly (`csr`), makes the page's islands live
//! ([`islands::start`]). Widgets are thin components over `ridgeline-core`,
//! drawing with plotters into inline SVG.
//!
//! Layout: [`pages`] renders whole pages (at build time); [`islands`] mounts
//! the live parts; [`widgets`] holds one module per widget directive;
//! [`charts`] draws without knowing about signals; [`input`] validates
//! everything a reader types.

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

pub mod backups;
/// Benchmark entry points, in the bundles that carry the emulator or the
/// serving simulator.
#[cfg(any(widget = "sharding", widget = "serving-engine"))]
pub mod bench;
pub mod charts;
pub mod content;
pub mod input;
pub mod islands;
pub mod library;
pub mod pages;
pub mod progress;
pub mod shell;
pub mod widgets;
