//! The four collectives side by side (`data-widget="collective-pieces"`):
//! on a ring of a few devices, what each device holds before and after an
//! AllGather, a ReduceScatter, an AllReduce and an AllToAll, each piece
//! labelled with the device it came from (`a`, `b`, `c`, …) and its index,
//! and a reduction written out with the chosen operator. What each device
//! ends with is `comms::pieces`, the ring run with labels instead of numbers.

use super::controls::{option, Notice};
use super::params::{WidgetParams, WidgetState};
use crate::input::short;
use leptos::prelude::*;
use ridgeline_core::comms::collectives::Collective;
use ridgeline_core::comms::pieces::{pieces, Piece, Pieces};

/// Ring sizes offered: beyond four, a reduced piece's label outgrows a phone.
pub const SIZES: [u32; 3] = [2, 3, 4];

/// How partial results are combined: the key, its label in the picker, and
/// how a reduction of several terms is written.
pub const REDUCTIONS: [(&str, &str); 3] = [
    ("sum", "sum (+)"),
    ("product", "product (×)"),
    ("max", "maximum"),
];

/// What each collective does, in one line.
fn gist(c: Collective) -> &'static str {
    match c {
        Collective::AllGather => "every device ends with every piece",
        Collective::ReduceScatter => "device i ends with piece i, reduced over every device",
        Collective::AllReduce => "every device ends with every piece, reduced",
        Collective::AllToAll => "device i ends with piece i from every device",
    }
}

/// The reader's choices.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PiecesParams {
    /// Devices on the ring, one of [`SIZES`].
    pub n: u32,
    /// Index into [`REDUCTIONS`].
    pub reduce: usize,
}

impl Default for PiecesParams {
    fn default() -> Self {
        PiecesParams { n: 3, reduce: 0 }
    }
}

impl WidgetParams for PiecesParams {
    /// Sets the ring size or the reduction.
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        match key {
            "n" => {
                let n: u32 = value.trim().parse().map_err(|_| {
                    format!("device count “{}” is not a whole number", short(value))
                })?;
                if !SIZES.contains(&n) {
                    return Err(format!("use {SIZES:?} devices, not {n}"));
                }
                self.n = n;
            }
            "reduce" => {
                self.reduce = REDUCTIONS
                    .iter()
                    .position(|(k, _)| *k == value.trim())
                    .ok_or_else(|| {
                        format!(
                            "unknown reduction “{}”: use sum, product or max",
                            short(value)
                        )
                    })?
            }
            other => return Err(super::params::unknown_setting(other)),
        }
        Ok(())
    }

    /// The parameters as `key=value` pairs.
    fn to_pairs(&self) -> Vec<(String, String)> {
        vec![
            ("n".into(), self.n.to_string()),
            (
                "reduce".into(),
                REDUCTIONS[self.reduce.min(REDUCTIONS.len() - 1)].0.into(),
            ),
        ]
    }
}

impl PiecesParams {
    /// The four collectives on the ring, in the book's order.
    pub fn outcomes(&self) -> Result<Vec<Pieces>, String> {
        Collective::ALL
            .iter()
            .map(|&c| pieces(c, self.n).map_err(|e| e.to_string()))
            .collect()
    }

    /// A piece's label: its device's letter and its index (`b1`), or the
    /// reduction of several such terms (`a1+b1+c1`, `max(a1,b1,c1)`).
    pub fn label(&self, p: &Piece) -> String {
        let terms: Vec<String> = p
            .from
            .iter()
            .map(|&d| format!("{}{}", letter(d), p.index))
            .collect();
        match REDUCTIONS[self.reduce.min(REDUCTIONS.len() - 1)].0 {
            _ if terms.len() == 1 => terms.concat(),
            "product" => terms.join("×"),
            "max" => format!("max({})", terms.join(",")),
            _ => terms.join("+"),
        }
    }

    /// One device's pieces as one line of labels, for a screen reader and tests.
    pub fn held(&self, held: &[Piece]) -> String {
        held.iter()
            .map(|p| self.label(p))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Device `d`'s letter: `a`, `b`, `c`, …
fn letter(d: u32) -> char {
    char::from_u32('a' as u32 + d).unwrap_or('?')
}

/// One row of devices, each with the pieces it holds.
fn devices_row(p: PiecesParams, when: &'static str, rows: &[Vec<Piece>]) -> impl IntoView {
    let devices = rows
        .iter()
        .enumerate()
        .map(|(d, held)| {
            let items = held
                .iter()
                .map(|piece| {
                    let class = if piece.is_reduced() {
                        "piece reduced".to_string()
                    } else {
                        format!("piece from-{}", piece.from.first().copied().unwrap_or(0))
                    };
                    view! { <li class=class>{p.label(piece)}</li> }
                })
                .collect_view();
            view! {
                <div class="pieces-device" data-device=d data-held=p.held(held)>
                    <span class="device-label">{format!("device {d}")}</span>
                    <ul>{items}</ul>
                </div>
            }
        })
        .collect_view();
    view! {
        <div class="pieces-row" data-when=when>
            <span class="pieces-when">{when}</span>
            {devices}
        </div>
    }
}

/// The widget.
#[component]
pub fn CollectivePieces(
    /// The chapter's `key=value` arguments (URL parameters override them).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let state = WidgetState::<PiecesParams>::new(&args);
    let (params, notice) = (state.params, state.notice);
    let set = move |key: &'static str, value: String| {
        state.set_or_refresh(key, &value, true);
    };
    let size_options =
        super::controls::count_options(&SIZES, "devices", move || params.with(|p| p.n.to_string()));
    let reduce_options = REDUCTIONS
        .iter()
        .map(|(key, label)| {
            option(*key, *label, move || {
                params.with(|p| REDUCTIONS[p.reduce.min(REDUCTIONS.len() - 1)].0)
            })
        })
        .collect_view();
    let panels = move || {
        let p = params.get();
        match p.outcomes() {
            Ok(all) => all
                .into_iter()
                .map(|o| {
                    let c = o.collective;
                    view! {
                        <section class="pieces-op" data-op=c.key() aria-label=c.name()>
                            <p class="pieces-name"><strong>{c.name()}</strong>": "{gist(c)}"."</p>
                            {devices_row(p, "before", &o.before)}
                            {devices_row(p, "after", &o.after)}
                            <p class="muted">{format!("{} steps on a one-way ring of {}.", o.steps, o.devices)}</p>
                        </section>
                    }
                })
                .collect_view()
                .into_any(),
            Err(e) => view! { <p class="notice">{e}</p> }.into_any(),
        }
    };

    view! {
        <figure class="widget collective-pieces" data-widget="collective-pieces">
            <div class="controls">
                <label>"Ring "
                    <select prop:value=move || params.with(|p| p.n.to_string()) on:change=move |ev| set("n", event_target_value(&ev))>{size_options}</select>
                </label>
                <label>"Reduction "
                    <select prop:value=move || params.with(|p| REDUCTIONS[p.reduce.min(REDUCTIONS.len() - 1)].0) on:change=move |ev| set("reduce", event_target_value(&ev))>{reduce_options}</select>
                </label>
            </div>
            <p class="muted">"Piece b1 is device 1's piece 1; a reduced piece lists the pieces it combines."</p>
            <div class="pieces-grid">{panels}</div>
            <Notice notice=notice />
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::widgets::params::testing::{assert_refused_keeps, assert_round_trip};

    /// Three devices, as the book's figure: the labels core's ring gives.
    #[test]
    fn three_devices_labelled_as_the_book_draws_them() {
        let p = PiecesParams::default();
        let all = p.outcomes().unwrap();
        let after = |i: usize, d: usize| p.held(&all[i].after[d]);
        assert_eq!(p.held(&all[0].before[1]), "b1");
        assert_eq!(after(0, 1), "a0 b1 c2");
        assert_eq!(p.held(&all[1].before[1]), "b0 b1 b2");
        assert_eq!(after(1, 1), "a1+b1+c1");
        assert_eq!(after(2, 0), "a0+b0+c0 a1+b1+c1 a2+b2+c2");
        assert_eq!(after(3, 2), "a2 b2 c2");
        let q: PiecesParams = assert_round_trip(&[("reduce", "max"), ("n", "4")]);
        let all = q.outcomes().unwrap();
        assert_eq!(q.held(&all[1].after[3]), "max(a3,b3,c3,d3)");
        let x: PiecesParams = assert_round_trip(&[("reduce", "product")]);
        assert_eq!(x.held(&x.outcomes().unwrap()[1].after[0]), "a0×b0×c0");
    }

    #[test]
    fn bad_settings_are_refused_and_the_last_kept() {
        let p = PiecesParams::default();
        let messages = assert_refused_keeps(
            &p,
            &[("n", "5"), ("n", "x"), ("reduce", "mean"), ("op", "1")],
        );
        assert!(messages[0].contains("not 5"), "{messages:?}");
        assert!(messages[2].contains("mean"), "{messages:?}");
    }

    #[test]
    fn the_static_figure_holds_every_collective_and_device() {
        let owner = Owner::new();
        let html = owner.with(|| view! { <CollectivePieces args=Vec::new() /> }.to_html());
        for c in Collective::ALL {
            assert!(
                html.contains(&format!(r#"data-op="{}""#, c.key())),
                "{html}"
            );
        }
        assert!(
            html.contains(r#"data-held="a0+b0+c0 a1+b1+c1 a2+b2+c2""#),
            "{html}"
        );
        assert_eq!(html.matches(r#"class="pieces-device""#).count(), 4 * 2 * 3);
    }
}
