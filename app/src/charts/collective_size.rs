//! Collective time against message size on one ring: the latency floor for
//! small messages, the bandwidth line for large ones (Part 3); and the same
//! AllGather as bandwidth against size, the two quantities of the book's
//! measured figure (bytes per second of runtime, and the one-way link
//! bandwidth inferred from it) with the points of the book's measurement that
//! its text states.

use super::px;
use plotters::coord::Shift;
use plotters::prelude::*;
use ridgeline_core::comms::collective_matmul::{gather_curve, GatherCurve};
use ridgeline_core::comms::collectives::{cost, Collective, Network, RingAxis};
use ridgeline_core::format::{sci, seconds, si};
use ridgeline_core::units::Bytes;

use super::place::{draw_label, placer_for, Placer};
use super::style::{
    draw_legend_below, fit_text, legend_below_height, legend_on, Entry, Mark, Styled, NARROW, NOTE,
};
use super::{palette, Palette};

/// Message-size axis, bytes.
pub const V_RANGE: (f64, f64) = (1e3, 1e11);
/// Points per curve: four a decade, enough for these smooth curves and light
/// in the static page (each is inline SVG in `/sharding`'s first load).
const CURVE_POINTS: usize = 33;

/// What the chart needs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SizeModel {
    /// The links.
    pub network: Network,
    /// The ring.
    pub axis: RingAxis,
    /// The message size marked on the chart.
    pub v: f64,
    /// A second chip drawn on the same axes: its name and links (its
    /// AllGather, knee and marked size on the same ring).
    pub vs: Option<(&'static str, Network)>,
    /// Whether the ring is the one the book measured (a v5e ring of 16 with
    /// wraparound), so that its measurement belongs on the bandwidth chart.
    pub measured: bool,
}

impl SizeModel {
    /// Time of `c` for message size `v`, or NaN if the model rejects it.
    pub fn time(&self, c: Collective, v: f64) -> f64 {
        cost(c, Bytes(v), &[self.axis], &self.network)
            .map(|k| k.time.0)
            .unwrap_or(f64::NAN)
    }

    /// The same ring on the compared chip, if there is one.
    pub fn vs_model(&self) -> Option<SizeModel> {
        let (_, network) = self.vs?;
        Some(SizeModel {
            network,
            vs: None,
            measured: false,
            ..*self
        })
    }

    /// The AllGather's bandwidths against size (the cost model's), beside
    /// the book's measurement.
    pub fn gather_curve(&self) -> Option<GatherCurve> {
        gather_curve(
            &self.network,
            self.axis,
            Bytes(V_RANGE.0),
            Bytes(V_RANGE.1),
            CURVE_POINTS,
        )
        .ok()
    }

    /// The message size below which an AllGather is latency-bound.
    pub fn knee(&self) -> f64 {
        match cost(
            Collective::AllGather,
            Bytes(1e9),
            &[self.axis],
            &self.network,
        ) {
            Ok(k) if k.t_bandwidth.0 > 0.0 => 1e9 * k.t_latency.0 / k.t_bandwidth.0,
            _ => f64::NAN,
        }
    }
}

/// The four collectives' times against message size, the knee, and the marked size.
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    m: &SizeModel,
    dark: bool,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let pal = palette(dark);
    root.fill(&pal.background)?;
    let xs: Vec<f64> = (0..CURVE_POINTS)
        .map(|i| {
            let t = i as f64 / (CURVE_POINTS - 1) as f64;
            (V_RANGE.0.ln() + (V_RANGE.1.ln() - V_RANGE.0.ln()) * t).exp()
        })
        .collect();
    let kinds = [
        (Collective::AllGather, "AllGather = ReduceScatter"),
        (Collective::AllReduce, "AllReduce"),
        (Collective::AllToAll, "AllToAll"),
    ];
    let curve = |m: &SizeModel, c: Collective| -> Vec<(f64, f64)> {
        xs.iter()
            .map(|&v| (v, m.time(c, v)))
            .filter(|(_, t)| t.is_finite() && *t > 0.0)
            .collect()
    };
    let mut series: Vec<Vec<(f64, f64)>> = kinds.iter().map(|(c, _)| curve(m, *c)).collect();
    // The compared chip's AllGather, last, on the same axes.
    let vs = m.vs.zip(m.vs_model());
    if let Some((_, v)) = vs {
        series.push(curve(&v, Collective::AllGather));
    }
    let y_min = series
        .iter()
        .flatten()
        .map(|p| p.1)
        .fold(f64::INFINITY, f64::min)
        * 0.5;
    let y_max = series.iter().flatten().map(|p| p.1).fold(0.0, f64::max) * 2.0;
    let (y_min, y_max) = if y_min.is_finite() && y_max > y_min {
        (y_min, y_max)
    } else {
        (1e-7, 1.0)
    };
    let below = legend_room(root, kinds.len() + usize::from(vs.is_some()));
    let narrow = below.is_some();
    let mut chart = frame(root, below).build_cartesian_2d(
        (V_RANGE.0..V_RANGE.1).log_scale(),
        (y_min..y_max).log_scale(),
    )?;
    chart
        .configure_mesh()
        .x_desc("array size V (bytes)")
        .y_desc("time")
        .x_label_formatter(&|x| tick_label(*x, narrow))
        .y_label_formatter(&|y| seconds(*y))
        .styled(&pal)
        .draw()?;
    let lines: Vec<&[(f64, f64)]> = series.iter().map(Vec::as_slice).collect();
    let mut placer = placer_for(&chart, &lines);
    let mut legend = Vec::new();
    for (i, ((_, label), pts)) in kinds.iter().zip(series.clone()).enumerate() {
        let colour = pal.series[i];
        chart.draw_series(LineSeries::new(pts, colour.stroke_width(3)))?;
        legend.push(Entry::new(*label, colour, Mark::Line(3)));
    }
    if let (Some(((name, _), v)), Some(pts)) = (vs, series.get(kinds.len())) {
        let colour = pal.series[5];
        chart.draw_series(DashedLineSeries::new(
            pts.clone(),
            8,
            5,
            colour.stroke_width(3),
        ))?;
        let (full, short) = (format!("{name}: AllGather"), format!("{name} AG"));
        legend.push(Entry::new(
            fit_text(root, &full, &short),
            colour,
            Mark::Dashed,
        ));
        let at = m.v.clamp(V_RANGE.0, V_RANGE.1);
        let t = v.time(Collective::AllGather, at);
        if t.is_finite() {
            chart.draw_series(std::iter::once(Circle::new(
                (at, t),
                7,
                pal.bad.stroke_width(3),
            )))?;
        }
    }
    let knee = m.knee();
    if knee > V_RANGE.0 && knee < V_RANGE.1 {
        chart.draw_series(DashedLineSeries::new(
            vec![(knee, y_min), (knee, y_max)],
            5,
            4,
            pal.text.stroke_width(1),
        ))?;
        let knee_line = [(knee, y_min), (knee, y_max)].map(|p| chart.backend_coord(&p));
        placer.avoid_line(&knee_line);
        let size = si(knee, "B", 2);
        let (full, short) = (
            format!("latency-bound below {size}"),
            format!("latency < {size}"),
        );
        let text = fit_text(root, &full, &short);
        let at = chart.backend_coord(&(knee, y_max / 3.0));
        draw_label(root, &mut placer, at, text, NOTE, &pal.text, 6)?;
    }
    let v = m.v.clamp(V_RANGE.0, V_RANGE.1);
    let t = m.time(Collective::AllGather, v);
    if t.is_finite() {
        chart.draw_series(std::iter::once(Circle::new((v, t), 7, pal.bad.filled())))?;
    }
    finish_legend(root, &chart, &mut placer, &legend, below, &pal)
}

/// The AllGather as bandwidth against size: the model's bytes per second of
/// runtime and the one-way link bandwidth the book infers from it, the
/// link's one-way peak, the marked size, and (on the ring the book measured)
/// the two facts its text gives about its measurement: bytes per second
/// tending to its asymptote, and its share of the peak reached at its size.
pub fn draw_bandwidth<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    m: &SizeModel,
    dark: bool,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let pal = palette(dark);
    root.fill(&pal.background)?;
    let Some(curve) = m.gather_curve() else {
        return Ok(());
    };
    let achieved: Vec<(f64, f64)> = curve
        .points
        .iter()
        .map(|p| (p.bytes.0, p.achieved.0))
        .collect();
    let link: Vec<(f64, f64)> = curve
        .points
        .iter()
        .map(|p| (p.bytes.0, p.link_bandwidth.0))
        .collect();
    let peak = m.network.one_way.0;
    let measured_point = (curve.measured_at.0, curve.measured_fraction * peak);
    let mut top = curve.achieved_limit.0.max(peak);
    if m.measured {
        top = top.max(curve.measured_achieved.0);
    }
    let top = top * 1.18;
    let below = legend_room(root, 3 + if m.measured { 2 } else { 0 });
    let narrow = below.is_some();
    // Logarithmic in both, as the time chart above: a small array's rate is
    // orders of magnitude below the peak (and the two charts share their
    // drawing code in the bundle).
    let bottom = achieved
        .iter()
        .chain(&link)
        .map(|p| p.1)
        .filter(|y| y.is_finite() && *y > 0.0)
        .fold(top, f64::min)
        .max(top * 1e-4)
        / 1.5;
    let mut chart = frame(root, below).build_cartesian_2d(
        (V_RANGE.0..V_RANGE.1).log_scale(),
        (bottom..top).log_scale(),
    )?;
    chart
        .configure_mesh()
        .x_desc("array size V (bytes)")
        .y_desc("bytes per second")
        .x_label_formatter(&|x| tick_label(*x, narrow))
        .y_label_formatter(&|y| sci(*y, 2))
        .styled(&pal)
        .draw()?;
    let peak_line = vec![(V_RANGE.0, peak), (V_RANGE.1, peak)];
    let lines: Vec<&[(f64, f64)]> = vec![&achieved, &link, &peak_line];
    let mut placer = placer_for(&chart, &lines);
    let (orange, blue) = (pal.series[1], pal.series[0]);
    chart.draw_series(LineSeries::new(achieved.clone(), orange.stroke_width(3)))?;
    chart.draw_series(LineSeries::new(link.clone(), blue.stroke_width(3)))?;
    chart.draw_series(LineSeries::new(peak_line, pal.text.stroke_width(1)))?;
    let mut legend = vec![
        Entry::new(
            fit_text(root, "model: bytes / time", "model V/T"),
            orange,
            Mark::Line(3),
        ),
        Entry::new(
            fit_text(root, "model: link, V(X−1)/(2X·T)", "model link"),
            blue,
            Mark::Line(3),
        ),
        Entry::new(
            fit_text(
                root,
                &format!("one-way link peak {}", sci(peak, 2)),
                "one-way peak",
            ),
            pal.text,
            Mark::Line(1),
        ),
    ];
    if m.measured {
        let measured = pal.series[5];
        let level = curve.measured_achieved.0;
        let asymptote = vec![(V_RANGE.0, level), (V_RANGE.1, level)];
        chart.draw_series(DashedLineSeries::new(
            asymptote.clone(),
            8,
            5,
            measured.stroke_width(2),
        ))?;
        let pts: Vec<(i32, i32)> = asymptote.iter().map(|p| chart.backend_coord(p)).collect();
        placer.avoid_line(&pts);
        chart.draw_series(std::iter::once(Circle::new(
            measured_point,
            7,
            measured.stroke_width(3),
        )))?;
        placer.avoid_point(chart.backend_coord(&measured_point), 9);
        legend.push(Entry::new(
            fit_text(
                root,
                &format!("book measured: bytes/time → {}", sci(level, 2)),
                "book: V/T",
            ),
            measured,
            Mark::Dashed,
        ));
        let share = format!("{:.0}%", curve.measured_fraction * 100.0);
        let at = si(curve.measured_at.0, "B", 2);
        legend.push(Entry::new(
            fit_text(
                root,
                &format!("book measured: link {share} of peak from {at}"),
                &format!("book: {share} at {at}"),
            ),
            measured,
            Mark::Dot,
        ));
    }
    let v = m.v.clamp(V_RANGE.0, V_RANGE.1);
    if let Ok(c) = cost(Collective::AllGather, Bytes(v), &[m.axis], &m.network) {
        let y = v / c.time.0;
        if y.is_finite() {
            chart.draw_series(std::iter::once(Circle::new((v, y), 7, pal.bad.filled())))?;
            placer.avoid_point(chart.backend_coord(&(v, y)), 9);
        }
    }
    finish_legend(root, &chart, &mut placer, &legend, below, &pal)
}

/// The room a legend of `entries` takes under the plot on a phone, whose plot
/// has no room for the legend box; `None` on a wider chart.
fn legend_room<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, entries: usize) -> Option<u32> {
    (root.dim_in_pixel().0 < NARROW).then(|| legend_below_height(entries))
}

/// Both charts' frame: margins, the axes' label areas, and the room under
/// the plot for a phone's legend.
fn frame<'a, 'b, DB: DrawingBackend>(
    root: &'a DrawingArea<DB, Shift>,
    below: Option<u32>,
) -> ChartBuilder<'a, 'b, DB> {
    let mut b = ChartBuilder::on(root);
    b.margin(14)
        .margin_right(24)
        .margin_bottom(14 + below.unwrap_or(0))
        .x_label_area_size(44)
        .y_label_area_size(70);
    b
}

/// The legend: under the plot on a phone (`below`), else in the plot's
/// free corner.
fn finish_legend<DB: DrawingBackend, CT: CoordTranslate>(
    root: &DrawingArea<DB, Shift>,
    chart: &ChartContext<'_, DB, CT>,
    placer: &mut Placer,
    legend: &[Entry],
    below: Option<u32>,
    pal: &Palette,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    match below {
        Some(below) => {
            let top = px::legend_top(root.dim_in_pixel().1, below);
            draw_legend_below(root, legend, (14, top), pal)
        }
        None => {
            let position = placer.legend_for(legend);
            legend_on(chart, legend, position, pal)
        }
    }
}

/// An x tick's label: every decade on a wide chart; on a phone only
/// 1 kB, 1 MB, 1 GB (the decade labels of a narrow plot run into each other).
fn tick_label(x: f64, narrow: bool) -> String {
    let decade = x.log10();
    let exact = (decade - decade.round()).abs() < 1e-6;
    if narrow && !(exact && decade.round().rem_euclid(3.0) == 0.0) {
        return String::new();
    }
    si(x, "B", 2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use plotters_svg::SVGBackend;
    use ridgeline_core::hardware::chip;

    #[test]
    fn v5e_knee_and_ratios() {
        let m = SizeModel {
            network: Network::ici(chip("v5e").unwrap()).unwrap(),
            axis: RingAxis::ring(16),
            v: 1e8,
            vs: None,
            measured: true,
        };
        // Large messages: AllReduce costs twice an AllGather, AllToAll a quarter.
        let (ag, ar, a2a) = (
            m.time(Collective::AllGather, 1e10),
            m.time(Collective::AllReduce, 1e10),
            m.time(Collective::AllToAll, 1e10),
        );
        assert!((ar / ag - 2.0).abs() < 0.01);
        assert!((a2a / ag - 0.25).abs() < 0.05, "{}", a2a / ag);
        assert!(m.knee() > 1e5 && m.knee() < 1e7, "{}", m.knee());
        let mut out = String::new();
        {
            let root = SVGBackend::with_string(&mut out, (720, 380)).into_drawing_area();
            draw(&root, &m, false).unwrap();
            root.present().unwrap();
        }
        assert!(out.contains("latency-bound below"));
        assert!(out.contains("AllGather = ReduceScatter"));
        // The bandwidth chart: the model's two curves and the book's two
        // stated facts, marked as the book's, only on the measured ring.
        let drawn = |m: &SizeModel| {
            let mut out = String::new();
            {
                let root = SVGBackend::with_string(&mut out, (720, 380)).into_drawing_area();
                draw_bandwidth(&root, m, false).unwrap();
                root.present().unwrap();
            }
            out
        };
        let out = drawn(&m);
        assert!(out.contains("model: bytes / time"), "{out}");
        assert!(out.contains("book measured: bytes/time → 9e10"), "{out}");
        assert!(
            out.contains("book measured: link 95% of peak from 10 MB"),
            "{out}"
        );
        assert!(out.contains("one-way link peak 4.5e10"), "{out}");
        let other = drawn(&SizeModel {
            measured: false,
            ..m
        });
        assert!(!other.contains("book measured"), "{other}");
    }

    #[test]
    fn a_phone_labels_every_third_decade() {
        assert_eq!(tick_label(1e6, true), si(1e6, "B", 2));
        assert_eq!(tick_label(1e7, true), "");
        assert_eq!(tick_label(1e7, false), si(1e7, "B", 2));
        let labels: Vec<String> = (3..=11)
            .map(|e| tick_label(10f64.powi(e), true))
            .filter(|l| !l.is_empty())
            .collect();
        assert_eq!(labels.len(), 3, "{labels:?}");
    }
}
