#include "market.hpp"

#include "paywasm/crypto.hpp"

namespace sandbox {

namespace {

constexpr const char* kBech32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";
constexpr const char* kBase58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
constexpr const char* kHex = "0123456789abcdef";
constexpr const char* kBase32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

struct Fiat {
    const char* code;
    const char* usd_per_unit;
    const char* units_per_usd;
};

// Fixed rates. A fiat currency not listed here is treated at parity with USD.
const Fiat kFiats[] = {
    {"USD", "1", "1"},
    {"EUR", "1.08", "0.925925925926"},
    {"GBP", "1.25", "0.8"},
    {"CAD", "0.74", "1.351351351351"},
    {"AUD", "0.64", "1.5625"},
    {"CHF", "1.12", "0.892857142857"},
    {"JPY", "0.0064", "156.25"},
    {"MXN", "0.05", "20"},
    {"BRL", "0.2", "5"},
    {"INR", "0.0125", "80"},
};

const Fiat& fiat(std::string_view code) {
    for (const Fiat& f : kFiats) {
        if (code == f.code) return f;
    }
    return kFiats[0];
}

std::string random_string(const char* alphabet, std::size_t alphabet_size, int length) {
    std::string out;
    unsigned char buf[128];
    paywasm::random_bytes(buf, sizeof buf);
    for (int i = 0; i < length; ++i) out += alphabet[buf[i % sizeof buf] % alphabet_size];
    return out;
}

}  // namespace

const std::vector<Coin>& coins() {
    static const std::vector<Coin> list = {
        {"BTC", "bitcoin", "bitcoin", "64000", "0.000015625", "bc1q", kBech32, 38},
        {"ETH", "ethereum", "ethereum", "3200", "0.0003125", "0x", kHex, 40},
        {"LTC", "litecoin", "litecoin", "80", "0.0125", "ltc1q", kBech32, 38},
        {"BCH", "bitcoincash", "bitcoincash", "400", "0.0025", "qr", kBech32, 40},
        {"DOGE", "dogecoin", "dogecoin", "0.16", "6.25", "D", kBase58, 33},
        {"DASH", "dash", "dash", "32", "0.03125", "X", kBase58, 33},
        {"USDT", "ethereum", "ethereum", "1", "1", "0x", kHex, 40},
        {"USDC", "ethereum", "ethereum", "1", "1", "0x", kHex, 40},
        {"DAI", "ethereum", "ethereum", "1", "1", "0x", kHex, 40},
        {"XRP", "ripple", "ripple", "0.5", "2", "r", kBase58, 33},
        {"SOL", "solana", "solana", "160", "0.00625", "", kBase58, 44},
        {"ADA", "cardano", "cardano", "0.4", "2.5", "addr1q", kBech32, 52},
        {"MATIC", "polygon", "polygon", "0.5", "2", "0x", kHex, 40},
        {"TRX", "tron", "tron", "0.125", "8", "T", kBase58, 33},
        {"XLM", "stellar", "stellar", "0.1", "10", "G", kBase32, 55},
    };
    return list;
}

const Coin* find_coin(std::string_view code) {
    for (const Coin& c : coins()) {
        if (code == c.code) return &c;
    }
    return nullptr;
}

std::string to_coin_amount(const paywasm::Decimal& amount, std::string_view fiat_code, const Coin& coin) {
    using paywasm::Decimal;
    Decimal usd = amount * Decimal::parse(fiat(fiat_code).usd_per_unit);
    return (usd * Decimal::parse(coin.coins_per_usd)).to_fixed(8);
}

std::string coin_price(std::string_view fiat_code, const Coin& coin) {
    using paywasm::Decimal;
    return (Decimal::parse(coin.usd_price) * Decimal::parse(fiat(fiat_code).units_per_usd)).to_fixed(2);
}

std::string wallet_address(const Coin& coin) {
    std::string alphabet(coin.address_alphabet);
    return coin.address_prefix + random_string(coin.address_alphabet, alphabet.size(), coin.address_length);
}

std::string chain_hash(const Coin& coin) {
    std::string hash = random_string(kHex, 16, 64);
    return std::string(coin.address_prefix) == "0x" ? "0x" + hash : hash;
}

std::string payment_uri(const Coin& coin, const std::string& address, const std::string& coin_amount,
                        const std::string& fiat_amount) {
    return std::string(coin.scheme) + ":" + address + "?amount=" + coin_amount + "&value=" + fiat_amount;
}

}  // namespace sandbox
