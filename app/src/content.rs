//! The chapters, from `chapters/`: in the browser, each part's title, route
//! and sections, written by `build.rs` at build time; natively (the page
//! writer, the tests), every part with its body, rendered when first needed
//! ([`load`]), so that an edit to a chapter recompiles nothing.

/// A run of a chapter's body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Segment {
    /// Static HTML produced at build time from our own Markdown.
    Html(&'static str),
    /// A widget to mount: its directive name and `key=value` arguments.
    Widget(&'static str, &'static [(&'static str, &'static str)]),
}

/// One part of the book as the companion presents it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartPage {
    /// The book's part number.
    pub number: u8,
    /// Title.
    pub title: &'static str,
    /// Route, relative to the site's base.
    pub slug: &'static str,
    /// The book's own page for this part.
    pub book_url: &'static str,
    /// Whether our chapter exists yet.
    pub written: bool,
    /// The WebAssembly bundle whose build carries this part's page.
    pub bundle: &'static str,
    /// Whether this build carries the page (else `segments` is empty and the
    /// router loads the part's own bundle with a full navigation).
    pub here: bool,
    /// Level-2 headings: (anchor id, text).
    pub sections: &'static [(&'static str, &'static str)],
    /// The body (empty when the part is not `here`).
    pub segments: &'static [Segment],
}

include!(concat!(env!("OUT_DIR"), "/chapters.rs"));

impl PartPage {
    /// The title of the part's page (its document's, and what a citation names).
    pub fn page_title(&self) -> String {
        format!("Part {}. {} — ridgeline", self.number, self.title)
    }
}

/// Every part of the book, in SUMMARY.md order: read and rendered from
/// `chapters/` when first used (see [`load`]).
#[cfg(not(target_arch = "wasm32"))]
pub static PARTS: Parts = Parts;

/// The parts a native build reads when it runs; derefs to [`load`]'s slice.
#[cfg(not(target_arch = "wasm32"))]
#[derive(Debug, Clone, Copy)]
pub struct Parts;

#[cfg(not(target_arch = "wasm32"))]
impl std::ops::Deref for Parts {
    type Target = [PartPage];
    fn deref(&self) -> &[PartPage] {
        load().unwrap_or_else(|e| panic!("{e}"))
    }
}

/// The folder the chapters are read from: `$RIDGELINE_CHAPTERS`, else the
/// repository's `chapters/`.
#[cfg(not(target_arch = "wasm32"))]
pub fn chapters_dir() -> std::path::PathBuf {
    std::env::var_os("RIDGELINE_CHAPTERS").map_or_else(
        || std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../chapters"),
        std::path::PathBuf::from,
    )
}

/// The Cargo features of this build, as `build.rs` found them.
#[cfg(not(target_arch = "wasm32"))]
fn features() -> ridgeline_content::app_build::Features {
    // build.rs writes the list with `Features::names`, which `parse` reads back.
    ridgeline_content::app_build::Features::parse(env!("RIDGELINE_FEATURES")).unwrap_or_default()
}

/// Reads and renders every chapter of [`chapters_dir`] once per process
/// (math to MathML, value directives to numbers from `ridgeline-core`), or
/// says which chapter does not render and why. The page writer calls it
/// first, to report a broken chapter rather than panic in a page.
#[cfg(not(target_arch = "wasm32"))]
pub fn load() -> Result<&'static [PartPage], String> {
    loaded().map(|(parts, _)| parts)
}

/// The search index of the written parts (`ridgeline_content::search`), as
/// the site ships it, from the chapters [`load`] reads.
#[cfg(not(target_arch = "wasm32"))]
pub fn search_index() -> Result<&'static str, String> {
    loaded().map(|(_, index)| index)
}

#[cfg(not(target_arch = "wasm32"))]
type Loaded = (&'static [PartPage], &'static str);

#[cfg(not(target_arch = "wasm32"))]
fn loaded() -> Result<Loaded, String> {
    use ridgeline_content::render::Segment as Rendered;
    static LOADED: std::sync::OnceLock<Loaded> = std::sync::OnceLock::new();
    if let Some(l) = LOADED.get() {
        return Ok(*l);
    }
    // The pages live as long as the process (one site build): leaking them
    // gives the `'static` borrows the browser build's statics have.
    fn keep(s: String) -> &'static str {
        Box::leak(s.into_boxed_str())
    }
    fn keep_all<T>(v: Vec<T>) -> &'static [T] {
        Box::leak(v.into_boxed_slice())
    }
    let chapters = ridgeline_content::app_build::load(&chapters_dir(), &features())?;
    let index = keep(ridgeline_content::app_build::search_index(&chapters.parts));
    let parts = chapters
        .parts
        .into_iter()
        .map(|p| PartPage {
            number: p.number,
            title: keep(p.title),
            slug: keep(p.slug),
            book_url: keep(p.book_url),
            written: p.written,
            bundle: keep(p.bundle),
            here: p.here,
            sections: keep_all(
                p.sections
                    .into_iter()
                    .map(|(a, b)| (keep(a), keep(b)))
                    .collect(),
            ),
            segments: keep_all(
                p.segments
                    .into_iter()
                    .map(|s| match s {
                        Rendered::Html(h) => Segment::Html(keep(h)),
                        Rendered::Widget(name, args) => Segment::Widget(
                            keep(name),
                            keep_all(args.into_iter().map(|(k, v)| (keep(k), keep(v))).collect()),
                        ),
                    })
                    .collect(),
            ),
        })
        .collect();
    Ok(*LOADED.get_or_init(|| (keep_all(parts), index)))
}

/// The part with route `slug`.
pub fn part(slug: &str) -> Option<&'static PartPage> {
    PARTS.iter().find(|p| p.slug == slug)
}

/// Whether `id` is one of the book's exercises (in any bundle).
pub fn is_exercise(id: &str) -> bool {
    EXERCISE_IDS.iter().any(|(known, _)| *known == id)
}

/// The written parts before and after `page`, for previous/next links.
pub fn neighbours(page: &PartPage) -> (Option<&'static PartPage>, Option<&'static PartPage>) {
    let i = PARTS.iter().position(|p| p.slug == page.slug);
    match i {
        Some(i) => (
            PARTS[..i].iter().rev().find(|p| p.written),
            PARTS[i + 1..].iter().find(|p| p.written),
        ),
        None => (None, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_thirteen_parts_are_listed_in_order() {
        let numbers: Vec<u8> = PARTS.iter().map(|p| p.number).collect();
        assert_eq!(numbers.len(), 13);
        let mut sorted = numbers.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted, (0..=12).collect::<Vec<u8>>());
        assert!(part("rooflines").is_some_and(|p| p.written));
    }

    #[test]
    fn the_exercise_list_matches_the_solvers() {
        let ids: Vec<&str> = EXERCISE_IDS.iter().map(|(id, _)| *id).collect();
        assert_eq!(ids, ridgeline_core::exercises::covered_ids());
        assert_eq!(ids.len(), 328);
        assert!(is_exercise("ch1-ex2") && !is_exercise("ch1-nope"));
    }

    #[test]
    fn the_app_has_a_component_for_every_widget_directive() {
        let mut directives: Vec<&str> = DIRECTIVE_WIDGETS.to_vec();
        let mut components: Vec<&str> = crate::widgets::NAMES.to_vec();
        directives.sort_unstable();
        components.sort_unstable();
        assert_eq!(directives, components);
    }

    #[test]
    fn every_widget_in_a_chapter_exists() {
        for p in PARTS.iter() {
            for s in p.segments {
                if let Segment::Widget(name, _) = s {
                    assert!(
                        crate::widgets::NAMES.contains(name),
                        "{} uses unknown widget {name}",
                        p.slug
                    );
                }
            }
        }
    }
}
