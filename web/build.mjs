// Builds dist/paywasm.js (classic script), dist/paywasm.mjs (ES module), the language files
// dist/paywasm-<lang>.json and dist/paywasm.css (the element's styles, for browsers without
// constructable stylesheets) from the ES modules of web/src: bundled by esbuild (pinned in
// package.json) from web/src/entry-script.js (as an IIFE) and web/src/entry-module.js (as ESM), then
// minified with terser (pinned too). Run by scripts/dist.sh:
//   node web/build.mjs --out dist --version 0.1.0 --wasm-integrity sha256-... --nosimd-integrity sha256-...
//                      [--no-minify] [--source-map]
// (--wasm-integrity: of paywasm.wasm; --nosimd-integrity: of paywasm-nosimd.wasm)
// What only the build knows comes from the virtual module 'paywasm:build' (buildInfo() below): the
// version, the CSS, the English texts, the SRI values of the wasm and of the language files, and
// the attribute defaults. Both files hold the same modules; whichever loads first defines
// window.PayWasm and the element, and the other reuses them (so loading twice does no harm).
// --no-minify writes the readable bundle (for debugging); --source-map also writes paywasm.js.map
// and paywasm.mjs.map (not shipped: no sourceMappingURL comment points at them).
import { readFileSync, writeFileSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
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
  if (value && !/^sha256-[A-Za-z0-9+/]{43}=$/.test(value)) throw new Error(`bad --${flag} (a sha256-... SRI value)`);
}

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
// The same text as paywasm.css, for browsers without constructable stylesheets (element.js
// styleShadow): fetched beside the script and checked against this value.
const cssIntegrity = `sha256-${createHash('sha256').update(css).digest('base64')}`;
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
  return { files, english: enShipped, integrity };
}
const locales = localeTables();

// The element's attributes: web/src/attributes.js holds the one table [name, type, default,
// description]; the script gets `name -> default` only (the type follows from the default: a
// number default makes a number property). The descriptions are for docs/widget.md and
// paywasm.d.ts, which the browser suite compares with the table.
async function attributeDefaults() {
  const { ATTRIBUTES: table } = await import('./src/attributes.js');
  const shipped = {};
  for (const [name, type, dflt, description] of table) {
    if (!/^[a-z]+(-[a-z]+)*$/.test(name) || !description) throw new Error(`attributes.js: bad row ${name}`);
    if ((type === 'number') !== (typeof dflt === 'number') || (type !== 'number' && dflt !== null && typeof dflt !== 'string')) {
      throw new Error(`attributes.js: ${name}: the default ${JSON.stringify(dflt)} is not a ${type}`);
    }
    shipped[name] = dflt;
  }
  return shipped;
}

// The virtual module 'paywasm:build' (web/src imports it; it exists only here).
const buildInfo = {
  VERSION: version,
  CSS_TEXT: css,
  CSS_INTEGRITY: cssIntegrity,
  ENGLISH: locales.english,
  LOCALES: locales.integrity,
  ATTRIBUTE_DEFAULTS: await attributeDefaults(),
  WASM_INTEGRITY: wasmIntegrity,
  NOSIMD_INTEGRITY: nosimdIntegrity,
};
const buildInfoPlugin = {
  name: 'paywasm-build',
  setup(build) {
    build.onResolve({ filter: /^paywasm:build$/ }, (a) => ({ path: a.path, namespace: 'paywasm-build' }));
    build.onLoad({ filter: /.*/, namespace: 'paywasm-build' }, () => ({
      contents: Object.entries(buildInfo).map(([k, v]) => `export const ${k} = ${JSON.stringify(v)};`).join('\n'),
      loader: 'js',
    }));
  },
};

let esbuild;
try {
  esbuild = createRequire(import.meta.url)('esbuild');
} catch (e) {
  throw new Error('esbuild is not installed: run scripts/deps.sh (it runs npm ci from package-lock.json)');
}
// One bundle per entry: the modules in import order, scope-hoisted into one function (classic) or
// one module (ESM); no minification here (terser does it), ES2020 as the widget needs.
async function bundle(entry, format) {
  const result = await esbuild.build({
    entryPoints: [join(here, 'src', entry)],
    bundle: true,
    format,
    target: 'es2020',
    platform: 'browser',
    write: false,
    legalComments: 'none',
    sourcemap: args['source-map'] ? 'external' : false,
    sourcesContent: false,
    outdir: out,  // names the outputs only (nothing is written)
    plugins: [buildInfoPlugin],
    logLevel: 'silent',
  });
  const file = (ext) => result.outputFiles.find((f) => f.path.endsWith(ext));
  return { code: file('.js').text, map: args['source-map'] ? file('.js.map').text : undefined };
}

const banner = `/*! paywasm ${version} | <paywasm-checkout> and the PayWasm API | ` +
  'needs script-src \'self\' \'wasm-unsafe-eval\' */\n';
const classic = await bundle('entry-script.js', 'iife');
const module = await bundle('entry-module.js', 'esm');

// terser: compress and mangle local names (never property names: they are the public API, the
// DOM's and the wasm exports'); the banner comment stays. ES2020 is what the widget needs anyway.
// Names of the checkout's context (web/src/context.js), its state (state.js), the view's nodes
// (view.js), the QR code shown (flows.js showQr: svg, end; never `uri`, a key core.js sends to
// checkPaymentUri), net.js's options and core.js's memory blocks (ptr, len) that are no API, DOM
// or wasm name used anywhere in web/src, and no key of the texts (locales/en.json: a quoted key is
// renamed too): renamed by terser like '_' names. A name added here that some object outside those
// files also has (an argument object core.js sends the core is one) would break that object: the
// browser suites run on these files.
const INTERNAL = ['host', 'core', 'life', 'session', 'keyCache', 'stopWatch', 'tick', 'badSeen', 'view', 'coloured',
  'panels', 'cards', 'codeError', 'summary', 'retry', 'phase', 'bad', 'words', 'select', 'save', 'svg', 'end',
  'ptr', 'len', 'timeoutMs', 'retries', 'onData', 'onEnd', 'sse', 'broken', 'madeWith', 'bankFrom', 'pageView'];
// (checked here: a text's key never is one of them)
for (const key of Object.keys(locales.english)) if (INTERNAL.includes(key)) throw new Error(`INTERNAL holds the text key ${key}`);
let terser;
try {
  terser = createRequire(import.meta.url)('terser');
} catch (e) {
  throw new Error('terser is not installed: run scripts/deps.sh (it runs npm ci from package-lock.json)');
}
// --no-minify: the same parse, printed readable (names kept, comments other than the banner gone).
function minify({ code, map }, file, isModule) {
  const readable = !!args['no-minify'];
  return terser.minify(banner + code, {
    module: isModule,
    ecma: 2020,
    compress: readable ? false : { passes: 3 },  // a third pass: -4 B gzip; a fourth finds nothing
    // Property names that start with '_' are the element's own internals (never API, DOM or wasm
    // names; the wasm's `_initialize` export is the one exception, kept by name, and '__' names such
    // as __proto__ are never ours), and so are INTERNAL's: renamed too. builtins: terser otherwise
    // silently keeps every name its DOM list holds (host, view, session, summary, retry were kept
    // so): the regex alone decides (-56 B gzip).
    mangle: readable ? false : { properties: { builtins: true, regex: new RegExp(`^(_(?!_|initialize$).*|${INTERNAL.join('|')})$`) } },
    format: { comments: /^!/, beautify: readable },
    // (the bundle's map as the input: the result maps to web/src; the banner line shifts it by one)
    sourceMap: map ? { filename: file, content: JSON.parse(map) } : false,
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
writeFileSync(join(out, 'paywasm.css'), css);
