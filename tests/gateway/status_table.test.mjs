// One status table, read four ways, must agree for every code × method (paywasm/status.hpp):
//   the native core        `paywasm status-table` (the CLI)
//   the shipped wasm       describeStatus {code, method} in paywasm.wasm and paywasm-nosimd.wasm
//   the gateway's decision the status JSON of a session after a verified webhook of that code
//   the widget's display   tests/browser/money.test.mjs (widget.money) checks it against the same CLI table
//   node status_table.test.mjs <widget dist dir>   (PAYWASM_CLI, PAYWASM_SANDBOX, PAYWASM_MERCHANT set)
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';

import { loadWasmModule } from '../support/wasm_module.mjs';
import { SHOP_ORIGIN, gw, startGateway, startSandbox, webhookBody, webhookPrivateKey } from './harness.mjs';

const dist = process.argv[2];
if (!dist) throw new Error('usage: node status_table.test.mjs <widget dist dir>');
const TABLE = JSON.parse(execFileSync(process.env.PAYWASM_CLI, ['status-table'], { encoding: 'utf8' }));
const FIELDS = ['kind', 'final', 'success', 'taken', 'tone', 'next', 'label'];
const pick = (o) => Object.fromEntries(FIELDS.map((f) => [f, o[f]]));

test('the table covers every method and code, with a next step for each', () => {
  const methods = [...new Set(TABLE.map((r) => r.method))].sort();
  assert.deepEqual(methods, ['bank', 'exchange', 'qr']);
  for (const m of methods) assert.ok(TABLE.filter((r) => r.method === m).length >= 15, m);
  for (const r of TABLE) {
    assert.ok(['none', 'maybe', 'some', 'all'].includes(r.taken), JSON.stringify(r));
    if (r.success) assert.ok(r.final && r.taken === 'all', JSON.stringify(r));
  }
});

for (const file of ['paywasm.wasm', 'paywasm-nosimd.wasm']) {
  test(`${file} reads the table as the native core does`, async () => {
    const wasm = await loadWasmModule(dist, file);
    for (const row of TABLE) {
      const got = wasm.call('describeStatus', { code: row.code, method: row.method });
      assert.equal(got.ok, true, JSON.stringify(got));
      assert.deepEqual(pick(got.value), pick(row), `${row.method} ${row.code}`);
    }
  });
}

let sb, g, key;
before(async () => {
  sb = await startSandbox();
  key = webhookPrivateKey(sb);
  g = await startGateway(sb);
});
after(async () => {
  await g?.stop();
  await sb?.stop();
});

test("the gateway's status after each code says what the table says", { timeout: 120000 }, async () => {
  const mismatches = [];
  for (const row of TABLE) {
    const offerId = `table-${row.method}-${row.code}-${crypto.randomUUID().slice(0, 8)}`;
    const s = (await gw(g, 'POST', '/v1/sessions', { app: true, body: { offerId, currency: 'USD', methods: [row.method],
      cart: [{ id: 'x', name: 'X', price: 5, quantity: 1 }], customerInfo: { name: 'Ada', email: 'ada@example.com' } } })).json;
    let id = crypto.randomUUID();
    let order = offerId;
    if (row.method === 'qr') {
      const qr = (await gw(g, 'POST', `/v1/checkout/${s.id}/qr`, { origin: SHOP_ORIGIN, body: {} })).json.result;
      [id, order] = [qr.id, qr.meta.offerId];
    }
    const text = JSON.stringify({ id, status: row.code, merchantId: sb.merchant.merchantId, nativeAmount: '5.00',
      nativeCurrency: 'USD', amount: '0.0001', currency: 'BTC', meta: { offerId: order } });
    const answer = await gw(g, 'POST', '/v1/webhooks', { raw: webhookBody(text, key) });
    assert.equal(answer.json.outcome, 'applied', `${row.method} ${row.code}: ${answer.text}`);
    const st = (await gw(g, 'GET', `/v1/checkout/${s.id}/status`)).json;
    const got = pick(st);
    if (JSON.stringify(got) !== JSON.stringify(pick(row))) mismatches.push({ row: pick(row), gateway: got, method: row.method, code: row.code });
    if (st.method !== row.method) mismatches.push({ method: row.method, code: row.code, gatewayMethod: st.method });
  }
  assert.deepEqual(mismatches, []);
});
