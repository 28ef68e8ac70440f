//! The chapters, rendered at build time by `build.rs` from `chapters/`.

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
        assert_eq!(ids.len(), 308);
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
        for p in PARTS {
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
