// The browser suites' shared harness, on Node's test runner (node:test): Chromium launched once per
// test file, a fresh context and page per test with its page errors and console kept, the suite's
// page server, the merchant key with OpenSSL/zbarimg checks, the fake payment API (Playwright route
// handlers) and small waiting helpers. Used by tests/browser/*.mjs, tests/faults/run.mjs and
// tests/demo/run.mjs; run a file with `node --test-reporter=spec <file> [--dist <dir>]`.
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, afterEach, before } from 'node:test';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';

export { startServer, API_ORIGIN } from './server.mjs';

export const CHROMIUM = process.env.PAYWASM_CHROMIUM || '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run'];

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Chromium, headless. Playwright's launch() gives it a fresh user-data-dir in a temp folder and
// removes it on close.
export async function launch() {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  return { browser, close: () => browser.close() };
}

// ---- the test file's dist and browser -------------------------------------------------------------

// The widget files a test file runs against: `--dist <dir>` on its command line, else
// $PAYWASM_DIST_DIR, else dist/ at the repository root. When one of `files` is missing the process
// says so and exits 1 before any test is registered (a setup error, not N identical failures).
export function distDir(files = ['paywasm.js', 'paywasm.wasm']) {
  const argv = process.argv.slice(2);
  const i = argv.indexOf('--dist');
  const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
  const dir = path.resolve(i >= 0 ? argv[i + 1] : process.env.PAYWASM_DIST_DIR || path.join(root, 'dist'));
  const missing = files.filter((f) => !fs.existsSync(path.join(dir, f)));
  if (missing.length) {
    console.log(`${dir} has no ${missing.join(', ')}: run \`make dist\` (scripts/dist.sh) first`);
    process.exit(1);
  }
  return dir;
}

// One Chromium for the whole test file: launched in a `before` hook, closed in an `after` hook
// (call at the top level of the file, before its tests). Returns a handle whose `browser` is the
// Playwright Browser once `before` ran, and whose newPage() opens a fresh context and page. After
// each test, the contexts it opened through newPage() and left open (a test that failed before its
// done()) are closed, so nothing of one test runs on into the next.
// Note: Node 20 starts a file's top-level `before` hooks as they are registered, so they run side by
// side (each file's setups are independent of one another); the first test waits for all of them,
// and its reported time includes theirs. `after` hooks run one by one, in the order registered.
export function useBrowser() {
  const open = new Set();
  const handle = {
    browser: null,
    async newPage(options) {
      const opened = await newPage(handle.browser, options);
      open.add(opened.context);
      opened.context.on('close', () => open.delete(opened.context));
      return opened;
    },
  };
  let chromium_;
  before(async () => {
    chromium_ = await launch();
    handle.browser = chromium_.browser;
  });
  afterEach(async () => {
    await Promise.all([...open].map((context) => context.close().catch(() => {})));
  });
  after(async () => { await chromium_?.close(); });
  return handle;
}

// A fresh browser context (Playwright newContext `options`) and page in it. Kept from the start:
// `errors` (uncaught page errors) and `console` (the text of every console message). done() closes
// the context and asserts that the page had no uncaught error and no CSP violation (the test pages
// record those in window.__violations); `what` prefixes both messages.
export async function newPage(browser, options = {}) {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  const errors = [];
  const console_ = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => console_.push(m.text()));
  const done = async (what = '') => {
    const violations = await page.evaluate(() => window.__violations).catch(() => []);
    await context.close();
    const prefix = what ? `${what}: ` : '';
    assert.ok(errors.length === 0, `${prefix}uncaught errors in the page: ${errors.join('; ')}`);
    assert.ok(violations.length === 0, `${prefix}CSP violations: ${JSON.stringify(violations)}`);
  };
  return { context, page, errors, console: console_, done };
}

// ---- waiting ------------------------------------------------------------------------------------------

// Waits until the page's window.__events (the test pages record the widget's events there) holds
// `nth` events of `type`, counting only those whose status code is `code` when given; resolves all
// the events of `type`. Fails after `timeout` ms listing the events seen. No eval in the page: the
// CSP forbids it, and a violation would fail the test.
export async function waitEvent(page, type, { code = null, nth = 1, timeout = 15000 } = {}) {
  try {
    await page.waitForFunction(([t, c, n]) => window.__events
      .filter((e) => e.type === t && (c === null || (e.status && e.status.code === c))).length >= n,
    [type, code, nth], { timeout });
  } catch (e) {
    const seen = await page.evaluate(() => JSON.stringify(window.__events)).catch(() => '?');
    const which = `${nth === 1 ? '' : ` #${nth}`}${code === null ? '' : ` with status ${code}`}`;
    throw new Error(`no ${type} event${which}; events so far: ${seen.slice(0, 1500)}`);
  }
  return page.evaluate((t) => window.__events.filter((e) => e.type === t), type);
}

// ---- keys, OpenSSL, zbarimg --------------------------------------------------------------------

export function makeKeys(dir) {
  const priv = path.join(dir, 'merchant-private.pem');
  const pub = path.join(dir, 'merchant-public.pem');
  execFileSync('openssl', ['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', priv], { stdio: 'pipe' });
  execFileSync('openssl', ['pkey', '-in', priv, '-pubout', '-out', pub], { stdio: 'pipe' });
  const der = execFileSync('openssl', ['pkey', '-pubin', '-in', pub, '-outform', 'DER']);
  return {
    privatePath: priv,
    publicPem: fs.readFileSync(pub, 'utf8'),
    fingerprint: crypto.createHash('sha256').update(der).digest('hex'),
  };
}

const OPENSSL_PADDING = {
  'oaep-sha1': ['-pkeyopt', 'rsa_padding_mode:oaep', '-pkeyopt', 'rsa_oaep_md:sha1', '-pkeyopt', 'rsa_mgf1_md:sha1'],
  'oaep-sha256': ['-pkeyopt', 'rsa_padding_mode:oaep', '-pkeyopt', 'rsa_oaep_md:sha256', '-pkeyopt', 'rsa_mgf1_md:sha256'],
  pkcs1v15: ['-pkeyopt', 'rsa_padding_mode:pkcs1'],
};

// Decrypts the widget's base64 ciphertext block by block with `openssl pkeyutl`, independently of
// the C++ core. Returns { text, blocks }.
export function opensslDecrypt(keys, base64, padding, dir) {
  const bytes = Buffer.from(base64, 'base64');
  assert.ok(bytes.length > 0 && bytes.length % 256 === 0, `ciphertext is ${bytes.length} bytes, not a multiple of 256`);
  const parts = [];
  for (let i = 0; i < bytes.length; i += 256) {
    const file = path.join(dir, `block-${i / 256}.bin`);
    fs.writeFileSync(file, bytes.subarray(i, i + 256));
    parts.push(execFileSync('openssl', ['pkeyutl', '-decrypt', '-inkey', keys.privatePath, ...OPENSSL_PADDING[padding], '-in', file]));
  }
  return { text: Buffer.concat(parts).toString('utf8'), blocks: parts.length };
}

export function zbar(pngPath) {
  return execFileSync('zbarimg', ['--raw', '-q', pngPath]).toString('utf8').replace(/\n$/, '');
}

// ---- what a page leaves behind ----------------------------------------------------------------------

// Runs in the page (self-contained: page.evaluate, or an engine driver's run): the text of every
// place a later script or visitor could read something back from: web storage, cookies, IndexedDB,
// Cache Storage, the URL, the widget's recorded events (window.__events) and the DOM with the
// checkout's shadow root.
export async function pageTraces() {
  const out = { localStorage: [], sessionStorage: [], cookies: document.cookie, indexedDB: [], cacheStorage: [], url: location.href };
  for (let i = 0; i < localStorage.length; i++) out.localStorage.push(localStorage.key(i) + '=' + localStorage.getItem(localStorage.key(i)));
  for (let i = 0; i < sessionStorage.length; i++) out.sessionStorage.push(sessionStorage.key(i) + '=' + sessionStorage.getItem(sessionStorage.key(i)));
  for (const info of await indexedDB.databases()) {
    const db = await new Promise((res, rej) => { const r = indexedDB.open(info.name); r.onsuccess = () => res(r.result); r.onerror = rej; });
    for (const store of db.objectStoreNames) {
      const all = await new Promise((res) => { const r = db.transaction(store).objectStore(store).getAll(); r.onsuccess = () => res(r.result); });
      out.indexedDB.push(info.name + '/' + store + ':' + JSON.stringify(all));
    }
    db.close();
  }
  for (const name of await caches.keys()) {
    const cache = await caches.open(name);
    for (const req of await cache.keys()) out.cacheStorage.push(name + ' ' + req.url + ' ' + await (await cache.match(req)).text());
  }
  for (const k of ['localStorage', 'sessionStorage', 'indexedDB', 'cacheStorage']) out[k] = out[k].join('\n');
  out.events = JSON.stringify(window.__events);
  out.dom = document.documentElement.outerHTML + document.querySelector('paywasm-checkout').shadowRoot.innerHTML;
  return out;
}

// Asserts that no 8-character piece of `token` (every 4th offset) is in any text of `where`
// ({ place: text }), and that the same search finds it in a string that has it.
export function assertTokenNowhere(token, where) {
  assert.ok(token.length >= 16, `the sandbox token is long enough to search for: ${token.length}`);
  const pieces = [];
  for (let i = 0; i + 8 <= token.length; i += 4) pieces.push(token.slice(i, i + 8));
  for (const [name, text] of Object.entries(where)) {
    assert.ok(!pieces.some((p) => text.includes(p)), `a piece of the shopper token is in ${name}`);
  }
  assert.ok(pieces.some((p) => `x${token}x`.includes(p)), 'the search finds the token where it is');
}

// ---- the fake payment API -------------------------------------------------------------------------

// Answers API_ORIGIN/** from handlers keyed "METHOD /path" (or "METHOD /prefix*"). A handler gets
// { method, path, headers, body, json } and returns { status, json | body, delay, headers } or
// 'hang' (never answers). Unhandled requests get 404. Every request is kept in `calls`.
export async function fakeApi(page, origin) {
  const api = { calls: [], handlers: new Map() };
  api.on = (key, handler) => { api.handlers.set(key, handler); return api; };
  api.count = (key) => api.calls.filter((c) => `${c.method} ${c.path}` === key).length;
  await page.route(`${origin}/**`, async (route) => {
    const req = route.request();
    const url = new URL(req.url());
    const call = { method: req.method(), path: url.pathname, headers: await req.allHeaders(), body: req.postData() || '' };
    try { call.json = call.body ? JSON.parse(call.body) : null; } catch (e) { call.json = null; }
    api.calls.push(call);
    const key = `${call.method} ${call.path}`;
    let handler = api.handlers.get(key);
    if (!handler) {
      for (const [k, h] of api.handlers) if (k.endsWith('*') && key.startsWith(k.slice(0, -1))) handler = h;
    }
    const answer = handler ? await handler(call) : { status: 404, json: { message: 'no such route in the test' } };
    if (answer === 'hang') return;  // the request stays open until the page gives up
    if (answer.delay) await sleep(answer.delay);
    try {
      await route.fulfill({
        status: answer.status || 200,
        headers: { 'Access-Control-Allow-Origin': '*', 'Content-Type': 'application/json', ...(answer.headers || {}) },
        body: answer.body !== undefined ? answer.body : JSON.stringify(answer.json === undefined ? {} : answer.json),
      });
    } catch (e) {
      // The page went away (or aborted the request) first.
    }
  });
  return api;
}
