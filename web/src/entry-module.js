// The ES module, dist/paywasm.mjs (import PayWasm, { mount } from 'paywasm'). The first copy of the
// widget on a page (this module or paywasm.js) boots it; any later one reuses globalThis.PayWasm.
import { boot } from './api.js';

const PayWasm = globalThis.PayWasm || (globalThis.PayWasm = boot(import.meta.url));
export default PayWasm;
export const { load, mount, PayWasmError, PayWasmCheckout, version, locales } = PayWasm;
