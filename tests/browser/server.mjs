// The browser tests' web server (tests/support/page-server.mjs): dist/ under /dist/, the test pages
// under /pages/, plus the merchant's test key under /keys/ and axe-core under /vendor/. Every page
// is sent with the strict Content-Security-Policy a merchant is told to use, so every test runs
// under it.
import path from 'node:path';
import { createRequire } from 'node:module';
import { startPageServer, API_ORIGIN, cspFor, TYPES } from '../support/page-server.mjs';

export { API_ORIGIN, cspFor };

const require = createRequire(import.meta.url);
const here = path.dirname(new URL(import.meta.url).pathname);

// Resolves { origin, close(), requests } (requests: every path served, in order).
export function startServer({ distDir, keyPem, apiOrigin = API_ORIGIN }) {
  const axePath = require.resolve('axe-core/axe.min.js');
  return startPageServer({
    distDir, pagesDir: path.join(here, 'pages'), apiOrigin,
    route(url, { send, file }) {
      if (url.pathname === '/keys/public.pem') return send(200, TYPES['.pem'], keyPem), true;
      if (url.pathname === '/vendor/axe.min.js') return file(axePath), true;
      return false;
    },
  });
}
