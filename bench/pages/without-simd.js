// Loaded before paywasm.js on micro-nosimd.html: WebAssembly.validate() refuses any module with a
// SIMD opcode (prefix 0xfd), as a browser without SIMD128 does, so the loader takes
// paywasm-nosimd.wasm; compiling stays real. (bench/engines.mjs: each module's encryption time.)
(function () {
  'use strict';
  const validate = WebAssembly.validate;
  WebAssembly.validate = (bytes) => (new Uint8Array(bytes).includes(0xfd) ? false : validate(bytes));
})();
