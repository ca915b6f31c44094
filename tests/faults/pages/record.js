// Loaded first by the fault suite's page (served by the sandbox with its strict CSP): records CSP
// violations and the widget's events for the test.
window.__violations = [];
window.__events = [];
document.addEventListener('securitypolicyviolation', function (e) {
  window.__violations.push({ directive: e.violatedDirective, blocked: e.blockedURI });
});
['paywasm-ready', 'paywasm-status', 'paywasm-error', 'paywasm-complete'].forEach(function (type) {
  document.addEventListener(type, function (e) {
    var d = e.detail || {};
    window.__events.push({
      type: type,
      status: d.status || null,
      transaction: d.transaction || null,
      method: d.method || null,
      error: d.error ? { code: d.error.code, message: d.error.message, userMessage: d.error.userMessage,
        nextStep: d.error.nextStep, mayHaveGoneThrough: d.error.mayHaveGoneThrough, notSent: d.error.notSent, offerId: d.error.offerId,
        field: d.error.field } : null,
    });
  });
});
