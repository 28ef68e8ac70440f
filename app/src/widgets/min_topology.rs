//! The smallest slice that serves a model (`data-widget="min-topology"`, Part 8):
//! for bf16, int8 and int4 weights and KV caches, how many chips hold the
//! weights, the power-of-two slice that does, and how many KV caches of the
//! chosen length fit beside them. A second chip (`vs`) may be set beside the
//! first: its slice and caches in the same rows, and a table of the differences.

use super::controls::Notice;
use super::controls::NumberField;
use leptos::prelude::*;
use ridgeline_core::dtype::Dtype;
use ridgeline_core::format::{grouped, sci, si};
use ridgeline_core::hardware::{chip, Chip, CHIPS};
use ridgeline_core::inference::{min_topology_table, MinTopologyRow, ServingModel};
use ridgeline_core::model::config::{model, ModelPreset, MODELS};

use super::compare::{compare_picker, compare_table, Comparison, Diff, VS};
use super::params::{WidgetParams, WidgetState};
use crate::input::parse_count;

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
    /// A second chip the same model is placed on, if any.
    pub vs: Option<&'static Chip>,
}

impl Default for TopologyParams {
    fn default() -> Self {
        TopologyParams {
            model: model("llama3-70b").unwrap_or(&MODELS[0]),
            chip: chip("v5e").unwrap_or(&CHIPS[0]),
            seq: 8192.0,
            vs: None,
        }
    }
}

impl TopologyParams {
    /// The table's rows.
    pub fn rows(&self) -> Result<Vec<MinTopologyRow>, String> {
        let m = ServingModel::new(self.model.config).map_err(|e| e.to_string())?;
        min_topology_table(&m, self.chip, self.seq, &FORMATS).map_err(|e| e.to_string())
    }

    /// The rows on the compared chip, if there is one.
    pub fn vs_rows(&self) -> Option<Result<Vec<MinTopologyRow>, String>> {
        let chip = self.vs?;
        Some(TopologyParams { chip, ..*self }.rows())
    }

    /// This chip beside the compared one: HBM, and for each format the
    /// smallest slice and the KV caches that fit beside the weights.
    pub fn comparison(&self) -> Option<Comparison> {
        let (a, b) = (self.rows().ok()?, self.vs_rows()?.ok()?);
        let other = self.vs?;
        let mut rows = vec![Diff::number(
            "hbm",
            "HBM per chip",
            self.chip.hbm_capacity.value.0,
            other.hbm_capacity.value.0,
            |x| si(x, "B", 3),
        )];
        for (x, y) in a.iter().zip(&b) {
            let (slice, caches) = match x.dtype {
                Dtype::Bf16 => ("slice-bf16", "caches-bf16"),
                Dtype::Int8 => ("slice-int8", "caches-int8"),
                _ => ("slice-int4", "caches-int4"),
            };
            let d = x.dtype.name();
            rows.push(Diff::number(
                slice,
                format!("smallest slice, {d}"),
                x.slice_chips as f64,
                y.slice_chips as f64,
                grouped,
            ));
            rows.push(Diff::number(
                caches,
                format!("KV caches that fit, {d}"),
                x.kv_caches as f64,
                y.kv_caches as f64,
                grouped,
            ));
        }
        Some(Comparison {
            a: self.chip.name.into(),
            b: other.name.into(),
            rows,
        })
    }
}

impl WidgetParams for TopologyParams {
    const ORDER: &'static [&'static [&'static str]] = &[&["model", VS]];

    /// Sets one parameter from text.
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut next = *self;
        match key {
            "model" => {
                next.model = super::controls::model(value)?;
                next.seq = next.seq.min(next.model.config.max_seq as f64);
            }
            "chip" => next.chip = super::controls::chip(value)?,
            VS => next.vs = super::compare::vs_chip(value)?,
            "seq" => next.seq = parse_count(value, "sequence length", 1.0, 1e9)?.round(),
            other => return Err(super::params::unknown_setting(other)),
        }
        next.rows()?;
        if let Some(Err(e)) = next.vs_rows() {
            return Err(format!("compared chip: {e}"));
        }
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
        .into_iter()
        .chain(self.vs.map(|c| (VS.into(), c.id.into())))
        .collect()
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
        state.set_or_refresh(key, &value, key == VS);
    };
    let vs_id = move || params.with(|p| p.vs.map_or("", |c| c.id));
    let vs_name = move || params.with(|p| p.vs.map(|c| c.name));
    let rows = move || {
        let compared = params
            .with(|p| p.vs_rows())
            .and_then(Result::ok)
            .unwrap_or_default();
        params
            .with(|p| p.rows())
            .unwrap_or_default()
            .into_iter()
            .map(|r| {
                // The compared chip's slice and caches, in the same row.
                let vs = compared.iter().find(|v| v.dtype == r.dtype).map(|v| {
                    view! {
                        <td data-vs-slice="">{grouped(v.slice_chips as f64)}</td>
                        <td data-vs-caches="">{grouped(v.kv_caches as f64)}</td>
                    }
                });
                view! {
                    <tr data-dtype=r.dtype.name()>
                        <th scope="row">{r.dtype.name()}</th>
                        <td>{si(r.param_bytes.0, "B", 3)}</td>
                        <td>{si(r.kv_per_token.0, "B", 3)}</td>
                        <td>{sci(r.min_chips, 3)}</td>
                        <td data-slice="">{grouped(r.slice_chips as f64)}</td>
                        <td>{si(r.free_hbm.0, "B", 3)}</td>
                        <td data-caches="">{grouped(r.kv_caches as f64)}</td>
                        {vs}
                    </tr>
                }
            })
            .collect_view()
    };
    view! {
        <figure class="widget min-topology" data-widget="min-topology">
            <div class="controls">
                {super::controls::model_picker("Model ", super::controls::any, move || params.with(|p| p.model.id).to_string(), set)}
                {super::controls::chip_picker("Chip ", super::controls::any, move || params.with(|p| p.chip.id).to_string(), set)}
                {compare_picker(super::controls::chip_options(super::controls::any, vs_id), vs_id, set)}
                {NumberField::new("seq", "KV cache length in tokens", 7).label("KV cache length ").view(move || format!("{}", params.with(|p| p.seq)), set)}
            </div>
            <div class="table-scroll" tabindex="0">
                <table>
                    <thead><tr>
                        <th scope="col">"weights + KV in"</th><th scope="col">"weights"</th><th scope="col">"KV per token"</th>
                        <th scope="col">"chips for the weights"</th><th scope="col">"smallest slice"</th>
                        <th scope="col">"HBM left"</th><th scope="col">"KV caches that fit"</th>
                        {move || vs_name().map(|n| view! {
                            <th scope="col">{format!("slice on {n}")}</th><th scope="col">{format!("caches on {n}")}</th>
                        })}
                    </tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
            {compare_table(move || params.with(|p| p.comparison()))}
            <Notice notice=notice />
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::widgets::params::testing::{assert_pairs_restore, assert_refused_keeps};

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
    fn a_second_chip_places_the_same_model() {
        let mut p = TopologyParams::default();
        p.apply("vs", "v5p").unwrap();
        assert_pairs_restore(&p);
        let m = ServingModel::new(p.model.config).unwrap();
        let on_v5p = min_topology_table(&m, chip("v5p").unwrap(), 8192.0, &FORMATS).unwrap();
        let c = p.comparison().unwrap();
        let slice = c.row("slice-bf16").unwrap();
        assert_eq!(slice.a, "16");
        assert_eq!(slice.b, grouped(on_v5p[0].slice_chips as f64));
        assert_eq!(
            c.row("caches-int8").unwrap().b,
            grouped(on_v5p[1].kv_caches as f64)
        );
        // The v5p's 95 GB hold the bf16 weights of 70B on fewer chips than the v5e's 16 GB.
        assert!(slice.ratio.unwrap() < 1.0);
        let messages = assert_refused_keeps(&p, &[("vs", "tpu99")]);
        assert!(messages[0].contains("tpu99"), "{messages:?}");
        p.apply("vs", "none").unwrap();
        assert_eq!(p.comparison(), None);
        assert!(p.to_pairs().iter().all(|(k, _)| k != "vs"));
    }

    #[test]
    fn bad_input_keeps_the_table() {
        let mut p = TopologyParams::default();
        assert_refused_keeps(&p, &[("seq", "1e6"), ("chip", "tpu99"), ("colour", "red")]);
        p.apply("chip", "h100").unwrap();
        assert_pairs_restore(&p);
    }
}
