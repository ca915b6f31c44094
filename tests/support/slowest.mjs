// The table `make test` ends with: the slowest suites of the ctest runs, from the JUnit files ctest
// wrote (--output-junit), with each suite's result, so every suite states its own time.
//   node tests/support/slowest.mjs [--top N] <junit.xml> ...
// A missing file is named and skipped (a run that stopped early wrote none).
import fs from 'node:fs';
import path from 'node:path';

const argv = process.argv.slice(2);
let top = 15;
const files = [];
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--top') top = Number(argv[++i]);
  else files.push(argv[i]);
}

const rows = [];
for (const file of files) {
  if (!fs.existsSync(file)) {
    console.log(`slowest: no ${file} (that run wrote none)`);
    continue;
  }
  const tree = path.basename(path.dirname(file));
  const xml = fs.readFileSync(file, 'utf8');
  for (const m of xml.matchAll(/<testcase\b([^>]*?)(\/>|>([\s\S]*?)<\/testcase>)/g)) {
    const attr = (name) => new RegExp(`\\b${name}="([^"]*)"`).exec(m[1])?.[1];
    const inner = m[3] ?? '';
    const result = /<failure\b/.test(inner) ? 'FAILED' : /<skipped\b/.test(inner) || attr('status') === 'notrun' ? 'not run' : 'passed';
    rows.push({ tree, name: attr('name'), seconds: Number(attr('time') ?? 0), result });
  }
}
if (!rows.length) process.exit(0);
rows.sort((a, b) => b.seconds - a.seconds);
const total = rows.reduce((s, r) => s + r.seconds, 0);
const width = Math.max(...rows.slice(0, top).map((r) => r.name.length), 5);
console.log(`\nThe ${Math.min(top, rows.length)} slowest of ${rows.length} suites (${(total / 60).toFixed(1)} min in all):`);
console.log(`  ${'suite'.padEnd(width)}  ${'tree'.padEnd(6)}  ${'seconds'.padStart(8)}  result`);
for (const r of rows.slice(0, top)) {
  console.log(`  ${r.name.padEnd(width)}  ${r.tree.padEnd(6)}  ${r.seconds.toFixed(1).padStart(8)}  ${r.result}`);
}
