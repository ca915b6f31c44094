// Cold start, A/B: two builds of the widget side by side on the same machine in the same minutes,
// in any engine of the tests (tests/browser/engines): the loads alternate (A, B, B, A, ...), each a
// fresh page (new context or WebDriver session, nothing cached), ready.html on each build's own
// bench server. A build without paywasm-usable (0.2.0 and before) draws its form at paywasm-ready, so its
// usable time is its ready time (pages/ready-probe.js).
//   node bench/cold-ab.mjs --a <dist dir> --b <dist dir> [--loads 15] [--engines chromium,firefox,webkit,wpe] [--out DIR]
// Prints (and writes <out>/cold-ab.md, cold-ab.json) the medians per engine and build: script tag ->
// usable, -> ready, and the parts (script fetch, script loaded -> wasm request, wasm fetch, wasm
// received -> ready).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServerProcess } from './server.mjs';
import { summary } from './stats.mjs';
import { ENGINES, launchEngine } from '../tests/browser/engines/index.mjs';
import { coldLoad } from './cold.mjs';

const argv = process.argv.slice(2);
const option = (name, fallback) => (argv.includes(`--${name}`) ? argv[argv.indexOf(`--${name}`) + 1] : fallback);
const builds = { A: path.resolve(option('a', '')), B: path.resolve(option('b', '')) };
const loads = Number(option('loads', 15));
const engines = option('engines', ENGINES.join(',')).split(',');
const outDir = path.resolve(option('out', path.join(path.dirname(new URL(import.meta.url).pathname), 'results')));
for (const [k, dir] of Object.entries(builds)) {
  if (!fs.existsSync(path.join(dir, 'paywasm.js'))) throw new Error(`--${k.toLowerCase()} ${dir}: no paywasm.js there`);
}
const PARTS = ['usable', 'ready', 'scriptFetch', 'scriptToWasmRequest', 'wasmFetch', 'wasmToReady'];

const f = (s) => s.median.toFixed(1);
// Written after each engine, so that an engine that fails or hangs later leaves the others' figures.
function write() {
  const md = [
    `# Cold start A/B (${results.meta.date}, ${results.meta.cpus} CPUs, load ${results.meta.load.toFixed(2)} at start, ${loads} loads per build and engine, interleaved)`,
    '',
    `A: ${builds.A}  `,
    `B: ${builds.B}`,
    '',
    '| engine | build | **script tag -> usable** | script tag -> ready | script fetch | script loaded -> wasm request | wasm fetch | wasm received -> ready |',
    '|---|---|---|---|---|---|---|---|',
    ...results.engines.flatMap((r) => (r.error ? [`| ${r.engine} | - | failed: ${r.error} | | | | | |`]
      : ['A', 'B'].map((k) => `| ${r.engine} ${r.version} | ${k} | **${f(r[k].usable)}** (${r[k].usable.min.toFixed(1)}–${r[k].usable.max.toFixed(1)}) | `
        + `${f(r[k].ready)} | ${f(r[k].scriptFetch)} | ${f(r[k].scriptToWasmRequest)} | ${f(r[k].wasmFetch)} | ${f(r[k].wasmToReady)} |`))),
    '',
  ].join('\n');
  fs.mkdirSync(outDir, { recursive: true });
  fs.writeFileSync(path.join(outDir, 'cold-ab.json'), `${JSON.stringify(results, null, 2)}\n`);
  fs.writeFileSync(path.join(outDir, 'cold-ab.md'), md);
  return md;
}
const servers = {};
for (const [k, distDir] of Object.entries(builds)) servers[k] = await startServerProcess({ distDir, vendor: {}, inputs: {} });
const results = { meta: { date: new Date().toISOString(), cpus: os.cpus().length, load: os.loadavg()[0], loads, builds }, engines: [] };
try {
  for (const name of engines) {
    let engine;
    try {
      engine = await launchEngine(name);
      const runs = { A: [], B: [] };
      await coldLoad(engine, servers.A.origin);  // the engine's own first start, thrown away
      for (let i = 0; i < loads; i++) {
        for (const k of i % 2 ? ['B', 'A'] : ['A', 'B']) runs[k].push(await coldLoad(engine, servers[k].origin));
      }
      const med = (k) => Object.fromEntries(PARTS.map((p) => [p, summary(runs[k].map((r) => r[p]))]));
      results.engines.push({ engine: engine.name, version: engine.version, A: med('A'), B: med('B'), runs });
      console.log(`cold-ab: ${engine.name} ${engine.version} done`);
    } catch (e) {
      results.engines.push({ engine: name, error: String(e.message || e).slice(0, 200) });
      console.log(`cold-ab: ${name} failed: ${e.message}`);
    } finally {
      await engine?.close();
    }
    write();
  }
} finally {
  await Promise.all(Object.values(servers).map((s) => s.close()));
}
console.log(`\n${write()}`);
