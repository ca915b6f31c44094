// <paywasm-checkout>: the element class. Its lifecycle (connect: load the core, render; disconnect:
// stop everything), its properties (the attribute table's, typed, and the objects a page gives:
// cart, shippingAddress, getShopperToken, qrResult), reset(), and the small helpers the view and
// the flows read the order with. What it draws is view.js; what it sends is flows.js; the state
// machine is state.js.
import { ATTRIBUTE_DEFAULTS, CSS_INTEGRITY } from 'paywasm:build';
import { PayWasmError } from './error.js';
import { load } from './core.js';
import { besideScript } from './assets.js';
import { MESSAGES, pickLocale, translate, loadLocale, languageWithin } from './locales.js';
import { send } from './net.js';
import { freshState } from './state.js';
import { render, styleSheet, money, EXCHANGE_NAMES } from './view.js';
import { applyStatus, greet, order, readSession, showError, showQr } from './flows.js';

export const TAG = 'paywasm-checkout';
const camel = (name) => name.replace(/-(\w)/g, (m, c) => c.toUpperCase());
const LOADING_DELAY_MS = 200;
const words = (s) => String(s || '').split(/[\s,]+/).filter(Boolean);
let pinWarned = false;

// Styles a shadow root under a style-src without 'unsafe-inline'. Returns { sheet, loaded }: `sheet`
// takes this element's own rule (replaceSync(text), all colours() needs), `loaded` a promise that
// settles when the styles are in place (null: at once; rejects with the PayWasmError `network` of
// a stylesheet that cannot be had). Two ways:
// - constructable stylesheets (Chrome/Edge 73+, Firefox 101+, Safari 16.4+): the shared sheet of
//   view.js and one of this element's own, adopted;
// - without them (Safari 15.2-16.3, WPE WebKit 2.38, where `new CSSStyleSheet()` throws "Illegal
//   constructor"): paywasm.css from beside the script (the same text, checked against its sha384
//   built in) in a <link> that stays the root's first child (the view replaces everything after
//   it), and this element's rule appended to that link's sheet through the CSSOM. A <style>
//   element would need 'unsafe-inline' (or a hash) in style-src; the CSSOM does not.
function styleShadow(root) {
  let constructable = false;
  try {
    constructable = 'adoptedStyleSheets' in root && !!new CSSStyleSheet();
  } catch (e) {
    // "Illegal constructor": the <link> below.
  }
  if (constructable) {
    const own = new CSSStyleSheet();
    root.adoptedStyleSheets = [styleSheet(), own];
    return { sheet: own, loaded: null };
  }
  const link = document.createElement('link');
  link.rel = 'stylesheet';
  link.href = besideScript('paywasm.css');
  if (CSS_INTEGRITY) {
    link.integrity = CSS_INTEGRITY;
    link.crossOrigin = 'anonymous';
  }
  let ownRule = '';
  let added = false;
  const apply = () => {
    const sheet = link.sheet;
    if (!sheet || !ownRule) return;
    if (added) sheet.deleteRule(sheet.cssRules.length - 1);
    sheet.insertRule(ownRule, sheet.cssRules.length);
    added = true;
  };
  const loaded = new Promise((resolve, reject) => {
    link.addEventListener('load', () => { added = false; apply(); resolve(); });
    link.addEventListener('error', () => reject(new PayWasmError('network',
      `could not fetch ${link.href} (network error, blocked by style-src, or integrity mismatch): this browser has no constructable stylesheets and needs it`)));
  });
  loaded.catch(() => {});
  root.append(link);
  // The view redraws with replaceChildren(): on this root it keeps the <link> (removing it would
  // drop its sheet and fetch it again).
  root.replaceChildren = (...nodes) => {
    while (link.nextSibling) link.nextSibling.remove();
    if (link.parentNode !== root || root.firstChild !== link) root.prepend(link);
    root.append(...nodes);
  };
  return { sheet: { replaceSync(text) { ownRule = text; apply(); } }, loaded };
}

export class PayWasmCheckout extends HTMLElement {
  static get observedAttributes() { return Object.keys(ATTRIBUTE_DEFAULTS); }

  // Defines the element as `tag` in `registry` (unless that name is taken there already); returns
  // the class. The script does PayWasmCheckout.define() when it loads.
  static define(tag = TAG, registry = customElements) {
    if (!registry.get(tag)) registry.define(tag, this);
    return this;
  }

  constructor() {
    super();
    this._root = this.attachShadow({ mode: 'open' });
    // The styles, and this element's own text colours on and of the brand colour (colours() in
    // view.js writes them to this._sheet) after them: see styleShadow below.
    const styled = styleShadow(this._root);
    this._sheet = styled.sheet;
    this._styled = styled.loaded;
    try { this._states = this.attachInternals().states; } catch (e) { this._states = null; }
    this._core = null;
    this._life = null;        // AbortController of the connected period
    this._cart = null;
    this._shippingAddress = null;
    this._qrResult = null;
    this._getShopperToken = null;
    this._keyCache = null;
    this._stopWatch = null;
    this._tick = 0;           // the QR countdown's interval
    this._total = null;       // the order's total (decimal text) when the page's order is valid
    this._session = null;     // what session-url stands for (flows.js readSession)
    this._s = freshState();
    this._arm();
  }

  // `ready`: a promise of the load in progress (resolves with { methods } once the core is loaded and
  // the form is shown, rejects with the PayWasmError of a failed load; the next connect tries again
  // with a new promise). It never goes unhandled.
  _arm() {
    this.ready = new Promise((resolve, reject) => { this._settle = [resolve, reject]; });
    this.ready.catch(() => {});
  }

  // ---- properties ------------------------------------------------------------------------------

  get cart() { return this._cart; }
  set cart(v) { this._cart = v; this._changed(); }
  get shippingAddress() { return this._shippingAddress; }
  set shippingAddress(v) { this._shippingAddress = v; this._changed(); }
  // Async callback returning the shopper's access token; called for each request, never stored.
  get getShopperToken() { return this._getShopperToken; }
  set getShopperToken(fn) {
    this._getShopperToken = typeof fn === 'function' ? fn : null;
    if (this._core && this._getShopperToken && !this._s.greeting) greet(this);
  }
  // The QR transaction created by the merchant's server ({ok, result} or the result itself); shown
  // when nothing else of the order is under way.
  get qrResult() { return this._qrResult; }
  set qrResult(v) {
    this._qrResult = v;
    if (this._core && v && this._s.phase === 'idle') showQr(this, v);
  }

  // ---- lifecycle -------------------------------------------------------------------------------

  connectedCallback() {
    if (this._life) return;
    this._life = new AbortController();
    const life = this._life;
    if (!this._settle && !this._core) this._arm();
    // First, so that a wasm-url of its own starts downloading before anything is drawn.
    const loading = load({ wasmUrl: this.wasmUrl || undefined });
    if (this._settle) this._fire('loadstart');
    // The first render waits for the shopper's language file (never fails; 2 s at most).
    const language = languageWithin(this._locale.lang);
    // The session (session-url) is read while the core loads: the form needs both.
    const session = this.sessionUrl && !this._session ? this._openSession(life) : null;
    this._readInlineData();
    if (document.readyState === 'loading') {
      // Upgraded while the parser is still inside the element: its JSON child comes later.
      document.addEventListener('DOMContentLoaded', () => {
        if (this._life === life && this._readInlineData()) this._changed();
      }, { once: true });
    }
    // With a cart, the first currency format (ICU data: 10-30 ms, once per page) runs in a task of
    // its own while the core loads, and the first render in the task after it: no single task
    // does instantiation, ICU loading and rendering one after the other.
    const formats = Array.isArray(this._cart) && this._cart.length ? new Promise((resolve) => {
      setTimeout(() => {
        if (this._life === life) money(this, '0', this._currency(), true);
        setTimeout(resolve, 0);
      }, 0);
    }) : null;
    // The loading message only when the core takes a while (a slow network): a fast start goes
    // straight to the form, without a flash of text and without a layout of it on the way.
    const slow = setTimeout(() => {
      if (this._life === life && !this._core) this._render();
    }, LOADING_DELAY_MS);
    // The end of this load: ready settles (once per load), then load or error, then loadend.
    const settle = (i, value, type) => {
      if (this._settle) {
        this._settle[i](value);
        this._settle = null;
        this._fire(type);
        this._fire('loadend');
      }
    };
    Promise.all([loading, session, formats, language, this._styled]).then(([core]) => {
      clearTimeout(slow);
      if (this._life !== life) return;
      this._core = core;
      this._render();
      this._sessionStatus();
      const lang = this._locale.lang;
      if (!MESSAGES[lang]) loadLocale(lang).then(() => { if (this._life === life && MESSAGES[lang]) this._changed(); });
      if (this._qrResult && !this._s.qr) showQr(this, this._qrResult);
      greet(this);
      if (this.publicKeyUrl && !this.publicKey && !this.keyFingerprint && !pinWarned) {
        pinWarned = true;
        console.warn('paywasm: pin public-key-url with key-fingerprint: without it, whoever can change that file can swap the key and read the payment data shoppers send');
      }
      const detail = { methods: this._methods() };
      this._emit('paywasm-ready', detail);
      settle(0, detail, 'load');
      this._warmUp(life);
    }, (e) => {
      clearTimeout(slow);
      if (this._life !== life) return;
      showError(this, e);
      settle(1, this._s.error, 'error');
    });
  }

  disconnectedCallback() { this._teardown(); }

  // Reads session-url (flows.js readSession); once the core is there too, draws the order it gave
  // and its status. A session that comes after the core (a page that sets session-url once its
  // server made the session, as the demo shop does) also brings what the load could not do without
  // it: the greeting (its base-url) and the warm-up (its public key). Rejects with the PayWasmError
  // of a session that cannot be read.
  _openSession(life) {
    return readSession(this, life).then(() => {
      if (this._life === life && this._core) {
        this._changed();
        this._sessionStatus();
        greet(this);
        this._warmUp(life);
      }
    });
  }

  // The session's status so far (a payment made before this page was loaded, or in another tab) is
  // shown, and locks what it should.
  _sessionStatus() {
    const status = this._session && this._session.status;
    if (status && typeof status.status === 'number') applyStatus(this, status, { meta: { offerId: this.offerId } }, null);
  }

  // WebAssembly functions are compiled on their first call: when the page is idle after the first
  // render, one throwaway encryption of '{}' to the merchant's public key (public data, nothing is
  // sent or kept) compiles the encryption code, so the pay click does not wait for that.
  _warmUp(life) {
    if (!this.publicKey) return;
    const run = () => {
      if (this._life !== life || this._s.phase === 'sending') return;
      try {
        this._core.encrypt(this.publicKey, '{}', { padding: this.padding, fingerprint: this.keyFingerprint || undefined });
      } catch (e) {
        // A bad key or a pin that does not match is reported when the shopper pays.
      }
    };
    if (typeof requestIdleCallback === 'function') requestIdleCallback(run, { timeout: 1000 });
    else setTimeout(run, 50);
  }

  attributeChangedCallback(name, before, after) {
    if (before === after) return;
    if (name.startsWith('public-key')) this._keyCache = null;
    if (name === 'session-url') {
      // Another session: its cart and address replace the last one's (not the page's own).
      const last = this._session || {};
      if (this._cart === last.cart) this._cart = null;
      if (this._shippingAddress === last.shippingAddress) this._shippingAddress = null;
      this._session = null;
      // Given while connected (a page that creates the session once it is shown): read it now.
      const life = this._life;
      if (after && life) this._openSession(life).catch((err) => { if (this._life === life) showError(this, err); });
    }
    if (name === 'locale') loadLocale(this._locale.lang).then(() => this._changed());
    this._changed();
  }

  // Stops network activity, status watching and the countdown; the element can be connected again.
  // A payment in flight is cut off without an answer: it may have gone through.
  _teardown() {
    if (this._life) this._life.abort();
    this._life = null;
    this._stop();
    if (this._s.phase === 'sending') this._s.phase = this._s.method === 'qr' ? 'idle' : 'ambiguous';
  }

  _stop() {
    if (this._stopWatch) this._stopWatch();
    this._stopWatch = null;
    clearInterval(this._tick);
  }

  // Clears status, error, QR code and the order's lock, for paying again: the same offer-id after an
  // unclear outcome the merchant has checked, or a new offer-id (set it first) for a new order.
  // Refused while a request is in flight (phase 'sending'): returns false and changes nothing;
  // true when it reset.
  reset() {
    if (this._s.phase === 'sending') return false;
    this._stop();
    const keep = this._s;
    this._s = freshState();
    this._s.method = keep.method;
    this._s.exchange = keep.exchange;
    this._s.greeting = keep.greeting;
    this._changed();
    return true;
  }

  // ---- helpers ---------------------------------------------------------------------------------

  get _locale() { return pickLocale(this.locale); }
  _t(key, vars) { return translate(this._locale.lang, key, vars); }

  _emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
  }

  // Lifecycle events, like an <img>'s: loadstart, then load or error, then loadend (no bubbling).
  _fire(type) { this.dispatchEvent(new Event(type)); }

  _changed() { if (this._core) this._render(); }

  // Draws the whole view from the state (view.js).
  _render() { render(this); }

  // A <script type="application/json"> child: {"cart": [...], "shippingAddress": {...}}. Returns
  // true when it gave the cart (what the form shows).
  _readInlineData() {
    const script = this.querySelector('script[type="application/json"]');
    if (!script) return false;
    try {
      const data = JSON.parse(script.textContent);
      if (this._shippingAddress === null && data.shippingAddress) this._shippingAddress = data.shippingAddress;
      if (this._cart === null && Array.isArray(data.cart)) {
        this._cart = data.cart;
        return true;
      }
    } catch (e) {
      console.warn('paywasm: the JSON <script> child of <paywasm-checkout> is not valid JSON');
    }
    return false;
  }

  // The methods offered: bank needs account-id and stock-id (from the merchant's server: the
  // shopper is never asked for an internal id), qr a qr-endpoint or a qrResult.
  _methods() {
    const wanted = words(this.methods);
    return wanted.filter((m, i) => wanted.indexOf(m) === i && (m === 'exchange'
      || (m === 'bank' && this.accountId && this.stockId) || (m === 'qr' && (this.qrEndpoint || this._qrResult))));
  }

  _exchanges() {
    const list = words(this.exchanges).map((x) => x.toLowerCase());
    return list.length ? list : Object.keys(EXCHANGE_NAMES);
  }

  _currency() { return this.currency.toUpperCase(); }


  _baseUrl() {
    if (!this.baseUrl) throw new PayWasmError('usage', 'base-url is not set', { field: 'base-url' });
    return new URL(this.baseUrl, document.baseURI).href;
  }

  async _token(required) {
    let token = null;
    try {
      token = this._getShopperToken && await this._getShopperToken();
    } catch (e) {
      // as no token
    }
    if (!token && required) throw new PayWasmError('unauthorized', 'no shopper token: getShopperToken is not set, failed or gave none');
    return token ? String(token) : null;
  }

  async _publicKey() {
    if (this.publicKey) return this.publicKey;
    if (!this.publicKeyUrl) throw new PayWasmError('usage', 'public-key or public-key-url is required', { field: 'public-key' });
    if (!this._keyCache) {
      const url = new URL(this.publicKeyUrl, document.baseURI).href;
      const res = await send({ method: 'GET', url, headers: [['Accept', 'application/x-pem-file, text/plain']] },
        { timeoutMs: this.timeout, retries: 2, signal: this._life.signal, credentials: 'same-origin' });
      if (res.status < 200 || res.status > 299) {
        throw new PayWasmError(res.status >= 500 ? 'server' : 'invalid_key', `public-key-url answered HTTP ${res.status}`, { httpStatus: res.status });
      }
      this._keyCache = res.body;
    }
    return this._keyCache;
  }

  // The page's order as the core reads it, checked with the core's own rules (the exchange
  // payload's: cart, shipping address, offer-id, currency, asset): sets this._total (decimal text)
  // or this._s.bad, the validation error of the page's data with its field (cart[0].price, ...).
  // No cart yet: neither.
  _check() {
    const s = this._s;
    this._total = null;
    s.bad = null;
    if (this._cart === null) return;
    try {
      const checked = Object.assign(order(this, 'exchange'), { clientId: '-', code2fa: '' });
      const total = JSON.parse(this._core.exchangePayload(checked)).nativeAmount;
      // The amount was fixed by the merchant's server: a cart that adds up to another is not paid.
      // Compared by the core: both amounts written its one way (amount_text: '82' and '82.00' are
      // both '82.00' in USD); an amount it cannot read is refused as not the total.
      const fixed = this._session && this._session.amount;
      const written = (x) => this._core.amountsOwed({ code: 10, amount: String(x), currency: this._currency() }).expected.amount;
      let same = false;
      try { same = !fixed || written(fixed) === written(total); } catch (e) { /* below */ }
      if (!same) {
        throw new PayWasmError('validation', `the cart adds up to ${total}, the session's amount is ${fixed}`, { field: 'cart' });
      }
      this._total = total;
    } catch (e) {
      s.bad = e;
    }
  }

}

// The typed properties of the attribute table: a number attribute reads as a number (its default
// when absent or not a positive number), a string one as the attribute, else the session's value
// (session-url), else its default (or null).
for (const [name, dflt] of Object.entries(ATTRIBUTE_DEFAULTS)) {
  Object.defineProperty(PayWasmCheckout.prototype, camel(name), {
    get() {
      let v = this.getAttribute(name);
      if (v === null && this._session) v = this._session[name];
      return typeof dflt === 'number' ? (+v > 0 ? +v : dflt) : v || dflt;
    },
    set(v) { if (v === null || v === undefined || v === false) this.removeAttribute(name); else this.setAttribute(name, v); },
    configurable: true,
  });
}
