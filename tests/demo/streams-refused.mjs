// The widget when the gateway refuses its status stream: scripts/demo.sh with the gateway allowing
// one stream per client address (--max-streams-per-client 1), that one stream held by this test,
// so the widget's EventSource gets 429. The widget then polls the JSON status with back-off and
// still takes a payment to success (paywasm-complete).
//   node --test-reporter=spec tests/demo/streams-refused.mjs   (the environment of tests/demo/run.mjs)
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { useBrowser, waitEvent } from '../browser/lib.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'paywasm-refused-'));

async function freeTriple() {
  const free = (port) => new Promise((resolve) => {
    const s = net.createServer().once('error', () => resolve(false)).listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
  for (let tries = 0; tries < 50; tries++) {
    const base = 20000 + Math.floor(Math.random() * 40000);
    if (await free(base) && await free(base + 1) && await free(base + 2)) return base;
  }
  throw new Error('no three free ports in a row');
}

const chromium = useBrowser();
let demo, SHOP, GATEWAY;
before(async () => {
  const port = await freeTriple();
  demo = spawn('bash', [path.join(root, 'scripts/demo.sh')], {
    env: { ...process.env, PORT: String(port), SPEED: '30', BANK_DAY: '1', PAYWASM_MERCHANT_ARGS: '--max-streams-per-client 1',
      PAYWASM_SANDBOX_DATA: path.join(tmp, 'sandbox'), PAYWASM_DEMO_DIR: path.join(tmp, 'demo') },
    stdio: ['ignore', 'pipe', 'pipe'], detached: true,
  });
  let output = '';
  demo.stdout.on('data', (d) => { output += d; });
  demo.stderr.on('data', (d) => { output += d; });
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('demo did not start:\n' + output)), 90000);
    const poll = setInterval(() => {
      if (output.includes('paywasm demo is running')) { clearInterval(poll); clearTimeout(timer); resolve(); }
    }, 100);
    demo.on('exit', (code) => { clearInterval(poll); clearTimeout(timer); reject(new Error(`demo exited (${code}):\n${output}`)); });
  });
  SHOP = `http://127.0.0.1:${port}`;
  GATEWAY = `http://127.0.0.1:${port + 2}`;
});
after(async () => {
  if (demo) {
    try { process.kill(-demo.pid, 'SIGTERM'); } catch { /* gone */ }
    await new Promise((resolve) => { if (demo.exitCode !== null || demo.signalCode !== null) resolve(); else demo.on('exit', resolve); });
  }
  fs.rmSync(tmp, { recursive: true, force: true });
});

test('a refused stream (429): the widget polls the status and completes the payment', { timeout: 60000 }, async () => {
  const { context, page, errors } = await chromium.newPage({ locale: 'en-US' });
  await page.addInitScript(() => {
    window.__events = [];
    for (const type of ['paywasm-ready', 'paywasm-status', 'paywasm-complete', 'paywasm-error']) {
      document.addEventListener(type, (e) => window.__events.push({ type, code: e.detail.status && e.detail.status.code,
        id: e.detail.transaction && e.detail.transaction.id }));
    }
  });
  const streams = [];
  page.on('response', (r) => { if (r.url().endsWith('/status')) streams.push({ status: r.status(), type: r.headers()['content-type'] }); });
  await page.goto(SHOP + '/');
  await page.waitForFunction(() => document.querySelector('paywasm-checkout').offerId, null, { timeout: 20000 });
  const sessionUrl = await page.evaluate(() => new URL(document.querySelector('paywasm-checkout').getAttribute('session-url'), document.baseURI).href);
  // This test's own stream takes the gateway's one stream slot for 127.0.0.1.
  const held = http.get(sessionUrl + '/status', { headers: { accept: 'text/event-stream' } });
  held.on('error', () => {});
  const heldStatus = await new Promise((resolve) => held.on('response', (res) => resolve(res.statusCode)));
  assert.equal(heldStatus, 200);
  assert.ok(sessionUrl.startsWith(GATEWAY), sessionUrl);

  await page.locator('paywasm-checkout button[data-key=pay-exchange]').click();
  const first = (await waitEvent(page, 'paywasm-status', { timeout: 20000 })).at(-1);
  await fetch(`${SHOP}/__sandbox/transactions/${encodeURIComponent(first.id)}/advance`, { method: 'POST',
    headers: { 'content-type': 'application/json' }, body: '{}' });
  const complete = (await waitEvent(page, 'paywasm-complete', { timeout: 40000 })).at(-1);
  assert.equal(complete.code, 1, 'success');
  assert.ok(streams.some((s) => s.status === 429), `the stream was refused: ${JSON.stringify(streams)}`);
  assert.ok(streams.some((s) => s.status === 200 && /json/.test(s.type || '')), `the JSON status was polled: ${JSON.stringify(streams)}`);
  assert.equal(errors.length, 0, `page errors: ${errors.join('; ')}`);
  held.destroy();
  await context.close();
});
