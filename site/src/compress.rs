//! Precompression: a static host (and `tests/e2e/serve.mjs`) serves `X.br` or
//! `X.gz` in place of `X` to a client that accepts it, so every compressible
//! file gets both copies at build time, at the highest levels.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use crate::{write, Error};

/// File endings worth compressing (wasm compresses to about a third).
const COMPRESSIBLE: &[&str] = &["html", "css", "js", "wasm", "svg", "txt", "json"];

/// Every file below `dir`, sorted.
pub fn files_below(dir: &Path) -> Result<Vec<PathBuf>, Error> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = std::fs::read_dir(&d).map_err(|e| format!("{}: {e}", d.display()))?;
        for entry in entries {
            let path = entry.map_err(|e| format!("{}: {e}", d.display()))?.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out.sort();
    Ok(out)
}

fn compressible(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| COMPRESSIBLE.contains(&e))
}

/// `bytes` gzipped at the best level.
pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    // Writing to a Vec cannot fail.
    let _ = enc.write_all(bytes);
    enc.finish().unwrap_or_default()
}

/// `bytes` gzipped by Zopfli: a gzip stream any client inflates, about 4 %
/// smaller than zlib's best level (every page's first load is served as
/// these files), at a hundred times the compression time, paid once per build.
pub fn zopfli_gzip(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let options = zopfli::Options::default();
    match zopfli::compress(options, zopfli::Format::Gzip, bytes, &mut out) {
        Ok(()) => out,
        // Writing to a Vec cannot fail; fall back to zlib all the same.
        Err(_) => gzip(bytes),
    }
}

/// `bytes` brotli-compressed at the best quality.
pub fn brotli(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut w = brotli::CompressorWriter::new(&mut out, 1 << 16, 11, 22);
        let _ = w.write_all(bytes);
    }
    out
}

/// Where compressed copies are kept between builds, when set (see [`keep_in`]).
static KEPT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();

/// Keeps every compressed copy in `dir`, named by a hash of what was
/// compressed, and takes it from there when the same bytes come again: a
/// rebuild compresses only the files that changed. Set once per process;
/// `scripts/build.sh` points it at `target/compressed/`.
pub fn keep_in(dir: &Path) -> Result<(), Error> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let _ = KEPT.set(dir.to_path_buf());
    Ok(())
}

/// The compressed copy of `bytes` made by `compress` (`gz` or `br`), from
/// the kept copies when they hold it.
fn compressed(bytes: &[u8], suffix: &str, compress: fn(&[u8]) -> Vec<u8>) -> Vec<u8> {
    let Some(dir) = KEPT.get() else {
        return compress(bytes);
    };
    let name = format!(
        "{}-{}.{suffix}",
        crate::scripts::long_hash(bytes),
        bytes.len()
    );
    let kept = dir.join(name);
    if let Ok(out) = std::fs::read(&kept) {
        return out;
    }
    let out = compress(bytes);
    // A copy that cannot be kept costs only the next build's time.
    let part = kept.with_extension(format!("{suffix}.part{}", std::process::id()));
    if std::fs::write(&part, &out).is_ok() {
        let _ = std::fs::rename(&part, &kept);
    }
    out
}

/// Writes `X.gz` and `X.br` beside every compressible file `X` below `dir`
/// that has no `X.gz` yet (so the bundles can be compressed before the pages
/// that state their size); returns how many files got them. Zopfli and
/// brotli 11 take seconds per bundle, so the files are shared among the
/// machine's cores, and taken from the kept copies ([`keep_in`]) when set.
pub fn compress_tree(dir: &Path) -> Result<usize, Error> {
    let todo: Vec<PathBuf> = files_below(dir)?
        .into_iter()
        .filter(|p| compressible(p) && !with_suffix(p, "gz").exists())
        .collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    let one = |path: &Path| -> Result<(), Error> {
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        write(
            &with_suffix(path, "gz"),
            compressed(&bytes, "gz", zopfli_gzip),
        )?;
        write(&with_suffix(path, "br"), compressed(&bytes, "br", brotli))
    };
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers.min(todo.len()))
            .map(|_| {
                scope.spawn(|| -> Result<(), Error> {
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        match todo.get(i) {
                            Some(path) => one(path)?,
                            None => return Ok(()),
                        }
                    }
                })
            })
            .collect();
        handles.into_iter().try_for_each(|h| {
            h.join()
                .unwrap_or_else(|_| Err("a compression thread panicked".to_string()))
        })
    })?;
    Ok(todo.len())
}

/// `path` with `.suffix` appended to its file name.
fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".");
    name.push(suffix);
    PathBuf::from(name)
}

/// What downloading every file below `dir` costs a reader, in bytes: the
/// precompressed `X.gz` where [`compress_tree`] wrote one (what a host serves),
/// else the file itself.
pub fn gzip_size_of_tree(dir: &Path) -> Result<f64, Error> {
    let mut total = 0u64;
    for path in files_below(dir)? {
        let ext = path.extension().and_then(|e| e.to_str());
        if matches!(ext, Some("gz" | "br")) {
            continue;
        }
        let served = with_suffix(&path, "gz");
        let served = if served.exists() { served } else { path };
        total += std::fs::metadata(&served)
            .map_err(|e| format!("{}: {e}", served.display()))?
            .len();
    }
    Ok(total as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read as _;

    #[test]
    fn both_copies_decompress_to_the_original() {
        let text = "ridgeline ".repeat(500);
        let mut back = String::new();
        flate2::read::GzDecoder::new(gzip(text.as_bytes()).as_slice())
            .read_to_string(&mut back)
            .expect("gzip round trip");
        assert_eq!(back, text);
        let mut back = Vec::new();
        brotli::Decompressor::new(brotli(text.as_bytes()).as_slice(), 4096)
            .read_to_end(&mut back)
            .expect("brotli round trip");
        assert_eq!(back, text.as_bytes());
        assert!(brotli(text.as_bytes()).len() < 100);
    }

    #[test]
    fn zopfli_gzip_inflates_to_the_original_and_is_no_larger_than_zlib() {
        // Text with some structure, as HTML and wasm have: repeats at many distances.
        let text: String = (0..4000)
            .map(|i| {
                format!(
                    "<p data-i=\"{}\">row {} of {}</p>",
                    i % 97,
                    i * 7 % 1013,
                    i / 3
                )
            })
            .collect();
        let z = zopfli_gzip(text.as_bytes());
        let mut back = String::new();
        flate2::read::GzDecoder::new(z.as_slice())
            .read_to_string(&mut back)
            .expect("zopfli gzip round trip");
        assert_eq!(back, text);
        assert!(
            z.len() <= gzip(text.as_bytes()).len(),
            "{} > zlib's {}",
            z.len(),
            gzip(text.as_bytes()).len()
        );
    }

    #[test]
    fn compresses_only_text_and_wasm() {
        let dir = std::env::temp_dir().join(format!("ridgeline-compress-{}", std::process::id()));
        write(&dir.join("a.html"), "<p>hi</p>".repeat(50)).expect("temp");
        write(&dir.join("sub/b.wasm"), [0u8; 300]).expect("temp");
        write(&dir.join("c.png"), [1u8; 10]).expect("temp");
        assert_eq!(compress_tree(&dir).expect("compresses"), 2);
        assert!(dir.join("a.html.br").exists() && dir.join("sub/b.wasm.gz").exists());
        assert!(!dir.join("c.png.gz").exists());
        // A second pass finds every copy written and compresses nothing again.
        assert_eq!(compress_tree(&dir).expect("compresses"), 0);
        let len = |p: &str| std::fs::metadata(dir.join(p)).expect("written").len() as f64;
        assert_eq!(
            gzip_size_of_tree(&dir).expect("sizes"),
            len("a.html.gz") + len("sub/b.wasm.gz") + len("c.png")
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
