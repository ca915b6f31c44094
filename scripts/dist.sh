#!/usr/bin/env bash
# Builds what a merchant ships into dist/ (run by `make dist`):
#   paywasm.js  paywasm.mjs  paywasm.wasm  paywasm-nosimd.wasm (for browsers without SIMD128)
#   paywasm-<lang>.json (one per language but English, fetched only for a shopper who reads it)
#   paywasm.css (the element's styles, fetched only by a browser without constructable stylesheets)
#   paywasm.d.ts  integrity.json (sha384 SRI of each)
# and the npm package of them, paywasm-<version>.tgz (scripts/pack.sh; not a file to host),
# and prints their sizes (gzip -9), with the budget check for each module a browser may get:
# paywasm.js + paywasm.wasm <= 80 KB gzipped, and paywasm.js + paywasm-nosimd.wasm <= 80 KB.
#
# The wasm comes from the Emscripten build dir (configured here from build/deps.env when it is not
# yet): targets paywasm_widget -> <dir>/widget/paywasm.wasm, paywasm_widget_nosimd ->
# <dir>/widget/paywasm-nosimd.wasm.
#
# Environment:
#   PAYWASM_WASM_BUILD_DIR  Emscripten build dir (default: build/wasm)
#   PAYWASM_DIST_DIR        output dir (default: dist)
#   PAYWASM_DEPS_ENV        paths file written by scripts/deps.sh (default: build/deps.env)
#   PAYWASM_JOBS            parallel build jobs (default: 2)
#   PAYWASM_SIZE_STRICT=1   fail when paywasm.js + either module exceeds the budget
# Options:
#   --sizes   also list the largest functions of the wasm (needs the symbol map of the build)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${PAYWASM_WASM_BUILD_DIR:-$ROOT/build/wasm}
OUT=${PAYWASM_DIST_DIR:-$ROOT/dist}
DEPS_ENV=${PAYWASM_DEPS_ENV:-$ROOT/build/deps.env}
JOBS=${PAYWASM_JOBS:-2}
BUDGET=$((80 * 1024))
export NODE_PATH=/usr/share/nodejs   # Debian's emcc needs it (acorn)

say() { printf 'dist: %s\n' "$*"; }
die() { printf 'dist: error: %s\n' "$*" >&2; exit 1; }

sizes=0
for a in "$@"; do
  case $a in
    --sizes) sizes=1 ;;
    *) die "unknown option $a (only --sizes)" ;;
  esac
done

command -v node >/dev/null || die "node is needed (apt-get install nodejs)"

# ---- 1. the wasm module -------------------------------------------------------------------------
if [[ ! -f $BUILD/CMakeCache.txt ]]; then
  [[ -f $DEPS_ENV ]] || die "$DEPS_ENV is missing: run scripts/deps.sh (make deps) first"
  # shellcheck disable=SC1090
  source "$DEPS_ENV"
  say "configuring the wasm build in $BUILD"
  emcmake cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release \
    -DPAYWASM_CRYPTOPP_WASM_DIR="$PAYWASM_CRYPTOPP_WASM_DIR" \
    -DPAYWASM_QRCODEGEN_SRC_DIR="$PAYWASM_QRCODEGEN_SRC_DIR" >/dev/null
fi
cmake --build "$BUILD" --target paywasm_widget paywasm_widget_nosimd -j"$JOBS"
WASM=$BUILD/widget/paywasm.wasm
NOSIMD=$BUILD/widget/paywasm-nosimd.wasm
for f in "$WASM" "$NOSIMD"; do
  [[ -f $f ]] || die "$f was not built"
done

# ---- 2. assemble ----------------------------------------------------------------------------------
# sha384 for integrity.json (what a page's <script integrity> names); the values built into the
# script (each module's) are sha256: as strong as SRI needs, and each value, incompressible, 20 B
# shorter in the script every shopper downloads.
sri() { printf '%s-%s' "${2:-sha384}" "$(openssl dgst "-${2:-sha384}" -binary "$1" | openssl base64 -A)"; }

VERSION=$(sed -nE 's/^project\(paywasm VERSION ([0-9.]+).*/\1/p' "$ROOT/CMakeLists.txt")
[[ -n $VERSION ]] || die "no project VERSION in CMakeLists.txt"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/paywasm-dist.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cp "$WASM" "$tmp/paywasm.wasm"
cp "$NOSIMD" "$tmp/paywasm-nosimd.wasm"
cp "$ROOT/web/paywasm.d.ts" "$tmp/paywasm.d.ts"
node "$ROOT/web/build.mjs" --out "$tmp" --version "$VERSION" --wasm-integrity "$(sri "$tmp/paywasm.wasm" sha256)" \
  --nosimd-integrity "$(sri "$tmp/paywasm-nosimd.wasm" sha256)"

{
  printf '{\n'
  first=1
  for f in paywasm.js paywasm.mjs paywasm.wasm paywasm-nosimd.wasm paywasm.css paywasm.d.ts $(cd "$tmp" && ls paywasm-*.json); do
    ((first)) || printf ',\n'
    first=0
    printf '  "%s": "%s"' "$f" "$(sri "$tmp/$f")"
  done
  printf '\n}\n'
} >"$tmp/integrity.json"

# Replace dist/ in one step, so a half-built dist never exists.
rm -rf "$OUT.old"
[[ -d $OUT ]] && mv "$OUT" "$OUT.old"
mkdir -p "$(dirname "$OUT")"
mv "$tmp" "$OUT"
chmod 755 "$OUT"
trap - EXIT
rm -rf "$OUT.old"

# ---- 3. sizes -------------------------------------------------------------------------------------
gz() { gzip -9 -c "$1" | wc -c; }
total=0
largest_locale=0
for f in paywasm.js paywasm.mjs paywasm.wasm paywasm-nosimd.wasm paywasm.css $(cd "$OUT" && ls paywasm-*.json) paywasm.d.ts integrity.json; do
  raw=$(wc -c <"$OUT/$f")
  z=$(gz "$OUT/$f")
  [[ $f == paywasm-*.json ]] && ((z > largest_locale)) && largest_locale=$z
  printf 'dist: %-19s %8d bytes  %7d gzip -9\n' "$f" "$raw" "$z"
done
# A browser downloads paywasm.js and one of the two modules: the budget holds for each pair.
over=0
for m in paywasm.wasm paywasm-nosimd.wasm; do
  total=$(( $(gz "$OUT/paywasm.js") + $(gz "$OUT/$m") ))
  printf 'dist: paywasm.js + %s = %d bytes gzip -9 (budget %d)\n' "$m" "$total" "$BUDGET"
  if ((total > BUDGET)); then
    # Reported here, fatal with PAYWASM_SIZE_STRICT=1 (widget.dist sets it: `make test` gates on it).
    say "OVER BUDGET with $m by $((total - BUDGET)) bytes (set PAYWASM_SIZE_STRICT=1 to fail here)"
    over=1
  fi
done
printf 'dist: a shopper in another language than English also gets one paywasm-<lang>.json: at most %d bytes more\n' "$largest_locale"

if ((sizes)); then
  map=$BUILD/widget/paywasm.wasm.symbols
  if [[ -f $map ]]; then
    say "code size per library and largest functions (names from $map):"
    node "$ROOT/web/wasm-sizes.mjs" "$OUT/paywasm.wasm" "$map" --top=25
  else
    say "no symbol map ($map): skipping the function list"
  fi
fi

if ((over)) && [[ ${PAYWASM_SIZE_STRICT:-0} == 1 ]]; then
  die "size budget exceeded"
fi

# ---- 4. the npm package ---------------------------------------------------------------------------
tgz=$(bash "$ROOT/scripts/pack.sh" "$OUT")
printf 'dist: %-18s %8d bytes  (npm package: scripts/pack.sh)\n' "$(basename "$tgz")" "$(wc -c <"$tgz")"
say "done: $OUT"
