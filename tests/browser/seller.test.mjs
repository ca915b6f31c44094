// The seller with no web site (issue 44's "Done when"), in one browser engine through the suites'
// driver interface (engines/index.mjs), against the REAL sandbox, gateway and an SMTP relay
// (aiosmtpd: tests/support/smtp.mjs), no shop app and no API call by the seller:
//   - the seller logs in to the console, creates a payment link with the form, prints its poster
//     (Chromium: A4 and A6 each print on one page, and the printed code scans to the link's URL:
//     pdftoppm + zbarimg); a customer (375 px) opens the link, gives their fields, pays by QR on the
//     sandbox; the seller receives the "Payment received" mail;
//   - at the stall (375 px): the seller types an amount on the keypad, charges it, the customer
//     scans the code on the seller's screen (its screenshot decoded by zbarimg) and pays; the same
//     screen says "Paid" by itself; the order is in the orders list and the CSV as a sale by the
//     seller; a second customer scanning the same code cannot pay it again.
// In Chromium also screenshots (into PAYWASM_SELLER_SHOTS when set: docs/img holds the ones
// docs/seller.md shows).
//   PAYWASM_SANDBOX=... PAYWASM_CLI=... PAYWASM_MERCHANT=... \
//     node --test-reporter=spec tests/browser/seller.test.mjs --engine <chromium|firefox|webkit>
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';

import { launchEngine } from './engines/index.mjs';
import { CHROMIUM, CHROMIUM_ARGS, distDir, zbar } from './lib.mjs';
import { sendJson } from '../server/harness.mjs';
import { Client, consoleUser } from '../gateway/console_client.mjs';
import { freePort, gw, startGateway, startSandbox, tempDir, waitFor } from '../gateway/harness.mjs';
import { startRelay } from '../support/smtp.mjs';

const argv = process.argv.slice(2);
const ENGINE = argv.includes('--engine') ? argv[argv.indexOf('--engine') + 1] : process.env.PAYWASM_ENGINE || 'chromium';
const DIST = distDir(['paywasm.js', 'paywasm.wasm', 'paywasm.css']);
const LIMIT = { timeout: 180000 };
const PASSWORD = 'a long stall password';
const PHONE = { width: 375, height: 812 };
const DESKTOP = { width: 1100, height: 900 };
const SHOTS = process.env.PAYWASM_SELLER_SHOTS || tempDir('pwm-seller-shots-');
fs.mkdirSync(SHOTS, { recursive: true });

let engine, sb, relay, g, base;

before(async () => {
  sb = await startSandbox([]);
  relay = await startRelay();
  const dir = tempDir('pwm-seller-');
  const db = `sqlite:${dir}/gateway.db`;
  assert.equal(consoleUser(db, ['add', 'ada'], `${PASSWORD}\n`).status, 0);
  const port = await freePort();
  g = await startGateway(sb, { dir, db, extra: ['--console-listen', `127.0.0.1:${port}`, '--widget-dir', DIST,
    '--shop-name', 'Corner Coffee', '--shop-colour', '#8a3b12', '--public-service-url', `${sb.base}/api`, '--pos-currency', 'USD',
    ...relay.args] });
  base = `http://127.0.0.1:${port}`;
  assert.equal((await sendJson('PUT', `${sb.base}/__sandbox/webhook`, { url: `${g.base}/v1/webhooks` })).status, 200);
  engine = await launchEngine(ENGINE);
  console.log(`engine: ${engine.name} ${engine.version}`);
});
after(async () => {
  await engine?.close();
  await g?.stop();
  await relay?.stop();
  await sb?.stop();
});

const heading = (page) => page.run(() => document.querySelector('h1')?.textContent ?? '');
const at = (page, want, what) => waitFor(async () => {
  const h = await heading(page).catch(() => '');
  return (typeof want === 'string' ? h === want : want.test(h)) && h;
}, { timeout: 30000, what });
async function type(page, selector, text) {
  await page.click((s) => document.querySelector(s), selector);
  await page.press(text);
}
async function logIn(page) {
  await page.goto(`${base}/login`);
  await at(page, /Log in/i, 'the login page');
  await type(page, '#name', 'ada');
  await type(page, '#password', PASSWORD);
  await page.click(() => document.querySelector('form[action="/login"] button'));
  await at(page, 'Overview', 'the overview after the login');
}
// Chromium only: a PNG of what the page shows, for the docs.
async function shot(page, name) {
  if (ENGINE !== 'chromium') return;
  fs.writeFileSync(path.join(SHOTS, `${name}.png`), await page.screenshot());
}

// A customer on their phone: the link's page, their fields, the QR code paid at the sandbox (what
// their payment app does), the receipt. Returns the session's id.
async function customerPays(url) {
  const page = await engine.newPage(PHONE);
  try {
    await page.goto(url);
    await at(page, 'Your details', 'the fields form');
    await type(page, '#firstname', 'Grace');
    await type(page, '#lastname', 'Hopper');
    await type(page, '#email', 'grace@example.test');
    await page.click(() => document.querySelector('form.details button[type=submit]'));
    await at(page, 'Checkout', 'the checkout page');
    const sessionId = await page.run(() => location.pathname.slice(5));
    await page.click(() => document.querySelector('paywasm-checkout')?.shadowRoot?.querySelector('button[data-key=pay-qr]:not([disabled])'));
    await waitFor(() => page.run(() => !!document.querySelector('paywasm-checkout')?.shadowRoot?.querySelector('.qr-code svg')),
      { timeout: 20000, what: 'the QR code shown' });
    const qr = (await gw(g, 'POST', `/v1/checkout/${sessionId}/qr`, { body: {} })).json;  // the same code again
    const moved = await sendJson('POST', `${sb.base}/__sandbox/transactions/${qr.result.id}/advance`, { status: 1 });
    assert.equal(moved.status, 200);
    await at(page, 'Payment received', 'the receipt');
    return sessionId;
  } finally {
    await page.close();
  }
}

test('a link made in the console, its poster printed, paid by a customer: the seller gets the mail', LIMIT, async () => {
  const page = await engine.newPage(DESKTOP);
  try {
    await logIn(page);
    // The seller chooses their own mail in the console ("Your mail").
    await page.goto(`${base}/mail`);
    await at(page, 'Your mail', 'the mail page');
    await type(page, '#email', 'ada@stall.example');
    await page.click(() => document.querySelector('input[name=kind_refused]'));  // not this one
    await page.click(() => document.querySelector('form[action="/mail"] button[type=submit]'));
    await waitFor(async () => /You are mailed at ada@stall\.example/.test(await page.run(() => document.querySelector('main').textContent)),
      { timeout: 20000, what: 'the mail saved' });
    assert.equal(await page.run(() => document.querySelector('input[name=kind_refused]').checked), false);
    await shot(page, 'seller-mail');
    // The server's own check (a browser's type=email is not one): refused, named, nothing changed.
    const client = new Client(base);
    assert.equal((await client.login('ada', PASSWORD)).status, 303);
    const refused = await client.req('POST', '/mail', { csrf: await client.csrf('/mail'), email: 'ada at stall', kind_paid: '1' },
      { origin: base });
    assert.equal(refused.status, 400);
    assert.match(refused.text, /Not saved: give one e-mail address/);
    assert.match(refused.text, /value="ada at stall"/, 'what was typed is kept');
    assert.match((await client.req('GET', '/mail')).text, /You are mailed at ada@stall\.example/, 'the saved mail unchanged');
    await page.goto(`${base}/links/new`);
    await at(page, 'New payment link', 'the link form');
    await type(page, '#name', 'Coffee beans');
    await type(page, 'input[name=line1_name]', 'House blend, 250 g');
    await type(page, 'input[name=line1_price]', '9.50');
    await page.run(() => { document.querySelector('input[name=line1_qty]').value = '2'; });  // it holds 1
    await shot(page, 'seller-link-form');
    await page.click(() => document.querySelector('form[action="/links"] button[type=submit]'));
    await at(page, 'Payment link: Coffee beans', 'the new link\'s page');
    const facts = await page.run(() => document.querySelector('dl.facts').textContent);
    assert.ok(facts.includes('19.00 USD'), `the amount with its currency: ${facts}`);
    const url = await page.run(() => document.querySelector('input.url').value);
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/l\/pl_[A-Za-z0-9_-]+$/);
    await shot(page, 'seller-link');

    // The poster opens in the seller's browser, then prints (Chromium: PDF, rasterised, scanned).
    await page.goto(`${url.replace(/^.*\/l\//, `${base}/links/`)}/poster?size=a6`);
    await waitFor(() => page.run(() => { const i = document.querySelector('img.code'); return !!i && i.complete && i.naturalWidth > 0; }),
      { timeout: 20000, what: 'the poster\'s code loaded' });
    assert.equal(await heading(page), 'Coffee beans');
    if (ENGINE === 'chromium') {
      const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
      try {
        const context = await browser.newContext();
        await context.addCookies([...client.jar].map(([name, value]) => ({ name, value, url: base })));
        const printed = await context.newPage();
        for (const size of ['a4', 'a6']) {
          await printed.goto(`${url.replace(/^.*\/l\//, `${base}/links/`)}/poster?size=${size}`);
          await printed.waitForFunction(() => document.querySelector('img.code')?.complete);
          const pdf = await printed.pdf({ preferCSSPageSize: true, printBackground: true });
          const file = path.join(tempDir('pwm-poster-'), `poster-${size}.pdf`);
          fs.writeFileSync(file, pdf);
          const pages = execFileSync('pdfinfo', [file]).toString().match(/^Pages:\s+(\d+)/m)[1];
          assert.equal(pages, '1', `the ${size} poster prints on one page`);
          const size_mm = execFileSync('pdfinfo', [file]).toString().match(/^Page size:\s+([\d.]+) x ([\d.]+) pts/m);
          const [w, h] = [Number(size_mm[1]) * 25.4 / 72, Number(size_mm[2]) * 25.4 / 72];
          const want = size === 'a4' ? [210, 297] : [105, 148];
          assert.ok(Math.abs(w - want[0]) < 2 && Math.abs(h - want[1]) < 2, `${size}: ${w.toFixed(0)} x ${h.toFixed(0)} mm`);
          execFileSync('pdftoppm', ['-r', '150', '-png', '-singlefile', file, path.join(SHOTS, `seller-poster-${size}`)]);
          assert.equal(zbar(path.join(SHOTS, `seller-poster-${size}.png`)), url, `the printed ${size} code scans to the link`);
        }
      } finally {
        await browser.close();
      }
    }

    const sessionId = await customerPays(url);
    // The mail: to the address the seller chose, about this order, saying it was paid.
    const mail = await waitFor(() => relay.mails().find((m) => m.to.includes('ada@stall.example') && /Payment received/.test(m.data)),
      { timeout: 30000, what: 'the "Payment received" mail' });
    const order = (await gw(g, 'GET', `/v1/sessions/${sessionId}`, { app: true })).json;
    assert.ok(mail.data.includes(order.offerId), 'the mail names the order');
    // The link's page counts it.
    await page.goto(`${url.replace(/^.*\/l\//, `${base}/links/`)}`);
    await at(page, 'Payment link: Coffee beans', 'the link\'s page again');
    const after = await page.run(() => document.querySelector('dl.facts').textContent);
    assert.ok(after.includes('19.00 USD'), 'received per currency');
    assert.match(after, /Paid\s*1/, `one paid: ${after}`);
  } finally {
    await page.close();
  }
});

test('the point of sale at 375 px: keypad, charge, the customer scans and pays, the screen says paid', LIMIT, async () => {
  const page = await engine.newPage(PHONE);
  try {
    await logIn(page);
    await page.goto(`${base}/pos`);
    await at(page, 'Point of sale', 'the point of sale');
    await waitFor(() => page.run(() => !document.querySelector('.keypad').hidden), { timeout: 20000, what: 'the keypad (pos.js)' });
    for (const k of ['1', '2', '.', '5', '0']) await page.click((key) => document.querySelector(`.keypad button[data-key="${key}"]`), k);
    assert.equal(await page.run(() => document.getElementById('amount').value), '12.50', 'the keypad typed the amount');
    // Nothing wider than the window (WebKitGTK's MiniBrowser keeps its window wider than 375 px: its
    // own width is the bound there, and the log says which).
    const view = await page.run(() => document.documentElement.clientWidth);
    console.log(`${ENGINE}: the point of sale at ${view} px`);
    if (ENGINE !== 'webkit') assert.equal(view, PHONE.width, 'the phone\'s width');
    const wide = await page.run((w) => [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > w + 1)
      .map((e) => `${e.tagName}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`).slice(0, 5), view);
    assert.deepEqual(wide, [], 'nothing wider than the window');
    await type(page, '#note', 'Two flat whites');
    await shot(page, 'seller-pos-keypad');
    await page.click(() => document.querySelector('button.charge'));
    await at(page, 'Sale', 'the sale\'s screen');
    await waitFor(() => page.run(() => { const i = document.querySelector('.sale-code img'); return !!i && i.complete && i.naturalWidth > 0; }),
      { timeout: 20000, what: 'the sale\'s code' });
    assert.equal(await page.run(() => document.querySelector('.sale-amount').textContent), '12.50 USD');
    assert.equal(await page.run(() => document.getElementById('sale-state').getAttribute('role')), 'status', 'read out as it changes');
    await page.run(() => document.querySelector('.sale-code').scrollIntoView({ block: 'center' }));
    const png = path.join(SHOTS, `pos-screen-${ENGINE}.png`);
    fs.writeFileSync(png, await page.screenshot());
    if (ENGINE === 'chromium') fs.copyFileSync(png, path.join(SHOTS, 'seller-pos-sale.png'));
    const url = zbar(png);
    assert.match(url, /\/l\/pl_/, 'the screen\'s code is the sale\'s link');

    const sessionId = await customerPays(url);
    // The seller's screen, left as it was, says paid by itself.
    await waitFor(async () => /^Paid: 12\.50 USD received/.test(await page.run(() => document.getElementById('sale-state')?.textContent ?? '').catch(() => '')),
      { timeout: 30000, what: 'the seller\'s screen says paid' });
    assert.ok(await page.run(() => !document.querySelector('.sale-code')), 'the code is gone once paid');
    await shot(page, 'seller-pos-paid');

    // An order like any other, tagged as a sale by the seller: the list, the CSV, the app API.
    const client = new Client(base);
    assert.equal((await client.login('ada', PASSWORD)).status, 303);
    const list = await client.req('GET', '/orders?state=paid');
    assert.ok(list.text.includes(sessionId) && list.text.includes('sale by ada'), 'in the orders as a sale');
    const csv = await client.req('GET', '/orders.csv');
    const line = csv.text.split('\r\n').find((l) => l.startsWith(`"${sessionId}"`));
    assert.ok(line?.endsWith('"ada"'), `the CSV's soldBy: ${line}`);
    assert.equal((await gw(g, 'GET', `/v1/sessions/${sessionId}`, { app: true })).json.soldBy, 'ada');
    // The same code scanned again: the sale took its one payment.
    const again = await fetch(url, { redirect: 'manual', headers: { accept: 'text/html' } });
    assert.equal(again.status, 410, 'a sale is paid once');
  } finally {
    await page.close();
  }
});

test('the point of sale on a desktop, with the keyboard alone: type, Enter charges, the state is read out', LIMIT, async () => {
  const page = await engine.newPage(DESKTOP);
  try {
    await logIn(page);
    await page.goto(`${base}/pos`);
    await at(page, 'Point of sale', 'the point of sale');
    // The amount field has the focus after a click; the rest is keys: digits, Tab to the keypad's
    // first key and on, the note, Enter submits the form.
    await page.click(() => document.getElementById('amount'));
    await page.press('7.25');
    await page.click(() => document.getElementById('note'));
    await page.press('Tea', 'Enter');
    await at(page, 'Sale', 'the sale\'s screen');
    assert.equal(await page.run(() => document.querySelector('.sale-amount').textContent), '7.25 USD');
    assert.equal(await page.run(() => document.getElementById('sale-state').getAttribute('role')), 'status');
    assert.match(await page.run(() => document.getElementById('sale-state').textContent), /^Waiting for the customer/);
    // A bad amount: the keypad again, with why (400), nothing charged.
    await page.goto(`${base}/pos`);
    await at(page, 'Point of sale', 'the point of sale again');
    await page.click(() => document.getElementById('amount'));
    await page.press('1.234', 'Enter');
    await waitFor(() => page.run(() => document.querySelector('.banner.bad')?.textContent ?? ''), { timeout: 20000, what: 'the refusal' });
    assert.match(await page.run(() => document.querySelector('.banner.bad').textContent), /cannot be charged/);
  } finally {
    await page.close();
  }
});
