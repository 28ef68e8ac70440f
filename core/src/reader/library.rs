//! The reader's library: the models and chips the reader saved, kept beside the
//! registry (never inside it) under a versioned schema:
//!
//! ```json
//! { "ridgeline_library": 1,
//!   "models": [ { "name": "my 7B", "config": { "model_type": "llama", ... } } ],
//!   "chips":  [ { "name": "fast v5e", "chip": { "start_from": "v5e", ... } } ] }
//! ```
//!
//! A model is kept as its Hugging Face `config.json` object and a chip as its
//! definition object ([`crate::reader::chip`]), so the file is readable and every
//! number is recomputed by the same import as a pasted text. Loading never
//! drops what it cannot read: corrupt, foreign or newer data comes back whole as
//! a backup with the reason, beside whatever could be read.
//!
//! ```
//! use ridgeline_core::reader::library::{load, Library};
//!
//! let mut lib = Library::default();
//! lib.save_chip("fast v5e", r#"{"start_from": "v5e", "hbm": {"bandwidth": "1.62 TB/s"}}"#)
//!     .unwrap();
//! let again = load(&lib.to_json());
//! assert!(again.backup.is_none());
//! assert_eq!(again.library, lib);
//! let future = load(r#"{"ridgeline_library": 9, "models": []}"#);
//! assert!(future.backup.unwrap().1.contains("version 9"));
//! ```

use crate::hardware::chip;
use crate::model::config::{model, ModelConfig};
use crate::reader::chip::{parse_chip, ChipSpec};
use crate::reader::compact::{encode_chip, encode_model, OwnModel};
use crate::reader::hf_config::{compact, import};
use serde_json::{json, Map, Value};

/// The schema version this code writes and reads.
pub const VERSION: u64 = 1;
/// The key naming the schema in the file (its value is the version).
pub const SCHEMA_KEY: &str = "ridgeline_library";
/// The prefix of a library entry's id, so that it can never shadow a preset's.
pub use crate::reader::compact::PREFIX;
/// The longest name of a library entry, in characters.
pub const MAX_NAME: usize = 40;
/// The largest library text read, in bytes (browsers keep about 5 MB per site).
pub const MAX_LIBRARY_BYTES: usize = 4 << 20;

/// One saved model.
#[derive(Debug, Clone, PartialEq)]
pub struct SavedModel {
    /// The reader's name for it (its id is [`PREFIX`] + name).
    pub name: String,
    /// Its `config.json` without insignificant whitespace.
    pub text: String,
    /// The model imported from `text`.
    pub config: ModelConfig,
}

/// One saved chip.
#[derive(Debug, Clone, PartialEq)]
pub struct SavedChip {
    /// The reader's name for it (its id is [`PREFIX`] + name).
    pub name: String,
    /// Its definition without insignificant whitespace.
    pub text: String,
    /// The chip parsed from `text`.
    pub spec: ChipSpec,
}

/// The reader's saved models and chips, each list in the order saved.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Library {
    /// Saved models.
    pub models: Vec<SavedModel>,
    /// Saved chips.
    pub chips: Vec<SavedChip>,
}

/// What [`load`] read: the entries it could read and, when anything could not
/// be read, the whole raw text with the reason, to be kept and offered back.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Loaded {
    /// The entries read.
    pub library: Library,
    /// The raw text and why (some of) it was not read.
    pub backup: Option<(String, String)>,
}

/// What [`Library::merge`] did.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Merged {
    /// Entries added.
    pub added: usize,
    /// Entries already present with the same content, skipped.
    pub same: usize,
    /// Entries renamed because the name was taken: (old name, new name).
    pub renamed: Vec<(String, String)>,
}

/// Checks a name for a library entry: 1 to [`MAX_NAME`] characters, no control
/// characters, and not a preset's id (`is_preset`).
pub fn check_name(name: &str, is_preset: impl Fn(&str) -> bool) -> Result<(), String> {
    let n = name.chars().count();
    if name.trim() != name || n == 0 || n > MAX_NAME {
        return Err(format!(
            "A name has 1 to {MAX_NAME} characters, without spaces at either end."
        ));
    }
    // `~` separates the fields of the compact form every page reads.
    if name.chars().any(|c| c.is_control() || c == '~') {
        return Err("A name may not hold control characters or “~”.".into());
    }
    if is_preset(name) {
        return Err(format!("“{name}” is a preset's id; choose another name."));
    }
    Ok(())
}

fn model_entry(name: &str, text: &str) -> Result<SavedModel, String> {
    check_name(name, |n| model(n).is_some())?;
    let imported = import(text).map_err(|e| format!("Not imported: {e}."))?;
    Ok(SavedModel {
        name: name.to_string(),
        text: compact(text),
        config: imported.config,
    })
}

fn chip_entry(name: &str, text: &str) -> Result<SavedChip, String> {
    check_name(name, |n| chip(n).is_some())?;
    let spec = parse_chip(text).map_err(|e| format!("Not a chip: {e}."))?;
    Ok(SavedChip {
        name: name.to_string(),
        text: compact(text),
        spec,
    })
}

/// The id a library entry is picked by: [`PREFIX`] + name.
pub fn entry_id(name: &str) -> String {
    format!("{PREFIX}{name}")
}

/// Saves `entry` in `list`, replacing an entry of the same name; returns
/// whether one was replaced.
fn put<T>(list: &mut Vec<T>, entry: T, name: impl Fn(&T) -> &str) -> bool {
    match list.iter().position(|e| name(e) == name(&entry)) {
        Some(i) => {
            list[i] = entry;
            true
        }
        None => {
            list.push(entry);
            false
        }
    }
}

impl Library {
    /// Whether nothing is saved.
    pub fn is_empty(&self) -> bool {
        self.models.is_empty() && self.chips.is_empty()
    }

    /// Saves a model from its `config.json` text under `name`, replacing one of
    /// the same name; returns whether it replaced one, or why it was refused.
    pub fn save_model(&mut self, name: &str, text: &str) -> Result<bool, String> {
        let e = model_entry(name, text)?;
        Ok(put(&mut self.models, e, |m| &m.name))
    }

    /// Saves a chip from its definition under `name`, replacing one of the same
    /// name; returns whether it replaced one, or why it was refused.
    pub fn save_chip(&mut self, name: &str, text: &str) -> Result<bool, String> {
        let e = chip_entry(name, text)?;
        Ok(put(&mut self.chips, e, |c| &c.name))
    }

    /// The saved model picked by `id` ([`PREFIX`] + name).
    pub fn model(&self, id: &str) -> Option<&SavedModel> {
        let name = id.strip_prefix(PREFIX)?;
        self.models.iter().find(|m| m.name == name)
    }

    /// The saved chip picked by `id` ([`PREFIX`] + name).
    pub fn chip(&self, id: &str) -> Option<&SavedChip> {
        let name = id.strip_prefix(PREFIX)?;
        self.chips.iter().find(|c| c.name == name)
    }

    /// Deletes the entry picked by `id` (a model or a chip); returns whether one was.
    pub fn remove(&mut self, id: &str) -> bool {
        let Some(name) = id.strip_prefix(PREFIX) else {
            return false;
        };
        let before = self.models.len() + self.chips.len();
        self.models.retain(|m| m.name != name);
        self.chips.retain(|c| c.name != name);
        self.models.len() + self.chips.len() != before
    }

    /// The compact index every page reads (one [`crate::reader::compact`] line per
    /// entry, models first, each under its entry's name).
    pub fn index(&self) -> String {
        let models = self.models.iter().filter_map(|m| {
            encode_model(&OwnModel {
                name: m.name.clone(),
                config: m.config,
            })
            .ok()
        });
        let chips = self.chips.iter().filter_map(|c| {
            let mut spec = c.spec.clone();
            spec.name = c.name.clone();
            encode_chip(&spec).ok()
        });
        models.chain(chips).collect::<Vec<_>>().join("\n")
    }

    /// The library in its schema, as one JSON text.
    pub fn to_json(&self) -> String {
        let value = |text: &str| text.parse::<Value>().unwrap_or(Value::Null);
        let models: Vec<Value> = self
            .models
            .iter()
            .map(|m| json!({ "name": m.name, "config": value(&m.text) }))
            .collect();
        let chips: Vec<Value> = self
            .chips
            .iter()
            .map(|c| json!({ "name": c.name, "chip": value(&c.text) }))
            .collect();
        json!({ SCHEMA_KEY: VERSION, "models": models, "chips": chips }).to_string()
    }

    /// Adds the entries of an imported library file. A file that cannot be read
    /// whole is refused with the reason (nothing is added); an entry whose name
    /// is taken by a different entry is added under a free name (`name (2)`).
    pub fn merge(&mut self, text: &str) -> Result<Merged, String> {
        let loaded = load(text);
        if let Some((_, reason)) = loaded.backup {
            return Err(reason);
        }
        let mut report = Merged::default();
        for m in loaded.library.models {
            match self.models.iter().find(|o| o.name == m.name) {
                Some(o) if o.config == m.config => report.same += 1,
                Some(_) => {
                    let name = free_name(&m.name, |n| {
                        model(n).is_some() || self.models.iter().any(|o| o.name == n)
                    });
                    report.renamed.push((m.name.clone(), name.clone()));
                    self.models.push(SavedModel { name, ..m });
                }
                None => {
                    report.added += 1;
                    self.models.push(m);
                }
            }
        }
        for c in loaded.library.chips {
            match self.chips.iter().find(|o| o.name == c.name) {
                Some(o) if o.spec == c.spec => report.same += 1,
                Some(_) => {
                    let name = free_name(&c.name, |n| {
                        chip(n).is_some() || self.chips.iter().any(|o| o.name == n)
                    });
                    report.renamed.push((c.name.clone(), name.clone()));
                    self.chips.push(SavedChip { name, ..c });
                }
                None => {
                    report.added += 1;
                    self.chips.push(c);
                }
            }
        }
        Ok(report)
    }
}

/// `name (2)`, `name (3)` … the first not `taken`, cut to fit [`MAX_NAME`].
fn free_name(name: &str, taken: impl Fn(&str) -> bool) -> String {
    (2..)
        .map(|i| {
            let tail = format!(" ({i})");
            let keep = MAX_NAME.saturating_sub(tail.chars().count());
            let head: String = name.chars().take(keep).collect();
            format!("{}{tail}", head.trim_end())
        })
        .find(|n| !taken(n))
        .unwrap_or_default()
}

/// Reads the entries of a list field: each `{ "name": …, key: {…} }`.
fn entries<T>(
    top: &Map<String, Value>,
    list: &str,
    key: &str,
    read: impl Fn(&str, &str) -> Result<T, String>,
    problems: &mut Vec<String>,
) -> Vec<T> {
    let items = match top.get(list) {
        None => return Vec::new(),
        Some(Value::Array(items)) => items,
        Some(_) => {
            problems.push(format!("“{list}” is not a list"));
            return Vec::new();
        }
    };
    let mut out: Vec<T> = Vec::new();
    let mut names: Vec<String> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let name = item.get("name").and_then(Value::as_str).unwrap_or("");
        let body = item.get(key).map(Value::to_string).unwrap_or_default();
        if names.iter().any(|n| n == name) {
            problems.push(format!("{list}[{i}]: the name “{name}” is used twice"));
            continue;
        }
        match read(name, &body) {
            Ok(e) => {
                names.push(name.to_string());
                out.push(e);
            }
            Err(e) => problems.push(format!("{list}[{i}]: {e}")),
        }
    }
    out
}

/// Reads a library text. Empty text is an empty library. Whatever cannot be
/// read (text over [`MAX_LIBRARY_BYTES`], not JSON, not a library, a newer
/// version, an entry that no longer imports) is returned whole as the backup
/// with the reason, beside the entries that could be read. Never panics.
pub fn load(text: &str) -> Loaded {
    let backup = |reason: String| Loaded {
        library: Library::default(),
        backup: Some((text.to_string(), reason)),
    };
    if text.trim().is_empty() {
        return Loaded::default();
    }
    if text.len() > MAX_LIBRARY_BYTES {
        return backup(format!(
            "{} bytes is more than the {MAX_LIBRARY_BYTES} a library may have",
            text.len()
        ));
    }
    let v: Value = match text.parse() {
        Ok(v) => v,
        Err(e) => return backup(format!("not valid JSON ({e})")),
    };
    let Some(top) = v.as_object().filter(|o| o.contains_key(SCHEMA_KEY)) else {
        return backup(format!(
            "not a ridgeline library (no “{SCHEMA_KEY}” version field)"
        ));
    };
    match top.get(SCHEMA_KEY).and_then(Value::as_u64) {
        Some(VERSION) => {}
        Some(n) if n > VERSION => {
            return backup(format!(
                "library version {n} is newer than this page reads ({VERSION})"
            ))
        }
        _ => return backup(format!("“{SCHEMA_KEY}” is not a known version")),
    }
    let mut problems = Vec::new();
    let models = entries(top, "models", "config", model_entry, &mut problems);
    let chips = entries(top, "chips", "chip", chip_entry, &mut problems);
    Loaded {
        library: Library { models, chips },
        backup: (!problems.is_empty()).then(|| (text.to_string(), problems.join("; "))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::accounting::params;
    use crate::reader::hf_config::export;

    fn sample() -> Library {
        let mut lib = Library::default();
        let cfg = export(&model("llama3-8b").unwrap().config).unwrap();
        let cfg = cfg.replace("\"num_hidden_layers\":32", "\"num_hidden_layers\":16");
        assert!(!lib.save_model("half 8B", &cfg).unwrap());
        lib.save_chip(
            "fast v5e",
            r#"{"start_from": "v5e", "hbm": {"bandwidth": "1.62 TB/s"}}"#,
        )
        .unwrap();
        lib
    }

    #[test]
    fn a_library_round_trips_with_every_number() {
        let lib = sample();
        assert_eq!(lib.models[0].config.layers, 16);
        let half = params(&lib.models[0].config).total();
        let full = params(&model("llama3-8b").unwrap().config).total();
        assert!(half < full, "{half} {full}");
        let again = load(&lib.to_json());
        assert_eq!(again.backup, None);
        assert_eq!(again.library, lib);
        assert_eq!(
            lib.chip("my:fast v5e").unwrap().spec.links[0].bandwidth.0,
            1.62e12
        );
        assert!(lib.model("half 8B").is_none(), "ids carry the prefix");
        // The index every page reads holds the same numbers under the same names.
        let index = lib.index();
        let lines: Vec<&str> = index.lines().collect();
        assert_eq!(lines.len(), 2, "{index}");
        let m = crate::reader::compact::decode_model(lines[0]).unwrap();
        assert_eq!(
            (m.name.as_str(), m.config),
            ("half 8B", lib.models[0].config)
        );
        let c = crate::reader::compact::decode_chip(lines[1]).unwrap();
        assert_eq!(c.name, "fast v5e");
        let bandwidths = |links: &[crate::hardware::LinkSpec]| {
            links
                .iter()
                .map(|l| (l.link, l.bandwidth, l.one_way))
                .collect::<Vec<_>>()
        };
        assert_eq!(bandwidths(&c.links), bandwidths(&lib.chips[0].spec.links));
        assert_eq!(load(""), Loaded::default());
    }

    #[test]
    fn corrupt_foreign_and_future_data_come_back_as_a_backup() {
        for (text, why) in [
            ("{\"ridgeline_library\": 1, \"models\": [", "JSON"),
            ("[1, 2, 3]", "not a ridgeline library"),
            ("{\"theme\": \"dark\"}", "not a ridgeline library"),
            (
                "{\"ridgeline_library\": 2, \"models\": []}",
                "version 2 is newer",
            ),
            ("{\"ridgeline_library\": \"one\"}", "not a known version"),
        ] {
            let l = load(text);
            assert!(l.library.is_empty());
            let (raw, reason) = l.backup.expect(text);
            assert_eq!(raw, text);
            assert!(reason.contains(why), "{text}: {reason}");
        }
        let big = format!(
            "{{\"ridgeline_library\":1,\"x\":\"{}\"}}",
            "a".repeat(5 << 20)
        );
        assert!(load(&big).backup.unwrap().1.contains("bytes"));
    }

    #[test]
    fn a_bad_entry_keeps_the_others_and_the_whole_text() {
        let mut v: Value = sample().to_json().parse().unwrap();
        v["chips"]
            .as_array_mut()
            .unwrap()
            .push(json!({"name": "broken", "chip": {"start_from": "v99"}}));
        v["models"]
            .as_array_mut()
            .unwrap()
            .push(json!({"name": "llama3-8b", "config": {}}));
        let text = v.to_string();
        let l = load(&text);
        assert_eq!(l.library, sample());
        let (raw, reason) = l.backup.unwrap();
        assert_eq!(raw, text);
        assert!(
            reason.contains("chips[1]") && reason.contains("v99"),
            "{reason}"
        );
        assert!(
            reason.contains("models[1]") && reason.contains("preset"),
            "{reason}"
        );
    }

    #[test]
    fn names_are_checked() {
        let mut lib = Library::default();
        let chip_text = r#"{"start_from": "h100"}"#;
        let length = "A name has 1 to 40 characters, without spaces at either end.";
        let long = "n".repeat(MAX_NAME + 1);
        for (bad, why) in [
            ("", length),
            (" x", length),
            ("h100", "“h100” is a preset's id; choose another name."),
            (long.as_str(), length),
            ("a\u{7}b", "A name may not hold control characters or “~”."),
        ] {
            let e = lib.save_chip(bad, chip_text).unwrap_err().to_string();
            assert_eq!(e, why, "{bad:?}");
        }
        assert_eq!(
            lib.save_chip("v5e", chip_text).unwrap_err().to_string(),
            "“v5e” is a preset's id; choose another name."
        );
        assert_eq!(
            lib.save_model("llama3-70b", "{}").unwrap_err().to_string(),
            "“llama3-70b” is a preset's id; choose another name."
        );
        assert_eq!(lib.save_chip("my h100", chip_text), Ok(false), "new");
        assert_eq!(lib.save_chip("my h100", chip_text), Ok(true), "replaced");
        assert_eq!(lib.chips.len(), 1);
        assert_eq!(
            lib.save_chip("bad", "{\"start_from\": 5}")
                .unwrap_err()
                .to_string(),
            "Not a chip: start_from: expected a registry chip's id as text, such as \"v5e\"."
        );
        assert!(lib.remove("my:my h100"));
        assert!(!lib.remove("my h100"));
        assert!(lib.is_empty());
    }

    #[test]
    fn merging_renames_clashes_and_skips_copies() {
        let mut lib = sample();
        let mut other = Library::default();
        other
            .save_chip("fast v5e", r#"{"start_from": "v5p"}"#)
            .unwrap();
        other
            .save_chip("h200-ish", r#"{"start_from": "h100"}"#)
            .unwrap();
        let copy = sample().to_json();
        let m = lib.merge(&copy).unwrap();
        assert_eq!((m.added, m.same, m.renamed.len()), (0, 2, 0));
        let m = lib.merge(&other.to_json()).unwrap();
        assert_eq!(m.added, 1);
        assert_eq!(
            m.renamed,
            vec![("fast v5e".to_string(), "fast v5e (2)".to_string())]
        );
        assert_eq!(lib.chips.len(), 3);
        assert!(lib.chip("my:fast v5e (2)").is_some());
        let before = lib.clone();
        assert!(lib
            .merge("{\"ridgeline_library\": 3}")
            .unwrap_err()
            .contains("newer"));
        let e = lib.merge("not json").unwrap_err().to_string();
        assert!(e.starts_with("not valid JSON ("), "{e}");
        assert_eq!(lib, before);
        let long = "n".repeat(MAX_NAME);
        assert_eq!(free_name(&long, |_| false).chars().count(), MAX_NAME);
    }
}
