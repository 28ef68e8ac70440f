//! Every chapter in `SUMMARY.md` renders, and its HTML holds no raw TeX delimiter
//! and no unexpanded directive outside code (the renderer rejects both; this test
//! makes sure every chapter goes through it on `cargo test`).

use ridgeline_content::render::render_chapter;
use ridgeline_content::summary::parse_summary;

const CHAPTERS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../chapters");

/// The HTML with `<code>…</code>` and `<math>…</math>` removed.
fn outside_code_and_math(html: &str) -> String {
    let mut out = String::new();
    let mut rest = html;
    loop {
        let next = ["<code", "<math"]
            .iter()
            .filter_map(|t| rest.find(t).map(|i| (i, *t)))
            .min();
        let Some((i, tag)) = next else {
            out.push_str(rest);
            return out;
        };
        out.push_str(&rest[..i]);
        let close = if tag == "<code" { "</code>" } else { "</math>" };
        match rest[i..].find(close) {
            Some(j) => rest = &rest[i + j + close.len()..],
            None => return out,
        }
    }
}

#[test]
fn every_chapter_renders_without_raw_tex_or_directives() {
    let summary = std::fs::read_to_string(format!("{CHAPTERS}/SUMMARY.md")).unwrap();
    let parts = parse_summary(&summary).unwrap();
    let mut checked = 0;
    for p in &parts {
        let Some(file) = &p.file else { continue };
        let source = std::fs::read_to_string(format!("{CHAPTERS}/{file}")).unwrap();
        let page = render_chapter(&source).unwrap_or_else(|e| panic!("{file}: {e}"));
        let visible = outside_code_and_math(&page.html);
        for bad in ["$", "{{", "}}"] {
            if let Some(i) = visible.find(bad) {
                let around = &visible[i.saturating_sub(60)..(i + 60).min(visible.len())];
                panic!("{file}: raw `{bad}` in rendered text near “{around}”");
            }
        }
        checked += 1;
    }
    assert!(checked >= 12, "only {checked} chapters found");
}

#[test]
fn the_filter_finds_what_it_should() {
    let html = "<p>a <code>$x</code> <math>$</math> b $D = $ c</p>";
    assert_eq!(outside_code_and_math(html), "<p>a   b $D = $ c</p>");
}

/// Acronyms the book expands, with the expansion it gives: where a chapter
/// spells one out (`**LLO** (…)`), the parenthesis must say the book's words.
/// The book (Part 9, "A Crash Course in the TPU Software Stack") has LLO for
/// "low-level optimizer" IR.
const EXPANSIONS: &[(&str, &str)] = &[("**LLO** (", "low-level optimizer")];

#[test]
fn acronyms_are_expanded_as_the_book_does() {
    let summary = std::fs::read_to_string(format!("{CHAPTERS}/SUMMARY.md")).unwrap();
    let mut found = 0;
    for p in parse_summary(&summary).unwrap() {
        let Some(file) = &p.file else { continue };
        let source = std::fs::read_to_string(format!("{CHAPTERS}/{file}")).unwrap();
        for (acronym, words) in EXPANSIONS {
            for (i, _) in source.match_indices(acronym) {
                let rest = &source[i + acronym.len()..];
                let inside = &rest[..rest.find(')').unwrap_or(rest.len())];
                assert!(
                    inside.contains(words),
                    "{file}: {acronym}{inside}) should expand to “{words}”"
                );
                found += 1;
            }
        }
    }
    assert!(found >= 1, "no chapter expands LLO any more");
}

/// Numbers that mislead alone: where a chapter prints the first, it must also
/// print the second, which says what binds or what the book compares.
/// (Part 12: GB200's egress-only threshold beside the NVLink-bound one; the
/// L2 ridge beside the full-duplex bandwidth it uses; core's TP limit beside
/// the book's quiz figure; the H200's ratios beside the H200's price.)
const PAIRED: &[(&str, &str)] = &[
    (
        "gpu-dp-tokens chip=gb200 scope=network",
        "gpu-fact fact=gb200-pod-dp-tokens",
    ),
    ("gpu-fact fact=l2-ridge", "gpu-fact fact=l2-bw-both"),
    (
        "gpu-fact fact=tp-limit-llama3-70b",
        "gpu-fact fact=tp-limit-quiz-llama3-70b",
    ),
    (
        "gpu-fact fact=vs-v5p-flops chip=h200",
        "gpu-fact fact=h200-v5p-price",
    ),
];

/// The chapters a [`PAIRED`] check failed on, with the missing partner.
fn unpaired(source: &str) -> Vec<&'static str> {
    PAIRED
        .iter()
        .filter(|(a, b)| source.contains(a) && !source.contains(b))
        .map(|(_, b)| *b)
        .collect()
}

#[test]
fn misleading_numbers_come_with_their_partner() {
    let summary = std::fs::read_to_string(format!("{CHAPTERS}/SUMMARY.md")).unwrap();
    for p in parse_summary(&summary).unwrap() {
        let Some(file) = &p.file else { continue };
        let source = std::fs::read_to_string(format!("{CHAPTERS}/{file}")).unwrap();
        let missing = unpaired(&source);
        assert!(missing.is_empty(), "{file}: add {missing:?}");
    }
    assert_eq!(
        unpaired("{{gpu-fact fact=l2-ridge}}"),
        ["gpu-fact fact=l2-bw-both"]
    );
}
