// One checkout's context: everything the element (element.js), its flows (flows.js) and its view
// (view.js) share, declared here once. The element creates it and keeps it; flows and view take it
// as `c` and reach the element only through c.host: its attributes (typed properties) and its
// events. The readers below are the order as the flows send it and the view shows it.
import { pickLocale, translate } from './locales.js';
import { freshState } from './state.js';

// The context of the element `host`, with its shadow root `root` and its own stylesheet `sheet`
// (view.js colours()). The members other than these three start undefined:
//   core       the loaded core (core.js), once loaded and the form shown
//   loading    promise of the core with the order checked (what a Pay click before it waits for)
//   shown      the form may be drawn (session, language and styles in: paywasm-usable)
//   broken     the PayWasmError of a load that failed (no form then), or null
//   life       AbortController of the connected period
//   s          the state machine's state (state.js)
//   cart, shippingAddress, qrResult, getShopperToken   given by the page (element properties; cart
//              and address also from session-url's view); cart and address null until given
//   session    what session-url stands for (flows.js readSession)
//   keyCache   public-key-url's PEM text
//   stopWatch  stops the status watch (flows.js watchStatus)
//   total      the order's total (decimal text) when the page's order is valid (flows.js check)
//   badSeen    the message of the page's order error last told to the page (flows.js refresh)
//   states     the element's CustomStateSet, or null
//   view       the view's nodes and its countdown, kept from one draw to the next (view.js: the
//              view's own, which nothing else writes)
export function createContext(host, root, sheet) {
  return { host, root, sheet, s: freshState(), cart: null, shippingAddress: null };
}

// The five documented exchanges, with the names a shopper knows them by.
export const EXCHANGE_NAMES = { coinbase: 'Coinbase', okcoin: 'OKCoin', kraken: 'Kraken', gemini: 'Gemini', binanceus: 'Binance.US' };

const words = (s) => String(s || '').split(/[\s,]+/).filter(Boolean);

export const locale = (c) => pickLocale(c.host.locale);
export const t = (c, key, vars) => translate(locale(c).lang, key, vars);
export const currency = (c) => c.host.currency.toUpperCase();

// A bubbling, composed CustomEvent on the element (paywasm-usable, -ready, -status, -complete, -error).
export function emit(c, type, detail) {
  c.host.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
}

// Stops status watching.
export function stop(c) {
  if (c.stopWatch) c.stopWatch();
  c.stopWatch = null;
}

// The methods offered: bank needs account-id and stock-id (from the merchant's server: the
// shopper is never asked for an internal id), qr a qr-endpoint or a qrResult.
export function methodsOf(c) {
  const el = c.host;
  const wanted = words(el.methods);
  return wanted.filter((m, i) => wanted.indexOf(m) === i && (m === 'exchange'
    || (m === 'bank' && el.accountId && el.stockId) || (m === 'qr' && (el.qrEndpoint || c.qrResult))));
}

// The amount the QR code shown asks for, in its crypto currency: { amount, currency }, or null
// (flows.js reads its statuses with it, view.js shows it).
export function qrAsks(c) {
  const qr = c.s.qr;
  if (!qr) return null;
  const currency = qr.result.crytoCurrency || qr.result.cryptoCurrency || qr.uri.scheme.toUpperCase();
  return { amount: qr.uri.amount, currency };
}

export function exchangesOf(c) {
  const list = words(c.host.exchanges).map((x) => x.toLowerCase());
  return list.length ? list : Object.keys(EXCHANGE_NAMES);
}
