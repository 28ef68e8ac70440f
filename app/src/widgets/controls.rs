//! The controls every widget builds its form from: the numeric text field,
//! the slider, the chip and model pickers with what they accept and the
//! message they refuse with, a select's option, and the [`Notice`] under a
//! widget.

use leptos::prelude::*;
use leptos::tachys::html::attribute::custom::custom_attribute;
use ridgeline_core::dtype::Dtype;
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

/// The options of a count picker, each labelled with its noun (`4 devices`),
/// the one whose number `chosen` returns selected.
pub fn count_options(
    counts: &'static [u32],
    noun: &'static str,
    chosen: impl Fn() -> String + Clone + Send + Sync + 'static,
) -> impl IntoView {
    counts
        .iter()
        .map(|n| option(n.to_string(), format!("{n} {noun}"), chosen.clone()))
        .collect_view()
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

/// A numeric text field: its key, what it reads to screen readers, its width
/// and how it takes the reader's text. Built with [`NumberField::new`] and
/// its setters, shown with [`NumberField::view`]; every widget's numeric
/// field is one of these.
#[derive(Debug, Clone)]
pub struct NumberField {
    key: &'static str,
    aria: Signal<String>,
    size: u32,
    label: Option<&'static str>,
    class: Option<String>,
    decimal: bool,
    on_change: bool,
    disabled: Option<Signal<bool>>,
}

impl NumberField {
    /// A field for `key`, read as `aria`, `size` characters wide, handing
    /// each edit to the widget (`inputmode="numeric"`, no label, no class).
    pub fn new(key: &'static str, aria: impl Into<String>, size: u32) -> NumberField {
        NumberField {
            key,
            aria: Signal::stored(aria.into()),
            size,
            label: None,
            class: None,
            decimal: false,
            on_change: false,
            disabled: None,
        }
    }

    /// Reads `aria()` to screen readers, for a field whose meaning changes
    /// with the other parameters.
    pub fn aria_with(mut self, aria: impl Fn() -> String + Send + Sync + 'static) -> NumberField {
        self.aria = Signal::derive(aria);
        self
    }

    /// Wraps the field in a `<label>` that starts with `label`.
    pub fn label(mut self, label: &'static str) -> NumberField {
        self.label = Some(label);
        self
    }

    /// Gives the field a `class` (tests and styles find it by it).
    pub fn class(mut self, class: impl Into<String>) -> NumberField {
        self.class = Some(class.into());
        self
    }

    /// Offers a decimal keyboard (`inputmode="decimal"`): for values with
    /// a fraction or an exponent.
    pub fn decimal(mut self) -> NumberField {
        self.decimal = true;
        self
    }

    /// Hands the text over when the reader commits it (`change`: Enter or
    /// leaving the field) rather than on every keystroke.
    pub fn on_change(mut self) -> NumberField {
        self.on_change = true;
        self
    }

    /// Disables the field while `disabled()` holds.
    pub fn disabled(mut self, disabled: impl Fn() -> bool + Send + Sync + 'static) -> NumberField {
        self.disabled = Some(Signal::derive(disabled));
        self
    }

    /// The field showing `text()` (as its `value` attribute too, for the
    /// static page), handing the reader's text to `set(key, text)`.
    pub fn view(
        self,
        text: impl Fn() -> String + Send + Sync + 'static,
        set: impl Fn(&'static str, String) + Send + Sync + 'static,
    ) -> AnyView {
        number_view(
            self,
            Signal::derive(text),
            Callback::new(move |(k, v)| set(k, v)),
        )
    }
}

/// [`NumberField::view`], compiled once per bundle.
fn number_view(
    f: NumberField,
    text: Signal<String>,
    set: Callback<(&'static str, String)>,
) -> AnyView {
    let NumberField {
        key,
        aria,
        size,
        label,
        class,
        decimal,
        on_change,
        disabled,
    } = f;
    let mode = if decimal { "decimal" } else { "numeric" };
    let disabled = move || disabled.is_some_and(|d| d.get());
    let input = view! {
        <input type="text" inputmode=mode size=size aria-label=aria
            value=text prop:value=text disabled=disabled
            on:input=move |ev| if !on_change { set.run((key, event_target_value(&ev))) }
            on:change=move |ev| if on_change { set.run((key, event_target_value(&ev))) } />
    }
    .add_any_attr(custom_attribute("class", class));
    match label {
        Some(label) => view! { <label>{label}{input}</label> }.into_any(),
        None => input.into_any(),
    }
}

/// A labelled text field for a number: `label` beside it, `aria` read to
/// screen readers, `size` characters wide. It shows `text()` (as its `value`
/// attribute too, for the static page) and hands each edit to `set(key, value)`.
pub fn number_field(
    label: &'static str,
    aria: impl Into<String>,
    size: u32,
    text: impl Fn() -> String + Send + Sync + 'static,
    key: &'static str,
    set: impl Fn(&'static str, String) + Send + Sync + 'static,
) -> AnyView {
    NumberField::new(key, aria, size)
        .label(label)
        .view(text, set)
}

/// A native slider (`<input type="range">`): its bounds and step, what it
/// says to screen readers, the position it shows and what a move does.
/// Built with [`Slider::new`] and its setters, shown with [`Slider::view`]
/// or, with its label and readout, [`Slider::row`].
#[derive(Debug, Clone)]
pub struct Slider {
    id: Option<&'static str>,
    class: Option<String>,
    min: String,
    max: Signal<String>,
    step: &'static str,
    aria: Option<String>,
    valuetext: Option<Signal<String>>,
}

impl Slider {
    /// A slider from `min` to `max()` in steps of `step`.
    pub fn new(
        min: impl ToString,
        max: impl Fn() -> String + Send + Sync + 'static,
        step: &'static str,
    ) -> Slider {
        Slider {
            id: None,
            class: None,
            min: min.to_string(),
            max: Signal::derive(max),
            step,
            aria: None,
            valuetext: None,
        }
    }

    /// A slider of positions `0..=steps` in steps of one (a log scale's,
    /// read with [`crate::input::slider_to_value`]).
    pub fn positions(steps: f64) -> Slider {
        Slider::new(0, move || steps.to_string(), "1")
    }

    /// Gives the slider an `id` (its row's label points at it).
    pub fn id(mut self, id: &'static str) -> Slider {
        self.id = Some(id);
        self
    }

    /// Gives the slider a `class`.
    pub fn class(mut self, class: impl Into<String>) -> Slider {
        self.class = Some(class.into());
        self
    }

    /// Names the slider to screen readers (`aria-label`), for one without a
    /// label of its own.
    pub fn aria(mut self, aria: impl Into<String>) -> Slider {
        self.aria = Some(aria.into());
        self
    }

    /// What screen readers say the value is (`aria-valuetext`).
    pub fn valuetext(mut self, text: impl Fn() -> String + Send + Sync + 'static) -> Slider {
        self.valuetext = Some(Signal::derive(text));
        self
    }

    /// The slider at position `pos()` (as its `value` attribute too, for the
    /// static page), handing each move's position to `moved`.
    pub fn view(
        self,
        pos: impl Fn() -> String + Send + Sync + 'static,
        moved: impl Fn(String) + Send + Sync + 'static,
    ) -> AnyView {
        slider_view(self, Signal::derive(pos), Callback::new(moved))
    }

    /// A `slider-row`: `label` (for the slider), the slider as
    /// [`Slider::view`] shows it, then `readout` (an `<output>` or a
    /// [`NumberField`]).
    pub fn row(
        self,
        label: &'static str,
        pos: impl Fn() -> String + Send + Sync + 'static,
        moved: impl Fn(String) + Send + Sync + 'static,
        readout: impl IntoView + 'static,
    ) -> AnyView {
        let id = self.id;
        let slider = self.view(pos, moved);
        slider_row(label, id, slider, readout.into_any())
    }
}

impl Slider {
    /// A `slider-row` as [`Slider::row`] makes, on a log scale: the slider
    /// sits at `scale`'s position for `value()`, and a move hands the value
    /// there, written by the scale, to `set(key, value)`.
    pub fn log_row(
        self,
        label: &'static str,
        scale: LogScale,
        value: impl Fn() -> f64 + Send + Sync + 'static,
        key: &'static str,
        set: impl Fn(&'static str, String) + Send + Sync + 'static,
        readout: impl IntoView + 'static,
    ) -> AnyView {
        self.row(
            label,
            move || scale.pos(value()),
            move |pos| set(key, scale.value(&pos)),
            readout,
        )
    }
}

/// [`Slider::view`], compiled once per bundle.
fn slider_view(s: Slider, pos: Signal<String>, moved: Callback<String>) -> AnyView {
    let Slider {
        id,
        class,
        min,
        max,
        step,
        aria,
        valuetext,
    } = s;
    let valuetext = move || valuetext.map(|t| t.get());
    view! {
        <input id=id type="range" min=min max=max step=step aria-label=aria
            aria-valuetext=valuetext value=pos prop:value=pos
            on:input=move |ev| moved.run(event_target_value(&ev)) />
    }
    .add_any_attr(custom_attribute("class", class))
    .into_any()
}

/// [`Slider::row`]'s frame, compiled once per bundle.
fn slider_row(
    label: &'static str,
    id: Option<&'static str>,
    slider: AnyView,
    readout: AnyView,
) -> AnyView {
    view! {
        <div class="slider-row">
            <label for=id>{label}</label>
            {slider}
            {readout}
        </div>
    }
    .into_any()
}

/// A log-scale slider's position for `value` and the value a position
/// stands for: `steps` positions over `range()`, values written by `write`.
#[derive(Clone, Copy)]
pub struct LogScale {
    /// How many positions the slider has.
    pub steps: f64,
    /// The values at its ends.
    pub range: Signal<(f64, f64)>,
    /// How a value is written for the widget (rounded, or to three figures).
    pub write: fn(f64) -> String,
}

impl LogScale {
    /// `steps` positions over `range()`, values written by `write`.
    pub fn new(
        steps: f64,
        range: impl Fn() -> (f64, f64) + Send + Sync + 'static,
        write: fn(f64) -> String,
    ) -> LogScale {
        LogScale {
            steps,
            range: Signal::derive(range),
            write,
        }
    }

    /// The slider's position for `value`.
    pub fn pos(self, value: f64) -> String {
        let (lo, hi) = self.range.get();
        crate::input::value_to_slider(value, self.steps, lo, hi).to_string()
    }

    /// The value, written for the widget, at the position the slider sent.
    pub fn value(self, pos: &str) -> String {
        let (lo, hi) = self.range.get_untracked();
        let pos = pos.parse::<f64>().unwrap_or(0.0);
        (self.write)(crate::input::slider_to_value(pos, self.steps, lo, hi))
    }
}

/// A whole number, as a log slider hands it to a widget.
pub fn rounded(x: f64) -> String {
    format!("{}", x.round())
}

/// The chip called `id` (a registry id, the reader's `my:NAME` or a chip's
/// compact text from a link), or the one message every widget refuses an
/// unknown chip with.
pub fn chip(id: &str) -> Result<&'static Chip, String> {
    crate::library::resolve_chip(id)
        .ok_or_else(|| format!("unknown chip “{}”", crate::input::short(id)))
}

/// The model called `id` (a preset's id, the reader's `my:NAME` or a
/// model's compact text from a link), or the one message every widget
/// refuses an unknown model with.
pub fn model(id: &str) -> Result<&'static ModelPreset, String> {
    crate::library::resolve_model(id)
        .ok_or_else(|| format!("unknown model “{}”", crate::input::short(id)))
}

/// The number format called `name` (`bf16`, `int8`), or the one message
/// every widget refuses an unknown format with.
pub fn dtype(name: &str) -> Result<Dtype, String> {
    Dtype::parse(name).ok_or_else(|| format!("unknown format “{}”", crate::input::short(name)))
}

/// A number format a widget's select offers: `name` parsed and checked
/// against `offered`, so that a link naming a format the select lacks is
/// refused with a message (the last valid format stays) rather than leaving
/// the select blank. `what` names the setting (`weights and KV caches`).
pub fn dtype_among(name: &str, offered: &[Dtype], what: &str) -> Result<Dtype, String> {
    Dtype::parse(name)
        .filter(|d| offered.contains(d))
        .ok_or_else(|| {
            let names: Vec<&str> = offered.iter().map(|d| d.name()).collect();
            let list = match names.split_last() {
                Some((last, [])) => (*last).to_string(),
                Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
                None => String::new(),
            };
            format!("{what} in {list}, not “{}”", crate::input::short(name))
        })
}

/// The chip picker: `label` beside a select of the chips `accept` takes
/// ([`chip_options`]), showing `chosen()` and handing a choice to
/// `set("chip", id)`.
pub fn chip_picker(
    label: &'static str,
    accept: fn(&'static Chip) -> bool,
    chosen: impl Fn() -> String + Send + Sync + 'static,
    set: impl Fn(&'static str, String) + Send + Sync + 'static,
) -> AnyView {
    let chosen = Signal::derive(chosen);
    let options = chip_options(accept, move || chosen.get());
    select_view(
        label,
        "chip",
        None,
        chosen,
        options,
        Callback::new(move |(k, v)| set(k, v)),
    )
}

/// The model picker: as [`chip_picker`], for the models `accept` takes
/// ([`model_options`]), handing a choice to `set("model", id)`.
pub fn model_picker(
    label: &'static str,
    accept: fn(&ModelPreset) -> bool,
    chosen: impl Fn() -> String + Send + Sync + 'static,
    set: impl Fn(&'static str, String) + Send + Sync + 'static,
) -> AnyView {
    let chosen = Signal::derive(chosen);
    let options = model_options(accept, move || chosen.get());
    select_view(
        label,
        "model",
        None,
        chosen,
        options,
        Callback::new(move |(k, v)| set(k, v)),
    )
}

/// A labelled select of `options` (a picker's own list, such as the GPUs
/// `gpu::gpu_options` offers) for `key`: `label` beside it, showing
/// `chosen()` and handing a choice to `set(key, id)`, as [`chip_picker`] does;
/// the select has `class`, if one is given.
pub fn picker(
    label: &'static str,
    key: &'static str,
    class: Option<&'static str>,
    chosen: impl Fn() -> String + Send + Sync + 'static,
    options: AnyView,
    set: impl Fn(&'static str, String) + Send + Sync + 'static,
) -> AnyView {
    select_view(
        label,
        key,
        class,
        Signal::derive(chosen),
        options,
        Callback::new(move |(k, v)| set(k, v)),
    )
}

/// A labelled select of `options` for `key`, compiled once per bundle.
fn select_view(
    label: &'static str,
    key: &'static str,
    class: Option<&'static str>,
    chosen: Signal<String>,
    options: AnyView,
    set: Callback<(&'static str, String)>,
) -> AnyView {
    view! {
        <label>{label}
            {view! {
                <select prop:value=chosen on:change=move |ev| set.run((key, event_target_value(&ev)))>
                    {options}
                </select>
            }
            .add_any_attr(custom_attribute("class", class))}
        </label>
    }
    .into_any()
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

/// The chip with ICI called `id`, as [`ici_chip`] finds it, or the one
/// message a widget that runs a TPU example refuses any other with.
pub fn tpu_with_ici(id: &str) -> Result<&'static Chip, String> {
    ici_chip(id).ok_or_else(|| format!("“{}” is not a TPU with ICI", crate::input::short(id)))
}

/// A labelled text field for a slice's mesh (`16x16x16`), showing `text()`
/// and handing each change to `set("mesh", value)`.
pub fn mesh_field(
    text: impl Fn() -> String + Send + Sync + 'static,
    set: impl Fn(&'static str, String) + Send + Sync + 'static,
) -> AnyView {
    let text = Signal::derive(text);
    view! {
        <label>"Mesh "
            <input type="text" size="10" class="mesh-text" aria-label="mesh axis sizes, like 16x16x16"
                value=text prop:value=text
                on:change=move |ev| set("mesh", event_target_value(&ev)) />
        </label>
    }
    .into_any()
}
