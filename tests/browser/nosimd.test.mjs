// The loader's choice of module in Chromium (ctest widget.nosimd), from the `make dist` files under
// the strict CSP: a browser without WebAssembly SIMD128 runs paywasm-nosimd.wasm (and never fetches
// paywasm.wasm), pays, and its ciphertext decrypts with OpenSSL; a tampered paywasm-nosimd.wasm is
// refused by its built-in SRI value; `wasmUrl` names paywasm.wasm, and the no-SIMD module is taken
// from its folder; a browser with SIMD128 fetches paywasm.wasm only; without WebAssembly, nothing
// is fetched and the error is `unsupported`.
// Chromium has SIMD128, so "without" is made by an init script that wraps WebAssembly.validate()
// (what web/src/core.js probes with) to answer as an older browser does; compiling stays real.
//   PAYWASM_WIDGET_DIST=<dist dir> node --test tests/browser/nosimd.test.mjs   (default: dist/)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { startServer, API_ORIGIN } from './server.mjs';
import { launch, makeKeys, opensslDecrypt, fakeApi } from './lib.mjs';

const here = path.dirname(new URL(import.meta.url).pathname);
const DIST = path.resolve(process.env.PAYWASM_WIDGET_DIST || path.join(here, '../../dist'));

const CART = [
  { id: 'sku-1', name: 'T-shirt "Ünïcode" ☕', price: 12.5, quantity: 1 },
  { id: 'sku-2', name: 'Socks', price: 6.5, quantity: 2 },
];
const ADDRESS = { firstname: 'Ada', lastname: 'Lovelace', city: 'London', country: 'GB', email: 'ada@example.test' };
const OFFER = 'order-nosimd-1';
const TOKEN = 'shopper-token-nosimd';

// The page's init script: 'simd' makes WebAssembly.validate() refuse any module with a SIMD opcode
// (prefix 0xfd), as a browser without SIMD128 does; 'none' removes WebAssembly altogether.
function withoutFeature(missing) {
  if (missing === 'none') {
    delete globalThis.WebAssembly;
    return;
  }
  const validate = WebAssembly.validate;
  WebAssembly.validate = (bytes) => (new Uint8Array(bytes).includes(0xfd) ? false : validate(bytes));
}

let keys;
let work;
let server;
let chromium;
before(async () => {
  for (const f of ['paywasm.js', 'integrity.json']) {
    assert.ok(fs.existsSync(path.join(DIST, f)), `${DIST}/${f} is missing: run \`make dist\` (scripts/dist.sh) first`);
  }
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'paywasm-nosimd-'));
  keys = makeKeys(work);
  server = await startServer({ distDir: DIST, keyPem: keys.publicPem });
  chromium = await launch();
});
after(async () => {
  await chromium?.close();
  await server?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

// checkout.html (the script tag with its SRI, tests/browser/pages) in a fresh context, with
// `missing` taken away from WebAssembly (or nothing: null); `wasm()` lists the .wasm files the
// server sent to this page. `done()` closes it and fails on page errors or CSP violations.
async function openPage(missing, { route } = {}) {
  const context = await chromium.browser.newContext({ locale: 'en-US' });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  if (missing) await page.addInitScript(withoutFeature, missing);
  const api = await fakeApi(page, API_ORIGIN);
  if (route) await page.route(`${server.origin}/**/*.wasm`, route);
  const from = server.requests.length;
  const requested = [];
  page.on('request', (r) => { if (r.url().endsWith('.wasm')) requested.push(new URL(r.url()).pathname); });
  await page.goto(`${server.origin}/pages/checkout.html`);
  return {
    page,
    api,
    // Requested by the page (every one, including those a route answered) and served by the server.
    wasm: () => ({ requested: [...requested], served: server.requests.slice(from).filter((r) => r.endsWith('.wasm')) }),
    async done() {
      const violations = await page.evaluate(() => window.__violations).catch(() => []);
      await context.close();
      assert.deepEqual(errors, [], 'uncaught errors in the page');
      assert.deepEqual(violations, [], 'CSP violations');
    },
  };
}

async function mount(page, options = {}) {
  await page.evaluate((o) => {
    const { token, ...rest } = o;
    rest.getShopperToken = async () => token;
    window.__ctl = PayWasm.mount('#app', rest);
  }, { baseUrl: API_ORIGIN, merchantId: 'm-123', publicKey: keys.publicPem, currency: 'USD', offerId: OFFER,
    cart: CART, shippingAddress: ADDRESS, token: TOKEN, ...options });
}

// The first event of `type` the page's harness recorded (tests/browser/pages/record.js).
async function firstEvent(page, type) {
  try {
    await page.waitForFunction((t) => window.__events.some((e) => e.type === t), type, { timeout: 15000 });
  } catch (e) {
    const seen = await page.evaluate(() => JSON.stringify(window.__events)).catch(() => '?');
    throw new Error(`no ${type} event; events so far: ${seen.slice(0, 1500)}`);
  }
  return page.evaluate((t) => window.__events.find((e) => e.type === t), type);
}

test('without SIMD128: paywasm-nosimd.wasm only; an exchange payment decrypts with OpenSSL to the exact payload', async () => {
  const { page, api, wasm, done } = await openPage('simd');
  api.on('POST /exchanges/payments/kraken', () => ({ json: {
    id: '0b6c2a8e-6f0e-4a43-9b1a-6d1f3c1e2a10', status: 'pending', nativeAmount: '25.5', nativeCurrency: 'USD',
    amount: '0.00051234', currency: 'BTC', receivedAmount: '0', meta: { offerId: OFFER }, errorMessage: null,
  } }));
  await mount(page, { keyFingerprint: keys.fingerprint });
  const ready = await firstEvent(page, 'paywasm-ready');
  assert.equal(ready.error, null);
  await page.locator('paywasm-checkout select#exchange').selectOption('kraken');
  await page.locator('paywasm-checkout button.pay').click();
  const status = await firstEvent(page, 'paywasm-status');
  assert.equal(status.status.kind, 'pending');
  assert.equal(api.count('POST /exchanges/payments/kraken'), 1, 'one payment POST');
  const call = api.calls.find((c) => c.path === '/exchanges/payments/kraken');
  assert.equal(call.headers.authorization, `Bearer ${TOKEN}`);
  const { text, blocks } = opensslDecrypt(keys, call.json.data, 'oaep-sha1', work);
  assert.equal(text, JSON.stringify({
    clientId: 'm-123', assets: 'BTC',
    cart: CART.map((c) => ({ ...c, localAmount: c.price, localCurrency: 'USD' })),
    shippingAddress: ADDRESS, offerId: OFFER, nativeAmount: '25.5', savepassword: false, code2fa: '', merchantStoreCurrency: 'USD',
  }));
  assert.ok(blocks >= 2, `the payload spans ${blocks} blocks (both lanes of the RSA arithmetic)`);
  assert.deepEqual(wasm(), { requested: ['/dist/paywasm-nosimd.wasm'], served: ['GET /dist/paywasm-nosimd.wasm'] },
    'the no-SIMD module, once (the early fetch, taken over by load()), and never paywasm.wasm');
  await done();
});

test('without SIMD128, a tampered paywasm-nosimd.wasm is refused by its built-in SRI value: nothing runs', async () => {
  // Still a valid module (one custom section more at the end): only the integrity check can refuse it.
  const tampered = Buffer.concat([fs.readFileSync(path.join(DIST, 'paywasm-nosimd.wasm')), Buffer.from([0, 2, 1, 0x78])]);
  assert.ok(WebAssembly.validate(tampered), 'the tampered module is valid');
  const route = (r) => r.fulfill({ status: 200, contentType: 'application/wasm', body: tampered });
  const { page, wasm, done } = await openPage('simd', { route });
  await mount(page);
  const failed = await firstEvent(page, 'paywasm-error');
  assert.equal(failed.error.code, 'network');
  assert.match(failed.error.message, /could not fetch \S+\/paywasm-nosimd\.wasm/);
  assert.equal(await page.locator('paywasm-checkout button.pay').count(), 0, 'no pay button');
  assert.deepEqual(wasm().requested, ['/dist/paywasm-nosimd.wasm']);
  await done();
});

test('without SIMD128, wasmUrl names paywasm.wasm: paywasm-nosimd.wasm comes from its folder; an integrity list of both passes', async () => {
  const integrity = JSON.parse(fs.readFileSync(path.join(DIST, 'integrity.json'), 'utf8'));
  // /elsewhere/ serves dist's modules (the server itself has no such folder).
  const route = async (r) => {
    const { pathname } = new URL(r.request().url());
    if (!pathname.startsWith('/elsewhere/')) return r.continue();
    return r.fulfill({ status: 200, contentType: 'application/wasm', body: fs.readFileSync(path.join(DIST, path.basename(pathname))) });
  };
  const { page, wasm, done } = await openPage('simd', { route });
  const fingerprint = await page.evaluate(async ([pem, both]) => {
    const core = await PayWasm.load({ wasmUrl: '/elsewhere/paywasm.wasm', integrity: both });
    return core.keyFingerprint(pem);
  }, [keys.publicPem, `${integrity['paywasm.wasm']} ${integrity['paywasm-nosimd.wasm']}`]);
  assert.equal(fingerprint, keys.fingerprint);
  // The early fetch from beside the script (not taken over: another URL), then load()'s own.
  assert.deepEqual(wasm().requested, ['/dist/paywasm-nosimd.wasm', '/elsewhere/paywasm-nosimd.wasm']);
  await done();
});

test('with SIMD128: paywasm.wasm only, and the core works', async () => {
  const { page, wasm, done } = await openPage(null);
  await mount(page);
  const ready = await firstEvent(page, 'paywasm-ready');
  assert.equal(ready.error, null);
  assert.equal(await page.locator('paywasm-checkout button.pay').textContent(), 'Pay $25.50');
  assert.deepEqual(wasm(), { requested: ['/dist/paywasm.wasm'], served: ['GET /dist/paywasm.wasm'] });
  await done();
});

test('without WebAssembly: "unsupported" in words a shopper understands, and no wasm is fetched', async () => {
  const { page, wasm, done } = await openPage('none');
  await mount(page);
  const failed = await firstEvent(page, 'paywasm-error');
  assert.equal(failed.error.code, 'unsupported');
  assert.match(failed.error.message, /no WebAssembly/);
  assert.equal(await page.locator('paywasm-checkout .error strong').textContent(), 'This browser cannot run the secure checkout.');
  assert.equal(await page.locator('paywasm-checkout button.pay').count(), 0, 'no pay button');
  assert.deepEqual(wasm(), { requested: [], served: [] });
  await done();
});
