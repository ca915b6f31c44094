// Type definitions for paywasm (paywasm.js / paywasm.mjs). Hand-written; see docs/widget.md.

/** Stable error codes. Core: validation .. below_minimum; transport: network, timeout; loader: unsupported. */
export type PayWasmErrorCode =
  | 'validation' | 'invalid_key' | 'key_mismatch' | 'crypto' | 'invalid_qr'
  | 'bad_response' | 'unauthorized' | 'not_found' | 'server'
  | 'authentication_failed' | 'insufficient_balance' | 'whitelist_pending'
  | 'wallet_unsupported' | 'below_minimum'
  | 'network' | 'timeout' | 'usage' | 'unsupported' | 'internal';

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
  /** Re-localizes userMessage and nextStep ('en' | 'es' | 'fr' | 'de' | 'pt'); returns this. */
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

export type StatusKind =
  | 'awaiting_payment' | 'pending' | 'processing' | 'success' | 'failed' | 'partial'
  | 'partial_closed' | 'timed_out' | 'canceled' | 'refund' | 'unknown';

export interface StatusInfo {
  code: number;
  kind: StatusKind;
  /** No further change expected. */
  final: boolean;
  /** Short English meaning. */
  label: string;
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
  /** The request of one exchange or bank payment, built by the core (defaults, validation, encryption). */
  paymentRequest(p: PaymentRequestInput): HttpRequestInit;
  /** GET /users/me with the shopper's token. */
  usersMeRequest(token: string, baseUrl: string): HttpRequestInit;
  /** The core's reading of an answer; throws the typed error (418-422 included). */
  parseResponse(endpoint: 'exchange-pay' | 'bank-pay', response: { status: number; body: string }): { transaction: Record<string, unknown>; status: StatusInfo };
  parseResponse(endpoint: 'users-me', response: { status: number; body: string }): { firstName: string; fullname: string };
  checkPaymentUri(uri: string): PaymentUri;
  describeStatus(codeOrWord: number | string): StatusInfo;
  /** Bytes of WebAssembly linear memory now (it only grows): for leak checks and benchmarks. */
  memoryBytes(): number;
  /** Low level: any operation of the module (see src/wasm/ops.cpp). */
  call(op: string, args: Record<string, unknown>): unknown;
}

export interface LoadOptions {
  /** Default: paywasm.wasm beside the script. */
  wasmUrl?: string;
  /** SRI of the wasm; default: the value built into the script; '' to skip the check. */
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
}

export type Method = 'exchange' | 'bank' | 'qr';

export interface CheckoutOptions {
  baseUrl?: string;
  merchantId?: string;
  publicKey?: string;
  publicKeyUrl?: string;
  keyFingerprint?: string;
  currency?: string;
  offerId?: string;
  /** Space-separated: 'exchange bank qr'. Default 'exchange qr'. */
  methods?: string;
  /** Space-separated exchange identifiers. Default: all five documented ones. */
  exchanges?: string;
  locale?: string;
  theme?: 'light' | 'dark' | 'auto';
  /** Crypto asset code of the exchange payment. Default 'BTC'. */
  asset?: string;
  padding?: Padding;
  wasmUrl?: string;
  qrEndpoint?: string;
  statusUrl?: string;
  statusMode?: 'poll' | 'sse';
  accountId?: string;
  stockId?: string;
  hostedPageId?: string;
  /** Request timeout in milliseconds (default 20000). */
  timeout?: string | number;
  cart?: CartItem[];
  shippingAddress?: ShippingAddress;
  /** Called before each request that needs it; the token is never stored by the widget. */
  getShopperToken?: () => Promise<string | null | undefined> | string | null | undefined;
  qrResult?: QrResult | { ok: boolean; result: QrResult };
}

export interface StatusDetail {
  status: StatusInfo;
  /** The transaction as the service (or the status-url) returned it. */
  transaction: Record<string, unknown>;
  method: Method;
}

export interface PayWasmEventMap {
  'paywasm-ready': CustomEvent<{ methods: Method[] }>;
  'paywasm-status': CustomEvent<StatusDetail>;
  'paywasm-complete': CustomEvent<StatusDetail>;
  'paywasm-error': CustomEvent<{ error: PayWasmError }>;
}

type ShortEvent = 'ready' | 'status' | 'complete' | 'error';
type DetailOf<T extends ShortEvent> = PayWasmEventMap[`paywasm-${T}`]['detail'];

export interface CheckoutController {
  readonly element: PayWasmCheckoutElement;
  on<T extends ShortEvent>(type: T | `paywasm-${T}`, fn: (detail: DetailOf<T>, event: PayWasmEventMap[`paywasm-${T}`]) => void): () => void;
  off<T extends ShortEvent>(type: T | `paywasm-${T}`, fn: (...args: any[]) => void): void;
  update(options: CheckoutOptions): void;
  /** Clears status, error, QR and the one-payment lock (set a new offerId first). */
  reset(): void;
  /** Removes listeners, stops network activity; removes the element if mount() created it. */
  destroy(): void;
}

export interface PayWasmCheckoutElement extends HTMLElement {
  baseUrl: string | null; merchantId: string | null; publicKey: string | null; publicKeyUrl: string | null;
  keyFingerprint: string | null; currency: string | null; offerId: string | null; methods: string | null;
  exchanges: string | null; locale: string | null; theme: string | null; asset: string | null;
  padding: string | null; wasmUrl: string | null; qrEndpoint: string | null; statusUrl: string | null;
  statusMode: string | null; accountId: string | null; stockId: string | null; hostedPageId: string | null;
  timeout: string | null;
  cart: CartItem[] | null;
  shippingAddress: ShippingAddress | null;
  getShopperToken: CheckoutOptions['getShopperToken'] | null;
  qrResult: CheckoutOptions['qrResult'] | null;
  reset(): void;
  addEventListener<K extends keyof PayWasmEventMap>(type: K, listener: (ev: PayWasmEventMap[K]) => void, options?: boolean | AddEventListenerOptions): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void;
}

export interface PayWasmApi {
  readonly version: string;
  readonly locales: readonly string[];
  /** Loads the module once; later calls return the same promise. Rejects with PayWasmError. */
  load(options?: LoadOptions): Promise<PayWasmCore>;
  mount(target: Element | string, options?: CheckoutOptions): CheckoutController;
  readonly PayWasmError: typeof PayWasmError;
}

declare const PayWasm: PayWasmApi;
export default PayWasm;
export declare const load: PayWasmApi['load'];
export declare const mount: PayWasmApi['mount'];
export declare const version: string;
export declare const locales: readonly string[];

declare global {
  interface Window { PayWasm: PayWasmApi }
  interface HTMLElementTagNameMap { 'paywasm-checkout': PayWasmCheckoutElement }
}
