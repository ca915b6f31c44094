// fetch() as the thin transport under the core's sans-IO protocol: a timeout on every call,
// retries with back-off for safe GETs only, and errors as PayWasmError. A payment POST is sent
// once; when it fails without an answer, the error says it may have gone through.

const sleep = (ms, signal) => new Promise((resolve, reject) => {
  const t = setTimeout(resolve, ms);
  if (signal) {
    signal.addEventListener('abort', () => {
      clearTimeout(t);
      reject(new PayWasmError('internal', 'aborted'));
    }, { once: true });
  }
});

// Back-off delay for attempt n (0-based): base * 2^n, capped, with +-20% jitter.
function backoff(n, base, cap) {
  const d = Math.min(cap, base * 2 ** n);
  return Math.round(d * (0.8 + Math.random() * 0.4));
}

// Sends { method, url, headers: [[k, v]], body }; resolves { status, body, contentType }.
// options: timeoutMs, signal (the element's lifetime), retries (GET only), credentials, payment
// (POST of a payment: failures without an answer carry mayHaveGoneThrough), offerId.
async function send(req, options) {
  const o = options || {};
  const retries = req.method === 'GET' ? o.retries || 0 : 0;
  for (let attempt = 0; ; attempt++) {
    try {
      const res = await sendOnce(req, o);
      if (attempt < retries && (res.status >= 500 || res.status === 429)) {
        await sleep(backoff(attempt, o.backoffMs || 300, 5000), o.signal);
        continue;
      }
      return res;
    } catch (e) {
      if (o.signal && o.signal.aborted) throw e;
      if (attempt < retries && (e.code === 'network' || e.code === 'timeout')) {
        await sleep(backoff(attempt, o.backoffMs || 300, 5000), o.signal);
        continue;
      }
      throw e;
    }
  }
}

async function sendOnce(req, o) {
  const controller = new AbortController();
  const timeoutMs = o.timeoutMs || 20000;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const onAbort = () => controller.abort();
  if (o.signal) o.signal.addEventListener('abort', onAbort, { once: true });
  const fail = (code, message) => new PayWasmError(code, message, {
    mayHaveGoneThrough: !!o.payment, offerId: o.offerId, lang: o.lang,
  });
  try {
    const res = await fetch(req.url, {
      method: req.method,
      headers: req.headers,
      body: req.method === 'GET' ? undefined : req.body,
      signal: controller.signal,
      credentials: o.credentials || 'omit',
      cache: 'no-store',
      referrerPolicy: 'strict-origin-when-cross-origin',
    });
    const body = await res.text();
    return { status: res.status, body, contentType: res.headers.get('Content-Type') || '' };
  } catch (e) {
    if (timedOut) throw fail('timeout', `${req.method} ${req.url} got no answer within ${timeoutMs} ms`);
    if (o.signal && o.signal.aborted) throw new PayWasmError('internal', 'aborted');
    throw fail('network', `${req.method} ${req.url} failed: ${e.message}`);
  } finally {
    clearTimeout(timer);
    if (o.signal) o.signal.removeEventListener('abort', onAbort);
  }
}
