#!/usr/bin/env bash
# Benchmarks of the widget against the alternatives a merchant would use (run by `make bench`,
# after `make build`). Builds dist/ with scripts/dist.sh (what a merchant ships is what is
# measured), then runs bench/run.mjs in headless Chromium. Results: bench/results/latest.json,
# latest.md, chart.svg. See docs/bench.md.
#
# Options (passed on to bench/run.mjs):
#   --quick            short run for CI (< 60 s); gates only on the size budget (also BENCH_QUICK=1)
#   --gate all|size|none   which missed budgets make the exit status 1 (default: all; size with --quick)
#   --no-dist          measure the dist/ that is there, without rebuilding it
# Environment:
#   PAYWASM_WASM_BUILD_DIR  Emscripten build dir (default build/wasm; its symbol map names the functions)
#   PAYWASM_DIST_DIR        dist dir (default dist)
#   BENCH_OUT               results dir (default bench/results)
#   CHROMIUM                browser binary (default /usr/bin/chromium)
# Exit status: 0; 1 when a gated budget is missed; 2 when the run itself failed.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export PAYWASM_WASM_BUILD_DIR=${PAYWASM_WASM_BUILD_DIR:-$ROOT/build/wasm}
export PAYWASM_DIST_DIR=${PAYWASM_DIST_DIR:-$ROOT/dist}
OUT=${BENCH_OUT:-$ROOT/bench/results}

die() { printf 'bench: error: %s\n' "$*" >&2; exit 2; }

args=()
build_dist=1
for a in "$@"; do
  case $a in
    --no-dist) build_dist=0 ;;
    *) args+=("$a") ;;
  esac
done

command -v node >/dev/null || die "node is needed (apt-get install nodejs)"
command -v openssl >/dev/null || die "openssl is needed to check the ciphertexts (apt-get install openssl)"
[[ -d $ROOT/node_modules/playwright-core && -d $ROOT/node_modules/node-forge ]] \
  || die "npm packages are missing: run scripts/deps.sh (make deps)"

if ((build_dist)); then
  [[ -f $ROOT/scripts/dist.sh ]] || die "scripts/dist.sh does not exist yet (the widget is not built yet)"
  bash "$ROOT/scripts/dist.sh"
fi

exec node "$ROOT/bench/run.mjs" --dist "$PAYWASM_DIST_DIR" --build "$PAYWASM_WASM_BUILD_DIR" --out "$OUT" ${args[@]+"${args[@]}"}
