// The one table of <paywasm-checkout>'s attributes: [name, type, default, description].
// web/build.mjs ships `name -> default` of it into paywasm.js, from which the element's
// observedAttributes, its camelCase properties (typed: a number attribute is a number property
// with its default; a string one is the attribute, or its default, or null) and mount()'s options
// come. The types and defaults of web/paywasm.d.ts and the attribute table of docs/widget.md are
// compared with this table by the browser suite (test "the attribute table").
export const ATTRIBUTES = [
  ['session-url', 'string', null, 'the merchant gateway\'s checkout session (`/v1/checkout/{id}`): the order, amount, key and pin, methods and service URL are read from it, the QR code is created through it and every method\'s status follows it; an attribute given beside it wins'],
  ['base-url', 'string', null, 'the payment API base URL (required for exchange and bank payments)'],
  ['merchant-id', 'string', null, 'your merchant id (`clientId` in the payloads)'],
  ['public-key', 'string', null, 'your RSA public key, PEM (this or `public-key-url` is required to pay)'],
  ['public-key-url', 'string', null, 'a URL on your origin that returns the key; pin it with `key-fingerprint`'],
  ['key-fingerprint', 'string', null, 'pin: lower-case hex SHA-256 of the key\'s SubjectPublicKeyInfo; any other key is refused before encrypting'],
  ['currency', 'string', 'USD', 'your store currency (ISO 4217)'],
  ['offer-id', 'string', null, 'your order id: required, shown to the shopper for support'],
  ['amount', 'string', null, 'the order\'s total as your server fixed it (decimal text in `currency`, e.g. `25.80`): shown before the module is in, and the core refuses Pay (error `validation`, field `cart`) when the cart adds up to another amount; a session\'s own amount otherwise'],
  ['methods', 'string', 'exchange qr', 'any of `exchange`, `bank`, `qr` (bank: with `account-id` and `stock-id`; qr: with `qr-endpoint` or `qrResult`)'],
  ['exchanges', 'string', null, 'space-separated subset of `coinbase okcoin kraken gemini binanceus` (default: all five)'],
  ['asset', 'string', 'BTC', 'crypto asset of the exchange payment (`assets`) and of the QR request'],
  ['padding', 'string', 'oaep-sha1', '`oaep-sha1`, `oaep-sha256` or `pkcs1v15` (legacy)'],
  ['locale', 'string', null, '`en`, `es`, `fr`, `de`, `pt-BR`, `pt-PT` or any tag of them (default: the browser\'s languages)'],
  ['theme', 'string', 'light', '`light`, `dark`, or `auto` (follows `prefers-color-scheme`)'],
  ['timeout', 'number', 20000, 'milliseconds per request'],
  ['account-id', 'string', null, 'bank payment: your bank account id at the service'],
  ['stock-id', 'string', null, 'bank payment: the shopper\'s connected bank account id at the service, from your server'],
  ['bank-account', 'string', null, 'bank payment: how the shopper knows that connected account (e.g. `Checking ••6789`), from your server; shown as the account that pays, before and after Pay (without it the widget says "the account you chose at the payment service")'],
  ['hosted-page-id', 'string', null, 'bank payment: your hosted page id'],
  ['qr-endpoint', 'string', null, 'your server\'s URL that creates the QR transaction'],
  ['status-url', 'string', null, 'your server\'s URL for later statuses of every method (the gateway\'s `/v1/checkout/{id}/status`); `{id}` and `{offerId}` are filled in'],
  ['status-mode', 'string', 'poll', '`poll` (back-off from `status-interval` up to 30 s) or `sse` (server-sent events)'],
  ['status-interval', 'number', 2000, 'first polling delay in milliseconds'],
  ['wasm-url', 'string', null, 'where `paywasm.wasm` is (default: beside the script)'],
];
