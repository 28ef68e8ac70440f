#!/usr/bin/env bash
# Builds the static site in release mode into dist/ (or $RIDGELINE_DIST),
# installing tools if missing.
#
# The site is one WebAssembly bundle per group of parts (`bundle=` in
# chapters/SUMMARY.md): Trunk builds each with only its parts' Cargo features
# into _b/<bundle>/, then scripts/assemble.py writes the root index.html and
# 404.html, the loader that starts the right bundle for the page, and the
# service worker. Options: --public-url /sub/path/ to host under a sub-path.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/tools.sh"
ensure_build_tools
cd "$ROOT"

public_url="/"
while [ $# -gt 0 ]; do
  case "$1" in
    --public-url) public_url="$2"; shift 2 ;;
    --public-url=*) public_url="${1#*=}"; shift ;;
    *) echo "build.sh: unknown option $1 (only --public-url)" >&2; exit 2 ;;
  esac
done
case "$public_url" in */) ;; *) public_url="$public_url/" ;; esac
case "$public_url" in /*) ;; *) public_url="/$public_url" ;; esac
dist="$(realpath -m "${RIDGELINE_DIST:-$ROOT/dist}")"

cargo fetch --quiet
stage="$(mktemp -d "${dist%/}.stage.XXXXXX")"
trap 'rm -rf "$stage"' EXIT
manifest="$(cargo run --quiet -p ridgeline-content --bin site-manifest -- --write-search "$stage")"

python3 - "$manifest" <<'PY' > "$stage/.bundles"
import json, sys
for b in json.loads(sys.argv[1])["bundles"]:
    print(b["name"], b["features"])
PY
while read -r name features; do
  say "bundle $name ($features)"
  trunk build --release --offline=true --public-url "${public_url}_b/$name/" \
    --dist "$stage/_b/$name" --no-default-features --features "$features"
done < "$stage/.bundles"
rm "$stage/.bundles"

python3 "$ROOT/scripts/assemble.py" "$stage" "$public_url" "$manifest"
rm -rf "$dist"
mv "$stage" "$dist"
trap - EXIT
say "built $dist"
