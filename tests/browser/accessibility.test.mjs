// The widget in Chromium, accessibility and languages: keyboard-only use, axe-core, the CSP listener, locales and their files, currency formats, screenshots of the shopper's states. From the `make dist`
// files, under the strict CSP, with the payment API faked by Playwright route handlers (fakeApi);
// the suite's fixtures and helpers are tests/browser/lib.mjs's (useWidgetSuite).
//   node --test-reporter=spec tests/browser/accessibility.test.mjs --dist <dist dir>
//   ... --test-name-pattern '<regular expression>' runs only the tests whose name matches
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { waitFor } from '../support/node.mjs';
import { API_ORIGIN, DIST, LIMIT, PHONE, QR_RESULT, axe, chromium, expectedExchangePayload, keys, languageFiles, mount, openPage, opensslDecrypt, server, shotsDir, showState, text, textWhen, transaction, waitEvent, work, useWidgetSuite } from './lib.mjs';

useWidgetSuite();

test('keyboard only: choose an exchange, enter 2FA, tick save, pay; focus is visible and moves to the status', LIMIT, async () => {
  const { page, api, done } = await openPage();
  api.on('POST /exchanges/payments/*', () => ({ json: transaction('pending') }));
  await mount(page, { methods: 'exchange bank', accountId: 'acct-77', stockId: 'bank-conn-5' });
  await page.locator('h1').click();
  const focused = () => page.evaluate(() => {
    const el = document.querySelector('paywasm-checkout').shadowRoot.activeElement;
    return el ? (el.id || el.dataset.key || el.className) : null;
  });
  await page.keyboard.press('Tab');
  assert.equal(await focused(), 'method-exchange', 'first stop: the method radios');
  await page.keyboard.press('Tab');
  assert.equal(await focused(), 'exchange', 'exchange select');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Tab');
  assert.equal(await focused(), 'code2fa', '2FA field');
  await page.keyboard.type('654321');
  await page.keyboard.press('Tab');
  assert.equal(await focused(), 'savepassword', 'save checkbox');
  await page.keyboard.press('Space');
  await page.keyboard.press('Tab');
  assert.equal(await focused(), 'pay-exchange', 'pay button');
  const outline = await page.evaluate(() => getComputedStyle(document.querySelector('paywasm-checkout').shadowRoot.activeElement).outlineStyle);
  assert.ok(outline !== 'none', `focus ring: ${outline}`);
  await page.keyboard.press('Enter');
  await waitEvent(page, 'paywasm-status');
  const call = api.calls.find((c) => c.method === 'POST');
  assert.equal(call.path, '/exchanges/payments/kraken', 'two ArrowDowns from Coinbase');
  assert.equal(opensslDecrypt(keys, call.json.data, 'oaep-sha1', work).text, expectedExchangePayload({ exchangeCode2fa: '654321', savepassword: true }), 'payload');
  assert.equal(await focused(), 'status', 'focus moved to the status');
  await done();
});

test('locale switch: es, fr, de, pt texts and Intl currency formats; errors follow', LIMIT, async () => {
  const { page, api, done } = await openPage();
  api.on('POST /exchanges/payments/coinbase', () => ({ status: 419, json: {} }));
  await mount(page, { methods: 'exchange qr', qrEndpoint: '/merchant/qr' });
  const words = { es: ['Pagar con', 'Pagar '], fr: ['Payer avec', 'Payer '], de: ['Bezahlen mit', ' bezahlen'], pt: ['Pagar com', 'Pagar '] };
  for (const [lang, [legend, pay]] of Object.entries(words)) {
    await page.evaluate((l) => { document.querySelector('paywasm-checkout').locale = l; }, lang);
    // '$' alone would be ambiguous in German: the code instead ("25,80 USD"); the others have "US".
    const money = await page.evaluate((l) => new Intl.NumberFormat(l, { style: 'currency', currency: 'USD', currencyDisplay: l === 'de' ? 'code' : 'symbol' }).format('25.8'), lang);
    assert.ok(/US/.test(money), `${lang}: ${money} says which dollar`);
    await textWhen(page, 'legend', (t) => t === legend, `${lang} legend`);
    assert.equal(await text(page, '[part=total]'), money, `${lang} total`);
    const label = await text(page, 'button.pay');
    assert.ok(label.includes(pay.trim()) && label.includes(money), `${lang} pay button: ${label}`);
    assert.equal(await page.locator('paywasm-checkout [part=container]').getAttribute('lang'), lang, `${lang} lang attribute`);
  }
  await page.locator('paywasm-checkout button.pay').first().click();
  await waitEvent(page, 'paywasm-error');
  assert.ok((await text(page, '.error')).includes('Saldo insuficiente'), 'error in Portuguese');
  await page.evaluate(() => { document.querySelector('paywasm-checkout').locale = 'de'; });
  await textWhen(page, '.error', (t) => t.includes('Unzureichendes Guthaben'), 'error follows the locale');
  await done();
});

test('languages: only the shopper\'s file is fetched, once, SRI-checked; English stands in when it cannot be had', LIMIT, async () => {
  let from = server.requests.length;
  const en = await openPage();
  await mount(en.page);
  assert.equal(languageFiles(server.requests.slice(from)).length, 0, 'an English page fetches no language file');
  await en.done();

  from = server.requests.length;
  const fr = await openPage('checkout.html', { locale: 'fr-FR' });
  await mount(fr.page);
  assert.ok((await text(fr.page, 'button.pay')).startsWith('Payer '), 'French from the first render');
  await fr.page.evaluate(() => { document.querySelector('paywasm-checkout').locale = 'fr'; });
  assert.equal(languageFiles(server.requests.slice(from)).join(','), 'GET /dist/paywasm-fr.json', 'one file, once');
  await fr.done();

  // Offline for the language file, then a file that is not the one built (SRI mismatch): English.
  // Each load's end is proven by the next request: loadLocale() asks again only once the last load
  // of that language has settled (its re-render runs in that same settling, before the page takes
  // the next locale), and never again once a file was accepted. So after request n+1 the text shows
  // what load n left behind; no fixed wait.
  const { page, api, done } = await openPage();
  await mount(page);
  let served = 0;
  const forged = fs.readFileSync(path.join(DIST, 'paywasm-es.json'), 'utf8').replaceAll('Pagar', 'Hackeado');
  await page.route('**/dist/paywasm-es.json', (route) => (served++ ? route.fulfill({ status: 200, contentType: 'application/json', body: forged }) : route.abort()));
  const askSpanish = async (n) => {
    await page.evaluate(() => { document.querySelector('paywasm-checkout').locale = 'en'; });
    await page.evaluate(() => { document.querySelector('paywasm-checkout').locale = 'es'; });
    await waitFor(() => served >= n, { timeout: 20000, what: `request #${n} for paywasm-es.json` });
  };
  await askSpanish(1);  // aborted: offline
  await askSpanish(2);  // the forged file; asked again, so the aborted load has ended
  assert.ok((await text(page, 'button.pay')).startsWith('Pay '), 'English stands in after a failed download');
  await askSpanish(3);  // asked again, so the forged file was refused (an accepted one is never asked for again)
  assert.ok((await text(page, 'button.pay')).startsWith('Pay '), 'English stands in after a file that fails its SRI check');
  assert.equal(served, 3, 'a failed language file is asked for again later');

  // A language file that comes later than the checkout's language wait (docs/widget.md: up to 2 s):
  // held until the checkout is ready, so ready cannot have waited for it; English meanwhile, German
  // once it is released. (No wall-clock bound: a busy machine may take longer than 2 s to be ready.)
  const slow = await openPage();
  const german = fs.readFileSync(path.join(DIST, 'paywasm-de.json'), 'utf8');
  let release;
  const held = new Promise((resolve) => { release = resolve; });
  let asked = false;
  await slow.page.route('**/dist/paywasm-de.json', async (route) => {
    asked = true;
    await held;
    await route.fulfill({ status: 200, contentType: 'application/json', body: german }).catch(() => {});
  });
  await mount(slow.page, { locale: 'de' });
  await waitFor(() => asked, { timeout: 20000, what: 'the request for paywasm-de.json' });
  assert.ok((await text(slow.page, 'button.pay')).startsWith('Pay '), 'English while the file is on its way');
  release();
  await textWhen(slow.page, 'button.pay', (t) => t.includes('bezahlen'), 'German once it has arrived');
  await slow.done();
  api.on('POST /exchanges/payments/coinbase', () => ({ json: transaction('pending') }));
  await page.locator('paywasm-checkout button.pay').first().click();
  await waitEvent(page, 'paywasm-status');
  await done();
});

test('the browser language picks the locale when there is no locale attribute', LIMIT, async () => {
  const { page, done } = await openPage('checkout.html', { locale: 'fr-FR' });
  await mount(page);
  assert.equal(await text(page, 'button.pay'), `Payer ${await page.evaluate(() => new Intl.NumberFormat('fr-FR', { style: 'currency', currency: 'USD' }).format('25.8'))}`, 'pay label');
  await done();
});

test('axe-core: no serious or critical violations (light, dark, with an error, with a QR code)', LIMIT, async () => {
  for (const colorScheme of ['light', 'dark']) {
    const { page, api, done } = await openPage('checkout.html', { colorScheme });
    api.on('POST /exchanges/payments/coinbase', () => ({ status: 420, json: {} }));
    await mount(page, { methods: 'exchange bank qr', accountId: 'acct-77', stockId: 'bank-conn-5', qrResult: QR_RESULT, theme: 'auto' });
    let found = await axe(page);
    assert.ok(found.length === 0, `${colorScheme} with QR: ${found.join('; ')}`);
    await page.locator('paywasm-checkout input[name=method][value=exchange]').check();
    await page.locator('paywasm-checkout button.pay').click();
    await waitEvent(page, 'paywasm-error');
    found = await page.evaluate(async () => (await window.axe.run(document)).violations.filter((v) => ['serious', 'critical'].includes(v.impact)).map((v) => v.id));
    assert.ok(found.length === 0, `${colorScheme} with an error: ${found.join('; ')}`);
    await done();
  }
  const { page, done } = await openPage();
  await mount(page, { theme: 'dark' });
  const found = await axe(page);
  assert.ok(found.length === 0, `theme="dark" on a light page: ${found.join('; ')}`);
  await done();
});

test('axe-core sees a real contrast problem (the check can fail)', LIMIT, async () => {
  const { page, done } = await openPage();
  await mount(page);
  await page.evaluate(() => document.querySelector('paywasm-checkout').style.setProperty('--paywasm-fg', '#eeeeee'));
  const found = await axe(page);
  assert.ok(found.some((f) => f.startsWith('color-contrast')), `expected a contrast violation, got: ${found.join('; ')}`);
  await done();
});

test('the CSP listener works (a blocked inline style is seen), so "zero violations" means something', LIMIT, async () => {
  const { context, page } = await chromium.newPage();
  await page.goto(`${server.origin}/pages/checkout.html`);
  await page.evaluate(() => { const s = document.createElement('style'); s.textContent = 'body{color:red}'; document.head.append(s); });
  await page.waitForFunction(() => window.__violations.length > 0);
  const v = await page.evaluate(() => window.__violations[0].directive);
  assert.ok(v.startsWith('style-src'), `directive ${v}`);
  await context.close();
});

// Problem 9 (before: pt-BR shoppers got European Portuguese; PayWasm.locales had one "pt").
test('Brazilian and European Portuguese are distinct; a bare "pt" is Brazilian', LIMIT, async () => {
  const br = 'Manter minha corretora conectada ao serviço de pagamento para a próxima vez';
  for (const [browser, attr, lang, save] of [['pt-BR', null, 'pt-BR', br],
    ['pt-PT', null, 'pt-PT', 'Manter a minha corretora ligada ao serviço de pagamento para a próxima vez'], ['en-US', 'pt', 'pt', br]]) {
    const { page, done } = await openPage('checkout.html', { locale: browser });
    await mount(page, attr ? { locale: attr } : {});
    await textWhen(page, 'label[for=savepassword]', (t) => t === save, `${browser}/${attr}`);
    assert.equal(await page.locator('paywasm-checkout [part=container]').getAttribute('lang'), lang, 'lang');
    await done();
  }
});

// Problem 9 (before: German showed "25,80 $").
test('currency amounts say which currency in every locale', LIMIT, async () => {
  const { page, done } = await openPage();
  await mount(page);
  const seen = {};
  for (const lang of ['en-US', 'de', 'fr', 'es', 'pt-BR', 'pt-PT', 'en-GB', 'de-CH']) {
    await page.evaluate((l) => window.__ctl.update({ locale: l }), lang);
    await page.waitForFunction((l) => document.querySelector('paywasm-checkout').shadowRoot.querySelector('.root')
      .getAttribute('lang') === new Intl.Locale(l).toString(), lang);
    seen[lang] = (await text(page, '[part=total]')).replace(/\s/g, ' ');
  }
  assert.equal(seen['en-US'], '$25.80', 'the home currency keeps its symbol');
  for (const [lang, shown] of Object.entries(seen)) if (lang !== 'en-US') assert.ok(/US/.test(shown), `${lang}: ${shown}`);
  assert.equal(seen.de, '25,80 USD', 'German');
  await done();
});

// The shopper's states at 375 px, light and dark, into shotsDir() (build/native/screenshots); the six
// that docs/widget.md shows are copied from there into docs/img/ by `node tests/browser/screenshots.mjs`.
test('screenshots of the form, pending (exchange, bank, QR), QR with time left, paid, unclear-outcome and partial states at 375 px, light and dark', { timeout: 120000 }, async () => {
  fs.mkdirSync(shotsDir(), { recursive: true });
  // (No "unclear, nothing taken" state: the widget no longer offers "Pay again" itself; in session
  // mode the gateway re-arms Pay, which is the form again.)
  for (const state of ['form', 'pending-exchange', 'pending-bank', 'qr', 'paid', 'pending', 'unclear', 'partial']) {
    for (const colorScheme of ['light', 'dark']) {
      const { page, api, done } = await openPage('checkout.html', { viewport: PHONE, colorScheme });
      await showState(page, api, state, { statusUrl: null });
      if (colorScheme === 'dark') {
        await page.evaluate(() => document.querySelector('paywasm-checkout').setAttribute('theme', 'dark'));
        await page.waitForFunction(() => getComputedStyle(document.querySelector('paywasm-checkout').shadowRoot.querySelector('.root'))
          .backgroundColor === 'rgb(13, 17, 23)');
      }
      // The frame that shows it (and the brand colours worked out again after the theme's transition).
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      const file = path.join(shotsDir(), `${state}-375-${colorScheme}.png`);
      await page.locator('paywasm-checkout').screenshot({ path: file });
      assert.ok(fs.statSync(file).size > 3000, `${file} written`);
      const scroll = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(scroll <= PHONE.width, `${state} ${colorScheme}: nothing overflows (${scroll})`);
      await done();
    }
  }
});
