window.__firstPayWasm = window.PayWasm;
window.__firstElement = customElements.get('paywasm-checkout');
