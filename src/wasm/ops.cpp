// src/wasm/ops.cpp — the operations the browser may call, each a thin shim over the core.
//
// Every op takes an Args object and returns the JSON text of its value. Errors are thrown as
// paywasm::Error and turned into the result envelope by exports.cpp. Only the shopper-side
// endpoints are reachable: an endpoint that needs the merchant's secret is refused here, so no
// page can be talked into sending one.
#include "wasm/ops.hpp"

#include <cctype>
#include <string>
#include <utility>

#include "core/json_tree.hpp"
#include "paywasm/codec.hpp"
#include "paywasm/crypto.hpp"
#include "paywasm/decimal.hpp"
#include "paywasm/error.hpp"
#include "paywasm/models.hpp"
#include "paywasm/protocol.hpp"
#include "paywasm/qr.hpp"
#include "paywasm/validate.hpp"
#include "wasm/args.hpp"

namespace paywasm::wasm {
namespace {

// ---- JSON writing helpers ------------------------------------------------------------------------

// {"k":v,...} written member by member into one string, in call order (no temporaries per member).
class Object {
public:
    // A member whose value is already JSON text.
    Object& raw(const char* name, std::string_view json) {
        key(name);
        out_ += json;
        return *this;
    }
    Object& str(const char* name, std::string_view text) {
        key(name);
        detail::append_quoted(out_, text);
        return *this;
    }
    Object& num(const char* name, long long n) { return raw(name, std::to_string(n)); }
    Object& boolean(const char* name, bool b) { return raw(name, b ? "true" : "false"); }
    std::string done() {
        if (out_.empty()) out_ += '{';
        out_ += '}';
        return std::move(out_);
    }

private:
    void key(const char* name) {
        out_ += out_.empty() ? '{' : ',';
        detail::append_quoted(out_, name);
        out_ += ':';
    }
    std::string out_;
};

std::string status_json(const StatusInfo& s) {
    return Object()
        .num("code", s.code)
        .str("kind", to_string(s.kind))
        .boolean("final", s.final)
        .str("label", s.label)
        .done();
}

std::string request_json(const HttpRequest& r, std::string_view base_url) {
    std::string headers = "[";
    for (const auto& [name, value] : r.headers) {
        if (headers.size() > 1) headers += ',';
        headers += '[';
        detail::append_quoted(headers, name);
        headers += ',';
        detail::append_quoted(headers, value);
        headers += ']';
    }
    headers += ']';
    return Object()
        .str("method", r.method)
        .str("url", r.url(base_url))
        .raw("headers", headers)
        .str("body", r.body)
        .done();
}

// ---- Argument helpers ----------------------------------------------------------------------------

Padding padding_of(const Args& a) {
    auto name = a.opt_str("padding");
    return name ? parse_padding(*name) : Padding::oaep_sha1;
}

// The pin is the hex SHA-256 of the SubjectPublicKeyInfo, any case, colons allowed.
void check_pin(const PublicKey& key, const Args& a) {
    auto pin = a.opt_str("fingerprint");
    if (!pin || pin->empty()) return;
    std::string want;
    for (char c : *pin) {
        if (c == ':') continue;
        want += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    const std::string got = key.fingerprint();
    if (want != got) {
        throw Error(ErrorCode::key_mismatch,
                    "the public key's SHA-256 fingerprint " + got + " differs from the pinned " +
                        want.substr(0, 64) + "; refusing to encrypt",
                    "fingerprint");
    }
}

const EndpointInfo& shopper_endpoint(const Args& a) {
    const EndpointInfo& e = endpoint_by_name(a.str("endpoint"));
    if (e.merchant_secret) {
        fail_validation("endpoint", std::string(e.name) +
                                        " needs the merchant's secret: call it from the merchant's "
                                        "server, never from a browser");
    }
    return e;
}

Limits limits_of(const Args& a) {
    Limits limits;
    if (auto names = a.strings("exchanges"); names && !names->empty()) limits.exchanges = std::move(*names);
    return limits;
}

// Canonical JSON of the exchange or bank payload in `order` (JSON text), validated.
std::string canonical_payload(Endpoint endpoint, const std::string& order_json, const Limits& limits) {
    if (endpoint == Endpoint::exchange_payment) {
        auto order = from_json<ExchangePayment>(order_json);
        validate(order, limits);
        return to_json(order);
    }
    auto order = from_json<BankPayment>(order_json);
    validate(order, limits);
    return to_json(order);
}

HttpRequest shopper_request(const EndpointInfo& e, const Args& a, const std::string& data) {
    switch (e.endpoint) {
        case Endpoint::exchange_payment: {
            const std::string exchange = a.str("exchange");
            return exchange_payment_request(exchange, data, a.str("token"), limits_of(a));
        }
        case Endpoint::bank_payment: return bank_payment_request(data, a.str("token"));
        case Endpoint::users_me: return users_me_request(a.str("token"));
        default: fail_validation("endpoint", "not a shopper endpoint");
    }
}

// ---- Ops -----------------------------------------------------------------------------------------

// {key, plaintext, padding?, fingerprint?} -> base64 ciphertext
std::string op_encrypt(const Args& a) {
    PublicKey key = PublicKey::parse(a.str("key"));
    check_pin(key, a);
    return json_quote(encrypt(key, a.str("plaintext"), padding_of(a)));
}

// {key} -> {fingerprint, bits}
std::string op_key_info(const Args& a) {
    PublicKey key = PublicKey::parse(a.str("key"));
    return Object().str("fingerprint", key.fingerprint()).num("bits", key.bits()).done();
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
    return Object().num("size", m.size).str("modules", bits).done();
}

// {order: JSON text} -> canonical JSON text of the validated payload
std::string op_exchange_payload(const Args& a) {
    return json_quote(canonical_payload(Endpoint::exchange_payment, a.str("order"), limits_of(a)));
}
std::string op_bank_payload(const Args& a) {
    return json_quote(canonical_payload(Endpoint::bank_payment, a.str("order"), limits_of(a)));
}

// {cart: JSON text of an array of {price, quantity, ...}} -> decimal text of sum(price * quantity)
std::string op_cart_total(const Args& a) {
    const detail::JsonTree tree = detail::parse_json(a.str("cart"), ErrorCode::validation);
    if (!tree.root().is_array()) fail_validation("cart", "must be a JSON array");
    Decimal total;
    std::size_t i = 0;
    for (detail::JsonValue item = tree.root().first_child(); item.valid(); item = item.next_sibling()) {
        const std::string path = "cart[" + std::to_string(i++) + "]";
        if (!item.is_object()) fail_validation(path, "must be an object");
        auto number = [&](std::string_view name) {
            detail::JsonValue found;
            for (detail::JsonValue m = item.first_child(); m.valid(); m = m.next_sibling()) {
                if (m.key() == name) found = m;
            }
            const std::string field = path + "." + std::string(name);
            if (!found.valid() || !found.is_number()) fail_validation(field, "must be a number");
            return Decimal::parse(found.text(), field);
        };
        total += number("price") * number("quantity");
    }
    return json_quote(total.to_string());
}

// {uri} -> {scheme, address, amount, value}
std::string op_check_payment_uri(const Args& a) {
    PaymentUri u = check_payment_uri(a.str("uri"));
    return Object()
        .str("scheme", u.scheme)
        .str("address", u.address)
        .str("amount", u.amount)
        .str("value", u.value)
        .done();
}

// {code} or {word} -> {code, kind, final, label}
std::string op_describe_status(const Args& a) {
    if (auto word = a.opt_str("word")) return status_json(describe_status_word(*word));
    if (!a.has("code")) fail_validation("code", "is required");
    return status_json(describe_status(a.integer("code", 0)));
}

// {endpoint, baseUrl, token, exchange?, data?, exchanges?} -> {method, url, headers, body}
std::string op_build_request(const Args& a) {
    const EndpointInfo& e = shopper_endpoint(a);
    std::string data = e.endpoint == Endpoint::users_me ? std::string() : a.str("data");
    return request_json(shopper_request(e, a, data), a.str("baseUrl"));
}

// The whole payment step in one call, so the order never crosses the boundary twice:
// {endpoint: exchange-pay|bank-pay, order: JSON text, key, padding?, fingerprint?, exchange?,
//  exchanges?, token, baseUrl} -> {method, url, headers, body}
std::string op_payment_request(const Args& a) {
    const EndpointInfo& e = shopper_endpoint(a);
    if (e.endpoint == Endpoint::users_me) fail_validation("endpoint", "is not a payment endpoint");
    PublicKey key = PublicKey::parse(a.str("key"));
    check_pin(key, a);
    const std::string payload = canonical_payload(e.endpoint, a.str("order"), limits_of(a));
    const std::string data = encrypt(key, payload, padding_of(a));
    return request_json(shopper_request(e, a, data), a.str("baseUrl"));
}

// {endpoint, status, body} -> exchange/bank: {transaction, status}; users-me: {firstName, fullname}.
// The core's parser checks the answer (and maps errors 418-422 etc.); the transaction goes back to
// JS as the body's own JSON, re-emitted compactly, so the module needs no Transaction writer.
std::string op_parse_response(const Args& a) {
    const EndpointInfo& e = shopper_endpoint(a);
    HttpResponse r{a.integer("status", 0), a.opt_str("body").value_or("")};
    if (e.endpoint == Endpoint::users_me) {
        const UsersMeResponse me = parse_users_me_response(r);
        const auto& profile = me.result.profile;
        const std::string first = profile && profile->first_name ? *profile->first_name : "";
        return Object().str("firstName", first).str("fullname", me.result.fullname.value_or("")).done();
    }
    const Transaction tx = parse_payment_response(r);
    std::string body;
    detail::append_compact(body, detail::parse_json(r.body, ErrorCode::bad_response).root());
    return Object().raw("transaction", body).raw("status", status_json(describe_status(tx))).done();
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
    {"checkPaymentUri", op_check_payment_uri},
    {"describeStatus", op_describe_status},
    {"buildRequest", op_build_request},
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
