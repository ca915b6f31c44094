// Formatting for the shopper: amounts as they read them, in their language. No state, no drawing:
// the view (view.js) and the element's first draw (element.js) call these.
import { currency, locale } from './context.js';

// Intl.NumberFormat objects, kept per locale and currency (null: crypto amounts, all their digits).
// The first one of a page loads ICU data (10-30 ms): see connectedCallback. A symbol that several
// currencies use ('$', '¥') is replaced by the ISO code outside the currency's own country (the
// locale's likely region: "en" is en-US): German "25,80 USD", never "25,80 $"; English "$25.80".
const numberFormats = new Map();
function numberFormat(tag, code) {
  const key = `${tag} ${code || ''}`;
  let f = numberFormats.get(key);
  if (!f) {
    const style = { style: 'currency', currency: code };
    f = code ? new Intl.NumberFormat(tag, style) : new Intl.NumberFormat(tag, { maximumFractionDigits: 18 });
    if (code && /^[$¥]$/.test(f.formatToParts(1).find((p) => p.type === 'currency').value)
        && new Intl.Locale(tag).maximize().region !== code.slice(0, 2)) {
      f = new Intl.NumberFormat(tag, Object.assign(style, { currencyDisplay: 'code' }));
    }
    numberFormats.set(key, f);
  }
  return f;
}

// Whether `code` is money Intl can format as a currency (an ISO 4217 code: USD, EUR, ...), or a
// crypto asset (BTC, ETH, ...). Without Intl.supportedValuesOf (before Safari 15.4), the shop's own
// currency is the only fiat one.
let isoCurrencies = null;
function isFiat(c, code) {
  if (!isoCurrencies) {
    try { isoCurrencies = new Set(Intl.supportedValuesOf('currency')); } catch (e) { isoCurrencies = new Set(); }
  }
  return isoCurrencies.has(code) || code === currency(c);
}

// An amount as the shopper reads it, the same way wherever it is shown: fiat with Intl's currency
// style ("$82.00", German "82,00 USD"), crypto with all its digits and the code ("0.00128126 BTC").
// value: decimal text (a number is shown as JS writes it); never throws ('' for no value).
export function money(c, value, code) {
  if (value === null || value === undefined || value === '') return '';
  const v = String(value);
  const upper = String(code || '').toUpperCase();
  try {
    const tag = locale(c).tag;
    if (upper && isFiat(c, upper)) return numberFormat(tag, upper).format(v);
    return `${numberFormat(tag, null).format(v)} ${upper}`.trim();
  } catch (e) {
    return `${v} ${upper}`.trim();
  }
}

// An { amount, currency } (or null: '').
export const moneyOf = (c, m) => (m ? money(c, m.amount, m.currency) : '');

// Whether a decimal text the core wrote is above zero (it writes no sign and no exponent).
export const aboveZero = (amount) => /[1-9]/.test(amount);

// Seconds left as m:ss.
export const clock = (seconds) => `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
