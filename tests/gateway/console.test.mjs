// The merchant's console (issue 34; docs/merchant.md "The console"): the app API's operations the
// console is a client of (orders list with keyset pages, the CSV export, events with every delivery
// attempt, resend, accept an underpayment, notes), on SQLite and on the real PostgreSQL; then the
// console's own listener: accounts, logins, CSRF, lockout, hostile text, and the shoppers' listener
// answering none of it. The lockout and the login limits: console_login.test.mjs.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';

import {
  APP_SECRET, SHOP_ORIGIN, freePort, gw, tempDir, outboxDrained, startGateway, startPostgres, startSandbox, startShopApp, waitFor, webhookBody,
  webhookEventId, webhookPrivateKey,
} from './harness.mjs';
import { Client, consoleUser } from './console_client.mjs';
import http from 'node:http';
import net from 'node:net';

// A request with exactly these headers (fetch cannot set Host), from `localAddress`.
function raw(base, method, path, headers, body, localAddress) {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, method, path, headers, localAddress, agent: false,
      setHost: false }, (res) => {
      let text = '';
      res.on('data', (d) => { text += d; });
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
// A connection from `localAddress` that sent `text` and waits: { socket, closed }.
function hold(port, localAddress, text) {
  return new Promise((resolve, reject) => {
    const h = { closed: false };
    h.socket = net.connect({ port, host: '127.0.0.1', localAddress }, () => { h.socket.write(text); resolve(h); });
    h.socket.on('close', () => { h.closed = true; });
    h.socket.on('error', (e) => (h.socket.connecting ? reject(e) : null));
  });
}

const ADDRESS = { firstname: 'Ada', lastname: 'Lovelace', email: 'ada@example.com', country: 'GB' };

let sb, key;
before(async () => {
  sb = await startSandbox();
  key = webhookPrivateKey(sb);
});
after(async () => { await sb?.stop(); });

async function session(g, { offerId = 'co-' + crypto.randomUUID(), price = 64, name = 'Widget', address = ADDRESS,
  methods = ['exchange', 'bank'] } = {}) {
  const r = await gw(g, 'POST', '/v1/sessions', { app: true, body: { offerId, currency: 'USD',
    cart: [{ id: 'x', name, price, quantity: 1 }], shippingAddress: address, methods } });
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
    let g, app, db, consoleBase;
    const made = {};
    const PASSWORD = 'correct horse battery staple';
    before(async () => {
      db = await startDb();
      app = await startShopApp();
      // The console's listener too, for the order page's read of every delivery on this database.
      const dir = tempDir('pwm-api-');
      const url = db?.url ?? 'sqlite:' + dir + '/gateway.db';
      assert.equal(consoleUser(url, ['add', 'ada'], PASSWORD + '\n').status, 0);
      const port = await freePort();
      g = await startGateway(sb, { dir, db: url, appCallback: app.url,
        extra: ['--console-listen', `127.0.0.1:${port}`, '--console-login-rate', '0'] });
      consoleBase = `http://127.0.0.1:${port}`;
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

    test('P-c: a q or a note that is not UTF-8 text (or holds NUL) is refused (400), the export too', async () => {
      for (const q of ['%FF', 'abc%C3', '%ED%A0%80x', 'a%00b']) {
        for (const path of ['/v1/sessions?q=', '/v1/sessions.csv?q=']) {
          const r = await gw(g, 'GET', path + q, { app: true });
          assert.equal(r.status, 400, `${path}${q}: ${r.text}`);
          assert.equal(r.json.field, 'q');
        }
      }
      for (const note of ['\u0000', 'ok\u0000no']) {
        const r = await gw(g, 'POST', `/v1/sessions/${made.open.id}/notes`, { app: true, body: { note } });
        assert.equal(r.status, 400, r.text);
      }
      const bad = await fetch(`${g.base}/v1/sessions/${made.open.id}/notes`, { method: 'POST', body: Buffer.from('{"note":"\xff"}', 'latin1'),
        headers: { authorization: `Bearer ${APP_SECRET}`, 'content-type': 'application/json' } });
      assert.equal(bad.status, 400, 'not UTF-8 at all: the JSON reader refuses it');
    });

    test('q finds a session by offerId, session id and transaction id', async () => {
      for (const q of [made.partial.offerId, made.partial.id, made.partialTx.id]) {
        const r = await list(g, { q });
        assert.deepEqual(r.json.sessions.map((x) => x.id), [made.partial.id], q);
      }
      assert.deepEqual((await list(g, { q: 'no-such-order' })).json.sessions, []);
    });

    test('q of 3 characters or more also finds the offerIds that begin with it, paged, with the state filter', async () => {
      const run = 'pfx-' + crypto.randomUUID().slice(0, 8);
      const a1 = await session(g, { offerId: `${run}-a1` });
      const a2 = await session(g, { offerId: `${run}-a2` });
      const b1 = await session(g, { offerId: `${run}-b1` });
      const accented = await session(g, { offerId: `${run}-é1` });
      const after = await session(g, { offerId: `${run}-f1` });
      await webhook(g, a1.offerId, 1);
      const ids = async (query) => {
        const r = await list(g, query);
        assert.equal(r.status, 200, r.text);
        return r.json.sessions.map((x) => x.id).sort();
      };
      assert.deepEqual(await ids({ q: `${run}-a` }), [a1.id, a2.id].sort());
      assert.deepEqual(await ids({ q: run }), [a1.id, a2.id, b1.id, accented.id, after.id].sort());
      assert.deepEqual(await ids({ q: `${run}-é` }), [accented.id], 'a multi-byte last character');
      assert.deepEqual(await ids({ q: `${run}-a`, state: 'paid' }), [a1.id]);
      assert.deepEqual(await ids({ q: `${run}-a`, state: 'pending' }), [a2.id]);
      assert.deepEqual(await ids({ q: run.toUpperCase() }), [], 'case-sensitive');
      assert.deepEqual(await ids({ q: `${run}-_` }), [], 'no wildcard');
      assert.deepEqual(await ids({ q: `${run}%` }), [], 'no wildcard');
      assert.deepEqual(await ids({ q: a1.offerId.slice(0, 2) }), [], 'two characters: exact only');
      // Pages of the search: every match once, newest first.
      const seen = [];
      let cursor = null;
      do {
        const r = await list(g, { q: run, limit: 2, ...(cursor ? { cursor } : {}) });
        assert.ok(r.json.sessions.length <= 2);
        seen.push(...r.json.sessions);
        cursor = r.json.nextCursor;
      } while (cursor && seen.length < 10);
      assert.deepEqual(seen.map((x) => x.id).sort(), [a1.id, a2.id, b1.id, accented.id, after.id].sort());
      const times = seen.map((x) => x.createdAt);
      assert.deepEqual(times, [...times].sort().reverse(), 'newest first');
      await outboxDrained(g);  // the paid one's event is the app's before the next test counts failures
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
      // The app has the event before the forwarder records its answer: wait for the third delivery.
      const ev = await waitFor(async () => {
        const r = await gw(g, 'GET', `/v1/events/${tx.eventId}`, { app: true });
        return r.json?.deliveries?.length === 3 && r;
      }, 10000, 'the third delivery recorded');
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

    test("the console's order page lists every event of the order with every delivery, as GET /v1/events/{id} does", async () => {
      const s = await session(g);
      app.failing = 1;
      const pending = await webhook(g, s.offerId, 0);
      await waitFor(async () => (await gw(g, 'GET', `/v1/events/${pending.eventId}`, { app: true })).json?.deliveries?.length === 2,
        10000, 'the first event delivered after a failure');
      await webhook(g, s.offerId, 1, { id: pending.id });
      const ids = await waitFor(() => {
        const mine = [...new Set(app.events.filter((e) => e.body.sessionId === s.id).map((e) => e.id))];
        return mine.length >= 2 && mine;
      }, 10000, "the order's second event at the app");
      // Each event's deliveries as the API reads them (one query per event), once all are recorded.
      const api = await waitFor(async () => {
        const out = {};
        for (const id of ids) out[id] = (await gw(g, 'GET', `/v1/events/${id}`, { app: true })).json.deliveries.map((d) => `HTTP ${d.httpStatus}`);
        return Object.values(out).every((d) => d.at(-1) === 'HTTP 204') && out;
      }, 10000, 'every delivery recorded');
      assert.deepEqual(api[pending.eventId], ['HTTP 500', 'HTTP 204']);
      const c = new Client(consoleBase);
      assert.equal((await c.login('ada', PASSWORD)).status, 303);
      const page = await c.req('GET', `/orders/${s.id}`);
      assert.equal(page.status, 200);
      const shown = {};
      for (const [, id, list] of page.text.matchAll(/<ul aria-label="Delivery attempts of ([^"]+)">(.*?)<\/ul>/g)) {
        shown[id] = [...list.matchAll(/<\/time>(HTTP \d+|no answer)/g)].map((m) => m[1]);  // (an error may say HTTP too)
      }
      assert.deepEqual(shown, api, 'the page shows each event of the order with its deliveries, oldest first');
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
      // A spreadsheet that splits on ; (most non-English Excel locales), a tab or |, and reads quotes
      // only at a cell's start, sees no formula in the shopper's name either.
      const split = await session(g, { address: { ...ADDRESS, firstname: 'Ann;=1+2;x', lastname: 'B,+3|@4 -5; "=6' } });
      const splitRow = (await gw(g, 'GET', '/v1/sessions.csv', { app: true })).text.split('\r\n').find((l) => l.includes(split.id));
      assert.ok(splitRow.includes(`"Ann;'=1+2;x B,'+3|'@4 -5; ""'=6"`), splitRow);
      for (const separator of [',', ';', '\t', '|']) {
        for (const cell of splitRow.split(separator)) assert.doesNotMatch(cell, /^[\s"]*[=+\-@]/, `split on ${JSON.stringify(separator)}`);
      }
    });
  });
}

apiSuite('SQLite', async () => null);
apiSuite('PostgreSQL', startPostgres);

// state=attention pages like every other state: the sessions' own keyset, the same cursor.
function attentionSuite(name, startDb) {
  test(`state=attention is keyset-paged, each session with the attempts that put it there (${name})`, { timeout: 60000 }, async () => {
    const db = await startDb();
    const dir = tempDir('pwm-attention-');
    const opts = { dir, db: db?.url, extra: ['--session-ttl', '86400'] };
    let g = await startGateway(sb, opts);
    try {
      const stuck = [];
      for (let i = 0; i < 3; i++) {
        const s = await session(g);
        const a = await gw(g, 'POST', `/v1/checkout/${s.id}/attempts`, { origin: SHOP_ORIGIN, body: { method: 'exchange' } });
        assert.equal(a.status, 201, a.text);
        stuck.push(s);
      }
      const calm = await session(g);
      await g.stop();
      // Past the exchange threshold (180 minutes): the attention pass flags the three attempts.
      g = await startGateway(sb, { ...opts, env: { PAYWASM_CLOCK_OFFSET_MS: String(181 * 60000) } });
      await waitFor(async () => (await list(g, { state: 'attention' })).json.sessions.length === 3, 15000, 'three sessions need attention');
      const seen = [];
      const pages = [];
      let cursor = null;
      do {
        const r = await list(g, { state: 'attention', limit: 2, ...(cursor ? { cursor } : {}) });
        assert.equal(r.status, 200, r.text);
        pages.push(r.json.sessions.length);
        seen.push(...r.json.sessions);
        cursor = r.json.nextCursor;
      } while (cursor && pages.length < 5);
      assert.deepEqual(pages, [2, 1], 'two pages');
      assert.deepEqual(seen.map((x) => x.id).sort(), stuck.map((x) => x.id).sort(), 'each once');
      const times = seen.map((x) => x.createdAt);
      assert.deepEqual(times, [...times].sort().reverse(), 'newest first');
      for (const x of seen) assert.ok(x.attempts.length === 1 && x.attempts[0].attentionAt, 'with its stuck attempt');
      assert.equal((await list(g, { state: 'attention', cursor: 'zz' })).status, 400);
      // A search within the attention list.
      assert.deepEqual((await list(g, { state: 'attention', q: stuck[1].offerId })).json.sessions.map((x) => x.id), [stuck[1].id]);
      assert.deepEqual((await list(g, { state: 'attention', q: calm.offerId })).json.sessions, []);
    } finally {
      await g.stop();
      await db?.destroy();
    }
  });
}

attentionSuite('SQLite', async () => null);
attentionSuite('PostgreSQL', startPostgres);

// ---- the console's listener ----

describe('the console (SQLite)', () => {
  let g, app, dir, db, consoleBase;
  const PASSWORD = 'correct horse battery staple';
  before(async () => {
    dir = tempDir('pwm-console-');
    db = 'sqlite:' + dir + '/gateway.db';
    assert.equal(consoleUser(db, ['add', 'ada'], 'short\n').status, 2, 'a short password is refused');
    const added = consoleUser(db, ['add', 'ada'], PASSWORD + '\n');
    assert.equal(added.status, 0, added.stderr);
    assert.equal(consoleUser(db, ['add', 'grace'], PASSWORD + '\n').status, 0);
    assert.equal(consoleUser(db, ['add', 'mallory'], PASSWORD + '\n').status, 0);
    assert.equal(consoleUser(db, ['add', 'ada'], PASSWORD + '\n').status, 1, 'no second ada');
    assert.match(consoleUser(db, ['list']).stdout, /^ada\t.*\ngrace\t.*\nmallory\t/);
    assert.equal(consoleUser(db, ['remove', 'mallory']).status, 0);
    assert.doesNotMatch(consoleUser(db, ['list']).stdout, /mallory/);
    app = await startShopApp();
    const port = await freePort();
    g = await startGateway(sb, { dir, db, appCallback: app.url, extra: ['--console-listen', `127.0.0.1:${port}`, '--console-login-rate', '0'] });
    consoleBase = `http://127.0.0.1:${port}`;
  });
  after(async () => { await g?.stop(); await app?.close(); });

  test('no login: the pages send to /login, the API answers 401, the export too', async () => {
    const c = new Client(consoleBase);
    const home = await c.req('GET', '/');
    assert.equal(home.status, 303);
    assert.equal(home.headers.get('location'), '/login');
    assert.equal((await c.req('GET', '/orders')).headers.get('location'), '/login');
    assert.equal((await c.req('GET', '/api/sessions')).status, 401);
    assert.equal((await c.req('GET', '/orders.csv')).status, 401);
    const login = await c.req('GET', '/login');
    assert.equal(login.status, 200);
    const csp = login.headers.get('content-security-policy');
    assert.match(csp, /default-src 'none'/);
    assert.doesNotMatch(csp, /unsafe-inline|http/);
    // What lets the forms refuse `Origin: null` (console_http.hpp): under this policy a browser names
    // the page's origin on its own form posts (under no-referrer it would send null).
    assert.equal(login.headers.get('referrer-policy'), 'same-origin');
    assert.ok(!/<script/i.test(login.text) && !/ style=/i.test(login.text), 'no script, no inline style');
  });

  test('a login cookie is HttpOnly and SameSite=Strict, and a cookie fixed before login is not the login', async () => {
    const c = new Client(consoleBase);
    c.jar.set('paywasm_console', 'fixed-by-the-attacker');
    const r = await c.login('ada', PASSWORD);
    assert.equal(r.status, 303, r.text);
    const set = r.headers.getSetCookie().find((l) => l.startsWith('paywasm_console='));
    assert.match(set, /HttpOnly/);
    assert.match(set, /SameSite=Strict/);
    assert.notEqual(c.jar.get('paywasm_console'), 'fixed-by-the-attacker');
    assert.equal((await c.req('GET', '/')).status, 200);
    const attacker = new Client(consoleBase);
    attacker.jar.set('paywasm_console', 'fixed-by-the-attacker');
    assert.equal((await attacker.req('GET', '/')).status, 303, 'the fixed value opens nothing');
    // Logging out ends the login on the server: the old cookie opens nothing any more.
    const token = c.jar.get('paywasm_console');
    const csrf = await c.csrf('/');
    assert.equal((await c.req('POST', '/logout', { csrf })).status, 303);
    const replay = new Client(consoleBase);
    replay.jar.set('paywasm_console', token);
    assert.equal((await replay.req('GET', '/')).status, 303);
  });

  test('a login form without its login token is refused', async () => {
    const c = new Client(consoleBase);
    const r = await c.req('POST', '/login', { name: 'ada', password: PASSWORD, login_token: 'forged' });
    assert.equal(r.status, 403);
  });

  test('a state-changing request without the CSRF token is refused (403), with it the action is done and audited', async () => {
    const s = await session(g);
    const c = new Client(consoleBase);
    await c.login('ada', PASSWORD);
    const none = await c.req('POST', `/orders/${s.id}/note`, { note: 'no token' });
    assert.equal(none.status, 403);
    const wrong = await c.req('POST', `/orders/${s.id}/note`, { note: 'wrong token', csrf: 'x'.repeat(43) });
    assert.equal(wrong.status, 403);
    const cross = await c.req('POST', `/orders/${s.id}/note`, { note: 'cross', csrf: await c.csrf('/') },
      { origin: 'http://evil.example' });
    assert.equal(cross.status, 403);
    const csrf = await c.csrf(`/orders/${s.id}`);
    // Without --console-origin, the console's origin is the one the browser asked for (its Host).
    const rebound = await c.req('POST', `/orders/${s.id}/note`, { note: 'other host', csrf }, { origin: 'http://localhost:1' });
    assert.equal(rebound.status, 403);
    const ok = await c.req('POST', `/orders/${s.id}/note`, { note: 'called the shopper', csrf }, { origin: consoleBase });
    assert.equal(ok.status, 303, ok.text);
    const page = await c.req('GET', `/orders/${s.id}`);
    assert.match(page.text, /Note by console:ada: called the shopper/);
    assert.deepEqual((await gw(g, 'GET', `/v1/sessions/${s.id}`, { app: true })).json.notes.map((n) => n.note), ['called the shopper']);
    assert.match((await c.req('GET', '/audit')).text, /console:ada<\/td><td>note/);
  });

  test('hostile cart names, offerIds and shopper names are inert in every page', async () => {
    const evil = '<img src=x onerror=alert(1)>';
    const s = await session(g, { offerId: '<script>alert(1)</script>', name: evil,
      address: { ...ADDRESS, firstname: '"><svg onload=alert(2)>', lastname: evil } });
    await webhook(g, s.offerId, 101, { receivedAmount: '10.00' });
    const c = new Client(consoleBase);
    await c.login('ada', PASSWORD);
    for (const path of ['/', '/orders', '/orders?state=partial', `/orders/${s.id}`, '/events', '/audit',
      '/orders?q=' + encodeURIComponent('<script>alert(1)</script>')]) {
      const page = await c.req('GET', path);
      assert.equal(page.status, 200, path);
      assert.ok(!page.text.includes('<script>') && !page.text.includes('<img src=x') && !page.text.includes('<svg onload'), path);
    }
    const order = await c.req('GET', `/orders/${s.id}`);
    assert.ok(order.text.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
    assert.ok(order.text.includes('&lt;img src=x onerror=alert(1)&gt;'));
  });

  // Issue 40 P3, P-a, P-b, P6: the console's listener against a page of another site and one client.
  test('P3: only its own host names are answered (421 otherwise): a rebinding name gets nothing', async () => {
    const port = new URL(consoleBase).port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`]) {
      assert.equal((await raw(consoleBase, 'GET', '/login', { host })).status, 200, host);
    }
    for (const host of [`rebind.attacker.example:${port}`, 'rebind.attacker.example', `127.0.0.1:${Number(port) + 1}`]) {
      const r = await raw(consoleBase, 'GET', '/login', { host });
      assert.equal(r.status, 421, host);
      assert.doesNotMatch(r.text, /login_token/, 'no page, no token');
    }
    const c = new Client(consoleBase);
    await c.login('ada', PASSWORD);
    const s = await session(g);
    const csrf = await c.csrf(`/orders/${s.id}`);
    const rebound = await raw(consoleBase, 'POST', `/orders/${s.id}/note`, { host: 'rebind.attacker.example', cookie: c.cookie(),
      'content-type': 'application/x-www-form-urlencoded', origin: 'http://rebind.attacker.example' }, `csrf=${csrf}&note=rebound`);
    assert.equal(rebound.status, 421);
    assert.equal((await gw(g, 'GET', `/v1/sessions/${s.id}`, { app: true })).json.notes.length, 0, 'no note');
  });

  test("P-a: a form with Origin: null is refused; P-b: JSON no-store and nosniff, script-src 'none'", async () => {
    const s = await session(g);
    const c = new Client(consoleBase);
    await c.login('ada', PASSWORD);
    const csrf = await c.csrf(`/orders/${s.id}`);
    const opaque = await c.req('POST', `/orders/${s.id}/note`, { note: 'from a sandboxed frame', csrf }, { origin: 'null' });
    assert.equal(opaque.status, 403);
    const login = new Client(consoleBase);
    const page = await login.req('GET', '/login');
    const token = /name="login_token" value="([^"]+)"/.exec(page.text)[1];
    assert.equal((await login.req('POST', '/login', { login_token: token, name: 'ada', password: PASSWORD }, { origin: 'null' })).status, 403);
    for (const path of ['/api/sessions', `/api/sessions/${s.id}`]) {
      const r = await c.req('GET', path);
      assert.equal(r.status, 200, path);
      assert.equal(r.headers.get('cache-control'), 'no-store', path);
      assert.equal(r.headers.get('x-content-type-options'), 'nosniff', path);
    }
    assert.match(page.headers.get('content-security-policy'), /script-src 'none'/);
  });

  test('P6: one address holds at most 16 of its connections; a trickled body is cut within 5 s', { timeout: 90000 }, async () => {
    const port = Number(new URL(consoleBase).port);
    // 16 connections from 127.0.0.1, each with half a request head; a 17th is answered 503 while
    // they are held (each head has 5 s: tried again should the machine be slow), one from 127.0.0.2 is not.
    let refused = 0;
    for (let round = 0; round < 3 && refused !== 503; round++) {
      const held = await Promise.all(Array.from({ length: 16 }, () => hold(port, '127.0.0.1', `GET /login HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`)));
      refused = (await raw(consoleBase, 'GET', '/login', { host: `127.0.0.1:${port}` })).status;
      const other = await raw(consoleBase, 'GET', '/login', { host: `127.0.0.1:${port}` }, undefined, '127.0.0.2');
      assert.equal(other.status, 200, 'another address is served');
      for (const h of held) h.socket.destroy();
    }
    assert.equal(refused, 503, 'the 17th connection of one address');
    // A body that never ends: closed by the 5 s body deadline (the 30 s one before).
    const slow = await hold(port, '127.0.0.1', `POST /login HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`
      + 'Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\nname=a');
    await waitFor(() => slow.closed, 20000, 'the trickled body cut');
  });

  test("P7: an attempt's order page tells a browser-reported transaction from a verified one", async () => {
    const s = await session(g);
    const a = await gw(g, 'POST', `/v1/checkout/${s.id}/attempts`, { origin: SHOP_ORIGIN, body: { method: 'exchange' } });
    assert.equal(a.status, 201, a.text);
    const said = 'tx-said-' + crypto.randomUUID();
    assert.equal((await gw(g, 'POST', `/v1/checkout/${s.id}/attempts/${a.json.attemptId}`, { origin: SHOP_ORIGIN,
      body: { transactionId: said, status: 0 } })).status, 200);
    const c = new Client(consoleBase);
    await c.login('ada', PASSWORD);
    const before = await c.req('GET', `/orders/${s.id}`);
    assert.ok(before.text.includes(`${said}</span> (reported by the browser, not verified)`), 'the browser\'s word, named as such');
    await webhook(g, s.offerId, 0, { id: said });
    const after = await c.req('GET', `/orders/${s.id}`);
    assert.ok(after.text.includes(`${said}</span> (verified)`), 'verified once a webhook attached it');
  });

  test("a payment of another amount reads as the status table's label and says it is not the order's total", async () => {
    const s = await session(g);
    await webhook(g, s.offerId, 1, { nativeAmount: '10.00' });
    const c = new Client(consoleBase);
    await c.login('ada', PASSWORD);
    const page = await c.req('GET', `/orders/${s.id}`);
    assert.equal(page.status, 200);
    // Before: "1 (amount_mismatch)" as the service status, "1 (successful)" on the timeline.
    assert.ok(page.text.includes("<dd>1 (successful, not the order&#39;s total)</dd>"), 'the service status');
    assert.ok(page.text.includes("The service signed status 1 (successful, not the order&#39;s total) for transaction"), 'the timeline');
  });

  test("the console's paths answer 404 on the shoppers' listener", async () => {
    for (const path of ['/login', '/orders', '/orders.csv', '/events', '/audit', '/subscriptions', '/assets/console.css', '/api/sessions']) {
      assert.equal((await fetch(g.base + path)).status, 404, path);
    }
    assert.equal((await fetch(g.base + '/logout', { method: 'POST' })).status, 404);
  });

  test('resend, resolve and accept from the console reach the app as the API would', async () => {
    const c = new Client(consoleBase);
    await c.login('ada', PASSWORD);
    const s = await session(g);
    const tx = await webhook(g, s.offerId, 101, { receivedAmount: '20.00' });
    await waitFor(() => app.events.some((e) => e.id === tx.eventId), 10000, 'the partial event');
    const page = await c.req('GET', `/orders/${s.id}`);
    assert.match(page.text, /Partly paid/);
    assert.match(page.text, /Arrived 20.00 USD of 64.00 USD; missing 44.00 USD/);
    // The service's status in the status table's words, not the stored state word ("101 (partial)").
    assert.ok(page.text.includes('<dd>101 (partial payment)</dd>'), 'the service status by its label');
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)[1];
    const n = app.events.filter((e) => e.id === tx.eventId).length;
    assert.equal((await c.req('POST', `/events/${tx.eventId}/resend`, { csrf, back: s.id })).status, 303);
    await waitFor(() => app.events.filter((e) => e.id === tx.eventId).length === n + 1, 10000, 'the same event again');
    const accepted = await c.req('POST', `/orders/${s.id}/accept`, { csrf, note: 'good customer' });
    assert.equal(accepted.status, 303, accepted.text);
    await waitFor(() => app.events.some((e) => e.body.type === 'checkout.underpayment_accepted' && e.body.sessionId === s.id
      && e.body.actor === 'console:ada'), 10000, 'the acceptance');
    const audit = await c.req('GET', '/audit');
    assert.match(audit.text, /accept_underpayment/);
    assert.match(audit.text, /resend/);
    // A stuck attempt (the tab closed mid-request) released by the merchant: checkout.released.
    const stuck = await session(g);
    const attempt = await gw(g, 'POST', `/v1/checkout/${stuck.id}/attempts`, { origin: SHOP_ORIGIN, body: { method: 'exchange' } });
    assert.equal(attempt.status, 201, attempt.text);
    const order = await c.req('GET', `/orders/${stuck.id}`);
    assert.match(order.text, /Resolve attempt/);
    const resolved = await c.req('POST', `/orders/${stuck.id}/resolve`, { csrf, attempt: attempt.json.attemptId,
      resolution: 'release', note: 'checked the portal: nothing arrived' });
    assert.equal(resolved.status, 303, resolved.text);
    await waitFor(() => app.events.some((e) => e.body.type === 'checkout.released' && e.body.sessionId === stuck.id), 10000, 'checkout.released');
    assert.equal((await gw(g, 'GET', `/v1/checkout/${stuck.id}`)).json.payable.armed, true, 'Pay is armed again');
    // A QR code on the timeline: its order id at the service and its transaction.
    const qr = await session(g, { methods: ['qr'] });
    const code = await gw(g, 'POST', `/v1/checkout/${qr.id}/qr`, { body: { cryptoCurrency: 'BTC' }, origin: SHOP_ORIGIN });
    assert.equal(code.status, 200, code.text);
    const qrPage = await c.req('GET', `/orders/${qr.id}`);
    assert.ok(qrPage.text.includes(`A QR code was made (order ${qr.offerId}~qr1), transaction `), 'the QR code on the timeline');
    const csv = await c.req('GET', '/orders.csv?state=paid');
    assert.equal(csv.status, 200);
    assert.ok(csv.text.includes(s.id));
  });
});

