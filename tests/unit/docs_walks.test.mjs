// docs/contributing.md is a map a newcomer follows, so it must not drift from the code: every
// function its "Follow a payment" and "Follow a webhook" walks name is defined somewhere in the
// tree, every file they name exists, and the #includes of src/ and demo/sandbox/ keep to the
// "may include" column of its layout table (which also rules out an include cycle between
// folders); inside src/merchant, every include names its part and no part includes one on its own
// level or above (the levels of the table "The gateway's parts"); the layout table's word that no
// console page reads the store holds: the page files src/merchant/console/console_pages.hpp maps
// (every one of them) name no store call. Reads the sources only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const doc = fs.readFileSync(path.join(root, 'docs/contributing.md'), 'utf8');

// The text of the section headed `## title`, up to the next `## `.
function section(title) {
  const start = doc.indexOf(`\n## ${title}\n`);
  assert.ok(start >= 0, `docs/contributing.md has no section "${title}"`);
  const end = doc.indexOf('\n## ', start + 1);
  return doc.slice(start, end < 0 ? undefined : end);
}

// src/merchant's parts from the table under "### The gateway's parts" in the Layout section:
// | level | `part/` | what lives there | `map.hpp` |  ->  {level, part, map}
function merchantParts() {
  const layout = section('Layout');
  const start = layout.indexOf("\n### The gateway's parts\n");
  assert.ok(start >= 0, 'docs/contributing.md has no "### The gateway\'s parts"');
  const end = layout.indexOf('\n### ', start + 1);
  const table = layout.slice(start, end < 0 ? undefined : end);
  const parts = [...table.matchAll(/^\| (\d+) \| `(\w+)\/` \|[^|\n]*\| `([\w.]+)` \|$/gm)]
    .map((m) => ({ level: Number(m[1]), part: m[2], map: m[3] }));
  assert.ok(parts.length >= 5, `few parts in "The gateway's parts": ${parts.map((p) => p.part)}`);
  return parts;
}

function filesUnder(dir, exts) {
  const out = [];
  for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(rel, exts));
    else if (exts.some((e) => entry.name.endsWith(e))) out.push(rel);
  }
  return out;
}

const sources = ['include', 'src', 'demo/sandbox', 'web/src']
  .flatMap((d) => filesUnder(d, ['.cpp', '.hpp', '.js', '.mjs']))
  .map((file) => ({ file, text: fs.readFileSync(path.join(root, file), 'utf8') }));

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// Whether `name` ("f", "Class::f") has a definition or declaration: a C++ function (a return type
// or a class qualifier before it, or a declaration in its class), a JS function or method.
function defined(name) {
  const parts = name.split('::');
  const fn = escape(parts.at(-1));
  const cls = parts.length > 1 ? escape(parts.slice(0, -1).join('::')) : null;
  // C++: a return type, then the (qualified) name, its parameters (over several lines too), then a
  // body or a ';' (a declaration in its class or header).
  const cxx = (qualifier) => new RegExp(
    `(?:^|\\n)[ \\t]*(?:(?:static|inline|constexpr|virtual|explicit|friend)\\s+)*[\\w:<>,]+(?:\\s*[*&])?\\s+[*&]?` +
    `${qualifier}${fn}\\s*\\([^;{]*\\)[^;{]*[{;]`);
  // A member: defined as Class::f, or declared inside `class Class` / `struct Class`.
  const inClass = cls && new RegExp(`\\b(?:class|struct)\\s+${escape(parts.at(-2))}\\b`);
  const patterns = [
    cxx(cls ? `${cls}::` : '(?:\\w+::)?'),
    // JS: a function, or a method of an object or class.
    new RegExp(`function\\*?\\s+${fn}\\s*\\(`),
    new RegExp(`(?:^|\\n)\\s*(?:async\\s+)?${fn}\\s*\\([^)]*\\)\\s*\\{`),
  ];
  return sources.some(({ text }) => patterns.some((p) => p.test(text)) || (inClass && inClass.test(text) && cxx('').test(text)));
}

for (const title of ['Follow a payment', 'Follow a webhook']) {
  const text = section(title);

  test(`${title}: every function it names exists`, () => {
    const names = [...new Set([...text.matchAll(/`(?:[\w.]+\.)?((?:\w+::)*\w+)\(\)`/g)].map((m) => m[1]))];
    assert.ok(names.length >= 10, `few functions named: ${names}`);
    const missing = names.filter((n) => !defined(n));
    assert.deepEqual(missing, [], `${title} names functions that do not exist`);
  });

  test(`${title}: every file it names exists`, () => {
    const files = [...new Set([...text.matchAll(/`((?:src|web|include|demo|tests)\/[\w./-]+\.\w+)`/g)].map((m) => m[1]))];
    const missing = files.filter((f) => !fs.existsSync(path.join(root, f)));
    assert.deepEqual(missing, [], `${title} names files that do not exist`);
  });
}

test('the includes of src/ and demo/sandbox/ keep to the layout table', () => {
  // | `folder` | what | `a`, `b` |  ->  folder -> [a, b]
  const allowed = new Map();
  for (const m of section('Layout').matchAll(/^\| `([\w/]+)\/` \|[^|\n]*\| ([^|\n]*)\|$/gm)) {
    allowed.set(m[1], [...m[2].matchAll(/`([\w/]+)`/g)].map((x) => x[1]));
  }
  const folders = ['src/core', 'src/wasm', 'src/options', 'src/client', 'src/server', 'src/cli', 'src/merchant', 'demo/sandbox'];
  const wrong = [];
  for (const folder of folders) {
    const may = allowed.get(folder);
    assert.ok(may, `the layout table has no row for ${folder}/`);
    for (const file of filesUnder(folder, ['.cpp', '.hpp'])) {
      const text = fs.readFileSync(path.join(root, file), 'utf8');
      for (const [, target] of text.matchAll(/^#include "([^"]+)"/gm)) {
        // "x/y.hpp" from the include roots (include/, src/, and src/merchant for its own parts:
        // "store/store.hpp"), or a file of the same folder (always allowed).
        const home = target.startsWith('paywasm/') ? 'include/paywasm'
          : folder === 'src/merchant' && fs.existsSync(path.join(root, 'src/merchant', target)) ? folder
          : target.includes('/') ? 'src/' + target.slice(0, target.indexOf('/')) : folder;
        if (home !== folder && !may.includes(home)) wrong.push(`${file} includes ${target} (${home}/)`);
      }
    }
  }
  assert.deepEqual(wrong, [], 'includes outside the layout table');
});

test("src/merchant's parts: every include names its part, and no part includes one on its level or above", () => {
  const parts = merchantParts();
  const level = new Map(parts.map(({ part, level: l }) => [part, l]));
  // The folders on disk are the parts of the table, and src/merchant holds no source file of its own.
  const entries = fs.readdirSync(path.join(root, 'src/merchant'), { withFileTypes: true });
  assert.deepEqual(entries.filter((e) => e.isDirectory()).map((e) => e.name).sort(), [...level.keys()].sort(),
    "src/merchant's folders are not the parts of \"The gateway's parts\"");
  assert.deepEqual(entries.filter((e) => e.isFile() && /\.(?:cpp|hpp)$/.test(e.name)).map((e) => e.name), [],
    'source files directly in src/merchant (each belongs to a part)');
  const wrong = [];
  let checked = 0;
  for (const file of filesUnder('src/merchant', ['.cpp', '.hpp'])) {
    const own = path.relative(path.join(root, 'src/merchant'), path.join(root, file)).split(path.sep)[0];
    const text = fs.readFileSync(path.join(root, file), 'utf8');
    for (const [, target] of text.matchAll(/^#include "([^"]+)"/gm)) {
      const part = target.includes('/') ? target.slice(0, target.indexOf('/')) : null;
      if (part === null) {
        // A bare name is another folder's file: a file of src/merchant must be named with its part.
        if (fs.existsSync(path.join(root, path.dirname(file), target))) wrong.push(`${file} includes ${target} without its part`);
        continue;
      }
      if (!level.has(part)) continue;  // src/server, src/client, ...: the layout table's business
      checked += 1;
      assert.ok(fs.existsSync(path.join(root, 'src/merchant', target)), `${file} includes ${target}, which does not exist`);
      if (part !== own && level.get(part) >= level.get(own)) {
        wrong.push(`${file} (${own}/, level ${level.get(own)}) includes ${target} (${part}/, level ${level.get(part)})`);
      }
    }
  }
  assert.ok(checked >= 100, `few includes between src/merchant's files checked: ${checked}`);
  assert.deepEqual(wrong, [], 'an include to a part on the same level or above');
  // src/merchant's top map (gateway/gateway.hpp) names every part, bottom to top.
  const top = fs.readFileSync(path.join(root, 'src/merchant/gateway/gateway.hpp'), 'utf8');
  const named = [...top.slice(0, top.indexOf('#pragma once')).matchAll(/^\/\/ {2,}(\w+)\/(?=\s)/gm)].map((m) => m[1]);
  assert.deepEqual([...named].sort(), [...level.keys()].sort(), "gateway.hpp's map of the parts is not the table's");
  for (let i = 1; i < named.length; i += 1) {
    assert.ok(level.get(named[i - 1]) <= level.get(named[i]), `gateway.hpp's map names ${named[i]}/ after ${named[i - 1]}/`);
  }
});

test("the console's pages read through orders.hpp: no file of console_pages.hpp's map names the store", () => {
  // The layout table says "no page calls the store"; console_pages.hpp lists the page files.
  assert.match(section('Layout'), /no page calls the store/);
  const map = fs.readFileSync(path.join(root, 'src/merchant/console/console_pages.hpp'), 'utf8');
  const pages = [...map.matchAll(/^\/\/ {3}(console_\w+\.cpp)\b/gm)].map((m) => `src/merchant/console/${m[1]}`);
  assert.ok(pages.length >= 8, `few page files in console_pages.hpp's map: ${pages}`);
  const onDisk = filesUnder('src/merchant', ['.cpp']).filter((f) => /console_\w+\.cpp$/.test(f) &&
    /#include "console\/console_pages\.hpp"/.test(fs.readFileSync(path.join(root, f), 'utf8')));
  assert.deepEqual(onDisk.filter((f) => !pages.includes(f)), [], 'page files missing from console_pages.hpp\'s map');
  const calls = [];
  for (const file of pages) {
    assert.ok(fs.existsSync(path.join(root, file)), `${file} (named in console_pages.hpp) does not exist`);
    const text = fs.readFileSync(path.join(root, file), 'utf8');
    for (const m of text.matchAll(/\b(?:store\s*(?:\.|->)|Store\s*&|\.sql\(\))/g)) calls.push(`${file}: ${m[0]}`);
  }
  assert.deepEqual(calls, [], 'page code that reads the store itself');
});

// The file maps in the headers' comments: the lines `//   name.ext   what it holds` before a
// header's `#pragma once` (two or more make a map). Every file a map names exists in its folder, and
// the folder's top map (the one map no other map of the folder names) accounts for every .cpp and
// .hpp of the folder: a file is accounted for when a map names it, or names its header (x.hpp stands
// for x.cpp), or names a header whose own map accounts for it. A file added without a place in a map
// fails here, and so does a map entry whose file went.
const mapEntry = /^\/\/ {2,}([\w.-]+\.(?:cpp|hpp|h|js|mjs|css|html|json))(?=\s|$)/gm;

function headerMap(file) {
  const text = fs.readFileSync(path.join(root, file), 'utf8');
  const pragma = text.indexOf('#pragma once');
  const names = pragma < 0 ? [] : [...text.slice(0, pragma).matchAll(mapEntry)].map((m) => m[1]);
  return names.length >= 2 ? names : null;
}

function folderMaps(folder) {
  const files = fs.readdirSync(path.join(root, folder), { withFileTypes: true })
    .filter((e) => e.isFile() && /\.(?:cpp|hpp)$/.test(e.name)).map((e) => e.name);
  const maps = new Map(files.filter((f) => f.endsWith('.hpp')).map((f) => [f, headerMap(path.join(folder, f))])
    .filter(([, names]) => names));
  return { files, maps };
}

// Which files the map of `top` accounts for (top and its .cpp included), through the maps it names.
function accountedFor(maps, top) {
  const seen = new Set([top, top.replace(/\.hpp$/, '.cpp')]);
  const read = new Set([top]);
  const queue = [top];
  while (queue.length) {
    for (const name of maps.get(queue.shift())) {
      seen.add(name);
      if (name.endsWith('.hpp')) seen.add(name.replace(/\.hpp$/, '.cpp'));
      if (maps.has(name) && !read.has(name)) {
        read.add(name);
        queue.push(name);
      }
    }
  }
  return seen;
}

const mapped = ['src', 'demo/sandbox', 'include']
  .flatMap((d) => [d, ...filesUnder(d, ['.cpp', '.hpp']).map((f) => path.dirname(f))])
  .filter((d, i, all) => all.indexOf(d) === i)
  .filter((d) => folderMaps(d).maps.size > 0);

test('the header maps: found where the docs say they are', () => {
  // Each part of src/merchant has its map in the header its row of "The gateway's parts" names.
  for (const { part, map } of merchantParts()) {
    assert.ok(mapped.includes(`src/merchant/${part}`), `no file map in src/merchant/${part}/`);
    assert.ok(headerMap(`src/merchant/${part}/${map}`), `src/merchant/${part}/${map} has no file map`);
  }
  assert.ok(mapped.includes('demo/sandbox'), 'no file map in demo/sandbox/');
  for (const header of ['src/merchant/console/console_pages.hpp', 'demo/sandbox/sandbox.hpp']) {
    assert.ok(headerMap(header), `${header} has no file map`);
  }
});

for (const folder of mapped) {
  test(`the header maps of ${folder}/: every file named exists, and the top map accounts for every file`, () => {
    const { files, maps } = folderMaps(folder);
    const missing = [];
    for (const [header, names] of maps) {
      for (const name of names) if (!fs.existsSync(path.join(root, folder, name))) missing.push(`${header} names ${name}`);
    }
    assert.deepEqual(missing, [], `${folder}/: map entries whose file does not exist`);
    const named = new Set([...maps.values()].flat());
    const tops = [...maps.keys()].filter((h) => !named.has(h));
    assert.equal(tops.length, 1, `${folder}/ has ${tops.length} top maps (${tops}): one map names the others`);
    const seen = accountedFor(maps, tops[0]);
    assert.deepEqual(files.filter((f) => !seen.has(f)), [], `${folder}/: files no map accounts for (from ${tops[0]})`);
  });
}

test("the store's word in the layout table holds: no side door, rows apart, one session factory", () => {
  const row = section('Layout');
  assert.match(row, /no caller gets the connection/);
  assert.match(row, /never the store/);
  assert.match(row, /the one way a session is made/);
  const merchant = filesUnder('src/merchant', ['.cpp', '.hpp'])
    .map((file) => ({ file, text: fs.readFileSync(path.join(root, file), 'utf8') }));
  const outside = merchant.filter(({ file }) => !file.startsWith('src/merchant/store/'));
  assert.ok(outside.length > 0 && outside.length < merchant.length, 'src/merchant/store/ holds the store');
  // Only the store's files reach the connection (Store owns it; store_core.hpp shares it among them).
  const doors = outside.flatMap(({ file, text }) =>
    [...text.matchAll(/\.sql\(\)|#include "store\/store_core\.hpp"|\bStoreCore\b/g)].map((m) => `${file}: ${m[0]}`));
  assert.deepEqual(doors, [], 'the connection reached outside the store');
  // The wire shapes read the store's rows, never the store (nor anything that includes it): what
  // rules/events.hpp includes, all the way down, is of rules/ alone.
  const includes = (file) => [...fs.readFileSync(path.join(root, 'src/merchant', file), 'utf8')
    .matchAll(/^#include "([\w./]+)"/gm)].map((m) => m[1]).filter((f) => fs.existsSync(path.join(root, 'src/merchant', f)));
  const seen = new Set();
  const queue = ['rules/events.hpp'];
  while (queue.length) {
    for (const f of includes(queue.shift())) if (!seen.has(f)) seen.add(f) && queue.push(f);
  }
  assert.ok(seen.has('rules/rows.hpp'), 'events.hpp reads the rows of rules/rows.hpp');
  assert.deepEqual([...seen].filter((f) => !f.startsWith('rules/')), [], 'events.hpp includes the store');
  // A session is made in one place: session_factory.cpp is the only caller of create_session.
  const makers = outside.filter(({ text }) => /\bcreate_session\(/.test(text)).map(({ file }) => file);
  assert.deepEqual(makers, ['src/merchant/gateway/session_factory.cpp'], 'sessions made outside open_session');
});
