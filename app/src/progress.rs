//! The reader's progress on the exercises: which ones they solved, kept in
//! `localStorage` under a versioned schema, exported to and imported from a
//! JSON file.
//!
//! The format is small and hand-parsed (no serde in the browser bundle):
//!
//! ```json
//! {"schema":"ridgeline-progress","version":1,"solved":{"ch1-q2":{"attempts":2,"seed":0}}}
//! ```
//!
//! Anything that does not parse as this schema — corrupted text, another
//! program's data, an older or newer version — is never silently dropped: the
//! caller keeps it as a backup and tells the reader.

use std::collections::BTreeMap;

/// The schema name written into every file.
pub const SCHEMA: &str = "ridgeline-progress";
/// The schema version this build reads and writes.
pub const VERSION: u32 = 1;
/// The localStorage key of the current progress.
pub const KEY: &str = "ridgeline.progress.v1";
/// Prefix of backup keys for entries that could not be read.
pub const BACKUP_PREFIX: &str = "ridgeline.progress.backup.";
/// Largest file accepted on import.
pub const MAX_BYTES: usize = 1 << 20;

/// One solved exercise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Solved {
    /// Attempts it took, including the correct one.
    pub attempts: u32,
    /// The variant's seed (0 is the book's numbers).
    pub seed: u64,
}

/// Everything stored.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Progress {
    /// Solved exercises by id.
    pub solved: BTreeMap<String, Solved>,
}

/// A minimal JSON value.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    /// `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// A number.
    Num(f64),
    /// A string.
    Str(String),
    /// An array.
    Arr(Vec<Json>),
    /// An object, keys in order.
    Obj(Vec<(String, Json)>),
}

/// Parses JSON text; nesting deeper than 32 levels is refused.
pub fn parse_json(text: &str) -> Result<Json, String> {
    let mut p = Parser {
        s: text.as_bytes(),
        i: 0,
        depth: 0,
    };
    let v = p.value()?;
    p.ws();
    if p.i != p.s.len() {
        return Err(format!("unexpected text at byte {}", p.i));
    }
    Ok(v)
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
    depth: u32,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && matches!(self.s[self.i], b' ' | b'\n' | b'\r' | b'\t') {
            self.i += 1;
        }
    }

    fn eat(&mut self, c: u8) -> Result<(), String> {
        self.ws();
        if self.s.get(self.i) == Some(&c) {
            self.i += 1;
            Ok(())
        } else {
            Err(format!("expected '{}' at byte {}", c as char, self.i))
        }
    }

    fn value(&mut self) -> Result<Json, String> {
        self.ws();
        self.depth += 1;
        if self.depth > 32 {
            return Err("nested too deeply".into());
        }
        let v = match self.s.get(self.i) {
            Some(b'{') => self.object(),
            Some(b'[') => self.array(),
            Some(b'"') => self.string().map(Json::Str),
            Some(b't') => self.word("true", Json::Bool(true)),
            Some(b'f') => self.word("false", Json::Bool(false)),
            Some(b'n') => self.word("null", Json::Null),
            Some(c) if *c == b'-' || c.is_ascii_digit() => self.number(),
            _ => Err(format!("unexpected character at byte {}", self.i)),
        };
        self.depth -= 1;
        v
    }

    fn word(&mut self, w: &str, v: Json) -> Result<Json, String> {
        if self.s[self.i..].starts_with(w.as_bytes()) {
            self.i += w.len();
            Ok(v)
        } else {
            Err(format!("unexpected word at byte {}", self.i))
        }
    }

    fn number(&mut self) -> Result<Json, String> {
        let start = self.i;
        while self.i < self.s.len()
            && matches!(
                self.s[self.i],
                b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'
            )
        {
            self.i += 1;
        }
        std::str::from_utf8(&self.s[start..self.i])
            .ok()
            .and_then(|t| t.parse::<f64>().ok())
            .filter(|x| x.is_finite())
            .map(Json::Num)
            .ok_or_else(|| format!("bad number at byte {start}"))
    }

    fn string(&mut self) -> Result<String, String> {
        self.eat(b'"')?;
        let mut out = Vec::new();
        loop {
            match self.s.get(self.i) {
                None => return Err("unterminated string".into()),
                Some(b'"') => {
                    self.i += 1;
                    break;
                }
                Some(b'\\') => {
                    let esc = self
                        .s
                        .get(self.i + 1)
                        .copied()
                        .ok_or("unterminated escape")?;
                    self.i += 2;
                    match esc {
                        b'"' | b'\\' | b'/' => out.push(esc),
                        b'n' => out.push(b'\n'),
                        b't' => out.push(b'\t'),
                        b'r' => out.push(b'\r'),
                        b'b' | b'f' => {}
                        b'u' => {
                            let hex = self.s.get(self.i..self.i + 4).ok_or("short \\u escape")?;
                            let code = std::str::from_utf8(hex)
                                .ok()
                                .and_then(|h| u32::from_str_radix(h, 16).ok())
                                .ok_or("bad \\u escape")?;
                            self.i += 4;
                            let ch = char::from_u32(code).unwrap_or('\u{fffd}');
                            let mut buf = [0u8; 4];
                            out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                        }
                        _ => return Err(format!("bad escape at byte {}", self.i)),
                    }
                }
                Some(&c) => {
                    out.push(c);
                    self.i += 1;
                }
            }
        }
        String::from_utf8(out).map_err(|_| "string is not UTF-8".to_string())
    }

    fn array(&mut self) -> Result<Json, String> {
        self.eat(b'[')?;
        let mut items = Vec::new();
        self.ws();
        if self.s.get(self.i) == Some(&b']') {
            self.i += 1;
            return Ok(Json::Arr(items));
        }
        loop {
            items.push(self.value()?);
            self.ws();
            match self.s.get(self.i) {
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    return Ok(Json::Arr(items));
                }
                _ => return Err(format!("expected ',' or ']' at byte {}", self.i)),
            }
        }
    }

    fn object(&mut self) -> Result<Json, String> {
        self.eat(b'{')?;
        let mut fields = Vec::new();
        self.ws();
        if self.s.get(self.i) == Some(&b'}') {
            self.i += 1;
            return Ok(Json::Obj(fields));
        }
        loop {
            self.ws();
            let k = self.string()?;
            self.eat(b':')?;
            fields.push((k, self.value()?));
            self.ws();
            match self.s.get(self.i) {
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    return Ok(Json::Obj(fields));
                }
                _ => return Err(format!("expected ',' or '}}' at byte {}", self.i)),
            }
        }
    }
}

impl Json {
    fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Obj(fields) => fields.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
}

/// `s` escaped for the inside of a JSON string (quotes, backslashes and
/// control characters). Not for HTML: that is `ridgeline_content::html::escape`.
pub(crate) fn json_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// Why stored or imported text is not usable progress.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unreadable {
    /// Not JSON at all.
    Corrupted(String),
    /// JSON, but not ridgeline's progress.
    Foreign,
    /// ridgeline's progress in a version this build does not read.
    OtherVersion(u32),
}

impl std::fmt::Display for Unreadable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unreadable::Corrupted(e) => write!(f, "the saved progress is damaged ({e})"),
            Unreadable::Foreign => f.write_str("the file is not ridgeline progress"),
            Unreadable::OtherVersion(v) => write!(
                f,
                "the progress is in format version {v}; this version reads {VERSION}"
            ),
        }
    }
}

impl Progress {
    /// Serialises to the versioned JSON format.
    pub fn to_json(&self) -> String {
        let entries: Vec<String> = self
            .solved
            .iter()
            .map(|(id, s)| {
                format!(
                    "\"{}\":{{\"attempts\":{},\"seed\":{}}}",
                    json_escape(id),
                    s.attempts,
                    s.seed
                )
            })
            .collect();
        format!(
            "{{\"schema\":\"{SCHEMA}\",\"version\":{VERSION},\"solved\":{{{}}}}}",
            entries.join(",")
        )
    }

    /// Parses the versioned JSON format; `known` says which ids exist (unknown ids
    /// are an error, so another program's data is not mistaken for ours).
    pub fn from_json(text: &str, known: &dyn Fn(&str) -> bool) -> Result<Progress, Unreadable> {
        if text.len() > MAX_BYTES {
            return Err(Unreadable::Corrupted("larger than 1 MiB".into()));
        }
        let v = parse_json(text).map_err(Unreadable::Corrupted)?;
        if v.get("schema") != Some(&Json::Str(SCHEMA.into())) {
            return Err(Unreadable::Foreign);
        }
        match v.get("version") {
            Some(Json::Num(n)) if *n == VERSION as f64 => {}
            Some(Json::Num(n)) if n.fract() == 0.0 && *n >= 0.0 && *n < 1e6 => {
                return Err(Unreadable::OtherVersion(*n as u32))
            }
            _ => return Err(Unreadable::Foreign),
        }
        let Some(Json::Obj(fields)) = v.get("solved") else {
            return Err(Unreadable::Foreign);
        };
        let mut solved = BTreeMap::new();
        for (id, entry) in fields {
            if !known(id) {
                return Err(Unreadable::Corrupted(format!(
                    "unknown exercise “{}”",
                    crate::input::short(id)
                )));
            }
            let num = |k: &str| match entry.get(k) {
                Some(Json::Num(n)) if n.fract() == 0.0 && *n >= 0.0 && *n <= 1e15 => Ok(*n),
                _ => Err(Unreadable::Corrupted(format!(
                    "entry “{id}” lacks a whole-number {k}"
                ))),
            };
            solved.insert(
                id.clone(),
                Solved {
                    attempts: num("attempts")?.min(u32::MAX as f64) as u32,
                    seed: num("seed")? as u64,
                },
            );
        }
        Ok(Progress { solved })
    }

    /// Adds everything in `other`, keeping the fewer attempts where both have an entry.
    pub fn merge(&mut self, other: &Progress) {
        for (id, s) in &other.solved {
            self.solved
                .entry(id.clone())
                .and_modify(|e| {
                    if s.attempts < e.attempts {
                        *e = *s;
                    }
                })
                .or_insert(*s);
        }
    }
}

/// Reads the stored progress. Unreadable data is moved to a backup key and
/// the returned message says so; the reader starts afresh without losing it.
pub fn load() -> (Progress, Option<String>) {
    // A static page is written natively at build time: nobody's progress.
    if cfg!(not(target_arch = "wasm32")) {
        return (Progress::default(), None);
    }
    let Some(storage) = leptos::prelude::window().local_storage().ok().flatten() else {
        return (Progress::default(), None);
    };
    let Ok(Some(text)) = storage.get_item(KEY) else {
        return (Progress::default(), None);
    };
    match Progress::from_json(&text, &crate::content::is_exercise) {
        Ok(p) => (p, None),
        Err(e) => {
            let backup = format!("{BACKUP_PREFIX}{}", js_sys::Date::now() as u64);
            let _ = storage.set_item(&backup, &text);
            let _ = storage.remove_item(KEY);
            (Progress::default(), Some(format!("Your saved progress could not be read: {e}. It was kept under “{backup}” in this browser's storage.")))
        }
    }
}

/// Saves progress; returns a message if the browser refused.
pub fn save(p: &Progress) -> Option<String> {
    let storage = leptos::prelude::window().local_storage().ok().flatten()?;
    storage
        .set_item(KEY, &p.to_json())
        .err()
        .map(|_| "This browser did not let us save your progress.".to_string())
}

/// Records a solved exercise and saves.
pub fn record(id: &str, attempts: u32, seed: u64) {
    let (mut p, _) = load();
    p.merge(&Progress {
        solved: BTreeMap::from([(id.to_string(), Solved { attempts, seed })]),
    });
    let _ = save(&p);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known(id: &str) -> bool {
        id.starts_with("ch")
    }

    #[test]
    fn round_trip() {
        let mut p = Progress::default();
        p.solved.insert(
            "ch1-q2".into(),
            Solved {
                attempts: 3,
                seed: 0,
            },
        );
        p.solved.insert(
            "ch3-q5".into(),
            Solved {
                attempts: 1,
                seed: 1234,
            },
        );
        let text = p.to_json();
        assert_eq!(Progress::from_json(&text, &known), Ok(p));
    }

    #[test]
    fn refuses_what_is_not_ours() {
        assert!(matches!(
            Progress::from_json("{not json", &known),
            Err(Unreadable::Corrupted(_))
        ));
        assert_eq!(
            Progress::from_json("{\"a\":1}", &known),
            Err(Unreadable::Foreign)
        );
        assert_eq!(
            Progress::from_json(
                "{\"schema\":\"ridgeline-progress\",\"version\":0,\"solved\":{}}",
                &known
            ),
            Err(Unreadable::OtherVersion(0))
        );
        assert!(matches!(
            Progress::from_json("{\"schema\":\"ridgeline-progress\",\"version\":1,\"solved\":{\"x\":{\"attempts\":1,\"seed\":0}}}", &known),
            Err(Unreadable::Corrupted(_))
        ));
        assert!(matches!(
            Progress::from_json("{\"schema\":\"ridgeline-progress\",\"version\":1,\"solved\":{\"ch1\":{\"attempts\":-1,\"seed\":0}}}", &known),
            Err(Unreadable::Corrupted(_))
        ));
    }

    #[test]
    fn never_panics_on_junk() {
        let mut x: u64 = 0x9e3779b97f4a7c15;
        let alphabet = b"{}[]\":,0123456789.-eE tfnul\\abc\xc3\xa9";
        for _ in 0..20_000 {
            let mut s = Vec::new();
            for _ in 0..(x % 40) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                s.push(alphabet[(x % alphabet.len() as u64) as usize]);
            }
            let text = String::from_utf8_lossy(&s);
            let _ = parse_json(&text);
            let _ = Progress::from_json(&text, &known);
        }
        let deep = "[".repeat(10_000);
        assert!(parse_json(&deep).is_err());
    }

    #[test]
    fn merge_keeps_the_best() {
        let mut a = Progress::default();
        a.solved.insert(
            "ch1-q2".into(),
            Solved {
                attempts: 3,
                seed: 0,
            },
        );
        let mut b = Progress::default();
        b.solved.insert(
            "ch1-q2".into(),
            Solved {
                attempts: 1,
                seed: 5,
            },
        );
        b.solved.insert(
            "ch1-q5".into(),
            Solved {
                attempts: 2,
                seed: 0,
            },
        );
        a.merge(&b);
        assert_eq!(a.solved["ch1-q2"].attempts, 1);
        assert_eq!(a.solved.len(), 2);
    }
}
