// Loaded before paywasm.js on every bench page: records long tasks and CSP violations. It changes
// nothing in the page (the wasm memory is read with the core's own memoryBytes()).
(function () {
  'use strict';
  // Every long task (> 50 ms) of the page, from the start.
  window.__benchLongTasks = [];
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        window.__benchLongTasks.push({ start: e.startTime, duration: e.duration, name: e.name });
      }
    }).observe({ type: 'longtask', buffered: true });
  } catch (e) {
    window.__benchLongTasks = null;  // no Long Tasks API: reported as such
  }
  window.__benchCspViolations = [];
  document.addEventListener('securitypolicyviolation', (e) => {
    window.__benchCspViolations.push(`${e.violatedDirective} ${e.blockedURI}`);
  });
})();
