// Test harness for paywasm-merchant: the real gateway process beside a real sandbox, a shop app that
// checks every forwarded event's signature with Node's own HMAC (independent of our C++), and a
// throw-away PostgreSQL server for the multi-instance tests.
import { spawn, execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

import { exchangePayload, payExchange, sendJson, startSandbox } from '../server/harness.mjs';
import { WAIT_FLOOR_MS, freePort, holdPort, settlesWithin, sleep, tempDir, waitFor } from '../support/node.mjs';

// The shared helpers (tests/support/node.mjs), for the suites that import them from here; `tmpdir`
// is tempDir's older name, still imported by the browser and faults suites.
export { freePort, holdPort, settlesWithin, sleep, startSandbox, tempDir, tempDir as tmpdir, waitFor };
export const GATEWAY = process.env.PAYWASM_MERCHANT;
if (!GATEWAY) throw new Error('set PAYWASM_MERCHANT to the built paywasm-merchant');

export const SHOP_ORIGIN = 'http://shop.paywasm.test';
export const APP_SECRET = 'app-secret-' + crypto.randomBytes(16).toString('hex');
// Forwarded events are signed with their own key, never the app API's bearer.
export const EVENT_SECRET = 'event-secret-' + crypto.randomBytes(16).toString('hex');
// /metrics' own bearer: the app secret does not read it.
export const METRICS_TOKEN = 'metrics-token-' + crypto.randomBytes(16).toString('hex');


// Key files of a sandbox for the gateway's --merchant-public-key / --webhook-public-key.
export function keyFiles(sb, dir) {
  const merchant = path.join(dir, 'merchant-public.pem');
  const webhook = path.join(dir, 'webhook-public.pem');
  fs.writeFileSync(merchant, sb.merchant.publicKey);
  fs.writeFileSync(webhook, sb.merchant.webhookPublicKey);
  return { merchant, webhook };
}

// Starts paywasm-merchant on a free port against `sb`; resolves once it printed its address.
// `noDb`: no --db at all (the URL comes from PAYWASM_DB in `env`).
export async function startGateway(sb, { db, dir = tempDir('pwm-'), appCallback, extra = [], env = {}, port = 0,
  shopOrigin = SHOP_ORIGIN, serviceUrl = sb.base + '/api', noDb = false } = {}) {
  const keys = keyFiles(sb, dir);
  const args = [
    '--listen', `127.0.0.1:${port}`, '--service-url', serviceUrl, '--merchant-id', sb.merchant.merchantId,
    '--merchant-public-key', keys.merchant, '--webhook-public-key', keys.webhook,
    ...(shopOrigin === null ? [] : ['--shop-origin', shopOrigin]),
    ...(noDb ? [] : ['--db', db ?? 'sqlite:' + path.join(dir, 'gateway.db')]), '--retry-base-ms', '50',
    // Every test talks from 127.0.0.1 and makes many sessions and codes a minute: the rate limits
    // are lifted unless a test sets them (money.test.mjs tests them).
    '--session-rate', '0', '--qr-rate-per-client', '0', '--qr-rate-per-session', '0', '--attempt-rate-per-session', '0', '--attempt-rate-per-client', '0',
    ...(appCallback ? ['--app-callback', appCallback] : []), ...extra,
  ];
  const proc = spawn(GATEWAY, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PAYWASM_MERCHANT_TOKEN: sb.merchant.merchantAccessToken, PAYWASM_APP_SECRET: APP_SECRET, PAYWASM_EVENT_SECRET: EVENT_SECRET,
      PAYWASM_METRICS_TOKEN: METRICS_TOKEN, ...env },
  });
  let stderr = '';
  proc.stderr.on('data', (d) => { stderr += d; });
  const base = await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('gateway did not start: ' + stderr)), WAIT_FLOOR_MS * 2);
    proc.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/^paywasm-merchant: listening on (http:\/\/\S+)/m);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    });
    proc.on('exit', (code) => { clearTimeout(timer); reject(new Error(`gateway exited (${code}): ${stderr}`)); });
  });
  const exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  return {
    base, dir, proc, args,
    stderr: () => stderr,
    async stop(signal = 'SIGTERM') { proc.kill(signal); return exited; },
  };
}

// A request to the gateway. `app: true` sends the app secret; `origin` an Origin header.
export async function gw(g, method, p, { body, raw, app, token, origin, headers = {} } = {}) {
  const h = { ...headers };
  if (app) h.authorization = 'Bearer ' + APP_SECRET;
  if (token) h.authorization = 'Bearer ' + token;
  if (origin) h.origin = origin;
  if (body !== undefined || raw !== undefined) h['content-type'] ??= 'application/json';
  const r = await fetch(g.base + p, { method, headers: h, body: raw ?? (body === undefined ? undefined : JSON.stringify(body)) });
  const text = await r.text();
  let json = null;
  try { json = JSON.parse(text); } catch { /* the test looks at text */ }
  return { status: r.status, json, text, headers: r.headers };
}

// The Paywasm-Signature check, written from the docs with Node's crypto (not our C++).
export function verifyEvent(secret, body, header, toleranceS = 300) {
  const parts = Object.fromEntries(header.split(',').map((kv) => kv.trim().split('=')));
  const expected = crypto.createHmac('sha256', secret).update(`${parts.t}.${body}`).digest('hex');
  const ok = parts.v1 && parts.v1.length === expected.length &&
    crypto.timingSafeEqual(Buffer.from(parts.v1), Buffer.from(expected));
  return ok && Math.abs(Date.now() / 1000 - Number(parts.t)) <= toleranceS;
}

// The shop app's event endpoint: verifies each signature, records events, answers 500 while
// `failing` > 0 (counting down). `app.onEvent(event)`, when set, is called for each recorded event.
// `toleranceS`: how far the signature's time may be from ours (a gateway with a moved clock signs
// with its own time).
export async function startShopApp({ toleranceS = 300 } = {}) {
  const app = { events: [], bad: 0, failing: 0, deliveries: 0 };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', async () => {
      app.deliveries++;
      if (app.failing > 0) {
        app.failing--;
        res.writeHead(500).end('not now');
        return;
      }
      if (!verifyEvent(EVENT_SECRET, body, String(req.headers['paywasm-signature'] || ''), toleranceS)) {
        app.bad++;
        res.writeHead(400).end('bad signature');
        return;
      }
      app.events.push({ id: req.headers['paywasm-event-id'], body: JSON.parse(body) });
      if (app.onEvent) app.onEvent(app.events.at(-1));
      const held = app.hold?.(app.events.at(-1));  // a promise: the answer waits for it (the event is kept)
      if (held) await held;
      res.writeHead(204).end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  app.url = `http://127.0.0.1:${server.address().port}/paywasm-events`;
  app.close = () => new Promise((resolve) => server.close(resolve));
  return app;
}

// Reads an SSE stream; resolves the list of `data:` JSON objects when the server closes it or
// `until(events)` is true. `opened` resolves once the headers arrived; `first` once the first event
// did: the stream's read of the session (the gateway sends its headers, then reads the row), so a
// change made after `first` is on the stream after it, and one made after `opened` may be in it
// already. `events` is the list so far (waitFor(() => stream.events.some(...)) paces a test by
// what the stream saw). `onEvent(event)` is called as each event arrives (the load test takes its
// own clock there). `close()` ends it from this side. `timeoutMs`: when to give up on a stream
// that never ends (at least WAIT_FLOOR_MS, like waitFor).
export function sse(url, { origin, until = () => false, timeoutMs: asked = 15000, onEvent } = {}) {
  const timeoutMs = Math.max(asked, WAIT_FLOOR_MS);
  const u = new URL(url);
  let onOpen, onFirst, request;
  const opened = new Promise((resolve) => { onOpen = resolve; });
  const first = new Promise((resolve) => { onFirst = resolve; });
  const events = [];
  let timer;
  const done = new Promise((resolve, reject) => {
    const req = http.get({ host: u.hostname, port: u.port, path: u.pathname,
      headers: { accept: 'text/event-stream', ...(origin ? { origin } : {}) } }, (res) => {
      onOpen({ status: res.statusCode, headers: res.headers });
      let buf = '';
      res.on('data', (d) => {
        buf += d;
        let i;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const data = block.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n');
          if (data) {
            events.push({ at: Date.now(), ...JSON.parse(data) });
            if (events.length === 1) onFirst(events[0]);
            if (onEvent) onEvent(events.at(-1));
            if (until(events)) { req.destroy(); resolve(events); }
          }
        }
      });
      res.on('end', () => resolve(events));
      res.on('error', () => resolve(events));
    });
    request = req;
    req.on('error', (e) => (e.code === 'ECONNRESET' ? undefined : reject(e)));
    timer = setTimeout(() => { req.destroy(); reject(new Error(`SSE timed out after ${events.length} events: ${url}`)); }, timeoutMs);
    // Closed before an answer (reset, or destroyed by `until`): what arrived so far.
    req.on('close', () => resolve(events));
  }).finally(() => clearTimeout(timer));
  return { opened, first, events, done, close: () => request.destroy() };
}

// A throw-away PostgreSQL 15 server: initdb in a fresh directory owned by the `postgres` user
// (the server refuses to run as root), listening on 127.0.0.1 and a free port. stop()/start()
// let a test take it down and bring it back with the same data.
export async function startPostgres() {
  const bin = fs.readdirSync('/usr/lib/postgresql').sort().reverse().map((v) => `/usr/lib/postgresql/${v}/bin`)
    .find((d) => fs.existsSync(`${d}/initdb`));
  if (!bin) throw new Error('PostgreSQL is not installed (scripts/deps.sh installs it)');
  const root = process.getuid && process.getuid() === 0;
  const dir = tempDir('pwm-pg-');
  fs.chmodSync(dir, 0o755);
  const data = path.join(dir, 'data');
  const asPg = (cmd, args) => (root ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args]);
  if (root) execFileSync('chown', ['postgres:postgres', dir]);
  const [c1, a1] = asPg(`${bin}/initdb`, ['-D', data, '-U', 'paywasm', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  execFileSync(c1, a1, { stdio: 'ignore' });
  const port = await freePort();
  const log = path.join(dir, 'postgres.log');
  const ctl = (args) => {
    const [c, a] = asPg(`${bin}/pg_ctl`, ['-D', data, '-l', log, '-w', '-t', '30', ...args]);
    execFileSync(c, a, { stdio: 'ignore' });
  };
  let running = false;
  const pg = {
    port,
    url: `postgresql://paywasm@127.0.0.1:${port}/postgres`,
    async start() {
      ctl(['-o', `-h 127.0.0.1 -p ${port} -k ${dir} -c fsync=off -c max_connections=50`, 'start']);
      running = true;
    },
    // Fast shutdown: clients are disconnected, as when the database server goes away.
    async stop() {
      if (!running) return;
      running = false;
      ctl(['-m', 'fast', 'stop']);
    },
    async destroy() {
      try { await pg.stop(); } finally { fs.rmSync(dir, { recursive: true, force: true }); }
    },
  };
  await pg.start();
  return pg;
}

// The service's webhook for one transaction text, signed as the service signs it (RSASSA-PKCS1-v1_5,
// SHA-256 over data.data) with `privateKey` (a sandbox's: webhookPrivateKey(sb)); the unsigned
// copies beside data.data are the sandbox's (demo/sandbox/webhooks.cpp). `signature` may be a
// precomputed base64 value (the load test signs in the thread pool ahead of the run).
export function webhookBody(text, privateKey, signature) {
  const tx = JSON.parse(text);
  return JSON.stringify({
    type: 'rf:alert',
    data: {
      data: text, offerId: tx.meta?.offerId ?? null, transactionId: tx.id, amount: tx.amount ?? null,
      currency: tx.currency ?? null, status: tx.status, receivedAmount: tx.receivedAmount ?? null,
    },
    signature: signature ?? crypto.sign('sha256', Buffer.from(text), privateKey).toString('base64'),
  });
}

// The sandbox's PRIVATE webhook signing key (its data directory holds it), as a KeyObject.
// Keeps instance `g` busy the way a shop does: a session of a 5 USD order, then the service's signed
// "pending" webhook for it (sessions, transactions, webhook_events and outbox written in one
// transaction, NOTIFY to every instance). Resolves the webhook's answer, or null without one.
export async function sessionThenWebhook(g, key) {
  const offerId = 'busy-' + crypto.randomUUID();
  await gw(g, 'POST', '/v1/sessions', { app: true, body: { offerId, currency: 'USD',
    cart: [{ id: 'x', name: 'X', price: 5, quantity: 1 }],
    shippingAddress: { firstname: 'A', lastname: 'B', email: 'a@b.example', country: 'US' } } }).catch(() => {});
  const text = JSON.stringify({ id: crypto.randomUUID(), status: 0, nativeAmount: '5.00', nativeCurrency: 'USD', meta: { offerId } });
  return gw(g, 'POST', '/v1/webhooks', { raw: webhookBody(text, key) }).catch(() => null);
}

// An active subscription at sandbox `sb` (GET /__sandbox/subscriptions' row), for debits: a paid
// exchange payment of exchangePayload()'s cart, which has a subscription item.
export async function activeSubscription(sb) {
  const payment = await payExchange(sb, exchangePayload(sb.merchant), { exchange: 'coinbase' });
  if (payment.status !== 200) throw new Error(`the subscription's payment: ${payment.status} ${payment.text}`);
  const moved = await sendJson('POST', `${sb.base}/__sandbox/transactions/${payment.json.id}/advance`, { status: 1 });
  if (moved.status !== 200) throw new Error(`the subscription's payment not advanced: ${moved.status}`);
  return waitFor(async () => (await (await fetch(`${sb.base}/__sandbox/subscriptions`)).json())
    .find((x) => x.transactionId === payment.json.id && x.status === 'active'), 5000, 'an active subscription');
}

export function webhookPrivateKey(sb) {
  return crypto.createPrivateKey(fs.readFileSync(path.join(sb.dataDir, 'webhook-key.pem')));
}

// The id the gateway gives the event of one webhook: evt_ + the first 32 hex digits of SHA-256 of
// data.data (src/merchant/store/store_webhook.cpp), so a test can name every event it expects.
export function webhookEventId(text) {
  return 'evt_' + crypto.createHash('sha256').update(text).digest('hex').slice(0, 32);
}

// Events in `g`'s forwarding outbox not yet delivered to its --app-callback (the gauge
// paywasm_outbox_pending of /metrics; one outbox per database, so any instance of a PostgreSQL pair).
export async function outboxPending(g) {
  const r = await gw(g, 'GET', '/metrics', { token: METRICS_TOKEN });
  const m = /^paywasm_outbox_pending (\d+)$/m.exec(r.text);
  if (!m) throw new Error(`no paywasm_outbox_pending in /metrics (${r.status})`);
  return Number(m[1]);
}

// Resolves once the outbox holds no pending event: every event written so far has reached the app.
// The condition to wait for before asserting that something was forwarded once, or never.
export const outboxDrained = (g, ms = 10000) => waitFor(async () => (await outboxPending(g)) === 0, ms, 'the outbox to drain');
