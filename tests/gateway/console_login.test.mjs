// The console's logins against a guesser (issue 40: P1, P4, P5, P-h; console_auth.hpp), on SQLite
// and on the real PostgreSQL: a locked account answered exactly as any wrong password whatever the
// password, the lock told out of band (audit log, `console-user list`, a notice at the next good
// login); wrong passwords in a sliding window (a lock that ended is not armed again by one more);
// the per-address limits keyed by the client (an IPv6 /64 is one); `console-user passwd`, `unlock`
// and `sessions`. The client's address is the X-Forwarded-For of a --trusted-proxy (127.0.0.1).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';

import { METRICS_TOKEN, freePort, gw, startGateway, startPostgres, startSandbox, tempDir } from './harness.mjs';
import { Client, consoleUser } from './console_client.mjs';

const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'a new password for ada';
const WRONG = 'Wrong user name or password.';

let sb;
before(async () => { sb = await startSandbox(); });
after(async () => { await sb?.stop(); });

const alert = (r) => /role="alert">([^<]*)</.exec(r.text)?.[1];
// A login page without what differs on every answer (its login form token).
const page = (r) => r.text.replace(/name="login_token" value="[^"]+"/, 'name="login_token" value=""');

function suite(name, startDb) {
  describe(`the console's logins against a guesser (${name})`, () => {
    let db, dir, url, g, base, port;
    const start = async (offsetMs, rate) => {
      g = await startGateway(sb, { dir, db: url, env: { PAYWASM_CLOCK_OFFSET_MS: String(offsetMs) },
        extra: ['--console-listen', `127.0.0.1:${port}`, '--console-login-rate', String(rate), '--trusted-proxy', '127.0.0.1'] });
    };
    const from = (address) => new Client(base, { 'x-forwarded-for': address });
    before(async () => {
      db = await startDb();
      dir = tempDir('pwm-login-');
      url = db?.url ?? 'sqlite:' + dir + '/gateway.db';
      for (const user of ['ada', 'grace', 'hopper']) assert.equal(consoleUser(url, ['add', user], PASSWORD + '\n').status, 0);
      port = await freePort();
      base = `http://127.0.0.1:${port}`;
      await start(0, 0);
    });
    after(async () => { await g?.stop(); await db?.destroy(); });

    test('P1: a locked account is answered exactly as a wrong password, whatever the password', async () => {
      const guesser = from('198.51.100.1');
      const wrong = [];
      for (let i = 0; i < 5; i++) wrong.push(await guesser.login('grace', 'wrong password ' + i));
      for (const r of wrong) assert.equal(r.status, 401);
      // Locked now: the right password, a wrong one and a name that does not exist get one answer,
      // and the same work: one password check (scrypt) each, counted by the gateway itself (a
      // duration would read the machine's load).
      const checks = async () => Number(/^paywasm_console_password_checks_total (\d+)$/m
        .exec((await gw(g, 'GET', '/metrics', { token: METRICS_TOKEN })).text)[1]);
      const checksBefore = await checks();
      const answers = [];
      for (let i = 0; i < 3; i++) {
        answers.push(await guesser.login('grace', PASSWORD));
        answers.push(await guesser.login('grace', 'another wrong password'));
        answers.push(await guesser.login('nobody-by-this-name', PASSWORD));
      }
      for (const r of answers) {
        assert.equal(r.status, 401);
        assert.equal(alert(r), WRONG);
        assert.equal(page(r), page(wrong[0]), 'the same page');
        assert.deepEqual(r.headers.getSetCookie().map((c) => c.replace(/=[^;]*/, '=')),
          wrong[0].headers.getSetCookie().map((c) => c.replace(/=[^;]*/, '=')), 'the same cookies');
        assert.ok(!/locked/i.test(r.text));
      }
      assert.equal(await checks() - checksBefore, answers.length, 'one password check per answer, a locked user\'s too');
      // Out of band: the audit log, for staff.
      const ada = from('198.51.100.2');
      assert.equal((await ada.login('ada', PASSWORD)).status, 303);
      const audit = (await ada.req('GET', '/audit')).text;
      assert.match(audit, /<td>grace<\/td><td>login_locked<\/td>/);
      assert.match(audit, /<td>account_locked<\/td><td><span class="id">grace<\/span>/);
    });

    test('P5: wrong passwords from one client are limited per address, an IPv6 /64 being one client', async () => {
      // 20 wrong passwords from 20 addresses of one /64, for names that do not exist.
      for (let i = 1; i <= 20; i++) {
        const r = await from(`2001:db8:40:1::${i.toString(16)}`).login('nobody-' + i, 'wrong password');
        assert.equal(r.status, 401, `attempt ${i}`);
      }
      const limited = await from('2001:db8:40:1::ff').login('ada', PASSWORD);
      assert.equal(limited.status, 429, 'the 21st from the same /64, even with a right password');
      assert.match(alert(limited), /Too many wrong passwords from your address/);
      assert.equal((await from('2001:db8:40:2::1').login('ada', PASSWORD)).status, 303, 'another /64 is another client');
    });

    test('P4 (part 1): hopper locked by five wrong passwords', async () => {
      const guesser = from('198.51.100.3');
      for (let i = 0; i < 5; i++) assert.equal((await guesser.login('hopper', 'wrong ' + i)).status, 401);
      assert.equal((await guesser.login('hopper', PASSWORD)).status, 401, 'locked');
    });

    test('console-user list tells the lock; sessions lists the logins; unlock and passwd', async () => {
      await g.stop();  // the command and a gateway never share a SQLite file
      const list = consoleUser(url, ['list']);
      assert.equal(list.status, 0, list.stderr);
      assert.match(list.stdout, /^grace\t.*\tlocked until \d{4}-.*\t5 wrong passwords since the last login$/m);
      assert.match(list.stdout, /^hopper\t.*\tlocked until /m);
      assert.match(list.stdout, /^ada\tcreated [^\t]*$/m, 'ada: neither locked nor wrong passwords');
      const sessions = consoleUser(url, ['sessions', 'ada']);
      assert.equal(sessions.status, 0, sessions.stderr);
      assert.match(sessions.stdout, /^began .*\tfrom 198\.51\.100\.2$/m);
      assert.match(sessions.stdout, /\tfrom 2001:db8:40:2::1$/m);
      assert.equal(consoleUser(url, ['sessions', 'nobody']).status, 1);
      assert.equal(consoleUser(url, ['passwd', 'ada'], 'short\n').status, 2, 'a short password is refused');
      const passwd = consoleUser(url, ['passwd', 'ada'], NEW_PASSWORD + '\n');
      assert.equal(passwd.status, 0, passwd.stderr);
      assert.equal(consoleUser(url, ['sessions', 'ada']).stdout, '', "a new password ends the user's logins");
      const unlock = consoleUser(url, ['unlock', 'grace']);
      assert.equal(unlock.status, 0, unlock.stderr);
      assert.doesNotMatch(consoleUser(url, ['list']).stdout, /^grace\t.*locked until/m);
      assert.equal(consoleUser(url, ['unlock', 'nobody']).status, 1);
      // 16 minutes later (every wrong password above left the window), with a login rate.
      await start(16 * 60 * 1000, 3);
    });

    test('the next good login tells the user of the lock, once', async () => {
      const grace = from('198.51.100.4');
      const r = await grace.login('grace', PASSWORD);
      assert.equal(r.status, 303);
      assert.equal(r.headers.get('location'), '/?done=was_locked');
      const home = await grace.req('GET', r.headers.get('location'));
      assert.match(home.text, /role="status">Your account was locked after wrong passwords since your last login/);
      const again = await from('198.51.100.5').login('grace', PASSWORD);
      assert.equal(again.headers.get('location'), '/', 'told once');
      // (the command and a gateway never share a SQLite file: PostgreSQL only)
      if (db) assert.match(consoleUser(url, ['list']).stdout, /^grace\tcreated [^\t]*$/m, 'list: nothing to tell');
    });

    test('P4: a lock that ended is not armed again by one wrong password', async () => {
      assert.equal((await from('198.51.100.6').login('hopper', 'one more wrong one')).status, 401);
      const r = await from('198.51.100.7').login('hopper', PASSWORD);
      assert.equal(r.status, 303, 'one wrong password in the window: not locked');
      assert.equal(r.headers.get('location'), '/?done=was_locked');
    });

    test('passwd: the old password opens nothing, the new one does', async () => {
      assert.equal((await from('198.51.100.8').login('ada', PASSWORD)).status, 401);
      assert.equal((await from('198.51.100.9').login('ada', NEW_PASSWORD)).status, 303);
    });

    test('P5: the login rate counts an IPv6 /64 as one client', async () => {
      for (let i = 1; i <= 3; i++) assert.equal((await from(`2001:db8:41:1::${i}`).login('nobody', 'x')).status, 401, `try ${i}`);
      const r = await from('2001:db8:41:1::4').login('nobody', 'x');
      assert.equal(r.status, 429);
      assert.match(alert(r), /Too many login attempts from your address/);
      assert.equal((await from('2001:db8:41:2::1').login('nobody', 'x')).status, 401, 'another /64');
    });
  });
}

suite('SQLite', async () => null);
suite('PostgreSQL', startPostgres);
