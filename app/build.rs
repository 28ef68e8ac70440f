//! Writes the app's generated sources for this build's features:
//! `chapters.rs` (in a wasm build, every part's title, route and sections from
//! `chapters/`) and `widget_table.rs` (the widget table as a `register!` call),
//! and sets `--cfg widget="NAME"` for the widgets the build mounts. What is
//! generated, and why each bundle compiles only its parts' widgets, is
//! `ridgeline_content::app_build`. A chapter that does not render is a build
//! error naming the file and line. A native build with every feature reads no
//! chapter: it loads them when it runs (`content::load`).

use ridgeline_content::app_build::{generate, Features};
use std::path::Path;

fn main() {
    let chapters = Path::new(env!("CARGO_MANIFEST_DIR")).join("../chapters");
    let mut features = Features {
        exercises: std::env::var_os("CARGO_FEATURE_EXERCISES").is_some(),
        library: std::env::var_os("CARGO_FEATURE_LIBRARY").is_some(),
        ..Features::default()
    };
    features.parts = (0..=12)
        .filter(|n| std::env::var_os(format!("CARGO_FEATURE_PART{n}")).is_some())
        .collect();
    // The native app reads the chapters of these features when it runs.
    println!("cargo::rustc-env=RIDGELINE_FEATURES={}", features.names());
    let wasm = std::env::var("TARGET").is_ok_and(|t| t.starts_with("wasm32"));
    let g = generate(&chapters, &features, wasm).unwrap_or_else(|e| panic!("{e}"));
    // Without a rerun-if-changed line Cargo would run this again on any
    // change to the app's own files; with one, only when that file changes.
    println!("cargo:rerun-if-changed=build.rs");
    if !g.read.is_empty() {
        println!("cargo:rerun-if-changed={}", chapters.display());
    }
    for path in &g.read {
        println!("cargo:rerun-if-changed={}", path.display());
    }
    for c in &g.check_cfgs {
        println!("cargo::rustc-check-cfg={c}");
    }
    for c in &g.cfgs {
        println!("cargo::rustc-cfg={c}");
    }
    let out_dir = std::env::var("OUT_DIR").expect("OUT_DIR is set by cargo");
    let out_dir = Path::new(&out_dir);
    for (file, text) in [
        ("chapters.rs", &g.chapters),
        ("widget_table.rs", &g.widget_table),
    ] {
        let dest = out_dir.join(file);
        std::fs::write(&dest, text).unwrap_or_else(|e| panic!("{}: {e}", dest.display()));
    }
}
