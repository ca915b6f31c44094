// The benchmark's own web server on 127.0.0.1 (a free port): the widget's dist under /dist/ (and
// gzip-compressed under /gz/, for the slow-phone cold start), the alternatives under /vendor/, the
// bench pages under /pages/, the run's inputs at /inputs.json.
// HTML goes out with the strict Content-Security-Policy a merchant is told to use; the micro-bench
// page is also cross-origin isolated (COOP + COEP), which gives performance.now() 5 us resolution
// instead of 100 us. Nothing is cached (Cache-Control: no-store), so every load is cold.
import fs from 'node:fs';
import path from 'node:path';
import { startPageServer, API_ORIGIN, TYPES } from '../tests/support/page-server.mjs';
import { gzipRoute } from './throttle.mjs';
import { tempDir } from '../tests/support/node.mjs';

export { API_ORIGIN };

const here = path.dirname(new URL(import.meta.url).pathname);

// vendor: { 'forge.min.js': '/abs/path', ... }; inputs: the object served as /inputs.json.
// Resolves { origin, requests, close() }; `requests` lists every path served, in order.
export function startServer({ distDir, vendor, inputs }) {
  const gz = gzipRoute(distDir, TYPES);  // /gz/<file>: the dist file gzip -9, Content-Encoding: gzip
  return startPageServer({
    distDir, pagesDir: path.join(here, 'pages'),
    htmlHeaders: (url) => (url.searchParams.has('isolated')
      ? { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' } : {}),
    route(url, reply) {
      const { send, file, notFound, requests } = reply;
      if (gz(url, reply)) return true;
      if (url.pathname.startsWith('/vendor/')) {
        const p = vendor[url.pathname.slice(8)];
        return (p ? file(p) : notFound()), true;
      }
      if (url.pathname === '/inputs.json') return send(200, TYPES['.json'], JSON.stringify(inputs)), true;
      if (url.pathname === '/__bench/requests') {
        requests.pop();  // this request itself
        return send(200, TYPES['.json'], JSON.stringify(requests)), true;
      }
      return false;
    },
  });
}

// The same server in a child process, so the driver's own work (Playwright's protocol traffic
// during a navigation) never delays an answer. Resolves { origin, requests(), close() }.
export async function startServerProcess(config) {
  const { spawn } = await import('node:child_process');
  const os = await import('node:os');
  const dir = tempDir('paywasm-bench-server-');
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
