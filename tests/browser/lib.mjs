// Shared pieces of the browser suite: Chromium, the fake payment API (Playwright route handlers),
// OpenSSL/zbarimg checks, and a tiny test runner that ends with "N passed, N failed".
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';

export const CHROMIUM = process.env.PAYWASM_CHROMIUM || '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run'];

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export class AssertionError extends Error {}
export function check(cond, message) {
  if (!cond) throw new AssertionError(message);
}
export function equal(actual, expected, what) {
  if (actual !== expected) {
    throw new AssertionError(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
  }
}

// Chromium, headless. Playwright's launch() gives it a fresh user-data-dir in a temp folder and
// removes it on close.
export async function launch() {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  return { browser, close: () => browser.close() };
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
  check(bytes.length > 0 && bytes.length % 256 === 0, `ciphertext is ${bytes.length} bytes, not a multiple of 256`);
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

// ---- runner -----------------------------------------------------------------------------------------

export async function runTests(tests, { perTestTimeoutMs = 30000, only } = {}) {
  let passed = 0;
  let failed = 0;
  const started = Date.now();
  const selected = only ? tests.filter((t) => t.name.includes(only)) : tests;
  for (const [i, t] of selected.entries()) {
    const t0 = Date.now();
    let timer;
    try {
      await Promise.race([
        t.fn(),
        new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`timed out after ${perTestTimeoutMs} ms`)), perTestTimeoutMs); }),
      ]);
      passed++;
      console.log(`ok ${i + 1} - ${t.name} (${Date.now() - t0} ms)`);
    } catch (e) {
      failed++;
      console.log(`not ok ${i + 1} - ${t.name}`);
      console.log(String(e && e.stack || e).split('\n').map((l) => `    ${l}`).join('\n'));
    } finally {
      clearTimeout(timer);
    }
  }
  console.log(`# ${selected.length} tests in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  console.log(`${passed} passed, ${failed} failed`);
  return failed === 0 && selected.length > 0;
}
