//! Renders every chapter listed in `chapters/SUMMARY.md` to HTML at build time
//! (math to MathML, value directives to numbers from `ridgeline-core`) and writes
//! them as Rust statics the app includes. A chapter that does not render is a
//! build error naming the file and line.

use ridgeline_content::render::{render_chapter, Segment};
use ridgeline_content::summary::parse_summary;
use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../chapters");
    println!("cargo:rerun-if-changed={}", root.display());
    let read = |name: &str| {
        let path = root.join(name);
        println!("cargo:rerun-if-changed={}", path.display());
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    };
    let parts = parse_summary(&read("SUMMARY.md")).unwrap_or_else(|e| panic!("{e}"));
    let mut out = String::from(
        "/// Every part of the book, in SUMMARY.md order.\npub static PARTS: &[PartPage] = &[\n",
    );
    for part in &parts {
        let rendered = part.file.as_ref().map(|file| {
            render_chapter(&read(file)).unwrap_or_else(|e| panic!("chapters/{file}: {e}"))
        });
        let (sections, segments, text) = match &rendered {
            Some(r) => (r.sections.clone(), r.segments.clone(), r.text.clone()),
            None => (Vec::new(), Vec::new(), String::new()),
        };
        let mut segs = String::new();
        for s in &segments {
            match s {
                Segment::Html(h) => {
                    let _ = write!(segs, "Segment::Html({h:?}),");
                }
                Segment::Widget(name, args) => {
                    let _ = write!(segs, "Segment::Widget({name:?}, &{args:?}),");
                }
            }
        }
        let _ = writeln!(
            out,
            "    PartPage {{ number: {}, title: {:?}, slug: {:?}, book_url: {:?}, written: {}, sections: &{:?}, segments: &[{}], text: {:?} }},",
            part.number,
            part.title,
            part.slug,
            part.book_url(),
            part.file.is_some(),
            sections,
            segs,
            text,
        );
    }
    out.push_str("];\n");
    let names: Vec<&str> = ridgeline_content::widgets::WIDGETS
        .iter()
        .map(|w| w.name)
        .collect();
    let _ = writeln!(
        out,
        "/// Every widget directive the chapters may use (from `ridgeline-content`).\npub static DIRECTIVE_WIDGETS: &[&str] = &{names:?};"
    );
    let dest =
        Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR is set by cargo")).join("chapters.rs");
    std::fs::write(&dest, out).unwrap_or_else(|e| panic!("{}: {e}", dest.display()));
}
