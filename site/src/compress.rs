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

/// `bytes` brotli-compressed at the best quality.
pub fn brotli(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut w = brotli::CompressorWriter::new(&mut out, 1 << 16, 11, 22);
        let _ = w.write_all(bytes);
    }
    out
}

/// Writes `X.gz` and `X.br` beside every compressible file `X` below `dir`;
/// returns how many files got them.
pub fn compress_tree(dir: &Path) -> Result<usize, Error> {
    let mut n = 0;
    for path in files_below(dir)?.into_iter().filter(|p| compressible(p)) {
        let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let name = path.as_os_str().to_string_lossy();
        write(Path::new(&format!("{name}.gz")), gzip(&bytes))?;
        write(Path::new(&format!("{name}.br")), brotli(&bytes))?;
        n += 1;
    }
    Ok(n)
}

/// The gzip size of every file below `dir` (what downloading them all costs a
/// reader), in bytes.
pub fn gzip_size_of_tree(dir: &Path) -> Result<f64, Error> {
    let mut total = 0usize;
    for path in files_below(dir)? {
        let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        total += if compressible(&path) {
            gzip(&bytes).len()
        } else {
            bytes.len()
        };
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
    fn compresses_only_text_and_wasm() {
        let dir = std::env::temp_dir().join(format!("ridgeline-compress-{}", std::process::id()));
        write(&dir.join("a.html"), "<p>hi</p>".repeat(50)).expect("temp");
        write(&dir.join("sub/b.wasm"), [0u8; 300]).expect("temp");
        write(&dir.join("c.png"), [1u8; 10]).expect("temp");
        assert_eq!(compress_tree(&dir).expect("compresses"), 2);
        assert!(dir.join("a.html.br").exists() && dir.join("sub/b.wasm.gz").exists());
        assert!(!dir.join("c.png.gz").exists());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
