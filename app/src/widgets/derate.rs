//! The achievable-rate controls every widget that derates a chip shares
//! (`roofline`, `gpu-parallelism`, `gpu-collectives`, `gpu`): the URL keys of
//! the shares of quoted peak (`flops_derate`, `hbm_derate`, `link_derate`, in
//! the widget's own namespace), a slider per share from 5 to 100 %, and the
//! "Achievable" and "Quoted peak" presets. The arithmetic and the checks are
//! core's [`Derate`]; this module only reads and writes it.

use super::controls::Slider;
use crate::input::parse_count;
use leptos::prelude::*;
use ridgeline_core::roofline::derate::Derate;

/// One share of a quoted rate a widget lets the reader set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Share {
    /// Peak FLOPs/s.
    Flops,
    /// HBM bandwidth.
    Hbm,
    /// Every other link's bandwidth (NVLink, the scale-out network, ICI).
    Link,
}

impl Share {
    /// The share's URL key.
    pub fn key(self) -> &'static str {
        match self {
            Share::Flops => "flops_derate",
            Share::Hbm => "hbm_derate",
            Share::Link => "link_derate",
        }
    }

    /// The share's name in a refusal: core's name for the field.
    fn field(self) -> &'static str {
        match self {
            Share::Flops => "the FLOPs derate",
            Share::Hbm => "the HBM derate",
            Share::Link => "the link derate",
        }
    }

    /// The slider's label.
    fn label(self) -> &'static str {
        match self {
            Share::Flops => "FLOPs/s ",
            Share::Hbm => "HBM bandwidth ",
            Share::Link => "link bandwidth ",
        }
    }

    /// The share's value in `d`.
    pub fn of(self, d: Derate) -> f64 {
        match self {
            Share::Flops => d.flops(),
            Share::Hbm => d.hbm(),
            Share::Link => d.link(),
        }
    }

    /// `d` with this share set to `value`, or core's refusal.
    fn set(self, d: Derate, value: f64) -> Result<Derate, String> {
        match self {
            Share::Flops => d.with_flops(value),
            Share::Hbm => d.with_hbm(value),
            Share::Link => d.with_link(value),
        }
        .map_err(String::from)
    }
}

/// Reads the share whose URL key is `key`, if it is one of `shares`: `None`
/// for any other key, else `d` with that share set from `value`, or the
/// refusal naming the field (a share must be a number from
/// [`Derate::MIN_SHARE`] to one, as the sliders are).
pub fn apply(
    shares: &[Share],
    d: Derate,
    key: &str,
    value: &str,
) -> Option<Result<Derate, String>> {
    let share = shares.iter().find(|s| s.key() == key)?;
    Some(parse_count(value, share.field(), Derate::MIN_SHARE, 1.0).and_then(|x| share.set(d, x)))
}

/// The shares of `shares` that are not one, as URL pairs (the quoted peak
/// writes nothing).
pub fn pairs(shares: &[Share], d: Derate) -> Vec<(String, String)> {
    shares
        .iter()
        .filter(|s| s.of(d) != 1.0)
        .map(|s| (s.key().into(), format!("{}", s.of(d))))
        .collect()
}

/// The shares' fieldset: under `legend`, one slider per `(share, element
/// id)` of the shares `derate` reads, then the "Achievable" preset (labelled
/// by `achievable_label`, setting the shares `achievable` gives) and the
/// "Quoted peak" preset (every share one), then `note`.
pub fn controls(
    legend: &'static str,
    rows: &'static [(Share, &'static str)],
    derate: impl Fn() -> Derate + Copy + Send + Sync + 'static,
    achievable: impl Fn() -> Derate + Send + Sync + 'static,
    achievable_label: impl Fn() -> String + Send + Sync + 'static,
    note: Option<&'static str>,
    set: impl Fn(&'static str, String) + Copy + Send + Sync + 'static,
) -> AnyView {
    let sliders = rows
        .iter()
        .map(|&(share, id)| share_row(share, id, move || share.of(derate()), set))
        .collect_view();
    let preset = move |d: Derate| {
        for &(share, _) in rows.iter().rev() {
            set(share.key(), format!("{}", share.of(d)));
        }
    };
    view! {
        <fieldset class="derate" data-derate="">
            <legend>{legend}</legend>
            {sliders}
            <button type="button" data-derate-preset="achievable" on:click=move |_| preset(achievable())>{achievable_label}</button>
            " "
            <button type="button" data-derate-preset="peak" on:click=move |_| preset(Derate::PEAK)>"Quoted peak"</button>
            {note.map(|n| view! { <p class="muted derate-note">{n}</p> })}
        </fieldset>
    }
    .into_any()
}

/// A slider row for one share of peak, from 5 % to 100 % in steps of one
/// percent, with the share it stands for shown beside it.
fn share_row(
    share: Share,
    id: &'static str,
    value: impl Fn() -> f64 + Copy + Send + Sync + 'static,
    set: impl Fn(&'static str, String) + Copy + Send + Sync + 'static,
) -> AnyView {
    let percent = move || format!("{:.0}%", 100.0 * value());
    Slider::new(Derate::MIN_SHARE, || "1".into(), "0.01")
        .id(id)
        .valuetext(percent)
        .row(
            share.label(),
            move || format!("{}", value()),
            move |v: String| set(share.key(), v),
            view! { <output for=id>{percent}</output> },
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_read_and_write_each_share_and_refusals_name_it() {
        const BOTH: [Share; 2] = [Share::Flops, Share::Link];
        let d = apply(&BOTH, Derate::PEAK, "link_derate", "0.8").unwrap();
        assert_eq!(d, Ok(Derate::new(1.0, 1.0, 0.8).unwrap()));
        // A key the widget does not offer is not a share.
        assert!(apply(&BOTH, Derate::PEAK, "hbm_derate", "0.5").is_none());
        assert!(apply(&BOTH, Derate::PEAK, "gpus", "8").is_none());
        let refused = |v: &str| apply(&BOTH, Derate::PEAK, "link_derate", v).unwrap();
        assert_eq!(
            refused("0").unwrap_err(),
            "the link derate must be at least 0.05"
        );
        assert_eq!(
            refused("1e-300").unwrap_err(),
            "the link derate must be at least 0.05"
        );
        assert!(refused("1.5")
            .unwrap_err()
            .starts_with("the link derate must be at most 1"));
        assert!(refused("fast").unwrap_err().starts_with("the link derate"));
        let d = Derate::new(0.8, 1.0, 0.5).unwrap();
        assert_eq!(
            pairs(&BOTH, d),
            vec![
                ("flops_derate".to_string(), "0.8".to_string()),
                ("link_derate".to_string(), "0.5".to_string())
            ]
        );
        assert!(pairs(&BOTH, Derate::PEAK).is_empty());
    }
}
