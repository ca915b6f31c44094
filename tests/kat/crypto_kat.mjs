// Known-answer test of the CLI's RSA encryption against two independent implementations.
//   node crypto_kat.mjs PAYWASM_BIN
// For 2048/3072/4096-bit keys made by OpenSSL now, each padding (oaep-sha1, oaep-sha256,
// pkcs1v15) and payloads of 1 byte, exactly one piece, one byte over and 700 bytes: `paywasm
// encrypt`, split the base64-decoded output into k-byte blocks, decrypt every block with `openssl
// pkeyutl` and with Node's crypto.privateDecrypt, and compare the concatenation byte for byte.
// Also: OAEP-SHA-256 uses MGF1-SHA-256 (MGF1-SHA-1 must fail), OpenSSL- and Node-encrypted blocks
// decrypt with `paywasm decrypt`, merchant-auth is exactly {"merchantId":"<id>"}, and
// `paywasm fingerprint` equals the SHA-256 of OpenSSL's DER.
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

import { tempDir } from '../support/node.mjs';
import { Checks, run, tool } from './kat_lib.mjs';
import { PADDINGS, blocksOf, maxPiece, nodeDecrypt, opensslDecrypt } from './rsa_oracles.mjs';

const cli = process.argv[2];
if (!cli || !fs.existsSync(cli)) {
  console.error(`usage: node crypto_kat.mjs PAYWASM_BIN (got ${cli ?? 'nothing'})`);
  process.exit(2);
}
const openssl = tool('openssl', 'OPENSSL', 'openssl');

const checks = new Checks('kat.crypto');
const dir = tempDir('paywasm-kat-');
const started = Date.now();
try {
  for (const bits of [2048, 3072, 4096]) {
    const priv = path.join(dir, `priv${bits}.pem`);
    const pub = path.join(dir, `pub${bits}.pem`);
    run(openssl, ['genpkey', '-algorithm', 'RSA', '-pkeyopt', `rsa_keygen_bits:${bits}`, '-out', priv]);
    run(openssl, ['pkey', '-in', priv, '-pubout', '-out', pub]);
    const privPem = fs.readFileSync(priv, 'utf8');
    const k = bits / 8;

    for (const padding of Object.keys(PADDINGS)) {
      const piece = maxPiece(k, padding);
      for (const size of [1, piece, piece + 1, 700]) {
        const name = `${bits}-bit ${padding.padEnd(11)} ${String(size).padStart(3)} bytes`;
        checks.guard(name, () => {
          const plain = crypto.randomBytes(size);
          const b64 = run(cli, ['encrypt', '--public-key', pub, '--padding', padding, '-'], plain).toString();
          if (!/^[A-Za-z0-9+/]+={0,2}\n$/.test(b64)) throw new Error('output is not one line of padded base64');
          const ciphertext = Buffer.from(b64, 'base64');
          const expectedBlocks = Math.ceil(size / piece);
          const blocks = blocksOf(ciphertext, k);
          const viaOpenssl = Buffer.concat(blocks.map((b) => opensslDecrypt(openssl, priv, b, padding)));
          const viaNode = nodeDecrypt(privPem, blocks, padding);
          const viaCli = run(cli, ['decrypt', '--private-key', priv, '--padding', padding], b64);
          checks.check(`${name} -> ${expectedBlocks} block(s) of ${k} bytes, openssl + node + paywasm decrypt match`,
            ciphertext.length === expectedBlocks * k && viaOpenssl.equals(plain) && viaNode.equals(plain) &&
              viaCli.equals(plain),
            `ciphertext ${ciphertext.length} bytes; openssl ${viaOpenssl.equals(plain)}, node ${viaNode.equals(plain)}, ` +
              `paywasm ${viaCli.equals(plain)}`);
        });
      }

      // Blocks made by the other implementations decrypt with `paywasm decrypt`.
      checks.guard(`${bits}-bit ${padding} openssl/node-encrypted blocks`, () => {
        const plain = crypto.randomBytes(piece);
        const fromOpenssl = run(openssl, ['pkeyutl', '-encrypt', '-pubin', '-inkey', pub, ...PADDINGS[padding].openssl], plain);
        const fromNode = crypto.publicEncrypt({ key: fs.readFileSync(pub), ...PADDINGS[padding].node }, plain);
        const both = Buffer.concat([fromOpenssl, fromNode]).toString('base64');
        const out = run(cli, ['decrypt', '--private-key', priv, '--padding', padding, '-'], both);
        checks.check(`${bits}-bit ${padding} paywasm decrypt reads an openssl block followed by a node block`,
          out.equals(Buffer.concat([plain, plain])));
      });
    }

    // OAEP-SHA-256 must use MGF1-SHA-256: OpenSSL with MGF1-SHA-1 has to refuse the block.
    checks.guard(`${bits}-bit oaep-sha256 MGF1`, () => {
      const b64 = run(cli, ['encrypt', '--public-key', pub, '--padding', 'oaep-sha256'], Buffer.from('mgf1')).toString();
      const r = spawnSync(openssl, ['pkeyutl', '-decrypt', '-inkey', priv, '-pkeyopt', 'rsa_padding_mode:oaep',
        '-pkeyopt', 'rsa_oaep_md:sha256', '-pkeyopt', 'rsa_mgf1_md:sha1'], { input: Buffer.from(b64, 'base64') });
      checks.check(`${bits}-bit oaep-sha256 is not decryptable with MGF1-SHA-1 (so MGF1 is SHA-256)`, r.status !== 0);
    });

    // PKCS#1 v1.5 blocks that break RFC 8017 7.2.2, encrypted raw (openssl rsa_padding_mode:none):
    // OpenSSL and paywasm must both refuse each; the well-formed control block must decode in both.
    // (OpenSSL 3.0 reports the error; 3.2+ would answer with implicit rejection, so it is asked not
    // to where it knows the option.)
    checks.guard(`${bits}-bit pkcs1v15 malformed blocks`, () => {
      const k = bits / 8;
      const block = (psLen, message, separator = true) => {
        const em = Buffer.concat([Buffer.from([0, 2]), Buffer.alloc(psLen, 0x5a), separator ? Buffer.from([0]) : Buffer.alloc(0),
          Buffer.from(message)]);
        if (em.length !== k) throw new Error(`EM is ${em.length} bytes, not ${k}`);
        return run(openssl, ['pkeyutl', '-encrypt', '-pubin', '-inkey', pub, '-pkeyopt', 'rsa_padding_mode:none'], em);
      };
      const noImplicit = spawnSync(openssl, ['pkeyutl', '-decrypt', '-inkey', priv, '-pkeyopt', 'rsa_padding_mode:pkcs1',
        '-pkeyopt', 'rsa_pkcs1_implicit_rejection:0'], { input: block(k - 3 - 2, 'ok') }).status === 0
        ? ['-pkeyopt', 'rsa_pkcs1_implicit_rejection:0'] : [];
      const decryptBoth = (c) => ({
        openssl: spawnSync(openssl, ['pkeyutl', '-decrypt', '-inkey', priv, '-pkeyopt', 'rsa_padding_mode:pkcs1', ...noImplicit],
          { input: c }),
        paywasm: spawnSync(cli, ['decrypt', '--private-key', priv, '--padding', 'pkcs1v15', '-'], { input: c.toString('base64') }),
      });
      const good = decryptBoth(block(k - 3 - 5, 'hello'));
      checks.check(`${bits}-bit pkcs1v15 a well-formed raw block decodes in openssl and paywasm`,
        good.openssl.status === 0 && good.paywasm.status === 0 && String(good.openssl.stdout) === 'hello' &&
        String(good.paywasm.stdout) === 'hello', `openssl ${good.openssl.status}, paywasm ${good.paywasm.status} ${good.paywasm.stderr}`);
      for (const [what, c] of [
        ['no zero separator', block(k - 2, '', false)],
        ['a 7-byte padding string', block(7, 'm'.repeat(k - 10))],
      ]) {
        const r = decryptBoth(c);
        checks.check(`${bits}-bit pkcs1v15 ${what}: openssl and paywasm both refuse it`,
          r.openssl.status !== 0 && r.paywasm.status !== 0 && /decryption failed/.test(String(r.paywasm.stderr)),
          `openssl ${r.openssl.status}, paywasm ${r.paywasm.status}: ${String(r.paywasm.stdout).length} bytes out`);
      }
    });

    // Fingerprint: SHA-256 of OpenSSL's DER SubjectPublicKeyInfo, also for the PKCS#1 form of the key.
    checks.guard(`${bits}-bit fingerprint`, () => {
      const der = run(openssl, ['pkey', '-pubin', '-in', pub, '-outform', 'DER']);
      const expected = crypto.createHash('sha256').update(der).digest('hex');
      const pkcs1 = path.join(dir, `pub${bits}-pkcs1.pem`);
      run(openssl, ['rsa', '-pubin', '-in', pub, '-RSAPublicKey_out', '-out', pkcs1]);
      const got = run(cli, ['fingerprint', '--public-key', pub]).toString();
      const gotPkcs1 = run(cli, ['fingerprint', '--public-key', pkcs1]).toString();
      checks.check(`${bits}-bit paywasm fingerprint = sha256(openssl pkey -pubin -outform DER) = ${expected.slice(0, 16)}...`,
        got === `${expected}\n` && gotPkcs1 === got, `got ${got.trim()} / ${gotPkcs1.trim()}`);
    });

    if (bits === 2048) {
      for (const id of ['M-1042', 'merchant "quoted" \\ id']) {
        for (const padding of ['oaep-sha1', 'oaep-sha256']) {
          checks.guard(`merchant-auth ${padding} ${id}`, () => {
            const b64 = run(cli, ['merchant-auth', '--public-key', pub, '--merchant-id', id, '--padding', padding]).toString();
            const plain = opensslDecrypt(openssl, priv, Buffer.from(b64, 'base64'), padding).toString();
            const expected = JSON.stringify({ merchantId: id });
            checks.check(`merchant-auth (${padding}) decrypts to exactly ${expected}`, plain === expected, `got ${plain}`);
          });
        }
      }
      checks.guard('keygen', () => {
        const kpriv = path.join(dir, 'gen-priv.pem');
        const kpub = path.join(dir, 'gen-pub.pem');
        run(cli, ['keygen', '--private', kpriv, '--public', kpub]);
        const mode = fs.statSync(kpriv).mode & 0o777;
        const text = run(openssl, ['pkey', '-in', kpriv, '-text', '-noout']).toString();
        const check = run(openssl, ['pkey', '-in', kpriv, '-check', '-noout']).toString();
        const samePub = run(openssl, ['pkey', '-in', kpriv, '-pubout']).toString() === fs.readFileSync(kpub, 'utf8');
        const again = spawnSync(cli, ['keygen', '--private', kpriv, '--public', path.join(dir, 'other.pem')]);
        checks.check('paywasm keygen writes a 0600 PKCS#8 key that openssl accepts (2048 bits, e = 65537)',
          mode === 0o600 && /Private-Key: \(2048 bit/.test(text) && /publicExponent: 65537/.test(text) &&
            /valid/i.test(check) && samePub && fs.readFileSync(kpriv, 'utf8').startsWith('-----BEGIN PRIVATE KEY-----'),
          `mode ${mode.toString(8)}, samePub ${samePub}`);
        checks.check('paywasm keygen refuses to overwrite (exit 1, io)', again.status === 1 && again.stderr.includes('error[io]'));
      });
    }
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
console.log(`(${((Date.now() - started) / 1000).toFixed(1)} s)`);
checks.finish();
