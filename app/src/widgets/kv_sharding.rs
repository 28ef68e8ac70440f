//! Sharding the KV cache over heads and batch (`data-widget="kv-sharding"`,
//! Part 7): the book's twelve steps of attention with `KV[2, B_Z, S, K_Y, H]`
//! on a `Y × Z` mesh, from `ridgeline_core::inference::kv_sharding`. Each row gives a
//! step's per-chip shape, FLOPs, bytes and time; a slider steps through them,
//! and the totals compare the cache each chip holds with head sharding alone.
//! A second chip (`vs`) may be set beside the first: each step's time on it in
//! the same rows, and a table of the differences.

use super::controls::Slider;
use super::controls::{number_field, Notice};
use leptos::prelude::*;
use ridgeline_core::format::{grouped, sci, seconds, si};
use ridgeline_core::hardware::Chip;
use ridgeline_core::inference::kv_sharding::{
    kv_sharding_on, KvShardingParams, KvShardingReport, StepKind,
};

use super::compare::{
    chip_rows, compare_picker, compare_table, ici_row, parse_vs, Comparison, Diff, VS,
};
use super::controls::ici_chip;
use super::params::{WidgetParams, WidgetState};
use crate::input::parse_whole;
use ridgeline_core::dtype::Dtype;

/// The reader's settings; always a valid mesh for the shape.
#[derive(Debug, Clone, PartialEq)]
pub struct KvParams {
    /// The mesh, shape and batch.
    pub p: KvShardingParams,
    /// The step shown in detail (0-based).
    pub step: usize,
    /// A second TPU the same steps are timed on, if any.
    pub vs: Option<&'static Chip>,
}

impl Default for KvParams {
    /// LLaMA 3-70B's attention shape on an 8 × 4 TPU v5e mesh, batch 32 at 8k.
    fn default() -> Self {
        KvParams {
            p: KvShardingParams::default(),
            step: 0,
            vs: None,
        }
    }
}

impl KvParams {
    /// The chip `p.chip` names: a registry chip or the reader's own
    /// (`my:NAME`, or its compact text from a link).
    pub fn chip(&self) -> Result<&'static Chip, String> {
        super::controls::chip(&self.p.chip)
    }

    /// The twelve steps and totals.
    pub fn report(&self) -> Result<KvShardingReport, String> {
        kv_sharding_on(&self.p, self.chip()?)
    }

    /// The same steps on the compared chip, if there is one.
    pub fn vs_report(&self) -> Option<Result<KvShardingReport, String>> {
        Some(kv_sharding_on(&self.p, self.vs?))
    }

    /// This chip beside the compared one: the links that set the times, the
    /// two AllToAlls and the whole layer.
    pub fn comparison(&self) -> Option<Comparison> {
        let (a, b) = (self.report().ok()?, self.vs_report()?.ok()?);
        let (this, other) = (self.chip().ok()?, self.vs?);
        let mut rows = chip_rows(this, other, Dtype::Bf16);
        rows.push(ici_row(this, other));
        rows.extend([
            Diff::number(
                "all-to-all",
                "the two AllToAlls",
                a.all_to_all.0,
                b.all_to_all.0,
                seconds,
            ),
            Diff::number("total", "the whole layer", a.total.0, b.total.0, seconds),
        ]);
        Some(Comparison {
            a: this.name.into(),
            b: other.name.into(),
            rows,
        })
    }
}

impl WidgetParams for KvParams {
    const ORDER: &'static [&'static [&'static str]] = &[&["chip", "batch"], &["y", "z"], &[VS]];

    /// Sets one parameter from text, or explains why not (the mesh axes must
    /// divide the KV heads, the batch and the query heads per KV head).
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut next = self.clone();
        let count = |what: &str, max: f64| -> Result<u64, String> {
            parse_whole::<u64>(value, what, 1.0, max)
        };
        match key {
            "chip" => next.p.chip = super::controls::chip(value)?.id.to_string(),
            "batch" => next.p.batch = count("batch B", f64::from(1u32 << 20))?,
            "seq" => next.p.seq = count("cache length S", f64::from(1u32 << 22))?,
            "y" => next.p.y = count("Y", 4096.0)?,
            "z" => next.p.z = count("Z", 4096.0)?,
            "step" => next.step = parse_whole::<usize>(value, "step", 1.0, 12.0)? - 1,
            VS => next.vs = parse_vs(value, "TPU with ICI", ici_chip)?,
            other => return Err(super::params::unknown_setting(other)),
        }
        let r = next.report()?;
        if let Some(Err(e)) = next.vs_report() {
            return Err(format!("compared chip: {e}"));
        }
        next.step = next.step.min(r.steps.len().saturating_sub(1));
        *self = next;
        Ok(())
    }

    /// The parameters as `key=value` pairs.
    fn to_pairs(&self) -> Vec<(String, String)> {
        vec![
            ("chip".into(), self.p.chip.clone()),
            ("batch".into(), format!("{}", self.p.batch)),
            ("seq".into(), format!("{}", self.p.seq)),
            ("y".into(), format!("{}", self.p.y)),
            ("z".into(), format!("{}", self.p.z)),
            ("step".into(), format!("{}", self.step + 1)),
        ]
        .into_iter()
        .chain(self.vs.map(|c| (VS.into(), c.id.into())))
        .collect()
    }
}

fn kind_name(k: StepKind) -> &'static str {
    match k {
        StepKind::Given => "given",
        StepKind::Matmul => "matmul",
        StepKind::Local => "local",
        StepKind::AllToAll => "AllToAll over Z",
        StepKind::AllReduce => "AllReduce",
    }
}

/// The kv-sharding widget.
#[component]
pub fn KvSharding(
    /// The chapter's `key=value` arguments (URL parameters override them).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let state = WidgetState::<KvParams>::new(&args);
    let WidgetState { params, notice } = state;
    let set = move |key: &'static str, value: String| {
        state.set_or_refresh(key, &value, true);
    };
    let report = Memo::new(move |_| params.with(|p| p.report().ok()));
    let shown = move |f: fn(&KvShardingReport) -> String| {
        move || report.with(|r| r.as_ref().map(f).unwrap_or_default())
    };
    let current = move || params.with(|p| p.step);
    let vs_report = Memo::new(move |_| params.with(|p| p.vs_report().and_then(Result::ok)));
    let vs_id = move || params.with(|p| p.vs.map_or("", |c| c.id));
    let rows = move || {
        // Each step's time on the compared chip, in the same row.
        let vs_times: Vec<f64> = vs_report.with(|r| {
            r.as_ref()
                .map(|r| r.steps.iter().map(|s| s.time.0).collect())
                .unwrap_or_default()
        });
        report.with(|r| {
            r.as_ref()
                .map(|r| {
                    r.steps
                        .iter()
                        .enumerate()
                        .map(|(i, s)| {
                            let shape: Vec<String> = s.local_shape.iter().map(|d| d.to_string()).collect();
                            let kind = kind_name(s.kind);
                            let vs = vs_times.get(i).map(|&t| view! {
                                <td data-vs-time="">{if t > 0.0 { seconds(t) } else { "—".into() }}</td>
                            });
                            view! {
                                <tr data-kind=kind class:current=move || current() == i aria-current=move || (current() == i).then_some("step")>
                                    <td>{i + 1}</td>
                                    <td><code>{s.text.clone()}</code></td>
                                    <td>{kind}</td>
                                    <td>{format!("[{}]", shape.join(","))}</td>
                                    <td>{if s.flops.0 > 0.0 { sci(s.flops.0, 3) } else { "—".into() }}</td>
                                    <td>{if s.bytes.0 > 0.0 { si(s.bytes.0, "B", 3) } else { "—".into() }}</td>
                                    <td>{if s.time.0 > 0.0 { seconds(s.time.0) } else { "—".into() }}</td>
                                    {vs}
                                </tr>
                            }
                        })
                        .collect_view()
                })
        })
    };
    type Size = (
        &'static str,
        &'static str,
        &'static str,
        fn(&KvShardingParams) -> u64,
    );
    let size_fields: [Size; 4] = [
        (
            "y",
            "Y (KV heads) ",
            "mesh axis Y, sharding the KV heads",
            |p| p.y,
        ),
        ("z", "Z (batch) ", "mesh axis Z, sharding the batch", |p| {
            p.z
        }),
        ("batch", "Batch ", "batch B", |p| p.batch),
        ("seq", "Cache length ", "cache length S in tokens", |p| {
            p.seq
        }),
    ];
    let sizes = size_fields
        .into_iter()
        .map(|(key, label, aria, get)| {
            let text = move || format!("{}", params.with(|p| get(&p.p)));
            number_field(label, aria, 6, text, key, set)
        })
        .collect_view();
    let step_text = move || format!("{}", current() + 1);
    let detail = move || {
        report.with(|r| {
            r.as_ref()
                .and_then(|r| r.steps.get(current()))
                .map(|s| format!("Step {}: {} ({})", current() + 1, s.text, kind_name(s.kind)))
        })
    };

    view! {
        <figure class="widget kv-sharding" data-widget="kv-sharding">
            <div class="controls">
                {super::controls::chip_picker("Chip ", super::controls::has_ici, move || params.with(|p| p.p.chip.clone()).to_string(), set)}
                {sizes}
                {compare_picker(super::controls::chip_options(super::controls::has_ici, vs_id), vs_id, set)}
            </div>
            {Slider::new("1", || "12".to_string(), "1").id("kv-sharding-step").valuetext(move || detail().unwrap_or_default()).row("Step", move || step_text().to_string(), move |v: String| set("step", v), view! { <output data-step="">{move || detail().unwrap_or_default()}</output> })}
            <div class="table-scroll" tabindex="0">
                <table>
                    <thead><tr>
                        <th scope="col">"#"</th><th scope="col">"step"</th><th scope="col">"kind"</th>
                        <th scope="col">"per-chip shape"</th><th scope="col">"FLOPs"</th>
                        <th scope="col">"bytes"</th><th scope="col">"time"</th>
                        {move || params.with(|p| p.vs.map(|c| view! { <th scope="col">{format!("time on {}", c.name)}</th> }))}
                    </tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
            <p class="verdict-line">
                "Each chip holds " <strong data-kv-per-chip="">{shown(|r| si(r.kv_per_chip.0, "B", 3))}</strong>
                " of cache, against " <span data-kv-heads-only="">{shown(|r| si(r.kv_per_chip_heads_only.0, "B", 3))}</span>
                " with heads sharded over Y alone (" <span data-ratio="">{shown(|r| format!("{}×", grouped(r.kv_per_chip_heads_only.0 / r.kv_per_chip.0)))}</span>
                " less). The two AllToAlls take " <strong data-all-to-all="">{shown(|r| seconds(r.all_to_all.0))}</strong>
                " of the layer's " <span data-total="">{shown(|r| seconds(r.total.0))}</span> "."
            </p>
            {compare_table(move || params.with(|p| p.comparison()))}
            <Notice notice=notice />
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::widgets::params::testing::{
        assert_pairs_restore, assert_refused_keeps, assert_round_trip,
    };

    /// Issue #19: the reader's own chip (from the library or a link) times
    /// the steps as core times them on that chip.
    #[test]
    fn the_readers_chip_times_the_steps() {
        let (_, code) = crate::library::tests::with_own_entries();
        let mine = crate::library::resolve_chip(&code).unwrap();
        let direct = kv_sharding_on(&KvParams::default().p, mine).unwrap();
        for id in [code.as_str(), "my:fast v5e"] {
            let mut p = KvParams::default();
            p.apply("chip", id).unwrap();
            assert_eq!(p.chip().unwrap().name, "fast v5e");
            assert_eq!(p.report().unwrap(), direct, "{id}");
            assert_pairs_restore(&p);
        }
        // Twice the v5e's HBM bandwidth: the cache loads, and so the layer, are faster.
        let v5e = KvParams::default().report().unwrap();
        assert!(
            direct.total.0 < v5e.total.0,
            "{:?} vs {:?}",
            direct.total,
            v5e.total
        );
    }

    #[test]
    fn book_mesh_splits_the_cache_z_ways_more() {
        let r = KvParams::default().report().unwrap();
        assert_eq!(r.steps.len(), 12);
        assert_eq!(
            r.steps
                .iter()
                .filter(|s| s.kind == StepKind::AllToAll)
                .count(),
            2
        );
        // Batch over Z = 4 on top of heads over Y: four times less cache per chip.
        assert!((r.kv_per_chip_heads_only.0 / r.kv_per_chip.0 - 4.0).abs() < 1e-12);
        // 2 · 32 · 8192 · 8 · 128 bf16 bytes over 32 chips.
        assert_eq!(
            r.kv_per_chip.0,
            2.0 * 32.0 * 8192.0 * 8.0 * 128.0 * 2.0 / 32.0
        );
    }

    #[test]
    fn a_second_chip_times_the_same_steps() {
        use crate::widgets::params::testing::assert_pairs_restore;
        let mut p = KvParams::default();
        p.apply("vs", "v5p").unwrap();
        assert_pairs_restore(&p);
        let expected =
            kv_sharding_on(&p.p, ridgeline_core::hardware::chip("v5p").unwrap()).unwrap();
        let c = p.comparison().unwrap();
        assert_eq!(c.row("total").unwrap().b, seconds(expected.total.0));
        assert_eq!(
            c.row("all-to-all").unwrap().b,
            seconds(expected.all_to_all.0)
        );
        assert_eq!(
            c.row("total").unwrap().a,
            seconds(p.report().unwrap().total.0)
        );
        // A GPU has no ICI; an unknown id is refused; the comparison stays.
        let messages = assert_refused_keeps(&p, &[("vs", "h100"), ("vs", "v99")]);
        assert!(messages[1].contains("v99"), "{messages:?}");
        p.apply("vs", "none").unwrap();
        assert_eq!(p.comparison(), None);
        assert!(p.to_pairs().iter().all(|(k, _)| k != "vs"));
    }

    #[test]
    fn bad_input_keeps_the_state_and_pairs_round_trip() {
        assert_refused_keeps(
            &KvParams::default(),
            &[
                ("y", "3"),
                ("z", "5"),
                ("step", "13"),
                ("chip", "v99"),
                ("batch", "x"),
                ("q", "1"),
            ],
        );
        let q: KvParams =
            assert_round_trip(&[("y", "4"), ("z", "8"), ("batch", "64"), ("step", "5")]);
        assert_eq!((q.p.y, q.p.z, q.step), (4, 8, 4));
    }
}
