// Transfer sizes (gzip -9, as a server would send them) and a size breakdown of the widget's wasm:
// sections, code per library, the largest functions, and what the data section holds. Function
// names come from the module's "name" section when it has one, else from the Emscripten symbol
// map of the build (--emit-symbol-map), used only when it belongs to the same module bytes.
import fs from 'node:fs';
import zlib from 'node:zlib';
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';

// GNU gzip -9 when present (the budget is defined with it; its deflate differs from zlib's by a few
// hundred bytes on the wasm), else zlib at level 9.
let gnuGzip = null;
export function gzipSize(bytes) {
  if (gnuGzip === null) {
    try { execFileSync('gzip', ['--version'], { stdio: 'ignore' }); gnuGzip = true; } catch (e) { gnuGzip = false; }
  }
  if (gnuGzip) return execFileSync('gzip', ['-9', '-c', '-n'], { input: bytes, maxBuffer: 64 << 20 }).length;
  return zlib.gzipSync(bytes, { level: 9 }).length;
}
export const gzipTool = () => (gzipSize(Buffer.alloc(1)), gnuGzip ? 'gzip -9 -n' : 'zlib level 9');

function sizeOf(path) {
  const bytes = fs.readFileSync(path);
  return { raw: bytes.length, gzip: gzipSize(bytes) };
}

// files: { label: path }. Returns { label: { raw, gzip } }.
export function transferSizes(files) {
  return Object.fromEntries(Object.entries(files).map(([label, path]) => [label, sizeOf(path)]));
}

// ---- wasm parsing ---------------------------------------------------------------------------------

const SECTION_NAMES = ['custom', 'type', 'import', 'function', 'table', 'memory', 'global', 'export',
  'start', 'element', 'code', 'data', 'datacount', 'tag'];

class Reader {
  constructor(bytes, pos = 0) { this.bytes = bytes; this.pos = pos; }
  byte() { return this.bytes[this.pos++]; }
  u32() {
    let result = 0;
    let shift = 0;
    for (;;) {
      const b = this.byte();
      result += (b & 0x7f) * 2 ** shift;
      shift += 7;
      if (!(b & 0x80)) return result;
    }
  }
  name() {
    const n = this.u32();
    const s = this.bytes.subarray(this.pos, this.pos + n).toString('utf8');
    this.pos += n;
    return s;
  }
  limits() { const flags = this.u32(); this.u32(); if (flags & 1) this.u32(); }
  // A constant expression (active segment offsets): skipped up to its `end` opcode.
  skipInitExpr() {
    for (;;) {
      const op = this.byte();
      if (op === 0x0b) return;
      if (op === 0x41 || op === 0x42 || op === 0x23) this.u32();
    }
  }
}

export function parseWasm(bytes) {
  const r = new Reader(bytes, 8);
  const sections = [];
  const functions = [];
  const dataSegments = [];
  const names = new Map();
  let importedFunctions = 0;
  while (r.pos < bytes.length) {
    const id = r.byte();
    const size = r.u32();
    const start = r.pos;
    const end = start + size;
    let label = SECTION_NAMES[id] || `unknown(${id})`;
    if (id === 0) {
      const customName = r.name();
      label = `custom "${customName}"`;
      if (customName === 'name') readNameSection(new Reader(bytes, r.pos), end, names);
    } else if (id === 2) {
      for (let n = r.u32(); n > 0; n--) {
        r.name();
        r.name();
        const kind = r.byte();
        if (kind === 0) { r.u32(); importedFunctions++; }
        else if (kind === 1) { r.byte(); r.limits(); }
        else if (kind === 2) r.limits();
        else if (kind === 3) r.pos += 2;
        else if (kind === 4) { r.byte(); r.u32(); }
      }
    } else if (id === 10) {
      const n = r.u32();
      for (let i = 0; i < n; i++) {
        const len = r.u32();
        functions.push({ index: importedFunctions + i, size: len, start: r.pos });
        r.pos += len;
      }
    } else if (id === 11) {
      for (let n = r.u32(); n > 0; n--) {
        const flags = r.u32();
        if (flags === 2) r.u32();
        if (flags !== 1) r.skipInitExpr();
        const len = r.u32();
        dataSegments.push({ start: r.pos, size: len });
        r.pos += len;
      }
    }
    sections.push({ id, name: label, size, gzip: gzipSize(bytes.subarray(start, end)) });
    r.pos = end;
  }
  return { sections, functions, dataSegments, names, importedFunctions };
}

function readNameSection(r, end, names) {
  while (r.pos < end) {
    const kind = r.byte();
    const size = r.u32();
    const next = r.pos + size;
    if (kind === 1) {
      for (let n = r.u32(); n > 0; n--) {
        const index = r.u32();
        names.set(index, r.name());
      }
    }
    r.pos = next;
  }
}

function readSymbolMap(path) {
  const names = new Map();
  for (const line of fs.readFileSync(path, 'utf8').split('\n')) {
    const i = line.indexOf(':');
    if (i > 0) names.set(Number(line.slice(0, i)), line.slice(i + 1).replace(/\\([0-9a-f]{2})/g, (m, h) => String.fromCharCode(parseInt(h, 16))));
  }
  return names;
}

// Which part of the link a function comes from, by its (demangled) name.
export function libraryOf(name) {
  if (/CryptoPP/.test(name)) {
    if (/Integer|Baseline_|Multiply|Square|Divide|Inverse|Reduce|Montgomery|ModularArith|AbstractGroup|AbstractRing|AbstractEuclidean|RecursiveMultiply|PositiveDivide|PositiveAdd|PositiveSubtract|DWord|Word/.test(name)) return 'Crypto++ big integers';
    if (/SHA|IteratedHash|HashTransformation|MGF|P1363/.test(name)) return 'Crypto++ hashes';
    if (/BER|DER|ASN1|OID|Base64|Base|Filter|BufferedTransformation|Source|Sink|Queue|Store|Redirector/.test(name)) return 'Crypto++ ASN.1/filters/queues';
    return 'Crypto++ other';
  }
  if (/qrcodegen/.test(name)) return 'qrcodegen';
  if (/rapidjson/.test(name)) return 'RapidJSON';
  if (/paywasm::wasm|^pw_/.test(name)) return 'paywasm bridge (src/wasm)';
  if (/paywasm/.test(name)) return 'paywasm core';
  if (/locale|ctype|num_put|num_get|ios_base|basic_ios|basic_[io]?stream|streambuf|codecvt|moneypunct|time_put|time_get|collate|messages/.test(name)) return 'libc++ iostream/locale';
  if (/std::__2::(basic_string|to_string|stoi|stol|stod|__str)/.test(name)) return 'libc++ strings';
  if (/std::__2::(deque|vector|__split_buffer|__tree|map|unordered|__hash)/.test(name)) return 'libc++ containers';
  if (/^std::|__cxa|__cxxabiv1|__cxx_|operator new|operator delete|__gxx|typeinfo|vtable/.test(name)) return 'libc++/libc++abi other';
  if (/^(emmalloc|malloc|free|realloc|calloc|memalign|sbrk|aligned_alloc|posix_memalign)|^(mem|str)[a-z]*$|printf|fmt_|^__/.test(name)) return 'libc + malloc';
  return 'other';
}

// Printable text runs in the data section (error messages, names, tables of text), longest first.
function textRuns(bytes, segments, min = 16) {
  const runs = [];
  for (const s of segments) {
    let from = -1;
    for (let i = s.start; i <= s.start + s.size; i++) {
      const b = i < s.start + s.size ? bytes[i] : 0;
      const printable = b >= 0x20 && b < 0x7f;
      if (printable && from < 0) from = i;
      if (!printable && from >= 0) {
        if (i - from >= min) runs.push(bytes.subarray(from, i).toString('latin1'));
        from = -1;
      }
    }
  }
  return runs;
}

// wasmPath: the module measured; symbols: { map, wasm } of the build that made it (optional).
export function wasmBreakdown(wasmPath, symbols = {}, top = 25) {
  const bytes = fs.readFileSync(wasmPath);
  const parsed = parseWasm(bytes);
  let names = parsed.names;
  let nameSource = names.size ? 'name section' : 'none';
  if (!names.size && symbols.map && fs.existsSync(symbols.map)) {
    const same = symbols.wasm && fs.existsSync(symbols.wasm)
      && crypto.createHash('sha256').update(fs.readFileSync(symbols.wasm)).digest('hex') === crypto.createHash('sha256').update(bytes).digest('hex');
    names = readSymbolMap(symbols.map);
    nameSource = same ? `symbol map ${symbols.map}` : `symbol map ${symbols.map} (from a different build of the module: names may be wrong)`;
  }
  const functions = parsed.functions.map((f) => ({ ...f, name: names.get(f.index) || `func${f.index}` }));
  const groups = new Map();
  for (const f of functions) {
    const g = libraryOf(f.name);
    if (!groups.has(g)) groups.set(g, { library: g, functions: 0, code: 0, bodies: [] });
    const e = groups.get(g);
    e.functions++;
    e.code += f.size;
    e.bodies.push(bytes.subarray(f.start, f.start + f.size));
  }
  const libraries = [...groups.values()].map((g) => ({
    library: g.library, functions: g.functions, code: g.code, gzipAlone: gzipSize(Buffer.concat(g.bodies)),
  })).sort((a, b) => b.code - a.code);
  const data = parsed.dataSegments.reduce((n, s) => n + s.size, 0);
  const text = textRuns(bytes, parsed.dataSegments);
  return {
    file: { raw: bytes.length, gzip: gzipSize(bytes) },
    nameSource,
    sections: parsed.sections,
    code: { functions: functions.length, bytes: functions.reduce((n, f) => n + f.size, 0) },
    libraries,
    largestFunctions: [...functions].sort((a, b) => b.size - a.size).slice(0, top)
      .map((f) => ({ size: f.size, library: libraryOf(f.name), name: f.name.length > 160 ? `${f.name.slice(0, 157)}...` : f.name })),
    data: {
      segments: parsed.dataSegments.length,
      bytes: data,
      zeroBytes: parsed.dataSegments.reduce((n, s) => n + bytes.subarray(s.start, s.start + s.size).filter((b) => b === 0).length, 0),
      textBytes: text.reduce((n, s) => n + s.length, 0),
      // Mangled C++ type names (typeinfo for RTTI: dynamic_cast, typeid, exceptions).
      typeNameBytes: text.filter((s) => /^(N?[0-9]+|NSt|St)[A-Za-z0-9_]+$/.test(s)).reduce((n, s) => n + s.length, 0),
      longestText: text.sort((a, b) => b.length - a.length).slice(0, 8).map((s) => (s.length > 120 ? `${s.slice(0, 117)}...` : s)),
    },
  };
}
