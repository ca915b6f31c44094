// Model-based test of the gateway's money decisions: random webhook scripts for many sessions
// (duplicates, reorderings, late statuses, replaced QR codes, wrong amounts, other merchants'
// transactions), run against the real gateway — one instance on SQLite, and two instances sharing
// a real PostgreSQL with each webhook sent to either — and compared with a reference model written
// here from docs/merchant.md's rules (not from the C++): every webhook's answer, every session's
// final status, every stored transaction and the multiset of forwarded events must agree.
//
// Sessions run concurrently (their webhooks interleave on the instances); within a session the
// script's order is kept, so the model knows the order the gateway saw.
//   PAYWASM_MODEL_SEED=<n>       the first seed (default: random, printed)
//   PAYWASM_MODEL_SESSIONS=<n>   sessions per run (default 24); `make model-check` runs 400
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';

import { sendJson } from '../server/harness.mjs';
import {
  SHOP_ORIGIN, gw, sse, startGateway, startPostgres, startSandbox, startShopApp, tmpdir, waitFor, webhookBody,
  webhookPrivateKey,
} from './harness.mjs';

const SEED = Number(process.env.PAYWASM_MODEL_SEED || crypto.randomInt(1, 2 ** 31));
const SESSIONS = Number(process.env.PAYWASM_MODEL_SESSIONS || 24);
const ADDRESS = { firstname: 'Ada', lastname: 'Lovelace', email: 'ada@example.com', country: 'GB' };
console.log(`model: seed ${SEED}, ${SESSIONS} sessions (repeat with PAYWASM_MODEL_SEED=${SEED})`);

// ---- the reference model ---------------------------------------------------------------------------

// What each status code means, from the service's documented table (docs/service-api.md).
function row(code) {
  if (code === 10) return { kind: 'awaiting_payment', final: false, success: false, taken: 'none' };
  if (code === 0) return { kind: 'pending', final: false, success: false, taken: 'all' };
  if (code >= 1 && code <= 4) return { kind: 'success', final: true, success: true, taken: 'all' };
  if (code === -1) return { kind: 'failed', final: true, success: false, taken: 'none' };
  if (code === 101) return { kind: 'partial', final: false, success: false, taken: 'some' };
  if (code === 1011) return { kind: 'partial_closed', final: true, success: false, taken: 'some' };
  if (code === 19) return { kind: 'timed_out', final: true, success: false, taken: 'none' };
  if (code >= 20 && code <= 23) return { kind: 'refund', final: false, success: false, taken: 'maybe' };
  return { kind: 'unknown', final: false, success: false, taken: 'maybe' };
}
const nonzero = (x) => x != null && /[1-9]/.test(x);
const money = (h) => row(h.status).taken !== 'none' || nonzero(h.received);
const paid = (h) => !h.mismatch && row(h.status).success;
// A refund comes after everything else of a transaction, a success included.
const rank = (s) => (row(s).kind === 'refund' ? 3 : row(s).final ? 2 : s === 10 ? 0 : 1);
function supersedes(held, next) {
  if (paid(held)) return held.id === next.id && rank(next.status) === 3;
  if (held.status === next.status && held.mismatch === next.mismatch && held.received === next.received) return false;
  if (rank(next.status) < rank(held.status)) return row(held.status).final && !money(held) && money(next);
  return true;
}
function eventType(status, mismatch) {
  if (mismatch) return 'checkout.amount_mismatch';
  const k = row(status).kind;
  if (k === 'success') return 'checkout.succeeded';
  if (['failed', 'canceled', 'timed_out'].includes(k)) return 'checkout.failed';
  if (['partial', 'partial_closed'].includes(k)) return 'checkout.partially_paid';
  if (['pending', 'processing'].includes(k)) return 'checkout.pending';
  if (k === 'awaiting_payment') return 'checkout.awaiting_payment';
  if (k === 'refund') return 'checkout.refunded';
  return 'checkout.status_unknown';
}

// One session as the model sees it.
class ModelSession {
  constructor(offerId, methods) {
    Object.assign(this, { offerId, methods, codes: [], current: null, txs: new Map(), events: [], seen: new Set() });
  }

  // The outcome the gateway must answer for a webhook of transaction `tx` (and what it changes).
  webhook(tx, body, merchantId) {
    if (tx.merchantId !== merchantId) return 'foreign_merchant';
    if (this.seen.has(body)) return 'duplicate';
    const code = this.codes.find((c) => c.orderId === tx.meta.offerId);
    if (code) {
      if (code.txId && code.txId !== tx.id) { this.seen.add(body); return 'unknown_transaction'; }
    } else if (!(tx.meta.offerId === this.offerId && this.methods.some((m) => m !== 'qr'))) {
      this.seen.add(body);
      return 'unknown_transaction';
    }
    this.seen.add(body);
    const mismatch = tx.nativeAmount !== '5.00';
    const next = { status: tx.status, id: tx.id, mismatch, received: tx.receivedAmount ?? null };
    const stored = this.txs.get(tx.id);
    if (!stored || supersedes(stored, next)) this.txs.set(tx.id, next);
    let moves;
    if (code && code.replaced && !money(next)) moves = false;
    else if (!this.current) moves = true;
    else if (this.current.id === tx.id) moves = supersedes(this.current, next);
    else moves = !paid(this.current) && !(money(this.current) && !money(next));
    if (moves) {
      this.current = next;
      this.events.push(`${eventType(tx.status, mismatch)}:${tx.id}:${tx.status}`);
    }
    return mismatch ? 'amount_mismatch' : moves ? 'applied' : 'stale';
  }

  // A new QR code in place of code `txId`: only when that code is the session's status, final, with
  // no money and no mismatch; then the session's status starts again.
  renews(txId) {
    const c = this.current;
    return !!c && c.id === txId && !c.mismatch && row(c.status).final && !money(c);
  }
}

// ---- scripts ------------------------------------------------------------------------------------------

function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const STATUSES = [10, 0, 0, 1, 2, -1, 101, 1011, 19, 19, 20, 22, 7];

// ---- the run -------------------------------------------------------------------------------------------

async function runModel(instances, sb, app, seed) {
  const rand = rng(seed);
  const pick = (list) => list[Math.floor(rand() * list.length)];
  const key = webhookPrivateKey(sb);
  const merchantId = sb.merchant.merchantId;
  const failures = [];
  const gwOf = () => pick(instances);

  async function oneSession(n) {
    const methods = pick([['exchange', 'qr'], ['qr'], ['exchange']]);
    const offerId = `model-${seed}-${n}-${crypto.randomUUID().slice(0, 8)}`;
    const created = await gw(gwOf(), 'POST', '/v1/sessions', { app: true, body: { offerId, currency: 'USD', methods,
      cart: [{ id: 'x', name: 'X', price: 5, quantity: 1 }], customerInfo: { name: 'Ada', email: 'ada@example.com' },
      shippingAddress: ADDRESS } });
    assert.equal(created.status, 201, created.text);
    const s = created.json;
    const m = new ModelSession(offerId, methods);
    const streamed = [];
    const stream = sse(`${gwOf().base}/v1/checkout/${s.id}/status`, { timeoutMs: 600000, onEvent: (e) => streamed.push(e) });
    stream.done.catch(() => {});  // ends when the gateway stops
    await stream.opened;
    const exchangeTxs = [crypto.randomUUID(), crypto.randomUUID()];
    const sent = [];
    let qrTx = null;
    if (methods.includes('qr')) {
      const r = await gw(gwOf(), 'POST', `/v1/checkout/${s.id}/qr`, { origin: SHOP_ORIGIN, body: {} });
      assert.equal(r.status, 200, r.text);
      qrTx = r.json.result.id;
      m.codes.push({ orderId: r.json.result.meta.offerId, txId: qrTx, replaced: false });
    }
    const steps = 4 + Math.floor(rand() * 8);
    for (let i = 0; i < steps; i++) {
      const r = rand();
      if (r < 0.1 && sent.length) {
        // The same signed delivery again.
        const again = pick(sent);
        const answer = await gw(gwOf(), 'POST', '/v1/webhooks', { raw: again.body });
        const want = m.webhook(again.tx, again.body, merchantId);
        check(answer, want, again.tx, 'resent');
        continue;
      }
      if (r < 0.2 && qrTx) {
        // The shopper asks for a new code in place of the current one.
        const renew = m.renews(qrTx);
        const answer = await gw(gwOf(), 'POST', `/v1/checkout/${s.id}/qr`, { origin: SHOP_ORIGIN, body: { replaces: qrTx } });
        if (answer.status !== 200) { failures.push(`${offerId}: new code answered ${answer.status} ${answer.text}`); continue; }
        const id = answer.json.result.id;
        if (renew !== (id !== qrTx)) failures.push(`${offerId}: model says renew=${renew}, gateway ${id !== qrTx ? 'renewed' : 'kept'} the code`);
        if (id !== qrTx) {
          m.codes.forEach((c) => { c.replaced = true; });
          m.codes.push({ orderId: answer.json.result.meta.offerId, txId: id, replaced: false });
          m.current = null;
          qrTx = id;
        }
        continue;
      }
      // A fresh webhook: which transaction, which status, which amounts, which merchant.
      let txId;
      let orderId;
      const kind = rand();
      if (qrTx && (kind < 0.5 || !methods.includes('exchange'))) {
        const code = pick(m.codes);
        orderId = code.orderId;
        txId = rand() < 0.06 ? crypto.randomUUID() : code.txId;  // a transaction the gateway did not create
      } else {
        orderId = offerId;
        txId = pick(exchangeTxs);
      }
      const status = pick(STATUSES);
      const tx = {
        id: txId, status, merchantId: rand() < 0.08 ? (rand() < 0.5 ? crypto.randomUUID() : undefined) : merchantId,
        nativeAmount: rand() < 0.08 ? '4.00' : '5.00', nativeCurrency: 'USD', amount: '0.00012', currency: 'BTC',
        receivedAmount: status === 101 ? '0.00005' : status === 19 && rand() < 0.3 ? '0.00001' : null,
        meta: { offerId: orderId },
      };
      const text = JSON.stringify(tx);
      const body = webhookBody(text, key);
      sent.push({ tx, body });
      const answer = await gw(gwOf(), 'POST', '/v1/webhooks', { raw: body });
      check(answer, m.webhook(tx, body, merchantId), tx, 'fresh');
    }
    // The stored session against the model.
    const detail = (await gw(gwOf(), 'GET', `/v1/sessions/${s.id}`, { app: true })).json;
    const want = m.current;
    const got = detail.latestStatus;
    const same = want
      ? got.status === want.status && got.transactionId === want.id && got.success === paid(want) &&
        (got.state === 'amount_mismatch') === want.mismatch
      : got.status === null;
    if (!same) failures.push(`${offerId}: session ${JSON.stringify(got)} but the model says ${JSON.stringify(want)}`);
    for (const t of detail.transactions) {
      const w = m.txs.get(t.id);
      if (!w || w.status !== t.status) failures.push(`${offerId}: transaction ${t.id} stored ${t.status}, model ${w && w.status}`);
    }
    if (detail.transactions.length !== m.txs.size) failures.push(`${offerId}: ${detail.transactions.length} transactions stored, model ${m.txs.size}`);
    return { s, m, streamed };

    function check(answer, want, tx, how) {
      const outcome = answer.status === 403 ? answer.json?.error : answer.json?.outcome;
      if (outcome !== want) {
        failures.push(`${offerId}: ${how} webhook ${JSON.stringify({ id: tx.id, status: tx.status, order: tx.meta.offerId,
          merchant: tx.merchantId === merchantId ? 'ours' : 'other', amount: tx.nativeAmount })} answered ${answer.status} ${outcome}, model ${want}`);
      }
    }
  }

  const results = [];
  for (let i = 0; i < SESSIONS; i += 8) {
    results.push(...await Promise.all(Array.from({ length: Math.min(8, SESSIONS - i) }, (_, k) => oneSession(i + k))));
  }
  // Forwarded events: exactly the model's, each once (two instances forward from one outbox).
  for (const { s, m } of results) {
    const want = [...m.events].sort();
    let got;
    try {
      got = await waitFor(() => {
        const list = app.events.filter((e) => e.body.sessionId === s.id)
          .map((e) => `${e.body.type}:${e.body.transactionId}:${e.body.status}`).sort();
        return list.length >= want.length && list;
      }, 10000, 'forwarded events');
    } catch {
      got = app.events.filter((e) => e.body.sessionId === s.id).map((e) => `${e.body.type}:${e.body.transactionId}:${e.body.status}`).sort();
    }
    if (JSON.stringify(got) !== JSON.stringify(want)) failures.push(`${m.offerId}: forwarded ${JSON.stringify(got)}, model ${JSON.stringify(want)}`);
    // Each forwarded event is for this shop's offerId, never a QR code's orderId.
    for (const e of app.events.filter((x) => x.body.sessionId === s.id)) {
      if (e.body.offerId !== m.offerId) failures.push(`${m.offerId}: an event names ${e.body.offerId}`);
      if (e.body.success && e.body.type !== 'checkout.succeeded') failures.push(`${m.offerId}: success on ${e.body.type}`);
    }
  }
  // The status streams: the last event each one carried is the stored status. A stream is behind
  // while its last event is neither final nor the model's status; wait until none is (a stream
  // still behind after 10 s is a failure below).
  // (A stream ends at a final status; a later move, money on a timed-out code, is not on it.)
  const behind = ({ m, streamed }) => {
    const last = streamed.at(-1);
    const want = m.current;
    return want && last && !last.final && (last.status !== want.status || last.transactionId !== want.id);
  };
  await waitFor(() => !results.some(behind), 10000, 'the streams to catch up').catch(() => {});
  for (const r of results) {
    const { m, streamed } = r;
    const last = streamed.at(-1);
    const want = m.current;
    if (behind(r)) {
      failures.push(`${m.offerId}: the stream's last event ${JSON.stringify({ status: last.status, tx: last.transactionId })}, model ${want.status} ${want.id}`);
    }
  }
  assert.deepEqual(failures, [], `seed ${seed}: the gateway disagrees with the model (repeat with PAYWASM_MODEL_SEED=${seed})`);
}

let sb;
let pg;
const stops = [];
before(async () => {
  sb = await startSandbox();  // no webhook URL: every webhook of the run is the test's own, signed with the sandbox's key
});
after(async () => {
  for (const stop of stops.reverse()) await stop();
  await sb?.stop();
  await pg?.destroy();
});

test(`one instance on SQLite agrees with the model (seed ${SEED})`, { timeout: 240000 }, async () => {
  const app = await startShopApp();
  const g = await startGateway(sb, { appCallback: app.url });
  stops.push(() => app.close(), () => g.stop());
  await runModel([g], sb, app, SEED);
});

test(`two instances on one PostgreSQL agree with the model (seed ${SEED + 1})`, { timeout: 240000 }, async () => {
  pg = await startPostgres();
  const app = await startShopApp();
  const a = await startGateway(sb, { db: pg.url, dir: tmpdir('pwm-ma-'), appCallback: app.url });
  const b = await startGateway(sb, { db: pg.url, dir: tmpdir('pwm-mb-'), appCallback: app.url });
  stops.push(() => app.close(), () => a.stop(), () => b.stop());
  await runModel([a, b], sb, app, SEED + 1);
});

export { sendJson };
