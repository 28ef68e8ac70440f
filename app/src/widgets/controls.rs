//! The controls every widget builds its form from: the numeric text field,
//! the slider, the chip and model pickers with what they accept and the
//! message they refuse with, a select's option, and the [`Notice`] under a
//! widget.

use leptos::prelude::*;
use ridgeline_core::hardware::{Chip, CHIPS};
use ridgeline_core::model::config::{ModelPreset, MODELS};

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
