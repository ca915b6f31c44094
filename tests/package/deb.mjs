// package.deb: the Debian packages as a merchant uses them, from the installed files alone (issue 43,
// "Install in a minute"), the README's five commands on free ports: `make package`'s script builds
// them (lintian: no error, no warning), then
//   apt-get install ./paywasm*.deb  ->  the installed sandbox  ->  paywasm-merchant init --sandbox
//   (flags, no terminal)  ->  the gateway started as its unit  ->  the README's curl makes a QR
//   session, its hosted page serves the installed widget, the sandbox pays the code by itself (its
//   signed webhook verified by the installed CLI, the order paid in the app API)  ->  init's console
//   user logs in and sees the order  ->  apt-get purge, and nothing of the packages is left.
// Every step is timed and printed. It runs as root (it installs system-wide): otherwise it fails,
// it never skips. Two runs on one machine take turns (ctest's flock); a package this test did not
// install is never touched.
//   node tests/package/deb.mjs --build <native build dir> --out <packages dir>
// Environment: PAYWASM_SANDBOX, PAYWASM_CLI, PAYWASM_MERCHANT name the installed programs (the
// shared harnesses read them).
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

import { startSandbox } from '../server/harness.mjs';
import { Client } from '../gateway/console_client.mjs';
import { freePorts, tempDir, waitFor } from '../support/node.mjs';
import { readService, startUnit, systemdRuns } from './unit.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const { values: opts } = parseArgs({ options: { build: { type: 'string' }, out: { type: 'string' } } });
if (!opts.build || !opts.out) throw new Error('usage: deb.mjs --build <native build dir> --out <packages dir>');

const PACKAGES = ['paywasm-merchant', 'paywasm', 'paywasm-sandbox'];
const UNIT = '/usr/lib/systemd/system/paywasm-merchant.service';
const CONFIG = '/etc/paywasm/merchant.conf';
const MERCHANT = '/usr/bin/paywasm-merchant';
const WIDGET = '/usr/share/paywasm/widget';
// Written while the packages are installed by this test: a run killed midway leaves it, and the next
// run then purges what it finds (it never purges a paywasm it did not install).
const MARKER = '/run/paywasm-package-deb.installed';
const PASSWORD = 'package test console password';

const times = [];
async function step(what, fn) {
  const t0 = performance.now();
  process.stdout.write(`package.deb: ${what} ...\n`);
  const value = await fn();
  const s = ((performance.now() - t0) / 1000).toFixed(2);
  times.push([what, s]);
  process.stdout.write(`package.deb: ${what}: ok (${s} s)\n`);
  return value;
}
function check(ok, message) { if (!ok) throw new Error(message); }
// A command; throws with its output unless it exits 0.
function sh(cmd, args, { input, env, allowFail = false, timeout = 300000 } = {}) {
  const r = spawnSync(cmd, args, { input, encoding: 'utf8', timeout, env: { ...process.env, ...env }, maxBuffer: 64 << 20 });
  if (!allowFail && r.status !== 0) {
    throw new Error(`${cmd} ${args.join(' ')} exited ${r.status ?? r.signal}${r.error ? ` (${r.error.message})` : ''}\n${r.stdout}\n${r.stderr}`);
  }
  return r;
}
const installedState = (pkg) => sh('dpkg-query', ['-W', '-f=${db:Status-Abbrev}', pkg], { allowFail: true }).stdout.trim();
const anyInstalled = () => PACKAGES.filter((p) => /^[a-z]i|^[a-z]c|^[a-z][HUFWt]/.test(installedState(p)));
const userExists = (name) => sh('getent', ['passwd', name], { allowFail: true }).status === 0;
const groupExists = (name) => sh('getent', ['group', name], { allowFail: true }).status === 0;
const apt = (args) => sh('apt-get', ['-y', '-q', '-o', 'DPkg::Lock::Timeout=300', ...args], { env: { DEBIAN_FRONTEND: 'noninteractive' } });
const purge = () => apt(['purge', ...PACKAGES]);

async function main() {
  check(process.getuid() === 0,
    'package.deb must run as root: it installs the packages with apt-get and purges them after (run make test as root, or leave this suite out with ctest -LE package)');
  const tmp = tempDir('paywasm-deb-');
  let unit, sandbox;
  let installed = false;
  try {
    // ---- the machine before: no paywasm package but one a killed run of this test left ----
    await step('no paywasm package installed before the test', async () => {
      const found = anyInstalled();
      if (found.length && fs.existsSync(MARKER)) purge();
      else check(!found.length, `${found.join(', ')} installed on this machine, not by this test: it would purge them; remove them first (apt-get purge ${found.join(' ')})`);
      for (const p of ['/etc/paywasm', '/var/lib/paywasm', '/usr/share/paywasm']) check(!fs.existsSync(p), `${p} exists before the test`);
      check(!userExists('paywasm'), 'a user paywasm exists before the test');
    });

    // ---- build: make package's script (cpack, lintian) ----
    const debs = await step('scripts/package.sh (cpack, lintian)', async () => {
      const r = sh('bash', [path.join(root, 'scripts/package.sh'), opts.build, opts.out], { timeout: 480000 });
      process.stdout.write(r.stderr.split('\n').filter((l) => /^package:|^[EWIPNO]: /.test(l)).map((l) => `  ${l}\n`).join(''));
      const tags = r.stderr.split('\n').filter((l) => /^[EW]: /.test(l));
      check(tags.length === 0, `lintian reported errors or warnings:\n${tags.join('\n')}`);
      const files = r.stdout.trim().split('\n');
      check(files.length === 3 && files.every((f) => f.endsWith('.deb') && fs.existsSync(f)), `package.sh printed ${r.stdout}`);
      return files;
    });

    // ---- install ----
    await step(`apt-get install ${debs.map((d) => './' + path.basename(d)).join(' ')}`, async () => {
      fs.writeFileSync(MARKER, `${process.pid}\n`);
      installed = true;
      apt(['install', ...debs]);
      for (const p of PACKAGES) check(installedState(p) === 'ii', `${p} is ${installedState(p)} after apt-get install`);
      check(userExists('paywasm'), 'postinst made no paywasm user');
      const st = fs.statSync('/var/lib/paywasm');
      check((st.mode & 0o777) === 0o700 && st.uid === Number(sh('id', ['-u', 'paywasm']).stdout), '/var/lib/paywasm is not 0700 paywasm');
      check(fs.existsSync(path.join(WIDGET, 'paywasm.js')) && fs.existsSync(UNIT) && fs.existsSync(CONFIG), 'installed files missing');
    });
    const listed = Object.fromEntries(PACKAGES.map((p) => [p, sh('dpkg', ['-L', p]).stdout.trim().split('\n')]));

    // ---- the payment service: the installed sandbox ----
    sandbox = await step('paywasm-sandbox (installed) started', async () => {
      const site = path.join(tmp, 'empty-site');
      fs.mkdirSync(site);
      return startSandbox(['--data', path.join(tmp, 'sandbox'), '--speed', '30', '--site', site, '--dist', WIDGET]);
    });
    const m = sandbox.merchant;

    // ---- init and the unit (a bind that meets a port taken meanwhile: init --force on new ports) ----
    let gatewayPort, consolePort;
    for (let attempt = 1; ; attempt++) {
      gatewayPort = await freePorts(2);  // below the ephemeral range (tests/support/node.mjs)
      consolePort = gatewayPort + 1;
      await step(`paywasm-merchant init (ports ${gatewayPort}, ${consolePort})`, async () => {
        const r = sh(MERCHANT, ['init', '--sandbox', sandbox.base, '--shop-name', 'Package Test Bakery', '--no-web-site',
          '--listen', `127.0.0.1:${gatewayPort}`, '--console-listen', `127.0.0.1:${consolePort}`, '--console-user', 'owner',
          '--password-stdin', ...(attempt > 1 ? ['--force'] : [])], { input: PASSWORD + '\n' });
        process.stdout.write(r.stdout.split('\n').map((l) => (l ? `  ${l}\n` : '')).join(''));
        for (const name of ['merchant-token', 'app-secret', 'event-secret', 'metrics-token']) {
          const st = fs.statSync(`/etc/paywasm/secrets/${name}`);
          check((st.mode & 0o777) === 0o600 && st.uid === Number(sh('id', ['-u', 'paywasm']).stdout), `secrets/${name} is not 0600 paywasm`);
        }
        check(fs.statSync('/var/lib/paywasm/merchant.db').uid === Number(sh('id', ['-u', 'paywasm']).stdout), 'the database is not paywasm\'s');
        const checked = sh(MERCHANT, ['config', 'check']);
        const appSecret = fs.readFileSync('/etc/paywasm/secrets/app-secret', 'utf8').trim();
        check(!checked.stdout.includes(appSecret) && !checked.stdout.includes(m.merchantAccessToken), 'config check printed a secret');
        check(/^widget-dir = \/usr\/share\/paywasm\/widget/m.test(checked.stdout), `config check: ${checked.stdout}`);
        check(fs.readFileSync('/etc/paywasm/secrets/merchant-token', 'utf8').trim() === m.merchantAccessToken, 'not the sandbox\'s token');
        const hook = await (await fetch(`${sandbox.base}/__sandbox/webhook`)).json();
        check(hook.url === `http://127.0.0.1:${gatewayPort}/v1/webhooks`, `init pointed the sandbox's webhooks at ${hook.url}`);
      });
      unit = await step(`the unit started (${systemdRuns() ? 'systemctl start' : 'no systemd here: its ExecStart as its User, from the unit file'})`, async () => {
        const u = await startUnit(UNIT);
        let up;
        try {
          up = await waitFor(async () => {
            if (!u.running()) return 'exited';
            return (await fetch(`http://127.0.0.1:${gatewayPort}/healthz`)).status === 200 && 'up';
          }, { timeout: 60000, what: 'the gateway\'s /healthz' });
        } catch (e) {
          up = e.message;
        }
        if (up !== 'up') {
          await u.stop();
          throw new Error(`the unit did not start (${up}):\n${u.output()}`);
        }
        return u;
      }).catch((e) => {
        if (attempt < 3 && /in use/.test(e.message)) return null;
        throw e;
      });
      if (unit) break;
    }
    const gateway = `http://127.0.0.1:${gatewayPort}`;
    await step('the gateway runs as the unit\'s User', async () => {
      const user = readService(UNIT).get('User').at(-1);
      const uid = /^Uid:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${unit.pid()}/status`, 'utf8'));
      // Under setpriv the pid is the shell that execs the gateway: the same process.
      check(uid && Number(uid[1]) === Number(sh('id', ['-u', user]).stdout), `the gateway's uid is ${uid?.[1]}, not ${user}'s`);
      check(fs.readFileSync(`/proc/${unit.pid()}/cmdline`, 'utf8').split('\0')[0] === MERCHANT, 'the unit runs another program');
    });

    // ---- a payment: session (app API), hosted page, QR code, paid on the sandbox ----
    const appSecret = fs.readFileSync('/etc/paywasm/secrets/app-secret', 'utf8').trim();
    const app = async (method, p, body) => {
      const r = await fetch(gateway + p, { method, headers: { authorization: 'Bearer ' + appSecret, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await r.text();
      return { status: r.status, text, json: text ? JSON.parse(text) : null };
    };
    const offerId = 'pkg-' + crypto.randomBytes(4).toString('hex');
    const session = await step('a checkout session (the README\'s curl to the app API)', async () => {
      const body = JSON.stringify({ offerId, currency: 'USD', methods: ['qr'], customerInfo: { name: 'Ada', email: 'ada@example.com' },
        cart: [{ id: 'bread', name: 'Bread', price: 4, quantity: 2 }] });
      const r = sh('bash', ['-c', `curl -fsS -H "Authorization: Bearer $(cat /etc/paywasm/secrets/app-secret)" --json "$0" ${gateway}/v1/sessions`, body]);
      const json = JSON.parse(r.stdout);
      check(json.status === 'open' && json.hostedUrl, `POST /v1/sessions: ${r.stdout}`);
      return json;
    });
    await step('the hosted page serves the installed widget', async () => {
      const page = await fetch(session.hostedUrl);
      const html = await page.text();
      check(page.status === 200, `GET ${session.hostedUrl}: ${page.status}`);
      // The checkout page carries the widget's script inline (allowed by its hash) and fetches the
      // module beside its <base>: both the installed files.
      const inline = /<script>([^]*?)<\/script>/.exec(html)?.[1];
      check(inline, 'no inline widget script on the hosted page');
      check(Buffer.from(inline).equals(fs.readFileSync(path.join(WIDGET, 'paywasm.js'))), `the page's inline script is not ${WIDGET}/paywasm.js`);
      const base = /<base href="([^"]+)">/.exec(html)?.[1];
      check(base, 'no <base> for the widget\'s files');
      const wasm = Buffer.from(await (await fetch(new URL(base + 'paywasm.wasm', gateway))).arrayBuffer());
      check(wasm.equals(fs.readFileSync(path.join(WIDGET, 'paywasm.wasm'))), `${base}paywasm.wasm is not ${WIDGET}/paywasm.wasm`);
    });
    const qr = await step('a QR code (browser API) rendered by the installed CLI', async () => {
      const r = await fetch(`${gateway}/v1/checkout/${session.id}/qr`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      const json = await r.json();
      check(r.status === 200 && json.result?.id, `POST /qr: ${r.status} ${JSON.stringify(json)}`);
      const svg = sh('/usr/bin/paywasm', ['qr', json.result.meta.qrString]);
      check(svg.stdout.startsWith('<?xml') || svg.stdout.startsWith('<svg'), 'paywasm qr printed no SVG');
      return json.result;
    });
    await step('the sandbox pays the code by itself (10 -> 0 -> 1: 2 s and 10 s at --speed 30)', async () => {
      await waitFor(async () => (await (await fetch(`${sandbox.base}/__sandbox/transactions/${qr.id}`)).json()).status === 1,
        { timeout: 120000, interval: 250, what: 'the QR transaction at status 1' });
    });
    await step('the signed webhook reached the gateway and verifies with the installed CLI', async () => {
      const delivered = await waitFor(async () => {
        const log = await (await fetch(`${sandbox.base}/__sandbox/webhooks`)).json();
        return (log.webhooks ?? log).find((w) => w.transactionId === qr.id && w.status === 1 && w.state === 'delivered');
      }, { timeout: 60000, what: 'the webhook of status 1 delivered to the gateway' });
      check(delivered.lastHttpStatus === 200, `the gateway answered the webhook ${delivered.lastHttpStatus}`);
      const v = sh('/usr/bin/paywasm', ['verify-webhook', '--public-key', '/etc/paywasm/service-webhook-public.pem', '--merchant-id', m.merchantId, '-'],
        { input: typeof delivered.body === 'string' ? delivered.body : JSON.stringify(delivered.body) });
      check(JSON.parse(v.stdout).status === 1, `verify-webhook: ${v.stdout}`);
    });
    await step('the order reads paid (app API)', async () => {
      await waitFor(async () => (await app('GET', `/v1/sessions/${session.id}`)).json?.status === 'success',
        { timeout: 60000, what: 'the session at success' });
      const paid = await app('GET', `/v1/sessions?state=paid&q=${offerId}`);
      check(paid.json.sessions.some((s) => s.id === session.id && s.orderState === 'paid'), `not among the paid orders: ${paid.text}`);
    });

    // ---- the console: init's user logs in and sees the order; console-user beside the gateway ----
    await step('the console user logs in and sees the paid order', async () => {
      const c = new Client(`http://127.0.0.1:${consolePort}`);
      const login = await c.login('owner', PASSWORD);
      check(login.status === 303, `POST /login: ${login.status}`);
      const orders = await c.req('GET', '/orders?state=paid');
      check(orders.status === 200 && orders.text.includes(offerId), `the console's paid orders lack ${offerId}`);
      const list = sh('runuser', ['-u', 'paywasm', '--', MERCHANT, 'console-user', 'list']);
      check(/^owner\tcreated /m.test(list.stdout), `console-user list: ${list.stdout}`);
    });

    await step('the unit stopped (SIGTERM drains, exit 0)', async () => {
      const code = await unit.stop();
      unit = null;
      check(code === 0, `the gateway exited ${code}`);
    });
    await sandbox.stop();
    sandbox = null;

    // ---- purge: nothing left ----
    await step(`apt-get purge ${PACKAGES.join(' ')}`, async () => {
      purge();
      installed = false;
      fs.rmSync(MARKER, { force: true });
    });
    await step('nothing of the packages is left', async () => {
      for (const p of PACKAGES) check(installedState(p) === '', `${p} is still known to dpkg: ${installedState(p)}`);
      for (const p of ['/etc/paywasm', '/var/lib/paywasm', '/usr/share/paywasm', UNIT, ...PACKAGES.map((x) => `/usr/share/doc/${x}`)]) {
        check(!fs.existsSync(p), `${p} is left after purge`);
      }
      // Every file the packages listed (directories may be shared: /usr/bin; the packages' own are above).
      const left = Object.values(listed).flat().filter((f) => {
        try { return !fs.lstatSync(f).isDirectory(); } catch { return false; }
      });
      check(left.length === 0, `left after purge: ${left.join(' ')}`);
      check(!userExists('paywasm') && !groupExists('paywasm'), 'the paywasm user or group is left after purge');
    });
  } finally {
    await unit?.stop().catch(() => {});
    await sandbox?.stop().catch(() => {});
    if (installed) {
      try { purge(); fs.rmSync(MARKER, { force: true }); } catch (e) { process.stderr.write(`package.deb: cleanup purge failed: ${e.message}\n`); }
    }
    fs.rmSync(tmp, { recursive: true, force: true });
    process.stdout.write(`package.deb: times: ${times.map(([w, s]) => `${w}: ${s} s`).join('; ')}\n`);
  }
}

main().then(() => { process.stdout.write('package.deb: PASS\n'); }, (e) => {
  process.stderr.write(`package.deb: FAIL: ${e.stack ?? e}\n`);
  process.exitCode = 1;
});
