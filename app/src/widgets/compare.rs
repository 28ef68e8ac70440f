//! Side by side: a widget's choice beside a second chip or model (the `vs`
//! key), the rows that differ ([`Diff`], [`Comparison`], [`chip_rows`]) and
//! the table and picker that show them.

use leptos::prelude::*;
use ridgeline_core::dtype::Dtype;
use ridgeline_core::format::{sci, si};
use ridgeline_core::hardware::Chip;
use ridgeline_core::model::config::ModelPreset;

use super::controls::option;

/// The URL key of the second chip or model a widget shows beside its own.
pub const VS: &str = "vs";

/// Reads the `vs` value of a widget that can show a second choice beside its
/// own: empty (or `none`) for nothing, else what `resolve` finds under that id
/// (a registry id or the reader's `my:` id). An id it does not find is
/// refused with a message naming `what` (`chip`, `model`).
pub fn parse_vs<T: 'static>(
    value: &str,
    what: &str,
    resolve: impl Fn(&str) -> Option<&'static T>,
) -> Result<Option<&'static T>, String> {
    if matches!(value.trim(), "" | "none") {
        return Ok(None);
    }
    resolve(value).map(Some).ok_or_else(|| {
        format!(
            "no {what} called “{}” to compare with",
            crate::input::short(value)
        )
    })
}

/// Reads a widget's `vs` chip as [`parse_vs`] does: nothing, or a chip of
/// the registry's or the reader's.
pub fn vs_chip(value: &str) -> Result<Option<&'static Chip>, String> {
    parse_vs(value, "chip", crate::library::resolve_chip)
}

/// Reads a widget's `vs` model as [`parse_vs`] does: nothing, or a preset
/// or the reader's model.
pub fn vs_model(value: &str) -> Result<Option<&'static ModelPreset>, String> {
    parse_vs(value, "model", crate::library::resolve_model)
}

/// The “Compare with” picker: “nothing” first, then `options` (the widget's
/// own [`chip_options`](super::controls::chip_options) or [`model_options`](super::controls::model_options) with `chosen` as their choice).
/// `chosen` is the compared id, or `""` for nothing; a change goes to
/// `set(VS, id)`. Tests find it by its `data-vs` attribute.
pub fn compare_picker(
    options: AnyView,
    chosen: impl Fn() -> &'static str + Copy + Send + Sync + 'static,
    set: impl Fn(&'static str, String) + Send + Sync + 'static,
) -> impl IntoView {
    view! {
        <label class="compare-with">"Compare with "
            <select data-vs="" prop:value=chosen on:change=move |ev| set(VS, event_target_value(&ev))>
                {option("", "nothing", chosen)}
                {options}
            </select>
        </label>
    }
}

/// One row of a side-by-side comparison: what is compared, the value for the
/// widget's own choice and for the compared one, and their ratio.
#[derive(Debug, Clone, PartialEq)]
pub struct Diff {
    /// A stable name for tests (`data-row`).
    pub key: &'static str,
    /// What the row compares, as the reader reads it.
    pub what: String,
    /// The widget's own choice's value, formatted.
    pub a: String,
    /// The compared choice's value, formatted.
    pub b: String,
    /// The compared value over the own one; `None` for rows of words.
    pub ratio: Option<f64>,
}

impl Diff {
    /// A row of two numbers shown by `show`, with their ratio `b / a`.
    pub fn number(
        key: &'static str,
        what: impl Into<String>,
        a: f64,
        b: f64,
        show: impl Fn(f64) -> String,
    ) -> Diff {
        Diff {
            key,
            what: what.into(),
            a: show(a),
            b: show(b),
            ratio: Some(b / a),
        }
    }

    /// A row of words (a verdict): no ratio.
    pub fn words(
        key: &'static str,
        what: impl Into<String>,
        a: impl Into<String>,
        b: impl Into<String>,
    ) -> Diff {
        Diff {
            key,
            what: what.into(),
            a: a.into(),
            b: b.into(),
            ratio: None,
        }
    }

    /// The ratio as the reader sees it: `5.03×`, `same` when the two agree
    /// to three figures, `—` when there is none (words, or a zero or missing value).
    pub fn ratio_text(&self) -> String {
        match self.ratio {
            Some(r) if r.is_finite() && r > 0.0 => {
                let text = sci(r, 3);
                if text == "1" {
                    "same".into()
                } else {
                    format!("{text}×")
                }
            }
            Some(_) => "—".into(),
            None if self.a == self.b => "same".into(),
            None => "differs".into(),
        }
    }
}

/// A widget's choice beside a second one: their names and the rows that differ.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// The widget's own choice.
    pub a: String,
    /// The compared choice.
    pub b: String,
    /// What is compared, row by row.
    pub rows: Vec<Diff>,
}

impl Comparison {
    /// The row named `key`, if there is one.
    pub fn row(&self, key: &str) -> Option<&Diff> {
        self.rows.iter().find(|d| d.key == key)
    }
}

/// The rows every chip comparison starts with, computed by core from the
/// registry (or the reader's chip): the peak for `dtype` (or the nearest wider
/// format each chip has), HBM bandwidth, the HBM ridge and HBM capacity.
pub fn chip_rows(a: &Chip, b: &Chip, dtype: Dtype) -> Vec<Diff> {
    let peak = |c: &Chip| c.peak_or_wider(dtype).map_or(f64::NAN, |(_, r)| r.0);
    let ridge = |c: &Chip| {
        c.peak_or_wider(dtype)
            .map_or(f64::NAN, |(_, r)| (r / c.hbm_bw()).0)
    };
    vec![
        Diff::number("peak", format!("{dtype} peak"), peak(a), peak(b), |x| {
            si(x, "FLOPs/s", 3)
        }),
        Diff::number(
            "hbm-bandwidth",
            "HBM bandwidth",
            a.hbm_bw().0,
            b.hbm_bw().0,
            |x| si(x, "B/s", 3),
        ),
        Diff::number("ridge", "HBM ridge", ridge(a), ridge(b), |x| {
            format!("{} FLOPs/B", sci(x, 3))
        }),
        Diff::number(
            "hbm",
            "HBM capacity",
            a.hbm_capacity.value.0,
            b.hbm_capacity.value.0,
            |x| si(x, "B", 3),
        ),
    ]
}

/// The row comparing two chips' ICI bandwidth per link (`NaN`, shown as
/// `—`, for a chip without ICI).
pub fn ici_row(a: &Chip, b: &Chip) -> Diff {
    let ici = |c: &Chip| {
        c.bandwidth(ridgeline_core::hardware::Link::Ici)
            .map_or(f64::NAN, |r| r.0)
    };
    Diff::number("ici", "ICI bandwidth per link", ici(a), ici(b), |x| {
        si(x, "B/s", 3)
    })
}

/// The difference between a widget's choice and the compared one, spelled out
/// as a table (what, each value, the ratio of the second to the first), shown
/// only while there is a comparison. Tests find it by `data-compare`, each row
/// by `data-row`, the compared value by `data-vs-value`.
pub fn compare_table(
    comparison: impl Fn() -> Option<Comparison> + Send + Sync + 'static,
) -> impl IntoView {
    move || {
        comparison().map(|c| {
            let ratio = format!("{} ÷ {}", c.b, c.a);
            let rows = c
                .rows
                .into_iter()
                .map(|d| {
                    let r = d.ratio_text();
                    view! { <tr data-row=d.key><th scope="row">{d.what}</th><td>{d.a}</td><td data-vs-value="">{d.b}</td><td>{r}</td></tr> }
                })
                .collect_view();
            view! {
                <div class="table-scroll compare-table" tabindex="0" data-compare="">
                    <table>
                        <thead><tr><th scope="col">""</th><th scope="col">{c.a}</th><th scope="col">{c.b}</th><th scope="col">{ratio}</th></tr></thead>
                        <tbody>{rows}</tbody>
                    </table>
                </div>
            }
        })
    }
}

/// Reads a widget's `vs` chip as [`parse_vs`] does, then refuses one the
/// widget cannot take with `check`'s reason (a GPU where a TPU is needed).
pub fn parse_vs_chip(
    value: &str,
    check: impl Fn(&'static Chip) -> Result<(), String>,
) -> Result<Option<&'static Chip>, String> {
    let chip = vs_chip(value)?;
    if let Some(c) = chip {
        check(c)?;
    }
    Ok(chip)
}

/// One row for [`diff_rows`]: its key, what it compares, how to read the value.
pub type DiffOf<'a, T> = (&'static str, &'a str, fn(&T) -> f64);

/// Comparison rows of values `a` and `b` both have, each read by its
/// function and shown by `show` (the times of two runs, say).
pub fn diff_rows<T>(a: &T, b: &T, show: fn(f64) -> String, rows: &[DiffOf<T>]) -> Vec<Diff> {
    rows.iter()
        .map(|(key, what, get)| Diff::number(key, *what, get(a), get(b), show))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ridgeline_core::hardware::chip;

    #[test]
    fn vs_reads_nothing_ids_and_refuses_the_unknown() {
        let find = |id: &str| chip(id);
        assert_eq!(parse_vs("", "chip", find), Ok(None));
        assert_eq!(parse_vs(" none ", "chip", find), Ok(None));
        assert_eq!(parse_vs("h100", "chip", find).unwrap().unwrap().id, "h100");
        let e = parse_vs("h900", "chip", find).unwrap_err();
        assert!(e.contains("chip") && e.contains("h900"), "{e}");
    }

    #[test]
    fn chip_rows_are_cores_numbers_and_ratios() {
        let (v5e, h100) = (chip("v5e").unwrap(), chip("h100").unwrap());
        let c = Comparison {
            a: v5e.name.into(),
            b: h100.name.into(),
            rows: chip_rows(v5e, h100, Dtype::Bf16),
        };
        // Part 1: v5e 1.97e14 FLOPs/s over 8.2e11 B/s is a ridge of 240;
        // Part 12: H100 9.9e14 over 3.35e12 is 295.5.
        let ridge = c.row("ridge").unwrap();
        let core = |x: &Chip| x.ridge(Dtype::Bf16, ridgeline_core::hardware::Link::Hbm);
        assert_eq!(ridge.a, format!("{} FLOPs/B", sci(core(v5e).unwrap().0, 3)));
        assert_eq!(
            ridge.b,
            format!("{} FLOPs/B", sci(core(h100).unwrap().0, 3))
        );
        assert_eq!(
            (ridge.a.as_str(), ridge.b.as_str()),
            ("240 FLOPs/B", "296 FLOPs/B")
        );
        let peak = c.row("peak").unwrap();
        assert_eq!(
            (peak.a.as_str(), peak.b.as_str()),
            ("197 TFLOPs/s", "990 TFLOPs/s")
        );
        assert_eq!(peak.ratio_text(), "5.03×");
        assert_eq!(c.row("hbm").unwrap().b, "80 GB");
        // The same chip on both sides: every ratio reads "same".
        assert!(chip_rows(v5e, v5e, Dtype::Bf16)
            .iter()
            .all(|d| d.ratio_text() == "same"));
    }

    #[test]
    fn ratios_of_words_and_missing_values_say_so() {
        let w = Diff::words("verdict", "verdict", "memory-bound", "compute-bound");
        assert_eq!(w.ratio_text(), "differs");
        assert_eq!(Diff::words("v", "v", "x", "x").ratio_text(), "same");
        let z = Diff::number("z", "z", 0.0, 5.0, |x| sci(x, 3));
        assert_eq!(z.ratio_text(), "—");
        let n = Diff::number("n", "n", 2.0, f64::NAN, |x| sci(x, 3));
        assert_eq!((n.b.as_str(), n.ratio_text().as_str()), ("—", "—"));
    }
}
