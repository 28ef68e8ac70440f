//! Your own chip (`data-widget="own-chip"`, Part 6; library bundle only): start
//! from a registry chip, change its peaks, HBM and link bandwidths in the
//! answer syntax (`2.6 PFLOP/s`, `5.3 TB/s`, `192 GB`), each value checked by
//! `core::reader::chip` as it is typed, see its ridge points, and save it: it then
//! appears under "Yours" in every chip picker.
//!
//! The URL keeps the starting chip and the fields the reader changed, as typed.

use leptos::prelude::*;
use ridgeline_core::dtype::Dtype;
use ridgeline_core::format::si;
use ridgeline_core::hardware::{chip, Chip, Link, Vendor, CHIPS};
use ridgeline_core::reader::chip::{parse_chip, ChipSpec};

use super::controls::{option, Notice};
use super::params::{WidgetParams, WidgetState};
use crate::input::short;

/// The form's fields, in order: bf16 and int8 peaks, HBM capacity and
/// bandwidth, the chip-to-chip link and the network beyond it.
pub const FIELDS: [&str; 6] = ["bf16", "int8", "hbm", "hbm_bw", "link", "net"];

/// The link a field sets on a chip of `vendor` (none for peaks and capacity).
fn link_of(key: &str, vendor: Vendor) -> Option<Link> {
    match (key, vendor) {
        ("hbm_bw", _) => Some(Link::Hbm),
        ("link", Vendor::Google) => Some(Link::Ici),
        ("link", Vendor::Nvidia) => Some(Link::NvLink),
        ("net", Vendor::Google) => Some(Link::Dcn),
        ("net", Vendor::Nvidia) => Some(Link::ScaleOut),
        _ => None,
    }
}

/// The format a field sets the peak of.
fn dtype_of(key: &str) -> Option<Dtype> {
    match key {
        "bf16" => Some(Dtype::Bf16),
        "int8" => Some(Dtype::Int8),
        _ => None,
    }
}

/// What a field is called beside its input.
fn label(key: &str, vendor: Vendor) -> &'static str {
    match (key, vendor) {
        ("bf16", _) => "bf16 peak",
        ("int8", _) => "int8 peak",
        ("hbm", _) => "HBM capacity",
        ("hbm_bw", _) => "HBM bandwidth",
        ("link", Vendor::Google) => "ICI per link (bidirectional)",
        ("link", Vendor::Nvidia) => "NVLink per GPU",
        ("net", Vendor::Google) => "DCN per chip",
        ("net", Vendor::Nvidia) => "InfiniBand per GPU",
        _ => "",
    }
}

/// The accepted range of every field, as the form states it (the checks are
/// [`ridgeline_core::reader::chip`]'s, the same for a file and a link).
fn limits() -> String {
    use ridgeline_core::reader::chip::{
        MAX_BANDWIDTH, MAX_HBM, MAX_PEAK, MIN_BANDWIDTH, MIN_HBM, MIN_PEAK,
    };
    format!(
        "Accepted: peaks from {} to {}; HBM from {} to {}; every bandwidth from {} to {}.",
        si(MIN_PEAK, "FLOP/s", 3),
        si(MAX_PEAK, "FLOP/s", 3),
        si(MIN_HBM, "B", 3),
        si(MAX_HBM, "B", 3),
        si(MIN_BANDWIDTH, "B/s", 3),
        si(MAX_BANDWIDTH, "B/s", 3),
    )
}

/// The field's value in `spec`, in FLOPs/s, bytes or bytes/s.
fn value_of(spec: &ChipSpec, key: &str) -> Option<f64> {
    if key == "hbm" {
        return Some(spec.hbm_capacity.value.0);
    }
    if let Some(d) = dtype_of(key) {
        return spec.peaks.iter().find(|p| p.dtype == d).map(|p| p.rate.0);
    }
    let link = link_of(key, spec.vendor)?;
    spec.links
        .iter()
        .find(|l| l.link == link)
        .map(|l| l.bandwidth.0)
}

/// The field's value as the form shows it: `197 TFLOP/s`, `16 GB`, `820 GB/s`.
fn shown(spec: &ChipSpec, key: &str) -> String {
    let unit = match key {
        "bf16" | "int8" => "FLOP/s",
        "hbm" => "B",
        _ => "B/s",
    };
    value_of(spec, key).map_or_else(String::new, |v| si(v, unit, 4))
}

/// `text` as a JSON string.
fn json_string(text: &str) -> String {
    format!("\"{}\"", crate::progress::json_escape(text))
}

/// The chip definition (`core::reader::chip`'s JSON) of `start` with `edits`.
pub fn definition(start: &Chip, edits: &[(&'static str, String)]) -> String {
    let mut peaks = Vec::new();
    let mut hbm = Vec::new();
    let mut links = Vec::new();
    for (key, text) in edits {
        let value = json_string(text.trim());
        if let Some(d) = dtype_of(key) {
            peaks.push(format!("{}:{value}", json_string(d.name())));
        } else if *key == "hbm" {
            hbm.push(format!("\"capacity\":{value}"));
        } else if *key == "hbm_bw" {
            hbm.push(format!("\"bandwidth\":{value}"));
        } else if let Some(l) = link_of(key, start.vendor) {
            links.push(format!("{}:{value}", json_string(l.name())));
        }
    }
    let mut parts = vec![format!("\"start_from\":{}", json_string(start.id))];
    for (name, list) in [("peaks", peaks), ("hbm", hbm), ("links", links)] {
        if !list.is_empty() {
            parts.push(format!("\"{name}\":{{{}}}", list.join(",")));
        }
    }
    format!("{{{}}}", parts.join(","))
}

/// The reader's choices: the registry chip the form starts from, the fields
/// changed (as typed), and the chip they define.
#[derive(Debug, Clone, PartialEq)]
pub struct OwnChipParams {
    /// The registry chip the form starts from.
    pub start: &'static Chip,
    /// The fields the reader changed, in [`FIELDS`] order, as typed (all valid).
    pub edits: Vec<(&'static str, String)>,
    /// The chip they define.
    pub spec: ChipSpec,
}

impl OwnChipParams {
    fn from_start(
        start: &'static Chip,
        edits: Vec<(&'static str, String)>,
    ) -> Result<Self, String> {
        let spec = parse_chip(&definition(start, &edits)).map_err(|e| format!("{e}."))?;
        Ok(OwnChipParams { start, edits, spec })
    }

    /// The text a field shows: the reader's, else the chip's value with its unit.
    pub fn text(&self, key: &str) -> String {
        self.edits
            .iter()
            .find(|(k, _)| *k == key)
            .map_or_else(|| shown(&self.spec, key), |(_, t)| t.clone())
    }

    /// The ridge points shown: bf16 over HBM, and bf16 over the chip-to-chip link.
    pub fn ridges(&self) -> [Option<f64>; 2] {
        let over = |key| {
            let link = link_of(key, self.spec.vendor)?;
            self.spec.ridge(Dtype::Bf16, link).map(|r| r.0)
        };
        [over("hbm_bw"), over("link")]
    }
}

impl Default for OwnChipParams {
    fn default() -> Self {
        CHIPS
            .iter()
            .find_map(|c| OwnChipParams::from_start(c, Vec::new()).ok())
            .expect("a registry chip reads as a definition")
    }
}

impl WidgetParams for OwnChipParams {
    const ORDER: &'static [&'static [&'static str]] = &[&["chip"]];

    /// Sets one parameter from text.
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        let next = match key {
            "chip" => {
                let c =
                    chip(value.trim()).ok_or_else(|| format!("unknown chip “{}”", short(value)))?;
                OwnChipParams::from_start(c, Vec::new())?
            }
            k => {
                let key = FIELDS
                    .iter()
                    .copied()
                    .find(|f| *f == k)
                    .ok_or_else(|| format!("unknown setting “{}”", short(k)))?;
                if value.len() > 100 {
                    return Err(format!(
                        "{}: at most 100 characters",
                        label(key, self.start.vendor)
                    ));
                }
                if value.trim().is_empty() {
                    return Err(format!(
                        "{}: type a value with its unit, such as “{}”",
                        label(key, self.start.vendor),
                        shown(&self.spec, key)
                    ));
                }
                let mut edits: Vec<_> = self
                    .edits
                    .iter()
                    .filter(|(k, _)| *k != key)
                    .cloned()
                    .collect();
                edits.push((key, value.to_string()));
                edits.sort_by_key(|(k, _)| FIELDS.iter().position(|f| f == k));
                OwnChipParams::from_start(self.start, edits)?
            }
        };
        *self = next;
        Ok(())
    }

    /// The starting chip and each changed field.
    fn to_pairs(&self) -> Vec<(String, String)> {
        let mut pairs = vec![("chip".to_string(), self.start.id.to_string())];
        pairs.extend(self.edits.iter().map(|(k, v)| (k.to_string(), v.clone())));
        pairs
    }
}

/// The widget.
#[component]
pub fn OwnChip(
    /// The chapter's `key=value` arguments (URL parameters override them).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let state = WidgetState::<OwnChipParams>::new(&args);
    let WidgetState { params, notice } = state;
    let chosen = move || params.with(|p| p.start.id);
    let chips = CHIPS
        .iter()
        .map(|c| option(c.id, c.name, chosen))
        .collect_view();
    let fields = FIELDS
        .iter()
        .map(|&key| {
            let text = move || params.with(|p| p.text(key));
            view! {
                <label>{move || params.with(|p| label(key, p.start.vendor))}" "
                    <input type="text" size="14" data-field=key value=text prop:value=text
                        on:input=move |ev| { state.set(key, &event_target_value(&ev)); } />
                </label>
            }
        })
        .collect_view();
    let ridge = move |i: usize| {
        params.with(|p| p.ridges()[i].map_or("—".to_string(), |r| format!("{r:.0}")))
    };
    let save = move |l: &mut ridgeline_core::reader::library::Library, name: &str| {
        l.save_chip(
            name,
            &params.with_untracked(|p| definition(p.start, &p.edits)),
        )
    };
    view! {
        <figure class="widget own-chip" data-widget="own-chip">
            <div class="controls">
                <label>"Start from "
                    <select prop:value=chosen
                        on:change=move |ev| { if !state.set("chip", &event_target_value(&ev)) { state.refresh(); } }>
                        {chips}
                    </select>
                </label>
            </div>
            <div class="controls own-chip-fields">{fields}</div>
            <p class="hint" data-limits="">{limits()}</p>
            <Notice notice=notice />
            <dl class="own-model-numbers">
                <dt>"Ridge point, bf16 over HBM (FLOPs per byte)"</dt><dd data-ridge="">{move || ridge(0)}</dd>
                <dt>{move || params.with(|p| format!("Ridge point, bf16 over {}", label("link", p.start.vendor)))}</dt><dd data-ridge-link="">{move || ridge(1)}</dd>
            </dl>
            {crate::library::store::save_controls("Save as my chip", "chip", save)}
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::widgets::params::testing::{assert_pairs_restore, assert_refused_keeps};

    fn v5e() -> OwnChipParams {
        let mut p = OwnChipParams::default();
        p.apply("chip", "v5e").unwrap();
        p
    }

    #[test]
    fn a_registry_chip_shows_its_books_numbers() {
        let p = v5e();
        // Part 2's table: v5e has 1.97e14 bf16 FLOPs/s and 8.2e11 B/s of HBM
        // bandwidth, so its ridge is 240 FLOPs per byte.
        assert_eq!(p.text("bf16"), "197 TFLOP/s");
        assert_eq!(p.text("hbm_bw"), "820 GB/s");
        assert_eq!(p.ridges()[0].map(f64::round), Some(240.0));
        assert_eq!(p.to_pairs(), vec![("chip".to_string(), "v5e".to_string())]);
        let h100 = chip("h100").unwrap();
        let mut g = OwnChipParams::default();
        g.apply("chip", "h100").unwrap();
        assert_eq!(
            g.ridges()[1],
            h100.ridge(Dtype::Bf16, Link::NvLink).map(|r| r.0)
        );
    }

    #[test]
    fn a_changed_field_changes_the_chip_and_round_trips() {
        let mut p = v5e();
        p.apply("hbm_bw", "1.62 TB/s").unwrap();
        // Twice the bandwidth halves the ridge: 1.97e14 / 1.62e12 ≈ 122.
        assert_eq!(p.ridges()[0].map(f64::round), Some(122.0));
        p.apply("bf16", "394e12").unwrap();
        assert_eq!(p.ridges()[0].map(f64::round), Some(243.0));
        assert_eq!(p.text("hbm_bw"), "1.62 TB/s");
        assert_eq!(p.edits.len(), 2);
        assert_pairs_restore(&p);
        // Picking the chip again takes back its own values.
        p.apply("chip", "v5e").unwrap();
        assert_eq!(p.text("bf16"), "197 TFLOP/s");
        p.apply("hbm_bw", "1.62 TB/s").unwrap();
        // What the e2e test types: v5p, 4.59e14 / 2.8e12 ≈ 164, twice the peak 328.
        let mut q = OwnChipParams::default();
        q.apply("chip", "v5p").unwrap();
        assert_eq!(q.ridges()[0].map(f64::round), Some(164.0));
        q.apply("bf16", "918 TFLOP/s").unwrap();
        assert_eq!(q.ridges()[0].map(f64::round), Some(328.0));
        let def = definition(p.start, &p.edits);
        assert_eq!(
            def,
            r#"{"start_from":"v5e","hbm":{"bandwidth":"1.62 TB/s"}}"#
        );
    }

    #[test]
    fn bad_input_keeps_the_state_and_names_the_field() {
        let mut p = v5e();
        p.apply("link", "100 GB/s").unwrap();
        let long = "9".repeat(101);
        let messages = assert_refused_keeps(
            &p,
            &[
                ("hbm_bw", "5 TFLOP/s"),
                ("bf16", "1e30"),
                ("hbm", "-16 GB"),
                ("bf16", "\"}"),
                ("chip", "v99"),
                ("colour", "red"),
                ("net", long.as_str()),
                ("int8", "   "),
            ],
        );
        assert!(messages[0].contains("hbm.bandwidth"), "{}", messages[0]);
        assert!(messages[1].contains("1e18"), "{}", messages[1]);
        assert!(messages[2].contains("hbm.capacity"), "{}", messages[2]);
        assert!(messages[3].contains("peaks.bf16"), "{}", messages[3]);
        assert!(messages[4].contains("v99"), "{}", messages[4]);
        assert!(messages[6].contains("100 characters"), "{}", messages[6]);
        assert!(messages[7].contains("394 TFLOP/s"), "{}", messages[7]);
    }

    /// The form states the floors and ceilings, and refuses a value below a
    /// floor with it (a 5e-324 FLOP/s peak once hung the rooflines chart).
    #[test]
    fn the_form_states_its_limits_and_refuses_below_the_floor() {
        assert_eq!(
            limits(),
            "Accepted: peaks from 1 MFLOP/s to 1 EFLOP/s; HBM from 1 MB to 10 TB; every bandwidth from 1 kB/s to 1 PB/s."
        );
        let mut p = OwnChipParams::default();
        let e = p.apply("bf16", "5e-324 FLOP/s").unwrap_err();
        assert!(
            e.contains("peaks.bf16") && e.contains("at least 1e6 FLOPs/s"),
            "{e}"
        );
        let e = p.apply("hbm_bw", "10 B/s").unwrap_err();
        assert!(
            e.contains("hbm.bandwidth") && e.contains("at least 1e3 bytes/s"),
            "{e}"
        );
    }
}
