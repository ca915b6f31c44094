// paywasm/checkout.hpp — the product's operations, one function each. Every edge (the widget's wasm
// bridge, the CLI, the sandbox, the merchant gateway) reads its arguments, makes one of these calls
// and writes the result; none of them shapes an order, computes a total, applies a default or
// decides what a status means on its own.
//
// A payment, end to end:
//   order -> complete_order_defaults -> validate -> canonical JSON
//   -> encrypt to the merchant's key -> HttpRequest; the caller's transport sends it once; the
//   answer goes to parse_payment_response (protocol.hpp) and describe_status says what it means.
//
// Every function throws paywasm::Error (validation with a field path, invalid_key, key_mismatch,
// ...) and does no I/O.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "paywasm/crypto.hpp"
#include "paywasm/error.hpp"
#include "paywasm/models.hpp"
#include "paywasm/protocol.hpp"
#include "paywasm/validate.hpp"

namespace paywasm {

// ---- Shared decisions, each made here only --------------------------------------------------------

// Fills what an order may leave out, and nothing else:
//   - each cart line's localAmount := its price, localCurrency := merchantStoreCurrency;
//   - nativeAmount (exchange) or amount (bank) := cart_total(cart);
//   - an exchange order's assets in upper case ("btc" -> "BTC"; the page's attribute may be either).
// A value that is present is kept as given (validate() then checks it).
void complete_order_defaults(ExchangePayment&);
void complete_order_defaults(BankPayment&);

// The amount a checkout session fixed on the merchant's server, against the cart a page pays
// with it: the cart's total (cart_total) must equal `session_amount`, a decimal text compared as a
// number ("82" and "82.00" are equal). Returns the cart total. Throws Error(validation, field
// "cart") when they differ, Error(validation, field "amount") when `session_amount` is not a
// decimal, and cart_total's errors for a bad cart line.
Decimal require_session_amount(const std::vector<CartItem>& cart, std::string_view session_amount);

// The merchant's public key as an operation takes it: PEM or DER text, an optional pin (the key's
// SHA-256 fingerprint in hex, any case, ':' separators allowed; empty: not pinned), and the padding.
struct MerchantKey {
    std::string_view pem_or_der;
    std::string_view pin;
    Padding padding = Padding::oaep_sha1;
};
// Parses the key and checks the pin: Error(invalid_key) for a key PublicKey::parse refuses,
// Error(key_mismatch, field "fingerprint") when pinned to another key.
PublicKey load_merchant_key(const MerchantKey&);

// ---- From a checkout to the QR order --------------------------------------------------------------

// The QR order: amount := cart total, orderId := offerId, customerInfo from the checkout's
// customerInfo, else name and e-mail from its shippingAddress; Error(validation, "customerInfo")
// when neither gives both.
QrGenerateRequest qr_order(const Checkout&, std::string_view crypto_currency = "BTC");

// ---- Requests ready to send ------------------------------------------------------------------------

// POST /exchanges/payments/{exchange}: defaults, validate(order) and the exchange name, canonical
// JSON, encrypt to the key, request with the shopper's token.
HttpRequest prepare_exchange_payment(ExchangePayment order, std::string_view exchange,
                                     const MerchantKey&, std::string_view shopper_token,
                                     const Limits& = {});
// POST /purchases (DEPRECATED endpoint), as above.
HttpRequest prepare_bank_payment(BankPayment order, const MerchantKey&,
                                 std::string_view shopper_token, const Limits& = {});
// POST /purchase/qr/generate (DEPRECATED endpoint) with the merchant's access token.
HttpRequest prepare_qr_generate(const QrGenerateRequest&, std::string_view merchant_token,
                                const Limits& = {});
// POST /subscription/debit and /subscription/cancel. An empty merchantAuth is made from
// merchantId with the key (merchant_auth(), crypto.hpp); a given one is sent as is. merchantAuth is
// made from public data (SECURITY.md), so a non-empty `merchant_token` is sent too, as
// `Authorization: Bearer` (the API document does not ask for it; a careful service does).
HttpRequest prepare_subscription_debit(SubscriptionDebitRequest, const MerchantKey&,
                                       std::string_view merchant_token = {}, const Limits& = {});
HttpRequest prepare_subscription_cancel(SubscriptionCancelRequest, const MerchantKey&,
                                        std::string_view merchant_token = {}, const Limits& = {});

// The validated canonical plaintext of an order's `data` (defaults completed): what the service
// decrypts. For showing or testing the payload; prepare_* encrypt it themselves.
std::string payment_payload(ExchangePayment order, const Limits& = {});
std::string payment_payload(BankPayment order, const Limits& = {});

// ---- Webhooks -----------------------------------------------------------------------------------------

// A webhook whose signature verified: the signed transaction text (data.data) and what it says.
struct VerifiedWebhook {
    std::string signed_json;
    Transaction transaction;
};
// Verifies one webhook body as the service sends it:
//   {"type":"rf:alert","data":{"data":"<transaction JSON>","offerId":..,"transactionId":..,
//    "status":..,...},"signature":"<base64>"}
// The signature must be RSASSA-PKCS1-v1_5 SHA-256 over the exact data.data string by
// `service_key`; the unsigned copies beside it (transactionId, status, offerId) must agree with the
// signed transaction. Throws Error(validation, "webhook body: ...") for a malformed body,
// Error(crypto) for a bad signature or a copy that disagrees, Error(bad_response) when the signed
// transaction is not one. Only fields of the returned transaction are to be trusted.
VerifiedWebhook verify_webhook(std::string_view body, const PublicKey& service_key);

// ---- Events the merchant gateway forwards to the shop's app ----------------------------------------

// The value of the `Paywasm-Signature` header of one forwarded event:
//   t=<unix seconds>,v1=<lower-case hex HMAC-SHA256(secret, "<t>.<body>")>
// The timestamp is signed with the body, so an app that checks it can refuse replays.
std::string sign_event(std::string_view secret, std::string_view body, long long unix_seconds);
// Checks a Paywasm-Signature header against the exact body bytes: some v1 must equal the HMAC
// (compared in constant time) and |now - t| must be at most `tolerance_seconds`. Throws
// Error(validation, "Paywasm-Signature") for a malformed header, Error(crypto, "signature") for a
// wrong signature, Error(crypto, "timestamp") for one outside the tolerance.
void verify_event(std::string_view secret, std::string_view body, std::string_view header,
                  long long now_unix_seconds, long long tolerance_seconds = 300);

// ---- Errors as JSON ---------------------------------------------------------------------------------

// {"code":"<to_string(code)>","message":"...","field":"<path or empty>","httpStatus":<n or 0>}: the
// one error object every edge writes (the bridge as {"ok":false,"error":...}, the CLI on stderr).
std::string error_json(const Error&);
std::string error_json(std::string_view code, std::string_view message, std::string_view field = {},
                       int http_status = 0);

}  // namespace paywasm
