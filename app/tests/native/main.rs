//! The app's native tests, in one binary (each test binary links the whole
//! app, a few hundred megabytes in a debug build): the chart widgets as the
//! static pages draw them, the static controls, and the input fuzzers.
//!
//! `cargo test -p ridgeline-app --test native -- charts --nocapture` prints
//! the size of each widget's figures.
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod charts;
mod fuzz;
mod render_fuzz;
mod static_controls;
