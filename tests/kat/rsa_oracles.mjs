// RSA oracles shared by the known-answer suites: the paddings as OpenSSL and Node name them, and
// decryption of k-byte blocks by `openssl pkeyutl` and by Node's crypto (independent of our code).
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';

import { run } from './kat_lib.mjs';

export const PADDINGS = {
  'oaep-sha1': {
    hashLen: 20,
    openssl: ['-pkeyopt', 'rsa_padding_mode:oaep', '-pkeyopt', 'rsa_oaep_md:sha1', '-pkeyopt', 'rsa_mgf1_md:sha1'],
    node: { padding: crypto.constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha1' },
  },
  'oaep-sha256': {
    hashLen: 32,
    openssl: ['-pkeyopt', 'rsa_padding_mode:oaep', '-pkeyopt', 'rsa_oaep_md:sha256', '-pkeyopt', 'rsa_mgf1_md:sha256'],
    node: { padding: crypto.constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
  },
  pkcs1v15: {
    hashLen: null,
    openssl: ['-pkeyopt', 'rsa_padding_mode:pkcs1'],
    node: { padding: crypto.constants.RSA_PKCS1_PADDING },
  },
};

export const maxPiece = (k, padding) => {
  const h = PADDINGS[padding].hashLen;
  return h === null ? k - 11 : k - 2 * h - 2;
};

export function blocksOf(ciphertext, k) {
  const blocks = [];
  for (let off = 0; off < ciphertext.length; off += k) blocks.push(ciphertext.subarray(off, off + k));
  return blocks;
}

export function opensslDecrypt(openssl, privPath, block, padding) {
  return run(openssl, ['pkeyutl', '-decrypt', '-inkey', privPath, ...PADDINGS[padding].openssl], block);
}

// Node 20 refuses RSA_PKCS1_PADDING in privateDecrypt (Marvin attack) unless started with
// --security-revert=CVE-2023-46809; this test only decrypts its own ciphertexts, so a child Node
// with that flag does the PKCS#1 v1.5 blocks when the parent refuses.
export function nodeDecrypt(privPem, blocks, padding) {
  const options = PADDINGS[padding].node;
  try {
    return Buffer.concat(blocks.map((b) => crypto.privateDecrypt({ key: privPem, ...options }, b)));
  } catch (e) {
    if (padding !== 'pkcs1v15' || !/security-revert/.test(e.message)) throw e;
  }
  const child = `
    const crypto = require('node:crypto');
    const { key, blocks } = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
    const out = blocks.map((b) => crypto.privateDecrypt({ key, padding: crypto.constants.RSA_PKCS1_PADDING },
                                                       Buffer.from(b, 'base64')));
    process.stdout.write(Buffer.concat(out).toString('base64'));`;
  const input = JSON.stringify({ key: privPem, blocks: blocks.map((b) => b.toString('base64')) });
  const r = spawnSync(process.execPath, ['--security-revert=CVE-2023-46809', '-e', child], { input });
  if (r.status !== 0) throw new Error(`node PKCS#1 v1.5 decryption failed: ${r.stderr.toString().trim()}`);
  // The revert flag prints a SECURITY WARNING line on stdout first; the answer is the last line.
  return Buffer.from(r.stdout.toString().trim().split('\n').pop(), 'base64');
}
