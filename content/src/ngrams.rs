//! Runs of words shared with the book: hashed word 10-grams of Markdown prose.
//!
//! The companion is written in its own words, and a test checks it: every run
//! of [`N`] consecutive words of a chapter's prose is hashed and looked up among
//! the hashes of the book's own prose, kept in `data/book-10grams.bin` (made by
//! `scripts/book-ngrams.sh` from a checkout of the book). Only hashes are kept,
//! so the book's text is not in the repository.
//!
//! Both sides are read the same way, by [`prose_runs`]: front matter, fenced
//! code, inline code, math (`$…$`, `$$…$$`), HTML tags, Liquid tags (except a
//! figure's `caption="…"`, which is prose) and directives (`{{…}}`) are left
//! out, and each of them ends a run, as do blank lines, headings and table
//! cells, so that no 10-gram is made of words that are not next to each other
//! in the prose. A word is a run of letters and digits, lowercased; apostrophes
//! inside a word are dropped (`it's` is `its`).
//!
//! A 10-gram's hash is the 64-bit FNV-1a ([`ridgeline_core::rng::fnv1a`]) of its
//! words joined by single spaces, of which the file keeps the top [`BITS`] bits:
//! with the book's eighty thousand 10-grams, the chance that one of a chapter's
//! ten thousand matches by accident is about one in a thousand, and a match
//! names the run, so a reader can tell. The file holds the sorted, distinct
//! hashes as differences from the previous one, each a LEB128 varint.
//!
//! ```
//! use ridgeline_content::ngrams::{decode, encode, gram_hashes, shared_runs};
//!
//! let book = "The quick brown fox jumps over the lazy dog and then sleeps all day.";
//! let kept = decode(&encode(&gram_hashes(book))).unwrap();
//! let ours = "Our fox: the quick brown fox jumps over the lazy dog and then sleeps.";
//! let runs = shared_runs(ours, &kept);
//! assert_eq!(runs, ["the quick brown fox jumps over the lazy dog and then sleeps"]);
//! assert!(shared_runs("A fox, quick and brown, leapt a sleeping dog.", &kept).is_empty());
//! ```

use ridgeline_core::rng::fnv1a;

/// Words per run.
pub const N: usize = 10;

/// Bits of each hash kept.
pub const BITS: u32 = 40;

/// The prose of a Markdown file as runs of words: no run crosses a paragraph,
/// a heading, a table cell, or anything left out (code, math, tags, directives).
pub fn prose_runs(markdown: &str) -> Vec<Vec<String>> {
    let mut runs: Vec<Vec<String>> = vec![Vec::new()];
    let mut lines = markdown.lines().peekable();
    // Front matter.
    if lines.peek().is_some_and(|l| l.trim() == "---") {
        lines.next();
        for l in lines.by_ref() {
            if l.trim() == "---" {
                break;
            }
        }
    }
    let mut fence: Option<&str> = None;
    let mut display_math = false;
    let mut in_tag = false; // inside a multi-line `{% … %}` or `{{ … }}`
    for line in lines {
        let t = line.trim_start();
        if let Some(f) = fence {
            if t.starts_with(f) {
                fence = None;
            }
            continue;
        }
        if let Some(f) = ["```", "~~~"].into_iter().find(|f| t.starts_with(f)) {
            fence = Some(f);
            runs.push(Vec::new());
            continue;
        }
        let heading = t.starts_with('#') || t.starts_with('|');
        let item = t.starts_with("- ")
            || t.starts_with("* ")
            || t.split_once(". ")
                .is_some_and(|(n, _)| n.parse::<u32>().is_ok());
        if t.is_empty() || heading || item {
            runs.push(Vec::new());
        }
        let mut text = String::new();
        let mut rest = line;
        // Display math spanning lines.
        while !rest.is_empty() {
            if display_math {
                match rest.find("$$") {
                    Some(i) => {
                        rest = &rest[i + 2..];
                        display_math = false;
                        text.push('\u{1}');
                    }
                    None => rest = "",
                }
                continue;
            }
            if in_tag {
                match rest.find("%}").or_else(|| rest.find("}}")) {
                    Some(i) => {
                        rest = &rest[i + 2..];
                        in_tag = false;
                        text.push('\u{1}');
                    }
                    None => rest = "",
                }
                continue;
            }
            let special = rest.find(['$', '`', '<', '{', '|', '#']);
            let Some(i) = [special, rest.find("](")].into_iter().flatten().min() else {
                text.push_str(rest);
                break;
            };
            text.push_str(&rest[..i]);
            text.push('\u{1}');
            let r = &rest[i..];
            rest = if let Some(after) = r.strip_prefix("$$") {
                display_math = true;
                after
            } else if let Some(after) = r.strip_prefix('$') {
                after.find('$').map_or("", |j| &after[j + 1..])
            } else if let Some(after) = r.strip_prefix('`') {
                after.find('`').map_or("", |j| &after[j + 1..])
            } else if let Some(after) = r.strip_prefix('<') {
                after.find('>').map_or("", |j| &after[j + 1..])
            } else if let Some(after) = r.strip_prefix("](") {
                // A link's target is an address, not prose: the link text
                // before it is kept, the URL skipped.
                after.find(')').map_or("", |j| &after[j + 1..])
            } else if let Some(after) = r.strip_prefix("{%").or_else(|| r.strip_prefix("{{")) {
                match after.find("%}").or_else(|| after.find("}}")) {
                    Some(j) => {
                        text.push_str(&caption(&after[..j]));
                        text.push('\u{1}');
                        &after[j + 2..]
                    }
                    None => {
                        in_tag = true;
                        ""
                    }
                }
            } else {
                &r[1..]
            };
        }
        push_words(&text, &mut runs);
        if heading {
            runs.push(Vec::new());
        }
    }
    runs.retain(|r| !r.is_empty());
    runs
}

/// A Liquid figure's caption, tags removed, or nothing.
fn caption(tag: &str) -> String {
    let Some(i) = tag.find("caption=\"") else {
        return String::new();
    };
    let c = &tag[i + "caption=\"".len()..];
    let c = &c[..c.find('"').unwrap_or(c.len())];
    let mut out = String::new();
    let mut inside = false;
    for ch in c.chars() {
        match ch {
            '<' => inside = true,
            '>' => inside = false,
            _ if !inside => out.push(ch),
            _ => {}
        }
    }
    out
}

/// Splits `text` into lowercase words, starting a new run at each `\u{1}`.
fn push_words(text: &str, runs: &mut Vec<Vec<String>>) {
    let mut word = String::new();
    let flush = |word: &mut String, runs: &mut Vec<Vec<String>>| {
        if !word.is_empty() {
            if let Some(r) = runs.last_mut() {
                r.push(std::mem::take(word));
            }
        }
    };
    for ch in text.chars() {
        if ch.is_alphanumeric() {
            word.extend(ch.to_lowercase());
        } else if (ch == '\'' || ch == '’') && !word.is_empty() {
            // Inside a word: dropped.
        } else {
            flush(&mut word, runs);
            if ch == '\u{1}' {
                runs.push(Vec::new());
            }
        }
    }
    flush(&mut word, runs);
}

/// The kept bits of a 10-gram's hash.
fn hash(words: &[String]) -> u64 {
    fnv1a(words.join(" ").as_bytes()) >> (64 - BITS)
}

/// Every 10-gram of `markdown`'s prose with its hash, in order.
fn grams(markdown: &str) -> Vec<(u64, String)> {
    prose_runs(markdown)
        .iter()
        .flat_map(|run| run.windows(N).map(|w| (hash(w), w.join(" "))))
        .collect()
}

/// The sorted, distinct hashes of every 10-gram of `markdown`'s prose.
pub fn gram_hashes(markdown: &str) -> Vec<u64> {
    let mut h: Vec<u64> = grams(markdown).into_iter().map(|(h, _)| h).collect();
    h.sort_unstable();
    h.dedup();
    h
}

/// Sorted, distinct hashes as LEB128 varints of their differences.
pub fn encode(sorted: &[u64]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut prev = 0u64;
    for &h in sorted {
        let mut d = h - prev;
        prev = h;
        loop {
            let byte = (d & 0x7f) as u8;
            d >>= 7;
            if d == 0 {
                out.push(byte);
                break;
            }
            out.push(byte | 0x80);
        }
    }
    out
}

/// The hashes [`encode`] wrote, or why the bytes are not such a file.
pub fn decode(bytes: &[u8]) -> Result<Vec<u64>, String> {
    let mut out = Vec::new();
    let (mut prev, mut d, mut shift) = (0u64, 0u64, 0u32);
    for &b in bytes {
        if shift > 63 {
            return Err("a varint longer than 64 bits".into());
        }
        d |= u64::from(b & 0x7f) << shift;
        shift += 7;
        if b & 0x80 == 0 {
            prev = prev.checked_add(d).ok_or("the hashes overflow 64 bits")?;
            out.push(prev);
            (d, shift) = (0, 0);
        }
    }
    if shift != 0 {
        return Err("the file ends inside a varint".into());
    }
    Ok(out)
}

/// The runs of `markdown`'s prose whose 10-grams are among `book` (sorted
/// hashes), each run as its words; overlapping 10-grams are merged into one run.
pub fn shared_runs(markdown: &str, book: &[u64]) -> Vec<String> {
    let mut out = Vec::new();
    for run in prose_runs(markdown) {
        let hit: Vec<bool> = run
            .windows(N)
            .map(|w| book.binary_search(&hash(w)).is_ok())
            .collect();
        let mut i = 0;
        while i < hit.len() {
            if !hit[i] {
                i += 1;
                continue;
            }
            let start = i;
            while i + 1 < hit.len() && hit[i + 1] {
                i += 1;
            }
            out.push(run[start..i + N].join(" "));
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_targets_are_not_prose() {
        let runs = prose_runs("See [the notebook](https://docs.jax.dev/en/latest/notebooks/explicit-sharding.html) for more.");
        let words: Vec<&str> = runs.iter().flatten().map(String::as_str).collect();
        assert!(
            words.contains(&"notebook") && words.contains(&"more"),
            "{words:?}"
        );
        assert!(
            !words
                .iter()
                .any(|w| w.contains("docs") || w.contains("sharding")),
            "{words:?}"
        );
        // A bracket that opens no link leaves the run whole.
        assert_eq!(
            prose_runs("one [two] three").concat(),
            ["one", "two", "three"]
        );
    }

    #[test]
    fn code_math_tags_and_directives_end_runs() {
        let md = "---\ntitle: x\n---\nOne two $x + y$ three `code` four <b>five</b>\n\n\
                  {% include figure.liquid caption=\"A <b>bold</b> caption\" %} six {{bw chip=v5e}} seven\n\
                  $$\nA = B\n$$\neight\n```\nnine\n```\n# Ten\n| a | b |\n";
        let runs = prose_runs(md);
        let flat: Vec<Vec<&str>> = runs
            .iter()
            .map(|r| r.iter().map(String::as_str).collect())
            .collect();
        assert_eq!(
            flat,
            vec![
                vec!["one", "two"],
                vec!["three"],
                vec!["four"],
                vec!["five"],
                vec!["a", "bold", "caption"],
                vec!["six"],
                vec!["seven"],
                vec!["eight"],
                vec!["ten"],
                vec!["a"],
                vec!["b"],
            ]
        );
    }

    #[test]
    fn words_are_lowercased_and_apostrophes_dropped() {
        let runs = prose_runs("It's the Book’s WORDS.");
        assert_eq!(runs, vec![vec!["its", "the", "books", "words"]]);
    }

    #[test]
    fn the_file_format_round_trips_and_rejects_a_cut_file() {
        let h = gram_hashes(
            &"alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu ".repeat(3),
        );
        assert!(h.len() > 2 && h.windows(2).all(|w| w[0] < w[1]));
        let bytes = encode(&h);
        assert_eq!(decode(&bytes).unwrap(), h);
        assert_eq!(
            decode(&[0x80]).unwrap_err().to_string(),
            "the file ends inside a varint"
        );
    }
}
