// The webhook path alone, for a profiler: one paywasm-merchant on SQLite, N sessions, then their
// signed webhooks (status 0, then status 1: two changes a session) POSTed open loop at RATE/s on
// kept-alive connections. No stream, no slow client, no app callback: what is measured is what a
// verified webhook costs. The gateway's pid is printed, then the run waits PAYWASM_PROFILE_WAIT_MS
// (default 2000) so that a profiler can attach (`perf record -p PID`), then sends.
//   PAYWASM_SANDBOX=... PAYWASM_CLI=... PAYWASM_MERCHANT=... node tests/load/gateway-profile.mjs
// Knobs: PAYWASM_PROFILE_SESSIONS (3000), PAYWASM_PROFILE_RATE (1200 webhooks/s).
// Prints: accepted/s, answer p50/p99, and the gateway's CPU per verified webhook (utime + stime
// from /proc/PID/stat over the sending, divided by the webhooks answered 2xx).
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';

import { gw, startGateway, startSandbox, webhookBody, webhookPrivateKey } from '../gateway/harness.mjs';
import { sleep } from '../support/node.mjs';

const env = (name, fallback) => (process.env[name] ? Number(process.env[name]) : fallback);
const SESSIONS = env('PAYWASM_PROFILE_SESSIONS', 3000);
const RATE = env('PAYWASM_PROFILE_RATE', 1200);
const WAIT = env('PAYWASM_PROFILE_WAIT_MS', 2000);
const now = () => performance.now();
const cpuSeconds = (pid) => {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
};

const sb = await startSandbox();
const key = webhookPrivateKey(sb);
const g = await startGateway(sb);
const url = new URL(g.base);
let failures = 0;
try {
  const sessions = [];
  let next = 0;
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (next++ < SESSIONS) {
      const r = await gw(g, 'POST', '/v1/sessions', { app: true, body: { offerId: 'pf-' + crypto.randomUUID(), currency: 'USD',
        methods: ['exchange'], cart: [{ id: 'x', name: 'X', price: 5, quantity: 1 }] } });
      if (r.status === 201) sessions.push({ id: r.json.id, offerId: r.json.offerId, tx: crypto.randomUUID() });
    }
  }));
  const merchantId = sb.merchant.merchantId;
  const sign = (s, status) => webhookBody(JSON.stringify({ id: s.tx, status, nativeAmount: '5.00', nativeCurrency: 'USD', merchantId,
    meta: { offerId: s.offerId } }), key);
  const bodies = [...sessions.map((s) => sign(s, 0)), ...sessions.map((s) => sign(s, 1))];
  console.log(`# gateway pid ${g.proc.pid}; ${bodies.length} webhooks at ${RATE}/s in ${WAIT} ms`);
  await sleep(WAIT);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const post = (body) => new Promise((resolve) => {
    const t0 = now();
    const req = http.request({ host: url.hostname, port: url.port, path: '/v1/webhooks', method: 'POST', agent,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res.on('data', (d) => { text += d; });
      res.on('end', () => resolve({ status: res.statusCode, ms: now() - t0, applied: text.includes('"applied"') }));
    });
    req.on('error', (e) => resolve({ error: e.code, ms: now() - t0 }));
    req.end(body);
  });
  const c0 = cpuSeconds(g.proc.pid);
  const t0 = now();
  const results = await Promise.all(bodies.map(async (body, i) => {
    const due = t0 + (i * 1000) / RATE;
    if (due > now()) await sleep(due - now());
    return post(body);
  }));
  const secs = (now() - t0) / 1000;
  const cpu = cpuSeconds(g.proc.pid) - c0;
  agent.destroy();
  const good = results.filter((r) => r.status >= 200 && r.status < 300);
  const applied = results.filter((r) => r.applied).length;
  const ms = good.map((r) => r.ms).sort((a, b) => a - b);
  const p = (q) => Math.round(ms[Math.min(ms.length - 1, Math.ceil(q * ms.length) - 1)] * 10) / 10;
  if (good.length !== bodies.length || applied !== bodies.length) failures++;
  console.log(`${failures ? 'not ok' : 'ok'} - ${good.length}/${bodies.length} answered 2xx, ${applied} applied`);
  console.log(`# ${Math.round(good.length / secs)}/s accepted of ${RATE}/s offered, answer p50 ${p(0.5)} / p99 ${p(0.99)} ms, ` +
    `gateway CPU ${(cpu * 1000 / good.length).toFixed(3)} ms per webhook (${cpu.toFixed(2)} s for ${good.length})`);
} finally {
  await g.stop();
  await sb.stop();
}
process.exit(failures ? 1 : 0);
