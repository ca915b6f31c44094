// Loaded first by every test page of the browser suites (tests/browser/pages, the engine suite's
// site, the fault suite's pages): records, the same way in every engine, what the tests look at:
// CSP violations, uncaught errors, console messages, the widget's events, and the bodies of the
// POSTs the page sends. Plain ES5, no module: it runs first, under the pages' strict CSP.
window.__violations = [];
window.__errors = [];
window.__console = [];
window.__events = [];
window.__posts = [];
// The pointer input the page received (the last 20): what a click in a test reached, for a failure's
// record ({ type, at, x, y, target: the innermost element's tag, class and data-key }).
window.__inputs = [];
['pointerdown', 'mousedown', 'mouseup', 'click'].forEach(function (type) {
  window.addEventListener(type, function (e) {
    var t = e.composedPath ? e.composedPath()[0] : e.target;
    window.__inputs.push({ type: type, at: Math.round(performance.now()), x: e.clientX, y: e.clientY,
      target: t && t.tagName ? t.tagName.toLowerCase() + (t.className ? '.' + t.className : '')
        + (t.dataset && t.dataset.key ? '[' + t.dataset.key + ']' : '') : String(t) });
    if (window.__inputs.length > 20) window.__inputs.shift();
  }, true);
});
document.addEventListener('securitypolicyviolation', function (e) {
  window.__violations.push({ directive: e.violatedDirective, blocked: e.blockedURI, sample: e.sample });
});
window.addEventListener('error', function (e) { window.__errors.push(String(e.message)); });
window.addEventListener('unhandledrejection', function (e) { window.__errors.push('unhandled rejection: ' + String(e.reason)); });
['log', 'info', 'warn', 'error', 'debug'].forEach(function (level) {
  var original = console[level];
  console[level] = function () {
    window.__console.push(level + ': ' + Array.prototype.map.call(arguments, String).join(' '));
    return original.apply(console, arguments);
  };
});
var pageFetch = window.fetch;
window.fetch = function (url, init) {
  if (init && init.method === 'POST') window.__posts.push({ url: String(url), body: String(init.body) });
  return pageFetch.apply(this, arguments);
};
['paywasm-usable', 'paywasm-ready', 'paywasm-status', 'paywasm-error', 'paywasm-complete'].forEach(function (type) {
  document.addEventListener(type, function (e) {
    var d = e.detail || {};
    var err = d.error;
    window.__events.push({
      type: type,
      at: performance.now(),
      status: d.status || null,
      method: d.method || null,
      transaction: d.transaction || null,
      reference: d.reference || null,
      offerId: d.offerId || null,
      error: err ? { code: err.code, message: err.message, userMessage: err.userMessage, field: err.field,
        mayHaveGoneThrough: err.mayHaveGoneThrough, notSent: err.notSent, method: err.method, nextStep: err.nextStep,
        offerId: err.offerId, isPayWasmError: err instanceof Error && err.name === 'PayWasmError' } : null,
      // What the shopper saw as the event came (the element draws before it emits): a later status
      // may replace it before a test could look.
      shown: err ? shownNow(e.target) : null,
    });
  });
});
// The checkout `host`'s error text, aria-busy and Pay label ({ error, busy, pay }; null where absent).
function shownNow(host) {
  var root = host && host.shadowRoot;
  if (!root) return null;
  var error = root.querySelector('.error');
  var container = root.querySelector('[part~=container]');
  var pay = root.querySelector('button.pay');
  return { error: error ? error.textContent : null, busy: container ? container.getAttribute('aria-busy') : null,
    pay: pay ? pay.textContent : null };
}
// The element `selector` names in the (first) checkout's shadow root.
window.__shadow = function (selector) {
  return document.querySelector('paywasm-checkout').shadowRoot.querySelector(selector);
};
