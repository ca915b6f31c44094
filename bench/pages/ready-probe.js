// Loaded first on the cold-start page: notes when paywasm-usable (the form is drawn and takes input,
// before the module) and paywasm-ready (the module is in too) reach the document. A widget without
// paywasm-usable (0.2.0 and before) draws its form at ready: its usable time is its ready time.
(function () {
  'use strict';
  document.addEventListener('paywasm-usable', () => {
    if (window.__benchUsableAt === undefined) window.__benchUsableAt = performance.now();
  }, { once: true });
  document.addEventListener('paywasm-ready', () => {
    window.__benchReadyAt = performance.now();
    if (window.__benchUsableAt === undefined) window.__benchUsableAt = window.__benchReadyAt;
  }, { once: true });
})();
