// <paywasm-checkout>: the drop-in checkout element, and PayWasm.mount() over it.
//
// Everything the shopper sees is built with DOM calls (createElement, textContent, setAttribute):
// no innerHTML, no style attributes, so data from the server can never become markup and the
// element runs under style-src 'self'. The only markup parsed is the QR SVG, which the core draws
// from the module matrix (no text of the payment in it).
//
// One state machine decides what may be sent (`phase`, kept in this._s, mirrored as the host's
// custom states :state(idle) ... and, with an error shown, :state(error) and the `error` attribute):
//   idle      nothing of this order is under way: Pay is armed (with a valid order)
//   sending   one request is in flight (a payment POST, or the QR code's creation); reset() refuses
//   pending   a payment was taken and is not final yet (or money of a QR payment was seen)
//   final     paid, or money moved: every method stays locked for this order until reset()
//   ambiguous a payment request failed without a clear answer: it may have gone through; locked
//             until reset() (after the merchant checked the order)
// Every flow that sends goes through _busy() (one request at a time, the busy look, the outcome's
// phase); a status moves the phase with phaseOf(); reset() and an error of a request that certainly
// sent nothing (PayWasmError.notSent, or anything before the request) go back to idle.

const TAG = 'paywasm-checkout';
const EXCHANGE_NAMES = { coinbase: 'Coinbase', okcoin: 'OKCoin', kraken: 'Kraken', gemini: 'Gemini', binanceus: 'Binance.US' };
const camel = (name) => name.replace(/-(\w)/g, (m, c) => c.toUpperCase());

// kind -> 'tone icon' (tone picks the color; the words always say the same as the color); others 'info alert'
const STATUS_LOOK = {
  awaiting_payment: 'info clock', pending: 'info clock', processing: 'info clock', success: 'success check',
  failed: 'error cross', partial: 'warning alert', partial_closed: 'warning alert', timed_out: 'error clock',
  canceled: 'error cross',
};
// One path each (sub-paths in one `d`).
const ICONS = {
  check: 'M4 12.5l5 5L20 6.5',
  cross: 'M6 6l12 12M18 6L6 18',
  clock: 'M12 3a9 9 0 1 0 0 18a9 9 0 1 0 0-18zM12 7v5l3.5 2',
  alert: 'M12 3L2 20h20zM12 10v4M12 17v.5',
};
const SVG_NS = 'http://www.w3.org/2000/svg';
const LOADING_DELAY_MS = 200;
// Statuses after which nothing of the order was taken: the shopper may pay (again).
const NOTHING_TAKEN = ['awaiting_payment', 'failed', 'canceled', 'timed_out'];
const phaseOf = (info) => (NOTHING_TAKEN.includes(info.kind) ? 'idle' : info.final ? 'final' : 'pending');

let sharedSheet = null;
function styleSheet() {
  if (!sharedSheet) {
    sharedSheet = new CSSStyleSheet();
    sharedSheet.replaceSync(CSS_TEXT);
  }
  return sharedSheet;
}

// h('button', { class: 'pay', onclick: fn }, 'text', child): attributes as attributes, strings as
// text nodes. Never parses markup.
function h(tag, attrs, ...children) {
  const el = /^(svg|path)$/.test(tag) ? document.createElementNS(SVG_NS, tag) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat(9)) if (c !== null && c !== undefined && c !== false) el.append(c);
  return el;
}

const icon = (name) => h('svg', { viewBox: '0 0 24 24', class: 'icon', 'aria-hidden': 'true', focusable: 'false' }, h('path', { d: ICONS[name] }));

// `text` with the order id in it kept in one piece where it fits on a line (span.id: an inline
// block that breaks inside only when it is longer than a line).
function withId(text, id) {
  const i = id ? text.indexOf(id) : -1;
  return i < 0 ? text : [text.slice(0, i), h('span', { class: 'id' }, id), text.slice(i + id.length)];
}

// Intl.NumberFormat objects, kept per locale and currency (null: crypto amounts, all their digits).
// The first one of a page loads ICU data (10-30 ms): see connectedCallback. A symbol that several
// currencies use ('$', '¥') is replaced by the ISO code outside the currency's own country (the
// locale's likely region: "en" is en-US): German "25,80 USD", never "25,80 $"; English "$25.80".
const numberFormats = new Map();
function numberFormat(tag, currency) {
  const key = `${tag} ${currency || ''}`;
  let f = numberFormats.get(key);
  if (!f) {
    const style = { style: 'currency', currency };
    f = currency ? new Intl.NumberFormat(tag, style) : new Intl.NumberFormat(tag, { maximumFractionDigits: 18 });
    if (currency && /^[$¥]$/.test(f.formatToParts(1).find((p) => p.type === 'currency').value)
        && new Intl.Locale(tag).maximize().region !== currency.slice(0, 2)) {
      f = new Intl.NumberFormat(tag, Object.assign(style, { currencyDisplay: 'code' }));
    }
    numberFormats.set(key, f);
  }
  return f;
}

// a - b of two decimal texts, exactly ('0.00051234' - '0.0002' = '0.00031234'); '' when b >= a or
// either is not a decimal.
function minus(a, b) {
  const decimals = (x) => (x.split('.')[1] || '').length;
  const n = Math.max(decimals(a), decimals(b));
  try {
    const d = BigInt(a.replace('.', '') + '0'.repeat(n - decimals(a))) - BigInt(b.replace('.', '') + '0'.repeat(n - decimals(b)));
    const digits = d.toString().padStart(n + 1, '0');
    return d > 0 ? n ? `${digits.slice(0, -n)}.${digits.slice(-n)}`.replace(/\.?0+$/, '') : digits : '';
  } catch (e) {
    return '';
  }
}

// The colour of any CSS colour text as [r, g, b, a] (a 1x1 canvas reads it as sRGB), and its WCAG 2
// relative luminance + 0.05 (the contrast of two colours is the ratio of these).
let canvas = null;
function rgba(color) {
  canvas = canvas || document.createElement('canvas').getContext('2d', { willReadFrequently: true });
  canvas.fillStyle = '#000';
  canvas.fillStyle = color;
  canvas.fillRect(0, 0, 1, 1);
  return canvas.getImageData(0, 0, 1, 1).data;
}
const luminance = (c) => [0.2126, 0.7152, 0.0722].reduce((sum, w, i) => {
  const x = c[i] / 255;
  return sum + w * (x <= 0.04045 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4);
}, 0.05);
const contrast = (a, b) => { const x = luminance(a); const y = luminance(b); return x > y ? x / y : y / x; };

const words = (s) => String(s || '').split(/[\s,]+/).filter(Boolean);
let pinWarned = false;

class PayWasmCheckout extends HTMLElement {
  static get observedAttributes() { return Object.keys(ATTRIBUTES); }

  constructor() {
    super();
    this._root = this.attachShadow({ mode: 'open' });
    // Per element: the text colours on and of the brand colour (_colours), after the shared sheet.
    this._sheet = new CSSStyleSheet();
    this._root.adoptedStyleSheets = [styleSheet(), this._sheet];
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
    this._s = this._freshState();
    this._arm();
  }

  _freshState() {
    return {
      phase: 'idle', method: null, exchange: null, code2fa: '', savePassword: false,
      status: null, error: null, bad: null, greeting: null, qr: null,
    };
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
    if (this._core && this._getShopperToken && !this._s.greeting) this._greet();
  }
  // The QR transaction created by the merchant's server ({ok, result} or the result itself); shown
  // when nothing else of the order is under way.
  get qrResult() { return this._qrResult; }
  set qrResult(v) {
    this._qrResult = v;
    if (this._core && v && this._s.phase === 'idle') this._showQr(v);
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
        if (this._life === life) this._money('0', this._currency(), true);
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
    Promise.all([loading, formats, language]).then(() => loading).then((core) => {
      clearTimeout(slow);
      if (this._life !== life) return;
      this._core = core;
      this._render();
      const lang = this._locale.lang;
      if (!MESSAGES[lang]) loadLocale(lang).then(() => { if (this._life === life && MESSAGES[lang]) this._changed(); });
      if (this._qrResult && !this._s.qr) this._showQr(this._qrResult);
      this._greet();
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
      this._showError(e);
      settle(1, this._s.error, 'error');
    });
  }

  disconnectedCallback() { this._teardown(); }

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
    this._s = this._freshState();
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

  // Formats decimal text: fiat with Intl currency style, crypto with all its digits and the code.
  _money(value, currency, fiat) {
    if (value === null || value === undefined || value === '') return '';
    const v = String(value);
    try {
      if (fiat) return numberFormat(this._locale.tag, currency).format(v);
      return `${numberFormat(this._locale.tag, null).format(v)} ${currency || ''}`.trim();
    } catch (e) {
      return `${v} ${currency || ''}`.trim();
    }
  }

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
      const order = Object.assign(this._order('exchange'), { clientId: '-', code2fa: '' });
      this._total = JSON.parse(this._core.exchangePayload(order)).nativeAmount;
    } catch (e) {
      s.bad = e;
    }
  }

  // ---- rendering -------------------------------------------------------------------------------

  // The whole view from the state: until the core is there the loading message, else the form (an
  // order the page got wrong: its error alone, no total, nothing to pay), the status and the error;
  // then the phase onto the Pay buttons (armed only when idle with a valid order; the busy one says
  // what it is doing), aria-busy, and the host's custom states and `error` attribute.
  _render() {
    const s = this._s;
    const t = (k, v) => this._t(k, v);
    const core = this._core;
    const focusKey = this._root.activeElement && this._root.activeElement.dataset.key;
    clearInterval(this._tick);
    if (core) this._check();
    const err = s.bad || s.error;
    const methods = this._methods();
    if (!methods.includes(s.method)) s.method = methods[0] || null;
    const exchanges = this._exchanges();
    if (!exchanges.includes(s.exchange)) s.exchange = exchanges[0];
    const totalText = this._total && this._money(this._total, this._currency(), true);
    const payButton = (method) => this._payButton(method, t('pay', { amount: totalText || '' }).trim());
    // The shopper's field the core refused: aria-invalid, and the message under it (not in the box).
    const bad = err && err.field === 'code2fa' && s.method === 'exchange';
    const message = (headline, lines) => h('div', { class: 'message' }, h('p', {}, h('strong', {}, headline)), lines.map((l) => l && h('p', {}, l)));

    // Fresh elements: the value, checked and selected attributes give their state.
    const panels = {
      exchange: () => h('div', { class: 'panel', part: 'panel' },
        h('div', { class: 'field' },
          h('label', { for: 'exchange', part: 'label' }, t('exchange')),
          h('select', {
            id: 'exchange', part: 'select', 'data-key': 'exchange',
            onchange: (e) => { s.exchange = e.target.value; },
          }, exchanges.map((x) => h('option', { value: x, selected: x === s.exchange }, EXCHANGE_NAMES[x] || x)))),
        h('div', { class: 'field' },
          h('label', { for: 'code2fa', part: 'label' }, t('code2fa')),
          h('input', {
            id: 'code2fa', type: 'text', part: 'input', inputmode: 'numeric', autocomplete: 'one-time-code',
            maxlength: '10', 'data-key': 'code2fa', value: s.code2fa, 'aria-invalid': bad && 'true', 'aria-describedby': bad && 'code2fa-error',
            oninput: (e) => { s.code2fa = e.target.value.trim(); },
          }),
          bad && h('p', { id: 'code2fa-error', class: 'field-error' }, t('field.code2fa'))),
        h('div', { class: 'check' },
          h('input', {
            id: 'savepassword', type: 'checkbox', part: 'checkbox', 'data-key': 'savepassword', checked: s.savePassword,
            onchange: (e) => { s.savePassword = e.target.checked; },
          }),
          h('label', { for: 'savepassword', part: 'label' }, t('savePassword'))),
        payButton('exchange')),
      bank: () => h('div', { class: 'panel', part: 'panel' }, h('p', { class: 'muted' }, t('bankNote')), payButton('bank')),
      qr: () => h('div', { class: 'panel qr', part: 'panel qr-panel' }, s.qr ? this._qrView() : this._payButton('qr', t('showQr'))),
    };

    // The status: words (the tone's color and icon say the same), the amount, what comes next.
    let status = [];
    let tone = null;
    if (s.status) {
      const { info, transaction: tx, method } = s.status;
      const look = (STATUS_LOOK[info.kind] || 'info alert').split(' ');
      const lines = [];
      let headline = t(`status.${info.kind}`, { code: info.code });
      if (info.kind === 'partial') {
        const qr = s.qr;
        const crypto = qr ? qr.result.crytoCurrency || qr.result.cryptoCurrency : tx.currency;
        const amount = tx.amount || (qr && qr.uri.amount) || '';
        const received = tx.receivedAmount || '0';
        headline = t('status.partial', {
          received: this._money(received, crypto), amount: this._money(amount, crypto), missing: this._money(minus(amount, received), crypto),
        });
        lines.push(t('hint.partial'));
      }
      if (tx.nativeAmount && tx.nativeCurrency) lines.push(this._money(tx.nativeAmount, tx.nativeCurrency, true));
      // The amount again only when it is another currency (the crypto amount of a fiat price).
      if (tx.amount && tx.currency && tx.currency !== tx.nativeCurrency && info.kind !== 'partial') lines.push(this._money(tx.amount, tx.currency));
      if (!info.final && (method === 'bank' || method === 'exchange')) lines.push(t(`hint.${method}`));
      const offerId = (tx.meta && tx.meta.offerId) || this.offerId;
      lines.push(offerId && withId(t('order', { id: offerId }), offerId));
      tone = look[0];
      status = [icon(look[1]), message(headline, lines)];
    }
    if (err) err.localize(this._locale.lang);

    this._statusBox = h('div', { class: 'status', part: 'status', role: 'status', 'aria-live': 'polite', tabindex: '-1', 'data-tone': tone }, status);
    this._errorBox = h('div', { class: 'error', part: 'error', role: 'alert', tabindex: '-1', hidden: !err || bad },
      err && !bad && [icon('alert'), message(withId(err.userMessage, err.offerId), [err.nextStep])]);
    const root = h('div', core ? {
      class: 'root', part: 'container', role: 'region', 'aria-label': t('region'), lang: this._locale.tag,
      ontransitionend: () => this._colours(root),
    } : { class: 'root', part: 'container' },
    core ? [
      h('p', { class: 'greeting', part: 'greeting', hidden: !s.greeting }, s.greeting && t('greeting', { name: s.greeting })),
      s.bad ? null : [
        totalText && h('dl', { class: 'summary', part: 'summary' }, h('dt', {}, t('total')), h('dd', { part: 'total' }, totalText)),
        methods.length > 1 && h('fieldset', { part: 'methods' },
          h('legend', {}, t('payWith')),
          h('div', { class: 'methods' }, methods.map((m) => h('label', { class: 'method', part: 'method', for: `method-${m}` }, h('input', {
            type: 'radio', name: 'method', value: m, id: `method-${m}`, 'data-key': `method-${m}`, checked: m === s.method,
            onchange: () => { s.method = m; this._render(); },
          }), t(`method.${m}`))))),
        s.method && panels[s.method](),
        this._statusBox,
      ],
    ] : h('p', { class: 'muted', role: 'status' }, t('loading')),
    this._errorBox);
    this._root.replaceChildren(root);
    this._colours(root);
    const busy = s.phase === 'sending';
    for (const b of this._root.querySelectorAll('button.pay')) {
      b.disabled = s.phase !== 'idle' || !this._total;
      b.textContent = busy && b.dataset.key === `pay-${s.method}` ? t(s.method === 'qr' ? 'loadingQr' : 'paying') : b.dataset.label;
    }
    root.setAttribute('aria-busy', busy || !core);
    if (err) this.setAttribute('error', err.code);
    else this.removeAttribute('error');
    try {
      this._states.clear();
      this._states.add(s.phase);
      if (err) this._states.add('error');
    } catch (e) {
      // No CustomStateSet (or only its older --dashed form) in this browser: the attribute stays.
    }
    if (focusKey) {
      const again = this._root.querySelector(`[data-key="${focusKey}"]`);
      if (again) again.focus();
    }
    if (s.bad && s.bad.message !== this._badSeen) this._emit('paywasm-error', { error: s.bad });
    this._badSeen = s.bad && s.bad.message;
  }

  // The text on the brand colour and the brand colour as text keep 4.5:1 (WCAG AA) whatever colours
  // the merchant gives: --paywasm-accent-fg is kept when it reaches it on the accent, else the text
  // is black or white, whichever contrasts more; the accent as text (links, copy buttons, the info
  // icon, the chosen method's border) is darkened on a light background, lightened on a dark one,
  // until it reaches it. The result goes into this element's own sheet, never a style attribute.
  _colours(root) {
    const style = getComputedStyle(root);
    const bg = rgba(style.backgroundColor);
    const accent = rgba(style.getPropertyValue('--_accent'));
    // Black and white meet at luminance 0.179: one of them always reaches 4.58:1.
    const on = contrast(rgba(style.getPropertyValue('--_accent-fg')), accent) > 4.6 ? 'var(--_accent-fg)'
      : luminance(accent) > 0.229 ? '#000' : '#fff';
    const to = luminance(bg) > 0.229 ? 0 : 255;
    let text = accent;
    for (let i = 0; i < 20 && contrast(text, bg) < 4.6; i++) text = text.map((v) => v + (to - v) / 5);
    this._sheet.replaceSync(`.root{--_on:${on};--_text:rgb(${text.slice(0, 3)})}`);
  }

  // A Pay button (its text comes from _render: the label, or what it is busy doing).
  _payButton(method, label) {
    return h('button', {
      type: 'button', class: 'pay', part: 'button pay-button', 'data-key': `pay-${method}`, 'data-label': label,
      onclick: () => (method === 'qr' ? this._requestQr() : this._pay(method)),
    });
  }

  _qrView() {
    const s = this._s;
    const t = (k, v) => this._t(k, v);
    const qr = s.qr;
    const { result, uri } = qr;
    const kind = s.status ? s.status.info.kind : 'awaiting_payment';
    const tx = s.status ? s.status.transaction : {};
    if (qr.end <= Date.now()) qr.expired = true;
    const crypto = result.crytoCurrency || result.cryptoCurrency || uri.scheme.toUpperCase();
    const copy = (label, text, key) => h('button', {
      type: 'button', class: 'secondary', part: 'button copy-button', 'aria-label': label, 'data-key': key,
      onclick: (e) => this._copy(text, e.currentTarget),
    }, t('copy'));
    const details = (amountText, amount) => h('dl', { class: 'detail', part: 'address' },
      h('div', { class: 'row' }, h('dt', {}, t('address')),
        h('dd', {}, h('span', { class: 'value' }, uri.address), copy(t('copyAddress'), uri.address, 'copy-address'))),
      h('div', { class: 'row' }, h('dt', {}, t('amount')),
        h('dd', {}, h('span', { class: 'value' }, amountText), copy(t('copyAmount'), amount, 'copy-amount'))));
    // Part of the amount arrived: the rest goes to the same address. The code and the wallet link
    // ask for the whole amount, so they are gone.
    if (kind === 'partial') {
      const missing = minus(tx.amount || uri.amount, tx.receivedAmount || '0');
      return missing ? details(this._money(missing, crypto, false), missing) : null;
    }
    // Failed, timed out, canceled or past its expiry: nothing to scan any more; a new code instead.
    if (qr.expired || NOTHING_TAKEN.indexOf(kind) > 0) {
      return [h('p', {}, t('expired')), this.qrEndpoint && this._payButton('qr', t('newCode'))];
    }
    // A payment was seen (pending, processing, paid): the status says it all.
    if (kind !== 'awaiting_payment') return null;
    const cryptoAmount = this._money(uri.amount, crypto, false);
    const fiatAmount = this._money(result.totalAmount, result.currency, true);
    let countdown = null;
    if (qr.end) {
      countdown = h('p', { class: 'muted', role: 'timer' });
      const tick = () => {
        const left = Math.ceil((qr.end - Date.now()) / 1000);
        if (left <= 0) this._render();
        else countdown.textContent = t('expires', { time: `${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')}` });
      };
      tick();
      this._tick = setInterval(tick, 1000);
    }
    return [
      h('div', { class: 'qr-code', part: 'qr', role: 'img', 'aria-label': t('qrLabel') }, qr.svg.cloneNode(true)),
      h('p', { class: 'muted' }, t('scan')),
      countdown,
      details(fiatAmount ? `${cryptoAmount} (${fiatAmount})` : cryptoAmount, uri.amount),
      // The URI passed the core's wallet-scheme allow-list, so it is never javascript: or data:.
      h('a', { class: 'link', part: 'link', href: result.meta.qrString, 'data-key': 'wallet-link' }, t('openWallet')),
    ];
  }

  // Copies; without clipboard access, selects the value beside the button to copy by hand.
  _copy(text, button) {
    const t = (k) => { button.textContent = this._t(k); };
    const select = () => getSelection().selectAllChildren(button.previousElementSibling);
    if (navigator.clipboard) navigator.clipboard.writeText(text).then(() => { t('copied'); setTimeout(t, 2000, 'copy'); }, select);
    else select();
  }

  // ---- status and errors -----------------------------------------------------------------------

  // A status of the current payment: moves the phase (never out of final or ambiguous: only
  // reset() does that) and, when it changed, redraws and tells the page.
  _setStatus(info, transaction, method) {
    const s = this._s;
    const before = s.status;
    const changed = !before || before.info.code !== info.code || before.info.kind !== info.kind
      || (info.kind === 'partial' && before.transaction.receivedAmount !== transaction.receivedAmount);
    s.status = { info, transaction, method };
    if (s.phase !== 'final' && s.phase !== 'ambiguous') s.phase = phaseOf(info);
    if (changed || s.error) {
      s.error = null;
      this._render();
    }
    if (changed) {
      const detail = { status: info, transaction, method };
      this._emit('paywasm-status', detail);
      if (info.kind === 'success') this._emit('paywasm-complete', detail);
    }
  }

  _showError(e) {
    const err = e instanceof PayWasmError ? e : new PayWasmError('internal', String(e && e.message || e));
    this._s.error = err;
    this._render();
    this._emit('paywasm-error', { error: err });
  }

  // ---- flows -----------------------------------------------------------------------------------

  async _greet() {
    const life = this._life;
    try {
      let token = await this._token(false);
      if (!token || !this.baseUrl) return;
      const req = this._core.usersMeRequest(token, this._baseUrl());
      token = null;
      const res = await send(req, { timeoutMs: Math.min(this.timeout, 10000), retries: 2, signal: life.signal });
      const me = this._core.parseResponse('users-me', res);
      const name = String(me.firstName || (me.fullname || '').trim().split(/\s+/)[0] || '').trim().slice(0, 64);
      if (!name || this._life !== life) return;
      this._s.greeting = name;
      const el = this._root.querySelector('.greeting');
      if (el) {
        el.textContent = this._t('greeting', { name });
        el.hidden = false;
      }
    } catch (e) {
      // No greeting, no banner: the greeting is a courtesy.
    }
  }

  // The order in the service's shape, from the attributes and the page's cart as given: the core
  // fills the total and the lines' local amount and currency (complete_order_defaults).
  _order(method) {
    const base = { clientId: this.merchantId || '', cart: this._cart || [] };
    const currency = this._currency();
    const shippingAddress = this._shippingAddress || {};
    const offerId = this.offerId || '';
    const s = this._s;
    return method === 'exchange'
      ? Object.assign(base, { assets: this.asset, shippingAddress, offerId, savepassword: !!s.savePassword,
        code2fa: s.code2fa || '', merchantStoreCurrency: currency })
      : Object.assign(base, { accountId: this.accountId || '', stockId: this.stockId || '', offerId,
        merchantStoreCurrency: currency, hostedPageId: this.hostedPageId || '', shippingAddress });
  }

  // The one busy wrapper of every flow that sends: only from idle with a valid order (a second
  // click sends nothing), one request at a time, the busy look while it runs. `work` ends with a
  // status (_setStatus moves the phase); an error goes back to idle when nothing can have been
  // taken, or to ambiguous when the payment may have gone through.
  async _busy(method, work) {
    const s = this._s;
    if (s.phase !== 'idle' || !this._core || !this._total) return;
    const life = this._life;
    if (method !== 'qr') {
      // Paying another way: the QR code of this order (not paid: the phase is idle) goes.
      this._stop();
      s.qr = null;
    }
    s.method = method;
    s.phase = 'sending';
    s.error = null;
    this._render();
    try {
      await work(life);
    } catch (e) {
      if (this._life !== life) return;
      s.phase = e.mayHaveGoneThrough ? 'ambiguous' : 'idle';
      if (e instanceof PayWasmError && !e.method) e.method = method;
      this._showError(e);
      const field = this._root.getElementById(e.field || '-');
      (field || this._errorBox).focus();
    }
  }

  _pay(method) {
    return this._busy(method, async (life) => {
      const s = this._s;
      const endpoint = method === 'exchange' ? 'exchange-pay' : 'bank-pay';
      const offerId = this.offerId || '';
      const key = await this._publicKey();
      let token = await this._token(true);
      const req = this._core.paymentRequest({
        method, order: this._order(method), key, padding: this.padding,
        fingerprint: this.keyFingerprint || undefined, exchange: s.exchange, exchanges: this._exchanges(),
        token, baseUrl: this._baseUrl(),
      });
      token = null;
      const lang = this._locale.lang;
      const res = await send(req, { timeoutMs: this.timeout, signal: life.signal, payment: true, offerId, lang });
      let parsed;
      try {
        parsed = this._core.parseResponse(endpoint, res);
      } catch (e) {
        // A 5xx, or a 2xx the core cannot read: the service may have taken the payment.
        if (e.code === 'server' || (e.code === 'bad_response' && res.status < 300)) {
          throw new PayWasmError(e.code, e.message, { httpStatus: e.httpStatus || res.status, mayHaveGoneThrough: true, offerId, lang });
        }
        throw e;
      }
      if (this._life !== life) return;
      this._setStatus(parsed.status, parsed.transaction, method);
      this._statusBox.focus();
      // Later statuses (the service tells only the merchant): from the merchant's status-url.
      if (!parsed.status.final) this._watchStatus(parsed.transaction, method);
    });
  }

  // QR: the merchant's server creates the QR transaction (its token never reaches the browser). For
  // a new code (the last one failed, timed out or expired) the request also names the transaction
  // it replaces: {"replaces": "<id>"}.
  _requestQr() {
    return this._busy('qr', async (life) => {
      if (!this.qrEndpoint) throw new PayWasmError('usage', 'qr-endpoint is not set', { field: 'qr-endpoint' });
      const old = this._s.qr;
      const res = await send({
        method: 'POST', url: new URL(this.qrEndpoint, document.baseURI).href,
        headers: [['Content-Type', 'application/json'], ['Accept', 'application/json']],
        body: JSON.stringify({
          offerId: this.offerId || '', amount: this._total, currency: this._currency(),
          cryptoCurrency: this.asset.toUpperCase(), cart: this._cart || [],
          shippingAddress: this._shippingAddress || {}, replaces: old ? old.result.id : undefined,
        }),
      }, { timeoutMs: this.timeout, signal: life.signal, credentials: 'same-origin', lang: this._locale.lang });
      if (res.status < 200 || res.status > 299) {
        throw new PayWasmError(res.status >= 500 ? 'server' : 'validation', `qr-endpoint answered HTTP ${res.status}`, { httpStatus: res.status });
      }
      let data;
      try { data = JSON.parse(res.body); } catch (e) { throw new PayWasmError('bad_response', 'qr-endpoint did not answer JSON'); }
      if (this._life === life) this._showQr(data, true);
    });
  }

  // Shows a QR transaction (from qr-endpoint or qrResult). Its optional `expiresAt` (ISO time or
  // milliseconds since 1970) shows a countdown; past it, the code goes and a new one can be asked for.
  _showQr(data, thrown) {
    try {
      const result = data && data.result && data.ok !== undefined ? data.result : data;
      const qrString = result && result.meta && result.meta.qrString;
      if (typeof qrString !== 'string') throw new PayWasmError('bad_response', 'the QR result has no meta.qrString', { field: 'meta.qrString' });
      const uri = this._core.checkPaymentUri(qrString);
      const doc = new DOMParser().parseFromString(this._core.qrSvg(qrString, { ecc: 'M', border: 4 }), 'image/svg+xml');
      const svg = doc.documentElement;
      if (svg.localName !== 'svg' || svg.namespaceURI !== SVG_NS) throw new PayWasmError('internal', 'the QR SVG did not parse');
      svg.setAttribute('aria-hidden', 'true');
      svg.setAttribute('focusable', 'false');
      this._stop();
      const end = result.expiresAt;
      this._s.qr = { result, uri, svg: document.importNode(svg, true), end: typeof end === 'number' ? end : Date.parse(end) };
      this._s.method = 'qr';
      this._s.status = null;
      this._setStatus(this._core.describeStatus(typeof result.status === 'number' ? result.status : 10), { id: result.id, meta: result.meta }, 'qr');
      this._watchStatus(result);
    } catch (e) {
      if (thrown) throw e;
      this._showError(e);
    }
  }

  // Later statuses of a payment of any method come from the merchant's `status-url` ({id} and
  // {offerId} are filled in; the gateway's /v1/checkout/{id}/status), answering JSON like
  // {"status": 101, "receivedAmount": "0.0004"}: polled with back-off, or as server-sent events with
  // status-mode="sse". "state": "amount_mismatch" (the gateway found another amount paid than the
  // order's) is never shown as paid: the shopper is told to contact the shop.
  _watchStatus(result, method = 'qr') {
    if (!this.statusUrl || this._stopWatch) return;
    const url = new URL(this.statusUrl.replace('{id}', encodeURIComponent(result.id || ''))
      .replace('{offerId}', encodeURIComponent((result.meta && result.meta.offerId) || this.offerId || '')), document.baseURI).href;
    const onData = (text) => {
      let data;
      try { data = JSON.parse(text); } catch (e) { return false; }
      const tx = data && (data.result || data.transaction || data);
      if (!tx || typeof tx.status !== 'number') return false;
      if (tx.state === 'amount_mismatch') {
        this._s.phase = 'ambiguous';
        this._showError(new PayWasmError('amount_mismatch', 'the amount paid differs from the order', {
          mayHaveGoneThrough: true, offerId: this.offerId, method, lang: this._locale.lang }));
        return true;
      }
      const info = this._core.describeStatus(tx.status);
      this._setStatus(info, Object.assign({ id: result.id, meta: result.meta }, tx), method);
      return info.final;
    };
    if (this.statusMode === 'sse' && typeof EventSource === 'function') {
      const source = new EventSource(url, { withCredentials: true });
      source.onmessage = (ev) => { if (onData(ev.data)) stop(); };
      const stop = () => { source.close(); this._stopWatch = null; };
      this._stopWatch = stop;
      return;
    }
    const watch = new AbortController();
    const signal = this._life.signal;
    signal.addEventListener('abort', () => watch.abort(), { once: true });
    this._stopWatch = () => { watch.abort(); this._stopWatch = null; };
    (async () => {
      for (let n = 0; !watch.signal.aborted; n++) {
        try {
          await sleep(backoff(Math.min(n, 4), this.statusInterval, 30000), watch.signal);
          const res = await send({ method: 'GET', url, headers: [['Accept', 'application/json']] },
            { timeoutMs: 10000, signal: watch.signal, credentials: 'same-origin' });
          if (res.status >= 200 && res.status < 300 && onData(res.body)) break;
        } catch (e) {
          if (watch.signal.aborted) break;
        }
      }
      if (!watch.signal.aborted) this._stopWatch = null;
    })();
  }
}

// The typed properties of the attribute table: a number attribute reads as a number (its default
// when absent or not a positive number), a string one as the attribute, else its default (or null).
for (const [name, dflt] of Object.entries(ATTRIBUTES)) {
  Object.defineProperty(PayWasmCheckout.prototype, camel(name), {
    get() {
      const v = this.getAttribute(name);
      return typeof dflt === 'number' ? (+v > 0 ? +v : dflt) : v || dflt;
    },
    set(v) { if (v === null || v === undefined || v === false) this.removeAttribute(name); else this.setAttribute(name, v); },
    configurable: true,
  });
}

// Options of mount(): every attribute in camelCase, plus cart, shippingAddress, getShopperToken,
// qrResult.
const OBJECT_OPTIONS = ['cart', 'shippingAddress', 'getShopperToken', 'qrResult'];
function applyOptions(el, options) {
  for (const [k, v] of Object.entries(options || {})) {
    if (OBJECT_OPTIONS.includes(k) || k.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase()) in ATTRIBUTES) el[k] = v;
    else console.warn(`paywasm: mount() ignores the unknown option ${k}`);
  }
}

// Mounts a checkout on `target` (a <paywasm-checkout>, a container to put one in, or a selector)
// and returns its controller.
function mount(target, options) {
  const found = typeof target === 'string' ? document.querySelector(target) : target;
  if (!found || !(found instanceof Element)) {
    throw new PayWasmError('usage', `mount(): no element for ${typeof target === 'string' ? target : 'the given target'}`);
  }
  const created = found.localName !== TAG;
  const el = created ? document.createElement(TAG) : found;
  applyOptions(el, options);
  if (created) found.append(el);
  let listeners = [];  // [name, fn, listener]
  const eventName = (type) => (type.startsWith('paywasm-') ? type : `paywasm-${type}`);
  const controller = {
    element: el,
    ready: el.ready,
    // on('status', (detail, event) => ...) — also 'ready', 'error', 'complete'; returns an unsubscribe.
    on(type, fn) {
      const name = eventName(type);
      const listener = (event) => fn(event.detail, event);
      el.addEventListener(name, listener);
      listeners.push([name, fn, listener]);
      return () => controller.off(type, fn);
    },
    off(type, fn) {
      const name = eventName(type);
      // removeEventListener() returns undefined: the matching entries go
      listeners = listeners.filter((l) => l[0] !== name || l[1] !== fn || el.removeEventListener(name, l[2]));
    },
    update(next) { applyOptions(el, next); },
    // false (and nothing changes) while a request is in flight: see the element's reset().
    reset() { return el.reset(); },
    destroy() {
      for (const l of listeners) el.removeEventListener(l[0], l[2]);
      listeners = [];
      if (created) el.remove();
      else {
        el._teardown();
        el.shadowRoot.replaceChildren();
      }
    },
  };
  return controller;
}

if (!customElements.get(TAG)) customElements.define(TAG, PayWasmCheckout);
