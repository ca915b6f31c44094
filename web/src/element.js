// <paywasm-checkout>: the drop-in checkout element, and PayWasm.mount() over it.
//
// Everything the shopper sees is built with DOM calls (createElement, textContent, setAttribute):
// no innerHTML, no style attributes, so data from the server can never become markup and the
// element runs under style-src 'self'. The only markup parsed is the QR SVG, which the core draws
// from the module matrix (no text of the payment in it).

const TAG = 'paywasm-checkout';
const EXCHANGE_NAMES = { coinbase: 'Coinbase', okcoin: 'OKCoin', kraken: 'Kraken', gemini: 'Gemini', binanceus: 'Binance.US' };
const STRING_ATTRIBUTES = [
  'base-url', 'merchant-id', 'public-key', 'public-key-url', 'key-fingerprint', 'currency', 'offer-id',
  'methods', 'exchanges', 'locale', 'theme', 'asset', 'padding', 'wasm-url', 'qr-endpoint', 'status-url',
  'status-mode', 'account-id', 'stock-id', 'hosted-page-id', 'timeout',
];
const RERENDER_ATTRIBUTES = ['locale', 'methods', 'exchanges', 'currency', 'qr-endpoint', 'stock-id'];
const camel = (name) => name.replace(/-(\w)/g, (m, c) => c.toUpperCase());

// kind -> [tone, icon] (tone picks the color; the words always say the same as the color)
const STATUS_LOOK = {
  awaiting_payment: ['info', 'clock'], pending: ['info', 'clock'], processing: ['info', 'clock'],
  success: ['success', 'check'], failed: ['error', 'cross'], partial: ['warning', 'alert'],
  partial_closed: ['warning', 'alert'], timed_out: ['error', 'clock'], canceled: ['error', 'cross'],
  refund: ['info', 'alert'], unknown: ['info', 'alert'],
};
const ICON_PATHS = {
  check: ['M4 12.5l5 5L20 6.5'],
  cross: ['M6 6l12 12', 'M18 6L6 18'],
  clock: ['M12 3a9 9 0 1 0 0 18a9 9 0 1 0 0-18z', 'M12 7v5l3.5 2'],
  alert: ['M12 3L2 20h20z', 'M12 10v4', 'M12 17v.5'],
};
const SVG_NS = 'http://www.w3.org/2000/svg';
const LOADING_DELAY_MS = 200;

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
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) el.append(c);
  return el;
}

function icon(name) {
  const svg = document.createElementNS(SVG_NS, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('class', 'icon');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  for (const d of ICON_PATHS[name]) {
    const p = document.createElementNS(SVG_NS, 'path');
    p.setAttribute('d', d);
    svg.append(p);
  }
  return svg;
}

// Intl.NumberFormat objects, kept per locale and currency (null: crypto amounts, all their digits).
// The first one of a page loads ICU data (10-30 ms): see connectedCallback.
const numberFormats = new Map();
function numberFormat(tag, currency) {
  const key = `${tag} ${currency || ''}`;
  let f = numberFormats.get(key);
  if (!f) {
    f = currency ? new Intl.NumberFormat(tag, { style: 'currency', currency })
      : new Intl.NumberFormat(tag, { maximumFractionDigits: 18 });
    numberFormats.set(key, f);
  }
  return f;
}

const words = (s) => String(s || '').split(/[\s,]+/).filter(Boolean);

class PayWasmCheckout extends HTMLElement {
  static get observedAttributes() { return STRING_ATTRIBUTES; }

  constructor() {
    super();
    this._root = this.attachShadow({ mode: 'open' });
    this._root.adoptedStyleSheets = [styleSheet()];
    this._core = null;
    this._life = null;        // AbortController of the connected period
    this._cart = null;
    this._shippingAddress = null;
    this._qrResult = null;
    this._getShopperToken = null;
    this._keyCache = null;
    this._stopWatch = null;
    this._s = this._freshState();
  }

  _freshState() {
    return {
      method: null, exchange: null, code2fa: '', savePassword: false, stockId: null,
      inFlight: false, paid: false, locked: false, status: null, error: null, greeting: null, qr: null,
    };
  }

  // ---- properties ------------------------------------------------------------------------------

  get cart() { return this._cart; }
  set cart(v) { this._cart = v; this._changed(); }
  get shippingAddress() { return this._shippingAddress; }
  set shippingAddress(v) { this._shippingAddress = v; }
  // Async callback returning the shopper's access token; called for each request, never stored.
  get getShopperToken() { return this._getShopperToken; }
  set getShopperToken(fn) {
    this._getShopperToken = typeof fn === 'function' ? fn : null;
    if (this._core && this._getShopperToken && !this._s.greeting) this._greet();
  }
  // The QR transaction created by the merchant's server ({ok, result} or the result itself).
  get qrResult() { return this._qrResult; }
  set qrResult(v) {
    this._qrResult = v;
    if (this._core && v) this._showQr(v);
  }

  // ---- lifecycle -------------------------------------------------------------------------------

  connectedCallback() {
    if (this._life) return;
    this._life = new AbortController();
    const life = this._life;
    // First, so that a wasm-url of its own starts downloading before anything is drawn.
    const loading = load({ wasmUrl: this.wasmUrl || undefined });
    // The first render waits for the shopper's language file (never fails; 2 s at most).
    const language = languageWithin(this._locale.lang);
    this._readInlineData();
    if (document.readyState === 'loading') {
      // Upgraded while the parser is still inside the element: its JSON child comes later.
      document.addEventListener('DOMContentLoaded', () => {
        if (this._life !== life) return;
        if (this._readInlineData() && this._core) this._render();
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
      if (this._life === life && !this._core) this._renderLoading();
    }, LOADING_DELAY_MS);
    Promise.all([loading, formats, language]).then(() => loading).then((core) => {
      clearTimeout(slow);
      if (this._life !== life) return;
      this._core = core;
      this._render();
      const lang = this._locale.lang;
      if (!MESSAGES[lang]) loadLocale(lang).then(() => { if (this._life === life && MESSAGES[lang]) this._changed(); });
      if (this._qrResult) this._showQr(this._qrResult);
      this._greet();
      this._emit('paywasm-ready', { methods: this._methods() });
      this._warmUp(life);
    }, (e) => {
      clearTimeout(slow);
      if (this._life !== life) return;
      if (!this._root.querySelector('.error')) this._renderLoading();
      this._showError(e);
    });
  }

  disconnectedCallback() { this._teardown(); }

  // WebAssembly functions are compiled on their first call: when the page is idle after the first
  // render, one throwaway encryption of '{}' to the merchant's public key (public data, nothing is
  // sent or kept) compiles the encryption code, so the pay click does not wait for that.
  _warmUp(life) {
    if (!this.publicKey) return;
    const run = () => {
      if (this._life !== life || this._s.inFlight) return;
      try {
        this._core.encrypt(this.publicKey, '{}', { padding: this.padding || undefined, fingerprint: this.keyFingerprint || undefined });
      } catch (e) {
        // A bad key or a pin that does not match is reported when the shopper pays.
      }
    };
    if (typeof requestIdleCallback === 'function') requestIdleCallback(run, { timeout: 1000 });
    else setTimeout(run, 50);
  }

  attributeChangedCallback(name, before, after) {
    if (before === after) return;
    if (name === 'public-key' || name === 'public-key-url') this._keyCache = null;
    if (name === 'locale') loadLocale(this._locale.lang).then(() => this._changed());
    if (this._core && RERENDER_ATTRIBUTES.includes(name)) this._render();
  }

  // Stops network activity and status watching; the element can be connected again.
  _teardown() {
    if (this._life) this._life.abort();
    this._life = null;
    if (this._stopWatch) this._stopWatch();
    this._stopWatch = null;
  }

  // Clears status, error, QR and the one-payment lock, for a new order (set a new offer-id first).
  reset() {
    if (this._stopWatch) this._stopWatch();
    this._stopWatch = null;
    const keep = this._s;
    this._s = this._freshState();
    this._s.method = keep.method;
    this._s.exchange = keep.exchange;
    this._s.greeting = keep.greeting;
    if (this._core) this._render();
  }

  // ---- helpers ---------------------------------------------------------------------------------

  get _locale() { return pickLocale(this.locale); }
  _t(key, vars) { return translate(this._locale.lang, key, vars); }

  _emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
  }

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

  _methods() {
    const wanted = words(this.methods || 'exchange qr');
    return wanted.filter((m, i) => wanted.indexOf(m) === i && (m === 'exchange' || m === 'bank'
      || (m === 'qr' && (this.qrEndpoint || this._qrResult))));
  }

  _exchanges() {
    const list = words(this.exchanges).map((x) => x.toLowerCase());
    return list.length ? list : Object.keys(EXCHANGE_NAMES);
  }

  _currency() { return (this.currency || 'USD').toUpperCase(); }

  _total() {
    if (!Array.isArray(this._cart) || !this._cart.length) return null;
    try { return this._core.cartTotal(this._cart); } catch (e) { return null; }
  }

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

  _timeout() {
    const ms = parseInt(this.timeout, 10);
    return ms > 0 ? ms : 20000;
  }

  _baseUrl() {
    if (!this.baseUrl) throw new PayWasmError('usage', 'base-url is not set', { field: 'base-url' });
    return new URL(this.baseUrl, document.baseURI).href;
  }

  async _token(required) {
    let token = null;
    if (this._getShopperToken) {
      try {
        token = await this._getShopperToken();
      } catch (e) {
        if (required) throw new PayWasmError('unauthorized', 'getShopperToken() failed');
        return null;
      }
    }
    if (!token && required) {
      throw new PayWasmError('unauthorized', 'no shopper token: set getShopperToken to an async function returning it');
    }
    return token ? String(token) : null;
  }

  async _publicKey() {
    if (this.publicKey) return this.publicKey;
    if (!this.publicKeyUrl) throw new PayWasmError('usage', 'public-key or public-key-url is required', { field: 'public-key' });
    if (!this._keyCache) {
      const url = new URL(this.publicKeyUrl, document.baseURI).href;
      const res = await send({ method: 'GET', url, headers: [['Accept', 'application/x-pem-file, text/plain']] },
        { timeoutMs: this._timeout(), retries: 2, signal: this._life.signal, credentials: 'same-origin' });
      if (res.status < 200 || res.status > 299) {
        throw new PayWasmError(res.status >= 500 ? 'server' : 'invalid_key', `public-key-url answered HTTP ${res.status}`, { httpStatus: res.status });
      }
      this._keyCache = res.body;
    }
    return this._keyCache;
  }

  // ---- rendering -------------------------------------------------------------------------------

  _renderLoading() {
    this._root.replaceChildren(h('div', { class: 'root', part: 'container', 'aria-busy': 'true' },
      h('p', { class: 'muted', role: 'status' }, translate(pickLocale(this.locale).lang, 'loading')),
      h('div', { class: 'error', part: 'error', role: 'alert', hidden: true, tabindex: '-1' })));
  }

  _render() {
    const s = this._s;
    const t = (k, v) => this._t(k, v);
    const focusKey = this._root.activeElement && this._root.activeElement.dataset.key;
    const methods = this._methods();
    if (!methods.includes(s.method)) s.method = methods[0] || null;
    const exchanges = this._exchanges();
    if (!exchanges.includes(s.exchange)) s.exchange = exchanges[0];
    if (s.stockId === null) s.stockId = this.stockId || '';
    const total = this._total();
    const totalText = total ? this._money(total, this._currency(), true) : '';
    const payLabel = () => (total ? t('pay', { amount: totalText }) : t('pay', { amount: '' }).trim());

    const greeting = h('p', { class: 'greeting', part: 'greeting', hidden: !s.greeting });
    if (s.greeting) greeting.textContent = t('greeting', { name: s.greeting });

    const payButton = (method) => h('button', {
      type: 'button', class: 'pay', part: 'button pay-button', 'data-key': `pay-${method}`,
      'data-label': payLabel(), onclick: () => this._pay(method),
    }, payLabel());

    const panels = {
      exchange: () => h('div', { class: 'panel', part: 'panel' },
        h('div', { class: 'field' },
          h('label', { for: 'exchange', part: 'label' }, t('exchange')),
          h('select', {
            id: 'exchange', part: 'select', 'data-key': 'exchange',
            onchange: (e) => { s.exchange = e.target.value; },
          }, exchanges.map((x) => {
            const o = h('option', { value: x }, EXCHANGE_NAMES[x] || x);
            o.selected = x === s.exchange;
            return o;
          }))),
        h('div', { class: 'field' },
          h('label', { for: 'code2fa', part: 'label' }, t('code2fa')),
          (() => {
            const input = h('input', {
              id: 'code2fa', type: 'text', part: 'input', inputmode: 'numeric', autocomplete: 'one-time-code',
              maxlength: '10', 'data-key': 'code2fa', oninput: (e) => { s.code2fa = e.target.value.trim(); },
            });
            input.value = s.code2fa;
            return input;
          })()),
        h('div', { class: 'check' },
          (() => {
            const box = h('input', {
              id: 'savepassword', type: 'checkbox', part: 'checkbox', 'data-key': 'savepassword',
              onchange: (e) => { s.savePassword = e.target.checked; },
            });
            box.checked = s.savePassword;
            return box;
          })(),
          h('label', { for: 'savepassword', part: 'label' }, t('savePassword'))),
        payButton('exchange')),
      bank: () => h('div', { class: 'panel', part: 'panel' },
        h('p', { class: 'muted' }, t('bankNote')),
        h('div', { class: 'field' },
          h('label', { for: 'stockid', part: 'label' }, t('stockId')),
          (() => {
            const input = h('input', {
              id: 'stockid', type: 'text', part: 'input', autocomplete: 'off', 'data-key': 'stockid',
              oninput: (e) => { s.stockId = e.target.value.trim(); },
            });
            input.value = s.stockId;
            return input;
          })()),
        payButton('bank')),
      qr: () => h('div', { class: 'panel qr', part: 'panel qr-panel' },
        s.qr ? this._qrView() : h('button', {
          type: 'button', class: 'pay', part: 'button pay-button', 'data-key': 'pay-qr',
          onclick: () => this._requestQr(),
        }, t('showQr'))),
    };

    const methodPicker = methods.length > 1 ? h('fieldset', { part: 'methods' },
      h('legend', {}, t('payWith')),
      h('div', { class: 'methods' }, methods.map((m) => {
        const radio = h('input', {
          type: 'radio', name: 'method', value: m, id: `method-${m}`, 'data-key': `method-${m}`,
          onchange: () => { s.method = m; this._render(); },
        });
        radio.checked = m === s.method;
        return h('label', { class: 'method', part: 'method', for: `method-${m}` }, radio, t(`method.${m}`));
      }))) : null;

    this._statusBox = h('div', { class: 'status', part: 'status', role: 'status', 'aria-live': 'polite', tabindex: '-1' });
    this._errorBox = h('div', { class: 'error', part: 'error', role: 'alert', hidden: true, tabindex: '-1' });
    const root = h('div', {
      class: 'root', part: 'container', role: 'region', 'aria-label': t('region'), lang: this._locale.tag,
    },
    greeting,
    h('dl', { class: 'summary', part: 'summary' }, h('dt', {}, t('total')), h('dd', { part: 'total' }, totalText || '–')),
    methodPicker,
    s.method ? panels[s.method]() : null,
    this._statusBox,
    this._errorBox);
    this._root.replaceChildren(root);
    this._paintStatus();
    this._paintError();
    this._syncButtons();
    if (focusKey) {
      const again = this._root.querySelector(`[data-key="${focusKey}"]`);
      if (again) again.focus();
    }
  }

  _qrView() {
    const t = (k, v) => this._t(k, v);
    const { result, uri, svg } = this._s.qr;
    const code = h('div', { class: 'qr-code', part: 'qr', role: 'img', 'aria-label': t('qrLabel') });
    code.append(svg.cloneNode(true));
    const crypto = result.crytoCurrency || result.cryptoCurrency || uri.scheme.toUpperCase();
    const cryptoAmount = this._money(uri.amount, crypto, false);
    const fiatAmount = this._money(result.totalAmount, result.currency, true);
    const copy = (label, text, key) => h('button', {
      type: 'button', class: 'secondary', part: 'button copy-button', 'aria-label': label, 'data-key': key,
      onclick: (e) => this._copy(text, e.currentTarget),
    }, t('copy'));
    return [
      code,
      h('p', { class: 'muted' }, t('scan')),
      h('dl', { class: 'detail', part: 'address' },
        h('div', { class: 'row' }, h('dt', {}, t('address')),
          h('dd', {}, h('span', { class: 'value' }, uri.address), copy(t('copyAddress'), uri.address, 'copy-address'))),
        h('div', { class: 'row' }, h('dt', {}, t('amount')),
          h('dd', {}, h('span', { class: 'value' }, fiatAmount ? `${cryptoAmount} (${fiatAmount})` : cryptoAmount),
            copy(t('copyAmount'), uri.amount, 'copy-amount')))),
      // The URI passed the core's wallet-scheme allow-list, so it is never javascript: or data:.
      h('a', { class: 'link', part: 'link', href: result.meta.qrString, 'data-key': 'wallet-link' }, t('openWallet')),
    ];
  }

  _copy(text, button) {
    const done = () => {
      button.textContent = this._t('copied');
      setTimeout(() => { button.textContent = this._t('copy'); }, 2000);
    };
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(text).then(done, () => this._selectNextTo(button));
    } else {
      this._selectNextTo(button);
    }
  }

  // Without clipboard access, select the value so the shopper can copy it by hand.
  _selectNextTo(button) {
    const dd = button.previousElementSibling;  // the .value span beside the button
    const range = document.createRange();
    range.selectNodeContents(dd);
    const sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
  }

  _syncButtons() {
    const s = this._s;
    for (const b of this._root.querySelectorAll('button.pay')) {
      b.disabled = s.inFlight || s.paid || s.locked;
      if (s.inFlight && b.dataset.key === `pay-${s.method}`) b.textContent = this._t('paying');
      else if (b.dataset.label) b.textContent = b.dataset.label;
    }
    const root = this._root.firstElementChild;
    if (root) root.setAttribute('aria-busy', s.inFlight ? 'true' : 'false');
  }

  // ---- status and errors -----------------------------------------------------------------------

  _setStatus(info, transaction, method) {
    const before = this._s.status;
    this._s.status = { info, transaction, method };
    this._s.error = null;
    this._paintStatus();
    this._paintError();
    if (!before || before.info.code !== info.code || before.info.kind !== info.kind
        || (info.kind === 'partial' && before.transaction.receivedAmount !== transaction.receivedAmount)) {
      const detail = { status: info, transaction, method };
      this._emit('paywasm-status', detail);
      if (info.kind === 'success') this._emit('paywasm-complete', detail);
    }
  }

  _paintStatus() {
    const box = this._statusBox;
    if (!box) return;
    const st = this._s.status;
    if (!st) { box.replaceChildren(); box.removeAttribute('data-tone'); return; }
    const t = (k, v) => this._t(k, v);
    const { info, transaction: tx, method } = st;
    const [tone, iconName] = STATUS_LOOK[info.kind] || STATUS_LOOK.unknown;
    box.setAttribute('data-tone', tone);
    const lines = [];
    let headline;
    if (info.kind === 'partial') {
      const crypto = this._s.qr ? (this._s.qr.result.crytoCurrency || '') : tx.currency || '';
      const amount = tx.amount || (this._s.qr && this._s.qr.uri.amount);
      headline = t('status.partial', { received: this._money(tx.receivedAmount || '0', crypto, false), amount: this._money(amount, crypto, false) });
    } else {
      headline = t(`status.${info.kind}`, { code: info.code });
    }
    if (tx && tx.nativeAmount && tx.nativeCurrency) lines.push(this._money(tx.nativeAmount, tx.nativeCurrency, true));
    if (tx && tx.amount && tx.currency && info.kind !== 'partial') lines.push(this._money(tx.amount, tx.currency, false));
    if (!info.final && method === 'bank') lines.push(t('hint.bank'));
    else if (!info.final && method === 'exchange') lines.push(t('hint.crypto'));
    const offerId = (tx && tx.meta && tx.meta.offerId) || this.offerId;
    if (offerId) lines.push(t('order', { id: offerId }));
    box.replaceChildren(icon(iconName), h('div', { class: 'message' },
      h('p', {}, h('strong', {}, headline)), lines.map((l) => h('p', {}, l))));
  }

  _showError(e) {
    const err = e instanceof PayWasmError ? e : new PayWasmError('internal', String(e && e.message || e));
    err.localize(this._locale.lang);
    this._s.error = err;
    if (err.mayHaveGoneThrough) this._s.locked = true;
    if (!this._errorBox) this._errorBox = this._root.querySelector('.error');
    this._paintError();
    this._syncButtons();
    this._emit('paywasm-error', { error: err });
  }

  _paintError() {
    const box = this._errorBox;
    if (!box) return;
    const err = this._s.error;
    box.hidden = !err;
    if (!err) { box.replaceChildren(); return; }
    err.localize(this._locale.lang);
    box.replaceChildren(icon('alert'), h('div', { class: 'message' },
      h('p', {}, h('strong', {}, err.userMessage)), err.nextStep ? h('p', {}, err.nextStep) : null));
  }

  _clearError() {
    this._s.error = null;
    this._paintError();
  }

  // ---- flows -----------------------------------------------------------------------------------

  async _greet() {
    const life = this._life;
    try {
      let token = await this._token(false);
      if (!token || !this.baseUrl) return;
      const req = this._core.usersMeRequest(token, this._baseUrl());
      token = null;
      const res = await send(req, { timeoutMs: Math.min(this._timeout(), 10000), retries: 2, signal: life.signal });
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
      ? Object.assign(base, { assets: this.asset || 'BTC', shippingAddress, offerId, savepassword: !!s.savePassword,
        code2fa: s.code2fa || '', merchantStoreCurrency: currency })
      : Object.assign(base, { accountId: this.accountId || '', stockId: s.stockId || '', offerId,
        merchantStoreCurrency: currency, hostedPageId: this.hostedPageId || '', shippingAddress });
  }

  async _pay(method) {
    const s = this._s;
    if (s.inFlight || s.paid || s.locked || !this._core) return;  // a second click sends nothing
    s.inFlight = true;
    s.method = method;
    this._clearError();
    this._syncButtons();
    const life = this._life;
    const endpoint = method === 'exchange' ? 'exchange-pay' : 'bank-pay';
    const offerId = this.offerId || '';
    try {
      if (!this._total()) throw new PayWasmError('validation', 'the cart is empty or invalid', { field: 'cart' });
      const key = await this._publicKey();
      let token = await this._token(true);
      const req = this._core.paymentRequest({
        method, order: this._order(method), key, padding: this.padding || undefined,
        fingerprint: this.keyFingerprint || undefined, exchange: s.exchange, exchanges: this._exchanges(),
        token, baseUrl: this._baseUrl(),
      });
      token = null;
      const lang = this._locale.lang;
      const res = await send(req, { timeoutMs: this._timeout(), signal: life.signal, payment: true, offerId, lang });
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
      s.paid = !(parsed.status.kind === 'failed' || parsed.status.kind === 'canceled');
      s.inFlight = false;
      this._setStatus(parsed.status, parsed.transaction, method);
      this._syncButtons();
      if (this._statusBox) this._statusBox.focus();
    } catch (e) {
      if (this._life !== life) return;
      s.inFlight = false;
      this._render();
      this._showError(e);
      if (this._errorBox) this._errorBox.focus();
    } finally {
      s.inFlight = false;
      if (this._life === life) this._syncButtons();
    }
  }

  // QR: the merchant's server creates the QR transaction (its token never reaches the browser).
  async _requestQr() {
    const s = this._s;
    if (s.inFlight || s.qr || !this._core) return;
    s.inFlight = true;
    s.method = 'qr';
    this._clearError();
    this._syncButtons();
    const life = this._life;
    try {
      if (!this.qrEndpoint) throw new PayWasmError('usage', 'qr-endpoint is not set', { field: 'qr-endpoint' });
      const total = this._total();
      const body = JSON.stringify({
        offerId: this.offerId || '', amount: total, currency: this._currency(),
        cryptoCurrency: (this.asset || 'BTC').toUpperCase(), cart: this._cart || [],
        shippingAddress: this._shippingAddress || {},
      });
      const res = await send({
        method: 'POST', url: new URL(this.qrEndpoint, document.baseURI).href,
        headers: [['Content-Type', 'application/json'], ['Accept', 'application/json']], body,
      }, { timeoutMs: this._timeout(), signal: life.signal, credentials: 'same-origin', lang: this._locale.lang });
      if (res.status < 200 || res.status > 299) {
        throw new PayWasmError(res.status >= 500 ? 'server' : 'validation', `qr-endpoint answered HTTP ${res.status}`, { httpStatus: res.status });
      }
      let data;
      try { data = JSON.parse(res.body); } catch (e) { throw new PayWasmError('bad_response', 'qr-endpoint did not answer JSON'); }
      if (this._life !== life) return;
      s.inFlight = false;
      this._showQr(data);
    } catch (e) {
      if (this._life !== life) return;
      s.inFlight = false;
      this._showError(e);
      if (this._errorBox) this._errorBox.focus();
    } finally {
      s.inFlight = false;
      if (this._life === life) this._syncButtons();
    }
  }

  _showQr(data) {
    try {
      const result = data && data.result && data.ok !== undefined ? data.result : data;
      const qrString = result && result.meta && result.meta.qrString;
      if (typeof qrString !== 'string') throw new PayWasmError('bad_response', 'the QR result has no meta.qrString', { field: 'meta.qrString' });
      const uri = this._core.checkPaymentUri(qrString);
      const markup = this._core.qrSvg(qrString, { ecc: 'M', border: 4 });
      const doc = new DOMParser().parseFromString(markup, 'image/svg+xml');
      const svg = doc.documentElement;
      if (svg.localName !== 'svg' || svg.namespaceURI !== SVG_NS) throw new PayWasmError('internal', 'the QR SVG did not parse');
      svg.setAttribute('aria-hidden', 'true');
      svg.setAttribute('focusable', 'false');
      this._s.qr = { result, uri, svg: document.importNode(svg, true) };
      this._s.method = 'qr';
      this._render();
      const code = typeof result.status === 'number' ? result.status : 10;
      this._setStatus(this._core.describeStatus(code), { id: result.id, meta: result.meta }, 'qr');
      this._watchStatus(result);
    } catch (e) {
      this._showError(e);
    }
  }

  // Later statuses of a QR payment come from the merchant's `status-url` ({id} and {offerId} are
  // filled in), answering JSON like {"status": 101, "receivedAmount": "0.0004"}: polled with
  // back-off, or as server-sent events with status-mode="sse".
  _watchStatus(result) {
    if (!this.statusUrl || this._stopWatch) return;
    const url = new URL(this.statusUrl.replace('{id}', encodeURIComponent(result.id || ''))
      .replace('{offerId}', encodeURIComponent((result.meta && result.meta.offerId) || this.offerId || '')), document.baseURI).href;
    const onData = (text) => {
      let data;
      try { data = JSON.parse(text); } catch (e) { return false; }
      const tx = data && (data.result || data.transaction || data);
      if (!tx || typeof tx.status !== 'number') return false;
      const info = this._core.describeStatus(tx.status);
      this._setStatus(info, Object.assign({ id: result.id, meta: result.meta }, tx), 'qr');
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
    const base = parseInt(this.getAttribute('status-interval'), 10) || 2000;
    (async () => {
      for (let n = 0; !watch.signal.aborted; n++) {
        try {
          await sleep(backoff(Math.min(n, 4), base, 30000), watch.signal);
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

for (const name of STRING_ATTRIBUTES) {
  Object.defineProperty(PayWasmCheckout.prototype, camel(name), {
    get() { return this.getAttribute(name); },
    set(v) { if (v === null || v === undefined || v === false) this.removeAttribute(name); else this.setAttribute(name, String(v)); },
    configurable: true,
  });
}

// Options of mount(): every attribute in camelCase, plus cart, shippingAddress, getShopperToken,
// qrResult.
const OBJECT_OPTIONS = ['cart', 'shippingAddress', 'getShopperToken', 'qrResult'];
function applyOptions(el, options) {
  for (const [k, v] of Object.entries(options || {})) {
    if (OBJECT_OPTIONS.includes(k) || STRING_ATTRIBUTES.includes(k.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase()))) el[k] = v;
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
  const listeners = [];
  const eventName = (type) => (type.startsWith('paywasm-') ? type : `paywasm-${type}`);
  const controller = {
    element: el,
    // on('status', (detail, event) => ...) — also 'ready', 'error', 'complete'; returns an unsubscribe.
    on(type, fn) {
      const name = eventName(type);
      const listener = (event) => fn(event.detail, event);
      el.addEventListener(name, listener);
      listeners.push({ name, fn, listener });
      return () => controller.off(type, fn);
    },
    off(type, fn) {
      const name = eventName(type);
      for (let i = listeners.length - 1; i >= 0; i--) {
        if (listeners[i].name === name && listeners[i].fn === fn) {
          el.removeEventListener(name, listeners[i].listener);
          listeners.splice(i, 1);
        }
      }
    },
    update(next) { applyOptions(el, next); },
    reset() { el.reset(); },
    destroy() {
      for (const l of listeners.splice(0)) el.removeEventListener(l.name, l.listener);
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
