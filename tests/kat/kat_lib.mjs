// Shared helpers of the known-answer suites: find tools, run programs, count checks loudly.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

// The path of a required program: $ENV_VAR if set, else the first match on PATH. Exits with a
// message naming the Debian package when it is missing (never skips).
export function tool(name, envVar, debianPackage) {
  const fromEnv = process.env[envVar];
  if (fromEnv) return fromEnv;
  for (const dir of (process.env.PATH || '').split(path.delimiter)) {
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch { /* keep looking */ }
  }
  console.error(`FAIL: ${name} is not installed (apt-get install ${debianPackage}); this suite cannot run without it`);
  process.exit(1);
}

// Runs a program; returns stdout as a Buffer. Throws with the program's stderr on a non-zero exit.
export function run(file, args, input) {
  const r = spawnSync(file, args, { input: input ?? Buffer.alloc(0), maxBuffer: 64 << 20 });
  if (r.error) throw r.error;
  if (r.status !== 0) {
    const err = new Error(`${path.basename(file)} ${args.join(' ')} exited ${r.status}: ${r.stderr.toString().trim()}`);
    err.status = r.status;
    throw err;
  }
  return r.stdout;
}

// Prints one line per check and a closing "N passed, M failed" line; exit code 1 on any failure.
export class Checks {
  constructor(suite) {
    this.suite = suite;
    this.passed = 0;
    this.failed = 0;
  }

  // Records `ok` (truthy) for `name`; `detail` is printed on failure.
  check(name, ok, detail = '') {
    if (ok) {
      this.passed++;
      console.log(`ok    ${name}`);
    } else {
      this.failed++;
      console.log(`FAIL  ${name}${detail ? `\n      ${detail}` : ''}`);
    }
  }

  // Runs fn(); an exception is a failed check named `name`.
  guard(name, fn) {
    try {
      fn();
    } catch (e) {
      this.check(name, false, e.message);
    }
  }

  finish() {
    console.log(`${this.suite}: ${this.passed} passed, ${this.failed} failed`);
    if (this.failed > 0 || this.passed === 0) process.exit(1);
  }
}
