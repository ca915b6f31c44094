// paywasm/codec.hpp — JSON text <-> models.
//
// Writing is deterministic: compact (no spaces), members in the spec's order (given on each struct
// in models.hpp), absent optionals omitted, `extra` members appended after the known ones in their
// original order. Strings are escaped exactly as JavaScript's JSON.stringify does (\b \f \n \r \t,
// other controls as \u00xx, lone surrogates as \udxxx, everything else as UTF-8), numbers in
// Decimal's canonical form. So the same input gives the same bytes natively, in WASM and in
// JSON.stringify of the same object.
//
// Reading is strict RFC 8259 with numbers kept as text (never through a double). Inputs over
// kMaxJsonBytes are refused before parsing. Errors:
//   - requests (Checkout, ExchangePayment, BankPayment, QrGenerateRequest, SubscriptionDebitRequest,
//     SubscriptionCancelRequest, CartItem, ShippingAddress): Error(validation, field path);
//   - responses (everything else): Error(bad_response, field path).
// Reading does the type checks only; validate.hpp checks the rules. Further reading rules:
//   - requests refuse unknown members ("cart[2].colour: unknown member": a typo must not silently
//     drop a field) and repeated members; in responses the last repeat wins (as JSON.parse), and
//     unknown members go to `extra` as they came;
//   - an optional member that is null reads as absent; RawJson keeps null;
//   - JSON numbers in exponent form convert exactly (1.5e-7 -> 0.00000015); a response number with
//     more than 18 fractional digits is rounded half away from zero to 18, a request one refused;
//   - nesting deeper than 64 levels and arrays of more than 10,000 models are refused.
// Writing an `extra` or RawJson that is not valid JSON throws Error(validation) naming the field.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "paywasm/json.hpp"
#include "paywasm/models.hpp"

namespace paywasm {

// T is any request or response struct of models.hpp.
template <class T>
T from_json(std::string_view json);

// A JSON array of cart items, read as a request (errors name "cart[i].<member>").
std::vector<CartItem> cart_from_json(std::string_view json);

std::string to_json(const CartItem&);
std::string to_json(const ShippingAddress&);
std::string to_json(const Checkout&);
std::string to_json(const ExchangePayment&);
std::string to_json(const BankPayment&);
std::string to_json(const QrGenerateRequest&);
std::string to_json(const QrGenerateResponse&);
std::string to_json(const QrTransactionResult&);
std::string to_json(const Transaction&);
std::string to_json(const ShopperProfile&);
std::string to_json(const UsersMeResponse&);
std::string to_json(const SubscriptionDebitRequest&);
std::string to_json(const SubscriptionDebitResult&);  // {"status":..,"result":{"data":..,"errors":..}}
std::string to_json(const SubscriptionCancelRequest&);
std::string to_json(const SubscriptionCancelResult&);  // {"status":..,"result":{"success":..}}

}  // namespace paywasm
