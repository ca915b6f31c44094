// Model-based test of the gateway's money decisions: random webhook scripts for many sessions
// (duplicates, reorderings, late statuses, replaced QR codes, wrong amounts, other merchants'
// transactions), run against the real gateway — one instance on SQLite, and two instances sharing
// a real PostgreSQL with each webhook sent to either — and compared with a reference model written
// here from docs/merchant.md's rules (not from the C++): every webhook's answer, every session's
// final status, every stored transaction and the multiset of forwarded events must agree.
//
// Payment attempts (issue 32) ride along on the exchange and bank sessions: tabs registering at
// once, tabs closed mid-request (no report), true and false browser reports (a "success" the
// service never signed, a refusal, which a bank payment does not have, a 502), lost webhooks, the
// merchant's resolutions and late webhooks after them. Invariants checked after every step: no
// success without a verified webhook or a merchant's resolution; Pay never armed while an attempt
// may have taken money; at most one 201 of two tabs. At the end the instances restart with the
// clock past the thresholds (181 minutes: exchange 180, bank 60; a bank payment verified pending
// waits 7 days; a QR code's window 60 minutes): each stuck attempt gives exactly one
// checkout.attention_needed, and no other attempt any. Each QR code the gateway made is an attempt
// (issue 45): live, it blocks nothing; no new code, old or new, while an exchange or bank attempt may
// have taken money (409 attempt_in_flight); a code the merchant released is replaced.
//
// Subscription debits (made through the gateway's app API) get scripts of their own: statuses
// sent one at a time or raced on two instances at once, repeated deliveries. The events of each
// debit must be one of the orders the model allows for the races (the gateway decides a debit
// under its row lock and forwards its events in that order), and a success is followed by nothing
// but a refund of it: a debit's final success is never overwritten.
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
  SHOP_ORIGIN, activeSubscription, gw, sse, startGateway, startPostgres, startSandbox, startShopApp, tempDir, waitFor, webhookBody,
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
    Object.assign(this, { offerId, methods, codes: [], current: null, txs: new Map(), events: [], seen: new Set(),
      attempts: [], conflicts: 0, resolved: 0 });
    // The browser's method of this session (its sessions offer one of exchange and bank, so a
    // webhook of its offerId is of that method), or null: QR only.
    this.payMethod = methods.find((m) => m === 'exchange' || m === 'bank') ?? null;
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

  // A verified webhook of an exchange transaction reaches its attempt (the one that reported it,
  // else the oldest with no transaction), a QR code's the code's attempt: what it says is kept when
  // the transaction row moved.
  settle(tx, outcome, storedBefore) {
    if (!['applied', 'stale', 'amount_mismatch'].includes(outcome)) return;
    const ofCode = this.codes.some((c) => c.orderId === tx.meta.offerId);
    if (!ofCode && tx.meta.offerId !== this.offerId) return;
    const a = ofCode ? this.attempts.find((x) => x.method === 'qr' && x.tx === tx.id)
      : this.attempts.find((x) => x.tx === tx.id) ?? this.attempts.find((x) => !x.tx && x.verified === 'none' && x.method === this.payMethod);
    if (!a) return;
    a.tx = tx.id;
    const next = this.txs.get(tx.id);
    if (next === storedBefore) return;  // not stored: the attempt learns nothing new
    const r = row(tx.status);
    const v = outcome === 'applied' && paid(next) ? 'paid'
      : r.final && r.taken === 'none' && outcome !== 'amount_mismatch' ? 'no_money' : 'open';
    if (v !== a.verified && a.resolution && (a.resolution === 'paid_elsewhere' ? v === 'no_money' : v === 'paid')) {
      a.conflict = true;
      this.conflicts++;
    }
    a.verified = v;
    if (v === 'open') a.openSeen = true;
  }

  // Whether an attempt may have taken money with nothing settled about it (Pay must stay off). A QR
  // code within its window (the whole run: the clock moves only at the end) blocks nothing.
  static blocks(a) {
    if (a.verified === 'paid' || a.verified === 'no_money' || a.resolution || a.method === 'qr') return false;
    if (a.verified === 'open' || !a.reported || !a.error) return true;
    if (a.method !== 'exchange') return true;  // the service documents refusals of exchange payments only
    const refused = a.error.httpStatus != null ? a.error.httpStatus >= 418 && a.error.httpStatus <= 422
      : ['authentication_failed', 'insufficient_balance', 'whitelist_pending', 'wallet_unsupported', 'below_minimum'].includes(a.error.code);
    return !refused;
  }

  // Stuck 181 minutes after its registration: blocking, except a bank payment the service said is
  // pending (it has 7 days from that status); a QR code with no verified final status and no
  // resolution (its 60-minute window is over).
  static stuck(a) {
    if (a.method === 'qr') return a.verified !== 'paid' && a.verified !== 'no_money' && !a.resolution;
    return ModelSession.blocks(a) && !(a.method === 'bank' && a.openSeen);
  }

  // A new QR code in place of code `txId`: only when that code is the session's status, final, with
  // no money and no mismatch, or the merchant released its attempt; then the session's status starts again.
  renews(txId) {
    const c = this.current;
    if (this.attempts.some((a) => a.method === 'qr' && a.tx === txId && a.resolution === 'release')) return true;
    return !!c && c.id === txId && !c.mismatch && row(c.status).final && !money(c);
  }

  // No code while an exchange or bank attempt may have taken money (unless paid or closed: payable says that first).
  codeRefused() {
    const paidNow = (!!this.current && paid(this.current)) || this.attempts.some((a) => a.resolution === 'paid_elsewhere' || a.verified === 'paid');
    const closed = this.attempts.some((a) => a.resolution === 'not_paid');
    return !paidNow && !closed && this.attempts.some(ModelSession.blocks);
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

// `restart(offsetMs)` stops every instance and starts it again on its database with the clock moved.
async function runModel(instances, sb, app, seed, restart) {
  const webhookEvents = (s) => app.events.filter((e) => e.body.sessionId === s.id && !ATTEMPT_EVENTS.includes(e.body.type));
  const rand = rng(seed);
  const pick = (list) => list[Math.floor(rand() * list.length)];
  const key = webhookPrivateKey(sb);
  const merchantId = sb.merchant.merchantId;
  const failures = [];
  const gwOf = () => pick(instances);

  async function oneSession(n) {
    const methods = pick([['exchange', 'qr'], ['qr'], ['exchange'], ['bank'], ['bank', 'qr']]);
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
    const payTxs = [crypto.randomUUID(), crypto.randomUUID()];  // the exchange or bank payments' transactions
    const sent = [];
    let qrTx = null;
    // A code the gateway made is an attempt of its own (method qr), found by its transaction.
    const codeAttempt = async (txId) => {
      const a = (await gw(gwOf(), 'GET', `/v1/sessions/${s.id}`, { app: true })).json.attempts.find((x) => x.method === 'qr' && x.transactionId === txId);
      if (a) m.attempts.push({ id: a.attemptId, method: 'qr', reported: false, tx: txId, error: null, verified: 'none', resolution: null });
      else failures.push(`${offerId}: no attempt for the code ${txId}`);
    };
    if (methods.includes('qr')) {
      const r = await gw(gwOf(), 'POST', `/v1/checkout/${s.id}/qr`, { origin: SHOP_ORIGIN, body: {} });
      assert.equal(r.status, 200, r.text);
      qrTx = r.json.result.id;
      m.codes.push({ orderId: r.json.result.meta.offerId, txId: qrTx, replaced: false });
      await codeAttempt(qrTx);
    }
    const steps = 4 + Math.floor(rand() * 8);
    for (let i = 0; i < steps; i++) {
      const r = rand();
      if (r < 0.1 && sent.length) {
        // The same signed delivery again.
        const again = pick(sent);
        const answer = await gw(gwOf(), 'POST', '/v1/webhooks', { raw: again.body });
        const storedBefore = m.txs.get(again.tx.id);
        const want = m.webhook(again.tx, again.body, merchantId);
        m.settle(again.tx, want, storedBefore);
        check(answer, want, again.tx, 'resent');
        await invariants('resent webhook');
        continue;
      }
      if (r < 0.2 && qrTx) {
        // The shopper asks for a new code in place of the current one.
        const renew = m.renews(qrTx), refused = m.codeRefused();
        const answer = await gw(gwOf(), 'POST', `/v1/checkout/${s.id}/qr`, { origin: SHOP_ORIGIN, body: { replaces: qrTx } });
        if (refused) {
          if (answer.status !== 409 || answer.json?.error !== 'attempt_in_flight') failures.push(`${offerId}: new code with an attempt in flight answered ${answer.status} ${answer.text}`);
          continue;
        }
        if (answer.status !== 200) { failures.push(`${offerId}: new code answered ${answer.status} ${answer.text}`); continue; }
        const id = answer.json.result.id;
        if (renew !== (id !== qrTx)) failures.push(`${offerId}: model says renew=${renew}, gateway ${id !== qrTx ? 'renewed' : 'kept'} the code`);
        if (id !== qrTx) {
          m.codes.forEach((c) => { c.replaced = true; });
          m.codes.push({ orderId: answer.json.result.meta.offerId, txId: id, replaced: false });
          m.current = null;
          qrTx = id;
          await codeAttempt(id);
        }
        continue;
      }
      if (r < 0.45 && m.payMethod) {
        await attemptStep();
        continue;
      }
      // A fresh webhook: which transaction, which status, which amounts, which merchant.
      let txId;
      let orderId;
      const kind = rand();
      if (qrTx && (kind < 0.5 || !m.payMethod)) {
        const code = pick(m.codes);
        orderId = code.orderId;
        txId = rand() < 0.06 ? crypto.randomUUID() : code.txId;  // a transaction the gateway did not create
      } else {
        orderId = offerId;
        txId = pick(payTxs);
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
      // A lost webhook: the service's delivery never arrives (it may be sent again later).
      if (rand() < 0.1) { sent.push({ tx, body }); continue; }
      sent.push({ tx, body });
      const answer = await gw(gwOf(), 'POST', '/v1/webhooks', { raw: body });
      const storedBefore = m.txs.get(tx.id);
      const want = m.webhook(tx, body, merchantId);
      m.settle(tx, want, storedBefore);
      check(answer, want, tx, 'fresh');
      await invariants('webhook');
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

    // One attempt step: two tabs register at once, or a report (true or false), or the merchant resolves.
    async function attemptStep() {
      const r = rand();
      const open = m.attempts.filter((a) => !a.reported && a.method !== 'qr');  // (a code takes no browser report)
      if (r < 0.4 || (!open.length && r < 0.75) || !m.attempts.length) {
        const before = (await gw(gwOf(), 'GET', `/v1/checkout/${s.id}`)).json.payable;
        const tabs = await Promise.all([0, 1].map(() => gw(gwOf(), 'POST', `/v1/checkout/${s.id}/attempts`, { origin: SHOP_ORIGIN, body: { method: m.payMethod } })));
        const made = tabs.filter((t) => t.status === 201);
        if (made.length > 1) failures.push(`${offerId}: two tabs both registered`);
        if (before.armed !== (made.length === 1)) failures.push(`${offerId}: payable ${JSON.stringify(before)} but ${made.length} registered`);
        for (const t of made) {
          m.attempts.push({ id: t.json.attemptId, method: m.payMethod, reported: false, tx: null, error: null, verified: 'none', resolution: null });
        }
        return;  // (the tab may close now: no report)
      }
      if (r < 0.75 && open.length) {
        const a = pick(open);
        const lie = rand();
        const report = lie < 0.35 ? { transactionId: pick(payTxs), status: pick([0, 1]) }  // true, or a "success" nobody signed
          : lie < 0.5 ? { transactionId: crypto.randomUUID(), status: 1 }                      // a transaction that does not exist
            : { error: pick([{ code: 'insufficient_balance', httpStatus: 419 }, { code: 'server', httpStatus: 502 },
              { code: 'network', httpStatus: null }, { code: 'below_minimum', httpStatus: null }, { code: 'server', httpStatus: 504 }]) };
        const answer = await gw(gwOf(), 'POST', `/v1/checkout/${s.id}/attempts/${a.id}`, { origin: SHOP_ORIGIN, body: report });
        if (answer.status !== 200) { failures.push(`${offerId}: report answered ${answer.status} ${answer.text}`); return; }
        a.reported = true;
        if (report.error) a.error = report.error;
        else a.tx ??= report.transactionId;
        await invariants('report');
        return;
      }
      const a = pick(m.attempts);
      const resolution = pick(['release', 'paid_elsewhere', 'not_paid']);
      const answer = await gw(gwOf(), 'POST', `/v1/sessions/${s.id}/resolve`, { app: true, body: { attemptId: a.id, resolution, note: 'model' } });
      const settled = (a.verified === 'paid' || a.verified === 'no_money') && !a.conflict;
      const want = settled ? 409 : a.resolution && !a.conflict ? 409 : 200;
      if (answer.status !== want) failures.push(`${offerId}: resolve ${resolution} of ${JSON.stringify(a)} answered ${answer.status}, model ${want}`);
      if (answer.status === 200) {
        a.resolution = resolution;
        a.conflict = false;
        m.resolved++;
      }
      await invariants('resolve');
    }

    // The invariants, against what the gateway shows now.
    async function invariants(after) {
      if (!m.payMethod) return;
      const v = (await gw(gwOf(), 'GET', `/v1/checkout/${s.id}`)).json;
      const blocking = m.attempts.filter(ModelSession.blocks);
      if (v.payable.armed && blocking.length) failures.push(`${offerId} after ${after}: Pay armed while ${JSON.stringify(blocking)} may have taken money`);
      const verifiedSuccess = !!m.current && paid(m.current);
      if (v.status.success !== verifiedSuccess) failures.push(`${offerId} after ${after}: success ${v.status.success}, verified ${verifiedSuccess}`);
      const byMerchant = m.attempts.some((a) => a.resolution === 'paid_elsewhere');
      if (v.payable.reason === 'paid' && !verifiedSuccess && !byMerchant && !m.attempts.some((a) => a.verified === 'paid')) {
        failures.push(`${offerId} after ${after}: paid with no verified success and no merchant's word`);
      }
    }

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
        const list = webhookEvents(s).map((e) => `${e.body.type}:${e.body.transactionId}:${e.body.status}`).sort();
        return list.length >= want.length && list;
      }, 10000, 'forwarded events');
    } catch {
      got = webhookEvents(s).map((e) => `${e.body.type}:${e.body.transactionId}:${e.body.status}`).sort();
    }
    const count = (type) => app.events.filter((e) => e.body.sessionId === s.id && e.body.type === type).length;
    await waitFor(() => count('checkout.resolution_conflict') >= m.conflicts && count('checkout.released') + count('checkout.paid_elsewhere')
      + count('checkout.marked_unpaid') >= m.resolved, 10000, 'attempt events').catch(() => {});
    const resolvedEvents = count('checkout.released') + count('checkout.paid_elsewhere') + count('checkout.marked_unpaid');
    if (resolvedEvents !== m.resolved) failures.push(`${m.offerId}: ${resolvedEvents} resolution events, model ${m.resolved}`);
    if (count('checkout.resolution_conflict') !== m.conflicts) failures.push(`${m.offerId}: ${count('checkout.resolution_conflict')} conflicts, model ${m.conflicts}`);
    if (JSON.stringify(got) !== JSON.stringify(want)) failures.push(`${m.offerId}: forwarded ${JSON.stringify(got)}, model ${JSON.stringify(want)}`);
    // Each forwarded event is for this shop's offerId, never a QR code's orderId.
    for (const e of app.events.filter((x) => x.body.sessionId === s.id)) {
      if (e.body.offerId !== m.offerId) failures.push(`${m.offerId}: an event names ${e.body.offerId}`);
      if (e.body.success && e.body.type !== 'checkout.succeeded') failures.push(`${m.offerId}: success on ${e.body.type}`);
    }
  }
  // The status streams: the last event each one carried is the stored status (once they caught up;
  // after the wait, the loop below names every one that did not).
  const behind = ({ m, streamed }) => {
    const last = streamed.at(-1);
    return m.current && last && !last.final && (last.status !== m.current.status || last.transactionId !== m.current.id);
  };
  await waitFor(() => !results.some(behind), { timeout: 5000, what: 'the streams to carry the stored status' }).catch(() => {});
  // (A stream ends at a final status; a later move, money on a timed-out code, is not on it.)
  for (const r of results.filter(behind)) {
    const last = r.streamed.at(-1);
    failures.push(`${r.m.offerId}: the stream's last event ${JSON.stringify({ status: last.status, tx: last.transactionId })}, model ${r.m.current.status} ${r.m.current.id}`);
  }
  const debitCount = await runDebits(instances, sb, app, seed, failures);
  // The clock moved past the exchange threshold (every instance restarted): each stuck attempt
  // gives exactly one attention event, whichever instance's pass finds it first.
  await restart(181 * 60000);
  const stuck = results.flatMap(({ m }) => m.attempts.filter(ModelSession.stuck).map((a) => a.id)).sort();
  const attention = () => app.events.filter((e) => e.body.type === 'checkout.attention_needed').map((e) => e.body.attemptId).sort();
  await waitFor(() => attention().length >= stuck.length, 15000, 'attention events').catch(() => {});
  await restart(182 * 60000);  // another pass of every instance: nothing more
  const sum = (f) => results.reduce((n, { m }) => n + f(m), 0);
  console.log(`model: ${sum((m) => m.attempts.length)} attempts, ${stuck.length} stuck, ${sum((m) => m.resolved)} resolved, ` +
    `${sum((m) => m.conflicts)} conflicts, ${debitCount} debits`);
  if (JSON.stringify(attention()) !== JSON.stringify(stuck)) {
    failures.push(`attention events for ${JSON.stringify(attention())}, model ${JSON.stringify(stuck)}`);
  }
  assert.deepEqual(failures, [], `seed ${seed}: the gateway disagrees with the model (repeat with PAYWASM_MODEL_SEED=${seed})`);
}

// ---- subscription debits ---------------------------------------------------------------------------

// A debit's event type for a status (docs/merchant.md's subscription.debit.* table).
function debitEventType(status) {
  const k = row(status).kind;
  if (k === 'success') return 'subscription.debit.succeeded';
  if (['failed', 'canceled', 'timed_out'].includes(k)) return 'subscription.debit.failed';
  if (['pending', 'processing', 'awaiting_payment'].includes(k)) return 'subscription.debit.pending';
  if (['partial', 'partial_closed'].includes(k)) return 'subscription.debit.partially_paid';
  if (k === 'refund') return 'subscription.debit.refunded';
  return 'subscription.debit.status_unknown';
}

// What the gateway may have done with one debit transaction: the histories (stored status, events
// forwarded in order) the answers so far allow. A webhook is stored and forwarded when it
// supersedes the stored status (the rules of sessions' transactions), else it is stale.
class ModelDebit {
  constructor() {
    this.histories = [{ held: null, events: [] }];
    this.seen = new Set();
  }

  static apply(h, tx) {
    const next = { status: tx.status, id: tx.id, mismatch: false, received: tx.receivedAmount ?? null };
    if (h.held && !supersedes(h.held, next)) return { h, outcome: 'stale' };
    return { h: { held: next, events: [...h.events, `${debitEventType(tx.status)}:${tx.status}`] }, outcome: 'applied' };
  }

  // Webhooks `sent` decided in some order (one, or two raced) with the gateway's `answers`: the
  // histories of the orders that give those answers. False when none does.
  decided(sent, answers) {
    const orders = sent.length === 2 ? [[0, 1], [1, 0]] : [[0]];
    const next = [];
    for (const h of this.histories) {
      for (const order of orders) {
        let cur = h;
        const got = [];
        const seen = new Set(this.seen);
        for (const i of order) {
          if (seen.has(sent[i].body)) { got[i] = 'duplicate'; continue; }
          seen.add(sent[i].body);
          const r = ModelDebit.apply(cur, sent[i].tx);
          cur = r.h;
          got[i] = r.outcome;
        }
        if (got.every((o, i) => o === answers[i])) next.push(cur);
      }
    }
    for (const x of sent) this.seen.add(x.body);
    if (!next.length) return false;
    this.histories = next;
    return true;
  }
}

// Debits through the gateway's app API on one active subscription, each with a script of statuses
// sent alone or raced on two instances (either instance, when there is one). The app's events of
// each debit must be one of the model's histories; after a success only a refund may come.
async function runDebits(instances, sb, app, seed, failures) {
  const rand = rng(seed ^ 0x5eed);
  const pick = (list) => list[Math.floor(rand() * list.length)];
  const key = webhookPrivateKey(sb);
  const sub = await activeSubscription(sb);
  const debits = [];
  for (let n = 0; n < 8; n++) {
    const orderId = `model-debit-${seed}-${n}-${crypto.randomUUID().slice(0, 8)}`;
    const made = await gw(pick(instances), 'POST', `/v1/subscriptions/${sub.id}/debit`, { app: true,
      body: { items: [{ amount: 15, currency: 'USD' }], orderId } });
    assert.equal(made.status, 200, made.text);
    const txId = crypto.randomUUID();
    const model = new ModelDebit();
    const bodies = [];
    const signedBody = (status) => {
      const tx = { id: txId, status, merchantId: sb.merchant.merchantId, nativeAmount: '15.00', nativeCurrency: 'USD',
        receivedAmount: status === 101 ? '7.50' : null, meta: { offerId: orderId } };
      const body = webhookBody(JSON.stringify(tx), key);
      bodies.push({ tx, body });
      return { tx, body };
    };
    const steps = 3 + Math.floor(rand() * 5);
    for (let i = 0; i < steps; i++) {
      const r = rand();
      let sent;
      if (r < 0.15 && bodies.length) sent = [pick(bodies)];                            // a delivery repeated
      else if (r < 0.55) sent = [signedBody(pick(DEBIT_STATUSES)), signedBody(pick(DEBIT_STATUSES))];  // a race
      else sent = [signedBody(pick(DEBIT_STATUSES))];
      if (sent.length === 2 && sent[0].body === sent[1].body) sent.pop();  // the same status twice: one delivery
      const order = sent.length === 2 ? [instances[0], instances[instances.length - 1]] : [pick(instances)];
      const answers = await Promise.all(sent.map((x, k) => gw(order[k], 'POST', '/v1/webhooks', { raw: x.body })));
      const outcomes = answers.map((a) => a.json?.outcome);
      if (!model.decided(sent, outcomes)) {
        failures.push(`debit ${orderId}: ${JSON.stringify(sent.map((x) => x.tx.status))} answered ${JSON.stringify(outcomes)}; ` +
          `no order of them gives that after ${JSON.stringify(model.histories.map((h) => h.events))}`);
        break;
      }
    }
    debits.push({ orderId, model });
  }
  for (const { orderId, model } of debits) {
    const events = () => app.events.filter((e) => e.body.debitOrderId === orderId).map((e) => `${e.body.type}:${e.body.status}`);
    const want = model.histories.map((h) => JSON.stringify(h.events));
    const got = await waitFor(() => want.includes(JSON.stringify(events())) && events(), 10000, 'the debit\'s events')
      .catch(() => events());
    if (!want.includes(JSON.stringify(got))) failures.push(`debit ${orderId}: forwarded ${JSON.stringify(got)}, model one of ${want.join(' | ')}`);
    const success = got.findIndex((e) => e.startsWith('subscription.debit.succeeded'));
    if (success >= 0 && got.slice(success + 1).some((e) => !e.startsWith('subscription.debit.refunded'))) {
      failures.push(`debit ${orderId}: its success overwritten: ${JSON.stringify(got)}`);
    }
  }
  return debits.length;
}
const DEBIT_STATUSES = [0, 0, 1, 1, 2, -1, 19, 101, 20, 7];

const ATTEMPT_EVENTS = ['checkout.attention_needed', 'checkout.released', 'checkout.paid_elsewhere', 'checkout.marked_unpaid',
  'checkout.resolution_conflict'];

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

// Instances that can be restarted on their databases with the clock moved (the attention pass).
async function instances(app, dbs) {
  const start = (db, offset) => startGateway(sb, { ...db, appCallback: app.url, env: offset ? { PAYWASM_CLOCK_OFFSET_MS: String(offset) } : {} });
  const list = await Promise.all(dbs.map((db) => start(db)));
  const restart = async (offset) => {
    await Promise.all(list.map((g) => g.stop()));
    list.splice(0, list.length, ...await Promise.all(dbs.map((db) => start(db, offset))));
  };
  stops.push(() => Promise.all(list.map((g) => g.stop())));
  return { list, restart };
}

test(`one instance on SQLite agrees with the model (seed ${SEED})`, { timeout: 240000 }, async () => {
  const app = await startShopApp({ toleranceS: 86400 });  // the restarted gateway's clock is moved on
  stops.push(() => app.close());
  const { list, restart } = await instances(app, [{ dir: tempDir('pwm-ms-') }]);
  await runModel(list, sb, app, SEED, restart);
});

test(`two instances on one PostgreSQL agree with the model (seed ${SEED + 1})`, { timeout: 240000 }, async () => {
  pg = await startPostgres();
  const app = await startShopApp({ toleranceS: 86400 });
  stops.push(() => app.close());
  const { list, restart } = await instances(app, [{ db: pg.url, dir: tempDir('pwm-ma-') }, { db: pg.url, dir: tempDir('pwm-mb-') }]);
  await runModel(list, sb, app, SEED + 1, restart);
});

export { sendJson };
