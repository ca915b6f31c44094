// `paywasm call` against a scripted HTTP server on 127.0.0.1. The server records every request;
// Node's crypto (independent of Crypto++) decrypts what the CLI encrypted.
// usage: node test_call.mjs /path/to/paywasm
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { tempDir } from '../support/node.mjs';

const cli = process.argv[2];
const dir = tempDir('paywasm-cli-');
const { publicKey, privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
const pubPath = path.join(dir, 'pub.pem');
fs.writeFileSync(pubPath, publicKey.export({ type: 'spki', format: 'pem' }));

const TX = {
  id: '6f1c2a9e-3b1d-4c7e-9a53-2f6b1f0c7d11', status: 0, nativeAmount: '45.48', nativeCurrency: 'USD',
  amount: '0.00071', currency: 'BTC', meta: { offerId: 'order-1001', receiverAddress: 'bc1qxyz' },
  futureField: { kept: true },
};

// Scripted answers: path -> (req, body) => [status, body, delayMs]
let script = {};
const seen = [];
const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => { body += c; });
  req.on('end', () => {
    seen.push({ method: req.method, url: req.url, headers: req.headers, body });
    const handler = script[req.url];
    const [status, out, delay = 0] = handler ? handler(req, body) : [404, '{"error":"no route"}'];
    setTimeout(() => {
      if (out === null) { req.socket.destroy(); return; }
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(typeof out === 'string' ? out : JSON.stringify(out));
    }, delay);
  });
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${server.address().port}/api`;

function run(args, input, env = {}) {
  return new Promise((resolve) => {
    const p = spawn(cli, args, { env: { ...process.env, ...env } });
    let stdout = '', stderr = '';
    p.stdout.on('data', (d) => { stdout += d; });
    p.stderr.on('data', (d) => { stderr += d; });
    p.on('close', (code) => resolve({ code, stdout, stderr }));
    p.stdin.on('error', () => {});  // the CLI may exit before reading its input (EPIPE): its exit code says why
    p.stdin.end(input ?? '');
  });
}

function decryptChunked(b64) {
  const buf = Buffer.from(b64, 'base64');
  const parts = [];
  for (let i = 0; i < buf.length; i += 256) {
    parts.push(crypto.privateDecrypt({ key: privateKey, padding: crypto.constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha1' },
      buf.subarray(i, i + 256)));
  }
  return Buffer.concat(parts).toString('utf8');
}

const exchangePayment = {
  clientId: 'merchant-7', assets: 'BTC',
  cart: [
    { id: 'sku-1', name: 'Café crème – 250 g', price: 19.99, quantity: 2, localAmount: 19.99, localCurrency: 'USD' },
    { id: 'sku-2', name: 'Filter papers "No. 4"', price: 5.5, quantity: 1, localAmount: 5.5, localCurrency: 'USD' },
  ],
  // Members in the spec's order, so JSON.stringify gives the canonical bytes.
  shippingAddress: { firstname: 'Ada', lastname: 'Lovelace', phoneNo: '+44 20 7946 0000', address1: '12 St James Sq',
    address2: '', state: '', city: 'London', zipcode: 'SW1Y 4JH', country: 'GB', landmark: 'Opposite the library',
    email: 'ada@example.org' },
  offerId: 'order-1001', nativeAmount: '45.48', savepassword: false, code2fa: '123456', merchantStoreCurrency: 'USD',
};

let passed = 0, failed = 0;
async function test(name, fn) {
  seen.length = 0;
  script = {};
  try { await fn(); passed++; console.log(`ok - ${name}`); }
  catch (e) { failed++; console.log(`not ok - ${name}\n  ${e.stack}`); }
}
function eq(a, b, what) { if (a !== b) throw new Error(`${what}: expected ${JSON.stringify(b)}, got ${JSON.stringify(a)}`); }

await test('exchange-pay encrypts the canonical payload, sends it once, prints the Transaction', async () => {
  script['/api/exchanges/payments/kraken'] = () => [200, TX];
  const r = await run(['call', 'exchange-pay', '--base-url', base, '--exchange', 'kraken', '--public-key', pubPath, '-'],
    JSON.stringify(exchangePayment), { PAYWASM_TOKEN: 'shopper-secret' });
  eq(r.code, 0, `exit code (stderr ${r.stderr})`);
  eq(seen.length, 1, 'requests sent');
  eq(seen[0].headers.authorization, 'Bearer shopper-secret', 'authorization');
  eq(seen[0].headers['content-type'], 'application/json', 'content-type');
  const { data } = JSON.parse(seen[0].body);
  eq(Buffer.from(data, 'base64').length, 256 * 4, 'ciphertext of a ~700-byte payload is four 2048-bit blocks');
  eq(decryptChunked(data), JSON.stringify(exchangePayment), 'decrypted payload equals JSON.stringify of the input');
  const out = JSON.parse(r.stdout);
  eq(out.id, TX.id, 'transaction id');
  eq(out.futureField.kept, true, 'unknown response fields are kept');
  if (r.stdout.includes('shopper-secret') || r.stderr.includes('shopper-secret')) throw new Error('token printed');
});

await test('exchange error 419 exits 1 with a typed JSON error and is not retried', async () => {
  script['/api/exchanges/payments/gemini'] = () => [419, { message: 'Insufficient Balance' }];
  const r = await run(['call', 'exchange-pay', '--base-url', base, '--exchange', 'gemini', '--public-key', pubPath,
    '--token', 't'], JSON.stringify(exchangePayment));
  eq(r.code, 1, 'exit code');
  const err = JSON.parse(r.stderr).error;
  eq(err.code, 'insufficient_balance', 'code');
  eq(err.httpStatus, 419, 'httpStatus');
  eq(seen.length, 1, 'requests sent');
});

await test('a payment that times out is reported as such, sent once, with a caution', async () => {
  script['/api/exchanges/payments/kraken'] = () => [200, TX, 2500];
  const r = await run(['call', 'exchange-pay', '--base-url', base, '--exchange', 'kraken', '--public-key', pubPath,
    '--token', 't', '--timeout', '1'], JSON.stringify(exchangePayment));
  eq(r.code, 1, 'exit code');
  const err = JSON.parse(r.stderr).error;
  eq(err.code, 'timeout', 'code');
  if (!err.message.includes('may have reached the service')) throw new Error(`no caution in ${err.message}`);
  eq(seen.length, 1, 'requests sent');
});

await test('a dropped connection is a network error', async () => {
  script['/api/users/me'] = () => [200, null];
  const r = await run(['call', 'users-me', '--base-url', base, '--token', 't']);
  eq(r.code, 1, 'exit code');
  eq(JSON.parse(r.stderr).error.code, 'network', 'code');
});

await test('invalid input is refused before anything is sent', async () => {
  const bad = { ...exchangePayment, nativeAmount: '45.47' };
  const r = await run(['call', 'exchange-pay', '--base-url', base, '--exchange', 'kraken', '--public-key', pubPath,
    '--token', 't'], JSON.stringify(bad));
  eq(r.code, 1, 'exit code');
  const err = JSON.parse(r.stderr).error;
  eq(err.code, 'validation', 'code');
  eq(err.field, 'nativeAmount', 'field');
  eq(seen.length, 0, 'requests sent');
});

await test('a pinned fingerprint that does not match refuses to encrypt', async () => {
  const r = await run(['call', 'exchange-pay', '--base-url', base, '--exchange', 'kraken', '--public-key', pubPath,
    '--token', 't', '--key-fingerprint', '00'.repeat(32)], JSON.stringify(exchangePayment));
  eq(r.code, 1, 'exit code');
  eq(JSON.parse(r.stderr).error.code, 'key_mismatch', 'code');
  eq(seen.length, 0, 'requests sent');
});

// Review (one path): the CLI compared the pin byte for byte, so the upper-case or colon-separated
// form the widget accepts (openssl's -c output) was refused here.
await test('a pin in upper case with colons names the same key', async () => {
  script['/api/exchanges/payments/kraken'] = () => [200, TX];
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const hex = crypto.createHash('sha256').update(spki).digest('hex').toUpperCase();
  const pin = hex.match(/../g).join(':');
  const r = await run(['call', 'exchange-pay', '--base-url', base, '--exchange', 'kraken', '--public-key', pubPath,
    '--token', 't', '--key-fingerprint', pin], JSON.stringify(exchangePayment));
  eq(r.code, 0, `exit code (${r.stderr})`);
  eq(seen.length, 1, 'requests sent');
});

// Review (one path): the element filled localAmount/localCurrency (and the total) itself, so the
// CLI refused an order the widget paid. The defaults now live in the core, for both.
await test('an order without nativeAmount and local fields gets the core\'s defaults', async () => {
  script['/api/exchanges/payments/kraken'] = () => [200, TX];
  const bare = { ...exchangePayment, cart: exchangePayment.cart.map(({ localAmount, localCurrency, ...rest }) => rest) };
  delete bare.nativeAmount;
  const r = await run(['call', 'exchange-pay', '--base-url', base, '--exchange', 'kraken', '--public-key', pubPath,
    '--token', 't'], JSON.stringify(bare));
  eq(r.code, 0, `exit code (${r.stderr})`);
  eq(decryptChunked(JSON.parse(seen[0].body).data), JSON.stringify(exchangePayment), 'payload with the defaults');
});

await test('a debit that charged nothing (items refused, or no data at all), and a cancel that did not cancel, exit 3', async () => {
  script['/api/subscription/debit'] = () => [200, { status: 200, result: { data: [], errors: [{ subscriptionId: 's1', message: 'not active' }] } }];
  script['/api/subscription/cancel'] = () => [200, { status: 200, result: { success: false } }];
  const debit = await run(['call', 'subscription-debit', '--base-url', base, '--public-key', pubPath],
    JSON.stringify({ merchantId: 'merchant-7', items: [{ subscriptionId: 's1', amount: 9.99, currency: 'USD' }] }));
  eq(debit.code, 3, `debit exit code (${debit.stderr})`);
  eq(JSON.parse(debit.stdout).result.errors.length, 1, 'the answer is printed');
  // 0.2.0 exited 0 here: nothing was charged and nothing said so.
  script['/api/subscription/debit'] = () => [200, { status: 200, result: { data: [], errors: [] } }];
  const nothing = await run(['call', 'subscription-debit', '--base-url', base, '--public-key', pubPath],
    JSON.stringify({ merchantId: 'merchant-7', items: [{ subscriptionId: 's1', amount: 9.99, currency: 'USD' }] }));
  eq(nothing.code, 3, `a debit that charged nothing (${nothing.stderr})`);
  if (!nothing.stderr.includes('charged nothing')) throw new Error('no reason on stderr: ' + nothing.stderr);
  const cancel = await run(['call', 'subscription-cancel', '--base-url', base, '--public-key', pubPath],
    JSON.stringify({ merchantId: 'merchant-7', subscriptionId: 's1' }));
  eq(cancel.code, 3, `cancel exit code (${cancel.stderr})`);
  eq(JSON.parse(cancel.stdout).result.success, false, 'the answer is printed');
});

await test('users-me prints the profile', async () => {
  script['/api/users/me'] = () => [200, { ok: true, result: { id: 'u1', profile: { firstName: 'Ana' } } }];
  const r = await run(['call', 'users-me', '--base-url', base + '/', '--token', 'tok']);
  eq(r.code, 0, `exit code (${r.stderr})`);
  eq(JSON.parse(r.stdout).result.profile.firstName, 'Ana', 'first name');
  eq(seen[0].method, 'GET', 'method');
});

await test('qr-generate sends the merchant token and x-transaction-source', async () => {
  script['/api/purchase/qr/generate'] = (req, body) => {
    const q = JSON.parse(body);
    return [200, { ok: true, result: { totalAmount: q.amount, currency: q.currency, crytoCurrency: q.cryptoCurrency,
      id: 'b3c1', meta: { offerId: q.orderId, receiverAddress: 'bc1qabc',
        qrString: 'bitcoin:bc1qabc?amount=0.0001&value=12.5' } } }];
  };
  const q = { amount: '12.5', currency: 'EUR', cryptoCurrency: 'BTC', orderId: 'o-9',
    cart: [{ id: '1', name: 'Mug', price: 6.25, quantity: 2 }], customerInfo: { name: 'Bo', email: 'bo@example.com' } };
  const r = await run(['call', 'qr-generate', '--base-url', base, '--token', 'merchant-tok'], JSON.stringify(q));
  eq(r.code, 0, `exit code (${r.stderr})`);
  eq(seen[0].headers['x-transaction-source'], 'qr-code-api', 'source header');
  eq(seen[0].headers.authorization, 'Bearer merchant-tok', 'authorization');
  eq(JSON.parse(r.stdout).result.crytoCurrency, 'BTC', 'crytoCurrency kept as spelled');
  if (!r.stderr.includes('DEPRECATED')) throw new Error('no deprecation warning');
});

await test('subscription-debit makes merchantAuth from merchantId when the input has none', async () => {
  script['/api/subscription/debit'] = () => [200, { status: 200, result: { data: [{ transactionId: 't-1', amount: '9.99', currency: 'USD', orderId: 'sub-1', status: 0, subscriptionId: 's1' }], errors: [] } }];
  const r = await run(['call', 'subscription-debit', '--base-url', base, '--public-key', pubPath],
    JSON.stringify({ merchantId: 'merchant-7', items: [{ subscriptionId: 's1', amount: 9.99, currency: 'USD' }] }));
  eq(r.code, 0, `exit code (${r.stderr})`);
  const sent = JSON.parse(seen[0].body);
  eq(decryptChunked(sent.merchantAuth), '{"merchantId":"merchant-7"}', 'merchantAuth plaintext');
  eq(Object.keys(sent).join(','), 'merchantAuth,merchantId,items', 'member order');
  eq(seen[0].headers.authorization, undefined, 'no token given, none sent');
});

// Review: --token was accepted and silently dropped for debit and cancel (a --strict sandbox, or a
// careful service, refuses them without the merchant token).
await test('subscription-debit and -cancel send the merchant token when one is given', async () => {
  script['/api/subscription/debit'] = () => [200, { status: 200, result: { data: [{ transactionId: 't-1', amount: '9.99', currency: 'USD', orderId: 'sub-1', status: 0, subscriptionId: 's1' }], errors: [] } }];
  script['/api/subscription/cancel'] = () => [200, { status: 200, result: { success: true } }];
  const d = await run(['call', 'subscription-debit', '--base-url', base, '--public-key', pubPath, '--token', 'mt-1'],
    JSON.stringify({ merchantId: 'merchant-7', items: [{ subscriptionId: 's1', amount: 9.99, currency: 'USD' }] }));
  eq(d.code, 0, `debit exit code (${d.stderr})`);
  eq(seen[0].headers.authorization, 'Bearer mt-1', 'debit authorization');
  const c = await run(['call', 'subscription-cancel', '--base-url', base, '--public-key', pubPath],
    JSON.stringify({ merchantId: 'merchant-7', merchantAuth: '', subscriptionId: 's1' }), { PAYWASM_TOKEN: 'mt-2' });
  eq(c.code, 0, `cancel exit code (${c.stderr})`);
  eq(seen[1].headers.authorization, 'Bearer mt-2', 'cancel authorization');
});

// paywasm verify-event: what the gateway signs (HMAC-SHA256 over "<t>.<body>"), checked against
// Node's HMAC; tampering, a wrong secret and an old timestamp are refused.
await test('verify-event accepts the signature Node computes and refuses tampering and replays', async () => {
  const secret = 'app-secret-0123456789abcdef';
  const body = JSON.stringify({ id: 'evt_1', type: 'checkout.status', status: 1 });
  const sign = (t, b = body, key = secret) => `t=${t},v1=${crypto.createHmac('sha256', key).update(`${t}.${b}`).digest('hex')}`;
  const now = Math.floor(Date.now() / 1000);
  const env = { PAYWASM_EVENT_SECRET: secret };
  const good = await run(['verify-event', '--signature', sign(now)], body, env);
  eq(good.code, 0, `good exit code (${good.stderr})`);
  eq(good.stdout, body + '\n', 'prints the body');
  const tampered = await run(['verify-event', '--signature', sign(now)], body.replace('1}', '2}'), env);
  eq(tampered.code, 1, 'tampered body');
  if (!/signature does not match/.test(tampered.stderr)) throw new Error('tampered message: ' + tampered.stderr);
  const wrongKey = await run(['verify-event', '--signature', sign(now, body, 'another-secret-0123456')], body, env);
  eq(wrongKey.code, 1, 'wrong secret');
  const old = await run(['verify-event', '--signature', sign(now - 3600)], body, env);
  eq(old.code, 1, 'an hour-old timestamp');
  if (!/outside the tolerance/.test(old.stderr)) throw new Error('old message: ' + old.stderr);
  const tolerated = await run(['verify-event', '--signature', sign(now - 3600), '--tolerance', '7200'], body, env);
  eq(tolerated.code, 0, 'within --tolerance');
  const malformed = await run(['verify-event', '--signature', 'v1=abc'], body, env);
  eq(malformed.code, 1, 'malformed header');
  const noSecret = await run(['verify-event', '--signature', sign(now)], body, { PAYWASM_EVENT_SECRET: '' });
  eq(noSecret.code, 2, 'no secret: usage');
});

// Review: keygen --help offered up to 16384 bits after the core's limit became 8192 (issue 15).
await test('keygen states and enforces the key-size limit of the core (2048..8192 bits)', async () => {
  const help = await run(['keygen', '--help']);
  if (!/from 2048 to 8192 /.test(help.stdout + help.stderr)) throw new Error('help: ' + (help.stdout + help.stderr).slice(0, 400));
  const big = await run(['keygen', '--bits', '8200', '--private', path.join(dir, 'k1.pem'), '--public', path.join(dir, 'k1.pub')]);
  eq(big.code, 1, `8200 bits exit code (${big.stderr})`);
  if (!/2048 to 8192/.test(big.stderr)) throw new Error('message: ' + big.stderr);
  eq(fs.existsSync(path.join(dir, 'k1.pem')), false, 'no key written');
});

await test('wrong usage exits 2 with usage text', async () => {
  const r = await run(['call', 'exchange-pay']);
  eq(r.code, 2, 'exit code');
  if (!r.stderr.includes('usage: paywasm call')) throw new Error('no usage');
  const r2 = await run(['call', 'nope', '--base-url', base]);
  eq(r2.code, 2, 'unknown endpoint exit code');
});

// Review: both commands parsed their input with RapidJSON's recursive parser; 300,000 '[' overflowed
// the stack (SIGSEGV) before any check ran.
await test('input nested 300,000 levels deep is a clear error, not a crash', async () => {
  const deep = '['.repeat(300000);
  const debit = await run(['call', 'subscription-debit', '--base-url', base, '--public-key', pubPath], deep);
  eq(debit.code, 1, `subscription-debit exit code (${debit.stderr.slice(0, 200)})`);
  eq(JSON.parse(debit.stderr).error.code, 'validation', 'subscription-debit error code');
  eq(seen.length, 0, 'requests sent');
  const hook = await run(['verify-webhook', '--public-key', pubPath, '--any-merchant', '-'], deep);
  eq(hook.code, 1, `verify-webhook exit code (${hook.stderr.slice(0, 200)})`);
  if (!/nests deeper than 64 levels/.test(hook.stderr)) throw new Error(`verify-webhook message: ${hook.stderr.slice(0, 200)}`);
});

// Review (issue 30): the service signs every merchant's webhooks with one key, and verify-webhook,
// which SECURITY.md recommends, accepted another merchant's transaction.
await test('verify-webhook --merchant-id refuses another merchant\'s transaction and prints the merchantId', async () => {
  const { publicKey, privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  const hookKey = path.join(dir, 'hook.pub');
  fs.writeFileSync(hookKey, publicKey.export({ type: 'spki', format: 'pem' }));
  const signed = (tx) => {
    const text = JSON.stringify(tx);
    return JSON.stringify({ type: 'rf:alert', data: { data: text, offerId: tx.meta.offerId, transactionId: tx.id, status: tx.status },
      signature: crypto.sign('sha256', Buffer.from(text), privateKey).toString('base64') });
  };
  const tx = { id: 'tx-1', status: 1, merchantId: 'merchant-other', meta: { offerId: 'o-1' } };
  const theirs = await run(['verify-webhook', '--public-key', hookKey, '--merchant-id', 'merchant-mine', '-'], signed(tx));
  eq(theirs.code, 1, `another merchant's transaction: exit code (${theirs.stderr.slice(0, 300)})`);
  if (!/merchant-other/.test(theirs.stderr) || !/merchantId/.test(theirs.stderr)) throw new Error('message: ' + theirs.stderr);
  eq(theirs.stdout, '', 'nothing printed as verified');
  const none = await run(['verify-webhook', '--public-key', hookKey, '--merchant-id', 'merchant-mine', '-'],
    signed({ ...tx, merchantId: undefined }));
  eq(none.code, 1, 'a transaction without merchantId: exit code');
  const mine = await run(['verify-webhook', '--public-key', hookKey, '--merchant-id', 'merchant-other', '-'], signed(tx));
  eq(mine.code, 0, `its own merchant: exit code (${mine.stderr.slice(0, 300)})`);
  if (!/merchant merchant-other\n/.test(mine.stderr)) throw new Error('summary: ' + mine.stderr);
  // Issue 40 P-i: without --merchant-id, another merchant's transaction is not accepted by default.
  const unchecked = await run(['verify-webhook', '--public-key', hookKey, '-'], signed(tx));
  eq(unchecked.code, 2, 'neither --merchant-id nor --any-merchant: a usage error');
  eq(unchecked.stdout, '', 'nothing printed as verified');
  if (!/--any-merchant/.test(unchecked.stderr)) throw new Error('message: ' + unchecked.stderr);
  const any = await run(['verify-webhook', '--public-key', hookKey, '--any-merchant', '-'], signed(tx));
  eq(any.code, 0, '--any-merchant: exit code');
  if (!/merchant merchant-other \(any merchant: --any-merchant\)/.test(any.stderr)) throw new Error('summary: ' + any.stderr);
  eq((await run(['verify-webhook', '--public-key', hookKey, '--any-merchant', '--merchant-id', 'x', '-'], signed(tx))).code, 2, 'not both');
});

server.close();
fs.rmSync(dir, { recursive: true, force: true });
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
