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
//! program's data, an older or newer version — is never silently dropped: it
//! is kept as a dated copy ([`crate::backups`]) and the reader is told. A
//! solved exercise this version does not know (a newer version's, or one
//! renamed) is set aside the same way, and the rest of the progress is kept.

use ridgeline_core::check::whole;
use std::collections::BTreeMap;

/// The schema name written into every file.
pub const SCHEMA: &str = "ridgeline-progress";
/// The schema version this build reads and writes.
pub const VERSION: u32 = 1;
/// The localStorage key of the current progress.
pub const KEY: &str = "ridgeline.progress.v1";
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

impl Unreadable {
    /// Why `what` ("the file", "the saved progress") is not usable progress.
    pub fn describe(&self, what: &str) -> String {
        match self {
            Unreadable::Corrupted(e) => format!("{what} is damaged ({e})"),
            Unreadable::Foreign => format!("{what} is not ridgeline progress"),
            Unreadable::OtherVersion(v) => {
                format!("{what} is in format version {v}; this version reads {VERSION}")
            }
        }
    }
}

/// Progress read from text: what this version knows, and the solved
/// exercises it does not (set aside, never dropped).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Read {
    /// The exercises this version knows.
    pub progress: Progress,
    /// Ids of solved exercises this version does not know.
    pub set_aside: Vec<String>,
}

impl Read {
    /// Set-aside ids as a message names them: `“ch99-new”, “x”`.
    pub fn set_aside_text(ids: &[String]) -> String {
        ids.iter()
            .map(|id| format!("“{}”", crate::input::short(id)))
            .collect::<Vec<_>>()
            .join(", ")
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

    /// Parses the versioned JSON format; `known` says which ids exist. An
    /// unknown id is set aside ([`Read::set_aside`]), the rest still read; an
    /// entry that is not a whole-number record refuses the whole text.
    pub fn from_json(text: &str, known: &dyn Fn(&str) -> bool) -> Result<Read, Unreadable> {
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
                return Err(Unreadable::OtherVersion(whole(*n).unwrap_or(u32::MAX)))
            }
            _ => return Err(Unreadable::Foreign),
        }
        let Some(Json::Obj(fields)) = v.get("solved") else {
            return Err(Unreadable::Foreign);
        };
        let mut solved = BTreeMap::new();
        let mut set_aside = Vec::new();
        for (id, entry) in fields {
            let num = |k: &str| match entry.get(k) {
                Some(Json::Num(n)) if n.fract() == 0.0 && *n >= 0.0 && *n <= 1e15 => Ok(*n),
                _ => Err(Unreadable::Corrupted(format!(
                    "entry “{id}” lacks a whole-number {k}"
                ))),
            };
            let record = Solved {
                attempts: whole(num("attempts")?).unwrap_or(u32::MAX),
                seed: whole(num("seed")?).unwrap_or_default(),
            };
            if known(id) {
                solved.insert(id.clone(), record);
            } else {
                set_aside.push(id.clone());
            }
        }
        Ok(Read {
            progress: Progress { solved },
            set_aside,
        })
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

/// The stored progress as this visit reads it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Loaded {
    /// What could be read.
    pub progress: Progress,
    /// What the reader must be told: data set aside or left in place.
    pub notice: Option<String>,
    /// False when stored data could not be read and the browser would not
    /// keep a copy of it: saving would overwrite it, so nothing is saved.
    pub can_save: bool,
    /// True when what was stored has been kept as a copy and should now be
    /// replaced by [`Loaded::progress`] (the part this version reads).
    pub replace: bool,
}

/// Reads the stored progress. Text that is not usable progress, and solved
/// exercises this version does not know, are kept as a dated copy
/// ([`crate::backups`]) before anything can overwrite them, and the notice
/// says so; if the browser will not keep the copy, the data stays where it
/// is and nothing is saved over it.
pub fn load() -> Loaded {
    let fresh = Loaded {
        can_save: true,
        ..Loaded::default()
    };
    // A static page is written natively at build time: nobody's progress.
    if cfg!(not(target_arch = "wasm32")) {
        return fresh;
    }
    let Some(storage) = leptos::prelude::window().local_storage().ok().flatten() else {
        return fresh;
    };
    let Ok(Some(text)) = storage.get_item(KEY) else {
        return fresh;
    };
    let loaded = loaded_from(&text, &crate::content::is_exercise, &mut |why| {
        crate::backups::keep(crate::backups::Kind::Progress, &text, why)
    });
    if loaded.replace {
        // The copy is kept: the stored text becomes what this version reads,
        // so the next visit does not report it again.
        let _ = if loaded.progress.solved.is_empty() {
            storage.remove_item(KEY)
        } else {
            storage.set_item(KEY, &loaded.progress.to_json())
        };
    }
    loaded
}

/// [`load`] of the stored `text`, keeping copies with `keep(why)`.
fn loaded_from(
    text: &str,
    known: &dyn Fn(&str) -> bool,
    keep: &mut dyn FnMut(&str) -> Result<String, String>,
) -> Loaded {
    let listed = "a dated copy is kept in this browser, listed below on the progress page";
    match Progress::from_json(text, known) {
        Ok(Read {
            progress,
            set_aside,
        }) if set_aside.is_empty() => Loaded {
            progress,
            notice: None,
            can_save: true,
            replace: false,
        },
        Ok(Read {
            progress,
            set_aside,
        }) => {
            let (n, ids) = (set_aside.len(), Read::set_aside_text(&set_aside));
            let why = format!("solved exercises this version does not know: {ids}");
            let (notice, can_save) = match keep(&why) {
                Ok(_) => (
                    format!("Your progress was read, but {} solved exercise(s) this version does not know were set aside ({ids}); {listed}.", n),
                    true,
                ),
                Err(e) => (
                    format!("Your progress was read, but {} solved exercise(s) this version does not know ({ids}) could not be set aside: {e}. Your stored progress is left as it was and nothing new is saved over it; export it to keep it.", n),
                    false,
                ),
            };
            Loaded {
                progress,
                notice: Some(notice),
                can_save,
                replace: can_save,
            }
        }
        Err(e) => {
            let why = e.describe("the saved progress");
            match keep(&why) {
                Ok(_) => Loaded {
                    progress: Progress::default(),
                    notice: Some(format!("Your saved progress could not be read: {why}. Nothing of it is lost: {listed}, where you can download or restore it.")),
                    can_save: true,
                    replace: true,
                },
                Err(err) => Loaded {
                    progress: Progress::default(),
                    notice: Some(format!("Your saved progress could not be read: {why}; and {err}, so it is left where it is and nothing is saved over it.")),
                    can_save: false,
                    replace: false,
                },
            }
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

/// Records a solved exercise and saves (unless stored data that could not
/// be kept aside would be overwritten).
pub fn record(id: &str, attempts: u32, seed: u64) {
    let Loaded {
        progress: mut p,
        can_save,
        ..
    } = load();
    p.merge(&Progress {
        solved: BTreeMap::from([(id.to_string(), Solved { attempts, seed })]),
    });
    if can_save {
        let _ = save(&p);
    }
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
        assert_eq!(
            Progress::from_json(&text, &known),
            Ok(Read {
                progress: p,
                set_aside: vec![]
            })
        );
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
        // An unknown exercise is set aside; the rest is read.
        let read = Progress::from_json("{\"schema\":\"ridgeline-progress\",\"version\":1,\"solved\":{\"x\":{\"attempts\":1,\"seed\":0},\"ch1-q2\":{\"attempts\":2,\"seed\":0}}}", &known).unwrap();
        assert_eq!(read.set_aside, ["x"]);
        assert_eq!(read.progress.solved.keys().collect::<Vec<_>>(), ["ch1-q2"]);
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
            // What is read writes back as the same progress.
            if let Ok(read) = Progress::from_json(&text, &known) {
                let again = Progress::from_json(&read.progress.to_json(), &known).unwrap();
                assert_eq!(again.progress, read.progress, "{text}");
                assert!(again.set_aside.is_empty());
            }
        }
        let deep = "[".repeat(10_000);
        assert!(parse_json(&deep).is_err());
    }

    /// The findings of issue 41: one unknown exercise id marked all stored
    /// progress "damaged" and hid it under a key no page showed, and an
    /// imported file was refused as "the saved progress". Now the rest is
    /// kept, the copy is made before anything is replaced, a refused copy
    /// stops every save, and each message names its real source.
    #[test]
    fn unknown_ids_are_set_aside_and_a_refused_copy_stops_saving() {
        let text = "{\"schema\":\"ridgeline-progress\",\"version\":1,\"solved\":{\"ch1-q2\":{\"attempts\":1,\"seed\":0},\"zz-new\":{\"attempts\":4,\"seed\":0}}}";
        let mut kept = Vec::new();
        let l = loaded_from(text, &known, &mut |why| {
            kept.push(why.to_string());
            Ok("ridgeline.backup.progress.1".into())
        });
        assert_eq!(l.progress.solved.len(), 1);
        assert!((l.can_save, l.replace) == (true, true));
        assert_eq!(
            kept,
            ["solved exercises this version does not know: “zz-new”"]
        );
        assert!(l.notice.unwrap().contains("set aside (“zz-new”)"));
        let refused = loaded_from(text, &known, &mut |_| Err("the storage is full".into()));
        assert!((refused.can_save, refused.replace) == (false, false));
        assert!(refused.notice.unwrap().contains("the storage is full"));
        let broken = loaded_from("{\"schema\":", &known, &mut |_| Ok("k".into()));
        assert!(broken
            .notice
            .unwrap()
            .starts_with("Your saved progress could not be read: the saved progress is damaged"));
        assert!(broken.progress.solved.is_empty() && broken.replace);
        assert_eq!(
            Unreadable::Foreign.describe("the file"),
            "the file is not ridgeline progress"
        );
        assert!(Unreadable::Corrupted("x".into())
            .describe("the file")
            .starts_with("the file is damaged"));
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
