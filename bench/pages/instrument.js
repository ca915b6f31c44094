// Loaded before paywasm.js on every bench page. Keeps a reference to the widget's WebAssembly
// memory (the module's exported `memory`) so the bench can read memory.buffer.byteLength: the
// public API does not expose it. It wraps WebAssembly.instantiate and changes nothing else.
(function () {
  'use strict';
  const original = WebAssembly.instantiate;
  WebAssembly.instantiate = function (...args) {
    return original.apply(this, args).then((result) => {
      const instance = result instanceof WebAssembly.Instance ? result : result.instance;
      if (instance && instance.exports.memory instanceof WebAssembly.Memory) {
        window.__benchWasmMemory = instance.exports.memory;
      }
      return result;
    });
  };
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
