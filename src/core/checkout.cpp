// The product's operations (paywasm/checkout.hpp): each one the single place where its order is
// shaped, checked, encrypted and turned into a request.
#include "paywasm/checkout.hpp"

#include <utility>

#include "paywasm/codec.hpp"
#include "paywasm/json.hpp"
#include "paywasm/text.hpp"

namespace paywasm {

// ---- Shared decisions ----------------------------------------------------------------------------

namespace {

// Asset codes are upper case on the wire ("btc" from a page attribute means BTC).
std::string asset_code(std::string_view code) {
    std::string out(code);
    for (char& c : out) {
        if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    }
    return out;
}

void complete_cart(std::vector<CartItem>& cart, const std::string& currency) {
    for (CartItem& item : cart) {
        if (!item.local_amount) item.local_amount = item.price;
        if (!item.local_currency) item.local_currency = currency;
    }
}

}  // namespace

void complete_order_defaults(ExchangePayment& order) {
    order.assets = asset_code(order.assets);
    complete_cart(order.cart, order.merchant_store_currency);
    if (!order.native_amount) order.native_amount = cart_total(order.cart);
}

void complete_order_defaults(BankPayment& order) {
    complete_cart(order.cart, order.merchant_store_currency);
    if (!order.amount) order.amount = cart_total(order.cart);
}

Decimal require_session_amount(const std::vector<CartItem>& cart, std::string_view session_amount) {
    const Decimal fixed = Decimal::parse(session_amount, "amount");
    Decimal total = cart_total(cart);
    if (total != fixed) {
        fail_validation("cart", "the cart adds up to " + total.to_string() + ", the order's fixed amount is " +
                                    fixed.to_string());
    }
    return total;
}

PublicKey load_merchant_key(const MerchantKey& k) {
    PublicKey key = PublicKey::parse(k.pem_or_der);
    if (!k.pin.empty() && !key.matches_fingerprint(k.pin)) {
        throw Error(ErrorCode::key_mismatch,
                    "the public key's SHA-256 fingerprint " + key.fingerprint() + " differs from the pinned " +
                        escape_untrusted(k.pin, 95) + "; refusing to encrypt",
                    "fingerprint");
    }
    return key;
}

// ---- From a checkout to the QR order -------------------------------------------------------------

QrGenerateRequest qr_order(const Checkout& c, std::string_view crypto_currency) {
    QrGenerateRequest q;
    q.amount = cart_total(c.cart);
    q.currency = c.currency;
    q.crypto_currency = asset_code(crypto_currency);
    q.order_id = c.offer_id;
    for (const CartItem& item : c.cart) {
        CartItem line = item;  // the QR form has no local fields
        line.local_amount.reset();
        line.local_currency.reset();
        q.cart.push_back(std::move(line));
    }
    if (c.customer_info) {
        q.customer_info = *c.customer_info;
    } else if (c.shipping_address) {
        const ShippingAddress& a = *c.shipping_address;
        std::string name = a.firstname.value_or("");
        if (a.lastname && !a.lastname->empty()) name += (name.empty() ? "" : " ") + *a.lastname;
        q.customer_info.name = name;
        q.customer_info.email = a.email.value_or("");
        if (a.phone_no && !a.phone_no->empty()) q.customer_info.phone = a.phone_no;
    }
    if (q.customer_info.name.empty() || q.customer_info.email.empty()) {
        fail_validation("customerInfo",
                        "the QR method needs the customer's name and e-mail: give customerInfo, or a "
                        "shippingAddress with firstname and email");
    }
    return q;
}

// ---- Requests --------------------------------------------------------------------------------------

std::string payment_payload(ExchangePayment order, const Limits& limits) {
    complete_order_defaults(order);
    validate(order, limits);
    return to_json(order);
}

std::string payment_payload(BankPayment order, const Limits& limits) {
    complete_order_defaults(order);
    validate(order, limits);
    return to_json(order);
}

HttpRequest prepare_exchange_payment(ExchangePayment order, std::string_view exchange,
                                     const MerchantKey& key, std::string_view shopper_token,
                                     const Limits& limits) {
    validate_exchange_name(exchange, limits);
    const PublicKey public_key = load_merchant_key(key);
    const std::string data = encrypt(public_key, payment_payload(std::move(order), limits), key.padding);
    return exchange_payment_request(exchange, data, shopper_token, limits);
}

HttpRequest prepare_bank_payment(BankPayment order, const MerchantKey& key,
                                 std::string_view shopper_token, const Limits& limits) {
    const PublicKey public_key = load_merchant_key(key);
    const std::string data = encrypt(public_key, payment_payload(std::move(order), limits), key.padding);
    return bank_payment_request(data, shopper_token);
}

HttpRequest prepare_qr_generate(const QrGenerateRequest& request, std::string_view merchant_token,
                                const Limits& limits) {
    validate(request, limits);
    return qr_generate_request(request, merchant_token);
}

namespace {

// Debit and cancel: an empty merchantAuth is made from merchantId with the merchant's key.
template <class Request>
void complete_merchant_auth(Request& request, const MerchantKey& key) {
    if (!request.merchant_auth.empty()) return;
    if (request.merchant_id.empty()) fail_validation("merchantId", "is required");
    request.merchant_auth = merchant_auth(load_merchant_key(key), request.merchant_id, key.padding);
}

}  // namespace

namespace {
HttpRequest with_merchant_token(HttpRequest request, std::string_view merchant_token) {
    if (!merchant_token.empty()) request.headers.emplace_back("Authorization", "Bearer " + std::string(merchant_token));
    return request;
}
}  // namespace

HttpRequest prepare_subscription_debit(SubscriptionDebitRequest request, const MerchantKey& key,
                                       std::string_view merchant_token, const Limits& limits) {
    complete_merchant_auth(request, key);
    validate(request, limits);
    return with_merchant_token(subscription_debit_request(request), merchant_token);
}

HttpRequest prepare_subscription_cancel(SubscriptionCancelRequest request, const MerchantKey& key,
                                        std::string_view merchant_token, const Limits& limits) {
    complete_merchant_auth(request, key);
    validate(request, limits);
    return with_merchant_token(subscription_cancel_request(request), merchant_token);
}

// ---- Webhooks ------------------------------------------------------------------------------------------

namespace {

[[noreturn]] void malformed(const std::string& what) {
    throw Error(ErrorCode::validation, "webhook body: " + what);
}

JsonValue need_member(JsonValue obj, std::string_view name, const char* path) {
    JsonValue m = obj.member(name);
    if (!m.valid()) malformed(std::string(path) + " is missing");
    return m;
}

// A copy beside data.data that disagrees with the signed transaction means someone edited it.
void check_copy(JsonValue data, std::string_view name, const std::string& signed_value) {
    JsonValue m = data.member(name);
    if (!m.valid() || m.is_null()) return;
    std::string copy;
    if (m.is_string()) copy = std::string(m.text());
    else if (auto n = m.integer()) copy = std::to_string(*n);
    else malformed("data." + std::string(name) + " has the wrong type");
    if (copy != signed_value) {
        throw Error(ErrorCode::crypto, "data." + std::string(name) + " (" + escape_untrusted(copy, 64) +
                                           ") differs from the signed transaction (" +
                                           escape_untrusted(signed_value, 64) + ")");
    }
}

}  // namespace

VerifiedWebhook verify_webhook(std::string_view body, const PublicKey& service_key) {
    JsonDocument doc;
    try {
        doc = parse_json(body, ErrorCode::validation);
    } catch (const Error& e) {
        malformed(e.what());
    }
    if (!doc.root().is_object()) malformed("not a JSON object");
    const JsonValue data = need_member(doc.root(), "data", "data");
    if (!data.is_object()) malformed("data is not an object");
    const JsonValue inner = need_member(data, "data", "data.data");
    if (!inner.is_string()) malformed("data.data is not a string");
    const JsonValue signature = need_member(doc.root(), "signature", "signature");
    if (!signature.is_string()) malformed("signature is not a string");

    VerifiedWebhook out;
    out.signed_json = std::string(inner.text());
    if (!verify_sha256(service_key, out.signed_json, signature.text())) {
        throw Error(ErrorCode::crypto, "the signature does not verify over data.data with this public key");
    }
    out.transaction = from_json<Transaction>(out.signed_json);
    const Transaction& tx = out.transaction;
    check_copy(data, "transactionId", tx.id);
    check_copy(data, "status", std::to_string(tx.status));
    if (tx.meta && tx.meta->offer_id) check_copy(data, "offerId", *tx.meta->offer_id);
    return out;
}

// ---- Errors as JSON ----------------------------------------------------------------------------------

std::string error_json(std::string_view code, std::string_view message, std::string_view field,
                       int http_status) {
    return JsonWriter()
        .begin_object()
        .str("code", code)
        .str("message", message)
        .str("field", field)
        .num("httpStatus", http_status)
        .end_object()
        .take();
}

std::string error_json(const Error& e) {
    return error_json(to_string(e.code()), e.what(), e.field(), e.http_status());
}

// ---- Forwarded events ------------------------------------------------------------------------------

namespace {
// The v1 scheme: HMAC-SHA256 over "<t>.<body>", hex.
std::string event_mac(std::string_view secret, std::string_view t, std::string_view body) {
    std::string message;
    message.reserve(t.size() + 1 + body.size());
    message.append(t).append(".").append(body);
    return hmac_sha256_hex(secret, message);
}
}  // namespace

std::string sign_event(std::string_view secret, std::string_view body, long long unix_seconds) {
    const std::string t = std::to_string(unix_seconds);
    return "t=" + t + ",v1=" + event_mac(secret, t, body);
}

void verify_event(std::string_view secret, std::string_view body, std::string_view header,
                  long long now_unix_seconds, long long tolerance_seconds) {
    const char* field = "Paywasm-Signature";
    std::optional<long long> t;
    std::string t_text;
    std::vector<std::string> signatures;
    std::size_t pos = 0;
    while (pos <= header.size()) {
        std::size_t end = header.find(',', pos);
        if (end == std::string_view::npos) end = header.size();
        std::string_view part = header.substr(pos, end - pos);
        while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
        std::size_t eq = part.find('=');
        if (eq == std::string_view::npos) fail_validation(field, "expected t=<seconds>,v1=<hex>");
        std::string_view key = part.substr(0, eq), value = part.substr(eq + 1);
        if (key == "t") {
            if (value.empty() || value.size() > 18 || value.find_first_not_of("0123456789") != std::string_view::npos) {
                fail_validation(field, "t must be the unix time in seconds");
            }
            t_text = std::string(value);
            t = std::stoll(t_text);
        } else if (key == "v1") {
            if (value.size() != 64 || value.find_first_not_of("0123456789abcdef") != std::string_view::npos) {
                fail_validation(field, "v1 must be 64 lower-case hex digits");
            }
            signatures.emplace_back(value);
        }  // other schemes are ignored, so a later v2 can be added beside v1
        pos = end + 1;
    }
    if (!t || signatures.empty()) fail_validation(field, "expected t=<seconds>,v1=<hex>");
    const std::string want = event_mac(secret, t_text, body);
    bool match = false;
    for (const auto& sig : signatures) match = constant_time_equal(want, sig) || match;
    if (!match) throw Error(ErrorCode::crypto, "the event signature does not match its body", "signature");
    const long long age = now_unix_seconds - *t;
    if (age > tolerance_seconds || -age > tolerance_seconds) {
        throw Error(ErrorCode::crypto, "the event timestamp is " + std::to_string(age) +
                                           " s from now, outside the tolerance of " +
                                           std::to_string(tolerance_seconds) + " s (a replay?)",
                    "timestamp");
    }
}

}  // namespace paywasm
