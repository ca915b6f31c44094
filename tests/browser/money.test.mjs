// Issue 22 ("money right"), the widget's half, against a faked payment API and status-url: what the
// element shows for every status code x method is checked against the NATIVE core's table
// (`paywasm status-table`), and what a partial payment shows and copies against exact amounts.
//   PAYWASM_CLI=<paywasm> node --test-reporter=spec tests/browser/money.test.mjs --dist <dist dir>
// (without PAYWASM_CLI, build/bin/paywasm of the repository). On Node's test runner with the shared
// harness lib.mjs, one Chromium for the file; every page runs under the strict CSP of server.mjs, and
// each test's done() fails on any uncaught page error (a status answer that throws inside render()).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { API_ORIGIN, distDir, fakeApi, makeKeys, startServer, useBrowser } from './lib.mjs';
import { waitFor } from '../support/node.mjs';

const DIST = distDir(['paywasm.js', 'paywasm.wasm']);
const REPO = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const CLI = process.env.PAYWASM_CLI || path.join(REPO, 'build/bin/paywasm');
const LIMIT = { timeout: 90000 };

// The core's table as the native CLI prints it: {code, method, kind, final, success, taken, tone,
// next, label} for every code it knows (and 7 for an unknown one) and every method.
const TABLE = JSON.parse(execFileSync(CLI, ['status-table'], { encoding: 'utf8' }));
// The shopper's English text (the widget's own file: the test checks which of its lines is shown).
const EN = JSON.parse(fs.readFileSync(path.join(REPO, 'web/src/locales/en.json'), 'utf8'));

const chromium = useBrowser();
let work;
let keys;
let server;
before(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'paywasm-money-'));
  keys = makeKeys(work);
  server = await startServer({ distDir: DIST, keyPem: keys.publicPem });
});
after(async () => {
  await server?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

// ---- fixtures -----------------------------------------------------------------------------------

const CART = [{ id: 'sku-1', name: 'Espresso machine', price: 25.8, quantity: 1 }];
const OFFER = 'order-2201';
const TX_ID = '5f0c2a8e-6f0e-4a43-9b1a-6d1f3c1e2a22';
// A QR code for 0.00051234 BTC ($25.80); a partial payment of it: 0.0002 arrived, 0.00031234 missing.
const CRYPTO = '0.00051234';
const RECEIVED = '0.0002';
const MISSING = '0.00031234';
const ADDRESS = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
const qrResult = (amount = CRYPTO, value = '25.8', offerId = OFFER) => ({
  totalAmount: value, currency: 'USD', crytoCurrency: 'BTC', id: '7d1c9f5e-3333-4c2b-9a77-0e0e0e0e0e0e',
  meta: { offerId, receiverAddress: ADDRESS, qrString: `bitcoin:${ADDRESS}?amount=${amount}&value=${value}` },
});
// A transaction of the service with status `code`, as a merchant's own status-url may answer it.
const transaction = (code) => ({
  id: TX_ID, status: code, amount: CRYPTO, currency: 'BTC', receivedAmount: RECEIVED, nativeAmount: '25.8',
  nativeCurrency: 'USD', meta: { offerId: OFFER }, errorMessage: null,
});

async function openPage() {
  const { context, page, done } = await chromium.newPage({ locale: 'en-US', viewport: { width: 800, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.origin });
  const api = await fakeApi(page, API_ORIGIN);
  await page.goto(`${server.origin}/pages/checkout.html`);
  return { page, api, done };
}

// A fresh element on the page (the one before it destroyed; the core stays loaded), with the test
// defaults and `options`; its status events are kept in window.__row.
async function mountFresh(page, options) {
  await page.evaluate(async ([base, pem, cart, offerId, o]) => {
    if (window.__ctl) window.__ctl.destroy();
    window.__row = { statuses: [], completes: 0 };
    window.__ctl = PayWasm.mount('#app', { baseUrl: base, merchantId: 'm-1', publicKey: pem, currency: 'USD', offerId, cart,
      statusInterval: '100', timeout: '5000', getShopperToken: async () => 'shopper-token', ...o });
    window.__ctl.on('status', (d) => window.__row.statuses.push({ code: d.status.code, method: d.method, expected: d.expected,
      received: d.received, remaining: d.remaining }));
    window.__ctl.on('complete', () => { window.__row.completes += 1; });
    await window.__ctl.ready;
  }, [API_ORIGIN, keys.publicPem, CART, OFFER, options]);
}

// What the element shows now: the status box's tone and text, the host's custom states, whether
// each Pay button is armed, the QR panel's parts and the amount its Copy button holds.
const shown = (page) => page.evaluate(() => {
  const host = document.querySelector('#app paywasm-checkout');
  const root = host.shadowRoot;
  const box = root.querySelector('.status');
  const pay = Object.fromEntries([...root.querySelectorAll('button.pay')].map((b) => [b.dataset.key, !b.disabled]));
  const value = root.querySelector('[data-key=copy-amount]');
  return {
    tone: box && box.getAttribute('data-tone'), text: box ? box.textContent : '',
    states: ['idle', 'sending', 'pending', 'final', 'ambiguous', 'error'].filter((s) => host.matches(`:state(${s})`)),
    pay, qrCode: !!root.querySelector('.qr-code'), copyAmount: value ? value.previousElementSibling.textContent : null,
    error: host.getAttribute('error'),
  };
});

// What the widget must show for a row of the core's table (the state machine of docs/widget.md:
// nothing taken -> idle, else final or pending; Pay armed only when idle).
function expected(row) {
  const phase = row.taken === 'none' ? 'idle' : row.final ? 'final' : 'pending';
  const step = EN[row.next === 'wait' ? `step.wait.${row.method}` : `step.${row.next}`];
  // A partial payment: the headline, then every amount under its name (Arrived, Missing).
  const headline = row.kind === 'partial' ? `Partial payment${EN['amount.total']}$25.80${EN['amount.due']}${CRYPTO} BTC${EN['amount.arrived']}${RECEIVED} BTC${EN['amount.missing']}${MISSING} BTC`
    : EN[`status.${row.kind}`].replace('{code}', String(row.code));
  return { phase, step, headline };
}

// ---- every code x method of the core's table -----------------------------------------------------

test('the core\'s status table is whole: every method has the same codes, a partial and an unknown one', () => {
  const codes = (m) => TABLE.filter((r) => r.method === m).map((r) => r.code).join(',');
  assert.ok(TABLE.length >= 3 * 12, `rows: ${TABLE.length}`);
  assert.equal(codes('bank'), codes('exchange'), 'bank and exchange codes');
  assert.equal(codes('qr'), codes('exchange'), 'qr and exchange codes');
  for (const code of [10, 0, 1, -1, 101, 1011, 19, 20, 7]) assert.ok(codes('qr').split(',').includes(String(code)), `code ${code} in the table`);
  for (const row of TABLE) {
    assert.ok(EN[`status.${row.kind}`], `a headline for ${row.kind}`);
    assert.ok(EN[row.next === 'wait' ? `step.wait.${row.method}` : `step.${row.next}`], `a next-step line for ${row.method} ${row.next}`);
  }
});

for (const method of ['exchange', 'bank', 'qr']) {
  test(`${method}: every status code of the core's table, from a status-url: tone, phase, Pay, words, amounts`, LIMIT, async () => {
    const { page, api, done } = await openPage();
    const rows = TABLE.filter((r) => r.method === method);
    const served = new Map();  // row index -> status-url answers given
    await page.route(`${server.origin}/merchant/status/**`, (route) => {
      const i = Number(/\/r(\d+)\//.exec(new URL(route.request().url()).pathname)[1]);
      served.set(i, (served.get(i) || 0) + 1);
      return route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(transaction(rows[i].code)) });
    });
    // The payment's own answer: pending (0), then the status-url says the row's code.
    const pending = () => ({ json: transaction(0) });
    api.on('POST /exchanges/payments/coinbase', pending).on('POST /purchases', pending);
    const failures = [];
    for (const [i, row] of rows.entries()) {
      const want = expected(row);
      const statusUrl = `/merchant/status/r${i}/{id}`;
      if (method === 'qr') await mountFresh(page, { methods: 'exchange qr', statusUrl, qrResult: qrResult() });
      else await mountFresh(page, { methods: method, accountId: 'acct-1', stockId: 'bank-1', statusUrl });
      if (method !== 'qr') await page.locator(`#app paywasm-checkout button[data-key=pay-${method}]`).click();
      await waitFor(() => served.get(i), { timeout: 20000, what: `row ${i}'s status-url asked` });
      // The answer is drawn once it arrived: wait for its tone and step line (a deadline for a busy
      // machine, 15 s; past it the comparison below says what is shown instead), then compare all.
      await page.waitForFunction(([tone, step]) => {
        const box = document.querySelector('#app paywasm-checkout').shadowRoot.querySelector('.status');
        return box && box.getAttribute('data-tone') === tone && box.textContent.includes(step);
      }, [row.tone, want.step], { timeout: 15000 }).catch(() => {});
      const got = await shown(page);
      // A QR code's order: is Pay armed on the other method? (Switching draws the other panel only.)
      // (A paid order shows a summary, no form: no method to switch to, no Pay button at all.)
      if (method === 'qr') {
        const other = page.locator('#app paywasm-checkout input[name=method][value=exchange]');
        if (await other.count()) {
          await other.check();
          got.pay = (await shown(page)).pay;
        }
      }
      const events = await page.evaluate(() => window.__row);
      const payKey = method === 'qr' ? 'pay-exchange' : `pay-${method}`;
      const last = events.statuses[events.statuses.length - 1] || {};
      const problems = [];
      const check = (ok, what) => { if (!ok) problems.push(what); };
      check(served.get(i) > 0, 'the status-url was asked');
      check(got.tone === row.tone, `data-tone ${got.tone}, the core says ${row.tone}`);
      check(got.states.join(',') === want.phase, `state ${got.states.join(',')}, expected ${want.phase} (taken ${row.taken}, final ${row.final})`);
      check((got.pay[payKey] === true) === (want.phase === 'idle'), `Pay ${got.pay[payKey] ? 'armed' : 'locked or gone'} in ${want.phase}`);
      check(got.text.includes(want.headline), `headline '${want.headline}' not in '${got.text}'`);
      check(got.text.includes(want.step), `next-step line '${want.step}' (${row.next}) not in '${got.text}'`);
      check(got.text.includes(`Order ${OFFER}`), 'the order id');
      check(events.completes === (row.success ? 1 : 0), `paywasm-complete fired ${events.completes} times, success ${row.success}`);
      check(last.code === row.code && last.method === method, `last paywasm-status ${JSON.stringify(last)}`);
      if (row.taken === 'some') {
        check(JSON.stringify(last.received) === JSON.stringify({ amount: RECEIVED, currency: 'BTC' }), `detail.received ${JSON.stringify(last.received)}`);
        check(JSON.stringify(last.remaining) === JSON.stringify({ amount: MISSING, currency: 'BTC' }), `detail.remaining ${JSON.stringify(last.remaining)}`);
        if (row.kind !== 'partial') check(got.text.includes(`Arrived${RECEIVED} BTC`), `what arrived, in '${got.text}'`);
      }
      // The code can be scanned only while nothing is paid; a partial QR payment's Copy holds what is missing.
      if (method === 'qr') {
        check(got.qrCode === (row.next === 'pay'), `QR code ${got.qrCode ? 'shown' : 'gone'} for next ${row.next}`);
        if (row.next === 'pay_rest') check(got.copyAmount === `${MISSING} BTC`, `the amount to copy: ${got.copyAmount}`);
      }
      if (problems.length) failures.push(`${method} ${row.code} (${row.kind}): ${problems.join('; ')}`);
    }
    assert.deepEqual(failures, [], `rows that disagree with the core's table:\n${failures.join('\n')}`);
    await done();
  });
}

// ---- amounts --------------------------------------------------------------------------------------

test('QR partial payment: the Copy button copies exactly what is missing, in the code\'s crypto', LIMIT, async () => {
  const { page, done } = await openPage();
  await page.route(`${server.origin}/merchant/status/**`, (route) => route.fulfill({ status: 200, contentType: 'application/json',
    body: JSON.stringify({ status: 101, receivedAmount: RECEIVED }) }));
  await mountFresh(page, { methods: 'qr', statusUrl: '/merchant/status/{id}', qrResult: qrResult() });
  await page.locator('#app paywasm-checkout .status', { hasText: 'Missing' }).waitFor({ timeout: 20000 });
  const got = await shown(page);
  assert.ok(got.text.includes(`Arrived${RECEIVED} BTCMissing${MISSING} BTC`), got.text);
  assert.equal(got.copyAmount, `${MISSING} BTC`, 'the amount beside the Copy button');
  await page.locator('#app paywasm-checkout [data-key=copy-amount]').click();
  await page.waitForFunction(() => navigator.clipboard.readText().then((t) => t !== ''), null, { timeout: 20000 });
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), MISSING, 'the clipboard');
  await done();
});

// Issue 22 (before: "82 BTC": the gateway's fiat order total read as the crypto amount, and the
// QR code's own order name "<offerId>~qr2" shown to the shopper).
test('the gateway\'s status view: arrived and missing in BTC from its named amounts, never its fiat total; the shop\'s order id', LIMIT, async () => {
  const { page, done } = await openPage();
  const view = {
    sessionId: 'ses_1', offerId: OFFER, status: 101, kind: 'partial', state: 'partial', final: false, success: false,
    taken: 'some', tone: 'warning', next: 'pay_rest', label: 'partial payment', method: 'qr', transactionId: TX_ID,
    orderTotal: { amount: '82.00', currency: 'USD' }, expected: { amount: '0.00128126', currency: 'BTC' },
    received: { amount: '0.00064063', currency: 'BTC' }, remaining: { amount: '0.00064063', currency: 'BTC' },
    version: 3, updatedAt: '2026-11-26T10:00:00Z',
  };
  let answer = { ...view, status: 10, kind: null, state: 'open', taken: 'none', received: null, remaining: null };
  await page.route(`${server.origin}/merchant/status/**`, (route) => route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(answer) }));
  // The renewed code's result names the order "<offerId>~qr2" at the service; the shop's is OFFER.
  await mountFresh(page, { methods: 'exchange qr', statusUrl: '/merchant/status/{id}', cart: [{ id: 'm', name: 'Machine', price: 82, quantity: 1 }],
    qrResult: qrResult('0.00128126', '82', `${OFFER}~qr2`) });
  const waiting = await shown(page);
  assert.ok(waiting.text.includes(`Order ${OFFER}`) && !waiting.text.includes('~qr'), `the shop's order id: ${waiting.text}`);
  const details = await page.locator('#app paywasm-checkout .detail').textContent();
  assert.ok(details.includes('0.00128126 BTC ($82.00)'), `one format for the code's amounts: ${details}`);
  answer = view;
  await page.locator('#app paywasm-checkout .status', { hasText: 'Missing' }).waitFor({ timeout: 20000 });
  const got = await shown(page);
  assert.ok(got.text.includes('To pay0.00128126 BTCArrived0.00064063 BTCMissing0.00064063 BTC'), got.text);
  assert.ok(!/\b82(\.00)? ?BTC/.test(got.text) && got.text.includes('$82.00'), `the fiat total is shown as fiat only: ${got.text}`);
  assert.ok(got.text.includes(`Order ${OFFER}`) && !got.text.includes('~qr'), `the shop's order id: ${got.text}`);
  assert.equal(got.copyAmount, '0.00064063 BTC', 'the amount to copy');
  const last = await page.evaluate(() => window.__row.statuses.at(-1));
  assert.deepEqual([last.method, last.remaining], ['qr', { amount: '0.00064063', currency: 'BTC' }], 'paywasm-status detail');
  assert.equal(got.states.join(','), 'pending', 'money arrived: locked');
  await done();
});

// Issue 22 (before: a JSON number where a decimal string was expected threw inside render(): the
// status never showed).
test('a merchant status-url answering a transaction with JSON numbers (or a view without the missing amount): shown, never thrown', LIMIT, async () => {
  for (const [body, words] of [
    [`{"id":"${TX_ID}","status":101,"amount":0.00051234,"currency":"BTC","receivedAmount":0.0002,"nativeAmount":25.8,"nativeCurrency":"USD"}`,
      `Partial paymentOrder total$25.80To pay${CRYPTO} BTCArrived${RECEIVED} BTCMissing${MISSING} BTC`],
    // A number the core cannot read as a decimal (JS writes 1e-7): no amounts, still the status.
    [`{"id":"${TX_ID}","status":101,"amount":0.00051234,"currency":"BTC","receivedAmount":1e-7}`, 'Partial payment'],
    // A gateway view without what is missing: what arrived, and no placeholder left in the words.
    [`{"sessionId":"s1","status":101,"method":"qr","expected":{"amount":"${CRYPTO}","currency":"BTC"},"received":{"amount":"${RECEIVED}","currency":"BTC"},"remaining":null}`,
      `Partial paymentTo pay${CRYPTO} BTCArrived${RECEIVED} BTC`],
  ]) {
    const { page, done } = await openPage();
    await page.route(`${server.origin}/merchant/status/**`, (route) => route.fulfill({ status: 200, contentType: 'application/json', body }));
    await mountFresh(page, { methods: 'qr', statusUrl: '/merchant/status/{id}', qrResult: qrResult() });
    await page.locator('#app paywasm-checkout .status', { hasText: 'Partial payment' }).waitFor({ timeout: 20000 });
    const got = await shown(page);
    assert.ok(got.text.includes(words) && !/[{}]/.test(got.text), `${body}: ${got.text}`);
    assert.equal(got.tone, 'warning', 'tone');
    assert.equal(got.states.join(','), 'pending', 'state');
    await done(body);  // fails on an uncaught error in the page
  }
});

// Issue 22 (before: "10 USD of 25.80 USD arrived, 15.8 USD is missing" beside "$25.80").
test('a bank payment that arrived in part: dollars in one format, and the shop settles it', LIMIT, async () => {
  const { page, api, done } = await openPage();
  api.on('POST /purchases', () => ({ json: { ...transaction(0), amount: '25.80', currency: 'USD', receivedAmount: '0' } }));
  await page.route(`${server.origin}/merchant/status/**`, (route) => route.fulfill({ status: 200, contentType: 'application/json',
    body: JSON.stringify({ ...transaction(101), amount: '25.80', currency: 'USD', receivedAmount: '10', nativeAmount: '25.80' }) }));
  await mountFresh(page, { methods: 'bank', accountId: 'acct-1', stockId: 'bank-1', statusUrl: '/merchant/status/{id}' });
  const pendingText = await page.evaluate(() => document.querySelector('#app paywasm-checkout').shadowRoot.querySelector('button.pay').textContent);
  await page.locator('#app paywasm-checkout button.pay').click();
  await page.locator('#app paywasm-checkout .status', { hasText: 'Missing' }).waitFor({ timeout: 20000 });
  const got = await shown(page);
  assert.equal(pendingText, 'Pay $25.80', 'the Pay button');
  assert.ok(got.text.includes('Order total$25.80Arrived$10.00Missing$15.80'), got.text);
  assert.ok(!got.text.includes('USD'), `never "USD" beside "$": ${got.text}`);
  assert.ok(got.text.includes(EN['step.contact_shop']) && !got.text.includes(EN['step.pay_rest']), `a bank's partial payment is the shop's to settle: ${got.text}`);
  await done();
});

// ---- the session's fixed amount, compared by the core ---------------------------------------------

test('session-url: the session\'s "25.80" is the cart\'s 25.8 (compared by the core); "25.81" is refused, naming cart', LIMIT, async () => {
  for (const [amount, ok] of [['25.80', true], ['25.8', true], ['25.81', false], ['25,80', false]]) {
    const { page, done } = await openPage();
    await page.route(`${server.origin}/merchant/session`, (route) => route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({
      offerId: OFFER, amount, currency: 'USD', cart: CART, methods: ['exchange'], merchantId: 'm-1', publicKey: keys.publicPem,
      keyFingerprint: keys.fingerprint, padding: 'oaep-sha1', serviceUrl: API_ORIGIN, status: null,
    }) }));
    await page.evaluate(async () => {
      window.__errors = [];
      document.addEventListener('paywasm-error', (e) => window.__errors.push(e.detail.error.field));
      window.__ctl = PayWasm.mount('#app', { sessionUrl: '/merchant/session', getShopperToken: async () => 't' });
      await window.__ctl.ready;
    });
    const got = await page.evaluate(() => ({ errors: window.__errors, pay: [...document.querySelector('#app paywasm-checkout').shadowRoot.querySelectorAll('button.pay')].map((b) => !b.disabled) }));
    if (ok) assert.deepEqual(got, { errors: [], pay: [true] }, `session amount ${amount}`);
    // (an amount the core cannot read as a decimal is refused as the session's amount)
    else assert.deepEqual(got, { errors: [amount === '25,80' ? 'amount' : 'cart'], pay: [] }, `session amount ${amount}`);
    await done(amount);
  }
});
