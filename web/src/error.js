// PayWasmError: every failure of the API, with its text for the shopper in their language.
import { MESSAGES, pickLocale, translate } from './locales.js';

// Every failure the API reports. `code` is stable (the core's codes plus network, timeout,
// unsupported, internal); `message` is for developers; `userMessage` and `nextStep` are for the
// shopper, in `lang`; `field` names the input at fault.
export class PayWasmError extends Error {
  constructor(code, message, details) {
    super(message);
    const d = details || {};
    this.name = 'PayWasmError';
    this.code = code;
    this.field = d.field || null;
    this.httpStatus = d.httpStatus || 0;
    this.offerId = d.offerId || null;
    // A payment request that failed without a clear answer may still have been carried out.
    this.mayHaveGoneThrough = !!d.mayHaveGoneThrough;
    // The request never left the browser (offline, or blocked by the page's Content-Security-Policy):
    // nothing can have been paid, and the shopper may try again.
    this.notSent = !!d.notSent;
    // The origin the page's Content-Security-Policy (connect-src) blocked, or null.
    this.blocked = d.blocked || null;
    // The payment method it happened in ('exchange', 'bank', 'qr'), for that method's own wording.
    this.method = d.method || null;
    this.localize(d.lang);
  }

  // Sets userMessage and nextStep in language `lang` (default: the browser's); returns this.
  localize(lang) {
    const l = lang || pickLocale().lang;
    const code = this.blocked ? 'blocked' : this.code in MESSAGES.en ? this.code : 'internal';
    const own = `${code}.${this.method}`;
    // "message\nnext step" (web/build.mjs joins them)
    [this.userMessage, this.nextStep = ''] = translate(l, own in MESSAGES.en ? own : code).split('\n');
    if (this.mayHaveGoneThrough) {
      // What happened is the message; what the shopper does about it, the next step.
      this.nextStep = translate(l, 'mayHaveGoneThrough', { offerId: this.offerId || '-' });
    } else if (this.notSent && !this.blocked) {
      this.userMessage += ' ' + translate(l, 'notSent');
    }
    return this;
  }
}
