// Unit tests of src/core/bigint_modexp.hpp, the Montgomery exponentiation behind RSA encryption.
// It is compared with Crypto++'s Integer (an independent implementation: its own multiplication,
// reduction and exponentiation) on thousands of random moduli of 2048 to 4096 bits, odd lengths
// included, both lanes of power_each; and with plain 64-bit arithmetic on one-limb moduli. Every
// case runs natively and in wasm, where the objects under test are the two the widget ships
// (bigint_modexp.cpp compiled with the widgets' flags): unit.wasm links paywasm_modexp_simd (-O2
// -msimd128: the SIMD two-lane path of paywasm.wasm), unit.wasm.nosimd paywasm_modexp_scalar (the
// scalar path of paywasm-nosimd.wasm); Crypto++ is the wasm build of the library. The RSA round
// trips and OpenSSL known answers in test_crypto.cpp and the KAT suite check it end to end.
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/bigint_modexp.hpp"
#include "paywasm/error.hpp"

#include <cryptopp/integer.h>

using paywasm::detail::MontgomeryModulus;

namespace {

// Big-endian bytes of v, exactly `bytes` long.
std::string be_bytes(std::uint64_t v, std::size_t bytes) {
    std::string out(bytes, '\0');
    for (std::size_t i = 0; i < bytes && i < 8; ++i) out[bytes - 1 - i] = static_cast<char>((v >> (8 * i)) & 0xff);
    return out;
}

std::uint64_t from_be(const std::string& s) {
    std::uint64_t v = 0;
    for (char c : s) v = (v << 8) | static_cast<unsigned char>(c);
    return v;
}

std::uint64_t reference_pow(std::uint64_t b, std::uint64_t e, std::uint64_t n) {
    std::uint64_t r = 1 % n;
    b %= n;
    for (; e != 0; e >>= 1) {
        if (e & 1) r = r * b % n;  // n < 2^32: products fit in 64 bits
        b = b * b % n;
    }
    return r;
}

// `bits` random bits, the top one set (and the bottom one when `odd`), big-endian.
std::string random_number(std::mt19937_64& rng, std::size_t bits, bool odd) {
    std::string out((bits + 7) / 8, '\0');
    for (char& c : out) c = static_cast<char>(rng() & 0xff);
    const std::size_t top_bits = bits - 8 * (out.size() - 1);  // 1..8 bits used in the first byte
    auto first = static_cast<unsigned char>(out[0]);
    first = static_cast<unsigned char>((first & ((1u << top_bits) - 1)) | (1u << (top_bits - 1)));
    out[0] = static_cast<char>(first);
    if (odd) out.back() = static_cast<char>(out.back() | 1);
    return out;
}

}  // namespace

TEST_CASE("Montgomery exponentiation matches 64-bit arithmetic on one-limb moduli") {
    std::mt19937_64 rng(20261122);
    for (int round = 0; round < 2000; ++round) {
        std::uint64_t n = (rng() & 0xffffffffu) | 1;
        if (n < 3) n = 3;
        std::uint64_t b = rng() & 0xffffffffu;  // may be >= n: it is reduced
        std::uint64_t e = round % 3 == 0 ? rng() : (rng() & 0x1ffff);
        MontgomeryModulus mod(be_bytes(n, 4));
        std::string got = mod.power(be_bytes(b, 4), be_bytes(e, 8), 4);
        REQUIRE(got.size() == 4);
        CHECK_MESSAGE(from_be(got) == reference_pow(b, e, n), "n=" << n << " b=" << b << " e=" << e);
    }
}

std::uint64_t reference_pow_wide(std::uint64_t b, std::uint64_t e, std::uint64_t n) {
    using u128 = unsigned __int128;
    std::uint64_t r = 1 % n;
    b %= n;
    for (; e != 0; e >>= 1) {
        if (e & 1) r = static_cast<std::uint64_t>(static_cast<u128>(r) * b % n);
        b = static_cast<std::uint64_t>(static_cast<u128>(b) * b % n);
    }
    return r;
}

TEST_CASE("power_each gives each base's power, two at a time and an odd one alone") {
    // Two-limb moduli (checked with 128-bit products), one and two limbs of base, 1 to 5 bases: both
    // lanes, the odd last base, and lanes whose final subtractions differ.
    std::mt19937_64 rng(4096);
    for (int round = 0; round < 400; ++round) {
        CAPTURE(round);
        std::uint64_t n = rng();
        if (round % 4 == 0) n >>= 20;  // the top limb partly empty
        n |= (std::uint64_t{1} << 33) | 1;
        const std::uint64_t e = round % 5 == 0 ? rng() : round % 5 == 1 ? 65537 : (rng() & 0xfff);
        const std::size_t count = 1 + static_cast<std::size_t>(round % 5);
        std::vector<std::string> bases;
        for (std::size_t i = 0; i < count; ++i) bases.push_back(be_bytes(rng() >> (i % 3 ? 0 : 40), 8));  // some >= n
        std::vector<std::string_view> views(bases.begin(), bases.end());
        MontgomeryModulus mod(be_bytes(n, 8));
        const std::string got = mod.power_each(views.data(), count, be_bytes(e, 8), 8);
        REQUIRE(got.size() == 8 * count);
        for (std::size_t i = 0; i < count; ++i) {
            CHECK_MESSAGE(from_be(got.substr(8 * i, 8)) == reference_pow_wide(from_be(bases[i]), e, n),
                          "n=" << n << " b=" << from_be(bases[i]) << " e=" << e << " i=" << i);
        }
    }
    MontgomeryModulus mod(be_bytes(0xfffffffbu, 4));
    CHECK(mod.power_each(nullptr, 0, be_bytes(3, 1), 4).empty());
}

TEST_CASE("Montgomery exponentiation handles the edge values") {
    const std::uint64_t n = 0xfffffffbu;  // the largest 32-bit prime: one full limb
    MontgomeryModulus mod(be_bytes(n, 4));
    SUBCASE("exponent 0 gives 1, even for base 0") {
        CHECK(from_be(mod.power(be_bytes(0, 4), std::string(), 4)) == 1);
        CHECK(from_be(mod.power(be_bytes(12345, 4), std::string(3, '\0'), 4)) == 1);
    }
    SUBCASE("exponent 1 gives the base reduced") {
        CHECK(from_be(mod.power(be_bytes(n + 4, 4), be_bytes(1, 1), 4)) == 4);
    }
    SUBCASE("base n - 1 to an odd and an even power") {
        CHECK(from_be(mod.power(be_bytes(n - 1, 4), be_bytes(65537, 3), 4)) == n - 1);
        CHECK(from_be(mod.power(be_bytes(n - 1, 4), be_bytes(2, 1), 4)) == 1);
    }
    SUBCASE("the output is left-padded to the requested width") {
        std::string out = mod.power(be_bytes(2, 1), be_bytes(3, 1), 256);
        REQUIRE(out.size() == 256);
        CHECK(out.substr(0, 255) == std::string(255, '\0'));
        CHECK(static_cast<unsigned char>(out[255]) == 8);
    }
    SUBCASE("leading zero bytes in the modulus change nothing") {
        MontgomeryModulus padded(std::string(5, '\0') + be_bytes(n, 4));
        CHECK(padded.power(be_bytes(7, 1), be_bytes(65537, 3), 4) == mod.power(be_bytes(7, 1), be_bytes(65537, 3), 4));
    }
}

TEST_CASE("Montgomery exponentiation refuses what it cannot do") {
    CHECK_THROWS_AS(MontgomeryModulus{be_bytes(10, 4)}, paywasm::Error);  // even
    CHECK_THROWS_AS(MontgomeryModulus{be_bytes(1, 1)}, paywasm::Error);   // too small
    CHECK_THROWS_AS(MontgomeryModulus{std::string()}, paywasm::Error);    // zero
    MontgomeryModulus mod(be_bytes(0xfffffffbu, 4));
    CHECK_THROWS_AS(mod.power(std::string("\x01") + std::string(4, '\0'), be_bytes(3, 1), 4),
                    paywasm::Error);  // base 2^32: wider than n's one limb
    CHECK_THROWS_AS(mod.power(be_bytes(0xfffffff0u, 4), be_bytes(3, 1), 3), paywasm::Error);  // no room
}

TEST_CASE("bit_length and compare_magnitudes read big-endian magnitudes") {
    using paywasm::detail::bit_length;
    using paywasm::detail::compare_magnitudes;
    CHECK(bit_length("") == 0);
    CHECK(bit_length(std::string(3, '\0')) == 0);
    CHECK(bit_length(std::string("\x00\x01", 2)) == 1);
    CHECK(bit_length(std::string("\x01\x00\x01", 3)) == 17);
    CHECK(bit_length(std::string("\x80") + std::string(255, '\0')) == 2048);
    CHECK(compare_magnitudes(std::string("\x00\x05", 2), "\x05") == 0);
    CHECK(compare_magnitudes(std::string("\x01\x00", 2), "\xff") == 1);
    CHECK(compare_magnitudes("\x04", "\x05") == -1);
    CHECK(compare_magnitudes("", std::string(1, '\0')) == 0);
}

namespace {

CryptoPP::Integer integer(const std::string& be) {
    return CryptoPP::Integer(reinterpret_cast<const CryptoPP::byte*>(be.data()), be.size());
}

// Crypto++'s b^e mod n as exactly k big-endian bytes.
std::string oracle_pow(const std::string& b, const std::string& e, const std::string& n, std::size_t k) {
    std::string out(k, '\0');
    // a_exp_b_mod_c is a friend of Integer: found by argument-dependent lookup.
    a_exp_b_mod_c(integer(b), integer(e), integer(n)).Encode(reinterpret_cast<CryptoPP::byte*>(out.data()), k);
    return out;
}

}  // namespace

TEST_CASE("Montgomery exponentiation matches Crypto++'s a_exp_b_mod_c on random big moduli") {
    std::mt19937_64 rng(65537);
    for (std::size_t bits : {2048u, 3072u, 4096u, 2047u, 2049u, 1023u, 33u, 64u, 95u}) {
        CAPTURE(bits);
        for (int round = 0; round < 6; ++round) {
            CAPTURE(round);
            const std::string n = random_number(rng, bits, true);
            const std::size_t k = n.size();
            std::string base = random_number(rng, bits - 1, false);  // below n, like a padded block
            if (round == 1) base = random_number(rng, 8 * k, false);  // full width, maybe >= n: reduced
            std::string exponent;
            switch (round) {
                case 0: case 1: exponent = std::string("\x01\x00\x01", 3); break;  // 65537
                case 2: exponent = "\x03"; break;
                case 3: exponent = random_number(rng, 64, true); break;
                default: exponent = random_number(rng, bits, false); break;  // private-exponent sized
            }
            MontgomeryModulus mod(n);
            CHECK(mod.power(base, exponent, k) == oracle_pow(base, exponent, n, k));
        }
    }
}

// The widget's case, many times over: e = 65537, a modulus of any length from 2048 to 4096 bits (so
// odd byte and limb counts), bases below it, two blocks at a time through the two lanes (and now
// and then a third, alone in its pair). 2,000 moduli: about 5 s in wasm under Node.
TEST_CASE("Two-lane exponentiation matches Crypto++ on 2,000 random 2048- to 4096-bit moduli") {
    std::mt19937_64 rng(20261123);
    const std::string e65537("\x01\x00\x01", 3);
    std::size_t compared = 0;
    for (int i = 0; i < 2000; ++i) {
        const std::size_t bits = 2048 + static_cast<std::size_t>(rng() % 2049);
        const std::string n = random_number(rng, bits, true);
        const std::size_t k = n.size();
        const std::size_t count = i % 10 == 9 ? 3 : 2;
        std::string bases[3];
        std::string_view views[3];
        for (std::size_t j = 0; j < count; ++j) {
            bases[j] = random_number(rng, bits - 1 - (rng() % 8), false);
            views[j] = bases[j];
        }
        const std::string got = MontgomeryModulus(n).power_each(views, count, e65537, k);
        REQUIRE(got.size() == count * k);
        for (std::size_t j = 0; j < count; ++j) {
            if (got.compare(j * k, k, oracle_pow(bases[j], e65537, n, k)) != 0) {
                CAPTURE(i);
                CAPTURE(bits);
                CAPTURE(j);
                FAIL("lane result differs from Crypto++");
            }
            ++compared;
        }
    }
    CHECK(compared == 2000 * 2 + 200);
}
