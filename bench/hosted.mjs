// The hosted checkout's budgets (issue 33; docs/bench.md "Hosted checkout and payment links"):
//   1. a payment link opened in Chromium, GET /l/{id} (the session's page, no redirect), to a usable form (the
//      shopper-fields form: in the DOM, its first input focusable), and the checkout page after the
//      fields to the widget's form usable (paywasm-usable): unthrottled (≤ 1.0 s) and on the
//      throttled phone profile of bench/throttle.mjs (CPU 4×, Slow 4G; ≤ 1.2 s), side by side;
//      and the checkout page judged against its floor, measured in the same run, its loads
//      interleaved with the checkout's: the same page with no widget element (the same bytes else,
//      the widget's script included, served by a proxy beside the gateway with the same headers,
//      gzip), navigation -> the page parsed (readyState interactive). Budget: usable ≤ 1.3× the
//      floor, plain and throttled; the machine's 1-minute load is reported beside the figures;
//   2. what the checkout page transfers with the widget, each response's body gzip -9 (≤ 100 KB);
//   3. link openings on SQLite at 200 a second for a fixed time without a failed answer (the link
//      rate limits are lifted for it: --link-rate-per-client 0 --link-rate-per-link 0).
// Real processes: paywasm-sandbox and paywasm-merchant (--widget-dir the dist), Chromium headless.
//   PAYWASM_SANDBOX=... PAYWASM_CLI=... PAYWASM_MERCHANT=... node bench/hosted.mjs --dist DIR --out DIR [--quick]
// Writes <out>/hosted.json and hosted.md; exit 1 when a budget is missed (not in --quick, where the
// figures are reported only, except a failed opening), 2 when the run failed.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { createRequire } from 'node:module';
import { gw, startGateway, startSandbox } from '../tests/gateway/harness.mjs';
import { CPU_SLOWDOWN, coldPage } from './throttle.mjs';
import { summary } from './stats.mjs';
import { USABLE_FLOOR_RATIO } from './figures.mjs';

const argv = process.argv.slice(2);
const option = (name, fallback) => (argv.includes(`--${name}`) ? argv[argv.indexOf(`--${name}`) + 1] : fallback);
const quick = argv.includes('--quick') || process.env.BENCH_QUICK === '1';
const DIST = path.resolve(option('dist', 'dist'));
const OUT = path.resolve(option('out', 'bench/results'));
const LOADS = quick ? 1 : 9;                 // loads per row, after one warm-up round
const OPEN_RATE = 200;                       // link openings a second
const OPEN_SECONDS = quick ? 2 : 10;
const BUDGET = { plainMs: 1000, throttledMs: 1200, transferBytes: 100 * 1024, floorRatio: USABLE_FLOOR_RATIO };
const require = createRequire(import.meta.url);
const { chromium } = require('playwright-core');

const log = (s) => console.log(`bench hosted: ${s}`);

// One cold load: a new context, cache off, throttled or not. `url` is opened; `until` runs in the
// page and resolves with performance.now() when the form is usable. Returns ms from navigation
// start and every response's URL and body.
async function load(browser, url, throttled, until) {
  const context = await browser.newContext({ locale: 'en-US' });
  try {
    const page = await coldPage(context, throttled);
    // Before any script of the page (no request, not under its CSP): the widget's events, recorded.
    await page.addInitScript(() => {
      document.addEventListener('paywasm-usable', () => { window.__usableAt = performance.now(); }, { once: true });
      document.addEventListener('paywasm-ready', () => { window.__readyAt = performance.now(); }, { once: true });
      document.addEventListener('readystatechange', () => {
        if (document.readyState === 'interactive') window.__interactiveAt = performance.now();
      });
      document.addEventListener('paywasm-error', (e) => { window.__error = String(e.detail?.error?.code); }, { once: true });
    });
    const bodies = [];
    // bytes: the body as sent (Content-Encoding included: Playwright's responseBodySize); gzip: the
    // decoded body as gzip -9 would make it (the budget's measure).
    // The page's status stream (text/event-stream, hosted.js follows it while the page is open)
    // never ends: it is not a file the page transfers, and its body would never resolve.
    page.on('response', (r) => { if (/^text\/event-stream/.test(r.headers()['content-type'] || '')) return; bodies.push(Promise.all([r.body(), r.request().sizes()]).then(([b, sizes]) => ({ url: r.url(),
      status: r.status(), bytes: sizes.responseBodySize, gzip: zlib.gzipSync(b, { level: 9 }).length })).catch(() => null)); });
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(url, { waitUntil: 'commit', timeout: 30000 });
    const at = await page.evaluate(until);
    // The transfer counts every file of the page: a widget page is kept until its module is in.
    if (until === widgetUsable) await page.waitForFunction(() => window.__readyAt !== undefined, null, { timeout: 20000 });
    // A body that never ends would hang the run (and CI's ctest until its timeout): fail it instead.
    let timer;
    const files = (await Promise.race([Promise.all(bodies), new Promise((resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`${url}: a response's body did not end within 20 s`)), 20000);
    })]).finally(() => clearTimeout(timer))).filter(Boolean);
    if (errors.length) throw new Error(`${url}: ${errors.join('; ')}`);
    // The session's address: the page's own (hosted.js puts it in the address bar once it has run;
    // a link answers its page at the link's URL).
    const own = await page.evaluate(() => { const c = document.getElementById('hosted'); return c && c.dataset.page; });
    return { ms: at, path: own || new URL(page.url()).pathname, files };
  } finally {
    await context.close();
  }
}

// In the page: the fields form usable (its first input there and focusable), from navigation start.
const fieldsUsable = () => new Promise((resolve) => {
  const check = () => {
    const input = document.querySelector('form.details input');
    if (input) { input.focus(); if (document.activeElement === input) return resolve(performance.now()); }
    requestAnimationFrame(check);
  };
  check();
});
// In the page: the widget's form usable (paywasm-usable, recorded by the init script), from navigation start.
const widgetUsable = () => new Promise((resolve, reject) => {
  const t0 = performance.now();
  const check = () => {
    if (window.__error) return reject(new Error(`paywasm-error ${window.__error}`));
    if (window.__usableAt !== undefined) return resolve(window.__usableAt);
    if (performance.now() - t0 > 20000) return reject(new Error('no paywasm-usable within 20 s'));
    return setTimeout(check, 10);
  };
  check();
});

// In the page: the floor page parsed (readyState interactive: its inline script has run, before
// the deferred hosted.js), from navigation start.
const floorParsed = () => new Promise((resolve) => {
  const check = () => (window.__interactiveAt !== undefined ? resolve(window.__interactiveAt) : setTimeout(check, 5));
  check();
});

// The floor's server: GET /pay/{id} is the gateway's page for that session with the
// <paywasm-checkout> element taken out (nothing else changed: the inline script still comes and
// runs, it only finds no element), sent with the gateway's headers, gzip; any other request goes
// to the gateway as it is (hosted.js, the status stream).
function floorServer(gatewayBase) {
  const server = http.createServer(async (req, res) => {
    try {
      if (/^\/pay\/[A-Za-z0-9_-]+$/.test(req.url)) {
        const r = await fetch(gatewayBase + req.url, { headers: { 'accept-encoding': 'identity', 'accept-language': 'en' } });
        const text = (await r.text()).replace(/<paywasm-checkout[^]*?<\/paywasm-checkout>/, '');
        const headers = Object.fromEntries([...r.headers].filter(([k]) => !['content-length', 'content-encoding', 'transfer-encoding', 'connection', 'keep-alive', 'date'].includes(k)));
        res.writeHead(r.status, { ...headers, 'content-encoding': 'gzip' });
        return res.end(zlib.gzipSync(text, { level: 6 }));
      }
      const up = http.request(gatewayBase + req.url, { method: req.method, headers: { ...req.headers, host: new URL(gatewayBase).host } }, (r) => {
        res.writeHead(r.statusCode, r.headers);
        r.pipe(res);
      });
      up.on('error', () => res.destroy());
      req.pipe(up);
    } catch (e) {
      res.writeHead(502);
      res.end(String(e));
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ base: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(r); }) })));
}

// Link openings at `rate` a second for `seconds`, open loop (each sent on its schedule, not after
// the previous answer). Returns the answers' statuses and latencies.
async function openings(g, linkId, rate, seconds) {
  const total = rate * seconds;
  const started = performance.now();
  const jobs = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const t0 = performance.now();
    jobs.push(fetch(`${g.base}/l/${linkId}`, { redirect: 'manual' })
      .then(async (r) => { await r.arrayBuffer(); return { status: r.status, ms: performance.now() - t0 }; })
      .catch((e) => ({ status: 0, error: String(e), ms: performance.now() - t0 })));
  }
  const answers = await Promise.all(jobs);
  const elapsed = (performance.now() - started) / 1000;
  return { sent: total, seconds: elapsed, rate: total / elapsed, failed: answers.filter((a) => a.status !== 303).length,
    statuses: [...new Set(answers.map((a) => a.status))], latency: summary(answers.map((a) => a.ms)) };
}

const sb = await startSandbox([]);
const g = await startGateway(sb, { extra: ['--widget-dir', DIST, '--link-rate-per-client', '0', '--link-rate-per-link', '0',
  '--public-service-url', `${sb.base}/api`] });
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
let result;
try {
  const link = await gw(g, 'POST', '/v1/links', { app: true, body: { name: 'Beans', currency: 'USD', methods: ['qr'],
    cart: [{ id: 'beans', name: 'House blend, 250 g', price: 9.5, quantity: 2 }] } });
  if (link.status !== 201) throw new Error(`POST /v1/links: ${link.status} ${link.text}`);
  // A checkout page whose fields are given: what the shopper sees after the form.
  const checkoutUrl = async () => {
    const to = (await fetch(`${g.base}/l/${link.json.id}`, { redirect: 'manual' })).headers.get('location');
    const r = await fetch(`${g.base}${to}/details`, { method: 'POST', redirect: 'manual', headers: {
      'content-type': 'application/x-www-form-urlencoded', origin: g.base }, body: 'name=Ada&email=ada%40example.test' });
    if (r.status !== 303) throw new Error(`details: ${r.status}`);
    return g.base + to;
  };
  const rows = {};
  const floor = await floorServer(g.base);
  const loadAvg = [os.loadavg()[0]];
  try {
    for (const throttled of [false, true]) {
      const mode = throttled ? 'throttled' : 'plain';
      const runs = { link: [], checkout: [], floor: [] };
      for (let i = 0; i < LOADS + 1; i++) {
        // One round: the link, the checkout page, its floor (the same session's page without the
        // element); the first round warms the gateway and the browser up.
        const linked = await load(browser, link.json.url, throttled, fieldsUsable);
        if (!linked.path.startsWith('/pay/')) throw new Error(`the link led to ${linked.path}`);
        const url = await checkoutUrl();
        const pair = i % 2 ? [['floor', floor.base], ['checkout', g.base]] : [['checkout', g.base], ['floor', floor.base]];
        const round = { link: linked };
        for (const [id, base] of pair) {
          round[id] = await load(browser, base + new URL(url).pathname, throttled, id === 'floor' ? floorParsed : widgetUsable);
        }
        if (i > 0) for (const id of Object.keys(runs)) runs[id].push(round[id]);
      }
      for (const id of Object.keys(runs)) rows[`${id}.${mode}`] = { ms: summary(runs[id].map((r) => r.ms)), files: runs[id][0].files };
      loadAvg.push(os.loadavg()[0]);
    }
  } finally {
    await floor.close();
  }
  log(`link openings on SQLite: ${OPEN_RATE}/s for ${OPEN_SECONDS} s`);
  const open = await openings(g, link.json.id, OPEN_RATE, OPEN_SECONDS);
  const files = rows['checkout.plain'].files;
  const transfer = { bytes: files.reduce((a, f) => a + f.bytes, 0), gzip: files.reduce((a, f) => a + f.gzip, 0),
    files: files.map((f) => ({ path: new URL(f.url).pathname, bytes: f.bytes, gzip: f.gzip })) };
  const pass = {
    linkPlain: rows['link.plain'].ms.median <= BUDGET.plainMs, linkThrottled: rows['link.throttled'].ms.median <= BUDGET.throttledMs,
    checkoutPlain: rows['checkout.plain'].ms.median <= BUDGET.plainMs, checkoutThrottled: rows['checkout.throttled'].ms.median <= BUDGET.throttledMs,
    transfer: transfer.gzip <= BUDGET.transferBytes, openings: open.failed === 0 && open.rate >= OPEN_RATE * 0.95,
  };
  const floorRatio = {};
  for (const mode of ['plain', 'throttled']) {
    floorRatio[mode] = rows[`checkout.${mode}`].ms.median / rows[`floor.${mode}`].ms.median;
    pass[`floor${mode[0].toUpperCase()}${mode.slice(1)}`] = floorRatio[mode] <= BUDGET.floorRatio;
  }
  result = { quick, loads: LOADS, budget: BUDGET, rows: Object.fromEntries(Object.entries(rows).map(([k, v]) => [k, v.ms])), floorRatio, loadAvg,
    transfer, open, pass };
} finally {
  await browser.close();
  await g.stop();
  await sb.stop();
}

const t = (ms) => `${(ms / 1000).toFixed(2)} s`;
const cell = (k) => `${t(result.rows[k].median)} (${t(result.rows[k].min)}–${t(result.rows[k].max)})`;
const ratio = (k) => (result.rows[`${k}.throttled`].median / result.rows[`${k}.plain`].median).toFixed(1);
const ok = (b) => (b ? 'met' : '**missed**');
const md = [
  '## Hosted checkout and payment links',
  '',
  `Chromium headless, ${result.loads} cold load(s) per row after a warm-up (new context, cache off); throttled: CPU ${CPU_SLOWDOWN}× and Slow 4G (bench/throttle.mjs). `
    + 'Times from navigation start (the link\'s URL) to the form usable.',
  '',
  '| page | not throttled | throttled phone | throttled ÷ plain | budget (plain / phone) |',
  '|---|---|---|---|---|',
  `| link URL -> the fields form usable | ${cell('link.plain')} | ${cell('link.throttled')} | ${ratio('link')}× | ≤ 1.0 s ${ok(result.pass.linkPlain)} / ≤ 1.2 s ${ok(result.pass.linkThrottled)} |`,
  `| checkout page (fields given) -> the widget's form usable (paywasm-usable) | ${cell('checkout.plain')} | ${cell('checkout.throttled')} | ${ratio('checkout')}× | ≤ 1.0 s ${ok(result.pass.checkoutPlain)} / ≤ 1.2 s ${ok(result.pass.checkoutThrottled)} |`,
  `| its floor: the same page without the element -> parsed | ${cell('floor.plain')} | ${cell('floor.throttled')} | ${ratio('floor')}× | - |`,
  `| **checkout ÷ floor** (medians; budget ≤ ${BUDGET.floorRatio}×) | ${result.floorRatio.plain.toFixed(2)}× ${ok(result.pass.floorPlain)} | ${result.floorRatio.throttled.toFixed(2)}× ${ok(result.pass.floorThrottled)} | | |`,
  '',
  `The machine's 1-minute load average: ${result.loadAvg[0].toFixed(2)} at the start, ${result.loadAvg[1].toFixed(2)} after the plain rows, `
    + `${result.loadAvg[2].toFixed(2)} after the throttled rows.`,
  '',
  `Transfer of the checkout page with the widget: ${result.transfer.gzip} B as gzip -9 (budget ≤ ${BUDGET.transferBytes} B: ${ok(result.pass.transfer)}); `
    + `${result.transfer.bytes} B as paywasm-merchant sent it (gzip to a browser that accepts it). `
    + result.transfer.files.map((f) => `${f.path} ${f.gzip}`).join(', ') + '.',
  '',
  `Link openings on SQLite (--link-rate-per-client 0 --link-rate-per-link 0, the limits lifted for this run): ${result.open.sent} GET /l/{id} at ${OPEN_RATE}/s, `
    + `sent over ${result.open.seconds.toFixed(1)} s (${result.open.rate.toFixed(0)}/s), ${result.open.failed} not 303 (${ok(result.pass.openings)}); `
    + `latency median ${result.open.latency.median.toFixed(1)} ms, max ${result.open.latency.max.toFixed(1)} ms.`,
  '',
];
fs.mkdirSync(OUT, { recursive: true });
fs.writeFileSync(path.join(OUT, 'hosted.json'), JSON.stringify(result, null, 2));
fs.writeFileSync(path.join(OUT, 'hosted.md'), md.join('\n'));
console.log(md.join('\n'));
if (result.open.failed) process.exit(2);
if (!quick && Object.values(result.pass).some((p) => !p)) process.exit(1);
