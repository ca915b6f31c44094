// market.hpp — the sandbox's make-believe market: coins it accepts, fixed exchange rates, and
// realistic-looking wallet addresses, chain hashes and payment URIs. Rates never move, so tests
// can compute expected amounts (docs/sandbox.md lists them).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "paywasm/decimal.hpp"

namespace sandbox {

struct Coin {
    const char* code;            // "BTC"
    const char* scheme;          // payment URI scheme, "bitcoin"
    const char* network;         // meta.hash.network
    const char* usd_price;       // price of one coin in USD
    const char* coins_per_usd;   // 1 / usd_price, precomputed (Decimal has no division)
    const char* address_prefix;
    const char* address_alphabet;
    int address_length;          // characters after the prefix
};

// nullptr when the sandbox does not know the coin (exchange payments then answer 421).
const Coin* find_coin(std::string_view code);
const std::vector<Coin>& coins();

// Fiat amount -> coin amount, 8 decimals.
std::string to_coin_amount(const paywasm::Decimal& fiat, std::string_view fiat_code, const Coin& coin);
// Price of one coin in `fiat_code`, 2 decimals (nativeConversionRate).
std::string coin_price(std::string_view fiat_code, const Coin& coin);

std::string wallet_address(const Coin& coin);
std::string chain_hash(const Coin& coin);
// "<scheme>:<address>?amount=<coin amount>&value=<fiat amount>"
std::string payment_uri(const Coin& coin, const std::string& address, const std::string& coin_amount,
                        const std::string& fiat_amount);

}  // namespace sandbox
