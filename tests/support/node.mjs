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

// The first port of the kernel's ephemeral range (ports given to bind(0) and to outgoing
// connections): a busy machine takes ports from that range at any moment.
const EPHEMERAL_LOW = (() => {
  try {
    return Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32768;
  } catch {
    return 32768;
  }
})();

// A port on 127.0.0.1 kept listening until release(): nothing else can bind it meanwhile. It is
// below the kernel's ephemeral range (freePorts() says why), so that nothing takes it between the
// release and the bind of the server it is for either.
export async function holdPort() {
  for (let tries = 0; tries < 50; tries++) {
    const port = 10000 + Math.floor(Math.random() * (Math.max(12000, EPHEMERAL_LOW - 1) - 10000));
    const s = net.createServer();
    const held = await new Promise((resolve) => s.once('error', () => resolve(false)).listen(port, '127.0.0.1', () => resolve(true)));
    if (held) return { port, release: () => new Promise((resolve) => s.close(resolve)) };
  }
  throw new Error(`no free port below ${EPHEMERAL_LOW}`);
}

// Whether `port` on 127.0.0.1 can be bound now (tried, and closed again).
export const portFree = (port) => new Promise((resolve) => {
  const s = net.createServer().once('error', () => resolve(false)).listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
});

// `count` consecutive TCP ports on 127.0.0.1, free when checked, below the ephemeral range: a port
// found by bind(0) and closed again could be taken by any outgoing connection before the server it
// is for binds it (make test-stress's socket churner did); one at random below that range can only
// be taken by another test's pick. Returns the first.
export async function freePorts(count) {
  const top = Math.max(12000, EPHEMERAL_LOW - count);
  for (let tries = 0; tries < 50; tries++) {
    const base = 10000 + Math.floor(Math.random() * (top - 10000));
    let free = true;
    for (let i = 0; i < count && free; i++) free = await portFree(base + i);
    if (free) return base;
  }
  throw new Error(`no ${count} free ports in a row below ${EPHEMERAL_LOW}`);
}
export const freePort = () => freePorts(1);

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
