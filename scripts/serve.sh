#!/usr/bin/env bash
# Builds the companion in release mode and serves it on http://127.0.0.1:8080/,
# installing whatever is missing first.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/tools.sh"
ensure_build_tools
cd "$ROOT"
say "serving on http://127.0.0.1:${PORT:-8080}/ (Ctrl-C to stop)"
exec trunk serve --release --no-autoreload --port "${PORT:-8080}"
