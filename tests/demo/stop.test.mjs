// `make demo` stops on Ctrl-C whatever shell launched it, and prints no noise while starting:
// scripts/demo.sh launched by bash and by sh (dash on Debian) as `make demo` typed in that shell
// would run it, then SIGINT to the whole process group, as a terminal's Ctrl-C sends it. The
// programs the script started in the background ignore SIGINT (no job control), so the script must
// stop them: afterwards the launcher has exited 0 and the sandbox, gateway and shop ports are closed.
// Also SIGTERM sent to the script alone (an IDE's stop button).
//   node --test-reporter=spec tests/demo/stop.test.mjs   (the environment of tests/demo/run.mjs)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';

import { waitFor } from '../support/node.mjs';
import { startDemo } from './start.mjs';

// True while something listens on `url`'s port.
const listening = (url) => new Promise((resolve) => {
  const u = new URL(url);
  const s = net.connect(Number(u.port), u.hostname);
  s.on('connect', () => { s.destroy(); resolve(true); });
  s.on('error', () => resolve(false));
});

// True while any process of process group `pgid` exists.
const groupAlive = (pgid) => {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (e) {
    return e.code !== 'ESRCH';
  }
};

const exited = (proc) => new Promise((resolve) => {
  if (proc.exitCode !== null || proc.signalCode !== null) resolve({ code: proc.exitCode, signal: proc.signalCode });
  else proc.on('exit', (code, signal) => resolve({ code, signal }));
});

// What a terminal shows while the demo starts: no grep complaint about a log not yet written.
const assertQuiet = (output) => assert.doesNotMatch(output, /grep:|No such file or directory/, output);

for (const shell of ['bash', 'sh']) {
  test(`launched by ${shell}: Ctrl-C (SIGINT to the process group) stops everything`, { timeout: 180000 }, async () => {
    const demo = await startDemo({}, { shell });
    const urls = [demo.shop, demo.gateway, demo.shop.replace(/:(\d+)$/, (_, p) => `:${Number(p) + 1}`)];
    try {
      assertQuiet(demo.output());
      for (const url of urls) assert.ok(await listening(url), `${url} serves`);
      process.kill(-demo.proc.pid, 'SIGINT');
      // bash waits for the script and exits 0 with it; dash dies of the SIGINT at once, as it does
      // for any command: either way nothing of the group may be left once the script is done.
      const exit = await exited(demo.proc);
      assert.ok(exit.code === 0 || exit.signal === 'SIGINT', JSON.stringify(exit));
      await waitFor(() => !groupAlive(demo.proc.pid), { timeout: 30000, what: 'every process of the demo to exit' });
      for (const url of urls) assert.equal(await listening(url), false, `${url} is closed after Ctrl-C`);
      assert.match(demo.output(), /paywasm-sandbox: stopped/);
      assert.match(demo.output(), /paywasm-merchant: stopped/);
    } finally {
      await demo.stop();
    }
  });
}

test('SIGTERM to the script alone (an IDE\'s stop button) stops everything', { timeout: 180000 }, async () => {
  const demo = await startDemo();
  const urls = [demo.shop, demo.gateway];
  try {
    assertQuiet(demo.output());
    process.kill(demo.proc.pid, 'SIGTERM');
    assert.deepEqual(await exited(demo.proc), { code: 0, signal: null }, demo.output());
    await waitFor(() => !groupAlive(demo.proc.pid), { timeout: 30000, what: 'every process of the demo to exit' });
    for (const url of urls) assert.equal(await listening(url), false, `${url} is closed`);
  } finally {
    await demo.stop();
  }
});
