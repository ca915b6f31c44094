// The widget's source read as a graph, without a browser (ctest widget.imports): calls go one way.
//   node --test-reporter=spec tests/browser/imports.test.mjs
// The import graph of web/src has no cycle; the view (view.js and the formatting and colours it
// uses) imports no flow, no network and no element, and writes nothing of the checkout's state: the
// element hands it its actions (data-action) and runs them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

const SRC = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../web/src');
const code = (file) => fs.readFileSync(path.join(SRC, file), 'utf8').replace(/^\s*\/\/.*$/gm, '');

// file -> the files of web/src it imports ('paywasm:build' and packages left out).
function importGraph() {
  const graph = {};
  for (const file of fs.readdirSync(SRC).filter((f) => f.endsWith('.js'))) {
    graph[file] = [...code(file).matchAll(/^\s*(?:import|export)\s[^;]*?from\s+'\.\/([\w-]+\.js)'|^\s*import\s+'\.\/([\w-]+\.js)'/gm)]
      .map((m) => m[1] || m[2]);
  }
  return graph;
}

// The first cycle of `graph` as [a, b, ..., a], or null.
function findCycle(graph) {
  const state = {};  // undefined: not seen; 1: on the path; 2: done
  const path_ = [];
  const visit = (node) => {
    state[node] = 1;
    path_.push(node);
    for (const next of graph[node] || []) {
      if (state[next] === 1) return [...path_.slice(path_.indexOf(next)), next];
      if (!state[next]) {
        const found = visit(next);
        if (found) return found;
      }
    }
    path_.pop();
    state[node] = 2;
    return null;
  };
  for (const node of Object.keys(graph)) {
    if (!state[node]) {
      const found = visit(node);
      if (found) return found;
    }
  }
  return null;
}

test('the import graph of web/src has no cycle (and the check finds one where there is one)', () => {
  const graph = importGraph();
  assert.ok(Object.keys(graph).length >= 15 && graph['element.js'].includes('flows.js'), `the graph was read: ${JSON.stringify(graph)}`);
  for (const [file, imports] of Object.entries(graph)) {
    for (const f of imports) assert.ok(graph[f], `${file} imports ${f}, which is not in web/src`);
  }
  assert.equal(findCycle(graph), null, `a cycle: ${(findCycle(graph) || []).join(' -> ')}`);
  // The cycle this test was written for: flows.js and view.js importing each other.
  const cycle = findCycle({ ...graph, 'view.js': [...graph['view.js'], 'flows.js'] });
  assert.ok(cycle && cycle.includes('flows.js') && cycle.includes('view.js') && cycle[0] === cycle[cycle.length - 1], `found: ${cycle}`);
});

test('the view imports no flow and writes no state: its controls declare actions, which the element runs', () => {
  const graph = importGraph();
  const forbidden = ['flows.js', 'element.js', 'net.js', 'core.js', 'api.js', 'mount.js'];
  for (const file of ['view.js', 'format.js', 'colours.js', 'dom.js']) {
    const reach = new Set();
    const walk = (f) => { for (const g of graph[f]) if (!reach.has(g)) { reach.add(g); walk(g); } };
    walk(file);
    assert.deepEqual([...reach].filter((f) => forbidden.includes(f)), [], `${file} reaches ${[...reach].join(', ')}`);
    const src = code(file);
    // c.s.x = ..., s.x = ..., c.x = ... (other than the view's own nodes, c.view)
    const writes = [...src.matchAll(/\b(?:c\.s|s|c(?!\.view\b))\.\w+(?:\.\w+)*\s*(?:=(?!=)|\+=|-=|\+\+|--)/g)].map((m) => m[0]);
    assert.deepEqual(writes, [], `${file} writes the checkout's state`);
  }
  const view = code('view.js');
  const actions = [...view.matchAll(/'data-action': '(\w+):(\w+)'/g)].map((m) => m[2]);
  assert.deepEqual([...new Set(actions)].sort(), ['code2fa', 'exchange', 'method', 'pay', 'savePassword'], 'the actions the view declares');
  const element = code('element.js');
  for (const a of actions) assert.match(element, new RegExp(`\\b${a}: \\(c`), `element.js runs the action ${a}`);
});
