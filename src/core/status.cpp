// The one table of what a status means (paywasm/status.hpp), and what is still owed.
#include "paywasm/status.hpp"

#include <algorithm>

#include "paywasm/error.hpp"
#include "paywasm/models.hpp"
#include "paywasm/text.hpp"
#include "paywasm/validate.hpp"

namespace paywasm {

namespace {

using K = StatusKind;
using M = MoneyTaken;
using T = Tone;
using N = NextStep;

// The row of a code without a method's own next step.
StatusInfo row(int code) {
    switch (code) {
        case 10: return {code, K::awaiting_payment, false, false, M::none, T::info, N::pay, "waiting for payment"};
        case 0: return {code, K::pending, false, false, M::all, T::info, N::wait, "pending"};
        case 1: case 2: case 3: case 4:
            return {code, K::success, true, true, M::all, T::success, N::done, "successful"};
        case -1: return {code, K::failed, true, false, M::none, T::error, N::pay_again, "failed"};
        case 101: return {code, K::partial, false, false, M::some, T::warning, N::pay_rest, "partial payment"};
        case 1011:
            return {code, K::partial_closed, true, false, M::some, T::warning, N::contact_shop,
                    "partial payment, closed by the merchant"};
        case 19: return {code, K::timed_out, true, false, M::none, T::error, N::pay_again, "timed out"};
        case 20: case 21: case 22: case 23:
            return {code, K::refund, false, false, M::maybe, T::warning, N::contact_shop, "refund"};
        default: return {code, K::unknown, false, false, M::maybe, T::warning, N::contact_shop, "unknown status"};
    }
}

}  // namespace

StatusInfo describe_status(int code, std::optional<PayMethod> method) {
    StatusInfo info = row(code);
    // Only a QR code's address takes the rest of a partial payment; an exchange or bank payment
    // that arrived in part is the shop's to settle.
    if (info.kind == K::partial && method && *method != PayMethod::qr) info.next = N::contact_shop;
    return info;
}

StatusInfo describe_status_word(std::string_view word) {
    std::string w(word.substr(0, 16));
    std::transform(w.begin(), w.end(), w.begin(), [](char c) { return c >= 'A' && c <= 'Z' ? char(c + 32) : c; });
    if (w == "pending") return {0, K::pending, false, false, M::all, T::info, N::wait, "pending"};
    if (w == "processing") return {0, K::processing, false, false, M::all, T::info, N::wait, "processing"};
    if (w == "completed") return {1, K::success, true, true, M::all, T::success, N::done, "completed"};
    if (w == "canceled" || w == "cancelled") return {-1, K::canceled, true, false, M::none, T::error, N::pay_again, "canceled"};
    // The word is the service's: repeated escaped, at most 32 bytes of it.
    throw Error(ErrorCode::bad_response,
                "status: '" + escape_untrusted(word, 32) + "' is not pending, processing, canceled or completed",
                "status");
}

StatusInfo describe_status(const Transaction& t, std::optional<PayMethod> method) {
    return t.status_word ? describe_status_word(*t.status_word) : describe_status(t.status, method);
}

const std::vector<int>& known_status_codes() {
    static const std::vector<int> codes = {10, 0, 1, 2, 3, 4, -1, 101, 1011, 19, 20, 21, 22, 23};
    return codes;
}

std::string_view to_string(StatusKind kind) {
    switch (kind) {
        case K::awaiting_payment: return "awaiting_payment";
        case K::pending: return "pending";
        case K::processing: return "processing";
        case K::success: return "success";
        case K::failed: return "failed";
        case K::partial: return "partial";
        case K::partial_closed: return "partial_closed";
        case K::timed_out: return "timed_out";
        case K::canceled: return "canceled";
        case K::refund: return "refund";
        case K::unknown: return "unknown";
    }
    return "unknown";
}

std::string_view to_string(MoneyTaken m) {
    switch (m) {
        case M::none: return "none";
        case M::maybe: return "maybe";
        case M::some: return "some";
        case M::all: return "all";
    }
    return "maybe";
}

std::string_view to_string(Tone t) {
    switch (t) {
        case T::info: return "info";
        case T::success: return "success";
        case T::warning: return "warning";
        case T::error: return "error";
    }
    return "info";
}

std::string_view to_string(NextStep n) {
    switch (n) {
        case N::pay: return "pay";
        case N::wait: return "wait";
        case N::pay_rest: return "pay_rest";
        case N::pay_again: return "pay_again";
        case N::contact_shop: return "contact_shop";
        case N::done: return "done";
    }
    return "contact_shop";
}

std::string_view to_string(PayMethod m) {
    switch (m) {
        case PayMethod::exchange: return "exchange";
        case PayMethod::bank: return "bank";
        case PayMethod::qr: return "qr";
    }
    return "exchange";
}

std::optional<PayMethod> pay_method_from(std::string_view name) {
    if (name == "exchange") return PayMethod::exchange;
    if (name == "bank") return PayMethod::bank;
    if (name == "qr") return PayMethod::qr;
    return std::nullopt;
}

bool pays_order_total(std::string_view order_amount, std::string_view order_currency,
                      const std::optional<std::string>& paid_amount, const std::optional<std::string>& paid_currency) {
    const auto upper = [](std::string_view text) {
        std::string out(text);
        for (char& c : out) c = (c >= 'a' && c <= 'z') ? static_cast<char>(c - 32) : c;
        return out;
    };
    Decimal want, paid;
    return paid_amount && paid_currency && Decimal::try_parse(order_amount, want) &&
           Decimal::try_parse(*paid_amount, paid) && paid == want && upper(*paid_currency) == upper(order_currency);
}

std::string_view checkout_state(StatusKind kind, bool amount_mismatch) {
    return amount_mismatch ? std::string_view("amount_mismatch") : to_string(kind);
}

bool is_amount_mismatch_state(std::string_view state) { return state == "amount_mismatch"; }

StatusInfo describe_checkout_status(int code, std::optional<PayMethod> method, bool amount_mismatch) {
    StatusInfo info = describe_status(code, method.value_or(PayMethod::exchange));
    if (amount_mismatch) {
        info.success = false;
        info.tone = T::warning;
        info.next = N::contact_shop;
    }
    return info;
}

std::string amount_text(const Money& m) {
    const int minor = fiat_minor_units(m.currency);
    if (minor >= 0 && m.amount.scale() <= minor) return m.amount.to_fixed(minor);
    return m.amount.to_string();
}

Owed amounts_owed(const StatusInfo& status, const Money& expected, const std::optional<Decimal>& received) {
    if (expected.currency.empty()) throw Error(ErrorCode::validation, "currency: is required", "currency");
    if (expected.amount.is_negative()) throw Error(ErrorCode::validation, "amount: must not be negative", "amount");
    const Decimal got = received.value_or(Decimal());
    if (got.is_negative()) throw Error(ErrorCode::validation, "receivedAmount: must not be negative", "receivedAmount");
    Owed out{expected, Money{got, expected.currency}, Money{Decimal(), expected.currency}};
    if (!status.success && got < expected.amount) out.remaining.amount = expected.amount - got;
    return out;
}

}  // namespace paywasm
