// The merchant's console (issue 34; docs/merchant.md "The console"): the app API's operations the
// console is a client of (orders list with keyset pages, the CSV export, events with every delivery
// attempt, resend, accept an underpayment, notes), on SQLite and on the real PostgreSQL; then the
// console's own listener: accounts, logins, CSRF, lockout, hostile text, and the shoppers' listener
// answering none of it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { execFileSync, spawnSync } from 'node:child_process';

import {
  GATEWAY, gw, outboxDrained, startGateway, startPostgres, startSandbox, startShopApp, waitFor, webhookBody,
  webhookEventId, webhookPrivateKey,
} from './harness.mjs';

const ADDRESS = { firstname: 'Ada', lastname: 'Lovelace', email: 'ada@example.com', country: 'GB' };

let sb, key;
before(async () => {
  sb = await startSandbox();
  key = webhookPrivateKey(sb);
});
after(async () => { await sb?.stop(); });

async function session(g, { offerId = 'co-' + crypto.randomUUID(), price = 64, name = 'Widget', address = ADDRESS } = {}) {
  const r = await gw(g, 'POST', '/v1/sessions', { app: true, body: { offerId, currency: 'USD',
    cart: [{ id: 'x', name, price, quantity: 1 }], shippingAddress: address, methods: ['exchange', 'bank'] } });
  assert.equal(r.status, 201, r.text);
  return r.json;
}
// The service's signed word on `offerId`: status `status`, with receivedAmount for a partial.
async function webhook(g, offerId, status, over = {}) {
  const text = JSON.stringify({ id: over.id ?? crypto.randomUUID(), status, merchantId: sb.merchant.merchantId,
    nativeAmount: '64.00', nativeCurrency: 'USD', amount: '64.00', currency: 'USD', meta: { offerId }, ...over });
  const r = await gw(g, 'POST', '/v1/webhooks', { raw: webhookBody(text, key) });
  assert.equal(r.status, 200, r.text);
  return { text, eventId: webhookEventId(text), id: JSON.parse(text).id };
}
const list = (g, query) => gw(g, 'GET', '/v1/sessions?' + new URLSearchParams(query), { app: true });

function apiSuite(name, startDb) {
  describe(`the app API's console operations (${name})`, () => {
    let g, app, db;
    const made = {};
    before(async () => {
      db = await startDb();
      app = await startShopApp();
      g = await startGateway(sb, { db: db?.url, appCallback: app.url });
      made.paid = await session(g);
      made.partial = await session(g);
      made.failed = await session(g);
      made.pending = await session(g);
      made.open = await session(g);
      made.paidTx = await webhook(g, made.paid.offerId, 1);
      made.partialTx = await webhook(g, made.partial.offerId, 101, { receivedAmount: '30.00' });
      await webhook(g, made.failed.offerId, -1);
      await webhook(g, made.pending.offerId, 0);
      await outboxDrained(g);
    });
    after(async () => { await g?.stop(); await app?.close(); await db?.destroy(); });

    test('each state filter lists its sessions, newest first, with orderState', async () => {
      for (const [state, s] of [['paid', made.paid], ['partial', made.partial], ['failed', made.failed],
        ['pending', made.pending], ['pending', made.open]]) {
        const r = await list(g, { state });
        assert.equal(r.status, 200, r.text);
        const ids = r.json.sessions.map((x) => x.id);
        assert.ok(ids.includes(s.id), `${state} lists ${s.offerId}`);
        for (const x of r.json.sessions) assert.equal(x.orderState, state);
      }
      const paid = (await list(g, { state: 'paid' })).json.sessions.map((x) => x.id);
      assert.ok(!paid.includes(made.partial.id) && !paid.includes(made.pending.id));
      assert.equal((await list(g, { state: 'refunded' })).json.sessions.length, 0);
      assert.equal((await list(g, { state: 'nonsense' })).status, 400);
      assert.equal((await gw(g, 'GET', '/v1/sessions')).status, 401, 'the app API needs its bearer');
    });

    test('q finds a session by offerId, session id and transaction id', async () => {
      for (const q of [made.partial.offerId, made.partial.id, made.partialTx.id]) {
        const r = await list(g, { q });
        assert.deepEqual(r.json.sessions.map((x) => x.id), [made.partial.id], q);
      }
      assert.deepEqual((await list(g, { q: 'no-such-order' })).json.sessions, []);
    });

    test('keyset pages: every session once, in order, and a foreign cursor is refused', async () => {
      const seen = [];
      let cursor = null;
      for (let i = 0; i < 20; i++) {
        const r = await list(g, { limit: 2, ...(cursor ? { cursor } : {}) });
        assert.equal(r.status, 200, r.text);
        seen.push(...r.json.sessions);
        cursor = r.json.nextCursor;
        if (!cursor) break;
      }
      assert.equal(new Set(seen.map((s) => s.id)).size, seen.length, 'no session twice');
      assert.ok(seen.length >= 5);
      const times = seen.map((s) => s.createdAt);
      assert.deepEqual(times, [...times].sort().reverse(), 'newest first');
      assert.equal((await list(g, { cursor: 'zz' })).status, 400);
      assert.equal((await list(g, { limit: 0 })).status, 400);
    });

    test('GET /v1/events/{id} has the body and every delivery attempt; a resend brings the same id again', async () => {
      app.failing = 2;
      const s = await session(g);
      const tx = await webhook(g, s.offerId, 0);
      await waitFor(() => app.events.some((e) => e.id === tx.eventId), 15000, 'the event after two failures');
      const ev = await gw(g, 'GET', `/v1/events/${tx.eventId}`, { app: true });
      assert.equal(ev.status, 200, ev.text);
      assert.equal(ev.json.body.sessionId, s.id);
      assert.deepEqual(ev.json.deliveries.map((d) => d.httpStatus), [500, 500, 204]);
      assert.match(ev.json.deliveries[0].error, /500/);
      assert.equal(ev.json.deliveries[2].error, null);
      const before = app.events.filter((e) => e.id === tx.eventId).length;
      const r = await gw(g, 'POST', `/v1/events/${tx.eventId}/resend`, { app: true });
      assert.equal(r.status, 202, r.text);
      await waitFor(() => app.events.filter((e) => e.id === tx.eventId).length === before + 1, 10000, 'the resent event');
      const again = app.events.filter((e) => e.id === tx.eventId);
      assert.deepEqual(again.at(-1).body, again[0].body, 'the same body');
      assert.equal((await gw(g, 'POST', '/v1/events/evt_nope/resend', { app: true })).status, 404);
      assert.equal((await gw(g, 'GET', '/v1/events/evt_nope', { app: true })).status, 404);
    });

    test('resend-failed makes every failed event since a time due now', async () => {
      const r = await gw(g, 'POST', '/v1/events/resend-failed', { app: true, body: { since: '2000-01-01T00:00:00Z' } });
      assert.equal(r.status, 200, r.text);
      assert.equal(typeof r.json.resent, 'number');
      assert.equal((await gw(g, 'POST', '/v1/events/resend-failed', { app: true, body: { since: 'yesterday' } })).status, 400);
    });

    test('accept-underpayment: only a partly paid session, once, with its own signed event', async () => {
      const refused = await gw(g, 'POST', `/v1/sessions/${made.paid.id}/accept-underpayment`, { app: true, body: { note: 'x' } });
      assert.equal(refused.status, 409);
      assert.equal(refused.json.error, 'not_partially_paid');
      const r = await gw(g, 'POST', `/v1/sessions/${made.partial.id}/accept-underpayment`, { app: true,
        body: { note: 'regular customer, rest by bank' } });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.orderState, 'paid');
      assert.ok(r.json.underpaymentAcceptedAt);
      assert.equal(r.json.latestStatus.state, 'partial', 'the service\'s status is kept as signed');
      await waitFor(() => app.events.some((e) => e.body.type === 'checkout.underpayment_accepted' && e.body.sessionId === made.partial.id),
        10000, 'checkout.underpayment_accepted');
      const ev = app.events.find((e) => e.body.type === 'checkout.underpayment_accepted');
      assert.deepEqual(ev.body.received, { amount: '30.00', currency: 'USD' });
      assert.deepEqual(ev.body.remaining, { amount: '34.00', currency: 'USD' });
      assert.equal(ev.body.accepted, true);
      assert.equal(ev.body.actor, 'app');
      const twice = await gw(g, 'POST', `/v1/sessions/${made.partial.id}/accept-underpayment`, { app: true, body: { note: 'x' } });
      assert.equal(twice.status, 409);
      assert.ok((await list(g, { state: 'paid' })).json.sessions.some((x) => x.id === made.partial.id));
    });

    test('notes are kept on the order', async () => {
      const r = await gw(g, 'POST', `/v1/sessions/${made.failed.id}/notes`, { app: true, body: { note: 'called the shopper' } });
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(r.json.notes.map((n) => [n.actor, n.note]), [['app', 'called the shopper']]);
      assert.equal((await gw(g, 'POST', `/v1/sessions/${made.failed.id}/notes`, { app: true, body: { note: '' } })).status, 400);
      assert.equal((await gw(g, 'POST', '/v1/sessions/cs_nope/notes', { app: true, body: { note: 'x' } })).status, 404);
    });

    test('the CSV export streams every order, formulas neutralised', async () => {
      const hostile = await session(g, { offerId: '=HYPERLINK("http://evil.example","x")', name: '+cmd|calc',
        address: { ...ADDRESS, firstname: '@SUM(1+1)', lastname: '-2+3' } });
      const r = await fetch(g.base + '/v1/sessions.csv', { headers: { authorization: 'Bearer not-the-secret' } });
      assert.equal(r.status, 401);
      const ok = await gw(g, 'GET', '/v1/sessions.csv', { app: true });
      assert.equal(ok.status, 200);
      assert.match(ok.headers.get('content-type'), /^text\/csv/);
      const lines = ok.text.trim().split('\r\n');
      assert.match(lines[0], /^"sessionId","offerId"/);
      const row = lines.find((l) => l.includes(hostile.id));
      assert.ok(row.includes('"\'=HYPERLINK(""http://evil.example"",""x"")"'), row);
      assert.ok(row.includes('"\'@SUM(1+1) -2+3"'), row);
      for (const cell of row.split('","')) assert.doesNotMatch(cell.replace(/^"/, ''), /^[=+\-@]/);
      const all = (await list(g, { limit: 200 })).json.sessions.length;
      assert.equal(lines.length - 1, all, 'one line per session');
      const paid = await gw(g, 'GET', '/v1/sessions.csv?state=paid', { app: true });
      assert.ok(paid.text.includes(made.paid.id) && !paid.text.includes(made.pending.id));
    });
  });
}

apiSuite('SQLite', async () => null);
apiSuite('PostgreSQL', startPostgres);
