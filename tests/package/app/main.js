// The shop's checkout page script, written as a merchant with a bundler writes it: the widget comes
// from the npm package `paywasm` (import, not a script tag), and esbuild bundles it with this file
// (package.json "build"). The module fetches paywasm.wasm and paywasm-<lang>.json from beside itself,
// that is beside the bundle: the build copies them there.
//
// The shop's server (here: files the test writes into public/session/) answers
//   /session/checkout.json    this checkout: the payment API, the merchant's id and public key (with
//                             its pin), the order (offerId, cart, shipping address)
//   /session/shopper-token    the shopper's token, asked for right before each payment, never kept
import PayWasm, { mount } from 'paywasm';

const $ = (selector) => document.querySelector(selector);

async function fromServer(path) {
  const response = await fetch(path, { credentials: 'same-origin' });
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
  return response;
}

const checkout = await (await fromServer('/session/checkout.json')).json();
const money = new Intl.NumberFormat('en-US', { style: 'currency', currency: checkout.currency });
for (const line of checkout.cart) {
  const li = document.createElement('li');
  li.textContent = `${line.quantity} × ${line.name}: ${money.format(line.price * line.quantity)}`;
  $('#cart').append(li);
}
$('#powered').textContent = `Checkout by paywasm ${PayWasm.version}`;

const widget = mount('#checkout', {
  baseUrl: checkout.baseUrl,
  merchantId: checkout.merchantId,
  publicKey: checkout.publicKey,
  keyFingerprint: checkout.keyFingerprint,
  currency: checkout.currency,
  offerId: checkout.offerId,
  cart: checkout.cart,
  shippingAddress: checkout.shippingAddress,
  methods: 'exchange',
  exchanges: 'kraken gemini',
  getShopperToken: async () => (await fromServer('/session/shopper-token')).text(),
});

// What the shopper sees beside the widget, and what the shop would send to its order page.
widget.on('status', ({ status, transaction }) => {
  $('#order').textContent = `Order ${checkout.offerId}: payment ${status.kind} (transaction ${transaction.id})`;
});
widget.on('error', ({ error }) => {
  $('#order').textContent = `Order ${checkout.offerId}: error ${error.code}`;
});
