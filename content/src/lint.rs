//! The chapter lint: no number typed into prose.
//!
//! Every number a reader sees comes from `core` (ARCHITECTURE's invariant), so a
//! digit in a chapter's prose is a number someone typed by hand. The lint runs at
//! build time, from [`render_chapter`](crate::render::render_chapter), and fails
//! the build with the line and the word.
//!
//! What it reads: the prose only. Fenced code, inline code, math (`$…$`,
//! `$$…$$`), directives (`{{…}}`), link targets and bare URLs are skipped. In the
//! prose, a word with a digit is
//!
//! - a **name**, and allowed, when it has letters that are not a unit: `v5e`,
//!   `H100s`, `bf16`, `3-70B`, `ZeRO-3`, `1F1B`, `2D`;
//! - on the **allow-list**, and allowed: part, case and chapter numbers (`Part 5`,
//!   `Parts 2 to 9`, `case 3`), years (`2025`), the version in a model's name
//!   (`LLaMA 3`), ordinals (`(1)`, or an ordered list's `1.`);
//! - otherwise a **number**, and an error: `16`, `40%`, `4x4`, `128×128`, `1e14`,
//!   `16GB`.
//!
//! A number that is a result or a constant goes into a value directive computed by
//! `core` (`{{hbm chip=v5e fmt=si}}`). A number that is an input the chapter
//! chooses for an example — a batch of 1,024 sequences, a 40 % MFU — is marked as
//! a **scenario input** with the `input` directive, which prints it through
//! `core::format` and makes the choice visible in the source:
//!
//! ```text
//! a batch of {{input value=1024 unit=sequences}} at {{input value=40 unit=%}} MFU
//! ```
//!
//! renders as "a batch of 1,024 sequences at 40% MFU".
//!
//! ```
//! use ridgeline_content::lint::check;
//!
//! assert!(check("A v5e in bf16 (Part 2, 2025) peaks at {{peak chip=v5e}}.\n").is_ok());
//! let e = check("# T\n\nA v5e has 16 GB of HBM.\n").unwrap_err();
//! assert!(e.contains("line 3") && e.contains("`16`"), "{e}");
//! ```

/// One number found in prose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Line number in the chapter, from 1.
    pub line: usize,
    /// The word holding the number.
    pub word: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "line {}: `{}` is a number typed into prose; use a value directive \
             computed by core, or mark an example's choice as {{{{input value=… unit=…}}}}",
            self.line, self.word
        )
    }
}

/// Words after which a number is an ordinal or a label: `Part 5`, `case 3`.
const LABELS: &[&str] = &[
    "Part",
    "Parts",
    "part",
    "parts",
    "Chapter",
    "Chapters",
    "Case",
    "Cases",
    "case",
    "cases",
    "Section",
    "Sections",
    "LLaMA",
    "Llama",
    "Question",
    "Questions",
];

/// Words that continue a list of labels: `Parts 2 and 3`, `Parts 2 to 9`.
const JOINERS: &[&str] = &["and", "to", "or", "–", "-", "through"];

/// Units that make a word starting with digits a quantity, not a name.
const UNITS: &[&str] = &[
    "%", "x", "×", "B", "kB", "KB", "MB", "GB", "TB", "PB", "KiB", "MiB", "GiB", "TiB", "B/s",
    "kB/s", "MB/s", "GB/s", "TB/s", "s", "ms", "us", "µs", "ns", "FLOP", "FLOPs", "FLOPs/s",
    "TFLOPs", "PFLOPs", "Hz", "MHz", "GHz", "W", "kW", "k", "M", "K", "T", "th", "st", "nd", "rd",
];

/// Every number typed into the prose of `source`, in order.
pub fn problems(source: &str) -> Vec<Problem> {
    let mut out = Vec::new();
    let mut fence: Option<&str> = None;
    let mut display_math = false;
    let mut inline_math = false;
    for (i, raw) in source.lines().enumerate() {
        // A blank line ends a paragraph, and any inline math left open in it.
        if raw.trim().is_empty() {
            inline_math = false;
        }
        let trimmed = raw.trim_start();
        if let Some(f) = fence {
            if trimmed.starts_with(f) {
                fence = None;
            }
            continue;
        }
        if let Some(f) = ["```", "~~~"].into_iter().find(|f| trimmed.starts_with(f)) {
            fence = Some(f);
            continue;
        }
        // A link reference definition is a target, not prose.
        if trimmed.starts_with('[') && trimmed.contains("]:") {
            continue;
        }
        let prose = mask(strip_list_marker(raw), &mut display_math, &mut inline_math);
        scan(&prose, i + 1, &mut out);
    }
    out
}

/// Fails with every number typed into the prose of `source`, one per line.
pub fn check(source: &str) -> Result<(), String> {
    let found = problems(source);
    if found.is_empty() {
        return Ok(());
    }
    Err(found
        .iter()
        .map(Problem::to_string)
        .collect::<Vec<_>>()
        .join("\n"))
}

/// The line without an ordered-list marker (`1. `, `12) `).
fn strip_list_marker(line: &str) -> &str {
    let t = line.trim_start();
    let digits = t.len() - t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits > 0 {
        let rest = &t[digits..];
        if let Some(after) = rest.strip_prefix(". ").or_else(|| rest.strip_prefix(") ")) {
            return after;
        }
    }
    line
}

/// The line with code, math, directives, link targets and URLs blanked out.
/// `display_math` carries an open `$$` block across lines, `inline_math` a `$…$`
/// that continues on the next line of its paragraph.
fn mask(line: &str, display_math: &mut bool, inline_math: &mut bool) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while !rest.is_empty() {
        if *inline_math {
            match rest.find('$') {
                Some(end) => {
                    rest = &rest[end + 1..];
                    *inline_math = false;
                }
                None => rest = "",
            }
            out.push(' ');
            continue;
        }
        if *display_math {
            match rest.find("$$") {
                Some(end) => {
                    rest = &rest[end + 2..];
                    *display_math = false;
                }
                None => rest = "",
            }
            out.push(' ');
            continue;
        }
        let skip_to = |open: &str, close: &str| -> Option<usize> {
            rest.strip_prefix(open)
                .and_then(|r| r.find(close))
                .map(|end| open.len() + end + close.len())
        };
        let skipped = if rest.starts_with("$$") {
            match skip_to("$$", "$$") {
                Some(n) => Some(n),
                None => {
                    *display_math = true;
                    Some(rest.len())
                }
            }
        } else if rest.starts_with("``") {
            skip_to("``", "``")
        } else if rest.starts_with('`') {
            skip_to("`", "`")
        } else if rest.starts_with('$') {
            skip_to("$", "$").or_else(|| {
                *inline_math = true;
                Some(rest.len())
            })
        } else if rest.starts_with("{{") {
            skip_to("{{", "}}")
        } else if rest.starts_with("](") {
            skip_to("](", ")")
        } else if rest.starts_with("http://") || rest.starts_with("https://") {
            Some(
                rest.find(|c: char| c.is_whitespace() || c == '>')
                    .unwrap_or(rest.len()),
            )
        } else {
            None
        };
        match skipped {
            Some(n) => {
                out.push(' ');
                rest = &rest[n..];
            }
            None => {
                let c = rest.chars().next().unwrap_or(' ');
                out.push(c);
                rest = &rest[c.len_utf8()..];
            }
        }
    }
    out
}

/// Whether `c` can be part of a word the lint looks at.
fn in_word(c: char) -> bool {
    c.is_alphanumeric() || "-.,_/%×'’".contains(c)
}

/// Checks each word of masked prose; `line` numbers the problems.
fn scan(prose: &str, line: usize, out: &mut Vec<Problem>) {
    let mut label = false;
    for word in prose.split(|c: char| !in_word(c)) {
        // Trailing punctuation belongs to the sentence, not the word.
        let word = word.trim_matches(|c: char| ".,'’-/".contains(c));
        if word.is_empty() {
            continue;
        }
        if !word.chars().any(|c| c.is_ascii_digit()) {
            label = LABELS.contains(&word) || (label && JOINERS.contains(&word));
            continue;
        }
        // After a label, a number is an ordinal, or a model's size (`LLaMA-3 70B`).
        let labelled = word
            .trim_end_matches(['B', 'b'])
            .chars()
            .all(|c| c.is_ascii_digit() || c == '–');
        let allowed = label && labelled || is_year(word) || is_name(word);
        if !allowed {
            out.push(Problem {
                line,
                word: word.to_string(),
            });
        }
        // `Parts 2 and 3`: a label's number keeps the list open; a model family's
        // versioned name (`LLaMA-3`) labels the size after it.
        label = label && allowed || MODELS.iter().any(|m| word.starts_with(m));
    }
    ordinals(prose, line, out);
}

/// Model families whose versioned names may be followed by a size: `LLaMA-3 70B`.
const MODELS: &[&str] = &["LLaMA", "Llama", "Gemma", "Mixtral"];

/// `(1)` … `(9)` are ordinals; the word split removed the parentheses, so put
/// back the problems they were reported as.
fn ordinals(prose: &str, line: usize, out: &mut Vec<Problem>) {
    let mut i = 0;
    while let Some(at) = prose[i..].find('(') {
        let start = i + at + 1;
        let digits: String = prose[start..]
            .chars()
            .take_while(|c| c.is_ascii_digit())
            .collect();
        if !digits.is_empty() && digits.len() <= 2 && prose[start + digits.len()..].starts_with(')')
        {
            if let Some(k) = out.iter().rposition(|p| p.line == line && p.word == digits) {
                out.remove(k);
            }
        }
        i = start;
    }
}

/// A four-digit year from 1950 to 2039 (so that 2048 tokens is still a number).
fn is_year(word: &str) -> bool {
    word.len() == 4
        && word
            .parse::<u32>()
            .is_ok_and(|y| (1950..=2039).contains(&y))
}

/// A word whose letters are not a unit or an exponent: `v5e`, `H100s`, `3-70B`.
fn is_name(word: &str) -> bool {
    if !word.chars().any(char::is_alphabetic) {
        return false;
    }
    if !word.starts_with(|c: char| c.is_ascii_digit()) {
        return true;
    }
    // A quantity: digits, separators, an exponent or `x` products, then a unit.
    let number_end = word
        .char_indices()
        .find(|&(i, c)| {
            !(c.is_ascii_digit()
                || ".,×".contains(c)
                || (c == 'x' || c == 'e')
                    && word[i + 1..].starts_with(|d: char| d.is_ascii_digit())
                || c == '-' && word[..i].ends_with('e'))
        })
        .map_or(word.len(), |(i, _)| i);
    let unit = &word[number_end..];
    !(unit.is_empty() || UNITS.contains(&unit))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(source: &str) -> Vec<String> {
        problems(source).into_iter().map(|p| p.word).collect()
    }

    #[test]
    fn a_planted_number_fails() {
        for (text, word) in [
            ("A v5e has 16 GB of HBM.", "16"),
            ("It runs at 40% MFU.", "40%"),
            ("Take a 4x4 slice.", "4x4"),
            ("The MXU is 128×128.", "128×128"),
            ("It peaks at 1.97e14 FLOPs/s.", "1.97e14"),
            ("It holds 16GB.", "16GB"),
            ("A batch of 1,024 sequences.", "1,024"),
            ("Parts 2 and 3 use 8 chips.", "8"),
            ("LLaMA 3 has 80 layers.", "80"),
        ] {
            assert_eq!(words(text), vec![word.to_string()], "{text}");
            assert!(check(text).unwrap_err().contains(&format!("`{word}`")));
        }
    }

    #[test]
    fn names_labels_years_and_ordinals_pass() {
        let ok = "# Part 2\n\nA TPU v5e, an H100s node, bf16 and int8, LLaMA 3-70B, ZeRO-3, 1F1B, a 2D torus.\n\
                  Parts 2 to 9 and Parts 4 and 5; case 3; (c) 2025; steps (1) and (2).\n\
                  1. First item\n12) Twelfth item\n";
        assert_eq!(problems(ok), vec![]);
    }

    #[test]
    fn code_math_directives_and_links_are_not_prose() {
        let ok = "Ridge {{ridge chip=v5e}}, $T = 2BD/W$ with `x = 128`, \
                  $$C = 1.97e14$$ [paper](https://arxiv.org/abs/2203.15556) https://x.org/1234.\n\
                  ```\nlet n = 42;\n```\n$$\nD = 8192\n$$\n[ref]: https://example.com/v/12\n\
                  Its cost is $6 \\cdot N\n\\cdot T$ for LLaMA-3 70B.\n";
        assert_eq!(problems(ok), vec![]);
    }

    #[test]
    fn problems_carry_their_line() {
        let p = problems("# T\n\nfine\n\nnot 7 fine\n");
        assert_eq!(
            p,
            vec![Problem {
                line: 5,
                word: "7".into()
            }]
        );
        assert!(p[0].to_string().contains("line 5"));
    }
}
