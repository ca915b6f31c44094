// Repro (docs/bench.md, "Bugs found"): paywasm-merchant on PostgreSQL dies of SIGSEGV/SIGABRT after
// "paywasm-merchant: stopped" when another instance's NOTIFYs keep arriving during its shutdown:
// Gateway declares `store` before `hub`, so ~Gateway destroys the StatusHub while the store's LISTEN
// thread can still call hub.notify(). Not in ctest (it fails until that is fixed).
//   PAYWASM_SANDBOX=... PAYWASM_CLI=... PAYWASM_MERCHANT=... node tests/gateway/regressions/pg-shutdown-crash.mjs [stops]
// Prints each stop's exit; exits 1 when any stop crashed.
import crypto from 'node:crypto';

import {
  gw, sleep, startGateway, startPostgres, startSandbox, tmpdir, webhookBody, webhookPrivateKey,
} from '../../gateway/harness.mjs';

const stops = Number(process.argv[2] || 12);
const pg = await startPostgres();
const sb = await startSandbox();
const key = webhookPrivateKey(sb);
const b = await startGateway(sb, { db: pg.url, dir: tmpdir('pwm-repro-b-') });
let stop = false;
// Instance B: a session and a verified webhook after another (each NOTIFYs every instance).
const busy = (async () => {
  const cart = [{ id: 'x', name: 'X', price: 5, quantity: 1 }];
  const shippingAddress = { firstname: 'A', lastname: 'B', email: 'a@b.example', country: 'US' };
  while (!stop) {
    const offerId = 'repro-' + crypto.randomUUID();
    await gw(b, 'POST', '/v1/sessions', { app: true, body: { offerId, currency: 'USD', cart, shippingAddress } }).catch(() => {});
    const text = JSON.stringify({ id: crypto.randomUUID(), status: 0, nativeAmount: '5.00', nativeCurrency: 'USD', meta: { offerId } });
    await gw(b, 'POST', '/v1/webhooks', { raw: webhookBody(text, key) }).catch(() => {});
  }
})();
const exits = [];
for (let i = 0; i < stops; i++) {
  const a = await startGateway(sb, { db: pg.url, dir: tmpdir('pwm-repro-a-') });
  await sleep(300 + Math.random() * 300);
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
