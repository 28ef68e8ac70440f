#!/usr/bin/env bash
# Builds the static site into dist/ in release mode, installing tools if missing.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/tools.sh"
ensure_build_tools
cd "$ROOT"
cargo fetch --quiet
trunk build --release --offline=true "$@"
