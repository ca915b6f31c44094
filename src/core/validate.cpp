// The request rules of validate.hpp. Each check names the field path; the first broken rule throws.
#include "paywasm/validate.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "core/utf8.hpp"
#include "paywasm/error.hpp"
#include "paywasm/text.hpp"

namespace paywasm {

namespace {

// Active ISO 4217 codes (2024 list), sorted, for binary search.
constexpr const char* kFiatCodes[] = {
    "AED", "AFN", "ALL", "AMD", "ANG", "AOA", "ARS", "AUD", "AWG", "AZN", "BAM", "BBD", "BDT", "BGN",
    "BHD", "BIF", "BMD", "BND", "BOB", "BRL", "BSD", "BTN", "BWP", "BYN", "BZD", "CAD", "CDF", "CHF",
    "CLP", "CNY", "COP", "CRC", "CUP", "CVE", "CZK", "DJF", "DKK", "DOP", "DZD", "EGP", "ERN", "ETB",
    "EUR", "FJD", "FKP", "GBP", "GEL", "GHS", "GIP", "GMD", "GNF", "GTQ", "GYD", "HKD", "HNL", "HTG",
    "HUF", "IDR", "ILS", "INR", "IQD", "IRR", "ISK", "JMD", "JOD", "JPY", "KES", "KGS", "KHR", "KMF",
    "KPW", "KRW", "KWD", "KYD", "KZT", "LAK", "LBP", "LKR", "LRD", "LSL", "LYD", "MAD", "MDL", "MGA",
    "MKD", "MMK", "MNT", "MOP", "MRU", "MUR", "MVR", "MWK", "MXN", "MYR", "MZN", "NAD", "NGN", "NIO",
    "NOK", "NPR", "NZD", "OMR", "PAB", "PEN", "PGK", "PHP", "PKR", "PLN", "PYG", "QAR", "RON", "RSD",
    "RUB", "RWF", "SAR", "SBD", "SCR", "SDG", "SEK", "SGD", "SHP", "SLE", "SOS", "SRD", "SSP", "STN",
    "SVC", "SYP", "SZL", "THB", "TJS", "TMT", "TND", "TOP", "TRY", "TTD", "TWD", "TZS", "UAH", "UGX",
    "USD", "UYU", "UZS", "VES", "VND", "VUV", "WST", "XAF", "XCD", "XOF", "XPF", "YER", "ZAR", "ZMW",
    "ZWL",
};

constexpr const char* kFrequencies[] = {"weekly", "monthly", "quarterly", "half-yearly", "yearly"};

std::string at(const std::string& base, const char* member) {
    return base.empty() ? std::string(member) : base + "." + member;
}
std::string index(const std::string& base, std::size_t i) { return base + "[" + std::to_string(i) + "]"; }

// Every string the service receives: valid UTF-8, bounded, no controls, no bidi overrides (which
// would let a name display differently from what it is).
void check_text(const std::string& path, std::string_view s, const Limits& limits, bool required) {
    if (required && s.empty()) fail_validation(path, "is required");
    if (s.size() > limits.max_string_bytes) {
        fail_validation(path, "is " + std::to_string(s.size()) + " bytes; the limit is " +
                                  std::to_string(limits.max_string_bytes));
    }
    for (std::size_t i = 0; i < s.size();) {
        std::uint32_t cp = 0;
        std::size_t n = detail::utf8_decode(s, i, cp);
        if (n == 0) fail_validation(path, "is not valid UTF-8 (byte " + std::to_string(i) + ")");
        if (detail::is_control(cp)) {
            fail_validation(path, "contains a control character at byte " + std::to_string(i));
        }
        if (detail::is_bidi_override(cp)) {
            fail_validation(path, "contains a bidirectional override character at byte " + std::to_string(i));
        }
        i += n;
    }
}

void check_optional_text(const std::string& path, const std::optional<std::string>& s, const Limits& limits) {
    if (s) check_text(path, *s, limits, false);
}

void check_email(const std::string& path, std::string_view s) {
    auto atpos = s.find('@');
    if (atpos == std::string_view::npos || atpos == 0 || atpos + 1 >= s.size() ||
        s.find('@', atpos + 1) != std::string_view::npos || s.find(' ') != std::string_view::npos) {
        fail_validation(path, "is not an email address");
    }
}

void check_fiat(const std::string& path, std::string_view code) {
    if (code.empty()) fail_validation(path, "is required");
    if (!is_fiat_currency(code)) {
        fail_validation(path, "'" + escape_untrusted(code, 16) +
                                  "' is not an ISO 4217 currency code (three capital letters, e.g. USD)");
    }
}

void check_crypto(const std::string& path, std::string_view code) {
    if (code.empty()) fail_validation(path, "is required");
    if (!is_crypto_currency(code)) {
        fail_validation(path, "'" + escape_untrusted(code, 16) +
                                  "' is not a crypto currency code (2-10 of A-Z, 0-9, e.g. BTC)");
    }
}

void check_positive(const std::string& path, const Decimal& d) {
    if (d.is_negative() || d.is_zero()) fail_validation(path, "must be > 0");
}
void check_not_negative(const std::string& path, const Decimal& d) {
    if (d.is_negative()) fail_validation(path, "must be >= 0");
}

void check_subscription_period(const std::string& path, std::string_view p) {
    std::size_t digits = 0;
    while (digits < p.size() && p[digits] >= '0' && p[digits] <= '9') ++digits;
    bool ok = digits >= 1 && digits <= 3 && p.size() == digits + 1 && p[0] != '0' &&
              std::strchr("dwmy", p[digits]) != nullptr;
    if (!ok) fail_validation(path, "must be [number][period] with period d, w, m or y (e.g. 12m)");
}

// exchange: the local fields are required; checkout: they are checked when given (defaults come
// later, from complete_order_defaults); qr: they are not part of the form.
enum class CartForm { qr, exchange, checkout };

void check_cart(const std::vector<CartItem>& cart, CartForm form, const Limits& limits) {
    if (cart.empty()) fail_validation("cart", "must have at least one item");
    if (cart.size() > limits.max_cart_items) {
        fail_validation("cart", "has " + std::to_string(cart.size()) + " items; the limit is " +
                                    std::to_string(limits.max_cart_items));
    }
    for (std::size_t i = 0; i < cart.size(); ++i) {
        const CartItem& item = cart[i];
        const std::string p = index("cart", i);
        check_text(at(p, "id"), item.id, limits, true);
        check_text(at(p, "name"), item.name, limits, true);
        check_not_negative(at(p, "price"), item.price);
        check_positive(at(p, "quantity"), item.quantity);
        if (form == CartForm::exchange) {
            if (!item.local_amount) fail_validation(at(p, "localAmount"), "is required");
            if (!item.local_currency) fail_validation(at(p, "localCurrency"), "is required");
        }
        if (form != CartForm::qr) {
            if (item.local_amount) check_not_negative(at(p, "localAmount"), *item.local_amount);
            if (item.local_currency) check_fiat(at(p, "localCurrency"), *item.local_currency);
        }
        const bool subscription = item.is_subscription.value_or(false);
        if (!subscription) {
            const char* stray = item.frequency ? "frequency"
                              : item.subscription_period ? "subscriptionPeriod"
                              : item.merchant_subscription_id ? "merchantSubscriptionId" : nullptr;
            if (stray) fail_validation(at(p, stray), "is only allowed when isSubscription is true");
            continue;
        }
        if (!item.frequency) fail_validation(at(p, "frequency"), "is required for a subscription item");
        if (std::none_of(std::begin(kFrequencies), std::end(kFrequencies),
                         [&](const char* f) { return *item.frequency == f; })) {
            fail_validation(at(p, "frequency"), "must be one of weekly, monthly, quarterly, half-yearly, yearly");
        }
        if (item.subscription_period) check_subscription_period(at(p, "subscriptionPeriod"), *item.subscription_period);
        check_optional_text(at(p, "merchantSubscriptionId"), item.merchant_subscription_id, limits);
    }
}

void check_total(const std::string& path, const Decimal& total, const std::vector<CartItem>& cart,
                 const Limits& limits) {
    check_positive(path, total);
    if (!limits.check_totals) return;
    const Decimal sum = cart_total(cart);
    if (sum != total) {
        fail_validation(path, total.to_string() + " does not equal the cart total " + sum.to_string() +
                                  " (sum of price * quantity)");
    }
}
void check_total(const std::string& path, const std::optional<Decimal>& total, const std::vector<CartItem>& cart,
                 const Limits& limits) {
    if (!total) fail_validation(path, "is required (complete_order_defaults() sets it to the cart total)");
    check_total(path, *total, cart, limits);
}

void check_address(const std::string& path, const ShippingAddress& a, const Limits& limits) {
    const std::pair<const char*, const std::optional<std::string>*> fields[] = {
        {"firstname", &a.firstname}, {"lastname", &a.lastname}, {"phoneNo", &a.phone_no},
        {"address1", &a.address1},   {"address2", &a.address2}, {"state", &a.state},
        {"city", &a.city},           {"zipcode", &a.zipcode},   {"country", &a.country},
        {"landmark", &a.landmark},   {"email", &a.email},
    };
    for (const auto& [name, value] : fields) check_optional_text(at(path, name), *value, limits);
    if (a.email && !a.email->empty()) check_email(at(path, "email"), *a.email);
}

void check_code2fa(std::string_view code) {
    if (code.empty()) return;
    bool digits = std::all_of(code.begin(), code.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!digits || code.size() < 4 || code.size() > 10) fail_validation("code2fa", "must be empty or 4-10 digits");
}

}  // namespace

Decimal cart_total(const std::vector<CartItem>& cart) {
    Decimal sum;
    for (const CartItem& item : cart) sum += item.price * item.quantity;
    return sum;
}

bool is_fiat_currency(std::string_view code) {
    if (code.size() != 3) return false;
    return std::binary_search(std::begin(kFiatCodes), std::end(kFiatCodes), code,
                              [](std::string_view a, std::string_view b) { return a < b; });
}

int fiat_minor_units(std::string_view code) {
    if (!is_fiat_currency(code)) return -1;
    // ISO 4217 (2024) for the codes of kFiatCodes; every other one has two.
    constexpr std::string_view kNone[] = {"BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW",
                                          "PYG", "RWF", "UGX", "VND", "VUV", "XAF", "XOF", "XPF"};
    constexpr std::string_view kThree[] = {"BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND"};
    if (std::find(std::begin(kNone), std::end(kNone), code) != std::end(kNone)) return 0;
    if (std::find(std::begin(kThree), std::end(kThree), code) != std::end(kThree)) return 3;
    return 2;
}

bool is_crypto_currency(std::string_view code) {
    if (code.size() < 2 || code.size() > 10) return false;
    return std::all_of(code.begin(), code.end(),
                       [](char c) { return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); });
}

void validate_exchange_name(std::string_view name, const Limits& limits) {
    if (name.empty()) fail_validation("exchange", "is required");
    if (std::find(limits.exchanges.begin(), limits.exchanges.end(), name) == limits.exchanges.end()) {
        std::string list;
        for (const auto& e : limits.exchanges) list += (list.empty() ? "" : ", ") + e;
        fail_validation("exchange", "'" + std::string(name.substr(0, 32)) + "' is not a supported exchange (" + list + ")");
    }
}

void validate(const Checkout& c, const Limits& limits) {
    check_text("offerId", c.offer_id, limits, true);
    check_fiat("currency", c.currency);
    check_cart(c.cart, CartForm::checkout, limits);
    if (!(Decimal() < cart_total(c.cart))) fail_validation("cart", "the total must be > 0");
    if (c.shipping_address) check_address("shippingAddress", *c.shipping_address, limits);
    if (c.customer_info) {
        check_text("customerInfo.name", c.customer_info->name, limits, true);
        check_text("customerInfo.email", c.customer_info->email, limits, true);
        check_email("customerInfo.email", c.customer_info->email);
        check_optional_text("customerInfo.phone", c.customer_info->phone, limits);
        check_optional_text("customerInfo.address", c.customer_info->address, limits);
    }
}

void validate(const ExchangePayment& p, const Limits& limits) {
    check_text("clientId", p.client_id, limits, true);
    check_crypto("assets", p.assets);
    check_cart(p.cart, CartForm::exchange, limits);
    check_address("shippingAddress", p.shipping_address, limits);
    check_text("offerId", p.offer_id, limits, true);
    check_total("nativeAmount", p.native_amount, p.cart, limits);
    check_code2fa(p.code2fa);
    check_fiat("merchantStoreCurrency", p.merchant_store_currency);
}

void validate(const BankPayment& p, const Limits& limits) {
    check_text("clientId", p.client_id, limits, true);
    check_text("accountId", p.account_id, limits, true);
    check_cart(p.cart, CartForm::exchange, limits);
    check_total("amount", p.amount, p.cart, limits);
    check_text("stockId", p.stock_id, limits, true);
    check_text("offerId", p.offer_id, limits, true);
    check_fiat("merchantStoreCurrency", p.merchant_store_currency);
    check_text("hostedPageId", p.hosted_page_id, limits, false);
    check_address("shippingAddress", p.shipping_address, limits);
}

void validate(const QrGenerateRequest& r, const Limits& limits) {
    check_fiat("currency", r.currency);
    check_crypto("cryptoCurrency", r.crypto_currency);
    check_text("orderId", r.order_id, limits, true);
    check_cart(r.cart, CartForm::qr, limits);
    check_total("amount", r.amount, r.cart, limits);
    check_text("customerInfo.name", r.customer_info.name, limits, true);
    check_text("customerInfo.email", r.customer_info.email, limits, true);
    check_email("customerInfo.email", r.customer_info.email);
    check_optional_text("customerInfo.phone", r.customer_info.phone, limits);
    check_optional_text("customerInfo.address", r.customer_info.address, limits);
    if (r.custom_parameter) {
        const CustomParameter& c = *r.custom_parameter;
        if (c.return_method != "POST" && c.return_method != "GET") {
            fail_validation("customParameter.returnMethod", "must be POST or GET");
        }
        if (c.params.size() > limits.max_cart_items) {
            fail_validation("customParameter.params", "has " + std::to_string(c.params.size()) +
                                                          " entries; the limit is " + std::to_string(limits.max_cart_items));
        }
        for (std::size_t i = 0; i < c.params.size(); ++i) {
            const std::string p = index("customParameter.params", i);
            check_text(at(p, "name"), c.params[i].name, limits, true);
            check_text(at(p, "value"), c.params[i].value, limits, false);
        }
    }
}

void validate(const SubscriptionDebitRequest& r, const Limits& limits) {
    // merchantAuth is base64 of RSA blocks: longer than ordinary strings, so it has its own bound.
    Limits auth_limits = limits;
    auth_limits.max_string_bytes = 8192;
    check_text("merchantAuth", r.merchant_auth, auth_limits, true);
    check_text("merchantId", r.merchant_id, limits, true);
    check_optional_text("orderId", r.order_id, limits);
    if (!r.items) return;
    if (r.items->size() > limits.max_cart_items) {
        fail_validation("items", "has " + std::to_string(r.items->size()) + " items; the limit is " +
                                     std::to_string(limits.max_cart_items));
    }
    for (std::size_t i = 0; i < r.items->size(); ++i) {
        const DebitItem& item = (*r.items)[i];
        const std::string p = index("items", i);
        check_text(at(p, "subscriptionId"), item.subscription_id, limits, true);
        check_positive(at(p, "amount"), item.amount);
        check_fiat(at(p, "currency"), item.currency);
    }
}

void validate(const SubscriptionCancelRequest& r, const Limits& limits) {
    Limits auth_limits = limits;
    auth_limits.max_string_bytes = 8192;
    // The spec leaves open whether merchantId and subscriptionId are required; we send both always.
    check_text("merchantId", r.merchant_id, limits, true);
    check_text("merchantAuth", r.merchant_auth, auth_limits, true);
    check_text("subscriptionId", r.subscription_id, limits, true);
}

}  // namespace paywasm
