// Fuzz target: the hand-written Montgomery exponentiation behind every RSA encryption
// (src/core/bigint_modexp.hpp), differentially against Crypto++'s a_exp_b_mod_c. The modulus comes
// from the merchant's public key, which the host page supplies, so any odd value must work.
// Input: two bytes of sizes, then the modulus, the exponent, and the base (the rest).
//   modulus: 1..256 bytes (low bit forced to 1); exponent: 1..8 bytes; base: below 2^(8*|n|).
// (Sizes stay small for speed: the limb loops are the same for every size, and 1..64 limbs cover
// odd limb counts, which get a zero top limb for the two-rows reduction. The unit test compares
// random 4096-bit moduli.)
// Properties: a modulus below 3 is refused with Error(crypto) only; otherwise power() equals
// Crypto++'s result, as exactly the requested number of big-endian bytes, and so does power_each()
// for the base and its bytes reversed (two different numbers in the two lanes).
#include <cryptopp/integer.h>

#include <optional>
#include <string>

#include "core/bigint_modexp.hpp"
#include "fuzz_common.hpp"

using namespace paywasm;

namespace {

CryptoPP::Integer integer(std::string_view big_endian) {
    return CryptoPP::Integer(reinterpret_cast<const CryptoPP::byte*>(big_endian.data()), big_endian.size());
}

std::string hex(std::string_view bytes) {
    static const char digits[] = "0123456789abcdef";
    std::string out;
    for (char c : bytes) {
        out += digits[static_cast<unsigned char>(c) >> 4];
        out += digits[static_cast<unsigned char>(c) & 15];
    }
    return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 3) return 0;
    const std::size_t modulus_len = 1 + data[0];
    const std::size_t exponent_len = 1 + (data[1] & 7u);
    const std::size_t extra_out = (data[1] >> 3) & 3u;  // 0..3 bytes of leading zeros in the output
    std::string_view rest = fuzz::as_text(data + 2, size - 2);
    if (rest.size() < modulus_len + exponent_len) return 0;
    std::string modulus(rest.substr(0, modulus_len));
    modulus.back() = static_cast<char>(modulus.back() | 1);
    std::string_view exponent = rest.substr(modulus_len, exponent_len);
    std::string_view base = rest.substr(modulus_len + exponent_len);

    const CryptoPP::Integer n = integer(modulus);
    const std::size_t n_bytes = n.ByteCount();
    while (base.size() > n_bytes) base.remove_prefix(1);  // keep base < 2^(8 * bytes of n)

    std::optional<detail::MontgomeryModulus> mont;
    bool prepared = fuzz::accepts({ErrorCode::crypto}, [&] { mont.emplace(modulus); });
    PAYWASM_FUZZ_CHECK(prepared == (n >= CryptoPP::Integer(3)), "refused exactly the moduli below 3: " + hex(modulus));
    if (!prepared) return 0;

    const std::size_t out_bytes = n_bytes + extra_out;
    const std::string got = mont->power(base, exponent, out_bytes);
    const CryptoPP::Integer expected = a_exp_b_mod_c(integer(base), integer(exponent), n);  // a friend of Integer: found by ADL
    std::string want(out_bytes, '\0');
    expected.Encode(reinterpret_cast<CryptoPP::byte*>(want.data()), want.size());
    PAYWASM_FUZZ_CHECK(got == want, "base^exp mod n differs from Crypto++\n  n    = " + hex(modulus) +
                                        "\n  e    = " + hex(exponent) + "\n  base = " + hex(base) +
                                        "\n  got  = " + hex(got) + "\n  want = " + hex(want));

    // Two bases at once (the two lanes of power_each): the base and its bytes reversed.
    const std::string other(base.rbegin(), base.rend());
    const std::string_view both[2] = {base, other};
    const std::string pair = mont->power_each(both, 2, exponent, out_bytes);
    std::string want_other(out_bytes, '\0');
    a_exp_b_mod_c(integer(other), integer(exponent), n)
        .Encode(reinterpret_cast<CryptoPP::byte*>(want_other.data()), want_other.size());
    PAYWASM_FUZZ_CHECK(pair == want + want_other,
                       "power_each differs from Crypto++\n  n    = " + hex(modulus) + "\n  e    = " + hex(exponent) +
                           "\n  base = " + hex(base) + "\n  other = " + hex(other));
    return 0;
}
