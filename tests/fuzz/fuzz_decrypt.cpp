// Fuzz target: decrypt() with a fixed 2048-bit test key (the sandbox decrypting what a client sent).
// Input: one byte, then the ciphertext. The byte's low bits pick the padding; with bit 0x80 set the
// rest is raw ciphertext bytes (base64-encoded here, so the fuzzer reaches the RSA blocks), otherwise
// it is the base64 text itself.
// Property: decrypt either returns or throws Error(crypto, "decryption failed") — that exact
// message, whatever went wrong, so a failure leaks nothing about where the padding broke. What it
// returns is at most max_piece() bytes per k-byte block (PKCS#1 v1.5: a padding string of at least 8
// bytes and a separator, RFC 8017 7.2.2; OAEP: two hashes and the 01 byte).
#include <cstring>
#include <string>

#include "../unit/test_crypto_keys.hpp"
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
    try {
        std::string plain = decrypt(key, text, padding);
        PAYWASM_FUZZ_CHECK(plain.size() <= text.size(), "plaintext is shorter than its ciphertext");
        static const PublicKey pub = key.public_key();
        const std::size_t blocks = base64_decode(text).size() / pub.modulus_bytes();
        PAYWASM_FUZZ_CHECK(plain.size() <= blocks * max_piece(pub, padding),
                           "at most max_piece bytes per block: " + std::to_string(plain.size()));
    } catch (const Error& e) {
        PAYWASM_FUZZ_CHECK(e.code() == ErrorCode::crypto && std::strcmp(e.what(), "decryption failed") == 0,
                           std::string(to_string(e.code())) + ": " + e.what());
    }
    return 0;
}
