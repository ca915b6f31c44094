// paywasm benchmarks: the widget against what a merchant would otherwise use, in one Chromium run.
//   node bench/run.mjs [--quick] [--dist DIR] [--build DIR] [--out DIR] [--gate all|size|none]
// (scripts/bench.sh builds dist/ first and runs this; `make bench` runs scripts/bench.sh.)
//
// Figures: transfer size (gzip -9) with a breakdown of the wasm; RSA encryption of the exchange
// payload (~770 B) and of a 3 KB cart against WebCrypto, node-forge and jsencrypt; QR (matrix + SVG
// string) against qrcode-generator; cold start (script tag -> paywasm-ready), plain and on a slow
// phone (CPU 4x slower, Slow 4G: bench/throttle.mjs); main-thread long tasks
// from mount through one exchange payment; WASM linear memory after 1,000 encryptions + 1,000 QRs.
// Writes <out>/latest.json, latest.md and chart.svg. Exit status: 0, or 1 when a gated budget is
// missed (--gate: all by default, size in --quick mode), or 2 when the run itself failed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';

import { makeInputs } from './inputs.mjs';
import { startServerProcess, API_ORIGIN } from './server.mjs';
import { transferSizes, wasmBreakdown, gzipTool } from './sizes.mjs';
import { summary } from './stats.mjs';
import { buildFigures } from './figures.mjs';
import { profileCalls, readSymbolNames } from './profile.mjs';
import { renderMarkdown, renderChart } from './report.mjs';
import { throttledColdLoads, throttleFigures } from './throttle.mjs';
import { coldParts, floorParts } from './cold.mjs';
import { tempDir } from '../tests/support/node.mjs';

const require = createRequire(import.meta.url);
const here = path.dirname(new URL(import.meta.url).pathname);
const root = path.resolve(here, '..');

// ---- options ---------------------------------------------------------------------------------------

const argv = process.argv.slice(2);
const flag = (name) => argv.includes(`--${name}`);
const option = (name, fallback) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] ? argv[i + 1] : fallback;
};
const quick = flag('quick') || process.env.BENCH_QUICK === '1';
const distDir = path.resolve(option('dist', process.env.PAYWASM_DIST_DIR || path.join(root, 'dist')));
const buildDir = path.resolve(option('build', process.env.PAYWASM_WASM_BUILD_DIR || path.join(root, 'build', 'wasm')));
const outDir = path.resolve(option('out', path.join(here, 'results')));
const gate = option('gate', process.env.BENCH_GATE || (quick ? 'size' : 'all'));
const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';

// Rounds are interleaved (every implementation once per round, in a rotating order); the first
// `warmup` rounds are thrown away. A batch repeats one call until it lasts about batchMs.
const CONFIG = quick
  ? { mode: 'quick', warmup: 2, rounds: 8, batchMs: 8, coldLoads: 6, mainThreadRuns: 2, memoryOps: 1000 }
  : { mode: 'full', warmup: 5, rounds: 30, batchMs: 25, coldLoads: 21, mainThreadRuns: 5, memoryOps: 1000 };

const log = (...a) => console.log('bench:', ...a);
const fail = (message) => {
  console.error(`bench: error: ${message}`);
  process.exit(2);
};

for (const f of ['paywasm.js', 'paywasm.wasm', 'paywasm-nosimd.wasm', 'integrity.json']) {
  if (!fs.existsSync(path.join(distDir, f))) fail(`${path.join(distDir, f)} is missing: run scripts/dist.sh (make dist) first`);
}
if (!['all', 'size', 'none'].includes(gate)) fail(`--gate must be all, size or none (not ${gate})`);
if (!fs.existsSync(chromiumPath)) fail(`${chromiumPath} is missing (apt-get install chromium)`);
let chromium;
try {
  ({ chromium } = require('playwright-core'));
} catch (e) {
  fail('playwright-core is not installed (npm ci)');
}

// The alternatives, as pinned in package.json (files named directly: their "exports" hide them).
const modulePath = (...p) => path.join(root, 'node_modules', ...p);
const pkg = (name) => JSON.parse(fs.readFileSync(modulePath(name, 'package.json'), 'utf8'));
const VENDOR = {
  'forge.min.js': modulePath('node-forge', 'dist', 'forge.min.js'),
  'jsencrypt.min.js': modulePath('jsencrypt', 'bin', 'jsencrypt.min.js'),
  'qrcode.js': modulePath('qrcode-generator', 'dist', 'qrcode.js'),
};
for (const [file, p] of Object.entries(VENDOR)) if (!fs.existsSync(p)) fail(`${p} is missing (npm ci): needed for ${file}`);
const ALTERNATIVES = {
  'node-forge': pkg('node-forge').version,
  jsencrypt: pkg('jsencrypt').version,
  'qrcode-generator': pkg('qrcode-generator').version,
};

// ---- checks of the implementations' outputs (outside the timing) --------------------------------------

const OPENSSL_PADDING = {
  'oaep-sha1': ['-pkeyopt', 'rsa_padding_mode:oaep', '-pkeyopt', 'rsa_oaep_md:sha1', '-pkeyopt', 'rsa_mgf1_md:sha1'],
  'oaep-sha256': ['-pkeyopt', 'rsa_padding_mode:oaep', '-pkeyopt', 'rsa_oaep_md:sha256', '-pkeyopt', 'rsa_mgf1_md:sha256'],
  pkcs1v15: ['-pkeyopt', 'rsa_padding_mode:pkcs1'],
};

// Decrypts base64 of concatenated 256-byte blocks with OpenSSL (independent of every implementation).
function decrypt(b64, padding, keyFile, work) {
  const bytes = Buffer.from(b64, 'base64');
  if (!bytes.length || bytes.length % 256) throw new Error(`ciphertext of ${bytes.length} bytes is not whole 2048-bit blocks`);
  const parts = [];
  for (let i = 0; i < bytes.length; i += 256) {
    const file = path.join(work, 'block.bin');
    fs.writeFileSync(file, bytes.subarray(i, i + 256));
    parts.push(execFileSync('openssl', ['pkeyutl', '-decrypt', '-inkey', keyFile, ...OPENSSL_PADDING[padding], '-in', file]));
  }
  return { text: Buffer.concat(parts).toString('utf8'), blocks: parts.length };
}

function checkOutputs(outputs, inputs) {
  const work = tempDir('paywasm-bench-');
  const keyFile = path.join(work, 'private.pem');
  fs.writeFileSync(keyFile, inputs.privateKeyPem, { mode: 0o600 });
  const checks = [];
  try {
    for (const [name, value] of Object.entries(outputs)) {
      const [impl, padding, payloadName] = name.split('/');
      if (padding === 'qr-svg') {
        const ok = typeof value === 'string' && /^<svg[\s>]/.test(value.replace(/^<\?xml[^>]*>\s*/, '')) && /<\/svg>\s*$/.test(value);
        checks.push({ name, ok, detail: ok ? `${value.length} characters of SVG` : `not an SVG string: ${String(value).slice(0, 80)}` });
        continue;
      }
      if (padding === 'worst-key') {
        // No private key exists for it: one 1024-byte block per piece (982 bytes for OAEP-SHA-1).
        const bytes = Buffer.from(String(value), 'base64');
        const blocks = Math.ceil(Buffer.byteLength(inputs.payloads[payloadName]) / 982);
        const ok = bytes.length === blocks * 1024;
        checks.push({ name, ok, detail: `${bytes.length} bytes = ${blocks} block(s) of 1024` });
        continue;
      }
      if (!OPENSSL_PADDING[padding]) continue;
      try {
        const { text, blocks } = decrypt(value, padding, keyFile, work);
        const ok = text === inputs.payloads[payloadName];
        checks.push({ name, ok, detail: `${blocks} blocks; ${ok ? 'decrypts to the payload' : 'decrypts to OTHER text'}` });
      } catch (e) {
        checks.push({ name, ok: false, detail: `does not decrypt: ${String(e.message).split('\n')[0]}` });
      }
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  const m = outputs.matrix;
  checks.push({
    name: 'qr matrix', ok: m.ours.size === m.theirs.size,
    detail: `ours ${m.ours.size}x${m.ours.size}, qrcode-generator ${m.theirs.size}x${m.theirs.size}; `
      + `${m.ours.modules === m.theirs.modules ? 'identical modules' : 'different modules (another mask or encoding choice)'}`,
  });
  return checks;
}

// ---- browser runs -----------------------------------------------------------------------------------------

const LAUNCH_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--no-first-run'];

// Encryption and QR, interleaved batches. Each library runs in its own browser context (its own
// renderer process, so its own JS heap): one library's garbage and heap growth cannot slow down
// another's batches, while the interleaving still gives every library the same machine load.
// Returns { samples: name -> [ms per call], batch, checks, info, errors, csp }.
const family = (name) => name.split('/')[0].replace('+import', '');

async function microBench(browser, origin, inputs) {
  const errors = [];
  const open = async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`${origin}/pages/micro.html?isolated`);
    const info = await page.evaluate(() => window.bench.init());
    return { context, page, info };
  };
  const first = await open();
  const { info } = first;
  const outputs = await first.page.evaluate(() => window.bench.outputs());
  const checks = checkOutputs(outputs, inputs);
  await first.context.close();
  const names = info.names;
  const pages = {};
  for (const f of [...new Set(names.map(family))]) pages[f] = await open();
  const pageOf = (name) => pages[family(name)].page;

  // Batch sizes from a few timed calls after a first (compiling) one.
  const batch = {};
  for (const name of names) {
    await pageOf(name).evaluate((n) => window.bench.time(n, 1), name);
    const ms = await pageOf(name).evaluate((n) => window.bench.time(n, 3), name);
    batch[name] = Math.max(1, Math.min(5000, Math.ceil(CONFIG.batchMs / Math.max(ms, 0.001))));
  }
  const samples = Object.fromEntries(names.map((n) => [n, []]));
  for (let round = 0; round < CONFIG.warmup + CONFIG.rounds; round++) {
    const order = names.map((_, i) => names[(i + round) % names.length]);
    for (const name of order) {
      const ms = await pageOf(name).evaluate(([n, k]) => window.bench.time(n, k), [name, batch[name]]);
      if (round >= CONFIG.warmup) samples[name].push(ms);
    }
  }
  const csp = [];
  for (const p of Object.values(pages)) {
    csp.push(...await p.page.evaluate(() => window.__benchCspViolations));
    await p.context.close();
  }
  return { samples, batch, checks, info, errors, csp };
}

// The no-SIMD module against the SIMD one: micro.html twice, one page as a browser without SIMD128
// (WebAssembly.validate refuses SIMD opcodes, as in tests/browser/nosimd.test.mjs, so the loader
// takes paywasm-nosimd.wasm), the same encryptions interleaved in rounds. Checks that each page ran
// its module and that the no-SIMD ciphertext decrypts. Returns { samples, checks }: samples
// '<simd|nosimd>/<payload>' -> [ms per call].
async function noSimdRun(browser, origin, inputs) {
  const open = async (withoutSimd) => {
    const context = await browser.newContext();
    const page = await context.newPage();
    if (withoutSimd) {
      await page.addInitScript(() => {
        const validate = WebAssembly.validate;
        WebAssembly.validate = (bytes) => (new Uint8Array(bytes).includes(0xfd) ? false : validate(bytes));
      });
    }
    await page.goto(`${origin}/pages/micro.html?isolated`);
    await page.evaluate(() => window.bench.init());
    const wasm = await page.evaluate(() => performance.getEntriesByType('resource')
      .map((e) => new URL(e.name).pathname).filter((p) => p.endsWith('.wasm')));
    return { context, page, wasm };
  };
  const pages = { simd: await open(false), nosimd: await open(true) };
  const checks = Object.entries({ simd: '/dist/paywasm.wasm', nosimd: '/dist/paywasm-nosimd.wasm' }).map(([k, file]) => ({
    name: `${k} page ran ${file.slice(6)}`, ok: pages[k].wasm.join() === file, detail: `fetched ${pages[k].wasm.join(', ') || 'no wasm'}`,
  }));
  const outputs = await pages.nosimd.page.evaluate(() => window.bench.outputs());
  const work = tempDir('paywasm-bench-');
  try {
    const keyFile = path.join(work, 'private.pem');
    fs.writeFileSync(keyFile, inputs.privateKeyPem, { mode: 0o600 });
    const { text, blocks } = decrypt(outputs['ours/oaep-sha1/sample'], 'oaep-sha1', keyFile, work);
    checks.push({ name: 'nosimd/oaep-sha1/sample', ok: text === inputs.payloads.sample, detail: `${blocks} blocks; ${text === inputs.payloads.sample ? 'decrypts to the payload' : 'decrypts to OTHER text'}` });
  } catch (e) {
    checks.push({ name: 'nosimd/oaep-sha1/sample', ok: false, detail: `does not decrypt: ${String(e.message).split('\n')[0]}` });
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  const names = ['simd', 'nosimd'].flatMap((k) => ['sample', 'cart3k'].map((p) => `${k}/${p}`));
  const timed = (name, n) => {
    const [k, p] = name.split('/');
    return pages[k].page.evaluate(([impl, count]) => window.bench.time(impl, count), [`ours/oaep-sha1/${p}`, n]);
  };
  const batch = {};
  for (const name of names) {
    await timed(name, 1);
    batch[name] = Math.max(1, Math.min(5000, Math.ceil(CONFIG.batchMs / Math.max(await timed(name, 3), 0.001))));
  }
  const samples = Object.fromEntries(names.map((n) => [n, []]));
  for (let round = 0; round < CONFIG.warmup + CONFIG.rounds; round++) {
    for (const name of names.map((_, i) => names[(i + round) % names.length])) {
      const ms = await timed(name, batch[name]);
      if (round >= CONFIG.warmup) samples[name].push(ms);
    }
  }
  for (const p of Object.values(pages)) await p.context.close();
  return { samples, summary: Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, summary(v)])), checks };
}

async function memoryRun(browser, origin) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${origin}/pages/micro.html`);
  await page.evaluate(() => window.bench.init());
  const checkpoints = [1, 10, 100, 250, 500, 750, 1000].filter((n) => n <= CONFIG.memoryOps);
  const at = await page.evaluate(([total, points]) => window.bench.memory(total, points), [CONFIG.memoryOps, checkpoints]);
  await context.close();
  return at;
}

// Cold start: a new browser context per load (its own renderer process: no compiled-module reuse),
// the HTTP cache off (CDP), the wasm compiled from the stream. The first load is a warm-up.
// ready.html is the plain snippet (one script tag: the budgets, script tag -> paywasm-usable and ->
// paywasm-ready); ready-preload.html adds the
// documented <link rel=preload> for the wasm. Loads alternate between the two pages.
async function coldLoads(browser, origin) {
  const runs = [];
  const preloaded = [];
  const floor = [];
  const loadDuring = [os.loadavg()[0]];
  // Rounds of three cold loads, their order rotating: the budget's page, the same with the wasm
  // preloaded, and the floor (pages/floor.html: the same paywasm.js run, its module fetched, the
  // form in plain HTML): each round's figures share the machine's state.
  const kinds = ['ready', 'preload', 'floor'];
  for (let n = 0; n < 3 * (CONFIG.coldLoads + 1); n++) {
    const i = Math.floor(n / 3);
    const kind = kinds[(n + i) % 3];
    const context = await browser.newContext();
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`${origin}/pages/${{ ready: 'ready.html', preload: 'ready-preload.html', floor: 'floor.html' }[kind]}`);
    await page.waitForFunction(() => window.__benchReadyAt !== undefined, null, { timeout: 15000 });
    const t = await page.evaluate(kind === 'floor' ? floorParts : coldParts);
    if (errors.length) throw new Error(`cold load: ${errors.join('; ')}`);
    if (i > 0) ({ ready: runs, preload: preloaded, floor }[kind]).push(t);
    await context.close();
    if (n % 3 === 2) loadDuring.push(os.loadavg()[0]);
  }
  return { runs, preloaded, floor, load: { start: loadDuring[0], max: Math.max(...loadDuring) } };
}

const TRACE_CATEGORIES = ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'toplevel', 'blink.user_timing'];

// Longest main-thread task of the renderer between the two marks, from a Chromium trace, with the
// largest events inside it (what the task spent its time on).
function longestTraceTask(trace, fromMark, toMark) {
  const events = JSON.parse(trace.toString('utf8')).traceEvents || [];
  const mark = (name) => events.find((e) => e.name === name && /user_timing/.test(e.cat || ''));
  const from = mark(fromMark);
  const to = mark(toMark);
  if (!from || !to) return null;
  const isTask = (e) => e.name === 'RunTask' || e.name === 'ThreadControllerImpl::RunTask';
  const onMain = events.filter((e) => e.ph === 'X' && e.pid === from.pid && e.tid === from.tid);
  let longest = null;
  let count = 0;
  for (const e of onMain) {
    if (!isTask(e) || e.ts + (e.dur || 0) < from.ts || e.ts > to.ts) continue;
    count++;
    if (!longest || (e.dur || 0) > longest.dur) longest = e;
  }
  if (!longest) return null;
  const detail = (e) => {
    const d = (e.args && (e.args.data || e.args.beginData)) || {};
    const what = d.functionName || d.url || '';
    return what ? `${e.name} ${String(what).split('/').pop().slice(0, 60)}` : e.name;
  };
  const inside = onMain.filter((e) => !isTask(e) && e.ts >= longest.ts && e.ts + (e.dur || 0) <= longest.ts + longest.dur && (e.dur || 0) >= 1000)
    .sort((a, b) => b.dur - a.dur).slice(0, 8).map((e) => ({ name: detail(e), ms: Math.round(e.dur / 100) / 10 }));
  return { longestMs: longest.dur / 1000, tasks: count, atMs: (longest.ts - from.ts) / 1000, inside };
}

// Main thread: mount() on a cold page, then one exchange payment against a mocked API.
async function mainThreadRuns(browser, origin, inputs) {
  const order = JSON.parse(inputs.payloads.sample);
  const runs = [];
  for (let i = 0; i < CONFIG.mainThreadRuns; i++) {
    const context = await browser.newContext();
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    await cdp.send('Performance.enable');
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    const apiCalls = [];
    await page.route(`${API_ORIGIN}/**`, async (route) => {
      const req = route.request();
      const url = new URL(req.url());
      apiCalls.push(`${req.method()} ${url.pathname}`);
      const json = (body) => route.fulfill({
        status: 200, headers: { 'Access-Control-Allow-Origin': '*', 'Content-Type': 'application/json' }, body: JSON.stringify(body),
      });
      if (req.method() === 'OPTIONS') {
        return route.fulfill({ status: 204, headers: { 'Access-Control-Allow-Origin': '*', 'Access-Control-Allow-Headers': '*', 'Access-Control-Allow-Methods': 'GET, POST' } });
      }
      if (url.pathname === '/users/me') return json({ ok: true, result: { profile: { firstName: 'Ada' } } });
      if (url.pathname === '/exchanges/payments/kraken' && req.method() === 'POST') {
        return json({
          id: '0b6c2a8e-6f0e-4a43-9b1a-6d1f3c1e2a10', status: 'pending', nativeAmount: order.nativeAmount,
          nativeCurrency: 'USD', amount: '0.00271834', currency: 'BTC', receivedAmount: '0',
          meta: { offerId: order.offerId, receiverAddress: 'bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh' }, errorMessage: null,
        });
      }
      return route.fulfill({ status: 404, headers: { 'Access-Control-Allow-Origin': '*' }, body: '{}' });
    });
    let tracing = true;
    try {
      await browser.startTracing(page, { categories: TRACE_CATEGORIES });
    } catch (e) {
      tracing = false;
    }
    await page.goto(`${origin}/pages/checkout.html`);
    const before = Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
    await page.evaluate((api) => window.benchMount(api), API_ORIGIN);
    await page.locator('paywasm-checkout button.pay').click();
    await page.waitForFunction(() => window.__benchStatus !== undefined || window.__benchError !== undefined, null, { timeout: 15000 });
    const after = Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
    const trace = tracing ? await browser.stopTracing() : null;
    // BENCH_TRACE_DIR=dir keeps each run's Chromium trace (open it in DevTools' Performance panel).
    if (trace && process.env.BENCH_TRACE_DIR) {
      fs.mkdirSync(process.env.BENCH_TRACE_DIR, { recursive: true });
      fs.writeFileSync(path.join(process.env.BENCH_TRACE_DIR, `payment-run-${i + 1}.json`), trace);
    }
    const r = await page.evaluate(() => {
      const mark = (n) => performance.getEntriesByName(n)[0].startTime;
      const from = mark('bench-mount');
      const to = mark('bench-status');
      return {
        status: window.__benchStatus || null,
        error: window.__benchError || null,
        mountToReady: mark('bench-ready') - from,
        mountToStatus: to - from,
        longTasks: window.__benchLongTasks === null ? null
          : window.__benchLongTasks.filter((t) => t.start + t.duration >= from && t.start <= to),
        csp: window.__benchCspViolations,
      };
    });
    if (errors.length) r.error = `${r.error || ''} ${errors.join('; ')}`.trim();
    r.apiCalls = apiCalls;
    r.scriptMs = (after.ScriptDuration - before.ScriptDuration) * 1000;
    r.taskMs = (after.TaskDuration - before.TaskDuration) * 1000;
    r.trace = trace ? longestTraceTask(trace, 'bench-mount', 'bench-status') : null;
    runs.push(r);
    await context.close();
  }
  return runs;
}

// ---- main ---------------------------------------------------------------------------------------------

const summarize = (runs) => Object.fromEntries(Object.keys(runs[0]).map((k) => [k, summary(runs.map((r) => r[k]))]));

function gitDescribe() {
  try {
    const commit = execFileSync('git', ['-C', root, 'rev-parse', '--short', 'HEAD'], { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
    const dirty = execFileSync('git', ['-C', root, 'status', '--porcelain', '--untracked-files=no'], { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
    return dirty ? `${commit} (with uncommitted changes)` : commit;
  } catch (e) {
    return 'unknown';
  }
}

async function main() {
  const started = Date.now();
  const loadAtStart = os.loadavg()[0];
  log(`${CONFIG.mode} run: dist ${distDir}`);
  if (loadAtStart > os.cpus().length) log(`warning: load average ${loadAtStart.toFixed(1)} on ${os.cpus().length} CPUs: timings will be inflated and noisy`);
  const inputs = makeInputs();

  const sizes = transferSizes({
    'paywasm.js': path.join(distDir, 'paywasm.js'),
    'paywasm.wasm': path.join(distDir, 'paywasm.wasm'),
    'paywasm-nosimd.wasm': path.join(distDir, 'paywasm-nosimd.wasm'),
    // The language files: a shopper who does not read English downloads one of them as well.
    ...Object.fromEntries(fs.readdirSync(distDir).filter((f) => /^paywasm-[a-z]+\.json$/.test(f)).map((f) => [f, path.join(distDir, f)])),
    'node-forge': VENDOR['forge.min.js'],
    jsencrypt: VENDOR['jsencrypt.min.js'],
    'qrcode-generator': VENDOR['qrcode.js'],
  });
  const breakdown = wasmBreakdown(path.join(distDir, 'paywasm.wasm'), {
    map: path.join(buildDir, 'widget', 'paywasm.wasm.symbols'),
    wasm: path.join(buildDir, 'widget', 'paywasm.wasm'),
  });
  log(`sizes: paywasm.js ${sizes['paywasm.js'].gzip} + paywasm.wasm ${sizes['paywasm.wasm'].gzip} bytes gzip -9`);

  const server = await startServerProcess({
    distDir, vendor: VENDOR,
    inputs: { publicKeyPem: inputs.publicKeyPem, worstKeyPem: inputs.worstKeyPem, payloads: inputs.payloads, qrText: inputs.qrText },
  });
  const browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: LAUNCH_ARGS });
  let micro;
  let nosimd;
  let memory;
  let cold;
  let coldThrottled;
  let mainThread;
  let profile;
  let requests = [];
  try {
    log(`encryption and QR: ${CONFIG.rounds} rounds after ${CONFIG.warmup} warm-up rounds`);
    micro = await microBench(browser, server.origin, inputs);
    for (const c of micro.checks) if (!c.ok) log(`CHECK FAILED ${c.name}: ${c.detail}`);
    log('no-SIMD module: encryption side by side with the SIMD module');
    nosimd = await noSimdRun(browser, server.origin, inputs);
    for (const c of nosimd.checks) if (!c.ok) log(`CHECK FAILED ${c.name}: ${c.detail}`);
    micro.checks.push(...nosimd.checks);
    log(`memory: ${CONFIG.memoryOps} encryptions + ${CONFIG.memoryOps} QR renders`);
    memory = await memoryRun(browser, server.origin);
    log(`cold start: ${CONFIG.coldLoads} loads each of ready.html, ready-preload.html and the floor, after a warm-up round`);
    cold = await coldLoads(browser, server.origin);
    log(`cold start on a slow phone (CPU 4x slower, Slow 4G): ${quick ? 'the script-tag page only' : 'three pages'}, throttled and not`);
    coldThrottled = await throttledColdLoads(browser, server.origin, quick);
    log(`main thread: ${CONFIG.mainThreadRuns} runs of mount + one exchange payment`);
    mainThread = await mainThreadRuns(browser, server.origin, inputs);
    log('profile: where the time of our calls goes');
    profile = await profileCalls(browser, server.origin, readSymbolNames(path.join(buildDir, 'widget', 'paywasm.wasm.symbols')),
      ['ours/oaep-sha1/sample', 'ours/qr-svg'], quick ? 600 : 1500);
    requests = await server.requests();
  } finally {
    await browser.close();
    await server.close();
  }
  const outsideRequests = requests.filter((r) => !/ \/(dist|gz|vendor|pages)\/|\/inputs\.json$|\/favicon\.ico$/.test(r));

  const results = {
    meta: {
      date: new Date().toISOString(),
      mode: CONFIG.mode,
      config: CONFIG,
      durationSeconds: null,
      commit: gitDescribe(),
      machine: {
        cpus: os.cpus().length, cpuModel: (os.cpus()[0] || {}).model || 'unknown',
        loadAtStart: Math.round(loadAtStart * 100) / 100, loadAverage: os.loadavg().map((x) => Math.round(x * 100) / 100),
      },
      node: process.version,
      browser: micro.info.userAgent.replace(/.*(Chrome\/[0-9.]+).*/, '$1'),
      crossOriginIsolated: micro.info.crossOriginIsolated,
      paywasmVersion: micro.info.paywasmVersion,
      distSha256: crypto.createHash('sha256').update(fs.readFileSync(path.join(distDir, 'paywasm.wasm'))).digest('hex'),
      alternatives: ALTERNATIVES,
      gzip: gzipTool(),
      inputs: { key: 'RSA 2048-bit, e = 65537 (fresh each run)', payloadBytes: inputs.payloadBytes, qrText: inputs.qrText, qrTextLength: inputs.qrText.length },
    },
    sizes,
    breakdown,
    micro: {
      batch: micro.batch,
      samples: micro.samples,
      summary: Object.fromEntries(Object.entries(micro.samples).map(([k, v]) => [k, summary(v)])),
      checks: micro.checks,
      pageErrors: micro.errors,
      cspViolations: micro.csp,
    },
    nosimd,
    memory,
    cold: {
      runs: cold.runs, summary: summarize(cold.runs),
      preload: { runs: cold.preloaded, summary: summarize(cold.preloaded) },
      floor: { runs: cold.floor, summary: { usable: summary(cold.floor.map((f) => f.usable)), ready: summary(cold.floor.map((f) => f.ready)) } },
      load: cold.load,
    },
    coldThrottled,
    mainThread,
    profile,
    outsideRequests,
  };
  results.figures = buildFigures(results);
  // The slow-phone rows go right after the plain cold start's.
  results.figures.splice(results.figures.findIndex((f) => f.id === 'ready') + 1, 0, ...throttleFigures(results));
  results.meta.durationSeconds = Math.round((Date.now() - started) / 100) / 10;

  fs.mkdirSync(outDir, { recursive: true });
  fs.writeFileSync(path.join(outDir, 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);
  fs.writeFileSync(path.join(outDir, 'latest.md'), renderMarkdown(results));
  fs.writeFileSync(path.join(outDir, 'chart.svg'), renderChart(results));

  console.log('');
  for (const f of results.figures) {
    const verdict = f.budget ? (f.budget.pass ? 'pass' : 'MISS') : 'info';
    console.log(`  ${verdict.padEnd(4)}  ${f.figure}: ${f.oursText}${f.alternative ? ` vs ${f.alternative.name} ${f.alternative.text} (${f.ratioText})` : ''}${f.budget ? ` [budget ${f.budget.text}${f.budget.pass ? '' : `; ${f.budget.by}`}]` : ''}`);
  }
  console.log('');
  log(`wrote ${path.relative(process.cwd(), outDir) || '.'}/latest.json, latest.md, chart.svg in ${results.meta.durationSeconds} s`);

  const failedChecks = micro.checks.filter((c) => !c.ok);
  const broken = mainThread.filter((r) => r.error || r.status === null);
  if (failedChecks.length || broken.length || micro.errors.length) {
    fail(`the run is not valid: ${failedChecks.length} output checks failed, ${broken.length} payment runs failed, ${micro.errors.length} page errors`);
  }
  const gated = results.figures.filter((f) => f.budget && !f.budget.pass && (gate === 'all' || (gate === 'size' && f.group === 'size')));
  if (gated.length) {
    log(`${gated.length} budget(s) missed (gate: ${gate}): ${gated.map((f) => f.id).join(', ')}`);
    process.exit(1);
  }
  const missed = results.figures.filter((f) => f.budget && !f.budget.pass);
  if (missed.length) log(`${missed.length} budget(s) missed, reported only (gate: ${gate}): ${missed.map((f) => f.id).join(', ')}`);
}

main().catch((e) => fail(e && e.stack ? e.stack : String(e)));
