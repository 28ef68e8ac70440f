//! Renders every chapter listed in `chapters/SUMMARY.md` to HTML at build time
//! (math to MathML, value directives to numbers from `ridgeline-core`) and writes
//! them as Rust statics the app includes. A chapter that does not render is a
//! build error naming the file and line.
//!
//! Only native builds (which write the static pages) carry the chapter bodies;
//! a wasm build carries each part's title, route and sections (for search and
//! the page's islands) but no body.
//!
//! The site ships one WebAssembly bundle per group of parts (`bundle=` in
//! SUMMARY.md). Each part is a Cargo feature (`part0` … `part12`); only the
//! enabled parts get their chapter body, and only the widgets those chapters use
//! are compiled into `widgets::widget_view`, through `--cfg widget="NAME"`.
//!
//! The exercises are the exception: their checker (the grader and all 308
//! problems) is about 100 KiB of gzip, more than most pages' own widgets, so it
//! ships in a bundle of its own (Cargo feature `exercises`), which a page loads
//! only when the reader reaches its problems. A page bundle therefore never
//! compiles the `exercise`/`exercises` widgets, and the exercises bundle
//! compiles nothing else. `cfg(page_islands)` marks a bundle that makes a
//! page's own islands live (any part enabled).
//!
//! The reader's library is the other exception, for the same reason: the
//! `own-model` and `own-chip` forms need the config.json import, the JSON chip
//! definition and the library file (serde_json and the unit parser), so they
//! ship in the library bundle (Cargo feature `library`), loaded when the reader
//! reaches them; page bundles read only the compact index.

use ridgeline_content::render::{render_chapter, Segment};
use ridgeline_content::search;
use ridgeline_content::summary::{parse_summary, DEFAULT_BUNDLE};
use ridgeline_content::widgets::{Bundle, WIDGETS};
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;

/// The widget table (`ridgeline_content::widgets`) as an invocation of the
/// app's `register!` macro, one entry per widget in the table's own form,
/// and the status attributes of the lazily started bundles among `used`.
fn widget_table(used: &BTreeSet<String>) -> String {
    let mut out = String::from("register! {\n");
    for w in WIDGETS {
        let _ = writeln!(
            out,
            "    {:?} => {}::{}({}), {:?}, {:?}, {:?};",
            w.name,
            w.module,
            w.component,
            w.params.unwrap_or_default(),
            w.bundle,
            w.args,
            w.doc
        );
    }
    out.push_str("}\n");
    let live: Vec<&str> = Bundle::LAZY
        .into_iter()
        .filter(|b| b.widgets().any(|w| used.contains(w.name)))
        .filter_map(Bundle::status)
        .collect();
    let _ = writeln!(
        out,
        "/// The root's attributes that say this bundle's lazily started part is live.\npub const LIVE_STATUS: &[&str] = &{live:?};"
    );
    out
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../chapters");
    println!("cargo:rerun-if-changed={}", root.display());
    let read = |name: &str| {
        let path = root.join(name);
        println!("cargo:rerun-if-changed={}", path.display());
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    };
    let parts = parse_summary(&read("SUMMARY.md")).unwrap_or_else(|e| panic!("{e}"));
    let wasm = std::env::var("TARGET").is_ok_and(|t| t.starts_with("wasm32"));
    let enabled = |n: u8| std::env::var_os(format!("CARGO_FEATURE_PART{n}")).is_some();
    let exercises = std::env::var_os("CARGO_FEATURE_EXERCISES").is_some();
    let library = std::env::var_os("CARGO_FEATURE_LIBRARY").is_some();
    let all_enabled = parts.iter().all(|p| enabled(p.number)) && exercises && library;
    let mut used_widgets: BTreeSet<String> = BTreeSet::new();
    if all_enabled {
        used_widgets.extend(WIDGETS.iter().map(|w| w.name.to_string()));
    }
    if exercises {
        used_widgets.extend(Bundle::Exercises.widgets().map(|w| w.name.to_string()));
    }
    if library {
        used_widgets.extend(Bundle::Library.widgets().map(|w| w.name.to_string()));
    }
    let mut texts: Vec<(String, String)> = Vec::new();
    let mut out = String::from(
        "/// Every part of the book, in SUMMARY.md order.\npub static PARTS: &[PartPage] = &[\n",
    );
    for part in &parts {
        let here = enabled(part.number);
        let rendered = part.file.as_ref().map(|file| {
            render_chapter(&read(file)).unwrap_or_else(|e| panic!("chapters/{file}: {e}"))
        });
        let (sections, segments) = match &rendered {
            Some(r) => (r.sections.clone(), r.segments.clone()),
            None => (Vec::new(), Vec::new()),
        };
        if let Some(r) = &rendered {
            texts.push((part.slug.clone(), r.text.clone()));
        }
        let mut segs = String::new();
        for s in segments.iter().filter(|_| here) {
            match s {
                // The browser never renders a chapter (its page is static
                // HTML): only native builds, which write the pages, carry it.
                Segment::Html(_) if wasm => {}
                Segment::Html(h) => {
                    let _ = write!(segs, "Segment::Html({h:?}),");
                }
                Segment::Widget(name, args) => {
                    let lazy = ridgeline_content::widgets::widget(name)
                        .is_some_and(|w| w.bundle != Bundle::Page);
                    if !lazy {
                        used_widgets.insert(name.clone());
                    }
                    if !wasm {
                        let _ = write!(segs, "Segment::Widget({name:?}, &{args:?}),");
                    }
                }
            }
        }
        let _ = writeln!(
            out,
            "    PartPage {{ number: {}, title: {:?}, slug: {:?}, book_url: {:?}, written: {}, bundle: {:?}, here: {here}, sections: &{:?}, segments: &[{}] }},",
            part.number,
            part.title,
            part.slug,
            part.book_url(),
            part.file.is_some(),
            part.bundle,
            sections,
            segs,
        );
    }
    out.push_str("];\n");
    let names: Vec<&str> = WIDGETS.iter().map(|w| w.name).collect();
    let _ = writeln!(
        out,
        "/// Every widget directive the chapters may use (from `ridgeline-content`).\npub static DIRECTIVE_WIDGETS: &[&str] = &{names:?};"
    );
    let ids: Vec<(&str, u8)> = ridgeline_core::exercises::registry::defs()
        .iter()
        .map(|d| (d.id, d.chapter))
        .collect();
    let _ = writeln!(
        out,
        "/// Every exercise of the book (id, part), in book order, whichever parts this bundle solves.\npub static EXERCISE_IDS: &[(&str, u8)] = &{ids:?};"
    );
    let all_names: Vec<String> = WIDGETS.iter().map(|w| format!("{:?}", w.name)).collect();
    println!(
        "cargo::rustc-check-cfg=cfg(widget, values({}))",
        all_names.join(", ")
    );
    // The pages that are not parts (progress, numbers) ship in the default
    // bundle only; other bundles reach them by a full navigation.
    println!("cargo::rustc-check-cfg=cfg(site_pages)");
    println!("cargo::rustc-check-cfg=cfg(page_islands)");
    if parts.iter().any(|p| enabled(p.number)) {
        println!("cargo::rustc-cfg=page_islands");
    }
    if all_enabled
        || parts
            .iter()
            .any(|p| enabled(p.number) && p.bundle == DEFAULT_BUNDLE)
    {
        println!("cargo::rustc-cfg=site_pages");
    }
    for name in &used_widgets {
        println!("cargo::rustc-cfg=widget={name:?}");
    }
    let out_dir = std::env::var("OUT_DIR").expect("OUT_DIR is set by cargo");
    let dest = Path::new(&out_dir).join("chapters.rs");
    std::fs::write(&dest, out).unwrap_or_else(|e| panic!("{}: {e}", dest.display()));
    let dest = Path::new(&out_dir).join("widget_table.rs");
    std::fs::write(&dest, widget_table(&used_widgets))
        .unwrap_or_else(|e| panic!("{}: {e}", dest.display()));
    // The search index ships beside the site (see `site-manifest`); this copy
    // is for the app's own tests.
    let entries: Vec<(&str, &str)> = texts
        .iter()
        .map(|(s, t)| (s.as_str(), t.as_str()))
        .collect();
    let dest = Path::new(&out_dir).join("search-index.txt");
    std::fs::write(&dest, search::encode(&entries))
        .unwrap_or_else(|e| panic!("{}: {e}", dest.display()));
}
