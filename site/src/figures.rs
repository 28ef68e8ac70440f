//! Charts for readers without JavaScript on a narrow screen (issue #13).
//!
//! With JavaScript on, every chart redraws at its box's CSS width, so its text
//! is as large as drawn. Without JavaScript the page holds only the chart drawn
//! at its design width (760 px), which a phone scales down to about a third:
//! its labels end up 5 px high. Drawing a second copy into every page would
//! make every reader download what only readers without JavaScript see, so
//! the site writer renders each page a second time with every chart frame
//! starting at [`NARROW_WIDTH`] (`ridgeline_app::charts::size::drawn_at`),
//! saves each chart box's drawing as an SVG file of its own
//! (`_f/<page>/<n>-<hash>.svg`, content-hashed like every other asset), and
//! puts `<noscript><img class="narrow-static" …></noscript>` into the box.
//! A browser running scripts never makes elements of `<noscript>` content, so
//! it never fetches the file; without scripts the stylesheet shows the image
//! instead of the inline drawing on narrow screens ([`css`]).
//!
//! The file carries the charts' dark colours itself, under
//! `prefers-color-scheme` (an image does not see the page's stylesheet; the
//! theme toggle needs JavaScript anyway). Diagrams written as markup (grids,
//! timelines, tables) reflow on their own and get no file: only boxes whose
//! layers hold plotters drawings (`<svg class="chart-svg"`) do.

use crate::Error;

/// The width the narrow copies are drawn at, in CSS pixels: the chart box of a
/// 320 px wide screen (320 less the page's 1 rem padding, the widget's 0.6 rem
/// padding and its 1 px border on each side: 266.8 px, as measured in
/// Chromium). Shown at that width or wider (up to [`NARROW_MAX_SCALE`] times),
/// the copy's text is never smaller than drawn (12 px and up).
pub const NARROW_WIDTH: f64 = 267.0;

/// The chart box of a 320 px wide screen, in CSS pixels (see [`NARROW_WIDTH`]).
pub const PHONE_BOX: f64 = 266.8;

/// The largest factor the stylesheet scales a narrow copy up by (on a tablet a
/// copy at full width would be about three times its size).
pub const NARROW_MAX_SCALE: f64 = 1.6;

/// The folder of the narrow copies, below the site's root.
pub const DIR: &str = "_f";

/// The narrowest viewport (CSS px) at which the inline drawing is legible: a
/// chart's design width is 760 px and its smallest text 12 px, which stays at
/// 11 px or more in a box at least 760 × 11 / 12 ≈ 697 px wide, and above
/// 600 px the box is the viewport less 66 px (the page's 1 rem padding, the
/// widget's 1 rem padding and border, on each side): 763 px, rounded up.
pub const NARROW_BELOW: u32 = 768;

/// The stylesheet rules that show the narrow copies instead of the inline
/// drawings: only on a page parsed without scripts (only then is the content
/// of `<noscript>` made of elements, so the `:has(> noscript > img)` test
/// matches: a reader with JavaScript pays nothing, and a browser without
/// `:has` keeps the inline drawing) and only on screens narrower than
/// [`NARROW_BELOW`]. The image is at least as wide as drawn at a 320 px
/// screen and at most [`NARROW_MAX_SCALE`] times that.
pub fn css() -> String {
    let max = (NARROW_WIDTH * NARROW_MAX_SCALE).round();
    format!(
        "
/* Generated from site/src/figures.rs: without JavaScript on a narrow screen,
   each chart shows the copy drawn at a phone's width instead of its inline drawing. */
.narrow-static {{ display: none; }}
@media screen and (max-width: {}px) {{
  .plot:has(> noscript > img.narrow-static) > .layer {{ display: none; }}
  .plot:has(> noscript > img.narrow-static) > noscript > img.narrow-static {{
    display: block; width: 100%; max-width: {max}px; height: auto; border-radius: 6px;
  }}
}}
",
        NARROW_BELOW - 1
    )
}

/// One chart box's narrow copy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Figure {
    /// Site-relative file name (`_f/rooflines/1-0123456789ab.svg`).
    pub path: String,
    /// The SVG document.
    pub svg: String,
    /// Its width in CSS pixels.
    pub width: u32,
    /// Its height in CSS pixels.
    pub height: u32,
    /// The text alternative, as written into the page (HTML-escaped).
    pub alt: String,
}

/// A chart box (`<div class="plot" …>`) in a page body.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PlotBox<'a> {
    /// Where its closing `</div>` starts in the body.
    close: usize,
    /// What lies between its opening tag and its closing tag.
    pub(crate) inner: &'a str,
}

/// One `<div class="layer …">` of a chart box.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Layer<'a> {
    /// An overlay lies over the box (`position: absolute; inset: 0`) instead
    /// of below the layer before it.
    overlay: bool,
    /// The layer's `aria-label`, if it has one (HTML-escaped).
    label: Option<&'a str>,
    /// The layer's content.
    pub(crate) content: &'a str,
}

/// Every chart box of `html` (a `div` whose classes include `plot`) in
/// document order. A box's end is found by counting `<div` and `</div>` (the
/// SVG inside holds no `div`, and text in the page has `<` escaped).
pub(crate) fn plot_boxes(html: &str) -> Vec<PlotBox<'_>> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = html[from..].find("<div ").map(|i| i + from) {
        from = at + 1;
        let Some(tag_end) = html[at..].find('>').map(|i| i + at + 1) else {
            break;
        };
        let class = attribute(&html[at..tag_end], "class").unwrap_or_default();
        if !class.split_whitespace().any(|c| c == "plot") {
            continue;
        }
        let (mut depth, mut cursor) = (1usize, tag_end);
        while depth > 0 {
            let Some(close) = html[cursor..].find("</div>").map(|i| i + cursor) else {
                break;
            };
            match html[cursor..].find("<div").map(|i| i + cursor) {
                Some(open) if open < close => {
                    depth += 1;
                    cursor = open + 4;
                }
                _ => {
                    depth -= 1;
                    cursor = close + 6;
                }
            }
        }
        if depth == 0 {
            found.push(PlotBox {
                close: cursor - 6,
                inner: &html[tag_end..cursor - 6],
            });
            from = cursor;
        }
    }
    found
}

/// The value of attribute `name` in the tag `tag`.
fn attribute<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let key = format!(" {name}=\"");
    let start = tag.find(&key)? + key.len();
    let end = tag[start..].find('"')? + start;
    Some(&tag[start..end])
}

/// The layers of a chart box, in order.
pub(crate) fn layers(inner: &str) -> Vec<Layer<'_>> {
    let mut out = Vec::new();
    let mut rest = inner;
    while let Some(at) = rest.find("<div ") {
        let Some(tag_end) = rest[at..].find('>').map(|i| i + at + 1) else {
            break;
        };
        let tag = &rest[at..tag_end];
        let Some(end) = rest[tag_end..].find("</div>").map(|i| i + tag_end) else {
            break;
        };
        let class = attribute(tag, "class").unwrap_or_default();
        if class.split_whitespace().any(|c| c == "layer") {
            out.push(Layer {
                overlay: class.split_whitespace().any(|c| c == "overlay"),
                label: attribute(tag, "aria-label"),
                content: &rest[tag_end..end],
            });
        }
        rest = &rest[end + 6..];
    }
    out
}

/// The size of a chart drawing from its `viewBox="0 0 W H"`.
pub(crate) fn view_box(svg: &str) -> Option<(u32, u32)> {
    let value = attribute(svg.split('>').next()?, "viewBox")?;
    let numbers: Vec<u32> = value
        .split_whitespace()
        .map(str::parse)
        .collect::<Result<_, _>>()
        .ok()?;
    match numbers[..] {
        [0, 0, w, h] if w > 0 && h > 0 => Some((w, h)),
        _ => None,
    }
}

/// The chart layers of a box as one SVG document the size of the box: layers
/// in flow stack downwards, overlays lie over the top, as in the page. `None`
/// when no layer holds a plotters drawing.
fn combine(layers: &[Layer<'_>]) -> Option<(String, u32, u32)> {
    const OPEN: &str = "<svg class=\"chart-svg\" ";
    let (mut width, mut height, mut flow) = (0u32, 0u32, 0u32);
    let mut drawings = String::new();
    for layer in layers {
        let svg = layer.content.trim();
        if !svg.starts_with(OPEN) {
            continue;
        }
        let (w, h) = view_box(svg)?;
        let y = if layer.overlay {
            0
        } else {
            flow += h;
            flow - h
        };
        width = width.max(w);
        height = height.max(y + h);
        drawings.push_str(&svg.replacen(
            OPEN,
            &format!("{OPEN}x=\"0\" y=\"{y}\" width=\"{w}\" height=\"{h}\" "),
            1,
        ));
    }
    if drawings.is_empty() {
        return None;
    }
    let file = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\">\n<style>\n{}</style>\n{drawings}\n</svg>\n",
        ridgeline_app::charts::dark_file_css()
    );
    Some((file, width, height))
}

/// Pairs the chart boxes of a page body rendered at design width (`wide`) with
/// the same body rendered with every chart at [`NARROW_WIDTH`] (`narrow`):
/// returns `wide` with a `<noscript>` image at the end of each chart box, and
/// the files those images name (below `_f/<page>/`; `public_url` prefixes the
/// image addresses). The two renderings must hold the same chart boxes.
pub fn attach(
    wide: &str,
    narrow: &str,
    page: &str,
    public_url: &str,
) -> Result<(String, Vec<Figure>), Error> {
    let (wide_boxes, narrow_boxes) = (plot_boxes(wide), plot_boxes(narrow));
    if wide_boxes.len() != narrow_boxes.len() {
        return Err(format!(
            "{page}: {} chart boxes at design width but {} at {NARROW_WIDTH} px",
            wide_boxes.len(),
            narrow_boxes.len()
        ));
    }
    let mut out = String::with_capacity(wide.len() + 256 * wide_boxes.len());
    let mut figures = Vec::new();
    let mut copied = 0;
    for (n, (w, nb)) in wide_boxes.iter().zip(&narrow_boxes).enumerate() {
        let Some((svg, width, height)) = combine(&layers(nb.inner)) else {
            continue;
        };
        let alt = layers(w.inner)
            .iter()
            .find_map(|l| l.label)
            .unwrap_or("chart")
            .to_string();
        let path = format!(
            "{DIR}/{page}/{}-{}.svg",
            n + 1,
            crate::scripts::short_hash(svg.as_bytes())
        );
        out.push_str(&wide[copied..w.close]);
        out.push_str(&format!(
            "<noscript><img class=\"narrow-static\" src=\"{public_url}{path}\" alt=\"{alt}\" width=\"{width}\" height=\"{height}\" loading=\"lazy\" /></noscript>"
        ));
        copied = w.close;
        figures.push(Figure {
            path,
            svg,
            width,
            height,
            alt,
        });
    }
    out.push_str(&wide[copied..]);
    Ok((out, figures))
}

/// Every `font-size` in an SVG document, in its own units.
pub fn font_sizes(svg: &str) -> Vec<f64> {
    svg.split("font-size=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .filter_map(|v| v.trim_end_matches("px").parse().ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const LAYER: &str = r##"<svg class="chart-svg" viewBox="0 0 280 300" xmlns="http://www.w3.org/2000/svg"><rect x="0" y="0" width="280" height="300" fill="#FFFFFF"/><text font-size="12" fill="#22262E">B</text></svg>"##;

    fn page(width: u32) -> String {
        let layer = LAYER.replace("280", &width.to_string());
        format!(
            r#"<p>text</p><div class="plot" style="--chart-ratio: 0.5"><div class="layer" aria-hidden="true">{layer}</div><div class="layer overlay static" role="img" aria-label="time against D &amp; more">{layer}</div></div><div class="plot-note">no</div><div class="plot"><div class="layer"><svg class="grid"></svg></div></div><p>end</p>"#
        )
    }

    #[test]
    fn finds_chart_boxes_and_their_layers() {
        let html = page(760);
        let boxes = plot_boxes(&html);
        assert_eq!(boxes.len(), 2, "the plot-note div is not a chart box");
        let l = layers(boxes[0].inner);
        assert_eq!(l.len(), 2);
        assert!(!l[0].overlay && l[1].overlay);
        assert_eq!(l[1].label, Some("time against D &amp; more"));
        assert!(l[0].content.starts_with("<svg class=\"chart-svg\""));
        assert_eq!(&html[boxes[1].close..boxes[1].close + 6], "</div>");
    }

    #[test]
    fn attaches_one_image_per_plotters_chart_and_writes_its_file() {
        let (wide, narrow) = (page(760), page(280));
        let (out, figures) = attach(&wide, &narrow, "rooflines", "/sub/").expect("same boxes");
        assert_eq!(figures.len(), 1, "the markup diagram gets no file");
        let f = &figures[0];
        assert!(f.path.starts_with("_f/rooflines/1-") && f.path.ends_with(".svg"));
        assert_eq!(
            (f.width, f.height),
            (280, 300),
            "the overlay lies over the base"
        );
        assert_eq!(f.alt, "time against D &amp; more");
        let tag = format!(
            r#"<noscript><img class="narrow-static" src="/sub/{}" alt="time against D &amp; more" width="280" height="300" loading="lazy" /></noscript></div>"#,
            f.path
        );
        assert!(out.contains(&tag), "{out}");
        // Everything else of the page is kept as it was.
        assert_eq!(out.replace(&tag, "</div>"), wide);
        // The file: both layers placed, the dark colours under the system preference.
        assert!(f
            .svg
            .starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"280\" height=\"300\""));
        assert_eq!(
            f.svg
                .matches("class=\"chart-svg\" x=\"0\" y=\"0\" width=\"280\" height=\"300\"")
                .count(),
            2
        );
        assert!(f
            .svg
            .contains("@media screen and (prefers-color-scheme: dark)"));
        assert!(
            f.svg
                .contains(".chart-svg [fill=\"#FFFFFF\"] { fill: #181A1F; }"),
            "{}",
            f.svg
        );
        assert_eq!(font_sizes(&f.svg), vec![12.0, 12.0]);
        // Another drawing gets another name.
        let (_, again) = attach(&wide, &page(300), "rooflines", "/").expect("same boxes");
        assert_ne!(again[0].path, f.path);
    }

    #[test]
    fn layers_in_flow_stack_downwards() {
        let stacked = format!(
            r#"<div class="plot"><div class="layer">{LAYER}</div><div class="layer">{LAYER}</div></div>"#
        );
        let (_, figures) = attach(&stacked, &stacked, "p", "/").expect("same boxes");
        assert_eq!((figures[0].width, figures[0].height), (280, 600));
        assert!(figures[0]
            .svg
            .contains("class=\"chart-svg\" x=\"0\" y=\"300\" width=\"280\" height=\"300\""));
    }

    #[test]
    fn renderings_with_different_boxes_are_refused() {
        let err = attach(&page(760), "<p>none</p>", "p", "/").unwrap_err();
        assert!(err.contains("2 chart boxes"), "{err}");
    }

    /// Every page written as the site writer writes it: each chart box holding
    /// a plotters drawing names exactly one narrow copy in `<noscript>`, the
    /// copy is in the written folder (and not in the service worker's lists),
    /// drawn at the narrow width, and its smallest text, shown in the chart
    /// box of a 320 px screen, is at least 11 px.
    #[test]
    fn every_pages_charts_get_a_legible_narrow_copy_on_disk() {
        let ctx = crate::pages::tests::ctx();
        let parts = crate::parts().expect("summary");
        let dir = std::env::temp_dir().join(format!("ridgeline-figures-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let written = crate::pages::write_pages(&dir, &parts, &ctx).expect("pages written");
        let on_disk: Vec<String> = crate::compress::files_below(&dir.join(DIR))
            .expect("the _f folder")
            .iter()
            .filter_map(|p| p.strip_prefix(&dir).ok())
            .map(|p| p.to_string_lossy().replace('\\', "/"))
            .collect();
        let mut named = Vec::new();
        let mut smallest = f64::INFINITY;
        for route in crate::pages::Route::all() {
            let html = crate::read(&dir.join(route.file())).expect("page written");
            let charts = plot_boxes(&html)
                .iter()
                .filter(|b| {
                    layers(b.inner)
                        .iter()
                        .any(|l| l.content.contains("class=\"chart-svg\""))
                })
                .count();
            let tags: Vec<&str> = html
                .split("<noscript><img class=\"narrow-static\" src=\"/")
                .skip(1)
                .collect();
            assert_eq!(
                tags.len(),
                charts,
                "{}: one copy per chart box",
                route.file()
            );
            for tag in tags {
                let path = tag.split('"').next().unwrap_or_default();
                assert!(
                    path.starts_with(&format!("{DIR}/{}/", route.figure_dir())),
                    "{path}"
                );
                assert!(on_disk.iter().any(|f| f == path), "{path} is not on disk");
                let svg = crate::read(&dir.join(path)).expect("copy written");
                assert!(
                    svg.contains(&format!("width=\"{NARROW_WIDTH}\"")),
                    "{path} is not drawn at {NARROW_WIDTH} px"
                );
                assert!(tag.contains(&format!("width=\"{NARROW_WIDTH}\"")), "{tag}");
                assert_eq!(
                    svg.matches("<svg").count(),
                    svg.matches("</svg>").count(),
                    "{path}"
                );
                assert!(
                    !tag.contains("alt=\"chart\""),
                    "{path} has no text alternative"
                );
                let sizes = font_sizes(&svg);
                assert!(!sizes.is_empty(), "{path} has no text");
                for s in sizes {
                    smallest = smallest.min(s * PHONE_BOX / NARROW_WIDTH);
                }
                named.push(path.to_string());
            }
            if matches!(route.path(), "rooflines" | "training") {
                assert!(html.contains("class=\"narrow-static\""), "{}", route.file());
            }
        }
        assert!(smallest >= 11.0, "text shown at {smallest} px");
        named.sort();
        let mut listed = written.figures.clone();
        listed.sort();
        assert_eq!(named, listed, "the pages name exactly the copies written");
        let mut unique = on_disk.clone();
        unique.sort();
        assert_eq!(unique, listed, "nothing else is in {DIR}/");
        assert!(listed.len() >= 15, "only {} copies", listed.len());
        crate::scripts::write_service_worker(&dir, "/", &written.paths).expect("sw.js");
        let sw = crate::read(&dir.join("sw.js")).expect("sw.js written");
        assert!(
            !sw.contains("_f/"),
            "the service worker lists the narrow copies"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_stylesheet_shows_copies_only_without_scripts_on_narrow_screens() {
        let css = css();
        assert!(
            css.contains("@media screen and (max-width: 767px)"),
            "{css}"
        );
        assert!(
            css.contains(".plot:has(> noscript > img.narrow-static) > .layer { display: none; }")
        );
        assert!(css.contains("max-width: 427px"), "{css}");
        // The breakpoint is where the 760 px drawing's 12 px text reaches 11 px.
        let box_at_breakpoint = f64::from(NARROW_BELOW - 1) - 66.0;
        assert!(12.0 * box_at_breakpoint / 760.0 >= 11.0);
        assert!(12.0 * (box_at_breakpoint - 10.0) / 760.0 < 11.0);
    }
}
