// Server-level tests of paywasm-sandbox: real processes on free ports, bodies encrypted with Node's
// crypto, webhooks checked with Node's crypto.verify and with `paywasm verify-webhook`. Over 600
// lines: one describe() per endpoint and per control-API area, all sharing one started sandbox and
// its keys (a file per area would start a sandbox each).
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import {
  CLI, api, bankPayload, encrypt, exchangePayload, getJson, merchantAuth, payExchange, qrRequest, rawRequest,
  sendJson, sleep, startReceiver, startSandbox, tempDir, transactionCount, waitFor,
} from './harness.mjs';

const EXCHANGE_MESSAGES = {
  418: 'Authentication Failed! Please try again after some time.',
  419: 'Insufficient Balance',
  420: 'Address whitelist is pending!',
  421: 'Coin Wallet is not supported at this moment! please try again after some time.',
  422: 'Amount is less than minimum transaction amount supported by',
};

// One sandbox at speed 1 (nothing moves by itself during a test), serving a fake dist/.
let sb;
let dist;
before(async () => {
  dist = tempDir('paywasm-dist-');
  fs.writeFileSync(path.join(dist, 'paywasm.js'), 'window.PayWasm = {};\n');
  fs.writeFileSync(path.join(dist, 'paywasm.wasm'), Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
  sb = await startSandbox(['--dist', dist]);
});
after(async () => {
  if (sb) {
    const { code } = await sb.stop();
    assert.equal(code, 0, 'SIGTERM ends the sandbox cleanly');
    assert.equal(fs.existsSync(sb.dataDir), false, 'the temporary data directory is removed at exit');
  }
  fs.rmSync(dist, { recursive: true, force: true });
});

describe('control API', () => {
  test('GET /__sandbox/merchant gives ids, tokens, merchantAuth and both public keys', () => {
    const m = sb.merchant;
    assert.match(m.merchantId, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(crypto.createPublicKey(m.publicKey).asymmetricKeyDetails.modulusLength, 2048);
    assert.equal(crypto.createPublicKey(m.webhookPublicKey).asymmetricKeyType, 'rsa');
    assert.notEqual(m.publicKey, m.webhookPublicKey);
    assert.ok(m.merchantAccessToken.length >= 40 && m.shopperToken.length >= 40);
    assert.notEqual(m.merchantAccessToken, m.shopperToken);
    assert.equal(m.padding, 'oaep-sha1');
    assert.deepEqual(m.exchanges, ['coinbase', 'okcoin', 'kraken', 'gemini', 'binanceus']);
  });

  test('faults are validated, listed and cleared', async () => {
    let r = await sendJson('POST', sb.base + '/__sandbox/faults', { endpoint: 'exchange-pay', kind: 'error-499' });
    assert.equal(r.status, 400);
    assert.equal(r.body.field, 'kind');
    r = await sendJson('POST', sb.base + '/__sandbox/faults', { endpoint: 'nowhere', kind: '500' });
    assert.equal(r.status, 400);
    assert.equal(r.body.field, 'endpoint');
    r = await sendJson('POST', sb.base + '/__sandbox/faults', { endpoint: 'users-me', kind: 'latency', ms: 10, count: 3 });
    assert.equal(r.status, 201);
    assert.deepEqual(await getJson(sb.base + '/__sandbox/faults'),
      [{ id: r.body.id, endpoint: 'users-me', kind: 'latency', count: 3, ms: 10 }]);
    r = await sendJson('DELETE', sb.base + '/__sandbox/faults');
    assert.deepEqual(await getJson(sb.base + '/__sandbox/faults'), []);
  });

  test('unknown control paths and bad control bodies are JSON errors', async () => {
    let r = await sendJson('GET', sb.base + '/__sandbox/nothing-here');
    assert.equal(r.status, 404);
    assert.equal(r.body.error, 'not_found');
    r = await sendJson('POST', sb.base + '/__sandbox/transactions/no-such-id/advance');
    assert.equal(r.status, 404);
    r = await sendJson('PUT', sb.base + '/__sandbox/webhook', { url: 'ftp://example.com/x' });
    assert.equal(r.status, 400);
    assert.equal(r.body.field, 'url');
    r = await sendJson('PUT', sb.base + '/__sandbox/merchant', { padding: 'rot13' });
    assert.equal(r.status, 400);
  });
});

describe('GET /users/me', () => {
  test('needs the shopper token', async () => {
    for (const token of [undefined, 'wrong-token', sb.merchant.merchantAccessToken]) {
      const r = await api(sb, '/users/me', { method: 'GET', token });
      assert.equal(r.status, 401, `token ${token}`);
      assert.match(r.headers.get('www-authenticate'), /^Bearer /);
      assert.equal(r.json.code, 401);
      assert.ok(r.json.message.length > 0);
    }
  });

  test('returns {ok, result} with the profile PUT /__sandbox/shopper set', async () => {
    let r = await api(sb, '/users/me', { method: 'GET', token: sb.merchant.shopperToken });
    assert.equal(r.status, 200);
    assert.equal(r.json.ok, true);
    const p = r.json.result;
    for (const key of ['id', 'email', 'username', 'fullname', 'avatar', 'profile', 'status', 'type', 'kybCryptoStatus',
      'kybBankStatus', 'shopData', 'withdrawalAddresses', 'ssoStatus', 'enableCancelSubscription', 'verification',
      'graphSettings', 'is2faEnabled', 'enableBankPayment', 'verificationStatus']) {
      assert.ok(key in p, key);
    }
    assert.match(p.profile.dateOfBirth, /^\d{2}-\d{2}-\d{4}$/);
    const put = await sendJson('PUT', sb.base + '/__sandbox/shopper', { profile: { firstName: '<b>Zoë</b>' } });
    assert.equal(put.status, 200);
    r = await api(sb, '/users/me', { method: 'GET', token: sb.merchant.shopperToken });
    assert.equal(r.json.result.profile.firstName, '<b>Zoë</b>');
    assert.equal(r.json.result.profile.lastName, p.profile.lastName, 'the rest of the profile is kept');
    await sendJson('PUT', sb.base + '/__sandbox/shopper', { reset: true });
  });
});

describe('POST /exchanges/payments/{exchange}', () => {
  test('answers a full Transaction and keeps the exact decrypted plaintext', async () => {
    const payload = exchangePayload(sb.merchant);
    const text = JSON.stringify(payload);
    assert.ok(Buffer.byteLength(text) > 3 * 214, 'the payload needs four OAEP-SHA-1 blocks');
    const r = await payExchange(sb, payload, { exchange: 'coinbase' });
    assert.equal(r.status, 200, r.text);
    const tx = r.json;
    const strings = ['id', 'nativeAmount', 'nativeCurrency', 'amount', 'receivedAmount', 'currency', 'merchantId',
      'settlementId', 'localAmount', 'localCurrency', 'merchantPayableAmount', 'txMetaId', 'createdBy', 'createdAt',
      'updatedAt'];
    for (const key of strings) assert.equal(typeof tx[key], 'string', key);
    for (const key of ['status', 'type', 'statusRefund', 'settlementStatus', 'receivedAmountFinal', 'receivedAmountCal']) {
      assert.equal(typeof tx[key], 'number', key);
    }
    for (const key of ['description', 'stockId', 'partnerId', 'errorMessage', 'stock', 'partner']) assert.ok(key in tx, key);
    assert.equal(tx.status, 0, 'an exchange payment starts pending');
    assert.equal(tx.merchantId, sb.merchant.merchantId);
    assert.equal(tx.nativeAmount, '64.00');
    assert.equal(tx.currency, 'BTC');
    assert.equal(tx.amount, '0.00100000', '64 USD at the sandbox rate of 64000 USD/BTC');
    assert.match(tx.createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    assert.equal(typeof tx.referenceCoinbase, 'string');
    assert.equal(tx.meta.offerId, payload.offerId);
    assert.ok(Array.isArray(tx.meta.hash.value));
    assert.match(tx.meta.receiverAddress, /^bc1q[a-z0-9]{38}$/);
    assert.equal(tx.check.length, 2);
    assert.deepEqual(Object.keys(tx.check[0]),
      ['id', 'num', 'name', 'price', 'quantity', 'localAmount', 'statusRefund', 'amountFinal']);
    assert.equal(tx.check[0].amountFinal, 49);
    assert.deepEqual(tx.merchant.shopData.companyName.length > 0, true);
    assert.deepEqual(tx.customer, { email: 'grace@example.com', fullname: 'Grace Hopper' });
    assert.equal(tx.currencyInfo.isFiat, false);
    assert.deepEqual(tx.txMetadata.shippingAddress, payload.shippingAddress);
    assert.equal(tx.txMetadata.nativeConversionRate, '64000.00');
    assert.equal(tx.subscriptionOrder, true);
    assert.equal(tx.subscriptionIds.length, 1);

    const entry = await getJson(`${sb.base}/__sandbox/transactions/${tx.id}`);
    assert.equal(entry.plaintextText, text, 'the control API shows the exact decrypted bytes');
    assert.deepEqual(entry.plaintext, payload);
    assert.equal(entry.padding, 'oaep-sha1');
    assert.equal(entry.exchange, 'coinbase');
    let subs = await getJson(sb.base + '/__sandbox/subscriptions');
    let sub = subs.find((s) => s.id === tx.subscriptionIds[0]);
    assert.equal(sub.status, 'pending', 'a subscription starts when its order is paid');
    assert.equal(sub.item.merchantSubscriptionId, 'club-42');
    await sendJson('POST', `${sb.base}/__sandbox/transactions/${tx.id}/advance`);
    subs = await getJson(sb.base + '/__sandbox/subscriptions');
    sub = subs.find((s) => s.id === tx.subscriptionIds[0]);
    assert.equal(sub.status, 'active');
  });

  test('accepts each padding the merchant setting allows, and only those', async () => {
    const count = await transactionCount(sb);
    let r = await payExchange(sb, exchangePayload(sb.merchant), { padding: 'pkcs1v15' });
    assert.equal(r.status, 400, 'oaep-sha1 is configured');
    assert.equal(r.json.error, 'decryption_failed');
    assert.equal(r.json.field, 'data');
    for (const padding of ['oaep-sha256', 'pkcs1v15']) {
      await sendJson('PUT', sb.base + '/__sandbox/merchant', { padding });
      r = await payExchange(sb, exchangePayload(sb.merchant), { padding });
      assert.equal(r.status, 200, `${padding}: ${r.text}`);
      assert.equal((await getJson(`${sb.base}/__sandbox/transactions/${r.json.id}`)).padding, padding);
    }
    // `any` keeps PKCS#1 v1.5 on for every client: only behind --insecure-any-padding (below).
    const any = await sendJson('PUT', sb.base + '/__sandbox/merchant', { padding: 'any' });
    assert.equal(any.status, 400);
    assert.equal(any.body.field, 'padding');
    assert.match(any.body.message, /--insecure-any-padding/);
    assert.equal((await sendJson('PUT', sb.base + '/__sandbox/merchant', { padding: 'oaep-sha1' })).status, 200);
    assert.equal(await transactionCount(sb), count + 2);
  });

  test('checks the shopper token first', async () => {
    const count = await transactionCount(sb);
    for (const token of ['', 'nope', sb.merchant.merchantAccessToken]) {
      const r = await payExchange(sb, exchangePayload(sb.merchant), { token });
      assert.equal(r.status, 401);
      assert.equal(r.json.error, 'unauthorized');
    }
    assert.equal(await transactionCount(sb), count, 'no transaction without credentials');
  });

  test('an unknown exchange is 404 and stores nothing', async () => {
    const count = await transactionCount(sb);
    const r = await payExchange(sb, exchangePayload(sb.merchant), { exchange: 'mtgox' });
    assert.equal(r.status, 404);
    assert.equal(r.json.error, 'unknown_exchange');
    assert.match(r.json.message, /mtgox/);
    assert.equal(await transactionCount(sb), count);
  });

  test('bad input of every kind is a 4xx naming the problem, and stores nothing', async () => {
    const m = sb.merchant;
    const count = await transactionCount(sb);
    const shopper = m.shopperToken;
    const cases = [
      ['undecryptable data', { body: { data: crypto.randomBytes(256).toString('base64') } }, 400, 'decryption_failed', 'data'],
      ['data that is not base64', { body: { data: '***' } }, 400, 'decryption_failed', 'data'],
      ['data for another key', {
        body: { data: encrypt(crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' }), '{}') },
      }, 400, 'decryption_failed', 'data'],
      ['a zero quantity', { body: { data: encrypt(m.publicKey, JSON.stringify(exchangePayload(m, {
        cart: [{ id: 'a', name: 'A', price: 5, quantity: 0, localAmount: 0, localCurrency: 'USD' }], nativeAmount: '0',
      }))) } }, 400, 'validation', 'cart[0].quantity'],
      ['a wrong total', { body: { data: encrypt(m.publicKey, JSON.stringify(exchangePayload(m, { nativeAmount: '1.00' }))) } },
        400, 'validation', 'nativeAmount'],
      ['a price of the wrong type', { body: { data: encrypt(m.publicKey, JSON.stringify(exchangePayload(m, {
        cart: [{ id: 'a', name: 'A', price: '5', quantity: 1, localAmount: 5, localCurrency: 'USD' }], nativeAmount: '5',
      }))) } }, 400, 'validation', 'cart[0].price'],
      ['another merchant\'s clientId', { body: { data: encrypt(m.publicKey, JSON.stringify(exchangePayload(m, {
        clientId: crypto.randomUUID(),
      }))) } }, 400, 'validation', 'clientId'],
      ['plaintext that is not JSON', { body: { data: encrypt(m.publicKey, 'hello') } }, 400, 'validation', undefined],
      ['a missing data member', { body: { payload: 'x' } }, 400, 'validation', 'data'],
      ['data of the wrong type', { body: { data: 42 } }, 400, 'validation', 'data'],
      ['malformed JSON', { raw: '{"data": "abc' }, 400, 'invalid_json', undefined],
      ['a JSON array', { raw: '[1,2]' }, 400, 'invalid_json', undefined],
      ['the wrong content type', { raw: 'data=abc', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
        415, 'unsupported_media_type', undefined],
      ['an empty body', { raw: '' }, 400, 'invalid_json', undefined],
    ];
    for (const [what, request, status, error, field] of cases) {
      const r = await api(sb, '/exchanges/payments/kraken', { token: shopper, ...request });
      assert.equal(r.status, status, `${what}: ${r.text}`);
      assert.equal(r.json.code, status, what);
      assert.equal(r.json.error, error, what);
      if (field) assert.equal(r.json.field, field, what);
      assert.ok(r.json.message.length > 0, what);
    }
    assert.equal(await transactionCount(sb), count);
  });

  test('a body over the limit is refused with 413, none of it kept, and the server keeps serving', async () => {
    const huge = JSON.stringify({ data: 'A'.repeat(300 * 1024) });
    const answer = await new Promise((resolve, reject) => {
      const url = new URL(sb.base + '/api/exchanges/payments/kraken');
      const req = http.request({
        host: url.hostname, port: url.port, path: url.pathname, method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(huge),
          authorization: 'Bearer ' + sb.merchant.shopperToken },
      }, (res) => {
        let text = '';
        res.on('data', (d) => { text += d; });
        res.on('end', () => resolve({ status: res.statusCode, text }));
      });
      req.on('error', reject);
      req.end(huge);
    });
    assert.equal(answer.status, 413);
    assert.equal(JSON.parse(answer.text).error, 'payload_too_large');
    const r = await api(sb, '/users/me', { method: 'GET', token: sb.merchant.shopperToken });
    assert.equal(r.status, 200);
  });

  test('a body announced far over the limit is refused unread', async () => {
    const answer = await new Promise((resolve, reject) => {
      const url = new URL(sb.base + '/api/purchases');
      const req = http.request({
        host: url.hostname, port: url.port, path: url.pathname, method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': 64 * 1024 * 1024,
          authorization: 'Bearer ' + sb.merchant.shopperToken },
      }, (res) => {
        let text = '';
        res.on('data', (d) => { text += d; });
        res.on('end', () => { req.destroy(); resolve({ status: res.statusCode, text, connection: res.headers.connection }); });
      });
      req.on('error', (e) => (e.code === 'EPIPE' || e.code === 'ECONNRESET' ? undefined : reject(e)));
      req.flushHeaders();  // the headers only: the answer must come without a byte of the 64 MiB
    });
    assert.equal(answer.status, 413);
    assert.equal(answer.connection, 'close');
    assert.equal(JSON.parse(answer.text).error, 'payload_too_large');
  });

  test('a chunked body without Content-Length is refused at the limit too', async () => {
    const answer = await new Promise((resolve, reject) => {
      const url = new URL(sb.base + '/api/purchases');
      const req = http.request({
        host: url.hostname, port: url.port, path: url.pathname, method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer ' + sb.merchant.shopperToken },
      }, (res) => {
        let text = '';
        res.on('data', (d) => { text += d; });
        res.on('end', () => resolve({ status: res.statusCode, text }));
      });
      req.on('error', (e) => (e.code === 'EPIPE' || e.code === 'ECONNRESET' ? undefined : reject(e)));
      req.write('{"data":"');
      const chunk = 'B'.repeat(64 * 1024);
      let sent = 0;
      const pump = () => {
        while (sent < 6 && req.write(chunk)) sent++;
        if (sent < 6) req.once('drain', () => { sent++; pump(); });
        else req.end('"}');
      };
      pump();
    });
    assert.equal(answer.status, 413);
    assert.equal(JSON.parse(answer.text).code, 413);
    assert.equal((await api(sb, '/users/me', { method: 'GET', token: sb.merchant.shopperToken })).status, 200);
  });

  test('the same offerId again returns the existing transaction (idempotency)', async () => {
    const payload = exchangePayload(sb.merchant);
    const first = await payExchange(sb, payload);
    const count = await transactionCount(sb);
    const second = await payExchange(sb, payload);  // the same body, freshly encrypted
    assert.equal(second.status, 200);
    assert.equal(second.json.id, first.json.id);
    assert.equal(second.headers.get('idempotent-replayed'), 'true');
    assert.equal(first.headers.get('idempotent-replayed'), null);
    assert.equal(await transactionCount(sb), count);
  });

  test('the same offerId with another body is 409 and shows nothing of the stored payment', async () => {
    const payload = exchangePayload(sb.merchant);
    const first = await payExchange(sb, payload);
    assert.equal(first.status, 200, first.text);
    const count = await transactionCount(sb);
    for (const other of [{ ...payload, assets: 'ETH' }, { ...payload, shippingAddress: { ...payload.shippingAddress, city: 'Elsewhere' } }]) {
      const r = await payExchange(sb, other);
      assert.equal(r.status, 409, r.text);
      assert.deepEqual(Object.keys(r.json), ['code', 'error', 'message', 'field']);
      assert.equal(r.json.error, 'idempotency_conflict');
      assert.equal(r.json.field, 'offerId');
      assert.equal(r.headers.get('idempotent-replayed'), null);
      for (const secret of [first.json.id, 'Grace', 'Navy Yard', first.json.meta.receiverAddress]) {
        assert.ok(!r.text.includes(secret), `the answer carries nothing of the stored payment (${secret})`);
      }
    }
    // A bank payment (another request) with the exchange payment's offerId: the same answer.
    const bank = await api(sb, '/purchases', { token: sb.merchant.shopperToken,
      body: { data: encrypt(sb.merchant.publicKey, JSON.stringify(bankPayload(sb.merchant, { offerId: payload.offerId }))) } });
    assert.equal(bank.status, 409, bank.text);
    assert.equal(bank.json.error, 'idempotency_conflict');
    // A QR request for the same order id from the merchant's side.
    const qr = await api(sb, '/purchase/qr/generate', { token: sb.merchant.merchantAccessToken,
      headers: { 'x-transaction-source': 'qr-code-api' }, body: qrRequest({ orderId: payload.offerId }) });
    assert.equal(qr.status, 409, qr.text);
    assert.equal(await transactionCount(sb), count);
  });

  test('a coin the sandbox does not know is error 421', async () => {
    const r = await payExchange(sb, exchangePayload(sb.merchant, { assets: 'XYZ' }));
    assert.equal(r.status, 400);
    assert.deepEqual(r.json, { code: 421, message: EXCHANGE_MESSAGES[421] });
  });
});

describe('exchange error simulation', () => {
  for (const code of [418, 419, 420, 421, 422]) {
    test(`error-${code} answers HTTP 400 with {code, message} and stores nothing`, async () => {
      const count = await transactionCount(sb);
      await sendJson('POST', sb.base + '/__sandbox/faults', { endpoint: 'exchange-pay', kind: `error-${code}` });
      const r = await payExchange(sb, exchangePayload(sb.merchant), { exchange: 'gemini' });
      assert.equal(r.status, 400);
      assert.equal(r.json.code, code);
      if (code === 422) assert.match(r.json.message, /^Amount is less than minimum transaction amount supported by Gemini/);
      else assert.equal(r.json.message, EXCHANGE_MESSAGES[code]);
      assert.equal(await transactionCount(sb), count);
      const again = await payExchange(sb, exchangePayload(sb.merchant));
      assert.equal(again.status, 200, 'a fault with count 1 is used up');
    });
  }

  test('the other forms carry the code as the HTTP status or with HTTP 200', async () => {
    await sendJson('POST', sb.base + '/__sandbox/faults', { endpoint: 'exchange-pay', kind: 'error-419', form: 'status' });
    await sendJson('POST', sb.base + '/__sandbox/faults', { endpoint: 'exchange-pay', kind: 'error-420', form: 'body-200' });
    let r = await payExchange(sb, exchangePayload(sb.merchant));
    assert.equal(r.status, 419);
    assert.deepEqual(r.json, { code: 419, message: EXCHANGE_MESSAGES[419] });
    r = await payExchange(sb, exchangePayload(sb.merchant));
    assert.equal(r.status, 200);
    assert.deepEqual(r.json, { code: 420, message: EXCHANGE_MESSAGES[420] });
  });

  test('count N fails the next N requests; a per-shopper error sticks until cleared', async () => {
    await sendJson('POST', sb.base + '/__sandbox/faults', { endpoint: '*', kind: 'error-418', count: 2 });
    assert.equal((await payExchange(sb, exchangePayload(sb.merchant))).json.code, 418);
    assert.equal((await payExchange(sb, exchangePayload(sb.merchant))).json.code, 418);
    assert.equal((await payExchange(sb, exchangePayload(sb.merchant))).status, 200);

    await sendJson('PUT', sb.base + '/__sandbox/shopper', { exchangeError: 419 });
    assert.equal((await payExchange(sb, exchangePayload(sb.merchant))).json.code, 419);
    assert.equal((await payExchange(sb, exchangePayload(sb.merchant))).json.code, 419);
    await sendJson('PUT', sb.base + '/__sandbox/shopper', { exchangeError: null });
    assert.equal((await payExchange(sb, exchangePayload(sb.merchant))).status, 200);
  });

  test('errors come after authentication and validation', async () => {
    await sendJson('POST', sb.base + '/__sandbox/faults', { endpoint: 'exchange-pay', kind: 'error-419' });
    assert.equal((await payExchange(sb, exchangePayload(sb.merchant), { token: 'bad' })).status, 401);
    assert.equal((await payExchange(sb, exchangePayload(sb.merchant, { nativeAmount: '1' }))).status, 400);
    assert.equal((await payExchange(sb, exchangePayload(sb.merchant))).json.code, 419, 'still queued');
  });
});

describe('transport faults', () => {
  test('500 answers a JSON 500 and stores nothing', async () => {
    const count = await transactionCount(sb);
    await sendJson('POST', sb.base + '/__sandbox/faults', { endpoint: 'exchange-pay', kind: '500' });
    const r = await payExchange(sb, exchangePayload(sb.merchant));
    assert.equal(r.status, 500);
    assert.equal(r.json.code, 500);
    assert.equal(await transactionCount(sb), count);
  });

  test('malformed-json stores the payment but answers broken JSON', async () => {
    const count = await transactionCount(sb);
    await sendJson('POST', sb.base + '/__sandbox/faults', { endpoint: 'exchange-pay', kind: 'malformed-json' });
    const payload = exchangePayload(sb.merchant);
    const r = await payExchange(sb, payload);
    assert.equal(r.status, 200);
    assert.equal(r.json, null, 'not parseable: ' + r.text.slice(0, 60));
    assert.ok(r.text.startsWith('{"id":"'));
    assert.equal(await transactionCount(sb), count + 1);
    const retry = await payExchange(sb, payload);
    assert.equal(retry.headers.get('idempotent-replayed'), 'true', 'a retry with the same offerId is safe');
  });

  test('drop closes the connection without an answer', async () => {
    await sendJson('POST', sb.base + '/__sandbox/faults', { endpoint: 'users-me', kind: 'drop' });
    await assert.rejects(api(sb, '/users/me', { method: 'GET', token: sb.merchant.shopperToken }), TypeError);
    assert.equal((await api(sb, '/users/me', { method: 'GET', token: sb.merchant.shopperToken })).status, 200);
  });

  test('latency delays the answer by ms', async () => {
    await sendJson('POST', sb.base + '/__sandbox/faults', { endpoint: 'users-me', kind: 'latency', ms: 400 });
    const started = Date.now();
    const r = await api(sb, '/users/me', { method: 'GET', token: sb.merchant.shopperToken });
    assert.equal(r.status, 200);
    assert.ok(Date.now() - started >= 390, 'took ' + (Date.now() - started) + ' ms');
  });
});

describe('POST /purchases (bank)', () => {
  test('answers a pending fiat Transaction', async () => {
    const payload = bankPayload(sb.merchant);
    const r = await api(sb, '/purchases', {
      token: sb.merchant.shopperToken,
      body: { data: encrypt(sb.merchant.publicKey, JSON.stringify(payload)) },
    });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.status, 0);
    assert.equal(r.json.amount, '49.00');
    assert.equal(r.json.currency, 'USD');
    assert.equal(r.json.currencyInfo.isFiat, true);
    assert.equal(r.json.stockId, 'bank-acct-77');
    assert.equal(r.json.meta.receiverAddress, 'acct-merchant-1');
    const entry = await getJson(`${sb.base}/__sandbox/transactions/${r.json.id}`);
    assert.equal(entry.kind, 'bank');
    assert.deepEqual(entry.plaintext, payload);
  });

  test('needs the shopper token and valid data', async () => {
    let r = await api(sb, '/purchases', { body: { data: 'x' } });
    assert.equal(r.status, 401);
    r = await api(sb, '/purchases', {
      token: sb.merchant.shopperToken,
      body: { data: encrypt(sb.merchant.publicKey, JSON.stringify(bankPayload(sb.merchant, { accountId: '' }))) },
    });
    assert.equal(r.status, 400);
    assert.equal(r.json.field, 'accountId');
  });
});

describe('POST /purchase/qr/generate', () => {
  const headers = { 'x-transaction-source': 'qr-code-api' };

  test('needs the merchant token and x-transaction-source', async () => {
    const count = await transactionCount(sb);
    for (const [token, h] of [[undefined, headers], [sb.merchant.shopperToken, headers],
      [sb.merchant.merchantAccessToken, {}], [sb.merchant.merchantAccessToken, { 'x-transaction-source': 'web' }]]) {
      const r = await api(sb, '/purchase/qr/generate', { token, headers: h, body: qrRequest() });
      assert.equal(r.status, 401);
    }
    assert.equal(await transactionCount(sb), count);
  });

  test('returns {ok, result} with a payment URI whose amount and value match', async () => {
    const request = qrRequest();
    const r = await api(sb, '/purchase/qr/generate', { token: sb.merchant.merchantAccessToken, headers, body: request });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.ok, true);
    const q = r.json.result;
    assert.deepEqual(Object.keys(q), ['totalAmount', 'currency', 'crytoCurrency', 'id', 'meta']);
    assert.equal(q.crytoCurrency, 'BTC');
    assert.equal(q.currency, 'USD');
    assert.equal(q.totalAmount, '49.00', 'in currency (fiat)');
    assert.equal(q.meta.offerId, request.orderId);
    assert.equal(q.meta.qrString, `bitcoin:${q.meta.receiverAddress}?amount=0.00076563&value=49.00`);
    // The core's own check of payment URIs accepts it.
    execFileSync(CLI, ['qr', '--check-uri', '--format', 'text', q.meta.qrString]);

    const again = await api(sb, '/purchase/qr/generate', { token: sb.merchant.merchantAccessToken, headers, body: request });
    assert.deepEqual(again.json, r.json, 'same orderId, same QR transaction');
    assert.equal(again.headers.get('idempotent-replayed'), 'true');

    const paid = await payExchange(sb, exchangePayload(sb.merchant));
    const clash = await api(sb, '/purchase/qr/generate', { token: sb.merchant.merchantAccessToken, headers,
      body: qrRequest({ orderId: paid.json.meta.offerId }) });
    assert.equal(clash.status, 409, 'an orderId an exchange payment already used');

    const entry = await getJson(`${sb.base}/__sandbox/transactions/${q.id}`);
    assert.equal(entry.status, 10);
    assert.equal(entry.transaction.type, 1);
  });

  test('invalid requests are 400 with the field', async () => {
    const r = await api(sb, '/purchase/qr/generate', {
      token: sb.merchant.merchantAccessToken, headers, body: qrRequest({ customerInfo: { name: 'X', email: 'not-an-email' } }),
    });
    assert.equal(r.status, 400);
    assert.equal(r.json.field, 'customerInfo.email');
  });
});

describe('status changes', () => {
  test('advance walks a QR payment 10 -> 0 -> 1 and the outcome can be chosen', async () => {
    const r = await api(sb, '/purchase/qr/generate', {
      token: sb.merchant.merchantAccessToken, headers: { 'x-transaction-source': 'qr-code-api' }, body: qrRequest(),
    });
    const id = r.json.result.id;
    let tx = (await sendJson('POST', `${sb.base}/__sandbox/transactions/${id}/advance`)).body;
    assert.equal(tx.status, 0);
    assert.equal(tx.meta.hash.value.length, 1, 'a chain hash once the payment is seen');
    tx = (await sendJson('POST', `${sb.base}/__sandbox/transactions/${id}/advance`, { outcome: 101 })).body;
    assert.equal(tx.status, 101);
    assert.equal(tx.receivedAmount, '0.00038282');
    assert.match(tx.errorMessage, /Partial payment/);
    const final = await sendJson('POST', `${sb.base}/__sandbox/transactions/${id}/advance`);
    assert.equal(final.status, 409, 'a final status has no next one');
    const bad = await sendJson('POST', `${sb.base}/__sandbox/transactions/${id}/advance`, { status: 7 });
    assert.equal(bad.status, 400);
  });
});

describe('subscriptions', () => {
  let subscriptionId;
  let orderId;
  before(async () => {
    const payload = exchangePayload(sb.merchant);
    orderId = payload.offerId;
    const r = await payExchange(sb, payload);
    subscriptionId = r.json.subscriptionIds[0];
    await sendJson('POST', `${sb.base}/__sandbox/transactions/${r.json.id}/advance`);  // paid: it starts
  });

  const debit = (body) => api(sb, '/subscription/debit', { body });
  const cancel = (body) => api(sb, '/subscription/cancel', { body });

  test('debit and cancel need merchantId and a merchantAuth that decrypts to it', async () => {
    const m = sb.merchant;
    const items = [{ subscriptionId, amount: 15, currency: 'USD' }];
    for (const body of [
      { merchantId: m.merchantId, items },
      { merchantAuth: m.merchantAuth, items },
      { merchantId: crypto.randomUUID(), merchantAuth: m.merchantAuth, items },
      { merchantId: m.merchantId, merchantAuth: merchantAuth(m, crypto.randomUUID()), items },
      { merchantId: m.merchantId, merchantAuth: 'garbage', items },
    ]) {
      const r = await debit(body);
      assert.equal(r.status, 401, JSON.stringify(body).slice(0, 80));
    }
    const r = await cancel({ merchantId: m.merchantId, merchantAuth: 'garbage', subscriptionId });
    assert.equal(r.status, 401);
  });

  test('debit creates one transaction per item; unknown ids land in errors', async () => {
    const m = sb.merchant;
    const count = await transactionCount(sb);
    const r = await debit({
      merchantAuth: merchantAuth(m), merchantId: m.merchantId, orderId: 'renewal-1',
      items: [{ subscriptionId, amount: 15, currency: 'USD' }, { subscriptionId: 'sub-unknown', amount: 15, currency: 'USD' }],
    });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.status, 200);
    assert.equal(r.json.result.data.length, 1);
    const d = r.json.result.data[0];
    assert.deepEqual(Object.keys(d),
      ['transactionId', 'amount', 'currency', 'rateDivisor', 'orderId', 'status', 'userId', 'merchantId', 'subscriptionId']);
    assert.equal(d.amount, '15.00');
    assert.equal(d.currency, 'USD');
    assert.equal(d.orderId, 'renewal-1');
    assert.equal(d.status, 0);
    assert.equal(d.subscriptionId, subscriptionId);
    assert.deepEqual(r.json.result.errors, [{ subscriptionId: 'sub-unknown', reason: 'not_found', message: 'no subscription with this id' }]);
    const euro = await debit({ merchantAuth: merchantAuth(m), merchantId: m.merchantId,
      items: [{ subscriptionId, amount: 15, currency: 'EUR' }] });
    assert.equal(euro.json.result.errors[0].reason, 'currency_mismatch');
    const entry = await getJson(`${sb.base}/__sandbox/transactions/${d.transactionId}`);
    assert.equal(entry.kind, 'debit');
    assert.equal(entry.transaction.meta.merchantSubscriptionId, 'club-42');
    assert.equal(await transactionCount(sb), count + 1);

    const again = await debit({ merchantAuth: merchantAuth(m), merchantId: m.merchantId, orderId: 'renewal-1',
      items: [{ subscriptionId, amount: 15, currency: 'USD' }] });
    assert.equal(again.json.result.data[0].transactionId, d.transactionId, 'same orderId: no second charge');

    const byOrder = await debit({ merchantAuth: merchantAuth(m), merchantId: m.merchantId, orderId });
    assert.equal(byOrder.json.result.data.length, 1, 'without items, the order\'s subscriptions are debited');
    assert.equal(await transactionCount(sb), count + 2);
  });

  test('a debit above the subscription\'s price is refused', async () => {
    const m = sb.merchant;
    const count = await transactionCount(sb);
    const r = await debit({ merchantAuth: merchantAuth(m), merchantId: m.merchantId,
      items: [{ subscriptionId, amount: 15.01, currency: 'USD' }] });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.result.data.length, 0);
    assert.equal(r.json.result.errors[0].reason, 'amount_too_high');
    assert.match(r.json.result.errors[0].message, /15\.00 USD/);
    assert.equal(await transactionCount(sb), count, 'nothing was charged');
  });

  test('subscriptions of an order that failed or timed out never start and cannot be debited', async () => {
    const m = sb.merchant;
    const count = await transactionCount(sb);
    const pending = await payExchange(sb, exchangePayload(m));
    const failed = await payExchange(sb, exchangePayload(m));
    await sendJson('POST', `${sb.base}/__sandbox/transactions/${failed.json.id}/advance`, { status: -1 });
    const qr = await api(sb, '/purchase/qr/generate', { token: m.merchantAccessToken,
      headers: { 'x-transaction-source': 'qr-code-api' },
      body: qrRequest({ amount: '64.00', cart: exchangePayload(m).cart.map(({ localAmount, localCurrency, ...c }) => c) }) });
    assert.equal(qr.status, 200, qr.text);
    const qrEntry = await getJson(`${sb.base}/__sandbox/transactions/${qr.json.result.id}`);
    await sendJson('POST', `${sb.base}/__sandbox/transactions/${qr.json.result.id}/advance`, { status: 19 });
    const ids = [pending.json.subscriptionIds[0], failed.json.subscriptionIds[0], qrEntry.transaction.subscriptionIds[0]];
    const subs = await getJson(sb.base + '/__sandbox/subscriptions');
    assert.deepEqual(ids.map((id) => subs.find((x) => x.id === id).status), ['pending', 'void', 'void']);
    const r = await debit({ merchantAuth: merchantAuth(m), merchantId: m.merchantId,
      items: ids.map((id) => ({ subscriptionId: id, amount: 15, currency: 'USD' })) });
    assert.equal(r.json.result.data.length, 0, 'nothing debited');
    assert.deepEqual(r.json.result.errors.map((e) => e.reason), ['not_active', 'payment_failed', 'payment_failed']);
    const byOrder = await debit({ merchantAuth: merchantAuth(m), merchantId: m.merchantId,
      orderId: failed.json.meta.offerId });
    assert.equal(byOrder.json.result.data.length, 0, 'debiting the failed order by its id charges nothing');
    assert.equal(await transactionCount(sb), count + 3);
  });

  test('cancel marks it cancelled; debiting it then is an error with a reason', async () => {
    const m = sb.merchant;
    let r = await cancel({ merchantId: m.merchantId, merchantAuth: merchantAuth(m), subscriptionId });
    assert.deepEqual(r.json, { status: 200, result: { success: true } });
    r = await cancel({ merchantId: m.merchantId, merchantAuth: merchantAuth(m), subscriptionId });
    assert.equal(r.json.result.success, false);
    r = await cancel({ merchantId: m.merchantId, merchantAuth: merchantAuth(m), subscriptionId: 'sub-unknown' });
    assert.equal(r.status, 404);
    r = await debit({ merchantAuth: merchantAuth(m), merchantId: m.merchantId,
      items: [{ subscriptionId, amount: 15, currency: 'USD' }] });
    assert.equal(r.json.result.data.length, 0);
    assert.equal(r.json.result.errors[0].reason, 'cancelled');
    const subs = await getJson(sb.base + '/__sandbox/subscriptions');
    assert.equal(subs.find((s) => s.id === subscriptionId).status, 'cancelled');
  });

});

describe('webhooks', () => {
  let receiver;
  before(async () => {
    receiver = await startReceiver();
    const r = await sendJson('PUT', sb.base + '/__sandbox/webhook', { url: receiver.url });
    assert.equal(r.body.url, receiver.url);
  });
  after(async () => {
    await sendJson('PUT', sb.base + '/__sandbox/webhook', { url: null });
    await receiver.close();
  });

  test('every status change is POSTed, signed over data.data', async () => {
    const payload = exchangePayload(sb.merchant);
    const r = await payExchange(sb, payload);
    await sendJson('POST', `${sb.base}/__sandbox/transactions/${r.json.id}/advance`);
    const mine = () => receiver.received.filter((e) => JSON.parse(e.body).data.transactionId === r.json.id);
    await waitFor(() => mine().length === 2, 5000, 'two webhooks');
    const [created, completed] = mine().map((e) => JSON.parse(e.body));
    for (const event of [created, completed]) {
      assert.deepEqual(Object.keys(event), ['type', 'data', 'signature']);
      assert.equal(event.type, 'rf:alert');
      assert.deepEqual(Object.keys(event.data),
        ['data', 'offerId', 'transactionId', 'amount', 'currency', 'status', 'receivedAmount']);
      const ok = crypto.verify('sha256', Buffer.from(event.data.data), sb.merchant.webhookPublicKey,
        Buffer.from(event.signature, 'base64'));
      assert.equal(ok, true, 'Node verifies the RSA PKCS#1 v1.5 SHA-256 signature');
      const tx = JSON.parse(event.data.data);
      assert.equal(tx.status, event.data.status);
      assert.equal(tx.meta.offerId, payload.offerId);
    }
    assert.equal(created.data.status, 0);
    assert.equal(completed.data.status, 1);
    assert.equal(JSON.parse(completed.data.data).receivedAmount, completed.data.receivedAmount);

    const log = await getJson(sb.base + '/__sandbox/webhooks');
    const entry = log.find((e) => e.transactionId === r.json.id && e.status === 1);
    assert.equal(entry.state, 'delivered');
    assert.equal(entry.lastHttpStatus, 200);
    assert.equal(entry.deliveries.length, 1);
  });

  test('paywasm verify-webhook accepts a genuine webhook and refuses a tampered one', async () => {
    const paid = await payExchange(sb, exchangePayload(sb.merchant));
    // This payment's own "created" webhook: another test's transaction may be delivered after it.
    const created = () => receiver.received.find((e) => {
      const d = JSON.parse(e.body).data;
      return d.transactionId === paid.json.id && d.status === 0;
    });
    await waitFor(() => created() !== undefined, 5000, 'the created webhook');
    const event = created().body;
    const dir = tempDir('paywasm-webhook-');
    const key = path.join(dir, 'webhook-public.pem');
    fs.writeFileSync(key, sb.merchant.webhookPublicKey);
    try {
      const ok = spawnSync(CLI, ['verify-webhook', '--public-key', key, '--any-merchant', '-'], { input: event });
      assert.equal(ok.status, 0, ok.stderr.toString());
      assert.equal(ok.stdout.toString(), JSON.parse(event).data.data + '\n');
      assert.match(ok.stderr.toString(), /^verified: transaction [0-9a-f-]{36}, status 0 \(pending\)/);

      const tampered = JSON.parse(event);
      tampered.data.data = tampered.data.data.replace('"status":0', '"status":1');
      const bad = spawnSync(CLI, ['verify-webhook', '--public-key', key, '--any-merchant', '-'], { input: JSON.stringify(tampered) });
      assert.equal(bad.status, 1);
      assert.match(bad.stderr.toString(), /error\[crypto\]: the signature does not verify/);
      assert.equal(crypto.verify('sha256', Buffer.from(tampered.data.data), sb.merchant.webhookPublicKey,
        Buffer.from(tampered.signature, 'base64')), false);

      const copy = JSON.parse(event);
      copy.data.status = 1;  // the unsigned copy edited, the signed text intact
      const edited = spawnSync(CLI, ['verify-webhook', '--public-key', key, '--any-merchant', '-'], { input: JSON.stringify(copy) });
      assert.equal(edited.status, 1);
      assert.match(edited.stderr.toString(), /data\.status .* differs from the signed transaction/);

      const otherKey = path.join(dir, 'other.pem');
      fs.writeFileSync(otherKey, sb.merchant.publicKey);
      assert.equal(spawnSync(CLI, ['verify-webhook', '--public-key', otherKey, '--any-merchant', '-'], { input: event }).status, 1);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the demo site', () => {
  test('the page has a strict CSP and the widget script with the integrity of the served file', async () => {
    const r = await fetch(sb.base + '/');
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type'), /^text\/html/);
    const csp = r.headers.get('content-security-policy');
    assert.match(csp, /script-src 'self' 'wasm-unsafe-eval';/);
    assert.match(csp, /style-src 'self';/);
    assert.match(csp, /connect-src 'self'/);
    assert.doesNotMatch(csp, /'unsafe-inline'|'unsafe-eval'/);
    const html = await r.text();
    const sri = 'sha384-' + crypto.createHash('sha384').update(fs.readFileSync(path.join(dist, 'paywasm.js'))).digest('base64');
    assert.ok(html.includes(`<script src="/dist/paywasm.js" integrity="${sri}"`), 'integrity of dist/paywasm.js');
    assert.doesNotMatch(html, /<script>|<style>|\sstyle=|\son[a-z]+=/i, 'no inline script or style');
    assert.ok(!html.includes(sb.merchant.merchantAccessToken), 'no merchant secret in the page');
  });

  test('dist files have exact MIME types; nothing outside the folders is served', async () => {
    let r = await fetch(sb.base + '/dist/paywasm.wasm');
    assert.equal(r.headers.get('content-type'), 'application/wasm');
    assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
    r = await fetch(sb.base + '/dist/paywasm.js');
    assert.match(r.headers.get('content-type'), /^text\/javascript/);
    for (const p of ['/shop.js', '/shop.css']) {
      r = await fetch(sb.base + p);
      assert.equal(r.status, 200, p);
    }
    for (const p of ['/dist/..%2f..%2fCMakeLists.txt', '/dist/%2e%2e/CMakeLists.txt', '/..%2fCMakeLists.txt', '/.hidden']) {
      const status = await new Promise((resolve) => {
        const url = new URL(sb.base);
        http.get({ host: url.hostname, port: url.port, path: p }, (res) => { res.resume(); resolve(res.statusCode); });
      });
      assert.equal(status, 404, p);
    }
  });

  test('the API allows cross-origin calls; the control API does not', async () => {
    let r = await fetch(sb.base + '/api/users/me', { method: 'OPTIONS',
      headers: { origin: 'http://shop.test', 'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization' } });
    assert.equal(r.status, 204);
    assert.equal(r.headers.get('access-control-allow-origin'), '*');
    assert.match(r.headers.get('access-control-allow-headers'), /Authorization/);
    r = await fetch(sb.base + '/__sandbox/merchant', { headers: { origin: 'http://evil.test' } });
    assert.equal(r.headers.get('access-control-allow-origin'), null);
  });
});

describe('time and restarts', () => {
  test('statuses move by themselves, compressed by --speed', async () => {
    const fast = await startSandbox(['--speed', '1000', '--bank-day', '0.1']);
    try {
      const r = await payExchange(fast, exchangePayload(fast.merchant));
      assert.equal(r.json.status, 0);
      const q = await api(fast, '/purchase/qr/generate', { token: fast.merchant.merchantAccessToken,
        headers: { 'x-transaction-source': 'qr-code-api' }, body: qrRequest() });
      const b = await api(fast, '/purchases', { token: fast.merchant.shopperToken,
        body: { data: encrypt(fast.merchant.publicKey, JSON.stringify(bankPayload(fast.merchant))) } });
      const status = async (id) => (await getJson(`${fast.base}/__sandbox/transactions/${id}`)).status;
      await waitFor(async () => (await status(r.json.id)) === 1, 5000, 'exchange payment completed');
      await waitFor(async () => (await status(q.json.result.id)) === 1, 5000, 'QR payment completed');
      await waitFor(async () => (await status(b.json.id)) === 1, 5000, 'bank payment completed');
      const seen = (await getJson(fast.base + '/__sandbox/webhooks'))
        .filter((e) => e.transactionId === q.json.result.id).map((e) => e.status);
      assert.deepEqual(seen, [10, 0, 1], 'every QR status, in order');
    } finally {
      assert.equal((await fast.stop()).code, 0);
    }
  });

  test('transactions, identity and undelivered webhooks survive a restart', async () => {
    const data = tempDir('paywasm-sandbox-data-');
    const receiver = await startReceiver();
    receiver.failing = true;
    try {
      const one = await startSandbox(['--data', data, '--speed', '200']);
      await sendJson('PUT', one.base + '/__sandbox/webhook', { url: receiver.url });
      const r = await payExchange(one, exchangePayload(one.merchant));
      const event = async (sandbox) => (await getJson(sandbox.base + '/__sandbox/webhooks'))
        .find((e) => e.transactionId === r.json.id && e.status === 0);
      await waitFor(async () => (await event(one)).attempts >= 2, 5000, 'two failed deliveries');
      const failed = await event(one);
      assert.equal(failed.state, 'pending');
      assert.equal(failed.lastHttpStatus, 500);
      const merchant = one.merchant;
      assert.equal((await one.stop()).code, 0);

      receiver.failing = false;
      receiver.received.length = 0;
      const two = await startSandbox(['--data', data, '--speed', '200']);
      try {
        assert.equal(two.merchant.merchantId, merchant.merchantId);
        assert.equal(two.merchant.shopperToken, merchant.shopperToken);
        assert.equal(two.merchant.publicKey, merchant.publicKey);
        assert.equal(two.merchant.webhookPublicKey, merchant.webhookPublicKey);
        assert.equal((await getJson(`${two.base}/__sandbox/transactions/${r.json.id}`)).id, r.json.id);
        const delivered = await waitFor(async () => {
          const e = await event(two);
          return e.state === 'delivered' ? e : null;
        }, 10000, 'delivery after the restart');
        const statuses = delivered.deliveries.map((d) => d.httpStatus);
        assert.ok(statuses.length >= 3, statuses.join());
        assert.deepEqual(statuses.slice(0, -1).filter((s) => s !== 500), [], 'failed until the restart');
        assert.equal(statuses.at(-1), 200);
        const got = receiver.received.map((e) => JSON.parse(e.body)).find((e) => e.data.transactionId === r.json.id);
        assert.ok(crypto.verify('sha256', Buffer.from(got.data.data), merchant.webhookPublicKey,
          Buffer.from(got.signature, 'base64')));
        // Idempotency holds across the restart too.
        const plaintext = (await getJson(`${two.base}/__sandbox/transactions/${r.json.id}`)).plaintextText;
        const again = await payExchange(two, JSON.parse(plaintext));
        assert.equal(again.json.id, r.json.id);
      } finally {
        assert.equal((await two.stop()).code, 0);
      }
      assert.ok(fs.existsSync(path.join(data, 'sandbox.db')));
      assert.equal(fs.statSync(path.join(data, 'merchant-key.pem')).mode & 0o777, 0o600);
    } finally {
      await receiver.close();
      fs.rmSync(data, { recursive: true, force: true });
    }
  });
});

describe('hardening (issue 15)', () => {
  // A PKCS#1 v1.5 block of the merchant's key that does not decode: random bytes below the modulus.
  const badBlock = (m) => {
    const k = crypto.createPublicKey(m.publicKey).asymmetricKeyDetails.modulusLength / 8;
    const block = crypto.randomBytes(k);
    block[0] = 0;
    return block.toString('base64');
  };

  test('with PKCS#1 v1.5, every bad data or merchantAuth gets one answer (no padding oracle)', async () => {
    const m = sb.merchant;
    await sendJson('PUT', sb.base + '/__sandbox/merchant', { padding: 'pkcs1v15' });
    try {
      const count = await transactionCount(sb);
      const v15 = (text) => encrypt(m.publicKey, text, 'pkcs1v15');
      const cases = [
        ['a block that does not decode', badBlock(m)],
        ['a good block that is not JSON', v15('hello')],
        ['a good block with JSON that is not a payment', v15('{"a":1}')],
        ['a wrong total', v15(JSON.stringify(exchangePayload(m, { nativeAmount: '1.00' })))],
        ['another merchant\'s clientId', v15(JSON.stringify(exchangePayload(m, { clientId: crypto.randomUUID() })))],
        ['a good block and a bad one', Buffer.concat([Buffer.from(v15('{"a":'), 'base64'), Buffer.from(badBlock(m), 'base64')]).toString('base64')],
      ];
      const answers = [];
      for (const [what, data] of cases) {
        const r = await api(sb, '/exchanges/payments/kraken', { token: m.shopperToken, body: { data } });
        assert.equal(r.status, 400, `${what}: ${r.text}`);
        answers.push(r.text);
      }
      assert.deepEqual(new Set(answers).size, 1, 'one answer for all: ' + [...new Set(answers)].join(' | '));
      assert.equal(JSON.parse(answers[0]).field, 'data');
      // The subscription routes: one 401 for every merchantAuth that does not authenticate.
      const auths = [badBlock(m), v15('hello'), v15(JSON.stringify({ merchantId: crypto.randomUUID() })), 'garbage'];
      const refusals = new Set();
      for (const merchantAuth of auths) {
        const r = await api(sb, '/subscription/cancel', { body: { merchantId: m.merchantId, merchantAuth, subscriptionId: 'x' } });
        assert.equal(r.status, 401, r.text);
        refusals.add(r.text);
      }
      const wrongId = await api(sb, '/subscription/cancel', { body: { merchantId: 'someone', merchantAuth: v15(JSON.stringify({ merchantId: m.merchantId })), subscriptionId: 'x' } });
      refusals.add(wrongId.text);
      assert.equal(refusals.size, 1, [...refusals].join(' | '));
      // A good v1.5 payment still goes through.
      const ok = await payExchange(sb, exchangePayload(m), { padding: 'pkcs1v15' });
      assert.equal(ok.status, 200, ok.text);
      assert.equal(await transactionCount(sb), count + 1);
    } finally {
      await sendJson('PUT', sb.base + '/__sandbox/merchant', { padding: 'oaep-sha1' });
    }
  });

  test('120,000 levels of nesting are refused as JSON and the sandbox keeps serving', async () => {
    const deep = '['.repeat(120000) + ']'.repeat(120000);
    for (const [method, path, body] of [
      ['PUT', '/__sandbox/shopper', `{"profile":${deep}}`],
      ['PUT', '/__sandbox/webhook', `{"url":${deep}}`],
      ['POST', '/__sandbox/faults', deep],
    ]) {
      const r = await rawRequest(sb.base, { method, path, body, headers: { 'content-type': 'application/json' } });
      assert.equal(r.status, 400, `${path}: ${r.text.slice(0, 200)}`);
      assert.equal(r.json.error, 'invalid_json');
      assert.match(r.json.message, /deep|nest|depth/i);
    }
    const r = await api(sb, '/exchanges/payments/kraken', { token: sb.merchant.shopperToken, raw: `{"data":${deep}}` });
    assert.equal(r.status, 400);
    assert.equal(sb.proc.exitCode, null, 'still running');
    assert.equal((await api(sb, '/users/me', { method: 'GET', token: sb.merchant.shopperToken })).status, 200);
  });

  test('the control API answers loopback Host names only (DNS rebinding)', async () => {
    const port = new URL(sb.base).port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`, 'localhost', '127.0.0.1']) {
      const r = await rawRequest(sb.base, { path: '/__sandbox/merchant', host });
      assert.equal(r.status, 200, host);
    }
    for (const host of [`evil.example:${port}`, 'evil.example', `localhost.evil.example:${port}`, `127.0.0.1.nip.io:${port}`,
      `[::2]:${port}`, `localhost:${port}@evil`]) {
      for (const path of ['/__sandbox/merchant', '/__sandbox/transactions', '/__sandbox/webhooks']) {
        const r = await rawRequest(sb.base, { path, host });
        assert.equal(r.status, 403, `${host} ${path}: ${r.text}`);
        assert.equal(r.json.error, 'forbidden_host');
        assert.ok(!r.text.includes(sb.merchant.merchantAccessToken));
      }
    }
    const put = await rawRequest(sb.base, { method: 'PUT', path: '/__sandbox/webhook', host: 'evil.example',
      headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: 'http://127.0.0.1:9/x' }) });
    assert.equal(put.status, 403);
    assert.equal((await getJson(sb.base + '/__sandbox/webhook')).url, null, 'nothing changed');
    // The API itself answers any Host (it is public, with its own credentials).
    const me = await rawRequest(sb.base, { path: '/api/users/me', host: 'shop.example',
      headers: { authorization: 'Bearer ' + sb.merchant.shopperToken } });
    assert.equal(me.status, 200);
  });

  test('webhook URLs are loopback only unless --allow-webhook-host names the host', async () => {
    for (const url of ['http://example.com/hook', 'http://10.0.0.1:22/', 'http://169.254.169.254/latest/meta-data',
      'http://127.0.0.1@example.com/', 'http://localhost.example.com/', 'https://[::2]/x']) {
      const r = await sendJson('PUT', sb.base + '/__sandbox/webhook', { url });
      assert.equal(r.status, 400, url);
      assert.equal(r.body.error, 'webhook_host_not_allowed', url);
    }
    for (const url of ['http://127.0.0.1:9/hook', 'http://localhost:65535/', 'http://[::1]:8/x', 'http://127.1.2.3/']) {
      const r = await sendJson('PUT', sb.base + '/__sandbox/webhook', { url });
      assert.equal(r.status, 200, url);
    }
    await sendJson('PUT', sb.base + '/__sandbox/webhook', { url: null });
  });

  // 0.2.0 set every file under --data to 0600 and every directory to 0700, the shop's own files
  // included (`--data .` or `--data ~` broke scripts and keys).
  test('--data: the sandbox\'s own secret files are 0600, a directory it made 0700, nothing else is touched', async () => {
    const parent = tempDir('paywasm-sandbox-modes-');
    const data = path.join(parent, 'data');
    try {
      fs.mkdirSync(path.join(data, 'scripts'), { recursive: true, mode: 0o755 });
      fs.chmodSync(data, 0o755);
      fs.writeFileSync(path.join(data, 'notes.txt'), 'the shop\'s own file', { mode: 0o644 });
      fs.writeFileSync(path.join(data, 'scripts', 'run.sh'), '#!/bin/sh\n', { mode: 0o755 });
      const one = await startSandbox(['--data', data]);
      await payExchange(one, exchangePayload(one.merchant));  // the WAL holds data
      const mode = (...p) => fs.statSync(path.join(data, ...p)).mode & 0o777;
      for (const f of ['sandbox.db', 'sandbox.db-wal', 'merchant-key.pem', 'webhook-key.pem']) {
        assert.equal(mode(f), 0o600, `${f}: ${mode(f).toString(8)}`);
      }
      assert.equal(mode('notes.txt'), 0o644, 'a file the sandbox did not create');
      assert.equal(mode('scripts'), 0o755, 'a directory the sandbox did not create');
      assert.equal(mode('scripts', 'run.sh'), 0o755);
      assert.equal(fs.statSync(data).mode & 0o777, 0o755, 'a directory the sandbox did not make keeps its mode');
      assert.equal((await one.stop()).code, 0);
      const fresh = path.join(parent, 'fresh');
      const two = await startSandbox(['--data', fresh]);
      assert.equal(fs.statSync(fresh).mode & 0o777, 0o700, 'a directory the sandbox made is 0700');
      assert.equal((await two.stop()).code, 0);
    } finally {
      fs.rmSync(parent, { recursive: true, force: true });
    }
  });

  describe('a sandbox with --strict, --control-token, --allow-webhook-host and --insecure-any-padding', () => {
    const token = 'ctl_' + crypto.randomBytes(18).toString('base64url');
    let st;
    before(async () => {
      st = await startSandbox(['--strict', '--control-token', token, '--allow-webhook-host', 'hooks.example',
        '--insecure-any-padding']);
    });
    after(async () => { if (st) assert.equal((await st.stop()).code, 0); });
    const control = (method, p, body, t = token) => rawRequest(st.base, { method, path: p,
      headers: { ...(t ? { authorization: 'Bearer ' + t } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body && JSON.stringify(body) });

    test('the control API needs the token', async () => {
      for (const t of [null, 'wrong-token-wrong-token', st.merchant.merchantAccessToken]) {
        const r = await control('GET', '/__sandbox/merchant', undefined, t);
        assert.equal(r.status, 401);
        assert.equal(r.json.error, 'unauthorized');
        assert.ok(!r.text.includes(token));
      }
      assert.equal((await control('GET', '/__sandbox/transactions')).status, 200);
      assert.equal((await control('GET', '/__sandbox/transactions', undefined, null)).status, 401);
      // The Host check comes first, token or not.
      const evil = await rawRequest(st.base, { path: '/__sandbox/merchant', host: 'evil.example',
        headers: { authorization: 'Bearer ' + token } });
      assert.equal(evil.status, 403);
    });

    test('--allow-webhook-host adds a host', async () => {
      assert.equal((await control('PUT', '/__sandbox/webhook', { url: 'https://hooks.example/paywasm' })).status, 200);
      assert.equal((await control('PUT', '/__sandbox/webhook', { url: 'https://HOOKS.example:8443/p' })).status, 200);
      const other = await control('PUT', '/__sandbox/webhook', { url: 'https://other.example/paywasm' });
      assert.equal(other.status, 400);
      await control('PUT', '/__sandbox/webhook', { url: null });
    });

    test('any padding (insecure, behind the flag) accepts all three, with the one answer', async () => {
      assert.equal((await control('PUT', '/__sandbox/merchant', { padding: 'any' })).status, 200);
      for (const padding of ['oaep-sha1', 'oaep-sha256', 'pkcs1v15']) {
        const r = await payExchange(st, exchangePayload(st.merchant), { padding });
        assert.equal(r.status, 200, `${padding}: ${r.text}`);
      }
      const bad = await payExchange(st, exchangePayload(st.merchant, { nativeAmount: '1.00' }));
      const garbage = await api(st, '/exchanges/payments/kraken', { token: st.merchant.shopperToken, body: { data: badBlock(st.merchant) } });
      assert.equal(bad.text, garbage.text);
    });

    test('--strict: subscription debit and cancel need the merchant token too', async () => {
      const m = st.merchant;
      const pay = await payExchange(st, exchangePayload(m));
      const sub = pay.json.subscriptionIds[0];
      await control('POST', `/__sandbox/transactions/${pay.json.id}/advance`);
      const body = { merchantAuth: merchantAuth(m), merchantId: m.merchantId, items: [{ subscriptionId: sub, amount: 15, currency: 'USD' }] };
      let r = await api(st, '/subscription/debit', { body });
      assert.equal(r.status, 401);
      assert.match(r.json.message, /merchant access token/);
      r = await api(st, '/subscription/debit', { body, token: m.shopperToken });
      assert.equal(r.status, 401);
      r = await api(st, '/subscription/debit', { body, token: m.merchantAccessToken });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.result.data.length, 1);
      r = await api(st, '/subscription/debit', { token: m.merchantAccessToken,
        body: { ...body, items: [{ subscriptionId: sub, amount: 1000, currency: 'USD' }] } });
      assert.equal(r.json.result.errors[0].reason, 'amount_too_high', 'above the price: refused with the token too');
      r = await api(st, '/subscription/cancel', { body: { merchantAuth: merchantAuth(m), merchantId: m.merchantId, subscriptionId: sub } });
      assert.equal(r.status, 401);
      // With the merchant's token (what the gateway and `paywasm call --token` send).
      r = await api(st, '/subscription/cancel', { token: m.merchantAccessToken,
        body: { merchantAuth: merchantAuth(m), merchantId: m.merchantId, subscriptionId: sub } });
      assert.deepEqual(r.json, { status: 200, result: { success: true } });
    });
  });
});
