// fetch() as the thin transport under the core's sans-IO protocol: a timeout on every call,
// retries with back-off for safe GETs only, and errors as PayWasmError. A payment POST is sent
// once; when it fails without an answer, the error says it may have gone through.
import { PayWasmError } from './error.js';

export const sleep = (ms, signal) => new Promise((resolve, reject) => {
  const t = setTimeout(resolve, ms);
  if (signal) {
    signal.addEventListener('abort', () => {
      clearTimeout(t);
      reject(new PayWasmError('internal', 'aborted'));
    }, { once: true });
  }
});

// Back-off delay for attempt n (0-based): base * 2^n, capped, with +-20% jitter.
export function backoff(n, base, cap) {
  const d = Math.min(cap, base * 2 ** n);
  return Math.round(d * (0.8 + Math.random() * 0.4));
}

// Sends { method, url, headers: [[k, v]], body }; resolves { status, body }. options: timeoutMs,
// signal (the element's lifetime), retries (GET only, 300 ms back-off doubling to 5 s), credentials,
// payment (POST of a payment: failures without an answer carry mayHaveGoneThrough), keepalive (the
// request outlives the page), offerId, lang.
export async function send(req, options) {
  const o = options || {};
  const retries = req.method === 'GET' ? o.retries || 0 : 0;
  for (let attempt = 0; ; attempt++) {
    try {
      const res = await sendOnce(req, o);
      if (attempt < retries && (res.status >= 500 || res.status === 429)) {
        await sleep(backoff(attempt, 300, 5000), o.signal);
        continue;
      }
      return res;
    } catch (e) {
      if (o.signal && o.signal.aborted) throw e;
      if (attempt < retries && (e.code === 'network' || e.code === 'timeout')) {
        await sleep(backoff(attempt, 300, 5000), o.signal);
        continue;
      }
      throw e;
    }
  }
}

// Whether a request got out is what decides if a failed payment may have gone through. Two
// failures are known to send nothing: the browser is offline (navigator.onLine is false: nothing is
// tried), and the page's Content-Security-Policy blocks the URL (fetch() rejects, and the
// securitypolicyviolation event for that URL comes at most a task later). Those are `notSent`: the
// shopper may try again. Any other failure of a payment POST (timeout, a dropped connection, ...)
// may have reached the service.
async function sendOnce(req, o) {
  const fail = (code, message, notSent, blocked) => new PayWasmError(code, message, {
    mayHaveGoneThrough: !!o.payment && !notSent, notSent, blocked, offerId: o.offerId, lang: o.lang,
  });
  if (navigator.onLine === false) throw fail('network', `${req.method} ${req.url} was not sent: the browser is offline`, true);
  const controller = new AbortController();
  const timeoutMs = o.timeoutMs || 20000;
  let timedOut = false;
  let blocked = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const onAbort = () => controller.abort();
  const onViolation = (e) => { blocked = blocked || req.url.startsWith(e.blockedURI || ' '); };
  if (o.signal) o.signal.addEventListener('abort', onAbort, { once: true });
  document.addEventListener('securitypolicyviolation', onViolation);
  try {
    const res = await fetch(req.url, {
      method: req.method,
      headers: req.headers,
      body: req.method === 'GET' ? undefined : req.body,
      signal: controller.signal,
      credentials: o.credentials || 'omit',
      keepalive: !!o.keepalive,
      cache: 'no-store',
      referrerPolicy: 'strict-origin-when-cross-origin',
    });
    return { status: res.status, body: await res.text() };
  } catch (e) {
    if (timedOut) throw fail('timeout', `${req.method} ${req.url} got no answer within ${timeoutMs} ms`);
    if (o.signal && o.signal.aborted) throw new PayWasmError('internal', 'aborted');
    if (!blocked) await new Promise((resolve) => setTimeout(resolve, 0));
    if (!blocked) throw fail('network', `${req.method} ${req.url} failed: ${e.message}`);
    // The page's developer is told in the console, where they look: which origin to allow.
    const origin = new URL(req.url).origin;
    console.error(`paywasm: the page's Content-Security-Policy blocked a request to ${origin}: add ${origin} to its connect-src`);
    throw fail('network', `${req.method} ${req.url} was not sent: the page's Content-Security-Policy (connect-src) blocks it`, true, origin);
  } finally {
    clearTimeout(timer);
    if (o.signal) o.signal.removeEventListener('abort', onAbort);
    document.removeEventListener('securitypolicyviolation', onViolation);
  }
}

// Watches a status URL until onData(text) returns true (a final status) or the returned stop() is
// called: as server-sent events when `sse` is set (and EventSource exists), else by polling the
// JSON with back-off (interval * 2^n, at most 30 s). A stream that is refused (429, 503, 204, not
// an event stream) or keeps failing (3 errors without an event between them) is closed and the
// JSON polled instead, so a shopper is never left waiting on a stream that will not come.
// options: { sse, interval, signal (stops it too), onData(text) -> bool, onEnd() (after a final status) }.
export function watch(url, o) {
  const life = new AbortController();
  if (o.signal) o.signal.addEventListener('abort', () => life.abort(), { once: true });
  let source = null;
  const stop = () => {
    life.abort();
    if (source) source.close();
    source = null;
  };
  const finish = () => {
    stop();
    if (o.onEnd) o.onEnd();
  };
  const poll = async () => {
    for (let n = 0; !life.signal.aborted; n++) {
      try {
        await sleep(backoff(Math.min(n, 4), o.interval, 30000), life.signal);
        const res = await send({ method: 'GET', url, headers: [['Accept', 'application/json']] },
          { timeoutMs: 10000, signal: life.signal, credentials: 'same-origin' });
        if (res.status >= 200 && res.status < 300 && o.onData(res.body)) return finish();
      } catch (e) {
        if (life.signal.aborted) return;
      }
    }
  };
  if (o.sse && typeof EventSource === 'function') {
    source = new EventSource(url);  // no cookies: the session id in the URL is the credential
    let failures = 0;
    source.onopen = () => { failures = 0; };
    source.onmessage = (ev) => {
      failures = 0;
      if (o.onData(ev.data)) finish();
    };
    source.onerror = () => {
      if (life.signal.aborted || !source) return;
      failures++;
      if (source.readyState === EventSource.CLOSED || failures >= 3) {
        source.close();
        source = null;
        poll();
      }
    };
  } else {
    poll();
  }
  return stop;
}
