//! Writes `data/book-10grams.bin`, the hashed word 10-grams of the book's prose
//! (see `ridgeline_content::ngrams`), from a checkout of the book's repository.
//!
//! ```text
//! cargo run -p ridgeline-content --example book_ngrams -- BOOK_CHECKOUT OUT_FILE
//! ```
//!
//! Run through `scripts/book-ngrams.sh`, which says where to get the book.

use ridgeline_content::ngrams::{encode, gram_hashes};

/// The book's chapters, one Markdown file per part, at the checkout's root.
const CHAPTERS: &[&str] = &[
    "index.md",
    "roofline.md",
    "tpus.md",
    "sharding.md",
    "transformers.md",
    "training.md",
    "applied-training.md",
    "inference.md",
    "applied-inference.md",
    "profiling.md",
    "jax-stuff.md",
    "conclusion.md",
    "gpus.md",
];

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [book, out] = args.as_slice() else {
        return Err("usage: book_ngrams BOOK_CHECKOUT OUT_FILE".into());
    };
    let mut all = Vec::new();
    for file in CHAPTERS {
        let path = std::path::Path::new(book).join(file);
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let h = gram_hashes(&text);
        eprintln!("{file}: {} 10-grams", h.len());
        all.extend(h);
    }
    all.sort_unstable();
    all.dedup();
    let bytes = encode(&all);
    std::fs::write(out, &bytes).map_err(|e| format!("{out}: {e}"))?;
    eprintln!("{out}: {} hashes in {} bytes", all.len(), bytes.len());
    Ok(())
}
