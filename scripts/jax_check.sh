#!/usr/bin/env bash
# Runs every JAX program the code widget writes (`core/examples/jax_corpus.rs`)
# under JAX on 8 CPU devices, checks each result against the unsharded matmul,
# compares the compiled collectives with the planner's, and fails if
# tests/jax/agreement.md is stale (`scripts/jax_check.sh --write` regenerates
# it). The virtualenv, with JAX pinned, is made once under the target dir.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
JAX_VERSION="0.10.2"
target="${CARGO_TARGET_DIR:-$ROOT/target}"
venv="$target/jax-venv"
if ! "$venv/bin/python" -c "import jax, sys; sys.exit(jax.__version__ != '$JAX_VERSION')" 2>/dev/null; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet "jax[cpu]==$JAX_VERSION"
fi
mkdir -p "$target/jax"
cargo run --quiet -p ridgeline-core --example jax_corpus > "$target/jax/corpus.jsonl"
# XLA's warnings (C++ logging) go to stderr; keep only Python's.
XLA_FLAGS=--xla_force_host_platform_device_count=8 TF_CPP_MIN_LOG_LEVEL=2 \
  "$venv/bin/python" tests/jax/check.py "$target/jax/corpus.jsonl" tests/jax/agreement.md "$@"
