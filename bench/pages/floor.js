// The floor page's form (pages/floor.html): what the widget draws for one exchange payment, in plain
// HTML with DOM calls (the total, the exchange list, the 2FA field, "keep connected", Pay), then the
// time it was there (window.__benchUsableAt, as ready-probe.js notes paywasm-usable); and the time
// the module the script started is in (window.__benchReadyAt).
(function () {
  'use strict';
  // The module: paywasm.js started it when it ran (boot: startEarly), as on the widget's page; the
  // time PayWasm.load() has it in (fetched, compiled, instantiated) is the floor of the widget's
  // ready (window.__benchReadyAt).
  PayWasm.load().then(() => { window.__benchReadyAt = performance.now(); });
  const h = (tag, attrs, ...children) => {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, v);
    el.append(...children);
    return el;
  };
  const exchanges = ['Coinbase', 'OKCoin', 'Kraken', 'Gemini', 'Binance.US'];
  const total = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(64);
  document.getElementById('floor').append(h('form', {},
    h('dl', {}, h('dt', {}, 'Total'), h('dd', {}, total)),
    h('label', { for: 'exchange' }, 'Exchange'),
    h('select', { id: 'exchange' }, ...exchanges.map((e) => h('option', { value: e.toLowerCase() }, e))),
    h('label', { for: 'code2fa' }, '2FA code (if your exchange asks for one)'),
    h('input', { id: 'code2fa', type: 'text', inputmode: 'numeric', autocomplete: 'one-time-code' }),
    h('input', { id: 'savepassword', type: 'checkbox' }),
    h('label', { for: 'savepassword' }, 'Keep my exchange connected at the payment service for next time'),
    h('button', { type: 'button' }, `Pay ${total}`)));
  window.__benchUsableAt = performance.now();
})();
