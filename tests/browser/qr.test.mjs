// The widget in Chromium, QR payments: the code zbarimg reads, the wallet link, copies, polled and streamed statuses, partial payments, expiry and its countdown, new codes. From the `make dist`
// files, under the strict CSP, with the payment API faked by Playwright route handlers (fakeApi);
// the suite's fixtures and helpers are tests/browser/lib.mjs's (useWidgetSuite).
//   node --test-reporter=spec tests/browser/qr.test.mjs --dist <dist dir>
//   ... --test-name-pattern '<regular expression>' runs only the tests whose name matches
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { LIMIT, OFFER, PHONE, QR_RESULT, QR_STRING, TOTAL, boxes, events, mount, openPage, payState, server, showState, text, transaction, waitEvent, work, zbar, useWidgetSuite } from './lib.mjs';

useWidgetSuite();

test('QR flow: merchant endpoint, QR decoded by zbarimg, copy, wallet link, polled statuses 10 -> 101 -> 1', LIMIT, async () => {
  const { page, context, api, done } = await openPage('checkout.html', { clock: true });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.origin });
  let merchantBody = null;
  await page.route(`${server.origin}/merchant/qr`, async (route) => {
    merchantBody = JSON.parse(route.request().postData());
    await route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ ok: true, result: QR_RESULT }) });
  });
  const statuses = [{ status: 10 }, { status: 101, receivedAmount: '0.0002' }, { status: 1, receivedAmount: '0.00051234' }];
  // Status 10 until the code's own checks are done (the QR's amount is on screen only while
  // nothing arrived), then 101 and 1: the widget fires paywasm-status on a change only.
  let polls = 0;
  let moved = 0;
  let advance = false;
  await page.route(`${server.origin}/merchant/status/**`, async (route) => {
    if (route.request().url().endsWith('/probe')) return route.fulfill({ status: 204 });
    polls++;
    const s = statuses[advance ? Math.min(++moved, statuses.length - 1) : 0];
    await route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(s) });
  });
  await mount(page, { methods: 'qr', qrEndpoint: '/merchant/qr', statusUrl: '/merchant/status/{id}' });
  await page.evaluate(() => document.querySelector('paywasm-checkout').setAttribute('status-interval', '100'));
  await page.locator('paywasm-checkout button.pay').click();
  await page.locator('paywasm-checkout .qr-code svg').waitFor();
  assert.equal(merchantBody.offerId, OFFER, 'order posted to the merchant');
  assert.equal(merchantBody.amount, TOTAL, 'amount posted to the merchant');
  const png = path.join(work, 'qr.png');
  await page.locator('paywasm-checkout .qr-code').screenshot({ path: png });
  assert.equal(zbar(png), QR_STRING, 'zbarimg');
  assert.equal(await page.locator('paywasm-checkout a.link').getAttribute('href'), QR_STRING, 'wallet link');
  const details = await text(page, '.detail');
  assert.ok(details.includes(QR_RESULT.meta.receiverAddress) && details.includes('0.00051234 BTC') && details.includes('$25.80'), details);
  await page.locator('paywasm-checkout button[aria-label="Copy address"]').click();
  await page.waitForFunction(() => navigator.clipboard.readText().then((t) => t.startsWith('bc1q')));
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), QR_RESULT.meta.receiverAddress, 'clipboard');
  advance = true;
  await waitEvent(page, 'paywasm-status', { code: 101 });
  await waitEvent(page, 'paywasm-complete');
  const seen = (await events(page, 'paywasm-status')).map((e) => e.status.code);
  assert.equal(seen.join(','), '10,101,1', 'status sequence');
  assert.ok((await text(page, '.status')).includes('Payment received'), 'final status');
  const partialText = await page.evaluate(() => window.__events.find((e) => e.status && e.status.code === 101).transaction.receivedAmount);
  assert.equal(partialText, '0.0002', 'partial amount in the event');
  // Polling stops at a final status. Not a wait for nothing: the page's clock runs 40 s ahead (past
  // the back-off's 30 s cap), firing every poll that is still due; then a probe goes through the same
  // route, which gets the page's requests in the order they were sent, so a poll sent meanwhile
  // would have been counted before the probe's answer.
  const before = polls;
  await page.clock.runFor(40000);
  assert.equal(await page.evaluate(() => fetch('/merchant/status/probe').then((r) => r.status)), 204, 'the probe');
  assert.equal(polls, before, 'polling stops at a final status');
  await done();
});

test('QR partial payment says how much arrived', LIMIT, async () => {
  const { page, done } = await openPage();
  await page.route(`${server.origin}/merchant/status/**`, (route) => route.fulfill({ status: 200, contentType: 'application/json', body: '{"status":101,"receivedAmount":"0.0002"}' }));
  await mount(page, { methods: 'qr', statusUrl: '/merchant/status/{id}', qrResult: QR_RESULT });
  await page.evaluate(() => document.querySelector('paywasm-checkout').setAttribute('status-interval', '100'));
  await waitEvent(page, 'paywasm-status', { code: 101 });
  const shown = await text(page, '.status');
  assert.ok(shown.includes('Partial payment') && shown.includes('Arrived0.0002 BTC') && shown.includes('To pay0.00051234 BTC'), shown);
  await done();
});

test('QR statuses by server-sent events; failed (-1) and timed out (19) are shown as such', LIMIT, async () => {
  for (const [code, label] of [[-1, 'Payment failed'], [19, 'Payment timed out']]) {
    const { page, done } = await openPage();
    await page.route(`${server.origin}/merchant/events/**`, (route) => route.fulfill({
      status: 200, headers: { 'Content-Type': 'text/event-stream' },
      body: `retry: 100000\ndata: {"status":0}\n\ndata: {"status":${code}}\n\n`,
    }));
    await mount(page, { methods: 'qr', statusUrl: '/merchant/events/{id}', statusMode: 'sse', qrResult: { ok: true, result: QR_RESULT } });
    await waitEvent(page, 'paywasm-status', { code: code });
    assert.ok((await text(page, '.status')).includes(label), `${code}: ${label}`);
    await done();
  }
});

test('a QR result whose URI is not a wallet URI (javascript:) is refused: no code, no link', LIMIT, async () => {
  const { page, done } = await openPage();
  const evil = { ...QR_RESULT, meta: { ...QR_RESULT.meta, qrString: 'javascript:alert(1)//?amount=1&value=1' } };
  await page.evaluate(() => {});
  await mount(page, { methods: 'exchange', qrResult: evil });
  const [ev] = await waitEvent(page, 'paywasm-error');
  assert.equal(ev.error.code, 'invalid_qr', 'code');
  assert.equal(await page.locator('paywasm-checkout a').count(), 0, 'links');
  await done();
});

// Problem 3 (before: Pay stayed armed on the other methods after a QR payment succeeded).
test('after a QR payment succeeds, no method can pay the same order again', LIMIT, async () => {
  const { page, api, done } = await openPage();
  api.on('POST /exchanges/payments/coinbase', () => ({ json: transaction('pending') }));
  await page.route(`${server.origin}/merchant/status/**`, (route) => route.fulfill({ status: 200, contentType: 'application/json', body: '{"status":1,"receivedAmount":"0.00051234"}' }));
  await mount(page, { methods: 'exchange qr', statusUrl: '/merchant/status/{id}', statusInterval: '100', qrResult: QR_RESULT });
  await waitEvent(page, 'paywasm-complete');
  // Issue 25: once paid, the form is gone (no method to choose, no Pay button), the status says it.
  assert.equal(await page.locator('paywasm-checkout input[name=method]').count(), 0, 'no method to choose once paid');
  const st = await payState(page);
  assert.equal(st.disabled, null, `no Pay button after the QR success: ${JSON.stringify(st)}`);
  assert.equal(st.states.join(','), 'final', 'custom state');
  // No control is left to pay with (above), so no wait: nothing could send one later.
  assert.equal(api.count('POST /exchanges/payments/coinbase'), 0, 'second payments');
  await done();
});

// Problem 4 (before: a timed-out code stayed scannable with its wallet link, and no new code could be had).
test('a timed-out QR code goes with its wallet link; "New code" asks the merchant for a new one', LIMIT, async () => {
  const { page, done } = await openPage();
  const bodies = [];
  const second = { ...QR_RESULT, id: '7d1c9f5e-2222-4c2b-9a77-0e0e0e0e0e0e' };
  await page.route(`${server.origin}/merchant/qr`, async (route) => {
    bodies.push(JSON.parse(route.request().postData()));
    await route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ ok: true, result: bodies.length === 1 ? QR_RESULT : second }) });
  });
  await page.route(`${server.origin}/merchant/status/**`, (route) => route.fulfill({ status: 200, contentType: 'application/json',
    body: route.request().url().includes(QR_RESULT.id) ? '{"status":19}' : '{"status":10}' }));
  await mount(page, { methods: 'qr', qrEndpoint: '/merchant/qr', statusUrl: '/merchant/status/{id}', statusInterval: '100' });
  await page.locator('paywasm-checkout button.pay').click();
  await page.locator('paywasm-checkout .qr-code svg').waitFor();
  await waitEvent(page, 'paywasm-status', { code: 19 });
  assert.equal(await page.locator('paywasm-checkout .qr-code').count(), 0, 'no code to scan');
  assert.equal(await page.locator('paywasm-checkout a').count(), 0, 'no wallet link');
  assert.equal(await page.locator('paywasm-checkout button.pay').textContent(), 'New code', 'the new-code action');
  await page.locator('paywasm-checkout button.pay').click();
  await page.locator('paywasm-checkout .qr-code svg').waitFor();
  assert.equal(bodies.length, 2, 'QR requests');
  assert.equal(bodies[1].replaces, QR_RESULT.id, 'the second request names the code it replaces');
  assert.equal(await page.locator('paywasm-checkout a.link').count(), 1, 'the new code has its wallet link');
  await done();
});

// Problem 4 (before: no countdown, and the code stayed after its expiry).
// The page's clock is moved past the expiry (Playwright's clock), so a busy machine's slow mount
// cannot eat the code's time before it is looked at.
test('a QR code with an expiry shows a countdown, and goes when it expires', LIMIT, async () => {
  const { page, done } = await openPage('checkout.html', { clock: true });
  const expiresAt = await page.evaluate(() => Date.now() + 10 * 60000);
  await mount(page, { methods: 'qr', qrEndpoint: '/merchant/qr', qrResult: { ...QR_RESULT, expiresAt } });
  const timer = page.locator('paywasm-checkout [role=timer]');
  assert.equal(await timer.count(), 1, 'a countdown');
  assert.ok(/^The code expires in (10:00|9:[0-5]\d)\.$/.test(await timer.textContent()), `countdown: ${await timer.textContent()}`);
  assert.equal(await page.locator('paywasm-checkout .qr-code').count(), 1, 'the code, before its expiry');
  await page.clock.fastForward(expiresAt - await page.evaluate(() => Date.now()) + 1000);
  await page.locator('paywasm-checkout .qr-code').waitFor({ state: 'detached', timeout: 20000 });
  assert.equal(await page.locator('paywasm-checkout a').count(), 0, 'no wallet link after the expiry');
  assert.ok((await text(page, '.qr')).includes('This code can no longer be paid.'), 'says why');
  assert.equal(await page.locator('paywasm-checkout button.pay').textContent(), 'New code', 'the new-code action');
  await done();
});

// Problem 5 (before: the button kept saying "Sending payment…" after a QR creation error).
test('a QR creation error gives the button its own label back, armed', LIMIT, async () => {
  const { page, done } = await openPage();
  await page.route(`${server.origin}/merchant/qr`, (route) => route.fulfill({ status: 500, contentType: 'application/json', body: '{}' }));
  await mount(page, { methods: 'qr', qrEndpoint: '/merchant/qr' });
  await page.locator('paywasm-checkout button.pay').click();
  await waitEvent(page, 'paywasm-error');
  const st = await payState(page);
  assert.ok(st.label === 'Show payment code' && !st.disabled, JSON.stringify(st));
  await done();
});

// Problem 4 (before: a partial payment said what arrived, not what is missing nor what to do).
test('QR partial payment: what arrived, what is missing, what to do; the full-amount code goes', LIMIT, async () => {
  const { page, done } = await openPage();
  await page.route(`${server.origin}/merchant/status/**`, (route) => route.fulfill({ status: 200, contentType: 'application/json', body: '{"status":101,"receivedAmount":"0.0002"}' }));
  await mount(page, { methods: 'exchange qr', statusUrl: '/merchant/status/{id}', statusInterval: '100', qrResult: QR_RESULT });
  await waitEvent(page, 'paywasm-status', { code: 101 });
  const shown = await text(page, '.status');
  assert.ok(shown.includes('Arrived0.0002 BTC') && shown.includes('Missing0.00031234 BTC') && shown.includes('Send the missing amount to the same address'), shown);
  assert.equal(await page.locator('paywasm-checkout .qr-code').count(), 0, 'no code for the whole amount');
  assert.equal(await page.locator('paywasm-checkout a').count(), 0, 'no wallet link for the whole amount');
  assert.ok((await text(page, '.detail')).includes('0.00031234 BTC'), 'the missing amount to copy');
  assert.equal(await page.locator('paywasm-checkout input[name=method]').count(), 0, 'money arrived: no other method is offered for this order');
  assert.equal((await payState(page)).label, null, 'no Pay button');
  await done();
});

test('QR on a phone (375 px): the code leaves room; "Open in wallet app" and the status above the fold; pending says what happens next', LIMIT, async () => {
  for (const colorScheme of ['light', 'dark']) {
    const { page, done } = await openPage('checkout.html', { viewport: PHONE, colorScheme });
    await page.route(`${server.origin}/merchant/status/**`, (route) => route.fulfill({ status: 200, contentType: 'application/json', body: '{"status":10}' }));
    await mount(page, { methods: 'exchange bank qr', accountId: 'acct-77', stockId: 'bank-conn-5', statusUrl: '/merchant/status/{id}', qrResult: QR_RESULT });
    await page.locator('paywasm-checkout .qr-code svg').waitFor();
    const b = await boxes(page, ['.qr-code', '[data-key=wallet-link]', '.status']);
    assert.ok(b['.qr-code'].width <= PHONE.width / 2, `the code is at most half the screen wide: ${b['.qr-code'].width}`);
    assert.ok(b['[data-key=wallet-link]'].bottom <= PHONE.height && b['.status'].bottom <= PHONE.height, `above the fold: ${JSON.stringify(b)}`);
    await done();
  }
  const { page, done } = await openPage('checkout.html', { viewport: PHONE });
  await showState(page, null, 'pending');
  const shown = await text(page, '.status');
  assert.ok(shown.includes('Pending') && shown.includes('is being confirmed') && shown.includes('You can close this page'), shown);
  await done();
});

// ---- issue 35 ---------------------------------------------------------------------------------------

// On the page's clock (Playwright's): paused 62 s before the expiry, then run 3 s, whatever the
// machine's speed; before: a real 61.5 s code, whose 1.5 s a slow mount could use up.
test('a QR code shows its time left, and says it politely (not each second) as it crosses a minute', LIMIT, async () => {
  const { page, done } = await openPage('checkout.html', { clock: true });
  const expiresAt = await page.evaluate(() => Date.now() + 10 * 60000);
  await mount(page, { methods: 'exchange qr', qrResult: { ...QR_RESULT, expiresAt } });
  await waitEvent(page, 'paywasm-status');
  const timer = page.locator('paywasm-checkout [role=timer]');
  assert.match(await timer.textContent(), /^The code expires in (10:00|9:[0-5]\d)\.$/, 'the time left');
  const told = page.locator('paywasm-checkout .qr [aria-live=polite]');
  assert.equal(await told.textContent(), '', 'nothing said at first');
  await page.clock.pauseAt(expiresAt - 62000);
  assert.match(await timer.textContent(), /^The code expires in 1:0[23]\.$/, 'the time left, 62 s before the end');
  assert.equal(await told.textContent(), '', 'nothing said above a minute');
  await page.clock.runFor(3000);
  assert.match(await told.textContent(), /^The code expires in (1:00|0:59)\.$/, 'said once it is a minute');
  await done();
});
