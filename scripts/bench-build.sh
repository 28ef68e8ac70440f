#!/usr/bin/env bash
# Measures the edit loop's figures and prints them (medians of RUNS runs,
# default 3), against the budgets:
#   - a rebuild of the site with nothing changed (budget 30 s);
#   - a rebuild after an edit to a chapter's text (pages only, no wasm);
#   - a rebuild after an edit to one widget's source (only the bundle that
#     carries it: the torus widget, in the TPU part's bundle);
#   - the live loop (serve.sh --watch): from saving a chapter to the server
#     answering with the edited page (budget 3 s; the browser's reload adds
#     a page load).
# Run it after a full build (./scripts/build.sh); it works on copies of the
# chapters and of dist/, in a temporary folder.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/tools.sh"
cd "$ROOT"
runs="${RUNS:-3}"
tmp="$(mktemp -d)"
watcher=""
widget="app/src/widgets/torus.rs"
cp "$widget" "$tmp/widget.rs"
trap '[ -n "$watcher" ] && kill "$watcher" 2>/dev/null; cp "$tmp/widget.rs" "$ROOT/$widget"; rm -rf "$tmp"' EXIT
cp -r chapters "$tmp/chapters"
export RIDGELINE_CHAPTERS="$tmp/chapters" RIDGELINE_DIST="$tmp/dist"

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
seconds() { # command… — prints the wall time in seconds
  local start end
  start="$(date +%s.%N)"
  "$@" > "$tmp/out.log" 2>&1 || { cat "$tmp/out.log" >&2; return 1; }
  end="$(date +%s.%N)"
  awk "BEGIN { print $end - $start }"
}
edit() { # word — a sentence of prose into chapter 1 (no digits: the lint)
  cp "$ROOT/chapters/01-rooflines.md" "$tmp/chapters/01-rooflines.md"
  printf '\nA sentence added by the benchmark, edit %s.\n' "$1" >> "$tmp/chapters/01-rooflines.md"
}
widget_edit() { # word — a comment at the end of one widget's source (put back on exit)
  cp "$tmp/widget.rs" "$ROOT/$widget"
  printf '\n// An edit by the benchmark, %s.\n' "$1" >> "$ROOT/$widget"
}
# A word no earlier run wrote, so that no kept compressed copy has it.
fresh() { date +%s%N | tr 0-9 a-j; }

say "warming up (a full build into $tmp/dist)"
./scripts/build.sh > /dev/null

for i in $(seq "$runs"); do seconds ./scripts/build.sh; done | median > "$tmp/unchanged"
for i in $(seq "$runs"); do edit "$(fresh)"; seconds ./scripts/build.sh; done | median > "$tmp/prose"
for i in $(seq "$runs"); do widget_edit "$(fresh)"; seconds ./scripts/build.sh; done | median > "$tmp/widget"
cp "$tmp/widget.rs" "$ROOT/$widget"

node scripts/watch.mjs 0 > "$tmp/watch.log" 2>&1 &
watcher="$!"
until grep -q "serving on" "$tmp/watch.log"; do sleep 0.2; done
port="$(grep -o '127.0.0.1:[0-9]*' "$tmp/watch.log" | head -1 | cut -d: -f2)"
for i in $(seq "$runs"); do
  word="$(fresh)"
  start="$(date +%s.%N)"
  edit "$word"
  until curl -sf "http://127.0.0.1:$port/rooflines" | grep -q "edit $word"; do
    kill -0 "$watcher" 2>/dev/null || { cat "$tmp/watch.log" >&2; say "the live loop stopped"; exit 1; }
    [ "$(awk "BEGIN { print ($(date +%s.%N) - $start > 120) }")" = 1 ] && { say "no edited page after 120 s"; exit 1; }
    sleep 0.05
  done
  end="$(date +%s.%N)"
  awk "BEGIN { print $end - $start }"
  sleep 1
done | median > "$tmp/live"

printf '%-44s %8s %8s\n' "figure (median of $runs)" seconds budget
printf '%-44s %8.1f %8s\n' "rebuild, nothing changed" "$(cat "$tmp/unchanged")" 30
printf '%-44s %8.1f %8s\n' "rebuild after a chapter's text changed" "$(cat "$tmp/prose")" -
printf '%-44s %8.1f %8s\n' "rebuild after one widget's source changed" "$(cat "$tmp/widget")" -
printf '%-44s %8.1f %8s\n' "live loop: save to edited page served" "$(cat "$tmp/live")" 3
