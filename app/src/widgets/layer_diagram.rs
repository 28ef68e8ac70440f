//! One Transformer layer as a diagram (`data-widget="layer-diagram"`, Part 4,
//! "Transformer Accounting"): the attention and MLP blocks in the order data
//! flows through them, each operation a button; the selected one shows its
//! contraction, shapes, parameters, FLOPs and bytes, and a table lists every
//! matmul of the chosen model, all from [`ridgeline_core::layer`].

use super::common::Notice;
use leptos::prelude::*;
use ridgeline_core::dtype::Dtype;
use ridgeline_core::format::{grouped, sci, si};
use ridgeline_core::layer::{layer_ops, LayerOp, LayerOps, LayerParams, OpKind};
use ridgeline_core::models::{model, ModelPreset, MODELS};

use super::common::{option, WidgetParams, WidgetState};
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
        }
    }
}

/// The models the diagram covers: those without latent attention.
pub fn diagram_models() -> impl Iterator<Item = &'static ModelPreset> {
    MODELS.iter().filter(|m| m.config.mla.is_none())
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
}

/// The operations of `names` that the layer has, in that order.
pub fn in_flow<'a>(ops: &'a LayerOps, names: &[&str]) -> Vec<&'a LayerOp> {
    names
        .iter()
        .filter_map(|n| ops.ops.iter().find(|o| o.name == *n))
        .collect()
}

impl WidgetParams for LayerDiagramParams {
    const NAME: &'static str = "layer-diagram";
    const ORDER: &'static [&'static [&'static str]] = &[&["model"]];

    /// Sets one parameter from text, or explains why not (nothing changes then).
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut next = *self;
        match key {
            "model" => {
                next.model = diagram_models()
                    .find(|m| m.id == value.trim())
                    .ok_or_else(|| {
                        format!(
                            "“{}” is not a model with grouped-query attention",
                            short(value)
                        )
                    })?
            }
            "batch" => next.batch = parse_count(value, "batch (sequences)", 1.0, 1e6)?.round(),
            "seq" => next.seq = parse_count(value, "sequence length", 1.0, 1e7)?.round(),
            "dtype" => {
                next.dtype = Dtype::parse(value)
                    .ok_or_else(|| format!("unknown format “{}”", short(value)))?
            }
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
            other => return Err(format!("unknown setting “{}”", short(other))),
        }
        let ops = next.ops()?;
        // A model without a gate or router keeps a selection it has.
        if !ops.ops.iter().any(|o| o.name == next.op) {
            next.op = "W_O";
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
        state.set_or_refresh(key, &value, matches!(key, "model" | "dtype"));
    };
    let result = Memo::new(move |_| params.with(|p| p.ops().ok()));
    let model_options = diagram_models()
        .map(|m| option(m.id, m.name, move || params.with(|p| p.model.id)))
        .collect_view();
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
                            view! {
                                <tr data-matrix=o.name>
                                    <th scope="row">{o.name}</th>
                                    <td>{o.shapes.clone()}</td>
                                    <td>{grouped(o.params)}</td>
                                    <td>{sci(o.flops.0, 3)}</td>
                                    <td>{percent(o.flops.0 / total)}</td>
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
            <input type="text" inputmode="numeric" size="7" class=format!("in-{key}") aria-label=aria
                value=move || format!("{}", params.with(get)) prop:value=move || format!("{}", params.with(get))
                on:change=move |ev| set(key, event_target_value(&ev)) />
        }
    };

    // The controls are typed apart from the figure (one view type would be too deep).
    let controls = view! {
            <div class="controls">
                <label>"Model "
                    <select prop:value=move || params.with(|p| p.model.id) on:change=move |ev| set("model", event_target_value(&ev))>{model_options}</select>
                </label>
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
                    <thead><tr><th scope="col">"matmul"</th><th scope="col">"shapes"</th><th scope="col">"parameters"</th><th scope="col">"forward FLOPs"</th><th scope="col">"share"</th></tr></thead>
                    <tbody>{matrices}</tbody>
                </table>
            </div>
            <p class="layer-totals" data-totals="">{totals}</p>
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::widgets::common::pairs;
    use crate::widgets::common::testing::{assert_pairs_restore, assert_refused_keeps};

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
    fn the_static_figure_shows_the_selected_operation() {
        let owner = Owner::new();
        let html = owner.with(|| view! { <LayerDiagram args=pairs(&[("op", "W_Q")]) /> }.to_html());
        assert!(html.contains(r#"data-op-detail="W_Q""#), "{html}");
        assert!(html.contains(&grouped(8192.0 * 8192.0)), "{html}");
    }
}
