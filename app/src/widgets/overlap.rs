//! The overlap widget (`data-widget="overlap"`): the book's two-chip split
//! contraction. As D grows, compute time grows while the partial sums to
//! exchange stay the same size, so the split turns from communication-bound to
//! compute-bound; the timeline shows what overlap buys. A second chip (`vs`)
//! may be drawn on the same axes, its crossover and verdict compared.

use super::compare::{
    chip_rows, compare_picker, compare_table, diff_rows, parse_vs_chip, Comparison, Diff, VS,
};
use super::controls::Notice;
use super::controls::NumberField;
use super::controls::{rounded, LogScale, Slider};
use leptos::prelude::*;
use ridgeline_core::format::{grouped, sci, seconds};
use ridgeline_core::hardware::{chip, Chip, CHIPS};
use ridgeline_core::roofline::Verdict;

use super::params::{WidgetParams, WidgetState};
use crate::charts::overlap::{draw_marker, draw_static, OverlapModel};
use crate::charts::size::{Frame, Shape, Size};
use crate::charts::svg;
use crate::input::parse_count;

/// D axis and slider range.
pub const D_RANGE: (f64, f64) = (256.0, 1_048_576.0);
/// Slider positions.
pub const STEPS: f64 = 300.0;
/// The chart's drawing size (SVG user units): 380 high on a phone, where the
/// legend under the plot takes four rows (six with a compared chip).
const SHAPE: Shape = Shape::new(760, 424, 380);

/// The reader's settings; always valid.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OverlapParams {
    /// The chip (both chips are the same kind).
    pub chip: &'static Chip,
    /// Token batch.
    pub b: f64,
    /// Contracting dimension, split over the two chips.
    pub d: f64,
    /// Output features.
    pub f: f64,
    /// A second chip whose split is drawn beside the first, if any.
    pub vs: Option<&'static Chip>,
}

impl Default for OverlapParams {
    fn default() -> Self {
        OverlapParams {
            chip: chip("v5e").unwrap_or(&CHIPS[0]),
            b: 1024.0,
            d: 4096.0,
            f: 8192.0,
            vs: None,
        }
    }
}

/// The link between the two chips: ICI one way (the book's example) or NVLink.
pub fn link_of(chip: &Chip) -> Option<(&'static str, f64)> {
    let spec = chip.interconnect()?;
    Some(match spec.one_way {
        Some(w) => ("ICI, one way", w.0),
        None => ("NVLink", spec.bandwidth.0),
    })
}

impl OverlapParams {
    /// The chart model.
    pub fn model(&self) -> Option<OverlapModel> {
        let (_, w) = link_of(self.chip)?;
        let c = self.chip.peak(ridgeline_core::dtype::Dtype::Bf16)?.0;
        let vs = self.vs.and_then(|v| {
            let (_, w) = link_of(v)?;
            Some((v.name, v.peak(ridgeline_core::dtype::Dtype::Bf16)?.0, w))
        });
        Some(OverlapModel {
            c,
            w,
            b: self.b,
            f: self.f,
            d: self.d,
            d_range: D_RANGE,
            vs,
        })
    }

    /// The split on the chip beside the compared one, spelled out: core's
    /// chip numbers, the link, the crossover, the times at D and the verdict.
    pub fn comparison(&self) -> Option<Comparison> {
        let a = self.model()?;
        let b = a.vs_model()?;
        let vs = self.vs?;
        let (ta, tb) = (a.times(self.d), b.times(self.d));
        let mut rows = chip_rows(self.chip, vs, ridgeline_core::dtype::Dtype::Bf16);
        rows.push(Diff::number("link", "link bandwidth", a.w, b.w, |x| {
            format!("{} B/s", sci(x, 3))
        }));
        rows.push(Diff::number(
            "crossover",
            "compute-bound above D =",
            a.crossover(),
            b.crossover(),
            grouped,
        ));
        rows.extend(diff_rows(
            &ta,
            &tb,
            seconds,
            &[
                ("t-math", "T_math at D", |t| t.0),
                ("t-comms", "T_comms at D", |t| t.1),
                ("overlapped", "overlapped step", |t| t.2),
            ],
        ));
        rows.push(Diff::words(
            "verdict",
            "the split is",
            verdict_of(ta).text(),
            verdict_of(tb).text(),
        ));
        Some(Comparison {
            a: self.chip.name.into(),
            b: vs.name.into(),
            rows,
        })
    }

    /// The static layer as inline SVG: both times against D and the crossover.
    pub fn curves_svg(&self, size: Size) -> String {
        self.model()
            .map(|m| svg(size.width, size.height, |root| draw_static(root, &m, false)).0)
            .unwrap_or_default()
    }

    /// The moving layer as inline SVG: the marker at the reader's D.
    pub fn marker_svg(&self, size: Size) -> String {
        self.model()
            .map(|m| svg(size.width, size.height, |root| draw_marker(root, &m, false)).0)
            .unwrap_or_default()
    }
}

/// Refuses a chip without a chip-to-chip link in the book.
fn has_link(c: &Chip) -> Result<(), String> {
    link_of(c)
        .map(|_| ())
        .ok_or_else(|| format!("{} has no chip-to-chip link in the book", c.name))
}

/// Compute-bound when compute takes at least as long as the exchange.
fn verdict_of((tm, tc, _, _): (f64, f64, f64, f64)) -> Verdict {
    if tm >= tc {
        Verdict::ComputeBound
    } else {
        Verdict::CommunicationBound
    }
}

impl WidgetParams for OverlapParams {
    /// Sets one parameter from text, or explains why not.
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        match key {
            "chip" => {
                let c = super::controls::chip(value)?;
                has_link(c)?;
                self.chip = c;
            }
            VS => self.vs = parse_vs_chip(value, has_link)?,
            "b" => self.b = parse_count(value, "batch B", 1.0, 1e7)?.round(),
            "d" => self.d = parse_count(value, "D", D_RANGE.0, D_RANGE.1)?.round(),
            "f" => self.f = parse_count(value, "F", 1.0, 1e7)?.round(),
            other => return Err(super::params::unknown_setting(other)),
        }
        Ok(())
    }

    /// The parameters as `key=value` pairs.
    fn to_pairs(&self) -> Vec<(String, String)> {
        vec![
            ("chip".into(), self.chip.id.into()),
            ("b".into(), format!("{}", self.b)),
            ("d".into(), format!("{}", self.d)),
            ("f".into(), format!("{}", self.f)),
        ]
        .into_iter()
        .chain(self.vs.map(|c| (VS.into(), c.id.into())))
        .collect()
    }
}

/// The overlap widget.
#[component]
pub fn Overlap(
    /// The chapter's `key=value` arguments (URL parameters override them).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let state = WidgetState::<OverlapParams>::new(&args);
    let WidgetState { params, notice } = state;
    let set = move |key: &'static str, value: String| {
        state.set_or_refresh(key, &value, key == VS);
    };

    let revealed = RwSignal::new(false);
    // Everything but the marker depends on the chip, B and F, not on D.
    let static_key = Memo::new(move |_| {
        params.with(|p| (p.chip.id, p.vs.map(|c| c.id), p.b.to_bits(), p.f.to_bits()))
    });
    let frame = Frame::new(SHAPE);
    let curves = Memo::new(move |_| {
        let _ = static_key.get();
        let size = frame.get();
        params.with_untracked(|p| p.curves_svg(size))
    });
    let marker = move || params.with(|p| p.marker_svg(frame.get()));

    let times =
        Memo::new(move |_| params.with(|p| p.model().map(|m| (m.times(p.d), m.crossover()))));
    let verdict = move || {
        times.with(|t| match t {
            Some((t, _)) => verdict_of(*t),
            None => Verdict::CommunicationBound,
        })
    };
    let vs_id = move || params.with(|p| p.vs.map_or("", |c| c.id));
    let vs_options = super::controls::chip_options(|c| link_of(c).is_some(), vs_id);
    let vs_verdict = move || {
        params.with(|p| {
            let v = p.model()?.vs_model()?;
            let text = verdict_of(v.times(p.d)).text();
            Some(view! {
                <p data-vs-line="">{format!("On {}, it is ", p.vs?.name)}
                    <strong data-vs-verdict=text>{text}</strong>
                    {format!(" (compute-bound above D = {}).", grouped(v.crossover()))}
                </p>
            })
        })
    };
    let bar = |t: f64, total: f64| format!("width: {:.1}%", (100.0 * t / total).clamp(0.5, 100.0));
    let t = move |i: usize| {
        times.with(|t| {
            t.map(|((a, b, c, d), _)| [a, b, c, d][i])
                .unwrap_or(f64::NAN)
        })
    };

    view! {
        <figure class="widget overlap" data-widget="overlap">
            <div class="controls">
                {super::controls::chip_picker("Chip ", |c| link_of(c).is_some(), move || params.with(|p| p.chip.id).to_string(), set)}
                {NumberField::new("b", "batch B", 8).label("B ").view(move || format!("{}", params.with(|p| p.b)), set)}
                {NumberField::new("f", "output features F", 8).label("F ").view(move || format!("{}", params.with(|p| p.f)), set)}
                {compare_picker(vs_options, vs_id, set)}
                <span class="link-note">
                    {move || params.with(|p| link_of(p.chip).map(|(name, w)| format!("link: {name}, {} B/s", sci(w, 3))))}
                </span>
            </div>
            <div class="plot" node_ref=frame.node style=frame.style()>
                <div class="layer" aria-hidden="true" inner_html=move || curves.get()></div>
                <div
                    class="layer overlay static"
                    inner_html=marker
                    role="img"
                    aria-label=move || params.with(|p| format!("compute and communication time against D; the marker is at D = {}", grouped(p.d)))
                ></div>
            </div>
            {Slider::positions(STEPS).id("overlap-d").valuetext(move || format!("D = {}", grouped(params.with(|p| p.d)))).log_row("Contracting dimension D", LogScale::new(STEPS, move || (D_RANGE.0, D_RANGE.1), rounded), move || params.with(|p| p.d), "d", set, view! { <output>{move || format!("D = {}", grouped(params.with(|p| p.d)))}</output> })}
            <div class="timeline" aria-label="timeline of one step">
                <div class="lane"><span class="lane-label">"compute"</span><span class="bar compute" style=move || bar(t(0), t(3))>{move || seconds(t(0))}</span></div>
                <div class="lane"><span class="lane-label">"comms"</span><span class="bar comms" style=move || bar(t(1), t(3))>{move || seconds(t(1))}</span></div>
                <div class="lane"><span class="lane-label">"overlapped"</span><span class="bar total" style=move || bar(t(2), t(3))>{move || seconds(t(2))}</span></div>
                <div class="lane"><span class="lane-label">"serial"</span><span class="bar total" style=move || bar(t(3), t(3))>{move || seconds(t(3))}</span></div>
            </div>
            <p class="verdict-line">
                "With D = " {move || grouped(params.with(|p| p.d))} " the split is "
                <strong class=move || format!("verdict {}", verdict().text()) data-verdict=move || verdict().text()>{move || verdict().text()}</strong>
                "."
                <span class="crossing" hidden=move || !revealed.get()>
                    " It becomes compute-bound above D = " {move || times.with(|t| t.map(|(_, dx)| grouped(dx)).unwrap_or_default())} ", whatever B is."
                </span>
            </p>
            {vs_verdict}
            {compare_table(move || params.with(|p| p.comparison()))}
            <super::predict::Predict
                question="Above what contracting dimension D does the split become compute-bound?"
                answer=Signal::derive(move || times.with(|t| t.map(|(_, dx)| dx.ceil())))
                revealed=revealed
            />
            <Notice notice=notice />
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::charts::palette;
    use crate::charts::svg_colour;

    #[test]
    fn marker_turns_from_communication_to_compute_colour_at_the_crossover() {
        let mut p = OverlapParams::default();
        let curves = p.curves_svg(SHAPE.design());
        assert!(curves.starts_with(r#"<svg class="chart-svg""#), "{curves}");
        assert!(curves.contains("8,756"), "{curves}");
        let (good, bad) = (
            format!(r#"fill="{}""#, svg_colour(palette(false).good)),
            format!(r#"fill="{}""#, svg_colour(palette(false).bad)),
        );
        p.apply("d", "4096").unwrap();
        let below = p.marker_svg(SHAPE.design());
        assert_eq!(below.matches(&bad).count(), 2, "{below}");
        p.apply("d", "65536").unwrap();
        let above = p.marker_svg(SHAPE.design());
        assert_eq!(above.matches(&good).count(), 2, "{above}");
        // D moves the marker only: the static layer is the same for any D.
        assert_eq!(p.curves_svg(SHAPE.design()), curves);
    }

    #[test]
    fn book_example_crosses_at_8755() {
        let p = OverlapParams::default();
        let m = p.model().unwrap();
        assert_eq!(grouped(m.crossover()), "8,756");
        let mut q = p;
        assert!(q.apply("d", "0").is_err());
        assert!(q.apply("chip", "nope").is_err());
        assert!(q.apply("b", "abc").is_err());
        assert_eq!(q, p);
        q.apply("chip", "h100").unwrap();
        assert_eq!(link_of(q.chip).unwrap().0, "NVLink");
    }

    #[test]
    fn a_second_chip_crosses_at_its_own_d() {
        use crate::widgets::params::testing::{assert_refused_keeps, assert_round_trip};
        use ridgeline_core::roofline::SplitContraction;
        use ridgeline_core::units::{BytesPerSec, FlopsPerSec};
        let p: OverlapParams = assert_round_trip(&[("vs", "v5p"), ("d", "4096")]);
        let c = p.comparison().unwrap();
        let v5p = chip("v5p").unwrap();
        let (_, w) = link_of(v5p).unwrap();
        let dx = SplitContraction::critical_d(
            FlopsPerSec(v5p.peak(ridgeline_core::dtype::Dtype::Bf16).unwrap().0),
            BytesPerSec(w),
        );
        assert_eq!(c.row("crossover").unwrap().b, grouped(dx));
        assert_eq!(c.row("crossover").unwrap().a, "8,756");
        assert_eq!(c.row("verdict").unwrap().a, "communication-bound");
        let curves = p.curves_svg(SHAPE.design());
        assert!(curves.contains("TPU v5p: T_math"), "{curves}");
        assert!(
            curves.contains(&format!("TPU v5p: D = {}", grouped(dx))),
            "{curves}"
        );
        let messages = assert_refused_keeps(&p, &[("vs", "tpu-v99")]);
        assert!(messages[0].contains("tpu-v99"));
        let mut q = p;
        q.apply("vs", "").unwrap();
        assert_eq!(q.comparison(), None);
        assert!(!q.curves_svg(SHAPE.design()).contains("v5p"));
    }
}
