// Assembles dist/paywasm.js (classic script), dist/paywasm.mjs (ES module) and the language files
// dist/paywasm-<lang>.json from web/src, with the CSS, the version and the SRI values of the wasm
// and of the language files built in, minified with terser (pinned in package.json). Run by
// scripts/dist.sh:
//   node web/build.mjs --out dist --version 0.1.0 --wasm-integrity sha384-... --nosimd-integrity sha384-...
//                      [--no-minify] [--source-map]
// (--wasm-integrity: of paywasm.wasm; --nosimd-integrity: of paywasm-nosimd.wasm)
// Both files share one body; whichever loads first defines window.PayWasm and the element, and the
// other reuses them (so loading twice does no harm). --no-minify writes the readable assembly (for
// debugging); --source-map also writes paywasm.js.map and paywasm.mjs.map (not shipped: no
// sourceMappingURL comment points at them).
import { readFileSync, writeFileSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import vm from 'node:vm';
import { createHash } from 'node:crypto';

const here = dirname(fileURLToPath(import.meta.url));
const FLAGS = ['no-minify', 'source-map'];
const args = Object.fromEntries(process.argv.slice(2).reduce((pairs, a, i, all) => {
  if (FLAGS.includes(a.slice(2))) pairs.push([a.slice(2), true]);
  else if (a.startsWith('--')) pairs.push([a.slice(2), all[i + 1]]);
  return pairs;
}, []));
const out = args.out || join(here, '..', 'dist');
const version = args.version || '0.0.0';
const wasmIntegrity = args['wasm-integrity'] || '';
const nosimdIntegrity = args['nosimd-integrity'] || '';
if (!/^[0-9]+\.[0-9]+\.[0-9]+/.test(version)) throw new Error(`bad --version ${version}`);
for (const [flag, value] of [['wasm-integrity', wasmIntegrity], ['nosimd-integrity', nosimdIntegrity]]) {
  if (value && !/^sha384-[A-Za-z0-9+/=]+$/.test(value)) throw new Error(`bad --${flag}`);
}

// core.js starts fetching the wasm as soon as it has run, before the element is defined.
const SOURCES = ['locales.js', 'core.js', 'net.js', 'element.js', 'api.js'];

// CSS minifier for our own stylesheet: comments and layout whitespace go; strings are kept as
// written; a space is kept wherever it may separate tokens (descendant combinators, values such as
// `1px solid`, `calc(a - 2px)`), and only dropped next to `{ } ; , >` and after `:` in declarations.
function minifyCss(text) {
  const STRING = /("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')/;
  // Comments first, in one left-to-right pass with strings (a quote inside a comment is no string).
  const uncommented = text.split(new RegExp(`(/\\*[\\s\\S]*?\\*/|${STRING.source.slice(1, -1)})`))
    .map((part, i) => (i % 2 && part.startsWith('/*') ? ' ' : part)).join('');
  return uncommented.split(STRING).map((part, i) => (i % 2 ? part : part
    .replace(/\s+/g, ' ')
    .replace(/ ?([{};,>]) ?/g, '$1')
    .replace(/([{;][\w-]+): /g, '$1:')         // a declaration's colon (never a selector's)
    .replace(/;}/g, '}'))).join('').trim();
}
const css = minifyCss(readFileSync(join(here, 'src', 'styles.css'), 'utf8'));
// The shopper text: web/src/locales/<lang>.json, one object per language. Shipped, paywasm.js holds
// English only; every other language is a file beside it, paywasm-<lang>.json: the values in the
// order of the English keys (null: not translated, English is used), fetched by the widget only for
// a shopper who reads that language, with the SRI value built in here (LOCALES). Every shopper
// downloads one language instead of six (gzip: ~1.2 KB each).
// A message and its next step ("<key>.next" in the sources) ship as one text, "message\nnext step"
// (a method's own message, "<code>.<method>", takes the code's next step when it has none of its
// own); a language without both parts ships null there, so the whole English entry is used.
function shipped(table, en) {
  const out = {};
  for (const key of Object.keys(en).filter((k) => !k.endsWith('.next'))) {
    const own = `${key}.next`;
    const base = `${key.split('.')[0]}.next`;  // insufficient_balance.bank -> insufficient_balance.next
    const nextKey = own in en ? own : key.includes('.') && base in en ? base : null;
    const text = table[key];
    const next = nextKey ? table[nextKey] : '';
    out[key] = typeof text === 'string' && typeof next === 'string' ? (next ? `${text}\n${next}` : text) : null;
  }
  return out;
}
function localeTables() {
  const dir = join(here, 'src', 'locales');
  const en = JSON.parse(readFileSync(join(dir, 'en.json'), 'utf8'));
  const enShipped = shipped(en, en);
  const keys = Object.keys(enShipped);
  const files = {};
  const integrity = {};
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json') && f !== 'en.json').sort()) {
    const lang = file.slice(0, -5);
    if (!/^[a-z]{2,3}(-[A-Z]{2})?$/.test(lang)) throw new Error(`locales/${file}: '${lang}' is not a language tag`);
    const table = JSON.parse(readFileSync(join(dir, file), 'utf8'));
    const unknown = Object.keys(table).filter((k) => !(k in en));
    if (unknown.length) throw new Error(`locales/${file} has keys that en.json lacks: ${unknown.join(', ')}`);
    const json = JSON.stringify(Object.values(shipped(table, en)));
    files[`paywasm-${lang}.json`] = json;
    // sha256 (as strong as SRI needs; each value is incompressible, and 24 bytes shorter than sha384's)
    integrity[lang] = `sha256-${createHash('sha256').update(json).digest('base64')}`;
  }
  return { files, code: `const MESSAGES = { en: ${JSON.stringify(enShipped)} };\nconst LOCALES = ${JSON.stringify(integrity)};\n` };
}
const locales = localeTables();

// The element's attributes: web/src/attributes.js holds the one table [name, type, default,
// description]; the script gets `name -> default` only (the type follows from the default: a
// number default makes a number property). The descriptions are for docs/widget.md and
// paywasm.d.ts, which the browser suite compares with the table.
function attributeTable() {
  const source = readFileSync(join(here, 'src', 'attributes.js'), 'utf8');
  const table = vm.runInNewContext(`${source}\nATTRIBUTES`, Object.create(null));
  const shipped = {};
  for (const [name, type, dflt, description] of table) {
    if (!/^[a-z]+(-[a-z]+)*$/.test(name) || !description) throw new Error(`attributes.js: bad row ${name}`);
    if ((type === 'number') !== (typeof dflt === 'number') || (type !== 'number' && dflt !== null && typeof dflt !== 'string')) {
      throw new Error(`attributes.js: ${name}: the default ${JSON.stringify(dflt)} is not a ${type}`);
    }
    shipped[name] = dflt;
  }
  return `const ATTRIBUTES = ${JSON.stringify(shipped)};\n`;
}

const body = [
  `const VERSION = ${JSON.stringify(version)};`,
  `const CSS_TEXT = ${JSON.stringify(css)};`,
  locales.code,
  attributeTable(),
  ...SOURCES.map((f) => readFileSync(join(here, 'src', f), 'utf8')),
].join('\n').replace('@PAYWASM_WASM_INTEGRITY@', wasmIntegrity).replace('@PAYWASM_NOSIMD_INTEGRITY@', nosimdIntegrity);

const banner = `/*! paywasm ${version} | <paywasm-checkout> and the PayWasm API | ` +
  'needs script-src \'self\' \'wasm-unsafe-eval\' */\n';
const classic = `${banner}(function () {
'use strict';
if (window.PayWasm) return;
const SCRIPT_URL = (document.currentScript && document.currentScript.src) || document.baseURI;
${body}
window.PayWasm = PayWasm;
})();
`;
const module = `${banner}const PayWasm = globalThis.PayWasm || (function () {
'use strict';
const SCRIPT_URL = ${'import.meta.url'};
${body}
globalThis.PayWasm = PayWasm;
return PayWasm;
})();
export default PayWasm;
export const { load, mount, PayWasmError, version, locales } = PayWasm;
`;

// terser: compress and mangle local names (never property names: they are the public API, the
// DOM's and the wasm exports'); the banner comment stays. ES2020 is what the widget needs anyway.
let terser;
try {
  terser = createRequire(import.meta.url)('terser');
} catch (e) {
  throw new Error('terser is not installed: run scripts/deps.sh (it runs npm ci from package-lock.json)');
}
// --no-minify: the same parse, printed readable (names kept, comments other than the banner gone).
function minify(code, file, isModule) {
  const readable = !!args['no-minify'];
  return terser.minify(code, {
    module: isModule,
    ecma: 2020,
    compress: readable ? false : { passes: 2 },
    // Property names that start with '_' are the element's own internals (never API, DOM or wasm
    // names; the wasm's `_initialize` export is the one exception, kept by name): renamed too.
    mangle: readable ? false : { properties: { regex: /^_(?!initialize$)/ } },
    format: { comments: /^!/, beautify: readable },
    sourceMap: args['source-map'] ? { filename: file } : false,
  });
}

mkdirSync(out, { recursive: true });
for (const [file, code, isModule] of [['paywasm.js', classic, false], ['paywasm.mjs', module, true]]) {
  const result = await minify(code, file, isModule);
  if (/\beval\s*\(|new Function|innerHTML|insertAdjacentHTML|document\.write|sourceMappingURL/.test(result.code)) {
    throw new Error(`${file}: web/src uses eval, new Function or HTML injection (not allowed: CSP, XSS), or a source map URL`);
  }
  writeFileSync(join(out, file), result.code.endsWith('\n') ? result.code : `${result.code}\n`);
  if (result.map) writeFileSync(join(out, `${file}.map`), result.map);
}
for (const [file, json] of Object.entries(locales.files)) writeFileSync(join(out, file), json);
