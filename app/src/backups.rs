//! Kept copies of stored data the page could not use: the reader's library or
//! progress that did not read whole, or exercises a newer version solved. Each
//! copy is written to `localStorage` before anything overwrites what it
//! copies, dated, with the reason, under `ridgeline.backup.<kind>.<ms>` (the
//! reason beside it under `….why`); a kind keeps its [`SLOTS`] newest copies,
//! the oldest dropped first, and a copy identical to one already kept is not
//! written twice. The progress page lists every copy, with a way to download,
//! restore and remove each; keys that earlier versions wrote
//! (`ridgeline.library.backup`, `ridgeline.progress.backup.<ms>`) are listed
//! with them.
//!
//! The rotation is written over [`Slots`], so that it is tested natively
//! against a map; in the browser the slots are `localStorage`.

use std::collections::BTreeMap;

/// The prefix of every kept copy's key.
pub const PREFIX: &str = "ridgeline.backup.";
/// Copies kept per kind; a new one beyond this drops the oldest.
pub const SLOTS: usize = 5;
/// The suffix of the key that holds a copy's reason.
const WHY: &str = ".why";
/// The library's single backup key of earlier versions.
const OLD_LIBRARY: &str = "ridgeline.library.backup";
/// The progress backups' key prefix of earlier versions.
const OLD_PROGRESS: &str = "ridgeline.progress.backup.";

/// What a copy is of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// The saved models and chips (`ridgeline.library`).
    Library,
    /// The solved exercises (`ridgeline.progress.v1`).
    Progress,
}

impl Kind {
    /// The name in keys and on the page.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Library => "library",
            Kind::Progress => "progress",
        }
    }

    fn from_name(name: &str) -> Option<Kind> {
        [Kind::Library, Kind::Progress]
            .into_iter()
            .find(|k| k.name() == name)
    }
}

/// One kept copy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Backup {
    /// Its storage key.
    pub key: String,
    /// What it is a copy of.
    pub kind: Kind,
    /// When it was kept, milliseconds since 1970 (0: an earlier version kept
    /// it and did not say when).
    pub when: u64,
    /// Why it was kept.
    pub why: String,
    /// The text, exactly as it was stored.
    pub text: String,
}

/// Key–value storage: `localStorage` in the browser, a map in tests.
pub trait Slots {
    /// Every key.
    fn keys(&self) -> Vec<String>;
    /// The value of `key`.
    fn get(&self, key: &str) -> Option<String>;
    /// Stores `value` under `key`; false if the storage refused (full, or off).
    fn set(&mut self, key: &str, value: &str) -> bool;
    /// Removes `key`.
    fn remove(&mut self, key: &str);
}

impl Slots for BTreeMap<String, String> {
    fn keys(&self) -> Vec<String> {
        BTreeMap::keys(self).cloned().collect()
    }
    fn get(&self, key: &str) -> Option<String> {
        BTreeMap::get(self, key).cloned()
    }
    fn set(&mut self, key: &str, value: &str) -> bool {
        self.insert(key.to_string(), value.to_string());
        true
    }
    fn remove(&mut self, key: &str) {
        BTreeMap::remove(self, key);
    }
}

/// Every kept copy in `s`, newest first.
pub fn list_in(s: &impl Slots) -> Vec<Backup> {
    let mut out = Vec::new();
    for key in s.keys() {
        let parsed = if let Some(rest) = key.strip_prefix(PREFIX) {
            rest.split_once('.')
                .and_then(|(kind, when)| Some((Kind::from_name(kind)?, when.parse::<u64>().ok()?)))
        } else if let Some(when) = key.strip_prefix(OLD_PROGRESS) {
            when.parse().ok().map(|w| (Kind::Progress, w))
        } else if key == OLD_LIBRARY {
            Some((Kind::Library, 0))
        } else {
            None
        };
        let Some((kind, when)) = parsed else {
            continue;
        };
        let Some(text) = s.get(&key) else {
            continue;
        };
        let why = s
            .get(&format!("{key}{WHY}"))
            .unwrap_or_else(|| "kept by an earlier version of the page".into());
        out.push(Backup {
            key,
            kind,
            when,
            why,
            text,
        });
    }
    out.sort_by(|a, b| b.when.cmp(&a.when).then(a.key.cmp(&b.key)));
    out
}

/// Keeps `text` as a copy of `kind` with its reason, at `now` (milliseconds
/// since 1970), and drops the oldest copies of that kind beyond [`SLOTS`].
/// Returns the copy's key (an existing one if the same text is already kept),
/// or why the storage would not keep it.
pub fn keep_in(
    s: &mut impl Slots,
    kind: Kind,
    text: &str,
    why: &str,
    now: u64,
) -> Result<String, String> {
    let kept = list_in(s);
    if let Some(same) = kept.iter().find(|b| b.kind == kind && b.text == text) {
        return Ok(same.key.clone());
    }
    // Two copies in one millisecond get neighbouring keys.
    let mut when = now;
    while kept.iter().any(|b| b.key == key_of(kind, when)) {
        when += 1;
    }
    let key = key_of(kind, when);
    if !(s.set(&key, text) && s.set(&format!("{key}{WHY}"), why)) {
        remove_in(s, &key);
        return Err(format!(
            "this browser would not store a copy of the {} (its storage may be full)",
            kind.name()
        ));
    }
    let mut same_kind: Vec<Backup> = list_in(s).into_iter().filter(|b| b.kind == kind).collect();
    // Newest first: everything after the first SLOTS goes.
    for old in same_kind.drain(SLOTS.min(same_kind.len())..) {
        remove_in(s, &old.key);
    }
    Ok(key)
}

/// Removes the copy under `key` and its reason.
pub fn remove_in(s: &mut impl Slots, key: &str) {
    s.remove(key);
    s.remove(&format!("{key}{WHY}"));
}

fn key_of(kind: Kind, when: u64) -> String {
    format!("{PREFIX}{}.{when}", kind.name())
}

/// The browser's `localStorage` as [`Slots`].
#[cfg(target_arch = "wasm32")]
struct Local(web_sys::Storage);

#[cfg(target_arch = "wasm32")]
impl Slots for Local {
    fn keys(&self) -> Vec<String> {
        let n = self.0.length().unwrap_or(0);
        (0..n)
            .filter_map(|i| self.0.key(i).ok().flatten())
            .collect()
    }
    fn get(&self, key: &str) -> Option<String> {
        self.0.get_item(key).ok().flatten()
    }
    fn set(&mut self, key: &str, value: &str) -> bool {
        self.0.set_item(key, value).is_ok()
    }
    fn remove(&mut self, key: &str) {
        let _ = self.0.remove_item(key);
    }
}

#[cfg(target_arch = "wasm32")]
fn local() -> Option<Local> {
    leptos::prelude::window()
        .local_storage()
        .ok()
        .flatten()
        .map(Local)
}

/// Every kept copy in this browser, newest first (none natively).
pub fn list() -> Vec<Backup> {
    #[cfg(target_arch = "wasm32")]
    if let Some(s) = local() {
        return list_in(&s);
    }
    Vec::new()
}

/// Keeps `text` as a copy of `kind` in this browser ([`keep_in`] at the
/// present time); natively there is no storage and nothing to keep.
pub fn keep(kind: Kind, text: &str, why: &str) -> Result<String, String> {
    #[cfg(target_arch = "wasm32")]
    {
        let mut s = local().ok_or_else(|| "this browser has no storage for a copy".to_string())?;
        // Milliseconds since 1970: a clock set before it keeps the copy at 0.
        let now = ridgeline_core::check::whole(js_sys::Date::now()).unwrap_or_default();
        keep_in(&mut s, kind, text, why, now)
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        let _ = (kind, text, why);
        Err("no storage outside a browser".into())
    }
}

/// Removes the copy under `key` in this browser.
pub fn remove(key: &str) {
    #[cfg(target_arch = "wasm32")]
    if let Some(mut s) = local() {
        remove_in(&mut s, key);
    }
    #[cfg(not(target_arch = "wasm32"))]
    let _ = key;
}

/// `when` as the reader reads a date: `2026-12-05 16:10 UTC` (from the
/// browser's own `Date`), or "date unknown" for a copy an earlier version kept.
pub fn date(when: u64) -> String {
    if when == 0 {
        return "date unknown".into();
    }
    #[cfg(target_arch = "wasm32")]
    {
        let iso = String::from(js_sys::Date::new(&(when as f64).into()).to_iso_string());
        // 2026-12-05T16:10:00.000Z
        if let (Some(day), Some(time)) = (iso.get(..10), iso.get(11..16)) {
            return format!("{day} {time} UTC");
        }
    }
    format!("{when} ms after 1970")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Storage that refuses every write, as a full `localStorage` does.
    struct Full(BTreeMap<String, String>);

    impl Slots for Full {
        fn keys(&self) -> Vec<String> {
            self.0.keys().cloned().collect()
        }
        fn get(&self, key: &str) -> Option<String> {
            self.0.get(key).cloned()
        }
        fn set(&mut self, _: &str, _: &str) -> bool {
            false
        }
        fn remove(&mut self, key: &str) {
            self.0.remove(key);
        }
    }

    #[test]
    fn copies_rotate_oldest_first_and_each_kind_keeps_its_own() {
        let mut s = BTreeMap::new();
        for i in 0..8u64 {
            keep_in(
                &mut s,
                Kind::Library,
                &format!("lib {i}"),
                "unread",
                1_000 + i,
            )
            .unwrap();
        }
        keep_in(&mut s, Kind::Progress, "prog", "unknown exercise", 5_000).unwrap();
        let kept = list_in(&s);
        let texts: Vec<&str> = kept.iter().map(|b| b.text.as_str()).collect();
        // Newest first; the three oldest library copies dropped, with their reasons.
        assert_eq!(texts, ["prog", "lib 7", "lib 6", "lib 5", "lib 4", "lib 3"]);
        assert_eq!(s.len(), 2 * 6, "{s:?}");
        assert_eq!(kept[0].why, "unknown exercise");
        assert_eq!(kept[0].key, "ridgeline.backup.progress.5000");
        // The same text again keeps no second copy.
        assert_eq!(
            keep_in(&mut s, Kind::Library, "lib 5", "again", 9_000).unwrap(),
            "ridgeline.backup.library.1005"
        );
        assert_eq!(list_in(&s).len(), 6);
        // Two in one millisecond both stay.
        keep_in(&mut s, Kind::Progress, "a", "x", 7_000).unwrap();
        keep_in(&mut s, Kind::Progress, "b", "x", 7_000).unwrap();
        let progress: Vec<String> = list_in(&s)
            .into_iter()
            .filter(|b| b.kind == Kind::Progress)
            .map(|b| b.key)
            .collect();
        assert_eq!(
            progress,
            [
                "ridgeline.backup.progress.7001",
                "ridgeline.backup.progress.7000",
                "ridgeline.backup.progress.5000"
            ]
        );
        remove_in(&mut s, "ridgeline.backup.progress.7000");
        assert!(!s.contains_key("ridgeline.backup.progress.7000.why"));
    }

    #[test]
    fn a_refused_write_is_reported_and_leaves_nothing_half_written() {
        let mut s = Full(BTreeMap::new());
        let e = keep_in(&mut s, Kind::Library, "text", "unread", 1).unwrap_err();
        assert!(e.contains("would not store a copy of the library"), "{e}");
        assert!(s.0.is_empty());
    }

    #[test]
    fn copies_earlier_versions_kept_are_listed() {
        let mut s = BTreeMap::new();
        s.insert(
            OLD_LIBRARY.to_string(),
            "{\"ridgeline_library\": 7}".to_string(),
        );
        s.insert(format!("{OLD_PROGRESS}1764950400000"), "{".to_string());
        s.insert("ridgeline.library".to_string(), "{}".to_string());
        s.insert("ridgeline.backup.nonsense.1".to_string(), "x".to_string());
        let kept = list_in(&s);
        assert_eq!(kept.len(), 2);
        assert_eq!(
            (kept[0].kind, kept[0].when),
            (Kind::Progress, 1_764_950_400_000)
        );
        assert_eq!((kept[1].kind, kept[1].when), (Kind::Library, 0));
        assert_eq!(kept[1].why, "kept by an earlier version of the page");
        assert_eq!(date(0), "date unknown");
    }
}
