// One checkout's state machine: what may be sent, and when. The element keeps one state object
// (freshState(); `phase` is mirrored as the host's custom states :state(idle) ... and, with an
// error shown, :state(error) and the `error` attribute):
//   idle      nothing of this order is under way: Pay is armed (with a valid order)
//   sending   one request is in flight (a payment POST, or the QR code's creation); reset() refuses
//   pending   a payment was taken and is not final yet (or money of a QR payment was seen)
//   final     paid, or money moved: every method stays locked for this order until reset()
//   ambiguous a payment request failed without a clear answer: it may have gone through; locked
//             until reset() (after the merchant checked the order); in session mode also while
//             the gateway holds Pay (`hold`: its payable, not armed), until it arms Pay again
// Every flow that sends goes through busy() in flows.js (one request at a time, the busy look, the
// outcome's phase); a status moves the phase with phaseOf(); reset() and an error of a request that
// certainly sent nothing (PayWasmError.notSent, or anything before the request) go back to idle.
// What a status means is the core's answer (describeStatus(code, method): final, taken), never
// decided here.

// The phase a status of the core's table moves the order to: nothing taken (taken: none) -> idle,
// the shopper may pay (again); money taken or maybe taken (some, all, maybe: an unknown code, a
// refund) -> final when the status is final, else pending. Only idle arms Pay.
export const phaseOf = (info) => (info.taken === 'none' ? 'idle' : info.final ? 'final' : 'pending');

// The state of a checkout with nothing under way. method: the chosen method; exchange: the chosen
// exchange; status: the payment's status as web/src/status.js reads it (the core's row, the
// amounts owed); error: the PayWasmError shown;
// bad: the validation error of the page's order; greeting: the shopper's first name; qr: the QR
// code shown ({ result, uri, svg, end }); hold: in session mode, the gateway's `payable` while it
// is not armed (an attempt that may have taken money, or a session paid, expired or closed; flows.js
// holdPay), or null; madeWith: { method, exchange } of the payment this page made (flows.js pay), or null.
export function freshState() {
  return {
    phase: 'idle', method: null, exchange: null, code2fa: '', savePassword: false,
    status: null, error: null, bad: null, greeting: null, qr: null, hold: null, madeWith: null,
  };
}
