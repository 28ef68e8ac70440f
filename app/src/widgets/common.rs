//! Pieces every widget uses: parameters, URL state, pointer positions on charts.

use leptos::prelude::*;
use ridgeline_core::dtype::Dtype;
use ridgeline_core::format::{sci, si};
use ridgeline_core::hardware::{Chip, CHIPS};
use ridgeline_core::model::config::{ModelPreset, MODELS};
use wasm_bindgen::JsCast;

/// Longest query string the widgets read; anything longer is ignored with a notice.
const MAX_QUERY: usize = 2000;

/// What a widget says when its state no longer fits in a link.
pub const TOO_LONG: &str = "This state is too long for a link (over 2000 characters), so the page's address keeps the last one that fit; to share it, export your library file (“Export library” under your own model) and import it on the other machine.";

/// The length of `pairs` in a page URL's query (`widget.key=value&`) as
/// `URLSearchParams` writes it: a space as `+`, each byte other than letters,
/// digits and `*-._` as `%XX`.
pub fn link_length(widget: &str, pairs: &[(String, String)]) -> usize {
    let escaped = |s: &str| {
        s.bytes()
            .map(|b| {
                if b.is_ascii_alphanumeric() || b"*-._ ".contains(&b) {
                    1
                } else {
                    3
                }
            })
            .sum::<usize>()
    };
    pairs
        .iter()
        .map(|(k, v)| widget.len() + 1 + escaped(k) + 1 + escaped(v) + 1)
        .sum()
}

/// A widget's starting arguments: the chapter's, overridden by `?widget.key=value`
/// parameters in the page URL. Returns the pairs and a notice if the URL was unusable.
pub fn initial_args(
    widget: &str,
    chapter: &[(String, String)],
) -> (Vec<(String, String)>, Option<String>) {
    let mut args = chapter.to_vec();
    // A static page is written natively at build time, where there is no URL:
    // it shows the chapter's arguments, and the live widget reads the URL.
    if cfg!(not(target_arch = "wasm32")) {
        return (args, None);
    }
    let search = window().location().search().unwrap_or_default();
    if search.len() > MAX_QUERY {
        return (
            args,
            Some("The link's parameters are too long; showing the defaults.".into()),
        );
    }
    let Ok(params) = web_sys::UrlSearchParams::new_with_str(&search) else {
        return (args, None);
    };
    let prefix = format!("{widget}.");
    let mut entries = Vec::new();
    if let Ok(iter) = js_sys::try_iter(&params) {
        for pair in iter.into_iter().flatten().flatten() {
            let pair: js_sys::Array = pair.unchecked_into();
            let (k, v) = (pair.get(0).as_string(), pair.get(1).as_string());
            if let (Some(k), Some(v)) = (k, v) {
                entries.push((k, v));
            }
        }
    }
    for (k, v) in entries {
        if let Some(key) = k.strip_prefix(&prefix) {
            args.retain(|(ak, _)| ak != key);
            args.push((key.to_string(), v));
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
            if pending.is_empty() || pending.len() == before {
                return (p, notices);
            }
        }
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
                    // A link the widgets would not read back is not written.
                    if link_length(P::NAME, &pairs) > MAX_QUERY {
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

/// One `<option>` of a select whose choice is `chosen()`, marked `selected`
/// while it is the choice: a static page shows the choice (the live select
/// follows its `prop:value`).
pub fn option<S>(
    value: impl Into<String>,
    label: impl IntoView + 'static,
    chosen: impl Fn() -> S + Send + Sync + 'static,
) -> impl IntoView
where
    S: PartialEq<String>,
{
    let value: String = value.into();
    let mine = value.clone();
    view! { <option value=value selected=move || chosen() == mine>{label}</option> }
}

/// The notice under a widget: why the reader's last input (or the page URL)
/// was refused, hidden while there is nothing to say. Tests and the static
/// pages find it by its `data-notice` attribute.
#[component]
pub fn Notice(
    /// The message, if there is one.
    notice: RwSignal<Option<String>>,
) -> impl IntoView {
    view! { <p class="notice" role="status" data-notice="" hidden=move || notice.with(|n| n.is_none())>{move || notice.get().unwrap_or_default()}</p> }
}

/// A labelled text field for a number: `label` beside it, `aria` read to
/// screen readers, `size` characters wide. It shows `text()` (as its `value`
/// attribute too, for the static page) and hands each edit to `set(key, value)`.
pub fn number_field(
    label: &'static str,
    aria: impl Into<String>,
    size: u32,
    text: impl Fn() -> String + Clone + Send + Sync + 'static,
    key: &'static str,
    set: impl Fn(&'static str, String) + Send + Sync + 'static,
) -> impl IntoView {
    let aria: String = aria.into();
    view! {
        <label>{label}
            <input type="text" inputmode="numeric" size=size aria-label=aria
                value=text.clone() prop:value=text
                on:input=move |ev| set(key, event_target_value(&ev)) />
        </label>
    }
}

/// A chip picker's options: the registry chips `accept` takes, then the
/// reader's saved ones it takes, in an `<optgroup label="Yours">` shown only
/// when there are some (so static pages list the registry alone).
pub fn chip_options<S: Into<String>>(
    accept: fn(&'static Chip) -> bool,
    chosen: impl Fn() -> S + Send + Sync + 'static,
) -> AnyView {
    let chosen = Signal::derive(move || chosen().into());
    let own = move || crate::library::own_chips(accept);
    picker_options(
        CHIPS.iter().filter(|c| accept(c)).map(|c| (c.id, c.name)),
        move || own().into_iter().map(|c| (c.id, c.name)).collect(),
        chosen,
    )
}

/// A model picker's options: the registry presets `accept` takes, then the
/// reader's saved models it takes, as [`chip_options`] does for chips.
pub fn model_options<S: Into<String>>(
    accept: fn(&ModelPreset) -> bool,
    chosen: impl Fn() -> S + Send + Sync + 'static,
) -> AnyView {
    let chosen = Signal::derive(move || chosen().into());
    let own = move || crate::library::own_models(accept);
    picker_options(
        MODELS.iter().filter(|m| accept(m)).map(|m| (m.id, m.name)),
        move || own().into_iter().map(|m| (m.id, m.name)).collect(),
        chosen,
    )
}

/// The options of [`chip_options`] and [`model_options`]: `presets`, then
/// the reader's own (reactive) in the "Yours" group, `chosen` selected.
///
/// Written once for every picker of a page: the chosen id is erased into a
/// `Signal` and the lists into `(id, name)` pairs, so that the views below
/// are compiled once per bundle rather than once per picker (eight pickers
/// on /gpus made eight copies, 18 KB of wasm).
fn picker_options(
    presets: impl Iterator<Item = (&'static str, &'static str)>,
    own: impl Fn() -> Vec<(&'static str, &'static str)> + Send + Sync + 'static,
    chosen: Signal<String>,
) -> AnyView {
    let presets: Vec<_> = presets.collect();
    picker_views(presets, Box::new(own), chosen)
}

/// [`picker_options`]' views, not generic at all.
#[allow(clippy::type_complexity)]
fn picker_views(
    presets: Vec<(&'static str, &'static str)>,
    own: Box<dyn Fn() -> Vec<(&'static str, &'static str)> + Send + Sync>,
    chosen: Signal<String>,
) -> AnyView {
    let selected = move || chosen.get();
    let presets = presets
        .into_iter()
        .map(|(id, name)| option(id, name, selected))
        .collect_view();
    let yours = move || {
        let own = own();
        (!own.is_empty()).then(|| {
            let own = own
                .into_iter()
                .map(|(id, name)| option(id, name, selected))
                .collect_view();
            view! { <optgroup label="Yours (saved in this browser)" data-yours="">{own}</optgroup> }
        })
    };
    // Erased: the options sit deep inside each widget's view type, which
    // otherwise grows past the compiler's layout depth.
    view! { {presets}{yours} }.into_any()
}

/// Accepts every chip or model (for a picker that offers them all).
pub fn any<T>(_: &T) -> bool {
    true
}

/// The word a memory verdict shows: `fits` or `does not fit`.
pub fn fit_word(fits: bool) -> &'static str {
    if fits {
        "fits"
    } else {
        "does not fit"
    }
}

/// The class of a memory verdict showing `word` ([`fit_word`]): coloured as
/// good when it fits, as bad when it does not.
pub fn fit_class(word: &str) -> &'static str {
    if word == fit_word(true) {
        "verdict fits"
    } else {
        "verdict over"
    }
}

/// The URL key of the second chip or model a widget shows beside its own.
pub const VS: &str = "vs";

/// Reads the `vs` value of a widget that can show a second choice beside its
/// own: empty (or `none`) for nothing, else what `resolve` finds under that id
/// (a registry id or the reader's `my:` id). An id it does not find is
/// refused with a message naming `what` (`chip`, `model`).
pub fn parse_vs<T: 'static>(
    value: &str,
    what: &str,
    resolve: impl Fn(&str) -> Option<&'static T>,
) -> Result<Option<&'static T>, String> {
    if matches!(value.trim(), "" | "none") {
        return Ok(None);
    }
    resolve(value).map(Some).ok_or_else(|| {
        format!(
            "no {what} called “{}” to compare with",
            crate::input::short(value)
        )
    })
}

/// The “Compare with” picker: “nothing” first, then `options` (the widget's
/// own [`chip_options`] or [`model_options`] with `chosen` as their choice).
/// `chosen` is the compared id, or `""` for nothing; a change goes to
/// `set(VS, id)`. Tests find it by its `data-vs` attribute.
pub fn compare_picker(
    options: AnyView,
    chosen: impl Fn() -> &'static str + Copy + Send + Sync + 'static,
    set: impl Fn(&'static str, String) + Send + Sync + 'static,
) -> impl IntoView {
    view! {
        <label class="compare-with">"Compare with "
            <select data-vs="" prop:value=chosen on:change=move |ev| set(VS, event_target_value(&ev))>
                {option("", "nothing", chosen)}
                {options}
            </select>
        </label>
    }
}

/// One row of a side-by-side comparison: what is compared, the value for the
/// widget's own choice and for the compared one, and their ratio.
#[derive(Debug, Clone, PartialEq)]
pub struct Diff {
    /// A stable name for tests (`data-row`).
    pub key: &'static str,
    /// What the row compares, as the reader reads it.
    pub what: String,
    /// The widget's own choice's value, formatted.
    pub a: String,
    /// The compared choice's value, formatted.
    pub b: String,
    /// The compared value over the own one; `None` for rows of words.
    pub ratio: Option<f64>,
}

impl Diff {
    /// A row of two numbers shown by `show`, with their ratio `b / a`.
    pub fn number(
        key: &'static str,
        what: impl Into<String>,
        a: f64,
        b: f64,
        show: impl Fn(f64) -> String,
    ) -> Diff {
        Diff {
            key,
            what: what.into(),
            a: show(a),
            b: show(b),
            ratio: Some(b / a),
        }
    }

    /// A row of words (a verdict): no ratio.
    pub fn words(
        key: &'static str,
        what: impl Into<String>,
        a: impl Into<String>,
        b: impl Into<String>,
    ) -> Diff {
        Diff {
            key,
            what: what.into(),
            a: a.into(),
            b: b.into(),
            ratio: None,
        }
    }

    /// The ratio as the reader sees it: `5.03×`, `same` when the two agree
    /// to three figures, `—` when there is none (words, or a zero or missing value).
    pub fn ratio_text(&self) -> String {
        match self.ratio {
            Some(r) if r.is_finite() && r > 0.0 => {
                let text = sci(r, 3);
                if text == "1" {
                    "same".into()
                } else {
                    format!("{text}×")
                }
            }
            Some(_) => "—".into(),
            None if self.a == self.b => "same".into(),
            None => "differs".into(),
        }
    }
}

/// A widget's choice beside a second one: their names and the rows that differ.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// The widget's own choice.
    pub a: String,
    /// The compared choice.
    pub b: String,
    /// What is compared, row by row.
    pub rows: Vec<Diff>,
}

impl Comparison {
    /// The row named `key`, if there is one.
    pub fn row(&self, key: &str) -> Option<&Diff> {
        self.rows.iter().find(|d| d.key == key)
    }
}

/// The rows every chip comparison starts with, computed by core from the
/// registry (or the reader's chip): the peak for `dtype` (or the nearest wider
/// format each chip has), HBM bandwidth, the HBM ridge and HBM capacity.
pub fn chip_rows(a: &Chip, b: &Chip, dtype: Dtype) -> Vec<Diff> {
    let peak = |c: &Chip| c.peak_or_wider(dtype).map_or(f64::NAN, |(_, r)| r.0);
    let ridge = |c: &Chip| {
        c.peak_or_wider(dtype)
            .map_or(f64::NAN, |(_, r)| (r / c.hbm_bw()).0)
    };
    vec![
        Diff::number("peak", format!("{dtype} peak"), peak(a), peak(b), |x| {
            si(x, "FLOPs/s", 3)
        }),
        Diff::number(
            "hbm-bandwidth",
            "HBM bandwidth",
            a.hbm_bw().0,
            b.hbm_bw().0,
            |x| si(x, "B/s", 3),
        ),
        Diff::number("ridge", "HBM ridge", ridge(a), ridge(b), |x| {
            format!("{} FLOPs/B", sci(x, 3))
        }),
        Diff::number(
            "hbm",
            "HBM capacity",
            a.hbm_capacity.value.0,
            b.hbm_capacity.value.0,
            |x| si(x, "B", 3),
        ),
    ]
}

/// The row comparing two chips' ICI bandwidth per link (`NaN`, shown as
/// `—`, for a chip without ICI).
pub fn ici_row(a: &Chip, b: &Chip) -> Diff {
    let ici = |c: &Chip| {
        c.bandwidth(ridgeline_core::hardware::Link::Ici)
            .map_or(f64::NAN, |r| r.0)
    };
    Diff::number("ici", "ICI bandwidth per link", ici(a), ici(b), |x| {
        si(x, "B/s", 3)
    })
}

/// Whether a chip is a TPU (its chips sit on a torus): what the widgets
/// whose model is a TPU's offer in their pickers.
pub fn is_tpu(c: &Chip) -> bool {
    matches!(c.topology, ridgeline_core::hardware::Topology::Torus { .. })
}

/// Whether a chip has ICI links: the chips the widgets that run a TPU
/// example offer in their pickers and accept as their chip or `vs`.
pub fn has_ici(c: &Chip) -> bool {
    c.link(ridgeline_core::hardware::Link::Ici).is_some()
}

/// A chip with ICI, found among the registry's and the reader's chips: what
/// the widgets that run a TPU example accept as their chip or `vs`.
pub fn ici_chip(id: &str) -> Option<&'static Chip> {
    crate::library::resolve_chip(id).filter(|c| has_ici(c))
}

/// The difference between a widget's choice and the compared one, spelled out
/// as a table (what, each value, the ratio of the second to the first), shown
/// only while there is a comparison. Tests find it by `data-compare`, each row
/// by `data-row`, the compared value by `data-vs-value`.
pub fn compare_table(
    comparison: impl Fn() -> Option<Comparison> + Send + Sync + 'static,
) -> impl IntoView {
    move || {
        comparison().map(|c| {
            let ratio = format!("{} ÷ {}", c.b, c.a);
            let rows = c
                .rows
                .into_iter()
                .map(|d| {
                    let r = d.ratio_text();
                    view! { <tr data-row=d.key><th scope="row">{d.what}</th><td>{d.a}</td><td data-vs-value="">{d.b}</td><td>{r}</td></tr> }
                })
                .collect_view();
            view! {
                <div class="table-scroll compare-table" tabindex="0" data-compare="">
                    <table>
                        <thead><tr><th scope="col">""</th><th scope="col">{c.a}</th><th scope="col">{c.b}</th><th scope="col">{ratio}</th></tr></thead>
                        <tbody>{rows}</tbody>
                    </table>
                </div>
            }
        })
    }
}

/// Reads a widget's `vs` chip as [`parse_vs`] does, then refuses one the
/// widget cannot take with `check`'s reason (a GPU where a TPU is needed).
pub fn parse_vs_chip(
    value: &str,
    check: impl Fn(&'static Chip) -> Result<(), String>,
) -> Result<Option<&'static Chip>, String> {
    let chip = parse_vs(value, "chip", crate::library::resolve_chip)?;
    if let Some(c) = chip {
        check(c)?;
    }
    Ok(chip)
}

/// One row for [`diff_rows`]: its key, what it compares, how to read the value.
pub type DiffOf<'a, T> = (&'static str, &'a str, fn(&T) -> f64);

/// Comparison rows of values `a` and `b` both have, each read by its
/// function and shown by `show` (the times of two runs, say).
pub fn diff_rows<T>(a: &T, b: &T, show: fn(f64) -> String, rows: &[DiffOf<T>]) -> Vec<Diff> {
    rows.iter()
        .map(|(key, what, get)| Diff::number(key, *what, get(a), get(b), show))
        .collect()
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
            let mut stale = Vec::new();
            if let Ok(iter) = js_sys::try_iter(&params.keys()) {
                for key in iter.into_iter().flatten().flatten() {
                    if let Some(k) = key.as_string().filter(|k| k.starts_with(&prefix)) {
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

/// A pointer event's x position in the drawing units of a chart layer
/// (`element`, whose SVG was drawn `drawn_width` units wide and is scaled by CSS).
pub fn plot_x(element: &web_sys::HtmlElement, client_x: i32, drawn_width: u32) -> f64 {
    let rect = element.get_bounding_client_rect();
    let scale = if rect.width() > 0.0 {
        f64::from(drawn_width) / rect.width()
    } else {
        1.0
    };
    (f64::from(client_x) - rect.left()) * scale
}

/// A chart colour as plotters writes it into SVG attributes, for tests.
#[cfg(test)]
pub(crate) fn svg_colour(c: plotters::style::RGBColor) -> String {
    format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2)
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use ridgeline_core::hardware::chip;

    #[test]
    fn vs_reads_nothing_ids_and_refuses_the_unknown() {
        let find = |id: &str| chip(id);
        assert_eq!(parse_vs("", "chip", find), Ok(None));
        assert_eq!(parse_vs(" none ", "chip", find), Ok(None));
        assert_eq!(parse_vs("h100", "chip", find).unwrap().unwrap().id, "h100");
        let e = parse_vs("h900", "chip", find).unwrap_err();
        assert!(e.contains("chip") && e.contains("h900"), "{e}");
    }

    #[test]
    fn chip_rows_are_cores_numbers_and_ratios() {
        let (v5e, h100) = (chip("v5e").unwrap(), chip("h100").unwrap());
        let c = Comparison {
            a: v5e.name.into(),
            b: h100.name.into(),
            rows: chip_rows(v5e, h100, Dtype::Bf16),
        };
        // Part 1: v5e 1.97e14 FLOPs/s over 8.2e11 B/s is a ridge of 240;
        // Part 12: H100 9.9e14 over 3.35e12 is 295.5.
        let ridge = c.row("ridge").unwrap();
        let core = |x: &Chip| x.ridge(Dtype::Bf16, ridgeline_core::hardware::Link::Hbm);
        assert_eq!(ridge.a, format!("{} FLOPs/B", sci(core(v5e).unwrap().0, 3)));
        assert_eq!(
            ridge.b,
            format!("{} FLOPs/B", sci(core(h100).unwrap().0, 3))
        );
        assert_eq!(
            (ridge.a.as_str(), ridge.b.as_str()),
            ("240 FLOPs/B", "296 FLOPs/B")
        );
        let peak = c.row("peak").unwrap();
        assert_eq!(
            (peak.a.as_str(), peak.b.as_str()),
            ("197 TFLOPs/s", "990 TFLOPs/s")
        );
        assert_eq!(peak.ratio_text(), "5.03×");
        assert_eq!(c.row("hbm").unwrap().b, "80 GB");
        // The same chip on both sides: every ratio reads "same".
        assert!(chip_rows(v5e, v5e, Dtype::Bf16)
            .iter()
            .all(|d| d.ratio_text() == "same"));
    }

    #[test]
    fn ratios_of_words_and_missing_values_say_so() {
        let w = Diff::words("verdict", "verdict", "memory-bound", "compute-bound");
        assert_eq!(w.ratio_text(), "differs");
        assert_eq!(Diff::words("v", "v", "x", "x").ratio_text(), "same");
        let z = Diff::number("z", "z", 0.0, 5.0, |x| sci(x, 3));
        assert_eq!(z.ratio_text(), "—");
        let n = Diff::number("n", "n", 2.0, f64::NAN, |x| sci(x, 3));
        assert_eq!((n.b.as_str(), n.ratio_text().as_str()), ("—", "—"));
    }
}
