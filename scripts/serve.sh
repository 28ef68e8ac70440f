#!/usr/bin/env bash
# Builds the companion in release mode and serves it on http://127.0.0.1:8080/
# (PORT=… to change), installing whatever is missing first.
#
# --watch: the live edit loop. Every edit under chapters/, public/ or the
# sources rebuilds what it changes (a chapter's text: the pages only) and
# reloads the open pages; an error is shown in the page with its file and
# line, and the server keeps running (scripts/watch.mjs).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/tools.sh"
watch=false
for a in "$@"; do
  case "$a" in
    --watch) watch=true ;;
    *) echo "serve.sh: unknown option $a (only --watch)" >&2; exit 2 ;;
  esac
done
ensure_node
cd "$ROOT"
if $watch; then "$ROOT/scripts/build.sh" --no-compress; else "$ROOT/scripts/build.sh"; fi
if $watch; then
  exec node "$ROOT/scripts/watch.mjs" "${PORT:-8080}"
fi
say "serving on http://127.0.0.1:${PORT:-8080}/ (Ctrl-C to stop)"
exec node "$ROOT/tests/e2e/serve.mjs" "$ROOT/dist" "${PORT:-8080}"
