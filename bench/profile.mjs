// Where the time of one of our calls goes: a V8 CPU profile (CDP Profiler, sampling) of a loop of
// calls, self time per function, wasm functions named from the build's symbol map, and the
// same per library. Run after the timings (profiling slows the page down).
import fs from 'node:fs';
import { libraryOf } from './sizes.mjs';

export function readSymbolNames(mapPath) {
  const names = new Map();
  if (!mapPath || !fs.existsSync(mapPath)) return names;
  for (const line of fs.readFileSync(mapPath, 'utf8').split('\n')) {
    const i = line.indexOf(':');
    if (i > 0) names.set(Number(line.slice(0, i)), line.slice(i + 1).replace(/\\([0-9a-f]{2})/g, (m, h) => String.fromCharCode(parseInt(h, 16))));
  }
  return names;
}

function frameName(frame, names) {
  const fn = frame.functionName || '(anonymous)';
  const m = fn.match(/^(?:\$func|wasm-function\[)(\d+)\]?$/);
  if (m || /^wasm:|\.wasm$/.test(frame.url || '')) {
    const name = m && names.has(Number(m[1])) ? names.get(Number(m[1])) : fn;
    return { name, library: `wasm: ${libraryOf(name)}` };
  }
  if (fn.startsWith('(')) return { name: fn, library: fn };  // (program), (garbage collector), (idle)
  const file = (frame.url || '').split('/').pop() || 'native';
  return { name: `${fn} (${file})`, library: /paywasm/.test(file) ? 'JS: paywasm.js' : /micro\.js/.test(file) ? 'JS: bench page' : `JS: ${file}` };
}

// profile: CDP Profiler.Profile. Returns { samples, functions: [{ name, library, share }], libraries }.
export function selfTime(profile, names, top = 15) {
  const byName = new Map();
  const byLibrary = new Map();
  let total = 0;
  for (const node of profile.nodes) {
    const hits = node.hitCount || 0;
    if (!hits) continue;
    const { name, library } = frameName(node.callFrame, names);
    if (name === '(idle)') continue;
    total += hits;
    byName.set(name, { name, library, hits: (byName.get(name) || { hits: 0 }).hits + hits });
    byLibrary.set(library, (byLibrary.get(library) || 0) + hits);
  }
  const share = (h) => Math.round((h / total) * 1000) / 10;
  return {
    samples: total,
    functions: [...byName.values()].sort((a, b) => b.hits - a.hits).slice(0, top)
      .map((f) => ({ name: f.name.length > 140 ? `${f.name.slice(0, 137)}...` : f.name, library: f.library, share: share(f.hits) })),
    libraries: [...byLibrary].sort((a, b) => b[1] - a[1]).map(([library, hits]) => ({ library, share: share(hits) })),
  };
}

// Profiles `calls` runs of each named bench implementation in a fresh page.
export async function profileCalls(browser, origin, namesMap, which, ms = 1500) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${origin}/pages/micro.html`);
  await page.evaluate(() => window.bench.init());
  const cdp = await context.newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 50 });
  const out = {};
  for (const name of which) {
    const per = await page.evaluate((n) => window.bench.time(n, 50), name);  // warm: tiered-up code
    const calls = Math.max(20, Math.round(ms / per));
    await cdp.send('Profiler.start');
    await page.evaluate(([n, k]) => window.bench.time(n, k), [name, calls]);
    const { profile } = await cdp.send('Profiler.stop');
    out[name] = { calls, ...selfTime(profile, namesMap) };
  }
  await context.close();
  return out;
}
