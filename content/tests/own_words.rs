//! Every chapter is in our own words: no run of ten words of its prose is also
//! a run of the book's prose. The book's text is not in the repository, only
//! the hashes of its word 10-grams (`data/book-10grams.bin`, regenerated from a
//! checkout of the book by `scripts/book-ngrams.sh`); how both are read is in
//! `ridgeline_content::ngrams`.

use ridgeline_content::ngrams::{decode, shared_runs};
use ridgeline_content::summary::parse_summary;

const CHAPTERS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../chapters");
const BOOK: &[u8] = include_bytes!("../../data/book-10grams.bin");

#[test]
fn no_chapter_shares_a_run_of_ten_words_with_the_book() {
    let book = decode(BOOK).expect("data/book-10grams.bin decodes");
    // The book's prose has tens of thousands of distinct 10-grams.
    assert!(book.len() > 30_000, "only {} hashes", book.len());
    let summary = std::fs::read_to_string(format!("{CHAPTERS}/SUMMARY.md")).expect("SUMMARY.md");
    let mut failures = Vec::new();
    let mut checked = 0;
    for part in parse_summary(&summary).expect("SUMMARY.md parses") {
        let Some(file) = part.file else { continue };
        let source = std::fs::read_to_string(format!("{CHAPTERS}/{file}")).expect("chapter");
        for run in shared_runs(&source, &book) {
            failures.push(format!("chapters/{file}: shares with the book: “{run}”"));
        }
        checked += 1;
    }
    assert!(checked >= 12, "only {checked} chapters");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
