//! The SVG backend every chart draws through: plotters' own SVG writer with
//! one change, how wide a piece of text is taken to be.
//!
//! plotters lays out tick labels, captions and legends from the size of their
//! text. On wasm32 it measures each string by inserting a `<span>` into the
//! page and reading its `offsetWidth`/`offsetHeight` (plotters'
//! `style/font/web.rs`), which forces the browser to lay out the whole chapter
//! once per label: a Pareto redraw spent more time in those reads than in
//! drawing. Natively plotters estimates instead. No option of plotters selects
//! the estimate on wasm32, so this wrapper overrides the one trait method that
//! measures, [`DrawingBackend::estimate_text_size`], with plotters' native
//! estimate and forwards everything else unchanged. The static page (drawn
//! natively) and the live chart (drawn in wasm) therefore lay out the same text
//! the same way, and no redraw reads the DOM.

use super::px;
use plotters::prelude::DrawingBackend;
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind,
};
use plotters_svg::SVGBackend;

/// plotters' SVG backend with text measured by estimate, never by the DOM.
pub struct Svg<'a>(pub SVGBackend<'a>);

/// The size plotters gives a line of text in a font of `size` (plotters'
/// units; the SVG writes `size / 1.24` px): plotters' native estimate
/// (`style/font/naive.rs`), about 0.56 em per character, counting characters
/// rather than bytes so that `µ` or `×` is one character wide.
pub fn estimate(text: &str, size: f64) -> (u32, u32) {
    let em = size / 1.24 / 1.24;
    let chars = text.chars().count() as f64;
    let width = px::size((em * 0.7 * chars).round());
    let height = px::size(em.round() + (em * 0.24).round());
    (width, height)
}

type Result<E> = std::result::Result<(), DrawingErrorKind<E>>;

/// The points of a stroked path that change what is drawn: a point repeated,
/// or lying on the straight segment from the point before it to the one
/// after (the coordinates are whole pixels, so the test is exact), is left
/// out. A curve sampled finely enough for its bends runs straight for most of
/// its length in pixels (a roof, a plateau), and every point costs the static
/// page's weight.
pub fn drawn_points(path: impl IntoIterator<Item = BackendCoord>) -> Vec<BackendCoord> {
    let mut out: Vec<BackendCoord> = Vec::new();
    for p in path {
        if out.last() == Some(&p) {
            continue;
        }
        if let [.., a, b] = out[..] {
            let (u, v) = ((b.0 - a.0, b.1 - a.1), (p.0 - b.0, p.1 - b.1));
            let cross = i64::from(u.0) * i64::from(v.1) - i64::from(u.1) * i64::from(v.0);
            let onward = i64::from(u.0) * i64::from(v.0) + i64::from(u.1) * i64::from(v.1) > 0;
            if cross == 0 && onward {
                out.pop();
            }
        }
        out.push(p);
    }
    out
}

/// `svg` as plotters wrote it, with each run of consecutive stroked segments
/// of one style (`<line>` and `<polyline>` elements with the same opacity,
/// colour and width) written as one `<path>`.
///
/// plotters' SVG writer gives every grid line, tick and dash an element of its
/// own: the roofline chart was 340 elements and 39 KB, 178 of them the dashes
/// of three dashed roofs, and every element costs the browser parsing, style
/// and layout on each load and redraw. No option of plotters merges them, so
/// this pass does, over the writer's fixed output (one element per line;
/// plotters-svg 0.3, pinned in `Cargo.lock`; text content never starts a line
/// with `<`, which it escapes). Only consecutive elements are merged, so what
/// is painted over what is unchanged; anything it does not recognise is left
/// as it is.
pub fn merge_strokes(svg: &str) -> String {
    let mut out = String::with_capacity(svg.len());
    // The style of the run being merged, its path data, and its first line
    // as written (kept as it is when the run has only one element).
    let mut run: Option<(&str, String, &str)> = None;
    let mut count = 0usize;
    let flush = |out: &mut String, run: &mut Option<(&str, String, &str)>, count: usize| {
        if let Some((style, d, first)) = run.take() {
            if count == 1 {
                out.push_str(first);
            } else {
                out.push_str(&format!(r#"<path fill="none" {style} d="{d}"/>"#));
            }
            out.push('\n');
        }
    };
    for line in svg.lines() {
        match stroke(line) {
            Some((style, d)) => match run.as_mut() {
                Some((current, path, _)) if *current == style => {
                    path.push_str(&d);
                    count += 1;
                }
                _ => {
                    flush(&mut out, &mut run, count);
                    run = Some((style, d, line));
                    count = 1;
                }
            },
            None => {
                flush(&mut out, &mut run, count);
                count = 0;
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    flush(&mut out, &mut run, count);
    out
}

/// A stroked segment as plotters writes it: its style attributes (opacity,
/// stroke, stroke-width, as written) and its path data (`M x y L x y …`).
fn stroke(line: &str) -> Option<(&str, String)> {
    let (style, geometry) = if let Some(rest) = line.strip_prefix("<line ") {
        let at = rest.find(" x1=\"")?;
        (&rest[..at], rest[at..].strip_suffix("/>")?)
    } else {
        let rest = line.strip_prefix("<polyline fill=\"none\" ")?;
        let at = rest.find(" points=\"")?;
        (&rest[..at], rest[at..].strip_suffix("/>")?)
    };
    // Only the three style attributes plotters writes, in its order.
    let mut names = style.split('"').step_by(2).map(str::trim);
    if names.next()? != "opacity=" || names.next()? != "stroke=" || names.next()? != "stroke-width="
    {
        return None;
    }
    let numbers: Vec<i64> = if line.starts_with("<line ") {
        geometry
            .split('"')
            .skip(1)
            .step_by(2)
            .map(|n| n.parse().ok())
            .collect::<Option<_>>()?
    } else {
        let points = geometry.strip_prefix(" points=\"")?.strip_suffix('"')?;
        points
            .split([' ', ','])
            .filter(|n| !n.is_empty())
            .map(|n| n.parse().ok())
            .collect::<Option<_>>()?
    };
    if numbers.len() < 4 || !numbers.len().is_multiple_of(2) {
        return None;
    }
    let mut d = String::new();
    for (i, xy) in numbers.chunks(2).enumerate() {
        d.push_str(if i == 0 { "M" } else { "L" });
        d.push_str(&format!("{} {}", xy[0], xy[1]));
    }
    Some((style, d))
}

impl<'a> DrawingBackend for Svg<'a> {
    type ErrorType = <SVGBackend<'a> as DrawingBackend>::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.0.get_size()
    }

    fn ensure_prepared(&mut self) -> Result<Self::ErrorType> {
        self.0.ensure_prepared()
    }

    fn present(&mut self) -> Result<Self::ErrorType> {
        self.0.present()
    }

    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Result<Self::ErrorType> {
        self.0.draw_pixel(point, color)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<Self::ErrorType> {
        self.0.draw_line(from, to, style)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<Self::ErrorType> {
        self.0.draw_rect(upper_left, bottom_right, style, fill)
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<Self::ErrorType> {
        self.0.draw_path(drawn_points(path), style)
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<Self::ErrorType> {
        self.0.draw_circle(center, radius, style, fill)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<Self::ErrorType> {
        self.0.fill_polygon(vert, style)
    }

    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Result<Self::ErrorType> {
        self.0.draw_text(text, style, pos)
    }

    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        style: &S,
    ) -> std::result::Result<(u32, u32), DrawingErrorKind<Self::ErrorType>> {
        Ok(estimate(text, style.size()))
    }

    fn blit_bitmap(
        &mut self,
        pos: BackendCoord,
        (iw, ih): (u32, u32),
        src: &[u8],
    ) -> Result<Self::ErrorType> {
        self.0.blit_bitmap(pos, (iw, ih), src)
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_path_keeps_only_the_points_that_bend_it() {
        // A ramp, a plateau sampled many times, a turn back, a repeat.
        let path = [
            (0, 10),
            (5, 5),
            (10, 0),
            (20, 0),
            (30, 0),
            (30, 0),
            (40, 0),
            (35, 0),
            (35, 8),
        ];
        assert_eq!(
            drawn_points(path),
            [(0, 10), (10, 0), (40, 0), (35, 0), (35, 8)]
        );
        assert_eq!(drawn_points([(1, 1)]), [(1, 1)]);
        assert!(drawn_points(std::iter::empty()).is_empty());
    }

    use super::*;
    use plotters::prelude::*;

    #[test]
    fn the_estimate_is_plotters_native_one_for_ascii() {
        // plotters' naive font: em = size/1.24², width = round(0.7·em·len).
        let style = TextStyle::from(("sans-serif", 20.0).into_font());
        let native = style.font.box_size("ridge point").unwrap();
        assert_eq!(estimate("ridge point", 20.0), native);
        // A multi-byte character counts once.
        assert_eq!(estimate("µs", 20.0).0, estimate("us", 20.0).0);
        assert!(estimate("", 12.0).0 == 0);
    }

    #[test]
    fn the_wrapper_writes_what_plotters_writes() {
        fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, plotters::coord::Shift>) {
            let mut chart = ChartBuilder::on(root)
                .caption("Roofline", ("sans-serif", 18))
                .x_label_area_size(30)
                .y_label_area_size(40)
                .build_cartesian_2d(0f64..10f64, 0f64..5f64)
                .unwrap();
            chart.configure_mesh().draw().unwrap();
            chart
                .draw_series(LineSeries::new([(0.0, 0.0), (10.0, 5.0)], &BLUE))
                .unwrap();
        }
        let mut plain = String::new();
        {
            let root = SVGBackend::with_string(&mut plain, (300, 200)).into_drawing_area();
            draw(&root);
            root.present().unwrap();
        }
        let mut wrapped = String::new();
        {
            let root = Svg(SVGBackend::with_string(&mut wrapped, (300, 200))).into_drawing_area();
            draw(&root);
            root.present().unwrap();
        }
        assert_eq!(plain, wrapped);
    }

    /// Every stroked segment of `svg` with its style, in order.
    fn segments(svg: &str) -> Vec<(String, [i64; 4])> {
        let numbers = |text: &str| -> Vec<i64> {
            text.split([' ', ',', 'L'])
                .filter(|n| !n.is_empty())
                .map(|n| n.parse().unwrap())
                .collect()
        };
        let mut found = Vec::new();
        for line in svg.lines() {
            let attr = |name: &str| -> String {
                let at = line.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
                line[at..].split('"').next().unwrap().to_string()
            };
            // A polyline, a line or one subpath is a list of points joined in turn.
            let paths: Vec<Vec<i64>> = if line.starts_with("<line ") {
                vec![["x1", "y1", "x2", "y2"]
                    .iter()
                    .map(|a| attr(a).parse().unwrap())
                    .collect()]
            } else if line.starts_with("<polyline ") {
                vec![numbers(&attr("points"))]
            } else if line.starts_with("<path ") {
                attr("d")
                    .split('M')
                    .filter(|p| !p.is_empty())
                    .map(numbers)
                    .collect()
            } else {
                continue;
            };
            let style = ["opacity", "stroke", "stroke-width"].map(attr).join("|");
            for points in paths {
                for w in points.windows(4).step_by(2) {
                    found.push((style.clone(), [w[0], w[1], w[2], w[3]]));
                }
            }
        }
        found
    }

    fn elements(svg: &str) -> usize {
        svg.lines()
            .filter(|l| l.starts_with('<') && !l.starts_with("</"))
            .count()
    }

    /// A chart with a grid, a dashed series, a solid one and a label between
    /// them (so that the runs are broken where paint order matters).
    fn dashed_chart() -> String {
        let mut out = String::new();
        {
            let root = SVGBackend::with_string(&mut out, (400, 300)).into_drawing_area();
            let mut chart = ChartBuilder::on(&root)
                .x_label_area_size(30)
                .y_label_area_size(40)
                .build_cartesian_2d(0f64..10f64, 0f64..5f64)
                .unwrap();
            chart.configure_mesh().draw().unwrap();
            chart
                .draw_series(DashedLineSeries::new(
                    [(0.0, 0.0), (10.0, 5.0)],
                    6,
                    4,
                    ShapeStyle::from(&RED).stroke_width(2),
                ))
                .unwrap();
            root.draw(&Text::new("between", (200, 150), ("sans-serif", 12)))
                .unwrap();
            chart
                .draw_series(LineSeries::new(
                    [(0.0, 5.0), (5.0, 1.0), (10.0, 2.0)],
                    &BLUE,
                ))
                .unwrap();
            root.present().unwrap();
        }
        out
    }

    #[test]
    fn merged_strokes_draw_the_same_segments_in_the_same_order() {
        let plain = dashed_chart();
        let merged = merge_strokes(&plain);
        assert_eq!(segments(&plain), segments(&merged));
        // Far fewer elements: the grid's lines and the dashes are one path each.
        let (before, after) = (elements(&plain), elements(&merged));
        assert!(before > 60 && after * 3 < before, "{before} → {after}");
        // What is not a stroke is left alone, in place.
        let others = |svg: &str| -> Vec<String> {
            svg.lines()
                .filter(|l| {
                    !l.starts_with("<line ")
                        && !l.starts_with("<polyline ")
                        && !l.starts_with("<path ")
                })
                .map(str::to_string)
                .collect()
        };
        assert_eq!(others(&plain), others(&merged));
        // The label still sits between the dashes and the solid series.
        let text = merged.find("between").unwrap();
        let red = merged.find("stroke=\"#FF0000\"").unwrap();
        let blue = merged.find("stroke=\"#0000FF\"").unwrap();
        assert!(red < text && text < blue);
    }

    #[test]
    fn merging_leaves_single_and_unknown_elements_as_written() {
        let one = "<line opacity=\"1\" stroke=\"#000000\" stroke-width=\"1\" x1=\"0\" y1=\"0\" x2=\"5\" y2=\"5\"/>\n";
        assert_eq!(merge_strokes(one), one);
        let odd = "<polyline fill=\"none\" opacity=\"1\" stroke=\"#000000\" stroke-width=\"1\" points=\"1,2 \"/>\n<line x1=\"a\"/>\n<text x=\"1\">\nA &lt;line\n</text>\n";
        assert_eq!(merge_strokes(odd), odd);
        assert_eq!(merge_strokes(""), "");
    }

    /// plotters' series labels measure their text through the DOM on wasm32,
    /// which this module exists to avoid; legends are `style::draw_legend`.
    #[test]
    fn no_chart_uses_plotters_series_labels() {
        fn walk(dir: &std::path::Path, found: &mut Vec<String>) {
            for entry in std::fs::read_dir(dir).expect("source dir") {
                let path = entry.expect("entry").path();
                if path.is_dir() {
                    walk(&path, found);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let text = std::fs::read_to_string(&path).expect("source");
                    let needle = ["configure", "series_labels"].join("_");
                    if text.contains(&needle) {
                        found.push(path.display().to_string());
                    }
                }
            }
        }
        let mut found = Vec::new();
        walk(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
            &mut found,
        );
        assert!(found.is_empty(), "plotters legends in {found:?}");
    }
}
