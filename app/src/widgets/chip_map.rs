//! A map of one TPU chip (`data-widget="chip-map"`, Part 2, "What Is a TPU?"):
//! its parts as buttons laid out the way the book draws them (a TensorCore with
//! its MXUs, VPU, registers, scalar core and VMEM; HBM beside it; ICI, PCIe and
//! DCN leaving the chip), the chosen part's counts, capacity, rate and
//! bandwidth, and every data path drawn to scale with the time it takes to move
//! an array of the reader's size, all from [`ridgeline_core::hardware::chip_map`]. A
//! second TPU (`vs`) is drawn under each path on the same scale, with its
//! figures for the chosen part and the difference spelled out.

use super::compare::{
    chip_rows, compare_picker, compare_table, parse_vs_chip, Comparison, Diff, VS,
};
use super::controls::NumberField;
use super::controls::{is_tpu, Notice};
use leptos::prelude::*;
use ridgeline_core::dtype::Dtype;
use ridgeline_core::format::{grouped, sci, seconds, si};
use ridgeline_core::hardware::chip_map::{chip_map, ChipMap, LogScale, Part};
use ridgeline_core::hardware::{chip, Chip, CHIPS};
use ridgeline_core::units::Bytes;

use super::params::{WidgetParams, WidgetState};
use crate::input::parse_count;

/// The reader's choices.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChipMapParams {
    /// The chip (a TPU).
    pub chip: &'static Chip,
    /// The part selected.
    pub part: Part,
    /// Bytes of the array moved over each path.
    pub bytes: f64,
    /// A second TPU drawn beside, if any.
    pub vs: Option<&'static Chip>,
}

impl Default for ChipMapParams {
    fn default() -> Self {
        ChipMapParams {
            chip: chip("v5p").unwrap_or(&CHIPS[0]),
            part: Part::Hbm,
            bytes: 1e9,
            vs: None,
        }
    }
}

impl ChipMapParams {
    /// The chip's map.
    pub fn map(&self) -> Result<ChipMap, String> {
        chip_map(self.chip)
    }

    /// The compared chip's map; `None` when nothing is compared.
    pub fn vs_map(&self) -> Option<Result<ChipMap, String>> {
        self.vs.map(chip_map)
    }

    /// The chip beside the compared one: core's chip numbers, the counts
    /// of cores, MXUs and ICI links, and each path's bandwidth and time for
    /// the array (`—` for a path a chip does not have).
    pub fn comparison(&self) -> Option<Comparison> {
        let vs = self.vs?;
        let (a, b) = (self.map().ok()?, self.vs_map()?.ok()?);
        let mut rows = chip_rows(self.chip, vs, Dtype::Bf16);
        let count = |m: &ChipMap, part: Part| {
            m.part(part)
                .and_then(|i| i.count)
                .map_or(f64::NAN, f64::from)
        };
        for (key, what, part) in [
            ("cores", "TensorCores per chip", Part::TensorCore),
            ("mxus", "MXUs per TensorCore", Part::Mxu),
            ("ici-links", "ICI links per chip", Part::Ici),
        ] {
            rows.push(Diff::number(
                key,
                what,
                count(&a, part),
                count(&b, part),
                grouped,
            ));
        }
        let bytes = Bytes(self.bytes);
        let time = |m: &ChipMap, part: Part| m.path(part).map_or(f64::NAN, |p| p.time(bytes).0);
        for (part, key) in PATH_KEYS {
            let label = a.path(part).or_else(|| b.path(part)).map(|p| p.label);
            if let Some(label) = label {
                let what = format!("{label}: {} takes", si(self.bytes, "B", 3));
                rows.push(Diff::number(
                    key,
                    what,
                    time(&a, part),
                    time(&b, part),
                    |x| {
                        if x.is_finite() {
                            seconds(x)
                        } else {
                            sci(x, 3)
                        }
                    },
                ));
            }
        }
        Some(Comparison {
            a: self.chip.name.into(),
            b: vs.name.into(),
            rows,
        })
    }
}

/// The comparison row of each path.
const PATH_KEYS: [(Part, &str); 5] = [
    (Part::Vmem, "path-vmem"),
    (Part::Hbm, "path-hbm"),
    (Part::Ici, "path-ici"),
    (Part::Pcie, "path-pcie"),
    (Part::Dcn, "path-dcn"),
];

impl WidgetParams for ChipMapParams {
    /// Sets one parameter from text.
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut next = *self;
        match key {
            "chip" => next.chip = super::controls::chip(value)?,
            "part" => next.part = Part::parse(value)?,
            VS => {
                next.vs = parse_vs_chip(value, |c| chip_map(c).map(|_| ()))?;
            }
            "bytes" => next.bytes = parse_count(value, "array size", 1.0, 1e15)?,
            other => return Err(super::params::unknown_setting(other)),
        }
        next.map()?;
        if let Some(Err(e)) = next.vs_map() {
            return Err(e);
        }
        *self = next;
        Ok(())
    }

    /// The parameters as `key=value` pairs.
    fn to_pairs(&self) -> Vec<(String, String)> {
        vec![
            ("chip".into(), self.chip.id.into()),
            ("part".into(), self.part.name().into()),
            ("bytes".into(), format!("{}", self.bytes)),
        ]
        .into_iter()
        .chain(self.vs.map(|c| (VS.into(), c.id.into())))
        .collect()
    }
}

/// A part's name as the reader sees it.
pub fn part_label(part: Part) -> &'static str {
    match part {
        Part::TensorCore => "TensorCore",
        Part::Mxu => "MXU",
        Part::Vpu => "VPU",
        Part::Vmem => "VMEM",
        Part::Vregs => "vector registers",
        Part::ScalarCore => "scalar core",
        Part::Hbm => "HBM",
        Part::Ici => "ICI",
        Part::Pcie => "PCIe",
        Part::Dcn => "DCN",
    }
}

/// The facts shown for a part, as `(what, value)` lines.
pub fn part_facts(map: &ChipMap, part: Part) -> Vec<(&'static str, String)> {
    let Some(info) = map.part(part) else {
        return Vec::new();
    };
    let mut lines = Vec::new();
    if let Some(n) = info.count {
        let what = match part {
            Part::TensorCore => "per chip",
            Part::Mxu | Part::Vregs => "per TensorCore",
            Part::Ici => "links per chip",
            _ => "count",
        };
        lines.push((what, grouped(f64::from(n))));
    }
    if let Some(c) = info.capacity {
        lines.push(("holds", si(c.0, "B", 3)));
    }
    if let Some(r) = info.rate {
        let what = match part {
            Part::TensorCore => "bf16 peak of the chip",
            Part::Mxu => "bf16 per TensorCore, all MXUs",
            _ => "FLOPs/s per TensorCore",
        };
        lines.push((what, si(r.0, "FLOP/s", 3)));
    }
    if let Some(b) = info.bandwidth {
        let what = match part {
            Part::Ici => "all links, both ways",
            Part::Mxu => "fed from VMEM at",
            _ => "bandwidth",
        };
        lines.push((what, si(b.0, "B/s", 3)));
    }
    if lines.is_empty() {
        lines.push(("figures", "the book gives none for this chip".into()));
    }
    lines
}

/// The widget.
#[component]
pub fn ChipMapWidget(
    /// The chapter's `key=value` arguments (URL parameters override them).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let state = WidgetState::<ChipMapParams>::new(&args);
    let WidgetState { params, notice } = state;
    let set = move |key: &'static str, value: String| {
        state.set_or_refresh(key, &value, key == VS);
    };
    let map = Memo::new(move |_| params.with(|p| p.map()).ok());
    let vs_map = Memo::new(move |_| params.with(|p| p.vs_map().and_then(Result::ok)));
    let vs_name = move || params.with(|p| p.vs.map_or("", |c| c.name));
    let vs_id = move || params.with(|p| p.vs.map_or("", |c| c.id));
    let vs_options = super::controls::chip_options(is_tpu, vs_id);
    let part_button = move |part: Part, extra: &'static str| {
        let count = move || {
            map.with(|m| {
                m.as_ref()
                    .and_then(|m| m.part(part))
                    .and_then(|i| i.count)
                    .filter(|&n| n > 1)
                    .map(|n| format!(" ×{n}"))
                    .unwrap_or_default()
            })
        };
        view! {
            <button type="button" class=format!("part {extra}") data-part=part.name()
                aria-pressed=move || (params.with(|p| p.part) == part).to_string()
                on:click=move |_| set("part", part.name().to_string())>
                {part_label(part)}{count}
            </button>
        }
    };
    let facts = move || {
        map.with(|m| {
            let Some(m) = m.as_ref() else {
                return ().into_any();
            };
            let part = params.with(|p| p.part);
            // The compared chip's figures for the same part, on one line.
            let vs = vs_map.with(|v| {
                v.as_ref().map(|v| {
                    let text = part_facts(v, part)
                        .into_iter()
                        .map(|(what, value)| format!("{what} {value}"))
                        .collect::<Vec<_>>()
                        .join("; ");
                    view! { <div class="vs-detail"><dt>{format!("on {}", vs_name())}</dt><dd data-vs-part="">{text}</dd></div> }
                })
            });
            let own = part_facts(m, part)
                .into_iter()
                .map(|(what, value)| view! { <div><dt>{what}</dt><dd>{value}</dd></div> })
                .collect_view();
            view! { {own}{vs} }.into_any()
        })
    };
    let paths = move || {
        let (bytes, chosen) = params.with(|p| (Bytes(p.bytes), p.part));
        map.with(|m| {
            let Some(m) = m.as_ref() else {
                return ().into_any();
            };
            let steps = m.steps_down();
            // One log scale over both chips' paths, so their bars compare.
            let vs = vs_map.get();
            let scale = match &vs {
                Some(v) => LogScale::of(&[m, v]),
                None => LogScale::of(&[m]),
            };
            let width = |bw| format!("width: {:.1}%", 4.0 + 96.0 * scale.position(bw));
            let vs_row = |part: Part, own: Option<f64>| {
                vs.as_ref().map(|v| {
                    let path = v.path(part);
                    let time = path.map(|p| p.time(bytes).0);
                    let ratio = time.zip(own).map_or(String::new(), |(t, o)| format!("{}× the time", sci(t / o, 3)));
                    view! {
                        <tr class="vs-row" data-vs-path=part.name()>
                            <th scope="row">{format!("on {}", vs_name())}</th>
                            <td class="bar-cell">{path.map(|p| view! { <span class="bar vs" style=width(p.bandwidth)></span> })}</td>
                            <td>{path.map_or("—".into(), |p| si(p.bandwidth.0, "B/s", 3))}</td>
                            <td data-vs-time="">{time.map_or("—".into(), seconds)}</td>
                            <td class="muted">{ratio}</td>
                        </tr>
                    }
                })
            };
            let own = m
                .paths
                .iter()
                .enumerate()
                .map(|(i, path)| {
                    let slower = i
                        .checked_sub(1)
                        .and_then(|j| steps.get(j))
                        .map(|s| format!("{:.1}× slower than the path above", s.2))
                        .unwrap_or_else(|| "the fastest path".into());
                    let time = path.time(bytes).0;
                    view! {
                        <tr data-path=path.part.name() class:chosen=path.part == chosen>
                            <th scope="row">{path.label}</th>
                            <td class="bar-cell"><span class="bar" style=width(path.bandwidth)></span></td>
                            <td>{si(path.bandwidth.0, "B/s", 3)}</td>
                            <td data-time="">{seconds(time)}</td>
                            <td class="muted">{slower}</td>
                        </tr>
                        {vs_row(path.part, Some(time))}
                    }
                })
                .collect_view();
            // Paths only the compared chip has, after the others.
            let extra = vs.as_ref().map(|v| {
                v.paths
                    .iter()
                    .filter(|p| m.path(p.part).is_none())
                    .map(|p| view! {
                        <tr data-path=p.part.name()><th scope="row">{p.label}</th><td></td><td>"—"</td><td>"—"</td><td></td></tr>
                        {vs_row(p.part, None)}
                    })
                    .collect_view()
            });
            view! { {own}{extra} }.into_any()
        })
    };
    let chip_name = move || params.with(|p| p.chip.name);
    let bytes_text = move || format!("{}", params.with(|p| p.bytes));
    view! {
        <figure class="widget chip-map" data-widget="chip-map">
            <div class="controls">
                {super::controls::chip_picker("Chip ", is_tpu, move || params.with(|p| p.chip.id).to_string(), set)}
                {NumberField::new("bytes", "array size in bytes", 8).decimal().label("Array to move (bytes) ").view(bytes_text, set)}
                {compare_picker(vs_options, vs_id, set)}
            </div>
            <div class="chip-diagram" role="group" aria-label="the parts of the chip; choose one to see its figures">
                <div class="chip-box">
                    <p class="box-title">{chip_name}" chip"</p>
                    <div class="core-box">
                        {part_button(Part::TensorCore, "title")}
                        <div class="core-parts">
                            {part_button(Part::Mxu, "compute")}
                            {part_button(Part::Vpu, "compute")}
                            {part_button(Part::Vregs, "memory")}
                            {part_button(Part::ScalarCore, "compute")}
                            {part_button(Part::Vmem, "memory wide")}
                        </div>
                    </div>
                    {part_button(Part::Hbm, "memory wide")}
                </div>
                <div class="links">
                    {part_button(Part::Ici, "link")}
                    {part_button(Part::Pcie, "link")}
                    {part_button(Part::Dcn, "link")}
                </div>
            </div>
            <dl class="times" data-part-info=move || params.with(|p| p.part.name())>
                <div><dt>"part"</dt><dd>{move || part_label(params.with(|p| p.part))}</dd></div>
                {facts}
            </dl>
            <div class="table-scroll" tabindex="0">
                <table class="paths">
                    <caption>{move || format!("Every path of the {}, fastest first; bars on a log scale. The last column but one is the time to move {}.", chip_name(), si(params.with(|p| p.bytes), "B", 3))}</caption>
                    <thead><tr><th scope="col">"path"</th><th scope="col">"to scale"</th><th scope="col">"bandwidth"</th><th scope="col">"time"</th><th scope="col">"step down"</th></tr></thead>
                    <tbody>{paths}</tbody>
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
    use crate::widgets::params::testing::{assert_refused_keeps, assert_round_trip};
    use ridgeline_core::hardware::Link;

    #[test]
    fn moving_a_gigabyte_on_a_v5p_follows_the_registry() {
        let p = ChipMapParams::default();
        let m = p.map().unwrap();
        let c = chip("v5p").unwrap();
        let hbm = m.path(Part::Hbm).unwrap();
        assert_eq!(hbm.bandwidth, c.hbm_bw());
        assert_eq!(seconds(hbm.time(Bytes(1e9)).0), seconds(1e9 / c.hbm_bw().0));
        // ICI counts all six links of the 3D torus, both ways.
        let ici = m.path(Part::Ici).unwrap();
        assert_eq!(ici.bandwidth.0, 6.0 * c.bandwidth(Link::Ici).unwrap().0);
        let facts = part_facts(&m, Part::Ici);
        assert!(facts.contains(&("links per chip", "6".into())), "{facts:?}");
        let hbm_facts = part_facts(&m, Part::Hbm);
        assert!(
            hbm_facts.contains(&("holds", "96 GB".into())),
            "{hbm_facts:?}"
        );
        let vregs = part_facts(&m, Part::Vregs);
        assert!(vregs.contains(&("holds", "262 kB".into())), "{vregs:?}");
    }

    #[test]
    fn every_tpu_draws_and_gpus_are_refused() {
        for c in CHIPS.iter().filter(|c| is_tpu(c)) {
            let mut p = ChipMapParams::default();
            p.apply("chip", c.id).unwrap();
            for part in Part::ALL {
                assert!(!part_facts(&p.map().unwrap(), part).is_empty());
            }
        }
        let messages = assert_refused_keeps(
            &ChipMapParams::default(),
            &[
                ("chip", "h100"),
                ("bytes", "0"),
                ("part", "cache"),
                ("colour", "red"),
            ],
        );
        assert!(messages[0].contains("not a TPU"), "{}", messages[0]);
    }

    #[test]
    fn a_second_tpu_moves_the_same_array() {
        let p: ChipMapParams = assert_round_trip(&[("vs", "v5e"), ("bytes", "1e9")]);
        let c = p.comparison().unwrap();
        // Core's v5e map: 1 GB over its HBM takes 1e9 / 8.2e11 s.
        let v5e = chip_map(chip("v5e").unwrap()).unwrap();
        let hbm = v5e.path(Part::Hbm).unwrap();
        assert_eq!(
            c.row("path-hbm").unwrap().b,
            seconds(hbm.time(Bytes(1e9)).0)
        );
        assert_eq!(c.row("path-hbm").unwrap().b, "1.22 ms");
        // A 2D torus has four ICI links, the v5p's 3D torus six.
        let links = c.row("ici-links").unwrap();
        assert_eq!((links.a.as_str(), links.b.as_str()), ("6", "4"));
        let messages = assert_refused_keeps(&p, &[("vs", "h100"), ("vs", "tpu-v99")]);
        assert!(messages[0].contains("not a TPU"), "{messages:?}");
        assert!(messages[1].contains("tpu-v99"), "{messages:?}");
        // The reader's own TPU is compared like a registry one.
        let (_, code) = crate::library::tests::with_own_entries();
        let mut own = p;
        own.apply("vs", "my:fast v5e").unwrap();
        assert_eq!(own.vs.unwrap().id, code);
        assert_eq!(
            own.comparison().unwrap().row("path-hbm").unwrap().b,
            seconds(1e9 / 1.62e12)
        );
        let mut q = p;
        q.apply("vs", "none").unwrap();
        assert_eq!(q.comparison(), None);
        assert!(q.to_pairs().iter().all(|(k, _)| k != "vs"));
        // The figure: a row under each path, and the part's figures on the v5e.
        let owner = Owner::new();
        let pairs = crate::widgets::params::pairs(&[("vs", "v5e")]);
        let html = owner.with(|| view! { <ChipMapWidget args=pairs /> }.to_html());
        let drawn = p.map().unwrap().paths.len();
        assert_eq!(
            html.matches("data-vs-path=").count(),
            drawn.max(v5e.paths.len()),
            "{html}"
        );
        assert!(
            html.contains("data-vs-part") && html.contains("on TPU v5e"),
            "{html}"
        );
        let owner = Owner::new();
        let html = owner.with(|| view! { <ChipMapWidget args=Vec::new() /> }.to_html());
        assert!(!html.contains("data-vs-path") && !html.contains("data-compare"));
    }

    #[test]
    fn pairs_round_trip() {
        let p: ChipMapParams =
            assert_round_trip(&[("chip", "v5e"), ("part", "vmem"), ("bytes", "2.5e8")]);
        assert_eq!(p.part, Part::Vmem);
        let vmem = part_facts(&p.map().unwrap(), Part::Vmem);
        assert!(vmem.iter().any(|(w, _)| *w == "holds"), "{vmem:?}");
    }
}
