// Two paywasm-merchant instances sharing one real PostgreSQL server: a webhook that lands on one
// reaches the shopper's SSE stream on the other (LISTEN/NOTIFY), each event is forwarded once
// although both instances forward, and while PostgreSQL is down the gateway answers 503 and loses
// nothing: the service's retried webhook is stored once the database is back.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import crypto from 'node:crypto';

import { api, encrypt, exchangePayload, getJson, sendJson } from '../server/harness.mjs';
import { gw, outboxDrained, SHOP_ORIGIN, sleep, sse, startGateway, startPostgres, startSandbox, startShopApp, tempDir, tmpdir, waitFor,
  webhookBody, webhookPrivateKey } from './harness.mjs';

const ADDRESS = { firstname: 'Ada', lastname: 'Lovelace', email: 'ada@example.com', country: 'GB', city: 'London',
  address1: '12 St James Sq', zipcode: 'SW1Y 4JH', state: 'LND', phoneNo: '2025550100', address2: '', landmark: '' };

let pg, sb, app, a, b;

before(async () => {
  pg = await startPostgres();
  // --speed 20: the sandbox retries an unanswered webhook after 50 ms, 100 ms, ... (not 1 s, 2 s).
  sb = await startSandbox(['--speed', '20']);
  app = await startShopApp();
  a = await startGateway(sb, { db: pg.url, dir: tempDir('pwm-a-'), appCallback: app.url });
  b = await startGateway(sb, { db: pg.url, dir: tempDir('pwm-b-'), appCallback: app.url });
  await sendJson('PUT', sb.base + '/__sandbox/webhook', { url: a.base + '/v1/webhooks' });
});
after(async () => {
  // Clean stops (exit 0): the listener thread must not outlive what it notifies.
  for (const g of [a, b]) {
    const exit = await g?.stop();
    if (exit) assert.deepEqual(exit, { code: 0, signal: null }, g.stderr().slice(-2000));
  }
  await sb?.stop();
  await app?.close();
  await pg?.destroy();
});

async function sessionAndPay(g) {
  const offerId = 'pg-' + crypto.randomUUID();
  const cart = [{ id: 'sku-tea', name: 'Tea', price: 12.5, quantity: 2 }];
  const s = (await gw(g, 'POST', '/v1/sessions', { app: true,
    body: { offerId, currency: 'USD', cart, shippingAddress: ADDRESS } })).json;
  assert.equal(s.amount, '25.00');
  const payload = exchangePayload(sb.merchant, { offerId, shippingAddress: ADDRESS, nativeAmount: '25.00',
    cart: cart.map((c) => ({ ...c, localAmount: c.price, localCurrency: 'USD' })) });
  const pay = await api(sb, '/exchanges/payments/coinbase', { token: sb.merchant.shopperToken,
    body: { data: encrypt(sb.merchant.publicKey, JSON.stringify(payload)) } });
  assert.equal(pay.status, 200, pay.text);
  return { s, tx: pay.json };
}

test('a webhook on instance A reaches the SSE stream on instance B', async () => {
  const offerId = 'pg-' + crypto.randomUUID();
  const s = (await gw(a, 'POST', '/v1/sessions', { app: true,
    body: { offerId, currency: 'USD', cart: [{ id: 'x', name: 'X', price: 5, quantity: 1 }], shippingAddress: ADDRESS } })).json;
  // The session made on A is read on B: one database.
  assert.equal((await gw(b, 'GET', `/v1/checkout/${s.id}`, { origin: SHOP_ORIGIN })).json.amount, '5.00');
  const stream = sse(`${b.base}/v1/checkout/${s.id}/status`);
  await stream.first;  // B's stream read the session before the payment
  const payload = exchangePayload(sb.merchant, { offerId, shippingAddress: ADDRESS, nativeAmount: '5.00',
    cart: [{ id: 'x', name: 'X', price: 5, quantity: 1, localAmount: 5, localCurrency: 'USD' }] });
  const pay = await api(sb, '/exchanges/payments/coinbase', { token: sb.merchant.shopperToken,
    body: { data: encrypt(sb.merchant.publicKey, JSON.stringify(payload)) } });
  assert.equal(pay.status, 200, pay.text);
  await waitFor(() => stream.events.some((e) => e.status === 0), 5000, 'pending on B\'s stream');
  await sendJson('POST', `${sb.base}/__sandbox/transactions/${pay.json.id}/advance`);
  const events = await stream.done;
  assert.deepEqual(events.map((e) => e.status), [null, 0, 1]);
  assert.equal(events.at(-1).success, true);
  const log = await getJson(sb.base + '/__sandbox/webhooks?limit=1000');
  assert.ok(log.filter((e) => e.transactionId === pay.json.id).every((e) => e.url.startsWith(a.base)), 'webhooks went to A only');
});

test('a new QR code asked of both instances at once: one new code, followed on either', async () => {
  const offerId = 'pg-' + crypto.randomUUID();
  const s = (await gw(a, 'POST', '/v1/sessions', { app: true, body: { offerId, currency: 'USD', methods: ['qr'],
    cart: [{ id: 'x', name: 'X', price: 5, quantity: 1 }], shippingAddress: ADDRESS } })).json;
  const qr = (g, body) => gw(g, 'POST', `/v1/checkout/${s.id}/qr`, { body, origin: SHOP_ORIGIN });
  const statusOn = async (g) => (await gw(g, 'GET', `/v1/checkout/${s.id}/status`)).json;
  const first = (await qr(b, {})).json.result;
  await waitFor(async () => (await statusOn(b)).status === 10, 5000, 'status 10');
  await sendJson('POST', `${sb.base}/__sandbox/transactions/${first.id}/advance`, { status: -1 });
  await waitFor(async () => (await statusOn(b)).status === -1, 5000, 'failed');
  const answers = await Promise.all([qr(a, { replaces: first.id }), qr(b, { replaces: first.id })]);
  for (const r of answers) assert.ok(r.status === 200 || (r.status === 409 && r.json.error === 'qr_in_progress'), r.text);
  const second = (await qr(a, { replaces: first.id })).json.result;
  assert.notEqual(second.id, first.id);
  for (const r of answers) if (r.status === 200) assert.equal(r.json.result.id, second.id);
  assert.equal(second.meta.offerId, `${offerId}~qr2`);
  const atService = (await getJson(sb.base + '/__sandbox/transactions')).filter((t) => t.offerId.startsWith(offerId));
  assert.equal(atService.length, 2, 'two QR transactions in all');
  await waitFor(async () => {
    const st = await statusOn(b);
    return st.status === 10 && st.transactionId === second.id;
  }, 5000, 'the new code on B');
});

test('PostgreSQL down: 503, nothing lost when it returns, each event forwarded once', async () => {
  const { s, tx } = await sessionAndPay(a);
  await waitFor(async () => (await gw(a, 'GET', `/v1/checkout/${s.id}/status`)).json.status === 0, 5000, 'pending');
  const replay = (await getJson(sb.base + '/__sandbox/webhooks?limit=1000')).filter((e) => e.transactionId === tx.id).at(-1);
  const replayBody = typeof replay.body === 'string' ? replay.body : JSON.stringify(replay.body);

  await pg.stop();
  const down = await gw(a, 'POST', '/v1/webhooks', { raw: replayBody });
  assert.equal(down.status, 503, down.text);
  assert.equal(down.json.error, 'storage_unavailable');
  const statusDown = await gw(b, 'GET', `/v1/checkout/${s.id}/status`);
  assert.equal(statusDown.status, 503);
  // The payment succeeds at the service meanwhile; its webhook is refused (503) and retried.
  await sendJson('POST', `${sb.base}/__sandbox/transactions/${tx.id}/advance`);
  await waitFor(async () => (await getJson(sb.base + '/__sandbox/webhooks?limit=1000'))
    .some((e) => e.transactionId === tx.id && e.status === 1 && e.lastHttpStatus === 503), 10000, 'a refused delivery');
  await pg.start();
  // Back: each instance reconnects on its next query (until then it may still answer 503), and the
  // service's retried webhook is stored; B then reads the success, and its stream shows it.
  await waitFor(async () => {
    const r = await gw(b, 'GET', `/v1/checkout/${s.id}/status`);
    return r.status === 200 && r.json.status === 1;
  }, 60000, 'the retried webhook stored, read on B');
  const stream = sse(`${b.base}/v1/checkout/${s.id}/status`, { timeoutMs: 30000 });
  const events = await stream.done;
  assert.equal(events.at(-1).status, 1);
  assert.equal(events.at(-1).success, true);
  const mine = await waitFor(() => {
    const list = app.events.filter((e) => e.body.sessionId === s.id);
    return list.length >= 2 && list;
  }, 20000, 'both events forwarded');
  // A second delivery of either event would have arrived by now. A row a worker had leased when the
  // database went away stays leased for its 60 s (forwarder.cpp) before another worker retries it:
  // the deadline is above that lease, not a guess at a busy machine's speed.
  await outboxDrained(a, 180000);
  const ids = app.events.map((e) => e.id);
  assert.equal(new Set(ids).size, ids.length, 'no event forwarded twice by the two instances');
  assert.deepEqual(app.events.filter((e) => e.body.sessionId === s.id).map((e) => e.body.status).sort(), [0, 1]);
  assert.equal(mine.length, 2);
  assert.equal(app.bad, 0);
});

// Any role that can connect may LISTEN and NOTIFY on the gateway's channel: what it hears names no
// session and no status, and what it sends makes a stream read the row, never show a status the
// database does not hold (issue 30: a forged "paid").
test('a forged NOTIFY from another role does not make a stream show success; LISTEN learns no session id', async () => {
  execFileSync('psql', ['-q', '-d', pg.url, '-c', "DO $$ BEGIN CREATE ROLE intruder LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$"]);
  const intruder = pg.url.replace('paywasm@', 'intruder@');
  const offerId = 'pg-forged-' + crypto.randomUUID();
  const s = (await gw(a, 'POST', '/v1/sessions', { app: true,
    body: { offerId, currency: 'USD', cart: [{ id: 'x', name: 'X', price: 5, quantity: 1 }], shippingAddress: ADDRESS } })).json;
  const listener = spawn('psql', ['-q', '-d', intruder], { stdio: ['pipe', 'pipe', 'pipe'] });
  let heard = '';
  listener.stdout.on('data', (d) => { heard += d; });
  listener.stdin.write("LISTEN paywasm_status; SELECT 'listening';\n");
  await waitFor(() => heard.includes('listening'), 10000, 'the intruder listening');
  const stream = sse(`${b.base}/v1/checkout/${s.id}/status`, { until: (ev) => ev.some((e) => e.status === 0) });
  await stream.first;  // the stream read the session before the forged wakes and the payment
  const forged = JSON.stringify({ sessionId: s.id, offerId, status: 1, kind: 'success', state: 'paid', final: true,
    success: true, taken: 'all', version: 99 });
  const tag = crypto.createHash('sha256').update('paywasm-wake:' + s.id).digest('hex').slice(0, 32);
  const forgedPayloads = [`${s.id}\n99\n1\n${forged}`, s.id, tag];
  for (const payload of forgedPayloads) {
    execFileSync('psql', ['-q', '-d', intruder, '-c', `NOTIFY paywasm_status, '${payload.replaceAll("'", "''")}'`]);
  }
  // A real change after the forged ones (NOTIFY keeps commit order): the stream's last event.
  const text = JSON.stringify({ id: crypto.randomUUID(), status: 0, merchantId: sb.merchant.merchantId, nativeAmount: '5.00',
    nativeCurrency: 'USD', meta: { offerId } });
  assert.equal((await gw(a, 'POST', '/v1/webhooks', { raw: webhookBody(text, webhookPrivateKey(sb)) })).json.outcome, 'applied');
  const events = await stream.done;
  assert.ok(events.every((e) => e.success !== true && e.status !== 1), JSON.stringify(events));
  assert.deepEqual(events.map((e) => e.status), [null, 0]);
  listener.stdin.write("SELECT 'after';\n");
  await waitFor(() => heard.includes('after'), 10000, 'the intruder reading what it heard');
  listener.stdin.end();
  assert.match(heard, /Asynchronous notification "paywasm_status"/, heard);
  const fromGateway = forgedPayloads.slice(0, 2).reduce((text, p) => text.replaceAll(`payload "${p}"`, ''), heard);
  assert.match(fromGateway, /with payload "[^"]+" received/, 'the real change was heard too');
  assert.ok(!fromGateway.includes(s.id) && !fromGateway.includes('"status"'), fromGateway);
});
