#!/usr/bin/env bash
# Builds the static site in release mode into dist/ (or $RIDGELINE_DIST),
# installing tools if missing.
#
# The site is one HTML document per route, written by ridgeline-site with the
# app's own components rendered natively, plus one WebAssembly bundle per group
# of parts (`bundle=` in chapters/SUMMARY.md) that makes each page's islands
# live: each bundle is compiled with only its parts' Cargo features (cargo,
# then wasm-bindgen, wasm-opt -Oz and esbuild for the glue) into
# _b/<bundle>/, then ridgeline-site writes the pages, stylesheet, service
# worker and precompressed copies. Options: --public-url /sub/path/ to host
# under a sub-path; --no-compress to leave out the precompressed copies (the
# live edit loop, whose server sends files as they are).
#
# A bundle whose inputs did not change is not built again: each build is kept
# in target/bundle-cache/<bundle>/<key>/, keyed on the sources its last build
# compiled (the app and core files Cargo's dep-info lists: a bundle compiles
# only its own widgets), the manifests and lock file, the toolchain and tools,
# and on what the app's build script generates for it from the chapters
# (`ridgeline-site bundle-inputs`: titles, sections, the widgets used, never
# the prose), so an edit to a chapter's text rebuilds only the pages, and an
# edit to a widget only the bundles that carry it.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/tools.sh"
# The tools install while the page writer compiles (it needs none of them).
start_build_tools
cd "$ROOT"

public_url="/"
compress=""
while [ $# -gt 0 ]; do
  case "$1" in
    --public-url) public_url="$2"; shift 2 ;;
    --public-url=*) public_url="${1#*=}"; shift ;;
    --no-compress) compress="--no-compress"; shift ;;
    *) echo "build.sh: unknown option $1 (only --public-url, --no-compress)" >&2; exit 2 ;;
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
wait_build_tools
target="${CARGO_TARGET_DIR:-$ROOT/target}"
cache="$target/bundle-cache"
sources_key="$(
  {
    rustc -vV; wasm-bindgen --version; wasm-opt --version; esbuild --version
    env | grep -E '^(RUSTFLAGS|CARGO_ENCODED_RUSTFLAGS|CARGO_PROFILE_|CARGO_BUILD_)' | sort
    sed -n '/^build_bundle()/,/^}/p' "$ROOT/scripts/build.sh"
    find Cargo.toml Cargo.lock .cargo app/Cargo.toml app/build.rs \
      core/Cargo.toml content/Cargo.toml -type f -print0 \
      | sort -z | xargs -0 sha256sum
  } | sha256sum | cut -c1-32
)"
# A bundle's key: the sources above, its features, what the app's build
# script generates for it (bundle-inputs), and the app and core sources its
# last build read (the list Cargo's dep-info gave, kept beside the build), or
# every app and core source when there is no list yet. A bundle compiles only
# its own widgets' modules, so an edit to one widget rebuilds the bundles
# that carry it. ridgeline-content and the chapters reach a bundle only
# through what bundle-inputs hashes.
bundle_key() { # name features chapters_key
  local reads="$cache/$1/reads"
  {
    echo "$sources_key $2 $3"
    if [ -f "$reads" ]; then
      xargs -a "$reads" -d '\n' sha256sum 2>&1 || echo "a file it read is gone"
    else
      find app/src core/src -type f -print0 | sort -z | xargs -0 sha256sum
    fi
  } | sha256sum | cut -c1-32
}
# The workspace sources (under app/ and core/) a bundle's build read, from
# the dep-info of the stream's target dir.
bundle_reads() { # dep-info file
  tr ' ' '\n' < "$1" | sed -n "s|^$ROOT/||p" | sed 's|^app/\.\./||' \
    | grep -E '^(app|core)/' | sort -u
}
# The bundles whose build is kept are copied; the others are listed to build,
# each line `name features chapters_key`.
mkdir -p "$stage/_b"
: > "$stage/.todo"
"$site" bundle-inputs > "$stage/.inputs"
while read -r name features chapters_key; do
  key="$(bundle_key "$name" "$features" "$chapters_key")"
  if [ -d "$cache/$name/$key" ]; then
    say "bundle $name ($features): unchanged, reused"
    cp -a "$cache/$name/$key" "$stage/_b/$name"
  else
    echo "$name $features $chapters_key" >> "$stage/.todo"
  fi
done < "$stage/.inputs"

build_bundle() { # name features chapters_key
  say "bundle $1 ($2)"
  local out="$stage/_b/$1" built="${CARGO_TARGET_DIR:-$target}/wasm32-unknown-unknown/release"
  mkdir -p "$out"
  {
    cargo build --release --offline --target wasm32-unknown-unknown -p ridgeline-app \
      --bin ridgeline-app --no-default-features --features "$2" &&
      wasm-bindgen --target web --no-typescript --out-dir "$out" --out-name ridgeline-app \
        "$built/ridgeline-app.wasm" &&
      wasm-opt -Oz --output "$out/ridgeline-app_bg.wasm" "$out/ridgeline-app_bg.wasm" &&
      esbuild "$out/ridgeline-app.js" --minify --format=esm --log-level=warning \
        --allow-overwrite --outfile="$out/ridgeline-app.js"
  } > "$stage/.log-$1" 2>&1 || { cat "$stage/.log-$1" >&2; return 1; }
  # Named by their content, so that a browser never runs a stale cached copy
  # (ridgeline-site writes the boot module that loads them).
  local hash
  hash="$(cat "$out/ridgeline-app_bg.wasm" "$out/ridgeline-app.js" | sha256sum | cut -c1-16)"
  mv "$out/ridgeline-app_bg.wasm" "$out/ridgeline-app-${hash}_bg.wasm"
  mv "$out/ridgeline-app.js" "$out/ridgeline-app-$hash.js"
  rm "$stage/.log-$1"
  rm -rf "$cache/$1"
  mkdir -p "$cache/$1"
  bundle_reads "${CARGO_TARGET_DIR:-$target}/wasm32-unknown-unknown/release/ridgeline-app.d" \
    > "$cache/$1/reads"
  local key
  key="$(bundle_key "$1" "$2" "$3")"
  cp -a "$stage/_b/$1" "$cache/$1/$key.part"
  mv "$cache/$1/$key.part" "$cache/$1/$key"
}

# A bundle's release build is mostly one thread (fat LTO into one codegen
# unit, then wasm-opt), so the bundles are built in RIDGELINE_BUILD_STREAMS
# streams at once (default: one per core, at most 2), each with a target dir
# of its own (Cargo locks a target dir for the whole build): the first stream
# uses the usual one, the others target/bundles-<n>. A stream's target dir
# starts as a copy of the first one's after its first bundle, so the release
# dependencies are compiled once.
streams="${RIDGELINE_BUILD_STREAMS:-$(nproc)}"
[ "$streams" -gt 2 ] && streams=2
[ "$streams" -lt 1 ] && streams=1
todo="$(wc -l < "$stage/.todo")"
[ "$todo" -lt "$streams" ] && streams="$todo"
if [ "$streams" -gt 1 ] && [ ! -d "$target/bundles-1/wasm32-unknown-unknown/release" ]; then
  read -r name features chapters_key < "$stage/.todo"
  build_bundle "$name" "$features" "$chapters_key"
  sed -i 1d "$stage/.todo"
  mkdir -p "$target/bundles-1/wasm32-unknown-unknown"
  cp -a "$target/wasm32-unknown-unknown/release" "$target/bundles-1/wasm32-unknown-unknown/"
  [ -d "$target/release" ] && cp -a "$target/release" "$target/bundles-1/"
fi
build_stream() {
  local n="$1" i=0 name features chapters_key
  [ "$n" -gt 0 ] && export CARGO_TARGET_DIR="$target/bundles-$n"
  while read -r name features chapters_key; do
    if [ $((i % streams)) -eq "$n" ]; then
      build_bundle "$name" "$features" "$chapters_key" || return 1
    fi
    i=$((i + 1))
  done < "$stage/.todo"
}
pids=()
for n in $(seq 0 $((streams - 1))); do
  build_stream "$n" &
  pids+=("$!")
done
for pid in "${pids[@]}"; do
  wait "$pid" || { kill "${pids[@]}" 2>/dev/null; wait; say "a bundle failed to build"; exit 1; }
done
rm "$stage/.todo" "$stage/.inputs"

say "pages"
# Compressed copies are kept in target/compressed/ and reused for files that
# did not change; copies no build has used for a week are dropped.
mkdir -p "$target/compressed"
find "$target/compressed" -type f -atime +7 -delete
RIDGELINE_COMPRESSED="$target/compressed" "$site" write "$stage" --public-url "$public_url" $compress
# Swapped in with two renames, so a server reading dist/ (the live loop) is
# without a site for as short a time as can be.
old=""
[ -e "$dist" ] && { old="$(mktemp -u "${dist%/}.old.XXXXXX")"; mv "$dist" "$old"; }
mv "$stage" "$dist"
[ -n "$old" ] && rm -rf "$old"
trap - EXIT
say "built $dist"
