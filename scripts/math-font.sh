#!/usr/bin/env bash
# Regenerates public/fonts/ridgeline-math.woff2: Latin Modern Math
# (Debian's fonts-lmodern, pinned below; GUST Font License, see
# public/fonts/README.md) cut to the characters the chapters' MathML uses,
# as `ridgeline-site math-chars` names them, and nothing else: every page with
# math loads it. The font's MATH table keeps the size variants and assemblies
# of what is kept (stretchy brackets, large operators, the underbrace), each
# cut to its base glyph and the next two sizes: a taller fence is built from
# its assembly pieces (top, extender, bottom), as TeX does past its largest
# size; that saves 3 KB of the 22 KB, on every page with math. The
# script-size alternates (`ssty`) are left out: they would double the glyphs
# (48 KB instead of 22 KB before the sizes were cut) for a refinement a reader hardly sees; a script is
# the main glyph, scaled. Hinting is dropped; the name table keeps the
# copyright and licence records, and the cut takes a name of its own
# ("Ridgeline Math"), as the licence asks of a changed font.
#
# Run it after a chapter's math starts using a character the font lacks (the
# site test `the_shipped_math_font_covers_every_character_the_pages_math_uses`
# says so). Needs apt-get (Debian) and python3 with venv; fontTools and brotli
# are installed, pinned, into a venv under the target directory.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
LMODERN_VERSION="2.005-1"
FONTTOOLS_VERSION="4.55.3"
BROTLI_VERSION="1.1.0"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
WORK="$TARGET/math-font"
OUT="$ROOT/public/fonts/ridgeline-math.woff2"
mkdir -p "$WORK"

if [ ! -x "$WORK/venv/bin/pyftsubset" ]; then
  python3 -m venv "$WORK/venv"
  "$WORK/venv/bin/pip" install -q "fonttools==$FONTTOOLS_VERSION" "brotli==$BROTLI_VERSION"
fi
OTF="$WORK/x/usr/share/texmf/fonts/opentype/public/lm-math/latinmodern-math.otf"
if [ ! -f "$OTF" ]; then
  (cd "$WORK" && apt-get download "fonts-lmodern=$LMODERN_VERSION")
  dpkg-deb -x "$WORK/fonts-lmodern_${LMODERN_VERSION}_all.deb" "$WORK/x"
fi

USED="$(cd "$ROOT" && cargo run -q -p ridgeline-site -- math-chars)"
"$WORK/venv/bin/python" - "$OTF" "$WORK/pruned.otf" <<'PY'
import sys
from fontTools.ttLib import TTFont
font = TTFont(sys.argv[1])
variants = font["MATH"].table.MathVariants
for construction in list(variants.VertGlyphConstruction) + list(variants.HorizGlyphConstruction):
    construction.MathGlyphVariantRecord = construction.MathGlyphVariantRecord[:3]
    construction.VariantCount = len(construction.MathGlyphVariantRecord)
font.save(sys.argv[2])
PY
"$WORK/venv/bin/pyftsubset" "$WORK/pruned.otf" \
  --unicodes="$USED" \
  --layout-features='' \
  --no-hinting --desubroutinize --name-IDs=0,1,2,3,4,5,6,13,14 \
  --flavor=woff2 --output-file="$WORK/cut.woff2"
"$WORK/venv/bin/python" - "$WORK/cut.woff2" "$OUT" <<'PY'
import sys
from fontTools.ttLib import TTFont
font = TTFont(sys.argv[1])
names = {1: "Ridgeline Math", 3: "Ridgeline Math (cut of Latin Modern Math 1.959)",
         4: "Ridgeline Math", 6: "RidgelineMath-Regular"}
for record in font["name"].names:
    if record.nameID in names:
        record.string = names[record.nameID]
font.save(sys.argv[2])
PY
echo "wrote $OUT: $(wc -c <"$OUT") bytes"
