//! The math font: Latin Modern Math (GUST Font License, `public/fonts/`),
//! cut down by `scripts/math-font.sh` to the characters the chapters' MathML
//! uses. This module names those characters (the script asks for them with
//! `ridgeline-site math-chars`) and reads which characters a WOFF2 file maps,
//! so that a test fails when a chapter uses one the shipped cut lacks.

use std::collections::BTreeSet;
use std::io::Read;

/// The shipped cut, relative to the repository root.
pub const FONT: &str = "public/fonts/ridgeline-math.woff2";

/// The family name the stylesheet gives `math` elements.
pub const FAMILY: &str = "Ridgeline Math";

/// The stylesheet's rules for the font at `url` (relative to the stylesheet):
/// every `math` element, on screen and on paper, draws with it, falling back
/// to the system's math font. `font-display: optional`: a page waits at most
/// a moment (about 100 ms) for the file, which it preloads, and a formula
/// drawn in the fallback stays so on that page, since a late swap to other
/// glyph metrics moves the text around it (measured: a layout shift of 0.04
/// on /applied-inference with `swap`); the next page has the file cached.
pub fn css(url: &str) -> String {
    format!(
        "@font-face{{font-family:\"{FAMILY}\";src:url({url}) format(\"woff2\");font-display:optional}}\nmath{{font-family:\"{FAMILY}\",math}}"
    )
}

/// The characters a browser draws from the math font for `html`: the text of
/// every `<math>` element, plus, for each `<mi>` holding a single letter (which
/// MathML Core draws in its mathematical italic form), that italic character.
pub fn math_chars(html: &str) -> BTreeSet<char> {
    let mut out = BTreeSet::new();
    let mut rest = html;
    while let Some(start) = rest.find("<math") {
        let after = &rest[start..];
        let end = after.find("</math>").map_or(after.len(), |e| e + 7);
        let math = &after[..end];
        let mut text = math;
        while let Some(gt) = text.find('>') {
            let tag_start = text[..gt].rfind('<').unwrap_or(0);
            let tag = &text[tag_start..=gt];
            text = &text[gt + 1..];
            let content = &text[..text.find('<').unwrap_or(text.len())];
            let content = unescape(content);
            out.extend(content.chars().filter(|c| !c.is_control()));
            let mut chars = content.chars();
            if let (Some(c), None) = (chars.next(), chars.next()) {
                if tag == "<mi>" {
                    out.extend(italic(c));
                }
            }
        }
        rest = &after[end..];
    }
    out
}

/// The few entities the renderer writes, as characters.
fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// The mathematical italic form of `c` (Unicode's Mathematical Alphanumeric
/// Symbols block, as MathML Core's `math-auto` transform maps it), if any.
pub fn italic(c: char) -> Option<char> {
    let shift = |base: u32, from: char| char::from_u32(base + (c as u32 - from as u32));
    match c {
        'h' => Some('\u{210E}'),
        'A'..='Z' => shift(0x1D434, 'A'),
        'a'..='z' => shift(0x1D44E, 'a'),
        'ı' => Some('\u{1D6A4}'),
        'ȷ' => Some('\u{1D6A5}'),
        'Α'..='Ρ' => shift(0x1D6E2, 'Α'),
        'ϴ' => Some('\u{1D6F3}'),
        'Σ'..='Ω' => shift(0x1D6F4, 'Σ'),
        '∇' => Some('\u{1D6FB}'),
        'α'..='ω' => shift(0x1D6FC, 'α'),
        '∂' => Some('\u{1D715}'),
        'ϵ' => Some('\u{1D716}'),
        'ϑ' => Some('\u{1D717}'),
        'ϰ' => Some('\u{1D718}'),
        'ϕ' => Some('\u{1D719}'),
        'ϱ' => Some('\u{1D71A}'),
        'ϖ' => Some('\u{1D71B}'),
        _ => None,
    }
}

/// Every character the chapters' MathML uses, rendered from `chapters/`.
pub fn chapter_math_chars() -> Result<BTreeSet<char>, String> {
    let dir = ridgeline_app::content::chapters_dir();
    let mut out = BTreeSet::new();
    for part in crate::parts()? {
        let Some(file) = &part.file else { continue };
        let source = crate::read(&dir.join(file))?;
        out.extend(math_chars(
            &ridgeline_content::render::render_chapter(&source)?.html,
        ));
    }
    Ok(out)
}

/// The characters a WOFF2 font maps to glyphs (its `cmap`, formats 4 and 12).
pub fn woff2_chars(woff2: &[u8]) -> Result<BTreeSet<char>, String> {
    let be16 = |b: &[u8], at: usize| -> Result<usize, String> {
        b.get(at..at + 2)
            .map(|s| u16::from_be_bytes([s[0], s[1]]) as usize)
            .ok_or_else(|| format!("truncated at {at}"))
    };
    let be32 = |b: &[u8], at: usize| -> Result<usize, String> {
        b.get(at..at + 4)
            .map(|s| u32::from_be_bytes([s[0], s[1], s[2], s[3]]) as usize)
            .ok_or_else(|| format!("truncated at {at}"))
    };
    if woff2.get(..4) != Some(b"wOF2") {
        return Err("not a WOFF2 file".into());
    }
    let tables = be16(woff2, 12)?;
    let compressed = be32(woff2, 20)?;
    // The table directory: flags (tag index, transform), an optional tag,
    // the original length and, for a transformed table, its stored length.
    let mut at = 48;
    let base128 = |at: &mut usize| -> Result<usize, String> {
        let mut v = 0usize;
        for _ in 0..5 {
            let b = *woff2.get(*at).ok_or("truncated directory")?;
            *at += 1;
            v = (v << 7) | (b & 0x7f) as usize;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err("bad UIntBase128".into())
    };
    let mut cmap = None;
    let mut offset = 0;
    for _ in 0..tables {
        let flags = *woff2.get(at).ok_or("truncated directory")?;
        at += 1;
        let index = flags & 0x3f;
        if index == 63 {
            at += 4;
        }
        let original = base128(&mut at)?;
        let version = flags >> 6;
        // glyf and loca (10, 11) are transformed at version 0, others at 1..3.
        let transformed = if index == 10 || index == 11 {
            version == 0
        } else {
            version != 0
        };
        let stored = if transformed {
            base128(&mut at)?
        } else {
            original
        };
        if index == 0 {
            cmap = Some((offset, stored));
        }
        offset += stored;
    }
    let (start, len) = cmap.ok_or("no cmap table")?;
    let mut data = Vec::new();
    brotli::Decompressor::new(woff2.get(at..at + compressed).ok_or("truncated")?, 4096)
        .read_to_end(&mut data)
        .map_err(|e| e.to_string())?;
    let cmap = data
        .get(start..start + len)
        .ok_or("cmap outside the data")?;
    let mut out = BTreeSet::new();
    for k in 0..be16(cmap, 2)? {
        let sub = be32(cmap, 4 + 8 * k + 4)?;
        match be16(cmap, sub)? {
            4 => {
                let segs = be16(cmap, sub + 6)? / 2;
                let ends = sub + 14;
                let starts = ends + 2 * segs + 2;
                let deltas = starts + 2 * segs;
                let ranges = deltas + 2 * segs;
                for s in 0..segs {
                    let (lo, hi) = (be16(cmap, starts + 2 * s)?, be16(cmap, ends + 2 * s)?);
                    let (delta, range) = (be16(cmap, deltas + 2 * s)?, be16(cmap, ranges + 2 * s)?);
                    for c in lo..=hi.min(0xfffe) {
                        let glyph = if range == 0 {
                            (c + delta) & 0xffff
                        } else {
                            let g = be16(cmap, ranges + 2 * s + range + 2 * (c - lo))?;
                            if g == 0 {
                                0
                            } else {
                                (g + delta) & 0xffff
                            }
                        };
                        if glyph != 0 {
                            out.extend(u32::try_from(c).ok().and_then(char::from_u32));
                        }
                    }
                }
            }
            12 => {
                for g in 0..be32(cmap, sub + 12)? {
                    let group = sub + 16 + 12 * g;
                    let (lo, hi) = (be32(cmap, group)?, be32(cmap, group + 4)?);
                    out.extend(
                        (lo..=hi).filter_map(|c| u32::try_from(c).ok().and_then(char::from_u32)),
                    );
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn math_elements_use_the_font_which_never_swaps_in_late() {
        let css = css("math-1.woff2");
        assert!(css.contains("src:url(math-1.woff2) format(\"woff2\");font-display:optional}"));
        assert!(
            css.ends_with("math{font-family:\"Ridgeline Math\",math}"),
            "{css}"
        );
    }

    #[test]
    fn math_text_and_the_italic_form_of_single_letter_identifiers_are_collected() {
        let html = r#"<p>x</p><math display="inline"><mi>N</mi><mo>&lt;</mo><mi>max</mi><msub><mi>α</mi><mn>2</mn></msub></math> y"#;
        let chars = math_chars(html);
        let want: BTreeSet<char> = "N<max\u{3b1}2\u{1D441}\u{1D6FC}".chars().collect();
        assert_eq!(chars, want);
        assert_eq!(italic('h'), Some('\u{210E}'));
        assert_eq!(italic('z'), Some('\u{1D467}'));
        assert_eq!(italic('1'), None);
    }

    /// Every character any page's MathML uses is in the shipped font, so no
    /// formula falls back to another face glyph by glyph.
    #[test]
    fn the_shipped_math_font_covers_every_character_the_pages_math_uses() {
        let font = std::fs::read(crate::repo_root().join(FONT)).expect("the math font");
        let have = woff2_chars(&font).expect("a WOFF2 font");
        assert!(
            have.contains(&'\u{1D441}') && have.contains(&'∑'),
            "{have:?}"
        );
        let mut used = chapter_math_chars().expect("chapters render");
        assert!(used.len() > 50, "{used:?}");
        let ctx = crate::pages::tests::ctx();
        for route in crate::pages::Route::all() {
            used.extend(math_chars(&crate::pages::document(route, &ctx)));
        }
        let missing: String = used.iter().filter(|c| !have.contains(c)).collect();
        assert!(
            missing.is_empty(),
            "the math font lacks {missing:?}: run scripts/math-font.sh"
        );
    }
}
