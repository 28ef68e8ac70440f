//! The numbers the pages print agree with the registry, and every problem of
//! the book has a place on its chapter's page.
//!
//! - Hardware: the spec table and the numbers page write each chip's peaks, HBM
//!   and link bandwidths with `core::format` (`sci(x, 3)`, `si(x, "B", 3)`); the
//!   chapters' value directives (`{{peak}}`, `{{hbm}}`, `{{bw}}`) must produce the
//!   same text, and that text must read back as the registry's number.
//! - Exercises: every id in `data/problems.json` is in core's exercise registry
//!   under its chapter, and that chapter's page (rendered by ridgeline-content)
//!   places `{{widget exercises chapter=N}}`, which lists the registry's problems
//!   of part N.

use ridgeline_content::directive::Directive;
use ridgeline_content::render::{render_chapter, Segment};
use ridgeline_content::summary::parse_summary;
use ridgeline_content::values::evaluate;
use ridgeline_core::dtype::Dtype;
use ridgeline_core::exercises::registry::defs;
use ridgeline_core::format::{sci, si};
use ridgeline_core::hardware::{Link, CHIPS};
use std::collections::BTreeMap;
use std::path::Path;

fn value(body: &str) -> String {
    let d = Directive::parse(body).unwrap_or_else(|e| panic!("{body}: {e}"));
    evaluate(&d).unwrap_or_else(|e| panic!("{body}: {e}"))
}

/// `printed` (a 3-significant-figure rendering) reads back as `registry`.
fn reads_back(printed: &str, registry: f64, what: &str) {
    let x: f64 = printed
        .trim()
        .parse()
        .unwrap_or_else(|_| panic!("{what}: “{printed}” is not a number"));
    assert!(
        (x - registry).abs() <= 5e-3 * registry.abs(),
        "{what}: printed {printed}, registry {registry}"
    );
}

/// A number as the book's tables write it: `8.2e11`, `32GB`, `192GB`.
fn book_number(cell: &str) -> f64 {
    let cell = cell.trim();
    match cell.strip_suffix("GB") {
        Some(gb) => gb.parse::<f64>().map(|x| x * 1e9),
        None => cell.parse::<f64>(),
    }
    .unwrap_or_else(|_| panic!("data/tpu-specs.md: {cell:?} is not a number"))
}

/// The rows of the book's TPU tables in `data/tpu-specs.md`, by chip name.
fn book_tpu_rows() -> Vec<Vec<String>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let text = std::fs::read_to_string(root.join("data/tpu-specs.md")).expect("data/tpu-specs.md");
    text.lines()
        .filter(|l| l.starts_with("| TPU"))
        .map(|l| {
            l.trim_matches('|')
                .split('|')
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect()
}

#[test]
fn printed_hardware_numbers_are_the_books_numbers() {
    // An independent source: the book's own tables. A number typed into the
    // registry or into a directive's evaluation by hand disagrees with them.
    let mut checked = 0;
    for row in book_tpu_rows() {
        let chip = CHIPS
            .iter()
            .find(|c| c.name == row[0])
            .unwrap_or_else(|| panic!("the registry has no {}", row[0]));
        let id = chip.id;
        let claims: Vec<(String, &str)> = if row.len() == 7 {
            vec![
                (format!("hbm chip={id}"), row[3].as_str()),
                (format!("bw chip={id} link=hbm"), row[4].as_str()),
                (format!("peak chip={id} dtype=bf16"), row[5].as_str()),
                (format!("peak chip={id} dtype=int8"), row[6].as_str()),
            ]
        } else {
            vec![
                (
                    format!("bw chip={id} link=ici dir=one-way"),
                    row[1].as_str(),
                ),
                (format!("bw chip={id} link=ici"), row[2].as_str()),
            ]
        };
        for (directive, book) in claims {
            reads_back(&value(&directive), book_number(book), &directive);
            checked += 1;
        }
    }
    assert_eq!(checked, 6 * 4 + 6 * 2, "every cell of both tables");
}

#[test]
fn printed_hardware_numbers_are_the_registry_numbers() {
    let mut checked = 0;
    for c in CHIPS {
        for p in c.peaks {
            let dt = p.dtype.name();
            assert_eq!(Dtype::parse(dt), Some(p.dtype), "{dt} does not parse back");
            let shown = sci(p.rate.0, 3);
            assert_eq!(
                value(&format!("peak chip={} dtype={dt}", c.id)),
                shown,
                "{} {dt} peak",
                c.id
            );
            reads_back(&shown, p.rate.0, &format!("{} {dt} peak", c.id));
            assert_eq!(c.peak(p.dtype).map(|r| r.0), Some(p.rate.0));
            checked += 1;
        }
        let hbm = c.hbm_capacity.value.0;
        assert_eq!(
            value(&format!("hbm chip={} fmt=si", c.id)),
            si(hbm, "B", 3),
            "{} HBM",
            c.id
        );
        reads_back(
            &value(&format!("hbm chip={}", c.id)),
            hbm,
            &format!("{} HBM", c.id),
        );
        checked += 1;
        for l in c.links {
            let name = l.link.name();
            assert_eq!(
                Link::parse(name),
                Some(l.link),
                "{name} does not parse back"
            );
            let shown = sci(l.bandwidth.0, 3);
            assert_eq!(
                value(&format!("bw chip={} link={name}", c.id)),
                shown,
                "{} {name}",
                c.id
            );
            reads_back(&shown, l.bandwidth.0, &format!("{} {name} bandwidth", c.id));
            if let Some(w) = l.one_way {
                let one = value(&format!("bw chip={} link={name} dir=one-way", c.id));
                assert_eq!(one, sci(w.0, 3), "{} {name} one way", c.id);
                reads_back(&one, w.0, &format!("{} {name} one-way bandwidth", c.id));
            }
            checked += 1;
        }
    }
    assert!(checked > 3 * CHIPS.len());
}

#[test]
fn every_problem_is_placed_on_its_chapters_page() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let problems: Vec<serde_json::Value> = serde_json::from_str(
        &std::fs::read_to_string(root.join("data/problems.json")).expect("data/problems.json"),
    )
    .expect("problems.json parses");
    let registry: BTreeMap<&str, u8> = defs().iter().map(|d| (d.id, d.chapter)).collect();

    // Which part each chapter page lists the problems of.
    let summary = std::fs::read_to_string(root.join("chapters/SUMMARY.md")).expect("SUMMARY.md");
    let mut listed: BTreeMap<u8, u8> = BTreeMap::new();
    for part in parse_summary(&summary).expect("SUMMARY.md parses") {
        let Some(file) = part.file else { continue };
        let source = std::fs::read_to_string(root.join("chapters").join(&file)).expect("chapter");
        let rendered = render_chapter(&source).unwrap_or_else(|e| panic!("{file}: {e}"));
        for seg in &rendered.segments {
            if let Segment::Widget(name, args) = seg {
                if name == "exercises" {
                    let n: u8 = args
                        .iter()
                        .find(|(k, _)| k == "chapter")
                        .and_then(|(_, v)| v.parse().ok())
                        .unwrap_or_else(|| panic!("{file}: exercises without chapter="));
                    assert_eq!(n, part.number, "{file} lists the problems of part {n}");
                    assert!(listed.insert(n, part.number).is_none(), "{file}: two lists");
                }
            }
        }
    }
    for n in [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12] {
        assert!(
            listed.contains_key(&n),
            "no chapter page lists the problems of part {n}"
        );
    }

    assert!(!problems.is_empty());
    for p in &problems {
        let id = p["id"].as_str().expect("id");
        let chapter = p["chapter"].as_u64().expect("chapter") as u8;
        assert_eq!(
            registry.get(id),
            Some(&chapter),
            "{id} is not in the registry under part {chapter}"
        );
        assert!(
            listed.contains_key(&chapter),
            "{id}: part {chapter}'s page lists no problems"
        );
    }
}
