#!/usr/bin/env bash
# Builds the companion in release mode and serves it on http://127.0.0.1:8080/
# (PORT=… to change), installing whatever is missing first.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/tools.sh"
ensure_node
cd "$ROOT"
"$ROOT/scripts/build.sh"
say "serving on http://127.0.0.1:${PORT:-8080}/ (Ctrl-C to stop)"
exec node "$ROOT/tests/e2e/serve.mjs" "$ROOT/dist" "${PORT:-8080}"
