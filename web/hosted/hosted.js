// The hosted checkout page's one script (paywasm-merchant, docs/merchant.md "No front end?").
// It reads what the gateway wrote into #hosted's data attributes (never markup), gives the widget
// the shopper's token when the deployment has a --shopper-token-url, counts down the session's
// time left, and once the gateway's verified status is a success or the shop decided the order
// (accepted, paid elsewhere, closed), loads the page again: the gateway then answers the receipt
// or the end.
(() => {
  'use strict';
  // Content-Security-Policy violations of this page, for an operator checking a deployment from the
  // console (and the browser suite): window.paywasmHosted.violations.
  const seen = { violations: [] };
  window.paywasmHosted = seen;
  document.addEventListener('securitypolicyviolation', (e) => {
    seen.violations.push(`${e.violatedDirective} ${e.blockedURI}`);
  });
  const conf = document.getElementById('hosted');
  const print = document.getElementById('print');
  if (print) print.addEventListener('click', () => window.print());
  if (!conf) return;
  // A page answered at a payment link's URL is its session's page: the address bar says so, so a
  // reload or a bookmark comes back to this session instead of opening another.
  if (conf.dataset.page && location.pathname !== conf.dataset.page) history.replaceState(null, '', conf.dataset.page);
  const el = document.querySelector('paywasm-checkout');
  const tokenUrl = conf.dataset.tokenUrl;
  if (el && tokenUrl) {
    // The shop's endpoint answers its signed-in shopper's bearer (text) with the shop's cookies.
    // Set once the element is defined (paywasm.js runs after this script): a property set on the
    // element before would hide the element's own getShopperToken setter.
    // text/plain: the token itself; JSON: {token, stockId?, bankAccount?}, the last two the
    // shopper's connected bank account (the bank method's stock-id and bank-account).
    const ask = async () => {
      const res = await fetch(tokenUrl, { credentials: 'include', headers: { Accept: 'application/json, text/plain' } });
      if (!res.ok) return {};
      if ((res.headers.get('Content-Type') || '').includes('json')) return res.json();
      return { token: (await res.text()).trim() };
    };
    let first = ask().catch(() => ({}));
    first.then((answer) => {
      for (const [key, attr] of [['stockId', 'stock-id'], ['bankAccount', 'bank-account']]) {
        if (typeof answer[key] === 'string' && answer[key]) el.setAttribute(attr, answer[key]);
      }
    });
    customElements.whenDefined('paywasm-checkout').then(() => {
      el.getShopperToken = async () => {
        // The answer asked at load for the first call, a fresh one after (a token may expire).
        const answer = first ? await first : await ask().catch(() => ({}));
        first = null;
        return typeof answer.token === 'string' ? answer.token : '';
      };
    });
  }
  if (el) {
    el.addEventListener('paywasm-complete', () => { window.location.replace(conf.dataset.page); });
  }
  // The shop's decisions while the page is open (an underpayment accepted, a code it found paid, the
  // order closed): the widget follows the service's status, the gateway's stream also says them in
  // `payable` (held: paid or closed). A later version than this page's loads the page again: the
  // gateway answers the receipt or the end. (Never the version the page shows: no reload loop.)
  const shown = Number(conf.dataset.version);
  if (el && conf.dataset.status && Number.isFinite(shown)) {
    const stream = new EventSource(conf.dataset.status);
    stream.addEventListener('message', (e) => {
      let payable = null;
      try {
        payable = JSON.parse(e.data).payable;
      } catch (err) {
        return;
      }
      if (Number(e.lastEventId) > shown && payable && payable.armed === false && ['paid', 'closed'].includes(payable.reason)) {
        stream.close();
        window.location.replace(conf.dataset.page);
      }
    });
  }
  const left = document.getElementById('time-left');
  const expires = Date.parse(conf.dataset.expires);
  if (left && Number.isFinite(expires)) {
    const tick = () => {
      const s = Math.max(0, Math.round((expires - Date.now()) / 1000));
      left.textContent = s > 0 ? `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}` : conf.dataset.expired;
      if (s === 0) {
        clearInterval(timer);
        window.location.replace(conf.dataset.page);
      }
    };
    const timer = setInterval(tick, 1000);
    tick();
  }
})();
