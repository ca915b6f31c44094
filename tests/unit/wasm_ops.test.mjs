// The wasm bridge's three descriptions of one interface agree (nothing else ties them): the op
// table kOps (src/wasm/ops.cpp), the loader's calls and methods (web/src/core.js) and the declared
// core (PayWasmCore in web/paywasm.d.ts). Reads the sources only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const read = (file) => fs.readFileSync(path.join(root, file), 'utf8');
const sorted = (items) => [...new Set(items)].sort();

// The text between `start` and the first line equal to `end` after it.
function section(text, start, end) {
  const from = text.indexOf(start);
  assert.ok(from >= 0, `no "${start}"`);
  const to = text.indexOf(end, from);
  assert.ok(to > from, `no "${end}" after "${start}"`);
  return text.slice(from, to);
}

const ops = sorted([...section(read('src/wasm/ops.cpp'), 'constexpr Entry kOps[] = {', '\n};')
  .matchAll(/\{"(\w+)", op_\w+\}/g)].map((m) => m[1]));
const coreJs = read('web/src/core.js');
const api = section(coreJs, 'return Object.freeze({', '\n  });');
const calledOps = sorted([...coreJs.matchAll(/\bcall\('(\w+)'/g)].map((m) => m[1]));
// Methods (`name(...) {`) and shorthand members (`name,`).
const jsMethods = sorted([...api.matchAll(/^ {4}(\w+)(?:\(|,$)/gm)].map((m) => m[1]));
const declared = sorted([...section(read('web/paywasm.d.ts'), 'export interface PayWasmCore {', '\n}')
  .matchAll(/^ {2}(\w+)\(/gm)].map((m) => m[1]));

test('the op table is not empty and names each op once', () => {
  assert.ok(ops.length >= 10, `kOps: ${ops}`);
});

test('core.js calls exactly the ops of kOps', () => {
  assert.deepEqual(calledOps, ops);
});

test('core.js and paywasm.d.ts declare the same methods of the core', () => {
  assert.deepEqual(jsMethods, declared);
});

test('every op of kOps is a method of the declared core', () => {
  const missing = ops.filter((op) => !declared.includes(op));
  assert.deepEqual(missing, [], 'ops without a method of PayWasmCore');
});
