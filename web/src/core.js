// The WebAssembly core from JavaScript: loading (one promise) and the calling convention of
// src/wasm/exports.cpp. No eval, no new Function, no Emscripten glue: the module is standalone and
// needs three imports, written here.
import { WASM_INTEGRITY, NOSIMD_INTEGRITY } from 'paywasm:build';
import { PayWasmError } from './error.js';
import { besideScript } from './assets.js';
import { languageWithin, pickLocale } from './locales.js';


let loadPromise = null;

// Loads and starts the module once; later calls get the same promise (a failed load may be
// retried). Options: wasmUrl (default: paywasm.wasm beside the script; in a browser without SIMD128,
// paywasm-nosimd.wasm from the same folder: wasmFile()), integrity (SRI of the module fetched;
// default: the one built with this script for that file; '' to skip).
export function load(options) {
  if (!loadPromise) {
    // With the browser's language, so errors from the core already read in it.
    loadPromise = Promise.all([instantiate(options || {}), languageWithin(pickLocale().lang)]).then(([core]) => core).catch((e) => {
      loadPromise = null;
      throw e;
    });
  }
  return loadPromise;
}

const builtIn = (sri) => (sri.startsWith('sha') ? sri : '');

// Fetches and compiles the module (streaming when it is served as application/wasm).
async function compileFrom(url, integrity) {
  let response;
  try {
    response = await fetch(url, { credentials: 'same-origin', integrity });
  } catch (e) {
    throw new PayWasmError('network', `could not fetch ${url} (network error, blocked by connect-src, or integrity mismatch): ${e.message}`);
  }
  if (!response.ok) {
    throw new PayWasmError('network', `could not fetch ${url}: HTTP ${response.status}`, { httpStatus: response.status });
  }
  try {
    return (response.headers.get('Content-Type') || '').startsWith('application/wasm')
      ? await WebAssembly.compileStreaming(response)
      : await WebAssembly.compile(await response.arrayBuffer());
  } catch (e) {
    throw new PayWasmError('unsupported', `could not compile ${url} (a Content-Security-Policy needs script-src 'wasm-unsafe-eval'): ${e.message}`);
  }
}

// The default module (this browser's file of wasmFile() beside the script, with its built-in SRI
// value) is fetched and compiled as soon as the script runs, so the download overlaps with the
// page's own work and the element's first render. The first load() with that same URL and integrity
// takes it over; any other load() fetches its own. Compiling runs nothing: the module is only
// instantiated by load().
let early = null;
export function startEarly() {
  if (whyUnsupported() || typeof fetch !== 'function') return;
  try {
    const file = wasmFile();
    const url = besideScript(file.name);
    const integrity = file.integrity;
    const module = compileFrom(url, integrity);
    module.catch(() => {});  // reported by the load() that takes it over, if any
    early = { url, integrity, module };
  } catch (e) {
    early = null;  // load() will say what is wrong
  }
}

// Both modules need WebAssembly with exception handling (Chrome/Edge 95+, Firefox 100+, Safari
// 15.2+; a browser without it fails to compile them: `unsupported` too, after the download).
// Returns why this browser cannot run them, or ''.
function whyUnsupported() {
  return typeof WebAssembly === 'object' ? '' : 'this browser has no WebAssembly';
}

// The module for this browser: paywasm.wasm uses SIMD128 for the RSA arithmetic
// (src/core/bigint_modexp.cpp; Chrome/Edge 91+, Firefox 89+, Safari 16.4+); without it,
// paywasm-nosimd.wasm (the same core, the RSA arithmetic on scalars). A 43-byte module whose one
// function returns a v128.const tells whether this browser has SIMD128.
const SIMD_PROBE = [0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 22, 1, 20, 0, 253, 12,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 11];
function wasmFile() {
  return WebAssembly.validate(new Uint8Array(SIMD_PROBE)) ? { name: 'paywasm.wasm', integrity: builtIn(WASM_INTEGRITY) }
    : { name: 'paywasm-nosimd.wasm', integrity: builtIn(NOSIMD_INTEGRITY) };
}

async function instantiate(options) {
  const why = whyUnsupported();
  if (why) throw new PayWasmError('unsupported', why);
  // wasmUrl names paywasm.wasm; the no-SIMD module is expected beside it, under its own name.
  const file = wasmFile();
  const given = options.wasmUrl && new URL(options.wasmUrl, document.baseURI).href;
  const url = !given ? besideScript(file.name) : file.name === 'paywasm.wasm' ? given : new URL(file.name, given).href;
  const integrity = options.integrity !== undefined ? options.integrity || '' : file.integrity;
  let pending;
  if (early && early.url === url && early.integrity === integrity) pending = early.module;
  early = null;  // taken over, or not wanted: a retry after a failure fetches again
  const module = await (pending || compileFrom(url, integrity));
  let memory = null;
  const known = {
    env: {
      getentropy(ptr, len) {
        crypto.getRandomValues(new Uint8Array(memory.buffer, ptr, len));
        return 0;
      },
      emscripten_notify_memory_growth() {},
    },
    // The little of WASI that libc links in: no files, no environment.
    wasi_snapshot_preview1: {
      proc_exit(code) {
        throw new PayWasmError('internal', `the core stopped (exit ${code})`);
      },
    },
  };
  // Anything else the module imports is a build mistake: it fails loudly when called.
  const imports = {};
  for (const imp of WebAssembly.Module.imports(module)) {
    const mod = (imports[imp.module] = imports[imp.module] || {});
    mod[imp.name] = (known[imp.module] && known[imp.module][imp.name]) || (() => {
      throw new PayWasmError('internal', `the core called the missing import ${imp.module}.${imp.name}`);
    });
  }
  const instance = await WebAssembly.instantiate(module, imports);
  memory = instance.exports.memory;
  if (instance.exports._initialize) instance.exports._initialize();
  return makeCore(instance.exports, memory);
}

function makeCore(ex, memory) {
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();

  function put(text) {
    const bytes = encoder.encode(text);
    const ptr = ex.pw_alloc(bytes.length + 1);
    if (!ptr) throw new PayWasmError('internal', 'out of memory');
    const view = new Uint8Array(memory.buffer, ptr, bytes.length + 1);
    view.set(bytes);
    view[bytes.length] = 0;
    return { ptr, len: bytes.length + 1 };
  }
  // Arguments and results may hold a shopper token or a payload: wiped before they are freed.
  function release(block) {
    if (!block || !block.ptr) return;
    new Uint8Array(memory.buffer, block.ptr, block.len).fill(0);
    ex.pw_free(block.ptr);
  }

  // Runs one op of src/wasm/ops.cpp; returns its value or throws a PayWasmError.
  function call(op, args) {
    let name = null;
    let input = null;
    let output = null;
    let text;
    try {
      name = put(op);
      input = put(JSON.stringify(args || {}));
      const r = ex.pw_call(name.ptr, input.ptr);
      if (!r) throw new PayWasmError('internal', 'out of memory');
      const heap = new Uint8Array(memory.buffer);
      let end = r;
      while (heap[end]) end++;
      output = { ptr: r, len: end - r + 1 };
      text = decoder.decode(heap.subarray(r, end));
    } catch (e) {
      if (e instanceof PayWasmError) throw e;
      throw new PayWasmError('internal', `the core failed in ${op}: ${e.message}`);
    } finally {
      release(output);
      release(input);
      release(name);
    }
    // The core's deprecation warnings (result.warnings: an endpoint the service marks deprecated)
    // are for the merchant, who has them from docs/widget.md and the gateway's log: never printed
    // in the shopper's console.
    const result = JSON.parse(text);
    if (!result.ok) {
      const e = result.error;
      throw new PayWasmError(e.code, e.message, { field: e.field, httpStatus: e.httpStatus });
    }
    return result.value;
  }

  const str = (v) => (v === undefined || v === null ? v : String(v));
  return Object.freeze({
    // RSA-encrypts text to the PEM/DER public key; base64. options: padding ('oaep-sha1' default,
    // 'oaep-sha256', 'pkcs1v15'), fingerprint (refuse any other key).
    encrypt(publicKeyPem, plaintext, options) {
      const o = options || {};
      return call('encrypt', { key: str(publicKeyPem), plaintext: str(plaintext), padding: o.padding, fingerprint: o.fingerprint });
    },
    // Lower-case hex SHA-256 of the key's SubjectPublicKeyInfo.
    keyFingerprint(publicKeyPem) {
      return call('keyInfo', { key: str(publicKeyPem) }).fingerprint;
    },
    // { fingerprint, bits }
    keyInfo(publicKeyPem) {
      return call('keyInfo', { key: str(publicKeyPem) });
    },
    // SVG markup of the QR code of `text`. options: ecc 'L'|'M'|'Q'|'H' (default 'M'), border 0..16.
    qrSvg(text, options) {
      const o = options || {};
      return call('qrSvg', { text: str(text), ecc: o.ecc, border: o.border });
    },
    // { size, modules: Uint8Array(size * size), 1 = dark, row-major, no quiet zone }
    qrMatrix(text, options) {
      const m = call('qrMatrix', { text: str(text), ecc: (options || {}).ecc });
      return { size: m.size, modules: Uint8Array.from(m.modules, (c) => (c === '1' ? 1 : 0)) };
    },
    // Validated canonical JSON text of an exchange / bank payment payload (the plaintext of `data`),
    // with the core's defaults: nativeAmount (amount) := the cart total, each line's localAmount :=
    // its price, localCurrency := merchantStoreCurrency, when left out.
    exchangePayload(order) {
      return call('exchangePayload', { order: JSON.stringify(order) });
    },
    bankPayload(order) {
      return call('bankPayload', { order: JSON.stringify(order) });
    },
    // The total (decimal text) of an exchange order as exchangePayload would send it, every rule of
    // the payload checked; with sessionAmount (decimal text: a gateway session's fixed amount), a
    // cart that adds up to another amount is refused (validation, field 'cart').
    checkOrder(order, sessionAmount) {
      return call('checkOrder', { order: JSON.stringify(order), sessionAmount: str(sessionAmount) });
    },
    // Exact decimal text of sum(price * quantity) of an array of cart items ({id, name, price,
    // quantity, ...}); an item that is not one throws a validation error naming it (cart[1].price).
    cartTotal(cart) {
      return call('cartTotal', { order: JSON.stringify({ clientId: '', assets: '', cart, shippingAddress: {}, offerId: '',
        savepassword: false, code2fa: '', merchantStoreCurrency: '' }) });
    },
    // { scheme, address, amount, value } of a wallet payment URI, or throws invalid_qr.
    checkPaymentUri(uri) {
      return call('checkPaymentUri', { uri: str(uri) });
    },
    // The core's row for a numeric status and the payment method ('exchange' | 'bank' | 'qr'; left
    // out: the QR reading of 10, 101 and 19), or for an immediate status word: { code, kind, final,
    // success, taken ('none'|'maybe'|'some'|'all'), tone ('info'|'success'|'warning'|'error'), next
    // ('pay'|'wait'|'pay_rest'|'pay_again'|'contact_shop'|'done'), label }. Throws validation for
    // another method, bad_response for an unknown word.
    describeStatus(codeOrWord, method) {
      return typeof codeOrWord === 'number' ? call('describeStatus', { code: codeOrWord, method: method || undefined })
        : call('describeStatus', { word: str(codeOrWord) });
    },
    // What a payment asks for, what arrived and what is still owed, from exact decimals, in the
    // payment's own currency (crypto for a QR code): { expected, received, remaining }, each
    // { amount, currency }. p: { code, method?, amount, currency, receivedAmount? } (decimal texts;
    // receivedAmount left out counts as zero). Throws validation for an amount that is not a decimal
    // text, a negative one or no currency.
    amountsOwed(p) {
      return call('amountsOwed', { code: p.code, method: p.method || undefined, amount: str(p.amount),
        currency: str(p.currency), receivedAmount: str(p.receivedAmount) });
    },
    // Bytes of WebAssembly linear memory right now (it only grows): for leak checks and benchmarks.
    memoryBytes() {
      return memory.buffer.byteLength;
    },
    // The request of one exchange or bank payment, built by the core from the order (defaults,
    // validation, encryption): { method, url, headers, body }.
    // p: { method: 'exchange'|'bank', order (ExchangeOrder | BankOrder), key, fingerprint?, padding?,
    //      token, baseUrl, exchange (exchange payments), exchanges?, sessionAmount? (a gateway
    //      session's fixed amount: a cart that adds up to another is refused, nothing encrypted) }
    paymentRequest(p) {
      const exchanges = p.exchanges && [].concat(p.exchanges).join(' ');
      return call('paymentRequest', Object.assign({}, p, { order: JSON.stringify(p.order), exchanges }));
    },
    // GET /users/me with the shopper's token: { method, url, headers, body }.
    usersMeRequest(token, baseUrl) {
      return call('usersMeRequest', { token, baseUrl });
    },
    // The core's reading of an answer: 'exchange-pay' | 'bank-pay' -> { transaction (the body's
    // JSON), status }, 'users-me' -> { firstName, fullname }; or throws the typed error (418-422
    // included).
    parseResponse(endpoint, response) {
      const r = call('parseResponse', { endpoint, status: response.status, body: response.body });
      if (endpoint === 'users-me') return r;
      try {
        return { transaction: JSON.parse(response.body), status: r };
      } catch (e) {
        throw new PayWasmError('bad_response', `the answer is not JSON: ${e.message}`, { httpStatus: response.status });
      }
    },
    // Low level: any op of src/wasm/ops.cpp by name.
    call,
  });
}

