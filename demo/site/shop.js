// The demo shop: asks its own server (demo/shop-app) for a checkout session, which the server
// creates with the merchant gateway from the cart lines (prices are the server's), gives the
// session URL and the shopper token to <paywasm-checkout>, and runs the "merchant back end" panel.
// Text only (textContent), never markup, so nothing a server sends can turn into HTML.
'use strict';

const CART = [
  { id: 'sku-espresso', name: 'Espresso beans, 1 kg', price: 24.5, quantity: 2 },
  { id: 'sku-dripper', name: 'Ceramic pour-over dripper', price: 18, quantity: 1 },
  {
    id: 'sku-club', name: 'Coffee club: a bag every month', price: 15, quantity: 1,
    isSubscription: true, frequency: 'monthly', subscriptionPeriod: '12m', merchantSubscriptionId: 'club-demo',
  },
];
const STATUS_WORDS = {
  10: 'waiting for payment', 0: 'pending', 1: 'successful', 2: 'successful', 3: 'successful', 4: 'successful',
  '-1': 'failed', 101: 'partial payment', 19: 'timed out', 1011: 'partial, closed', 20: 'refund', 21: 'refund',
  22: 'refund', 23: 'refund',
};
const FINAL = new Set([1, 2, 3, 4, -1, 19, 1011, 20, 21, 22, 23]);

const $ = (id) => document.getElementById(id);
const money = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });

function el(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (k === 'onclick') node.addEventListener('click', v);
    else if (k === 'className') node.className = v;
    else node.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

async function json(method, url, body) {
  const res = await fetch(url, {
    method,
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch (e) { /* shown as text below */ }
  if (!res.ok) throw new Error((data && data.message) || `HTTP ${res.status}`);
  return data;
}

function shortId(id) { return String(id).slice(0, 8); }
function time(iso) { return new Date(iso).toLocaleTimeString(); }

// ---- Checkout ------------------------------------------------------------------------------------

const checkout = $('checkout');
// The shopper's login with the service: a real shop gets this token from the shopper's sign-in.
// Asked for at once, so the widget's first getShopperToken() call (the greeting) already waits for it.
const shopperToken = json('GET', '/shop/shopper-token');
checkout.getShopperToken = async () => (await shopperToken).token;

function renderCart() {
  const body = $('cart-lines');
  body.replaceChildren();
  let total = 0;
  for (const item of CART) {
    total += item.price * item.quantity;
    const name = el('td', {}, item.name);
    if (item.isSubscription) name.append(' ', el('span', { className: 'tag' }, 'monthly'));
    body.append(el('tr', {}, name, el('td', {}, String(item.quantity)),
      el('td', { className: 'num' }, money.format(item.price * item.quantity))));
  }
  $('cart-total').textContent = money.format(total);
}

function shippingAddress() {
  const out = {};
  for (const input of $('shipping').elements) if (input.name) out[input.name] = input.value.trim();
  return out;
}

// A new order: the shop's server makes the session (its catalogue sets the prices), and the widget
// reads everything else from it (session-url: the gateway's checkout view, docs/merchant.md step 3):
// cart, amount, key and pin, methods, the QR code and the statuses of every method.
async function newSession() {
  const { sessionUrl, session } = await json('POST', '/shop/checkout', {
    lines: CART.map(({ id, quantity }) => ({ id, quantity })), shippingAddress: shippingAddress(),
  });
  checkout.setAttribute('session-url', sessionUrl);
  $('offer-id').textContent = session.offerId;
  logEvent(`new order ${session.offerId}: ${session.amount} ${session.currency}`);
}

function logEvent(text, tone) {
  const item = el('li', { className: tone || '' }, el('time', {}, new Date().toLocaleTimeString()), ' ', text);
  $('events').prepend(item);
  while ($('events').children.length > 30) $('events').lastChild.remove();
}

async function setUpCheckout() {
  renderCart();
  await newSession();
  $('locale').addEventListener('change', (e) => checkout.setAttribute('locale', e.target.value));
  // The address is part of the order: a changed one is a new session when the shopper starts again.
  // reset() refuses (false) while a request is in flight: its outcome comes first.
  $('new-order').addEventListener('click', () => {
    if (typeof checkout.reset === 'function' && checkout.reset() === false) {
      logEvent('a payment is on its way: wait for its outcome, then start a new order', 'bad');
      return;
    }
    newSession().catch((e) => logEvent('new order: ' + e.message, 'bad'));
  });

  checkout.addEventListener('paywasm-usable', () => logEvent('form shown (the module is still loading)'));
  checkout.addEventListener('paywasm-ready', () => logEvent('widget ready'));
  checkout.addEventListener('paywasm-status', (e) => {
    const d = e.detail;
    logEvent(`${d.method || 'the'} payment ${shortId(d.reference || '')}: status ${d.status.code} (${d.status.label})`);
  });
  checkout.addEventListener('paywasm-complete', (e) => logEvent(`complete: order ${e.detail.offerId}, reference ${shortId(e.detail.reference || '')}`, 'good'));
  checkout.addEventListener('paywasm-error', (e) => {
    const err = e.detail.error;
    logEvent(`error ${err.code}: ${err.message}`, 'bad');
  });

  if (!customElements.get('paywasm-checkout')) {
    // The script tag is absent until `make dist` has run (or failed its integrity check).
    setTimeout(() => { if (!customElements.get('paywasm-checkout')) $('widget-missing').hidden = false; }, 1500);
  }
}

// ---- Merchant panel --------------------------------------------------------------------------------

// What an event of docs/merchant.md's table means for the shop: the merchant's next step.
const amountOf = (m) => (m && m.amount !== undefined ? `${m.amount} ${m.currency}` : '');
function eventMeaning(e) {
  switch (e.type) {
    case 'checkout.succeeded': return 'paid in full: ship it';
    case 'checkout.pending': return 'money on its way: wait';
    case 'checkout.awaiting_payment': return 'a QR code waits to be paid: wait';
    case 'checkout.partially_paid': return `part arrived (${amountOf(e.received)} of ${amountOf(e.expected)}, ${amountOf(e.remaining)} missing): wait for the rest or settle with the shopper`;
    case 'checkout.failed': return 'nothing was taken: the shopper may pay again';
    case 'checkout.refunded': return 'refund: update the books (a shipped order needs a return)';
    case 'checkout.amount_mismatch': return `AMOUNT MISMATCH (paid ${amountOf(e.paid)}): do not ship, contact the shopper`;
    case 'checkout.status_unknown': return 'unknown status: money may have moved, look at it by hand';
    default: return e.success ? 'succeeded' : e.type.startsWith('subscription.') ? 'subscription event' : 'see docs/merchant.md';
  }
}

let lastEvent = 0;
async function pollEvents() {
  const events = await json('GET', '/shop/events?since=' + lastEvent);
  for (const e of events) {
    lastEvent = Math.max(lastEvent, e.seq);
    const text = `${e.offerId || e.merchantSubscriptionId || e.subscriptionId || ''}: ${e.type}${e.status === undefined ? '' : ` (status ${e.status}, ${STATUS_WORDS[e.status] || 'unknown'})`} · ${eventMeaning(e)}`;
    $('webhooks').prepend(el('li', { className: e.success ? 'good' : e.type === 'checkout.amount_mismatch' ? 'bad' : '' },
      el('time', {}, time(e.receivedAt)), ' ', text));
  }
}

async function advance(id, body) {
  try {
    await json('POST', `/__sandbox/transactions/${encodeURIComponent(id)}/advance`, body);
  } catch (e) {
    logEvent('advance: ' + e.message, 'bad');
  }
  refreshPanel();
}

async function renderTransactions() {
  const list = await json('GET', '/__sandbox/transactions');
  const ul = $('transactions');
  ul.replaceChildren();
  for (const t of list.slice(0, 12)) {
    const tx = t.transaction;
    const row = el('li', {},
      el('span', { className: 'what' }, `${t.kind}${t.exchange ? ' · ' + t.exchange : ''} · ${t.offerId}`),
      el('span', { className: 'status s' + String(t.status).replace('-', 'm') }, `${t.status} ${STATUS_WORDS[t.status] || ''}`),
      el('span', { className: 'amount' }, `${tx.amount} ${tx.currency}`));
    if (!FINAL.has(t.status)) {
      const actions = el('span', { className: 'actions' },
        el('button', { type: 'button', onclick: () => advance(t.id) }, 'Next status'),
        el('button', { type: 'button', onclick: () => advance(t.id, { outcome: 101 }) }, 'Partial'),
        el('button', { type: 'button', onclick: () => advance(t.id, { status: -1 }) }, 'Fail'));
      if (t.kind === 'qr') actions.append(el('button', { type: 'button', onclick: () => advance(t.id, { status: 19 }) }, 'Time out'));
      row.append(actions);
    }
    ul.append(row);
  }
  if (!list.length) ul.append(el('li', { className: 'empty' }, 'No transactions yet.'));
}

async function subscriptionCall(id, action) {
  try {
    const answer = await json('POST', `/shop/subscriptions/${encodeURIComponent(id)}/${action}`);
    const r = answer.result || {};
    if (action === 'debit') {
      for (const d of r.data || []) logEvent(`debit ${shortId(id)}: transaction ${shortId(d.transactionId)}, ${d.amount} ${d.currency}, status ${d.status}`, 'good');
      for (const err of r.errors || []) logEvent(`debit ${shortId(id)} refused: ${err.reason} (${err.message})`, 'bad');
    } else {
      logEvent(`cancel ${shortId(id)}: ${r.success ? 'cancelled' : 'not cancelled'}`, r.success ? 'good' : 'bad');
    }
  } catch (e) {
    logEvent(`${action}: ${e.message}`, 'bad');
  }
  refreshPanel();
}

async function renderSubscriptions() {
  const list = await json('GET', '/__sandbox/subscriptions');
  const ul = $('subscriptions');
  ul.replaceChildren();
  for (const s of list.slice(0, 10)) {
    ul.append(el('li', {},
      el('span', { className: 'what' }, `${s.item.name} · ${s.amount} ${s.currency} · ${s.debits} debit(s)`),
      el('span', { className: 'status ' + (s.status === 'active' ? 's1' : 'sm1') }, s.status),
      el('span', { className: 'actions' },
        el('button', { type: 'button', onclick: () => subscriptionCall(s.id, 'debit') }, 'Debit now'),
        el('button', { type: 'button', onclick: () => subscriptionCall(s.id, 'cancel') }, 'Cancel'))));
  }
  if (!list.length) ul.append(el('li', { className: 'empty' }, 'None yet: pay a cart with the Coffee club by QR.'));
}

async function renderFaults() {
  const faults = await json('GET', '/__sandbox/faults');
  $('faults').textContent = faults.length
    ? 'Queued: ' + faults.map((f) => `${f.kind} on ${f.endpoint} ×${f.count}`).join(', ')
    : 'No faults queued.';
}

let refreshing = false;
async function refreshPanel() {
  if (refreshing) return;
  refreshing = true;
  try {
    await Promise.all([pollEvents(), renderTransactions(), renderSubscriptions(), renderFaults()]);
  } catch (e) {
    $('faults').textContent = 'The sandbox is not answering: ' + e.message;
  } finally {
    refreshing = false;
  }
}

async function setUpPanel() {
  $('fault-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const form = e.target.elements;
    const kind = form.kind.value;
    try {
      await json('POST', '/__sandbox/faults', { endpoint: form.endpoint.value, kind, count: 1, ms: 25000 });
    } catch (err) {
      logEvent('fault: ' + err.message, 'bad');
    }
    renderFaults();
  });
  $('clear-faults').addEventListener('click', async () => { await json('DELETE', '/__sandbox/faults'); renderFaults(); });
  $('shopper-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    await json('PUT', '/__sandbox/shopper', { profile: { firstName: e.target.elements.firstName.value } });
    logEvent('shopper first name saved: reload to see the greeting');
  });

  refreshPanel();
  setInterval(refreshPanel, 1500);
}

setUpCheckout().catch((e) => logEvent('setup: ' + e.message, 'bad'));
setUpPanel().catch((e) => logEvent('panel: ' + e.message, 'bad'));
