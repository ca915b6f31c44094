#!/usr/bin/env bash
# The npm package of the widget (ctest package.npm, after widget.dist): the tarball scripts/pack.sh
# wrote into the dist dir
#   1. holds the files it should (and the manifest is the publishable one: not private, MIT);
#   2. publint --strict: no error, no warning;
#   3. attw --profile esm-only (ESM only: no CommonJS entry is offered): types resolve for every
#      JS and JSON entry under node16 (from ESM) and bundler; ./wasm and ./wasm-nosimd are assets,
#      not modules, so they are left out (they never resolve to types);
#   4. a TypeScript consumer (tests/package/consumer.ts) type-checks with tsc --noEmit, strict,
#      against the package installed from the tarball with `npm install --offline`, under
#      moduleResolution NodeNext and under bundler.
# Usage: tests/package/run.sh DIST_DIR [WORK_DIR]   (the tools from the checkout's node_modules)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE=$ROOT/tests/package
DIST=${1:?usage: run.sh DIST_DIR [WORK_DIR]}
WORK=${2:-$(mktemp -d "${TMPDIR:-/tmp}/paywasm-package.XXXXXX")}
BIN=$ROOT/node_modules/.bin
mkdir -p "$WORK"

fail() { printf 'package: FAIL: %s\n' "$*" >&2; exit 1; }
step() { printf '\npackage: == %s\n' "$*"; }

for tool in publint attw tsc; do
  [[ -x $BIN/$tool ]] || fail "$BIN/$tool is missing: run scripts/deps.sh (npm ci from package-lock.json)"
done
shopt -s nullglob
tarballs=("$DIST"/paywasm-*.tgz)
((${#tarballs[@]} == 1)) || fail "expected one $DIST/paywasm-*.tgz (scripts/dist.sh runs scripts/pack.sh), found ${#tarballs[@]}"
tgz=${tarballs[0]}

step "contents of $(basename "$tgz") ($(wc -c <"$tgz") bytes)"
listing=$(tar tzf "$tgz" | sort)
printf '%s\n' "$listing"
for f in package.json README.md LICENSE CHANGELOG.md paywasm.mjs paywasm.js paywasm.wasm paywasm-nosimd.wasm paywasm.css paywasm.d.ts \
         script.d.ts integrity.json paywasm-es.json; do
  grep -qxF "package/$f" <<<"$listing" || fail "the tarball has no $f"
done
manifest=$(tar xzOf "$tgz" package/package.json)
node -e '
  const m = JSON.parse(process.argv[1]);
  const want = { name: "paywasm", license: "MIT", type: "module" };
  for (const [k, v] of Object.entries(want)) if (m[k] !== v) throw new Error(`package.json ${k}: ${m[k]}`);
  if (m.private) throw new Error("package.json is private: the repository manifest was packed, not web/package/package.json");
  if (m.dependencies || m.devDependencies || m.scripts) throw new Error("package.json has dependencies or scripts");
' "$manifest" || fail "the manifest in the tarball"
for f in paywasm.wasm paywasm-nosimd.wasm; do
  cmp -s <(tar xzOf "$tgz" "package/$f") "$DIST/$f" || fail "$f in the tarball is not dist's"
done

step "publint --strict"
(cd "$WORK" && "$BIN/publint" run --strict "$tgz") || fail "publint"

step "attw --profile esm-only"
# (the tarball first: the entrypoint options take every argument after them)
"$BIN/attw" "$tgz" --profile esm-only --no-color --no-emoji --format table-flipped \
  --exclude-entrypoints ./wasm ./wasm-nosimd ./css --include-entrypoints ./locales/es.json || fail "attw"

step "tsc --noEmit: tests/package/consumer.ts against the installed tarball"
app=$WORK/consumer
rm -rf "$app"
mkdir -p "$app"
printf '{ "name": "paywasm-consumer", "private": true, "type": "module" }\n' >"$app/package.json"
cp "$HERE/consumer.ts" "$HERE/tsconfig.json" "$app/"
(cd "$app" && npm install --offline --ignore-scripts --no-audit --no-fund --loglevel=error "$tgz" >/dev/null) ||
  fail "npm install --offline $tgz"
[[ -f $app/node_modules/paywasm/paywasm.d.ts ]] || fail "npm install left no node_modules/paywasm/paywasm.d.ts"
(cd "$app" && "$BIN/tsc" -p tsconfig.json) || fail "tsc (moduleResolution NodeNext)"
echo "package: tsc (moduleResolution NodeNext, strict): no errors"
(cd "$app" && "$BIN/tsc" -p tsconfig.json --module preserve --moduleResolution bundler) || fail "tsc (moduleResolution bundler)"
echo "package: tsc (moduleResolution bundler, strict): no errors"

printf '\npackage: all checks passed (%s)\n' "$(basename "$tgz")"
