// What a checkout sends, and what it does with the answers: every flow takes the element (its
// attributes, its state el._s, its core) and goes through busy(), the one place that decides
// whether anything may be sent (state.js). A payment, from the Pay button (view.js) to the request:
//   pay() -> order() + the core's paymentRequest() (validation, defaults, encryption) -> send()
//   (net.js: sent once, never retried) -> the core's parseResponse() -> readAnswer() (status.js: the
//   core's row and amounts) -> setStatus() -> watchStatus() (later statuses from the merchant's
//   status-url, read by readStatus()).
import { PayWasmError } from './error.js';
import { send, watch } from './net.js';
import { SVG_NS } from './dom.js';
import { phaseOf } from './state.js';
import { readAnswer, readStatus } from './status.js';

// ---- status and errors -----------------------------------------------------------------------

// A status of the current payment (status.js: readStatus / readAnswer): moves the phase (never out
// of final or ambiguous: only reset() does that) and, when it changed (another code, or another
// amount arrived), redraws and tells the page: paywasm-status { status (the core's row),
// transaction, method, expected, received, remaining }, and paywasm-complete on a success.
export function setStatus(el, st) {
  const s = el._s;
  const before = s.status;
  const { info } = st;
  const amount = (m) => (m ? `${m.amount} ${m.currency}` : '');
  const changed = !before || before.info.code !== info.code || before.info.kind !== info.kind
    || amount(before.received) !== amount(st.received);
  s.status = st;
  if (s.phase !== 'final' && s.phase !== 'ambiguous') s.phase = phaseOf(info);
  if (changed || s.error) {
    s.error = null;
    el._render();
  }
  if (changed) {
    const detail = { status: info, transaction: st.transaction, method: st.method, expected: st.expected,
      received: st.received, remaining: st.remaining };
    el._emit('paywasm-status', detail);
    if (info.success) el._emit('paywasm-complete', detail);
  }
}

export function showError(el, e) {
  const err = e instanceof PayWasmError ? e : new PayWasmError('internal', String(e && e.message || e));
  el._s.error = err;
  el._render();
  el._emit('paywasm-error', { error: err });
}

// ---- flows -----------------------------------------------------------------------------------

// session-url: the merchant gateway's checkout view (GET /v1/checkout/{id}: { offerId, amount,
// currency, cart, shippingAddress?, methods, merchantId, publicKey, keyFingerprint, padding,
// serviceUrl, status }). Sets el._session, the attribute values it stands for (an attribute the
// page sets wins) with the amount, cart and address, and the element's cart and address where the
// page gave none; the total of the cart must be the session's amount (the element's _check). Its
// status so far is kept in el._session.status.
export async function readSession(el, life) {
  const url = new URL(el.sessionUrl, document.baseURI).href;
  const res = await send({ method: 'GET', url, headers: [['Accept', 'application/json']] },
    { timeoutMs: el.timeout, retries: 2, signal: life.signal });
  let v = null;
  try { v = JSON.parse(res.body); } catch (e) { /* below */ }
  if (res.status !== 200 || !v || !Array.isArray(v.cart) || !Array.isArray(v.methods)) {
    throw new PayWasmError(res.status >= 500 ? 'server' : 'usage', `session-url answered HTTP ${res.status}${v ? '' : ', not JSON'}`,
      { httpStatus: res.status, field: 'session-url' });
  }
  el._session = {
    'base-url': v.serviceUrl, 'merchant-id': v.merchantId, 'public-key': v.publicKey, 'key-fingerprint': v.keyFingerprint,
    'offer-id': v.offerId, currency: v.currency, methods: v.methods.join(' '), padding: v.padding,
    'qr-endpoint': `${url}/qr`, 'status-url': `${url}/status`, 'status-mode': 'sse', amount: v.amount,
    cart: v.cart, shippingAddress: v.shippingAddress, status: v.status,
  };
  if (el._cart === null) el._cart = v.cart;
  if (el._shippingAddress === null && v.shippingAddress) el._shippingAddress = v.shippingAddress;
}

export async function greet(el) {
  const life = el._life;
  try {
    let token = await el._token(false);
    if (!token || !el.baseUrl) return;
    const req = el._core.usersMeRequest(token, el._baseUrl());
    token = null;
    const res = await send(req, { timeoutMs: Math.min(el.timeout, 10000), retries: 2, signal: life.signal });
    const me = el._core.parseResponse('users-me', res);
    const name = String(me.firstName || (me.fullname || '').trim().split(/\s+/)[0] || '').trim().slice(0, 64);
    if (!name || el._life !== life) return;
    el._s.greeting = name;
    const box = el._root.querySelector('.greeting');
    if (box) {
      box.textContent = el._t('greeting', { name });
      box.hidden = false;
    }
  } catch (e) {
    // No greeting, no banner: the greeting is a courtesy.
  }
}

// The order in the service's shape, from the attributes and the page's cart as given: the core
// fills the total and the lines' local amount and currency (complete_order_defaults).
export function order(el, method) {
  const base = { clientId: el.merchantId || '', cart: el._cart || [] };
  const currency = el._currency();
  const shippingAddress = el._shippingAddress || {};
  const offerId = el.offerId || '';
  const s = el._s;
  return method === 'exchange'
    ? Object.assign(base, { assets: el.asset, shippingAddress, offerId, savepassword: !!s.savePassword,
      code2fa: s.code2fa || '', merchantStoreCurrency: currency })
    : Object.assign(base, { accountId: el.accountId || '', stockId: el.stockId || '', offerId,
      merchantStoreCurrency: currency, hostedPageId: el.hostedPageId || '', shippingAddress });
}

// The one busy wrapper of every flow that sends: only from idle with a valid order (a second
// click sends nothing), one request at a time, the busy look while it runs. `work` ends with a
// status (setStatus() moves the phase); an error goes back to idle when nothing can have been
// taken, or to ambiguous when the payment may have gone through.
export async function busy(el, method, work) {
  const s = el._s;
  if (s.phase !== 'idle' || !el._core || !el._total) return;
  const life = el._life;
  if (method !== 'qr') {
    // Paying another way: the QR code of this order (not paid: the phase is idle) goes.
    el._stop();
    s.qr = null;
  }
  s.method = method;
  s.phase = 'sending';
  s.error = null;
  el._render();
  try {
    await work(life);
  } catch (e) {
    if (el._life !== life) return;
    s.phase = e.mayHaveGoneThrough ? 'ambiguous' : 'idle';
    if (e instanceof PayWasmError && !e.method) e.method = method;
    showError(el, e);
    // Whether it went through is the merchant's to know (the service tells it): ask its status-url.
    if (e.mayHaveGoneThrough) watchStatus(el, { meta: { offerId: el.offerId } }, method);
    const field = el._root.getElementById(e.field || '-');
    (field || el._errorBox).focus();
  }
}

export function pay(el, method) {
  return busy(el, method, async (life) => {
    const s = el._s;
    const endpoint = method === 'exchange' ? 'exchange-pay' : 'bank-pay';
    const offerId = el.offerId || '';
    const key = await el._publicKey();
    let token = await el._token(true);
    const req = el._core.paymentRequest({
      method, order: order(el, method), key, padding: el.padding,
      fingerprint: el.keyFingerprint || undefined, exchange: s.exchange, exchanges: el._exchanges(),
      token, baseUrl: el._baseUrl(),
    });
    token = null;
    const lang = el._locale.lang;
    const res = await send(req, { timeoutMs: el.timeout, signal: life.signal, payment: true, offerId, lang });
    let parsed;
    try {
      parsed = el._core.parseResponse(endpoint, res);
    } catch (e) {
      // A 5xx, or a 2xx the core cannot read: the service may have taken the payment.
      if (e.code === 'server' || (e.code === 'bad_response' && res.status < 300)) {
        throw new PayWasmError(e.code, e.message, { httpStatus: e.httpStatus || res.status, mayHaveGoneThrough: true, offerId, lang });
      }
      throw e;
    }
    if (el._life !== life) return;
    const st = readAnswer(el._core, parsed, method);
    setStatus(el, st);
    el._statusBox.focus();
    // Later statuses (the service tells only the merchant): from the merchant's status-url.
    if (!st.info.final) watchStatus(el, parsed.transaction, method);
  });
}

// QR: the merchant's server creates the QR transaction (its token never reaches the browser). For
// a new code (the last one failed, timed out or expired) the request also names the transaction
// it replaces: {"replaces": "<id>"}.
export function requestQr(el) {
  return busy(el, 'qr', async (life) => {
    if (!el.qrEndpoint) throw new PayWasmError('usage', 'qr-endpoint is not set', { field: 'qr-endpoint' });
    const old = el._s.qr;
    const res = await send({
      method: 'POST', url: new URL(el.qrEndpoint, document.baseURI).href,
      headers: [['Content-Type', 'application/json'], ['Accept', 'application/json']],
      body: JSON.stringify({
        offerId: el.offerId || '', amount: el._total, currency: el._currency(),
        cryptoCurrency: el.asset.toUpperCase(), cart: el._cart || [],
        shippingAddress: el._shippingAddress || {}, replaces: old ? old.result.id : undefined,
      }),
    }, { timeoutMs: el.timeout, signal: life.signal, credentials: 'same-origin', lang: el._locale.lang });
    if (res.status < 200 || res.status > 299) {
      throw new PayWasmError(res.status >= 500 ? 'server' : 'validation', `qr-endpoint answered HTTP ${res.status}`, { httpStatus: res.status });
    }
    let data;
    try { data = JSON.parse(res.body); } catch (e) { throw new PayWasmError('bad_response', 'qr-endpoint did not answer JSON'); }
    if (el._life === life) showQr(el, data, true);
  });
}

// Shows a QR transaction (from qr-endpoint or qrResult). Its optional `expiresAt` (ISO time or
// milliseconds since 1970) shows a countdown; past it, the code goes and a new one can be asked for.
export function showQr(el, data, thrown) {
  try {
    const result = data && data.result && data.ok !== undefined ? data.result : data;
    const qrString = result && result.meta && result.meta.qrString;
    if (typeof qrString !== 'string') throw new PayWasmError('bad_response', 'the QR result has no meta.qrString', { field: 'meta.qrString' });
    const uri = el._core.checkPaymentUri(qrString);
    const doc = new DOMParser().parseFromString(el._core.qrSvg(qrString, { ecc: 'M', border: 4 }), 'image/svg+xml');
    const svg = doc.documentElement;
    if (svg.localName !== 'svg' || svg.namespaceURI !== SVG_NS) throw new PayWasmError('internal', 'the QR SVG did not parse');
    svg.setAttribute('aria-hidden', 'true');
    svg.setAttribute('focusable', 'false');
    el._stop();
    const end = result.expiresAt;
    el._s.qr = { result, uri, svg: document.importNode(svg, true), end: typeof end === 'number' ? end : Date.parse(end) };
    el._s.method = 'qr';
    el._s.status = null;
    setStatus(el, readStatus(el._core, { status: typeof result.status === 'number' ? result.status : 10 },
      { method: 'qr', asks: qrAsks(el), id: result.id, meta: result.meta }));
    watchStatus(el, result);
  } catch (e) {
    if (thrown) throw e;
    showError(el, e);
  }
}

// A status answer of the merchant's server (the gateway's status view, or a transaction, bare or
// as { result } / { transaction }) for the payment `result` of `method`: shown; returns true
// when nothing more is to come (a final status, or an amount that is not the order's). While the
// outcome is ambiguous, only a status in which money was taken is an answer (paid, pending, ...): a
// status of nothing taken may be an earlier payment's, so it never re-arms Pay.
export function applyStatus(el, data, result, method) {
  const tx = data && (data.result || data.transaction || data);
  if (!tx || typeof tx.status !== 'number') return false;
  const s = el._s;
  if (tx.state === 'amount_mismatch') {
    s.phase = 'ambiguous';
    showError(el, new PayWasmError('amount_mismatch', 'the amount paid differs from the order', {
      mayHaveGoneThrough: true, offerId: el.offerId, method, lang: el._locale.lang }));
    return true;
  }
  // What the payment asks for when the answer leaves it out: the QR code's crypto amount, or what
  // the payment's earlier status said.
  const asks = method === 'qr' || (!method && s.qr) ? qrAsks(el) : s.status && s.status.expected;
  const st = readStatus(el._core, tx, { method, asks, id: result.id, meta: result.meta });
  if (!st) return false;
  if (s.phase === 'ambiguous') {
    if (phaseOf(st.info) === 'idle') return false;
    s.phase = 'pending';
  }
  setStatus(el, st);
  return st.info.final;
}

// The amount the QR code shown asks for, in its crypto currency: { amount, currency }, or null.
function qrAsks(el) {
  const qr = el._s.qr;
  if (!qr) return null;
  const currency = qr.result.crytoCurrency || qr.result.cryptoCurrency || qr.uri.scheme.toUpperCase();
  return { amount: qr.uri.amount, currency };
}

// Later statuses of a payment of any method come from the merchant's `status-url` ({id} and
// {offerId} are filled in; the gateway's /v1/checkout/{id}/status), answering JSON like
// {"status": 101, "receivedAmount": "0.0004"}: polled with back-off, or as server-sent events with
// status-mode="sse" (polled when the stream fails or is refused: net.js watch()). "state": "amount_mismatch" (the gateway found another amount paid than the
// order's) is never shown as paid: the shopper is told to contact the shop.
export function watchStatus(el, result, method = 'qr') {
  if (!el.statusUrl || el._stopWatch) return;
  const url = new URL(el.statusUrl.replace('{id}', encodeURIComponent(result.id || ''))
    .replace('{offerId}', encodeURIComponent((result.meta && result.meta.offerId) || el.offerId || '')), document.baseURI).href;
  const onData = (text) => {
    let data;
    try { data = JSON.parse(text); } catch (e) { return false; }
    return applyStatus(el, data, result, method);
  };
  const stop = watch(url, { sse: el.statusMode === 'sse', interval: el.statusInterval, signal: el._life.signal, onData,
    onEnd: () => { el._stopWatch = null; } });
  el._stopWatch = () => { stop(); el._stopWatch = null; };
}