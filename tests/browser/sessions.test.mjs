// The widget in Chromium, session-url and status-url: an unclear outcome answered by the gateway's status view, the sandbox server. From the `make dist`
// files, under the strict CSP, with the payment API faked by Playwright route handlers (fakeApi);
// the suite's fixtures and helpers are tests/browser/lib.mjs's (useWidgetSuite).
//   node --test-reporter=spec tests/browser/sessions.test.mjs --dist <dist dir>
//   ... --test-name-pattern '<regular expression>' runs only the tests whose name matches
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { waitFor } from '../support/node.mjs';
import { API_ORIGIN, ADDRESS, CART, LIMIT, OFFER, PHONE, TOKEN, chromium, countWasmCalls, events, fakeGateway, fakeSession, gatewayView, keys, mount, mountInPage, openPage, opensslDecrypt, payState, server, showState, text, transaction, waitEvent, work, useWidgetSuite } from './lib.mjs';

useWidgetSuite();

test('an unclear outcome without a gateway session: one headline, the next step apart, the order id kept; locked, never offered to pay again', LIMIT, async () => {
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
  // A status-url that says nothing was taken (issue 32: a 5xx may come from a proxy after the
  // service stored the payment) re-arms nothing: no "Pay again", one payment.
  const { page, api, done } = await openPage('checkout.html', { viewport: PHONE });
  await showState(page, api, 'unclear', { statusUrl: `${API_ORIGIN}/gateway/status` });
  await waitFor(() => api.count('GET /gateway/status') >= 2, { what: 'two status answers' });
  assert.equal(await page.locator('paywasm-checkout .error button').count(), 0, 'no "Pay again"');
  assert.equal((await payState(page)).label, null, 'no Pay button');
  assert.equal(api.count('POST /exchanges/payments/coinbase'), 1, 'one payment');
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
  const { url } = await fakeGateway(opened.page, view);
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

test('session mode: an expired session (the gateway\'s 410) tells the shopper it expired, not that the checkout is broken', LIMIT, async () => {
  const { page, api, done } = await openPage('checkout.html', { count: true });
  const url = `${server.origin}/gateway/v1/checkout/cs_expired`;
  await page.route(url, (route) => route.fulfill({ status: 410, contentType: 'application/json',
    body: JSON.stringify({ code: 410, error: 'session_expired', message: 'this checkout session has expired' }) }));
  await page.evaluate(([u, token]) => {
    window.__ctl = PayWasm.mount('#app', { sessionUrl: u, getShopperToken: async () => token });
  }, [url, TOKEN]);
  const [err] = await waitEvent(page, 'paywasm-error');
  assert.equal(err.error.code, 'session_expired', 'code');
  await waitFor(async () => /This checkout has expired/.test(await shown(page)), { what: 'the expired text' });
  assert.doesNotMatch(await shown(page), /not set up correctly/);
  assert.equal(await page.locator('paywasm-checkout button.pay').count(), 0, 'no Pay button');
  assert.deepEqual(api.calls.filter((c) => c.method === 'POST'), [], 'nothing sent');
  await done();
});

test('session mode: a page cart that does not add up to the session\'s amount is refused by the core; nothing can be paid', LIMIT, async () => {
  const { page, api, done } = await openSession({ amount: '30.00' });
  const [err] = await waitEvent(page, 'paywasm-error');
  assert.equal(err.error.code, 'validation', 'code');
  assert.equal(err.error.field, 'cart', 'field');
  assert.match(err.error.message, /adds up to 25\.8, the order's fixed amount is 30/, err.error.message);
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
  const { url } = await fakeGateway(page);
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

// ---- issue 42: a page's own cart with a declared total ----------------------------------------

test('a page\'s own cart with `amount`: the total is drawn before the module; the core then checks it, and a cart that adds up to another is refused', LIMIT, async () => {
  const { page, api, done, releaseWasm } = await openPage('checkout.html', { count: true, holdWasm: true });
  const base = { baseUrl: API_ORIGIN, merchantId: 'm-123', publicKey: keys.publicPem, currency: 'USD', offerId: OFFER, cart: CART,
    shippingAddress: ADDRESS, token: TOKEN };
  await page.evaluate(mountInPage, { ...base, amount: '25.80' });
  await waitEvent(page, 'paywasm-usable');
  assert.deepEqual(await events(page, 'paywasm-ready'), [], 'not ready: the module is held');
  assert.equal(await text(page, 'dd[part=total]'), '$25.80', 'the declared total, before the module');
  assert.deepEqual(await page.evaluate(() => window.__wasmCalls), [], 'no call into the core yet');
  releaseWasm();
  await waitEvent(page, 'paywasm-ready');
  assert.equal(await text(page, 'button.pay'), 'Pay $25.80', 'the cart adds up to it: Pay');
  assert.deepEqual(await events(page, 'paywasm-error'), [], 'no error');
  // Another declared total: the core refuses the order, nothing can be paid.
  await page.evaluate(() => { document.querySelector('paywasm-checkout').amount = '30.00'; });
  const [err] = await waitEvent(page, 'paywasm-error');
  assert.equal(err.error.code, 'validation', 'code');
  assert.equal(err.error.field, 'cart', 'field');
  assert.match(err.error.message, /adds up to 25\.8, the order's fixed amount is 30/, err.error.message);
  await waitFor(async () => (await page.locator('paywasm-checkout button.pay').count()) === 0, { what: 'Pay gone' });
  assert.deepEqual(api.calls.filter((c) => c.method === 'POST'), [], 'nothing sent');
  await done();
});

test('session mode: a view in the element\'s inline JSON is drawn without a request, and only for its own session-url', LIMIT, async () => {
  const { page, done } = await openPage('checkout.html');
  const url = await fakeSession(page);
  const other = url.replace('cs_test', 'cs_other');
  const view = (id, amount, cart) => ({ id, offerId: OFFER, amount, currency: 'USD', cart, shippingAddress: ADDRESS, methods: ['exchange'],
    merchantId: 'm-123', publicKey: keys.publicPem, keyFingerprint: keys.fingerprint, padding: 'oaep-sha1', serviceUrl: API_ORIGIN, status: null });
  await page.route(other, (route) => route.fulfill({ status: 200, contentType: 'application/json',
    body: JSON.stringify(view('cs_other', '12.50', [{ id: 'x', name: 'X', price: 12.5, quantity: 1 }])) }));
  const seen = [];
  page.on('request', (r) => seen.push(new URL(r.url()).pathname));
  // The page's server wrote cs_test's view into the element (as the hosted checkout does).
  await page.evaluate(([u, v]) => {
    const el = document.createElement('paywasm-checkout');
    el.setAttribute('session-url', u);
    const data = document.createElement('script');
    data.type = 'application/json';
    data.textContent = JSON.stringify({ checkout: v });
    el.append(data);
    document.querySelector('#app').append(el);
  }, [url, view('cs_test', '25.80', CART)]);
  await waitEvent(page, 'paywasm-usable');
  assert.equal(await text(page, 'dd[part=total]'), '$25.80', 'the inline view drawn');
  // Another order's session-url, given while the element is out of the page: back in, it reads that
  // session, not the view its JSON child still holds for the first one.
  await page.evaluate((u) => {
    const el = document.querySelector('paywasm-checkout');
    el.remove();
    el.setAttribute('session-url', u);
    document.querySelector('#app').append(el);
  }, other);
  await waitFor(async () => (await text(page, 'dd[part=total]')) === '$12.50', { what: 'the other session\'s amount' });
  assert.ok(seen.includes(new URL(other).pathname), `the other session read from the network: ${seen.join(' ')}`);
  assert.ok(!seen.includes(new URL(url).pathname), `no request for the inline view's own session: ${seen.join(' ')}`);
  await done();
});

// ---- issue 32: every payment attempt on the record (session mode) -----------------------------------

const PAY = 'POST /exchanges/payments/coinbase';
const TX = transaction(0).id;
const NOT_KNOWN = 'It is not known whether your payment reached the payment service.';
const TOLD = 'The shop has been told and will check it.';

// Opens checkout.html on a faked gateway session (fakeGateway: `view`, the stream's `stream`);
// mounts the element on session-url alone with the shopper's token, and waits for paywasm-usable.
// The payment's handler pushes 'pay' to gw.log.
async function openGateway(view = {}, { stream = null, pay = () => ({ json: transaction(0) }) } = {}) {
  const opened = await openPage('checkout.html', { count: true });
  const gw = await fakeGateway(opened.page, view);
  gw.stream = stream;
  opened.api.on(PAY, (call) => { gw.log.push('pay'); return pay(call); });
  await opened.page.evaluate(([u, token]) => {
    window.__ctl = PayWasm.mount('#app', { sessionUrl: u, getShopperToken: async () => token });
  }, [gw.url, TOKEN]);
  await waitEvent(opened.page, 'paywasm-usable');
  return { ...opened, gw };
}
const shown = (page) => page.locator('paywasm-checkout').evaluate((host) => host.shadowRoot.querySelector('.root').textContent);

test('session mode: the attempt is registered before the payment leaves; one payment; its answer reported once', LIMIT, async () => {
  const { page, api, gw, done } = await openGateway();
  await waitEvent(page, 'paywasm-ready');
  await page.locator('paywasm-checkout button.pay').click();
  await waitEvent(page, 'paywasm-status');
  await waitFor(() => gw.log.includes('report'), { what: 'the report' });
  assert.deepEqual(gw.log, ['register', 'pay', 'report'], 'registered, paid, reported: in that order');
  assert.deepEqual(gw.calls[0].json, { method: 'exchange' }, 'the registration');
  assert.equal(gw.calls[1].path, `${new URL(gw.url).pathname}/attempts/at_${'a1'.repeat(16)}`, 'reported to the attempt');
  assert.deepEqual(gw.calls[1].json, { transactionId: TX, status: 0 }, 'the transaction and its immediate status');
  assert.equal(api.count(PAY), 1, 'one payment');
  await done();
});

test('session mode: a registration that fails (unreachable, 503, 429) sends nothing and says so; Pay stays', LIMIT, async () => {
  const { page, api, gw, done } = await openGateway();
  await waitEvent(page, 'paywasm-ready');
  const answers = ['abort', { status: 503 }, { status: 429, json: { error: { code: 'rate_limited' } } }];
  const texts = ['The shop’s checkout could not be reached. Your payment was not sent.', 'The shop’s checkout could not be reached. Your payment was not sent.',
    'Too many payment attempts in a short time. Your payment was not sent.'];
  for (const [i, answer] of answers.entries()) {
    gw.register = () => answer;
    await page.locator('paywasm-checkout button.pay').click();
    await waitEvent(page, 'paywasm-error', { nth: i + 1 });
    assert.ok((await text(page, '.error')).includes(texts[i]), await text(page, '.error'));
    const st = await payState(page);
    assert.ok(st.label === 'Pay $25.80' && !st.disabled, `Pay armed again: ${JSON.stringify(st)}`);
  }
  assert.equal(api.count(PAY), 0, 'no payment sent');
  assert.deepEqual(gw.log, ['register', 'register', 'register'], 'nothing reported');
  await done();
});

test('session mode: 409 attempt_in_flight sends nothing; the gateway\'s reason is shown, no Pay button', LIMIT, async () => {
  for (const [payable, says] of [[{ armed: false, reason: 'unknown', attemptId: 'at_1', transactionId: null }, [NOT_KNOWN, TOLD]],
    [{ armed: false, reason: 'in_progress', attemptId: 'at_1', transactionId: 'tx-409' }, ['Payment in progress', 'tx-409', 'Please do not pay again']]]) {
    const { page, api, gw, done } = await openGateway();
    await waitEvent(page, 'paywasm-ready');
    gw.register = () => ({ status: 409, json: { error: { code: 'attempt_in_flight', message: 'x' }, payable } });
    await page.locator('paywasm-checkout button.pay').click();
    await page.locator('paywasm-checkout:state(ambiguous)').waitFor();
    const all = await shown(page);
    for (const part of says) assert.ok(all.includes(part), `${part}: ${all}`);
    assert.equal((await payState(page)).label, null, 'no Pay button');
    assert.equal(api.count(PAY), 0, 'nothing sent');
    await done();
  }
});

test('session mode, a reload: an answered attempt shows "payment in progress" with its transaction; a registered one, that it is not known', LIMIT, async () => {
  const attempt = { attemptId: 'at_2', method: 'exchange', createdAt: '2025-01-01T00:00:00Z', state: 'answered', transactionId: 'tx-777', error: null };
  {
    const { page, api, done } = await openGateway({ attempts: [attempt],
      payable: { armed: false, reason: 'in_progress', attemptId: 'at_2', transactionId: 'tx-777' } });
    const all = await shown(page);
    for (const part of ['Payment in progress', 'tx-777', 'Crypto payments take 2 minutes to 2 hours', 'Please do not pay again']) assert.ok(all.includes(part), `${part}: ${all}`);
    assert.equal((await payState(page)).label, null, 'no Pay button, from the first draw');
    await waitEvent(page, 'paywasm-ready');
    assert.equal((await payState(page)).label, null, 'nor once the core is in');
    assert.equal(api.count(PAY), 0, 'nothing sent');
    await done();
  }
  const { page, done } = await openGateway({ attempts: [{ ...attempt, state: 'registered', transactionId: null }],
    payable: { armed: false, reason: 'registered', attemptId: 'at_2', transactionId: null } });
  const all = await shown(page);
  assert.ok(all.includes(NOT_KNOWN) && all.includes(TOLD), all);
  assert.equal((await payState(page)).label, null, 'no Pay button');
  await done();
});

test('session mode: a 502 from a proxy in front of the service is reported unknown; no Pay button, no second payment', LIMIT, async () => {
  const { page, api, gw, done } = await openGateway({}, { pay: () => ({ status: 502, body: '<html>Bad Gateway</html>', headers: { 'Content-Type': 'text/html' } }) });
  await waitEvent(page, 'paywasm-ready');
  await page.locator('paywasm-checkout button.pay').click();
  const [err] = await waitEvent(page, 'paywasm-error');
  assert.equal(err.error.code, 'server', 'code');
  await waitFor(() => gw.log.includes('report'), { what: 'the report' });
  assert.deepEqual(gw.calls[1].json, { error: { code: 'server', httpStatus: 502 } }, 'reported: the code and the HTTP status');
  const all = await text(page, '.error');
  assert.ok(all.includes('The payment service had a problem.') && all.includes(NOT_KNOWN) && all.includes(TOLD), all);
  assert.ok(!all.includes('safely') && !all.includes('never charged twice'), `no promise: ${all}`);
  assert.equal((await payState(page)).label, null, 'no Pay button');
  assert.equal(await page.locator('paywasm-checkout .error button').count(), 0, 'nothing offered');
  assert.equal(api.count(PAY), 1, 'one payment');
  await done();
});

test('session mode: Pay is armed again only when the gateway\'s stream says so; then one registered payment', LIMIT, async () => {
  const held = { armed: false, reason: 'unknown', attemptId: 'at_3', transactionId: null };
  const { page, api, gw, done } = await openGateway({ payable: held }, { stream: gatewayView(held) });
  await waitEvent(page, 'paywasm-ready');
  await waitFor(() => gw.streams >= 2, { what: 'the stream, twice' });
  assert.equal((await payState(page)).label, null, 'held while the stream says so');
  gw.stream = gatewayView({ armed: true, reason: 'none', attemptId: null, transactionId: null });
  await page.locator('paywasm-checkout button.pay').waitFor();
  const st = await payState(page);
  assert.ok(st.label === 'Pay $25.80' && !st.disabled && st.states.includes('idle'), JSON.stringify(st));
  assert.ok(!(await shown(page)).includes(NOT_KNOWN), 'the hold\'s text is gone');
  await page.locator('paywasm-checkout button.pay').click();
  await waitEvent(page, 'paywasm-status');
  assert.deepEqual(gw.log.slice(0, 2), ['register', 'pay'], 'registered first');
  assert.equal(api.count(PAY), 1, 'one payment');
  await done();
});
