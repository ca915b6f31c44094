#!/usr/bin/env bash
# Makes the npm package of the widget from a built dist/ (run by scripts/dist.sh, so by `make dist`
# and by the widget.dist test): <dist>/paywasm-<version>.tgz, packed offline by `npm pack` from a
# staging dir holding
#   web/package/package.json (the manifest; its version set to dist's), web/package/README.md,
#   web/package/script.d.ts, LICENSE, CHANGELOG.md, and dist's paywasm.js, paywasm.mjs,
#   paywasm.wasm, paywasm-nosimd.wasm, paywasm.css (browsers without constructable stylesheets), paywasm-<lang>.json, paywasm.d.ts, integrity.json.
# The repository's own package.json is not this one: it stays private (the test tooling).
# Usage: scripts/pack.sh [DIST_DIR]   (default: dist); prints the tarball's path.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DIST=$(cd "${1:-$ROOT/dist}" && pwd)

die() { printf 'pack: error: %s\n' "$*" >&2; exit 1; }
command -v npm >/dev/null || die "npm is needed (scripts/deps.sh installs it)"

for f in paywasm.js paywasm.mjs paywasm.wasm paywasm-nosimd.wasm paywasm.css paywasm.d.ts integrity.json; do
  [[ -f $DIST/$f ]] || die "$DIST/$f is missing: run scripts/dist.sh first"
done
# The version dist was built with: the banner of paywasm.mjs ("/*! paywasm 0.2.0 | ...").
VERSION=$(sed -nE '1s/^\/\*! paywasm ([0-9]+\.[0-9]+\.[0-9]+[^ ]*) .*/\1/p' "$DIST/paywasm.mjs")
[[ -n $VERSION ]] || die "no version in the banner of $DIST/paywasm.mjs"

stage=$(mktemp -d "${TMPDIR:-/tmp}/paywasm-pack.XXXXXX")
trap 'rm -rf "$stage"' EXIT
cp "$DIST"/paywasm.js "$DIST"/paywasm.mjs "$DIST"/paywasm.wasm "$DIST"/paywasm-nosimd.wasm "$DIST"/paywasm.css "$DIST"/paywasm-*.json \
   "$DIST"/paywasm.d.ts "$DIST"/integrity.json "$stage/"
cp "$ROOT/web/package/README.md" "$ROOT/web/package/script.d.ts" "$ROOT/LICENSE" "$ROOT/CHANGELOG.md" "$stage/"
chmod 644 "$stage"/*   # the linker leaves the .wasm files executable; nothing in the package runs
node -e '
  const fs = require("fs");
  const [template, out, version] = process.argv.slice(1);
  const manifest = JSON.parse(fs.readFileSync(template, "utf8"));
  manifest.version = version;
  fs.writeFileSync(out, JSON.stringify(manifest, null, 2) + "\n");
' "$ROOT/web/package/package.json" "$stage/package.json" "$VERSION"

rm -f "$DIST"/paywasm-*.tgz
# --offline: nothing to fetch (no dependencies); --ignore-scripts: the manifest has none anyway.
(cd "$stage" && npm pack --offline --ignore-scripts --silent --pack-destination "$DIST" >/dev/null)
tgz=$DIST/paywasm-$VERSION.tgz
[[ -f $tgz ]] || die "npm pack did not write $tgz"
printf '%s\n' "$tgz"
