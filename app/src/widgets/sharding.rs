//! The sharding visualizer (`data-widget="sharding"`): the reader writes a
//! sharded matmul in the book's notation and a mesh, and sees which block of A,
//! B and C every device holds, which of the four cases applies, and the
//! communication plan with its cost. A second chip (`vs`) runs the same plan
//! on its own ICI and peak: its time under each step, its verdict and the
//! difference spelled out.

use super::compare::{compare_picker, compare_table, VS};
use super::controls::Notice;
use super::params::{WidgetParams, WidgetState};
pub use super::sharded_matmul::{collectives_text, ShardingParams, PRESETS};
use leptos::prelude::*;
use ridgeline_core::format::{seconds, si};
use ridgeline_core::sharding::layout::Block;
use ridgeline_core::sharding::plan::{MatmulPlan, Operand};

/// Most devices the mesh view draws.
pub const MAX_DRAWN: usize = 64;

impl WidgetParams for ShardingParams {
    /// Sets one field if the plan (and the compared chip's) still works out.
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        *self = self.with(key, value)?;
        Ok(())
    }

    /// The parameters as `key=value` pairs.
    fn to_pairs(&self) -> Vec<(String, String)> {
        self.pairs()
    }
}

/// Mesh axes folded into (rows, columns) for drawing: the first axis down, the rest across.
pub fn grid(plan: &MatmulPlan) -> (usize, usize) {
    let sizes: Vec<usize> = plan.mesh.axes().iter().map(|a| a.size as usize).collect();
    let rows = sizes.first().copied().unwrap_or(1);
    let cols = sizes.iter().skip(1).product::<usize>().max(1);
    (rows, cols)
}

fn mini(shape: [u64; 2], block: Block, colour: &'static str, label: &'static str) -> impl IntoView {
    // A 36×36 picture of the global array with the device's block filled.
    let (h, w) = (shape[0].max(1) as f64, shape[1].max(1) as f64);
    let x = 36.0 * block.cols.start as f64 / w;
    let y = 36.0 * block.rows.start as f64 / h;
    let bw = (36.0 * block.cols.len() as f64 / w).max(1.0);
    let bh = (36.0 * block.rows.len() as f64 / h).max(1.0);
    view! {
        <svg class="mini" viewBox="-1 -1 38 38" width="38" height="38" aria-hidden="true">
            <rect x="0" y="0" width="36" height="36" class="mini-frame"></rect>
            <rect x=format!("{x:.2}") y=format!("{y:.2}") width=format!("{bw:.2}") height=format!("{bh:.2}") fill=colour></rect>
            <text x="18" y="22" class="mini-label">{label}</text>
        </svg>
    }
}

/// The sharding visualizer.
#[component]
pub fn Sharding(
    /// The chapter's `key=value` arguments (URL parameters override them).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    // Every value is checked to plan as it is applied, so the start plans
    // unless the defaults themselves do not.
    let state = WidgetState::<ShardingParams>::new(&args);
    let (params, notice) = (state.params, state.notice);
    let Ok(plan0) = params.with_untracked(ShardingParams::plan) else {
        return view! { <p class="notice">"The default sharding failed to plan."</p> }.into_any();
    };
    let plan = RwSignal::new(plan0);
    let set = move |key: &'static str, value: String| {
        // A refused choice in a picker shows the last valid one again.
        if state.set_or_refresh(key, &value, matches!(key, "chip" | VS)) {
            if let Ok(p) = params.with_untracked(ShardingParams::plan) {
                plan.set(p);
            }
        }
    };
    let vs_plan = Memo::new(move |_| params.with(|p| p.vs_plan().and_then(Result::ok)));
    let vs_name = move || params.with(|p| p.vs.map_or("", |c| c.name));
    let vs_id = move || params.with(|p| p.vs.map_or("", |c| c.id));
    let vs_options = super::controls::chip_options(super::controls::has_ici, vs_id);
    // The compared chip's time under each step of the plan, the same steps.
    let steps = move || {
        plan.with(|p| {
            vs_plan.with(|vs| {
                p.steps
                    .iter()
                    .enumerate()
                    .map(|(i, s)| {
                        let other = vs
                            .as_ref()
                            .and_then(|v| v.steps.get(i))
                            .and_then(|v| v.time)
                            .map(|t| {
                                view! { <span class="vs-step" data-vs-step="">{format!("on {}: {}", vs_name(), seconds(t.0))}</span> }
                            });
                        view! { <li>{s.to_string()}{other}</li> }
                    })
                    .collect_view()
            })
        })
    };
    let vs_line = move || {
        vs_plan.with(|v| {
            let v = v.as_ref()?;
            let verdict = v.verdict()?.text();
            let text = format!(
                "On {}: communication {}, local matmul {}; overlapped, it is ",
                vs_name(),
                seconds(v.comm_time().0),
                seconds(v.compute_time()?.0)
            );
            Some(view! {
                <p data-vs-line="">
                    {text}
                    <strong class="verdict-tag" data-vs-verdict=verdict>{verdict}</strong>"."
                </p>
            })
        })
    };
    let preset_options = PRESETS
        .iter()
        .map(|(label, spec)| view! { <option value=*spec>{*label}</option> })
        .collect_view();

    let devices = move || {
        plan.with(|p| {
            let (_, cols) = grid(p);
            let shapes = [p.shape(Operand::A), p.shape(Operand::B), p.shape(Operand::C)];
            let blocks = p.device_blocks();
            let too_many = blocks.len() > MAX_DRAWN;
            let cells = blocks
                .into_iter()
                .take(MAX_DRAWN)
                .map(|d| {
                    let coord: String = p
                        .mesh
                        .axes()
                        .iter()
                        .enumerate()
                        .map(|(i, a)| format!("{}{}", a.name, d.coord[i]))
                        .collect::<Vec<_>>()
                        .join(" ");
                    let title = format!("device {coord}: A {} · B {} → C {}", d.a, d.b, d.c);
                    view! {
                        <div class="device" title=title>
                            <span class="device-name">{coord}</span>
                            {mini(shapes[0], d.a, "#0072b2", "A")}
                            {mini(shapes[1], d.b, "#e69f00", "B")}
                            {mini(shapes[2], d.c, "#009e73", "C")}
                        </div>
                    }
                })
                .collect_view();
            view! {
                <div class="mesh" style=format!("grid-template-columns: repeat({cols}, minmax(7.5rem, 1fr))")>{cells}</div>
                {too_many.then(|| view! { <p class="muted">{format!("Showing the first {MAX_DRAWN} devices.")}</p> })}
            }
        })
    };

    let controls = view! {
            <div class="controls">
                <label>
                    "Example "
                    <select on:change=move |ev| set("spec", event_target_value(&ev))>
                        <option value="" disabled=true selected=true>"pick one…"</option>
                        {preset_options}
                    </select>
                </label>
                {super::controls::chip_picker("Chip ", super::controls::has_ici, move || params.with(|p| p.chip.id).to_string(), set)}
                {compare_picker(vs_options, vs_id, set)}
            </div>
            <div class="controls stacked">
                <label>
                    "Matmul "
                    <input
                        type="text"
                        class="spec"
                        spellcheck="false"
                        aria-label="sharded matmul in the book's notation"
                        value=move || params.with(|p| p.spec.clone()) prop:value=move || params.with(|p| p.spec.clone())
                        on:input=move |ev| set("spec", event_target_value(&ev))
                    />
                </label>
                <label>
                    "Mesh "
                    <input
                        type="text"
                        class="mesh-text"
                        spellcheck="false"
                        aria-label="mesh axes and sizes"
                        value=move || params.with(|p| p.mesh.clone()) prop:value=move || params.with(|p| p.mesh.clone())
                        on:input=move |ev| set("mesh", event_target_value(&ev))
                    />
                </label>
                <label>
                    "Sizes "
                    <input
                        type="text"
                        class="dims-text"
                        spellcheck="false"
                        aria-label="array dimension sizes"
                        value=move || params.with(|p| p.dims.clone()) prop:value=move || params.with(|p| p.dims.clone())
                        on:input=move |ev| set("dims", event_target_value(&ev))
                    />
                </label>
            </div>
    }
    .into_any();
    let summary = view! {
            <div class="plan-summary">
                <p>
                    <strong>{move || plan.with(|p| format!("Case {}", p.case().number()))}</strong>
                    ": "
                    {move || plan.with(|p| p.case().description())}
                    "."
                </p>
                <p>
                    "Communication: "
                    <strong data-collective="">{move || plan.with(collectives_text)}</strong>
                    {move || plan.with(|p| {
                        let t = p.comm_time().0;
                        (t > 0.0).then(|| format!(" — {} per device, {} on {}", si(p.bytes_per_device().0, "B", 3), seconds(t), params.with_untracked(|q| q.chip.name)))
                    })}
                </p>
                <p class="muted">
                    {move || plan.with(|p| format!(
                        "Local blocks: A {:?}, B {:?}, C {:?}. Result: {}{}",
                        p.local_shape(Operand::A, &p.a),
                        p.local_shape(Operand::B, &p.b),
                        p.local_shape(Operand::C, &p.output),
                        p.summary(),
                        if p.reshard { " (C needed a reshard)" } else { "" }
                    ))}
                </p>
                <ol class="plan-steps">{steps}</ol>
                {vs_line}
                {compare_table(move || params.with(|p| p.comparison()))}
            </div>
    }
    .into_any();
    view! {
        <figure class="widget sharding" data-widget="sharding">
            {controls}
            <Notice notice=notice />
            {summary}
            <div class="legend muted">"Each device shows where its block sits in the global A (blue), B (orange) and C (green)."</div>
            {devices}
        </figure>
    }
    .into_any()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_plans_on_the_default_mesh() {
        for (label, spec) in PRESETS {
            let p = ShardingParams {
                spec: spec.to_string(),
                ..ShardingParams::default()
            };
            let plan = p.plan().unwrap_or_else(|e| panic!("{label}: {e}"));
            assert!(!collectives_text(&plan).is_empty());
        }
    }

    #[test]
    fn case_two_gathers_and_errors_are_precise() {
        let p = ShardingParams::default();
        let plan = p.plan().unwrap();
        assert_eq!(plan.case().number(), 2);
        assert!(
            collectives_text(&plan).starts_with("AllGather A over X"),
            "{}",
            collectives_text(&plan)
        );
        let e = p
            .with("spec", "A[I_X, J_X] · B[J, K] -> C[I, K]")
            .unwrap_err();
        assert!(e.contains("used twice"), "{e}");
        assert!(p.with("mesh", "X=0").is_err());
        assert!(p
            .with("dims", "I=512, J=1022, K=256")
            .unwrap_err()
            .contains("divisible"));
        assert_eq!(grid(&plan), (4, 2));
    }

    /// Parameters from pairs as the widget reads them, every pair accepted.
    fn from(list: &[(&str, &str)]) -> ShardingParams {
        list.iter().fold(ShardingParams::default(), |p, (k, v)| {
            p.with(k, v).unwrap_or_else(|e| panic!("{k}={v}: {e}"))
        })
    }

    #[test]
    fn a_second_chip_times_the_same_plan() {
        let p = from(&[("dims", "I=8192, J=8192, K=8192"), ("vs", "v5p")]);
        // The pairs give back the same parameters.
        let pairs = p.to_pairs();
        let q = pairs
            .iter()
            .fold(ShardingParams::default(), |q, (k, v)| q.with(k, v).unwrap());
        assert_eq!(q, p);
        assert!(pairs.contains(&("vs".into(), "v5p".into())));
        let c = p.comparison().unwrap();
        // The same plan built by core on the v5p directly.
        let v5p = MatmulPlan::parse(
            &p.spec,
            &p.mesh,
            &p.dims,
            ridgeline_core::hardware::chip("v5p").unwrap(),
        )
        .unwrap();
        assert_eq!(c.row("comms").unwrap().b, seconds(v5p.comm_time().0));
        assert_eq!(
            c.row("matmul").unwrap().b,
            seconds(v5p.compute_time().unwrap().0)
        );
        assert_eq!(c.row("verdict").unwrap().b, v5p.verdict().unwrap().text());
        assert_eq!(c.row("ici").unwrap().a, "90 GB/s");
        // A chip without ICI and an unknown id are refused; the state stays.
        for bad in ["h100", "tpu-v99"] {
            let e = p.with("vs", bad).unwrap_err();
            assert!(e.contains(if bad == "h100" { "ICI" } else { bad }), "{e}");
        }
        // "none" removes the comparison and its key.
        let none = p.with("vs", "none").unwrap();
        assert_eq!(none.comparison(), None);
        assert!(none.to_pairs().iter().all(|(k, _)| k != "vs"));
        // The reader's own chip is offered and compared like a registry chip.
        let (_, code) = crate::library::tests::with_own_entries();
        let own = p.with("vs", "my:fast v5e").unwrap();
        assert_eq!(own.vs.unwrap().id, code);
        assert_eq!(own.comparison().unwrap().b, "fast v5e");
    }

    #[test]
    fn the_static_figure_has_the_picker_and_no_comparison() {
        let owner = Owner::new();
        let html = owner.with(|| {
            view! { <Sharding args=crate::widgets::params::pairs(&[("chip", "v5e")]) /> }.to_html()
        });
        assert!(html.contains("data-vs"), "{html}");
        assert!(!html.contains("data-compare") && !html.contains("data-vs-step"));
    }
}
