// The hosted checkout page and payment links (issue 33) in one browser engine, through the suites'
// driver interface (engines/index.mjs), against the REAL sandbox and gateway: a link is created,
// opened, the shopper's fields typed, the QR code paid (the sandbox moves its transaction to paid),
// the receipt shown, the return to successUrl followed, the app's events carry linkId; no CSP
// violation (the page records them: window.paywasmHosted.violations). The page after each of the
// merchant's decisions (issue 45): an accepted underpayment and "paid elsewhere" are receipts, "not
// paid" a clear end, a release the checkout again with a new code. In Chromium also: axe-core
// (no serious or critical violation; run with bypassCSP, the driver's injection only) on the fields
// page, the checkout and the receipt, light and dark, and screenshots at 375 px (into PAYWASM_HOSTED_SHOTS when set: docs/img).
//   PAYWASM_SANDBOX=... PAYWASM_CLI=... PAYWASM_MERCHANT=... \
//     node --test-reporter=spec tests/browser/hosted.test.mjs --engine <chromium|firefox|webkit> --dist <dist dir>
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import zlib from 'node:zlib';
import { distDir } from './lib.mjs';
import { launchEngine } from './engines/index.mjs';
import { sendJson } from '../server/harness.mjs';
import { gw, startGateway, startSandbox, startShopApp } from '../gateway/harness.mjs';
import { tempDir, waitFor } from '../support/node.mjs';

const here = path.dirname(new URL(import.meta.url).pathname);
const argv = process.argv.slice(2);
const ENGINE = argv.includes('--engine') ? argv[argv.indexOf('--engine') + 1] : process.env.PAYWASM_ENGINE;
const DIST = distDir(['paywasm.js', 'paywasm.wasm', 'paywasm.css']);
const LIMIT = { timeout: 90000 };
// Screenshots go to a temporary folder; PAYWASM_HOSTED_SHOTS=docs/img refreshes the docs' copies
// (a test run never writes into the source tree).
const SHOTS = process.env.PAYWASM_HOSTED_SHOTS || tempDir('pwm-hosted-shots-');

let engine;
let sandbox;
let gateway;
let app;
before(async () => {
  assert.ok(ENGINE, 'name the engine: --engine <chromium|firefox|webkit>');
  [engine] = await Promise.all([launchEngine(ENGINE), (async () => {
    sandbox = await startSandbox([]);
    app = await startShopApp();
    gateway = await startGateway(sandbox, { appCallback: app.url, extra: ['--widget-dir', DIST, '--return-origin', sandbox.base,
      '--shop-name', 'Corner Coffee', '--public-service-url', `${sandbox.base}/api`] });
    assert.equal((await sendJson('PUT', `${sandbox.base}/__sandbox/webhook`, { url: `${gateway.base}/v1/webhooks` })).status, 200);
  })()]);
  console.log(`engine: ${engine.name} ${engine.version}`);
});
after(async () => {
  await engine?.close();
  await gateway?.stop();
  await app?.close();
  await sandbox?.stop();
});

const CART = [{ id: 'beans', name: 'House blend, 250 g', price: 9.5, quantity: 2 }];
const newLink = async (extra = {}) => {
  const r = await gw(gateway, 'POST', '/v1/links', { app: true, body: { name: 'Beans', currency: 'USD', cart: CART, methods: ['qr'],
    successUrl: `${sandbox.base}/thanks`, ...extra } });
  assert.equal(r.status, 201, r.text);
  return r.json;
};
const heading = (page) => page.run(() => document.querySelector('h1')?.textContent ?? '');
// The CSP violations hosted.js recorded on the page, once it has run: it is deferred, so a page's
// heading can be read before it runs (a page that loaded itself again after a decision).
// ['no hosted.js'] when it never does.
const violations = (page) => waitFor(() => page.run(() => window.paywasmHosted?.violations), { timeout: 10000, what: 'hosted.js run' })
  .catch(() => ['no hosted.js']);

test('a link, opened, fields typed, paid by QR: receipt, return to successUrl, events with linkId', LIMIT, async () => {
  const link = await newLink();
  const page = await engine.newPage();
  try {
    await page.goto(link.url);
    await waitFor(async () => (await heading(page)) === 'Your details', { timeout: 15000, what: 'the fields form' });
    await page.click(() => document.getElementById('firstname'));
    await page.press('Ada');
    await page.click(() => document.getElementById('lastname'));
    await page.press('Lovelace');
    await page.click(() => document.getElementById('email'));
    await page.press('ada@example.test');
    await page.click(() => document.querySelector('form.details button[type=submit]'));
    await waitFor(async () => (await heading(page)) === 'Checkout', { timeout: 15000, what: 'the checkout page' });
    const sessionId = await page.run(() => location.pathname.slice(5));
    await page.click(() => document.querySelector('paywasm-checkout')?.shadowRoot?.querySelector('button[data-key=pay-qr]:not([disabled])'));
    // The code the page shows (the gateway answers the existing one again), paid at the sandbox.
    // The shopper scans the code the page shows: wait for it, then the sandbox is told it was paid
    // (the gateway answers the same code again).
    await waitFor(() => page.run(() => !!document.querySelector('paywasm-checkout')?.shadowRoot?.querySelector('.qr-code svg')),
      { timeout: 15000, what: 'the QR code shown' });
    const qr = (await gw(gateway, 'POST', `/v1/checkout/${sessionId}/qr`, { body: {} })).json;
    const moved = await sendJson('POST', `${sandbox.base}/__sandbox/transactions/${qr.result.id}/advance`, { status: 1 });
    assert.equal(moved.status, 200);
    await waitFor(async () => (await heading(page)) === 'Payment received', { timeout: 20000, what: 'the receipt' });
    const receipt = await page.run(() => document.querySelector('dl.receipt').textContent);
    assert.ok(receipt.includes(qr.result.id), 'the reference');
    assert.ok(receipt.includes('19.00 USD'), `the total with its currency: ${receipt}`);
    assert.deepEqual(await violations(page), [], 'no CSP violation');
    await page.click(() => [...document.querySelectorAll('a')].find((a) => a.textContent === 'Return to the shop'));
    await waitFor(async () => (await page.run(() => location.href)) === `${sandbox.base}/thanks`, { timeout: 20000, what: 'successUrl' });
    const events = await waitFor(() => {
      const list = app.events.filter((e) => e.body.sessionId === sessionId);
      return list.some((e) => e.body.success) && list;
    }, { timeout: 20000, what: 'the success event' });
    for (const e of events) assert.equal(e.body.linkId, link.id, 'every event carries linkId');
  } finally {
    await page.close();
  }
});

test('the page after each of the merchant\'s decisions: accepted, paid elsewhere, closed, released', LIMIT, async () => {
  const session = async (label) => {
    const r = await gw(gateway, 'POST', '/v1/sessions', { app: true, body: { offerId: `${label}-${Date.now()}-${Math.random()}`,
      currency: 'USD', cart: CART, methods: ['qr'], customerInfo: { name: 'Ada Lovelace', email: 'ada@example.test' } } });
    assert.equal(r.status, 201, r.text);
    return r.json;
  };
  const page = await engine.newPage();
  const text = () => page.run(() => document.querySelector('main')?.textContent ?? '');
  // The shopper opens the page and asks for the code; the code the page shows (the gateway answers
  // the same one again) and its attempt.
  const showCode = async (s) => {
    await page.goto(s.hostedUrl);
    await waitFor(async () => (await heading(page)) === 'Checkout', { timeout: 15000, what: 'the checkout page' });
    await page.click(() => document.querySelector('paywasm-checkout')?.shadowRoot?.querySelector('button[data-key=pay-qr]:not([disabled])'));
    await waitFor(() => page.run(() => !!document.querySelector('paywasm-checkout')?.shadowRoot?.querySelector('.qr-code svg')),
      { timeout: 15000, what: 'the QR code shown' });
    const tx = (await gw(gateway, 'POST', `/v1/checkout/${s.id}/qr`, { body: {} })).json.result.id;
    const attempt = (await gw(gateway, 'GET', `/v1/sessions/${s.id}`, { app: true })).json.attempts.find((a) => a.transactionId === tx);
    return { tx, attemptId: attempt.attemptId };
  };
  const resolve = async (s, attemptId, resolution) => {
    const r = await gw(gateway, 'POST', `/v1/sessions/${s.id}/resolve`, { app: true, body: { attemptId, resolution, note: 'the portal' } });
    assert.equal(r.status, 200, r.text);
  };
  // The page open while the shop decides: it turns into `h1` by itself (the status stream).
  const follows = async (h1) => {
    await waitFor(async () => (await heading(page)) === h1, { timeout: 15000, what: `${h1}, with the page left open` });
    assert.deepEqual(await violations(page), [], 'no CSP violation');
    return text();
  };
  const reload = async (s, h1) => {
    await page.goto(s.hostedUrl);
    await waitFor(async () => (await heading(page)) === h1, { timeout: 15000, what: h1 });
    assert.deepEqual(await violations(page), [], 'no CSP violation');
    return text();
  };
  try {
    // Partly paid, then accepted by the shop: the receipt with what arrived, never "send the rest".
    const partial = await session('accepted');
    const code = await showCode(partial);
    assert.equal((await sendJson('POST', `${sandbox.base}/__sandbox/transactions/${code.tx}/advance`, { status: 101 })).status, 200);
    await waitFor(async () => (await gw(gateway, 'GET', `/v1/checkout/${partial.id}/status`)).json.status === 101, { timeout: 20000, what: 'partly paid' });
    const accepted = await gw(gateway, 'POST', `/v1/sessions/${partial.id}/accept-underpayment`, { app: true, body: { note: 'close enough' } });
    assert.equal(accepted.status, 200, accepted.text);
    const receipt = await follows('Payment received');
    assert.match(receipt, /The shop accepted the amount that arrived/);
    assert.match(await page.run(() => document.querySelector('dl.receipt').textContent), /Arrived\d/);
    // A code the portal shows paid: the receipt the shop confirmed, with the code's reference.
    const elsewhere = await session('elsewhere');
    const paid = await showCode(elsewhere);
    await resolve(elsewhere, paid.attemptId, 'paid_elsewhere');
    assert.ok((await follows('Payment received')).includes(paid.tx), 'the reference');
    // Closed as not paid: a clear end, nothing to pay.
    const closed = await session('closed');
    await resolve(closed, (await showCode(closed)).attemptId, 'not_paid');
    assert.match(await follows('This order is closed'), /Nothing more can be paid here/);
    assert.match(await reload(closed, 'This order is closed'), /Nothing more can be paid here/);
    assert.equal(await page.run(() => !!document.querySelector('paywasm-checkout')), false, 'no widget');
    // Released: the checkout again, and a new code (the released one is never shown again).
    const released = await session('released');
    const old = await showCode(released);
    await resolve(released, old.attemptId, 'release');
    const again = await showCode(released);
    assert.notEqual(again.tx, old.tx, 'a new code');
  } finally {
    await page.close();
  }
});

test('two visits make two sessions, each answered at the link\'s URL and then at its own; a reload keeps it; a deactivated link answers 410 with a page that says so', LIMIT, async () => {
  const link = await newLink();
  const page = await engine.newPage();
  // The session's address, once hosted.js has put it in the address bar (the link answers the page
  // itself to a browser: no redirect).
  const sessionPath = () => waitFor(async () => { const p = await page.run(() => location.pathname); return p.startsWith('/pay/') && p; },
    { timeout: 15000, what: 'the session\'s address' });
  try {
    await page.goto(link.url);
    await waitFor(async () => (await heading(page)) === 'Your details', { timeout: 15000, what: 'the form' });
    const first = await sessionPath();
    await page.goto(link.url);
    await waitFor(async () => (await heading(page)) === 'Your details', { timeout: 15000, what: 'the form again' });
    const second = await sessionPath();
    assert.notEqual(second, first);
    await page.goto(new URL(second, link.url).href);  // what a reload asks for: the address bar's URL
    await waitFor(async () => (await heading(page)) === 'Your details', { timeout: 15000, what: 'the form after a reload' });
    assert.equal(await sessionPath(), second, 'a reload shows the same session');
    assert.equal((await gw(gateway, 'GET', `/v1/links/${link.id}`, { app: true })).json.sessions.length, 2, 'no third session');
    assert.equal((await gw(gateway, 'PATCH', `/v1/links/${link.id}`, { app: true, body: { active: false } })).status, 200);
    await page.goto(link.url);
    await waitFor(async () => (await heading(page)) === 'Payment link closed', { timeout: 15000, what: 'the closed page' });
    assert.match(await page.run(() => document.body.textContent), /no longer active/);
    assert.deepEqual(await violations(page), []);
  } finally {
    await page.close();
  }
  const refused = await gw(gateway, 'POST', '/v1/links', { app: true, body: { currency: 'USD', cart: CART, successUrl: 'https://elsewhere.example/' } });
  assert.equal(refused.status, 400);
});

if (ENGINE === 'chromium') {
  // The checkout page carries what the widget draws from: its script inline (allowed by its hash in
  // the page's CSP, a <base> at the widget's folder for its module) and the session view in the
  // element's inline JSON, so the form needs no request after the page's own (issue 42): no
  // paywasm.js, no GET /v1/checkout/{id}; the status stream follows. The page's gzip (the widget's
  // piece compressed at start, the page's bytes now) decodes, with Node's zlib, to the plain page.
  test('the checkout page carries the widget and the session view: no request for either', LIMIT, async () => {
    const { chromium } = createRequire(import.meta.url)('playwright-core');
    const browser = await chromium.launch({ executablePath: '/usr/bin/chromium' });
    try {
      const r = await gw(gateway, 'POST', '/v1/sessions', { app: true, body: { offerId: `inline-${Date.now()}`, currency: 'USD',
        cart: CART, methods: ['qr'], customerInfo: { name: 'Ada Lovelace', email: 'ada@example.test' } } });
      assert.equal(r.status, 201, r.text);
      const page = await (await browser.newContext()).newPage();
      const sent = [];
      page.on('request', (req) => sent.push(new URL(req.url()).pathname));
      await page.goto(r.json.hostedUrl);
      await page.waitForSelector('paywasm-checkout button[data-key=pay-qr]');
      const view = `/v1/checkout/${r.json.id}`;
      // The status stream opens after the form is drawn: a request the widget made for its view or
      // script would have been seen before it.
      await waitFor(() => sent.includes(`${view}/status`), { timeout: 15000, what: `the status stream: ${sent.join(' ')}` });
      assert.equal(sent.filter((p) => p === view).length, 0, `no request for the session view: ${sent.join(' ')}`);
      assert.equal(sent.filter((p) => p.endsWith('/paywasm.js')).length, 0, `no request for paywasm.js: ${sent.join(' ')}`);
      await waitFor(() => sent.includes('/assets/widget/paywasm.wasm'), { timeout: 15000, what: `the module beside the <base>: ${sent.join(' ')}` });
      const plain = await fetch(r.json.hostedUrl, { headers: { 'accept-encoding': 'identity' } });
      assert.equal(plain.headers.get('content-encoding'), null);
      const zipped = await new Promise((resolve, reject) => {
        http.get(r.json.hostedUrl, { headers: { 'accept-encoding': 'gzip' } }, (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => resolve({ encoding: res.headers['content-encoding'], body: Buffer.concat(chunks) }));
        }).on('error', reject);
      });
      assert.equal(zipped.encoding, 'gzip');
      const text = await plain.text();
      assert.equal(zlib.gunzipSync(zipped.body).toString('utf8'), text);
      const csp = plain.headers.get('content-security-policy');
      const inline = text.match(/<script>([^]*?)<\/script>/)[1];
      const hash = crypto.createHash('sha256').update(inline).digest('base64');
      assert.ok(csp.includes(`'sha256-${hash}'`), csp);
      assert.ok(!/unsafe-inline/.test(csp), csp);
    } finally {
      await browser.close();
    }
  });

  test('axe-core: no serious violation, light and dark; screenshots at 375 px', LIMIT, async () => {
    const { chromium } = createRequire(import.meta.url)('playwright-core');
    const browser = await chromium.launch({ executablePath: '/usr/bin/chromium' });
    const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
    try {
      for (const scheme of ['light', 'dark']) {
        const context = await browser.newContext({ viewport: { width: 375, height: 812 }, colorScheme: scheme, bypassCSP: true });
        const page = await context.newPage();
        const check = async (name) => {
          await page.addScriptTag({ content: axeSource });
          const found = await page.evaluate(async () => (await window.axe.run(document)).violations
            .filter((v) => ['serious', 'critical'].includes(v.impact)).map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(' ')}`));
          assert.deepEqual(found, [], `${name} (${scheme})`);
          fs.mkdirSync(SHOTS, { recursive: true });
          await page.screenshot({ path: path.join(SHOTS, `hosted-${name}-${scheme}.png`), fullPage: true });
        };
        const link = await newLink();
        await page.goto(link.url);
        await check('details');
        await page.fill('#firstname', 'Ada');
        await page.fill('#lastname', 'Lovelace');
        await page.fill('#email', 'ada@example.test');
        await page.click('form.details button[type=submit]');
        await page.waitForSelector('h1:text("Checkout")');
        await page.click('paywasm-checkout button[data-key=pay-qr]');
        const sessionId = new URL(page.url()).pathname.slice(5);
        const qr = await waitFor(async () => {
          const r = await gw(gateway, 'GET', `/v1/sessions/${sessionId}`, { app: true });
          return r.json.transactions !== undefined && (await page.locator('paywasm-checkout .qr-code svg').count()) > 0 &&
            (await gw(gateway, 'POST', `/v1/checkout/${sessionId}/qr`, { body: {} }));
        }, { timeout: 15000, what: 'the QR code shown' });
        await check('checkout');
        await sendJson('POST', `${sandbox.base}/__sandbox/transactions/${qr.json.result.id}/advance`, { status: 1 });
        await page.waitForSelector('h1:text("Payment received")', { timeout: 20000 });
        await check('receipt');
        await context.close();
      }
    } finally {
      await browser.close();
    }
  });
}
