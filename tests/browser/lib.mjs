// The browser suites' shared harness, on Node's test runner (node:test): Chromium launched once per
// test file, a fresh context and page per test with its page errors and console kept, the suite's
// page server, the merchant key with OpenSSL/zbarimg checks, the fake payment API (Playwright route
// handlers) and small waiting helpers. Used by tests/browser/*.mjs, tests/faults/run.mjs and
// tests/demo/run.mjs; run a file with `node --test-reporter=spec <file> [--dist <dir>]`.
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, afterEach, before } from 'node:test';
import assert from 'node:assert/strict';
import { chromium as playwrightChromium } from 'playwright-core';
import { sleep, tempDir, waitFor } from '../support/node.mjs';

import { startServer, API_ORIGIN } from './server.mjs';

export { startServer, API_ORIGIN };

// The one page recorder of every browser suite (violations, errors, console, the widget's events,
// POST bodies): served as /pages/record.js here, copied as /record.js into the sites of the engine
// and fault suites.
export const RECORDER = path.join(path.dirname(new URL(import.meta.url).pathname), 'pages', 'record.js');

// A site for the sandbox to serve (its --site): a temporary copy of `pagesDir` with the recorder
// as /record.js. Returns its path; the caller removes it.
export function sandboxSite(pagesDir, prefix = 'paywasm-site-') {
  const site = tempDir(prefix);
  fs.cpSync(pagesDir, site, { recursive: true });
  fs.copyFileSync(RECORDER, path.join(site, 'record.js'));
  return site;
}

export const CHROMIUM = process.env.PAYWASM_CHROMIUM || '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run'];

// Chromium, headless. Playwright's launch() gives it a fresh user-data-dir in a temp folder and
// removes it on close.
export async function launch() {
  const browser = await playwrightChromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  return { browser, close: () => browser.close() };
}

// ---- the test file's dist and browser -------------------------------------------------------------

// The widget files a test file runs against: `--dist <dir>` on its command line, else
// $PAYWASM_DIST_DIR, else dist/ at the repository root. When one of `files` is missing the process
// says so and exits 1 before any test is registered (a setup error, not N identical failures).
export function distDir(files = ['paywasm.js', 'paywasm.wasm']) {
  const argv = process.argv.slice(2);
  const i = argv.indexOf('--dist');
  const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
  const dir = path.resolve(i >= 0 ? argv[i + 1] : process.env.PAYWASM_DIST_DIR || path.join(root, 'dist'));
  const missing = files.filter((f) => !fs.existsSync(path.join(dir, f)));
  if (missing.length) {
    console.log(`${dir} has no ${missing.join(', ')}: run \`make dist\` (scripts/dist.sh) first`);
    process.exit(1);
  }
  return dir;
}

// One Chromium for the whole test file: launched in a `before` hook, closed in an `after` hook
// (call at the top level of the file, before its tests). Returns a handle whose `browser` is the
// Playwright Browser once `before` ran, and whose newPage() opens a fresh context and page. After
// each test, the contexts it opened through newPage() and left open (a test that failed before its
// done()) are closed, so nothing of one test runs on into the next.
// Note: Node 20 starts a file's top-level `before` hooks as they are registered, so they run side by
// side (each file's setups are independent of one another); the first test waits for all of them,
// and its reported time includes theirs. `after` hooks run one by one, in the order registered.
export function useBrowser() {
  const open = new Set();
  const handle = {
    browser: null,
    async newPage(options) {
      const opened = await newPage(handle.browser, options);
      open.add(opened.context);
      opened.context.on('close', () => open.delete(opened.context));
      return opened;
    },
  };
  let chromium_;
  before(async () => {
    chromium_ = await launch();
    handle.browser = chromium_.browser;
  });
  afterEach(async () => {
    await Promise.all([...open].map((context) => context.close().catch(() => {})));
  });
  after(async () => { await chromium_?.close(); });
  return handle;
}

// A fresh browser context (Playwright newContext `options`) and page in it. Kept from the start:
// `errors` (uncaught page errors) and `console` (the text of every console message). done() closes
// the context and asserts that the page had no uncaught error and no CSP violation (the test pages
// record those in window.__violations); `what` prefixes both messages.
export async function newPage(browser, options = {}) {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  const errors = [];
  const console_ = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => console_.push(m.text()));
  const done = async (what = '') => {
    const violations = await page.evaluate(() => window.__violations).catch(() => []);
    await context.close();
    const prefix = what ? `${what}: ` : '';
    assert.ok(errors.length === 0, `${prefix}uncaught errors in the page: ${errors.join('; ')}`);
    assert.ok(violations.length === 0, `${prefix}CSP violations: ${JSON.stringify(violations)}`);
  };
  return { context, page, errors, console: console_, done };
}

// ---- waiting ------------------------------------------------------------------------------------------

// Waits until the page's window.__events (the test pages record the widget's events there) holds
// `nth` events of `type`, counting only those whose status code is `code` when given; resolves all
// the events of `type`. Fails after `timeout` ms listing the events seen. No eval in the page: the
// CSP forbids it, and a violation would fail the test.
export async function waitEvent(page, type, { code = null, nth = 1, timeout = 15000 } = {}) {
  try {
    await page.waitForFunction(([t, c, n]) => window.__events
      .filter((e) => e.type === t && (c === null || (e.status && e.status.code === c))).length >= n,
    [type, code, nth], { timeout });
  } catch (e) {
    const seen = await page.evaluate(() => JSON.stringify(window.__events)).catch(() => '?');
    const which = `${nth === 1 ? '' : ` #${nth}`}${code === null ? '' : ` with status ${code}`}`;
    throw new Error(`no ${type} event${which}; events so far: ${seen.slice(0, 1500)}`);
  }
  return page.evaluate((t) => window.__events.filter((e) => e.type === t), type);
}

// ---- keys, OpenSSL, zbarimg --------------------------------------------------------------------

export function makeKeys(dir) {
  const priv = path.join(dir, 'merchant-private.pem');
  const pub = path.join(dir, 'merchant-public.pem');
  execFileSync('openssl', ['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', priv], { stdio: 'pipe' });
  execFileSync('openssl', ['pkey', '-in', priv, '-pubout', '-out', pub], { stdio: 'pipe' });
  const der = execFileSync('openssl', ['pkey', '-pubin', '-in', pub, '-outform', 'DER']);
  return {
    privatePath: priv,
    publicPem: fs.readFileSync(pub, 'utf8'),
    fingerprint: crypto.createHash('sha256').update(der).digest('hex'),
  };
}

const OPENSSL_PADDING = {
  'oaep-sha1': ['-pkeyopt', 'rsa_padding_mode:oaep', '-pkeyopt', 'rsa_oaep_md:sha1', '-pkeyopt', 'rsa_mgf1_md:sha1'],
  'oaep-sha256': ['-pkeyopt', 'rsa_padding_mode:oaep', '-pkeyopt', 'rsa_oaep_md:sha256', '-pkeyopt', 'rsa_mgf1_md:sha256'],
  pkcs1v15: ['-pkeyopt', 'rsa_padding_mode:pkcs1'],
};

// Decrypts the widget's base64 ciphertext block by block with `openssl pkeyutl`, independently of
// the C++ core. Returns { text, blocks }.
export function opensslDecrypt(keys, base64, padding, dir) {
  const bytes = Buffer.from(base64, 'base64');
  assert.ok(bytes.length > 0 && bytes.length % 256 === 0, `ciphertext is ${bytes.length} bytes, not a multiple of 256`);
  const parts = [];
  for (let i = 0; i < bytes.length; i += 256) {
    const file = path.join(dir, `block-${i / 256}.bin`);
    fs.writeFileSync(file, bytes.subarray(i, i + 256));
    parts.push(execFileSync('openssl', ['pkeyutl', '-decrypt', '-inkey', keys.privatePath, ...OPENSSL_PADDING[padding], '-in', file]));
  }
  return { text: Buffer.concat(parts).toString('utf8'), blocks: parts.length };
}

export function zbar(pngPath) {
  return execFileSync('zbarimg', ['--raw', '-q', pngPath]).toString('utf8').replace(/\n$/, '');
}

// ---- what a page leaves behind ----------------------------------------------------------------------

// Runs in the page (self-contained: page.evaluate, or an engine driver's run): the text of every
// place a later script or visitor could read something back from: web storage, cookies, IndexedDB,
// Cache Storage, the URL, the widget's recorded events (window.__events) and the DOM with the
// checkout's shadow root.
export async function pageTraces() {
  const out = { localStorage: [], sessionStorage: [], cookies: document.cookie, indexedDB: [], cacheStorage: [], url: location.href };
  for (let i = 0; i < localStorage.length; i++) out.localStorage.push(localStorage.key(i) + '=' + localStorage.getItem(localStorage.key(i)));
  for (let i = 0; i < sessionStorage.length; i++) out.sessionStorage.push(sessionStorage.key(i) + '=' + sessionStorage.getItem(sessionStorage.key(i)));
  for (const info of await indexedDB.databases()) {
    const db = await new Promise((res, rej) => { const r = indexedDB.open(info.name); r.onsuccess = () => res(r.result); r.onerror = rej; });
    for (const store of db.objectStoreNames) {
      const all = await new Promise((res) => { const r = db.transaction(store).objectStore(store).getAll(); r.onsuccess = () => res(r.result); });
      out.indexedDB.push(info.name + '/' + store + ':' + JSON.stringify(all));
    }
    db.close();
  }
  for (const name of await caches.keys()) {
    const cache = await caches.open(name);
    for (const req of await cache.keys()) out.cacheStorage.push(name + ' ' + req.url + ' ' + await (await cache.match(req)).text());
  }
  for (const k of ['localStorage', 'sessionStorage', 'indexedDB', 'cacheStorage']) out[k] = out[k].join('\n');
  out.events = JSON.stringify(window.__events);
  out.dom = document.documentElement.outerHTML + document.querySelector('paywasm-checkout').shadowRoot.innerHTML;
  return out;
}

// Asserts that no 8-character piece of `token` (every 4th offset) is in any text of `where`
// ({ place: text }), and that the same search finds it in a string that has it.
export function assertTokenNowhere(token, where) {
  assert.ok(token.length >= 16, `the sandbox token is long enough to search for: ${token.length}`);
  const pieces = [];
  for (let i = 0; i + 8 <= token.length; i += 4) pieces.push(token.slice(i, i + 8));
  for (const [name, text] of Object.entries(where)) {
    assert.ok(!pieces.some((p) => text.includes(p)), `a piece of the shopper token is in ${name}`);
  }
  assert.ok(pieces.some((p) => `x${token}x`.includes(p)), 'the search finds the token where it is');
}

// ---- the fake payment API -------------------------------------------------------------------------

// Answers API_ORIGIN/** from handlers keyed "METHOD /path" (or "METHOD /prefix*"). A handler gets
// { method, path, headers, body, json } and returns { status, json | body, delay, headers } or
// 'hang' (never answers). Unhandled requests get 404. Every request is kept in `calls`.
export async function fakeApi(page, origin) {
  const api = { calls: [], handlers: new Map() };
  api.on = (key, handler) => { api.handlers.set(key, handler); return api; };
  api.count = (key) => api.calls.filter((c) => `${c.method} ${c.path}` === key).length;
  await page.route(`${origin}/**`, async (route) => {
    const req = route.request();
    const url = new URL(req.url());
    const call = { method: req.method(), path: url.pathname, headers: await req.allHeaders(), body: req.postData() || '' };
    try { call.json = call.body ? JSON.parse(call.body) : null; } catch (e) { call.json = null; }
    api.calls.push(call);
    const key = `${call.method} ${call.path}`;
    let handler = api.handlers.get(key);
    if (!handler) {
      for (const [k, h] of api.handlers) if (k.endsWith('*') && key.startsWith(k.slice(0, -1))) handler = h;
    }
    const answer = handler ? await handler(call) : { status: 404, json: { message: 'no such route in the test' } };
    if (answer === 'hang') return;  // the request stays open until the page gives up
    if (answer.delay) await sleep(answer.delay);
    try {
      await route.fulfill({
        status: answer.status || 200,
        headers: { 'Access-Control-Allow-Origin': '*', 'Content-Type': 'application/json', ...(answer.headers || {}) },
        body: answer.body !== undefined ? answer.body : JSON.stringify(answer.json === undefined ? {} : answer.json),
      });
    } catch (e) {
      // The page went away (or aborted the request) first.
    }
  });
  return api;
}

// A round trip through the fake API from the page: resolves (with the answer's status, 404) once a
// GET API_ORIGIN/probe sent now has been answered. The route gets the page's requests in the order
// they were sent, so whatever the page sent before it is in api.calls by then: a check that
// something was NOT sent, with no fixed wait. (It is recorded too, as GET /probe.)
export const apiRoundTrip = (page) => page.evaluate((o) => fetch(`${o}/probe`).then((r) => r.status), API_ORIGIN);

// ---- the widget suite: fixtures and helpers of tests/browser/<area>.test.mjs --------------------

// Each test's time limit: a deadline for a busy machine (a test's own waits are up to 20 s each).
export const LIMIT = { timeout: 60000 };
export const REPO = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
export const PHONE = { width: 375, height: 667 };

// Set by useWidgetSuite() (live bindings: read them inside tests).
export let DIST;       // the dist directory under test
export let chromium;   // useBrowser()'s handle
export let work;       // a temp folder: the merchant key pair, ciphertext blocks for OpenSSL
export let keys;       // makeKeys(work)
export let server;     // startServer(): dist/, pages/, the public key

// The setup of one area's test file (call at its top level, before its tests): its dist, one
// Chromium, a temp folder with the merchant's key pair and the page server, gone after the file.
export function useWidgetSuite() {
  DIST = distDir(['paywasm.js', 'paywasm.mjs', 'paywasm.wasm', 'paywasm.d.ts', 'integrity.json']);
  chromium = useBrowser();
  before(async () => {
    work = tempDir('paywasm-browser-');
    keys = makeKeys(work);
    server = await startServer({ distDir: DIST, keyPem: keys.publicPem });
  });
  after(async () => {
    await server?.close();
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });
}

// Screenshots of the shopper's states (375 px, light and dark) are kept beside the dist, under
// build/native/screenshots (or $PAYWASM_SCREENSHOTS).
export const shotsDir = () => process.env.PAYWASM_SCREENSHOTS || path.join(DIST, '..', 'screenshots');

export const CART = [
  { id: 'sku-1', name: 'T-shirt "Ünïcode" ☕', price: 12.5, quantity: 1 },
  { id: 'sku-2', name: 'Socks', price: 6.5, quantity: 2 },
  { id: 'sku-3', name: 'Sticker', price: 0.1, quantity: 3 },
];
export const TOTAL = '25.8';  // exact: 0.1 * 3 is 0.3 here, not 0.30000000000000004
export const ADDRESS = { firstname: 'Ada', lastname: 'Lovelace', phoneNo: '+44 20 7946 0000', address1: '1 Analytical St',
  city: 'London', zipcode: 'N1 9GU', country: 'GB', email: 'ada@example.test' };
export const OFFER = 'order-1001';
export const TOKEN = 'shopper-token-abc123';

// The canonical exchange payload, built here with JSON.stringify in the spec's member order.
export function expectedExchangePayload({ exchangeCode2fa = '', savepassword = false, assets = 'BTC', currency = 'USD', cart = CART, offerId = OFFER, total = TOTAL, address = ADDRESS } = {}) {
  return JSON.stringify({
    clientId: 'm-123', assets,
    cart: cart.map((c) => ({ id: c.id, name: c.name, price: c.price, quantity: c.quantity, localAmount: c.price, localCurrency: currency })),
    shippingAddress: address, offerId, nativeAmount: total, savepassword, code2fa: exchangeCode2fa, merchantStoreCurrency: currency,
  });
}

export function transaction(status, extra = {}) {
  return {
    id: '0b6c2a8e-6f0e-4a43-9b1a-6d1f3c1e2a10', status, nativeAmount: TOTAL, nativeCurrency: 'USD',
    amount: '0.00051234', currency: 'BTC', receivedAmount: '0', meta: { offerId: OFFER, receiverAddress: 'bc1qtest' },
    errorMessage: null, ...extra,
  };
}

// A fresh context and page on checkout.html with the API faked; done() asserts no page error and
// no CSP violation. count: the wasm calls counted (countWasmCalls); holdWasm: the wasm modules'
// answers held until releaseWasm() (a module slower than the shopper); clock: Playwright's clock
// installed before the page loads (time flows as usual until the test moves it with page.clock's
// pauseAt/runFor/fastForward: a countdown or a poll's back-off checked without waiting for it).
export async function openPage(file = 'checkout.html', { viewport = { width: 800, height: 900 }, locale = 'en-US', colorScheme = 'light', count = false, holdWasm = false, clock = false } = {}) {
  const { context, page, done, console: console_ } = await chromium.newPage({ viewport, locale, colorScheme });
  if (clock) await page.clock.install();
  const api = await fakeApi(page, API_ORIGIN);
  if (count) await countWasmCalls(page);
  let releaseWasm = () => {};
  if (holdWasm) {
    const held = new Promise((resolve) => { releaseWasm = resolve; });
    await page.route(/\/dist\/paywasm[\w-]*\.wasm$/, async (route) => { await held; await route.continue(); });
  }
  await page.goto(`${server.origin}/pages/${file}`);
  return { context, page, api, done, console: console_, releaseWasm };
}

// In the page (self-contained: page.evaluate, or an engine driver's run): mounts the widget on #app
// with the mount() options `o` as window.__ctl; `o.token` becomes getShopperToken (null: none).
export function mountInPage(o) {
  const { token, ...rest } = o;
  if (token !== null && token !== undefined) rest.getShopperToken = async () => token;
  window.__ctl = PayWasm.mount('#app', rest);
}

// Mounts the widget with the test defaults (overridable; `token: null` means no callback) and waits
// for paywasm-ready.
export async function mount(page, options = {}) {
  const opts = {
    baseUrl: API_ORIGIN, merchantId: 'm-123', publicKey: keys.publicPem, currency: 'USD', offerId: OFFER,
    cart: CART, shippingAddress: ADDRESS, timeout: '5000', token: TOKEN, ...options,
  };
  await page.evaluate(mountInPage, opts);
  await waitEvent(page, 'paywasm-ready');
}

export const events = (page, type) => page.evaluate((t) => window.__events.filter((e) => e.type === t), type);
export const text = (page, selector) => page.locator(`paywasm-checkout ${selector}`).first().textContent();
// The text of `selector` once `ok(text)` holds (a language file arrives asynchronously); fails at
// waitFor's deadline (one for a busy machine, not a promise of the widget's) naming the last text.
export async function textWhen(page, selector, ok, what) {
  let got = null;
  try {
    return await waitFor(async () => { got = await text(page, selector); return ok(got) && got; }, { timeout: 20000, what });
  } catch (e) {
    throw new Error(`${e.message}: the text was '${got}'`);
  }
}
export const languageFiles = (requests) => requests.filter((r) => /^GET \/dist\/paywasm-[a-z]+\.json$/.test(r));

export const QR_STRING = 'bitcoin:bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq?amount=0.00051234&value=25.8';
export const QR_RESULT = { totalAmount: TOTAL, currency: 'USD', crytoCurrency: 'BTC', id: '7d1c9f5e-1111-4c2b-9a77-0e0e0e0e0e0e',
  meta: { offerId: OFFER, receiverAddress: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', qrString: QR_STRING } };

export async function axe(page) {
  await page.addScriptTag({ url: '/vendor/axe.min.js' });
  return page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
}

export const payState = (page) => page.locator('paywasm-checkout').evaluate((host) => {
  const b = host.shadowRoot.querySelector('button.pay');
  return { disabled: b ? b.disabled : null, label: b ? b.textContent : null, error: host.getAttribute('error'),
    states: ['idle', 'sending', 'pending', 'final', 'ambiguous', 'error'].filter((s) => host.matches(`:state(${s})`)) };
});

// The shadow root's layout facts a shopper on a phone sees: each selector's box (null: not shown).
export const boxes = (page, selectors) => page.evaluate((list) => {
  const root = document.querySelector('paywasm-checkout').shadowRoot;
  return Object.fromEntries(list.map((sel) => {
    const el = root.querySelector(sel);
    const r = el && el.getClientRects().length ? el.getBoundingClientRect() : null;
    return [sel, r && { top: r.top, bottom: r.bottom, width: r.width, height: r.height }];
  }));
}, selectors);

// Puts the checkout into one of the shopper's states, on the fake API: form (nothing done yet),
// paid (an exchange payment completed), pending-exchange and pending-bank (a payment taken, not
// final; the bank from "Checking ••6789"), qr (a code with 4:59 left), pending (a QR payment seen),
// unclear (a 500 to the payment; `statusUrl` given, the status view of a gateway session with
// nothing taken), partial (part of a QR code's amount).
export async function showState(page, api, state, { statusUrl = null } = {}) {
  if (state === 'form' || state === 'pending-exchange' || state === 'pending-bank') {
    api.on('POST /exchanges/payments/coinbase', () => ({ json: transaction(0) }));
    api.on('POST /purchases', () => ({ json: transaction(0, { amount: undefined, currency: undefined }) }));
    await mount(page, { methods: 'exchange bank qr', accountId: 'acct-77', stockId: 'bank-conn-5', bankAccount: 'Checking ••6789',
      qrEndpoint: '/merchant/qr' });
    if (state === 'form') return;
    if (state === 'pending-bank') await page.locator('paywasm-checkout input#method-bank').check();
    await page.locator('paywasm-checkout button.pay').click();
    await waitEvent(page, 'paywasm-status');
    return;
  }
  if (state === 'qr') {
    await mount(page, { methods: 'exchange qr', qrResult: { ...QR_RESULT, expiresAt: Date.now() + 299500 } });
    await waitEvent(page, 'paywasm-status');
    return;
  }
  if (state === 'paid' || state === 'unclear') {
    api.on('POST /exchanges/payments/coinbase', () => (state === 'paid' ? { json: transaction('completed') }
      : { status: 500, body: '{"message":"internal error"}' }));
    if (statusUrl) {
      api.on('GET /gateway/status', () => ({ json: { sessionId: 'cs_1', offerId: OFFER, status: null, kind: null, state: 'open',
        final: false, success: false, taken: 'none', tone: null, next: 'pay', method: null, transactionId: null,
        orderTotal: { amount: '25.80', currency: 'USD' }, expected: null, received: null, remaining: null, version: 0, updatedAt: null } }));
    }
    await mount(page, { methods: 'exchange bank qr', accountId: 'acct-77', stockId: 'bank-conn-5', qrEndpoint: '/merchant/qr',
      statusUrl, statusMode: 'poll', statusInterval: '100' });
    await page.locator('paywasm-checkout button.pay').click();
    await waitEvent(page, state === 'paid' ? 'paywasm-complete' : 'paywasm-error');
    return;
  }
  const body = state === 'pending' ? '{"status":0}' : '{"status":101,"receivedAmount":"0.0002"}';
  await page.route(`${server.origin}/merchant/status/**`, (route) => route.fulfill({ status: 200, contentType: 'application/json', body }));
  await mount(page, { methods: 'exchange qr', statusUrl: '/merchant/status/{id}', statusInterval: '100', qrResult: QR_RESULT });
  await waitEvent(page, 'paywasm-status', { code: state === 'pending' ? 0 : 101 });
}

// A merchant gateway's checkout session on the page's origin, answered by route handlers:
// GET /gateway/v1/checkout/cs_test is its checkout view ({ offerId, amount, currency, cart,
// shippingAddress, methods, merchantId, publicKey, keyFingerprint, padding, serviceUrl, status }:
// the values here, `view` overriding them), its /status answers `status` (the gateway's status view,
// or 404 while there is none). Returns the session-url.
export async function fakeSession(page, view = {}, { status = null } = {}) {
  const url = `${server.origin}/gateway/v1/checkout/cs_test`;
  const body = { offerId: OFFER, amount: '25.80', currency: 'USD', cart: CART, shippingAddress: ADDRESS, methods: ['exchange', 'bank'],
    merchantId: 'm-123', publicKey: keys.publicPem, keyFingerprint: keys.fingerprint, padding: 'oaep-sha1', serviceUrl: API_ORIGIN,
    status: null, ...view };
  await page.route(`${url}/status`, (route) => route.fulfill(status ? { status: 200, contentType: 'application/json', body: JSON.stringify(status) }
    : { status: 404, contentType: 'application/json', body: '{"error":"none"}' }));
  await page.route(url, (route) => route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(body) }));
  return url;
}

// A gateway session with its attempts (issue 32), on fakeSession's routes: `view` and `status` as
// there; POST {session}/attempts answers `gw.register(call)` ({ status, json }; default 201 with a
// new attemptId), POST {session}/attempts/{id} (a report) 200; the status stream answers
// `gw.stream` (the gateway's status view, `payable` included) as one server-sent event with
// `retry: 50`, so each reconnection brings its current value (JSON to a poll; gw.streams counts
// the answers). `gw.log` records
// 'register', 'report' here and whatever the test pushes (its payment handler: 'pay'), in order;
// gw.calls the gateway's POSTs ({ path, json }). Returns gw with gw.url, the session-url.
export async function fakeGateway(page, view = {}, { status = null } = {}) {
  const gw = { log: [], calls: [], stream: null, streams: 0, register: () => ({ status: 201, json: { attemptId: `at_${'a1'.repeat(16)}`, method: 'exchange', createdAt: new Date().toISOString(), state: 'registered' } }) };
  // As the gateway's view: its status JSON carries `payable` too, a status or not.
  gw.url = await fakeSession(page, view.payable && !view.status ? { ...view, status: gatewayView(view.payable) } : view, { status });
  await page.route(`${gw.url}/status`, (route) => {
    const sse = (route.request().headers().accept || '').includes('text/event-stream');
    gw.streams += 1;
    if (!gw.stream) return route.fulfill({ status: 404, contentType: 'application/json', body: '{"error":"none"}' });
    return route.fulfill(sse ? { status: 200, contentType: 'text/event-stream', body: `retry: 50\ndata: ${JSON.stringify(gw.stream)}\n\n` }
      : { status: 200, contentType: 'application/json', body: JSON.stringify(gw.stream) });
  });
  await page.route(`${gw.url}/attempts**`, async (route) => {
    const req = route.request();
    const call = { path: new URL(req.url()).pathname, json: JSON.parse(req.postData() || 'null') };
    const reporting = call.path.endsWith('/attempts') ? null : call;
    gw.calls.push(call);
    gw.log.push(reporting ? 'report' : 'register');
    const answer = reporting ? { status: 200, json: { state: 'answered' } } : await gw.register(call);
    if (answer === 'abort') return route.abort();
    return route.fulfill({ status: answer.status, contentType: 'application/json', body: JSON.stringify(answer.json || {}) });
  });
  return gw;
}

// The gateway's status view of session cs_test with nothing paid, and `payable`.
export const gatewayView = (payable) => ({ sessionId: 'cs_test', offerId: OFFER, status: null, state: 'open', taken: 'none',
  method: null, transactionId: null, orderTotal: { amount: '25.80', currency: 'USD' }, payable });

// Counts the calls into the wasm core of every page of `page`'s context from now on: an init
// script wraps the module's one entry point (pw_call) and records each op's name in
// window.__wasmCalls. Nothing else of the page changes.
export async function countWasmCalls(page) {
  await page.addInitScript(() => {
    window.__wasmCalls = [];
    const instantiate = WebAssembly.instantiate;
    WebAssembly.instantiate = async function (source, imports) {
      const made = await instantiate.call(WebAssembly, source, imports);
      const instance = made instanceof WebAssembly.Instance ? made : made.instance;
      const ex = instance.exports;
      const counted = Object.assign({}, ex, {
        pw_call(op, args) {
          const heap = new Uint8Array(ex.memory.buffer);
          let end = op;
          while (heap[end]) end++;
          window.__wasmCalls.push(new TextDecoder().decode(heap.subarray(op, end)));
          return ex.pw_call(op, args);
        },
      });
      return made instanceof WebAssembly.Instance ? { exports: counted } : { module: made.module, instance: { exports: counted } };
    };
  });
}

// Resolves once the checkout's colours have settled after a change of its brand colour or theme:
// no transition of its .root is running any more, and the element's own transitionend handler
// (registered when .root was made, so before this one) has worked out the text colours again. A
// change that starts no transition resolves at once (nothing is worked out again). In Chromium
// (Element.getAnimations()).
export const coloursSettled = (page) => page.locator('paywasm-checkout').evaluate((host) => new Promise((resolve) => {
  const root = host.shadowRoot.querySelector('.root');
  const check = () => {
    if (root.getAnimations().length) return;
    root.removeEventListener('transitionend', check);
    resolve();
  };
  root.addEventListener('transitionend', check);
  check();
}));
