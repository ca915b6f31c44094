// A merchant's bundled app pays with the npm package (ctest package.app, after widget.dist):
//   1. tests/package/app/ (a shop front end: main.js imports 'paywasm', public/index.html) is copied
//      to WORK/shop, the package is installed there from dist's tarball (`npm install --offline`), and
//      the app's own `npm run build` bundles it with esbuild (the checkout's pinned one, on PATH) into
//      public/assets/ and copies the package's wasm and language files beside the bundle: the recipe
//      docs/widget.md shows.
//   2. The wasm beside the bundle is dist's, byte for byte (its sha384 is the one integrity.json
//      states), and its sha256, the module's built-in SRI value, is in the minified bundle.
//   3. The REAL sandbox serves public/ as the shop's site (its strict CSP on the page; --dist is an
//      empty dir, so no widget file but the bundle's can load) and the API on the same origin. In
//      Chromium the shopper pays by exchange: the page shows the pending status, the sandbox stored
//      exactly one transaction for the offerId with the cart it decrypted, and every request the page
//      made was for the bundle's output, the shop's two server answers or the payment API (all
//      answered 2xx; the wasm downloaded once), with no console error and no CSP violation.
//   4. A Spanish shopper gets the Spanish text: paywasm-es.json beside the bundle, checked, loaded.
//   5. A changed paywasm.wasm (one byte) is refused by the built-in SRI check: the checkout reports
//      error `network` and offers no pay button.
//   6. docs/widget.md shows the app's build script as it is.
// Usage: PAYWASM_SANDBOX=<paywasm-sandbox> PAYWASM_CLI=<paywasm> node tests/package/app.mjs --dist DIR [--work DIR]
// (node:test: exits 1 on any failure)
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { launch } from '../browser/lib.mjs';
import { startSandbox, getJson } from '../server/harness.mjs';
import { waitFor } from '../support/node.mjs';

const here = path.dirname(new URL(import.meta.url).pathname);
const ROOT = path.resolve(here, '../..');
const BIN = path.join(ROOT, 'node_modules/.bin');
const argv = process.argv.slice(2);
const arg = (name) => { const i = argv.indexOf(`--${name}`); return i >= 0 ? argv[i + 1] : undefined; };
const DIST = path.resolve(arg('dist') || path.join(ROOT, 'dist'));
const WORK = path.resolve(arg('work') || fs.mkdtempSync('/tmp/paywasm-package-app-'));
const SHOP = path.join(WORK, 'shop');
const SITE = path.join(SHOP, 'public');
const ASSETS = path.join(SITE, 'assets');

const CART = [
  { id: 'sku-beans', name: 'Espresso beans 1 kg', price: 24.5, quantity: 2 },
  { id: 'sku-mug', name: 'Mug', price: 9.99, quantity: 1 },
];
const ADDRESS = { firstname: 'Grace', lastname: 'Hopper', city: 'Washington', country: 'US', email: 'grace@example.test' };

const run = (cmd, args, opts = {}) => execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...opts });
const sri = (alg, bytes) => `${alg}-${crypto.createHash(alg).update(bytes).digest('base64')}`;
// Every file under dir, as URL paths under prefix.
const urlPaths = (dir, prefix) => fs.readdirSync(dir, { recursive: true })
  .filter((f) => fs.statSync(path.join(dir, f)).isFile()).map((f) => prefix + f.split(path.sep).join('/'));

let tgz;
let built;        // the URL paths of the site as built: public/index.html and the build's output
let sandbox;
let chromium;
let ORIGIN;

before(async () => {
  const tarballs = fs.readdirSync(DIST).filter((f) => /^paywasm-.*\.tgz$/.test(f));
  assert.equal(tarballs.length, 1, `one ${DIST}/paywasm-*.tgz (scripts/dist.sh runs scripts/pack.sh)`);
  tgz = path.join(DIST, tarballs[0]);

  // 1. The merchant's project, its dependency installed from the tarball, built by its own script.
  fs.rmSync(SHOP, { recursive: true, force: true });
  fs.cpSync(path.join(here, 'app'), SHOP, { recursive: true });
  run('npm', ['install', '--offline', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error', tgz], { cwd: SHOP });
  const pinned = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).devDependencies.esbuild;
  assert.equal(run(path.join(BIN, 'esbuild'), ['--version']).trim(), pinned, 'the checkout\'s esbuild is the pinned one');
  const log = run('npm', ['run', 'build', '--silent'], { cwd: SHOP, env: { ...process.env, PATH: `${BIN}:${process.env.PATH}` } });
  process.stdout.write(log);
  built = urlPaths(SITE, '/');
  console.log(`built site: ${built.join(' ')}`);

  // 3. The sandbox serves the site as built; --dist: an empty dir, so /dist/ has no widget to fall
  // back on.
  const noDist = path.join(WORK, 'no-dist');
  fs.rmSync(noDist, { recursive: true, force: true });
  fs.mkdirSync(noDist);
  sandbox = await startSandbox(['--site', SITE, '--dist', noDist]);
  ORIGIN = sandbox.base;
  chromium = await launch();
});

after(async () => {
  await chromium?.close();
  await sandbox?.stop();
});

test('the bundled wasm is dist\'s, and the bundle carries its built-in sha256', () => {
  const wasm = fs.readFileSync(path.join(ASSETS, 'paywasm.wasm'));
  assert.ok(wasm.equals(fs.readFileSync(path.join(DIST, 'paywasm.wasm'))), 'public/assets/paywasm.wasm is dist/paywasm.wasm');
  const integrity = JSON.parse(fs.readFileSync(path.join(DIST, 'integrity.json'), 'utf8'));
  assert.equal(sri('sha384', wasm), integrity['paywasm.wasm'], 'integrity.json states the wasm\'s sha384');
  const bundle = fs.readFileSync(path.join(ASSETS, 'main.js'), 'utf8');
  assert.ok(bundle.includes(`"${sri('sha256', wasm)}"`), 'the minified bundle holds the sha256 of the wasm (the module\'s built-in SRI)');
  assert.ok(!/\bfrom\s*["']paywasm|import\(["']paywasm/.test(bundle), 'the bundle imports nothing from the package at run time');
  for (const file of fs.readdirSync(DIST).filter((f) => /^paywasm-[\w-]+\.json$/.test(f))) {
    assert.ok(fs.readFileSync(path.join(ASSETS, file)).equals(fs.readFileSync(path.join(DIST, file))), `${file} beside the bundle`);
  }
});

test('docs/widget.md shows the build recipe this app is built with', () => {
  const recipe = JSON.parse(fs.readFileSync(path.join(here, 'app/package.json'), 'utf8')).scripts.build;
  const flat = (file) => fs.readFileSync(path.join(ROOT, file), 'utf8').replace(/\s+/g, ' ');
  assert.ok(flat('docs/widget.md').includes(`"build": "${recipe}"`), `docs/widget.md, "Install with npm", shows "build": "${recipe}"`);
});

// The shop's server, for one checkout: the files main.js asks for (public/session/).
function serveCheckout(offerId) {
  const M = sandbox.merchant;
  const keyFingerprint = crypto.createHash('sha256')
    .update(crypto.createPublicKey(M.publicKey).export({ type: 'spki', format: 'der' })).digest('hex');
  fs.mkdirSync(path.join(SITE, 'session'), { recursive: true });
  fs.writeFileSync(path.join(SITE, 'session/checkout.json'), JSON.stringify({
    baseUrl: `${ORIGIN}/api`, merchantId: M.merchantId, publicKey: M.publicKey, keyFingerprint,
    currency: 'USD', offerId, cart: CART, shippingAddress: ADDRESS,
  }));
  fs.writeFileSync(path.join(SITE, 'session/shopper-token'), M.shopperToken);
}
const SERVER_ANSWERS = ['/session/checkout.json', '/session/shopper-token'];

// A fresh context and page on the shop; keeps every request (with its answer's status), console
// message, uncaught error and CSP violation (recorded by a script the test injects, not the app).
async function openShop({ locale = 'en-US', route } = {}) {
  const context = await chromium.browser.newContext({ locale });
  await context.addInitScript(() => {
    window.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  if (route) await context.route(route.url, route.handler);
  const page = await context.newPage();
  const log = { requests: [], console: [], errors: [] };
  page.on('request', (r) => log.requests.push({ method: r.method(), url: r.url(), status: null, failure: null, request: r }));
  page.on('response', (res) => { log.requests.find((e) => e.request === res.request()).status = res.status(); });
  page.on('requestfailed', (r) => { log.requests.find((e) => e.request === r).failure = r.failure()?.errorText || 'failed'; });
  page.on('console', (m) => log.console.push(`${m.type()}: ${m.text()}${m.location()?.url ? ` (${m.location().url})` : ''}`));
  page.on('pageerror', (e) => log.errors.push(String(e)));
  const response = await page.goto(`${ORIGIN}/`);
  assert.equal(response.status(), 200, 'the shop page');
  return { context, page, log, csp: response.headers()['content-security-policy'] || '' };
}

const violations = (page) => page.evaluate(() => window.__violations);

// What went wrong on the page, for a failure message: its status line, bad answers, console errors.
async function pageReport(page, log) {
  const bad = log.requests.filter((r) => r.failure || !(r.status >= 200 && r.status < 300))
    .map((r) => `${r.method} ${new URL(r.url).pathname} -> ${r.failure || r.status}`);
  const order = await page.locator('#order').textContent().catch(() => '?');
  return `the page says "${order}"; bad requests: [${bad.join(', ')}]; console: [${log.console.join(' | ')}]`;
}

// Waits for the widget's pay button; returns its locator.
async function payButton(page, log) {
  const pay = page.locator('paywasm-checkout button.pay');
  await pay.waitFor({ state: 'visible', timeout: 20000 })
    .catch(async () => assert.fail(`no pay button: ${await pageReport(page, log)}`));
  return pay;
}
const newOffer = (tag) => `bundled-${tag}-${crypto.randomUUID().slice(0, 8)}`;

// Every request of the page: same origin, one of `allowed` (or under /api/), answered 2xx. Waits
// for the answers first: the greeting's GET /users/me may still be under way when the pay button
// is already there.
async function checkRequests(log, allowed) {
  await waitFor(() => log.requests.every((r) => r.status !== null || r.failure !== null), { timeout: 20000, what: 'every request answered' })
    .catch(() => {});  // one still unanswered fails below, named
  for (const r of log.requests) {
    const url = new URL(r.url);
    assert.equal(url.origin, ORIGIN, `request to another origin: ${r.method} ${r.url}`);
    const file = url.pathname === '/' ? '/index.html' : url.pathname;  // the sandbox serves index.html at /
    assert.ok(allowed.includes(file) || url.pathname.startsWith('/api/'),
      `the page loaded ${url.pathname}, which is neither the bundle's output, the shop's server nor the API (built: ${built.join(' ')})`);
    assert.equal(r.failure, null, `${r.method} ${url.pathname} failed: ${r.failure}`);
    assert.ok(r.status >= 200 && r.status < 300, `${r.method} ${url.pathname} answered ${r.status}`);
  }
}
const count = (log, method, pathname) => log.requests.filter((r) => r.method === method && new URL(r.url).pathname === pathname).length;

test('the bundled shop pays by exchange in Chromium against the sandbox, under a strict CSP, from its own files only', async () => {
  const offerId = newOffer('pay');
  serveCheckout(offerId);
  const { context, page, log, csp } = await openShop();
  assert.match(csp, /script-src 'self' 'wasm-unsafe-eval';/, 'the page runs under the strict policy');
  assert.doesNotMatch(csp, /'unsafe-inline'|'unsafe-eval'/, 'no unsafe-inline, no unsafe-eval');

  const pay = await payButton(page, log);
  assert.match(await pay.textContent(), /^Pay \$58\.99$/, 'the pay button shows the cart total');
  assert.match(await page.locator('#powered').textContent(), /^Checkout by paywasm \d+\.\d+\.\d+/, 'the default export (PayWasm.version)');
  await pay.click();
  const order = page.locator('#order');
  await page.waitForFunction(() => /payment (pending|success)/.test(document.querySelector('#order').textContent), null, { timeout: 20000 })
    .catch(async () => assert.fail(`no paid/pending status: ${await pageReport(page, log)}`));
  const shown = (await order.textContent()).match(/^Order (\S+): payment (\w+) \(transaction (\S+)\)$/);
  assert.ok(shown, `status line: ${await order.textContent()}`);
  assert.equal(shown[1], offerId);
  assert.match(await page.locator('paywasm-checkout .status').first().textContent(), /Pending|Paid|Success/i, 'the widget shows the status');

  // The sandbox decrypted and validated it: one transaction for the offerId, with the page's cart.
  const txs = (await getJson(`${ORIGIN}/__sandbox/transactions`)).filter((t) => t.offerId === offerId);
  assert.equal(txs.length, 1, 'transactions the sandbox stored for the offerId');
  assert.equal(txs[0].transaction.id, shown[3], 'the shown transaction is the stored one');
  assert.equal(txs[0].kind, 'exchange');
  assert.equal(txs[0].plaintext.clientId, sandbox.merchant.merchantId);
  assert.deepEqual(txs[0].plaintext.cart.map((l) => [l.id, l.quantity]), CART.map((l) => [l.id, l.quantity]));
  assert.equal(txs[0].plaintext.nativeAmount, '58.99');

  // What the page loaded: the bundle's files, the shop's server, the API; nothing else.
  await checkRequests(log, [...built, ...SERVER_ANSWERS]);
  assert.equal(count(log, 'GET', '/assets/main.js'), 1, 'the bundle, once');
  assert.equal(count(log, 'GET', '/assets/paywasm.wasm'), 1, 'the wasm, once (the early download is the one used)');
  assert.equal(log.requests.filter((r) => r.method === 'POST' && r.url.includes('/api/exchanges/payments/')).length, 1, 'one payment POST');
  assert.deepEqual(await violations(page), [], 'CSP violations');
  assert.deepEqual(log.errors, [], 'uncaught errors');
  assert.deepEqual(log.console.filter((m) => m.startsWith('error')), [], 'console errors');
  await context.close();
});

test('a Spanish shopper: paywasm-es.json from beside the bundle, checked and used', async () => {
  serveCheckout(newOffer('es'));
  const { context, page, log } = await openShop({ locale: 'es-ES' });
  const pay = await payButton(page, log);
  await page.waitForFunction(() => /^Pagar/.test(document.querySelector('paywasm-checkout').shadowRoot.querySelector('button.pay').textContent),
    null, { timeout: 20000 }).catch(async () => assert.fail(`the pay button is not in Spanish: "${await pay.textContent()}"`));
  assert.equal(count(log, 'GET', '/assets/paywasm-es.json'), 1, 'the Spanish text, once');
  await checkRequests(log, [...built, ...SERVER_ANSWERS]);
  assert.deepEqual(await violations(page), [], 'CSP violations');
  assert.deepEqual(log.console.filter((m) => m.startsWith('error')), [], 'console errors');
  await context.close();
});

test('a changed paywasm.wasm (one byte) is refused by the built-in SRI: error network, no pay button', async () => {
  const wasm = fs.readFileSync(path.join(ASSETS, 'paywasm.wasm'));
  const changed = Buffer.from(wasm);
  changed[changed.length - 1] ^= 1;  // the last byte: still a valid module in most cases, but not the built one
  const offerId = newOffer('sri');
  serveCheckout(offerId);
  const { context, page, log } = await openShop({
    route: { url: `${ORIGIN}/assets/paywasm.wasm`, handler: (r) => r.fulfill({ status: 200, contentType: 'application/wasm', body: changed }) },
  });
  await page.waitForFunction(() => /error/.test(document.querySelector('#order').textContent), null, { timeout: 15000 })
    .catch(async () => assert.fail(`no error: ${await pageReport(page, log)}`));
  assert.equal(await page.locator('#order').textContent(), `Order ${offerId}: error network`);
  assert.equal(await page.locator('paywasm-checkout button.pay').count(), 0, 'no pay button');
  assert.ok(log.console.some((m) => /integrity/i.test(m) && /paywasm\.wasm/.test(m)),
    `Chromium reports the integrity mismatch: ${log.console.join(' | ')}`);
  assert.equal((await getJson(`${ORIGIN}/__sandbox/transactions`)).filter((t) => t.offerId === offerId).length, 0, 'no transaction');
  await context.close();
});
