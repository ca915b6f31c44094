// The view of a checkout: render(c) draws the checkout's context (context.js: its state c.s and the
// page's order, checked by flows.js) and does nothing else: no validation, no event, no request.
// Its nodes are made once and then updated in place (c.view): the live region (role=status), the
// error box and the form controls stay the same nodes from one draw to the next, so a screen
// reader announces a change where it happens and a shopper who is typing keeps focus and caret.
// Only the method cards and the QR panel's content are made again, when what they show changes.
// dom.js builds every node (no markup is ever parsed; the one SVG that is, the QR code, is drawn by
// the core and parsed in flows.js). The buttons start the flows of flows.js.
import { CSS_TEXT } from 'paywasm:build';
import { h, icon, withId } from './dom.js';
import { EXCHANGE_NAMES, currency, exchangesOf, locale, methodsOf, qrAsks, t } from './context.js';
import { pay, payAgain, refresh, requestQr } from './flows.js';

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
function isFiat(c, code) {
  if (!isoCurrencies) {
    try { isoCurrencies = new Set(Intl.supportedValuesOf('currency')); } catch (e) { isoCurrencies = new Set(); }
  }
  return isoCurrencies.has(code) || code === currency(c);
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
export function money(c, value, code) {
  if (value === null || value === undefined || value === '') return '';
  const v = String(value);
  const upper = String(code || '').toUpperCase();
  try {
    const tag = locale(c).tag;
    if (upper && isFiat(c, upper)) return numberFormat(tag, upper).format(v);
    return `${numberFormat(tag, null).format(v)} ${upper}`.trim();
  } catch (e) {
    return `${v} ${upper}`.trim();
  }
}
const moneyOf = (c, m) => (m ? money(c, m.amount, m.currency) : '');
// Whether a decimal text the core wrote is above zero (it writes no sign and no exponent).
const aboveZero = (amount) => /[1-9]/.test(amount);

// ---- drawing ---------------------------------------------------------------------------------

// Sets an attribute; null or false removes it.
function attr(node, name, value) {
  if (value === null || value === false) node.removeAttribute(name);
  else node.setAttribute(name, value);
}

// Makes `parent`'s children exactly `nodes` (nulls left out), moving or removing only what is not
// where it should be: a node that stays is never taken out and put back.
function place(parent, nodes) {
  let at = parent.firstChild;
  for (const n of nodes) {
    if (!n) continue;
    if (n === at) at = at.nextSibling;
    else parent.insertBefore(n, at);
  }
  while (at) {
    const next = at.nextSibling;
    at.remove();
    at = next;
  }
}

// Replaces a box's content when what it says changed (`key`); returns whether it did.
function fill(box, key, content) {
  if (box.dataset.shown === key) return false;
  box.dataset.shown = key;
  box.replaceChildren(...[content].flat(9).filter((n) => n !== null && n !== undefined && n !== false));
  return true;
}

const message = (headline, lines) => h('div', { class: 'message' }, h('p', {}, h('strong', {}, headline)),
  lines.map((l) => l && h('p', {}, l)));

// A Pay button (its text and whether it is armed come from render()).
function payButton(c, method) {
  return h('button', {
    type: 'button', class: 'pay', part: 'button pay-button', 'data-key': `pay-${method}`,
    onclick: () => (method === 'qr' ? requestQr(c) : pay(c, method)),
  });
}

// The nodes that stay: made once per shadow root and language (the words are drawn in).
function build(c) {
  const v = { words: `${locale(c).tag} ${t(c, 'loading')}` };
  const label = (id, key) => h('label', { for: id, part: 'label' }, t(c, key));
  v.root = h('div', { class: 'root', part: 'container', ontransitionend: () => colours(c, v.root) });
  v.loading = h('p', { class: 'muted', role: 'status' }, t(c, 'loading'));
  v.greeting = h('p', { class: 'greeting', part: 'greeting' });
  v.total = h('dd', { part: 'total' });
  v.summary = h('dl', { class: 'summary', part: 'summary' }, h('dt', {}, t(c, 'total')), v.total);
  v.status = h('div', { class: 'status', part: 'status', role: 'status', 'aria-live': 'polite', tabindex: '-1' });
  v.error = h('div', { class: 'error', part: 'error', role: 'alert', tabindex: '-1' });
  v.cards = h('div', { class: 'methods' });
  v.methods = h('fieldset', { part: 'methods' }, h('legend', {}, t(c, 'payWith')), v.cards);
  v.select = h('select', { id: 'exchange', part: 'select', 'data-key': 'exchange', onchange: (e) => { c.s.exchange = e.target.value; } });
  v.code = h('input', {
    id: 'code2fa', type: 'text', part: 'input', inputmode: 'numeric', autocomplete: 'one-time-code', maxlength: '10',
    'data-key': 'code2fa', oninput: (e) => { c.s.code2fa = e.target.value.trim(); },
  });
  v.codeError = h('p', { id: 'code2fa-error', class: 'field-error' }, t(c, 'field.code2fa'));
  v.save = h('input', {
    id: 'savepassword', type: 'checkbox', part: 'checkbox', 'data-key': 'savepassword',
    onchange: (e) => { c.s.savePassword = e.target.checked; },
  });
  v.pay = { exchange: payButton(c, 'exchange'), bank: payButton(c, 'bank'), qr: payButton(c, 'qr') };
  v.qr = h('div', { class: 'panel qr', part: 'panel qr-panel' });
  v.panels = {
    exchange: h('div', { class: 'panel', part: 'panel' },
      h('div', { class: 'field' }, label('exchange', 'exchange'), v.select),
      h('div', { class: 'field' }, label('code2fa', 'code2fa'), v.code, v.codeError),
      h('div', { class: 'check' }, v.save, label('savepassword', 'savePassword')),
      v.pay.exchange),
    bank: h('div', { class: 'panel', part: 'panel' }, h('p', { class: 'muted' }, t(c, 'bankNote')), v.pay.bank),
    qr: v.qr,
  };
  return v;
}

// Draws the context: until the core is there the loading message, else the form (an order the page
// got wrong: its error alone, no total, nothing to pay; a paid order: the total and its status
// alone), the status and the error; then the phase onto the Pay buttons (armed only when idle with
// a valid order; the busy one says what it is doing), aria-busy, and the host's custom states and
// `error` attribute.
export function render(c) {
  const s = c.s;
  const core = c.core;
  // (made again in another language, or when the language's texts arrived)
  if (!c.view || c.view.root.parentNode !== c.root || c.view.words !== `${locale(c).tag} ${t(c, 'loading')}`) {
    if (c.view) c.view.root.remove();
    c.view = build(c);
  }
  const v = c.view;
  const focusKey = c.root.activeElement && c.root.activeElement.dataset.key;
  const err = s.bad || s.error;
  const bad = err && err.field === 'code2fa' && s.method === 'exchange';
  const totalText = c.total && money(c, c.total, currency(c));
  const lang = locale(c);
  const methods = methodsOf(c);
  // Paid, or money moved in a way only the shop can settle: no form any more, the status says it.
  const done = s.phase === 'final';
  const form = core && !s.bad && !done;

  v.greeting.hidden = !s.greeting;
  v.greeting.textContent = s.greeting ? t(c, 'greeting', { name: s.greeting }) : '';
  v.total.textContent = totalText || '';
  drawStatus(c);
  drawError(c, err, bad);
  if (form) drawForm(c, methods, bad);
  // (after the shadow root's <link>, when it has one: element.js)
  if (v.root.parentNode !== c.root) c.root.append(v.root);
  place(v.root, core ? [
    v.greeting,
    !s.bad && totalText && v.summary,
    v.status,
    v.error,
    form && methods.length > 1 && v.methods,
    form && s.method && v.panels[s.method],
  ] : [v.loading, v.error]);
  // Once per view with the core: the region, named in its language, and its colours.
  if (core && !v.coloured) {
    v.root.setAttribute('role', 'region');
    v.root.setAttribute('aria-label', t(c, 'region'));
    v.root.setAttribute('lang', lang.tag);
    v.coloured = colours(c, v.root);
  }

  const busy = s.phase === 'sending';
  for (const [m, b] of Object.entries(v.pay)) {
    b.disabled = s.phase !== 'idle' || !c.total;
    b.textContent = busy && m === s.method ? t(c, m === 'qr' ? 'loadingQr' : 'paying')
      : m === 'qr' ? t(c, s.qr ? 'newCode' : 'showQr') : t(c, 'pay', { amount: totalText || '' }).trim();
  }
  attr(v.root, 'aria-busy', String(busy || !core));
  const host = c.host;
  if (err) host.setAttribute('error', err.code);
  else host.removeAttribute('error');
  try {
    c.states.clear();
    c.states.add(s.phase);
    if (err) c.states.add('error');
  } catch (e) {
    // No CustomStateSet (or only its older --dashed form) in this browser: the attribute stays.
  }
  // Focus on a node that was made again (a method card, the QR panel's buttons) goes to its new one.
  if (focusKey && !c.root.activeElement) {
    const again = c.root.querySelector(`[data-key="${focusKey}"]`);
    if (again) again.focus();
  }
}

// The form's controls, in place: the method cards, each panel's labels and values, the Pay labels.
function drawForm(c, methods, bad) {
  const s = c.s;
  const v = c.view;
  fill(v.cards, String(methods), methods.map((m) => h('label', { class: 'method', part: 'method', for: `method-${m}` },
    h('input', {
      type: 'radio', name: 'method', value: m, id: `method-${m}`, 'data-key': `method-${m}`,
      onchange: () => { c.s.method = m; refresh(c); },
    }), t(c, `method.${m}`))));
  for (const radio of v.cards.querySelectorAll('input')) radio.checked = radio.value === s.method;
  if (s.method === 'exchange') {
    const exchanges = exchangesOf(c);
    fill(v.select, String(exchanges), exchanges.map((x) => h('option', { value: x }, EXCHANGE_NAMES[x] || x)));
    if (v.select.value !== s.exchange) v.select.value = s.exchange;
    // The shopper's own typing is never written back (the caret stays); reset() empties it.
    if (v.code.value.trim() !== s.code2fa) v.code.value = s.code2fa;
    attr(v.code, 'aria-invalid', bad && 'true');
    attr(v.code, 'aria-describedby', bad && 'code2fa-error');
    v.codeError.hidden = !bad;
    v.save.checked = s.savePassword;
  }
  if (s.method === 'qr') drawQr(c);
}

// The status, all from the core's row (status.js): words, the tone's colour and icon (which say
// the same), the amounts, the next step, the shop's order id. The live region's content changes
// only when what it says does.
function drawStatus(c) {
  const s = c.s;
  const v = c.view;
  let content = [];
  let tone = null;
  if (s.status && c.core) {
    const st = s.status;
    const { info } = st;
    const lines = [];
    let headline = t(c, `status.${info.kind}`, { code: info.code });
    // Part of the amount arrived: what arrived of what, and what is missing, in the currency the
    // shopper pays in (the core's amounts; without them, only that part arrived).
    const partly = info.taken === 'some';
    const amounts = partly && st.expected && st.received
      && { received: moneyOf(c, st.received), amount: moneyOf(c, st.expected), missing: moneyOf(c, st.remaining) };
    const missing = amounts && st.remaining;
    if (info.kind === 'partial') headline = missing ? t(c, 'status.partial', amounts) : t(c, 'status.partial.noAmount');
    if (amounts && !(info.kind === 'partial' && missing)) lines.push(t(c, 'arrived', amounts));
    // Once something may have been paid: the order's total, and the amount asked in another
    // currency than it (a fiat price's crypto amount), each once.
    if (info.next !== 'pay') {
      if (st.total) lines.push(moneyOf(c, st.total));
      if (st.expected && !partly && (!st.total || st.expected.currency !== st.total.currency)) lines.push(moneyOf(c, st.expected));
    }
    lines.push(t(c, info.next === 'wait' && st.method ? `step.wait.${st.method}` : `step.${info.next}`));
    // The shop's order id (never a QR code's own order name at the service).
    const offerId = c.host.offerId || st.offerId;
    lines.push(offerId && withId(t(c, 'order', { id: offerId }), offerId));
    tone = info.tone;
    content = [icon(TONE_ICON[info.tone] || 'alert'), message(headline, lines)];
  }
  attr(v.status, 'data-tone', tone);
  const probe = h('div', {}, content);
  fill(v.status, `${tone} ${probe.textContent}`, content);
}

// The error box: the error's message as the headline and its next step under it (the order id kept
// in one piece); after an unclear outcome the merchant's status-url showed took nothing, the offer
// to pay again (flows.js payAgain) in place of "contact the shop". A shopper's own field at
// fault (the 2FA code) is marked at the field instead.
function drawError(c, err, bad) {
  const v = c.view;
  const retry = err && c.s.retry && c.s.phase === 'ambiguous';
  v.error.hidden = !err || bad;
  if (!err || bad) {
    fill(v.error, '', []);
    return;
  }
  const next = retry ? t(c, 'payAgain.safe') : err.nextStep;
  fill(v.error, `${err.code} ${err.userMessage} ${next}`, [icon('alert'), message(err.userMessage, [
    next && withId(next, err.offerId),
    retry && h('button', { type: 'button', class: 'again', part: 'button pay-again-button', 'data-key': 'pay-again', onclick: () => payAgain(c) },
      t(c, 'payAgain'))])]);
}

// The QR panel: made again only when what it shows changes (another code, another next step, the
// code expired, another remaining amount); the countdown ticks in place.
function drawQr(c) {
  const s = c.s;
  const v = c.view;
  const qr = s.qr;
  const st = s.status;
  const next = st ? st.info.next : 'pay';
  const expired = !!qr && qr.end <= Date.now();
  const rest = st && st.remaining;
  const key = qr ? `${qr.result.id} ${next} ${expired} ${rest && rest.amount}` : '-';
  if (v.qr.dataset.shown === key) return;
  clearInterval(c.tick);
  fill(v.qr, key, qr ? qrView(c, next, expired) : v.pay.qr);
}

// What a QR code shows for the next step of its status (the core's row): pay (the code can be
// paid), pay_rest, pay_again, ...
function qrView(c, next, expired) {
  const s = c.s;
  const v = c.view;
  const { result, uri } = s.qr;
  const st = s.status;
  const copyButton = (label, value, key) => h('button', {
    type: 'button', class: 'secondary', part: 'button copy-button', 'aria-label': label, 'data-key': key,
    onclick: (e) => copy(c, value, e.currentTarget),
  }, t(c, 'copy'));
  const details = (amountText, amount) => h('dl', { class: 'detail', part: 'address' },
    h('div', { class: 'row' }, h('dt', {}, t(c, 'address')),
      h('dd', {}, h('span', { class: 'value' }, uri.address), copyButton(t(c, 'copyAddress'), uri.address, 'copy-address'))),
    h('div', { class: 'row' }, h('dt', {}, t(c, 'amount')),
      h('dd', {}, h('span', { class: 'value' }, amountText), copyButton(t(c, 'copyAmount'), amount, 'copy-amount'))));
  // Part of the amount arrived: the rest (the core's remaining, in the code's crypto) goes to the
  // same address, and is what the Copy button copies. The code and the wallet link ask for the
  // whole amount, so they are gone.
  if (next === 'pay_rest') {
    const rest = st.remaining;
    return rest && aboveZero(rest.amount) ? details(moneyOf(c, rest), rest.amount) : null;
  }
  // Nothing was taken and the code can no longer be paid (failed, timed out, canceled, or past its
  // expiry): nothing to scan any more; a new code instead.
  if (expired || next === 'pay_again') {
    return [h('p', {}, t(c, 'expired')), c.host.qrEndpoint && v.pay.qr];
  }
  // A payment was seen (pending, paid, partly paid and closed, ...): the status says it all.
  if (next !== 'pay') return null;
  const cryptoAmount = moneyOf(c, qrAsks(c));
  const fiatAmount = money(c, result.totalAmount, result.currency);
  let countdown = null;
  const end = s.qr.end;
  if (end) {
    countdown = h('p', { class: 'muted', role: 'timer' });
    const tick = () => {
      const left = Math.ceil((end - Date.now()) / 1000);
      if (left <= 0) render(c);
      else countdown.textContent = t(c, 'expires', { time: `${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')}` });
    };
    tick();
    c.tick = setInterval(tick, 1000);
  }
  // The wallet link first: on the phone that would scan the code, it is the one useful action.
  // The URI passed the core's wallet-scheme allow-list, so it is never javascript: or data:.
  return [
    h('a', { class: 'link', part: 'link', href: result.meta.qrString, 'data-key': 'wallet-link' }, t(c, 'openWallet')),
    h('div', { class: 'qr-code', part: 'qr', role: 'img', 'aria-label': t(c, 'qrLabel') }, s.qr.svg.cloneNode(true)),
    h('p', { class: 'muted' }, t(c, 'scan')),
    countdown,
    details(fiatAmount ? `${cryptoAmount} (${fiatAmount})` : cryptoAmount, uri.amount),
  ];
}

// The text on the brand colour and the brand colour as text keep 4.5:1 (WCAG AA) whatever colours
// the merchant gives: --paywasm-accent-fg is kept when it reaches it on the accent, else the text
// is black or white, whichever contrasts more; the accent as text (links, copy buttons, the info
// icon, the chosen method's border) is darkened on a light background, lightened on a dark one,
// until it reaches it. The result goes into this element's own sheet, never a style attribute.
// Returns true.
export function colours(c, root) {
  const style = getComputedStyle(root);
  const bg = rgba(style.backgroundColor);
  const accent = rgba(style.getPropertyValue('--_accent'));
  // Black and white meet at luminance 0.179: one of them always reaches 4.58:1.
  const on = contrast(rgba(style.getPropertyValue('--_accent-fg')), accent) > 4.6 ? 'var(--_accent-fg)'
    : luminance(accent) > 0.229 ? '#000' : '#fff';
  const to = luminance(bg) > 0.229 ? 0 : 255;
  let text = accent;
  for (let i = 0; i < 20 && contrast(text, bg) < 4.6; i++) text = text.map((v) => v + (to - v) / 5);
  c.sheet.replaceSync(`.root{--_on:${on};--_text:rgb(${text.slice(0, 3)})}`);
  return true;
}

// Copies; without clipboard access, selects the value beside the button to copy by hand.
function copy(c, text, button) {
  const say = (k) => { button.textContent = t(c, k); };
  const select = () => getSelection().selectAllChildren(button.previousElementSibling);
  if (navigator.clipboard) navigator.clipboard.writeText(text).then(() => { say('copied'); setTimeout(say, 2000, 'copy'); }, select);
  else select();
}
