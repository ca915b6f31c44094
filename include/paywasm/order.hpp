// paywasm/order.hpp — what a merchant's order means in money and state: the amount of each line, an
// amount the shopper chooses, the payment methods a checkout offers, and the bucket an order is
// listed under. Defined here once: the gateway's app API, payment links, hosted pages and console
// read these and decide none of them on their own.
//
// The widget links none of this (src/core/order.cpp is called by no op of src/wasm, so the static
// core's archive member stays out of paywasm.wasm and its size budget).
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "paywasm/decimal.hpp"
#include "paywasm/models.hpp"
#include "paywasm/status.hpp"

namespace paywasm {

// ---- Amounts -------------------------------------------------------------------------------------

// What one line of a checkout costs: price × quantity, exact (never rounded), in `currency` (the
// checkout's). cart_total() (validate.hpp) is the sum of these.
Money line_total(const CartItem& item, std::string_view currency);

// Whether `m.amount` is written within its currency's minor unit: at most fiat_minor_units() fraction
// digits ("12.34" USD, "1500" JPY, "1.125" KWD; not "12.345" USD, "1500.5" JPY). Trailing zeros do
// not count ("12.50" is "12.5"). Throws Error(validation, "currency") with validate()'s message when
// the currency is not an ISO 4217 code (a checkout's currency never is anything else).
bool in_minor_units(const Money& m);

// What a checkout asks to be paid can be charged: its total (cart_total) in its currency's minor
// units. Throws Error(validation, "cart") naming the total otherwise ("0.001 USD" is no amount a
// payment can carry), and as in_minor_units() for a currency that is not ISO 4217. The gateway
// checks it before a session, a link or a sale exists (the widget's own checks stay as they are).
void require_chargeable_total(const Checkout& checkout);

// A custom amount: the shopper chooses what to pay between `min` and `max` (a payment link's
// customAmount). A bound is allowed when it is above zero and in_minor_units(); a chosen amount when
// it is allowed as a bound and min <= amount <= max. Both throw as in_minor_units() for a currency
// that is not ISO 4217.
bool is_custom_amount_bound(const Money& bound);
bool is_custom_amount(const Money& chosen, const Decimal& min, const Decimal& max);

// ---- Payment methods -----------------------------------------------------------------------------

// The methods a checkout offers: a set of PayMethod, always listed in the order exchange, bank, qr.
class PayMethods {
public:
    PayMethods() = default;  // none
    PayMethods(std::initializer_list<PayMethod> methods);

    bool has(PayMethod m) const { return (bits_ & bit(m)) != 0; }
    void add(PayMethod m) { bits_ |= bit(m); }
    bool empty() const { return bits_ == 0; }
    std::vector<PayMethod> list() const;  // in the order exchange, bank, qr
    friend bool operator==(PayMethods a, PayMethods b) { return a.bits_ == b.bits_; }
    friend bool operator!=(PayMethods a, PayMethods b) { return a.bits_ != b.bits_; }

private:
    static unsigned bit(PayMethod m) { return 1u << static_cast<unsigned>(m); }
    unsigned bits_ = 0;
};

// The names (to_string(PayMethod)) joined by `separator`, in the set's order: "exchange,bank,qr" (the
// form the gateway stores and --methods takes), "exchange qr" (the widget's attribute).
std::string to_string(PayMethods methods, std::string_view separator = ",");
// A `separator`-joined list of method names, e.g. "exchange,qr": nullopt when it is empty, names
// anything but exchange, bank and qr, or names one twice (method_list_error() says which).
// `repeats_allowed`: a name given twice counts once (a list an older gateway stored: --methods took
// repeats until issue 41).
std::optional<PayMethods> parse_pay_methods(std::string_view list, char separator = ',', bool repeats_allowed = false);
// Why parse_pay_methods() refused `list`: "names no method", "'x' is not exchange, bank or qr",
// "names qr twice"; empty when it did not.
std::string method_list_error(std::string_view list, char separator = ',');

// ---- An order's bucket ---------------------------------------------------------------------------

// The word a checkout's state is stored under before the service reported any status; after that
// it is a checkout_state() word (status.hpp).
inline constexpr std::string_view kNoStatusState = "open";

// The meaning of a stored state word: the status table's row of that kind (status.hpp: its codes,
// then its status words); for "amount_mismatch" (its kind is not kept) the unknown row as
// describe_checkout_status() reads a mismatch; the unknown row for a word the table does not name;
// nullopt for kNoStatusState (no status yet).
std::optional<StatusInfo> describe_checkout_state(std::string_view state);

// Whether a stored state word is a partly paid checkout: part of the money arrived (the table's
// MoneyTaken::some: partial, partial_closed), the amount the order asked for. The one state whose
// underpayment a merchant may accept.
bool is_partly_paid_state(std::string_view state);

// The words a merchant reads for a checkout's status (the console's order page and timeline): the
// code and the table's label, "101 (partial payment)"; a payment that did not pay the order's total
// says so, "1 (successful, not the order's total)".
std::string checkout_status_words(int code, bool amount_mismatch);

// What an order's bucket is decided from: its checkout's verified status and the merchant's word.
struct OrderFacts {
    std::string_view state;       // kNoStatusState or a checkout_state() word
    bool success = false;         // a verified success that paid the order's total
    bool accepted = false;        // the merchant accepted an underpayment
    bool paid_elsewhere = false;  // the merchant resolved an attempt as paid elsewhere
    bool closed = false;          // the merchant resolved an attempt as not paid
    bool expired = false;         // past the checkout's expiry
};

// The buckets, in the order the gateway lists them: paid | partial | pending | failed | refunded |
// expired. The rules, in order, from the status table (describe_checkout_state):
//   a verified success is paid; a refund (kind refund) is refunded, whatever the merchant said (the
//   money went back); the merchant's word that the money arrived (accepted, paid elsewhere) is paid;
//   part of the money (MoneyTaken::some) or an amount mismatch is partial; a final status that took
//   nothing (failed, timed out, canceled), or the merchant's "not paid", is failed; no status yet is
//   pending until it expires, expired after; every other status (money may still move) is pending.
std::string_view order_bucket(const OrderFacts& facts);

// How far an order got toward being paid, to compare orders (a sale's checkouts: the furthest one
// stands for the sale), by its bucket: paid, then partial, then under way (pending with a status:
// the service has the payment and money may still move), then nothing (no status, failed,
// refunded, expired).
enum class OrderProgress { nothing, under_way, partial, paid };
OrderProgress order_progress(const OrderFacts& facts);

}  // namespace paywasm
