// Size report of a wasm module: the code size of every function, named from the Emscripten symbol
// map (--emit-symbol-map), largest first, then totals per library.
//   node web/wasm-sizes.mjs dist/paywasm.wasm build/wasm/widget/paywasm.wasm.symbols [--groups]
import { readFileSync } from 'node:fs';

const [wasmPath, mapPath] = process.argv.slice(2);
const bytes = readFileSync(wasmPath);
const names = new Map();
if (mapPath) {
  for (const line of readFileSync(mapPath, 'utf8').split('\n')) {
    const i = line.indexOf(':');
    if (i > 0) names.set(Number(line.slice(0, i)), line.slice(i + 1));
  }
}

let pos = 8;
function leb() {
  let result = 0;
  let shift = 0;
  for (;;) {
    const b = bytes[pos++];
    result += (b & 0x7f) * 2 ** shift;
    shift += 7;
    if (!(b & 0x80)) return result;
  }
}

let importedFuncs = 0;
const funcs = [];
const sections = [];
while (pos < bytes.length) {
  const id = bytes[pos++];
  const size = leb();
  const end = pos + size;
  sections.push({ id, size });
  if (id === 2) {  // imports: count the functions, which come first in the index space
    const n = leb();
    for (let i = 0; i < n; i++) {
      const moduleLen = leb();
      pos += moduleLen;
      const fieldLen = leb();
      pos += fieldLen;
      const kind = bytes[pos++];
      if (kind === 0) { leb(); importedFuncs++; }
      else if (kind === 1) { pos++; const f = leb(); leb(); if (f & 1) leb(); }
      else if (kind === 2) { const f = leb(); leb(); if (f & 1) leb(); }
      else if (kind === 3) { pos += 2; }
      else if (kind === 4) { pos++; leb(); }
    }
  } else if (id === 10) {  // code
    const n = leb();
    for (let i = 0; i < n; i++) {
      const len = leb();
      funcs.push({ index: importedFuncs + i, size: len });
      pos += len;
    }
  }
  pos = end;
}

// The map holds demangled names with some characters escaped as \xx (hex).
const unescape = (n) => n.replace(/\\([0-9a-f]{2})/g, (m, hex) => String.fromCharCode(parseInt(hex, 16)));
for (const f of funcs) f.name = unescape(names.get(f.index) || `func${f.index}`);

const group = (n) => {
  if (/CryptoPP/.test(n)) return 'Crypto++';
  if (/qrcodegen/.test(n)) return 'qrcodegen';
  if (/rapidjson/.test(n)) return 'RapidJSON';
  if (/paywasm::wasm|^pw_/.test(n)) return 'paywasm bridge (src/wasm)';
  if (/paywasm/.test(n)) return 'paywasm core';
  if (/locale|ctype|num_put|num_get|ios_base|basic_ios|basic_[io]?stream|streambuf|codecvt|moneypunct|time_put|time_get|collate|messages/.test(n)) return 'libc++ iostream/locale';
  if (/^std::|__cxa|__cxxabiv1|operator new|operator delete/.test(n)) return 'libc++/libc++abi other';
  return 'libc and other';
};
const totals = new Map();
for (const f of funcs) totals.set(group(f.name), (totals.get(group(f.name)) || 0) + f.size);

const code = funcs.reduce((a, f) => a + f.size, 0);
const data = sections.filter((s) => s.id === 11).reduce((a, s) => a + s.size, 0);
console.log(`code ${code} bytes in ${funcs.length} functions; data ${data} bytes; file ${bytes.length} bytes`);
console.log('per library (code bytes):');
for (const [g, n] of [...totals].sort((a, b) => b[1] - a[1])) console.log(`  ${String(n).padStart(8)}  ${g}`);
console.log('largest functions:');
const top = Number((process.argv.find((a) => a.startsWith('--top=')) || '--top=30').slice(6));
for (const f of funcs.sort((a, b) => b.size - a.size).slice(0, top)) {
  console.log(`  ${String(f.size).padStart(8)}  ${f.name.slice(0, 150)}`);
}
