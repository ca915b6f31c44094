// Running the gateway for years (docs/merchant.md, "Retention, backups and secrets"): --retain-days
// prunes what is done with, with a clock moved 40 days on (PAYWASM_CLOCK_OFFSET_MS), on SQLite and
// on a real PostgreSQL; a backup restored into a fresh gateway serves the old sessions; the
// database URL comes from PAYWASM_DB, and a mistyped one is never printed with its password.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

import { sendJson } from '../server/harness.mjs';
import { GATEWAY, METRICS_TOKEN, gw, keyFiles, outboxDrained, sleep, startGateway, startPostgres, startSandbox, startShopApp, tempDir, tmpdir, waitFor, webhookBody,
  webhookPrivateKey } from './harness.mjs';

const DAY = 86400000;
let sb, key;
before(async () => {
  sb = await startSandbox();
  key = webhookPrivateKey(sb);
  await sendJson('PUT', sb.base + '/__sandbox/webhook', { url: 'http://127.0.0.1:9/unused' });
});
after(async () => { await sb?.stop(); });

const ADDRESS = { firstname: 'Grace', lastname: 'Hopperretained', email: 'grace.retained@example.com', country: 'US' };
async function session(g, offerId) {
  const r = await gw(g, 'POST', '/v1/sessions', { app: true, body: { offerId, currency: 'USD', shippingAddress: ADDRESS,
    cart: [{ id: 'x', name: 'X', price: 5, quantity: 1 }] } });
  assert.equal(r.status, 201, r.text);
  return r.json;
}
const hook = (g, offerId, id, status) => gw(g, 'POST', '/v1/webhooks', { raw: webhookBody(JSON.stringify({ id, status,
  merchantId: sb.merchant.merchantId, nativeAmount: '5.00', nativeCurrency: 'USD', amount: '0.0001', currency: 'BTC',
  customer: { email: ADDRESS.email, fullname: 'Grace Hopperretained' }, meta: { offerId } }), key) });

// A shop's month: a paid order, an abandoned one, one whose money is still on its way, and events
// delivered to the app. Then the gateway again, 40 days later, keeping 30 days.
async function monthThenPrune(db, dir, dump) {
  // The console's audit log: an entry of the month (a user added and removed: the name is in the
  // audit log only), and one written 40 days later, younger than the retention.
  const audited = (name, env = {}) => {
    for (const verb of ['add', 'remove']) {
      const r = spawnSync(GATEWAY, ['console-user', verb, name, '--db', db], { input: 'a password long enough\n', encoding: 'utf8',
        env: { ...process.env, ...env } });
      assert.equal(r.status, 0, r.stderr);
    }
  };
  const oldUser = 'audited-' + crypto.randomUUID().slice(0, 8);
  const newUser = 'audited-' + crypto.randomUUID().slice(0, 8);
  audited(oldUser);
  const app = await startShopApp();
  const g = await startGateway(sb, { db, dir, appCallback: app.url, extra: ['--session-ttl', '60'] });
  const paid = await session(g, 'ret-paid-' + crypto.randomUUID());
  const abandoned = await session(g, 'ret-abandoned-' + crypto.randomUUID());
  const inFlight = await session(g, 'ret-pending-' + crypto.randomUUID());
  assert.equal((await hook(g, paid.offerId, crypto.randomUUID(), 1)).json.outcome, 'applied');
  assert.equal((await hook(g, inFlight.offerId, crypto.randomUUID(), 0)).json.outcome, 'applied');
  await waitFor(() => app.events.length >= 2, 5000, 'events delivered');
  await outboxDrained(g);  // marked delivered, so retention may delete them
  await g.stop();
  await app.close();
  assert.ok(dump().includes('Hopperretained'), 'the shopper\'s data is there before');
  assert.ok(dump().includes(oldUser), 'the audit log has the month\'s entries');
  audited(newUser, { PAYWASM_CLOCK_OFFSET_MS: String(40 * DAY) });

  const later = await startGateway(sb, { db, dir, extra: ['--retain-days', '30'],
    env: { PAYWASM_CLOCK_OFFSET_MS: String(40 * DAY) } });
  try {
    await waitFor(() => later.stderr().includes('retention:'), 10000, 'a prune pass');
    const detail = async (s) => gw(later, 'GET', `/v1/sessions/${s.id}`, { app: true });
    assert.equal((await detail(paid)).status, 404, 'a paid session 40 days old is gone');
    assert.equal((await detail(abandoned)).status, 404, 'an abandoned one too');
    assert.equal((await detail(inFlight)).status, 200, 'money still on its way is kept');
    const events = (await gw(later, 'GET', '/v1/events', { app: true })).json;
    assert.ok(events.every((e) => e.state !== 'delivered'), 'delivered outbox rows are gone');
  } finally {
    await later.stop();
  }
  const left = dump();
  assert.ok(!left.includes(paid.offerId) && !left.includes(abandoned.offerId), 'nothing of the pruned sessions is left');
  assert.ok(left.includes(inFlight.offerId));
  assert.ok(!left.includes(oldUser), 'the audit log\'s entries older than the retention are gone');
  assert.ok(left.includes(newUser), 'younger ones are kept');
}

test('SQLite: --retain-days prunes what is done with, 40 days later, and keeps money in flight', async () => {
  const dir = tempDir('pwm-ret-');
  const file = path.join(dir, 'gateway.db');
  await monthThenPrune('sqlite:' + file, dir, () => execFileSync('sqlite3', [file, '.dump'], { encoding: 'utf8' }));
});

test('PostgreSQL: --retain-days the same', { timeout: 120000 }, async () => {
  const pg = await startPostgres();
  try {
    await monthThenPrune(pg.url, tempDir('pwm-retpg-'), () => execFileSync('pg_dump', ['--data-only', pg.url], { encoding: 'utf8' }));
  } finally {
    await pg.destroy();
  }
});

// More expired sessions kept for their money than one batch holds (200): the ones done with after
// them still go, and /metrics says how many are kept (the keep rule is in the query, not a skip).
const metric = async (g, name) => Number((await gw(g, 'GET', '/metrics', { token: METRICS_TOKEN })).text
  .match(new RegExp('^' + name + ' (\\d+)$', 'm'))?.[1] ?? NaN);
async function keptPastOneBatch(db, dir) {
  const g = await startGateway(sb, { db, dir, extra: ['--session-ttl', '60'] });
  const kept = 210;
  for (let i = 0; i < kept; i += 30) {
    await Promise.all(Array.from({ length: Math.min(30, kept - i) }, async () => {
      const s = await session(g, 'ret-kept-' + crypto.randomUUID());
      assert.equal((await hook(g, s.offerId, crypto.randomUUID(), 0)).json.outcome, 'applied');
    }));
  }
  const abandoned = await session(g, 'ret-after-' + crypto.randomUUID());
  await g.stop();
  const later = await startGateway(sb, { db, dir, extra: ['--retain-days', '30'], env: { PAYWASM_CLOCK_OFFSET_MS: String(40 * DAY) } });
  try {
    await waitFor(async () => await metric(later, 'paywasm_retention_passes_total') >= 1, 20000, 'a prune pass');
    assert.equal((await gw(later, 'GET', `/v1/sessions/${abandoned.id}`, { app: true })).status, 404,
      'the abandoned session after 210 kept ones is pruned');
    assert.equal(await metric(later, 'paywasm_retention_kept_sessions'), kept);
  } finally {
    await later.stop();
  }
}

test('SQLite: 210 kept sessions do not stop retention, and the kept ones are counted', { timeout: 120000 }, async () => {
  const dir = tempDir('pwm-retkept-');
  await keptPastOneBatch('sqlite:' + path.join(dir, 'gateway.db'), dir);
});

test('PostgreSQL: 210 kept sessions the same; a session a webhook moves during the pass is not deleted', { timeout: 180000 }, async () => {
  const pg = await startPostgres();
  try {
    await keptPastOneBatch(pg.url, tempDir('pwm-retkeptpg-'));
    // The race: an abandoned session, moved to pending (as a webhook does, in a transaction holding
    // its row) while the prune pass runs; the pass must not delete it after the move committed.
    const dir = tempDir('pwm-retrace-');
    const g = await startGateway(sb, { db: pg.url, dir, extra: ['--session-ttl', '60'] });
    const moved = await session(g, 'ret-race-' + crypto.randomUUID());
    await g.stop();
    const psql = spawn('psql', ['-q', '-v', 'ON_ERROR_STOP=1', '-d', pg.url], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    psql.stdout.on('data', (d) => { out += d; });
    // Marked as the gateway marks its connections (the writer guard, docs/merchant.md).
    psql.stdin.write("SELECT set_config('paywasm.writer_schema', (SELECT max(version)::text FROM paywasm_schema), false);\n");
    psql.stdin.write(`BEGIN; UPDATE sessions SET status = 0, status_at = ${Date.now() + 40 * DAY}, version = version + 1 ` +
      `WHERE id = '${moved.id}'; SELECT 'locked';\n`);
    await waitFor(() => out.includes('locked'), 10000, 'the row held');
    const later = await startGateway(sb, { db: pg.url, dir, extra: ['--retain-days', '30'], env: { PAYWASM_CLOCK_OFFSET_MS: String(40 * DAY) } });
    try {
      const waiting = () => execFileSync('psql', ['-tA', '-d', pg.url, '-c',
        "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"], { encoding: 'utf8' }).trim() !== '0';
      await waitFor(waiting, 20000, 'the prune pass waiting on the held row');
      psql.stdin.end('COMMIT;\n');
      await waitFor(async () => await metric(later, 'paywasm_retention_passes_total') >= 1, 20000, 'the pass finished');
      const got = await gw(later, 'GET', `/v1/sessions/${moved.id}`, { app: true });
      assert.equal(got.status, 200, 'the session moved to pending during the pass is kept');
    } finally {
      await later.stop();
    }
  } finally {
    await pg.destroy();
  }
});

// Money that arrives after --retain-days pruned its session (a late transfer, a refund) reaches the
// shop as its own signed event instead of vanishing as unknown_offer.
test('late money for a pruned session is forwarded as checkout.late_payment', { timeout: 60000 }, async () => {
  const dir = tempDir('pwm-retlate-');
  const db = 'sqlite:' + path.join(dir, 'gateway.db');
  const g = await startGateway(sb, { db, dir, extra: ['--session-ttl', '60'] });
  const s = await session(g, 'ret-late-' + crypto.randomUUID());
  await g.stop();
  const app = await startShopApp({ toleranceS: 41 * 86400 });  // the gateway's clock is 40 days on
  const later = await startGateway(sb, { db, dir, appCallback: app.url, extra: ['--retain-days', '30'],
    env: { PAYWASM_CLOCK_OFFSET_MS: String(40 * DAY) } });
  try {
    await waitFor(async () => await metric(later, 'paywasm_retention_passes_total') >= 1, 20000, 'a prune pass');
    assert.equal((await gw(later, 'GET', `/v1/sessions/${s.id}`, { app: true })).status, 404, 'pruned');
    const txId = crypto.randomUUID();
    assert.equal((await hook(later, s.offerId, txId, 1)).json.outcome, 'unknown_offer');
    assert.equal((await hook(later, 'never-ours-' + crypto.randomUUID(), crypto.randomUUID(), -1)).json.outcome, 'unknown_offer');
    const ev = await waitFor(() => app.events.find((e) => e.body.transactionId === txId), 10000,
      'the late payment event').catch((e) => { throw new Error(`${e.message}; app ${JSON.stringify(app)}; ${later.stderr().slice(-1500)}`); });
    assert.equal(ev.body.type, 'checkout.late_payment');
    assert.equal(ev.body.offerId, s.offerId);
    assert.equal(ev.body.sessionId, null);
    assert.equal(ev.body.status, 1);
    assert.deepEqual(ev.body.paid, { amount: '5.00', currency: 'USD' });
    assert.equal(app.events.length, 1, 'a failed status of an unknown order is not forwarded (no money)');
  } finally {
    await later.stop();
    await app.close();
  }
});

test('a backup restored into a fresh gateway serves the old sessions (SQLite .backup online; pg_dump)', { timeout: 120000 }, async () => {
  // SQLite: the online backup of docs/merchant.md, taken while the gateway runs.
  const dir = tempDir('pwm-bak-');
  const file = path.join(dir, 'gateway.db');
  const g = await startGateway(sb, { db: 'sqlite:' + file, dir });
  const s = await session(g, 'bak-' + crypto.randomUUID());
  assert.equal((await hook(g, s.offerId, crypto.randomUUID(), 1)).json.outcome, 'applied');
  const backup = path.join(dir, 'backup.db');
  execFileSync('sqlite3', [file, `.backup '${backup}'`]);
  await g.stop();
  const restored = await startGateway(sb, { db: 'sqlite:' + backup, dir: tempDir('pwm-bak2-') });
  try {
    const got = (await gw(restored, 'GET', `/v1/sessions/${s.id}`, { app: true })).json;
    assert.equal(got.latestStatus.success, true);
  } finally {
    await restored.stop();
  }
  // PostgreSQL: pg_dump, restored into another database, served by a fresh gateway.
  const pg = await startPostgres();
  try {
    const a = await startGateway(sb, { db: pg.url, dir: tempDir('pwm-bakpg-') });
    const p = await session(a, 'bakpg-' + crypto.randomUUID());
    assert.equal((await hook(a, p.offerId, crypto.randomUUID(), 1)).json.outcome, 'applied');
    const dumpFile = path.join(dir, 'gateway.sql');
    execFileSync('pg_dump', ['--no-owner', '-f', dumpFile, pg.url]);
    await a.stop();
    execFileSync('psql', ['-q', '-d', pg.url, '-c', 'CREATE DATABASE restored']);
    const restoredUrl = pg.url.replace(/\/postgres$/, '/restored');
    execFileSync('psql', ['-q', '-v', 'ON_ERROR_STOP=1', '-d', restoredUrl, '-f', dumpFile], { stdio: ['ignore', 'ignore', 'pipe'] });
    // The URL from the environment, not the command line (the process list shows arguments).
    const b = await startGateway(sb, { db: null, dir: tempDir('pwm-bakpg2-'), env: { PAYWASM_DB: restoredUrl }, noDb: true });
    try {
      assert.ok(!b.args.some((x) => x.includes('postgresql://')), 'no database URL among the arguments');
      const got = (await gw(b, 'GET', `/v1/sessions/${p.id}`, { app: true })).json;
      assert.equal(got.latestStatus.success, true);
    } finally {
      await b.stop();
    }
  } finally {
    await pg.destroy();
  }
});

test('a mistyped database URL is refused without its password', () => {
  const dir = tempDir('pwm-url-');
  const keys = keyFiles(sb, dir);
  const r = spawnSync(GATEWAY, ['--db', 'postgresq://shop:hunter2-secret@db.internal/paywasm', '--service-url', sb.base + '/api',
    '--merchant-id', sb.merchant.merchantId, '--merchant-public-key', keys.merchant, '--webhook-public-key', keys.webhook,
    '--shop-origin', 'http://shop.example'], { encoding: 'utf8',
    env: { ...process.env, PAYWASM_MERCHANT_TOKEN: 't', PAYWASM_APP_SECRET: 'app-secret-0123456789' } });
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /sqlite:PATH or postgresql/);
  assert.ok(!r.stderr.includes('hunter2'), r.stderr);
  assert.match(r.stderr, /shop:\*\*\*@db\.internal/);
});
