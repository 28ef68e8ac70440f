//! Placing labels and legends where they cover nothing: the one placement
//! helper every chart uses for point labels and legend boxes.
//!
//! plotters draws text where it is told; it has no notion of free space, so
//! this is ours. A [`Placer`] knows the plot area, the boxes already placed,
//! and the lines and points drawn (in pixels); [`Placer::place`] tries the
//! sides of an anchor at growing distances and takes the candidate that
//! overlaps the least (nothing, when there is room), always inside the area.

use plotters::chart::{ChartContext, SeriesLabelPosition};
use plotters::coord::cartesian::Cartesian2d;
use plotters::coord::ranged1d::Ranged;
use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, DrawingAreaErrorKind, DrawingBackend, RGBColor, Text};

use super::text::{legend_box, text_box};

/// Places `text`, drawn `size` units high in `colour`, beside `anchor` (at
/// least `gap` away) where it covers the least, and draws it there on `root`.
/// Returns the box it took.
pub fn draw_label<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    placer: &mut Placer,
    anchor: (i32, i32),
    text: &str,
    size: u32,
    colour: &RGBColor,
    gap: i32,
) -> Result<Rect, DrawingAreaErrorKind<DB::ErrorType>> {
    let r = placer.place(anchor, text_box(text, size), gap);
    root.draw(&Text::new(
        text,
        (r.x0 + 2, r.y0),
        super::style::font(size, colour),
    ))?;
    Ok(r)
}

/// A pixel rectangle, `x0 ≤ x1`, `y0 ≤ y1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rect {
    /// Left.
    pub x0: i32,
    /// Top.
    pub y0: i32,
    /// Right.
    pub x1: i32,
    /// Bottom.
    pub y1: i32,
}

impl Rect {
    /// The rectangle with top-left `(x, y)` and size `w` × `h`.
    pub fn new(x: i32, y: i32, w: i32, h: i32) -> Rect {
        Rect {
            x0: x,
            y0: y,
            x1: x + w.max(0),
            y1: y + h.max(0),
        }
    }

    /// From a plotters pixel range pair (`plotting_area().get_pixel_range()`).
    pub fn from_ranges(x: std::ops::Range<i32>, y: std::ops::Range<i32>) -> Rect {
        Rect {
            x0: x.start.min(x.end),
            y0: y.start.min(y.end),
            x1: x.start.max(x.end),
            y1: y.start.max(y.end),
        }
    }

    /// Width.
    pub fn w(&self) -> i32 {
        self.x1 - self.x0
    }

    /// Height.
    pub fn h(&self) -> i32 {
        self.y1 - self.y0
    }

    /// The area shared with `o`, in square pixels.
    pub fn overlap(&self, o: &Rect) -> i64 {
        let w = (self.x1.min(o.x1) - self.x0.max(o.x0)).max(0);
        let h = (self.y1.min(o.y1) - self.y0.max(o.y0)).max(0);
        i64::from(w) * i64::from(h)
    }

    /// Whether `o` lies wholly inside.
    pub fn contains(&self, o: &Rect) -> bool {
        o.x0 >= self.x0 && o.x1 <= self.x1 && o.y0 >= self.y0 && o.y1 <= self.y1
    }

    /// The same size moved (the least) to lie inside `area`, where it fits.
    fn inside(self, area: &Rect) -> Rect {
        let dx = if self.x1 > area.x1 {
            area.x1 - self.x1
        } else {
            0
        };
        let dx = if self.x0 + dx < area.x0 {
            area.x0 - self.x0
        } else {
            dx
        };
        let dy = if self.y1 > area.y1 {
            area.y1 - self.y1
        } else {
            0
        };
        let dy = if self.y0 + dy < area.y0 {
            area.y0 - self.y0
        } else {
            dy
        };
        Rect::new(self.x0 + dx, self.y0 + dy, self.w(), self.h())
    }

    /// Whether the segment `a`–`b` passes through the rectangle.
    pub fn crosses(&self, a: (i32, i32), b: (i32, i32)) -> bool {
        // Liang–Barsky clipping of the segment against the rectangle.
        let (x0, y0) = (f64::from(a.0), f64::from(a.1));
        let (dx, dy) = (f64::from(b.0) - x0, f64::from(b.1) - y0);
        let (mut t0, mut t1) = (0.0_f64, 1.0_f64);
        for (p, q) in [
            (-dx, x0 - f64::from(self.x0)),
            (dx, f64::from(self.x1) - x0),
            (-dy, y0 - f64::from(self.y0)),
            (dy, f64::from(self.y1) - y0),
        ] {
            if p == 0.0 {
                if q < 0.0 {
                    return false;
                }
            } else {
                let r = q / p;
                if p < 0.0 {
                    t0 = t0.max(r);
                } else {
                    t1 = t1.min(r);
                }
                if t0 > t1 {
                    return false;
                }
            }
        }
        true
    }
}

/// Free-space bookkeeping for one plot.
#[derive(Debug, Clone)]
pub struct Placer {
    area: Rect,
    taken: Vec<Rect>,
    segments: Vec<((i32, i32), (i32, i32))>,
}

/// Where a placed box may go relative to its anchor, in order of preference:
/// right-above first (how charts usually label a point), then the other sides.
const SIDES: [(i32, i32); 8] = [
    (1, -1),
    (1, 1),
    (-1, -1),
    (-1, 1),
    (1, 0),
    (-1, 0),
    (0, -1),
    (0, 1),
];

impl Placer {
    /// A placer for the plot `area`.
    pub fn new(area: Rect) -> Placer {
        Placer {
            area,
            taken: Vec::new(),
            segments: Vec::new(),
        }
    }

    /// The boxes placed or reserved so far.
    pub fn taken(&self) -> &[Rect] {
        &self.taken
    }

    /// Keeps labels off a box (a drawn label, a legend).
    pub fn avoid_box(&mut self, r: Rect) {
        self.taken.push(r);
    }

    /// Keeps labels off a polyline (a series or a roof), in pixels.
    pub fn avoid_line(&mut self, points: &[(i32, i32)]) {
        self.segments
            .extend(points.windows(2).map(|w| (w[0], w[1])));
    }

    /// Keeps labels off a point drawn with `radius` pixels.
    pub fn avoid_point(&mut self, p: (i32, i32), radius: i32) {
        self.taken.push(Rect::new(
            p.0 - radius,
            p.1 - radius,
            2 * radius,
            2 * radius,
        ));
    }

    /// How badly `r` sits: overlapped area first, then lines crossed.
    fn cost(&self, r: &Rect) -> i64 {
        let covered: i64 = self.taken.iter().map(|t| t.overlap(r)).sum();
        let crossed = self
            .segments
            .iter()
            .filter(|(a, b)| r.crosses(*a, *b))
            .count();
        let crossed = i64::try_from(crossed).unwrap_or(i64::MAX);
        covered * 16 + crossed * 400
    }

    /// Whether `r` covers nothing and crosses no line (`cost` of zero, found
    /// without adding up every overlap).
    fn free(&self, r: &Rect) -> bool {
        self.taken.iter().all(|t| t.overlap(r) == 0)
            && !self.segments.iter().any(|(a, b)| r.crosses(*a, *b))
    }

    /// Places a `w` × `h` box beside `anchor` (at least `gap` pixels away) where
    /// it covers nothing if it can, reserves it and returns it. The box is always
    /// inside the plot area (or at its top-left, if larger than the area).
    pub fn place(&mut self, anchor: (i32, i32), (w, h): (i32, i32), gap: i32) -> Rect {
        let mut best: Option<(i64, Rect)> = None;
        let reach = self.area.w().max(self.area.h()).max(1);
        let mut d = gap.max(1);
        while d <= reach {
            for (sx, sy) in SIDES {
                let x = match sx {
                    1 => anchor.0 + d,
                    -1 => anchor.0 - d - w,
                    _ => anchor.0 - w / 2,
                };
                let y = match sy {
                    1 => anchor.1 + d,
                    -1 => anchor.1 - d - h,
                    _ => anchor.1 - h / 2,
                };
                let r = Rect::new(x, y, w, h).inside(&self.area);
                let cost = self.cost(&r);
                if best.is_none_or(|(c, _)| cost < c) {
                    best = Some((cost, r));
                }
                if cost == 0 {
                    break;
                }
            }
            if best.is_some_and(|(c, _)| c == 0) {
                break;
            }
            d *= 2;
        }
        // Every side is taken (a crowded phone plot): the free spot nearest
        // the anchor anywhere in the area, searched ring by ring outwards on
        // a grid of `STEP` pixels (at most `LOOKS` boxes tried, so that a
        // redraw stays cheap when nowhere is free).
        if best.is_some_and(|(c, _)| c > 0) {
            const STEP: i32 = 10;
            const LOOKS: usize = 3000;
            let keep_off = Rect::new(anchor.0 - gap, anchor.1 - gap, 2 * gap, 2 * gap);
            let at = |dx: i32, dy: i32| {
                Rect::new(
                    anchor.0 + dx * STEP - w / 2,
                    anchor.1 + dy * STEP - h / 2,
                    w,
                    h,
                )
            };
            let mut looks = 0;
            let rings = (self.area.w().max(self.area.h()) / STEP).max(1);
            'rings: for k in 1..=rings {
                let ring = (-k..=k)
                    .flat_map(|dx| [(dx, -k), (dx, k)])
                    .chain((1 - k..k).flat_map(|dy| [(-k, dy), (k, dy)]));
                let mut found: Option<(i64, Rect)> = None;
                for (dx, dy) in ring {
                    let r = at(dx, dy);
                    if !self.area.contains(&r) {
                        continue;
                    }
                    looks += 1;
                    if r.overlap(&keep_off) == 0 && self.free(&r) {
                        let d = i64::from(dx).pow(2) + i64::from(dy).pow(2);
                        if found.is_none_or(|(e, _)| d < e) {
                            found = Some((d, r));
                        }
                    }
                    if looks >= LOOKS {
                        break;
                    }
                }
                if let Some((_, r)) = found {
                    best = Some((0, r));
                    break 'rings;
                }
                if looks >= LOOKS {
                    break;
                }
            }
        }
        let r = best.map_or(Rect::new(self.area.x0, self.area.y0, w, h), |(_, r)| r);
        self.taken.push(r);
        r
    }

    /// Places a legend box of `w` × `h` in the corner of the plot it covers
    /// least, reserves it and returns plotters' position for it (legends stay
    /// inside the plot, a few pixels from its edges).
    pub fn legend(&mut self, (w, h): (i32, i32)) -> SeriesLabelPosition {
        let a = self.area;
        let m = 6;
        let corners = [
            Rect::new(a.x1 - m - w, a.y1 - m - h, w, h),
            Rect::new(a.x0 + m, a.y0 + m, w, h),
            Rect::new(a.x1 - m - w, a.y0 + m, w, h),
            Rect::new(a.x0 + m, a.y1 - m - h, w, h),
        ];
        let Some(best) = corners.into_iter().min_by_key(|r| self.cost(r)) else {
            return SeriesLabelPosition::UpperLeft;
        };
        let best = best.inside(&a);
        self.taken.push(best);
        SeriesLabelPosition::Coordinate(best.x0 - a.x0, best.y0 - a.y0)
    }

    /// Places a legend of `entries` ([`legend_box`]'s size) as [`Placer::legend`] does.
    pub fn legend_for(&mut self, entries: &[super::style::Entry]) -> SeriesLabelPosition {
        let labels: Vec<&str> = entries.iter().map(|e| e.label.as_str()).collect();
        self.legend(legend_box(&labels, super::style::TICK))
    }
}

/// A placer for `chart`'s plotting area that keeps off `lines` (in data
/// coordinates): the series drawn so far.
pub fn placer_for<DB, X, Y>(
    chart: &ChartContext<'_, DB, Cartesian2d<X, Y>>,
    lines: &[&[(X::ValueType, Y::ValueType)]],
) -> Placer
where
    DB: DrawingBackend,
    X: Ranged,
    Y: Ranged,
    X::ValueType: Clone,
    Y::ValueType: Clone,
{
    let (xr, yr) = chart.plotting_area().get_pixel_range();
    let mut placer = Placer::new(Rect::from_ranges(xr, yr));
    for line in lines {
        let px: Vec<(i32, i32)> = line
            .iter()
            .map(|(x, y)| chart.backend_coord(&(x.clone(), y.clone())))
            .collect();
        placer.avoid_line(&px);
    }
    placer
}

/// The pieces of the vertical line at pixel column `x` from `top` to `bottom`
/// that stay `pad` pixels clear of every box in `boxes` (labels it would
/// otherwise cross): a guide or boundary line is interrupted where a label
/// sits, as a map's road is under a town's name. Pieces shorter than a pixel
/// are dropped; a line no box meets comes back whole.
pub fn vertical_runs(x: i32, top: i32, bottom: i32, boxes: &[Rect], pad: i32) -> Vec<(i32, i32)> {
    let (top, bottom) = (top.min(bottom), top.max(bottom));
    let mut cuts: Vec<(i32, i32)> = boxes
        .iter()
        .filter(|b| x >= b.x0 - pad && x <= b.x1 + pad)
        .map(|b| (b.y0 - pad, b.y1 + pad))
        .filter(|(a, b)| *b > top && *a < bottom)
        .collect();
    cuts.sort_unstable();
    let mut runs = Vec::new();
    let mut from = top;
    for (a, b) in cuts {
        if a > from {
            runs.push((from, a));
        }
        from = from.max(b);
    }
    if bottom > from {
        runs.push((from, bottom));
    }
    runs.retain(|(a, b)| b - a >= 1);
    runs
}

/// The points of every `<polyline>` of an SVG drawing whose tag contains
/// `with` (a style attribute such as `stroke-width="3"`), in pixels.
#[cfg(test)]
fn polylines(svg: &str, with: &str) -> Vec<Vec<(i32, i32)>> {
    svg.split("<polyline")
        .skip(1)
        .filter(|p| p.split('>').next().is_some_and(|tag| tag.contains(with)))
        .filter_map(|p| {
            let pts = p.split("points=\"").nth(1)?.split('"').next()?;
            Some(
                pts.split_whitespace()
                    .filter_map(|q| {
                        let (x, y) = q.split_once(',')?;
                        Some((x.parse().ok()?, y.parse().ok()?))
                    })
                    .collect(),
            )
        })
        .collect()
}

/// Every two-point `<polyline>` of an SVG drawing whose tag contains `with`
/// (a dashed line is drawn as one per dash), as pixel end points: for tests
/// that check what a dashed line crosses.
#[cfg(test)]
pub(crate) fn dashes(svg: &str, with: &str) -> Vec<((i32, i32), (i32, i32))> {
    polylines(svg, with)
        .into_iter()
        .filter_map(|xy| (xy.len() == 2).then(|| (xy[0], xy[1])))
        .collect()
}

/// Every segment of every `<polyline>`, `<line>` and merged `<path>` of an SVG drawing whose
/// tag contains `with` (a style attribute such as `stroke-width="3"`), in
/// pixels: for tests that check which lines a label crosses.
#[cfg(test)]
pub(crate) fn segments(svg: &str, with: &str) -> Vec<((i32, i32), (i32, i32))> {
    // plotters writes axes and grid lines as `<line>`s.
    let lines = svg
        .split("<line ")
        .skip(1)
        .filter_map(|l| l.split('>').next())
        .filter(|tag| tag.contains(with))
        .filter_map(|tag| {
            let num = |k: &str| {
                tag.split(&format!(" {k}=\""))
                    .nth(1)?
                    .split('"')
                    .next()?
                    .parse::<i32>()
                    .ok()
            };
            Some(((num("x1")?, num("y1")?), (num("x2")?, num("y2")?)))
        });
    // `backend::merge_strokes` writes runs of strokes as `<path>`s of moves
    // and lines.
    let paths = svg
        .split("<path ")
        .skip(1)
        .filter_map(|p| p.split('>').next())
        .filter(|tag| tag.contains(with))
        .filter_map(|tag| tag.split(" d=\"").nth(1)?.split('"').next())
        .flat_map(|d| {
            // Each move starts a run of points joined by lines.
            let runs: Vec<Vec<(i32, i32)>> = d
                .split('M')
                .filter(|s| !s.is_empty())
                .map(|run| {
                    run.split('L')
                        .filter_map(|xy| {
                            let mut n = xy.split_whitespace().map(|v| v.parse().ok());
                            Some((n.next()??, n.next()??))
                        })
                        .collect()
                })
                .collect();
            runs.into_iter()
                .flat_map(|xy| xy.windows(2).map(|w| (w[0], w[1])).collect::<Vec<_>>())
        });
    polylines(svg, with)
        .iter()
        .flat_map(|xy| xy.windows(2).map(|w| (w[0], w[1])))
        .chain(lines)
        .chain(paths)
        .collect()
}

/// Every `<text>` of an SVG drawing as plotters writes it, with the box it
/// takes by [`text_box`]'s estimate (from its position, anchor and font
/// size; [`text_box`] pads the glyphs by 2 pixels each side, as
/// [`draw_label`] draws them): for tests that check what a label covers.
#[cfg(test)]
pub(crate) fn texts(svg: &str) -> Vec<(String, Rect)> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| {
            let (tag, rest) = t.split_once('>')?;
            let body = rest.split("</text").next()?.trim().to_string();
            let attr = |k: &str| tag.split(&format!(" {k}=\"")).nth(1)?.split('"').next();
            let num = |k: &str| attr(k)?.parse::<f64>().ok();
            let (x, y, size) = (num("x")?, num("y")?, num("font-size")?);
            let (w, h) = text_box(&body, size.round() as u32);
            let x0 = match attr("text-anchor") {
                Some("end") => x as i32 - w + 2,
                Some("middle") => x as i32 - w / 2,
                _ => x as i32 - 2,
            };
            let y0 = match attr("dy") {
                Some("0.76em") => y as i32,
                Some("0.5ex") => y as i32 - h / 2,
                _ => y as i32 - h,
            };
            Some((body, Rect::new(x0, y0, w, h)))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const AREA: Rect = Rect {
        x0: 80,
        y0: 14,
        x1: 736,
        y1: 396,
    };

    #[test]
    fn a_label_avoids_a_line_through_its_first_choice() {
        let mut p = Placer::new(AREA);
        // A line rising through the space right-above the anchor.
        p.avoid_line(&[(300, 300), (500, 100)]);
        let r = p.place((400, 200), text_box("B = 64, I = 63", 13), 8);
        assert!(!r.crosses((300, 300), (500, 100)), "{r:?}");
        assert!(AREA.contains(&r));
    }

    #[test]
    fn a_crowded_plot_still_finds_its_one_free_spot() {
        let mut p = Placer::new(AREA);
        // Everything taken but a pocket at the top, far from the anchor and
        // on no side of it.
        let pocket = Rect::new(350, AREA.y0, 120, 46);
        p.avoid_box(Rect::from_ranges(AREA.x0..pocket.x0, AREA.y0..AREA.y1));
        p.avoid_box(Rect::from_ranges(pocket.x1..AREA.x1, AREA.y0..AREA.y1));
        p.avoid_box(Rect::from_ranges(pocket.x0..pocket.x1, pocket.y1..AREA.y1));
        let r = p.place((600, 300), (100, 20), 8);
        assert!(pocket.contains(&r), "{r:?} outside {pocket:?}");
        // With nowhere free, a box is still placed inside the area.
        let r = p.place((600, 300), (100, 20), 8);
        assert!(AREA.contains(&r), "{r:?}");
    }

    #[test]
    fn labels_near_the_edge_stay_inside() {
        let mut p = Placer::new(AREA);
        let r = p.place((AREA.x1 - 2, AREA.y0 + 2), (120, 18), 8);
        assert!(AREA.contains(&r), "{r:?}");
    }

    #[test]
    fn the_legend_takes_the_empty_corner() {
        let mut p = Placer::new(AREA);
        // A curve along the bottom: the upper corners are free; the preferred
        // lower-right one is not.
        p.avoid_line(&[(AREA.x0, AREA.y1 - 20), (AREA.x1, AREA.y1 - 30)]);
        let size = legend_box(&["HBM", "ICI"], 12);
        let pos = p.legend(size);
        let SeriesLabelPosition::Coordinate(_, y) = pos else {
            panic!("{pos:?}")
        };
        assert!(y < AREA.h() / 2, "legend at y = {y}");
    }

    #[test]
    fn segments_cross_or_miss() {
        let r = Rect::new(10, 10, 10, 10);
        assert!(r.crosses((0, 0), (30, 30)));
        assert!(r.crosses((15, 0), (15, 40)));
        assert!(!r.crosses((0, 0), (30, 0)));
        assert!(!r.crosses((0, 30), (5, 40)));
    }

    #[test]
    fn a_vertical_line_is_cut_around_the_boxes_it_meets() {
        let label = Rect::new(90, 40, 60, 16);
        let other = Rect::new(95, 100, 10, 10);
        let aside = Rect::new(200, 0, 50, 400);
        let runs = vertical_runs(100, 10, 300, &[other, label, aside], 2);
        assert_eq!(runs, vec![(10, 38), (58, 98), (112, 300)]);
        // No piece passes through any box.
        for (a, b) in &runs {
            for r in [label, other] {
                assert!(!r.crosses((100, *a), (100, *b)), "{a}-{b} crosses {r:?}");
            }
        }
        // A line beside every box is whole; one inside a box is gone.
        assert_eq!(vertical_runs(10, 300, 10, &[label], 2), vec![(10, 300)]);
        assert!(vertical_runs(100, 42, 50, &[label], 2).is_empty());
    }

    #[cfg(not(target_arch = "wasm32"))]
    proptest::proptest! {
        /// Up to eight labels around random anchors: every box inside the plot
        /// area and no two boxes overlapping.
        #[test]
        fn placed_boxes_never_overlap_and_stay_inside(
            anchors in proptest::collection::vec((90i32..720, 24i32..380), 1..8),
            lens in proptest::collection::vec(4usize..22, 8),
        ) {
            let mut p = Placer::new(AREA);
            let mut boxes = Vec::new();
            for (i, a) in anchors.iter().enumerate() {
                p.avoid_point(*a, 5);
                let text = "x".repeat(lens[i]);
                boxes.push(p.place(*a, text_box(&text, 13), 8));
            }
            for (i, b) in boxes.iter().enumerate() {
                proptest::prop_assert!(AREA.contains(b), "{b:?} outside");
                for c in &boxes[i + 1..] {
                    proptest::prop_assert_eq!(b.overlap(c), 0, "{:?} overlaps {:?}", b, c);
                }
            }
        }
    }
}
