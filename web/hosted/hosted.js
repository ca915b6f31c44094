// The hosted checkout page's one script (paywasm-merchant, docs/merchant.md "No front end?").
// It reads what the gateway wrote into #hosted's data attributes (never markup), gives the widget
// the shopper's token when the deployment has a --shopper-token-url, counts down the session's
// time left, and once the gateway's verified status is a success, loads the page again: the
// gateway then answers the receipt.
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
  const el = document.querySelector('paywasm-checkout');
  const tokenUrl = conf.dataset.tokenUrl;
  if (el && tokenUrl) {
    // The shop's endpoint answers its signed-in shopper's bearer (text) with the shop's cookies.
    el.getShopperToken = async () => {
      const res = await fetch(tokenUrl, { credentials: 'include', headers: { Accept: 'text/plain' } });
      if (!res.ok) return '';
      // text/plain: the token itself; JSON: {"token": "..."}.
      if ((res.headers.get('Content-Type') || '').includes('json')) return String((await res.json()).token || '');
      return (await res.text()).trim();
    };
  }
  if (el) {
    el.addEventListener('paywasm-complete', () => { window.location.replace(conf.dataset.page); });
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
