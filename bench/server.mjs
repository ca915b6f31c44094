// The benchmark's own web server on 127.0.0.1 (a free port): the widget's dist under /dist/, the
// alternatives under /vendor/, the bench pages under /pages/, the run's inputs at /inputs.json.
// HTML goes out with the strict Content-Security-Policy a merchant is told to use; the micro-bench
// page is also cross-origin isolated (COOP + COEP), which gives performance.now() 5 us resolution
// instead of 100 us. Nothing is cached (Cache-Control: no-store), so every load is cold.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';

const here = path.dirname(new URL(import.meta.url).pathname);

export const API_ORIGIN = 'http://api.paywasm.test';

export const CSP = [
  "default-src 'none'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self'",
  `connect-src 'self' ${API_ORIGIN}`,
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8', '.wasm': 'application/wasm', '.json': 'application/json',
};

// vendor: { 'forge.min.js': '/abs/path', ... }; inputs: the object served as /inputs.json.
// Resolves { origin, requests, close() }; `requests` lists every path served, in order.
export async function startServer({ distDir, vendor, inputs }) {
  const integrity = JSON.parse(fs.readFileSync(path.join(distDir, 'integrity.json'), 'utf8'));
  const requests = [];
  // Files are read once and answered from memory: the server's own time stays out of the figures.
  const cache = new Map();
  const read = (p) => {
    if (!cache.has(p)) cache.set(p, fs.existsSync(p) && fs.statSync(p).isFile() ? fs.readFileSync(p) : null);
    return cache.get(p);
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
    const inside = (base, rel) => {
      const p = path.normalize(path.join(base, rel));
      return p.startsWith(base + path.sep) ? p : null;
    };
    if (url.pathname.startsWith('/dist/')) return file(inside(distDir, url.pathname.slice(6)));
    if (url.pathname.startsWith('/vendor/')) return file(vendor[url.pathname.slice(8)]);
    if (url.pathname === '/inputs.json') return send(200, TYPES['.json'], JSON.stringify(inputs));
    if (url.pathname === '/__bench/requests') {
      requests.pop();  // this request itself
      return send(200, TYPES['.json'], JSON.stringify(requests));
    }
    if (url.pathname.startsWith('/pages/')) {
      const p = inside(path.join(here, 'pages'), url.pathname.slice(7));
      if (!p || !read(p)) return notFound();
      if (!p.endsWith('.html')) return file(p);
      const html = read(p).toString('utf8').replace(/\{\{SRI:([\w.]+)\}\}/g, (m, f) => integrity[f] || 'missing');
      const isolated = url.searchParams.has('isolated')
        ? { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' } : {};
      return send(200, TYPES['.html'], html, { 'Content-Security-Policy': CSP, ...isolated });
    }
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

// The same server in a child process, so the driver's own work (Playwright's protocol traffic
// during a navigation) never delays an answer. Resolves { origin, requests(), close() }.
export async function startServerProcess(config) {
  const { spawn } = await import('node:child_process');
  const os = await import('node:os');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paywasm-bench-server-'));
  const configFile = path.join(dir, 'config.json');
  fs.writeFileSync(configFile, JSON.stringify(config));
  const child = spawn(process.execPath, [new URL(import.meta.url).pathname, configFile], { stdio: ['ignore', 'pipe', 'inherit'] });
  const origin = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const line = out.split('\n')[0];
      if (out.includes('\n')) resolve(JSON.parse(line).origin);
    });
    child.on('exit', (code) => reject(new Error(`the bench server exited (${code}) before it listened`)));
  });
  fs.rmSync(dir, { recursive: true, force: true });
  return {
    origin,
    requests: async () => (await fetch(`${origin}/__bench/requests`)).json(),
    close: () => new Promise((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    }),
  };
}

// node bench/server.mjs CONFIG.json: serve until SIGTERM; the first line of stdout is {"origin":...}.
if (process.argv[1] && path.resolve(process.argv[1]) === new URL(import.meta.url).pathname) {
  const config = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  const server = await startServer(config);
  process.stdout.write(`${JSON.stringify({ origin: server.origin })}\n`);
  process.on('SIGTERM', () => server.close().then(() => process.exit(0)));
}
