// The CSV export (GET /v1/sessions.csv) cut by a stop: a merchant who reconciles from it must never
// hold a short export that looks whole. The answer is chunked; only an export that wrote its last row
// ends with the last chunk. Before: a gateway stopped (SIGTERM) mid-export ended the answer cleanly,
// and curl, a browser or Node saw a complete file with rows missing.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';

import { APP_SECRET, gw, startGateway, startSandbox, tempDir, waitFor } from './harness.mjs';

const ROWS = 100000;  // about 30 MB of CSV: more than the kernels' socket buffers hold between the two
let sb, dir, dbUrl;

before(async () => {
  sb = await startSandbox();
  dir = tempDir('pwm-export-');
  dbUrl = 'sqlite:' + path.join(dir, 'gateway.db');
  // One real session (the schema migrated, a real checkout), then ROWS copies of its row, written as
  // bench/console.mjs does (the writer guard's function defined), while no gateway runs.
  const g = await startGateway(sb, { dir, db: dbUrl });
  const made = await gw(g, 'POST', '/v1/sessions', { app: true, body: { offerId: 'export-template', currency: 'USD',
    cart: [{ id: 'x', name: 'Widget', price: 64, quantity: 1 }],
    shippingAddress: { firstname: 'Ada', lastname: 'Lovelace', email: 'ada@example.com', country: 'GB' } } });
  assert.equal(made.status, 201, made.text);
  await g.stop();
  execFileSync('python3', ['-c', `
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.create_function("paywasm_writer_schema", 0, lambda: 1000, deterministic=True)
cols = [r[1] for r in db.execute("PRAGMA table_info(sessions)")]
other = [c for c in cols if c not in ("id", "offer_id", "created_at")]
db.execute("WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ?) "
           "INSERT INTO sessions (id, offer_id, created_at, " + ", ".join(other) + ") "
           "SELECT 'cs_export_' || i, 'export-' || i, created_at - i, " + ", ".join(other) +
           " FROM sessions, s WHERE offer_id = 'export-template'", (int(sys.argv[2]),))
db.commit()
`, dbUrl.slice('sqlite:'.length), String(ROWS)], { stdio: ['ignore', 'ignore', 'inherit'] });
});
after(async () => { await sb?.stop(); });

// GET /v1/sessions.csv; `onFirst(res)` runs once the first 64 KiB arrived. Resolves the bytes read,
// whether the answer ended with its last chunk (res.complete) and how it ended.
function exportCsv(g, onFirst) {
  return new Promise((resolve, reject) => {
    const req = http.get(`${g.base}/v1/sessions.csv`, { headers: { authorization: 'Bearer ' + APP_SECRET } }, (res) => {
      assert.equal(res.statusCode, 200);
      let bytes = 0, first = false, lines = 0;
      res.on('data', (d) => {
        bytes += d.length;
        for (const b of d) if (b === 10) lines++;
        if (!first && bytes >= 65536 && onFirst) {
          first = true;
          onFirst(res);
        }
      });
      const done = (how) => resolve({ bytes, lines, complete: res.complete, how });
      res.on('end', () => done('end'));
      res.on('error', (e) => done(e.message));
      res.on('aborted', () => done('aborted'));
    });
    req.on('error', reject);
  });
}

test('an export the gateway finishes ends with its last chunk: every row', { timeout: 120000 }, async () => {
  const g = await startGateway(sb, { dir, db: dbUrl });
  try {
    const r = await exportCsv(g);
    assert.equal(r.complete, true, r.how);
    assert.equal(r.lines, 1 + ROWS + 1, 'the header, the copies and the template');
  } finally {
    await g.stop();
  }
});

test('an export cut by SIGTERM ends without its last chunk: the client sees it incomplete', { timeout: 120000 }, async () => {
  const g = await startGateway(sb, { dir, db: dbUrl });
  let stopped;
  const r = await exportCsv(g, async (res) => {
    // The client stops reading: the gateway waits on its write. It is told to stop meanwhile, and
    // the client reads on once the gateway is draining (its listener closed: a new request fails).
    res.pause();
    stopped = g.stop();
    await waitFor(async () => {
      try {
        await fetch(g.base + '/healthz');
        return false;
      } catch {
        return true;
      }
    }, 20000, 'the gateway draining');
    res.resume();
  });
  assert.equal(r.complete, false, `the answer ended as complete after ${r.lines} lines (${r.bytes} bytes)`);
  assert.ok(r.lines < ROWS, `${r.lines} lines`);
  assert.deepEqual(await stopped, { code: 0, signal: null });
});
