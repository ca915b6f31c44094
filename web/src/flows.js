// What a checkout sends, and what it does with the answers: every flow takes the checkout's
// context `c` (context.js: the element's attributes through c.host, the state c.s, the core) and
// goes through busy(), the one place that decides whether anything may be sent (state.js). A
// payment, from the Pay button (view.js declares it, element.js runs its action) to the request:
//   pay() -> order() + the core's paymentRequest() (validation, defaults, encryption) -> send()
//   (net.js: sent once, never retried) -> the core's parseResponse() -> readAnswer() (status.js: the
//   core's row and amounts) -> setStatus() -> watchStatus() (later statuses from the merchant's
//   status-url, read by readStatus()).
// The flows change the state and tell the page (events); then refresh() has the view draw it
// (view.js render(): it only draws). The page's order is checked by check(), when it changes.
import { PayWasmError } from './error.js';
import { backoff, send, sleep, watch } from './net.js';
import { SVG_NS } from './dom.js';
import { phaseOf } from './state.js';
import { readAnswer, readStatus } from './status.js';
import { currency, emit, exchangesOf, locale, methodsOf, qrAsks, stop } from './context.js';
import { render } from './view.js';

// ---- what a request needs from the page --------------------------------------------------------

export function baseUrl(c) {
  if (!c.host.baseUrl) throw new PayWasmError('usage', 'base-url is not set', { field: 'base-url' });
  return new URL(c.host.baseUrl, document.baseURI).href;
}

// The shopper's token from the page's callback, for one request (never kept); null when there is
// none, or a PayWasmError `unauthorized` when `required`.
export async function token(c, required) {
  let value = null;
  try {
    value = c.getShopperToken && await c.getShopperToken();
  } catch (e) {
    // as no token
  }
  if (!value && required) throw new PayWasmError('unauthorized', 'no shopper token: getShopperToken is not set, failed or gave none');
  return value ? String(value) : null;
}

// public-key, or public-key-url's text (fetched once per URL).
export async function publicKey(c) {
  const el = c.host;
  if (el.publicKey) return el.publicKey;
  if (!el.publicKeyUrl) throw new PayWasmError('usage', 'public-key or public-key-url is required', { field: 'public-key' });
  if (!c.keyCache) {
    const url = new URL(el.publicKeyUrl, document.baseURI).href;
    const res = await send({ method: 'GET', url, headers: [['Accept', 'application/x-pem-file, text/plain']] },
      { timeoutMs: el.timeout, retries: 2, signal: c.life.signal, credentials: 'same-origin' });
    if (res.status < 200 || res.status > 299) {
      throw new PayWasmError(res.status >= 500 ? 'server' : 'invalid_key', `public-key-url answered HTTP ${res.status}`, { httpStatus: res.status });
    }
    c.keyCache = res.body;
  }
  return c.keyCache;
}

// ---- the order and the view ------------------------------------------------------------------

// After any change: the chosen method and exchange kept among those offered, the error in the
// shopper's language, then the view drawn. Checks nothing (check() does, when the order changes).
export function refresh(c) {
  const s = c.s;
  const methods = methodsOf(c);
  if (!methods.includes(s.method)) s.method = methods[0] || null;
  const exchanges = exchangesOf(c);
  if (!exchanges.includes(s.exchange)) s.exchange = exchanges[0];
  const err = s.bad || s.error;
  if (err) err.localize(locale(c).lang);
  render(c);
}

// The page's order as the core reads it, checked with the core's own rules (the exchange
// payload's: cart, shipping address, offer-id, currency, asset) and against the amount the
// merchant's server fixed (the `amount` attribute, else the session's: c.host.amount; the core
// refuses a cart that adds up to another): sets
// c.total (decimal text) or c.s.bad, the validation error of the page's data with its field
// (cart[0].price, ...); a new error is told to the page (paywasm-error, once per message). No cart
// or no core yet: neither. The element calls it when the order can have changed: the core or a
// session arrived, or the page changed an attribute, the cart or the address; one call of the core.
export function check(c) {
  const s = c.s;
  c.total = null;
  s.bad = null;
  if (c.cart === null || !c.core) return;
  try {
    const checked = Object.assign(order(c, 'exchange'), { clientId: '-', code2fa: '' });
    c.total = c.core.checkOrder(checked, c.host.amount);
  } catch (e) {
    s.bad = e;
  }
  if (s.bad) s.bad.localize(locale(c).lang);
  if (s.bad && s.bad.message !== c.badSeen) emit(c, 'paywasm-error', { error: s.bad });
  c.badSeen = s.bad && s.bad.message;
}

// ---- status and errors -----------------------------------------------------------------------

// A status of the current payment (status.js: readStatus / readAnswer): moves the phase (never out
// of final or ambiguous: only reset() does that) and, when it changed (another code, or another
// amount arrived), redraws and tells the page: paywasm-status { status (the core's row),
// transaction, method, expected, received, remaining }, and paywasm-complete on a success.
export function setStatus(c, st) {
  const s = c.s;
  const before = s.status;
  const { info } = st;
  const amount = (m) => (m ? `${m.amount} ${m.currency}` : '');
  const changed = !before || before.info.code !== info.code || before.info.kind !== info.kind
    || amount(before.received) !== amount(st.received);
  s.status = st;
  if (s.phase !== 'final' && s.phase !== 'ambiguous') s.phase = phaseOf(info);
  if (changed || s.error) {
    s.error = null;
    refresh(c);
  }
  if (changed) {
    const detail = { status: info, transaction: st.transaction, method: st.method, expected: st.expected,
      received: st.received, remaining: st.remaining, reference: st.reference, offerId: c.host.offerId || st.offerId || null };
    emit(c, 'paywasm-status', detail);
    if (info.success) emit(c, 'paywasm-complete', detail);
  }
}

export function showError(c, e) {
  const err = e instanceof PayWasmError ? e : new PayWasmError('internal', String(e && e.message || e));
  c.s.error = err;
  refresh(c);
  emit(c, 'paywasm-error', { error: err });
}

// ---- flows -----------------------------------------------------------------------------------

// session-url: the merchant gateway's checkout view (GET /v1/checkout/{id}: { offerId, amount,
// currency, cart, shippingAddress?, methods, merchantId, publicKey, keyFingerprint, padding,
// serviceUrl, status, attempts, payable }). Sets c.session, the attribute values it stands for (an
// attribute the page sets wins) with the amount, cart and address, and the checkout's cart and
// address where the page gave none; the total of the cart must be the session's amount (check()).
// Its status so far is kept in c.session.status, its URL in c.session.url; its `payable` holds Pay
// (holdPay) before anything is drawn, so a reload never shows Pay armed while an attempt blocks it.
export async function readSession(c, life) {
  const el = c.host;
  const url = new URL(el.sessionUrl, document.baseURI).href;
  // credentials same-origin (no cookie goes to another origin; the gateway's API reads none): the
  // mode a page's <link rel="preload" as="fetch" crossorigin="anonymous"> of the session view has,
  // so such a preload is the response this request takes, one round trip earlier.
  // The view the page itself carried (element.js _readInlineData: the hosted checkout writes it
  // into the page) is taken once, without a request, and only for the session it is the view of
  // (session-url ends with its id): the JSON child stays in the element, and is read again at a
  // reconnect, after which another session-url is read from the network.
  let v = c.pageView;
  c.pageView = null;
  v = v && url.endsWith(v.id) && v;
  const res = v ? {} : await send({ method: 'GET', url, headers: [['Accept', 'application/json']] },
    { timeoutMs: el.timeout, retries: 2, signal: life.signal, credentials: 'same-origin' });
  try { v = v || JSON.parse(res.body); } catch (e) { /* below */ }
  if (res.status === 410) {
    // The gateway's session_expired: the shopper is told the checkout expired, not that it is broken.
    throw new PayWasmError('session_expired', 'session-url answered HTTP 410: the checkout session has expired',
      { httpStatus: 410, field: 'session-url' });
  }
  if (res.status > 299 || !v || !Array.isArray(v.cart) || !Array.isArray(v.methods)) {
    throw new PayWasmError(res.status >= 500 ? 'server' : 'usage', `session-url answered HTTP ${res.status}${v ? '' : ', not JSON'}`,
      { httpStatus: res.status, field: 'session-url' });
  }
  c.session = {
    'base-url': v.serviceUrl, 'merchant-id': v.merchantId, 'public-key': v.publicKey, 'key-fingerprint': v.keyFingerprint,
    'offer-id': v.offerId, currency: v.currency, methods: v.methods.join(' '), padding: v.padding,
    'qr-endpoint': `${url}/qr`, 'status-url': `${url}/status`, 'status-mode': 'sse', amount: v.amount,
    cart: v.cart, shippingAddress: v.shippingAddress, status: v.status, url,
  };
  if (c.cart === null) c.cart = v.cart;
  if (c.shippingAddress === null && v.shippingAddress) c.shippingAddress = v.shippingAddress;
  holdPay(c, v.payable);
}

// ---- attempts (session mode: docs/widget.md "Payment attempts") ----------------------------------

// The gateway's word on whether Pay may be armed (`payable` of its checkout view, of a status
// event, or of a 409 to an attempt: { armed, reason, attemptId, transactionId }). Not armed: the
// order is held (c.s.hold; from idle the phase is ambiguous: no form, the reason drawn, the status
// stream watched for the word that arms it again). Armed: a held order goes back to idle. A
// payment of this page under way or shown (sending, pending, final) keeps its phase.
export function holdPay(c, payable) {
  const s = c.s;
  if (!payable || typeof payable.armed !== 'boolean' || (payable.armed && !s.hold)) return;
  s.hold = payable.armed ? null : payable;
  if (payable.armed && s.phase === 'ambiguous') {
    s.phase = 'idle';
    s.error = null;
  }
  if (!payable.armed && s.phase === 'idle') s.phase = 'ambiguous';
  // The stream once the core is in (what a status means is its to say): element.js _sessionStatus
  // holds Pay again then, and opens it.
  if (s.phase === 'ambiguous' && c.core && c.life) watchStatus(c, { meta: { offerId: c.host.offerId } }, null);
  refresh(c);
}

const json = (text) => { try { return JSON.parse(text); } catch (e) { return null; } };
const post = (url, body, o) => send({ method: 'POST', url, body: JSON.stringify(body),
  headers: [['Content-Type', 'application/json'], ['Accept', 'application/json']] }, o);

// Registers the attempt of a `method` payment with the gateway (POST {session}/attempts) before the
// payment is sent: resolves { url } (the attempt's, to report to) on 201. Else nothing may be sent:
// a 409 (an attempt that may have taken money, or the order paid) or 410 (expired) holds the order
// and resolves null; a 429, another answer or no answer throws a PayWasmError that says nothing was
// sent (`rate_limited`, `gateway`).
async function register(c, method, life) {
  const base = `${c.session.url}/attempts`;
  let res;
  try {
    res = await post(base, { method }, { timeoutMs: c.host.timeout, signal: life.signal });
  } catch (e) {
    if (e.code === 'internal') throw e;
    res = { status: 0 };
  }
  const v = json(res.body) || {};
  if (res.status === 201 && typeof v.attemptId === 'string') return { url: `${base}/${encodeURIComponent(v.attemptId)}` };
  const code = v.error && v.error.code;
  if (res.status === 409 || res.status === 410) {
    c.s.phase = 'ambiguous';
    holdPay(c, v.payable && v.payable.armed === false ? v.payable
      : { armed: false, reason: res.status === 410 ? 'expired' : code === 'already_paid' ? 'paid' : 'unknown' });
    return null;
  }
  throw new PayWasmError(res.status === 429 ? 'rate_limited' : 'gateway',
    `${base} answered ${res.status ? `HTTP ${res.status}` : 'nothing'}: the payment was not sent`,
    { httpStatus: res.status, notSent: true, lang: locale(c).lang });
}

// Reports what came back for an attempt (POST {attempt}): once, with keepalive (it outlives the
// page); a report with no answer, a 5xx or a 429 is sent again (4 tries at most; another answer is
// the gateway's last word). Never throws.
async function report(at, body) {
  for (let n = 0; n < 4; n++) {
    try {
      const res = await post(at.url, body, { timeoutMs: 10000, keepalive: true });
      if (res.status < 500 && res.status !== 429) return;
    } catch (e) {
      // sent again
    }
    await sleep(backoff(n, 500, 4000));
  }
}

// The service's documented refusals of a payment (418-422, however they travel): nothing stored.
const REFUSALS = ['authentication_failed', 'insufficient_balance', 'whitelist_pending', 'wallet_unsupported', 'below_minimum'];

// The shopper's first name from the service (/users/me), shown as a greeting: a courtesy, so any
// failure shows nothing.
export async function greet(c) {
  const life = c.life;
  try {
    let shopper = await token(c, false);
    if (!shopper || !c.host.baseUrl) return;
    const req = c.core.usersMeRequest(shopper, baseUrl(c));
    shopper = null;
    const res = await send(req, { timeoutMs: Math.min(c.host.timeout, 10000), retries: 2, signal: life.signal });
    const me = c.core.parseResponse('users-me', res);
    const name = String(me.firstName || (me.fullname || '').trim().split(/\s+/)[0] || '').trim().slice(0, 64);
    if (!name || c.life !== life) return;
    c.s.greeting = name;
    render(c);
  } catch (e) {
    // No greeting, no banner: the greeting is a courtesy.
  }
}

// The order in the service's shape, from the attributes and the page's cart as given: the core
// fills the total and the lines' local amount and currency (complete_order_defaults).
export function order(c, method) {
  const el = c.host;
  const base = { clientId: el.merchantId || '', cart: c.cart || [] };
  const storeCurrency = currency(c);
  const shippingAddress = c.shippingAddress || {};
  const offerId = el.offerId || '';
  const s = c.s;
  return method === 'exchange'
    ? Object.assign(base, { assets: el.asset, shippingAddress, offerId, savepassword: !!s.savePassword,
      code2fa: s.code2fa || '', merchantStoreCurrency: storeCurrency })
    : Object.assign(base, { accountId: el.accountId || '', stockId: el.stockId || '', offerId,
      merchantStoreCurrency: storeCurrency, hostedPageId: el.hostedPageId || '', shippingAddress });
}

// The one busy wrapper of every flow that sends: only from idle with a valid order (a second
// click sends nothing), one request at a time, the busy look while it runs. `work` ends with a
// status (setStatus() moves the phase); an error goes back to idle when nothing can have been
// taken, or to ambiguous when the payment may have gone through.
export async function busy(c, method, work) {
  const s = c.s;
  if (s.phase !== 'idle' || s.bad || (c.core && !c.total) || !c.life) return;
  const life = c.life;
  if (method !== 'qr') {
    // Paying another way: the QR code of this order (not paid: the phase is idle) goes.
    stop(c);
    s.qr = null;
  }
  s.method = method;
  s.phase = 'sending';
  s.error = null;
  refresh(c);
  try {
    // A shopper faster than the module: the click waits for it (the button says the checkout is
    // loading), then for its check of the order.
    if (!c.core) await c.loading;
    if (c.life !== life) return;
    if (!c.total) {
      s.phase = 'idle';
      refresh(c);
      return;
    }
    await work(life);
  } catch (e) {
    if (c.life !== life) return;
    const unclear = e.mayHaveGoneThrough || !!s.hold;
    s.phase = unclear ? 'ambiguous' : 'idle';
    if (e instanceof PayWasmError && !e.method) e.method = method;
    showError(c, e);
    // Whether it went through is the merchant's to know (the service tells it): ask its status-url.
    if (unclear) watchStatus(c, { meta: { offerId: c.host.offerId } }, method);
    const field = c.root.getElementById(e.field || '-');
    (field || c.view.error).focus();
  }
}

export function pay(c, method) {
  return busy(c, method, async (life) => {
    const el = c.host;
    const s = c.s;
    const endpoint = method === 'exchange' ? 'exchange-pay' : 'bank-pay';
    const offerId = el.offerId || '';
    const key = await publicKey(c);
    let shopper = await token(c, true);
    const req = c.core.paymentRequest({
      method, order: order(c, method), key, padding: el.padding,
      fingerprint: el.keyFingerprint || undefined, exchange: s.exchange, exchanges: exchangesOf(c),
      token: shopper, baseUrl: baseUrl(c), sessionAmount: c.host.amount,
    });
    shopper = null;
    const lang = locale(c).lang;
    // Session mode: the attempt is on the gateway's record before the payment leaves, or it stays.
    if (navigator.onLine === false) throw new PayWasmError('network', 'offline: the payment was not sent', { notSent: true, lang });
    const at = c.session && await register(c, method, life);
    if (c.session && !at) return;
    let parsed;
    try {
      const res = await send(req, { timeoutMs: el.timeout, signal: life.signal, payment: true, offerId, lang });
      try {
        parsed = c.core.parseResponse(endpoint, res);
      } catch (e) {
        // A 5xx, or a 2xx the core cannot read: the service may have taken the payment.
        if (e.code === 'server' || (e.code === 'bad_response' && res.status < 300)) {
          throw new PayWasmError(e.code, e.message, { httpStatus: e.httpStatus || res.status, mayHaveGoneThrough: true, offerId, lang });
        }
        throw e;
      }
    } catch (e) {
      // Reported; unless it proves that nothing was stored (a refusal, or a request that never
      // left), the gateway holds the order as `unknown`, and so does this page until it arms Pay.
      if (at) {
        report(at, { error: { code: e.code || 'internal', httpStatus: e.httpStatus || null } });
        s.hold = REFUSALS.includes(e.code) || e.notSent ? null : { armed: false, reason: 'unknown' };
      }
      throw e;
    }
    const tx = parsed.transaction || {};
    if (at) report(at, { transactionId: tx.id || null, status: Number.isInteger(tx.status) ? tx.status : parsed.status.code });
    if (c.life !== life) return;
    const st = readAnswer(c.core, parsed, method);
    // How this page paid, for the success it may show later (a status of another page's payment
    // names no exchange).
    s.madeWith = { method, exchange: method === 'exchange' ? s.exchange : null };
    setStatus(c, st);
    c.view.status.focus();
    // Later statuses (the service tells only the merchant): from the merchant's status-url.
    if (!st.info.final) watchStatus(c, parsed.transaction, method);
  });
}

// QR: the merchant's server creates the QR transaction (its token never reaches the browser). For
// a new code (the last one failed, timed out or expired) the request also names the transaction
// it replaces: {"replaces": "<id>"}.
export function requestQr(c) {
  return busy(c, 'qr', async (life) => {
    const el = c.host;
    if (!el.qrEndpoint) throw new PayWasmError('usage', 'qr-endpoint is not set', { field: 'qr-endpoint' });
    const old = c.s.qr;
    const res = await send({
      method: 'POST', url: new URL(el.qrEndpoint, document.baseURI).href,
      headers: [['Content-Type', 'application/json'], ['Accept', 'application/json']],
      body: JSON.stringify({
        offerId: el.offerId || '', amount: c.total, currency: currency(c),
        cryptoCurrency: el.asset.toUpperCase(), cart: c.cart || [],
        shippingAddress: c.shippingAddress || {}, replaces: old ? old.result.id : undefined,
      }),
    }, { timeoutMs: el.timeout, signal: life.signal, credentials: 'same-origin', lang: locale(c).lang });
    if (res.status < 200 || res.status > 299) {
      throw new PayWasmError(res.status >= 500 ? 'server' : 'validation', `qr-endpoint answered HTTP ${res.status}`, { httpStatus: res.status });
    }
    let data;
    try { data = JSON.parse(res.body); } catch (e) { throw new PayWasmError('bad_response', 'qr-endpoint did not answer JSON'); }
    if (c.life === life) showQr(c, data, true);
  });
}

// Shows a QR transaction (from qr-endpoint or qrResult). Its optional `expiresAt` (ISO time or
// milliseconds since 1970) shows a countdown; past it, the code goes and a new one can be asked for.
export function showQr(c, data, thrown) {
  try {
    const result = data && data.result && data.ok !== undefined ? data.result : data;
    const qrString = result && result.meta && result.meta.qrString;
    if (typeof qrString !== 'string') throw new PayWasmError('bad_response', 'the QR result has no meta.qrString', { field: 'meta.qrString' });
    const uri = c.core.checkPaymentUri(qrString);
    const doc = new DOMParser().parseFromString(c.core.qrSvg(qrString, { ecc: 'M', border: 4 }), 'image/svg+xml');
    const svg = doc.documentElement;
    if (svg.localName !== 'svg' || svg.namespaceURI !== SVG_NS) throw new PayWasmError('internal', 'the QR SVG did not parse');
    svg.setAttribute('aria-hidden', 'true');
    svg.setAttribute('focusable', 'false');
    stop(c);
    const end = result.expiresAt;
    c.s.qr = { result, uri, svg: document.importNode(svg, true), end: typeof end === 'number' ? end : Date.parse(end) };
    c.s.method = 'qr';
    c.s.status = null;
    setStatus(c, readStatus(c.core, { status: typeof result.status === 'number' ? result.status : 10 },
      { method: 'qr', asks: qrAsks(c), id: result.id, meta: result.meta }));
    watchStatus(c, result);
  } catch (e) {
    if (thrown) throw e;
    showError(c, e);
  }
}

// A status answer of the merchant's server (the gateway's status view, or a transaction, bare or
// as { result } / { transaction }) for the payment `result` of `method`: shown; returns true
// when nothing more is to come (a final status, or an amount that is not the order's). While the
// outcome is ambiguous, only a status in which money was taken is an answer (paid, pending, ...): a
// status of nothing taken may be an earlier payment's, so it never re-arms Pay.
export function applyStatus(c, data, result, method) {
  const el = c.host;
  const tx = data && (data.result || data.transaction || data);
  const s = c.s;
  // A gateway's event says whether Pay may be armed.
  if (tx && c.session) holdPay(c, tx.payable);
  if (!tx || typeof tx.status !== 'number') return false;
  if (tx.state === 'amount_mismatch') {
    s.phase = 'ambiguous';
    showError(c, new PayWasmError('amount_mismatch', 'the amount paid differs from the order', {
      mayHaveGoneThrough: true, offerId: el.offerId, method, lang: locale(c).lang }));
    return true;
  }
  // What the payment asks for when the answer leaves it out: the QR code's crypto amount, or what
  // the payment's earlier status said.
  const asks = method === 'qr' || (!method && s.qr) ? qrAsks(c) : s.status && s.status.expected;
  const st = readStatus(c.core, tx, { method, asks, id: result.id, meta: result.meta });
  if (!st) return false;
  if (s.phase === 'ambiguous') {
    if (phaseOf(st.info) === 'idle') return false;
    s.phase = 'pending';
  }
  setStatus(c, st);
  return st.info.final;
}

// Later statuses of a payment of any method come from the merchant's `status-url` ({id} and
// {offerId} are filled in; the gateway's /v1/checkout/{id}/status), answering JSON like
// {"status": 101, "receivedAmount": "0.0004"}: polled with back-off, or as server-sent events with
// status-mode="sse" (polled when the stream fails or is refused: net.js watch()). "state": "amount_mismatch" (the gateway found another amount paid than the
// order's) is never shown as paid: the shopper is told to contact the shop.
export function watchStatus(c, result, method = 'qr') {
  const el = c.host;
  if (!el.statusUrl || c.stopWatch) return;
  const url = new URL(el.statusUrl.replace('{id}', encodeURIComponent(result.id || ''))
    .replace('{offerId}', encodeURIComponent(el.offerId || (result.meta && result.meta.offerId) || '')), document.baseURI).href;
  const onData = (text) => {
    let data;
    try { data = JSON.parse(text); } catch (e) { return false; }
    return applyStatus(c, data, result, method);
  };
  const stop = watch(url, { sse: el.statusMode === 'sse', interval: el.statusInterval, signal: c.life.signal, onData,
    onEnd: () => { c.stopWatch = null; } });
  c.stopWatch = () => { stop(); c.stopWatch = null; };
}