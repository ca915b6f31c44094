// The hosted checkout's budgets (issue 33; docs/bench.md "Hosted checkout and payment links"):
//   1. a payment link opened in Chromium, GET /l/{id} -> 303 -> /pay/{id}, to a usable form (the
//      shopper-fields form: in the DOM, its first input focusable), and the checkout page after the
//      fields to the widget's form usable (paywasm-usable): unthrottled (≤ 1.0 s) and on the
//      throttled phone profile of bench/throttle.mjs (CPU 4×, Slow 4G; ≤ 1.5 s), side by side;
//   2. what the checkout page transfers with the widget, each response's body gzip -9 (≤ 100 KB);
//   3. link openings on SQLite at 200 a second for a fixed time without a failed answer (the link
//      rate limits are lifted for it: --link-rate-per-client 0 --link-rate-per-link 0).
// Real processes: paywasm-sandbox and paywasm-merchant (--widget-dir the dist), Chromium headless.
//   PAYWASM_SANDBOX=... PAYWASM_CLI=... PAYWASM_MERCHANT=... node bench/hosted.mjs --dist DIR --out DIR [--quick]
// Writes <out>/hosted.json and hosted.md; exit 1 when a budget is missed (not in --quick, where the
// figures are reported only, except a failed opening), 2 when the run failed.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { createRequire } from 'node:module';
import { gw, startGateway, startSandbox } from '../tests/gateway/harness.mjs';
import { CPU_SLOWDOWN, coldPage } from './throttle.mjs';
import { summary } from './stats.mjs';

const argv = process.argv.slice(2);
const option = (name, fallback) => (argv.includes(`--${name}`) ? argv[argv.indexOf(`--${name}`) + 1] : fallback);
const quick = argv.includes('--quick') || process.env.BENCH_QUICK === '1';
const DIST = path.resolve(option('dist', 'dist'));
const OUT = path.resolve(option('out', 'bench/results'));
const LOADS = quick ? 1 : 5;                 // loads per row, after one warm-up load
const OPEN_RATE = 200;                       // link openings a second
const OPEN_SECONDS = quick ? 2 : 10;
const BUDGET = { plainMs: 1000, throttledMs: 1500, transferBytes: 100 * 1024 };
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
    // A body that never ends would hang the run (and CI's ctest until its timeout): fail it instead.
    let timer;
    const files = (await Promise.race([Promise.all(bodies), new Promise((resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`${url}: a response's body did not end within 20 s`)), 20000);
    })]).finally(() => clearTimeout(timer))).filter(Boolean);
    if (errors.length) throw new Error(`${url}: ${errors.join('; ')}`);
    return { ms: at, path: new URL(page.url()).pathname, files };
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
  for (const throttled of [false, true]) {
    for (const [id, until] of [['link', fieldsUsable], ['checkout', widgetUsable]]) {
      const runs = [];
      for (let i = 0; i < LOADS + 1; i++) {
        const url = id === 'link' ? link.json.url : await checkoutUrl();
        const r = await load(browser, url, throttled, until);
        if (id === 'link' && !r.path.startsWith('/pay/')) throw new Error(`the link led to ${r.path}`);
        if (i > 0) runs.push(r);  // the first load warms the gateway and the browser up
      }
      rows[`${id}.${throttled ? 'throttled' : 'plain'}`] = { ms: summary(runs.map((r) => r.ms)), files: runs[0].files };
    }
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
  result = { quick, loads: LOADS, budget: BUDGET, rows: Object.fromEntries(Object.entries(rows).map(([k, v]) => [k, v.ms])), transfer, open, pass };
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
    + 'Times from navigation start (the link\'s URL, before its 303) to the form usable.',
  '',
  '| page | not throttled | throttled phone | throttled ÷ plain | budget (plain / phone) |',
  '|---|---|---|---|---|',
  `| link URL -> 303 -> the fields form usable | ${cell('link.plain')} | ${cell('link.throttled')} | ${ratio('link')}× | ≤ 1.0 s ${ok(result.pass.linkPlain)} / ≤ 1.5 s ${ok(result.pass.linkThrottled)} |`,
  `| checkout page (fields given) -> the widget's form usable (paywasm-usable) | ${cell('checkout.plain')} | ${cell('checkout.throttled')} | ${ratio('checkout')}× | ≤ 1.0 s ${ok(result.pass.checkoutPlain)} / ≤ 1.5 s ${ok(result.pass.checkoutThrottled)} |`,
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
