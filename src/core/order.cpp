// What a merchant's order means in money and state (paywasm/order.hpp). Linked by the gateway, not
// by the widget: keep every op of src/wasm off this file.
#include "paywasm/order.hpp"

#include <limits>

#include "paywasm/error.hpp"
#include "paywasm/text.hpp"
#include "paywasm/validate.hpp"

namespace paywasm {

Money line_total(const CartItem& item, std::string_view currency) {
    return Money{item.price * item.quantity, std::string(currency)};
}

bool in_minor_units(const Money& m) {
    const int minor = fiat_minor_units(m.currency);
    if (minor < 0) {
        fail_validation("currency", "'" + escape_untrusted(m.currency, 16) + "' is not an ISO 4217 currency code");
    }
    return m.amount.scale() <= minor;
}

void require_chargeable_total(const Checkout& checkout) {
    const Money total{cart_total(checkout.cart), checkout.currency};
    if (!in_minor_units(total)) {
        fail_validation("cart", "the total " + total.amount.to_string() + " " + escape_untrusted(checkout.currency, 16) +
                                    " has more decimals than the currency has (it cannot be charged)");
    }
}

bool is_custom_amount_bound(const Money& bound) {
    return in_minor_units(bound) && !bound.amount.is_negative() && !bound.amount.is_zero();
}

bool is_custom_amount(const Money& chosen, const Decimal& min, const Decimal& max) {
    return is_custom_amount_bound(chosen) && min <= chosen.amount && chosen.amount <= max;
}

// ---- Payment methods -----------------------------------------------------------------------------

namespace {

constexpr PayMethod kMethodOrder[] = {PayMethod::exchange, PayMethod::bank, PayMethod::qr};

// The names of `list` split at `separator`, each checked; the first refusal, or empty.
std::string read_methods(std::string_view list, char separator, bool repeats_allowed, PayMethods& out) {
    out = PayMethods();
    if (list.empty()) return "names no method";
    std::size_t pos = 0;
    while (pos <= list.size()) {
        std::size_t end = list.find(separator, pos);
        if (end == std::string_view::npos) end = list.size();
        const std::string_view name = list.substr(pos, end - pos);
        const auto m = pay_method_from(name);
        if (!m) return "'" + escape_untrusted(name, 16) + "' is not exchange, bank or qr";
        if (out.has(*m) && !repeats_allowed) return "names " + std::string(name) + " twice";
        out.add(*m);
        pos = end + 1;
    }
    return {};
}

}  // namespace

PayMethods::PayMethods(std::initializer_list<PayMethod> methods) {
    for (PayMethod m : methods) add(m);
}

std::vector<PayMethod> PayMethods::list() const {
    std::vector<PayMethod> out;
    for (PayMethod m : kMethodOrder) {
        if (has(m)) out.push_back(m);
    }
    return out;
}

std::string to_string(PayMethods methods, std::string_view separator) {
    std::string out;
    for (PayMethod m : methods.list()) {
        if (!out.empty()) out += separator;
        out += to_string(m);
    }
    return out;
}

std::optional<PayMethods> parse_pay_methods(std::string_view list, char separator, bool repeats_allowed) {
    PayMethods out;
    if (!read_methods(list, separator, repeats_allowed, out).empty()) return std::nullopt;
    return out;
}

std::string method_list_error(std::string_view list, char separator) {
    PayMethods ignored;
    return read_methods(list, separator, false, ignored);
}

// ---- An order's bucket ---------------------------------------------------------------------------

std::optional<StatusInfo> describe_checkout_state(std::string_view state) {
    if (state == kNoStatusState) return std::nullopt;
    // A code the table does not name reads as unknown (status.hpp).
    constexpr int kUnnamedCode = std::numeric_limits<int>::min();
    if (is_amount_mismatch_state(state)) return describe_checkout_status(kUnnamedCode, std::nullopt, true);
    for (int code : known_status_codes()) {
        const StatusInfo info = describe_status(code);
        if (to_string(info.kind) == state) return info;
    }
    for (const char* word : {"pending", "processing", "completed", "canceled"}) {
        const StatusInfo info = describe_status_word(word);
        if (to_string(info.kind) == state) return info;
    }
    return describe_status(kUnnamedCode);
}

bool is_partly_paid_state(std::string_view state) {
    const auto info = describe_checkout_state(state);
    return info && info->taken == MoneyTaken::some;  // an amount mismatch's row took maybe
}

std::string checkout_status_words(int code, bool amount_mismatch) {
    return std::to_string(code) + " (" + std::string(describe_status(code).label) +
           (amount_mismatch ? ", not the order's total)" : ")");
}

std::string_view order_bucket(const OrderFacts& f) {
    if (f.success) return "paid";
    const auto info = describe_checkout_state(f.state);
    if (info && info->kind == StatusKind::refund) return "refunded";
    if (f.accepted || f.paid_elsewhere) return "paid";
    if (is_amount_mismatch_state(f.state) || (info && info->taken == MoneyTaken::some)) return "partial";
    if (f.closed || (info && info->final && info->taken == MoneyTaken::none)) return "failed";
    if (!info) return f.expired ? "expired" : "pending";
    return "pending";
}

OrderProgress order_progress(const OrderFacts& f) {
    const std::string_view bucket = order_bucket(f);
    if (bucket == "paid") return OrderProgress::paid;
    if (bucket == "partial") return OrderProgress::partial;
    if (bucket == "pending" && f.state != kNoStatusState) return OrderProgress::under_way;
    return OrderProgress::nothing;
}

}  // namespace paywasm
