// Fuzz target: decrypt() with a fixed 2048-bit test key (the sandbox decrypting what a client sent).
// Input: one byte, then the ciphertext. The byte's low bits pick the padding; with bit 0x80 set the
// rest is raw ciphertext bytes (base64-encoded here, so the fuzzer reaches the RSA blocks), otherwise
// it is the base64 text itself.
// Property: decrypt either returns or throws Error(crypto, "decryption failed") — that exact
// message, whatever went wrong, so a failure leaks nothing about where the padding broke. What it
// returns is at most max_piece() bytes per k-byte block (PKCS#1 v1.5: a padding string of at least 8
// bytes and a separator, RFC 8017 7.2.2; OAEP: two hashes and the 01 byte).
// With PKCS#1 v1.5, decrypt_pkcs1v15_implicit too (implicit rejection, what the sandbox runs): it
// throws that same error exactly when the input is publicly bad (not strict base64, not a positive
// multiple of k bytes, a block not below n) and never otherwise, so no padding makes it throw; what
// it returns is at most k - 11 bytes per block, and the strict decrypt's plaintext when that one
// succeeded.
#include <cstring>
#include <string>

#include "../unit/test_crypto_keys.hpp"
#include "core/crypto_internal.hpp"
#include "fuzz_common.hpp"
#include "paywasm/crypto.hpp"

using namespace paywasm;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const PrivateKey key = PrivateKey::parse(test_keys::kPrivate2048);
    if (size < 1) return 0;
    static constexpr Padding kPaddings[] = {Padding::oaep_sha1, Padding::oaep_sha256, Padding::pkcs1v15};
    const Padding padding = kPaddings[(data[0] & 0x7f) % 3];
    std::string_view rest = fuzz::as_text(data + 1, size - 1);
    const std::string text = (data[0] & 0x80) ? base64_encode(rest) : std::string(rest);
    static const PublicKey pub = key.public_key();
    const std::size_t k = pub.modulus_bytes();
    std::string strict;
    bool strict_ok = false;
    try {
        strict = decrypt(key, text, padding);
        strict_ok = true;
        PAYWASM_FUZZ_CHECK(strict.size() <= text.size(), "plaintext is shorter than its ciphertext");
        const std::size_t blocks = base64_decode(text).size() / k;
        PAYWASM_FUZZ_CHECK(strict.size() <= blocks * max_piece(pub, padding),
                           "at most max_piece bytes per block: " + std::to_string(strict.size()));
    } catch (const Error& e) {
        PAYWASM_FUZZ_CHECK(e.code() == ErrorCode::crypto && std::strcmp(e.what(), "decryption failed") == 0,
                           std::string(to_string(e.code())) + ": " + e.what());
    }
    if (padding != Padding::pkcs1v15) return 0;

    // What anyone can check without the key (n has no leading zero byte: it is k bytes long).
    std::string raw, why;
    bool public_ok = keyio::base64_decode_into(text, false, raw, why) && !raw.empty() && raw.size() % k == 0;
    for (std::size_t off = 0; public_ok && off < raw.size(); off += k) {
        public_ok = raw.compare(off, k, detail::KeyAccess::of(pub).n) < 0;  // char_traits<char> compares as unsigned
    }
    try {
        const std::string implicit = decrypt_pkcs1v15_implicit(key, text);
        PAYWASM_FUZZ_CHECK(public_ok, "implicit rejection returned for publicly bad input");
        PAYWASM_FUZZ_CHECK(implicit.size() <= raw.size() / k * (k - 11),
                           "at most k - 11 bytes per block: " + std::to_string(implicit.size()));
        PAYWASM_FUZZ_CHECK(!strict_ok || implicit == strict, "a good padding decrypts as decrypt() does");
    } catch (const Error& e) {
        PAYWASM_FUZZ_CHECK(e.code() == ErrorCode::crypto && std::strcmp(e.what(), "decryption failed") == 0,
                           std::string(to_string(e.code())) + ": " + e.what());
        PAYWASM_FUZZ_CHECK(!public_ok, "implicit rejection threw for a well-formed ciphertext (a padding oracle)");
    }
    return 0;
}
