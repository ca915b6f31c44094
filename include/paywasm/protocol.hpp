// paywasm/protocol.hpp — the six endpoints, sans-IO.
//
// A builder turns a model into an HttpRequest (method, path relative to the base URL, headers,
// body); the caller's transport (cpp-httplib in the CLI, fetch() in the widget) sends it and hands
// the status and body to the matching parser, which returns the typed result or throws a typed
// Error. No function here does I/O, so every protocol rule is unit-tested without a network.
//
// Response rules shared by every parser:
//   - 2xx with a JSON body of the right shape -> the result; HTTP success status of the payment and
//     users/me endpoints is "not shown", so any 2xx is accepted;
//   - exchange errors 418-422 -> Error(authentication_failed .. below_minimum), whether they come as
//     the HTTP status or as a numeric/string `code` (or `status`) member of a JSON body, whatever
//     the HTTP status; the message is the documented one, and for 422 the body's `message` when it
//     starts with the documented words (it names the exchange's minimum);
//   - 401/403 -> unauthorized; 404 -> not_found; other 4xx -> validation; 5xx and anything else ->
//     server; a body's `message`/`error` string is appended through escape_untrusted (text.hpp:
//     controls, bidi overrides and bytes that are not UTF-8 escaped; at most 200 bytes, then "...");
//   - a 2xx body that is not JSON or misses required fields -> bad_response.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "paywasm/models.hpp"
#include "paywasm/status.hpp"
#include "paywasm/validate.hpp"

namespace paywasm {

struct HttpRequest {
    std::string method;  // "GET" | "POST"
    std::string path;    // relative to the base URL, starts with '/'
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;    // empty for GET
    // base_url + path, with exactly one '/' between them.
    std::string url(std::string_view base_url) const;
};

struct HttpResponse {
    int status = 0;
    std::string body;
};

// ---- Endpoints ----------------------------------------------------------------------------------

enum class Endpoint { qr_generate, exchange_payment, bank_payment, users_me, subscription_debit,
                      subscription_cancel };

struct EndpointInfo {
    Endpoint endpoint;
    std::string_view name;    // CLI name: "qr-generate", "exchange-pay", "bank-pay", "users-me",
                              // "subscription-debit", "subscription-cancel"
    std::string_view method;
    std::string_view path;    // "/exchanges/payments/{exchange_name}" etc.
    bool deprecated;          // qr-generate and bank-pay
    bool merchant_secret;     // needs the merchant token or merchantAuth: never from a browser
};
const std::vector<EndpointInfo>& endpoints();
// Throws Error(usage) for an unknown name.
const EndpointInfo& endpoint_by_name(std::string_view name);

// Deprecated endpoints warn once per process through this sink. None is set by default (the core
// does no I/O): the CLI sets one that writes to stderr, the widget one that calls console.warn.
// Passing nullptr silences warnings.
using WarningSink = void (*)(std::string_view message);
void set_warning_sink(WarningSink);

// ---- Request builders (validate first; throw Error(validation) on bad input) ----------------------

// POST /purchase/qr/generate (DEPRECATED), Bearer merchant token, x-transaction-source: qr-code-api.
HttpRequest qr_generate_request(const QrGenerateRequest&, std::string_view merchant_token);
// POST /exchanges/payments/{exchange}, Bearer shopper token, body {"data":"<encrypted>"}.
// `exchange` must be in limits.exchanges (which a merchant may extend).
HttpRequest exchange_payment_request(std::string_view exchange, std::string_view encrypted_data,
                                     std::string_view shopper_token, const Limits& limits = {});
// POST /purchases (DEPRECATED), Bearer shopper token, body {"data":"<encrypted>"}.
HttpRequest bank_payment_request(std::string_view encrypted_data, std::string_view shopper_token);
// GET /users/me, Bearer shopper token.
HttpRequest users_me_request(std::string_view shopper_token);
// POST /subscription/debit; credentials are merchantAuth + merchantId in the body.
HttpRequest subscription_debit_request(const SubscriptionDebitRequest&);
// POST /subscription/cancel.
HttpRequest subscription_cancel_request(const SubscriptionCancelRequest&);

// ---- Response parsers ------------------------------------------------------------------------------

QrGenerateResponse parse_qr_generate_response(const HttpResponse&);  // ok must be true
Transaction parse_payment_response(const HttpResponse&);             // exchange and bank payment
UsersMeResponse parse_users_me_response(const HttpResponse&);        // ok must be true
SubscriptionDebitResult parse_subscription_debit_response(const HttpResponse&);
SubscriptionCancelResult parse_subscription_cancel_response(const HttpResponse&);

// Throws the typed error for a non-2xx answer (rules above); returns normally for 2xx.
void check_http_status(const HttpResponse&);

// ---- Statuses: paywasm/status.hpp (what each code means, what is owed) ------------------------

// The documented message of exchange error 418..422; empty for other codes.
std::string_view exchange_error_message(int code);

}  // namespace paywasm
