// Unit tests of paywasm/crypto.hpp: key parsing and refusals, chunked RSA in three paddings,
// OpenSSL known answers, signatures, base64. Keys come from test_crypto_keys.hpp (no files, no
// 4096-bit keygen at run time); one 2048-bit key is generated per run and shared.
#include <doctest/doctest.h>

#include <atomic>
#include <set>
#include <thread>
#include <string>
#include <vector>

#include "paywasm/crypto.hpp"
#include "paywasm/error.hpp"
#include "test_crypto_keys.hpp"
#include "test_support.hpp"

using namespace paywasm;
namespace keys = paywasm::test_keys;

namespace {

using test::error_of;

std::string key_refusal(std::string_view key_text) {
    Error e = error_of([&] { PublicKey::parse(key_text); });
    CHECK(e.code() == ErrorCode::invalid_key);
    return e.what();
}

bool contains(const std::string& haystack, std::string_view needle) {
    return haystack.find(needle) != std::string::npos;
}

const PrivateKey& generated_key() {
    static const PrivateKey key = PrivateKey::generate(2048);
    return key;
}

// Deterministic bytes that include NULs and high bytes.
std::string payload(std::size_t n) {
    std::string s(n, '\0');
    for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 131 + 7) & 0xff);
    return s;
}

// DER bits for keys that no tool will make: a SEQUENCE with a long-form length.
std::string der_tlv(unsigned char tag, const std::string& content) {
    std::string out(1, static_cast<char>(tag));
    std::size_t n = content.size();
    if (n < 0x80) {
        out += static_cast<char>(n);
    } else {
        out += static_cast<char>(0x82);
        out += static_cast<char>((n >> 8) & 0xff);
        out += static_cast<char>(n & 0xff);
    }
    return out + content;
}

// DER RSAPublicKey with an odd all-ones modulus of `modulus_bytes` bytes and the exponent `e`
// (big-endian, high bit clear).
std::string hand_built_key(std::size_t modulus_bytes, const std::string& e) {
    std::string modulus(1 + modulus_bytes, '\xff');
    modulus[0] = '\0';  // keeps the INTEGER positive
    return der_tlv(0x30, der_tlv(0x02, modulus) + der_tlv(0x02, e));
}

}  // namespace

TEST_CASE("Padding names parse and print") {
    CHECK(parse_padding("oaep-sha1") == Padding::oaep_sha1);
    CHECK(parse_padding("oaep-sha256") == Padding::oaep_sha256);
    CHECK(parse_padding("pkcs1v15") == Padding::pkcs1v15);
    for (Padding p : {Padding::oaep_sha1, Padding::oaep_sha256, Padding::pkcs1v15}) {
        CHECK(parse_padding(to_string(p)) == p);
    }
    Error e = error_of([] { parse_padding("OAEP"); });
    CHECK(e.code() == ErrorCode::validation);
    CHECK(e.field() == "padding");
}

TEST_CASE("A public key parses from SPKI and PKCS#1, PEM and DER, to the same key") {
    std::string pem;
    SUBCASE("SPKI PEM") { pem = keys::kPublic2048; }
    SUBCASE("PKCS#1 PEM") { pem = keys::kPublic2048Pkcs1; }
    SUBCASE("SPKI DER") { pem = base64_decode(keys::kPublic2048SpkiDerBase64); }
    SUBCASE("PKCS#1 DER") { pem = base64_decode(keys::kPublic2048Pkcs1DerBase64); }
    SUBCASE("PEM with CRLF line ends and surrounding blank lines") {
        for (char c : std::string(keys::kPublic2048)) {
            if (c == '\n') pem += '\r';
            pem += c;
        }
        pem = "\n\n" + pem + "\n";
    }
    PublicKey key = PublicKey::parse(pem);
    CHECK(key.bits() == 2048);
    CHECK(key.modulus_bytes() == 256);
    CHECK(key.fingerprint() == keys::kFingerprint2048);
}

TEST_CASE("The fingerprint is what `openssl pkey -pubin -outform DER | sha256sum` prints") {
    CHECK(PublicKey::parse(keys::kPublic2048).fingerprint() == keys::kFingerprint2048);
    CHECK(PublicKey::parse(keys::kPublic3072).fingerprint() == keys::kFingerprint3072);
    CHECK(PublicKey::parse(keys::kPublic4096).fingerprint() == keys::kFingerprint4096);
    CHECK(PublicKey::parse(keys::kPublic3072).bits() == 3072);
    CHECK(PublicKey::parse(keys::kPublic4096).modulus_bytes() == 512);

    PublicKey key = PublicKey::parse(keys::kPublic2048Pkcs1);
    CHECK(key.spki_der() == base64_decode(keys::kPublic2048SpkiDerBase64));
    CHECK(key.to_pem() == keys::kPublic2048);  // byte-for-byte what OpenSSL wrote
    CHECK(sha256_hex(key.spki_der()) == key.fingerprint());
}

TEST_CASE("Unsuitable public keys are refused, each with its own reason") {
    const std::string spki = base64_decode(keys::kPublic2048SpkiDerBase64);
    std::vector<std::string> messages;
    auto refuse = [&](std::string_view text, std::string_view reason) {
        std::string m = key_refusal(text);
        CHECK_MESSAGE(contains(m, reason), "message: ", m);
        messages.push_back(m);
    };

    refuse(keys::kPublic1024, "1024 bits; at least 2048");
    refuse(keys::kPublicE3, "e = 3 is below 65537");
    refuse(keys::kPublicE1, "e = 1 is refused");
    refuse(keys::kPublicEven, "e = 65538 is even");
    refuse(spki.substr(0, 200), "truncated DER");
    refuse(spki + "abc", "trailing data: 3 bytes after the DER key");
    refuse(std::string(keys::kPublic2048) + "garbage\n", "trailing data after the PEM block");
    refuse(std::string(keys::kPublic2048) + keys::kPublic2048, "trailing data after the PEM block");
    refuse(std::string(keys::kPublic2048).substr(0, 300), "truncated PEM");
    refuse(keys::kPrivate2048, "this is a private key; pass the public key");
    refuse(keys::kPrivate2048Pkcs1, "this is a private key; pass the public key");
    refuse(base64_decode(keys::kPrivate2048Pkcs1DerBase64), "this is a private key; pass the public key");
    refuse(base64_decode(keys::kPrivate2048Pkcs8DerBase64), "this is a private key; pass the public key");
    refuse("hello world", "not a key");
    refuse("", "empty key");
    refuse(keys::kPublic2048SpkiDerBase64, "without the PEM armour");
    refuse("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n", "'CERTIFICATE' is not a public key");

    // More than 8192 bits: a hand-built RSAPublicKey with an 8200-bit odd modulus and e = 65537.
    refuse(hand_built_key(8200 / 8, std::string("\x01\x00\x01", 3)), "8200 bits; at most 8192");
    // An exponent above 2^32 (2^32 + 1, odd) with a 2048-bit modulus: slow to encrypt with, refused.
    refuse(hand_built_key(2048 / 8, std::string("\x01\x00\x00\x00\x01", 5)),
           "e = 4294967297 is above 2^32");
    // A modulus-sized odd exponent (what a hostile key would carry to freeze the page).
    refuse(hand_built_key(2048 / 8, std::string(200, '\x7f')), "e = a 1599-bit number is above 2^32");

    // Each refusal has its own message, except that the four private-key cases share one and the
    // two trailing-PEM cases share one.
    std::set<std::string> distinct(messages.begin(), messages.end());
    CHECK(messages.size() == 20);
    CHECK(distinct.size() == 20 - 3 - 1);
}

TEST_CASE("The largest accepted keys: 8192 bits, e up to 2^32") {
    // check_numbers does not test primality, so all-ones moduli stand in for real keys here.
    CHECK(PublicKey::parse(hand_built_key(8192 / 8, std::string("\x01\x00\x01", 3))).bits() == kMaxKeyBits);
    CHECK(PublicKey::parse(hand_built_key(2048 / 8, std::string("\x00\xff\xff\xff\xff", 5))).bits() == 2048);
    CHECK(kMaxKeyBits == 8192);
    CHECK(kMaxPublicExponent == 4294967296ULL);
}

TEST_CASE("A private key parses from PKCS#8 and PKCS#1, PEM and DER") {
    std::string text;
    SUBCASE("PKCS#8 PEM") { text = keys::kPrivate2048; }
    SUBCASE("PKCS#1 PEM") { text = keys::kPrivate2048Pkcs1; }
    SUBCASE("PKCS#8 DER") { text = base64_decode(keys::kPrivate2048Pkcs8DerBase64); }
    SUBCASE("PKCS#1 DER") { text = base64_decode(keys::kPrivate2048Pkcs1DerBase64); }
    PrivateKey key = PrivateKey::parse(text);
    CHECK(key.public_key().fingerprint() == keys::kFingerprint2048);
    CHECK(key.to_pem() == keys::kPrivate2048);  // PKCS#8, byte-for-byte what OpenSSL wrote
}

TEST_CASE("Public and encrypted keys are refused where a private key is expected") {
    for (const std::string& text : {std::string(keys::kPublic2048), std::string(keys::kPublic2048Pkcs1),
                                    base64_decode(keys::kPublic2048SpkiDerBase64),
                                    base64_decode(keys::kPublic2048Pkcs1DerBase64)}) {
        Error e = error_of([&] { PrivateKey::parse(text); });
        CHECK(e.code() == ErrorCode::invalid_key);
        CHECK(std::string(e.what()) == "this is a public key; pass the private key");
    }
    Error enc = error_of([] {
        PrivateKey::parse("-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n");
    });
    CHECK(contains(enc.what(), "encrypted private keys are not supported"));
    Error junk = error_of([] { PrivateKey::parse("not a key"); });
    CHECK(junk.code() == ErrorCode::invalid_key);
}

TEST_CASE("A private key whose parts do not fit together is refused") {
    std::string der = base64_decode(keys::kPrivate2048Pkcs1DerBase64);
    // Offsets 277..532 hold the private exponent d (after version, n and e); change one of its bytes.
    REQUIRE(der.substr(0, 4) == std::string("\x30\x82\x04\xa4", 4));
    der[400] = static_cast<char>(der[400] ^ 0x5a);
    Error e = error_of([&] { PrivateKey::parse(der); });
    CHECK(e.code() == ErrorCode::invalid_key);
    CHECK(contains(e.what(), "do not fit together"));
}

TEST_CASE("max_piece is k - 2*hLen - 2 for OAEP and k - 11 for PKCS#1 v1.5") {
    struct Row { const char* pem; std::size_t sha1, sha256, v15; };
    for (Row r : {Row{keys::kPublic2048, 214, 190, 245}, Row{keys::kPublic3072, 342, 318, 373},
                  Row{keys::kPublic4096, 470, 446, 501}}) {
        PublicKey key = PublicKey::parse(r.pem);
        CHECK(max_piece(key, Padding::oaep_sha1) == r.sha1);
        CHECK(max_piece(key, Padding::oaep_sha256) == r.sha256);
        CHECK(max_piece(key, Padding::pkcs1v15) == r.v15);
    }
}

TEST_CASE("Every padding round-trips at 2048, 3072 and 4096 bits with k-byte blocks") {
    struct KeyPair { const char* pub; const char* priv; };
    for (KeyPair kp : {KeyPair{keys::kPublic2048, keys::kPrivate2048}, KeyPair{keys::kPublic3072, keys::kPrivate3072},
                       KeyPair{keys::kPublic4096, keys::kPrivate4096}}) {
        PublicKey pub = PublicKey::parse(kp.pub);
        PrivateKey priv = PrivateKey::parse(kp.priv);
        const std::size_t k = pub.modulus_bytes();
        for (Padding padding : {Padding::oaep_sha1, Padding::oaep_sha256, Padding::pkcs1v15}) {
            const std::size_t piece = max_piece(pub, padding);
            for (std::size_t size : {std::size_t{1}, piece, piece + 1, std::size_t{700}}) {
                CAPTURE(pub.bits());
                CAPTURE(to_string(padding));
                CAPTURE(size);
                std::string plain = payload(size);
                std::string b64 = encrypt(pub, plain, padding);
                CHECK(base64_decode(b64).size() == (size + piece - 1) / piece * k);
                CHECK(decrypt(priv, b64, padding) == plain);
            }
        }
    }
}

TEST_CASE("OAEP-SHA-1 chunks a 700-byte payload into four blocks at 2048 bits") {
    PublicKey pub = PublicKey::parse(keys::kPublic2048);
    CHECK(base64_decode(encrypt(pub, payload(214))).size() == 256);
    CHECK(base64_decode(encrypt(pub, payload(215))).size() == 512);
    CHECK(base64_decode(encrypt(pub, payload(700))).size() == 4 * 256);
    CHECK(base64_decode(encrypt(pub, payload(856))).size() == 4 * 256);
    CHECK(base64_decode(encrypt(pub, payload(857))).size() == 5 * 256);
}

TEST_CASE("Encryption is randomized and refuses empty or oversized plaintext") {
    PublicKey pub = PublicKey::parse(keys::kPublic2048);
    CHECK(encrypt(pub, "same") != encrypt(pub, "same"));
    CHECK(encrypt(pub, "same", Padding::pkcs1v15) != encrypt(pub, "same", Padding::pkcs1v15));

    Error empty = error_of([&] { encrypt(pub, ""); });
    CHECK(empty.code() == ErrorCode::validation);
    CHECK(empty.field() == "plaintext");
    CHECK(base64_decode(encrypt(pub, payload(64 * 1024))).size() == (64 * 1024 + 213) / 214 * 256);
    Error big = error_of([&] { encrypt(pub, payload(64 * 1024 + 1)); });
    CHECK(big.code() == ErrorCode::validation);
    CHECK(contains(big.what(), "65537 bytes; at most 65536"));
}

TEST_CASE("Ciphertexts made by OpenSSL decrypt (known answers, MGF1 follows the OAEP hash)") {
    PrivateKey priv = PrivateKey::parse(keys::kPrivate2048);
    CHECK(decrypt(priv, keys::kOpensslOaepSha1, Padding::oaep_sha1) == keys::kKnownPlaintext);
    CHECK(decrypt(priv, keys::kOpensslOaepSha256, Padding::oaep_sha256) == keys::kKnownPlaintext);
    CHECK(decrypt(priv, keys::kOpensslPkcs1v15, Padding::pkcs1v15) == keys::kKnownPlaintext);
    // The PKCS#1 form of the same key decrypts the same block.
    CHECK(decrypt(PrivateKey::parse(keys::kPrivate2048Pkcs1), keys::kOpensslOaepSha1) == keys::kKnownPlaintext);
}

TEST_CASE("Every decryption failure says only \"decryption failed\"") {
    PrivateKey priv = PrivateKey::parse(keys::kPrivate2048);
    std::string good = keys::kOpensslOaepSha1;
    std::string raw = base64_decode(good);
    std::string flipped = raw;
    flipped[100] = static_cast<char>(flipped[100] ^ 0x01);
    std::string too_big(256, '\xff');  // a block not below the modulus

    std::string input;
    Padding padding = Padding::oaep_sha1;
    const PrivateKey* key = &priv;
    SUBCASE("not base64") { input = "@@@@"; }
    SUBCASE("empty") { input = ""; }
    SUBCASE("length not a multiple of k") { input = base64_encode(raw.substr(0, 255)); }
    SUBCASE("a flipped bit") { input = base64_encode(flipped); }
    SUBCASE("a block above the modulus") { input = base64_encode(too_big); }
    SUBCASE("the wrong key") { input = good; key = &generated_key(); }
    SUBCASE("OAEP-SHA-1 ciphertext read as OAEP-SHA-256") { input = good; padding = Padding::oaep_sha256; }
    SUBCASE("a good block followed by a bad one") { input = base64_encode(raw + flipped); }

    Error e = error_of([&] { decrypt(*key, input, padding); });
    CHECK(e.code() == ErrorCode::crypto);
    CHECK(std::string(e.what()) == "decryption failed");
}

TEST_CASE("merchant_auth encrypts exactly the merchantId JSON") {
    PublicKey pub = PublicKey::parse(keys::kPublic2048);
    PrivateKey priv = PrivateKey::parse(keys::kPrivate2048);
    CHECK(decrypt(priv, merchant_auth(pub, "M-1042")) == R"({"merchantId":"M-1042"})");
    CHECK(decrypt(priv, merchant_auth(pub, "M-1042", Padding::oaep_sha256), Padding::oaep_sha256) ==
          R"({"merchantId":"M-1042"})");
    // Escaped as JSON.stringify would.
    CHECK(decrypt(priv, merchant_auth(pub, "a\"b\\c\n")) == R"({"merchantId":"a\"b\\c\n"})");
    Error e = error_of([&] { merchant_auth(pub, ""); });
    CHECK(e.code() == ErrorCode::validation);
    CHECK(e.field() == "merchantId");
}

TEST_CASE("Generated keys have the requested size and e = 65537, and work") {
    const PrivateKey& priv = generated_key();
    PublicKey pub = priv.public_key();
    CHECK(pub.bits() == 2048);
    // e = 65537: the SPKI ends with INTEGER 01 00 01.
    std::string spki = pub.spki_der();
    CHECK(spki.substr(spki.size() - 5) == std::string("\x02\x03\x01\x00\x01", 5));
    CHECK(decrypt(priv, encrypt(pub, "round trip")) == "round trip");
    PrivateKey again = PrivateKey::parse(priv.to_pem());
    CHECK(again.public_key().fingerprint() == pub.fingerprint());
    CHECK(PublicKey::parse(pub.to_pem()).fingerprint() == pub.fingerprint());
    CHECK(pub.fingerprint() != keys::kFingerprint2048);

    for (int bits : {1024, 2047, 2049, 8200, 16384}) {
        CAPTURE(bits);
        Error e = error_of([&] { PrivateKey::generate(bits); });
        CHECK(e.code() == ErrorCode::validation);
        CHECK(e.field() == "bits");
    }
}

TEST_CASE("Signatures are RSASSA-PKCS1-v1_5 SHA-256, as OpenSSL makes them") {
    PrivateKey priv = PrivateKey::parse(keys::kPrivate2048);
    PublicKey pub = PublicKey::parse(keys::kPublic2048);
    const std::string message = keys::kSignedMessage;
    CHECK(sign_sha256(priv, message) == keys::kOpensslSignature);  // deterministic scheme
    CHECK(verify_sha256(pub, message, keys::kOpensslSignature));

    std::string tampered = message;
    tampered[tampered.size() - 2] = '2';  // "status":2
    CHECK_FALSE(verify_sha256(pub, tampered, keys::kOpensslSignature));
    std::string sig = base64_decode(keys::kOpensslSignature);
    sig[10] = static_cast<char>(sig[10] ^ 0x40);
    CHECK_FALSE(verify_sha256(pub, message, base64_encode(sig)));
    CHECK_FALSE(verify_sha256(generated_key().public_key(), message, keys::kOpensslSignature));
    CHECK_FALSE(verify_sha256(pub, message, "not base64!"));
    CHECK_FALSE(verify_sha256(pub, message, base64_encode(sig.substr(1))));
    CHECK(verify_sha256(pub, "", sign_sha256(priv, "")));
}

// verify_sha256 keeps the last key's verifier per thread (a server checks every webhook against one
// key): whichever key came before, each verification uses exactly the key it is given.
TEST_CASE("A signature verifies with its own key only, whatever key was used before") {
    PrivateKey priv_a = PrivateKey::parse(keys::kPrivate2048);
    PublicKey a = PublicKey::parse(keys::kPublic2048);
    const PrivateKey& priv_b = generated_key();
    PublicKey b = priv_b.public_key();
    const std::string message = keys::kSignedMessage;
    const std::string by_a = sign_sha256(priv_a, message), by_b = sign_sha256(priv_b, message);
    for (int round = 0; round < 3; ++round) {
        CAPTURE(round);
        CHECK(verify_sha256(a, message, by_a));
        CHECK_FALSE(verify_sha256(a, message, by_b));
        CHECK_FALSE(verify_sha256(b, message, by_a));
        CHECK(verify_sha256(b, message, by_b));
        CHECK(verify_sha256(PublicKey::parse(keys::kPublic2048), message, by_a));  // a new object, the same key
    }
#ifndef __EMSCRIPTEN__  // (the wasm build of these tests has no threads)
    // Threads of their own (the gateway's workers) each keep their own verifier.
    std::vector<std::thread> threads;
    std::atomic<int> wrong{0};
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&, t] {
            const PublicKey& mine = t % 2 ? a : b;
            const std::string& good = t % 2 ? by_a : by_b;
            const std::string& other = t % 2 ? by_b : by_a;
            for (int i = 0; i < 20; ++i) {
                if (!verify_sha256(mine, message, good) || verify_sha256(mine, message, other)) ++wrong;
            }
        });
    }
    for (auto& t : threads) t.join();
    CHECK(wrong == 0);
#endif
}

TEST_CASE("Base64 is the standard alphabet with required padding") {
    // RFC 4648 section 10 vectors.
    const char* vectors[][2] = {{"", ""},         {"f", "Zg=="},         {"fo", "Zm8="},        {"foo", "Zm9v"},
                                {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"}};
    for (auto& v : vectors) {
        CHECK(base64_encode(v[0]) == v[1]);
        CHECK(base64_decode(v[1]) == v[0]);
    }
    CHECK(base64_encode(std::string("\x00\xff\xfe", 3)) == "AP/+");
    CHECK(base64_decode("AP/+") == std::string("\x00\xff\xfe", 3));
    CHECK(base64_decode("Zm9v\nYmFy\r\n") == "foobar");

    for (const char* bad : {"Zm9", "Zm=v", "Zm9v=", "Zg=", "Zh==", "Zm 9v", "Zm9v-_==", "Z===", "Zg==Zg==", "Zm9v\t"}) {
        CAPTURE(bad);
        Error e = error_of([&] { base64_decode(bad); });
        CHECK(e.code() == ErrorCode::validation);
        CHECK(e.field() == "base64");
    }
}

TEST_CASE("SHA-256 matches the FIPS 180-2 examples") {
    CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST_CASE("random_bytes fills buffers past the 256-byte getentropy limit") {
    std::vector<unsigned char> a(1000, 0), b(1000, 0);
    random_bytes(a.data(), a.size());
    random_bytes(b.data(), b.size());
    CHECK(a != b);
    // The tail beyond the first 256-byte slice is filled too (all zero has probability 2^-5952).
    CHECK(std::vector<unsigned char>(a.begin() + 744, a.end()) != std::vector<unsigned char>(256, 0));
    random_bytes(nullptr, 0);
}
