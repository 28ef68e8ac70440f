//! What the app's build script generates from `chapters/`, in one function:
//! `app/build.rs` writes it into the app's `OUT_DIR`, and the site's build
//! hashes the WebAssembly half of it to tell whether a bundle must be rebuilt
//! (`ridgeline-site bundle-inputs`, used by `scripts/build.sh`).
//!
//! Only native builds (which write the static pages) carry the chapter bodies;
//! a wasm build carries each part's title, route and sections (for search and
//! the page's islands) but no body, so an edit to a chapter's prose changes
//! nothing a bundle is compiled from.
//!
//! The site ships one WebAssembly bundle per group of parts (`bundle=` in
//! SUMMARY.md). Each part is a Cargo feature of the app (`part0` … `part12`);
//! only the enabled parts get their chapter body, and only the widgets those
//! chapters use are compiled: `--cfg widget="NAME"` for each widget (its arm
//! of `widgets::widget_view`) and `--cfg widget_module="MODULE"` for each of
//! their modules (the `pub mod` line in `widgets/mod.rs`), so a bundle neither
//! compiles nor is rebuilt for another bundle's widgets.
//!
//! The exercises are the exception: their checker (the grader and all 328
//! problems) is about 100 KiB of gzip, more than most pages' own widgets, so it
//! ships in a bundle of its own (feature `exercises`), which a page loads only
//! when the reader reaches its problems. A page bundle therefore never compiles
//! the `exercise`/`exercises` widgets, and the exercises bundle compiles
//! nothing else. `cfg(page_islands)` marks a bundle that makes a page's own
//! islands live (any part enabled).
//!
//! A static figure (`Bundle::Static`) is compiled by every native build and
//! by no wasm build: the site's native build draws it into the page, and no
//! bundle mounts it, so it ships no code.
//!
//! The reader's library is the other exception, for the same reason: the
//! `own-model` and `own-chip` forms need the config.json import, the JSON chip
//! definition and the library file, so they ship in the library bundle
//! (feature `library`), loaded when the reader reaches them; page bundles read
//! only the compact index.
//!
//! ```
//! use ridgeline_content::app_build::{generate, Features};
//!
//! let chapters = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../chapters");
//! let rooflines = Features::parse("part1").unwrap();
//! let wasm = generate(&chapters, &rooflines, true).unwrap();
//! assert!(wasm.cfgs.iter().any(|c| c == "widget=\"roofline\""));
//! assert!(wasm.cfgs.iter().any(|c| c == "widget_module=\"roofline\""));
//! assert!(!wasm.cfgs.iter().any(|c| c == "widget_module=\"gpu\""));
//! assert!(!wasm.chapters.contains("Segment::Html"));
//! ```

use crate::render::{render_chapter, Rendered, Segment};
use crate::search;
use crate::summary::{parse_summary, DEFAULT_BUNDLE};
use crate::widgets::{widget, Bundle, WIDGETS};
use std::collections::{BTreeSet, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// The app's Cargo features that change what is generated.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Features {
    /// The enabled parts (`partN`).
    pub parts: BTreeSet<u8>,
    /// The exercise checker (`exercises`).
    pub exercises: bool,
    /// The reader's library (`library`).
    pub library: bool,
}

impl Features {
    /// Reads a Cargo feature list (`part5,part6 exercises`, commas or spaces);
    /// an unknown feature is an error.
    pub fn parse(list: &str) -> Result<Features, String> {
        let mut f = Features::default();
        for name in list.split([',', ' ']).filter(|s| !s.is_empty()) {
            match name {
                "exercises" => f.exercises = true,
                "library" => f.library = true,
                _ => {
                    let n = name
                        .strip_prefix("part")
                        .and_then(|n| n.parse::<u8>().ok())
                        .filter(|n| *n <= 12)
                        .ok_or_else(|| format!("unknown app feature {name:?}"))?;
                    f.parts.insert(n);
                }
            }
        }
        Ok(f)
    }

    /// The list [`Features::parse`] reads back: `part5 part6 exercises`.
    pub fn names(&self) -> String {
        let parts = self.parts.iter().map(|n| format!("part{n}"));
        let rest = [("exercises", self.exercises), ("library", self.library)]
            .into_iter()
            .filter(|(_, on)| *on)
            .map(|(name, _)| name.to_string());
        parts.chain(rest).collect::<Vec<_>>().join(" ")
    }
}

/// The generated sources of one build of the app.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Generated {
    /// `chapters.rs`: `PARTS`, `DIRECTIVE_WIDGETS` and `EXERCISE_IDS`.
    pub chapters: String,
    /// `widget_table.rs`: the widget table as a `register!` call, and `LIVE_STATUS`.
    pub widget_table: String,
    /// The `--cfg` flags the build sets (`widget="roofline"`, `page_islands`).
    pub cfgs: Vec<String>,
    /// The `cfg` names and values the build declares (`rustc-check-cfg`).
    pub check_cfgs: Vec<String>,
    /// Every file read, for `rerun-if-changed`.
    pub read: Vec<PathBuf>,
}

impl Generated {
    /// Everything of this generation that the compiler sees: two builds of a
    /// bundle from the same sources and the same `compiled()` are the same.
    pub fn compiled(&self) -> String {
        format!(
            "{}\n{}\n{}\n",
            self.chapters,
            self.widget_table,
            self.cfgs.join("\n")
        )
    }
}

/// The widget table (`crate::widgets`) as an invocation of the app's
/// `register!` macro, one entry per widget in the table's own form, and the
/// status attributes of the lazily started bundles among `used`.
fn widget_table(used: &BTreeSet<String>) -> String {
    let mut out = String::from("register! {\n");
    for w in WIDGETS {
        let _ = writeln!(
            out,
            "    {:?} => {}::{}({}) in {:?}, {:?}, {:?}, {:?};",
            w.name,
            w.module,
            w.component,
            w.params.unwrap_or_default(),
            w.module,
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
    let figures: Vec<&str> = Bundle::Static.widgets().map(|w| w.name).collect();
    let _ = writeln!(
        out,
        "/// The static figures: drawn when the native build writes a page, never mounted.\npub const STATIC: &[&str] = &{figures:?};"
    );
    out
}

/// One part of the book as a build of the app sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartData {
    /// The book's part number.
    pub number: u8,
    /// Title.
    pub title: String,
    /// Our route.
    pub slug: String,
    /// The book's own page for this part.
    pub book_url: String,
    /// Whether our chapter exists yet.
    pub written: bool,
    /// The WebAssembly bundle whose build carries this part's page.
    pub bundle: String,
    /// Whether this build carries the page (its part's feature is on).
    pub here: bool,
    /// Level-2 headings: (anchor id, text).
    pub sections: Vec<(String, String)>,
    /// The body (empty when the part is not `here`).
    pub segments: Vec<Segment>,
    /// The chapter's plain text, for search (empty when not written).
    pub text: String,
}

/// Every part, rendered for a build of the app with some features.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chapters {
    /// The parts, in SUMMARY.md order.
    pub parts: Vec<PartData>,
    /// The widgets this build mounts on its pages (`--cfg widget="NAME"`).
    pub used_widgets: BTreeSet<String>,
    /// Whether this build makes a page's own islands live (`cfg(page_islands)`).
    pub page_islands: bool,
    /// Whether this build carries the pages that are not parts (`cfg(site_pages)`).
    pub site_pages: bool,
    /// Every file read.
    pub read: Vec<PathBuf>,
}

/// A chapter rendered once per process, whatever the number of bundles that
/// load it: `ridgeline-site bundle-inputs` loads every chapter once per bundle
/// (fourteen times), and the live edit loop waits on it after each edit.
fn rendered_once(source: &str) -> Result<Rendered, String> {
    type Cache = Mutex<HashMap<String, Result<Rendered, String>>>;
    static DONE: OnceLock<Cache> = OnceLock::new();
    let cache = DONE.get_or_init(Cache::default);
    if let Some(r) = cache.lock().ok().and_then(|c| c.get(source).cloned()) {
        return r;
    }
    let r = render_chapter(source);
    if let Ok(mut c) = cache.lock() {
        c.insert(source.to_string(), r.clone());
    }
    r
}

/// Reads `chapters/SUMMARY.md` under `chapters` and renders every chapter it
/// lists for a build with `features` (math to MathML, value directives to
/// numbers). A chapter that does not render is an error naming the file.
pub fn load(chapters: &Path, features: &Features) -> Result<Chapters, String> {
    let mut read_files = Vec::new();
    let mut read = |name: &str| {
        let path = chapters.join(name);
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()));
        read_files.push(path);
        text
    };
    let summary = parse_summary(&read("SUMMARY.md")?)?;
    let enabled = |n: u8| features.parts.contains(&n);
    let all_enabled =
        summary.iter().all(|p| enabled(p.number)) && features.exercises && features.library;
    let mut used_widgets: BTreeSet<String> = BTreeSet::new();
    // Static figures are drawn by the native build only (see `generate`).
    if all_enabled {
        used_widgets.extend(
            WIDGETS
                .iter()
                .filter(|w| w.bundle != Bundle::Static)
                .map(|w| w.name.to_string()),
        );
    }
    if features.exercises {
        used_widgets.extend(Bundle::Exercises.widgets().map(|w| w.name.to_string()));
    }
    if features.library {
        used_widgets.extend(Bundle::Library.widgets().map(|w| w.name.to_string()));
    }
    let mut parts = Vec::new();
    for part in &summary {
        let here = enabled(part.number);
        let rendered = match &part.file {
            Some(file) => {
                Some(rendered_once(&read(file)?).map_err(|e| format!("chapters/{file}: {e}"))?)
            }
            None => None,
        };
        let (sections, mut segments, text) = match rendered {
            Some(r) => (r.sections, r.segments, r.text),
            None => (Vec::new(), Vec::new(), String::new()),
        };
        if !here {
            segments.clear();
        }
        for s in &segments {
            if let Segment::Widget(name, _) = s {
                // The lazily started bundles' widgets are theirs, not the page's.
                if widget(name).is_none_or(|w| w.bundle == Bundle::Page) {
                    used_widgets.insert(name.clone());
                }
            }
        }
        parts.push(PartData {
            number: part.number,
            title: part.title.clone(),
            slug: part.slug.clone(),
            book_url: part.book_url(),
            written: part.file.is_some(),
            bundle: part.bundle.clone(),
            here,
            sections,
            segments,
            text,
        });
    }
    // The pages that are not parts (progress, numbers) ship in the default
    // bundle only; other bundles reach them by a full navigation.
    let site_pages = all_enabled
        || summary
            .iter()
            .any(|p| enabled(p.number) && p.bundle == DEFAULT_BUNDLE);
    Ok(Chapters {
        parts,
        used_widgets,
        page_islands: summary.iter().any(|p| enabled(p.number)),
        site_pages,
        read: read_files,
    })
}

/// The app's generated sources for a build with `features`, for the browser
/// (`wasm`) or natively.
///
/// A wasm build carries `PARTS` without bodies. A native build (the page
/// writer, the tests) reads the chapters when it runs (`load`), so that an
/// edit to a chapter recompiles nothing; when every feature is on, its
/// generation reads no chapter at all (it mounts every widget).
pub fn generate(chapters: &Path, features: &Features, wasm: bool) -> Result<Generated, String> {
    let every_part = (0..=12).all(|n| features.parts.contains(&n));
    let c = if wasm || !(every_part && features.exercises && features.library) {
        load(chapters, features)?
    } else {
        Chapters {
            parts: Vec::new(),
            used_widgets: WIDGETS.iter().map(|w| w.name.to_string()).collect(),
            page_islands: true,
            site_pages: true,
            read: Vec::new(),
        }
    };
    let mut c = c;
    // A static figure is drawn when the native build writes the page and is
    // never mounted: every native build compiles them all, no wasm build any.
    if !wasm {
        c.used_widgets
            .extend(Bundle::Static.widgets().map(|w| w.name.to_string()));
    }
    let mut out = String::new();
    if wasm {
        out.push_str(
            "/// Every part of the book, in SUMMARY.md order.\npub static PARTS: &[PartPage] = &[\n",
        );
        for p in &c.parts {
            let _ = writeln!(
                out,
                "    PartPage {{ number: {}, title: {:?}, slug: {:?}, book_url: {:?}, written: {}, bundle: {:?}, here: {}, sections: &{:?}, segments: &[] }},",
                p.number, p.title, p.slug, p.book_url, p.written, p.bundle, p.here, p.sections,
            );
        }
        out.push_str("];\n");
    }
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
    let all_modules: BTreeSet<String> = WIDGETS.iter().map(|w| format!("{:?}", w.module)).collect();
    let check_cfgs = vec![
        format!("cfg(widget, values({}))", all_names.join(", ")),
        format!(
            "cfg(widget_module, values({}))",
            all_modules.into_iter().collect::<Vec<_>>().join(", ")
        ),
        "cfg(site_pages)".to_string(),
        "cfg(page_islands)".to_string(),
    ];
    let mut cfgs = Vec::new();
    if c.page_islands {
        cfgs.push("page_islands".to_string());
    }
    if c.site_pages {
        cfgs.push("site_pages".to_string());
    }
    cfgs.extend(c.used_widgets.iter().map(|name| format!("widget={name:?}")));
    let used_modules: BTreeSet<&str> = WIDGETS
        .iter()
        .filter(|w| c.used_widgets.contains(w.name))
        .map(|w| w.module)
        .collect();
    cfgs.extend(used_modules.iter().map(|m| format!("widget_module={m:?}")));
    Ok(Generated {
        chapters: out,
        widget_table: widget_table(&c.used_widgets),
        cfgs,
        check_cfgs,
        read: c.read,
    })
}

/// The search index of `parts` (`crate::search`), as the site ships it.
pub fn search_index(parts: &[PartData]) -> String {
    let entries: Vec<search::Entry> = parts
        .iter()
        .filter(|p| p.written)
        .map(|p| search::Entry {
            route: p.slug.clone(),
            number: p.number,
            title: p.title.clone(),
            sections: p.sections.clone(),
            text: p.text.clone(),
        })
        .collect();
    search::encode(&entries)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn chapters_copy(dir: &str) -> PathBuf {
        let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("../chapters");
        let to =
            std::env::temp_dir().join(format!("ridgeline-app-build-{dir}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&to);
        std::fs::create_dir_all(&to).unwrap();
        for e in std::fs::read_dir(&from).unwrap() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_file() {
                std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
            }
        }
        to
    }

    fn edit(dir: &Path, file: &str, from: &str, to: &str) {
        let path = dir.join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains(from), "{file} has no {from:?}");
        std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
    }

    #[test]
    fn features_read_cargo_lists_and_refuse_unknown_names() {
        let f = Features::parse("part5,part6 exercises").unwrap();
        assert_eq!(f.parts, BTreeSet::from([5, 6]));
        assert!(f.exercises && !f.library);
        assert_eq!(
            Features::parse("part13").unwrap_err().to_string(),
            "unknown app feature \"part13\"",
        );
        assert_eq!(
            Features::parse("parts").unwrap_err().to_string(),
            "unknown app feature \"parts\"",
        );
        assert_eq!(Features::parse("").unwrap(), Features::default());
    }

    /// The bundle cache keys on `compiled()` of the wasm generation: prose
    /// must leave it alone, a heading or a widget must change it, and what
    /// the page writer loads when it runs must see every edit.
    #[test]
    fn prose_edits_leave_the_wasm_generation_alone_and_headings_do_not() {
        let dir = chapters_copy("prose");
        let f = Features::parse("part1").unwrap();
        let wasm = generate(&dir, &f, true).unwrap().compiled();
        let loaded = load(&dir, &f).unwrap();

        edit(
            &dir,
            "01-rooflines.md",
            "\n\n",
            "\n\nA new sentence of prose.\n\n",
        );
        assert_eq!(generate(&dir, &f, true).unwrap().compiled(), wasm);
        let edited = load(&dir, &f).unwrap();
        assert_ne!(edited.parts[1].segments, loaded.parts[1].segments);
        assert!(edited.parts[1].text.contains("A new sentence of prose."));

        edit(&dir, "01-rooflines.md", "\n## ", "\n## Renamed ");
        assert_ne!(generate(&dir, &f, true).unwrap().compiled(), wasm);

        let dir2 = chapters_copy("widget");
        edit(&dir2, "01-rooflines.md", "\n\n", "\n\n{{widget gpu}}\n\n");
        let with = generate(&dir2, &f, true).unwrap();
        assert!(with.cfgs.iter().any(|c| c == "widget=\"gpu\""));
        assert_ne!(with.compiled(), wasm);
        let _ = std::fs::remove_dir_all(&dir);
        let _ = std::fs::remove_dir_all(&dir2);
    }

    #[test]
    fn feature_lists_read_back() {
        for list in [
            "",
            "part1",
            "part5 part6",
            "part0 part12 exercises library",
            "library",
        ] {
            assert_eq!(Features::parse(list).unwrap().names(), list);
        }
    }

    /// A static figure is compiled by every native build (the page writer
    /// draws it) and by no wasm build, even one with every feature on.
    #[test]
    fn static_figures_compile_natively_and_in_no_bundle() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../chapters");
        let all = Features::parse(
            "part0 part1 part2 part3 part4 part5 part6 part7 part8 part9 part10 part11 part12 exercises library",
        )
        .unwrap();
        let figures: Vec<&str> = Bundle::Static.widgets().map(|w| w.name).collect();
        assert!(figures.contains(&"spec-table"));
        for f in [all.clone(), Features::parse("part2").unwrap()] {
            let wasm = generate(&dir, &f, true).unwrap();
            let native = generate(&dir, &f, false).unwrap();
            for name in &figures {
                let cfg = format!("widget={name:?}");
                assert!(!wasm.cfgs.contains(&cfg), "{}: {cfg}", f.names());
                assert!(native.cfgs.contains(&cfg), "{}: {cfg}", f.names());
            }
            assert!(wasm
                .widget_table
                .contains("pub const STATIC: &[&str] = &[\"spec-table\""));
        }
        let wasm = generate(&dir, &all, true).unwrap();
        let modules: BTreeSet<&str> = WIDGETS.iter().map(|w| w.module).collect();
        let static_modules = Bundle::Static
            .widgets()
            .map(|w| w.module)
            .collect::<BTreeSet<_>>();
        assert_eq!(
            wasm.cfgs.len(),
            2 + WIDGETS.len() - figures.len() + modules.len() - static_modules.len()
        );
    }

    /// A native build with every feature reads no chapter: the page writer
    /// loads them when it runs, so a chapter edit recompiles nothing.
    #[test]
    fn the_full_native_build_reads_no_chapter() {
        let all = Features::parse(
            "part0 part1 part2 part3 part4 part5 part6 part7 part8 part9 part10 part11 part12 exercises library",
        )
        .unwrap();
        let missing = Path::new("/no/such/chapters");
        let g = generate(missing, &all, false).unwrap();
        assert!(g.read.is_empty());
        assert!(!g.chapters.contains("PARTS"));
        let modules: BTreeSet<&str> = WIDGETS.iter().map(|w| w.module).collect();
        assert_eq!(g.cfgs.len(), 2 + WIDGETS.len() + modules.len());
        assert_eq!(
            generate(missing, &all, true).unwrap_err().to_string(),
            "/no/such/chapters/SUMMARY.md: No such file or directory (os error 2)",
        );
        assert_eq!(
            generate(missing, &Features::parse("part1").unwrap(), false)
                .unwrap_err()
                .to_string(),
            "/no/such/chapters/SUMMARY.md: No such file or directory (os error 2)",
        );
    }

    #[test]
    fn the_search_index_has_every_written_part() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../chapters");
        let c = load(&dir, &Features::default()).unwrap();
        let index = search_index(&c.parts);
        assert_eq!(
            index.matches("rooflines").count() >= 1,
            c.parts.iter().any(|p| p.slug == "rooflines" && p.written)
        );
        // Each written part's number, title and sections travel with its
        // text: the search needs no contents table in the bundle.
        let decoded = search::decode(&index);
        let written: Vec<&PartData> = c.parts.iter().filter(|p| p.written).collect();
        assert_eq!(decoded.len(), written.len());
        for (e, p) in decoded.iter().zip(written) {
            assert_eq!(
                (&e.route, e.number, &e.title, &e.sections),
                (&p.slug, p.number, &p.title, &p.sections)
            );
            assert!(!e.sections.is_empty(), "{}", e.route);
        }
        assert!(
            c.parts.iter().all(|p| p.segments.is_empty()),
            "no part is here"
        );
    }

    #[test]
    fn a_chapter_that_does_not_render_names_its_file() {
        let dir = chapters_copy("broken");
        edit(
            &dir,
            "01-rooflines.md",
            "\n\n",
            "\n\n{{no-such-directive}}\n\n",
        );
        let e = generate(&dir, &Features::parse("part1").unwrap(), true).unwrap_err();
        assert!(e.contains("chapters/01-rooflines.md"), "{e}");
    }
}
