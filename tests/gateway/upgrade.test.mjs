// Upgrading from the last release: databases written by paywasm 0.2.0's own gateway
// (tests/gateway/fixtures, made by fixtures/make-0.2.0.mjs) taken through this gateway's schema
// migrations, on SQLite and on a real PostgreSQL with two instances starting at once. Sessions in
// mid-payment survive: a pending payment and a waiting QR code (0.2.0 gave its first code the
// offerId as orderId) are paid after the upgrade; a paid one stays paid. A database newer than the
// binary is refused.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { gw, startGateway, startPostgres, startSandbox, tmpdir, webhookBody, webhookPrivateKey } from './harness.mjs';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');
const SCHEMA_VERSION = 3;  // src/merchant/store.cpp kSchemaVersion

let sb, key;
before(async () => {
  sb = await startSandbox();
  key = webhookPrivateKey(sb);
});
after(async () => { await sb?.stop(); });

// `query(sql)` → rows as arrays of text, through the database's own CLI (sqlite3, psql).
async function checkUpgraded(gateways, query) {
  const [g] = gateways;
  const versions = query('SELECT version FROM paywasm_schema');
  assert.deepEqual(versions, [[String(SCHEMA_VERSION)]], 'migrated once, to this version');
  const sessions = Object.fromEntries(query('SELECT offer_id, id FROM sessions'));
  assert.deepEqual(Object.keys(sessions).sort(), ['upgrade-open', 'upgrade-paid', 'upgrade-pending', 'upgrade-qr']);
  const detail = async (offerId) => (await gw(g, 'GET', `/v1/sessions/${sessions[offerId]}`, { app: true })).json;

  const paid = await detail('upgrade-paid');
  assert.equal(paid.latestStatus.success, true, 'paid before the upgrade, paid after');
  assert.deepEqual(paid.latestStatus.orderTotal, { amount: '25.00', currency: 'USD' });

  const hook = (g, id, status, offerId) => gw(g, 'POST', '/v1/webhooks', { raw: webhookBody(JSON.stringify({ id, status,
    merchantId: sb.merchant.merchantId, nativeAmount: '25.00', nativeCurrency: 'USD', amount: '0.0004', currency: 'BTC',
    meta: { offerId } }), key) });
  // The pending exchange payment's success arrives after the upgrade, on either instance.
  const done = await hook(gateways.at(-1), 'aaaaaaaa-0000-4000-8000-000000000002', 1, 'upgrade-pending');
  assert.equal(done.json.outcome, 'applied', done.text);
  assert.equal((await detail('upgrade-pending')).latestStatus.success, true);
  // The waiting QR code, under 0.2.0's orderId (the offerId), is still the session's.
  const [[qrTx]] = query("SELECT transaction_id FROM qr_codes WHERE order_id = 'upgrade-qr'");
  const late = await hook(g, qrTx, 1, 'upgrade-qr');
  assert.equal(late.json.outcome, 'applied', late.text);
  const qr = (await detail('upgrade-qr')).latestStatus;
  assert.equal(qr.success, true);
  assert.equal(qr.method, 'qr');
  // A late "pending" of the paid one changes nothing.
  assert.equal((await hook(g, 'aaaaaaaa-0000-4000-8000-000000000001', 0, 'upgrade-paid')).json.outcome, 'stale');
  // The same order again is the same session; a new one works.
  const again = await gw(g, 'POST', '/v1/sessions', { app: true, body: { offerId: 'upgrade-open', currency: 'USD',
    cart: [{ id: 'sku-tea', name: 'Tea', price: 12.5, quantity: 2 }],
    shippingAddress: { firstname: 'Ada', lastname: 'Lovelace', email: 'ada@example.com', country: 'GB' },
    customerInfo: { name: 'Ada Lovelace', email: 'ada@example.com' } } });
  assert.equal(again.status, 200, again.text);
  assert.equal(again.json.id, sessions['upgrade-open']);
}

test('SQLite: a 0.2.0 database is migrated at start and its sessions in mid-payment complete', async () => {
  const dir = tmpdir('pwm-up-');
  const file = path.join(dir, 'gateway.db');
  fs.copyFileSync(path.join(FIXTURES, 'gateway-0.2.0.sqlite'), file);
  const query = (sql) => execFileSync('sqlite3', ['-separator', '\t', file, sql], { encoding: 'utf8' })
    .split('\n').filter(Boolean).map((l) => l.split('\t'));
  const g = await startGateway(sb, { db: 'sqlite:' + file, dir });
  try {
    await checkUpgraded([g], query);
  } finally {
    await g.stop();
  }
  // Restarted: nothing to migrate, nothing applied twice.
  const again = await startGateway(sb, { db: 'sqlite:' + file, dir });
  await again.stop();
  assert.deepEqual(query('SELECT version FROM paywasm_schema'), [[String(SCHEMA_VERSION)]]);
  // A database of a newer release is refused, naming why.
  query(`INSERT INTO paywasm_schema (version, applied_at) VALUES (${SCHEMA_VERSION + 1}, 0)`);
  await assert.rejects(startGateway(sb, { db: 'sqlite:' + file, dir }), /newer than this paywasm-merchant/);
});

test('PostgreSQL: a 0.2.0 dump, two instances starting at once: migrated once, both serve it', { timeout: 120000 }, async () => {
  const pg = await startPostgres();
  try {
    execFileSync('psql', ['-q', '-v', 'ON_ERROR_STOP=1', '-d', pg.url, '-f', path.join(FIXTURES, 'gateway-0.2.0.pg.sql')],
      { stdio: ['ignore', 'ignore', 'pipe'] });
    const query = (sql) => execFileSync('psql', ['-At', '-F', '\t', '-d', pg.url, '-c', sql], { encoding: 'utf8' })
      .split('\n').filter(Boolean).map((l) => l.split('\t'));
    const [a, b] = await Promise.all([
      startGateway(sb, { db: pg.url, dir: tmpdir('pwm-upa-') }), startGateway(sb, { db: pg.url, dir: tmpdir('pwm-upb-') }),
    ]);
    try {
      await checkUpgraded([a, b], query);
    } finally {
      await a.stop();
      await b.stop();
    }
    query(`INSERT INTO paywasm_schema (version, applied_at) VALUES (${SCHEMA_VERSION + 1}, 0)`);
    await assert.rejects(startGateway(sb, { db: pg.url, dir: tmpdir('pwm-upc-') }), /newer than this paywasm-merchant/);
  } finally {
    await pg.destroy();
  }
});
