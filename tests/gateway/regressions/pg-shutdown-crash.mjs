// Repro (docs/bench.md, "Bugs found"): paywasm-merchant on PostgreSQL dies of SIGSEGV/SIGABRT after
// "paywasm-merchant: stopped" when another instance's NOTIFYs keep arriving during its shutdown:
// Gateway declares `store` before `hub`, so ~Gateway destroys the StatusHub while the store's LISTEN
// thread can still call hub.notify(). Not in ctest (it fails until that is fixed).
//   PAYWASM_SANDBOX=... PAYWASM_CLI=... PAYWASM_MERCHANT=... node tests/gateway/regressions/pg-shutdown-crash.mjs [stops]
// Prints each stop's exit; exits 1 when any stop crashed.
import {
  sessionThenWebhook, sleep, startGateway, startPostgres, startSandbox, tempDir, waitFor, webhookPrivateKey,
} from '../../gateway/harness.mjs';

const stops = Number(process.argv[2] || 12);
const pg = await startPostgres();
const sb = await startSandbox();
const key = webhookPrivateKey(sb);
const b = await startGateway(sb, { db: pg.url, dir: tempDir('pwm-repro-b-') });
let stop = false;
let notified = 0;  // B's webhooks so far: each NOTIFYs every instance
// Instance B: a session and a verified webhook after another (each NOTIFYs every instance).
const busy = (async () => {
  while (!stop) {
    await sessionThenWebhook(b, key);
    notified++;
  }
})();
const exits = [];
for (let i = 0; i < stops; i++) {
  const a = await startGateway(sb, { db: pg.url, dir: tempDir('pwm-repro-a-') });
  // A listens, and B's NOTIFYs reach it: two more of B's webhooks after A's start; then the
  // SIGTERM lands at a random point (up to 200 ms) of that traffic.
  const seen = notified;
  await waitFor(() => notified >= seen + 2, 60000, "B's webhooks while A listens");
  await sleep(Math.random() * 200);
  const exit = await a.stop('SIGTERM');
  exits.push(exit.signal || `exit ${exit.code}`);
  if (exit.signal) console.log(`stop ${i + 1}: ${exit.signal}; stderr ends ${JSON.stringify(a.stderr().slice(-200))}`);
}
stop = true;
await busy;
await b.stop();
await sb.stop();
await pg.destroy();
const crashed = exits.filter((e) => !e.startsWith('exit 0')).length;
console.log(`${exits.join(' ')}\n${crashed} of ${stops} stops crashed`);
process.exit(crashed ? 1 : 0);
