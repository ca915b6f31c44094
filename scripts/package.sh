#!/usr/bin/env bash
# `make package`: the Debian packages paywasm-merchant, paywasm and paywasm-sandbox (cmake/Package.cmake)
# from a built native tree, then lintian on them (an error or a warning fails; the info tags are
# explained in docs/packaging.md).
#   scripts/package.sh [NATIVE_BUILD_DIR [OUT_DIR]]   (default build/native, build/packages)
# The widget's files come from scripts/dist.sh, built into <native>/package-widget (the wasm tree
# must be built: make build). Prints the packages' paths, one a line, last.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$(cd "${1:-$ROOT/build/native}" && pwd)
OUT=${2:-$ROOT/build/packages}
say() { printf 'package: %s\n' "$*" >&2; }
die() { printf 'package: error: %s\n' "$*" >&2; exit 1; }
for tool in cpack dpkg-shlibdeps lintian fakeroot; do
  command -v "$tool" >/dev/null || die "$tool is missing (scripts/deps.sh installs it: dpkg-dev, lintian, fakeroot)"
done
[[ -f $BUILD/CPackConfig.cmake ]] || die "$BUILD is not a configured native tree (make build)"

# One version: the project's; the repository's package.json and its lock follow it.
version=$(sed -nE 's/^project\(paywasm VERSION ([0-9.]+).*/\1/p' "$ROOT/CMakeLists.txt")
npm_version=$(node -p 'require(process.argv[1]).version' "$ROOT/package.json")
lock_version=$(node -p 'require(process.argv[1]).version' "$ROOT/package-lock.json")
[[ $npm_version == "$version" && $lock_version == "$version" ]] ||
  die "package.json ($npm_version) and package-lock.json ($lock_version) must carry the project's version $version (CMakeLists.txt)"

# The programs and their man pages, up to date.
cmake --build "$BUILD" --target paywasm paywasm-merchant paywasm-sandbox paywasm_help >&2
widget=$(sed -nE 's/^PAYWASM_PACKAGE_WIDGET_DIR:PATH=(.*)/\1/p' "$BUILD/CMakeCache.txt")
# The wasm tree the native tree was configured with (make build: build/wasm), else dist.sh's default.
wasm=$(sed -nE 's/^PAYWASM_WASM_DIR:PATH=(.+)/\1/p' "$BUILD/CMakeCache.txt")
env PAYWASM_DIST_DIR="$widget" ${wasm:+PAYWASM_WASM_BUILD_DIR="$wasm"} "$ROOT/scripts/dist.sh" >&2 || die "the widget's files (scripts/dist.sh) failed"
[[ -f $widget/paywasm.js && -f $widget/paywasm.wasm ]] || die "no widget in $widget"

mkdir -p "$OUT"
rm -f "$OUT"/paywasm*.deb
# fakeroot: the files in the packages belong to root whoever builds them.
(cd "$BUILD" && fakeroot cpack --config "$BUILD/CPackConfig.cmake" -B "$OUT" >&2) || die "cpack failed"
debs=("$OUT"/paywasm*_"$version"_*.deb)
[[ ${#debs[@]} -eq 3 && -f ${debs[0]} ]] || die "expected 3 packages in $OUT, found: ${debs[*]}"
rm -rf "$OUT/_CPack_Packages"

# No error and no warning (either fails); the info tags it prints are explained in docs/packaging.md.
say "lintian:"
lintian --fail-on error,warning --display-info --suppress-tags-from-file "$ROOT/deploy/debian/lintian-overrides" "${debs[@]}" >&2 ||
  die "lintian reported an error or a warning"
printf '%s\n' "${debs[@]}"
