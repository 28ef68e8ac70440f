//! Every subscripted symbol the chapters write in math (`W_\text{ici}`,
//! `T_{\text{math}}`, `X_{opt}`) is a row of the book's symbol table
//! (`ridgeline_core::symbols`), which the grader and the numbers page read too.

use pulldown_cmark::{Event, Options, Parser};
use ridgeline_content::summary::parse_summary;
use ridgeline_core::symbols::{lookup, subscript};

const CHAPTERS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../chapters");

/// Every TeX string of a chapter: inline and display math.
fn math_of(source: &str) -> Vec<String> {
    Parser::new_ext(source, Options::ENABLE_MATH | Options::ENABLE_TABLES)
        .filter_map(|e| match e {
            Event::InlineMath(m) | Event::DisplayMath(m) => Some(m.to_string()),
            _ => None,
        })
        .collect()
}

/// The end (exclusive) of the braced group starting at `open`, if it closes.
fn group_end(tex: &[char], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in tex.iter().enumerate().skip(open) {
        match c {
            '{' => depth += 1,
            '}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// The symbols in `tex` with a braced or `\text` subscript, as written
/// (`W_\text{ici}`, `J_{XY}`). A subscript on anything but a letter or a Greek
/// letter (`\max_i`, `\text{In}_X`) is not a symbol's.
fn subscripted(tex: &str) -> Vec<String> {
    let c: Vec<char> = tex.chars().collect();
    let mut out = Vec::new();
    for u in 0..c.len() {
        if c[u] != '_' || u == 0 || !c[u - 1].is_alphabetic() {
            continue;
        }
        let mut start = u - 1;
        while start > 0 && c[start - 1].is_ascii_alphabetic() {
            start -= 1;
        }
        let base_start = if start > 0 && c[start - 1] == '\\' {
            let command: String = c[start..u].iter().collect();
            if !["alpha", "beta", "ell"].contains(&command.as_str()) {
                continue;
            }
            start - 1
        } else {
            // In `ab_x` only `b` carries the subscript.
            u - 1
        };
        let mut open = u + 1;
        if c.get(open) == Some(&'\\') {
            open += 1;
            while c.get(open).is_some_and(char::is_ascii_alphabetic) {
                open += 1;
            }
        }
        if c.get(open) != Some(&'{') {
            continue;
        }
        if let Some(end) = group_end(&c, open) {
            out.push(c[base_start..end].iter().collect());
        }
    }
    out
}

/// A subscript made only of mesh axes (`J_{XY}`) is the sharding notation of
/// Part 3, read by `core::sharding`, not a symbol.
fn is_sharding(symbol: &str) -> bool {
    let sub = symbol.split_once('_').map_or("", |(_, s)| s);
    let sub = subscript(sub);
    !sub.is_empty() && sub.chars().all(|a| matches!(a, 'X' | 'Y' | 'Z'))
}

/// A subscript made only of the letters that index an element (`S_{ij}`,
/// `O_{id}`, `V_{jd}`) names an entry of a matrix, not a symbol.
fn is_index(symbol: &str) -> bool {
    let sub = symbol.split_once('_').map_or("", |(_, s)| s);
    let sub = sub.trim_start_matches('{').trim_end_matches('}');
    !sub.is_empty()
        && sub
            .chars()
            .all(|a| matches!(a, 'i' | 'j' | 'k' | 'l' | 'd'))
}

#[test]
fn the_scanner_finds_subscripts_as_tex_writes_them() {
    let found = subscripted(
        r"T_\text{math} = \frac{2BDF}{W_{\text{ici}}} + \max_i D_i + \text{In}_{X} + J_{XY} + \alpha_{\text{x}} + ab_{c}",
    );
    assert_eq!(
        found,
        [
            r"T_\text{math}",
            r"W_{\text{ici}}",
            "J_{XY}",
            r"\alpha_{\text{x}}",
            "b_{c}"
        ]
    );
    assert!(is_sharding("J_{XY}") && !is_sharding("b_{c}"));
    assert!(is_index("S_{ij}") && is_index("O_{id}") && !is_index("W_{\\text{ici}}"));
    assert!(!is_index("X_{opt}") && !is_index("b_{c}"));
    assert_eq!(math_of("a $x_1$ b\n\n$$y$$\n"), ["x_1", "y"]);
}

#[test]
fn every_subscripted_symbol_in_the_chapters_is_in_the_table() {
    let summary = std::fs::read_to_string(format!("{CHAPTERS}/SUMMARY.md")).unwrap();
    let parts = parse_summary(&summary).unwrap();
    let mut missing = Vec::new();
    let (mut symbols, mut sharding) = (0, 0);
    for p in &parts {
        let Some(file) = &p.file else { continue };
        let source = std::fs::read_to_string(format!("{CHAPTERS}/{file}")).unwrap();
        for tex in math_of(&source) {
            for symbol in subscripted(&tex) {
                if is_sharding(&symbol) {
                    sharding += 1;
                    continue;
                }
                if is_index(&symbol) {
                    continue;
                }
                symbols += 1;
                match lookup(&symbol) {
                    // A symbol used before the part that introduces it would
                    // mean the table's part is wrong.
                    Some(row) if p.number < row.part => {
                        missing.push(format!("{file}: {symbol} is used before Part {}", row.part))
                    }
                    Some(_) => {}
                    None => missing.push(format!("{file}: {symbol}")),
                }
            }
        }
    }
    assert!(
        missing.is_empty(),
        "not in core::symbols::SYMBOLS:\n{}",
        missing.join("\n")
    );
    // The chapters write about a hundred such symbols, and a few shardings.
    assert!(symbols > 80, "only {symbols} subscripted symbols found");
    assert!(sharding >= 3, "only {sharding} sharded dimensions found");
}
