#!/usr/bin/env bash
# Performance figures: sizes, first load, load-to-interactive, input-to-redraw.
# Builds the release site first. Not part of the test command (figures, not tests).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/tools.sh"
ensure_chromium
ensure_e2e_deps
"$ROOT/scripts/build.sh" >/dev/null
node "$ROOT/tests/e2e/bench.mjs"
