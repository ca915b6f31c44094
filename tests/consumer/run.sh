#!/usr/bin/env bash
# consumer.install: installs the native build tree $1 into a temporary prefix, then configures,
# builds and runs tests/consumer against it with find_package(paywasm CONFIG REQUIRED).
set -euo pipefail
build=${1:?usage: run.sh <native build dir>}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
test -f "$tmp/prefix/include/paywasm/checkout.hpp" || { echo "consumer: headers not installed" >&2; exit 1; }
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S "$here" -B "$tmp/build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/build" >/dev/null
"$tmp/build/consumer"
