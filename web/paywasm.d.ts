// Type definitions for paywasm (paywasm.js / paywasm.mjs). Hand-written; see docs/widget.md.

/** Stable error codes: the core's (paywasm/error.hpp ErrorCode, but `io`, the CLI's files) and the
 *  browser's own: unsupported (the loader), internal, amount_mismatch (the merchant's status-url, the
 *  gateway, reports another amount paid than the order's), gateway and rate_limited (session mode: an
 *  attempt not registered). tests/browser/run.mjs compares them. */
export type PayWasmErrorCode =
  | 'validation' | 'invalid_key' | 'key_mismatch' | 'crypto' | 'invalid_qr'
  | 'bad_response' | 'unauthorized' | 'not_found' | 'server'
  | 'authentication_failed' | 'insufficient_balance' | 'whitelist_pending'
  | 'wallet_unsupported' | 'below_minimum'
  | 'network' | 'timeout' | 'usage' | 'unsupported' | 'internal' | 'amount_mismatch'
  /** Session mode: the gateway could not register the attempt of the payment (no answer, or an answer
   *  other than 201/409/410), or refused it as too many (429): the payment was not sent (notSent). */
  | 'gateway' | 'rate_limited'
  /** Session mode: session-url answered 410, the checkout session expired (nothing can be paid on it). */
  | 'session_expired';

/** Every failure of the API and the element. Never a raw string. */
export class PayWasmError extends Error {
  readonly name: 'PayWasmError';
  readonly code: PayWasmErrorCode;
  /** For developers (English, names the field and the reason). */
  readonly message: string;
  /** For the shopper, localized (see localize()). */
  userMessage: string;
  /** What the shopper can do next, localized; '' when nothing. */
  nextStep: string;
  /** Path of the input at fault, e.g. "cart[2].quantity", or null. */
  readonly field: string | null;
  /** HTTP status of the answer that caused it, or 0. */
  readonly httpStatus: number;
  /** A payment request failed without a clear answer: it may have been carried out. */
  readonly mayHaveGoneThrough: boolean;
  /** The order id to quote to support when mayHaveGoneThrough. */
  readonly offerId: string | null;
  /**
   * The request certainly never left the browser (it was offline, or the page's
   * Content-Security-Policy blocked the URL): nothing was paid and the shopper may try again.
   */
  readonly notSent: boolean;
  /** The origin the page's Content-Security-Policy (connect-src) blocked (notSent is then true; the
   *  console names it too), or null. */
  readonly blocked: string | null;
  /** The payment method it happened in, when it happened in one (its own wording: 419 of a bank payment speaks of the bank account). */
  method: Method | null;
  /** Re-localizes userMessage and nextStep ('en' | 'es' | 'fr' | 'de' | 'pt-BR' | 'pt-PT'); returns this. */
  localize(lang?: string): this;
}

export type Padding = 'oaep-sha1' | 'oaep-sha256' | 'pkcs1v15';
export type Ecc = 'L' | 'M' | 'Q' | 'H';

/** A cart line in the exchange/bank form. Numbers are written to the payload exactly as JSON.stringify writes them. */
export interface CartItem {
  id: string;
  name: string;
  price: number;
  quantity: number;
  /** Defaults to price in the element. */
  localAmount?: number;
  /** Defaults to the element's currency. */
  localCurrency?: string;
}

export interface ShippingAddress {
  firstname?: string; lastname?: string; phoneNo?: string; address1?: string; address2?: string;
  state?: string; city?: string; zipcode?: string; country?: string; landmark?: string; email?: string;
}

/** Plaintext of POST /exchanges/payments/{exchange} (before encryption). */
export interface ExchangeOrder {
  clientId: string;
  assets: string;
  cart: CartItem[];
  shippingAddress: ShippingAddress;
  offerId: string;
  /** Decimal text; must equal sum(price * quantity). Left out, the core sets the cart total. */
  nativeAmount?: string;
  savepassword: boolean;
  code2fa: string;
  merchantStoreCurrency: string;
}

/** Plaintext of POST /purchases (deprecated bank payment). */
export interface BankOrder {
  clientId: string;
  /** The cart total; left out, the core sets it. */
  amount?: number;
  accountId: string;
  cart: CartItem[];
  stockId: string;
  offerId: string;
  merchantStoreCurrency: string;
  hostedPageId: string;
  shippingAddress: ShippingAddress;
}

// The status types below are paywasm/status.hpp's enums (StatusKind, MoneyTaken, Tone, NextStep,
// PayMethod as Method), value for value: tests/browser/run.mjs parses the header and compares.
export type StatusKind =
  | 'awaiting_payment' | 'pending' | 'processing' | 'success' | 'failed' | 'partial'
  | 'partial_closed' | 'timed_out' | 'canceled' | 'refund' | 'unknown';

/** Whether the shopper's money moved: none (paying again is safe), maybe (it may have been: never
 *  offer to pay again), some (part of the amount), all (the whole amount, maybe not yet settled). */
export type MoneyTaken = 'none' | 'maybe' | 'some' | 'all';
/** The look a UI gives a status (the element's status box has it as data-tone). */
export type StatusTone = 'info' | 'success' | 'warning' | 'error';
/** What the shopper does next: pay (nothing yet), wait (money on its way), pay_rest (send what is
 *  still owed to the same address), pay_again (nothing was taken), contact_shop, done (paid). */
export type NextStep = 'pay' | 'wait' | 'pay_rest' | 'pay_again' | 'contact_shop' | 'done';

/** The core's row of a status (one table: paywasm/status.hpp; `paywasm status-table` prints it). */
export interface StatusInfo {
  code: number;
  kind: StatusKind;
  /** No further change expected. */
  final: boolean;
  /** The order is paid: the only status a shop ships on. */
  success: boolean;
  taken: MoneyTaken;
  tone: StatusTone;
  /** Per method: a QR code's partial payment is pay_rest, an exchange's or a bank's contact_shop. */
  next: NextStep;
  /** Short English meaning. */
  label: string;
}

/** An amount with its currency; amount is exact decimal text ("0.00128126"), currency upper case
 *  ("BTC", "USD"). */
export interface Money {
  amount: string;
  currency: string;
}

/** What a payment asks for, what arrived and what is still owed, in the currency the shopper pays
 *  in (crypto for a QR code, never the order's fiat total). */
export interface AmountsOwed {
  expected: Money;
  /** Zero when nothing was reported. */
  received: Money;
  /** expected - received, never below zero; zero once the status is a success. */
  remaining: Money;
}

export interface PaymentUri {
  scheme: string;
  address: string;
  amount: string;
  value: string;
}

export interface PaymentRequestInput {
  method: 'exchange' | 'bank';
  /** The payload in the service's shape; nativeAmount/amount and the lines' local fields may be left out. */
  order: ExchangeOrder | BankOrder;
  /** The merchant's public key, PEM or DER. */
  key: string;
  /** Pin: hex SHA-256 of the key's SPKI, any case, ':' allowed. */
  fingerprint?: string;
  padding?: Padding;
  /** The shopper's token: used for this request only. */
  token: string;
  baseUrl: string;
  /** Exchange payments: the exchange, and the allowed list (default: the five documented). */
  exchange?: string;
  exchanges?: string[];
  /** A gateway session's fixed amount (decimal text): a cart that adds up to another is refused, nothing is encrypted. */
  sessionAmount?: string;
}

/** A request the core built, for fetch(). */
export interface HttpRequestInit {
  method: string;
  url: string;
  headers: Array<[string, string]>;
  body: string;
}

/** The loaded core. Every method is synchronous and throws PayWasmError. */
export interface PayWasmCore {
  /** RSA-encrypts plaintext to the public key (PEM or DER); base64, chunked per block. */
  encrypt(publicKeyPem: string, plaintext: string, options?: { padding?: Padding; fingerprint?: string }): string;
  /** Lower-case hex SHA-256 of the key's SubjectPublicKeyInfo. */
  keyFingerprint(publicKeyPem: string): string;
  keyInfo(publicKeyPem: string): { fingerprint: string; bits: number };
  /** SVG markup of the QR code (border in modules, 0..16; default ecc 'M', border 4). */
  qrSvg(text: string, options?: { ecc?: Ecc; border?: number }): string;
  qrMatrix(text: string, options?: { ecc?: Ecc }): { size: number; modules: Uint8Array };
  /**
   * Validated canonical JSON text of the exchange payload, with the core's defaults: nativeAmount :=
   * the cart total, each line's localAmount := its price, localCurrency := merchantStoreCurrency.
   */
  exchangePayload(order: ExchangeOrder): string;
  /** Validated canonical JSON text of the bank payload (defaults as above; amount := the cart total). */
  bankPayload(order: BankOrder): string;
  /** Exact decimal text of sum(price * quantity); an item that is not a CartItem throws, naming it. */
  cartTotal(cart: CartItem[]): string;
  /**
   * The total (exact decimal text) of an exchange order as exchangePayload() would send it, every
   * rule of the payload checked; with `sessionAmount` (a gateway session's fixed amount, decimal
   * text) a cart that adds up to another amount is refused (PayWasmError validation, field 'cart').
   */
  checkOrder(order: ExchangeOrder, sessionAmount?: string): string;
  /** The request of one exchange or bank payment, built by the core (defaults, validation, encryption). */
  paymentRequest(p: PaymentRequestInput): HttpRequestInit;
  /** GET /users/me with the shopper's token. */
  usersMeRequest(token: string, baseUrl: string): HttpRequestInit;
  /** The core's reading of an answer; throws the typed error (418-422 included). */
  parseResponse(endpoint: 'exchange-pay' | 'bank-pay', response: { status: number; body: string }): { transaction: Record<string, unknown>; status: StatusInfo };
  parseResponse(endpoint: 'users-me', response: { status: number; body: string }): { firstName: string; fullname: string };
  checkPaymentUri(uri: string): PaymentUri;
  /** The core's row of a status code for a method (left out: the QR reading), or of an immediate status word. */
  describeStatus(codeOrWord: number | string, method?: Method): StatusInfo;
  /** What a payment asks for, what arrived and what is still owed, from exact decimals; throws
   *  validation for an amount that is not decimal text, a negative one or no currency. */
  amountsOwed(p: { code: number; method?: Method; amount: string; currency: string; receivedAmount?: string }): AmountsOwed;
  /** Bytes of WebAssembly linear memory now (it only grows): for leak checks and benchmarks. */
  memoryBytes(): number;
  /** Low level: any operation of the module (see src/wasm/ops.cpp). */
  call(op: string, args: Record<string, unknown>): unknown;
}

export interface LoadOptions {
  /** Where paywasm.wasm is; default: beside the script. A browser without WebAssembly SIMD128
   *  fetches paywasm-nosimd.wasm from the same folder instead. */
  wasmUrl?: string;
  /** SRI of the module fetched (either file: a space-separated list may hold both values); default:
   *  the value built into the script for that file; '' to skip the check. */
  integrity?: string;
}

/** The QR transaction created by the merchant's server (POST /purchase/qr/generate result). */
export interface QrResult {
  totalAmount: string;
  currency: string;
  crytoCurrency: string;
  id: string;
  meta: { offerId: string; receiverAddress: string; qrString: string };
  /** Optional current status code (default 10). */
  status?: number;
  /** Optional, added by your server: when the code stops being payable (ISO 8601 time or ms since 1970): a countdown, then "New code". */
  expiresAt?: string | number;
}

export type Method = 'exchange' | 'bank' | 'qr';

/** Options of mount() and update(): the attributes in camelCase (web/src/attributes.js), and the object properties. */
export interface CheckoutOptions {
  /**
   * The merchant gateway's checkout session (`/v1/checkout/{id}`): the order, the amount the server
   * fixed, key and pin, methods and service URL are read from it; QR and statuses go through it.
   * An option given beside it wins.
   */
  sessionUrl?: string;
  baseUrl?: string;
  merchantId?: string;
  publicKey?: string;
  publicKeyUrl?: string;
  keyFingerprint?: string;
  /** Default 'USD'. */
  currency?: string;
  offerId?: string;
  /**
   * The order's total as your server fixed it (decimal text in `currency`): shown before the module is
   * in; the core refuses Pay when the cart adds up to another amount.
   */
  amount?: string;
  /** Space-separated: 'exchange bank qr'. Default 'exchange qr'. */
  methods?: string;
  /** Space-separated exchange identifiers. Default: all five documented ones. */
  exchanges?: string;
  /** Crypto asset code of the exchange payment and the QR request. Default 'BTC'. */
  asset?: string;
  /** Default 'oaep-sha1'. */
  padding?: Padding;
  locale?: string;
  /** Default 'light'. */
  theme?: Theme;
  /** Request timeout in milliseconds (default 20000). */
  timeout?: number | string;
  accountId?: string;
  /** The shopper's connected bank account id at the service, from your server (never asked of the shopper). */
  stockId?: string;
  /** How the shopper knows that connected bank account ('Checking ••6789'), from your server: shown as the account that pays. */
  bankAccount?: string;
  hostedPageId?: string;
  qrEndpoint?: string;
  statusUrl?: string;
  /** Default 'poll'. */
  statusMode?: 'poll' | 'sse';
  /** First polling delay in milliseconds (default 2000). */
  statusInterval?: number | string;
  wasmUrl?: string;
  cart?: CartItem[];
  shippingAddress?: ShippingAddress;
  /** Called before each request that needs it; the token is never stored by the widget. */
  getShopperToken?: () => Promise<string | null | undefined> | string | null | undefined;
  qrResult?: QrResult | { ok: boolean; result: QrResult };
}

export type Theme = 'light' | 'dark' | 'auto';

/** One payment attempt of a gateway session, as its checkout view lists them (`attempts`): the
 *  browser's word, stored as such (docs/merchant.md). */
export interface CheckoutAttempt {
  attemptId: string;
  method: 'exchange' | 'bank';
  /** ISO 8601. */
  createdAt: string;
  /** registered: no report yet; answered: a transaction, no verified outcome; unknown: a failure that
   *  does not prove nothing was stored; refused: a documented refusal (418-422); no_money, paid: a
   *  verified webhook's; released, not_paid, paid_elsewhere: the merchant's resolution. */
  state: 'registered' | 'answered' | 'unknown' | 'refused' | 'no_money' | 'paid' | 'released' | 'not_paid' | 'paid_elsewhere';
  transactionId: string | null;
  error: { code: string; httpStatus: number | null } | null;
}

/** Whether a gateway session may be paid (`payable` of its checkout view and of its status events):
 *  the widget arms Pay only while `armed` is true; otherwise it shows the reason (in_progress: with
 *  the transaction; unknown, registered: not known whether the payment reached the service). */
export interface Payable {
  armed: boolean;
  reason: 'none' | 'in_progress' | 'unknown' | 'registered' | 'paid' | 'expired' | 'closed';
  attemptId: string | null;
  transactionId: string | null;
}

/** What the widget reads of a gateway session (`GET /v1/checkout/{id}`, session-url). */
export interface CheckoutSessionView {
  offerId: string;
  amount: string;
  currency: string;
  cart: CartItem[];
  shippingAddress?: Record<string, string>;
  methods: Method[];
  merchantId: string;
  publicKey: string;
  keyFingerprint: string;
  padding: string;
  serviceUrl: string;
  /** The gateway's status view so far, or null. */
  status: Record<string, unknown> | null;
  attempts: CheckoutAttempt[];
  payable: Payable;
}

/**
 * The order's state machine, also the element's custom states (:state(idle), ...; plus
 * :state(error) while an error is shown, with the host attribute error="<code>").
 * idle: Pay is armed; sending: a request is in flight; pending: a payment was taken, not final;
 * final: paid, or money moved (every method locked for the order; the form gives way to the
 * status); ambiguous: a payment may have gone through (locked until reset(); in session mode,
 * also while the gateway's `payable` is not armed, until it is).
 */
export type Phase = 'idle' | 'sending' | 'pending' | 'final' | 'ambiguous';

export interface StatusDetail {
  status: StatusInfo;
  /** The transaction as the service (or the status-url: a transaction, or the gateway's status view) returned it. */
  transaction: Record<string, unknown>;
  /** The payment's method; null when neither the page nor the answer says (a session's earlier status). */
  method: Method | null;
  /** What the payment asks for, in the currency the shopper pays in (crypto for a QR code); null when unknown. */
  expected: Money | null;
  /** What arrived of it (same currency); null when unknown. */
  received: Money | null;
  /** What is still owed (same currency; what a partial payment's Copy button copies); null when unknown. */
  remaining: Money | null;
  /** The payment's reference at the service (its transaction id), shown to the shopper once paid; null when unknown. */
  reference: string | null;
  /** Your order id (offer-id, or the session's); null when neither says. On paywasm-complete, what a page moves on with. */
  offerId: string | null;
}

export interface PayWasmEventMap {
  /** Lifecycle, like an <img>'s (not bubbling): loadstart, then load or error, then loadend. */
  'loadstart': Event; 'load': Event; 'error': Event; 'loadend': Event;
  /** The form is drawn and takes input (before the module, which paywasm-ready waits for). */
  'paywasm-usable': CustomEvent<{ methods: Method[] }>;
  /** The module is loaded and the form shown: everything works (unchanged meaning). */
  'paywasm-ready': CustomEvent<{ methods: Method[] }>;
  'paywasm-status': CustomEvent<StatusDetail>;
  'paywasm-complete': CustomEvent<StatusDetail>;
  'paywasm-error': CustomEvent<{ error: PayWasmError }>;
}

type ShortEvent = 'usable' | 'ready' | 'status' | 'complete' | 'error';
type DetailOf<T extends ShortEvent> = PayWasmEventMap[`paywasm-${T}`]['detail'];

export interface CheckoutController {
  readonly element: PayWasmCheckoutElement;
  on<T extends ShortEvent>(type: T | `paywasm-${T}`, fn: (detail: DetailOf<T>, event: PayWasmEventMap[`paywasm-${T}`]) => void): () => void;
  off<T extends ShortEvent>(type: T | `paywasm-${T}`, fn: (...args: any[]) => void): void;
  update(options: CheckoutOptions): void;
  /** The element's ready promise (see PayWasmCheckoutElement.ready). */
  readonly ready: Promise<{ methods: Method[] }>;
  /** The element's reset(): false, changing nothing, while a request is in flight. */
  reset(): boolean;
  /** Removes listeners, stops network activity; removes the element if mount() created it. */
  destroy(): void;
}

export interface PayWasmCheckoutElement extends HTMLElement {
  // The attributes as properties (web/src/attributes.js): a number one reads as a number (its default
  // when absent), a string one as the attribute, else its default, else null.
  sessionUrl: string | null;
  baseUrl: string | null; merchantId: string | null; publicKey: string | null; publicKeyUrl: string | null;
  keyFingerprint: string | null; currency: string; offerId: string | null; amount: string | null; methods: string;
  exchanges: string | null; asset: string; padding: Padding | string; locale: string | null;
  theme: Theme | string; timeout: number; accountId: string | null; stockId: string | null;
  bankAccount: string | null; hostedPageId: string | null; qrEndpoint: string | null; statusUrl: string | null;
  statusMode: 'poll' | 'sse' | string; statusInterval: number; wasmUrl: string | null;
  /**
   * Resolves with { methods } once the core is loaded and the form shown (also for a listener that
   * comes after paywasm-ready); rejects with the PayWasmError of a failed load (a later connect
   * tries again with a new promise).
   */
  readonly ready: Promise<{ methods: Method[] }>;
  cart: CartItem[] | null;
  shippingAddress: ShippingAddress | null;
  getShopperToken: CheckoutOptions['getShopperToken'] | null;
  qrResult: CheckoutOptions['qrResult'] | null;
  /**
   * Clears status, error, QR code and the order's lock, to pay again (the same offerId after an
   * unclear outcome you checked, or a new one for a new order). Returns false, changing nothing,
   * while a request is in flight; true when it reset.
   */
  reset(): boolean;
  addEventListener<K extends keyof PayWasmEventMap>(type: K, listener: (ev: PayWasmEventMap[K]) => void, options?: boolean | AddEventListenerOptions): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void;
}

/** The class of <paywasm-checkout>. The script defines it as 'paywasm-checkout' when it loads. */
export interface PayWasmCheckoutClass {
  new (): PayWasmCheckoutElement;
  readonly prototype: PayWasmCheckoutElement;
  /**
   * Defines the element as `tag` in `registry` (default: 'paywasm-checkout' in customElements),
   * unless that name is taken there already; returns the class. A class is defined once per
   * registry (the Custom Elements rule): another tag in the same registry throws.
   */
  define(tag?: string, registry?: CustomElementRegistry): PayWasmCheckoutClass;
}

export interface PayWasmApi {
  readonly version: string;
  readonly locales: readonly string[];
  /** Loads the module once; later calls return the same promise. Rejects with PayWasmError. */
  load(options?: LoadOptions): Promise<PayWasmCore>;
  mount(target: Element | string, options?: CheckoutOptions): CheckoutController;
  readonly PayWasmError: typeof PayWasmError;
  readonly PayWasmCheckout: PayWasmCheckoutClass;
}

declare const PayWasm: PayWasmApi;
export default PayWasm;
export declare const load: PayWasmApi['load'];
export declare const mount: PayWasmApi['mount'];
export declare const PayWasmCheckout: PayWasmCheckoutClass;
export declare const version: string;
export declare const locales: readonly string[];

declare global {
  interface Window { PayWasm: PayWasmApi }
  interface HTMLElementTagNameMap { 'paywasm-checkout': PayWasmCheckoutElement }
}
