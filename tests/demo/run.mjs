// `make demo` end to end, as a shop runs it: scripts/demo.sh (sandbox + paywasm-merchant + the example
// shop app) on free ports, then the demo page in Chromium takes all three methods — exchange, bank
// and QR — each through a session the shop's server created, to a final success shown by the widget
// (paywasm-complete), and the shop app receives each as a verified event from the gateway.
//   node --test-reporter=spec tests/demo/run.mjs   (PAYWASM_BIN_DIR, PAYWASM_DIST_DIR, PAYWASM_WASM_BUILD_DIR as for demo.sh)
// On Node's test runner (node:test) with the browser suites' harness (tests/browser/lib.mjs): the
// demo starts in a `before` hook and stops in an `after` hook. Exits non-zero when a test fails.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { useBrowser, waitEvent as waitEvents } from '../browser/lib.mjs';
import { startDemo } from './start.mjs';
import { waitFor } from '../support/node.mjs';

const LIMIT = { timeout: 60000 };  // each test's time limit
const chromium = useBrowser();
let demo;    // startDemo(): scripts/demo.sh, in its own process group
let SHOP;    // the shop app's origin
before(async () => {
  demo = await startDemo();
  SHOP = demo.shop;
});
after(async () => { await demo?.stop(); });

test('the demo prints the console\'s URL and password, and they log in', LIMIT, async () => {
  let m;
  await waitFor(() => (m = /Merchant console:\s+(\S+)\/\s+user demo, password (\S+)/.exec(demo.output())), 20000, 'the console line');
  assert.equal(m[1], demo.console);
  const form = await fetch(demo.console + '/login');
  const cookie = form.headers.getSetCookie()[0].split(';')[0];
  const token = /name="login_token" value="([^"]+)"/.exec(await form.text())[1];
  const login = await fetch(demo.console + '/login', { method: 'POST', redirect: 'manual',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ login_token: token, name: 'demo', password: m[2] }) });
  assert.equal(login.status, 303);
  const session = login.headers.getSetCookie().find((c) => c.startsWith('paywasm_console=')).split(';')[0];
  const home = await fetch(demo.console + '/', { headers: { cookie: session } });
  assert.match(await home.text(), /<h1>Overview<\/h1>/);
});

const shopJson = async (method, p, body) => {
  const r = await fetch(SHOP + p, { method, headers: body ? { 'content-type': 'application/json' } : {}, body: body && JSON.stringify(body) });
  return r.json();
};

// The demo page with the widget ready (its session made by the shop app on load).
async function openShop() {
  const { context, page, errors } = await chromium.newPage({ locale: 'en-US' });
  await page.addInitScript(() => {
    window.__events = [];
    for (const type of ['paywasm-ready', 'paywasm-status', 'paywasm-complete', 'paywasm-error']) {
      document.addEventListener(type, (e) => window.__events.push({ type, code: e.detail.status && e.detail.status.code,
        method: e.detail.method, id: e.detail.transaction && e.detail.transaction.id,
        error: e.detail.error && e.detail.error.code }));
    }
  });
  await page.goto(SHOP + '/');
  await page.waitForFunction(() => window.__events.some((e) => e.type === 'paywasm-ready'), null, { timeout: 20000 });
  // The shop's server made the session; the page gave the widget only its URL (session-url), and
  // the widget read the order from it: the offer id, and the session's cart drawn with its total.
  await page.waitForFunction(() => document.querySelector('paywasm-checkout').offerId, null, { timeout: 20000 });
  const offerId = await page.evaluate(() => document.querySelector('paywasm-checkout').offerId);
  assert.equal(await page.evaluate(() => document.querySelector('paywasm-checkout').getAttribute('offer-id')), null, 'offer-id is not an attribute: it came from the session');
  assert.equal(await page.locator('paywasm-checkout dd[part=total]').textContent(), '$82.00', 'the session\'s total (2 x 24.50 + 18 + 15)');
  // The session came after the widget had loaded (the page sets session-url once the shop made it):
  // the greeting (GET /users/me with the session's base URL) follows all the same (issue 24).
  const greeting = page.locator('paywasm-checkout .greeting');
  await greeting.waitFor({ state: 'visible', timeout: 20000 });
  assert.match(await greeting.textContent(), /^Signed in at the payment service as \S+/, 'the greeting');
  return { context, page, errors, offerId };
}

// The last of `n` events of `type` (fails after `timeout` ms listing the events seen).
const waitEvent = async (page, type, n = 1, timeout = 20000) => (await waitEvents(page, type, { nth: n, timeout })).at(-1);
const advance = (id) => shopJson('POST', `/__sandbox/transactions/${encodeURIComponent(id)}/advance`, {});

for (const method of ['exchange', 'bank', 'qr']) {
  test(`the demo shop takes a ${method} payment to success through the gateway`, LIMIT, async () => {
    const { context, page, errors, offerId } = await openShop();
    const pay = page.locator(`paywasm-checkout button[data-key=pay-${method}]`);
    if (method !== 'exchange') await page.locator(`paywasm-checkout input#method-${method}`).check();
    await pay.click();
    const first = await waitEvent(page, 'paywasm-status');
    assert.equal(first.method, method, 'method');
    assert.ok(first.code === 0 || first.code === 10, `first status ${first.code}`);
    // The sandbox's clock would finish it within seconds; the control API makes it now.
    if (method === 'qr') await advance(first.id);
    await advance(first.id);
    const complete = await waitEvent(page, 'paywasm-complete');
    assert.equal(complete.code, 1, 'success');
    // The shop app got the verified event from the gateway (its signature checked) for this order.
    await waitFor(async () => (await shopJson('GET', '/shop/events?since=0')).find((e) => e.offerId === offerId && e.success),
      { timeout: 20000, what: `the shop app's paid event for ${offerId}` });
    // The merchant panel says what each event is (issue 35: before, "· undefined" on every event
    // that was not final).
    await page.locator('#webhooks li', { hasText: `${offerId}: checkout.succeeded` }).first().waitFor({ timeout: 20000 });
    const panel = await page.locator('#webhooks').textContent();
    assert.ok(!/undefined/.test(panel) && panel.includes('paid in full: ship it'), `the merchant panel: ${panel}`);
    assert.equal(errors.length, 0, `page errors: ${errors.join('; ')}`);
    await context.close();
  });
}

// The payment link `make demo` prints: its hosted page offers all three methods, exchange and bank
// with the shopper's token from the shop app (--shopper-token-url, CORS with credentials for the
// gateway's origin only), and takes an exchange payment to the receipt.
test('the printed payment link: the hosted page pays by exchange with the shop app\'s shopper token', LIMIT, async () => {
  const url = demo.output().match(/^ {2}(http:\/\/127\.0\.0\.1:\d+\/l\/pl_[A-Za-z0-9_-]{43})$/m)?.[1];
  assert.ok(url, `the demo prints the link on a line of its own:\n${demo.output()}`);
  const tokenUrl = `${SHOP}/shop/shopper-token`;
  const mine = await fetch(tokenUrl, { headers: { origin: demo.gateway } });
  assert.equal(mine.headers.get('access-control-allow-origin'), demo.gateway);
  assert.equal(mine.headers.get('access-control-allow-credentials'), 'true');
  const theirs = await fetch(tokenUrl, { headers: { origin: 'http://attacker.example' } });
  assert.equal(theirs.headers.get('access-control-allow-origin'), null, 'no other origin reads the token');
  const { context, page, errors } = await chromium.newPage({ locale: 'en-US' });
  await page.addInitScript(() => {
    window.__events = [];
    document.addEventListener('paywasm-status', (e) => window.__events.push({ type: 'paywasm-status',
      method: e.detail.method, id: e.detail.transaction && e.detail.transaction.id }));
  });
  await page.goto(url);
  await page.fill('#firstname', 'Ada');
  await page.fill('#lastname', 'Lovelace');
  await page.fill('#email', 'ada@example.test');
  await page.click('form.details button[type=submit]');
  await page.locator('h1', { hasText: 'Checkout' }).waitFor({ timeout: 15000 });
  // Signed in with the token the page asked the shop app for: the widget greets the shopper.
  const greeting = page.locator('paywasm-checkout .greeting');
  await greeting.waitFor({ state: 'visible', timeout: 15000 });
  assert.match(await greeting.textContent(), /^Signed in at the payment service as \S+/);
  for (const m of ['exchange', 'bank', 'qr']) await page.locator(`paywasm-checkout input#method-${m}`).waitFor({ state: 'attached', timeout: 20000 });
  await page.locator('paywasm-checkout button[data-key=pay-exchange]').click();
  const first = await waitEvent(page, 'paywasm-status');
  assert.equal(first.method, 'exchange');
  await advance(first.id);
  await page.locator('h1', { hasText: 'Payment received' }).waitFor({ timeout: 20000 });
  assert.match(await page.locator('dl.receipt').textContent(), /12\.50 USD/);
  assert.equal(errors.length, 0, `page errors: ${errors.join('; ')}`);
  await context.close();
});

// DNS rebinding: a page on another site whose name now points at 127.0.0.1 reaches the shop app's
// socket with its own Host header. Before, /__sandbox/merchant answered it the merchant access
// token and the shopper token.
test('the shop app answers only to its own host name (no DNS rebinding)', LIMIT, async () => {
  const { port } = new URL(SHOP);
  const get = (host, p) => new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path: p, headers: { host } }, (res) => {
      let body = '';
      res.on('data', (d) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode, body }));
    }).on('error', reject);
  });
  for (const p of ['/__sandbox/merchant', '/shop/shopper-token', '/']) {
    const r = await get(`rebound.attacker.example:${port}`, p);
    assert.equal(r.status, 421, `${p}: ${r.body.slice(0, 200)}`);
    assert.ok(!/merchantAccessToken|token/i.test(r.body.replace('misdirected_request', '')), `${p} leaked: ${r.body.slice(0, 200)}`);
  }
  assert.equal((await get(`127.0.0.1:${port}`, '/__sandbox/merchant')).status, 200, 'its own name still works');
});
