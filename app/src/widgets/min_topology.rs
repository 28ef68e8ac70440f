//! The smallest slice that serves a model (`data-widget="min-topology"`, Part 8):
//! for bf16, int8 and int4 weights and KV caches, how many chips hold the
//! weights, the power-of-two slice that does, and how many KV caches of the
//! chosen length fit beside them.

use super::common::Notice;
use leptos::prelude::*;
use ridgeline_core::dtype::Dtype;
use ridgeline_core::format::{grouped, sci, si};
use ridgeline_core::hardware::{chip, Chip, CHIPS};
use ridgeline_core::inference::{min_topology_table, MinTopologyRow, ServingModel};
use ridgeline_core::models::{model, ModelPreset, MODELS};

use super::common::{WidgetParams, WidgetState};
use crate::input::{parse_count, short};

/// The formats compared.
pub const FORMATS: [Dtype; 3] = [Dtype::Bf16, Dtype::Int8, Dtype::Int4];

/// The reader's choices.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TopologyParams {
    /// The model.
    pub model: &'static ModelPreset,
    /// The chip.
    pub chip: &'static Chip,
    /// Tokens per KV cache.
    pub seq: f64,
}

impl Default for TopologyParams {
    fn default() -> Self {
        TopologyParams {
            model: model("llama3-70b").unwrap_or(&MODELS[0]),
            chip: chip("v5e").unwrap_or(&CHIPS[0]),
            seq: 8192.0,
        }
    }
}

impl TopologyParams {
    /// The table's rows.
    pub fn rows(&self) -> Result<Vec<MinTopologyRow>, String> {
        let m = ServingModel::new(self.model.config).map_err(|e| e.to_string())?;
        min_topology_table(&m, self.chip, self.seq, &FORMATS).map_err(|e| e.to_string())
    }
}

impl WidgetParams for TopologyParams {
    const NAME: &'static str = "min-topology";
    const ORDER: &'static [&'static [&'static str]] = &[&["model"]];

    /// Sets one parameter from text.
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut next = *self;
        match key {
            "model" => {
                next.model = crate::library::resolve_model(value)
                    .ok_or_else(|| format!("unknown model “{}”", short(value)))?;
                next.seq = next.seq.min(next.model.config.max_seq as f64);
            }
            "chip" => {
                next.chip = crate::library::resolve_chip(value)
                    .ok_or_else(|| format!("unknown chip “{}”", short(value)))?
            }
            "seq" => next.seq = parse_count(value, "sequence length", 1.0, 1e9)?.round(),
            other => return Err(format!("unknown setting “{}”", short(other))),
        }
        next.rows()?;
        *self = next;
        Ok(())
    }

    /// The parameters as `key=value` pairs.
    fn to_pairs(&self) -> Vec<(String, String)> {
        vec![
            ("model".into(), self.model.id.into()),
            ("chip".into(), self.chip.id.into()),
            ("seq".into(), format!("{}", self.seq)),
        ]
    }
}

/// The widget.
#[component]
pub fn MinTopology(
    /// The chapter's `key=value` arguments (URL parameters override them).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let state = WidgetState::<TopologyParams>::new(&args);
    let WidgetState { params, notice } = state;
    let set = move |key: &'static str, value: String| {
        state.set(key, &value);
    };
    let rows = move || {
        params
            .with(|p| p.rows())
            .unwrap_or_default()
            .into_iter()
            .map(|r| {
                view! {
                    <tr data-dtype=r.dtype.name()>
                        <th scope="row">{r.dtype.name()}</th>
                        <td>{si(r.param_bytes.0, "B", 3)}</td>
                        <td>{si(r.kv_per_token.0, "B", 3)}</td>
                        <td>{sci(r.min_chips, 3)}</td>
                        <td data-slice="">{grouped(r.slice_chips as f64)}</td>
                        <td>{si(r.free_hbm.0, "B", 3)}</td>
                        <td data-caches="">{grouped(r.kv_caches as f64)}</td>
                    </tr>
                }
            })
            .collect_view()
    };
    let model_options =
        super::common::model_options(super::common::any, move || params.with(|p| p.model.id));
    let chip_options =
        super::common::chip_options(super::common::any, move || params.with(|p| p.chip.id));
    view! {
        <figure class="widget min-topology" data-widget="min-topology">
            <div class="controls">
                <label>"Model "
                    <select prop:value=move || params.with(|p| p.model.id) on:change=move |ev| set("model", event_target_value(&ev))>{model_options}</select>
                </label>
                <label>"Chip "
                    <select prop:value=move || params.with(|p| p.chip.id) on:change=move |ev| set("chip", event_target_value(&ev))>{chip_options}</select>
                </label>
                <label>"KV cache length "
                    <input type="text" inputmode="numeric" size="7" aria-label="KV cache length in tokens"
                        value=move || format!("{}", params.with(|p| p.seq)) prop:value=move || format!("{}", params.with(|p| p.seq))
                        on:input=move |ev| set("seq", event_target_value(&ev)) />
                </label>
            </div>
            <div class="table-scroll" tabindex="0">
                <table>
                    <thead><tr>
                        <th scope="col">"weights + KV in"</th><th scope="col">"weights"</th><th scope="col">"KV per token"</th>
                        <th scope="col">"chips for the weights"</th><th scope="col">"smallest slice"</th>
                        <th scope="col">"HBM left"</th><th scope="col">"KV caches that fit"</th>
                    </tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
            <Notice notice=notice />
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::widgets::common::testing::{assert_pairs_restore, assert_refused_keeps};

    #[test]
    fn llama3_70b_on_v5e_needs_a_4x4_in_bf16() {
        let rows = TopologyParams::default().rows().unwrap();
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0].slice_chips, 16);
        assert_eq!(rows[1].slice_chips, 8);
        assert_eq!(rows[2].slice_chips, 4);
        assert!(rows.iter().all(|r| r.kv_caches > 0));
    }

    #[test]
    fn bad_input_keeps_the_table() {
        let mut p = TopologyParams::default();
        assert_refused_keeps(&p, &[("seq", "1e6"), ("chip", "tpu99"), ("colour", "red")]);
        p.apply("chip", "h100").unwrap();
        assert_pairs_restore(&p);
    }
}
