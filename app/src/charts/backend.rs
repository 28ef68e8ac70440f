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
    let width = (em * 0.7 * chars).round().max(0.0) as u32;
    let height = (em.round() + (em * 0.24).round()).max(0.0) as u32;
    (width, height)
}

type Result<E> = std::result::Result<(), DrawingErrorKind<E>>;

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
        self.0.draw_path(path, style)
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
