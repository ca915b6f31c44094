// Upgrading from the last release: databases written by paywasm 0.2.0's own gateway
// (tests/gateway/fixtures, made by fixtures/make-0.2.0.mjs) taken through this gateway's schema
// migrations, on SQLite and on a real PostgreSQL with two instances starting at once. Sessions in
// mid-payment survive: a pending payment and a waiting QR code (0.2.0 gave its first code the
// offerId as orderId) are paid after the upgrade; a paid one stays paid. A database newer than the
// binary is refused at start, and the writer guard refuses what 0.2.0's binary (which checks no
// version) or an instance not yet upgraded would write: 0.2.0's own statements, run against the
// upgraded database, change nothing.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { gw, startGateway, startPostgres, startSandbox, tempDir, webhookBody, webhookPrivateKey } from './harness.mjs';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');
const SCHEMA_VERSION = 12;  // src/merchant/store/schema.cpp kSchemaVersion

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
  // The same order again: the fixture's open session expired an hour after 0.2.0 wrote it (always
  // in the past by the time this runs), so it is answered as expired, naming the session; a new
  // offerId works.
  const order = (offerId) => gw(g, 'POST', '/v1/sessions', { app: true, body: { offerId, currency: 'USD',
    cart: [{ id: 'sku-tea', name: 'Tea', price: 12.5, quantity: 2 }],
    shippingAddress: { firstname: 'Ada', lastname: 'Lovelace', email: 'ada@example.com', country: 'GB' },
    customerInfo: { name: 'Ada Lovelace', email: 'ada@example.com' } } });
  const again = await order('upgrade-open');
  assert.equal(again.status, 409, again.text);
  assert.equal(again.json.error, 'offer_expired');
  assert.equal((await detail('upgrade-open')).status, 'expired', 'the app API says expired');
  const fresh = await order('upgrade-new-' + gateways.length);
  assert.equal(fresh.status, 201, fresh.text);
  // The overview's tally (schema 12) was filled from 0.2.0's sessions and kept since: one order
  // counted per session, the paid ones paid (test_order_sql.cpp checks every column of it).
  assert.deepEqual(query('SELECT sum(n) FROM overview_kinds'), query('SELECT count(*) FROM sessions'));
  assert.deepEqual(query('SELECT sum(n) FROM overview_kinds WHERE success = 1'), query('SELECT count(*) FROM sessions WHERE success = 1'));
}

// The writes of 0.2.0's gateway, statement for statement (its store.cpp in src/merchant at d714b9b: a
// new session; a webhook's event, transaction, session update and forwarded event; a QR code's
// removal), with values. Each touches rows (a SQLite row trigger fires only on a row).
const OLD_WRITES = [
  "INSERT INTO sessions (id, offer_id, checkout, checkout_hash, amount, currency, methods, created_at, expires_at) "
    + "VALUES ('old-binary-session', 'old-binary', '{}', 'h', '1.00', 'USD', 'exchange', 0, 9999999999999) "
    + 'ON CONFLICT (offer_id) DO NOTHING',
  'INSERT INTO webhook_events (id, received_at, transaction_id, offer_id, status, session_id, outcome, body) '
    + "VALUES ('evt_old', 0, 'tx-old', 'upgrade-open', 1, NULL, 'applied', '{}') ON CONFLICT (id) DO NOTHING",
  'INSERT INTO transactions (id, session_id, offer_id, status, state, native_amount, native_currency, received_amount, '
    + "body, updated_at) VALUES ('tx-old', NULL, 'upgrade-open', 1, 'success', '25.00', 'USD', NULL, '{}', 0) "
    + 'ON CONFLICT (id) DO UPDATE SET status = excluded.status',
  "UPDATE sessions SET status = 1, state = 'success', final = 1, success = 1, transaction_id = 'tx-old', "
    + "received_amount = NULL, status_at = 0, version = version + 1 WHERE offer_id = 'upgrade-open'",
  "INSERT INTO outbox (id, created_at, body, state, next_attempt_at) VALUES ('evt_old', 0, '{}', 'pending', 0) "
    + 'ON CONFLICT (id) DO NOTHING',
  'DELETE FROM qr_codes',
];

// Each old write fails with `refusal` (the command's stderr) and the database is as it was.
function oldWritesRefused(run, query, refusal) {
  const snapshot = () => ['sessions', 'transactions', 'webhook_events', 'outbox', 'qr_codes']
    .map((t) => query(`SELECT * FROM ${t} ORDER BY 1`));
  const before = snapshot();
  for (const sql of OLD_WRITES) {
    let err;
    try { run(sql); } catch (e) { err = e; }
    assert.ok(err, `0.2.0's write went through the guard: ${sql}`);
    assert.match(String(err.stderr), refusal, sql);
  }
  assert.deepEqual(snapshot(), before, 'an old write changed the database');
}

test('SQLite: a 0.2.0 database is migrated at start and its sessions in mid-payment complete', async () => {
  const dir = tempDir('pwm-up-');
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
  // 0.2.0's writes, on a connection like its own (no writer mark): refused, nothing changed.
  const plain = (sql) => execFileSync('sqlite3', [file, sql], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  oldWritesRefused(plain, query, /no such function: paywasm_writer_schema/);
  // A connection marked as a writer of an older schema (a not-yet-upgraded instance): the same,
  // with the guard's own words. Python's sqlite3 defines the function as the gateway does.
  const marked = (version) => (sql) => execFileSync('python3', ['-c', 'import sqlite3, sys\n'
    + 'db = sqlite3.connect(sys.argv[1])\n'
    + 'db.create_function("paywasm_writer_schema", 0, lambda: int(sys.argv[2]), deterministic=True)\n'
    + 'try:\n  db.execute(sys.argv[3]); db.commit()\n'
    + 'except sqlite3.Error as e:\n  sys.exit(str(e))\n', file, String(version), sql],
  { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  oldWritesRefused(marked(SCHEMA_VERSION - 1), query,
    new RegExp(`this database is at schema ${SCHEMA_VERSION}; it refuses writes from an older paywasm-merchant`));
  // A database of a newer release (written by its marked connection) is refused at start, naming why.
  marked(SCHEMA_VERSION + 1)(`INSERT INTO paywasm_schema (version, applied_at) VALUES (${SCHEMA_VERSION + 1}, 0)`);
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
      startGateway(sb, { db: pg.url, dir: tempDir('pwm-upa-') }), startGateway(sb, { db: pg.url, dir: tempDir('pwm-upb-') }),
    ]);
    try {
      await checkUpgraded([a, b], query);
    } finally {
      await a.stop();
      await b.stop();
    }
    // 0.2.0's writes (no writer mark), then a not-yet-upgraded instance's (an older mark): refused.
    const psql = (...pre) => (sql) => execFileSync('psql', ['-q', '-v', 'ON_ERROR_STOP=1', '-d', pg.url,
      ...pre.flatMap((p) => ['-c', p]), '-c', sql], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const guardWords = new RegExp(`this database is at schema ${SCHEMA_VERSION}; it refuses writes from an older`);
    oldWritesRefused(psql(), query, guardWords);
    oldWritesRefused(psql(`SET paywasm.writer_schema = '${SCHEMA_VERSION - 1}'`), query, guardWords);
    assert.throws(() => psql()('TRUNCATE outbox'), (e) => guardWords.test(String(e.stderr)));
    // A database of a newer release (written by its marked connection) is refused at start.
    psql(`SET paywasm.writer_schema = '${SCHEMA_VERSION + 1}'`)(
      `INSERT INTO paywasm_schema (version, applied_at) VALUES (${SCHEMA_VERSION + 1}, 0)`);
    await assert.rejects(startGateway(sb, { db: pg.url, dir: tempDir('pwm-upc-') }), /newer than this paywasm-merchant/);
  } finally {
    await pg.destroy();
  }
});
