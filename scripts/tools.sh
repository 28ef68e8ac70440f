#!/usr/bin/env bash
# Installs, only when missing, everything the build and the tests need, from the
# package registries alone (crates.io, npm, Debian). Sourced by serve.sh and test.sh.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BINARYEN_VERSION="132.0.0"
ESBUILD_VERSION="0.24.2"
export PATH="$HOME/.cargo/bin:$ROOT/.tools/node_modules/.bin:$PATH"

# A step's heading, with the minutes and seconds since the script started.
say() { printf '\033[1m==> [%d:%02d] %s\033[0m\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*"; }

wasm_bindgen_version() {
  # The version Cargo.lock pins; the CLI must match it exactly.
  awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' "$ROOT/Cargo.lock"
}

ensure_wasm_target() {
  if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    say "adding the wasm32-unknown-unknown target"
    rustup target add wasm32-unknown-unknown
  fi
}

ensure_wasm_bindgen() {
  local v
  v="$(wasm_bindgen_version)"
  if ! wasm-bindgen --version 2>/dev/null | grep -q " $v"; then
    say "installing wasm-bindgen-cli $v (matching Cargo.lock)"
    # Not --locked: its lockfile pins a crate version the registry does not serve.
    cargo install wasm-bindgen-cli --version "$v"
  fi
}

ensure_wasm_opt() {
  if ! wasm-opt --version 2>/dev/null | grep -q "version ${BINARYEN_VERSION%%.*}"; then
    say "installing wasm-opt from npm binaryen@$BINARYEN_VERSION"
    mkdir -p "$ROOT/.tools"
    [ -f "$ROOT/.tools/package.json" ] || echo '{"private": true}' > "$ROOT/.tools/package.json"
    (cd "$ROOT/.tools" && npm install --no-audit --no-fund --silent "binaryen@$BINARYEN_VERSION")
  fi
}

# esbuild minifies each bundle's wasm-bindgen glue, about a quarter of the
# glue's gzip size.
ensure_esbuild() {
  if ! esbuild --version 2>/dev/null | grep -qx "$ESBUILD_VERSION"; then
    say "installing esbuild $ESBUILD_VERSION from npm"
    mkdir -p "$ROOT/.tools"
    [ -f "$ROOT/.tools/package.json" ] || echo '{"private": true}' > "$ROOT/.tools/package.json"
    (cd "$ROOT/.tools" && npm install --no-audit --no-fund --silent "esbuild@$ESBUILD_VERSION")
  fi
}

ensure_node() {
  if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    say "installing Debian's nodejs and npm"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null
  fi
}

ensure_chromium() {
  if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    say "installing Debian's chromium and chromium-driver"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
  fi
}

ensure_e2e_deps() {
  if [ ! -d "$ROOT/tests/e2e/node_modules/playwright-core" ] || [ ! -d "$ROOT/tests/e2e/node_modules/axe-core" ]; then
    say "installing the end-to-end test packages (playwright-core, axe-core)"
    (cd "$ROOT/tests/e2e" && npm ci --no-audit --no-fund --silent)
  fi
}

# Starts installing the build tools; wasm-bindgen-cli, the one compiled from
# source, in the background, beside whatever the caller builds next (the page
# writer, the checks); wait_build_tools waits for it and fails if it failed.
tool_pids=()
start_build_tools() {
  ensure_node
  ensure_wasm_target
  ensure_wasm_opt
  ensure_esbuild
  ensure_wasm_bindgen &
  tool_pids+=("$!")
}

wait_build_tools() {
  local pid failed=0
  for pid in "${tool_pids[@]}"; do
    wait "$pid" || failed=1
  done
  tool_pids=()
  [ "$failed" -eq 0 ] || { say "a build tool failed to install"; return 1; }
}
