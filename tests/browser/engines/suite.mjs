// The widget in one browser engine (ctest widget.engines.<engine>): the same checks in every engine,
// through one driver interface (engines/index.mjs), against the REAL sandbox payment service and
// the REAL merchant gateway (as tests/faults does), from the `make dist` files under the strict CSP.
//   PAYWASM_SANDBOX=<paywasm-sandbox> PAYWASM_CLI=<paywasm> PAYWASM_MERCHANT=<paywasm-merchant> \
//     node --test-reporter=spec tests/browser/engines/suite.mjs --engine <chromium|firefox|webkit|wpe> --dist <dist dir>
// The sandbox serves the page (engines/site: the widget's script tag with its SRI, and the suites'
// recorder pages/record.js, which records violations, errors, console messages, events and payment POST bodies the same way
// in every engine) and the API on one origin; the gateway on another (in the page's connect-src).
// The first line printed names the engine and its version. Exits non-zero when a test fails.
import { after, afterEach, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { assertTokenNowhere, mountInPage, sandboxSite, distDir, opensslDecrypt, pageTraces, zbar } from '../lib.mjs';
import { launchEngine } from './index.mjs';
import { openChecked, until } from './checked.mjs';
import { getJson, sendJson } from '../../server/harness.mjs';
import { gw, startSandbox, startGateway } from '../../gateway/harness.mjs';
import { holdPort, tempDir, waitFor } from '../../support/node.mjs';

const here = path.dirname(new URL(import.meta.url).pathname);
const argv = process.argv.slice(2);
const ENGINE = argv.includes('--engine') ? argv[argv.indexOf('--engine') + 1] : process.env.PAYWASM_ENGINE;
const DIST = distDir(['paywasm.js', 'paywasm.wasm', 'paywasm-nosimd.wasm', 'paywasm.css', 'integrity.json']);
const LIMIT = { timeout: 60000 };  // each test's time limit

let engine;   // launchEngine(ENGINE)
let work;     // temp folder: ciphertext blocks for OpenSSL
let siteDir;  // the site the sandbox serves (sandboxSite)
let sandbox;  // the payment service (serving the site, the widget and the API)
let gateway;  // the merchant's side: sessions, QR creation, the status stream
let ORIGIN;   // the sandbox's origin: the shop page and the API
let M;        // the sandbox's merchant: { merchantId, publicKey, shopperToken, ... }
let KEY;      // { privatePath }: the sandbox's merchant private key, for OpenSSL
before(async () => {
  assert.ok(ENGINE, 'name the engine: --engine <chromium|firefox|webkit|wpe>');
  work = tempDir('paywasm-engines-');
  const site = sandboxSite(path.join(here, 'site'), 'paywasm-engines-site-');
  siteDir = site;
  fs.copyFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), path.join(site, 'axe.min.js'));
  // Both modules, changed by one custom section at the end: still valid wasm, so only the
  // integrity check built into the script can refuse them.
  fs.mkdirSync(path.join(site, 'changed'));
  for (const f of ['paywasm.wasm', 'paywasm-nosimd.wasm']) {
    const changed = Buffer.concat([fs.readFileSync(path.join(DIST, f)), Buffer.from([0, 2, 1, 0x78])]);
    assert.ok(WebAssembly.validate(changed), `the changed ${f} is valid wasm`);
    fs.writeFileSync(path.join(site, 'changed', f), changed);
  }
  const [launched] = await Promise.all([launchEngine(ENGINE), (async () => {
    const hold = await holdPort();
    sandbox = await startSandbox(['--site', site, '--dist', DIST, '--connect-src', `http://127.0.0.1:${hold.port}`]);
    await hold.release();
    gateway = await startGateway(sandbox, { port: hold.port, shopOrigin: sandbox.base, dir: tempDir('paywasm-engines-gw-') });
    const hook = await sendJson('PUT', `${sandbox.base}/__sandbox/webhook`, { url: `${gateway.base}/v1/webhooks` });
    assert.equal(hook.status, 200, 'webhook URL');
  })()]);
  engine = launched;
  console.log(`engine: ${engine.name} ${engine.version}`);
  ORIGIN = sandbox.base;
  M = sandbox.merchant;
  KEY = { privatePath: path.join(sandbox.dataDir, 'merchant-key.pem') };
  assert.ok(fs.existsSync(KEY.privatePath), `the sandbox's merchant key is at ${KEY.privatePath}`);
});
after(async () => {
  await engine?.close();
  await gateway?.stop();
  await sandbox?.stop();
  for (const dir of [work, siteDir]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

// ---- fixtures and helpers ---------------------------------------------------------------------

const CART = [
  { id: 'sku-beans', name: 'Espresso beans 1 kg', price: 24.5, quantity: 2 },
  { id: 'sku-mug', name: 'Mug "Ünïcode" ☕', price: 9.99, quantity: 1 },
];
const TOTAL = '58.99';
const ADDRESS = { firstname: 'Grace', lastname: 'Hopper', city: 'Washington', country: 'US', email: 'grace@example.test' };
const newOffer = (tag) => `${ENGINE}-${tag}-${crypto.randomUUID().slice(0, 8)}`;
const control = (method, p, body) => sendJson(method, `${sandbox.base}/__sandbox${p}`, body);
const transactionsFor = async (offerId) =>
  (await getJson(`${sandbox.base}/__sandbox/transactions`)).filter((t) => t.offerId === offerId);

// The page (a fresh context) on the shop; done() closes it and fails on uncaught errors in the page
// or CSP violations. A page a failed test left open is closed after it.
const pages = new Set();
afterEach(async () => {
  await Promise.all([...pages].map((page) => page.close().catch(() => {})));
  pages.clear();
});
const open = () => openChecked(engine, `${ORIGIN}/`, pages);

// The `nth` event of `type` (with status code `code` when given).
const waitEvent = (page, type, { code = null, nth = 1 } = {}) => until(page, ([t, c, n]) => {
  const all = window.__events.filter((e) => e.type === t && (c === null || (e.status && e.status.code === c)));
  return all.length >= n ? all[n - 1] : null;
}, [type, code, nth], `event ${type}${code === null ? '' : ` ${code}`} #${nth}`);

// Mounts the widget (mount() options; `token` becomes getShopperToken) and waits for paywasm-ready.
async function mount(page, options = {}) {
  const opts = { baseUrl: `${ORIGIN}/api`, merchantId: M.merchantId, publicKey: M.publicKey, currency: 'USD', locale: 'en',
    cart: CART, shippingAddress: ADDRESS, timeout: '10000', token: M.shopperToken, ...options };
  await page.run(mountInPage, opts);
  return waitEvent(page, 'paywasm-ready');
}

// A gateway session for CART: { url (session-url), qrEndpoint, statusUrl }.
async function session(offerId, methods = ['exchange', 'qr']) {
  const r = await gw(gateway, 'POST', '/v1/sessions', { app: true,
    body: { offerId, currency: 'USD', cart: CART, shippingAddress: ADDRESS, methods } });
  assert.equal(r.status, 201, `session: ${r.text}`);
  const url = `${gateway.base}/v1/checkout/${r.json.id}`;
  return { url, qrEndpoint: `${url}/qr`, statusUrl: `${url}/status` };
}

// In the page: the element in the checkout's shadow root that `selector` names (pages/record.js).
const inShadow = (selector) => window.__shadow(selector);

// Chooses a payment method as a shopper does (a click on its radio) and waits until it is chosen.
async function choose(page, method) {
  await page.click(inShadow, `input#method-${method}`);
  await until(page, (m) => window.__shadow(`input#method-${m}`).checked, method, `the ${method} method chosen`);
}

// The exchange payload the core builds for CART (the plaintext of `data`), in the spec's order.
const exchangePayload = ({ offerId, code2fa = '', savepassword = false, assets = 'BTC' }) => JSON.stringify({
  clientId: M.merchantId, assets,
  cart: CART.map((c) => ({ ...c, localAmount: c.price, localCurrency: 'USD' })),
  shippingAddress: ADDRESS, offerId, nativeAmount: TOTAL, savepassword, code2fa, merchantStoreCurrency: 'USD',
});

// The `data` of the page's one payment POST to `pathPart`, decrypted by OpenSSL with the sandbox's key.
async function decryptedPayment(page, pathPart) {
  const posts = (await page.run(() => window.__posts)).filter((p) => p.url.includes(pathPart));
  assert.equal(posts.length, 1, `payment POSTs to ${pathPart}`);
  return opensslDecrypt(KEY, JSON.parse(posts[0].body).data, 'oaep-sha1', work);
}

// Pays on the sandbox: the transaction moves on (its webhook reaches the gateway, whose stream tells
// the widget) and paywasm-complete must fire.
async function payToComplete(page, first, { qr = false } = {}) {
  assert.equal((await control('POST', `/transactions/${first.transaction.id}/advance`, qr ? { status: 1 } : {})).status, 200, 'advance');
  const complete = await waitEvent(page, 'paywasm-complete');
  assert.equal(complete.status.code, 1, 'success');
  assert.equal(complete.transaction.id, first.transaction.id, 'the transaction paid');
  return complete;
}

// A SIMD128 module written here in text (wat2wasm, from wabt), independently of the widget's probe.
function simdProbe() {
  const wat = path.join(work, 'simd.wat');
  fs.writeFileSync(wat, '(module (func (export "f") (result i32) (i32x4.extract_lane 1 (i32x4.splat (i32.const 7)))))');
  const bytes = execFileSync('wat2wasm', [wat, '--output=-']);
  assert.ok(WebAssembly.validate(bytes), 'Node validates the SIMD128 probe');
  return [...bytes];
}

// ---- the checks: the same in every engine ------------------------------------------------------

test('ready: the element loads, takes the module this engine can run (SIMD128 or not), and is styled', LIMIT, async (t) => {
  const page = await open();
  const ready = await mount(page, { offerId: newOffer('ready') });
  assert.deepEqual(ready.error, null);
  const r = await page.run((probe) => {
    const shadow = window.__shadow;
    const button = shadow('button.pay');
    const style = getComputedStyle(button);
    return {
      simd: WebAssembly.validate(new Uint8Array(probe)),
      constructable: (() => { try { return !!new CSSStyleSheet(); } catch (e) { return false; } })(),
      wasm: performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname).filter((p) => /\.(wasm|css)$/.test(p)),
      total: shadow('[part=total]').textContent, pay: button.textContent,
      background: style.backgroundColor, color: style.color, radius: style.borderTopLeftRadius,
      host: getComputedStyle(document.querySelector('paywasm-checkout')).paddingTop,
    };
  }, simdProbe());
  t.diagnostic(`${engine.name} ${engine.version}: SIMD128 ${r.simd}, constructable stylesheets ${r.constructable}; fetched ${r.wasm.join(', ')}`);
  // The module for this engine, once; paywasm.css only where the shadow root cannot adopt a sheet.
  const expected = [r.simd ? '/dist/paywasm.wasm' : '/dist/paywasm-nosimd.wasm', ...(r.constructable ? [] : ['/dist/paywasm.css'])];
  assert.deepEqual(r.wasm.sort(), expected.sort(), 'files fetched');
  assert.equal(r.total, '$58.99', 'total');
  assert.equal(r.pay, 'Pay $58.99', 'pay button');
  // The styles apply: the brand colour on Pay, its text colour worked out per element, the host's box.
  assert.deepEqual([r.background, r.color, r.radius, r.host], ['rgb(10, 88, 202)', 'rgb(255, 255, 255)', '6px', '18px'], 'styles');
  // A pale brand colour: the element works the text colour out again (its own rule): black.
  await page.run(() => {
    document.querySelector('paywasm-checkout').style.setProperty('--paywasm-accent', '#ffd54f');
    window.__ctl.reset();
  });
  await until(page, () => { const s = getComputedStyle(window.__shadow('button.pay')); return s.color === 'rgb(0, 0, 0)' && s.backgroundColor === 'rgb(255, 213, 79)'; },
    null, 'black text on a pale brand colour');
  await page.done();
});

for (const method of ['exchange', 'bank']) {
  test(`${method}: paid through the real gateway to paywasm-complete; the ciphertext decrypts with OpenSSL to the exact payload`, LIMIT, async () => {
    const page = await open();
    const offerId = newOffer(method);
    const { qrEndpoint, statusUrl } = await session(offerId);
    await mount(page, { offerId, methods: 'exchange bank', accountId: 'acct-77', stockId: 'bank-conn-5', statusMode: 'sse', qrEndpoint, statusUrl });
    if (method === 'bank') await choose(page, 'bank');
    await page.click(inShadow, `button[data-key=pay-${method}]`);
    const first = await waitEvent(page, 'paywasm-status');
    assert.equal(first.status.code, 0, 'pending first');
    assert.equal(first.method, method, 'method');
    const [stored] = await transactionsFor(offerId);
    assert.equal(stored.transaction.id, first.transaction.id, 'the sandbox stored this payment');
    const plain = await decryptedPayment(page, method === 'exchange' ? '/exchanges/payments/' : '/purchases');
    if (method === 'exchange') {
      assert.equal(plain.text, exchangePayload({ offerId }), 'decrypted payload');
      assert.ok(plain.blocks >= 3, `the payload spans ${plain.blocks} RSA blocks`);
    } else {
      const bank = JSON.parse(plain.text);
      assert.deepEqual([bank.accountId, bank.stockId, bank.offerId, String(bank.amount ?? bank.nativeAmount)], ['acct-77', 'bank-conn-5', offerId, TOTAL], `bank payload ${plain.text}`);
    }
    await payToComplete(page, first);
    await page.done();
  });
}

test('QR: the code drawn is read by zbarimg as the wallet link; paid through the gateway to paywasm-complete', LIMIT, async (t) => {
  const page = await open();
  const offerId = newOffer('qr');
  await mount(page, { offerId, methods: 'exchange qr', statusMode: 'sse', ...await session(offerId) });
  await choose(page, 'qr');
  await page.click(inShadow, 'button[data-key=pay-qr]');
  const first = await waitEvent(page, 'paywasm-status');
  assert.equal(first.status.code, 10, 'waiting for payment');
  const link = await until(page, () => { const a = window.__shadow('[data-key=wallet-link]'); return a && a.getAttribute('href'); }, null, 'the wallet link');
  assert.match(link, /^[a-z]+:[A-Za-z0-9]+\?amount=/, 'a wallet URI');
  // The code in the middle of the viewport, then the screenshot (no element screenshots: WebKitGTK
  // gives black ones).
  await page.run(() => window.__shadow('.qr-code').scrollIntoView({ block: 'center' }));
  await until(page, () => { const r = window.__shadow('.qr-code').getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; },
    null, 'the code in the viewport');
  // Read from a screenshot once the scrolled page is painted (the next screenshots, not a delay).
  const png = path.join(work, `qr-${ENGINE}.png`);
  const read = await waitFor(async () => {
    fs.writeFileSync(png, await page.screenshot());
    return zbar(png);
  }, { timeout: 20000, interval: 100, what: 'zbarimg reading the code from a screenshot' });
  assert.equal(read, link, 'zbarimg reads the wallet URI from the screenshot');
  t.diagnostic(`zbarimg: ${link}`);
  await payToComplete(page, first, { qr: true });
  await page.done();
});

// WebKit drops a click whose pressed node left the document before the release: a redraw that
// rewrote Pay's label while the shopper held the mouse (a greeting arriving mid-press) lost the
// click (widget.attempts.webkit's flaky "no answer to Pay"). A redraw keeps the label's text node.
test('a press on Pay across a redraw (something arriving mid-press) is a click: the label\'s text node stays, the code is drawn', LIMIT, async () => {
  const page = await open();
  const offerId = newOffer('press');
  await mount(page, { offerId, methods: 'exchange qr', statusMode: 'sse', ...await session(offerId) });
  await choose(page, 'qr');
  const redraw = () => { const el = document.querySelector('paywasm-checkout'); el.shippingAddress = el.shippingAddress; };
  await page.run(() => { window.__label = window.__shadow('button[data-key=pay-qr]').firstChild; });
  await page.run(redraw);
  assert.equal(await page.run(() => window.__shadow('button[data-key=pay-qr]').firstChild === window.__label), true,
    'a redraw of the same view keeps Pay\'s text node');
  await page.pressAcross(inShadow, 'button[data-key=pay-qr]', redraw);
  const first = await waitEvent(page, 'paywasm-status');
  assert.equal(first.status.code, 10, 'the code was asked for: waiting for payment');
  await page.done();
});

test('keyboard only: Tab through exchange, 2FA and save, Enter on Pay; the payload has what was typed', LIMIT, async () => {
  const page = await open();
  const offerId = newOffer('keys');
  const { qrEndpoint, statusUrl } = await session(offerId);
  await mount(page, { offerId, methods: 'exchange', statusMode: 'sse', qrEndpoint, statusUrl });
  await page.run(() => document.querySelector('h1').focus());
  const focused = () => page.run(() => {
    const el = document.querySelector('paywasm-checkout').shadowRoot.activeElement;
    return el ? (el.id || el.dataset.key || el.localName) : null;
  });
  const stops = [];
  for (const [key, want] of [['Tab', 'exchange'], ['Tab', 'code2fa'], ['654321'], ['Tab', 'savepassword'], ['Space'], ['Tab', 'pay-exchange']]) {
    await page.press(key);
    if (want) stops.push(await focused());
  }
  assert.deepEqual(stops, ['exchange', 'code2fa', 'savepassword', 'pay-exchange'], 'tab stops');
  const ring = await page.run(() => getComputedStyle(document.querySelector('paywasm-checkout').shadowRoot.activeElement).outlineStyle);
  assert.notEqual(ring, 'none', 'the focused Pay button shows a focus ring');
  await page.press('Enter');
  const first = await waitEvent(page, 'paywasm-status');
  assert.equal(first.status.code, 0, 'pending');
  const plain = await decryptedPayment(page, '/exchanges/payments/');
  assert.equal(plain.text, exchangePayload({ offerId, code2fa: '654321', savepassword: true }), 'the payload holds the typed 2FA code and the ticked box');
  await page.done();
});

test('session-url set after ready (as the demo shop does): the session\'s order is drawn and the greeting follows', LIMIT, async () => {
  const page = await open();
  const offerId = newOffer('late');
  const { url } = await session(offerId);
  const before = (await getJson(`${sandbox.base}/__sandbox/transactions`)).length;
  await page.run((token) => { window.__ctl = PayWasm.mount('#app', { locale: 'en', getShopperToken: async () => token }); }, M.shopperToken);
  await waitEvent(page, 'paywasm-ready');
  await page.run((u) => window.__ctl.update({ sessionUrl: u }), url);
  await until(page, () => { const el = window.__shadow('[part=total]'); return el && el.textContent === '$58.99'; }, null, 'the session\'s total');
  const greeting = await until(page, () => { const g = window.__shadow('.greeting'); return g && !g.hidden && g.textContent; }, null, 'the greeting');
  assert.match(greeting, /^Signed in at the payment service as \S+/, 'greeting text');
  assert.equal((await getJson(`${sandbox.base}/__sandbox/transactions`)).length, before, 'nothing paid');
  await page.done();
});

test('strict CSP: the page\'s policy has no unsafe-inline or unsafe-eval; the widget runs with no violation, and one is seen when there is one', LIMIT, async () => {
  const csp = (await fetch(`${ORIGIN}/`)).headers.get('content-security-policy');
  assert.match(csp, /script-src 'self' 'wasm-unsafe-eval';/, csp);
  assert.match(csp, /style-src 'self';/, csp);
  assert.ok(!/unsafe-inline|unsafe-eval'/.test(csp.replace("'wasm-unsafe-eval'", '')), csp);
  const page = await open();
  const offerId = newOffer('csp');
  await mount(page, { offerId, methods: 'exchange qr', ...await session(offerId) });
  await choose(page, 'qr');
  await page.click(inShadow, 'button[data-key=pay-qr]');
  await waitEvent(page, 'paywasm-status');
  assert.deepEqual(await page.run(() => window.__violations), [], 'violations after render, a QR code and the status');
  // The recorder sees a violation in this engine: an inline <style> is refused.
  await page.run(() => { const s = document.createElement('style'); s.textContent = 'h1 { color: red }'; document.head.append(s); });
  const seen = await until(page, () => window.__violations.length && window.__violations, null, 'the violation of an inline <style>');
  assert.match(seen[0].directive, /^style-src/, JSON.stringify(seen));
  await page.run(() => { window.__violations.length = 0; });
  await page.done();
});

test('SRI: a changed wasm is refused by the integrity built into the script: error network, nothing to pay', LIMIT, async () => {
  const page = await open();
  await page.run((o) => { window.__ctl = PayWasm.mount('#app', o); },
    { wasmUrl: '/changed/paywasm.wasm', baseUrl: `${ORIGIN}/api`, publicKey: M.publicKey, cart: CART, offerId: newOffer('sri'), locale: 'en' });
  const failed = await waitEvent(page, 'paywasm-error');
  assert.equal(failed.error.code, 'network', 'code');
  assert.match(failed.error.message, /could not fetch \S+\/changed\/paywasm(-nosimd)?\.wasm/, 'message');
  const shown = await page.run(() => ({ pay: !!window.__shadow('button.pay'), alert: (window.__shadow('[role=alert]') || {}).textContent || '' }));
  assert.equal(shown.pay, false, 'no pay button');
  assert.ok(shown.alert.length > 0, 'the error is shown');
  await page.done();
});

// axe-core runs three times over the page (~0.5 MB of script): in WebKitGTK beside a busy machine
// (load 12) that took over the 60 s of the others.
test('axe-core: no serious or critical violation (the form with three methods, then a QR code)', { timeout: 180000 }, async () => {
  const page = await open();
  const offerId = newOffer('axe');
  await mount(page, { offerId, methods: 'exchange bank qr', accountId: 'acct-77', stockId: 'bank-conn-5', ...await session(offerId) });
  await page.run(() => new Promise((resolve, reject) => {
    const s = document.createElement('script');
    s.src = '/axe.min.js';
    s.onload = resolve;
    s.onerror = () => reject(new Error('axe.min.js did not load'));
    document.head.append(s);
  }));
  const axe = () => page.run(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return { ran: r.passes !== undefined, found: r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`) };
  });
  let r = await axe();
  assert.ok(r.ran, 'axe ran');
  assert.deepEqual(r.found, [], 'the form');
  await choose(page, 'qr');
  await page.click(inShadow, 'button[data-key=pay-qr]');
  await waitEvent(page, 'paywasm-status');
  r = await axe();
  assert.deepEqual(r.found, [], 'with a QR code');
  // The check can fail: a text colour without contrast is found.
  await page.run(() => document.querySelector('paywasm-checkout').style.setProperty('--paywasm-fg', '#eeeeee'));
  r = await axe();
  assert.ok(r.found.some((f) => f.startsWith('color-contrast')), `a contrast violation is seen: ${r.found.join('; ')}`);
  await page.done();
});

test('the shopper token is in no storage, cookie, IndexedDB, cache, URL, console or DOM after a greeting and a payment', LIMIT, async () => {
  const page = await open();
  const offerId = newOffer('token');
  const { qrEndpoint, statusUrl } = await session(offerId);
  await mount(page, { offerId, methods: 'exchange', statusMode: 'sse', qrEndpoint, statusUrl });
  await until(page, () => { const g = window.__shadow('.greeting'); return g && !g.hidden; }, null, 'the greeting (a use of the token)');
  await page.click(inShadow, 'button.pay');
  const first = await waitEvent(page, 'paywasm-status');
  await payToComplete(page, first);
  await page.run(() => console.log('console capture works: probe'));
  const seen = await page.run(pageTraces);
  const consoleText = await page.run(() => window.__console.join('\n'));
  assert.ok(consoleText.includes('console capture works'), 'the console recorder sees page messages');
  assertTokenNowhere(M.shopperToken, { ...seen, console: consoleText });
  await page.done();
});
