// A real SMTP relay for the tests (Debian's aiosmtpd: tests/support/smtp_server.py): STARTTLS and
// AUTH required, every accepted message recorded; the gateway's options to send through it.
//   const relay = await startRelay();  relay.args (for paywasm-merchant), relay.mails(),
//   relay.refused(), relay.refuse(on), await relay.stop()
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { freePort, tempDir } from '../gateway/harness.mjs';

const here = path.dirname(new URL(import.meta.url).pathname);

// The relay: a self-signed certificate for 127.0.0.1 (the gateway is given it as its CA), one user.
export async function startRelay() {
  const dir = tempDir('pwm-smtp-');
  const cert = path.join(dir, 'cert.pem'), keyFile = path.join(dir, 'key.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', keyFile, '-out', cert], { stdio: 'ignore' });
  const out = path.join(dir, 'mail.jsonl'), refuse = path.join(dir, 'refuse');
  const port = await freePort();
  const proc = spawn('/usr/bin/python3', [path.join(here, 'smtp_server.py'), String(port), cert, keyFile, 'relay-user',
    'relay-password', out, refuse], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((resolve, reject) => {
    proc.stdout.on('data', (d) => { if (String(d).includes('ready')) resolve(); });
    proc.on('exit', (code) => reject(new Error(`the SMTP server exited (${code})`)));
  });
  const credentials = path.join(dir, 'smtp-credentials');
  fs.writeFileSync(credentials, 'relay-user\nrelay-password\n', { mode: 0o600 });
  const read = (file) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);
  return {
    args: ['--smtp-url', `smtp://127.0.0.1:${port}`, '--smtp-credentials-file', credentials, '--smtp-ca-file', cert,
      '--mail-from', 'paywasm@shop.example'],
    mails: () => read(out).map((l) => JSON.parse(l)),
    refused: () => read(out + '.refused').length,
    refuse: (on) => (on ? fs.writeFileSync(refuse, '') : fs.rmSync(refuse, { force: true })),
    stop: () => new Promise((resolve) => { proc.once('exit', resolve); proc.kill('SIGTERM'); }),
  };
}

