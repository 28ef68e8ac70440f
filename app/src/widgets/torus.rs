//! The ICI torus explorer (`data-widget="torus"`): a slice of TPUs, its host
//! blocks and wraparound links; pick a chip to see its neighbours and how many
//! hops every other chip is from it. A second TPU (`vs`) takes a slice of the
//! same shape, compared figure by figure (which axes wrap, the farthest chip,
//! the picked chip's neighbours, hosts and link bandwidth).

use super::controls::Notice;
use leptos::prelude::*;
use ridgeline_core::hardware::tpu::{Coord, Slice};
use ridgeline_core::hardware::{chip, Chip, Topology, Vendor, CHIPS};

use super::compare::{compare_picker, compare_table, ici_row, parse_vs_chip, Comparison, Diff, VS};
use super::controls::is_tpu;
use super::params::{WidgetParams, WidgetState};
use crate::input::short;

/// Most chips drawn.
pub const MAX_DRAWN: u64 = 512;

/// The reader's choices.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TorusParams {
    /// The TPU.
    pub chip: &'static Chip,
    /// Slice shape.
    pub shape: Coord,
    /// The chip picked.
    pub selected: Coord,
    /// A second TPU taking a slice of the same shape, if any.
    pub vs: Option<&'static Chip>,
}

impl Default for TorusParams {
    fn default() -> Self {
        TorusParams {
            chip: chip("v5e").unwrap_or(&CHIPS[0]),
            shape: [8, 16, 1],
            selected: [0, 0, 0],
            vs: None,
        }
    }
}

/// Parses `8x16`, `4×4×4` or `4,4,4`.
pub fn parse_shape(text: &str) -> Result<Coord, String> {
    let parts: Vec<&str> = text
        .split(['x', '×', 'X', ',', '*'])
        .map(str::trim)
        .collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!(
            "“{}” is not a slice shape like 8x16 or 4x4x4",
            short(text)
        ));
    }
    let mut shape = [1u32; 3];
    for (i, p) in parts.iter().enumerate() {
        shape[i] = p
            .parse::<u32>()
            .ok()
            .filter(|n| (1..=4096).contains(n))
            .ok_or_else(|| format!("“{}” is not a slice shape like 8x16 or 4x4x4", short(text)))?;
    }
    Ok(shape)
}

impl TorusParams {
    /// The slice, validated against the chip's torus: a shape with a third
    /// axis longer than one is refused on a 2D torus, not cut to its first two.
    pub fn slice(&self) -> Result<Slice, String> {
        let dims = match self.chip.topology {
            Topology::Torus { dims, .. } => usize::from(dims),
            _ => return Err(format!("{} is not a TPU", self.chip.name)),
        };
        let rank = if self.shape[2] == 1 { 2 } else { 3 };
        Slice::new(self.chip, &self.shape[..rank.max(dims)]).map_err(|e| e.to_string())
    }

    /// A slice of this shape on `chip`: a flat shape (`z = 1`) is laid out on
    /// a 2D or a 3D torus, a 3D one only on a 3D torus.
    pub fn same_shape_on(&self, chip: &'static Chip) -> Result<Slice, String> {
        let rank = if self.shape[2] == 1 { 2 } else { 3 };
        Slice::new(chip, &self.shape[..rank]).map_err(|e| format!("{}: {e}", chip.name))
    }

    /// The two slices figure by figure, when a second TPU is chosen.
    pub fn comparison(&self) -> Option<Comparison> {
        let vs = self.vs?;
        let (a, b) = (self.slice().ok()?, self.same_shape_on(vs).ok()?);
        let wraps = |s: &Slice| {
            let w = s.wrap();
            let axes: Vec<&str> = ["x", "y", "z"]
                .into_iter()
                .zip(w)
                .filter(|(_, w)| *w)
                .map(|(a, _)| a)
                .collect();
            if axes.is_empty() {
                "none".to_string()
            } else {
                axes.join(", ")
            }
        };
        let count = |x: f64| format!("{x}");
        let neighbours = |s: &Slice| s.neighbours(self.selected).map_or(0, |n| n.len()) as f64;
        let rows = vec![
            Diff::words("wrap", "axes that wrap around", wraps(&a), wraps(&b)),
            Diff::number(
                "diameter",
                "farthest chip (hops)",
                f64::from(a.diameter()),
                f64::from(b.diameter()),
                count,
            ),
            Diff::number(
                "neighbours",
                "neighbours of the picked chip",
                neighbours(&a),
                neighbours(&b),
                count,
            ),
            Diff::number("hosts", "hosts", a.hosts() as f64, b.hosts() as f64, count),
            ici_row(self.chip, vs),
        ];
        Some(Comparison {
            a: self.chip.name.into(),
            b: vs.name.into(),
            rows,
        })
    }
}

impl WidgetParams for TorusParams {
    const ORDER: &'static [&'static [&'static str]] = &[&["chip"], &["shape"], &[VS]];

    /// Sets one parameter from text; the result must still be a valid slice.
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut next = *self;
        match key {
            "chip" => {
                next.chip = super::controls::chip(value)?;
                if let Topology::Torus { dims, .. } = next.chip.topology {
                    if dims == 3 && next.shape[2] == 1 {
                        next.shape = [4, 4, 4];
                    } else if dims == 2 {
                        next.shape[2] = 1;
                    }
                }
            }
            "shape" => next.shape = parse_shape(value)?,
            "at" => next.selected = parse_shape(value).map(|c| c.map(|v| v.saturating_sub(1)))?,
            VS => {
                next.vs = parse_vs_chip(value, |c| {
                    if is_tpu(c) {
                        Ok(())
                    } else {
                        Err(format!("{} has no ICI torus to compare", c.name))
                    }
                })?
            }
            other => return Err(super::params::unknown_setting(other)),
        }
        next.selected = [0, 1, 2].map(|i| next.selected[i].min(next.shape[i].saturating_sub(1)));
        next.slice()?;
        if let Some(vs) = next.vs {
            next.same_shape_on(vs)
                .map_err(|e| format!("compared: no slice of this shape on {e}"))?;
        }
        *self = next;
        Ok(())
    }

    /// The parameters as `key=value` pairs.
    fn to_pairs(&self) -> Vec<(String, String)> {
        let s = self.shape;
        let shape = if s[2] == 1 {
            format!("{}x{}", s[0], s[1])
        } else {
            format!("{}x{}x{}", s[0], s[1], s[2])
        };
        // The selected chip, 1-based as the reader types it.
        let c = self.selected.map(|v| v + 1);
        let at = if s[2] == 1 {
            format!("{}x{}", c[0], c[1])
        } else {
            format!("{}x{}x{}", c[0], c[1], c[2])
        };
        vec![
            ("chip".into(), self.chip.id.into()),
            ("shape".into(), shape),
            ("at".into(), at),
        ]
        .into_iter()
        .chain(self.vs.map(|vs| (VS.into(), vs.id.into())))
        .collect()
    }
}

/// The widget.
#[component]
pub fn Torus(
    /// The chapter's `key=value` arguments (URL parameters override them).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let state = WidgetState::<TorusParams>::new(&args);
    let WidgetState { params, notice } = state;
    let shape_text = RwSignal::new(params.get_untracked().to_pairs()[1].1.clone());
    let set = move |key: &'static str, value: String| {
        if state.set(key, &value) {
            shape_text.set(params.get_untracked().to_pairs()[1].1.clone());
        }
    };
    let slice = Memo::new(move |_| params.with(|p| p.slice().ok()));
    let vs_id = move || params.with(|p| p.vs.map_or("", |c| c.id));
    let vs_options = super::controls::chip_options(is_tpu, vs_id);

    let grid = move || {
        let p = params.get();
        let Some(s) = slice.get() else {
            return view! { <p class="muted">"No slice."</p> }.into_any();
        };
        if s.chips() > MAX_DRAWN {
            return view! { <p class="muted">{format!("{} chips: too many to draw; the figures below still hold.", s.chips())}</p> }.into_any();
        }
        let host = match p.chip.topology {
            Topology::Torus { host, .. } => host,
            _ => [1, 1, 1],
        };
        let neighbours = s.neighbours(p.selected).unwrap_or_default();
        let diameter = s.diameter().max(1);
        let layers = (0..p.shape[2])
            .map(|z| {
                let cells = (0..p.shape[0])
                    .flat_map(|x| (0..p.shape[1]).map(move |y| [x, y, z]))
                    .map(|c| {
                        let hops = s.hops(p.selected, c).unwrap_or(0);
                        let shade = 1.0 - 0.8 * hops as f64 / diameter as f64;
                        let host_id = (c[0] / host[0].max(1) + c[1] / host[1].max(1) + c[2] / host[2].max(1)) % 2;
                        let class = if c == p.selected {
                            "chip selected"
                        } else if neighbours.contains(&c) {
                            "chip neighbour"
                        } else {
                            "chip"
                        };
                        let class = format!("{class} host{host_id}");
                        let label = format!("chip ({}, {}, {}): {hops} hops", c[0], c[1], c[2]);
                        let at = format!("{}x{}x{}", c[0] + 1, c[1] + 1, c[2] + 1);
                        view! {
                            <button type="button" class=class style=format!("--shade: {shade:.2}") aria-label=label.clone() title=label
                                on:click=move |_| set("at", at.clone())>{hops}</button>
                        }
                    })
                    .collect_view();
                view! {
                    <div class="torus-layer">
                        {(p.shape[2] > 1).then(|| view! { <span class="muted">{format!("z = {z}")}</span> })}
                        <div class="torus-grid" style=format!("grid-template-columns: repeat({}, 1.6rem)", p.shape[1])>{cells}</div>
                    </div>
                }
            })
            .collect_view();
        view! { <div class="torus-layers">{layers}</div> }.into_any()
    };
    let facts = move || {
        let p = params.get();
        slice.get().map(|s| {
            let wrap = s.wrap();
            let axes: Vec<String> = (0..s.dims as usize)
                .map(|i| format!("{} = {} ({})", ["x", "y", "z"][i], p.shape[i], if wrap[i] { "wraps around" } else { "no wraparound" }))
                .collect();
            format!(
                "{} chips on {} hosts; axes {}; farthest chip {} hops away; chip ({}, {}, {}) has {} neighbours.",
                s.chips(),
                s.hosts(),
                axes.join(", "),
                s.diameter(),
                p.selected[0],
                p.selected[1],
                p.selected[2],
                s.neighbours(p.selected).map(|n| n.len()).unwrap_or(0)
            )
        })
    };

    view! {
        <figure class="widget torus" data-widget="torus">
            <div class="controls">
                {super::controls::chip_picker("Chip ", |c| c.vendor == Vendor::Google, move || params.with(|p| p.chip.id).to_string(), set)}
                <label>"Slice "
                    <input type="text" size="9" aria-label="slice shape" value=move || shape_text.get() prop:value=move || shape_text.get()
                        on:change=move |ev| set("shape", event_target_value(&ev)) />
                </label>
                {compare_picker(vs_options, vs_id, move |key, value| {
                    if !state.set(key, &value) {
                        state.refresh();
                    }
                })}
            </div>
            <p class="torus-facts" data-facts="">{facts}</p>
            {grid}
            {compare_table(move || params.with(TorusParams::comparison))}
            <p class="legend muted">"Each cell is a chip, labelled with its hop distance from the picked chip (outlined); its neighbours are ringed. Alternating shades mark the chips each host drives."</p>
            <Notice notice=notice />
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_and_wraparound() {
        assert_eq!(parse_shape("8x16"), Ok([8, 16, 1]));
        assert_eq!(parse_shape("4×4×4"), Ok([4, 4, 4]));
        assert!(parse_shape("0x4").is_err());
        assert!(parse_shape("axb").is_err());
        let mut p = TorusParams::default();
        let s = p.slice().unwrap();
        assert_eq!(s.wrap()[..2], [false, true]);
        assert!(p.apply("shape", "32x32").is_err());
        assert!(p.apply("chip", "v5p").is_ok());
        assert_eq!(p.shape, [4, 4, 4]);
        assert_eq!(p.slice().unwrap().wrap(), [true, true, true]);
    }

    /// A cube typed on a 2D torus was once kept whole but drawn as its first
    /// two axes, and its link then loaded another shape.
    #[test]
    fn a_cube_is_refused_on_a_flat_torus() {
        use crate::widgets::params::AnyParams;
        let mut p = TorusParams::default();
        assert_eq!(
            p.apply("shape", "4x4x4"),
            Err("v5e is a 2D torus, so a slice needs at most 2 axes, not 3".into())
        );
        assert_eq!(p.shape, [8, 16, 1]);
        let flat = "c1~r~g~bf16:1.97e14~1e13~hbm:1e3_ici:1e3~t:2:4x4x1:1x1x1:axis16:1";
        assert_eq!(p.checked_apply("shape", "4x4"), Ok(true));
        assert_eq!(p.checked_apply("chip", flat), Ok(true));
        assert_eq!(p.checked_apply("shape", "4x4x4"), Ok(false));
        assert_eq!(p.shape, [4, 4, 1]);
    }

    /// Issue #19: the same 128 chips as 8×16 on a v5e and 8×16×1 on a v5p;
    /// a 4×4×4 cube has no counterpart on a 2D torus.
    #[test]
    fn a_second_tpu_takes_the_same_shape() {
        use crate::widgets::params::testing::{assert_pairs_restore, assert_refused_keeps};
        let mut p = TorusParams::default();
        p.apply("vs", "v5p").unwrap();
        assert_pairs_restore(&p);
        let c = p.comparison().unwrap();
        let row = |k: &str| c.row(k).unwrap().clone();
        // Part 2: a v5e's axis of 16 wraps around; a v5p wraps only full cubes.
        assert_eq!(
            (row("wrap").a.as_str(), row("wrap").b.as_str()),
            ("y", "none")
        );
        // 7 + 8 hops on the v5e (y wraps), 7 + 15 on the v5p.
        assert_eq!(
            (row("diameter").a.as_str(), row("diameter").b.as_str()),
            ("15", "22")
        );
        assert_eq!(row("ici").ratio_text(), "2×");
        let messages = assert_refused_keeps(&p, &[("vs", "h100"), ("vs", "v9")]);
        assert!(messages[0].contains("no ICI torus"), "{messages:?}");
        // A cube on the v5p compared with a v5e: refused, the v5e kept.
        let mut q = TorusParams::default();
        q.apply("chip", "v5p").unwrap();
        let m = assert_refused_keeps(&q, &[("vs", "v5e")]);
        assert!(m[0].contains("no slice of this shape"), "{m:?}");
        p.apply("vs", "").unwrap();
        assert!(p.comparison().is_none());
    }
}
