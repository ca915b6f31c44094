// The view of a checkout: render(el) draws the whole of it from the element's state (el._s) and
// the page's order, with dom.js (no markup is ever parsed; the one SVG that is, the QR code, is
// drawn by the core and parsed in flows.js). The buttons start the flows of flows.js.
import { CSS_TEXT } from 'paywasm:build';
import { h, icon, withId } from './dom.js';
import { NOTHING_TAKEN } from './state.js';
import { pay, requestQr } from './flows.js';

export const EXCHANGE_NAMES = { coinbase: 'Coinbase', okcoin: 'OKCoin', kraken: 'Kraken', gemini: 'Gemini', binanceus: 'Binance.US' };

// kind -> 'tone icon' (tone picks the color; the words always say the same as the color); others 'info alert'
const STATUS_LOOK = {
  awaiting_payment: 'info clock', pending: 'info clock', processing: 'info clock', success: 'success check',
  failed: 'error cross', partial: 'warning alert', partial_closed: 'warning alert', timed_out: 'error clock',
  canceled: 'error cross',
};

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

// Formats decimal text: fiat with Intl currency style, crypto with all its digits and the code.
export function money(el, value, currency, fiat) {
  if (value === null || value === undefined || value === '') return '';
  const v = String(value);
  try {
    if (fiat) return numberFormat(el._locale.tag, currency).format(v);
    return `${numberFormat(el._locale.tag, null).format(v)} ${currency || ''}`.trim();
  } catch (e) {
    return `${v} ${currency || ''}`.trim();
  }
}

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
  const totalText = el._total && money(el, el._total, el._currency(), true);
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
        received: money(el, received, crypto), amount: money(el, amount, crypto), missing: money(el, minus(amount, received), crypto),
      });
      lines.push(t('hint.partial'));
    }
    if (tx.nativeAmount && tx.nativeCurrency) lines.push(money(el, tx.nativeAmount, tx.nativeCurrency, true));
    // The amount again only when it is another currency (the crypto amount of a fiat price).
    if (tx.amount && tx.currency && tx.currency !== tx.nativeCurrency && info.kind !== 'partial') lines.push(money(el, tx.amount, tx.currency));
    if (!info.final && (method === 'bank' || method === 'exchange')) lines.push(t(`hint.${method}`));
    const offerId = (tx.meta && tx.meta.offerId) || el.offerId;
    lines.push(offerId && withId(t('order', { id: offerId }), offerId));
    tone = look[0];
    status = [icon(look[1]), message(headline, lines)];
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
  const kind = s.status ? s.status.info.kind : 'awaiting_payment';
  const tx = s.status ? s.status.transaction : {};
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
  // Part of the amount arrived: the rest goes to the same address. The code and the wallet link
  // ask for the whole amount, so they are gone.
  if (kind === 'partial') {
    const missing = minus(tx.amount || uri.amount, tx.receivedAmount || '0');
    return missing ? details(money(el, missing, crypto, false), missing) : null;
  }
  // Failed, timed out, canceled or past its expiry: nothing to scan any more; a new code instead.
  if (qr.expired || NOTHING_TAKEN.indexOf(kind) > 0) {
    return [h('p', {}, t('expired')), el.qrEndpoint && payButton(el, 'qr', t('newCode'))];
  }
  // A payment was seen (pending, processing, paid): the status says it all.
  if (kind !== 'awaiting_payment') return null;
  const cryptoAmount = money(el, uri.amount, crypto, false);
  const fiatAmount = money(el, result.totalAmount, result.currency, true);
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
