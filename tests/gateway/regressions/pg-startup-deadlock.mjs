// Repro (docs/bench.md, "Bugs found"): a paywasm-merchant instance starting on a PostgreSQL database
// that another instance is writing to can fail with "deadlock detected": Store::Store runs the schema
// script on every start, and CREATE INDEX IF NOT EXISTS takes a ShareLock on outbox, then on
// transactions, against the other instance's webhook transactions (transactions, then outbox). The
// other side of the same deadlock: that instance answers a webhook HTTP 500. Not in ctest.
//   PAYWASM_SANDBOX=... PAYWASM_CLI=... PAYWASM_MERCHANT=... node tests/gateway/regressions/pg-startup-deadlock.mjs [starts] [clients]
// Exits 1 when a start failed with a deadlock or a webhook got a 500.
import {
  sessionThenWebhook, sleep, startGateway, startPostgres, startSandbox, startShopApp, tempDir, tmpdir, waitFor, webhookPrivateKey,
} from '../../gateway/harness.mjs';

const starts = Number(process.argv[2] || 30);
const clients = Number(process.argv[3] || 32);
const pg = await startPostgres();
const sb = await startSandbox();
const app = await startShopApp();
const key = webhookPrivateKey(sb);
const b = await startGateway(sb, { db: pg.url, dir: tempDir('pwm-repro-b-'), appCallback: app.url });
let stop = false;
const refused = [];
let written = 0;
// `clients` loops on instance B: a session, then its webhook (webhook_events, transactions,
// sessions, outbox in one transaction).
const busy = Promise.all(Array.from({ length: clients }, async () => {
  while (!stop) {
    const r = await sessionThenWebhook(b, key);
    if (r && r.status >= 500) refused.push(`${r.status} ${r.text.slice(0, 120)}`);
    written++;
  }
}));
// Every client has written once: instance B is busy before A starts beside it.
await waitFor(() => written >= clients, 30000, 'the busy clients');
const results = [];
for (let i = 0; i < starts; i++) {
  try {
    const a = await startGateway(sb, { db: pg.url, dir: tempDir('pwm-repro-a-'), appCallback: app.url });
    results.push('started');
    await a.stop('SIGTERM');  // right after "listening": gateway.regression.sigterm-after-start proves it is not lost
  } catch (e) {
    results.push(/deadlock detected/.test(e.message) ? 'DEADLOCK' : 'failed');
    if (results.at(-1) === 'DEADLOCK' && !results.slice(0, -1).includes('DEADLOCK')) console.log(e.message);
  }
}
stop = true;
await busy;
await b.stop();
await sb.stop();
await app.close();
await pg.destroy();
const deadlocks = results.filter((r) => r === 'DEADLOCK').length;
console.log(results.join(' '));
console.log(`${deadlocks} of ${starts} starts failed with a deadlock; instance B answered ${refused.length} webhooks with 5xx` +
  (refused.length ? ` (${refused[0]})` : ''));
process.exit(deadlocks || refused.length ? 1 : 0);
