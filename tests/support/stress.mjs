// A load that stands in for a shared build machine's neighbours, for `make test-repeat STRESS=n`
// and CI's second pass: n busy CPU loops, plus one churner that takes memory, disk and sockets the
// way a compiler or a second browser run does (allocates and touches 256 MiB and lets it go; writes,
// fsyncs and reads back a 32 MiB file; opens and closes 200 loopback connections), over and over.
//   node tests/support/stress.mjs start <n> <pidfile>   starts them detached, writes their PIDs
//   node tests/support/stress.mjs stop <pidfile>        ends them by PID (idempotent)
// The children are their own process group leaders: stop kills each group, so nothing outlives it.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const [, self, verb, ...args] = process.argv;

function start(n, pidfile) {
  if (!(Number.isInteger(n) && n >= 0 && n <= 64)) throw new Error(`stress: n must be 0..64, not ${args[0]}`);
  stop(pidfile);
  const pids = [];
  const detached = (argv) => {
    const child = spawn(process.execPath, [self, ...argv], { detached: true, stdio: 'ignore' });
    child.unref();
    pids.push(child.pid);
  };
  for (let i = 0; i < n; i++) detached(['cpu']);
  if (n > 0) detached(['churn']);
  fs.writeFileSync(pidfile, pids.join('\n') + '\n');
  console.log(`stress: ${n} busy loop(s) and one memory/disk/socket churner (PIDs ${pids.join(' ')}; ${pidfile})`);
}

function stop(pidfile) {
  if (!fs.existsSync(pidfile)) return;
  const pids = fs.readFileSync(pidfile, 'utf8').split(/\s+/).filter(Boolean).map(Number);
  for (const pid of pids) {
    for (const target of [-pid, pid]) {
      try { process.kill(target, 'SIGKILL'); } catch { /* already gone */ }
    }
  }
  fs.rmSync(pidfile, { force: true });
  if (pids.length) console.log(`stress: ended PIDs ${pids.join(' ')}`);
}

function cpu() {
  for (;;) {
    let x = 0;
    for (let i = 0; i < 1e7; i++) x = (x * 31 + i) | 0;
    if (x === 42) console.log('');  // keeps the loop from being optimised away
  }
}

async function churn() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paywasm-stress-'));
  const file = path.join(dir, 'churn.bin');
  process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  const server = net.createServer((s) => s.on('error', () => {}).end('x'));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = server.address().port;
  const block = Buffer.alloc(1 << 20, 7);
  for (;;) {
    // Memory: 256 MiB touched page by page, then dropped.
    const held = [];
    for (let i = 0; i < 256; i++) held.push(Buffer.alloc(1 << 20, i));
    held.length = 0;
    // Disk: 32 MiB written and synced, read back, removed.
    const fd = fs.openSync(file, 'w');
    for (let i = 0; i < 32; i++) fs.writeSync(fd, block);
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fs.readFileSync(file);
    fs.rmSync(file);
    // Sockets: 200 loopback connections opened and closed.
    await Promise.all(Array.from({ length: 200 }, () => new Promise((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      s.on('data', () => s.destroy());
      s.on('close', resolve);
      s.on('error', resolve);
    })));
  }
}

switch (verb) {
  case 'start': start(Number(args[0]), args[1]); break;
  case 'stop': stop(args[0]); break;
  case 'cpu': cpu(); break;
  case 'churn': await churn(); break;
  default:
    console.error('usage: node tests/support/stress.mjs start <n> <pidfile> | stop <pidfile>');
    process.exit(2);
}
