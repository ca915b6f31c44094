import PayWasm, { load, mount, PayWasmError, version } from '/dist/paywasm.mjs';
window.PayWasmModule = { PayWasm, load, mount, PayWasmError, version };
