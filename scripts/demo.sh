#!/usr/bin/env bash
# The demo shop on the sandbox payment service (run by `make demo`, after `make build`):
#   1. builds the widget into dist/ (scripts/dist.sh) when the widget sources are there;
#   2. starts build/bin/paywasm-sandbox on 127.0.0.1:$PORT, its data kept in build/sandbox;
#   3. prints the demo URL and the sandbox credentials; Ctrl-C stops it cleanly.
#
# Environment:
#   PORT        port to listen on (default 8080)
#   SPEED       sandbox clock speed-up (default 30: a crypto payment settles in about 10 seconds)
#   BANK_DAY    seconds in one bank working day (default 2: a bank payment settles in about 7 seconds)
#   PAYWASM_SANDBOX_DATA  data directory (default build/sandbox; delete it for a fresh merchant)
#   PAYWASM_BIN_DIR       where `make build` put the binaries (default build/bin)
#   PAYWASM_DIST_DIR      the widget files to serve (default dist; scripts/dist.sh reads it too)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PORT=${PORT:-8080}
SPEED=${SPEED:-30}
BANK_DAY=${BANK_DAY:-2}
DATA=${PAYWASM_SANDBOX_DATA:-$ROOT/build/sandbox}
BIN=${PAYWASM_BIN_DIR:-$ROOT/build/bin}
DIST=${PAYWASM_DIST_DIR:-$ROOT/dist}
SANDBOX=$BIN/paywasm-sandbox

say() { printf 'demo: %s\n' "$*"; }
die() { printf 'demo: error: %s\n' "$*" >&2; exit 1; }

[[ -x $SANDBOX ]] || die "$SANDBOX is missing: run \`make build\` first (or \`make demo\`, which does)"
[[ $PORT =~ ^[0-9]+$ ]] || die "PORT must be a number, not '$PORT'"
command -v node >/dev/null || die "node is needed (scripts/deps.sh installs it)"

# ---- 1. the widget --------------------------------------------------------------------------------
if [[ -f $ROOT/scripts/dist.sh && -d $ROOT/web ]]; then
  say "building the widget (dist/)"
  if ! bash "$ROOT/scripts/dist.sh"; then
    say "WARNING: the widget did not build; the page will say so (the sandbox API works without it)"
  fi
else
  say "no widget sources yet (web/): the page shows the shop and the merchant panel only"
fi

# ---- 2. the sandbox -------------------------------------------------------------------------------
mkdir -p "$DATA"
log=$(mktemp "${TMPDIR:-/tmp}/paywasm-demo.XXXXXX")
"$SANDBOX" --host 127.0.0.1 --port "$PORT" --data "$DATA" --speed "$SPEED" --bank-day "$BANK_DAY" \
  --site "$ROOT/demo/site" --dist "$DIST" >"$log" &
pid=$!

stop() {
  trap - INT TERM
  if kill -0 "$pid" 2>/dev/null; then
    say "stopping the sandbox"
    kill -TERM "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  rm -f "$log"
}
trap 'stop; exit 0' INT TERM
trap 'stop' EXIT

for _ in $(seq 1 100); do
  grep -q 'listening on' "$log" && break
  kill -0 "$pid" 2>/dev/null || { wait "$pid" || true; die "the sandbox did not start (port $PORT in use? try PORT=8081 make demo)"; }
  sleep 0.1
done
grep -q 'listening on' "$log" || die "the sandbox did not start within 10 seconds"
BASE="http://127.0.0.1:$PORT"

# ---- 3. what to open and what to use ---------------------------------------------------------------
node - "$BASE" "$DATA" <<'JS'
const [base, data] = process.argv.slice(2);
const m = await (await fetch(base + '/__sandbox/merchant')).json();
const line = (k, v) => console.log('  ' + k.padEnd(24) + v);
console.log('\npaywasm demo is running.\n');
line('Demo shop:', base + '/');
line('API base URL:', base + '/api');
line('Control API:', base + '/__sandbox/   (docs/sandbox.md)');
console.log('\nSandbox credentials (test values; kept in ' + data + '):');
line('merchant id:', m.merchantId);
line('merchant access token:', m.merchantAccessToken);
line('shopper access token:', m.shopperToken);
line('merchant public key:', data + '/merchant-public.pem');
line('webhook public key:', data + '/webhook-public.pem');
line('RSA padding:', m.padding);
console.log(`\nTry:  curl -H 'Authorization: Bearer ${m.shopperToken}' ${base}/api/users/me`);
console.log('Press Ctrl-C to stop.\n');
JS

wait "$pid"
