//! Every key-point coverage map (`chapters/coverage/NN-slug.md` in the format
//! of `ridgeline_content::coverage`) has one row for each key point of its
//! part's checklist (`chapters/coverage/keypoints/partNN.md`) and no other, and
//! every place a row names is on the chapter's rendered page: a heading id of
//! the chapter, a widget directive it uses, or an exercise registered for the
//! part and listed on the page.

use ridgeline_content::coverage::{checklist_ids, is_keypoint_map, parse_map, Place};
use ridgeline_content::render::{render_chapter, Segment};
use ridgeline_content::summary::parse_summary;
use ridgeline_core::exercises::registry::defs;
use std::collections::BTreeSet;
use std::path::Path;

const CHAPTERS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../chapters");

/// What one map's rows fail to match on its page, one line each.
fn check_map(file: &str, map: &str, checklist: &str, chapter: &str, part: u8) -> Vec<String> {
    let mut bad = Vec::new();
    let rows = match parse_map(map) {
        Ok(rows) => rows,
        Err(e) => return vec![format!("{file}: {e}")],
    };
    let page = match render_chapter(chapter) {
        Ok(p) => p,
        Err(e) => return vec![format!("{file}: the chapter does not render: {e}")],
    };
    let widgets: BTreeSet<&str> = page
        .segments
        .iter()
        .filter_map(|s| match s {
            Segment::Widget(n, _) => Some(n.as_str()),
            Segment::Html(_) => None,
        })
        .collect();
    let listed = |id: &str| {
        page.segments.iter().any(|s| match s {
            Segment::Widget(n, args) => {
                (n == "exercises"
                    && args
                        .iter()
                        .any(|(k, v)| k == "chapter" && v == &part.to_string()))
                    || (n == "exercise" && args.iter().any(|(k, v)| k == "id" && v == id))
            }
            Segment::Html(_) => false,
        })
    };
    let registered: BTreeSet<&str> = defs()
        .iter()
        .filter(|d| d.chapter == part)
        .map(|d| d.id)
        .collect();
    let want = checklist_ids(checklist);
    if want.is_empty() {
        bad.push(format!("{file}: the checklist has no key points"));
    }
    let mut seen = BTreeSet::new();
    for row in &rows {
        if !seen.insert(row.id.as_str()) {
            bad.push(format!("{file}: {} has two rows", row.id));
        }
        if !want.contains(&row.id) {
            bad.push(format!("{file}: {} is not in the checklist", row.id));
        }
        for place in &row.places {
            let ok = match place {
                Place::Heading(id) => ["h1", "h2", "h3", "h4"]
                    .iter()
                    .any(|h| page.html.contains(&format!("<{h} id=\"{id}\">"))),
                Place::Widget(w) => widgets.contains(w.as_str()),
                Place::Exercise(e) => registered.contains(e.as_str()) && listed(e),
            };
            if !ok {
                bad.push(format!("{file}: {}: {place:?} is not on the page", row.id));
            }
        }
    }
    for id in &want {
        if !seen.contains(id.as_str()) {
            bad.push(format!("{file}: no row for {id}"));
        }
    }
    bad
}

#[test]
fn every_key_point_has_a_row_naming_places_on_its_page() {
    let dir = Path::new(CHAPTERS).join("coverage");
    let summary = std::fs::read_to_string(format!("{CHAPTERS}/SUMMARY.md")).expect("SUMMARY.md");
    let parts = parse_summary(&summary).expect("SUMMARY.md parses");
    let mut maps = 0;
    let mut bad = Vec::new();
    for part in &parts {
        let Some(file) = &part.file else { continue };
        let map_path = dir.join(file);
        let Ok(map) = std::fs::read_to_string(&map_path) else {
            continue;
        };
        if !is_keypoint_map(&map) {
            continue;
        }
        let name = format!("chapters/coverage/{file}");
        let list = dir.join(format!("keypoints/part{:02}.md", part.number));
        let checklist = std::fs::read_to_string(&list)
            .unwrap_or_else(|_| panic!("{name}: no checklist {}", list.display()));
        let chapter = std::fs::read_to_string(Path::new(CHAPTERS).join(file)).expect("chapter");
        bad.extend(check_map(&name, &map, &checklist, &chapter, part.number));
        maps += 1;
    }
    assert!(maps >= 1, "no map in the key-point format");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The check finds each fault it names.
#[test]
fn the_check_finds_missing_rows_and_places() {
    let chapter =
        "# T\n\n## Notation\n\ntext\n\n{{widget sharding}}\n\n{{widget exercises chapter=3}}\n";
    let checklist = "- K3.1.1 [idea] a\n- K3.1.2 [idea] b\n";
    let head = "| key point | where | how the page teaches it |\n|---|---|---|\n";
    let good = format!(
        "{head}| K3.1.1 | #notation, widget sharding | x |\n| K3.1.2 | exercise ch3-q1 | y |\n"
    );
    assert_eq!(
        check_map("m", &good, checklist, chapter, 3),
        Vec::<String>::new()
    );
    let cases = [
        ("| K3.1.1 | #notation | x |\n", "no row for K3.1.2"),
        (
            "| K3.1.1 | #missing | x |\n| K3.1.2 | #notation | y |\n",
            "Heading(\"missing\")",
        ),
        (
            "| K3.1.1 | widget torus | x |\n| K3.1.2 | #notation | y |\n",
            "Widget(\"torus\")",
        ),
        (
            "| K3.1.1 | exercise ch4-q1a | x |\n| K3.1.2 | #notation | y |\n",
            "ch4-q1a",
        ),
        (
            "| K3.1.1 | #notation | x |\n| K3.1.2 | #notation | y |\n| K3.9.9 | #notation | z |\n",
            "K3.9.9 is not in the checklist",
        ),
    ];
    for (rows, want) in cases {
        let found = check_map("m", &format!("{head}{rows}"), checklist, chapter, 3);
        assert!(found.iter().any(|f| f.contains(want)), "{want}: {found:?}");
    }
}
