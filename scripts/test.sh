#!/usr/bin/env bash
# Runs every test: formatting, clippy (native and wasm32, warnings denied), docs,
# native unit/property/golden tests, the code widget's JAX programs under JAX
# (CPU), browser component tests in headless Chromium, and end-to-end tests of
# the built site. Installs what is missing.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/tools.sh"
cd "$ROOT"

# wasm-bindgen-cli, when missing, compiles while the checks run.
start_build_tools
ensure_chromium
ensure_e2e_deps
# One pass over a clean tree gains nothing from incremental caches, which here
# would add about 4 GB to target/ (set CARGO_INCREMENTAL=1 to keep them).
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
export CHROMEDRIVER="${CHROMEDRIVER:-$(command -v chromedriver)}"

say "cargo fmt --check"
cargo fmt --all --check

say "clippy (native, all targets, -D warnings)"
cargo clippy --workspace --all-targets --quiet -- -D warnings

say "clippy (wasm32 app, -D warnings)"
cargo clippy -p ridgeline-app --target wasm32-unknown-unknown --all-targets --quiet -- -D warnings
# The site's bundles compile subsets of the parts (cfg-gated widgets and
# exercises); the empty subset catches code that only compiles with all of them.
cargo clippy -p ridgeline-app --target wasm32-unknown-unknown --no-default-features --quiet -- -D warnings
cargo clippy -p ridgeline-app --target wasm32-unknown-unknown --no-default-features --features exercises --quiet -- -D warnings
cargo clippy -p ridgeline-app --target wasm32-unknown-unknown --no-default-features --features library --quiet -- -D warnings
cargo clippy -p ridgeline-core --no-default-features --quiet -- -D warnings

say "rustdoc (warnings denied)"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --quiet

say "native tests: unit, property, golden, chapter build"
cargo test --workspace --quiet

say "generated JAX programs under JAX on 8 CPU devices (tests/jax/agreement.md)"
"$ROOT/scripts/jax_check.sh"

wait_build_tools
say "browser component tests (wasm-bindgen-test in headless Chromium)"
cargo test -p ridgeline-app --target wasm32-unknown-unknown

say "release build of the site"
"$ROOT/scripts/build.sh"

say "end-to-end tests of the built site (Playwright over Chromium)"
node --test "$ROOT/tests/e2e/"
