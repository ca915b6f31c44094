// latest.md (the table and the details behind it) and chart.svg (hand-made bars, no libraries)
// from the results object of bench/run.mjs.
import { fmtMs, fmtKB, fmtMB, KB, costModel } from './figures.mjs';
import { renderThrottle, SLOW_READY_BUDGET_MS, SLOW_USABLE_BUDGET_MS, fmtT } from './throttle.mjs';

const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const cell = (s) => String(s).replace(/\|/g, '\\|');
const pct = (part, whole) => `${((part / whole) * 100).toFixed(1)}%`;

function verdict(f) {
  if (!f.budget) return 'info';
  return f.budget.pass ? `pass (${f.budget.by.replace(/^met: ?/, '') || 'met'})` : `**MISS** (${f.budget.by.replace(/^missed: /, '')})`;
}

export function renderMarkdown(r) {
  const m = r.meta;
  const out = [];
  const line = (s = '') => out.push(s);
  const cfg = m.config;
  line('# paywasm benchmarks: latest run');
  line();
  line(`${m.date.slice(0, 16).replace('T', ' ')} UTC, **${m.mode}** mode, commit ${m.commit}. ${m.browser} headless (Debian), Node ${m.node}, `
    + `${m.machine.cpus} × ${m.machine.cpuModel} (1-minute load average ${m.machine.loadAtStart} at the start, ${m.machine.loadAverage[0]} at the end). `
    + `Timings: ${cfg.rounds} interleaved rounds after ${cfg.warmup} warm-up rounds, batches of about ${cfg.batchMs} ms, `
    + `timer ${m.crossOriginIsolated ? '5 µs (cross-origin isolated)' : '100 µs (not isolated)'}, each library in its own renderer process; `
    + `${cfg.coldLoads} cold loads of each cold-start page; `
    + `${cfg.mainThreadRuns} payment runs. Took ${m.durationSeconds} s.`);
  line();
  if (Math.max(m.machine.loadAtStart, m.machine.loadAverage[0]) > m.machine.cpus) {
    line(`**The machine was busy** (load above its ${m.machine.cpus} CPUs): absolute times are inflated and noisy; `
      + 'the ratios (both sides measured back to back, interleaved) hold up better than the times.');
  }
  line();
  line(`Inputs: ${m.inputs.key}; exchange payload ${m.inputs.payloadBytes.sample} B, cart payload ${m.inputs.payloadBytes.cart3k} B; `
    + `QR text \`${m.inputs.qrText}\` (${m.inputs.qrTextLength} characters). Sizes with ${m.gzip}.`);
  line();
  line('| Figure | Ours | Alternative | Ratio | Budget | Result |');
  line('|---|---|---|---|---|---|');
  for (const f of r.figures) {
    const alt = f.alternative ? `${f.alternative.name}: ${f.alternative.text}` : '-';
    const range = f.ratioRange ? ` (rounds ${f.ratioRange[0].toFixed(2)}–${f.ratioRange[1].toFixed(2)})` : '';
    line(`| ${cell(f.figure)} | ${cell(f.oursText)} | ${cell(alt)} | ${cell(f.ratioText + (f.ratio ? `; ours/alt ${f.ratio.toFixed(3)}${range}` : ''))} | ${cell(f.budget ? f.budget.text : '-')} | ${cell(verdict(f))} |`);
  }
  line();
  const notes = r.figures.filter((f) => f.note);
  for (const f of notes) line(`- ${f.id}: ${f.note}`);
  if (notes.length) line();
  line('Times are per call: median (min–max) of the rounds. Ratio = ours / alternative of the medians; the range is the same ratio '
    + 'per round (both batches ran back to back). "info" rows have no budget.');
  line();

  const missed = r.figures.filter((f) => f.budget && !f.budget.pass);
  line(missed.length ? `**${missed.length} budget(s) missed:** ${missed.map((f) => `${f.id} (${f.budget.by.replace(/^missed: /, '')})`).join('; ')}.`
    : '**Every budget is met.**');
  line();

  // ---- encryption cost model ----
  const models = ['ours', 'webcrypto'].map((impl) => [impl, costModel(r, impl)]).filter(([, m]) => m);
  if (models.length) {
    line('## Encryption, fixed cost and cost per block (OAEP-SHA-1, fitted to the 1-, 4- and 15-block medians)');
    line();
    line('| implementation | per call | per 2048-bit block |');
    line('|---|---|---|');
    for (const [impl, m] of models) line(`| ${impl} | ${fmtMs(Math.max(0, m.fixedMs))} | ${fmtMs(m.perBlockMs)} |`);
    line();
  }

  // ---- cold start ----
  const c = r.cold.summary;
  line('## Cold start, in parts (medians, ms)');
  line();
  line('| page | script fetch | script loaded -> wasm request | wasm fetch | **script tag -> usable** | wasm received -> paywasm-ready | total (script tag -> ready) | navigation -> usable / ready |');
  line('|---|---|---|---|---|---|---|---|');
  const coldRow = (label, x) => line(`| ${label} | ${x.scriptFetch.median.toFixed(1)} | ${x.scriptToWasmRequest.median.toFixed(1)} | ${x.wasmFetch.median.toFixed(1)} | `
    + `**${x.usable.median.toFixed(1)}** (${x.usable.min.toFixed(1)}–${x.usable.max.toFixed(1)}) | `
    + `${x.wasmToReady.median.toFixed(1)} | ${x.ready.median.toFixed(1)} (${x.ready.min.toFixed(1)}–${x.ready.max.toFixed(1)}) | ${x.usableFromNavigation.median.toFixed(1)} / ${x.fromNavigation.median.toFixed(1)} |`);
  coldRow('script tag only (the budget)', c);
  if (r.cold.preload) coldRow('with `<link rel=preload>` for the wasm', r.cold.preload.summary);
  line();
  if (r.cold.preload) {
    line('With the preload the wasm request starts before the script has arrived, so "script loaded -> wasm request" is negative '
      + 'and the wasm fetch competes with the script\'s: compare the two pages by navigation -> ready.');
    line();
  }
  if (c.scriptWait) {
    line(`Fetches (medians, ms): paywasm.js queued ${c.scriptWait.median.toFixed(1)}, server ${c.scriptServer.median.toFixed(1)}, `
      + `download ${c.scriptDownload.median.toFixed(1)}; paywasm.wasm queued ${c.wasmWait.median.toFixed(1)}, server ${c.wasmServer.median.toFixed(1)}, `
      + `download ${c.wasmDownload.median.toFixed(1)}. "wasm received -> paywasm-ready" is compile, instantiate, first render and the event.`);
    line();
  }

  out.push(...renderThrottle(r));

  // ---- main thread ----
  line('## Main thread, mount through one exchange payment (each run on a cold page)');
  line();
  line('| run | status | mount -> ready | mount -> status | script time | task time | long tasks | longest task (trace) |');
  line('|---|---|---|---|---|---|---|---|');
  r.mainThread.forEach((run, i) => {
    line(`| ${i + 1} | ${run.status || run.error} | ${fmtMs(run.mountToReady)} | ${fmtMs(run.mountToStatus)} | ${fmtMs(run.scriptMs)} | `
      + `${fmtMs(run.taskMs)} | ${run.longTasks === null ? 'n/a' : run.longTasks.length} | ${run.trace ? `${fmtMs(run.trace.longestMs)} of ${run.trace.tasks} tasks` : 'n/a'} |`);
  });
  line();
  const traced = r.mainThread.map((run, i) => [run, i]).filter(([run]) => run.trace);
  if (traced.length) {
    const [worst, i] = traced.sort((a, b) => b[0].trace.longestMs - a[0].trace.longestMs)[0];
    line(`Longest task: run ${i + 1}, ${fmtMs(worst.trace.longestMs)}, starting ${fmtMs(worst.trace.atMs)} after mount(); inside it: `
      + `${worst.trace.inside.map((e) => `${e.name} ${e.ms} ms`).join(', ') || 'no traced event over 1 ms'}.`);
    line();
  }
  line('mount -> status includes the click that Playwright sends (its own latency); script and task time come from CDP Performance.getMetrics.');
  line();

  // ---- memory ----
  line('## WASM linear memory (memory.buffer.byteLength)');
  line();
  const points = Object.keys(r.memory).map(Number).sort((a, b) => a - b);
  line(`| ${points.map((p) => (p === 0 ? 'after load' : `after ${p}`)).join(' | ')} |`);
  line(`|${points.map(() => '---').join('|')}|`);
  line(`| ${points.map((p) => (r.memory[p] === null ? 'n/a' : fmtMB(r.memory[p]))).join(' | ')} |`);
  line();
  line('Each call is one encryption of the exchange payload (OAEP-SHA-1) and one QR SVG. The memory is read with '
    + 'the core\'s memoryBytes() (memory.buffer.byteLength of the module\'s exported memory).');
  line();

  // ---- size breakdown ----
  const b = r.breakdown;
  line('## Size breakdown of paywasm.wasm');
  line();
  line(`paywasm.js ${r.sizes['paywasm.js'].raw} B (${r.sizes['paywasm.js'].gzip} B gzip), paywasm.wasm ${b.file.raw} B (${b.file.gzip} B gzip). `
    + `Names from: ${b.nameSource}.`);
  line();
  line('| section | bytes | gzip alone |');
  line('|---|---|---|');
  for (const s of [...b.sections].sort((x, y) => y.size - x.size)) line(`| ${cell(s.name)} | ${s.size} | ${s.gzip} |`);
  line();
  line('| code by library | functions | code bytes | share of code | gzip alone |');
  line('|---|---|---|---|---|');
  for (const l of b.libraries) line(`| ${cell(l.library)} | ${l.functions} | ${l.code} | ${pct(l.code, b.code.bytes)} | ${l.gzipAlone} |`);
  line();
  line('"gzip alone" compresses that part by itself: it shows the order of what each part costs on the wire, '
    + 'not an exact split (the parts compress together in the real file).');
  line();
  line('| largest functions | bytes | library |');
  line('|---|---|---|');
  for (const f of b.largestFunctions) line(`| \`${cell(f.name)}\` | ${f.size} | ${cell(f.library)} |`);
  line();
  line(`Data: ${b.data.bytes} B in ${b.data.segments} segments; ${b.data.zeroBytes} B are zero bytes, ${b.data.textBytes} B printable text `
    + `(runs of 16+ characters), of which ${b.data.typeNameBytes} B are mangled C++ type names (RTTI). Longest text runs:`);
  line();
  for (const t of b.data.longestText) line(`- \`${t.replace(/`/g, "'")}\``);
  line();

  // ---- profile ----
  if (r.profile) {
    line('## Where our time goes (V8 sampling profile, self time)');
    line();
    for (const [name, p] of Object.entries(r.profile)) {
      line(`**${name}** (${p.calls} calls, ${p.samples} samples). By part: `
        + `${p.libraries.slice(0, 8).map((l) => `${l.library} ${l.share}%`).join(', ')}.`);
      line();
      line('| function | self |');
      line('|---|---|');
      for (const f of p.functions) line(`| \`${cell(f.name)}\` | ${f.share}% |`);
      line();
    }
  }

  // ---- checks ----
  line('## Output checks (outside the timing)');
  line();
  for (const chk of r.micro.checks) line(`- ${chk.ok ? 'ok' : '**FAILED**'} ${chk.name}: ${chk.detail}`);
  const csp = [...new Set([...(r.micro.cspViolations || []), ...r.mainThread.flatMap((run) => run.csp || [])])];
  line(`- CSP violations on the bench pages: ${csp.length ? csp.join('; ') : 'none'}`);
  line(`- Requests to the bench server outside dist/, vendor/, pages/ and inputs.json: ${r.outsideRequests.length ? r.outsideRequests.join(', ') : 'none'}`);
  line(`- API calls of a payment run (mocked): ${r.mainThread[0] ? r.mainThread[0].apiCalls.join(', ') : '-'}`);
  line();
  return `${out.join('\n')}\n`;
}

// ---- chart ----------------------------------------------------------------------------------------------

export function renderChart(r) {
  const W = 960;
  const labelW = 330;
  const plotW = 400;
  const rowH = 24;
  const parts = [];
  let y = 0;
  const text = (x, yy, s, opts = '') => parts.push(`<text x="${x}" y="${yy}" ${opts}>${esc(s)}</text>`);

  // Panel 1: how many times better ours is (alternative / ours), log scale.
  const compared = r.figures.filter((f) => f.alternative && f.ratio);
  const lo = 1 / 16;
  const hi = 32;
  const X = (v) => labelW + (Math.log2(Math.min(hi, Math.max(lo, v))) - Math.log2(lo)) / (Math.log2(hi) - Math.log2(lo)) * plotW;
  y = 24;
  text(10, y, 'paywasm vs alternatives: times faster / smaller (alternative ÷ ours, log scale); red tick = budget', 'class="title"');
  y += 14;
  const top = y + 6;
  const panel1H = compared.length * rowH + 24;
  for (const v of [1 / 16, 1 / 8, 1 / 4, 1 / 2, 1, 2, 4, 8, 16, 32]) {
    parts.push(`<line x1="${X(v)}" y1="${top}" x2="${X(v)}" y2="${top + panel1H - 20}" class="${v === 1 ? 'axis' : 'grid'}"/>`);
    text(X(v), top + panel1H - 6, v < 1 ? `1/${1 / v}` : `${v}×`, 'class="tick" text-anchor="middle"');
  }
  compared.forEach((f, i) => {
    const yy = top + i * rowH;
    const adv = 1 / f.ratio;
    text(labelW - 8, yy + 16, f.short || f.id, 'class="label" text-anchor="end"');
    const x0 = X(1);
    const x1 = X(adv);
    const cls = f.budget ? (f.budget.pass ? 'pass' : 'miss') : adv >= 1 ? 'good' : 'bad';
    parts.push(`<rect x="${Math.min(x0, x1)}" y="${yy + 5}" width="${Math.max(1, Math.abs(x1 - x0))}" height="${rowH - 10}" class="${cls}"/>`);
    if (f.budget && f.group !== 'size') {
      const m = f.budget.text.match(/([0-9.]+)×/);
      if (m) {
        const limit = Number(m[1]);
        const bx = f.budget.text.startsWith('≤') ? X(1 / limit) : X(limit);
        parts.push(`<line x1="${bx}" y1="${yy + 2}" x2="${bx}" y2="${yy + rowH - 2}" class="budget"/>`);
      }
    }
    const tag = f.budget ? (f.budget.pass ? ' — budget met' : ' — budget MISSED') : '';
    text(labelW + plotW + 10, yy + 16, `${f.ratioText}${tag}`, `class="value ${f.budget && !f.budget.pass ? 'misstext' : ''}"`);
  });
  y = top + panel1H + 18;

  // Panel 2: absolute budgets, share of the budget used (linear, 0-200%).
  const absolute = [];
  const size = r.figures.find((f) => f.id === 'size.total');
  if (size) absolute.push({ label: 'Transfer size, js + wasm gzip', value: size.ours, limit: 80 * KB, text: `${fmtKB(size.ours)} of ${fmtKB(80 * KB)}`, pass: size.budget.pass });
  const usable = r.figures.find((f) => f.id === 'usable');
  if (usable) absolute.push({ label: 'Cold start to usable, median', value: usable.ours.median, limit: 45, text: `${fmtMs(usable.ours.median)} of 45 ms`, pass: usable.budget.pass });
  const slowUsable = r.figures.find((f) => f.id === 'usable.slow4g');
  if (slowUsable && slowUsable.budget) {
    absolute.push({ label: 'To usable, slow phone (4× CPU, Slow 4G)', value: slowUsable.ours.median, limit: SLOW_USABLE_BUDGET_MS,
      text: `${fmtT(slowUsable.ours.median)} of ${fmtT(SLOW_USABLE_BUDGET_MS)}`, pass: slowUsable.budget.pass });
  }
  const slow = r.figures.find((f) => f.id === 'ready.slow4g');
  if (slow && slow.budget) {
    absolute.push({ label: 'To ready, slow phone (4× CPU, Slow 4G)', value: slow.ours.median, limit: SLOW_READY_BUDGET_MS,
      text: `${fmtT(slow.ours.median)} of ${fmtT(SLOW_READY_BUDGET_MS)}`, pass: slow.budget.pass });
  }
  const mem = r.figures.find((f) => f.id === 'memory.size');
  if (mem && mem.ours !== null) absolute.push({ label: 'WASM memory after 1,000 + 1,000 calls', value: mem.ours, limit: 2 * 1024 * 1024, text: `${fmtMB(mem.ours)} of 2.00 MB`, pass: mem.budget.pass });
  const mt = r.mainThread.filter((run) => run.trace).map((run) => run.trace.longestMs);
  if (mt.length) {
    const longest = Math.max(...mt);
    absolute.push({ label: 'Longest main-thread task (mount + payment)', value: longest, limit: 50, text: `${fmtMs(longest)} of 50 ms`, pass: longest <= 50 });
  }
  text(10, y, 'Share of the budget used (linear; the line is the budget)', 'class="title"');
  y += 14;
  const P = (share) => labelW + Math.min(2, share) / 2 * plotW;
  const top2 = y + 6;
  parts.push(`<line x1="${P(1)}" y1="${top2}" x2="${P(1)}" y2="${top2 + absolute.length * rowH}" class="budget"/>`);
  for (const v of [0, 0.5, 1, 1.5, 2]) text(P(v), top2 + absolute.length * rowH + 14, `${v * 100}%`, 'class="tick" text-anchor="middle"');
  absolute.forEach((a, i) => {
    const yy = top2 + i * rowH;
    text(labelW - 8, yy + 16, a.label, 'class="label" text-anchor="end"');
    parts.push(`<rect x="${P(0)}" y="${yy + 5}" width="${Math.max(1, P(a.value / a.limit) - P(0))}" height="${rowH - 10}" class="${a.pass ? 'pass' : 'miss'}"/>`);
    text(labelW + plotW + 10, yy + 16, `${a.text}${a.pass ? '' : ' — MISSED'}`, `class="value ${a.pass ? '' : 'misstext'}"`);
  });
  y = top2 + absolute.length * rowH + 30;
  text(10, y, `${r.meta.date.slice(0, 10)}, ${r.meta.mode} run, ${r.meta.browser}, commit ${r.meta.commit}`, 'class="tick"');
  const H = y + 10;

  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" role="img" aria-label="paywasm benchmark results">
<style>
text { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; font-size: 12px; fill: #1f2328; }
.title { font-size: 14px; font-weight: 600; }
.tick { font-size: 11px; fill: #59636e; }
.value { font-size: 12px; }
.misstext { fill: #b42318; font-weight: 600; }
.grid { stroke: #d0d7de; stroke-width: 1; }
.axis { stroke: #59636e; stroke-width: 1.5; }
.budget { stroke: #d1242f; stroke-width: 2.5; }
.pass { fill: #1a7f37; }
.miss { fill: #d1242f; }
.good { fill: #4f9e6b; }
.bad { fill: #bf8700; }
</style>
<rect width="100%" height="100%" fill="#ffffff"/>
${parts.join('\n')}
</svg>
`;
}
