//! `ARCHITECTURE.md` names real places, so that its code map cannot go stale
//! silently.
//!
//! - Every repository path it names in a code span (`core/src/hardware/`,
//!   `tests/e2e/lib.mjs`) exists. A span counts as a path when it has no space,
//!   holds a `/`, and its first segment is a folder at the repository's root;
//!   build outputs (`dist/…`) and placeholders (`_b/<bundle>/`) are not.
//! - Each row of "Where is the formula for X?" names a file or folder that
//!   defines every function beside it: `fn NAME` (or a `struct`/`enum` of that
//!   name) in the file, or in any `.rs` file under the folder; for
//!   `Type::method`, in a file that also has an `impl` of `Type`.

use std::fs;
use std::path::{Path, PathBuf};

/// The repository's root: this crate lives in `tests/`.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| panic!("{} has no parent", env!("CARGO_MANIFEST_DIR")))
}

fn architecture() -> String {
    let path = root().join("ARCHITECTURE.md");
    fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The lines of `doc` outside fenced code blocks.
fn prose_lines(doc: &str) -> Vec<&str> {
    let mut fenced = false;
    let mut lines = Vec::new();
    for line in doc.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            lines.push(line);
        }
    }
    lines
}

/// The inline code spans of `line`, without their backticks.
fn code_spans(line: &str) -> Vec<&str> {
    line.split('`').skip(1).step_by(2).collect()
}

/// Whether `span` names a path in the repository (see the module docs).
fn is_repo_path(span: &str) -> bool {
    let plain = !span.is_empty()
        && span.contains('/')
        && !span.starts_with('.')
        && !span
            .chars()
            .any(|c| c.is_whitespace() || "*<>{}[]()$…~:\"'".contains(c));
    plain
        && span.split('/').next().is_some_and(|first| {
            !first.is_empty() && root().join(first).is_dir() && !ignored_at_root(first)
        })
}

/// Whether the root `.gitignore` ignores the top-level folder `name` (`/dist`):
/// a build's output, there in a working tree after a build but not in a
/// fresh clone, so never a path of the repository.
fn ignored_at_root(name: &str) -> bool {
    let ignore = std::fs::read_to_string(root().join(".gitignore")).unwrap_or_default();
    ignore
        .lines()
        .any(|l| l.trim().trim_end_matches('/') == format!("/{name}"))
}

#[test]
fn every_path_named_exists() {
    let doc = architecture();
    let root = root();
    let mut checked = 0;
    let mut missing = Vec::new();
    for line in prose_lines(&doc) {
        for span in code_spans(line).into_iter().filter(|s| is_repo_path(s)) {
            checked += 1;
            if !root.join(span).exists() {
                missing.push(span.to_string());
            }
        }
    }
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names paths that do not exist: {missing:?}"
    );
    assert!(checked > 0, "no repository path found in ARCHITECTURE.md");
}

/// One row of the formula map: what the book calls it, the functions, the path.
struct Row {
    formula: String,
    functions: Vec<String>,
    path: String,
}

/// The rows of the table under the heading "Where is the formula for X?".
fn formula_rows(doc: &str) -> Vec<Row> {
    let lines = prose_lines(doc);
    let start = lines
        .iter()
        .position(|l| l.starts_with('#') && l.contains("Where is the formula for"))
        .unwrap_or_else(|| panic!("ARCHITECTURE.md has no \"Where is the formula for X?\""));
    lines[start + 1..]
        .iter()
        .take_while(|l| !l.starts_with('#'))
        .filter(|l| l.starts_with('|') && !l.starts_with("|---") && !l.starts_with("| formula"))
        .map(|l| {
            let cells: Vec<&str> = l.trim().trim_matches('|').split('|').collect();
            assert_eq!(cells.len(), 3, "a row of the formula map has 3 cells: {l}");
            let paths = code_spans(cells[2]);
            assert_eq!(
                paths.len(),
                1,
                "a row of the formula map names one path: {l}"
            );
            let functions: Vec<String> =
                code_spans(cells[1]).iter().map(|s| s.to_string()).collect();
            assert!(
                !functions.is_empty(),
                "a row of the formula map names a function: {l}"
            );
            Row {
                formula: cells[0].trim().to_string(),
                functions,
                path: paths[0].to_string(),
            }
        })
        .collect()
}

/// The `.rs` files at `path`: the file itself, or every one under the folder.
fn rust_files(path: &Path) -> Vec<PathBuf> {
    if path.is_file() {
        return vec![path.to_path_buf()];
    }
    let mut files = Vec::new();
    let entries = fs::read_dir(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    for entry in entries {
        let entry = entry.unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let p = entry.path();
        if p.is_dir() {
            files.extend(rust_files(&p));
        } else if p.extension().is_some_and(|x| x == "rs") {
            files.push(p);
        }
    }
    files
}

/// The words of `line`: runs of letters, digits and underscores.
fn words(line: &str) -> impl Iterator<Item = &str> {
    line.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
}

/// Whether `source` defines `name` (a function, struct or enum), and, for a
/// method, implements `owner`.
fn defines(source: &str, owner: Option<&str>, name: &str) -> bool {
    let mut defined = false;
    let mut implemented = owner.is_none();
    for line in source.lines().map(str::trim_start) {
        let mut w = words(line).skip_while(|w| *w == "pub" || *w == "crate" || *w == "const");
        if let (Some(kind), Some(item)) = (w.next(), w.next()) {
            defined |= matches!(kind, "fn" | "struct" | "enum") && item == name;
        }
        if let Some(owner) = owner {
            implemented |= line.starts_with("impl") && words(line).any(|w| w == owner);
        }
    }
    defined && implemented
}

#[test]
fn each_formula_is_where_the_map_says() {
    let doc = architecture();
    let rows = formula_rows(&doc);
    assert!(
        rows.len() >= 20,
        "the formula map lists the twenty formulas a reader looks for first; it has {}",
        rows.len()
    );
    let root = root();
    let mut wrong = Vec::new();
    for row in &rows {
        let path = root.join(&row.path);
        if !path.exists() {
            wrong.push(format!("{}: {} does not exist", row.formula, row.path));
            continue;
        }
        let sources: Vec<String> = rust_files(&path)
            .iter()
            .map(|f| fs::read_to_string(f).unwrap_or_else(|e| panic!("{}: {e}", f.display())))
            .collect();
        for function in &row.functions {
            let (owner, name) = match function.rsplit_once("::") {
                Some((owner, name)) => (Some(owner), name),
                None => (None, function.as_str()),
            };
            if !sources.iter().any(|s| defines(s, owner, name)) {
                wrong.push(format!(
                    "{}: {function} is not defined in {}",
                    row.formula, row.path
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "the formula map is stale:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn a_missing_definition_is_noticed() {
    let source = "impl Chip {\n    pub fn ridge(&self) {}\n}\npub enum Case { A }\n";
    assert!(defines(source, Some("Chip"), "ridge"));
    assert!(defines(source, None, "Case"));
    assert!(!defines(source, Some("Op"), "ridge"));
    assert!(!defines(source, None, "ridg"));
    assert!(is_repo_path("core/src/hardware/"));
    assert!(!is_repo_path("dist/index.html"));
    assert!(!is_repo_path("_b/<bundle>/"));
    assert!(!is_repo_path("C / W"));
}
