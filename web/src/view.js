// The view of a checkout: render(el) draws the whole of it from the element's state (el._s) and
// the page's order, with dom.js (no markup is ever parsed; the one SVG that is, the QR code, is
// drawn by the core and parsed in flows.js). The buttons start the flows of flows.js.
import { CSS_TEXT } from 'paywasm:build';
import { h, icon, withId } from './dom.js';
import { pay, requestQr } from './flows.js';

export const EXCHANGE_NAMES = { coinbase: 'Coinbase', okcoin: 'OKCoin', kraken: 'Kraken', gemini: 'Gemini', binanceus: 'Binance.US' };

// The icon of each tone of the core's status table (the tone picks the colour; the words always
// say the same as the colour and the icon).
const TONE_ICON = { info: 'clock', success: 'check', warning: 'alert', error: 'cross' };

let sharedSheet = null;
export function styleSheet() {
  if (!sharedSheet) {
    sharedSheet = new CSSStyleSheet();
    sharedSheet.replaceSync(CSS_TEXT);
  }
  return sharedSheet;
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

// Whether `currency` is money Intl can format as a currency (an ISO 4217 code: USD, EUR, ...), or a
// crypto asset (BTC, ETH, ...). Without Intl.supportedValuesOf (before Safari 15.4), the shop's own
// currency is the only fiat one.
let isoCurrencies = null;
function isFiat(el, currency) {
  if (!isoCurrencies) {
    try { isoCurrencies = new Set(Intl.supportedValuesOf('currency')); } catch (e) { isoCurrencies = new Set(); }
  }
  return isoCurrencies.has(currency) || currency === el._currency();
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

// An amount as the shopper reads it, the same way wherever it is shown: fiat with Intl's currency
// style ("$82.00", German "82,00 USD"), crypto with all its digits and the code ("0.00128126 BTC").
// value: decimal text (a number is shown as JS writes it); never throws ('' for no value).
export function money(el, value, currency) {
  if (value === null || value === undefined || value === '') return '';
  const v = String(value);
  const code = String(currency || '').toUpperCase();
  try {
    if (code && isFiat(el, code)) return numberFormat(el._locale.tag, code).format(v);
    return `${numberFormat(el._locale.tag, null).format(v)} ${code}`.trim();
  } catch (e) {
    return `${v} ${code}`.trim();
  }
}
const moneyOf = (el, m) => (m ? money(el, m.amount, m.currency) : '');
// Whether a decimal text the core wrote is above zero (it writes no sign and no exponent).
const aboveZero = (amount) => /[1-9]/.test(amount);

// ---- rendering -------------------------------------------------------------------------------

// The whole view from the state: until the core is there the loading message, else the form (an
// order the page got wrong: its error alone, no total, nothing to pay), the status and the error;
// then the phase onto the Pay buttons (armed only when idle with a valid order; the busy one says
// what it is doing), aria-busy, and the host's custom states and `error` attribute.
export function render(el) {
  const s = el._s;
  const t = (k, v) => el._t(k, v);
  const core = el._core;
  const focusKey = el._root.activeElement && el._root.activeElement.dataset.key;
  clearInterval(el._tick);
  if (core) el._check();
  const err = s.bad || s.error;
  const methods = el._methods();
  if (!methods.includes(s.method)) s.method = methods[0] || null;
  const exchanges = el._exchanges();
  if (!exchanges.includes(s.exchange)) s.exchange = exchanges[0];
  const totalText = el._total && money(el, el._total, el._currency());
  const payFor = (method) => payButton(el, method, t('pay', { amount: totalText || '' }).trim());
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
      payFor('exchange')),
    bank: () => h('div', { class: 'panel', part: 'panel' }, h('p', { class: 'muted' }, t('bankNote')), payFor('bank')),
    qr: () => h('div', { class: 'panel qr', part: 'panel qr-panel' }, s.qr ? qrView(el) : payButton(el, 'qr', t('showQr'))),
  };

  // The status, all from the core's row (status.js): words, the tone's colour and icon (which say
  // the same), the amounts, the next step, the shop's order id.
  let status = [];
  let tone = null;
  if (s.status) {
    const st = s.status;
    const { info } = st;
    const lines = [];
    let headline = t(`status.${info.kind}`, { code: info.code });
    // Part of the amount arrived: what arrived of what, and what is missing, in the currency the
    // shopper pays in (the core's amounts; without them, only that part arrived).
    const partly = info.taken === 'some';
    const amounts = partly && st.expected && st.received
      && { received: moneyOf(el, st.received), amount: moneyOf(el, st.expected), missing: moneyOf(el, st.remaining) };
    const missing = amounts && st.remaining;
    if (info.kind === 'partial') headline = missing ? t('status.partial', amounts) : t('status.partial.noAmount');
    if (amounts && !(info.kind === 'partial' && missing)) lines.push(t('arrived', amounts));
    // Once something may have been paid: the order's total, and the amount asked in another
    // currency than it (a fiat price's crypto amount), each once.
    if (info.next !== 'pay') {
      if (st.total) lines.push(moneyOf(el, st.total));
      if (st.expected && !partly && (!st.total || st.expected.currency !== st.total.currency)) lines.push(moneyOf(el, st.expected));
    }
    lines.push(t(info.next === 'wait' && st.method ? `step.wait.${st.method}` : `step.${info.next}`));
    // The shop's order id (never a QR code's own order name at the service).
    const offerId = el.offerId || st.offerId;
    lines.push(offerId && withId(t('order', { id: offerId }), offerId));
    tone = info.tone;
    status = [icon(TONE_ICON[info.tone] || 'alert'), message(headline, lines)];
  }
  if (err) err.localize(el._locale.lang);

  el._statusBox = h('div', { class: 'status', part: 'status', role: 'status', 'aria-live': 'polite', tabindex: '-1', 'data-tone': tone }, status);
  el._errorBox = h('div', { class: 'error', part: 'error', role: 'alert', tabindex: '-1', hidden: !err || bad },
    err && !bad && [icon('alert'), message(withId(err.userMessage, err.offerId), [err.nextStep])]);
  const root = h('div', core ? {
    class: 'root', part: 'container', role: 'region', 'aria-label': t('region'), lang: el._locale.tag,
    ontransitionend: () => colours(el, root),
  } : { class: 'root', part: 'container' },
  core ? [
    h('p', { class: 'greeting', part: 'greeting', hidden: !s.greeting }, s.greeting && t('greeting', { name: s.greeting })),
    s.bad ? null : [
      totalText && h('dl', { class: 'summary', part: 'summary' }, h('dt', {}, t('total')), h('dd', { part: 'total' }, totalText)),
      methods.length > 1 && h('fieldset', { part: 'methods' },
        h('legend', {}, t('payWith')),
        h('div', { class: 'methods' }, methods.map((m) => h('label', { class: 'method', part: 'method', for: `method-${m}` }, h('input', {
          type: 'radio', name: 'method', value: m, id: `method-${m}`, 'data-key': `method-${m}`, checked: m === s.method,
          onchange: () => { s.method = m; el._render(); },
        }), t(`method.${m}`))))),
      s.method && panels[s.method](),
      el._statusBox,
    ],
  ] : h('p', { class: 'muted', role: 'status' }, t('loading')),
  el._errorBox);
  el._root.replaceChildren(root);
  colours(el, root);
  const busy = s.phase === 'sending';
  for (const b of el._root.querySelectorAll('button.pay')) {
    b.disabled = s.phase !== 'idle' || !el._total;
    b.textContent = busy && b.dataset.key === `pay-${s.method}` ? t(s.method === 'qr' ? 'loadingQr' : 'paying') : b.dataset.label;
  }
  root.setAttribute('aria-busy', busy || !core);
  if (err) el.setAttribute('error', err.code);
  else el.removeAttribute('error');
  try {
    el._states.clear();
    el._states.add(s.phase);
    if (err) el._states.add('error');
  } catch (e) {
    // No CustomStateSet (or only its older --dashed form) in this browser: the attribute stays.
  }
  if (focusKey) {
    const again = el._root.querySelector(`[data-key="${focusKey}"]`);
    if (again) again.focus();
  }
  if (s.bad && s.bad.message !== el._badSeen) el._emit('paywasm-error', { error: s.bad });
  el._badSeen = s.bad && s.bad.message;
}

// The text on the brand colour and the brand colour as text keep 4.5:1 (WCAG AA) whatever colours
// the merchant gives: --paywasm-accent-fg is kept when it reaches it on the accent, else the text
// is black or white, whichever contrasts more; the accent as text (links, copy buttons, the info
// icon, the chosen method's border) is darkened on a light background, lightened on a dark one,
// until it reaches it. The result goes into this element's own sheet, never a style attribute.
export function colours(el, root) {
  const style = getComputedStyle(root);
  const bg = rgba(style.backgroundColor);
  const accent = rgba(style.getPropertyValue('--_accent'));
  // Black and white meet at luminance 0.179: one of them always reaches 4.58:1.
  const on = contrast(rgba(style.getPropertyValue('--_accent-fg')), accent) > 4.6 ? 'var(--_accent-fg)'
    : luminance(accent) > 0.229 ? '#000' : '#fff';
  const to = luminance(bg) > 0.229 ? 0 : 255;
  let text = accent;
  for (let i = 0; i < 20 && contrast(text, bg) < 4.6; i++) text = text.map((v) => v + (to - v) / 5);
  el._sheet.replaceSync(`.root{--_on:${on};--_text:rgb(${text.slice(0, 3)})}`);
}

// A Pay button (its text comes from render(): the label, or what it is busy doing).
export function payButton(el, method, label) {
  return h('button', {
    type: 'button', class: 'pay', part: 'button pay-button', 'data-key': `pay-${method}`, 'data-label': label,
    onclick: () => (method === 'qr' ? requestQr(el) : pay(el, method)),
  });
}

export function qrView(el) {
  const s = el._s;
  const t = (k, v) => el._t(k, v);
  const qr = s.qr;
  const { result, uri } = qr;
  const st = s.status;
  // What the shopper does next (the core's row): pay (the code can be paid), pay_rest, pay_again, ...
  const next = st ? st.info.next : 'pay';
  if (qr.end <= Date.now()) qr.expired = true;
  const crypto = result.crytoCurrency || result.cryptoCurrency || uri.scheme.toUpperCase();
  const copyButton = (label, text, key) => h('button', {
    type: 'button', class: 'secondary', part: 'button copy-button', 'aria-label': label, 'data-key': key,
    onclick: (e) => copy(el, text, e.currentTarget),
  }, t('copy'));
  const details = (amountText, amount) => h('dl', { class: 'detail', part: 'address' },
    h('div', { class: 'row' }, h('dt', {}, t('address')),
      h('dd', {}, h('span', { class: 'value' }, uri.address), copyButton(t('copyAddress'), uri.address, 'copy-address'))),
    h('div', { class: 'row' }, h('dt', {}, t('amount')),
      h('dd', {}, h('span', { class: 'value' }, amountText), copyButton(t('copyAmount'), amount, 'copy-amount'))));
  // Part of the amount arrived: the rest (the core's remaining, in the code's crypto) goes to the
  // same address, and is what the Copy button copies. The code and the wallet link ask for the
  // whole amount, so they are gone.
  if (next === 'pay_rest') {
    const rest = st.remaining;
    return rest && aboveZero(rest.amount) ? details(moneyOf(el, rest), rest.amount) : null;
  }
  // Nothing was taken and the code can no longer be paid (failed, timed out, canceled, or past its
  // expiry): nothing to scan any more; a new code instead.
  if (qr.expired || next === 'pay_again') {
    return [h('p', {}, t('expired')), el.qrEndpoint && payButton(el, 'qr', t('newCode'))];
  }
  // A payment was seen (pending, paid, partly paid and closed, ...): the status says it all.
  if (next !== 'pay') return null;
  const cryptoAmount = money(el, uri.amount, crypto);
  const fiatAmount = money(el, result.totalAmount, result.currency);
  let countdown = null;
  if (qr.end) {
    countdown = h('p', { class: 'muted', role: 'timer' });
    const tick = () => {
      const left = Math.ceil((qr.end - Date.now()) / 1000);
      if (left <= 0) el._render();
      else countdown.textContent = t('expires', { time: `${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')}` });
    };
    tick();
    el._tick = setInterval(tick, 1000);
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
export function copy(el, text, button) {
  const t = (k) => { button.textContent = el._t(k); };
  const select = () => getSelection().selectAllChildren(button.previousElementSibling);
  if (navigator.clipboard) navigator.clipboard.writeText(text).then(() => { t('copied'); setTimeout(t, 2000, 'copy'); }, select);
  else select();
}
