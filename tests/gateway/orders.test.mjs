// One order state, everywhere (issue 45): each resolution of a stuck attempt (exchange, bank and a QR
// code the gateway made), each fault (a lost webhook on every method, a partial payment, a late
// webhook, the app down) walked through every reader of an order — the app API's orderState, every
// list filter (and the attention list), the CSV, the console's order page and overview, the status
// the customer's page reads (payable), the hosted page, and the events the app received (their
// orderState) — which must all say the same thing. On SQLite and PostgreSQL, against the real
// sandbox (QR codes made there; its webhooks reach the gateway only when this test delivers them:
// every other one is lost).
// Before issue 45: "paid elsewhere" read as pending in the API and the lists and expired later, the
// order page kept "(needs attention)" after a late webhook paid the attempt (and the attention list
// kept the order), the resolve form's default was "Release", a QR code with no answer was never
// raised and its resolve answered 404, the hosted page showed "Send the missing amount" after the
// shop accepted the underpayment, the overview counted an accepted underpayment's full total as paid
// and said "No order needs attention" beside a partly paid order and events the app refused.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';

import { getJson, sendJson } from '../server/harness.mjs';
import {
  SHOP_ORIGIN, freePort, gw, startGateway, startPostgres, startSandbox, startShopApp, tempDir, waitFor, webhookBody,
  webhookPrivateKey,
} from './harness.mjs';

const ADDRESS = { firstname: 'Grace', lastname: 'Hopper', email: 'grace@example.com', country: 'US', address1: '1 Main St',
  city: 'Arlington', zipcode: '22201' };
const MINUTE = 60000;
const PASSWORD = 'correct horse battery staple';
const STATES = ['partial', 'paid', 'pending', 'failed', 'refunded', 'expired'];

let sb, key;
before(async () => {
  sb = await startSandbox();
  key = webhookPrivateKey(sb);
});
after(async () => { await sb?.stop(); });

// The console's cookie jar: enough to log in and read pages.
class Console {
  constructor(base) { this.base = base; this.jar = new Map(); }
  async req(method, p, form) {
    const headers = { cookie: [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ') };
    let body;
    if (form) { headers['content-type'] = 'application/x-www-form-urlencoded'; body = new URLSearchParams(form).toString(); }
    const res = await fetch(this.base + p, { method, headers, body, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair.indexOf('=');
      this.jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
    return { status: res.status, text: await res.text() };
  }
  async login() {
    const page = await this.req('GET', '/login');
    const token = /name="login_token" value="([^"]+)"/.exec(page.text)[1];
    const r = await this.req('POST', '/login', { login_token: token, name: 'ada', password: PASSWORD });
    assert.equal(r.status, 303, r.text);
  }
}

// A signed webhook of the sandbox's key for an exchange or bank payment (its transaction made up:
// the browser reported it, the service's own webhook was lost).
const webhook = async (g, offerId, id, status, over = {}) => {
  const text = JSON.stringify({ id, status, merchantId: sb.merchant.merchantId, nativeAmount: '64.00', nativeCurrency: 'USD',
    amount: '64.00', currency: 'USD', meta: { offerId }, ...over });
  const r = await gw(g, 'POST', '/v1/webhooks', { raw: webhookBody(text, key) });
  assert.equal(r.status, 200, r.text);
};
// The sandbox's own signed webhook of transaction `tx` with `status`, delivered by hand (the
// sandbox's webhook URL points nowhere: whatever this does not deliver is lost).
const deliver = async (g, tx, status) => {
  const entry = await waitFor(async () => (await getJson(sb.base + '/__sandbox/webhooks?limit=1000'))
    .find((e) => e.transactionId === tx && e.status === status), 30000, `the sandbox's webhook ${status} of ${tx}`);
  const r = await gw(g, 'POST', '/v1/webhooks', { raw: typeof entry.body === 'string' ? entry.body : JSON.stringify(entry.body) });
  assert.equal(r.status, 200, r.text);
};

// What the hosted page shows: the receipt, the closed page, the expired page, or the checkout.
const HOSTED = { 'Payment received': 'receipt', 'This order is closed': 'closed', 'This checkout has expired': 'expired',
  Checkout: 'checkout' };

// What every reader says of session `s`.
async function readers(g, c, app, s) {
  const api = (await gw(g, 'GET', `/v1/sessions/${s.id}`, { app: true })).json;
  const lists = [];
  for (const state of [...STATES, 'attention']) {
    const r = await gw(g, 'GET', '/v1/sessions?' + new URLSearchParams({ state, q: s.offerId }), { app: true });
    assert.equal(r.status, 200, r.text);
    if (r.json.sessions.some((x) => x.id === s.id)) lists.push(state);
  }
  const csv = (await gw(g, 'GET', '/v1/sessions.csv?' + new URLSearchParams({ q: s.offerId }), { app: true })).text.split('\r\n');
  const page = (await c.req('GET', `/orders/${s.id}`)).text;
  const view = await gw(g, 'GET', `/v1/checkout/${s.id}`, { origin: SHOP_ORIGIN });
  // An expired checkout with nothing on it answers 410: the customer's page shows "expired".
  const customer = view.status === 410 ? { payable: { reason: 'expired' } } : view.json;
  assert.ok(customer?.payable, `${s.offerId}: ${view.status} ${view.text}`);
  const hosted = await fetch(`${g.base}/pay/${s.id}`);
  const h1 = /<h1>([^<]*)<\/h1>/.exec(await hosted.text())?.[1];
  const events = app.events.filter((e) => e.body.sessionId === s.id).sort((a, b) => a.body.createdAt.localeCompare(b.body.createdAt));
  return {
    api: api.orderState,
    lists,
    csv: JSON.parse('[' + csv[1].replace(/"'/g, '"') + ']')[3],
    page: /class="state-([a-z]+)"/.exec(page)[1],
    pageAttention: page.includes('(needs attention)'),
    payable: customer.payable.reason,
    hosted: HOSTED[h1] ?? `${hosted.status} ${h1}`,
    events: events.map((e) => e.body.type),
    eventState: events.at(-1)?.body.orderState,
  };
}

// What each order state means for the customer's page (payable.reason) and the hosted page.
const PAYABLE = { paid: ['paid'], failed: ['closed'], expired: ['expired'], pending: ['none', 'in_progress', 'unknown', 'registered'],
  partial: ['in_progress'] };
const PAGE = { paid: 'receipt', failed: 'closed', expired: 'expired', pending: 'checkout', partial: 'checkout' };

function suite(name, startDb) {
  describe(`every reader of an order agrees (${name})`, () => {
    let g, app, c, db, dir;
    const made = {};
    before(async () => {
      dir = tempDir('pwm-orders-');
      db = await startDb(dir);
      const added = spawnSync(process.env.PAYWASM_MERCHANT, ['console-user', 'add', 'ada', '--db', db.url], { input: PASSWORD + '\n' });
      assert.equal(added.status, 0, String(added.stderr));
      // The hosted pages need the widget's files; the pages are read as HTML here, never run.
      const widget = path.join(dir, 'widget');
      fs.mkdirSync(widget);
      for (const f of ['paywasm.js', 'paywasm.wasm', 'paywasm.css']) fs.writeFileSync(path.join(widget, f), '/* test */');
      app = await startShopApp({ toleranceS: 86400 });  // the gateway's clock is moved on
      const consolePort = await freePort();
      // Sessions for a day: a release leaves the order open (Pay again), not expired.
      const extra = ['--console-listen', `127.0.0.1:${consolePort}`, '--console-login-rate', '0', '--widget-dir', widget,
        '--session-ttl', '86400'];
      const start = (offset) => startGateway(sb, { dir, db: db.url, appCallback: app.url, extra,
        env: offset ? { PAYWASM_CLOCK_OFFSET_MS: String(offset) } : {} });
      g = await start(0);
      const session = async (label, methods = ['exchange', 'bank', 'qr']) => {
        const offerId = `${label}-${crypto.randomUUID()}`;
        const r = await gw(g, 'POST', '/v1/sessions', { app: true, body: { offerId, currency: 'USD',
          cart: [{ id: 'x', name: 'Blue mug', price: 64, quantity: 1 }], shippingAddress: ADDRESS, methods } });
        assert.equal(r.status, 201, r.text);
        return r.json;
      };
      // A lost webhook of an exchange or bank payment: an attempt reported with a transaction id
      // whose webhook never comes.
      const lost = async (label, method) => {
        const s = await session(label);
        const a = await gw(g, 'POST', `/v1/checkout/${s.id}/attempts`, { origin: SHOP_ORIGIN, body: { method } });
        assert.equal(a.status, 201, a.text);
        const tx = crypto.randomUUID();
        const rep = await gw(g, 'POST', `/v1/checkout/${s.id}/attempts/${a.json.attemptId}`, { origin: SHOP_ORIGIN,
          body: { transactionId: tx, status: 0 } });
        assert.equal(rep.status, 200, rep.text);
        return { ...s, attemptId: a.json.attemptId, tx, method };
      };
      // A lost webhook of a QR code: the code made at the sandbox, its first status (10, waiting)
      // delivered, nothing after it.
      const lostQr = async (label) => {
        const s = await session(label);
        const r = await gw(g, 'POST', `/v1/checkout/${s.id}/qr`, { origin: SHOP_ORIGIN, body: {} });
        assert.equal(r.status, 200, r.text);
        await deliver(g, r.json.result.id, 10);
        const attempt = (await gw(g, 'GET', `/v1/sessions/${s.id}`, { app: true })).json.attempts.find((a) => a.method === 'qr');
        assert.ok(attempt, 'the code is an attempt');
        assert.equal(attempt.transactionId, r.json.result.id);
        return { ...s, attemptId: attempt.attemptId, tx: r.json.result.id, method: 'qr' };
      };
      for (const method of ['exchange', 'bank']) {
        made[`elsewhere_${method}`] = await lost('elsewhere', method);
        made[`release_${method}`] = await lost('release', method);
        made[`notpaid_${method}`] = await lost('notpaid', method);
        made[`late_${method}`] = await lost('late', method);
        made[`elsewhere_late_${method}`] = await lost('elsewhere-late', method);
        made[`stuck_${method}`] = await lost('stuck', method);
      }
      for (const label of ['elsewhere', 'release', 'notpaid', 'late', 'stuck']) made[`${label}_qr`] = await lostQr(`${label}-qr`);
      // A payment link's session: the shopper's fields, then a QR code whose webhooks are lost.
      const link = await gw(g, 'POST', '/v1/links', { app: true, body: { currency: 'USD', methods: ['qr'], collectShipping: true,
        cart: [{ id: 'tea', name: 'Green tea', price: 8, quantity: 3 }] } });
      assert.equal(link.status, 201, link.text);
      const opened = (await fetch(`${g.base}/l/${link.json.id}`, { redirect: 'manual' })).headers.get('location');
      const details = await fetch(`${g.base}${opened}/details`, { method: 'POST', redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: g.base, 'sec-fetch-site': 'same-origin' },
        body: new URLSearchParams({ name: 'Ada Lovelace', email: 'ada@example.com', address1: '12 St James Sq', city: 'London',
          zipcode: 'SW1Y 4JH', country: 'gb' }).toString() });
      assert.equal(details.status, 303, await details.text());
      const linkSession = (await gw(g, 'GET', `/v1/sessions/${opened.slice(5)}`, { app: true })).json;
      const code = await gw(g, 'POST', `/v1/checkout/${linkSession.id}/qr`, { origin: SHOP_ORIGIN, body: {} });
      assert.equal(code.status, 200, code.text);
      await deliver(g, code.json.result.id, 10);
      const codeAttempt = (await gw(g, 'GET', `/v1/sessions/${linkSession.id}`, { app: true })).json.attempts.find((a) => a.method === 'qr');
      made.link_qr = { ...linkSession, attemptId: codeAttempt.attemptId, tx: code.json.result.id, method: 'qr', linkId: link.json.id };
      made.partial = await session('partial');
      await webhook(g, made.partial.offerId, crypto.randomUUID(), 101, { receivedAmount: '30.00' });
      made.accepted = await session('accepted');
      await webhook(g, made.accepted.offerId, crypto.randomUUID(), 101, { receivedAmount: '30.00' });
      made.verified = await session('verified');
      await webhook(g, made.verified.offerId, crypto.randomUUID(), 1);
      await g.stop();
      // Past the attention thresholds (exchange 180 min, bank 60, a QR code's window 60): each lost
      // webhook is stuck.
      g = await start(181 * MINUTE);
      await waitFor(() => app.events.filter((e) => e.body.type === 'checkout.attention_needed').length === 18, 30000,
        'eighteen attention events').catch((e) => { throw new Error(e.message + ': ' + g.stderr()); });
      c = new Console(g.base.replace(/:\d+$/, ':' + consolePort));
      await c.login();
      // Before any resolution: the form picks nothing for the merchant (Release was the default).
      const form = (await c.req('GET', `/orders/${made.elsewhere_exchange.id}`)).text;
      const select = /<select[^>]*name="resolution"[^>]*>(.*?)<\/select>/s.exec(form);
      assert.ok(select, 'a resolve form');
      assert.match(select[0], /required/);
      assert.match(select[1], /^<option value="">/);
      assert.doesNotMatch(select[1], /selected/);
      // A QR code past its window: no code is shown again, old or new.
      const again = await gw(g, 'POST', `/v1/checkout/${made.stuck_qr.id}/qr`, { origin: SHOP_ORIGIN, body: {} });
      assert.equal(again.status, 409, again.text);
      assert.equal(again.json.error, 'attempt_in_flight');
      assert.equal(again.json.payable.attemptId, made.stuck_qr.attemptId);
      const resolve = async (s, resolution) => {
        const r = await gw(g, 'POST', `/v1/sessions/${s.id}/resolve`, { app: true,
          body: { attemptId: s.attemptId, resolution, note: 'checked in the portal' } });
        assert.equal(r.status, 200, `${s.offerId}: ${r.text}`);
      };
      await resolve(made.link_qr, 'paid_elsewhere');
      for (const method of ['exchange', 'bank', 'qr']) {
        await resolve(made[`elsewhere_${method}`], 'paid_elsewhere');
        await resolve(made[`release_${method}`], 'release');
        await resolve(made[`notpaid_${method}`], 'not_paid');
      }
      for (const method of ['exchange', 'bank']) {
        await resolve(made[`elsewhere_late_${method}`], 'paid_elsewhere');
        // The late webhooks: the service's signed success, after the attention (and the resolution).
        for (const s of [made[`late_${method}`], made[`elsewhere_late_${method}`]]) await webhook(g, s.offerId, s.tx, 1);
      }
      await sendJson('POST', `${sb.base}/__sandbox/transactions/${made.late_qr.tx}/advance`, { status: 1 });
      await deliver(g, made.late_qr.tx, 1);
      const accept = await gw(g, 'POST', `/v1/sessions/${made.accepted.id}/accept-underpayment`, { app: true, body: { note: 'ok' } });
      assert.equal(accept.status, 200, accept.text);
    });
    after(async () => { await g?.stop(); await app?.close(); await db?.destroy?.(); });

    // The expected state of each case, whether it still needs the merchant, and the event that says it.
    const cases = () => {
      const out = [];
      for (const method of ['exchange', 'bank', 'qr']) {
        out.push([made[`elsewhere_${method}`], 'paid', false, 'checkout.paid_elsewhere']);
        out.push([made[`release_${method}`], 'pending', false, 'checkout.released']);
        out.push([made[`notpaid_${method}`], 'failed', false, 'checkout.marked_unpaid']);
        out.push([made[`late_${method}`], 'paid', false, 'checkout.succeeded']);
        out.push([made[`stuck_${method}`], 'pending', true, 'checkout.attention_needed']);
      }
      for (const method of ['exchange', 'bank']) out.push([made[`elsewhere_late_${method}`], 'paid', false, 'checkout.succeeded']);
      out.push([made.partial, 'partial', false, 'checkout.partially_paid']);
      out.push([made.accepted, 'paid', false, 'checkout.underpayment_accepted']);
      out.push([made.verified, 'paid', false, 'checkout.succeeded']);
      out.push([made.link_qr, 'paid', false, 'checkout.paid_elsewhere']);
      return out;
    };

    test('each case: the API, every list filter, the CSV, the order page, the customer page, the hosted page and the events agree',
      { timeout: 180000 }, async () => {
        for (const [s, state, attention, event] of cases()) {
          await waitFor(async () => app.events.some((e) => e.body.sessionId === s.id && e.body.type === event), 30000, `${s.offerId}: ${event}`);
          const r = await readers(g, c, app, s);
          const label = `${s.offerId}: ${JSON.stringify(r)}`;
          assert.equal(r.api, state, label);
          assert.deepEqual(r.lists, attention ? [state, 'attention'] : [state], label);
          assert.equal(r.csv, state, label);
          assert.equal(r.page, state, label);
          assert.equal(r.pageAttention, attention, label);
          assert.ok(PAYABLE[state].includes(r.payable), label);
          assert.equal(r.hosted, PAGE[state], label);
          assert.equal(r.eventState, state, label);
          assert.equal(r.events.filter((t) => t === 'checkout.succeeded').length, event === 'checkout.succeeded' ? 1 : 0, label);
        }
      });

    test('the customer\'s page after each decision: released is Pay again (a QR code: a new code), stuck is held', async () => {
      for (const method of ['exchange', 'bank']) {
        const view = (await gw(g, 'GET', `/v1/checkout/${made[`release_${method}`].id}`, { origin: SHOP_ORIGIN })).json;
        assert.deepEqual([view.payable.armed, view.payable.reason], [true, 'none'], method);
        const stuck = (await gw(g, 'GET', `/v1/checkout/${made[`stuck_${method}`].id}`, { origin: SHOP_ORIGIN })).json;
        assert.equal(stuck.payable.armed, false, method);
      }
      const released = made.release_qr;
      const fresh = await gw(g, 'POST', `/v1/checkout/${released.id}/qr`, { origin: SHOP_ORIGIN, body: {} });
      assert.equal(fresh.status, 200, fresh.text);
      assert.notEqual(fresh.json.result.id, released.tx, 'the released code is never shown again');
      assert.equal(fresh.json.result.meta.offerId, `${released.offerId}~qr2`);
      // The accepted underpayment's receipt says what arrived, not "send the missing amount".
      const receipt = await (await fetch(`${g.base}/pay/${made.accepted.id}`)).text();
      assert.match(receipt, /<dt>Arrived<\/dt><dd>30\.00 USD<\/dd>/, receipt.slice(receipt.indexOf("<dl")));
      assert.match(receipt, /The shop accepted the amount that arrived/);
      const elsewhere = await (await fetch(`${g.base}/pay/${made.elsewhere_exchange.id}`)).text();
      assert.match(elsewhere, /The shop confirmed that your payment arrived/);
      assert.ok(elsewhere.includes(made.elsewhere_exchange.tx), 'the reference the shopper knows');
    });

    test('what the seller needs to ship: name, e-mail, address, products and link in the API, the lists, the CSV and the order page', async () => {
      const GRACE = { name: 'Grace Hopper', email: 'grace@example.com', address: '1 Main St, 22201 Arlington, US',
        products: [{ name: 'Blue mug', quantity: '1' }], linkId: null };
      const ADA = { name: 'Ada Lovelace', email: 'ada@example.com', address: '12 St James Sq, SW1Y 4JH London, GB',
        products: [{ name: 'Green tea', quantity: '3' }], linkId: made.link_qr.linkId };
      for (const [s, want, products] of [[made.verified, GRACE, 'Blue mug × 1'], [made.link_qr, ADA, 'Green tea × 3']]) {
        assert.deepEqual((await gw(g, 'GET', `/v1/sessions/${s.id}`, { app: true })).json.shipTo, want);
        const listed = (await gw(g, 'GET', '/v1/sessions?' + new URLSearchParams({ state: 'paid', q: s.offerId }), { app: true })).json.sessions;
        assert.deepEqual(listed.map((x) => x.shipTo), [want]);
        const csv = (await gw(g, 'GET', '/v1/sessions.csv?' + new URLSearchParams({ q: s.offerId }), { app: true })).text.split('\r\n');
        const head = JSON.parse('[' + csv[0] + ']');
        const line = JSON.parse('[' + csv[1] + ']');
        const cell = (name) => line[head.indexOf(name)];
        assert.deepEqual([cell('customer'), cell('email'), cell('shippingAddress'), cell('products'), cell('linkId')],
          [want.name, want.email, want.address, products, want.linkId ?? '']);
        const esc = (t) => t.replace(/</g, '&lt;').replace(/>/g, '&gt;');
        const list = (await c.req('GET', '/orders?' + new URLSearchParams({ q: s.offerId }))).text;
        assert.ok(list.includes(esc(`${want.name} <${want.email}>`)) && list.includes(products), list);
        const page = (await c.req('GET', `/orders/${s.id}`)).text;
        const ship = page.slice(page.indexOf('id="ship-h"'), page.indexOf('</section>', page.indexOf('id="ship-h"')));
        for (const text of [want.name, want.email, want.address, products, want.linkId ?? 'not given']) assert.ok(ship.includes(text), `${text} in ${ship}`);
      }
    });

    test('a link opened without the shopper\'s fields is a visit, not an order: in no list, export or count', async () => {
      const created = async () => /<dt>Orders created<\/dt><dd>(\d+)<\/dd>/.exec((await c.req('GET', '/')).text.split('aria-label="Last 30 days"')[1])[1];
      const before = await created();
      const visit = (await fetch(`${g.base}/l/${made.link_qr.linkId}`, { redirect: 'manual' })).headers.get('location').slice(5);
      assert.equal((await gw(g, 'GET', `/v1/sessions/${visit}`, { app: true })).status, 200, 'the session exists');
      for (const state of ['', ...STATES]) {
        const r = await gw(g, 'GET', '/v1/sessions?' + new URLSearchParams({ state, q: visit }), { app: true });
        assert.deepEqual(r.json.sessions, [], `state=${state}`);
      }
      const all = (await gw(g, 'GET', '/v1/sessions?limit=200', { app: true })).json.sessions.map((x) => x.id);
      assert.ok(!all.includes(visit) && all.includes(made.link_qr.id), 'the link\'s order is listed, the visit is not');
      assert.ok(!(await gw(g, 'GET', '/v1/sessions.csv', { app: true })).text.includes(visit), 'not in the CSV');
      assert.ok(!(await c.req('GET', '/orders')).text.includes(visit), 'not in the console\'s list');
      assert.equal(await created(), before, 'not counted on the overview');
    });

    test('every event of a payment link\'s session carries its linkId', async () => {
      const events = app.events.filter((e) => e.body.sessionId === made.link_qr.id);
      assert.deepEqual(events.map((e) => e.body.type).sort(), ['checkout.attention_needed', 'checkout.awaiting_payment', 'checkout.paid_elsewhere']);
      for (const e of events) assert.equal(e.body.linkId, made.link_qr.linkId, e.body.type);
    });

    test('the overview: paid counts each kind apart, what arrived of an accepted underpayment, and what needs a person', { timeout: 60000 }, async () => {
      const paid = (await gw(g, 'GET', '/v1/sessions?state=paid&limit=200', { app: true })).json.sessions.length;
      const overview = (await c.req('GET', '/')).text;
      const card = overview.slice(overview.indexOf('aria-label="Last 30 days"'));
      // 4 paid elsewhere (one a link's), 5 late successes (2 of them after "paid elsewhere"), 1 verified, 1 accepted.
      assert.equal(paid, 11);
      assert.match(card, /<dt>Paid<\/dt><dd>11 \(6 verified, 1 underpayments you accepted, 4 paid elsewhere by your word\)<\/dd>/);
      assert.match(card, /Arrived of the underpayments you accepted<\/h3><ul><li>30\.00 USD<\/li>/);
      const verified = card.slice(card.indexOf('Paid, verified by the service'), card.indexOf('Arrived of the underpayments'));
      const sum = [...verified.matchAll(/<li>([\d.]+) USD by [a-z]+<\/li>/g)].reduce((t, m) => t + Math.round(Number(m[1]) * 100), 0);
      assert.equal(sum, 38400, 'the verified totals are the order totals the 6 successes paid: ' + verified);
      assert.match(overview, /3 order\(s\) with a payment attempt to resolve/);
      assert.match(overview, /1 order\(s\) partly paid/);
      assert.doesNotMatch(overview, /No order needs attention/);
      // The app down: events it refuses 3 times or more are on the overview until it takes them.
      app.failing = 1000;
      const down = await gw(g, 'POST', '/v1/sessions', { app: true, body: { offerId: 'down-' + crypto.randomUUID(), currency: 'USD',
        cart: [{ id: 'x', name: 'X', price: 64, quantity: 1 }], shippingAddress: ADDRESS, methods: ['exchange'] } });
      assert.equal(down.status, 201, down.text);
      await webhook(g, down.json.offerId, crypto.randomUUID(), 1);
      await waitFor(async () => /event\(s\) your app has refused 3 times or more/.test((await c.req('GET', '/')).text), 30000, 'the failing event on the overview');
      // Meanwhile every reader but the app already says paid; once the app takes the event, it too.
      const s = down.json;
      const during = await readers(g, c, app, s);
      assert.deepEqual([during.api, during.lists, during.csv, during.page, during.payable, during.hosted, during.eventState],
        ['paid', ['paid'], 'paid', 'paid', 'paid', 'receipt', undefined], JSON.stringify(during));
      app.failing = 0;
      await waitFor(async () => !/your app has refused/.test((await c.req('GET', '/')).text), 30000, 'the event taken');
      const taken = await readers(g, c, app, s);
      assert.deepEqual([taken.api, taken.lists, taken.csv, taken.page, taken.payable, taken.hosted, taken.eventState],
        ['paid', ['paid'], 'paid', 'paid', 'paid', 'receipt', 'paid'], JSON.stringify(taken));
    });
  });
}

suite('SQLite', async (dir) => ({ url: `sqlite:${dir}/gateway.db` }));
suite('PostgreSQL', async () => startPostgres());
