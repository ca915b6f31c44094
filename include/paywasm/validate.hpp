// paywasm/validate.hpp — the rules a request must meet before it is encrypted or sent.
//
// Each validate() throws the first broken rule as Error(validation) whose field() is the path
// (`cart[2].quantity`) and whose message is "<path>: <reason>", e.g. "cart[2].quantity: must be > 0".
// Rules (defaults in Limits):
//   - required strings are non-empty; every string is valid UTF-8, at most max_string_bytes, and
//     holds no control characters and no bidirectional overrides (U+202A-202E, U+2066-2069);
//   - fiat currency codes are active ISO 4217 codes ("USD"); crypto codes are 2-10 of [A-Z0-9];
//   - the cart has 1..max_cart_items items; price >= 0, quantity > 0, local_amount >= 0;
//   - frequency is one of weekly, monthly, quarterly, half-yearly, yearly; subscription_period is
//     [number][period] with period one of d, w, m, y ("12m"); subscription fields only when
//     is_subscription is true;
//   - the total (nativeAmount, amount) is > 0 and equals sum(price * quantity) exactly, unless
//     Limits::check_totals is false;
//   - exchange names are lower-case identifiers from Limits::exchanges.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "paywasm/models.hpp"

namespace paywasm {

struct Limits {
    std::size_t max_cart_items = 100;
    std::size_t max_string_bytes = 256;
    bool check_totals = true;
    // The five identifiers in the service's public docs; configurable because the service may add more.
    std::vector<std::string> exchanges = {"coinbase", "okcoin", "kraken", "gemini", "binanceus"};
};

// A checkout: offerId, an ISO 4217 currency, the cart rules (local fields checked when given),
// a total > 0 ("cart: must be > 0"), the address and customer rules when given.
void validate(const Checkout&, const Limits& = {});
void validate(const ExchangePayment&, const Limits& = {});
void validate(const BankPayment&, const Limits& = {});
void validate(const QrGenerateRequest&, const Limits& = {});
void validate(const SubscriptionDebitRequest&, const Limits& = {});
void validate(const SubscriptionCancelRequest&, const Limits& = {});
// Throws Error(validation, "exchange") unless `name` is in limits.exchanges.
void validate_exchange_name(std::string_view name, const Limits& = {});

// sum(price * quantity), exact. The one place a total is computed (validate() compares with it).
Decimal cart_total(const std::vector<CartItem>& cart);

bool is_fiat_currency(std::string_view code);    // active ISO 4217
// ISO 4217's minor unit of a fiat currency: 0 (JPY, KRW, CLP, ...), 3 (BHD, KWD, TND, ...), else 2;
// -1 for a code that is not one (is_fiat_currency).
int fiat_minor_units(std::string_view code);
bool is_crypto_currency(std::string_view code);  // [A-Z0-9]{2,10}

}  // namespace paywasm
