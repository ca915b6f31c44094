// Issue 32's "Done when", in a real browser (ctest widget.attempts.<engine>): the widget in session
// mode against the REAL sandbox payment service and the REAL merchant gateway, with the sandbox's
// webhook URL unset (a lost webhook: the service's events for the payment are logged as skipped).
//   PAYWASM_SANDBOX=<paywasm-sandbox> PAYWASM_MERCHANT=<paywasm-merchant> \
//     node --test-reporter=spec tests/browser/attempts.test.mjs --engine <chromium|firefox|webkit|wpe> --dist <dist dir>
// - exchange and bank: pay, reload, try to pay again: the service received one payment for the
//   order; the gateway restarted with its clock moved past the method's threshold
//   (PAYWASM_CLOCK_OFFSET_MS) sends the shop's app one checkout.attention_needed; the merchant
//   releases it (app API) and a reload arms Pay; the late webhook (the sandbox's URL set, the
//   transaction advanced) then ships the order once: one checkout.succeeded, the page says paid.
// - the 5xx path: a proxy in front of the service forwards the payment (the service stores it) and
//   answers 502: Pay stays off, on the page and after a reload; one payment.
// - QR, the merchant deciding while the page is open (issue 45): an accepted underpayment reads as
//   paid (never "send the missing amount"), so does a code resolved as paid elsewhere; a code closed
//   as not paid goes.
// The page reaches the service through that proxy (the gateway's --public-service-url), which
// counts every payment POST: a second payment with the same offerId is seen even though the
// sandbox would answer it with the first one's transaction (its idempotency replay).
// The engine interface is tests/browser/engines (index.mjs); the site, engines/site, under the
// sandbox's strict CSP, with the recorder pages/record.js.
import { after, afterEach, before, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { mountInPage, sandboxSite, distDir } from './lib.mjs';
import { launchEngine } from './engines/index.mjs';
import { openChecked, until } from './engines/checked.mjs';
import { getJson, sendJson } from '../server/harness.mjs';
import { gw, outboxDrained, startGateway, startSandbox, startShopApp } from '../gateway/harness.mjs';
import { holdPort, tempDir, waitFor } from '../support/node.mjs';

const here = path.dirname(new URL(import.meta.url).pathname);
const argv = process.argv.slice(2);
const ENGINE = argv.includes('--engine') ? argv[argv.indexOf('--engine') + 1] : process.env.PAYWASM_ENGINE;
const DIST = distDir(['paywasm.js', 'paywasm.wasm', 'paywasm-nosimd.wasm']);
const LIMIT = { timeout: 120000 };
const MINUTE = 60000;
// Past each method's default threshold (docs/merchant.md: --attention-exchange-minutes 180,
// --attention-bank-minutes 60).
const PAST_THRESHOLD = { exchange: 181 * MINUTE, bank: 61 * MINUTE };
// The service's payment endpoints (docs/service-api.md), as the proxy sees them.
const PAYMENT_PATH = /^\/api\/(exchanges\/payments\/[^/]+|purchases)$/;

let engine;   // launchEngine(ENGINE)
let siteDir;  // the site the sandbox serves
let sandbox;  // the payment service (the site, the widget, the API)
let proxy;    // the service's front (a load balancer): startProxy()
let app;      // the shop's app: every event the gateway forwards, signatures checked
let gwPort;   // the gateway's port: the same across its restarts (the page's connect-src names it)
let gateway;  // the running gateway (restarted by the tests)

// A proxy in front of the sandbox: forwards every request as it is and answers what the sandbox
// answered; while `fail502` > 0, a payment POST is forwarded (the service stores it) and then
// answered 502 (with CORS, so the page reads the status) as a load balancer that lost the answer
// does. `payments` lists every payment POST that reached it; `target` is the sandbox's origin.
async function startProxy() {
  const p = { target: null, payments: [], fail502: 0 };
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (d) => chunks.push(d));
    req.on('end', async () => {
      const payment = req.method === 'POST' && PAYMENT_PATH.test(req.url);
      if (payment) p.payments.push(req.url);
      const headers = { ...req.headers };
      delete headers.host;
      delete headers.connection;
      delete headers['content-length'];
      try {
        const body = chunks.length ? Buffer.concat(chunks) : undefined;
        const r = await fetch(p.target + req.url, { method: req.method, headers, body });
        const text = Buffer.from(await r.arrayBuffer());
        if (payment && p.fail502 > 0) {
          p.fail502--;
          res.writeHead(502, { 'content-type': 'text/html', 'access-control-allow-origin': '*' }).end('<html><body>502 Bad Gateway</body></html>');
          return;
        }
        const out = {};
        r.headers.forEach((v, k) => { if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(k)) out[k] = v; });
        res.writeHead(r.status, out).end(text);
      } catch (e) {
        res.writeHead(504, { 'access-control-allow-origin': '*' }).end(String(e.message));
      }
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  p.base = `http://127.0.0.1:${server.address().port}`;
  p.close = () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); });
  return p;
}

// The gateway on gwPort with its own database in `dir`, its clock moved by `offsetMs`. Sessions
// live a day (the thresholds are past the default hour's TTL: docs/merchant.md).
async function startGatewayAt(dir, offsetMs = 0) {
  gateway = await startGateway(sandbox, {
    port: gwPort, dir, shopOrigin: sandbox.base, appCallback: app.url,
    extra: ['--public-service-url', `${proxy.base}/api`, '--session-ttl', '86400'],
    env: offsetMs ? { PAYWASM_CLOCK_OFFSET_MS: String(offsetMs) } : {},
  });
  return gateway;
}
async function stopGateway() {
  const g = gateway;
  gateway = null;
  if (g) await g.stop();
}

before(async () => {
  assert.ok(ENGINE, 'name the engine: --engine <chromium|firefox|webkit|wpe>');
  siteDir = sandboxSite(path.join(here, 'engines/site'), 'paywasm-attempts-site-');
  const [launched] = await Promise.all([launchEngine(ENGINE), (async () => {
    const hold = await holdPort();
    gwPort = hold.port;
    // The proxy's origin is known before the sandbox starts (the page's connect-src names it);
    // it forwards to the sandbox once that is up.
    proxy = await startProxy();
    sandbox = await startSandbox(['--site', siteDir, '--dist', DIST,
      '--connect-src', `http://127.0.0.1:${gwPort}`, '--connect-src', proxy.base]);
    proxy.target = sandbox.base;
    await hold.release();
    // The gateway's clock is moved forward by hours: its signatures' times too.
    app = await startShopApp({ toleranceS: 86400 });
  })()]);
  engine = launched;
  console.log(`engine: ${engine.name} ${engine.version}`);
});
after(async () => {
  await engine?.close();
  await stopGateway();
  await proxy?.close();
  await sandbox?.stop();
  await app?.close();
  if (siteDir) fs.rmSync(siteDir, { recursive: true, force: true });
});

const CART = [{ id: 'sku-kettle', name: 'Gooseneck kettle', price: 64, quantity: 1 }];
const ADDRESS = { firstname: 'Grace', lastname: 'Hopper', city: 'Washington', country: 'US', email: 'grace@example.test' };
const control = (method, p, body) => sendJson(method, `${sandbox.base}/__sandbox${p}`, body);
const transactionsFor = async (offerId) =>
  (await getJson(`${sandbox.base}/__sandbox/transactions`)).filter((t) => t.offerId === offerId);
const eventsFor = (offerId, type) => app.events.filter((e) => e.body.offerId === offerId && (!type || e.body.type === type));

// ---- the page -------------------------------------------------------------------------------------

const pages = new Set();
afterEach(async () => {
  await Promise.all([...pages].map((page) => page.close().catch(() => {})));
  pages.clear();
  await stopGateway();
  await control('PUT', '/webhook', { url: null });
});

// A fresh page (nothing cached or stored) with the widget mounted on `sessionUrl` alone, as a shop
// that uses the gateway does; done() closes it and fails on uncaught errors or CSP violations.
const mountSession = (page, sessionUrl) => page.run(mountInPage, { sessionUrl, token: sandbox.merchant.shopperToken,
  accountId: 'acct-77', stockId: 'bank-conn-5', locale: 'en', timeout: '10000' });
async function openSession(sessionUrl) {
  const page = await openChecked(engine, `${sandbox.base}/`, pages);
  await mountSession(page, sessionUrl);
  return page;
}

// The shopper reloads the page (the shop mounts the widget on the same session again); what the
// recorder saw go wrong before is checked first (a load starts it again).
async function reload(page, sessionUrl) {
  const seen = await page.run(() => ({ errors: window.__errors, violations: window.__violations }));
  assert.deepEqual(seen, { errors: [], violations: [] }, 'uncaught errors or CSP violations before the reload');
  await page.goto(`${sandbox.base}/`);
  await until(page, () => typeof window.PayWasm === 'object' && Array.isArray(window.__events) && window.__events.length === 0,
    null, 'the page loaded again');
  await mountSession(page, sessionUrl);
}

// What the checkout shows: the status and error boxes' text, and the Pay buttons that are armed.
const shown = (page) => page.run(() => {
  const root = document.querySelector('paywasm-checkout').shadowRoot;
  const box = (sel) => { const el = root.querySelector(sel); return el && !el.hidden ? el.textContent : ''; };
  return {
    status: box('.status'), error: box('.error'),
    armed: [...root.querySelectorAll('button.pay')].filter((b) => !b.disabled && b.offsetParent !== null).map((b) => b.dataset.key),
  };
});

// The page once the widget has settled after a load: Pay drawn and armed, or the gateway's hold
// (or an error) shown.
const settled = (page) => until(page, () => {
  const root = document.querySelector('paywasm-checkout').shadowRoot;
  if (!root) return null;
  const text = (sel) => { const el = root.querySelector(sel); return el && !el.hidden ? el.textContent : ''; };
  const armed = [...root.querySelectorAll('button.pay')].some((b) => !b.disabled && b.offsetParent !== null);
  return armed || text('.status').length > 0 || text('.error').length > 0;
}, null, 'the checkout drawn (Pay armed, or why not)');

// The shopper tries to pay again: every armed Pay button is clicked (a widget that arms Pay after a
// reload pays a second time here). Returns the keys of the buttons clicked.
async function tryToPayAgain(page) {
  const { armed } = await shown(page);
  for (const key of armed) {
    const before = await page.run(() => window.__events.length);
    await page.click((k) => window.__shadow(`button[data-key=${k}]`), key);
    // Answered: an event, or the gateway's 409 drawn (Pay gone, the reason shown).
    await until(page, ([k, n]) => {
      const b = window.__shadow(`button[data-key=${k}]`);
      const box = window.__shadow('.status');
      return window.__events.slice(n).some((e) => e.type === 'paywasm-status' || e.type === 'paywasm-error')
        || ((!b || b.disabled || b.offsetParent === null) && box && !box.hidden && box.textContent.length > 0);
    }, [key, before], 'the answer to the second Pay');
  }
  return armed;
}

// A gateway session for CART (app API).
async function newSession(tag, methods = ['exchange', 'bank']) {
  const offerId = `${ENGINE}-${tag}-${crypto.randomUUID().slice(0, 8)}`;
  const r = await gw(gateway, 'POST', '/v1/sessions', { app: true,
    body: { offerId, currency: 'USD', cart: CART, shippingAddress: ADDRESS, methods } });
  assert.equal(r.status, 201, `session: ${r.text}`);
  return { id: r.json.id, offerId, url: `${gateway.base}/v1/checkout/${r.json.id}` };
}
const checkoutView = async (s) => (await gw(gateway, 'GET', `/v1/checkout/${s.id}`)).json;

// Pays by `method` on the page as a shopper does; resolves the first paywasm-status or paywasm-error.
async function payOnPage(page, method) {
  await settled(page);
  if (method === 'bank') {
    await page.click((m) => window.__shadow(`input#method-${m}`), method);
    await until(page, (m) => window.__shadow(`input#method-${m}`).checked, method, 'bank chosen');
  }
  await page.click((m) => window.__shadow(`button[data-key=pay-${m}]`), method);
  try {
    return await until(page, () => window.__events.find((e) => e.type === 'paywasm-status' || e.type === 'paywasm-error'), null,
      'the payment\'s answer');
  } catch (e) {
    // What the click led to, for the record: the page's POSTs, Pay's state, what reached the proxy.
    const seen = await page.run((m) => {
      const b = window.__shadow(`button[data-key=pay-${m}]`);
      return { posts: window.__posts.map((p) => p.url), pay: b && { disabled: b.disabled, label: b.textContent },
        busy: window.__shadow('[part~=container]').getAttribute('aria-busy'), console: window.__console,
        inputs: window.__inputs, rect: b && JSON.stringify(b.getBoundingClientRect()), now: Math.round(performance.now()),
        scroll: [window.scrollX, window.scrollY], viewport: [window.innerWidth, window.innerHeight] };
    }, method).catch(() => '?');
    throw new Error(`${e.message}; after the click: ${JSON.stringify(seen)}; payments at the proxy: ${proxy.payments.length}`);
  }
}

// The late webhook: the sandbox's URL set to the gateway, the transaction moved to success; the app
// gets the order's success exactly once (every event forwarded by then), and a reload of `page`
// says paid.
async function lateWebhookShipsOnce(s, transactionId, page) {
  assert.equal((await control('PUT', '/webhook', { url: `${gateway.base}/v1/webhooks` })).status, 200, 'webhook URL');
  const moved = await control('POST', `/transactions/${transactionId}/advance`, { status: 1 });
  assert.equal(moved.status, 200, `advance: ${JSON.stringify(moved.json)}`);
  await waitFor(() => eventsFor(s.offerId, 'checkout.succeeded').length > 0, { timeout: 20000, what: 'checkout.succeeded' });
  await outboxDrained(gateway);
  const succeeded = eventsFor(s.offerId, 'checkout.succeeded');
  assert.equal(succeeded.length, 1, 'the order is shipped once');
  assert.equal(succeeded[0].body.transactionId, transactionId, 'for the payment the shopper made');
  await reload(page, s.url);
  const complete = await until(page, () => window.__events.find((e) => e.type === 'paywasm-complete'), null, 'a reload says paid');
  assert.equal(complete.reference, transactionId, 'the payment shown paid');
  assert.deepEqual((await shown(page)).armed, [], 'nothing to pay');
}

// ---- a lost webhook, per method -----------------------------------------------------------------------

for (const method of ['exchange', 'bank']) {
  test(`${method}, its webhook lost: reload and Pay again pays nothing more; attention past ${PAST_THRESHOLD[method] / MINUTE} min; released; the late webhook ships once`, LIMIT, async () => {
    const dir = tempDir('paywasm-attempts-gw-');
    try {
      assert.equal((await control('PUT', '/webhook', { url: null })).status, 200, 'the webhook URL unset');
      await startGatewayAt(dir);
      const s = await newSession(method);
      const paymentsBefore = proxy.payments.length;

      // Pay: the service takes it (pending), its webhook goes nowhere.
      const page = await openSession(s.url);
      const answer = await payOnPage(page, method);
      assert.equal(answer.type, 'paywasm-status', JSON.stringify(answer));
      assert.equal(answer.status.code, 0, 'pending');
      const txId = answer.transaction.id;
      assert.ok(txId, 'a transaction id');
      const logged = await waitFor(async () => (await getJson(`${sandbox.base}/__sandbox/webhooks`))
        .filter((w) => w.transactionId === txId), { what: 'the sandbox logged the payment\'s webhook' });
      assert.deepEqual(logged.map((w) => w.state), ['skipped'], 'the webhook went nowhere');
      // The widget's report reached the gateway (a keepalive POST): the attempt is answered.
      const v = await waitFor(async () => { const x = await checkoutView(s); return x.attempts[0]?.state === 'answered' && x; },
        { what: 'the attempt reported' });
      assert.equal(v.attempts[0].reportedTransactionId, txId);
      assert.equal(v.attempts[0].transactionId, null, 'the browser\'s word only');
      assert.equal(v.status.status, null, 'nothing verified');

      // Reload: "payment in progress" with the transaction id; no Pay; trying pays nothing.
      await reload(page, s.url);
      await until(page, () => { const b = window.__shadow('.status'); return b && /Payment in progress/.test(b.textContent); }, null,
        '"Payment in progress"');
      const held = await shown(page);
      assert.ok(held.status.includes(txId), `the transaction id shown: ${held.status}`);
      assert.ok(held.status.includes('Please do not pay again') && held.status.includes(s.offerId), held.status);
      assert.deepEqual(held.armed, [], 'Pay is not armed');
      assert.deepEqual(await tryToPayAgain(page), [], 'nothing to click');
      await page.run(() => window.__ctl.reset());
      await settled(page);
      assert.deepEqual(await tryToPayAgain(page), [], 'nothing to click after the shop\'s reset()');
      const posted = await page.run(() => window.__posts.map((p) => p.url));
      assert.deepEqual(posted.filter((u) => /\/api\//.test(u)), [], 'the reloaded page sent the service nothing');
      assert.deepEqual(proxy.payments.slice(paymentsBefore).length, 1, 'the service received one payment');
      assert.equal((await transactionsFor(s.offerId)).length, 1, 'the sandbox holds one payment for the order');

      // The clock past the threshold (a restart with PAYWASM_CLOCK_OFFSET_MS): one attention event.
      await stopGateway();
      await startGatewayAt(dir, PAST_THRESHOLD[method]);
      const attention = await waitFor(() => eventsFor(s.offerId, 'checkout.attention_needed')[0], { timeout: 20000, what: 'checkout.attention_needed' });
      assert.equal(attention.body.attemptId, v.attempts[0].attemptId, 'the attempt');
      assert.equal(attention.body.reportedTransactionId, txId, 'its transaction, as the browser reported it');
      assert.equal(attention.body.method, method);
      assert.ok(eventsFor(s.offerId).every((e) => e.body.type !== 'checkout.succeeded'), 'no success without a verified webhook');

      // The merchant releases it (app API): a reload arms Pay.
      const resolved = await gw(gateway, 'POST', `/v1/sessions/${s.id}/resolve`, { app: true,
        body: { attemptId: attention.body.attemptId, resolution: 'release', note: 'nothing in the portal yet' } });
      assert.equal(resolved.status, 200, resolved.text);
      await waitFor(() => eventsFor(s.offerId, 'checkout.released').length === 1, { what: 'checkout.released' });
      await reload(page, s.url);
      await settled(page);
      assert.ok((await shown(page)).armed.length > 0, `Pay armed after the release: ${JSON.stringify(await shown(page))}`);

      // The late webhook applies by the money rules: shipped once; the release it contradicts is flagged.
      await lateWebhookShipsOnce(s, txId, page);
      await page.done();
      assert.equal(eventsFor(s.offerId, 'checkout.attention_needed').length, 1, 'one attention event');
      assert.equal(eventsFor(s.offerId, 'checkout.resolution_conflict').length, 1, 'the conflict with the release flagged');
      assert.equal(proxy.payments.slice(paymentsBefore).length, 1, 'still one payment');
    } finally {
      await stopGateway();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
}

// ---- the 5xx path ------------------------------------------------------------------------------------

test('a 502 from a proxy after the service stored the payment: Pay stays off, on the page and after a reload; one payment', LIMIT, async () => {
  const dir = tempDir('paywasm-attempts-gw-');
  try {
    assert.equal((await control('PUT', '/webhook', { url: null })).status, 200, 'the webhook URL unset');
    await startGatewayAt(dir);
    const s = await newSession('502');
    const paymentsBefore = proxy.payments.length;
    proxy.fail502 = 1;
    const page = await openSession(s.url);
    const answer = await payOnPage(page, 'exchange');
    assert.equal(answer.type, 'paywasm-error', JSON.stringify(answer));
    assert.equal(answer.error.code, 'server', 'a 5xx');
    assert.equal(answer.error.mayHaveGoneThrough, true, 'it may have gone through');
    assert.equal(proxy.fail502, 0, 'the proxy answered 502');
    const stored = await transactionsFor(s.offerId);
    assert.equal(stored.length, 1, 'the service stored the payment');
    // The report: unknown; the gateway holds Pay.
    const v = await waitFor(async () => { const x = await checkoutView(s); return x.attempts[0]?.state === 'unknown' && x; },
      { what: 'the attempt reported unknown' });
    assert.deepEqual([v.payable.armed, v.payable.reason], [false, 'unknown']);
    const onPage = await shown(page);
    assert.deepEqual(onPage.armed, [], `no Pay, no "Pay again": ${JSON.stringify(onPage)}`);
    assert.ok(/not known whether your payment reached/.test(onPage.error), onPage.error);
    assert.deepEqual(await tryToPayAgain(page), [], 'nothing to click');

    // A reload says the same; trying again pays nothing.
    await reload(page, s.url);
    await until(page, () => { const b = window.__shadow('.status'); return b && /not known whether/.test(b.textContent); }, null,
      '"not known whether your payment reached the payment service"');
    assert.deepEqual(await tryToPayAgain(page), [], 'nothing to click after a reload');
    assert.equal(proxy.payments.slice(paymentsBefore).length, 1, 'the service received one payment');
    assert.equal((await transactionsFor(s.offerId)).length, 1, 'the sandbox holds one payment');

    // The service's webhook, when it comes, is the word: the order ships once.
    await lateWebhookShipsOnce(s, stored[0].transaction.id, page);
    await page.done();
    assert.equal(proxy.payments.slice(paymentsBefore).length, 1, 'still one payment');
  } finally {
    proxy.fail502 = 0;
    await stopGateway();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// ---- the merchant decides while the shopper's page is open (issue 45) ------------------------------

// What the QR panel and the status box say, whether the code is shown, and Pay's state.
const qrPanel = (page) => page.run(() => {
  const root = document.querySelector('paywasm-checkout').shadowRoot;
  const status = root.querySelector('.status');
  return { code: !!root.querySelector('.qr-code svg'), text: root.textContent, status: status && !status.hidden ? status.textContent : '',
    armed: [...root.querySelectorAll('button.pay')].some((b) => !b.disabled && b.offsetParent !== null) };
});

test('QR on the shop\'s own page: an underpayment the merchant accepts reads as paid, never "send the missing amount"; paid elsewhere reads as paid; closed as not paid, the code goes', LIMIT, async () => {
  const dir = tempDir('paywasm-attempts-gw-');
  try {
    await startGatewayAt(dir);
    assert.equal((await control('PUT', '/webhook', { url: `${gateway.base}/v1/webhooks` })).status, 200, 'webhook URL');
    // The code shown on the page (the shopper pressed Pay): the gateway's transaction for it.
    const showCode = async (tag) => {
      const s = await newSession(tag, ['qr']);
      const page = await openSession(s.url);
      await settled(page);
      await page.click(() => window.__shadow('button[data-key=pay-qr]'));
      await until(page, () => !!window.__shadow('.qr-code svg'), null, 'the QR code shown');
      const tx = (await gw(gateway, 'POST', `/v1/checkout/${s.id}/qr`, { body: {} })).json.result.id;
      return { s, page, tx };
    };

    // Part of the amount arrives: the page asks for the rest, as the service's status says.
    const partial = await showCode('accepted');
    assert.equal((await control('POST', `/transactions/${partial.tx}/advance`, { status: 101 })).status, 200, 'partly paid');
    await until(partial.page, () => /Send the missing amount/.test(document.querySelector('paywasm-checkout').shadowRoot.textContent),
      null, '"send the missing amount" while nobody decided');
    // The merchant accepts what arrived, the page left open: the order reads as paid, the rest is
    // no longer asked for, no code, no Pay.
    const accepted = await gw(gateway, 'POST', `/v1/sessions/${partial.s.id}/accept-underpayment`, { app: true, body: { note: 'close enough' } });
    assert.equal(accepted.status, 200, accepted.text);
    await until(partial.page, () => /This order is already paid/.test(window.__shadow('.status')?.textContent || ''), null,
      '"This order is already paid" once the merchant accepted');
    const paid = await qrPanel(partial.page);
    assert.ok(!/missing amount|Missing/.test(paid.text), `the rest is no longer asked for: ${paid.text}`);
    assert.deepEqual([paid.code, paid.armed], [false, false], 'no code, no Pay');
    await partial.page.done();

    // A code whose answer never came, resolved by the merchant from the service's portal: paid
    // elsewhere reads as paid, not paid closes the checkout; either way the code goes.
    const resolve = async (tag, resolution, words) => {
      const open = await showCode(tag);
      const attempt = (await gw(gateway, 'GET', `/v1/sessions/${open.s.id}`, { app: true })).json.attempts.find((a) => a.transactionId === open.tx);
      const resolved = await gw(gateway, 'POST', `/v1/sessions/${open.s.id}/resolve`, { app: true,
        body: { attemptId: attempt.attemptId, resolution, note: 'the portal' } });
      assert.equal(resolved.status, 200, resolved.text);
      await until(open.page, (w) => new RegExp(w).test(window.__shadow('.status')?.textContent || ''), words,
        `"${words}" once the merchant resolved the code ${resolution}`);
      const after = await qrPanel(open.page);
      assert.deepEqual([after.code, after.armed], [false, false], `no code, no Pay: ${after.text}`);
      await open.page.done();
    };
    await resolve('elsewhere', 'paid_elsewhere', 'This order is already paid');
    await resolve('closed', 'not_paid', 'This checkout is closed');
  } finally {
    await stopGateway();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
