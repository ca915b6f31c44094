// A counting TCP relay in front of the sandbox: Chromium talks to the relay, the relay passes every
// byte through unchanged and records each HTTP request line that reaches the sandbox. It sees what
// the browser's own request events cannot: a request the network stack sends again by itself (for
// example a POST resent after a kept-alive connection closed without an answer).
// When the sandbox closes its side (the `drop` fault), the relay closes the browser's side the same way.
import net from 'node:net';

// Splits the client->server byte stream into requests: header block, then Content-Length bytes of
// body (the widget never sends chunked bodies; a chunked one is skipped to the next header block).
function requestParser(onRequest) {
  let buf = Buffer.alloc(0);
  let bodyLeft = 0;
  return (chunk) => {
    buf = Buffer.concat([buf, chunk]);
    for (;;) {
      if (bodyLeft > 0) {
        const n = Math.min(bodyLeft, buf.length);
        buf = buf.subarray(n);
        bodyLeft -= n;
        if (bodyLeft > 0) return;
      }
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = buf.subarray(0, end).toString('latin1');
      buf = buf.subarray(end + 4);
      const [line, ...headers] = head.split('\r\n');
      const m = line.match(/^([A-Z]+) (\S+) HTTP\/1\.[01]$/);
      if (m) onRequest(m[1], m[2].split('?')[0]);
      const length = headers.map((h) => h.match(/^content-length:\s*(\d+)/i)).find(Boolean);
      bodyLeft = length ? Number(length[1]) : 0;
    }
  };
}

export async function startRelay(targetPort) {
  const requests = [];  // { method, path, connection, at }
  const sockets = new Set();
  let connections = 0;
  // hold(): the answers on connections that carried a matching request are kept here until released.
  const holds = new Set();  // { method, pathPrefix, held: Set<connection>, queued: [() => void] }
  const server = net.createServer((client) => {
    const connection = ++connections;
    const upstream = net.connect(targetPort, '127.0.0.1');
    sockets.add(client);
    sockets.add(upstream);
    const parse = requestParser((method, path) => {
      requests.push({ method, path, connection, at: Date.now() });
      for (const h of holds) if (method === h.method && path.startsWith(h.pathPrefix)) h.held.add(connection);
    });
    // Upstream bytes (and its end) go to the client in order, after any hold of this connection.
    const toClient = (send) => {
      const h = [...holds].find((x) => x.held.has(connection));
      if (h) h.queued.push(send);
      else send();
    };
    client.on('data', (d) => { parse(d); upstream.write(d); });
    client.on('end', () => upstream.end());
    upstream.on('data', (d) => toClient(() => client.write(d)));
    upstream.on('end', () => toClient(() => client.end()));
    const close = () => { client.destroy(); upstream.destroy(); sockets.delete(client); sockets.delete(upstream); };
    client.on('close', close);
    upstream.on('close', () => toClient(close));  // a held answer reaches the browser before the close
    client.on('error', close);
    upstream.on('error', () => toClient(close));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${server.address().port}`,
    requests,
    count: (method, pathPrefix) => requests.filter((r) => r.method === method && r.path.startsWith(pathPrefix)).length,
    // Connections open through the relay now (the browser's side and the sandbox's, each counted).
    open: () => sockets.size,
    // From now on, what the sandbox answers on a connection that carries a `method` request whose
    // path starts with `pathPrefix` is held (not passed to the browser) until release(): an answer
    // that comes after the widget gave up, or after the test looked at the busy state, whatever
    // the machine's speed. The sandbox has the request (and acts on it) as usual.
    hold(method, pathPrefix) {
      const h = { method, pathPrefix, held: new Set(), queued: [] };
      holds.add(h);
      return {
        release() {
          holds.delete(h);
          for (const send of h.queued) send();
        },
      };
    },
    close: () => new Promise((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(resolve);
    }),
  };
}
