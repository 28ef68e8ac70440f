#!/usr/bin/env bash
# Builds the static site in release mode into dist/ (or $RIDGELINE_DIST),
# installing tools if missing.
#
# The site is one HTML document per route, written by ridgeline-site with the
# app's own components rendered natively, plus one WebAssembly bundle per group
# of parts (`bundle=` in chapters/SUMMARY.md) that makes each page's islands
# live: Trunk builds each bundle with only its parts' Cargo features into
# _b/<bundle>/, then ridgeline-site writes the pages, stylesheet, service
# worker and precompressed copies. Options: --public-url /sub/path/ to host
# under a sub-path.
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
cargo build --quiet -p ridgeline-site
site="$ROOT/target/debug/ridgeline-site"
[ -n "${CARGO_TARGET_DIR:-}" ] && site="$CARGO_TARGET_DIR/debug/ridgeline-site"
"$site" bundles > "$stage/.bundles"
while read -r name features; do
  say "bundle $name ($features)"
  trunk build --release --offline=true --public-url "${public_url}_b/$name/" \
    --dist "$stage/_b/$name" --no-default-features --features "$features"
done < "$stage/.bundles"
rm "$stage/.bundles"

say "pages"
"$site" write "$stage" --public-url "$public_url"
rm -rf "$dist"
mv "$stage" "$dist"
trap - EXIT
say "built $dist"
