//! Markdown with math and directives to HTML, at build time.
//!
//! Math (`$…$`, `$$…$$`) becomes MathML, so the browser downloads no math
//! JavaScript. Value directives become numbers computed by `core`; widget
//! directives become empty slots (`<div class="widget-slot" data-slot="roofline"
//! data-args="chip=v5e">`) that the app fills. Anything the renderer does not
//! handle on purpose — raw HTML, images, malformed math, unknown directives — is
//! an error, so nothing is silently dropped.
//!
//! ```
//! use ridgeline_content::render::render_chapter;
//!
//! let page = render_chapter("# Roofs\n\nThe ridge is {{ridge chip=v5e}} and $I = C/W$.\n\n{{widget roofline chip=v5e}}\n").unwrap();
//! assert!(page.html.contains("The ridge is 240"));
//! assert!(page.html.contains("<math"));
//! assert!(page.html.contains(r#"data-slot="roofline""#));
//! assert_eq!(page.title, "Roofs");
//! ```

use crate::directive::{find_directives, Directive};
use crate::html::escape;
use crate::values::evaluate;
use crate::widgets::widget;
use pulldown_cmark::{CowStr, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use pulldown_latex::config::DisplayMode;
use pulldown_latex::{push_mathml, RenderConfig, Storage};

/// A rendered chapter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    /// The chapter body as HTML.
    pub html: String,
    /// The text of the first level-1 heading.
    pub title: String,
    /// Level-2 headings as (anchor id, text), for the table of contents.
    pub sections: Vec<(String, String)>,
    /// Widget directives placed, in order.
    pub widgets: Vec<Directive>,
    /// The chapter's plain text (for search), directives evaluated, math as source.
    pub text: String,
    /// The body split at widget slots: HTML runs and the widgets between them.
    pub segments: Vec<Segment>,
}

/// A run of a chapter's body: static HTML, or a widget to mount.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    /// Rendered HTML.
    Html(String),
    /// A widget: its name and its `key=value` arguments.
    Widget(String, Vec<(String, String)>),
}

const SLOT: &str = "RIDGELINESLOT";
const MARK: &str = "RIDGELINEMEASURED";

/// Renders one chapter, or explains precisely what is wrong with it.
pub fn render_chapter(source: &str) -> Result<Rendered, String> {
    let (expanded, widgets, marks) = expand_directives(source)?;
    let mut options = Options::empty();
    options.insert(Options::ENABLE_TABLES);
    options.insert(Options::ENABLE_MATH);
    options.insert(Options::ENABLE_SMART_PUNCTUATION);
    options.insert(Options::ENABLE_STRIKETHROUGH);

    let mut events: Vec<Event> = Vec::new();
    let mut title = String::new();
    let mut sections = Vec::new();
    let mut text = String::new();
    let mut heading: Option<(HeadingLevel, usize, String)> = None;
    let mut in_code_block = false;

    for event in Parser::new_ext(&expanded, options) {
        match &event {
            Event::Start(Tag::CodeBlock(_)) => in_code_block = true,
            Event::End(TagEnd::CodeBlock) => in_code_block = false,
            // Text outside code must not hold math the parser did not recognise (for
            // example `$D = $`, whose closing `$` follows a space) or a directive that
            // was not expanded.
            Event::Text(t) if !in_code_block && (t.contains('$') || t.contains("{{")) => {
                return Err(format!(
                    "unrendered {} in text: `{}` (write math as `$D$ = {{{{value}}}}`, \
                     with no space before a closing `$`)",
                    if t.contains('$') {
                        "TeX delimiter `$`"
                    } else {
                        "directive `{{`"
                    },
                    t.trim()
                ));
            }
            Event::Html(h) | Event::InlineHtml(h) => {
                return Err(format!(
                    "raw HTML is not allowed in chapters: `{}`",
                    h.trim()
                ));
            }
            Event::Start(Tag::Image { .. }) => {
                return Err("images are not supported yet; draw it as a widget".into());
            }
            Event::FootnoteReference(_) | Event::TaskListMarker(_) => {
                return Err("footnotes and task lists are not supported".into());
            }
            Event::Start(Tag::Heading { level, .. }) => {
                heading = Some((*level, events.len(), String::new()));
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some((level, start, htext)) = heading.take() {
                    let id = unique_slug(&htext, &sections);
                    if let Event::Start(Tag::Heading { id: slot, .. }) = &mut events[start] {
                        *slot = Some(CowStr::from(id.clone()));
                    }
                    match level {
                        HeadingLevel::H1 if title.is_empty() => title = htext.clone(),
                        HeadingLevel::H2 => sections.push((id, htext.clone())),
                        _ => {}
                    }
                    text.push_str(&htext);
                    text.push('\n');
                }
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some((_, _, h)) = heading.as_mut() {
                    h.push_str(t);
                } else if !t.starts_with(SLOT) && !t.starts_with(MARK) {
                    text.push_str(t);
                    text.push(' ');
                }
            }
            Event::InlineMath(m) | Event::DisplayMath(m) => {
                text.push_str(m);
                text.push(' ');
            }
            _ => {}
        }
        let event = match event {
            Event::InlineMath(m) => Event::InlineHtml(mathml(&m, DisplayMode::Inline)?.into()),
            Event::DisplayMath(m) => Event::Html(mathml(&m, DisplayMode::Block)?.into()),
            e => e,
        };
        events.push(event);
    }
    if title.is_empty() {
        return Err("a chapter must start with a `# Title`".into());
    }

    let mut html = String::new();
    pulldown_cmark::html::push_html(&mut html, events.into_iter());
    for (i, mark) in marks.iter().enumerate() {
        let token = format!("<p>{MARK}{i}X</p>\n");
        if !html.contains(&token) {
            return Err("a measured directive must stand alone in its own paragraph".into());
        }
        html = html.replacen(&token, mark, 1);
    }
    let mut segments = Vec::new();
    let mut rest = html.as_str();
    let mut with_slots = String::new();
    for (i, w) in widgets.iter().enumerate() {
        let token = format!("<p>{SLOT}{i}X</p>");
        let Some((before, after)) = rest.split_once(&token) else {
            return Err(format!(
                "widget directive {w} must stand alone in its own paragraph"
            ));
        };
        push_html_segment(&mut segments, before);
        let name = w.positional.first().cloned().unwrap_or_default();
        segments.push(Segment::Widget(name, w.args.clone()));
        with_slots.push_str(before);
        with_slots.push_str(&slot_html(w));
        rest = after;
    }
    push_html_segment(&mut segments, rest);
    with_slots.push_str(rest);
    let html = with_slots;
    if html.contains(SLOT) {
        return Err("a widget directive was placed inside other text".into());
    }
    crate::lint::check(source)?;
    Ok(Rendered {
        html,
        title,
        sections,
        widgets,
        text,
        segments,
    })
}

fn push_html_segment(segments: &mut Vec<Segment>, html: &str) {
    if !html.trim().is_empty() {
        segments.push(Segment::Html(html.to_string()));
    }
}

/// The line, from 1, of byte `at` of `source`.
fn line_at(source: &str, at: usize) -> usize {
    let before = &source.as_bytes()[..at.min(source.len())];
    before.iter().filter(|b| **b == b'\n').count() + 1
}

/// Replaces value directives with their values and widget lines with slot tokens.
fn expand_directives(source: &str) -> Result<(String, Vec<Directive>, Vec<String>), String> {
    let found = find_directives(source).map_err(|e| {
        let line = line_at(source, e.at);
        format!("line {line}: {}", e.message)
    })?;
    let mut out = String::with_capacity(source.len());
    let mut widgets = Vec::new();
    let mut marks = Vec::new();
    let mut last = 0;
    for (range, d) in found {
        let line = line_at(source, range.start);
        out.push_str(&source[last..range.start]);
        last = range.end;
        match d.name.as_str() {
            "widget" => {
                let name = match d.positional.as_slice() {
                    [name] => name,
                    _ => return Err(format!("line {line}: {d} must name exactly one widget")),
                };
                let spec =
                    widget(name).ok_or_else(|| format!("line {line}: unknown widget `{name}`"))?;
                d.check_args(spec.args)
                    .map_err(|e| format!("line {line}: {e}"))?;
                out.push_str(&format!("{SLOT}{}X", widgets.len()));
                widgets.push(d);
            }
            "measured" => {
                d.check_args(&["id"])
                    .map_err(|e| format!("line {line}: {e}"))?;
                let id = match (d.positional.as_slice(), d.arg("id")) {
                    ([], Some(id)) => id,
                    _ => return Err(format!("line {line}: {d} must name one id=")),
                };
                let html = crate::measured::mark(id).map_err(|e| format!("line {line}: {e}"))?;
                out.push_str(&format!("{MARK}{}X", marks.len()));
                marks.push(html);
            }
            _ => {
                let value = evaluate(&d).map_err(|e| format!("line {line}: {d}: {e}"))?;
                out.push_str(&value);
            }
        }
    }
    out.push_str(&source[last..]);
    Ok((out, widgets, marks))
}

fn slot_html(d: &Directive) -> String {
    let name = d.positional.first().map(String::as_str).unwrap_or("");
    let args: Vec<String> = d.args.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!(
        "<div class=\"widget-slot\" data-slot=\"{}\" data-args=\"{}\"></div>\n",
        escape(name),
        escape(&args.join(" "))
    )
}

fn mathml(latex: &str, mode: DisplayMode) -> Result<String, String> {
    let storage = Storage::new();
    let events: Vec<_> = pulldown_latex::Parser::new(latex, &storage).collect();
    if let Some(Err(e)) = events.iter().find(|e| e.is_err()) {
        return Err(format!("math `{latex}`: {e}"));
    }
    let config = RenderConfig {
        display_mode: mode,
        ..RenderConfig::default()
    };
    let mut out = String::new();
    push_mathml(&mut out, events.into_iter(), config)
        .map_err(|e| format!("math `{latex}`: {e}"))?;
    Ok(out)
}

fn slugify(text: &str) -> String {
    let mut s = String::new();
    for c in text.chars() {
        if c.is_alphanumeric() {
            s.extend(c.to_lowercase());
        } else if !s.ends_with('-') && !s.is_empty() {
            s.push('-');
        }
    }
    s.trim_end_matches('-').to_string()
}

fn unique_slug(text: &str, taken: &[(String, String)]) -> String {
    let base = slugify(text);
    let base = if base.is_empty() {
        "section".to_string()
    } else {
        base
    };
    let mut id = base.clone();
    let mut n = 2;
    while taken.iter().any(|(t, _)| *t == id) {
        id = format!("{base}-{n}");
        n += 1;
    }
    id
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_measured_directive_becomes_a_static_mark() {
        let r =
            render_chapter("# T\n\nText.\n\n{{measured id=nccl-h100-ring}}\n\nMore.\n").unwrap();
        assert!(
            r.html
                .contains("<aside class=\"measured\" data-measured=\"nccl-h100-ring\">"),
            "{}",
            r.html
        );
        assert!(!r.html.contains(MARK));
        assert!(!r.text.contains(MARK));
        let e = render_chapter("# T\n\n{{measured id=nope}}\n").unwrap_err();
        assert!(e.contains("no measurement `nope`"), "{e}");
        let e = render_chapter("# T\n\nSee {{measured id=nccl-h100-ring}} here.\n").unwrap_err();
        assert!(e.contains("own paragraph"), "{e}");
        let e = render_chapter("# T\n\n{{measured chip=v5e}}\n").unwrap_err();
        assert!(e.contains("line 3"), "{e}");
    }

    #[test]
    fn headings_get_ids_and_sections() {
        let r = render_chapter("# T\n\n## First part\n\ntext\n\n## First part\n").unwrap();
        assert!(r.html.contains(r#"<h2 id="first-part">"#), "{}", r.html);
        assert!(r.html.contains(r#"<h2 id="first-part-2">"#));
        assert_eq!(r.sections.len(), 2);
    }

    #[test]
    fn rejects_what_it_does_not_handle() {
        assert!(render_chapter("# T\n\n<div>x</div>\n")
            .unwrap_err()
            .contains("raw HTML"));
        assert!(render_chapter("# T\n\n![a](b.png)\n")
            .unwrap_err()
            .contains("images"));
        assert!(render_chapter("no title\n").unwrap_err().contains("Title"));
        assert!(render_chapter("# T\n\n$a^^b$\n")
            .unwrap_err()
            .contains("math"));
        assert!(render_chapter("# T\n\n{{widget nope}}\n")
            .unwrap_err()
            .contains("unknown widget"));
        assert_eq!(
            render_chapter("# T\n\ntext {{widget roofline}} more\n")
                .unwrap_err()
                .to_string(),
            "widget directive {{widget roofline}} must stand alone in its own paragraph",
        );
        assert_eq!(
            render_chapter("# T\n\n{{ridge chip=v5e colour=red}}\n").unwrap_err().to_string(),
            "line 3: {{ridge chip=v5e colour=red}}: `ridge` takes no argument `colour` (it takes: chip, dtype, link, dir, fmt)",
        );
    }

    /// A directive's error names the line it is on (the live loop shows it
    /// beside the file): at a line's start, after text, and when unclosed.
    #[test]
    fn directive_errors_name_their_line() {
        let at = |src: &str| render_chapter(src).unwrap_err();
        assert!(
            at("# T\n\n{{widget nope}}\n").starts_with("line 3: "),
            "{}",
            at("# T\n\n{{widget nope}}\n")
        );
        assert!(at("# T\n\nThe {{nope chip=v5e}} ridge.\n").starts_with("line 3: "));
        assert!(at("# T\n\nOne.\n\nTwo {{ridge chip=nope}}.\n").starts_with("line 5: "));
        assert!(
            at("# T\n\n\nOpen {{ridge chip=v5e\n").starts_with("line 4: "),
            "{}",
            at("# T\n\n\nOpen {{ridge chip=v5e\n")
        );
    }

    #[test]
    fn values_and_widgets() {
        let r = render_chapter(
            "# T\n\nPeak {{peak chip=v5e}}.\n\n{{widget roofline chip=v6e op=dot}}\n",
        )
        .unwrap();
        assert!(r.html.contains("Peak 1.97e14."));
        assert!(r.html.contains(r#"data-args="chip=v6e op=dot""#));
        assert_eq!(r.widgets.len(), 1);
        assert_eq!(r.segments.len(), 2);
        assert_eq!(
            r.segments[1],
            Segment::Widget(
                "roofline".into(),
                vec![("chip".into(), "v6e".into()), ("op".into(), "dot".into())]
            )
        );
        assert!(r.text.contains("Peak 1.97e14"));
        assert!(!r.text.contains(SLOT));
    }

    #[test]
    fn raw_tex_and_unexpanded_directives_are_errors() {
        let e = render_chapter("# T\n\nWidth $D = $ 8,192.\n").unwrap_err();
        assert!(e.contains("TeX delimiter"), "{e}");
        let e = render_chapter("# T\n\nWidth {{ ridge chip=v5e.\n").unwrap_err();
        assert!(e.contains("`{{`") || e.contains("line"), "{e}");
        let ok = render_chapter("# T\n\nWidth $D$ = {{ridge chip=v5e}}.\n").unwrap();
        // The v5e's ridge is 1.97e14 / 8.2e11 = 240 FLOPs per byte.
        assert!(
            ok.html.contains("<math") && ok.html.contains("240"),
            "{}",
            ok.html
        );
        // Code may hold either, and keeps it as typed.
        let code = render_chapter("# T\n\n```\n$ echo x\n```\n\nand `$x` too.\n").unwrap();
        assert!(code.html.contains("$ echo x"), "{}", code.html);
        assert!(code.html.contains("<code>$x</code>"), "{}", code.html);
    }

    #[test]
    fn display_math_is_a_block() {
        let r = render_chapter("# T\n\n$$T = \\max(a, b)$$\n").unwrap();
        assert!(r.html.contains("display=\"block\""), "{}", r.html);
    }
}
