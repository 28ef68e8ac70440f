//! Optimizer-state sharding (`data-widget="zero"`, Part 5, "Sharding the
//! optimizer state"): for a registry model, an optimizer and a number of
//! data-parallel chips, the parameters, gradients and optimizer state each chip
//! holds under ZeRO stages 0 to 3, drawn as stacked bars against the chip's HBM,
//! with the bytes each stage's collectives move per step. A second model
//! (`vs`) may be set beside it: its bars on the same scale under each stage's,
//! its verdict at the chosen stage and a table of the differences. Every number
//! comes from [`ridgeline_core::training::zero_stages`].

use super::controls::Notice;
use super::controls::NumberField;
use leptos::prelude::*;
use ridgeline_core::format::{grouped, si};
use ridgeline_core::hardware::{chip, Chip, CHIPS};
use ridgeline_core::model::accounting::{self, Optimizer};
use ridgeline_core::model::config::{model, ModelPreset, MODELS};
use ridgeline_core::training::{zero_stages, ZeroCost, ZeroStage};

use super::compare::{compare_picker, compare_table, Comparison, Diff, VS};
use super::controls::{fit_class, fit_word, option};
use super::params::{WidgetParams, WidgetState};
use crate::input::{parse_count, short};

/// The most data-parallel chips the field accepts.
const MAX_CHIPS: f64 = 1e6;

/// The optimizers offered: URL name, label and the core's storage rule.
pub const OPTIMIZERS: [(&str, &str, Optimizer); 2] = [
    (
        "adam-mixed",
        "mixed-precision Adam (16 B / param)",
        Optimizer::ADAM_MIXED,
    ),
    (
        "adam",
        "the book's Adam (10 B / param, bf16 gradients)",
        Optimizer::ADAM,
    ),
];

/// The reader's settings; always valid.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ZeroChoice {
    /// The model preset.
    pub model: &'static ModelPreset,
    /// The chip whose HBM the state must fit in.
    pub chip: &'static Chip,
    /// Data-parallel chips the state is split over.
    pub chips: f64,
    /// Index into [`OPTIMIZERS`].
    pub optimizer: usize,
    /// The highlighted stage.
    pub stage: ZeroStage,
    /// A second model whose state is drawn beside this one's, if any.
    pub vs: Option<&'static ModelPreset>,
}

impl Default for ZeroChoice {
    fn default() -> Self {
        ZeroChoice {
            model: model("llama3-70b").unwrap_or(&MODELS[0]),
            chip: chip("v5p").unwrap_or(&CHIPS[0]),
            chips: 64.0,
            optimizer: 0,
            stage: ZeroStage::One,
            vs: None,
        }
    }
}

impl ZeroChoice {
    /// Every parameter of the model (all experts of a MoE are stored).
    pub fn params(&self) -> f64 {
        accounting::params(&self.model.config).total()
    }

    /// Every stage's memory per chip and traffic.
    pub fn rows(&self) -> Result<Vec<ZeroCost>, String> {
        zero_stages(self.params(), OPTIMIZERS[self.optimizer].2, self.chips)
    }

    /// The highlighted stage's row.
    pub fn chosen(&self) -> Option<ZeroCost> {
        self.rows()
            .ok()?
            .into_iter()
            .find(|r| r.stage == self.stage)
    }

    /// The chip's HBM in bytes.
    pub fn hbm(&self) -> f64 {
        self.chip.hbm_capacity.value.0
    }

    /// Whether a stage's training state fits in the chip's HBM (activations
    /// not counted).
    pub fn fits(&self, row: &ZeroCost) -> bool {
        row.memory.state().0 <= self.hbm()
    }

    /// The same settings with the compared model, if there is one.
    pub fn vs_choice(&self) -> Option<ZeroChoice> {
        self.vs.map(|m| ZeroChoice {
            model: m,
            vs: None,
            ..*self
        })
    }

    /// This model beside the compared one at the chosen stage: parameters,
    /// state per chip, bytes moved per step and whether it fits in HBM.
    pub fn comparison(&self) -> Option<Comparison> {
        let other = self.vs_choice()?;
        let (a, b) = (self.chosen()?, other.chosen()?);
        let bytes = |x| si(x, "B", 3);
        Some(Comparison {
            a: self.model.name.into(),
            b: other.model.name.into(),
            rows: vec![
                Diff::number(
                    "params",
                    "parameters",
                    self.params(),
                    other.params(),
                    grouped,
                ),
                Diff::number(
                    "state",
                    format!("per chip under {}", self.stage.label()),
                    a.memory.state().0,
                    b.memory.state().0,
                    bytes,
                ),
                Diff::number(
                    "comms",
                    "moved per step",
                    a.comms_bytes.0,
                    b.comms_bytes.0,
                    bytes,
                ),
                Diff::words(
                    "fits",
                    format!("in {}'s HBM", self.chip.name),
                    fit_word(self.fits(&a)),
                    fit_word(other.fits(&b)),
                ),
            ],
        })
    }
}

impl WidgetParams for ZeroChoice {
    const ORDER: &'static [&'static [&'static str]] = &[&["model", VS]];

    /// Sets one parameter from text, or explains why not.
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut next = *self;
        match key {
            "model" => next.model = super::controls::model(value)?,
            "chip" => next.chip = super::controls::chip(value)?,
            "chips" => next.chips = parse_count(value, "chips", 1.0, MAX_CHIPS)?.round(),
            "optimizer" => {
                next.optimizer = OPTIMIZERS
                    .iter()
                    .position(|o| o.0 == value.trim())
                    .ok_or_else(|| {
                        format!("unknown optimizer “{}” (adam-mixed, adam)", short(value))
                    })?
            }
            "stage" => next.stage = ZeroStage::parse(value)?,
            VS => next.vs = super::compare::vs_model(value)?,
            other => return Err(super::params::unknown_setting(other)),
        }
        next.rows()?;
        if let Some(other) = next.vs_choice() {
            other.rows().map_err(|e| format!("compared model: {e}"))?;
        }
        *self = next;
        Ok(())
    }

    /// The parameters as `key=value` pairs.
    fn to_pairs(&self) -> Vec<(String, String)> {
        vec![
            ("model".into(), self.model.id.into()),
            ("chip".into(), self.chip.id.into()),
            ("chips".into(), format!("{}", self.chips)),
            ("optimizer".into(), OPTIMIZERS[self.optimizer].0.into()),
            ("stage".into(), self.stage.number().to_string()),
        ]
        .into_iter()
        .chain(self.vs.map(|m| (VS.into(), m.id.into())))
        .collect()
    }
}

/// A CSS width for `part` of a bar whose full length is `whole`.
fn width(part: f64, whole: f64) -> String {
    let share = if whole > 0.0 { part / whole } else { 0.0 };
    format!("width: {:.2}%", 100.0 * share.clamp(0.0, 1.0))
}

/// The ZeRO widget.
#[component]
pub fn Zero(
    /// The chapter's `key=value` arguments (URL parameters override them).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let state = WidgetState::<ZeroChoice>::new(&args);
    let WidgetState { params, notice } = state;
    let set = move |key: &'static str, value: String| {
        // Put a refused select back to the last valid setting.
        state.set_or_refresh(
            key,
            &value,
            matches!(key, "model" | "chip" | "optimizer" | "stage" | VS),
        );
    };
    let rows = Memo::new(move |_| params.with(|p| p.rows().unwrap_or_default()));
    let vs_rows = Memo::new(move |_| {
        params.with(|p| {
            p.vs_choice()
                .and_then(|v| v.rows().ok())
                .unwrap_or_default()
        })
    });
    let vs_id = move || params.with(|p| p.vs.map_or("", |m| m.id));
    let chosen = move || params.with(|p| p.chosen());
    let optimizer_options = OPTIMIZERS
        .map(|(id, name, _)| option(id, name, move || params.with(|p| OPTIMIZERS[p.optimizer].0)))
        .collect_view();
    let stage_options = ZeroStage::ALL
        .map(|s| {
            option(s.number().to_string(), s.label(), move || {
                params.with(|p| p.stage.number().to_string())
            })
        })
        .collect_view();
    // Every bar is drawn against the largest of plain data parallelism's
    // state (of both models) and the chip's HBM, so the HBM mark and every
    // bar share one scale.
    let scale = move || {
        let full = |r: &Vec<ZeroCost>| r.first().map_or(0.0, |r| r.memory.state().0);
        rows.with(full)
            .max(vs_rows.with(full))
            .max(params.with(|p| p.hbm()))
    };
    let bars = move || {
        let whole = scale();
        let hbm_mark = format!(
            "left: {:.2}%",
            100.0 * params.with(|p| p.hbm()) / whole.max(1.0)
        );
        let vs_name = params.with(|p| p.vs.map_or("", |m| m.name));
        let compared = vs_rows.get();
        rows.get()
            .into_iter()
            .map(|r| {
                let (fits, chosen) = params.with(|p| (p.fits(&r), p.stage == r.stage));
                let m = r.memory;
                let hbm_mark = hbm_mark.clone();
                // The compared model's bar, on the same scale, under this one.
                let vs_bar = compared.iter().find(|v| v.stage == r.stage).map(|v| {
                    let (n, fits) = (v.memory, params.with(|p| p.fits(v)));
                    view! {
                        <div class="zero-bar zero-vs" data-vs-stage=r.stage.number() aria-hidden="true">
                            <span class="zero-params" style=width(n.params.0, whole)></span>
                            <span class="zero-grads" style=width(n.grads.0, whole)></span>
                            <span class="zero-opt" style=width(n.optimizer.0, whole)></span>
                            <span class="zero-hbm" style=hbm_mark.clone()></span>
                        </div>
                        <span class="zero-vs-label">{format!("{vs_name}: {}{}", si(n.state().0, "B", 3), if fits { "" } else { " ✗" })}</span>
                    }
                });
                view! {
                    <tr data-stage=r.stage.number() class:selected=chosen>
                        <th scope="row">{r.stage.label()}</th>
                        <td>{si(m.params.0, "B", 3)}</td>
                        <td>{si(m.grads.0, "B", 3)}</td>
                        <td>{si(m.optimizer.0, "B", 3)}</td>
                        <td><strong>{si(m.state().0, "B", 3)}</strong>{if fits { "" } else { " ✗" }}</td>
                        <td>{si(r.comms_bytes.0, "B", 3)}</td>
                        <td class="zero-bar-cell">
                            <div class="zero-bar" aria-hidden="true">
                                <span class="zero-params" style=width(m.params.0, whole)></span>
                                <span class="zero-grads" style=width(m.grads.0, whole)></span>
                                <span class="zero-opt" style=width(m.optimizer.0, whole)></span>
                                <span class="zero-hbm" style=hbm_mark></span>
                            </div>
                            {vs_bar}
                        </td>
                    </tr>
                }
            })
            .collect_view()
    };
    let verdict = move || {
        params
            .with(|p| p.chosen().map(|r| fit_word(p.fits(&r))))
            .unwrap_or_default()
    };
    let vs_verdict = move || {
        params.with(|p| {
            let other = p.vs_choice()?;
            let r = other.chosen()?;
            let word = fit_word(other.fits(&r));
            Some(view! {
                " " {format!("{} would hold {} per chip, which ", other.model.name, si(r.memory.state().0, "B", 3))}
                <strong class=fit_class(word) data-vs-verdict=word>{word}</strong>
                "."
            })
        })
    };

    view! {
        <figure class="widget zero" data-widget="zero">
            <div class="controls">
                {super::controls::model_picker("Model ", super::controls::any, move || params.with(|p| p.model.id).to_string(), set)}
                {super::controls::chip_picker("Chip ", super::controls::any, move || params.with(|p| p.chip.id).to_string(), set)}
                <label>"Optimizer "
                    <select prop:value=move || params.with(|p| OPTIMIZERS[p.optimizer].0) on:change=move |ev| set("optimizer", event_target_value(&ev))>{optimizer_options}</select>
                </label>
                {compare_picker(super::controls::model_options(super::controls::any, vs_id), vs_id, set)}
            </div>
            <div class="controls">
                <label>"Stage "
                    <select class="zero-stage" prop:value=move || params.with(|p| p.stage.number().to_string()) on:change=move |ev| set("stage", event_target_value(&ev))>{stage_options}</select>
                </label>
                {NumberField::new("chips", "data-parallel chips", 8).class("zero-chips").on_change().label("Data-parallel chips ").view(move || format!("{}", params.with(|p| p.chips)), set)}
            </div>
            <p class="verdict-line">
                {move || params.with(|p| format!("{} has {} parameters. Under {} over {} chips each chip holds ", p.model.name, grouped(p.params()), p.stage.label(), grouped(p.chips)))}
                <strong data-zero-state="">{move || chosen().map(|r| si(r.memory.state().0, "B", 3)).unwrap_or_default()}</strong>
                " of weights, gradients and optimizer state, which "
                <strong class=move || fit_class(verdict()) data-verdict=verdict>{verdict}</strong>
                {move || params.with(|p| format!(" in {}'s {} of HBM before any activations; each step's collectives move ", p.chip.name, si(p.hbm(), "B", 3)))}
                <strong data-zero-comms="">{move || chosen().map(|r| si(r.comms_bytes.0, "B", 3)).unwrap_or_default()}</strong>
                "."
                {vs_verdict}
            </p>
            <Notice notice=notice />
            {compare_table(move || params.with(|p| p.comparison()))}
            <div class="table-scroll" tabindex="0">
                <table class="zero-table">
                    <thead><tr>
                        <th scope="col">"stage"</th>
                        <th scope="col"><span class="swatch zero-params"></span>"weights"</th>
                        <th scope="col"><span class="swatch zero-grads"></span>"gradients"</th>
                        <th scope="col"><span class="swatch zero-opt"></span>"optimizer"</th>
                        <th scope="col">"per chip"</th>
                        <th scope="col">"moved / step"</th>
                        <th scope="col">{move || params.with(|p| match p.vs {
                            Some(m) => format!("against HBM (line); below: {}", m.name),
                            None => "against HBM (line)".to_string(),
                        })}</th>
                    </tr></thead>
                    <tbody>{bars}</tbody>
                </table>
            </div>
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::widgets::params::testing::{assert_refused_keeps, assert_round_trip};

    #[test]
    fn sixteen_bytes_per_parameter_split_stage_by_stage() {
        let p = ZeroChoice::default();
        let n = p.params();
        let rows = p.rows().unwrap();
        // Mixed-precision Adam: 16 bytes per parameter; ZeRO-1 leaves 4 + 12/N.
        assert_eq!(rows[0].memory.state().0, 16.0 * n);
        let one = p.chosen().unwrap();
        assert_eq!(one.stage, ZeroStage::One);
        assert!((one.memory.state().0 / n - (4.0 + 12.0 / 64.0)).abs() < 1e-9);
        // ZeRO-3 moves half as much again as plain data parallelism.
        assert_eq!(rows[3].comms_bytes.0, 1.5 * rows[0].comms_bytes.0);
        // 1.1 TB of state fits no chip; 70B over 64 chips under ZeRO-3 fits a v5p.
        assert!(!p.fits(&rows[0]));
        assert!(p.fits(&rows[3]));
        // The strings the browser test reads.
        assert_eq!(si(one.memory.state().0, "B", 3), "295 GB");
        assert_eq!(si(one.comms_bytes.0, "B", 3), "282 GB");
        assert_eq!(si(rows[3].memory.state().0, "B", 3), "17.6 GB");
        assert_eq!(si(rows[3].comms_bytes.0, "B", 3), "423 GB");
        assert_eq!(si(rows[3].memory.state().0 / 2.0, "B", 3), "8.82 GB");
    }

    #[test]
    fn the_books_adam_is_ten_bytes_and_more_chips_shrink_the_split_part() {
        let mut p = ZeroChoice::default();
        p.apply("optimizer", "adam").unwrap();
        p.apply("stage", "0").unwrap();
        // Part 5: bf16 weights and two fp32 moments, 10 bytes per parameter, plus
        // bf16 gradients counted for the AllReduce.
        let n = p.params();
        assert_eq!(p.chosen().unwrap().memory.state().0, 12.0 * n);
        p.apply("stage", "3").unwrap();
        let before = p.chosen().unwrap().memory.state().0;
        p.apply("chips", "128").unwrap();
        assert_eq!(p.chosen().unwrap().memory.state().0 * 2.0, before);
    }

    #[test]
    fn bad_input_keeps_the_state() {
        assert_refused_keeps(
            &ZeroChoice::default(),
            &[
                ("chips", "0"),
                ("chips", "x"),
                ("stage", "4"),
                ("optimizer", "lion"),
                ("model", "nope"),
                ("chip", "nope"),
                ("colour", "red"),
            ],
        );
    }

    #[test]
    fn a_second_model_is_drawn_beside_and_compared() {
        use crate::widgets::params::testing::assert_pairs_restore;
        let mut p = ZeroChoice::default();
        p.apply("vs", "llama3-8b").unwrap();
        assert_pairs_restore(&p);
        let c = p.comparison().unwrap();
        let small = ZeroChoice {
            model: model("llama3-8b").unwrap(),
            vs: None,
            ..ZeroChoice::default()
        };
        let expected = zero_stages(small.params(), Optimizer::ADAM_MIXED, 64.0).unwrap();
        let state = c.row("state").unwrap();
        assert_eq!(state.b, si(expected[1].memory.state().0, "B", 3));
        assert_eq!(state.a, "295 GB");
        assert_eq!(
            c.row("comms").unwrap().b,
            si(expected[1].comms_bytes.0, "B", 3)
        );
        // 8B under ZeRO-1 on 64 chips fits a v5p's HBM; 70B does not.
        let fits = c.row("fits").unwrap();
        assert_eq!((fits.a.as_str(), fits.b.as_str()), ("does not fit", "fits"));
        // An unknown model is refused and the comparison kept; none removes it.
        let messages = assert_refused_keeps(&p, &[("vs", "gpt-9")]);
        assert!(messages[0].contains("gpt-9"), "{messages:?}");
        // The reader's own model compares as a preset does.
        let (code, _) = crate::library::tests::with_own_entries();
        p.apply("vs", "my:half 8B").unwrap();
        assert_eq!(p.vs.unwrap().id, code);
        assert_pairs_restore(&p);
        let half = accounting::params(&p.vs.unwrap().config).total();
        assert_eq!(
            p.comparison().unwrap().row("params").unwrap().b,
            grouped(half)
        );
        p.apply("vs", "none").unwrap();
        assert_eq!(p.comparison(), None);
        assert!(p.to_pairs().iter().all(|(k, _)| k != "vs"));
    }

    #[test]
    fn pairs_round_trip() {
        let p: ZeroChoice = assert_round_trip(&[
            ("model", "llama3-405b"),
            ("chip", "v5e"),
            ("chips", "256"),
            ("optimizer", "adam"),
            ("stage", "2"),
        ]);
        assert_eq!(p.stage, ZeroStage::Two);
    }
}
