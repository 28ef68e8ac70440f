//! One sizing path for every chart: a chart is drawn at its container's CSS
//! width, so one SVG unit is one CSS pixel and text drawn at 12 units reads as
//! 12 CSS pixels on any screen (SVG is sharp at any pixel density, so there is
//! no backing store to scale).
//!
//! A chart has a [`Shape`]: its design size on a wide screen and the smallest
//! height that keeps its labels apart on a narrow one. The stylesheet reserves
//! the box before any script runs, from the same numbers ([`Shape::style`]:
//! `height = max(min, width × ratio)` in container units), so the static figure
//! and the live one occupy the same box and redrawing at the measured size
//! moves nothing. The live widget measures the box with a `ResizeObserver`
//! ([`Frame`]) and redraws whenever its width changes (rotation, resize).
//!
//! The static page draws every chart at its design size. For readers without
//! JavaScript on a phone, the site writer renders each page a second time
//! inside [`drawn_at`], which makes every frame start at a phone's width
//! instead, and saves those drawings as files the page names in `<noscript>`
//! (`site/src/figures.rs`).

use super::px;
use leptos::html::Div;
use leptos::prelude::*;

/// A drawing size in CSS pixels (SVG user units).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Size {
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
}

/// How a chart's size follows its container's width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    /// The design width: the widest a chart is drawn (the `.plot` box's
    /// `max-width`), and the size of the static figure.
    pub width: u32,
    /// The height at the design width; narrower charts keep the proportion...
    pub height: u32,
    /// ...down to this height, below which labels would collide.
    pub min_height: u32,
}

/// The narrowest drawing: a 320 px phone less the page's and the widget's padding.
pub const MIN_WIDTH: u32 = 240;

impl Shape {
    /// A chart `width` × `height` on wide screens, never shorter than `min_height`.
    pub const fn new(width: u32, height: u32, min_height: u32) -> Shape {
        Shape {
            width,
            height,
            min_height,
        }
    }

    /// The drawing size in a container `css_width` pixels wide (rounded down,
    /// so the drawing never overflows its box). A width that is not a finite
    /// positive number (an element not laid out yet) gives the design size.
    pub fn at(self, css_width: f64) -> Size {
        if !(css_width.is_finite() && css_width > 0.0) {
            return self.design();
        }
        let width = px::size(css_width.floor()).clamp(MIN_WIDTH, self.width);
        let scaled = u64::from(self.height) * u64::from(width) / u64::from(self.width.max(1));
        Size {
            width,
            height: px::length(scaled).max(self.min_height),
        }
    }

    /// The design size: what the static page draws.
    pub fn design(self) -> Size {
        Size {
            width: self.width,
            height: self.height,
        }
    }

    /// The inline style of the chart's `.plot` box: the CSS variables from
    /// which the stylesheet computes the height that [`Shape::at`] draws.
    pub fn style(self) -> String {
        format!(
            "--chart-ratio: {}; --chart-min-h: {}px; max-width: {}px",
            f64::from(self.height) / f64::from(self.width.max(1)),
            self.min_height,
            self.width
        )
    }
}

#[cfg(not(target_arch = "wasm32"))]
thread_local! {
    /// The width every new [`Frame`] starts at instead of its design width,
    /// while [`drawn_at`] runs.
    static STATIC_WIDTH: std::cell::Cell<Option<f64>> = const { std::cell::Cell::new(None) };
}

/// Runs `render` with every [`Frame`] created in it starting at its size in a
/// container `css_width` pixels wide ([`Shape::at`]) instead of its design
/// size: the site writer draws a page's charts for a phone this way. Native
/// builds only (the browser measures the real box); the previous width is
/// restored afterwards, also if `render` panics.
#[cfg(not(target_arch = "wasm32"))]
pub fn drawn_at<T>(css_width: f64, render: impl FnOnce() -> T) -> T {
    /// Puts the previous width back when dropped.
    struct Restore(Option<f64>);
    impl Drop for Restore {
        fn drop(&mut self) {
            STATIC_WIDTH.with(|w| w.set(self.0));
        }
    }
    let _restore = Restore(STATIC_WIDTH.with(|w| w.replace(Some(css_width))));
    render()
}

/// The size a new frame of `shape` starts at: the design size, or its size at
/// the width [`drawn_at`] set.
fn starting_size(shape: Shape) -> Size {
    #[cfg(not(target_arch = "wasm32"))]
    if let Some(width) = STATIC_WIDTH.with(std::cell::Cell::get) {
        return shape.at(width);
    }
    shape.design()
}

/// A chart box being measured: put `node` on the `.plot` element and
/// `style` on it, and draw at `size`.
#[derive(Debug, Clone, Copy)]
pub struct Frame {
    /// The `.plot` element.
    pub node: NodeRef<Div>,
    /// The current drawing size.
    pub size: RwSignal<Size>,
    /// The chart's shape.
    pub shape: Shape,
}

impl Frame {
    /// A frame of `shape`, at its design size until measured. In the browser it
    /// follows the element's width once mounted.
    pub fn new(shape: Shape) -> Frame {
        let frame = Frame {
            node: NodeRef::new(),
            size: RwSignal::new(starting_size(shape)),
            shape,
        };
        #[cfg(target_arch = "wasm32")]
        frame.observe();
        frame
    }

    /// A frame for a drawing whose height follows its content rather than its
    /// width (the box takes the drawing's height): only the width is
    /// measured, at most `design_width`.
    pub fn width_only(design_width: u32) -> Frame {
        Frame::new(Shape::new(design_width, 0, 0))
    }

    /// The inline style for the `.plot` element.
    pub fn style(self) -> String {
        self.shape.style()
    }

    /// The current size, tracked.
    pub fn get(self) -> Size {
        self.size.get()
    }

    /// The current size, untracked (in event handlers).
    pub fn get_untracked(self) -> Size {
        self.size.get_untracked()
    }

    /// Watches the element's content width. Hand-written over `web-sys`
    /// because one observer is all the app needs (leptos-use would bring a
    /// large dependency tree for it).
    #[cfg(target_arch = "wasm32")]
    fn observe(self) {
        use wasm_bindgen::closure::Closure;
        use wasm_bindgen::JsCast;

        let Frame { node, size, shape } = self;
        Effect::new(move |done: Option<bool>| {
            if done == Some(true) {
                return true;
            }
            let Some(element) = node.get() else {
                return false;
            };
            let measure = move |width: f64| {
                let next = shape.at(width);
                if next != size.get_untracked() {
                    size.set(next);
                }
            };
            // No measuring here: reading the element's box now would force a
            // layout of the whole page at mount, once per chart (about 20 ms
            // of a cold load of /rooflines). A ResizeObserver always reports
            // its element once after the next layout, before that frame is
            // painted, so the chart is redrawn at its width before the reader
            // sees it; until then it is the static drawing's size.
            let callback =
                Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
                    for entry in entries.iter() {
                        if let Ok(entry) = entry.dyn_into::<web_sys::ResizeObserverEntry>() {
                            measure(entry.content_rect().width());
                        }
                    }
                });
            if let Ok(observer) = web_sys::ResizeObserver::new(callback.as_ref().unchecked_ref()) {
                observer.observe(&element);
            }
            // The observer lives as long as the page: an island is never unmounted.
            callback.forget();
            true
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROOF: Shape = Shape::new(760, 440, 300);

    #[test]
    fn a_width_only_frame_follows_the_width_and_draws_no_height() {
        let frame = Frame::width_only(760);
        assert_eq!(
            frame.get_untracked(),
            Size {
                width: 760,
                height: 0
            }
        );
        assert_eq!(
            frame.shape.at(500.0),
            Size {
                width: 500,
                height: 0
            }
        );
        assert_eq!(frame.shape.at(2000.0).width, 760);
    }

    #[test]
    fn wide_containers_get_the_design_size() {
        assert_eq!(ROOF.at(760.0), ROOF.design());
        assert_eq!(ROOF.at(1200.0), ROOF.design());
        assert_eq!(ROOF.at(f64::NAN), ROOF.design());
        assert_eq!(ROOF.at(0.0), ROOF.design());
    }

    #[test]
    fn narrow_containers_keep_the_proportion_down_to_the_minimum_height() {
        let s = ROOF.at(600.7);
        assert_eq!(s.width, 600);
        assert_eq!(s.height, 440 * 600 / 760);
        let phone = ROOF.at(310.0);
        assert_eq!(
            phone,
            Size {
                width: 310,
                height: 300
            }
        );
        assert_eq!(ROOF.at(100.0).width, MIN_WIDTH);
    }

    // `drawn_at` exists only where pages are written (native builds).
    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn frames_start_at_the_width_drawn_at_sets_and_only_inside_it() {
        let owner = Owner::new();
        owner.with(|| {
            assert_eq!(Frame::new(ROOF).get_untracked(), ROOF.design());
            let (phone, width_only) = drawn_at(280.0, || {
                (Frame::new(ROOF).get_untracked(), Frame::width_only(760))
            });
            assert_eq!(phone, ROOF.at(280.0));
            assert_eq!(
                phone,
                Size {
                    width: 280,
                    height: 300
                }
            );
            assert_eq!(width_only.get_untracked().width, 280);
            assert_eq!(Frame::new(ROOF).get_untracked(), ROOF.design());
            // Nested calls restore the outer width.
            drawn_at(500.0, || {
                drawn_at(280.0, || ());
                assert_eq!(Frame::new(ROOF).get_untracked().width, 500);
            });
            assert_eq!(Frame::new(ROOF).get_untracked(), ROOF.design());
        });
    }

    #[test]
    fn the_style_gives_the_stylesheet_the_same_numbers() {
        let style = ROOF.style();
        assert!(style.contains("--chart-min-h: 300px"), "{style}");
        assert!(style.contains("max-width: 760px"), "{style}");
        let ratio: f64 = style
            .split("--chart-ratio: ")
            .nth(1)
            .and_then(|s| s.split(';').next())
            .and_then(|s| s.parse().ok())
            .unwrap();
        assert!((ratio * 600.0 - f64::from(ROOF.at(600.0).height)).abs() < 1.0);
    }
}
