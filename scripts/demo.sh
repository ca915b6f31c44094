#!/usr/bin/env bash
# The demo shop (run by `make demo`, after `make build`): what a merchant runs, on the sandbox service.
#   1. builds the widget into dist/ (scripts/dist.sh);
#   2. starts build/bin/paywasm-sandbox (the payment service) on 127.0.0.1:$((PORT+1)), data in build/sandbox;
#   3. starts build/bin/paywasm-merchant (the merchant gateway) on 127.0.0.1:$((PORT+2)), SQLite in build/demo;
#   4. starts demo/shop-app (the shop's own back end, plain Node) on 127.0.0.1:$PORT: the shop page,
#      sessions through the gateway, verified events from it;
#   5. points the sandbox's webhook at the gateway, prints the URLs and credentials; Ctrl-C stops all.
# The gateway's console (docs/merchant.md "The console") listens on 127.0.0.1:$((PORT+3)) with the user
# "demo", whose password is made once and kept in build/demo/console-password (printed at the end).
#
# Environment:
#   PORT        the shop's port (default 8080; the sandbox and the gateway take the next two)
#   SPEED       sandbox clock speed-up (default 30: a crypto payment settles in about 10 seconds)
#   BANK_DAY    seconds in one bank working day (default 2: a bank payment settles in about 7 seconds)
#   VERBOSE=1   access logs of the sandbox and the gateway (off by default: they flood the terminal)
#   PAYWASM_SANDBOX_DATA  sandbox data directory (default build/sandbox; delete it for a fresh merchant)
#   PAYWASM_DEMO_DIR      the gateway database, app secret and logs (default build/demo)
#   PAYWASM_BIN_DIR       where `make build` put the binaries (default build/bin)
#   PAYWASM_DIST_DIR      the widget files to serve (default dist; scripts/dist.sh reads it too)
#   PAYWASM_MERCHANT_ARGS more gateway options, space-separated (tests: --max-streams-per-client 1)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PORT=${PORT:-8080}
SPEED=${SPEED:-30}
BANK_DAY=${BANK_DAY:-2}
DATA=${PAYWASM_SANDBOX_DATA:-$ROOT/build/sandbox}
BIN=${PAYWASM_BIN_DIR:-$ROOT/build/bin}
DIST=${PAYWASM_DIST_DIR:-$ROOT/dist}
SANDBOX=$BIN/paywasm-sandbox
GATEWAY=$BIN/paywasm-merchant
DEMO=${PAYWASM_DEMO_DIR:-$ROOT/build/demo}

say() { printf 'demo: %s\n' "$*"; }
die() { printf 'demo: error: %s\n' "$*" >&2; exit 1; }

[[ -x $SANDBOX && -x $GATEWAY ]] || die "$SANDBOX or $GATEWAY is missing: run \`make build\` first (or \`make demo\`, which does)"
[[ $PORT =~ ^[0-9]+$ ]] || die "PORT must be a number, not '$PORT'"
command -v node >/dev/null || die "node is needed (scripts/deps.sh installs it)"
SANDBOX_PORT=$((PORT + 1))
GATEWAY_PORT=$((PORT + 2))
QUIET=(--quiet); GW_VERBOSE=()
[[ ${VERBOSE:-0} == 1 ]] && { QUIET=(); GW_VERBOSE=(--verbose); }

# ---- 1. the widget --------------------------------------------------------------------------------
say "building the widget (dist/)"
bash "$ROOT/scripts/dist.sh" || say "WARNING: the widget did not build; the page will say so"

# Stopping: Ctrl-C reaches every process of the terminal's foreground group, but the programs
# started with `&` below ignore SIGINT (a script without job control starts them so, whatever shell
# launched `make`), so this script stops them: on Ctrl-C, on SIGTERM or SIGHUP sent to it alone (a
# closed terminal, an IDE's stop button), and on any exit. A second Ctrl-C while they drain is
# ignored, so nothing is left running.
pids=()
stop() {
  trap '' INT TERM HUP
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  pids=()
}
trap 'stop; exit 0' INT TERM HUP
trap 'stop' EXIT

# start_logged [--stderr] LOG COMMAND...: COMMAND in the background with its stdout (and its stderr
# with --stderr) to LOG, which is emptied here first: a log of an earlier run cannot say "listening
# on" for this one, and LOG exists before await_start reads it. $! is COMMAND's pid afterwards.
start_logged() {
  local both=0
  [[ $1 == --stderr ]] && { both=1; shift; }
  local log=$1
  shift
  : >"$log"
  if ((both)); then "$@" >>"$log" 2>&1 & else "$@" >>"$log" & fi
  pids+=($!)
}

# Waits until `log` says "listening on", or the process `pid` died.
await_start() {
  local name=$1 pid=$2 log=$3
  for _ in $(seq 1 150); do
    grep -q 'listening on' "$log" && return 0
    kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; die "$name did not start (port in use? try PORT=9080 make demo)"; }
    sleep 0.1
  done
  die "$name did not start within 15 seconds"
}

# ---- 2. the sandbox (the payment service) -----------------------------------------------------------
mkdir -p "$DATA" "$DEMO"
chmod 0700 "$DEMO"
start_logged "$DEMO/sandbox.out" "$SANDBOX" --host 127.0.0.1 --port "$SANDBOX_PORT" --data "$DATA" --speed "$SPEED" \
  --bank-day "$BANK_DAY" --site "$ROOT/demo/site" --dist "$DIST" "${QUIET[@]}"
await_start "the sandbox" "$!" "$DEMO/sandbox.out"
SERVICE="http://127.0.0.1:$SANDBOX_PORT"
SHOP="http://127.0.0.1:$PORT"
GATEWAY_URL="http://127.0.0.1:$GATEWAY_PORT"
CONSOLE_URL="http://127.0.0.1:$((PORT + 3))"

# ---- 3. the merchant gateway --------------------------------------------------------------------------
# The demo's secrets: the sandbox's merchant token, and an app secret made once and kept in build/demo.
MERCHANT_JSON=$(curl -fsS "$SERVICE/__sandbox/merchant")
field() { node -e 'const v = JSON.parse(process.argv[1])[process.argv[2]]; process.stdout.write(String(v))' "$MERCHANT_JSON" "$1"; }
[[ -s $DEMO/app-secret ]] || (umask 077 && openssl rand -hex 32 >"$DEMO/app-secret")
[[ -s $DEMO/event-secret ]] || (umask 077 && openssl rand -hex 32 >"$DEMO/event-secret")
export PAYWASM_MERCHANT_TOKEN; PAYWASM_MERCHANT_TOKEN=$(field merchantAccessToken)
export PAYWASM_APP_SECRET; PAYWASM_APP_SECRET=$(cat "$DEMO/app-secret")
export PAYWASM_EVENT_SECRET; PAYWASM_EVENT_SECRET=$(cat "$DEMO/event-secret")
# The console's demo user, made once (a new password file: the user made again with it).
if [[ ! -s $DEMO/console-password ]]; then
  (umask 077 && openssl rand -base64 18 >"$DEMO/console-password")
  "$GATEWAY" console-user remove demo --db "sqlite:$DEMO/merchant.db" >/dev/null 2>&1 || true
  "$GATEWAY" console-user add demo --db "sqlite:$DEMO/merchant.db" <"$DEMO/console-password" >/dev/null
fi
start_logged "$DEMO/gateway.out" "$GATEWAY" --listen "127.0.0.1:$GATEWAY_PORT" --service-url "$SERVICE/api" \
  --console-listen "127.0.0.1:$((PORT + 3))" \
  --merchant-id "$(field merchantId)" --merchant-public-key "$DATA/merchant-public.pem" \
  --webhook-public-key "$DATA/webhook-public.pem" --shop-origin "$SHOP" --db "sqlite:$DEMO/merchant.db" \
  --app-callback "$SHOP/paywasm-events" --methods exchange,bank,qr --padding "$(field padding)" "${GW_VERBOSE[@]}" \
  --widget-dir "$DIST" --return-origin "$SHOP" --shop-name "paywasm demo shop" --public-url "$GATEWAY_URL" \
  --shopper-token-url "$SHOP/shop/shopper-token" --bank-account-id acct-sandbox-001 \
  ${PAYWASM_MERCHANT_ARGS:-}
await_start "the gateway" "$!" "$DEMO/gateway.out"
curl -fsS -X PUT -H 'Content-Type: application/json' -d "{\"url\": \"$GATEWAY_URL/v1/webhooks\"}" \
  "$SERVICE/__sandbox/webhook" >/dev/null

# ---- 4. the shop's own back end ---------------------------------------------------------------------------
start_logged --stderr "$DEMO/shop-app.out" node "$ROOT/demo/shop-app/server.mjs" --port "$PORT" --gateway "$GATEWAY_URL" \
  --gateway-public "$GATEWAY_URL" --sandbox "$SERVICE" --site "$ROOT/demo/site" --dist "$DIST"
await_start "the shop app" "$!" "$DEMO/shop-app.out"
tail -n +2 -f "$DEMO/shop-app.out" &
pids+=($!)

# ---- 5. what to open and what to use ---------------------------------------------------------------
# A payment link (docs/merchant.md "No front end?"): no shop page needed. The hosted page offers all
# three methods: exchange and bank with the shopper's token from the shop app (--shopper-token-url).
LINK_JSON=$(curl -fsS -X POST -H "Authorization: Bearer $PAYWASM_APP_SECRET" -H 'Content-Type: application/json' \
  -d "{\"name\":\"Demo mug\",\"currency\":\"USD\",\"cart\":[{\"id\":\"mug\",\"name\":\"Demo mug\",\"price\":12.5,\"quantity\":1}],\"methods\":[\"exchange\",\"bank\",\"qr\"],\"successUrl\":\"$SHOP/\"}" \
  "$GATEWAY_URL/v1/links")
LINK_URL=$(node -e 'process.stdout.write(JSON.parse(process.argv[1]).url)' "$LINK_JSON")
LINK_URL=$LINK_URL node - "$SHOP" "$SERVICE" "$GATEWAY_URL" "$DATA" "$DEMO" "$CONSOLE_URL" <<'JS'
const [shop, base, gateway, data, demo, consoleUrl] = process.argv.slice(2);
const consolePassword = (await import('node:fs')).readFileSync(demo + '/console-password', 'utf8').trim();
const m = await (await fetch(base + '/__sandbox/merchant')).json();
const line = (k, v) => console.log('  ' + k.padEnd(24) + v);
console.log('\npaywasm demo is running.\n');
line('Demo shop:', shop + '/');
line('Payment service API:', base + '/api   (the sandbox)');
line('Merchant gateway:', gateway + '   (docs/merchant.md)');
line('Payment link:', process.env.LINK_URL + '   (hosted checkout; its QR code below)');
line('Merchant console:', consoleUrl + '/   user demo, password ' + consolePassword + '   (docs/merchant.md)');
line('Control API:', base + '/__sandbox/   (docs/sandbox.md)');
line('Logs:', demo + '/{sandbox,gateway,shop-app}.out');
console.log('\nSandbox credentials (test values; kept in ' + data + '):');
line('merchant id:', m.merchantId);
line('merchant access token:', m.merchantAccessToken);
line('shopper access token:', m.shopperToken);
line('merchant public key:', data + '/merchant-public.pem');
line('webhook public key:', data + '/webhook-public.pem');
line('RSA padding:', m.padding);
line('gateway app secret:', demo + '/app-secret');
console.log(`\nTry:  curl -H 'Authorization: Bearer ${m.shopperToken}' ${base}/api/users/me`);
console.log('\nPayment link (a checkout page of the gateway, no shop page needed; all three methods): open it in');
console.log('a browser on this machine. The code below holds the same URL, as printed on an invoice or a poster:\n');
console.log('  ' + process.env.LINK_URL + '\n');
JS
"$BIN/paywasm" qr --format text "$LINK_URL"
say "Press Ctrl-C to stop."

wait "${pids[0]}"
