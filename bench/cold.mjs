// A cold load's times, read the same way by every bench that takes them (run.mjs in Chromium,
// engines.mjs and cold-ab.mjs in every engine): from the probe of pages/ready-probe.js and the
// page's resource timing, in ms.
import { waitFor } from '../tests/support/node.mjs';

// In the page (self-contained: page.evaluate, or an engine driver's run): null until paywasm-ready;
// then, from the script's request (usable, ready) and from navigation (usableFromNavigation,
// fromNavigation), the parts (script fetch, script loaded -> wasm request, wasm fetch, wasm
// received -> ready), the fetches' waits and what was transferred.
export function coldParts() {
  if (window.__benchReadyAt === undefined) return null;
  const entries = performance.getEntriesByType('resource');
  const js = entries.find((e) => e.name.endsWith('/dist/paywasm.js'));
  const wasm = entries.find((e) => /\/dist\/paywasm(-nosimd)?\.wasm$/.test(e.name));
  return {
    usable: window.__benchUsableAt - js.startTime,
    usableFromNavigation: window.__benchUsableAt,
    ready: window.__benchReadyAt - js.startTime,
    fromNavigation: window.__benchReadyAt,
    scriptFetch: js.responseEnd - js.startTime,
    scriptToWasmRequest: wasm.startTime - js.responseEnd,
    wasmFetch: wasm.responseEnd - wasm.startTime,
    wasmToReady: window.__benchReadyAt - wasm.responseEnd,
    scriptWait: js.requestStart - js.startTime,
    scriptServer: js.responseStart - js.requestStart,
    scriptDownload: js.responseEnd - js.responseStart,
    wasmWait: wasm.requestStart - wasm.startTime,
    wasmServer: wasm.responseStart - wasm.requestStart,
    wasmDownload: wasm.responseEnd - wasm.responseStart,
    jsTransfer: js.transferSize,
    wasmTransfer: wasm.transferSize,
  };
}

// One cold load of `origin`'s ready.html in a fresh page of `engine` (tests/browser/engines): its
// coldParts() once paywasm-ready has come (15 s at most).
export async function coldLoad(engine, origin) {
  const page = await engine.newPage();
  try {
    await page.goto(`${origin}/pages/ready.html`);
    return await waitFor(() => page.run(coldParts), { timeout: 15000, interval: 20, what: `paywasm-ready on ready.html (${engine.name})` });
  } finally {
    await page.close();
  }
}

// In the page: null until floor.js has drawn; then the floor page's time from the script's request
// to the form drawn (usable), and its script fetch.
// `ready`: PayWasm.load() has the module the script started (floor.js; null until then: engines.mjs
// judges usable only and does not wait for it).
export function floorParts() {
  if (window.__benchUsableAt === undefined) return null;
  const js = performance.getEntriesByType('resource').find((e) => /\/(dist|gz)\/paywasm\.js$/.test(e.name));
  return { usable: window.__benchUsableAt - js.startTime, scriptFetch: js.responseEnd - js.startTime,
    ready: window.__benchReadyAt === undefined ? null : window.__benchReadyAt - js.startTime };
}

// One cold load of `origin`'s floor.html (the same paywasm.js, the form in plain HTML) in a fresh
// page of `engine`: its floorParts().
export async function floorLoad(engine, origin) {
  const page = await engine.newPage();
  try {
    await page.goto(`${origin}/pages/floor.html`);
    return await waitFor(() => page.run(floorParts), { timeout: 15000, interval: 20, what: `the form on floor.html (${engine.name})` });
  } finally {
    await page.close();
  }
}
