// Word to the merchant by e-mail (issue 44; src/merchant/rules/notify.hpp, mailer.cpp): real
// paywasm-merchant processes sending through a real SMTP server (Debian's aiosmtpd,
// tests/support/smtp_server.py) that requires STARTTLS and AUTH; each console user gets the kinds it
// chose (console-user notify); a relay that refuses for a while delays the mail, never loses it or
// sends it twice; two instances on one PostgreSQL send each mail once.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';

import { consoleUser } from './console_client.mjs';
import { startRelay } from '../support/smtp.mjs';
import {
  gw, startGateway, startPostgres, startSandbox, startShopApp, tempDir, waitFor, webhookBody, webhookPrivateKey,
} from './harness.mjs';

const PASSWORD = 'correct horse battery staple';
let sb, key;

before(async () => {
  sb = await startSandbox();
  key = webhookPrivateKey(sb);
});
after(async () => { await sb?.stop(); });

async function paidSession(g, status = 1, over = {}) {
  const offerId = 'mail-' + crypto.randomUUID();
  const r = await gw(g, 'POST', '/v1/sessions', { app: true, body: { offerId, currency: 'USD',
    cart: [{ id: 'x', name: 'Widget', price: 64, quantity: 1 }],
    shippingAddress: { firstname: 'Ada', lastname: 'Lovelace', email: 'ada@example.com', country: 'GB' } } });
  assert.equal(r.status, 201, r.text);
  const text = JSON.stringify({ id: crypto.randomUUID(), status, merchantId: sb.merchant.merchantId, nativeAmount: '64.00',
    nativeCurrency: 'USD', amount: '64.00', currency: 'USD', meta: { offerId }, ...over });
  const w = await gw(g, 'POST', '/v1/webhooks', { raw: webhookBody(text, key) });
  assert.equal(w.status, 200, w.text);
  return offerId;
}
const about = (relay, offerId, to) => relay.mails().filter((m) => m.data.includes(offerId) && (!to || m.to.includes(to)));

describe('mail to the merchant (SQLite)', () => {
  let relay, app, g, dir;
  before(async () => {
    relay = await startRelay();
    app = await startShopApp();
    dir = tempDir('pwm-notify-');
    const db = `sqlite:${dir}/gateway.db`;
    for (const name of ['ada', 'grace', 'linus']) assert.equal(consoleUser(db, ['add', name], PASSWORD + '\n').status, 0);
    const set = consoleUser(db, ['notify', 'ada', '--email', 'ada@shop.example', '--on', 'paid,partial']);
    assert.equal(set.status, 0, set.stderr);
    assert.equal(consoleUser(db, ['notify', 'grace', '--email', 'grace@shop.example', '--on', 'refused']).status, 0);
    assert.equal(consoleUser(db, ['notify', 'linus', '--email', 'linus@shop.example', '--on', 'paid,bogus']).status, 2,
      'an unknown kind is refused');
    assert.match(consoleUser(db, ['list']).stdout, /ada\t.*\n\tmailed at ada@shop\.example: paid,partial/);
    g = await startGateway(sb, { dir, db, appCallback: app.url, extra: relay.args });
  });
  after(async () => { await g?.stop(); await app?.close(); await relay?.stop(); });

  test('a verified payment: the users who chose "paid" get one mail, through STARTTLS and AUTH', async () => {
    const offerId = await paidSession(g);
    await waitFor(() => about(relay, offerId).length > 0, 20000, 'the mail');
    const [mail] = about(relay, offerId);
    assert.deepEqual(mail.to, ['ada@shop.example']);
    assert.equal(mail.from, 'paywasm@shop.example');
    assert.match(mail.data, /^Subject: Checkout: Payment received \(order mail-/m);
    assert.match(mail.data, /Order total: 64\.00 USD/);
    assert.match(mail.data, /You may ship it\./);
    assert.equal(about(relay, offerId, 'grace@shop.example').length, 0, 'grace chose "refused" only');
  });

  test('part of the amount: "Partly paid" with what arrived and what is missing', async () => {
    const offerId = await paidSession(g, 101, { receivedAmount: '20.00' });
    await waitFor(() => about(relay, offerId).length > 0, 20000, 'the mail');
    const [mail] = about(relay, offerId);
    assert.match(mail.data, /^Subject: Checkout: Partly paid/m);
    assert.match(mail.data, /Arrived: 20\.00 USD/);
    assert.match(mail.data, /Missing: 44\.00 USD/);
    assert.match(mail.data, /Do not ship yet/);
  });

  test('a relay that refuses for a while: the mail waits, then goes once', async () => {
    relay.refuse(true);
    const before = relay.refused();
    const offerId = await paidSession(g);
    await waitFor(() => relay.refused() >= before + 2, 30000, 'two refused attempts');
    assert.equal(about(relay, offerId).length, 0);
    relay.refuse(false);
    await waitFor(() => about(relay, offerId).length > 0, 60000, 'the mail once the relay takes it');
    // A later mail went after it (one worker, oldest due first): the first was recorded as sent.
    const next = await paidSession(g);
    await waitFor(() => about(relay, next).length > 0, 60000, 'the next mail');
    assert.equal(about(relay, offerId).length, 1, 'sent once');
  });

  test('an event the app refused 3 times: the users who chose "refused" are told', async () => {
    app.failing = 3;
    const offerId = await paidSession(g);
    await waitFor(() => about(relay, offerId, 'grace@shop.example').length > 0, 30000, "grace's mail");
    const [mail] = about(relay, offerId, 'grace@shop.example');
    assert.match(mail.data, /^Subject: Checkout: Your app refused an event/m);
    assert.match(mail.data, /checkout\.succeeded 3 times; the last answer: HTTP 500/);
  });
});

test('two instances on one PostgreSQL send each mail once', { timeout: 180000 }, async () => {
  const pg = await startPostgres();
  const relay = await startRelay();
  const gws = [];
  try {
    assert.equal(consoleUser(pg.url, ['add', 'ada'], PASSWORD + '\n').status, 0);
    assert.equal(consoleUser(pg.url, ['notify', 'ada', '--email', 'ada@shop.example']).status, 0);
    for (let i = 0; i < 2; i++) gws.push(await startGateway(sb, { db: pg.url, dir: tempDir('pwm-notify-pg-'), extra: relay.args }));
    const offers = [];
    for (let i = 0; i < 10; i++) offers.push(await paidSession(gws[i % 2]));
    await waitFor(() => offers.every((o) => about(relay, o).length > 0), 60000, 'ten mails');
    const last = await paidSession(gws[0]);
    await waitFor(() => about(relay, last).length > 0, 60000, 'one more');
    for (const o of offers) assert.equal(about(relay, o).length, 1, o);
  } finally {
    for (const g of gws) await g.stop();
    await relay.stop();
    await pg.destroy();
  }
});
