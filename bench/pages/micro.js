// The implementations compared by bench/run.mjs, as window.bench: every one gets the same key,
// payloads and QR text (from /inputs.json) and returns the same kind of result (base64 of the
// concatenated RSA blocks; an SVG string). Timing is done here, in batches, so the page <-> driver
// round trip is never measured; the driver interleaves the batches and keeps the statistics.
(function () {
  'use strict';

  const utf8 = new TextEncoder();
  const binary = (bytes) => {
    let s = '';
    for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    return s;
  };
  const toBase64 = (bytes) => btoa(binary(bytes));
  const fromBase64 = (b64) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  const concat = (parts) => {
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) { out.set(p, at); at += p.length; }
    return out;
  };
  // Largest plaintext per 2048-bit block (k = 256): k - 2*hLen - 2 for OAEP, k - 11 for PKCS#1 v1.5.
  const PIECE = { 'oaep-sha1': 214, 'oaep-sha256': 190, pkcs1v15: 245 };
  const byteChunks = (bytes, size) => {
    const out = [];
    for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
    return out;
  };
  // jsencrypt's PKCS#1 v1.5 path takes a JS string and UTF-8-encodes it itself: pieces are cut at
  // character boundaries, each at most 245 bytes once encoded.
  const stringChunks = (text, maxBytes) => {
    const out = [];
    let piece = '';
    let size = 0;
    for (const ch of text) {
      const n = utf8.encode(ch).length;
      if (size + n > maxBytes) { out.push(piece); piece = ''; size = 0; }
      piece += ch;
      size += n;
    }
    if (piece) out.push(piece);
    return out;
  };

  let inputs = null;
  let core = null;
  let forgeKey = null;
  let jsencrypt = null;
  let subtleKey = null;
  let spki = null;
  let sink = null;

  const payload = (name) => inputs.payloads[name];
  const pem = () => inputs.publicKeyPem;

  const webcrypto = async (text, key) => {
    const k = key || await crypto.subtle.importKey('spki', spki, { name: 'RSA-OAEP', hash: 'SHA-1' }, false, ['encrypt']);
    const blocks = await Promise.all(byteChunks(utf8.encode(text), PIECE['oaep-sha1'])
      .map((piece) => crypto.subtle.encrypt({ name: 'RSA-OAEP' }, k, piece)));
    return toBase64(concat(blocks.map((b) => new Uint8Array(b))));
  };
  const forgeOaep = (text) => {
    const bytes = forge.util.encodeUtf8(text);  // a binary string, one char per byte
    let out = '';
    for (let i = 0; i < bytes.length; i += PIECE['oaep-sha1']) {
      out += forgeKey.encrypt(bytes.substring(i, i + PIECE['oaep-sha1']), 'RSA-OAEP');  // SHA-1, MGF1-SHA-1
    }
    return forge.util.encode64(out);
  };
  const jsencryptPkcs1 = (text) => toBase64(concat(stringChunks(text, PIECE.pkcs1v15).map((piece) => {
    const b64 = jsencrypt.encrypt(piece);
    if (!b64) throw new Error('jsencrypt.encrypt failed');
    return fromBase64(b64);
  })));
  // jsencrypt's encryptOAEP is OAEP with SHA-256 and takes one char per byte.
  const jsencryptOaep256 = (text) => toBase64(concat(byteChunks(utf8.encode(text), PIECE['oaep-sha256']).map((piece) => {
    const b64 = jsencrypt.encryptOAEP(binary(piece));
    if (!b64) throw new Error('jsencrypt.encryptOAEP failed');
    return fromBase64(b64);
  })));
  const qrcodeGenerator = (text) => {
    const qr = qrcode(0, 'M');  // type 0: the smallest version that fits
    qr.addData(text, 'Byte');
    qr.make();
    return qr.createSvgTag({ cellSize: 1, margin: 4 });
  };

  // name -> [function, async?]
  const IMPLS = {
    'ours/oaep-sha1/sample': [() => core.encrypt(pem(), payload('sample'), { padding: 'oaep-sha1' })],
    'ours/oaep-sha1/cart3k': [() => core.encrypt(pem(), payload('cart3k'), { padding: 'oaep-sha1' })],
    'ours/oaep-sha256/sample': [() => core.encrypt(pem(), payload('sample'), { padding: 'oaep-sha256' })],
    'ours/oaep-sha256/cart3k': [() => core.encrypt(pem(), payload('cart3k'), { padding: 'oaep-sha256' })],
    'ours/pkcs1v15/sample': [() => core.encrypt(pem(), payload('sample'), { padding: 'pkcs1v15' })],
    'ours/pkcs1v15/cart3k': [() => core.encrypt(pem(), payload('cart3k'), { padding: 'pkcs1v15' })],
    'webcrypto/oaep-sha1/sample': [() => webcrypto(payload('sample'), subtleKey), true],
    'webcrypto/oaep-sha1/cart3k': [() => webcrypto(payload('cart3k'), subtleKey), true],
    'webcrypto+import/oaep-sha1/sample': [() => webcrypto(payload('sample'), null), true],
    'ours/oaep-sha1/merchantAuth': [() => core.encrypt(pem(), payload('merchantAuth'), { padding: 'oaep-sha1' })],
    'webcrypto/oaep-sha1/merchantAuth': [() => webcrypto(payload('merchantAuth'), subtleKey), true],
    'node-forge/oaep-sha1/sample': [() => forgeOaep(payload('sample'))],
    'node-forge/oaep-sha1/cart3k': [() => forgeOaep(payload('cart3k'))],
    'jsencrypt/pkcs1v15/sample': [() => jsencryptPkcs1(payload('sample'))],
    'jsencrypt/pkcs1v15/cart3k': [() => jsencryptPkcs1(payload('cart3k'))],
    'jsencrypt/oaep-sha256/sample': [() => jsencryptOaep256(payload('sample'))],
    'jsencrypt/oaep-sha256/cart3k': [() => jsencryptOaep256(payload('cart3k'))],
    // The slowest key the core accepts (8192 bits, e = 2^32 - 1): what a hostile page can make the widget do.
    'ours/worst-key/sample': [() => core.encrypt(inputs.worstKeyPem, payload('sample'), { padding: 'oaep-sha1' })],
    'ours/qr-svg': [() => core.qrSvg(inputs.qrText, { ecc: 'M', border: 4 })],
    'qrcode-generator/qr-svg': [() => qrcodeGenerator(inputs.qrText)],
  };

  async function init() {
    inputs = await (await fetch('/inputs.json')).json();
    core = await PayWasm.load();
    forgeKey = forge.pki.publicKeyFromPem(inputs.publicKeyPem);
    jsencrypt = new JSEncrypt();
    jsencrypt.setPublicKey(inputs.publicKeyPem);
    spki = fromBase64(inputs.publicKeyPem.replace(/-----[^-]+-----|\s/g, ''));
    subtleKey = await crypto.subtle.importKey('spki', spki, { name: 'RSA-OAEP', hash: 'SHA-1' }, false, ['encrypt']);
    return {
      names: Object.keys(IMPLS),
      crossOriginIsolated: self.crossOriginIsolated === true,
      userAgent: navigator.userAgent,
      paywasmVersion: PayWasm.version,
    };
  }

  // Mean milliseconds per call over a batch of n calls.
  async function time(name, n) {
    const [fn, isAsync] = IMPLS[name];
    const t0 = performance.now();
    if (isAsync) {
      for (let i = 0; i < n; i++) sink = await fn();
    } else {
      for (let i = 0; i < n; i++) sink = fn();
    }
    return (performance.now() - t0) / n;
  }

  // One result of each implementation, for the driver's checks (decryption, QR module counts).
  async function outputs() {
    const out = {};
    for (const [name, [fn]] of Object.entries(IMPLS)) out[name] = await fn();
    const q = qrcode(0, 'M');
    q.addData(inputs.qrText, 'Byte');
    q.make();
    const n = q.getModuleCount();
    let theirs = '';
    for (let r = 0; r < n; r++) for (let c = 0; c < n; c++) theirs += q.isDark(r, c) ? '1' : '0';
    const m = core.qrMatrix(inputs.qrText, { ecc: 'M' });
    out.matrix = { ours: { size: m.size, modules: Array.from(m.modules).join('') }, theirs: { size: n, modules: theirs } };
    return out;
  }

  // WASM linear memory after `total` encryptions of the sample and `total` QR renders (alternated),
  // read at each checkpoint; also before the first call.
  function memory(total, checkpoints) {
    const mem = () => core.memoryBytes();
    const at = { 0: mem() };
    for (let i = 1; i <= total; i++) {
      sink = core.encrypt(pem(), payload('sample'), { padding: 'oaep-sha1' });
      sink = core.qrSvg(inputs.qrText, { ecc: 'M', border: 4 });
      if (checkpoints.includes(i)) at[i] = mem();
    }
    return at;
  }

  window.bench = { init, time, outputs, memory, sink: () => sink };
})();
