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
# glibc hands every block over 128 KiB back to the OS and page-faults it in
# again on the next allocation; the emulator's per-device buffers (256 KiB when
# C is gathered) then spend half their time in the kernel. The budget's
# platform, wasm, keeps its heap, so the native runs keep theirs too.
export GLIBC_TUNABLES="glibc.malloc.mmap_threshold=268435456:glibc.malloc.trim_threshold=268435456"
cargo bench --quiet -p ridgeline-core --bench core || status=1
cargo run --quiet --release -p ridgeline-core --example bench_core || status=1
unset GLIBC_TUNABLES
"$ROOT/scripts/build.sh" >/dev/null
node "$ROOT/tests/e2e/bench.mjs" || status=1
exit $status
