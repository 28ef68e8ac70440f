//! Gradient checkpointing (`data-widget="remat"`, Part 4, "Gradient
//! checkpointing"; Part 5 leans on it): the four policies from saving every
//! intermediate to recomputing the whole forward pass twice, each as activation
//! memory per chip against the extra FLOPs it costs, for a registry model, a
//! batch, a sequence length and the chips the activations are spread over. The
//! chip's HBM is drawn as a line, so the reader sees which policies fit. Every
//! number comes from [`ridgeline_core::model::remat::compare`]. A second model (`vs`,
//! a preset or the reader's own) is drawn on the same axes at the same batch,
//! sequence and chips: its four policies as rings joined by a dashed line, its
//! verdict and the difference spelled out.

use super::compare::{compare_picker, compare_table, Comparison, Diff, VS};
use super::controls::Notice;
use super::controls::NumberField;
use leptos::prelude::*;
use ridgeline_core::format::{grouped, sci, si};
use ridgeline_core::hardware::{chip, Chip, CHIPS};
use ridgeline_core::model::config::{model, ModelPreset, MODELS};
use ridgeline_core::model::remat::{compare, Policy, PolicyCost, RematParams};

use super::controls::{fit_class, fit_word, option};
use super::params::{WidgetParams, WidgetState};
use crate::charts::remat::{draw, label};
use crate::charts::size::{Frame, Shape, Size};
use crate::charts::svg;
use crate::input::parse_count;

/// The chart's drawing size (SVG user units).
const SHAPE: Shape = Shape::new(760, 380, 300);
/// The largest batch, sequence length and chip count the fields accept.
const MAX_BATCH: f64 = 1e7;
/// The longest sequence the field accepts.
const MAX_SEQ: f64 = 4_194_304.0;
/// The most chips the field accepts.
const MAX_CHIPS: f64 = 1e6;

/// The reader's settings; always valid.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RematChoice {
    /// The model preset.
    pub model: &'static ModelPreset,
    /// The chip whose HBM the activations must fit in.
    pub chip: &'static Chip,
    /// Sequences per step.
    pub batch: f64,
    /// Tokens per sequence.
    pub seq: f64,
    /// Chips the activations are spread over.
    pub chips: f64,
    /// The highlighted policy.
    pub policy: Policy,
    /// A second model drawn beside the first, if any.
    pub vs: Option<&'static ModelPreset>,
}

impl Default for RematChoice {
    fn default() -> Self {
        RematChoice {
            model: model("llama3-70b").unwrap_or(&MODELS[0]),
            chip: chip("v5p").unwrap_or(&CHIPS[0]),
            batch: 1.0,
            seq: 4096.0,
            chips: 1.0,
            policy: Policy::PerLayer,
            vs: None,
        }
    }
}

impl RematChoice {
    /// The core's parameters.
    pub fn params(&self) -> RematParams {
        RematParams::new(self.model.config, self.batch, self.seq, self.chips)
    }

    /// Every policy's cost, least recomputation first.
    pub fn rows(&self) -> Result<Vec<PolicyCost>, String> {
        compare(&self.params())
    }

    /// Every policy's cost for the compared model at the same batch,
    /// sequence and chips; `None` when nothing is compared.
    pub fn vs_rows(&self) -> Option<Result<Vec<PolicyCost>, String>> {
        let m = self.vs?;
        Some(compare(&RematParams::new(
            m.config, self.batch, self.seq, self.chips,
        )))
    }

    /// The model beside the compared one: each policy's activations per
    /// chip, the chosen policy's extra FLOPs and whether it fits.
    pub fn comparison(&self) -> Option<Comparison> {
        let (a, b) = (self.rows().ok()?, self.vs_rows()?.ok()?);
        let mut rows = Vec::new();
        for (ra, rb) in a.iter().zip(&b) {
            let key = match ra.policy {
                Policy::None => "memory-none",
                Policy::Selected => "memory-selected",
                Policy::PerLayer => "memory-per-layer",
                Policy::Full => "memory-full",
            };
            rows.push(Diff::number(
                key,
                format!("activations, {}", label(ra.policy)),
                ra.activation_bytes.0,
                rb.activation_bytes.0,
                |x| si(x, "B", 3),
            ));
        }
        let pick = |rows: &[PolicyCost]| rows.iter().find(|r| r.policy == self.policy).copied();
        let (ca, cb) = (pick(&a)?, pick(&b)?);
        rows.push(Diff::number(
            "extra",
            format!("extra FLOPs, {}", label(self.policy)),
            100.0 * ca.extra_share(),
            100.0 * cb.extra_share(),
            |x| format!("{}%", sci(x, 3)),
        ));
        rows.push(Diff::words(
            "fits",
            format!("in {}'s HBM", self.chip.name),
            fit_word(self.fits(&ca)),
            fit_word(self.fits(&cb)),
        ));
        Some(Comparison {
            a: self.model.name.into(),
            b: self.vs?.name.into(),
            rows,
        })
    }

    /// The highlighted policy's cost.
    pub fn chosen(&self) -> Option<PolicyCost> {
        self.rows()
            .ok()?
            .into_iter()
            .find(|r| r.policy == self.policy)
    }

    /// The chip's HBM in bytes.
    pub fn hbm(&self) -> f64 {
        self.chip.hbm_capacity.value.0
    }

    /// Whether a policy's activations alone fit in the chip's HBM.
    pub fn fits(&self, row: &PolicyCost) -> bool {
        row.activation_bytes.0 <= self.hbm()
    }

    /// The chart: activation memory per chip (log) against extra FLOPs, one point
    /// per policy, the chosen one ringed, and the chip's HBM as a dashed line.
    pub fn chart_svg(&self, size: Size) -> String {
        let Ok(rows) = self.rows() else {
            return String::new();
        };
        let hbm = self.hbm();
        let vs_rows = self.vs_rows().and_then(Result::ok);
        let vs = self.vs.zip(vs_rows.as_deref()).map(|(m, r)| (m.name, r));
        svg(size.width, size.height, |root| {
            draw(root, &rows, self.policy, hbm, self.chip.name, vs)
        })
        .0
    }
}

impl WidgetParams for RematChoice {
    /// Sets one parameter from text, or explains why not.
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut next = *self;
        match key {
            "model" => next.model = super::controls::model(value)?,
            "chip" => next.chip = super::controls::chip(value)?,
            "batch" => {
                next.batch = parse_count(value, "batch (sequences)", 1.0, MAX_BATCH)?.round()
            }
            "seq" => next.seq = parse_count(value, "sequence length", 1.0, MAX_SEQ)?.round(),
            "chips" => next.chips = parse_count(value, "chips", 1.0, MAX_CHIPS)?.round(),
            "policy" => next.policy = Policy::parse(value)?,
            VS => next.vs = super::compare::vs_model(value)?,
            other => return Err(super::params::unknown_setting(other)),
        }
        next.rows()?;
        if let Some(Err(e)) = next.vs_rows() {
            return Err(format!("compared model: {e}"));
        }
        *self = next;
        Ok(())
    }

    /// The parameters as `key=value` pairs.
    fn to_pairs(&self) -> Vec<(String, String)> {
        vec![
            ("model".into(), self.model.id.into()),
            ("chip".into(), self.chip.id.into()),
            ("batch".into(), format!("{}", self.batch)),
            ("seq".into(), format!("{}", self.seq)),
            ("chips".into(), format!("{}", self.chips)),
            ("policy".into(), self.policy.name().into()),
        ]
        .into_iter()
        .chain(self.vs.map(|m| (VS.into(), m.id.into())))
        .collect()
    }
}

fn pct(share: f64) -> String {
    format!("{}%", sci(100.0 * share, 3))
}

/// The gradient-checkpointing widget.
#[component]
pub fn Remat(
    /// The chapter's `key=value` arguments (URL parameters override them).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let state = WidgetState::<RematChoice>::new(&args);
    let WidgetState { params, notice } = state;
    let set = move |key: &'static str, value: String| {
        // Put a refused select back to the last valid setting.
        state.set_or_refresh(key, &value, matches!(key, "model" | "chip" | "policy" | VS));
    };
    let frame = Frame::new(SHAPE);
    let chart = move || params.with(|p| p.chart_svg(frame.get()));
    let rows = Memo::new(move |_| params.with(|p| p.rows().unwrap_or_default()));
    let chosen = move || params.with(|p| p.chosen());
    let vs_id = move || params.with(|p| p.vs.map_or("", |m| m.id));
    let vs_options = super::controls::model_options(super::controls::any, vs_id);
    let vs_line = move || {
        params.with(|p| {
            let rows = p.vs_rows()?.ok()?;
            let r = rows.into_iter().find(|r| r.policy == p.policy)?;
            let word = fit_word(p.fits(&r));
            Some(view! {
                <p data-vs-line="">{format!("{} at the same settings keeps {} per chip, which ", p.vs?.name, si(r.activation_bytes.0, "B", 3))}
                    <strong class=fit_class(word) data-vs-verdict=word>{word}</strong>"."
                </p>
            })
        })
    };
    let policy_options = Policy::ALL
        .map(|p| option(p.name(), label(p), move || params.with(|q| q.policy.name())))
        .collect_view();
    let field = move |key: &'static str,
                      caption: &'static str,
                      aria: &'static str,
                      get: fn(&RematChoice) -> f64| {
        view! {
            <label>
                {caption}
                {NumberField::new(key, aria, 8).class(format!("remat-{key}")).on_change().view(move || format!("{}", params.with(get)), set)}
            </label>
        }
    };
    let table = move || {
        rows.get()
            .into_iter()
            .map(|r| {
                let (fits, chosen) = params.with(|p| (p.fits(&r), p.policy == r.policy));
                view! {
                    <tr data-policy=r.policy.name() class:selected=chosen>
                        <th scope="row">{label(r.policy)}</th>
                        <td>{si(r.activation_bytes.0, "B", 3)}{if fits { "" } else { " ✗" }}</td>
                        <td>{pct(r.extra_share())}</td>
                        <td>{sci(r.flops_per_param_token, 3)}</td>
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

    view! {
        <figure class="widget remat" data-widget="remat">
            <div class="controls">
                {super::controls::model_picker("Model ", super::controls::any, move || params.with(|p| p.model.id).to_string(), set)}
                {super::controls::chip_picker("Chip ", super::controls::any, move || params.with(|p| p.chip.id).to_string(), set)}
                <label>"Policy "
                    <select class="remat-policy" prop:value=move || params.with(|p| p.policy.name()) on:change=move |ev| set("policy", event_target_value(&ev))>{policy_options}</select>
                </label>
            </div>
            <div class="controls">
                {field("batch", "Sequences ", "sequences per step", |p| p.batch)}
                {field("seq", "Tokens each ", "tokens per sequence", |p| p.seq)}
                {field("chips", "Chips ", "chips the activations are spread over", |p| p.chips)}
                {compare_picker(vs_options, vs_id, set)}
            </div>
            <div class="plot" node_ref=frame.node style=frame.style()>
                <div class="layer" inner_html=chart role="img"
                    aria-label=move || params.with(|p| format!("activation memory per chip against extra FLOPs for four checkpointing policies; {} is ringed", label(p.policy)))></div>
            </div>
            <p class="verdict-line">
                "Checkpointing " <strong>{move || params.with(|p| label(p.policy))}</strong> ", "
                {move || params.with(|p| format!("{} sequences of {} tokens over {} chips", grouped(p.batch), grouped(p.seq), grouped(p.chips)))}
                " keeps " <strong data-remat-memory="">{move || chosen().map(|r| si(r.activation_bytes.0, "B", 3)).unwrap_or_default()}</strong>
                " of activations per chip and recomputes " <strong data-remat-extra="">{move || chosen().map(|r| pct(r.extra_share())).unwrap_or_default()}</strong>
                " of a step (" <span data-remat-flops="">{move || chosen().map(|r| sci(r.flops_per_param_token, 3)).unwrap_or_default()}</span>
                " FLOPs per parameter per token); the activations alone "
                <strong class=move || fit_class(verdict())
                    data-verdict=verdict>{verdict}</strong>
                " in " {move || params.with(|p| format!("{}'s {}", p.chip.name, si(p.hbm(), "B", 3)))} " of HBM."
            </p>
            {vs_line}
            <Notice notice=notice />
            {compare_table(move || params.with(|p| p.comparison()))}
            <div class="table-scroll" tabindex="0">
                <table class="remat-table">
                    <thead><tr><th scope="col">"policy"</th><th scope="col">"activations / chip"</th><th scope="col">"extra FLOPs"</th><th scope="col">"FLOPs / param / token"</th></tr></thead>
                    <tbody>{table}</tbody>
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
    fn the_books_numbers_for_one_llama_sequence() {
        let p = RematChoice::default();
        let rows = p.rows().unwrap();
        let c = &p.model.config;
        // The book: about 2·20·B·T·D·L bytes of activations without remat.
        let none = 2.0 * 20.0 * 4096.0 * c.d_model as f64 * c.layers as f64;
        assert_eq!(rows[0].activation_bytes.0, none);
        assert!(!p.fits(&rows[0]), "107 GB does not fit a v5p");
        assert_eq!(fit_class(fit_word(p.fits(&rows[0]))), "verdict over");
        // Block remat: about 8 FLOPs per parameter per token, a third more work.
        let per_layer = p.chosen().unwrap();
        assert_eq!(per_layer.policy, Policy::PerLayer);
        assert!((per_layer.flops_per_param_token - 8.0).abs() < 0.4);
        assert!(p.fits(&per_layer));
        // The strings the browser test reads.
        assert_eq!(si(per_layer.activation_bytes.0, "B", 3), "6.71 GB");
        assert_eq!(si(rows[0].activation_bytes.0, "B", 3), "107 GB");
        assert_eq!(pct(rows[0].extra_share()), "0%");
        assert_eq!(si(rows[0].activation_bytes.0 / 8.0, "B", 3), "13.4 GB");
        let svg = p.chart_svg(SHAPE.design());
        assert!(svg.starts_with(r#"<svg class="chart-svg""#), "{svg}");
        assert!(svg.contains("TPU v5p HBM"), "{svg}");
        assert!(svg.contains(&si(none, "B", 3)), "{svg}");
    }

    #[test]
    fn more_chips_divide_the_memory_and_leave_the_flops() {
        let mut p = RematChoice::default();
        let before = p.chosen().unwrap();
        p.apply("chips", "8").unwrap();
        let after = p.chosen().unwrap();
        assert_eq!(after.activation_bytes.0 * 8.0, before.activation_bytes.0);
        assert_eq!(after.extra_share(), before.extra_share());
        p.apply("policy", "full").unwrap();
        assert!(p.chosen().unwrap().activation_bytes < after.activation_bytes);
    }

    #[test]
    fn bad_input_keeps_the_state() {
        let mut p = RematChoice::default();
        p.apply("batch", "16").unwrap();
        assert_refused_keeps(
            &p,
            &[
                ("batch", "0"),
                ("batch", "abc"),
                ("seq", "-5"),
                ("chips", "1e9"),
                ("policy", "most"),
                ("model", "nope"),
                ("chip", "nope"),
                ("colour", "red"),
            ],
        );
    }

    #[test]
    fn pairs_round_trip() {
        let p: RematChoice = assert_round_trip(&[
            ("model", "llama3-8b"),
            ("chip", "v5e"),
            ("batch", "32"),
            ("seq", "8192"),
            ("chips", "16"),
            ("policy", "selected"),
        ]);
        assert_eq!(p.policy, Policy::Selected);
    }

    #[test]
    fn a_second_model_at_the_same_settings() {
        let p: RematChoice = assert_round_trip(&[("vs", "llama3-8b")]);
        let c = p.comparison().unwrap();
        let m = model("llama3-8b").unwrap();
        let rows = compare(&RematParams::new(m.config, 1.0, 4096.0, 1.0)).unwrap();
        assert_eq!(
            c.row("memory-none").unwrap().b,
            si(rows[0].activation_bytes.0, "B", 3)
        );
        assert_eq!(c.row("memory-none").unwrap().a, "107 GB");
        assert_eq!(c.row("fits").unwrap().b, "fits");
        let svg = p.chart_svg(SHAPE.design());
        assert!(svg.contains("LLaMA 3 8B: "), "{svg}");
        let messages = assert_refused_keeps(&p, &[("vs", "gpt-9")]);
        assert!(messages[0].contains("gpt-9"));
        let mut q = p;
        q.apply("vs", "none").unwrap();
        assert_eq!(q.comparison(), None);
        assert!(!q.chart_svg(SHAPE.design()).contains("LLaMA 3 8B"));
    }
}
