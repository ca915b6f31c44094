// Unit tests of RSAES-PKCS1-v1_5 decoding (RFC 8017 section 7.2.2) with hand-made encryption blocks:
// each EM below is turned into a ciphertext with the raw public operation (c = EM^e mod n, the
// project's own MontgomeryModulus), so the decoder sees exactly the block the test chose, including
// blocks no encryptor would make.
#include <doctest/doctest.h>

#include <string>

#include "core/bigint_modexp.hpp"
#include "core/crypto_internal.hpp"
#include "paywasm/crypto.hpp"
#include "paywasm/error.hpp"
#include "test_crypto_keys.hpp"
#include "test_support.hpp"

using namespace paywasm;
namespace keys = paywasm::test_keys;

namespace {

// base64 of EM^e mod n for the 2048-bit test key (EM must be k = 256 bytes, below n).
std::string raw_encrypt(const std::string& em) {
    const PublicKey pub = PublicKey::parse(keys::kPublic2048);
    const auto& impl = detail::KeyAccess::of(pub);
    REQUIRE(em.size() == pub.modulus_bytes());
    detail::MontgomeryModulus mod(impl.n);
    return base64_encode(mod.power(em, impl.e, pub.modulus_bytes()));
}

// 00 02 || PS (ps_len non-zero bytes) || 00 || message, padded to k = 256 bytes by PS.
std::string block(std::size_t ps_len, const std::string& message, bool separator = true) {
    std::string em("\x00\x02", 2);
    em += std::string(ps_len, '\x5a');
    if (separator) em += '\0';
    em += message;
    return em;
}

std::string decrypt_v15(const std::string& base64) {
    return decrypt(PrivateKey::parse(keys::kPrivate2048), base64, Padding::pkcs1v15);
}

void refused(const std::string& em, const std::string& what) {
    CAPTURE(what);
    Error e = test::error_of([&] { decrypt_v15(raw_encrypt(em)); });
    CHECK(e.code() == ErrorCode::crypto);
    CHECK(std::string(e.what()) == "decryption failed");
}

}  // namespace

TEST_CASE("PKCS#1 v1.5: well-formed blocks decode to their message") {
    CHECK(decrypt_v15(raw_encrypt(block(256 - 3 - 5, "hello"))) == "hello");
    // The shortest padding string allowed: 8 bytes, message k - 11 bytes.
    const std::string longest(256 - 11, 'm');
    CHECK(decrypt_v15(raw_encrypt(block(8, longest))) == longest);
    // A zero separator in the last byte: an empty message, which RFC 8017 allows.
    CHECK(decrypt_v15(raw_encrypt(block(256 - 3, ""))).empty());
    // The message may hold zero bytes after the separator.
    CHECK(decrypt_v15(raw_encrypt(block(256 - 3 - 3, std::string("a\0b", 3)))) == std::string("a\0b", 3));
}

TEST_CASE("PKCS#1 v1.5: malformed blocks are refused with the one failure") {
    // 00 02 and then only non-zero bytes: no separator. Crypto++ 8.7 returns an empty message for
    // this; RFC 8017 (and OpenSSL) make it a decryption error.
    refused(block(256 - 2, "", false), "no zero separator");
    refused(block(7, std::string(256 - 10, 'm')), "a padding string of 7 bytes");
    refused(block(0, std::string(256 - 3, 'm')), "an empty padding string");
    std::string em = block(256 - 3 - 5, "hello");
    em[1] = '\x01';
    refused(em, "block type 01 (a signature block)");
    em[1] = '\x00';
    refused(em, "block type 00");
    em = block(256 - 3 - 5, "hello");
    em[0] = '\x01';
    refused(em, "a first byte that is not zero");
    em = block(256 - 3 - 5, "hello");
    em[5] = '\0';
    refused(em, "a zero inside the first 8 padding bytes");
}

TEST_CASE("PKCS#1 v1.5: one bad block makes the whole ciphertext fail") {
    const std::string good = base64_decode(raw_encrypt(block(256 - 3 - 5, "hello")));
    const std::string bad = base64_decode(raw_encrypt(block(256 - 2, "", false)));
    CHECK(decrypt_v15(base64_encode(good + good)) == "hellohello");
    for (const std::string& input : {good + bad, bad + good}) {
        Error e = test::error_of([&] { decrypt_v15(base64_encode(input)); });
        CHECK(std::string(e.what()) == "decryption failed");
    }
}
