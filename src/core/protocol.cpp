// The six endpoints as pure functions: builders (model -> HttpRequest) and parsers
// (HttpResponse -> model or typed Error). The rules are stated in protocol.hpp.
#include "paywasm/protocol.hpp"

#include <algorithm>

#include "core/json_tree.hpp"
#include "paywasm/codec.hpp"
#include "paywasm/error.hpp"
#include "paywasm/text.hpp"
#include "paywasm/validate.hpp"

namespace paywasm {

// ---- Endpoint table and deprecation warnings ---------------------------------------------------------

const std::vector<EndpointInfo>& endpoints() {
    static const std::vector<EndpointInfo> table = {
        {Endpoint::qr_generate, "qr-generate", "POST", "/purchase/qr/generate", true, true},
        {Endpoint::exchange_payment, "exchange-pay", "POST", "/exchanges/payments/{exchange_name}", false, false},
        {Endpoint::bank_payment, "bank-pay", "POST", "/purchases", true, false},
        {Endpoint::users_me, "users-me", "GET", "/users/me", false, false},
        {Endpoint::subscription_debit, "subscription-debit", "POST", "/subscription/debit", false, true},
        {Endpoint::subscription_cancel, "subscription-cancel", "POST", "/subscription/cancel", false, true},
    };
    return table;
}

const EndpointInfo& endpoint_by_name(std::string_view name) {
    for (const auto& e : endpoints()) {
        if (e.name == name) return e;
    }
    throw Error(ErrorCode::usage, "unknown endpoint '" + escape_untrusted(name, 40) +
                                      "' (qr-generate, exchange-pay, bank-pay, users-me, subscription-debit, "
                                      "subscription-cancel)");
}

namespace {

WarningSink g_warning_sink = nullptr;
bool g_warned[6] = {};

void warn_deprecated_once(Endpoint e) {
    auto i = static_cast<std::size_t>(e);
    if (g_warned[i]) return;
    g_warned[i] = true;
    if (!g_warning_sink) return;
    const EndpointInfo& info = endpoints()[i];
    std::string msg = "paywasm: " + std::string(info.method) + " " + std::string(info.path) +
                      " is DEPRECATED by the payment service (no replacement is named); it may stop working.";
    g_warning_sink(msg);
}

// ---- Builders' shared pieces ------------------------------------------------------------------------

// A bearer token goes into a header: refuse what could split or corrupt it.
void check_token(const char* field, std::string_view token) {
    if (token.empty()) fail_validation(field, "is required");
    if (token.size() > 8192) fail_validation(field, "is longer than 8192 bytes");
    for (char c : token) {
        auto u = static_cast<unsigned char>(c);
        if (u <= 0x20 || u >= 0x7F) fail_validation(field, "contains a space, control or non-ASCII character");
    }
}

void check_encrypted_data(std::string_view data) {
    if (data.empty()) fail_validation("data", "is required (the encrypted payload)");
    if (data.size() > 1024 * 1024) fail_validation("data", "is longer than 1 MiB");
    bool base64 = std::all_of(data.begin(), data.end(), [](char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
               c == '/' || c == '=';
    });
    if (!base64) fail_validation("data", "must be base64 (the output of encrypt())");
}

// A request with the JSON content headers, after "Authorization: Bearer <token>" when a token is given
// (headers are appended one by one: one vector instantiation, not an initializer-list assign and an
// insert at the front).
HttpRequest json_request(const char* method, std::string path, std::string_view token, std::string body) {
    HttpRequest r;
    r.method = method;
    r.path = std::move(path);
    r.headers.reserve(3);
    if (!token.empty()) r.headers.push_back({"Authorization", "Bearer " + std::string(token)});
    r.headers.push_back({"Content-Type", "application/json"});
    r.headers.push_back({"Accept", "application/json"});
    r.body = std::move(body);
    return r;
}

HttpRequest json_post(std::string path, std::string body) {
    return json_request("POST", std::move(path), {}, std::move(body));
}

HttpRequest shopper_post(std::string path, std::string_view encrypted_data, std::string_view shopper_token) {
    check_encrypted_data(encrypted_data);
    check_token("shopperToken", shopper_token);
    return json_request("POST", std::move(path), shopper_token, "{\"data\":" + json_quote(encrypted_data) + "}");
}

// ---- Parsers' shared pieces -------------------------------------------------------------------------

// A server-provided message made fit for an error text: escaped (escape_untrusted: controls, bidi
// overrides and bytes that are not UTF-8 shown as escapes) and cut to 200 bytes between characters.
std::string sanitize(std::string_view s) { return escape_untrusted(s, 200); }

struct BodyHints {
    int exchange_code = 0;  // 418..422 when the body carries one
    std::string message;    // body's message / error text, sanitized
};

int as_exchange_code(detail::JsonValue v) {
    if (!v.valid() || (!v.is_number() && !v.is_string())) return 0;
    std::string_view t = v.text();
    if (t.size() != 3 || t.find_first_not_of("0123456789") != std::string_view::npos) return 0;
    int n = (t[0] - '0') * 100 + (t[1] - '0') * 10 + (t[2] - '0');
    return n >= 418 && n <= 422 ? n : 0;
}

detail::JsonValue member(detail::JsonValue object, std::string_view name) {
    for (auto m = object.first_child(); m.valid(); m = m.next_sibling()) {
        if (m.key() == name) return m;
    }
    return {};
}

// The same tree parser as the codec (one JSON parser in the wasm module); an unparsable body just
// has no hints.
BodyHints read_hints(std::string_view body) {
    BodyHints h;
    if (body.empty() || body.size() > kMaxJsonBytes || body.find('{') == std::string_view::npos) return h;
    detail::JsonTree tree;
    try {
        tree = detail::parse_json(body, ErrorCode::bad_response);
    } catch (const Error&) {
        return h;
    }
    detail::JsonValue doc = tree.root();
    if (!doc.is_object()) return h;
    for (const char* key : {"code", "statusCode", "errorCode"}) {
        if ((h.exchange_code = as_exchange_code(member(doc, key)))) break;
    }
    // `status` carries the code only in an error body, never in a Transaction (which has an id).
    if (!h.exchange_code && !member(doc, "id").valid()) h.exchange_code = as_exchange_code(member(doc, "status"));
    for (const char* key : {"message", "error", "errorMessage"}) {
        detail::JsonValue v = member(doc, key);
        if (v.valid() && v.is_object()) v = member(v, "message");
        if (v.valid() && v.is_string()) { h.message = sanitize(v.text()); break; }
    }
    return h;
}

[[noreturn]] void throw_exchange_error(int code, const BodyHints& hints, int http_status) {
    static constexpr ErrorCode kCodes[] = {ErrorCode::authentication_failed, ErrorCode::insufficient_balance,
                                           ErrorCode::whitelist_pending, ErrorCode::wallet_unsupported,
                                           ErrorCode::below_minimum};
    std::string message(exchange_error_message(code));
    // 422's documented text continues with the exchange's minimum; take it from the body when it matches.
    if (code == 422 && hints.message.rfind(message, 0) == 0) message = hints.message;
    throw Error(kCodes[code - 418], message).with_http_status(http_status);
}

template <class T>
T parse_body(const HttpResponse& r) {
    check_http_status(r);
    try {
        return from_json<T>(r.body);
    } catch (Error& e) {
        e.with_http_status(r.status);
        throw;
    }
}

}  // namespace

void set_warning_sink(WarningSink sink) { g_warning_sink = sink; }

std::string HttpRequest::url(std::string_view base_url) const {
    std::string out(base_url);
    while (!out.empty() && out.back() == '/') out.pop_back();
    return out + path;
}

// ---- Builders ------------------------------------------------------------------------------------

HttpRequest qr_generate_request(const QrGenerateRequest& request, std::string_view merchant_token) {
    validate(request);
    check_token("merchantToken", merchant_token);
    warn_deprecated_once(Endpoint::qr_generate);
    HttpRequest r = json_request("POST", "/purchase/qr/generate", merchant_token, to_json(request));
    r.headers.insert(r.headers.begin() + 1, {"x-transaction-source", "qr-code-api"});
    return r;
}

HttpRequest exchange_payment_request(std::string_view exchange, std::string_view encrypted_data,
                                     std::string_view shopper_token, const Limits& limits) {
    validate_exchange_name(exchange, limits);
    return shopper_post("/exchanges/payments/" + std::string(exchange), encrypted_data, shopper_token);
}

HttpRequest bank_payment_request(std::string_view encrypted_data, std::string_view shopper_token) {
    HttpRequest r = shopper_post("/purchases", encrypted_data, shopper_token);
    warn_deprecated_once(Endpoint::bank_payment);
    return r;
}

HttpRequest users_me_request(std::string_view shopper_token) {
    check_token("shopperToken", shopper_token);
    return json_request("GET", "/users/me", shopper_token, {});
}

HttpRequest subscription_debit_request(const SubscriptionDebitRequest& request) {
    validate(request);
    return json_post("/subscription/debit", to_json(request));
}

HttpRequest subscription_cancel_request(const SubscriptionCancelRequest& request) {
    validate(request);
    return json_post("/subscription/cancel", to_json(request));
}

// ---- Parsers -------------------------------------------------------------------------------------

void check_http_status(const HttpResponse& r) {
    const bool success = r.status >= 200 && r.status < 300;
    if (r.status >= 418 && r.status <= 422) throw_exchange_error(r.status, read_hints(r.body), r.status);
    BodyHints hints = read_hints(r.body);
    if (hints.exchange_code) throw_exchange_error(hints.exchange_code, hints, r.status);
    if (success) return;

    std::string detail = hints.message.empty() ? "" : ": " + hints.message;
    std::string prefix = "HTTP " + std::to_string(r.status);
    ErrorCode code = ErrorCode::server;
    if (r.status == 401 || r.status == 403) {
        code = ErrorCode::unauthorized;
        prefix += " (the access token was refused)";
    } else if (r.status == 404) {
        code = ErrorCode::not_found;
        prefix += " (not found)";
    } else if (r.status >= 400 && r.status < 500) {
        code = ErrorCode::validation;
        prefix += " (the service refused the request)";
    } else if (r.status >= 500) {
        prefix += " (the service failed)";
    } else {
        prefix += " (unexpected status)";
    }
    throw Error(code, prefix + detail).with_http_status(r.status);
}

QrGenerateResponse parse_qr_generate_response(const HttpResponse& r) {
    auto out = parse_body<QrGenerateResponse>(r);
    if (!out.ok) throw Error(ErrorCode::server, "the service answered ok: false").with_http_status(r.status);
    return out;
}

Transaction parse_payment_response(const HttpResponse& r) { return parse_body<Transaction>(r); }

UsersMeResponse parse_users_me_response(const HttpResponse& r) {
    auto out = parse_body<UsersMeResponse>(r);
    if (!out.ok) throw Error(ErrorCode::server, "the service answered ok: false").with_http_status(r.status);
    return out;
}

SubscriptionDebitResult parse_subscription_debit_response(const HttpResponse& r) {
    auto out = parse_body<SubscriptionDebitResult>(r);
    if (out.status != 200) {
        throw Error(ErrorCode::server, "the service answered status " + std::to_string(out.status))
            .with_http_status(r.status);
    }
    return out;
}

SubscriptionCancelResult parse_subscription_cancel_response(const HttpResponse& r) {
    auto out = parse_body<SubscriptionCancelResult>(r);
    if (out.status != 200) {
        throw Error(ErrorCode::server, "the service answered status " + std::to_string(out.status))
            .with_http_status(r.status);
    }
    return out;
}

std::string_view exchange_error_message(int code) {
    switch (code) {
        case 418: return "Authentication Failed! Please try again after some time.";
        case 419: return "Insufficient Balance";
        case 420: return "Address whitelist is pending!";
        case 421: return "Coin Wallet is not supported at this moment! please try again after some time.";
        case 422: return "Amount is less than minimum transaction amount supported by";
        default: return {};
    }
}

}  // namespace paywasm
