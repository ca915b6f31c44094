// Loaded first by every test page: records CSP violations and the widget's events for the test.
window.__violations = [];
window.__events = [];
document.addEventListener('securitypolicyviolation', function (e) {
  window.__violations.push({ directive: e.violatedDirective, blocked: e.blockedURI, sample: e.sample });
});
['paywasm-ready', 'paywasm-status', 'paywasm-error', 'paywasm-complete'].forEach(function (type) {
  document.addEventListener(type, function (e) {
    var d = e.detail || {};
    window.__events.push({
      type: type,
      status: d.status || null,
      method: d.method || null,
      transaction: d.transaction || null,
      error: d.error ? { code: d.error.code, message: d.error.message, userMessage: d.error.userMessage, field: d.error.field, mayHaveGoneThrough: d.error.mayHaveGoneThrough, notSent: d.error.notSent, method: d.error.method, nextStep: d.error.nextStep, offerId: d.error.offerId, isPayWasmError: d.error instanceof Error && d.error.name === 'PayWasmError' } : null,
    });
  });
});
