#!/usr/bin/env bash
# Regenerates data/book-10grams.bin, the hashes of every word 10-gram of the
# book's prose, which content/tests/own_words.rs checks every chapter against
# (a chapter may share no run of ten words with the book).
#
#   scripts/book-ngrams.sh BOOK_CHECKOUT
#
# BOOK_CHECKOUT is a work tree of the book's repository (the say4n/scaling-book
# fork, at the commit named in chapters/coverage/keypoints/), e.g.
#   git clone https://github.com/say4n/scaling-book && scripts/book-ngrams.sh scaling-book
# or, from a bare mirror: mkdir /tmp/book && git --git-dir=MIRROR archive HEAD -- '*.md' | tar -x -C /tmp/book
# How the prose is read and hashed: the docs of content/src/ngrams.rs.
set -euo pipefail
book=${1:?usage: scripts/book-ngrams.sh BOOK_CHECKOUT}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
cargo run --quiet -p ridgeline-content --example book_ngrams -- "$book" data/book-10grams.bin
