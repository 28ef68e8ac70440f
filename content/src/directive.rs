//! The directive syntax chapters use to ask `core` for numbers and to place widgets.
//!
//! A directive is `{{name key=value key=value}}`:
//! - inline, it is a *value* directive and is replaced by the formatted number
//!   `core` computes, e.g. `{{ridge chip=v5e}}` becomes `240`;
//! - alone on its line, `{{widget roofline chip=v5e}}` places an interactive
//!   widget, and `{{exercise ch1-q2}}` places a self-graded exercise.
//!
//! ```
//! use ridgeline_content::directive::{find_directives, Directive};
//!
//! let found = find_directives("a {{ridge chip=v5e dtype=bf16}} b").unwrap();
//! assert_eq!(found[0].1, Directive::parse("ridge chip=v5e dtype=bf16").unwrap());
//! assert_eq!(found[0].1.arg("chip"), Some("v5e"));
//! ```

use std::fmt;
use std::ops::Range;

/// One parsed directive: a name, positional words, and `key=value` arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Directive {
    /// The directive's name (`ridge`, `widget`, `exercise`, ...).
    pub name: String,
    /// Words without `=`, in order (for `widget` the widget's name, for `exercise` its id).
    pub positional: Vec<String>,
    /// `key=value` pairs, in order.
    pub args: Vec<(String, String)>,
}

/// A malformed directive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirectiveError {
    /// Byte offset in the text where the problem is.
    pub at: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for DirectiveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at byte {}: {}", self.at, self.message)
    }
}

impl std::error::Error for DirectiveError {}

/// Longest directive body accepted; anything longer is a typo (an unclosed `{{`).
const MAX_LEN: usize = 400;

impl Directive {
    /// Parses the body of a directive (the text between `{{` and `}}`).
    pub fn parse(body: &str) -> Result<Directive, DirectiveError> {
        let err = |message: String| DirectiveError { at: 0, message };
        let mut words = body.split_whitespace();
        let name = words
            .next()
            .ok_or_else(|| err("empty directive `{{}}`".into()))?;
        if !is_word(name) {
            return Err(err(format!(
                "directive name `{name}` must be letters, digits and `-`"
            )));
        }
        let mut positional = Vec::new();
        let mut args: Vec<(String, String)> = Vec::new();
        for w in words {
            match w.split_once('=') {
                Some((k, v)) => {
                    if !is_word(k) {
                        return Err(err(format!(
                            "argument name `{k}` in `{{{{{name} ...}}}}` is not a word"
                        )));
                    }
                    if v.is_empty() {
                        return Err(err(format!("argument `{k}=` has no value")));
                    }
                    if args.iter().any(|(seen, _)| seen == k) {
                        return Err(err(format!("argument `{k}` given twice")));
                    }
                    args.push((k.to_string(), v.to_string()));
                }
                None => positional.push(w.to_string()),
            }
        }
        Ok(Directive {
            name: name.to_string(),
            positional,
            args,
        })
    }

    /// The value of argument `key`, if given.
    pub fn arg(&self, key: &str) -> Option<&str> {
        self.args
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Rejects any argument whose key is not in `allowed`.
    pub fn check_args(&self, allowed: &[&str]) -> Result<(), String> {
        for (k, _) in &self.args {
            if !allowed.contains(&k.as_str()) {
                return Err(format!(
                    "`{}` takes no argument `{k}` (it takes: {})",
                    self.name,
                    if allowed.is_empty() {
                        "none".to_string()
                    } else {
                        allowed.join(", ")
                    }
                ));
            }
        }
        Ok(())
    }
}

impl fmt::Display for Directive {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{{{{{}", self.name)?;
        for p in &self.positional {
            write!(f, " {p}")?;
        }
        for (k, v) in &self.args {
            write!(f, " {k}={v}")?;
        }
        write!(f, "}}}}")
    }
}

fn is_word(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.')
}

/// Finds every `{{...}}` in `text`, with the byte range each occupies (braces included).
pub fn find_directives(text: &str) -> Result<Vec<(Range<usize>, Directive)>, DirectiveError> {
    let mut out = Vec::new();
    let mut pos = 0;
    while let Some(rel) = text[pos..].find("{{") {
        let start = pos + rel;
        let body_start = start + 2;
        let Some(end_rel) = text[body_start..].find("}}") else {
            return Err(DirectiveError {
                at: start,
                message: "`{{` is never closed".into(),
            });
        };
        let body = &text[body_start..body_start + end_rel];
        if body.len() > MAX_LEN || body.contains("{{") || body.contains('\n') {
            return Err(DirectiveError {
                at: start,
                message: "`{{` is not closed on the same line".into(),
            });
        }
        let directive = Directive::parse(body).map_err(|e| DirectiveError {
            at: start,
            message: e.message,
        })?;
        let end = body_start + end_rel + 2;
        out.push((start..end, directive));
        pos = end;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_names_positionals_and_args() {
        let d = Directive::parse(" widget  roofline chip=v5e op=matmul ").unwrap();
        assert_eq!(d.name, "widget");
        assert_eq!(d.positional, vec!["roofline"]);
        assert_eq!(d.arg("op"), Some("matmul"));
        assert_eq!(d.arg("nope"), None);
        assert_eq!(d.to_string(), "{{widget roofline chip=v5e op=matmul}}");
    }

    #[test]
    fn rejects_bad_directives() {
        for (text, why) in [
            ("", "at byte 0: empty directive `{{}}`"),
            ("a k=", "at byte 0: argument `k=` has no value"),
            ("a k=1 k=2", "at byte 0: argument `k` given twice"),
            (
                "<b>",
                "at byte 0: directive name `<b>` must be letters, digits and `-`",
            ),
        ] {
            assert_eq!(Directive::parse(text).unwrap_err().to_string(), why);
        }
        for (text, why) in [
            ("x {{ridge", "at byte 2: `{{` is never closed"),
            (
                "x {{ridge\n}}",
                "at byte 2: `{{` is not closed on the same line",
            ),
        ] {
            assert_eq!(find_directives(text).unwrap_err().to_string(), why);
        }
    }

    #[test]
    fn finds_all_with_ranges() {
        let t = "{{a}} and {{b k=v}}";
        let found = find_directives(t).unwrap();
        assert_eq!(found.len(), 2);
        assert_eq!(&t[found[1].0.clone()], "{{b k=v}}");
        assert!(find_directives("no directives").unwrap().is_empty());
    }

    #[test]
    fn check_args_names_the_allowed_keys() {
        let d = Directive::parse("ridge chip=v5e colour=red").unwrap();
        let e = d.check_args(&["chip", "dtype"]).unwrap_err();
        assert!(e.contains("colour") && e.contains("chip, dtype"), "{e}");
    }
}
