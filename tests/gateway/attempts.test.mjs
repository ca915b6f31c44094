// Payment attempts (issue 32; docs/merchant.md "Attempts"): the browser registers an attempt before
// it sends a payment and reports what came back; the gateway keeps Pay off while an attempt may
// have taken money, tells the shop once about each stuck one, takes the merchant's resolution, and
// still applies a late verified webhook by the money rules. Each test fails on the gateway before
// issue 32 (no attempts routes; debits unlocked and forwarded in no fixed order).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';

import { api, bankPayload, encrypt, exchangePayload, payExchange, sendJson } from '../server/harness.mjs';
import {
  SHOP_ORIGIN, activeSubscription, freePort, gw, outboxDrained, sse, startGateway, startPostgres, startSandbox, startShopApp, tempDir, waitFor, webhookBody,
  webhookPrivateKey,
} from './harness.mjs';
import { Client, consoleUser } from './console_client.mjs';

const ADDRESS = { firstname: 'Grace', lastname: 'Hopper', email: 'grace@example.com', country: 'US' };
const MINUTE = 60000;

let sb, key;
before(async () => {
  sb = await startSandbox();
  key = webhookPrivateKey(sb);
});
after(async () => { await sb?.stop(); });

// A session whose total is `price` USD, offering `methods`.
async function session(g, { price = 64, methods = ['exchange', 'bank'], offerId = 'at-' + crypto.randomUUID() } = {}) {
  const r = await gw(g, 'POST', '/v1/sessions', { app: true, body: { offerId, currency: 'USD',
    cart: [{ id: 'x', name: 'X', price, quantity: 1 }], shippingAddress: ADDRESS, methods } });
  assert.equal(r.status, 201, r.text);
  return r.json;
}
const register = (g, s, method = 'exchange') =>
  gw(g, 'POST', `/v1/checkout/${s.id}/attempts`, { origin: SHOP_ORIGIN, body: { method } });
const report = (g, s, attemptId, body) =>
  gw(g, 'POST', `/v1/checkout/${s.id}/attempts/${attemptId}`, { origin: SHOP_ORIGIN, body });
const view = async (g, s) => (await gw(g, 'GET', `/v1/checkout/${s.id}`)).json;
const signed = (offerId, over) => webhookBody(JSON.stringify({ id: crypto.randomUUID(), status: 1,
  merchantId: sb.merchant.merchantId, nativeAmount: '64.00', nativeCurrency: 'USD', meta: { offerId }, ...over }), key);

// Issue 40 P7: what the browser reported is its word, named as such everywhere, and it cannot name
// a transaction the gateway holds for another session (an invitation to resolve an unpaid order as
// "paid elsewhere").
for (const backend of ['SQLite', 'PostgreSQL']) {
  describe(`a browser-reported transaction id (${backend})`, () => {
    let g, pg;
    before(async () => {
      pg = backend === 'PostgreSQL' ? await startPostgres() : null;
      g = await startGateway(sb, { db: pg?.url });
    });
    after(async () => { await g?.stop(); await pg?.destroy(); });

    test("is kept apart from a verified one, and refused when another session's", async () => {
      const paid = await session(g);
      const paidTx = crypto.randomUUID();
      assert.equal((await gw(g, 'POST', '/v1/webhooks', { raw: signed(paid.offerId, { id: paidTx, status: 1 }) })).status, 200);
      const s = await session(g);
      const a = (await register(g, s)).json;
      const borrowed = await report(g, s, a.attemptId, { transactionId: paidTx, status: 1 });
      assert.equal(borrowed.status, 409, borrowed.text);
      assert.equal(borrowed.json.error, 'transaction_elsewhere');
      // Another session's reported one too (two browsers cannot both claim it).
      const other = await session(g);
      const b = (await register(g, other)).json;
      const mine = 'tx-' + crypto.randomUUID();
      assert.equal((await report(g, other, b.attemptId, { transactionId: mine, status: 0 })).status, 200);
      assert.equal((await report(g, s, a.attemptId, { transactionId: mine, status: 0 })).json.error, 'transaction_elsewhere');
      // Its own: the browser's word, not a verified transaction, in the API and the app's detail.
      const own = 'tx-' + crypto.randomUUID();
      assert.equal((await report(g, s, a.attemptId, { transactionId: own, status: 0 })).status, 200);
      const before = (await gw(g, 'GET', `/v1/sessions/${s.id}`, { app: true })).json.attempts[0];
      assert.deepEqual([before.transactionId, before.reportedTransactionId], [null, own]);
      assert.deepEqual((await list(g, own)).map((x) => x.id), [s.id], 'found by the reported id');
      // A verified webhook of that transaction: now it is verified, the report kept beside it.
      assert.equal((await gw(g, 'POST', '/v1/webhooks', { raw: signed(s.offerId, { id: own, status: 0 }) })).status, 200);
      const after = (await view(g, s)).attempts[0];
      assert.deepEqual([after.transactionId, after.reportedTransactionId], [own, own]);
    });
  });
}
// Issue 40 P2: stuck attempts resolved at once (release or not_paid, never "paid" in bulk), each with
// its own event, on SQLite and PostgreSQL.
for (const backend of ['SQLite', 'PostgreSQL']) {
  test(`POST /v1/sessions/resolve-stuck releases every attempt raised before a time (${backend})`, { timeout: 120000 }, async () => {
    const pg = backend === 'PostgreSQL' ? await startPostgres() : null;
    const app = await startShopApp({ toleranceS: 86400 });
    const dir = tempDir('pwm-bulk-');
    let g = await startGateway(sb, { dir, db: pg?.url, appCallback: app.url });
    try {
      const stuck = [];
      for (let i = 0; i < 3; i++) {
        const s = await session(g);
        stuck.push({ s, a: (await register(g, s)).json.attemptId });
      }
      await g.stop();
      g = await startGateway(sb, { dir, db: pg?.url, appCallback: app.url, env: { PAYWASM_CLOCK_OFFSET_MS: String(181 * MINUTE) } });
      const raised = () => app.events.filter((e) => e.body.type === 'checkout.attention_needed').map((e) => e.body.attemptId);
      await waitFor(() => stuck.every((x) => raised().includes(x.a)), 20000, 'the three attention events');
      const bulk = (body) => gw(g, 'POST', '/v1/sessions/resolve-stuck', { app: true, body });
      const now = new Date(Date.now() + 181 * MINUTE + 60000).toISOString();
      assert.equal((await bulk({ before: now, resolution: 'paid_elsewhere', note: 'x' })).status, 400, 'never "paid" in bulk');
      assert.equal((await bulk({ before: 'yesterday', resolution: 'release', note: 'x' })).status, 400);
      assert.equal((await gw(g, 'POST', '/v1/sessions/resolve-stuck', { body: { before: now, resolution: 'release', note: 'x' } })).status, 401);
      const r = await bulk({ before: now, resolution: 'release', note: 'checked the portal: nothing arrived' });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.resolved, 3);
      for (const { s, a } of stuck) {
        const detail = (await gw(g, 'GET', `/v1/sessions/${s.id}`, { app: true })).json;
        assert.equal(detail.attempts.find((x) => x.attemptId === a).resolution, 'release');
        await waitFor(() => app.events.some((e) => e.body.type === 'checkout.released' && e.body.attemptId === a), 10000, 'its own event');
      }
      const left = (await gw(g, 'GET', '/v1/sessions?state=attention', { app: true })).json.sessions.map((x) => x.id);
      for (const { s } of stuck) assert.ok(!left.includes(s.id), 'no longer needs attention');
      assert.equal((await bulk({ before: now, resolution: 'release', note: 'again' })).json.resolved, 0, 'nothing twice');

      // The same from the console's attention list: two more stuck, raised 181 minutes later.
      const more = [];
      for (let i = 0; i < 2; i++) {
        const s = await session(g);
        more.push({ s, a: (await register(g, s)).json.attemptId });
      }
      await g.stop();
      const db = pg?.url ?? `sqlite:${dir}/gateway.db`;
      assert.equal(consoleUser(db, ['add', 'ada'], 'correct horse battery staple\n').status, 0);
      const port = await freePort();
      g = await startGateway(sb, { dir, db: pg?.url, appCallback: app.url, env: { PAYWASM_CLOCK_OFFSET_MS: String(362 * MINUTE) },
        extra: ['--console-listen', `127.0.0.1:${port}`, '--console-login-rate', '0'] });
      await waitFor(() => more.every((x) => raised().includes(x.a)), 20000, 'the two attention events');
      const c = new Client(`http://127.0.0.1:${port}`);
      assert.equal((await c.login('ada', 'correct horse battery staple')).status, 303);
      const list = await c.req('GET', '/orders?state=attention');
      assert.match(list.text, /Resolve stuck attempts/);
      const csrf = /name="csrf" value="([^"]+)"/.exec(list.text)[1];
      // The console's datetime-local field: minutes, no zone (UTC).
      const later = new Date(Date.now() + 362 * MINUTE + 60000).toISOString().slice(0, 16);
      const none = await c.req('POST', '/orders/resolve-stuck', { csrf, before: later, resolution: '', note: 'x' });
      assert.equal(none.status, 400, 'no resolution chosen: nothing resolved');
      const paid = await c.req('POST', '/orders/resolve-stuck', { csrf, before: later, resolution: 'paid_elsewhere', note: 'x' });
      assert.equal(paid.status, 400, 'never "paid" in bulk');
      const done = await c.req('POST', '/orders/resolve-stuck', { csrf, before: later, resolution: 'not_paid', note: 'abandoned carts' });
      assert.equal(done.status, 303, done.text);
      assert.equal(done.headers.get('location'), '/orders?state=attention&done=resolved_stuck');
      for (const { s, a } of more) {
        const detail = (await gw(g, 'GET', `/v1/sessions/${s.id}`, { app: true })).json;
        const at = detail.attempts.find((x) => x.attemptId === a);
        assert.equal(at.resolution, 'not_paid');
      }
      assert.doesNotMatch((await c.req('GET', '/orders?state=attention')).text, /Resolve stuck attempts/, 'nothing left to resolve');
      assert.match((await c.req('GET', '/audit')).text, /console:ada<\/td><td>resolve_stuck/, 'one audit entry, by its user');
    } finally {
      await g.stop();
      await app.close();
      await pg?.destroy();
    }
  });
}

const list = async (g, q) => (await gw(g, 'GET', '/v1/sessions?' + new URLSearchParams({ q }), { app: true })).json.sessions;

describe('registration, reports and Pay (SQLite)', () => {
  let g;
  before(async () => { g = await startGateway(sb, { extra: ['--attempt-rate-per-session', '12'] }); });
  after(async () => { await g?.stop(); });

  test('an attempt blocks Pay until the service said what happened; only a documented refusal arms it again', async () => {
    const s = await session(g);
    assert.deepEqual((await view(g, s)).payable, { armed: true, reason: 'none', attemptId: null, transactionId: null });
    const first = await register(g, s);
    assert.equal(first.status, 201, first.text);
    assert.match(first.json.attemptId, /^at_[0-9a-f]{32}$/);
    assert.equal(first.json.state, 'registered');
    // The tab closed mid-request (no report): a second tab may not pay.
    const second = await register(g, s);
    assert.equal(second.status, 409);
    assert.equal(second.json.error.code, 'attempt_in_flight');
    assert.equal(second.json.payable.reason, 'registered');
    // A documented refusal (419) stores nothing: Pay armed again.
    const refused = await report(g, s, first.json.attemptId, { error: { code: 'insufficient_balance', httpStatus: 419 } });
    assert.equal(refused.status, 200, refused.text);
    assert.equal(refused.json.state, 'refused');
    assert.equal((await report(g, s, first.json.attemptId, { transactionId: 'tx-x', status: 1 })).status, 409, 'one report');
    // A proxy's 502 after the service may have stored the payment: unknown, Pay stays off.
    const again = await register(g, s);
    assert.equal(again.status, 201);
    assert.equal((await report(g, s, again.json.attemptId, { error: { code: 'server', httpStatus: 502 } })).json.state, 'unknown');
    const blocked = await register(g, s);
    assert.equal(blocked.status, 409);
    assert.equal(blocked.json.payable.reason, 'unknown');
    const v = await view(g, s);
    assert.deepEqual(v.attempts.map((a) => a.state), ['refused', 'unknown']);
    assert.equal(v.status.payable.armed, false, 'the status carries payable too');
  });

  test('a browser that says "success" is only in progress; nothing reaches the session or the app as a success', async () => {
    const s = await session(g);
    const a = (await register(g, s)).json;
    const r = await report(g, s, a.attemptId, { transactionId: 'tx-' + crypto.randomUUID(), status: 1 });
    assert.equal(r.json.state, 'answered');
    const v = await view(g, s);
    assert.equal(v.status.success, false);
    assert.equal(v.status.status, null);
    assert.equal(v.payable.reason, 'in_progress');
    assert.equal(v.payable.transactionId, v.attempts[0].reportedTransactionId, "the shopper's reference: their browser's word");
    assert.equal(v.attempts[0].transactionId, null, 'nothing verified');
    const detail = (await gw(g, 'GET', `/v1/sessions/${s.id}`, { app: true })).json;
    assert.equal(detail.attempts[0].reported, true);
    assert.equal(detail.attempts[0].verified, 'none');
    assert.equal(detail.latestStatus.success, false);
  });

  test("another session's attempt id, bad reports and floods are refused", async () => {
    const s1 = await session(g);
    const s2 = await session(g);
    const a = (await register(g, s1)).json;
    assert.equal((await report(g, s2, a.attemptId, { transactionId: 't', status: 0 })).status, 404);
    for (const body of [{}, { transactionId: 'x y', status: 0 }, { transactionId: 't', status: '1' },
      { error: { code: 'server', httpStatus: 99 } }, { transactionId: 't', status: 1.5 }, { transactionId: 't', status: '-' }, { error: 'x' }, { transactionId: 't', status: 0, error: { code: 'server' } }]) {
      assert.equal((await report(g, s1, a.attemptId, body)).status, 400, JSON.stringify(body));
    }
    const form = await gw(g, 'POST', `/v1/checkout/${s1.id}/attempts`, { raw: 'method=exchange',
      headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    assert.equal(form.status, 415);
    assert.equal((await gw(g, 'POST', '/v1/checkout/cs_nope/attempts', { body: { method: 'exchange' } })).status, 404);
    const qrOnly = await session(g, { methods: ['exchange'] });
    assert.equal((await register(g, qrOnly, 'bank')).status, 400);
    // Only exchange and bank register here, as the core names them (a QR payment starts at /qr).
    for (const method of ['qr', 'card', 'Exchange']) {
      const r = await register(g, qrOnly, method);
      assert.equal(r.status, 400, method);
      assert.equal(r.json.error, 'validation', method);
      assert.equal(r.json.field, 'method', method);
    }
    // The limit (12 a minute here) counts registrations and reports of one session.
    const statuses = [];
    for (let i = 0; i < 14; i++) statuses.push((await register(g, s2)).status);
    assert.ok(statuses.includes(429), statuses.join(','));
  });

  test('the status stream carries payable: a registration turns it off, a verified failure arms it again', async () => {
    const s = await session(g);
    // Until the verified failure is on the stream. A stream reads the session's row when it is woken
    // (the wake carries no status), so changes close together may reach it as one event: what it
    // sends is, in order, a subsequence of what the session went through.
    // The registration waits for the stream's first event (its read of the row), so that the first
    // event shows the session before it.
    const stream = sse(`${g.base}/v1/checkout/${s.id}/status`, { until: (ev) => ev.some((e) => e.status === -1) });
    await stream.first;
    const a = (await register(g, s)).json;
    await report(g, s, a.attemptId, { transactionId: 'tx-' + crypto.randomUUID(), status: 0 });
    const tx = (await view(g, s)).attempts[0].reportedTransactionId;
    assert.equal((await gw(g, 'POST', '/v1/webhooks', { raw: signed(s.offerId, { id: tx, status: -1 }) })).status, 200);
    const seen = (await stream.done).map((e) => `${e.payable.armed} ${e.payable.reason} ${e.status}`);
    const went = ['true none null', 'false registered null', 'false in_progress null', 'true none -1'];
    assert.equal(seen[0], went[0], 'first: nothing yet, Pay armed');
    assert.equal(seen.at(-1), went[3], 'last: the verified failure, Pay armed again');
    let at = 0;
    for (const e of seen) {
      at = went.indexOf(e, at);
      assert.ok(at >= 0, `${JSON.stringify(seen)} is not in the order the session went through`);
    }
    assert.equal((await view(g, s)).payable.armed, true, 'a verified failure took nothing: Pay armed');
    assert.equal((await view(g, s)).attempts[0].state, 'no_money');
  });

  test('a paid session registers nothing', async () => {
    const s = await session(g);
    assert.equal((await gw(g, 'POST', '/v1/webhooks', { raw: signed(s.offerId, {}) })).status, 200);
    const r = await register(g, s);
    assert.equal(r.status, 409);
    assert.equal(r.json.error.code, 'already_paid');
  });
});

// The lost webhook, end to end against the real sandbox: the payment reaches the service, its
// webhook does not (the sandbox's webhook URL unset). The clock is moved past the threshold
// (a restart with PAYWASM_CLOCK_OFFSET_MS): one attention event; the merchant releases it; then the
// late webhook (the sandbox's URL set, the transaction advanced) applies and ships the order once.
for (const method of ['exchange', 'bank']) {
  test(`a lost ${method} webhook: one attention event, release arms Pay, the late webhook ships once`, { timeout: 60000 }, async () => {
    const app = await startShopApp({ toleranceS: 8 * 86400 });  // the gateway's clock is moved on
    const dir = tempDir('pwm-lost-');
    await sendJson('PUT', sb.base + '/__sandbox/webhook', { url: '' });
    // Sessions that outlive the thresholds (with the default hour, release finds the session expired).
    const extra = ['--session-ttl', '86400'];
    let g = await startGateway(sb, { dir, appCallback: app.url, extra });
    try {
      const price = method === 'bank' ? 49 : 64;
      const s = await session(g, { price });
      const a = (await register(g, s, method)).json;
      const payload = method === 'bank' ? bankPayload(sb.merchant, { offerId: s.offerId })
        : exchangePayload(sb.merchant, { offerId: s.offerId });
      const paid = method === 'bank'
        ? await api(sb, '/purchases', { token: sb.merchant.shopperToken, body: { data: encrypt(sb.merchant.publicKey, JSON.stringify(payload)) } })
        : await payExchange(sb, payload);
      assert.equal(paid.status, 200, paid.text);
      assert.equal((await report(g, s, a.attemptId, { transactionId: paid.json.id, status: paid.json.status })).status, 200);
      // A reload: Pay stays off, "payment in progress" with the transaction id.
      assert.deepEqual((await view(g, s)).payable, { armed: false, reason: 'in_progress', attemptId: a.attemptId, transactionId: paid.json.id });
      assert.equal((await register(g, s, method)).status, 409, 'no second payment');
      await g.stop();
      const threshold = method === 'bank' ? 61 : 181;
      g = await startGateway(sb, { dir, appCallback: app.url, extra, env: { PAYWASM_CLOCK_OFFSET_MS: String(threshold * MINUTE) } });
      const attention = await waitFor(() => app.events.find((e) => e.body.type === 'checkout.attention_needed'), 10000, 'attention')
        .catch((e) => { throw new Error(e.message + ': ' + g.stderr()); });
      assert.equal(attention.body.attemptId, a.attemptId);
      assert.equal(attention.body.transactionId, null, 'no webhook verified it');
      assert.equal(attention.body.reportedTransactionId, paid.json.id, "the browser's word, named as such");
      assert.equal(attention.body.success, false);
      const listed = (await gw(g, 'GET', '/v1/sessions?state=attention', { app: true })).json.sessions;
      assert.ok(listed.some((x) => x.id === s.id));
      // A second instance's pass (a restart) sends nothing more.
      await g.stop();
      g = await startGateway(sb, { dir, appCallback: app.url, extra, env: { PAYWASM_CLOCK_OFFSET_MS: String(threshold * MINUTE + 1000) } });
      const resolved = await gw(g, 'POST', `/v1/sessions/${s.id}/resolve`, { app: true,
        body: { attemptId: a.attemptId, resolution: 'release', note: 'portal shows nothing yet' } });
      assert.equal(resolved.status, 200, resolved.text);
      assert.equal(resolved.json.payable.armed, true, 'Pay armed');
      assert.equal(resolved.json.attempts[0].resolution, 'release');
      await waitFor(() => app.events.find((e) => e.body.type === 'checkout.released'), 10000, 'the release event');
      assert.equal(app.events.filter((e) => e.body.type === 'checkout.attention_needed').length, 1, 'one attention event');
      // The late webhook, from the service itself.
      await sendJson('PUT', sb.base + '/__sandbox/webhook', { url: g.base + '/v1/webhooks' });
      assert.equal((await sendJson('POST', `${sb.base}/__sandbox/transactions/${paid.json.id}/advance`, { status: 1 })).status, 200);
      await waitFor(() => app.events.find((e) => e.body.type === 'checkout.succeeded'), 10000, 'the success');
      await waitFor(() => app.events.find((e) => e.body.type === 'checkout.resolution_conflict'), 10000, 'the conflict flagged');
      const v = await view(g, s);
      assert.equal(v.status.success, true);
      assert.equal(v.payable.reason, 'paid');
      assert.equal((await register(g, s, method)).status, 409);
      assert.equal(app.events.filter((e) => e.body.type === 'checkout.succeeded').length, 1, 'shipped once');
      assert.ok((await gw(g, 'GET', '/v1/sessions?state=attention', { app: true })).json.sessions.some((x) => x.id === s.id),
        'the conflict is listed');
    } finally {
      await g.stop();
      await app.close();
      await sendJson('PUT', sb.base + '/__sandbox/webhook', { url: '' });
    }
  });
}

describe('the attention pass', () => {
  // The pass reads its candidates a page (500) at a time, oldest first, and pages on to the last:
  // 505 exchange attempts not yet due (younger than 180 min) do not hide 5 bank attempts behind
  // them that are (older than 60 min); later all 510 are due and each is signalled once.
  test('more stuck attempts than a page: none hidden behind attempts not yet due, each signalled once', { timeout: 120000 }, async () => {
    const app = await startShopApp({ toleranceS: 86400 });
    const dir = tempDir('pwm-page-');
    const extra = ['--session-ttl', '86400'];
    let g = await startGateway(sb, { dir, appCallback: app.url, extra });
    try {
      const made = { exchange: [], bank: [] };
      for (const [method, count] of [['exchange', 505], ['bank', 5]]) {
        for (let i = 0; i < count; i += 25) {
          made[method].push(...await Promise.all(Array.from({ length: Math.min(25, count - i) }, async () => {
            const r = await register(g, await session(g), method);
            assert.equal(r.status, 201, r.text);
            return r.json.attemptId;
          })));
        }
      }
      const signalled = () => app.events.filter((e) => e.body.type === 'checkout.attention_needed').map((e) => e.body.attemptId);
      await g.stop();
      g = await startGateway(sb, { dir, appCallback: app.url, extra, env: { PAYWASM_CLOCK_OFFSET_MS: String(61 * MINUTE) } });
      await waitFor(() => signalled().length >= 5, 20000, 'the bank attempts signalled');
      await outboxDrained(g);
      assert.deepEqual(signalled().sort(), [...made.bank].sort(), 'the 5 due bank attempts, not one exchange attempt');
      await g.stop();
      g = await startGateway(sb, { dir, appCallback: app.url, extra, env: { PAYWASM_CLOCK_OFFSET_MS: String(181 * MINUTE) } });
      await waitFor(() => signalled().length >= 510, 60000, 'all 510 signalled');
      await outboxDrained(g, 30000);
      const all = signalled();
      assert.equal(all.length, 510, 'one event each');
      assert.deepEqual([...new Set(all)].sort(), [...made.exchange, ...made.bank].sort(), 'every stuck attempt');
    } finally {
      await g.stop();
      await app.close();
    }
  });

  // Sessions take payments for --session-ttl (1 hour by default), the exchange threshold is 3
  // hours: an attempt of a session that expired meanwhile is still stuck money, and still reaches
  // the merchant; a release cannot arm Pay on it (expired), and the late webhook still applies.
  test('an attempt of a session that expired (default TTL) still becomes attention; released, Pay stays off; the late webhook applies', { timeout: 60000 }, async () => {
    const app = await startShopApp({ toleranceS: 86400 });
    const dir = tempDir('pwm-expired-');
    let g = await startGateway(sb, { dir, appCallback: app.url });
    try {
      const s = await session(g);
      const a = (await register(g, s)).json;
      const tx = 'tx-' + crypto.randomUUID();
      assert.equal((await report(g, s, a.attemptId, { transactionId: tx, status: 0 })).status, 200);
      await g.stop();
      g = await startGateway(sb, { dir, appCallback: app.url, env: { PAYWASM_CLOCK_OFFSET_MS: String(181 * MINUTE) } });
      const attention = await waitFor(() => app.events.find((e) => e.body.type === 'checkout.attention_needed'), 20000, 'attention');
      assert.deepEqual([attention.body.sessionId, attention.body.attemptId, attention.body.transactionId, attention.body.reportedTransactionId],
        [s.id, a.attemptId, null, tx]);
      assert.equal((await gw(g, 'GET', `/v1/checkout/${s.id}`)).status, 410, 'the session expired two hours ago');
      assert.equal((await gw(g, 'GET', `/v1/sessions/${s.id}`, { app: true })).json.payable.reason, 'expired', 'the app view says so');
      const listed = (await gw(g, 'GET', '/v1/sessions?state=attention', { app: true })).json.sessions;
      assert.ok(listed.some((x) => x.id === s.id), 'listed under state=attention');
      const released = await gw(g, 'POST', `/v1/sessions/${s.id}/resolve`, { app: true,
        body: { attemptId: a.attemptId, resolution: 'release', note: 'expired; nothing in the portal' } });
      assert.equal(released.status, 200, released.text);
      assert.deepEqual([released.json.payable.armed, released.json.payable.reason], [false, 'expired'], 'no Pay on an expired session');
      assert.equal((await gw(g, 'POST', '/v1/webhooks', { raw: signed(s.offerId, { id: tx, status: 1 }) })).status, 200);
      await waitFor(() => app.events.find((e) => e.body.type === 'checkout.succeeded' && e.body.sessionId === s.id), 10000, 'the success');
      await outboxDrained(g);
      assert.equal(app.events.filter((e) => e.body.type === 'checkout.attention_needed').length, 1, 'one attention event');
      assert.equal(app.events.filter((e) => e.body.type === 'checkout.succeeded').length, 1, 'shipped once');
    } finally {
      await g.stop();
      await app.close();
    }
  });
});

describe('two instances on one PostgreSQL', () => {
  let pg, a, b, app;
  before(async () => {
    pg = await startPostgres();
    app = await startShopApp();
    a = await startGateway(sb, { db: pg.url, dir: tempDir('pwm-aa-'), appCallback: app.url });
    b = await startGateway(sb, { db: pg.url, dir: tempDir('pwm-ab-'), appCallback: app.url });
  });
  after(async () => {
    await a?.stop();
    await b?.stop();
    await app?.close();
    await pg?.destroy();
  });

  test('two tabs registering at once through two instances: exactly one 201, 20 times', { timeout: 60000 }, async () => {
    for (let i = 0; i < 20; i++) {
      const s = await session(a);
      const answers = await Promise.all([register(a, s), register(b, s), register(a, s), register(b, s)]);
      assert.deepEqual(answers.map((r) => r.status).sort(), [201, 409, 409, 409], answers.map((r) => r.text).join('\n'));
    }
  });

  test('a debit raced "succeeded" against "pending" on two instances, 40 rounds: 40 final successes, events in order', { timeout: 120000 }, async () => {
    const subs = await activeSubscription(sb);
    const lost = [];
    for (let round = 0; round < 40; round++) {
      const orderId = `race-${round}-${crypto.randomUUID()}`;
      const d = await gw(a, 'POST', `/v1/subscriptions/${subs.id}/debit`, { app: true, body: { items: [{ amount: 15, currency: 'USD' }], orderId } });
      assert.equal(d.status, 200, d.text);
      const id = crypto.randomUUID();
      const tx = (status) => webhookBody(JSON.stringify({ id, status, merchantId: sb.merchant.merchantId,
        nativeAmount: '15.00', nativeCurrency: 'USD', meta: { offerId: orderId } }), key);
      const [x, y] = round % 2 ? [a, b] : [b, a];
      const answers = await Promise.all([gw(x, 'POST', '/v1/webhooks', { raw: tx(1) }), gw(y, 'POST', '/v1/webhooks', { raw: tx(0) })]);
      for (const r of answers) assert.equal(r.status, 200, r.text);
      const events = await waitFor(() => {
        const mine = app.events.filter((e) => e.body.transactionId === id);
        return mine.some((e) => e.body.type === 'subscription.debit.succeeded') && mine;
      }, 10000, 'the debit\'s success forwarded');
      // What arrived last is the success: a pending, if forwarded, came first.
      if (events.at(-1).body.type !== 'subscription.debit.succeeded') lost.push(round);
    }
    assert.deepEqual(lost, [], `${lost.length} of 40 debits ended on a late "pending"`);
  });
});
