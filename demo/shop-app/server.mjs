// The demo's shop app: what a merchant's own back end does beside paywasm-merchant, in plain Node
// `http` (no framework), so it reads the same in any language:
//   GET  /, /shop.js, ...        the shop page (demo/site) and the widget's files (/dist/...)
//   POST /shop/checkout          the cart from the server's own catalogue -> a gateway session
//   POST /paywasm-events         events forwarded by the gateway: signature checked, kept once per id
//   GET  /shop/events?since=N    what arrived (the page's merchant panel)
//   POST /shop/subscriptions/{id}/debit|cancel   subscription calls through the gateway
//   GET  /shop/shopper-token     the sandbox shopper's token (a real shop gets it from the shopper's
//                                sign-in with the service; this demo has one shopper), also to the
//                                gateway's hosted page (CORS with credentials for the gateway's origin)
//   /__sandbox/...               passed to the sandbox, for the page's control panel (demo only)
// The app secret (PAYWASM_APP_SECRET) is the gateway's; it never reaches the page.
//
// usage: PAYWASM_APP_SECRET=... node demo/shop-app/server.mjs --port 8080 --gateway URL
//          --gateway-public URL --sandbox URL --site DIR --dist DIR
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

const args = Object.fromEntries(process.argv.slice(2).reduce((pairs, a, i, all) => {
  if (a.startsWith('--')) pairs.push([a.slice(2), all[i + 1]]);
  return pairs;
}, []));
const PORT = Number(args.port ?? 8080);
const GATEWAY = args.gateway;                        // server-to-server address of paywasm-merchant
const GATEWAY_PUBLIC = args['gateway-public'] ?? GATEWAY;  // what the browser uses
const GATEWAY_ORIGIN = new URL(GATEWAY_PUBLIC).origin;    // its hosted pages ask for the shopper's token
// The shopper's connected bank account at the sandbox (docs/merchant.md "The bank method on the
// sandbox"): a real shop knows its signed-in shopper's.
const SANDBOX_STOCK_ID = 'bank-sandbox-checking-6789';
const SANDBOX = args.sandbox;
const SITE = path.resolve(args.site);
const DIST = path.resolve(args.dist);
const SECRET = process.env.PAYWASM_APP_SECRET;         // the app API's bearer
const EVENT_SECRET = process.env.PAYWASM_EVENT_SECRET;  // forwarded events' signing key (another secret)
if (!GATEWAY || !SANDBOX || !args.site || !args.dist || !SECRET || !EVENT_SECRET) {
  console.error('usage: PAYWASM_APP_SECRET=... PAYWASM_EVENT_SECRET=... node server.mjs --port N --gateway URL [--gateway-public URL] --sandbox URL --site DIR --dist DIR');
  process.exit(2);
}

// The catalogue: prices live on the server. The page sends product ids and quantities only.
const CATALOGUE = {
  'sku-espresso': { name: 'Espresso beans, 1 kg', price: 24.5 },
  'sku-dripper': { name: 'Ceramic pour-over dripper', price: 18 },
  'sku-club': { name: 'Coffee club: a bag every month', price: 15,
    subscription: { isSubscription: true, frequency: 'monthly', subscriptionPeriod: '12m', merchantSubscriptionId: 'club-demo' } },
};

// The check of docs/merchant.md, step 4.
function verifyPaywasmEvent(rawBody, header, secret, toleranceS = 300) {
  const p = Object.fromEntries(String(header).split(',').map((kv) => kv.trim().split('=')));
  const want = crypto.createHmac('sha256', secret).update(`${p.t}.${rawBody}`).digest('hex');
  const ok = typeof p.v1 === 'string' && p.v1.length === want.length &&
    crypto.timingSafeEqual(Buffer.from(p.v1), Buffer.from(want));
  return ok && Math.abs(Date.now() / 1000 - Number(p.t)) <= toleranceS;
}

const events = [];          // forwarded events, in arrival order
const seen = new Set();     // event ids (the signed body's "id") already processed: delivery is at least once
const orders = new Map();   // offerId -> { amount, currency, paid }: the orders this shop made

async function gateway(method, p, body) {
  const res = await fetch(GATEWAY + p, {
    method,
    headers: { authorization: `Bearer ${SECRET}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css', '.svg': 'image/svg+xml', '.wasm': 'application/wasm', '.json': 'application/json' };

// The page's Content-Security-Policy (docs/widget.md), with the service and the gateway to connect to.
function csp() {
  return ["default-src 'none'", "script-src 'self' 'wasm-unsafe-eval'", "style-src 'self'",
    `connect-src 'self' ${new URL(SANDBOX).origin} ${new URL(GATEWAY_PUBLIC).origin}`, "img-src 'self'",
    "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'"].join('; ');
}

function sendFile(res, base, rel) {
  const file = path.normalize(path.join(base, rel));
  if (!file.startsWith(base + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    return;
  }
  const type = TYPES[path.extname(file)] || 'application/octet-stream';
  let body = fs.readFileSync(file);
  if (type.startsWith('text/html')) {
    // The widget's script tag with the integrity of the file served now (dist/integrity.json).
    let script = '<!-- dist/paywasm.js is not built: run `make dist` -->';
    try {
      const sri = JSON.parse(fs.readFileSync(path.join(DIST, 'integrity.json'), 'utf8'))['paywasm.js'];
      if (sri) script = `<script src="/dist/paywasm.js" integrity="${sri}" crossorigin="anonymous"></script>`;
    } catch { /* not built: the note above */ }
    body = body.toString('utf8').replaceAll('{{PAYWASM_SCRIPT}}', script);
  }
  res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff',
    ...(type.startsWith('text/html') ? { 'content-security-policy': csp(), 'x-frame-options': 'DENY' } : {}) });
  res.end(body);
}

function readBody(req, limit = 64 * 1024) {
  return new Promise((resolve, reject) => {
    let body = '';
    req.on('data', (d) => {
      body += d;
      if (body.length > limit) { reject(new Error('body too large')); req.destroy(); }
    });
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });
}

const json = (res, status, value) => res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' })
  .end(typeof value === 'string' ? value : JSON.stringify(value));

// This server answers only to its own name: a page on another site that rebinds its DNS name to
// 127.0.0.1 reaches the same socket with its own Host, and must not read /__sandbox/merchant (the
// merchant token, the shopper token) or make sessions.
const ownHost = (host) => {
  const port = server.address().port;
  return host === `127.0.0.1:${port}` || host === `localhost:${port}`;
};

const server = http.createServer(async (req, res) => {
  const url = new URL(req.url, 'http://shop');
  if (!ownHost(String(req.headers.host || '').toLowerCase())) {
    return json(res, 421, { error: 'misdirected_request', message: 'this demo shop answers to 127.0.0.1 and localhost only' });
  }
  try {
    if (req.method === 'POST' && url.pathname === '/shop/checkout') {
      // {lines: [{id, quantity}], shippingAddress, methods?}: prices from the catalogue.
      const order = JSON.parse(await readBody(req) || '{}');
      const cart = (order.lines || []).map(({ id, quantity }) => {
        const item = CATALOGUE[id];
        if (!item) throw Object.assign(new Error(`unknown product ${id}`), { status: 400 });
        return { id, name: item.name, price: item.price, quantity: Number(quantity), ...(item.subscription || {}) };
      });
      const r = await gateway('POST', '/v1/sessions', {
        offerId: 'order-' + crypto.randomBytes(6).toString('hex'), currency: 'USD', cart,
        shippingAddress: order.shippingAddress, methods: order.methods || ['exchange', 'bank', 'qr'],
      });
      if (r.status !== 201 && r.status !== 200) return json(res, r.status, r.text);
      const session = JSON.parse(r.text);
      orders.set(session.offerId, { amount: session.amount, currency: session.currency, paid: false });
      return json(res, 200, { sessionUrl: `${GATEWAY_PUBLIC}/v1/checkout/${session.id}`, session });
    }
    if (req.method === 'POST' && url.pathname === '/paywasm-events') {
      const raw = await readBody(req, 1024 * 1024);
      if (!verifyPaywasmEvent(raw, req.headers['paywasm-signature'] || '', EVENT_SECRET)) return json(res, 400, { error: 'bad signature' });
      const event = JSON.parse(raw);
      // The id inside the signed body, never a header: a replayed body has the same id.
      if (!seen.has(event.id)) {
        seen.add(event.id);
        events.push({ seq: events.length + 1, receivedAt: new Date().toISOString(), ...event });
        // The ship rule of docs/merchant.md, step 4: a checkout.succeeded event for an order of ours,
        // whose total is the one we asked for.
        const order = orders.get(event.offerId);
        if (event.type === 'checkout.succeeded' && order && !order.paid && event.orderTotal
            && event.orderTotal.amount === order.amount && event.orderTotal.currency === order.currency) {
          order.paid = true;
          console.log(`shop-app: order ${event.offerId} paid (${order.amount} ${order.currency}); ship it`);
        } else if (event.type === 'checkout.amount_mismatch') {
          console.log(`shop-app: order ${event.offerId}: amount mismatch, not shipped`);
        } else if (event.type.startsWith('subscription.debit.')) {
          console.log(`shop-app: subscription ${event.merchantSubscriptionId || event.subscriptionId}: ${event.type}`);
        }
      }
      res.writeHead(204).end();
      return undefined;
    }
    if (req.method === 'GET' && url.pathname === '/shop/events') {
      const since = Number(url.searchParams.get('since') || 0);
      return json(res, 200, events.filter((e) => e.seq > since).map(({ transaction, ...rest }) => rest));
    }
    const sub = url.pathname.match(/^\/shop\/subscriptions\/([^/]+)\/(debit|cancel)$/);
    if (req.method === 'POST' && sub) {
      // A monthly charge: the amount of the plan, and this month's id (a retry in the same month is
      // the same debit at the service; next month's is a new one).
      const month = new Date().toISOString().slice(0, 7);
      const debit = { items: [{ amount: CATALOGUE['sku-club'].price, currency: 'USD' }],
        orderId: `club-${sub[1].slice(0, 40)}-${month}`, merchantSubscriptionId: 'club-demo' };
      const r = await gateway('POST', `/v1/subscriptions/${encodeURIComponent(sub[1])}/${sub[2]}`, sub[2] === 'debit' ? debit : undefined);
      return json(res, r.status, r.text);
    }
    if (url.pathname === '/shop/shopper-token' && (req.method === 'GET' || req.method === 'OPTIONS')) {
      // Also the gateway's hosted checkout page asks (paywasm-merchant --shopper-token-url), from the
      // gateway's origin with the shop's cookies: CORS with credentials for exactly that origin, no
      // other (a page elsewhere cannot read the token).
      const cors = req.headers.origin === GATEWAY_ORIGIN
        ? { 'access-control-allow-origin': GATEWAY_ORIGIN, 'access-control-allow-credentials': 'true', vary: 'Origin' }
        : { vary: 'Origin' };
      if (req.method === 'OPTIONS') {
        res.writeHead(204, { ...cors, ...(cors['access-control-allow-origin'] ? { 'access-control-allow-methods': 'GET',
          'access-control-allow-headers': 'accept', 'access-control-max-age': '600' } : {}) }).end();
        return undefined;
      }
      const m = await (await fetch(`${SANDBOX}/__sandbox/merchant`)).json();
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store', ...cors })
        .end(JSON.stringify({ token: m.shopperToken, stockId: SANDBOX_STOCK_ID, bankAccount: 'Sandbox Checking ••6789' }));
      return undefined;
    }
    if (url.pathname.startsWith('/__sandbox/')) {
      // The demo's control panel: passed through to the sandbox as is.
      const body = req.method === 'GET' || req.method === 'DELETE' ? undefined : await readBody(req);
      const r = await fetch(SANDBOX + url.pathname + url.search, { method: req.method, body,
        headers: body === undefined ? {} : { 'content-type': 'application/json' } });
      return json(res, r.status, await r.text());
    }
    if (url.pathname.startsWith('/dist/')) return sendFile(res, DIST, url.pathname.slice(6));
    if (req.method === 'GET') return sendFile(res, SITE, url.pathname === '/' ? 'index.html' : url.pathname.slice(1));
    return json(res, 404, { error: 'not_found' });
  } catch (e) {
    return json(res, e.status || 500, { error: e.status ? 'bad_request' : 'internal', message: e.message });
  }
});

server.listen(PORT, '127.0.0.1', () => {
  console.log(`shop-app: listening on http://127.0.0.1:${server.address().port}`);
});
