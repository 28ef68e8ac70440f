//! Inside a GPU (`data-widget="gpu-anatomy"`, Part 12, "What Is a GPU?"): the
//! chip as its SMs, one SM as four subpartitions (Tensor Core, warp scheduler
//! with its CUDA cores, register file) with SMEM and, on Blackwell, TMEM, then
//! L2 and HBM, for any generation of the book's table. Selecting a part shows
//! its count, capacity and rate and its TPU counterpart; the chip's peak is
//! rebuilt from the parts; and a warp of 32 lanes steps through an if/else,
//! both paths issued with the other lanes masked off.
//!
//! Every number comes from [`ridgeline_core::gpu::anatomy`],
//! [`ridgeline_core::gpu::compare::compare_chips`] and
//! [`ridgeline_core::gpu::simt`].

use super::controls::Notice;
use super::controls::Slider;
use leptos::prelude::*;
use ridgeline_core::format::{grouped, sci, si};
use ridgeline_core::gpu::anatomy::{anatomy, Anatomy, AnatomyParams, AnatomyPart};
use ridgeline_core::gpu::compare::{compare_chips, ChipComparison};
use ridgeline_core::gpu::simt::{run, DivergenceParams, Phase, SimtRun, MAX_OPS, WARP};
use ridgeline_core::gpu::specs::{GpuGeneration, GPU_GENERATIONS};
use ridgeline_core::hardware::{Vendor, CHIPS};

use super::controls::option;
use super::params::{WidgetParams, WidgetState};
use super::player::Player;
use crate::input::{parse_whole, short};

/// The reader's choices; always a valid view.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AnatomyChoice {
    /// Index into the generation table.
    pub gpu: usize,
    /// The TPU set beside it (registry id).
    pub tpu: &'static str,
    /// The selected part's key (`tensor-core`, `smem`...).
    pub part: &'static str,
    /// The divergence example.
    pub warp: DivergenceParams,
}

impl Default for AnatomyChoice {
    fn default() -> Self {
        AnatomyChoice {
            gpu: GPU_GENERATIONS
                .iter()
                .position(|g| g.name == "H100")
                .unwrap_or(0),
            tpu: "v5p",
            part: "tensor-core",
            warp: DivergenceParams {
                threshold: 8,
                ..DivergenceParams::default()
            },
        }
    }
}

/// The id a generation goes by in the URL (`h100`).
pub fn generation_id(g: &GpuGeneration) -> String {
    g.name.to_ascii_lowercase()
}

fn tpu_ids() -> impl Iterator<Item = (&'static str, &'static str)> {
    CHIPS
        .iter()
        .filter(|c| c.vendor == Vendor::Google)
        .map(|c| (c.id, c.name))
}

impl AnatomyChoice {
    /// The generation row.
    pub fn generation(&self) -> &'static GpuGeneration {
        &GPU_GENERATIONS[self.gpu.min(GPU_GENERATIONS.len() - 1)]
    }

    /// The anatomy of the chosen generation.
    pub fn anatomy(&self) -> Result<Anatomy, String> {
        anatomy(&AnatomyParams {
            gpu: self.generation(),
        })
    }

    /// The unit-by-unit comparison with the chosen TPU, when the GPU is in the registry.
    pub fn comparison(&self) -> Option<ChipComparison> {
        let chip = self.generation().chip?;
        compare_chips(chip, self.tpu, ridgeline_core::dtype::Dtype::Bf16).ok()
    }

    /// The divergence run.
    pub fn warp_run(&self) -> Result<SimtRun, String> {
        run(&self.warp)
    }
}

impl WidgetParams for AnatomyChoice {
    const ORDER: &'static [&'static [&'static str]] = &[&["gpu"], &["mod"]];

    /// Sets one parameter from text, or explains why not (nothing changes then).
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut next = *self;
        let count = |what: &str, max: u32| parse_whole::<u32>(value, what, 0.0, f64::from(max));
        match key {
            "gpu" => {
                let g = ridgeline_core::gpu::specs::generation(value)
                    .ok_or_else(|| format!("gpu: unknown GPU generation “{}”", short(value)))?;
                next.gpu = GPU_GENERATIONS
                    .iter()
                    .position(|r| r.name == g.name)
                    .unwrap_or(0);
                // A part the new generation lacks (TMEM before Blackwell) falls back to the Tensor Core.
                if next.anatomy()?.part(next.part).is_none() {
                    next.part = "tensor-core";
                }
            }
            "tpu" => {
                next.tpu = tpu_ids()
                    .map(|(id, _)| id)
                    .find(|id| id.eq_ignore_ascii_case(value.trim()))
                    .ok_or_else(|| format!("tpu: unknown TPU “{}”", short(value)))?;
            }
            "part" => {
                let a = next.anatomy()?;
                next.part = a
                    .parts
                    .iter()
                    .map(|p| p.key)
                    .find(|k| *k == value.trim())
                    .ok_or_else(|| format!("part: {} has no part “{}”", a.name, short(value)))?;
            }
            "taken" => next.warp.threshold = count("taken", WARP)?,
            "mod" => {
                // The cut never exceeds the pattern: lowering the pattern lowers the cut with it.
                next.warp.modulus = count("mod", WARP)?;
                next.warp.threshold = next.warp.threshold.min(next.warp.modulus);
            }
            "then" => next.warp.then_ops = count("then", MAX_OPS)?,
            "else" => next.warp.else_ops = count("else", MAX_OPS)?,
            other => return Err(super::params::unknown_setting(other)),
        }
        next.warp.validate()?;
        *self = next;
        Ok(())
    }

    /// The parameters as `key=value` pairs.
    fn to_pairs(&self) -> Vec<(String, String)> {
        vec![
            ("gpu".into(), generation_id(self.generation())),
            ("tpu".into(), self.tpu.into()),
            ("part".into(), self.part.into()),
            ("taken".into(), self.warp.threshold.to_string()),
            ("mod".into(), self.warp.modulus.to_string()),
            ("then".into(), self.warp.then_ops.to_string()),
            ("else".into(), self.warp.else_ops.to_string()),
        ]
    }
}

/// How a part's count reads (`528 on the chip, 4 per SM`).
pub fn count_text(p: &AnatomyPart) -> String {
    if p.per_sm > 0.0 {
        format!(
            "{} on the chip, {} per SM",
            grouped(p.per_chip),
            grouped(p.per_sm)
        )
    } else {
        format!("{} on the chip, shared by every SM", grouped(p.per_chip))
    }
}

/// How a part's capacity reads (`64 KiB each, 33.8 MB in all`), if it stores anything.
pub fn capacity_text(p: &AnatomyPart) -> Option<String> {
    let c = p.capacity?;
    Some(if p.per_chip > 1.0 {
        format!(
            "{} each, {} in all",
            si(c.0, "B", 3),
            si(c.0 * p.per_chip, "B", 3)
        )
    } else {
        si(c.0, "B", 3)
    })
}

/// The TPU line of the comparison that matches a part, if the comparison has one.
fn counterpart<'a>(
    c: &'a ChipComparison,
    key: &str,
) -> Option<&'a ridgeline_core::gpu::compare::UnitPair> {
    let name = match key {
        "tensor-core" => "Tensor Core",
        "warp-scheduler" => "Warp scheduler",
        "cuda-core" => "CUDA core (fp32 ALU)",
        "registers" => "Registers",
        "smem" => "SMEM (L1)",
        _ => return None,
    };
    c.units.iter().find(|u| u.gpu_unit == name)
}

/// What the detail says of a part's TPU counterpart (`MXU: 8 on a TPU v5p (528 here)`).
pub fn tpu_line(c: Option<&ChipComparison>, p: &AnatomyPart) -> String {
    match c {
        Some(c) => match counterpart(c, p.key) {
            Some(u) => format!(
                "{}: {} on a {} ({} here)",
                u.tpu_unit,
                amount(u.tpu, u.bytes),
                c.tpu,
                amount(u.gpu, u.bytes)
            ),
            None => p.tpu_counterpart.to_string(),
        },
        None => format!("{} (this GPU is not in the registry)", p.tpu_counterpart),
    }
}

fn amount(x: Option<f64>, bytes: bool) -> String {
    match x {
        Some(v) if bytes => si(v, "B", 3),
        Some(v) => grouped(v),
        None => "not in the book".into(),
    }
}

/// What a lane cell says at `step` (0 is before the first instruction).
pub fn lane_state(r: &SimtRun, step: usize, lane: usize) -> (i64, bool) {
    match step.checked_sub(1).and_then(|i| r.steps.get(i)) {
        Some(s) => (
            s.values.get(lane).copied().unwrap_or_default(),
            s.active & (1 << lane) != 0,
        ),
        None => (i64::try_from(lane).unwrap_or(i64::MAX), true),
    }
}

fn phase_name(p: Phase) -> &'static str {
    match p {
        Phase::Then => "if path",
        Phase::Else => "else path",
        Phase::Converged => "after the branch",
    }
}

/// The widget.
#[component]
pub fn GpuAnatomy(
    /// The chapter's `key=value` arguments (URL parameters override them).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let state = WidgetState::<AnatomyChoice>::new(&args);
    let WidgetState { params, notice } = state;
    let chip = Memo::new(move |_| params.with(|p| p.anatomy().ok()));
    let cmp = Memo::new(move |_| params.with(|p| p.comparison()));
    let warp = Memo::new(move |_| params.with(|p| p.warp_run().ok()));
    let total = Signal::derive(move || warp.with(|r| r.as_ref().map_or(0, |r| r.steps.len())));
    let player = Player::new(total, 700);
    let set = move |key: &'static str, value: String| {
        if state.set(key, &value) {
            if !matches!(key, "part" | "tpu") {
                player.reset();
            }
        } else {
            state.refresh();
        }
    };
    let read =
        move |f: &dyn Fn(&Anatomy) -> String| chip.with(|a| a.as_ref().map(f).unwrap_or_default());
    let gpu_options = GPU_GENERATIONS
        .iter()
        .map(|g| {
            option(generation_id(g), g.name, move || {
                params.with(|p| generation_id(p.generation()))
            })
        })
        .collect_view();
    let tpu_options = tpu_ids()
        .map(|(id, name)| option(id, name, move || params.with(|p| p.tpu)))
        .collect_view();

    // A button that selects a part; it shows as pressed while selected.
    let part_button = move |key: &'static str, text: &'static str| {
        view! {
            <button type="button" class=format!("part part-{key}") data-part-button=key
                aria-pressed=move || (params.with(|p| p.part) == key).to_string()
                on:click=move |_| set("part", key.to_string())>{text}</button>
        }
    };
    let sm_grid = move || {
        let n = chip.with(|a| a.as_ref().map_or(0, |a| a.sms));
        (0..n)
            .map(|_| view! { <span class="sm-cell"></span> })
            .collect_view()
    };
    let subparts = move || {
        (1..chip.with(|a| a.as_ref().map_or(4, |a| a.subpartitions)))
            .map(|_| {
                view! {
                    <div class="subpart" aria-hidden="true">
                        <span class="part part-warp-scheduler">"Warp scheduler · 32 CUDA cores"</span>
                        <span class="part part-tensor-core">"Tensor Core"</span>
                        <span class="part part-registers">"Register file"</span>
                    </div>
                }
            })
            .collect_view()
    };
    let has_tmem = move || chip.with(|a| a.as_ref().is_some_and(|a| a.tmem_per_sm.is_some()));

    let detail = move || {
        let key = params.with(|p| p.part);
        let Some(a) = chip.get() else {
            return ().into_any();
        };
        let Some(p) = a.part(key).cloned() else {
            return ().into_any();
        };
        let tpu_line = cmp.with(|c| tpu_line(c.as_ref(), &p));
        let rate = p.rate.map(|r| si(r.0, "FLOP/s", 3));
        let bw = (key == "hbm")
            .then_some(a.hbm_bw)
            .flatten()
            .map(|b| si(b.0, "B/s", 3));
        view! {
            <dl class="times part-detail" data-part=key>
                <div><dt>"part"</dt><dd data-part-label="">{p.label}</dd></div>
                <div><dt>"how many"</dt><dd data-part-count=p.per_chip.to_string()>{count_text(&p)}</dd></div>
                {capacity_text(&p).map(|c| view! { <div><dt>"capacity"</dt><dd data-part-capacity="">{c}</dd></div> })}
                {rate.map(|r| view! { <div><dt>"all of them together"</dt><dd data-part-rate="">{r}</dd></div> })}
                {bw.map(|b| view! { <div><dt>"bandwidth"</dt><dd data-part-bandwidth="">{b}</dd></div> })}
                <div><dt>"TPU counterpart"</dt><dd data-part-tpu="">{tpu_line}</dd></div>
                <div><dt>"what it does"</dt><dd>{p.role}</dd></div>
            </dl>
        }
        .into_any()
    };
    let peak = move || {
        read(
            &|a| match (a.tc_flops_per_cycle, a.tensor_clock, a.peak_from_parts) {
                (Some(c), Some(f), Some(from)) => format!(
                    "{} SMs × 4 Tensor Cores × {} FLOPs per cycle × {} = {}{}",
                    grouped(f64::from(a.sms)),
                    grouped(c),
                    si(f.0, "Hz", 3),
                    si(from.0, "FLOP/s", 3),
                    a.registry_peak
                        .map(|r| format!(" (published dense bf16: {})", si(r.0, "FLOP/s", 3)))
                        .unwrap_or_default()
                ),
                _ => "The book gives no Tensor Core clock for this generation.".into(),
            },
        )
    };
    let unit_rows = move || {
        let selected = params.with(|p| p.part);
        cmp.with(|c| {
            c.as_ref().map(|c| {
                c.units
                    .iter()
                    .map(|u| {
                        let on = ["tensor-core", "warp-scheduler", "cuda-core", "registers", "smem"]
                            .iter()
                            .any(|k| *k == selected && counterpart(c, k).is_some_and(|m| m.gpu_unit == u.gpu_unit));
                        view! {
                            <tr class:on=on>
                                <th scope="row">{u.gpu_unit}</th>
                                <td>{amount(u.gpu, u.bytes)}</td>
                                <td>{u.tpu_unit}</td>
                                <td>{amount(u.tpu, u.bytes)}</td>
                                <td>{u.ratio().map(|r| format!("{}×", sci(r, 3))).unwrap_or_else(|| "—".into())}</td>
                            </tr>
                        }
                    })
                    .collect_view()
            })
        })
    };
    let compare_caption = move || {
        cmp.with(|c| match c {
            Some(c) => format!("{} beside {}, unit by unit", c.gpu, c.tpu),
            None => "This generation is not in the registry, so there is no TPU comparison.".into(),
        })
    };

    // The warp.
    let step = player.step;
    let lanes = move || {
        let s = step.get();
        warp.with(|r| {
            r.as_ref().map(|r| {
                (0..r.lanes as usize)
                    .map(|lane| {
                        let (v, on) = lane_state(r, s, lane);
                        let class = if on { "lane active" } else { "lane masked" };
                        view! { <li class=class data-lane=lane.to_string()><span class="lane-id">{lane.to_string()}</span>{v.to_string()}</li> }
                    })
                    .collect_view()
            })
        })
    };
    let cycles = move || {
        let s = step.get();
        warp.with(|r| {
            r.as_ref().map(|r| {
                r.steps
                    .iter()
                    .map(|c| {
                        let current = c.cycle as usize + 1 == s;
                        view! {
                            <li class=format!("cycle {}", match c.phase { Phase::Then => "then", Phase::Else => "else", Phase::Converged => "after" })
                                class:current=current aria-current=current.then_some("step")>
                                {format!("cycle {}: {} ({}), {} of {} lanes", c.cycle, c.instruction, phase_name(c.phase), c.active_lanes(), r.lanes)}
                            </li>
                        }
                    })
                    .collect_view()
            })
        })
    };
    let stat = move |f: fn(&SimtRun) -> String| {
        move || warp.with(|r| r.as_ref().map(f).unwrap_or_default())
    };
    let range = move |key: &'static str,
                      label: &'static str,
                      min: u32,
                      max: fn(&DivergenceParams) -> u32,
                      get: fn(&DivergenceParams) -> u32| {
        view! {
            <label>{label}
                {Slider::new(min.to_string(), move || (params.with(|p| max(&p.warp)).to_string()).to_string(), "1").class(format!("in-{key}")).view(move || (params.with(|p| get(&p.warp)).to_string()).to_string(), move |v: String| set(key, v))}
                <output>{move || params.with(|p| get(&p.warp)).to_string()}</output>
            </label>
        }
    };

    let picture = view! {
            <div class="anatomy-picture" role="group" aria-label="the parts of the chip; choose one to see its numbers">
                <div class="chip-box">
                    <p class="chip-title" data-sms=move || read(&|a| a.sms.to_string())>{move || read(&|a| format!("{}: {} SMs", a.name, grouped(f64::from(a.sms))))}</p>
                    <div class="sm-grid" aria-hidden="true">{sm_grid}</div>
                    <div class="sm-box">
                        <p class="sm-title">"one SM, enlarged"</p>
                        <div class="subparts">
                            <div class="subpart">
                                {part_button("warp-scheduler", "Warp scheduler")}
                                {part_button("cuda-core", "32 CUDA cores")}
                                {part_button("tensor-core", "Tensor Core")}
                                {part_button("registers", "Register file")}
                            </div>
                            {subparts}
                        </div>
                        {part_button("smem", "SMEM (L1 cache)")}
                        {move || has_tmem().then(|| part_button("tmem", "TMEM"))}
                    </div>
                    {part_button("l2", "L2 cache")}
                </div>
                {part_button("hbm", "HBM")}
            </div>
    }
    .into_any();
    let simt = view! {
            <section class="simt" aria-label="warp divergence">
                <p class="simt-program"><code>{move || params.with(|p| format!(
                    "if lane % {} < {} {{ {} }} else {{ {} }}; x = x + 100",
                    p.warp.modulus, p.warp.threshold,
                    if p.warp.then_ops == 0 { "nothing".to_string() } else { format!("{} adds", p.warp.then_ops) },
                    if p.warp.else_ops == 0 { "nothing".to_string() } else { format!("{} doublings", p.warp.else_ops) },
                ))}</code></p>
                <div class="controls">
                    {range("taken", "lanes below the cut take the if ", 0, |w| w.modulus, |w| w.threshold)}
                    {range("mod", "pattern repeats every (lanes) ", 1, |_| WARP, |w| w.modulus)}
                    {range("then", "instructions on the if path ", 0, |_| MAX_OPS, |w| w.then_ops)}
                    {range("else", "instructions on the else path ", 0, |_| MAX_OPS, |w| w.else_ops)}
                </div>
                {player.controls("cycles", |s, t| format!("cycle {s} / {t}"))}
                <ol class="lanes" start="0" aria-label="the warp's 32 lanes and each lane's x">{lanes}</ol>
                <ol class="cycles" start="0">{cycles}</ol>
                <dl class="times simt-results">
                    <div><dt>"cycles the warp takes"</dt><dd data-cycles=stat(|r| r.cycles.to_string())>{stat(|r| r.cycles.to_string())}</dd></div>
                    <div><dt>"cycles had it not diverged"</dt><dd data-uniform-cycles="">{stat(|r| r.cycles_without_divergence.to_string())}</dd></div>
                    <div><dt>"lane-cycles doing work"</dt><dd data-utilization=stat(|r| r.utilization().to_string())>{stat(|r| format!("{}%", sci(100.0 * r.utilization(), 3)))}</dd></div>
                    <div><dt>"lost to masking"</dt><dd data-lost="">{stat(|r| format!("{}%", sci(100.0 * (1.0 - r.utilization()), 3)))}</dd></div>
                </dl>
            </section>
    }
    .into_any();
    view! {
        <figure class="widget gpu-anatomy" data-widget="gpu-anatomy">
            <div class="controls">
                <label>"GPU "
                    <select prop:value=move || params.with(|p| generation_id(p.generation())) on:change=move |ev| set("gpu", event_target_value(&ev))>{gpu_options}</select>
                </label>
                <label>"beside TPU "
                    <select prop:value=move || params.with(|p| p.tpu) on:change=move |ev| set("tpu", event_target_value(&ev))>{tpu_options}</select>
                </label>
            </div>
            <Notice notice=notice />
            {picture}
            {detail}
            <p class="peak-from-parts" data-peak-from-parts=move || read(&|a| a.peak_from_parts.map(|p| p.0.to_string()).unwrap_or_default())>{peak}</p>
            <div class="table-scroll" tabindex="0">
                <table class="units">
                    <caption>{compare_caption}</caption>
                    <thead><tr><th scope="col">"GPU unit"</th><th scope="col">"GPU"</th><th scope="col">"TPU unit"</th><th scope="col">"TPU"</th><th scope="col">"GPU / TPU"</th></tr></thead>
                    <tbody>{unit_rows}</tbody>
                </table>
            </div>
            {simt}
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::widgets::params::pairs;
    use crate::widgets::params::testing::{assert_pairs_restore, assert_refused_keeps};

    #[test]
    fn h100_and_b200_parts_as_the_book_counts_them() {
        let p = AnatomyChoice::default();
        let a = p.anatomy().unwrap();
        assert_eq!(a.sms, 132);
        let tc = a.part("tensor-core").unwrap();
        assert_eq!(count_text(tc), "528 on the chip, 4 per SM");
        // 990 TFLOP/s dense bf16 from the registry.
        assert_eq!(si(tc.rate.unwrap().0, "FLOP/s", 3), "990 TFLOP/s");
        let smem = a.part("smem").unwrap();
        assert_eq!(smem.capacity.unwrap().0, 256.0 * 1024.0);
        // The H100 vs v5p table: 528 Tensor Cores against 8 MXUs.
        let c = p.comparison().unwrap();
        let u = counterpart(&c, "tensor-core").unwrap();
        assert_eq!((u.gpu, u.tpu), (Some(528.0), Some(8.0)));
        assert_eq!(tpu_line(Some(&c), tc), "MXU: 8 on a TPU v5p (528 here)");
        let hbm = a.part("hbm").unwrap();
        assert_eq!(capacity_text(hbm).unwrap(), "80 GB");
        assert_eq!(si(a.hbm_bw.unwrap().0, "B/s", 3), "3.35 TB/s");
        assert_eq!(format!("{}%", sci(0.0, 3)), "0%");
        assert_eq!(format!("{}%", sci(40.0, 3)), "40%");
        let mut b = p;
        b.apply("gpu", "b200").unwrap();
        b.apply("part", "tmem").unwrap();
        let a = b.anatomy().unwrap();
        assert_eq!(a.sms, 148);
        // 148 × 4 × 2048 × 1.86 GHz ≈ 2.25 PFLOP/s.
        assert_eq!(
            si(a.peak_from_parts.unwrap().0, "FLOP/s", 3),
            "2.26 PFLOP/s"
        );
        // Going back to Hopper drops the TMEM selection.
        b.apply("gpu", "h100").unwrap();
        assert_eq!(b.part, "tensor-core");
    }

    #[test]
    fn the_warp_pays_for_both_paths() {
        let mut p = AnatomyChoice::default();
        // Eight lanes take the if (2 instructions), 24 the else (2), then one joint instruction.
        let r = p.warp_run().unwrap();
        assert_eq!((r.cycles, r.cycles_without_divergence), (5, 3));
        // Busy lane-cycles: 8·2 + 24·2 + 32 = 96 of 160.
        assert!((r.utilization() - 96.0 / 160.0).abs() < 1e-12);
        assert_eq!(lane_state(&r, 1, 0), (1, true));
        assert_eq!(lane_state(&r, 1, 8), (8, false));
        assert_eq!(lane_state(&r, 0, 5), (5, true));
        p.apply("taken", "0").unwrap();
        assert!(!p.warp_run().unwrap().diverged);
        assert_eq!(p.warp_run().unwrap().utilization(), 1.0);
    }

    #[test]
    fn bad_input_keeps_the_state_and_pairs_round_trip() {
        let mut p = AnatomyChoice::default();
        p.apply("mod", "2").unwrap();
        p.apply("taken", "1").unwrap();
        assert_refused_keeps(
            &p,
            &[
                ("gpu", "x200"),
                ("tpu", "h100"),
                ("part", "tmem"),
                ("taken", "3"),
                ("mod", "0"),
                ("then", "17"),
                ("else", "-1"),
                ("colour", "red"),
            ],
        );
        p.apply("gpu", "a100").unwrap();
        p.apply("tpu", "v5e").unwrap();
        p.apply("part", "l2").unwrap();
        assert_pairs_restore(&p);
        // Divergence settings given in any order are accepted together.
        let (r, refused) = AnatomyChoice::from_pairs(&pairs(&[("taken", "20"), ("mod", "24")]));
        assert!(refused.is_empty(), "{refused:?}");
        assert_eq!((r.warp.threshold, r.warp.modulus), (20, 24));
    }

    #[test]
    fn the_static_page_shows_the_chip_and_the_warp() {
        let owner = Owner::new();
        let html = owner.with(|| view! { <GpuAnatomy args=pairs(&[("gpu", "b200")]) /> }.to_html());
        assert_eq!(html.matches("class=\"sm-cell\"").count(), 148, "{html}");
        assert!(html.contains("data-part-button=\"tmem\""), "{html}");
        assert_eq!(html.matches("data-lane=").count(), 32);
        assert!(html.contains("data-cycles=\"5\""), "{html}");
    }
}
