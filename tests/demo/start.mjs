// `make demo`'s script (scripts/demo.sh: sandbox, gateway, shop app) on three consecutive free
// ports, in its own process group and temporary directory, for the demo tests.
//   const demo = await startDemo({ PAYWASM_MERCHANT_ARGS: '...' });  demo.shop, demo.gateway; await demo.stop()
//   startDemo(env, { shell: 'sh' }): the script launched as `sh -c 'bash scripts/demo.sh'` (as a
//   `make demo` typed in dash); demo.proc is the launcher (its pid is the process group's),
//   demo.output() what the script printed so far.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { freePorts, tempDir } from '../support/node.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

// Four consecutive free ports: the shop, the sandbox (+1), the gateway (+2) and its console (+3).
const freeTriple = () => freePorts(4);

// Resolves once the demo says it is running (90 s at most); `env` is added to the script's.
export async function startDemo(env = {}, options = {}) {
  // Another process may still bind one of the four ports first (they are free, not held): the demo
  // then stops with "port in use", and a new set is tried (3 times at most).
  for (let attempt = 1; ; attempt++) {
    try {
      return await startDemoOnce(env, options);
    } catch (e) {
      if (attempt >= 3 || !/EADDRINUSE|port in use/.test(e.message)) throw e;
    }
  }
}

async function startDemoOnce(env, { shell } = {}) {
  const tmp = tempDir('paywasm-demo-');
  const port = await freeTriple();
  const script = path.join(root, 'scripts/demo.sh');
  const proc = spawn(shell ?? 'bash', shell ? ['-c', `bash '${script}'`] : [script], {
    env: { ...process.env, PORT: String(port), SPEED: '30', BANK_DAY: '1',
      PAYWASM_SANDBOX_DATA: path.join(tmp, 'sandbox'), PAYWASM_DEMO_DIR: path.join(tmp, 'demo'), ...env },
    stdio: ['ignore', 'pipe', 'pipe'], detached: true,
  });
  const stop = async () => {
    try { process.kill(-proc.pid, 'SIGTERM'); } catch { /* gone */ }
    await new Promise((resolve) => { if (proc.exitCode !== null || proc.signalCode !== null) resolve(); else proc.on('exit', resolve); });
    fs.rmSync(tmp, { recursive: true, force: true });
  };
  let output = '';
  proc.stdout.on('data', (d) => { output += d; });
  proc.stderr.on('data', (d) => { output += d; });
  try {
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('demo did not start:\n' + output)), 90000);
      const poll = setInterval(() => {
        if (output.includes('paywasm demo is running')) { clearInterval(poll); clearTimeout(timer); resolve(); }
      }, 100);
      proc.on('exit', (code) => { clearInterval(poll); clearTimeout(timer); reject(new Error(`demo exited (${code}):\n${output}`)); });
    });
  } catch (e) {
    await stop();
    throw e;
  }
  return { shop: `http://127.0.0.1:${port}`, gateway: `http://127.0.0.1:${port + 2}`, console: `http://127.0.0.1:${port + 3}`, stop, proc, output: () => output };
}
