// Test harness for the sandbox: starts real `paywasm-sandbox` processes on free ports, encrypts
// payloads with Node's own crypto (independent of our C++), and runs a webhook receiver.
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import http from 'node:http';

import { WAIT_FLOOR_MS, sleep, tempDir, waitFor } from '../support/node.mjs';

// The shared helpers (tests/support/node.mjs), for the suites that import them from here.
export { sleep, tempDir, waitFor };

export const SANDBOX = process.env.PAYWASM_SANDBOX;
export const CLI = process.env.PAYWASM_CLI;
if (!SANDBOX || !CLI) throw new Error('set PAYWASM_SANDBOX and PAYWASM_CLI to the built binaries');


// Starts a sandbox with `--port 0` and resolves once it printed its address.
export async function startSandbox(args = []) {
  const proc = spawn(SANDBOX, ['--port', '0', '--quiet', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  proc.stderr.on('data', (d) => { stderr += d; });
  const line = await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('sandbox did not start: ' + stderr)), WAIT_FLOOR_MS * 2);
    proc.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/listening on (http:\/\/\S+) \(data: ([^,)]+)/);
      if (m) { clearTimeout(timer); resolve(m); }
    });
    proc.on('exit', (code) => { clearTimeout(timer); reject(new Error(`sandbox exited (${code}): ${stderr}`)); });
  });
  const exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  const sandbox = {
    base: line[1],
    dataDir: line[2],
    proc,
    stderr: () => stderr,
    async stop(signal = 'SIGTERM') {
      proc.kill(signal);
      return exited;
    },
  };
  const token = args.includes('--control-token') ? args[args.indexOf('--control-token') + 1] : undefined;
  sandbox.merchant = await getJson(sandbox.base + '/__sandbox/merchant', token);
  return sandbox;
}

// GET JSON; `token` goes in a Bearer header (a sandbox started with --control-token).
export async function getJson(url, token) {
  const r = await fetch(url, token ? { headers: { authorization: 'Bearer ' + token } } : undefined);
  if (!r.ok) throw new Error(`GET ${url}: ${r.status}`);
  return r.json();
}

export async function sendJson(method, url, body) {
  const r = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : null, headers: r.headers };
}

// A raw HTTP request with any Host header (fetch() does not let a page or Node set Host).
export function rawRequest(base, { method = 'GET', path: p, host, headers = {}, body } = {}) {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path: p, method,
      headers: { ...(host === undefined ? {} : { host }), ...headers } }, (res) => {
      let text = '';
      res.on('data', (d) => { text += d; });
      res.on('end', () => {
        let json = null;
        try { json = JSON.parse(text); } catch { /* left null */ }
        resolve({ status: res.statusCode, text, json, headers: res.headers });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

// Node's RSA: one block per piece, pieces of k - 2*hLen - 2 (OAEP) or k - 11 (PKCS#1 v1.5).
export function encrypt(publicKeyPem, text, padding = 'oaep-sha1') {
  const key = crypto.createPublicKey(publicKeyPem);
  const k = key.asymmetricKeyDetails.modulusLength / 8;
  const options = {
    'oaep-sha1': { padding: crypto.constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha1', piece: k - 42 },
    'oaep-sha256': { padding: crypto.constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256', piece: k - 66 },
    pkcs1v15: { padding: crypto.constants.RSA_PKCS1_PADDING, piece: k - 11 },
  }[padding];
  const bytes = Buffer.from(text, 'utf8');
  const blocks = [];
  for (let i = 0; i < bytes.length; i += options.piece) {
    blocks.push(crypto.publicEncrypt({ key, padding: options.padding, oaepHash: options.oaepHash },
      bytes.subarray(i, i + options.piece)));
  }
  return Buffer.concat(blocks).toString('base64');
}

export function merchantAuth(m, merchantId = m.merchantId, padding = 'oaep-sha1') {
  return encrypt(m.publicKey, JSON.stringify({ merchantId }), padding);
}

// A realistic exchange payload: two products and a subscription, 3-4 RSA blocks once encrypted.
export function exchangePayload(m, overrides = {}) {
  return {
    clientId: m.merchantId,
    assets: 'BTC',
    cart: [
      { id: 'sku-espresso', name: 'Espresso beans 1 kg', price: 24.5, quantity: 2, localAmount: 49, localCurrency: 'USD' },
      {
        id: 'sku-club', name: 'Coffee club (monthly)', price: 15, quantity: 1, localAmount: 15, localCurrency: 'USD',
        isSubscription: true, frequency: 'monthly', subscriptionPeriod: '12m', merchantSubscriptionId: 'club-42',
      },
    ],
    shippingAddress: {
      firstname: 'Grace', lastname: 'Hopper', phoneNo: '2025550143', address1: '1 Navy Yard', address2: 'Apt 3',
      state: 'DC', city: 'Washington', zipcode: '20003', country: 'US', landmark: 'Near the museum',
      email: 'grace@example.com',
    },
    offerId: 'order-' + crypto.randomUUID(),
    nativeAmount: '64.00',
    savepassword: false,
    code2fa: '',
    merchantStoreCurrency: 'USD',
    ...overrides,
  };
}

export function bankPayload(m, overrides = {}) {
  return {
    clientId: m.merchantId,
    amount: 49,
    accountId: 'acct-merchant-1',
    cart: [{ id: 'sku-espresso', name: 'Espresso beans 1 kg', price: 24.5, quantity: 2, localAmount: 49, localCurrency: 'USD' }],
    stockId: 'bank-acct-77',
    offerId: 'bank-' + crypto.randomUUID(),
    merchantStoreCurrency: 'USD',
    hostedPageId: 'hp-1',
    shippingAddress: { firstname: 'Grace', lastname: 'Hopper', email: 'grace@example.com', country: 'US' },
    ...overrides,
  };
}

export function qrRequest(overrides = {}) {
  return {
    amount: '49.00',
    currency: 'USD',
    cryptoCurrency: 'BTC',
    orderId: 'qr-' + crypto.randomUUID(),
    cart: [{ id: 'sku-espresso', name: 'Espresso beans 1 kg', price: 24.5, quantity: 2 }],
    customerInfo: { name: 'Grace Hopper', email: 'grace@example.com' },
    ...overrides,
  };
}

// POST to an /api path; `token` goes in a Bearer header; `raw` sends a string body as is.
export async function api(sb, path, { method = 'POST', token, body, raw, headers = {} } = {}) {
  const h = { ...headers };
  if (token) h.authorization = 'Bearer ' + token;
  if (body !== undefined || raw !== undefined) h['content-type'] ??= 'application/json';
  const r = await fetch(sb.base + '/api' + path, {
    method,
    headers: h,
    body: raw !== undefined ? raw : body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  let json = null;
  try { json = JSON.parse(text); } catch { /* left null: the test looks at text */ }
  return { status: r.status, json, text, headers: r.headers };
}

export function payExchange(sb, payload, { exchange = 'kraken', padding = 'oaep-sha1', token } = {}) {
  return api(sb, '/exchanges/payments/' + exchange, {
    token: token ?? sb.merchant.shopperToken,
    body: { data: encrypt(sb.merchant.publicKey, JSON.stringify(payload), padding) },
  });
}

export async function transactionCount(sb) {
  return (await getJson(sb.base + '/__sandbox/transactions')).length;
}

// A merchant webhook endpoint: records every POST and answers 200, or 500 while `failing` is set.
export async function startReceiver() {
  const received = [];
  const receiver = { received, failing: false };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', () => {
      const status = req.method === 'POST' && receiver.failing ? 500 : 200;
      if (req.method === 'POST') received.push({ body, status, headers: req.headers });
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${server.address().port}/hooks/paywasm`;
  receiver.close = () => new Promise((resolve) => server.close(resolve));
  return receiver;
}

