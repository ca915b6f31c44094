// The suites' rule on waiting (ctest unit.waits): a test waits for a state with waitFor() from
// tests/support/node.mjs (a poll until the condition, with a deadline that only a broken run
// reaches), never with a fixed sleep. This check fails on any fixed sleep longer than 250 ms in
// tests/** outside tests/support:
//   sleep(N), page.waitForTimeout(N), new Promise((r) => setTimeout(r, N)) with N a literal (or a
//   sum that starts with one) over 250, and a shell `sleep N` over 0.25 s.
// A sleep of at most 250 ms is allowed (a poll's interval, a short pause in a negative check that a
// later positive event bounds); pacing a load by a computed time (sleep(due - now())) is not a wait
// for a state and is not matched. Usage: node tests/support/check-waits.mjs [root]; exits 1 and
// names file:line for each finding.
import fs from 'node:fs';
import path from 'node:path';

const LIMIT_MS = 250;
const root = path.resolve(process.argv[2] ?? path.join(path.dirname(new URL(import.meta.url).pathname), '..', '..'));
const testsDir = path.join(root, 'tests');
const skip = new Set([path.join(testsDir, 'support'), path.join(testsDir, 'fuzz', 'corpus')]);

function* files(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (skip.has(full) || entry.name === 'node_modules') continue;
    if (entry.isDirectory()) yield* files(full);
    else if (/\.(m?js|sh|py)$/.test(entry.name)) yield full;
  }
}

// A literal number of milliseconds at the start of an argument: "300", "1_500", "300 + Math.random() * 300".
const leadingMs = (arg) => {
  const m = /^\s*(\d[\d_]*(?:\.\d+)?)/.exec(arg);
  return m ? Number(m[1].replaceAll('_', '')) : null;
};
const JS_PATTERNS = [
  /\bsleep\(([^)]*)\)/g,
  /\bwaitForTimeout\(([^)]*)\)/g,
  /new Promise\(\s*\(?\s*(\w+)\s*\)?\s*=>\s*setTimeout\(\s*\1\s*,([^)]*)\)/g,
];

export function findings(file, text) {
  const found = [];
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    const code = line.replace(/\/\/.*$/, '');
    if (/\.(sh|py)$/.test(file)) {
      const m = /(?:^|[;&|\s])(?:time\.)?sleep[\s(]+(\d+(?:\.\d+)?)/.exec(code.replace(/#.*$/, ''));
      if (m && Number(m[1]) * 1000 > LIMIT_MS) found.push({ line: i + 1, text: line.trim() });
      return;
    }
    for (const pattern of JS_PATTERNS) {
      for (const m of code.matchAll(pattern)) {
        const ms = leadingMs(m[m.length - 1]);
        if (ms !== null && ms > LIMIT_MS) found.push({ line: i + 1, text: line.trim() });
      }
    }
  });
  return found;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  let count = 0;
  for (const file of files(testsDir)) {
    for (const f of findings(file, fs.readFileSync(file, 'utf8'))) {
      count++;
      console.log(`${path.relative(root, file)}:${f.line}: a fixed sleep over ${LIMIT_MS} ms: ${f.text}`);
    }
  }
  if (count) {
    console.log(`\n${count} fixed sleep(s) over ${LIMIT_MS} ms: wait for the state itself with waitFor() (tests/support/node.mjs).`);
    process.exit(1);
  }
  console.log(`no fixed sleep over ${LIMIT_MS} ms in tests/ (outside tests/support)`);
}
