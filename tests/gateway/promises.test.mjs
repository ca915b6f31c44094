// What a new merchant found and an outside review measured (issue 30), one test each: amounts per
// currency, the session's version in each event, GET /v1/events saying what each event is, an
// expired session told as expired (to the shopper and to the shop), a refused request spending no
// rate token, the rate buckets on the database's clock (PostgreSQL), one process per SQLite file.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import net from 'node:net';

import { APP_SECRET, SHOP_ORIGIN, gw, startGateway, startPostgres, startSandbox, startShopApp, tempDir, waitFor, webhookBody,
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

test('a checkout offering exchange and bank: each event names the method (signed isFiat; else the attempt the browser reported)', async () => {
  const app = await startShopApp();
  const g = await startGateway(sb, { appCallback: app.url, extra: ['--methods', 'exchange,bank,qr'] });
  try {
    const methodOf = async (s) => {
      await waitFor(() => app.events.some((e) => e.body.sessionId === s.id), 10000, 'the event');
      return app.events.find((e) => e.body.sessionId === s.id).body.method;
    };
    const pay = (s, extra) => hook(g, { id: crypto.randomUUID(), status: 0, nativeAmount: '5.00', nativeCurrency: 'USD',
      amount: '5.00', currency: 'USD', meta: { offerId: s.offerId }, ...extra });
    const bank = (await create(g, { methods: ['exchange', 'bank'] })).json;
    assert.equal((await pay(bank, { currencyInfo: { isFiat: true } })).json.outcome, 'applied');
    assert.equal(await methodOf(bank), 'bank');
    const crypto1 = (await create(g, { methods: ['exchange', 'bank'] })).json;
    assert.equal((await pay(crypto1, { currency: 'BTC', amount: '0.0001', currencyInfo: { isFiat: false } })).json.outcome, 'applied');
    assert.equal(await methodOf(crypto1), 'exchange');
    // Not said in the signed text: the attempt whose transaction the browser reported.
    const reported = (await create(g, { methods: ['exchange', 'bank'] })).json;
    const txId = crypto.randomUUID();
    const at = await gw(g, 'POST', `/v1/checkout/${reported.id}/attempts`, { origin: SHOP_ORIGIN, body: { method: 'bank' } });
    assert.equal(at.status, 201, at.text);
    const rep = await gw(g, 'POST', `/v1/checkout/${reported.id}/attempts/${at.json.attemptId}`, { origin: SHOP_ORIGIN,
      body: { transactionId: txId, status: 0 } });
    assert.equal(rep.status, 200, rep.text);
    assert.equal((await pay(reported, { id: txId })).json.outcome, 'applied');
    assert.equal(await methodOf(reported), 'bank');
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

// Issue 40 P-d: a SQLite gateway whose clock stepped back (a restart 10 minutes "earlier" on the
// same file) finds its buckets stamped in the future: they refill from now on, not 10 minutes later.
test('SQLite: a clock stepped back does not freeze the rate buckets', { timeout: 120000 }, async () => {
  const dir = tempDir('pwm-stepped-');
  const rate = ['--session-rate', '60'];  // one token a second, bursts of 60
  let g = await startGateway(sb, { dir, extra: rate, env: { PAYWASM_CLOCK_OFFSET_MS: String(600 * 1000) } });
  try {
    let taken = 0;
    while ((await create(g, {})).status === 201) taken++;
    assert.ok(taken >= 59, `the burst (${taken})`);
  } finally {
    await g.stop();
  }
  g = await startGateway(sb, { dir, extra: rate });
  try {
    await waitFor(async () => (await create(g, {})).status === 201, 15000, 'a token again after the clock stepped back');
  } finally {
    await g.stop();
  }
});

// Outside text reaches an answer, a log line or a terminal only through the core's
// escape_untrusted (C0, DEL, C1, bidi, invalid UTF-8). Header values may carry bytes 0x80-0xFF
// (obs-text), so a Content-Type can bring C1 controls and broken UTF-8 to the 415 answer; the CLI
// quotes an unknown command.
test('untrusted text at the edges is escaped: a 415\'s Content-Type, the CLI\'s unknown command', async () => {
  const g = await startGateway(sb);
  try {
    const u = new URL(g.base);
    const hostile = Buffer.concat([Buffer.from('text/x'), Buffer.from([0xc2, 0x9b]), Buffer.from('31m'), Buffer.from([0xff, 0xc3])]);
    const head = Buffer.concat([Buffer.from(`POST /v1/sessions HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer ${APP_SECRET}\r\nContent-Length: 2\r\n`
      + 'Content-Type: '), hostile, Buffer.from('\r\nConnection: close\r\n\r\n{}')]);
    const answer = await new Promise((resolve, reject) => {
      const socket = net.connect(Number(u.port), u.hostname, () => socket.write(head));
      const parts = [];
      socket.on('data', (d) => parts.push(d));
      socket.on('end', () => resolve(Buffer.concat(parts)));
      socket.on('error', reject);
    });
    const text = answer.toString('latin1');
    assert.match(text.split('\r\n')[0], / 415 /, text.slice(0, 300));
    const body = JSON.parse(answer.subarray(answer.indexOf('\r\n\r\n') + 4).toString('utf8'));
    assert.match(body.message, /got text\/x\\u009b31m\\xff\\xc3/, body.message);
  } finally {
    await g.stop();
  }
  const cli = spawnSync(process.env.PAYWASM_CLI, ['ver\x1b[2Jsion\x7f'], { encoding: 'utf8' });
  assert.notEqual(cli.status, 0);
  assert.ok(!/[\x00-\x08\x0b-\x1f\x7f]/.test(cli.stderr), JSON.stringify(cli.stderr));
  assert.match(cli.stderr, /unknown command 'ver\\u001b\[2Jsion\\u007f'/);
});
