// The widget's figures in every browser engine of the tests (tests/browser/engines: Chromium,
// Firefox ESR, WebKitGTK, WPE WebKit 2.38), one engine after the other in one run, each as ratios
// measured in that engine:
//   cold start     fresh page (new context or WebDriver session, nothing cached) -> paywasm-usable
//                  (the budget's measure) and -> paywasm-ready, from the script's request and from
//                  navigation, with the parts (script fetch, the wait for the wasm request, ...); median
//   encryption     the exchange payload (~770 B, four OAEP-SHA-1 blocks): ours vs that engine's WebCrypto
//   QR             the 75-character payment URI to an SVG string: ours vs qrcode-generator
//   modules        the same encryption with paywasm.wasm (SIMD128) and paywasm-nosimd.wasm, on two
//                  pages side by side (micro.html, micro-nosimd.html): the SIMD module's gain
// Rounds are interleaved (every measurement once per round, rotating order; warm-up rounds thrown
// away); each batch repeats one call for about batchMs inside the page (micro.js), so the driver's
// round trip is never timed. Every engine's ciphertexts are decrypted by OpenSSL.
//   node bench/engines.mjs [--quick] [--dist DIR] [--out DIR] [--engines chromium,firefox,webkit,wpe]
// Writes <out>/engines.json and engines.md; run by scripts/bench.sh (make bench).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';

import { makeInputs } from './inputs.mjs';
import { startServerProcess } from './server.mjs';
import { summary } from './stats.mjs';
import { coldLoad, floorLoad } from './cold.mjs';
import { USABLE_FLOOR_RATIO } from './figures.mjs';
import { ENGINES, launchEngine } from '../tests/browser/engines/index.mjs';
import { tempDir } from '../tests/support/node.mjs';

const here = path.dirname(new URL(import.meta.url).pathname);
const root = path.resolve(here, '..');
const argv = process.argv.slice(2);
const option = (name, fallback) => (argv.includes(`--${name}`) ? argv[argv.indexOf(`--${name}`) + 1] : fallback);
const quick = argv.includes('--quick') || process.env.BENCH_QUICK === '1';
const distDir = path.resolve(option('dist', process.env.PAYWASM_DIST_DIR || path.join(root, 'dist')));
const outDir = path.resolve(option('out', path.join(here, 'results')));
const engines = option('engines', ENGINES.join(',')).split(',');
const CONFIG = quick ? { warmup: 1, rounds: 5, batchMs: 10, coldLoads: 3 } : { warmup: 3, rounds: 15, batchMs: 25, coldLoads: 7 };
const log = (...a) => console.log('bench engines:', ...a);
// The cold-start budget (script tag -> paywasm-usable), per engine: judged as a ratio to the floor
// measured in the same run and engine, interleaved with it (pages/floor.html: the same paywasm.js
// fetched and run, the same form drawn in plain HTML), so that a busy machine moves both; the
// absolute figure (the old 45 ms) is reported beside it with the load.
const USABLE_BUDGET_RATIO = USABLE_FLOOR_RATIO;
const USABLE_BUDGET_MS = 45;

const modulePath = (...p) => path.join(root, 'node_modules', ...p);
const VENDOR = {
  'forge.min.js': modulePath('node-forge', 'dist', 'forge.min.js'),
  'jsencrypt.min.js': modulePath('jsencrypt', 'bin', 'jsencrypt.min.js'),
  'qrcode.js': modulePath('qrcode-generator', 'dist', 'qrcode.js'),
};

// OpenSSL's reading of a base64 OAEP-SHA-1 ciphertext of 2048-bit blocks.
function decrypt(b64, keyFile, work) {
  const bytes = Buffer.from(b64, 'base64');
  const parts = [];
  for (let i = 0; i < bytes.length; i += 256) {
    const file = path.join(work, 'block.bin');
    fs.writeFileSync(file, bytes.subarray(i, i + 256));
    parts.push(execFileSync('openssl', ['pkeyutl', '-decrypt', '-inkey', keyFile, '-pkeyopt', 'rsa_padding_mode:oaep',
      '-pkeyopt', 'rsa_oaep_md:sha1', '-pkeyopt', 'rsa_mgf1_md:sha1', '-in', file]));
  }
  return Buffer.concat(parts).toString('utf8');
}

// A page on `file` with window.bench ready; `module`: the wasm file it fetched.
async function benchPage(engine, origin, file) {
  const page = await engine.newPage();
  await page.goto(`${origin}/pages/${file}?isolated`);
  await page.run(() => window.bench.init());
  const module = await page.run(() => performance.getEntriesByType('resource')
    .map((e) => new URL(e.name).pathname).filter((p) => p.endsWith('.wasm')).join(', '));
  return { page, module };
}

async function measureEngine(name, origin, inputs, work) {
  const engine = await launchEngine(name);
  const keyFile = path.join(work, 'private.pem');
  try {
    log(`${engine.name} ${engine.version}`);
    const checks = [];
    // Cold start: a fresh page per load, the widget's and the floor's interleaved (their order
    // alternating); the first pair is a warm-up (the engine's own first start).
    const cold = [];
    const floor = [];
    const loadDuring = [];
    for (let i = 0; i <= CONFIG.coldLoads; i++) {
      const pair = i % 2 ? [['floor', floorLoad], ['widget', coldLoad]] : [['widget', coldLoad], ['floor', floorLoad]];
      for (const [which, load] of pair) {
        const t = await load(engine, origin);
        if (i > 0) (which === 'widget' ? cold : floor).push(t);
      }
      loadDuring.push(os.loadavg()[0]);
    }
    // Encryption and QR, and the two modules, interleaved on three pages.
    const main = await benchPage(engine, origin, 'micro.html');
    const scalar = await benchPage(engine, origin, 'micro-nosimd.html');
    const simd = main.module.endsWith('/paywasm.wasm');
    checks.push({ name: 'module of micro.html', ok: /paywasm(-nosimd)?\.wasm$/.test(main.module), detail: main.module });
    checks.push({ name: 'module of micro-nosimd.html', ok: scalar.module.endsWith('/paywasm-nosimd.wasm'), detail: scalar.module });
    for (const [label, p] of [['ours', main], ['webcrypto', main], ['ours nosimd', scalar]]) {
      const impl = label === 'webcrypto' ? 'webcrypto/oaep-sha1/sample' : 'ours/oaep-sha1/sample';
      const out = await p.page.run(async (n) => (await window.bench.outputs())[n], impl);
      const ok = decrypt(out, keyFile, work) === inputs.payloads.sample;
      checks.push({ name: `${label}: OpenSSL decrypts to the payload`, ok, detail: `${Buffer.from(out, 'base64').length / 256} blocks` });
    }
    const runs = {
      'ours/encrypt': [main, 'ours/oaep-sha1/sample'],
      'webcrypto/encrypt': [main, 'webcrypto/oaep-sha1/sample'],
      'ours/qr': [main, 'ours/qr-svg'],
      'qrcode-generator/qr': [main, 'qrcode-generator/qr-svg'],
      'nosimd/encrypt': [scalar, 'ours/oaep-sha1/sample'],
    };
    const names = Object.keys(runs);
    const time = ([p, impl], n) => p.page.run(async ([i, k]) => window.bench.time(i, k), [impl, n]);
    const batch = {};
    for (const n of names) {
      await time(runs[n], 1);
      batch[n] = Math.max(1, Math.min(5000, Math.ceil(CONFIG.batchMs / Math.max(await time(runs[n], 3), 0.001))));
    }
    const samples = Object.fromEntries(names.map((n) => [n, []]));
    for (let round = 0; round < CONFIG.warmup + CONFIG.rounds; round++) {
      for (const n of names.map((_, i) => names[(i + round) % names.length])) {
        const ms = await time(runs[n], batch[n]);
        if (round >= CONFIG.warmup) samples[n].push(ms);
      }
    }
    await main.page.close();
    await scalar.page.close();
    const med = Object.fromEntries(names.map((n) => [n, summary(samples[n]).median]));
    return {
      engine: engine.name, version: engine.version, simd, module: main.module,
      cold: Object.fromEntries(Object.keys(cold[0]).map((k) => [k, summary(cold.map((c) => c[k]))])),
      floor: { usable: summary(floor.map((f) => f.usable)), scriptFetch: summary(floor.map((f) => f.scriptFetch)) },
      // The machine's 1-minute load average while the cold loads ran (max).
      loadDuringCold: Math.round(Math.max(...loadDuring) * 100) / 100,
      median: med,
      ratios: {
        encryptVsWebCrypto: med['ours/encrypt'] / med['webcrypto/encrypt'],
        qrVsQrcodeGenerator: med['ours/qr'] / med['qrcode-generator/qr'],
        // > 1: the SIMD module is faster (only where it runs: with SIMD128)
        simdGain: simd ? med['nosimd/encrypt'] / med['ours/encrypt'] : null,
        // The budget's measure: the widget's usable over the floor's (medians).
        usableVsFloor: summary(cold.map((c) => c.usable)).median / summary(floor.map((f) => f.usable)).median,
      },
      samples, checks,
    };
  } finally {
    await engine.close();
  }
}

const ms = (x) => (x === null || x === undefined ? '—' : x >= 10 ? `${x.toFixed(1)} ms` : `${x.toFixed(3)} ms`);
const ratio = (x) => (x === null ? '—' : `${x.toFixed(2)}×`);

function markdown(results) {
  const rows = results.engines.map((r) => `| ${r.engine} ${r.version} | ${ms(r.cold.usable.median)} / ${ms(r.cold.ready.median)} (${ms(r.cold.fromNavigation.median)}) | `
    + `${ms(r.median['ours/encrypt'])} vs ${ms(r.median['webcrypto/encrypt'])} (${ratio(r.ratios.encryptVsWebCrypto)}) | `
    + `${ms(r.median['ours/qr'])} vs ${ms(r.median['qrcode-generator/qr'])} (${ratio(r.ratios.qrVsQrcodeGenerator)}) | `
    + `${r.simd ? ms(r.median['ours/encrypt']) : 'cannot run'} / ${ms(r.median['nosimd/encrypt'])} (${r.simd ? ratio(r.ratios.simdGain) : '—'}) |`);
  return [
    `# paywasm in every engine (${results.meta.date}, ${results.meta.mode} run, ${results.meta.cpus} CPUs ${results.meta.cpuModel}, load ${results.meta.loadAtStart})`,
    '',
    'Medians, each engine measured alone, one after the other in this run (bench/engines.mjs). Cold start: script request → paywasm-usable / → paywasm-ready (navigation → ready). '
    + `Encryption: the ${results.meta.payloadBytes}-byte exchange payload, OAEP-SHA-1, ours / the engine's WebCrypto. `
    + 'QR: a 75-character URI to SVG, ours / qrcode-generator. Modules: paywasm.wasm / paywasm-nosimd.wasm on the same payload (the SIMD gain: > 1 is faster).',
    '',
    '| engine | cold start | encryption (ratio) | QR (ratio) | paywasm.wasm / nosimd (SIMD gain) |',
    '|---|---|---|---|---|',
    ...rows,
    '',
    `Cold start against its floor, per engine (medians of loads interleaved in this run; budget: script tag -> usable ≤ ${USABLE_BUDGET_RATIO}× the floor: `
    + 'pages/floor.html, the same paywasm.js fetched and run and the same form drawn in plain HTML):',
    '',
    '| engine | **usable / floor** | widget: script tag -> usable | floor: script tag -> form | load (1 min, max during) | absolute (≤ 45 ms, not judged) |',
    '|---|---|---|---|---|---|',
    ...results.engines.map((r) => `| ${r.engine} ${r.version} | **${ratio(r.ratios.usableVsFloor)}** (${r.ratios.usableVsFloor <= USABLE_BUDGET_RATIO ? 'met' : 'missed'}) | `
      + `${ms(r.cold.usable.median)} | ${ms(r.floor.usable.median)} | ${r.loadDuringCold} | ${r.cold.usable.median <= USABLE_BUDGET_MS ? 'within' : 'over'} |`),
    '',
    'Cold start in parts, per engine (medians, ms):',
    '',
    '| engine | script fetch | script loaded -> wasm request | wasm fetch | **script tag -> usable** | wasm received -> ready | script tag -> ready | navigation -> ready |',
    '|---|---|---|---|---|---|---|---|',
    ...results.engines.map((r) => { const c = r.cold; const f = (x) => x.median.toFixed(1);
      return `| ${r.engine} ${r.version} | ${f(c.scriptFetch)} | ${f(c.scriptToWasmRequest)} | ${f(c.wasmFetch)} | **${f(c.usable)}** | `
        + `${f(c.wasmToReady)} | ${f(c.ready)} | ${f(c.fromNavigation)} |`; }),
    '',
    `SIMD decision input: the largest SIMD gain is ${ratio(results.bestSimdGain)} (${results.bestSimdEngine}); the rule keeps the SIMD module only at ≥ 1.20× in at least one engine.`,
    '',
  ].join('\n');
}

async function main() {
  const inputs = makeInputs();
  const work = tempDir('paywasm-bench-engines-');
  fs.writeFileSync(path.join(work, 'private.pem'), inputs.privateKeyPem, { mode: 0o600 });
  const server = await startServerProcess({
    distDir, vendor: VENDOR,
    inputs: { publicKeyPem: inputs.publicKeyPem, worstKeyPem: inputs.worstKeyPem, payloads: inputs.payloads, qrText: inputs.qrText },
  });
  const loadAtStart = os.loadavg()[0];
  const results = {
    meta: { date: new Date().toISOString(), mode: quick ? 'quick' : 'full', config: CONFIG, cpus: os.cpus().length,
      cpuModel: (os.cpus()[0] || {}).model || 'unknown', loadAtStart: Math.round(loadAtStart * 100) / 100,
      payloadBytes: inputs.payloadBytes.sample },
    engines: [],
  };
  try {
    for (const name of engines) results.engines.push(await measureEngine(name, server.origin, inputs, work));
  } finally {
    await server.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
  const gains = results.engines.filter((r) => r.ratios.simdGain !== null);
  const best = gains.sort((a, b) => b.ratios.simdGain - a.ratios.simdGain)[0];
  results.bestSimdGain = best ? best.ratios.simdGain : null;
  results.bestSimdEngine = best ? best.engine : '—';
  fs.mkdirSync(outDir, { recursive: true });
  fs.writeFileSync(path.join(outDir, 'engines.json'), `${JSON.stringify(results, null, 2)}\n`);
  fs.writeFileSync(path.join(outDir, 'engines.md'), markdown(results));
  console.log(`\n${markdown(results)}`);
  const failed = results.engines.flatMap((r) => r.checks.filter((c) => !c.ok).map((c) => `${r.engine}: ${c.name}: ${c.detail}`));
  if (failed.length) {
    console.error(`bench engines: error: the run is not valid:\n  ${failed.join('\n  ')}`);
    process.exit(2);
  }
}

main().catch((e) => {
  console.error(`bench engines: error: ${e && e.stack ? e.stack : e}`);
  process.exit(2);
});
