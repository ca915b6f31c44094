// A shipped wasm module (paywasm.wasm, paywasm-nosimd.wasm) loaded by Node with exactly the imports
// the browser loader (web/src/core.js) gives it; call(op, args) runs one op of src/wasm/ops.cpp.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

// `entropy(view)` fills getentropy's buffer; returning false makes getentropy fail (errno-style -1).
export async function loadWasmModule(dist, file) {
  const module = await WebAssembly.compile(fs.readFileSync(path.join(dist, file)));
  let memory = null;
  const state = { entropy: (view) => (crypto.getRandomValues(view), true) };
  const known = {
    env: {
      getentropy(ptr, len) {
        return state.entropy(new Uint8Array(memory.buffer, ptr, len)) ? 0 : -1;
      },
      emscripten_notify_memory_growth() {},
    },
    wasi_snapshot_preview1: {
      proc_exit(code) {
        throw new Error(`the core stopped (exit ${code})`);
      },
    },
  };
  const imports = {};
  for (const imp of WebAssembly.Module.imports(module)) {
    const fn = known[imp.module]?.[imp.name];
    if (!fn) throw new Error(`${file} imports ${imp.module}.${imp.name}, which the browser loader does not give`);
    (imports[imp.module] ??= {})[imp.name] = fn;
  }
  const instance = await WebAssembly.instantiate(module, imports);
  const ex = instance.exports;
  memory = ex.memory;
  if (ex._initialize) ex._initialize();

  const put = (text) => {
    const bytes = new TextEncoder().encode(text);
    const ptr = ex.pw_alloc(bytes.length + 1);
    const view = new Uint8Array(memory.buffer, ptr, bytes.length + 1);
    view.set(bytes);
    view[bytes.length] = 0;
    return ptr;
  };
  // One op of src/wasm/ops.cpp: { ok: true, value } or { ok: false, error: { code, message } }.
  const call = (op, args) => {
    const name = put(op);
    const input = put(JSON.stringify(args));
    const r = ex.pw_call(name, input);
    const heap = new Uint8Array(memory.buffer);
    let end = r;
    while (heap[end]) end++;
    const text = new TextDecoder().decode(heap.subarray(r, end));
    ex.pw_free(r);
    ex.pw_free(input);
    ex.pw_free(name);
    return JSON.parse(text);
  };
  return { file, state, call };
}

