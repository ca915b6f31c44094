// The gateway behind a real reverse proxy, as docs/merchant.md tells operators to run it: Debian's
// nginx, started unprivileged by the test with deploy/nginx.conf (only its addresses changed and its
// TLS lines left out), in front of two paywasm-merchant instances on one real PostgreSQL server,
// both with --trusted-proxy 127.0.0.1. Everything goes through nginx: the app API, the browser API,
// the status stream and the sandbox's webhooks.
//
// A QR payment's status is streamed through nginx by a client that behaves as the widget's
// EventSource does (web/src/net.js watch()): on a cut stream it waits the stream's `retry:` and
// reconnects with Last-Event-ID, and it applies a status only when its version is newer. The
// instance serving that stream is killed (SIGKILL) in the middle of the payment; the stream
// reconnects through nginx to the other instance and the payment completes. Nothing is lost (every
// status the service sent is stored and forwarded) and nothing is applied twice (each event reaches
// the shop app exactly once; the stream's versions only grow).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

import { getJson, sendJson } from '../server/harness.mjs';
import {
  METRICS_TOKEN, SHOP_ORIGIN, gw, outboxDrained, startGateway, startPostgres, startSandbox, startShopApp, tmpdir, waitFor,
} from '../gateway/harness.mjs';
import { freePort } from '../support/node.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const NGINX = process.env.PAYWASM_NGINX || '/usr/sbin/nginx';
const ADDRESS = { firstname: 'Ada', lastname: 'Lovelace', email: 'ada@example.com', country: 'GB' };
const CART = [{ id: 'sku-tea', name: 'Tea', price: 12.5, quantity: 2 }];  // 25.00 USD

// deploy/nginx.conf with the test's addresses: `listen` on `port` without TLS (the ssl_* lines
// left out), the two upstream `server` lines pointing at `upstreams`. Every change is checked to
// have matched, so a reshaped deploy/nginx.conf fails here instead of being tested half.
export function shippedConfig(port, upstreams) {
  let conf = fs.readFileSync(path.join(root, 'deploy/nginx.conf'), 'utf8');
  const replace = (pattern, by, count) => {
    const found = conf.match(new RegExp(pattern.source, 'gm')) || [];
    assert.equal(found.length, count, `deploy/nginx.conf: ${pattern} should match ${count} line(s)`);
    let i = 0;
    conf = conf.replace(new RegExp(pattern.source, 'gm'), () => by(i++));
  };
  replace(/^(\s*)listen 443 ssl http2;.*$/, () => `    listen 127.0.0.1:${port};`, 1);
  replace(/^\s*ssl_certificate(_key)? .*$/, () => '', 2);
  replace(/^(\s*)server 127\.0\.0\.1:\d+ (.*)$/, (i) => `    server ${upstreams[i]} max_fails=1 fail_timeout=10s;`, 2);
  return conf;
}

// nginx in the foreground as the test's own process: its prefix, pid file, temp paths and logs in a
// temporary directory; the http-context file included as Debian's nginx.conf includes conf.d/.
async function startNginx(conf) {
  const dir = tmpdir('pw-nginx-');
  fs.chmodSync(dir, 0o755);
  const port = Number(/listen 127\.0\.0\.1:(\d+);/.exec(conf)[1]);
  fs.writeFileSync(path.join(dir, 'paywasm.conf'), conf);
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${dir}/${t};`).join('\n');
  fs.writeFileSync(path.join(dir, 'nginx.conf'), [
    'daemon off;', 'worker_processes 1;', `pid ${dir}/nginx.pid;`, 'error_log stderr notice;',
    // As root (CI containers), the workers would switch to `nobody`; they need nothing of the directory.
    ...(process.getuid() === 0 ? ['user nobody nogroup;'] : []),
    'events { worker_connections 512; }',
    'http {', `  access_log ${dir}/access.log;`, temp, `  include ${dir}/paywasm.conf;`, '}', '',
  ].join('\n'));
  const proc = spawn(NGINX, ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-e', 'stderr'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  proc.stdout.on('data', (d) => { log += d; });
  proc.stderr.on('data', (d) => { log += d; });
  const exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  await waitFor(async () => {
    if (proc.exitCode !== null) throw new Error(`nginx exited: ${log}`);
    return fetch(`http://127.0.0.1:${port}/`).then((r) => r.status === 404, () => false);
  }, 15000, 'nginx to listen');
  return {
    base: `http://127.0.0.1:${port}`,
    log: () => log,
    accessLog: () => fs.readFileSync(path.join(dir, 'access.log'), 'utf8'),
    async stop() {
      proc.kill('SIGTERM');  // fast shutdown: nginx exits 0
      const exit = await exited;
      fs.rmSync(dir, { recursive: true, force: true });
      return exit;
    },
  };
}

// The widget's status stream as its EventSource reads it: `url` requested with Accept:
// text/event-stream from `localAddress`; each `id:`/`data:` event parsed; when the stream ends or
// fails, a reconnect after the last `retry:` (ms) with Last-Event-ID, as EventSource does. A status
// is applied (pushed to `applied`) only when its version is newer than the last applied one, as the
// gateway's own streams order them. `opened` counts 200 answers; stops at a final status or stop().
function statusStream(url, { localAddress } = {}) {
  const s = { applied: [], received: [], opened: 0, cut: 0, statuses: [], final: null, stopped: false };
  let retry = 3000, lastId = null, req = null;
  const connect = () => {
    if (s.stopped) return;
    const u = new URL(url);
    const headers = { accept: 'text/event-stream', origin: SHOP_ORIGIN, ...(lastId ? { 'last-event-id': lastId } : {}) };
    req = http.get({ host: u.hostname, port: u.port, path: u.pathname, headers, localAddress }, (res) => {
      s.statuses.push(res.statusCode);
      if (res.statusCode !== 200 || !/^text\/event-stream/.test(res.headers['content-type'] || '')) {
        res.resume();
        res.on('end', reconnect);  // (EventSource would give up here; the widget then polls the JSON)
        return;
      }
      s.opened++;
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (d) => {
        buf += d;
        for (let i; (i = buf.indexOf('\n\n')) >= 0;) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          let data = null, id = null;
          for (const line of block.split('\n')) {
            if (line.startsWith('retry: ')) retry = Number(line.slice(7));
            else if (line.startsWith('id: ')) id = line.slice(4);
            else if (line.startsWith('data: ')) data = (data === null ? '' : data + '\n') + line.slice(6);
          }
          if (id !== null) lastId = id;
          if (data === null) continue;
          const status = JSON.parse(data);
          s.received.push(status);
          if (s.applied.length === 0 || status.version > s.applied.at(-1).version) s.applied.push(status);
          if (status.final) {
            s.final = status;
            s.stop();
          }
        }
      });
      res.on('end', reconnect);
      res.on('aborted', reconnect);
      res.on('error', reconnect);
    });
    req.on('error', reconnect);
  };
  let waiting = false;
  function reconnect() {
    if (s.stopped || waiting) return;
    waiting = true;
    s.cut++;
    setTimeout(() => { waiting = false; connect(); }, retry);
  }
  s.stop = () => { s.stopped = true; req?.destroy(); };
  connect();
  return s;
}

// Gateway `g`'s open status streams (the gauge paywasm_sse_streams_open of /metrics).
async function streamsOpen(g) {
  const r = await gw(g, 'GET', '/metrics', { token: METRICS_TOKEN });
  return Number(/^paywasm_sse_streams_open (\d+)$/m.exec(r.text)[1]);
}

let pg, sb, app, nginx;
const gateways = [];
before(async () => {
  pg = await startPostgres();
  sb = await startSandbox();
  app = await startShopApp();
  // The two instances' ports, known before nginx is configured with them.
  const ports = [await freePort(), await freePort()];
  for (const [i, port] of ports.entries()) {
    gateways.push(await startGateway(sb, { db: pg.url, dir: tmpdir(`pw-proxy-${i}-`), appCallback: app.url, port,
      extra: ['--trusted-proxy', '127.0.0.1', '--max-streams-per-client', '1'] }));
  }
  nginx = await startNginx(shippedConfig(await freePort(), ports.map((p) => `127.0.0.1:${p}`)));
  // The service reaches the gateway only through nginx, as in production.
  await sendJson('PUT', sb.base + '/__sandbox/webhook', { url: nginx.base + '/v1/webhooks' });
}, { timeout: 60000 });
after(async () => {
  const nginxExit = await nginx?.stop();
  for (const g of gateways) if (g.proc.exitCode === null && g.proc.signalCode === null) await g.stop();
  await sb?.stop();
  await app?.close();
  await pg?.destroy();
  if (nginxExit) assert.deepEqual(nginxExit, { code: 0, signal: null });
});

const viaNginx = () => ({ base: nginx.base });

async function qrSession() {
  const r = await gw(viaNginx(), 'POST', '/v1/sessions', { app: true, body: { offerId: 'proxy-' + crypto.randomUUID(),
    currency: 'USD', cart: CART, shippingAddress: ADDRESS, methods: ['qr'], customerInfo: { name: 'Ada', email: 'ada@example.com' } } });
  assert.equal(r.status, 201, r.text);
  return r.json;
}

test('the docs\' nginx.conf: the app API only from the app\'s network, nothing else of the gateway exposed', async () => {
  assert.equal((await gw(viaNginx(), 'GET', '/v1/webhooks')).status, 200, 'the service\'s URL check');
  assert.equal((await gw(viaNginx(), 'GET', '/nothing-here')).status, 404);
  // (127.0.0.1 is the app's network in the shipped file; another address is refused by nginx.)
  const refused = await new Promise((resolve, reject) => {
    const u = new URL(nginx.base);
    http.get({ host: u.hostname, port: u.port, path: '/v1/events', localAddress: '127.0.0.9' }, (res) => {
      res.resume();
      resolve(res.statusCode);
    }).on('error', reject);
  });
  assert.equal(refused, 403);
});

test('--trusted-proxy behind nginx: the stream cap counts shoppers (X-Forwarded-For), not nginx', async () => {
  const s = await qrSession();
  const url = `${nginx.base}/v1/checkout/${s.id}/status`;
  // --max-streams-per-client 1 on each instance, and nginx takes turns: a shopper gets one stream
  // on each of the two instances, the third is refused; another shopper then still gets one. Were
  // nginx's address (or the shopper's own X-Forwarded-For) counted as the client, that other shopper
  // would be refused too.
  const open = (localAddress) => new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = http.get({ host: u.hostname, port: u.port, path: u.pathname, localAddress,
      headers: { accept: 'text/event-stream', 'x-forwarded-for': '203.0.113.7' } }, (res) => resolve({ status: res.statusCode, req }));
    req.on('error', reject);
  });
  const held = [await open('127.0.0.2'), await open('127.0.0.2')];
  const third = await open('127.0.0.2');
  // A client-written X-Forwarded-For is not believed: nginx appends the real peer, the rightmost.
  const other = await open('127.0.0.3');
  try {
    assert.deepEqual(held.map((h) => h.status), [200, 200], 'one stream on each instance');
    assert.equal(third.status, 429, 'the same shopper (127.0.0.2, whatever its own X-Forwarded-For) is capped');
    assert.equal(other.status, 200, 'another shopper behind the same nginx is not');
  } finally {
    for (const r of [...held, third, other]) r.req.destroy();
  }
  await waitFor(async () => (await Promise.all(gateways.map(streamsOpen))).every((n) => n === 0), 20000, 'the streams closed');
});

test('an instance killed in the middle of a QR payment: the stream reconnects through nginx, the payment completes, once', { timeout: 120000 }, async () => {
  const s = await qrSession();
  const eventsBefore = app.events.length;
  // The widget: the checkout view, the QR code, then the status stream, all through nginx.
  const view = await gw(viaNginx(), 'GET', `/v1/checkout/${s.id}`, { origin: SHOP_ORIGIN });
  assert.equal(view.status, 200, view.text);
  const qr = await gw(viaNginx(), 'POST', `/v1/checkout/${s.id}/qr`, { origin: SHOP_ORIGIN, body: {} });
  assert.equal(qr.status, 200, qr.text);
  const txId = qr.json.result.id;
  const stream = statusStream(`${nginx.base}/v1/checkout/${s.id}/status`, { localAddress: '127.0.0.4' });
  await waitFor(() => stream.opened === 1 && stream.applied.length >= 1, 15000, 'the stream\'s first status');

  // The shopper's wallet sends the money: pending.
  assert.equal((await sendJson('POST', `${sb.base}/__sandbox/transactions/${txId}/advance`, { status: 0 })).status, 200);
  await waitFor(() => stream.applied.some((st) => st.status === 0), 15000, 'pending on the stream');

  // The instance that serves the stream dies.
  const counts = await Promise.all(gateways.map(streamsOpen));
  const victim = counts.findIndex((n) => n === 1);
  assert.ok(victim >= 0 && counts[1 - victim] === 0, `one instance holds the stream: ${counts}`);
  gateways[victim].proc.kill('SIGKILL');
  const survivor = gateways[1 - victim];

  // The payment completes at the service while the stream is being re-established: its webhook
  // reaches the surviving instance through nginx (at once, or by the service's retry).
  assert.equal((await sendJson('POST', `${sb.base}/__sandbox/transactions/${txId}/advance`, { status: 1 })).status, 200);
  const final = await waitFor(() => stream.final, 60000, 'the final status on the stream').catch((e) => {
    throw new Error(`${e.message}: ${JSON.stringify({ applied: stream.applied, statuses: stream.statuses })}`);
  });
  assert.equal(final.status, 1);
  assert.equal(final.success, true);
  assert.ok(stream.cut >= 1 && stream.opened >= 2, `the stream was cut and reopened (${stream.cut} cuts, ${stream.opened} opens)`);
  assert.equal(await streamsOpen(survivor), 0, 'the final status ended the stream on the surviving instance');

  // Nothing applied twice: the versions on the stream only grew, and each status once.
  const versions = stream.applied.map((st) => st.version);
  assert.deepEqual(versions, [...versions].sort((a, b) => a - b));
  assert.equal(new Set(stream.applied.map((st) => st.status)).size, stream.applied.length, JSON.stringify(stream.applied));

  // Nothing lost: the stored session is paid by this transaction, and every status the service
  // sent for it was forwarded to the app exactly once.
  const detail = (await gw(viaNginx(), 'GET', `/v1/sessions/${s.id}`, { app: true })).json;
  assert.equal(detail.latestStatus.status, 1);
  assert.equal(detail.latestStatus.success, true);
  assert.equal(detail.latestStatus.transactionId, txId);
  const sent = new Set((await getJson(sb.base + '/__sandbox/webhooks?limit=1000'))
    .filter((w) => w.transactionId === txId && w.state === 'delivered').map((w) => w.status));
  assert.ok(sent.has(0) && sent.has(1), `the service delivered pending and paid: ${[...sent]}`);
  await outboxDrained(survivor, 30000);
  const forwarded = app.events.slice(eventsBefore).filter((e) => e.body.sessionId === s.id);
  assert.equal(new Set(forwarded.map((e) => e.id)).size, forwarded.length, 'no event forwarded twice');
  assert.deepEqual(forwarded.map((e) => e.body.status).sort(), [...sent].sort(), 'one event per status the service sent');
  assert.equal(forwarded.filter((e) => e.body.type === 'checkout.succeeded').length, 1);
  assert.equal(app.bad, 0);
});
