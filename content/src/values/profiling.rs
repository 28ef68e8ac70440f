//! Profiling values (Part 9): how much an array grows when XLA lays it out in
//! whole tiles.

use super::args::{dtype_arg, show_arg, unknown_show};
use super::entry::ValueDirective;
use crate::directive::Directive;
use ridgeline_core::dtype::Dtype;
use ridgeline_core::format::{grouped, sci, si};
use ridgeline_core::profiling::TiledArray;

/// The profiling value directives.
pub const VALUES: &[ValueDirective] = &[ValueDirective {
    name: "tiling",
    args: &["dtype", "dims", "tile", "show"],
    doc: "an HLO array padded to whole tiles (Part 9): show=blowup (default), padded, bytes or \
          padded-bytes; dims=3,5 tile=2,2",
    example: "tiling dtype=f32 dims=3,5 tile=2,2 show=padded",
    shows: "[4, 6]",
    eval: tiling,
}];

/// The comma-separated whole numbers given as `key=` (`dims=3,5`).
fn list_arg(d: &Directive, key: &str) -> Result<Vec<u64>, String> {
    let t = d
        .arg(key)
        .ok_or_else(|| format!("`{}` needs {key}=", d.name))?;
    t.split(',')
        .map(|x| {
            x.trim()
                .parse::<u64>()
                .map_err(|_| format!("{key}=`{t}` is not a list of whole numbers"))
        })
        .collect()
}

fn tiling(d: &Directive) -> Result<String, String> {
    let a = TiledArray::new(
        dtype_arg(d, "dtype", Dtype::F32)?,
        &list_arg(d, "dims")?,
        &list_arg(d, "tile")?,
    )
    .map_err(|e| e.to_string())?;
    let dims = |v: &[u64]| {
        v.iter()
            .map(|x| grouped(*x as f64))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match show_arg(d, "blowup") {
        "blowup" => Ok(sci(a.blowup(), 3)),
        "padded" => Ok(format!("[{}]", dims(&a.padded_shape()))),
        "bytes" => Ok(si(a.logical_bytes().0, "B", 3)),
        "padded-bytes" => Ok(si(a.padded_bytes().0, "B", 3)),
        o => Err(unknown_show(d, o, "blowup, padded, bytes, padded-bytes")),
    }
}
