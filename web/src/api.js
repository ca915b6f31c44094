// The public API (window.PayWasm in the classic script, the default export of the module) and
// boot(), what the script does when it runs.
import { VERSION } from 'paywasm:build';
import { PayWasmError } from './error.js';
import { load, startEarly } from './core.js';
import { LANGS, loadLocale, pickLocale } from './locales.js';
import { setScriptUrl } from './assets.js';
import { PayWasmCheckout } from './element.js';
import { mount } from './mount.js';

// Starts the widget of the script at `scriptUrl`: the wasm module starts downloading (and
// compiling) at once, before the element is defined, and the browser's language file beside it
// (if not English); then <paywasm-checkout> is defined. Returns the API object.
export function boot(scriptUrl) {
  setScriptUrl(scriptUrl);
  startEarly();
  loadLocale(pickLocale().lang);
  PayWasmCheckout.define();
  return Object.freeze({
    version: VERSION,
    load,
    mount,
    PayWasmError,
    PayWasmCheckout,
    locales: Object.freeze(LANGS.slice()),
  });
}
