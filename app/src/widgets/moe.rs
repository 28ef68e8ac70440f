//! A Mixture-of-Experts layer (`data-widget="moe"`, Part 4, "Sparsity and
//! Mixture-of-Experts"): a preset's experts `E`, active experts `k` and expert
//! width, a batch and an expert-parallel degree; out come the parameters stored
//! and used, FLOPs per token, the batch at which the expert matmuls turn
//! compute-bound, the weights per chip and the two AllToAlls that route tokens
//! against the expert matmuls' time, all from [`ridgeline_core::model::moe::analyse`].
//! A second Mixture-of-Experts model (`vs`, a preset or the reader's own) is
//! analysed on the same chip, batch and weights (its experts spread over as
//! many of the chips as divide them), its verdict and the difference spelled out.

use super::compare::{compare_picker, compare_table, Comparison, Diff, VS};
use super::controls::Notice;
use super::controls::NumberField;
use super::controls::{rounded, LogScale, Slider};
use leptos::prelude::*;
use ridgeline_core::dtype::Dtype;
use ridgeline_core::format::{grouped, sci, seconds, si};
use ridgeline_core::hardware::{chip, CHIPS};
use ridgeline_core::model::config::ModelPreset;
use ridgeline_core::model::config::MODELS;
use ridgeline_core::model::moe::{analyse, MoeAnalysis, MoeParams};

use super::controls::option;
use super::params::{WidgetParams, WidgetState};
use crate::input::{parse_count, parse_whole, short};

/// Range of the batch slider, in tokens.
pub const TOKENS_RANGE: (f64, f64) = (16.0, 16_777_216.0);
/// Slider positions.
const STEPS: f64 = 300.0;
/// The weight formats offered.
pub const WEIGHTS: [Dtype; 3] = [Dtype::Bf16, Dtype::Int8, Dtype::Int4];

/// The reader's choices; always analysable.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MoeChoice {
    /// The preset the shape started from.
    pub preset: &'static str,
    /// The core's parameters (the preset with the reader's overrides).
    pub params: MoeParams,
    /// A second Mixture-of-Experts model analysed beside the first, if any.
    pub vs: Option<&'static ModelPreset>,
}

impl Default for MoeChoice {
    fn default() -> Self {
        let v5e = chip("v5e").unwrap_or(&CHIPS[0]);
        // DeepSeek-V3 is in the registry; were it not, the widget would show its
        // notice-free empty state rather than panic.
        let params = MoeParams::preset("deepseek-v3", v5e).unwrap_or(MoeParams {
            model: MODELS[0].config,
            tokens: 8192.0,
            chip: v5e,
            weight: Dtype::Bf16,
            expert_parallel: 1,
        });
        MoeChoice {
            preset: "deepseek-v3",
            params,
            vs: None,
        }
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// The expert-parallel degree that divides `experts`: the largest divisor of
/// both the count of experts and the degree asked for (at least 1). It divides
/// `degree`, so it fits where `degree` did.
fn gcd_u32(experts: u64, degree: u32) -> u32 {
    u32::try_from(gcd(experts, u64::from(degree)).max(1)).unwrap_or(1)
}

impl MoeChoice {
    /// The analysis of the current settings.
    pub fn analysis(&self) -> Result<MoeAnalysis, String> {
        analyse(&self.params)
    }

    fn moe_field(&self, f: fn(&ridgeline_core::model::config::Moe) -> u64) -> u64 {
        self.params.model.moe.as_ref().map_or(0, f)
    }

    /// The compared model on the same chip, batch and weights, its experts
    /// over as many of the expert-parallel chips as divide them.
    pub fn vs_params(&self) -> Option<MoeParams> {
        let m = self.vs?;
        let experts = m.config.moe.as_ref().map_or(1, |e| e.experts);
        Some(MoeParams {
            model: m.config,
            expert_parallel: gcd_u32(experts, self.params.expert_parallel),
            ..self.params
        })
    }

    /// The compared model's analysis; `None` when nothing is compared.
    pub fn vs_analysis(&self) -> Option<Result<MoeAnalysis, String>> {
        self.vs_params().map(|p| analyse(&p))
    }

    /// The layer beside the compared model's: parameters, FLOPs, the batch
    /// where the experts turn compute-bound, weights per chip, the AllToAlls,
    /// the expert matmuls and the verdict, all from core.
    pub fn comparison(&self) -> Option<Comparison> {
        let (a, b) = (self.analysis().ok()?, self.vs_analysis()?.ok()?);
        let (pa, pb) = (&self.params, self.vs_params()?);
        let count = |x: f64| si(x, "", 3);
        let rows = vec![
            Diff::number(
                "experts",
                "routed experts E",
                self.experts() as f64,
                pb.model.moe.map_or(f64::NAN, |m| m.experts as f64),
                grouped,
            ),
            Diff::number(
                "ep",
                "expert-parallel chips",
                pa.expert_parallel as f64,
                pb.expert_parallel as f64,
                grouped,
            ),
            Diff::number(
                "total",
                "parameters stored",
                a.total_params,
                b.total_params,
                count,
            ),
            Diff::number(
                "active",
                "parameters a token uses",
                a.active_params,
                b.active_params,
                count,
            ),
            Diff::number(
                "flops",
                "forward FLOPs per token",
                a.forward_flops_per_token.0,
                b.forward_flops_per_token.0,
                |x| sci(x, 3),
            ),
            Diff::number(
                "critical",
                "compute-bound above (tokens)",
                a.critical_batch,
                b.critical_batch,
                grouped,
            ),
            Diff::number(
                "weights",
                "weights per chip",
                a.weight_bytes_per_chip.0,
                b.weight_bytes_per_chip.0,
                |x| si(x, "B", 3),
            ),
            Diff::number(
                "all-to-all",
                "AllToAll, dispatch + combine",
                a.all_to_all_time.0,
                b.all_to_all_time.0,
                seconds,
            ),
            Diff::number(
                "experts-time",
                "expert matmuls, forward",
                a.expert_time.0,
                b.expert_time.0,
                seconds,
            ),
            Diff::words(
                "verdict",
                "the expert matmuls are",
                a.verdict.text(),
                b.verdict.text(),
            ),
        ];
        Some(Comparison {
            a: models_name(self.preset),
            b: self.vs?.name.into(),
            rows,
        })
    }

    /// Routed experts `E`.
    pub fn experts(&self) -> u64 {
        self.moe_field(|m| m.experts)
    }

    /// Active experts `k`.
    pub fn active(&self) -> u64 {
        self.moe_field(|m| m.active)
    }

    /// One expert's hidden width.
    pub fn expert_ff(&self) -> u64 {
        self.moe_field(|m| m.expert_ff)
    }
}

/// A model's name from its id: a preset's, or the reader's own (the id
/// itself if neither has it).
fn models_name(id: &str) -> String {
    crate::library::resolve_model(id).map_or_else(|| id.to_string(), |m| m.name.to_string())
}

impl WidgetParams for MoeChoice {
    const ORDER: &'static [&'static [&'static str]] = &[&["model"], &["e"]];

    /// Sets one parameter from text, or explains why not (nothing changes then).
    /// A new `E` keeps the expert-parallel degree only as far as it divides `E`.
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut next = *self;
        let p = &mut next.params;
        match key {
            "model" => {
                let m = crate::library::resolve_model(value.trim())
                    .filter(|m| m.config.moe.is_some())
                    .ok_or_else(|| {
                        format!("“{}” is not a Mixture-of-Experts model", short(value))
                    })?;
                let fresh = MoeParams::of(m, p.chip)?;
                *p = MoeParams {
                    tokens: p.tokens,
                    weight: p.weight,
                    ..fresh
                };
                next.preset = m.id;
            }
            "chip" => p.chip = super::controls::tpu_with_ici(value)?,
            "e" => {
                let e = parse_whole::<u64>(value, "experts E", 1.0, 4096.0)?;
                let (k, ff) = (self.active().min(e), self.expert_ff());
                *p = p.with_experts(e, k, ff);
                p.expert_parallel = gcd_u32(e, p.expert_parallel);
            }
            "k" => {
                let k = parse_whole::<u64>(value, "active experts k", 1.0, 4096.0)?;
                *p = p.with_experts(self.experts(), k, self.expert_ff());
            }
            "ff" => {
                let ff = parse_whole::<u64>(value, "expert width", 1.0, 1e6)?;
                *p = p.with_experts(self.experts(), self.active(), ff);
            }
            "tokens" => {
                p.tokens =
                    parse_count(value, "batch (tokens)", TOKENS_RANGE.0, TOKENS_RANGE.1)?.round()
            }
            "weight" => p.weight = super::controls::dtype_among(value, &WEIGHTS, "weights")?,
            "ep" => {
                p.expert_parallel =
                    parse_whole::<u32>(value, "expert-parallel degree", 1.0, 4096.0)?
            }
            VS => {
                next.vs = super::compare::vs_model(value)?;
                if let Some(m) = next.vs.filter(|m| m.config.moe.is_none()) {
                    return Err(format!("{} is not a Mixture-of-Experts model", m.name));
                }
            }
            other => return Err(super::params::unknown_setting(other)),
        }
        next.analysis()?;
        if let Some(Err(e)) = next.vs_analysis() {
            return Err(format!("compared model: {e}"));
        }
        *self = next;
        Ok(())
    }

    /// The parameters as `key=value` pairs.
    fn to_pairs(&self) -> Vec<(String, String)> {
        let p = &self.params;
        vec![
            ("model".into(), self.preset.into()),
            ("chip".into(), p.chip.id.into()),
            ("e".into(), self.experts().to_string()),
            ("k".into(), self.active().to_string()),
            ("ff".into(), self.expert_ff().to_string()),
            ("tokens".into(), format!("{}", p.tokens)),
            ("weight".into(), p.weight.name().into()),
            ("ep".into(), p.expert_parallel.to_string()),
        ]
        .into_iter()
        .chain(self.vs.map(|m| (VS.into(), m.id.into())))
        .collect()
    }
}

/// The Mixture-of-Experts widget.
#[component]
pub fn Moe(
    /// The chapter's `key=value` arguments (URL parameters override them).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let state = WidgetState::<MoeChoice>::new(&args);
    let WidgetState { params, notice } = state;
    let set = move |key: &'static str, value: String| {
        state.set_or_refresh(key, &value, key != "tokens");
    };
    let result = Memo::new(move |_| params.with(|p| p.analysis().ok()));
    let show = move |f: fn(&MoeAnalysis) -> String| {
        move || result.with(|a| a.as_ref().map(f).unwrap_or_default())
    };
    let vs_id = move || params.with(|p| p.vs.map_or("", |m| m.id));
    let vs_options = super::controls::model_options(|m| m.config.moe.is_some(), vs_id);
    let vs_line = move || {
        params.with(|p| {
            let b = p.vs_analysis()?.ok()?;
            let text = b.verdict.text();
            Some(view! {
                <p data-vs-line="">{format!("{}'s expert matmuls at this batch are ", p.vs?.name)}
                    <strong class=format!("verdict {text}") data-vs-verdict=text>{text}</strong>
                    {format!(" (compute-bound above {} tokens).", grouped(b.critical_batch))}
                </p>
            })
        })
    };
    let weight_options = WEIGHTS
        .map(|d| {
            option(d.name(), d.name(), move || {
                params.with(|p| p.params.weight.name())
            })
        })
        .collect_view();
    let field = move |key: &'static str, aria: &'static str, get: fn(&MoeChoice) -> u64| {
        view! {
            {NumberField::new(key, aria, 6).class(format!("in-{key}")).on_change().view(move || params.with(get).to_string(), set)}
        }
    };
    let verdict = move || result.with(|a| a.as_ref().map(|a| a.verdict.text()).unwrap_or(""));
    let controls = view! {
        <div class="controls">
            {super::controls::model_picker("Model ", |m| m.config.moe.is_some(), move || params.with(|p| p.preset).to_string(), set)}
            {super::controls::chip_picker("Chip ", super::controls::has_ici, move || params.with(|p| p.params.chip.id).to_string(), set)}
            <label>"Weights "
                <select prop:value=move || params.with(|p| p.params.weight.name()) on:change=move |ev| set("weight", event_target_value(&ev))>{weight_options}</select>
            </label>
        </div>
        <div class="controls">
            <label>"Experts E " {field("e", "routed experts E", MoeChoice::experts)}</label>
            <label>"Active k " {field("k", "active experts per token k", MoeChoice::active)}</label>
            <label>"Expert width " {field("ff", "hidden width of one expert", MoeChoice::expert_ff)}</label>
            <label>"Expert-parallel chips " {field("ep", "chips the experts are spread over", |p| p.params.expert_parallel as u64)}</label>
            {compare_picker(vs_options, vs_id, set)}
        </div>
    }
    .into_any();

    view! {
        <figure class="widget moe" data-widget="moe">
            {controls}
            {Slider::positions(STEPS).id("moe-tokens").valuetext(move || format!("B = {} tokens", grouped(params.with(|p| p.params.tokens)))).log_row("Tokens in the batch B", LogScale::new(STEPS, move || TOKENS_RANGE, rounded), move || params.with(|p| p.params.tokens), "tokens", set, view! { <output>{move || format!("B = {}", grouped(params.with(|p| p.params.tokens)))}</output> })}
            <Notice notice=notice />
            <dl class="times moe-results">
                <div><dt>"parameters stored"</dt><dd data-total="">{show(|a| si(a.total_params, "", 3))}</dd></div>
                <div><dt>"parameters a token uses"</dt><dd data-active="">{show(|a| si(a.active_params, "", 3))}</dd></div>
                <div><dt>"FLOPs per token, forward / training"</dt><dd>{show(|a| format!("{} / {}", sci(a.forward_flops_per_token.0, 3), sci(a.training_flops_per_token.0, 3)))}</dd></div>
                <div><dt>"tokens per expert, B·k/E"</dt><dd data-per-expert="">{show(|a| sci(a.tokens_per_expert, 3))}</dd></div>
                <div><dt>"compute-bound above"</dt><dd data-critical="">{show(|a| format!("{} tokens", grouped(a.critical_batch)))}</dd></div>
                <div><dt>"weights per chip"</dt><dd data-weights="">{show(|a| format!("{}{}", si(a.weight_bytes_per_chip.0, "B", 3), if a.fits { "" } else { " — does not fit in HBM" }))}</dd></div>
                <div><dt>"AllToAll, dispatch + combine"</dt><dd data-all-to-all="">{show(|a| format!("{} each, {} in all", si(a.all_to_all_bytes.0, "B", 3), seconds(a.all_to_all_time.0)))}</dd></div>
                <div><dt>"expert matmuls, forward"</dt><dd>{show(|a| seconds(a.expert_time.0))}</dd></div>
            </dl>
            <p class="verdict-line">
                "At this batch the expert matmuls are "
                <strong class=move || format!("verdict {}", verdict()) data-verdict=verdict>{verdict}</strong>
                "."
            </p>
            {vs_line}
            {compare_table(move || params.with(|p| p.comparison()))}
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::widgets::params::testing::{
        assert_pairs_restore, assert_refused_keeps, assert_round_trip,
    };
    use ridgeline_core::roofline::Verdict;

    /// Issue #19: the reader's own Mixture of Experts (from the library or a
    /// link) is analysed as the preset of the same shape; a dense one is refused.
    #[test]
    fn the_readers_moe_model_is_analysed_as_its_preset() {
        let code = crate::library::tests::saved_as("deepseek-v3", "my V3");
        let preset = MoeChoice::default().analysis().unwrap();
        for id in [code.as_str(), "my:my V3"] {
            let mut p = MoeChoice::default();
            p.apply("model", id).unwrap();
            assert_eq!(models_name(p.preset), "my V3");
            let mine = p.analysis().unwrap();
            assert_eq!(mine.total_params, preset.total_params, "{id}");
            assert_eq!(mine.critical_batch, preset.critical_batch, "{id}");
            assert_pairs_restore(&p);
        }
        let dense = crate::library::tests::saved_as("llama3-8b", "dense 8B");
        assert_refused_keeps(&MoeChoice::default(), &[("model", dense.as_str())]);
    }

    #[test]
    fn deepseek_v3_stores_671b_and_uses_37b() {
        let c = MoeChoice::default();
        assert_eq!(c.preset, "deepseek-v3");
        let a = c.analysis().unwrap();
        // Part 4: DeepSeek-V3 holds about 671B parameters and a token uses about 37B.
        assert!(
            (a.total_params / 671e9 - 1.0).abs() < 0.01,
            "{}",
            a.total_params
        );
        assert!(
            (a.active_params / 37e9 - 1.0).abs() < 0.03,
            "{}",
            a.active_params
        );
        // The critical batch is the ridge times E/k: 240 · 256/8 on a v5e.
        let v5e = chip("v5e").unwrap();
        let ridge = v5e.peak(Dtype::Bf16).unwrap() / v5e.hbm_bw();
        assert!((a.critical_batch / (ridge.0 * 256.0 / 8.0) - 1.0).abs() < 1e-9);
    }

    #[test]
    fn the_verdict_follows_the_batch_and_bad_input_keeps_the_state() {
        let mut c = MoeChoice::default();
        c.apply("tokens", "1024").unwrap();
        assert_eq!(c.analysis().unwrap().verdict, Verdict::MemoryBound);
        c.apply("tokens", "1000000").unwrap();
        assert_eq!(c.analysis().unwrap().verdict, Verdict::ComputeBound);
        assert_refused_keeps(
            &c,
            &[
                ("k", "999"),
                ("ep", "3"),
                ("model", "llama3-70b"),
                ("weight", "fp32"),
                ("chip", "h100"),
                ("tokens", "1"),
                ("colour", "red"),
            ],
        );
        // Fewer experts keep as much expert parallelism as divides them.
        c.apply("e", "64").unwrap();
        assert_eq!(c.params.expert_parallel, 64);
        assert_pairs_restore(&c);
        let m: MoeChoice = assert_round_trip(&[("model", "mixtral-8x7b"), ("k", "1")]);
        assert_eq!((m.experts(), m.active()), (8, 1));
    }

    #[test]
    fn a_second_moe_model_on_the_same_chip_and_batch() {
        let c: MoeChoice = assert_round_trip(&[("vs", "mixtral-8x7b")]);
        let cmp = c.comparison().unwrap();
        assert_eq!(cmp.a, "DeepSeek-V3");
        // Mixtral's eight experts over gcd(8, 256) = 8 chips, same v5e and batch.
        let mut q = MoeParams::preset("mixtral-8x7b", c.params.chip).unwrap();
        q.tokens = c.params.tokens;
        q.expert_parallel = 8;
        let b = analyse(&q).unwrap();
        assert_eq!(cmp.row("total").unwrap().b, si(b.total_params, "", 3));
        assert_eq!(cmp.row("critical").unwrap().b, grouped(b.critical_batch));
        assert_eq!(cmp.row("ep").unwrap().b, "8");
        let messages = assert_refused_keeps(&c, &[("vs", "llama3-70b"), ("vs", "gpt-9")]);
        assert!(
            messages[0].contains("not a Mixture-of-Experts"),
            "{messages:?}"
        );
        let mut n = c;
        n.apply("vs", "none").unwrap();
        assert_eq!(n.comparison(), None);
    }
}
