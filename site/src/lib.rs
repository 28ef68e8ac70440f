//! # ridgeline-site
//!
//! Writes the static site: one HTML document per route of
//! `chapters/SUMMARY.md` (home, every part, progress, numbers, measured, 404), each
//! rendered natively by the app's own Leptos components (`ssr`), with the
//! whole chapter text, its MathML, every widget's figure drawn as inline SVG
//! with its verdict and numbers, the exercise questions and the navigation. A
//! reader without JavaScript, a printer and a search engine get the complete
//! chapter; when the page's WebAssembly bundle starts, its islands come alive
//! in place (see `ridgeline_app::islands`).
//!
//! The build (`scripts/build.sh`) compiles each bundle (cargo, wasm-bindgen,
//! wasm-opt, esbuild) into `_b/<bundle>/`, then [`write_site`] turns those builds and the chapters into
//! the site: pages, stylesheet, the small scripts (theme, start), the service
//! worker, and a gzip and a brotli copy of every compressible file.
//!
//! ```text
//! cargo run -p ridgeline-site -- bundles              # "name features" per bundle, for build.sh
//! cargo run -p ridgeline-site -- write DIR [--public-url /sub/]
//! cargo run -p ridgeline-site -- pages DIR            # no bundles: what a reader without JavaScript gets
//! ```
//!
//! Each chart box of a page also gets a copy of its chart drawn at a phone's
//! width, as a file of its own that only readers without JavaScript load
//! ([`figures`]).

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

pub mod compress;
pub mod figures;
pub mod mathfont;
pub mod pages;
pub mod scripts;

#[cfg(test)]
mod fit;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use ridgeline_content::summary::{
    bundles, parse_summary, Part, DEFAULT_BUNDLE, EXERCISES_BUNDLE, LIBRARY_BUNDLE,
};

/// Everything that can stop the site from being written, as a sentence.
pub type Error = String;

/// The repository's root (this crate's parent folder).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// Reads a file, naming it in the error.
pub fn read(path: &Path) -> Result<String, Error> {
    std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// Writes a file (creating its folder), naming it in the error.
pub fn write(path: &Path, contents: impl AsRef<[u8]>) -> Result<(), Error> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::write(path, contents).map_err(|e| format!("{}: {e}", path.display()))
}

/// Renders every chapter `chapters/SUMMARY.md` lists, and names each problem
/// found as `chapters/FILE: line N: …`, one per line: a directive or formula
/// that does not render, a number typed into prose (`ridgeline_content::lint`).
/// The live edit loop shows these in the page.
pub fn check_chapters() -> Result<(), Error> {
    let dir = ridgeline_app::content::chapters_dir();
    let mut problems = Vec::new();
    for part in parts()? {
        let Some(file) = &part.file else { continue };
        let source = read(&dir.join(file))?;
        // The renderer runs the lint, and names each problem on a line of its own.
        if let Err(e) = ridgeline_content::render::render_chapter(&source) {
            problems.extend(e.lines().map(|l| format!("chapters/{file}: {l}")));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

/// The parts of the book, from `chapters/SUMMARY.md` (in
/// `$RIDGELINE_CHAPTERS` when set: `ridgeline_app::content::chapters_dir`).
pub fn parts() -> Result<Vec<Part>, Error> {
    parse_summary(&read(
        &ridgeline_app::content::chapters_dir().join("SUMMARY.md"),
    )?)
}

/// One line per bundle, `name features` (features comma-separated), for the
/// build script's bundle loop: the page bundles, then the exercise checker and
/// the reader's library.
pub fn bundle_lines(parts: &[Part]) -> String {
    let mut out = String::new();
    for (name, members) in bundles(parts) {
        let features: Vec<String> = members
            .iter()
            .map(|p| format!("part{}", p.number))
            .collect();
        let _ = writeln!(out, "{name} {}", features.join(","));
    }
    let _ = writeln!(out, "{EXERCISES_BUNDLE} exercises");
    let _ = writeln!(out, "{LIBRARY_BUNDLE} library");
    out
}

/// A bundle's files as `scripts/build.sh` wrote them, and the boot module
/// that starts it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bundle {
    /// Its name (`bundle=` in SUMMARY.md).
    pub name: String,
    /// The boot module, site-relative (`_b/main/boot-….js`).
    pub boot: String,
    /// The wasm-bindgen JS module, site-relative.
    pub js: String,
    /// The wasm, site-relative.
    pub wasm: String,
}

/// The stem every bundle's files share: `ridgeline-app-<hash>.js` and
/// `ridgeline-app-<hash>_bg.wasm`, as `scripts/build.sh` names them.
const BUNDLE_STEM: &str = "ridgeline-app-";

/// Adopts the build of bundle `name` in `site/_b/name/` (its wasm-bindgen
/// module and wasm, named by their content's hash) and writes its boot module,
/// `boot-<hash>.js`, which loads the wasm from under `public_url` and starts
/// it (a file, since the pages' Content-Security-Policy forbids inline
/// scripts). The boot module leaves the module's exports on
/// `window.wasmBindings` for the benchmark (`app/src/bench.rs`); it names
/// the global `globalThis`, so the library bundle's boot module also starts
/// the trace viewer's worker (`app/src/widgets/trace_viewer/worker.rs`).
pub fn adopt_bundle(site: &Path, name: &str, public_url: &str) -> Result<Bundle, Error> {
    let dir = site.join("_b").join(name);
    let entries =
        std::fs::read_dir(&dir).map_err(|e| format!("bundle {name}: {}: {e}", dir.display()))?;
    let mut files: Vec<String> = entries
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|f| f.starts_with(BUNDLE_STEM))
        .collect();
    files.sort_unstable();
    let only = |suffix: &str| -> Result<String, Error> {
        let found: Vec<&String> = files.iter().filter(|f| f.ends_with(suffix)).collect();
        match found.as_slice() {
            [one] => Ok((*one).clone()),
            [] => Err(format!(
                "bundle {name}: no {BUNDLE_STEM}*{suffix} in {}",
                dir.display()
            )),
            many => Err(format!(
                "bundle {name}: {} files {BUNDLE_STEM}*{suffix}, one expected",
                many.len()
            )),
        }
    };
    let wasm = only("_bg.wasm")?;
    let js = only(".js")?;
    let prefix = format!("{public_url}_b/{name}/");
    let script = format!(
        "import init, * as bindings from '{prefix}{js}';\n\
         await init({{ module_or_path: '{prefix}{wasm}' }});\n\
         globalThis.wasmBindings = bindings;\n"
    );
    let boot_name = format!("boot-{}.js", scripts::short_hash(script.as_bytes()));
    write(&dir.join(&boot_name), &script)?;
    Ok(Bundle {
        name: name.to_string(),
        boot: format!("_b/{name}/{boot_name}"),
        js: format!("_b/{name}/{js}"),
        wasm: format!("_b/{name}/{wasm}"),
    })
}

/// Writes the whole site into `site`, which already holds one build per
/// bundle in `_b/<bundle>/`. `public_url` is the path the site is served
/// under (`/` or `/sub/`).
///
/// `compress` writes the precompressed copies a static host serves (the live
/// edit loop's server sends files as they are, and goes without).
pub fn write_site(site: &Path, public_url: &str, compress: bool) -> Result<Summary, Error> {
    // A chapter that does not render is named here, before any page is written,
    // and so is a malformed measurement.
    ridgeline_app::content::load()?;
    ridgeline_content::measured::page()?;
    let parts = parts()?;
    let mut built: BTreeMap<String, Bundle> = BTreeMap::new();
    for (name, _) in bundles(&parts) {
        let bundle = adopt_bundle(site, &name, public_url)?;
        built.insert(name, bundle);
    }
    let exercises = adopt_bundle(site, EXERCISES_BUNDLE, public_url)?;
    let library = adopt_bundle(site, LIBRARY_BUNDLE, public_url)?;
    let root = repo_root();
    let assets = scripts::write_assets(site, &root, &figures::css())?;
    // The bundles are compressed first: the offline control states what they cost.
    let bundle_files = if compress {
        compress::compress_tree(&site.join("_b"))?
    } else {
        0
    };
    let offline_bytes = compress::gzip_size_of_tree(&site.join("_b"))?;
    let ctx = pages::Context {
        public_url: public_url.to_string(),
        assets,
        bundles: built,
        default_bundle: DEFAULT_BUNDLE.to_string(),
        exercises,
        library,
        offline_bytes,
    };
    let written = pages::write_pages(site, &parts, &ctx)?;
    scripts::write_service_worker(site, public_url, &written.paths)?;
    let compressed = bundle_files
        + if compress {
            compress::compress_tree(site)?
        } else {
            0
        };
    Ok(Summary {
        pages: written.paths.len(),
        figures: written.figures.len(),
        compressed,
    })
}

/// Writes the pages, the stylesheet, the small scripts and the narrow chart
/// copies into `site` without any bundle (no page names a script bundle):
/// the site as a reader without JavaScript gets it, written without compiling a bundle,
/// for measuring pages and for trying the no-JavaScript tests. Returns each
/// page's sizes.
pub fn write_static(site: &Path) -> Result<Vec<PageSizes>, Error> {
    ridgeline_app::content::load()?;
    ridgeline_content::measured::page()?;
    let parts = parts()?;
    let assets = scripts::write_assets(site, &repo_root(), &figures::css())?;
    let ctx = pages::Context {
        public_url: "/".to_string(),
        assets,
        bundles: BTreeMap::new(),
        default_bundle: DEFAULT_BUNDLE.to_string(),
        exercises: Bundle {
            name: EXERCISES_BUNDLE.to_string(),
            boot: String::new(),
            js: String::new(),
            wasm: String::new(),
        },
        library: Bundle {
            name: LIBRARY_BUNDLE.to_string(),
            boot: String::new(),
            js: String::new(),
            wasm: String::new(),
        },
        offline_bytes: 0.0,
    };
    pages::write_pages(site, &parts, &ctx)?;
    let gz = |bytes: &[u8]| compress::gzip(bytes).len();
    let mut sizes = Vec::new();
    for route in pages::Route::all() {
        let html = read(&site.join(route.file()))?;
        let (mut without, mut figures) = (String::new(), Vec::new());
        let mut rest = html.as_str();
        while let Some(at) = rest.find("<noscript><img class=\"narrow-static\" src=\"/") {
            without.push_str(&rest[..at]);
            let tag = &rest[at..];
            let end = tag
                .find("</noscript>")
                .map_or(tag.len(), |e| e + "</noscript>".len());
            let src = &tag["<noscript><img class=\"narrow-static\" src=\"/".len()..];
            figures.push(read(&site.join(src.split('"').next().unwrap_or_default()))?);
            rest = &tag[end..];
        }
        without.push_str(rest);
        sizes.push(PageSizes {
            file: route.file(),
            html_gzip_without: gz(without.as_bytes()),
            html_gzip: gz(html.as_bytes()),
            figures: figures.len(),
            figure_bytes: figures.iter().map(String::len).sum(),
            figure_gzip: figures.iter().map(|f| gz(f.as_bytes())).sum(),
        });
    }
    Ok(sizes)
}

/// One page's bytes, as [`write_static`] measured them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageSizes {
    /// The page's file.
    pub file: String,
    /// Its HTML, gzip, without the `<noscript>` images of its narrow copies.
    pub html_gzip_without: usize,
    /// Its HTML, gzip, as written.
    pub html_gzip: usize,
    /// Its narrow chart copies.
    pub figures: usize,
    /// Their bytes.
    pub figure_bytes: usize,
    /// Their bytes, each gzip-compressed.
    pub figure_gzip: usize,
}

/// What [`write_site`] wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Summary {
    /// HTML documents.
    pub pages: usize,
    /// Narrow chart copies (`_f/`).
    pub figures: usize,
    /// Files given a gzip and a brotli copy.
    pub compressed: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundle_lines_name_every_part_once() {
        let parts = parts().expect("SUMMARY.md parses");
        let lines = bundle_lines(&parts);
        let mut features: Vec<&str> = lines
            .lines()
            .flat_map(|l| {
                l.split_once(' ')
                    .map(|(_, f)| f.split(','))
                    .into_iter()
                    .flatten()
            })
            .collect();
        features.sort_unstable();
        let mut expected: Vec<String> = parts.iter().map(|p| format!("part{}", p.number)).collect();
        expected.push("exercises".to_string());
        expected.push("library".to_string());
        expected.sort_unstable();
        assert_eq!(features, expected);
        assert!(lines.starts_with("main "), "{lines}");
        assert!(
            lines.ends_with("\nexercises exercises\nlibrary library\n"),
            "{lines}"
        );
    }

    #[test]
    fn adopts_a_bundle_and_writes_its_boot_module() {
        let dir = std::env::temp_dir().join(format!("ridgeline-adopt-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let b = dir.join("_b/x");
        let e = adopt_bundle(&dir, "x", "/sub/").unwrap_err().to_string();
        assert!(e.starts_with("bundle x: ") && e.contains("_b/x"), "{e}");
        write(&b.join("ridgeline-app-1a2b.js"), "export default 1;").expect("temp dir");
        let e = adopt_bundle(&dir, "x", "/sub/").unwrap_err().to_string();
        assert_eq!(
            e,
            format!("bundle x: no ridgeline-app-*_bg.wasm in {}", b.display())
        );
        write(&b.join("ridgeline-app-1a2b_bg.wasm"), "\0asm").expect("temp dir");
        let bundle = adopt_bundle(&dir, "x", "/sub/").expect("adopts");
        assert_eq!(bundle.js, "_b/x/ridgeline-app-1a2b.js");
        assert_eq!(bundle.wasm, "_b/x/ridgeline-app-1a2b_bg.wasm");
        assert!(bundle.boot.starts_with("_b/x/boot-") && bundle.boot.ends_with(".js"));
        let boot = read(&dir.join(&bundle.boot)).expect("boot written");
        assert_eq!(
            boot,
            "import init, * as bindings from '/sub/_b/x/ridgeline-app-1a2b.js';\n\
             await init({ module_or_path: '/sub/_b/x/ridgeline-app-1a2b_bg.wasm' });\n\
             globalThis.wasmBindings = bindings;\n"
        );
        // A stale second build beside the first is refused, not guessed between.
        write(&b.join("ridgeline-app-9f9f.js"), "export default 2;").expect("temp dir");
        let e = adopt_bundle(&dir, "x", "/sub/").unwrap_err().to_string();
        assert_eq!(e, "bundle x: 2 files ridgeline-app-*.js, one expected");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
