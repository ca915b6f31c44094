// The layout of a checkout: render(c) draws the checkout's context (context.js: its state c.s and the
// page's order, checked by flows.js) and does nothing else: no validation, no event, no request, no
// write to the state. Its nodes are made once and then updated in place (c.view, the view's own):
// the live region (role=status), the error box and the form controls stay the same nodes from one
// draw to the next, so a screen reader announces a change where it happens and a shopper who is
// typing keeps focus and caret. Only the method cards and the QR panel's content are made again,
// when what they show changes.
// What a control does is declared on it, never called from here: `data-action="click:pay"` (with
// `data-method`), and the element (element.js) runs the action. So the view imports no flow.
// dom.js builds every node (no markup is ever parsed; the one SVG that is, the QR code, is drawn by
// the core and parsed in flows.js); format.js writes the amounts, colours.js the brand colours.
import { h, icon, withId } from './dom.js';
import { EXCHANGE_NAMES, currency, exchangesOf, locale, methodsOf, qrAsks, t } from './context.js';
import { aboveZero, clock, money, moneyOf } from './format.js';
import { colours } from './colours.js';

// The icon of each tone of the core's status table (the tone picks the colour; the words always
// say the same as the colour and the icon).
const TONE_ICON = { info: 'clock', success: 'check', warning: 'alert', error: 'cross' };

// The QR code's time left is announced (politely) when it crosses these many seconds.
const ANNOUNCE_AT = [60, 15];

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

// A message: its headline, then each line a paragraph (a node that is not text, e.g. facts(), as it is).
const message = (headline, lines) => h('div', { class: 'message' }, h('p', {}, h('strong', {}, headline)),
  lines.map((l) => l && (l.nodeType === 1 ? l : h('p', {}, l))));
// "Order {id}", the id kept in one piece; null without one.
const orderLine = (c, offerId) => offerId && withId(t(c, 'order', { id: offerId }), offerId);

// Label/value rows ([labelKey, text]; rows without text left out), every amount with its name.
const facts = (c, rows) => {
  const shown = rows.filter((r) => r && r[1]);
  return shown.length ? h('dl', { class: 'facts' }, shown.map(([key, value]) =>
    h('div', { class: 'fact' }, h('dt', {}, t(c, key)), h('dd', {}, value)))) : null;
};

// A Pay button (its text and whether it is armed come from render()).
const payButton = (method) => h('button', {
  type: 'button', class: 'pay', part: 'button pay-button', 'data-key': `pay-${method}`,
  'data-action': 'click:pay', 'data-method': method,
});

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
  v.select = h('select', { id: 'exchange', part: 'select', 'data-key': 'exchange', 'data-action': 'change:exchange' });
  v.code = h('input', {
    id: 'code2fa', type: 'text', part: 'input', inputmode: 'numeric', autocomplete: 'one-time-code', maxlength: '10',
    'data-key': 'code2fa', 'data-action': 'input:code2fa',
  });
  v.codeError = h('p', { id: 'code2fa-error', class: 'field-error' }, t(c, 'field.code2fa'));
  v.save = h('input', {
    id: 'savepassword', type: 'checkbox', part: 'checkbox', 'data-key': 'savepassword', 'data-action': 'change:savePassword',
  });
  v.pay = { exchange: payButton('exchange'), bank: payButton('bank'), qr: payButton('qr') };
  v.qr = h('div', { class: 'panel qr', part: 'panel qr-panel' });
  v.bankFrom = h('div', {});
  v.panels = {
    exchange: h('div', { class: 'panel', part: 'panel' },
      h('div', { class: 'field' }, label('exchange', 'exchange'), v.select),
      h('div', { class: 'field' }, label('code2fa', 'code2fa'), v.code, v.codeError),
      h('div', { class: 'check' }, v.save, label('savepassword', 'savePassword')),
      v.pay.exchange),
    bank: h('div', { class: 'panel', part: 'panel' }, v.bankFrom, h('p', { class: 'muted' }, t(c, 'bankNote')), v.pay.bank),
    qr: v.qr,
  };
  return v;
}

// Draws the context: until the form may be shown (c.shown: the element has what the form needs,
// which is not the core) the loading message, else the form (an order the page got wrong: its
// error alone, no total, nothing to pay; a payment under way or done: the total and its status,
// without the form), the status and the error; then the phase onto the Pay buttons (armed when
// idle with an order not known to be bad; the busy one says what it is doing), aria-busy, and the
// host's custom states and `error` attribute.
export function render(c) {
  const s = c.s;
  // (made again in another language, or when the language's texts arrived)
  if (!c.view || c.view.root.parentNode !== c.root || c.view.words !== `${locale(c).tag} ${t(c, 'loading')}`) {
    if (c.view) {
      clearInterval(c.view.tick);
      c.view.root.remove();
    }
    c.view = build(c);
  }
  const v = c.view;
  const focusKey = c.root.activeElement && c.root.activeElement.dataset.key;
  const err = s.bad || s.error;
  const bad = err && err.field === 'code2fa' && s.method === 'exchange';
  // The checked total, else the amount the merchant's server fixed (the `amount` attribute, else the
  // session's), shown until the core has checked the cart against it.
  const total = c.total || c.host.amount;
  const totalText = total && money(c, total, currency(c));
  const methods = methodsOf(c);
  const shown = c.shown;
  // The form, while nothing of this order is under way or done; a QR code stays while part of it
  // is paid (the rest goes to the same address).
  const open = shown && !c.broken && !s.bad && (s.phase === 'idle' || s.phase === 'sending');
  const qrStays = shown && !c.broken && s.method === 'qr' && !!s.qr && s.phase === 'pending';

  v.greeting.hidden = !s.greeting;
  v.greeting.textContent = s.greeting ? t(c, 'greeting', { name: s.greeting }) : '';
  v.total.textContent = totalText || '';
  drawStatus(c);
  drawError(c, err, bad);
  if (open || qrStays) drawForm(c, methods, bad);
  // (after the shadow root's <link>, when it has one: element.js)
  if (v.root.parentNode !== c.root) c.root.append(v.root);
  // Nothing the shopper may be about to click moves when something arrives later: the total's row
  // is there while the core works out the total of a cart it was given, and the greeting (which
  // comes from the service after the core) goes last, under the controls. (A greeting above them
  // moved the form down under a click on its way: the WPE engine suite's flaky "no element".)
  place(v.root, shown ? [
    !s.bad && (totalText || (c.cart !== null && !c.core)) && v.summary,
    v.status,
    v.error,
    open && methods.length > 1 && v.methods,
    (open || qrStays) && s.method && v.panels[s.method],
    v.greeting,
  ] : [v.loading, v.error]);
  // A QR panel taken off the screen stops its countdown, and is drawn afresh when it comes back.
  if (!v.qr.isConnected && v.qr.dataset.shown) {
    clearInterval(v.tick);
    fill(v.qr, '', []);
  }
  // Once per view with the form: the region, named in its language, and its colours. The colours
  // are worked out in a task of their own, after this draw: they read the computed style (a forced
  // style pass) and three canvas pixels, which in WebKitGTK doubled the time to usable (60 -> 30 ms,
  // bench/cold-ab.mjs); until then the stylesheet's own --_on and --_text (the theme's colours) hold.
  if (shown && !v.coloured) {
    v.root.setAttribute('role', 'region');
    v.root.setAttribute('aria-label', t(c, 'region'));
    v.root.setAttribute('lang', locale(c).tag);
    v.coloured = setTimeout(colours, 0, c, v.root);
  }

  const busy = s.phase === 'sending';
  for (const [m, b] of Object.entries(v.pay)) {
    b.disabled = s.phase !== 'idle' || !!s.bad || (!!c.core && !c.total);
    const label = busy && m === s.method ? t(c, !c.core ? 'loading' : m === 'qr' ? 'loadingQr' : 'paying')
      : m === 'qr' ? t(c, s.qr ? 'newCode' : 'showQr') : t(c, 'pay', { amount: totalText || '' }).trim();
    // The label is written into its text node, never replaced: WebKit drops the click whose pressed
    // node left the document before the release (a redraw mid-press, e.g. the greeting arriving,
    // lost the shopper's Pay click).
    if (b.firstChild) b.firstChild.data = label;
    else b.textContent = label;
  }
  attr(v.root, 'aria-busy', String(busy || !shown));
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

// Stops what the view runs by itself (the QR countdown): when the element is disconnected.
export function quiet(c) {
  if (c.view) clearInterval(c.view.tick);
}

// The form's controls, in place: the method cards, each panel's labels and values, the Pay labels.
function drawForm(c, methods, bad) {
  const s = c.s;
  const v = c.view;
  fill(v.cards, String(methods), methods.map((m) => h('label', { class: 'method', part: 'method', for: `method-${m}` },
    h('input', { type: 'radio', name: 'method', value: m, id: `method-${m}`, 'data-key': `method-${m}`, 'data-action': 'change:method' }),
    t(c, `method.${m}`))));
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
  if (s.method === 'bank') {
    const account = c.host.bankAccount;
    fill(v.bankFrom, account || '', facts(c, [['paidFrom', account]]));
  }
  if (s.method === 'qr') drawQr(c);
}

// How a payment was made, in the shopper's words: the method, and the exchange (when this page made
// the payment: a status of an earlier one names none) or the bank account.
function how(c, st) {
  const s = c.s;
  if (!st.method) return '';
  const way = t(c, `method.${st.method}`);
  const made = s.madeWith && s.madeWith.method === st.method ? s.madeWith : null;
  if (made && made.exchange) return `${way} (${EXCHANGE_NAMES[made.exchange] || made.exchange})`;
  if (st.method === 'bank' && c.host.bankAccount) return `${way} (${c.host.bankAccount})`;
  return way;
}

// The status, all from the core's row (status.js): words, the tone's colour and icon (which say
// the same), every amount with its name and currency, how it was paid and its reference once paid,
// the next step, the shop's order id. The live region's content changes only when what it says
// does.
function drawStatus(c) {
  const s = c.s;
  const v = c.view;
  let content = [];
  let tone = null;
  if (s.status && c.core && !decided(s)) {
    const st = s.status;
    const { info } = st;
    const partly = info.taken === 'some';
    // Once something may have been paid: the order's total in the shop's currency, and the amount
    // asked in the currency paid in when that is another (a fiat price's crypto amount); part of
    // it arrived: what arrived and what is missing (the core's amounts).
    const rows = [];
    if (info.next !== 'pay') {
      const asked = st.expected && (!st.total || st.expected.currency !== st.total.currency) ? st.expected : null;
      if (info.success) {
        rows.push(['amount.total', asked && moneyOf(c, st.total)], ['amount.paid', moneyOf(c, asked || st.total)],
          ['paidWith', how(c, st)], ['reference', st.reference]);
      } else {
        rows.push(['amount.total', moneyOf(c, st.total)], ['amount.due', moneyOf(c, asked)]);
        if (st.method === 'bank') rows.push(['paidFrom', c.host.bankAccount]);
        if (partly) rows.push(['amount.arrived', moneyOf(c, st.received)], ['amount.missing', moneyOf(c, st.remaining)]);
        if (info.next === 'wait') rows.push(['reference', st.reference]);
      }
    }
    const headline = t(c, `status.${info.kind}`, { code: info.code });
    const step = t(c, info.next === 'wait' && st.method ? `step.wait.${st.method}` : `step.${info.next}`);
    // The shop's order id (never a QR code's own order name at the service).
    const offerId = c.host.offerId || st.offerId;
    tone = info.tone;
    content = [icon(TONE_ICON[info.tone] || 'alert'), message(headline, [facts(c, rows), step, orderLine(c, offerId)])];
  } else if (s.hold && !s.error) {
    // Held by the gateway with nothing else to show (a reload, a 409): why, the transaction, what next.
    const [headline, ...lines] = held(c);
    const offerId = c.host.offerId;
    tone = s.hold.reason === 'in_progress' ? 'info' : 'warning';
    content = [icon(TONE_ICON[tone]), message(headline, [facts(c, [['reference', s.hold.transactionId]]), ...lines,
      orderLine(c, offerId)])];
  }
  attr(v.status, 'data-tone', tone);
  const probe = h('div', {}, content);
  fill(v.status, `${tone} ${probe.textContent}`, content);
}

// Session mode: the merchant's decision over the service's word. While the gateway holds the order
// as paid (an underpayment the merchant accepted) or closed and the service's status is no success,
// the hold is what the shopper reads: never "send the missing amount" for an order already settled.
const decided = (s) => s.hold && /^(paid|closed)$/.test(s.hold.reason) && !s.status?.info.success;

// What a gateway's hold (c.s.hold: its `payable`, not armed) tells the shopper: [headline, next
// steps]. A payment in progress waits as its method does; an attempt with no answer, or an answer
// that proves nothing, is not known to have reached the service.
function held(c) {
  const { reason, attemptId } = c.s.hold;
  if (reason === 'in_progress') {
    const at = ((c.session && c.session.attempts) || []).find((a) => a && a.attemptId === attemptId);
    const method = at ? at.method : c.s.method;
    return [t(c, 'held.in_progress'), t(c, method ? `step.wait.${method}` : 'step.wait'), t(c, 'held.noPayAgain')];
  }
  const key = ['paid', 'expired', 'closed'].includes(reason) ? reason : 'unknown';
  return t(c, `held.${key}`).split('\n');
}

// The error box: the error's message as the headline and its next step under it (the order id kept
// in one piece); while the gateway holds the order (session mode), what its hold says instead. A
// shopper's own field at fault (the 2FA code) is marked at the field instead.
function drawError(c, err, bad) {
  const v = c.view;
  v.error.hidden = !err || bad;
  if (!err || bad) {
    fill(v.error, '', []);
    return;
  }
  // Held by the gateway: its text, and the order to quote to the shop.
  const next = c.s.hold ? [...held(c), err.offerId && t(c, 'order', { id: err.offerId })] : [err.nextStep];
  fill(v.error, `${err.code} ${err.userMessage} ${next.join(' ')}`, [icon('alert'), message(err.userMessage,
    next.map((l) => l && withId(l, err.offerId)))]);
}

// The QR panel: made again only when what it shows changes (another code, another next step, the
// code expired, another remaining amount); the countdown ticks in place.
function drawQr(c) {
  const s = c.s;
  const v = c.view;
  const qr = s.qr;
  const st = s.status;
  const next = decided(s) ? 'held' : st ? st.info.next : 'pay';
  const expired = !!qr && qr.end <= Date.now();
  const rest = st && st.remaining;
  const key = qr ? `${qr.result.id} ${next} ${expired} ${rest && rest.amount}` : '-';
  if (v.qr.dataset.shown === key) return;
  clearInterval(v.tick);
  fill(v.qr, key, qr ? next != 'held' && qrView(c, next, expired) : v.pay.qr);
}

// The QR code's time left, ticking in place each second ("The code expires in 4:59", a timer that
// is not read out each second), announced politely as it crosses a minute and 15 seconds; at the
// end the view is drawn again (the code goes).
function countdown(c, end) {
  const v = c.view;
  const shown = h('p', { class: 'muted', role: 'timer' });
  const told = h('p', { class: 'sr-only', 'aria-live': 'polite' });
  let last = Infinity;
  const tick = () => {
    const left = Math.ceil((end - Date.now()) / 1000);
    if (left <= 0) {
      render(c);
      return;
    }
    const text = t(c, 'expires', { time: clock(left) });
    shown.textContent = text;
    if (last !== Infinity && ANNOUNCE_AT.find((at) => left <= at && last > at)) told.textContent = text;
    last = left;
  };
  tick();
  v.tick = setInterval(tick, 1000);
  return [shown, told];
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
  const details = (amountKey, amountText, amount) => h('dl', { class: 'detail', part: 'address' },
    h('div', { class: 'row' }, h('dt', {}, t(c, 'address')),
      h('dd', {}, h('span', { class: 'value' }, uri.address), copyButton(t(c, 'copyAddress'), uri.address, 'copy-address'))),
    h('div', { class: 'row' }, h('dt', {}, t(c, amountKey)),
      h('dd', {}, h('span', { class: 'value' }, amountText), copyButton(t(c, 'copyAmount'), amount, 'copy-amount'))));
  // Part of the amount arrived: the rest (the core's remaining, in the code's crypto) goes to the
  // same address, and is what the Copy button copies. The code and the wallet link ask for the
  // whole amount, so they are gone.
  if (next === 'pay_rest') {
    const rest = st.remaining;
    return rest && aboveZero(rest.amount) ? details('amount.missing', moneyOf(c, rest), rest.amount) : null;
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
  // The wallet link first: on the phone that would scan the code, it is the one useful action.
  // The URI passed the core's wallet-scheme allow-list, so it is never javascript: or data:.
  return [
    h('a', { class: 'link', part: 'link', href: result.meta.qrString, 'data-key': 'wallet-link' }, t(c, 'openWallet')),
    h('div', { class: 'qr-code', part: 'qr', role: 'img', 'aria-label': t(c, 'qrLabel') }, s.qr.svg.cloneNode(true)),
    h('p', { class: 'muted' }, t(c, 'scan')),
    s.qr.end ? countdown(c, s.qr.end) : null,
    details('amount', fiatAmount ? `${cryptoAmount} (${fiatAmount})` : cryptoAmount, uri.amount),
  ];
}

// Copies; without clipboard access, selects the value beside the button to copy by hand.
function copy(c, text, button) {
  const say = (k) => { button.textContent = t(c, k); };
  const select = () => getSelection().selectAllChildren(button.previousElementSibling);
  if (navigator.clipboard) navigator.clipboard.writeText(text).then(() => { say('copied'); setTimeout(say, 2000, 'copy'); }, select);
  else select();
}
