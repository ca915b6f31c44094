// What a new merchant found and an outside review measured (issue 30), one test each: amounts per
// currency, the session's version in each event, GET /v1/events saying what each event is, an
// expired session told as expired (to the shopper and to the shop), a refused request spending no
// rate token, the rate buckets on the database's clock (PostgreSQL), one process per SQLite file.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';

import { SHOP_ORIGIN, gw, startGateway, startPostgres, startSandbox, startShopApp, tempDir, waitFor, webhookBody,
  webhookPrivateKey } from './harness.mjs';

let sb, key;
before(async () => {
  sb = await startSandbox();
  key = webhookPrivateKey(sb);
});
after(async () => { await sb?.stop(); });

const cart = (price) => [{ id: 'x', name: 'X', price, quantity: 1 }];
const create = (g, body) => gw(g, 'POST', '/v1/sessions', { app: true, body: { offerId: 'pr-' + crypto.randomUUID(), currency: 'USD',
  methods: ['exchange'], cart: cart(5), ...body } });
const hook = (g, tx) => gw(g, 'POST', '/v1/webhooks', { raw: webhookBody(JSON.stringify({ merchantId: sb.merchant.merchantId, ...tx }), key) });

test('amounts follow the currency\'s minor unit: JPY 1500 (not "1500.00"), USD 5.00', async () => {
  const g = await startGateway(sb);
  try {
    const jpy = await create(g, { currency: 'JPY', cart: cart(1500) });
    assert.equal(jpy.status, 201, jpy.text);
    assert.equal(jpy.json.amount, '1500');
    assert.equal((await create(g, {})).json.amount, '5.00');
  } finally {
    await g.stop();
  }
});

test('each event carries the session\'s version; GET /v1/events shows type, session and body; receivedCurrency', async () => {
  const app = await startShopApp();
  const g = await startGateway(sb, { appCallback: app.url });
  try {
    const s = (await create(g, {})).json;
    const tx = { id: crypto.randomUUID(), nativeAmount: '5.00', nativeCurrency: 'USD', amount: '0.0001', currency: 'BTC',
      receivedAmount: '0.0001', meta: { offerId: s.offerId } };
    assert.equal((await hook(g, { ...tx, status: 0 })).json.outcome, 'applied');
    assert.equal((await hook(g, { ...tx, status: 1 })).json.outcome, 'applied');
    await waitFor(() => app.events.length >= 2, 10000, 'both events delivered');
    assert.deepEqual(app.events.map((e) => e.body.version).sort(), [1, 2]);
    const events = (await gw(g, 'GET', '/v1/events', { app: true })).json;
    const paid = events.find((e) => e.type === 'checkout.succeeded');
    assert.ok(paid, JSON.stringify(events));
    assert.equal(paid.sessionId, s.id);
    assert.equal(paid.body.transactionId, tx.id);
    const detail = (await gw(g, 'GET', `/v1/sessions/${s.id}`, { app: true })).json;
    assert.equal(detail.transactions[0].receivedAmount, '0.0001');
    assert.equal(detail.transactions[0].receivedCurrency, 'BTC');
  } finally {
    await g.stop();
    await app.close();
  }
});

test('an expired session: the shopper gets 410 session_expired, the shop "expired" and 409 offer_expired', async () => {
  const dir = tempDir('pwm-expired-');
  const g = await startGateway(sb, { dir, extra: ['--session-ttl', '60'] });
  const body = { offerId: 'pr-expired-' + crypto.randomUUID(), currency: 'USD', methods: ['exchange'], cart: cart(5) };
  const s = (await gw(g, 'POST', '/v1/sessions', { app: true, body })).json;
  await g.stop();
  // The same database two minutes later.
  const later = await startGateway(sb, { dir, env: { PAYWASM_CLOCK_OFFSET_MS: String(120000) } });
  try {
    const view = await gw(later, 'GET', `/v1/checkout/${s.id}`, { origin: SHOP_ORIGIN });
    assert.equal(view.status, 410);
    assert.equal(view.json.error, 'session_expired');
    assert.equal((await gw(later, 'GET', `/v1/sessions/${s.id}`, { app: true })).json.status, 'expired');
    const again = await gw(later, 'POST', '/v1/sessions', { app: true, body });
    assert.equal(again.status, 409, again.text);
    assert.equal(again.json.error, 'offer_expired');
    assert.match(again.json.message, /new offerId/);
  } finally {
    await later.stop();
  }
});

test('a refused (400) session request spends no rate token', async () => {
  const g = await startGateway(sb, { extra: ['--session-rate', '2'] });
  try {
    for (let i = 0; i < 5; i++) assert.equal((await create(g, { currency: 'usd!' })).status, 400);
    assert.equal((await create(g, {})).status, 201);
    assert.equal((await create(g, {})).status, 201);
    assert.equal((await create(g, {})).status, 429, 'the two tokens went to the two sessions');
  } finally {
    await g.stop();
  }
});

test('two processes on one SQLite file: the second is refused, naming the lock', async () => {
  const dir = tempDir('pwm-twice-');
  const g = await startGateway(sb, { dir });
  try {
    await assert.rejects(startGateway(sb, { dir }), /in use by another process.*gateway\.db\.lock/s);
  } finally {
    await g.stop();
  }
  const again = await startGateway(sb, { dir });  // the lock went with the first process
  await again.stop();
});

test('PostgreSQL: an instance whose clock runs an hour ahead does not freeze the shared rate buckets', { timeout: 120000 },
  async () => {
    const pg = await startPostgres();
    try {
      const rate = ['--session-rate', '60'];  // one token a second, bursts of 60
      const fast = await startGateway(sb, { db: pg.url, dir: tempDir('pwm-fast-'), extra: rate,
        env: { PAYWASM_CLOCK_OFFSET_MS: String(3600 * 1000) } });
      const normal = await startGateway(sb, { db: pg.url, dir: tempDir('pwm-normal-'), extra: rate });
      try {
        let taken = 0;
        while ((await create(fast, {})).status === 201) taken++;
        assert.ok(taken >= 59, `the burst (${taken})`);
        // The bucket refills on the database's clock: a token within a few seconds, on either instance.
        await waitFor(async () => (await create(normal, {})).status === 201, 8000, 'a token again for the other instance');
      } finally {
        await fast.stop();
        await normal.stop();
      }
    } finally {
      await pg.destroy();
    }
  });
