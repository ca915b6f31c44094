// examples/python-shop as a new merchant runs it: the REAL sandbox (the payment service), the REAL
// merchant gateway and the Python shop (standard library only), set up as docs/merchant.md says, and
// a shopper in Chromium paying an exchange, a bank and a QR order through the shop's own pages,
// under the Content-Security-Policy docs/merchant.md gives (read from the doc itself: the test
// fails when the doc's policy does not let a payment through). Afterwards the shop's own database
// must hold exactly those orders as paid, each by the transaction the shopper saw; forged, stale,
// tampered, replayed and wrong-total events posted to the shop must ship nothing.
//   PAYWASM_SANDBOX=... PAYWASM_CLI=... PAYWASM_MERCHANT=... node --test-reporter=spec \
//     tests/examples/python_shop.test.mjs --dist <dist dir>
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { distDir, useBrowser, waitEvent } from '../browser/lib.mjs';
import { sendJson } from '../server/harness.mjs';
import { APP_SECRET, EVENT_SECRET, holdPort, startGateway, startSandbox, tmpdir } from '../gateway/harness.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const SHOP_PY = path.join(root, 'examples/python-shop/shop.py');
const DIST = distDir(['paywasm.js', 'paywasm.wasm', 'integrity.json']);
const LIMIT = { timeout: 60000 };
// docs/merchant.md's sandbox values for the bank method ("Try it on the sandbox").
const BANK = { account: 'acct-sandbox-001', stock: 'bank-sandbox-checking-6789' };

const chromium = useBrowser();
let dir, sandbox, gateway, shop, SHOP, shopOut = '';
before(async () => {
  dir = tmpdir('paywasm-python-shop-');
  sandbox = await startSandbox([]);
  const hold = await holdPort();  // the shop's port: the gateway must know the shop's origin first
  SHOP = `http://127.0.0.1:${hold.port}`;
  gateway = await startGateway(sandbox, { shopOrigin: SHOP, appCallback: `${SHOP}/paywasm-events`,
    extra: ['--methods', 'exchange,bank,qr'] });
  // The sandbox's webhook URL is the gateway's (docs/merchant.md: the merchant portal's setting).
  assert.equal((await sendJson('PUT', `${sandbox.base}/__sandbox/webhook`, { url: `${gateway.base}/v1/webhooks` })).status, 200);
  await hold.release();
  shop = spawn('python3', [SHOP_PY, '--listen', `127.0.0.1:${hold.port}`, '--gateway', gateway.base, '--dist', DIST,
    '--db', path.join(dir, 'shop.db'), '--bank-account-id', BANK.account, '--bank-stock-id', BANK.stock], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PAYWASM_APP_SECRET: APP_SECRET, PAYWASM_EVENT_SECRET: EVENT_SECRET,
      PAYWASM_SHOPPER_TOKEN: sandbox.merchant.shopperToken },
  });
  shop.stdout.on('data', (d) => { shopOut += d; });
  shop.stderr.on('data', (d) => { shopOut += d; });
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the shop did not start:\n${shopOut}`)), 60000);
    const poll = setInterval(() => { if (shopOut.includes('listening on')) { clearInterval(poll); clearTimeout(timer); resolve(); } }, 50);
    shop.on('exit', (code) => { clearInterval(poll); clearTimeout(timer); reject(new Error(`the shop exited (${code}):\n${shopOut}`)); });
  });
});
after(async () => {
  if (shop && shop.exitCode === null) {
    const exited = new Promise((resolve) => shop.on('exit', resolve));
    shop.kill('SIGTERM');
    await exited;
  }
  await gateway?.stop();
  await sandbox?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

// The shop's orders, read from its SQLite file with Python's own sqlite3 (the shop's truth, not a page).
function orders() {
  const out = execFileSync('python3', ['-c', `import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1]); db.row_factory = sqlite3.Row
print(json.dumps([dict(r) for r in db.execute("SELECT * FROM orders")]))`, path.join(dir, 'shop.db')]);
  return JSON.parse(out);
}

// A new order of one `sku`, made as the shopper's "Buy" link makes it; resolves its offerId.
async function newOrder(sku) {
  const r = await fetch(`${SHOP}/buy/${sku}`, { redirect: 'manual' });
  assert.equal(r.status, 303, `GET /buy/${sku}: ${await r.text()}`);
  const m = r.headers.get('location').match(/^\/orders\/(order-[0-9a-f]+)\/pay$/);
  assert.ok(m, `Location: ${r.headers.get('location')}`);
  return m[1];
}

// The CSP of docs/merchant.md step 3, for this test's origins: the doc's example origins of the
// payment service and of the gateway replaced by the sandbox's and the gateway's.
function documentedCsp() {
  const doc = fs.readFileSync(path.join(root, 'docs/merchant.md'), 'utf8');
  const m = doc.match(/```\nContent-Security-Policy: ([^`]+?)\n```/);
  assert.ok(m, 'docs/merchant.md has a ```Content-Security-Policy: ...``` block');
  return m[1].replace(/\s+/g, ' ').trim()
    .replaceAll('https://api.service.example', new URL(sandbox.base).origin)
    .replaceAll('https://pay.shop.example', new URL(gateway.base).origin);
}

test('the payment page is sent with the Content-Security-Policy docs/merchant.md gives', LIMIT, async () => {
  const offerId = await newOrder('filters');
  const r = await fetch(`${SHOP}/orders/${offerId}/pay`);
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('content-security-policy'), documentedCsp());
  const html = await r.text();
  assert.match(html, /<paywasm-checkout session-url="http:\/\/127\.0\.0\.1:\d+\/v1\/checkout\/cs_[^"]+"/, 'the element has its session-url');
  assert.match(html, /<script src="\/paywasm\/paywasm\.js" integrity="sha384-[^"]+" crossorigin="anonymous">/, 'SRI on the widget');
});

// The shopper's side of one order: opens its payment page, pays by `method`, moves the sandbox's
// transaction to success with the control API, and ends on the shop's order page saying "Paid"
// (which the shop writes only from the verified checkout.succeeded event). Resolves the transaction
// id the widget showed.
async function payOrder(offerId, method) {
  const { page, done } = await chromium.newPage({ locale: 'en-US' });
  await page.addInitScript(() => {
    window.__events = [];
    window.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__violations.push({ directive: e.violatedDirective, blocked: e.blockedURI }));
    for (const type of ['paywasm-ready', 'paywasm-status', 'paywasm-complete', 'paywasm-error']) {
      document.addEventListener(type, (e) => window.__events.push({ type, status: e.detail.status && { code: e.detail.status.code },
        method: e.detail.method, id: e.detail.transaction && e.detail.transaction.id, error: e.detail.error && e.detail.error.code, field: e.detail.error && e.detail.error.field, message: e.detail.error && e.detail.error.message }));
    }
  });
  await page.goto(`${SHOP}/orders/${offerId}/pay`);
  await waitEvent(page, 'paywasm-ready', { timeout: 20000 });
  assert.equal(await page.evaluate(() => document.querySelector('paywasm-checkout').offerId), offerId, 'the widget read the order from the session');
  const early = (await page.evaluate(() => window.__events)).filter((e) => e.type === 'paywasm-error');
  assert.deepEqual(early, [], 'no error before paying');
  if (method !== 'exchange') await page.locator(`paywasm-checkout input#method-${method}`).check();
  await page.locator(`paywasm-checkout button[data-key=pay-${method}]`).click();
  const [first] = await waitEvent(page, 'paywasm-status');
  assert.equal(first.method, method);
  const id = first.id;
  const advance = () => sendJson('POST', `${sandbox.base}/__sandbox/transactions/${encodeURIComponent(id)}/advance`, {});
  if (method === 'qr') assert.equal((await advance()).status, 200, 'QR: seen (0)');
  assert.equal((await advance()).status, 200, 'success (1)');
  // paywasm-complete: checkout.js goes to the order page, which shows "Paid" once the event is in.
  await page.waitForURL(`${SHOP}/orders/${offerId}`, { timeout: 20000 });
  await page.locator('#state.paid').waitFor({ timeout: 20000 });
  assert.match(await page.locator('#state').textContent(), new RegExp(`Paid\\. Transaction ${id}`));
  await done(`${method} order ${offerId}`);
  return id;
}

const paid = {};  // offerId -> the transaction id the widget showed
for (const [method, sku] of [['exchange', 'beans'], ['bank', 'dripper'], ['qr', 'beans']]) {
  test(`a ${method} payment through the Python shop: the shop marks its order paid from the verified event`, LIMIT, async () => {
    const offerId = await newOrder(sku);
    paid[offerId] = await payOrder(offerId, method);
  });
}

// ---- events a shop must not ship on --------------------------------------------------------------------

const sign = (body, secret = EVENT_SECRET, t = Math.floor(Date.now() / 1000)) =>
  `t=${t},v1=${crypto.createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
const post = (body, signature, headers = {}) => fetch(`${SHOP}/paywasm-events`, { method: 'POST',
  headers: { 'content-type': 'application/json', ...(signature === null ? {} : { 'paywasm-signature': signature }), ...headers }, body });
function event(offerId, overrides = {}) {
  return JSON.stringify({ id: 'evt_' + crypto.randomBytes(16).toString('hex'), type: 'checkout.succeeded',
    createdAt: new Date().toISOString(), sessionId: 'cs_test', offerId, method: 'exchange', transactionId: crypto.randomUUID(),
    status: 1, kind: 'success', final: true, success: true, taken: 'all', orderTotal: { amount: '18.95', currency: 'USD' }, ...overrides });
}

test('forged, stale, tampered, replayed and wrong-total events ship nothing', LIMIT, async () => {
  const offerId = await newOrder('dripper');  // 18.95 USD, never paid
  const unpaid = () => orders().find((o) => o.offer_id === offerId).paid_at === null;

  const forged = event(offerId);
  assert.equal((await post(forged, sign(forged, 'not-the-event-secret-0123456789'))).status, 400, 'signed with another key');
  assert.equal((await post(forged, sign(forged, APP_SECRET))).status, 400, 'signed with the app API bearer');
  assert.equal((await post(forged, null)).status, 400, 'no signature');
  const stale = event(offerId);
  assert.equal((await post(stale, sign(stale, EVENT_SECRET, Math.floor(Date.now() / 1000) - 600))).status, 400, 'a delivery captured 10 minutes ago');
  const signed = event(offerId, { type: 'checkout.pending', status: 0, kind: 'pending', final: false, success: false, taken: 'maybe' });
  assert.equal((await post(signed.replace('checkout.pending', 'checkout.succeeded'), sign(signed))).status, 400, 'body changed after signing');
  assert.ok(unpaid(), 'nothing refused shipped');

  // Signed with the event secret (answered 204: the shop accepted the signature), but not the ship rule.
  for (const [what, body] of [
    ['checkout.pending', signed],
    ['another total', event(offerId, { orderTotal: { amount: '1.00', currency: 'USD' } })],
    ['another currency', event(offerId, { orderTotal: { amount: '18.95', currency: 'EUR' } })],
    ['success: true on a checkout.amount_mismatch', event(offerId, { type: 'checkout.amount_mismatch' })],
    ['an order that is not ours', event('order-000000000000')],
  ]) {
    assert.equal((await post(body, sign(body))).status, 204, what);
    assert.ok(unpaid(), `${what} shipped the order`);
  }
  // A replayed id: the pending event's id again, now with a body that would ship, freshly signed and
  // with a new Paywasm-Event-Id header. The body's id was processed: nothing ships.
  const replay = event(offerId, { id: JSON.parse(signed).id });
  assert.equal((await post(replay, sign(replay), { 'paywasm-event-id': 'evt_fresh' })).status, 204, 'replayed id');
  assert.ok(unpaid(), 'a replayed event id shipped the order');
});

test('the shop holds exactly the paid orders, each paid by the transaction the shopper saw', LIMIT, async () => {
  assert.equal(Object.keys(paid).length, 3, 'the three payments ran');
  const rows = orders();
  const shipped = Object.fromEntries(rows.filter((o) => o.paid_at !== null).map((o) => [o.offer_id, o.transaction_id]));
  assert.deepEqual(shipped, paid);
  assert.equal(rows.length, 5, 'orders made: the CSP check, three payments, the forged events\' one');
  // Each paid order shipped once: one shipping event per order in the shop's event log.
  const log = shopOut.split('\n').filter((l) => / paid \(.*\): ship it$/.test(l));
  assert.equal(log.length, 3, `ship lines:\n${log.join('\n')}`);
});
