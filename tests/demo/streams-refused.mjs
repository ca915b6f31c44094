// The widget when the gateway refuses its status stream: scripts/demo.sh with the gateway allowing
// one stream per client address (--max-streams-per-client 1), that one stream held by this test,
// so the widget's EventSource gets 429. The widget then polls the JSON status with back-off and
// still takes a payment to success (paywasm-complete).
//   node --test-reporter=spec tests/demo/streams-refused.mjs   (the environment of tests/demo/run.mjs)
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { useBrowser, waitEvent } from '../browser/lib.mjs';
import { startDemo } from './start.mjs';

const chromium = useBrowser();
let demo, SHOP, GATEWAY;
before(async () => {
  demo = await startDemo({ PAYWASM_MERCHANT_ARGS: '--max-streams-per-client 1' });
  [SHOP, GATEWAY] = [demo.shop, demo.gateway];
});
after(async () => { await demo?.stop(); });

// The poll backs off (status-interval doubling, up to 30 s), so the poll that sees the payment can
// come up to ~36 s after the advance: the deadlines leave room for that on a busy machine.
test('a refused stream (429): the widget polls the status and completes the payment', { timeout: 120000 }, async () => {
  const { context, page, errors } = await chromium.newPage({ locale: 'en-US' });
  await page.addInitScript(() => {
    window.__events = [];
    for (const type of ['paywasm-ready', 'paywasm-status', 'paywasm-complete', 'paywasm-error']) {
      document.addEventListener(type, (e) => window.__events.push({ type, code: e.detail.status && e.detail.status.code,
        id: e.detail.transaction && e.detail.transaction.id }));
    }
  });
  const streams = [];
  page.on('response', (r) => { if (r.url().endsWith('/status')) streams.push({ status: r.status(), type: r.headers()['content-type'] }); });
  await page.goto(SHOP + '/');
  await page.waitForFunction(() => document.querySelector('paywasm-checkout').offerId, null, { timeout: 20000 });
  const sessionUrl = await page.evaluate(() => new URL(document.querySelector('paywasm-checkout').getAttribute('session-url'), document.baseURI).href);
  // This test's own stream takes the gateway's one stream slot for 127.0.0.1.
  const held = http.get(sessionUrl + '/status', { headers: { accept: 'text/event-stream' } });
  held.on('error', () => {});
  const heldStatus = await new Promise((resolve) => held.on('response', (res) => resolve(res.statusCode)));
  assert.equal(heldStatus, 200);
  assert.ok(sessionUrl.startsWith(GATEWAY), sessionUrl);

  await page.locator('paywasm-checkout button[data-key=pay-exchange]').click();
  const first = (await waitEvent(page, 'paywasm-status', { timeout: 20000 })).at(-1);
  await fetch(`${SHOP}/__sandbox/transactions/${encodeURIComponent(first.id)}/advance`, { method: 'POST',
    headers: { 'content-type': 'application/json' }, body: '{}' });
  const complete = (await waitEvent(page, 'paywasm-complete', { timeout: 75000 })).at(-1);
  assert.equal(complete.code, 1, 'success');
  assert.ok(streams.some((s) => s.status === 429), `the stream was refused: ${JSON.stringify(streams)}`);
  assert.ok(streams.some((s) => s.status === 200 && /json/.test(s.type || '')), `the JSON status was polled: ${JSON.stringify(streams)}`);
  assert.equal(errors.length, 0, `page errors: ${errors.join('; ')}`);
  held.destroy();
  await context.close();
});
