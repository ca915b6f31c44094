// A web server on 127.0.0.1 (a free port) that serves pages loading the widget the way a merchant's
// page does, shared by the browser tests (tests/browser/server.mjs) and the bench (bench/server.mjs):
//   /dist/<file>    the widget's files from `distDir`
//   /pages/<file>   `pagesDir`; in HTML, {{SRI:<file>}} becomes that file's integrity.json value and
//                   {{API}} the API origin, and the page goes out with the strict
//                   Content-Security-Policy merchants are told to use (cspFor, docs/widget.md)
//   anything else   `route(url, reply)` if given: it answers through `reply` and returns true
// Every answer has Cache-Control: no-store and X-Content-Type-Options: nosniff. Paths that leave
// their folder are 404. Files are read once and answered from memory (the server's own time stays
// out of timings).
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';

export const API_ORIGIN = 'http://api.paywasm.test';

// The policy of docs/widget.md, with the API's origin in connect-src.
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

export const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm', '.json': 'application/json', '.css': 'text/css', '.pem': 'application/x-pem-file',
  '.ts': 'text/plain; charset=utf-8',
};

// `htmlHeaders(url)`: extra headers for an HTML page. Resolves { origin, requests, close() };
// `requests` lists every "METHOD /path" served, in order.
export async function startPageServer({ distDir, pagesDir, apiOrigin = API_ORIGIN, route, htmlHeaders }) {
  const integrity = JSON.parse(fs.readFileSync(path.join(distDir, 'integrity.json'), 'utf8'));
  const requests = [];
  const cache = new Map();
  const read = (p) => {
    if (!cache.has(p)) cache.set(p, fs.existsSync(p) && fs.statSync(p).isFile() ? fs.readFileSync(p) : null);
    return cache.get(p);
  };
  const inside = (base, rel) => {
    const p = path.normalize(path.join(base, rel));
    return p.startsWith(base + path.sep) ? p : null;
  };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    requests.push(`${req.method} ${url.pathname}`);
    const send = (status, type, body, extra) => {
      res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff', ...extra });
      res.end(body);
    };
    const notFound = () => send(404, 'text/plain', 'not found');
    const file = (p, extra) => {
      const body = p && read(p);
      if (!body) return notFound();
      return send(200, TYPES[path.extname(p)] || 'application/octet-stream', body, extra);
    };
    const reply = { send, file, notFound, requests };
    if (url.pathname.startsWith('/dist/')) return file(inside(distDir, url.pathname.slice(6)));
    if (url.pathname.startsWith('/pages/')) {
      const p = inside(pagesDir, url.pathname.slice(7));
      if (!p || !read(p)) return notFound();
      if (!p.endsWith('.html')) return file(p);
      const html = read(p).toString('utf8')
        .replace(/\{\{SRI:([\w.]+)\}\}/g, (m, f) => integrity[f] || 'missing')
        .replace(/\{\{API\}\}/g, apiOrigin);
      return send(200, TYPES['.html'], html, { 'Content-Security-Policy': cspFor(apiOrigin), ...(htmlHeaders?.(url) ?? {}) });
    }
    if (route?.(url, reply)) return undefined;
    return notFound();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }),
  };
}
