// Loaded first on the cold-start page: notes when paywasm-ready reaches the document.
(function () {
  'use strict';
  document.addEventListener('paywasm-ready', () => {
    window.__benchReadyAt = performance.now();
  }, { once: true });
})();
