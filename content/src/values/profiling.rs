//! Profiling values (Part 9): how much an array grows when XLA lays it out in
//! whole tiles, and how long a matmul should take on the book's TPU v2 cores.

use super::args::{count_of, dtype_arg, num_arg, show_arg, unknown_show};
use super::entry::ValueDirective;
use crate::directive::Directive;
use ridgeline_core::dtype::Dtype;
use ridgeline_core::format::{grouped, sci, seconds, si};
use ridgeline_core::hardware::TPU_V2_CORE_PEAK;
use ridgeline_core::profiling::book::measured;
use ridgeline_core::profiling::{predicted_matmul_time, TiledArray};

/// The profiling value directives.
pub const VALUES: &[ValueDirective] = &[
    ValueDirective {
        name: "tiling",
        args: &["dtype", "dims", "tile", "show"],
        doc:
            "an HLO array padded to whole tiles (Part 9): show=blowup (default), padded, bytes or \
          padded-bytes; dims=3,5 tile=2,2",
        example: "tiling dtype=f32 dims=3,5 tile=2,2 show=padded",
        shows: "[4, 6]",
        eval: tiling,
    },
    ValueDirective {
        name: "v2-matmul",
        args: &["b", "d", "f", "cores", "show"],
        doc: "a [b, d] by [d, f] matmul split over cores of a TPU v2 at the book's per-core bf16 \
              rate (Part 9): show=time (default) or flops",
        example: "v2-matmul b=32768 d=8192 f=32768 cores=8 show=time",
        shows: "95.6 ms",
        eval: v2_matmul,
    },
    ValueDirective {
        name: "book-time",
        args: &["id"],
        doc:
            "a time Part 9 reads off a profile, from core's profiling::book: a selected op's wall \
              duration (id=fusion.16, fusion.169, fusion.143, fusion.1), a bracketed layer \
              (id=viewer, layer) or a time the text reports (reduce-scatter, naive-layer, \
              fixed-layer, newer-naive-layer, newer-fixed-layer)",
        example: "book-time id=fusion.16",
        shows: "97 ms",
        eval: book_time,
    },
];

fn book_time(d: &Directive) -> Result<String, String> {
    let id = d.arg("id").ok_or("`book-time` needs id=")?;
    measured(id)
        .map(|t| seconds(t.0))
        .ok_or_else(|| format!("book-time id=`{id}` is no time the book reports"))
}

fn v2_matmul(d: &Directive) -> Result<String, String> {
    let b = num_arg(d, "b", None)?;
    let dm = num_arg(d, "d", None)?;
    let f = num_arg(d, "f", None)?;
    let cores = num_arg(d, "cores", None)?;
    if cores.fract() != 0.0 || !(1.0..=1024.0).contains(&cores) {
        return Err(format!(
            "v2-matmul cores=`{cores}` is not a whole number of cores"
        ));
    }
    match show_arg(d, "time") {
        "time" => {
            predicted_matmul_time(b, dm, f, count_of(cores, "cores")?, TPU_V2_CORE_PEAK.value)
                .map(|t| seconds(t.0))
                .map_err(|e| e.to_string())
        }
        "flops" => Ok(sci(2.0 * b * dm * f, 3)),
        o => Err(unknown_show(d, o, "time, flops")),
    }
}

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
