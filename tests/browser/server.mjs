// The test's own web server on 127.0.0.1 (free port): dist/ under /dist/, the test pages under
// /pages/ (with {{SRI:file}} filled from dist/integrity.json), the merchant's test key under /keys/,
// axe-core under /vendor/. Every page is sent with the strict Content-Security-Policy a merchant is
// told to use, so every test runs under it.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const here = path.dirname(new URL(import.meta.url).pathname);

export const API_ORIGIN = 'http://api.paywasm.test';

export function cspFor(apiOrigin) {
  return [
    "default-src 'none'",
    "script-src 'self' 'wasm-unsafe-eval'",
    "style-src 'self'",
    `connect-src 'self' ${apiOrigin}`,
    "img-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm', '.json': 'application/json', '.css': 'text/css', '.pem': 'application/x-pem-file',
  '.ts': 'text/plain; charset=utf-8',
};

// Starts the server; resolves { origin, close(), requests } (requests: every path served, in order).
export async function startServer({ distDir, keyPem, apiOrigin = API_ORIGIN }) {
  const integrity = JSON.parse(fs.readFileSync(path.join(distDir, 'integrity.json'), 'utf8'));
  const axePath = require.resolve('axe-core/axe.min.js');
  const requests = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    requests.push(`${req.method} ${url.pathname}`);
    const send = (status, type, body, extra) => {
      res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff', ...extra });
      res.end(body);
    };
    const file = (p, extra) => {
      if (!fs.existsSync(p) || !fs.statSync(p).isFile()) return send(404, 'text/plain', 'not found');
      return send(200, TYPES[path.extname(p)] || 'application/octet-stream', fs.readFileSync(p), extra);
    };
    const safe = (base, rel) => {
      const p = path.normalize(path.join(base, rel));
      return p.startsWith(base + path.sep) ? p : null;
    };
    if (url.pathname.startsWith('/dist/')) {
      const p = safe(distDir, url.pathname.slice(6));
      return p ? file(p) : send(404, 'text/plain', 'not found');
    }
    if (url.pathname.startsWith('/pages/')) {
      const p = safe(path.join(here, 'pages'), url.pathname.slice(7));
      if (!p || !fs.existsSync(p)) return send(404, 'text/plain', 'not found');
      if (p.endsWith('.html')) {
        const html = fs.readFileSync(p, 'utf8')
          .replace(/\{\{SRI:([\w.]+)\}\}/g, (m, f) => integrity[f] || 'missing')
          .replace(/\{\{API\}\}/g, apiOrigin);
        return send(200, TYPES['.html'], html, { 'Content-Security-Policy': cspFor(apiOrigin) });
      }
      return file(p);
    }
    if (url.pathname === '/keys/public.pem') return send(200, TYPES['.pem'], keyPem);
    if (url.pathname === '/vendor/axe.min.js') return file(axePath);
    return send(404, 'text/plain', 'not found');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }),
  };
}
