// from_json: a JsonTree -> the models, with the type checks and nothing more (validate.hpp has the
// rules).
//
// Requests are read strictly: a member of the wrong type, a missing required member, an unknown
// member (likely a typo that would silently drop an optional field) and a repeated member are
// Error(validation). Responses are read leniently where the service may grow: unknown members go
// to `extra`, in their order and as they came, and of a repeated known member the last one wins,
// as in JSON.parse; wrong types and missing required members are Error(bad_response). Null reads
// as absent for an optional member (RawJson keeps it). Every message starts with the full path of
// the member ("result.meta.offerId: expected a string").
#include <algorithm>
#include <climits>
#include <type_traits>

#include "core/json_tree.hpp"
#include "paywasm/codec.hpp"

namespace paywasm::detail {
namespace {

struct Mode {
    ErrorCode code;
    bool request;
};

// Out of line and cold: the path becomes text only here, when an error names it.
[[noreturn, gnu::noinline, gnu::cold]] void fail(const Mode& m, const JsonPath& path,
                                                 const char* reason) {
    std::string where = path.str();
    std::string message = where.empty() ? reason : where + ": " + reason;
    throw Error(m.code, std::move(message), std::move(where));
}

// ---- Scalars ----

// A string member as a request may hold it: RapidJSON has checked the raw UTF-8, but an escaped
// lone low surrogate ("\udc00") still decodes to the three bytes ED B0..BF xx, which are not UTF-8.
bool has_lone_surrogate(std::string_view s) {
    for (std::size_t i = 0; i + 1 < s.size(); ++i)
        if (static_cast<unsigned char>(s[i]) == 0xED && static_cast<unsigned char>(s[i + 1]) >= 0xA0)
            return true;
    return false;
}

void read_value(const Mode& m, JsonValue v, const JsonPath& path, std::string& out) {
    if (!v.is_string()) fail(m, path, "expected a string");
    if (m.request && has_lone_surrogate(v.text()))
        fail(m, path, "is not valid UTF-8 (it holds a lone surrogate)");
    out.assign(v.text());
}

void read_value(const Mode& m, JsonValue v, const JsonPath& path, bool& out) {
    if (!v.is_bool()) fail(m, path, "expected a boolean");
    out = v.boolean();
}

// Integers are plain JSON integers ("-12"): no fraction, no exponent, within 64 bits.
void read_value(const Mode& m, JsonValue v, const JsonPath& path, long long& out) {
    if (!v.is_number()) fail(m, path, "expected an integer");
    std::string_view t = v.text();
    bool negative = t.front() == '-';
    if (negative) t.remove_prefix(1);
    if (t.find_first_not_of("0123456789") != std::string_view::npos)
        fail(m, path, "expected an integer");
    unsigned long long limit = negative ? 0ULL - static_cast<unsigned long long>(LLONG_MIN)
                                        : static_cast<unsigned long long>(LLONG_MAX);
    unsigned long long magnitude = 0;
    for (char c : t) {
        auto digit = static_cast<unsigned long long>(c - '0');
        if (magnitude > (limit - digit) / 10) fail(m, path, "integer out of range");
        magnitude = magnitude * 10 + digit;
    }
    out = negative ? static_cast<long long>(0ULL - magnitude) : static_cast<long long>(magnitude);
}

// The exact value of a JSON number's text (RapidJSON has checked its grammar), exponent included:
// "1.5e3" is 1500. A request's number keeps Decimal's limits (30 integer and 18 fractional
// digits). A response's number may have more fractional digits (a double the service computed,
// such as 1.2345678901234567e-7): it is rounded half away from zero to 18, and this is the only
// place the codec rounds.
Decimal number_value(const Mode& m, std::string_view text, const JsonPath& path) {
    bool negative = text.front() == '-';
    if (negative) text.remove_prefix(1);
    long long exponent = 0;
    std::size_t e = text.find_first_of("eE");
    if (e != std::string_view::npos) {
        std::string_view exp_text = text.substr(e + 1);
        bool exp_negative = exp_text.front() == '-';
        if (exp_text.front() == '-' || exp_text.front() == '+') exp_text.remove_prefix(1);
        for (char c : exp_text) exponent = std::min(exponent * 10 + (c - '0'), 1000000000LL);
        if (exp_negative) exponent = -exponent;
        text = text.substr(0, e);
    }
    // value = digits x 10^exponent
    std::string digits(text.substr(0, text.find('.')));
    if (std::size_t dot = text.find('.'); dot != std::string_view::npos) {
        digits.append(text.substr(dot + 1));
        exponent -= static_cast<long long>(text.size() - dot - 1);
    }
    std::size_t first = digits.find_first_not_of('0');
    if (first == std::string::npos) return Decimal();
    digits.erase(0, first);
    std::size_t last = digits.find_last_not_of('0');
    exponent += static_cast<long long>(digits.size() - 1 - last);
    digits.erase(last + 1);

    auto length = static_cast<long long>(digits.size());
    if (length + exponent > Decimal::kMaxIntegerDigits)
        fail(m, path, "number has more than 30 integer digits");
    Decimal value;
    if (exponent >= 0) {
        digits.append(static_cast<std::size_t>(exponent), '0');
        Decimal::try_parse((negative ? "-" : "") + digits, value);  // within limits: cannot fail
        return value;
    }
    long long fraction = -exponent;
    bool round_up = false;
    if (fraction > Decimal::kMaxFractionDigits) {
        if (m.request) fail(m, path, "number has more than 18 fractional digits");
        long long drop = fraction - Decimal::kMaxFractionDigits;
        round_up = drop <= length && digits[static_cast<std::size_t>(length - drop)] >= '5';
        digits = drop < length ? digits.substr(0, static_cast<std::size_t>(length - drop)) : "0";
        length = static_cast<long long>(digits.size());
        fraction = Decimal::kMaxFractionDigits;
    }
    std::string plain = negative ? "-" : "";
    if (length > fraction) {
        plain.append(digits, 0, static_cast<std::size_t>(length - fraction));
        plain += '.';
        plain.append(digits, static_cast<std::size_t>(length - fraction), std::string::npos);
    } else {
        plain += "0.";
        plain.append(static_cast<std::size_t>(fraction - length), '0');
        plain += digits;
    }
    Decimal::try_parse(plain, value);  // within limits: cannot fail
    if (round_up) {
        Decimal step;
        Decimal::try_parse(negative ? "-0.000000000000000001" : "0.000000000000000001", step);
        value += step;
    }
    return value;
}

Decimal decimal_string_value(const Mode& m, std::string_view text, const JsonPath& path) {
    Decimal d;
    if (Decimal::try_parse(text, d)) return d;
    std::string where = path.str();
    try {
        Decimal::parse(text, where);
    } catch (const Error& e) {
        throw Error(m.code, e.what(), where);  // Decimal's reason, the mode's error code
    }
    return d;
}

// How the spec carries an amount.
enum class Wire { number, string, number_or_string };

void read_value(const Mode& m, JsonValue v, const JsonPath& path, Decimal& out, Wire wire) {
    if (v.is_number() && wire != Wire::string) {
        out = number_value(m, v.text(), path);
    } else if (v.is_string() && wire != Wire::number) {
        out = decimal_string_value(m, v.text(), path);
    } else {
        fail(m, path, wire == Wire::number   ? "expected a number"
                      : wire == Wire::string ? "expected a decimal string"
                                             : "expected a number or a decimal string");
    }
}

// What the spec says of a value whose inner shape it does not show.
enum class Shape { any, object_or_null, array_or_null };

void read_value(const Mode& m, JsonValue v, const JsonPath& path, RawJson& out, Shape shape) {
    if (shape == Shape::object_or_null && !v.is_object() && !v.is_null())
        fail(m, path, "expected an object or null");
    if (shape == Shape::array_or_null && !v.is_array() && !v.is_null())
        fail(m, path, "expected an array or null");
    out.text.clear();
    append_compact(out.text, v);
}

// ---- Objects ----

// Every struct reader below; declared first so that the vector reader sees them all.
#define PAYWASM_READER(T) void read_value(const Mode&, JsonValue, const JsonPath&, T&);
PAYWASM_READER(CartItem)
PAYWASM_READER(ShippingAddress)
PAYWASM_READER(CustomerInfo)
PAYWASM_READER(CustomParam)
PAYWASM_READER(CustomParameter)
PAYWASM_READER(ExchangePayment)
PAYWASM_READER(BankPayment)
PAYWASM_READER(QrGenerateRequest)
PAYWASM_READER(QrTransactionMeta)
PAYWASM_READER(QrTransactionResult)
PAYWASM_READER(QrGenerateResponse)
PAYWASM_READER(StatusRefund)
PAYWASM_READER(CheckItem)
PAYWASM_READER(ChainHash)
PAYWASM_READER(TransactionMeta)
PAYWASM_READER(ShopData)
PAYWASM_READER(MerchantInfo)
PAYWASM_READER(Customer)
PAYWASM_READER(CurrencyInfo)
PAYWASM_READER(TxMetadata)
PAYWASM_READER(Transaction)
PAYWASM_READER(ShopperProfileDetails)
PAYWASM_READER(ShopperProfile)
PAYWASM_READER(UsersMeResponse)
PAYWASM_READER(DebitItem)
PAYWASM_READER(SubscriptionDebitRequest)
PAYWASM_READER(DebitEntry)
PAYWASM_READER(SubscriptionDebitResult)
PAYWASM_READER(SubscriptionCancelRequest)
PAYWASM_READER(SubscriptionCancelResult)
#undef PAYWASM_READER

template <class T, class... How>
void read_value(const Mode& m, JsonValue v, const JsonPath& path, std::vector<T>& out,
                How... how) {
    if (!v.is_array()) fail(m, path, "expected an array");
    out.clear();
    out.reserve(v.size());
    std::size_t i = 0;
    for (JsonValue e = v.first_child(); e.valid(); e = e.next_sibling(), ++i) {
        out.emplace_back();
        read_value(m, e, path.element(i), out.back(), how...);
    }
}

// Reads the members of one object by name and accounts for the ones nobody asked for. Lookups
// scan the members: a struct asks for a fixed number of names, so reading stays linear in the
// size of the object however many members a hostile body has.
class ObjectReader {
public:
    ObjectReader(const Mode& m, JsonValue v, const JsonPath& path) : m_(m), path_(path), object_(v) {
        if (!v.is_object()) fail(m_, path_, "expected an object");
        used_.assign(v.size(), 0);
    }

    JsonPath at(std::string_view name) const { return path_.member(name); }

    // The member called `name`, now counted as known, or an invalid value when there is none. A
    // repeated name is an error in a request; in a response the last one wins, as in JSON.parse.
    JsonValue find(std::string_view name) {
        JsonValue found;
        std::size_t i = 0;
        for (JsonValue c = object_.first_child(); c.valid(); c = c.next_sibling(), ++i) {
            if (c.key() != name) continue;
            if (found.valid() && m_.request) fail(m_, at(name), "member appears twice");
            found = c;
            used_[i] = 1;
        }
        return found;
    }

    // The name of the first member that starts with `prefix` and is longer, or "".
    std::string_view first_name_extending(std::string_view prefix) const {
        for (JsonValue c = object_.first_child(); c.valid(); c = c.next_sibling()) {
            std::string_view key = c.key();
            if (key.size() > prefix.size() && key.substr(0, prefix.size()) == prefix) return key;
        }
        return {};
    }

    template <class T, class... How>
    void required(std::string_view name, T& out, How... how) {
        JsonValue v = find(name);
        if (!v.valid()) fail(m_, at(name), "missing required member");
        read_value(m_, v, at(name), out, how...);
    }
    // Absent or null: `out` keeps its value.
    template <class T, class... How>
    void optional(std::string_view name, T& out, How... how) {
        JsonValue v = find(name);
        if (v.valid() && !v.is_null()) read_value(m_, v, at(name), out, how...);
    }
    // Absent or null: empty.
    template <class T, class... How>
    void optional(std::string_view name, std::optional<T>& out, How... how) {
        out.reset();
        JsonValue v = find(name);
        if (!v.valid() || v.is_null()) return;
        read_value(m_, v, at(name), out.emplace(), how...);
    }
    // Absent: empty; anything else (null too) kept as compact text.
    void raw(std::string_view name, RawJson& out, Shape shape) {
        out.text.clear();
        JsonValue v = find(name);
        if (v.valid()) read_value(m_, v, at(name), out, shape);
    }

    // The members nobody asked for. A request refuses the first one; a response gets them back
    // as the text of an object, in document order and as they came (a repeated unknown name
    // stays repeated, which means the same to JSON.parse) -- the `extra` of the models.
    std::string finish() const {
        std::string out = "{";
        std::size_t i = 0;
        for (JsonValue c = object_.first_child(); c.valid(); c = c.next_sibling(), ++i) {
            if (used_[i]) continue;
            if (m_.request) fail(m_, at(c.key()), "unknown member");
            if (out.size() > 1) out += ',';
            append_quoted(out, c.key());
            out += ':';
            append_compact(out, c);
        }
        return out + "}";
    }

private:
    const Mode& m_;
    JsonPath path_;
    JsonValue object_;
    std::vector<char> used_;
};

// ---- Requests ----

void read_value(const Mode& m, JsonValue v, const JsonPath& path, CartItem& out) {
    ObjectReader r(m, v, path);
    r.required("id", out.id);
    r.required("name", out.name);
    r.required("price", out.price, Wire::number);
    r.required("quantity", out.quantity, Wire::number);
    r.optional("localAmount", out.local_amount, Wire::number);
    r.optional("localCurrency", out.local_currency);
    r.optional("isSubscription", out.is_subscription);
    r.optional("frequency", out.frequency);
    r.optional("subscriptionPeriod", out.subscription_period);
    r.optional("merchantSubscriptionId", out.merchant_subscription_id);
    r.finish();
}

// Also read inside a response (txMetadata.shippingAddress), where unknown members are dropped:
// the model has no `extra` for them.
void read_value(const Mode& m, JsonValue v, const JsonPath& path, ShippingAddress& out) {
    ObjectReader r(m, v, path);
    r.optional("firstname", out.firstname);
    r.optional("lastname", out.lastname);
    r.optional("phoneNo", out.phone_no);
    r.optional("address1", out.address1);
    r.optional("address2", out.address2);
    r.optional("state", out.state);
    r.optional("city", out.city);
    r.optional("zipcode", out.zipcode);
    r.optional("country", out.country);
    r.optional("landmark", out.landmark);
    r.optional("email", out.email);
    r.finish();
}

void read_value(const Mode& m, JsonValue v, const JsonPath& path, CustomerInfo& out) {
    ObjectReader r(m, v, path);
    r.required("name", out.name);
    r.required("email", out.email);
    r.optional("phone", out.phone);
    r.optional("address", out.address);
    r.finish();
}

void read_value(const Mode& m, JsonValue v, const JsonPath& path, CustomParam& out) {
    ObjectReader r(m, v, path);
    r.required("name", out.name);
    r.required("value", out.value);
    r.finish();
}

void read_value(const Mode& m, JsonValue v, const JsonPath& path, CustomParameter& out) {
    ObjectReader r(m, v, path);
    r.required("returnMethod", out.return_method);
    r.required("params", out.params);
    r.finish();
}

void read_value(const Mode& m, JsonValue v, const JsonPath& path, ExchangePayment& out) {
    ObjectReader r(m, v, path);
    r.required("clientId", out.client_id);
    r.required("assets", out.assets);
    r.required("cart", out.cart);
    r.required("shippingAddress", out.shipping_address);
    r.required("offerId", out.offer_id);
    r.required("nativeAmount", out.native_amount, Wire::string);
    r.required("savepassword", out.savepassword);
    r.required("code2fa", out.code2fa);
    r.required("merchantStoreCurrency", out.merchant_store_currency);
    r.finish();
}

void read_value(const Mode& m, JsonValue v, const JsonPath& path, BankPayment& out) {
    ObjectReader r(m, v, path);
    r.required("clientId", out.client_id);
    r.required("amount", out.amount, Wire::number);
    r.required("accountId", out.account_id);
    r.required("cart", out.cart);
    r.required("stockId", out.stock_id);
    r.required("offerId", out.offer_id);
    r.required("merchantStoreCurrency", out.merchant_store_currency);
    r.required("hostedPageId", out.hosted_page_id);
    r.required("shippingAddress", out.shipping_address);
    r.finish();
}

void read_value(const Mode& m, JsonValue v, const JsonPath& path, QrGenerateRequest& out) {
    ObjectReader r(m, v, path);
    r.required("amount", out.amount, Wire::string);
    r.required("currency", out.currency);
    r.required("cryptoCurrency", out.crypto_currency);
    r.required("orderId", out.order_id);
    r.required("cart", out.cart);
    r.required("customerInfo", out.customer_info);
    r.optional("customParameter", out.custom_parameter);
    r.finish();
}

void read_value(const Mode& m, JsonValue v, const JsonPath& path, DebitItem& out) {
    ObjectReader r(m, v, path);
    r.required("subscriptionId", out.subscription_id);
    r.required("amount", out.amount, Wire::number);
    r.required("currency", out.currency);
    r.finish();
}

void read_value(const Mode& m, JsonValue v, const JsonPath& path,
                SubscriptionDebitRequest& out) {
    ObjectReader r(m, v, path);
    r.required("merchantAuth", out.merchant_auth);
    r.required("merchantId", out.merchant_id);
    r.optional("orderId", out.order_id);
    r.optional("items", out.items);
    r.finish();
}

void read_value(const Mode& m, JsonValue v, const JsonPath& path,
                SubscriptionCancelRequest& out) {
    ObjectReader r(m, v, path);
    r.required("merchantId", out.merchant_id);
    r.required("merchantAuth", out.merchant_auth);
    r.required("subscriptionId", out.subscription_id);
    r.finish();
}

// ---- QR result ----

void read_value(const Mode& m, JsonValue v, const JsonPath& path, QrTransactionMeta& out) {
    ObjectReader r(m, v, path);
    r.optional("offerId", out.offer_id);
    r.required("receiverAddress", out.receiver_address);
    r.required("qrString", out.qr_string);
    out.extra = r.finish();
}

void read_value(const Mode& m, JsonValue v, const JsonPath& path, QrTransactionResult& out) {
    ObjectReader r(m, v, path);
    r.required("totalAmount", out.total_amount, Wire::string);
    r.optional("currency", out.currency);
    r.optional("crytoCurrency", out.cryto_currency);
    r.required("id", out.id);
    r.required("meta", out.meta);
    out.extra = r.finish();
}

// `result` is required when ok is true; with ok false it is read only if present.
void read_value(const Mode& m, JsonValue v, const JsonPath& path, QrGenerateResponse& out) {
    ObjectReader r(m, v, path);
    r.required("ok", out.ok);
    if (out.ok)
        r.required("result", out.result);
    else
        r.optional("result", out.result);
    out.extra = r.finish();
}

// ---- Transaction ----

void read_value(const Mode& m, JsonValue v, const JsonPath& path, StatusRefund& out) {
    ObjectReader r(m, v, path);
    r.optional("pending", out.pending);
    r.optional("success", out.success);
    r.optional("rejected", out.rejected);
    out.extra = r.finish();
}

void read_value(const Mode& m, JsonValue v, const JsonPath& path, CheckItem& out) {
    ObjectReader r(m, v, path);
    r.optional("id", out.id);
    r.optional("num", out.num);
    r.optional("name", out.name);
    r.optional("price", out.price, Wire::number);
    r.optional("quantity", out.quantity, Wire::number);
    r.optional("localAmount", out.local_amount, Wire::number);
    r.optional("statusRefund", out.status_refund);
    r.optional("amountFinal", out.amount_final, Wire::number);
    out.extra = r.finish();
}

void read_value(const Mode& m, JsonValue v, const JsonPath& path, ChainHash& out) {
    ObjectReader r(m, v, path);
    r.optional("value", out.value);
    r.optional("network", out.network);
    out.extra = r.finish();
}

void read_value(const Mode& m, JsonValue v, const JsonPath& path, TransactionMeta& out) {
    ObjectReader r(m, v, path);
    r.optional("hash", out.hash);
    r.optional("offerId", out.offer_id);
    r.optional("receiverAddress", out.receiver_address);
    out.extra = r.finish();
}

void read_value(const Mode& m, JsonValue v, const JsonPath& path, ShopData& out) {
    ObjectReader r(m, v, path);
    r.optional("url", out.url);
    r.optional("logo", out.logo);
    r.optional("companyName", out.company_name);
    r.optional("description", out.description);
    out.extra = r.finish();
}

void read_value(const Mode& m, JsonValue v, const JsonPath& path, MerchantInfo& out) {
    ObjectReader r(m, v, path);
    r.optional("shopData", out.shop_data);
    out.extra = r.finish();
}

void read_value(const Mode& m, JsonValue v, const JsonPath& path, Customer& out) {
    ObjectReader r(m, v, path);
    r.optional("email", out.email);
    r.optional("fullname", out.fullname);
    out.extra = r.finish();
}

void read_value(const Mode& m, JsonValue v, const JsonPath& path, CurrencyInfo& out) {
    ObjectReader r(m, v, path);
    r.optional("isFiat", out.is_fiat);
    out.extra = r.finish();
}

void read_value(const Mode& m, JsonValue v, const JsonPath& path, TxMetadata& out) {
    ObjectReader r(m, v, path);
    r.optional("id", out.id);
    r.optional("shippingAddress", out.shipping_address);
    r.optional("nativeConversionRate", out.native_conversion_rate);
    out.extra = r.finish();
}

// The immediate status words of an exchange payment and the codes they map to (protocol.hpp).
bool status_word_code(std::string_view word, int& code) {
    if (word == "pending" || word == "processing") code = 0;
    else if (word == "completed") code = 1;
    else if (word == "canceled") code = -1;
    else return false;
    return true;
}

void read_status(const Mode& m, ObjectReader& r, Transaction& out) {
    JsonValue v = r.find("status");
    JsonPath path = r.at("status");
    if (!v.valid()) fail(m, path, "missing required member");
    if (v.is_string()) {
        if (!status_word_code(v.text(), out.status))
            fail(m, path, "expected an integer or one of pending, processing, canceled, completed");
        out.status_word = std::string(v.text());
        return;
    }
    if (!v.is_number()) fail(m, path, "expected an integer or a status word");
    long long code = 0;
    read_value(m, v, path, code);
    if (code < INT_MIN || code > INT_MAX) fail(m, path, "integer out of range");
    out.status = static_cast<int>(code);
    out.status_word.reset();
}

// `reference<processor>`: the first member named "reference" plus at least one more character.
void read_reference(const Mode& m, ObjectReader& r, Transaction& out) {
    constexpr std::string_view kPrefix = "reference";
    out.reference_value.reset();
    std::string_view name = r.first_name_extending(kPrefix);
    out.reference_field = std::string(name);
    if (name.empty()) return;
    JsonValue v = r.find(name);
    if (v.is_null()) return;
    if (!v.is_string()) fail(m, r.at(name), "expected a string or null");
    out.reference_value = std::string(v.text());
}

void read_value(const Mode& m, JsonValue v, const JsonPath& path, Transaction& out) {
    ObjectReader r(m, v, path);
    r.required("id", out.id);
    read_status(m, r, out);
    r.optional("nativeAmount", out.native_amount, Wire::string);
    r.optional("nativeCurrency", out.native_currency);
    r.optional("amount", out.amount, Wire::string);
    r.optional("receivedAmount", out.received_amount, Wire::string);
    r.optional("currency", out.currency);
    r.optional("type", out.type);
    r.optional("description", out.description);
    r.optional("check", out.check);
    r.raw("subscriptionIds", out.subscription_ids, Shape::array_or_null);
    r.optional("subscriptionOrder", out.subscription_order);
    r.optional("meta", out.meta);
    r.optional("stockId", out.stock_id);
    r.optional("userId", out.user_id);
    r.optional("merchantId", out.merchant_id);
    r.optional("settlementId", out.settlement_id);
    r.optional("statusRefund", out.status_refund);
    r.optional("localAmount", out.local_amount, Wire::string);
    r.optional("localCurrency", out.local_currency);
    read_reference(m, r, out);
    r.optional("merchantPayableAmount", out.merchant_payable_amount, Wire::string);
    r.optional("errorMessage", out.error_message);
    r.optional("settlementStatus", out.settlement_status);
    r.optional("txMetaId", out.tx_meta_id);
    r.optional("partnerId", out.partner_id);
    r.optional("createdBy", out.created_by);
    r.optional("createdAt", out.created_at);
    r.optional("updatedAt", out.updated_at);
    r.optional("merchant", out.merchant);
    r.optional("customer", out.customer);
    r.optional("currencyInfo", out.currency_info);
    r.raw("stock", out.stock, Shape::object_or_null);
    r.raw("partner", out.partner, Shape::object_or_null);
    r.optional("txMetadata", out.tx_metadata);
    r.optional("receivedAmountFinal", out.received_amount_final, Wire::number);
    r.optional("receivedAmountCal", out.received_amount_cal, Wire::number);
    out.extra = r.finish();
}

// ---- Shopper ----

void read_value(const Mode& m, JsonValue v, const JsonPath& path, ShopperProfileDetails& out) {
    ObjectReader r(m, v, path);
    r.optional("zip", out.zip);
    r.optional("city", out.city);
    r.optional("phone", out.phone);
    r.optional("state", out.state);
    r.optional("address", out.address);
    r.optional("country", out.country);
    r.optional("lastName", out.last_name);
    r.optional("firstName", out.first_name);
    r.optional("dateOfBirth", out.date_of_birth);
    r.optional("phoneCountry", out.phone_country);
    out.extra = r.finish();
}

void read_value(const Mode& m, JsonValue v, const JsonPath& path, ShopperProfile& out) {
    ObjectReader r(m, v, path);
    r.optional("id", out.id);
    r.optional("email", out.email);
    r.optional("username", out.username);
    r.optional("fullname", out.fullname);
    r.optional("avatar", out.avatar);
    r.optional("profile", out.profile);
    r.optional("status", out.status);
    r.optional("type", out.type);
    r.optional("kybCryptoStatus", out.kyb_crypto_status);
    r.optional("kybBankStatus", out.kyb_bank_status);
    r.raw("shopData", out.shop_data, Shape::object_or_null);
    r.raw("withdrawalAddresses", out.withdrawal_addresses, Shape::array_or_null);
    r.optional("ssoStatus", out.sso_status);
    r.optional("enableCancelSubscription", out.enable_cancel_subscription);
    r.raw("verification", out.verification, Shape::any);
    r.raw("graphSettings", out.graph_settings, Shape::array_or_null);
    r.optional("is2faEnabled", out.is2fa_enabled);
    r.optional("enableBankPayment", out.enable_bank_payment);
    r.raw("verificationStatus", out.verification_status, Shape::any);
    out.extra = r.finish();
}

// `result` is required when ok is true; with ok false it is read only if present.
void read_value(const Mode& m, JsonValue v, const JsonPath& path, UsersMeResponse& out) {
    ObjectReader r(m, v, path);
    r.required("ok", out.ok);
    if (out.ok)
        r.required("result", out.result);
    else
        r.optional("result", out.result);
    out.extra = r.finish();
}

// ---- Subscriptions ----

void read_value(const Mode& m, JsonValue v, const JsonPath& path, DebitEntry& out) {
    ObjectReader r(m, v, path);
    r.optional("transactionId", out.transaction_id);
    r.optional("amount", out.amount, Wire::number_or_string);
    r.optional("currency", out.currency);
    r.optional("rateDivisor", out.rate_divisor, Wire::number_or_string);
    r.optional("orderId", out.order_id);
    r.optional("status", out.status);
    r.optional("userId", out.user_id);
    r.optional("merchantId", out.merchant_id);
    r.optional("subscriptionId", out.subscription_id);
    out.extra = r.finish();
}

void read_value(const Mode& m, JsonValue v, const JsonPath& path,
                SubscriptionDebitResult& out) {
    ObjectReader envelope(m, v, path);
    envelope.required("status", out.status);
    JsonValue result = envelope.find("result");
    if (!result.valid()) fail(m, envelope.at("result"), "missing required member");
    JsonPath result_path = envelope.at("result");
    ObjectReader r(m, result, result_path);
    r.optional("data", out.data);
    r.optional("errors", out.errors, Shape::any);
    out.extra = r.finish();
    out.envelope_extra = envelope.finish();
}

void read_value(const Mode& m, JsonValue v, const JsonPath& path,
                SubscriptionCancelResult& out) {
    ObjectReader envelope(m, v, path);
    envelope.required("status", out.status);
    JsonValue result = envelope.find("result");
    if (!result.valid()) fail(m, envelope.at("result"), "missing required member");
    JsonPath result_path = envelope.at("result");
    ObjectReader r(m, result, result_path);
    r.required("success", out.success);
    out.extra = r.finish();
    out.envelope_extra = envelope.finish();
}

template <class T>
constexpr bool kIsRequest =
    std::is_same_v<T, ExchangePayment> || std::is_same_v<T, BankPayment> ||
    std::is_same_v<T, QrGenerateRequest> || std::is_same_v<T, SubscriptionDebitRequest> ||
    std::is_same_v<T, SubscriptionCancelRequest> || std::is_same_v<T, CartItem> ||
    std::is_same_v<T, ShippingAddress>;

}  // namespace

template <class T>
T read_document(std::string_view json) {
    static const Mode mode{kIsRequest<T> ? ErrorCode::validation : ErrorCode::bad_response,
                           kIsRequest<T>};
    JsonTree tree = parse_json(json, mode.code);
    T out{};
    read_value(mode, tree.root(), JsonPath{}, out);
    return out;
}

}  // namespace paywasm::detail

namespace paywasm {

template <class T>
T from_json(std::string_view json) {
    return detail::read_document<T>(json);
}

// Requests (Error(validation)).
template ExchangePayment from_json<ExchangePayment>(std::string_view);
template BankPayment from_json<BankPayment>(std::string_view);
template QrGenerateRequest from_json<QrGenerateRequest>(std::string_view);
template SubscriptionDebitRequest from_json<SubscriptionDebitRequest>(std::string_view);
template SubscriptionCancelRequest from_json<SubscriptionCancelRequest>(std::string_view);
template CartItem from_json<CartItem>(std::string_view);
template ShippingAddress from_json<ShippingAddress>(std::string_view);
// Responses and their parts (Error(bad_response)).
template QrGenerateResponse from_json<QrGenerateResponse>(std::string_view);
template QrTransactionResult from_json<QrTransactionResult>(std::string_view);
template QrTransactionMeta from_json<QrTransactionMeta>(std::string_view);
template Transaction from_json<Transaction>(std::string_view);
template StatusRefund from_json<StatusRefund>(std::string_view);
template CheckItem from_json<CheckItem>(std::string_view);
template ChainHash from_json<ChainHash>(std::string_view);
template TransactionMeta from_json<TransactionMeta>(std::string_view);
template ShopData from_json<ShopData>(std::string_view);
template MerchantInfo from_json<MerchantInfo>(std::string_view);
template Customer from_json<Customer>(std::string_view);
template CurrencyInfo from_json<CurrencyInfo>(std::string_view);
template TxMetadata from_json<TxMetadata>(std::string_view);
template ShopperProfileDetails from_json<ShopperProfileDetails>(std::string_view);
template ShopperProfile from_json<ShopperProfile>(std::string_view);
template UsersMeResponse from_json<UsersMeResponse>(std::string_view);
template DebitEntry from_json<DebitEntry>(std::string_view);
template SubscriptionDebitResult from_json<SubscriptionDebitResult>(std::string_view);
template SubscriptionCancelResult from_json<SubscriptionCancelResult>(std::string_view);

}  // namespace paywasm
