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
# A bundle's release build is mostly one thread (fat LTO into one codegen
# unit, then wasm-opt), so the bundles are built in RIDGELINE_BUILD_STREAMS
# streams at once (default: one per core, at most 2), each with a target dir
# of its own (Cargo locks a target dir for the whole build): the first stream
# uses the usual one, the others target/bundles-<n>.
target="${CARGO_TARGET_DIR:-$ROOT/target}"
streams="${RIDGELINE_BUILD_STREAMS:-$(nproc)}"
[ "$streams" -gt 2 ] && streams=2
[ "$streams" -lt 1 ] && streams=1
build_stream() {
  local n="$1" i=0 name features
  [ "$n" -gt 0 ] && export CARGO_TARGET_DIR="$target/bundles-$n"
  while read -r name features; do
    if [ $((i % streams)) -eq "$n" ]; then
      say "bundle $name ($features)"
      trunk build --release --offline=true --public-url "${public_url}_b/$name/" \
        --dist "$stage/_b/$name" --no-default-features --features "$features" \
        > "$stage/.log-$name" 2>&1 || { cat "$stage/.log-$name" >&2; return 1; }
      rm "$stage/.log-$name"
    fi
    i=$((i + 1))
  done < "$stage/.bundles"
}
pids=()
for n in $(seq 0 $((streams - 1))); do
  build_stream "$n" &
  pids+=("$!")
done
for pid in "${pids[@]}"; do
  wait "$pid" || { kill "${pids[@]}" 2>/dev/null; wait; say "a bundle failed to build"; exit 1; }
done
rm "$stage/.bundles"

say "pages"
"$site" write "$stage" --public-url "$public_url"
rm -rf "$dist"
mv "$stage" "$dist"
trap - EXIT
say "built $dist"
