// What the engine suites (engines/suite.mjs, attempts.test.mjs) do with a page of the engine
// interface (index.mjs), the same way in each: open it on a site whose pages load the widget and
// the recorder (pages/record.js), wait for a condition in it, and close it failing on what the
// recorder saw go wrong.
import assert from 'node:assert/strict';
import { waitFor } from '../../support/node.mjs';

// A fresh page of `engine` on `url`, added to `pages` (the suite closes what a failed test left
// open); page.done() closes it, takes it out of `pages`, and fails on uncaught errors in the page
// or CSP violations.
export async function openChecked(engine, url, pages) {
  const page = await engine.newPage();
  pages.add(page);
  await page.goto(url);
  const loaded = await page.run(() => typeof window.PayWasm === 'object' && Array.isArray(window.__events));
  assert.ok(loaded, 'the page loaded the widget and record.js');
  page.done = async () => {
    const seen = await page.run(() => ({ errors: window.__errors, violations: window.__violations }));
    await page.close();
    pages.delete(page);
    assert.deepEqual(seen.errors, [], 'uncaught errors in the page');
    assert.deepEqual(seen.violations, [], 'CSP violations');
  };
  return page;
}

// Polls fn(arg) in the page until it returns something truthy; fails after `timeout` ms with `what`
// and the widget's events so far.
export async function until(page, fn, arg, what, timeout = 20000) {
  try {
    return await waitFor(() => page.run(fn, arg), { timeout, interval: 100, what });
  } catch (e) {
    const seen = await page.run(() => JSON.stringify({ events: window.__events, errors: window.__errors })).catch(() => '?');
    throw new Error(`${e.message}; ${seen.slice(0, 1500)}`);
  }
}
