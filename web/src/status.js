// A payment's status as the checkout keeps it, read from whatever told it (the service's answer to
// the payment, the merchant gateway's status view, a merchant's own status-url answering a
// transaction). What the status means is the core's row for its code and method (describeStatus:
// final, success, taken, tone, next, label) and what is owed is the core's too (amountsOwed): this
// file only picks the fields, decides nothing about money, and never throws for a bad amount (the
// amounts are then left out, and the view says what it can without them).

// An amount of an answer with its currency as { amount, currency } (amount as decimal text), or null.
// A JSON number, which a merchant's status-url may send, becomes its JS text ('0.0004'; one the core
// cannot read, such as 1e-7, is refused by the core later and the amounts are left out).
function money(amount, currency) {
  const text = typeof amount === 'number' && Number.isFinite(amount) ? String(amount) : amount;
  return typeof text === 'string' && text !== '' && typeof currency === 'string' && currency !== ''
    ? { amount: text, currency: currency.toUpperCase() } : null;
}
// The payment's reference at the service (its transaction id), as text, or null.
const reference = (id) => (typeof id === 'string' && id !== '' ? id : null);
const moneyOf = (m) => (m && typeof m === 'object' ? money(m.amount, m.currency) : null);

// The merchant gateway's status view ({sessionId, offerId, status, method, orderTotal, expected,
// received, remaining, ...}; docs/merchant.md) is not a transaction: its amounts are only the named
// ones, each with its currency, so the order's fiat total can never be read as the crypto amount.
const METHODS = ['exchange', 'bank', 'qr'];

export const isGatewayView = (data) => typeof data.sessionId === 'string';

// The status of one answer, or null when it has no integer status (a gateway session nothing was
// paid in yet). data: the answer's object; method: the payment's method as the checkout knows it
// (it made the payment), else the gateway view's `method` (a session's earlier status; the gateway
// cannot always tell a bank payment from an exchange one), else null (the core's QR reading); asks: the
// { amount, currency } the payment asks for when a transaction leaves it out (a QR code's crypto
// amount from its payment URI, or the payment's earlier answer); id, meta: the payment's (a status
// answer may lack them). Returns { info, method, transaction, total, expected, received, remaining,
// offerId, reference }: info the core's row; total the order's amount in the shop's currency; expected,
// received, remaining what the core computed (or the gateway did, with the core), in the currency
// the shopper pays in, each { amount, currency } or null; offerId the shop's order id when the
// answer names it (the gateway view), else null; reference the payment's transaction id, or null.
export function readStatus(core, data, { method = null, asks = null, id, meta } = {}) {
  if (!data || !Number.isInteger(data.status)) return null;
  const gateway = isGatewayView(data);
  const how = method || (gateway && METHODS.includes(data.method) && data.method) || null;
  const info = core.describeStatus(data.status, how || undefined);
  const transaction = Object.assign({ id, meta }, data);
  const out = {
    info, method: how, transaction, total: null, expected: null, received: null, remaining: null,
    offerId: gateway && typeof data.offerId === 'string' ? data.offerId : null,
    reference: reference((gateway && data.transactionId) || transaction.id),
  };
  if (gateway) {
    out.total = moneyOf(data.orderTotal);
    out.expected = moneyOf(data.expected);
    out.received = moneyOf(data.received);
    out.remaining = moneyOf(data.remaining);
    return out;
  }
  out.total = money(data.nativeAmount, data.nativeCurrency);
  return Object.assign(out, owed(core, info, how, money(data.amount, data.currency) || asks, data.receivedAmount));
}

// The status of a payment's immediate answer (the core's parseResponse: { transaction, status }):
// a numeric status is read again with the method (its next step may be the method's own), a status
// word keeps the core's reading of the word.
export function readAnswer(core, parsed, method) {
  const tx = parsed.transaction || {};
  if (typeof tx.status === 'number') return readStatus(core, tx, { method, id: tx.id, meta: tx.meta });
  const info = parsed.status;
  return Object.assign({ info, method, transaction: tx, total: money(tx.nativeAmount, tx.nativeCurrency), offerId: null,
    reference: reference(tx.id) },
    owed(core, info, method, money(tx.amount, tx.currency), tx.receivedAmount));
}

// The core's amountsOwed of a payment asking for `asks` with `received` arrived, or null amounts when
// the payment's amount is unknown or is not a decimal the core reads.
function owed(core, info, method, asks, received) {
  const none = { expected: null, received: null, remaining: null };
  if (!asks) return none;
  const got = money(received, asks.currency);
  try {
    return core.amountsOwed({ code: info.code, method: method || undefined, amount: asks.amount, currency: asks.currency,
      receivedAmount: got ? got.amount : undefined });
  } catch (e) {
    return none;
  }
}
