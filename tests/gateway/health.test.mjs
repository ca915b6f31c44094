// paywasm-merchant's health and metrics (docs/merchant.md): /healthz, /readyz (the database, the
// outbox) and /metrics in Prometheus text format, after real traffic (a session, webhooks of each
// kind, a stream).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';

import { APP_SECRET, METRICS_TOKEN, gw, sse, startGateway, startSandbox, startShopApp } from './harness.mjs';

let sb, app, g;
before(async () => {
  sb = await startSandbox();
  app = await startShopApp();
  g = await startGateway(sb, { appCallback: app.url });
});
after(async () => {
  const exit = await g?.stop();
  if (exit) assert.deepEqual(exit, { code: 0, signal: null }, g.stderr().slice(-2000));
  await sb?.stop();
  await app?.close();
});

// Prometheus text: {name{labels}: value}, every sample line parsed; HELP/TYPE lines checked for form.
function parse(text) {
  const samples = {};
  for (const line of text.trim().split('\n')) {
    if (line.startsWith('#')) {
      assert.match(line, /^# (HELP|TYPE) [a-z_]+ .+$/, line);
      continue;
    }
    const m = line.match(/^([a-z_]+(?:\{[^}]*\})?) (-?[0-9.e+-]+)$/);
    assert.ok(m, 'a sample line: ' + line);
    samples[m[1]] = Number(m[2]);
  }
  return samples;
}

test('/healthz and /readyz answer without credentials', async () => {
  const health = await gw(g, 'GET', '/healthz');
  assert.equal(health.status, 200);
  assert.deepEqual(health.json, { ok: true });
  const ready = await gw(g, 'GET', '/readyz');
  assert.equal(ready.status, 200, ready.text);
  assert.deepEqual(ready.json, { ok: true, database: 'ok', outbox: 'ok' });
});

test('/metrics needs its own token, not the app secret, and counts requests, webhook outcomes, streams, the outbox and the database', async () => {
  assert.equal((await gw(g, 'GET', '/metrics')).status, 401);
  assert.equal((await gw(g, 'GET', '/metrics', { app: true })).status, 401, 'the app secret reads no metrics');
  const s = await gw(g, 'POST', '/v1/sessions', { app: true, body: {
    offerId: 'order-' + crypto.randomUUID(), currency: 'USD', methods: ['exchange'],
    cart: [{ id: 'sku-mug', name: 'Mug', price: 15, quantity: 1 }] } });
  assert.equal(s.status, 201, s.text);
  await gw(g, 'POST', '/v1/webhooks', { raw: '{"type":"rf:alert"}' });  // refused: invalid_webhook
  const stream = sse(`${g.base}/v1/checkout/${s.json.id}/status`);
  assert.equal((await stream.opened).status, 200);

  const r = await fetch(g.base + '/metrics', { headers: { authorization: 'Bearer ' + METRICS_TOKEN } });
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type'), /^text\/plain; version=0\.0\.4/);
  const m = parse(await r.text());
  assert.equal(m['paywasm_http_requests_total{method="POST",route="/v1/sessions",status="201"}'], 1);
  assert.equal(m['paywasm_webhooks_total{outcome="refused_invalid_webhook"}'], 1);
  assert.equal(m.paywasm_sse_streams_open, 1);
  assert.ok(m.paywasm_http_connections_open >= 1);
  assert.equal(m.paywasm_db_up, 1);
  // A duration measured, not promised: a number of seconds, whatever the machine's load.
  assert.ok(Number.isFinite(m.paywasm_db_ping_seconds) && m.paywasm_db_ping_seconds >= 0, `ping ${m.paywasm_db_ping_seconds}`);
  assert.equal(m.paywasm_outbox_pending, 0);
  assert.equal(m.paywasm_outbox_oldest_pending_age_seconds, 0);
  assert.equal(m.paywasm_outbox_stuck, 0);
  stream.close();
});

test('/metrics is off without PAYWASM_METRICS_TOKEN', async () => {
  const bare = await startGateway(sb, { env: { PAYWASM_METRICS_TOKEN: '' } });
  try {
    assert.equal((await gw(bare, 'GET', '/metrics', { app: true })).status, 404);
    assert.equal((await gw(bare, 'GET', '/metrics', { token: METRICS_TOKEN })).status, 404);
  } finally {
    await bare.stop();
  }
});
