//! Collective time against message size (`data-widget="collective-size"`): where
//! the per-hop latency stops mattering and bandwidth takes over. A second chart
//! draws the same AllGather as bandwidth against size, the quantities of the
//! book's measured figure, with the book's measurement marked on the ring it
//! measured. A second chip (`vs`) adds its AllGather on the same axes and the
//! difference spelled out.

use super::compare::{
    chip_rows, compare_picker, compare_table, diff_rows, parse_vs_chip, Comparison, Diff, VS,
};
use super::controls::Notice;
use super::controls::{LogScale, Slider};
use leptos::prelude::*;
use ridgeline_core::comms::collectives::CollectiveCost;
use ridgeline_core::comms::collectives::{cost, Bound, Collective, Network, RingAxis};
use ridgeline_core::dtype::Dtype;
use ridgeline_core::format::{seconds, si};
use ridgeline_core::hardware::{chip, Chip, ALLGATHER_MEASURED_RING, CHIPS};
use ridgeline_core::units::Bytes;

use super::controls::option;
use super::params::{WidgetParams, WidgetState};
use crate::charts::collective_size::{draw, draw_bandwidth, SizeModel, V_RANGE};
use crate::charts::size::{Frame, Shape, Size};
use crate::charts::svg;
use crate::input::{parse_count, parse_whole};

const STEPS: f64 = 320.0;
/// The chart's drawing size (SVG user units).
const SHAPE: Shape = Shape::new(760, 380, 300);
/// The bandwidth chart's drawing size.
const BW_SHAPE: Shape = Shape::new(760, 380, 320);

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
    /// A second chip whose ICI times the same ring, if any.
    pub vs: Option<&'static Chip>,
}

impl Default for SizeParams {
    fn default() -> Self {
        SizeParams {
            chip: chip("v5e").unwrap_or(&CHIPS[0]),
            n: 16,
            wrap: true,
            v: 1e6,
            vs: None,
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
        let vs = self.vs.and_then(|c| Some((c.name, Network::ici(c).ok()?)));
        Some(SizeModel {
            network,
            axis,
            v: self.v,
            vs,
            measured: self.is_measured_ring(),
        })
    }

    /// Whether this is the ring the book measured: a v5e axis of 16 with
    /// wraparound.
    pub fn is_measured_ring(&self) -> bool {
        self.chip.id == "v5e" && self.wrap && self.n == ALLGATHER_MEASURED_RING.value
    }

    /// The bandwidth line under the second chart: the marked array's bytes
    /// per second and the link bandwidth the book's formula infers from it.
    pub fn bandwidth_line(&self) -> Option<String> {
        let m = self.model()?;
        let c = self.all_gather(&m)?;
        let x = self.n as f64;
        let achieved = self.v / c.time.0;
        let link = achieved * (x - 1.0) / (2.0 * x);
        let measured = if self.is_measured_ring() {
            "The book's measurement is marked."
        } else {
            "The book measured a v5e ring of 16 with wraparound; choose it to see its measurement."
        };
        Some(format!(
            "At this size the model gathers {} bytes per second; the book's formula infers a link bandwidth of {} bytes per second, {:.0}% of the one-way peak. {measured}",
            ridgeline_core::format::sci(achieved, 3),
            ridgeline_core::format::sci(link, 3),
            link / m.network.one_way.0 * 100.0
        ))
    }

    /// The AllGather of the marked array on `m`'s ring.
    fn all_gather(&self, m: &SizeModel) -> Option<CollectiveCost> {
        cost(Collective::AllGather, Bytes(self.v), &[m.axis], &m.network).ok()
    }

    /// The ring on the chip beside the same ring on the compared one: core's
    /// chip numbers, the ICI link and hop, the knee, and the AllGather of the
    /// marked array (its time and what bounds it).
    pub fn comparison(&self) -> Option<Comparison> {
        let vs = self.vs?;
        let a = self.model()?;
        let b = a.vs_model()?;
        let (ca, cb) = (self.all_gather(&a)?, self.all_gather(&b)?);
        let mut rows = chip_rows(self.chip, vs, Dtype::Bf16);
        // One way's bandwidth, the hop, the knee and the AllGather's time.
        let facts = |m: &SizeModel, c: &CollectiveCost| {
            [
                m.network.one_way.0,
                m.network.hop_latency.0,
                m.knee(),
                c.time.0,
            ]
        };
        let (fa, fb) = (facts(&a, &ca), facts(&b, &cb));
        rows.push(Diff::number(
            "ici",
            "ICI link, one way",
            fa[0],
            fb[0],
            |x| si(x, "B/s", 3),
        ));
        rows.extend(diff_rows(
            &fa,
            &fb,
            seconds,
            &[
                ("hop", "per-hop latency", |f| f[1]),
                ("time", "AllGather of V", |f| f[3]),
            ],
        ));
        rows.push(Diff::number(
            "knee",
            "latency-bound below",
            fa[2],
            fb[2],
            |x| si(x, "B", 3),
        ));
        rows.push(Diff::words(
            "bound",
            "it is",
            bound_text(ca.bound),
            bound_text(cb.bound),
        ));
        Some(Comparison {
            a: self.chip.name.into(),
            b: vs.name.into(),
            rows,
        })
    }

    /// The chart as inline SVG (empty if the chip has no ICI model).
    pub fn chart_svg(&self, size: Size) -> String {
        self.model()
            .map(|m| svg(size.width, size.height, |root| draw(root, &m, false)).0)
            .unwrap_or_default()
    }

    /// The bandwidth chart as inline SVG (empty if the chip has no ICI model).
    pub fn bandwidth_svg(&self, size: Size) -> String {
        self.model()
            .map(|m| {
                svg(size.width, size.height, |root| {
                    draw_bandwidth(root, &m, false)
                })
                .0
            })
            .unwrap_or_default()
    }
}

/// What bounds a collective, as the verdict line says it.
fn bound_text(bound: Bound) -> &'static str {
    match bound {
        Bound::Latency => "latency-bound",
        Bound::Bandwidth => "bandwidth-bound",
    }
}

impl WidgetParams for SizeParams {
    /// Sets one parameter from text.
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        match key {
            "chip" => {
                let c = super::controls::chip(value)?;
                Network::ici(c).map_err(|e| e.to_string())?;
                self.chip = c;
            }
            VS => {
                self.vs = parse_vs_chip(value, |c| {
                    Network::ici(c).map(|_| ()).map_err(|e| e.to_string())
                })?
            }
            "n" => self.n = parse_whole::<u32>(value, "ring size", 2.0, 256.0)?,
            "wrap" => self.wrap = crate::input::parse_flag(value, "wraparound")?,
            "v" => self.v = parse_count(value, "array size", V_RANGE.0, V_RANGE.1)?,
            other => return Err(super::params::unknown_setting(other)),
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
        .into_iter()
        .chain(self.vs.map(|c| (VS.into(), c.id.into())))
        .collect()
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
        state.set_or_refresh(key, &value, key == VS);
    };
    let vs_id = move || params.with(|p| p.vs.map_or("", |c| c.id));
    let vs_options = super::controls::chip_options(super::controls::has_ici, vs_id);
    let vs_line = move || {
        params.with(|p| {
            let b = p.model()?.vs_model()?;
            let c = p.all_gather(&b)?;
            let text = bound_text(c.bound);
            Some(view! {
                <p data-vs-line="">{format!("On {}'s ICI it takes {}: ", p.vs?.name, seconds(c.time.0))}
                    <strong class="verdict-tag" data-vs-verdict=text>{text}</strong>"."
                </p>
            })
        })
    };
    // The whole chart moves with the marked size, so it is one layer.
    let frame = Frame::new(SHAPE);
    let chart = move || params.with(|p| p.chart_svg(frame.get()));
    let bw_frame = Frame::new(BW_SHAPE);
    let bw_chart = move || params.with(|p| p.bandwidth_svg(bw_frame.get()));
    let at = Memo::new(move |_| {
        params.with(|p| {
            let m = p.model()?;
            cost(Collective::AllGather, Bytes(p.v), &[m.axis], &m.network).ok()
        })
    });
    let sizes = [2u32, 4, 8, 16, 32, 64].map(|n| {
        option(n.to_string(), n.to_string(), move || {
            params.with(|p| p.n.to_string())
        })
    });

    view! {
        <figure class="widget collective-size" data-widget="collective-size">
            <div class="controls">
                {super::controls::chip_picker("Chip ", super::controls::has_ici, move || params.with(|p| p.chip.id).to_string(), set)}
                <label>"Devices on the axis "
                    <select prop:value=move || params.with(|p| p.n.to_string()) on:change=move |ev| set("n", event_target_value(&ev))>{sizes}</select>
                </label>
                <label>
                    <input type="checkbox" prop:checked=move || params.with(|p| p.wrap) on:change=move |ev| set("wrap", if event_target_checked(&ev) { "1".into() } else { "0".into() }) />
                    " wraparound"
                </label>
                {compare_picker(vs_options, vs_id, set)}
            </div>
            <div class="plot" node_ref=frame.node style=frame.style()><div class="layer" inner_html=chart role="img" aria-label="collective time against array size"></div></div>
            {Slider::positions(STEPS).id("collective-size-v").valuetext(move || si(params.with(|p| p.v), "B", 3)).log_row("Array size V", LogScale::new(STEPS, move || (V_RANGE.0, V_RANGE.1), |x| format!("{x}")), move || params.with(|p| p.v), "v", set, view! { <output>{move || si(params.with(|p| p.v), "B", 3)}</output> })}
            <p class="verdict-line">
                {move || at.get().map(|c| {
                    let text = bound_text(c.bound);
                    view! {
                        "An AllGather of this array takes " {seconds(c.time.0)} " in " {c.steps} " hops: it is "
                        <strong class="verdict-tag" data-bound=text>{text}</strong>
                        {format!(" (latency term {}, bandwidth term {}).", seconds(c.t_latency.0), seconds(c.t_bandwidth.0))}
                    }
                })}
            </p>
            {vs_line}
            <div class="plot" node_ref=bw_frame.node style=bw_frame.style()><div class="layer" inner_html=bw_chart role="img" aria-label="AllGather bandwidth against array size, with the book's measurement"></div></div>
            <p data-bandwidth-line="">{move || params.with(|p| p.bandwidth_line())}</p>
            {compare_table(move || params.with(|p| p.comparison()))}
            <Notice notice=notice />
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::charts::palette;
    use crate::charts::svg_colour;
    use crate::widgets::params::pairs;

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
        // The bandwidth chart marks the book's measurement on its ring only.
        let b = p.bandwidth_svg(BW_SHAPE.design());
        assert!(b.contains("book measured"), "{b}");
        assert!(p.bandwidth_line().unwrap().contains("is marked"));
        let (r, _) = SizeParams::from_pairs(&pairs(&[("n", "8")]));
        assert!(!r.bandwidth_svg(BW_SHAPE.design()).contains("book measured"));
        assert!(r.bandwidth_line().unwrap().contains("choose it"));
        // At 1 GB a ring of 16 infers 15/16 of the one-way peak.
        assert!(
            q.bandwidth_line().unwrap().contains("94%"),
            "{:?}",
            q.bandwidth_line()
        );
    }

    #[test]
    fn a_second_chip_gathers_the_same_array_on_its_own_ring() {
        use crate::widgets::params::testing::{assert_refused_keeps, assert_round_trip};
        let p: SizeParams = assert_round_trip(&[("vs", "v5p"), ("v", "1e9")]);
        let c = p.comparison().unwrap();
        let net = Network::ici(chip("v5p").unwrap()).unwrap();
        let expected = cost(
            Collective::AllGather,
            Bytes(1e9),
            &[RingAxis::ring(16)],
            &net,
        )
        .unwrap();
        assert_eq!(c.row("time").unwrap().b, seconds(expected.time.0));
        assert_eq!(c.row("bound").unwrap().b, "bandwidth-bound");
        assert!(p.chart_svg(SHAPE.design()).contains("TPU v5p: AllGather"));
        let messages = assert_refused_keeps(&p, &[("vs", "tpu-v99"), ("vs", "h100")]);
        assert!(messages[0].contains("tpu-v99"), "{messages:?}");
        let mut q = p;
        q.apply("vs", "none").unwrap();
        assert_eq!(q.comparison(), None);
        assert!(!q.chart_svg(SHAPE.design()).contains("v5p"));
    }
}
