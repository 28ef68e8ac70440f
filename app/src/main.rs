//! Makes the static page live; everything else lives in the library.

fn main() {
    ridgeline_app::islands::start();
}
