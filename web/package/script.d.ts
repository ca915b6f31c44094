// Types of `paywasm/script` (paywasm.js, the classic script): it exports nothing; running it defines
// window.PayWasm and <paywasm-checkout>, whose types are the global declarations of paywasm.d.ts.
/// <reference path="./paywasm.d.ts" />
export {};
