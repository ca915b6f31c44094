// The public API object (window.PayWasm in the classic script, the default export of the module).
const PayWasm = Object.freeze({
  version: VERSION,
  load,
  mount,
  PayWasmError,
  locales: Object.freeze(LANGS.slice()),
});
