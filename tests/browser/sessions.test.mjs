// The widget in Chromium, session-url and status-url: an unclear outcome answered by the gateway's status view, the sandbox server. From the `make dist`
// files, under the strict CSP, with the payment API faked by Playwright route handlers (fakeApi);
// the suite's fixtures and helpers are tests/browser/lib.mjs's (useWidgetSuite).
//   node --test-reporter=spec tests/browser/sessions.test.mjs --dist <dist dir>
//   ... --test-name-pattern '<regular expression>' runs only the tests whose name matches
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { API_ORIGIN, LIMIT, OFFER, PHONE, chromium, keys, mount, openPage, opensslDecrypt, payState, server, showState, text, transaction, waitEvent, work, useWidgetSuite } from './lib.mjs';

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
    assert.ok(!shown.again && (await payState(page)).disabled, 'nothing offered, Pay locked');
    await done();
  }
  // The status-url says nothing was taken: "Pay again" sends the same order (the same offerId) once.
  const { page, api, done } = await openPage('checkout.html', { viewport: PHONE });
  await showState(page, api, 'unclear', { statusUrl: `${API_ORIGIN}/gateway/status` });
  await page.locator('paywasm-checkout .error button', { hasText: 'Pay again' }).waitFor();
  const shown = await text(page, '.error');
  assert.ok(shown.includes('The shop has no payment for this order: you can pay again, safely') && shown.includes('never charged twice'), shown);
  assert.ok((await payState(page)).disabled, 'the form\'s Pay buttons stay locked: only the same payment is offered');
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
