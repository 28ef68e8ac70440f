//! Where the pointer meets a chart: a pointer event's position in the drawing
//! units of a chart layer that CSS scales.

/// A pointer event's x position in the drawing units of a chart layer
/// (`element`, whose SVG was drawn `drawn_width` units wide and is scaled by CSS).
pub fn plot_x(element: &web_sys::HtmlElement, client_x: i32, drawn_width: u32) -> f64 {
    let rect = element.get_bounding_client_rect();
    let scale = if rect.width() > 0.0 {
        f64::from(drawn_width) / rect.width()
    } else {
        1.0
    };
    (f64::from(client_x) - rect.left()) * scale
}
