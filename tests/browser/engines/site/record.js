// Loaded first by the engine suite's page (served by the sandbox under its strict CSP): records,
// the same way in every engine, what the tests look at: CSP violations, uncaught errors, console
// messages, the widget's events, and the bodies of the payment POSTs the page sends.
window.__violations = [];
window.__errors = [];
window.__console = [];
window.__events = [];
window.__posts = [];
document.addEventListener('securitypolicyviolation', function (e) {
  window.__violations.push({ directive: e.violatedDirective, blocked: e.blockedURI });
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
['paywasm-ready', 'paywasm-status', 'paywasm-error', 'paywasm-complete'].forEach(function (type) {
  document.addEventListener(type, function (e) {
    var d = e.detail || {};
    window.__events.push({
      type: type,
      status: d.status || null,
      transaction: d.transaction || null,
      method: d.method || null,
      error: d.error ? { code: d.error.code, message: d.error.message, field: d.error.field } : null,
    });
  });
});
// The element `selector` names in the checkout's shadow root (the tests' page functions use it).
window.__shadow = function (selector) {
  return document.querySelector('paywasm-checkout').shadowRoot.querySelector(selector);
};
