// src/core/bigint_modexp.hpp — b^e mod n for the RSA *public* operation, without Crypto++'s Integer.
// Internal to crypto_encrypt.cpp (and its unit test). Numbers cross this interface as big-endian unsigned
// byte strings, the way DER and RSA blocks hold them.
//
// Why it exists: Crypto++'s Integer is about 84 KB of the widget's wasm code, and the widget only
// ever encrypts (m^e mod n with a public e). Private-key operations (decryption, signing, key
// generation) stay with Crypto++, natively.
//
// Timing threat model. What is secret here is the base: the padded block of the shopper's payload
// (the order, a 2FA code), which script on the same page could try to learn by timing the
// encryption. The exponent and the modulus are public (the merchant's public key). So:
//   - nothing that depends on the base's value steers a branch or a memory access: the product and
//     reduction loops run a fixed number of times for a given modulus, and the final subtraction of
//     every Montgomery product is a masked select (subtract_if_at_least), not a branch;
//   - the square-and-multiply ladder follows the exponent's bits, and setup (R^2 mod n) branches on
//     the modulus: both public;
//   - leading zero bytes of the base are skipped when it is read (to_limbs): in OAEP and PKCS#1 v1.5
//     blocks the bytes after the first are random (masked seed, random padding), so their count
//     says nothing about the payload.
// The private exponent never comes here: decryption, signing and key generation stay with
// Crypto++, natively. Do not use this for private keys.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace paywasm::detail {

// Number of significant bits of a big-endian magnitude (leading zero bytes allowed); 0 for zero.
std::size_t bit_length(std::string_view magnitude);

// -1, 0 or 1 as a <, ==, > b (big-endian magnitudes, leading zero bytes allowed).
int compare_magnitudes(std::string_view a, std::string_view b);

// An odd modulus n > 1 prepared for Montgomery multiplication on 32-bit limbs (64-bit products):
// R = 2^(32*limbs), n' = -n^-1 mod 2^32, R^2 mod n. `limbs` is the modulus' limb count rounded up
// to even; "below 2^(32*limbs)" for bases means the modulus' own limb count.
class MontgomeryModulus {
public:
    // `modulus`: big-endian magnitude. Throws Error(crypto) when it is even or < 3.
    explicit MontgomeryModulus(std::string_view modulus);

    // base^exponent mod n as exactly `out_bytes` big-endian bytes (out_bytes >= the modulus' byte
    // length). `base` may be any value below 2^(32*limbs) (it is reduced); `exponent` any size.
    std::string power(std::string_view base, std::string_view exponent, std::size_t out_bytes) const;

    // power() of bases[0..count) with the same exponent: the results one after the other, each
    // exactly `out_bytes` bytes. Bases go two at a time through the two lanes of one computation
    // (SIMD lanes in wasm), so an even count costs least.
    std::string power_each(const std::string_view* bases, std::size_t count, std::string_view exponent,
                           std::size_t out_bytes) const;

private:
    using Limbs = std::vector<std::uint32_t>;
    // Operands are pairs of numbers, limb j of the two at [2j] and [2j + 1] (see the .cpp).
    // out = a * b / R mod n in each lane, for a * b < R*n (out may alias neither a nor b; a == b
    // squares). `scratch` holds 4 * limbs + 2.
    void multiply(const std::uint32_t* a, const std::uint32_t* b, std::uint32_t* out, std::uint32_t* scratch) const;
    // out = t / R mod n for t < R*n in each lane (t: 2 * limbs pairs, overwritten).
    void reduce(std::uint32_t* t, std::uint32_t* out) const;

    Limbs n_;           // little-endian limbs
    Limbs r_squared_;   // R^2 mod n, as a pair (the same number in both lanes)
    std::uint32_t n_prime_ = 0;
    std::size_t base_bytes_ = 0;  // bases must fit in this many bytes: the modulus' own 32-bit limbs
};

}  // namespace paywasm::detail
