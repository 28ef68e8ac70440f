#!/usr/bin/env bash
# Performance figures: core micro-benchmarks (divan, then the native budget
# table), then sizes, first load,
# load-to-interactive, input-to-redraw and the emulator in wasm.
# Builds the release site first. Not part of the test command (figures, not tests).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/tools.sh"
ensure_chromium
ensure_e2e_deps
status=0
cargo bench --quiet -p ridgeline-core --bench core || status=1
cargo run --quiet --release -p ridgeline-core --example bench_core || status=1
"$ROOT/scripts/build.sh" >/dev/null
node "$ROOT/tests/e2e/bench.mjs" || status=1
exit $status
