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
