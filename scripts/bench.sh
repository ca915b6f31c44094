#!/usr/bin/env bash
# Benchmarks of the widget against the alternatives a merchant would use (run by `make bench`,
# after `make build`). Builds dist/ with scripts/dist.sh (what a merchant ships is what is
# measured), then runs bench/run.mjs in headless Chromium, then bench/engines.mjs (cold start,
# encryption vs WebCrypto, QR and each wasm module's encryption in Chromium, Firefox ESR, WebKitGTK
# and WPE WebKit 2.38: engines.json, engines.md), then the gateway load benchmark
# (tests/load/gateway-load.mjs --bench: paywasm-merchant on SQLite and on PostgreSQL, from the
# native binaries of `make build`), and the hosted checkout's budgets (bench/hosted.mjs: a payment
# link to a usable form, plain and on the throttled phone profile, the page's transfer, 200 link
# openings a second on SQLite; briefly in --quick too), and the merchant console's budgets with
# 100,000 sessions on SQLite and PostgreSQL (bench/console.mjs). Results: bench/results/latest.json,
# latest.md, chart.svg, gateway-load.json, gateway-load.md, hosted.json, hosted.md, console.json,
# console.md. See docs/bench.md.
#
# Options (passed on to bench/run.mjs):
#   --quick            short run for CI (< 60 s); gates only on the size budget (also BENCH_QUICK=1)
#   --gate all|size|none   which missed budgets make the exit status 1 (default: all; size with --quick)
#   --no-dist          measure the dist/ that is there, without rebuilding it
#   --no-engines       skip the figures per engine (skipped in --quick mode too)
#   --no-gateway       skip the gateway load benchmark (it is skipped in --quick mode too: ctest
#                      load.gateway runs its short form)
#   --gateway-only     only the gateway load benchmark (no dist, no browser)
#   --no-hosted        skip the hosted checkout benchmark
# Environment:
#   PAYWASM_WASM_BUILD_DIR  Emscripten build dir (default build/wasm; its symbol map names the functions)
#   PAYWASM_DIST_DIR        dist dir (default dist)
#   BENCH_OUT               results dir (default bench/results)
#   CHROMIUM                browser binary (default /usr/bin/chromium)
#   PAYWASM_BIN_DIR         paywasm-merchant, paywasm-sandbox, paywasm for the gateway load (default build/bin)
# Exit status: 0; 1 when a gated budget is missed; 2 when the run itself failed (for the gateway
# load: something lost or duplicated; its throughput and latency targets are reported, not gated).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export PAYWASM_WASM_BUILD_DIR=${PAYWASM_WASM_BUILD_DIR:-$ROOT/build/wasm}
export PAYWASM_DIST_DIR=${PAYWASM_DIST_DIR:-$ROOT/dist}
OUT=${BENCH_OUT:-$ROOT/bench/results}

die() { printf 'bench: error: %s\n' "$*" >&2; exit 2; }

args=()
build_dist=1
widget=1
gateway=1
engines=1
hosted=1
[[ ${BENCH_QUICK:-} == 1 ]] && gateway=0 && engines=0
for a in "$@"; do
  case $a in
    --no-dist) build_dist=0 ;;
    --no-gateway) gateway=0 ;;
    --no-engines) engines=0 ;;
    --no-hosted) hosted=0 ;;
    --gateway-only) widget=0 ;;
    --quick) gateway=0; engines=0; args+=("$a") ;;
    *) args+=("$a") ;;
  esac
done

# The gateway's load benchmark: real processes (sandbox, gateway, PostgreSQL), figures and a
# pass/fail line per target in $OUT/gateway-load.md; then the streams benchmark (10,000 SSE streams
# and 1,000 slow-header connections on one instance, a webhook rate ramp; then two instances on
# PostgreSQL) in $OUT/gateway-streams.json and gateway-streams-postgres.json.
gateway_load() {
  local bin=${PAYWASM_BIN_DIR:-$ROOT/build/bin}
  for b in paywasm-merchant paywasm-sandbox paywasm; do
    [[ -x $bin/$b ]] || die "$bin/$b is missing: run make build (or set PAYWASM_BIN_DIR)"
  done
  PAYWASM_SANDBOX=$bin/paywasm-sandbox PAYWASM_CLI=$bin/paywasm PAYWASM_MERCHANT=$bin/paywasm-merchant \
    node "$ROOT/tests/load/gateway-load.mjs" --bench --out "$OUT" \
    || { printf 'bench: error: the gateway load run failed (see above)\n' >&2; return 2; }
  PAYWASM_SANDBOX=$bin/paywasm-sandbox PAYWASM_CLI=$bin/paywasm PAYWASM_MERCHANT=$bin/paywasm-merchant \
    node "$ROOT/tests/load/gateway-streams.mjs" --bench --out "$OUT" \
    || { printf 'bench: error: the gateway streams run failed (see above)\n' >&2; return 2; }
  PAYWASM_SANDBOX=$bin/paywasm-sandbox PAYWASM_CLI=$bin/paywasm PAYWASM_MERCHANT=$bin/paywasm-merchant \
    node "$ROOT/tests/load/gateway-streams.mjs" --bench --mode postgres --out "$OUT" \
    || { printf 'bench: error: the gateway streams run on PostgreSQL failed (see above)\n' >&2; return 2; }
  # The console's budgets: exit 1 is a missed budget (reported in console.md), anything else a failed run.
  local s=0
  PAYWASM_SANDBOX=$bin/paywasm-sandbox PAYWASM_CLI=$bin/paywasm PAYWASM_MERCHANT=$bin/paywasm-merchant \
    node "$ROOT/bench/console.mjs" --out "$OUT" || s=$?
  ((s <= 1)) || { printf 'bench: error: the console benchmark failed (see above)\n' >&2; return 2; }
}

# The hosted checkout (bench/hosted.mjs): real sandbox and gateway, Chromium; short with --quick.
hosted_bench() {
  local bin=${PAYWASM_BIN_DIR:-$ROOT/build/bin} quick_arg=()
  [[ " ${args[*]-} " == *" --quick "* || ${BENCH_QUICK:-} == 1 ]] && quick_arg=(--quick)
  PAYWASM_SANDBOX=$bin/paywasm-sandbox PAYWASM_CLI=$bin/paywasm PAYWASM_MERCHANT=$bin/paywasm-merchant NODE_PATH=$ROOT/node_modules \
    node "$ROOT/bench/hosted.mjs" --dist "$PAYWASM_DIST_DIR" --out "$OUT" ${quick_arg[@]+"${quick_arg[@]}"}
}

if ((!widget)); then
  command -v node >/dev/null || die "node is needed (apt-get install nodejs)"
  gateway_load
  exit $?
fi

command -v node >/dev/null || die "node is needed (apt-get install nodejs)"
command -v openssl >/dev/null || die "openssl is needed to check the ciphertexts (apt-get install openssl)"
[[ -d $ROOT/node_modules/playwright-core && -d $ROOT/node_modules/node-forge ]] \
  || die "npm packages are missing: run scripts/deps.sh (make deps)"

if ((build_dist)); then
  [[ -f $ROOT/scripts/dist.sh ]] || die "scripts/dist.sh does not exist yet (the widget is not built yet)"
  bash "$ROOT/scripts/dist.sh"
fi

status=0
node "$ROOT/bench/run.mjs" --dist "$PAYWASM_DIST_DIR" --build "$PAYWASM_WASM_BUILD_DIR" --out "$OUT" ${args[@]+"${args[@]}"} || status=$?
if ((engines)); then
  NODE_PATH=$ROOT/node_modules node "$ROOT/bench/engines.mjs" --dist "$PAYWASM_DIST_DIR" --out "$OUT" || status=2
fi
if ((hosted)); then
  hosted_bench || { rc=$?; ((rc > status)) && status=$rc; }
fi
if ((gateway)); then
  gateway_load || status=2
fi
exit $status
