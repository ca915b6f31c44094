// Assembles dist/paywasm.js (classic script) and dist/paywasm.mjs (ES module) from web/src, with
// the CSS, the version and the wasm's SRI value built in. Run by scripts/dist.sh:
//   node web/build.mjs --out dist --version 0.1.0 --wasm-integrity sha384-...
// Both files share one body; whichever loads first defines window.PayWasm and the element, and the
// other reuses them (so loading twice does no harm).
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const args = Object.fromEntries(process.argv.slice(2).reduce((pairs, a, i, all) => {
  if (a.startsWith('--')) pairs.push([a.slice(2), all[i + 1]]);
  return pairs;
}, []));
const out = args.out || join(here, '..', 'dist');
const version = args.version || '0.0.0';
const wasmIntegrity = args['wasm-integrity'] || '';
if (!/^[0-9]+\.[0-9]+\.[0-9]+/.test(version)) throw new Error(`bad --version ${version}`);
if (wasmIntegrity && !/^sha384-[A-Za-z0-9+/=]+$/.test(wasmIntegrity)) throw new Error('bad --wasm-integrity');

const SOURCES = ['locales.js', 'core.js', 'net.js', 'element.js', 'api.js'];

// Comment lines, blank lines and indentation go; code is otherwise kept as written (readable in
// the browser's devtools). Safe because no source line continues a string or template literal,
// which is checked here.
function strip(text, file) {
  text.split('\n').forEach((line, i) => {
    if ((line.match(/`/g) || []).length % 2) throw new Error(`${file}:${i + 1}: a template literal spans lines`);
  });
  return text.split('\n').filter((line) => !/^\s*(\/\/.*)?$/.test(line)).map((line) => line.trim()).join('\n');
}
const css = readFileSync(join(here, 'src', 'styles.css'), 'utf8')
  .replace(/\/\*[\s\S]*?\*\//g, '').replace(/\s*\n\s*/g, '\n').trim();
const body = [
  `const VERSION = ${JSON.stringify(version)};`,
  `const CSS_TEXT = ${JSON.stringify(css)};`,
  ...SOURCES.map((f) => strip(readFileSync(join(here, 'src', f), 'utf8'), f)),
].join('\n').replace('@PAYWASM_WASM_INTEGRITY@', wasmIntegrity);
if (/\beval\s*\(|new Function|innerHTML|insertAdjacentHTML|document\.write/.test(body)) {
  throw new Error('web/src uses eval, new Function or HTML injection: not allowed (CSP, XSS)');
}

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
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'paywasm.js'), classic);
writeFileSync(join(out, 'paywasm.mjs'), module);
