//! Collective time against message size (`data-widget="collective-size"`): where
//! the per-hop latency stops mattering and bandwidth takes over.

use super::common::Notice;
use leptos::prelude::*;
use ridgeline_core::collectives::{cost, Bound, Collective, Network, RingAxis};
use ridgeline_core::format::{seconds, si};
use ridgeline_core::hardware::{chip, Chip, Link, CHIPS};
use ridgeline_core::units::Bytes;

use super::common::{option, WidgetParams, WidgetState};
use crate::charts::collective_size::{draw, SizeModel, V_RANGE};
use crate::charts::size::{Frame, Shape, Size};
use crate::charts::svg;
use crate::input::{parse_count, short, slider_to_value, value_to_slider};

const STEPS: f64 = 320.0;
/// The chart's drawing size (SVG user units).
const SHAPE: Shape = Shape::new(760, 380, 300);

/// The reader's choices.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SizeParams {
    /// Chip whose ICI times the ring.
    pub chip: &'static Chip,
    /// Devices on the ring.
    pub n: u32,
    /// Whether the ring wraps around.
    pub wrap: bool,
    /// The array size marked, bytes.
    pub v: f64,
}

impl Default for SizeParams {
    fn default() -> Self {
        SizeParams {
            chip: chip("v5e").unwrap_or(&CHIPS[0]),
            n: 16,
            wrap: true,
            v: 1e6,
        }
    }
}

impl SizeParams {
    /// The chart model.
    pub fn model(&self) -> Option<SizeModel> {
        let network = Network::ici(self.chip).ok()?;
        let axis = if self.wrap {
            RingAxis::ring(self.n)
        } else {
            RingAxis::line(self.n)
        };
        Some(SizeModel {
            network,
            axis,
            v: self.v,
        })
    }

    /// The chart as inline SVG (empty if the chip has no ICI model).
    pub fn chart_svg(&self, size: Size) -> String {
        self.model()
            .map(|m| svg(size.width, size.height, |root| draw(root, &m, false)).0)
            .unwrap_or_default()
    }
}

impl WidgetParams for SizeParams {
    const NAME: &'static str = "collective-size";

    /// Sets one parameter from text.
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        match key {
            "chip" => {
                let c = crate::library::resolve_chip(value)
                    .ok_or_else(|| format!("unknown chip “{}”", short(value)))?;
                Network::ici(c).map_err(|e| e.to_string())?;
                self.chip = c;
            }
            "n" => self.n = parse_count(value, "ring size", 2.0, 256.0)?.round() as u32,
            "wrap" => self.wrap = crate::input::parse_flag(value, "wraparound")?,
            "v" => self.v = parse_count(value, "array size", V_RANGE.0, V_RANGE.1)?,
            other => return Err(format!("unknown setting “{}”", short(other))),
        }
        Ok(())
    }

    /// The parameters as `key=value` pairs.
    fn to_pairs(&self) -> Vec<(String, String)> {
        vec![
            ("chip".into(), self.chip.id.into()),
            ("n".into(), self.n.to_string()),
            ("wrap".into(), if self.wrap { "1" } else { "0" }.into()),
            ("v".into(), format!("{}", self.v)),
        ]
    }
}

/// The widget.
#[component]
pub fn CollectiveSize(
    /// The chapter's `key=value` arguments (URL parameters override them).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let state = WidgetState::<SizeParams>::new(&args);
    let WidgetState { params, notice } = state;
    let set = move |key: &'static str, value: String| {
        state.set(key, &value);
    };
    // The whole chart moves with the marked size, so it is one layer.
    let frame = Frame::new(SHAPE);
    let chart = move || params.with(|p| p.chart_svg(frame.get()));
    let at = Memo::new(move |_| {
        params.with(|p| {
            let m = p.model()?;
            cost(Collective::AllGather, Bytes(p.v), &[m.axis], &m.network).ok()
        })
    });
    let chip_options = super::common::chip_options(
        |c| c.link(Link::Ici).is_some(),
        move || params.with(|p| p.chip.id),
    );
    let sizes = [2u32, 4, 8, 16, 32, 64].map(|n| {
        option(n.to_string(), n.to_string(), move || {
            params.with(|p| p.n.to_string())
        })
    });

    view! {
        <figure class="widget collective-size" data-widget="collective-size">
            <div class="controls">
                <label>"Chip "
                    <select prop:value=move || params.with(|p| p.chip.id) on:change=move |ev| set("chip", event_target_value(&ev))>{chip_options}</select>
                </label>
                <label>"Devices on the axis "
                    <select prop:value=move || params.with(|p| p.n.to_string()) on:change=move |ev| set("n", event_target_value(&ev))>{sizes}</select>
                </label>
                <label>
                    <input type="checkbox" prop:checked=move || params.with(|p| p.wrap) on:change=move |ev| set("wrap", if event_target_checked(&ev) { "1".into() } else { "0".into() }) />
                    " wraparound"
                </label>
            </div>
            <div class="plot" node_ref=frame.node style=frame.style()><div class="layer" inner_html=chart role="img" aria-label="collective time against array size"></div></div>
            <div class="slider-row">
                <label for="collective-size-v">"Array size V"</label>
                <input id="collective-size-v" type="range" min="0" max=STEPS step="1"
                    aria-valuetext=move || si(params.with(|p| p.v), "B", 3)
                    value=move || value_to_slider(params.with(|p| p.v), STEPS, V_RANGE.0, V_RANGE.1) prop:value=move || value_to_slider(params.with(|p| p.v), STEPS, V_RANGE.0, V_RANGE.1)
                    on:input=move |ev| {
                        let pos = event_target_value(&ev).parse::<f64>().unwrap_or(0.0);
                        set("v", format!("{}", slider_to_value(pos, STEPS, V_RANGE.0, V_RANGE.1)));
                    } />
                <output>{move || si(params.with(|p| p.v), "B", 3)}</output>
            </div>
            <p class="verdict-line">
                {move || at.get().map(|c| {
                    let text = match c.bound { Bound::Latency => "latency-bound", Bound::Bandwidth => "bandwidth-bound" };
                    view! {
                        "An AllGather of this array takes " {seconds(c.time.0)} " in " {c.steps} " hops: it is "
                        <strong class="verdict-tag" data-bound=text>{text}</strong>
                        {format!(" (latency term {}, bandwidth term {}).", seconds(c.t_latency.0), seconds(c.t_bandwidth.0))}
                    }
                })}
            </p>
            <Notice notice=notice />
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::charts::palette;
    use crate::widgets::common::{pairs, svg_colour};

    #[test]
    fn chart_is_scalable_svg_with_curves_knee_and_the_marked_size() {
        let p = SizeParams::default();
        let s = p.chart_svg(SHAPE.design());
        assert!(s.starts_with(r#"<svg class="chart-svg""#), "{s}");
        assert!(s.contains(r#"viewBox="0 0 760 380""#), "{s}");
        assert!(s.contains("AllGather = ReduceScatter"));
        assert!(s.contains("latency-bound below"));
        // The marked size is the one filled circle in the memory-bound colour.
        let bad = format!(r#"fill="{}""#, svg_colour(palette(false).bad));
        assert_eq!(s.matches(&bad).count(), 1, "{s}");
        let (q, n) = SizeParams::from_pairs(&pairs(&[("v", "1e9")]));
        assert!(n.is_empty(), "{n:?}");
        assert_ne!(q.chart_svg(SHAPE.design()), s, "the marker did not move");
    }
}
