//! Pixel conversions in one home. Plotters measures a drawing in `u32` sizes
//! and places it at `i32` coordinates, while the charts compute both from
//! floats, lengths and counts. Each conversion here saturates at the target's
//! range rather than wrapping, so an absurd input draws off the edge of a
//! chart instead of at a wrapped-around place, and no chart needs a bare `as`.

/// A coordinate from a float, toward zero: saturates at `i32::MIN` and
/// `i32::MAX`, and a `NaN` (never a position) is 0.
///
/// ```
/// use ridgeline_app::charts::px::px;
///
/// assert_eq!(px(12.9), 12);
/// assert_eq!(px(-3.5), -3);
/// assert_eq!(px(1e12), i32::MAX);
/// assert_eq!(px(f64::NAN), 0);
/// ```
#[allow(
    clippy::cast_possible_truncation,
    reason = "a float-to-int `as` saturates at the bounds and maps NaN to 0: the clamp wanted here"
)]
pub fn px(value: f64) -> i32 {
    value as i32
}

/// A size in pixels from a float, toward zero: saturates at `u32::MAX`, and a
/// negative size or a `NaN` is 0.
///
/// ```
/// use ridgeline_app::charts::px::size;
///
/// assert_eq!(size(640.7), 640);
/// assert_eq!(size(-5.0), 0);
/// assert_eq!(size(1e12), u32::MAX);
/// assert_eq!(size(f64::NAN), 0);
/// ```
#[allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    reason = "a float-to-int `as` saturates at the bounds and maps negatives and NaN to 0: the clamp wanted here"
)]
pub fn size(value: f64) -> u32 {
    value as u32
}

/// A coordinate from a pixel size, a length or a count (never negative),
/// saturating at `i32::MAX`.
///
/// ```
/// use ridgeline_app::charts::px::coord;
///
/// assert_eq!(coord(480_u32), 480);
/// assert_eq!(coord(3_usize), 3);
/// assert_eq!(coord(u32::MAX), i32::MAX);
/// ```
pub fn coord(value: impl TryInto<i32>) -> i32 {
    value.try_into().unwrap_or(i32::MAX)
}

/// A pixel size from a length or a count, saturating at `u32::MAX`.
///
/// ```
/// use ridgeline_app::charts::px::length;
///
/// assert_eq!(length(7_usize), 7);
/// assert_eq!(length(-1_i32), 0);
/// assert_eq!(length(u64::MAX), u32::MAX);
/// ```
pub fn length<T: TryInto<u32> + Default + PartialOrd>(value: T) -> u32 {
    if value < T::default() {
        return 0;
    }
    value.try_into().unwrap_or(u32::MAX)
}

/// Where a legend drawn below the plot starts: `below` pixels up from the
/// bottom of a drawing `height` pixels tall, with a 4-pixel margin.
pub fn legend_top(height: u32, below: u32) -> i32 {
    coord(height) - coord(below) - 4
}
