//! A widget's parameters and their URL state: [`WidgetParams`] (what a
//! chapter's directive and the page URL may set, each value validated),
//! [`WidgetState`] (the mounted widget's last valid parameters and its
//! notice), the reading and writing of `?widget.key=value`, and the checks
//! every widget's tests share (`testing`, compiled for tests only).

use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// The page's whole query (every widget's `widget.key=value` together) is
/// kept within this many characters, so that a link carries every widget's
/// state to any browser, chat and mail client.
const MAX_QUERY: usize = 2000;

/// A query longer than this is not read at all (nothing the page writes
/// comes near it; a hand-made link could be megabytes).
const MAX_READ: usize = 64 * MAX_QUERY;

/// What a widget says when its state no longer fits in a link.
pub const TOO_LONG: &str = "This state would make the page's link longer than 2000 characters with the other widgets' settings, so the address keeps the last one that fit; to share it, export your library file (“Export library” under your own model) and import it on the other machine.";

/// What a widget says when a link over the limit reached it too late.
pub const DROPPED: &str = "This link is longer than 2000 characters; the widgets above this one used all of it, so this one's settings from the link were not loaded and it shows the chapter's. To share long settings, export your library file (“Export library” under your own model).";

/// The length of `pairs` in a page URL's query (`widget.key=value&`) as
/// `URLSearchParams` writes it: a space as `+`, each byte other than letters,
/// digits and `*-._` as `%XX`.
pub fn link_length(widget: &str, pairs: &[(String, String)]) -> usize {
    pairs
        .iter()
        .map(|(k, v)| widget.len() + 1 + entry_length(k, v))
        .sum()
}

/// The length of one query entry `key=value&`, escaped as in [`link_length`].
fn entry_length(key: &str, value: &str) -> usize {
    escaped_length(key) + 1 + escaped_length(value) + 1
}

fn escaped_length(s: &str) -> usize {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"*-._ ".contains(&b) {
                1
            } else {
                3
            }
        })
        .sum()
}

/// The widget a query key belongs to: `roofline` for `roofline.chip`.
fn owner_of(key: &str) -> &str {
    key.split_once('.').map_or("", |(w, _)| w)
}

/// The widgets of a query whose settings are over the budget: walking the
/// widgets in the order their first key appears (keys of no widget counted
/// first), each widget whose settings would take the query past
/// the budget (2,000 characters) is dropped; the ones after it may still fit.
pub fn over_budget(entries: &[(String, String)]) -> Vec<String> {
    let mut widgets: Vec<(&str, usize)> = Vec::new();
    let mut used = 0;
    for (k, v) in entries {
        let len = entry_length(k, v);
        match owner_of(k) {
            "" => used += len,
            w => match widgets.iter_mut().find(|(name, _)| *name == w) {
                Some((_, total)) => *total += len,
                None => widgets.push((w, len)),
            },
        }
    }
    let mut dropped = Vec::new();
    for (w, len) in widgets {
        if used + len <= MAX_QUERY {
            used += len;
        } else {
            dropped.push(w.to_string());
        }
    }
    dropped
}

/// The length of the page's query once `widget`'s settings are `pairs`: its
/// own settings, and the other widgets' that the page loaded.
pub fn query_length_with(
    entries: &[(String, String)],
    widget: &str,
    pairs: &[(String, String)],
) -> usize {
    let dropped = over_budget(entries);
    let others: usize = entries
        .iter()
        .filter(|(k, _)| {
            let w = owner_of(k);
            w != widget && !dropped.iter().any(|d| d == w)
        })
        .map(|(k, v)| entry_length(k, v))
        .sum();
    others + link_length(widget, pairs)
}

/// The page URL's query as `(key, value)` pairs in order; `None` if it is
/// longer than [`MAX_READ`] (or not readable). Empty in a native build.
fn query_entries() -> Option<Vec<(String, String)>> {
    if cfg!(not(target_arch = "wasm32")) {
        return Some(Vec::new());
    }
    let search = window().location().search().ok()?;
    if search.len() > MAX_READ {
        return None;
    }
    let params = web_sys::UrlSearchParams::new_with_str(&search).ok()?;
    let mut entries = Vec::new();
    if let Ok(iter) = js_sys::try_iter(&params) {
        for pair in iter.into_iter().flatten().flatten() {
            let pair: js_sys::Array = pair.unchecked_into();
            if let (Some(k), Some(v)) = (pair.get(0).as_string(), pair.get(1).as_string()) {
                entries.push((k, v));
            }
        }
    }
    Some(entries)
}

/// A widget's starting arguments: the chapter's, overridden by `?widget.key=value`
/// parameters in the page URL. Returns the pairs and a notice if the URL's
/// settings for this widget could not be used.
pub fn initial_args(
    widget: &str,
    chapter: &[(String, String)],
) -> (Vec<(String, String)>, Option<String>) {
    // A static page is written natively at build time, where there is no URL:
    // it shows the chapter's arguments, and the live widget reads the URL.
    match query_entries() {
        Some(entries) => args_from_query(widget, chapter, &entries),
        None => (
            chapter.to_vec(),
            Some(
                "The link's parameters are far too long to read; showing the chapter's settings."
                    .into(),
            ),
        ),
    }
}

/// [`initial_args`] from the query's `entries`.
fn args_from_query(
    widget: &str,
    chapter: &[(String, String)],
    entries: &[(String, String)],
) -> (Vec<(String, String)>, Option<String>) {
    let mut args = chapter.to_vec();
    let prefix = format!("{widget}.");
    let mine = entries.iter().any(|(k, _)| k.starts_with(&prefix));
    if mine && over_budget(entries).iter().any(|w| w == widget) {
        return (args, Some(DROPPED.into()));
    }
    for (k, v) in entries {
        if let Some(key) = k.strip_prefix(&prefix) {
            args.retain(|(ak, _)| ak != key);
            args.push((key.to_string(), v.clone()));
        }
    }
    (args, None)
}

/// Why a widget refuses `key`: it is not one of its settings.
pub fn unknown_setting(key: &str) -> String {
    format!("unknown setting “{}”", crate::input::short(key))
}

/// Where `P` and the widget table disagree about its keys: a key the table
/// lists that [`WidgetParams::apply`] refuses as unknown; a key of `known`
/// (every key the table lists for any widget) that the table does not list
/// for `P` but `apply` does not refuse as unknown; and a key that
/// [`WidgetParams::to_pairs`] writes or [`WidgetParams::ORDER`] names but the
/// table does not list. Each key is applied to the defaults with the value
/// the defaults write for it (or an empty one).
#[cfg(test)]
pub(crate) fn key_mismatches<P: WidgetParams>(known: &[&str]) -> Vec<String> {
    let defaults = P::default().to_pairs();
    let mut written = defaults.clone();
    let mut out = Vec::new();
    for key in P::KEYS {
        let value = defaults
            .iter()
            .find(|(k, _)| k == key)
            .map_or("", |(_, v)| v.as_str());
        let mut p = P::default();
        match p.apply(key, value) {
            Err(e) if e == unknown_setting(key) => {
                out.push(format!(
                    "{}: the table lists `{key}`, which apply refuses",
                    P::NAME
                ));
            }
            Err(_) => {}
            Ok(()) => written.extend(p.to_pairs()),
        }
    }
    for key in known.iter().filter(|k| !P::KEYS.contains(k)) {
        if P::default().apply(key, "") != Err(unknown_setting(key)) {
            out.push(format!(
                "{}: apply accepts `{key}`, which the table does not list",
                P::NAME
            ));
        }
    }
    let named = P::ORDER.iter().flat_map(|group| group.iter().copied());
    for key in written.iter().map(|(k, _)| k.as_str()).chain(named) {
        let line = format!("{}: `{key}` is not in the table", P::NAME);
        if !P::KEYS.contains(&key) && !out.contains(&line) {
            out.push(line);
        }
    }
    out
}

/// What the widget table (`ridgeline_content::widgets`) declares about
/// a widget's parameters; implemented for each parameter type by
/// `widgets::register!`, never by hand.
pub trait Declared {
    /// The widget's directive name, which prefixes its URL parameters.
    const NAME: &'static str;
    /// The keys a chapter's directive and the page URL may set.
    const KEYS: &'static [&'static str];
}

/// A widget's parameters: what its directive and the page URL may set, each
/// value validated by [`WidgetParams::apply`].
pub trait WidgetParams: Declared + Default + Clone + PartialEq + Send + Sync + 'static {
    /// Groups of keys applied before all others, in this order (a chip before
    /// the number format it must support, a model before overrides of its shape).
    const ORDER: &'static [&'static [&'static str]] = &[];

    /// Sets `key` from the reader's text, or says why not (leaving `self` as it was).
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String>;

    /// Sets `key` from text checked on its own, without the checks that
    /// take the other settings into account ([`Self::check`]); `apply` is
    /// `assign` then `check`. Only a widget whose settings can be valid
    /// together but not one at a time (a model that fits only on many pods,
    /// many pods that only a large model can use) overrides the pair, so that
    /// its links load whole ([`Self::from_pairs`]); the default is `apply`.
    fn assign(&mut self, key: &str, value: &str) -> Result<(), String> {
        self.apply(key, value)
    }

    /// The checks across settings that [`Self::assign`] leaves out.
    fn check(&self) -> Result<(), String> {
        Ok(())
    }

    /// The `key=value` pairs that reproduce these parameters (for the URL).
    fn to_pairs(&self) -> Vec<(String, String)>;

    /// Sets `key` as [`Self::apply`] does if the widget table lists it, and
    /// refuses it as an unknown setting if not: a key reaches a widget's
    /// parameters, from a chapter or from a link, only through here.
    fn apply_declared(&mut self, key: &str, value: &str) -> Result<(), String> {
        if Self::KEYS.contains(&key) {
            self.apply(key, value)
        } else {
            Err(unknown_setting(key))
        }
    }

    /// Parameters from pairs (the last of each key) in [`Self::ORDER`]. A
    /// pair refused is tried again after the others, as long as another is
    /// accepted (a link's values may only be valid together: a larger batch
    /// before more pods); each pair still refused is skipped and its reason
    /// returned.
    ///
    /// When no pair left can be applied on its own, they are assigned
    /// together ([`Self::assign`]) and checked once ([`Self::check`]): a
    /// state the reader reached step by step loads from its link even when
    /// its settings are valid only together.
    fn from_pairs(pairs: &[(String, String)]) -> (Self, Vec<String>) {
        let mut pending = ordered_pairs(pairs, Self::ORDER);
        let mut p = Self::default();
        loop {
            let before = pending.len();
            let mut notices = Vec::new();
            pending.retain(|(k, v)| match p.apply_declared(k, v) {
                Ok(()) => false,
                Err(e) => {
                    notices.push(e);
                    true
                }
            });
            if pending.is_empty() {
                return (p, notices);
            }
            if pending.len() == before {
                let mut together = p.clone();
                let assigned = pending.iter().all(|(k, v)| {
                    Self::KEYS.contains(&k.as_str()) && together.assign(k, v).is_ok()
                });
                if assigned && together.check().is_ok() {
                    return (together, Vec::new());
                }
                return (p, notices);
            }
        }
    }
}

/// Any widget's parameters behind one type, so that a test can drive every
/// widget alike (`widgets::params_of` gives each at its defaults).
pub trait AnyParams {
    /// The keys the widget declares.
    fn keys(&self) -> &'static [&'static str];
    /// The `key=value` pairs that reproduce these parameters.
    fn pairs(&self) -> Vec<(String, String)>;
    /// Applies `key=value` as a link or a control would ([`WidgetParams::apply_declared`])
    /// and checks what every widget promises: an accepted value leaves
    /// parameters whose own pairs rebuild exactly them; a refused one says why
    /// and leaves the parameters as they were. Returns whether it was
    /// accepted, or the broken promise.
    fn checked_apply(&mut self, key: &str, value: &str) -> Result<bool, String>;
    /// Back to the defaults.
    fn reset(&mut self);
    /// Why a link's `pairs` would be refused, one reason a refused pair
    /// ([`WidgetParams::from_pairs`]); empty if the link loads whole.
    fn refusals(&self, pairs: &[(String, String)]) -> Vec<String>;
}

impl<P: WidgetParams> AnyParams for P {
    fn keys(&self) -> &'static [&'static str] {
        P::KEYS
    }

    fn pairs(&self) -> Vec<(String, String)> {
        self.to_pairs()
    }

    fn checked_apply(&mut self, key: &str, value: &str) -> Result<bool, String> {
        let before = self.clone();
        match self.apply_declared(key, value) {
            Ok(()) => {
                let (again, refused) = P::from_pairs(&self.to_pairs());
                if !refused.is_empty() {
                    return Err(format!(
                        "its own pairs {:?} were refused: {refused:?}",
                        self.to_pairs()
                    ));
                }
                if again != *self {
                    return Err(format!(
                        "its pairs {:?} do not rebuild the parameters",
                        self.to_pairs()
                    ));
                }
                Ok(true)
            }
            Err(message) if message.trim().is_empty() => Err("refused without a message".into()),
            Err(_) if *self != before => Err("refused but changed the parameters".into()),
            Err(_) => Ok(false),
        }
    }

    fn reset(&mut self) {
        *self = P::default();
    }

    fn refusals(&self, pairs: &[(String, String)]) -> Vec<String> {
        P::from_pairs(pairs).1
    }
}

/// The last pair of each key, those of `order`'s groups first (group by
/// group), the others after them in their order.
///
/// Not a part of [`WidgetParams::from_pairs`]: there the sort was compiled
/// once per widget type, a copy of the standard library's sort (about 3 KB
/// of WebAssembly) for every widget of a bundle.
fn ordered_pairs<'a>(
    pairs: &'a [(String, String)],
    order: &[&[&str]],
) -> Vec<&'a (String, String)> {
    let rank = |k: &str| {
        order
            .iter()
            .position(|group| group.contains(&k))
            .unwrap_or(order.len())
    };
    let mut pending: Vec<&(String, String)> = Vec::new();
    for pair in pairs.iter().rev() {
        if !pending.iter().any(|(k, _)| *k == pair.0) {
            pending.push(pair);
        }
    }
    pending.reverse();
    pending.sort_by_key(|(k, _)| rank(k));
    pending
}

/// A mounted widget's parameters and the notice shown under it.
#[derive(Debug)]
pub struct WidgetState<P: WidgetParams> {
    /// The last valid parameters.
    pub params: RwSignal<P>,
    /// Why the last input (or the page URL) was refused, if it was.
    pub notice: RwSignal<Option<String>>,
}

impl<P: WidgetParams> Clone for WidgetState<P> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<P: WidgetParams> Copy for WidgetState<P> {}

impl<P: WidgetParams> WidgetState<P> {
    /// Starts from the chapter's arguments overridden by the page URL's
    /// (`?name.key=value`); refused pairs are named in the notice.
    pub fn new(chapter: &[(String, String)]) -> Self {
        let (pairs, url_notice) = initial_args(P::NAME, chapter);
        let (initial, refused) = P::from_pairs(&pairs);
        let notice = url_notice
            .or_else(|| (!refused.is_empty()).then(|| format!("Ignored: {}.", refused.join("; "))));
        WidgetState {
            params: RwSignal::new(initial),
            notice: RwSignal::new(notice),
        }
    }

    /// Applies the reader's `key=value`. Accepted: the notice clears and, if
    /// anything changed, the parameters and the URL update. Refused: the notice
    /// says why and the last valid parameters stay. Returns whether it was accepted.
    pub fn set(self, key: &str, value: &str) -> bool {
        let mut p = self.params.get_untracked();
        match p.apply_declared(key, value) {
            Ok(()) => {
                self.notice.set(None);
                if p != self.params.get_untracked() {
                    let pairs = p.to_pairs();
                    // A link the widgets would not read back is not written:
                    // the budget is the whole page's query.
                    let entries = query_entries().unwrap_or_default();
                    if query_length_with(&entries, P::NAME, &pairs) > MAX_QUERY {
                        self.notice.set(Some(TOO_LONG.into()));
                    } else {
                        write_url_state(P::NAME, pairs);
                    }
                    self.params.set(p);
                }
                true
            }
            Err(e) => {
                self.notice.set(Some(e));
                false
            }
        }
    }

    /// Applies the reader's `key=value` as [`WidgetState::set`] does; when it
    /// is refused and `put_back` holds, re-announces the last valid
    /// parameters ([`WidgetState::refresh`]) so that the control shows them
    /// again. Returns whether it was accepted.
    pub fn set_or_refresh(self, key: &str, value: &str, put_back: bool) -> bool {
        let accepted = self.set(key, value);
        if !accepted && put_back {
            self.refresh();
        }
        accepted
    }

    /// Re-announces the current parameters unchanged, so that controls bound to
    /// them (a `<select>` whose choice was refused) show the valid value again.
    pub fn refresh(self) {
        self.params.set(self.params.get_untracked());
    }
}

thread_local! {
    static PENDING: std::cell::RefCell<Option<TimeoutHandle>> = const { std::cell::RefCell::new(None) };
}

/// Writes a widget's state into the URL (`?widget.key=value`), replacing the
/// history entry, at most once per quarter second while the reader drags.
pub fn write_url_state(widget: &'static str, pairs: Vec<(String, String)>) {
    PENDING.with(|p| {
        if let Some(h) = p.borrow_mut().take() {
            h.clear();
        }
    });
    let handle = set_timeout_with_handle(
        move || {
            let location = window().location();
            let search = location.search().unwrap_or_default();
            let Ok(params) = web_sys::UrlSearchParams::new_with_str(&search) else {
                return;
            };
            let prefix = format!("{widget}.");
            // This widget's old settings go, and those of widgets a link over
            // the budget could not load (each said so when the page opened).
            let dropped = over_budget(&query_entries().unwrap_or_default());
            let mut stale = Vec::new();
            if let Ok(iter) = js_sys::try_iter(&params.keys()) {
                for key in iter.into_iter().flatten().flatten() {
                    if let Some(k) = key.as_string().filter(|k| {
                        k.starts_with(&prefix) || dropped.iter().any(|d| d == owner_of(k))
                    }) {
                        stale.push(k);
                    }
                }
            }
            for k in stale {
                params.delete(&k);
            }
            for (k, v) in &pairs {
                params.append(&format!("{prefix}{k}"), v);
            }
            let query = params.to_string().as_string().unwrap_or_default();
            let path = location.pathname().unwrap_or_default();
            let hash = location.hash().unwrap_or_default();
            let url = if query.is_empty() {
                format!("{path}{hash}")
            } else {
                format!("{path}?{query}{hash}")
            };
            if let Ok(history) = window().history() {
                let _ =
                    history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
            }
        },
        std::time::Duration::from_millis(250),
    );
    if let Ok(h) = handle {
        PENDING.with(|p| *p.borrow_mut() = Some(h));
    }
}

/// `key=value` pairs from string literals, for tests.
#[cfg(test)]
pub(crate) fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// Shared checks of a widget's parameters, for its tests.
#[cfg(test)]
pub(crate) mod testing {
    use super::{pairs, WidgetParams};

    /// Applies each of the `bad` pairs to a copy of `p`: every one must be
    /// refused with a message and leave the parameters (and so `p.to_pairs()`)
    /// unchanged. Returns the messages, in order, for further checks.
    pub(crate) fn assert_refused_keeps<P: WidgetParams>(
        p: &P,
        bad: &[(&str, &str)],
    ) -> Vec<String> {
        let mut q = p.clone();
        let before = p.to_pairs();
        bad.iter()
            .map(|(k, v)| {
                let message = match q.apply(k, v) {
                    Ok(()) => panic!("{k}={v} was accepted"),
                    Err(e) => e,
                };
                assert!(!message.is_empty(), "{k}={v} was refused without a message");
                assert!(q == *p, "{k}={v} changed the parameters");
                assert_eq!(q.to_pairs(), before, "{k}={v}");
                message
            })
            .collect()
    }

    /// Parameters from `list`, every pair accepted, checked to survive the
    /// round trip through their own pairs ([`assert_pairs_restore`]).
    pub(crate) fn assert_round_trip<P: WidgetParams>(list: &[(&str, &str)]) -> P {
        let (p, refused) = P::from_pairs(&pairs(list));
        assert!(refused.is_empty(), "{refused:?}");
        assert_pairs_restore(&p);
        p
    }

    /// `p.to_pairs()`, applied to the defaults, accepts every pair and gives
    /// back `p` and the same pairs.
    pub(crate) fn assert_pairs_restore<P: WidgetParams>(p: &P) {
        let (q, refused) = P::from_pairs(&p.to_pairs());
        assert!(refused.is_empty(), "{refused:?}");
        assert!(q == *p, "{:?} did not restore the parameters", p.to_pairs());
        assert_eq!(q.to_pairs(), p.to_pairs());
    }
}

#[cfg(test)]
mod link_tests {
    use super::*;

    #[test]
    fn a_link_counts_escaped_bytes_and_a_compact_chip_fits() {
        let p = pairs(&[("chip", "v5e"), ("b", "1 2")]);
        // `roofline.chip=v5e&` is 18, `roofline.b=1+2&` is 15.
        assert_eq!(link_length("roofline", &p), 33);
        assert_eq!(link_length("w", &pairs(&[("k", "a~b")])), 10);
        let (_, chip) = crate::library::tests::sample_codes();
        let one = pairs(&[("chip", chip.as_str())]);
        assert!(link_length("roofline", &one) < 400, "{chip}");
        let long = "x".repeat(MAX_QUERY);
        assert!(link_length("own-model", &pairs(&[("config", long.as_str())])) > MAX_QUERY);
    }

    /// Three widgets each carrying a reader's chip of about 800 characters:
    /// before, the whole query was refused above 2000 characters and every
    /// widget fell back to its defaults without a word. Now the first two
    /// load, the third says it was dropped, and a fourth that still fits loads.
    #[test]
    fn a_long_link_loads_every_widget_it_can_and_names_the_rest() {
        let chip = format!("c1~{}", "y".repeat(780));
        let entries = pairs(&[
            ("utm", "x"),
            ("roofline.chip", chip.as_str()),
            ("roofline.b", "512"),
            ("streaming.chip", chip.as_str()),
            ("collective-size.chip", chip.as_str()),
            ("torus.shape", "4x4"),
        ]);
        assert_eq!(over_budget(&entries), ["collective-size"]);
        let (args, notice) = args_from_query("roofline", &pairs(&[("chip", "v5e")]), &entries);
        assert_eq!(notice, None);
        assert_eq!(args, pairs(&[("chip", chip.as_str()), ("b", "512")]));
        let (args, notice) = args_from_query("collective-size", &pairs(&[("n", "16")]), &entries);
        assert_eq!(notice.as_deref(), Some(DROPPED));
        assert_eq!(args, pairs(&[("n", "16")]));
        let (args, notice) = args_from_query("torus", &[], &entries);
        assert_eq!((args, notice), (pairs(&[("shape", "4x4")]), None));
        // A widget with nothing in the link is never told it was dropped.
        assert_eq!(args_from_query("overlap", &[], &entries).1, None);
        // The budget counts the other widgets' settings: one more chip on the
        // torus would pass it, and the dropped widget's settings do not count.
        let with = |w: &str, v: &str| query_length_with(&entries, w, &pairs(&[("chip", v)]));
        assert!(with("torus", &chip) > MAX_QUERY);
        assert!(with("torus", "v5e") <= MAX_QUERY);
        assert!(with("collective-size", "v5e") <= MAX_QUERY);
        assert_eq!(
            with("roofline", "v5e"),
            link_length("roofline", &pairs(&[("chip", "v5e")]))
                + link_length("streaming", &pairs(&[("chip", chip.as_str())]))
                + link_length("torus", &pairs(&[("shape", "4x4")]))
                + "utm=x&".len()
        );
    }
}
