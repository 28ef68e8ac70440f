//! Key-point coverage maps: which place on a chapter's page teaches each key
//! point of the book's part, and how.
//!
//! A part's checklist, `chapters/coverage/keypoints/partNN.md`, lists its key
//! points one a line (`- K3.6.10 [formula] …`): the content specification of
//! the chapter. Its map, `chapters/coverage/NN-slug.md`, has one row per key
//! point, in this format:
//!
//! ```text
//! | key point | where | how the page teaches it |
//! |---|---|---|
//! | K3.6.10 | #what-collectives-cost, widget collective-size | derives T_hop = 2V/(XW) step by step |
//! | K3.3.5 | — | not taught: the page has no notebook |
//! ```
//!
//! "where" names places on the rendered page, separated by commas: `#ID` (a
//! heading id), `widget NAME` (a widget directive the chapter uses), `exercise
//! ID` (one of the part's graded exercises, shown on the page). A row that
//! names no place (`—`) must say why in a "how" that starts with
//! `not taught`. The tests walk every map in this format
//! (`content/tests/coverage_keypoints.rs` against the rendered chapter and the
//! exercise registry, and `ridgeline-site`'s against the built page); maps in
//! the older section-level format (`| book | kind | covered by |`) are read
//! by the site's test alone.
//!
//! ```
//! use ridgeline_content::coverage::{parse_map, Place};
//!
//! let map = parse_map("| key point | where | how the page teaches it |\n|---|---|---|\n\
//!                      | K3.1.1 | #intro, widget sharding | in prose |\n").unwrap();
//! assert_eq!(map[0].id, "K3.1.1");
//! assert_eq!(map[0].places, [Place::Heading("intro".into()), Place::Widget("sharding".into())]);
//! ```

/// The header row that marks a map in this format.
pub const HEADER: &str = "| key point | where | how the page teaches it |";

/// Where a key point is taught.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// A heading's id on the page (`#four-cases`).
    Heading(String),
    /// A widget directive the page uses (`widget sharding`).
    Widget(String),
    /// A graded exercise of the part, shown on the page (`exercise ch3-q6a`).
    Exercise(String),
}

/// One row of a map.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// The key point's id (`K3.6.10`).
    pub id: String,
    /// Where the page teaches it; empty for a point it does not teach.
    pub places: Vec<Place>,
    /// How.
    pub how: String,
}

/// Whether `text` is a map in the key-point format.
pub fn is_keypoint_map(text: &str) -> bool {
    text.lines().any(|l| l.trim() == HEADER)
}

/// The rows of a map, or the first row that breaks the format.
pub fn parse_map(text: &str) -> Result<Vec<Row>, String> {
    let mut lines = text.lines().filter(|l| l.starts_with('|'));
    match lines.next() {
        Some(h) if h.trim() == HEADER => {}
        other => return Err(format!("the first row is not `{HEADER}`: {other:?}")),
    }
    lines.next();
    let mut rows = Vec::new();
    for line in lines {
        let cells: Vec<&str> = line
            .trim()
            .trim_matches('|')
            .split('|')
            .map(str::trim)
            .collect();
        let [id, places, how] = cells.as_slice() else {
            return Err(format!("a row needs three cells: {line}"));
        };
        if !id.starts_with('K') {
            return Err(format!("not a key point id: {id}"));
        }
        if how.is_empty() {
            return Err(format!("{id}: says nothing about how"));
        }
        let places = if *places == "—" {
            if !how.starts_with("not taught") {
                return Err(format!("{id}: no place, yet not marked `not taught`"));
            }
            Vec::new()
        } else {
            places
                .split(',')
                .map(|p| {
                    parse_place(p.trim()).ok_or_else(|| format!("{id}: unreadable place `{p}`"))
                })
                .collect::<Result<_, _>>()?
        };
        rows.push(Row {
            id: id.to_string(),
            places,
            how: how.to_string(),
        });
    }
    Ok(rows)
}

fn parse_place(p: &str) -> Option<Place> {
    let word = |s: &str| !s.is_empty() && !s.contains(char::is_whitespace);
    if let Some(id) = p.strip_prefix('#') {
        word(id).then(|| Place::Heading(id.to_string()))
    } else if let Some(w) = p.strip_prefix("widget ") {
        word(w).then(|| Place::Widget(w.to_string()))
    } else if let Some(e) = p.strip_prefix("exercise ") {
        word(e).then(|| Place::Exercise(e.to_string()))
    } else {
        None
    }
}

/// The key point ids of a checklist (`- K3.1.1 [idea] …` lines), in order.
pub fn checklist_ids(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.strip_prefix("- K"))
        .filter_map(|l| l.split_whitespace().next())
        .map(|id| format!("K{id}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_without_a_place_must_say_not_taught() {
        let head = format!("{HEADER}\n|---|---|---|\n");
        let rows = parse_map(&format!("{head}| K1.1 | — | not taught: no room |\n")).unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!((rows[0].id.as_str(), rows[0].places.len()), ("K1.1", 0));
        assert_eq!(rows[0].how, "not taught: no room");
        assert_eq!(
            parse_map(&format!("{head}| K1.1 | — | somewhere |\n"))
                .unwrap_err()
                .to_string(),
            "K1.1: no place, yet not marked `not taught`",
        );
        assert_eq!(
            parse_map(&format!("{head}| K1.1 | page top | x |\n"))
                .unwrap_err()
                .to_string(),
            "K1.1: unreadable place `page top`",
        );
        assert_eq!(
            parse_map(&format!("{head}| K1.1 | #a |  |\n"))
                .unwrap_err()
                .to_string(),
            "K1.1: says nothing about how",
        );
        assert_eq!(
            parse_map("| book | kind | covered by |\n|---|---|---|\n").unwrap_err().to_string(),
            "the first row is not `| key point | where | how the page teaches it |`: Some(\"| book | kind | covered by |\")",
        );
    }

    #[test]
    fn checklist_ids_are_read_in_order() {
        let ids = checklist_ids("# Part 3\n\n- K3.1.1 [idea] a\n- K3.1.2 [idea] b\ntext\n");
        assert_eq!(ids, ["K3.1.1", "K3.1.2"]);
    }
}
