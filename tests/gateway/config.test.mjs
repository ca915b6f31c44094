// Configuring and operating the gateway without reading its source (issue 43; docs/merchant.md
// "Configuration"): one configuration file read by the options' own parser (the command line over
// the environment over the file, every bad line named, no secret value in it, `config check`
// masking secrets); `init` (files 0600, no second run without --force, a shop without a web site);
// `console-user add|passwd|unlock|sessions|list|remove` while the gateway runs, on SQLite and on a real
// PostgreSQL; SIGHUP leaves the gateway running.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import {
  GATEWAY, freePort, gw, startGateway, startPostgres, startSandbox, tempDir, waitFor,
} from './harness.mjs';
import { Client as ConsoleClient } from './console_client.mjs';

const PASSWORD = 'correct horse battery staple';
const ADDRESS = { firstname: 'Ada', lastname: 'Lovelace', email: 'ada@example.com', country: 'GB' };
let sb;
before(async () => { sb = await startSandbox(); });
after(async () => { await sb?.stop(); });

const run = (args, { input = '', env = {} } = {}) =>
  spawnSync(GATEWAY, args, { input, encoding: 'utf8', timeout: 30000, env: { ...cleanEnv(), ...env } });
// The gateway's variables of this process removed: each test says which it sets.
function cleanEnv() {
  const env = { ...process.env };
  for (const k of ['PAYWASM_DB', 'PAYWASM_MERCHANT_TOKEN', 'PAYWASM_APP_SECRET', 'PAYWASM_EVENT_SECRET', 'PAYWASM_METRICS_TOKEN']) delete env[k];
  return env;
}
function secretFile(dir, name, value, mode = 0o600) {
  const f = path.join(dir, name);
  fs.writeFileSync(f, value + '\n', { mode });
  fs.chmodSync(f, mode);
  return f;
}
// A configuration for the sandbox, its secrets in 0600 files; `more`: extra lines.
function writeConfig(dir, more = '') {
  fs.writeFileSync(path.join(dir, 'merchant.pem'), sb.merchant.publicKey);
  fs.writeFileSync(path.join(dir, 'webhook.pem'), sb.merchant.webhookPublicKey);
  const file = path.join(dir, 'merchant.conf');
  fs.writeFileSync(file, [
    '# a comment', '',
    `service-url = ${sb.base}/api`,
    `merchant-id = ${sb.merchant.merchantId}`,
    `merchant-public-key = ${dir}/merchant.pem`,
    `webhook-public-key = ${dir}/webhook.pem`,
    `merchant-token-file = ${secretFile(dir, 'merchant-token', sb.merchant.merchantAccessToken)}`,
    `app-secret-file = ${secretFile(dir, 'app-secret', 'file-app-secret-0123456789')}`,
    `db = sqlite:${dir}/file.db`,
    'shop-name = "  The File Shop  "',
    'shop-colour = #1a56db',
    more,
  ].join('\n'));
  return file;
}

describe('the configuration file', () => {
  test('the command line over the environment over the file; config check masks the secrets', () => {
    const dir = tempDir('pwm-conf-');
    const file = writeConfig(dir, 'listen = 127.0.0.1:0\n');
    const r = run(['config', 'check', '--config', file, '--shop-name', 'The Flag Shop'],
      { env: { PAYWASM_DB: `sqlite:${dir}/env.db`, PAYWASM_APP_SECRET: 'env-app-secret-0123456789' } });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^shop-name = The Flag Shop {4}# command line$/m);
    assert.match(r.stdout, new RegExp(`^db = sqlite:${dir}/env\\.db {4}# environment PAYWASM_DB$`, 'm'));
    assert.match(r.stdout, /^app-secret = \*{8} {4}# environment PAYWASM_APP_SECRET$/m);
    assert.match(r.stdout, new RegExp(`^merchant-id = ${sb.merchant.merchantId} {4}# ${file}:4$`, 'm'));
    assert.match(r.stdout, /^shop-colour = #1a56db {4}# .*:11$/m, 'a # inside a value is the value');
    assert.doesNotMatch(r.stdout, /^app-secret-file/m, 'the environment replaced the file\'s secret');
    for (const secret of ['env-app-secret', 'file-app-secret', sb.merchant.merchantAccessToken]) {
      assert.ok(!r.stdout.includes(secret), `${secret} is not printed`);
    }
    // Without the environment, the file's own: quoted spaces kept.
    const plain = run(['config', 'check', '--config', file]);
    assert.equal(plain.status, 0, plain.stderr);
    assert.match(plain.stdout, /^shop-name = {3}The File Shop {2} {4}# /m);
    assert.match(plain.stdout, /^app-secret-file = .*\(its secret: \*{8}\) {4}# .*:8$/m);
  });

  test('the gateway runs from the file alone, the environment and a flag over it', async () => {
    const dir = tempDir('pwm-conf-');
    const file = writeConfig(dir);
    const port = await freePort();
    const proc = spawn(GATEWAY, ['--config', file, '--listen', `127.0.0.1:${port}`], {
      stdio: ['ignore', 'pipe', 'pipe'], env: { ...cleanEnv(), PAYWASM_DB: `sqlite:${dir}/env.db` } });
    let stderr = '';
    proc.stderr.on('data', (d) => { stderr += d; });
    const exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
    const g = { base: `http://127.0.0.1:${port}` };
    try {
      await waitFor(async () => (await gw(g, 'GET', '/healthz').catch(() => ({}))).status === 200, 15000, 'the gateway: ' + stderr);
      // The file's app secret (no variable for it): a session is made with it, refused without.
      const body = { offerId: 'conf-1', currency: 'USD', shippingAddress: ADDRESS, cart: [{ id: 'x', name: 'X', price: 5, quantity: 1 }] };
      const made = await gw(g, 'POST', '/v1/sessions', { token: 'file-app-secret-0123456789', body });
      assert.equal(made.status, 201, made.text);
      assert.equal((await gw(g, 'POST', '/v1/sessions', { app: true, body })).status, 401);
      assert.ok(fs.existsSync(`${dir}/env.db`) && !fs.existsSync(`${dir}/file.db`), 'PAYWASM_DB over the file\'s db');
      // SIGHUP reloads nothing and ends nothing: the gateway answers on, and says so.
      proc.kill('SIGHUP');
      await waitFor(() => /SIGHUP: the configuration is read at start only/.test(stderr), 10000, 'the SIGHUP line');
      assert.equal((await gw(g, 'GET', '/healthz')).status, 200);
    } finally {
      proc.kill('SIGTERM');
    }
    assert.deepEqual(await exited, { code: 0, signal: null }, stderr);
  });

  test('each bad line is refused with the file and its line', () => {
    const dir = tempDir('pwm-conf-');
    const file = writeConfig(dir);
    const cases = [
      ['session-ttl = 5', /:13: --session-ttl must be a whole number from 60/],
      ['app-secret = hunter2hunter2hunter2', /:13: app-secret: a secret is never written in the configuration file.*app-secret-file/],
      ['merchant-token = sbx_x', /:13: merchant-token: a secret is never written/],
      ['no-such-option = 1', /:13: unknown option --no-such-option/],
      ['just words', /:13: expected `name = value`/],
      ['verbose = yes', /:13: verbose is a flag: true or false/],
      ['merchant-id = again', /:13: merchant-id is set again \(first at .*:4\)/],
      ['shop-origin = https://shop.example/', /:13: --shop-origin is an origin/],
      [`shop-logo = ${dir}/missing.png`, /:13: --shop-logo: cannot read/],
      ['config = /etc/other.conf', /:13: config: the configuration file cannot name another one/],
    ];
    for (const [line, expected] of cases) {
      const text = fs.readFileSync(file, 'utf8').split('\n').slice(0, 12).join('\n') + '\n' + line + '\n';
      fs.writeFileSync(file, text);
      const r = run(['--config', file]);
      assert.equal(r.status, 2, line);
      assert.match(r.stderr, new RegExp(file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + expected.source), line);
    }
    // --methods is read by the core's one method-list parser: an unknown name, or one named twice
    // (taken before, and stored twice in every session's methods), is refused with the reason.
    for (const [line, expected] of [['methods = exchange,card', /:13: --methods takes a list of exchange, bank, qr: 'card' is not exchange, bank or qr/],
      ['methods = exchange,exchange', /:13: --methods takes a list of exchange, bank, qr: names exchange twice/]]) {
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8').split('\n').slice(0, 12).join('\n') + '\n' + line + '\n');
      const r = run(['config', 'check', '--config', file]);
      assert.equal(r.status, 2, line);
      assert.match(r.stderr, new RegExp(file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + expected.source), line);
    }
    // A secret's file that others can read is refused, its mode named.
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').split('\n').slice(0, 12).join('\n') + '\n');
    fs.chmodSync(path.join(dir, 'app-secret'), 0o644);
    const r = run(['config', 'check', '--config', file]);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /:8: --app-secret-file: .*app-secret can be read by others \(mode 0644\): chmod 600/);
  });
});

describe('init', () => {
  test('a shop without a web site: files 0600, refused a second time, a gateway without --shop-origin', async () => {
    const dir = tempDir('pwm-init-');
    fs.writeFileSync(path.join(dir, 'token'), sb.merchant.merchantAccessToken + '\n');
    fs.writeFileSync(path.join(dir, 'm.pem'), sb.merchant.publicKey);
    fs.writeFileSync(path.join(dir, 'w.pem'), sb.merchant.webhookPublicKey);
    const widget = path.join(dir, 'widget');
    fs.mkdirSync(widget);
    for (const f of ['paywasm.js', 'paywasm.mjs', 'paywasm.wasm', 'paywasm-nosimd.wasm', 'paywasm.css', 'integrity.json']) {
      fs.writeFileSync(path.join(widget, f), f === 'integrity.json' ? '{}' : '');
    }
    const port = await freePort();
    const consolePort = await freePort();
    const config = path.join(dir, 'etc', 'merchant.conf');
    const init = (extra = []) => run(['init', '--config', config, '--service-url', sb.base + '/api',
      '--merchant-id', sb.merchant.merchantId, '--merchant-public-key', path.join(dir, 'm.pem'),
      '--webhook-public-key', path.join(dir, 'w.pem'), '--merchant-token-file', path.join(dir, 'token'),
      '--shop-name', 'Corner Bakery', '--no-web-site', '--widget-dir', widget, '--db', `sqlite:${dir}/gw.db`,
      '--listen', `127.0.0.1:${port}`, '--console-listen', `127.0.0.1:${consolePort}`, '--console-user', 'owner', ...extra]);
    const first = init();
    assert.equal(first.status, 0, first.stderr);
    const password = /user owner password (\S+) \(shown once/.exec(first.stdout)?.[1];
    assert.ok(password && password.length >= 20, first.stdout);
    assert.match(first.stdout, new RegExp(`console: http://127\\.0\\.0\\.1:${consolePort}/`));
    const secrets = path.join(dir, 'etc', 'secrets');
    for (const f of ['merchant-token', 'app-secret', 'event-secret', 'metrics-token']) {
      assert.equal(fs.statSync(path.join(secrets, f)).mode & 0o777, 0o600, f);
    }
    assert.equal(fs.statSync(secrets).mode & 0o777, 0o700);
    const appSecret = fs.readFileSync(path.join(secrets, 'app-secret'), 'utf8').trim();
    assert.match(appSecret, /^[0-9a-f]{64}$/);
    const text = fs.readFileSync(config, 'utf8');
    assert.doesNotMatch(text, /^shop-origin/m);
    assert.ok(!text.includes(appSecret) && !text.includes(sb.merchant.merchantAccessToken), 'no secret in the file');
    // Again: refused, nothing changed; --force replaces the secrets.
    const again = init();
    assert.equal(again.status, 1);
    assert.match(again.stderr, /already holds a configuration: nothing changed/);
    assert.equal(fs.readFileSync(path.join(secrets, 'app-secret'), 'utf8').trim(), appSecret);
    const forced = init(['--force', '--password-stdin']);
    assert.equal(forced.status, 2, 'the password read from stdin must be long enough');
    const replaced = run(['init', '--config', config, '--force']);
    assert.notEqual(replaced.status, 0, 'init without its answers off a terminal stops');
    assert.match(replaced.stderr, /--service-url is required \(or run init on a terminal/);

    // The gateway from that file alone: no shop origin, so no CORS for anyone.
    const proc = spawn(GATEWAY, ['--config', config], { stdio: ['ignore', 'pipe', 'pipe'], env: cleanEnv() });
    let stderr = '';
    proc.stderr.on('data', (d) => { stderr += d; });
    const exited = new Promise((resolve) => proc.on('exit', (code) => resolve(code)));
    const g = { base: `http://127.0.0.1:${port}` };
    try {
      await waitFor(async () => (await gw(g, 'GET', '/healthz').catch(() => ({}))).status === 200, 15000, 'the gateway: ' + stderr);
      const s = await gw(g, 'POST', '/v1/sessions', { token: appSecret, body: { offerId: 'bakery-1', currency: 'USD', methods: ['qr'], shippingAddress: ADDRESS,
        cart: [{ id: 'bread', name: 'Bread', price: 4, quantity: 1 }] } });
      assert.equal(s.status, 201, s.text);
      assert.equal(s.json.hostedUrl, `${g.base}/pay/${s.json.id}`);
      for (const origin of [undefined, 'null', 'https://evil.example']) {
        const pre = await fetch(`${g.base}/v1/checkout/${s.json.id}/qr`, { method: 'OPTIONS', headers: origin ? { origin } : {} });
        assert.equal(pre.headers.get('access-control-allow-origin'), null, `no CORS for ${origin}`);
        assert.equal(pre.headers.get('access-control-allow-methods'), null, `no preflight answer for ${origin}`);
      }
      const c = new ConsoleClient(`http://127.0.0.1:${consolePort}`);
      assert.equal((await c.login('owner', password)).status, 303, 'init\'s password opens the console');
    } finally {
      proc.kill('SIGTERM');
    }
    assert.equal(await exited, 0, stderr);
  });

  test('--sandbox: the service\'s values from a sandbox, its webhooks pointed at the gateway', async () => {
    const own = await startSandbox();
    try {
      const dir = tempDir('pwm-init-sb-');
      const port = await freePort();
      const config = path.join(dir, 'etc', 'merchant.conf');
      const args = ['init', '--config', config, '--sandbox', own.base, '--shop-name', 'Corner Bakery', '--shop-origin', 'https://shop.example',
        '--db', `sqlite:${dir}/gw.db`, '--listen', `127.0.0.1:${port}`, '--console-listen', `127.0.0.1:${await freePort()}`,
        '--password-stdin'];
      const both = run([...args, '--merchant-id', 'someone'], { input: PASSWORD + '\n' });
      assert.equal(both.status, 2);
      assert.match(both.stderr, /--sandbox gives --merchant-id itself/);
      const r = run(args, { input: PASSWORD + '\n' });
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, new RegExp(`the sandbox .* sends its webhooks to http://127\\.0\\.0\\.1:${port}/v1/webhooks`));
      const text = fs.readFileSync(config, 'utf8');
      assert.match(text, new RegExp(`^service-url = ${own.base.replace(/[.]/g, '\\.')}/api$`, 'm'));
      assert.match(text, new RegExp(`^merchant-id = ${own.merchant.merchantId}$`, 'm'));
      assert.equal(fs.readFileSync(path.join(dir, 'etc', 'secrets', 'merchant-token'), 'utf8').trim(), own.merchant.merchantAccessToken);
      assert.equal(fs.readFileSync(path.join(dir, 'etc', 'merchant-public.pem'), 'utf8'), own.merchant.publicKey);
      assert.equal(fs.readFileSync(path.join(dir, 'etc', 'service-webhook-public.pem'), 'utf8'), own.merchant.webhookPublicKey);
      const hook = await (await fetch(`${own.base}/__sandbox/webhook`)).json();
      assert.equal(hook.url, `http://127.0.0.1:${port}/v1/webhooks`);
      assert.equal(run(['config', 'check', '--config', config]).status, 0);
    } finally {
      await own.stop();
    }
  });
});

// console-user beside a running gateway: every verb takes effect on the running console.
async function usersWhileRunning(g, consoleBase, db) {
  const cu = (args, input = '') => run(['console-user', ...args, '--db', db], { input });
  const added = cu(['add', 'ada'], PASSWORD + '\n');
  assert.equal(added.status, 0, added.stderr);
  const ada = new ConsoleClient(consoleBase);
  assert.equal((await ada.login('ada', PASSWORD)).status, 303, 'the added user logs in');
  assert.equal((await ada.req('GET', '/')).status, 200);
  const changed = cu(['passwd', 'ada'], 'another long password\n');
  assert.equal(changed.status, 0, changed.stderr);
  assert.equal((await ada.req('GET', '/')).status, 303, 'a new password ends the logins');
  assert.equal((await new ConsoleClient(consoleBase).login('ada', PASSWORD)).status, 401, 'the old password is refused');
  // Five wrong passwords lock her out (her right password is answered as a wrong one, 401);
  // `list` says so, and unlock lets her in at once.
  for (let i = 0; i < 5; i++) await new ConsoleClient(consoleBase).login('ada', 'wrong password ' + i);
  assert.equal((await new ConsoleClient(consoleBase).login('ada', 'another long password')).status, 401, 'locked');
  assert.match(cu(['list']).stdout, /^ada\tcreated \S+\tlocked until /m);
  assert.equal(cu(['unlock', 'ada']).status, 0);
  const again = new ConsoleClient(consoleBase);
  assert.equal((await again.login('ada', 'another long password')).status, 303, 'unlocked');
  assert.match(cu(['sessions', 'ada']).stdout, /^began \S+\tlast seen \S+\tends by \S+\tfrom 127\.0\.0\.1$/m, 'her login, seen beside the gateway');
  assert.match(cu(['list']).stdout, /^ada\t/m);
  assert.equal(cu(['remove', 'ada']).status, 0);
  assert.equal((await again.req('GET', '/')).status, 303, 'a removed user\'s login ends');
  assert.equal(cu(['unlock', 'nobody']).status, 1);
  assert.equal((await gw(g, 'GET', '/healthz')).status, 200, 'the gateway ran throughout');
}

describe('console-user while the gateway runs', () => {
  test('SQLite', async () => {
    const dir = tempDir('pwm-users-');
    const db = `sqlite:${dir}/gw.db`;
    const port = await freePort();
    const g = await startGateway(sb, { dir, db, extra: ['--console-listen', `127.0.0.1:${port}`, '--console-login-rate', '0'] });
    try {
      await usersWhileRunning(g, `http://127.0.0.1:${port}`, db);
    } finally {
      await g.stop();
    }
  });

  test('PostgreSQL', async () => {
    const pg = await startPostgres();
    const port = await freePort();
    let g;
    try {
      g = await startGateway(sb, { db: pg.url, extra: ['--console-listen', `127.0.0.1:${port}`, '--console-login-rate', '0'] });
      await usersWhileRunning(g, `http://127.0.0.1:${port}`, pg.url);
    } finally {
      await g?.stop();
      await pg.destroy();
    }
  });
});
