// src/wasm/ops.cpp — the operations the browser may call: read the arguments, make one call of the
// core (paywasm/checkout.hpp and the headers beside it), write the result.
//
// Every op takes an Args object and returns the JSON text of its value. Errors are thrown as
// paywasm::Error and turned into the result envelope by exports.cpp. Only the shopper-side
// endpoints are reachable: nothing here builds a request that needs the merchant's secret
// (QR generate, subscription debit and cancel), so no page can be talked into sending one.
#include "wasm/ops.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "paywasm/checkout.hpp"
#include "paywasm/codec.hpp"
#include "paywasm/crypto.hpp"
#include "paywasm/error.hpp"
#include "paywasm/json.hpp"
#include "paywasm/models.hpp"
#include "paywasm/protocol.hpp"
#include "paywasm/qr.hpp"
#include "wasm/args.hpp"

namespace paywasm::wasm {
namespace {

// ---- Results ---------------------------------------------------------------------------------------

std::string status_json(const StatusInfo& s) {
    return JsonWriter()
        .begin_object()
        .num("code", s.code)
        .str("kind", to_string(s.kind))
        .flag("final", s.final)
        .flag("success", s.success)
        .str("taken", to_string(s.taken))
        .str("tone", to_string(s.tone))
        .str("next", to_string(s.next))
        .str("label", s.label)
        .end_object()
        .take();
}

std::string request_json(const HttpRequest& r, std::string_view base_url) {
    JsonWriter w;
    w.begin_object().str("method", r.method).str("url", r.url(base_url)).key("headers").begin_array();
    for (const auto& [name, value] : r.headers) w.begin_array().string(name).string(value).end_array();
    return w.end_array().str("body", r.body).end_object().take();
}

// ---- Arguments -----------------------------------------------------------------------------------

// {key, fingerprint?, padding?}: the merchant's key as the core's operations take it. The views
// point into `a`, which outlives the call.
MerchantKey merchant_key(const Args& a, std::string& key, std::string& pin) {
    key = a.str("key");
    pin = a.opt_str("fingerprint").value_or("");
    auto padding = a.opt_str("padding");
    return MerchantKey{key, pin, padding ? parse_padding(*padding) : Padding::oaep_sha1};
}

// {exchanges?: "kraken gemini"}: the allowed exchange names, space-separated (web/src/core.js joins
// the array it is given: a string costs the module less than an array of strings).
Limits limits_of(const Args& a) {
    Limits limits;
    if (auto names = a.opt_str("exchanges"); names && !names->empty()) {
        limits.exchanges.clear();
        std::string_view rest = *names;
        while (!rest.empty()) {
            const std::size_t end = std::min(rest.find(' '), rest.size());
            if (end) limits.exchanges.emplace_back(rest.substr(0, end));
            rest.remove_prefix(std::min(end + 1, rest.size()));
        }
    }
    return limits;
}

// ---- Ops: one core call each ---------------------------------------------------------------------

// {key, plaintext, padding?, fingerprint?} -> base64 ciphertext
std::string op_encrypt(const Args& a) {
    std::string key, pin;
    const MerchantKey k = merchant_key(a, key, pin);
    return json_quote(encrypt(load_merchant_key(k), a.str("plaintext"), k.padding));
}

// {key} -> {fingerprint, bits}
std::string op_key_info(const Args& a) {
    PublicKey key = PublicKey::parse(a.str("key"));
    return JsonWriter().begin_object().str("fingerprint", key.fingerprint()).num("bits", key.bits()).end_object().take();
}

// {text, ecc?, border?} -> SVG markup
std::string op_qr_svg(const Args& a) {
    Ecc ecc = parse_ecc(a.opt_str("ecc").value_or("M"));
    return json_quote(qr_svg(qr_encode(a.str("text"), ecc), a.integer("border", 4)));
}

// {text, ecc?} -> {size, modules: "0101..." row-major}
std::string op_qr_matrix(const Args& a) {
    QrMatrix m = qr_encode(a.str("text"), parse_ecc(a.opt_str("ecc").value_or("M")));
    std::string bits;
    bits.reserve(m.modules.size());
    for (auto v : m.modules) bits += v ? '1' : '0';
    return JsonWriter().begin_object().num("size", m.size).str("modules", bits).end_object().take();
}

// {order: JSON text} -> the validated canonical payload, defaults completed
std::string op_exchange_payload(const Args& a) {
    return json_quote(payment_payload(from_json<ExchangePayment>(a.str("order")), limits_of(a)));
}
std::string op_bank_payload(const Args& a) {
    return json_quote(payment_payload(from_json<BankPayment>(a.str("order")), limits_of(a)));
}

// {order: JSON text of an exchange order, sessionAmount?, exchanges?} -> decimal text of its total:
// the order as the widget would send it (defaults completed, every rule of the exchange payload
// checked: cart, address, offerId, currency, asset), and with sessionAmount (a gateway session's
// fixed amount) a cart that adds up to another amount refused (require_session_amount). The
// widget's one check of the page's order, made when the order or the session changes.
std::string op_check_order(const Args& a) {
    auto order = from_json<ExchangePayment>(a.str("order"));
    if (auto fixed = a.opt_str("sessionAmount")) require_session_amount(order.cart, *fixed);
    complete_order_defaults(order);
    validate(order, limits_of(a));
    return json_quote(order.native_amount->to_string());
}

// {order: JSON text of an exchange order holding the cart} -> decimal text of the cart total.
// web/src/core.js puts the cart into an otherwise empty order: the cart is read by the reader the
// payment ops use anyway (same rules and field paths as cart_from_json, one reader less in the
// module).
std::string op_cart_total(const Args& a) {
    return json_quote(cart_total(from_json<ExchangePayment>(a.str("order")).cart).to_string());
}

// {uri} -> {scheme, address, amount, value}
std::string op_check_payment_uri(const Args& a) {
    PaymentUri u = check_payment_uri(a.str("uri"));
    return JsonWriter()
        .begin_object()
        .str("scheme", u.scheme)
        .str("address", u.address)
        .str("amount", u.amount)
        .str("value", u.value)
        .end_object()
        .take();
}

std::optional<PayMethod> method_of(const Args& a) {
    auto name = a.opt_str("method");
    if (!name) return std::nullopt;
    auto m = pay_method_from(*name);
    if (!m) fail_validation("method", "must be exchange, bank or qr");
    return m;
}

// {code, method?} or {word} -> {code, kind, final, success, taken, tone, next, label}: the core's
// table (paywasm/status.hpp), the only place the widget learns what a status means.
std::string op_describe_status(const Args& a) {
    if (auto word = a.opt_str("word")) return status_json(describe_status_word(*word));
    if (!a.has("code")) fail_validation("code", "is required");
    return status_json(describe_status(a.integer("code", 0), method_of(a)));
}

// {code, method?, amount, currency, receivedAmount?} -> {expected, received, remaining}, each
// {amount, currency}: what a transaction asks for, what arrived and what is still owed, in the
// transaction's own currency (crypto for a QR code), from exact decimals.
std::string op_amounts_owed(const Args& a) {
    const StatusInfo status = describe_status(a.integer("code", 0), method_of(a));
    Money expected{Decimal::parse(a.str("amount"), "amount"), a.str("currency")};
    std::optional<Decimal> received;
    if (auto r = a.opt_str("receivedAmount"); r && !r->empty()) received = Decimal::parse(*r, "receivedAmount");
    const Owed owed = amounts_owed(status, expected, received);
    JsonWriter w;
    w.begin_object();
    for (auto [name, m] : {std::pair<const char*, const Money*>{"expected", &owed.expected}, {"received", &owed.received},
                           {"remaining", &owed.remaining}}) {
        w.key(name).begin_object().str("amount", amount_text(*m)).str("currency", m->currency).end_object();
    }
    return w.end_object().take();
}

// {token, baseUrl} -> {method, url, headers, body} of GET /users/me
std::string op_users_me_request(const Args& a) {
    return request_json(users_me_request(a.str("token")), a.str("baseUrl"));
}

// The whole payment step in one call, so the order never crosses the boundary twice:
// {method: "exchange"|"bank", order: JSON text of the ExchangePayment or BankPayment (the core
//  fills nativeAmount/amount and the lines' localAmount/localCurrency when left out), key,
//  fingerprint?, padding?, token, baseUrl, exchange (exchange payments), exchanges?, sessionAmount?
//  (a gateway session's fixed amount: a cart that adds up to another is refused, nothing is
//  encrypted)} -> {method, url, headers, body}
std::string op_payment_request(const Args& a) {
    const std::string method = a.str("method");
    std::string key, pin;
    const MerchantKey k = merchant_key(a, key, pin);
    const auto fixed = a.opt_str("sessionAmount");
    if (method == "exchange") {
        auto order = from_json<ExchangePayment>(a.str("order"));
        if (fixed) require_session_amount(order.cart, *fixed);
        return request_json(prepare_exchange_payment(std::move(order), a.str("exchange"), k, a.str("token"), limits_of(a)),
                            a.str("baseUrl"));
    }
    if (method != "bank") fail_validation("method", "must be exchange or bank");
    auto order = from_json<BankPayment>(a.str("order"));
    if (fixed) require_session_amount(order.cart, *fixed);
    return request_json(prepare_bank_payment(std::move(order), k, a.str("token"), limits_of(a)), a.str("baseUrl"));
}

// {endpoint: exchange-pay|bank-pay|users-me, status, body} -> exchange/bank: the status
// {code, kind, final, label} (the transaction is the body itself: web/src/core.js parses it once the
// core has accepted it, so the module carries no JSON re-writer); users-me: {firstName, fullname}.
std::string op_parse_response(const Args& a) {
    const EndpointInfo& e = endpoint_by_name(a.str("endpoint"));
    HttpResponse r{a.integer("status", 0), a.opt_str("body").value_or("")};
    if (e.endpoint == Endpoint::users_me) {
        const UsersMeResponse me = parse_users_me_response(r);
        const auto& profile = me.result.profile;
        const std::string first = profile && profile->first_name ? *profile->first_name : "";
        return JsonWriter()
            .begin_object()
            .str("firstName", first)
            .str("fullname", me.result.fullname.value_or(""))
            .end_object()
            .take();
    }
    if (e.endpoint != Endpoint::exchange_payment && e.endpoint != Endpoint::bank_payment)
        fail_validation("endpoint", "not an endpoint the browser calls");
    return status_json(describe_status(parse_payment_response(r)));
}

using Op = std::string (*)(const Args&);
struct Entry {
    std::string_view name;
    Op op;
};
constexpr Entry kOps[] = {
    {"encrypt", op_encrypt},
    {"keyInfo", op_key_info},
    {"qrSvg", op_qr_svg},
    {"qrMatrix", op_qr_matrix},
    {"exchangePayload", op_exchange_payload},
    {"bankPayload", op_bank_payload},
    {"cartTotal", op_cart_total},
    {"checkOrder", op_check_order},
    {"checkPaymentUri", op_check_payment_uri},
    {"describeStatus", op_describe_status},
    {"amountsOwed", op_amounts_owed},
    {"usersMeRequest", op_users_me_request},
    {"paymentRequest", op_payment_request},
    {"parseResponse", op_parse_response},
};

}  // namespace

std::string run_op(std::string_view name, std::string_view args_json) {
    for (const Entry& e : kOps) {
        if (e.name == name) return e.op(Args(args_json));
    }
    fail_validation("op", "unknown operation '" + std::string(name.substr(0, 40)) + "'");
}

}  // namespace paywasm::wasm
