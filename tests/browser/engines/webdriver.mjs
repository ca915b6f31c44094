// A small W3C WebDriver client over Node's fetch, and the driver process it talks to: what the
// WebKit engines need (WebKitWebDriver, WPEWebDriver). Used by webkit.mjs and wpe.mjs; each page is
// a session of its own, so a fresh browser with nothing cached or stored.
import { spawn } from 'node:child_process';
import { freePort, sleep, waitFor } from '../../support/node.mjs';

// Starts `command args` (its own process group) and resolves { proc, output(), stop() }; `ready`
// polls until it is up (or fails after 60 s, a deadline for a busy machine, with what it printed).
export async function startProcess(command, args, { env, ready }) {
  const proc = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  proc.stdout.on('data', (d) => { output += d; });
  proc.stderr.on('data', (d) => { output += d; });
  const gone = () => proc.exitCode !== null || proc.signalCode !== null;
  const stop = async () => {
    if (gone()) return;
    try { process.kill(-proc.pid, 'SIGTERM'); } catch (e) { /* gone */ }
    // The driver's exit, waited for (not a fixed grace time); one that will not go is killed.
    const killed = await waitFor(gone, { timeout: 3000, interval: 50, what: `${command} to exit` }).then(() => true, () => false);
    if (!killed) try { process.kill(-proc.pid, 'SIGKILL'); } catch (e) { /* gone */ }
  };
  for (const end = Date.now() + 60000; ;) {
    if (proc.exitCode !== null) throw new Error(`${command} exited (${proc.exitCode}): ${output}`);
    if (await ready().catch(() => false)) break;
    if (Date.now() > end) {
      await stop();
      throw new Error(`${command} did not start in 60 s: ${output}`);
    }
    await sleep(100);
  }
  return { proc, output: () => output, stop };
}

// Starts the WebDriver server `binary` on a free port (with `env`, e.g. DISPLAY) and returns
// { url, version (the driver's /status), stop() }.
export async function startDriver(binary, env = {}) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const driver = await startProcess(binary, [`--port=${port}`], {
    env, ready: async () => (await fetch(`${url}/status`)).ok,
  });
  return { url, stop: driver.stop, output: driver.output };
}

// Pages on WebDriver servers of `binary` that take one session each (WebKitWebDriver, WPEWebDriver):
// a page opens on an idle server, or on one more started for it, so that pages can be open side by
// side as in the other engines. Returns { newPage(), close() }.
// Pages on WebDriver servers of `binary` that take one session each (WebKitWebDriver, WPEWebDriver):
// a page opens on an idle server, or on one more started for it, so that pages can be open side by
// side as in the other engines. Returns { newPage(), close() }.
// A session that does not open within SESSION_TIMEOUT_MS (WebKitWebDriver under load, 1 in ~20
// runs beside make test-stress: POST /session never answered, its MiniBrowser never up) takes its
// driver with it (process group killed) and is asked of a fresh driver, twice at most: the browser
// never started, so nothing of the test ran in it.
const SESSION_TIMEOUT_MS = 25000;
export function driverPool(binary, env, capabilities) {
  const drivers = [];  // { driver, busy }
  const slotFor = async () => {
    let slot = drivers.find((d) => !d.busy);
    if (!slot) {
      slot = { driver: await startDriver(binary, env), busy: false };
      drivers.push(slot);
    }
    slot.busy = true;
    return slot;
  };
  return {
    async newPage() {
      for (let attempt = 1; ; attempt++) {
        const slot = await slotFor();
        try {
          const page = await webdriverPage(slot.driver.url, capabilities, { sessionTimeoutMs: SESSION_TIMEOUT_MS });
          const close = page.close;
          page.close = async () => {
            await close();
            slot.busy = false;
          };
          return page;
        } catch (e) {
          if (e.name !== 'TimeoutError' || attempt === 3) {
            slot.busy = false;
            throw e;
          }
          console.error(`${binary}: no session in ${SESSION_TIMEOUT_MS} ms (attempt ${attempt}); a fresh driver. It printed: ${slot.driver.output().slice(-2000)}`);
          drivers.splice(drivers.indexOf(slot), 1);
          await slot.driver.stop();
        }
      }
    },
    close: () => Promise.all(drivers.map((d) => d.driver.stop())),
  };
}

// One W3C command; resolves its `value`, throws with the driver's error and message.
// No command takes more than COMMAND_TIMEOUT_MS: a driver that hangs (a session that never starts)
// fails the command instead of the whole run.
const COMMAND_TIMEOUT_MS = 90000;
export async function command(base, method, path, body, timeoutMs = COMMAND_TIMEOUT_MS) {
  const res = await fetch(base + path, {
    method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const json = await res.json().catch(() => ({ value: { error: `HTTP ${res.status}`, message: 'not JSON' } }));
  if (!res.ok) throw new Error(`WebDriver ${method} ${path}: ${json.value?.error}: ${json.value?.message}`);
  return json.value;
}

const ELEMENT = 'element-6066-11e4-a52e-4f735466cecf';
const KEYS = { Tab: '\uE004', Enter: '\uE007', Space: ' ', ArrowDown: '\uE015', ArrowUp: '\uE013', Escape: '\uE00C' };

// A page of the engine interface (engines/index.mjs) on a new WebDriver session with
// `capabilities`. Scripts run with the W3C "execute script" command, which awaits a returned
// promise; an element in the result comes back as a reference (shadow DOM included).
export async function webdriverPage(driverUrl, capabilities, { timeouts = { script: 30000, pageLoad: 30000 }, sessionTimeoutMs } = {}) {
  const created = await command(driverUrl, 'POST', '/session', { capabilities: { alwaysMatch: capabilities } }, sessionTimeoutMs);
  const base = `${driverUrl}/session/${created.sessionId}`;
  await command(base, 'POST', '/timeouts', timeouts);
  const run = (fn, arg) => command(base, 'POST', '/execute/sync', {
    script: `return (${fn}).call(null, arguments[0]);`, args: [arg === undefined ? null : arg],
  });
  return {
    capabilities: created.capabilities,
    goto: (url) => command(base, 'POST', '/url', { url }),
    run,
    async click(fn, arg) {
      const el = await run(fn, arg);
      if (!el || !el[ELEMENT]) throw new Error(`click: no element from ${String(fn).slice(0, 120)}`);
      await command(base, 'POST', `/element/${el[ELEMENT]}/click`, {});
    },
    async pressAcross(fn, arg, during, duringArg) {
      const el = await run(fn, arg);
      if (!el || !el[ELEMENT]) throw new Error(`pressAcross: no element from ${String(fn).slice(0, 120)}`);
      const mouse = (actions) => command(base, 'POST', '/actions',
        { actions: [{ type: 'pointer', id: 'mouse', parameters: { pointerType: 'mouse' }, actions }] });
      await mouse([{ type: 'pointerMove', origin: el, x: 0, y: 0 }, { type: 'pointerDown', button: 0 }]);
      await run(during, duringArg);
      await mouse([{ type: 'pointerUp', button: 0 }]);
      await command(base, 'DELETE', '/actions').catch(() => {});
    },
    async press(...keys) {
      const actions = [];
      for (const k of keys) {
        for (const c of KEYS[k] ? [KEYS[k]] : [...k]) actions.push({ type: 'keyDown', value: c }, { type: 'keyUp', value: c });
      }
      await command(base, 'POST', '/actions', { actions: [{ type: 'key', id: 'keyboard', actions }] });
      await command(base, 'DELETE', '/actions').catch(() => {});
    },
    setWindowSize: (width, height) => command(base, 'POST', '/window/rect', { width, height }).catch(() => {}),
    async screenshot() {
      return Buffer.from(await command(base, 'GET', '/screenshot'), 'base64');
    },
    close: () => command(base, 'DELETE', '').then(() => {}, () => {}),
  };
}
