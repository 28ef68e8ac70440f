//! Mounts the app; everything else lives in the library.

fn main() {
    leptos::mount::mount_to_body(ridgeline_app::App);
}
