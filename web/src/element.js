// <paywasm-checkout>: the element class. Its lifecycle (connect: draw the form as soon as what it
// shows is in, load the core beside it; disconnect: stop everything), its properties (the attribute
// table's, typed, and the objects a page gives: cart, shippingAddress, getShopperToken, qrResult),
// reset(), and the actions the view's controls declare (data-action, run by _act()). Its state is
// one context object (context.js), which the flows (flows.js: what it sends) and the view (view.js:
// what it draws) work on; the state machine is state.js. Calls go one way: element -> flows ->
// view; the view imports no flow and writes no state.
import { ATTRIBUTE_DEFAULTS, CSS_INTEGRITY } from 'paywasm:build';
import { PayWasmError } from './error.js';
import { load } from './core.js';
import { besideScript } from './assets.js';
import { MESSAGES, loadLocale, languageWithin } from './locales.js';
import { freshState } from './state.js';
import { createContext, currency, emit, locale, methodsOf, stop } from './context.js';
import { styleSheet } from './colours.js';
import { money } from './format.js';
import { quiet } from './view.js';
import { applyStatus, check, greet, pay, readSession, refresh, requestQr, showError, showQr } from './flows.js';

// What the view's controls do (view.js declares them: data-action="<event>:<name>"): each gets the
// context and the control. Only these write the shopper's choices into the state.
const ACTIONS = {
  pay: (c, node) => (node.dataset.method === 'qr' ? requestQr(c) : pay(c, node.dataset.method)),
  method: (c, node) => { c.s.method = node.value; refresh(c); },
  exchange: (c, node) => { c.s.exchange = node.value; },
  code2fa: (c, node) => { c.s.code2fa = node.value.trim(); },
  savePassword: (c, node) => { c.s.savePassword = node.checked; },
};

export const TAG = 'paywasm-checkout';
const camel = (name) => name.replace(/-(\w)/g, (m, c) => c.toUpperCase());
const LOADING_DELAY_MS = 200;
let pinWarned = false;

// Styles a shadow root under a style-src without 'unsafe-inline'. Returns { sheet, loaded }: `sheet`
// takes this element's own rule (replaceSync(text), all colours() needs), `loaded` a promise that
// settles when the styles are in place (null: at once; rejects with the PayWasmError `network` of
// a stylesheet that cannot be had). Two ways:
// - constructable stylesheets (Chrome/Edge 73+, Firefox 101+, Safari 16.4+): the shared sheet of
//   view.js and one of this element's own, adopted;
// - without them (Safari 15.2-16.3, WPE WebKit 2.38, where `new CSSStyleSheet()` throws "Illegal
//   constructor"): paywasm.css from beside the script (the same text, checked against its sha256
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
  // The view draws after the <link>, and PayWasm's controller empties the root with
  // replaceChildren(): on this root that keeps the <link> (removing it would drop its sheet and
  // fetch it again).
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
    const root = this.attachShadow({ mode: 'open' });
    // The styles, and this element's own text colours on and of the brand colour (colours() in
    // view.js writes them to the context's sheet) after them: see styleShadow above.
    const styled = styleShadow(root);
    this._styled = styled.loaded;
    // The checkout's state, shared with the flows and the view (context.js); nothing else is.
    this._c = createContext(this, root, styled.sheet);
    try { this._c.states = this.attachInternals().states; } catch (e) { this._c.states = null; }
    for (const type of ['click', 'change', 'input']) root.addEventListener(type, (e) => this._act(e));
    this._arm();
  }

  // Runs the action a control of the view declares for this event (data-action="click:pay"; several
  // separated by spaces).
  _act(event) {
    const node = event.target.closest && event.target.closest('[data-action]');
    if (!node) return;
    for (const entry of node.dataset.action.split(' ')) {
      const [type, name] = entry.split(':');
      if (type === event.type && ACTIONS[name]) ACTIONS[name](this._c, node);
    }
  }

  // `ready`: a promise of the load in progress (resolves with { methods } once the core is loaded and
  // the form is shown, rejects with the PayWasmError of a failed load; the next connect tries again
  // with a new promise). It never goes unhandled.
  _arm() {
    this.ready = new Promise((resolve, reject) => { this._settle = [resolve, reject]; });
    this.ready.catch(() => {});
  }

  // ---- properties ------------------------------------------------------------------------------

  get cart() { return this._c.cart; }
  set cart(v) { this._c.cart = v; this._changed(); }
  get shippingAddress() { return this._c.shippingAddress; }
  set shippingAddress(v) { this._c.shippingAddress = v; this._changed(); }
  // Async callback returning the shopper's access token; called for each request, never stored.
  get getShopperToken() { return this._c.getShopperToken; }
  set getShopperToken(fn) {
    const c = this._c;
    c.getShopperToken = typeof fn === 'function' ? fn : null;
    if (c.core && c.getShopperToken && !c.s.greeting) greet(c);
  }
  // The QR transaction created by the merchant's server ({ok, result} or the result itself); shown
  // when nothing else of the order is under way.
  get qrResult() { return this._c.qrResult; }
  set qrResult(v) {
    const c = this._c;
    c.qrResult = v;
    if (c.core && v && c.s.phase === 'idle') showQr(c, v);
  }

  // ---- lifecycle -------------------------------------------------------------------------------

  connectedCallback() {
    const c = this._c;
    if (c.life) return;
    c.life = new AbortController();
    const life = c.life;
    c.broken = null;
    if (!this._settle && !c.core) this._arm();
    // First, so that a wasm-url of its own starts downloading before anything is drawn.
    const loading = load({ wasmUrl: this.wasmUrl || undefined });
    if (this._settle) this._fire('loadstart');
    // The first draw waits for the shopper's language file (never fails; 2 s at most).
    const language = languageWithin(locale(c).lang);
    // The session (session-url) is read while the core loads: the form shows what it says.
    this._readInlineData();
    const session = this.sessionUrl && !c.session ? this._openSession(life) : null;
    if (document.readyState === 'loading') {
      // Upgraded while the parser is still inside the element: its JSON child comes later.
      document.addEventListener('DOMContentLoaded', () => {
        if (c.life === life && this._readInlineData()) this._changed();
      }, { once: true });
    }
    // The first currency format (ICU data: 10-30 ms, once per page) runs in a task of its own while
    // the core loads: no single task does instantiation, ICU loading and drawing one after the
    // other. The form waits for it only when it shows an amount before the core (a session's);
    // a page's own cart is totalled by the core, so ready waits for it instead.
    const formats = (Array.isArray(c.cart) && c.cart.length) || session ? new Promise((resolve) => {
      setTimeout(() => {
        if (c.life === life) money(c, '0', currency(c));
        setTimeout(resolve, 0);
      }, 0);
    }) : null;
    // The loading message only when the form takes a while (a slow session or stylesheet): a fast
    // start goes straight to the form, without a flash of text.
    const slow = setTimeout(() => {
      if (c.life === life && !c.shown) refresh(c);
    }, LOADING_DELAY_MS);
    // Usable: the form is drawn once the session, the language and the styles are in, without the
    // core (paywasm-usable). Only a session that already has a status waits for the core as well:
    // what the status means is the core's to say.
    const usable = Promise.all([session, session && formats, language, this._styled])
      .then(() => (c.session && c.session.status && typeof c.session.status.status === 'number' ? loading : null));
    usable.then(() => {
      clearTimeout(slow);
      if (c.life !== life || c.broken) return;
      c.shown = true;
      refresh(c);
      emit(c, 'paywasm-usable', { methods: methodsOf(c) });
    }, () => {});
    // The end of this load: ready settles (once per load), then load or error, then loadend.
    const settle = (i, value, type) => {
      if (this._settle) {
        this._settle[i](value);
        this._settle = null;
        this._fire(type);
        this._fire('loadend');
      }
    };
    // Ready: the core is in and the form shown; the order is checked (what a Pay click faster than
    // the module waits for: c.loading), then what needs the core follows.
    c.loading = Promise.all([loading, usable, formats]).then(([core]) => {
      if (c.life !== life) return core;
      c.core = core;
      check(c);
      refresh(c);
      this._sessionStatus();
      const lang = locale(c).lang;
      if (!MESSAGES[lang]) loadLocale(lang).then(() => { if (c.life === life && MESSAGES[lang]) this._changed(); });
      if (c.qrResult && !c.s.qr) showQr(c, c.qrResult);
      greet(c);
      if (this.publicKeyUrl && !this.publicKey && !this.keyFingerprint && !pinWarned) {
        pinWarned = true;
        console.warn('paywasm: pin public-key-url with key-fingerprint, or whoever can change that file can swap the key and read the payment data');
      }
      const detail = { methods: methodsOf(c) };
      emit(c, 'paywasm-ready', detail);
      settle(0, detail, 'load');
      this._warmUp(life);
      return core;
    }, (e) => {
      clearTimeout(slow);
      if (c.life !== life) throw e;
      c.broken = e;
      showError(c, e);
      settle(1, c.s.error, 'error');
      throw e;
    });
    c.loading.catch(() => {});
  }

  disconnectedCallback() { this._teardown(); }

  // Reads session-url (flows.js readSession); once the core is there too, draws the order it gave
  // and its status. A session that comes after the core (a page that sets session-url once its
  // server made the session, as the demo shop does) also brings what the load could not do without
  // it: the greeting (its base-url) and the warm-up (its public key). Rejects with the PayWasmError
  // of a session that cannot be read.
  _openSession(life) {
    const c = this._c;
    return readSession(c, life).then(() => {
      if (c.life === life && c.core && c.shown) {
        this._changed();
        this._sessionStatus();
        greet(c);
        this._warmUp(life);
      }
    });
  }

  // The session's status so far (a payment made before this page was loaded, or in another tab) is
  // shown, and locks what it should; its `payable` (the status JSON carries it, a status or not)
  // holds Pay again now that the core is in, which opens a held order's status stream.
  _sessionStatus() {
    const c = this._c;
    const status = c.session && c.session.status;
    if (status) applyStatus(c, status, { meta: { offerId: this.offerId } }, null);
  }

  // WebAssembly functions are compiled on their first call: when the page is idle after the first
  // draw, one throwaway encryption of '{}' to the merchant's public key (public data, nothing is
  // sent or kept) compiles the encryption code, so the pay click does not wait for that.
  _warmUp(life) {
    const c = this._c;
    if (!this.publicKey) return;
    const run = () => {
      if (c.life !== life || c.s.phase === 'sending') return;
      try {
        c.core.encrypt(this.publicKey, '{}', { padding: this.padding, fingerprint: this.keyFingerprint || undefined });
      } catch (e) {
        // A bad key or a pin that does not match is reported when the shopper pays.
      }
    };
    if (typeof requestIdleCallback === 'function') requestIdleCallback(run, { timeout: 1000 });
    else setTimeout(run, 50);
  }

  attributeChangedCallback(name, before, after) {
    const c = this._c;
    if (before === after) return;
    if (name.startsWith('public-key')) c.keyCache = null;
    if (name === 'session-url') {
      // Another session: its cart and address replace the last one's (not the page's own).
      const last = c.session || {};
      if (c.cart === last.cart) c.cart = null;
      if (c.shippingAddress === last.shippingAddress) c.shippingAddress = null;
      c.session = null;
      // Given while connected (a page that creates the session once it is shown): read it now.
      const life = c.life;
      if (after && life) this._openSession(life).catch((err) => { if (c.life === life) showError(c, err); });
    }
    if (name === 'locale') loadLocale(locale(c).lang).then(() => this._changed());
    this._changed();
  }

  // Stops network activity, status watching and the countdown; the element can be connected again.
  // A payment in flight is cut off without an answer: it may have gone through.
  _teardown() {
    const c = this._c;
    if (c.life) c.life.abort();
    c.life = null;
    stop(c);
    quiet(c);
    if (c.s.phase === 'sending') c.s.phase = c.s.method === 'qr' ? 'idle' : 'ambiguous';
  }

  // Clears status, error, QR code and the order's lock, for paying again: the same offer-id after an
  // unclear outcome the merchant has checked, or a new offer-id (set it first) for a new order.
  // Refused while a request is in flight (phase 'sending') or the gateway holds the order (session
  // mode: only its payable arms Pay again): returns false and changes nothing; true when it reset.
  reset() {
    const c = this._c;
    if (c.s.phase === 'sending' || c.s.hold) return false;
    stop(c);
    const keep = c.s;
    c.s = freshState();
    c.s.method = keep.method;
    c.s.exchange = keep.exchange;
    c.s.greeting = keep.greeting;
    this._changed();
    return true;
  }

  // ---- helpers ---------------------------------------------------------------------------------

  // Lifecycle events, like an <img>'s: loadstart, then load or error, then loadend (no bubbling).
  _fire(type) { this.dispatchEvent(new Event(type)); }

  // Something the page gave changed: checked again by the core once it is there (flows.js check),
  // and drawn again once the form is shown.
  _changed() {
    const c = this._c;
    if (c.core) check(c);
    if (c.shown) refresh(c);
  }

  // A <script type="application/json"> child: {"cart": [...], "shippingAddress": {...}, "checkout":
  // {...}} (checkout: session-url's view as the page's server wrote it, read instead of a request:
  // flows.js readSession). Returns true when it gave the cart (what the form shows).
  _readInlineData() {
    const c = this._c;
    const script = this.querySelector('script[type="application/json"]');
    if (!script) return false;
    try {
      const data = JSON.parse(script.textContent);
      if (c.shippingAddress === null && data.shippingAddress) c.shippingAddress = data.shippingAddress;
      c.pageView = data.checkout;
      if (c.cart === null && Array.isArray(data.cart)) {
        c.cart = data.cart;
        return true;
      }
    } catch (e) {
      console.warn('paywasm: the <script type="application/json"> child is not JSON');
    }
    return false;
  }
}

// The typed properties of the attribute table: a number attribute reads as a number (its default
// when absent or not a positive number), a string one as the attribute, else the session's value
// (session-url), else its default (or null).
for (const [name, dflt] of Object.entries(ATTRIBUTE_DEFAULTS)) {
  Object.defineProperty(PayWasmCheckout.prototype, camel(name), {
    get() {
      let v = this.getAttribute(name);
      if (v === null && this._c.session) v = this._c.session[name];
      return typeof dflt === 'number' ? (+v > 0 ? +v : dflt) : v || dflt;
    },
    set(v) { if (v === null || v === undefined || v === false) this.removeAttribute(name); else this.setAttribute(name, v); },
    configurable: true,
  });
}
