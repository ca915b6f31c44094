// A browser of the merchant's console for the gateway suites (console.test.mjs,
// console_login.test.mjs): a cookie jar, forms, the login form's token; and the console-user command.
import { spawnSync } from 'node:child_process';

import { GATEWAY } from './harness.mjs';

// `paywasm-merchant console-user ...` with `input` on stdin.
export function consoleUser(db, args, input = '') {
  return spawnSync(GATEWAY, ['console-user', ...args, '--db', db], { input, encoding: 'utf8' });
}

// A browser's cookie jar, enough for the console: name=value pairs from Set-Cookie.
export class Client {
  // `headers`: sent with every request (a test's X-Forwarded-For: the client's address behind a
  // --trusted-proxy).
  constructor(base, headers = {}) { this.base = base; this.jar = new Map(); this.headers = headers; }
  cookie() { return [...this.jar].map(([k, v]) => `${k}=${v}`).join('; '); }
  take(res) {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (attrs.some((a) => /max-age=0/i.test(a.trim())) || value === '') this.jar.delete(name);
      else this.jar.set(name, value);
    }
  }
  async req(method, path, form, headers = {}) {
    const h = { cookie: this.cookie(), ...this.headers, ...headers };
    let body;
    if (form) { h['content-type'] = 'application/x-www-form-urlencoded'; body = new URLSearchParams(form).toString(); }
    const res = await fetch(this.base + path, { method, headers: h, body, redirect: 'manual' });
    this.take(res);
    return { status: res.status, text: await res.text(), headers: res.headers };
  }
  async login(name, password) {
    const page = await this.req('GET', '/login');
    const token = /name="login_token" value="([^"]+)"/.exec(page.text)[1];
    return this.req('POST', '/login', { login_token: token, name, password });
  }
  async csrf(path = '/') {
    const page = await this.req('GET', path);
    return /name="csrf" value="([^"]+)"/.exec(page.text)?.[1];
  }
}
