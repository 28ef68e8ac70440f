//! One Transformer layer as a diagram (`data-widget="layer-diagram"`, Part 4,
//! "Transformer Accounting"): the attention and MLP blocks in the order data
//! flows through them, each operation a button; the selected one shows its
//! contraction, shapes, parameters, FLOPs and bytes, and a table lists every
//! matmul of the chosen model, all from [`ridgeline_core::model::layer`]. A second
//! model (`vs`, a preset or the reader's own) takes the same tokens: its
//! figures beside the selected operation's, a column beside every matmul and
//! the difference spelled out.

use super::compare::{compare_picker, compare_table, Comparison, Diff, VS};
use super::controls::Notice;
use super::controls::NumberField;
use leptos::prelude::*;
use ridgeline_core::dtype::Dtype;
use ridgeline_core::format::{grouped, sci, si};
use ridgeline_core::model::config::{model, ModelPreset, MODELS};
use ridgeline_core::model::layer::{layer_ops, LayerOp, LayerOps, LayerParams, OpKind};

use super::controls::option;
use super::params::{WidgetParams, WidgetState};
use crate::input::{parse_count, parse_flag, short};

/// The attention block's operations in the order data flows through them.
pub const ATTENTION_FLOW: [&str; 9] = [
    "norm (attention)",
    "W_Q",
    "W_K",
    "W_V",
    "QKᵀ",
    "softmax",
    "softmax·V",
    "W_O",
    "residual add (attention)",
];
/// The MLP block's operations in flow order (the router only in an MoE, the
/// gate only in a gated MLP).
pub const MLP_FLOW: [&str; 8] = [
    "norm (MLP)",
    "router",
    "W_in",
    "W_gate",
    "silu(in)·gate",
    "nonlinearity",
    "W_out",
    "residual add (MLP)",
];

/// The reader's choices; always a valid layer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LayerDiagramParams {
    /// The model (grouped-query attention only).
    pub model: &'static ModelPreset,
    /// Sequences in the batch.
    pub batch: f64,
    /// Tokens per sequence.
    pub seq: f64,
    /// Format of weights and activations.
    pub dtype: Dtype,
    /// Whether the attention kernel skips the masked half.
    pub causal: bool,
    /// The selected operation's name.
    pub op: &'static str,
    /// A second model taking the same tokens, if any.
    pub vs: Option<&'static ModelPreset>,
}

impl Default for LayerDiagramParams {
    fn default() -> Self {
        LayerDiagramParams {
            model: model("llama3-70b").unwrap_or(&MODELS[0]),
            batch: 1.0,
            seq: 4096.0,
            dtype: Dtype::Bf16,
            causal: false,
            op: "W_in",
            vs: None,
        }
    }
}

/// Whether the diagram covers a model: one without latent attention.
pub fn diagrammed(m: &ModelPreset) -> bool {
    m.config.mla.is_none()
}

impl LayerDiagramParams {
    /// The core's parameters.
    pub fn core(&self) -> LayerParams {
        LayerParams {
            model: self.model.config,
            batch: self.batch,
            seq: self.seq,
            dtype: self.dtype,
            causal: self.causal,
        }
    }

    /// Every operation of the layer.
    pub fn ops(&self) -> Result<LayerOps, String> {
        layer_ops(&self.core())
    }

    /// Every operation of the compared model's layer at the same batch,
    /// length, format and kernel; `None` when nothing is compared.
    pub fn vs_ops(&self) -> Option<Result<LayerOps, String>> {
        let model = self.vs?;
        Some(
            LayerDiagramParams {
                model,
                vs: None,
                ..*self
            }
            .ops(),
        )
    }

    /// The layer beside the compared model's: the whole layer's parameters,
    /// FLOPs and shares, then the selected operation's figures in each (`—`
    /// where a model has no such operation).
    pub fn comparison(&self) -> Option<Comparison> {
        let vs = self.vs?;
        let (a, b) = (self.ops().ok()?, self.vs_ops()?.ok()?);
        let mut rows = vec![
            Diff::number(
                "params",
                "parameters per layer",
                a.params(),
                b.params(),
                grouped,
            ),
            Diff::number("flops", "forward FLOPs", a.flops().0, b.flops().0, sci3),
            Diff::number(
                "training-flops",
                "training FLOPs",
                a.training_flops().0,
                b.training_flops().0,
                sci3,
            ),
            Diff::number(
                "matmul-share",
                "matmuls' share",
                a.matmul_share(),
                b.matmul_share(),
                percent,
            ),
            Diff::number(
                "attention-share",
                "attention matmuls' share",
                a.attention_share(),
                b.attention_share(),
                percent,
            ),
        ];
        let op = |ops: &LayerOps, f: fn(&LayerOp) -> f64| {
            ops.ops
                .iter()
                .find(|o| o.name == self.op)
                .map_or(f64::NAN, f)
        };
        let name = self.op;
        let each: [OpRow; 4] = [
            ("op-params", "parameters", |o| o.params, grouped),
            ("op-flops", "forward FLOPs", |o| o.flops.0, sci3),
            (
                "op-bytes",
                "bytes through HBM",
                |o| o.bytes.0,
                |x| {
                    if x.is_finite() {
                        si(x, "B", 3)
                    } else {
                        sci3(x)
                    }
                },
            ),
            ("op-intensity", "FLOPs per byte", |o| o.intensity().0, sci3),
        ];
        for (key, what, get, show) in each {
            rows.push(Diff::number(
                key,
                format!("{name}: {what}"),
                op(&a, get),
                op(&b, get),
                show,
            ));
        }
        Some(Comparison {
            a: self.model.name.into(),
            b: vs.name.into(),
            rows,
        })
    }
}

/// A comparison row of the selected operation: its key, what it shows, how
/// to read the value from the operation and how to write it.
type OpRow = (
    &'static str,
    &'static str,
    fn(&LayerOp) -> f64,
    fn(f64) -> String,
);

/// Three significant figures in the book's notation (`1.2e11`).
fn sci3(x: f64) -> String {
    sci(x, 3)
}

/// The operations of `names` that the layer has, in that order.
pub fn in_flow<'a>(ops: &'a LayerOps, names: &[&str]) -> Vec<&'a LayerOp> {
    names
        .iter()
        .filter_map(|n| ops.ops.iter().find(|o| o.name == *n))
        .collect()
}

impl WidgetParams for LayerDiagramParams {
    const ORDER: &'static [&'static [&'static str]] = &[&["model"]];

    /// Sets one parameter from text, or explains why not (nothing changes then).
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut next = *self;
        match key {
            "model" => {
                next.model = crate::library::resolve_model(value.trim())
                    .filter(|m| diagrammed(m))
                    .ok_or_else(|| {
                        format!(
                            "“{}” is not a model with grouped-query attention",
                            short(value)
                        )
                    })?
            }
            "batch" => next.batch = parse_count(value, "batch (sequences)", 1.0, 1e6)?.round(),
            "seq" => next.seq = parse_count(value, "sequence length", 1.0, 1e7)?.round(),
            "dtype" => next.dtype = super::controls::dtype(value)?,
            "causal" => next.causal = parse_flag(value, "causal")?,
            "op" => {
                let ops = next.ops()?;
                next.op = ops
                    .ops
                    .iter()
                    .find(|o| o.name == value.trim())
                    .map(|o| o.name)
                    .ok_or_else(|| format!("this layer has no operation “{}”", short(value)))?
            }
            VS => {
                next.vs = super::compare::vs_model(value)?;
                if let Some(m) = next.vs.filter(|m| m.config.mla.is_some()) {
                    return Err(format!(
                        "{} uses latent attention, which this diagram does not draw",
                        m.name
                    ));
                }
            }
            other => return Err(super::params::unknown_setting(other)),
        }
        let ops = next.ops()?;
        // A model without a gate or router keeps a selection it has.
        if !ops.ops.iter().any(|o| o.name == next.op) {
            next.op = "W_O";
        }
        if let Some(Err(e)) = next.vs_ops() {
            return Err(format!("{}: {e}", next.vs.map_or("", |m| m.name)));
        }
        *self = next;
        Ok(())
    }

    /// The parameters as `key=value` pairs.
    fn to_pairs(&self) -> Vec<(String, String)> {
        vec![
            ("model".into(), self.model.id.into()),
            ("batch".into(), format!("{}", self.batch)),
            ("seq".into(), format!("{}", self.seq)),
            ("dtype".into(), self.dtype.name().into()),
            ("causal".into(), if self.causal { "1" } else { "0" }.into()),
            ("op".into(), self.op.into()),
        ]
        .into_iter()
        .chain(self.vs.map(|m| (VS.into(), m.id.into())))
        .collect()
    }
}

fn percent(x: f64) -> String {
    format!("{}%", sci(100.0 * x, 3))
}

/// The layer diagram.
#[component]
pub fn LayerDiagram(
    /// The chapter's `key=value` arguments (URL parameters override them).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let state = WidgetState::<LayerDiagramParams>::new(&args);
    let WidgetState { params, notice } = state;
    let set = move |key: &'static str, value: String| {
        state.set_or_refresh(key, &value, matches!(key, "model" | "dtype" | VS));
    };
    let result = Memo::new(move |_| params.with(|p| p.ops().ok()));
    let compared = Memo::new(move |_| params.with(|p| p.vs_ops().and_then(Result::ok)));
    let vs_name = move || params.with(|p| p.vs.map_or("", |m| m.name));
    let vs_id = move || params.with(|p| p.vs.map_or("", |m| m.id));
    let vs_options = super::controls::model_options(diagrammed, vs_id);
    let dtype_options = Dtype::ALL
        .map(|d| option(d.name(), d.name(), move || params.with(|p| p.dtype.name())))
        .collect_view();

    let block = move |names: &'static [&'static str]| {
        move || {
            let chosen = params.with(|p| p.op);
            result.with(|r| {
                r.as_ref()
                    .map(|ops| {
                        let total = ops.flops().0;
                        in_flow(ops, names)
                            .into_iter()
                            .map(|o| {
                                let name = o.name;
                                let kind = match o.kind {
                                    OpKind::Weight => "op weight",
                                    OpKind::Attention => "op attention",
                                    OpKind::Elementwise => "op elementwise",
                                };
                                view! {
                                    <li>
                                        <button type="button" class=kind data-op=name aria-pressed=move || (name == chosen).to_string()
                                            on:click=move |_| set("op", name.to_string())>
                                            <span class="op-name">{name}</span>
                                            <span class="op-share">{percent(o.flops.0 / total)}</span>
                                        </button>
                                    </li>
                                }
                            })
                            .collect_view()
                    })
                    .unwrap_or_default()
            })
        }
    };
    let detail = move || {
        let chosen = params.with(|p| p.op);
        // The same operation in the compared model, or why it has none.
        let vs_detail = compared.with(|c| {
            c.as_ref().map(|ops| {
                let text = ops.ops.iter().find(|o| o.name == chosen).map_or_else(
                    || "no such operation".to_string(),
                    |o| format!("{}; {} parameters, {} FLOPs", o.shapes, grouped(o.params), sci(o.flops.0, 3)),
                );
                view! { <div class="vs-detail"><dt>{format!("in {}", vs_name())}</dt><dd data-vs-op="">{text}</dd></div> }
            })
        });
        result.with(|r| {
            r.as_ref()
                .and_then(|ops| ops.ops.iter().find(|o| o.name == chosen))
                .map(|o| {
                    view! {
                        <dl class="op-detail" data-op-detail=o.name>
                            <div><dt>"operation"</dt><dd>{o.name}</dd></div>
                            <div><dt>"contraction"</dt><dd><code>{o.einsum}</code></dd></div>
                            <div><dt>"shapes"</dt><dd data-shapes="">{o.shapes.clone()}</dd></div>
                            <div><dt>"parameters"</dt><dd data-params="">{grouped(o.params)}</dd></div>
                            <div><dt>"forward FLOPs"</dt><dd data-flops="">{sci(o.flops.0, 3)}</dd></div>
                            <div><dt>"training FLOPs"</dt><dd>{sci(o.training_flops().0, 3)}</dd></div>
                            <div><dt>"bytes through HBM"</dt><dd>{si(o.bytes.0, "B", 3)}</dd></div>
                            <div><dt>"FLOPs per byte"</dt><dd>{sci(o.intensity().0, 3)}</dd></div>
                            {vs_detail}
                        </dl>
                    }
                })
        })
    };
    let matrices = move || {
        result.with(|r| {
            r.as_ref()
                .map(|ops| {
                    let total = ops.flops().0;
                    in_flow(ops, &ATTENTION_FLOW)
                        .into_iter()
                        .chain(in_flow(ops, &MLP_FLOW))
                        .filter(|o| o.kind != OpKind::Elementwise)
                        .map(|o| {
                            // The compared model's FLOPs for the same matmul.
                            let vs = compared.with(|c| {
                                c.as_ref().map(|c| {
                                    let flops = c
                                        .ops
                                        .iter()
                                        .find(|v| v.name == o.name)
                                        .map_or(f64::NAN, |v| v.flops.0);
                                    view! { <td data-vs-flops="">{sci(flops, 3)}</td> }
                                })
                            });
                            view! {
                                <tr data-matrix=o.name>
                                    <th scope="row">{o.name}</th>
                                    <td>{o.shapes.clone()}</td>
                                    <td>{grouped(o.params)}</td>
                                    <td>{sci(o.flops.0, 3)}</td>
                                    <td>{percent(o.flops.0 / total)}</td>
                                    {vs}
                                </tr>
                            }
                        })
                        .collect_view()
                })
                .unwrap_or_default()
        })
    };
    let totals = move || {
        result.with(|r| {
            r.as_ref()
                .map(|ops| {
                    format!(
                        "One layer: {} parameters, {} forward FLOPs for {} tokens; matmuls are {} of them and the two attention matmuls {}. Training it costs {} FLOPs, against {} from 6 × weight parameters × tokens.",
                        grouped(ops.params()),
                        sci(ops.flops().0, 3),
                        grouped(ops.tokens),
                        percent(ops.matmul_share()),
                        percent(ops.attention_share()),
                        sci(ops.training_flops().0, 3),
                        sci(ops.rule_of_thumb().0, 3),
                    )
                })
                .unwrap_or_default()
        })
    };
    let text_input = move |key: &'static str,
                           aria: &'static str,
                           get: fn(&LayerDiagramParams) -> f64| {
        view! {
            {NumberField::new(key, aria, 7).class(format!("in-{key}")).on_change().view(move || format!("{}", params.with(get)), set)}
        }
    };

    // The controls are typed apart from the figure (one view type would be too deep).
    let controls = view! {
            <div class="controls">
                {super::controls::model_picker("Model ", diagrammed, move || params.with(|p| p.model.id).to_string(), set)}
                <label>"Sequences " {text_input("batch", "sequences in the batch", |p| p.batch)}</label>
                <label>"Tokens each " {text_input("seq", "tokens per sequence", |p| p.seq)}</label>
                <label>"Format "
                    <select prop:value=move || params.with(|p| p.dtype.name()) on:change=move |ev| set("dtype", event_target_value(&ev))>{dtype_options}</select>
                </label>
                <label>
                    <input type="checkbox" prop:checked=move || params.with(|p| p.causal) checked=move || params.with(|p| p.causal)
                        on:change=move |ev| set("causal", if event_target_checked(&ev) { "1".into() } else { "0".into() }) />
                    " causal kernel skips the masked half"
                </label>
                {compare_picker(vs_options, vs_id, set)}
            </div>
    }
    .into_any();

    let flow = view! {
            <div class="layer-flow">
                <section aria-label="attention block">
                    <h4>"Attention block"</h4>
                    <ol class="flow">{block(&ATTENTION_FLOW)}</ol>
                </section>
                <section aria-label="MLP block">
                    <h4>"MLP block"</h4>
                    <ol class="flow">{block(&MLP_FLOW)}</ol>
                </section>
                <div class="op-panel" aria-live="polite">{detail}</div>
            </div>
    }
    .into_any();

    view! {
        <figure class="widget layer-diagram" data-widget="layer-diagram">
            {controls}
            <Notice notice=notice />
            {flow}
            <div class="table-scroll" tabindex="0">
                <table class="matrices">
                    <caption>"Every matmul of the layer"</caption>
                    <thead><tr><th scope="col">"matmul"</th><th scope="col">"shapes"</th><th scope="col">"parameters"</th><th scope="col">"forward FLOPs"</th><th scope="col">"share"</th>{move || params.with(|p| p.vs.map(|m| view! { <th scope="col">{format!("{}: FLOPs", m.name)}</th> }))}</tr></thead>
                    <tbody>{matrices}</tbody>
                </table>
            </div>
            <p class="layer-totals" data-totals="">{totals}</p>
            {compare_table(move || params.with(|p| p.comparison()))}
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::widgets::params::pairs;
    use crate::widgets::params::testing::{assert_pairs_restore, assert_refused_keeps};

    /// Issue #19: the reader's own model is diagrammed as its preset; one
    /// with latent attention (MLA) is refused.
    #[test]
    fn the_readers_model_is_diagrammed_as_its_preset() {
        let code = crate::library::tests::saved_as("llama3-70b", "my 70B");
        let preset = LayerDiagramParams::default().ops().unwrap();
        for id in [code.as_str(), "my:my 70B"] {
            let mut p = LayerDiagramParams::default();
            p.apply("model", id).unwrap();
            assert_eq!(p.model.name, "my 70B");
            assert_eq!(p.ops().unwrap().flops(), preset.flops(), "{id}");
            assert_pairs_restore(&p);
        }
        let mla = crate::library::tests::saved_as("deepseek-v3", "my V3");
        assert_refused_keeps(&LayerDiagramParams::default(), &[("model", mla.as_str())]);
    }

    #[test]
    fn llama3_70b_w_in_is_d_by_f() {
        let p = LayerDiagramParams::default();
        let ops = p.ops().unwrap();
        let w_in = ops.ops.iter().find(|o| o.name == "W_in").unwrap();
        // LLaMA 3-70B: D = 8192, F = 28672, so W_in holds D·F parameters and
        // costs 2·tokens·D·F forward (Part 4).
        assert_eq!(w_in.params, 8192.0 * 28672.0);
        assert_eq!(w_in.flops.0, 2.0 * 4096.0 * 8192.0 * 28672.0);
        assert_eq!(
            w_in.shapes,
            "[4,096, 8,192] × [8,192, 28,672] → [4,096, 28,672]"
        );
        // Every operation the layer has appears in the diagram exactly once.
        let shown = in_flow(&ops, &ATTENTION_FLOW).len() + in_flow(&ops, &MLP_FLOW).len();
        assert_eq!(shown, ops.ops.len());
        let mixtral = LayerDiagramParams::from_pairs(&pairs(&[("model", "mixtral-8x7b")])).0;
        let ops = mixtral.ops().unwrap();
        let shown = in_flow(&ops, &ATTENTION_FLOW).len() + in_flow(&ops, &MLP_FLOW).len();
        assert_eq!(shown, ops.ops.len());
    }

    #[test]
    fn bad_input_keeps_the_diagram_and_pairs_round_trip() {
        let mut p = LayerDiagramParams::default();
        assert_refused_keeps(
            &p,
            &[
                ("model", "deepseek-v3"),
                ("seq", "0"),
                ("batch", "x"),
                ("dtype", "fp7"),
                ("op", "W_nope"),
                ("causal", "maybe"),
                ("colour", "red"),
            ],
        );
        p.apply("op", "QKᵀ").unwrap();
        p.apply("seq", "131072").unwrap();
        p.apply("causal", "1").unwrap();
        assert_pairs_restore(&p);
        // At 128k tokens attention dominates the layer's FLOPs.
        assert!(p.ops().unwrap().attention_share() > 0.5);
    }

    #[test]
    fn a_second_model_takes_the_same_tokens() {
        use crate::widgets::params::testing::assert_round_trip;
        let p: LayerDiagramParams = assert_round_trip(&[("vs", "llama3-8b"), ("op", "W_in")]);
        let c = p.comparison().unwrap();
        // Core's layer of LLaMA 3 8B at the same 4,096 tokens: D = 4096, F = 14336.
        let direct = layer_ops(&LayerParams {
            model: model("llama3-8b").unwrap().config,
            ..p.core()
        })
        .unwrap();
        let w_in = direct.ops.iter().find(|o| o.name == "W_in").unwrap();
        assert_eq!(w_in.flops.0, 2.0 * 4096.0 * 4096.0 * 14336.0);
        assert_eq!(c.row("op-flops").unwrap().b, sci(w_in.flops.0, 3));
        assert_eq!(c.row("params").unwrap().b, grouped(direct.params()));
        assert_eq!(c.row("op-params").unwrap().a, grouped(8192.0 * 28672.0));
        // An operation the compared model lacks reads "—".
        let mut moe = p;
        moe.apply("model", "mixtral-8x7b").unwrap();
        moe.apply("op", "router").unwrap();
        assert_eq!(moe.comparison().unwrap().row("op-flops").unwrap().b, "—");
        let messages = assert_refused_keeps(&p, &[("vs", "gpt-9"), ("vs", "deepseek-v3")]);
        assert!(messages[0].contains("gpt-9"), "{messages:?}");
        assert!(messages[1].contains("latent"), "{messages:?}");
        // The reader's own model compares as a preset does.
        let (code, _) = crate::library::tests::with_own_entries();
        let mut own = p;
        own.apply("vs", "my:half 8B").unwrap();
        assert_eq!(own.vs.unwrap().id, code);
        assert_pairs_restore(&own);
        let mut q = p;
        q.apply("vs", "none").unwrap();
        assert_eq!(q.comparison(), None);
        assert!(q.to_pairs().iter().all(|(k, _)| k != "vs"));
        // The figure: a column of the compared FLOPs beside every matmul.
        let owner = Owner::new();
        let html =
            owner.with(|| view! { <LayerDiagram args=pairs(&[("vs", "llama3-8b")]) /> }.to_html());
        assert_eq!(html.matches("data-vs-flops").count(), 9, "{html}");
        assert!(
            html.contains("LLaMA 3 8B: FLOPs") && html.contains("data-vs-op"),
            "{html}"
        );
    }

    #[test]
    fn the_static_figure_shows_the_selected_operation() {
        let owner = Owner::new();
        let html = owner.with(|| view! { <LayerDiagram args=pairs(&[("op", "W_Q")]) /> }.to_html());
        assert!(html.contains(r#"data-op-detail="W_Q""#), "{html}");
        assert!(html.contains(&grouped(8192.0 * 8192.0)), "{html}");
        assert!(!html.contains("data-vs-flops") && !html.contains("data-compare"));
    }
}
