// Issue 22 ("money right") through the REAL merchant gateway and sandbox: a shopper pays part of an
// order (the sandbox's status 101: half of the transaction's amount arrives) and the widget says
// what arrived and what is missing in the currency the shopper pays in (the QR code's and the
// exchange's crypto, the bank's dollars), copies the missing amount, and never reads the order's
// fiat total as crypto (the bug: "0.00064063 BTC of 82 BTC arrived"). Refunds (20) likewise.
//   PAYWASM_SANDBOX=<paywasm-sandbox> PAYWASM_CLI=<paywasm> PAYWASM_MERCHANT=<paywasm-merchant> \
//     node --test-reporter=spec tests/browser/money-gateway.test.mjs --dist <dist dir>
// Started as tests/faults/run.mjs starts them: the sandbox serves the shop page (tests/faults/pages,
// under its strict CSP) and the API; the gateway, on its own origin, makes the sessions and the QR
// codes and streams the statuses of the sandbox's signed webhooks. The expected amounts are
// computed here from the sandbox's own transaction, with BigInt, not by the core.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { distDir, sandboxSite, useBrowser, waitEvent } from './lib.mjs';
import { startSandbox, getJson, sendJson } from '../server/harness.mjs';
import { gw, startGateway } from '../gateway/harness.mjs';
import { holdPort } from '../support/node.mjs';

const here = path.dirname(new URL(import.meta.url).pathname);
const DIST = distDir(['paywasm.js', 'paywasm.wasm']);
const LIMIT = { timeout: 45000 };

const chromium = useBrowser();
let site;
let sandbox;
let gateway;
before(async () => {
  site = sandboxSite(path.join(here, '../faults/pages'), 'paywasm-money-site-');
  const hold = await holdPort();
  sandbox = await startSandbox(['--site', site, '--dist', DIST, '--connect-src', `http://127.0.0.1:${hold.port}`]);
  await hold.release();
  gateway = await startGateway(sandbox, { port: hold.port, shopOrigin: sandbox.base, extra: ['--public-service-url', `${sandbox.base}/api`] });
  const hook = await sendJson('PUT', `${sandbox.base}/__sandbox/webhook`, { url: `${gateway.base}/v1/webhooks` });
  assert.equal(hook.status, 200, 'webhook URL');
});
after(async () => {
  await gateway?.stop();
  await sandbox?.stop();
  if (site) fs.rmSync(site, { recursive: true, force: true });
});

const CART = [{ id: 'sku-grinder', name: 'Coffee grinder', price: 58.99, quantity: 1 }];
const ADDRESS = { firstname: 'Ada', lastname: 'Lovelace', city: 'London', country: 'GB', email: 'ada@example.test' };
const control = (method, p, body) => sendJson(method, `${sandbox.base}/__sandbox${p}`, body);

// ---- exact decimals, independently of the core -----------------------------------------------------

const SCALE = 18;
const toUnits = (text) => {
  const [int, frac = ''] = text.split('.');
  return BigInt(int + frac.padEnd(SCALE, '0'));
};
const fromUnits = (units) => {
  const digits = units.toString().padStart(SCALE + 1, '0');
  return `${digits.slice(0, -SCALE)}.${digits.slice(-SCALE)}`.replace(/\.?0+$/, '');
};
// An amount as the shopper reads it in en-US: dollars as "$29.50", crypto with all its digits and the code.
const shownAs = (amount, currency) => (currency === 'USD'
  ? new Intl.NumberFormat('en-US', { style: 'currency', currency }).format(amount)
  : `${fromUnits(toUnits(amount))} ${currency}`);

// ---- the page -------------------------------------------------------------------------------------------

async function sessionUrl(offerId) {
  const r = await gw(gateway, 'POST', '/v1/sessions', { app: true,
    body: { offerId, currency: 'USD', cart: CART, shippingAddress: ADDRESS, methods: ['exchange', 'bank', 'qr'] } });
  assert.equal(r.status, 201, `session: ${r.text}`);
  return `${gateway.base}/v1/checkout/${r.json.id}`;
}

// A page with the widget on a new session; the bank needs the ids a merchant's server gives.
async function openSession(tag) {
  const offerId = `money-${tag}-${crypto.randomUUID().slice(0, 8)}`;
  const url = await sessionUrl(offerId);
  const { context, page, done } = await chromium.newPage({ locale: 'en-US' });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: sandbox.base });
  await page.goto(`${sandbox.base}/`);
  await page.evaluate(([u, token]) => {
    window.__ctl = PayWasm.mount('#app', { sessionUrl: u, getShopperToken: async () => token, accountId: 'acct-77', stockId: 'bank-conn-5' });
    window.__details = [];
    window.__ctl.on('status', (d) => window.__details.push({ code: d.status.code, expected: d.expected, received: d.received, remaining: d.remaining }));
  }, [url, sandbox.merchant.shopperToken]);
  await waitEvent(page, 'paywasm-ready');
  return { page, offerId, done };
}

// Pays by `method` (the QR code: shows it), moves the sandbox's transaction to `status`, and waits
// until the widget shows it. Returns the sandbox's transaction as it is then.
async function payThen(page, method, status) {
  await page.locator(`paywasm-checkout input#method-${method}`).check();
  await page.locator(`paywasm-checkout button[data-key=pay-${method}]`).click();
  const [first] = await waitEvent(page, 'paywasm-status');
  const id = first.transaction.id;
  assert.ok(id, `the ${method} payment's transaction id`);
  const moved = await control('POST', `/transactions/${id}/advance`, { status });
  assert.equal(moved.status, 200, `advance to ${status}: ${JSON.stringify(moved.json)}`);
  await waitEvent(page, 'paywasm-status', { code: status });
  const stored = await getJson(`${sandbox.base}/__sandbox/transactions/${id}`);
  return stored.transaction;
}

const shown = (page) => page.evaluate(() => {
  const host = document.querySelector('paywasm-checkout');
  const root = host.shadowRoot;
  const box = root.querySelector('.status');
  const value = root.querySelector('[data-key=copy-amount]');
  return {
    text: box.textContent, tone: box.getAttribute('data-tone'),
    states: ['idle', 'sending', 'pending', 'final', 'ambiguous'].filter((s) => host.matches(`:state(${s})`)),
    armed: [...root.querySelectorAll('button.pay')].filter((b) => !b.disabled).map((b) => b.dataset.key),
    copyAmount: value ? value.previousElementSibling.textContent : null,
  };
});

// What a partial payment of `tx` must say, each amount under its name: received arrived, amount - received missing.
function partialWords(tx) {
  const { currency } = tx;
  const missing = fromUnits(toUnits(tx.amount) - toUnits(tx.receivedAmount));
  return { missing, text: `Arrived${shownAs(tx.receivedAmount, currency)}Missing${shownAs(missing, currency)}` };
}

// ---- partial payments -------------------------------------------------------------------------------------

test('QR through the gateway, paid in part (101): "… BTC of … BTC arrived, … BTC is missing", the Copy button copies the missing BTC', LIMIT, async () => {
  const { page, offerId, done } = await openSession('qr');
  const tx = await payThen(page, 'qr', 101);
  assert.equal(tx.currency, 'BTC', 'a BTC code');
  assert.ok(toUnits(tx.receivedAmount) > 0n && toUnits(tx.receivedAmount) < toUnits(tx.amount), `part arrived: ${tx.receivedAmount} of ${tx.amount}`);
  const want = partialWords(tx);
  const got = await shown(page);
  assert.ok(got.text.includes(want.text), `'${want.text}' in '${got.text}'`);
  assert.ok(!/58\.99 ?BTC|\b59 BTC/.test(got.text) && got.text.includes('$58.99'), `the order total is dollars only: ${got.text}`);
  assert.ok(got.text.includes(`Order ${offerId}`) && !got.text.includes('~qr'), `the shop's order id: ${got.text}`);
  assert.ok(got.text.includes('Send the missing amount to the same address'), `what to do: ${got.text}`);
  assert.equal(got.copyAmount, `${want.missing} BTC`, 'the amount beside the Copy button');
  await page.locator('paywasm-checkout [data-key=copy-amount]').click();
  await page.waitForFunction(() => navigator.clipboard.readText().then((t) => t !== ''), null, { timeout: 20000 });
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), want.missing, 'the clipboard holds the missing amount');
  const last = await page.evaluate(() => window.__details.at(-1));
  assert.deepEqual(last.remaining, { amount: want.missing, currency: 'BTC' }, 'paywasm-status remaining');
  assert.deepEqual([got.tone, got.states.join(','), got.armed.join(',')], ['warning', 'pending', ''], 'tone, state, nothing to pay with');
  await done();
});

for (const method of ['exchange', 'bank']) {
  test(`${method} through the gateway, paid in part (101): arrived and missing in the payment's own currency; the shop settles it`, LIMIT, async () => {
    const { page, offerId, done } = await openSession(`${method}-partial`);
    const tx = await payThen(page, method, 101);
    assert.equal(tx.currency, method === 'bank' ? 'USD' : 'BTC', `the ${method} payment's currency`);
    const want = partialWords(tx);
    const got = await shown(page);
    assert.ok(got.text.includes(want.text), `'${want.text}' in '${got.text}'`);
    if (method === 'bank') assert.ok(!got.text.includes('USD'), `dollars in one format: ${got.text}`);
    assert.ok(got.text.includes('Please contact the shop about this order') && !got.text.includes('same address'), `next step: ${got.text}`);
    assert.ok(got.text.includes(`Order ${offerId}`), 'the order id');
    assert.equal(got.copyAmount, null, 'nothing to copy: no address takes the rest');
    assert.deepEqual([got.tone, got.states.join(','), got.armed.join(',')], ['warning', 'pending', ''], 'tone, state, every Pay locked');
    await done();
  });
}

// ---- refunds -------------------------------------------------------------------------------------------

for (const method of ['exchange', 'bank']) {
  test(`${method} through the gateway, refunded (20): a warning, every Pay locked, contact the shop`, LIMIT, async () => {
    const { page, done } = await openSession(`${method}-refund`);
    await payThen(page, method, 20);
    const got = await shown(page);
    assert.ok(got.text.includes('Refund in progress or done') && got.text.includes('Please contact the shop about this order'), got.text);
    assert.deepEqual([got.tone, got.states.join(','), got.armed.join(',')], ['warning', 'pending', ''], 'tone, state, every Pay locked');
    const complete = await page.evaluate(() => window.__events.filter((e) => e.type === 'paywasm-complete').length);
    assert.equal(complete, 0, 'no paywasm-complete');
    await done();
  });
}
