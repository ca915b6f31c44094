// Hosted checkout and payment links (issue 33; docs/merchant.md "No front end?"), on SQLite and on
// a real PostgreSQL: successUrl/cancelUrl only on --return-origin origins, links created, opened
// (one session per visit), deactivated (410), rate-limited per client and per link (429 +
// Retry-After), an expired link session offering a fresh one, the fields form refused cross-site
// (403), the shopper's fields read by the core's rules, hostile text inert on every page, one
// session's page never another's, a QR payment through the real sandbox ending in a receipt and events with linkId.
//   PAYWASM_SANDBOX=... PAYWASM_CLI=... PAYWASM_MERCHANT=... PAYWASM_WIDGET_DIST=<widget-dist> \
//     node --test-reporter=spec tests/gateway/links.test.mjs
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { sendJson } from '../server/harness.mjs';
import { gw, startGateway, startPostgres, startSandbox, startShopApp, tempDir, waitFor } from './harness.mjs';

const WIDGET = process.env.PAYWASM_WIDGET_DIST;
const SHOP = 'http://shop.paywasm.test';
const HOSTILE = '<img src=x onerror=alert(1)>"\'&</script>';
const CART = [{ id: 'mug', name: `Mug ${HOSTILE}`, price: 12.5, quantity: 2 }];

let sb;
let app;
let pg;
before(async () => {
  assert.ok(WIDGET && fs.existsSync(`${WIDGET}/paywasm.js`), 'PAYWASM_WIDGET_DIST names the built widget (make dist)');
  sb = await startSandbox();
  app = await startShopApp();
  pg = await startPostgres();
});
after(async () => {
  await app?.close();
  await pg?.destroy();
  await sb?.stop();
});

const start = (db, extra = [], more = {}) => startGateway(sb, {
  ...more, db, appCallback: app.url,
  extra: ['--widget-dir', WIDGET, '--return-origin', SHOP, '--shop-name', `Shop ${HOSTILE}`, ...extra],
});
// The form as a browser on the gateway's own page sends it (Origin, Sec-Fetch-Site same-origin);
// `headers` replaces those.
const form = (g, p, fields, headers = { origin: g.base, 'sec-fetch-site': 'same-origin' }) => fetch(g.base + p, {
  method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  body: new URLSearchParams(fields).toString(),
});
const open = (g, id) => fetch(`${g.base}/l/${id}`, { redirect: 'manual' });
const page = async (g, p) => {
  const r = await fetch(g.base + p, { redirect: 'manual' });
  return { status: r.status, headers: r.headers, text: await r.text() };
};

// The hostile text must come back escaped, never as markup.
function inert(html) {
  assert.ok(!html.includes('<img src=x'), 'no injected element');
  assert.ok(!html.includes('</script>"'), 'no script end from data');
  assert.ok(html.includes('&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;&lt;/script&gt;'), 'the text, escaped');
}

for (const backend of ['sqlite', 'postgres']) {
  describe(`hosted checkout and links (${backend})`, () => {
    let g;
    before(async () => {
      g = await start(backend === 'postgres' ? pg.url : undefined);
      assert.equal((await sendJson('PUT', sb.base + '/__sandbox/webhook', { url: g.base + '/v1/webhooks' })).status, 200);
    });
    after(async () => { await g?.stop(); });

    test('successUrl and cancelUrl: only on --return-origin, refused at creation otherwise', async () => {
      const base = { offerId: `ret-${backend}-${Date.now()}`, currency: 'USD', cart: CART,
        customerInfo: { name: 'Ada', email: 'ada@example.test' }, methods: ['qr'] };
      for (const bad of ['https://evil.example/done', 'javascript:alert(1)', '//evil.example/x', `${SHOP}.evil.example/x`, '/relative']) {
        const r = await gw(g, 'POST', '/v1/sessions', { app: true, body: { ...base, successUrl: bad } });
        assert.equal(r.status, 400, `${bad}: ${r.text}`);
        assert.equal(r.json.field, 'successUrl');
        const l = await gw(g, 'POST', '/v1/links', { app: true, body: { currency: 'USD', cart: CART, cancelUrl: bad } });
        assert.equal(l.status, 400, `link ${bad}`);
        assert.equal(l.json.field, 'cancelUrl');
      }
      const ok = await gw(g, 'POST', '/v1/sessions', { app: true, body: { ...base, successUrl: `${SHOP}/thanks?o=1` } });
      assert.equal(ok.status, 201, ok.text);
      assert.equal(ok.json.hostedUrl, `${g.base}/pay/${ok.json.id}`);
      const p = await page(g, `/pay/${ok.json.id}`);
      assert.equal(p.status, 200);
      inert(p.text);
    });

    test('a link: two visits make two sessions; the page and its headers; deactivated answers 410', async () => {
      const l = await gw(g, 'POST', '/v1/links', { app: true, body: { name: 'Mugs', currency: 'USD', cart: CART, methods: ['qr'],
        successUrl: `${SHOP}/thanks` } });
      assert.equal(l.status, 201, l.text);
      assert.match(l.json.id, /^pl_[A-Za-z0-9_-]{43}$/, 'an unguessable id');
      assert.equal(l.json.url, `${g.base}/l/${l.json.id}`);
      const a = await open(g, l.json.id);
      const b = await open(g, l.json.id);
      assert.equal(a.status, 303);
      assert.equal(b.status, 303);
      const [pa, pb] = [a.headers.get('location'), b.headers.get('location')];
      assert.match(pa, /^\/pay\/cs_/);
      assert.notEqual(pa, pb, 'one session per visit');
      // A browser (Accept: text/html) gets the new session's page itself, no redirect: the form, and
      // the session's own address for hosted.js to put in the address bar.
      const browser = await fetch(`${g.base}/l/${l.json.id}`, { redirect: 'manual', headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
      assert.equal(browser.status, 200);
      const html = await browser.text();
      assert.match(html, /<form method="post" action="\/pay\/(cs_[^"]+)\/details"/);
      const own = html.match(/action="\/pay\/(cs_[^"]+)\/details"/)[1];
      assert.ok(html.includes(`data-page="/pay/${own}"`), 'the session\'s address in the page');
      assert.equal(browser.headers.get('cache-control'), 'no-store');
      const detail = await gw(g, 'GET', `/v1/links/${l.json.id}`, { app: true });
      assert.equal(detail.json.sessions.length, 3, 'one session per visit, a browser\'s too');
      assert.deepEqual(detail.json.totals, []);
      const p = await page(g, pa);
      assert.equal(p.status, 200);
      const csp = p.headers.get('content-security-policy');
      assert.match(csp, /default-src 'none'/);
      assert.match(csp, /script-src 'self';/, 'the fields page runs no wasm and no inline script');
      assert.match(csp, /frame-ancestors 'none'/);
      assert.doesNotMatch(csp, /unsafe-inline/);
      assert.equal(p.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(p.headers.get('cache-control'), 'no-store');
      assert.match(p.text, /<form method="post" action="\/pay\/cs_[^"]+\/details"/);
      // One inline stylesheet, the gateway's own, allowed by its hash; no inline script, no style
      // attribute, no handler.
      const styles = [...p.text.matchAll(/<style>([^]*?)<\/style>/g)].map((m) => m[1]);
      assert.equal(styles.length, 1);
      const styleHash = (await import('node:crypto')).createHash('sha256').update(styles[0]).digest('base64');
      assert.match(csp, new RegExp(`style-src 'self' 'sha256-${styleHash.replace(/[+/]/g, '\\$&')}';`));
      assert.doesNotMatch(p.text, /<script>|<style [^>]*>|<[a-z][^>]*\s(style|on[a-z]+)=/i, 'no inline script, style attribute or handler');
      inert(p.text);
      const qr = await fetch(`${g.base}/v1/links/${l.json.id}/qr.svg`, { headers: { authorization: `Bearer ${(await import('./harness.mjs')).APP_SECRET}` } });
      assert.equal(qr.status, 200);
      assert.equal(qr.headers.get('content-type'), 'image/svg+xml');
      assert.match(await qr.text(), /^<svg/);
      const off = await gw(g, 'PATCH', `/v1/links/${l.json.id}`, { app: true, body: { active: false } });
      assert.equal(off.status, 200);
      assert.equal(off.json.active, false);
      const closed = await open(g, l.json.id);
      assert.equal(closed.status, 410);
      assert.match(await closed.text(), /no longer active/);
      assert.equal((await open(g, 'pl_' + 'x'.repeat(43))).status, 404);
    });

    test("the shopper's language (issue 45): first and last name, the country from a list, an amount with the language's decimal separator, the field at fault marked and focused", async () => {
      const l = await gw(g, 'POST', '/v1/links', { app: true, body: { currency: 'USD', methods: ['qr'], collectShipping: true,
        customAmount: { min: '1.00', max: '100.00', label: 'Donation' } } });
      assert.equal(l.status, 201, l.text);
      const de = { 'accept-language': 'de' };
      const visit = async () => (await open(g, l.json.id)).headers.get('location');
      const fields = { firstname: 'Ada', lastname: 'Lovelace', email: 'ada@example.test', address1: 'Unter den Linden 1', city: 'Berlin',
        zipcode: '10117', country: 'DE' };
      const post = (where, over) => form(g, `${where}/details`, { ...fields, ...over }, { origin: g.base, 'sec-fetch-site': 'same-origin', ...de });
      const mine = await visit();
      const page0 = await (await fetch(g.base + mine, { headers: de })).text();
      assert.match(page0, /<label for="firstname">Vorname<\/label><input id="firstname" name="firstname" type="text" autocomplete="given-name"/);
      assert.match(page0, /<label for="lastname">Nachname<\/label><input id="lastname" name="lastname" type="text" autocomplete="family-name"/);
      assert.match(page0, /<select id="country" name="country" autocomplete="country" required="required"><option value="">[^<]+<\/option>/);
      assert.match(page0, /<option value="DE">Deutschland<\/option>/);
      assert.ok(page0.indexOf('>Deutschland<') < page0.indexOf('>Österreich<') && page0.indexOf('>Österreich<') < page0.indexOf('>Polen<'),
        'the countries in the language\'s order, accents ignored');
      assert.match(page0, /Betrag \(USD, 1,00 bis 100,00\)/);
      // Refused: the field at fault is marked, described by the error and focused; what was typed is kept.
      for (const [over, id] of [[{ amount: '1000,00' }, 'amount'], [{ amount: '12,50', country: 'XX' }, 'country'],
        [{ amount: '12,50', email: 'not-an-email' }, 'email'], [{ amount: '12,50', firstname: '' }, 'firstname']]) {
        const bad = await post(mine, over);
        assert.equal(bad.status, 400, JSON.stringify(over));
        const text = await bad.text();
        assert.match(text, /<p class="error" role="alert" id="form-error">/);
        assert.match(text, new RegExp(`<(input|select) id="${id}"[^>]* aria-invalid="true" aria-describedby="form-error"( autofocus(="autofocus")?)?`), `${id}: ${text}`);
        assert.equal((text.match(/aria-invalid/g) || []).length, 1, 'one field marked');
        if (id === 'amount') assert.match(text, /1,00 bis 100,00/);
      }
      const good = await post(mine, { amount: '12,50' });
      assert.equal(good.status, 303, await good.text());
      const session = (await gw(g, 'GET', `/v1/sessions/${mine.slice(5)}`, { app: true })).json;
      assert.equal(session.amount, '12.50');
      assert.equal(session.shipTo.name, 'Ada Lovelace');
      assert.deepEqual([session.checkout.shippingAddress.firstname, session.checkout.shippingAddress.lastname, session.checkout.shippingAddress.country],
        ['Ada', 'Lovelace', 'DE']);
      // In English the comma groups digits: 12,50 is 1250, over the maximum; 12.50 is taken.
      const en = await form(g, `${await visit()}/details`, { ...fields, amount: '12,50' });
      assert.equal(en.status, 400);
      assert.equal((await form(g, `${await visit()}/details`, { ...fields, amount: '12.5,0' })).status, 400, 'no grouping after the point');
    });

    test("shopper fields by the core's rules; hostile fields inert; a session's page shows only its own", async () => {
      const l = await gw(g, 'POST', '/v1/links', { app: true, body: { currency: 'USD', cart: CART, methods: ['qr'], collectShipping: true } });
      const mine = (await open(g, l.json.id)).headers.get('location');
      const other = (await open(g, l.json.id)).headers.get('location');
      const bad = await form(g, `${mine}/details`, { name: 'Ada', email: 'not-an-email', address1: '1 Road', city: 'Town', zipcode: '1000', country: 'GB' });
      assert.equal(bad.status, 400);
      assert.match(await bad.text(), /role="alert"/);
      const good = await form(g, `${mine}/details`, { name: HOSTILE, email: 'ada@example.test', address1: HOSTILE, city: 'Town', zipcode: '1000', country: 'gb' });
      assert.equal(good.status, 303, await good.text());
      const p = await page(g, mine);
      assert.equal(p.status, 200);
      assert.match(p.text, /<paywasm-checkout session-url="\/v1\/checkout\/cs_[^"]+" methods="qr" theme="auto" locale="en">/);
      // The widget's script inline, allowed by its hash; no 'unsafe-inline' anywhere.
      assert.match(p.headers.get('content-security-policy'), /script-src 'self' 'wasm-unsafe-eval' 'sha256-[A-Za-z0-9+/]{43}=';/);
      assert.doesNotMatch(p.headers.get('content-security-policy'), /unsafe-inline/);
      // The session view inside the page (the widget's inline JSON): the hostile address as JSON text
      // with every '<' written \u003c, so it can end no element.
      assert.ok(p.text.includes('"address1":"\\u003cimg src=x onerror=alert(1)>\\"\'&\\u003c/script>"'), 'the view, inert');
      assert.match(p.headers.get('content-security-policy'), new RegExp(`connect-src 'self' ${sb.base.replace(/[.]/g, '\\.')}`));
      inert(p.text);
      const view = await gw(g, 'GET', `/v1/checkout/${mine.slice(5)}`);
      assert.equal(view.json.shippingAddress.address1, HOSTILE, 'kept as text');
      const theirs = await page(g, other);
      assert.ok(!theirs.text.includes('ada@example.test') && !theirs.text.includes('Town'), "another session's page shows none of it");
      const again = await form(g, `${mine}/details`, { name: 'Eve', email: 'eve@example.test', address1: 'x', city: 'y', zipcode: '1', country: 'GB' });
      assert.equal(again.status, 303, 'given once: a second form changes nothing');
      assert.equal((await gw(g, 'GET', `/v1/checkout/${mine.slice(5)}`)).json.shippingAddress.address1, HOSTILE);
    });

    test('the fields form refuses a cross-site POST (403); the page keeps its Origin for its own forms', async () => {
      const l = await gw(g, 'POST', '/v1/links', { app: true, body: { currency: 'USD', cart: CART, methods: ['qr'] } });
      const p = (await open(g, l.json.id)).headers.get('location');
      const shown = await page(g, p);
      assert.equal(shown.headers.get('referrer-policy'), 'same-origin', 'a same-origin POST carries its Origin (no-referrer sends null)');
      const fields = { name: 'Mallory', email: 'm@example.test' };
      for (const headers of [
        { origin: 'https://evil.example' },
        { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
        { 'sec-fetch-site': 'cross-site' },
        { 'sec-fetch-site': 'same-site' },
        { origin: 'null' },
        { origin: g.base.replace('127.0.0.1', 'localhost') },
        { origin: g.base, 'sec-fetch-site': 'cross-site' },
      ]) {
        const r = await form(g, `${p}/details`, fields, headers);
        assert.equal(r.status, 403, JSON.stringify(headers));
        const body = await r.json();
        assert.equal(body.error, 'cross_site_form');
      }
      assert.match((await page(g, p)).text, /<form method="post"/, 'nothing was taken: the form is still asked');
      const ok = await form(g, `${p}/details`, { name: 'Ada', email: 'ada@example.test' });
      assert.equal(ok.status, 303, 'the same origin is welcome');
      assert.match((await page(g, p)).text, /<paywasm-checkout /, 'the fields were taken');
      // A client that is no browser sends neither header: nothing to forge, the form is read.
      const p2 = (await open(g, l.json.id)).headers.get('location');
      assert.equal((await form(g, `${p2}/details`, fields, {})).status, 303);
    });

    test("the page's own words in the shopper's language (Accept-Language), English by default", async () => {
      const l = await gw(g, 'POST', '/v1/links', { app: true, body: { currency: 'USD', cart: CART, methods: ['qr'] } });
      const p = (await open(g, l.json.id)).headers.get('location');
      const inLang = async (acceptLanguage, path = p) => {
        const r = await fetch(g.base + path, { redirect: 'manual', headers: acceptLanguage ? { 'accept-language': acceptLanguage } : {} });
        const text = await r.text();
        return { status: r.status, text, lang: text.match(/<html lang="([^"]+)">/)?.[1], headers: r.headers,
          h1: text.match(/<h1>([^<]*)<\/h1>/)?.[1] };
      };
      const de = await inLang('de-DE,de;q=0.9,en;q=0.8');
      assert.equal(de.lang, 'de');
      assert.equal(de.headers.get('content-language'), 'de');
      assert.match(de.headers.get('vary'), /Accept-Language/);
      assert.equal(de.h1, 'Ihre Angaben');
      assert.match(de.text, />Weiter zur Zahlung</);
      assert.match(de.text, />Ihre Bestellung</);
      assert.match(de.text, /Sichere Bezahlung mit paywasm/);
      assert.doesNotMatch(de.text, /Your details|Continue to payment|Your order/, 'no English left');
      for (const [header, lang, h1] of [[undefined, 'en', 'Your details'], ['*', 'en', 'Your details'], ['ja, zh;q=0.8', 'en', 'Your details'],
        ['fr-CA', 'fr', 'Vos coordonnées'], ['fr;q=0.5, es;q=0.9', 'es', 'Sus datos'], ['pt', 'pt-BR', 'Seus dados'],
        ['pt-BR', 'pt-BR', 'Seus dados'], ['pt-PT', 'pt-PT', 'Os seus dados'], ['de;q=0, en', 'en', 'Your details']]) {
        const r = await inLang(header);
        assert.equal(r.lang, lang, `${header}`);
        assert.equal(r.h1, h1, `${header}`);
      }
      // A refused form speaks German too; the checkout's widget is told the page's language.
      const bad = await fetch(`${g.base}${p}/details`, { method: 'POST', redirect: 'manual', headers: {
        'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'de', origin: g.base },
        body: new URLSearchParams({ name: 'Ada', email: 'nope' }).toString() });
      assert.equal(bad.status, 400);
      assert.match(await bad.text(), /role="alert" id="form-error">Geben Sie eine gültige E-Mail-Adresse ein.</);
      assert.equal((await form(g, `${p}/details`, { name: 'Ada', email: 'ada@example.test' })).status, 303);
      const checkout = await inLang('de', p);
      assert.equal(checkout.h1, 'Bezahlung');
      assert.match(checkout.text, /<paywasm-checkout [^>]*locale="de"/);
      assert.match(checkout.text, /data-expired="abgelaufen"/);
      const missing = await inLang('de', '/pay/cs_nothing_here');
      assert.equal(missing.status, 404);
      assert.equal(missing.h1, 'Diese Bezahlung gibt es nicht');
      await gw(g, 'PATCH', `/v1/links/${l.json.id}`, { app: true, body: { active: false } });
      const closed = await inLang('de', `/l/${l.json.id}`);
      assert.equal(closed.status, 410);
      assert.equal(closed.lang, 'de');
      assert.match(closed.text, /Dieser Zahlungslink ist nicht mehr aktiv/);
    });

    test('every language has every text of English', () => {
      const dir = new URL('../../web/hosted/', import.meta.url);
      const keys = (lang) => Object.keys(JSON.parse(fs.readFileSync(new URL(`text-${lang}.json`, dir), 'utf8')));
      for (const lang of ['de', 'es', 'fr', 'pt-BR', 'pt-PT']) assert.deepEqual(keys(lang), keys('en'), lang);
      const widget = fs.readdirSync(new URL('../../web/src/locales/', import.meta.url)).map((f) => f.replace(/\.json$/, '')).sort();
      assert.deepEqual(widget, ['de', 'en', 'es', 'fr', 'pt-BR', 'pt-PT'], "the widget's languages, each with the page's words");
    });

    test('a shopper-chosen amount within bounds; a usage limit', async () => {
      const l = await gw(g, 'POST', '/v1/links', { app: true, body: { name: 'Tip jar', currency: 'EUR',
        customAmount: { min: '1', max: '50' }, methods: ['qr'], usageLimit: 1 } });
      assert.equal(l.status, 201, l.text);
      const p = (await open(g, l.json.id)).headers.get('location');
      for (const amount of ['0.50', '51', '2.005', 'ten']) {
        const r = await form(g, `${p}/details`, { amount, name: 'Bo', email: 'bo@example.test' });
        assert.equal(r.status, 400, amount);
      }
      assert.equal((await form(g, `${p}/details`, { amount: '7.25', name: 'Bo', email: 'bo@example.test' })).status, 303);
      const view = await gw(g, 'GET', `/v1/checkout/${p.slice(5)}`);
      assert.equal(view.json.amount, '7.25');
      assert.equal(view.json.currency, 'EUR');
      const bad = await gw(g, 'POST', '/v1/links', { app: true, body: { currency: 'EUR', customAmount: { min: '5', max: '1' } } });
      assert.equal(bad.status, 400);
    });

    test("a shopper-chosen amount in the currency's minor unit: none for JPY, three for KWD", async () => {
      // Before: two decimals for every currency (`scale() > 2`), so yen took 100.5 and dinars refused 1.125.
      const yenFraction = await gw(g, 'POST', '/v1/links', { app: true, body: { currency: 'JPY', customAmount: { min: '100.5', max: '5000' } } });
      assert.equal(yenFraction.status, 400, yenFraction.text);
      assert.equal(yenFraction.json.field, 'customAmount.min');
      assert.match(yenFraction.json.message, /a whole number of JPY/);
      const dinars = await gw(g, 'POST', '/v1/links', { app: true, body: { currency: 'KWD', customAmount: { min: '1.125', max: '9.999' }, methods: ['qr'] } });
      assert.equal(dinars.status, 201, dinars.text);
      const tooFine = await gw(g, 'POST', '/v1/links', { app: true, body: { currency: 'KWD', customAmount: { min: '1.1255', max: '9' } } });
      assert.equal(tooFine.status, 400, tooFine.text);
      const yen = await gw(g, 'POST', '/v1/links', { app: true, body: { currency: 'JPY', customAmount: { min: '100', max: '5000' }, methods: ['qr'] } });
      assert.equal(yen.status, 201, yen.text);
      const p = (await open(g, yen.json.id)).headers.get('location');
      assert.equal((await form(g, `${p}/details`, { amount: '150.5', name: 'Bo', email: 'bo@example.test' })).status, 400);
      assert.equal((await form(g, `${p}/details`, { amount: '150', name: 'Bo', email: 'bo@example.test' })).status, 303);
      assert.equal((await gw(g, 'GET', `/v1/checkout/${p.slice(5)}`)).json.amount, '150');
      const d = (await open(g, dinars.json.id)).headers.get('location');
      assert.equal((await form(g, `${d}/details`, { amount: '2.5', name: 'Bo', email: 'bo@example.test' })).status, 303);
      assert.equal((await gw(g, 'GET', `/v1/checkout/${d.slice(5)}`)).json.amount, '2.500');
    });

    test('pay by QR through the sandbox: receipt, return link, events with linkId, totals', async () => {
      const l = await gw(g, 'POST', '/v1/links', { app: true, body: { currency: 'USD', cart: CART, methods: ['qr'], successUrl: `${SHOP}/thanks` } });
      const p = (await open(g, l.json.id)).headers.get('location');
      const id = p.slice(5);
      assert.equal((await form(g, `${p}/details`, { name: 'Ada', email: 'ada@example.test' })).status, 303);
      const qr = await gw(g, 'POST', `/v1/checkout/${id}/qr`, { body: {} });
      assert.equal(qr.status, 200, qr.text);
      const moved = await sendJson('POST', `${sb.base}/__sandbox/transactions/${qr.json.result.id}/advance`, { status: 1 });
      assert.equal(moved.status, 200);
      const ev = await waitFor(() => app.events.find((e) => e.body.sessionId === id && e.body.success), 10000, 'the success event');
      assert.equal(ev.body.linkId, l.json.id);
      const r = await page(g, p);
      assert.equal(r.status, 200);
      assert.match(r.text, /Payment received/);
      assert.match(r.text, new RegExp(`>${qr.json.result.id}<`), 'the reference');
      assert.ok(r.text.includes('<dt>Method</dt><dd>QR code</dd>'), 'the method, read by the core');
      assert.match(r.text, /25 USD|25\.00 USD/);
      assert.match(r.text, /href="http:\/\/shop\.paywasm\.test\/thanks"/);
      const detail = await gw(g, 'GET', `/v1/links/${l.json.id}`, { app: true });
      assert.deepEqual(detail.json.totals, [{ currency: 'USD', amount: '25.00' }]);
      assert.equal(detail.json.paidSessions, 1);
    });
  });
}

describe('abuse', () => {
  test('openings are rate-limited per client (429 + Retry-After); unused link sessions expire fast', async () => {
    const g = await start(undefined, ['--link-rate-per-client', '3', '--link-session-ttl', '60']);
    try {
      const l = await gw(g, 'POST', '/v1/links', { app: true, body: { currency: 'USD', cart: CART, methods: ['qr'] } });
      const answers = [];
      for (let i = 0; i < 4; i++) answers.push(await open(g, l.json.id));
      assert.deepEqual(answers.map((a) => a.status), [303, 303, 303, 429]);
      assert.ok(Number(answers[3].headers.get('retry-after')) >= 1);
      assert.match(answers[3].headers.get('content-type'), /^text\/html/);
      assert.match(await answers[3].text(), /Please wait a minute, then open it again/);
      const s = await gw(g, 'GET', `/v1/sessions/${answers[0].headers.get('location').slice(5)}`, { app: true });
      const ttl = Date.parse(s.json.expiresAt) - Date.parse(s.json.createdAt);
      assert.equal(ttl, 60000, 'a link session waits --link-session-ttl for the fields');
    } finally { await g.stop(); }
  });

  test("every error a shopper's browser can see is a page in the shop's look; an API client keeps JSON", async () => {
    const g = await start(pg.url, ['--link-rate-per-client', '0']);
    const asBrowser = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8', 'accept-language': 'de' };
    try {
      const l = await gw(g, 'POST', '/v1/links', { app: true, body: { currency: 'USD', cart: CART, methods: ['qr'] } });
      assert.equal(l.status, 201, l.text);
      // A form that is not one (415) from a browser: a page, in German; from a script: the JSON.
      const s = (await open(g, l.json.id)).headers.get('location');
      const bad = { method: 'POST', redirect: 'manual', body: 'x', headers: { 'content-type': 'text/plain', origin: g.base,
        'sec-fetch-site': 'same-origin' } };
      const badPage = await fetch(`${g.base}${s}/details`, { ...bad, headers: { ...bad.headers, ...asBrowser } });
      assert.equal(badPage.status, 415);
      assert.match(badPage.headers.get('content-type'), /^text\/html/);
      const badText = await badPage.text();
      assert.match(badText, /Diese Anfrage konnte nicht verarbeitet werden/);
      assert.match(badText, /Es wurde nichts berechnet/);
      inert(badText);
      const badJson = await fetch(`${g.base}${s}/details`, bad);
      assert.equal(badJson.status, 415);
      assert.equal((await badJson.json()).error, 'unsupported_media_type');
      // The database away: 503 with Retry-After, a page that says to try again in a minute.
      await pg.stop();
      try {
        const down = await fetch(`${g.base}/l/${l.json.id}`, { redirect: 'manual', headers: asBrowser });
        assert.equal(down.status, 503);
        assert.ok(Number(down.headers.get('retry-after')) >= 1);
        assert.match(down.headers.get('content-type'), /^text\/html/);
        assert.match(down.headers.get('content-security-policy'), /default-src 'none'/);
        assert.match(await down.text(), /Diese Seite ist gerade nicht verfügbar/);
        const downJson = await fetch(`${g.base}/l/${l.json.id}`, { redirect: 'manual' });
        assert.equal(downJson.status, 503);
        assert.equal((await downJson.json()).error, 'storage_unavailable');
        const payDown = await fetch(`${g.base}${s}`, { redirect: 'manual', headers: asBrowser });
        assert.equal(payDown.status, 503);
        assert.match(await payDown.text(), /Bitte versuchen Sie es in einer Minute erneut/);
      } finally {
        await pg.start();
      }
    } finally { await g.stop(); }
  });

  test('openings are rate-limited per link (429 + Retry-After), other links still open', async () => {
    const g = await start(undefined, ['--link-rate-per-client', '0', '--link-rate-per-link', '2']);
    try {
      const busy = await gw(g, 'POST', '/v1/links', { app: true, body: { currency: 'USD', cart: CART, methods: ['qr'] } });
      const quiet = await gw(g, 'POST', '/v1/links', { app: true, body: { currency: 'USD', cart: CART, methods: ['qr'] } });
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push(await open(g, busy.json.id));
      assert.deepEqual(answers.map((a) => a.status), [303, 303, 429]);
      const retry = Number(answers[2].headers.get('retry-after'));
      assert.ok(retry >= 1 && retry <= 60, `Retry-After ${retry}`);
      // A page for the shopper (not the API's JSON), in their language.
      assert.match(answers[2].headers.get('content-type'), /^text\/html/);
      assert.match(await answers[2].text(), /This link is busy/);
      assert.equal((await gw(g, 'GET', `/v1/links/${busy.json.id}`, { app: true })).json.sessions.length, 2, 'no session for the refused one');
      assert.equal((await open(g, quiet.json.id)).status, 303, 'the limit is per link');
    } finally { await g.stop(); }
  });

  test("an expired link session's page offers \"Start a new checkout\": a fresh session", async () => {
    const dir = tempDir('pwm-links-');
    let g = await start(undefined, ['--link-session-ttl', '60'], { dir });
    let linkId;
    let first;
    let closedId;
    let closedFirst;
    try {
      linkId = (await gw(g, 'POST', '/v1/links', { app: true, body: { currency: 'USD', cart: CART, methods: ['qr'] } })).json.id;
      closedId = (await gw(g, 'POST', '/v1/links', { app: true, body: { currency: 'USD', cart: CART, methods: ['qr'] } })).json.id;
      first = (await open(g, linkId)).headers.get('location');
      const fresh = await page(g, first);
      assert.equal(fresh.status, 200);
      assert.doesNotMatch(fresh.text, /Start a new checkout/);
      closedFirst = (await open(g, closedId)).headers.get('location');
      assert.equal((await gw(g, 'PATCH', `/v1/links/${closedId}`, { app: true, body: { active: false } })).status, 200);
    } finally { await g.stop(); }
    // The same database a minute and a second later: the unused link session has expired.
    g = await start(undefined, ['--link-session-ttl', '60'], { dir, env: { PAYWASM_CLOCK_OFFSET_MS: '61000' } });
    try {
      const gone = await page(g, first);
      assert.equal(gone.status, 410);
      assert.match(gone.text, /<h1>This checkout has expired<\/h1>/);
      const again = gone.text.match(/<a href="([^"]+)" class="button">Start a new checkout<\/a>/);
      assert.ok(again, 'the offer of a fresh checkout');
      assert.equal(again[1], `/l/${linkId}`);
      const opened = await fetch(g.base + again[1], { redirect: 'manual' });
      assert.equal(opened.status, 303);
      const next = opened.headers.get('location');
      assert.match(next, /^\/pay\/cs_/);
      assert.notEqual(next, first, 'a new session');
      const shown = await page(g, next);
      assert.equal(shown.status, 200);
      assert.match(shown.text, /<form method="post"/, 'the new checkout asks for the fields');
      // A deactivated link's expired session offers no new checkout.
      const closed = await page(g, closedFirst);
      assert.equal(closed.status, 410);
      assert.doesNotMatch(closed.text, /Start a new checkout/);
    } finally { await g.stop(); }
  });

  test('a bad hosted option stops the start', async () => {
    await assert.rejects(start(undefined, ['--shop-colour', 'red']), /shop-colour/);
    await assert.rejects(start(undefined, ['--return-origin', 'https://a.example/path']), /return-origin/);
  });
});

// A total the currency cannot carry (0.001 USD, 1.234 USD) is refused for a session, a link and the
// sessions a link would open: the core's require_chargeable_total, before anything is stored.
test('a total with more decimals than its currency has is refused: sessions and links (400 on cart)', async () => {
  const g = await startGateway(sb, { extra: ['--widget-dir', WIDGET] });
  try {
    for (const price of [0.001, 1.234]) {
      const s = await gw(g, 'POST', '/v1/sessions', { app: true, body: { offerId: `cents-${price}-${Date.now()}`, currency: 'USD',
        methods: ['exchange'], cart: [{ id: 'a', name: 'A', price, quantity: 1 }] } });
      assert.equal(s.status, 400, `session of ${price} USD: ${s.text}`);
      assert.equal(s.json.field, 'cart');
      assert.match(s.json.message, /cannot be charged/);
      const l = await gw(g, 'POST', '/v1/links', { app: true, body: { currency: 'USD', cart: [{ id: 'a', name: 'A', price, quantity: 1 }] } });
      assert.equal(l.status, 400, `link of ${price} USD: ${l.text}`);
    }
    const ok = await gw(g, 'POST', '/v1/links', { app: true, body: { currency: 'USD', cart: [{ id: 'a', name: 'A', price: 0.125, quantity: 8 }] } });
    assert.equal(ok.status, 201, 'a total of 1.000 USD is one dollar');
  } finally {
    await g.stop();
  }
});

// A gateway without --widget-dir: the link operations and the hosted pages say they are off and how
// to turn them on (issue 44), not a bare 404 http_error.
test('without --widget-dir, /v1/links, /l/{id} and /pay/{id} answer hosted_pages_off and name the option', async () => {
  const g = await startGateway(sb, { db: undefined });
  try {
    for (const [method, p, app] of [['POST', '/v1/links', true], ['GET', '/v1/links', true], ['GET', '/v1/links/abc', true],
      ['PATCH', '/v1/links/abc', true], ['GET', '/l/abc', false], ['GET', '/pay/abc', false]]) {
      const r = await gw(g, method, p, { app, body: method === 'GET' ? undefined : {} });
      assert.equal(r.status, 404, `${method} ${p}`);
      assert.equal(r.json.error, 'hosted_pages_off', `${method} ${p}: ${r.text}`);
      assert.match(r.json.message, /--widget-dir/);
    }
  } finally {
    await g.stop();
  }
});
