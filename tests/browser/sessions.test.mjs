// The widget in Chromium, session-url and status-url: an unclear outcome answered by the gateway's status view, the sandbox server. From the `make dist`
// files, under the strict CSP, with the payment API faked by Playwright route handlers (fakeApi);
// the suite's fixtures and helpers are tests/browser/lib.mjs's (useWidgetSuite).
//   node --test-reporter=spec tests/browser/sessions.test.mjs --dist <dist dir>
//   ... --test-name-pattern '<regular expression>' runs only the tests whose name matches
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { API_ORIGIN, ADDRESS, CART, LIMIT, OFFER, PHONE, TOKEN, chromium, countWasmCalls, events, fakeSession, keys, mount, openPage, opensslDecrypt, payState, server, showState, text, transaction, waitEvent, work, useWidgetSuite } from './lib.mjs';

useWidgetSuite();

test('an unclear outcome: one headline, the next step apart, the order id kept; with nothing taken at the status-url, "Pay again" pays the same order', LIMIT, async () => {
  // Without a status-url nothing can be known: locked, contact the shop, the order id shown.
  {
    const { page, api, done } = await openPage('checkout.html', { viewport: PHONE });
    await showState(page, api, 'unclear');
    const shown = await page.evaluate(() => {
      const box = document.querySelector('paywasm-checkout').shadowRoot.querySelector('.error');
      return { bold: [...box.querySelectorAll('strong')].map((e) => e.textContent), lines: [...box.querySelectorAll('p')].map((e) => e.textContent),
        again: !!box.querySelector('button') };
    });
    assert.deepEqual(shown.bold, ['The payment service had a problem.'], 'one headline');
    assert.equal(shown.lines.length, 2, `the headline and one next step: ${JSON.stringify(shown.lines)}`);
    assert.ok(shown.lines[1].includes('do not pay again') && shown.lines[1].includes(OFFER), shown.lines[1]);
    assert.ok(!shown.again && (await payState(page)).label === null, 'nothing offered, no Pay button: the order is locked');
    await done();
  }
  // The status-url says nothing was taken: "Pay again" sends the same order (the same offerId) once.
  const { page, api, done } = await openPage('checkout.html', { viewport: PHONE });
  await showState(page, api, 'unclear', { statusUrl: `${API_ORIGIN}/gateway/status` });
  await page.locator('paywasm-checkout .error button', { hasText: 'Pay again' }).waitFor();
  const shown = await text(page, '.error');
  assert.ok(shown.includes('The shop has no payment for this order: you can pay again, safely') && shown.includes('never charged twice'), shown);
  assert.equal((await payState(page)).label, null, 'the form\'s Pay buttons are gone: only the same payment is offered');
  api.on('POST /exchanges/payments/coinbase', () => ({ json: transaction('pending') }));
  await page.locator('paywasm-checkout .error button').click();
  const [st] = await waitEvent(page, 'paywasm-status');
  assert.equal(st.status.kind, 'pending', 'paid');
  const posts = api.calls.filter((c) => c.path === '/exchanges/payments/coinbase');
  assert.equal(posts.length, 2, 'the failed POST and the one taken offer');
  const offers = posts.map((c) => JSON.parse(opensslDecrypt(keys, c.json.data, 'oaep-sha1', work).text).offerId);
  assert.deepEqual(offers, [OFFER, OFFER], 'the same offerId both times');
  assert.ok(await page.locator('paywasm-checkout .error').isHidden(), 'the error goes');
  await done();
});

if (process.env.PAYWASM_SANDBOX) {
  test('against the sandbox server: exchange payment with its key and a shopper token', LIMIT, async () => {
    const proc = spawn(process.env.PAYWASM_SANDBOX, ['--port', '0', '--quiet'], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const base = await new Promise((resolve, reject) => {
        let out = '';
        const timer = setTimeout(() => reject(new Error('sandbox did not start')), 15000);
        proc.on('error', (e) => { clearTimeout(timer); reject(e); });
        proc.stdout.on('data', (d) => {
          out += d;
          const m = out.match(/listening on (http:\/\/\S+)/);
          if (m) { clearTimeout(timer); resolve(m[1]); }
        });
      });
      const merchant = await (await fetch(`${base}/__sandbox/merchant`)).json();
      const { context, page } = await chromium.newPage();
      await page.route(`${API_ORIGIN}/**`, async (route) => {
        const req = route.request();
        const url = new URL(req.url());
        const all = await req.allHeaders();
        const headers = {};
        for (const h of ['authorization', 'content-type', 'accept']) if (all[h]) headers[h] = all[h];
        const res = await fetch(`${base}/api${url.pathname}`, { method: req.method(), headers, body: req.postData() || undefined });
        await route.fulfill({ status: res.status, headers: { 'Access-Control-Allow-Origin': '*', 'Content-Type': res.headers.get('content-type') || 'application/json' }, body: await res.text() });
      });
      await page.goto(`${server.origin}/pages/checkout.html`);
      await mount(page, { merchantId: merchant.merchantId, publicKey: merchant.publicKey, token: merchant.shopperToken });
      await page.locator('paywasm-checkout button.pay').click();
      const [ev] = await waitEvent(page, 'paywasm-status');
      assert.ok(['pending', 'processing', 'success'].includes(ev.status.kind), `sandbox status ${ev.status.kind}`);
      await context.close();
    } finally {
      proc.kill();
    }
  });
}

// ---- issue 35: the session's amount is the core's to check; one Pay click, few calls into it -------

// Opens checkout.html with the wasm calls counted and a faked session (`view` overrides its values);
// mounts the element on session-url alone with the shopper's token.
async function openSession(view, options = {}) {
  const opened = await openPage('checkout.html', { count: true });
  const url = await fakeSession(opened.page, view);
  await opened.page.evaluate(([u, token, o]) => {
    window.__ctl = PayWasm.mount('#app', { sessionUrl: u, getShopperToken: async () => token, ...o });
  }, [url, TOKEN, options]);
  return opened;
}

test('session mode: one Pay click makes at most 4 calls into the wasm core, counted', LIMIT, async (t) => {
  const { page, api, done } = await openSession();
  api.on('GET /users/me', () => ({ json: { ok: true, result: { profile: { firstName: 'Ada' } } } }));
  await waitEvent(page, 'paywasm-ready');
  api.on('POST /exchanges/payments/coinbase', () => ({ json: transaction(0) }));
  // Everything the load does (the order checked once, the greeting, the warm-up encryption) is over.
  await page.locator('paywasm-checkout .greeting').waitFor();
  await page.waitForFunction(() => window.__wasmCalls.includes('encrypt'));
  const before = await page.evaluate(() => window.__wasmCalls.length);
  await page.locator('paywasm-checkout button.pay').click();
  await waitEvent(page, 'paywasm-status');
  const calls = await page.evaluate((n) => window.__wasmCalls.slice(n), before);
  t.diagnostic(`one Pay click: ${calls.length} calls: ${calls.join(', ')}`);
  assert.ok(calls.length <= 4, `${calls.length} calls for one click: ${calls.join(', ')}`);
  assert.ok(calls.includes('paymentRequest') && calls.includes('parseResponse'), `the payment itself: ${calls.join(', ')}`);
  assert.ok(!calls.includes('checkOrder') && !calls.includes('exchangePayload'), `the unchanged order is not checked again: ${calls.join(', ')}`);
  assert.equal(api.count('POST /exchanges/payments/coinbase'), 1, 'one payment sent');
  await done();
});

test('session mode: a page cart that does not add up to the session\'s amount is refused by the core; nothing can be paid', LIMIT, async () => {
  const { page, api, done } = await openSession({ amount: '30.00' });
  const [err] = await waitEvent(page, 'paywasm-error');
  assert.equal(err.error.code, 'validation', 'code');
  assert.equal(err.error.field, 'cart', 'field');
  assert.match(err.error.message, /adds up to 25\.8, the session's amount is 30/, err.error.message);
  assert.equal(await page.locator('paywasm-checkout button.pay').count(), 0, 'no Pay button');
  assert.deepEqual(api.calls.filter((c) => c.method === 'POST'), [], 'nothing sent');
  // The same amount written another way is the same amount.
  const other = await openSession({ amount: '25.800' });
  await waitEvent(other.page, 'paywasm-ready');
  assert.equal(await text(other.page, 'button.pay'), 'Pay $25.80', 'the cart pays');
  await other.done();
  await done();
});

test('usable before the module: with a session, the form, the total and Pay are drawn while the wasm is still on its way', LIMIT, async () => {
  const { page, api, done, releaseWasm } = await openPage('checkout.html', { count: true, holdWasm: true });
  const url = await fakeSession(page);
  await page.evaluate(([u, token]) => {
    window.__ctl = PayWasm.mount('#app', { sessionUrl: u, getShopperToken: async () => token });
  }, [url, TOKEN]);
  const [usable] = await waitEvent(page, 'paywasm-usable');
  assert.deepEqual(await events(page, 'paywasm-ready'), [], 'not ready: the module is held');
  assert.equal(await text(page, 'dd[part=total]'), '$25.80', 'the session\'s amount');
  assert.equal(await text(page, 'button.pay'), 'Pay $25.80', 'Pay, armed');
  assert.equal(await page.locator('paywasm-checkout button.pay').isEnabled(), true, 'armed');
  assert.deepEqual(await page.evaluate(() => window.__wasmCalls), [], 'no call into the core yet');
  assert.ok(usable.at > 0, 'timed');
  // A shopper faster than the module: the click waits for it, saying so, then pays once.
  api.on('POST /exchanges/payments/coinbase', () => ({ json: transaction(0) }));
  await page.locator('paywasm-checkout button.pay').click();
  assert.equal(await text(page, 'button.pay'), 'Loading secure checkout…', 'the button says what it waits for');
  releaseWasm();
  await waitEvent(page, 'paywasm-ready');
  const [st] = await waitEvent(page, 'paywasm-status');
  assert.equal(st.status.code, 0, 'paid, pending');
  assert.equal(api.count('POST /exchanges/payments/coinbase'), 1, 'one payment');
  await done();
});
