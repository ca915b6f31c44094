// Public payment links cannot flood the merchant, and their limits hold after a link opens (issue 40:
// P2, P8, P-e; docs/merchant.md "Payment links"), on SQLite and on the real PostgreSQL: HEAD opens
// nothing; no attempt or QR code before the shopper's fields; a per-client limit on attempt
// registration; an attempt nothing ever confirmed on a link session is no "needs attention" and goes
// with retention; usageLimit, deactivation and expiry enforced when a session pays; and usageLimit
// under real concurrent clients on two gateway instances over one PostgreSQL.
//   PAYWASM_SANDBOX=... PAYWASM_CLI=... PAYWASM_MERCHANT=... PAYWASM_WIDGET_DIST=<widget-dist> \
//     node --test-reporter=spec tests/gateway/link_limits.test.mjs
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import crypto from 'node:crypto';
import { gw, outboxDrained, startGateway, startPostgres, startSandbox, startShopApp, tempDir, waitFor } from './harness.mjs';

const WIDGET = process.env.PAYWASM_WIDGET_DIST;
const CART = [{ id: 'mug', name: 'Mug', price: 12.5, quantity: 2 }];
const DAY = 86400000;

let sb, app, pg;
before(async () => {
  assert.ok(WIDGET && fs.existsSync(`${WIDGET}/paywasm.js`), 'PAYWASM_WIDGET_DIST names the built widget');
  sb = await startSandbox();
  app = await startShopApp({ toleranceS: 41 * 86400 });  // one gateway below runs 40 days on
  pg = await startPostgres();
});
after(async () => { await app?.close(); await pg?.destroy(); await sb?.stop(); });

const start = (db, extra = [], more = {}) => startGateway(sb, { ...more, db, appCallback: app.url,
  extra: ['--widget-dir', WIDGET, '--trusted-proxy', '127.0.0.1', '--link-rate-per-client', '0', ...extra] });
const link = async (g, body = {}) => {
  const r = await gw(g, 'POST', '/v1/links', { app: true, body: { currency: 'USD', cart: CART, methods: ['exchange', 'qr'], ...body } });
  assert.equal(r.status, 201, r.text);
  return r.json;
};
// A visit: the new session's id.
const open = async (g, id) => {
  const r = await fetch(`${g.base}/l/${id}`, { redirect: 'manual' });
  assert.equal(r.status, 303);
  return r.headers.get('location').slice('/pay/'.length);
};
// The shopper's fields, as the hosted page's form sends them.
const details = async (g, session, fields = { name: 'Ada', email: 'ada@example.test' }) => {
  const r = await fetch(`${g.base}/pay/${session}/details`, { method: 'POST', redirect: 'manual', body: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: g.base, 'sec-fetch-site': 'same-origin' } });
  assert.equal(r.status, 303, await r.text());
};
const attempt = (g, session, from = '192.0.2.1') => gw(g, 'POST', `/v1/checkout/${session}/attempts`,
  { body: { method: 'exchange' }, headers: { 'x-forwarded-for': from } });
const qr = (g, session) => gw(g, 'POST', `/v1/checkout/${session}/qr`, { body: {} });
const linkSessions = async (g, id) => (await gw(g, 'GET', `/v1/links/${id}`, { app: true })).json.sessions;

for (const backend of ['sqlite', 'postgres']) {
  describe(`public links cannot flood the merchant; limits hold when paying (${backend})`, () => {
    let g;
    const db = () => (backend === 'postgres' ? pg.url : undefined);
    before(async () => { g = await start(db()); });
    after(async () => { await g?.stop(); });

    test('P-e: HEAD on a link opens nothing', async () => {
      const l = await link(g);
      for (let i = 0; i < 3; i++) {
        const r = await fetch(`${g.base}/l/${l.id}`, { method: 'HEAD', redirect: 'manual' });
        assert.equal(r.status, 200);
        assert.equal(r.headers.get('location'), null);
      }
      assert.deepEqual(await linkSessions(g, l.id), [], 'no session');
      await gw(g, 'PATCH', `/v1/links/${l.id}`, { app: true, body: { active: false } });
      assert.equal((await fetch(`${g.base}/l/${l.id}`, { method: 'HEAD' })).status, 410, 'a closed link says so');
    });

    test("P2: no attempt and no QR code before the shopper's fields (collectShipping's address included)", async () => {
      for (const body of [{}, { collectShipping: true }]) {
        const l = await link(g, body);
        const s = await open(g, l.id);
        const a = await attempt(g, s);
        assert.equal(a.status, 409, a.text);
        assert.equal(a.json.error.code, 'details_required');
        const q = await qr(g, s);
        assert.equal(q.status, 409, q.text);
        assert.equal(q.json.error, 'details_required');
        await details(g, s, body.collectShipping
          ? { name: 'Ada', email: 'ada@example.test', address1: '1 Road', city: 'Town', zipcode: '1000', country: 'GB' }
          : { name: 'Ada', email: 'ada@example.test' });
        assert.equal((await attempt(g, s)).status, 201, 'with the fields given');
      }
    });

    test('P8: usageLimit is enforced when a session pays, not only when it opens', async () => {
      const l = await link(g, { usageLimit: 1 });
      const [a, b] = [await open(g, l.id), await open(g, l.id)];  // both opened while nothing is paid
      await details(g, a);
      await details(g, b);
      assert.equal((await attempt(g, a)).status, 201);
      const refused = await attempt(g, b);
      assert.equal(refused.status, 409, refused.text);
      assert.equal(refused.json.error.code, 'link_used_up');
      const q = await qr(g, b);
      assert.equal(q.status, 409, q.text);
      assert.equal(q.json.error, 'link_used_up');
      assert.equal((await attempt(g, a)).json.error.code, 'attempt_in_flight', "a's own attempt is what holds the slot");
    });

    test('P8: a session opened before the link was deactivated, or before it expired, takes no payment', async () => {
      const l = await link(g);
      const s = await open(g, l.id);
      await details(g, s);
      await gw(g, 'PATCH', `/v1/links/${l.id}`, { app: true, body: { active: false } });
      const r = await attempt(g, s);
      assert.equal(r.status, 410, r.text);
      assert.equal(r.json.error.code, 'link_inactive');
      assert.equal((await qr(g, s)).json.error, 'link_inactive');
      // A link that expires in two seconds (whole seconds: its expiresAt is read to the second).
      const ends = Math.ceil((Date.now() + 2000) / 1000) * 1000;
      const e = await link(g, { expiresAt: new Date(ends).toISOString().replace(/\.\d+Z$/, 'Z') });
      const t = await open(g, e.id);
      await details(g, t);
      await waitFor(() => Date.now() > ends + 200, 10000, 'the link to expire');
      const late = await attempt(g, t);
      assert.equal(late.status, 410, late.text);
      assert.equal(late.json.error.code, 'link_expired');
    });

    test('P2: attempt registrations are limited per client (an IPv6 /64 is one), whatever the sessions', async () => {
      const limited = await start(db(), ['--attempt-rate-per-client', '2']);
      try {
        const l = await link(limited);
        const sessions = [];
        for (let i = 0; i < 4; i++) {
          const s = await open(limited, l.id);
          await details(limited, s);
          sessions.push(s);
        }
        const statuses = [];
        for (let i = 0; i < 3; i++) statuses.push((await attempt(limited, sessions[i], `2001:db8:50::${i + 1}`)).status);
        assert.deepEqual(statuses, [201, 201, 429]);
        assert.equal((await attempt(limited, sessions[3], '2001:db8:51::1')).status, 201, 'another /64');
      } finally { await limited.stop(); }
    });

    test("P2: a link session's attempt that no webhook confirmed is no attention, and goes with retention", { timeout: 120000 }, async () => {
      const dir = tempDir('pwm-linkret-');
      const database = db() ?? `sqlite:${dir}/gateway.db`;
      const extra = ['--retain-days', '30'];
      let h = await start(database, extra, { dir });
      let linkSession, reportedSession, appSession, appAttempt;
      try {
        const l = await link(h);
        linkSession = await open(h, l.id);
        await details(h, linkSession);
        assert.equal((await attempt(h, linkSession)).status, 201);
        // A second link session whose browser reported a made-up transaction: no more work either.
        reportedSession = await open(h, l.id);
        await details(h, reportedSession);
        const reportedAttempt = (await attempt(h, reportedSession)).json.attemptId;
        const said = await gw(h, 'POST', `/v1/checkout/${reportedSession}/attempts/${reportedAttempt}`,
          { body: { transactionId: 'tx-' + crypto.randomUUID(), status: 0 } });
        assert.equal(said.status, 200, said.text);
        // The same on a session the shop's app made: that one is the merchant's to look at.
        const made = await gw(h, 'POST', '/v1/sessions', { app: true, body: { offerId: 'ret-' + crypto.randomUUID(), currency: 'USD',
          cart: CART, methods: ['exchange'] } });
        assert.equal(made.status, 201, made.text);
        appSession = made.json.id;
        appAttempt = (await attempt(h, appSession)).json.attemptId;
      } finally { await h.stop(); }
      // 40 days on: past the attention thresholds and the retention.
      h = await start(database, extra, { dir, env: { PAYWASM_CLOCK_OFFSET_MS: String(40 * DAY) } });
      try {
        const attention = () => app.events.filter((e) => e.body.type === 'checkout.attention_needed');
        await waitFor(() => attention().some((e) => e.body.attemptId === appAttempt), 20000, "the app session's attention");
        await waitFor(async () => (await gw(h, 'GET', `/v1/sessions/${linkSession}`, { app: true })).status === 404, 20000,
          'the link session pruned');
        await waitFor(async () => (await gw(h, 'GET', `/v1/sessions/${reportedSession}`, { app: true })).status === 404, 20000,
          'the reported link session pruned');
        await outboxDrained(h);
        assert.ok(!attention().some((e) => [linkSession, reportedSession].includes(e.body.sessionId)), 'no attention for the link sessions');
        assert.equal((await gw(h, 'GET', `/v1/sessions/${appSession}`, { app: true })).status, 200, "the app's session is kept");
        const listed = (await gw(h, 'GET', '/v1/sessions?state=attention', { app: true })).json.sessions.map((x) => x.id);
        assert.ok(!listed.includes(linkSession));
      } finally { await h.stop(); }
    });
  });
}

describe('usageLimit under concurrent shoppers on two instances (PostgreSQL)', () => {
  test('of many sessions paying at once on two instances, never more than usageLimit register a payment', { timeout: 180000 }, async () => {
    const g1 = await start(pg.url);
    const g2 = await start(pg.url);
    try {
      for (const limit of [1, 1, 2, 3]) {
        const l = await link(g1, { usageLimit: limit });
        const sessions = [];
        for (let i = 0; i < 12; i++) {
          const s = await open(i % 2 ? g2 : g1, l.id);
          await details(g1, s);
          sessions.push(s);
        }
        // Each through its own connection, half on each instance, all at once.
        const answers = await Promise.all(sessions.map((s, i) => attempt(i % 2 ? g2 : g1, s, `198.51.100.${i + 1}`)));
        const ok = answers.filter((r) => r.status === 201).length;
        assert.equal(ok, limit, `usageLimit ${limit}: ${answers.map((r) => r.status)}`);
        for (const r of answers) if (r.status !== 201) assert.equal(r.json.error.code, 'link_used_up');
      }
    } finally { await g1.stop(); await g2.stop(); }
  });
});

// Issue 40 P-f: --widget-dir serves the widget's own files only, whatever else the folder holds.
test("P-f: the widget's folder serves the widget's files only", async () => {
  const dir = tempDir('pwm-widget-');
  for (const name of fs.readdirSync(WIDGET)) fs.copyFileSync(`${WIDGET}/${name}`, `${dir}/${name}`);
  fs.writeFileSync(`${dir}/notes.txt`, 'deploy password: hunter2');
  fs.writeFileSync(`${dir}/evil.html`, '<script>alert(1)</script>');
  const g = await startGateway(sb, { appCallback: app.url, extra: ['--widget-dir', dir] });
  try {
    for (const name of ['paywasm.js', 'paywasm.wasm', 'paywasm-nosimd.wasm', 'paywasm.css', 'paywasm-de.json', 'paywasm-pt-BR.json']) {
      assert.equal((await fetch(`${g.base}/assets/widget/${name}`)).status, 200, name);
    }
    for (const name of ['notes.txt', 'evil.html', 'integrity.json', 'paywasm.d.ts', 'paywasm-0.2.0.tgz']) {
      if (!fs.existsSync(`${dir}/${name}`)) continue;
      assert.equal((await fetch(`${g.base}/assets/widget/${name}`)).status, 404, name);
    }
  } finally { await g.stop(); }
});
