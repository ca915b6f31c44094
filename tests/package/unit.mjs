// Starts an installed systemd service the way its unit says, for package.deb (tests/package/deb.mjs).
//   const unit = await startUnit('/usr/lib/systemd/system/paywasm-merchant.service');
//   unit.how ('systemd' or 'unit file'), unit.pid(), unit.running(), unit.output(), await unit.stop() -> exit code
// Under systemd (PID 1, /run/systemd/system exists): `systemctl start` and `systemctl stop`.
// Elsewhere (a container whose PID 1 is not systemd, as on the project's test machines) the
// [Service] section is read and honoured by hand: ExecStart as User/Group (setpriv, the user's
// groups), NoNewPrivileges, an empty CapabilityBoundingSet, UMask, WorkingDirectory (default /),
// Environment/EnvironmentFile, StateDirectory/RuntimeDirectory created with their modes and owner
// and passed as STATE_DIRECTORY/RUNTIME_DIRECTORY, and systemd's own variables (HOME, USER,
// LOGNAME, SHELL, PATH). The other sandboxing directives (ProtectSystem, SystemCallFilter, ...) are
// not applied there; deploy.install checks them with `systemd-analyze verify`.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export const systemdRuns = () => fs.existsSync('/run/systemd/system');

// The unit's [Service] section: each key with its values in order (keys may repeat).
export function readService(file) {
  const service = new Map();
  let section = '';
  // Continuation lines (a trailing backslash) joined first.
  for (const raw of fs.readFileSync(file, 'utf8').replace(/\\\n/g, ' ').split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) { section = header[1]; continue; }
    if (section !== 'Service') continue;
    const eq = line.indexOf('=');
    const key = line.slice(0, eq).trim();
    const value = line.slice(eq + 1).trim();
    if (!service.has(key)) service.set(key, []);
    service.get(key).push(value);
  }
  return service;
}

// Words of a unit's command line or Environment= value: spaces split, double quotes group.
function words(text) {
  const out = [];
  const re = /"((?:[^"\\]|\\.)*)"|(\S+)/g;
  let m;
  while ((m = re.exec(text))) out.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2]);
  return out;
}

function passwd(user) {
  const line = fs.readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.split(':')[0] === user);
  if (!line) throw new Error(`the unit's User=${user} does not exist`);
  const [, , uid, gid, , home, shell] = line.split(':');
  return { uid: Number(uid), gid: Number(gid), home, shell };
}

// StateDirectory=paywasm -> /var/lib/paywasm (RuntimeDirectory -> /run/...), made as systemd makes it.
function makeDirectories(service, kind, base, owner, env) {
  const names = (service.get(`${kind}Directory`) ?? []).flatMap(words);
  if (!names.length) return;
  const mode = parseInt(service.get(`${kind}DirectoryMode`)?.at(-1) ?? '0755', 8);
  const paths = names.map((n) => path.join(base, n));
  for (const p of paths) {
    fs.mkdirSync(p, { recursive: true });
    fs.chownSync(p, owner.uid, owner.gid);
    fs.chmodSync(p, mode);
  }
  env[`${kind.toUpperCase()}_DIRECTORY`] = paths.join(':');
}

async function startBySystemd(file) {
  const name = path.basename(file);
  const run = (...args) => {
    const r = spawnSync('systemctl', args, { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`systemctl ${args.join(' ')}: ${r.stderr}`);
    return r.stdout.trim();
  };
  run('daemon-reload');
  run('start', name);
  const pid = () => Number(run('show', '-p', 'MainPID', '--value', name));
  return {
    how: 'systemd',
    pid,
    running: () => spawnSync('systemctl', ['is-active', '--quiet', name]).status === 0,
    output: () => spawnSync('journalctl', ['-u', name, '--no-pager', '-n', '200'], { encoding: 'utf8' }).stdout,
    async stop() {
      run('stop', name);
      return Number(run('show', '-p', 'ExecMainStatus', '--value', name));
    },
  };
}

function startByUnitFile(file) {
  const service = readService(file);
  const last = (key, fallback) => service.get(key)?.at(-1) ?? fallback;
  const exec = last('ExecStart');
  if (!exec) throw new Error(`${file} has no ExecStart`);
  const argv = words(exec.replace(/^[-@+!:]+/, ''));
  const user = last('User', 'root');
  const group = last('Group', user);
  const owner = passwd(user);
  const env = { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', HOME: owner.home, USER: user, LOGNAME: user,
    SHELL: owner.shell, LANG: 'C.UTF-8' };
  for (const f of service.get('EnvironmentFile') ?? []) {
    const optional = f.startsWith('-');
    const p = optional ? f.slice(1) : f;
    if (!fs.existsSync(p)) { if (optional) continue; throw new Error(`EnvironmentFile ${p} is missing`); }
    for (const l of fs.readFileSync(p, 'utf8').split('\n')) {
      const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(l);
      if (m) env[m[1]] = m[2].replace(/^"(.*)"$/, '$1');
    }
  }
  for (const e of service.get('Environment') ?? []) {
    for (const w of words(e)) { const eq = w.indexOf('='); env[w.slice(0, eq)] = w.slice(eq + 1); }
  }
  makeDirectories(service, 'State', '/var/lib', owner, env);
  makeDirectories(service, 'Runtime', '/run', owner, env);
  const setpriv = ['--reuid', user, '--regid', group, '--init-groups'];
  if (last('NoNewPrivileges') === 'yes') setpriv.push('--no-new-privs');
  if (service.has('CapabilityBoundingSet') && last('CapabilityBoundingSet') === '') setpriv.push('--bounding-set', '-all');
  const umask = last('UMask', '0022');
  const proc = spawn('setpriv', [...setpriv, '--', '/bin/sh', '-c', 'umask "$0" && exec "$@"', umask, ...argv], {
    cwd: last('WorkingDirectory', '/'), env, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  proc.stdout.on('data', (d) => { output += d; });
  proc.stderr.on('data', (d) => { output += d; });
  const exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve(code ?? signal)));
  const killSignal = last('KillSignal', 'SIGTERM');
  return {
    how: 'unit file',
    pid: () => proc.pid,
    running: () => proc.exitCode === null && proc.signalCode === null,
    output: () => output,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(killSignal);
      return exited;
    },
  };
}

export async function startUnit(file) {
  return systemdRuns() ? startBySystemd(file) : startByUnitFile(file);
}
