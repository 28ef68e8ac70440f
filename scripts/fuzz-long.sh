#!/usr/bin/env bash
# The fuzzers' long run, apart from the test command: every widget's
# parameters through a million random changes each, every distinct state they
# reach drawn, and every widget drawn from 2,000 random links each (the test
# command runs 100,000 and 150). Prints each fuzzer's time and each widget's
# renders; fails on the first broken promise, naming the widget and input.
# Options: CASES (default 1000000) and RENDERS (default 2000).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export RIDGELINE_FUZZ_CASES="${CASES:-1000000}" RIDGELINE_RENDER_CASES="${RENDERS:-2000}"
export RIDGELINE_FUZZ_TIMES=1
cargo test --release -p ridgeline-app --test native -- --nocapture \
  every_widgets_parameters_keep_their_promises every_widget_renders_any_link
