#!/usr/bin/env bash
# ctest wasm.features: which WebAssembly features each widget module needs, checked with wabt's
# wasm-validate (an implementation independent of Binaryen, which wrote the modules):
#   paywasm-nosimd.wasm  validates with the MVP + exception handling and nothing else (no SIMD);
#   paywasm.wasm         does not (it uses SIMD: so the first check can fail), and validates with
#                        the MVP + exception handling + SIMD.
# These are the floors docs/widget.md ("Supported browsers") states; web/src/core.js probes for
# exception handling and SIMD128 to pick the module.
# Usage: tests/wasm/features.sh WIDGET_DIR   (the wasm build's widget/ dir)
set -euo pipefail
DIR=${1:?usage: features.sh WIDGET_DIR}
fail() { printf 'wasm.features: FAIL: %s\n' "$*" >&2; exit 1; }
command -v wasm-validate >/dev/null || fail "wasm-validate is missing: run scripts/deps.sh (Debian package wabt)"

# wabt 1.0.32 enables these post-MVP features by default and exception handling not.
MVP=(--disable-mutable-globals --disable-saturating-float-to-int --disable-sign-extension --disable-simd
     --disable-multi-value --disable-bulk-memory --disable-reference-types)
for f in paywasm.wasm paywasm-nosimd.wasm; do
  [[ -f $DIR/$f ]] || fail "$DIR/$f is missing: build the wasm tree (make build)"
done

wasm-validate "${MVP[@]}" --enable-exceptions "$DIR/paywasm-nosimd.wasm" ||
  fail "paywasm-nosimd.wasm needs more than the MVP + exception handling (above: the first instruction it does not allow)"
echo "wasm.features: paywasm-nosimd.wasm: valid with the MVP + exception handling (no SIMD)"

if wasm-validate "${MVP[@]}" --enable-exceptions "$DIR/paywasm.wasm" 2>/dev/null; then
  fail "paywasm.wasm validates without SIMD: the SIMD check above would not notice SIMD"
fi
echo "wasm.features: paywasm.wasm: refused without SIMD (as it should be)"
SIMD=()
for flag in "${MVP[@]}"; do [[ $flag == --disable-simd ]] || SIMD+=("$flag"); done
wasm-validate "${SIMD[@]}" --enable-exceptions "$DIR/paywasm.wasm" ||
  fail "paywasm.wasm needs more than the MVP + exception handling + SIMD"
echo "wasm.features: paywasm.wasm: valid with the MVP + exception handling + SIMD"
