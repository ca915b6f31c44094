// Known-answer test of the RSA encryption the widget ships: paywasm.wasm (SIMD128) and
// paywasm-nosimd.wasm from `make dist`, loaded by Node with the same three imports the browser
// loader (web/src/core.js) gives them, against oracles that share no code with ours.
//   node wasm_crypto_kat.mjs DIST_DIR
// Our EME-OAEP and EME-PKCS1-v1_5 encoders (src/core/crypto.cpp) and modular exponentiation
// (src/core/bigint_modexp.cpp) are hand-written; this suite is what proves them on the build that
// ships. For keys of 2048, 2049, 2050, 3071, 3072 and 4096 bits (odd lengths: a partial top byte)
// made by OpenSSL now, each padding (oaep-sha1, oaep-sha256, pkcs1v15), and payloads of 1 byte,
// exactly one piece, one byte over and 700 bytes, in each module:
//   exact     with the platform randomness replaced by a known byte stream, the ciphertext equals,
//             byte for byte, RFC 8017 encoding written here in JS over Node's hashes and a BigInt
//             m^e mod n. Contract this relies on: encrypt() reads its random bytes from getentropy
//             as one stream, in block order (OAEP: hLen seed bytes per block; PKCS#1 v1.5: the
//             padding string's bytes, a zero byte drawn again).
//   decrypt   with the browser's randomness (crypto.getRandomValues), every block decrypts with
//             `openssl pkeyutl` and with Node's crypto.privateDecrypt to the payload.
// Also: the two modules agree; two encryptions of one payload differ; raw decryption (no padding)
// of many blocks shows RFC 8017's structure, distinct OAEP seeds and bits near half ones, and a
// PKCS#1 v1.5 padding string of non-zero bytes spread over 1..255; keyInfo's fingerprint is the
// SHA-256 of OpenSSL's DER; a small key, another key's fingerprint and a failing random source are
// refused with their error codes.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

import { tempDir } from '../support/node.mjs';
import { Checks, run, tool } from './kat_lib.mjs';
import { loadWasmModule } from '../support/wasm_module.mjs';
import { PADDINGS, blocksOf, maxPiece, nodeDecrypt, opensslDecrypt } from './rsa_oracles.mjs';

const dist = process.argv[2];
const MODULES = ['paywasm.wasm', 'paywasm-nosimd.wasm'];
if (!dist || MODULES.some((m) => !fs.existsSync(path.join(dist, m)))) {
  console.error(`usage: node wasm_crypto_kat.mjs DIST_DIR (with ${MODULES.join(' and ')}; got ${dist ?? 'nothing'})`);
  process.exit(2);
}
const openssl = tool('openssl', 'OPENSSL', 'openssl');

// ---- The shipped module, as web/src/core.js runs it ----------------------------------------------

// ---- Oracles written here: RFC 8017 in JS --------------------------------------------------------

const HASH = { 'oaep-sha1': 'sha1', 'oaep-sha256': 'sha256' };
const digest = (alg, ...parts) => crypto.createHash(alg).update(Buffer.concat(parts)).digest();

function mgf1(alg, seed, length) {
  const out = [];
  for (let counter = 0, have = 0; have < length; counter++) {
    const c = Buffer.alloc(4);
    c.writeUInt32BE(counter);
    const block = digest(alg, seed, c);
    out.push(block);
    have += block.length;
  }
  return Buffer.concat(out).subarray(0, length);
}

const xor = (a, b) => Buffer.from(a.map((x, i) => x ^ b[i]));
const toBig = (buf) => (buf.length ? BigInt(`0x${buf.toString('hex')}`) : 0n);
function toBytes(value, length) {
  const hex = value.toString(16).padStart(length * 2, '0');
  if (hex.length > length * 2) throw new Error('integer too large');
  return Buffer.from(hex, 'hex');
}
function modPow(base, exp, mod) {
  let result = 1n;
  for (let b = base % mod, e = exp; e > 0n; e >>= 1n, b = (b * b) % mod) if (e & 1n) result = (result * b) % mod;
  return result;
}

// A deterministic byte stream (SHA-256 of a label and a counter), read in order by `take`.
function byteStream(label) {
  let buffered = Buffer.alloc(0);
  let counter = 0;
  return (n) => {
    while (buffered.length < n) buffered = Buffer.concat([buffered, digest('sha256', Buffer.from(`${label}/${counter++}`))]);
    const out = buffered.subarray(0, n);
    buffered = buffered.subarray(n);
    return Buffer.from(out);
  };
}

// RFC 8017 7.1.1 / 7.2.1 encryption of one k-byte block, randomness from `take`.
function encryptBlock(key, padding, message, take) {
  let em;
  if (padding === 'pkcs1v15') {
    const ps = [];
    while (ps.length < key.k - message.length - 3) {
      const [byte] = take(1);
      if (byte !== 0) ps.push(byte);
    }
    em = Buffer.concat([Buffer.from([0, 2]), Buffer.from(ps), Buffer.from([0]), message]);
  } else {
    const alg = HASH[padding];
    const lHash = digest(alg);
    const hLen = lHash.length;
    const db = Buffer.concat([lHash, Buffer.alloc(key.k - message.length - 2 * hLen - 2), Buffer.from([1]), message]);
    const seed = take(hLen);
    const maskedDb = xor(db, mgf1(alg, seed, db.length));
    const maskedSeed = xor(seed, mgf1(alg, maskedDb, hLen));
    em = Buffer.concat([Buffer.from([0]), maskedSeed, maskedDb]);
  }
  if (em.length !== key.k) throw new Error(`EM is ${em.length} bytes, not ${key.k}`);
  return toBytes(modPow(toBig(em), key.e, key.n), key.k);
}

function expectedCiphertext(key, padding, plaintext, take) {
  const piece = maxPiece(key.k, padding);
  const blocks = [];
  for (let off = 0; off < plaintext.length; off += piece) blocks.push(encryptBlock(key, padding, plaintext.subarray(off, off + piece), take));
  return Buffer.concat(blocks);
}

// RFC 8017 7.1.2 / 7.2.2 decoding of a raw EM (k bytes); returns the parts, throws on any flaw.
function decodeOaep(alg, em) {
  const hLen = digest(alg).length;
  if (em[0] !== 0) throw new Error('Y is not 0');
  const maskedSeed = em.subarray(1, 1 + hLen);
  const maskedDb = em.subarray(1 + hLen);
  const seed = xor(maskedSeed, mgf1(alg, maskedDb, hLen));
  const db = xor(maskedDb, mgf1(alg, seed, maskedDb.length));
  if (!db.subarray(0, hLen).equals(digest(alg))) throw new Error("lHash is not the empty label's hash");
  let i = hLen;
  while (i < db.length && db[i] === 0) i++;
  if (db[i] !== 1) throw new Error('no 0x01 after the zero padding');
  return { seed, message: db.subarray(i + 1) };
}
function decodePkcs1(em) {
  if (em[0] !== 0 || em[1] !== 2) throw new Error('EM does not start 00 02');
  const end = em.indexOf(0, 2);
  if (end < 10) throw new Error(`padding string of ${end - 2} bytes (8 at least)`);
  return { ps: em.subarray(2, end), message: em.subarray(end + 1) };
}
// A PKCS#8 PEM private key whose modulus has exactly `bits` bits. OpenSSL's genpkey does that for
// multiples of 8; for other lengths (asked 2049, OpenSSL 3.0 makes 2048) the key is put together
// here from two primes of Node's crypto.generatePrimeSync, e = 65537, and checked by OpenSSL.
function rsaKeyOfExactly(bits) {
  if (bits % 8 === 0) return run(openssl, ['genpkey', '-algorithm', 'RSA', '-pkeyopt', `rsa_keygen_bits:${bits}`]);
  const e = 65537n;
  const prime = (size) => {
    for (;;) {
      const p = crypto.generatePrimeSync(size, { bigint: true });
      if (p % e !== 1n) return p;
    }
  };
  const inverse = (a, m) => {
    let [r0, r1, s0, s1] = [a % m, m, 1n, 0n];
    while (r1 !== 0n) {
      const q = r0 / r1;
      [r0, r1, s0, s1] = [r1, r0 - q * r1, s1, s0 - q * s1];
    }
    if (r0 !== 1n) throw new Error('not invertible');
    return ((s0 % m) + m) % m;
  };
  for (;;) {
    const p = prime(Math.ceil(bits / 2));
    const q = prime(Math.floor(bits / 2));
    const n = p * q;
    if (p === q || n.toString(2).length !== bits) continue;
    const d = inverse(e, (p - 1n) * (q - 1n));
    const b64 = (v) => {
      const hex = v.toString(16);
      return Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex').toString('base64url');
    };
    const jwk = { kty: 'RSA', n: b64(n), e: b64(e), d: b64(d), p: b64(p), q: b64(q), dp: b64(d % (p - 1n)),
      dq: b64(d % (q - 1n)), qi: b64(inverse(q, p)) };
    const pem = crypto.createPrivateKey({ key: jwk, format: 'jwk' }).export({ type: 'pkcs8', format: 'pem' });
    run(openssl, ['pkey', '-check', '-noout'], Buffer.from(pem));
    return pem;
  }
}

const rawDecrypt = (privPem, block) => crypto.privateDecrypt({ key: privPem, padding: crypto.constants.RSA_NO_PADDING }, block);

// ---- The suite -----------------------------------------------------------------------------------

const checks = new Checks('kat.crypto.wasm');
const dir = tempDir('paywasm-kat-wasm-');
const started = Date.now();
const modules = [];
try {
  for (const file of MODULES) modules.push(await loadWasmModule(dist, file));
  const realRandom = (m) => {
    m.state.entropy = (view) => (crypto.getRandomValues(view), true);
  };
  const encrypt = (m, pem, plaintext, padding, extra = {}) =>
    m.call('encrypt', { key: pem, plaintext: plaintext.toString('latin1'), padding, ...extra });

  // Payloads cross the JS/wasm boundary as UTF-8 text: latin1 strings of bytes 0..127 stay bytes.
  const payload = (size) => Buffer.from(crypto.randomBytes(size).map((b) => 0x20 + (b % 0x5f)));

  for (const bits of [2048, 2049, 2050, 3071, 3072, 4096]) {
    const priv = path.join(dir, `priv${bits}.pem`);
    fs.writeFileSync(priv, rsaKeyOfExactly(bits));
    const privPem = fs.readFileSync(priv, 'utf8');
    const pubPem = run(openssl, ['pkey', '-in', priv, '-pubout']).toString();
    const jwk = crypto.createPublicKey(pubPem).export({ format: 'jwk' });
    const key = { n: toBig(Buffer.from(jwk.n, 'base64url')), e: toBig(Buffer.from(jwk.e, 'base64url')), k: Math.ceil(bits / 8) };
    if (key.n.toString(2).length !== bits) throw new Error(`the ${bits}-bit key has ${key.n.toString(2).length} bits`);

    const der = run(openssl, ['pkey', '-pubin', '-outform', 'DER'], Buffer.from(pubPem));
    const fingerprint = crypto.createHash('sha256').update(der).digest('hex');
    for (const m of modules) {
      const info = m.call('keyInfo', { key: pubPem });
      checks.check(`${m.file} ${bits}-bit keyInfo: sha256(openssl DER) and ${bits} bits`,
        info.ok && info.value.fingerprint === fingerprint && info.value.bits === bits, JSON.stringify(info));
    }

    for (const padding of Object.keys(PADDINGS)) {
      const piece = maxPiece(key.k, padding);
      for (const size of [1, piece, piece + 1, 700]) {
        const plain = payload(size);
        const name = `${bits}-bit ${padding.padEnd(11)} ${String(size).padStart(3)} bytes`;
        const outputs = [];
        for (const m of modules) {
          checks.guard(`${m.file} ${name} exact`, () => {
            const label = `${bits}/${padding}/${size}`;
            const stream = byteStream(label);
            m.state.entropy = (view) => (view.set(stream(view.length)), true);
            const r = encrypt(m, pubPem, plain, padding);
            realRandom(m);
            if (!r.ok) throw new Error(JSON.stringify(r.error));
            const expected = expectedCiphertext(key, padding, plain, byteStream(label));
            const got = Buffer.from(r.value, 'base64');
            outputs.push(got);
            checks.check(`${m.file} ${name} with a known random stream = RFC 8017 in JS + BigInt (${expected.length} bytes)`,
              got.equals(expected), `got ${got.length} bytes, first difference at ${got.findIndex((b, i) => b !== expected[i])}`);
          });
          checks.guard(`${m.file} ${name} decrypt`, () => {
            const r = encrypt(m, pubPem, plain, padding);
            if (!r.ok) throw new Error(JSON.stringify(r.error));
            const ciphertext = Buffer.from(r.value, 'base64');
            const blocks = blocksOf(ciphertext, key.k);
            const viaOpenssl = Buffer.concat(blocks.map((b) => opensslDecrypt(openssl, priv, b, padding)));
            const viaNode = nodeDecrypt(privPem, blocks, padding);
            const again = Buffer.from(encrypt(m, pubPem, plain, padding).value, 'base64');
            checks.check(`${m.file} ${name} -> ${blocks.length} block(s): openssl and node decrypt it; a second encryption differs`,
              ciphertext.length === Math.ceil(size / piece) * key.k && viaOpenssl.equals(plain) && viaNode.equals(plain) &&
                !again.equals(ciphertext),
              `ciphertext ${ciphertext.length} bytes; openssl ${viaOpenssl.equals(plain)}, node ${viaNode.equals(plain)}`);
          });
        }
        checks.check(`${name}: both modules give the same ciphertext from the same random stream`,
          outputs.length === 2 && outputs[0].equals(outputs[1]));
      }
    }

    if (bits === 2048) {
      // The browser's randomness, seen through raw decryption of many blocks.
      for (const m of modules) {
        checks.guard(`${m.file} oaep seeds`, () => {
          const seeds = [];
          for (let i = 0; i < 40; i++) {
            const c = Buffer.from(encrypt(m, pubPem, Buffer.from('x'), 'oaep-sha1').value, 'base64');
            const { seed, message } = decodeOaep('sha1', rawDecrypt(privPem, c));
            if (message.toString() !== 'x') throw new Error('message lost');
            seeds.push(seed.toString('hex'));
          }
          const ones = seeds.join('').split('').reduce((n, h) => n + ((parseInt(h, 16).toString(2).match(/1/g) || []).length), 0);
          const share = ones / (seeds.length * 20 * 8);
          checks.check(`${m.file} 40 OAEP-SHA-1 blocks decode per RFC 8017 7.1.2 with 40 distinct seeds, ${(share * 100).toFixed(1)}% one bits`,
            new Set(seeds).size === 40 && share > 0.46 && share < 0.54);
        });
        checks.guard(`${m.file} pkcs1 padding strings`, () => {
          const counts = new Array(256).fill(0);
          let total = 0;
          for (let i = 0; i < 40; i++) {
            const c = Buffer.from(encrypt(m, pubPem, Buffer.from('y'), 'pkcs1v15').value, 'base64');
            const { ps, message } = decodePkcs1(rawDecrypt(privPem, c));
            if (message.toString() !== 'y' || ps.length !== key.k - 4) throw new Error(`message ${message}, PS ${ps.length} bytes`);
            for (const b of ps) counts[b]++;
            total += ps.length;
          }
          // Chi-square over 1..255 (254 degrees of freedom): 400 is beyond p = 1e-8 for uniform bytes.
          const expected = total / 255;
          const chi2 = counts.slice(1).reduce((s, c) => s + (c - expected) ** 2 / expected, 0);
          checks.check(`${m.file} 40 PKCS#1 v1.5 padding strings: no zero byte, 1..255 evenly (chi-square ${chi2.toFixed(0)} < 400)`,
            counts[0] === 0 && chi2 < 400);
        });
      }

      // Refusals, with their error codes (the widget shows them; nothing is encrypted).
      const small = path.join(dir, 'priv1024.pem');
      run(openssl, ['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:1024', '-out', small]);
      const smallPub = run(openssl, ['pkey', '-in', small, '-pubout']).toString();
      for (const m of modules) {
        const r = encrypt(m, smallPub, Buffer.from('z'), 'oaep-sha1');
        checks.check(`${m.file} refuses a 1024-bit key`, !r.ok && r.error.code === 'invalid_key', JSON.stringify(r));
        const wrong = encrypt(m, pubPem, Buffer.from('z'), 'oaep-sha1', { fingerprint: '0'.repeat(64) });
        checks.check(`${m.file} refuses a key whose fingerprint is not the one given`,
          !wrong.ok && wrong.error.code === 'key_mismatch', JSON.stringify(wrong));
        m.state.entropy = () => false;
        const noRandom = encrypt(m, pubPem, Buffer.from('z'), 'oaep-sha1');
        realRandom(m);
        checks.check(`${m.file} a failing random source is an error, not a ciphertext`,
          !noRandom.ok && noRandom.error.code === 'crypto', JSON.stringify(noRandom));
        const after = encrypt(m, pubPem, Buffer.from('z'), 'oaep-sha1');
        checks.check(`${m.file} encrypts again after that error`, after.ok);
      }
    }
  }
} catch (e) {
  checks.check('the suite ran to the end', false, e.stack);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
console.log(`(${((Date.now() - started) / 1000).toFixed(1)} s)`);
checks.finish();
