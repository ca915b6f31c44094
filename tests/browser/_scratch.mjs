import { chromium } from 'playwright-core';
import { startServer } from './server.mjs';
const server = await startServer({ distDir: process.argv[2], keyPem: 'x' });
const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox'] });
const p = await b.newPage();
await p.goto(`${server.origin}/pages/checkout.html`);
const r = await p.evaluate(async () => {
  const core = await PayWasm.load();
  const tryit = (c) => { try { return core.cartTotal(c); } catch (e) { return 'ERR ' + e.field + ' ' + e.message; } };
  return [tryit([{ price: 0.1, quantity: 3 }]), tryit([{ id: 'a', name: 'A', price: '1', quantity: 3 }]), tryit([{ id: 'a', name: 'A', price: 1.5, quantity: 3, extra: 1 }]), tryit({}), tryit([{ id: 'a', name: 'A', price: 1.5, quantity: 2.5 }])];
});
console.log(r);
await b.close(); await server.close();
