// The figures of a run, each: ours, the alternative (when there is one), the ratio, and the budget
// it must meet (when it has one) with whether it did and by how much. Ratio = ours / alternative
// (time or bytes; below 1 means ours is faster or smaller), from the medians of one run.
import { summary } from './stats.mjs';

export const KB = 1024;
// The transfer budget, paywasm.js + the module a browser gets (as scripts/dist.sh checks it).
const SIZE_GATE = 80 * KB;
const MB = 1024 * 1024;
// Every time budget of the cold start: at most this many times its floor, measured in the same run.
export const USABLE_FLOOR_RATIO = 1.3;

export function fmtMs(ms) {
  if (ms === null || ms === undefined) return '-';
  if (ms < 1) return `${(ms * 1000).toFixed(0)} µs`;
  if (ms < 10) return `${ms.toFixed(2)} ms`;
  return `${ms.toFixed(1)} ms`;
}
export const fmtKB = (bytes) => `${(bytes / KB).toFixed(1)} KB`;
export const fmtMB = (bytes) => `${(bytes / MB).toFixed(2)} MB`;
const fmtSummary = (s, fmt) => `${fmt(s.median)} (${fmt(s.min)}–${fmt(s.max)})`;

function ratioText(ratio, faster, slower) {
  if (!Number.isFinite(ratio)) return '-';
  return ratio <= 1 ? `${(1 / ratio).toFixed(2)}× ${faster}` : `${ratio.toFixed(2)}× ${slower}`;
}

// Budgets. Each returns { text, pass, by }.
const budgets = {
  // ours / alternative <= limit (e.g. at most 4x WebCrypto's time)
  atMostTimes: (limit, what) => (ratio) => ({
    text: `≤ ${limit}× ${what}`,
    pass: ratio <= limit,
    by: ratio <= limit ? `met: ${ratio.toFixed(2)}× (${Math.round((1 - ratio / limit) * 100)}% under)`
      : `missed: ${ratio.toFixed(2)}× > ${limit}×; ours must get ${(ratio / limit).toFixed(2)}× faster`,
  }),
  // alternative / ours >= factor (e.g. at least 4x faster than node-forge)
  atLeastFaster: (factor) => (ratio) => {
    const speedup = 1 / ratio;
    return {
      text: `≥ ${factor}× faster`,
      pass: speedup >= factor,
      by: speedup >= factor ? `met: ${speedup.toFixed(2)}× (${Math.round((speedup / factor - 1) * 100)}% margin)`
        : `missed: ${speedup.toFixed(2)}× < ${factor}×; ours must get ${(factor / speedup).toFixed(2)}× faster`,
    };
  },
  atMost: (limit, fmt) => (value) => ({
    text: `≤ ${fmt(limit)}`,
    pass: value <= limit,
    by: value <= limit ? `met: ${fmt(limit - value)} to spare (${Math.round((1 - value / limit) * 100)}%)`
      : `missed: over by ${fmt(value - limit)} (+${Math.round((value / limit - 1) * 100)}%)`,
  }),
  zero: (unit) => (value) => ({
    text: `0 ${unit}`,
    pass: value === 0,
    by: value === 0 ? 'met' : `missed: ${value} ${unit}`,
  }),
};

// Least-squares line through (blocks, median ms): the fixed cost of a call and the cost per block.
export function costModel(r, impl) {
  const points = ['merchantAuth', 'sample', 'cart3k']
    .map((p) => [Math.ceil(r.meta.inputs.payloadBytes[p] / 214), r.micro.summary[`${impl}/oaep-sha1/${p}`]])
    .filter(([, s]) => s).map(([x, s]) => [x, s.median]);
  if (points.length < 2) return null;
  const n = points.length;
  const mx = points.reduce((a, [x]) => a + x, 0) / n;
  const my = points.reduce((a, [, y]) => a + y, 0) / n;
  const slope = points.reduce((a, [x, y]) => a + (x - mx) * (y - my), 0) / points.reduce((a, [x]) => a + (x - mx) ** 2, 0);
  return { fixedMs: my - slope * mx, perBlockMs: slope, points };
}

export function buildFigures(r) {
  const figures = [];
  const gz = (k) => r.sizes[k].gzip;
  const oursSize = gz('paywasm.js') + gz('paywasm.wasm');
  const v = r.meta.alternatives;

  // ---- transfer size ----
  const sizeRow = (id, short, figure, altName, altBytes, budget) => {
    const ratio = altBytes ? oursSize / altBytes : null;
    figures.push({
      id, short, group: 'size', figure, unit: 'bytes', ours: oursSize, oursText: fmtKB(oursSize),
      alternative: altName ? { name: altName, value: altBytes, text: fmtKB(altBytes) } : null,
      ratio, ratioText: ratio ? ratioText(ratio, 'smaller', 'larger') : '-',
      budget: budget ? budget(oursSize) : null,
    });
  };
  sizeRow('size.total', 'Size vs node-forge', 'Transfer: paywasm.js + paywasm.wasm, gzip -9', `node-forge ${v['node-forge']} (forge.min.js)`,
    gz('node-forge'), budgets.atMost(SIZE_GATE, fmtKB));
  const languages = Object.keys(r.sizes).filter((k) => /^paywasm-[a-z]+\.json$/.test(k));
  if (languages.length) {
    const largest = languages.reduce((a, b) => (gz(a) >= gz(b) ? a : b));
    figures.push({
      id: 'size.language', short: 'Size, another language', group: 'size',
      figure: `Transfer for a shopper in another language than English: + one language file (largest: ${largest})`,
      unit: 'bytes', ours: oursSize + gz(largest), oursText: fmtKB(oursSize + gz(largest)),
      alternative: { name: `node-forge ${v['node-forge']} (forge.min.js)`, value: gz('node-forge'), text: fmtKB(gz('node-forge')) },
      ratio: (oursSize + gz(largest)) / gz('node-forge'),
      ratioText: ratioText((oursSize + gz(largest)) / gz('node-forge'), 'smaller', 'larger'),
      budget: null,
    });
  }
  sizeRow('size.vs-forge-qr', 'Size vs node-forge + qrcode-generator', 'Transfer, same jobs (RSA-OAEP + QR)', `node-forge + qrcode-generator ${v['qrcode-generator']}`,
    gz('node-forge') + gz('qrcode-generator'));
  sizeRow('size.vs-jsencrypt', 'Size vs jsencrypt', 'Transfer vs jsencrypt (RSA only)', `jsencrypt ${v.jsencrypt} (jsencrypt.min.js)`, gz('jsencrypt'));
  sizeRow('size.vs-qrcode', 'Size vs qrcode-generator', 'Transfer vs qrcode-generator (QR only)', `qrcode-generator ${v['qrcode-generator']} (qrcode.js, unminified)`, gz('qrcode-generator'));

  // ---- timing rows (micro) ----
  const s = r.micro.summary;
  const samples = r.micro.samples;
  const timeRow = (id, group, figure, ours, alt, altName, budget, note) => {
    const [impl, padding, input] = alt.split('/');
    const short = group === 'qr' ? 'QR vs qrcode-generator'
      : `${{ sample: `Encrypt ${r.meta.inputs.payloadBytes.sample} B`, cart3k: 'Encrypt 3 KB', merchantAuth: 'Encrypt 1 block' }[input] || input} `
        + `${padding} vs ${impl.replace('+import', ' + importKey')}`;
    const ratio = s[ours].median / s[alt].median;
    // Ratios of the batches run in the same round: how stable the ratio is within the run.
    const pairs = samples[ours].map((x, i) => x / samples[alt][i]).filter(Number.isFinite);
    const rs = summary(pairs);
    figures.push({
      id, short, group, figure, unit: 'ms', ours: s[ours], oursText: fmtSummary(s[ours], fmtMs),
      alternative: { name: altName, value: s[alt], text: fmtSummary(s[alt], fmtMs) },
      ratio, ratioRange: [rs.min, rs.max], ratioText: ratioText(ratio, 'faster', 'slower'),
      budget: budget ? budget(ratio) : null,
      note,
    });
  };
  const bytes = r.meta.inputs.payloadBytes;
  const sample = `exchange payload (${bytes.sample} B)`;
  const cart = `3 KB cart payload (${bytes.cart3k} B)`;
  timeRow('encrypt.sample.webcrypto', 'encrypt', `Encrypt ${sample}, OAEP-SHA-1, chunked`, 'ours/oaep-sha1/sample',
    'webcrypto/oaep-sha1/sample', 'WebCrypto RSA-OAEP SHA-1 (key imported once)', budgets.atMostTimes(4, "WebCrypto's time"),
    'ours parses the PEM key on every call; WebCrypto gets an imported CryptoKey');
  timeRow('encrypt.sample.forge', 'encrypt', `Encrypt ${sample}, OAEP-SHA-1, chunked`, 'ours/oaep-sha1/sample',
    'node-forge/oaep-sha1/sample', `node-forge ${v['node-forge']} (key parsed once)`, budgets.atLeastFaster(4));
  timeRow('encrypt.sample.webcrypto-import', 'encrypt', `Encrypt ${sample}, OAEP-SHA-1, key import included`, 'ours/oaep-sha1/sample',
    'webcrypto+import/oaep-sha1/sample', 'WebCrypto with importKey per payment');
  timeRow('encrypt.one-block.webcrypto', 'encrypt', `Encrypt one block (merchantAuth, ${bytes.merchantAuth} B), OAEP-SHA-1`,
    'ours/oaep-sha1/merchantAuth', 'webcrypto/oaep-sha1/merchantAuth', 'WebCrypto RSA-OAEP SHA-1',
    undefined, 'with the 4- and 15-block rows: the fixed cost per call and the cost per block');
  timeRow('encrypt.cart3k.webcrypto', 'encrypt', `Encrypt ${cart}, OAEP-SHA-1`, 'ours/oaep-sha1/cart3k',
    'webcrypto/oaep-sha1/cart3k', 'WebCrypto RSA-OAEP SHA-1');
  timeRow('encrypt.cart3k.forge', 'encrypt', `Encrypt ${cart}, OAEP-SHA-1`, 'ours/oaep-sha1/cart3k',
    'node-forge/oaep-sha1/cart3k', `node-forge ${v['node-forge']}`);
  timeRow('encrypt.sample.jsencrypt', 'encrypt', `Encrypt ${sample}, PKCS#1 v1.5`, 'ours/pkcs1v15/sample',
    'jsencrypt/pkcs1v15/sample', `jsencrypt ${v.jsencrypt} encrypt()`);
  timeRow('encrypt.cart3k.jsencrypt', 'encrypt', `Encrypt ${cart}, PKCS#1 v1.5`, 'ours/pkcs1v15/cart3k',
    'jsencrypt/pkcs1v15/cart3k', `jsencrypt ${v.jsencrypt} encrypt()`);
  timeRow('encrypt.sample.jsencrypt-oaep256', 'encrypt', `Encrypt ${sample}, OAEP-SHA-256`, 'ours/oaep-sha256/sample',
    'jsencrypt/oaep-sha256/sample', `jsencrypt ${v.jsencrypt} encryptOAEP()`);
  timeRow('encrypt.cart3k.jsencrypt-oaep256', 'encrypt', `Encrypt ${cart}, OAEP-SHA-256`, 'ours/oaep-sha256/cart3k',
    'jsencrypt/oaep-sha256/cart3k', `jsencrypt ${v.jsencrypt} encryptOAEP()`);
  timeRow('qr', 'qr', `QR matrix + SVG string, ${r.meta.inputs.qrTextLength}-character payment URI, ECC M`, 'ours/qr-svg',
    'qrcode-generator/qr-svg', `qrcode-generator ${v['qrcode-generator']} createSvgTag()`, budgets.atLeastFaster(3));

  // The slowest key the core accepts: one encryption must stay under a long task (50 ms).
  const worst = s['ours/worst-key/sample'];
  if (worst) {
    figures.push({
      id: 'encrypt.worst-key', short: 'Encrypt, slowest accepted key', group: 'encrypt',
      figure: `Encrypt ${sample} to the slowest key the core accepts (8192 bits, e = 2^32 − 1; larger keys and exponents are refused)`,
      unit: 'ms', ours: worst, oursText: fmtSummary(worst, fmtMs), alternative: null, ratio: null, ratioText: '-',
      budget: budgets.atMost(50, fmtMs)(worst.median),
      note: 'a hostile page that supplies such a key can hold the main thread this long per payment, no longer',
    });
  }

  // ---- cold start ----
  // Judged against the floor measured in the same run, its loads interleaved (pages/floor.html: the
  // same paywasm.js run, which fetches the same paywasm.wasm; the form drawn in plain HTML): the ratio of the
  // medians; the absolute figure and the machine's load stand beside it (issue 42).
  const floor = r.cold.floor && r.cold.floor.summary;
  const load = r.cold.load ? `machine load ${r.cold.load.start.toFixed(1)} at the start, ${r.cold.load.max.toFixed(1)} at most` : '';
  const usable = r.cold.summary.usable;
  const usableRatio = floor ? usable.median / floor.usable.median : null;
  figures.push({
    id: 'usable', group: 'ready', figure: 'Cold start: script tag -> paywasm-usable (the form drawn and taking input; cache off)',
    unit: 'ms', ours: usable, oursText: fmtSummary(usable, fmtMs),
    alternative: floor ? { name: 'floor: the same script, the form in plain HTML', value: floor.usable, text: fmtSummary(floor.usable, fmtMs) } : null,
    ratio: null, floorRatio: usableRatio, ratioText: floor ? `${usableRatio.toFixed(2)}× the floor` : '-',
    budget: floor ? budgets.atMostTimes(USABLE_FLOOR_RATIO, 'the floor')(usableRatio) : budgets.atMost(45, fmtMs)(usable.median),
    note: `absolute ${fmtMs(usable.median)} (the old budget, 45 ms, ${usable.median <= 45 ? 'within' : 'over'}); ${load}`,
  });
  const ready = r.cold.summary.ready;
  const readyRatio = floor && floor.ready.median ? ready.median / floor.ready.median : null;
  figures.push({
    id: 'ready', group: 'ready', figure: 'Cold start: script tag -> paywasm-ready (the module in too; cache off, streaming compile)',
    unit: 'ms', ours: ready, oursText: fmtSummary(ready, fmtMs),
    alternative: readyRatio ? { name: 'floor: the same script, its module in (PayWasm.load())', value: floor.ready, text: fmtSummary(floor.ready, fmtMs) } : null,
    ratio: null, floorRatio: readyRatio, ratioText: readyRatio ? `${readyRatio.toFixed(2)}× the floor` : '-',
    // No budget since the form is drawn without the module (issue 35): the shopper waits for
    // usable; what needs the core waits for ready only when the shopper is faster than it.
    budget: null,
  });

  // ---- main thread ----
  const mt = r.mainThread;
  const longTasks = mt.reduce((n, run) => n + (run.longTasks ? run.longTasks.length : 0), 0);
  const traced = mt.filter((run) => run.trace).map((run) => run.trace.longestMs);
  const longest = traced.length ? Math.max(...traced) : null;
  figures.push({
    id: 'main.longtasks', group: 'main', figure: 'Main thread: long tasks (> 50 ms), mount through one exchange payment',
    unit: 'tasks', ours: longTasks,
    oursText: `${longTasks} in ${mt.length} runs${longest !== null ? `; longest task ${fmtMs(longest)}` : ''}`,
    alternative: null, ratio: null, ratioText: '-',
    budget: mt.some((run) => run.longTasks === null) ? { text: '0 long tasks', pass: false, by: 'not measured: no Long Tasks API' }
      : budgets.zero('long tasks')(longTasks),
  });

  // ---- memory ----
  const m = r.memory;
  const points = Object.keys(m).map(Number).sort((a, b) => a - b);
  const last = m[points[points.length - 1]];
  figures.push({
    id: 'memory.size', group: 'memory', figure: `WASM linear memory after ${points[points.length - 1]} encryptions + ${points[points.length - 1]} QR renders`,
    unit: 'bytes', ours: last, oursText: last === null ? 'not readable' : fmtMB(last), alternative: null, ratio: null, ratioText: '-',
    budget: last === null ? { text: '≤ 2.00 MB', pass: false, by: 'not measured' } : budgets.atMost(2 * MB, fmtMB)(last),
  });
  if (m[100] !== undefined && last !== null) {
    const growth = last - m[100];
    figures.push({
      id: 'memory.growth', group: 'memory', figure: `WASM memory growth from call 100 to call ${points[points.length - 1]}`,
      unit: 'bytes', ours: growth, oursText: `${growth} bytes`, alternative: null, ratio: null, ratioText: '-',
      budget: { text: '0 bytes (no leak)', pass: growth === 0, by: growth === 0 ? 'met' : `missed: +${growth} bytes` },
    });
  }
  figures.push(...noSimdFigures(r));
  return figures;
}

// The no-SIMD module (paywasm-nosimd.wasm, for browsers without SIMD128): its transfer size under
// the same budget as the SIMD module's, and its encryption time against the SIMD module's, both
// pages measured in the same rounds (run.mjs noSimdRun). Time rows are info: no budget.
export function noSimdFigures(r) {
  const out = [];
  const gz = (k) => r.sizes[k].gzip;
  const bytes = gz('paywasm.js') + gz('paywasm-nosimd.wasm');
  out.push({
    id: 'size.nosimd', short: 'Size without SIMD128', group: 'size',
    figure: 'Transfer without SIMD128: paywasm.js + paywasm-nosimd.wasm, gzip -9', unit: 'bytes', ours: bytes,
    oursText: fmtKB(bytes), alternative: null, ratio: null, ratioText: '-', budget: budgets.atMost(SIZE_GATE, fmtKB)(bytes),
  });
  const s = r.nosimd.summary;
  const bytesOf = r.meta.inputs.payloadBytes;
  for (const [input, what] of [['sample', `exchange payload (${bytesOf.sample} B)`], ['cart3k', `3 KB cart payload (${bytesOf.cart3k} B)`]]) {
    const [ours, alt] = [s[`nosimd/${input}`], s[`simd/${input}`]];
    const pairs = r.nosimd.samples[`nosimd/${input}`].map((x, i) => x / r.nosimd.samples[`simd/${input}`][i]).filter(Number.isFinite);
    const rs = summary(pairs);
    const ratio = ours.median / alt.median;
    out.push({
      id: `encrypt.${input}.nosimd`, short: `Encrypt ${input === 'sample' ? `${bytesOf.sample} B` : '3 KB'}, no-SIMD vs SIMD module`,
      group: 'encrypt', figure: `Encrypt ${what}, OAEP-SHA-1, paywasm-nosimd.wasm (a browser without SIMD128)`, unit: 'ms',
      ours, oursText: fmtSummary(ours, fmtMs), alternative: { name: 'paywasm.wasm (SIMD128)', value: alt, text: fmtSummary(alt, fmtMs) },
      ratio, ratioRange: [rs.min, rs.max], ratioText: ratioText(ratio, 'faster', 'slower'), budget: null,
    });
  }
  return out;
}
