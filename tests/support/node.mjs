// The small helpers every Node test file needs, defined once: a free port, a temporary directory,
// waiting for a condition (never a fixed sleep in a test's assertion path), and a plain delay for
// pacing loads. Imported by tests/*, bench/* and the browser suites; nothing here starts a server.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

// Resolves after `ms` milliseconds. For pacing (a load's rate, a poll's interval), not for waiting
// on a state: use waitFor() for that.
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Resolves true once `promise` settles, or false after max(`ms`, WAIT_FLOOR_MS): a deadline for
// something that must end (a process's exit, streams that close), never a pause.
export async function settlesWithin(promise, ms) {
  let timer;
  const deadline = new Promise((resolve) => { timer = setTimeout(() => resolve(false), Math.max(ms, WAIT_FLOOR_MS)); });
  try {
    return await Promise.race([promise.then(() => true, () => true), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

// A new empty directory under the system's temporary folder, named `<prefix>XXXXXX`.
export function tempDir(prefix = 'paywasm-') {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

// A port on 127.0.0.1 kept listening until release(): servers started meanwhile with port 0 cannot
// be given it.
export async function holdPort() {
  const s = net.createServer();
  await new Promise((resolve, reject) => s.once('error', reject).listen(0, '127.0.0.1', resolve));
  return { port: s.address().port, release: () => new Promise((resolve) => s.close(resolve)) };
}

// A free TCP port on 127.0.0.1 (closed again before it is returned: another bind may take it).
export async function freePort() {
  const held = await holdPort();
  await held.release();
  return held.port;
}

// A wait's deadline says when to give up on a condition that will not come (a broken run), never
// how long a passing run may take: every waitFor() waits at least WAIT_FLOOR_MS (30 s, or
// PAYWASM_WAIT_FLOOR_MS), so a busy machine makes a passing run slower, never red.
export const WAIT_FLOOR_MS = Number(process.env.PAYWASM_WAIT_FLOOR_MS || 30000);

// Polls `condition` (sync or async) every `interval` ms until it returns a truthy value, which is
// resolved; rejects with `what` and the last error after max(`timeout`, WAIT_FLOOR_MS) ms. Also
// waitFor(condition, timeoutMs, what), the older suites' form. The poll-until helper of the suites:
// a test waits for a state through it, never with a fixed sleep.
export async function waitFor(condition, options = {}, whatArg = undefined) {
  const { timeout: asked = 10000, interval = 25, what = whatArg ?? 'condition' } =
    typeof options === 'number' ? { timeout: options } : options;
  const timeout = Math.max(asked, WAIT_FLOOR_MS);
  const deadline = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      const value = await condition();
      if (value) return value;
    } catch (e) {
      last = e;
    }
    if (Date.now() >= deadline) {
      throw new Error(`timed out after ${timeout} ms waiting for ${what}${last ? `: ${last.message}` : ''}`);
    }
    await sleep(interval);
  }
}
