// The servers' HTTP framing, probed over raw TCP against both real programs (paywasm-sandbox and
// paywasm-merchant): every smuggling or framing case is answered 400 with the connection closed, or
// served exactly once; pipelined requests are answered in order; hundreds of slow-loris connections
// do not stop a normal request; the gateway's stream caps answer 429/503 and free their slots.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import net from 'node:net';

import { gw, sse, startGateway, startSandbox } from '../gateway/harness.mjs';
import { sleep, waitFor } from '../support/node.mjs';

const checkout = () => ({
  offerId: 'order-' + crypto.randomUUID(), currency: 'USD',
  cart: [{ id: 'sku-mug', name: 'Mug', price: 15, quantity: 1 }],
});

let sb, g;
before(async () => {
  sb = await startSandbox();
  g = await startGateway(sb, { extra: ['--max-streams', '6', '--max-streams-per-session', '2', '--max-streams-per-client', '5'] });
});
after(async () => {
  const exit = await g?.stop();
  if (exit) assert.deepEqual(exit, { code: 0, signal: null }, g.stderr().slice(-2000));
  await sb?.stop();
});

// Sends `bytes` on a fresh connection (in one write, or in the given pieces) and collects everything
// the server sends until it closes or `idleMs` pass without a byte. Resolves {text, closed}.
function exchange(base, pieces, { idleMs = 700 } = {}) {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(u.port), u.hostname);
    let text = '';
    let timer;
    const finish = (closed) => { clearTimeout(timer); socket.destroy(); resolve({ text, closed }); };
    const arm = () => { clearTimeout(timer); timer = setTimeout(() => finish(false), idleMs); };
    socket.on('connect', () => {
      for (const p of [].concat(pieces)) socket.write(p);
      arm();
    });
    socket.on('data', (d) => { text += d.toString('latin1'); arm(); });
    socket.on('end', () => finish(true));
    socket.on('close', () => finish(true));
    socket.on('error', (e) => (e.code === 'ECONNRESET' ? finish(true) : reject(e)));
  });
}
// The status codes of the answers in `text`, in order (no body here holds "HTTP/1.1 ").
const statuses = (text) => [...text.matchAll(/HTTP\/1\.1 (\d{3}) [A-Z]/g)].map((m) => Number(m[1]));

const CRLF = '\r\n';
const head = (lines) => lines.join(CRLF) + CRLF + CRLF;
const inner = head(['GET /smuggled HTTP/1.1', 'Host: a']);

// [what, bytes]: each must be refused (400, closed) and nothing after it served.
const refused = (okPath) => [
  ['a body on GET (CL.0)', head(['GET ' + okPath + ' HTTP/1.1', 'Host: a', 'Content-Length: ' + inner.length]) + inner],
  ['a body on OPTIONS', head(['OPTIONS ' + okPath + ' HTTP/1.1', 'Host: a', 'Content-Length: ' + inner.length]) + inner],
  ['a body on HEAD', head(['HEAD ' + okPath + ' HTTP/1.1', 'Host: a', 'Content-Length: ' + inner.length]) + inner],
  ['a body on DELETE', head(['DELETE ' + okPath + ' HTTP/1.1', 'Host: a', 'Content-Length: ' + inner.length]) + inner],
  ['a chunked body on GET', head(['GET ' + okPath + ' HTTP/1.1', 'Host: a', 'Transfer-Encoding: chunked']) +
    inner.length.toString(16) + CRLF + inner + CRLF + '0' + CRLF + CRLF],
  ['the inner request at byte 4096 of one write', (() => {
    const start = head(['GET ' + okPath + ' HTTP/1.1', 'Host: a', 'Content-Length: 9999', 'X-Pad: ']);
    const pad = 'x'.repeat(4096 - start.length);
    return head(['GET ' + okPath + ' HTTP/1.1', 'Host: a', 'Content-Length: 9999', 'X-Pad: ' + pad]).slice(0, 4096 - 4) + CRLF + CRLF + inner;
  })()],
  ['Transfer-Encoding with Content-Length (TE.CL)', head(['POST /x HTTP/1.1', 'Host: a', 'Transfer-Encoding: chunked',
    'Content-Length: 4']) + '0' + CRLF + CRLF + inner],
  ['Content-Length with Transfer-Encoding (CL.TE)', head(['POST /x HTTP/1.1', 'Host: a', 'Content-Length: 5',
    'Transfer-Encoding: chunked']) + '0' + CRLF + CRLF + inner],
  ['two Content-Lengths', head(['POST /x HTTP/1.1', 'Host: a', 'Content-Length: 0', 'Content-Length: ' + inner.length]) + inner],
  ['two equal Content-Lengths', head(['POST /x HTTP/1.1', 'Host: a', 'Content-Length: 2', 'Content-Length: 2']) + '{}'],
  ['Transfer-Encoding other than chunked', head(['POST /x HTTP/1.1', 'Host: a', 'Transfer-Encoding: xchunked']) + inner],
  ['Transfer-Encoding: chunked, identity', head(['POST /x HTTP/1.1', 'Host: a', 'Transfer-Encoding: chunked, identity']) + inner],
  ['HTTP/1.1 without Host', head(['GET ' + okPath + ' HTTP/1.1', 'Accept: */*']) + inner],
  ['two Hosts', head(['GET ' + okPath + ' HTTP/1.1', 'Host: a', 'Host: b']) + inner],
  ['obs-fold', head(['GET ' + okPath + ' HTTP/1.1', 'Host: a', 'X-Folded: one', ' two']) + inner],
  ['a folded Transfer-Encoding', head(['POST /x HTTP/1.1', 'Host: a', 'Transfer-Encoding:', ' chunked', 'Content-Length: 3']) + inner],
  ['NUL in a header', head(['GET ' + okPath + ' HTTP/1.1', 'Host: a', 'X-Nul: a\0b']) + inner],
  ['a bare CR in a header', head(['GET ' + okPath + ' HTTP/1.1', 'Host: a', 'X-Cr: a\rb']) + inner],
  ['a bare LF ending a header', 'GET ' + okPath + ' HTTP/1.1\r\nHost: a\nX-Lf: 1\r\n\r\n' + inner],
  ['a space before the colon', head(['POST /x HTTP/1.1', 'Host: a', 'Content-Length : 5']) + inner],
  ['headers over the limit', head(['GET ' + okPath + ' HTTP/1.1', 'Host: a', 'X-Big: ' + 'b'.repeat(20000)]) + inner],
  ['more than 100 header fields', head(['GET ' + okPath + ' HTTP/1.1', 'Host: a',
    ...Array.from({ length: 120 }, (_, i) => `X-F${i}: v`)]) + inner],
  ['an absolute-form target', head(['GET http://a' + okPath + ' HTTP/1.1', 'Host: a']) + inner],
  ['HTTP/2.0 on the request line', head(['GET ' + okPath + ' HTTP/2.0', 'Host: a']) + inner],
];

for (const [name, base, okPath] of [['paywasm-sandbox', () => sb.base, '/__sandbox/merchant'],
  ['paywasm-merchant', () => g.base, '/v1/webhooks']]) {
  describe(`${name}: framing`, () => {
    for (const [what, bytes] of refused(okPath)) {
      test(`${what}: 400 and closed, nothing smuggled`, async () => {
        const r = await exchange(base(), bytes);
        assert.deepEqual(statuses(r.text), [400], `${what}: ${r.text.slice(0, 300)}`);
        assert.equal(r.closed, true, `${what}: the connection is closed`);
        assert.match(r.text, /\r\nConnection: close\r\n/i);
      });
    }

    test('pipelined requests in one write are each answered once, in order', async () => {
      const one = head(['GET ' + okPath + ' HTTP/1.1', 'Host: localhost']);
      const missing = head(['GET /no-such-path HTTP/1.1', 'Host: localhost']);
      const r = await exchange(base(), one + missing + one);
      assert.deepEqual(statuses(r.text), [200, 404, 200], r.text.slice(0, 500));
      assert.equal(r.closed, false, 'kept alive');
    });

    test('a request split into single bytes is served once', async () => {
      const bytes = head(['GET ' + okPath + ' HTTP/1.1', 'Host: localhost', 'Connection: close']);
      const r = await exchange(base(), [...bytes]);
      assert.deepEqual(statuses(r.text), [200]);
      assert.equal(r.closed, true);
    });

    test('a chunked POST is read whole, and the next request after it is served once', async () => {
      const body = '{"a":1}';
      const post = head(['POST /no-such-path HTTP/1.1', 'Host: localhost', 'Content-Type: application/json',
        'Transfer-Encoding: chunked']) + body.length.toString(16) + CRLF + body + CRLF + '0' + CRLF + CRLF;
      const r = await exchange(base(), post + head(['GET ' + okPath + ' HTTP/1.1', 'Host: localhost']));
      assert.deepEqual(statuses(r.text), [404, 200], r.text.slice(0, 500));
    });

    test('HTTP/1.0 without Host is served once and closed', async () => {
      const r = await exchange(base(), head(['GET ' + okPath + ' HTTP/1.0']));
      assert.equal(statuses(r.text).length, 1, r.text.slice(0, 300));
      assert.notEqual(statuses(r.text)[0], 400);
      assert.equal(r.closed, true);
    });

    test('300 slow-loris connections do not stop a normal request', async () => {
      const u = new URL(base());
      const sockets = [];
      let connected = 0;
      for (let i = 0; i < 300; i++) {
        const s = net.connect(Number(u.port), u.hostname);
        s.on('error', () => {});
        s.on('connect', () => { connected++; s.write('GET ' + okPath + ' HTTP/1.1\r\nHost: a\r\nX-Slow: '); });
        sockets.push(s);
      }
      const trickle = setInterval(() => { for (const s of sockets) if (!s.destroyed) s.write('x'); }, 300);
      try {
        await waitFor(() => connected === 300, 10000, 'the 300 slow connections');
        // The guarantee: a normal request is answered while every slow connection is still held (a
        // server that waited for them would answer only after their header deadline closed them).
        for (let i = 0; i < 5; i++) {
          const r = await fetch(base() + okPath);
          assert.equal(r.status, 200);
          await r.text();
          const closed = sockets.filter((s) => s.destroyed || s.readyState !== 'open').length;
          assert.equal(closed, 0, `answered only after ${closed} slow connections were closed`);
        }
      } finally {
        clearInterval(trickle);
        for (const s of sockets) s.destroy();
      }
    });
  });
}

describe('paywasm-merchant: stream caps', () => {
  const open = async (id) => {
    const stream = sse(`${g.base}/v1/checkout/${id}/status`, { timeoutMs: 20000 });
    return { stream, opened: await stream.opened };
  };
  // A stream request from `localAddress`: resolves {status, socket} once the status line arrived.
  const rawStream = (id, localAddress) => new Promise((resolve, reject) => {
    const u = new URL(g.base);
    const socket = net.connect({ port: Number(u.port), host: u.hostname, localAddress });
    socket.on('error', reject);
    socket.on('connect', () => socket.write(`GET /v1/checkout/${id}/status HTTP/1.1\r\nHost: a\r\nAccept: text/event-stream\r\n\r\n`));
    socket.once('data', (d) => resolve({ status: Number(d.toString().split(' ')[1]), socket }));
  });
  const session = async () => {
    const r = await gw(g, 'POST', '/v1/sessions', { app: true, body: { ...checkout(), methods: ['exchange'] } });
    assert.equal(r.status, 201, r.text);
    return r.json.id;
  };

  test('per session 429, per client 429, in total 503; a closed stream frees its slot', async () => {
    const a = await session();
    const b = await session();
    const c = await session();
    const held = [];
    held.push(await open(a), await open(a));
    assert.deepEqual(held.map((h) => h.opened.status), [200, 200]);
    const third = await gw(g, 'GET', `/v1/checkout/${a}/status`, { headers: { accept: 'text/event-stream' } });
    assert.equal(third.status, 429, third.text);
    assert.equal(third.json.error, 'too_many_streams');
    // The JSON status is still there for a refused shopper (the widget polls it).
    assert.equal((await gw(g, 'GET', `/v1/checkout/${a}/status`)).status, 200);
    held.push(await open(b), await open(b), await open(c));
    assert.deepEqual(held.map((h) => h.opened.status), [200, 200, 200, 200, 200]);
    const sixth = await gw(g, 'GET', `/v1/checkout/${c}/status`, { headers: { accept: 'text/event-stream' } });
    assert.equal(sixth.status, 429, 'the client cap (5) comes first: ' + sixth.text);
    held[0].stream.close();
    // The slot comes back once the server saw the close: open again until one is let in.
    const again = await waitFor(async () => {
      const o = await open(a);
      if (o.opened.status === 200) return o;
      o.stream.close();
      return null;
    }, { timeout: 5000, what: 'the closed stream to give its slot back' });
    assert.equal(again.opened.status, 200, 'the closed stream gave its slot back');
    held.push(again);
    // Another client address (127.0.0.2) takes the sixth and last slot; then the total cap answers.
    const other = await rawStream(b, '127.0.0.2');
    assert.equal(other.status, 429, 'still the session cap for b');
    const sixthTotal = await rawStream(c, '127.0.0.2');
    assert.equal(sixthTotal.status, 200);
    const seventh = await rawStream(a, '127.0.0.2');
    assert.equal(seventh.status, 503, 'the total cap');
    for (const r of [other, sixthTotal, seventh]) r.socket.destroy();
    for (const h of held) h.stream.close();
  });

  test('a stream ends after --stream-max-seconds with retry:, and the status is sent first', async () => {
    const g2 = await startGateway(sb, { extra: ['--stream-max-seconds', '1'] });
    try {
        const r = await gw(g2, 'POST', '/v1/sessions', { app: true, body: { ...checkout(), methods: ['exchange'] } });
        assert.equal(r.status, 201, r.text);
        // Without the bound the stream would stay open: sse() rejects after its (generous) deadline.
        const stream = sse(`${g2.base}/v1/checkout/${r.json.id}/status`, { timeoutMs: 60000 });
        const events = await stream.done;
        assert.equal(events.length, 1);
        assert.equal(events[0].state, 'open');
    } finally {
      assert.deepEqual(await g2.stop(), { code: 0, signal: null });
    }
  });
});

describe('graceful drain on SIGTERM', () => {
  test('a request under way is answered 200, then the process exits 0; new connections are refused', async () => {
    const own = await startSandbox();
    let exited;
    try {
      const slow = await fetch(own.base + '/__sandbox/faults', { method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ endpoint: 'users-me', kind: 'latency', ms: 800 }) });
      assert.equal(slow.status, 201);
      const started = Date.now();
      const pending = fetch(own.base + '/api/users/me', { headers: { authorization: 'Bearer ' + own.merchant.shopperToken } });
      let answered = false;
      pending.then(() => { answered = true; }, () => {});
      // The request is under way once the sandbox took its (one-shot) fault.
      await waitFor(async () => (await (await fetch(own.base + '/__sandbox/faults')).json()).length === 0, 5000,
        'the request to reach the sandbox');
      exited = own.stop();
      const u = new URL(own.base);
      const refusedNow = () => new Promise((resolve) => {
        const s = net.connect(Number(u.port), u.hostname);
        s.on('connect', () => { s.destroy(); resolve(false); });
        s.on('error', (e) => resolve(e.code === 'ECONNREFUSED'));
      });
      await waitFor(refusedNow, 5000, 'new connections refused once draining');
      assert.equal(answered, false, 'refused while the request under way was still being served');
      const answer = await pending;
      assert.equal(answer.status, 200, 'the request under way was answered');
      assert.ok(Date.now() - started >= 750);
      assert.deepEqual(await exited, { code: 0, signal: null });
    } finally {
      if (!exited) await own.stop();
    }
  });
});
