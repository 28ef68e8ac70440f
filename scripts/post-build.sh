#!/usr/bin/env bash
# Trunk post-build hook: moves Trunk's inline loader script into a file, so the
# Content-Security-Policy can forbid inline scripts. scripts/assemble.py then
# starts that file from the site's own loader; a lone `trunk build` or
# `trunk serve` (one bundle with every part) also works as is.
set -euo pipefail
dir="${TRUNK_STAGING_DIR:?run by trunk}"
python3 - "$dir" <<'PY'
import hashlib, pathlib, re, sys
d = pathlib.Path(sys.argv[1])
index = d / "index.html"
html = index.read_text()
pattern = re.compile(r'<script type="module"[^>]*>(.*?)</script>', re.S)
scripts = [m for m in pattern.finditer(html) if 'src=' not in m.group(0).split('>')[0]]
if len(scripts) != 1:
    sys.exit(f"post-build: expected one inline loader script, found {len(scripts)}")
body = scripts[0].group(1)
name = "boot-" + hashlib.sha256(body.encode()).hexdigest()[:12] + ".js"
(d / name).write_text(body)
base = re.search(r'<base href="([^"]*)"', html)
prefix = base.group(1) if base else "/"
html = html[: scripts[0].start()] + f'<script type="module" src="{prefix}{name}"></script>' + html[scripts[0].end():]
if re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html):
    sys.exit("post-build: an inline script is left in index.html")
index.write_text(html)
(d / "404.html").write_text(html)
PY
